/*
 * Export, step 1: the integrity screen of a loaded ok log
 * (rpl_export_match_load_screened): the evidence of its decisions, as
 * rpl_integrity_reader gives it, summed by deal, seat, statistic, target
 * and replay (the integrity_deals table, docs/schema.md).
 *
 * Why the screen reads the log again rather than riding on the load's
 * replay: rpl_integrity_reader verifies the log itself, so the rows are by
 * construction what brp integrity sums for the same log and options; a
 * second decode and replay costs little beside the screen's samples and its
 * greedy replay of every deal.
 */
#include <stdlib.h>
#include <string.h>

#include "export/export_impl.h"
#include "log/format.h"
#include "base/grow.h"

/* Where a row sorts among its deal's: the log's before the replay's, then by seat, then next .. previous, draw. */
static int rank_of(const struct xevidence *e, int players)
{
	int rel = e->stat == RPL_INTEGRITY_DRAW ? 3 : (e->target - e->seat + players) % players - 1;
	return (e->replay * RPL_MAX_SEATS + e->seat) * 4 + rel;
}

struct summer {
	rpl_export_match *m;
	int players;
};

/* Add one decision's evidence to its row: a deal's rows are the last ones (a deal's replay comes at its start). */
static int add_evidence(void *ctx, const rpl_integrity_decision *d)
{
	struct summer *s = ctx;
	rpl_export_match *m = s->m;
	struct xevidence *e = NULL, *p;
	int target = d->stat == RPL_INTEGRITY_DRAW ? -1 : d->target;

	if (d->seat < 0 || d->seat >= s->players || target < -1 || target >= s->players ||
	    (d->stat != RPL_INTEGRITY_DRAW && (d->stat != RPL_INTEGRITY_FEED || target < 0 || target == d->seat)))
		return RPL_EINVAL; /* not evidence integrity.h describes */
	for (size_t i = m->nevs; i-- > 0 && m->evs[i].deal == d->deal;)
		if (m->evs[i].seat == d->seat && m->evs[i].stat == d->stat && m->evs[i].target == target &&
		    m->evs[i].replay == (d->replay != 0)) {
			e = &m->evs[i];
			break;
		}
	if (!e) {
		if (!(p = rpl__grow(m->evs, &m->capevs, m->nevs + 1, sizeof(*p), 64)))
			return RPL_ENOMEM;
		m->evs = p;
		e = &m->evs[m->nevs++];
		memset(e, 0, sizeof(*e));
		e->deal = d->deal;
		e->seat = (int8_t)d->seat;
		e->stat = (int8_t)d->stat;
		e->target = (int8_t)target;
		e->replay = d->replay != 0;
	}
	e->decisions++;
	e->observed += d->observed;
	e->expected += d->expected;
	e->residual += d->residual;
	return RPL_OK;
}

/*
 * The rows of each deal in rank_of's order: a table that reads as the deal
 * does. A deal's rows are contiguous, so each is sorted on its own, by
 * insertion (a deal has at most 32).
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
	struct summer s = { m, m->nplayers };
	rpl_reader *rd = NULL;
	rpl_verdict v;
	int err;

	if (s.players != 2 && s.players != 4)
		return RPL_OK; /* no seats to screen */
	if ((err = rpl__reader_open_view(&rd, data, len)) == 0)
		err = rpl_integrity_reader(rd, NULL, o, add_evidence, &s, &v);
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
	sort_rows(m, s.players);
	return RPL_OK;
}
