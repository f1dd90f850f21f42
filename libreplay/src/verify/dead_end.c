/*
 * A turn that ran into a dead end: which decision made it so (dead_end.h,
 * docs/rules.md 11.10). The engine answers, through the search of the rest of
 * a turn (rules/turn.c): this file only replays the log a second time to the
 * turn and asks after each of the turn's decisions.
 */
#include <string.h>

#include "log/format.h"
#include "verify/dead_end.h"

/*
 * The decisions the searches of one refusal may list in all: a hostile log's
 * turn of a hundred lays, each over a hand of hundreds of cards, is judged in
 * a bounded time (then nothing is said of a dead end).
 */
#define FIND_BUDGET 400000

int rpl__dead_end_find(rpl_reader *rd, const struct rpl_game *g, const rpl_event *refused, struct rpl__dead_end *out)
{
	const rpl_match_info *info;
	rpl_reader *again = NULL;
	rpl_game *replay = NULL;
	rpl_event ev;
	const uint8_t *data;
	size_t len;
	long budget = FIND_BUDGET;
	int r, found = 0, err, gave_up = 0;

	if (g->phase != RPL_PHASE_PLAY)
		return 0;
	r = rpl__turn_can_end_within(g, &gave_up, &budget);
	if (r != 0 || gave_up)
		return r == RPL_ENOMEM ? r : 0;
	data = rpl__reader_data(rd, &len);
	if ((err = rpl__reader_open_view(&again, data, len)) != 0 || !(info = rpl_reader_info(again))) {
		rpl_reader_free(again);
		return err == RPL_ENOMEM ? err : 0;
	}
	/* the rules the refusal was made under (a verification may override the log's) */
	if ((err = rpl_game_new(&replay, &g->rules, info->nplayers, info->first_dealer)) != 0)
		goto cleanup;
	while ((r = rpl_reader_next(again, &ev)) == 1) {
		int in_turn = ev.kind == RPL_EV_ACTION && ev.deal == refused->deal && ev.turn == refused->turn;
		if (ev.kind == RPL_EV_DEAL && rpl_game_deal(replay, &ev.layout) != 0)
			break;
		if (ev.kind != RPL_EV_ACTION)
			continue;
		if (rpl_game_apply(replay, &ev.action) != 0)
			break; /* the refusal itself: the search is over */
		if (!in_turn)
			continue;
		if (found) {
			out->later++;
			continue;
		}
		r = rpl__turn_can_end_within(replay, &gave_up, &budget);
		if (r == RPL_ENOMEM) {
			err = r;
			goto cleanup;
		}
		if (gave_up)
			break; /* past the budget: nothing is said */
		if (r == 0) {
			out->action = ev.action;
			out->offset = ev.offset;
			out->later = 0;
			found = 1;
		}
	}
	if (r == RPL_ENOMEM)
		err = r;
cleanup:
	rpl_game_free(replay);
	rpl_reader_free(again);
	return err == RPL_ENOMEM ? err : found;
}
