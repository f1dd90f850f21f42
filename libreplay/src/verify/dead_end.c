/*
 * A turn that ran into a dead end: which decision made it so (dead_end.h,
 * docs/rules.md 11.10). The engine answers, through the search of the rest
 * of a turn (rules/turn.c): this file only replays the turn's decisions on
 * the state before it and asks after each.
 */
#include <string.h>

#include "verify/dead_end.h"

/* Can a turn of g reach a dead end? Only by a pile taken, or a vulnerable side's turn before it opened. */
static int can_dead_end(const struct rpl_game *g, const rpl_action *a)
{
	int side = SIDE(g->seat);

	return a->kind == RPL_ACT_TAKE || (g->vulnerable[side] && !g->opened_before);
}

void rpl__turn_watch_before(struct rpl__turn_watch *tw, const struct rpl_game *g, const rpl_action *a)
{
	tw->n = 0;
	tw->watching = can_dead_end(g, a);
	if (tw->watching)
		memcpy(&tw->start, g, sizeof(tw->start));
}

void rpl__turn_watch_after(struct rpl__turn_watch *tw, const rpl_action *a, uint64_t offset)
{
	if (!tw->watching)
		return;
	if (tw->n == RPL__TURN_KEPT) {
		tw->watching = 0; /* a turn longer than any legal one: not judged as a dead end */
		return;
	}
	tw->dec[tw->n] = *a;
	tw->offset[tw->n] = offset;
	tw->n++;
}

int rpl__turn_watch_dead_end(const struct rpl__turn_watch *tw, const struct rpl_game *g, size_t *at)
{
	struct rpl_game replay;
	int r;

	if (!tw->watching || tw->n == 0 || g->phase != RPL_PHASE_PLAY || g->seat != tw->start.seat ||
	    g->turn_no != tw->start.turn_no)
		return 0;
	r = rpl__turn_can_end(g, NULL);
	if (r != 0)
		return r == RPL_ENOMEM ? r : 0;
	/* the first decision after which the turn could not end */
	memcpy(&replay, &tw->start, sizeof(replay));
	for (size_t i = 0; i < tw->n; i++) {
		if (rpl__apply(&replay, &tw->dec[i]) != 0)
			return 0; /* not the turn that was played: nothing to say */
		r = rpl__turn_can_end(&replay, NULL);
		if (r == RPL_ENOMEM)
			return r;
		if (r == 0) {
			*at = i;
			return 1;
		}
	}
	return 0;
}
