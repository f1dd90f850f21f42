/*
 * Export, step 1: the integrity screen of a loaded ok log
 * (rpl_export_match_load_screened): the evidence of its decisions, as
 * rpl_integrity_reader gives it, summed by deal, seat, statistic, target
 * and calibration bin (the integrity_deals table, docs/schema.md): the
 * decisions whose expected value falls in the bin, and the calibration of
 * every option the key's decisions had that falls in it, from which the
 * null's centre is made (integrity.h).
 *
 * Why the screen reads the log again rather than riding on the load's
 * replay: rpl_integrity_reader verifies the log itself, so the rows are by
 * construction what brp integrity sums for the same log and options; a
 * second decode and replay costs little beside the screen's samples.
 */
#include <stdlib.h>
#include <string.h>

#include "export/export_impl.h"
#include "log/format.h"
#include "base/grow.h"

/* Where a row sorts among its deal's: by seat, then next, partner, previous, draw, then bin. */
static int rank_of(const struct xevidence *e, int players)
{
	int rel = e->stat == RPL_INTEGRITY_DRAW ? 3 : (e->target - e->seat + players) % players - 1;
	return (e->seat * 4 + rel) * RPL_INTEGRITY_BINS + e->bin;
}

/* The row of d's deal, seat, statistic and target in bin b, made when new: a deal's rows are the last ones. */
static struct xevidence *row_of(rpl_export_match *m, const rpl_integrity_decision *d, int target, int b)
{
	struct xevidence *e;

	for (size_t i = m->nevs; i-- > 0 && m->evs[i].deal == d->deal;)
		if (m->evs[i].seat == d->seat && m->evs[i].stat == d->stat && m->evs[i].target == target && m->evs[i].bin == b)
			return &m->evs[i];
	if (!(e = rpl__grow(m->evs, &m->capevs, m->nevs + 1, sizeof(*e), 256)))
		return NULL;
	m->evs = e;
	e = &m->evs[m->nevs++];
	memset(e, 0, sizeof(*e));
	e->deal = d->deal;
	e->seat = (int8_t)d->seat;
	e->stat = (int8_t)d->stat;
	e->target = (int8_t)target;
	e->bin = (int8_t)b;
	return e;
}

/* Add one decision's evidence to its bin's row, and its options to theirs (rpl_integrity_fn). */
static int add_evidence(void *ctx, const rpl_integrity_decision *d)
{
	rpl_export_match *m = ctx;
	struct xevidence *e;
	int target = d->stat == RPL_INTEGRITY_DRAW ? -1 : d->target;

	if (d->seat < 0 || d->seat >= m->nplayers || d->bin < 0 || d->bin >= RPL_INTEGRITY_BINS ||
	    (d->stat == RPL_INTEGRITY_DRAW
	             ? 0
	             : d->stat != RPL_INTEGRITY_FEED || target < 0 || target >= m->nplayers || target == d->seat))
		return RPL_EINVAL; /* not evidence integrity.h describes */
	for (int b = 0; b < RPL_INTEGRITY_BINS; b++) {
		if (!d->cal_n[b])
			continue;
		if (!(e = row_of(m, d, target, b)))
			return RPL_ENOMEM;
		e->options += d->cal_n[b];
		e->excess += d->cal_sum[b];
	}
	if (!(e = row_of(m, d, target, d->bin)))
		return RPL_ENOMEM;
	e->decisions++;
	e->observed += d->observed;
	e->expected += d->expected;
	e->residual += d->residual;
	return RPL_OK;
}

/*
 * The rows of each deal in rank_of's order: a table that reads as the deal
 * does. A deal's rows are contiguous, so each deal is sorted on its own, by
 * insertion (a deal has at most 160).
 */
static void sort_rows(rpl_export_match *m, int players)
{
	size_t start = 0;

	while (start < m->nevs) {
		size_t end = start + 1;
		while (end < m->nevs && m->evs[end].deal == m->evs[start].deal)
			end++;
		for (size_t i = start + 1; i < end; i++) {
			struct xevidence x = m->evs[i];
			size_t j = i;
			while (j > start && rank_of(&m->evs[j - 1], players) > rank_of(&x, players)) {
				m->evs[j] = m->evs[j - 1];
				j--;
			}
			m->evs[j] = x;
		}
		start = end;
	}
}

int rpl__export_screen(rpl_export_match *m, const void *data, size_t len, const rpl_integrity_options *o)
{
	rpl_integrity_options every = *o;
	rpl_reader *rd = NULL;
	rpl_verdict v;
	int err;

	if (m->nplayers != 2 && m->nplayers != 4)
		return RPL_OK; /* no seats to screen */
	every.seats = 0;   /* every seat's evidence: the views choose */
	if ((err = rpl__reader_open_view(&rd, data, len)) == 0)
		err = rpl_integrity_reader(rd, NULL, &every, add_evidence, m, &v);
	else if (!rd)
		err = RPL_ENOMEM;
	rpl_reader_free(rd);
	if (err)
		return err;
	if (v.kind != RPL_VERDICT_OK) {
		/* the load's verdict was ok: a screen that finds otherwise keeps nothing rather than part of a log */
		m->nevs = 0;
		return RPL_OK;
	}
	sort_rows(m, m->nplayers);
	return RPL_OK;
}
