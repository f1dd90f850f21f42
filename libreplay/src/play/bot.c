/*
 * Deterministic deals and bots. The bots choose among the engine's own
 * legal moves (rpl_game_legal), so whatever they play is legal by
 * construction, and a turn can always end: the list holds only decisions
 * after which it can (rules/turn.c, docs/rules.md 11.10). What is left here
 * is strategy: the pile-use duty is met first, and a vulnerable side opens
 * with a plan that reaches the minimum from the hand. The planted cheaters
 * (test fixtures of the integrity screen) are the greedy bot but for their
 * discard, which reads a hand their seat may not see: they cheat on purpose.
 */
#include <stdlib.h>
#include <string.h>

#include "libreplay/sim.h"
#include "rules/game_impl.h"
#include "play/bot_impl.h"

#define MAXMOVES 2048

struct rpl_bot {
	int kind;
	int cheat; /* a cheater: the percent of its discards it cheats at */
	rpl_rng rng;
	rpl_action moves[MAXMOVES];
	struct rpl_game scratch;
	struct rpl__bot_ext ext; /* a bot of a later file of play/ (bot_impl.h), or zeros */
};

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void rpl_rng_seed(rpl_rng *rng, uint64_t seed)
{
	/* splitmix64 fills the state */
	for (int i = 0; i < 4; i++) {
		uint64_t z = (seed += 0x9E3779B97F4A7C15ull);
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
		z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
		rng->s[i] = z ^ (z >> 31);
	}
}

uint64_t rpl_rng_next(rpl_rng *rng)
{
	uint64_t *s = rng->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint32_t rpl_rng_below(rpl_rng *rng, uint32_t n)
{
	/* Lemire's multiply-shift with rejection: unbiased */
	uint64_t m = (uint64_t)(uint32_t)(rpl_rng_next(rng) >> 32) * n;
	uint32_t low = (uint32_t)m;
	if (low < n) {
		uint32_t t = (uint32_t)(-n) % n;
		while (low < t) {
			m = (uint64_t)(uint32_t)(rpl_rng_next(rng) >> 32) * n;
			low = (uint32_t)m;
		}
	}
	return (uint32_t)(m >> 32);
}

void rpl_layout_shuffle(rpl_layout *out, int nplayers, rpl_rng *rng)
{
	rpl_card deck[RPL_DECK_SIZE];
	int k = 0;

	memset(out, 0, sizeof(*out));
	for (rpl_card c = 0; c < RPL_NFACES; c++)
		for (int i = 0; i < rpl_card_copies(c); i++)
			deck[k++] = c;
	for (int i = RPL_DECK_SIZE - 1; i > 0; i--) {
		int j = (int)rpl_rng_below(rng, (uint32_t)i + 1);
		rpl_card t = deck[i];
		deck[i] = deck[j];
		deck[j] = t;
	}
	k = 0;
	for (int s = 0; s < nplayers; s++)
		for (int i = 0; i < RPL_HAND_SIZE; i++)
			out->hand[s][i] = deck[k++];
	for (int m = 0; m < 2; m++)
		for (int i = 0; i < RPL_MORTO_SIZE; i++)
			out->morto[m][i] = deck[k++];
	for (int i = 0; k < RPL_DECK_SIZE; i++)
		out->stock[i] = deck[k++];
}

static int is_cheater(int kind)
{
	return kind == RPL_BOT_PEEKER || kind == RPL_BOT_FEEDER || kind == RPL_BOT_SIGNALLER;
}

int rpl__bot_new(rpl_bot **out, int kind, uint64_t seed)
{
	rpl_bot *b;

	if (!out)
		return RPL_EINVAL;
	*out = NULL;
	if (kind != RPL_BOT_RANDOM && kind != RPL_BOT_GREEDY && kind != RPL_BOT_BLUNDER && !is_cheater(kind))
		return RPL_EINVAL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return RPL_ENOMEM;
	b->kind = kind;
	b->cheat = 100;
	rpl_rng_seed(&b->rng, seed);
	*out = b;
	return RPL_OK;
}

int rpl_bot_new_cheat(rpl_bot **out, int kind, uint64_t seed, int percent)
{
	int err;

	if (!out)
		return RPL_EINVAL;
	*out = NULL;
	if (!is_cheater(kind) || percent < 0 || percent > 100)
		return RPL_EINVAL;
	err = rpl__bot_new(out, kind, seed);
	if (err)
		return err;
	(*out)->cheat = percent;
	return RPL_OK;
}

int rpl__bot_new_ext(rpl_bot **out, int kind, uint64_t seed, const struct rpl__bot_ext *ext)
{
	int err = rpl__bot_new(out, RPL_BOT_GREEDY, seed);

	if (err)
		return err;
	(*out)->kind = kind;
	(*out)->ext = *ext;
	return RPL_OK;
}

void rpl__bot_reseed(rpl_bot *b, uint64_t seed)
{
	rpl_rng_seed(&b->rng, seed);
}

void rpl_bot_free(rpl_bot *b)
{
	if (b && b->ext.free)
		b->ext.free(b->ext.self);
	free(b);
}

/* The blunder bot is the greedy bot but for its injected decisions, a cheater but for its discards. */
static int greedy_like(const rpl_bot *b)
{
	return b->kind == RPL_BOT_GREEDY || b->kind == RPL_BOT_BLUNDER || is_cheater(b->kind);
}

static int is_lay(const rpl_action *a)
{
	return a->kind == RPL_ACT_MELD || a->kind == RPL_ACT_ADD;
}

/* Does laying a meet the pile-use duty? */
static int meets_duty(rpl_bot *b, const struct rpl_game *g, const rpl_action *a)
{
	memcpy(&b->scratch, g, sizeof(b->scratch));
	return rpl__apply(&b->scratch, a) == 0 && b->scratch.duty_done;
}

/* How much a lay is worth to the greedy bot: cards laid, canastras made. */
static int lay_worth(const struct rpl_game *g, const rpl_action *a, rpl_bot *b)
{
	int side = SIDE(g->seat), before = 0, after = 0;
	memcpy(&b->scratch, g, sizeof(b->scratch));
	if (rpl__apply(&b->scratch, a) != 0)
		return -1;
	for (int i = 0; i < g->nmelds[side]; i++)
		before += rpl__meld_bonus(&g->rules, rpl__meld_category(&g->melds[side][i]));
	for (int i = 0; i < b->scratch.nmelds[side]; i++)
		after += rpl__meld_bonus(&g->rules, rpl__meld_category(&b->scratch.melds[side][i]));
	return a->ncards * 10 + (after - before) + (b->scratch.phase >= RPL_PHASE_DEAL_OVER ? 1000 : 0);
}

/*
 * Lay greedily (the most cards first) on copy until the turn may end: the
 * minimum reached and, when need_duty, a card of the taken pile laid.
 * Returns 1 when it may, with the first lay in *first when asked; mv holds
 * MAXMOVES moves. A plan that lays the whole hand down short of the minimum
 * fails: the turn would go on with the morto, whose cards the bot has not
 * seen (and cannot count on).
 */
static int plan_greedy(struct rpl_game *copy, rpl_action *mv, int need_duty, rpl_action *first)
{
	int32_t min = RV(&copy->rules, VULNERABLE_MIN_OPEN);

	for (int step = 0; step < 40; step++) {
		size_t m = rpl_game_legal(copy, mv, MAXMOVES);
		int best = -1;
		size_t bestn = 0;
		if (m > MAXMOVES)
			m = MAXMOVES;
		for (size_t i = 0; i < m; i++)
			if (is_lay(&mv[i]) && mv[i].ncards > bestn) {
				best = (int)i;
				bestn = mv[i].ncards;
			}
		if (best < 0)
			return 0;
		if (step == 0 && first)
			*first = mv[best];
		if (rpl__apply(copy, &mv[best]) != 0)
			return 0;
		if (copy->phase != RPL_PHASE_PLAY && copy->phase != RPL_PHASE_MORTO)
			return 1; /* the deal is over */
		if (copy->laid_value >= min && (!need_duty || copy->duty_done))
			return 1;
		if (copy->phase == RPL_PHASE_MORTO)
			return 0;
	}
	return 0;
}

/*
 * A vulnerable side's opening: open only with a plan, made on a copy, that
 * reaches the minimum. After a take with a pile duty the same turn must also
 * lay a pile card, and the duty lay that a side with melds would make first
 * may spend the cards the minimum needs (a joker in a short meld): so each
 * lay that meets the duty is tried first, then the plain greedy plan, which
 * may meet it on the way. A plan's later steps are the greedy plan of the
 * state its first step leaves, so a plan once found is found again the next
 * step. Returns 1 with the first lay of such a plan in *first (when asked),
 * else 0.
 */
static int plan_opening(const struct rpl_game *g, rpl_action *first)
{
	struct rpl_game *copy = malloc(sizeof(*copy));
	rpl_action *mv = malloc(sizeof(rpl_action) * MAXMOVES * 2), *lays = mv + MAXMOVES;
	int need_duty = g->duty && !g->duty_done, ok = 0;

	if (!copy || !mv)
		goto cleanup;
	if (need_duty) {
		size_t m = rpl_game_legal(g, lays, MAXMOVES);
		if (m > MAXMOVES)
			m = MAXMOVES;
		/* the duty lays, most cards first (the greedy order) */
		for (size_t want = 14; want > 0 && !ok; want--)
			for (size_t i = 0; i < m && !ok; i++) {
				if (!is_lay(&lays[i]) || lays[i].ncards != want)
					continue;
				memcpy(copy, g, sizeof(*copy));
				if (rpl__apply(copy, &lays[i]) != 0 || !copy->duty_done)
					continue;
				/* short of the minimum: the rest from the hand, as plan_greedy would */
				if (copy->phase < RPL_PHASE_DEAL_OVER && copy->laid_value < RV(&g->rules, VULNERABLE_MIN_OPEN) &&
				    (copy->phase == RPL_PHASE_MORTO || !plan_greedy(copy, mv, 0, NULL)))
					continue;
				if (first)
					*first = lays[i];
				ok = 1;
			}
		if (ok)
			goto cleanup;
	}
	memcpy(copy, g, sizeof(*copy));
	ok = plan_greedy(copy, mv, need_duty, first);
cleanup:
	free(copy);
	free(mv);
	return ok;
}

static int opening_plan(rpl_bot *b, const struct rpl_game *g, size_t n)
{
	rpl_action first;

	if (!plan_opening(g, &first))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!memcmp(&b->moves[i], &first, sizeof(rpl_action)))
			return (int)i;
	return -1;
}

/*
 * May the seat to move take the pile (the decision take)? A vulnerable side
 * that has not opened takes only with a plan that opens it: after a take with
 * a pile duty the turn cannot end without laying a pile card, and laying it
 * opens the side, so without such a plan no end of the turn may be legal
 * (docs/rules.md 11.7). The greedy bot asks this of every take it wants
 * (with no duty too: it opens with the pile or not at all).
 */
static int take_opens(rpl_bot *b, const struct rpl_game *g, const rpl_action *take)
{
	int side = SIDE(g->seat);

	if (!g->vulnerable[side] || g->opened_before)
		return 1;
	memcpy(&b->scratch, g, sizeof(b->scratch));
	if (rpl__apply(&b->scratch, take) != 0)
		return 0;
	if (b->kind == RPL_BOT_RANDOM && !b->scratch.duty)
		return 1; /* no duty: the random bot need not open this turn */
	return plan_opening(&b->scratch, NULL);
}

/* The greedy bot's view of how much a card is worth keeping. Lower: discard it first. */
static int keep_score(const struct rpl_game *g, rpl_card c)
{
	const uint8_t *h = g->hand[g->seat];
	int side = SIDE(g->seat), score = 0;

	if (RPL_IS_WILDCAPABLE(c))
		return 1000;
	for (int d = -2; d <= 2; d++) {
		int r = RPL_CARD_RANK(c) + d;
		if (d == 0 || r < 1 || r > 13)
			continue;
		if (h[RPL_CARD_MAKE(RPL_CARD_SUIT(c), r)])
			score += (d == 1 || d == -1) ? 40 : 15;
	}
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < g->nmelds[s]; i++) {
			const struct meld *m = &g->melds[s][i];
			int p = RPL_CARD_RANK(c);
			if (m->suit != RPL_CARD_SUIT(c))
				continue;
			if (p == m->lo - 1 || p == m->hi + 1 || (p == 1 && m->hi == 13))
				score += s == side ? 200 : 60; /* do not feed the opponents' runs */
		}
	return score - rpl__card_value(&g->rules, c) / 5;
}

/*
 * The draw: take the pile or draw. The random bot takes one time in three
 * (when a vulnerable side's take opens it); the greedy one takes a pile one
 * of whose cards can be laid now (it will be: so piles shrink and a deal
 * cannot cycle through endless takes). n moves in b->moves.
 */
static int choose_draw(rpl_bot *b, const struct rpl_game *g, size_t n)
{
	int side = SIDE(g->seat), take = -1, pick = 0, useful = 0;
	cardset h;

	for (size_t i = 0; i < n; i++)
		if (b->moves[i].kind == RPL_ACT_TAKE)
			take = (int)i;
		else if (b->moves[i].kind == RPL_ACT_DRAW)
			pick = (int)i;
	if (take < 0)
		return pick;
	if (b->kind == RPL_BOT_RANDOM)
		return rpl_rng_below(&b->rng, 3) == 0 && take_opens(b, g, &b->moves[take]) ? take : pick;
	memcpy(h, g->hand[g->seat], sizeof(h));
	for (int i = 0; i < g->pile_n; i++)
		h[g->pile[i]]++;
	memcpy(&b->scratch, g, sizeof(b->scratch));
	if (rpl__apply(&b->scratch, &b->moves[take]) == 0) {
		struct rpl_game *post = malloc(sizeof(*post));
		if (post) {
			memcpy(post, &b->scratch, sizeof(*post));
			for (int i = 0; i < g->pile_n && !useful; i++)
				useful = rpl__can_lay(g, side, h, g->pile[i], NULL) && rpl__can_lay(g, side, h, g->pile[i], post);
			free(post);
		}
	}
	/* a vulnerable side that has not opened takes only what lets it open */
	if (useful)
		useful = take_opens(b, g, &b->moves[take]);
	return useful ? take : pick;
}

/* A lay that meets the pile-use duty: the greedy bot's of the most cards, the random bot's at random; or -1. */
static int choose_duty(rpl_bot *b, const struct rpl_game *g, size_t n)
{
	int best = -1;

	for (size_t i = 0; i < n; i++) {
		if (!is_lay(&b->moves[i]) || !meets_duty(b, g, &b->moves[i]))
			continue;
		if (best < 0 || (greedy_like(b) ? b->moves[i].ncards > b->moves[best].ncards : rpl_rng_below(&b->rng, 2) == 0))
			best = (int)i;
	}
	return best;
}

/* The random bot: a reject, a lay or a discard, each kind alike, then any of that kind; or -1. */
static int choose_random(rpl_bot *b, size_t n, size_t nlay)
{
	int want = (int)rpl_rng_below(&b->rng, 3), pick = -1;

	for (int tries = 0; tries < 8 && pick < 0; tries++) {
		size_t i = rpl_rng_below(&b->rng, (uint32_t)n);
		const rpl_action *a = &b->moves[i];
		int kind = a->kind == RPL_ACT_REJECT ? 0 : is_lay(a) ? 1 : 2;
		if (kind == 1 && !nlay)
			continue;
		if (kind != want && tries < 6)
			continue;
		pick = (int)i;
	}
	return pick;
}

/* The greedy bot's lay: the one worth most (lay_worth); or -1. */
static int choose_lay(rpl_bot *b, const struct rpl_game *g, size_t n)
{
	int best = -1, bestw = 0;

	for (size_t i = 0; i < n; i++) {
		int w;
		if (!is_lay(&b->moves[i]))
			continue;
		w = lay_worth(g, &b->moves[i], b);
		if (w > bestw) {
			best = (int)i;
			bestw = w;
		}
	}
	return best;
}

/*
 * Does card c fit seat t: could t's side lay c with t's hand and one more
 * c (had t taken the pile with c on top)? By the meld rules, with the
 * engine's own pile-take check. The cheaters' one test: it reads t's
 * hand, which the seat to move may not see.
 */
static int fits(const struct rpl_game *g, int t, rpl_card c)
{
	cardset h;

	memcpy(h, g->hand[t], sizeof(h));
	h[c]++;
	return rpl__can_lay(g, SIDE(t), h, c, NULL);
}

/*
 * A cheater's discard in place of the greedy bot's best (one that does not
 * go out): the lowest keep_score among the discards whose card fits the
 * seat it reads (the feeder: the next seat; the signaller: its partner) or
 * does not (the peeker: the next seat); best when there is none, at a
 * single discard, and at the discards it does not cheat at (drawn from its
 * stream only at two discards or more, and only when the percent is
 * neither 0 nor 100: so its stream is a function of its seed and the game,
 * and at 0 it is the greedy bot's).
 */
static int cheat_discard(rpl_bot *b, const struct rpl_game *g, size_t n, int best)
{
	int t = b->kind == RPL_BOT_SIGNALLER ? (g->n == 4 ? (g->seat + 2) % 4 : -1) : (g->seat + 1) % g->n;
	int want = b->kind != RPL_BOT_PEEKER, pick = -1, picks = 0, ndiscard = 0;

	for (size_t i = 0; i < n; i++)
		ndiscard += b->moves[i].kind == RPL_ACT_DISCARD;
	if (t < 0 || ndiscard < 2 || b->cheat == 0)
		return best;
	if (b->cheat < 100 && (int)rpl_rng_below(&b->rng, 100) >= b->cheat)
		return best;
	for (size_t i = 0; i < n; i++) {
		int s;
		if (b->moves[i].kind != RPL_ACT_DISCARD || fits(g, t, b->moves[i].cards[0]) != want)
			continue;
		s = keep_score(g, b->moves[i].cards[0]);
		if (pick < 0 || s < picks) {
			pick = (int)i;
			picks = s;
		}
	}
	return pick < 0 ? best : pick;
}

/*
 * A discard: the greedy one keeps what helps it and starves the opponents;
 * a discard that goes out first; a cheater's as cheat_discard says.
 */
static int choose_discard(rpl_bot *b, const struct rpl_game *g, size_t n)
{
	int best = -1, bests = 0;

	for (size_t i = 0; i < n; i++) {
		int s;
		if (b->moves[i].kind != RPL_ACT_DISCARD)
			continue;
		s = greedy_like(b) ? keep_score(g, b->moves[i].cards[0]) : (int)rpl_rng_below(&b->rng, 1000);
		/* a discard that goes out ends the deal in the bot's favour */
		memcpy(&b->scratch, g, sizeof(b->scratch));
		if (rpl__apply(&b->scratch, &b->moves[i]) == 0 && b->scratch.phase >= RPL_PHASE_DEAL_OVER &&
		    b->scratch.out_seat == g->seat)
			s = -100000;
		if (best < 0 || s < bests) {
			best = (int)i;
			bests = s;
		}
	}
	if (best >= 0 && bests > -100000 && is_cheater(b->kind))
		best = cheat_discard(b, g, n, best);
	return best;
}

/* The play after the draw, in order: the pile duty, a vulnerable opening, a lay, a discard. */
static int choose_play(rpl_bot *b, const struct rpl_game *g, size_t n)
{
	int side = SIDE(g->seat), pick = -1;
	int vuln_closed = g->vulnerable[side] && !g->opened_before && g->laid_value < RV(&g->rules, VULNERABLE_MIN_OPEN);
	size_t nlay = 0;

	for (size_t i = 0; i < n; i++)
		nlay += is_lay(&b->moves[i]);
	/* 1: the pile-use duty comes first; a vulnerable side that has not opened meets it inside a plan */
	if (g->duty && !g->duty_done)
		pick = vuln_closed ? opening_plan(b, g, n) : choose_duty(b, g, n);
	/* 2: a vulnerable side opens only with a plan that reaches the minimum */
	if (pick < 0 && nlay && vuln_closed) {
		pick = opening_plan(b, g, n);
		if (pick < 0)
			nlay = 0;
	}
	if (pick < 0 && b->kind == RPL_BOT_RANDOM)
		pick = choose_random(b, n, nlay);
	if (pick < 0 && greedy_like(b) && nlay)
		pick = choose_lay(b, g, n);
	if (pick < 0)
		pick = choose_discard(b, g, n);
	if (pick < 0)
		pick = (int)rpl_rng_below(&b->rng, (uint32_t)n);
	return pick;
}

int rpl_bot_choose(rpl_bot *b, const rpl_game *g, rpl_action *out)
{
	size_t n;
	int pick;

	if (!b || !g || !out)
		return RPL_EINVAL;
	if (g->phase != RPL_PHASE_DRAW && g->phase != RPL_PHASE_PLAY && g->phase != RPL_PHASE_MORTO)
		return RPL_ESTATE;
	if (b->ext.choose)
		return b->ext.choose(b->ext.self, g, out);
	n = rpl_game_legal(g, b->moves, MAXMOVES);
	if (n == 0)
		return RPL_ESTATE;
	if (n > MAXMOVES)
		n = MAXMOVES;
	/* the blunder bot: one decision in ten any legal one, drawn before the greedy bot's (which may draw too) */
	if (b->kind == RPL_BOT_BLUNDER && rpl_rng_below(&b->rng, 10) == 0) {
		*out = b->moves[rpl_rng_below(&b->rng, (uint32_t)n)];
		return RPL_OK;
	}
	pick = g->phase == RPL_PHASE_MORTO ? 0 : g->phase == RPL_PHASE_DRAW ? choose_draw(b, g, n) : choose_play(b, g, n);
	*out = b->moves[pick];
	return RPL_OK;
}
