/* svg.c - the scenario ratios as an SVG bar chart, written by hand (no
 * plotting dependency): one panel per environment x backend, a group of
 * bars per benchmark (the micro tests, redis GET/SET, pgbench), one bar per
 * scenario with its [min, max] as a whisker, and the 1.00 line. */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define W 980
#define PANEL_H 250
#define LEFT 56
#define RIGHT 16
#define TOP 56

typedef struct { const char *section, *metric, *label; } cat;

static const cat cats[] = {
	{ "micro", "getppid", "getppid" }, { "micro", "openat", "openat" },
	{ "micro", "stat", "stat" }, { "micro", "read4k", "read 4K" },
	{ "micro", "pipe", "pipe" }, { "micro", "fork", "fork" },
	{ "micro", "execl", "execl" }, { "micro", "spawn", "spawn" },
	{ "redis", "GET", "redis GET" }, { "redis", "SET", "redis SET" },
	{ "pgbench", "select-only", "pgbench" },
};
#define NCAT (sizeof cats / sizeof cats[0])

static const char *const colors[BENCH_NSCEN] = { "", "#7fa7d9", "#f0a35e", "#c0504d" };

typedef struct { double m, lo, hi; bool ok; } bar;

static bar get(const bresults *r, const char *env, const char *backend, const cat *c, int s)
{
	bar b = { 0, 0, 0, false };
	const bseries *x = br_find(r, env, c->section, backend, bench_scenarios[s], c->metric);
	const bseries *base = x ? br_base_of(r, x) : NULL;
	b.ok = br_ratio(x, base, &b.m, &b.lo, &b.hi);
	return b;
}

static bool panel_has(const bresults *r, const char *env, const char *backend)
{
	for (size_t c = 0; c < NCAT; c++)
		for (int s = 1; s < BENCH_NSCEN; s++)
			if (get(r, env, backend, &cats[c], s).ok)
				return true;
	return false;
}

/* A tick step giving about five gridlines up to top. */
static double tick(double top)
{
	double raw = top / 5, p = pow(10, floor(log10(raw)));
	return raw / p < 2 ? p * 2 : raw / p < 5 ? p * 5 : p * 10;
}

static void panel(buf *out, const bresults *r, const char *env, const char *backend, int y0)
{
	double top = 1.2;
	for (size_t c = 0; c < NCAT; c++)
		for (int s = 1; s < BENCH_NSCEN; s++) {
			bar b = get(r, env, backend, &cats[c], s);
			if (b.ok && b.hi * 1.05 > top)
				top = b.hi * 1.05;
		}
	int h = PANEL_H - 50, x0 = LEFT, pw = W - LEFT - RIGHT;
	double cw = (double)pw / NCAT, bw = cw * 0.8 / 3;
	buf_printf(out, "<text x=\"%d\" y=\"%d\" class=\"t\">%s — %s</text>\n", x0, y0 - 8,
		   !strcmp(env, "lab") ? "lab (qemu TCG)" : env,
		   bench_title(backend));
	double st = tick(top);
	for (double v = 0; v <= top + 1e-9; v += st) {
		double y = y0 + h - v / top * h;
		buf_printf(out, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" class=\"g\"/>"
			   "<text x=\"%d\" y=\"%.1f\" class=\"a\" text-anchor=\"end\">%.2g</text>\n",
			   x0, x0 + pw, y, y, x0 - 4, y + 4, v);
	}
	double y1 = y0 + h - 1.0 / top * h;
	buf_printf(out, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" class=\"one\"/>\n",
		   x0, x0 + pw, y1, y1);
	for (size_t c = 0; c < NCAT; c++) {
		double cx = x0 + cw * (double)c + cw * 0.1;
		for (int s = 1; s < BENCH_NSCEN; s++) {
			bar b = get(r, env, backend, &cats[c], s);
			double x = cx + bw * (s - 1);
			if (!b.ok) {
				buf_printf(out, "<text x=\"%.1f\" y=\"%d\" class=\"a\" text-anchor=\"middle\">"
					   "–</text>\n", x + bw / 2, y0 + h - 3);
				continue;
			}
			double y = y0 + h - b.m / top * h;
			buf_printf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
				   "fill=\"%s\"><title>%s %s: %.3f [%.3f–%.3f]</title></rect>\n",
				   x, y, bw - 1, y0 + h - y, colors[s], cats[c].label,
				   bench_scenarios[s], b.m, b.lo, b.hi);
			double ylo = y0 + h - b.lo / top * h, yhi = y0 + h - b.hi / top * h;
			buf_printf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
				   "class=\"w\"/>\n", x + bw / 2 - 0.5, x + bw / 2 - 0.5, ylo, yhi);
		}
		buf_printf(out, "<text x=\"%.1f\" y=\"%d\" class=\"a\" text-anchor=\"middle\">%s</text>\n",
			   x0 + cw * (double)c + cw / 2, y0 + h + 16, cats[c].label);
	}
}

void bench_svg(const bresults *r, buf *out)
{
	static const char *const envs[] = { "native", "lab" };
	int n = 0;
	for (size_t e = 0; e < 2; e++)
		for (size_t b = 0; bench_backend(b); b++)
			n += panel_has(r, envs[e], bench_backend(b));
	int hgt = TOP + (n ? n : 1) * PANEL_H;
	buf_printf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n"
		   "<style>.t{font-size:14px;font-weight:bold}.a{font-size:11px;fill:#333}"
		   ".g{stroke:#ddd;stroke-width:1}.one{stroke:#000;stroke-width:1;stroke-dasharray:4 3}"
		   ".w{stroke:#222;stroke-width:1}</style>\n"
		   "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
		   "<text x=\"%d\" y=\"20\" class=\"t\">polc bench: cost ratio to NoProtect "
		   "(1.00 = no cost; higher is slower; whiskers: min–max of the rounds)</text>\n",
		   W, hgt, W, hgt, LEFT);
	for (int s = 1; s < BENCH_NSCEN; s++)
		buf_printf(out, "<rect x=\"%d\" y=\"30\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			   "<text x=\"%d\" y=\"40\" class=\"a\">%s</text>\n", LEFT + (s - 1) * 160,
			   colors[s], LEFT + (s - 1) * 160 + 16, bench_scenarios[s]);
	int k = 0;
	for (size_t e = 0; e < 2; e++)
		for (size_t b = 0; bench_backend(b); b++)
			if (panel_has(r, envs[e], bench_backend(b)))
				panel(out, r, envs[e], bench_backend(b), TOP + 24 + k++ * PANEL_H);
	if (!n)
		buf_printf(out, "<text x=\"%d\" y=\"%d\" class=\"a\">no scenario was measured</text>\n",
			   LEFT, TOP + 40);
	buf_puts(out, "</svg>\n");
}
