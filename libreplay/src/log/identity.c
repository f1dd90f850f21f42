/*
 * The match identity: one name for one match, whatever bytes hold it. The
 * record (docs/format.md section 17) is built from decoded values only, so
 * the growing and compact forms, a raw or deflated header, optional
 * sections and the end section all give the same identity. It is hashed as
 * it is built, through a buffer of 4 KiB: a match of any length costs no
 * more memory than that.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "log/format.h"
#include "log/identity.h"

#define IDENT_PREFIX "brp-match-id-1"
#define IDENT_BUF RPL__IDENT_BUF
#define IDENT_EVENT RPL__IDENT_EVENT

struct ident_claim {
	int deal;
	uint32_t seq; /* its place in the log: the sort keeps a deal's claims in the log's order */
	int32_t score[2];
};

void rpl__ident_flush(struct rpl__ident *id)
{
	crypto_generichash_update(id->h, id->rec, id->n);
	id->n = 0;
}

/* Room for one more event: what is buffered is hashed when the buffer is nearly full. */
static uint8_t *room(struct rpl__ident *id)
{
	if (id->n + IDENT_EVENT > IDENT_BUF)
		rpl__ident_flush(id);
	return id->rec + id->n;
}

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static uint8_t *put_zigzag(uint8_t *p, int64_t v)
{
	return put_varint(p, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

int rpl__ident_new(struct rpl__ident **out, const rpl_match_info *info)
{
	struct rpl__ident *id;
	struct buf head = { 0 };
	size_t size = (sizeof(crypto_generichash_state) + 63) / 64 * 64;

	*out = NULL;
	if (sodium_init() < 0)
		return RPL_ENOMEM; /* libsodium could not start: nothing can be hashed */
	/* the record buffer (4 KiB) is written before it is read: only the fields before it are zeroed */
	id = malloc(sizeof(*id));
	if (!id)
		return RPL_ENOMEM;
	memset(id, 0, offsetof(struct rpl__ident, rec));
	id->h = aligned_alloc(64, size);
	if (!id->h) {
		free(id);
		return RPL_ENOMEM;
	}
	crypto_generichash_init(id->h, NULL, 0, 32);
	/* the header part: its strings may be long (metadata), so built in a buffer that grows */
	rpl__buf_put(&head, IDENT_PREFIX, sizeof(IDENT_PREFIX)); /* with its NUL */
	rpl__buf_string(&head, rpl_rules_profile(info->rules));
	rpl__buf_varint(&head, RPL_P_COUNT);
	for (int p = 1; p <= RPL_P_COUNT; p++) {
		int v = 0;
		rpl_rules_get_id(info->rules, p, &v);
		rpl__buf_varint(&head, (uint64_t)p);
		rpl__buf_zigzag(&head, v);
	}
	rpl__buf_varint(&head, (uint64_t)info->nplayers);
	for (int s = 0; s < info->nplayers; s++)
		rpl__buf_string(&head, info->players[s] ? info->players[s] : "");
	rpl__buf_varint(&head, (uint64_t)info->first_dealer);
	rpl__buf_zigzag(&head, info->start_time);
	rpl__buf_varint(&head, info->nmeta);
	for (size_t i = 0; i < info->nmeta; i++) {
		rpl__buf_string(&head, info->meta_keys[i] ? info->meta_keys[i] : "");
		rpl__buf_string(&head, info->meta_values[i] ? info->meta_values[i] : "");
	}
	if (info->commitment) { /* a committed match (format version 3): what its dealing was bound to */
		id->committed = 1;
		rpl__buf_put(&head, "K", 1);
		rpl__buf_put(&head, info->commitment, 32);
		rpl__buf_varint(&head, (uint64_t)info->nplayer_seeds);
		for (int i = 0; i < info->nplayer_seeds; i++)
			rpl__buf_put(&head, info->player_seeds[i], 32);
	}
	if (head.oom) {
		rpl__buf_free(&head);
		rpl__ident_free(id);
		return RPL_ENOMEM;
	}
	crypto_generichash_update(id->h, head.p, head.n);
	rpl__buf_free(&head);
	*out = id;
	return RPL_OK;
}

/*
 * n cards (n <= 14) in ascending id order: hands and the cards of a meld are
 * sets, their order is not recorded. The reader decodes them in that order
 * already (format.md sections 7.1, 9.1), so this is a check more than a sort.
 */
static uint8_t *put_sorted(uint8_t *p, const rpl_card *cards, size_t n)
{
	memcpy(p, cards, n);
	return rpl__ident_sort(p, n);
}

void rpl__ident_deal(struct rpl__ident *id, int deal, int nplayers, const rpl_layout *l)
{
	uint8_t *p = room(id);

	*p++ = 'D';
	p = put_varint(p, (uint64_t)deal);
	for (int s = 0; s < nplayers; s++)
		p = put_sorted(p, l->hand[s], RPL_HAND_SIZE);
	memcpy(p, l->morto[0], RPL_MORTO_SIZE);
	p += RPL_MORTO_SIZE;
	memcpy(p, l->morto[1], RPL_MORTO_SIZE);
	p += RPL_MORTO_SIZE;
	memcpy(p, l->stock, (size_t)RPL_STOCK_SIZE(nplayers));
	p += RPL_STOCK_SIZE(nplayers);
	id->n = (size_t)(p - id->rec);
}

static void put_claim(struct rpl__ident *id, int deal, const int32_t score[2])
{
	uint8_t *p = room(id);

	*p++ = 'C';
	p = put_varint(p, (uint64_t)deal);
	p = put_zigzag(p, score[0]);
	p = put_zigzag(p, score[1]);
	id->n = (size_t)(p - id->rec);
}

/*
 * A claim: in its place, or, for a committed match, kept for the end: its
 * compact form holds all claims in one C after every decision (format.md
 * section 16), its growing form each in its place, and both must give one
 * identity.
 */
void rpl__ident_claim(struct rpl__ident *id, int deal, const int32_t score[2])
{
	if (!id->committed) {
		put_claim(id, deal, score);
		return;
	}
	if (id->nclaims == id->cap) {
		size_t cap = id->cap ? 2 * id->cap : 16;
		struct ident_claim *c = realloc(id->claims, cap * sizeof(*c));
		if (!c) {
			id->oom = 1;
			return;
		}
		id->claims = c;
		id->cap = cap;
	}
	id->claims[id->nclaims].deal = deal;
	id->claims[id->nclaims].seq = (uint32_t)id->nclaims;
	id->claims[id->nclaims].score[0] = score[0];
	id->claims[id->nclaims].score[1] = score[1];
	id->nclaims++;
}

/* The order of format.md 17.2: by deal, the match's (deal 0) after every other, then as the log gives them. */
static int claim_order(const void *pa, const void *pb)
{
	const struct ident_claim *a = pa, *b = pb;
	unsigned da = a->deal ? (unsigned)a->deal : RPL_MAX_DEALS + 1u,
			 db = b->deal ? (unsigned)b->deal : RPL_MAX_DEALS + 1u;

	if (da != db)
		return da < db ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/*
 * A committed match's claims, after every decision, in that order: a sort
 * (O(n log n); the reader lets a match hold at most RPL_MAX_CLAIMS), so a log
 * stuffed with claims costs no more than its claims.
 */
static void put_claims_last(struct rpl__ident *id)
{
	if (id->nclaims > 1)
		qsort(id->claims, id->nclaims, sizeof(*id->claims), claim_order);
	for (size_t i = 0; i < id->nclaims; i++)
		put_claim(id, id->claims[i].deal, id->claims[i].score);
}

int rpl__ident_final(struct rpl__ident *id, char hex[RPL_MATCH_ID_SIZE])
{
	unsigned char digest[32];

	hex[0] = '\0';
	if (id->oom)
		return RPL_ENOMEM;
	if (id->committed)
		put_claims_last(id);
	crypto_generichash_update(id->h, id->rec, id->n);
	id->n = 0;
	crypto_generichash_final(id->h, digest, sizeof(digest));
	sodium_bin2hex(hex, RPL_MATCH_ID_SIZE, digest, sizeof(digest));
	return RPL_OK;
}

void rpl__ident_free(struct rpl__ident *id)
{
	if (!id)
		return;
	free(id->claims);
	free(id->h);
	free(id);
}
