/*
 * The pile: taking it, and the check that its card can be laid this turn
 * (the rule behind pile.unusable, docs/rules.md 11.3), which the bots ask
 * too (rpl__can_lay).
 */
#include <string.h>

#include "rules/game_impl.h"

/* Take the whole pile into the hand of the seat to move (no checks). */
static void take_commit(struct rpl_game *g)
{
	const struct rpl_rules *r = &g->rules;
	int rule = RV(r, PILE_RULE);
	rpl_card top = g->pile[g->pile_n - 1];

	g->duty = rule == RPL_PILE_USE_ANY ? DUTY_ANY : rule == RPL_PILE_TOP_LAID ? DUTY_TOP : DUTY_NONE;
	g->duty_top = top;
	/*
	 * "essa carta" (docs/rules.md 6.5): face, no card of that face, since a
	 * log names faces and either copy puts the same card back; true, the
	 * reading of the logs written before, lets a copy held before the take go
	 */
	g->return_face = NO_FACE;
	if (g->pile_n == 1 && (RV(r, ONE_CARD_PILE_NO_RETURN) == RPL_NO_RETURN_FACE ||
	                       (RV(r, ONE_CARD_PILE_NO_RETURN) == RPL_NO_RETURN_CARD && !g->hand[g->seat][top])))
		g->return_face = top;
	for (int i = 0; i < g->pile_n; i++) {
		g->hand[g->seat][g->pile[i]]++;
		g->taken[g->pile[i]]++;
		g->known[g->seat][g->pile[i]]++;
	}
	g->hand_n[g->seat] = (uint8_t)(g->hand_n[g->seat] + g->pile_n);
	g->pile_n = 0;
	g->phase = RPL_PHASE_PLAY;
	g->stats.pile_taken++;
}

/*
 * ---- The pile-take check ----
 *
 * Whether a card can be laid this turn: the rule behind rpl__game_take's refusal
 * pile.unusable (docs/rules.md 11.3) and the bots' judgement of a pile. It
 * lives in the engine, beside rpl__game_lay, because it asks rpl__game_lay
 * on a scratch copy whenever the meld rules alone cannot tell.
 * Candidates are built from the hand by the shape of runs; the check runs on
 * every take, so it skips what cannot succeed and copies no state where the
 * meld rules alone tell what the engine would say (post_accepts).
 */

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
		take_commit(t->post_buf);
		t->post = t->post_buf;
	}
	return t->post;
}

/*
 * Does the engine accept, in the post-take state, every lay of c that the
 * meld rules accept? Beyond the meld rules rpl__game_lay refuses only a decision
 * that is off (cards not held, a foreign or unknown meld, no room for a
 * meld), checked here, or a lay that does not keep two cards
 * (rpl__game_lay_keeps_two: the end-of-hand checks), which this leaves to the engine
 * itself (try_lay applies it): so no state needs copying for most lays.
 * The post-take state plays by the rules of the state the melds come from.
 */
static int post_accepts(const struct post_view *pv, int kind, int side, int idx, const struct meld *m,
                        const struct cand *c)
{
	int own = SIDE(pv->seat);

	if (!pv->play || c->n > 14 || !rpl__game_lay_keeps_two(pv->hand_n, c->n))
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
		if (rpl__game_lay(t->scratch, &a) == 0)
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
			/* floating wilds: the meld's own wild may move to fill the way (the meld rules arrange it),
			   the hand's natural taking the place it leaves (Jc 2d(Qc) Kc Ac with 9c and Qc: 2d as 10c) */
			if (m->nw > 0 && RV(t->r, WILD_MOBILITY) == RPL_WILD_FLOATING && c.n <= 14) {
				if (try_lay(t, RPL_ACT_ADD, side, idx, m, &c))
					return 1;
				for (int w = 0; w < m->nw; w++) {
					rpl_card nc = natural_card(s, m->wpos[w]);
					if (c.cnt[nc] >= h[nc] || c.n + 1 > 14)
						continue;
					cw = c;
					cw.cs.cnt = cw.cnt;
					cand_put(&cw, nc);
					if (try_lay(t, RPL_ACT_ADD, side, idx, m, &cw))
						return 1;
				}
			}
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

/*
 * The pile-take check: may the seat to move of g, having taken the pile,
 * lay any of the nx cards xs this turn (as rpl__can_lay with the post-take
 * state, made only if needed)? xs must be in h and h in the hand after the
 * take.
 */
static int take_usable(const struct rpl_game *g, const cardset h, const rpl_card *xs, int nx)
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

/*
 * The pile may be taken only if the card that must be laid can be laid this
 * turn, as confirmed by the engine on the state after the take, so that a
 * take never leads to a turn that cannot end (laying the card must leave a
 * card to discard, etc.). The engine accepting a lay implies the meld rules
 * do, so that check alone decides.
 */
int rpl__game_take(struct rpl_game *g)
{
	const struct rpl_rules *r = &g->rules;
	int rule = RV(r, PILE_RULE);
	rpl_card top;

	if (g->pile_n == 0)
		return rpl__game_refuse(g, RPL_RULE_PILE_EMPTY, "the pile is empty: draw from the stock");
	top = g->pile[g->pile_n - 1];
	if (RV(r, PILE_FREEZES) && RPL_IS_WILDCAPABLE(top))
		return rpl__game_refuse(g, RPL_RULE_PILE_FROZEN, "the pile is frozen: its top card %s is a wild",
		                        rpl_card_name(top));
	if (rule == RPL_PILE_TOP_LAID) {
		cardset h;
		memcpy(h, g->hand[g->seat], sizeof(h));
		h[top]++;
		if (!take_usable(g, h, &top, 1))
			return rpl__game_refuse(g, RPL_RULE_PILE_UNUSABLE,
			                        "the pile's top card %s cannot be laid this turn with the hand's cards or on the "
			                        "side's melds",
			                        rpl_card_name(top));
	} else if (rule == RPL_PILE_USE_ANY) {
		cardset h, seen;
		rpl_card xs[RPL_DECK_SIZE];
		int nx = 0;
		memcpy(h, g->hand[g->seat], sizeof(h));
		memset(seen, 0, sizeof(seen));
		/* each face of the pile once, top first */
		for (int i = g->pile_n - 1; i >= 0; i--) {
			rpl_card c = g->pile[i];
			h[c]++;
			if (!seen[c]) {
				seen[c] = 1;
				xs[nx++] = c;
			}
		}
		if (!take_usable(g, h, xs, nx))
			return rpl__game_refuse(
					g, RPL_RULE_PILE_UNUSABLE,
					"no card of the pile can be laid down this turn: the pile may not be taken just to keep "
					"cards");
	}
	take_commit(g);
	return 0;
}
