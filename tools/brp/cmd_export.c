/*
 * brp export: logs into a SQLite database and/or CSV files. Each log is
 * loaded (hashed, verified, replayed) possibly on worker threads; the sinks
 * take the loaded matches in the order of the arguments on this thread, so
 * the result does not depend on -j.
 */
#include "brp.h"

#include <getopt.h>
#include <pthread.h>
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
	      "               its schema upgraded if older); a log already there (same\n"
	      "               SHA-256) adds nothing; the whole run is one transaction\n"
	      "  --csv DIR    write one CSV file a table into DIR (created if missing),\n"
	      "               replacing them: matches.csv, meta.csv, deals.csv,\n"
	      "               deal_scores.csv, deal_seats.csv, melds.csv, actions.csv,\n"
	      "               players.csv\n"
	      "  --xlsx FILE  write the same tables as the sheets of one workbook\n"
	      "               (numbers as numbers, times as dates, text as text)\n"
	      "A log that does not verify ok is exported with its verdict but without\n"
	      "deals, scores or melds. Directories are searched for *.brp files; - reads a\n"
	      "list of paths from standard input, one a line of at most 4095 bytes. Logs\n"
	      "are exported from files only, never read from standard input (no --log -):\n"
	      "each exported match names the file it came from, which a stream has not;\n"
	      "save a piped log to a file first.\n"
	      "\n"
	      "      --sqlite DB     the database to add to\n"
	      "      --csv DIR       the directory to write CSV files into\n"
	      "      --bom           start each CSV file with a UTF-8 byte order mark, which\n"
	      "                      Excel needs to read accents right\n"
	      "      --xlsx FILE     the workbook to write (replaced)\n"
	      "  -a, --actions       also store every decision (SQLite: the actions table)\n"
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
	      "Exit status: 0 every log exported (whatever its verdict), 2 a usage error, a\n"
	      "log that cannot be read, or a database or file error (the database is then\n"
	      "left as it was before the run).\n",
	      f);
}

/* A log on its way from the source to the writer: its path, then the loaded match. */
struct slot {
	char *path;   /* this slot's copy of the path */
	size_t cap;
	rpl_export_match *m;
	int err;
	int done;
};

/*
 * Paths are taken from the source in order, under the lock, into a ring of
 * window slots (path i in slots[i % window]); the writer consumes them in the
 * same order. So memory depends on -j, not on the number of logs.
 */
struct pipeline {
	struct brp_source *src;
	unsigned flags;
	struct slot *slots;
	size_t window;      /* how far the workers may run ahead of the writer */
	size_t next;        /* paths taken from the source */
	size_t consumed;    /* paths before this one are written and their matches freed */
	int end;            /* no more paths: the source ended or failed, or memory ran out */
	int nomem;
	int stop;           /* the writer stopped on an error */
	pthread_mutex_t lock;
	pthread_cond_t ready, room;
};

/* With the lock held: the next path into its slot; NULL at the end (woken writer). */
static struct slot *take(struct pipeline *p)
{
	const char *path;
	struct slot *s;

	if (brp_source_next(p->src, &path) < 0 || !path)
		goto end;
	s = &p->slots[p->next % p->window];
	if (brp_copy_string(&s->path, &s->cap, path) < 0) {
		p->nomem = 1;
		goto end;
	}
	s->m = NULL;
	s->err = 0;
	s->done = 0;
	p->next++;
	return s;
end:
	p->end = 1;
	pthread_cond_broadcast(&p->ready);
	return NULL;
}

static void *worker(void *arg)
{
	struct pipeline *p = arg;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct slot *s;
		rpl_export_match *m = NULL;
		int err;
		while (!p->stop && !p->end && p->next >= p->consumed + p->window)
			pthread_cond_wait(&p->room, &p->lock);
		if (p->stop || p->end || !(s = take(p)))
			break;
		pthread_mutex_unlock(&p->lock);
		err = rpl_export_match_load(&m, s->path, p->flags);
		pthread_mutex_lock(&p->lock);
		s->m = m;
		s->err = err;
		s->done = 1;
		pthread_cond_broadcast(&p->ready);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

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
	for (int k = 0; k <= RPL_VERDICT_TAMPERED; k++)
		printf("%s\"%s\":%zu", k ? "," : "", rpl_verdict_name(k), t->verdicts[k]);
	putchar('}');
	json_path("sqlite", db);
	json_path("csv", csv);
	json_path("xlsx", xlsx);
	fputs("}\n", stdout);
}

int cmd_export(int argc, char **argv)
{
	const char *list = NULL;
	static const struct option opts[] = {
		{ "sqlite", required_argument, NULL, 'S' },
		{ "csv", required_argument, NULL, 'C' },
		{ "bom", no_argument, NULL, 'B' },
		{ "xlsx", required_argument, NULL, 'X' },
		{ "actions", no_argument, NULL, 'a' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "json", no_argument, NULL, 'J' },
		{ "from-list", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *db_path = NULL, *csv_dir = NULL, *xlsx_path = NULL;
	unsigned csv_flags = 0;
	int jobs = 1, quiet = 0, json = 0, c, status = BRP_EXIT_USAGE, err, nthreads = 0;
	struct brp_progress prog = { 0 };
	long timeout_s = 600;
	unsigned flags = 0;
	char *end;
	struct brp_source *src = NULL;
	rpl_export_db *db = NULL;
	rpl_export_csv *csv = NULL;
	rpl_export_xlsx *xlsx = NULL;
	struct pipeline p;
	pthread_t *th = NULL;
	struct totals t = { 0 };
	int failed = 0, complete = 0, made_dir = 0, finished = 0;

	memset(&p, 0, sizeof(p));
	while ((c = getopt_long(argc, argv, ":aj:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'S': db_path = optarg; break;
		case 'C': csv_dir = optarg; break;
		case 'B': csv_flags |= RPL_EXPORT_CSV_BOM; break;
		case 'X': xlsx_path = optarg; break;
		case 'a': flags |= RPL_EXPORT_ACTIONS; break;
		case 'j':
			if (brp_parse_jobs(name, optarg, &jobs) < 0)
				return BRP_EXIT_USAGE;
			break;
		case 'T':
			timeout_s = strtol(optarg, &end, 10);
			if (*end || end == optarg || timeout_s < 0 || timeout_s > 86400) {
				brp_error(name, "--timeout takes 0 to 86400 seconds, not '%s'", optarg);
				return BRP_EXIT_USAGE;
			}
			break;
		case 'q': quiet = 1; break;
		case 'J': json = 1; break;
		case 'F': list = optarg; break;
		case 'h': usage(stdout); return BRP_EXIT_OK;
		default: return brp_bad_option(name, c, argv);
		}
	}
	if (!db_path && !csv_dir && !xlsx_path) {
		brp_error(name, "say where to export: --sqlite DB, --csv DIR or --xlsx FILE (try 'brp export --help')");
		return BRP_EXIT_USAGE;
	}
	if (optind >= argc && !list) {
		brp_error(name, "no log to export (try 'brp export --help')");
		return BRP_EXIT_USAGE;
	}
	if (brp_source_new(&src, name, argc - optind, argv + optind, list) < 0)
		goto cleanup;
	brp_progress_start(&prog, name, "logs", quiet, 0);

	if (csv_dir) {
		if (mkdir(csv_dir, 0777) == 0) {
			made_dir = 1;
		} else {
			struct stat st;
			if (stat(csv_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
				brp_error(name, "%s: cannot make the directory", csv_dir);
				goto cleanup;
			}
		}
		if ((err = rpl_export_csv_open(&csv, csv_dir, csv_flags)) != 0) {
			brp_error(name, "%s: %s", csv_dir, csv ? rpl_export_csv_errmsg(csv) : rpl_strerror(err));
			goto cleanup;
		}
	}
	if (xlsx_path && (err = rpl_export_xlsx_open(&xlsx, xlsx_path)) != 0) {
		brp_error(name, "%s: %s", xlsx_path, xlsx ? rpl_export_xlsx_errmsg(xlsx) : rpl_strerror(err));
		goto cleanup;
	}
	if (db_path) {
		if ((err = rpl_export_db_open(&db, db_path, (int)(timeout_s * 1000))) != 0 ||
		    (err = rpl_export_db_begin(db)) != 0) {
			brp_error(name, "%s: %s", db_path, db ? rpl_export_db_errmsg(db) : rpl_strerror(err));
			goto cleanup;
		}
	}

	p.src = src;
	p.flags = flags;
	/*
	 * 16 loaded matches a thread, as brp_pool_run: with 4, the workers waited
	 * for room often enough that -j 2 took 4 % longer (1.91 s against 1.84 s
	 * for the benchmark's corpus); the cost is about 0.6 MiB, whatever the
	 * number of logs.
	 */
	p.window = (size_t)jobs * 16;
	p.slots = calloc(p.window, sizeof(*p.slots));
	th = calloc((size_t)jobs, sizeof(*th));
	if (!p.slots || !th) {
		brp_error(name, "out of memory");
		goto cleanup;
	}
	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.ready, NULL);
	pthread_cond_init(&p.room, NULL);
	if (jobs > 1) {
		for (nthreads = 0; nthreads < jobs; nthreads++)
			if (pthread_create(&th[nthreads], NULL, worker, &p) != 0)
				break;
		if (nthreads == 0) {
			brp_error(name, "cannot start a thread");
			goto teardown;
		}
	}

	for (size_t i = 0;; i++) {
		struct slot *s = &p.slots[i % p.window];
		rpl_export_match *m = NULL;
		int added = 0;
		pthread_mutex_lock(&p.lock);
		if (nthreads) {
			while (!(i < p.next && s->done) && !(p.end && i >= p.next))
				pthread_cond_wait(&p.ready, &p.lock);
			if (i >= p.next) /* the end, or the source failed: said after the loop */
				s = NULL;
		} else {
			s = take(&p);
		}
		if (!s) {
			pthread_mutex_unlock(&p.lock);
			break;
		}
		m = s->m;
		err = s->err;
		s->m = NULL;
		pthread_mutex_unlock(&p.lock);
		if (!nthreads)
			err = rpl_export_match_load(&m, s->path, flags);
		t.logs++;
		if (err) {
			brp_progress_clear(&prog);
			brp_error(name, "%s: %s", s->path, m ? rpl_export_match_errmsg(m) : rpl_strerror(err));
			t.unreadable++;
		} else {
			int kind = rpl_export_match_verdict(m)->kind;
			if (kind >= 0 && kind <= RPL_VERDICT_UNTRUSTED)
				t.verdicts[kind]++;
			if (kind == RPL_VERDICT_OK)
				t.ok++;
			else
				t.not_ok++;
			if (db && (err = rpl_export_db_add(db, m, &added)) != 0) {
				brp_progress_clear(&prog);
				brp_error(name, "%s: %s: %s", db_path, s->path, rpl_export_db_errmsg(db));
				failed = 1;
			}
			if (!failed && db) {
				if (added)
					t.added++;
				else
					t.present++;
			}
			if (!failed && csv && (err = rpl_export_csv_add(csv, m, &added)) != 0) {
				brp_progress_clear(&prog);
				brp_error(name, "%s: %s", csv_dir, rpl_export_csv_errmsg(csv));
				failed = 1;
			}
			if (!db && csv && !failed) {
				if (added)
					t.added++;
				else
					t.present++;
			}
			if (!failed && xlsx && (err = rpl_export_xlsx_add(xlsx, m, &added)) != 0) {
				brp_progress_clear(&prog);
				brp_error(name, "%s: %s", xlsx_path, rpl_export_xlsx_errmsg(xlsx));
				failed = 1;
			}
			if (!db && !csv && xlsx && !failed) {
				if (added)
					t.added++;
				else
					t.present++;
			}
		}
		rpl_export_match_free(m);
		pthread_mutex_lock(&p.lock);
		p.consumed = i + 1;
		if (failed)
			p.stop = 1;
		pthread_cond_broadcast(&p.room);
		pthread_mutex_unlock(&p.lock);
		if (failed)
			break;
		brp_progress_step(&prog, i + 1);
	}
	/* every log before a failure of the source has been written: the failure comes in its place */
	if (!failed && brp_source_errmsg(src)) {
		brp_error(name, "%s", brp_source_errmsg(src));
		failed = 1;
	} else if (!failed && p.nomem) {
		brp_error(name, "out of memory");
		failed = 1;
	}
	complete = !failed;
	brp_progress_end(&prog);

teardown:
	pthread_mutex_lock(&p.lock);
	p.stop = 1;
	pthread_cond_broadcast(&p.room);
	pthread_mutex_unlock(&p.lock);
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	for (size_t i = 0; i < p.window; i++) {
		rpl_export_match_free(p.slots[i].m);
		free(p.slots[i].path);
	}
	pthread_cond_destroy(&p.room);
	pthread_cond_destroy(&p.ready);
	pthread_mutex_destroy(&p.lock);
	if (!complete)
		goto cleanup;
	if (db && (err = rpl_export_db_commit(db)) != 0) {
		brp_error(name, "%s: %s", db_path, rpl_export_db_errmsg(db));
		goto cleanup;
	}
	if (csv && (err = rpl_export_csv_finish(csv)) != 0) {
		brp_error(name, "%s: %s", csv_dir, rpl_export_csv_errmsg(csv));
		goto cleanup;
	}
	if (xlsx && (err = rpl_export_xlsx_finish(xlsx)) != 0) {
		brp_error(name, "%s: %s", xlsx_path, rpl_export_xlsx_errmsg(xlsx));
		goto cleanup;
	}
	finished = 1;
	if (json)
		print_json(&t, db_path, csv_dir, xlsx_path);
	else if (!quiet)
		printf("%zu log%s: %zu added, %zu already %s; %zu ok, %zu not ok%s\n", t.logs, t.logs == 1 ? "" : "s",
		       t.added, t.present,
		       db ? "in the database" : "exported", t.ok, t.not_ok, t.unreadable ? ", some unreadable" : "");
	status = t.unreadable ? BRP_EXIT_USAGE : BRP_EXIT_OK;
cleanup:
	rpl_export_db_free(db); /* rolls back a batch that was not committed */
	rpl_export_csv_free(csv); /* removes temporary files that were not renamed */
	rpl_export_xlsx_free(xlsx); /* removes a workbook that was not finished */
	if (made_dir && !finished)
		rmdir(csv_dir); /* made by this run, which failed: empty again, or kept if not */
	free(th);
	free(p.slots);
	brp_source_free(src);
	return status;
}
