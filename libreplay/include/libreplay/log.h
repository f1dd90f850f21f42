/*
 * Match logs (.brp): the recorder that writes them, the streaming reader
 * that reads them back, and verification (replaying a log through the
 * rules engine). The byte layout is specified in docs/format.md.
 *
 * Ownership: every handle is made by an rpl_..._open() function, owned by the
 * caller and released by its *_free (which accepts NULL). Strings returned
 * by a handle live as long as the handle. Errors: functions return 0 or a
 * negative enum rpl_error; *_errmsg() gives the last failure's one-line
 * detail.
 */
#ifndef LIBREPLAY_LOG_H
#define LIBREPLAY_LOG_H

#include "libreplay/common.h"
#include "libreplay/card.h"
#include "libreplay/rules.h"
#include "libreplay/game.h"
#include "libreplay/deal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Limits a reader enforces before allocating (docs/format.md, "Limits"). */
#define RPL_MAX_NAME 256        /* bytes of a player name */
#define RPL_MAX_META 64         /* metadata entries */
#define RPL_MAX_META_TEXT 1024  /* bytes of a metadata key or value */
#define RPL_MAX_SECTION (1u << 20) /* bytes of a section payload */
#define RPL_MAX_DEALS 10000     /* deals in one match */
/*
 * The start time a header may hold, when known (not 0): the years 0000 to
 * 9999, 0000-01-01T00:00:00Z to 9999-12-31T23:59:59Z, which the notation and
 * the export write as dates. A recorder refuses another (RPL_EINVAL), a
 * reader refuses it as corrupt.
 */
#define RPL_MIN_START_TIME (-62167219200LL)
#define RPL_MAX_START_TIME 253402300799LL
/*
 * Limits a recorder enforces (RPL_ELIMIT), so that it never writes a log
 * its reader refuses and its memory stays bounded: decisions in one match
 * (the recorder keeps each, 32 bytes, to write the compact form), and the
 * reader's 64 MiB for the file. A deal longer than a section may hold
 * (RPL_MAX_SECTION decisions or bytes) goes on in continuation sections.
 */
#define RPL_MAX_DECISIONS (1u << 22)

/* What a match log's header says. Plain data; strings are borrowed. */
typedef struct rpl_match_info {
	const rpl_rules *rules;     /* the rules played, every parameter */
	int nplayers;               /* 2 or 4 */
	const char *players[4];     /* names by seat; NULL or "" for unnamed */
	int first_dealer;           /* seat */
	int64_t start_time;         /* seconds since 1970-01-01 UTC; 0 unknown; RPL_MIN/MAX_START_TIME */
	size_t nmeta;               /* free-form metadata: platform, table id... */
	const char *const *meta_keys;
	const char *const *meta_values;
	/*
	 * A committed deal (docs/format.md, sections 15 and 16): the commitment
	 * to the platform's seed (RPL_DEAL_COMMIT_SIZE bytes), NULL when the
	 * layouts are dealt freely; and the seeds the players added.
	 */
	const uint8_t *commitment;
	int nplayer_seeds;          /* 0..RPL_DEAL_MAX_PLAYER_SEEDS */
	const uint8_t (*player_seeds)[RPL_DEAL_SEED_SIZE];
} rpl_match_info;

/* ---- recorder ---- */

typedef struct rpl_recorder rpl_recorder;

/* Flags for rpl_recorder_open(). */
#define RPL_RECORD_UNCHECKED 1u /* do not run the rules engine: record any decision the cards allow */
#define RPL_RECORD_SYNC 2u      /* flush with fsync (survives power loss), not only write */

/*
 * Start recording a match into path (created or truncated; an existing
 * path that is not a regular file is refused with RPL_EIO, since closing
 * renames the compact form over it). Until
 * rpl_recorder_close() the file is in its growing form: each flush appends
 * what was decided since the last one, so a killed process loses nothing
 * flushed (see rpl_recorder_flush). By default every decision is checked by
 * the rules engine and a refused one is not recorded.
 * RPL_EINVAL (bad info), RPL_EIO, RPL_ENOMEM. Whenever *out is set on
 * failure, rpl_recorder_errmsg() says why: free it all the same.
 */
RPL_API int rpl_recorder_open(rpl_recorder **out, const char *path, const rpl_match_info *info, unsigned flags);

/*
 * Start the next deal from its layout. RPL_EILLEGAL (see rpl_recorder_rule),
 * also in committed mode (rpl_recorder_seed) for a layout that is not the
 * one the seed derives (rule RPL_RULE_LAYOUT).
 */
RPL_API int rpl_recorder_deal(rpl_recorder *rec, const rpl_layout *layout);

/*
 * Committed mode: give the recorder of a match whose info has a commitment
 * the seed committed to (copied; the caller should wipe its own copy when
 * done). From then on rpl_recorder_deal accepts only the derived layouts
 * (rpl_deal_derive), and rpl_recorder_close reveals the seed: the compact
 * form carries it in an R section and stores no layout. May come before
 * the first deal or after any: the layouts recorded so far must be the
 * derived ones. RPL_ESTATE (no commitment in the header, or a seed already
 * given), RPL_EINVAL (not the seed committed to), RPL_EILLEGAL (a layout
 * recorded so far is not the derived one; nothing changes).
 */
RPL_API int rpl_recorder_seed(rpl_recorder *rec, const uint8_t seed[RPL_DEAL_SEED_SIZE]);

/*
 * Record one decision of the seat to move. Checked mode: RPL_EILLEGAL when
 * the engine refuses it, a card not held included (nothing recorded;
 * rpl_recorder_rule and rpl_recorder_errmsg say why). Unchecked mode:
 * RPL_EINVAL when the cards are not where the decision says (a card not in
 * the hand, a meld that does not exist): the log could not express it.
 */
RPL_API int rpl_recorder_action(rpl_recorder *rec, const rpl_action *a);

/* The scores the platform claims for deal (1-based), or for the match (deal 0). */
RPL_API int rpl_recorder_claim(rpl_recorder *rec, int deal, const int32_t score[2]);

/* Write what was recorded since the last flush to the file (and fsync with RPL_RECORD_SYNC). */
RPL_API int rpl_recorder_flush(rpl_recorder *rec);

/*
 * Finish: rewrite the log in its compact form (through a temporary file
 * renamed over path) and close it. The recorder must still be freed.
 */
RPL_API int rpl_recorder_close(rpl_recorder *rec);

/* Mark the log as salvaged by brp recover: its end section says so. */
RPL_API void rpl_recorder_mark_recovered(rpl_recorder *rec);

/* Free the recorder; without close, the file stays in its growing form (as after a crash). */
RPL_API void rpl_recorder_free(rpl_recorder *rec);

/* The game as recorded so far (checked mode), or NULL. Owned by the recorder. */
RPL_API const rpl_game *rpl_recorder_game(const rpl_recorder *rec);
/*
 * The seat whose decision comes next by the card bookkeeping (both modes):
 * after a discard, the next seat, even when the discard emptied the hand (a
 * morto pick-up belongs to the seat that made the last decision). -1 before
 * the first deal.
 */
RPL_API int rpl_recorder_seat(const rpl_recorder *rec);
/* The turn number (1-based, within the deal) a decision of kind would belong to. */
RPL_API int rpl_recorder_turn(const rpl_recorder *rec, int kind);
RPL_API int rpl_recorder_rule(const rpl_recorder *rec);
RPL_API const char *rpl_recorder_errmsg(const rpl_recorder *rec);

/* ---- reader ---- */

typedef struct rpl_reader rpl_reader;

/* What rpl_reader_next() returns. */
enum rpl_event_kind {
	RPL_EV_DEAL = 1,   /* a deal starts: layout, deal */
	RPL_EV_ACTION = 2, /* a decision: action, seat, turn */
	RPL_EV_CLAIM = 3,  /* claimed scores: deal (0 = match), score */
	RPL_EV_END = 4,    /* the recording was closed (E section) */
	RPL_EV_REVEAL = 5  /* the committed seed is revealed (R section): seed */
};

typedef struct rpl_event {
	int kind;           /* enum rpl_event_kind */
	int deal;           /* 1-based deal number (claims: 0 for the match) */
	int turn;           /* ACTION: turn number within the deal, 1-based */
	int seat;           /* ACTION: the seat that decided */
	rpl_action action;  /* ACTION */
	rpl_layout layout;  /* DEAL */
	int32_t score[2];   /* CLAIM */
	int recovered;      /* END: 1 if written by brp recover */
	uint8_t seed[RPL_DEAL_SEED_SIZE]; /* REVEAL: the seed, as the log holds it (unchecked) */
	uint64_t offset;    /* byte offset of the section the event comes from */
} rpl_event;

/*
 * Open a log file, or a buffer of len bytes (copied), and read its header.
 * On RPL_ECORRUPT, RPL_EUNSUPPORTED, RPL_EIO or RPL_ELIMIT, *out is still
 * set so that rpl_reader_errmsg/rpl_reader_offset can say why: free it.
 */
RPL_API int rpl_reader_open(rpl_reader **out, const char *path);
RPL_API int rpl_reader_open_memory(rpl_reader **out, const void *data, size_t len);
RPL_API void rpl_reader_free(rpl_reader *rd);

/*
 * The next event: returns 1 with *ev filled, 0 at the end of the log, or a
 * negative error (RPL_ECORRUPT with the byte offset in rpl_reader_offset,
 * RPL_EUNSUPPORTED for a newer required section, RPL_EIO).
 */
RPL_API int rpl_reader_next(rpl_reader *rd, rpl_event *ev);

/* The header. rpl_match_info strings and rules live as long as rd. */
RPL_API const rpl_match_info *rpl_reader_info(const rpl_reader *rd);
RPL_API int rpl_reader_format_version(const rpl_reader *rd);
/* Byte offset of the last failure (or of the section being read). */
RPL_API uint64_t rpl_reader_offset(const rpl_reader *rd);
RPL_API const char *rpl_reader_errmsg(const rpl_reader *rd);
/* Bytes of the file read so far, and the number of sections. */
RPL_API uint64_t rpl_reader_bytes(const rpl_reader *rd);

/* ---- verification ---- */

enum rpl_verdict_kind {
	RPL_VERDICT_OK = 0,
	RPL_VERDICT_ILLEGAL = 1,
	RPL_VERDICT_MISMATCH = 2,
	RPL_VERDICT_INCOMPLETE = 3,
	RPL_VERDICT_MALFORMED = 4
};

typedef struct rpl_verdict {
	int kind;              /* enum rpl_verdict_kind */
	char message[320];     /* one line: the rule message, the mismatch, the damage */
	/* where: the deal, turn (1-based) and seat of an illegal decision or where the log stops */
	int deal, turn, seat;
	rpl_action action;     /* ILLEGAL: the decision refused */
	int rule;              /* ILLEGAL: enum rpl_rule */
	int side;              /* MISMATCH: the side whose claim differs */
	int claim_deal;        /* MISMATCH: the deal claimed (0 = the match total) */
	int32_t claimed, computed;
	rpl_score breakdown;   /* MISMATCH: the recomputed breakdown (deal claims) */
	uint64_t offset;       /* MALFORMED: byte offset of the damage */
	/* what was replayed */
	int deals, actions;
	int32_t total[2];
	int winner;            /* -1 unless the match is over */
	int recovered;
	uint64_t bytes;        /* the log's size: the bytes read (0 when it could not be read) */
	int deal_commitment;   /* enum rpl_deal_commitment */
	uint8_t commitment[RPL_DEAL_COMMIT_SIZE]; /* not NONE: the commitment the log holds or its seed hashes to */
	int deal_mismatch;     /* DEAL_MISMATCH: the first deal not derived from the seed; 0: the seed itself */
} rpl_verdict;

/*
 * What a log proves of its deals (docs/format.md 16.4). A MISMATCH makes
 * the verdict RPL_VERDICT_MISMATCH whatever else the log holds (unless it
 * is malformed): the deals are not those committed.
 */
enum rpl_deal_commitment {
	RPL_DEAL_NONE = 0,       /* no commitment: the layouts are as the log says */
	RPL_DEAL_UNREVEALED = 1, /* committed, the seed not revealed (yet): nothing is proven */
	RPL_DEAL_REVEALED = 2,   /* the seed matches the commitment and derives every layout */
	RPL_DEAL_MISMATCH = 3    /* the seed does not match the commitment, or a layout is not derived */
};

/* "none", "unrevealed", "revealed", "mismatch". */
RPL_API const char *rpl_deal_commitment_name(int status);

/* The verdict's name: "ok", "illegal", "mismatch", "incomplete", "malformed". */
RPL_API const char *rpl_verdict_name(int kind);

/*
 * Replay a log through the engine and judge it. rules: NULL to use the
 * rules the log carries, or rules to impose. Returns 0 with *out filled
 * whatever the verdict (a damaged file is a verdict, malformed, not an
 * error); RPL_EIO when the file cannot be opened or read (out->message says
 * why), RPL_EINVAL, RPL_ENOMEM.
 */
RPL_API int rpl_verify_file(const char *path, const rpl_rules *rules, rpl_verdict *out);
RPL_API int rpl_verify_reader(rpl_reader *rd, const rpl_rules *rules, rpl_verdict *out);

/*
 * An observer of verification, for a caller that derives its own figures
 * from a log in the same pass that judges it (one decode, one replay):
 * brp stats and the export use it. Either function may be NULL.
 *   before  a decision is about to be applied; g is the game before it
 *   after   a deal was dealt, or a decision was applied (both legal); g is
 *           the game after it
 * ev and g belong to the verifier: read them during the call, keep
 * neither. A function that returns non-zero stops verification, which
 * returns that value; *out is then not a verdict.
 */
typedef struct rpl_verify_observer {
	void *ctx;
	int (*before)(void *ctx, const rpl_event *ev, const rpl_game *g);
	int (*after)(void *ctx, const rpl_event *ev, const rpl_game *g);
} rpl_verify_observer;

/* rpl_verify_file() and rpl_verify_reader(), calling obs (may be NULL) along the way. */
RPL_API int rpl_verify_file_observe(const char *path, const rpl_rules *rules, rpl_verdict *out,
                                    const rpl_verify_observer *obs);
RPL_API int rpl_verify_reader_observe(rpl_reader *rd, const rpl_rules *rules, rpl_verdict *out,
                                      const rpl_verify_observer *obs);

/* ---- salvage ---- */

/* What rpl_recover() kept and cut. */
typedef struct rpl_recover_report {
	int deals;              /* deals kept (the last may be unfinished) */
	int actions;            /* decisions kept */
	int claims;             /* claims kept */
	int dropped_actions;    /* decisions of an unfinished last turn that were cut */
	uint64_t read_bytes;    /* bytes of the input that were whole */
	uint64_t total_bytes;   /* bytes of the input */
	int damaged;            /* 1 when reading stopped at damage or a cut, 0 at a clean end */
	char message[320];      /* one line: what was cut and why */
} rpl_recover_report;

/*
 * Salvage every complete turn of a damaged or unfinished log in into a
 * valid, closed log out (written as out ".part~" and renamed over out once
 * closed, so that a failure leaves out as it was; an existing out that is
 * not a regular file is refused with RPL_EIO; its end section is marked
 * recovered). Reading stops at the first damaged or missing byte;
 * decisions after the last complete turn are cut. Returns 0 with *rep
 * filled, RPL_ECORRUPT when not even the header can be read (nothing to
 * salvage; rep->message says why), RPL_EIO, RPL_ENOMEM.
 */
RPL_API int rpl_recover(const char *in, const char *out, rpl_recover_report *rep);

#ifdef __cplusplus
}
#endif

#endif
