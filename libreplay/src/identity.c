/*
 * The match identity: one name for one match, whatever bytes hold it. The
 * record (docs/format.md section 15) is built from decoded values only, so
 * the growing and compact forms, a raw or deflated header, optional
 * sections and the end section all give the same identity. It is hashed as
 * it is built, through a small buffer: a match of any length costs a few
 * hundred bytes of memory.
 */
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "format.h"
#include "identity.h"

#define IDENT_PREFIX "brp-match-id-1"
#define IDENT_FLUSH 4096 /* bytes of record buffered before they are hashed */

struct rpl__ident {
	crypto_generichash_state *h; /* aligned as libsodium asks (64 bytes) */
	struct buf rec;              /* the record not hashed yet */
	int oom;
};

static void flush(struct rpl__ident *id, int always)
{
	if (id->rec.oom)
		id->oom = 1;
	if (id->rec.n == 0 || (!always && id->rec.n < IDENT_FLUSH))
		return;
	crypto_generichash_update(id->h, id->rec.p, id->rec.n);
	id->rec.n = 0;
}

int rpl__ident_new(struct rpl__ident **out, const rpl_match_info *info)
{
	struct rpl__ident *id;
	size_t size = (sizeof(crypto_generichash_state) + 63) / 64 * 64;

	*out = NULL;
	if (sodium_init() < 0)
		return RPL_ENOMEM; /* libsodium could not start: nothing can be hashed */
	id = calloc(1, sizeof(*id));
	if (!id)
		return RPL_ENOMEM;
	id->h = aligned_alloc(64, size);
	if (!id->h) {
		free(id);
		return RPL_ENOMEM;
	}
	crypto_generichash_init(id->h, NULL, 0, 32);
	rpl__buf_put(&id->rec, IDENT_PREFIX, sizeof(IDENT_PREFIX)); /* with its NUL */
	rpl__buf_string(&id->rec, rpl_rules_profile(info->rules));
	rpl__buf_varint(&id->rec, RPL_P_COUNT);
	for (int p = 1; p <= RPL_P_COUNT; p++) {
		int v = 0;
		rpl_rules_get_id(info->rules, p, &v);
		rpl__buf_varint(&id->rec, (uint64_t)p);
		rpl__buf_zigzag(&id->rec, v);
	}
	rpl__buf_varint(&id->rec, (uint64_t)info->nplayers);
	for (int s = 0; s < info->nplayers; s++)
		rpl__buf_string(&id->rec, info->players[s] ? info->players[s] : "");
	rpl__buf_varint(&id->rec, (uint64_t)info->first_dealer);
	rpl__buf_zigzag(&id->rec, info->start_time);
	rpl__buf_varint(&id->rec, info->nmeta);
	for (size_t i = 0; i < info->nmeta; i++) {
		rpl__buf_string(&id->rec, info->meta_keys[i] ? info->meta_keys[i] : "");
		rpl__buf_string(&id->rec, info->meta_values[i] ? info->meta_values[i] : "");
	}
	flush(id, 0);
	if (id->oom) {
		rpl__ident_free(id);
		return RPL_ENOMEM;
	}
	*out = id;
	return RPL_OK;
}

static int card_less(const void *a, const void *b)
{
	return (int)*(const rpl_card *)a - (int)*(const rpl_card *)b;
}

/* n cards in ascending id order (hands and the cards of a meld are sets: their order is not recorded). */
static void put_sorted(struct buf *b, const rpl_card *cards, size_t n)
{
	rpl_card tmp[RPL_HAND_SIZE > 14 ? RPL_HAND_SIZE : 14];

	memcpy(tmp, cards, n * sizeof(*tmp));
	qsort(tmp, n, sizeof(*tmp), card_less);
	for (size_t i = 0; i < n; i++)
		rpl__buf_byte(b, (uint8_t)tmp[i]);
}

void rpl__ident_deal(struct rpl__ident *id, int deal, int nplayers, const rpl_layout *l)
{
	rpl__buf_byte(&id->rec, 'D');
	rpl__buf_varint(&id->rec, (uint64_t)deal);
	for (int s = 0; s < nplayers; s++)
		put_sorted(&id->rec, l->hand[s], RPL_HAND_SIZE);
	for (int m = 0; m < 2; m++)
		for (int i = 0; i < RPL_MORTO_SIZE; i++)
			rpl__buf_byte(&id->rec, (uint8_t)l->morto[m][i]);
	for (int i = 0; i < RPL_STOCK_SIZE(nplayers); i++)
		rpl__buf_byte(&id->rec, (uint8_t)l->stock[i]);
	flush(id, 0);
}

void rpl__ident_action(struct rpl__ident *id, const rpl_action *a)
{
	struct buf *b = &id->rec;
	size_t n = a->ncards > 14 ? 14 : a->ncards;

	rpl__buf_byte(b, 'A');
	rpl__buf_byte(b, a->kind);
	switch (a->kind) {
	case RPL_ACT_ADD:
		rpl__buf_byte(b, a->side);
		rpl__buf_byte(b, a->meld);
		/* fall through */
	case RPL_ACT_MELD:
		rpl__buf_byte(b, a->end);
		rpl__buf_byte(b, (uint8_t)n);
		put_sorted(b, a->cards, n);
		break;
	case RPL_ACT_DISCARD:
		rpl__buf_byte(b, (uint8_t)a->cards[0]);
		break;
	case RPL_ACT_MORTO:
		rpl__buf_byte(b, a->morto);
		break;
	default: /* draw, take, reject: the kind says it all */
		break;
	}
	flush(id, 0);
}

void rpl__ident_claim(struct rpl__ident *id, int deal, const int32_t score[2])
{
	rpl__buf_byte(&id->rec, 'C');
	rpl__buf_varint(&id->rec, (uint64_t)deal);
	rpl__buf_zigzag(&id->rec, score[0]);
	rpl__buf_zigzag(&id->rec, score[1]);
	flush(id, 0);
}

void rpl__ident_final(struct rpl__ident *id, char hex[RPL_MATCH_ID_SIZE])
{
	unsigned char digest[32];

	flush(id, 1);
	crypto_generichash_final(id->h, digest, sizeof(digest));
	sodium_bin2hex(hex, RPL_MATCH_ID_SIZE, digest, sizeof(digest));
	if (id->oom)
		hex[0] = '\0'; /* a record that could not be buffered whole names nothing */
}

void rpl__ident_free(struct rpl__ident *id)
{
	if (!id)
		return;
	free(id->h);
	rpl__buf_free(&id->rec);
	free(id);
}
