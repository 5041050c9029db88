/* parse_ctx.h - state shared by the lexer and the parser of one file. */
#ifndef POLC_PARSE_CTX_H
#define POLC_PARSE_CTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "grammar/ast.h"

struct lex_ctx {
	diag_ctx *d;
	const src_file *src;
	int line, col;
	src_loc comment_start;
	char *last_text;           /* text of the last token, for messages */
	char *prev_text;           /* the token before it ... */
	int prev_end_line, prev_end_col;   /* ... and where it ends */
	int end_line, end_col;     /* where the last token ends */
	bool quiet;                /* a lexical error in this statement: its
	                              syntax errors are consequences, not said */
	bool quiet_ending;         /* ';' or '}' seen: speak again after it */
	void *scanner;             /* yyscan_t */
	void *buffer;              /* YY_BUFFER_STATE */
	ast_file *out;
	ast_stmt *cond, *mount, *net;   /* statement being built by sub-rules */
};

struct YYLTYPE;
src_loc lex_loc_at(const struct lex_ctx *lx, int line, int col);
#define lex_loc(lx, l) lex_loc_at((lx), (l)->first_line, (l)->first_column)
int lex_init(struct lex_ctx *lx, const char *text, size_t len);
void lex_destroy(struct lex_ctx *lx);
bool utf8_valid(const char *s);
void lex_push_term(struct lex_ctx *lx, ast_term t, src_loc loc);
void lex_push_port(struct lex_ctx *lx, uint64_t lo, uint64_t hi, src_loc loc);
ast_stmt *lex_mount(struct lex_ctx *lx, src_loc loc);
ast_stmt *lex_net(struct lex_ctx *lx, src_loc loc);
void lex_reset_partial(struct lex_ctx *lx);

#endif
