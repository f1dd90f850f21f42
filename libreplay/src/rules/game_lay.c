/*
 * Melds, additions and discards: what a seat lays from its hand and how its
 * turn ends by a discard, with every check the lay or the discard itself
 * asks (the cards held, the meld rules, a card kept to end the turn).
 */
#include <string.h>

#include "rules/game_impl.h"
#include "base/msg.h"

/*
 * Read an action's cards into counts (with their masks in *cs); rpl__game_refuse
 * cards not held. The refusal names the lowest face short in the hand.
 */
static int action_cards(struct rpl_game *g, const rpl_action *a, cardset cnt, struct cards *cs)
{
	const uint8_t *hand = g->hand[g->seat];
	uint64_t any = 0, multi = 0;
	int shortest = RPL_NFACES;

	memset(cnt, 0, sizeof(cardset));
	if (a->ncards < 1 || a->ncards > 14)
		return rpl__game_refuse(g, RPL_RULE_BAD_ACTION, "a meld decision names 1 to 14 cards, not %d", a->ncards);
	for (int i = 0; i < a->ncards; i++) {
		rpl_card c = a->cards[i];
		if (c >= RPL_NFACES)
			return rpl__game_refuse(g, RPL_RULE_BAD_ACTION, "the decision names a value that is not a card");
		multi |= any & (1ull << c);
		any |= 1ull << c;
		if (++cnt[c] > hand[c] && c < shortest)
			shortest = c;
	}
	if (shortest < RPL_NFACES)
		return rpl__game_refuse(g, RPL_RULE_NOT_IN_HAND, "%s is not in seat %d's hand",
		                        rpl_card_name((rpl_card)shortest), g->seat);
	cs->cnt = cnt;
	cs->any = any;
	cs->multi = multi;
	return 0;
}

int rpl__game_lay(struct rpl_game *g, const rpl_action *a)
{
	const struct rpl_rules *r = &g->rules;
	int side = SIDE(g->seat), idx, err, done = g->duty_done;
	struct meld m, after[RPL_MAX_MELDS];
	struct meld_fail f;
	struct cards cs;
	cardset cnt;
	int32_t value = 0;
	char why[RPL_ERRMSG_SIZE];

	if (a->end > RPL_END_HIGH)
		return rpl__game_refuse(g, RPL_RULE_BAD_ACTION, "unknown wild end %d", a->end);
	if (a->kind == RPL_ACT_ADD) {
		if (a->side > 1)
			return rpl__game_refuse(g, RPL_RULE_BAD_ACTION, "there is no side %d", a->side);
		if (a->meld >= g->nmelds[a->side])
			return rpl__game_refuse(g, RPL_RULE_MELD_NO_SUCH, "side %d has no meld %d", a->side, a->meld);
		if (a->side != side)
			return rpl__game_refuse(g, RPL_RULE_MELD_OPPONENT,
			                        "cards may be added only to the melds of one's own side, not to side %d's",
			                        a->side);
	} else if (g->nmelds[side] >= RPL_MAX_MELDS) {
		return rpl__game_refuse(g, RPL_RULE_BAD_ACTION, "side %d has the most melds a deal can hold", side);
	}
	err = action_cards(g, a, cnt, &cs);
	if (err)
		return err;
	if (a->kind == RPL_ACT_MELD) {
		err = rpl__meld_arrange_cards(r, &cs, a->ncards, a->end, &m, &f);
		idx = g->nmelds[side];
	} else {
		idx = a->meld;
		err = rpl__meld_add_cards(r, &g->melds[side][idx], &cs, a->ncards, a->end, &m, &f);
	}
	if (err) {
		rpl__meld_why(&f, why, sizeof(why));
		return rpl__game_refuse(g, err, "%s", why);
	}

	for (int i = 0; i < a->ncards; i++) {
		rpl_card c = a->cards[i];
		value += rpl__card_value(r, c);
		if ((g->duty == DUTY_ANY && g->taken[c]) || (g->duty == DUTY_TOP && c == g->duty_top))
			done = 1;
	}

	if (!rpl__game_lay_keeps_two(g->hand_n[g->seat], a->ncards) && g->hand_n[g->seat] == a->ncards) {
		/* the hand empties: a morto, or the final going out */
		if (!(rpl__game_has_morto(g, side) || rpl__game_next_morto(g) < 0)) {
			g->phase = RPL_PHASE_MORTO;
			g->morto_after = AFTER_DIRECT;
		} else {
			int nm = g->nmelds[side];
			memcpy(after, g->melds[side], sizeof(struct meld) * (size_t)nm);
			after[idx] = m;
			if (idx == nm)
				nm++;
			err = rpl__game_out_check(g, after, nm, 1);
			if (!err)
				err = rpl__game_turn_end_check(g, done, g->laid_value + value, nm);
			if (err)
				return err;
		}
	}

	if (!rpl__game_lay_keeps_two(g->hand_n[g->seat], a->ncards) && g->hand_n[g->seat] == a->ncards + 1 &&
	    (rpl__game_has_morto(g, side) || rpl__game_next_morto(g) < 0)) {
		/* one card left: the turn must still be able to end, by discarding or melding it */
		err = rpl__game_keep_check(g, cnt, m, idx);
		if (err)
			return err;
	}

	/* commit */
	for (int i = 0; i < a->ncards; i++) {
		g->hand[g->seat][a->cards[i]]--;
		rpl__game_known_drop(g, a->cards[i]);
	}
	g->hand_n[g->seat] = (uint8_t)(g->hand_n[g->seat] - a->ncards);
	g->melds[side][idx] = m;
	if (idx == g->nmelds[side])
		g->nmelds[side]++;
	g->laid_value += value;
	g->duty_done = (uint8_t)done;
	g->can_reject = 0;
	if (g->hand_n[g->seat] == 0 && g->phase != RPL_PHASE_MORTO) {
		if (g->vulnerable[side] && !g->opened_before)
			g->stats.vulnerable_open++;
		rpl__game_end_deal(g, RPL_DEAL_OUT, g->seat);
	}
	return 0;
}

int rpl__game_discard(struct rpl_game *g, const rpl_action *a)
{
	int side = SIDE(g->seat), err, empties;
	rpl_card c = a->cards[0];

	if (a->ncards != 1 || c >= RPL_NFACES)
		return rpl__game_refuse(g, RPL_RULE_BAD_ACTION, "a discard names exactly one card");
	if (!g->hand[g->seat][c])
		return rpl__game_refuse(g, RPL_RULE_NOT_IN_HAND, "%s is not in seat %d's hand", rpl_card_name(c), g->seat);
	if (g->return_face == c)
		return rpl__game_refuse(g, RPL_RULE_PILE_RETURN,
		                        "%s was the only card of the pile taken this turn: it may not be discarded back",
		                        rpl_card_name(c));
	err = rpl__game_turn_end_check(g, g->duty_done, g->laid_value, g->nmelds[side]);
	if (err)
		return err;
	empties = g->hand_n[g->seat] == 1;
	if (empties && (rpl__game_has_morto(g, side) || rpl__game_next_morto(g) < 0)) {
		err = rpl__game_out_check(g, g->melds[side], g->nmelds[side], 0);
		if (err)
			return err;
	}

	/* commit */
	g->hand[g->seat][c]--;
	g->hand_n[g->seat]--;
	rpl__game_known_drop(g, c);
	g->pile[g->pile_n++] = c;
	if (RV(&g->rules, PILE_FREEZES) && RPL_IS_WILDCAPABLE(c))
		g->stats.pile_frozen++;
	g->can_reject = 0;
	if (g->vulnerable[side] && !g->opened_before && g->nmelds[side] > 0)
		g->stats.vulnerable_open++;
	if (empties) {
		if (!(rpl__game_has_morto(g, side) || rpl__game_next_morto(g) < 0)) {
			g->phase = RPL_PHASE_MORTO;
			g->morto_after = AFTER_INDIRECT;
		} else {
			rpl__game_end_deal(g, RPL_DEAL_OUT, g->seat);
		}
		return 0;
	}
	rpl__game_pass_turn(g);
	return 0;
}
