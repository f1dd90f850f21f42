/*
 * The .brp payload codec: range coder, card bookkeeping, and the models of
 * a deal's layout and decisions. docs/format.md specifies every step; a
 * change here is a change of the format.
 */
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "binom.h"
#include "bits.h"

/* ---- byte buffers ---- */

void rpl__buf_put(struct buf *b, const void *data, size_t n)
{
	if (b->oom)
		return;
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

#define TOP (1u << 24)
#define PBITS 11
#define PONE (1u << PBITS)
#define PINIT (PONE / 2)

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

/* The first byte a coder emits is always 0 and is not stored. */
static void emit(struct rc_enc *e, uint8_t b)
{
	if (e->skip)
		e->skip = 0;
	else
		rpl__buf_byte(e->out, b);
}

static void shift_low(struct rc_enc *e)
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

static void enc_norm(struct rc_enc *e)
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
static const uint8_t rate_of[7] = { 1, 2, 2, 3, 3, 3, 4 };

static inline uint16_t adapt(uint16_t v, int bit)
{
	uint32_t p = v & (PONE - 1), n = v >> PBITS, r = rate_of[n];
	if (!bit)
		p += (PONE - p) >> r;
	else
		p -= p >> r;
	return (uint16_t)((n < 6 ? n + 1 : n) << PBITS | p);
}

static void enc_bit(struct rc_enc *e, uint16_t *p, int bit)
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
static void enc_fixed(struct rc_enc *e, uint32_t p12, int bit)
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
static void enc_freq(struct rc_enc *e, uint32_t cum, uint32_t f, uint32_t tot)
{
	uint32_t r = e->range / tot;
	e->low += (uint64_t)r * cum;
	e->range = r * f;
	enc_norm(e);
}

/* Past the end of its bytes a stream reads as zeros (section 6.4 of docs/format.md). */
static uint8_t next_byte(struct rc_dec *d)
{
	return d->pos < d->n ? d->p[d->pos++] : (d->pos++, 0);
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
	return !d->bad && d->pos >= d->n && (d->n == 0 || d->p[d->n - 1] != 0) &&
	       d->code == end_offset(d->low, d->range);
}

static void dec_norm(struct rc_dec *d)
{
	while (d->range < TOP) {
		d->range <<= 8;
		d->low <<= 8;
		d->code = (d->code << 8) | next_byte(d);
	}
}

static int dec_bit(struct rc_dec *d, uint16_t *p)
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

static int dec_fixed(struct rc_dec *d, uint32_t p12)
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
static uint32_t dec_freq_at(struct rc_dec *d, uint32_t tot, uint32_t *r)
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

static void dec_freq_take(struct rc_dec *d, uint32_t r, uint32_t cum, uint32_t f)
{
	d->code -= r * cum;
	d->low += r * cum;
	d->range = r * f;
	dec_norm(d);
}

/* ---- the layout ---- */

static void deck_counts(uint8_t *cnt)
{
	for (rpl_card c = 0; c < RPL_NFACES; c++)
		cnt[c] = (uint8_t)rpl_card_copies(c);
}

static void sort_cards(rpl_card *c, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && c[j - 1] > c[j]; j--) {
			rpl_card t = c[j];
			c[j] = c[j - 1];
			c[j - 1] = t;
		}
}

/*
 * A hand is a set: for each face in id order, how many copies of it the hand
 * holds, x, is coded with its exact probability given what is left of the
 * deck (R cards, c of this face, k still to deal to the hand):
 * P(x) = C(c,x) C(R-c,k-x) / C(R,k), as a chain of bits "x > j".
 */
/* C(n, k); the layout's callers stay within n <= 108, 0 <= k <= 11 (the deck's counts, not the stream's). */
static inline uint64_t binom(int n, int k)
{
	return binom_table[n][k];
}

static int code_hand(struct rc_enc *e, struct rc_dec *d, uint8_t *cnt, int *left, uint8_t *hand)
{
	int k = RPL_HAND_SIZE;

	for (int f = 0; f < RPL_NFACES && k > 0; f++) {
		int c = cnt[f], max = c < k ? c : k, x = e ? hand[f] : 0, j;
		uint64_t tail = binom(*left, k); /* the sum of w(j) over j = 0..max (Vandermonde) */
		for (j = 0; j < max; j++) {
			uint64_t w = binom(c, j) * binom(*left - c, k - j);
			int more;
			if (w == 0) {
				more = 1;
			} else if (w == tail) {
				more = 0;
			} else {
				uint64_t p = (w << 12) / tail;
				uint32_t p12 = p < 1 ? 1 : (p > 4095 ? 4095 : (uint32_t)p);
				more = x > j;
				if (e)
					enc_fixed(e, p12, more);
				else if (d)
					more = dec_fixed(d, p12);
			}
			if (!more)
				break;
			tail -= w;
		}
		if (e && j != x)
			return -1;
		x = j;
		if (x > c)
			return -1;
		cnt[f] = (uint8_t)(cnt[f] - x);
		*left -= c;
		k -= x;
		if (!e)
			hand[f] = (uint8_t)x;
	}
	return k == 0 ? 0 : -1;
}

/*
 * What is left of the deck: copies of each face, and of each suit's 13
 * faces (the joker alone in the fifth group), and cards in all.
 */
struct deck {
	uint8_t cnt[RPL_NFACES];
	uint8_t group[5];
	int left;
};

static void deck_rest(struct deck *k, const uint8_t *cnt, int left)
{
	memcpy(k->cnt, cnt, RPL_NFACES);
	memset(k->group, 0, sizeof(k->group));
	for (int f = 0; f < RPL_NFACES; f++)
		k->group[f / 13] = (uint8_t)(k->group[f / 13] + cnt[f]);
	k->left = left;
}

/* A card of the rest of the deck, with its exact probability: cnt[c] / left. */
static void enc_card(struct rc_enc *e, struct deck *k, rpl_card c)
{
	uint32_t cum = 0;
	for (rpl_card f = 0; f < c; f++)
		cum += k->cnt[f];
	enc_freq(e, cum, k->cnt[c], (uint32_t)k->left);
	k->cnt[c]--;
	k->group[c / 13]--;
	k->left--;
}

static rpl_card dec_card(struct rc_dec *d, struct deck *k)
{
	uint32_t r, v = dec_freq_at(d, (uint32_t)k->left, &r), cum = 0;
	int g = 0, f;

	while (g < 4 && cum + k->group[g] <= v)
		cum += k->group[g++];
	f = 13 * g;
	while (f < RPL_NFACES - 1 && cum + k->cnt[f] <= v)
		cum += k->cnt[f++];
	if (!k->cnt[f]) { /* only a bad stream gets here: the deck is exhausted past v */
		d->bad = 1;
		return 0;
	}
	dec_freq_take(d, r, cum, k->cnt[f]);
	k->cnt[f]--;
	k->group[f / 13]--;
	k->left--;
	return (rpl_card)f;
}

void rpl__enc_layout(struct rc_enc *e, int nplayers, const rpl_layout *lay)
{
	struct deck k;
	uint8_t cnt[RPL_NFACES], h[RPL_NFACES];
	int left = RPL_DECK_SIZE;

	deck_counts(cnt);
	for (int s = 0; s < nplayers; s++) {
		int rest = left;
		memset(h, 0, sizeof(h));
		for (int i = 0; i < RPL_HAND_SIZE; i++)
			h[lay->hand[s][i]]++;
		code_hand(e, NULL, cnt, &rest, h);
		left -= RPL_HAND_SIZE;
	}
	deck_rest(&k, cnt, left);
	for (int m = 0; m < 2; m++)
		for (int i = 0; i < RPL_MORTO_SIZE; i++)
			enc_card(e, &k, lay->morto[m][i]);
	for (int i = 0; i < RPL_STOCK_SIZE(nplayers); i++)
		enc_card(e, &k, lay->stock[i]);
}

int rpl__dec_layout(struct rc_dec *d, int nplayers, rpl_layout *lay)
{
	struct deck k;
	uint8_t cnt[RPL_NFACES], h[RPL_NFACES];
	int left = RPL_DECK_SIZE;

	memset(lay, 0, sizeof(*lay));
	deck_counts(cnt);
	for (int s = 0; s < nplayers; s++) {
		int rest = left, i = 0;
		memset(h, 0, sizeof(h));
		if (code_hand(NULL, d, cnt, &rest, h) < 0)
			return -1;
		for (int f = 0; f < RPL_NFACES; f++)
			for (int x = 0; x < h[f]; x++)
				lay->hand[s][i++] = (rpl_card)f;
		left -= RPL_HAND_SIZE;
	}
	deck_rest(&k, cnt, left);
	for (int m = 0; m < 2; m++)
		for (int i = 0; i < RPL_MORTO_SIZE; i++)
			lay->morto[m][i] = dec_card(d, &k);
	for (int i = 0; i < RPL_STOCK_SIZE(nplayers); i++)
		lay->stock[i] = dec_card(d, &k);
	return d->bad ? -1 : 0;
}

/* ---- bookkeeping ---- */

static void hand_add(struct track *t, int seat, rpl_card c)
{
	t->fmask[seat] |= 1ull << c;
	t->hand[seat][c]++;
	t->hand_n[seat]++;
	if (c != RPL_JOKER) {
		int r = RPL_CARD_RANK(c);
		t->ranks[seat][RPL_CARD_SUIT(c)] |= (uint16_t)((1u << r) | (r == 1 ? 1u << 14 : 0));
	}
}

static void hand_sub(struct track *t, int seat, rpl_card c)
{
	t->hand[seat][c]--;
	t->hand_n[seat]--;
	if (!t->hand[seat][c])
		t->fmask[seat] &= ~(1ull << c);
	if (c != RPL_JOKER && !t->hand[seat][c]) {
		int r = RPL_CARD_RANK(c);
		t->ranks[seat][RPL_CARD_SUIT(c)] &= (uint16_t)~((1u << r) | (r == 1 ? 1u << 14 : 0));
	}
}

void rpl__track_deal(struct track *t, int nplayers, int dealer, const rpl_layout *lay)
{
	memset(t, 0, sizeof(*t));
	t->n = (uint8_t)nplayers;
	t->seat = (uint8_t)((dealer + 1) % nplayers);
	t->last = -1;
	t->last_drawn = -1;
	for (int s = 0; s < nplayers; s++)
		for (int i = 0; i < RPL_HAND_SIZE; i++)
			hand_add(t, s, lay->hand[s][i]);
	t->src_len = (uint8_t)RPL_STOCK_SIZE(nplayers);
	memcpy(t->src, lay->stock, t->src_len);
	memcpy(t->morto, lay->morto, sizeof(t->morto));
}

int rpl__track_actor(const struct track *t, int kind)
{
	if (kind == RPL_ACT_MORTO && t->last >= 0)
		return t->last;
	return t->seat;
}

static void set_why(char *why, size_t whylen, const char *msg, rpl_card c, int seat)
{
	if (!why || !whylen)
		return;
	if (c < RPL_NFACES) {
		size_t k = strlen(rpl_card_name(c));
		const char *tail = " is not in the hand of seat ";
		if (whylen > k + strlen(tail) + 3) {
			memcpy(why, rpl_card_name(c), k);
			memcpy(why + k, tail, strlen(tail));
			k += strlen(tail);
			why[k++] = (char)('0' + seat);
			why[k] = '\0';
			return;
		}
	}
	strncpy(why, msg, whylen - 1);
	why[whylen - 1] = '\0';
}

/* Draw from the stock; a morto nobody took becomes the stock when it runs out. */
static int track_draw(struct track *t, int seat)
{
	rpl_card c;

	if (t->src_pos >= t->src_len) {
		int m = t->morto_used[0] == 0 ? 0 : (t->morto_used[1] == 0 ? 1 : -1);
		if (m < 0)
			return -1;
		memcpy(t->src, t->morto[m], RPL_MORTO_SIZE);
		t->src_pos = 0;
		t->src_len = RPL_MORTO_SIZE;
		t->morto_used[m] = 2;
	}
	c = t->src[t->src_pos++];
	hand_add(t, seat, c);
	t->last_drawn = c;
	return 0;
}

static int take_cards(struct track *t, int seat, const rpl_action *a, char *why, size_t whylen)
{
	cardset cnt;

	if (a->ncards < 1 || a->ncards > 14) {
		set_why(why, whylen, "a meld decision names 1 to 14 cards", RPL_NFACES, 0);
		return -1;
	}
	memset(cnt, 0, sizeof(cnt));
	for (int i = 0; i < a->ncards; i++) {
		rpl_card c = a->cards[i];
		if (c >= RPL_NFACES || ++cnt[c] > t->hand[seat][c]) {
			set_why(why, whylen, "a decision names a value that is not a card", c, seat);
			return -1;
		}
	}
	for (int i = 0; i < a->ncards; i++)
		hand_sub(t, seat, a->cards[i]);
	return 0;
}

/* Ranks one away from those of m, not in m (an ace is 1 and 14). */
static uint16_t adjacent(uint16_t m)
{
	return (uint16_t)(((m << 1) | (m >> 1)) & ~m);
}

/* Ranks one or two away from some rank of m (bits 1..14). */
static uint16_t within2(uint16_t m)
{
	return (uint16_t)((m << 1) | (m >> 1) | (m << 2) | (m >> 2));
}

/* The faces of suit s whose rank is in m (bits 1..13; bit 14 is the ace). */
static uint64_t rank_faces(int s, uint16_t m)
{
	return (uint64_t)(((m >> 1) & 0x1FFFu) | ((m >> 14) & 1u)) << (13 * s);
}

/*
 * A meld's suit and ranks, for the coder's contexts: from the cards, not from
 * the rules. The suit is that of the lowest natural card, whatever order the
 * caller named the cards in (the decoder sees them ascending).
 */
static void meld_note(struct track *t, int side, int i, const rpl_action *a)
{
	if (t->msuit[side][i] == 4) {
		rpl_card low = RPL_NFACES;
		for (int k = 0; k < a->ncards; k++)
			if (!RPL_IS_WILDCAPABLE(a->cards[k]) && a->cards[k] < low)
				low = a->cards[k];
		if (low != RPL_NFACES)
			t->msuit[side][i] = (uint8_t)RPL_CARD_SUIT(low);
	}
	for (int k = 0; k < a->ncards; k++) {
		rpl_card c = a->cards[k];
		int r;
		if (RPL_IS_WILDCAPABLE(c))
			continue;
		r = RPL_CARD_RANK(c);
		t->mranks[side][i] |= (uint16_t)(1u << r);
		if (r == 1)
			t->mranks[side][i] |= 1u << 14;
	}
	t->extf[side] = 0;
	for (int k = 0; k < t->nmelds[side]; k++)
		if (t->msuit[side][k] < 4)
			t->extf[side] |= rank_faces(t->msuit[side][k], adjacent(t->mranks[side][k]));
}

int rpl__track_apply(struct track *t, const rpl_action *a, char *why, size_t whylen)
{
	int seat = rpl__track_actor(t, a->kind);

	if (a->kind < RPL_ACT_DRAW || a->kind > RPL_ACT_MORTO) {
		set_why(why, whylen, "unknown decision kind", RPL_NFACES, 0);
		return -1;
	}
	if ((a->kind == RPL_ACT_MELD || a->kind == RPL_ACT_ADD) && a->end > RPL_END_HIGH) {
		set_why(why, whylen, "a meld decision's wild end is 0, 1 or 2", RPL_NFACES, 0);
		return -1;
	}
	if (a->kind != RPL_ACT_MORTO && !t->open) {
		t->open = 1;
		t->drew = 0;
		t->turn++;
	}
	switch (a->kind) {
	case RPL_ACT_DRAW:
		if (track_draw(t, seat) < 0) {
			set_why(why, whylen, "nothing is left to draw", RPL_NFACES, 0);
			return -1;
		}
		t->drew = 1;
		break;
	case RPL_ACT_TAKE:
		for (int i = 0; i < t->pile_n; i++)
			hand_add(t, seat, t->pile[i]);
		t->pile_n = 0;
		t->drew = 1;
		break;
	case RPL_ACT_REJECT:
		if (t->last_drawn < 0 || !t->hand[seat][t->last_drawn]) {
			set_why(why, whylen, "no card was just drawn to reject", RPL_NFACES, 0);
			return -1;
		}
		hand_sub(t, seat, (rpl_card)t->last_drawn);
		t->pile[t->pile_n++] = (rpl_card)t->last_drawn;
		if (track_draw(t, seat) < 0) {
			set_why(why, whylen, "nothing is left to draw", RPL_NFACES, 0);
			return -1;
		}
		break;
	case RPL_ACT_MELD:
		if (t->nmelds[seat & 1] >= RPL_MAX_MELDS) {
			set_why(why, whylen, "too many melds", RPL_NFACES, 0);
			return -1;
		}
		if (take_cards(t, seat, a, why, whylen) < 0)
			return -1;
		t->msuit[seat & 1][t->nmelds[seat & 1]] = 4;
		t->mranks[seat & 1][t->nmelds[seat & 1]] = 0;
		t->nmelds[seat & 1]++;
		meld_note(t, seat & 1, t->nmelds[seat & 1] - 1, a);
		break;
	case RPL_ACT_ADD:
		if (a->side > 1 || a->meld >= t->nmelds[a->side]) {
			set_why(why, whylen, "no such meld on the table", RPL_NFACES, 0);
			return -1;
		}
		if (take_cards(t, seat, a, why, whylen) < 0)
			return -1;
		meld_note(t, a->side, a->meld, a);
		break;
	case RPL_ACT_DISCARD:
		if (a->ncards != 1 || a->cards[0] >= RPL_NFACES || !t->hand[seat][a->cards[0]]) {
			set_why(why, whylen, "a discard names one card of the hand", a->cards[0], seat);
			return -1;
		}
		hand_sub(t, seat, a->cards[0]);
		t->pile[t->pile_n++] = a->cards[0];
		t->open = 0;
		t->drew = 0;
		t->seat = (uint8_t)((seat + 1) % t->n);
		break;
	case RPL_ACT_MORTO:
		if (a->morto > 1 || t->morto_used[a->morto]) {
			set_why(why, whylen, "that morto is no longer on the table", RPL_NFACES, 0);
			return -1;
		}
		for (int i = 0; i < RPL_MORTO_SIZE; i++)
			hand_add(t, seat, t->morto[a->morto][i]);
		t->morto_used[a->morto] = 1;
		break;
	default:
		break;
	}
	/* the card just drawn is known only until the next decision */
	if (a->kind != RPL_ACT_DRAW && a->kind != RPL_ACT_REJECT)
		t->last_drawn = -1;
	t->last = (int8_t)seat;
	t->last_kind = a->kind;
	return 0;
}

/* ---- decisions ----
 *
 * One function codes a decision in both directions, so that the encoder and
 * the decoder cannot drift apart: with c->e set it writes the fields of *a,
 * with c->d set it reads them into *a. Every context below is a function of
 * the card bookkeeping only (docs/format.md, section 9). Sets of faces are
 * 64-bit masks, bit c for face c.
 */

#define WILD_FACES (1ull << 1 | 1ull << 14 | 1ull << 27 | 1ull << 40 | 1ull << RPL_JOKER)

struct coder {
	struct rc_enc *e;
	struct rc_dec *d;
};

void rpl__model_init(struct model *m)
{
	uint16_t *p = (uint16_t *)m;
	for (size_t i = 0; i < sizeof(*m) / sizeof(uint16_t); i++)
		p[i] = PINIT;
}

static inline int c_bit(struct coder *c, uint16_t *p, int bit)
{
	if (c->e) {
		enc_bit(c->e, p, bit);
		return bit;
	}
	return dec_bit(c->d, p);
}

static int c_tree(struct coder *c, uint16_t *probs, int bits, int v)
{
	int node = 1;
	for (int i = bits - 1; i >= 0; i--)
		node = node * 2 + c_bit(c, &probs[node], (v >> i) & 1);
	return node - (1 << bits);
}

/* A value 0..n-1, all alike; nothing is coded when n is 1. */
static int c_uniform(struct coder *c, int n, int v)
{
	uint32_t r;
	if (n <= 1)
		return 0;
	if (c->e) {
		enc_freq(c->e, (uint32_t)v, 1, (uint32_t)n);
		return v;
	}
	v = (int)dec_freq_at(c->d, (uint32_t)n, &r);
	dec_freq_take(c->d, r, (uint32_t)v, 1);
	return v;
}

/* A member of the set s (not empty), all alike; x is the encoder's member. */
static int c_member(struct coder *c, uint64_t s, int x)
{
	int v = c->e ? popcount64(s & ((1ull << x) - 1)) : 0;
	return select64(s, c_uniform(c, popcount64(s), v));
}

/*
 * A member of s (not empty) split in two: a bit says whether it is in g
 * (coded only when both parts have members), then the member, all alike
 * within its part.
 */
static int c_split(struct coder *c, uint16_t *p, uint64_t s, uint64_t g, int x)
{
	uint64_t in = s & g, out = s & ~g;
	int b = in != 0;
	if (in && out)
		b = c_bit(c, p, c->e ? (int)((g >> x) & 1) : 0);
	return c_member(c, b ? in : out, x);
}

/* The natural faces of a hand with a card of their suit one or two ranks away. */
static uint64_t connected(const struct track *t, int seat)
{
	const uint16_t *sm = t->ranks[seat];
	uint64_t f = 0;
	for (int s = 0; s < 4; s++)
		f |= rank_faces(s, within2(sm[s]));
	return f & t->fmask[seat] & ~WILD_FACES;
}

/*
 * Some suit holds three cards within four ranks, or two and the hand has a
 * wild: the four suits' rank masks side by side in one word, 16 bits each.
 */
static int near_run(const struct track *t, int seat)
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
static int top_fits(const struct track *t, int seat)
{
	rpl_card top = t->pile[t->pile_n - 1];
	uint32_t own, m, win;
	int s, r, wilds = (t->fmask[seat] & WILD_FACES) != 0;

	if ((WILD_FACES >> top) & 1)
		return t->nmelds[seat & 1] > 0;
	if ((t->extf[seat & 1] >> top) & 1)
		return 1;
	s = RPL_CARD_SUIT(top);
	r = RPL_CARD_RANK(top);
	own = 1u << r | (r == 1 ? 1u << 14 : 0);
	m = t->ranks[seat][s] & ~own;
	/* windows lo..lo+3 (lo = 1..11) that hold the top card: count the hand's cards in each */
	for (int lo = 1; lo <= 11; lo++) {
		win = 0xFu << lo;
		if (!(win & own))
			continue;
		if (popcount64(m & win) >= 2 || (wilds && (m & win)))
			return 1;
	}
	return 0;
}

/*
 * The context of a decision's kind: where the turn is, and what the hand
 * could do (cards near each other, cards one rank beyond the side's melds,
 * wilds, pile cards that would fit).
 */
static int kind_ctx(const struct track *t)
{
	int seat = t->seat, side = seat & 1, sub;
	uint64_t f = t->fmask[seat];

	if (t->last >= 0 && t->hand_n[t->last] == 0)
		return 0; /* a hand just emptied: a morto pick-up is likely */
	if (!t->open)
		return t->pile_n ? 2 + top_fits(t, seat) : 1; /* draw or take the pile? */
	if (!t->drew)
		return 8;
	/* the turn has drawn: meld, add or discard? */
	sub = near_run(t, seat) + 2 * ((f & t->extf[side]) != 0);
	switch (t->last_kind) {
	case RPL_ACT_TAKE: sub += 8; break;
	case RPL_ACT_MELD:
	case RPL_ACT_ADD: sub += 16; break;
	case RPL_ACT_MORTO: sub += 24; break;
	default:
		if (t->turn == 1)
			sub += 32;
		break;
	}
	return 16 + sub;
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

/* The faces of each rank class, every suit: aces; 8 to king; 3 to 7. */
#define ACE_FACES (1ull << 0 | 1ull << 13 | 1ull << 26 | 1ull << 39)
#define HIGH_FACES (0x1F80ull * (1ull | 1ull << 13 | 1ull << 26 | 1ull << 39))
#define LOW_FACES (0x007Cull * (1ull | 1ull << 13 | 1ull << 26 | 1ull << 39))

/*
 * The first face of the keep order without scoring every face: a natural
 * card with no card of its suit two ranks around and beyond no meld scores
 * its value's -1 to -3, any other at least 12; so if there is one, the first
 * is the highest-valued of those, then the lowest face. -1 if there is none.
 */
static int first_to_discard(const struct track *t, int seat)
{
	uint64_t alone = t->fmask[seat] & ~WILD_FACES & ~connected(t, seat) & ~t->extf[0] & ~t->extf[1];

	if (!alone)
		return -1;
	if (alone & ACE_FACES)
		return ctz64(alone & ACE_FACES);
	if (alone & HIGH_FACES)
		return ctz64(alone & HIGH_FACES);
	return ctz64(alone & LOW_FACES);
}

/* The keys of the hand's faces, (keep score + 16) << 6 | face, unsorted; returns how many. */
static int keep_keys(const struct track *t, int seat, uint32_t *key)
{
	int n = 0;
	for (uint64_t g = t->fmask[seat]; g; g &= g - 1) {
		rpl_card x = (rpl_card)ctz64(g);
		key[n++] = (uint32_t)(keep_score(t, seat, x) + 16) << 6 | x;
	}
	return n;
}

static int code_discard(struct coder *c, struct model *m, const struct track *t, int seat, rpl_action *a)
{
	uint64_t f = t->fmask[seat];
	uint32_t key[RPL_NFACES];
	int n = popcount64(f), nkeys = 0, pos = 0, ctx, dr = -1, best;

	if (f == 0 || (c->e && (a->ncards != 1 || a->cards[0] >= RPL_NFACES || !((f >> a->cards[0]) & 1))))
		return -1;
	best = first_to_discard(t, seat);
	if (best < 0 || c->e) {
		nkeys = keep_keys(t, seat, key);
		best = 0;
		for (int i = 1; i < nkeys; i++)
			if (key[i] < key[best])
				best = i;
		best = (int)(key[best] & 63);
	}
	if (t->last == seat && t->last_drawn >= 0 && ((f >> t->last_drawn) & 1))
		dr = t->last_drawn;
	ctx = dr < 0 ? 0 : (best == dr ? 1 : 2);
	if (c->e) {
		uint32_t kx = (uint32_t)(keep_score(t, seat, a->cards[0]) + 16) << 6 | a->cards[0];
		for (int i = 0; i < nkeys; i++)
			pos += key[i] < kx;
	}
	/* the position in the order: the first three by adaptive bits, then any later one alike */
	{
		int p = 0;
		while (p < 3 && n - p >= 2 && c_bit(c, &m->discard[ctx][p], pos > p))
			p++;
		if (p == 3 || n - p < 2)
			p += c_uniform(c, n - p, pos - p);
		pos = p;
	}
	a->ncards = 1;
	if (pos == 0) {
		a->cards[0] = (rpl_card)best;
		return 0;
	}
	/* order the keys far enough to reach pos */
	if (!nkeys)
		nkeys = keep_keys(t, seat, key);
	for (int i = 0; i <= pos; i++) {
		int lo = i;
		uint32_t k;
		for (int j = i + 1; j < nkeys; j++)
			if (key[j] < key[lo])
				lo = j;
		k = key[i];
		key[i] = key[lo];
		key[lo] = k;
	}
	a->cards[0] = (rpl_card)(key[pos] & 63);
	return 0;
}

/*
 * The cards of a meld or an addition: a count, then the faces in ascending
 * order. The first: a wild or a natural; a natural near others of its suit
 * (meld) or one rank beyond a meld of the side (add), or not. Each later one:
 * the hand's next face up, the same face again, or one further up (a wild
 * or a natural).
 */
static int code_cards(struct coder *c, struct model *m, const struct track *t, int seat, int add, rpl_action *a)
{
	uint64_t f = t->fmask[seat];
	rpl_card cs[14];
	int n, prev = -1, same = 0;

	if (c->e) {
		if (a->ncards < 1 || a->ncards > 14)
			return -1;
		memcpy(cs, a->cards, a->ncards);
		sort_cards(cs, a->ncards);
	}
	n = c_tree(c, m->count[add], 4, c->e ? a->ncards - 1 : 0) + 1;
	if (n > 14 || f == 0)
		return -1;
	a->ncards = (uint8_t)n;
	for (int i = 0; i < n; i++) {
		int x = c->e ? cs[i] : 0;
		if (c->e && (x >= RPL_NFACES || !((f >> x) & 1) || x < prev))
			return -1;
		if (prev < 0) {
			uint64_t wild = f & WILD_FACES, nat = f & ~WILD_FACES;
			int w = wild != 0;
			if (wild && nat)
				w = c_bit(c, &m->first_wild[add], c->e ? (int)((WILD_FACES >> x) & 1) : 0);
			if (w)
				x = c_member(c, wild, x);
			else
				x = c_split(c, &m->first_near[add], nat, add ? t->extf[seat & 1] : connected(t, seat), x);
		} else {
			uint64_t up = f & ~((2ull << prev) - 1);
			int next = up ? ctz64(up) : -1, again = t->hand[seat][prev] > same, want = x;
			uint64_t further = up & (up - 1);
			if (next >= 0 && c_bit(c, &m->step1[add], x != next) == 0) {
				x = next;
			} else if (again && (!further || c_bit(c, &m->step0[add], x != prev) == 0)) {
				x = prev; /* the same face again (forced when nothing is further up) */
			} else {
				/* further up: a wild or a natural, then which */
				uint64_t wild = further & WILD_FACES, nat = further & ~WILD_FACES;
				int w = wild != 0;
				if (!further || (c->e && !((further >> x) & 1)))
					return -1;
				if (wild && nat)
					w = c_bit(c, &m->stepwild[add], c->e ? (int)((WILD_FACES >> x) & 1) : 0);
				x = c_member(c, w ? wild : nat, x);
			}
			if (c->e && x != want)
				return -1;
		}
		same = x == prev ? same + 1 : 1;
		if (same > t->hand[seat][x])
			return -1;
		a->cards[i] = (rpl_card)x;
		prev = x;
	}
	return 0;
}

/*
 * The kind: is it the likeliest kind where the turn is, the second, the
 * third (an adaptive bit each), or which of the four others (two bits).
 */
static int code_kind(struct coder *c, struct model *m, const struct track *t, int kind)
{
	static const uint8_t order[3][7] = {
		{ RPL_ACT_MORTO, RPL_ACT_DRAW, RPL_ACT_DISCARD, RPL_ACT_TAKE, RPL_ACT_REJECT, RPL_ACT_MELD, RPL_ACT_ADD },
		{ RPL_ACT_DRAW, RPL_ACT_TAKE, RPL_ACT_DISCARD, RPL_ACT_REJECT, RPL_ACT_MELD, RPL_ACT_ADD, RPL_ACT_MORTO },
		{ RPL_ACT_DISCARD, RPL_ACT_ADD, RPL_ACT_MELD, RPL_ACT_DRAW, RPL_ACT_TAKE, RPL_ACT_REJECT, RPL_ACT_MORTO },
	};
	int ctx = kind_ctx(t), i = 0;
	const uint8_t *o = order[ctx == 0 ? 0 : ctx < 16 ? 1 : 2];
	uint16_t *p = m->kind[ctx];

	if (c->e)
		while (i < 7 && o[i] != kind)
			i++;
	if (i == 7)
		return -1;
	for (int k = 0; k < 3; k++)
		if (c_bit(c, &p[k], i > k) == 0)
			return o[k];
	return o[3 + c_tree(c, p + 2, 2, i - 3)]; /* the tree's nodes 1..3: p[3..5] */
}

static int code_action(struct coder *c, struct model *m, const struct track *t, rpl_action *a)
{
	int kind, seat;

	kind = code_kind(c, m, t, c->e ? a->kind : 0);
	if (kind < RPL_ACT_DRAW || kind > RPL_ACT_MORTO)
		return -1;
	if (c->d)
		memset(a, 0, sizeof(*a));
	a->kind = (uint8_t)kind;
	seat = rpl__track_actor(t, kind);
	switch (kind) {
	case RPL_ACT_DISCARD:
		return code_discard(c, m, t, seat, a);
	case RPL_ACT_MELD:
		if (code_cards(c, m, t, seat, 0, a) < 0)
			return -1;
		break;
	case RPL_ACT_ADD: {
		/* the cards first: then the meld, among those of the cards' suit */
		int own, side, n, suit = -1;
		uint64_t melds, same = 0;
		if (code_cards(c, m, t, seat, 1, a) < 0)
			return -1;
		own = c_bit(c, &m->own[0], c->e ? a->side == (seat & 1) : 0);
		side = own ? (seat & 1) : !(seat & 1);
		n = t->nmelds[side];
		if (n == 0 || (c->e && (a->side > 1 || a->side != side || a->meld >= n)))
			return -1;
		for (int i = 0; i < a->ncards && suit < 0; i++)
			if (!RPL_IS_WILDCAPABLE(a->cards[i]))
				suit = RPL_CARD_SUIT(a->cards[i]);
		melds = n == 64 ? ~0ull : (1ull << n) - 1;
		for (int i = 0; i < n; i++)
			if (suit < 0 || t->msuit[side][i] == suit)
				same |= 1ull << i;
		a->side = (uint8_t)side;
		a->meld = (uint8_t)c_split(c, &m->same_suit[0], melds, same, c->e ? a->meld : 0);
		break;
	}
	case RPL_ACT_MORTO:
		if (c->e && a->morto > 1)
			return -1;
		a->morto = (uint8_t)c_bit(c, &m->morto[0], c->e ? a->morto : 0);
		return 0;
	default:
		return 0;
	}
	/* meld and add: where an end wild goes */
	if (c->e && a->end > RPL_END_HIGH)
		return -1;
	a->end = (uint8_t)c_tree(c, m->end[kind == RPL_ACT_ADD], 2, c->e ? a->end : 0);
	return a->end > RPL_END_HIGH ? -1 : 0;
}

int rpl__enc_action(struct rc_enc *e, struct model *m, const struct track *t, const rpl_action *a)
{
	struct coder c = { e, NULL };
	rpl_action copy = *a;
	return code_action(&c, m, t, &copy);
}

int rpl__dec_action(struct rc_dec *d, struct model *m, const struct track *t, rpl_action *a)
{
	struct coder c = { NULL, d };
	if (code_action(&c, m, t, a) < 0)
		return -1;
	return d->bad ? -1 : 0;
}
