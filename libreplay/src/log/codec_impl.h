/*
 * Private: what the files of the payload codec (docs/format.md, sections 6
 * to 9) share. The codec is cut as the spec is, one section a file, each
 * file calling only those listed before it:
 *
 *   codec_rc.c      section 6, the range coder: byte buffers, where a stream starts and ends
 *   codec_layout.c  section 7, the layout: a deal's hands, mortos and stock
 *   codec_track.c   section 8, the card bookkeeping (struct track)
 *   codec_decide.c  section 9, the decisions: the model, its contexts from codec_context.h
 *
 * The coding of one bit or one symbol runs millions of times a second and
 * is here as static inline functions, so that the cut costs no call; the
 * rest of the library sees only codec.h.
 */
#ifndef RPL_CODEC_IMPL_H
#define RPL_CODEC_IMPL_H

#include "log/codec.h"

/* ---- the range coder (docs/format.md, section 6) ---- */

#define TOP (1u << 24)
#define PBITS 11
#define PONE (1u << PBITS)
#define PINIT (PONE / 2)

/* The first byte a coder emits is always 0 and is not stored. */
static inline void emit(struct rc_enc *e, uint8_t b)
{
	if (e->skip)
		e->skip = 0;
	else
		rpl__buf_byte(e->out, b);
}

static inline void shift_low(struct rc_enc *e)
{
	if ((uint32_t)e->low < 0xFF000000u || (e->low >> 32) != 0) {
		uint8_t carry = (uint8_t)(e->low >> 32);
		uint8_t temp = e->cache;
		do {
			emit(e, (uint8_t)(temp + carry));
			temp = 0xFF;
		} while (--e->pending != 0);
		e->cache = (uint8_t)(e->low >> 24);
	}
	e->pending++;
	e->low = (uint32_t)e->low << 8;
}

static inline void enc_norm(struct rc_enc *e)
{
	while (e->range < TOP) {
		e->range <<= 8;
		shift_low(e);
	}
}

/*
 * An adaptive probability: 11 bits of P(0) and, above them, how many bits
 * it has seen (counting stops at 6). It learns fast at first, then
 * steadily: after n bits it moves 1/2^rate_of[n] of the way to the bit seen.
 * (A match is short, so what a model costs to learn matters.)
 */
static inline uint16_t adapt(uint16_t v, int bit)
{
	static const uint8_t rate_of[7] = { 1, 2, 2, 3, 3, 3, 4 };
	/* the count's step in place (none at 6); p stays below PONE, so it never carries into the count */
	static const uint16_t count_step[7] = { PONE, PONE, PONE, PONE, PONE, PONE, 0 };
	uint32_t p = v & (PONE - 1), n = v >> PBITS, r = rate_of[n];
	v = (uint16_t)(v + count_step[n]);
	return (uint16_t)(bit ? v - (p >> r) : v + ((PONE - p) >> r));
}

static inline void enc_bit(struct rc_enc *e, uint16_t *p, int bit)
{
	uint32_t bound = (e->range >> PBITS) * (*p & (PONE - 1));
	if (!bit) {
		e->range = bound;
	} else {
		e->low += bound;
		e->range -= bound;
	}
	*p = adapt(*p, bit);
	enc_norm(e);
}

/* A bit with a fixed 12-bit probability p12 of being 0. */
static inline void enc_fixed(struct rc_enc *e, uint32_t p12, int bit)
{
	uint32_t bound = (e->range >> 12) * p12;
	if (!bit) {
		e->range = bound;
	} else {
		e->low += bound;
		e->range -= bound;
	}
	enc_norm(e);
}

/* A symbol of frequency f starting at cumulative frequency cum, out of tot (<= 2^16). */
static inline void enc_freq(struct rc_enc *e, uint32_t cum, uint32_t f, uint32_t tot)
{
	uint32_t r = e->range / tot;
	e->low += (uint64_t)r * cum;
	e->range = r * f;
	enc_norm(e);
}

/* Past the end of its bytes a stream reads as zeros (section 6.4 of docs/format.md). */
static inline uint8_t next_byte(struct rc_dec *d)
{
	return d->pos < d->n ? d->p[d->pos++] : (d->pos++, 0);
}

static inline void dec_norm(struct rc_dec *d)
{
	while (d->range < TOP) {
		d->range <<= 8;
		d->low <<= 8;
		d->code = (d->code << 8) | next_byte(d);
	}
}

static inline int dec_bit(struct rc_dec *d, uint16_t *p)
{
	uint32_t bound = (d->range >> PBITS) * (*p & (PONE - 1));
	int bit;
	if (d->code < bound) {
		d->range = bound;
		bit = 0;
	} else {
		d->code -= bound;
		d->low += bound;
		d->range -= bound;
		bit = 1;
	}
	*p = adapt(*p, bit);
	dec_norm(d);
	return bit;
}

static inline int dec_fixed(struct rc_dec *d, uint32_t p12)
{
	uint32_t bound = (d->range >> 12) * p12;
	int bit;
	if (d->code < bound) {
		d->range = bound;
		bit = 0;
	} else {
		d->code -= bound;
		d->low += bound;
		d->range -= bound;
		bit = 1;
	}
	dec_norm(d);
	return bit;
}

/*
 * The cumulative frequency a decoder falls on, out of tot; the caller finds
 * the symbol there and calls dec_freq_take. A value no encoder writes (past
 * tot) marks the stream bad.
 */
static inline uint32_t dec_freq_at(struct rc_dec *d, uint32_t tot, uint32_t *r)
{
	uint32_t v;
	*r = d->range / tot;
	v = d->code / *r;
	if (v >= tot) {
		d->bad = 1;
		v = tot - 1;
	}
	return v;
}

static inline void dec_freq_take(struct rc_dec *d, uint32_t r, uint32_t cum, uint32_t f)
{
	d->code -= r * cum;
	d->low += r * cum;
	d->range = r * f;
	dec_norm(d);
}

/* ---- the bookkeeping's rank masks (section 8), for the decisions' contexts too ---- */

/* The faces that can be wild: the four 2s and the joker. */
#define WILD_FACES (1ull << 1 | 1ull << 14 | 1ull << 27 | 1ull << 40 | 1ull << RPL_JOKER)

/*
 * The rank bit of each face in the bookkeeping's masks: bit r for rank r,
 * an ace bits 1 and 14, the joker none (a table: the bookkeeping runs on
 * every card that moves, and a face's rank is a division by 13).
 */
/* clang-format off */ /* a suit a row: A (bits 1 and 14), 2 .. K; the joker */
static const uint16_t rank_bits_of[RPL_NFACES] = {
	0x4002, 0x0004, 0x0008, 0x0010, 0x0020, 0x0040, 0x0080, 0x0100, 0x0200, 0x0400, 0x0800, 0x1000, 0x2000,
	0x4002, 0x0004, 0x0008, 0x0010, 0x0020, 0x0040, 0x0080, 0x0100, 0x0200, 0x0400, 0x0800, 0x1000, 0x2000,
	0x4002, 0x0004, 0x0008, 0x0010, 0x0020, 0x0040, 0x0080, 0x0100, 0x0200, 0x0400, 0x0800, 0x1000, 0x2000,
	0x4002, 0x0004, 0x0008, 0x0010, 0x0020, 0x0040, 0x0080, 0x0100, 0x0200, 0x0400, 0x0800, 0x1000, 0x2000,
	0
};
/* clang-format on */

/* The faces of suit s whose rank is in m (bits 1..13; bit 14 is the ace). */
static inline uint64_t rank_faces(int s, uint16_t m)
{
	return (uint64_t)(((m >> 1) & 0x1FFFu) | ((m >> 14) & 1u)) << (13 * s);
}

#endif
