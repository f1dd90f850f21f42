/*
 * The .brp payload codec: range coder, card bookkeeping, and the models of
 * a deal's layout and decisions. docs/format.md specifies every step; a
 * change here is a change of the format.
 */
#include <stdlib.h>
#include <string.h>

#include "codec.h"

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
	while (e->range < TOP) {
		e->range <<= 8;
		shift_low(e);
	}
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
	while (e->range < TOP) {
		e->range <<= 8;
		shift_low(e);
	}
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
	while (d->range < TOP) {
		d->range <<= 8;
		d->code = (d->code << 8) | next_byte(d);
	}
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
	while (d->range < TOP) {
		d->range <<= 8;
		d->code = (d->code << 8) | next_byte(d);
	}
	return bit;
}

/* P(left) for weights l and r, in 12 bits, never 0 or 4096. */
static uint32_t split_p12(uint32_t l, uint32_t r)
{
	uint32_t p = (uint32_t)(((uint64_t)l << 12) / (l + r));
	return p < 1 ? 1 : (p > 4095 ? 4095 : p);
}

/* ---- weighted choice among up to 64 symbols (faces, indices) ---- */

static uint32_t wsum(const uint8_t *w, int nsym, int lo, int hi)
{
	uint32_t s = 0;
	if (hi > nsym)
		hi = nsym;
	for (int i = lo; i < hi; i++)
		s += w[i];
	return s;
}

/* Code symbol v (w[v] > 0) among symbols minv..nsym-1 weighted by w. */
static void enc_weighted(struct rc_enc *e, const uint8_t *w, int nsym, int minv, int v)
{
	int a = 0, b = 64;
	while (b - a > 1) {
		int mid = (a + b) / 2;
		uint32_t l = wsum(w, nsym, a > minv ? a : minv, mid);
		uint32_t r = wsum(w, nsym, mid > minv ? mid : minv, b);
		int bit = v >= mid;
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
	int a = 0, b = 64;
	if (wsum(w, nsym, minv, nsym) == 0)
		return -1;
	while (b - a > 1) {
		int mid = (a + b) / 2;
		uint32_t l = wsum(w, nsym, a > minv ? a : minv, mid);
		uint32_t r = wsum(w, nsym, mid > minv ? mid : minv, b);
		int bit;
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

static const uint8_t ones[64] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
};

/* A uniform index in [lo, k) (k <= 64). */
static void enc_uniform(struct rc_enc *e, int lo, int k, int v)
{
	enc_weighted(e, ones, k, lo, v);
}

static int dec_uniform(struct rc_dec *d, int lo, int k)
{
	return dec_weighted(d, ones, k, lo);
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

void rpl__enc_layout(struct rc_enc *e, int nplayers, const rpl_layout *lay)
{
	uint8_t cnt[RPL_NFACES];

	deck_counts(cnt);
	/* hands are sets: coded in ascending order, each card no lower than the last */
	for (int s = 0; s < nplayers; s++) {
		rpl_card h[RPL_HAND_SIZE];
		int minv = 0;
		memcpy(h, lay->hand[s], sizeof(h));
		sort_cards(h, RPL_HAND_SIZE);
		for (int i = 0; i < RPL_HAND_SIZE; i++) {
			enc_weighted(e, cnt, RPL_NFACES, minv, h[i]);
			cnt[h[i]]--;
			minv = h[i];
		}
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
	uint8_t cnt[RPL_NFACES];
	int c;

	memset(lay, 0, sizeof(*lay));
	deck_counts(cnt);
	for (int s = 0; s < nplayers; s++) {
		int minv = 0;
		for (int i = 0; i < RPL_HAND_SIZE; i++) {
			c = dec_weighted(d, cnt, RPL_NFACES, minv);
			if (c < 0)
				return -1;
			lay->hand[s][i] = (rpl_card)c;
			cnt[c]--;
			minv = c;
		}
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

void rpl__track_deal(struct track *t, int nplayers, int dealer, const rpl_layout *lay)
{
	memset(t, 0, sizeof(*t));
	t->n = (uint8_t)nplayers;
	t->seat = (uint8_t)((dealer + 1) % nplayers);
	t->last = -1;
	t->last_drawn = -1;
	for (int s = 0; s < nplayers; s++) {
		for (int i = 0; i < RPL_HAND_SIZE; i++)
			t->hand[s][lay->hand[s][i]]++;
		t->hand_n[s] = RPL_HAND_SIZE;
	}
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
	t->hand[seat][c]++;
	t->hand_n[seat]++;
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
	for (rpl_card c = 0; c < RPL_NFACES; c++)
		t->hand[seat][c] = (uint8_t)(t->hand[seat][c] - cnt[c]);
	t->hand_n[seat] = (uint8_t)(t->hand_n[seat] - a->ncards);
	return 0;
}

int rpl__track_apply(struct track *t, const rpl_action *a, char *why, size_t whylen)
{
	int seat = rpl__track_actor(t, a->kind);

	if (a->kind < RPL_ACT_DRAW || a->kind > RPL_ACT_MORTO) {
		set_why(why, whylen, "unknown decision kind", RPL_NFACES, 0);
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
			t->hand[seat][t->pile[i]]++;
		t->hand_n[seat] = (uint8_t)(t->hand_n[seat] + t->pile_n);
		t->pile_n = 0;
		t->drew = 1;
		t->last_drawn = -1;
		break;
	case RPL_ACT_REJECT:
		if (t->last_drawn < 0 || !t->hand[seat][t->last_drawn]) {
			set_why(why, whylen, "no card was just drawn to reject", RPL_NFACES, 0);
			return -1;
		}
		t->hand[seat][t->last_drawn]--;
		t->hand_n[seat]--;
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
		t->nmelds[seat & 1]++;
		break;
	case RPL_ACT_ADD:
		if (a->side > 1 || a->meld >= t->nmelds[a->side]) {
			set_why(why, whylen, "no such meld on the table", RPL_NFACES, 0);
			return -1;
		}
		if (take_cards(t, seat, a, why, whylen) < 0)
			return -1;
		break;
	case RPL_ACT_DISCARD:
		if (a->ncards != 1 || a->cards[0] >= RPL_NFACES || !t->hand[seat][a->cards[0]]) {
			set_why(why, whylen, "a discard names one card of the hand", a->cards[0], seat);
			return -1;
		}
		t->hand[seat][a->cards[0]]--;
		t->hand_n[seat]--;
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
			t->hand[seat][t->morto[a->morto][i]]++;
		t->hand_n[seat] = (uint8_t)(t->hand_n[seat] + RPL_MORTO_SIZE);
		t->morto_used[a->morto] = 1;
		break;
	default:
		break;
	}
	if (a->kind != RPL_ACT_DRAW && a->kind != RPL_ACT_REJECT)
		t->last_drawn = a->kind == RPL_ACT_TAKE ? -1 : t->last_drawn;
	t->last = (int8_t)seat;
	t->last_kind = a->kind;
	return 0;
}

/* ---- decisions ---- */

void rpl__model_init(struct model *m)
{
	uint16_t *p = (uint16_t *)m;
	for (size_t i = 0; i < sizeof(*m) / sizeof(uint16_t); i++)
		p[i] = PINIT;
}

static int kind_ctx(const struct track *t)
{
	int ctx = (!t->open ? 0 : (t->drew ? 2 : 1)) * 4;
	if (t->last >= 0 && t->hand_n[t->last] == 0)
		ctx += 2;
	if (t->turn == 1 && t->last_kind == RPL_ACT_DRAW)
		ctx += 1;
	return ctx;
}

static void enc_tree(struct rc_enc *e, uint16_t *probs, int bits, int v)
{
	int node = 1;
	for (int i = bits - 1; i >= 0; i--) {
		int b = (v >> i) & 1;
		enc_bit(e, &probs[node], b);
		node = node * 2 + b;
	}
}

static int dec_tree(struct rc_dec *d, uint16_t *probs, int bits)
{
	int node = 1;
	for (int i = 0; i < bits; i++)
		node = node * 2 + dec_bit(d, &probs[node]);
	return node - (1 << bits);
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

int rpl__enc_action(struct rc_enc *e, struct model *m, const struct track *t, const rpl_action *a)
{
	int seat = rpl__track_actor(t, a->kind), lay = a->kind == RPL_ACT_ADD;
	const uint8_t *h = t->hand[seat];
	rpl_card f[RPL_NFACES];
	int k, prev;

	if (a->kind < RPL_ACT_DRAW || a->kind > RPL_ACT_MORTO)
		return -1;
	enc_tree(e, m->kind[kind_ctx(t)], 3, a->kind - 1);
	switch (a->kind) {
	case RPL_ACT_DISCARD: {
		int dr = drawn_face(t, seat), idx;
		uint8_t w[RPL_NFACES];
		if (a->ncards != 1 || a->cards[0] >= RPL_NFACES || !h[a->cards[0]])
			return -1;
		if (dr >= 0) {
			enc_bit(e, &m->drawn[0], a->cards[0] == dr);
			if (a->cards[0] == dr)
				break;
		}
		k = faces_of(h, f);
		idx = face_index(f, k, a->cards[0]);
		for (int i = 0; i < k; i++)
			w[i] = f[i] != dr;
		enc_weighted(e, w, k, 0, idx);
		break;
	}
	case RPL_ACT_MELD:
	case RPL_ACT_ADD: {
		rpl_card cs[14];
		uint8_t used[RPL_NFACES];
		if (a->ncards < 1 || a->ncards > 14 || a->end > RPL_END_HIGH)
			return -1;
		if (lay) {
			int own = a->side == (seat & 1);
			if (a->side > 1 || a->meld >= t->nmelds[a->side])
				return -1;
			enc_bit(e, &m->own[0], own);
			enc_uniform(e, 0, t->nmelds[a->side], a->meld);
		}
		enc_tree(e, m->count[lay], 4, a->ncards - 1);
		memcpy(cs, a->cards, a->ncards);
		sort_cards(cs, a->ncards);
		k = faces_of(h, f);
		memset(used, 0, sizeof(used));
		prev = -1;
		for (int i = 0; i < a->ncards; i++) {
			int idx = cs[i] < RPL_NFACES ? face_index(f, k, cs[i]) : -1;
			if (idx < 0 || ++used[cs[i]] > h[cs[i]])
				return -1;
			if (prev < 0) {
				enc_uniform(e, 0, k, idx);
			} else {
				int step = idx - prev;
				enc_bit(e, &m->step1[lay], step != 1);
				if (step != 1) {
					enc_bit(e, &m->step0[lay], step != 0);
					if (step != 0)
						enc_uniform(e, prev + 2, k, idx);
				}
			}
			prev = idx;
		}
		enc_tree(e, m->end[lay], 2, a->end);
		break;
	}
	case RPL_ACT_MORTO:
		if (a->morto > 1)
			return -1;
		enc_bit(e, &m->morto[0], a->morto);
		break;
	default:
		break;
	}
	return 0;
}

int rpl__dec_action(struct rc_dec *d, struct model *m, const struct track *t, rpl_action *a)
{
	int seat, lay;
	const uint8_t *h;
	rpl_card f[RPL_NFACES];
	int k, prev, kind;

	memset(a, 0, sizeof(*a));
	kind = dec_tree(d, m->kind[kind_ctx(t)], 3) + 1;
	if (kind > RPL_ACT_MORTO)
		return -1;
	a->kind = (uint8_t)kind;
	seat = rpl__track_actor(t, kind);
	lay = kind == RPL_ACT_ADD;
	h = t->hand[seat];
	switch (kind) {
	case RPL_ACT_DISCARD: {
		int dr = drawn_face(t, seat), idx;
		uint8_t w[RPL_NFACES];
		a->ncards = 1;
		if (dr >= 0 && dec_bit(d, &m->drawn[0])) {
			a->cards[0] = (rpl_card)dr;
			break;
		}
		k = faces_of(h, f);
		for (int i = 0; i < k; i++)
			w[i] = f[i] != dr;
		idx = k ? dec_weighted(d, w, k, 0) : -1;
		if (idx < 0)
			return -1;
		a->cards[0] = f[idx];
		break;
	}
	case RPL_ACT_MELD:
	case RPL_ACT_ADD: {
		uint8_t used[RPL_NFACES];
		if (lay) {
			int own = dec_bit(d, &m->own[0]);
			int side = own ? (seat & 1) : !(seat & 1);
			int idx;
			if (t->nmelds[side] == 0)
				return -1;
			idx = dec_uniform(d, 0, t->nmelds[side]);
			if (idx < 0)
				return -1;
			a->side = (uint8_t)side;
			a->meld = (uint8_t)idx;
		}
		a->ncards = (uint8_t)(dec_tree(d, m->count[lay], 4) + 1);
		if (a->ncards > 14)
			return -1;
		k = faces_of(h, f);
		if (k == 0)
			return -1;
		memset(used, 0, sizeof(used));
		prev = -1;
		for (int i = 0; i < a->ncards; i++) {
			int idx;
			if (prev < 0) {
				idx = dec_uniform(d, 0, k);
			} else if (!dec_bit(d, &m->step1[lay])) {
				idx = prev + 1;
			} else if (!dec_bit(d, &m->step0[lay])) {
				idx = prev;
			} else {
				idx = prev + 2 < k ? dec_uniform(d, prev + 2, k) : -1;
			}
			if (idx < 0 || idx >= k || ++used[f[idx]] > h[f[idx]])
				return -1;
			a->cards[i] = f[idx];
			prev = idx;
		}
		a->end = (uint8_t)dec_tree(d, m->end[lay], 2);
		if (a->end > RPL_END_HIGH)
			return -1;
		break;
	}
	case RPL_ACT_MORTO:
		a->morto = (uint8_t)dec_bit(d, &m->morto[0]);
		break;
	default:
		break;
	}
	return d->overrun ? -1 : 0;
}
