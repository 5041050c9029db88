/* util.c - see util.h. */
#include "util.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stdint.h>
#include <sys/mman.h>
#include <malloc.h>
#include <sys/stat.h>
/* SHA-256 through OpenSSL's direct SHA256_* calls (kept in 3.x, "deprecated"
 * for the EVP API): EVP's first digest loads the provider machinery, 3.5 M
 * instructions of a 13 M-instruction Docker import and build (callgrind),
 * and every EVP init looks its provider up again. */
#define OPENSSL_API_COMPAT 0x10100000L
#include <openssl/sha.h>

static void oom(void)
{
	fputs("polc: out of memory\n", stderr);
	abort();
}

/* A large block is fresh memory: every 4 KiB page of it costs a page
 * fault (~16 us on this VM host) when first touched, a 2 MiB transparent
 * huge page one fault for 512 of them. So a block of at least BIG bytes
 * is aligned to 2 MiB, its size rounded up to whole 2 MiB pages, and
 * advised MADV_HUGEPAGE before anything touches it: all of it can fault in
 * huge pages (malloc's own placement leaves up to 4 MiB of every block in
 * 4 KiB pages, and realloc copies into the new block before any advice
 * could reach it). A hint: THP may be off. Under a sanitizer the
 * allocator's own blocks are used as they are. */
#ifndef POLC_ASAN
#define HUGE ((size_t)2 << 20)
#define BIG HUGE

static void *big_alloc(size_t n)
{
	void *p;
	size_t size = n > SIZE_MAX - HUGE ? n : (n + HUGE - 1) & ~(HUGE - 1);
	if (posix_memalign(&p, HUGE, size))
		oom();
	(void)madvise(p, size, MADV_HUGEPAGE);
	return p;
}
#endif

void *xmalloc(size_t n)
{
#ifndef POLC_ASAN
	if (n >= BIG)
		return big_alloc(n);
#endif
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
#ifndef POLC_ASAN
	if (size && n <= SIZE_MAX / size && n * size >= BIG)
		return memset(big_alloc(n * size), 0, n * size);
#endif
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
#ifndef POLC_ASAN
	if (n >= BIG) {
		if (!p)
			return big_alloc(n);
		size_t old = malloc_usable_size(p);
		if (old >= n)
			return p;
		void *q = big_alloc(n);
		memcpy(q, p, old);
		free(p);
		return q;
	}
#endif
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	buf b;
	buf_init(&b);
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	return buf_cstr(&b);
}

void xgrow(void *v, size_t *cap, size_t need, size_t size)
{
	xgrow_from(v, cap, need, size, 8);
}

void xgrow_from(void *v, size_t *cap, size_t need, size_t size, size_t first)
{
	void **pv = v;
	if (need <= *cap)
		return;
	size_t c = *cap ? *cap : first;
	while (c < need)
		c *= 2;
	*pv = xrealloc(*pv, c * size);
	*cap = c;
}

void xqsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n)
		qsort(base, n, size, cmp);
}

void buf_init(buf *b)
{
	b->data = NULL;
	b->len = b->cap = 0;
}

void buf_free(buf *b)
{
	free(b->data);
	buf_init(b);
}

void buf_put(buf *b, const void *p, size_t n)
{
	xgrow(&b->data, &b->cap, b->len + n + 1, 1);
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = 0;
}

void buf_puts(buf *b, const char *s)
{
	buf_put(b, s, strlen(s));
}

void buf_put_dec(buf *b, long long v)
{
	char d[21];
	size_t n = sizeof d;
	/* the magnitude as unsigned: -LLONG_MIN overflows a long long */
	unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
	do
		d[--n] = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		d[--n] = '-';
	buf_put(b, d + n, sizeof d - n);
}

void buf_vprintf(buf *b, const char *fmt, va_list ap)
{
	/* formatted once when it fits the room left (the usual case: the
	 * buffer grows by doubling), twice only when it must grow */
	va_list ap2;
	va_copy(ap2, ap);
	size_t room = b->cap - b->len;
	int n = vsnprintf(room ? b->data + b->len : NULL, room, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return;
	if ((size_t)n >= room) {
		xgrow(&b->data, &b->cap, b->len + (size_t)n + 1, 1);
		vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	}
	b->len += (size_t)n;
}

void buf_printf(buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(b, fmt, ap);
	va_end(ap);
}

int buf_read_file(buf *b, const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	char tmp[65536];
	size_t n;
	while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
		buf_put(b, tmp, n);
	int err = ferror(f) ? errno : 0;
	fclose(f);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

char *buf_cstr(buf *b)
{
	xgrow(&b->data, &b->cap, b->len + 1, 1);
	b->data[b->len] = 0;
	return b->data;
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Replace a regular file (or create one) by temp file + rename. */
static int replace_regular(const char *path, const void *data, size_t len)
{
	char *tmp = xasprintf("%s.tmp.XXXXXX", path);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		free(tmp);
		return -1;
	}
	int err = 0;
	if (write_all(fd, data, len) < 0 || fchmod(fd, 0644) < 0 || fsync(fd) < 0)
		err = errno;
	if (close(fd) < 0 && !err)
		err = errno;
	if (!err && rename(tmp, path) < 0)
		err = errno;
	if (err)
		unlink(tmp);
	free(tmp);
	errno = err;
	return err ? -1 : 0;
}

/* A device, FIFO or socket is written through: renaming over it would
 * replace the node itself (a CI's `-o /dev/null` would turn /dev/null into a
 * regular file for the whole machine). */
static int write_through(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int err = write_all(fd, data, len) < 0 ? errno : 0;
	if (close(fd) < 0 && !err)
		err = errno;
	errno = err;
	return err ? -1 : 0;
}

int write_file_atomic(const char *path, const void *data, size_t len)
{
	if (!strcmp(path, "-"))
		return write_all(STDOUT_FILENO, data, len);
	struct stat st;
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? replace_regular(path, data, len) : -1;
	if (S_ISLNK(st.st_mode)) {
		/* the link stays: its target is what gets written (a dangling
		 * link is refused, ENOENT, rather than replaced) */
		char *real = realpath(path, NULL);
		if (!real)
			return -1;
		int rc = write_file_atomic(real, data, len);
		int err = errno;
		free(real);
		errno = err;
		return rc;
	}
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		return -1;
	}
	if (!S_ISREG(st.st_mode))
		return write_through(path, data, len);
	return replace_regular(path, data, len);
}

void sha256_hex(const void *data, size_t len, char out[65])
{
	sha256_hex_parts(&data, &len, 1, out);
}

void sha256_hex_parts(const void *const *data, const size_t *len, size_t n, char out[65])
{
	unsigned char md[SHA256_DIGEST_LENGTH];
	SHA256_CTX c;
	if (!SHA256_Init(&c))
		abort();
	for (size_t i = 0; i < n; i++)
		if (len[i] && !SHA256_Update(&c, data[i], len[i]))
			abort();
	if (!SHA256_Final(md, &c))
		abort();
	static const char hex[] = "0123456789abcdef";
	for (int i = 0; i < SHA256_DIGEST_LENGTH; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[64] = 0;
}

/* Length of the well-formed UTF-8 sequence at s (n bytes left), 0 if none:
 * no overlong forms, no surrogates, nothing above U+10FFFF (RFC 3629). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
	if (c < 0xc2 || c > 0xf4 || len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f) ||
	    (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] > 0x8f))
		return 0;
	return len;
}

/* Bytes written as they are: ASCII from the space on, but '"' and '\\'. */
static bool json_plain(unsigned char c)
{
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

void buf_json_strn(buf *b, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	buf_puts(b, "\"");
	for (size_t i = 0; i < n; i++) {
		unsigned char c = u[i];
		size_t len;
		if (json_plain(c)) {
			/* a run of plain bytes in one put (a header line is ~100) */
			size_t j = i + 1;
			while (j < n && json_plain(u[j]))
				j++;
			buf_put(b, &u[i], j - i);
			i = j - 1;
		} else if (c == '"' || c == '\\')
			buf_printf(b, "\\%c", c);
		else if (c == '\n')
			buf_puts(b, "\\n");
		else if (c == '\t')
			buf_puts(b, "\\t");
		else if (c < 0x20)
			buf_printf(b, "\\u%04x", c);
		else if ((len = utf8_len(&u[i], n - i)) > 0) {
			buf_put(b, &u[i], len);
			i += len - 1;
		} else
			buf_puts(b, "\\ufffd");   /* a byte that is not UTF-8 */
	}
	buf_puts(b, "\"");
}

void buf_json_str(buf *b, const char *s)
{
	buf_json_strn(b, s ? s : "", s ? strlen(s) : 0);
}

#ifndef POLC_SRC_DIR
#define POLC_SRC_DIR "."
#endif

static bool has_file(const char *dir, const char *probe)
{
	char *p = xasprintf("%s/%s", dir, probe);
	bool ok = access(p, F_OK) == 0;
	free(p);
	return ok;
}

const char *polc_data_dir(const char *probe)
{
	static char dir[4096];
	const char *env = getenv("POLC_SRC");
	if (env && *env) {
		snprintf(dir, sizeof dir, "%s", env);
		return has_file(dir, probe) ? dir : NULL;
	}
	char self[4000];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = 0;
		char *slash = strrchr(self, '/');
		if (slash)
			*slash = 0;
		snprintf(dir, sizeof dir, "%s/../share/polc", self);
		if (has_file(dir, probe))
			return dir;
	}
	snprintf(dir, sizeof dir, "%s", POLC_SRC_DIR);
	return has_file(dir, probe) ? dir : NULL;
}

int write_control_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t len = strlen(s);
	ssize_t w = write(fd, s, len);
	int err = w < 0 ? errno : (size_t)w != len ? EIO : 0;
	close(fd);
	errno = err;
	return err ? -1 : 0;
}

int cgroup2_mount(char *out, size_t n)
{
	FILE *f = fopen("/proc/self/mounts", "r");
	char dev[256], dir[512], type[64];
	int found = -1;
	if (!f)
		return -1;
	while (found < 0 && fscanf(f, "%255s %511s %63s %*[^\n]", dev, dir, type) == 3)
		if (!strcmp(type, "cgroup2")) {
			snprintf(out, n, "%s", dir);
			found = 0;
		}
	fclose(f);
	return found;
}
