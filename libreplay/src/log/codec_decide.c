/*
 * The decisions (docs/format.md, section 9): the adaptive model, the
 * contexts it reads from the card bookkeeping, and the coding of a
 * decision's kind and fields, one function for both directions.
 */
#include <string.h>

#include "log/codec_impl.h"
#include "log/codec_context.h"
#include "base/bits.h"

/* ---- decisions ----
 *
 * One function codes a decision in both directions, so that the encoder and
 * the decoder cannot drift apart: with c->e set it writes the fields of *a,
 * with c->d set it reads them into *a. Every context below is a function of
 * the card bookkeeping only (docs/format.md, section 9). Sets of faces are
 * 64-bit masks, bit c for face c.
 */

static void sort_cards(rpl_card *c, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && c[j - 1] > c[j]; j--) {
			rpl_card t = c[j];
			c[j] = c[j - 1];
			c[j - 1] = t;
		}
}

struct coder {
	struct rc_enc *e;
	struct rc_dec *d;
};

void rpl__model_init(struct model *m, int version)
{
	uint16_t *p = (uint16_t *)m;
	for (size_t i = 0; i < sizeof(*m) / sizeof(uint16_t); i++)
		p[i] = PINIT;
	m->rich = version >= 6;
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

/*
 * The context of a decision's kind: where the turn is, and what the hand
 * could do (cards near each other, cards one rank beyond the side's melds,
 * wilds, pile cards that would fit; version 6: the card just drawn).
 */
static int kind_ctx(const struct track *t, int rich)
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
		/* version 6: after a draw or a reject, the card drawn's fit (contexts 56..71) */
		if (rich && t->last_drawn >= 0) {
			int fit = drawn_fits(t, seat);
			if (fit)
				return KIND_CTX + 8 * (fit - 1) + 4 * (t->turn == 1) + sub;
		}
		if (t->turn == 1)
			sub += 32;
		break;
	}
	return 16 + sub;
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
			if (w) {
				x = c_member(c, wild, x);
			} else if (m->rich && !add) {
				/* version 6: a face that starts a run, or not; then near others or not */
				uint64_t start = run_starts(t, seat), rest = nat & ~start;
				int st = start != 0;
				if (start && rest)
					st = c_bit(c, &m->first_near[2], c->e ? (int)((start >> x) & 1) : 0);
				x = st ? c_member(c, start, x) : c_split(c, &m->first_near[0], rest, connected(t, seat), x);
			} else {
				x = c_split(c, &m->first_near[add], nat, add ? t->extf[seat & 1] : connected(t, seat), x);
			}
		} else {
			uint64_t up = f & ~((2ull << prev) - 1);
			int next = up ? ctz64(up) : -1, again = t->hand[seat][prev] > same, want = x;
			uint64_t further = up & (up - 1);
			/* version 6: is the next face up the next rank of prev's suit (not an ace or the joker)? */
			int adj = next == prev + 1 && (rank_bits_of[next] & 0x3FFC) != 0;
			if (next >= 0 && c_bit(c, &m->step1[add + 2 * (adj & m->rich)], x != next) == 0) {
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
	int ctx = kind_ctx(t, m->rich), i = 0;
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
	case RPL_ACT_DISCARD: return code_discard(c, m, t, seat, a);
	case RPL_ACT_MELD:
		if (code_cards(c, m, t, seat, 0, a) < 0)
			return -1;
		break;
	case RPL_ACT_ADD: {
		/* the cards first: then the meld, among those of the cards' suit */
		int own, side, n, suit = -1, low = -1;
		uint64_t melds, same = 0, beyond = 0;
		if (code_cards(c, m, t, seat, 1, a) < 0)
			return -1;
		own = c_bit(c, &m->own[0], c->e ? a->side == (seat & 1) : 0);
		side = own ? (seat & 1) : !(seat & 1);
		n = t->nmelds[side];
		if (n == 0 || (c->e && (a->side > 1 || a->side != side || a->meld >= n)))
			return -1;
		for (int i = 0; i < a->ncards && suit < 0; i++)
			if (!RPL_IS_WILDCAPABLE(a->cards[i])) {
				low = a->cards[i];
				suit = RPL_CARD_SUIT(low);
			}
		melds = n == 64 ? ~0ull : (1ull << n) - 1;
		same = suit < 0 ? melds : 0;
		for (int i = 0; suit >= 0 && i < n; i++)
			if (t->msuit[side][i] == suit) {
				same |= 1ull << i;
				/* version 6: the melds the first natural card is one rank beyond (of its suit, then) */
				beyond |= (t->mext[side][i] >> low & 1) << i;
			}
		a->side = (uint8_t)side;
		if (beyond && m->rich) {
			/* version 6: one of those, or not; else as before, among the others */
			uint64_t rest = melds & ~beyond;
			int in = rest == 0;
			if (!in)
				in = c_bit(c, &m->same_suit[1], c->e ? (int)((beyond >> a->meld) & 1) : 0);
			if (in) {
				a->meld = (uint8_t)c_member(c, beyond, c->e ? a->meld : 0);
				break;
			}
			melds = rest;
			same &= rest;
		}
		a->meld = (uint8_t)c_split(c, &m->same_suit[0], melds, same, c->e ? a->meld : 0);
		break;
	}
	case RPL_ACT_MORTO:
		if (c->e && a->morto > 1)
			return -1;
		a->morto = (uint8_t)c_bit(c, &m->morto[0], c->e ? a->morto : 0);
		return 0;
	default: return 0;
	}
	/* meld and add: where an end wild goes */
	if (c->e && a->end > RPL_END_HIGH)
		return -1;
	a->end = (uint8_t)c_tree(c, m->end[kind == RPL_ACT_ADD], 2, c->e ? a->end : 0);
	return a->end > RPL_END_HIGH ? -1 : 0;
}

/*
 * The encoder codes through a copy of code_action kept out of line, where
 * the coder is a parameter: inlined into rpl__enc_action, whose decoder is
 * NULL, the decoder's dead branches would read through that NULL
 * (-Wnull-dereference).
 */
static __attribute__((noinline)) int code_action_any(struct coder *c, struct model *m, const struct track *t,
                                                     rpl_action *a)
{
	return code_action(c, m, t, a);
}

int rpl__enc_action(struct rc_enc *e, struct model *m, const struct track *t, const rpl_action *a)
{
	struct coder c = { e, NULL };
	rpl_action copy = *a;
	return code_action_any(&c, m, t, &copy);
}

/*
 * The decoder is code_action flattened into it (every call inside inlined),
 * so that the compiler knows that c->e is NULL and drops the encoder's
 * branch from every bit: the decoder runs each decision of a verification.
 * (Not the encoder: there the decoder's NULL would stay in the dead branches.)
 */
__attribute__((flatten)) int rpl__dec_action(struct rc_dec *d, struct model *m, const struct track *t, rpl_action *a)
{
	struct coder c = { NULL, d };
	if (code_action(&c, m, t, a) < 0)
		return -1;
	return d->bad ? -1 : 0;
}
