/*
 * Private: verification with an observer, so that the export collects what
 * it stores in the same pass that judges the log (one decode, one replay).
 */
#ifndef RPL_VERIFY_IMPL_H
#define RPL_VERIFY_IMPL_H

#include "libreplay/game.h"
#include "libreplay/log.h"

struct rpl__verify_hook {
	void *ctx;
	/* Before a decision is applied; after a deal is dealt or a decision applied (both legal). */
	int (*before)(void *ctx, const rpl_event *ev, const rpl_game *g);
	int (*after)(void *ctx, const rpl_event *ev, const rpl_game *g);
};

/*
 * rpl_verify_reader(), calling the hook's functions (either may be NULL)
 * along the way. A function that returns non-zero stops verification, which
 * returns that value (RPL_ENOMEM: no verdict).
 */
int rpl__verify_reader(rpl_reader *rd, const rpl_rules *rules, rpl_verdict *out, const struct rpl__verify_hook *hook);

#endif
