/*
 * Private: what the files of the text notation (docs/notation.md) share.
 * The room is cut along its jobs, each file calling only those above it in
 * this list, never one below:
 *
 *   notation_parse.c   the streaming parser, one line at a time (rpl_notation_parser_*)
 *   notation_record.c  the bridge from parsed lines to a recorder (rpl_notation_record)
 *   notation_import.c  a whole text, in memory or streamed, into a log (rpl_notation_import*):
 *                      the parser, the header's tags, the bridge, the recorder
 *   notation_write.c   the writer, a log into text (rpl_notation_write); it needs nothing here
 *
 * The [Start] tag's time stamps are the date converter's (date.c).
 */
#ifndef RPL_NOTATION_IMPL_H
#define RPL_NOTATION_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "libreplay/notation.h"
#include "base/msg.h"

/* Where a deal block is: what the next line of the block must be. */
enum block { BLOCK_NONE = 0, BLOCK_HAND, BLOCK_MORTO0, BLOCK_MORTO1, BLOCK_STOCK };

struct rpl_notation_parser {
	int line;        /* lines seen */
	int tags;        /* tags seen */
	int body;        /* a line after the header was seen: no more tags */
	int ended;       /* "end" was seen */
	int nplayers;    /* 0 while unknown */
	int block;       /* enum block */
	int block_hands; /* hand lines of the current block */
	int deal_lines;  /* "deal N" lines seen */

	/* rpl_notation_record (notation_record.c): where the recording is */
	rpl_layout layout;
	int deal_line; /* the "deal N" line number of the block being recorded */
	int deals;     /* deals recorded */
	int turn;      /* turns opened in the current deal (the codec's count) */
	int open;      /* a turn is open: no discard yet */
	int last_seat; /* the seat of the last decision in this deal, -1 */

	/* the failure */
	int err_line, err_col;
	char errmsg[RPL_ERRMSG_SIZE];

	/* unescaped tag values */
	char tag[24]; /* the longest canonical name, CommitmentVersion, and its NUL */
	char *val;
	size_t valcap;
};

/*
 * Fail at the parser's current line: "line N, column M: " (or "line N: "
 * for column 0) and the detail into p->errmsg, the place noted for
 * rpl_notation_parser_where(). Returns err.
 */
int rpl__notation_fail(rpl_notation_parser *p, int err, int column, const char *fmt, ...)
		__attribute__((format(printf, 4, 5)));

/* Exactly 2n hex digits into out; -1 otherwise. */
int rpl__notation_hex_bytes(const char *s, uint8_t *out, size_t n);

static inline int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* ASCII letters equal but for case (tag and rule names). */
static inline int ieq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if ((*a | 0x20) != (*b | 0x20))
			return 0;
	return *a == *b;
}

#endif
