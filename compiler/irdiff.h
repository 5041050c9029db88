/* irdiff.h - compare two policies by meaning (polc diff, the drift gate).
 *
 * Takes: two ir_policy (old, new), read only.
 * Gives: the events they decide differently, as items: domain, a concrete
 *        event ("syscall clone arg0=0x10000000 (x86_64)", "file \"/a/x\"
 *        write"), both decisions and the statement that made each (its
 *        file:line:col; no file: the default). Each item is "widened" (new
 *        permits what old did not: allow/audit vs deny/kill), "narrowed" (the
 *        reverse) or "changed" (errno, allow<->audit, deny<->kill).
 *        A changed default or mode is one item, and the events both defaults
 *        decide are then not listed again; so is a named arch.
 * Promises: statement order and grouping do not matter, only ir_decide().
 *        The events compared are events_between()'s (compiler/events.h):
 *        exact for syscall argument comparisons, example paths for globs,
 *        edges for addresses and ports. No item: equal in effect on all of
 *        these.
 */
#ifndef POLC_IRDIFF_H
#define POLC_IRDIFF_H

#include <stdio.h>
#include "ir.h"
#include "../base/util.h"

typedef enum { IRD_WIDENED, IRD_NARROWED, IRD_CHANGED } irdiff_kind;

typedef struct {
	ir_verdict verdict;
	int err;               /* IR_DENY only */
	src_loc at;            /* deciding statement; file NULL: default/mode/arch */
	bool is_default;
} irdiff_side;

typedef struct {
	irdiff_kind kind;
	ir_domain domain;
	char *subject;         /* the event, as text */
	irdiff_side old, new_;
} irdiff_item;

typedef struct {
	irdiff_item *v;
	size_t n, cap;
} irdiff;

/* Fill out (initially zeroed) with every difference; returns out->n. */
size_t ir_diff(const ir_policy *old, const ir_policy *new_, irdiff *out);
/* Any item of this kind? (The drift gate fails on IRD_WIDENED.) */
bool irdiff_has(const irdiff *d, irdiff_kind k);
/* One line per item; json: a JSON object {"equal":..,"differences":[..]}. */
void irdiff_print(const irdiff *d, bool json, buf *out);
const char *irdiff_kind_name(irdiff_kind k);
void irdiff_free(irdiff *d);

#endif
