/*
 * The contexts of the decisions' model (docs/format.md 9.2, 20.1): what a
 * hand could do, as functions of the card bookkeeping only. codec_decide.c
 * codes with them; brp-model-lab (tools/bench/model_lab.c) measures other
 * models beside them, with these same functions.
 */
#ifndef RPL_CODEC_CONTEXT_H
#define RPL_CODEC_CONTEXT_H

#include "log/codec_impl.h"

/* Ranks one or two away from some rank of m (bits 1..14). */
static inline uint16_t within2(uint16_t m)
{
	return (uint16_t)((m << 1) | (m >> 1) | (m << 2) | (m >> 2));
}

/* The natural faces of a hand with a card of their suit one or two ranks away. */
static inline uint64_t connected(const struct track *t, int seat)
{
	const uint16_t *sm = t->ranks[seat];
	uint64_t f = 0;
	for (int s = 0; s < 4; s++)
		f |= rank_faces(s, within2(sm[s]));
	return f & t->fmask[seat] & ~WILD_FACES;
}

/*
 * Version 6: the natural faces of the hand that could start a run laid
 * now: with the next rank of their suit and the one after it, or one of them
 * and a wild in the hand; and without the rank below (else the run would
 * start lower). A meld's first card in ascending order is mostly one.
 */
static inline uint64_t run_starts(const struct track *t, int seat)
{
	/* the four suits' masks side by side, 16 bits each (as near_run); bit 15 is never set, bit 0 neither */
	const uint16_t *sm = t->ranks[seat];
	uint64_t a = (uint64_t)sm[0] | (uint64_t)sm[1] << 16 | (uint64_t)sm[2] << 32 | (uint64_t)sm[3] << 48;
	uint64_t st = a & ~(a << 1) & ((t->fmask[seat] & WILD_FACES) ? a >> 1 | a >> 2 : a >> 1 & a >> 2);

	/* no start has rank bit 14 (a row above it would need bits 15 and 16): bits 1..13 are the faces */
	st = (st >> 1 & 0x1FFF) | (st >> 4 & 0x1FFFull << 13) | (st >> 7 & 0x1FFFull << 26) | (st >> 10 & 0x1FFFull << 39);
	return st & ~WILD_FACES;
}

/*
 * Some suit holds three cards within four ranks, or two and the hand has a
 * wild: the four suits' rank masks side by side in one word, 16 bits each.
 */
static inline int near_run(const struct track *t, int seat)
{
	const uint16_t *sm = t->ranks[seat];
	uint64_t a = (uint64_t)sm[0] | (uint64_t)sm[1] << 16 | (uint64_t)sm[2] << 32 | (uint64_t)sm[3] << 48;
	uint64_t b = a >> 1, c = a >> 2, d = a >> 3, three, two;

	/* windows of four ranks lo..lo+3, lo = 1..11 in each suit: a, b, c, d are the four bits */
	three = (a & b & c) | (a & b & d) | (a & c & d) | (b & c & d);
	two = (a & b) | (a & c) | (a & d) | (b & c) | (b & d) | (c & d);
	if (!(t->fmask[seat] & WILD_FACES))
		two = 0;
	return ((three | two) & 0x0FFE0FFE0FFE0FFEull) != 0;
}

/*
 * Could the pile's top card be laid with the hand: a wild when the side has
 * melds, one rank beyond a meld of the side, or a run of three within four
 * ranks of its suit with cards of the hand (two and a wild of the hand)?
 */
static inline int top_fits(const struct track *t, int seat)
{
	rpl_card top = t->pile[t->pile_n - 1];
	uint32_t own, m, at, one, two;
	int s, r, wilds = (t->fmask[seat] & WILD_FACES) != 0;

	if ((WILD_FACES >> top) & 1)
		return t->nmelds[seat & 1] > 0;
	if ((t->extf[seat & 1] >> top) & 1)
		return 1;
	s = RPL_CARD_SUIT(top);
	r = RPL_CARD_RANK(top);
	own = 1u << r | (r == 1 ? 1u << 14 : 0);
	m = t->ranks[seat][s] & ~own;
	/*
	 * windows lo..lo+3 (lo = 1..11) that hold the top card, each at its bit
	 * lo: does it hold one of the hand's cards, or two? (as near_run, all
	 * windows at once)
	 */
	at = own | own >> 1 | own >> 2 | own >> 3;
	one = m | m >> 1 | m >> 2 | m >> 3;
	two = (m & m >> 1) | (m & m >> 2) | (m & m >> 3) | (m >> 1 & m >> 2) | (m >> 1 & m >> 3) | (m >> 2 & m >> 3);
	return ((wilds ? one : two) & at & 0x0FFEu) != 0;
}

/*
 * Version 6: does the card the seat just drew fit? 2: it extends a meld of
 * its side (or is a wild and the side has melds); 1: it is one of three
 * ranks in a row of its suit in the hand (or a wild, the side without
 * melds); 0: not. A turn that draws and then lays cards mostly lays what
 * the card drawn made possible. Called only where the turn has drawn and
 * last_drawn >= 0: then the last decision was this seat's draw or reject,
 * and the card is still in its hand (any other decision forgets it).
 */
static inline int drawn_fits(const struct track *t, int seat)
{
	int d = t->last_drawn;
	uint32_t own, m, three;

	if ((WILD_FACES >> d) & 1)
		return t->nmelds[seat & 1] > 0 ? 2 : 1;
	if ((t->extf[seat & 1] >> d) & 1)
		return 2;
	/* bit lo of three: ranks lo, lo+1, lo+2 all held; a row through the card starts two ranks below it at most */
	own = rank_bits_of[d];
	m = t->ranks[seat][RPL_CARD_SUIT(d)];
	three = m & m >> 1 & m >> 2;
	return (three & (own | own >> 1 | own >> 2)) != 0;
}

/*
 * The discard order: how much a player would want to keep each face of the
 * hand, from the bookkeeping alone. Lowest first; ties by face.
 */
static inline int keep_score(const struct track *t, int seat, rpl_card x)
{
	static const uint8_t value[14] = { 0, 3, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2 };
	uint32_t m, r, near1, near2;
	int score;

	if ((WILD_FACES >> x) & 1)
		return 1000;
	m = t->ranks[seat][RPL_CARD_SUIT(x)];
	r = (uint32_t)RPL_CARD_RANK(x);
	/* ranks one and two away; an ace is also 14, so a king is one away and a queen two */
	near1 = ((m << 1) >> r & 1) + (m >> (r + 1) & 1);
	near2 = (r > 2 ? m >> (r - 2) & 1 : 0) + (m >> (r + 2) & 1);
	if (r == 1) {
		near1 += m >> 13 & 1;
		near2 += m >> 12 & 1;
	}
	score = (int)(40 * near1 + 15 * near2);
	if ((t->extf[seat & 1] >> x) & 1)
		score += 200;
	if ((t->extf[!(seat & 1)] >> x) & 1)
		score += 60;
	return score - value[r];
}

#endif
