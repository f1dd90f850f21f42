/*
 * Export: match logs as a SQLite database and as CSV files for analysis.
 * docs/schema.md describes every table, column and file.
 *
 * Two steps, so that the slow one may run on several threads:
 *
 * 1. rpl_export_match_load() reads one log, hashes its bytes (SHA-256),
 *    verifies it (which gives its match identity, rpl_verdict.match_id) (as rpl_verify_reader does) and, when it is ok,
 *    replays it to collect every deal, score breakdown, final meld and (with
 *    RPL_EXPORT_ACTIONS) decision. It touches no shared state: loads of
 *    different logs may run at once.
 * 2. A sink takes loaded matches in the order given: rpl_export_db (SQLite)
 *    or rpl_export_csv (a directory of CSV files). A sink is used by one
 *    thread at a time.
 *
 * A match that is not ok is exported with its verdict and header but with no
 * deal, score, meld or decision: nothing the engine could not vouch for.
 *
 * Ownership: every handle is made by its _load/_open function, owned by the
 * caller and released by its _free (which accepts NULL). Errors: functions
 * return 0 or a negative enum rpl_error; *_errmsg() gives the last failure's
 * one-line detail. Whenever an _open or _load function fails with *out set,
 * the handle says why: free it all the same.
 */
#ifndef LIBREPLAY_EXPORT_H
#define LIBREPLAY_EXPORT_H

#include "libreplay/common.h"
#include "libreplay/integrity.h"
#include "libreplay/log.h"
#include "libreplay/review.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- one log, loaded for export ---- */

/*
 * One log, loaded and judged: an opaque handle made by
 * rpl_export_match_load or rpl_export_match_load_memory, freed with
 * rpl_export_match_free. Once loaded it is only read: sinks on other
 * threads may read it while no one frees it.
 */
typedef struct rpl_export_match rpl_export_match;

/* Flags for rpl_export_match_load(). */
#define RPL_EXPORT_ACTIONS 1u /* keep every decision (the actions table) */

/*
 * Load the log at path; the path is kept as the match's file name (UTF-8,
 * invalid bytes replaced by U+FFFD). Returns 0 whatever the verdict (a
 * damaged log loads as malformed) with *out owned by the caller
 * (rpl_export_match_free); RPL_EIO when the file cannot be read, RPL_ENOMEM,
 * RPL_EINVAL for a NULL argument. Whenever *out is set on failure,
 * rpl_export_match_errmsg says why: free it all the same. Touches no shared
 * state: loads may run on several threads at once.
 */
RPL_API int rpl_export_match_load(rpl_export_match **out, const char *path, unsigned flags);
/*
 * The same from len bytes in memory (data may be freed after the call);
 * name is the file name to store. As rpl_export_match_load, without
 * RPL_EIO.
 */
RPL_API int rpl_export_match_load_memory(rpl_export_match **out, const char *name, const void *data, size_t len,
                                         unsigned flags);
/*
 * As rpl_export_match_load, judging the log's signatures against trusted
 * keys (sign.h; NULL or empty: none) as rpl_verify_reader_trusted does: the
 * verdict is brp verify's under those keys (untrusted, say, for a log no
 * trusted key signs), and the match records how many keys it was judged
 * with (matches.trusted_keys, docs/schema.md). trusted is only read, and
 * may be shared by loads on several threads; it must outlive the call only.
 */
RPL_API int rpl_export_match_load_trusted(rpl_export_match **out, const char *path, unsigned flags,
                                          const rpl_keyring *trusted);
/* rpl_export_match_load_memory with trusted keys, as rpl_export_match_load_trusted. */
RPL_API int rpl_export_match_load_memory_trusted(rpl_export_match **out, const char *name, const void *data, size_t len,
                                                 unsigned flags, const rpl_keyring *trusted);
/*
 * As rpl_export_match_load_trusted, and, when the log verifies ok, its
 * review with options review (review.h; NULL: no review, as
 * rpl_export_match_load_trusted): the reviews and decision_values tables
 * (docs/schema.md). Each decision of the seats and deal review asks for is
 * reviewed along the one replay of the load, on the calling thread, as brp
 * review reviews it (a pure function of the game before it, the options and
 * the seed): loads on several threads give the same rows as on one.
 * RPL_EINVAL also for options out of range (rpl_reviewer_new).
 */
RPL_API int rpl_export_match_load_reviewed(rpl_export_match **out, const char *path, unsigned flags,
                                           const rpl_keyring *trusted, const rpl_review_options *review);
/*
 * As rpl_export_match_load_reviewed, and, when the log verifies ok, its
 * integrity screen with options integrity (integrity.h; NULL: none, as
 * rpl_export_match_load_reviewed): the evidence rpl_integrity_reader gives
 * for the log, summed by deal, seat, statistic, target and calibration bin
 * (the integrity_deals table, docs/schema.md). The screen is a pure function of
 * the log and the options, run on the calling thread: loads on several
 * threads give the same rows as on one. Only the options' samples and seed
 * shape the evidence (permutations and level are the tests', not stored;
 * seats is the corpus's: every seat's evidence is kept).
 * RPL_EINVAL also for options out of range (rpl_integrity_new).
 */
RPL_API int rpl_export_match_load_screened(rpl_export_match **out, const char *path, unsigned flags,
                                           const rpl_keyring *trusted, const rpl_review_options *review,
                                           const rpl_integrity_options *integrity);
/* Free a loaded match; NULL is accepted. */
RPL_API void rpl_export_match_free(rpl_export_match *m);

/* The SHA-256 of the log's bytes as 64 lower-case hex digits ("" for NULL). Lent by m. */
RPL_API const char *rpl_export_match_hash(const rpl_export_match *m);
/* The match identity (docs/format.md section 17), "" when the log has none (malformed). Lent by m. */
RPL_API const char *rpl_export_match_id(const rpl_export_match *m);
/* The verdict, as rpl_verify_reader() gives it; NULL for NULL. Lent by m. */
RPL_API const rpl_verdict *rpl_export_match_verdict(const rpl_export_match *m);
/* The detail of the failure that made m's load fail; "" when none. Lent by m. */
RPL_API const char *rpl_export_match_errmsg(const rpl_export_match *m);

/* ---- SQLite ---- */

/*
 * An export database open for writing: an opaque handle made by
 * rpl_export_db_open, freed with rpl_export_db_free; one thread at a time.
 */
typedef struct rpl_export_db rpl_export_db;

/* The schema version this build writes (PRAGMA user_version). */
RPL_API int rpl_export_schema_version(void);
/* The SQL of schema step version (1..rpl_export_schema_version()), or NULL. Static storage. */
RPL_API const char *rpl_export_schema_sql(int version);

/*
 * Open (or create) the database at path and bring its schema to the current
 * version, applying each schema step the database lacks in one transaction.
 * The journal mode is left as the file has it: a new database has SQLite's
 * rollback journal; one switched to WAL stays in WAL, where readers are
 * never blocked (docs/schema.md). timeout_ms is how long to wait for another
 * writer's lock, here and in rpl_export_db_begin (< 0: 10 minutes).
 * A path that exists and is not a regular file (a device, a FIFO) is refused
 * before SQLite opens it (RPL_EIO). A database this handle creates is removed
 * again by rpl_export_db_free when no batch of the handle was committed and
 * it holds no match: a failed run leaves no empty database behind.
 * RPL_EIO (cannot open or write), RPL_EUNSUPPORTED (the schema is newer than
 * this build), RPL_ECORRUPT (not an export database, a negative schema
 * version, or damaged), RPL_ENOMEM, RPL_EINVAL for a NULL argument. Returns
 * 0 with *out owned by the caller (rpl_export_db_free); whenever *out is
 * set on failure, rpl_export_db_errmsg says why (never naming path): free
 * it all the same.
 */
RPL_API int rpl_export_db_open(rpl_export_db **out, const char *path, int timeout_ms);

/*
 * A batch is one write transaction (BEGIN IMMEDIATE ... COMMIT): until
 * commit nothing is visible, and a process killed before it leaves the
 * database as it was. begin waits for another writer as long as the timeout
 * allows (RPL_EIO with "the database is busy" after that). Returns 0;
 * RPL_ESTATE when a batch is already open.
 */
RPL_API int rpl_export_db_begin(rpl_export_db *db);
/*
 * Make the open batch visible. Returns 0; RPL_ESTATE when no batch is
 * open, RPL_EIO when SQLite cannot commit (the batch is then rolled back:
 * none is open).
 */
RPL_API int rpl_export_db_commit(rpl_export_db *db);
/* Undo the open batch, if any; always leaves none open. */
RPL_API void rpl_export_db_rollback(rpl_export_db *db);

/*
 * Add a loaded match to the open batch, as a copy of its match
 * (docs/schema.md, "Copies"): a copy is the match (its identity, or its
 * hash when it has none), its verdict, its signature's status, signer
 * (fingerprint) and trust, and its dealing status. A copy the database
 * lacks is a new row (*added = 1), beside the match's other copies, never
 * merged with them. A copy already there adds nothing (*added = 0), except
 * its decisions when they were not stored before and m has them, and, when
 * m's file is better (closed over unclosed, then not salvaged over
 * salvaged), m's file: the row then takes every column of m's file at once.
 * A row exported before schema version 4 whose file (hash) and verdict
 * are m's takes m's columns (it did not record its signatures or dealing).
 * *added may be NULL. RPL_ESTATE without a batch; RPL_EIO (RPL_ENOMEM) on
 * a database error, and then the whole batch has been rolled back: none is
 * open.
 */
RPL_API int rpl_export_db_add(rpl_export_db *db, const rpl_export_match *m, int *added);

/*
 * Add every copy of another export database src (a shard, exported
 * elsewhere) that db lacks (a copy as rpl_export_db_add names it), with all
 * its rows, and for a copy db has, the better file (every column of the row
 * at once); match ids are renumbered. Two databases holding different copies
 * of one match give both rows. One batch of its own: call it with no batch open (SQLite
 * attaches src outside a transaction); on failure nothing is added.
 * src may have db's schema version or an older one (a column it lacks is
 * NULL), and must be an existing regular file (it is never created).
 * *added (may be NULL): copies (rows) added. RPL_ESTATE with a batch open,
 * RPL_EIO (cannot read src, a database error, not an export database),
 * RPL_EUNSUPPORTED (a newer schema version).
 */
RPL_API int rpl_export_db_merge(rpl_export_db *db, const char *src, int *added);

/*
 * Free the handle; an open batch is rolled back. A database the handle
 * created and never committed to is removed if it holds no match (see
 * rpl_export_db_open). NULL is accepted.
 */
RPL_API void rpl_export_db_free(rpl_export_db *db);
/* The detail of the last failure on db in one line; "" when none. Lives until the next failure or the free. */
RPL_API const char *rpl_export_db_errmsg(const rpl_export_db *db);

/* ---- CSV ---- */

/*
 * A directory of CSV files being written: an opaque handle made by
 * rpl_export_csv_open, freed with rpl_export_csv_free; one thread at a time.
 */
typedef struct rpl_export_csv rpl_export_csv;

/* Flags for rpl_export_csv_open(). */
#define RPL_EXPORT_CSV_BOM 1u /* start each file with a UTF-8 byte order mark (what Excel needs to read UTF-8) */

/*
 * Start writing one CSV file a table into the existing directory dir:
 * matches.csv, meta.csv, deals.csv, deal_scores.csv, deal_seats.csv,
 * melds.csv, actions.csv and players.csv (docs/schema.md). Each file is
 * written to a new temporary file in dir and renamed into place by
 * rpl_export_csv_finish(), so a file of that name is never half-written;
 * one of those names that is a symbolic link is refused.
 * flags: 0 or RPL_EXPORT_CSV_BOM. Returns 0 with *out owned by the caller
 * (rpl_export_csv_free); RPL_EINVAL (an unknown flag, a NULL argument),
 * RPL_EIO (the message never names dir), RPL_ENOMEM. Whenever *out is set
 * on failure, rpl_export_csv_errmsg() says why: free it all the same.
 */
RPL_API int rpl_export_csv_open(rpl_export_csv **out, const char *dir, unsigned flags);
/* Add a loaded match; a copy already added (as rpl_export_db_add names a copy) adds nothing (*added = 0). RPL_EIO, RPL_ENOMEM. */
RPL_API int rpl_export_csv_add(rpl_export_csv *w, const rpl_export_match *m, int *added);
/* Write the per-player totals, close the files and rename them into place. RPL_EIO, RPL_ESTATE. */
RPL_API int rpl_export_csv_finish(rpl_export_csv *w);
/* Free the writer; without a successful finish its temporary files are removed. */
RPL_API void rpl_export_csv_free(rpl_export_csv *w);
/* The detail of the last failure on w in one line ("deals.csv: No space left on device"); "" when none. */
RPL_API const char *rpl_export_csv_errmsg(const rpl_export_csv *w);

/* ---- XLSX ---- */

/*
 * A workbook being written: an opaque handle made by rpl_export_xlsx_open,
 * freed with rpl_export_xlsx_free; one thread at a time.
 */
typedef struct rpl_export_xlsx rpl_export_xlsx;

/*
 * Start writing a workbook at path with one sheet a table, the same tables
 * and columns as the CSV files: integers as numbers, times as dates (UTC),
 * text as text (a text cell is never a formula), a frozen header row, an
 * autofilter and column widths that fit the values. The workbook is
 * written to a new temporary file in path's directory and renamed over path
 * by rpl_export_xlsx_finish(), so path is never half-written; an existing
 * path that is not a regular file, or is a symbolic link, is refused.
 * libxlsxwriter prints its own lines when it fails to make a file, so the
 * path, its temporary data ($TMPDIR or /tmp) and the room closing needs are
 * checked here before it is asked (docs/security.md). Memory stays flat in
 * the number of rows. RPL_EIO, RPL_ENOMEM;
 * whenever *out is set on failure, rpl_export_xlsx_errmsg() says why: free
 * it all the same.
 */
RPL_API int rpl_export_xlsx_open(rpl_export_xlsx **out, const char *path);
/*
 * Add a loaded match; a copy already added (as rpl_export_db_add names a
 * copy) adds nothing (*added = 0). RPL_ELIMIT when a sheet would pass the 1,048,576 rows a sheet can
 * hold (the actions of a large corpus: export them to SQLite or CSV),
 * RPL_EIO, RPL_ENOMEM.
 */
RPL_API int rpl_export_xlsx_add(rpl_export_xlsx *w, const rpl_export_match *m, int *added);
/* Write the per-player totals, close the workbook and rename it into place. RPL_EIO, RPL_ESTATE. */
RPL_API int rpl_export_xlsx_finish(rpl_export_xlsx *w);
/* Free the writer; without a successful finish nothing is left at path or beside it. */
RPL_API void rpl_export_xlsx_free(rpl_export_xlsx *w);
/* The detail of the last failure on w in one line (never naming path); "" when none. */
RPL_API const char *rpl_export_xlsx_errmsg(const rpl_export_xlsx *w);

#ifdef __cplusplus
}
#endif

#endif
