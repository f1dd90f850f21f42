/*
 * brp integrity: screen a corpus for play that hidden information would
 * explain (integrity.h, docs/integrity.md). Each log is verified and
 * screened on the pool's threads; its evidence is added to the corpus in the
 * logs' order, so the result is the same whatever -j.
 */
#include "brp.h"
#include "integrity_html.h"

#include <stdlib.h>
#include <string.h>

static const char *const name = "integrity";

static void usage(FILE *f)
{
	fputs("Usage: brp integrity [OPTION]... FILE|DIR|-...\n"
	      "Screen a corpus of logs for play that the cards a player could not see\n"
	      "would explain: discards that avoid what the next opponent holds (peek),\n"
	      "draws that agree with the stock's hidden card (draw), discards that fit an\n"
	      "opponent's hand (feed) or a partner's (signal), each against what the\n"
	      "player's own information explains. Every player (by name, across matches)\n"
	      "and, with --pairs, every pair gets a value, a count and a p-value from a\n"
	      "permutation test across its deals; a flag is a reason to look, never a\n"
	      "verdict (docs/integrity.md). Only logs that verify ok are screened.\n"
	      "\n"
	      "      --player NAME  only the lines of this player (its pairs too)\n"
	      "      --seat N       only the decisions of seat N (0-based)\n"
	      "      --pairs        the pairs' lines too (feed, signal)\n"
	      "      --level L      flag below this p-value, over a subject's statistics\n"
	      "                     (default 0.01)\n"
	      "      --samples K    samples of the unseen cards a discard (default 32)\n"
	      "      --permutations M  sign flips a test (default 9999)\n"
	      "      --seed S       the samples' and the flips' seed (default 1)\n"
	      "      --full         also the full test (hindsight): each decision valued by\n"
	      "                     the review's judge on samples and on the real cards\n"
	      "                     (about the cost of brp review)\n"
	      "      --full-strength N  its samples a candidate, each way (2..1000, default 16)\n"
	      "      --json         one JSON object a line: a player or a pair\n"
	      "      --html OUT     also write a report page to OUT\n"
	      "  -K, --key FILE     a trusted public key (a minisign .pub file; repeatable):\n"
	      "                     a log no trusted key signs whole is untrusted and left\n"
	      "                     out, as brp verify -K judges it\n"
	      "      --keyring FILE trusted public keys, one after another in a file\n"
	      "  -j, --jobs N       threads (default 1; the result is the same)\n"
	      "      --from-list FILE  also screen the paths listed in FILE, one a line\n"
	      "      --log FILE     also screen the log FILE (repeatable)\n"
	      "  -q, --quiet        no progress line on a terminal\n"
	      "  -h, --help         print this help and exit\n"
	      "\n"
	      "Exit status: 0 nothing flagged; 1 a player or pair flagged; 2 a usage\n"
	      "error; 3 a log that cannot be read, or out of memory.\n",
	      f);
}

/* One log screened (a pool job's result). */
struct iresult {
	int err;     /* could not be read or screened: message says why */
	int verdict; /* enum rpl_verdict_kind */
	char message[RPL_ERRMSG_SIZE];
	int players;
	char group[32]; /* the null model's group: the rules' profile */
	char *names[RPL_MAX_SEATS];
	rpl_integrity_decision *d;
	size_t n, cap;
};

struct irun {
	rpl_integrity_options o;
	rpl_keyring *trusted; /* -K, --keyring: NULL when none */
	int seat;             /* -1: every seat */
	rpl_integrity *in;
	char **paths; /* every log added, by match number */
	long npaths, cappaths;
	long decisions, left_out, failed;
	struct brp_progress prog;
	size_t done;
};

static int keep(void *ctx, const rpl_integrity_decision *d)
{
	struct iresult *r = ctx;

	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 256;
		rpl_integrity_decision *n = realloc(r->d, cap * sizeof(*n));
		if (!n)
			return RPL_ENOMEM;
		r->d = n;
		r->cap = cap;
	}
	r->d[r->n++] = *d;
	return 0;
}

/* What a result holds, released once it is added (the pool's slots are used again). */
static void release(struct iresult *r)
{
	for (int s = 0; s < RPL_MAX_SEATS; s++)
		free(r->names[s]);
	free(r->d);
	memset(r, 0, sizeof(*r));
}

/* Screen one log (a pool job). */
static void screen(const char *path, void *result, void *ud)
{
	const struct irun *run = ud;
	struct iresult *r = result;
	rpl_reader *rd = NULL;
	rpl_verdict v;
	const rpl_match_info *info;

	memset(r, 0, sizeof(*r));
	if ((r->err = rpl_reader_open(&rd, path)) != 0) {
		snprintf(r->message, sizeof(r->message), "%s", rd ? rpl_reader_errmsg(rd) : "out of memory");
		goto cleanup;
	}
	info = rpl_reader_info(rd);
	r->players = info->nplayers;
	snprintf(r->group, sizeof(r->group), "%s", info->rules ? rpl_rules_profile(info->rules) : "");
	for (int s = 0; s < info->nplayers; s++)
		if (!(r->names[s] = strdup(info->players[s] ? info->players[s] : ""))) {
			r->err = RPL_ENOMEM;
			snprintf(r->message, sizeof(r->message), "out of memory");
			goto cleanup;
		}
	if ((r->err = rpl_integrity_reader_trusted(rd, NULL, run->trusted, &run->o, keep, r, &v)) != 0) {
		snprintf(r->message, sizeof(r->message), "%s", rpl_strerror(r->err));
		goto cleanup;
	}
	r->verdict = v.kind;
	if (v.kind != RPL_VERDICT_OK)
		rpl_verdict_format(&v, r->message, sizeof(r->message));
cleanup:
	rpl_reader_free(rd);
}

/* Add one log's evidence to the corpus, in the logs' order. */
static int add_log(const char *path, const void *result, void *ud)
{
	struct iresult *r = (struct iresult *)result; /* the pool's slot, ours until this returns */
	struct irun *run = ud;
	const rpl_integrity_decision *d = r->d;

	brp_progress_step(&run->prog, ++run->done);
	if (r->err || r->verdict != RPL_VERDICT_OK) {
		brp_progress_clear(&run->prog);
		if (r->err)
			brp_error(name, "%s: %s", path, r->message);
		else
			brp_error(name, "%s: left out: %s", path, r->message);
		run->failed += r->err != 0;
		run->left_out += !r->err;
		release(r);
		return 0;
	}
	if (run->npaths == run->cappaths) {
		long cap = run->cappaths ? 2 * run->cappaths : 64;
		char **n = realloc(run->paths, (size_t)cap * sizeof(*n));
		if (!n)
			goto nomem;
		run->paths = n;
		run->cappaths = cap;
	}
	if (!(run->paths[run->npaths] = strdup(path)))
		goto nomem;
	for (size_t i = 0; i < r->n; i++)
		run->decisions += run->seat < 0 || d[i].seat == run->seat;
	if (rpl_integrity_add(run->in, run->npaths, (const char *const *)r->names, r->players, r->group, d, r->n) != 0)
		goto nomem;
	run->npaths++;
	release(r);
	return 0;
nomem:
	release(r);
	brp_progress_clear(&run->prog);
	brp_error(name, "out of memory");
	run->failed++;
	return 1;
}

/* Does line l concern the player asked for (NULL: every one), and is it shown (pairs only with --pairs)? */
static int shown(const rpl_integrity_line *l, const char *player, int pairs)
{
	if (l->partner && !pairs)
		return 0;
	return !player || !strcmp(l->player, player) || (l->partner && !strcmp(l->partner, player));
}

static void print_json(const struct irun *run, const rpl_integrity_line *l)
{
	if (l->partner) {
		fputs("{\"pair\":[", stdout);
		brp_json_string(stdout, l->player);
		putchar(',');
		brp_json_string(stdout, l->partner);
		putchar(']');
	} else {
		fputs("{\"player\":", stdout);
		brp_json_string(stdout, l->player);
	}
	printf(",\"statistic\":\"%s\",\"value\":%.6f,\"n\":%ld,\"deals\":%ld,\"matches\":%ld,\"observed\":%.4f,"
	       "\"expected\":%.4f,\"z\":%.4f,\"p\":%.6g,\"level\":%.6g,\"flagged\":%s,\"evidence\":[",
	       rpl_integrity_stat_name(l->stat), l->value, l->decisions, l->deals, l->matches, l->observed, l->expected,
	       l->z, l->p, l->level, l->flagged ? "true" : "false");
	for (int i = 0; i < l->nevidence; i++) {
		const rpl_integrity_where *w = &l->evidence[i];
		char link[64];
		snprintf(link, sizeof(link), "#d=%d&t=%d&n=%d", w->deal, w->turn, w->step);
		fputs(i ? ",{\"log\":" : "{\"log\":", stdout);
		brp_json_string(stdout, run->paths[w->match]);
		printf(",\"deal\":%d,\"turn\":%d,\"decision\":%d,\"number\":%d,\"residual\":%.4f,\"view\":\"%s\"}", w->deal,
		       w->turn, w->step, w->number, w->residual, link);
	}
	fputs("]}\n", stdout);
}

static void print_text(const struct irun *run, const rpl_integrity_line *l, long rank)
{
	int width = 0;

	printf("%4ld  %-7s ", rank, rpl_integrity_stat_name(l->stat));
	brp_text_n(stdout, l->player, 24);
	width = (int)(strlen(l->player) < 24 ? strlen(l->player) : 24);
	if (l->partner) {
		fputs(" > ", stdout);
		brp_text_n(stdout, l->partner, 24);
		width += 3 + (int)(strlen(l->partner) < 24 ? strlen(l->partner) : 24);
	}
	printf("%*s %8ld %6ld %+8.4f %7.2f %9.2g%s\n", width < 30 ? 30 - width : 1, "", l->decisions, l->deals, l->value,
	       l->z, l->p, l->flagged ? "  FLAGGED" : "");
	for (int i = 0; l->flagged && i < l->nevidence; i++) {
		const rpl_integrity_where *w = &l->evidence[i];
		fputs("        ", stdout);
		brp_text(stdout, run->paths[w->match]);
		printf(" deal %d, turn %d, decision %d (brp view: #d=%d&t=%d&n=%d)\n", w->deal, w->turn, w->step, w->deal,
		       w->turn, w->step);
	}
}

/* Print the lines asked for; *flagged gets whether one of them is flagged. */
static int print_results(const struct irun *run, long n, const char *player, int pairs, int json, int *flagged)
{
	rpl_integrity_line l;
	long rank = 0;

	if (!json)
		printf("%ld logs screened: %ld comparisons of a decision with cards its player could not see.\n"
		       "A line is flagged when p is below its level (%g over the statistics of its player or pair):\n"
		       "a reason to look at the decisions under it, never a verdict (docs/integrity.md).\n\n"
		       "   #  stat    player (> whose hand)            decisions  deals    value       z         p\n",
		       run->npaths, run->decisions, run->o.level);
	for (long i = 0; i < n; i++) {
		if (rpl_integrity_line_get(run->in, i, &l) != 0)
			return -1;
		if (!shown(&l, player, pairs))
			continue;
		*flagged |= l.flagged;
		if (json)
			print_json(run, &l);
		else
			print_text(run, &l, ++rank);
	}
	return 0;
}

/* The options of this command alone. */
enum {
	OPT_PLAYER = BRP_OPT_OWN,
	OPT_SEAT,
	OPT_PAIRS,
	OPT_LEVEL,
	OPT_SAMPLES,
	OPT_PERMS,
	OPT_SEED,
	OPT_HTML,
	OPT_FULL,
	OPT_FULL_STRENGTH
};

struct iopts {
	const char *player, *html;
	int pairs, json, stdin_first, logs;
	const char **logs_v;
	struct brp_batch b;
};

/* --level L: a p-value level, a decimal number above 0 and at most 0.5. */
static int level_option(const struct brp_getopt *g, double *out)
{
	char *end;
	double v = strtod(g->arg, &end);

	if (end == g->arg || *end || !(v > 0 && v <= 0.5))
		return brp_opt_refuse(g, "a number above 0 and at most 0.5");
	*out = v;
	return 0;
}

static int options(struct brp_getopt *g, struct irun *run, struct iopts *io)
{
	int c, rc;

	while ((c = brp_getopt_next(g)) != -1) {
		if (c == BRP_OPT_BAD)
			return BRP_EXIT_USAGE;
		if ((rc = brp_batch_option(g, c, &io->b)) != 0) {
			if (rc != 1)
				return rc;
			continue;
		}
		switch (c) {
		case OPT_PLAYER: io->player = g->arg; break;
		case OPT_SEAT:
			if ((rc = brp_opt_int(g, 0, RPL_MAX_SEATS - 1, &run->seat)) == 0)
				run->o.seats = 1u << run->seat;
			break;
		case OPT_PAIRS: io->pairs = 1; break;
		case OPT_LEVEL: rc = level_option(g, &run->o.level); break;
		case OPT_SAMPLES: rc = brp_opt_int(g, 1, 4096, &run->o.samples); break;
		case OPT_PERMS: rc = brp_opt_int(g, 99, 1000000, &run->o.permutations); break;
		case OPT_SEED: rc = brp_opt_u64(g, &run->o.seed); break;
		case OPT_HTML: rc = brp_opt_path(g, &io->html); break;
		case OPT_FULL: run->o.full = 1; break;
		case 'K':
		case BRP_OPT_KEYRING:
			if (brp_keyring_add(name, &run->trusted, g->arg) < 0)
				return BRP_EXIT_FAIL;
			break;
		case OPT_FULL_STRENGTH: rc = brp_opt_int(g, 2, 1000, &run->o.full_samples); break;
		case BRP_OPT_JSON: io->json = 1; break;
		case BRP_OPT_LOGFILE:
			if (strcmp(g->arg, "-") == 0)
				io->stdin_first++;
			else if ((rc = brp_opt_path(g, &io->logs_v[io->logs])) == 0)
				io->logs++;
			break;
		case 'h': usage(stdout); return -1;
		}
		if (rc)
			return rc;
	}
	return 0;
}

int cmd_integrity(int argc, char **argv)
{
	static const struct brp_opt opts[] = {
		{ "player", 1, OPT_PLAYER, 0, 0 },
		{ "seat", 1, OPT_SEAT, 0, 0 },
		{ "pairs", 0, OPT_PAIRS, 0, 0 },
		{ "level", 1, OPT_LEVEL, 0, 0 },
		{ "samples", 1, OPT_SAMPLES, 0, 0 },
		{ "permutations", 1, OPT_PERMS, 0, 0 },
		{ "seed", 1, OPT_SEED, 0, 0 },
		{ "html", 1, OPT_HTML, 0, 0 },
		{ "full", 0, OPT_FULL, 0, 0 },
		{ "full-strength", 1, OPT_FULL_STRENGTH, 0, 0 },
		BRP_OPT_KEY,
		BRP_OPT_KEYRING_ROW,
		BRP_OPT_JSON_ROW,
		BRP_OPT_JOBS,
		BRP_OPT_FROM_LIST,
		BRP_OPT_QUIET,
		BRP_OPT_LOGS,
		BRP_OPT_HELP,
		BRP_OPT_END,
	};
	struct brp_getopt g;
	struct irun run;
	struct iopts io;
	struct brp_source *src = NULL;
	char **args = NULL;
	int status = BRP_EXIT_USAGE, rc, nargs, flagged = 0;
	long n;

	memset(&run, 0, sizeof(run));
	memset(&io, 0, sizeof(io));
	io.b = (struct brp_batch)BRP_BATCH_INIT;
	rpl_integrity_options_init(&run.o);
	run.seat = -1;
	if (!(io.logs_v = calloc((size_t)argc + 1, sizeof(char *)))) {
		brp_error(name, "out of memory");
		return BRP_EXIT_FAIL;
	}
	brp_getopt_init(&g, name, opts, argc, argv);
	if ((rc = options(&g, &run, &io)) != 0) {
		status = rc < 0 ? BRP_EXIT_OK : rc;
		goto cleanup;
	}
	if (brp_getopt_index(&g) >= argc && !io.b.list && !io.logs && !io.stdin_first) {
		brp_error(name, "no log to screen (try 'brp integrity --help')");
		goto cleanup;
	}
	status = BRP_EXIT_FAIL;
	if (rpl_integrity_new(&run.in, &run.o) != 0 ||
	    !(args = brp_corpus_args(name, io.logs_v, io.logs, argc, argv, brp_getopt_index(&g), &nargs))) {
		brp_error(name, "out of memory");
		goto cleanup;
	}
	if ((rc = brp_corpus_read(name, &src, nargs, args, &io.b, io.stdin_first, &run.prog, sizeof(struct iresult), screen,
	                          add_log, &run)) != 0 &&
	    !run.failed) {
		status = rc;
		goto cleanup;
	}
	if ((n = rpl_integrity_finish(run.in)) < 0 || print_results(&run, n, io.player, io.pairs, io.json, &flagged) != 0) {
		brp_error(name, "out of memory");
		goto cleanup;
	}
	if (io.html &&
	    brp_integrity_html(name, io.html, run.in, n, (const char *const *)run.paths, io.player, io.pairs) != 0)
		goto cleanup;
	status = run.failed || brp_source_unreadable(src) ? BRP_EXIT_FAIL : flagged ? BRP_EXIT_NO : BRP_EXIT_OK;
cleanup:
	brp_source_free(src);
	rpl_integrity_free(run.in);
	rpl_keyring_free(run.trusted);
	for (long i = 0; i < run.npaths; i++)
		free(run.paths[i]);
	free(run.paths);
	free(io.logs_v);
	free(args);
	return status;
}
