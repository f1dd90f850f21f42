/*
 * Private: what the files of the SQLite sink share (docs/schema.md), cut
 * along its jobs (docs/conventions.md, section 6); a file calls only those
 * listed before it:
 *
 *   export_sqlite.c        the database: open, the schema's steps, transactions and their retries, the
 *                          prepared statements, SQL text built in memory, the removal of a failed new file
 *   export_sqlite_add.c    a loaded match into rows: the matches row of its copy, then the rows that hang
 *                          off it, in chunks (rpl_export_db_add)
 *   export_sqlite_merge.c  a shard's rows into this database, copy by copy (rpl_export_db_merge)
 */
#ifndef RPL_EXPORT_SQLITE_IMPL_H
#define RPL_EXPORT_SQLITE_IMPL_H

#include <sqlite3.h>

#include "export/export_impl.h"

/*
 * The columns of a matches row that come from its file, in the order of
 * their parameters (?1 to ?MC_COUNT) in every statement that writes them:
 * a row takes them all from one loaded match, or none (docs/schema.md,
 * "Copies"). actions_stored and match_id are the row's, not the file's.
 */
/* clang-format off */
enum {
	MC_HASH = 1, MC_FILE, MC_BYTES, MC_FORMAT_VERSION, MC_PROFILE, MC_OVERRIDES, MC_PLAYERS, MC_TARGET,
	MC_FIRST_DEALER, MC_START_TIME, MC_START_UNIX, MC_VERDICT, MC_VERDICT_DETAIL, MC_VERDICT_DEAL,
	MC_VERDICT_TURN, MC_VERDICT_SEAT, MC_VERDICT_DECISION, MC_VERDICT_RULE, MC_VERDICT_OFFSET, MC_RECOVERED,
	MC_DEALS, MC_DECISIONS, MC_WINNER, MC_TOTAL0, MC_TOTAL1, MC_IDENTITY, MC_CLOSED, MC_TRUSTED_KEYS,
	MC_REPLAY, MC_REPLAY_TRUSTED, MC_REPLAY_DETAIL, MC_SIGNATURE, MC_SIGNATURE_KEY, MC_SIGNATURE_FINGERPRINT, MC_SIGNATURE_KEY_TRUSTED, MC_SIGNATURE_COVERED,
	MC_SIGNATURE_COUNT, MC_SIGNATURE_TRUSTED, MC_SIGNATURE_TRUSTED_KEY, MC_SIGNATURE_TRUSTED_FINGERPRINT,
	MC_SIGNATURE_TRUSTED_COVERED, MC_SIGNATURE_ID_CLASH, MC_SIGNATURE_HEADER_SIGNED, MC_DEALING, MC_DEALING_DIGEST, MC_DEALING_PLAYER_SEEDS,
	MC_DEALING_PROTOCOL,
	MC_END
};
#define MC_COUNT (MC_END - 1)
/* clang-format on */

/* The prepared statements of a handle that are not row chunks; their SQL is export_sqlite.c's. */
enum {
	ST_MATCH,
	ST_FIND,
	ST_OLDER,
	ST_COMPLETE,
	ST_BETTER_FILE,
	ST_ACTIONS_STORED,
	ST_REVIEWED,
	ST_SCREENED,
	ST_COUNT
};

/*
 * The rows that hang off a match go in several to a statement: INSERT INTO t
 * (...) VALUES (?1, ...), (?1, ...), .... What SQLite does once a statement
 * (open the cursors, check the transaction, halt, reset) is then paid once
 * for up to 16 rows instead of once a row; callgrind put it at a third of
 * SQLite's work in the export. Each table has a statement for each chunk
 * size; n rows go in the largest chunks that fit (a match's 71 melds: four
 * of 16, one each of 4, 2 and 1). Larger chunks did not pay: with 64, 16,
 * 4, 1 the export ran 1.3 % more instructions than with 16, 4, 1 (callgrind,
 * docs/performance.md), and 16, 8, 4, 2, 1 runs 0.5 % fewer. Every row of a
 * chunk belongs to one match: its match_id, the first column of every table,
 * is one parameter (?1) that the rows share, bound once a statement rather
 * than once a row.
 */
enum { TB_PLAYER, TB_META, TB_DEAL, TB_SCORE, TB_SEAT, TB_MELD, TB_ACTION, TB_VALUE, TB_REVIEW, TB_EVIDENCE, TB_COUNT };

#define NCHUNK 5
#define MAX_CHUNK_ROWS 16
extern const int rpl__export_chunk_rows[NCHUNK]; /* 16, 8, 4, 2, 1 */

/* The statement head of a table's rows, its columns, and the start of the message when an insert fails. */
struct row_table {
	const char *head; /* up to VALUES */
	int ncols;
	const char *what; /* the error message's start */
};
extern const struct row_table rpl__export_row_tables[TB_COUNT];

/*
 * The text a row's columns are made of (a meld's cards, a decision, the three
 * decisions of a decision's review), written for its chunk: it stays in place
 * until the chunk's statement has run, so that SQLite takes it without a copy.
 */
#define ROW_TEXT_SIZE 480

/* What a parameter of a chunk's statement holds: the integer v, when known (export_sqlite_add.c). */
struct bound_int {
	long long v;
	int known;
};

struct rpl_export_db {
	sqlite3 *db;
	sqlite3_stmt *st[ST_COUNT];
	sqlite3_stmt *rows[TB_COUNT][NCHUNK];         /* rows[t][k]: chunk_rows[k] rows of table t */
	char row_text[MAX_CHUNK_ROWS][ROW_TEXT_SIZE]; /* the text of the chunk's rows being bound */
	struct bound_int *bound[TB_COUNT][NCHUNK];    /* bound[t][k][p]: what ?p of rows[t][k] holds */
	int in_batch;
	int timeout_ms;
	char *path;    /* as opened: to remove the file again */
	int created;   /* the file did not exist before this handle opened it */
	int committed; /* a batch of this handle was committed */
	int fresh;     /* the batch's first add found no match in the database: 1, else 0; -1 before it */
	char errmsg[RPL_ERRMSG_SIZE];
};

/* Record SQLite's message for what failed; returns the error code for rc. */
int rpl__export_db_fail(rpl_export_db *x, int rc, const char *what);

/* At the first add of a batch: whether the database holds no match (x->fresh). 0 or an error. */
int rpl__export_db_fresh(rpl_export_db *x);

/* SQL text built in memory; a failed append (out of memory) leaves it failed. */
struct sqlbuf {
	char *s;
	size_t n, cap;
	int failed;
};
void rpl__export_sb_add(struct sqlbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Rows a and c (aliases) are one copy: the terms of the matches_copy index (export_sqlite.c says which). */
void rpl__export_sb_copy_eq(struct sqlbuf *b, const char *a, const char *c);

#endif
