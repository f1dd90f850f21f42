/*
 * Integrity screening (integrity.h, docs/integrity.md): each decision's
 * evidence as a log is verified, a corpus's evidence summed by player and
 * pair, and the sign-flip test across each subject's deals.
 *
 * Why residuals against the seat's own samples, and not a rate against a
 * population's: a player's style (which cards it likes to throw) moves how
 * often its discards fit another hand, honestly; the samples of what it
 * could not see hold the style fixed (the card it chose) and vary only the
 * hidden cards. Why the candidates' mean too: the samples deal the unseen
 * cards at random, but a real hand is not random after its seat laid what
 * it could (it holds fewer runs in the making), so every card fits a real
 * hand less often than a sampled one; that shift is common to the cards
 * the seat could throw, and the seat's choice among them is what is tested.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "libreplay/infoset.h"
#include "libreplay/integrity.h"
#include "libreplay/sim.h"
#include "base/bits.h"
#include "analysis/integrity_impl.h"
#include "rules/game_impl.h"

const char *rpl_integrity_stat_name(int stat)
{
	static const char *const names[] = { "peek", "draw", "feed", "signal", "hindsight" };
	return stat >= 0 && stat < RPL_INTEGRITY_NSTATS ? names[stat] : NULL;
}

void rpl_integrity_options_init(rpl_integrity_options *o)
{
	if (!o)
		return;
	memset(o, 0, sizeof(*o));
	o->samples = RPL_INTEGRITY_SAMPLES;
	o->permutations = RPL_INTEGRITY_PERMUTATIONS;
	o->level = RPL_INTEGRITY_LEVEL;
	o->seed = 1;
	o->full_samples = RPL_INTEGRITY_FULL_SAMPLES;
}

static int options_ok(const rpl_integrity_options *o)
{
	return o && o->samples >= 1 && o->samples <= 4096 && o->permutations >= 99 && o->permutations <= 1000000 &&
	       o->level > 0 && o->level < 1 && (!o->full || (o->full_samples >= 2 && o->full_samples <= 1000));
}

/* ---- one log's evidence ---- */

/* The classes of cards a sample keeps in each hand: wild cards, and the naturals of each suit. */
enum { NCLASS = 5 };

struct screen {
	const rpl_integrity_options *o;
	rpl_integrity_fn fn;
	void *ctx;
	int deal, turn, step; /* where the last decision was, for its number in its turn */
	rpl_infoset is;
	int want[RPL_MAX_SEATS][NCLASS]; /* a discard's targets: their real hidden cards by class */
	int count[RPL_MAX_SEATS];        /* and how many of the candidates fit their real hands */
	struct rpl__full *full;          /* the full test's room, or NULL */
	rpl_reader *rd;                  /* the log read */
	int recorded[3];                 /* how far the deal's stock and mortos are recorded in order (the draw test) */
};

/* Could seat t's side lay card c if t held the cards h and c (the engine's own check, by the meld rules)? */
static int fits(const struct rpl_game *g, int t, const uint8_t *h, rpl_card c)
{
	cardset with;

	memcpy(with, h, sizeof(with));
	with[c]++;
	return rpl__can_lay(g, SIDE(t), with, c, NULL);
}

/* The calibration bin of an expected value q in 0..1. */
static int bin_of(double q)
{
	int b = (int)(q * RPL_INTEGRITY_BINS);
	return b < 0 ? 0 : b >= RPL_INTEGRITY_BINS ? RPL_INTEGRITY_BINS - 1 : b;
}

/* Add one option's observed x and expected q to d's calibration. */
static void calibrate(rpl_integrity_decision *d, double x, double q)
{
	d->cal_n[bin_of(q)]++;
	d->cal_sum[bin_of(q)] += x - q;
}

static int report(struct screen *s, rpl_integrity_decision *d, double observed, double expected)
{
	d->bin = bin_of(expected);
	d->observed = observed;
	d->expected = expected;
	d->residual = observed - expected;
	return s->fn ? s->fn(s->ctx, d) : 0;
}

/* A card's class: a wild card (a two or a joker), or a natural of one of the four suits. */
static int klass(rpl_card c)
{
	return RPL_IS_WILDCAPABLE(c) ? 0 : 1 + RPL_CARD_SUIT(c);
}

/*
 * The unseen cards of the seat's information set dealt once more to the
 * hidden cards of the other hands (seats in order), each hand getting as
 * many cards of each class as its real hidden cards hold (docs/integrity.md,
 * section 2: what is held fixed). byclass[k] lists the pool's cards of
 * class k (n[k] of them); each is partly shuffled in place.
 */
static void deal_hands(const struct screen *s, rpl_card byclass[][RPL_DECK_SIZE], const int *n, rpl_rng *rng,
                       uint8_t hands[][RPL_NFACES])
{
	int used[NCLASS] = { 0 };

	for (int t = 0; t < s->is.players; t++) {
		if (t == s->is.seat)
			continue;
		memcpy(hands[t], s->is.known[t], RPL_NFACES);
		for (int k = 0; k < NCLASS; k++)
			for (int i = 0; i < s->want[t][k] && used[k] < n[k]; i++, used[k]++) {
				int j = used[k] + (int)rpl_rng_below(rng, (uint32_t)(n[k] - used[k]));
				rpl_card c = byclass[k][j];
				byclass[k][j] = byclass[k][used[k]];
				byclass[k][used[k]] = c;
				hands[t][c]++;
			}
	}
}

/* The seat's legal discards, one a face, into cand: how many, with *chosen the played one's index (or -1). */
static int discards(const struct rpl_game *g, int seat, rpl_card played, rpl_card *cand, int *chosen)
{
	int nc = 0;

	*chosen = -1;
	for (rpl_card c = 0; c < RPL_NFACES; c++) {
		rpl_action a;
		if (!g->hand[seat][c])
			continue;
		memset(&a, 0, sizeof(a));
		a.kind = RPL_ACT_DISCARD;
		a.ncards = 1;
		a.cards[0] = c;
		if (rpl_game_check(g, &a, NULL) != 0)
			continue;
		if (c == played)
			*chosen = nc;
		cand[nc++] = c;
	}
	return nc;
}

/*
 * Sample the other hands until each target has o->samples samples in which
 * as many of the candidates fit its hand as fit its real one (or the budget
 * of tries is spent): hit[t][c] counts the accepted samples c fits,
 * got[t] the accepted samples.
 */
static void sample_fits(struct screen *s, const struct rpl_game *g, const rpl_card *cand, int nc, uint64_t seed,
                        int got[], int hit[][RPL_NFACES])
{
	rpl_card byclass[NCLASS][RPL_DECK_SIZE];
	uint8_t hands[RPL_MAX_SEATS][RPL_NFACES];
	int n[NCLASS] = { 0 }, seat = s->is.seat, open = 0;
	rpl_rng rng;

	for (int f = 0; f < RPL_NFACES; f++)
		for (int i = 0; i < s->is.unseen[f]; i++)
			byclass[klass((rpl_card)f)][n[klass((rpl_card)f)]++] = (rpl_card)f;
	for (int t = 0; t < g->n; t++)
		open += t != seat && s->count[t] > 0 && s->count[t] < nc;
	rpl_rng_seed(&rng, seed);
	for (long k = 0; k < (long)RPL_INTEGRITY_TRIES * s->o->samples && open > 0; k++) {
		deal_hands(s, byclass, n, &rng, hands);
		for (int t = 0; t < g->n; t++) {
			int f[RPL_NFACES], sum = 0;
			if (t == seat || s->count[t] == 0 || s->count[t] == nc || got[t] >= s->o->samples)
				continue;
			for (int c = 0; c < nc; c++)
				sum += f[c] = fits(g, t, hands[t], cand[c]);
			if (sum != s->count[t])
				continue;
			for (int c = 0; c < nc; c++)
				hit[t][c] += f[c];
			open -= ++got[t] == s->o->samples;
		}
	}
}

/*
 * A discard with a choice of cards: against each other seat's hand, did the
 * card fit it, and how often does it fit on samples of the unseen cards in
 * which as many of the cards the seat could throw fit that hand as fit the
 * real one (docs/integrity.md, section 2). A hand that every card or none
 * fits says nothing of the choice: no evidence then.
 */
static int on_discard(struct screen *s, const struct rpl_game *g, rpl_integrity_decision *d)
{
	rpl_card cand[RPL_NFACES];
	int real[RPL_MAX_SEATS][RPL_NFACES], hit[RPL_MAX_SEATS][RPL_NFACES], got[RPL_MAX_SEATS] = { 0 };
	int nc, chosen, seat = d->seat, err = 0;

	nc = discards(g, seat, d->played.cards[0], cand, &chosen);
	if (nc < 2 || chosen < 0 || rpl_infoset_get(g, seat, &s->is) != 0)
		return 0;
	memset(hit, 0, sizeof(hit));
	memset(s->want, 0, sizeof(s->want));
	for (int t = 0; t < g->n; t++) {
		s->count[t] = 0;
		if (t == seat)
			continue;
		for (int c = 0; c < RPL_NFACES; c++)
			if (g->hand[t][c] > s->is.known[t][c])
				s->want[t][klass((rpl_card)c)] += g->hand[t][c] - s->is.known[t][c];
		for (int c = 0; c < nc; c++)
			s->count[t] += real[t][c] = fits(g, t, g->hand[t], cand[c]);
	}
	sample_fits(s, g, cand, nc, rpl__mix64(s->o->seed ^ rpl__mix64(((uint64_t)d->deal << 32) + (uint64_t)d->number)),
	            got, hit);
	d->stat = RPL_INTEGRITY_FEED;
	d->choices = nc;
	for (int i = 1; i < g->n && !err; i++) {
		int t = (seat + i) % g->n;
		if (!got[t])
			continue;
		d->target = t;
		memset(d->cal_n, 0, sizeof(d->cal_n));
		memset(d->cal_sum, 0, sizeof(d->cal_sum));
		for (int c = 0; c < nc; c++)
			calibrate(d, real[t][c], (double)hit[t][c] / got[t]);
		err = report(s, d, real[t][chosen], (double)hit[t][chosen] / got[t]);
	}
	return err;
}

/*
 * A draw where the pile could have been taken: did the choice agree with
 * the stock's card (drawn when it fitted the seat's hand, the pile taken
 * when it did not), and how often would it on every card the stock could
 * hold, each as often as the seat's unseen cards hold it. Only where the
 * log records the stock's card (a later draw revealed it, in version 7).
 */
static int on_draw(struct screen *s, const struct rpl_game *g, rpl_integrity_decision *d)
{
	rpl_action a;
	int seat = d->seat, took = d->played.kind == RPL_ACT_TAKE;
	long agree = 0;

	if (g->src_pos >= g->src_len)
		return 0;
	{
		/* the stock's card is evidence only where the log records it: version 7 keeps of each pile the
		   order play revealed (rpl_reader_deal_recorded); the pile drawn from now: the stock, or the
		   morto that became it last */
		int cur = g->morto_state[1] == 2 ? 1 : g->morto_state[0] == 2 ? 0 : -1;
		if (g->src_pos >= s->recorded[cur + 1])
			return 0;
	}
	memset(&a, 0, sizeof(a));
	a.kind = took ? RPL_ACT_DRAW : RPL_ACT_TAKE;
	if (rpl_game_check(g, &a, NULL) != 0 || rpl_infoset_get(g, seat, &s->is) != 0 || s->is.unseen_n < 1)
		return 0;
	for (int f = 0; f < RPL_NFACES; f++)
		if (s->is.unseen[f])
			agree += (long)s->is.unseen[f] * (fits(g, seat, g->hand[seat], (rpl_card)f) != took);
	d->stat = RPL_INTEGRITY_DRAW;
	d->target = -1;
	d->choices = 2;
	{
		double q = (double)agree / s->is.unseen_n;
		int x = fits(g, seat, g->hand[seat], g->src[g->src_pos]) != took;
		/* both options: the one taken, and the other (which agrees exactly when this one does not) */
		calibrate(d, x, q);
		calibrate(d, 1 - x, 1 - q);
		return report(s, d, x, q);
	}
}

/* The evidence of the decision a (by the seat to move) at g, if it has any. */
static int evidence(struct screen *s, const struct rpl_game *g, const rpl_action *a, int turn, int step)
{
	rpl_integrity_decision d;
	rpl_deal_stats st;
	int err = 0;

	memset(&d, 0, sizeof(d));
	rpl_game_deal_stats((const rpl_game *)g, &st);
	d.deal = g->deal_no;
	d.turn = turn;
	d.number = st.actions + 1;
	d.step = step;
	d.seat = g->seat;
	d.played = *a;
	if (a->kind == RPL_ACT_DISCARD && g->phase == RPL_PHASE_PLAY)
		err = on_discard(s, g, &d);
	if ((a->kind == RPL_ACT_DRAW || a->kind == RPL_ACT_TAKE) && g->phase == RPL_PHASE_DRAW)
		err = on_draw(s, g, &d);
	if (err || !s->full || g->phase == RPL_PHASE_MORTO)
		return err;
	/* the full test: a record of its own, with no calibration (its evidence is already a difference) */
	memset(d.cal_n, 0, sizeof(d.cal_n));
	memset(d.cal_sum, 0, sizeof(d.cal_sum));
	d.bin = 0;
	err = rpl__full_judge(
			s->full, (const rpl_game *)g, a,
			rpl__mix64(s->o->seed ^ 0x46554C4Cull ^ rpl__mix64(((uint64_t)d.deal << 32) + (uint64_t)d.number)), &d);
	if (err <= 0)
		return err;
	return s->fn ? s->fn(s->ctx, &d) : 0;
}

static int before(void *ctx, const rpl_event *ev, const rpl_game *pub)
{
	struct screen *s = ctx;

	if (ev->kind != RPL_EV_ACTION)
		return 0;
	/* a deal's first decision: the reader's last deal event was its own */
	if (ev->deal != s->deal && rpl_reader_deal_recorded(s->rd, s->recorded) != 0)
		memset(s->recorded, 0, sizeof(s->recorded));
	if (ev->deal != s->deal || ev->turn != s->turn) {
		s->deal = ev->deal;
		s->turn = ev->turn;
		s->step = 0;
	}
	return evidence(s, (const struct rpl_game *)pub, &ev->action, ev->turn, ++s->step);
}

int rpl_integrity_reader(rpl_reader *rd, const rpl_rules *rules, const rpl_integrity_options *o, rpl_integrity_fn fn,
                         void *ctx, rpl_verdict *out)
{
	return rpl_integrity_reader_trusted(rd, rules, NULL, o, fn, ctx, out);
}

int rpl_integrity_reader_trusted(rpl_reader *rd, const rpl_rules *rules, const rpl_keyring *trusted,
                                 const rpl_integrity_options *o, rpl_integrity_fn fn, void *ctx, rpl_verdict *out)
{
	struct screen *s;
	rpl_verify_observer obs;
	int err;

	if (!rd || !out || !options_ok(o))
		return RPL_EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return RPL_ENOMEM;
	s->o = o;
	s->fn = fn;
	s->ctx = ctx;
	s->rd = rd;
	if (o->full && rpl__full_new(&s->full, o->full_samples) != 0) {
		free(s);
		return RPL_ENOMEM;
	}
	obs.ctx = s;
	obs.before = before;
	obs.after = NULL;
	err = rpl_verify_reader_trusted(rd, rules, trusted, out, &obs);
	rpl__full_free(s->full);
	free(s);
	return err;
}
