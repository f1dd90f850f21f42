/*
 * Private: a turn that ran into a dead end (docs/rules.md 11.10). When a
 * decision is refused in a turn that could no longer end, verification names
 * the decision of that turn that made it so. It costs nothing while decisions
 * are accepted: only at the refusal is the log read a second time from its
 * start (the reader's own bytes, not copied) to the turn, whose decisions are
 * then replayed one at a time, the engine asked after each whether the turn
 * can still end.
 */
#ifndef RPL_DEAD_END_H
#define RPL_DEAD_END_H

#include "libreplay/log.h"
#include "rules/game_impl.h"

/* The decision that left a turn no legal end. */
struct rpl__dead_end {
	rpl_action action; /* that decision */
	uint64_t offset;   /* its section */
	int later;         /* the decisions of the turn applied after it, before the refused one */
};

/*
 * The decision refused (deal, turn of the event refused) in g, unchanged by
 * the refusal, of the log rd reads: was the turn already at a dead end, and
 * which of its decisions made it so? Returns 1 with *out; 0 when the turn
 * could still end (or the replay cannot tell); RPL_ENOMEM.
 */
int rpl__dead_end_find(rpl_reader *rd, const struct rpl_game *g, const rpl_event *refused, struct rpl__dead_end *out);

#endif
