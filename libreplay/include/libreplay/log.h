/*
 * Match logs (.brp): the recorder that writes them, the streaming reader
 * that reads them back, and verification (replaying a log through the
 * rules engine). The byte layout is specified in docs/format.md.
 *
 * Ownership: every handle is made by its open function (rpl_recorder_open,
 * rpl_recorder_open_sink, rpl_recorder_open_memory, rpl_reader_open,
 * rpl_reader_open_memory, rpl_reader_open_fd), owned by the caller and
 * released by its free function (which accepts NULL). An open that fails
 * may still set *out, to a handle that says why: free it all the same
 * (docs/conventions.md, section 2). Strings returned by a handle live as
 * long as the handle. Errors: functions return 0 or a negative enum
 * rpl_error; the _errmsg() functions give the last failure's one-line
 * detail, which never names the path the caller gave. Threads: a handle is
 * used by one thread at a time; different handles at once.
 */
#ifndef LIBREPLAY_LOG_H
#define LIBREPLAY_LOG_H

#include "libreplay/common.h"
#include "libreplay/card.h"
#include "libreplay/rules.h"
#include "libreplay/game.h"
#include "libreplay/deal.h"
#include "libreplay/sign.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Limits a reader enforces before allocating (docs/format.md, section 10, "Limits"). */
#define RPL_MAX_NAME 256           /* bytes of a player name */
#define RPL_MAX_META 64            /* metadata entries */
#define RPL_MAX_META_TEXT 1024     /* bytes of a metadata key or value */
#define RPL_MAX_SECTION (1u << 20) /* bytes of a section payload */
#define RPL_MAX_DEALS 10000        /* deals in one match */
/*
 * The start time a header may hold, when known (not 0): the years 0000 to
 * 9999, 0000-01-01T00:00:00Z to 9999-12-31T23:59:59Z, which the notation and
 * the export write as dates. A recorder refuses another (RPL_EINVAL), a
 * reader refuses it as corrupt.
 */
#define RPL_MIN_START_TIME (-62167219200LL) /* 0000-01-01T00:00:00Z */
#define RPL_MAX_START_TIME 253402300799LL   /* 9999-12-31T23:59:59Z */
/*
 * Limits of a match that both sides enforce, so that no writer makes a log
 * its reader refuses and the work a log can cause stays bounded (docs/format.md
 * section 10, docs/security.md "Limits"). The recorder refuses past them
 * (RPL_ELIMIT, nothing recorded); the reader refuses the section that
 * passes them (RPL_ELIMIT from rpl_reader_next, at that section's offset).
 *
 * RPL_MAX_DECISIONS: decisions in one match, the decision counts of its D
 * and A sections added up. The recorder keeps each decision (32 bytes) to
 * write the compact form, so its memory stays under about 128 MiB; every
 * reader's work is linear in them (a replay, a salvage, an export with its
 * decisions). A deal longer than a section may hold (RPL_MAX_SECTION
 * decisions or bytes) goes on in continuation sections.
 *
 * RPL_MAX_CLAIMS: claims in one match. A real match has one or two a deal
 * (the deal's score, a running total) and one for the match: at most
 * twice RPL_MAX_DEALS and one, 20 001. 65 536 leaves three times that for
 * corrections and claims made again, and keeps what a reader holds of them
 * (12 bytes a claim in the match identity and the verifier) under 1 MiB.
 */
#define RPL_MAX_DECISIONS (1u << 22) /* decisions in one match: 4 194 304 */
#define RPL_MAX_CLAIMS (1u << 16)    /* claims in one match: 65 536 */

/* A header flag (rpl_reader_flags): the log is signed; its signature sections are to be found in it. */
#define RPL_LOG_SIGNED 1u

/* A match identity: 64 lower-case hex digits and a NUL (docs/format.md section 17). */
#define RPL_MATCH_ID_SIZE 65

/* What a match log's header says. Plain data; strings are borrowed. */
typedef struct rpl_match_info {
	const rpl_rules *rules; /* the rules played, every parameter */
	int nplayers;           /* 2 or 4 */
	const char *players[4]; /* names by seat; NULL or "" for unnamed */
	int first_dealer;       /* seat */
	int64_t start_time;     /* seconds since 1970-01-01 UTC; 0 unknown; RPL_MIN_START_TIME.. */
	size_t nmeta;           /* free-form metadata: platform, table id... */
	const char *const *meta_keys;
	const char *const *meta_values;
	/*
	 * A committed deal (docs/format.md, sections 15 and 16): the commitment
	 * to the platform's seed (RPL_DEAL_COMMIT_SIZE bytes), NULL when the
	 * layouts are dealt freely; and the seeds the players added.
	 */
	const uint8_t *commitment;
	int nplayer_seeds; /* 0..RPL_DEAL_MAX_PLAYER_SEEDS; under RPL_COMMIT_V2 at most nplayers */
	const uint8_t (*player_seeds)[RPL_DEAL_SEED_SIZE];
	/*
	 * The committed deal's protocol (deal.h): 0 or RPL_COMMIT_V2, the
	 * current one (format versions 4 and 5: the commitment binds the
	 * match's terms; a recorder writes the players' seeds sorted);
	 * RPL_COMMIT_V1 to re-write a log of format version 3. A reader gives
	 * the log's.
	 */
	int commit_version;
} rpl_match_info;

/* ---- recorder ---- */

/*
 * A match being recorded: an opaque handle, made by rpl_recorder_open (into a
 * file), rpl_recorder_open_sink (through the caller's callbacks) or
 * rpl_recorder_open_memory (into memory). The three write the same bytes for
 * the same match: the growing form at each flush, the compact form at close
 * (docs/format.md, section 11).
 */
typedef struct rpl_recorder rpl_recorder;

/* Flags for rpl_recorder_open(). */
#define RPL_RECORD_UNCHECKED 1u /* do not run the rules engine: record any decision the cards allow */
#define RPL_RECORD_SYNC 2u      /* flush with fsync (survives power loss), not only write; a sink's flush gets sync 1 */

/*
 * Start recording a match into path (created or truncated; an existing
 * path that is not a regular file is refused with RPL_EIO, since closing
 * renames the compact form over it, and so is a symbolic link, which would
 * make the log another file's: "a symbolic link, not a regular file"). Until
 * rpl_recorder_close() the file is in its growing form: each flush appends
 * what was decided since the last one, so a killed process loses nothing
 * flushed (see rpl_recorder_flush). By default every decision is checked by
 * the rules engine and a refused one is not recorded. info is copied (its
 * names, metadata and rules may be freed after the call).
 * Returns 0 with *out owned by the caller (rpl_recorder_free); RPL_EINVAL
 * for a NULL argument, more than RPL_MAX_META entries or a header the
 * format cannot hold, or (checked mode) a table size the rules do not
 * allow; RPL_EIO when path cannot be created or written (the message is
 * the system's reason, or "not a regular file"); RPL_ENOMEM. Whenever
 * *out is set on failure, rpl_recorder_errmsg() says why: free it all the
 * same.
 */
RPL_API int rpl_recorder_open(rpl_recorder **out, const char *path, const rpl_match_info *info, unsigned flags);

/*
 * rpl_recorder_open() that signs as it writes: every flush ends with a
 * signature section over every byte of the file so far (the BLAKE2b state
 * goes on from flush to flush: nothing is hashed twice), so a killed
 * recording leaves a signed prefix; the compact form written by
 * rpl_recorder_close() ends with one signature over the whole log. key is
 * borrowed: it must outlive the recorder. key NULL: rpl_recorder_open().
 */
RPL_API int rpl_recorder_open_signed(rpl_recorder **out, const char *path, const rpl_match_info *info, unsigned flags,
                                     const rpl_seckey *key);

/*
 * Where a recorder made by rpl_recorder_open_sink writes: a database row, an
 * object store, a socket. Each function takes ctx first and returns 0 when it
 * did its part, anything else when it failed; the recorder then returns
 * RPL_EIO (its message names the callback: "the sink's write failed"), and
 * the sink's own reason is for the sink to keep in ctx. The callbacks are
 * called on the thread that called the recorder, during that call, and only
 * from rpl_recorder_open_sink, rpl_recorder_flush and rpl_recorder_close.
 *   write    required. Append len (>= 1) bytes to the log: after the first
 *            write (the magic and the header, at open) each call carries
 *            what one flush adds, whole sections ending at a section
 *            boundary (with a key, the flush's signature last). The log is
 *            the concatenation of every write, in order: a sink that stores
 *            each call as a chunk of its own rebuilds it by concatenating
 *            them. data is lent for the call.
 *   flush    may be NULL. Called after each write: make what was written
 *            durable as far as the sink can (commit a transaction, fsync).
 *            sync is 1 when the recorder was opened with RPL_RECORD_SYNC.
 *   replace  may be NULL. Called once by a successful rpl_recorder_close,
 *            with the compact form: replace the whole log by these len
 *            bytes, atomically (the sink holds either the growing form or
 *            the compact one, never a mix), durably. NULL: the sink keeps the
 *            growing form as last flushed (a valid log, unclosed), and the
 *            caller takes the compact form from rpl_recorder_log and stores
 *            it as it sees fit.
 * The crash-safety promise is that of a file, as far as the callbacks keep
 * it: once rpl_recorder_flush has returned 0, every byte recorded until then
 * has been handed to write, and flush (if any) has returned 0, so a process
 * killed afterwards leaves in the sink a valid log of everything flushed
 * (signed, with a key). A callback that fails ends the recording: the bytes
 * are never handed again (the sink may hold part of them: a log that ends
 * in a cut section, which readers refuse at its offset and rpl_recover
 * salvages); deals, decisions, claims and flushes then fail with
 * RPL_ESTATE; rpl_recorder_close still builds the compact form of all that
 * was recorded and hands it to replace (or to rpl_recorder_log).
 */
typedef struct rpl_recorder_sink {
	void *ctx;                                               /* given to each callback */
	int (*write)(void *ctx, const void *data, size_t len);   /* append to the log */
	int (*flush)(void *ctx, int sync);                       /* make the writes durable; may be NULL */
	int (*replace)(void *ctx, const void *data, size_t len); /* the compact form at close; may be NULL */
} rpl_recorder_sink;

/*
 * rpl_recorder_open_signed() through the callbacks of sink (copied; its ctx
 * must outlive the recorder): the magic and the header are written, and
 * flushed, before it returns. key NULL: unsigned. Returns 0 with *out owned
 * by the caller; RPL_EINVAL for a NULL argument (sink->write included) or
 * a header the format cannot hold (as rpl_recorder_open); RPL_EIO when
 * write or flush failed on the header (the sink may hold part of it:
 * discard it); RPL_ENOMEM. *out is set on failure as for rpl_recorder_open.
 */
RPL_API int rpl_recorder_open_sink(rpl_recorder **out, const rpl_recorder_sink *sink, const rpl_match_info *info,
                                   unsigned flags, const rpl_seckey *key);

/*
 * rpl_recorder_open_signed() into memory, lent by rpl_recorder_log: the log
 * as flushed so far (its growing form), and after rpl_recorder_close its
 * compact form. RPL_RECORD_SYNC changes nothing. Returns as
 * rpl_recorder_open_sink, without RPL_EIO; a flush that runs out of memory
 * returns RPL_ENOMEM and ends the recording as a failing callback does.
 */
RPL_API int rpl_recorder_open_memory(rpl_recorder **out, const rpl_match_info *info, unsigned flags,
                                     const rpl_seckey *key);

/*
 * The log's bytes, lent by rec into *data and *len: a memory recorder's
 * log as flushed so far, and after a successful rpl_recorder_close (for
 * every recorder, a file's and a sink's too) the compact form, exactly the
 * bytes close wrote or handed to replace. What is lent stays valid until
 * the next call that changes rec (a flush or a close; a deal, decision or
 * claim only adds to what the next flush writes) or rpl_recorder_free: copy
 * what you keep. Returns 0; RPL_ESTATE for a file or sink recorder not
 * (successfully) closed; RPL_EINVAL for NULL.
 */
RPL_API int rpl_recorder_log(const uint8_t **data, size_t *len, const rpl_recorder *rec);

/*
 * Start the next deal from its layout (copied). Returns 0; checked mode:
 * RPL_EILLEGAL when the engine refuses the deal (rpl_recorder_rule,
 * rpl_recorder_errmsg); unchecked mode: RPL_EINVAL, rule RPL_RULE_LAYOUT,
 * for a layout that is not the 108-card deck; committed mode
 * (rpl_recorder_seed), in either mode: RPL_EILLEGAL, rule RPL_RULE_LAYOUT,
 * for a layout that is not the one the seed derives; RPL_ELIMIT past
 * RPL_MAX_DEALS deals; RPL_ESTATE once closed or after a failure that
 * ended the recording; RPL_ENOMEM. Nothing is recorded on failure.
 */
RPL_API int rpl_recorder_deal(rpl_recorder *rec, const rpl_layout *layout);

/*
 * Committed mode: give the recorder of a match whose info has a commitment
 * the seed committed to (copied; the caller should wipe its own copy when
 * done). From then on rpl_recorder_deal accepts only the derived layouts
 * (rpl_deal_derive_match, under the match's protocol), and rpl_recorder_close
 * reveals the seed: the compact form carries it in its header and stores no
 * layout. May come before the first deal or after any: the layouts recorded
 * so far must be the derived ones. RPL_ESTATE (no commitment in the header, or a seed already
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
 * Both modes: RPL_ESTATE before the first deal or once closed, RPL_ENOMEM
 * (after which nothing more may be recorded). Returns 0 when recorded.
 */
RPL_API int rpl_recorder_action(rpl_recorder *rec, const rpl_action *a);

/*
 * Record the scores the platform claims for deal (1-based), or for the
 * match (deal 0), side 0 first. They are not checked here: verification
 * compares them. Returns 0; RPL_EINVAL for a NULL argument or a deal out
 * of 0..RPL_MAX_DEALS, RPL_ELIMIT past RPL_MAX_CLAIMS claims in the match
 * or near the reader's file limit (nothing recorded), RPL_ESTATE once
 * closed, RPL_ENOMEM.
 */
RPL_API int rpl_recorder_claim(rpl_recorder *rec, int deal, const int32_t score[2]);

/*
 * Write what was recorded since the last flush to the file (and fsync with
 * RPL_RECORD_SYNC), the sink (write, then flush; nothing is called when
 * nothing was recorded since the last flush) or memory. Returns 0; RPL_EIO
 * (the recording is then over: further deals, decisions and claims fail
 * with RPL_ESTATE; a file recorder tries the append again at its next flush
 * or close, a sink is handed nothing more but the compact form at close:
 * see rpl_recorder_sink), RPL_ESTATE once closed or after a sink's failure,
 * RPL_ENOMEM.
 */
RPL_API int rpl_recorder_flush(rpl_recorder *rec);

/*
 * Finish: flush, then rewrite the log in its compact form and close it. A
 * file: through a new temporary file in path's directory (docs/security.md,
 * "Temporary files"), renamed over path. A sink: the compact
 * form goes to replace, or, without replace, stays for rpl_recorder_log
 * (the sink keeps the growing form). Memory: the compact form replaces the
 * growing one. Either way rpl_recorder_log lends the compact form
 * afterwards. Returns 0; RPL_EIO (path, or the sink, then keeps the
 * growing form as last flushed; close may be tried again), RPL_ESTATE when
 * already closed, RPL_ENOMEM. The recorder must still be freed, and its
 * game (rpl_recorder_game) stays readable until then.
 */
RPL_API int rpl_recorder_close(rpl_recorder *rec);

/* Mark the log as salvaged by brp recover: its end section says so. Nothing for NULL. */
RPL_API void rpl_recorder_mark_recovered(rpl_recorder *rec);

/* Free the recorder; without close, the file or the sink keeps its growing form (as after a crash). */
RPL_API void rpl_recorder_free(rpl_recorder *rec);

/*
 * The game as recorded so far (checked mode), or NULL (unchecked mode, or
 * NULL rec). Lent by the recorder: valid until rpl_recorder_free, after
 * rpl_recorder_close too; it changes with each deal and decision recorded.
 */
RPL_API const rpl_game *rpl_recorder_game(const rpl_recorder *rec);
/*
 * The seat whose decision comes next by the card bookkeeping (both modes):
 * after a discard, the next seat, even when the discard emptied the hand (a
 * morto pick-up belongs to the seat that made the last decision). -1 before
 * the first deal (and for NULL).
 */
RPL_API int rpl_recorder_seat(const rpl_recorder *rec);
/*
 * The turn number (1-based, within the deal) a decision of kind (enum
 * rpl_action_kind) would belong to; 0 before the first deal and for NULL.
 */
RPL_API int rpl_recorder_turn(const rpl_recorder *rec, int kind);
/*
 * The rule (enum rpl_rule) of the last refusal of rpl_recorder_deal or
 * rpl_recorder_action; RPL_RULE_NONE when the last decision was not
 * refused by a rule, and for NULL.
 */
RPL_API int rpl_recorder_rule(const rpl_recorder *rec);
/* The detail of the last failure on rec in one line; "" when none. Lives until the next failure or the free. */
RPL_API const char *rpl_recorder_errmsg(const rpl_recorder *rec);

/* ---- reader ---- */

/* A match log being read, event by event: an opaque handle, see rpl_reader_open. */
typedef struct rpl_reader rpl_reader;

/* What rpl_reader_next() returns. */
enum rpl_event_kind {
	RPL_EV_DEAL = 1,   /* a deal starts: layout, deal */
	RPL_EV_ACTION = 2, /* a decision: action, seat, turn */
	RPL_EV_CLAIM = 3,  /* claimed scores: deal (0 = match), score */
	RPL_EV_END = 4,    /* the recording was closed (E section) */
	RPL_EV_REVEAL = 5  /* the committed seed is revealed (R section): seed */
};

/* One event of a log, as rpl_reader_next() fills it. Plain data: the caller's. */
typedef struct rpl_event {
	int kind;                         /* enum rpl_event_kind */
	int deal;                         /* 1-based deal number (claims: 0 for the match) */
	int turn;                         /* ACTION: turn number within the deal, 1-based */
	int seat;                         /* ACTION: the seat that decided */
	rpl_action action;                /* ACTION */
	rpl_layout layout;                /* DEAL */
	int32_t score[2];                 /* CLAIM */
	int recovered;                    /* END: 1 if written by brp recover */
	uint8_t seed[RPL_DEAL_SEED_SIZE]; /* REVEAL: the seed, as the log holds it (unchecked) */
	uint64_t offset;                  /* byte offset of the section the event comes from */
} rpl_event;

/*
 * Open the log file at path, read it whole into memory and decode its
 * header. Returns 0 with *out owned by the caller (rpl_reader_free);
 * RPL_EIO when the file cannot be opened or read or is not a regular file,
 * RPL_ELIMIT for a file larger than a reader accepts (docs/format.md,
 * section 10, "Limits"), RPL_ECORRUPT for bytes that are not a log's header
 * or for a sealed log (a compact log of version 5 or 6: one checksum for the whole,
 * docs/format.md 19.5) that is damaged or cut anywhere, RPL_EUNSUPPORTED
 * for a newer format, RPL_ENOMEM, RPL_EINVAL for NULL.
 * On every failure but RPL_EINVAL, *out is still set so that
 * rpl_reader_errmsg and rpl_reader_offset can say why: free it.
 */
RPL_API int rpl_reader_open(rpl_reader **out, const char *path);
/*
 * As rpl_reader_open, from len bytes at data (copied: data may be freed
 * after the call): RPL_ELIMIT for more bytes than a reader accepts, and no
 * RPL_EIO. Bytes a caller received from anywhere (a database, a socket, a
 * recorder to memory) are read so.
 */
RPL_API int rpl_reader_open_memory(rpl_reader **out, const void *data, size_t len);
/*
 * As rpl_reader_open, from the file descriptor fd read to its end: a pipe
 * (brp's "--log -" reads standard input so), a socket, a terminal, or a file
 * from its current offset. fd is the caller's: it is read, never closed,
 * and is left wherever reading stopped. The call blocks until the stream
 * ends (a descriptor set non-blocking fails with RPL_EIO when no byte is
 * ready). At most one byte more than a reader accepts is read: a longer
 * stream is refused with RPL_ELIMIT and the rest of it is left unread.
 * Returns as rpl_reader_open: RPL_EIO for a read error (the message is the
 * system's reason), RPL_EINVAL for NULL or a negative fd; *out is set on
 * every failure but RPL_EINVAL.
 */
RPL_API int rpl_reader_open_fd(rpl_reader **out, int fd);
/* Free a reader; NULL is accepted. */
RPL_API void rpl_reader_free(rpl_reader *rd);

/*
 * The next event: returns 1 with *ev filled, 0 at the end of the log, or a
 * negative error (RPL_ECORRUPT with the byte offset in rpl_reader_offset,
 * RPL_EUNSUPPORTED for a newer required section, RPL_ELIMIT for a section
 * that takes the match past RPL_MAX_DECISIONS decisions or RPL_MAX_CLAIMS
 * claims, refused whole at its offset; RPL_EINVAL for NULL).
 * After an error every further call returns the same error.
 */
RPL_API int rpl_reader_next(rpl_reader *rd, rpl_event *ev);

/*
 * The header; NULL when it could not be read (a failed open) or for NULL.
 * Lent by rd: the info, its strings and its rules live as long as rd.
 */
RPL_API const rpl_match_info *rpl_reader_info(const rpl_reader *rd);
/*
 * The format version the log's header declares (docs/format.md): 2 to 7 (a
 * recorder writes 7 for a match dealt freely, 6 for a committed one of
 * protocol 2, 3 for protocol 1); 0 when unknown or for NULL.
 */
RPL_API int rpl_reader_format_version(const rpl_reader *rd);
/*
 * Of the deal of the last RPL_EV_DEAL event rpl_reader_next gave: how many
 * cards of the stock (recorded[0]) and of morto 0 and 1 (recorded[1], [2])
 * its layout gives in the order they were dealt, from the top; the rest of
 * each pile is in no order the match showed (ascending). Versions 2 to 6
 * record every pile whole (the stock's size, 11, 11); version 7 only the
 * order play revealed (docs/format.md 21.2): the cards drawn from the
 * stock, and from a morto once it became the stock (a morto picked up
 * whole: 0). Returns 0; RPL_ESTATE before the first deal event; RPL_EINVAL
 * for NULL.
 */
RPL_API int rpl_reader_deal_recorded(const rpl_reader *rd, int recorded[3]);
/* Byte offset of the last failure; 0 when none and for NULL. */
RPL_API uint64_t rpl_reader_offset(const rpl_reader *rd);
/* The detail of the last failure in one line ("byte 296: ..."); "" when none. Lives as long as rd. */
RPL_API const char *rpl_reader_errmsg(const rpl_reader *rd);
/*
 * The header's flags (format versions 4 and 5, docs/format.md section 18.1):
 * RPL_LOG_SIGNED when the log says of itself that it is signed, so that a
 * copy whose signatures were cut off reads as such (a signing recorder and
 * rpl_sign_log set it). 0 for earlier versions, and before or after a
 * header that could not be read.
 */
RPL_API unsigned rpl_reader_flags(const rpl_reader *rd);
/* The size of the log in bytes (the whole file is read at open); 0 for NULL. */
RPL_API uint64_t rpl_reader_bytes(const rpl_reader *rd);
/* 1 once the end section (E) has been read: the recording was closed. */
RPL_API int rpl_reader_closed(const rpl_reader *rd);
/*
 * The match identity (docs/format.md section 17): BLAKE2b-256 of the
 * match's content (the header's fields, every layout, decision and claim,
 * decoded), the same for every byte-variant of one match, into out as 64
 * lower-case hex digits. Known once rpl_reader_next() has returned 0: then
 * 0. RPL_ESTATE before the end of the log; after a reading error, that
 * error (a log that does not decode to its end has no identity).
 */
RPL_API int rpl_reader_match_id(const rpl_reader *rd, char out[RPL_MATCH_ID_SIZE]);

/* ---- verification ---- */

/* The verdict on a log (see rpl_verify_file); rpl_verdict_name gives its word. */
enum rpl_verdict_kind {
	RPL_VERDICT_OK = 0,
	RPL_VERDICT_ILLEGAL = 1,
	RPL_VERDICT_MISMATCH = 2,
	RPL_VERDICT_INCOMPLETE = 3,
	RPL_VERDICT_MALFORMED = 4,
	RPL_VERDICT_TAMPERED = 5, /* a signature does not verify: signature.offset, .covered */
	RPL_VERDICT_UNTRUSTED = 6 /* trusted keys were given and no trusted signature covers the
	                              whole log (signature says why), or the header declares the
	                              log signed and no signature covers its end; whatever the
	                              replay found: replay says what it found */
};

/* The judgement of one log. Plain data, the caller's; the fields that apply depend on kind. */
typedef struct rpl_verdict {
	int kind;                      /* enum rpl_verdict_kind */
	char message[RPL_ERRMSG_SIZE]; /* one line: the rule message, the mismatch, the damage */
	/* where: the deal, turn (1-based) and seat of an illegal decision or where the log stops */
	int deal, turn, seat;
	rpl_action
			action; /* ILLEGAL: the decision refused, or (rule turn.dead_end) the one that left its turn no legal end */
	int rule;       /* ILLEGAL: enum rpl_rule */
	int side;       /* MISMATCH: the side whose claim differs */
	int claim_deal; /* MISMATCH: the deal claimed (0 = the match total) */
	int32_t claimed, computed;
	rpl_score breakdown; /* MISMATCH: the recomputed breakdown (deal claims) */
	uint64_t offset;     /* MALFORMED: byte offset of the damage */
	/* what was replayed */
	int deals, actions;
	int32_t total[2];
	int winner; /* -1 unless the match is over */
	int recovered;
	uint64_t bytes;                           /* the log's size: the bytes read (0 when it could not be read) */
	int deal_commitment;                      /* enum rpl_deal_commitment */
	uint8_t commitment[RPL_DEAL_COMMIT_SIZE]; /* not NONE: the commitment the log holds or its seed hashes to */
	int deal_mismatch; /* DEAL_MISMATCH: the first deal not derived from the seed; 0: the seed itself */
	/* what the log's signature sections cover (sign.h), whatever the verdict */
	rpl_signature_report signature;
	/*
	 * What the log is, whatever its verdict. closed: 1 when it has its end
	 * section (E); an unclosed log may lack what was recorded after its last
	 * section (claims, the end of a deal). match_id: the match identity
	 * (rpl_reader_match_id), "" when the log does not decode to its end
	 * (malformed; or illegal and damaged after the illegal decision).
	 */
	int closed;
	char match_id[RPL_MATCH_ID_SIZE];
	/*
	 * A committed match (deal_commitment not NONE): the players' seeds its
	 * header holds, and its protocol (deal.h: RPL_COMMIT_V1 for format
	 * version 3, RPL_COMMIT_V2). Fewer player seeds than players: the deals
	 * are only as fair as the platform (it could choose its seed freely);
	 * under RPL_COMMIT_V1 too, whose commitment binds the seed alone.
	 * players: the table's size, to compare player_seeds with.
	 */
	int player_seeds;
	int commit_version;
	int players;
	/*
	 * What the replay found, before the signatures were judged: replay is its
	 * kind (OK to MALFORMED; deal, turn, rule... above say where and why),
	 * the same as kind unless kind is TAMPERED or UNTRUSTED, where it is a
	 * detail, never the verdict. replay_offset: the byte offset of the last
	 * section the finding rests on (an illegal decision's or deal's section;
	 * a wrong claim's, or the end of the deal it claims; the damage; the last
	 * section read for OK, INCOMPLETE and a deal MISMATCH). replay_trusted:
	 * 1 when that section lies in the bytes a trusted key covers
	 * (signature.trusted_covered): only then does a line name the seat of
	 * an illegal decision. replay_message: the replay's own message, which
	 * message replaces for TAMPERED and UNTRUSTED.
	 */
	int replay;
	int replay_trusted;
	uint64_t replay_offset;
	char replay_message[RPL_ERRMSG_SIZE];
	int keys; /* the number of trusted keys verification was given (0: none) */
	/*
	 * The header's flags (rpl_reader_flags). A log whose header declares it
	 * signed (RPL_LOG_SIGNED) and whose end no valid signature covers
	 * (signature.status UNSIGNED or PARTIAL: its signatures cut off, or bytes
	 * after them) is UNTRUSTED even without keys.
	 */
	unsigned header_flags;
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

/* The verdict's name: "ok", "illegal", "mismatch", "incomplete", "malformed", "tampered", "untrusted"; "unknown" otherwise. Static storage. */
RPL_API const char *rpl_verdict_name(int kind);

/*
 * The verdict in one line, as brp verify prints it after the path
 * ("illegal: deal 1, turn 11, seat 3: take: pile.frozen: KZV: ..."), into buf
 * (NUL-terminated, truncated to size): "unclosed" after the verdict's name
 * for a log without its end section, and the signer's key (its id and its
 * fingerprint) at the end of a signed log's line. An untrusted verdict's
 * line says what the trusted keys cover, who signed the rest, and what the
 * replay found, with an illegal decision's seat and cards only when a
 * trusted key signs them. Returns the length the whole line needs, like
 * snprintf. Every consumer that shows a verdict (brp verify,
 * brp view) takes it from here, so that they say the same.
 */
RPL_API size_t rpl_verdict_format(const rpl_verdict *v, char *buf, size_t size);

/*
 * Replay a log through the engine and judge it. rules: NULL to use the
 * rules the log carries, or rules to impose. Returns 0 with *out filled
 * whatever the verdict (a damaged file is a verdict, malformed, not an
 * error); RPL_EIO when the file cannot be opened or read (out->message says
 * why, without the path), RPL_EINVAL, RPL_ENOMEM. rules is only read.
 */
RPL_API int rpl_verify_file(const char *path, const rpl_rules *rules, rpl_verdict *out);
/*
 * As rpl_verify_file, on a reader the caller opened (rd is read to its end,
 * and stays the caller's to free); a reader whose open failed gives the
 * verdict malformed.
 */
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

/* rpl_verify_file(), calling obs (may be NULL) along the way, on the calling thread. */
RPL_API int rpl_verify_file_observe(const char *path, const rpl_rules *rules, rpl_verdict *out,
                                    const rpl_verify_observer *obs);
/* rpl_verify_reader(), calling obs (may be NULL) along the way, on the calling thread. */
RPL_API int rpl_verify_reader_observe(rpl_reader *rd, const rpl_rules *rules, rpl_verdict *out,
                                      const rpl_verify_observer *obs);

/*
 * Verification that also judges the log's signatures against trusted keys
 * (NULL or empty: none, and then no log is untrusted). Every verification
 * checks the signature sections (out->signature): a signature that does not
 * verify makes the verdict TAMPERED, whatever the replay found, malformed
 * included. With trusted keys, a log is UNTRUSTED unless a trusted key
 * covers every byte of it (signature.trusted; a countersignature by another
 * key after it aside), whatever the replay found: that stays in replay (and
 * deal, turn, rule...), a detail, with replay_trusted saying whether it lies
 * in the trusted bytes. With or without keys, a log whose header declares
 * it signed (header_flags) and whose end no valid signature covers is
 * UNTRUSTED too. rpl_verify_file() and the others are these with trusted
 * NULL.
 */
RPL_API int rpl_verify_file_trusted(const char *path, const rpl_rules *rules, const rpl_keyring *trusted,
                                    rpl_verdict *out, const rpl_verify_observer *obs);
/* The same for a log already opened (rd stays the caller's). */
RPL_API int rpl_verify_reader_trusted(rpl_reader *rd, const rpl_rules *rules, const rpl_keyring *trusted,
                                      rpl_verdict *out, const rpl_verify_observer *obs);

/* ---- salvage ---- */

/* What rpl_recover() kept and cut. */
typedef struct rpl_recover_report {
	int deals;                     /* deals kept (the last may be unfinished) */
	int actions;                   /* decisions kept */
	int claims;                    /* claims kept */
	int dropped_actions;           /* decisions of an unfinished last turn that were cut (not kept_signed) */
	uint64_t read_bytes;           /* bytes of the input that were whole */
	uint64_t total_bytes;          /* bytes of the input */
	int damaged;                   /* 1 when reading stopped at damage or a cut, 0 at a clean end */
	int output;                    /* on failure: 1 when writing out failed, 0 when reading in did */
	int closed;                    /* 1 when in is whole and closed: nothing was salvaged or written */
	char message[RPL_ERRMSG_SIZE]; /* one line: what was cut and why, or why the call failed */
	/*
	 * A signed input (docs/security.md, "Signed logs"). kept_signed: 1 when
	 * out is the input's bytes 0..covered, verbatim, up to and including
	 * its last valid signature section, which so covers every byte of out;
	 * the counts above are then of those bytes, and out is closed only if
	 * they hold the end section (out_closed).
	 */
	int kept_signed;
	uint64_t covered;        /* kept_signed: the bytes kept, the signature included */
	rpl_pubkey key;          /* kept_signed: the key of that signature */
	int uncovered_actions;   /* kept_signed: decisions after it, cut: no signature covers them */
	uint64_t invalid_offset; /* a signature that does not verify, at this offset (0: none): kept_signed
	                            keeps only what a valid signature before it covers */
	int out_closed;          /* out has an end section */
} rpl_recover_report;

/* rpl_recover flag: re-encode even a signed log, closed and unsigned, as for an unsigned one. */
#define RPL_RECOVER_UNSIGNED 1u

/*
 * Salvage a damaged or unfinished log in into a valid log out (written to
 * a new temporary file in out's directory and renamed over out once whole,
 * so that a failure leaves out as it was; an existing out that is not a
 * regular file, or is a symbolic link, is refused with RPL_EIO). Reading
 * stops at the first damaged or missing byte, or at a section past the
 * reader's limits.
 *
 * A log with a valid signature (unless flags has RPL_RECOVER_UNSIGNED) is
 * kept signed: out is its bytes verbatim up to and including its last valid
 * signature section that reads without damage (before a signature that
 * does not verify, if any), so that signature covers the whole of out; the
 * rest is cut (rep->kept_signed, covered, key, uncovered_actions). Out is
 * then unclosed unless those bytes hold the end section, and is not marked
 * recovered (the signed bytes say what they say).
 *
 * Otherwise every complete turn is recorded again into a closed log whose
 * end section is marked recovered, unsigned; decisions after the last
 * complete turn are cut. A log that is whole and closed (read to its end
 * section without damage) needs no salvage: 0 with rep->closed set, and out
 * is neither written nor touched. Returns 0 with *rep filled, RPL_ECORRUPT
 * when not even the header can be read (nothing to salvage; rep->message
 * says why), RPL_EIO (rep->output), RPL_ELIMIT (re-encoded, the log would
 * pass a recorder's limit: rep->output), RPL_ENOMEM. The memory it takes is
 * the input's bytes and, re-encoding, what a recorder keeps of the match
 * (32 bytes a decision), never the events read.
 */
RPL_API int rpl_recover(const char *in, const char *out, unsigned flags, rpl_recover_report *rep);
/*
 * As rpl_recover, on a log the caller opened (rpl_reader_open_fd: a log
 * read from a pipe; rpl_reader_open_memory), before any rpl_reader_next:
 * the same salvage of the same bytes. A reader whose open failed has
 * nothing to salvage (RPL_ECORRUPT). rd is read to its end and stays the
 * caller's to free.
 */
RPL_API int rpl_recover_reader(rpl_reader *rd, const char *out, unsigned flags, rpl_recover_report *rep);

#ifdef __cplusplus
}
#endif

#endif
