/*
 * The search bot (RPL_BOT_SEARCH): Perfect Information Monte Carlo over the
 * engine's legal decisions. Each decision is judged on the same samples of
 * what the seat cannot see (common random numbers: the candidates differ
 * by their own worth, not by their luck), each played out to the end of
 * the deal by the greedy bot, which now and then takes a random decision
 * so that the rollouts of one sample differ.
 *
 * A rollout that cannot go on (a candidate after which the turn cannot
 * end: the generator may list one, docs/rules.md) scores as a deal lost by
 * far, so the candidate is never taken while another can be.
 */
#include <stdlib.h>
#include <string.h>

#include "libreplay/infoset.h"
#include "libreplay/sim.h"
#include "play/bot_impl.h"

/* The legal decisions read: the greedy bot's own bound. */
#define MAXMOVES 2048
/* A deal longer than this in a rollout is a bug of a bot, scored like a stuck turn. */
#define ROLLOUT_STEPS 4000
/* What a rollout that cannot go on is worth: below any deal's score difference. */
#define STUCK (-100000.0)

struct search {
	int samples, rollouts;
	rpl_rng rng;
	rpl_bot *greedy; /* the rollouts' policy and the choice beyond RPL_SEARCH_MAX_CANDIDATES */
	rpl_bot *random; /* the rollouts' random decisions */
	rpl_game *det, *play;
	rpl_action moves[MAXMOVES];
	double sum[RPL_SEARCH_MAX_CANDIDATES];
};

static void search_free(void *self)
{
	struct search *s = self;

	if (!s)
		return;
	rpl_bot_free(s->greedy);
	rpl_bot_free(s->random);
	rpl_game_free(s->det);
	rpl_game_free(s->play);
	free(s);
}

/* Play s->play out to the end of its deal; side's deal score less the other side's, or STUCK. */
static double rollout(struct search *s, int side)
{
	rpl_score mine, theirs;

	for (int step = 0; rpl_game_phase(s->play) < RPL_PHASE_DEAL_OVER; step++) {
		rpl_action a;
		rpl_bot *policy = rpl_rng_below(&s->rng, 16) == 0 ? s->random : s->greedy;
		if (step == ROLLOUT_STEPS || rpl_bot_choose(policy, s->play, &a) != 0 || rpl_game_apply(s->play, &a) != 0)
			return STUCK;
	}
	rpl_game_deal_score(s->play, side, &mine);
	rpl_game_deal_score(s->play, 1 - side, &theirs);
	return (double)mine.total - theirs.total;
}

static int search_choose(void *self, const rpl_game *g, rpl_action *out)
{
	struct search *s = self;
	size_t n = rpl_game_legal(g, s->moves, MAXMOVES);
	int seat = rpl_game_seat(g), side = seat % 2, best = 0;

	if (n == 0)
		return RPL_ESTATE;
	if (n == 1) {
		*out = s->moves[0];
		return RPL_OK;
	}
	if (n > RPL_SEARCH_MAX_CANDIDATES)
		return rpl_bot_choose(s->greedy, g, out);
	if (!s->det) {
		s->det = rpl_game_clone(g);
		s->play = rpl_game_clone(g);
		if (!s->det || !s->play)
			return RPL_ENOMEM;
	}
	memset(s->sum, 0, sizeof(s->sum));
	for (int k = 0; k < s->samples; k++) {
		int err = rpl_infoset_sample(g, seat, &s->rng, s->det);
		if (err)
			return err;
		for (size_t c = 0; c < n; c++)
			for (int r = 0; r < s->rollouts; r++) {
				rpl_game_copy(s->play, s->det);
				s->sum[c] += rpl_game_apply(s->play, &s->moves[c]) == 0 ? rollout(s, side) : STUCK;
			}
	}
	for (size_t c = 1; c < n; c++)
		if (s->sum[c] > s->sum[best])
			best = (int)c;
	*out = s->moves[best];
	return RPL_OK;
}

int rpl_bot_new_search(rpl_bot **out, uint64_t seed, int samples, int rollouts)
{
	struct search *s;
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
	err = rpl_bot_new(&s->greedy, RPL_BOT_GREEDY, seed ^ 0x9E3779B97F4A7C15ull);
	if (!err)
		err = rpl_bot_new(&s->random, RPL_BOT_RANDOM, seed ^ 0xD1B54A32D192ED03ull);
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
