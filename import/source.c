/* source.c - writing polc source text; see source.h. */
#include "source.h"

#include <ctype.h>
#include <string.h>

void src_string(buf *b, const char *s)
{
	buf_puts(b, "\"");
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			buf_put(b, "\\", 1);
		buf_put(b, s, 1);
	}
	buf_puts(b, "\"");
}

bool src_valid_name(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
			return false;
	return true;
}

void src_comment(buf *b, const char *s)
{
	for (; *s; s++)
		buf_put(b, isprint((unsigned char)*s) ? s : "?", 1);
}

void src_import_header(buf *b, const char *how, const src_file *f)
{
	char hash[65];
	sha256_hex(f->text, f->len, hash);
	const char *base = strrchr(f->path, '/');
	buf_printf(b, "# Imported by polc import%s%s from ", how ? " " : "", how ? how : "");
	src_comment(b, base ? base + 1 : f->path);
	buf_printf(b, " (sha256 %s).\n", hash);
}

int src_import(src_file *f, src_importer fn, const void *opts, diag_ctx *d, buf *out)
{
	if (!f)
		return -1;
	size_t before = out->len;
	int rc = fn(f, opts, d, out);
	if (rc < 0)
		out->len = before;
	return rc;
}
