/*
 * A corpus's integrity evidence by subject (integrity.h): each decision's
 * residual summed by player and by pair, deal by deal, and each subject's
 * sums tested by flipping their signs (docs/integrity.md, section 3).
 *
 * Why deals are the units of the test: the decisions of one deal share its
 * hidden hands (a hand rich in hearts fits many hearts), so their residuals
 * are correlated and a test that counted decisions as independent would
 * flag honest players many times more often than its level; the deals of a
 * player are independent shuffles.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "libreplay/integrity.h"
#include "libreplay/sim.h"
#include "base/grow.h"

/* How a decision's target sits from its seat: what the null model is kept by. */
enum { REL_NEXT, REL_PARTNER, REL_PREV, REL_DRAW, REL_HINDSIGHT, NREL };

/* One deal's evidence of a subject: the sum of its residuals (as the decisions report them) and their count. */
struct deal_sum {
	long match;
	int deal, group, rel;
	long n;
	double sum;
	int nbin[RPL_INTEGRITY_BINS]; /* its decisions by calibration bin */
};

/*
 * The calibration of one group, relation and bin: the options' excess
 * (observed less expected) summed and counted, and the sums over their deals
 * of S^2, S n and n^2 (S a deal's sum, n its count) for the variance of the
 * mean (the deals are its units, as in the tests); the deal being summed.
 */
struct null_acc {
	double sum, s2, sn, n2;
	long n;
	long cur_match;
	int cur_deal;
	double cur_sum;
	long cur_n;
};

/* A null model's group: a rules profile at a number of players. */
struct group {
	char *name;
	int players;
	struct null_acc cal[NREL][RPL_INTEGRITY_BINS]; /* every option's excess by relation and bin */
	double mean[NREL][RPL_INTEGRITY_BINS], var[NREL][RPL_INTEGRITY_BINS]; /* after finish: the centres */
};

struct subject {
	int stat;
	char *a, *b; /* the player; the pair's second or NULL (the corpus's names) */
	long decisions, matches, last_match;
	double observed, expected;
	struct deal_sum *d;
	size_t nd, cap;
	rpl_integrity_where ev[RPL_INTEGRITY_EVIDENCE];
	int nev;
	double z, p, level, baseline;
	int flagged;
};

struct rpl_integrity {
	rpl_integrity_options o;
	struct subject *sub;
	size_t nsub, capsub;
	long *slot; /* open addressing: index + 1 into sub, 0 empty */
	size_t nslot;
	char **names; /* every name once */
	size_t nnames, capnames;
	long *nameslot; /* open addressing: index + 1 into names, 0 empty */
	size_t nnameslot;
	struct group *groups;
	size_t ngroups, capgroups;
	long last_match;
	size_t *order; /* after finish: the lines, by evidence */
	int finished;
};

int rpl_integrity_new(rpl_integrity **out, const rpl_integrity_options *o)
{
	rpl_integrity *in;

	if (!out)
		return RPL_EINVAL;
	*out = NULL;
	if (!o || o->samples < 1 || o->samples > 4096 || o->permutations < 99 || o->permutations > 1000000 ||
	    !(o->level > 0 && o->level < 1))
		return RPL_EINVAL;
	in = calloc(1, sizeof(*in));
	if (!in)
		return RPL_ENOMEM;
	in->o = *o;
	in->last_match = -1;
	*out = in;
	return RPL_OK;
}

void rpl_integrity_free(rpl_integrity *in)
{
	if (!in)
		return;
	for (size_t i = 0; i < in->nsub; i++)
		free(in->sub[i].d);
	for (size_t i = 0; i < in->nnames; i++)
		free(in->names[i]);
	for (size_t i = 0; i < in->ngroups; i++)
		free(in->groups[i].name);
	free(in->groups);
	free(in->names);
	free(in->nameslot);
	free(in->sub);
	free(in->slot);
	free(in->order);
	free(in);
}

/* FNV-1a over the statistic and the names: where a subject's slot search starts. */
static uint64_t key_hash(int stat, const char *a, const char *b)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)stat;
	for (const char *p = a; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	h = (h ^ 0xff) * 1099511628211ull;
	for (const char *p = b ? b : ""; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	return h;
}

/* The corpus's copy of name (names are compared as pointers after this). */
static uint64_t name_hash(const char *name)
{
	uint64_t h = 1469598103934665603ull;

	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	return h;
}

/* The names' table twice as large, every name placed again. */
static int rehash_names(rpl_integrity *in)
{
	size_t n = in->nnameslot ? 2 * in->nnameslot : 64;
	long *slot = calloc(n, sizeof(*slot));

	if (!slot)
		return RPL_ENOMEM;
	for (size_t i = 0; i < in->nnames; i++) {
		size_t h = name_hash(in->names[i]) & (n - 1);
		while (slot[h])
			h = (h + 1) & (n - 1);
		slot[h] = (long)i + 1;
	}
	free(in->nameslot);
	in->nameslot = slot;
	in->nnameslot = n;
	return RPL_OK;
}

static char *intern(rpl_integrity *in, const char *name)
{
	size_t h;
	char *c;

	if (2 * (in->nnames + 1) > in->nnameslot && rehash_names(in) != 0)
		return NULL;
	for (h = name_hash(name) & (in->nnameslot - 1); in->nameslot[h]; h = (h + 1) & (in->nnameslot - 1))
		if (!strcmp(in->names[in->nameslot[h] - 1], name))
			return in->names[in->nameslot[h] - 1];
	{
		char **n = rpl__grow(in->names, &in->capnames, in->nnames + 1, sizeof(*n), 16);
		if (!n)
			return NULL;
		in->names = n;
	}
	c = strdup(name);
	if (c) {
		in->nameslot[h] = (long)in->nnames + 1;
		in->names[in->nnames++] = c;
	}
	return c;
}

static int rehash(rpl_integrity *in)
{
	size_t n = in->nslot ? 2 * in->nslot : 64;
	long *slot = calloc(n, sizeof(*slot));

	if (!slot)
		return RPL_ENOMEM;
	for (size_t i = 0; i < in->nsub; i++) {
		size_t h = key_hash(in->sub[i].stat, in->sub[i].a, in->sub[i].b) & (n - 1);
		while (slot[h])
			h = (h + 1) & (n - 1);
		slot[h] = (long)i + 1;
	}
	free(in->slot);
	in->slot = slot;
	in->nslot = n;
	return RPL_OK;
}

/* The subject (stat, a, b), a and b interned, made when new; NULL when out of memory. */
static struct subject *subject(rpl_integrity *in, int stat, char *a, char *b)
{
	size_t h;
	struct subject *s;

	if (2 * (in->nsub + 1) > in->nslot && rehash(in) != 0)
		return NULL;
	for (h = key_hash(stat, a, b) & (in->nslot - 1); in->slot[h]; h = (h + 1) & (in->nslot - 1)) {
		s = &in->sub[in->slot[h] - 1];
		if (s->stat == stat && s->a == a && s->b == b)
			return s;
	}
	{
		struct subject *n = rpl__grow(in->sub, &in->capsub, in->nsub + 1, sizeof(*n), 16);
		if (!n)
			return NULL;
		in->sub = n;
	}
	s = &in->sub[in->nsub];
	memset(s, 0, sizeof(*s));
	s->stat = stat;
	s->a = a;
	s->b = b;
	s->last_match = -1;
	in->slot[h] = (long)++in->nsub;
	return s;
}

/* Keep the RPL_INTEGRITY_EVIDENCE decisions of largest residual, the largest first (the first of equals). */
static void keep_evidence(struct subject *s, long match, const rpl_integrity_decision *d, double r)
{
	int i = s->nev < RPL_INTEGRITY_EVIDENCE ? s->nev++ : RPL_INTEGRITY_EVIDENCE;

	if (r <= 0 || (i == RPL_INTEGRITY_EVIDENCE && r <= s->ev[i - 1].residual))
		return;
	if (i == RPL_INTEGRITY_EVIDENCE)
		i--;
	while (i > 0 && s->ev[i - 1].residual < r) {
		s->ev[i] = s->ev[i - 1];
		i--;
	}
	s->ev[i].match = match;
	s->ev[i].deal = d->deal;
	s->ev[i].turn = d->turn;
	s->ev[i].number = d->number;
	s->ev[i].step = d->step;
	s->ev[i].residual = r;
}

/* Add one decision to s: its residual to its deal's sum; r, signed the statistic's way, to the evidence. */
static int add_to(struct subject *s, long match, int group, int rel, const rpl_integrity_decision *d, double r)
{
	struct deal_sum *last = s->nd ? &s->d[s->nd - 1] : NULL;

	if (!last || last->match != match || last->deal != d->deal) {
		struct deal_sum *n = rpl__grow(s->d, &s->cap, s->nd + 1, sizeof(*n), 8);
		if (!n)
			return RPL_ENOMEM;
		s->d = n;
		last = &s->d[s->nd++];
		memset(last, 0, sizeof(*last));
		last->match = match;
		last->deal = d->deal;
		last->group = group;
		last->rel = rel;
	}
	last->sum += d->residual;
	last->n++;
	last->nbin[d->bin]++;
	s->decisions++;
	s->observed += d->observed;
	s->expected += d->expected;
	if (s->last_match != match) {
		s->matches++;
		s->last_match = match;
	}
	if (r > 0)
		keep_evidence(s, match, d, r);
	return RPL_OK;
}

/* Close the deal a null accumulator was summing. */
static void null_flush(struct null_acc *a)
{
	a->s2 += a->cur_sum * a->cur_sum;
	a->sn += a->cur_sum * (double)a->cur_n;
	a->n2 += (double)a->cur_n * (double)a->cur_n;
	a->cur_sum = 0;
	a->cur_n = 0;
}

/* Add v, the sum of n values, of deal (match, deal) to a. */
static void null_add(struct null_acc *a, long match, int deal, double v, long n)
{
	if (a->cur_n && (a->cur_match != match || a->cur_deal != deal))
		null_flush(a);
	a->cur_match = match;
	a->cur_deal = deal;
	a->cur_sum += v;
	a->cur_n += n;
	a->sum += v;
	a->n += n;
}

/* The index of the group (name, players), made when new; -1 when out of memory. */
static int group_of(rpl_integrity *in, const char *name, int players)
{
	struct group *g;

	for (size_t i = 0; i < in->ngroups; i++)
		if (in->groups[i].players == players && !strcmp(in->groups[i].name, name))
			return (int)i;
	{
		struct group *n = rpl__grow(in->groups, &in->capgroups, in->ngroups + 1, sizeof(*n), 4);
		if (!n)
			return -1;
		in->groups = n;
	}
	g = &in->groups[in->ngroups];
	memset(g, 0, sizeof(*g));
	if (!(g->name = strdup(name)))
		return -1;
	g->players = players;
	return (int)in->ngroups++;
}

/* Where a decision's target sits from its seat (REL_*), or -1 for a target out of range. */
static int relation(const rpl_integrity_decision *x, int players)
{
	int off;

	if (x->stat == RPL_INTEGRITY_DRAW)
		return REL_DRAW;
	if (x->stat == RPL_INTEGRITY_HINDSIGHT)
		return REL_HINDSIGHT;
	if (x->stat != RPL_INTEGRITY_FEED || x->target < 0 || x->target >= players || x->target == x->seat)
		return -1;
	off = (x->target - x->seat + players) % players;
	return off == 1 ? REL_NEXT : off == 2 ? REL_PARTNER : REL_PREV;
}

/* Add one decision of the log to its subjects. */
static int add_decision(rpl_integrity *in, long match, char *const *who, int players, int group,
                        const rpl_integrity_decision *x, int rel)
{
	struct subject *s;

	if (rel == REL_DRAW || rel == REL_HINDSIGHT) {
		s = subject(in, rel == REL_DRAW ? RPL_INTEGRITY_DRAW : RPL_INTEGRITY_HINDSIGHT, who[x->seat], NULL);
		return s ? add_to(s, match, group, rel, x, x->residual) : RPL_ENOMEM;
	}
	if (rel == REL_NEXT &&
	    (!(s = subject(in, RPL_INTEGRITY_PEEK, who[x->seat], NULL)) || add_to(s, match, group, rel, x, -x->residual)))
		return RPL_ENOMEM;
	if (who[x->target] == who[x->seat])
		return RPL_OK; /* one player at both seats: no pair */
	s = subject(in, rel == REL_PARTNER ? RPL_INTEGRITY_SIGNAL : RPL_INTEGRITY_FEED, who[x->seat], who[x->target]);
	return s ? add_to(s, match, group, rel, x, x->residual) : RPL_ENOMEM;
}

int rpl_integrity_add(rpl_integrity *in, long match, const char *const *names, int players, const char *group,
                      const rpl_integrity_decision *d, size_t n)
{
	char *who[RPL_MAX_SEATS];
	int gi, err;

	if (!in || !names || !group || (!d && n) || (players != 2 && players != 4) || match <= in->last_match)
		return RPL_EINVAL;
	for (size_t i = 0; i < n; i++)
		if (d[i].seat < 0 || d[i].seat >= players || relation(&d[i], players) < 0)
			return RPL_EINVAL;
	for (int s = 0; s < players; s++)
		if (!names[s] || !(who[s] = intern(in, names[s])))
			return names[s] ? RPL_ENOMEM : RPL_EINVAL;
	if ((gi = group_of(in, group, players)) < 0)
		return RPL_ENOMEM;
	in->last_match = match;
	in->finished = 0;
	for (size_t i = 0; i < n; i++) {
		int rel = relation(&d[i], players);
		for (int b = 0; b < RPL_INTEGRITY_BINS; b++)
			if (d[i].cal_n[b])
				null_add(&in->groups[gi].cal[rel][b], match, d[i].deal, d[i].cal_sum[b], d[i].cal_n[b]);
		if (in->o.seats && !((in->o.seats >> d[i].seat) & 1u))
			continue;
		if ((err = add_decision(in, match, who, players, gi, &d[i], rel)) != 0)
			return err;
	}
	return RPL_OK;
}

/*
 * The sequential test stops once this many flips have reached the observed
 * sum: the p-value is then clearly not small, and most subjects are done
 * after a few hundred flips in place of all of them.
 */
#define STOP_AFTER 50

/*
 * The p-value of obs against random sign flips of x[0..n) (and the observed
 * signs), drawn from seed's stream: (1 + count) / (permutations + 1), count
 * the flips whose sum reaches obs; or, when STOP_AFTER flips reach it
 * before the permutations are spent, STOP_AFTER / (the flips drawn):
 * Besag and Clifford's sequential p-value (Biometrika 78, 1991), valid as
 * the full one is. The normal limit of the same when n * permutations is
 * over 50,000,000.
 */
static double flip_p(const double *x, size_t n, double obs, int permutations, uint64_t seed)
{
	double sq = 0, tol = 0;
	long count = 0;
	rpl_rng rng;

	for (size_t i = 0; i < n; i++) {
		sq += x[i] * x[i];
		tol += fabs(x[i]);
	}
	if (sq == 0)
		return 1.0;
	if ((double)n * permutations > 5e7)
		return 0.5 * erfc(obs / sqrt(2 * sq));
	/* sums equal to the observed one up to rounding count as reaching it */
	tol *= 1e-12;
	rpl_rng_seed(&rng, seed);
	for (int k = 0; k < permutations; k++) {
		double sum = 0;
		uint64_t bits = 0;
		for (size_t i = 0; i < n; i++) {
			if (!(i & 63))
				bits = rpl_rng_next(&rng);
			sum += (bits & 1) ? x[i] : -x[i];
			bits >>= 1;
		}
		count += sum >= obs - tol;
		if (count == STOP_AFTER)
			return (double)STOP_AFTER / (k + 1);
	}
	return (1.0 + count) / (permutations + 1.0);
}

double rpl_integrity_sign_test(const double *x, size_t n, int permutations, uint64_t seed)
{
	double obs = 0;

	if (!x || !n || permutations < 1)
		return 1.0;
	for (size_t i = 0; i < n; i++)
		obs += x[i];
	return flip_p(x, n, obs, permutations, seed);
}

/* The statistics a subject's names have: the tests a flag of theirs is corrected for. */
static int tests_of(const rpl_integrity *in, const struct subject *s)
{
	int n = 0;

	for (int stat = 0; stat < RPL_INTEGRITY_NSTATS; stat++)
		for (size_t h = key_hash(stat, s->a, s->b) & (in->nslot - 1); in->slot[h]; h = (h + 1) & (in->nslot - 1)) {
			const struct subject *o = &in->sub[in->slot[h] - 1];
			if (o->stat == stat && o->a == s->a && o->b == s->b) {
				n++;
				break;
			}
		}
	return n;
}

/* By evidence: the smallest p, the largest z, then the statistic and the names (a total order). */
static int by_evidence(const void *pa, const void *pb)
{
	const struct subject *a = *(const struct subject *const *)pa, *b = *(const struct subject *const *)pb;
	int c;

	if (a->p != b->p)
		return a->p < b->p ? -1 : 1;
	if (a->z != b->z)
		return a->z > b->z ? -1 : 1;
	if (a->stat != b->stat)
		return a->stat - b->stat;
	if ((c = strcmp(a->a, b->a)) != 0)
		return c;
	return strcmp(a->b ? a->b : "", b->b ? b->b : "");
}

/* An accumulator's mean a value and the variance of that mean (its deals as the units). */
static void mean_var(struct null_acc *a, double *mean, double *var)
{
	double m, v;

	if (a->cur_n)
		null_flush(a);
	m = a->n ? a->sum / (double)a->n : 0;
	v = a->n ? (a->s2 - 2 * m * a->sn + m * m * a->n2) / ((double)a->n * (double)a->n) : 0;
	*mean = m;
	*var = v > 0 ? v : 0;
}

/* Each group's centres: the calibration's mean excess an option, by relation and bin, and their variances. */
static void centres(rpl_integrity *in)
{
	for (size_t g = 0; g < in->ngroups; g++)
		for (int r = 0; r < NREL; r++)
			for (int b = 0; b < RPL_INTEGRITY_BINS; b++)
				mean_var(&in->groups[g].cal[r][b], &in->groups[g].mean[r][b], &in->groups[g].var[r][b]);
}

/*
 * The test of one subject: each deal's sum less its count times its
 * group's centre, signed the statistic's way; the centre's own variance
 * (its count squared times the variance of the mean) added to the deals'
 * squares, the observed sum scaled down to match, against its sign flips
 * drawn from a stream of the seed and the subject's names. cnt: room for
 * ngroups * NREL counts.
 */
static void test(const rpl_integrity *in, struct subject *s, double *x, long *cnt)
{
	double sum = 0, sq = 0, shift = 0, var = 0, sign = s->stat == RPL_INTEGRITY_PEEK ? -1 : 1;

	memset(cnt, 0, in->ngroups * NREL * RPL_INTEGRITY_BINS * sizeof(*cnt));
	for (size_t i = 0; i < s->nd; i++) {
		const struct deal_sum *d = &s->d[i];
		const struct group *g = &in->groups[d->group];
		double c = 0;
		for (int b = 0; b < RPL_INTEGRITY_BINS; b++)
			c += d->nbin[b] * g->mean[d->rel][b];
		x[i] = sign * (d->sum - c);
		shift += sign * c;
		sum += x[i];
		sq += x[i] * x[i];
		for (int b = 0; b < RPL_INTEGRITY_BINS; b++)
			cnt[((size_t)d->group * NREL + (size_t)d->rel) * RPL_INTEGRITY_BINS + (size_t)b] += d->nbin[b];
	}
	for (size_t g = 0; g < in->ngroups; g++)
		for (int r = 0; r < NREL; r++)
			for (int b = 0; b < RPL_INTEGRITY_BINS; b++) {
				double k = (double)cnt[(g * NREL + (size_t)r) * RPL_INTEGRITY_BINS + (size_t)b];
				var += k * k * in->groups[g].var[r][b];
			}
	s->baseline = s->decisions ? shift / (double)s->decisions : 0;
	s->z = sq + var > 0 ? sum / sqrt(sq + var) : 0;
	s->p = sq > 0 ? flip_p(x, s->nd, sum * sqrt(sq / (sq + var)), in->o.permutations,
	                       in->o.seed ^ key_hash(s->stat, s->a, s->b))
	              : 1.0;
	s->level = in->o.level / tests_of(in, s);
	s->flagged = s->p < s->level;
}

long rpl_integrity_finish(rpl_integrity *in)
{
	const struct subject **by = NULL;
	double *x = NULL;
	long *cnt = NULL;
	size_t most = 1;
	long n = RPL_ENOMEM;

	if (!in)
		return RPL_EINVAL;
	for (size_t i = 0; i < in->nsub; i++)
		if (in->sub[i].nd > most)
			most = in->sub[i].nd;
	free(in->order);
	in->order = malloc((in->nsub ? in->nsub : 1) * sizeof(*in->order));
	by = malloc((in->nsub ? in->nsub : 1) * sizeof(*by));
	x = malloc(most * sizeof(*x));
	cnt = malloc((in->ngroups ? in->ngroups : 1) * NREL * RPL_INTEGRITY_BINS * sizeof(*cnt));
	if (!in->order || !by || !x || !cnt)
		goto cleanup;
	centres(in);
	for (size_t i = 0; i < in->nsub; i++) {
		test(in, &in->sub[i], x, cnt);
		by[i] = &in->sub[i];
	}
	qsort(by, in->nsub, sizeof(*by), by_evidence);
	for (size_t i = 0; i < in->nsub; i++)
		in->order[i] = (size_t)(by[i] - in->sub);
	in->finished = 1;
	n = (long)in->nsub;
cleanup:
	free(by);
	free(x);
	free(cnt);
	return n;
}

int rpl_integrity_line_get(const rpl_integrity *in, long i, rpl_integrity_line *out)
{
	const struct subject *s;
	int sign;

	if (!in || !out || i < 0 || (size_t)i >= in->nsub)
		return RPL_EINVAL;
	if (!in->finished)
		return RPL_ESTATE;
	s = &in->sub[in->order[i]];
	sign = s->stat == RPL_INTEGRITY_PEEK ? -1 : 1;
	memset(out, 0, sizeof(*out));
	out->stat = s->stat;
	out->player = s->a;
	out->partner = s->b;
	out->decisions = s->decisions;
	out->deals = (long)s->nd;
	out->matches = s->matches;
	out->observed = s->observed;
	out->expected = s->expected;
	out->baseline = s->baseline;
	out->value = s->decisions ? sign * (s->observed - s->expected) / (double)s->decisions - s->baseline : 0;
	out->z = s->z;
	out->p = s->p;
	out->level = s->level;
	out->flagged = s->flagged;
	out->nevidence = s->nev;
	memcpy(out->evidence, s->ev, sizeof(out->evidence));
	return RPL_OK;
}
