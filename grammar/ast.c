/* ast.c - constructors and destructors for the syntax tree; see ast.h. */
#include "ast.h"
#include "../base/util.h"

#include <stdlib.h>
#include <string.h>

ast_stmt *ast_stmt_new(struct ir_arena *a, ast_stmt_kind kind, src_loc loc)
{
	ast_stmt *s = arena_alloc(a, sizeof *s);
	s->kind = kind;
	s->loc = loc;
	return s;
}

void ast_words_push(ast_words *w, ast_word x)
{
	xgrow_from(&w->v, &w->cap, w->n + 1, sizeof *w->v, 1);
	w->v[w->n++] = x;
}

void ast_words_free(ast_words *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i].s);
	free(w->v);
	memset(w, 0, sizeof *w);
}

void ast_value_push(ast_value *v, ast_atom a)
{
	if (!v->n)
		v->loc = a.loc;
	xgrow_from(&v->v, &v->cap, v->n + 1, sizeof *v->v, 1);
	v->v[v->n++] = a;
}

void ast_value_free(ast_value *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->v[i].name);
	free(v->v);
	memset(v, 0, sizeof *v);
}

void ast_stmt_free(ast_stmt *s)
{
	if (!s)
		return;
	free(s->action.err.name);
	ast_words_free(&s->names);
	ast_words_free(&s->strings);
	ast_words_free(&s->perms);
	ast_words_free(&s->fstypes);
	ast_words_free(&s->addrs);
	for (size_t i = 0; i < s->ncond; i++) {
		free(s->conds[i].arg.s);
		ast_value_free(&s->conds[i].mask);
		ast_value_free(&s->conds[i].value);
	}
	free(s->conds);
	free(s->ports);
	free(s->word.s);
}

ast_block *ast_block_new(ast_block_kind kind, src_loc loc)
{
	ast_block *b = xcalloc(1, sizeof *b);
	b->kind = kind;
	b->loc = loc;
	return b;
}

void ast_block_free(ast_block *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++)
		ast_stmt_free(b->stmts[i]);
	free(b->stmts);
	free(b->name.s);
	free(b);
}

void ast_file_free(ast_file *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++)
		ast_block_free(f->blocks[i]);
	free(f->blocks);
	arena_free(f->arena);
	free(f);
}
