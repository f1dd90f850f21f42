/*
 * The move generator. Candidates are built from the hand by the shape of
 * runs, then every one is confirmed by the engine itself on a scratch copy
 * (rpl__apply), so the generator can never list a move that rpl_game_apply
 * refuses, and it keeps no copy of a rule: the engine, game.c, decides
 * (docs/conventions.md, section 6). It calls the engine and the meld rules,
 * never the other way round. The decisions it finds are what the engine
 * accepts now; turn.c keeps those after which the turn can still end
 * (rpl_game_legal), through the keep hook.
 */
#include <stdlib.h>
#include <string.h>

#include "rules/game_impl.h"

/* Faces that can act as wilds, in id order. */
static const rpl_card wild_faces[5] = { 1, 14, 27, 40, RPL_JOKER };

/* ---- the generator ---- */

/*
 * The decisions met, by key (open addressing, 0 empty, never more than half
 * full): a small table on the stack first, since most positions list a few
 * dozen decisions and a call that cleared a big one spent more on the
 * clearing than on the search (more than half of a search bot's instructions);
 * grown on the heap when half full, up to SEEN_MOST slots (8 MiB: half a
 * million decisions; a hand of many cards under an odd rule set accepts
 * tens of thousands, which a table of 8,192 slots listed twice). Past that,
 * or with no memory to grow, a decision met again is tried again and listed
 * again.
 */
#define SEEN_FIRST 256
#define SEEN_MOST (1 << 20)

struct gen {
	const struct rpl_game *g;
	struct rpl_game scratch;
	rpl_action *out;
	size_t cap, n;
	rpl__legal_keep keep; /* NULL: every accepted decision */
	void *keep_ctx;
	uint64_t *seen; /* first, or heap once grown */
	size_t slots, nseen;
	uint64_t *heap;
	uint64_t first[SEEN_FIRST];
};

static uint64_t action_key(const rpl_action *a)
{
	uint64_t h = 1469598103934665603ull;
	const uint8_t *p = (const uint8_t *)a;
	for (size_t i = 0; i < sizeof(*a); i++) {
		h ^= p[i];
		h *= 1099511628211ull;
	}
	return h;
}

/* The slot of key in table t of slots slots: where it is, or the empty one where it would go. */
static size_t seen_slot(const uint64_t *t, size_t slots, uint64_t key)
{
	size_t slot = (size_t)(key >> 3) & (slots - 1);

	while (t[slot] && t[slot] != key)
		slot = (slot + 1) & (slots - 1);
	return slot;
}

/* A table four times as big, the keys moved into it: 0, or -1 (at the most, or no memory: the table stays). */
static int seen_grow(struct gen *ge)
{
	size_t slots = ge->slots * 4;
	uint64_t *t;

	if (slots > SEEN_MOST || !(t = calloc(slots, sizeof(*t))))
		return -1;
	for (size_t i = 0; i < ge->slots; i++)
		if (ge->seen[i])
			t[seen_slot(t, slots, ge->seen[i])] = ge->seen[i];
	free(ge->heap);
	ge->seen = ge->heap = t;
	ge->slots = slots;
	return 0;
}

static int try_emit(struct gen *ge, const rpl_action *a)
{
	uint64_t key = action_key(a) | 1; /* never 0, the empty slot */
	size_t slot = seen_slot(ge->seen, ge->slots, key);

	if (ge->seen[slot] == key)
		return 0;
	memcpy(&ge->scratch, ge->g, sizeof(ge->scratch));
	if (rpl__apply(&ge->scratch, a) != 0)
		return 0;
	if (ge->nseen >= ge->slots / 2 && seen_grow(ge) == 0)
		slot = seen_slot(ge->seen, ge->slots, key);
	if (ge->nseen < ge->slots / 2) {
		ge->seen[slot] = key;
		ge->nseen++;
	}
	if (ge->keep && !ge->keep(ge->keep_ctx, &ge->scratch, a))
		return 0;
	if (ge->out && ge->n < ge->cap)
		ge->out[ge->n] = *a;
	ge->n++;
	return 1;
}

/* Emit a meld or add with the default end, and the other end when it differs. */
static void emit_lay(struct gen *ge, int kind, int side, int meld, const cardset cand)
{
	const struct rpl_game *g = ge->g;
	rpl_action a;
	struct meld md, ml, mh;
	int n = 0, rd, rl, rh;

	memset(&a, 0, sizeof(a));
	a.kind = (uint8_t)kind;
	a.side = (uint8_t)side;
	a.meld = (uint8_t)meld;
	for (rpl_card c = 0; c < RPL_NFACES; c++)
		for (int k = 0; k < cand[c]; k++) {
			if (n == 14)
				return;
			a.cards[n++] = c;
		}
	if (n == 0)
		return;
	a.ncards = (uint8_t)n;
	if (kind == RPL_ACT_MELD) {
		rd = rpl__meld_arrange(&g->rules, cand, n, RPL_END_DEFAULT, &md, NULL, 0);
		rl = rpl__meld_arrange(&g->rules, cand, n, RPL_END_LOW, &ml, NULL, 0);
		rh = rpl__meld_arrange(&g->rules, cand, n, RPL_END_HIGH, &mh, NULL, 0);
	} else {
		const struct meld *m = &g->melds[side][meld];
		rd = rpl__meld_add(&g->rules, m, cand, n, RPL_END_DEFAULT, &md, NULL, 0);
		rl = rpl__meld_add(&g->rules, m, cand, n, RPL_END_LOW, &ml, NULL, 0);
		rh = rpl__meld_add(&g->rules, m, cand, n, RPL_END_HIGH, &mh, NULL, 0);
	}
	if (rd == 0) {
		a.end = RPL_END_DEFAULT;
		try_emit(ge, &a);
	}
	if (RV(&g->rules, WILD_MOBILITY) == RPL_WILD_FLOATING)
		return;
	if (rl == 0 && (rd != 0 || memcmp(&ml, &md, sizeof(ml)) != 0)) {
		a.end = RPL_END_LOW;
		try_emit(ge, &a);
	}
	if (rh == 0 && (rd != 0 || memcmp(&mh, &md, sizeof(mh)) != 0)) {
		a.end = RPL_END_HIGH;
		try_emit(ge, &a);
	}
}

/* Wild faces the hand holds beyond what cand already uses. */
static int spare(const cardset h, const cardset cand, rpl_card w)
{
	return h[w] > cand[w];
}

/*
 * Every window of positions of a suit that the cards of h cover, with no
 * wild or with wilds at up to max_wilds positions. New melds (req NULL):
 * each window is a MELD. A floating meld (req: its cards, h: hand + meld):
 * each window holding all of req is an ADD of the rest, since such a meld
 * may be arranged anew.
 */
static void gen_windows(struct gen *ge, const cardset h, int only_suit, const cardset req, int side, int idx,
                        int must_lo, int must_hi)
{
	int maxw = RV(&ge->g->rules, MAX_WILDS);
	cardset cand;

	for (int s = 0; s < 4; s++) {
		if (only_suit >= 0 && s != only_suit)
			continue;
		for (int lo = 1; lo <= 12 && lo <= must_lo; lo++) {
			cardset use;
			int missing = 0, miss[MAX_WILDS + 1] = { 0 };
			memset(use, 0, sizeof(use));
			for (int hi = lo; hi <= 14; hi++) {
				rpl_card c = natural_card(s, hi);
				int len = hi - lo + 1;
				if (use[c] < h[c]) {
					use[c]++;
				} else {
					/* the hand lacks hi's natural: longer windows lack it too */
					if (missing == maxw)
						break;
					miss[missing++] = hi;
				}
				if (len < 3 || hi < must_hi)
					continue;
				/*
				 * Wild positions: the missing ones, plus, while wilds are left,
				 * any present position (a player may use a wild for a card held).
				 * q1/q2 = 0: no extra wild.
				 */
				for (int q1 = 0; q1 <= hi; q1 = q1 ? q1 + 1 : lo) {
					if (q1 && (missing + 1 > maxw || (missing > 0 && q1 == miss[0]) || (missing > 1 && q1 == miss[1])))
						continue;
					for (int q2 = 0; q2 <= hi; q2 = q2 ? q2 + 1 : (q1 ? q1 + 1 : hi + 1)) {
						int qs[MAX_WILDS], nq = 0;
						if (q2 && (missing + 2 > maxw || q2 == miss[0] || (missing > 1 && q2 == miss[1])))
							continue;
						for (int k = 0; k < missing; k++)
							qs[nq++] = miss[k];
						if (q1)
							qs[nq++] = q1;
						if (q2)
							qs[nq++] = q2;
						if (len - nq <= nq)
							continue;
						for (int w1 = 0; w1 < (nq > 0 ? 5 : 1); w1++) {
							if (nq > 0 && !h[wild_faces[w1]])
								continue;
							for (int w2 = (nq > 1 ? w1 : 0); w2 < (nq > 1 ? 5 : 1); w2++) {
								int ok = 1;
								if (nq > 1 && !h[wild_faces[w2]])
									continue;
								memset(cand, 0, sizeof(cand));
								for (int p = lo; p <= hi && ok; p++) {
									rpl_card cc;
									if (nq > 0 && p == qs[0])
										cc = wild_faces[w1];
									else if (nq > 1 && p == qs[1])
										cc = wild_faces[w2];
									else
										cc = natural_card(s, p);
									if (!spare(h, cand, cc))
										ok = 0;
									else
										cand[cc]++;
								}
								if (!ok)
									continue;
								if (!req) {
									emit_lay(ge, RPL_ACT_MELD, 0, 0, cand);
								} else {
									int any = 0;
									for (rpl_card c2 = 0; c2 < RPL_NFACES && ok; c2++) {
										if (cand[c2] < req[c2])
											ok = 0;
										else
											any |= (cand[c2] -= req[c2]) > 0;
									}
									if (ok && any)
										emit_lay(ge, RPL_ACT_ADD, side, idx, cand);
								}
							}
						}
					}
				}
			}
		}
	}
}

/*
 * Additions to meld i of side: extend its natural span [bl,bh] to any
 * [lo,hi]; each uncovered position gets its natural from the hand or a wild.
 */
static void gen_adds_from(struct gen *ge, const cardset h, int side, int i, unsigned nat, unsigned wmask, int nw)
{
	const struct rpl_game *g = ge->g;
	const struct meld *m = &g->melds[side][i];
	int maxw = RV(&g->rules, MAX_WILDS), s = m->suit;
	int floating = RV(&g->rules, WILD_MOBILITY) == RPL_WILD_FLOATING;
	int bl = 15, bh = 0;
	cardset cand;

	for (int p = 1; p <= 14; p++)
		if (nat & (1u << p)) {
			if (p < bl)
				bl = p;
			bh = p;
		}
	/*
	 * Positions of [lo,hi] that hold no natural of the meld and whose
	 * natural the hand lacks need a wild: more than max_wilds of them and
	 * every wider window fails too, so the loops stop there.
	 */
	int lack_in = 0;
	for (int p = bl; p <= bh; p++)
		if (!(nat & (1u << p)) && !h[natural_card(s, p)])
			lack_in++;
	for (int lo = bl, lack_lo = 0; lo >= 1; lo--) {
		if (lo < bl && !h[natural_card(s, lo)])
			lack_lo++;
		if (lack_in + lack_lo > maxw)
			break;
		for (int hi = bh, lack_hi = 0; hi <= 14; hi++) {
			int P[14], np = 0;
			if (hi > bh && !h[natural_card(s, hi)])
				lack_hi++;
			if (lack_in + lack_lo + lack_hi > maxw || hi - lo + 1 > 14)
				break;
			for (int p = lo; p <= hi; p++)
				if (!(nat & (1u << p)))
					P[np++] = p;
			/* Q: up to max_wilds wild-filled positions among P (-1: none) */
			for (int a = -1; a < np; a++) {
				for (int b = a; b < np; b++) {
					int qa = a >= 0 ? P[a] : 0, qb = (b > a) ? P[b] : 0;
					int nq = (qa ? 1 : 0) + (qb ? 1 : 0), reuse = 0, need, ok = 1;
					if (a < 0 && b >= 0)
						continue;
					if (nq > maxw)
						continue;
					memset(cand, 0, sizeof(cand));
					for (int k = 0; k < np && ok; k++) {
						int p = P[k];
						rpl_card c;
						if (p == qa || p == qb) {
							if (!floating && (wmask & (1u << p)))
								reuse++;
							continue;
						}
						/* a fixed wild's position left without its natural keeps the wild */
						if (!floating && (wmask & (1u << p)) && !h[natural_card(s, p)]) {
							ok = 0;
							break;
						}
						c = natural_card(s, p);
						if (!spare(h, cand, c))
							ok = 0;
						else
							cand[c]++;
					}
					if (!ok)
						continue;
					need = floating ? (nq > nw ? nq - nw : 0) : nq - reuse;
					for (int w1 = 0; w1 < (need > 0 ? 5 : 1); w1++) {
						for (int w2 = (need > 1 ? w1 : 0); w2 < (need > 1 ? 5 : 1); w2++) {
							cardset c2;
							memcpy(c2, cand, sizeof(c2));
							if (need > 0) {
								if (!spare(h, c2, wild_faces[w1]))
									continue;
								c2[wild_faces[w1]]++;
							}
							if (need > 1) {
								if (!spare(h, c2, wild_faces[w2]))
									continue;
								c2[wild_faces[w2]]++;
							}
							emit_lay(ge, RPL_ACT_ADD, side, i, c2);
						}
					}
				}
			}
		}
	}
}

static void gen_adds(struct gen *ge, const cardset h, int side, int i)
{
	const struct meld *m = &ge->g->melds[side][i];
	unsigned nat = 0, wmask = 0;
	cardset cand;

	for (int p = m->lo; p <= m->hi; p++)
		nat |= 1u << p;
	for (int k = 0; k < m->nw; k++) {
		nat &= ~(1u << m->wpos[k]);
		wmask |= 1u << m->wpos[k];
	}
	if (RV(&ge->g->rules, WILD_MOBILITY) == RPL_WILD_FIXED) {
		gen_adds_from(ge, h, side, i, nat, wmask, m->nw);
	} else {
		/* a floating meld is its cards: any window holding them all (aces and 2s may move) */
		cardset req, all;
		int must_lo = 14, must_hi = 0;
		memset(req, 0, sizeof(req));
		rpl__meld_cards(m, req);
		for (rpl_card c = 0; c < RPL_NFACES; c++)
			all[c] = (uint8_t)(h[c] + req[c]);
		/* its naturals 3..K cannot move: every window holds them */
		for (int p = 3; p <= 13; p++)
			if (nat & (1u << p)) {
				if (p < must_lo)
					must_lo = p;
				must_hi = p;
			}
		gen_windows(ge, all, m->suit, req, side, i, must_lo, must_hi);
	}
	/* a lone wild at an end (or the own-suit 2 going to its place) */
	for (int w = 0; w < 5; w++) {
		if (!h[wild_faces[w]])
			continue;
		memset(cand, 0, sizeof(cand));
		cand[wild_faces[w]] = 1;
		emit_lay(ge, RPL_ACT_ADD, side, i, cand);
	}
}

size_t rpl__legal_gen(const struct rpl_game *g, rpl_action *out, size_t cap, rpl__legal_keep keep, void *keep_ctx)
{
	struct gen *ge, stack_gen;
	rpl_action a;
	int side;

	ge = &stack_gen;
	ge->g = g;
	ge->out = out;
	ge->cap = out ? cap : 0;
	ge->keep = keep;
	ge->keep_ctx = keep_ctx;
	ge->n = 0;
	ge->nseen = 0;
	ge->slots = SEEN_FIRST;
	ge->seen = ge->first;
	ge->heap = NULL;
	memset(ge->first, 0, sizeof(ge->first));
	memset(&a, 0, sizeof(a));
	side = SIDE(g->seat);

	switch (g->phase) {
	case RPL_PHASE_MORTO:
		for (int m = 0; m < 2; m++) {
			a.kind = RPL_ACT_MORTO;
			a.morto = (uint8_t)m;
			try_emit(ge, &a);
		}
		break;
	case RPL_PHASE_DRAW:
		a.kind = RPL_ACT_DRAW;
		try_emit(ge, &a);
		a.kind = RPL_ACT_TAKE;
		try_emit(ge, &a);
		break;
	case RPL_PHASE_PLAY: {
		const uint8_t *h = g->hand[g->seat];
		a.kind = RPL_ACT_REJECT;
		try_emit(ge, &a);
		gen_windows(ge, h, -1, NULL, 0, 0, 14, 0);
		for (int i = 0; i < g->nmelds[side]; i++)
			gen_adds(ge, h, side, i);
		memset(&a, 0, sizeof(a));
		a.kind = RPL_ACT_DISCARD;
		a.ncards = 1;
		for (rpl_card c = 0; c < RPL_NFACES; c++) {
			if (!h[c])
				continue;
			a.cards[0] = c;
			try_emit(ge, &a);
		}
		break;
	}
	default: break;
	}
	free(ge->heap);
	return ge->n;
}
