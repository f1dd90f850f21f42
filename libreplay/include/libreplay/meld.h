/*
 * Melds: same-suit runs, where each card sits, clean or dirty, canastras.
 *
 * Positions in a run: 1 = A (low), 2 .. 10, 11 = J, 12 = Q, 13 = K,
 * 14 = A (high). A meld occupies positions lo..hi of one suit, one card per
 * position; a card in its own position is a natural, any other card is a
 * wild (a joker, or a 2 away from position 2 of its own suit).
 */
#ifndef LIBREPLAY_MELD_H
#define LIBREPLAY_MELD_H

#include "libreplay/common.h"
#include "libreplay/card.h"
#include "libreplay/rules.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Canastra categories; only the highest one of a canastra counts. */
enum rpl_canastra {
	RPL_CANASTRA_NONE = 0,
	RPL_CANASTRA_DIRTY = 1,   /* 7+ cards with a wild */
	RPL_CANASTRA_CLEAN = 2,   /* 7+ cards, no wild */
	RPL_CANASTRA_CLEAN13 = 3, /* 13 cards, no wild ("de quinhentos") */
	RPL_CANASTRA_CLEAN14 = 4, /* A..A, no wild ("real") */
	RPL_CANASTRA_DIRTY14 = 5  /* A..A with a wild */
};
/* The number of categories, none included: the size of rpl_score.canastras. */
#define RPL_CANASTRA_NCAT 6
/* A category's name: "dirty", "clean", "clean13", "clean14", "dirty14"; "none" otherwise. Static storage. */
RPL_API const char *rpl_canastra_name(int category);

/* A meld as laid out on the table. Plain data, owned by the caller. */
typedef struct rpl_meld_info {
	int suit;          /* enum rpl_suit */
	int lo, hi;        /* positions occupied, 1..14 */
	int length;        /* hi - lo + 1 */
	int wilds;         /* number of wilds */
	int clean;         /* 1 when wilds == 0 */
	int points;        /* sum of the card values */
	int category;      /* enum rpl_canastra */
	int bonus;         /* canastra bonus under the rules */
	rpl_card card[14]; /* card[i] sits at position lo + i */
	uint8_t wild[14];  /* 1 when card[i] is a wild */
} rpl_meld_info;

/* The result of rpl_meld_check(). */
typedef struct rpl_meld_check_result {
	int valid;                    /* 1 if the cards form a meld */
	int rule;                     /* enum rpl_rule when not valid */
	char reason[RPL_ERRMSG_SIZE]; /* one line naming the rule when not valid */
	rpl_meld_info meld;           /* the arrangement when valid */
} rpl_meld_check_result;

/*
 * Check whether n cards laid together form one new meld under rules r, and
 * how they are arranged. end says where a wild that could sit at either end
 * goes (enum rpl_wild_end; RPL_END_DEFAULT applies the rules' default).
 * Returns 0 with *out filled whether the cards form a meld or not (an
 * invalid meld is an answer, not an error: out->valid, rule, reason);
 * RPL_EINVAL for a NULL r or out, NULL cards with n > 0, a non-card, or an
 * end out of range (*out then untouched). Only reads r: safe on one r from
 * several threads.
 */
RPL_API int rpl_meld_check(const rpl_rules *r, const rpl_card *cards, size_t n, int end, rpl_meld_check_result *out);

/* The natural card for position pos (1..14; 14 is the ace again) of suit (enum rpl_suit); other values give an unspecified card. */
RPL_API rpl_card rpl_meld_natural(int suit, int pos);

#ifdef __cplusplus
}
#endif

#endif
