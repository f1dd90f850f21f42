/*
 * Export, step 2a: the SQLite sink, its database (export_sqlite_impl.h lists
 * the sink's files). The schema is the files schema/NNN-NAME.sql, embedded at
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

#include "export/export_sqlite_impl.h"
#include "log/format.h"
#include "schema_sql.h"
#include "base/msg.h"

#define DEFAULT_TIMEOUT_MS (10 * 60 * 1000)

/* The names of the MC_ columns (export_sqlite_impl.h), in their order. */
/* clang-format off */
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

/*
 * The statements that write a whole row are made from match_cols (make_sql);
 * NULL here. The others:
 */
static const char *const sql_text[ST_COUNT] = {
	/* the copy: ?1 to ?8 are the values of the terms of rpl__export_sb_copy_eq, the index matches_copy serves it */
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
	/* a row reviewed has a reviews row a seat for the match (deal 0) */
	[ST_REVIEWED] = "SELECT 1 FROM reviews WHERE match_id = ?1 LIMIT 1",
	/* a row screened has evidence: an ok log of 2 or 4 players has decisions with a choice */
	[ST_SCREENED] = "SELECT 1 FROM integrity_deals WHERE match_id = ?1 LIMIT 1",
};

/* The chunk sizes of the rows that hang off a match, largest first, and each table's statement. */
const int rpl__export_chunk_rows[NCHUNK] = { MAX_CHUNK_ROWS, 8, 4, 2, 1 };
const struct row_table rpl__export_row_tables[TB_COUNT] = {
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
	[TB_VALUE] = { "INSERT OR ROLLBACK INTO decision_values (match_id, deal, number, turn, decision, seat, side, "
	               "played, best, greedy, value_played, value_best, loss, se, samples, candidates, class, uncertain, "
	               "win_loss, accuracy) VALUES ",
	               20, "cannot insert a decision's review" },
	[TB_REVIEW] = { "INSERT OR ROLLBACK INTO reviews (match_id, seat, deal, side, decisions, matched, accuracy, "
	                "match_rate, loss, inaccuracies, mistakes, blunders, strength, seed, candidates, significance, "
	                "hindsight, version) VALUES ",
	                18, "cannot insert a review" },
	[TB_EVIDENCE] = { "INSERT OR ROLLBACK INTO integrity_deals (match_id, deal, seat, statistic, target, relation, "
	                  "bin, decisions, observed, expected, residual, options, excess, samples, seed, version) "
	                  "VALUES ",
	                  16, "cannot insert a deal's integrity evidence" },
};

int rpl_export_schema_version(void)
{
	return RPL__SCHEMA_VERSION;
}

const char *rpl_export_schema_sql(int version)
{
	return version >= 1 && version <= RPL__SCHEMA_VERSION ? rpl__schema_sql[version - 1] : NULL;
}

int rpl__export_db_fail(rpl_export_db *x, int rc, const char *what)
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
			return rpl__export_db_fail(x, rc, "cannot begin a transaction");
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
			return rpl__export_db_fail(x, rc, what);
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
		return rpl__export_db_fail(x, rc, "cannot read the schema");
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		int err = rpl__export_db_fail(x, rc, "cannot read the schema");
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
			err = rpl__export_db_fail(x, rc, what);
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

void rpl__export_sb_add(struct sqlbuf *b, const char *fmt, ...)
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
void rpl__export_sb_copy_eq(struct sqlbuf *b, const char *a, const char *c)
{
	rpl__export_sb_add(b, "coalesce(%s.identity, %s.hash) = coalesce(%s.identity, %s.hash)", a, a, c, c);
	rpl__export_sb_add(b, " AND %s.verdict = %s.verdict", a, c);
	rpl__export_sb_add(b, " AND coalesce(%s.signature, '') = coalesce(%s.signature, '')", a, c);
	rpl__export_sb_add(b, " AND coalesce(%s.signature_key, '') = coalesce(%s.signature_key, '')", a, c);
	rpl__export_sb_add(b, " AND coalesce(%s.signature_fingerprint, '') = coalesce(%s.signature_fingerprint, '')", a, c);
	rpl__export_sb_add(b, " AND coalesce(%s.signature_trusted, -1) = coalesce(%s.signature_trusted, -1)", a, c);
	rpl__export_sb_add(b, " AND coalesce(%s.dealing, '') = coalesce(%s.dealing, '')", a, c);
	rpl__export_sb_add(b, " AND coalesce(%s.replay_trusted, -1) = coalesce(%s.replay_trusted, -1)", a, c);
}

/* "a, b, c" or "?1, ?2, ?3": the columns of match_cols, or their parameters. */
static void sb_match_cols(struct sqlbuf *b, int params)
{
	for (int i = 0; i < MC_COUNT; i++) {
		if (params)
			rpl__export_sb_add(b, "%s?%d", i ? ", " : "", i + 1);
		else
			rpl__export_sb_add(b, "%s%s", i ? ", " : "", match_cols[i]);
	}
}

/* The statements that write a whole row (NULL in sql_text), into *out (the caller frees it). */
static int make_sql(rpl_export_db *x, int i, char **out)
{
	struct sqlbuf b = { 0 };

	if (i == ST_MATCH) {
		rpl__export_sb_add(&b, "INSERT OR IGNORE INTO matches (");
		sb_match_cols(&b, 0);
		rpl__export_sb_add(&b, ", actions_stored) VALUES (");
		sb_match_cols(&b, 1);
		rpl__export_sb_add(&b, ", ?%d)", MC_COUNT + 1);
	} else {
		/*
		 * ST_COMPLETE: a row of version 3 or before takes the columns of its
		 * own file (OR IGNORE: unless a row of that copy is there already).
		 * ST_BETTER_FILE: a better file of the same copy, a closed one over
		 * an unclosed one, then one not salvaged over one salvaged.
		 */
		rpl__export_sb_add(&b, "UPDATE OR IGNORE matches SET (");
		sb_match_cols(&b, 0);
		rpl__export_sb_add(&b, ") = (");
		sb_match_cols(&b, 1);
		rpl__export_sb_add(&b, ") WHERE match_id = ?%d", MC_COUNT + 1);
		if (i == ST_BETTER_FILE)
			rpl__export_sb_add(&b, " AND 2 * coalesce(closed, 0) + 1 - recovered < 2 * ?%d + 1 - ?%d", MC_CLOSED,
			                   MC_RECOVERED);
	}
	if (b.failed) {
		free(b.s);
		rpl__msgf(x->errmsg, "out of memory");
		return RPL_ENOMEM;
	}
	*out = b.s;
	return RPL_OK;
}

/*
 * The statement that inserts rpl__export_chunk_rows[k] rows into table t:
 * "(?1, ?2, ?3), (?1, ?4, ?5)". The match_id is ?1 in every row; row r's
 * column c (from 0) is ?(1 + r * (ncols - 1) + c) for c >= 1.
 */
static int prepare_rows(rpl_export_db *x, int t, int k)
{
	int ncols = rpl__export_row_tables[t].ncols, param = 2;
	size_t len = strlen(rpl__export_row_tables[t].head);
	size_t size = len + (size_t)rpl__export_chunk_rows[k] * ((size_t)ncols * 8 + 4) + 1;
	char *sql = malloc(size);
	int rc;

	if (!sql) {
		rpl__msgf(x->errmsg, "out of memory");
		return RPL_ENOMEM;
	}
	memcpy(sql, rpl__export_row_tables[t].head, len);
	for (int r = 0; r < rpl__export_chunk_rows[k]; r++) {
		len += (size_t)snprintf(sql + len, size - len, "%s(?1", r ? "," : "");
		for (int c = 1; c < ncols; c++)
			len += (size_t)snprintf(sql + len, size - len, ", ?%d", param++);
		sql[len++] = ')';
	}
	sql[len] = '\0';
	rc = sqlite3_prepare_v3(x->db, sql, (int)len, SQLITE_PREPARE_PERSISTENT, &x->rows[t][k], NULL);
	free(sql);
	if (rc != SQLITE_OK)
		return rpl__export_db_fail(x, rc, "cannot prepare a statement");
	/* nothing bound yet: every parameter unknown */
	x->bound[t][k] = calloc((size_t)param, sizeof(*x->bound[t][k]));
	if (!x->bound[t][k]) {
		rpl__msgf(x->errmsg, "out of memory");
		return RPL_ENOMEM;
	}
	return RPL_OK;
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
 * at its next write (SQLite: SQLITE_READONLY_DBMOVED, see rpl__export_db_fail) or at its
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
		return rpl__export_db_fail(x, rc, "cannot open");
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
			return rpl__export_db_fail(x, rc, "cannot prepare a statement");
	}
	for (int t = 0; t < TB_COUNT; t++)
		for (int k = 0; k < NCHUNK; k++)
			if ((err = prepare_rows(x, t, k)) != 0)
				return err;
	return RPL_OK;
}

/*
 * Whether the batch began on a database without a match (x->fresh): then
 * every row it holds is its own, with its signature's status, and ST_OLDER
 * has nothing to find. (Its indexes were also dropped here and made again at
 * the commit, by a sort each: 0.7 % fewer instructions on the bench corpus,
 * but the sort held about 1 MiB more at the commit for 10,200 logs than for
 * 1,000, and memory is to stay flat in the corpus size: not kept.)
 */
int rpl__export_db_fresh(rpl_export_db *x)
{
	int any = 1, err;

	if ((err = query_int(x, "SELECT EXISTS (SELECT 1 FROM matches)", &any)) != 0)
		return err;
	x->fresh = !any;
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
	/*
	 * The schema's CHECK constraints are not evaluated on the rows a batch
	 * adds, for the reason foreign keys are not enforced (rpl_export_db_open):
	 * each value is one the code here picks from a fixed set (a suit's letter,
	 * a category's name, a verdict's kind), so a check could only fail on a
	 * bug here, and the tests run integrity_check, which tests every CHECK of
	 * every row. They cost 2.5 % of an export's instructions (docs/performance.md,
	 * "Export, round four"). A merge turns them on again (rpl_export_db_merge).
	 */
	if (sqlite3_exec(x->db, "PRAGMA ignore_check_constraints = ON", NULL, NULL, NULL) != SQLITE_OK)
		return rpl__export_db_fail(x, sqlite3_errcode(x->db), "cannot set ignore_check_constraints");
	if ((err = begin_write(x)) != 0)
		return err;
	x->in_batch = 1;
	x->fresh = -1;
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
		for (int k = 0; k < NCHUNK; k++) {
			sqlite3_finalize(x->rows[t][k]);
			free(x->bound[t][k]);
		}
	if (x->db)
		sqlite3_close(x->db);
	free(x->path);
	free(x);
}

const char *rpl_export_db_errmsg(const rpl_export_db *x)
{
	return x ? x->errmsg : "";
}
