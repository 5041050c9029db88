/* irdiff.c - semantic diff of two policies (irdiff.h): the events that can
 * tell them apart (events_between, compiler/events.h), decided with
 * ir_decide() on both sides; the ones that differ are reported. */
#include "irdiff.h"
#include "consts.h"
#include "events.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
	const ir_policy *a, *b;
	irdiff *out;
	bool skip_defaults[IR_NDOMAIN];   /* a default item covers these */
	unsigned skip_arches;             /* an arch item covers these */
	int arch_kind[IR_NARCH];          /* bit 1 widened, 2 narrowed, 4 changed */
	bool arch_items_done;             /* made after the last syscall event */
} differ;

static void diff_arch_items(differ *df);

static bool permits(ir_verdict v) { return v <= IR_AUDIT; }

static irdiff_kind kind_of(ir_verdict o, int oe, ir_verdict n, int ne)
{
	(void)oe; (void)ne;
	if (!permits(o) && permits(n))
		return IRD_WIDENED;
	if (permits(o) && !permits(n))
		return IRD_NARROWED;
	return IRD_CHANGED;
}

static irdiff_side side_of(ir_decision d, const ir_policy *p)
{
	irdiff_side s = { d.verdict, d.err, d.by ? d.by->loc : p->loc, !d.by };
	return s;
}

static bool same_side(const irdiff_side *x, const irdiff_side *y)
{
	return x->verdict == y->verdict && x->err == y->err && x->is_default == y->is_default &&
	       x->at.file == y->at.file && x->at.line == y->at.line && x->at.col == y->at.col;
}

/* "syscall read (i386)" joins "syscall read (x86_64)" when both sides were
 * decided alike: one line "syscall read (x86_64, i386)". */
static bool merge_arch(irdiff *out, const char *subject, const irdiff_side *o, const irdiff_side *n)
{
	const char *open = strrchr(subject, '(');
	if (!open || open == subject)
		return false;
	size_t plen = (size_t)(open - subject);
	for (size_t i = 0; i < out->n; i++) {
		irdiff_item *it = &out->v[i];
		const char *io = strrchr(it->subject, '(');
		if (it->domain != IR_SYSCALL || !io || (size_t)(io - it->subject) != plen ||
		    strncmp(it->subject, subject, plen) || !same_side(&it->old, o) || !same_side(&it->new_, n))
			continue;
		size_t l = strlen(it->subject);
		char *m = xasprintf("%.*s, %s", (int)(l - 1), it->subject, open + 1);
		free(it->subject);
		it->subject = m;
		return true;
	}
	return false;
}

static void add(differ *df, ir_domain dom, char *subject, irdiff_side o, irdiff_side n)
{
	irdiff *out = df->out;
	for (size_t i = 0; i < out->n; i++)   /* one item per event text */
		if (!strcmp(out->v[i].subject, subject)) {
			free(subject);
			return;
		}
	if (dom == IR_SYSCALL && merge_arch(out, subject, &o, &n)) {
		free(subject);
		return;
	}
	xgrow(&out->v, &out->cap, out->n + 1, sizeof *out->v);
	irdiff_item *it = &out->v[out->n++];
	it->kind = kind_of(o.verdict, o.err, n.verdict, n.err);
	it->domain = dom;
	it->subject = subject;
	it->old = o;
	it->new_ = n;
}

/* Decide ev on both sides; record it if they differ (events_fn). */
static bool decide_both(const ir_event *ev, unsigned shown, void *ctx)
{
	differ *df = ctx;
	if (ev->domain != IR_SYSCALL && !df->arch_items_done)
		diff_arch_items(df);
	ir_decision x = ir_decide(df->a, ev), y = ir_decide(df->b, ev);
	if (x.verdict == y.verdict && x.err == y.err)
		return false;
	if (ev->domain == IR_SYSCALL) {
		ir_arch a = ir_event_arch(ev);
		if (df->skip_arches & IR_ARCH_BIT(a)) {
			df->arch_kind[a] |= 1 << kind_of(x.verdict, x.err, y.verdict, y.err);
			return true;
		}
	}
	if (!x.by && !y.by && df->skip_defaults[ev->domain])
		return true;
	buf text;
	buf_init(&text);
	event_text(ev, shown, &text);
	add(df, ev->domain, buf_cstr(&text), side_of(x, df->a), side_of(y, df->b));
	return true;
}

/* ---- settings ---- */

static void diff_settings(differ *df)
{
	if (df->a->mode != df->b->mode) {
		irdiff_side o = { IR_DENY, 0, df->a->loc, true }, n = { IR_AUDIT, 0, df->b->loc, true };
		if (df->a->mode == IR_MODE_AUDIT) {
			o.verdict = IR_AUDIT;
			n.verdict = IR_DENY;
		}
		add(df, IR_NDOMAIN, xstrdup("mode (enforce -> audit turns every deny into audit)"), o, n);
	}
	for (int d = 0; d < IR_NDOMAIN; d++) {
		ir_action x = ir_effective(df->a, df->a->defaults[d]);
		ir_action y = ir_effective(df->b, df->b->defaults[d]);
		int xe = x.verdict >= IR_DENY ? x.err : 0, ye = y.verdict >= IR_DENY ? y.err : 0;
		if (x.verdict == y.verdict && xe == ye)
			continue;
		df->skip_defaults[d] = true;
		irdiff_side o = { x.verdict, xe, df->a->loc, true }, n = { y.verdict, ye, df->b->loc, true };
		add(df, (ir_domain)d, xasprintf("default %s", ir_domain_name((ir_domain)d)), o, n);
	}
	df->skip_arches = df->a->arches ^ df->b->arches;
}

/* One item per ABI only one side names, made once its syscalls were
 * decided (arch_kind), before the other domains' items. */
static void diff_arch_items(differ *df)
{
	df->arch_items_done = true;
	for (int a = 0; a < IR_NARCH; a++) {
		int k = df->arch_kind[a];
		if (!(df->skip_arches & IR_ARCH_BIT(a)) || !k)
			continue;
		bool in_new = df->b->arches & IR_ARCH_BIT(a);
		irdiff_side o = { IR_DENY, 1, df->a->loc, true }, n = { IR_DENY, 1, df->b->loc, true };
		(in_new ? &n : &o)->verdict = IR_ALLOW;
		add(df, IR_SYSCALL, xasprintf("arch %s (%s; syscalls of that ABI decided differently)",
					      ir_arch_name((ir_arch)a), in_new ? "named only by new" : "named only by old"),
		    o, n);
		irdiff_item *it = &df->out->v[df->out->n - 1];
		/* errno-only changes (ENOSYS for unknown numbers) do not hide
		 * which way the permissions moved */
		it->kind = (k & 1) && !(k & 2) ? IRD_WIDENED : (k & 2) && !(k & 1) ? IRD_NARROWED : IRD_CHANGED;
	}
}

size_t ir_diff(const ir_policy *old, const ir_policy *new_, irdiff *out)
{
	differ df;
	memset(&df, 0, sizeof df);
	df.a = old;
	df.b = new_;
	df.out = out;
	diff_settings(&df);
	events_between(old, new_, decide_both, &df);
	if (!df.arch_items_done)
		diff_arch_items(&df);
	return out->n;
}

bool irdiff_has(const irdiff *d, irdiff_kind k)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->v[i].kind == k)
			return true;
	return false;
}

const char *irdiff_kind_name(irdiff_kind k)
{
	return k == IRD_WIDENED ? "widened" : k == IRD_NARROWED ? "narrowed" : "changed";
}

static void put_decision(buf *out, const irdiff_side *s)
{
	buf_puts(out, ir_verdict_name(s->verdict));
	if (s->verdict == IR_DENY) {
		const char *n = errno_name(s->err);
		if (n)
			buf_printf(out, " %s", n);
		else
			buf_printf(out, " errno %d", s->err);
	}
}

static void put_loc(buf *out, const irdiff_side *s)
{
	if (s->is_default && s->at.file)
		buf_printf(out, "default of %s:%d:%d", s->at.file->path, s->at.line, s->at.col);
	else if (s->is_default || !s->at.file)
		buf_puts(out, "default");
	else
		buf_printf(out, "%s:%d:%d", s->at.file->path, s->at.line, s->at.col);
}


static void json_side(buf *out, const irdiff_side *s)
{
	buf lb;
	buf_init(&lb);
	put_loc(&lb, s);
	buf_printf(out, "{\"decision\":\"%s\",\"errno\":%d,\"at\":", ir_verdict_name(s->verdict),
		   s->verdict == IR_DENY ? s->err : 0);
	buf_json_str(out, buf_cstr(&lb));
	buf_puts(out, "}");
	buf_free(&lb);
}

void irdiff_print(const irdiff *d, bool json, buf *out)
{
	if (json) {
		buf_printf(out, "{\"equal\":%s,\"differences\":[", d->n ? "false" : "true");
		for (size_t i = 0; i < d->n; i++) {
			const irdiff_item *it = &d->v[i];
			buf_printf(out, "%s\n {\"kind\":\"%s\",\"domain\":\"%s\",\"subject\":", i ? "," : "",
				   irdiff_kind_name(it->kind),
				   it->domain == IR_NDOMAIN ? "mode" : ir_domain_name(it->domain));
			buf_json_str(out, it->subject);
			buf_puts(out, ",\"old\":");
			json_side(out, &it->old);
			buf_puts(out, ",\"new\":");
			json_side(out, &it->new_);
			buf_puts(out, "}");
		}
		buf_puts(out, d->n ? "\n]}\n" : "]}\n");
		return;
	}
	for (size_t i = 0; i < d->n; i++) {
		const irdiff_item *it = &d->v[i];
		buf_printf(out, "%-8s %s: old ", irdiff_kind_name(it->kind), it->subject);
		put_decision(out, &it->old);
		buf_puts(out, " (");
		put_loc(out, &it->old);
		buf_puts(out, "), new ");
		put_decision(out, &it->new_);
		buf_puts(out, " (");
		put_loc(out, &it->new_);
		buf_puts(out, ")\n");
	}
}

void irdiff_free(irdiff *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->v[i].subject);
	free(d->v);
	memset(d, 0, sizeof *d);
}
