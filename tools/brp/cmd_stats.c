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

struct counts {
	long matches, deals, turns, actions, bytes;
	long pile_taken, pile_frozen, rejects, morto_direct, morto_indirect, morto_to_stock;
	long ended_out, ended_stock, vulnerable_open;
	long canastras[RPL_CANASTRA_NCAT];
	long verdicts[RPL_VERDICT_UNTRUSTED + 1];
	long unreadable;
};

static void add_counts(struct counts *to, const struct counts *c)
{
	long *a = (long *)to;
	const long *b = (const long *)c;
	for (size_t i = 0; i < sizeof(*to) / sizeof(long); i++)
		a[i] += b[i];
}

static void deal_done(struct counts *c, const rpl_game *g)
{
	rpl_deal_stats st;
	rpl_game_deal_stats(g, &st);
	c->deals++;
	c->turns += st.turns;
	c->pile_taken += st.pile_taken;
	c->pile_frozen += st.pile_frozen;
	c->rejects += st.rejects;
	c->morto_direct += st.morto_direct;
	c->morto_indirect += st.morto_indirect;
	c->morto_to_stock += st.morto_to_stock;
	c->vulnerable_open += st.vulnerable_open;
	if (st.end == RPL_DEAL_OUT)
		c->ended_out++;
	else if (st.end == RPL_DEAL_STOCK)
		c->ended_stock++;
	for (int s = 0; s < 2; s++) {
		rpl_score sc;
		rpl_game_deal_score(g, s, &sc);
		for (int k = 1; k < RPL_CANASTRA_NCAT; k++)
			c->canastras[k] += sc.canastras[k];
	}
}

/* One log's counts, and why it could not be read (err non-zero). */
struct sresult {
	struct counts c;
	int err;
	char message[sizeof(((rpl_verdict *)0)->message)];
};

/* Counting while the log is verified: the decisions, and each deal as it ends. */
static int count_after(void *ctx, const rpl_event *ev, const rpl_game *g)
{
	struct counts *one = ctx;

	if (ev->kind != RPL_EV_ACTION)
		return 0;
	one->actions++;
	if (rpl_game_phase(g) >= RPL_PHASE_DEAL_OVER)
		deal_done(one, g);
	return 0;
}

/*
 * Count one log (a pool job): verified and counted in one pass (one decode,
 * one replay); the events are kept only for a log that verifies ok.
 */
static void count_file(const char *path, void *result, void *ud)
{
	struct sresult *r = result;
	struct counts *c = &r->c, one;
	rpl_verify_observer obs = { &one, NULL, count_after };
	rpl_verdict v;

	(void)ud;
	memset(r, 0, sizeof(*r));
	memset(&one, 0, sizeof(one));
	r->err = brp_verify_log(path, NULL, NULL, &v, &obs);
	if (r->err) {
		snprintf(r->message, sizeof(r->message), "%s", v.message[0] ? v.message : rpl_strerror(r->err));
		c->unreadable++;
		return;
	}
	c->verdicts[v.kind]++;
	if (v.kind == RPL_VERDICT_MALFORMED) /* it makes the exit 3: said, as an unreadable log is */
		snprintf(r->message, sizeof(r->message), "%s", v.message);
	if (v.kind != RPL_VERDICT_OK)
		return;
	one.matches = 1;
	one.bytes = (long)v.bytes;
	add_counts(c, &one);
}

struct stotal {
	struct counts c;
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
	add_counts(&t->c, &r->c);
	brp_progress_step(&t->prog, ++t->n);
	return 0;
}

static void print_text(const struct counts *c)
{
	printf("matches            %ld\n", c->matches);
	printf("deals              %ld\n", c->deals);
	printf("turns              %ld\n", c->turns);
	printf("decisions          %ld\n", c->actions);
	printf("bytes              %ld\n", c->bytes);
	if (c->actions)
		printf("bytes/decision     %.3f (%.2f bits)\n", (double)c->bytes / (double)c->actions,
		       8.0 * (double)c->bytes / (double)c->actions);
	printf("pile taken         %ld\n", c->pile_taken);
	printf("pile frozen        %ld\n", c->pile_frozen);
	printf("first-card rejects %ld\n", c->rejects);
	printf("morto direct       %ld\n", c->morto_direct);
	printf("morto indirect     %ld\n", c->morto_indirect);
	printf("morto to stock     %ld\n", c->morto_to_stock);
	printf("ended going out    %ld\n", c->ended_out);
	printf("ended stock        %ld\n", c->ended_stock);
	for (int k = 1; k < RPL_CANASTRA_NCAT; k++)
		printf("canastra %-9s %ld\n", rpl_canastra_name(k), c->canastras[k]);
	printf("vulnerable opening %ld\n", c->vulnerable_open);
	for (int k = 1; k <= RPL_VERDICT_UNTRUSTED; k++)
		if (c->verdicts[k])
			printf("not counted: %s %ld\n", rpl_verdict_name(k), c->verdicts[k]);
}

static void print_json(const struct counts *c)
{
	printf("{\"matches\":%ld,\"deals\":%ld,\"turns\":%ld,\"decisions\":%ld,\"bytes\":%ld,", c->matches, c->deals,
	       c->turns, c->actions, c->bytes);
	printf("\"bytes_per_decision\":%.4f,", c->actions ? (double)c->bytes / (double)c->actions : 0.0);
	printf("\"pile_taken\":%ld,\"pile_frozen\":%ld,\"rejects\":%ld,\"morto_direct\":%ld,\"morto_indirect\":%ld,"
	       "\"morto_to_stock\":%ld,\"ended_out\":%ld,\"ended_stock\":%ld,\"vulnerable_open\":%ld,",
	       c->pile_taken, c->pile_frozen, c->rejects, c->morto_direct, c->morto_indirect, c->morto_to_stock,
	       c->ended_out, c->ended_stock, c->vulnerable_open);
	fputs("\"canastras\":{", stdout);
	for (int k = 1; k < RPL_CANASTRA_NCAT; k++)
		printf("%s\"%s\":%ld", k > 1 ? "," : "", rpl_canastra_name(k), c->canastras[k]);
	fputs("},\"verdicts\":{", stdout);
	for (int k = 0; k <= RPL_VERDICT_UNTRUSTED; k++)
		printf("%s\"%s\":%ld", k ? "," : "", rpl_verdict_name(k), c->verdicts[k]);
	fputs("}}\n", stdout);
}

/*
 * The exit code the counts give: a failure when a log or a directory
 * (unreadable_dirs) could not be read, or a log is damaged; no when a log is
 * not ok otherwise; else yes.
 */
static int counts_status(const struct counts *c, int unreadable_dirs)
{
	if (c->unreadable || c->verdicts[RPL_VERDICT_MALFORMED] || unreadable_dirs)
		return BRP_EXIT_FAIL;
	if (c->verdicts[RPL_VERDICT_ILLEGAL] || c->verdicts[RPL_VERDICT_MISMATCH] || c->verdicts[RPL_VERDICT_INCOMPLETE] ||
	    c->verdicts[RPL_VERDICT_TAMPERED] || c->verdicts[RPL_VERDICT_UNTRUSTED])
		return BRP_EXIT_NO;
	return BRP_EXIT_OK;
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
	nargs = logs + argc - first;
	if (!(args = calloc((size_t)nargs + 1, sizeof(char *)))) {
		brp_error(name, "out of memory");
		goto cleanup;
	}
	memcpy(args, logs_v, (size_t)logs * sizeof(char *));
	memcpy(args + logs, argv + first, (size_t)(argc - first) * sizeof(char *));
	if (brp_source_new(&src, name, nargs, args, b.list) < 0)
		goto cleanup;
	if (brp_source_stdin_log(src, stdin_first) < 0) {
		status = BRP_EXIT_USAGE; /* standard input twice: the command line is wrong */
		goto cleanup;
	}
	brp_progress_start(&total.prog, name, "logs", b.quiet, 0);
	if (total.prog.on && !stdin_first) /* a total to count towards, on a terminal only */
		total.prog.total = brp_source_total(nargs, args, b.list);
	rc = brp_pool_run(name, src, b.jobs, sizeof(struct sresult), count_file, add_one, NULL, &total);
	brp_progress_end(&total.prog);
	if (rc < 0)
		goto cleanup;
	if (brp_source_count(src) == 0 && brp_source_unreadable(src)) {
		status = BRP_EXIT_FAIL; /* a directory that could not be walked, said */
		goto cleanup;
	}
	if (brp_source_count(src) == 0) {
		brp_error(name, "no .brp log found in the arguments");
		status = BRP_EXIT_USAGE;
		goto cleanup;
	}
	/* a table of zeros would say nothing of logs that could not be read */
	if ((size_t)total.c.unreadable < brp_source_count(src)) {
		if (json)
			print_json(&total.c);
		else
			print_text(&total.c);
	}
	status = counts_status(&total.c, brp_source_unreadable(src));
cleanup:
	brp_source_free(src);
	free(logs_v);
	free(args);
	return status;
}
