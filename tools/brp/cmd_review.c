/*
 * brp review: what each decision of a match cost its seat (review.h,
 * docs/review.md). The log is replayed once and each decision to review
 * kept with a copy of the game before it; the decisions are then reviewed
 * on -j threads, each a pure function of its game, the options and the
 * seed, and printed in the log's order: the same bytes whatever -j.
 */
#include "brp.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static const char *const name = "review";

static void usage(FILE *f)
{
	fputs("Usage: brp review [OPTION]... LOG\n"
	      "Review the decisions of a match: for each decision of the chosen seats where\n"
	      "there was a choice, the value of the decision played and of the engine's\n"
	      "preferred one (the expected deal-score margin of the seat's side, estimated\n"
	      "on samples of the cards that seat could not see, each played on for four\n"
	      "turns by the greedy bot), the points lost with their standard error,\n"
	      "and a class: inaccuracy (40 points or more), mistake (100), blunder (250).\n"
	      "Then each seat's accuracy and match rate, a deal and the match\n"
	      "(docs/review.md). The same log, strength and seed give the same bytes,\n"
	      "whatever -j. LOG - (or /dev/stdin) reads the log from standard input.\n"
	      "\n"
	      "      --seat N      review seat N only (repeatable; default: every seat)\n"
	      "  -d, --deal N      review deal N only (default: every deal)\n"
	      "      --strength S  samples a decision, 2 to 1000 (default 24)\n"
	      "      --seed S      the samples' seed (default 1)\n"
	      "      --hindsight   judge with every card visible (the real deal)\n"
	      "      --horizon N   play each sample N turns past the decision's own, then\n"
	      "                    count the table (0: to the end of the deal; default 4)\n"
	      "      --hand-weight P  count P % of the points in hand there (default 50)\n"
	      "      --extend X    judge a decision near a class line again on X times the\n"
	      "                    samples, 1 to 8 (1: never; default 4)\n"
	      "  -j, --jobs N      threads (default 1)\n"
	      "      --json        one JSON object a line: the match reviewed and how\n"
	      "                    (\"review\": 1), each decision, then one a seat and deal\n"
	      "                    and one a seat for the match (\"summary\": true)\n"
	      "  -h, --help        print this help and exit\n"
	      "\n"
	      "Exit status: 0 reviewed, 1 the log breaks a rule or is damaged or incomplete\n"
	      "(reviewed up to that point, which is named), 2 a usage error, 3 a log that\n"
	      "cannot be read.\n",
	      f);
}

/* A decision to review: the game before it (a copy), and where it stands. */
struct task {
	rpl_game *g;
	rpl_action played;
	int turn, in_turn; /* the turn and the decision's number in it, as brp show counts them */
	int done;          /* 1 reviewed, 0 not (no choice), negative an error */
	rpl_review_decision d;
};

struct run {
	rpl_review_options o;
	struct task *t;
	size_t n, cap;
	int last_deal, last_turn, in_turn;
	atomic_size_t next;
	atomic_int failed;
};

/* The verifier's observer: keep a copy of the game before each decision of the seats and deal asked for. */
static int collect(void *ctx, const rpl_event *ev, const rpl_game *g)
{
	struct run *r = ctx;
	struct task *t;

	if (ev->kind != RPL_EV_ACTION)
		return 0;
	if (ev->deal != r->last_deal || ev->turn != r->last_turn)
		r->in_turn = 0;
	r->last_deal = ev->deal;
	r->last_turn = ev->turn;
	r->in_turn++;
	if ((r->o.deal && ev->deal != r->o.deal) || (r->o.seats && !((r->o.seats >> ev->seat) & 1u)))
		return 0;
	if (rpl_game_check(g, &ev->action, NULL) != 0)
		return 0; /* the refused decision: the verdict names it */
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 256;
		struct task *nt = realloc(r->t, cap * sizeof(*nt));
		if (!nt)
			return RPL_ENOMEM;
		r->t = nt;
		r->cap = cap;
	}
	t = &r->t[r->n];
	memset(t, 0, sizeof(*t));
	t->g = rpl_game_clone(g);
	if (!t->g)
		return RPL_ENOMEM;
	t->played = ev->action;
	t->turn = ev->turn;
	t->in_turn = r->in_turn;
	r->n++;
	return 0;
}

static void *worker(void *arg)
{
	struct run *r = arg;
	rpl_reviewer *rv = NULL;

	if (rpl_reviewer_new(&rv, &r->o) != 0) {
		atomic_store(&r->failed, 1);
		return NULL;
	}
	for (;;) {
		size_t i = atomic_fetch_add(&r->next, 1);
		if (i >= r->n || atomic_load(&r->failed))
			break;
		r->t[i].done = rpl_review_one(&r->t[i].d, rv, r->t[i].g, &r->t[i].played);
		if (r->t[i].done < 0)
			atomic_store(&r->failed, 1);
		rpl_game_free(r->t[i].g); /* no longer needed: memory falls as the review goes */
		r->t[i].g = NULL;
	}
	rpl_reviewer_free(rv);
	return NULL;
}

static const char *player(const rpl_match_info *info, int seat)
{
	return info->players[seat] ? info->players[seat] : "";
}

static void print_decision_json(const struct task *t)
{
	const rpl_review_decision *d = &t->d;
	const char *cls = rpl_review_class_name(d->cls);
	char buf[128];

	printf("{\"deal\":%d,\"turn\":%d,\"decision\":%d,\"seat\":%d,\"played\":", d->deal, t->turn, t->in_turn, d->seat);
	rpl_action_format(&d->played, buf, sizeof(buf));
	brp_json_string(stdout, buf);
	fputs(",\"best\":", stdout);
	rpl_action_format(&d->best, buf, sizeof(buf));
	brp_json_string(stdout, buf);
	fputs(",\"greedy\":", stdout);
	rpl_action_format(&d->greedy, buf, sizeof(buf));
	brp_json_string(stdout, buf);
	printf(",\"value_played\":%.1f,\"value_best\":%.1f,\"loss\":%.1f,\"se\":%.1f,\"samples\":%d,\"candidates\":%d,"
	       "\"class\":",
	       d->value_played, d->value_best, d->loss, d->se, d->samples, d->candidates);
	if (cls)
		printf("\"%s\"", cls);
	else
		fputs("null", stdout);
	printf(",\"class_uncertain\":%s,\"win_loss\":%.2f,\"accuracy\":%.1f}\n", d->uncertain ? "true" : "false",
	       d->win_loss, d->accuracy);
}

static void print_summary_json(const rpl_review_summary *s, const rpl_match_info *info)
{
	printf("{\"summary\":true,\"seat\":%d,\"deal\":", s->seat);
	if (s->deal)
		printf("%d", s->deal);
	else
		fputs("null", stdout);
	fputs(",\"player\":", stdout);
	brp_json_string(stdout, player(info, s->seat));
	printf(",\"decisions\":%d,\"accuracy\":%.1f,\"match_rate\":%.1f,\"loss\":%.1f,\"inaccuracies\":%d,"
	       "\"mistakes\":%d,\"blunders\":%d}\n",
	       s->decisions, rpl_review_summary_accuracy(s), rpl_review_summary_match_rate(s), s->loss_sum,
	       s->classes[RPL_REVIEW_INACCURACY], s->classes[RPL_REVIEW_MISTAKE], s->classes[RPL_REVIEW_BLUNDER]);
}

/* Where brp show shows the table before t: after the decision before it in its turn, or after the turn before. */
static void print_where(const struct task *t)
{
	printf("deal %d, turn %d, decision %d (brp show -d %d -t %d", t->d.deal, t->turn, t->in_turn, t->d.deal,
	       t->in_turn > 1 ? t->turn : t->turn - 1);
	if (t->in_turn > 1)
		printf(" -D %d", t->in_turn - 1);
	fputs(")", stdout);
}

/* The five biggest losses of seat, biggest first (the first in the log of equals). */
static void print_worst(const struct run *r, int seat)
{
	size_t pick[5];
	int npick = 0;

	for (size_t i = 0; i < r->n; i++) {
		const struct task *t = &r->t[i];
		int at;
		if (t->done != 1 || t->d.seat != seat || t->d.sum_best == t->d.sum_played)
			continue;
		for (at = npick; at > 0 && r->t[pick[at - 1]].d.loss < t->d.loss; at--)
			;
		if (at >= 5)
			continue;
		if (npick < 5)
			npick++;
		memmove(&pick[at + 1], &pick[at], (size_t)(npick - 1 - at) * sizeof(pick[0]));
		pick[at] = i;
	}
	for (int k = 0; k < npick; k++) {
		const struct task *t = &r->t[pick[k]];
		const char *cls = rpl_review_class_name(t->d.cls);
		char a[128], b[128];
		rpl_action_format(&t->d.played, a, sizeof(a));
		rpl_action_format(&t->d.best, b, sizeof(b));
		fputs("  ", stdout);
		print_where(t);
		printf(": played %s, better %s: %.1f points (se %.1f)%s%s%s\n", a, b, t->d.loss, t->d.se, cls ? ", " : "",
		       cls ? cls : "", cls && t->d.uncertain ? " (uncertain)" : "");
	}
}

/* The summaries of the seats reviewed: by deal (deal > 0) or for the match (deal 0). */
static void summarize(const struct run *r, int seat, int deal, rpl_review_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->seat = seat;
	s->deal = deal;
	for (size_t i = 0; i < r->n; i++)
		if (r->t[i].done == 1 && r->t[i].d.seat == seat && (!deal || r->t[i].d.deal == deal))
			rpl_review_summary_add(s, &r->t[i].d);
}

/*
 * --json's first line: the match reviewed (its identity, docs/format.md
 * section 17; null for a log damaged before its end) and how, so that a
 * review is shown with its own log only (brp view --review).
 */
static void print_header_json(const struct run *r, const rpl_verdict *v)
{
	fputs("{\"review\":1,\"match_id\":", stdout);
	if (v->match_id[0])
		printf("\"%s\"", v->match_id);
	else
		fputs("null", stdout);
	printf(",\"strength\":%d,\"seed\":%llu,\"hindsight\":%s,\"horizon\":%d,\"deal\":", r->o.samples,
	       (unsigned long long)r->o.seed, r->o.hindsight ? "true" : "false", r->o.horizon);
	if (r->o.deal)
		printf("%d}\n", r->o.deal);
	else
		fputs("null}\n", stdout);
}

static void print_results(const struct run *r, const rpl_match_info *info, const rpl_verdict *v, int json)
{
	int maxdeal = 0;
	rpl_review_summary s;

	if (json)
		print_header_json(r, v);
	for (size_t i = 0; i < r->n; i++) {
		if (r->t[i].done == 1 && json)
			print_decision_json(&r->t[i]);
		if (r->t[i].done == 1 && r->t[i].d.deal > maxdeal)
			maxdeal = r->t[i].d.deal;
	}
	for (int seat = 0; seat < info->nplayers; seat++) {
		if (r->o.seats && !((r->o.seats >> seat) & 1u))
			continue;
		summarize(r, seat, 0, &s);
		if (!json) {
			printf("seat %d (", seat);
			brp_text(stdout, player(info, seat));
			printf("): accuracy %.1f%%, match rate %.1f%%, %d decisions, %.1f points lost; "
			       "inaccuracies %d, mistakes %d, blunders %d\n",
			       rpl_review_summary_accuracy(&s), rpl_review_summary_match_rate(&s), s.decisions, s.loss_sum,
			       s.classes[RPL_REVIEW_INACCURACY], s.classes[RPL_REVIEW_MISTAKE], s.classes[RPL_REVIEW_BLUNDER]);
			print_worst(r, seat);
			continue;
		}
		for (int deal = 1; deal <= maxdeal; deal++) {
			rpl_review_summary sd;
			summarize(r, seat, deal, &sd);
			if (sd.decisions)
				print_summary_json(&sd, info);
		}
		print_summary_json(&s, info);
	}
}

static int options(int argc, char **argv, struct run *r, int *jobs, int *json, const char **path)
{
	enum { OPT_SEAT = BRP_OPT_OWN, OPT_STRENGTH, OPT_SEED, OPT_HINDSIGHT, OPT_HORIZON, OPT_HAND_WEIGHT, OPT_EXTEND };
	static const struct brp_opt opts[] = {
		{ "seat", 1, OPT_SEAT, 1, 0 },
		{ "deal", 1, 'd', 0, 0 },
		{ "strength", 1, OPT_STRENGTH, 0, 0 },
		{ "seed", 1, OPT_SEED, 0, 0 },
		{ "hindsight", 0, OPT_HINDSIGHT, 0, 0 },
		{ "horizon", 1, OPT_HORIZON, 0, 0 },
		{ "hand-weight", 1, OPT_HAND_WEIGHT, 0, 0 },
		{ "extend", 1, OPT_EXTEND, 0, 0 },
		BRP_OPT_JOBS,
		BRP_OPT_JSON_ROW,
		BRP_OPT_HELP,
		BRP_OPT_END,
	};
	struct brp_getopt g;
	struct brp_batch b = BRP_BATCH_INIT;
	int c, v;

	brp_getopt_init(&g, name, opts, argc, argv);
	while ((c = brp_getopt_next(&g)) != -1) {
		int rc = brp_batch_option(&g, c, &b);
		if (rc == 1)
			continue;
		if (rc)
			return rc;
		switch (c) {
		case BRP_OPT_BAD: return BRP_EXIT_USAGE;
		case OPT_SEAT:
			rc = brp_opt_int(&g, 0, RPL_MAX_SEATS - 1, &v);
			r->o.seats |= 1u << v;
			break;
		case 'd': rc = brp_opt_int(&g, 1, RPL_MAX_DEALS, &r->o.deal); break;
		case OPT_STRENGTH: rc = brp_opt_int(&g, 2, 1000, &r->o.samples); break;
		case OPT_SEED: rc = brp_opt_u64(&g, &r->o.seed); break;
		case OPT_HINDSIGHT: r->o.hindsight = 1; break;
		case OPT_HORIZON: rc = brp_opt_int(&g, 0, 1000, &r->o.horizon); break;
		case OPT_HAND_WEIGHT: rc = brp_opt_int(&g, 0, 100, &r->o.hand_weight); break;
		case OPT_EXTEND: rc = brp_opt_int(&g, 1, 8, &r->o.extend); break;
		case BRP_OPT_JSON: *json = 1; break;
		case 'h': usage(stdout); return -1;
		}
		if (rc)
			return rc;
	}
	*jobs = b.jobs;
	if (brp_getopt_index(&g) != argc - 1) {
		brp_error(name, "needs one log (try 'brp review --help')");
		return BRP_EXIT_USAGE;
	}
	*path = argv[argc - 1];
	return 0;
}

int cmd_review(int argc, char **argv)
{
	struct run r;
	rpl_reader *rd = NULL;
	rpl_verify_observer obs;
	rpl_verdict v;
	const char *path = NULL;
	int jobs = 1, json = 0, status = BRP_EXIT_FAIL, err, rc;

	memset(&r, 0, sizeof(r));
	rpl_review_options_init(&r.o);
	rc = options(argc, argv, &r, &jobs, &json, &path);
	if (rc)
		return rc < 0 ? BRP_EXIT_OK : rc;
	err = brp_open_log(path, &rd);
	if (brp_stdin_spelling(path))
		path = brp_stdin_name;
	if (err != 0) {
		brp_error(name, "%s: %s", path, rd && *rpl_reader_errmsg(rd) ? rpl_reader_errmsg(rd) : rpl_strerror(err));
		goto cleanup;
	}
	obs.ctx = &r;
	obs.before = collect;
	obs.after = NULL;
	err = rpl_verify_reader_observe(rd, NULL, &v, &obs);
	if (err) {
		brp_error(name, "%s: %s", path, rpl_strerror(err));
		goto cleanup;
	}
	if (jobs > (int)r.n)
		jobs = r.n ? (int)r.n : 1;
	if (brp_threads_run(name, jobs, worker, &r) != jobs || atomic_load(&r.failed)) {
		brp_error(name, "%s: the review failed (out of memory)", path);
		goto cleanup;
	}
	print_results(&r, rpl_reader_info(rd), &v, json);
	status = BRP_EXIT_OK;
	if (v.kind != RPL_VERDICT_OK) {
		char text[1024];
		rpl_verdict_format(&v, text, sizeof(text));
		if (json) {
			fputs("{\"verdict\":", stdout);
			brp_json_string(stdout, rpl_verdict_name(v.kind));
			fputs(",\"message\":", stdout);
			brp_json_string(stdout, text);
			fputs("}\n", stdout);
		} else {
			fputs("verdict (a refused decision, damage or the end of the log stops the review): ", stdout);
			brp_text(stdout, text);
			putchar('\n');
		}
		status = BRP_EXIT_NO;
	}
	if (fflush(stdout) != 0) {
		brp_error(name, "cannot write the output");
		status = BRP_EXIT_FAIL;
	}
cleanup:
	for (size_t i = 0; i < r.n; i++)
		rpl_game_free(r.t[i].g);
	free(r.t);
	rpl_reader_free(rd);
	return status;
}
