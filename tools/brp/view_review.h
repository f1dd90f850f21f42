/*
 * brp view --review: a match's review (review.h) on its page (view_review.c,
 * docs/view.md "The review"). cmd_view.c loads or computes it before the
 * replay, shows it each position of the replay so that every reviewed
 * decision finds its position, checks it after, and writes it into the
 * summary (plain HTML) and the page's data (for the stepper).
 */
#ifndef BRP_VIEW_REVIEW_H
#define BRP_VIEW_REVIEW_H

#include <stdio.h>

#include <libreplay/libreplay.h>

struct brp_view_review;

/*
 * A review from file, as brp review --json writes it (its first line names
 * the match); with seat >= 0, only that seat's decisions and summary are
 * kept (another seat's better decision would name cards of its hand), and
 * a review with hindsight is refused. NULL after saying why (in cmd's name).
 */
struct brp_view_review *brp_view_review_load(const char *cmd, const char *file, int seat);
/*
 * The review computed here, at samples a decision and the other options
 * rpl_review_options_init gives, of the log at path (or of its bytes, when
 * bytes is not NULL); with seat >= 0 of that seat only. NULL after saying why.
 */
struct brp_view_review *brp_view_review_compute(const char *cmd, const char *path, const unsigned char *bytes,
                                                size_t nbytes, int samples, int seat);
/* Accepts NULL. */
void brp_view_review_free(struct brp_view_review *r);

/* Each position of the replay, in order (index: its place in the page's data): the decision reviewed there. */
void brp_view_review_position(struct brp_view_review *r, const rpl_position *p, int index);
/*
 * After the replay: the review is of this match (v's identity) and each of
 * its decisions is the log's. 0, or -1 after saying why.
 */
int brp_view_review_check(const struct brp_view_review *r, const char *cmd, const rpl_verdict *v);

/* The summary's part: each seat's accuracy and the marked decisions, linked to their positions. */
void brp_view_review_html(FILE *f, const struct brp_view_review *r, const rpl_match_info *info, int seat);
/* The page's data: ,"review":{...} (docs/view.md, "The review"). */
void brp_view_review_json(FILE *f, const struct brp_view_review *r);

/* cmd_view.c's writer of a JSON string safe inside a <script> (an HTML text: svg.h's brp_html_text). */
void brp_view_json_text(FILE *f, const char *s);

#endif
