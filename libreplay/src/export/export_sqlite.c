/*
 * Export, step 2a: the SQLite sink. The schema is the files schema/NNN-NAME.sql, embedded at
 * build time (schema_sql.h); PRAGMA user_version says which steps a database
 * has. Every write goes through a prepared statement with bound values.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "export/export_impl.h"
#include "log/format.h"
#include "schema_sql.h"
#include "base/msg.h"

#define DEFAULT_TIMEOUT_MS (10 * 60 * 1000)

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
static const char *const match_cols[] = {
	"hash", "file", "bytes", "format_version", "profile", "overrides", "players", "target",
	"first_dealer", "start_time", "start_unix", "verdict", "verdict_detail", "verdict_deal",
	"verdict_turn", "verdict_seat", "verdict_decision", "verdict_rule", "verdict_offset", "recovered",
	"deals", "decisions", "winner", "total0", "total1", "identity", "closed", "trusted_keys",
	"replay", "replay_trusted", "replay_detail", "signature", "signature_key", "signature_fingerprint", "signature_key_trusted", "signature_covered",
	"signature_count", "signature_trusted", "signature_trusted_key", "signature_trusted_fingerprint",
	"signature_trusted_covered", "signature_id_clash", "signature_header_signed", "dealing", "dealing_digest", "dealing_player_seeds",
	"dealing_protocol",
};
/* clang-format on */
_Static_assert(sizeof(match_cols) / sizeof(match_cols[0]) == MC_COUNT, "a name for every column of the enum");

enum { ST_MATCH, ST_FIND, ST_OLDER, ST_COMPLETE, ST_BETTER_FILE, ST_ACTIONS_STORED, ST_COUNT };

/*
 * The statements that write a whole row are made from match_cols (make_sql);
 * NULL here. The others:
 */
static const char *const sql_text[ST_COUNT] = {
	/* the copy: ?1 to ?8 are the values of the terms of sb_copy_eq, the index matches_copy serves it */
	[ST_FIND] = "SELECT match_id, actions_stored FROM matches WHERE coalesce(identity, hash) = ?1 AND verdict = ?2 "
				"AND coalesce(signature, '') = ?3 AND coalesce(signature_key, '') = ?4 AND "
				"coalesce(signature_fingerprint, '') = ?5 AND coalesce(signature_trusted, -1) = ?6 AND "
				"coalesce(dealing, '') = ?7 AND coalesce(replay_trusted, -1) = ?8",
	/*
	 * A row exported before version 4 (its signature not recorded) of this
	 * very file, with this verdict. The + keeps SQLite on matches_hash: without
	 * ANALYZE it would take matches_verdict, and read every row of the verdict.
	 */
	[ST_OLDER] = "SELECT match_id, actions_stored FROM matches WHERE hash = ?1 AND +verdict = ?2 AND signature IS NULL "
				 "ORDER BY match_id LIMIT 1",
	[ST_ACTIONS_STORED] = "UPDATE matches SET actions_stored = 1 WHERE match_id = ?1",
};

/*
 * The rows that hang off a match go in several to a statement: INSERT INTO t
 * (...) VALUES (?, ...), (?, ...), .... What SQLite does once a statement
 * (open the cursors, check the transaction, halt, reset) is then paid once
 * for up to 16 rows instead of once a row; callgrind put it at a third of
 * SQLite's work in the export. Each table has a statement for each chunk
 * size; n rows go in the largest chunks that fit (a match's 60 melds: three
 * of 16, three of 4).
 */
enum { TB_PLAYER, TB_META, TB_DEAL, TB_SCORE, TB_SEAT, TB_MELD, TB_ACTION, TB_COUNT };

static const int chunk_rows[] = { 16, 4, 1 };
#define NCHUNK ((int)(sizeof(chunk_rows) / sizeof(chunk_rows[0])))

static const struct {
	const char *head; /* up to VALUES */
	int ncols;
	const char *what; /* the error message's start */
} row_tables[TB_COUNT] = {
	[TB_PLAYER] = { "INSERT OR ROLLBACK INTO match_players (match_id, seat, side, name) VALUES ", 4,
	                "cannot insert a player" },
	[TB_META] = { "INSERT OR ROLLBACK INTO match_meta (match_id, idx, key, value) VALUES ", 4,
	              "cannot insert metadata" },
	[TB_DEAL] = { "INSERT OR ROLLBACK INTO deals (match_id, deal, dealer, first_seat, end_kind, out_seat, "
	              "out_side, turns, decisions, pile_taken, pile_frozen, rejects, morto_direct, morto_indirect, "
	              "morto_to_stock, vulnerable_open, morto0, morto0_side, morto1, morto1_side) VALUES ",
	              20, "cannot insert a deal" },
	[TB_SCORE] = { "INSERT OR ROLLBACK INTO deal_scores (match_id, deal, side, melded, bonus, canastras, "
	               "canastras_dirty, canastras_clean, canastras_clean13, canastras_clean14, canastras_dirty14, "
	               "going_out, hand, morto, total, match_total) VALUES ",
	               16, "cannot insert a deal score" },
	[TB_SEAT] = { "INSERT OR ROLLBACK INTO deal_seats (match_id, deal, seat, side, turns, draws, takes, rejects, "
	              "melds, adds, discards, mortos, went_out) VALUES ",
	              13, "cannot insert a seat's deal" },
	[TB_MELD] = { "INSERT OR ROLLBACK INTO melds (match_id, deal, side, idx, suit, lo, hi, length, wilds, clean, "
	              "category, points, bonus, cards) VALUES ",
	              14, "cannot insert a meld" },
	[TB_ACTION] = { "INSERT OR ROLLBACK INTO actions (match_id, deal, seq, turn, seat, kind, text) VALUES ", 7,
	                "cannot insert a decision" },
};

struct rpl_export_db {
	sqlite3 *db;
	sqlite3_stmt *st[ST_COUNT];
	sqlite3_stmt *rows[TB_COUNT][NCHUNK]; /* rows[t][k]: chunk_rows[k] rows of table t */
	int in_batch;
	int timeout_ms;
	char *path;    /* as opened: to remove the file again */
	int created;   /* the file did not exist before this handle opened it */
	int committed; /* a batch of this handle was committed */
	char errmsg[RPL_ERRMSG_SIZE];
};

int rpl_export_schema_version(void)
{
	return RPL__SCHEMA_VERSION;
}

const char *rpl_export_schema_sql(int version)
{
	return version >= 1 && version <= RPL__SCHEMA_VERSION ? rpl__schema_sql[version - 1] : NULL;
}

/* Record SQLite's message for what failed; returns the error code for rc. */
static int db_fail(rpl_export_db *x, int rc, const char *what)
{
	int code = rc & 0xff;

	if (code == SQLITE_NOMEM) {
		rpl__msgf(x->errmsg, "out of memory");
		return RPL_ENOMEM;
	}
	if (rc == SQLITE_READONLY_DBMOVED) { /* SQLite's own guard against writing into a removed file */
		rpl__msgf(x->errmsg,
		          "%s: the database file was removed or replaced while it was open (by another run "
		          "that created it and failed?): run again",
		          what);
		return RPL_EIO;
	}
	rpl__msgf(x->errmsg, "%s: %s", what, x->db ? sqlite3_errmsg(x->db) : sqlite3_errstr(rc));
	if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
		return RPL_ECORRUPT;
	return RPL_EIO;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * BEGIN IMMEDIATE takes the write lock now. The busy handler waits for it, but
 * SQLite returns SQLITE_BUSY at once in some cases (another connection
 * recovering the WAL, a lock upgrade it would deadlock on): retry those until
 * the timeout.
 */
static int begin_immediate(rpl_export_db *x)
{
	long long start = now_ms();
	int rc;

	for (;;) {
		rc = sqlite3_exec(x->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
		if (rc == SQLITE_OK)
			return RPL_OK;
		if ((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED)
			return db_fail(x, rc, "cannot begin a transaction");
		if (now_ms() - start >= x->timeout_ms) {
			rpl__msgf(x->errmsg, "the database is busy: another writer held it for %d ms", x->timeout_ms);
			return RPL_EIO;
		}
		sleep_ms(20);
	}
}

/* The file open is no longer the one at its path: removed (remove_created) or replaced. */
static int has_moved(rpl_export_db *x)
{
	int moved = 0;
	return sqlite3_file_control(x->db, "main", SQLITE_FCNTL_HAS_MOVED, &moved) == SQLITE_OK && moved;
}

/*
 * BEGIN IMMEDIATE on a file that is still the one at its path. Another run
 * that created the database and failed removes it (remove_created); a
 * connection that waited for the lock meanwhile would write into a file no
 * path leads to: it stops instead, having written nothing.
 */
static int begin_write(rpl_export_db *x)
{
	int err = begin_immediate(x);

	if (err)
		return err;
	if (has_moved(x)) {
		sqlite3_exec(x->db, "ROLLBACK", NULL, NULL, NULL);
		snprintf(x->errmsg, sizeof(x->errmsg),
		         "the database file was removed or replaced while it was open (by another run that created it "
		         "and failed?): nothing written, run again");
		return RPL_EIO;
	}
	return RPL_OK;
}

static int exec_retry(rpl_export_db *x, const char *sql, const char *what)
{
	long long start = now_ms();
	int rc;

	while ((rc = sqlite3_exec(x->db, sql, NULL, NULL, NULL)) != SQLITE_OK) {
		if (((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED) || now_ms() - start >= x->timeout_ms)
			return db_fail(x, rc, what);
		sleep_ms(20);
	}
	return RPL_OK;
}

/* One integer from a query without parameters. */
static int query_int(rpl_export_db *x, const char *sql, int *out)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(x->db, sql, -1, &st, NULL);

	if (rc != SQLITE_OK)
		return db_fail(x, rc, "cannot read the schema");
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		int err = db_fail(x, rc, "cannot read the schema");
		sqlite3_finalize(st);
		return err;
	}
	*out = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return RPL_OK;
}

/*
 * Bring the schema to the current version in one transaction. The version is
 * read inside the transaction, so two exporters creating one database at once
 * apply each step once.
 */
static int upgrade(rpl_export_db *x)
{
	int version = 0, tables = 0, err;

	if ((err = begin_write(x)) != 0)
		return err;
	if ((err = query_int(x, "PRAGMA user_version", &version)) != 0 ||
	    (err = query_int(x, "SELECT count(*) FROM sqlite_master", &tables)) != 0)
		goto fail;
	if (version > RPL__SCHEMA_VERSION) {
		rpl__msgf(x->errmsg, "the database has schema version %d, newer than this build's %d: use a newer brp", version,
		          RPL__SCHEMA_VERSION);
		err = RPL_EUNSUPPORTED;
		goto fail;
	}
	if (version < 0) {
		snprintf(x->errmsg, sizeof(x->errmsg),
		         "the database has schema version %d (PRAGMA user_version), which no export has: not an export",
		         version);
		err = RPL_ECORRUPT;
		goto fail;
	}
	if (version == 0 && tables > 0) {
		rpl__msgf(x->errmsg, "the database holds tables but no schema version: not an export");
		err = RPL_ECORRUPT;
		goto fail;
	}
	for (int v = version + 1; v <= RPL__SCHEMA_VERSION; v++) {
		int rc = sqlite3_exec(x->db, rpl__schema_sql[v - 1], NULL, NULL, NULL);
		if (rc != SQLITE_OK) {
			char what[64];
			snprintf(what, sizeof(what), "schema step %03d", v);
			err = db_fail(x, rc, what);
			goto fail;
		}
	}
	if ((err = exec_retry(x, "COMMIT", "cannot commit the schema")) != 0)
		goto fail;
	return RPL_OK;
fail:
	sqlite3_exec(x->db, "ROLLBACK", NULL, NULL, NULL);
	return err;
}

/* SQL text built in memory; a failed append (out of memory) leaves it failed. */
struct sqlbuf {
	char *s;
	size_t n, cap;
	int failed;
};

static void sb_add(struct sqlbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_add(struct sqlbuf *b, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (b->failed)
		return;
	for (;;) {
		size_t room = b->cap - b->n;
		va_start(ap, fmt);
		w = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? room : 0, fmt, ap);
		va_end(ap);
		if (w < 0) {
			b->failed = 1;
			return;
		}
		if (b->s && (size_t)w < room) {
			b->n += (size_t)w;
			return;
		}
		{
			size_t cap = b->cap ? b->cap * 2 : 1024;
			char *p;
			while (cap < b->n + (size_t)w + 1)
				cap *= 2;
			if (!(p = realloc(b->s, cap))) {
				b->failed = 1;
				return;
			}
			b->s = p;
			b->cap = cap;
		}
	}
}

/*
 * Rows a and c (aliases) are one copy (docs/schema.md, "Copies"), in the
 * expressions of the matches_copy index (schema/005-copy-trust.sql), so that
 * a lookup of a copy uses it: the match, the verdict, the signature's status,
 * signer (its key id and its key's fingerprint: a key that carries another's
 * id is another signer) and trust, the dealing status, and whether a trusted
 * key signs what the replay found (a copy that shows the platform signed an
 * illegal decision is not hidden by one that shows someone appended it).
 * ST_FIND is the same with parameters.
 */
static void sb_copy_eq(struct sqlbuf *b, const char *a, const char *c)
{
	sb_add(b, "coalesce(%s.identity, %s.hash) = coalesce(%s.identity, %s.hash)", a, a, c, c);
	sb_add(b, " AND %s.verdict = %s.verdict", a, c);
	sb_add(b, " AND coalesce(%s.signature, '') = coalesce(%s.signature, '')", a, c);
	sb_add(b, " AND coalesce(%s.signature_key, '') = coalesce(%s.signature_key, '')", a, c);
	sb_add(b, " AND coalesce(%s.signature_fingerprint, '') = coalesce(%s.signature_fingerprint, '')", a, c);
	sb_add(b, " AND coalesce(%s.signature_trusted, -1) = coalesce(%s.signature_trusted, -1)", a, c);
	sb_add(b, " AND coalesce(%s.dealing, '') = coalesce(%s.dealing, '')", a, c);
	sb_add(b, " AND coalesce(%s.replay_trusted, -1) = coalesce(%s.replay_trusted, -1)", a, c);
}

/* "a, b, c" or "?1, ?2, ?3": the columns of match_cols, or their parameters. */
static void sb_match_cols(struct sqlbuf *b, int params)
{
	for (int i = 0; i < MC_COUNT; i++) {
		if (params)
			sb_add(b, "%s?%d", i ? ", " : "", i + 1);
		else
			sb_add(b, "%s%s", i ? ", " : "", match_cols[i]);
	}
}

/* The statements that write a whole row (NULL in sql_text), into *out (the caller frees it). */
static int make_sql(rpl_export_db *x, int i, char **out)
{
	struct sqlbuf b = { 0 };

	if (i == ST_MATCH) {
		sb_add(&b, "INSERT OR IGNORE INTO matches (");
		sb_match_cols(&b, 0);
		sb_add(&b, ", actions_stored) VALUES (");
		sb_match_cols(&b, 1);
		sb_add(&b, ", ?%d)", MC_COUNT + 1);
	} else {
		/*
		 * ST_COMPLETE: a row of version 3 or before takes the columns of its
		 * own file (OR IGNORE: unless a row of that copy is there already).
		 * ST_BETTER_FILE: a better file of the same copy, a closed one over
		 * an unclosed one, then one not salvaged over one salvaged.
		 */
		sb_add(&b, "UPDATE OR IGNORE matches SET (");
		sb_match_cols(&b, 0);
		sb_add(&b, ") = (");
		sb_match_cols(&b, 1);
		sb_add(&b, ") WHERE match_id = ?%d", MC_COUNT + 1);
		if (i == ST_BETTER_FILE)
			sb_add(&b, " AND 2 * coalesce(closed, 0) + 1 - recovered < 2 * ?%d + 1 - ?%d", MC_CLOSED, MC_RECOVERED);
	}
	if (b.failed) {
		free(b.s);
		rpl__msgf(x->errmsg, "out of memory");
		return RPL_ENOMEM;
	}
	*out = b.s;
	return RPL_OK;
}

/* The statement that inserts chunk_rows[k] rows into table t: "(?, ?), (?, ?)". */
static int prepare_rows(rpl_export_db *x, int t, int k)
{
	size_t len = strlen(row_tables[t].head);
	size_t size = len + (size_t)chunk_rows[k] * ((size_t)row_tables[t].ncols * 3 + 4) + 1;
	char *sql = malloc(size);
	int rc;

	if (!sql) {
		rpl__msgf(x->errmsg, "out of memory");
		return RPL_ENOMEM;
	}
	memcpy(sql, row_tables[t].head, len);
	for (int r = 0; r < chunk_rows[k]; r++) {
		if (r)
			sql[len++] = ',';
		sql[len++] = '(';
		for (int c = 0; c < row_tables[t].ncols; c++) {
			if (c) {
				sql[len++] = ',';
				sql[len++] = ' ';
			}
			sql[len++] = '?';
		}
		sql[len++] = ')';
	}
	sql[len] = '\0';
	rc = sqlite3_prepare_v3(x->db, sql, (int)len, SQLITE_PREPARE_PERSISTENT, &x->rows[t][k], NULL);
	free(sql);
	return rc == SQLITE_OK ? RPL_OK : db_fail(x, rc, "cannot prepare a statement");
}

/*
 * A database that this handle created, when no batch of the handle was
 * committed (a failed run: a full disk, a bad schema, an error while adding),
 * is removed with its journal if it holds no match: a failed command leaves
 * no empty database behind. The check and the removal are made in a read
 * transaction: it needs no write (BEGIN IMMEDIATE writes a journal header
 * at once, which a full disk refuses), and no other connection can commit
 * while it lasts. So a match another run committed is never removed; one that
 * had the file open finds it gone when it takes the write lock (begin_write),
 * at its next write (SQLite: SQLITE_READONLY_DBMOVED, see db_fail) or at its
 * commit (rpl_export_db_commit checks again).
 */
static void remove_created(rpl_export_db *x)
{
	static const char *const sidecar[] = { "-journal", "-wal", "-shm" };
	int n = 1;

	if (!x->created || x->committed || !x->db || !x->path)
		return;
	if (x->in_batch)
		rpl_export_db_rollback(x);
	if (sqlite3_exec(x->db, "BEGIN DEFERRED", NULL, NULL, NULL) != SQLITE_OK)
		return; /* cannot make sure it is empty: it stays */
	if (query_int(x, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'matches'", &n) == 0 &&
	    (n == 0 || query_int(x, "SELECT EXISTS (SELECT 1 FROM matches)", &n) == 0) && n == 0 && !has_moved(x)) {
		size_t len = strlen(x->path);
		char *side = malloc(len + 16);
		unlink(x->path);
		for (size_t i = 0; side && i < sizeof(sidecar) / sizeof(sidecar[0]); i++) {
			memcpy(side, x->path, len);
			strcpy(side + len, sidecar[i]);
			unlink(side);
		}
		free(side);
	}
	sqlite3_exec(x->db, "ROLLBACK", NULL, NULL, NULL);
}

int rpl_export_db_open(rpl_export_db **out, const char *path, int timeout_ms)
{
	rpl_export_db *x;
	struct stat st;
	int rc, err;

	if (!out)
		return RPL_EINVAL;
	*out = NULL;
	if (!path)
		return RPL_EINVAL;
	x = calloc(1, sizeof(*x));
	if (!x)
		return RPL_ENOMEM;
	*out = x;
	x->timeout_ms = timeout_ms < 0 ? DEFAULT_TIMEOUT_MS : timeout_ms;
	/*
	 * Only a regular file, or none: SQLite would write its header onto a
	 * block device, and next to /dev/null it makes /dev/null-journal.
	 */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		snprintf(x->errmsg, sizeof(x->errmsg), "%s, not a regular file: refused as a database",
		         rpl__file_kind(st.st_mode));
		return RPL_EIO;
	}
	x->created = lstat(path, &st) != 0 && errno == ENOENT;
	if (x->created && !(x->path = malloc(strlen(path) + 1)))
		return RPL_ENOMEM;
	if (x->path)
		strcpy(x->path, path);
	rc = sqlite3_open_v2(path, &x->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK)
		return db_fail(x, rc, "cannot open");
	sqlite3_extended_result_codes(x->db, 1);
	sqlite3_busy_timeout(x->db, x->timeout_ms);
	/*
	 * The journal mode is the file's: a new database keeps SQLite's rollback
	 * journal, one already in WAL mode stays in it. A run is one transaction;
	 * with a rollback journal its new pages are written once, and the journal
	 * holds only the few pages that were there before. WAL writes every page
	 * twice (to the WAL, then back into the database) and the WAL grows to
	 * the size of the whole run, but readers are never blocked
	 * (docs/schema.md, "Journal mode").
	 *
	 * Foreign keys are not enforced on this connection: every row it writes
	 * hangs off the match it has just inserted, in the same transaction, so
	 * the check could only fail on a bug here (the tests run
	 * foreign_key_check), and enforcing it makes each statement of several
	 * rows keep a statement journal. A failed insert rolls the whole
	 * transaction back (INSERT OR ROLLBACK), so none is needed. Schema step
	 * 004 makes matches again (DROP TABLE, then a rename), which needs them
	 * off as well: with them on, the drop would delete every child row.
	 */
	if ((err = exec_retry(x, "PRAGMA foreign_keys = OFF", "cannot set foreign_keys")) != 0 ||
	    /* statement journals (brp merge's INSERT ... SELECT keeps one) in memory, never in a temporary file */
	    (err = exec_retry(x, "PRAGMA temp_store = MEMORY", "cannot set temp_store")) != 0)
		return err;
	if ((err = upgrade(x)) != 0)
		return err;
	for (int i = 0; i < ST_COUNT; i++) {
		char *made = NULL;
		if (!sql_text[i] && (err = make_sql(x, i, &made)) != 0)
			return err;
		rc = sqlite3_prepare_v3(x->db, made ? made : sql_text[i], -1, SQLITE_PREPARE_PERSISTENT, &x->st[i], NULL);
		free(made);
		if (rc != SQLITE_OK)
			return db_fail(x, rc, "cannot prepare a statement");
	}
	for (int t = 0; t < TB_COUNT; t++)
		for (int k = 0; k < NCHUNK; k++)
			if ((err = prepare_rows(x, t, k)) != 0)
				return err;
	return RPL_OK;
}

int rpl_export_db_begin(rpl_export_db *x)
{
	int err;

	if (!x || !x->db)
		return RPL_EINVAL;
	if (x->in_batch) {
		rpl__msgf(x->errmsg, "a batch is already open");
		return RPL_ESTATE;
	}
	if ((err = begin_write(x)) != 0)
		return err;
	x->in_batch = 1;
	return RPL_OK;
}

int rpl_export_db_commit(rpl_export_db *x)
{
	int err;

	if (!x || !x->db)
		return RPL_EINVAL;
	if (!x->in_batch) {
		rpl__msgf(x->errmsg, "no batch is open");
		return RPL_ESTATE;
	}
	err = exec_retry(x, "COMMIT", "cannot commit");
	if (err) {
		rpl_export_db_rollback(x);
		return err;
	}
	x->in_batch = 0;
	if (has_moved(x)) {
		/* removed by a failed run that created it, after this batch began (remove_created) */
		snprintf(x->errmsg, sizeof(x->errmsg),
		         "the database file was removed while this batch was written into it (by another run that "
		         "created it and failed?): run again");
		return RPL_EIO;
	}
	x->committed = 1;
	return RPL_OK;
}

void rpl_export_db_rollback(rpl_export_db *x)
{
	if (!x || !x->db)
		return;
	for (int i = 0; i < ST_COUNT; i++)
		if (x->st[i])
			sqlite3_reset(x->st[i]);
	for (int t = 0; t < TB_COUNT; t++)
		for (int k = 0; k < NCHUNK; k++)
			if (x->rows[t][k])
				sqlite3_reset(x->rows[t][k]);
	if (!sqlite3_get_autocommit(x->db))
		sqlite3_exec(x->db, "ROLLBACK", NULL, NULL, NULL);
	x->in_batch = 0;
}

/*
 * Binding: every statement is stepped and reset right after its values are
 * bound (step_done), so text is bound SQLITE_STATIC, without a copy: the
 * strings outlive the step. Every parameter is bound at every step, NULL
 * included, so no binding is left over from the row before.
 */
static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

static void bind_int_or_null(sqlite3_stmt *st, int i, long long v, int present)
{
	if (present)
		sqlite3_bind_int64(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

/* Run a bound statement that returns no row, and reset it. */
static int step_done(rpl_export_db *x, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);
	int err = rc == SQLITE_DONE ? RPL_OK : db_fail(x, rc, what);

	sqlite3_reset(st);
	return err;
}

/*
 * Every column of m's row (match_cols, ?1 to ?MC_COUNT) into st. The text
 * bound SQLITE_TRANSIENT is made here and copied by SQLite.
 */
static void bind_match(sqlite3_stmt *st, const rpl_export_match *m)
{
	const rpl_verdict *v = &m->verdict;
	const rpl_signature_report *sr = &v->signature;
	int ok = v->kind == RPL_VERDICT_OK && m->detailed, h = m->have_header;
	int signed_ = sr->status != RPL_SIG_UNSIGNED, has_trusted = sr->trusted_covered > 0;
	int committed = h && v->deal_commitment != RPL_DEAL_NONE;
	char iso[RPL__DATE_SIZE], act[160], id[RPL_KEY_ID_TEXT], fp[RPL_KEY_FINGERPRINT_TEXT];
	char digest[2 * RPL_DEAL_COMMIT_SIZE + 1];

	sqlite3_bind_text(st, MC_HASH, m->hash, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, MC_FILE, m->file, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, MC_BYTES, (long long)m->bytes);
	bind_int_or_null(st, MC_FORMAT_VERSION, m->format_version, h);
	bind_text(st, MC_PROFILE, h ? m->profile : NULL);
	bind_text(st, MC_OVERRIDES, h ? m->overrides : NULL);
	bind_int_or_null(st, MC_PLAYERS, m->nplayers, h);
	bind_int_or_null(st, MC_TARGET, m->target, h);
	bind_int_or_null(st, MC_FIRST_DEALER, m->first_dealer, h);
	if (h && m->start_time != 0) {
		rpl__date_format(m->start_time, iso, sizeof iso);
		sqlite3_bind_text(st, MC_START_TIME, iso, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, MC_START_UNIX, (long long)m->start_time);
	} else {
		sqlite3_bind_null(st, MC_START_TIME);
		sqlite3_bind_null(st, MC_START_UNIX);
	}
	sqlite3_bind_text(st, MC_VERDICT, rpl_verdict_name(v->kind), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, MC_VERDICT_DETAIL, v->message, -1, SQLITE_STATIC);
	for (int i = MC_VERDICT_DEAL; i <= MC_VERDICT_OFFSET; i++)
		sqlite3_bind_null(st, i); /* the verdict's details, set below by kind */
	switch (v->kind) {
	case RPL_VERDICT_ILLEGAL:
		sqlite3_bind_int(st, MC_VERDICT_DEAL, v->deal);
		if (v->turn > 0) {
			sqlite3_bind_int(st, MC_VERDICT_TURN, v->turn);
			sqlite3_bind_int(st, MC_VERDICT_SEAT, v->seat);
			rpl_action_format(&v->action, act, sizeof(act));
			sqlite3_bind_text(st, MC_VERDICT_DECISION, act, -1, SQLITE_TRANSIENT);
		}
		sqlite3_bind_text(st, MC_VERDICT_RULE, rpl_rule_name(v->rule), -1, SQLITE_STATIC);
		break;
	case RPL_VERDICT_INCOMPLETE:
		sqlite3_bind_int(st, MC_VERDICT_DEAL, v->deal);
		sqlite3_bind_int(st, MC_VERDICT_TURN, v->turn);
		break;
	case RPL_VERDICT_MISMATCH:
		/* the deals not those committed: the first deal that differs (0: the seed), as brp verify --json */
		sqlite3_bind_int(st, MC_VERDICT_DEAL,
		                 v->deal_commitment == RPL_DEAL_MISMATCH ? v->deal_mismatch : v->claim_deal);
		break;
	case RPL_VERDICT_MALFORMED:
	case RPL_VERDICT_TAMPERED: sqlite3_bind_int64(st, MC_VERDICT_OFFSET, (long long)v->offset); break;
	default: break;
	}
	sqlite3_bind_int(st, MC_RECOVERED, v->recovered);
	bind_int_or_null(st, MC_DEALS, v->deals, ok);
	bind_int_or_null(st, MC_DECISIONS, v->actions, ok);
	bind_int_or_null(st, MC_WINNER, v->winner, ok);
	bind_int_or_null(st, MC_TOTAL0, v->total[0], ok);
	bind_int_or_null(st, MC_TOTAL1, v->total[1], ok);
	bind_text(st, MC_IDENTITY, v->match_id[0] ? v->match_id : NULL);
	bind_int_or_null(st, MC_CLOSED, v->closed, v->kind != RPL_VERDICT_MALFORMED);
	sqlite3_bind_int(st, MC_TRUSTED_KEYS, v->keys);
	sqlite3_bind_text(st, MC_REPLAY, rpl_verdict_name(v->replay), -1, SQLITE_STATIC);
	sqlite3_bind_int(st, MC_REPLAY_TRUSTED, v->replay_trusted);
	sqlite3_bind_text(st, MC_REPLAY_DETAIL, v->replay_message, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, MC_SIGNATURE, rpl_signature_status_name(sr->status), -1, SQLITE_STATIC);
	rpl_key_id_format(sr->key.id, id);
	rpl__export_fingerprint(&sr->key, signed_, fp);
	if (signed_) {
		sqlite3_bind_text(st, MC_SIGNATURE_KEY, id, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, MC_SIGNATURE_FINGERPRINT, fp, -1, SQLITE_TRANSIENT);
	} else {
		sqlite3_bind_null(st, MC_SIGNATURE_KEY);
		sqlite3_bind_null(st, MC_SIGNATURE_FINGERPRINT);
	}
	sqlite3_bind_int(st, MC_SIGNATURE_KEY_TRUSTED, sr->key_trusted);
	sqlite3_bind_int64(st, MC_SIGNATURE_COVERED, (long long)sr->covered);
	sqlite3_bind_int(st, MC_SIGNATURE_COUNT, sr->count);
	sqlite3_bind_int(st, MC_SIGNATURE_TRUSTED, sr->trusted);
	rpl_key_id_format(sr->trusted_key.id, id);
	rpl__export_fingerprint(&sr->trusted_key, has_trusted, fp);
	if (has_trusted) {
		sqlite3_bind_text(st, MC_SIGNATURE_TRUSTED_KEY, id, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, MC_SIGNATURE_TRUSTED_FINGERPRINT, fp, -1, SQLITE_TRANSIENT);
	} else {
		sqlite3_bind_null(st, MC_SIGNATURE_TRUSTED_KEY);
		sqlite3_bind_null(st, MC_SIGNATURE_TRUSTED_FINGERPRINT);
	}
	sqlite3_bind_int64(st, MC_SIGNATURE_TRUSTED_COVERED, (long long)sr->trusted_covered);
	sqlite3_bind_int(st, MC_SIGNATURE_ID_CLASH, sr->id_clash);
	sqlite3_bind_int(st, MC_SIGNATURE_HEADER_SIGNED, (v->header_flags & RPL_LOG_SIGNED) != 0);
	bind_text(st, MC_DEALING, h ? rpl_deal_commitment_name(v->deal_commitment) : NULL);
	rpl__export_hex(v->commitment, sizeof(v->commitment), digest);
	if (committed)
		sqlite3_bind_text(st, MC_DEALING_DIGEST, digest, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, MC_DEALING_DIGEST);
	bind_int_or_null(st, MC_DEALING_PLAYER_SEEDS, v->player_seeds, committed);
	bind_int_or_null(st, MC_DEALING_PROTOCOL, v->commit_version, committed);
}

static int insert_match(rpl_export_db *x, const rpl_export_match *m)
{
	sqlite3_stmt *st = x->st[ST_MATCH];

	bind_match(st, m);
	sqlite3_bind_int(st, MC_COUNT + 1, m->verdict.kind == RPL_VERDICT_OK && m->detailed && m->has_actions);
	return step_done(x, st, "cannot insert the match");
}

/* Bind row i of a table's rows for match m (database id) at parameters base + 1 .. base + ncols. */
typedef void (*row_binder)(sqlite3_stmt *st, int base, const rpl_export_match *m, sqlite3_int64 id, size_t i);

/* Insert n rows of table t, in chunks of chunk_rows[]. */
static int insert_rows(rpl_export_db *x, int t, size_t n, row_binder bind, const rpl_export_match *m, sqlite3_int64 id)
{
	size_t i = 0;
	int err;

	while (i < n) {
		int k = 0;
		sqlite3_stmt *st;
		while ((size_t)chunk_rows[k] > n - i)
			k++;
		st = x->rows[t][k];
		for (int r = 0; r < chunk_rows[k]; r++)
			bind(st, r * row_tables[t].ncols, m, id, i + (size_t)r);
		if ((err = step_done(x, st, row_tables[t].what)) != 0)
			return err;
		i += (size_t)chunk_rows[k];
	}
	return RPL_OK;
}

static void bind_player(sqlite3_stmt *st, int base, const rpl_export_match *m, sqlite3_int64 id, size_t i)
{
	sqlite3_bind_int64(st, base + 1, id);
	sqlite3_bind_int(st, base + 2, (int)i);
	sqlite3_bind_int(st, base + 3, (int)i % 2);
	bind_text(st, base + 4, m->players[i]);
}

static void bind_meta(sqlite3_stmt *st, int base, const rpl_export_match *m, sqlite3_int64 id, size_t i)
{
	sqlite3_bind_int64(st, base + 1, id);
	sqlite3_bind_int64(st, base + 2, (long long)i);
	sqlite3_bind_text(st, base + 3, m->meta_keys[i], -1, SQLITE_STATIC);
	sqlite3_bind_text(st, base + 4, m->meta_values[i], -1, SQLITE_STATIC);
}

static void bind_deal(sqlite3_stmt *st, int base, const rpl_export_match *m, sqlite3_int64 id, size_t i)
{
	const struct xdeal *d = &m->deals[i];
	int out = d->st.end == RPL_DEAL_OUT && d->st.out_seat >= 0;

	sqlite3_bind_int64(st, base + 1, id);
	sqlite3_bind_int(st, base + 2, d->deal);
	sqlite3_bind_int(st, base + 3, d->dealer);
	sqlite3_bind_int(st, base + 4, d->first_seat);
	sqlite3_bind_text(st, base + 5, d->st.end == RPL_DEAL_OUT ? "out" : "stock", -1, SQLITE_STATIC);
	bind_int_or_null(st, base + 6, d->st.out_seat, out);
	bind_int_or_null(st, base + 7, d->st.out_seat % 2, out);
	sqlite3_bind_int(st, base + 8, d->st.turns);
	sqlite3_bind_int(st, base + 9, d->st.actions);
	sqlite3_bind_int(st, base + 10, d->st.pile_taken);
	sqlite3_bind_int(st, base + 11, d->st.pile_frozen);
	sqlite3_bind_int(st, base + 12, d->st.rejects);
	sqlite3_bind_int(st, base + 13, d->st.morto_direct);
	sqlite3_bind_int(st, base + 14, d->st.morto_indirect);
	sqlite3_bind_int(st, base + 15, d->st.morto_to_stock);
	sqlite3_bind_int(st, base + 16, d->st.vulnerable_open);
	for (int k = 0; k < 2; k++) {
		int taken = d->morto[k] == XM_DIRECT || d->morto[k] == XM_INDIRECT;
		sqlite3_bind_text(st, base + 17 + 2 * k, rpl__export_morto_names[d->morto[k]], -1, SQLITE_STATIC);
		bind_int_or_null(st, base + 18 + 2 * k, d->morto_side[k], taken);
	}
}

/* Row i: deal i / 2, side i % 2. */
static void bind_score(sqlite3_stmt *st, int base, const rpl_export_match *m, sqlite3_int64 id, size_t i)
{
	const struct xdeal *d = &m->deals[i / 2];
	int s = (int)(i % 2);
	const rpl_score *sc = &d->score[s];
	int32_t all = 0;

	for (int c = 1; c < RPL_CANASTRA_NCAT; c++)
		all += sc->canastras[c];
	sqlite3_bind_int64(st, base + 1, id);
	sqlite3_bind_int(st, base + 2, d->deal);
	sqlite3_bind_int(st, base + 3, s);
	sqlite3_bind_int(st, base + 4, sc->melded);
	sqlite3_bind_int(st, base + 5, sc->bonus);
	sqlite3_bind_int(st, base + 6, all);
	sqlite3_bind_int(st, base + 7, sc->canastras[RPL_CANASTRA_DIRTY]);
	sqlite3_bind_int(st, base + 8, sc->canastras[RPL_CANASTRA_CLEAN]);
	sqlite3_bind_int(st, base + 9, sc->canastras[RPL_CANASTRA_CLEAN13]);
	sqlite3_bind_int(st, base + 10, sc->canastras[RPL_CANASTRA_CLEAN14]);
	sqlite3_bind_int(st, base + 11, sc->canastras[RPL_CANASTRA_DIRTY14]);
	sqlite3_bind_int(st, base + 12, sc->going_out);
	sqlite3_bind_int(st, base + 13, sc->hand);
	sqlite3_bind_int(st, base + 14, sc->morto);
	sqlite3_bind_int(st, base + 15, sc->total);
	sqlite3_bind_int(st, base + 16, d->match_total[s]);
}

/* The seats a deal has rows for. */
static size_t seats_of(const rpl_export_match *m)
{
	return m->nplayers < 0 ? 0 : m->nplayers > 4 ? 4 : (size_t)m->nplayers;
}

/* Row i: deal i / seats, seat i % seats. */
static void bind_seat(sqlite3_stmt *st, int base, const rpl_export_match *m, sqlite3_int64 id, size_t i)
{
	size_t n = seats_of(m);
	const struct xdeal *d = &m->deals[i / n];
	int seat = (int)(i % n);
	const struct xseat *xs = &d->seat[seat];

	sqlite3_bind_int64(st, base + 1, id);
	sqlite3_bind_int(st, base + 2, d->deal);
	sqlite3_bind_int(st, base + 3, seat);
	sqlite3_bind_int(st, base + 4, seat % 2);
	sqlite3_bind_int(st, base + 5, xs->turns);
	sqlite3_bind_int(st, base + 6, xs->draws);
	sqlite3_bind_int(st, base + 7, xs->takes);
	sqlite3_bind_int(st, base + 8, xs->rejects);
	sqlite3_bind_int(st, base + 9, xs->melds);
	sqlite3_bind_int(st, base + 10, xs->adds);
	sqlite3_bind_int(st, base + 11, xs->discards);
	sqlite3_bind_int(st, base + 12, xs->mortos);
	sqlite3_bind_int(st, base + 13, xs->went_out);
}

static void bind_meld(sqlite3_stmt *st, int base, const rpl_export_match *m, sqlite3_int64 id, size_t i)
{
	const struct xmeld *xm = &m->melds[i];
	const rpl_meld_info *mi = &xm->info;
	char cards[RPL__MELD_CARDS_SIZE];

	rpl__export_meld_cards(mi, cards, sizeof(cards));
	sqlite3_bind_int64(st, base + 1, id);
	sqlite3_bind_int(st, base + 2, xm->deal);
	sqlite3_bind_int(st, base + 3, xm->side);
	sqlite3_bind_int(st, base + 4, xm->idx);
	sqlite3_bind_text(st, base + 5, rpl__export_suit_name(mi->suit), -1, SQLITE_STATIC);
	sqlite3_bind_int(st, base + 6, mi->lo);
	sqlite3_bind_int(st, base + 7, mi->hi);
	sqlite3_bind_int(st, base + 8, mi->length);
	sqlite3_bind_int(st, base + 9, mi->wilds);
	sqlite3_bind_int(st, base + 10, mi->clean);
	sqlite3_bind_text(st, base + 11, rpl_canastra_name(mi->category), -1, SQLITE_STATIC);
	sqlite3_bind_int(st, base + 12, mi->points);
	sqlite3_bind_int(st, base + 13, mi->bonus);
	sqlite3_bind_text(st, base + 14, cards, -1, SQLITE_TRANSIENT);
}

static void bind_action(sqlite3_stmt *st, int base, const rpl_export_match *m, sqlite3_int64 id, size_t i)
{
	const struct xaction *a = &m->acts[i];
	char text[160];

	rpl_action_format(&a->action, text, sizeof(text));
	sqlite3_bind_int64(st, base + 1, id);
	sqlite3_bind_int(st, base + 2, a->deal);
	sqlite3_bind_int(st, base + 3, a->seq);
	sqlite3_bind_int(st, base + 4, a->turn);
	sqlite3_bind_int(st, base + 5, a->seat);
	sqlite3_bind_text(st, base + 6, rpl__export_kind_name(a->kind), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, base + 7, text, -1, SQLITE_TRANSIENT);
}

/*
 * A row found for m (id, stored: its actions_stored): the decisions it lacks,
 * when m has them. Only an ok row has deals; a row of m's copy, or of m's
 * own file with m's verdict, has m's content (the identity fixes it).
 */
static int add_actions(rpl_export_db *x, const rpl_export_match *m, sqlite3_int64 id, int stored)
{
	int err;

	if (stored || m->verdict.kind != RPL_VERDICT_OK || !m->detailed || !m->has_actions)
		return RPL_OK;
	if ((err = insert_rows(x, TB_ACTION, m->nacts, bind_action, m, id)) != 0)
		return err;
	sqlite3_bind_int64(x->st[ST_ACTIONS_STORED], 1, id);
	return step_done(x, x->st[ST_ACTIONS_STORED], "cannot mark the decisions stored");
}

/* Run a lookup bound by the caller: 1 with *id and *stored set, 0 when no row, or an error. */
static int find_row(rpl_export_db *x, sqlite3_stmt *st, sqlite3_int64 *id, int *stored)
{
	int rc = sqlite3_step(st);

	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		*stored = sqlite3_column_int(st, 1);
	}
	sqlite3_reset(st);
	if (rc == SQLITE_ROW)
		return 1;
	return rc == SQLITE_DONE ? 0 : db_fail(x, rc, "cannot find the match");
}

/* Write every column of m over row id with st (ST_COMPLETE, ST_BETTER_FILE): 1 when it did, 0 when not. */
static int replace_row(rpl_export_db *x, sqlite3_stmt *st, const rpl_export_match *m, sqlite3_int64 id)
{
	int err;

	bind_match(st, m);
	sqlite3_bind_int64(st, MC_COUNT + 1, id);
	if ((err = step_done(x, st, "cannot update the match's file")) != 0)
		return err;
	return sqlite3_changes(x->db) > 0;
}

static int add_match(rpl_export_db *x, const rpl_export_match *m, int *added)
{
	const rpl_verdict *v = &m->verdict;
	const rpl_signature_report *sr = &v->signature;
	sqlite3_stmt *st;
	sqlite3_int64 id = 0;
	char fp[RPL_KEY_FINGERPRINT_TEXT], kid[RPL_KEY_ID_TEXT];
	int err, stored = 0;

	/*
	 * A row of version 3 or before of this very file, with this verdict: it
	 * takes every column of m, unless m's copy has a row already.
	 */
	st = x->st[ST_OLDER];
	sqlite3_bind_text(st, 1, m->hash, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, rpl_verdict_name(v->kind), -1, SQLITE_STATIC);
	if ((err = find_row(x, st, &id, &stored)) < 0)
		return err;
	if (err == 1) {
		if ((err = replace_row(x, x->st[ST_COMPLETE], m, id)) < 0)
			return err;
		if (err == 1)
			return add_actions(x, m, id, stored);
	}
	if ((err = insert_match(x, m)) != 0)
		return err;
	if (sqlite3_changes(x->db) == 0) {
		/* the copy is there: its decisions if it lacks them, and m's file if better */
		st = x->st[ST_FIND];
		rpl__export_fingerprint(&sr->key, sr->status != RPL_SIG_UNSIGNED, fp);
		rpl_key_id_format(sr->key.id, kid);
		sqlite3_bind_text(st, 1, v->match_id[0] ? v->match_id : m->hash, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, rpl_verdict_name(v->kind), -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, rpl_signature_status_name(sr->status), -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, sr->status != RPL_SIG_UNSIGNED ? kid : "", -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, fp, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 6, sr->trusted);
		sqlite3_bind_text(st, 7, m->have_header ? rpl_deal_commitment_name(v->deal_commitment) : "", -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 8, v->replay_trusted);
		if ((err = find_row(x, st, &id, &stored)) < 0)
			return err;
		if (err == 0) {
			rpl__msgf(x->errmsg, "cannot insert the match, and no row of its copy is there");
			return RPL_EIO;
		}
		if ((err = replace_row(x, x->st[ST_BETTER_FILE], m, id)) < 0)
			return err;
		return add_actions(x, m, id, stored);
	}
	id = sqlite3_last_insert_rowid(x->db);
	if (added)
		*added = 1;
	if ((m->have_header && (err = insert_rows(x, TB_PLAYER, seats_of(m), bind_player, m, id)) != 0) ||
	    (err = insert_rows(x, TB_META, m->nmeta, bind_meta, m, id)) != 0)
		return err;
	if (m->verdict.kind != RPL_VERDICT_OK || !m->detailed)
		return RPL_OK;
	if ((err = insert_rows(x, TB_DEAL, m->ndeals, bind_deal, m, id)) != 0 ||
	    (err = insert_rows(x, TB_SCORE, 2 * m->ndeals, bind_score, m, id)) != 0 ||
	    (err = insert_rows(x, TB_SEAT, seats_of(m) * m->ndeals, bind_seat, m, id)) != 0 ||
	    (err = insert_rows(x, TB_MELD, m->nmelds, bind_meld, m, id)) != 0)
		return err;
	if (m->has_actions)
		return insert_rows(x, TB_ACTION, m->nacts, bind_action, m, id);
	return RPL_OK;
}

int rpl_export_db_add(rpl_export_db *x, const rpl_export_match *m, int *added)
{
	int err;

	if (added)
		*added = 0;
	if (!x || !x->db || !m)
		return RPL_EINVAL;
	if (!x->in_batch) {
		rpl__msgf(x->errmsg, "no batch is open");
		return RPL_ESTATE;
	}
	/*
	 * A failed insert has already undone the transaction (INSERT OR
	 * ROLLBACK) or left part of a match in it: either way the batch goes.
	 */
	if ((err = add_match(x, m, added)) != 0) {
		rpl_export_db_rollback(x);
		if (added)
			*added = 0;
	}
	return err;
}

void rpl_export_db_free(rpl_export_db *x)
{
	if (!x)
		return;
	if (x->db && x->in_batch)
		rpl_export_db_rollback(x);
	remove_created(x);
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(x->st[i]);
	for (int t = 0; t < TB_COUNT; t++)
		for (int k = 0; k < NCHUNK; k++)
			sqlite3_finalize(x->rows[t][k]);
	if (x->db)
		sqlite3_close(x->db);
	free(x->path);
	free(x);
}

const char *rpl_export_db_errmsg(const rpl_export_db *x)
{
	return x ? x->errmsg : "";
}

/* ---- merging shards ---- */

/* The tables that hang off a match, in the order their rows are copied. */
static const char *const child_tables[] = { "match_players", "match_meta", "deals",  "deal_scores",
	                                        "deal_seats",    "melds",      "actions" };

/* The columns of table t other than match_id, comma-separated, from the schema. */
static int columns(rpl_export_db *x, const char *t, int with_id, char *buf, size_t size)
{
	sqlite3_stmt *st = NULL;
	char sql[128];
	size_t n = 0;
	int rc;

	buf[0] = '\0';
	snprintf(sql, sizeof(sql), "SELECT name FROM pragma_table_info('%s') ORDER BY cid", t);
	rc = sqlite3_prepare_v2(x->db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return db_fail(x, rc, t);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(st, 0);
		if (!with_id && strcmp(c, "match_id") == 0)
			continue;
		n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s\"%s\"", n ? ", " : "", c);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail(x, rc, t);
	if (n >= size) {
		rpl__msgf(x->errmsg, "%s: too many columns", t);
		return RPL_EIO;
	}
	return 0;
}

/*
 * The columns cols ("a", "b", ... of this database's table t) read from the
 * source's table aliased s: s."a", or NULL for a column the source lacks (an
 * older schema version).
 */
static int source_columns(rpl_export_db *x, const char *t, const char *cols, char *sel, size_t size)
{
	sqlite3_stmt *st = NULL;
	size_t n = 0;
	const char *p = cols;
	int rc = sqlite3_prepare_v2(x->db, "SELECT 1 FROM pragma_table_info(?1, 'merge_src') WHERE name = ?2", -1, &st,
	                            NULL);

	if (rc != SQLITE_OK)
		return db_fail(x, rc, t);
	sel[0] = '\0';
	while (*p) {
		const char *q = strchr(p, ',');
		size_t len = q ? (size_t)(q - p) : strlen(p);
		int has;
		/* a column is "name", quoted */
		sqlite3_bind_text(st, 1, t, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, p + 1, len >= 2 ? (int)len - 2 : 0, SQLITE_STATIC);
		rc = sqlite3_step(st);
		has = rc == SQLITE_ROW;
		sqlite3_reset(st);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
			sqlite3_finalize(st);
			return db_fail(x, rc, t);
		}
		n += (size_t)snprintf(sel + n, n < size ? size - n : 0, "%s%s%.*s", n ? ", " : "", has ? "s." : "",
		                      has ? (int)len : 4, has ? p : "NULL");
		p += len;
		while (*p == ',' || *p == ' ')
			p++;
	}
	sqlite3_finalize(st);
	if (n >= size) {
		snprintf(x->errmsg, sizeof(x->errmsg), "%s: too many columns", t);
		return RPL_EIO;
	}
	return 0;
}

static int exec_sql(rpl_export_db *x, const char *sql, const char *what)
{
	int rc = sqlite3_exec(x->db, sql, NULL, NULL, NULL);
	return rc == SQLITE_OK ? 0 : db_fail(x, rc, what);
}

/* Run the SQL of b (or say it could not be made), then free it. */
static int exec_buf(rpl_export_db *x, struct sqlbuf *b, const char *what)
{
	int err;

	if (b->failed) {
		rpl__msgf(x->errmsg, "out of memory");
		err = RPL_ENOMEM;
	} else {
		err = exec_sql(x, b->s, what);
	}
	free(b->s);
	memset(b, 0, sizeof(*b));
	return err;
}

/*
 * The matches rows of the attached merge_src, copy by copy, as
 * rpl_export_db_add takes a loaded match: a copy this database has takes the
 * source's row when its file is better (the whole row); a row of version 3 or
 * before of the same file with the same verdict takes a complete source
 * row's columns, unless that copy is here already; every other copy is a new
 * row, listed with its new id in temp.merge_new for the child tables. A
 * source row of version 3 or before whose file is here with its verdict
 * adds nothing: the row here says at least as much of that file.
 */
static int merge_matches(rpl_export_db *x, int *added)
{
	struct sqlbuf b = { 0 };
	char cols[4096], sel[4096], *set = NULL, *vals = NULL, *all = NULL;
	sqlite3_stmt *st = NULL;
	int rc, err;

	/* the source's rows with this database's columns (a column an older source lacks is NULL) */
	if ((err = columns(x, "matches", 0, cols, sizeof(cols))) != 0 ||
	    (err = source_columns(x, "matches", cols, sel, sizeof(sel))) != 0)
		return err;
	sb_add(&b, "CREATE TEMP VIEW merge_m (old_id, %s) AS SELECT s.match_id, %s FROM merge_src.matches s", cols, sel);
	if ((err = exec_buf(x, &b, "merge")) != 0)
		return err;
	/* the columns a file gives a row (all but match_id and actions_stored), and the source's, in one order */
	rc = sqlite3_prepare_v2(
			x->db,
			"SELECT group_concat(CASE WHEN name <> 'actions_stored' THEN '\"' || name || '\"' END, ', '), "
			"group_concat(CASE WHEN name <> 'actions_stored' THEN 's.\"' || name || '\"' END, ', '), "
			"group_concat('s.\"' || name || '\"', ', ') FROM (SELECT name FROM "
			"pragma_table_info('matches', 'main') WHERE name <> 'match_id' ORDER BY cid)",
			-1, &st, NULL);
	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
		set = strdup((const char *)sqlite3_column_text(st, 0));
		vals = strdup((const char *)sqlite3_column_text(st, 1));
		all = strdup((const char *)sqlite3_column_text(st, 2));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_OK) {
		err = db_fail(x, rc, "merge: matches");
		goto cleanup;
	}
	if (!set || !vals || !all) {
		rpl__msgf(x->errmsg, "out of memory");
		err = RPL_ENOMEM;
		goto cleanup;
	}
	/* the same copy: the better file */
	sb_add(&b, "UPDATE main.matches AS m SET (%s) = (%s) FROM temp.merge_m AS s WHERE ", set, vals);
	sb_copy_eq(&b, "m", "s");
	sb_add(&b, " AND 2 * coalesce(m.closed, 0) + 1 - m.recovered < 2 * coalesce(s.closed, 0) + 1 - s.recovered");
	if ((err = exec_buf(x, &b, "merge: matches")) != 0)
		goto cleanup;
	/* a row of version 3 or before: the first complete source row of its file and verdict whose copy is new */
	sb_add(&b,
	       "UPDATE OR IGNORE main.matches AS m SET (%s) = (%s) FROM temp.merge_m AS s WHERE m.signature IS NULL "
	       "AND m.hash = s.hash AND +m.verdict = s.verdict AND s.old_id = (SELECT min(t.old_id) FROM temp.merge_m AS t "
	       "WHERE t.hash = s.hash AND +t.verdict = s.verdict AND t.signature IS NOT NULL AND NOT EXISTS "
	       "(SELECT 1 FROM main.matches AS c WHERE ",
	       set, vals);
	sb_copy_eq(&b, "c", "t");
	sb_add(&b, "))");
	if ((err = exec_buf(x, &b, "merge: matches")) != 0)
		goto cleanup;
	/* the new copies, numbered after this database's last row, in the source's order */
	sb_add(&b,
	       "CREATE TEMP TABLE merge_new AS SELECT s.old_id AS old_id, (SELECT coalesce(max(match_id), 0) FROM "
	       "main.matches) + row_number() OVER (ORDER BY s.old_id) AS new_id FROM temp.merge_m AS s WHERE NOT EXISTS "
	       "(SELECT 1 FROM main.matches AS c WHERE ");
	sb_copy_eq(&b, "c", "s");
	sb_add(&b, ") AND NOT (s.signature IS NULL AND EXISTS (SELECT 1 FROM main.matches AS c WHERE c.hash = s.hash "
	           "AND +c.verdict = s.verdict))");
	if ((err = exec_buf(x, &b, "merge")) != 0)
		goto cleanup;
	sb_add(&b,
	       "INSERT INTO main.matches (match_id, %s) SELECT n.new_id, %s FROM temp.merge_m s "
	       "JOIN temp.merge_new n ON n.old_id = s.old_id ORDER BY n.new_id",
	       cols, all);
	if ((err = exec_buf(x, &b, "merge: matches")) != 0)
		goto cleanup;
	if (added)
		*added = sqlite3_changes(x->db);
cleanup:
	free(set);
	free(vals);
	free(all);
	return err;
}

int rpl_export_db_merge(rpl_export_db *x, const char *src, int *added)
{
	sqlite3_stmt *st = NULL;
	char cols[4096], sql[10240];
	int rc, err = 0, attached = 0, version = -1;

	if (added)
		*added = 0;
	if (!x || !src)
		return RPL_EINVAL;
	if (x->in_batch) {
		rpl__msgf(x->errmsg, "a batch is open: a merge is a batch of its own");
		return RPL_ESTATE;
	}
	/* ATTACH would create a missing file, or read a FIFO or a device */
	{
		struct stat sst;
		if (stat(src, &sst) != 0) {
			snprintf(x->errmsg, sizeof(x->errmsg), "cannot open: %s", strerror(errno));
			return RPL_EIO;
		}
		if (!S_ISREG(sst.st_mode)) {
			snprintf(x->errmsg, sizeof(x->errmsg), "%s, not a regular file", rpl__file_kind(sst.st_mode));
			return RPL_EIO;
		}
	}
	/* SQLite attaches outside a transaction; the path is bound, not spliced into the SQL */
	rc = sqlite3_prepare_v2(x->db, "ATTACH DATABASE ?1 AS merge_src", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, src, -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (rc != SQLITE_DONE) {
		err = db_fail(x, rc, "cannot open");
		/* SQLite's message for a failed ATTACH names the path: the code's text does not */
		if (err != RPL_ENOMEM)
			rpl__msgf(x->errmsg, "cannot open: %s", sqlite3_errstr(rc));
		goto cleanup;
	}
	attached = 1;
	rc = sqlite3_prepare_v2(x->db, "PRAGMA merge_src.user_version", -1, &st, NULL);
	if (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	/* an older shard is read as it is: a column it lacks is NULL (1 and 2: no identity; 1 to 3: no signature) */
	if (version < 1 || version > RPL__SCHEMA_VERSION) {
		rpl__msgf(x->errmsg, "schema version %d, not 1 to %d: %s", version, RPL__SCHEMA_VERSION,
		          version > RPL__SCHEMA_VERSION ? "use a newer brp" : "not an export database");
		err = version > RPL__SCHEMA_VERSION ? RPL_EUNSUPPORTED : RPL_EIO;
		goto cleanup;
	}
	err = rpl_export_db_begin(x);
	if (err)
		goto cleanup;
	if ((err = merge_matches(x, added)) != 0)
		goto cleanup;
	for (size_t i = 0; i < sizeof(child_tables) / sizeof(child_tables[0]); i++) {
		char sel[4096];
		const char *t = child_tables[i];
		err = columns(x, t, 0, cols, sizeof(cols));
		if (err)
			goto cleanup;
		if ((err = source_columns(x, t, cols, sel, sizeof(sel))) != 0)
			goto cleanup;
		snprintf(sql, sizeof(sql),
		         "INSERT INTO main.%s (match_id, %s) SELECT n.new_id, %s FROM merge_src.%s s "
		         "JOIN temp.merge_new n ON s.match_id = n.old_id",
		         t, cols, sel, t);
		err = exec_sql(x, sql, t);
		if (err)
			goto cleanup;
	}
	err = exec_sql(x, "DROP TABLE temp.merge_new; DROP VIEW temp.merge_m", "merge");
	if (!err)
		err = rpl_export_db_commit(x);
cleanup:
	if (err) {
		rpl_export_db_rollback(x);
		if (added)
			*added = 0;
	}
	sqlite3_exec(x->db, "DROP TABLE IF EXISTS temp.merge_new", NULL, NULL, NULL);
	sqlite3_exec(x->db, "DROP VIEW IF EXISTS temp.merge_m", NULL, NULL, NULL);
	if (attached)
		sqlite3_exec(x->db, "DETACH DATABASE merge_src", NULL, NULL, NULL);
	return err;
}
