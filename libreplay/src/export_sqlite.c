/*
 * Export, step 2a: the SQLite sink. The schema is the files schema/NNN-NAME.sql, embedded at
 * build time (schema_sql.h); PRAGMA user_version says which steps a database
 * has. Every write goes through a prepared statement with bound values.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "export_impl.h"
#include "schema_sql.h"

#define DEFAULT_TIMEOUT_MS (10 * 60 * 1000)

enum {
	ST_MATCH, ST_FIND, ST_PLAYER, ST_META, ST_DEAL, ST_SCORE, ST_SEAT, ST_MELD, ST_ACTION, ST_ACTIONS_STORED,
	ST_COUNT
};

static const char *const sql_text[ST_COUNT] = {
	[ST_MATCH] = "INSERT OR IGNORE INTO matches (hash, file, bytes, format_version, profile, overrides, players, "
	             "target, first_dealer, start_time, start_unix, verdict, verdict_detail, verdict_deal, verdict_turn, "
	             "verdict_seat, verdict_decision, verdict_rule, verdict_offset, recovered, deals, decisions, winner, "
	             "total0, total1, actions_stored) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
	             "?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26)",
	[ST_FIND] = "SELECT match_id, actions_stored, verdict FROM matches WHERE hash = ?1",
	[ST_PLAYER] = "INSERT INTO match_players (match_id, seat, side, name) VALUES (?1, ?2, ?3, ?4)",
	[ST_META] = "INSERT INTO match_meta (match_id, idx, key, value) VALUES (?1, ?2, ?3, ?4)",
	[ST_DEAL] = "INSERT INTO deals (match_id, deal, dealer, first_seat, end_kind, out_seat, out_side, turns, "
	            "decisions, pile_taken, pile_frozen, rejects, morto_direct, morto_indirect, morto_to_stock, "
	            "vulnerable_open, morto0, morto0_side, morto1, morto1_side) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, "
	            "?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)",
	[ST_SCORE] = "INSERT INTO deal_scores (match_id, deal, side, melded, bonus, canastras, canastras_dirty, "
	             "canastras_clean, canastras_clean13, canastras_clean14, canastras_dirty14, going_out, hand, morto, "
	             "total, match_total) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
	[ST_SEAT] = "INSERT INTO deal_seats (match_id, deal, seat, side, turns, draws, takes, rejects, melds, adds, "
	            "discards, mortos, went_out) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
	[ST_MELD] = "INSERT INTO melds (match_id, deal, side, idx, suit, lo, hi, length, wilds, clean, category, points, "
	            "bonus, cards) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
	[ST_ACTION] = "INSERT INTO actions (match_id, deal, seq, turn, seat, kind, text) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
	              "?7)",
	[ST_ACTIONS_STORED] = "UPDATE matches SET actions_stored = 1 WHERE match_id = ?1",
};

struct rpl_export_db {
	sqlite3 *db;
	sqlite3_stmt *st[ST_COUNT];
	int in_batch;
	int timeout_ms;
	char errmsg[320];
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

	snprintf(x->errmsg, sizeof(x->errmsg), "%s: %s", what, x->db ? sqlite3_errmsg(x->db) : sqlite3_errstr(rc));
	if (code == SQLITE_NOMEM)
		return RPL_ENOMEM;
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
			snprintf(x->errmsg, sizeof(x->errmsg), "the database is busy: another writer held it for %d ms",
			         x->timeout_ms);
			return RPL_EIO;
		}
		sleep_ms(20);
	}
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

	if ((err = begin_immediate(x)) != 0)
		return err;
	if ((err = query_int(x, "PRAGMA user_version", &version)) != 0 ||
	    (err = query_int(x, "SELECT count(*) FROM sqlite_master", &tables)) != 0)
		goto fail;
	if (version > RPL__SCHEMA_VERSION) {
		snprintf(x->errmsg, sizeof(x->errmsg),
		         "the database has schema version %d, newer than this build's %d: use a newer brp", version,
		         RPL__SCHEMA_VERSION);
		err = RPL_EUNSUPPORTED;
		goto fail;
	}
	if (version == 0 && tables > 0) {
		snprintf(x->errmsg, sizeof(x->errmsg), "the database holds tables but no schema version: not an export");
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

int rpl_export_db_open(rpl_export_db **out, const char *path, int timeout_ms)
{
	rpl_export_db *x;
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
	rc = sqlite3_open_v2(path, &x->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK)
		return db_fail(x, rc, path);
	sqlite3_extended_result_codes(x->db, 1);
	sqlite3_busy_timeout(x->db, x->timeout_ms);
	/* WAL: readers do not block the writer; the journal mode is a property of the file */
	if ((err = exec_retry(x, "PRAGMA journal_mode = WAL", "cannot set the journal mode")) != 0 ||
	    (err = exec_retry(x, "PRAGMA foreign_keys = ON", "cannot enable foreign keys")) != 0 ||
	    (err = exec_retry(x, "PRAGMA synchronous = NORMAL", "cannot set synchronous")) != 0 ||
	    /* statement journals in memory: as temporary files, each INSERT opened and closed one */
	    (err = exec_retry(x, "PRAGMA temp_store = MEMORY", "cannot set temp_store")) != 0)
		return err;
	if ((err = upgrade(x)) != 0)
		return err;
	for (int i = 0; i < ST_COUNT; i++) {
		rc = sqlite3_prepare_v3(x->db, sql_text[i], -1, SQLITE_PREPARE_PERSISTENT, &x->st[i], NULL);
		if (rc != SQLITE_OK)
			return db_fail(x, rc, "cannot prepare a statement");
	}
	return RPL_OK;
}

int rpl_export_db_begin(rpl_export_db *x)
{
	int err;

	if (!x || !x->db)
		return RPL_EINVAL;
	if (x->in_batch) {
		snprintf(x->errmsg, sizeof(x->errmsg), "a batch is already open");
		return RPL_ESTATE;
	}
	if ((err = begin_immediate(x)) != 0)
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
		snprintf(x->errmsg, sizeof(x->errmsg), "no batch is open");
		return RPL_ESTATE;
	}
	err = exec_retry(x, "COMMIT", "cannot commit");
	if (err) {
		rpl_export_db_rollback(x);
		return err;
	}
	x->in_batch = 0;
	return RPL_OK;
}

void rpl_export_db_rollback(rpl_export_db *x)
{
	if (!x || !x->db)
		return;
	for (int i = 0; i < ST_COUNT; i++)
		if (x->st[i])
			sqlite3_reset(x->st[i]);
	if (!sqlite3_get_autocommit(x->db))
		sqlite3_exec(x->db, "ROLLBACK", NULL, NULL, NULL);
	x->in_batch = 0;
}

/* Bind helpers: a negative "none" becomes NULL. */
static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
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
	sqlite3_clear_bindings(st);
	return err;
}

static int insert_match(rpl_export_db *x, const rpl_export_match *m)
{
	sqlite3_stmt *st = x->st[ST_MATCH];
	const rpl_verdict *v = &m->verdict;
	int ok = v->kind == RPL_VERDICT_OK && m->detailed, h = m->have_header;
	char iso[RPL__ISO8601_SIZE], act[160];

	sqlite3_bind_text(st, 1, m->hash, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, m->file, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, (long long)m->bytes);
	bind_int_or_null(st, 4, m->format_version, h);
	bind_text(st, 5, h ? m->profile : NULL);
	bind_text(st, 6, h ? m->overrides : NULL);
	bind_int_or_null(st, 7, m->nplayers, h);
	bind_int_or_null(st, 8, m->target, h);
	bind_int_or_null(st, 9, m->first_dealer, h);
	if (h && m->start_time != 0) {
		rpl__export_iso8601(m->start_time, iso);
		sqlite3_bind_text(st, 10, iso, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, 11, (long long)m->start_time);
	}
	sqlite3_bind_text(st, 12, rpl_verdict_name(v->kind), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 13, v->message, -1, SQLITE_TRANSIENT);
	switch (v->kind) {
	case RPL_VERDICT_ILLEGAL:
		sqlite3_bind_int(st, 14, v->deal);
		if (v->turn > 0) {
			sqlite3_bind_int(st, 15, v->turn);
			sqlite3_bind_int(st, 16, v->seat);
			rpl_action_format(&v->action, act, sizeof(act));
			sqlite3_bind_text(st, 17, act, -1, SQLITE_TRANSIENT);
		}
		sqlite3_bind_text(st, 18, rpl_rule_name(v->rule), -1, SQLITE_STATIC);
		break;
	case RPL_VERDICT_INCOMPLETE:
		sqlite3_bind_int(st, 14, v->deal);
		sqlite3_bind_int(st, 15, v->turn);
		break;
	case RPL_VERDICT_MISMATCH:
		sqlite3_bind_int(st, 14, v->claim_deal);
		break;
	case RPL_VERDICT_MALFORMED:
		sqlite3_bind_int64(st, 19, (long long)v->offset);
		break;
	default:
		break;
	}
	sqlite3_bind_int(st, 20, v->recovered);
	bind_int_or_null(st, 21, v->deals, ok);
	bind_int_or_null(st, 22, v->actions, ok);
	bind_int_or_null(st, 23, v->winner, ok);
	bind_int_or_null(st, 24, v->total[0], ok);
	bind_int_or_null(st, 25, v->total[1], ok);
	sqlite3_bind_int(st, 26, ok && m->has_actions);
	return step_done(x, st, "cannot insert the match");
}

static int insert_actions(rpl_export_db *x, const rpl_export_match *m, sqlite3_int64 id)
{
	sqlite3_stmt *st = x->st[ST_ACTION];
	int err;

	for (size_t k = 0; k < m->ndeals; k++) {
		const struct xdeal *d = &m->deals[k];
		for (size_t i = 0; i < d->nacts; i++) {
			const struct xaction *a = &m->acts[d->act0 + i];
			sqlite3_bind_int64(st, 1, id);
			sqlite3_bind_int(st, 2, d->deal);
			sqlite3_bind_int64(st, 3, (long long)i + 1);
			sqlite3_bind_int(st, 4, a->turn);
			sqlite3_bind_int(st, 5, a->seat);
			sqlite3_bind_text(st, 6, rpl__export_kind_name(a->kind), -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 7, a->text, -1, SQLITE_TRANSIENT);
			if ((err = step_done(x, st, "cannot insert a decision")) != 0)
				return err;
		}
	}
	return RPL_OK;
}

static int insert_deal(rpl_export_db *x, const rpl_export_match *m, const struct xdeal *d, sqlite3_int64 id)
{
	sqlite3_stmt *st = x->st[ST_DEAL];
	int err, out = d->st.end == RPL_DEAL_OUT && d->st.out_seat >= 0;

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, d->deal);
	sqlite3_bind_int(st, 3, d->dealer);
	sqlite3_bind_int(st, 4, d->first_seat);
	sqlite3_bind_text(st, 5, d->st.end == RPL_DEAL_OUT ? "out" : "stock", -1, SQLITE_STATIC);
	bind_int_or_null(st, 6, d->st.out_seat, out);
	bind_int_or_null(st, 7, d->st.out_seat % 2, out);
	sqlite3_bind_int(st, 8, d->st.turns);
	sqlite3_bind_int(st, 9, d->st.actions);
	sqlite3_bind_int(st, 10, d->st.pile_taken);
	sqlite3_bind_int(st, 11, d->st.pile_frozen);
	sqlite3_bind_int(st, 12, d->st.rejects);
	sqlite3_bind_int(st, 13, d->st.morto_direct);
	sqlite3_bind_int(st, 14, d->st.morto_indirect);
	sqlite3_bind_int(st, 15, d->st.morto_to_stock);
	sqlite3_bind_int(st, 16, d->st.vulnerable_open);
	for (int i = 0; i < 2; i++) {
		int taken = d->morto[i] == XM_DIRECT || d->morto[i] == XM_INDIRECT;
		sqlite3_bind_text(st, 17 + 2 * i, rpl__export_morto_names[d->morto[i]], -1, SQLITE_STATIC);
		bind_int_or_null(st, 18 + 2 * i, d->morto_side[i], taken);
	}
	if ((err = step_done(x, st, "cannot insert a deal")) != 0)
		return err;

	st = x->st[ST_SCORE];
	for (int s = 0; s < 2; s++) {
		const rpl_score *sc = &d->score[s];
		int32_t all = 0;
		for (int c = 1; c < RPL_CANASTRA_NCAT; c++)
			all += sc->canastras[c];
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int(st, 2, d->deal);
		sqlite3_bind_int(st, 3, s);
		sqlite3_bind_int(st, 4, sc->melded);
		sqlite3_bind_int(st, 5, sc->bonus);
		sqlite3_bind_int(st, 6, all);
		sqlite3_bind_int(st, 7, sc->canastras[RPL_CANASTRA_DIRTY]);
		sqlite3_bind_int(st, 8, sc->canastras[RPL_CANASTRA_CLEAN]);
		sqlite3_bind_int(st, 9, sc->canastras[RPL_CANASTRA_CLEAN13]);
		sqlite3_bind_int(st, 10, sc->canastras[RPL_CANASTRA_CLEAN14]);
		sqlite3_bind_int(st, 11, sc->canastras[RPL_CANASTRA_DIRTY14]);
		sqlite3_bind_int(st, 12, sc->going_out);
		sqlite3_bind_int(st, 13, sc->hand);
		sqlite3_bind_int(st, 14, sc->morto);
		sqlite3_bind_int(st, 15, sc->total);
		sqlite3_bind_int(st, 16, d->match_total[s]);
		if ((err = step_done(x, st, "cannot insert a deal score")) != 0)
			return err;
	}

	st = x->st[ST_SEAT];
	for (int seat = 0; seat < m->nplayers && seat < 4; seat++) {
		const struct xseat *xs = &d->seat[seat];
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int(st, 2, d->deal);
		sqlite3_bind_int(st, 3, seat);
		sqlite3_bind_int(st, 4, seat % 2);
		sqlite3_bind_int(st, 5, xs->turns);
		sqlite3_bind_int(st, 6, xs->draws);
		sqlite3_bind_int(st, 7, xs->takes);
		sqlite3_bind_int(st, 8, xs->rejects);
		sqlite3_bind_int(st, 9, xs->melds);
		sqlite3_bind_int(st, 10, xs->adds);
		sqlite3_bind_int(st, 11, xs->discards);
		sqlite3_bind_int(st, 12, xs->mortos);
		sqlite3_bind_int(st, 13, xs->went_out);
		if ((err = step_done(x, st, "cannot insert a seat's deal")) != 0)
			return err;
	}

	st = x->st[ST_MELD];
	for (size_t i = 0; i < d->nmelds; i++) {
		const struct xmeld *xm = &m->melds[d->meld0 + i];
		const rpl_meld_info *mi = &xm->info;
		char cards[160];
		rpl__export_meld_cards(mi, cards, sizeof(cards));
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int(st, 2, d->deal);
		sqlite3_bind_int(st, 3, xm->side);
		sqlite3_bind_int(st, 4, xm->idx);
		sqlite3_bind_text(st, 5, rpl__export_suit_name(mi->suit), -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 6, mi->lo);
		sqlite3_bind_int(st, 7, mi->hi);
		sqlite3_bind_int(st, 8, mi->length);
		sqlite3_bind_int(st, 9, mi->wilds);
		sqlite3_bind_int(st, 10, mi->clean);
		sqlite3_bind_text(st, 11, rpl_canastra_name(mi->category), -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 12, mi->points);
		sqlite3_bind_int(st, 13, mi->bonus);
		sqlite3_bind_text(st, 14, cards, -1, SQLITE_TRANSIENT);
		if ((err = step_done(x, st, "cannot insert a meld")) != 0)
			return err;
	}
	return RPL_OK;
}

int rpl_export_db_add(rpl_export_db *x, const rpl_export_match *m, int *added)
{
	sqlite3_stmt *st;
	sqlite3_int64 id;
	int err, rc;

	if (added)
		*added = 0;
	if (!x || !x->db || !m)
		return RPL_EINVAL;
	if (!x->in_batch) {
		snprintf(x->errmsg, sizeof(x->errmsg), "no batch is open");
		return RPL_ESTATE;
	}
	if ((err = insert_match(x, m)) != 0)
		return err;
	if (sqlite3_changes(x->db) == 0) {
		/* already there: only decisions it lacks may be added */
		int stored = 1, ok = 0;
		st = x->st[ST_FIND];
		sqlite3_bind_text(st, 1, m->hash, -1, SQLITE_TRANSIENT);
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			id = sqlite3_column_int64(st, 0);
			stored = sqlite3_column_int(st, 1);
			ok = strcmp((const char *)sqlite3_column_text(st, 2), "ok") == 0;
		}
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		if (rc != SQLITE_ROW)
			return db_fail(x, rc, "cannot find the match");
		if (stored || !ok || !m->detailed || !m->has_actions)
			return RPL_OK;
		if ((err = insert_actions(x, m, id)) != 0)
			return err;
		sqlite3_bind_int64(x->st[ST_ACTIONS_STORED], 1, id);
		return step_done(x, x->st[ST_ACTIONS_STORED], "cannot mark the decisions stored");
	}
	id = sqlite3_last_insert_rowid(x->db);
	if (added)
		*added = 1;
	st = x->st[ST_PLAYER];
	for (int s = 0; m->have_header && s < m->nplayers && s < 4; s++) {
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int(st, 2, s);
		sqlite3_bind_int(st, 3, s % 2);
		bind_text(st, 4, m->players[s]);
		if ((err = step_done(x, st, "cannot insert a player")) != 0)
			return err;
	}
	st = x->st[ST_META];
	for (size_t i = 0; i < m->nmeta; i++) {
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, (long long)i);
		sqlite3_bind_text(st, 3, m->meta_keys[i], -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 4, m->meta_values[i], -1, SQLITE_TRANSIENT);
		if ((err = step_done(x, st, "cannot insert metadata")) != 0)
			return err;
	}
	if (m->verdict.kind != RPL_VERDICT_OK || !m->detailed)
		return RPL_OK;
	for (size_t k = 0; k < m->ndeals; k++)
		if ((err = insert_deal(x, m, &m->deals[k], id)) != 0)
			return err;
	if (m->has_actions)
		return insert_actions(x, m, id);
	return RPL_OK;
}

void rpl_export_db_free(rpl_export_db *x)
{
	if (!x)
		return;
	if (x->db && x->in_batch)
		rpl_export_db_rollback(x);
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(x->st[i]);
	if (x->db)
		sqlite3_close(x->db);
	free(x);
}

const char *rpl_export_db_errmsg(const rpl_export_db *x)
{
	return x ? x->errmsg : "";
}

/* ---- merging shards ---- */

/* The tables that hang off a match, in the order their rows are copied. */
static const char *const child_tables[] = { "match_players", "match_meta", "deals", "deal_scores",
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

int rpl_export_db_merge(rpl_export_db *x, const char *src, int *added)
{
	sqlite3_stmt *st = NULL;
	char cols[2048], sql[5120];
	int rc, err = 0, attached = 0, version = -1;

	if (added)
		*added = 0;
	if (!x || !src)
		return RPL_EINVAL;
	if (x->in_batch) {
		snprintf(x->errmsg, sizeof(x->errmsg), "a batch is open: a merge is a batch of its own");
		return RPL_ESTATE;
	}
	/* SQLite attaches outside a transaction; the path is bound, not spliced into the SQL */
	rc = sqlite3_prepare_v2(x->db, "ATTACH DATABASE ?1 AS merge_src", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, src, -1, SQLITE_TRANSIENT);
		rc = sqlite3_step(st);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (rc != SQLITE_DONE) {
		err = db_fail(x, rc, src);
		goto cleanup;
	}
	attached = 1;
	rc = sqlite3_prepare_v2(x->db, "PRAGMA merge_src.user_version", -1, &st, NULL);
	if (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	if (version != RPL__SCHEMA_VERSION) {
		snprintf(x->errmsg, sizeof(x->errmsg), "%s: schema version %d, not %d: export it again or upgrade it first",
		         src, version, RPL__SCHEMA_VERSION);
		err = version > RPL__SCHEMA_VERSION ? RPL_EUNSUPPORTED : RPL_EIO;
		goto cleanup;
	}
	err = rpl_export_db_begin(x);
	if (err)
		goto cleanup;
	/* the matches this database lacks, by hash, and their new ids */
	err = exec_sql(x,
	               "CREATE TEMP TABLE merge_new AS SELECT match_id AS old_id, hash FROM merge_src.matches "
	               "WHERE hash NOT IN (SELECT hash FROM main.matches) ORDER BY match_id",
	               "merge");
	if (err)
		goto cleanup;
	err = columns(x, "matches", 0, cols, sizeof(cols));
	if (err)
		goto cleanup;
	snprintf(sql, sizeof(sql),
	         "INSERT INTO main.matches (%s) SELECT %s FROM merge_src.matches "
	         "WHERE match_id IN (SELECT old_id FROM merge_new) ORDER BY match_id",
	         cols, cols);
	err = exec_sql(x, sql, "merge: matches");
	if (err)
		goto cleanup;
	if (added)
		*added = sqlite3_changes(x->db);
	err = exec_sql(x,
	               "CREATE TEMP TABLE merge_map AS SELECT n.old_id, m.match_id AS new_id FROM merge_new n "
	               "JOIN main.matches m ON m.hash = n.hash",
	               "merge");
	if (err)
		goto cleanup;
	for (size_t i = 0; i < sizeof(child_tables) / sizeof(child_tables[0]); i++) {
		char sel[2048];
		const char *t = child_tables[i];
		err = columns(x, t, 0, cols, sizeof(cols));
		if (err)
			goto cleanup;
		/* the same columns, read from the source table aliased s */
		{
			size_t n = 0;
			const char *p = cols;
			sel[0] = '\0';
			while (*p) {
				const char *q = strchr(p, ',');
				size_t len = q ? (size_t)(q - p) : strlen(p);
				n += (size_t)snprintf(sel + n, n < sizeof(sel) ? sizeof(sel) - n : 0, "%ss.%.*s", n ? ", " : "",
				                      (int)len, p);
				p += len;
				while (*p == ',' || *p == ' ')
					p++;
			}
		}
		snprintf(sql, sizeof(sql),
		         "INSERT INTO main.%s (match_id, %s) SELECT map.new_id, %s FROM merge_src.%s s "
		         "JOIN merge_map map ON s.match_id = map.old_id",
		         t, cols, sel, t);
		err = exec_sql(x, sql, t);
		if (err)
			goto cleanup;
	}
	err = exec_sql(x, "DROP TABLE temp.merge_new; DROP TABLE temp.merge_map", "merge");
	if (!err)
		err = rpl_export_db_commit(x);
cleanup:
	if (err) {
		rpl_export_db_rollback(x);
		if (added)
			*added = 0;
	}
	sqlite3_exec(x->db, "DROP TABLE IF EXISTS temp.merge_new", NULL, NULL, NULL);
	sqlite3_exec(x->db, "DROP TABLE IF EXISTS temp.merge_map", NULL, NULL, NULL);
	if (attached)
		sqlite3_exec(x->db, "DETACH DATABASE merge_src", NULL, NULL, NULL);
	return err;
}
