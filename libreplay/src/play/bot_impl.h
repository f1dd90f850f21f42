/*
 * Private: the players of play/, in order; a file calls only those listed
 * before it (docs/conventions.md, section 6):
 *
 *   bot.c       deals, the random stream, the random, greedy and cheating bots, and the handle every bot is
 *   infoset.c   what a seat knows and samples of what it cannot see
 *   search.c    the search bot, which plays samples out with the greedy bot
 *
 * A bot whose decisions a later file makes (the search bot) is an rpl_bot
 * that bot.c calls back through a table of functions: bot.c never names
 * the later file, so the order holds. For the same reason the public
 * rpl_bot_new, which makes every kind, is search.c's, and bot.c's own
 * maker of the random and greedy bots is rpl__bot_new.
 */
#ifndef RPL_BOT_IMPL_H
#define RPL_BOT_IMPL_H

#include "libreplay/sim.h"

/* rpl_bot_new for RPL_BOT_RANDOM, GREEDY, BLUNDER and the cheaters (at 100 %); any other kind: RPL_EINVAL. */
int rpl__bot_new(rpl_bot **out, int kind, uint64_t seed);

/* Start b's random stream again from seed: a judge whose decisions must not depend on what it judged before. */
void rpl__bot_reseed(rpl_bot *b, uint64_t seed);

/* What a bot made by a later file does in place of bot.c's own play: its choice, and its state freed. */
struct rpl__bot_ext {
	int (*choose)(void *self, const rpl_game *g, rpl_action *out);
	void (*free)(void *self);
	void *self;
};

/*
 * A new bot of kind whose decisions ext makes: rpl_bot_choose calls
 * ext->choose (after the argument checks), rpl_bot_free calls ext->free.
 * 0, or RPL_ENOMEM (ext->self is then the caller's still).
 */
int rpl__bot_new_ext(rpl_bot **out, int kind, uint64_t seed, const struct rpl__bot_ext *ext);

/*
 * The search bot's judge, for the review (analysis/review.c), which values
 * single decisions as the search values its plans: the same samples for
 * every candidate, greedy rollouts to the end of the deal, the candidates
 * clearly worse than the best dropped after each block of 8 samples.
 *
 * rpl__search_new: a judge (samples, 1..1000: its first room), one
 * rollout a sample. 0, RPL_EINVAL, RPL_ENOMEM (*out then NULL).
 *
 * rpl__search_judge: judge the n (2..RPL_SEARCH_MAX_CANDIDATES) decisions
 * cand[] of the seat to move in g on up to samples (1..16000) samples, its
 * stream started from seed: keep
 * (an index, or -1) is never dropped; with hindsight every sample is g
 * itself (its hidden cards read: a view after the fact, never a player's)
 * and every rollout but the first takes one decision in 16 at random.
 * Returns the index of the best (the live one with the greatest sum, the
 * first of equals) or an error. Candidate c was then judged on the first
 * rpl__search_judged(s, c) rollouts, whose values (its side's deal score
 * less the other side's, or -100000 for a rollout that could not end) are
 * rpl__search_value(s, k, c); rollout k is the same deal of the unseen
 * cards for every candidate.
 *
 * rpl__search_greedy: the greedy bot's decision at g (the judge's policy),
 * its stream started from seed (so that it does not depend on the past).
 */
struct rpl__search;
int rpl__search_new(struct rpl__search **out, int samples);
void rpl__search_free(struct rpl__search *s);
int rpl__search_judge(struct rpl__search *s, const rpl_game *g, const rpl_action *cand, int n, int keep, int hindsight,
                      int samples, uint64_t seed, int horizon, int hand_weight);
int rpl__search_judged(const struct rpl__search *s, int c);
int32_t rpl__search_value(const struct rpl__search *s, int k, int c);
int rpl__search_greedy(struct rpl__search *s, const rpl_game *g, uint64_t seed, rpl_action *out);

#endif
