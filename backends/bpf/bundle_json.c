/* bundle_json.c - bpfb_json(): every table of a bundle as deterministic
 * JSON (same bundle, same bytes), for review and drift diffs. */
#include "bundle.h"
#include "dfa.h"

#include <string.h>

static const char *vname(uint32_t v)
{
	static const char *n[] = { "allow", "audit", "deny", "kill" };
	return n[v & 3];
}

static void put_dec(buf *o, uint32_t d)
{
	buf_printf(o, "\"%s", vname(POLC_DEC_VERDICT(d)));
	if (POLC_DEC_VERDICT(d) >= POLC_V_DENY)
		buf_printf(o, " errno=%u", POLC_DEC_ERR(d));
	if (POLC_DEC_STMT(d) == POLC_STMT_DEFAULT)
		buf_puts(o, " default\"");
	else
		buf_printf(o, " stmt=%u\"", POLC_DEC_STMT(d));
}


static void put_dfa(buf *o, const uint32_t *w, const char *name,
		    const struct polc_dfa *d, const uint8_t *cls)
{
	buf_printf(o, "  \"%s\": {\n    \"states\": %u, \"classes\": %u, \"channels\": %u, "
		   "\"entries\": %u, \"start\": %u, \"worst\": %u,\n    \"class_of_byte\": [", name,
		   d->nstates, d->ncls, d->nchan, d->nentries, d->start, d->worst);
	for (int b = 0; b < 256; b++)
		buf_printf(o, "%s%u", b ? "," : "", cls[b]);
	buf_puts(o, "],\n    \"entry_table\": [");
	for (uint32_t e = 0; e < d->nentries; e++) {
		buf_puts(o, e ? ",\n      [" : "\n      [");
		for (uint32_t c = 0; c < d->nchan; c++) {
			if (c)
				buf_puts(o, ", ");
			put_dec(o, w[d->entries + e * d->nchan + c]);
		}
		buf_puts(o, "]");
	}
	buf_puts(o, "],\n    \"state_table\": [");
	for (uint32_t s = 0; s < d->nstates; s++) {
		uint32_t a = w[d->accept + s];
		buf_printf(o, "%s\n      {\"entry\": %u, \"dead\": %s, \"next\": [",
			   s ? "," : "", POLC_ACC_ENTRY(a), a & POLC_ACC_DEAD ? "true" : "false");
		for (uint32_t c = 0; c < d->ncls; c++)
			buf_printf(o, "%s%u", c ? "," : "",
				   polc_row_state(d, w[polc_row(d, s) + c] & POLC_TRANS_ROW));
		buf_puts(o, "]}");
	}
	buf_puts(o, "]\n  },\n");
}

static void put_net(buf *o, const uint32_t *w, const struct polc_hdr *h)
{
	buf_puts(o, "  \"network\": [");
	for (uint32_t i = 0; i < h->nnet; i++) {
		const uint32_t *r = w + h->net + i * POLC_NET_WORDS;
		const uint8_t *a = (const uint8_t *)&r[2];
		buf_printf(o, "%s\n    {\"op\": %u, \"family\": %u, \"proto\": %u, ",
			   i ? "," : "", r[0] & 0xff, (r[0] >> 8) & 0xff, (r[0] >> 16) & 0xff);
		if ((r[0] >> 24) & POLC_NETF_ADDR) {
			buf_puts(o, "\"addr\": \"");
			for (int k = 0; k < 16; k++)
				buf_printf(o, "%02x", a[k]);
			buf_printf(o, "/%u\", ", r[1]);
		}
		if ((r[0] >> 24) & POLC_NETF_PORT)
			buf_printf(o, "\"ports\": \"%u-%u\", ", r[6] & 0xffff, r[6] >> 16);
		buf_puts(o, "\"decision\": ");
		put_dec(o, r[7]);
		buf_puts(o, "}");
	}
	buf_puts(o, "],\n");
}

void bpfb_json(const bpf_bundle *b, buf *o)
{
	const uint32_t *w = b->w;
	const struct polc_hdr *h = (const void *)w;
	static const char *dn[POLC_ND] = { "syscall", "file", "exec", "capability",
					   "mount", "network", "ptrace", "signal" };
	char hex[65];
	sha256_hex(w, b->nwords * 4, hex);
	buf_printf(o, "{\n  \"format\": \"polc-bpf-bundle\",\n  \"version\": %u,\n"
		   "  \"blob_words\": %zu,\n  \"blob_sha256\": \"%s\",\n  \"meta\": [",
		   BPFB_FILE_VERSION, b->nwords, hex);
	const char *m = b->meta;
	for (int first = 1; *m; first = 0) {
		const char *nl = strchr(m, '\n');
		size_t n = nl ? (size_t)(nl - m) : strlen(m);
		buf_puts(o, first ? "\n    " : ",\n    ");
		buf_json_strn(o, m, n);
		m += n + (nl != NULL);
	}
	buf_printf(o, "],\n  \"mode\": \"%s\",\n  \"statements\": %u,\n  \"defaults\": {",
		   h->mode ? "audit" : "enforce", h->nstmts);
	for (int d = 0; d < POLC_ND; d++) {
		buf_printf(o, "%s\"%s\": ", d ? ", " : "", dn[d]);
		put_dec(o, h->defaults[d]);
	}
	buf_puts(o, "},\n  \"capabilities\": {");
	for (int c = 0, n = 0; c < 64; c++)
		if (h->caps[c] != h->defaults[POLC_D_CAP]) {
			buf_printf(o, "%s\"%d\": ", n++ ? ", " : "", c);
			put_dec(o, h->caps[c]);
		}
	buf_puts(o, "},\n  \"ptrace\": {\"read\": ");
	put_dec(o, h->ptrace[0]);
	buf_puts(o, ", \"trace\": ");
	put_dec(o, h->ptrace[1]);
	buf_puts(o, "},\n  \"signal\": ");
	put_dec(o, h->signal);
	buf_puts(o, ",\n");
	put_net(o, w, h);
	put_dfa(o, w, "file_dfa", &h->file, (const uint8_t *)(w + POLC_CLS_FILE_OFF));
	put_dfa(o, w, "mount_dfa", &h->mount, (const uint8_t *)(w + POLC_CLS_MOUNT_OFF));
	/* drop the trailing ",\n" of the last table */
	o->len -= 2;
	buf_puts(o, "\n}\n");
}
