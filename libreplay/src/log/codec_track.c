/*
 * The card bookkeeping of a deal (docs/format.md, section 8): who holds
 * which cards, the pile, the mortos, the melds' suits and ranks. It is all
 * a decoder knows, and every context of the decisions is a function of it.
 */
#include <string.h>

#include "log/codec_impl.h"

/* ---- bookkeeping ---- */

static void hand_add(struct track *t, int seat, rpl_card c)
{
	t->fmask[seat] |= 1ull << c;
	t->hand[seat][c]++;
	t->hand_n[seat]++;
	t->ranks[seat][c / 13] |= rank_bits_of[c];
}

static void hand_sub(struct track *t, int seat, rpl_card c)
{
	t->hand_n[seat]--;
	if (!--t->hand[seat][c]) {
		t->fmask[seat] &= ~(1ull << c);
		t->ranks[seat][c / 13] &= (uint16_t)~rank_bits_of[c];
	}
}

void rpl__track_deal(struct track *t, int nplayers, int dealer, const rpl_layout *lay)
{
	memset(t, 0, sizeof(*t));
	t->n = (uint8_t)nplayers;
	t->seat = (uint8_t)((dealer + 1) % nplayers);
	t->last = -1;
	t->last_drawn = -1;
	for (int s = 0; s < nplayers; s++)
		for (int i = 0; i < RPL_HAND_SIZE; i++)
			hand_add(t, s, lay->hand[s][i]);
	t->src_len = (uint8_t)RPL_STOCK_SIZE(nplayers);
	memcpy(t->src, lay->stock, t->src_len);
	memcpy(t->morto, lay->morto, sizeof(t->morto));
}

int rpl__track_actor(const struct track *t, int kind)
{
	if (kind == RPL_ACT_MORTO && t->last >= 0)
		return t->last;
	return t->seat;
}

static void set_why(char *why, size_t whylen, const char *msg, rpl_card c, int seat)
{
	if (!why || !whylen)
		return;
	if (c < RPL_NFACES) {
		size_t k = strlen(rpl_card_name(c));
		const char *tail = " is not in the hand of seat ";
		if (whylen > k + strlen(tail) + 3) {
			memcpy(why, rpl_card_name(c), k);
			memcpy(why + k, tail, strlen(tail));
			k += strlen(tail);
			why[k++] = (char)('0' + seat);
			why[k] = '\0';
			return;
		}
	}
	strncpy(why, msg, whylen - 1);
	why[whylen - 1] = '\0';
}

/* Draw from the stock; a morto nobody took becomes the stock when it runs out. */
static int track_draw(struct track *t, int seat)
{
	rpl_card c;

	if (t->src_pos >= t->src_len) {
		int m = t->morto_used[0] == 0 ? 0 : (t->morto_used[1] == 0 ? 1 : -1);
		if (m < 0)
			return -1;
		memcpy(t->src, t->morto[m], RPL_MORTO_SIZE);
		t->src_pos = 0;
		t->src_len = RPL_MORTO_SIZE;
		t->morto_used[m] = 2;
	}
	c = t->src[t->src_pos++];
	hand_add(t, seat, c);
	t->last_drawn = c;
	return 0;
}

/*
 * A meld's or an addition's cards leave the hand; checked first unless
 * decoded (rpl__track_apply_decoded: the decoder names only cards of the
 * hand, each no more often than it holds them, 1 to 14 of them).
 */
static inline int take_cards(struct track *t, int seat, const rpl_action *a, char *why, size_t whylen, int decoded)
{
	cardset cnt;

	if (!decoded) {
		if (a->ncards < 1 || a->ncards > 14) {
			set_why(why, whylen, "a meld decision names 1 to 14 cards", RPL_NFACES, 0);
			return -1;
		}
		memset(cnt, 0, sizeof(cnt));
		for (int i = 0; i < a->ncards; i++) {
			rpl_card c = a->cards[i];
			if (c >= RPL_NFACES || ++cnt[c] > t->hand[seat][c]) {
				set_why(why, whylen, "a decision names a value that is not a card", c, seat);
				return -1;
			}
		}
	}
	for (int i = 0; i < a->ncards; i++)
		hand_sub(t, seat, a->cards[i]);
	return 0;
}

/* Ranks one away from those of m, not in m (an ace is 1 and 14). */
static uint16_t adjacent(uint16_t m)
{
	return (uint16_t)(((m << 1) | (m >> 1)) & ~m);
}

/*
 * A meld's suit and ranks, for the coder's contexts: from the cards, not from
 * the rules. The suit is that of the lowest natural card, whatever order the
 * caller named the cards in (the decoder sees them ascending).
 */
static void meld_note(struct track *t, int side, int i, const rpl_action *a)
{
	uint64_t ext = 0;

	if (t->msuit[side][i] == 4) {
		rpl_card low = RPL_NFACES;
		for (int k = 0; k < a->ncards; k++)
			if (!((WILD_FACES >> a->cards[k]) & 1) && a->cards[k] < low)
				low = a->cards[k];
		if (low != RPL_NFACES)
			t->msuit[side][i] = (uint8_t)RPL_CARD_SUIT(low);
	}
	for (int k = 0; k < a->ncards; k++) {
		rpl_card c = a->cards[k];
		if (!((WILD_FACES >> c) & 1))
			t->mranks[side][i] |= rank_bits_of[c];
	}
	/* only meld i changed: the side's faces are the melds' own, ORed */
	if (t->msuit[side][i] < 4)
		t->mext[side][i] = rank_faces(t->msuit[side][i], adjacent(t->mranks[side][i]));
	for (int k = 0; k < t->nmelds[side]; k++)
		ext |= t->mext[side][k];
	t->extf[side] = ext;
}

/*
 * Both entries below get their own copy (always_inline): the decoder's is
 * then small enough to be inlined into the reader's next_decision, where
 * the compiler sees what the decoder just read and drops the checks and
 * branches that cannot apply.
 */
static inline __attribute__((always_inline)) int track_apply(struct track *t, const rpl_action *a, char *why,
                                                             size_t whylen, int decoded)
{
	int seat = rpl__track_actor(t, a->kind);

	if (a->kind < RPL_ACT_DRAW || a->kind > RPL_ACT_MORTO) {
		set_why(why, whylen, "unknown decision kind", RPL_NFACES, 0);
		return -1;
	}
	if ((a->kind == RPL_ACT_MELD || a->kind == RPL_ACT_ADD) && a->end > RPL_END_HIGH) {
		set_why(why, whylen, "a meld decision's wild end is 0, 1 or 2", RPL_NFACES, 0);
		return -1;
	}
	if (a->kind != RPL_ACT_MORTO && !t->open) {
		t->open = 1;
		t->drew = 0;
		t->turn++;
	}
	switch (a->kind) {
	case RPL_ACT_DRAW:
		if (track_draw(t, seat) < 0) {
			set_why(why, whylen, "nothing is left to draw", RPL_NFACES, 0);
			return -1;
		}
		t->drew = 1;
		break;
	case RPL_ACT_TAKE:
		for (int i = 0; i < t->pile_n; i++)
			hand_add(t, seat, t->pile[i]);
		t->pile_n = 0;
		t->drew = 1;
		break;
	case RPL_ACT_REJECT:
		if (t->last_drawn < 0 || !t->hand[seat][t->last_drawn]) {
			set_why(why, whylen, "no card was just drawn to reject", RPL_NFACES, 0);
			return -1;
		}
		hand_sub(t, seat, (rpl_card)t->last_drawn);
		t->pile[t->pile_n++] = (rpl_card)t->last_drawn;
		if (track_draw(t, seat) < 0) {
			set_why(why, whylen, "nothing is left to draw", RPL_NFACES, 0);
			return -1;
		}
		break;
	case RPL_ACT_MELD:
		if (t->nmelds[seat & 1] >= RPL_MAX_MELDS) {
			set_why(why, whylen, "too many melds", RPL_NFACES, 0);
			return -1;
		}
		if (take_cards(t, seat, a, why, whylen, decoded) < 0)
			return -1;
		t->msuit[seat & 1][t->nmelds[seat & 1]] = 4;
		t->mranks[seat & 1][t->nmelds[seat & 1]] = 0;
		t->mext[seat & 1][t->nmelds[seat & 1]] = 0;
		t->nmelds[seat & 1]++;
		meld_note(t, seat & 1, t->nmelds[seat & 1] - 1, a);
		break;
	case RPL_ACT_ADD:
		if (a->side > 1 || a->meld >= t->nmelds[a->side]) {
			set_why(why, whylen, "no such meld on the table", RPL_NFACES, 0);
			return -1;
		}
		if (take_cards(t, seat, a, why, whylen, decoded) < 0)
			return -1;
		meld_note(t, a->side, a->meld, a);
		break;
	case RPL_ACT_DISCARD:
		if (a->ncards != 1 || a->cards[0] >= RPL_NFACES || !t->hand[seat][a->cards[0]]) {
			set_why(why, whylen, "a discard names one card of the hand", a->cards[0], seat);
			return -1;
		}
		hand_sub(t, seat, a->cards[0]);
		t->pile[t->pile_n++] = a->cards[0];
		t->open = 0;
		t->drew = 0;
		t->seat = (uint8_t)((seat + 1) % t->n);
		break;
	case RPL_ACT_MORTO:
		if (a->morto > 1 || t->morto_used[a->morto]) {
			set_why(why, whylen, "that morto is no longer on the table", RPL_NFACES, 0);
			return -1;
		}
		for (int i = 0; i < RPL_MORTO_SIZE; i++)
			hand_add(t, seat, t->morto[a->morto][i]);
		t->morto_used[a->morto] = 1;
		break;
	default: break;
	}
	/* the card just drawn is known only until the next decision */
	if (a->kind != RPL_ACT_DRAW && a->kind != RPL_ACT_REJECT)
		t->last_drawn = -1;
	t->last = (int8_t)seat;
	t->last_kind = a->kind;
	return 0;
}

int rpl__track_apply(struct track *t, const rpl_action *a, char *why, size_t whylen)
{
	return track_apply(t, a, why, whylen, 0);
}

int rpl__track_apply_decoded(struct track *t, const rpl_action *a, char *why, size_t whylen)
{
	return track_apply(t, a, why, whylen, 1);
}

rpl_card *rpl__track_draw_place(struct track *t, int *pos, int *len, int *became)
{
	int m;

	*became = -1;
	if (t->src_pos < t->src_len) {
		*pos = t->src_pos;
		*len = t->src_len;
		return t->src;
	}
	m = t->morto_used[0] == 0 ? 0 : (t->morto_used[1] == 0 ? 1 : -1);
	if (m < 0)
		return NULL;
	*became = m;
	*pos = 0;
	*len = RPL_MORTO_SIZE;
	return t->morto[m];
}

void rpl__track_drawn(const struct track *t, int drawn[3])
{
	/* the pile drawn from now: the stock, or the morto that became it last (morto 0 goes first) */
	int cur = t->morto_used[1] == 2 ? 1 : t->morto_used[0] == 2 ? 0 : -1;

	drawn[0] = cur < 0 ? t->src_pos : RPL_STOCK_SIZE(t->n);
	for (int m = 0; m < 2; m++)
		drawn[1 + m] = t->morto_used[m] != 2 ? 0 : m == cur ? t->src_pos : RPL_MORTO_SIZE;
}
