/*
 * What a seat knows (infoset.h): its information set, and determinizations,
 * the games a search plays on, in which the cards the seat cannot see are
 * dealt anew. The sampler reads nothing the seat cannot see: what it deals
 * is worked out from the seat's view alone, so that two games the seat
 * cannot tell apart give the same sample from the same stream (test_infoset
 * checks it).
 */
#include <string.h>

#include "libreplay/infoset.h"
#include "rules/game_impl.h"

/*
 * The cards seat cannot place in g (unseen, by face; their number is
 * returned) and, by seat, the cards of each hand it cannot see (hidden).
 * The deck less the seat's hand, every meld, the pile and the other
 * hands' known cards.
 */
static int unseen_of(const struct rpl_game *g, int seat, cardset unseen, int hidden[RPL_MAX_SEATS])
{
	cardset seen;
	int n = 0;

	memcpy(seen, g->hand[seat], sizeof(seen));
	for (int side = 0; side < 2; side++)
		for (int i = 0; i < g->nmelds[side]; i++)
			rpl__meld_cards(&g->melds[side][i], seen);
	for (int i = 0; i < g->pile_n; i++)
		seen[g->pile[i]]++;
	for (int s = 0; s < RPL_MAX_SEATS; s++) {
		int k = 0;
		hidden[s] = 0;
		if (s == seat || s >= g->n)
			continue;
		for (rpl_card c = 0; c < RPL_NFACES; c++) {
			seen[c] = (uint8_t)(seen[c] + g->known[s][c]);
			k += g->known[s][c];
		}
		hidden[s] = g->hand_n[s] - k;
	}
	for (rpl_card c = 0; c < RPL_NFACES; c++) {
		unseen[c] = (uint8_t)(rpl_card_copies(c) - seen[c]);
		n += unseen[c];
	}
	return n;
}

/* Did the seat to move take a pile of one card this turn? (duty_top: the top of a pile taken this turn.) */
static int one_card_taken(const struct rpl_game *g)
{
	int n = 0;

	if (g->phase != RPL_PHASE_PLAY || g->duty_top == NO_FACE)
		return 0;
	for (rpl_card c = 0; c < RPL_NFACES; c++)
		n += g->taken[c];
	return n == 1;
}

int rpl_infoset_get(const rpl_game *g, int seat, rpl_infoset *out)
{
	cardset unseen;

	if (!g || !out || seat < 0 || seat >= g->n)
		return RPL_EINVAL;
	if (g->phase == RPL_PHASE_NO_DEAL)
		return RPL_ESTATE;
	memset(out, 0, sizeof(*out));
	out->seat = seat;
	out->players = g->n;
	out->to_move = g->seat;
	out->phase = g->phase;
	out->deal = g->deal_no;
	memcpy(out->hand, g->hand[seat], sizeof(out->hand));
	for (int s = 0; s < g->n; s++) {
		out->hand_n[s] = g->hand_n[s];
		memcpy(out->known[s], g->known[s], sizeof(out->known[s]));
	}
	for (int side = 0; side < 2; side++) {
		out->nmelds[side] = g->nmelds[side];
		for (int i = 0; i < g->nmelds[side]; i++)
			rpl__meld_info(&g->rules, &g->melds[side][i], &out->melds[side][i]);
	}
	memcpy(out->pile, g->pile, g->pile_n);
	out->pile_n = g->pile_n;
	out->stock_n = g->src_len - g->src_pos;
	out->morto_state[0] = g->morto_state[0];
	out->morto_state[1] = g->morto_state[1];
	out->unseen_n = unseen_of(g, seat, unseen, out->hidden);
	memcpy(out->unseen, unseen, sizeof(out->unseen));
	return RPL_OK;
}

int rpl_infoset_sample(const rpl_game *g, int seat, rpl_rng *rng, rpl_game *out)
{
	cardset unseen;
	int hidden[RPL_MAX_SEATS], n, k = 0, mover;
	rpl_card deck[RPL_DECK_SIZE];

	if (!g || !rng || !out || seat < 0 || seat >= g->n)
		return RPL_EINVAL;
	if (g->phase == RPL_PHASE_NO_DEAL)
		return RPL_ESTATE;
	n = unseen_of(g, seat, unseen, hidden);
	/* the unseen cards in face order, then shuffled (Fisher-Yates, as rpl_layout_shuffle) */
	for (rpl_card c = 0; c < RPL_NFACES; c++)
		for (int i = 0; i < unseen[c]; i++)
			deck[k++] = c;
	for (int i = n - 1; i > 0; i--) {
		int j = (int)rpl_rng_below(rng, (uint32_t)i + 1);
		rpl_card t = deck[i];
		deck[i] = deck[j];
		deck[j] = t;
	}

	if (out != g)
		memcpy(out, g, sizeof(*out));
	mover = out->seat;
	k = 0;
	for (int s = 0; s < out->n; s++) {
		if (s == seat)
			continue;
		memcpy(out->hand[s], out->known[s], sizeof(out->hand[s]));
		/* a draw the seat did not see: the card the ABERTO first turn may reject is one of the mover's */
		if (s == mover && hidden[s] > 0)
			out->last_drawn = deck[k];
		for (int i = 0; i < hidden[s]; i++)
			out->hand[s][deck[k++]]++;
		/*
		 * The one-card pile that may not be discarded back (ABERTO) is the
		 * taker's own unless it held a copy before the take: in out, unless
		 * a copy is among its hidden cards.
		 */
		if (s == mover && RV(&out->rules, ONE_CARD_PILE_NO_RETURN) && one_card_taken(out))
			out->return_face = out->hand[s][out->duty_top] > out->known[s][out->duty_top] ? NO_FACE : out->duty_top;
	}
	/* the past no rule reads again: not kept */
	memset(out->src, NO_FACE, out->src_pos);
	for (int i = out->src_pos; i < out->src_len; i++)
		out->src[i] = deck[k++];
	for (int m = 0; m < 2; m++)
		for (int i = 0; i < RPL_MORTO_SIZE; i++)
			out->morto[m][i] = out->morto_state[m] == -1 ? deck[k++] : NO_FACE;
	return RPL_OK;
}
