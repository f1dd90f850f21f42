/*
 * The game state machine: deals, turns, the pile, mortos, going out,
 * scoring and the match. docs/rules.md sections 1 and 5 to 10.
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

static int refuse(struct rpl_game *g, int rule, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int refuse(struct rpl_game *g, int rule, const char *fmt, ...)
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

/* The side that took a morto: 1 if side s has one. */
static int has_morto(const struct rpl_game *g, int s)
{
	return g->morto_state[0] == s || g->morto_state[1] == s;
}

/* The next morto a side may take, or -1. */
static int next_morto(const struct rpl_game *g)
{
	for (int i = 0; i < 2; i++)
		if (g->morto_state[i] == -1)
			return i;
	return -1;
}

static void start_turn(struct rpl_game *g)
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

int rpl_game_deal(rpl_game *g, const rpl_layout *lay)
{
	uint8_t count[RPL_NFACES] = { 0 };
	int nstock;

	if (!g || !lay)
		return RPL_EINVAL;
	if (g->phase == RPL_PHASE_MATCH_OVER)
		return refuse(g, RPL_RULE_MATCH_OVER, "the match is over: side %d won", g->winner);
	if (g->phase != RPL_PHASE_NO_DEAL && g->phase != RPL_PHASE_DEAL_OVER)
		return refuse(g, RPL_RULE_DEAL_NOT_OVER, "deal %d is not over: a new deal cannot start", g->deal_no);
	nstock = RPL_STOCK_SIZE(g->n);
	for (int s = 0; s < g->n; s++)
		for (int i = 0; i < RPL_HAND_SIZE; i++)
			if (lay->hand[s][i] < RPL_NFACES)
				count[lay->hand[s][i]]++;
			else
				return refuse(g, RPL_RULE_LAYOUT, "the layout holds a value that is not a card");
	for (int m = 0; m < 2; m++)
		for (int i = 0; i < RPL_MORTO_SIZE; i++)
			if (lay->morto[m][i] < RPL_NFACES)
				count[lay->morto[m][i]]++;
			else
				return refuse(g, RPL_RULE_LAYOUT, "the layout holds a value that is not a card");
	for (int i = 0; i < nstock; i++)
		if (lay->stock[i] < RPL_NFACES)
			count[lay->stock[i]]++;
		else
			return refuse(g, RPL_RULE_LAYOUT, "the layout holds a value that is not a card");
	for (rpl_card c = 0; c < RPL_NFACES; c++)
		if (count[c] != rpl_card_copies(c))
			return refuse(g, RPL_RULE_LAYOUT, "the layout holds %d %s; a deal has %d", count[c], rpl_card_name(c),
			              rpl_card_copies(c));

	g->dealer = g->deal_no == 0 ? g->first_dealer : (uint8_t)((g->dealer + 1) % g->n);
	g->deal_no++;
	memset(g->hand, 0, sizeof(g->hand));
	memset(g->hand_n, 0, sizeof(g->hand_n));
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
	start_turn(g);
	return RPL_OK;
}

/* Draw the next card of the draw source; when it runs out, a morto becomes the stock. */
static rpl_card draw_card(struct rpl_game *g)
{
	rpl_card c = g->src[g->src_pos++];

	if (g->src_pos == g->src_len) {
		int m = next_morto(g);
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
static void compute_score(const struct rpl_game *g, int s, rpl_score *sc)
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
	if (!has_morto(g, s) && (RV(r, PENALTY_IF_NONE_TAKEN) || any_taken) &&
	    !(RV(r, PENALTY_NO_MORTO_SIDES) == RPL_PENALTY_NOT_OUT && g->deal_end == RPL_DEAL_OUT && g->out_seat >= 0 &&
	      SIDE(g->out_seat) == s))
		sc->morto = -RV(r, PENALTY_NO_MORTO);
	sc->total = sc->melded + sc->bonus + sc->going_out + sc->hand + sc->morto;
}

static void end_deal(struct rpl_game *g, int how, int out_seat)
{
	int32_t target = RV(&g->rules, TARGET);

	g->deal_end = (uint8_t)how;
	g->out_seat = (int8_t)out_seat;
	for (int s = 0; s < 2; s++) {
		compute_score(g, s, &g->score[s]);
		g->total[s] += g->score[s].total;
	}
	g->phase = RPL_PHASE_DEAL_OVER;
	if (g->total[0] != g->total[1] && (target == 0 || g->total[0] >= target || g->total[1] >= target)) {
		g->winner = g->total[0] > g->total[1] ? 0 : 1;
		g->phase = RPL_PHASE_MATCH_OVER;
	}
}

/* The turn passes clockwise, or the deal ends if no stock and no morto are left. */
static void pass_turn(struct rpl_game *g)
{
	if (g->final_turn) {
		end_deal(g, RPL_DEAL_STOCK, -1);
		return;
	}
	/* clockwise; no division, it costs more than the rest of a discard */
	g->seat = g->seat + 1 == g->n ? 0 : (uint8_t)(g->seat + 1);
	start_turn(g);
}

/*
 * The conditions of the end of a turn that the seeds tie to the whole turn:
 * the pile-use duty and a vulnerable side's opening minimum. done/value are
 * the state after the decision that ends the turn.
 */
static int end_of_turn_check(struct rpl_game *g, int duty_done, int32_t laid_value, int melds_after)
{
	const struct rpl_rules *r = &g->rules;
	int side = SIDE(g->seat);

	if (g->duty == DUTY_ANY && !duty_done)
		return refuse(g, RPL_RULE_PILE_NOT_USED,
		              "no card taken from the pile was laid down this turn: the pile may not be taken just to "
		              "keep cards");
	if (g->duty == DUTY_TOP && !duty_done)
		return refuse(g, RPL_RULE_PILE_TOP_NOT_LAID, "the pile's top card %s must be laid down this turn",
		              rpl_card_name(g->duty_top));
	if (g->vulnerable[side] && !g->opened_before && melds_after > 0 && laid_value < RV(r, VULNERABLE_MIN_OPEN))
		return refuse(g, RPL_RULE_OPEN_MINIMUM,
		              "side %d is vulnerable: its first melds must total at least %d card points in one turn, "
		              "not %d",
		              side, RV(r, VULNERABLE_MIN_OPEN), (int)laid_value);
	return 0;
}

/*
 * May seat's side go out now, its melds being ms[0..nm)? by_meld: the last
 * card is melded. 0 when it may, else the rule it breaks, with the reason
 * (without the profile) in why: keep_check wraps it in a refusal of its own.
 */
static int out_rule(const struct rpl_game *g, const struct meld *ms, int nm, int by_meld, char *why)
{
	const struct rpl_rules *r = &g->rules;
	int side = SIDE(g->seat), need = RV(r, OUT_CANASTRA), found = 0;

	if (RV(r, OUT_NEEDS_MORTO) && !has_morto(g, side) &&
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
static int out_check(struct rpl_game *g, const struct meld *ms, int nm, int by_meld)
{
	char why[RPL_ERRMSG_SIZE];
	int rule = out_rule(g, ms, nm, by_meld, why);

	return rule ? refuse(g, rule, "%s", why) : 0;
}

/*
 * A lay that leaves a single card when emptying the hand would not be
 * allowed (no morto to take, no right to go out) leaves the player with no
 * legal end of turn: docs/rules.md 8.5 and 11.8, "the player keeps a card". The last card
 * may still end the turn by a discard that goes out, or, where the last card
 * may be melded, by an addition that goes out.
 */
static int keep_check(struct rpl_game *g, const cardset laid, const struct meld m, int idx)
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
	return refuse(g, rule, "this leaves one card, %s, which could not end the turn: %s", rpl_card_name(last), reason);
}

/*
 * Read an action's cards into counts (with their masks in *cs); refuse
 * cards not held. The refusal names the lowest face short in the hand.
 */
static int action_cards(struct rpl_game *g, const rpl_action *a, cardset cnt, struct cards *cs)
{
	const uint8_t *hand = g->hand[g->seat];
	uint64_t any = 0, multi = 0;
	int shortest = RPL_NFACES;

	memset(cnt, 0, sizeof(cardset));
	if (a->ncards < 1 || a->ncards > 14)
		return refuse(g, RPL_RULE_BAD_ACTION, "a meld decision names 1 to 14 cards, not %d", a->ncards);
	for (int i = 0; i < a->ncards; i++) {
		rpl_card c = a->cards[i];
		if (c >= RPL_NFACES)
			return refuse(g, RPL_RULE_BAD_ACTION, "the decision names a value that is not a card");
		multi |= any & (1ull << c);
		any |= 1ull << c;
		if (++cnt[c] > hand[c] && c < shortest)
			shortest = c;
	}
	if (shortest < RPL_NFACES)
		return refuse(g, RPL_RULE_NOT_IN_HAND, "%s is not in seat %d's hand", rpl_card_name((rpl_card)shortest),
		              g->seat);
	cs->cnt = cnt;
	cs->any = any;
	cs->multi = multi;
	return 0;
}

/*
 * Whether a lay of n cards from a hand of hand_n keeps two cards or more.
 * Only a lay that does not is checked for the end of the hand (a morto,
 * going out, a card kept to discard): with two left, the decision's shape
 * and the meld rules are all do_lay checks, which the pile-take check counts
 * on (post_accepts). A new refusal of do_lay goes inside its end-of-hand
 * block, or post_accepts must learn it.
 */
static int lay_keeps_two(int hand_n, int n)
{
	return n + 1 < hand_n;
}

static int do_lay(struct rpl_game *g, const rpl_action *a)
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
		return refuse(g, RPL_RULE_BAD_ACTION, "unknown wild end %d", a->end);
	if (a->kind == RPL_ACT_ADD) {
		if (a->side > 1)
			return refuse(g, RPL_RULE_BAD_ACTION, "there is no side %d", a->side);
		if (a->meld >= g->nmelds[a->side])
			return refuse(g, RPL_RULE_MELD_NO_SUCH, "side %d has no meld %d", a->side, a->meld);
		if (a->side != side)
			return refuse(g, RPL_RULE_MELD_OPPONENT,
			              "cards may be added only to the melds of one's own side, not to side %d's", a->side);
	} else if (g->nmelds[side] >= RPL_MAX_MELDS) {
		return refuse(g, RPL_RULE_BAD_ACTION, "side %d has the most melds a deal can hold", side);
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
		return refuse(g, err, "%s", why);
	}

	for (int i = 0; i < a->ncards; i++) {
		rpl_card c = a->cards[i];
		value += rpl__card_value(r, c);
		if ((g->duty == DUTY_ANY && g->taken[c]) || (g->duty == DUTY_TOP && c == g->duty_top))
			done = 1;
	}

	if (!lay_keeps_two(g->hand_n[g->seat], a->ncards) && g->hand_n[g->seat] == a->ncards) {
		/* the hand empties: a morto, or the final going out */
		if (!(has_morto(g, side) || next_morto(g) < 0)) {
			g->phase = RPL_PHASE_MORTO;
			g->morto_after = AFTER_DIRECT;
		} else {
			int nm = g->nmelds[side];
			memcpy(after, g->melds[side], sizeof(struct meld) * (size_t)nm);
			after[idx] = m;
			if (idx == nm)
				nm++;
			err = out_check(g, after, nm, 1);
			if (!err)
				err = end_of_turn_check(g, done, g->laid_value + value, nm);
			if (err)
				return err;
		}
	}

	if (!lay_keeps_two(g->hand_n[g->seat], a->ncards) && g->hand_n[g->seat] == a->ncards + 1 &&
	    (has_morto(g, side) || next_morto(g) < 0)) {
		/* one card left: the turn must still be able to end, by discarding or melding it */
		err = keep_check(g, cnt, m, idx);
		if (err)
			return err;
	}

	/* commit */
	for (int i = 0; i < a->ncards; i++)
		g->hand[g->seat][a->cards[i]]--;
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
		end_deal(g, RPL_DEAL_OUT, g->seat);
	}
	return 0;
}

static int do_discard(struct rpl_game *g, const rpl_action *a)
{
	int side = SIDE(g->seat), err, empties;
	rpl_card c = a->cards[0];

	if (a->ncards != 1 || c >= RPL_NFACES)
		return refuse(g, RPL_RULE_BAD_ACTION, "a discard names exactly one card");
	if (!g->hand[g->seat][c])
		return refuse(g, RPL_RULE_NOT_IN_HAND, "%s is not in seat %d's hand", rpl_card_name(c), g->seat);
	if (g->return_face == c)
		return refuse(g, RPL_RULE_PILE_RETURN,
		              "%s was the only card of the pile taken this turn: it may not be discarded back",
		              rpl_card_name(c));
	err = end_of_turn_check(g, g->duty_done, g->laid_value, g->nmelds[side]);
	if (err)
		return err;
	empties = g->hand_n[g->seat] == 1;
	if (empties && (has_morto(g, side) || next_morto(g) < 0)) {
		err = out_check(g, g->melds[side], g->nmelds[side], 0);
		if (err)
			return err;
	}

	/* commit */
	g->hand[g->seat][c]--;
	g->hand_n[g->seat]--;
	g->pile[g->pile_n++] = c;
	if (RV(&g->rules, PILE_FREEZES) && RPL_IS_WILDCAPABLE(c))
		g->stats.pile_frozen++;
	g->can_reject = 0;
	if (g->vulnerable[side] && !g->opened_before && g->nmelds[side] > 0)
		g->stats.vulnerable_open++;
	if (empties) {
		if (!(has_morto(g, side) || next_morto(g) < 0)) {
			g->phase = RPL_PHASE_MORTO;
			g->morto_after = AFTER_INDIRECT;
		} else {
			end_deal(g, RPL_DEAL_OUT, g->seat);
		}
		return 0;
	}
	pass_turn(g);
	return 0;
}

/* Take the whole pile into the hand of the seat to move (no checks). */
static void take_commit(struct rpl_game *g)
{
	const struct rpl_rules *r = &g->rules;
	int rule = RV(r, PILE_RULE);
	rpl_card top = g->pile[g->pile_n - 1];

	g->duty = rule == RPL_PILE_USE_ANY ? DUTY_ANY : rule == RPL_PILE_TOP_LAID ? DUTY_TOP : DUTY_NONE;
	g->duty_top = top;
	/* "that same card": a copy of its face held before the take may still be discarded */
	g->return_face = (RV(r, ONE_CARD_PILE_NO_RETURN) && g->pile_n == 1 && !g->hand[g->seat][top]) ? top : NO_FACE;
	for (int i = 0; i < g->pile_n; i++) {
		g->hand[g->seat][g->pile[i]]++;
		g->taken[g->pile[i]]++;
	}
	g->hand_n[g->seat] = (uint8_t)(g->hand_n[g->seat] + g->pile_n);
	g->pile_n = 0;
	g->phase = RPL_PHASE_PLAY;
	g->stats.pile_taken++;
}

/*
 * ---- The pile-take check ----
 *
 * Whether a card can be laid this turn: the rule behind do_take's refusal
 * pile.unusable (docs/rules.md 11.3) and the bots' judgement of a pile. It
 * lives in the engine, beside do_lay, because it asks do_lay (through
 * rpl__apply on a scratch copy) whenever the meld rules alone cannot tell.
 * Candidates are built from the hand by the shape of runs; the check runs on
 * every take, so it skips what cannot succeed and copies no state where the
 * meld rules alone tell what the engine would say (post_accepts).
 */

/* Faces that can act as wilds, in id order. */
static const rpl_card wild_faces[5] = { 1, 14, 27, 40, RPL_JOKER };

/* A candidate lay: its counts, seen through masks for the meld checks, and its size. */
struct cand {
	cardset cnt;
	struct cards cs;
	int n;
};

static void cand_clear(struct cand *c)
{
	memset(c->cnt, 0, sizeof(c->cnt));
	c->cs.cnt = c->cnt;
	c->cs.any = 0;
	c->cs.multi = 0;
	c->n = 0;
}

static void cand_put(struct cand *c, rpl_card x)
{
	uint64_t bit = 1ull << x;

	if (c->cs.any & bit)
		c->cs.multi |= bit;
	c->cs.any |= bit;
	c->cnt[x]++;
	c->n++;
}

/*
 * The hand the cards come from: its counts, its wilds and, by suit, the
 * positions (1..14) whose natural it holds and the windows worth a look
 * (good_windows), worked out for a suit when first asked.
 */
struct hview {
	const uint8_t *h;
	unsigned pos[4];
	unsigned good[4][3];
	unsigned known;   /* bit s: pos[s] and good[s] are worked out */
	rpl_card wild[5]; /* the wild faces held, in id order */
	int nwild;
};

static void hview_init(struct hview *hv, const cardset h)
{
	hv->h = h;
	hv->known = 0;
	hv->nwild = 0;
	for (int i = 0; i < 5; i++)
		if (h[wild_faces[i]])
			hv->wild[hv->nwild++] = wild_faces[i];
}

/*
 * The windows worth a look: by length 3, 4, 5 (good[0..2]), the starts lo
 * (1..12, hi <= 14) of the windows that miss at most one natural of held,
 * one wild filling one position. A window misses two when it holds a pair
 * of missing positions; the pairs of a window one longer are those of the
 * two windows it covers plus its two ends.
 */
static void good_windows(unsigned held, unsigned good[3])
{
	unsigned miss = ~held & 0x7FFEu, bad = miss & miss >> 1;

	for (int len = 3; len <= 5; len++) {
		bad = bad | bad >> 1 | (miss & miss >> (len - 1));
		good[len - 3] = ~bad & ((2u << (15 - len)) - 1) & 0x1FFEu;
	}
}

static void hview_suit(struct hview *hv, int s)
{
	unsigned ranks;

	if (hv->known & 1u << s)
		return;
	ranks = rpl__cards_ranks(hv->h, s);
	/* rank r sits at position r; the ace also at 14 */
	hv->pos[s] = ranks << 1 | (ranks & 1u) << 14;
	good_windows(hv->pos[s], hv->good[s]);
	hv->known |= 1u << s;
}

/*
 * What the quick acceptance test needs of the post-take state: the seat,
 * the size of its hand, its side's melds, and the hand itself unless every
 * card tried is known to be in it.
 */
struct post_view {
	int play; /* the phase is PLAY */
	int seat, hand_n, nmelds;
	const struct meld *melds;
	const uint8_t *hand; /* NULL: the cards tried are held */
};

/*
 * Trying a candidate lay: its cards must form a meld (or extend one), and,
 * when exact, the engine must accept the lay in the post-take state (which
 * covers every other rule, such as keeping a card to discard).
 */
struct laytry {
	const struct rpl_rules *r;
	int exact;                   /* 0: the meld rules only */
	struct post_view pv;         /* exact: the post-take state as far as post_accepts reads it */
	const struct rpl_game *post; /* exact: the post-take state, or NULL until made from pre */
	const struct rpl_game *pre;  /* the state before the take, when post is made on demand */
	struct rpl_game *post_buf;   /* where it is made */
	struct rpl_game *scratch;
};

static void view_of(struct post_view *pv, const struct rpl_game *post)
{
	pv->play = post->phase == RPL_PHASE_PLAY;
	pv->seat = post->seat;
	pv->hand_n = post->hand_n[post->seat];
	pv->nmelds = post->nmelds[SIDE(post->seat)];
	pv->melds = post->melds[SIDE(post->seat)];
	pv->hand = post->hand[post->seat];
}

/* The post-take state, made on first need: most takes are decided without it. */
static const struct rpl_game *post_state(struct laytry *t)
{
	if (!t->post) {
		memcpy(t->post_buf, t->pre, sizeof(*t->post_buf));
		take_commit(t->post_buf);
		t->post = t->post_buf;
	}
	return t->post;
}

/*
 * Does the engine accept, in the post-take state, every lay of c that the
 * meld rules accept? Beyond the meld rules do_lay refuses only a decision
 * that is off (cards not held, a foreign or unknown meld, no room for a
 * meld), checked here, or a lay that does not keep two cards
 * (lay_keeps_two: the end-of-hand checks), which this leaves to the engine
 * itself (try_lay applies it): so no state needs copying for most lays.
 * The post-take state plays by the rules of the state the melds come from.
 */
static int post_accepts(const struct post_view *pv, int kind, int side, int idx, const struct meld *m,
                        const struct cand *c)
{
	int own = SIDE(pv->seat);

	if (!pv->play || c->n > 14 || !lay_keeps_two(pv->hand_n, c->n))
		return 0;
	if (kind == RPL_ACT_ADD) {
		if (side != own || idx >= pv->nmelds || memcmp(m, &pv->melds[idx], sizeof(*m)) != 0)
			return 0;
	} else if (pv->nmelds >= RPL_MAX_MELDS) {
		return 0;
	}
	for (uint64_t b = pv->hand ? c->cs.any : 0; b; b &= b - 1) {
		int x = ctz64(b);
		if (c->cnt[x] > pv->hand[x])
			return 0;
	}
	return 1;
}

/* The lay of c as a decision, its cards in id order. */
static void lay_action(rpl_action *a, int kind, int side, int idx, const struct cand *c)
{
	int k = 0;

	memset(a, 0, sizeof(*a));
	a->kind = (uint8_t)kind;
	a->side = (uint8_t)side;
	a->meld = (uint8_t)idx;
	for (rpl_card x = 0; x < RPL_NFACES && k < 14; x++)
		for (int i = 0; i < c->cnt[x] && k < 14; i++)
			a->cards[k++] = x;
	a->ncards = (uint8_t)k;
}

/* Is c, at some end, a lay the meld rules accept (and, when exact, the engine after the take)? */
static int try_lay(struct laytry *t, int kind, int side, int idx, const struct meld *m, const struct cand *c)
{
	rpl_action a;
	struct meld out;
	struct meld_fail f;
	int made = 0;

	for (int e = RPL_END_DEFAULT; e <= RPL_END_HIGH; e++) {
		int code = kind == RPL_ACT_MELD ? rpl__meld_arrange_cards(t->r, &c->cs, c->n, e, &out, &f)
		                                : rpl__meld_add_cards(t->r, m, &c->cs, c->n, e, &out, &f);
		if (code) {
			/* refused before the end was read: the other ends are refused alike */
			if (!f.ends)
				return 0;
			continue;
		}
		if (!t->exact || post_accepts(&t->pv, kind, side, idx, m, c))
			return 1;
		if (!made) {
			lay_action(&a, kind, side, idx, c);
			made = 1;
		}
		a.end = (uint8_t)e;
		memcpy(t->scratch, post_state(t), sizeof(*t->scratch));
		if (rpl__apply(t->scratch, &a) == 0)
			return 1;
	}
	return 0;
}

/*
 * Can a new meld of window lo..hi of suit s hold x? The window gets every
 * natural, or one wild at a position q instead. px: x's position, for a
 * natural x (0 for a wild-capable x).
 */
static int window_with(struct laytry *t, const struct hview *hv, int s, unsigned held, int lo, int hi, rpl_card x,
                       int px)
{
	unsigned win = (2u << hi) - (1u << lo), miss = win & ~held;
	rpl_card two = RPL_CARD_MAKE(s, 2);
	int has2 = lo <= 2 && hi >= 2, qlo = lo, qhi = hi;
	struct cand c;

	/* one wild fills one position: with two naturals missing the window is out */
	if (miss & (miss - 1))
		return 0;
	/* no wild: x is one of the naturals (a wild-capable x only as the suit's own 2) */
	if (!miss && (px || (x == two && has2))) {
		cand_clear(&c);
		for (int p = lo; p <= hi; p++)
			cand_put(&c, natural_card(s, p));
		if (try_lay(t, RPL_ACT_MELD, 0, 0, NULL, &c))
			return 1;
	}
	/* one wild w at q: the missing position, or any when none is missing */
	if (miss)
		qlo = qhi = ctz64(miss);
	for (int q = qlo; q <= qhi; q++) {
		for (int wi = 0; wi < hv->nwild; wi++) {
			rpl_card w = hv->wild[wi];
			/* the suit's own 2 as a wild while position 2 wants it too: two needed */
			if (w == two && has2 && q != 2 && hv->h[two] < 2)
				continue;
			if (px ? q == px : !(w == x || (x == two && has2 && q != 2)))
				continue;
			cand_clear(&c);
			for (int p = lo; p <= hi; p++)
				cand_put(&c, p == q ? w : natural_card(s, p));
			if (try_lay(t, RPL_ACT_MELD, 0, 0, NULL, &c))
				return 1;
		}
	}
	return 0;
}

/* The candidate windows of suit s that hold position p, or all of them (p = 0). */
static int windows_at(struct laytry *t, struct hview *hv, int s, int p, rpl_card x, int px)
{
	unsigned held;

	hview_suit(hv, s);
	held = hv->pos[s];
	for (int len = 3; len <= 5; len++) {
		unsigned starts = hv->good[s][len - 3];
		if (p) {
			/* lo <= p <= lo + len - 1 */
			starts &= (2u << p) - 1;
			if (p - len + 1 > 0)
				starts &= ~((1u << (p - len + 1)) - 1);
		}
		for (; starts; starts &= starts - 1) {
			int lo = ctz64(starts);
			if (window_with(t, hv, s, held, lo, lo + len - 1, x, px))
				return 1;
		}
	}
	return 0;
}

/*
 * Can a new meld holding x be made from the hand? Windows of 3 to 5
 * positions suffice (one wild at most), and a natural x must sit inside.
 */
static int new_meld_with(struct laytry *t, struct hview *hv, rpl_card x)
{
	if (!RPL_IS_WILDCAPABLE(x)) {
		int s = RPL_CARD_SUIT(x), p = RPL_CARD_RANK(x);
		/* an ace sits at 1 or 14: no window holds both */
		return windows_at(t, hv, s, p, x, p) || (p == 1 && windows_at(t, hv, s, 14, x, 14));
	}
	for (int s = 0; s < 4; s++)
		if (windows_at(t, hv, s, 0, x, 0))
			return 1;
	return 0;
}

/* Can x alone be added to meld idx of side (a run of x's suit, for a natural x)? */
static int add_alone(struct laytry *t, const struct meld *m, int side, int idx, rpl_card x)
{
	int natural = !RPL_IS_WILDCAPABLE(x);
	struct cand c;

	/* the meld rules answer many additions of a natural at once: a double, a card too far, a run continued */
	if (natural && rpl__meld_add_refused(t->r, m, x))
		return 0;
	cand_clear(&c);
	cand_put(&c, x);
	if (natural && rpl__meld_add_sure(t->r, m, x) && (!t->exact || post_accepts(&t->pv, RPL_ACT_ADD, side, idx, m, &c)))
		return 1;
	return try_lay(t, RPL_ACT_ADD, side, idx, m, &c);
}

/* Can x, with hand cards filling the way to it (a wild for one missing), be added to meld idx of side? */
static int add_beyond(struct laytry *t, const struct meld *m, int side, int idx, struct hview *hv, rpl_card x)
{
	const uint8_t *h = hv->h;
	struct cand c, cw;
	int lo = m->lo, hi = m->hi, s = m->suit, from, to;

	/* x must be a natural of the meld's suit, or its own 2 */
	if (RPL_IS_WILDCAPABLE(x) ? !(RPL_IS_TWO(x) && RPL_CARD_SUIT(x) == s) : RPL_CARD_SUIT(x) != s)
		return 0;
	hview_suit(hv, s);
	for (int pass = 0; pass < 2; pass++) {
		int p = RPL_CARD_RANK(x), missing = 0;
		if (pass == 1) {
			if (RPL_CARD_RANK(x) != 1)
				break;
			p = 14;
		}
		if (p >= lo && p <= hi)
			continue;
		from = p < lo ? p + 1 : hi + 1;
		to = p < lo ? lo - 1 : p - 1;
		/* each position on the way is another face, none of them x: two the hand lacks, and no wild fills both */
		if (from <= to && popcount64(~hv->pos[s] & ((2u << to) - (1u << from))) > 1)
			continue;
		cand_clear(&c);
		cand_put(&c, x);
		for (int q = from; q <= to; q++) {
			rpl_card nc = natural_card(s, q);
			if (c.cnt[nc] < h[nc])
				cand_put(&c, nc);
			else
				missing++;
		}
		if (missing == 0) {
			if (c.n <= 14 && try_lay(t, RPL_ACT_ADD, side, idx, m, &c))
				return 1;
		} else if (missing == 1) {
			/* floating wilds: the meld's own wild may move to fill the way (the meld rules arrange it) */
			if (m->nw > 0 && RV(t->r, WILD_MOBILITY) == RPL_WILD_FLOATING && c.n <= 14 &&
			    try_lay(t, RPL_ACT_ADD, side, idx, m, &c))
				return 1;
			for (int wi = 0; wi < hv->nwild; wi++) {
				rpl_card w = hv->wild[wi];
				if (c.cnt[w] >= h[w] || c.n + 1 > 14)
					continue;
				cw = c;
				cw.cs.cnt = cw.cnt;
				cand_put(&cw, w);
				if (try_lay(t, RPL_ACT_ADD, side, idx, m, &cw))
					return 1;
			}
		}
	}
	return 0;
}

/*
 * Can x be laid: added to a meld of side, alone or with hand cards on the
 * way, or in a new meld? The candidates are tried likeliest first (x alone,
 * new melds, then the rest); the answer does not depend on the order.
 */
static int can_lay_with(struct laytry *t, const struct rpl_game *g, int side, struct hview *hv, rpl_card x)
{
	const struct meld *ms = g->melds[side];
	int nm = g->nmelds[side], wild = RPL_IS_WILDCAPABLE(x), s = wild ? -1 : RPL_CARD_SUIT(x);

	/* a natural joins only runs of its suit: the others fail the suit check at every end */
	for (int i = 0; i < nm; i++)
		if ((wild || ms[i].suit == s) && add_alone(t, &ms[i], side, i, x))
			return 1;
	if (new_meld_with(t, hv, x))
		return 1;
	for (int i = 0; i < nm; i++)
		if ((wild || ms[i].suit == s) && add_beyond(t, &ms[i], side, i, hv, x))
			return 1;
	return 0;
}

int rpl__can_lay(const struct rpl_game *g, int side, const cardset h, rpl_card x, const struct rpl_game *post)
{
	struct rpl_game scratch;
	struct laytry t;
	struct hview hv;

	memset(&t, 0, sizeof(t));
	t.r = &g->rules;
	t.exact = post != NULL;
	t.post = post;
	t.scratch = &scratch;
	if (post)
		view_of(&t.pv, post);
	hview_init(&hv, h);
	return can_lay_with(&t, g, side, &hv, x);
}

/*
 * The pile-take check: may the seat to move of g, having taken the pile,
 * lay any of the nx cards xs this turn (as rpl__can_lay with the post-take
 * state, made only if needed)? xs must be in h and h in the hand after the
 * take.
 */
static int take_usable(const struct rpl_game *g, const cardset h, const rpl_card *xs, int nx)
{
	struct rpl_game scratch, post;
	struct laytry t;
	struct hview hv;
	int side = SIDE(g->seat);

	memset(&t, 0, sizeof(t));
	t.r = &g->rules;
	t.exact = 1;
	/* the take puts the pile in the hand and opens the play; the melds stay */
	t.pv.play = 1;
	t.pv.seat = g->seat;
	t.pv.hand_n = g->hand_n[g->seat] + g->pile_n;
	t.pv.nmelds = g->nmelds[side];
	t.pv.melds = g->melds[side];
	t.pv.hand = NULL;
	t.pre = g;
	t.post_buf = &post;
	t.scratch = &scratch;
	hview_init(&hv, h);
	for (int i = 0; i < nx; i++)
		if (can_lay_with(&t, g, side, &hv, xs[i]))
			return 1;
	return 0;
}

/*
 * The pile may be taken only if the card that must be laid can be laid this
 * turn, as confirmed by the engine on the state after the take, so that a
 * take never leads to a turn that cannot end (laying the card must leave a
 * card to discard, etc.). The engine accepting a lay implies the meld rules
 * do, so that check alone decides.
 */
static int do_take(struct rpl_game *g)
{
	const struct rpl_rules *r = &g->rules;
	int rule = RV(r, PILE_RULE);
	rpl_card top;

	if (g->pile_n == 0)
		return refuse(g, RPL_RULE_PILE_EMPTY, "the pile is empty: draw from the stock");
	top = g->pile[g->pile_n - 1];
	if (RV(r, PILE_FREEZES) && RPL_IS_WILDCAPABLE(top))
		return refuse(g, RPL_RULE_PILE_FROZEN, "the pile is frozen: its top card %s is a wild", rpl_card_name(top));
	if (rule == RPL_PILE_TOP_LAID) {
		cardset h;
		memcpy(h, g->hand[g->seat], sizeof(h));
		h[top]++;
		if (!take_usable(g, h, &top, 1))
			return refuse(g, RPL_RULE_PILE_UNUSABLE,
			              "the pile's top card %s cannot be laid this turn with the hand's cards or on the "
			              "side's melds",
			              rpl_card_name(top));
	} else if (rule == RPL_PILE_USE_ANY) {
		cardset h, seen;
		rpl_card xs[RPL_DECK_SIZE];
		int nx = 0;
		memcpy(h, g->hand[g->seat], sizeof(h));
		memset(seen, 0, sizeof(seen));
		/* each face of the pile once, bottom first */
		for (int i = 0; i < g->pile_n; i++) {
			rpl_card c = g->pile[i];
			h[c]++;
			if (!seen[c]) {
				seen[c] = 1;
				xs[nx++] = c;
			}
		}
		if (!take_usable(g, h, xs, nx))
			return refuse(g, RPL_RULE_PILE_UNUSABLE,
			              "no card of the pile can be laid down this turn: the pile may not be taken just to keep "
			              "cards");
	}
	take_commit(g);
	return 0;
}

int rpl__apply(struct rpl_game *g, const rpl_action *a)
{
	int err = 0;

	switch (g->phase) {
	case RPL_PHASE_NO_DEAL: return refuse(g, RPL_RULE_NO_DEAL, "no deal is in progress");
	case RPL_PHASE_DEAL_OVER:
		return refuse(g, RPL_RULE_NO_DEAL, "deal %d is over: the next deal must start first", g->deal_no);
	case RPL_PHASE_MATCH_OVER: return refuse(g, RPL_RULE_MATCH_OVER, "the match is over: side %d won", g->winner);
	case RPL_PHASE_MORTO:
		if (a->kind != RPL_ACT_MORTO)
			return refuse(g, RPL_RULE_MORTO_DUE, "seat %d's hand is empty: the morto must be picked up first", g->seat);
		break;
	default: break;
	}

	switch (a->kind) {
	case RPL_ACT_MORTO: {
		int m = next_morto(g), side = SIDE(g->seat);
		if (g->phase != RPL_PHASE_MORTO)
			return refuse(g, RPL_RULE_MORTO_NOT_DUE, "a morto is picked up only when the hand has just emptied");
		if (a->morto != m)
			return refuse(g, RPL_RULE_MORTO_WRONG, "the next morto is morto %d, not %d", m, a->morto);
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
			pass_turn(g);
		}
		break;
	}
	case RPL_ACT_DRAW:
		if (g->phase != RPL_PHASE_DRAW)
			return refuse(g, RPL_RULE_ALREADY_DREW, "seat %d already drew this turn", g->seat);
		if (g->src_pos >= g->src_len)
			return refuse(g, RPL_RULE_STOCK_EMPTY, "the stock is empty");
		{
			rpl_card c = draw_card(g);
			g->hand[g->seat][c]++;
			g->hand_n[g->seat]++;
			g->last_drawn = c;
		}
		g->can_reject = RV(&g->rules, FIRST_TURN_REJECT) && g->turn_no == 1;
		g->phase = RPL_PHASE_PLAY;
		break;
	case RPL_ACT_TAKE:
		if (g->phase != RPL_PHASE_DRAW)
			return refuse(g, RPL_RULE_ALREADY_DREW, "seat %d already drew this turn", g->seat);
		err = do_take(g);
		break;
	case RPL_ACT_REJECT:
		if (g->phase == RPL_PHASE_DRAW || !g->can_reject)
			return refuse(g, RPL_RULE_REJECT,
			              "only the first player's first card, just drawn, may be rejected for the next one");
		if (g->src_pos >= g->src_len)
			return refuse(g, RPL_RULE_STOCK_EMPTY, "the stock is empty");
		g->hand[g->seat][g->last_drawn]--;
		g->pile[g->pile_n++] = g->last_drawn;
		{
			rpl_card c = draw_card(g);
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
			return refuse(g, RPL_RULE_MUST_DRAW, "seat %d must draw from the stock or take the pile first", g->seat);
		err = a->kind == RPL_ACT_DISCARD ? do_discard(g, a) : do_lay(g, a);
		break;
	default: return refuse(g, RPL_RULE_BAD_ACTION, "unknown decision kind %d", a->kind);
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
		compute_score(g, side, out);
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
