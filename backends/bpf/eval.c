/* eval.c - bpfb_eval(): one event decided from the blob words, walking the
 * same tables in the same way as enforcer.bpf.c (see bundle.h). Where the
 * enforcer reads a word (the polc_fast window or a polc_blob chunk, how many
 * path bytes a bpf_loop step walks) changes no decision: the words and the walk's
 * order are the same. */
#include "bundle.h"
#include "dfa.h"

#include <string.h>

_Static_assert(sizeof(struct polc_hdr) <= POLC_CLS_FILE_OFF * 4, "header overlaps class tables");

typedef struct {
	const uint32_t *w;
	const struct polc_dfa *d;
	const uint8_t *cls;
	uint32_t row;   /* the state's row (bpf_layout.h: polc_row) */
	uint32_t dead_bit;   /* the walk stops on it (polc_dead_bit) */
	bool dead;
} walker;

static walker walker_at_start(const uint32_t *w, const struct polc_dfa *d, uint32_t cls_off,
			      uint32_t dead_bit)
{
	return (walker){ w, d, (const uint8_t *)(w + cls_off), polc_row(d, d->start), dead_bit,
			 false };
}

/* As walk_step: into a state dead for the channels asked, the walk ends
 * and entry 0 decides them. */
static void walk(walker *k, const char *s, size_t n)
{
	for (size_t i = 0; i < n && !k->dead; i++) {
		uint32_t t = k->w[k->row + k->cls[(uint8_t)s[i]]];
		k->row = t & POLC_TRANS_ROW;
		k->dead = (t & k->dead_bit) != 0;
	}
}

/* The entry that decides: 0 when dead, the state's own entry otherwise. */
static uint32_t entry_of(const walker *k)
{
	return k->dead ? 0 : POLC_ACC_ENTRY(k->w[k->d->accept + polc_row_state(k->d, k->row)]);
}

static uint32_t worst_of_start(const walker *k)
{
	return k->d->worst;
}

static uint32_t chan_dec(const walker *k, uint32_t entry, uint32_t ch)
{
	return k->w[k->d->entries + entry * k->d->nchan + ch];
}

/* A directory is decided in both forms, "path" and "path/": the
 * statements matching either decide, the default only when neither does
 * (enforcer.bpf.c: dir_combine). */
static uint32_t dir_combine(uint32_t a, uint32_t b)
{
	if (POLC_DEC_STMT(a) == POLC_STMT_DEFAULT)
		return b;
	if (POLC_DEC_STMT(b) == POLC_STMT_DEFAULT)
		return a;
	return polc_dec_wins(b, a) ? b : a;
}

static uint32_t eval_path(const uint32_t *w, const char *path, uint32_t ch, bool dir)
{
	const struct polc_hdr *h = (const void *)w;
	walker k = walker_at_start(w, &h->file, POLC_CLS_FILE_OFF, polc_dead_bit(1u << ch));
	size_t n = strlen(path);
	if (n && path[n - 1] == '/')
		dir = false;                 /* already the directory form */
	if (n >= POLC_PATH_MAX || (dir && n + 1 >= POLC_PATH_MAX))
		return chan_dec(&k, worst_of_start(&k), ch);
	walk(&k, path, n);
	uint32_t d = chan_dec(&k, entry_of(&k), ch);
	if (dir) {
		walk(&k, "/", 1);
		d = dir_combine(d, chan_dec(&k, entry_of(&k), ch));
	}
	return d;
}

static uint32_t eval_mount(const uint32_t *w, const ir_event *ev)
{
	const struct polc_hdr *h = (const void *)w;
	walker k = walker_at_start(w, &h->mount, POLC_CLS_MOUNT_OFF, POLC_TRANS_DEAD);
	const char *fs = ev->u.mount.op == IR_MOUNT_MOUNT && ev->u.mount.fstype ? ev->u.mount.fstype : "";
	const char *t = ev->u.mount.target ? ev->u.mount.target : "";
	if (strlen(fs) >= POLC_FSTYPE_MAX || strlen(t) >= POLC_PATH_MAX)
		return chan_dec(&k, worst_of_start(&k), 0);
	char op = ev->u.mount.op == IR_MOUNT_MOUNT ? POLC_MOUNT_OP_MOUNT :
		  ev->u.mount.op == IR_MOUNT_UMOUNT ? POLC_MOUNT_OP_UMOUNT : POLC_MOUNT_OP_PIVOT;
	char sep = POLC_MOUNT_SEP;
	walk(&k, &op, 1);
	walk(&k, fs, strlen(fs));
	walk(&k, &sep, 1);
	walk(&k, t, strlen(t));
	return chan_dec(&k, entry_of(&k), 0);
}

static uint32_t net_rules(const uint32_t *w, const struct polc_net_ev *ev);

/* One network event: the IPv4-mapped form of an address is the IPv4
 * address (polc_net_normalise, as the enforcer). */
static uint32_t eval_net(const uint32_t *w, const ir_event *ev)
{
	struct polc_net_ev e;
	memset(&e, 0, sizeof e);
	e.op = (uint32_t)ev->u.net.op;
	e.family = (uint32_t)ev->u.net.family;
	e.type = (uint32_t)ev->u.net.type;
	e.protocol = (uint32_t)ev->u.net.protocol;
	e.has_addr = ev->u.net.has_addr;
	memcpy(e.addr, ev->u.net.addr, 16);
	e.port = ev->u.net.port;
	polc_net_normalise(&e);
	uint32_t d = net_rules(w, &e);
	/* a send with an address is also a connect to it, which decides when it
	 * is more restrictive than a send that is not denied (ir_decide;
	 * enforcer.bpf.c: socket_sendmsg) */
	if (e.op == POLC_NET_SEND && e.has_addr && POLC_DEC_VERDICT(d) < POLC_V_DENY) {
		e.op = POLC_NET_CONNECT;
		uint32_t c = net_rules(w, &e);
		if (POLC_DEC_VERDICT(c) > POLC_DEC_VERDICT(d))
			d = c;
	}
	return d;
}

static uint32_t net_rules(const uint32_t *w, const struct polc_net_ev *ev)
{
	const struct polc_hdr *h = (const void *)w;
	uint32_t best = h->defaults[POLC_D_NET];
	bool hit = false;
	for (uint32_t i = 0; i < h->nnet; i++) {
		const uint32_t *r = w + h->net + i * POLC_NET_WORDS;
		if (polc_net_match(r, ev) && (!hit || polc_dec_wins(r[7], best))) {
			best = r[7];
			hit = true;
		}
	}
	return best;
}

static uint32_t eval_raw(const uint32_t *w, const ir_event *ev)
{
	const struct polc_hdr *h = (const void *)w;
	switch (ev->domain) {
	case IR_FILE: {
		unsigned perm = ev->u.file.perm;
		uint32_t ch = 0;
		while (ch < 7 && !(perm >> ch & 1))
			ch++;
		if (ch == 7)
			return h->defaults[POLC_D_FILE];
		return eval_path(w, ev->u.file.path, ch, ev->u.file.dir);
	}
	case IR_EXEC:
		return eval_path(w, ev->u.exec.path, POLC_CH_EXEC, false);
	case IR_CAPABILITY:
		if (ev->u.cap.cap < 0 || ev->u.cap.cap >= 64)
			return h->defaults[POLC_D_CAP];
		return h->caps[ev->u.cap.cap];
	case IR_MOUNT:
		return eval_mount(w, ev);
	case IR_NETWORK:
		return eval_net(w, ev);
	case IR_PTRACE:
		return h->ptrace[ev->u.ptrace.mode == IR_PTRACE_TRACE];
	case IR_SIGNAL:
		return h->signal;
	default:
		return h->defaults[(int)ev->domain < (int)POLC_ND ? (int)ev->domain : 0];
	}
}

uint32_t bpfb_eval(const uint32_t *w, size_t nwords, const ir_event *ev)
{
	const struct polc_hdr *h = (const void *)w;
	(void)nwords;   /* validated by bpfb_parse/bpfb_validate */
	return polc_apply_mode(h->mode, eval_raw(w, ev));
}
