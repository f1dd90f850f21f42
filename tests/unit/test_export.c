/* The export module: SHA-256, the embedded schema, the SQLite and CSV sinks, the review and the integrity screen. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "export/export_impl.h"
#include "testlib.h"
#include "base/sha256.h"

static void sha256_vectors(void **state)
{
	/* FIPS 180-4 examples and the million-a test */
	static const struct {
		const char *in;
		const char *hex;
	} v[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1" },
	};
	char hex[65];
	rpl_sha256 s;
	uint8_t d[32];
	char *a = malloc(1000000);

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		rpl__sha256_hex(v[i].in, strlen(v[i].in), hex);
		assert_string_equal(hex, v[i].hex);
	}
	assert_non_null(a);
	memset(a, 'a', 1000000);
	/* in uneven pieces, across block boundaries */
	rpl__sha256_init(&s);
	for (size_t off = 0, step = 1; off < 1000000; off += step, step = step * 7 % 193 + 1)
		rpl__sha256_update(&s, a + off, off + step > 1000000 ? 1000000 - off : step);
	rpl__sha256_final(&s, d);
	rpl__sha256_hex(a, 1000000, hex);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	assert_int_equal(d[0], 0xcd);
	assert_int_equal(d[31], 0xd0);
	free(a);
}

/* The library's embedded schema is byte for byte schema/NNN-*.sql. */
static void schema_matches_files(void **state)
{
	int n = rpl_export_schema_version();

	(void)state;
	assert_true(n >= 1);
	assert_null(rpl_export_schema_sql(0));
	assert_null(rpl_export_schema_sql(n + 1));
	for (int v = 1; v <= n + 1; v++) {
		char pattern[64], path[4096];
		FILE *p;
		snprintf(pattern, sizeof(pattern), "%03d-*.sql", v);
		snprintf(path, sizeof(path), "ls %s/schema/%s 2>/dev/null", SRCROOT, pattern);
		p = popen(path, "r");
		assert_non_null(p);
		path[0] = '\0';
		if (!fgets(path, sizeof(path), p))
			path[0] = '\0';
		pclose(p);
		if (v == n + 1) {
			assert_string_equal(path, ""); /* no schema file the library lacks */
			break;
		}
		path[strcspn(path, "\n")] = '\0';
		{
			FILE *f = fopen(path, "rb");
			char *text = calloc(1, 1 << 20);
			size_t len;
			assert_non_null(f);
			assert_non_null(text);
			len = fread(text, 1, (1 << 20) - 1, f);
			fclose(f);
			text[len] = '\0';
			assert_string_equal(rpl_export_schema_sql(v), text);
			free(text);
		}
	}
}

/* A damaged log is a verdict, exported without deals; the same bytes twice add nothing. */
static void sinks(void **state)
{
	char dir[] = "/tmp/test_export.XXXXXX", path[256];
	rpl_export_match *m = NULL;
	rpl_export_db *db = NULL;
	rpl_export_csv *csv = NULL;
	int added = -1;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(rpl_export_match_load_memory(&m, "junk.brp", "not a log", 9, 0), 0);
	assert_int_equal(rpl_export_match_verdict(m)->kind, RPL_VERDICT_MALFORMED);
	assert_int_equal(strlen(rpl_export_match_hash(m)), 64);

	snprintf(path, sizeof(path), "%s/x.db", dir);
	assert_int_equal(rpl_export_db_open(&db, path, 1000), 0);
	assert_int_equal(rpl_export_db_add(db, m, &added), RPL_ESTATE);
	assert_int_equal(rpl_export_db_begin(db), 0);
	assert_int_equal(rpl_export_db_begin(db), RPL_ESTATE);
	assert_int_equal(rpl_export_db_add(db, m, &added), 0);
	assert_int_equal(added, 1);
	assert_int_equal(rpl_export_db_add(db, m, &added), 0);
	assert_int_equal(added, 0);
	assert_int_equal(rpl_export_db_commit(db), 0);
	rpl_export_db_free(db);
	db = NULL;

	assert_int_equal(rpl_export_csv_open(&csv, dir, 0), 0);
	assert_int_equal(rpl_export_csv_add(csv, m, &added), 0);
	assert_int_equal(added, 1);
	assert_int_equal(rpl_export_csv_add(csv, m, &added), 0);
	assert_int_equal(added, 0);
	snprintf(path, sizeof(path), "%s/matches.csv", dir);
	assert_int_not_equal(access(path, F_OK), 0); /* not there before finish */
	assert_int_equal(rpl_export_csv_finish(csv), 0);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(rpl_export_csv_finish(csv), RPL_ESTATE);
	rpl_export_csv_free(csv);
	assert_int_equal(rpl_export_csv_open(&csv, dir, 0x80), RPL_EINVAL); /* an unknown flag */
	assert_null(csv);

	/* the workbook: written under a temporary name, renamed at finish; an unfinished one leaves nothing */
	{
		rpl_export_xlsx *x = NULL;
		char part[300];
		snprintf(path, sizeof(path), "%s/w.xlsx", dir);
		snprintf(part, sizeof(part), "%s.part~", path);
		assert_int_equal(rpl_export_xlsx_open(&x, path), 0);
		assert_int_equal(rpl_export_xlsx_add(x, m, &added), 0);
		assert_int_equal(added, 1);
		assert_int_equal(rpl_export_xlsx_add(x, m, &added), 0);
		assert_int_equal(added, 0);
		rpl_export_xlsx_free(x);
		assert_int_not_equal(access(path, F_OK), 0);
		assert_int_not_equal(access(part, F_OK), 0);
		x = NULL;
		assert_int_equal(rpl_export_xlsx_open(&x, path), 0);
		assert_int_equal(rpl_export_xlsx_add(x, m, &added), 0);
		assert_int_equal(rpl_export_xlsx_finish(x), 0);
		assert_int_equal(rpl_export_xlsx_finish(x), RPL_ESTATE);
		rpl_export_xlsx_free(x);
		assert_int_equal(access(path, F_OK), 0);
		assert_int_not_equal(access(part, F_OK), 0);
		/* an existing path that is not a regular file is refused before anything is written */
		x = NULL;
		assert_int_equal(rpl_export_xlsx_open(&x, dir), RPL_EIO);
		assert_non_null(x);
		assert_string_equal(rpl_export_xlsx_errmsg(x), "a directory, not a regular file");
		rpl_export_xlsx_free(x);
	}

	/* a missing file is an error, with a message */
	rpl_export_match_free(m);
	m = NULL;
	snprintf(path, sizeof(path), "%s/missing.brp", dir);
	assert_int_equal(rpl_export_match_load(&m, path, 0), RPL_EIO);
	assert_non_null(m);
	assert_true(strlen(rpl_export_match_errmsg(m)) > 0);
	rpl_export_match_free(m);

	snprintf(path, sizeof(path), "rm -rf %s", dir);
	assert_int_equal(system(path), 0);
}

static int count_rows(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int n = -1;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

/* A load of bytes, judged with trusted (may be NULL). */
static rpl_export_match *load(const char *name, const unsigned char *p, size_t n, const rpl_keyring *trusted)
{
	rpl_export_match *m = NULL;

	assert_int_equal(rpl_export_match_load_memory_trusted(&m, name, p, n, 0, trusted), 0);
	return m;
}

/* Add each match in one batch; returns how many rows were added. */
static int add_all(const char *path, rpl_export_match *const *ms, int n)
{
	rpl_export_db *db = NULL;
	int added, total = 0;

	assert_int_equal(rpl_export_db_open(&db, path, 1000), 0);
	assert_int_equal(rpl_export_db_begin(db), 0);
	for (int i = 0; i < n; i++) {
		assert_int_equal(rpl_export_db_add(db, ms[i], &added), 0);
		total += added;
	}
	assert_int_equal(rpl_export_db_commit(db), 0);
	rpl_export_db_free(db);
	return total;
}

/*
 * Copies (docs/schema.md): a signed log and the same log unsigned are one
 * match, two copies, two rows in either order; a copy given again adds
 * nothing; judged with the signer's key they are two more copies (ok and
 * trusted, untrusted); merged, each database's copies are all kept, once;
 * the statistics count the match once.
 */
static void copies(void **state)
{
	const char *log = tl_tmp_path("copies.brp"), *a = tl_tmp_path("copies-a.db"), *b = tl_tmp_path("copies-b.db");
	char sample[4096], sql[256];
	unsigned char *plain, *signed_;
	size_t nplain, nsigned;
	rpl_seckey *k = NULL;
	rpl_keyring *kr = NULL;
	rpl_pubkey pk;
	rpl_export_match *m[4];
	rpl_export_db *db = NULL;
	int added = -1;

	(void)state;
	snprintf(sample, sizeof(sample), "%s/samples/stbl-2p.brp", SRCROOT);
	plain = tl_read_file(sample, &nplain);
	tl_write_file(log, plain, nplain);
	assert_int_equal(rpl_seckey_generate(&k), 0);
	assert_int_equal(rpl_sign_log(k, log), 0);
	signed_ = tl_read_file(log, &nsigned);
	rpl_seckey_public(k, &pk);
	assert_int_equal(rpl_keyring_new(&kr), 0);
	assert_int_equal(rpl_keyring_add(kr, &pk), 0);
	m[0] = load("signed.brp", signed_, nsigned, NULL);
	m[1] = load("plain.brp", plain, nplain, NULL);
	m[2] = load("signed.brp", signed_, nsigned, kr);
	m[3] = load("plain.brp", plain, nplain, kr);
	assert_string_equal(rpl_export_match_id(m[0]), rpl_export_match_id(m[1]));
	assert_int_equal(rpl_export_match_verdict(m[2])->kind, RPL_VERDICT_OK);
	assert_int_not_equal(rpl_export_match_verdict(m[3])->kind, RPL_VERDICT_OK);

	unlink(a);
	unlink(b);
	assert_int_equal(add_all(a, m, 2), 2);
	assert_int_equal(add_all(a, m, 2), 0); /* each copy again: nothing */
	{
		rpl_export_match *rev[2] = { m[1], m[0] };
		assert_int_equal(add_all(b, rev, 2), 2);
	}
	assert_int_equal(count_rows(a, "SELECT count(DISTINCT identity) FROM matches"), 1);
	assert_int_equal(count_rows(a, "SELECT count(*) FROM matches WHERE signature = 'ok' AND file = 'signed.brp' "
	                               "AND signature_fingerprint IS NOT NULL AND trusted_keys = 0"),
	                 1);
	assert_int_equal(count_rows(a, "SELECT count(*) FROM matches WHERE signature = 'unsigned' AND file = 'plain.brp' "
	                               "AND signature_fingerprint IS NULL"),
	                 1);
	/* each ok copy has its own deals; the views count the match once */
	assert_int_equal(count_rows(a, "SELECT count(DISTINCT match_id) FROM deals"), 2);
	assert_int_equal(count_rows(a, "SELECT count(*) FROM counted_matches"), 1);
	assert_int_equal(count_rows(a, "SELECT max(matches) FROM player_stats"), 1);
	assert_int_equal(count_rows(a, "SELECT sum(matches) FROM seat_advantage"), 2);

	/* judged with the key: two more copies; the signed one trusted */
	unlink(b);
	assert_int_equal(add_all(b, m + 2, 2), 2);
	snprintf(sql, sizeof(sql),
	         "SELECT count(*) FROM matches WHERE file = 'signed.brp' AND verdict = 'ok' AND signature_trusted = 1 "
	         "AND signature_key_trusted = 1 AND trusted_keys = 1 AND signature_trusted_covered = %zu",
	         nsigned);
	assert_int_equal(count_rows(b, sql), 1);
	assert_int_equal(count_rows(b, "SELECT count(*) FROM matches WHERE file = 'plain.brp' AND verdict = 'untrusted'"),
	                 1);

	/* merged: four rows, one match; merging again adds nothing */
	assert_int_equal(rpl_export_db_open(&db, a, 1000), 0);
	assert_int_equal(rpl_export_db_merge(db, b, &added), 0);
	assert_int_equal(added, 2);
	assert_int_equal(rpl_export_db_merge(db, b, &added), 0);
	assert_int_equal(added, 0);
	rpl_export_db_free(db);
	assert_int_equal(count_rows(a, "SELECT count(*) FROM matches"), 4);
	assert_int_equal(count_rows(a, "SELECT count(DISTINCT hash) FROM matches"), 2);
	assert_int_equal(count_rows(a, "SELECT count(*) FROM counted_matches"), 1);
	assert_int_equal(count_rows(a, "SELECT count(*) FROM pragma_foreign_key_check"), 0);

	for (int i = 0; i < 4; i++)
		rpl_export_match_free(m[i]);
	rpl_keyring_free(kr);
	rpl_seckey_free(k);
	free(plain);
	free(signed_);
	unlink(log);
	unlink(a);
	unlink(b);
}

/*
 * An insert that fails (here a trigger refuses the melds of an ok match) takes
 * the whole batch with it: the matches added before in the batch are gone and
 * no batch is open; the next one works.
 */
static void failed_add_rolls_back(void **state)
{
	char dir[] = "/tmp/test_export.XXXXXX", path[256], sample[4096];
	rpl_export_match *ok = NULL, *junk = NULL;
	rpl_export_db *db = NULL;
	sqlite3 *other = NULL;
	int added = -1;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(sample, sizeof(sample), "%s/samples/kzv-4p.brp", SRCROOT);
	assert_int_equal(rpl_export_match_load(&ok, sample, 0), 0);
	assert_int_equal(rpl_export_match_verdict(ok)->kind, RPL_VERDICT_OK);
	assert_int_equal(rpl_export_match_load_memory(&junk, "junk.brp", "not a log", 9, 0), 0);

	snprintf(path, sizeof(path), "%s/x.db", dir);
	assert_int_equal(rpl_export_db_open(&db, path, 1000), 0);
	assert_int_equal(sqlite3_open(path, &other), SQLITE_OK);
	assert_int_equal(sqlite3_exec(other,
	                              "CREATE TRIGGER no_melds BEFORE INSERT ON melds "
	                              "BEGIN SELECT RAISE(ABORT, 'no melds here'); END",
	                              NULL, NULL, NULL),
	                 SQLITE_OK);
	sqlite3_close(other);

	assert_int_equal(rpl_export_db_begin(db), 0);
	assert_int_equal(rpl_export_db_add(db, junk, &added), 0);
	assert_int_equal(added, 1);
	assert_int_equal(rpl_export_db_add(db, ok, &added), RPL_EIO);
	assert_int_equal(added, 0);
	assert_non_null(strstr(rpl_export_db_errmsg(db), "no melds here"));
	assert_int_equal(rpl_export_db_commit(db), RPL_ESTATE); /* no batch open */
	assert_int_equal(count_rows(path, "SELECT count(*) FROM matches"), 0);
	assert_int_equal(count_rows(path, "SELECT count(*) FROM deals"), 0);

	/* the next batch works */
	assert_int_equal(rpl_export_db_begin(db), 0);
	assert_int_equal(rpl_export_db_add(db, junk, &added), 0);
	assert_int_equal(added, 1);
	assert_int_equal(rpl_export_db_commit(db), 0);
	assert_int_equal(count_rows(path, "SELECT count(*) FROM matches"), 1);

	rpl_export_db_free(db);
	rpl_export_match_free(ok);
	rpl_export_match_free(junk);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	assert_int_equal(system(path), 0);
}

/*
 * A database the handle created and never committed to is removed when the
 * handle is freed, if it holds no match; never one that holds a match another
 * handle committed. A handle that had the file open meanwhile finds it gone:
 * before it writes (begin fails) or after (commit fails); neither recreates it.
 */
static void created_database_removed(void **state)
{
	char dir[] = "/tmp/test_export.XXXXXX", path[256], journal[280];
	rpl_export_match *junk = NULL;
	rpl_export_db *a = NULL, *b = NULL;
	int added = -1;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/new.db", dir);
	snprintf(journal, sizeof(journal), "%s-journal", path);
	assert_int_equal(rpl_export_match_load_memory(&junk, "junk.brp", "not a log", 9, 0), 0);

	/* created, schema written, no batch committed: gone with its journal */
	assert_int_equal(rpl_export_db_open(&a, path, 1000), 0);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(rpl_export_db_begin(a), 0);
	assert_int_equal(rpl_export_db_add(a, junk, &added), 0);
	rpl_export_db_free(a); /* the batch rolled back */
	assert_int_not_equal(access(path, F_OK), 0);
	assert_int_not_equal(access(journal, F_OK), 0);

	/* created by a, a match committed by b: kept */
	assert_int_equal(rpl_export_db_open(&a, path, 1000), 0);
	assert_int_equal(rpl_export_db_open(&b, path, 1000), 0);
	assert_int_equal(rpl_export_db_begin(b), 0);
	assert_int_equal(rpl_export_db_add(b, junk, &added), 0);
	assert_int_equal(rpl_export_db_commit(b), 0);
	rpl_export_db_free(a);
	assert_int_equal(count_rows(path, "SELECT count(*) FROM matches"), 1);
	rpl_export_db_free(b);
	assert_int_equal(unlink(path), 0);

	/* created by a and removed: b, open on it, writes nothing and says why */
	assert_int_equal(rpl_export_db_open(&a, path, 1000), 0);
	assert_int_equal(rpl_export_db_open(&b, path, 1000), 0);
	rpl_export_db_free(a);
	assert_int_not_equal(access(path, F_OK), 0);
	assert_int_equal(rpl_export_db_begin(b), RPL_EIO);
	assert_non_null(strstr(rpl_export_db_errmsg(b), "removed or replaced while it was open"));
	rpl_export_db_free(b);
	assert_int_not_equal(access(path, F_OK), 0);

	/* removed while b's batch was under way: b's next write fails */
	assert_int_equal(rpl_export_db_open(&a, path, 1000), 0);
	assert_int_equal(rpl_export_db_open(&b, path, 1000), 0);
	assert_int_equal(rpl_export_db_begin(b), 0);
	rpl_export_db_free(a); /* b has written nothing yet: a's check finds no match */
	assert_int_not_equal(access(path, F_OK), 0);
	/* SQLite refuses to write into a file that was removed (SQLITE_READONLY_DBMOVED) */
	assert_int_equal(rpl_export_db_add(b, junk, &added), RPL_EIO);
	assert_non_null(strstr(rpl_export_db_errmsg(b), "removed or replaced while it was open"));
	rpl_export_db_free(b);
	assert_int_not_equal(access(path, F_OK), 0);

	/* an existing file that is not a database export is never removed */
	{
		sqlite3 *other = NULL;
		assert_int_equal(sqlite3_open(path, &other), SQLITE_OK);
		assert_int_equal(sqlite3_exec(other, "PRAGMA user_version = -1", NULL, NULL, NULL), SQLITE_OK);
		sqlite3_close(other);
	}
	assert_int_equal(rpl_export_db_open(&a, path, 1000), RPL_ECORRUPT);
	assert_non_null(strstr(rpl_export_db_errmsg(a), "schema version -1"));
	rpl_export_db_free(a);
	assert_int_equal(access(path, F_OK), 0);

	/* a special file is refused before SQLite opens it */
	assert_int_equal(rpl_export_db_open(&a, "/dev/null", 1000), RPL_EIO);
	assert_non_null(strstr(rpl_export_db_errmsg(a), "a character device, not a regular file"));
	rpl_export_db_free(a);

	rpl_export_match_free(junk);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	assert_int_equal(system(path), 0);
}

/*
 * A reviewed load: options out of range are refused; in range, the rows of
 * the review are the decisions reviewed (seat 0 only, at the smallest
 * strength: the values are tests/cli/review_export.py's and test_review.py's).
 */
static void reviewed(void **state)
{
	char dir[] = "/tmp/brp-export-review-XXXXXX", path[512], sample[512];
	rpl_review_options o;
	rpl_export_match *m = NULL;
	rpl_export_db *db = NULL;
	sqlite3 *con = NULL;
	sqlite3_stmt *st = NULL;
	int added = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(sample, sizeof(sample), "%s/samples/stbl-2p.brp", SRCROOT);
	rpl_review_options_init(&o);
	o.samples = 1;
	assert_int_equal(rpl_export_match_load_reviewed(&m, sample, 0, NULL, &o), RPL_EINVAL);
	assert_non_null(m);
	assert_string_not_equal(rpl_export_match_errmsg(m), "");
	rpl_export_match_free(m);
	m = NULL;
	o.samples = 2;
	o.seats = 1u;
	assert_int_equal(rpl_export_match_load_reviewed(&m, sample, RPL_EXPORT_ACTIONS, NULL, &o), 0);
	snprintf(path, sizeof(path), "%s/r.db", dir);
	assert_int_equal(rpl_export_db_open(&db, path, 1000), 0);
	assert_int_equal(rpl_export_db_begin(db), 0);
	assert_int_equal(rpl_export_db_add(db, m, &added), 0);
	assert_int_equal(added, 1);
	assert_int_equal(rpl_export_db_commit(db), 0);
	rpl_export_db_free(db);
	assert_int_equal(sqlite3_open(path, &con), SQLITE_OK);
	/* every decision_values row is seat 0's, of an actions row, and the match row counts them */
	assert_int_equal(sqlite3_prepare_v2(con,
	                                    "SELECT (SELECT count(*) FROM decision_values), "
	                                    "(SELECT count(*) FROM decision_values v JOIN actions a ON a.match_id = "
	                                    "v.match_id AND a.deal = v.deal AND a.seq = v.number AND a.seat = 0 AND "
	                                    "a.text = v.played), (SELECT decisions FROM reviews WHERE deal = 0), "
	                                    "(SELECT count(*) FROM reviews WHERE seat <> 0)",
	                                    -1, &st, NULL),
	                 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_true(sqlite3_column_int(st, 0) > 0);
	assert_int_equal(sqlite3_column_int(st, 1), sqlite3_column_int(st, 0));
	assert_int_equal(sqlite3_column_int(st, 2), sqlite3_column_int(st, 0));
	assert_int_equal(sqlite3_column_int(st, 3), 0);
	sqlite3_finalize(st);
	sqlite3_close(con);
	rpl_export_match_free(m);
	unlink(path);
	rmdir(dir);
}

/* One key of the integrity_deals table and its sums, as a test gathers them from rpl_integrity_reader. */
struct evidence_sum {
	int deal, seat, stat, target, bin;
	long decisions, options;
	double observed, expected, residual, excess;
};

struct evidence_sums {
	struct evidence_sum row[8192];
	size_t n;
};

/* The row of key (d's deal, seat, statistic and target, bin b), found by a plain search (the test's own). */
static struct evidence_sum *sum_row(struct evidence_sums *s, const rpl_integrity_decision *d, int b)
{
	int target = d->stat == RPL_INTEGRITY_DRAW ? -1 : d->target;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->row[i].deal == d->deal && s->row[i].seat == d->seat && s->row[i].stat == d->stat &&
		    s->row[i].target == target && s->row[i].bin == b)
			return &s->row[i];
	assert_true(s->n < sizeof(s->row) / sizeof(s->row[0]));
	memset(&s->row[s->n], 0, sizeof(s->row[0]));
	s->row[i].deal = d->deal;
	s->row[i].seat = d->seat;
	s->row[i].stat = d->stat;
	s->row[i].target = target;
	s->row[i].bin = b;
	return &s->row[s->n++];
}

/* A decision into its bin's row, its options into theirs. */
static int sum_evidence(void *ctx, const rpl_integrity_decision *d)
{
	struct evidence_sums *s = ctx;
	struct evidence_sum *r = sum_row(s, d, d->bin);

	r->decisions++;
	r->observed += d->observed;
	r->expected += d->expected;
	r->residual += d->residual;
	for (int b = 0; b < RPL_INTEGRITY_BINS; b++)
		if (d->cal_n[b]) {
			r = sum_row(s, d, b);
			r->options += d->cal_n[b];
			r->excess += d->cal_sum[b];
		}
	return 0;
}

/*
 * A screened load: options out of range are refused; in range, the
 * integrity_deals rows are rpl_integrity_reader's decisions and options for
 * the same log and options, summed by key; a match not ok has none.
 */
static void screened(void **state)
{
	char dir[] = "/tmp/brp-export-integrity-XXXXXX", path[512], sample[512], damaged[512];
	rpl_integrity_options o;
	rpl_export_match *m = NULL, *bad = NULL;
	rpl_export_db *db = NULL;
	rpl_reader *rd = NULL;
	rpl_verdict v;
	struct evidence_sums *want = calloc(1, sizeof(*want));
	sqlite3 *con = NULL;
	sqlite3_stmt *st = NULL;
	int added = 0, calibration_only = 0;

	(void)state;
	assert_non_null(want);
	assert_non_null(mkdtemp(dir));
	snprintf(sample, sizeof(sample), "%s/samples/stbl-4p.brp", SRCROOT);
	snprintf(damaged, sizeof(damaged), "%s/samples/disputed/damaged-byte.brp", SRCROOT);
	rpl_integrity_options_init(&o);
	o.samples = 0;
	assert_int_equal(rpl_export_match_load_screened(&m, sample, 0, NULL, NULL, &o), RPL_EINVAL);
	assert_non_null(m);
	assert_string_equal(rpl_export_match_errmsg(m), "integrity options out of range");
	rpl_export_match_free(m);
	m = NULL;
	rpl_integrity_options_init(&o);
	o.samples = 8;
	o.seed = 5;
	assert_int_equal(rpl_export_match_load_screened(&m, sample, 0, NULL, NULL, &o), 0);
	assert_int_equal(rpl_export_match_load_screened(&bad, damaged, 0, NULL, NULL, &o), 0);
	snprintf(path, sizeof(path), "%s/i.db", dir);
	assert_int_equal(rpl_export_db_open(&db, path, 1000), 0);
	assert_int_equal(rpl_export_db_begin(db), 0);
	assert_int_equal(rpl_export_db_add(db, m, &added), 0);
	assert_int_equal(added, 1);
	assert_int_equal(rpl_export_db_add(db, bad, &added), 0);
	assert_int_equal(rpl_export_db_commit(db), 0);
	rpl_export_db_free(db);

	/* the library's own evidence for the same log and options */
	assert_int_equal(rpl_reader_open(&rd, sample), 0);
	assert_int_equal(rpl_integrity_reader(rd, NULL, &o, sum_evidence, want, &v), 0);
	assert_int_equal(v.kind, RPL_VERDICT_OK);
	rpl_reader_free(rd);
	assert_true(want->n > 0);

	assert_int_equal(sqlite3_open(path, &con), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(con,
	                                    "SELECT count(*), count(DISTINCT match_id), sum(samples = 8 AND seed = 5) "
	                                    "FROM integrity_deals",
	                                    -1, &st, NULL),
	                 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), (int)want->n);
	assert_int_equal(sqlite3_column_int(st, 1), 1); /* the damaged log: none */
	assert_int_equal(sqlite3_column_int(st, 2), (int)want->n);
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_prepare_v2(con,
	                                    "SELECT decisions, observed, expected, residual, options, excess, relation "
	                                    "FROM integrity_deals WHERE deal = ?1 AND seat = ?2 AND statistic = ?3 AND "
	                                    "ifnull(target, -1) = ?4 AND bin = ?5",
	                                    -1, &st, NULL),
	                 SQLITE_OK);
	for (size_t i = 0; i < want->n; i++) {
		const struct evidence_sum *w = &want->row[i];
		const char *rel;
		sqlite3_bind_int(st, 1, w->deal);
		sqlite3_bind_int(st, 2, w->seat);
		sqlite3_bind_text(st, 3, w->stat == RPL_INTEGRITY_DRAW ? "draw" : "fit", -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 4, w->target);
		sqlite3_bind_int(st, 5, w->bin);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int64(st, 0), w->decisions);
		assert_true(fabs(sqlite3_column_double(st, 1) - w->observed) < 1e-9);
		assert_true(fabs(sqlite3_column_double(st, 2) - w->expected) < 1e-9);
		assert_true(fabs(sqlite3_column_double(st, 3) - w->residual) < 1e-9);
		assert_int_equal(sqlite3_column_int64(st, 4), w->options);
		assert_true(fabs(sqlite3_column_double(st, 5) - w->excess) < 1e-9);
		rel = (const char *)sqlite3_column_text(st, 6);
		if (w->stat == RPL_INTEGRITY_DRAW)
			assert_null(rel);
		else
			assert_string_equal(rel, (w->target - w->seat + 4) % 4 == 1   ? "next"
			                         : (w->target - w->seat + 4) % 4 == 2 ? "partner"
			                                                              : "previous");
		calibration_only += w->decisions == 0;
		sqlite3_reset(st);
	}
	assert_true(calibration_only > 0); /* bins with options and no decision are rows too */
	sqlite3_finalize(st);
	sqlite3_close(con);
	rpl_export_match_free(m);
	rpl_export_match_free(bad);
	free(want);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sha256_vectors),
		cmocka_unit_test(schema_matches_files),
		cmocka_unit_test(sinks),
		cmocka_unit_test(failed_add_rolls_back),
		cmocka_unit_test(created_database_removed),
		cmocka_unit_test(copies),
		cmocka_unit_test(reviewed),
		cmocka_unit_test(screened),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
