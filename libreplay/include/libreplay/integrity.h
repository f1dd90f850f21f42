/*
 * Integrity screening: does a player play as if seeing cards it cannot see,
 * or feed another seat? (docs/integrity.md says every formula, the method
 * of its p-values and what a flag can and cannot show.)
 *
 * Evidence is gathered decision by decision, as a log is verified: at a
 * discard with a choice of cards, whether the card discarded fits each other
 * seat's hidden hand (could that seat lay it, with its hand, if it had it),
 * against what the discarder's information explains; at a draw where the
 * pile could have been taken, whether the choice agreed with the stock's
 * hidden card. Each decision gives an observed value, an expected one and
 * their difference, the residual. The expected value comes from samples
 * of the cards the seat could not see, dealt anew but holding two things of
 * each real hand fixed that an honest choice cannot depend on (its wild and
 * suit counts, and how many of the cards the seat could throw fit it), so
 * that an honest seat's residuals are centred on zero whatever its style,
 * its choice depending only on what it saw. The full test (options' full)
 * adds each decision's value with and without hindsight, by the review's
 * judge.
 *
 * A corpus's evidence is then summed by subject: a player (by name, across
 * matches) or an ordered pair of players (A's decisions against B's hidden
 * hand), and tested by a permutation test across the subject's deals: the
 * sums of the residuals of each deal, less the centre the corpus's own
 * calibration of the samples gives (every option every seat had), their
 * signs flipped at random (decisions within a deal are correlated; deals
 * are not). A flag is a reason to look, never a verdict.
 *
 * Everything is a function of the logs, the options and the order the logs
 * were added in: the same corpus gives the same p-values on every machine.
 */
#ifndef LIBREPLAY_INTEGRITY_H
#define LIBREPLAY_INTEGRITY_H

#include "libreplay/common.h"
#include "libreplay/game.h"
#include "libreplay/log.h"
#include "libreplay/sign.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The statistics. */
enum rpl_integrity_stat {
	/* a player: its discards fit the next seat's (an opponent's) hidden hand less often than its information explains */
	RPL_INTEGRITY_PEEK = 0,
	/* a player: its draws (the stock or the pile) agree with the stock's hidden card more often than explained */
	RPL_INTEGRITY_DRAW = 1,
	/* a pair A, B of opponents: A's discards fit B's hidden hand more often than explained (A feeds B) */
	RPL_INTEGRITY_FEED = 2,
	/* a pair A, B of partners: A's discards fit B's hidden hand more often than explained (A sees B's hand) */
	RPL_INTEGRITY_SIGNAL = 3,
	/*
	 * a player, the full test (options' full): its decisions gained more on
	 * the real cards, against what they were worth on samples of the unseen
	 * ones, than the other candidates did (the review's judge, twice)
	 */
	RPL_INTEGRITY_HINDSIGHT = 4,
	RPL_INTEGRITY_NSTATS = 5
};

/* "peek", "draw", "feed", "signal", "hindsight"; NULL for anything else. */
RPL_API const char *rpl_integrity_stat_name(int stat);

/* The defaults. */
#define RPL_INTEGRITY_SAMPLES 32        /* samples of the unseen cards a discard and a target seat */
#define RPL_INTEGRITY_BINS 10           /* the calibration's bins of expected values */
#define RPL_INTEGRITY_FULL_SAMPLES 16   /* the full test's samples a candidate, each way */
#define RPL_INTEGRITY_TRIES 16          /* the most samples dealt, in RPL_INTEGRITY_SAMPLES: see docs/integrity.md */
#define RPL_INTEGRITY_PERMUTATIONS 9999 /* random sign flips a test */
#define RPL_INTEGRITY_LEVEL 0.01        /* a subject is flagged below this (Bonferroni over its statistics) */

/* How a screen is made: plain data, the caller's; start from rpl_integrity_options_init. */
typedef struct rpl_integrity_options {
	int samples;      /* samples a discard, 1..4096 */
	int permutations; /* sign flips a test, 99..1000000 */
	double level;     /* 0 < level < 1 */
	uint64_t seed;    /* the samples' and the flips' seed */
	unsigned seats;   /* bit s set: screen seat s (every seat still calibrates); 0: every seat */
	int full;         /* 1: also the full test, RPL_INTEGRITY_HINDSIGHT (the review's judge: far slower) */
	int full_samples; /* its samples a candidate, on the unseen cards and on the real ones, 2..1000 */
} rpl_integrity_options;

/* The defaults into *o (seed 1). */
RPL_API void rpl_integrity_options_init(rpl_integrity_options *o);

/* One decision's evidence: plain data, the caller's. */
typedef struct rpl_integrity_decision {
	int deal;          /* 1-based */
	int turn;          /* the turn of the deal, 1-based */
	int number;        /* the decision's number in the deal, 1-based */
	int step;          /* its number in its turn, 1-based (brp view's n, brp show --decision) */
	int seat;          /* who decided */
	int target;        /* whose hidden cards: a seat; -1 for the stock (RPL_INTEGRITY_DRAW) */
	int stat;          /* RPL_INTEGRITY_DRAW; RPL_INTEGRITY_FEED for a discard against target's hand; HINDSIGHT */
	int choices;       /* the distinct discards, or 2 (draw or take) */
	rpl_action played; /* the decision */
	double observed;   /* 1 or 0: the card fitted target's real hand; the draw agreed with the stock card;
	                    * HINDSIGHT: the decision's gain on the real cards, in points */
	double expected;   /* what the seat's information explains (docs/integrity.md, section 2); HINDSIGHT:
	                    * the candidates' mean gain */
	double residual;   /* observed - expected */
	int bin;           /* expected's calibration bin: expected * RPL_INTEGRITY_BINS, rounded down (at most BINS - 1) */
	/*
	 * The calibration of the samples (docs/integrity.md, section 3): each
	 * option the seat had (every card it could throw; draw and take) by the
	 * bin of its expected value, their number and the sum of their observed
	 * less expected values against the same target.
	 */
	int cal_n[RPL_INTEGRITY_BINS];
	double cal_sum[RPL_INTEGRITY_BINS];
} rpl_integrity_decision;

/*
 * Called for each decision with evidence, in the log's order (a discard
 * once a target seat); a non-zero return stops the screen, which returns it.
 */
typedef int (*rpl_integrity_fn)(void *ctx, const rpl_integrity_decision *d);

/*
 * Verify the log rd (opened by the caller, before any rpl_reader_next) and
 * gather, along the way, the evidence of every decision, calling fn for
 * each; *out gets the verdict rpl_verify_reader gives. A log that breaks a
 * rule is screened up to the refused decision, a damaged one up to its
 * damage. rules: NULL for the log's own. Returns 0, the verdict filled;
 * RPL_EINVAL (NULL, options out of range), RPL_ENOMEM, or fn's value. rd
 * stays the caller's.
 */
RPL_API int rpl_integrity_reader(rpl_reader *rd, const rpl_rules *rules, const rpl_integrity_options *o,
                                 rpl_integrity_fn fn, void *ctx, rpl_verdict *out);
/*
 * The same, the verdict judging the log's signatures against the trusted
 * keys (rpl_verify_reader_trusted: a log no trusted key covers whole is
 * UNTRUSTED; its decisions are still screened, and the caller, who sees
 * the verdict, decides whether to count them). rpl_integrity_reader is
 * this with trusted NULL.
 */
RPL_API int rpl_integrity_reader_trusted(rpl_reader *rd, const rpl_rules *rules, const rpl_keyring *trusted,
                                         const rpl_integrity_options *o, rpl_integrity_fn fn, void *ctx,
                                         rpl_verdict *out);

/*
 * A corpus's evidence by subject: an opaque handle, used by one thread at a
 * time. rpl_integrity_new: 0 with *out the caller's (rpl_integrity_free);
 * RPL_EINVAL for NULL or options out of range, RPL_ENOMEM (*out then NULL).
 */
typedef struct rpl_integrity rpl_integrity;
/* Make an empty corpus with options o (copied), as said above. */
RPL_API int rpl_integrity_new(rpl_integrity **out, const rpl_integrity_options *o);
/* Free it; NULL is accepted. */
RPL_API void rpl_integrity_free(rpl_integrity *in);

/*
 * Add the decisions d[0..n) of one match, whose seats' players are
 * names[0..players) (copied), to the corpus, as match number match (the
 * caller's numbering, for rpl_integrity_line's evidence; the matches must
 * be added in increasing numbers). group names the null model's group the
 * match belongs to (the rules' profile: the matches of one group and number
 * of players share one calibration). Every decision adds its options to its
 * group's calibration; a decision of a seat the options screen (seats) adds
 * to its player's statistic (PEEK for a discard against the next seat,
 * DRAW) and to its pair's (FEED or SIGNAL: partners when players is 4 and
 * the seats face each other). Two seats of one match with the same name
 * are one player.
 * Returns 0; RPL_EINVAL for a NULL argument, players not 2 or 4, a seat or
 * target out of range or a match number not above the last one;
 * RPL_ENOMEM (the corpus then holds part of it).
 */
RPL_API int rpl_integrity_add(rpl_integrity *in, long match, const char *const *names, int players, const char *group,
                              const rpl_integrity_decision *d, size_t n);

/* The most decisions a line names as its evidence. */
#define RPL_INTEGRITY_EVIDENCE 5

/* One decision behind a line: where it is, and how far it went the line's way. */
typedef struct rpl_integrity_where {
	long match;      /* as given to rpl_integrity_add */
	int deal;        /* 1-based */
	int turn;        /* 1-based */
	int number;      /* the decision's number in the deal */
	int step;        /* its number in its turn (brp view's #d=DEAL&t=TURN&n=STEP) */
	double residual; /* signed as the statistic counts it: larger is more evidence */
} rpl_integrity_where;

/* One statistic of one subject: plain data; its names are the corpus's (valid until rpl_integrity_free). */
typedef struct rpl_integrity_line {
	int stat;            /* enum rpl_integrity_stat */
	const char *player;  /* the player (PEEK, DRAW), or the pair's first: whose decisions */
	const char *partner; /* the pair's second (FEED, SIGNAL): whose hidden hand; NULL for a player */
	long decisions;      /* the decisions counted (n) */
	long deals;          /* the deals they lie in (the permutation test's units) */
	long matches;        /* the matches */
	double observed;     /* the sums of the decisions' observed and expected values */
	double expected;
	double baseline; /* the null's centre a decision: the calibration's excess at the decisions' bins */
	double value;    /* the evidence a decision: (observed - expected) / decisions less the baseline, signed
	                  * as the statistic counts it (positive: the way a cheat would go; PEEK's is turned) */
	double z;        /* the centred sum over its standard error (the deals' squares and the centre's variance) */
	double p;        /* one-sided, from the sign-flip test (docs/integrity.md, section 3) */
	double level;    /* the level this line is tested at: the options' over its subject's statistics */
	int flagged;     /* p < level */
	int nevidence;   /* how many of evidence are set */
	rpl_integrity_where evidence[RPL_INTEGRITY_EVIDENCE]; /* the decisions that weigh most, the most first */
} rpl_integrity_line;

/*
 * Test every subject (the permutation tests run here, once) and return how
 * many lines there are: one a statistic a subject with at least one
 * decision, in a fixed order (by evidence: the smallest p first, then the
 * largest z, then the names); RPL_ENOMEM.
 */
RPL_API long rpl_integrity_finish(rpl_integrity *in);
/*
 * Line i (0 <= i < what rpl_integrity_finish returned) into *out. Returns 0;
 * RPL_EINVAL for NULL or i out of range, RPL_ESTATE before rpl_integrity_finish
 * or after another rpl_integrity_add.
 */
RPL_API int rpl_integrity_line_get(const rpl_integrity *in, long i, rpl_integrity_line *out);

/*
 * The one-sided p-value of the sign-flip test of x[0..n) (each deal's sum):
 * the share of permutations random sign flips (and the observed signs)
 * whose sum is at least the observed one, drawn from seed's stream, (1 +
 * count) / (permutations + 1); sequential (Besag and Clifford, 1991): once
 * 50 flips have reached it, 50 / (the flips drawn). The statistic's way is
 * up: negate x for a lower tail. Returns 1 for n 0. With n * permutations
 * over 50,000,000, the normal limit of the same test (the sum over the root
 * of the sum of squares).
 */
RPL_API double rpl_integrity_sign_test(const double *x, size_t n, int permutations, uint64_t seed);

#ifdef __cplusplus
}
#endif

#endif
