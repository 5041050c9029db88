/* grammar/ - stage 1 of the pipeline: policy source text to syntax trees
 * (flex lexer.l, bison parser.y, ast, parse_ctx). Includes only base/; no
 * meaning is given here (that is compiler/'s).
 *
 * ast.h - the syntax tree of one policy source file.
 *
 * Takes: tokens from grammar/lexer.l, shaped by grammar/parser.y.
 * Gives: an ast_file: includes, rules and policies in source order; every
 *        node carries the src_loc of its first token. Names are kept as
 *        written (keywords used as names too): the compiler gives them
 *        meaning and reports unknown ones.
 * Promises: parse_source() reports every syntax error of the file (with
 *        recovery at ';' and '}') and still returns the well-formed parts.
 */
#ifndef POLC_AST_H
#define POLC_AST_H

#include <stdint.h>
#include <stdbool.h>
#include "../base/arena.h"
#include "../base/diag.h"

typedef struct { char *s; src_loc loc; } ast_word;      /* name, string, address */
typedef struct { ast_word *v; size_t n, cap; } ast_words;

/* An integer value: number or symbolic constant, several joined by '|'. */
typedef struct { bool is_name; uint64_t num; char *name; src_loc loc; } ast_atom;
typedef struct { ast_atom *v; size_t n, cap; src_loc loc; } ast_value;

typedef enum { AST_EQ, AST_NE, AST_LT, AST_LE, AST_GT, AST_GE, AST_MASKED_EQ } ast_cmp;
typedef struct {
	ast_word arg;              /* "arg0".."arg5" as written */
	ast_cmp op;
	ast_value mask;            /* AST_MASKED_EQ */
	ast_value value;
	src_loc loc;
} ast_term;

typedef enum { AST_ALLOW, AST_AUDIT, AST_DENY, AST_KILL } ast_verdict;
typedef struct {
	ast_verdict verdict;
	bool has_errno;
	ast_atom err;              /* name (EACCES) or number */
	src_loc loc;
} ast_action;

typedef enum {
	SUBJ_SYSCALL, SUBJ_FILE, SUBJ_EXEC, SUBJ_CAPABILITY, SUBJ_MOUNT,
	SUBJ_UMOUNT, SUBJ_PIVOT_ROOT, SUBJ_NETWORK, SUBJ_PTRACE, SUBJ_SIGNAL
} ast_subject;

typedef struct { uint64_t lo, hi; src_loc loc; } ast_port;

typedef enum { ST_STATEMENT, ST_USE, ST_DEFAULT, ST_MODE, ST_ARCH, ST_SUMMARY } ast_stmt_kind;

typedef struct ast_stmt {
	ast_stmt_kind kind;
	src_loc loc;
	ast_action action;         /* ST_STATEMENT, ST_DEFAULT */
	ast_subject subject;       /* ST_STATEMENT */
	ast_words names;           /* syscalls, capabilities, use/arch names,
	                              default domains, network words, ptrace mode */
	bool cap_all;
	ast_words strings;         /* file/exec globs, mount/umount on, signal to */
	ast_words perms;           /* file perms */
	ast_words fstypes;         /* mount fstype */
	bool has_fstype, has_on;
	ast_term *conds;           /* syscall if */
	size_t ncond, capcond;
	ast_words addrs;           /* network to */
	ast_port *ports;           /* network port */
	size_t nport, capport;
	ast_word word;             /* ST_MODE: enforce/audit; ST_SUMMARY: text */
} ast_stmt;

typedef enum { BLOCK_RULE, BLOCK_POLICY, BLOCK_INCLUDE } ast_block_kind;
typedef struct ast_block {
	ast_block_kind kind;
	ast_word name;             /* BLOCK_INCLUDE: the path string */
	src_loc loc;
	ast_stmt **stmts;
	size_t n, cap;
} ast_block;

typedef struct ast_file {
	const src_file *src;
	struct ir_arena *arena;    /* its statements (one page fault per 2 MiB
	                              for a large file, not per 4 KiB) */
	ast_block **blocks;
	size_t n, cap;
} ast_file;

/* Parse one source file. Errors go to d. Never NULL. */
ast_file *parse_source(diag_ctx *d, const src_file *src);
void ast_file_free(ast_file *f);

/* constructors used by the parser */
/* A statement in arena a (its file's); ast_stmt_free() frees what it
 * holds, the arena the statement itself. */
ast_stmt *ast_stmt_new(struct ir_arena *a, ast_stmt_kind kind, src_loc loc);
void ast_stmt_free(ast_stmt *s);
ast_block *ast_block_new(ast_block_kind kind, src_loc loc);
void ast_block_free(ast_block *b);
void ast_words_push(ast_words *w, ast_word x);
void ast_words_free(ast_words *w);
void ast_value_push(ast_value *v, ast_atom a);
void ast_value_free(ast_value *v);

#endif
