/* parse_ctx.c - helpers the lexer and parser share; see parse_ctx.h. */
#include "grammar/parse_ctx.h"
#include "base/util.h"

bool utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		int n = *p < 0x80 ? 0 : (*p & 0xe0) == 0xc0 ? 1 : (*p & 0xf0) == 0xe0 ? 2 :
			(*p & 0xf8) == 0xf0 ? 3 : -1;
		if (n < 0 || (n == 1 && *p < 0xc2))
			return false;
		p++;
		for (int i = 0; i < n; i++, p++)
			if ((*p & 0xc0) != 0x80)
				return false;
	}
	return true;
}

void lex_push_term(struct lex_ctx *lx, ast_term t, src_loc loc)
{
	if (!lx->cond)
		lx->cond = ast_stmt_new(lx->out->arena, ST_STATEMENT, loc);
	ast_stmt *s = lx->cond;
	xgrow_from(&s->conds, &s->capcond, s->ncond + 1, sizeof *s->conds, 1);
	s->conds[s->ncond++] = t;
}

ast_stmt *lex_net(struct lex_ctx *lx, src_loc loc)
{
	if (!lx->net)
		lx->net = ast_stmt_new(lx->out->arena, ST_STATEMENT, loc);
	return lx->net;
}

void lex_push_port(struct lex_ctx *lx, uint64_t lo, uint64_t hi, src_loc loc)
{
	ast_stmt *s = lex_net(lx, loc);
	xgrow_from(&s->ports, &s->capport, s->nport + 1, sizeof *s->ports, 1);
	ast_port p = { lo, hi, loc };
	s->ports[s->nport++] = p;
}

ast_stmt *lex_mount(struct lex_ctx *lx, src_loc loc)
{
	if (!lx->mount)
		lx->mount = ast_stmt_new(lx->out->arena, ST_STATEMENT, loc);
	return lx->mount;
}
