/*
 * The committed deal (docs/format.md, sections 15 and 18): a Fisher-Yates
 * shuffle of the canonical 108-card order driven by BLAKE2b in counter
 * mode, keyed by a per-deal key that binds the platform's seed, the
 * players' seeds and the deal number; under the second protocol also the
 * commitment, which binds the match's terms.
 */
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "base/sodium_init.h"

#include "libreplay/deal.h"
#include "libreplay/log.h"

#define COMMIT_DOMAIN "brp-commit-v1"
#define DEAL_DOMAIN "brp-deal-v1"
#define COMMIT2_DOMAIN "brp-commit-v2"
#define DEAL2_DOMAIN "brp-deal-v2"

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

/* The layout from a deal's key (format.md 15.3): the stream, the shuffle, the cut. The key is wiped. */
static void shuffle(rpl_layout *out, uint8_t key[32], int nplayers)
{
	struct stream s;
	rpl_card deck[RPL_DECK_SIZE];
	int k = 0;

	memcpy(s.key, key, sizeof(s.key));
	sodium_memzero(key, 32);
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
}

static void hash_u32le(crypto_generichash_state *st, uint32_t v)
{
	uint8_t b[4];

	for (int i = 0; i < 4; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	crypto_generichash_update(st, b, 4);
}

int rpl_deal_derive(rpl_layout *out, const uint8_t seed[RPL_DEAL_SEED_SIZE],
                    const uint8_t (*player_seeds)[RPL_DEAL_SEED_SIZE], int nplayer_seeds, int nplayers, int deal)
{
	crypto_generichash_state st;
	uint8_t key[32], m;

	if (!out || !seed || (nplayers != 2 && nplayers != 4) || deal < 1 || deal > RPL_MAX_DEALS || nplayer_seeds < 0 ||
	    nplayer_seeds > RPL_DEAL_MAX_PLAYER_SEEDS || (nplayer_seeds && !player_seeds) || rpl__sodium_init() < 0)
		return RPL_EINVAL;
	/* the deal's key: BLAKE2b-256 keyed by the seed over the domain, the players' seeds and the deal */
	crypto_generichash_init(&st, seed, RPL_DEAL_SEED_SIZE, sizeof(key));
	crypto_generichash_update(&st, (const unsigned char *)DEAL_DOMAIN, sizeof(DEAL_DOMAIN) - 1);
	m = (uint8_t)nplayer_seeds;
	crypto_generichash_update(&st, &m, 1);
	for (int i = 0; i < nplayer_seeds; i++)
		crypto_generichash_update(&st, player_seeds[i], RPL_DEAL_SEED_SIZE);
	hash_u32le(&st, (uint32_t)deal);
	crypto_generichash_final(&st, key, sizeof(key));
	shuffle(out, key, nplayers);
	return 0;
}

/* The encodings of format.md section 2, fed to a hash. */
static void hash_varint(crypto_generichash_state *st, uint64_t v)
{
	uint8_t b[10];
	size_t n = 0;

	while (v >= 0x80) {
		b[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b[n++] = (uint8_t)v;
	crypto_generichash_update(st, b, n);
}

static void hash_string(crypto_generichash_state *st, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	hash_varint(st, n);
	if (n)
		crypto_generichash_update(st, (const unsigned char *)s, n);
}

/* What the second protocol asks of a match: the terms it binds must be those a header can hold. */
static int terms_valid(const rpl_match_info *info)
{
	return info && info->rules && (info->nplayers == 2 || info->nplayers == 4) && info->first_dealer >= 0 &&
	       info->first_dealer < info->nplayers && info->nplayer_seeds >= 0 && info->nplayer_seeds <= info->nplayers &&
	       (info->nplayer_seeds == 0 || info->player_seeds);
}

int rpl_deal_commit_match(uint8_t out[RPL_DEAL_COMMIT_SIZE], const uint8_t seed[RPL_DEAL_SEED_SIZE],
                          const rpl_match_info *info)
{
	crypto_generichash_state st;
	uint8_t b;

	if (!out || !seed || !info)
		return RPL_EINVAL;
	if (info->commit_version == RPL_COMMIT_V1)
		return rpl_deal_commit(out, seed);
	if (info->commit_version != 0 && info->commit_version != RPL_COMMIT_V2)
		return RPL_EINVAL;
	if (!terms_valid(info) || rpl__sodium_init() < 0)
		return RPL_EINVAL;
	crypto_generichash_init(&st, NULL, 0, RPL_DEAL_COMMIT_SIZE);
	crypto_generichash_update(&st, (const unsigned char *)COMMIT2_DOMAIN, sizeof(COMMIT2_DOMAIN) - 1);
	crypto_generichash_update(&st, seed, RPL_DEAL_SEED_SIZE);
	/* the terms, encoded as the match identity encodes them (format.md 17.2) */
	hash_string(&st, rpl_rules_profile(info->rules));
	hash_varint(&st, RPL_P_COUNT);
	for (int id = 1; id <= RPL_P_COUNT; id++) {
		int v = 0;
		rpl_rules_get_id(info->rules, id, &v);
		hash_varint(&st, (uint64_t)id);
		hash_varint(&st, ((uint64_t)(int64_t)v << 1) ^ (uint64_t)((int64_t)v >> 63));
	}
	b = (uint8_t)info->nplayers;
	crypto_generichash_update(&st, &b, 1);
	for (int s = 0; s < info->nplayers; s++)
		hash_string(&st, info->players[s]);
	b = (uint8_t)info->first_dealer;
	crypto_generichash_update(&st, &b, 1);
	b = (uint8_t)info->nplayer_seeds;
	crypto_generichash_update(&st, &b, 1);
	crypto_generichash_final(&st, out, RPL_DEAL_COMMIT_SIZE);
	return 0;
}

static int seed_cmp(const void *a, const void *b)
{
	return memcmp(a, b, RPL_DEAL_SEED_SIZE);
}

int rpl_deal_derive_match(rpl_layout *out, const uint8_t seed[RPL_DEAL_SEED_SIZE], const rpl_match_info *info, int deal)
{
	crypto_generichash_state st;
	uint8_t commit[RPL_DEAL_COMMIT_SIZE], key[32], sorted[RPL_DEAL_MAX_PLAYER_SEEDS][RPL_DEAL_SEED_SIZE], m;
	int err;

	if (!out || !seed || !info)
		return RPL_EINVAL;
	if (info->commit_version == RPL_COMMIT_V1)
		return rpl_deal_derive(out, seed, info->player_seeds, info->nplayer_seeds, info->nplayers, deal);
	if (deal < 1 || deal > RPL_MAX_DEALS)
		return RPL_EINVAL;
	if ((err = rpl_deal_commit_match(commit, seed, info)) != 0)
		return err;
	/* the players' seeds in ascending byte order: which seat gave which is no choice of the platform's */
	m = (uint8_t)info->nplayer_seeds;
	if (m)
		memcpy(sorted, info->player_seeds, (size_t)m * RPL_DEAL_SEED_SIZE);
	qsort(sorted, m, RPL_DEAL_SEED_SIZE, seed_cmp);
	crypto_generichash_init(&st, seed, RPL_DEAL_SEED_SIZE, sizeof(key));
	crypto_generichash_update(&st, (const unsigned char *)DEAL2_DOMAIN, sizeof(DEAL2_DOMAIN) - 1);
	crypto_generichash_update(&st, commit, sizeof(commit));
	crypto_generichash_update(&st, &m, 1);
	for (int i = 0; i < m; i++)
		crypto_generichash_update(&st, sorted[i], RPL_DEAL_SEED_SIZE);
	hash_u32le(&st, (uint32_t)deal);
	crypto_generichash_final(&st, key, sizeof(key));
	shuffle(out, key, info->nplayers);
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
