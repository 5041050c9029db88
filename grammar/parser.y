/* parser.y - the polc grammar (LANGUAGE.md "Grammar"), reentrant, with
 * locations and error recovery at ';' and '}' so that one run reports every
 * syntax error of a file. Builds the AST of grammar/ast.h. */
%define api.pure full
%define api.prefix {polc_yy}
%define parse.error custom
%locations
%param {void *scanner}
%parse-param {struct lex_ctx *lx}

%code requires {
#include <stdint.h>
#include "grammar/ast.h"
#include "grammar/parse_ctx.h"
}

%code {
#include <stdlib.h>
#include <string.h>
#include "lexer.h"
#include "base/util.h"

#define LOC(l) lex_loc(lx, &(l))
static ast_word word(char *s, src_loc loc) { ast_word w = { s, loc }; return w; }
static ast_atom atom_num(uint64_t n, src_loc loc) { ast_atom a = { false, n, NULL, loc }; return a; }
static ast_atom atom_name(char *s, src_loc loc) { ast_atom a = { true, 0, s, loc }; return a; }
static void add_block(struct lex_ctx *lx, ast_block *b)
{
	xgrow(&lx->out->blocks, &lx->out->cap, lx->out->n + 1, sizeof *lx->out->blocks);
	lx->out->blocks[lx->out->n++] = b;
}
static void add_stmt(ast_block *b, ast_stmt *s)
{
	if (!s)
		return;
	xgrow(&b->stmts, &b->cap, b->n + 1, sizeof *b->stmts);
	b->stmts[b->n++] = s;
}
static void polc_yyerror(YYLTYPE *l, void *scanner, struct lex_ctx *lx, const char *msg)
{
	(void)scanner;
	diag_error(lx->d, LOC(*l), "%s", msg);
}
}

%union {
	char *str;
	uint64_t num;
	ast_stmt *stmt;
	ast_block *block;
	ast_words words;
	ast_value value;
	ast_atom atom;
	ast_action action;
	int cmp;
}

%token <str> NAME "name" STRING "string" ADDR "address"
%token <num> INT "number"
%token KW_INCLUDE "include" KW_RULE "rule" KW_POLICY "policy" KW_SUMMARY "summary"
%token KW_DEFAULT "default" KW_MODE "mode" KW_ARCH "arch" KW_USE "use"
%token KW_ALLOW "allow" KW_AUDIT "audit" KW_DENY "deny" KW_ERRNO "errno" KW_KILL "kill"
%token KW_SYSCALL "syscall" KW_FILE "file" KW_EXEC "exec" KW_CAPABILITY "capability"
%token KW_MOUNT "mount" KW_UMOUNT "umount" KW_PIVOT_ROOT "pivot_root"
%token KW_NETWORK "network" KW_PTRACE "ptrace" KW_SIGNAL "signal"
%token KW_IF "if" KW_FSTYPE "fstype" KW_ON "on" KW_TO "to" KW_PORT "port" KW_ALL "all"
%token ANDAND "&&" EQ "==" NE "!=" LE "<=" GE ">=" LT "<" GT ">"

%type <block> body
%type <stmt> item setting statement subject
%type <words> names names_opt words strings addrs
%type <str> anyname
%type <value> value
%type <atom> atom
%type <action> action
%type <cmp> cmp

%destructor { free($$); } <str>
%destructor { ast_stmt_free($$); } <stmt>
%destructor { ast_block_free($$); } <block>
%destructor { ast_words_free(&$$); } <words>
%destructor { ast_value_free(&$$); } <value>
%destructor { free($$.name); } <atom>
%destructor { free($$.err.name); } <action>

%%

file
	: %empty
	| file top
	;

top
	: KW_INCLUDE STRING ';'
		{ ast_block *b = ast_block_new(BLOCK_INCLUDE, LOC(@1)); b->name = word($2, LOC(@2)); add_block(lx, b); }
	| KW_RULE NAME '{' body '}'
		{ $4->kind = BLOCK_RULE; $4->loc = LOC(@1); $4->name = word($2, LOC(@2)); add_block(lx, $4); }
	| KW_POLICY NAME '{' body '}'
		{ $4->kind = BLOCK_POLICY; $4->loc = LOC(@1); $4->name = word($2, LOC(@2)); add_block(lx, $4); }
	/* a statement missing its ';' before the closing brace */
	| KW_RULE NAME '{' body error '}'
		{ $4->kind = BLOCK_RULE; $4->loc = LOC(@1); $4->name = word($2, LOC(@2)); add_block(lx, $4);
		  lex_reset_partial(lx); yyerrok; }
	| KW_POLICY NAME '{' body error '}'
		{ $4->kind = BLOCK_POLICY; $4->loc = LOC(@1); $4->name = word($2, LOC(@2)); add_block(lx, $4);
		  lex_reset_partial(lx); yyerrok; }
	| error '}'     { lex_reset_partial(lx); yyerrok; }
	;

body
	: %empty        { $$ = ast_block_new(BLOCK_RULE, LOC(@$)); }
	| body item     { $$ = $1; add_stmt($$, $2); }
	;

item
	: KW_SUMMARY STRING ';'
		{ $$ = ast_stmt_new(lx->out->arena, ST_SUMMARY, LOC(@1)); $$->word = word($2, LOC(@2)); }
	| setting
	| KW_USE names ';'
		{ $$ = ast_stmt_new(lx->out->arena, ST_USE, LOC(@1)); $$->names = $2; }
	| statement
	| error ';'     { $$ = NULL; lex_reset_partial(lx); yyerrok; }
	;

setting
	: KW_DEFAULT action names_opt ';'
		{ $$ = ast_stmt_new(lx->out->arena, ST_DEFAULT, LOC(@1)); $$->action = $2; $$->names = $3; }
	| KW_MODE anyname ';'
		{ $$ = ast_stmt_new(lx->out->arena, ST_MODE, LOC(@1)); $$->word = word($2, LOC(@2)); }
	| KW_ARCH names ';'
		{ $$ = ast_stmt_new(lx->out->arena, ST_ARCH, LOC(@1)); $$->names = $2; }
	;

action
	: KW_ALLOW      { memset(&$$, 0, sizeof $$); $$.verdict = AST_ALLOW; $$.loc = LOC(@1); }
	| KW_AUDIT      { memset(&$$, 0, sizeof $$); $$.verdict = AST_AUDIT; $$.loc = LOC(@1); }
	| KW_DENY       { memset(&$$, 0, sizeof $$); $$.verdict = AST_DENY; $$.loc = LOC(@1); }
	| KW_DENY KW_ERRNO atom
		{ memset(&$$, 0, sizeof $$); $$.verdict = AST_DENY; $$.loc = LOC(@1); $$.has_errno = true; $$.err = $3; }
	| KW_KILL       { memset(&$$, 0, sizeof $$); $$.verdict = AST_KILL; $$.loc = LOC(@1); }
	;

statement
	: action subject ';'   { $$ = $2; $$->action = $1; $$->loc = LOC(@1); }
	;

subject
	: KW_SYSCALL names
		{ $$ = ast_stmt_new(lx->out->arena, ST_STATEMENT, LOC(@1)); $$->subject = SUBJ_SYSCALL; $$->names = $2; }
	| KW_SYSCALL names KW_IF cond
		{ $$ = lx->cond; lx->cond = NULL; $$->loc = LOC(@1); $$->subject = SUBJ_SYSCALL; $$->names = $2; }
	| KW_FILE strings names
		{ $$ = ast_stmt_new(lx->out->arena, ST_STATEMENT, LOC(@1)); $$->subject = SUBJ_FILE; $$->strings = $2; $$->perms = $3; }
	| KW_EXEC strings
		{ $$ = ast_stmt_new(lx->out->arena, ST_STATEMENT, LOC(@1)); $$->subject = SUBJ_EXEC; $$->strings = $2; }
	| KW_CAPABILITY KW_ALL
		{ $$ = ast_stmt_new(lx->out->arena, ST_STATEMENT, LOC(@1)); $$->subject = SUBJ_CAPABILITY; $$->cap_all = true; }
	| KW_CAPABILITY names
		{ $$ = ast_stmt_new(lx->out->arena, ST_STATEMENT, LOC(@1)); $$->subject = SUBJ_CAPABILITY; $$->names = $2; }
	| KW_MOUNT mount_opts
		{ $$ = lx->mount; lx->mount = NULL; $$->loc = LOC(@1); $$->subject = SUBJ_MOUNT; }
	| KW_UMOUNT
		{ $$ = ast_stmt_new(lx->out->arena, ST_STATEMENT, LOC(@1)); $$->subject = SUBJ_UMOUNT; }
	| KW_UMOUNT KW_ON strings
		{ $$ = ast_stmt_new(lx->out->arena, ST_STATEMENT, LOC(@1)); $$->subject = SUBJ_UMOUNT; $$->has_on = true; $$->strings = $3; }
	| KW_PIVOT_ROOT
		{ $$ = ast_stmt_new(lx->out->arena, ST_STATEMENT, LOC(@1)); $$->subject = SUBJ_PIVOT_ROOT; }
	| KW_NETWORK words net_tail
		{ $$ = lx->net ? lx->net : ast_stmt_new(lx->out->arena, ST_STATEMENT, LOC(@1)); lx->net = NULL;
		  $$->loc = LOC(@1); $$->subject = SUBJ_NETWORK; $$->names = $2; }
	| KW_PTRACE words
		{ $$ = ast_stmt_new(lx->out->arena, ST_STATEMENT, LOC(@1)); $$->subject = SUBJ_PTRACE; $$->names = $2; }
	| KW_SIGNAL
		{ $$ = ast_stmt_new(lx->out->arena, ST_STATEMENT, LOC(@1)); $$->subject = SUBJ_SIGNAL; }
	| KW_SIGNAL KW_TO strings
		{ $$ = ast_stmt_new(lx->out->arena, ST_STATEMENT, LOC(@1)); $$->subject = SUBJ_SIGNAL; $$->strings = $3; }
	;

/* Conditions, mount options and network tails accumulate into a statement
 * held in lx, so that the rules stay free of mid-rule actions. */
cond
	: term
	| cond ANDAND term
	;

term
	: NAME cmp value
		{ ast_term t = { word($1, LOC(@1)), (ast_cmp)$2, {0}, $3, LOC(@1) }; lex_push_term(lx, t, LOC(@1)); }
	| NAME '&' value EQ value
		{ ast_term t = { word($1, LOC(@1)), AST_MASKED_EQ, $3, $5, LOC(@1) }; lex_push_term(lx, t, LOC(@1)); }
	;

cmp
	: EQ { $$ = AST_EQ; } | NE { $$ = AST_NE; } | LT { $$ = AST_LT; }
	| LE { $$ = AST_LE; } | GT { $$ = AST_GT; } | GE { $$ = AST_GE; }
	;

value
	: atom                  { memset(&$$, 0, sizeof $$); ast_value_push(&$$, $1); }
	| value '|' atom        { $$ = $1; ast_value_push(&$$, $3); }
	;

atom
	: INT                   { $$ = atom_num($1, LOC(@1)); }
	| NAME                  { $$ = atom_name($1, LOC(@1)); }
	;

mount_opts
	: %empty                { lex_mount(lx, LOC(@$)); }
	| KW_FSTYPE names       { lex_mount(lx, LOC(@1))->fstypes = $2; lx->mount->has_fstype = true; }
	| KW_ON strings         { lex_mount(lx, LOC(@1))->strings = $2; lx->mount->has_on = true; }
	| KW_FSTYPE names KW_ON strings
		{ ast_stmt *m = lex_mount(lx, LOC(@1)); m->fstypes = $2; m->has_fstype = true; m->strings = $4; m->has_on = true; }
	;

net_tail
	: %empty
	| KW_TO addrs           { lex_net(lx, LOC(@1))->addrs = $2; }
	| KW_PORT ports
	| KW_TO addrs KW_PORT ports { lex_net(lx, LOC(@1))->addrs = $2; }
	;

addrs
	: ADDR                  { memset(&$$, 0, sizeof $$); ast_words_push(&$$, word($1, LOC(@1))); }
	| addrs ',' ADDR        { $$ = $1; ast_words_push(&$$, word($3, LOC(@3))); }
	;

ports
	: port
	| ports ',' port
	;

port
	: INT                   { lex_push_port(lx, $1, $1, LOC(@1)); }
	| INT '-' INT           { lex_push_port(lx, $1, $3, LOC(@1)); }
	;

strings
	: STRING                { memset(&$$, 0, sizeof $$); ast_words_push(&$$, word($1, LOC(@1))); }
	| strings ',' STRING    { $$ = $1; ast_words_push(&$$, word($3, LOC(@3))); }
	;

names_opt
	: %empty                { memset(&$$, 0, sizeof $$); }
	| names
	;

names
	: anyname               { memset(&$$, 0, sizeof $$); ast_words_push(&$$, word($1, LOC(@1))); }
	| names ',' anyname     { $$ = $1; ast_words_push(&$$, word($3, LOC(@3))); }
	;

words
	: %empty                { memset(&$$, 0, sizeof $$); }
	| words anyname         { $$ = $1; ast_words_push(&$$, word($2, LOC(@2))); }
	;

/* Keywords that are also syscall, capability, domain or mode names. */
anyname
	: NAME
	| KW_KILL { $$ = xstrdup("kill"); } | KW_MOUNT { $$ = xstrdup("mount"); }
	| KW_UMOUNT { $$ = xstrdup("umount"); } | KW_PIVOT_ROOT { $$ = xstrdup("pivot_root"); }
	| KW_PTRACE { $$ = xstrdup("ptrace"); } | KW_SIGNAL { $$ = xstrdup("signal"); }
	| KW_EXEC { $$ = xstrdup("exec"); } | KW_FILE { $$ = xstrdup("file"); }
	| KW_SYSCALL { $$ = xstrdup("syscall"); } | KW_CAPABILITY { $$ = xstrdup("capability"); }
	| KW_NETWORK { $$ = xstrdup("network"); } | KW_AUDIT { $$ = xstrdup("audit"); }
	;

%%

/* "unexpected X, expected A, B or C", with the token's text and a
 * "did you mean" when a name is close to an expected keyword. A missing
 * ';' at the end of a line is reported after the token it should follow.
 * Syntax errors right after a lexical error in the same statement are its
 * consequences and are not reported. */
static bool expects(const yysymbol_kind_t *exp, int n, yysymbol_kind_t k)
{
	for (int i = 0; i < n; i++)
		if (exp[i] == k)
			return true;
	return false;
}

/* Punctuation by its name ("';'"): bison numbers it by position. */
static bool expects_char(const yysymbol_kind_t *exp, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(yysymbol_name(exp[i]), name))
			return true;
	return false;
}

static bool is_keyword(yysymbol_kind_t k)
{
	return k >= YYSYMBOL_KW_INCLUDE && k <= YYSYMBOL_KW_ALL;
}

/* The expected tokens, named: all of them when few, else by what they
 * start (a statement, a subject), else the token classes and punctuation. */
static void put_expected(buf *b, const yysymbol_kind_t *exp, int n)
{
	enum { MAXLIST = 6 };
	if (n > MAXLIST && expects(exp, n, YYSYMBOL_KW_ALLOW) && expects(exp, n, YYSYMBOL_KW_USE)) {
		buf_printf(b, ", expected a statement (allow, audit, deny, kill), a setting, 'use'%s",
			   expects(exp, n, YYSYMBOL_KW_SUMMARY) ? ", 'summary'" : "");
		if (expects_char(exp, n, "'}'"))
			buf_puts(b, " or '}'");
		return;
	}
	/* keywords double as names (anyname): a subject is expected where
	 * those keywords are but a plain name is not */
	if (n > MAXLIST && expects(exp, n, YYSYMBOL_KW_SYSCALL) && expects(exp, n, YYSYMBOL_KW_PIVOT_ROOT) &&
	    !expects(exp, n, YYSYMBOL_NAME)) {
		buf_puts(b, ", expected what the statement is about: syscall, file, exec, capability, "
			 "mount, umount, pivot_root, network, ptrace or signal");
		return;
	}
	/* after a file statement's strings: more strings or the permissions */
	if (expects(exp, n, YYSYMBOL_NAME) && expects_char(exp, n, "','") && !expects_char(exp, n, "';'")) {
		buf_puts(b, ", expected ',' or a file permission (read, write, append, exec, mmap, link or lock)");
		return;
	}
	const char *show[YYNTOKENS];
	int m = 0;
	for (int i = 0; i < n; i++) {
		if (n > MAXLIST && is_keyword(exp[i]))
			continue;
		const char *name = yysymbol_name(exp[i]);
		/* keywords and punctuation print quoted, token classes bare */
		bool literal = exp[i] >= YYSYMBOL_KW_INCLUDE && name[0] != '\'';
		show[m++] = literal ? xasprintf("'%s'", name) : xstrdup(name);
	}
	for (int i = 0; i < m; i++) {
		buf_printf(b, "%s%s", i == 0 ? ", expected " : i == m - 1 ? " or " : ", ", show[i]);
		free((char *)show[i]);
	}
}

static int yyreport_syntax_error(const yypcontext_t *ctx, void *scanner, struct lex_ctx *lx)
{
	(void)scanner;
	if (lx->quiet)
		return 0;
	yysymbol_kind_t exp[YYNTOKENS];
	int n = yypcontext_expected_tokens(ctx, exp, YYNTOKENS);
	if (n < 0)
		n = 0;
	yysymbol_kind_t tok = yypcontext_token(ctx);
	const YYLTYPE *at = yypcontext_location(ctx);
	if (expects_char(exp, n, "';'") && lx->prev_text &&
	    (tok == YYSYMBOL_YYEOF || at->first_line > lx->prev_end_line)) {
		diag_error(lx->d, lex_loc_at(lx, lx->prev_end_line, lx->prev_end_col),
			   "missing ';' after '%s'", lx->prev_text);
		return 0;
	}
	if (tok == YYSYMBOL_YYEOF && expects_char(exp, n, "'}'")) {
		diag_error(lx->d, lex_loc(lx, at), "unexpected end of file: missing '}' to close a rule or policy");
		return 0;
	}
	buf b;
	buf_init(&b);
	if (tok == YYSYMBOL_YYEOF)
		buf_puts(&b, "unexpected end of file");
	else if (tok == YYSYMBOL_NAME || tok == YYSYMBOL_INT || tok == YYSYMBOL_ADDR)
		buf_printf(&b, "unexpected %s '%s'", yysymbol_name(tok), lx->last_text ? lx->last_text : "");
	else if (tok == YYSYMBOL_STRING)
		buf_printf(&b, "unexpected string %s", lx->last_text ? lx->last_text : "");
	else if (yysymbol_name(tok)[0] == '\'')
		buf_printf(&b, "unexpected %s", yysymbol_name(tok));
	else
		buf_printf(&b, "unexpected '%s'", yysymbol_name(tok));
	put_expected(&b, exp, n);
	const char *kw[YYNTOKENS];
	size_t nkw = 0;
	for (int i = 0; i < n; i++)
		if (is_keyword(exp[i]))
			kw[nkw++] = yysymbol_name(exp[i]);
	if (tok == YYSYMBOL_NAME && nkw && lx->last_text) {
		const char *best = diag_closest(lx->last_text, kw, nkw);
		if (best)
			buf_printf(&b, "; did you mean '%s'?", best);
	}
	diag_error(lx->d, lex_loc(lx, at), "%s", buf_cstr(&b));
	buf_free(&b);
	return 0;
}

void lex_reset_partial(struct lex_ctx *lx)
{
	ast_stmt_free(lx->cond);
	ast_stmt_free(lx->mount);
	ast_stmt_free(lx->net);
	lx->cond = lx->mount = lx->net = NULL;
}

src_loc lex_loc_at(const struct lex_ctx *lx, int line, int col)
{
	src_loc l = { lx->src, line, col };
	return l;
}

ast_file *parse_source(diag_ctx *d, const src_file *src)
{
	struct lex_ctx lx;
	memset(&lx, 0, sizeof lx);
	lx.d = d;
	lx.src = src;
	lx.out = xcalloc(1, sizeof *lx.out);
	lx.out->src = src;
	lx.out->arena = arena_new();
	if (lex_init(&lx, src->text, src->len) == 0) {
		polc_yyparse(lx.scanner, &lx);
		lex_destroy(&lx);
	}
	lex_reset_partial(&lx);
	return lx.out;
}
