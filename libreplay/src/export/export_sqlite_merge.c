/*
 * Export, step 2a, the SQLite sink: merging shards, a database's rows into
 * another's, copy by copy (export_sqlite_impl.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "export/export_sqlite_impl.h"
#include "log/format.h"
#include "schema_sql.h"
#include "base/msg.h"

/* The tables that hang off a match, in the order their rows are copied, and the schema version that made each. */
static const struct {
	const char *name;
	int since;
} child_tables[] = { { "match_players", 1 }, { "match_meta", 1 },     { "deals", 1 },   { "deal_scores", 1 },
	                 { "deal_seats", 1 },    { "melds", 1 },          { "actions", 1 }, { "decision_values", 6 },
	                 { "reviews", 6 },       { "integrity_deals", 7 } };

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
		return rpl__export_db_fail(x, rc, t);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(st, 0);
		if (!with_id && strcmp(c, "match_id") == 0)
			continue;
		n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s\"%s\"", n ? ", " : "", c);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return rpl__export_db_fail(x, rc, t);
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
		return rpl__export_db_fail(x, rc, t);
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
			return rpl__export_db_fail(x, rc, t);
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
	return rc == SQLITE_OK ? 0 : rpl__export_db_fail(x, rc, what);
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
	rpl__export_sb_add(&b, "CREATE TEMP VIEW merge_m (old_id, %s) AS SELECT s.match_id, %s FROM merge_src.matches s",
	                   cols, sel);
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
		err = rpl__export_db_fail(x, rc, "merge: matches");
		goto cleanup;
	}
	if (!set || !vals || !all) {
		rpl__msgf(x->errmsg, "out of memory");
		err = RPL_ENOMEM;
		goto cleanup;
	}
	/* the same copy: the better file */
	rpl__export_sb_add(&b, "UPDATE main.matches AS m SET (%s) = (%s) FROM temp.merge_m AS s WHERE ", set, vals);
	rpl__export_sb_copy_eq(&b, "m", "s");
	rpl__export_sb_add(
			&b, " AND 2 * coalesce(m.closed, 0) + 1 - m.recovered < 2 * coalesce(s.closed, 0) + 1 - s.recovered");
	if ((err = exec_buf(x, &b, "merge: matches")) != 0)
		goto cleanup;
	/* a row of version 3 or before: the first complete source row of its file and verdict whose copy is new */
	rpl__export_sb_add(
			&b,
			"UPDATE OR IGNORE main.matches AS m SET (%s) = (%s) FROM temp.merge_m AS s WHERE m.signature IS NULL "
			"AND m.hash = s.hash AND +m.verdict = s.verdict AND s.old_id = (SELECT min(t.old_id) FROM temp.merge_m AS "
			"t "
			"WHERE t.hash = s.hash AND +t.verdict = s.verdict AND t.signature IS NOT NULL AND NOT EXISTS "
			"(SELECT 1 FROM main.matches AS c WHERE ",
			set, vals);
	rpl__export_sb_copy_eq(&b, "c", "t");
	rpl__export_sb_add(&b, "))");
	if ((err = exec_buf(x, &b, "merge: matches")) != 0)
		goto cleanup;
	/* the new copies, numbered after this database's last row, in the source's order */
	rpl__export_sb_add(
			&b,
			"CREATE TEMP TABLE merge_new AS SELECT s.old_id AS old_id, (SELECT coalesce(max(match_id), 0) FROM "
			"main.matches) + row_number() OVER (ORDER BY s.old_id) AS new_id FROM temp.merge_m AS s WHERE NOT EXISTS "
			"(SELECT 1 FROM main.matches AS c WHERE ");
	rpl__export_sb_copy_eq(&b, "c", "s");
	rpl__export_sb_add(
			&b, ") AND NOT (s.signature IS NULL AND EXISTS (SELECT 1 FROM main.matches AS c WHERE c.hash = s.hash "
				"AND +c.verdict = s.verdict))");
	if ((err = exec_buf(x, &b, "merge")) != 0)
		goto cleanup;
	rpl__export_sb_add(&b,
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

/*
 * A merge's batch. The rows come from another file, which anything may have
 * written: the schema's CHECKs are evaluated on them, though a batch of the
 * rows of logs does without (rpl_export_db_begin turns them off). A row that
 * breaks one fails the merge, and the batch is rolled back whole.
 */
static int begin_checked(rpl_export_db *x)
{
	int err = rpl_export_db_begin(x);

	if (err)
		return err;
	if (sqlite3_exec(x->db, "PRAGMA ignore_check_constraints = OFF", NULL, NULL, NULL) != SQLITE_OK)
		return rpl__export_db_fail(x, sqlite3_errcode(x->db), "cannot set ignore_check_constraints");
	return RPL_OK;
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
		err = rpl__export_db_fail(x, rc, "cannot open");
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
	if ((err = begin_checked(x)) != 0)
		goto cleanup;
	if ((err = merge_matches(x, added)) != 0)
		goto cleanup;
	for (size_t i = 0; i < sizeof(child_tables) / sizeof(child_tables[0]); i++) {
		char sel[4096];
		const char *t = child_tables[i].name;
		if (version < child_tables[i].since)
			continue; /* an older shard has no such rows */
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
