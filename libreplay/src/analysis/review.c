/*
 * The review (review.h, docs/review.md): each decision of a seat valued
 * against its alternatives by the search bot's judge (play/search.c), on
 * samples of what the seat could not see.
 *
 * Why single decisions and not the search's whole-turn plans: a review says
 * which decision was wrong, and a player's turn is a sequence of them; each
 * candidate is followed by the greedy bot's play to the end of the deal, so
 * a lay that the greedy bot would make a moment later costs nothing.
 *
 * Why the candidate list is made on a sample of the position and not on the
 * position itself: the legal list and the greedy bot read only the seat's
 * own cards and the table, but the engine's check that a turn can still end
 * (rpl_game_legal) may look at an untouched morto; on a sample that morto is
 * one the seat could have, so a review cannot depend on the real one.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "libreplay/infoset.h"
#include "libreplay/review.h"
#include "libreplay/sim.h"
#include "base/bits.h"
#include "analysis/integrity_impl.h"
#include "play/bot_impl.h"

#define MAXMOVES 2048
#define MAXCAND RPL_SEARCH_MAX_CANDIDATES
/* A rollout's margin is clamped to this (a deal that could not end scores far below): the sums stay in 64 bits. */
#define CLAMP 20000
/*
 * The products of the tests below reach k^2 40000^2 10^4 (k up to 16,000
 * samples): past 64 bits, so they are taken in 128.
 */
__extension__ typedef __int128 wide;

struct rpl_reviewer {
	rpl_review_options o;
	struct rpl__search *search;
	rpl_game *view; /* the position the candidates are listed on: a sample of g, or g with hindsight */
	rpl_action moves[MAXMOVES];
	rpl_action cand[MAXCAND];
	char text[MAXCAND][128];
};

const char *rpl_review_class_name(int cls)
{
	static const char *const names[] = { NULL, "inaccuracy", "mistake", "blunder" };
	return cls >= 0 && cls <= RPL_REVIEW_BLUNDER ? names[cls] : NULL;
}

void rpl_review_options_init(rpl_review_options *o)
{
	if (!o)
		return;
	memset(o, 0, sizeof(*o));
	o->samples = RPL_REVIEW_SAMPLES;
	o->candidates = RPL_REVIEW_CANDIDATES;
	o->inaccuracy = RPL_REVIEW_INACCURACY_POINTS;
	o->mistake = RPL_REVIEW_MISTAKE_POINTS;
	o->blunder = RPL_REVIEW_BLUNDER_POINTS;
	o->significance = RPL_REVIEW_SIGNIFICANCE;
	o->seed = 1;
	o->horizon = RPL_REVIEW_HORIZON;
	o->hand_weight = RPL_REVIEW_HAND_WEIGHT;
	o->extend = RPL_REVIEW_EXTEND;
}

int rpl_reviewer_new(rpl_reviewer **out, const rpl_review_options *o)
{
	rpl_reviewer *rv;
	int err;

	if (!out)
		return RPL_EINVAL;
	*out = NULL;
	if (!o || o->samples < 2 || o->samples > 1000 || o->candidates < 2 || o->candidates > MAXCAND ||
	    o->inaccuracy < 1 || o->mistake < o->inaccuracy || o->blunder < o->mistake || o->blunder > CLAMP ||
	    o->significance < 0 || o->significance > 100 || o->horizon < 0 || o->horizon > 1000 || o->hand_weight < 0 ||
	    o->hand_weight > 100 || o->extend < 1 || o->extend > 8)
		return RPL_EINVAL;
	rv = calloc(1, sizeof(*rv));
	if (!rv)
		return RPL_ENOMEM;
	rv->o = *o;
	err = rpl__search_new(&rv->search, o->samples);
	if (err) {
		free(rv);
		return err;
	}
	*out = rv;
	return RPL_OK;
}

void rpl_reviewer_free(rpl_reviewer *rv)
{
	if (!rv)
		return;
	rpl__search_free(rv->search);
	rpl_game_free(rv->view);
	free(rv);
}

/* Add a to the candidates (analysis/integrity_impl.h): the review's list, and the full test's. */
void rpl__candidate_add(rpl_action *cand, char (*text)[128], int *n, int cap, const rpl_action *a)
{
	char t[128];

	if (*n >= cap)
		return;
	rpl_action_format(a, t, sizeof(t));
	for (int c = 0; c < *n; c++)
		if (!strcmp(text[c], t))
			return;
	memcpy(text[*n], t, sizeof(t));
	cand[(*n)++] = *a;
}

static int32_t clamped(const struct rpl__search *s, int k, int c)
{
	int32_t v = rpl__search_value(s, k, c);
	return v < -CLAMP ? -CLAMP : v > CLAMP ? CLAMP : v;
}

/*
 * The class of a loss of sum/k points and whether it is uncertain: some
 * threshold T within loss ± se, that is (sum - T k)^2 (k - 1) < k sq - sum^2
 * (integers: the class is the same on every machine).
 */
static void classify(rpl_review_decision *d, const rpl_review_options *o, int64_t sum, int64_t sq, int64_t k)
{
	const int32_t t[3] = { o->inaccuracy, o->mistake, o->blunder };

	d->cls = RPL_REVIEW_NONE;
	d->uncertain = 0;
	for (int i = 0; i < 3; i++) {
		wide off = (wide)sum - (wide)t[i] * k;
		if (off >= 0)
			d->cls = i + 1;
		if (k > 1 && off * off * (k - 1) < (wide)k * sq - (wide)sum * sum)
			d->uncertain = 1;
	}
}

/* The sums of the paired difference of candidate 1 less the played one (candidate 0) over the samples judged. */
static void paired(const rpl_reviewer *rv, int64_t *k, int64_t *sum, int64_t *sq)
{
	const struct rpl__search *s = rv->search;

	*k = rpl__search_judged(s, 0);
	*sum = *sq = 0;
	for (int i = 0; i < *k; i++) {
		int64_t x = (int64_t)clamped(s, i, 1) - clamped(s, i, 0);
		*sum += x;
		*sq += x * x;
	}
}

/*
 * Is the mean sum/k more than z10 tenths of a standard error above 0?
 * In integers: sum > 0 and 100 sum^2 (k - 1) > z10^2 (k sq - sum^2).
 */
static int above(int64_t k, int64_t sum, int64_t sq, int64_t z10)
{
	return sum > 0 && (k < 2 || (wide)100 * sum * sum * (k - 1) > (wide)z10 * z10 * ((wide)k * sq - (wide)sum * sum));
}

/* Is candidate 1 better than the played one by more than o.significance tenths of a standard error? */
static int significant(const rpl_reviewer *rv)
{
	int64_t k, sum, sq;

	paired(rv, &k, &sum, &sq);
	return above(k, sum, sq, rv->o.significance);
}

/*
 * Would one standard error either way change what is said of candidate 1
 * against the played one: whether it is preferred (the significance test)
 * or, when it is, the class of the loss? Then more samples are worth it.
 */
static int borderline(const rpl_reviewer *rv)
{
	const int32_t t[3] = { rv->o.inaccuracy, rv->o.mistake, rv->o.blunder };
	int64_t k, sum, sq, z = rv->o.significance;

	paired(rv, &k, &sum, &sq);
	if (k < 2)
		return 0;
	if (above(k, sum, sq, z > 10 ? z - 10 : 0) != above(k, sum, sq, z + 10))
		return 1;
	if (!above(k, sum, sq, z))
		return 0;
	for (int i = 0; i < 3; i++) {
		wide off = (wide)sum - (wide)t[i] * k;
		if (off * off * (k - 1) < (wide)k * sq - (wide)sum * sum)
			return 1;
	}
	return 0;
}

/* The figures of candidate best against the played one (candidate 0). */
static void fill(rpl_review_decision *d, const rpl_reviewer *rv, int best)
{
	const struct rpl__search *s = rv->search;
	int k = rpl__search_judged(s, 0);
	int64_t sp = 0, sb = 0, sq = 0;

	for (int i = 0; i < k; i++) {
		int64_t p = clamped(s, i, 0), b = clamped(s, i, best);
		sp += p;
		sb += b;
		sq += (b - p) * (b - p);
	}
	d->samples = k;
	d->sum_played = sp;
	d->sum_best = sb;
	d->sum_sq = sq;
	d->value_played = (double)sp / k;
	d->value_best = (double)sb / k;
	d->loss = (double)(sb - sp) / k;
	d->se = k > 1 ? sqrt((double)(k * sq - (sb - sp) * (sb - sp)) / ((double)k * k * (k - 1))) : 0;
	classify(d, &rv->o, sb - sp, sq, k);
	/* the loss's win% at an even deal, not at this deal's margin: docs/review.md, section 4 */
	d->win_loss = rpl_review_win_percent(d->loss) - 50.0;
	d->accuracy = rpl_review_accuracy(d->win_loss);
}

int rpl_review_one(rpl_review_decision *out, rpl_reviewer *rv, const rpl_game *g, const rpl_action *played)
{
	rpl_deal_stats st;
	rpl_action greedy;
	uint64_t seed;
	size_t n;
	int phase = rpl_game_phase(g), seat = rpl_game_seat(g), ncand = 0, best, err;

	if (!out || !rv || !g || !played)
		return RPL_EINVAL;
	if (phase != RPL_PHASE_DRAW && phase != RPL_PHASE_PLAY && phase != RPL_PHASE_MORTO)
		return RPL_ESTATE;
	if (rpl_game_check(g, played, NULL) != 0)
		return 0;
	rpl_game_deal_stats(g, &st);
	seed = rpl__mix64(rv->o.seed ^ rpl__mix64(((uint64_t)rpl_game_deal_number(g) << 32) + (uint64_t)st.actions));
	if (!rv->view && !(rv->view = rpl_game_clone(g)))
		return RPL_ENOMEM;
	if (rv->o.hindsight) {
		rpl_game_copy(rv->view, g);
	} else {
		rpl_rng rng;
		rpl_rng_seed(&rng, seed ^ 0x5851F42D4C957F2Dull);
		if ((err = rpl_infoset_sample(g, seat, &rng, rv->view)) != 0)
			return err;
	}
	n = rpl_game_legal(rv->view, rv->moves, MAXMOVES);
	if (n < 2)
		return 0;
	if (n > MAXMOVES)
		n = MAXMOVES;
	if ((err = rpl__search_greedy(rv->search, rv->view, seed, &greedy)) != 0)
		return err;
	rpl__candidate_add(rv->cand, rv->text, &ncand, rv->o.candidates, played);
	rpl__candidate_add(rv->cand, rv->text, &ncand, rv->o.candidates, &greedy);
	for (size_t i = 0; i < n && ncand < rv->o.candidates; i++)
		rpl__candidate_add(rv->cand, rv->text, &ncand, rv->o.candidates, &rv->moves[i]);
	if (ncand < 2)
		return 0;
	best = rpl__search_judge(rv->search, g, rv->cand, ncand, 0, rv->o.hindsight, rv->o.samples, seed, rv->o.horizon,
	                         rv->o.hand_weight);
	if (best > 0) {
		/*
		 * Measured again on twice the samples, other ones: the best of many
		 * noisy means is biased upwards. When one standard error either way
		 * would change what is said, measured once more on EXTEND times as
		 * many (a third stream), so that fewer decisions rest on the seed.
		 */
		rv->cand[1] = rv->cand[best];
		best = rpl__search_judge(rv->search, g, rv->cand, 2, 0, rv->o.hindsight, 2 * rv->o.samples,
		                         rpl__mix64(seed ^ 0xD1B54A32D192ED03ull), rv->o.horizon, rv->o.hand_weight);
		if (best >= 0 && rv->o.extend > 1 && borderline(rv))
			best = rpl__search_judge(rv->search, g, rv->cand, 2, 0, rv->o.hindsight, 2 * rv->o.extend * rv->o.samples,
			                         rpl__mix64(seed ^ 0x8CB92BA72F3D8DD7ull), rv->o.horizon, rv->o.hand_weight);
		if (best == 1 && !significant(rv))
			best = 0;
	}
	if (best < 0)
		return best;
	memset(out, 0, sizeof(*out));
	out->deal = rpl_game_deal_number(g);
	out->turn = rpl_game_turn_number(g);
	out->number = st.actions + 1;
	out->seat = seat;
	out->played = *played;
	out->best = rv->cand[best];
	out->greedy = greedy;
	out->candidates = ncand;
	fill(out, rv, best);
	return 1;
}

double rpl_review_win_percent(double margin)
{
	return 100.0 / (1.0 + exp(-margin / RPL_REVIEW_WIN_SCALE));
}

double rpl_review_accuracy(double win_loss)
{
	double a = 103.1668 * exp(-0.04354 * win_loss) - 3.1669;
	return a < 0 ? 0 : a > 100 ? 100 : a;
}

void rpl_review_summary_add(rpl_review_summary *s, const rpl_review_decision *d)
{
	if (!s || !d)
		return;
	s->decisions++;
	s->matched += !memcmp(&d->played, &d->best, sizeof(rpl_action));
	if (d->cls >= 0 && d->cls <= RPL_REVIEW_BLUNDER)
		s->classes[d->cls]++;
	s->accuracy_sum += d->accuracy;
	s->inverse_sum += 1.0 / (d->accuracy > 1.0 ? d->accuracy : 1.0);
	s->loss_sum += d->loss;
}

double rpl_review_summary_accuracy(const rpl_review_summary *s)
{
	if (!s || !s->decisions)
		return 100.0;
	/* a few bad decisions weigh more in the harmonic mean than their share of the plain one */
	return (s->accuracy_sum / s->decisions + s->decisions / s->inverse_sum) / 2.0;
}

double rpl_review_summary_match_rate(const rpl_review_summary *s)
{
	return s && s->decisions ? 100.0 * s->matched / s->decisions : 100.0;
}

struct walk {
	rpl_reviewer *rv;
	const rpl_review_options *o;
	rpl_review_fn fn;
	void *ctx;
};

static int before(void *ctx, const rpl_event *ev, const rpl_game *g)
{
	struct walk *w = ctx;
	rpl_review_decision d;
	int r;

	if (ev->kind != RPL_EV_ACTION || (w->o->deal && ev->deal != w->o->deal) ||
	    (w->o->seats && !((w->o->seats >> ev->seat) & 1u)))
		return 0;
	r = rpl_review_one(&d, w->rv, g, &ev->action);
	if (r < 0)
		return r;
	return r == 1 && w->fn ? w->fn(w->ctx, &d) : 0;
}

int rpl_review_reader(rpl_reader *rd, const rpl_rules *rules, const rpl_review_options *o, rpl_review_fn fn, void *ctx,
                      rpl_verdict *out)
{
	struct walk w = { NULL, o, fn, ctx };
	rpl_verify_observer obs = { &w, before, NULL };
	int err;

	if (!rd || !o || !out)
		return RPL_EINVAL;
	err = rpl_reviewer_new(&w.rv, o);
	if (err)
		return err;
	err = rpl_verify_reader_observe(rd, rules, out, &obs);
	rpl_reviewer_free(w.rv);
	return err;
}
