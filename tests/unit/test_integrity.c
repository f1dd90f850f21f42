/*
 * The integrity screen's library (integrity.h): the sign-flip test on sums
 * whose answer is known; the evidence of a sample log (each discard's
 * expected value a probability, the observed one 0 or 1, every option in
 * the calibration, the played card among them); the same evidence twice;
 * a corpus made of it, its lines in their order and its refusals. The
 * statistics' calibration and the planted cheaters are tested through brp
 * integrity (tests/cli/integrity_check.py).
 */
#include "testlib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libreplay/integrity.h"

static void test_sign_test(void **state)
{
	double up[12], zero[5] = { 0 }, mixed[8] = { 1, -1, 2, -2, 1, -1, 2, -2 };
	double p, q;

	(void)state;
	for (int i = 0; i < 12; i++)
		up[i] = 1.0 + i / 10.0;
	/* every flip's sum is below the all-positive one but the observed signs: p = (1 + about 9999/4096) / 10000 */
	p = rpl_integrity_sign_test(up, 12, 9999, 1);
	assert_true(p > 1.0 / 10000 && p < 0.002);
	/* the same stream, the same p; another seed, about the same */
	assert_true(rpl_integrity_sign_test(up, 12, 9999, 1) == p);
	q = rpl_integrity_sign_test(up, 12, 9999, 2);
	assert_true(fabs(p - q) < 0.002);
	/* the lower tail of the same sums: every flip reaches them */
	for (int i = 0; i < 12; i++)
		up[i] = -up[i];
	assert_true(rpl_integrity_sign_test(up, 12, 9999, 1) > 0.999);
	/* sums of zero, no sum: nothing to test */
	assert_true(rpl_integrity_sign_test(zero, 5, 999, 1) == 1.0);
	assert_true(rpl_integrity_sign_test(up, 0, 999, 1) == 1.0);
	/* a sum of zero from opposite deals: about one flip in two reaches it (ties count) */
	p = rpl_integrity_sign_test(mixed, 8, 9999, 3);
	assert_true(p > 0.5 && p < 0.7);
	/* the normal limit past 50 million flips' worth: z = 12 / sqrt(12) */
	{
		double *ones = malloc(12000 * sizeof(double));
		assert_non_null(ones);
		for (int i = 0; i < 12000; i++)
			ones[i] = i < 6060 ? 1.0 : -1.0;
		p = rpl_integrity_sign_test(ones, 12000, 9999, 1);
		assert_true(fabs(p - 0.5 * erfc(120.0 / sqrt(12000.0) / sqrt(2.0))) < 1e-12);
		free(ones);
	}
}

struct kept {
	rpl_integrity_decision d[4096];
	size_t n;
};

static int keep(void *ctx, const rpl_integrity_decision *d)
{
	struct kept *k = ctx;

	assert_true(k->n < 4096);
	k->d[k->n++] = *d;
	return 0;
}

static void screen(const char *path, const rpl_integrity_options *o, struct kept *k)
{
	rpl_reader *rd = NULL;
	rpl_verdict v;

	k->n = 0;
	assert_int_equal(rpl_reader_open(&rd, path), 0);
	assert_int_equal(rpl_integrity_reader(rd, NULL, o, keep, k, &v), 0);
	assert_int_equal(v.kind, RPL_VERDICT_OK);
	rpl_reader_free(rd);
}

static void test_evidence(void **state)
{
	static struct kept a, b;
	rpl_integrity_options o;
	int discards = 0, draws = 0;

	(void)state;
	rpl_integrity_options_init(&o);
	screen(SRCROOT "/samples/kzv-4p.brp", &o, &a);
	assert_true(a.n > 50);
	for (size_t i = 0; i < a.n; i++) {
		const rpl_integrity_decision *d = &a.d[i];
		int options = 0;
		assert_true(d->observed == 0 || d->observed == 1);
		assert_true(d->expected >= 0 && d->expected <= 1);
		assert_true(fabs(d->residual - (d->observed - d->expected)) < 1e-12);
		assert_true(d->choices >= 2);
		assert_true(d->bin == (int)fmin(d->expected * RPL_INTEGRITY_BINS, RPL_INTEGRITY_BINS - 1));
		for (int k = 0; k < RPL_INTEGRITY_BINS; k++)
			options += d->cal_n[k];
		assert_int_equal(options, d->choices);
		assert_true(d->cal_n[d->bin] >= 1);
		if (d->stat == RPL_INTEGRITY_FEED) {
			discards++;
			assert_int_equal(d->played.kind, RPL_ACT_DISCARD);
			assert_true(d->target >= 0 && d->target < 4 && d->target != d->seat);
			/* the samples keep as many fitting candidates as the real hand: the expected values add up to it */
			{
				double sum = 0;
				for (int k = 0; k < RPL_INTEGRITY_BINS; k++)
					sum += d->cal_sum[k];
				assert_true(fabs(sum) < 1e-9);
			}
		} else {
			assert_int_equal(d->stat, RPL_INTEGRITY_DRAW);
			assert_true(d->played.kind == RPL_ACT_DRAW || d->played.kind == RPL_ACT_TAKE);
			assert_int_equal(d->target, -1);
			draws++;
		}
	}
	assert_true(discards > 0 && draws > 0);
	/* the same log, the same evidence; another seed, other samples */
	screen(SRCROOT "/samples/kzv-4p.brp", &o, &b);
	assert_int_equal(a.n, b.n);
	assert_memory_equal(a.d, b.d, a.n * sizeof(a.d[0]));
	o.seed = 2;
	screen(SRCROOT "/samples/kzv-4p.brp", &o, &b);
	assert_true(b.n != a.n || memcmp(a.d, b.d, a.n * sizeof(a.d[0])) != 0);
}

/* The log at src recorded again in the newest version (7: of the stock only what play drew) at dst. */
static void rerecord(const char *src, const char *dst)
{
	rpl_reader *rd = NULL;
	rpl_recorder *rec = NULL;
	rpl_event ev;

	assert_int_equal(rpl_reader_open(&rd, src), 0);
	assert_int_equal(rpl_recorder_open(&rec, dst, rpl_reader_info(rd), RPL_RECORD_UNCHECKED), 0);
	while (rpl_reader_next(rd, &ev) == 1) {
		if (ev.kind == RPL_EV_DEAL)
			assert_int_equal(rpl_recorder_deal(rec, &ev.layout), 0);
		else if (ev.kind == RPL_EV_ACTION)
			assert_int_equal(rpl_recorder_action(rec, &ev.action), 0);
		else if (ev.kind == RPL_EV_CLAIM)
			assert_int_equal(rpl_recorder_claim(rec, ev.deal, ev.score), 0);
	}
	assert_int_equal(rpl_recorder_close(rec), 0);
	rpl_recorder_free(rec);
	rpl_reader_free(rd);
}

/*
 * The draw test compares a choice with the stock's card only where the log
 * records it: the same match in version 7, which keeps of the stock only
 * what play drew, gives the same evidence but for the takes whose stock
 * card no later draw revealed (rpl_reader_deal_recorded).
 */
static void test_draw_recorded(void **state)
{
	static struct kept a, b;
	const char *v7 = tl_tmp_path("integrity-v7.brp");
	rpl_integrity_options o;
	size_t j = 0, dropped = 0;

	(void)state;
	rpl_integrity_options_init(&o);
	rerecord(SRCROOT "/samples/kzv-4p.brp", v7);
	screen(SRCROOT "/samples/kzv-4p.brp", &o, &a);
	screen(v7, &o, &b);
	for (size_t i = 0; i < a.n; i++) {
		if (j < b.n && memcmp(&a.d[i], &b.d[j], sizeof(a.d[i])) == 0) {
			j++;
			continue;
		}
		/* left out: a take whose stock card the version-7 log does not record */
		assert_int_equal(a.d[i].stat, RPL_INTEGRITY_DRAW);
		assert_int_equal(a.d[i].played.kind, RPL_ACT_TAKE);
		dropped++;
	}
	assert_int_equal(j, b.n);
	assert_true(dropped > 0);
	unlink(v7);
}

static void test_corpus(void **state)
{
	static struct kept k;
	const char *names[4] = { "ana", "bia", "caio", "duda" };
	rpl_integrity_options o;
	rpl_integrity *in = NULL;
	rpl_integrity_line l, prev;
	long n;

	(void)state;
	rpl_integrity_options_init(&o);
	screen(SRCROOT "/samples/kzv-4p.brp", &o, &k);
	assert_int_equal(rpl_integrity_new(&in, &o), 0);
	assert_int_equal(rpl_integrity_line_get(in, 0, &l), RPL_EINVAL);
	assert_int_equal(rpl_integrity_add(in, 1, names, 4, "kzv", k.d, k.n), 0);
	/* a match number not above the last, a bad table, a decision of no seat: refused */
	assert_int_equal(rpl_integrity_add(in, 1, names, 4, "kzv", k.d, k.n), RPL_EINVAL);
	assert_int_equal(rpl_integrity_add(in, 2, names, 3, "kzv", k.d, k.n), RPL_EINVAL);
	assert_int_equal(rpl_integrity_add(in, 2, names, 4, NULL, k.d, k.n), RPL_EINVAL);
	k.d[0].seat = 4;
	assert_int_equal(rpl_integrity_add(in, 2, names, 4, "kzv", k.d, 1), RPL_EINVAL);
	k.d[0].seat = 0;
	assert_int_equal(rpl_integrity_line_get(in, 0, &l), RPL_ESTATE);
	/* four players (peek, draw) and twelve ordered pairs (feed or signal) */
	n = rpl_integrity_finish(in);
	assert_int_equal(n, 4 * 2 + 12);
	for (long i = 0; i < n; i++) {
		assert_int_equal(rpl_integrity_line_get(in, i, &l), 0);
		assert_true(l.p > 0 && l.p <= 1);
		assert_true(l.decisions >= l.deals && l.deals >= 1 && l.matches == 1);
		assert_true(l.flagged == (l.p < l.level));
		assert_true(fabs(l.level - (l.partner ? 0.01 : 0.005)) < 1e-15);
		assert_true((l.partner != NULL) == (l.stat == RPL_INTEGRITY_FEED || l.stat == RPL_INTEGRITY_SIGNAL));
		if (l.stat == RPL_INTEGRITY_SIGNAL)
			assert_true((!strcmp(l.player, "ana") && !strcmp(l.partner, "caio")) ||
			            (!strcmp(l.player, "caio") && !strcmp(l.partner, "ana")) ||
			            (!strcmp(l.player, "bia") && !strcmp(l.partner, "duda")) ||
			            (!strcmp(l.player, "duda") && !strcmp(l.partner, "bia")));
		for (int e = 0; e < l.nevidence; e++) {
			assert_int_equal(l.evidence[e].match, 1);
			assert_true(l.evidence[e].residual > 0);
			assert_true(e == 0 || l.evidence[e].residual <= l.evidence[e - 1].residual);
		}
		/* by evidence: p up, then z down */
		if (i)
			assert_true(prev.p < l.p || (prev.p == l.p && prev.z >= l.z));
		prev = l;
	}
	assert_int_equal(rpl_integrity_line_get(in, n, &l), RPL_EINVAL);
	rpl_integrity_free(in);
	/* options out of range */
	o.permutations = 10;
	assert_int_equal(rpl_integrity_new(&in, &o), RPL_EINVAL);
	assert_null(in);
	rpl_integrity_free(NULL);
	assert_string_equal(rpl_integrity_stat_name(RPL_INTEGRITY_HINDSIGHT), "hindsight");
	assert_null(rpl_integrity_stat_name(RPL_INTEGRITY_NSTATS));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sign_test),
		cmocka_unit_test(test_evidence),
		cmocka_unit_test(test_draw_recorded),
		cmocka_unit_test(test_corpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
