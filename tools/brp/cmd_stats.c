/* brp stats: what happened in a corpus of logs, counted. */
#include "brp.h"

#include <stdlib.h>
#include <string.h>

static const char *const name = "stats";

static void usage(FILE *f)
{
	fputs("Usage: brp stats [OPTION]... FILE|DIR|-...\n"
	      "Replay each log and count: matches, deals, turns, decisions, bytes, bytes and\n"
	      "bits per decision, and how often each kind of event happened (pile taken,\n"
	      "frozen pile, morto picked up directly or indirectly, morto turned into stock,\n"
	      "deals ended by going out or by the stock, each canastra category, openings\n"
	      "by a vulnerable side, ABERTO rejects). Only logs that verify ok are counted\n"
	      "in the events; the others are counted by verdict. Directories are searched\n"
	      "for *.brp files, each directory and log once; - reads a list of paths from\n"
	      "standard input, one a line of at most 4095 bytes; --log - (or /dev/stdin)\n"
	      "reads one log from standard input instead, named - in messages.\n"
	      "\n"
	      "      --json       one JSON object\n"
	      "  -j, --jobs N     threads (default 1; the result is the same)\n"
	      "      --from-list FILE  also count the paths listed in FILE, one a line\n"
	      "      --log FILE   also count the log FILE (repeatable); - reads it from\n"
	      "                   standard input\n"
	      "  -q, --quiet      no progress line on a terminal\n"
	      "  -h, --help       print this help and exit\n"
	      "\n"
	      "Exit status, as brp verify's: 0 every log ok; 1 some illegal, mismatch,\n"
	      "incomplete, tampered or untrusted (a log whose header says it is signed and\n"
	      "whose signatures were cut off); 2 a usage error, or arguments that name no\n"
	      "log; 3 some malformed or unreadable (no table when none could be read), or out\n"
	      "of memory.\n",
	      f);
}

/* One log's counts, and why it could not be read (err non-zero). */
struct sresult {
	struct brp_counts c;
	int err;
	char message[sizeof(((rpl_verdict *)0)->message)];
};

/* Count one log (a pool job): verified and counted in one pass. */
static void count_file(const char *path, void *result, void *ud)
{
	struct sresult *r = result;
	rpl_verdict v;

	(void)ud;
	memset(r, 0, sizeof(*r));
	r->err = brp_counts_log(path, &r->c, &v, r->message, sizeof(r->message), NULL);
}

struct stotal {
	struct brp_counts c;
	struct brp_progress prog;
	size_t n;
};

/* Add one log's counts to the total (ud), in the logs' order: so are the errors. */
static int add_one(const char *path, const void *result, void *ud)
{
	const struct sresult *r = result;
	struct stotal *t = ud;

	if (r->err || r->message[0]) {
		brp_progress_clear(&t->prog);
		brp_error(name, "%s: %s", path, r->message);
	}
	brp_counts_add(&t->c, &r->c);
	brp_progress_step(&t->prog, ++t->n);
	return 0;
}

int cmd_stats(int argc, char **argv)
{
	static const struct brp_opt opts[] = {
		BRP_OPT_JSON_ROW, BRP_OPT_JOBS, BRP_OPT_FROM_LIST, BRP_OPT_QUIET, BRP_OPT_LOGS, BRP_OPT_HELP, BRP_OPT_END,
	};
	struct brp_getopt g;
	struct brp_batch b = BRP_BATCH_INIT;
	int json = 0, c, status = BRP_EXIT_USAGE, rc, first, logs = 0, stdin_first = 0, nargs;
	const char **logs_v = NULL;
	char **args = NULL;
	struct brp_source *src = NULL;
	struct stotal total;

	memset(&total, 0, sizeof(total));
	logs_v = calloc((size_t)argc + 1, sizeof(char *));
	if (!logs_v) {
		brp_error(name, "out of memory");
		return BRP_EXIT_FAIL;
	}
	brp_getopt_init(&g, name, opts, argc, argv);
	while ((c = brp_getopt_next(&g)) != -1) {
		if (c == BRP_OPT_BAD)
			goto cleanup;
		if ((rc = brp_batch_option(&g, c, &b)) != 0) {
			if (rc != 1) {
				status = rc;
				goto cleanup;
			}
			continue;
		}
		switch (c) {
		case BRP_OPT_JSON: json = 1; break;
		case BRP_OPT_LOGFILE:
			if (strcmp(g.arg, "-") == 0)
				stdin_first++;
			else if (brp_opt_path(&g, &logs_v[logs]) != 0)
				goto cleanup;
			else
				logs++;
			break;
		case 'h':
			usage(stdout);
			status = BRP_EXIT_OK;
			goto cleanup;
		}
	}
	first = brp_getopt_index(&g);
	if (first >= argc && !b.list && !logs && !stdin_first) {
		brp_error(name, "no log to count (try 'brp stats --help')");
		goto cleanup;
	}
	/* the --log paths are arguments that come first */
	status = BRP_EXIT_FAIL;
	if (!(args = brp_corpus_args(name, logs_v, logs, argc, argv, first, &nargs)))
		goto cleanup;
	if ((rc = brp_corpus_read(name, &src, nargs, args, &b, stdin_first, &total.prog, sizeof(struct sresult), count_file,
	                          add_one, &total)) != 0) {
		status = rc;
		goto cleanup;
	}
	/* a table of zeros would say nothing of logs that could not be read */
	if ((size_t)total.c.unreadable < brp_source_count(src)) {
		if (json) {
			brp_counts_print_json(stdout, &total.c);
			putchar('\n');
		} else {
			brp_counts_print_text(stdout, &total.c);
		}
	}
	status = brp_counts_status(&total.c, brp_source_unreadable(src));
cleanup:
	brp_source_free(src);
	free(logs_v);
	free(args);
	return status;
}
