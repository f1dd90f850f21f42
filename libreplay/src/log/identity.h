/*
 * Private: the match identity (docs/format.md section 17), BLAKE2b-256 over
 * the identity record: the header's fields and every decoded deal,
 * decision and claim, in the log's order (a committed match's claims
 * last, in deal order). Nothing of how they were stored
 * (sections, encodings, the end section, optional sections) goes in.
 */
#ifndef RPL_IDENTITY_H
#define RPL_IDENTITY_H

#include "libreplay/log.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define RPL__IDENT_BUF 4096  /* bytes of record buffered before they are hashed */
#define RPL__IDENT_EVENT 128 /* room for the longest event: a deal is 1 + 2 + 108 bytes */

struct crypto_generichash_blake2b_state; /* libsodium's crypto_generichash_state */
struct ident_claim;

/*
 * Here, not in identity.c, so that the reader writes each decision's record
 * inline (rpl__ident_action), where it would call a function a decision.
 */
struct rpl__ident {
	struct crypto_generichash_blake2b_state *h; /* aligned as libsodium asks (64 bytes) */
	int committed;                              /* claims go last, in deal order (docs/format.md 17.2) */
	int oom;                                    /* a claim could not be kept: no identity */
	struct ident_claim *claims;                 /* a committed match's claims, as recorded */
	size_t nclaims, cap;
	size_t n;                    /* bytes in rec */
	uint8_t rec[RPL__IDENT_BUF]; /* the record not hashed yet */
};

/* A new identity, its record begun with the header. RPL_ENOMEM. */
int rpl__ident_new(struct rpl__ident **out, const rpl_match_info *info);
void rpl__ident_deal(struct rpl__ident *id, int deal, int nplayers, const rpl_layout *l);
/* Hash what the record buffers and empty it. */
void rpl__ident_flush(struct rpl__ident *id);

/*
 * n record bytes (cards, n <= 14) sorted in place, ascending: hands and the
 * cards of a meld are sets, their order is not recorded. The reader decodes
 * them in that order already (format.md sections 7.1, 9.1), so this is a
 * check more than a sort. Returns p + n.
 */
static inline uint8_t *rpl__ident_sort(uint8_t *p, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		uint8_t c = p[i];
		size_t j = i;
		for (; j > 0 && p[j - 1] > c; j--)
			p[j] = p[j - 1];
		p[j] = c;
	}
	return p + n;
}

_Static_assert(sizeof(rpl_card) == 1, "a card is its id, one byte in the record");

/*
 * A decision: 'A', its kind, then its fields. The cards are copied 14 at a
 * time, as many as an action holds (the record has room for
 * RPL__IDENT_EVENT bytes), and only the first n are counted in: a fixed
 * copy, without a call.
 */
static inline void rpl__ident_action(struct rpl__ident *id, const rpl_action *a)
{
	uint8_t *p;
	size_t n;

	if (id->n + RPL__IDENT_EVENT > RPL__IDENT_BUF)
		rpl__ident_flush(id);
	p = id->rec + id->n;
	p[0] = 'A';
	p[1] = a->kind;
	switch (a->kind) {
	case RPL_ACT_DISCARD:
		p[2] = a->cards[0];
		id->n += 3;
		return;
	case RPL_ACT_MORTO:
		p[2] = a->morto;
		id->n += 3;
		return;
	case RPL_ACT_ADD:
	case RPL_ACT_MELD:
		if (a->kind == RPL_ACT_ADD) { /* an addition names its meld first */
			p[2] = a->side;
			p[3] = a->meld;
			p += 2;
		}
		n = a->ncards > 14 ? 14 : a->ncards;
		p[2] = a->end;
		p[3] = (uint8_t)n;
		memcpy(p + 4, a->cards, sizeof(a->cards));
		p = rpl__ident_sort(p + 4, n);
		id->n = (size_t)(p - id->rec);
		return;
	default: /* draw, take, reject: the kind says it all */ id->n += 2; return;
	}
}
void rpl__ident_claim(struct rpl__ident *id, int deal, const int32_t score[2]);
/*
 * The identity as 64 lower-case hex digits and a NUL; the record cannot be
 * extended after. RPL_ENOMEM (hex is then ""): a committed match's claim
 * could not be kept for the end of the record.
 */
int rpl__ident_final(struct rpl__ident *id, char hex[RPL_MATCH_ID_SIZE]);
void rpl__ident_free(struct rpl__ident *id);

#endif
