/*
 * The review of a match: how much each decision of a seat cost, judged from
 * that seat's information only (docs/review.md says every formula).
 *
 * At each decision of a seat with a choice (two or more legal decisions), the
 * candidates are the decision played, the greedy bot's and the legal
 * decisions in the engine's order, up to a cap. Each is applied to samples of
 * the cards the seat cannot see (rpl_infoset_sample: never the real hidden
 * cards) and the deal played on by the greedy bot for the options' horizon
 * of turns, then counted as if it ended there (the cards in hand at the
 * options' hand weight); a candidate's value is the mean, over the samples,
 * of its side's score less the other side's. All
 * candidates are judged on the same samples, and a candidate clearly worse
 * than the best (2.5 standard errors of their paired difference) is dropped
 * after each block of 8 samples, as the search bot does (sim.h), but the
 * decision played is never dropped. The best of them is then judged again
 * against the decision played on twice as many other samples (the best of
 * many noisy means is biased upwards): the engine's preferred decision is
 * that candidate if it is better there by more than the options'
 * significance (2 standard errors of the difference), else the decision
 * played; where one standard error either way would change that or the
 * class, the two are judged once more on the options' extend times the
 * samples. The
 * loss is the value of the engine's decision less the played one's, on those
 * samples, with the standard error of that paired difference; its class
 * (inaccuracy, mistake, blunder) comes from thresholds of the options.
 *
 * Everything that decides a choice or a class is counted in integers, and the
 * samples of a decision come from a stream seeded by the options' seed, the
 * deal and the decision's number in the deal: a review is the same on every
 * machine, in whatever order or on however many threads its decisions are
 * reviewed. The doubles of a decision are computed from those integers.
 */
#ifndef LIBREPLAY_REVIEW_H
#define LIBREPLAY_REVIEW_H

#include "libreplay/common.h"
#include "libreplay/game.h"
#include "libreplay/log.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The default strength: samples a decision (docs/review.md, "Strength"). */
#define RPL_REVIEW_SAMPLES 24
/* The default cap of candidates a decision (at most RPL_SEARCH_MAX_CANDIDATES, sim.h). */
#define RPL_REVIEW_CANDIDATES 16
/*
 * The engine's choice replaces the decision played only when it is better
 * by this many tenths of a standard error (default: 2 standard errors).
 */
#define RPL_REVIEW_SIGNIFICANCE 20
/* The default horizon: turns played after the decision's own (docs/review.md, "The horizon"). */
#define RPL_REVIEW_HORIZON 4
/* The default share of the points in hand a stopped rollout counts, in percent. */
#define RPL_REVIEW_HAND_WEIGHT 50
/* The default extension of a decision near a threshold: judged again on 4 times the samples. */
#define RPL_REVIEW_EXTEND 4
/* The default thresholds of the classes, in points of expected deal-score margin. */
#define RPL_REVIEW_INACCURACY_POINTS 40 /* an inaccuracy: a loss of at least this */
#define RPL_REVIEW_MISTAKE_POINTS 100   /* a mistake */
#define RPL_REVIEW_BLUNDER_POINTS 250   /* a blunder */
/*
 * The margin to win% curve: win% = 100 / (1 + exp(-margin / RPL_REVIEW_WIN_SCALE)),
 * the chance that a side wins a match with a target given its margin in one
 * deal, its scale in points fitted on simulated matches (tools/review-fit.py,
 * docs/review.md).
 */
#define RPL_REVIEW_WIN_SCALE 290.0

/* The class of a decision's loss. */
enum rpl_review_class {
	RPL_REVIEW_NONE = 0,       /* below the inaccuracy threshold */
	RPL_REVIEW_INACCURACY = 1, /* at least the inaccuracy threshold */
	RPL_REVIEW_MISTAKE = 2,    /* at least the mistake threshold */
	RPL_REVIEW_BLUNDER = 3     /* at least the blunder threshold */
};

/* "inaccuracy", "mistake", "blunder"; NULL for RPL_REVIEW_NONE and anything else. */
RPL_API const char *rpl_review_class_name(int cls);

/* How a review is made: plain data, the caller's; start from rpl_review_options_init. */
typedef struct rpl_review_options {
	int samples;        /* samples a decision, 2..1000 (the strength; cost grows with it) */
	int candidates;     /* the most candidates a decision, 2..RPL_SEARCH_MAX_CANDIDATES */
	int32_t inaccuracy; /* the thresholds in points, 0 < inaccuracy <= mistake <= blunder */
	int32_t mistake;
	int32_t blunder;
	int significance; /* tenths of a standard error, 0..100 (RPL_REVIEW_SIGNIFICANCE) */
	uint64_t seed;    /* the samples' seed: another seed, other samples */
	int hindsight;    /* 1: judge on the real cards (every card visible, docs/review.md) */
	unsigned seats;   /* bit s set: review seat s; 0: every seat */
	int deal;         /* review this deal only (1-based); 0: every deal */
	int horizon;      /* turns each rollout plays after the current one, 0..1000; 0: to the end of the deal */
	int hand_weight;  /* percent of the points in hand a rollout stopped at its horizon counts, 0..100 */
	int extend; /* 1..8: a decision whose verdict one standard error would change is judged on this many times the samples; 1: never */
} rpl_review_options;

/* The defaults into *o: RPL_REVIEW_SAMPLES, RPL_REVIEW_CANDIDATES, the RPL_REVIEW_*_POINTS thresholds, RPL_REVIEW_SIGNIFICANCE, seed 1, every seat and deal. */
RPL_API void rpl_review_options_init(rpl_review_options *o);

/* One decision reviewed: plain data, the caller's. */
typedef struct rpl_review_decision {
	int deal;           /* 1-based */
	int turn;           /* the turn of the deal, 1-based (rpl_game_turn_number) */
	int number;         /* the decision's number in the deal, 1-based (decisions applied before it, plus one) */
	int seat;           /* who decided */
	rpl_action played;  /* the decision played */
	rpl_action best;    /* the engine's preferred one (played when none is better) */
	rpl_action greedy;  /* the greedy bot's choice at the same position */
	int candidates;     /* how many were judged */
	int samples;        /* the samples played and best were both judged on (the second judgement's) */
	int64_t sum_played; /* the sums of their margins over those samples (each clamped to +-20000) */
	int64_t sum_best;
	int64_t sum_sq;      /* the sum of the squares of best's margin less played's */
	double value_played; /* sum_played / samples */
	double value_best;   /* sum_best / samples */
	double loss;         /* value_best - value_played (>= 0) */
	double se;           /* the standard error of loss (the paired difference) */
	int cls;             /* enum rpl_review_class */
	int uncertain;       /* 1: the class would differ somewhere within loss ± se */
	double win_loss;     /* the loss in win% at an even deal: the curve at loss less 50 */
	double accuracy;     /* 0..100, from win_loss (docs/review.md) */
} rpl_review_decision;

/*
 * A reviewer: an opaque handle with the options and the room of its search,
 * used by one thread at a time (several reviewers on several threads).
 * rpl_reviewer_new: 0 with *out the caller's (rpl_reviewer_free); RPL_EINVAL
 * for NULL or options out of range, RPL_ENOMEM (*out then NULL).
 */
typedef struct rpl_reviewer rpl_reviewer;
/* Make a reviewer with options o (copied), as said above. */
RPL_API int rpl_reviewer_new(rpl_reviewer **out, const rpl_review_options *o);
/* Free a reviewer; NULL is accepted. */
RPL_API void rpl_reviewer_free(rpl_reviewer *rv);

/*
 * Review the decision played by the seat to move in g (only read) into
 * *out. Returns 1 reviewed; 0 not reviewed, *out untouched: the seat had no
 * choice (one legal decision), or played is refused by the engine; or
 * RPL_ESTATE when no turn is in progress, RPL_EINVAL for NULL, RPL_ENOMEM.
 * Without hindsight it reads only what the seat to move sees in g.
 */
RPL_API int rpl_review_one(rpl_review_decision *out, rpl_reviewer *rv, const rpl_game *g, const rpl_action *played);

/*
 * The margin to win% curve (RPL_REVIEW_WIN_SCALE) at margin, and the accuracy
 * of a decision that lost win_loss win% (lichess's formula, docs/review.md):
 * 103.1668 exp(-0.04354 win_loss) - 3.1669, within 0..100.
 */
RPL_API double rpl_review_win_percent(double margin); /* the curve at margin (above) */
/* The accuracy of a decision that lost win_loss win% (above). */
RPL_API double rpl_review_accuracy(double win_loss);

/* The decisions of one seat in one deal (or a whole match: deal 0), summed; plain data, the caller's. */
typedef struct rpl_review_summary {
	int seat, deal;
	int decisions;       /* reviewed */
	int matched;         /* where played was the engine's preferred decision */
	int classes[4];      /* by enum rpl_review_class */
	double accuracy_sum; /* the sum of the decisions' accuracy */
	double inverse_sum;  /* the sum of 1 / accuracy, each accuracy taken as at least 1 (the harmonic mean's) */
	double loss_sum;     /* the sum of their loss in points */
} rpl_review_summary;

/* Add d to s (zeroed first, seat and deal set by the caller). */
RPL_API void rpl_review_summary_add(rpl_review_summary *s, const rpl_review_decision *d);
/*
 * The accuracy of a seat, lichess's way: the mean of the decisions' plain
 * mean and their harmonic mean, (accuracy_sum / decisions + decisions /
 * inverse_sum) / 2 (docs/review.md, section 4), or 100 with no decision reviewed.
 */
RPL_API double rpl_review_summary_accuracy(const rpl_review_summary *s);
/* 100 * matched / decisions, or 100 with no decision reviewed. */
RPL_API double rpl_review_summary_match_rate(const rpl_review_summary *s);

/*
 * Called for each decision reviewed, in the log's order; a non-zero return
 * stops the review, which returns it.
 */
typedef int (*rpl_review_fn)(void *ctx, const rpl_review_decision *d);

/*
 * Verify the log rd (opened by the caller, before any rpl_reader_next) and
 * review, along the way, each decision of the seats and deal o asks for,
 * calling fn for each; *out gets the verdict rpl_verify_reader gives. A log
 * that breaks a rule is reviewed up to the refused decision (the verdict
 * names it), a damaged one up to its damage. rules: NULL for the log's own.
 * Returns 0, the verdict filled; RPL_EINVAL, RPL_ENOMEM, or fn's value.
 * rd stays the caller's.
 */
RPL_API int rpl_review_reader(rpl_reader *rd, const rpl_rules *rules, const rpl_review_options *o, rpl_review_fn fn,
                              void *ctx, rpl_verdict *out);

#ifdef __cplusplus
}
#endif

#endif
