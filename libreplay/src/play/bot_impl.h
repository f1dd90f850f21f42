/*
 * Private: the players of play/, in order; a file calls only those listed
 * before it (docs/conventions.md, section 6):
 *
 *   bot.c       deals, the random stream, the random and greedy bots, and the handle every bot is
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

/* rpl_bot_new for RPL_BOT_RANDOM and RPL_BOT_GREEDY (any other kind: RPL_EINVAL). */
int rpl__bot_new(rpl_bot **out, int kind, uint64_t seed);

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

#endif
