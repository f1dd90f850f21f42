/*
 * Simulation: deterministic deals and bots that play legal matches.
 *
 * Everything here is a pure function of its seed: the same seed gives the
 * same deal and the same decisions on every machine, so a corpus can be made
 * again byte for byte.
 */
#ifndef LIBREPLAY_SIM_H
#define LIBREPLAY_SIM_H

#include "libreplay/common.h"
#include "libreplay/game.h"
#include "libreplay/log.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A small deterministic random generator (xoshiro256**). Plain data, the
 * caller's; one generator is used by one thread at a time.
 */
typedef struct rpl_rng {
	uint64_t s[4];
} rpl_rng;

/* Start rng's stream from seed: the same seed gives the same stream everywhere. */
RPL_API void rpl_rng_seed(rpl_rng *rng, uint64_t seed);
/* The next 64 random bits of rng's stream. */
RPL_API uint64_t rpl_rng_next(rpl_rng *rng);
/* A uniform integer in [0, n), n > 0. */
RPL_API uint32_t rpl_rng_below(rpl_rng *rng, uint32_t n);

/* A shuffled 108-card deal for nplayers (2 or 4) into *out, drawn from rng's stream. */
RPL_API void rpl_layout_shuffle(rpl_layout *out, int nplayers, rpl_rng *rng);

/* How a bot plays. */
enum rpl_bot_kind {
	RPL_BOT_RANDOM = 0,  /* any legal decision, chosen at random */
	RPL_BOT_GREEDY = 1,  /* lays what it can, takes a useful pile, discards what helps least */
	RPL_BOT_SEARCH = 2,  /* plays samples of what it cannot see out (rpl_bot_new_search) */
	RPL_BOT_BLUNDER = 3, /* the greedy bot, but one decision in ten any legal one at random (a test of reviews) */
	/*
	 * The planted cheaters: test fixtures of an integrity screen, which
	 * cheat on purpose by reading a hand their seat may not see. Each is
	 * the greedy bot in all but its discard (when no discard goes out).
	 * A card c fits seat t when t's side could lay c with t's hand and
	 * one more c (had t taken the pile with c on top), by the meld rules.
	 * When no discard is of the cards a cheater wants, it discards as the
	 * greedy bot.
	 */
	RPL_BOT_PEEKER = 4,   /* reads the next seat's hand: the greedy discard of the cards not fitting it */
	RPL_BOT_FEEDER = 5,   /* reads the next seat's hand: the greedy discard of the cards fitting it */
	RPL_BOT_SIGNALLER = 6 /* reads its partner's hand, as the feeder the next seat's; with 2 players, the greedy bot */
};

/*
 * A player: an opaque handle with its own random stream. rpl_bot_choose
 * changes it, so a bot is used by one thread at a time; different bots at
 * once.
 */
typedef struct rpl_bot rpl_bot;

/*
 * A bot of kind (enum rpl_bot_kind) with its own random stream, started
 * from seed; RPL_BOT_SEARCH at its default strength
 * (rpl_bot_new_search(out, seed, RPL_SEARCH_SAMPLES, 1)), a cheater at
 * 100 percent (rpl_bot_new_cheat(out, kind, seed, 100)). Returns 0 with
 * *out owned by the caller (rpl_bot_free); RPL_EINVAL for an unknown kind
 * or a NULL out, RPL_ENOMEM. On failure *out is NULL.
 */
RPL_API int rpl_bot_new(rpl_bot **out, int kind, uint64_t seed);
/*
 * A planted cheater (RPL_BOT_PEEKER, RPL_BOT_FEEDER or RPL_BOT_SIGNALLER)
 * that cheats at a discard percent times in 100 (0 to 100) and discards as
 * the greedy bot the other times. The cheat is drawn from its random
 * stream, started from seed, at a discard of two or more legal ones (none
 * going out) when percent is neither 0 nor 100: its decisions are a
 * function of seed and the game, and at 0 they are the greedy bot's.
 * Returns 0 with *out owned by the caller (rpl_bot_free); RPL_EINVAL for
 * a NULL out, another kind or a percent out of range, RPL_ENOMEM. On
 * failure *out is NULL.
 */
RPL_API int rpl_bot_new_cheat(rpl_bot **out, int kind, uint64_t seed, int percent);
/*
 * A search bot (RPL_BOT_SEARCH), started from seed: Perfect Information
 * Monte Carlo over whole turns. At the draw it compares drawing with
 * taking the pile; in the rest of the turn, plans to the end of the turn:
 * the greedy bot's lays followed by each legal discard, and each discard
 * with nothing laid (an ABERTO reject and the choice of a morto are
 * candidates of their own). A plan chosen is followed while the seat sees
 * what it foresaw. Each candidate is played out to the end of the deal on
 * the same deals of what the seat cannot see (rpl_infoset_sample), up to
 * samples of them, rollouts times each: the first rollout of a sample by
 * the greedy bot, the others with one decision in 16 taken at random.
 * Samples are drawn 8 at a time, and a candidate whose mean is below the
 * best's by 2.5 standard errors of their difference is dropped; the search
 * ends when one is left, when the samples are spent, or when it has played
 * 16 rollouts for each of its samples (so that a decision of many close
 * candidates costs about what one of 16 does). It takes the candidate
 * with the best mean of its side's deal score less the other side's (the
 * first of equals). With more than RPL_SEARCH_MAX_CANDIDATES candidates
 * it considers the first of them only (the greedy bot's choices first).
 * After 8 of its own draws in a row with the stock where it was (takes
 * of the pile and discards can go round the table for ever; the rules
 * allow it), it plays the turn as the greedy bot, which takes only a pile
 * it lays from, so that a deal always moves on.
 * It never reads a card its seat cannot see. Its decisions are a function
 * of seed and the game alone, the same on every machine (the search counts
 * in integers). samples and rollouts run from 1 to 1000; the cost of a
 * decision grows with candidates * samples * rollouts. Returns 0 with *out
 * owned by the caller (rpl_bot_free); RPL_EINVAL for a NULL out or a
 * strength out of range, RPL_ENOMEM. On failure *out is NULL.
 */
RPL_API int rpl_bot_new_search(rpl_bot **out, uint64_t seed, int samples, int rollouts);

/* The most candidates the search bot compares at one decision. */
#define RPL_SEARCH_MAX_CANDIDATES 64
/*
 * The search bot's default strength: samples a decision (with 1 rollout
 * each), what rpl_bot_new and brp simulate -b search use.
 */
#define RPL_SEARCH_SAMPLES 128

/* Free a bot; NULL is accepted. */
RPL_API void rpl_bot_free(rpl_bot *b);

/*
 * The bot's decision for the seat to move in g (only read) into *out.
 * Returns 0 with *out set (a decision rpl_game_apply accepts),
 * RPL_ESTATE when no deal is in progress or no legal decision exists,
 * RPL_EINVAL for a NULL argument. Advances the bot's random stream.
 */
RPL_API int rpl_bot_choose(rpl_bot *b, const rpl_game *g, rpl_action *out);

#ifdef __cplusplus
}
#endif

#endif
