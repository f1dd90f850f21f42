/*
 * Private: well-formed UTF-8, for the writers of JSON (which must be UTF-8
 * whatever bytes a log's names hold).
 */
#ifndef RPL_UTF8_H
#define RPL_UTF8_H

#include <stddef.h>

/*
 * The length of the well-formed UTF-8 sequence at p (RFC 3629: no overlong
 * form, no surrogate, at most U+10FFFF), else 0. p is NUL-terminated: a NUL
 * fails the first test that reaches it, and a NUL itself gives 0.
 */
static inline size_t rpl__utf8_len(const unsigned char *p)
{
	unsigned c = p[0], lo = 0x80, hi = 0xbf;
	size_t n;

	if (c < 0x80)
		return c ? 1 : 0;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		lo = c == 0xe0 ? 0xa0 : 0x80;
		hi = c == 0xed ? 0x9f : 0xbf;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		lo = c == 0xf0 ? 0x90 : 0x80;
		hi = c == 0xf4 ? 0x8f : 0xbf;
	} else {
		return 0;
	}
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

#endif
