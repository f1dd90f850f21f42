/*
 * The search bot (RPL_BOT_SEARCH): Perfect Information Monte Carlo over
 * whole turns. At the draw it compares drawing with taking the pile; in
 * the rest of a turn it compares plans, each a sequence of decisions to
 * the end of the turn: the greedy bot's lays then each possible discard,
 * and each discard with nothing laid. A plan chosen is followed to its end
 * while the seat sees what the plan foresaw; a plan that ends before the
 * turn does (a hand laid down to the morto) is searched again from there.
 *
 * Each candidate is judged on the same samples of what the seat cannot see
 * (common random numbers: the candidates differ by their own worth, not by
 * their luck), each played out to the end of the deal by the greedy bot.
 * The first rollout of a sample is greedy alone, so that one sample judges
 * every candidate by the same future; the others take one decision in 16
 * at random, from a stream that is the same for every candidate.
 *
 * Why turns and many samples: a decision's worth is small beside the
 * spread of a deal's score (hundreds of points). Judged one decision at a
 * time on a few samples, the best of twenty near-equal discards is the one
 * with the luckiest samples, which plays worse than greedy's reasoned
 * choice (at four players in KZV the first version lost 113 points a deal
 * to greedy with 4 samples). Samples are drawn in blocks, and a candidate
 * worse than the best by 2.5 standard errors of their paired difference is
 * dropped, so that the samples go to the candidates still in question; a
 * decision stops when it has spent WIDTH rollouts a sample, which bounds
 * the longest decisions (those of many close candidates).
 *
 * Everything is counted in integers, so that a decision is the same on
 * every machine.
 */
#include <stdlib.h>
#include <string.h>

#include "libreplay/infoset.h"
#include "libreplay/sim.h"
#include "play/bot_impl.h"

/* The legal decisions read: the greedy bot's own bound. */
#define MAXMOVES 2048
/* The most candidates compared at one decision (the first found are kept). */
#define MAXCAND RPL_SEARCH_MAX_CANDIDATES
/* The most decisions of a plan: a longer turn (a huge pile laid) is searched again where the plan stops. */
#define MAXPLAN 48
/* A deal longer than this in a rollout is a bug of a bot, scored like a stuck turn. */
#define ROLLOUT_STEPS 4000
/* What a candidate that cannot be played out is worth: below any deal's score difference. */
#define STUCK (-100000)
/* Samples a block: candidates are dropped after each. */
#define BLOCK 8
/*
 * The rollouts a decision may spend: samples times this. A decision whose
 * candidates stay many and close stops when they are spent, so that the
 * longest decision costs about as much as one of WIDTH candidates.
 */
#define WIDTH 16

/* The bot's own turns in a row with the stock unmoved after which it plays a turn as the greedy bot. */
#define STILL_TURNS 8

struct plan {
	int len;
	rpl_action act[MAXPLAN];
};

struct rpl__search {
	int samples, rollouts;
	rpl_rng rng;
	rpl_bot *greedy; /* the rollouts' policy, the plans' lays and the choice beyond MAXCAND */
	rpl_game *det, *play, *work;
	rpl_action moves[MAXMOVES], more[MAXMOVES];
	int ncand;
	struct plan cand[MAXCAND];
	int live[MAXCAND];
	int32_t *value;      /* value[k * MAXCAND + c]: candidate c on the k-th rollout (of all samples) */
	int judged[MAXCAND]; /* the rollouts candidate c was judged on: its first judged[c] values */
	int keep;            /* a candidate never dropped (the review's played decision), or -1 */
	int hindsight;       /* judge on g itself rather than on samples (the review's hindsight) */
	int horizon;         /* turns a rollout plays after the current one, then stops (the review's); 0: to the end */
	int hand_weight;     /* percent of the hands' points a stopped rollout counts (the review's) */
	size_t cap;          /* rollouts value has room for */
	/* the plan being followed: its next decision and the position it foresees */
	struct plan plan;
	int plan_next, plan_turn;
	/*
	 * A deal that stops moving: the stock's count at the bot's last draw
	 * decision, how many of its draws in a row have found it the same, and
	 * the deal and turn it plays as the greedy bot (search_choose).
	 */
	int last_stock, still, greedy_deal, greedy_turn;
	rpl_game *expect;
	rpl_infoset seen, foreseen;
};

static void search_free(void *self)
{
	struct rpl__search *s = self;

	if (!s)
		return;
	rpl_bot_free(s->greedy);
	rpl_game_free(s->det);
	rpl_game_free(s->play);
	rpl_game_free(s->work);
	rpl_game_free(s->expect);
	free(s->value);
	free(s);
}

/*
 * A side's score at a rollout's end: the deal's score when it is over; when
 * the rollout stopped at its horizon, the score the deal would have if it
 * ended there, the cards in hand counted at s->hand_weight percent of their
 * points (they may yet be laid: docs/review.md, "The horizon").
 */
static int32_t leaf(const struct rpl__search *s, int side)
{
	rpl_score sc;

	rpl_game_deal_score(s->play, side, &sc);
	if (rpl_game_phase(s->play) >= RPL_PHASE_DEAL_OVER)
		return sc.total;
	return sc.melded + sc.bonus + sc.going_out + sc.morto + (int32_t)((int64_t)sc.hand * s->hand_weight / 100);
}

/*
 * Play s->play out to the end of its deal, or to the start of turn stop
 * when stop > 0: side's score less the other side's (leaf), or STUCK. With
 * noise, one decision in 16 is any legal one, drawn from noise.
 */
static int32_t rollout(struct rpl__search *s, int side, rpl_rng *noise, int stop)
{
	for (int step = 0; rpl_game_phase(s->play) < RPL_PHASE_DEAL_OVER; step++) {
		rpl_action a;
		if (step == ROLLOUT_STEPS)
			return STUCK;
		if (stop > 0 && rpl_game_turn_number(s->play) >= stop)
			break;
		if (noise && rpl_rng_below(noise, 16) == 0) {
			size_t n = rpl_game_legal(s->play, s->more, MAXMOVES);
			if (n == 0)
				return STUCK;
			a = s->more[rpl_rng_below(noise, (uint32_t)(n < MAXMOVES ? n : MAXMOVES))];
		} else if (rpl_bot_choose(s->greedy, s->play, &a) != 0) {
			return STUCK;
		}
		if (rpl_game_apply(s->play, &a) != 0)
			return STUCK;
	}
	return leaf(s, side) - leaf(s, 1 - side);
}

/* Add plan (prefix of len decisions, then last when not NULL) unless it is there already or the table is full. */
static void add_candidate(struct rpl__search *s, const rpl_action *prefix, int len, const rpl_action *last)
{
	struct plan *p = &s->cand[s->ncand];

	if (s->ncand == MAXCAND)
		return;
	memcpy(p->act, prefix, (size_t)len * sizeof(rpl_action));
	p->len = len;
	if (last)
		p->act[p->len++] = *last;
	for (int c = 0; c < s->ncand; c++)
		if (s->cand[c].len == p->len && !memcmp(s->cand[c].act, p->act, (size_t)p->len * sizeof(rpl_action)))
			return;
	s->ncand++;
}

/* Each discard of the legal list of s->work after prefix, greedy's own first (so a full table keeps it). */
static void add_discards(struct rpl__search *s, const rpl_action *prefix, int len, const rpl_action *greedy)
{
	size_t m = rpl_game_legal(s->work, s->more, MAXMOVES);

	if (m > MAXMOVES)
		m = MAXMOVES;
	if (greedy && greedy->kind == RPL_ACT_DISCARD)
		add_candidate(s, prefix, len, greedy);
	for (size_t i = 0; i < m; i++)
		if (s->more[i].kind == RPL_ACT_DISCARD)
			add_candidate(s, prefix, len, &s->more[i]);
}

/*
 * The candidates at g, whose n legal decisions are in s->moves. Out of the
 * play phase, each legal decision. In it: an ABERTO reject (the card drawn
 * next is news, so a plan stops there); the greedy bot's lays to the end of
 * the turn (s->work plays them on a copy of g: they read only what the seat
 * sees) followed by each discard then legal; each discard legal at once.
 */
static int make_candidates(struct rpl__search *s, const rpl_game *g, size_t n)
{
	int seat = rpl_game_seat(g), len = 0;
	rpl_action prefix[MAXPLAN], a;

	s->ncand = 0;
	if (rpl_game_phase(g) != RPL_PHASE_PLAY) {
		for (size_t i = 0; i < n && i < MAXCAND; i++)
			add_candidate(s, &s->moves[i], 1, NULL);
		return RPL_OK;
	}
	for (size_t i = 0; i < n; i++)
		if (s->moves[i].kind == RPL_ACT_REJECT)
			add_candidate(s, &s->moves[i], 1, NULL);
	rpl_game_copy(s->work, g);
	for (;;) {
		int err = rpl_bot_choose(s->greedy, s->work, &a);
		if (err)
			return err;
		if (a.kind == RPL_ACT_DISCARD || a.kind == RPL_ACT_REJECT || len == MAXPLAN - 1)
			break;
		err = rpl_game_apply(s->work, &a);
		if (err)
			return err;
		prefix[len++] = a;
		if (rpl_game_phase(s->work) != RPL_PHASE_PLAY || rpl_game_seat(s->work) != seat)
			break; /* out, or down to the morto: the plan ends with the lays */
	}
	if (rpl_game_phase(s->work) == RPL_PHASE_PLAY && rpl_game_seat(s->work) == seat && len < MAXPLAN - 1)
		add_discards(s, prefix, len, &a);
	else if (len > 0)
		add_candidate(s, prefix, len, NULL);
	if (len > 0) {
		rpl_game_copy(s->work, g);
		add_discards(s, prefix, 0, NULL);
	}
	if (s->ncand == 0) /* cannot be: greedy's choice is legal; play it */
		add_candidate(s, &a, 1, NULL);
	return RPL_OK;
}

/* The paired difference of candidate c less best over the first k values: is c worse by 2.5 standard errors? */
static int clearly_worse(const struct rpl__search *s, int c, int best, int k)
{
	int64_t sum = 0, sq = 0;

	for (int i = 0; i < k; i++) {
		int64_t d = (int64_t)s->value[(size_t)i * MAXCAND + (size_t)c] - s->value[(size_t)i * MAXCAND + (size_t)best];
		sum += d;
		sq += d * d;
	}
	/* mean < -2.5 se  <=>  sum < 0 and 4 sum^2 (k-1) > 25 (k sq - sum^2) */
	return sum < 0 && 4 * sum * sum * (k - 1) > 25 * ((int64_t)k * sq - sum * sum);
}

/* The live candidate with the greatest sum of its first k values (the first of equals). */
static int best_candidate(const struct rpl__search *s, int k)
{
	int best = -1;
	int64_t bestsum = 0;

	for (int c = 0; c < s->ncand; c++) {
		int64_t sum = 0;
		if (!s->live[c])
			continue;
		for (int i = 0; i < k; i++)
			sum += s->value[(size_t)i * MAXCAND + (size_t)c];
		if (best < 0 || sum > bestsum) {
			best = c;
			bestsum = sum;
		}
	}
	return best;
}

/*
 * Judge the candidates on samples of g for the seat to move: the index of
 * the best. With s->hindsight every sample is g itself, and every rollout
 * but the first has noise (else they would all be the same).
 */
static int judge(struct rpl__search *s, const rpl_game *g)
{
	int seat = rpl_game_seat(g), side = seat % 2, k = 0, nlive = s->ncand;
	int stop = s->horizon > 0 ? rpl_game_turn_number(g) + 1 + s->horizon : 0;
	/* the rollouts' noise: a stream for each sample and rollout, the same for every candidate */
	uint64_t base = rpl_rng_next(&s->rng);
	long spent = 0, budget = (long)s->samples * WIDTH;

	for (int c = 0; c < s->ncand; c++) {
		s->live[c] = 1;
		s->judged[c] = 0;
	}
	for (int j = 0; j < s->samples && nlive > 1 && spent < budget; j++) {
		int err = 0;
		if (s->hindsight)
			rpl_game_copy(s->det, g);
		else
			err = rpl_infoset_sample(g, seat, &s->rng, s->det);
		if (err)
			return err;
		if ((size_t)(k + s->rollouts) > s->cap) {
			/* grown as needed: most decisions stop long before the strength's samples */
			size_t cap = s->cap * 2 > (size_t)(k + s->rollouts) ? s->cap * 2 : (size_t)(k + s->rollouts);
			int32_t *v = realloc(s->value, cap * MAXCAND * sizeof(int32_t));
			if (!v)
				return RPL_ENOMEM;
			s->value = v;
			s->cap = cap;
		}
		for (int r = 0; r < s->rollouts; r++, k++)
			for (int c = 0; c < s->ncand; c++) {
				const struct plan *p = &s->cand[c];
				int32_t v = 0;
				rpl_rng noise;
				if (!s->live[c])
					continue;
				rpl_game_copy(s->play, s->det);
				for (int i = 0; i < p->len && v == 0; i++)
					if (rpl_game_apply(s->play, &p->act[i]) != 0)
						v = STUCK;
				if (v == 0) {
					rpl_rng_seed(&noise, base + (uint64_t)k);
					v = rollout(s, side, r || (s->hindsight && j) ? &noise : NULL, stop);
				}
				s->value[(size_t)k * MAXCAND + (size_t)c] = v;
				s->judged[c] = k + 1;
				spent++;
			}
		if ((j + 1) % BLOCK == 0 && j + 1 < s->samples) {
			int best = best_candidate(s, k);
			for (int c = 0; c < s->ncand; c++)
				if (s->live[c] && c != best && c != s->keep && clearly_worse(s, c, best, k)) {
					s->live[c] = 0;
					nlive--;
				}
		}
	}
	return best_candidate(s, k);
}

/* Is s following a plan that foresaw g? Then its next decision into *out. */
static int follow_plan(struct rpl__search *s, const rpl_game *g, rpl_action *out)
{
	int seat = rpl_game_seat(g);

	if (s->plan_next >= s->plan.len)
		return 0;
	if (rpl_game_turn_number(g) != s->plan_turn || rpl_infoset_get(g, seat, &s->seen) != 0 ||
	    rpl_infoset_get(s->expect, seat, &s->foreseen) != 0 || memcmp(&s->seen, &s->foreseen, sizeof(s->seen)) != 0) {
		s->plan_next = s->plan.len = 0;
		return 0;
	}
	*out = s->plan.act[s->plan_next++];
	if (rpl_game_apply(s->expect, out) != 0)
		s->plan_next = s->plan.len = 0;
	return 1;
}

static int search_choose(void *self, const rpl_game *g, rpl_action *out)
{
	struct rpl__search *s = self;
	size_t n;
	int best, err;

	if (!s->det) {
		s->det = rpl_game_clone(g);
		s->play = rpl_game_clone(g);
		s->work = rpl_game_clone(g);
		s->expect = rpl_game_clone(g);
		if (!s->det || !s->play || !s->work || !s->expect)
			return RPL_ENOMEM;
	}
	/*
	 * Takes of the pile and discards can go round the table for ever (the
	 * rules allow it: nothing is drawn). The greedy bot takes only a pile
	 * it lays from, so piles shrink; after STILL_TURNS of its own turns with
	 * the stock where it was, the search bot plays its turn as the greedy
	 * bot does, and the deal moves on.
	 */
	if (rpl_game_phase(g) == RPL_PHASE_DRAW) {
		int stock = rpl_game_stock_count(g);
		s->still = stock == s->last_stock ? s->still + 1 : 0;
		s->last_stock = stock;
		if (s->still >= STILL_TURNS) {
			s->greedy_deal = rpl_game_deal_number(g);
			s->greedy_turn = rpl_game_turn_number(g);
			s->plan_next = s->plan.len = 0;
		}
	}
	if (s->greedy_turn && s->greedy_deal == rpl_game_deal_number(g) && s->greedy_turn == rpl_game_turn_number(g))
		return rpl_bot_choose(s->greedy, g, out);
	if (follow_plan(s, g, out))
		return RPL_OK;
	n = rpl_game_legal(g, s->moves, MAXMOVES);
	if (n == 0)
		return RPL_ESTATE;
	if (n == 1) {
		*out = s->moves[0];
		return RPL_OK;
	}
	err = make_candidates(s, g, n < MAXMOVES ? n : MAXMOVES);
	if (err)
		return err;
	if (s->ncand == 1) {
		best = 0;
	} else {
		best = judge(s, g);
		if (best < 0)
			return best;
	}
	*out = s->cand[best].act[0];
	if (s->cand[best].len > 1) {
		s->plan = s->cand[best];
		s->plan_next = 1;
		s->plan_turn = rpl_game_turn_number(g);
		rpl_game_copy(s->expect, g);
		if (rpl_game_apply(s->expect, out) != 0)
			s->plan_next = s->plan.len = 0;
	}
	return RPL_OK;
}

int rpl_bot_new_search(rpl_bot **out, uint64_t seed, int samples, int rollouts)
{
	struct rpl__search *s;
	struct rpl__bot_ext ext;
	int err;

	if (!out)
		return RPL_EINVAL;
	*out = NULL;
	if (samples < 1 || samples > 1000 || rollouts < 1 || rollouts > 1000)
		return RPL_EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return RPL_ENOMEM;
	s->samples = samples;
	s->rollouts = rollouts;
	/* streams of their own, each a function of seed */
	rpl_rng_seed(&s->rng, seed);
	s->keep = -1;
	s->last_stock = -1;
	err = rpl__bot_new(&s->greedy, RPL_BOT_GREEDY, seed ^ 0x9E3779B97F4A7C15ull);
	if (err)
		goto fail;
	ext.choose = search_choose;
	ext.free = search_free;
	ext.self = s;
	err = rpl__bot_new_ext(out, RPL_BOT_SEARCH, seed, &ext);
	if (err)
		goto fail;
	return RPL_OK;
fail:
	search_free(s);
	return err;
}

/* ---- the judge, for the review (analysis/): bot_impl.h ---- */

int rpl__search_new(struct rpl__search **out, int samples)
{
	struct rpl__search *s;
	int err;

	*out = NULL;
	if (samples < 1 || samples > 1000)
		return RPL_EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return RPL_ENOMEM;
	s->samples = samples;
	s->rollouts = 1;
	s->keep = -1;
	err = rpl__bot_new(&s->greedy, RPL_BOT_GREEDY, 0);
	if (err) {
		search_free(s);
		return err;
	}
	*out = s;
	return RPL_OK;
}

void rpl__search_free(struct rpl__search *s)
{
	search_free(s);
}

int rpl__search_judge(struct rpl__search *s, const rpl_game *g, const rpl_action *cand, int n, int keep, int hindsight,
                      int samples, uint64_t seed, int horizon, int hand_weight)
{
	if (n < 2 || n > MAXCAND || samples < 1 || samples > 16000 || horizon < 0 || hand_weight < 0 || hand_weight > 100)
		return RPL_EINVAL;
	s->samples = samples;
	s->horizon = horizon;
	s->hand_weight = hand_weight;
	if (!s->det) {
		s->det = rpl_game_clone(g);
		s->play = rpl_game_clone(g);
		if (!s->det || !s->play)
			return RPL_ENOMEM;
	}
	for (int c = 0; c < n; c++) {
		s->cand[c].len = 1;
		s->cand[c].act[0] = cand[c];
	}
	s->ncand = n;
	s->keep = keep;
	s->hindsight = hindsight;
	rpl_rng_seed(&s->rng, seed);
	rpl__bot_reseed(s->greedy, seed ^ 0x9E3779B97F4A7C15ull);
	return judge(s, g);
}

int rpl__search_judged(const struct rpl__search *s, int c)
{
	return s->judged[c];
}

int32_t rpl__search_value(const struct rpl__search *s, int k, int c)
{
	return s->value[(size_t)k * MAXCAND + (size_t)c];
}

int rpl__search_greedy(struct rpl__search *s, const rpl_game *g, uint64_t seed, rpl_action *out)
{
	rpl__bot_reseed(s->greedy, seed);
	return rpl_bot_choose(s->greedy, g, out);
}

int rpl_bot_new(rpl_bot **out, int kind, uint64_t seed)
{
	if (kind == RPL_BOT_SEARCH)
		return rpl_bot_new_search(out, seed, RPL_SEARCH_SAMPLES, 1);
	return rpl__bot_new(out, kind, seed);
}
