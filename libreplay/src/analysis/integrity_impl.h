/*
 * Private: the analysis files, in order; a file calls only those listed
 * before it (docs/conventions.md, section 6):
 *
 *   review.c            the review (review.h); the candidates of a decision, shared
 *   integrity_full.c    the full test's evidence of one decision: the review's judge, with and without hindsight
 *   integrity.c         each decision's evidence as a log is verified (integrity.h)
 *   integrity_corpus.c  a corpus's evidence by subject, and the tests
 */
#ifndef RPL_INTEGRITY_IMPL_H
#define RPL_INTEGRITY_IMPL_H

#include "libreplay/integrity.h"

/*
 * Add a to the candidates cand[0..*n) (text: their notation, 128 bytes
 * each) unless one written the same is there or *n has reached cap: the
 * review's and the full test's list of a decision's candidates.
 */
void rpl__candidate_add(rpl_action *cand, char (*text)[128], int *n, int cap, const rpl_action *a);

/*
 * The full test's room: its judge (play/bot_impl.h's), the position the
 * candidates are listed on, the candidates. rpl__full_new: 0, RPL_ENOMEM
 * (*out then NULL). samples: the options' full_samples.
 */
struct rpl__full;
int rpl__full_new(struct rpl__full **out, int samples);
void rpl__full_free(struct rpl__full *f);

/*
 * The hindsight evidence of the decision played by the seat to move in g
 * into d (its place fields are the caller's): 1 with d->stat
 * RPL_INTEGRITY_HINDSIGHT, observed, expected and residual set; 0 when the
 * seat had no choice; RPL_ENOMEM. seed: the decision's stream.
 */
int rpl__full_judge(struct rpl__full *f, const rpl_game *g, const rpl_action *played, uint64_t seed,
                    rpl_integrity_decision *d);

#endif
