/*
 * Private: a turn that ran into a dead end (docs/rules.md 11.10). The
 * verification watches each turn in which a dead end can happen (one that
 * took the pile, or a vulnerable side's turn before it opened): it keeps
 * the state before the turn's first decision and the turn's decisions, so
 * that when a decision is refused in a turn that could no longer end, it can
 * name the decision that made it so. Nothing is kept in the other turns,
 * where every position can end with a discard.
 */
#ifndef RPL_DEAD_END_H
#define RPL_DEAD_END_H

#include "rules/game_impl.h"

/* The decisions of a turn kept: a turn lays one card at least each, from a hand of at most 108. */
#define RPL__TURN_KEPT 128

struct rpl__turn_watch {
	int watching;          /* this turn can end in a dead end: start and the decisions are kept */
	struct rpl_game start; /* the state before the turn's first decision */
	size_t n;              /* decisions of the turn applied since */
	rpl_action dec[RPL__TURN_KEPT];
	uint64_t offset[RPL__TURN_KEPT]; /* each one's section */
};

/* Before the first decision a of a turn (g in phase DRAW) is applied: the turn's watch starts. */
void rpl__turn_watch_before(struct rpl__turn_watch *tw, const struct rpl_game *g, const rpl_action *a);
/* After a was applied (its section at offset). */
void rpl__turn_watch_after(struct rpl__turn_watch *tw, const rpl_action *a, uint64_t offset);

/*
 * A decision was refused in g (unchanged by the refusal): was the turn
 * already at a dead end, and which of its decisions made it so? Returns 1
 * with that decision's index among those kept in *at (0..n-1); 0 when the
 * turn could still end, or is not watched, or its decisions do not replay
 * (nothing to say); RPL_ENOMEM.
 */
int rpl__turn_watch_dead_end(const struct rpl__turn_watch *tw, const struct rpl_game *g, size_t *at);

#endif
