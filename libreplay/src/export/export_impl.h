/* Export: the loaded match, shared by the SQLite and CSV sinks (export*.c). */
#ifndef RPL_EXPORT_IMPL_H
#define RPL_EXPORT_IMPL_H

#include "libreplay/export.h"
#include "libreplay/game.h"
#include "libreplay/meld.h"
#include "libreplay/sign.h"

#include "base/date.h"

/* What became of a morto in a deal (the deals.morto0/morto1 columns). */
enum { XM_UNTOUCHED = 0, XM_DIRECT = 1, XM_INDIRECT = 2, XM_STOCK = 3 };
extern const char *const rpl__export_morto_names[4];

/* Per deal and seat (the deal_seats table). */
struct xseat {
	int32_t turns, draws, takes, rejects, melds, adds, discards, mortos, went_out;
};

struct xdeal {
	int deal, dealer, first_seat;
	rpl_deal_stats st;
	int morto[2], morto_side[2]; /* XM_..., side or -1 */
	rpl_score score[2];
	int32_t match_total[2]; /* after this deal */
	struct xseat seat[4];
	size_t act0;      /* its first decision in rpl_export_match.acts */
	int last_turn[4]; /* while replaying: the last turn counted per seat */
};

/*
 * Screen the ok log data[0..len) of m with options o (rpl_integrity_reader),
 * its evidence summed into m->evs (struct xevidence). 0, RPL_ENOMEM, or what
 * the screen returns.
 */
int rpl__export_screen(rpl_export_match *m, const void *data, size_t len, const rpl_integrity_options *o);

/* The longest meld text: 14 cards, each at most "JK(10h)" and a space. */
#define RPL__MELD_CARDS_SIZE 120

/* A meld on the table at a deal's end: 76 bytes, its cards' text written with its row (rpl__export_meld_cards). */
struct xmeld {
	int deal, side, idx;
	rpl_meld_info info;
};

/*
 * A decision kept for the actions table (RPL_EXPORT_ACTIONS): 36 bytes, its
 * text written only when the row is (rpl_action_format), so that a match of
 * RPL_MAX_DECISIONS decisions holds 144 MiB, not the 560 MiB of a text each.
 */
struct xaction {
	int32_t deal, seq, turn; /* seq: 1-based within the deal */
	uint8_t seat, kind;
	rpl_action action;
};

/*
 * A decision reviewed (rpl_export_match_load_reviewed): the review, and the
 * turn and the decision's number in it as brp review and brp show count them.
 */
struct xreview {
	int32_t turn, in_turn;
	rpl_review_decision d;
};

/*
 * One row of the integrity screen (rpl_export_match_load_screened, the
 * integrity_deals table): of one deal, seat, statistic (RPL_INTEGRITY_FEED:
 * a discard against target's hand; RPL_INTEGRITY_DRAW, target -1) and
 * calibration bin, the decisions whose expected value falls in the bin,
 * summed, and the options of the key's decisions that fall in it.
 */
struct xevidence {
	int32_t deal, decisions, options;
	int8_t seat, stat, target, bin;
	double observed, expected, residual, excess;
};

struct rpl_export_match {
	char hash[65];
	char *file;
	uint64_t bytes;
	int have_header; /* the header was read: the fields below it are set */
	int format_version;
	char *profile, *overrides; /* overrides: a JSON object */
	int nplayers, first_dealer, target;
	char *players[4];   /* valid UTF-8, NULL for an unnamed seat */
	int64_t start_time; /* 0 unknown */
	size_t nmeta;
	char **meta_keys, **meta_values;
	rpl_verdict verdict;
	int detailed;    /* verdict ok and the deals below collected */
	int has_actions; /* acts collected (RPL_EXPORT_ACTIONS) */
	struct xdeal *deals;
	size_t ndeals;
	struct xmeld *melds;
	size_t nmelds, capmelds;
	struct xaction *acts;
	size_t nacts, capacts;
	int reviewed;               /* reviews collected (an ok log loaded with review options) */
	rpl_review_options rev_opt; /* the options it was reviewed with */
	struct xreview *revs;       /* the decisions reviewed, in the log's order */
	size_t nrevs, caprevs;
	rpl_review_summary *sums; /* by seat reviewed: its deals with a decision reviewed, then the match (deal 0) */
	size_t nsums;
	int screened;                  /* evidence collected (an ok log loaded with integrity options) */
	rpl_integrity_options int_opt; /* the options it was screened with */
	struct xevidence *evs;         /* by deal, seat, then next, partner, previous, draw, then bin */
	size_t nevs, capevs;
	char errmsg[RPL_ERRMSG_SIZE];
};

/*
 * The copy m is (docs/schema.md, "Copies"): its match (its identity, or its
 * hash when it has none), its verdict, what its signatures say (status,
 * signer's key id and fingerprint, trusted), its dealing status and whether a
 * trusted key signs what the replay found, as a string for
 * the flat sinks' set of copies written. The SQLite sink names a copy by
 * the same fields (the matches_copy index).
 */
#define RPL__EXPORT_COPY_SIZE 192
void rpl__export_copy_key(const rpl_export_match *m, char out[RPL__EXPORT_COPY_SIZE]);
/* The signer's fingerprint (32 hex digits), "" for an unsigned log. */
void rpl__export_fingerprint(const rpl_pubkey *pk, int present, char out[RPL_KEY_FINGERPRINT_TEXT]);

/* n bytes as 2n lower-case hex digits and a NUL into out. */
void rpl__export_hex(const uint8_t *p, size_t n, char *out);

/* The cards of a meld from lo to hi, "5h JK(6h) 7h", into buf; returns the length written. */
size_t rpl__export_meld_cards(const rpl_meld_info *mi, char *buf, size_t size);
/* The action kind's name ("draw", ...). */
const char *rpl__export_kind_name(int kind);
/* The suit letter of a meld ("c", "d", "h", "s"). */
const char *rpl__export_suit_name(int suit);

#endif
