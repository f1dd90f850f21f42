/*
 * The end of a turn and of a deal: a turn passed on, the draw from the
 * stock, the duties checked when a turn ends (the pile's use, a vulnerable
 * side's opening), going out, and the scores. docs/rules.md sections 5 to 10.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rules/game_impl.h"
#include "base/msg.h"

int rpl__game_refuse(struct rpl_game *g, int rule, const char *fmt, ...)
{
	va_list ap;
	size_t k;

	g->rule = rule;
	/* the profile first: the same decision may be legal under another */
	k = rpl__msgf(g->msg, "%s: ", g->rules.profile_name);
	va_start(ap, fmt);
	rpl__vmsgf_at(g->msg, k, fmt, ap);
	va_end(ap);
	return RPL_EILLEGAL;
}

void rpl__game_start_turn(struct rpl_game *g)
{
	g->can_reject = 0;
	g->duty = DUTY_NONE;
	g->duty_done = 0;
	g->duty_top = NO_FACE;
	g->return_face = NO_FACE;
	memset(g->taken, 0, sizeof(g->taken));
	g->laid_value = 0;
	g->opened_before = g->nmelds[SIDE(g->seat)] > 0;
	g->unplayed[g->seat] = 0;
	g->turn_no++;
	g->stats.turns++;
	g->phase = RPL_PHASE_DRAW;
}

/* Draw the next card of the draw source; when it runs out, a morto becomes the stock. */
rpl_card rpl__game_draw(struct rpl_game *g)
{
	rpl_card c = g->src[g->src_pos++];

	if (g->src_pos == g->src_len) {
		int m = rpl__game_next_morto(g);
		if (m >= 0) {
			memcpy(g->src, g->morto[m], RPL_MORTO_SIZE);
			g->src_pos = 0;
			g->src_len = RPL_MORTO_SIZE;
			g->morto_state[m] = 2;
			g->stats.morto_to_stock++;
		} else {
			g->final_turn = 1;
		}
	}
	return c;
}

/* The score of side s as the table stands (final once the deal is over). */
void rpl__game_score(const struct rpl_game *g, int s, rpl_score *sc)
{
	const struct rpl_rules *r = &g->rules;
	int any_taken = g->morto_state[0] == 0 || g->morto_state[0] == 1 || g->morto_state[1] == 0 ||
	                g->morto_state[1] == 1;

	memset(sc, 0, sizeof(*sc));
	for (int i = 0; i < g->nmelds[s]; i++) {
		const struct meld *m = &g->melds[s][i];
		int cat = rpl__meld_category(m);
		sc->melded += rpl__meld_points(r, m);
		if (cat != RPL_CANASTRA_NONE) {
			sc->canastras[cat]++;
			sc->bonus += rpl__meld_bonus(r, cat);
		}
	}
	if (g->deal_end == RPL_DEAL_OUT && g->out_seat >= 0 && SIDE(g->out_seat) == s)
		sc->going_out = RV(r, BONUS_GOING_OUT);
	for (int seat = 0; seat < g->n; seat++) {
		if (SIDE(seat) != s)
			continue;
		/* ABERTO: a morto picked up by discarding and never played before the opponents went out */
		if (g->unplayed[seat] && RV(r, UNPLAYED_MORTO_COST) > 0 && g->deal_end == RPL_DEAL_OUT &&
		    SIDE(g->out_seat) != s) {
			sc->hand -= RV(r, UNPLAYED_MORTO_COST);
			continue;
		}
		sc->hand -= rpl__cards_points(r, g->hand[seat]);
	}
	/* STBL "Caso o outro jogador ou dupla nao tenha pegado o morto": penalty_no_morto_sides not_out spares the
	   side that went out (docs/rules.md 9.3); a deal ended by the stock has no such side */
	if (!rpl__game_has_morto(g, s) && (RV(r, PENALTY_IF_NONE_TAKEN) || any_taken) &&
	    !(RV(r, PENALTY_NO_MORTO_SIDES) == RPL_PENALTY_NOT_OUT && g->deal_end == RPL_DEAL_OUT && g->out_seat >= 0 &&
	      SIDE(g->out_seat) == s))
		sc->morto = -RV(r, PENALTY_NO_MORTO);
	sc->total = sc->melded + sc->bonus + sc->going_out + sc->hand + sc->morto;
}

void rpl__game_end_deal(struct rpl_game *g, int how, int out_seat)
{
	int32_t target = RV(&g->rules, TARGET);

	g->deal_end = (uint8_t)how;
	g->out_seat = (int8_t)out_seat;
	for (int s = 0; s < 2; s++) {
		rpl__game_score(g, s, &g->score[s]);
		g->total[s] += g->score[s].total;
	}
	g->phase = RPL_PHASE_DEAL_OVER;
	if (g->total[0] != g->total[1] && (target == 0 || g->total[0] >= target || g->total[1] >= target)) {
		g->winner = g->total[0] > g->total[1] ? 0 : 1;
		g->phase = RPL_PHASE_MATCH_OVER;
	}
}

/* The turn passes clockwise, or the deal ends if no stock and no morto are left. */
void rpl__game_pass_turn(struct rpl_game *g)
{
	if (g->final_turn) {
		rpl__game_end_deal(g, RPL_DEAL_STOCK, -1);
		return;
	}
	/* clockwise; no division, it costs more than the rest of a discard */
	g->seat = g->seat + 1 == g->n ? 0 : (uint8_t)(g->seat + 1);
	rpl__game_start_turn(g);
}

/*
 * The conditions of the end of a turn that the seeds tie to the whole turn:
 * the pile-use duty and a vulnerable side's opening minimum. done/value are
 * the state after the decision that ends the turn.
 */
int rpl__game_turn_end_check(struct rpl_game *g, int duty_done, int32_t laid_value, int melds_after)
{
	const struct rpl_rules *r = &g->rules;
	int side = SIDE(g->seat);

	if (g->duty == DUTY_ANY && !duty_done)
		return rpl__game_refuse(
				g, RPL_RULE_PILE_NOT_USED,
				"no card taken from the pile was laid down this turn: the pile may not be taken just to "
				"keep cards");
	if (g->duty == DUTY_TOP && !duty_done)
		return rpl__game_refuse(g, RPL_RULE_PILE_TOP_NOT_LAID, "the pile's top card %s must be laid down this turn",
		                        rpl_card_name(g->duty_top));
	if (g->vulnerable[side] && !g->opened_before && melds_after > 0 && laid_value < RV(r, VULNERABLE_MIN_OPEN))
		return rpl__game_refuse(
				g, RPL_RULE_OPEN_MINIMUM,
				"side %d is vulnerable: its first melds must total at least %d card points in one turn, "
				"not %d",
				side, RV(r, VULNERABLE_MIN_OPEN), (int)laid_value);
	return 0;
}

/*
 * May seat's side go out now, its melds being ms[0..nm)? by_meld: the last
 * card is melded. Asked of the final going out only: a hand emptied to take
 * the morto needs no canastra, out_canastra included (docs/rules.md 8.3, the
 * two senses of STBL's "bater"). 0 when it may, else the rule it breaks, with the reason
 * (without the profile) in why: rpl__game_keep_check wraps it in a refusal of its own.
 */
static int out_rule(const struct rpl_game *g, const struct meld *ms, int nm, int by_meld, char *why)
{
	const struct rpl_rules *r = &g->rules;
	int side = SIDE(g->seat), need = RV(r, OUT_CANASTRA), found = 0;

	if (RV(r, OUT_NEEDS_MORTO) && !rpl__game_has_morto(g, side) &&
	    !(RV(r, OUT_IF_MORTOS_STOCK) && g->morto_state[0] == 2 && g->morto_state[1] == 2)) {
		rpl__msgf(why,
		          "seat %d's side has not taken a morto and none is left for it: it may not go out, so the "
		          "player keeps a card",
		          g->seat);
		return RPL_RULE_OUT_NO_MORTO;
	}
	for (int i = 0; i < nm && !found; i++)
		if (rpl__meld_len(&ms[i]) >= 7 && (need != RPL_OUT_CANASTRA_CLEAN || ms[i].nw == 0))
			found = 1;
	if (need == RPL_OUT_CANASTRA_ANY && !found) {
		rpl__msgf(why, "going out needs a canastra on the side's table: the player keeps a card");
		return RPL_RULE_OUT_NO_CANASTRA;
	}
	if (need == RPL_OUT_CANASTRA_CLEAN && !found) {
		rpl__msgf(why, "going out needs a clean canastra on the side's table: the player keeps a card");
		return RPL_RULE_OUT_NO_CLEAN;
	}
	if (by_meld && RV(r, OUT_LAST_CARD) == RPL_OUT_LAST_DISCARD) {
		rpl__msgf(why, "the last card must be discarded, not melded, to go out");
		return RPL_RULE_OUT_MELDED;
	}
	return 0;
}

/* out_rule as a refusal. */
int rpl__game_out_check(struct rpl_game *g, const struct meld *ms, int nm, int by_meld)
{
	char why[RPL_ERRMSG_SIZE];
	int rule = out_rule(g, ms, nm, by_meld, why);

	return rule ? rpl__game_refuse(g, rule, "%s", why) : 0;
}

/*
 * A lay that leaves a single card when emptying the hand would not be
 * allowed (no morto to take, no right to go out) leaves the player with no
 * legal end of turn: docs/rules.md 8.5 and 11.8, "the player keeps a card". The last card
 * may still end the turn by a discard that goes out, or, where the last card
 * may be melded, by an addition that goes out.
 */
int rpl__game_keep_check(struct rpl_game *g, const cardset laid, const struct meld m, int idx)
{
	const struct rpl_rules *r = &g->rules;
	int side = SIDE(g->seat), nm = g->nmelds[side], rule;
	struct meld after[RPL_MAX_MELDS];
	rpl_card last = NO_FACE;
	char reason[RPL_ERRMSG_SIZE], unused[RPL_ERRMSG_SIZE];

	memcpy(after, g->melds[side], sizeof(struct meld) * (size_t)nm);
	after[idx] = m;
	if (idx == nm)
		nm++;
	for (rpl_card c = 0; c < RPL_NFACES; c++)
		if (g->hand[g->seat][c] > laid[c])
			last = c;
	rule = out_rule(g, after, nm, 0, reason);
	if (!rule)
		return 0;
	if (RV(r, OUT_LAST_CARD) == RPL_OUT_LAST_ANY && last != NO_FACE) {
		cardset one;
		memset(one, 0, sizeof(one));
		one[last] = 1;
		for (int i = 0; i < nm; i++) {
			struct meld m2, saved = after[i];
			if (rpl__meld_add(r, &after[i], one, 1, RPL_END_DEFAULT, &m2, NULL, 0) != 0)
				continue;
			after[i] = m2;
			if (out_rule(g, after, nm, 1, unused) == 0)
				return 0;
			after[i] = saved;
		}
	}
	return rpl__game_refuse(g, rule, "this leaves one card, %s, which could not end the turn: %s", rpl_card_name(last),
	                        reason);
}
