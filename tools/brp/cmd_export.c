/*
 * brp export: logs into a SQLite database and/or CSV files. Each log is
 * loaded (hashed, verified, replayed) possibly on worker threads; the sinks
 * take the loaded matches in the order of the arguments on this thread, so
 * the result does not depend on -j.
 */
#include "brp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const name = "export";

static void usage(FILE *f)
{
	fputs("Usage: brp export (--sqlite DB | --csv DIR | --xlsx FILE)... [OPTION]... FILE|DIR|-...\n"
	      "Verify each match log and export it for analysis (docs/schema.md):\n"
	      "  --sqlite DB  add the matches to the SQLite database DB (created if missing,\n"
	      "               its schema upgraded if older); the whole run is one\n"
	      "               transaction\n"
	      "  --csv DIR    write one CSV file a table into DIR (created if missing),\n"
	      "               replacing them: matches.csv, meta.csv, deals.csv,\n"
	      "               deal_scores.csv, deal_seats.csv, melds.csv, actions.csv,\n"
	      "               players.csv\n"
	      "  --xlsx FILE  write the same tables as the sheets of one workbook\n"
	      "               (numbers as numbers, times as dates, text as text),\n"
	      "               after a first sheet, Summary: six charts (wins by seat\n"
	      "               and by side, deal scores, deal length, canastras per\n"
	      "               deal, pile takes and frozen piles) over tables of\n"
	      "               formulas on the other sheets' columns\n"
	      "A log that does not verify ok is exported with its verdict but without\n"
	      "deals, scores or melds. A row is one copy of a match: logs of one match\n"
	      "(one match identity) that verify alike are one copy, and a copy already\n"
	      "there adds nothing; a log of it with another verdict, signature status,\n"
	      "signer or trust, or dealing status is another copy, a row of its own\n"
	      "beside the others, never merged (docs/schema.md, \"Copies\").\n"
	      "Directories are searched for *.brp files; - reads a list of paths from\n"
	      "standard input, one a line of at most 4095 bytes. Logs are exported from\n"
	      "files only, never read from standard input (no --log -): each exported\n"
	      "match names the file it came from, which a stream has not; save a piped\n"
	      "log to a file first.\n"
	      "\n"
	      "      --sqlite DB     the database to add to\n"
	      "      --csv DIR       the directory to write CSV files into\n"
	      "      --bom           start each CSV file with a UTF-8 byte order mark, which\n"
	      "                      Excel needs to read accents right\n"
	      "      --xlsx FILE     the workbook to write (replaced)\n"
	      "  -a, --actions       also store every decision (SQLite: the actions table)\n"
	      "      --review        also review each ok match as brp review does (SQLite\n"
	      "                      only: the reviews and decision_values tables); slow:\n"
	      "                      each decision is judged on samples\n"
	      "      --review-strength S\n"
	      "                      samples a decision, 2 to 1000 (default 24; implies\n"
	      "                      --review)\n"
	      "      --review-seed S the samples' seed (default 1; implies --review)\n"
	      "      --integrity     also store each ok match's integrity evidence, as brp\n"
	      "                      integrity gathers it (SQLite only: the integrity_deals\n"
	      "                      table, its views integrity_players, integrity_pairs)\n"
	      "      --integrity-seed S\n"
	      "                      the screen's seed (default 1; implies --integrity)\n"
	      "  -K, --key FILE      a trusted public key (a minisign .pub file; repeatable):\n"
	      "                      each log's verdict is brp verify's under these keys\n"
	      "      --keyring FILE  trusted public keys, one after another in a file\n"
	      "  -j, --jobs N        threads that load logs (default 1; the result is the same)\n"
	      "      --timeout SECS  how long to wait for another writer (default 600)\n"
	      "  -q, --quiet         no progress and no summary\n"
	      "      --json          the summary as one JSON object (even with -q): logs,\n"
	      "                      added, present, unreadable, verdicts, and the targets\n"
	      "      --from-list FILE also export the paths listed in FILE, one a line\n"
	      "  -h, --help          print this help and exit\n"
	      "\n"
	      "Progress goes to standard error when it is a terminal; the summary line to\n"
	      "standard output.\n"
	      "Exit status: 0 every log exported (whatever its verdict); 2 a usage error,\n"
	      "or arguments that name no log (nothing is created); 3 a log that cannot be\n"
	      "read (the others are exported), or a database or file error (the database\n"
	      "is then left as it was before the run).\n",
	      f);
}

/* One log, loaded by a pool job: the match, or why it could not be loaded. */
struct loaded {
	rpl_export_match *m;
	int err;
};

struct totals {
	size_t logs, added, present, ok, not_ok, unreadable;
	size_t verdicts[RPL_VERDICT_UNTRUSTED + 1];
};

/* A target's path as JSON, null when not given. */
static void json_path(const char *key, const char *path)
{
	printf(",\"%s\":", key);
	if (path)
		brp_json_string(stdout, path);
	else
		fputs("null", stdout);
}

/* The summary as one JSON line: counts named as brp stats --json names them. */
static void print_json(const struct totals *t, const char *db, const char *csv, const char *xlsx)
{
	printf("{\"logs\":%zu,\"added\":%zu,\"present\":%zu,\"unreadable\":%zu,\"verdicts\":{", t->logs, t->added,
	       t->present, t->unreadable);
	for (int k = 0; k <= RPL_VERDICT_UNTRUSTED; k++)
		printf("%s\"%s\":%zu", k ? "," : "", rpl_verdict_name(k), t->verdicts[k]);
	putchar('}');
	json_path("sqlite", db);
	json_path("csv", csv);
	json_path("xlsx", xlsx);
	fputs("}\n", stdout);
}

/* The sinks, opened with the first log (so that an empty input creates nothing), and the counts. */
struct exporter {
	const char *db_path, *csv_dir, *xlsx_path;
	const rpl_keyring *trusted; /* -K, --keyring: NULL when none */
	unsigned flags, csv_flags;
	int review; /* --review: review each ok match with review_opt */
	rpl_review_options review_opt;
	int integrity; /* --integrity: screen each ok match with integrity_opt */
	rpl_integrity_options integrity_opt;
	long timeout_s;
	int opened, made_dir;
	rpl_export_db *db;
	rpl_export_csv *csv;
	rpl_export_xlsx *xlsx;
	struct brp_progress prog;
	struct totals t;
};

/* Open what the options name: 0, or -1 with one line said. */
static int open_sinks(struct exporter *e)
{
	int err;

	e->opened = 1;
	if (e->csv_dir) {
		if (mkdir(e->csv_dir, 0777) == 0) {
			e->made_dir = 1;
		} else {
			struct stat st;
			int why = errno;
			if (stat(e->csv_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
				/* EEXIST: a file of that name, which is not a directory */
				brp_error(name, "%s: cannot make the directory: %s", e->csv_dir,
				          why == EEXIST ? "a file that is not a directory is in the way" : strerror(why));
				return -1;
			}
		}
		if ((err = rpl_export_csv_open(&e->csv, e->csv_dir, e->csv_flags)) != 0) {
			brp_error(name, "%s: %s", e->csv_dir, e->csv ? rpl_export_csv_errmsg(e->csv) : rpl_strerror(err));
			return -1;
		}
	}
	if (e->xlsx_path && (err = rpl_export_xlsx_open(&e->xlsx, e->xlsx_path)) != 0) {
		brp_error(name, "%s: %s", e->xlsx_path, e->xlsx ? rpl_export_xlsx_errmsg(e->xlsx) : rpl_strerror(err));
		return -1;
	}
	if (e->db_path) {
		if ((err = rpl_export_db_open(&e->db, e->db_path, (int)(e->timeout_s * 1000))) != 0 ||
		    (err = rpl_export_db_begin(e->db)) != 0) {
			brp_error(name, "%s: %s", e->db_path, e->db ? rpl_export_db_errmsg(e->db) : rpl_strerror(err));
			return -1;
		}
	}
	return 0;
}

/* A pool job: load (hash, verify, replay) one log, on a worker thread. */
static void load_one(const char *path, void *result, void *ud)
{
	struct loaded *l = result;
	struct exporter *e = ud;

	l->m = NULL;
	l->err = rpl_export_match_load_screened(&l->m, path, e->flags, e->trusted, e->review ? &e->review_opt : NULL,
	                                        e->integrity ? &e->integrity_opt : NULL);
}

/* A loaded match made after a stop: released. */
static void drop_one(void *result, void *ud)
{
	(void)ud;
	rpl_export_match_free(((struct loaded *)result)->m);
}

/* Count a match the first sink took (added) or had already. */
static void count(struct totals *t, int added)
{
	if (added)
		t->added++;
	else
		t->present++;
}

/*
 * The pool's output: each loaded match in the order of the arguments, into
 * every sink. Returns non-zero (stop) when a sink fails: the run is then
 * rolled back.
 */
static int write_one(const char *path, const void *result, void *ud)
{
	const struct loaded *l = result;
	struct exporter *e = ud;
	rpl_export_match *m = l->m;
	int added = 0, failed = 0;

	brp_progress_clear(&e->prog);
	if (!e->opened && open_sinks(e) < 0) {
		rpl_export_match_free(m);
		return 1;
	}
	e->t.logs++;
	if (l->err) {
		brp_error(name, "%s: %s", path, m ? rpl_export_match_errmsg(m) : rpl_strerror(l->err));
		e->t.unreadable++;
	} else {
		int kind = rpl_export_match_verdict(m)->kind;
		if (kind >= 0 && kind <= RPL_VERDICT_UNTRUSTED)
			e->t.verdicts[kind]++;
		if (kind == RPL_VERDICT_OK)
			e->t.ok++;
		else
			e->t.not_ok++;
		if (e->db && rpl_export_db_add(e->db, m, &added) != 0) {
			brp_error(name, "%s: %s: %s", e->db_path, path, rpl_export_db_errmsg(e->db));
			failed = 1;
		}
		if (!failed && e->db)
			count(&e->t, added);
		if (!failed && e->csv && rpl_export_csv_add(e->csv, m, &added) != 0) {
			brp_error(name, "%s: %s", e->csv_dir, rpl_export_csv_errmsg(e->csv));
			failed = 1;
		}
		if (!failed && !e->db && e->csv)
			count(&e->t, added);
		if (!failed && e->xlsx && rpl_export_xlsx_add(e->xlsx, m, &added) != 0) {
			brp_error(name, "%s: %s", e->xlsx_path, rpl_export_xlsx_errmsg(e->xlsx));
			failed = 1;
		}
		if (!failed && !e->db && !e->csv && e->xlsx)
			count(&e->t, added);
	}
	rpl_export_match_free(m);
	if (!failed)
		brp_progress_step(&e->prog, e->t.logs);
	return failed;
}

/*
 * The options into e (its outputs and flags), *trusted (the keys), b and *json; *first: the
 * first operand. -1 when the command goes on, else the code it exits with
 * (said).
 */
static int export_options(struct exporter *e, rpl_keyring **trusted, struct brp_batch *b, int *json, int *first,
                          int argc, char **argv)
{
	enum {
		OPT_SQLITE = BRP_OPT_OWN,
		OPT_CSV,
		OPT_BOM,
		OPT_XLSX,
		OPT_REVIEW,
		OPT_REVIEW_STRENGTH,
		OPT_REVIEW_SEED,
		OPT_INTEGRITY,
		OPT_INTEGRITY_SEED
	};
	static const struct brp_opt opts[] = {
		{ "sqlite", 1, OPT_SQLITE, 0, 0 },
		{ "csv", 1, OPT_CSV, 0, 0 },
		{ "bom", 0, OPT_BOM, 0, 0 },
		{ "xlsx", 1, OPT_XLSX, 0, 0 },
		{ "actions", 0, 'a', 0, 0 },
		{ "review", 0, OPT_REVIEW, 0, 0 },
		{ "review-strength", 1, OPT_REVIEW_STRENGTH, 0, 0 },
		{ "review-seed", 1, OPT_REVIEW_SEED, 0, 0 },
		{ "integrity", 0, OPT_INTEGRITY, 0, 0 },
		{ "integrity-seed", 1, OPT_INTEGRITY_SEED, 0, 0 },
		BRP_OPT_KEY,
		BRP_OPT_KEYRING_ROW,
		BRP_OPT_JOBS,
		BRP_OPT_TIMEOUT_ROW,
		BRP_OPT_QUIET,
		BRP_OPT_JSON_ROW,
		BRP_OPT_FROM_LIST,
		BRP_OPT_HELP,
		BRP_OPT_END,
	};
	struct brp_getopt g;
	int c, rc;

	rpl_review_options_init(&e->review_opt);
	rpl_integrity_options_init(&e->integrity_opt);
	brp_getopt_init(&g, name, opts, argc, argv);
	while ((c = brp_getopt_next(&g)) != -1) {
		if (c == BRP_OPT_BAD)
			return BRP_EXIT_USAGE;
		if ((rc = brp_batch_option(&g, c, b)) != 0) {
			if (rc != 1)
				return rc;
			continue;
		}
		rc = 0;
		switch (c) {
		case OPT_SQLITE: rc = brp_opt_path(&g, &e->db_path); break;
		case OPT_CSV: rc = brp_opt_path(&g, &e->csv_dir); break;
		case OPT_BOM: e->csv_flags |= RPL_EXPORT_CSV_BOM; break;
		case OPT_XLSX: rc = brp_opt_path(&g, &e->xlsx_path); break;
		case 'a': e->flags |= RPL_EXPORT_ACTIONS; break;
		case OPT_REVIEW: e->review = 1; break;
		case OPT_REVIEW_STRENGTH:
			e->review = 1;
			rc = brp_opt_int(&g, 2, 1000, &e->review_opt.samples);
			break;
		case OPT_REVIEW_SEED:
			e->review = 1;
			rc = brp_opt_u64(&g, &e->review_opt.seed);
			break;
		case OPT_INTEGRITY: e->integrity = 1; break;
		case OPT_INTEGRITY_SEED:
			e->integrity = 1;
			rc = brp_opt_u64(&g, &e->integrity_opt.seed);
			break;
		case 'K':
		case BRP_OPT_KEYRING:
			if (brp_keyring_add(name, trusted, g.arg) < 0)
				return BRP_EXIT_FAIL; /* said */
			break;
		case BRP_OPT_JSON: *json = 1; break;
		case 'h': usage(stdout); return BRP_EXIT_OK;
		}
		if (rc)
			return rc;
	}
	*first = brp_getopt_index(&g);
	e->timeout_s = b->timeout;
	if (!e->db_path && !e->csv_dir && !e->xlsx_path) {
		brp_error(name, "say where to export: --sqlite DB, --csv DIR or --xlsx FILE (try 'brp export --help')");
		return BRP_EXIT_USAGE;
	}
	if ((e->review || e->integrity) && !e->db_path) {
		brp_error(name, "--%s writes into the SQLite database only: add --sqlite DB",
		          e->review ? "review" : "integrity");
		return BRP_EXIT_USAGE;
	}
	if (*first >= argc && !b->list) {
		brp_error(name, "no log to export (try 'brp export --help')");
		return BRP_EXIT_USAGE;
	}
	return -1;
}

/* Each output made whole: the database's batch committed, the CSV files and the workbook finished. 0, or -1 (said). */
static int sinks_finish(struct exporter *e)
{
	if (e->db && rpl_export_db_commit(e->db) != 0) {
		brp_error(name, "%s: %s", e->db_path, rpl_export_db_errmsg(e->db));
		return -1;
	}
	if (e->csv && rpl_export_csv_finish(e->csv) != 0) {
		brp_error(name, "%s: %s", e->csv_dir, rpl_export_csv_errmsg(e->csv));
		return -1;
	}
	if (e->xlsx && rpl_export_xlsx_finish(e->xlsx) != 0) {
		brp_error(name, "%s: %s", e->xlsx_path, rpl_export_xlsx_errmsg(e->xlsx));
		return -1;
	}
	return 0;
}

int cmd_export(int argc, char **argv)
{
	struct brp_batch b = BRP_BATCH_INIT;
	int status, rc, first = 0, finished = 0, json = 0;
	struct brp_source *src = NULL;
	rpl_keyring *trusted = NULL;
	struct exporter e;

	memset(&e, 0, sizeof(e));
	if ((status = export_options(&e, &trusted, &b, &json, &first, argc, argv)) >= 0)
		goto cleanup;
	e.trusted = trusted;
	status = BRP_EXIT_FAIL;
	if (brp_source_new(&src, name, argc - first, argv + first, b.list) < 0)
		goto cleanup;
	brp_progress_start(&e.prog, name, "logs", b.quiet, 0);
	if (e.prog.on) /* a total to count towards, on a terminal only */
		e.prog.total = brp_source_total(argc - first, argv + first, b.list);
	/*
	 * The pool's window is 16 loaded matches a thread: with 4, the workers
	 * waited for room often enough that -j 2 took 4 % longer (1.91 s against
	 * 1.84 s for the benchmark's corpus); the cost is about 0.6 MiB, whatever
	 * the number of logs.
	 */
	rc = brp_pool_run(name, src, b.jobs, sizeof(struct loaded), load_one, write_one, drop_one, &e);
	if (rc != 0)
		goto cleanup; /* said: the database is left as it was */
	brp_progress_end(&e.prog);
	if (brp_source_count(src) == 0 && brp_source_unreadable(src))
		goto cleanup; /* a directory that could not be walked, said: nothing was made */
	if (brp_source_count(src) == 0) {
		brp_error(name, "no .brp log found in the arguments");
		status = BRP_EXIT_USAGE;
		goto cleanup;
	}
	if (sinks_finish(&e) < 0)
		goto cleanup;
	finished = 1;
	if (json)
		print_json(&e.t, e.db_path, e.csv_dir, e.xlsx_path);
	else if (!b.quiet)
		printf("%zu log%s: %zu added, %zu already %s; %zu ok, %zu not ok%s\n", e.t.logs, e.t.logs == 1 ? "" : "s",
		       e.t.added, e.t.present, e.db ? "in the database" : "exported", e.t.ok, e.t.not_ok,
		       e.t.unreadable || brp_source_unreadable(src) ? ", some unreadable" : "");
	status = e.t.unreadable || brp_source_unreadable(src) ? BRP_EXIT_FAIL : BRP_EXIT_OK;
cleanup:
	brp_progress_end(&e.prog);
	rpl_export_db_free(e.db);     /* rolls back a batch that was not committed */
	rpl_export_csv_free(e.csv);   /* removes temporary files that were not renamed */
	rpl_export_xlsx_free(e.xlsx); /* removes a workbook that was not finished */
	if (e.made_dir && !finished)
		rmdir(e.csv_dir); /* made by this run, which failed: empty again, or kept if not */
	brp_source_free(src);
	rpl_keyring_free(trusted);
	return status;
}
