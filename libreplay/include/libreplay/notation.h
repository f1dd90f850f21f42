/*
 * The text notation of a match (docs/notation.md): a line-oriented text,
 * like PGN for chess, that holds everything a match log (.brp) holds: the
 * header as [Tag "value"] lines, each deal's layout, each turn's decisions
 * as one line ("12. 3: take, meld 5h 6h 7h, discard Kd"), the claimed scores
 * and the end of the recording.
 *
 *   rpl_notation_write()  a log, read through an rpl_reader, as canonical text
 *   rpl_notation_import() a whole text into a .brp (recorded unchecked)
 *   rpl_notation_parser   the streaming parser behind import, one line at a
 *                         time, for programs that read a match as it is
 *                         played (brp record); rpl_notation_record() hands a
 *                         parsed line to an rpl_recorder.
 *
 * Errors: functions return 0 or a negative enum rpl_error. Syntax errors are
 * RPL_EPARSE; their one-line detail names the line and the column
 * ("line 12, column 9: unknown decision 'drwa'"). Columns count characters
 * (UTF-8 code points), from 1.
 */
#ifndef LIBREPLAY_NOTATION_H
#define LIBREPLAY_NOTATION_H

#include "libreplay/common.h"
#include "libreplay/card.h"
#include "libreplay/game.h"
#include "libreplay/log.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the notation this library reads and writes ([Notation "1"]). */
#define RPL_NOTATION_VERSION 1

/*
 * Decisions one turn line may hold. A turn with more decisions is written
 * on several lines with the same "N. S:" prefix (a turn line may always be
 * continued on the next one).
 */
#define RPL_NOTATION_MAX_ACTIONS 128
/*
 * Bytes one line may hold, its line break excluded (docs/security.md,
 * "Limits"). The writer's longest line (a turn of 128 decisions, a [Meta]
 * tag of two 1024-byte values all escaped) is under 9 KiB; a longer line
 * is refused (RPL_ELIMIT), and a reader of lines need never keep more.
 */
#define RPL_NOTATION_MAX_LINE 65536
/* Cards a layout line may hold: the stock of a 2-player deal. */
#define RPL_NOTATION_MAX_CARDS RPL_STOCK_SIZE(2)

/* What one line of notation holds. */
enum rpl_notation_kind {
	RPL_NOTATION_BLANK = 0, /* nothing: white space and/or a ; comment */
	RPL_NOTATION_TAG = 1,   /* [Name "value" ...] */
	RPL_NOTATION_DEAL = 2,  /* deal N */
	RPL_NOTATION_HAND = 3,  /* hand S: 11 cards */
	RPL_NOTATION_MORTO = 4, /* morto I: 11 cards */
	RPL_NOTATION_STOCK = 5, /* stock: 42 or 64 cards */
	RPL_NOTATION_TURN = 6,  /* N. S: decision, decision, ... */
	RPL_NOTATION_CLAIM = 7, /* claim N: A B  /  claim match: A B */
	RPL_NOTATION_END = 8,   /* end  /  end recovered */
	RPL_NOTATION_SEED = 9   /* seed HEX: a committed match's seed revealed (64 hex digits) */
};

/*
 * One parsed line. Plain data filled by rpl_notation_parser_line(); the
 * strings are owned by the parser and live until its next call.
 */
typedef struct rpl_notation_item {
	int kind; /* enum rpl_notation_kind */
	int line; /* 1-based line number */
	/* TAG: the tag's canonical name ("Rule") and its values, unescaped */
	const char *tag;
	int nvalues;          /* 1 or 2 */
	const char *value[2]; /* NUL-terminated (escapes cannot make a NUL) */
	int value_column[2];  /* where each value's opening quote is */
	/* DEAL: the deal number; HAND: the seat; MORTO: 0 or 1;
	 * CLAIM: the deal (0: the match); TURN: the turn number, 0 when not written */
	int number;
	int seat;         /* TURN: the seat that decides */
	int seat_column;  /* TURN: where the seat is written */
	int recovered;    /* END: "end recovered" */
	int32_t score[2]; /* CLAIM: side 0, side 1 */
	size_t ncards;    /* HAND, MORTO, STOCK: the cards in the order written */
	rpl_card cards[RPL_NOTATION_MAX_CARDS];
	size_t nactions; /* TURN: the decisions, in order */
	rpl_action actions[RPL_NOTATION_MAX_ACTIONS];
	int column[RPL_NOTATION_MAX_ACTIONS]; /* TURN: where each decision starts */
	uint8_t seed[32];                     /* SEED: the seed's bytes */
} rpl_notation_item;

/*
 * The streaming parser: an opaque handle, fed one line at a time by one
 * thread at a time; different parsers may run at once.
 */
typedef struct rpl_notation_parser rpl_notation_parser;

/*
 * A new parser at line 1. Returns 0 with *out owned by the caller
 * (rpl_notation_parser_free); RPL_EINVAL for a NULL out, RPL_ENOMEM. On
 * failure *out is NULL.
 */
RPL_API int rpl_notation_parser_new(rpl_notation_parser **out);
/* Free a parser; NULL is accepted. */
RPL_API void rpl_notation_parser_free(rpl_notation_parser *p);

/*
 * Parse the next line: len bytes at line, without its line break (a final
 * "\n" or "\r\n" is ignored; no other control character is accepted). The
 * parser counts lines and checks what may follow what: tags only before the
 * first deal, a deal block as "deal N", one hand line per seat from 0, morto
 * 0, morto 1, stock, and nothing after "end". Returns 0 with *out filled,
 * RPL_EPARSE (nothing changed but the line count; see
 * rpl_notation_parser_errmsg), RPL_EUNSUPPORTED for [Notation] other than
 * "1", RPL_ELIMIT for a line of more than RPL_NOTATION_MAX_LINE bytes
 * (its message quotes 16 bytes of it) or with more than
 * RPL_NOTATION_MAX_ACTIONS decisions, RPL_ENOMEM, RPL_EINVAL for a NULL p
 * or out (or NULL line with len > 0). *out is the caller's; the strings it
 * points to are the parser's, valid until its next call.
 */
RPL_API int rpl_notation_parser_line(rpl_notation_parser *p, const char *line, size_t len, rpl_notation_item *out);

/*
 * The text has ended: 0, or RPL_EPARSE when it ends inside a deal block
 * (rpl_notation_parser_errmsg says what was expected), RPL_EINVAL for NULL.
 * The parser is not to be fed again.
 */
RPL_API int rpl_notation_parser_finish(rpl_notation_parser *p);

/*
 * Hand a parsed line to a recorder, checking it against what was recorded:
 *   DEAL, HAND, MORTO  kept until the layout is complete
 *   STOCK              rpl_recorder_deal() with the completed layout
 *   TURN               the seat written must be the seat to move
 *                      (rpl_recorder_seat) and the turn number, when
 *                      written, the turn in progress; then each decision
 *                      in order through rpl_recorder_action(), stopping at
 *                      the first one refused
 *   CLAIM              rpl_recorder_claim()
 *   BLANK, END         nothing (closing is the caller's business)
 *   TAG                RPL_ESTATE: the header is given to rpl_recorder_open
 * *recorded (may be NULL) is set to the number of decisions recorded.
 * Errors: the recorder's (RPL_EILLEGAL with rpl_recorder_rule, RPL_EINVAL,
 * RPL_EIO...), or RPL_EPARSE for a seat or turn number that does not fit;
 * the detail, in rpl_notation_parser_errmsg, names the line and the column
 * of the decision and carries the recorder's message.
 * nplayers must have been given by a [Players] tag or
 * rpl_notation_parser_set_players().
 */
RPL_API int rpl_notation_record(rpl_notation_parser *p, rpl_recorder *rec, const rpl_notation_item *it,
                                size_t *recorded);

/* The number of players of the match, when no [Players] tag gives it. 0; RPL_EINVAL for NULL p or unless 2 or 4. */
RPL_API int rpl_notation_parser_set_players(rpl_notation_parser *p, int nplayers);

/* The detail of the last failure ("line 3, column 7: ..."); "" when none. Lives until the next failure. */
RPL_API const char *rpl_notation_parser_errmsg(const rpl_notation_parser *p);

/*
 * Where the last failure is: *line and *column (1-based; column 0 when the
 * whole line is meant; both 0 before any failure and for NULL p). Either
 * pointer may be NULL.
 */
RPL_API void rpl_notation_parser_where(const rpl_notation_parser *p, int *line, int *column);

/*
 * Write the canonical text of the match rd reads, from its header to its
 * last event, through write(ud, s, n) (called many times, with pieces of
 * text that are not NUL-terminated; it returns 0, or a negative code that
 * stops the writer and is returned). rd must be freshly opened: no event
 * read yet. Returns 0 once the whole match is written. On failure err (may
 * be NULL; RPL_ERRMSG_SIZE bytes always suffice) gets one line, truncated
 * to errlen. Errors: the reader's (RPL_ECORRUPT...), the callback's,
 * RPL_ELIMIT for a start time outside the years 0000..9999, RPL_EINVAL for
 * a NULL rd or write. Runs on the calling thread; write is called there.
 */
RPL_API int rpl_notation_write(rpl_reader *rd, int (*write)(void *ud, const char *s, size_t n), void *ud, char *err,
                               size_t errlen);

/*
 * Parse a whole text of len bytes and record it into out_path (created or
 * truncated) with the recorder in RPL_RECORD_UNCHECKED mode, so that a
 * disputed, illegal match is kept as played and may be judged later
 * (rpl_verify_file). The log is closed (compact form) when the text ends
 * with "end"; without it the log is left in its growing form, as a
 * recording that was never closed. The log is written to a new temporary
 * file in out_path's directory and renamed over out_path once whole: on
 * failure out_path is left as it was (an existing out_path that is not a
 * regular file, or is a symbolic link, is refused, RPL_EIO), and err (may be NULL; RPL_ERRMSG_SIZE bytes always
 * suffice) gets one line: the line and column of a text error, or, for
 * RPL_EIO, the reason alone (the caller knows out_path).
 * Returns 0; RPL_EPARSE, RPL_EUNSUPPORTED, RPL_ELIMIT, the recorder's
 * errors (RPL_EINVAL for a header it cannot hold, RPL_EIO, RPL_ENOMEM),
 * RPL_EINVAL for NULL text with len > 0 or a NULL out_path.
 */
RPL_API int rpl_notation_import(const char *text, size_t len, const char *out_path, char *err, size_t errlen);

/*
 * The same, with the text read in pieces through read(ud, buf, n), which
 * returns the bytes it put in buf (at most n), 0 at the end of the text, or
 * a negative enum rpl_error that stops the import and is returned. Memory
 * does not grow with the text: one line at most is kept, and the first line
 * longer than RPL_NOTATION_MAX_LINE stops the import (RPL_ELIMIT) before
 * the rest of it is read.
 */
RPL_API int rpl_notation_import_stream(ptrdiff_t (*read)(void *ud, char *buf, size_t n), void *ud, const char *out_path,
                                       char *err, size_t errlen);

/*
 * The notation's time stamps ([Start]): "YYYY-MM-DDTHH:MM:SSZ", UTC, years
 * 0000 to 9999, as seconds since 1970-01-01T00:00:00Z (no leap seconds).
 * rpl_notation_time_parse: 0 with *out set, or RPL_EPARSE for any other
 * text (a NULL argument included).
 */
RPL_API int rpl_notation_time_parse(const char *text, int64_t *out);
/* The text of t into buf: 21 bytes with the NUL (size >= 21). 0; RPL_EINVAL for a small or NULL buffer, RPL_ELIMIT outside those years. */
RPL_API int rpl_notation_time_format(int64_t t, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
