/*
 * The .brp payload codec: range coder, card bookkeeping, and the models of
 * a deal's layout and decisions. docs/format.md specifies every step; a
 * change here is a change of the format.
 */
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "binom.h"

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
#define MOVE 5
#define PINIT (PONE / 2)

void rpl__rc_enc_init(struct rc_enc *e, struct buf *out)
{
	e->out = out;
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

void rpl__rc_enc_finish(struct rc_enc *e)
{
	for (int i = 0; i < 5; i++)
		shift_low(e);
}

static void enc_norm(struct rc_enc *e)
{
	while (e->range < TOP) {
		e->range <<= 8;
		shift_low(e);
	}
}

static void enc_bit(struct rc_enc *e, uint16_t *p, int bit)
{
	uint32_t bound = (e->range >> PBITS) * *p;
	if (!bit) {
		e->range = bound;
		*p = (uint16_t)(*p + ((PONE - *p) >> MOVE));
	} else {
		e->low += bound;
		e->range -= bound;
		*p = (uint16_t)(*p - (*p >> MOVE));
	}
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

static uint8_t next_byte(struct rc_dec *d)
{
	if (d->pos < d->n)
		return d->p[d->pos++];
	d->overrun = 1;
	return 0;
}

void rpl__rc_dec_init(struct rc_dec *d, const uint8_t *p, size_t n)
{
	d->p = p;
	d->n = n;
	d->pos = 0;
	d->overrun = 0;
	d->range = 0xFFFFFFFFu;
	d->code = 0;
	for (int i = 0; i < 4; i++)
		d->code = (d->code << 8) | next_byte(d);
}

static void dec_norm(struct rc_dec *d)
{
	while (d->range < TOP) {
		d->range <<= 8;
		d->code = (d->code << 8) | next_byte(d);
	}
}

static int dec_bit(struct rc_dec *d, uint16_t *p)
{
	uint32_t bound = (d->range >> PBITS) * *p;
	int bit;
	if (d->code < bound) {
		d->range = bound;
		*p = (uint16_t)(*p + ((PONE - *p) >> MOVE));
		bit = 0;
	} else {
		d->code -= bound;
		d->range -= bound;
		*p = (uint16_t)(*p - (*p >> MOVE));
		bit = 1;
	}
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
		d->range -= bound;
		bit = 1;
	}
	dec_norm(d);
	return bit;
}

/* P(left) for weights l and r, in 12 bits, never 0 or 4096. */
static uint32_t split_p12(uint32_t l, uint32_t r)
{
	uint32_t p = (uint32_t)(((uint64_t)l << 12) / (l + r));
	return p < 1 ? 1 : (p > 4095 ? 4095 : p);
}

/* ---- weighted choice among up to 64 symbols (faces, indices) ----
 * A binary tree over 64 leaves; at each node the bit is coded with the
 * probability of the left half, from the weights (prefix sums).
 */

/* ps[i] = the weight of symbols minv..i-1, for i <= nsym (beyond: ps[nsym]). */
static void prefix_sums(const uint8_t *w, int nsym, int minv, uint32_t *ps)
{
	int i;
	for (i = 0; i <= minv && i <= nsym; i++)
		ps[i] = 0;
	for (i = minv; i < nsym; i++)
		ps[i + 1] = ps[i] + w[i];
}

#define PS(i) ps[(i) < nsym ? (i) : nsym]

/* Code symbol v (w[v] > 0) among symbols minv..nsym-1 weighted by w. */
static void enc_weighted(struct rc_enc *e, const uint8_t *w, int nsym, int minv, int v)
{
	uint32_t ps[65];
	int a = 0, b = 64;

	if (minv > nsym)
		minv = nsym;
	prefix_sums(w, nsym, minv, ps);
	while (b - a > 1) {
		int mid = (a + b) / 2, bit = v >= mid;
		uint32_t l = PS(mid) - PS(a), r = PS(b) - PS(mid);
		if (l && r)
			enc_fixed(e, split_p12(l, r), bit);
		if (bit)
			a = mid;
		else
			b = mid;
	}
}

/* Returns the symbol, or -1 when no symbol has weight. */
static int dec_weighted(struct rc_dec *d, const uint8_t *w, int nsym, int minv)
{
	uint32_t ps[65];
	int a = 0, b = 64;

	if (minv > nsym)
		minv = nsym;
	prefix_sums(w, nsym, minv, ps);
	if (PS(64) == 0)
		return -1;
	while (b - a > 1) {
		int mid = (a + b) / 2, bit;
		uint32_t l = PS(mid) - PS(a), r = PS(b) - PS(mid);
		if (l && r)
			bit = dec_fixed(d, split_p12(l, r));
		else
			bit = l ? 0 : 1;
		if (bit)
			a = mid;
		else
			b = mid;
	}
	return a;
}

#undef PS

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
static uint64_t binom(int n, int k)
{
	if (k < 0 || n < 0 || k > n || n > 108 || k > 11)
		return 0;
	return binom_table[n][k];
}

static int code_hand(struct rc_enc *e, struct rc_dec *d, uint8_t *cnt, int *left, uint8_t *hand)
{
	int k = RPL_HAND_SIZE;

	for (int f = 0; f < RPL_NFACES && k > 0; f++) {
		int c = cnt[f], max = c < k ? c : k, x = e ? hand[f] : 0, j;
		uint64_t w[RPL_HAND_SIZE + 1], tail = 0;
		for (j = 0; j <= max; j++) {
			w[j] = binom(c, j) * binom(*left - c, k - j);
			tail += w[j];
		}
		for (j = 0; j < max; j++) {
			int more;
			if (w[j] == 0) {
				more = 1;
			} else if (w[j] == tail) {
				more = 0;
			} else {
				uint64_t p = (w[j] << 12) / tail;
				uint32_t p12 = p < 1 ? 1 : (p > 4095 ? 4095 : (uint32_t)p);
				if (e) {
					more = x > j;
					enc_fixed(e, p12, more);
				} else {
					more = dec_fixed(d, p12);
				}
			}
			if (!more)
				break;
			tail -= w[j];
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

void rpl__enc_layout(struct rc_enc *e, int nplayers, const rpl_layout *lay)
{
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
	for (int m = 0; m < 2; m++)
		for (int i = 0; i < RPL_MORTO_SIZE; i++) {
			enc_weighted(e, cnt, RPL_NFACES, 0, lay->morto[m][i]);
			cnt[lay->morto[m][i]]--;
		}
	for (int i = 0; i < RPL_STOCK_SIZE(nplayers); i++) {
		enc_weighted(e, cnt, RPL_NFACES, 0, lay->stock[i]);
		cnt[lay->stock[i]]--;
	}
}

int rpl__dec_layout(struct rc_dec *d, int nplayers, rpl_layout *lay)
{
	uint8_t cnt[RPL_NFACES], h[RPL_NFACES];
	int c, left = RPL_DECK_SIZE;

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
	for (int m = 0; m < 2; m++)
		for (int i = 0; i < RPL_MORTO_SIZE; i++) {
			c = dec_weighted(d, cnt, RPL_NFACES, 0);
			if (c < 0)
				return -1;
			lay->morto[m][i] = (rpl_card)c;
			cnt[c]--;
		}
	for (int i = 0; i < RPL_STOCK_SIZE(nplayers); i++) {
		c = dec_weighted(d, cnt, RPL_NFACES, 0);
		if (c < 0)
			return -1;
		lay->stock[i] = (rpl_card)c;
		cnt[c]--;
	}
	return d->overrun ? -1 : 0;
}

/* ---- bookkeeping ---- */

static void hand_add(struct track *t, int seat, rpl_card c)
{
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
		meld_note(t, seat & 1, t->nmelds[seat & 1], a);
		t->nmelds[seat & 1]++;
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
 * the card bookkeeping only (docs/format.md, "Features").
 */

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

static int c_bit(struct coder *c, uint16_t *p, int bit)
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

/* A choice among the symbols i < n with w[i] > 0 (uniform among them); -1 when none. */
static int c_pick(struct coder *c, const uint8_t *w, int n, int v)
{
	if (c->e) {
		enc_weighted(c->e, w, n, 0, v);
		return v;
	}
	return dec_weighted(c->d, w, n, 0);
}

/*
 * A choice among n symbols split in two groups (grp[i] = 1 or 0): a bit
 * says the group (coded only when both are non-empty), then the symbol,
 * uniform within its group. avail[i] = 0 excludes a symbol.
 */
static int c_group(struct coder *c, uint16_t *p, const uint8_t *avail, const uint8_t *grp, int n, int v)
{
	uint8_t w[64];
	int in = 0, out = 0, g;

	for (int i = 0; i < n; i++) {
		in += avail[i] && grp[i];
		out += avail[i] && !grp[i];
	}
	if (in + out == 0)
		return -1;
	if (c->e && (v < 0 || v >= n || !avail[v]))
		return -1;
	g = c->e ? grp[v] : 0;
	if (in && out)
		g = c_bit(c, p, g);
	else
		g = in ? 1 : 0;
	for (int i = 0; i < n; i++)
		w[i] = (uint8_t)(avail[i] && (grp[i] ? 1 : 0) == g);
	return c_pick(c, w, n, v);
}

/* Bits of the ranks within two of card x's rank(s) (an ace is 1 and 14), x's own excluded. */
static uint16_t near2(rpl_card x)
{
	int r = RPL_CARD_RANK(x);
	uint32_t m = (0x1Bu << r) >> 2; /* bits r-2, r-1, r+1, r+2 */
	if (r == 1)
		m |= 0x1Bu << 12; /* 12, 13 and (out of range) 15, 16 */
	return (uint16_t)(m & 0x7FFEu);
}

/* A natural card (not a 2 or a joker) with no card of its suit within two ranks in the hand. */
static int is_isolated(const uint16_t *suitmask, rpl_card x)
{
	if (RPL_IS_WILDCAPABLE(x))
		return 0;
	return !(suitmask[RPL_CARD_SUIT(x)] & near2(x));
}

/* Does card x touch meld i of side s (same suit, a rank within two)? */
static int touches(const struct track *t, int s, int i, rpl_card x)
{
	if (RPL_IS_WILDCAPABLE(x) || t->msuit[s][i] != RPL_CARD_SUIT(x))
		return 0;
	return (t->mranks[s][i] & near2(x)) != 0;
}

static int touches_side(const struct track *t, int s, rpl_card x)
{
	for (int i = 0; i < t->nmelds[s]; i++)
		if (touches(t, s, i, x))
			return 1;
	return 0;
}

/* Some suit holds three cards within four ranks, or two and the hand has a wild. */
static int near_run(const uint8_t *h, const uint16_t *suitmask)
{
	int wilds = h[RPL_JOKER] + h[1] + h[14] + h[27] + h[40];
	for (int s = 0; s < 4; s++) {
		/* windows of four ranks lo..lo+3, lo = 1..11: a, b, c, d are the four bits */
		uint32_t a = suitmask[s], b = a >> 1, c = a >> 2, d = a >> 3, three, two;
		three = (a & b & c) | (a & b & d) | (a & c & d) | (b & c & d);
		two = (a & b) | (a & c) | (a & d) | (b & c) | (b & d) | (c & d);
		if ((three | (wilds ? two : 0)) & 0xFFEu) /* lo = 1..11 */
			return 1;
	}
	return 0;
}

static int kind_ctx(const struct track *t)
{
	int st = !t->open ? 0 : (t->drew ? 2 : 1), sub = 0;
	int seat = t->seat;
	const uint16_t *sm = t->ranks[seat];

	if (t->last >= 0 && t->hand_n[t->last] == 0)
		return st * 16 + 15; /* a hand just emptied: a morto pick-up is likely */
	if (st == 0) {
		if (t->pile_n) {
			rpl_card top = t->pile[t->pile_n - 1];
			sub = 1 + (RPL_IS_WILDCAPABLE(top) || !is_isolated(sm, top) || touches_side(t, seat & 1, top));
		}
	} else if (st == 2) {
		sub = near_run(t->hand[seat], sm);
		switch (t->last_kind) {
		case RPL_ACT_TAKE: sub += 2; break;
		case RPL_ACT_MELD:
		case RPL_ACT_ADD: sub += 4; break;
		case RPL_ACT_MORTO: sub += 6; break;
		default: break;
		}
		if (t->turn == 1 && t->last_kind == RPL_ACT_DRAW)
			sub += 8;
	}
	return st * 16 + sub;
}

/* The distinct faces of a hand, ascending; returns how many. */
static int faces_of(const uint8_t *h, rpl_card *f)
{
	int k = 0;
	for (rpl_card c = 0; c < RPL_NFACES; c++)
		if (h[c])
			f[k++] = c;
	return k;
}

static int face_index(const rpl_card *f, int k, rpl_card c)
{
	for (int i = 0; i < k; i++)
		if (f[i] == c)
			return i;
	return -1;
}

/* Was the last decision of this seat a draw whose card is still in hand? */
static int drawn_face(const struct track *t, int seat)
{
	if (t->last != seat || t->last_drawn < 0)
		return -1;
	if (t->last_kind != RPL_ACT_DRAW && t->last_kind != RPL_ACT_REJECT)
		return -1;
	return t->hand[seat][t->last_drawn] ? t->last_drawn : -1;
}

static int code_discard(struct coder *c, struct model *m, const struct track *t, int seat, rpl_action *a)
{
	const uint8_t *h = t->hand[seat];
	rpl_card f[RPL_NFACES];
	uint8_t avail[RPL_NFACES], grp[RPL_NFACES];
	const uint16_t *sm = t->ranks[seat];
	int dr = drawn_face(t, seat), k, idx;

	if (c->e && (a->ncards != 1 || a->cards[0] >= RPL_NFACES || !h[a->cards[0]]))
		return -1;
	a->ncards = 1;
	if (dr >= 0 && c_bit(c, &m->drawn[is_isolated(sm, (rpl_card)dr)], c->e ? a->cards[0] != dr : 0) == 0) {
		a->cards[0] = (rpl_card)dr;
		return 0;
	}
	k = faces_of(h, f);
	for (int i = 0; i < k; i++) {
		avail[i] = f[i] != dr;
		grp[i] = (uint8_t)is_isolated(sm, f[i]);
	}
	idx = c_group(c, &m->isolated[0], avail, grp, k, c->e ? face_index(f, k, a->cards[0]) : 0);
	if (idx < 0)
		return -1;
	a->cards[0] = f[idx];
	return 0;
}

/* The cards of a meld or an addition: a count, then ascending faces of the hand. */
static int code_cards(struct coder *c, struct model *m, const struct track *t, int seat, int add, rpl_action *a)
{
	const uint8_t *h = t->hand[seat];
	rpl_card f[RPL_NFACES], cs[14];
	uint8_t used[RPL_NFACES], avail[RPL_NFACES], grp[RPL_NFACES];
	const uint16_t *sm = t->ranks[seat];
	int k, prev = -1, n;

	if (c->e) {
		if (a->ncards < 1 || a->ncards > 14)
			return -1;
		memcpy(cs, a->cards, a->ncards);
		sort_cards(cs, a->ncards);
	}
	n = c_tree(c, m->count[add], 4, c->e ? a->ncards - 1 : 0) + 1;
	if (n > 14)
		return -1;
	a->ncards = (uint8_t)n;
	k = faces_of(h, f);
	if (k == 0)
		return -1;
	memset(used, 0, sizeof(used));
	for (int i = 0; i < n; i++) {
		int idx = -1;
		if (c->e) {
			idx = face_index(f, k, cs[i]);
			if (idx < 0 || idx < prev)
				return -1;
		}
		if (prev < 0) {
			/* the first card: a wild or not, then a natural near others (meld) or touching a meld (add) */
			for (int j = 0; j < k; j++) {
				avail[j] = 1;
				grp[j] = RPL_IS_WILDCAPABLE(f[j]);
			}
			{
				int wild_in = 0, nat_in = 0, g;
				for (int j = 0; j < k; j++) {
					wild_in += grp[j];
					nat_in += !grp[j];
				}
				g = c->e ? grp[idx] : 0;
				if (wild_in && nat_in)
					g = c_bit(c, &m->first_wild[add], g);
				else
					g = wild_in ? 1 : 0;
				for (int j = 0; j < k; j++) {
					avail[j] = grp[j] == g;
					grp[j] = g ? 0 : (uint8_t)(add ? touches_side(t, seat & 1, f[j]) : !is_isolated(sm, f[j]));
				}
				idx = c_group(c, &m->first_near[add], avail, grp, k, idx);
			}
		} else {
			int step = c->e ? idx - prev : 0;
			if (!c_bit(c, &m->step1[add], step != 1)) {
				idx = prev + 1;
			} else if (!c_bit(c, &m->step0[add], step != 0)) {
				idx = prev;
			} else {
				/* further on: a wild (2 or joker) or a natural, then which */
				int w = 0, nw = 0, g;
				for (int j = 0; j < k; j++) {
					avail[j] = j >= prev + 2;
					grp[j] = RPL_IS_WILDCAPABLE(f[j]);
					w += avail[j] && grp[j];
					nw += avail[j] && !grp[j];
				}
				g = c->e ? grp[idx] : 0;
				if (w && nw)
					g = c_bit(c, &m->stepwild[add], g);
				else
					g = w ? 1 : 0;
				for (int j = 0; j < k; j++)
					avail[j] = avail[j] && grp[j] == g;
				if (c->e && (idx >= k || !avail[idx]))
					return -1;
				idx = c_pick(c, avail, k, idx);
			}
		}
		if (idx < 0 || idx >= k || ++used[f[idx]] > h[f[idx]])
			return -1;
		a->cards[i] = f[idx];
		prev = idx;
	}
	return 0;
}

static int code_action(struct coder *c, struct model *m, const struct track *t, rpl_action *a)
{
	int kind, seat;

	kind = c_tree(c, m->kind[kind_ctx(t)], 3, c->e ? a->kind - 1 : 0) + 1;
	if (kind > RPL_ACT_MORTO)
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
		uint8_t avail[RPL_MAX_MELDS], grp[RPL_MAX_MELDS];
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
		for (int i = 0; i < n; i++) {
			avail[i] = 1;
			grp[i] = suit < 0 || t->msuit[side][i] == suit;
		}
		n = c_group(c, &m->same_suit[0], avail, grp, n, c->e ? a->meld : 0);
		if (n < 0)
			return -1;
		a->side = (uint8_t)side;
		a->meld = (uint8_t)n;
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
	return d->overrun ? -1 : 0;
}
