/* Private: melds as the engine stores them, and the arrangement logic. */
#ifndef RPL_MELD_IMPL_H
#define RPL_MELD_IMPL_H

#include "libreplay/meld.h"
#include "rules/rules_impl.h"
#include "base/bits.h"

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

/* The value of card c under rules r (inline: the scores and every lay add values up). */
static inline int rpl__card_value(const struct rpl_rules *r, rpl_card c)
{
	int rank;

	if (c == RPL_JOKER)
		return RV(r, VALUE_JOKER);
	rank = RPL_CARD_RANK(c);
	if (rank == 1)
		return RV(r, VALUE_ACE);
	if (rank == 2)
		return RV(r, VALUE_TWO);
	return rank >= 8 ? RV(r, VALUE_HIGH) : RV(r, VALUE_LOW);
}

/* The ranks of suit s that cnt counts: bit r - 1 for rank r. */
unsigned rpl__cards_ranks(const cardset cnt, int s);

/* The values of the cards counted in cnt, added up. */
int rpl__cards_points(const struct rpl_rules *r, const cardset cnt);

/*
 * A cardset seen through bit masks over the card ids (bit c for face c), so
 * that the meld checks test suits, ranks and duplicates with a few word
 * operations instead of loops over the 53 faces: they run for every lay and
 * many times over for every pile take (legal.c).
 */
struct cards {
	const uint8_t *cnt;
	uint64_t any;   /* cnt[c] > 0 */
	uint64_t multi; /* cnt[c] > 1 */
};

/* Point cs at cnt and compute its masks (cnt must outlive cs). */
void rpl__cards_view(struct cards *cs, const cardset cnt);

/*
 * A refusal kept while arrangements are tried: the one that got furthest
 * wins. Its message is written only when asked for (rpl__meld_why), since
 * most refusals are superseded or never shown.
 */
struct meld_fail {
	int stage, code;
	int msg;    /* which message (meld.c) */
	int arg[4]; /* its numbers and cards */
	int ends;   /* 1 when an arrangement got as far as placing end wilds, the one step that reads end */
};

/* The message of f ("" when nothing was refused) into why, whylen bytes. */
void rpl__meld_why(const struct meld_fail *f, char *why, size_t whylen);

/*
 * Arrange the n cards of cs as a new meld; end is enum rpl_wild_end.
 * Returns 0 and fills *out, or a rule code with the reason kept in *f. When
 * f->ends is 0 after a refusal, every end would be refused alike.
 */
int rpl__meld_arrange_cards(const struct rpl_rules *r, const struct cards *cs, int n, int end, struct meld *out,
                            struct meld_fail *f);

/* Add the n cards of cs to meld m under the rules' wild mobility; as rpl__meld_arrange_cards. */
int rpl__meld_add_cards(const struct rpl_rules *r, const struct meld *m, const struct cards *cs, int n, int end,
                        struct meld *out, struct meld_fail *f);

/*
 * 1 when adding x alone to m is refused at every end, as a few quick tests
 * tell (x doubles a natural of the run, or lies too far from it); 0 when it
 * may be accepted: try it. x is a natural of m's suit that is no 2. For the
 * pile checks, which try many such additions.
 */
int rpl__meld_add_refused(const struct rpl_rules *r, const struct meld *m, rpl_card x);

/*
 * 1 when adding x alone to m is accepted at the default end, as a few
 * quick tests tell (x continues the run, or fills a gap of a floating one);
 * 0 when it may not be: try it. x is a natural of m's suit that is no 2.
 */
int rpl__meld_add_sure(const struct rpl_rules *r, const struct meld *m, rpl_card x);

/*
 * Arrange the cards in cnt (n of them) as a new meld. end is enum
 * rpl_wild_end. Returns 0 and fills *out, or a rule code with the reason
 * written to why (whylen bytes).
 */
int rpl__meld_arrange(const struct rpl_rules *r, const cardset cnt, int n, int end, struct meld *out, char *why,
                      size_t whylen);

/*
 * Add the n cards in cnt to meld m under the rules' wild mobility. Returns 0
 * with the new meld in *out, or a rule code with the reason in why.
 */
int rpl__meld_add(const struct rpl_rules *r, const struct meld *m, const cardset cnt, int n, int end, struct meld *out,
                  char *why, size_t whylen);

/* Add the cards of m to cnt. */
void rpl__meld_cards(const struct meld *m, cardset cnt);
int rpl__meld_len(const struct meld *m);
int rpl__meld_points(const struct rpl_rules *r, const struct meld *m);
int rpl__meld_category(const struct meld *m);
int rpl__meld_bonus(const struct rpl_rules *r, int category);
void rpl__meld_info(const struct rpl_rules *r, const struct meld *m, rpl_meld_info *out);

#endif
