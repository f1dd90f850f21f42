/*
 * The layout of a deal (docs/format.md, section 7): the hands as exact
 * multisets, then the mortos and the stock card by card, each with its
 * exact probability given what is left of the deck.
 */
#include <string.h>

#include "log/codec_impl.h"
#include "log/binom.h"

/* ---- the layout ---- */

/* The whole deck's counts: two of each face, four jokers (rpl_card_copies, without a call a face). */
static void deck_counts(uint8_t *cnt)
{
	memset(cnt, 2, RPL_JOKER);
	cnt[RPL_JOKER] = 4;
}

/*
 * A hand is a set: for each face in id order, how many copies of it the hand
 * holds, x, is coded with its exact probability given what is left of the
 * deck (R cards, c of this face, k still to deal to the hand):
 * P(x) = C(c,x) C(R-c,k-x) / C(R,k), as a chain of bits "x > j".
 */
/* C(n, k); the layout's callers stay within n <= 108, 0 <= k <= 11 (the deck's counts, not the stream's). */
static inline uint64_t binom(int n, int k)
{
	return binom_table[n][k];
}

/* The encoder reads the hand's counts from hand; the decoder writes its cards, ascending, to out. */
static int code_hand(struct rc_enc *e, struct rc_dec *d, uint8_t *cnt, int *left, const uint8_t *hand, rpl_card *out)
{
	int k = RPL_HAND_SIZE;

	for (int f = 0; f < RPL_NFACES && k > 0; f++) {
		int c = cnt[f], max = c < k ? c : k, x = e ? hand[f] : 0, j;
		uint64_t tail = binom(*left, k); /* the sum of w(j) over j = 0..max (Vandermonde) */
		for (j = 0; j < max; j++) {
			uint64_t w = binom(c, j) * binom(*left - c, k - j);
			int more;
			if (w == 0) {
				more = 1;
			} else if (w == tail) {
				more = 0;
			} else {
				uint64_t p = (w << 12) / tail;
				uint32_t p12 = p < 1 ? 1 : (p > 4095 ? 4095 : (uint32_t)p);
				more = x > j;
				if (e)
					enc_fixed(e, p12, more);
				else if (d)
					more = dec_fixed(d, p12);
			}
			if (!more)
				break;
			tail -= w;
		}
		if (e && j != x)
			return -1;
		x = j;
		if (x > c)
			return -1;
		cnt[f] = (uint8_t)(cnt[f] - x);
		*left -= c;
		k -= x;
		if (!e)
			for (int i = 0; i < x; i++)
				*out++ = (rpl_card)f;
	}
	return k == 0 ? 0 : -1;
}

/*
 * What is left of the deck: copies of each face, and of each suit's 13
 * faces (the joker alone in the fifth group), and cards in all.
 */
struct deck {
	uint8_t cnt[RPL_NFACES];
	uint8_t group[5];
	int left;
};

static void deck_rest(struct deck *k, const uint8_t *cnt, int left)
{
	memcpy(k->cnt, cnt, RPL_NFACES);
	memset(k->group, 0, sizeof(k->group));
	for (int f = 0; f < RPL_NFACES; f++)
		k->group[f / 13] = (uint8_t)(k->group[f / 13] + cnt[f]);
	k->left = left;
}

/* A card of the rest of the deck, with its exact probability: cnt[c] / left. */
static void enc_card(struct rc_enc *e, struct deck *k, rpl_card c)
{
	uint32_t cum = 0;
	for (rpl_card f = 0; f < c; f++)
		cum += k->cnt[f];
	enc_freq(e, cum, k->cnt[c], (uint32_t)k->left);
	k->cnt[c]--;
	k->group[c / 13]--;
	k->left--;
}

static rpl_card dec_card(struct rc_dec *d, struct deck *k)
{
	uint32_t r, v = dec_freq_at(d, (uint32_t)k->left, &r), cum = 0;
	int g = 0, f;

	while (g < 4 && cum + k->group[g] <= v)
		cum += k->group[g++];
	f = 13 * g;
	while (f < RPL_NFACES - 1 && cum + k->cnt[f] <= v)
		cum += k->cnt[f++];
	if (!k->cnt[f]) { /* only a bad stream gets here: the deck is exhausted past v */
		d->bad = 1;
		return 0;
	}
	dec_freq_take(d, r, cum, k->cnt[f]);
	k->cnt[f]--;
	k->group[f / 13]--;
	k->left--;
	return (rpl_card)f;
}

void rpl__enc_layout(struct rc_enc *e, int nplayers, const rpl_layout *lay)
{
	struct deck k;
	uint8_t cnt[RPL_NFACES], h[RPL_NFACES];
	int left = RPL_DECK_SIZE;

	deck_counts(cnt);
	for (int s = 0; s < nplayers; s++) {
		int rest = left;
		memset(h, 0, sizeof(h));
		for (int i = 0; i < RPL_HAND_SIZE; i++)
			h[lay->hand[s][i]]++;
		code_hand(e, NULL, cnt, &rest, h, NULL);
		left -= RPL_HAND_SIZE;
	}
	deck_rest(&k, cnt, left);
	for (int m = 0; m < 2; m++)
		for (int i = 0; i < RPL_MORTO_SIZE; i++)
			enc_card(e, &k, lay->morto[m][i]);
	for (int i = 0; i < RPL_STOCK_SIZE(nplayers); i++)
		enc_card(e, &k, lay->stock[i]);
}

int rpl__dec_layout(struct rc_dec *d, int nplayers, rpl_layout *lay)
{
	struct deck k;
	uint8_t cnt[RPL_NFACES];
	int left = RPL_DECK_SIZE;

	memset(lay, 0, sizeof(*lay));
	deck_counts(cnt);
	for (int s = 0; s < nplayers; s++) {
		int rest = left;
		if (code_hand(NULL, d, cnt, &rest, NULL, lay->hand[s]) < 0)
			return -1;
		left -= RPL_HAND_SIZE;
	}
	deck_rest(&k, cnt, left);
	for (int m = 0; m < 2; m++)
		for (int i = 0; i < RPL_MORTO_SIZE; i++)
			lay->morto[m][i] = dec_card(d, &k);
	for (int i = 0; i < RPL_STOCK_SIZE(nplayers); i++)
		lay->stock[i] = dec_card(d, &k);
	return d->bad ? -1 : 0;
}
