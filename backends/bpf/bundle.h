/* bundle.h - a policy lowered to the BPF enforcer's map contents, the
 * bundle file that carries them, and the userspace evaluator.
 *
 * Takes: an ir_policy (bpfb_lower) or bundle file bytes (bpfb_parse).
 * Gives: the blob (u32 words, bpf_layout.h) the loader writes into the
 *        polc_blob map, plus text metadata (header lines, one line per
 *        statement); the bundle file bytes (docs/bpf-bundle.md); a
 *        deterministic JSON rendering; bpfb_eval(), which decides one
 *        ir_event by interpreting the blob words exactly as the program
 *        does.
 * Promises: bpfb_parse() accepts only a bundle whose magic, version,
 *        checksum and every offset and index are valid, so the evaluator
 *        and loader never read out of bounds. For every event the program
 *        can see, bpfb_eval() equals ir_decide() (tested), except paths of
 *        POLC_PATH_MAX bytes or more, which are decided fail closed.
 *        Statement ids: domains in ir_domain order, source order inside.
 */
#ifndef POLC_BPF_BUNDLE_H
#define POLC_BPF_BUNDLE_H

#include <stddef.h>
#include <stdint.h>
#include "../../compiler/ir.h"
#include "../../base/util.h"
#include "bpf_layout.h"

#define BPFB_FILE_MAGIC "POLCBPF\n"
#define BPFB_FILE_VERSION 1u
#define BPFB_FILE_HDR 88u   /* magic 8, version, words, meta_len, reserved, sha256 hex 64 */

typedef struct {
	uint32_t *w;           /* blob words */
	size_t nwords;
	char *meta;            /* NUL-terminated text */
	size_t metalen;
} bpf_bundle;

typedef struct {
	uint32_t file_states, file_cls, file_entries;
	uint32_t mount_states, mount_cls, mount_entries;
	uint32_t nnet, nstmts;
	size_t blob_bytes;     /* what the maps hold (whole 4 KiB chunks) */
} bpfb_stats;

/* Lower p. header: text lines to store in the metadata (may be NULL).
 * Returns 0, or -1 with an error at the offending statement. */
int bpfb_lower(const ir_policy *p, const char *header, bpf_bundle *out,
	       bpfb_stats *st, diag_ctx *d);
void bpfb_free(bpf_bundle *b);

void bpfb_serialize(const bpf_bundle *b, buf *out);
/* bpfb_lower then bpfb_serialize, appended to out (the same bytes), with
 * the blob built in the file's own memory: no second copy of it. Returns
 * 0, or -1 with out unchanged. */
int bpfb_emit_file(const ir_policy *p, const char *header, buf *out, diag_ctx *d);
/* NULL on success, else a static message. out owns copies. */
const char *bpfb_parse(const void *data, size_t len, bpf_bundle *out);
/* Check a blob's header and every offset/index (used by bpfb_parse). */
const char *bpfb_validate(const uint32_t *w, size_t nwords);

/* What a blob can decide other than allow, per class of enforcer hook: a
 * BPFB_NEEDS_* mask. A class outside it allows every event it sees under
 * this blob (audit mode included: an audit is not an allow), so the loader
 * need not attach its programs for this policy. One exception: the mmap
 * channel is left out when every mapping it refuses is of a file whose
 * read and exec open a deny statement refuses (a descriptor to map cannot
 * be had but passed in). Only reads what bpfb_validate() checked. */
enum {
	BPFB_NEEDS_CHANS = (1u << POLC_NCHAN) - 1,   /* bit c: file DFA channel c */
	BPFB_NEEDS_MOUNT = 1u << POLC_NCHAN,
	BPFB_NEEDS_CAP = 1u << (POLC_NCHAN + 1),
	BPFB_NEEDS_PTRACE = 1u << (POLC_NCHAN + 2),
	BPFB_NEEDS_SIGNAL = 1u << (POLC_NCHAN + 3),
	BPFB_NEEDS_BPRM = POLC_NEEDS_BPRM,   /* with POLC_CH_EXEC: bpf_layout.h */
	BPFB_NEEDS_SPLICE = POLC_NEEDS_SPLICE,   /* with BPFB_NEEDS_NET_SEND: bpf_layout.h */
	/* one bit a network operation, the hooks that decide it apart: a
	 * policy that decides only socket creation (the presets' AF_ALG)
	 * leaves socket_sendmsg, which every send on the machine would run,
	 * detached. An operation on a kind of socket the policy refuses to
	 * create is left out, as for BPFB_NEEDS_SPLICE. */
	BPFB_NEEDS_NET_CREATE = 1u << (POLC_NCHAN + 4),
	BPFB_NEEDS_NET_CONNECT = 1u << (POLC_NCHAN + 7),
	BPFB_NEEDS_NET_BIND = 1u << (POLC_NCHAN + 8),
	BPFB_NEEDS_NET_LISTEN = 1u << (POLC_NCHAN + 9),
	BPFB_NEEDS_NET_ACCEPT = 1u << (POLC_NCHAN + 10),
	BPFB_NEEDS_NET_SEND = 1u << (POLC_NCHAN + 11),
	BPFB_NEEDS_NET = BPFB_NEEDS_NET_CREATE | BPFB_NEEDS_NET_CONNECT | BPFB_NEEDS_NET_BIND |
			 BPFB_NEEDS_NET_LISTEN | BPFB_NEEDS_NET_ACCEPT | BPFB_NEEDS_NET_SEND,
};
_Static_assert(POLC_NCHAN + 11 < 32, "bpfb_needs: every class a bit of a polc_cg's needs");
uint32_t bpfb_needs(const uint32_t *w, size_t nwords);

void bpfb_json(const bpf_bundle *b, buf *out);
void bpfb_get_stats(const bpf_bundle *b, bpfb_stats *st);

/* Decide one event: a decision word (bpf_layout.h). */
uint32_t bpfb_eval(const uint32_t *w, size_t nwords, const ir_event *ev);

/* The statement with id `id` in p's numbering; NULL for the default. */
const ir_stmt *bpfb_stmt(const ir_policy *p, uint32_t id);

/* Decision word of an action for statement id: the statement's own verdict
 * (ir_decide ranks those); polc_apply_mode() applies `mode audit` last. */
uint32_t bpfb_decision(const ir_policy *p, ir_action a, uint32_t id);

#endif
