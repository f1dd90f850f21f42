/* Private: melds as the engine stores them, and the arrangement logic. */
#ifndef RPL_MELD_IMPL_H
#define RPL_MELD_IMPL_H

#include "libreplay/meld.h"
#include "rules_impl.h"

#define MAX_WILDS 2

/*
 * A meld on the table: positions lo..hi of one suit; every position holds
 * its natural card except the nw wild positions wpos[] (ascending), which
 * hold wcard[]. Eight bytes, so a side's melds copy cheaply.
 */
struct meld {
	uint8_t suit, lo, hi, nw;
	uint8_t wpos[MAX_WILDS];
	uint8_t wcard[MAX_WILDS];
};

/* Card counts by face: the multiset form used for hands and meld input. */
typedef uint8_t cardset[RPL_NFACES];

/* The natural card of position pos (1..14) of suit s. */
static inline rpl_card natural_card(int s, int pos)
{
	return (rpl_card)(s * 13 + (pos == 14 ? 0 : pos - 1));
}

/* The value of card c under rules r. */
int rpl__card_value(const struct rpl_rules *r, rpl_card c);

/*
 * Arrange the cards in cnt (n of them) as a new meld. end is enum
 * rpl_wild_end. Returns 0 and fills *out, or a rule code with the reason
 * written to why (whylen bytes).
 */
int rpl__meld_arrange(const struct rpl_rules *r, const cardset cnt, int n, int end, struct meld *out,
                      char *why, size_t whylen);

/*
 * Add the n cards in cnt to meld m under the rules' wild mobility. Returns 0
 * with the new meld in *out, or a rule code with the reason in why.
 */
int rpl__meld_add(const struct rpl_rules *r, const struct meld *m, const cardset cnt, int n, int end,
                  struct meld *out, char *why, size_t whylen);

/* Add the cards of m to cnt. */
void rpl__meld_cards(const struct meld *m, cardset cnt);
int rpl__meld_len(const struct meld *m);
int rpl__meld_points(const struct rpl_rules *r, const struct meld *m);
int rpl__meld_category(const struct meld *m);
int rpl__meld_bonus(const struct rpl_rules *r, int category);
void rpl__meld_info(const struct rpl_rules *r, const struct meld *m, rpl_meld_info *out);

#endif
