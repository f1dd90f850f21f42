/*
 * The committed deal (docs/format.md, section 15): a Fisher-Yates shuffle
 * of the canonical 108-card order driven by BLAKE2b in counter mode, keyed
 * by a per-deal key that binds the platform's seed, the players' seeds and
 * the deal number.
 */
#include <string.h>

#include <sodium.h>

#include "sodium_init.h"

#include "libreplay/deal.h"
#include "libreplay/log.h"

#define COMMIT_DOMAIN "brp-commit-v1"
#define DEAL_DOMAIN "brp-deal-v1"

int rpl_deal_commit(uint8_t out[RPL_DEAL_COMMIT_SIZE], const uint8_t seed[RPL_DEAL_SEED_SIZE])
{
	crypto_generichash_state st;

	if (!out || !seed || rpl__sodium_init() < 0)
		return RPL_EINVAL;
	crypto_generichash_init(&st, NULL, 0, RPL_DEAL_COMMIT_SIZE);
	crypto_generichash_update(&st, (const unsigned char *)COMMIT_DOMAIN, sizeof(COMMIT_DOMAIN) - 1);
	crypto_generichash_update(&st, seed, RPL_DEAL_SEED_SIZE);
	crypto_generichash_final(&st, out, RPL_DEAL_COMMIT_SIZE);
	return 0;
}

/* The keyed stream of one deal: 64-byte blocks BLAKE2b-512(key, u64le i), read as u32le words. */
struct stream {
	uint8_t key[32];
	uint8_t block[64];
	uint64_t index; /* of the next block */
	int pos;        /* next byte of block; 64: block used up */
};

static uint32_t stream_word(struct stream *s)
{
	uint32_t w;

	if (s->pos == 64) {
		uint8_t ctr[8];
		for (int i = 0; i < 8; i++)
			ctr[i] = (uint8_t)(s->index >> (8 * i));
		crypto_generichash(s->block, sizeof(s->block), ctr, sizeof(ctr), s->key, sizeof(s->key));
		s->index++;
		s->pos = 0;
	}
	w = (uint32_t)s->block[s->pos] | (uint32_t)s->block[s->pos + 1] << 8 | (uint32_t)s->block[s->pos + 2] << 16 |
	    (uint32_t)s->block[s->pos + 3] << 24;
	s->pos += 4;
	return w;
}

/* A uniform integer in [0, n), 1 <= n <= 108: words at or above the largest multiple of n are drawn again. */
static uint32_t stream_below(struct stream *s, uint32_t n)
{
	uint32_t limit = UINT32_MAX - (uint32_t)(((uint64_t)UINT32_MAX + 1) % n) + 1; /* 2^32 - (2^32 mod n) */
	uint32_t w;

	do
		w = stream_word(s);
	while (limit != 0 && w >= limit);
	return w % n;
}

/* A hand in ascending id order: an insertion sort, which for 11 cards costs a tenth of qsort's calls. */
static void sort_hand(rpl_card *h)
{
	for (int i = 1; i < RPL_HAND_SIZE; i++) {
		rpl_card c = h[i];
		int j = i;
		for (; j > 0 && h[j - 1] > c; j--)
			h[j] = h[j - 1];
		h[j] = c;
	}
}

int rpl_deal_derive(rpl_layout *out, const uint8_t seed[RPL_DEAL_SEED_SIZE],
                    const uint8_t (*player_seeds)[RPL_DEAL_SEED_SIZE], int nplayer_seeds, int nplayers, int deal)
{
	crypto_generichash_state st;
	struct stream s;
	rpl_card deck[RPL_DECK_SIZE];
	uint8_t tail[5];
	int k = 0;

	if (!out || !seed || (nplayers != 2 && nplayers != 4) || deal < 1 || deal > RPL_MAX_DEALS || nplayer_seeds < 0 ||
	    nplayer_seeds > RPL_DEAL_MAX_PLAYER_SEEDS || (nplayer_seeds && !player_seeds) || rpl__sodium_init() < 0)
		return RPL_EINVAL;
	/* the deal's key: BLAKE2b-256 keyed by the seed over the domain, the players' seeds and the deal */
	crypto_generichash_init(&st, seed, RPL_DEAL_SEED_SIZE, sizeof(s.key));
	crypto_generichash_update(&st, (const unsigned char *)DEAL_DOMAIN, sizeof(DEAL_DOMAIN) - 1);
	tail[0] = (uint8_t)nplayer_seeds;
	crypto_generichash_update(&st, tail, 1);
	for (int i = 0; i < nplayer_seeds; i++)
		crypto_generichash_update(&st, player_seeds[i], RPL_DEAL_SEED_SIZE);
	for (int i = 0; i < 4; i++)
		tail[i] = (uint8_t)((uint32_t)deal >> (8 * i));
	crypto_generichash_update(&st, tail, 4);
	crypto_generichash_final(&st, s.key, sizeof(s.key));
	s.index = 0;
	s.pos = 64;
	/* the canonical order: each face 0..51 twice, then the four jokers */
	for (rpl_card c = 0; c < RPL_NFACES; c++)
		for (int i = 0; i < rpl_card_copies(c); i++)
			deck[k++] = c;
	for (int i = RPL_DECK_SIZE - 1; i > 0; i--) {
		int j = (int)stream_below(&s, (uint32_t)i + 1);
		rpl_card t = deck[i];
		deck[i] = deck[j];
		deck[j] = t;
	}
	sodium_memzero(&s, sizeof(s));
	memset(out, 0, sizeof(*out));
	k = 0;
	for (int p = 0; p < nplayers; p++) {
		for (int i = 0; i < RPL_HAND_SIZE; i++)
			out->hand[p][i] = deck[k++];
		sort_hand(out->hand[p]);
	}
	for (int m = 0; m < 2; m++)
		for (int i = 0; i < RPL_MORTO_SIZE; i++)
			out->morto[m][i] = deck[k++];
	for (int i = 0; k < RPL_DECK_SIZE; i++)
		out->stock[i] = deck[k++];
	return 0;
}

int rpl_layout_same(const rpl_layout *a, const rpl_layout *b, int nplayers)
{
	if (!a || !b || (nplayers != 2 && nplayers != 4))
		return 0;
	for (int p = 0; p < nplayers; p++) {
		rpl_card x[RPL_HAND_SIZE], y[RPL_HAND_SIZE];
		memcpy(x, a->hand[p], sizeof(x));
		memcpy(y, b->hand[p], sizeof(y));
		sort_hand(x);
		sort_hand(y);
		if (memcmp(x, y, sizeof(x)) != 0)
			return 0;
	}
	return memcmp(a->morto, b->morto, sizeof(a->morto)) == 0 &&
	       memcmp(a->stock, b->stock, (size_t)RPL_STOCK_SIZE(nplayers) * sizeof(rpl_card)) == 0;
}

int rpl_deal_seed_random(uint8_t seed[RPL_DEAL_SEED_SIZE])
{
	if (!seed)
		return RPL_EINVAL;
	if (rpl__sodium_init() < 0)
		return RPL_EIO;
	randombytes_buf(seed, RPL_DEAL_SEED_SIZE);
	return 0;
}
