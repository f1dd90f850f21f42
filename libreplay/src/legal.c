/*
 * What a player may do: the pile-take feasibility checks (can a card be laid
 * this turn?) and the legal-move generator. Candidates are built from the
 * hand by the shape of runs, then every one is confirmed by the engine
 * itself on a scratch copy, so the generator can never list a move that
 * rpl_game_apply refuses. The pile-take checks run on every take, so they
 * skip what cannot succeed and copy no state where the meld rules alone
 * tell what the engine would say (post_accepts).
 */
#include <string.h>

#include "game_impl.h"

/* Faces that can act as wilds, in id order. */
static const rpl_card wild_faces[5] = { 1, 14, 27, 40, RPL_JOKER };

/* A candidate lay: its counts, seen through masks for the meld checks, and its size. */
struct cand {
	cardset cnt;
	struct cards cs;
	int n;
};

static void cand_clear(struct cand *c)
{
	memset(c->cnt, 0, sizeof(c->cnt));
	c->cs.cnt = c->cnt;
	c->cs.any = 0;
	c->cs.multi = 0;
	c->n = 0;
}

static void cand_put(struct cand *c, rpl_card x)
{
	uint64_t bit = 1ull << x;

	if (c->cs.any & bit)
		c->cs.multi |= bit;
	c->cs.any |= bit;
	c->cnt[x]++;
	c->n++;
}

/*
 * The hand the cards come from: its counts, its wilds and, by suit, the
 * positions (1..14) whose natural it holds and the windows worth a look
 * (good_windows), worked out for a suit when first asked.
 */
struct hview {
	const uint8_t *h;
	unsigned pos[4];
	unsigned good[4][3];
	unsigned known;   /* bit s: pos[s] and good[s] are worked out */
	rpl_card wild[5]; /* the wild faces held, in id order */
	int nwild;
};

static void hview_init(struct hview *hv, const cardset h)
{
	hv->h = h;
	hv->known = 0;
	hv->nwild = 0;
	for (int i = 0; i < 5; i++)
		if (h[wild_faces[i]])
			hv->wild[hv->nwild++] = wild_faces[i];
}

/*
 * The windows worth a look: by length 3, 4, 5 (good[0..2]), the starts lo
 * (1..12, hi <= 14) of the windows that miss at most one natural of held,
 * one wild filling one position. A window misses two when it holds a pair
 * of missing positions; the pairs of a window one longer are those of the
 * two windows it covers plus its two ends.
 */
static void good_windows(unsigned held, unsigned good[3])
{
	unsigned miss = ~held & 0x7FFEu, bad = miss & miss >> 1;

	for (int len = 3; len <= 5; len++) {
		bad = bad | bad >> 1 | (miss & miss >> (len - 1));
		good[len - 3] = ~bad & ((2u << (15 - len)) - 1) & 0x1FFEu;
	}
}

static void hview_suit(struct hview *hv, int s)
{
	unsigned ranks;

	if (hv->known & 1u << s)
		return;
	ranks = rpl__cards_ranks(hv->h, s);
	/* rank r sits at position r; the ace also at 14 */
	hv->pos[s] = ranks << 1 | (ranks & 1u) << 14;
	good_windows(hv->pos[s], hv->good[s]);
	hv->known |= 1u << s;
}

/*
 * What the quick acceptance test needs of the post-take state: the seat,
 * the size of its hand, its side's melds, and the hand itself unless every
 * card tried is known to be in it.
 */
struct post_view {
	int play; /* the phase is PLAY */
	int seat, hand_n, nmelds;
	const struct meld *melds;
	const uint8_t *hand; /* NULL: the cards tried are held */
};

/*
 * Trying a candidate lay: its cards must form a meld (or extend one), and,
 * when exact, the engine must accept the lay in the post-take state (which
 * covers every other rule, such as keeping a card to discard).
 */
struct laytry {
	const struct rpl_rules *r;
	int exact;                   /* 0: the meld rules only */
	struct post_view pv;         /* exact: the post-take state as far as post_accepts reads it */
	const struct rpl_game *post; /* exact: the post-take state, or NULL until made from pre */
	const struct rpl_game *pre;  /* the state before the take, when post is made on demand */
	struct rpl_game *post_buf;   /* where it is made */
	struct rpl_game *scratch;
};

static void view_of(struct post_view *pv, const struct rpl_game *post)
{
	pv->play = post->phase == RPL_PHASE_PLAY;
	pv->seat = post->seat;
	pv->hand_n = post->hand_n[post->seat];
	pv->nmelds = post->nmelds[SIDE(post->seat)];
	pv->melds = post->melds[SIDE(post->seat)];
	pv->hand = post->hand[post->seat];
}

/* The post-take state, made on first need: most takes are decided without it. */
static const struct rpl_game *post_state(struct laytry *t)
{
	if (!t->post) {
		memcpy(t->post_buf, t->pre, sizeof(*t->post_buf));
		rpl__take_commit(t->post_buf);
		t->post = t->post_buf;
	}
	return t->post;
}

/*
 * Does the engine accept, in the post-take state, every lay of c that the
 * meld rules accept? do_lay refuses such a lay only when it empties the
 * hand or leaves one card (mortos, going out, keeping a card), or when the
 * decision itself is off (cards not held, a foreign or unknown meld, no
 * room for a meld): none of which holds here, so no state needs copying.
 * The post-take state plays by the rules of the state the melds come from.
 */
static int post_accepts(const struct post_view *pv, int kind, int side, int idx, const struct meld *m,
                        const struct cand *c)
{
	int own = SIDE(pv->seat);

	if (!pv->play || c->n > 14 || c->n + 1 >= pv->hand_n)
		return 0;
	if (kind == RPL_ACT_ADD) {
		if (side != own || idx >= pv->nmelds || memcmp(m, &pv->melds[idx], sizeof(*m)) != 0)
			return 0;
	} else if (pv->nmelds >= RPL_MAX_MELDS) {
		return 0;
	}
	for (uint64_t b = pv->hand ? c->cs.any : 0; b; b &= b - 1) {
		int x = ctz64(b);
		if (c->cnt[x] > pv->hand[x])
			return 0;
	}
	return 1;
}

/* The lay of c as a decision, its cards in id order. */
static void lay_action(rpl_action *a, int kind, int side, int idx, const struct cand *c)
{
	int k = 0;

	memset(a, 0, sizeof(*a));
	a->kind = (uint8_t)kind;
	a->side = (uint8_t)side;
	a->meld = (uint8_t)idx;
	for (rpl_card x = 0; x < RPL_NFACES && k < 14; x++)
		for (int i = 0; i < c->cnt[x] && k < 14; i++)
			a->cards[k++] = x;
	a->ncards = (uint8_t)k;
}

/* Is c, at some end, a lay the meld rules accept (and, when exact, the engine after the take)? */
static int try_lay(struct laytry *t, int kind, int side, int idx, const struct meld *m, const struct cand *c)
{
	rpl_action a;
	struct meld out;
	struct meld_fail f;
	int made = 0;

	for (int e = RPL_END_DEFAULT; e <= RPL_END_HIGH; e++) {
		int code = kind == RPL_ACT_MELD ? rpl__meld_arrange_cards(t->r, &c->cs, c->n, e, &out, &f)
		                                : rpl__meld_add_cards(t->r, m, &c->cs, c->n, e, &out, &f);
		if (code) {
			/* refused before the end was read: the other ends are refused alike */
			if (!f.ends)
				return 0;
			continue;
		}
		if (!t->exact || post_accepts(&t->pv, kind, side, idx, m, c))
			return 1;
		if (!made) {
			lay_action(&a, kind, side, idx, c);
			made = 1;
		}
		a.end = (uint8_t)e;
		memcpy(t->scratch, post_state(t), sizeof(*t->scratch));
		if (rpl__apply(t->scratch, &a) == 0)
			return 1;
	}
	return 0;
}

/*
 * Can a new meld of window lo..hi of suit s hold x? The window gets every
 * natural, or one wild at a position q instead. px: x's position, for a
 * natural x (0 for a wild-capable x).
 */
static int window_with(struct laytry *t, const struct hview *hv, int s, unsigned held, int lo, int hi, rpl_card x,
                       int px)
{
	unsigned win = (2u << hi) - (1u << lo), miss = win & ~held;
	rpl_card two = RPL_CARD_MAKE(s, 2);
	int has2 = lo <= 2 && hi >= 2, qlo = lo, qhi = hi;
	struct cand c;

	/* one wild fills one position: with two naturals missing the window is out */
	if (miss & (miss - 1))
		return 0;
	/* no wild: x is one of the naturals (a wild-capable x only as the suit's own 2) */
	if (!miss && (px || (x == two && has2))) {
		cand_clear(&c);
		for (int p = lo; p <= hi; p++)
			cand_put(&c, natural_card(s, p));
		if (try_lay(t, RPL_ACT_MELD, 0, 0, NULL, &c))
			return 1;
	}
	/* one wild w at q: the missing position, or any when none is missing */
	if (miss)
		qlo = qhi = ctz64(miss);
	for (int q = qlo; q <= qhi; q++) {
		for (int wi = 0; wi < hv->nwild; wi++) {
			rpl_card w = hv->wild[wi];
			/* the suit's own 2 as a wild while position 2 wants it too: two needed */
			if (w == two && has2 && q != 2 && hv->h[two] < 2)
				continue;
			if (px ? q == px : !(w == x || (x == two && has2 && q != 2)))
				continue;
			cand_clear(&c);
			for (int p = lo; p <= hi; p++)
				cand_put(&c, p == q ? w : natural_card(s, p));
			if (try_lay(t, RPL_ACT_MELD, 0, 0, NULL, &c))
				return 1;
		}
	}
	return 0;
}

/* The candidate windows of suit s that hold position p, or all of them (p = 0). */
static int windows_at(struct laytry *t, struct hview *hv, int s, int p, rpl_card x, int px)
{
	unsigned held;

	hview_suit(hv, s);
	held = hv->pos[s];
	for (int len = 3; len <= 5; len++) {
		unsigned starts = hv->good[s][len - 3];
		if (p) {
			/* lo <= p <= lo + len - 1 */
			starts &= (2u << p) - 1;
			if (p - len + 1 > 0)
				starts &= ~((1u << (p - len + 1)) - 1);
		}
		for (; starts; starts &= starts - 1) {
			int lo = ctz64(starts);
			if (window_with(t, hv, s, held, lo, lo + len - 1, x, px))
				return 1;
		}
	}
	return 0;
}

/*
 * Can a new meld holding x be made from the hand? Windows of 3 to 5
 * positions suffice (one wild at most), and a natural x must sit inside.
 */
static int new_meld_with(struct laytry *t, struct hview *hv, rpl_card x)
{
	if (!RPL_IS_WILDCAPABLE(x)) {
		int s = RPL_CARD_SUIT(x), p = RPL_CARD_RANK(x);
		/* an ace sits at 1 or 14: no window holds both */
		return windows_at(t, hv, s, p, x, p) || (p == 1 && windows_at(t, hv, s, 14, x, 14));
	}
	for (int s = 0; s < 4; s++)
		if (windows_at(t, hv, s, 0, x, 0))
			return 1;
	return 0;
}

/* Can x alone be added to meld idx of side (a run of x's suit, for a natural x)? */
static int add_alone(struct laytry *t, const struct meld *m, int side, int idx, rpl_card x)
{
	int natural = !RPL_IS_WILDCAPABLE(x);
	struct cand c;

	/* the meld rules answer many additions of a natural at once: a double, a card too far, a run continued */
	if (natural && rpl__meld_add_refused(t->r, m, x))
		return 0;
	cand_clear(&c);
	cand_put(&c, x);
	if (natural && rpl__meld_add_sure(t->r, m, x) && (!t->exact || post_accepts(&t->pv, RPL_ACT_ADD, side, idx, m, &c)))
		return 1;
	return try_lay(t, RPL_ACT_ADD, side, idx, m, &c);
}

/* Can x, with hand cards filling the way to it (a wild for one missing), be added to meld idx of side? */
static int add_beyond(struct laytry *t, const struct meld *m, int side, int idx, struct hview *hv, rpl_card x)
{
	const uint8_t *h = hv->h;
	struct cand c, cw;
	int lo = m->lo, hi = m->hi, s = m->suit, from, to;

	/* x must be a natural of the meld's suit, or its own 2 */
	if (RPL_IS_WILDCAPABLE(x) ? !(RPL_IS_TWO(x) && RPL_CARD_SUIT(x) == s) : RPL_CARD_SUIT(x) != s)
		return 0;
	hview_suit(hv, s);
	for (int pass = 0; pass < 2; pass++) {
		int p = RPL_CARD_RANK(x), missing = 0;
		if (pass == 1) {
			if (RPL_CARD_RANK(x) != 1)
				break;
			p = 14;
		}
		if (p >= lo && p <= hi)
			continue;
		from = p < lo ? p + 1 : hi + 1;
		to = p < lo ? lo - 1 : p - 1;
		/* each position on the way is another face, none of them x: two the hand lacks, and no wild fills both */
		if (from <= to && popcount64(~hv->pos[s] & ((2u << to) - (1u << from))) > 1)
			continue;
		cand_clear(&c);
		cand_put(&c, x);
		for (int q = from; q <= to; q++) {
			rpl_card nc = natural_card(s, q);
			if (c.cnt[nc] < h[nc])
				cand_put(&c, nc);
			else
				missing++;
		}
		if (missing == 0) {
			if (c.n <= 14 && try_lay(t, RPL_ACT_ADD, side, idx, m, &c))
				return 1;
		} else if (missing == 1) {
			for (int wi = 0; wi < hv->nwild; wi++) {
				rpl_card w = hv->wild[wi];
				if (c.cnt[w] >= h[w] || c.n + 1 > 14)
					continue;
				cw = c;
				cw.cs.cnt = cw.cnt;
				cand_put(&cw, w);
				if (try_lay(t, RPL_ACT_ADD, side, idx, m, &cw))
					return 1;
			}
		}
	}
	return 0;
}

/*
 * Can x be laid: added to a meld of side, alone or with hand cards on the
 * way, or in a new meld? The candidates are tried likeliest first (x alone,
 * new melds, then the rest); the answer does not depend on the order.
 */
static int can_lay_with(struct laytry *t, const struct rpl_game *g, int side, struct hview *hv, rpl_card x)
{
	const struct meld *ms = g->melds[side];
	int nm = g->nmelds[side], wild = RPL_IS_WILDCAPABLE(x), s = wild ? -1 : RPL_CARD_SUIT(x);

	/* a natural joins only runs of its suit: the others fail the suit check at every end */
	for (int i = 0; i < nm; i++)
		if ((wild || ms[i].suit == s) && add_alone(t, &ms[i], side, i, x))
			return 1;
	if (new_meld_with(t, hv, x))
		return 1;
	for (int i = 0; i < nm; i++)
		if ((wild || ms[i].suit == s) && add_beyond(t, &ms[i], side, i, hv, x))
			return 1;
	return 0;
}

int rpl__can_lay(const struct rpl_game *g, int side, const cardset h, rpl_card x, const struct rpl_game *post)
{
	struct rpl_game scratch;
	struct laytry t;
	struct hview hv;

	memset(&t, 0, sizeof(t));
	t.r = &g->rules;
	t.exact = post != NULL;
	t.post = post;
	t.scratch = &scratch;
	if (post)
		view_of(&t.pv, post);
	hview_init(&hv, h);
	return can_lay_with(&t, g, side, &hv, x);
}

int rpl__take_usable(const struct rpl_game *g, const cardset h, const rpl_card *xs, int nx)
{
	struct rpl_game scratch, post;
	struct laytry t;
	struct hview hv;
	int side = SIDE(g->seat);

	memset(&t, 0, sizeof(t));
	t.r = &g->rules;
	t.exact = 1;
	/* the take puts the pile in the hand and opens the play; the melds stay */
	t.pv.play = 1;
	t.pv.seat = g->seat;
	t.pv.hand_n = g->hand_n[g->seat] + g->pile_n;
	t.pv.nmelds = g->nmelds[side];
	t.pv.melds = g->melds[side];
	t.pv.hand = NULL;
	t.pre = g;
	t.post_buf = &post;
	t.scratch = &scratch;
	hview_init(&hv, h);
	for (int i = 0; i < nx; i++)
		if (can_lay_with(&t, g, side, &hv, xs[i]))
			return 1;
	return 0;
}

/* ---- the generator ---- */

#define SEEN_SLOTS 8192 /* open addressing; a power of two */

struct gen {
	const struct rpl_game *g;
	struct rpl_game scratch;
	rpl_action *out;
	size_t cap, n;
	uint64_t seen[SEEN_SLOTS]; /* action keys; 0 = empty */
	size_t nseen;
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

static int try_emit(struct gen *ge, const rpl_action *a)
{
	uint64_t key = action_key(a) | 1; /* never 0, the empty slot */
	size_t slot = (size_t)(key >> 3) & (SEEN_SLOTS - 1);

	while (ge->seen[slot]) {
		if (ge->seen[slot] == key)
			return 0;
		slot = (slot + 1) & (SEEN_SLOTS - 1);
	}
	memcpy(&ge->scratch, ge->g, sizeof(ge->scratch));
	if (rpl__apply(&ge->scratch, a) != 0)
		return 0;
	if (ge->nseen < SEEN_SLOTS / 2) {
		ge->seen[slot] = key;
		ge->nseen++;
	}
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
					if (q1 && (missing + 1 > maxw || (missing > 0 && q1 == miss[0]) ||
					           (missing > 1 && q1 == miss[1])))
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

size_t rpl_game_legal(const rpl_game *g, rpl_action *out, size_t cap)
{
	struct gen *ge, stack_gen;
	rpl_action a;
	int side;

	if (!g)
		return 0;
	ge = &stack_gen;
	ge->g = g;
	ge->out = out;
	ge->cap = out ? cap : 0;
	ge->n = 0;
	ge->nseen = 0;
	memset(ge->seen, 0, sizeof(ge->seen));
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
	default:
		break;
	}
	return ge->n;
}
