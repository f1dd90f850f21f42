/*
 * The game state machine: the match, its deals, each decision dispatched
 * to the file of its job (game_impl.h lists them), and the queries.
 * docs/rules.md sections 1 and 5 to 10.
 *
 * Every decision is validated before anything changes, so a refusal leaves
 * the state as it was, and nothing here allocates.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules/game_impl.h"
#include "base/msg.h"

int rpl_game_new(rpl_game **out, const rpl_rules *r, int nplayers, int first_dealer)
{
	struct rpl_game *g;

	if (!out)
		return RPL_EINVAL;
	*out = NULL;
	if (!r || (nplayers != 2 && nplayers != 4) || first_dealer < 0 || first_dealer >= nplayers)
		return RPL_EINVAL;
	if ((nplayers == 2 && !RV(r, ALLOW_2_PLAYERS)) || (nplayers == 4 && !RV(r, ALLOW_4_PLAYERS)))
		return RPL_EINVAL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return RPL_ENOMEM;
	g->rules = *r;
	g->rules.errmsg[0] = '\0';
	g->n = (uint8_t)nplayers;
	g->first_dealer = (uint8_t)first_dealer;
	g->phase = RPL_PHASE_NO_DEAL;
	g->out_seat = -1;
	g->winner = -1;
	*out = g;
	return RPL_OK;
}

void rpl_game_free(rpl_game *g)
{
	free(g);
}

void rpl_game_copy(rpl_game *dst, const rpl_game *src)
{
	if (dst && src && dst != src)
		memcpy(dst, src, sizeof(*dst));
}

rpl_game *rpl_game_clone(const rpl_game *src)
{
	rpl_game *g;

	if (!src)
		return NULL;
	g = malloc(sizeof(*g));
	if (g)
		memcpy(g, src, sizeof(*g));
	return g;
}

const rpl_rules *rpl_game_rules(const rpl_game *g)
{
	return g ? &g->rules : NULL;
}

int rpl_game_rule(const rpl_game *g)
{
	return g ? g->rule : RPL_RULE_NONE;
}

const char *rpl_game_errmsg(const rpl_game *g)
{
	return g ? g->msg : "";
}

int rpl_game_deal(rpl_game *g, const rpl_layout *lay)
{
	uint8_t count[RPL_NFACES] = { 0 };
	int nstock;

	if (!g || !lay)
		return RPL_EINVAL;
	if (g->phase == RPL_PHASE_MATCH_OVER)
		return rpl__game_refuse(g, RPL_RULE_MATCH_OVER, "the match is over: side %d won", g->winner);
	if (g->phase != RPL_PHASE_NO_DEAL && g->phase != RPL_PHASE_DEAL_OVER)
		return rpl__game_refuse(g, RPL_RULE_DEAL_NOT_OVER, "deal %d is not over: a new deal cannot start", g->deal_no);
	nstock = RPL_STOCK_SIZE(g->n);
	for (int s = 0; s < g->n; s++)
		for (int i = 0; i < RPL_HAND_SIZE; i++)
			if (lay->hand[s][i] < RPL_NFACES)
				count[lay->hand[s][i]]++;
			else
				return rpl__game_refuse(g, RPL_RULE_LAYOUT, "the layout holds a value that is not a card");
	for (int m = 0; m < 2; m++)
		for (int i = 0; i < RPL_MORTO_SIZE; i++)
			if (lay->morto[m][i] < RPL_NFACES)
				count[lay->morto[m][i]]++;
			else
				return rpl__game_refuse(g, RPL_RULE_LAYOUT, "the layout holds a value that is not a card");
	for (int i = 0; i < nstock; i++)
		if (lay->stock[i] < RPL_NFACES)
			count[lay->stock[i]]++;
		else
			return rpl__game_refuse(g, RPL_RULE_LAYOUT, "the layout holds a value that is not a card");
	for (rpl_card c = 0; c < RPL_NFACES; c++)
		if (count[c] != rpl_card_copies(c))
			return rpl__game_refuse(g, RPL_RULE_LAYOUT, "the layout holds %d %s; a deal has %d", count[c],
			                        rpl_card_name(c), rpl_card_copies(c));

	g->dealer = g->deal_no == 0 ? g->first_dealer : (uint8_t)((g->dealer + 1) % g->n);
	g->deal_no++;
	memset(g->hand, 0, sizeof(g->hand));
	memset(g->hand_n, 0, sizeof(g->hand_n));
	memset(g->known, 0, sizeof(g->known));
	for (int s = 0; s < g->n; s++) {
		for (int i = 0; i < RPL_HAND_SIZE; i++)
			g->hand[s][lay->hand[s][i]]++;
		g->hand_n[s] = RPL_HAND_SIZE;
	}
	memcpy(g->src, lay->stock, (size_t)nstock);
	g->src_pos = 0;
	g->src_len = (uint8_t)nstock;
	memcpy(g->morto, lay->morto, sizeof(g->morto));
	g->morto_state[0] = g->morto_state[1] = -1;
	g->pile_n = 0;
	g->nmelds[0] = g->nmelds[1] = 0;
	g->final_turn = 0;
	g->deal_end = RPL_DEAL_ONGOING;
	g->out_seat = -1;
	memset(g->unplayed, 0, sizeof(g->unplayed));
	memset(g->score, 0, sizeof(g->score));
	memset(&g->stats, 0, sizeof(g->stats));
	g->turn_no = 0;
	for (int s = 0; s < 2; s++)
		g->vulnerable[s] = RV(&g->rules, VULNERABLE_AT) > 0 && g->total[s] >= RV(&g->rules, VULNERABLE_AT);
	g->seat = (uint8_t)((g->dealer + 1) % g->n);
	g->rule = RPL_RULE_NONE;
	g->msg[0] = '\0';
	rpl__game_start_turn(g);
	return RPL_OK;
}

int rpl__apply(struct rpl_game *g, const rpl_action *a)
{
	int err = 0;

	switch (g->phase) {
	case RPL_PHASE_NO_DEAL: return rpl__game_refuse(g, RPL_RULE_NO_DEAL, "no deal is in progress");
	case RPL_PHASE_DEAL_OVER:
		return rpl__game_refuse(g, RPL_RULE_NO_DEAL, "deal %d is over: the next deal must start first", g->deal_no);
	case RPL_PHASE_MATCH_OVER:
		return rpl__game_refuse(g, RPL_RULE_MATCH_OVER, "the match is over: side %d won", g->winner);
	case RPL_PHASE_MORTO:
		if (a->kind != RPL_ACT_MORTO)
			return rpl__game_refuse(g, RPL_RULE_MORTO_DUE, "seat %d's hand is empty: the morto must be picked up first",
			                        g->seat);
		break;
	default: break;
	}

	switch (a->kind) {
	case RPL_ACT_MORTO: {
		int m = rpl__game_next_morto(g), side = SIDE(g->seat);
		if (g->phase != RPL_PHASE_MORTO)
			return rpl__game_refuse(g, RPL_RULE_MORTO_NOT_DUE,
			                        "a morto is picked up only when the hand has just emptied");
		if (a->morto != m)
			return rpl__game_refuse(g, RPL_RULE_MORTO_WRONG, "the next morto is morto %d, not %d", m, a->morto);
		for (int i = 0; i < RPL_MORTO_SIZE; i++)
			g->hand[g->seat][g->morto[m][i]]++;
		g->hand_n[g->seat] = RPL_MORTO_SIZE;
		g->morto_state[m] = (int8_t)side;
		if (g->morto_after == AFTER_DIRECT) {
			g->stats.morto_direct++;
			g->phase = RPL_PHASE_PLAY;
		} else {
			g->stats.morto_indirect++;
			g->unplayed[g->seat] = 1;
			rpl__game_pass_turn(g);
		}
		break;
	}
	case RPL_ACT_DRAW:
		if (g->phase != RPL_PHASE_DRAW)
			return rpl__game_refuse(g, RPL_RULE_ALREADY_DREW, "seat %d already drew this turn", g->seat);
		if (g->src_pos >= g->src_len)
			return rpl__game_refuse(g, RPL_RULE_STOCK_EMPTY, "the stock is empty");
		{
			rpl_card c = rpl__game_draw(g);
			g->hand[g->seat][c]++;
			g->hand_n[g->seat]++;
			g->last_drawn = c;
		}
		g->can_reject = RV(&g->rules, FIRST_TURN_REJECT) && g->turn_no == 1;
		g->phase = RPL_PHASE_PLAY;
		break;
	case RPL_ACT_TAKE:
		if (g->phase != RPL_PHASE_DRAW)
			return rpl__game_refuse(g, RPL_RULE_ALREADY_DREW, "seat %d already drew this turn", g->seat);
		err = rpl__game_take(g);
		break;
	case RPL_ACT_REJECT:
		if (g->phase == RPL_PHASE_DRAW || !g->can_reject)
			return rpl__game_refuse(g, RPL_RULE_REJECT,
			                        "only the first player's first card, just drawn, may be rejected for the next one");
		if (g->src_pos >= g->src_len)
			return rpl__game_refuse(g, RPL_RULE_STOCK_EMPTY, "the stock is empty");
		g->hand[g->seat][g->last_drawn]--;
		rpl__game_known_drop(g, g->last_drawn);
		g->pile[g->pile_n++] = g->last_drawn;
		{
			rpl_card c = rpl__game_draw(g);
			g->hand[g->seat][c]++;
			g->last_drawn = c;
		}
		g->can_reject = 0;
		g->stats.rejects++;
		break;
	case RPL_ACT_MELD:
	case RPL_ACT_ADD:
	case RPL_ACT_DISCARD:
		if (g->phase == RPL_PHASE_DRAW)
			return rpl__game_refuse(g, RPL_RULE_MUST_DRAW, "seat %d must draw from the stock or take the pile first",
			                        g->seat);
		err = a->kind == RPL_ACT_DISCARD ? rpl__game_discard(g, a) : rpl__game_lay(g, a);
		break;
	default: return rpl__game_refuse(g, RPL_RULE_BAD_ACTION, "unknown decision kind %d", a->kind);
	}
	if (err)
		return err;
	g->stats.actions++;
	g->rule = RPL_RULE_NONE;
	g->msg[0] = '\0';
	return 0;
}

int rpl_game_apply(rpl_game *g, const rpl_action *a)
{
	if (!g || !a)
		return RPL_EINVAL;
	return rpl__apply(g, a);
}

int rpl_game_check(const rpl_game *g, const rpl_action *a, int *rule)
{
	struct rpl_game tmp;
	int err;

	if (!g || !a)
		return RPL_EINVAL;
	memcpy(&tmp, g, sizeof(tmp));
	err = rpl__apply(&tmp, a);
	if (rule)
		*rule = tmp.rule;
	return err;
}

int rpl_game_players(const rpl_game *g)
{
	return g ? g->n : 0;
}
int rpl_game_phase(const rpl_game *g)
{
	return g ? g->phase : RPL_PHASE_NO_DEAL;
}
int rpl_game_seat(const rpl_game *g)
{
	return g ? g->seat : -1;
}
int rpl_game_dealer(const rpl_game *g)
{
	return g ? g->dealer : -1;
}
int rpl_game_deal_number(const rpl_game *g)
{
	return g ? g->deal_no : 0;
}
int rpl_game_turn_number(const rpl_game *g)
{
	return g ? (int)g->turn_no : 0;
}
int rpl_game_stock_count(const rpl_game *g)
{
	return g ? g->src_len - g->src_pos : 0;
}

int rpl_game_hand(const rpl_game *g, int seat, rpl_card *out, size_t cap)
{
	size_t k = 0;

	if (!g || seat < 0 || seat >= g->n)
		return -1;
	for (rpl_card c = 0; c < RPL_NFACES; c++)
		for (int i = 0; i < g->hand[seat][c]; i++, k++)
			if (out && k < cap)
				out[k] = c;
	return (int)k;
}

int rpl_game_hand_count(const rpl_game *g, int seat, rpl_card c)
{
	if (!g || seat < 0 || seat >= g->n || c >= RPL_NFACES)
		return 0;
	return g->hand[seat][c];
}

int rpl_game_known(const rpl_game *g, int seat, rpl_card *out, size_t cap)
{
	size_t k = 0;

	if (!g || seat < 0 || seat >= g->n)
		return -1;
	for (rpl_card c = 0; c < RPL_NFACES; c++)
		for (int i = 0; i < g->known[seat][c]; i++, k++)
			if (out && k < cap)
				out[k] = c;
	return (int)k;
}

int rpl_game_pile(const rpl_game *g, rpl_card *out, size_t cap)
{
	if (!g)
		return -1;
	for (size_t i = 0; out && i < g->pile_n && i < cap; i++)
		out[i] = g->pile[i];
	return g->pile_n;
}

int rpl_game_morto_state(const rpl_game *g, int i)
{
	if (!g || i < 0 || i > 1)
		return -1;
	return g->morto_state[i];
}

int rpl_game_meld_count(const rpl_game *g, int side)
{
	if (!g || side < 0 || side > 1)
		return 0;
	return g->nmelds[side];
}

int rpl_game_meld(const rpl_game *g, int side, int index, rpl_meld_info *out)
{
	if (!g || !out || side < 0 || side > 1)
		return RPL_EINVAL;
	if (index < 0 || index >= g->nmelds[side])
		return RPL_ENOTFOUND;
	rpl__meld_info(&g->rules, &g->melds[side][index], out);
	return RPL_OK;
}

int rpl_game_vulnerable(const rpl_game *g, int side)
{
	if (!g || side < 0 || side > 1)
		return 0;
	return g->vulnerable[side];
}

int rpl_game_deal_score(const rpl_game *g, int side, rpl_score *out)
{
	if (!g || !out || side < 0 || side > 1)
		return RPL_EINVAL;
	if (g->phase == RPL_PHASE_DEAL_OVER || g->phase == RPL_PHASE_MATCH_OVER)
		*out = g->score[side];
	else
		rpl__game_score(g, side, out);
	return RPL_OK;
}

int32_t rpl_game_total(const rpl_game *g, int side)
{
	if (!g || side < 0 || side > 1)
		return 0;
	return g->total[side];
}

int rpl_game_winner(const rpl_game *g)
{
	return g && g->phase == RPL_PHASE_MATCH_OVER ? g->winner : -1;
}

void rpl_game_deal_stats(const rpl_game *g, rpl_deal_stats *out)
{
	if (!g || !out)
		return;
	*out = g->stats;
	/* how the deal ended is the game's own state, not a second copy of it */
	out->end = g->deal_end;
	out->out_seat = g->out_seat;
}

size_t rpl_action_format(const rpl_action *a, char *buf, size_t size)
{
	char tmp[128];
	size_t n = 0;
	static const char *const end_word[3] = { "", " <", " >" };

	if (!a) {
		tmp[0] = '\0';
	} else {
		switch (a->kind) {
		case RPL_ACT_DRAW: n = (size_t)snprintf(tmp, sizeof(tmp), "draw"); break;
		case RPL_ACT_TAKE: n = (size_t)snprintf(tmp, sizeof(tmp), "take"); break;
		case RPL_ACT_REJECT: n = (size_t)snprintf(tmp, sizeof(tmp), "reject"); break;
		case RPL_ACT_MORTO: n = (size_t)snprintf(tmp, sizeof(tmp), "morto %d", a->morto); break;
		case RPL_ACT_DISCARD: n = (size_t)snprintf(tmp, sizeof(tmp), "discard %s", rpl_card_name(a->cards[0])); break;
		case RPL_ACT_MELD:
		case RPL_ACT_ADD:
			if (a->kind == RPL_ACT_MELD)
				n = (size_t)snprintf(tmp, sizeof(tmp), "meld");
			else
				n = (size_t)snprintf(tmp, sizeof(tmp), "add %d.%d", a->side, a->meld);
			for (int i = 0; i < a->ncards && i < 14 && n < sizeof(tmp); i++)
				n += (size_t)snprintf(tmp + n, sizeof(tmp) - n, " %s", rpl_card_name(a->cards[i]));
			if (a->end <= RPL_END_HIGH && n < sizeof(tmp))
				n += (size_t)snprintf(tmp + n, sizeof(tmp) - n, "%s", end_word[a->end]);
			break;
		default: n = (size_t)snprintf(tmp, sizeof(tmp), "?%d", a->kind); break;
		}
	}
	if (n >= sizeof(tmp))
		n = sizeof(tmp) - 1;
	if (buf && size) {
		size_t k = n < size - 1 ? n : size - 1;
		memcpy(buf, tmp, k);
		buf[k] = '\0';
	}
	return n;
}
