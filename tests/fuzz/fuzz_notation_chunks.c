/*
 * The text notation fed in small pieces (cmark's habit): byte 0 says how to
 * cut, the rest is the text. rpl_notation_import_stream() reads it through a
 * callback that hands out pieces of 1 to 2^k bytes (k and the sequence of
 * sizes from byte 0), so that lines, CR LF pairs, escapes and the line limit
 * straddle the pieces' ends. Checked:
 *   - fed in pieces, the import gives what rpl_notation_import() gives for
 *     the whole text: the same code, the same message, the same log bytes;
 *   - with bit 7 of byte 0 set, the callback fails (RPL_EIO) half way: the
 *     import returns that error (or an error of the text before it) and
 *     leaves no file behind.
 */
#include "fuzz.h"

#include <string.h>
#include <unistd.h>

#include <libreplay/libreplay.h>

struct pieces {
	const uint8_t *p;
	size_t n, pos;
	size_t fail_at;   /* the callback fails once pos reaches it; SIZE_MAX: never */
	unsigned max_log; /* pieces of 1 to 2^max_log bytes */
	uint32_t state;   /* xorshift32: the sizes */
};

static ptrdiff_t feed(void *ud, char *buf, size_t n)
{
	struct pieces *c = ud;
	size_t k;

	FUZZ_CHECK(buf && n > 0);
	if (c->pos >= c->fail_at)
		return RPL_EIO;
	c->state ^= c->state << 13;
	c->state ^= c->state >> 17;
	c->state ^= c->state << 5;
	k = 1 + (c->state & ((1u << c->max_log) - 1));
	if (k > n)
		k = n;
	if (k > c->n - c->pos)
		k = c->n - c->pos;
	if (c->fail_at != (size_t)-1 && k > c->fail_at - c->pos)
		k = c->fail_at - c->pos;
	memcpy(buf, c->p + c->pos, k);
	c->pos += k;
	return (ptrdiff_t)k;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	*len = 0;
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n > 0 ? (size_t)n : 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* Neither path nor its temporary file exists. */
static int gone(const char *path)
{
	char part[320];

	snprintf(part, sizeof part, "%s.part~", path);
	return access(path, F_OK) != 0 && access(part, F_OK) != 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char whole[300], cut[300], err1[400], err2[400];
	struct pieces c;
	int rc1, rc2;

	if (size < 1 || size > 1 << 20)
		return 0; /* a text of a match is a few KiB; the line limit is 64 KiB */
	memset(&c, 0, sizeof c);
	c.p = data + 1;
	c.n = size - 1;
	c.max_log = data[0] & 7;
	c.state = 0x9e3779b9u ^ ((uint32_t)data[0] << 8) ^ (uint32_t)size;
	c.fail_at = data[0] & 0x80 ? c.n / 2 : (size_t)-1;
	fuzz_tmp_path("whole.brp", whole, sizeof whole);
	fuzz_tmp_path("pieces.brp", cut, sizeof cut);

	rc2 = rpl_notation_import_stream(feed, &c, cut, err2, sizeof err2);
	if (c.fail_at != (size_t)-1) {
		/* the text before the failure may be refused first; otherwise the failure is the answer */
		FUZZ_CHECK(rc2 < 0 && gone(cut));
		if (rc2 != RPL_EIO)
			FUZZ_CHECK(err2[0] != '\0');
		return 0;
	}
	FUZZ_CHECK(c.pos == c.n || rc2 < 0); /* read to the end unless it stopped on an error */
	rc1 = rpl_notation_import((const char *)c.p, c.n, whole, err1, sizeof err1);
	FUZZ_CHECK(rc1 == rc2);
	if (rc1 < 0) {
		FUZZ_CHECK(strcmp(err1, err2) == 0);
		FUZZ_CHECK(gone(whole) && gone(cut));
	} else {
		size_t n1, n2;
		uint8_t *b1 = slurp(whole, &n1), *b2 = slurp(cut, &n2);
		FUZZ_CHECK(b1 && b2 && n1 == n2 && memcmp(b1, b2, n1) == 0);
		free(b1);
		free(b2);
	}
	remove(whole);
	remove(cut);
	return 0;
}
