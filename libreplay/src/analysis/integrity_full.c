/*
 * The integrity screen's full test (docs/integrity.md, section 2.1): did
 * the decision played do better on the real cards than on the cards its
 * seat could have been facing, more than the other decisions it could have
 * made did? The review's judge (play/search.c, as analysis/review.c uses
 * it) values each candidate twice: on samples of the unseen cards, and
 * with hindsight on the real deal; a candidate's hindsight gain is the
 * second less the first. The decision's evidence is the played one's gain
 * less the mean gain of all the candidates: the luck of the real cards,
 * which every candidate shares, cancels; what is left is how much better
 * the choice suited the real cards than the seat could know.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/integrity_impl.h"
#include "libreplay/infoset.h"
#include "libreplay/review.h"
#include "play/bot_impl.h"

#define MAXMOVES 2048
/* The most candidates a decision: fewer than the review's 16, since each is judged twice. */
#define FULL_CANDIDATES 8
/* A rollout's margin is clamped to this, as the review's is. */
#define CLAMP 20000

struct rpl__full {
	struct rpl__search *search;
	int samples;
	rpl_game *view;
	rpl_action moves[MAXMOVES];
	rpl_action cand[FULL_CANDIDATES];
	char text[FULL_CANDIDATES][128];
};

int rpl__full_new(struct rpl__full **out, int samples)
{
	struct rpl__full *f = calloc(1, sizeof(*f));

	*out = NULL;
	if (!f)
		return RPL_ENOMEM;
	f->samples = samples;
	if (rpl__search_new(&f->search, samples) != 0) {
		free(f);
		return RPL_ENOMEM;
	}
	*out = f;
	return RPL_OK;
}

void rpl__full_free(struct rpl__full *f)
{
	if (!f)
		return;
	rpl__search_free(f->search);
	rpl_game_free(f->view);
	free(f);
}

/* Candidate c's mean margin over the rollouts the judge gave it. */
static double mean_of(const struct rpl__search *s, int c)
{
	int k = rpl__search_judged(s, c);
	double sum = 0;

	for (int i = 0; i < k; i++) {
		int32_t v = rpl__search_value(s, i, c);
		sum += v < -CLAMP ? -CLAMP : v > CLAMP ? CLAMP : v;
	}
	return k ? sum / k : 0;
}

int rpl__full_judge(struct rpl__full *f, const rpl_game *g, const rpl_action *played, uint64_t seed,
                    rpl_integrity_decision *d)
{
	double gain[FULL_CANDIDATES], mean = 0;
	rpl_action greedy;
	rpl_rng rng;
	size_t m;
	int n = 0, err;

	if (!f->view && !(f->view = rpl_game_clone(g)))
		return RPL_ENOMEM;
	/* the candidates are listed on a sample of g, as the review lists them: never on the real hidden cards */
	rpl_rng_seed(&rng, seed ^ 0x5851F42D4C957F2Dull);
	if (rpl_infoset_sample(g, rpl_game_seat(g), &rng, f->view) != 0)
		return 0;
	m = rpl_game_legal(f->view, f->moves, MAXMOVES);
	if (m < 2)
		return 0;
	if (m > MAXMOVES)
		m = MAXMOVES;
	if ((err = rpl__search_greedy(f->search, f->view, seed, &greedy)) != 0)
		return err;
	rpl__candidate_add(f->cand, f->text, &n, FULL_CANDIDATES, played);
	rpl__candidate_add(f->cand, f->text, &n, FULL_CANDIDATES, &greedy);
	for (size_t i = 0; i < m && n < FULL_CANDIDATES; i++)
		rpl__candidate_add(f->cand, f->text, &n, FULL_CANDIDATES, &f->moves[i]);
	if (n < 2)
		return 0;
	/* on samples of the unseen cards, then on the real deal: the same candidates, every one judged on each */
	if ((err = rpl__search_judge(f->search, g, f->cand, n, 0, 0, f->samples, seed, RPL_REVIEW_HORIZON,
	                             RPL_REVIEW_HAND_WEIGHT)) < 0)
		return err;
	for (int c = 0; c < n; c++)
		gain[c] = -mean_of(f->search, c);
	if ((err = rpl__search_judge(f->search, g, f->cand, n, 0, 1, f->samples, seed ^ 0xD1B54A32D192ED03ull,
	                             RPL_REVIEW_HORIZON, RPL_REVIEW_HAND_WEIGHT)) < 0)
		return err;
	for (int c = 0; c < n; c++) {
		gain[c] += mean_of(f->search, c);
		mean += gain[c] / n;
	}
	d->stat = RPL_INTEGRITY_HINDSIGHT;
	d->target = -1;
	d->choices = n;
	d->observed = gain[0];
	d->expected = mean;
	d->residual = gain[0] - mean;
	return 1;
}
