/*
 * The bridge from parsed lines to a recorder (rpl_notation_record): a deal
 * block becomes a layout, a turn line its decisions, checked against the
 * seat to move and the turn count as the codec counts them; the recorder's
 * refusals come back with the line and the column of the decision.
 */
#include <string.h>

#include "notation/notation_impl.h"

/* Fail with the recorder's message, at a column of the current item's line. */
static int fail_rec(rpl_notation_parser *p, const rpl_notation_item *it, int err, int column, const rpl_recorder *rec)
{
	const char *msg = rpl_recorder_errmsg(rec);
	int saved = p->line, rc;

	p->line = it->line;
	if (err == RPL_EILLEGAL)
		rc = rpl__notation_fail(p, err, column, "%s: %s", rpl_rule_name(rpl_recorder_rule(rec)),
		                        msg && *msg ? msg : "refused");
	else
		rc = rpl__notation_fail(p, err, column, "%s", msg && *msg ? msg : rpl_strerror(err));
	p->line = saved;
	return rc;
}

/* The turn a decision of this kind opens or continues, as the codec counts them. */
static int turn_of(const rpl_notation_parser *p, int kind)
{
	return kind == RPL_ACT_MORTO || p->open ? p->turn : p->turn + 1;
}

static int record_turn(rpl_notation_parser *p, rpl_recorder *rec, const rpl_notation_item *it, size_t *recorded)
{
	int saved = p->line, err = 0;
	char text[128];

	p->line = it->line;
	for (size_t i = 0; i < it->nactions; i++) {
		const rpl_action *a = &it->actions[i];
		/* a morto belongs to whoever emptied the hand; anything else to the seat to move */
		int seat = a->kind == RPL_ACT_MORTO && p->last_seat >= 0 ? p->last_seat : rpl_recorder_seat(rec);
		int turn = turn_of(p, a->kind);

		if (seat < 0) {
			err = rpl__notation_fail(p, RPL_ESTATE, it->column[i], "no deal is in progress");
			goto done;
		}
		if (seat != it->seat) {
			rpl_action_format(a, text, sizeof text);
			if (i == 0)
				err = rpl__notation_fail(p, RPL_EPARSE, it->seat_column, "seat %d is to move, not seat %d", seat,
				                         it->seat);
			else
				err = rpl__notation_fail(p, RPL_EPARSE, it->column[i],
				                         "'%s' belongs to seat %d's turn: a line holds one turn of one seat", text,
				                         seat);
			goto done;
		}
		if (i == 0 && it->number && it->number != turn) {
			err = rpl__notation_fail(p, RPL_EPARSE, 1, "this is turn %d of the deal, not %d", turn, it->number);
			goto done;
		}
		err = rpl_recorder_action(rec, a);
		if (err < 0) {
			p->line = saved;
			err = fail_rec(p, it, err, it->column[i], rec);
			p->line = it->line;
			goto done;
		}
		if (a->kind != RPL_ACT_MORTO && !p->open) {
			p->open = 1;
			p->turn++;
		}
		if (a->kind == RPL_ACT_DISCARD)
			p->open = 0;
		p->last_seat = seat;
		if (recorded)
			(*recorded)++;
	}
done:
	p->line = saved;
	return err;
}

int rpl_notation_record(rpl_notation_parser *p, rpl_recorder *rec, const rpl_notation_item *it, size_t *recorded)
{
	int err, saved;

	if (recorded)
		*recorded = 0;
	if (!p || !rec || !it)
		return RPL_EINVAL;
	p->errmsg[0] = '\0';
	saved = p->line;
	switch (it->kind) {
	case RPL_NOTATION_BLANK:
	case RPL_NOTATION_END: return 0;
	case RPL_NOTATION_TAG:
		p->line = it->line;
		err = rpl__notation_fail(p, RPL_ESTATE, 1,
		                         "a tag cannot be recorded: the header goes to the recorder when it opens");
		p->line = saved;
		return err;
	case RPL_NOTATION_DEAL:
		if (it->number != p->deals + 1) {
			p->line = it->line;
			/* the block is refused as a whole: the parser expects a new "deal N" */
			p->block = BLOCK_NONE;
			err = rpl__notation_fail(p, RPL_EPARSE, 1, "the next deal is deal %d, not %d", p->deals + 1, it->number);
			p->line = saved;
			return err;
		}
		memset(&p->layout, 0, sizeof p->layout);
		p->deal_line = it->line;
		return 0;
	case RPL_NOTATION_HAND: memcpy(p->layout.hand[it->number], it->cards, RPL_HAND_SIZE); return 0;
	case RPL_NOTATION_MORTO: memcpy(p->layout.morto[it->number], it->cards, RPL_MORTO_SIZE); return 0;
	case RPL_NOTATION_STOCK:
		memcpy(p->layout.stock, it->cards, it->ncards);
		err = rpl_recorder_deal(rec, &p->layout);
		if (err < 0)
			return fail_rec(p, it, err, 0, rec);
		p->deals++;
		p->turn = 0;
		p->open = 0;
		p->last_seat = -1;
		return 0;
	case RPL_NOTATION_TURN: return record_turn(p, rec, it, recorded);
	case RPL_NOTATION_CLAIM:
		err = rpl_recorder_claim(rec, it->number, it->score);
		if (err < 0)
			return fail_rec(p, it, err, 0, rec);
		return 0;
	case RPL_NOTATION_SEED:
		err = rpl_recorder_seed(rec, it->seed);
		if (err < 0)
			return fail_rec(p, it, err, 0, rec);
		return 0;
	default: return RPL_EINVAL;
	}
}
