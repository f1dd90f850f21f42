/*
 * The range coder of the payload (docs/format.md, section 6): the byte
 * buffers streams are written into, and where a stream starts and ends.
 * The coding of bits and symbols is codec_impl.h's.
 */
#include <stdlib.h>
#include <string.h>

#include "log/codec_impl.h"

/* ---- byte buffers ---- */

void rpl__buf_put(struct buf *b, const void *data, size_t n)
{
	if (b->oom || n == 0)
		return; /* nothing to add: data may then be NULL, which memcpy may not be given */
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		uint8_t *p;
		while (cap < b->n + n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->oom = 1;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, data, n);
	b->n += n;
}

void rpl__buf_byte(struct buf *b, uint8_t v)
{
	if (b->n < b->cap && !b->oom)
		b->p[b->n++] = v;
	else
		rpl__buf_put(b, &v, 1);
}

void rpl__buf_varint(struct buf *b, uint64_t v)
{
	while (v >= 0x80) {
		rpl__buf_byte(b, (uint8_t)(v | 0x80));
		v >>= 7;
	}
	rpl__buf_byte(b, (uint8_t)v);
}

void rpl__buf_free(struct buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* ---- range coder ---- */

void rpl__rc_enc_init(struct rc_enc *e, struct buf *out)
{
	e->out = out;
	e->start = out->n;
	e->low = 0;
	e->range = 0xFFFFFFFFu;
	e->cache = 0;
	e->pending = 1;
	e->skip = 1;
}

/*
 * How far above low the stream's value lies at its end: of the values in
 * [low, low + range), which all decode the same, the one with the most
 * trailing zero bits (range >= 2^24, so at least 24 of them).
 */
static uint32_t end_offset(uint32_t low, uint32_t range)
{
	for (int k = 32; k > 0; k--) {
		uint32_t mask = k == 32 ? 0xFFFFFFFFu : (1u << k) - 1, off = (0u - low) & mask;
		if (off <= range - 1)
			return off;
	}
	return 0;
}

/*
 * The shortest end: that value, whose zero bytes at the end are not stored
 * (a decoder reads zeros past the stream).
 */
void rpl__rc_enc_finish(struct rc_enc *e)
{
	e->low += end_offset((uint32_t)e->low, e->range);
	for (int i = 0; i < 5; i++)
		shift_low(e);
	while (e->out->n > e->start && !e->out->oom && e->out->p[e->out->n - 1] == 0)
		e->out->n--;
}

void rpl__rc_dec_init(struct rc_dec *d, const uint8_t *p, size_t n)
{
	d->p = p;
	d->n = n;
	d->pos = 0;
	d->bad = 0;
	d->low = 0;
	d->range = 0xFFFFFFFFu;
	d->code = 0;
	for (int i = 0; i < 4; i++)
		d->code = (d->code << 8) | next_byte(d);
}

/*
 * The stream is exactly what an encoder writes for what was decoded: every
 * byte read, none of its zero bytes at the end stored, and its value the
 * one the encoder ends with (so a log's bytes are unique for its content).
 */
int rpl__rc_dec_done(const struct rc_dec *d)
{
	return !d->bad && d->pos >= d->n && (d->n == 0 || d->p[d->n - 1] != 0) && d->code == end_offset(d->low, d->range);
}
