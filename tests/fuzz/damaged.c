/*
 * Damaged and hostile logs (issue 7), through the public API:
 *
 *   damaged SAMPLEDIR...
 *
 * 1. For every .brp of the directories, every truncation point and every
 *    single-bit flip is read (rpl_reader_open_memory + rpl_verify_reader):
 *    no crash or hang (the test has a timeout; run it under the sanitizers
 *    too), and the verdict is
 *      - for a flip: malformed, at the offset of a section at or before the
 *        flipped byte (CRC-32 catches every single-bit error; no byte of a
 *        version-2 log is skipped by the reader);
 *      - for a cut inside a section: malformed, at or before the cut;
 *      - when the original is illegal, the same illegal verdict: verification
 *        stops at the first illegal decision, and damage after it does not
 *        change that verdict;
 *      - for a cut between sections: what a recording stopped there is, never
 *        malformed, and ok (or mismatch) only when every decision of the
 *        original is still there (only claims or the end section were cut:
 *        docs/security.md says why the log cannot tell); a sealed log
 *        (format.md 19.5) has no boundary before its checksum, after E, so
 *        every cut of it before there is malformed, at byte 8.
 * 2. Crafted logs whose length and count fields claim absurd sizes, and a
 *    header that inflates without bound, are refused, quickly, and without a
 *    large allocation: malloc, calloc and realloc are wrapped at link time
 *    (-Wl,--wrap) to record the largest request the library makes.
 */
#define _DEFAULT_SOURCE 1
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include <libreplay/libreplay.h>

/* ---- the largest allocation ---- */

static size_t largest;
void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);

void *__wrap_malloc(size_t n)
{
	if (n > largest)
		largest = n;
	return __real_malloc(n);
}

void *__wrap_calloc(size_t k, size_t n)
{
	if (n && k > (size_t)-1 / n)
		largest = (size_t)-1;
	else if (k * n > largest)
		largest = k * n;
	return __real_calloc(k, n);
}

void *__wrap_realloc(void *p, size_t n)
{
	if (n > largest)
		largest = n;
	return __real_realloc(p, n);
}

static int failures;

static void failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void failf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("FAIL: ", stdout);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	if (++failures > 40) {
		puts("too many failures");
		exit(1);
	}
}

static void judge(const uint8_t *p, size_t n, rpl_verdict *v)
{
	rpl_reader *rd = NULL;
	int err = rpl_reader_open_memory(&rd, p, n);

	memset(v, 0, sizeof *v);
	if (!rd) {
		v->kind = RPL_VERDICT_MALFORMED;
		v->offset = 0;
		snprintf(v->message, sizeof v->message, "%s", rpl_strerror(err));
		return;
	}
	if (rpl_verify_reader(rd, NULL, v) != 0) {
		failf("rpl_verify_reader failed");
		v->kind = -1;
	}
	rpl_reader_free(rd);
}

/* ---- 1. every cut and every flip of every sample ---- */

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc(n ? (size_t)n : 1);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = (size_t)n;
	}
	fclose(f);
	return buf;
}

/*
 * Marks in bound[] each offset where a whole section ends (the frame only; 8
 * after the magic). A sealed log (format.md 19.5) has no such offset before
 * its one checksum, after E: a cut before it loses the checksum, malformed.
 */
static void section_bounds(const uint8_t *p, size_t n, uint8_t *bound)
{
	size_t pos = 8;
	int sealed = n > 8 && p[8] == 'Z';

	memset(bound, 0, n + 1);
	if (n < 8)
		return;
	bound[8] = 1;
	while (pos < n) {
		uint8_t type = p[pos];
		uint64_t len = 0;
		int shift = 0;
		pos++;
		for (;;) {
			if (pos >= n || shift > 28)
				return;
			len |= (uint64_t)(p[pos] & 0x7F) << shift;
			shift += 7;
			if (!(p[pos++] & 0x80))
				break;
		}
		if (len > n - pos || n - pos - len < 4)
			return;
		if (sealed && type != 'E') {
			pos += len;
			continue;
		}
		sealed = 0;
		pos += len + 4;
		bound[pos] = 1;
	}
}

struct tally {
	long cuts, flips, cut_incomplete, cut_ok, same_illegal, repairs;
};

/* v is the illegal verdict of the original v0: the same decision, the same rule. */
static int same_illegal(const rpl_verdict *v, const rpl_verdict *v0)
{
	return v->kind == RPL_VERDICT_ILLEGAL && v0->kind == RPL_VERDICT_ILLEGAL && v->deal == v0->deal &&
	       v->turn == v0->turn && v->seat == v0->seat && v->rule == v0->rule;
}

static void sample(const char *path, struct tally *t)
{
	size_t n = 0, limit;
	uint8_t *orig = slurp(path, &n), *buf, *bound;
	rpl_verdict v0, v;

	if (!orig) {
		failf("%s: cannot read", path);
		return;
	}
	buf = malloc(n ? n : 1);
	bound = malloc(n + 1);
	if (!buf || !bound) {
		failf("out of memory");
		exit(1);
	}
	section_bounds(orig, n, bound);
	judge(orig, n, &v0);
	/* the reader holds the file and at most one inflated header (256 KiB) */
	limit = n + (300u << 10);

	for (size_t cut = 0; cut < n; cut++) {
		largest = 0;
		judge(orig, cut, &v);
		t->cuts++;
		if (largest > limit)
			failf("%s cut at %zu: an allocation of %zu bytes", path, cut, largest);
		if (same_illegal(&v, &v0)) {
			t->same_illegal++;
			continue;
		}
		if (v.kind == RPL_VERDICT_MALFORMED) {
			if (bound[cut] && cut > 8 && v0.kind != RPL_VERDICT_MALFORMED)
				failf("%s cut at %zu, between sections: malformed (%s)", path, cut, v.message);
			if (v.offset > cut)
				failf("%s cut at %zu: malformed at byte %llu, past the cut", path, cut, (unsigned long long)v.offset);
			continue;
		}
		if (!bound[cut]) {
			failf("%s cut at %zu, inside a section: %s (%s)", path, cut, rpl_verdict_name(v.kind), v.message);
			continue;
		}
		if (v.kind == RPL_VERDICT_INCOMPLETE) {
			t->cut_incomplete++;
		} else if (v.kind == RPL_VERDICT_OK || v.kind == RPL_VERDICT_MISMATCH) {
			t->cut_ok++;
			if (v.actions != v0.actions || v.deals != v0.deals)
				failf("%s cut at %zu: %s with %d of %d decisions", path, cut, rpl_verdict_name(v.kind), v.actions,
				      v0.actions);
		} else {
			failf("%s cut at %zu: %s (%s); the whole log is %s", path, cut, rpl_verdict_name(v.kind), v.message,
			      rpl_verdict_name(v0.kind));
		}
	}
	for (size_t i = 0; i < n; i++) {
		for (int b = 0; b < 8; b++) {
			memcpy(buf, orig, n);
			buf[i] ^= (uint8_t)(1u << b);
			largest = 0;
			judge(buf, n, &v);
			t->flips++;
			if (largest > limit)
				failf("%s bit %d of byte %zu flipped: an allocation of %zu bytes", path, b, i, largest);
			if (same_illegal(&v, &v0))
				t->same_illegal++;
			else if (v0.kind == RPL_VERDICT_MALFORMED && i >= v0.offset && v.kind != RPL_VERDICT_MALFORMED)
				t->repairs++; /* a sample damaged on purpose, and this flip undoes the damage */
			else if (v.kind != RPL_VERDICT_MALFORMED)
				failf("%s bit %d of byte %zu flipped: %s (%s)", path, b, i, rpl_verdict_name(v.kind), v.message);
			else if (v.offset > i)
				failf("%s bit %d of byte %zu flipped: malformed at byte %llu, past the flip", path, b, i,
				      (unsigned long long)v.offset);
		}
	}
	free(orig);
	free(buf);
	free(bound);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int samples(const char *dir, struct tally *t)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, by_name), files = 0;

	if (n < 0) {
		failf("cannot list %s", dir);
		return 0;
	}
	for (int k = 0; k < n; k++) {
		const char *d = names[k]->d_name;
		size_t len = strlen(d);
		if (len > 4 && strcmp(d + len - 4, ".brp") == 0) {
			char path[4096];
			snprintf(path, sizeof path, "%s/%s", dir, d);
			sample(path, t);
			files++;
		}
		free(names[k]);
	}
	free(names);
	return files;
}

/* ---- 2. crafted logs ---- */

struct out {
	uint8_t p[4096];
	size_t n;
};

static void put(struct out *o, const void *p, size_t n)
{
	if (o->n + n > sizeof o->p) {
		puts("crafted log too long");
		exit(1);
	}
	memcpy(o->p + o->n, p, n);
	o->n += n;
}

static void byte(struct out *o, uint8_t b)
{
	put(o, &b, 1);
}

static void varint(struct out *o, uint64_t v)
{
	while (v >= 0x80) {
		byte(o, (uint8_t)(v | 0x80));
		v >>= 7;
	}
	byte(o, (uint8_t)v);
}

static void string(struct out *o, const char *s)
{
	varint(o, strlen(s));
	put(o, s, strlen(s));
}

/* A framed section; declared_len, if not (uint64_t)-1, is written instead of the true length. */
static void section(struct out *o, uint8_t type, const struct out *pay, uint64_t declared_len)
{
	struct out len = { .n = 0 };
	uLong crc;
	uint8_t c[4];

	varint(&len, declared_len == (uint64_t)-1 ? pay->n : declared_len);
	crc = crc32(0L, Z_NULL, 0);
	crc = crc32(crc, &type, 1);
	crc = crc32(crc, len.p, (uInt)len.n);
	crc = crc32(crc, pay->p, (uInt)pay->n);
	c[0] = (uint8_t)crc;
	c[1] = (uint8_t)(crc >> 8);
	c[2] = (uint8_t)(crc >> 16);
	c[3] = (uint8_t)(crc >> 24);
	byte(o, type);
	put(o, len.p, len.n);
	put(o, pay->p, pay->n);
	put(o, c, 4);
}

/*
 * The body of a header (after its encoding byte): stbl, 4 players, and the
 * counts given; nparams other than RPL_P_COUNT is written without its pairs.
 */
static void header_body(struct out *b, uint64_t nparams, uint64_t namelen, uint64_t nmeta)
{
	rpl_rules *r = NULL;

	varint(b, 2); /* version */
	string(b, "stbl");
	varint(b, nparams);
	if (nparams == RPL_P_COUNT && rpl_rules_new(&r, "stbl") == 0) {
		for (int id = 1; id <= RPL_P_COUNT; id++) {
			int v = 0;
			rpl_rules_get_id(r, id, &v);
			varint(b, (uint64_t)id);
			varint(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 31)); /* zigzag */
		}
	}
	rpl_rules_free(r);
	byte(b, 4);
	varint(b, namelen);
	for (int s = 1; s < 4; s++)
		string(b, "");
	byte(b, 3);
	varint(b, 0); /* start time */
	varint(b, nmeta);
	string(b, "k");
	string(b, "v");
}

static void magic(struct out *o)
{
	put(o,
	    "\x89"
	    "BRP\r\n\x1a\n",
	    8);
}

static void header(struct out *o)
{
	struct out b = { .n = 0 };
	byte(&b, 0);
	header_body(&b, RPL_P_COUNT, 0, 0);
	b.n -= 4; /* no metadata after all */
	section(o, 'H', &b, (uint64_t)-1);
}

struct crafted {
	const char *what;
	struct out log;
	int want_err; /* the error rpl_reader_open_memory or rpl_reader_next must give */
};

/* Judge one crafted log: refused as wanted, quickly, without a large allocation. */
static void refuse(const struct crafted *c)
{
	rpl_reader *rd = NULL;
	rpl_event ev;
	rpl_verdict v;
	struct timespec t0, t1;
	int err, got = 0;
	double ms;

	largest = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	err = rpl_reader_open_memory(&rd, c->log.p, c->log.n);
	if (err == 0)
		while ((got = rpl_reader_next(rd, &ev)) == 1)
			;
	else
		got = err;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	printf("%-58s %-34s largest allocation %7zu bytes, %.1f ms: %s\n", c->what, rpl_strerror(got), largest, ms,
	       rd ? rpl_reader_errmsg(rd) : "");
	if (got != c->want_err)
		failf("%s: %s, not %s", c->what, rpl_strerror(got), rpl_strerror(c->want_err));
	if (largest > c->log.n + (300u << 10))
		failf("%s: an allocation of %zu bytes", c->what, largest);
	if (ms > 2000)
		failf("%s: %.0f ms to refuse", c->what, ms);
	rpl_reader_free(rd);
	judge(c->log.p, c->log.n, &v);
	/* verification may stop earlier, at a decoded decision the rules refuse */
	if (c->want_err == RPL_ECORRUPT && v.kind != RPL_VERDICT_MALFORMED && v.kind != RPL_VERDICT_ILLEGAL)
		failf("%s: verdict %s, not malformed", c->what, rpl_verdict_name(v.kind));
}

static void crafted(void)
{
	static struct crafted c;
	struct out b, pay;
	uint8_t raw[64];

	/* a section whose length says 0xFFFFFFF (256 MiB) */
	memset(&c, 0, sizeof c);
	c.what = "header section of length 0xFFFFFFF";
	magic(&c.log);
	memset(&pay, 0, sizeof pay);
	byte(&pay, 0);
	section(&c.log, 'H', &pay, 0xFFFFFFF);
	c.want_err = RPL_ECORRUPT;
	refuse(&c);

	memset(&c, 0, sizeof c);
	c.what = "deal section of length 0xFFFFFFF";
	magic(&c.log);
	header(&c.log);
	memset(&pay, 0, sizeof pay);
	varint(&pay, 1);
	section(&c.log, 'D', &pay, 0xFFFFFFF);
	c.want_err = RPL_ECORRUPT;
	refuse(&c);

	memset(&c, 0, sizeof c);
	c.what = "length varint of 6 bytes";
	magic(&c.log);
	put(&c.log, "H\xff\xff\xff\xff\xff\x01", 7);
	c.want_err = RPL_ECORRUPT;
	refuse(&c);

	/* header counts */
	memset(&c, 0, sizeof c);
	c.what = "header claiming 10^9 metadata entries";
	magic(&c.log);
	memset(&b, 0, sizeof b);
	byte(&b, 0);
	header_body(&b, RPL_P_COUNT, 0, 1000000000);
	section(&c.log, 'H', &b, (uint64_t)-1);
	c.want_err = RPL_ECORRUPT;
	refuse(&c);

	memset(&c, 0, sizeof c);
	c.what = "header claiming 2^63 metadata entries";
	magic(&c.log);
	memset(&b, 0, sizeof b);
	byte(&b, 0);
	header_body(&b, RPL_P_COUNT, 0, (uint64_t)1 << 63);
	section(&c.log, 'H', &b, (uint64_t)-1);
	c.want_err = RPL_ECORRUPT;
	refuse(&c);

	memset(&c, 0, sizeof c);
	c.what = "header claiming 10^9 rule parameters";
	magic(&c.log);
	memset(&b, 0, sizeof b);
	byte(&b, 0);
	header_body(&b, 1000000000, 0, 0);
	section(&c.log, 'H', &b, (uint64_t)-1);
	c.want_err = RPL_EUNSUPPORTED; /* more parameters than this reader knows: a newer writer */
	refuse(&c);

	memset(&c, 0, sizeof c);
	c.what = "player name of 10^9 bytes";
	magic(&c.log);
	memset(&b, 0, sizeof b);
	byte(&b, 0);
	header_body(&b, RPL_P_COUNT, 1000000000, 0);
	section(&c.log, 'H', &b, (uint64_t)-1);
	c.want_err = RPL_ECORRUPT;
	refuse(&c);

	/* deflated headers */
	memset(&c, 0, sizeof c);
	c.what = "deflated header declaring 2^40 bytes";
	magic(&c.log);
	memset(&b, 0, sizeof b);
	byte(&b, 1);
	varint(&b, (uint64_t)1 << 40);
	{
		uLongf zn = sizeof raw;
		compress2(raw, &zn, (const Bytef *)"x", 1, 9);
		put(&b, raw, zn);
	}
	section(&c.log, 'H', &b, (uint64_t)-1);
	c.want_err = RPL_ECORRUPT;
	refuse(&c);

	memset(&c, 0, sizeof c);
	c.what = "deflated header: 64 MiB of zeros declared as 256 KiB";
	magic(&c.log);
	{
		/* a deflate bomb: 64 MiB of zeros compress to ~64 KiB; build it with a stream */
		static uint8_t zeros[1 << 16], z[1 << 17];
		z_stream s;
		memset(&s, 0, sizeof s);
		deflateInit(&s, 9);
		s.next_out = z;
		s.avail_out = sizeof z;
		for (int k = 0; k < 1024; k++) {
			s.next_in = zeros;
			s.avail_in = sizeof zeros;
			deflate(&s, k == 1023 ? Z_FINISH : Z_NO_FLUSH);
		}
		memset(&b, 0, sizeof b);
		byte(&b, 1);
		varint(&b, 1u << 18);
		{
			/* the section is bigger than struct out holds: frame it by hand */
			size_t zn = sizeof z - s.avail_out;
			static struct crafted big;
			uint8_t *all = malloc(16 + b.n + zn + 8);
			size_t n = 0;
			struct out len = { .n = 0 };
			uLong crc;
			rpl_reader *rd = NULL;
			rpl_event ev;
			int err, got = 0;
			varint(&len, b.n + zn);
			memcpy(all,
			       "\x89"
			       "BRP\r\n\x1a\n",
			       8);
			n = 8;
			all[n++] = 'H';
			memcpy(all + n, len.p, len.n);
			n += len.n;
			memcpy(all + n, b.p, b.n);
			n += b.n;
			memcpy(all + n, z, zn);
			n += zn;
			crc = crc32(0L, Z_NULL, 0);
			crc = crc32(crc, all + 8, (uInt)(n - 8));
			for (int k = 0; k < 4; k++)
				all[n++] = (uint8_t)(crc >> (8 * k));
			deflateEnd(&s);
			(void)big;
			largest = 0;
			err = rpl_reader_open_memory(&rd, all, n);
			got = err ? err : rpl_reader_next(rd, &ev);
			printf("%-58s %-34s largest allocation %7zu bytes (a %zu-byte log): %s\n",
			       "deflated header: 64 MiB of zeros declared as 256 KiB", rpl_strerror(got), largest, n,
			       rd ? rpl_reader_errmsg(rd) : "");
			if (err != RPL_ECORRUPT)
				failf("deflate bomb: %s", rpl_strerror(err));
			if (largest > n + (300u << 10))
				failf("deflate bomb: an allocation of %zu bytes", largest);
			rpl_reader_free(rd);
			free(all);
		}
	}

	/* decision counts */
	memset(&c, 0, sizeof c);
	c.what = "deal claiming 2^20 decisions in 3 bytes";
	magic(&c.log);
	header(&c.log);
	memset(&pay, 0, sizeof pay);
	varint(&pay, 1);
	varint(&pay, 1u << 20);
	put(&pay, "\0\0\0", 3);
	section(&c.log, 'D', &pay, (uint64_t)-1);
	c.want_err = RPL_ECORRUPT;
	refuse(&c);

	memset(&c, 0, sizeof c);
	c.what = "deal claiming 2^40 decisions";
	magic(&c.log);
	header(&c.log);
	memset(&pay, 0, sizeof pay);
	varint(&pay, 1);
	varint(&pay, (uint64_t)1 << 40);
	section(&c.log, 'D', &pay, (uint64_t)-1);
	c.want_err = RPL_ECORRUPT;
	refuse(&c);

	memset(&c, 0, sizeof c);
	c.what = "deal numbered 2^40";
	magic(&c.log);
	header(&c.log);
	memset(&pay, 0, sizeof pay);
	varint(&pay, (uint64_t)1 << 40);
	varint(&pay, 0);
	section(&c.log, 'D', &pay, (uint64_t)-1);
	c.want_err = RPL_ECORRUPT;
	refuse(&c);

	memset(&c, 0, sizeof c);
	c.what = "claim for deal 2^40";
	magic(&c.log);
	header(&c.log);
	memset(&pay, 0, sizeof pay);
	varint(&pay, (uint64_t)1 << 40);
	varint(&pay, 0);
	varint(&pay, 0);
	section(&c.log, 'C', &pay, (uint64_t)-1);
	c.want_err = RPL_ECORRUPT;
	refuse(&c);
}

/*
 * A real deal whose decision count is rewritten to 2^20 (the limit), its CRC
 * made right: the decoder must stop at the end of the stream, at once.
 */
static void absurd_count(const char *dir)
{
	char path[4096];
	size_t n = 0, pos = 8;
	uint8_t *log;
	static struct crafted c;

	snprintf(path, sizeof path, "%s/stbl-2p.brp", dir);
	log = slurp(path, &n);
	if (!log)
		return;
	memset(&c, 0, sizeof c);
	c.what = "a sample's first deal claiming 2^20 decisions";
	while (pos < n) {
		uint8_t type = log[pos];
		uint64_t len = 0;
		int shift = 0;
		size_t q = pos + 1;
		while (log[q] & 0x80) {
			len |= (uint64_t)(log[q++] & 0x7F) << shift;
			shift += 7;
		}
		len |= (uint64_t)log[q++] << shift;
		if (type == 'D') {
			struct out pay = { .n = 0 };
			size_t k = q;
			while (log[k] & 0x80) /* the deal number */
				k++;
			k++;
			put(&pay, log + q, k - q);
			varint(&pay, 1u << 20);
			while (log[k] & 0x80) /* the count */
				k++;
			k++;
			put(&pay, log + k, (size_t)len - (k - q));
			put(&c.log, log, pos);
			section(&c.log, 'D', &pay, (uint64_t)-1);
			break;
		}
		pos = q + (size_t)len + 4;
	}
	free(log);
	if (!c.log.n) {
		failf("%s: no deal section", path);
		return;
	}
	c.want_err = RPL_ECORRUPT;
	refuse(&c);
}

/* A file larger than the 64 MiB limit (sparse): refused before it is read. */
static void huge_file(void)
{
	char path[] = "/tmp/brp-damaged.XXXXXX";
	int fd = mkstemp(path);
	rpl_reader *rd = NULL;
	int err;

	if (fd < 0 || ftruncate(fd, (64 << 20) + 1) != 0) {
		failf("cannot make a sparse file");
		return;
	}
	close(fd);
	largest = 0;
	err = rpl_reader_open(&rd, path);
	printf("%-58s %-34s largest allocation %7zu bytes: %s\n", "file of 64 MiB + 1 byte (sparse)", rpl_strerror(err),
	       largest, rd ? rpl_reader_errmsg(rd) : "");
	if (err != RPL_ELIMIT)
		failf("a 64 MiB + 1 file: %s, not %s", rpl_strerror(err), rpl_strerror(RPL_ELIMIT));
	if (largest > (1u << 20))
		failf("a 64 MiB + 1 file: an allocation of %zu bytes", largest);
	rpl_reader_free(rd);
	unlink(path);
}

int main(int argc, char **argv)
{
	struct tally t = { 0 };
	int files = 0;
	struct stat st;

	setvbuf(stdout, NULL, _IOLBF, 0);
	crafted();
	huge_file();
	if (argc > 1)
		absurd_count(argv[1]);
	for (int i = 1; i < argc; i++)
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
			files += samples(argv[i], &t);
	printf("%d logs: %ld cuts (%ld between sections: %ld incomplete, %ld ok or mismatch with every decision), "
	       "%ld bit flips; %ld cuts and flips after the first illegal decision of an illegal log; %ld flips that "
	       "undo the damage of a damaged sample\n",
	       files, t.cuts, t.cut_incomplete + t.cut_ok, t.cut_incomplete, t.cut_ok, t.flips, t.same_illegal, t.repairs);
	if (files == 0)
		failf("no .brp in the directories given");
	printf("%d failures\n", failures);
	return failures ? 1 : 0;
}
