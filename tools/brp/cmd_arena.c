/*
 * brp arena: two kinds of bot against each other on duplicate deals.
 *
 * A pair is one committed deal played twice: A's bots at side 0 and B's at
 * side 1, then the same layout with the sides swapped, so that the luck of
 * the cards cancels and what is left is the difference between the players.
 * The two logs of a pair have the same header terms (names by seat, first
 * dealer, rules, players' seeds) and the same committed seed, hence the same
 * commitment and the same layout: who sat where is metadata, which the
 * commitment does not bind.
 */
#include "brp.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *const name = "arena";

/* The most pairs a run plays: pair-000001 to pair-999999. */
#define MAX_PAIRS 999999L

/* A deal that runs this long is a bot bug, not a game (as in brp simulate). */
#define MAX_DECISIONS_PER_DEAL 20000

static void usage(FILE *f)
{
	fputs("Usage: brp arena A B [OPTION]...\n"
	      "Play bot kind A against bot kind B on duplicate deals: each deal (a pair)\n"
	      "is played twice with the sides swapped, on the same committed layout, and\n"
	      "A's mean margin a deal is printed with its standard error. A and B are\n"
	      "greedy, random or search[:N] (N samples a decision, default 128, slow).\n"
	      "The same options give the same result, whatever -j.\n"
	      "\n"
	      "  -r, --rules PROFILE   kzv, stbl or aberto (default stbl)\n"
	      "  -s, --set NAME=VALUE  override a rule parameter (repeatable; the\n"
	      "                        matches are one deal: target 0, whatever is set)\n"
	      "  -p, --players N       2 or 4 (default 4)\n"
	      "  -n, --deals N         how many pairs (default 100)\n"
	      "      --seed S          the seed of the run (default 1)\n"
	      "  -j, --jobs N          threads (default 1)\n"
	      "  -o, --output DIR      keep the logs as DIR/pair-NNNNNN-aS.brp, S the side\n"
	      "                        A played (DIR created if missing; refused if it\n"
	      "                        holds anything); without it nothing is written\n"
	      "      --times           measure the CPU time of each side's decisions (not\n"
	      "                        the same from run to run)\n"
	      "  -q, --quiet           no progress line\n"
	      "      --json            the result as one JSON object: pairs, margin, se,\n"
	      "                        won, lost, tied, a, b, rules, players, seed, ...\n"
	      "  -h, --help            print this help and exit\n"
	      "\n"
	      "Exit status: 0 the pairs played, 2 a usage error (DIR not empty included),\n"
	      "3 a log that cannot be written or a bot that cannot go on.\n",
	      f);
}

/* A player of the arena: a bot kind and its strength. */
struct kind {
	int bot;     /* RPL_BOT_* */
	int samples; /* RPL_BOT_SEARCH: samples a decision */
	char text[32];
};

/* What one side did in one pair's two matches. */
struct side_cost {
	long decisions;
	double cpu, max; /* seconds of the thread's CPU: their sum and the longest decision */
};

/* One pair: A's side's deal score less B's, in each seating, and each side's decisions. */
struct pair_result {
	int32_t diff[2];          /* [a_side] */
	struct side_cost cost[2]; /* [0] A, [1] B */
};

struct job {
	const rpl_rules *rules;
	struct kind kinds[2]; /* [0] A, [1] B */
	int players, times;
	uint64_t seed;
	long pairs;
	const char *dir; /* NULL: nothing written */
	struct pair_result *results;
	atomic_long next;
	atomic_int failed;
	pthread_mutex_t lock;
	struct brp_progress prog; /* under lock */
	size_t done;
	char errmsg[512];
};

/* A or B: greedy, random, search or search:N (1..1000); 0, or -1 (not one of them). */
static int parse_kind(const char *s, struct kind *k)
{
	k->samples = 0;
	if (strcmp(s, "greedy") == 0)
		k->bot = RPL_BOT_GREEDY;
	else if (strcmp(s, "random") == 0)
		k->bot = RPL_BOT_RANDOM;
	else if (brp_search_kind(s, &k->samples) == 0)
		k->bot = RPL_BOT_SEARCH;
	else
		return -1;
	if (k->bot == RPL_BOT_SEARCH)
		snprintf(k->text, sizeof(k->text), "search:%d", k->samples);
	else
		snprintf(k->text, sizeof(k->text), "%s", s);
	return 0;
}

/* Keep the first failure's message: "a: b" (a alone when b is empty). */
static void job_fail(struct job *j, const char *a, const char *b)
{
	pthread_mutex_lock(&j->lock);
	if (!atomic_load(&j->failed))
		snprintf(j->errmsg, sizeof(j->errmsg), "%s%s%s", a, a[0] && b[0] ? ": " : "", b);
	atomic_store(&j->failed, 1);
	pthread_mutex_unlock(&j->lock);
}

static double thread_cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void log_path(char *buf, size_t cap, const struct job *j, long pair, int a_side)
{
	snprintf(buf, cap, "%s/pair-%06ld-a%d.brp", j->dir, pair + 1, a_side);
}

/*
 * The bots of one seating: A's kind at the seats of a_side, B's at the
 * others. A seat's seed depends on the pair and the seat, not on who sits
 * there, so that the same table is the same game in whichever run it comes:
 * B against A is A against B with the sign turned, and a kind against itself
 * plays both seatings alike (a margin of 0). 0, or -1 out of memory.
 */
static int make_bots(const struct job *j, uint64_t pair_seed, int a_side, rpl_bot **bots)
{
	for (int s = 0; s < j->players; s++) {
		const struct kind *k = &j->kinds[s % 2 == a_side ? 0 : 1];
		uint64_t seed = brp_mix64(pair_seed + (uint64_t)s + 1);
		if (k->bot == RPL_BOT_SEARCH ? rpl_bot_new_search(&bots[s], seed, k->samples, 1) != 0
		                             : rpl_bot_new(&bots[s], k->bot, seed) != 0)
			return -1;
	}
	return 0;
}

/*
 * The decisions of the match in g, each recorded when rec is set, their cost
 * counted against the side that took them (cost[0] A's, cost[1] B's); the
 * first deal's scores into first[side]. Target 0 makes the match one deal,
 * but a tied deal plays another (docs/rules.md 10.1): a log goes on to the
 * match's end, so that it is whole, while without one the first deal is
 * enough, since only it counts. 0, or -1 (the job failed).
 */
static int play_out(struct job *j, rpl_game *g, rpl_recorder *rec, rpl_bot *const *bots, const uint8_t *dseed,
                    const rpl_match_info *info, int a_side, struct side_cost *cost, int32_t first[2], const char *path)
{
	struct side_cost spare = { 0, 0, 0 };

	while (rpl_game_phase(g) != RPL_PHASE_MATCH_OVER) {
		rpl_layout lay;
		int steps = 0;
		int32_t claim[2];
		rpl_score sc;

		if (rpl_deal_derive_match(&lay, dseed, info, rpl_game_deal_number(g) + 1) != 0) {
			job_fail(j, path, "the deal cannot be derived");
			return -1;
		}
		if (rpl_game_deal(g, &lay) != 0 || (rec && rpl_recorder_deal(rec, &lay) != 0)) {
			job_fail(j, path, rec ? rpl_recorder_errmsg(rec) : "the deal is refused");
			return -1;
		}
		while (rpl_game_phase(g) < RPL_PHASE_DEAL_OVER) {
			int seat = rpl_game_seat(g);
			/* only the first deal counts, so that -o changes no figure */
			struct side_cost *c = rpl_game_deal_number(g) == 1 ? &cost[seat % 2 == a_side ? 0 : 1] : &spare;
			double t0 = j->times ? thread_cpu() : 0, t;
			rpl_action a;

			if (++steps > MAX_DECISIONS_PER_DEAL || rpl_bot_choose(bots[seat], g, &a) != 0) {
				job_fail(j, path, "a bot found no way to go on (a bug: please report it)");
				return -1;
			}
			if (j->times) {
				t = thread_cpu() - t0;
				c->cpu += t;
				if (t > c->max)
					c->max = t;
			}
			c->decisions++;
			if (rpl_game_apply(g, &a) != 0 || (rec && rpl_recorder_action(rec, &a) != 0)) {
				job_fail(j, path, rec ? rpl_recorder_errmsg(rec) : "a bot's decision is refused");
				return -1;
			}
		}
		for (int side = 0; side < 2; side++) {
			rpl_game_deal_score(g, side, &sc);
			claim[side] = sc.total;
		}
		if (rpl_game_deal_number(g) == 1)
			memcpy(first, claim, sizeof(claim));
		if (!rec)
			break;
		rpl_recorder_claim(rec, rpl_game_deal_number(g), claim);
	}
	return 0;
}

/* One seating of a pair: a pure function of (seed, pair, a_side). 0, or -1 (the job failed). */
static int play_seating(struct job *j, long pair, int a_side, struct pair_result *r)
{
	static const char *const seat_names[4] = { "seat-0", "seat-1", "seat-2", "seat-3" };
	uint64_t pair_seed = brp_mix64(j->seed ^ brp_mix64((uint64_t)pair));
	char path[4096], m_seed[32], m_pair[32], m_side[8];
	const char *keys[6] = { "platform", "arena_seed", "pair", "a", "b", "a_side" };
	const char *values[6] = { "brp arena", m_seed, m_pair, j->kinds[0].text, j->kinds[1].text, m_side };
	rpl_bot *bots[4] = { NULL, NULL, NULL, NULL };
	rpl_recorder *rec = NULL;
	rpl_game *g = NULL;
	rpl_match_info info;
	rpl_rng rng;
	uint8_t dseed[RPL_DEAL_SEED_SIZE], commitment[RPL_DEAL_COMMIT_SIZE];
	uint8_t pseeds[RPL_DEAL_MAX_PLAYER_SEEDS][RPL_DEAL_SEED_SIZE];
	int32_t first[2] = { 0, 0 };
	int err = -1;

	path[0] = '\0';
	if (j->dir)
		log_path(path, sizeof(path), j, pair, a_side);
	snprintf(m_seed, sizeof(m_seed), "%llu", (unsigned long long)j->seed);
	snprintf(m_pair, sizeof(m_pair), "%ld", pair + 1);
	snprintf(m_side, sizeof(m_side), "%d", a_side);
	if (make_bots(j, pair_seed, a_side, bots) != 0) {
		job_fail(j, "out of memory", "");
		goto cleanup;
	}
	/* Everything the commitment binds is the same in both seatings, so the layouts are too. */
	rpl_rng_seed(&rng, pair_seed);
	memset(&info, 0, sizeof(info));
	info.rules = j->rules;
	info.nplayers = j->players;
	for (int s = 0; s < j->players; s++)
		info.players[s] = seat_names[s];
	info.first_dealer = (int)rpl_rng_below(&rng, (uint32_t)j->players);
	info.start_time = 1767225600 + (int64_t)pair * 3600; /* 2026-01-01, an hour a pair: deterministic */
	info.nmeta = 6;
	info.meta_keys = keys;
	info.meta_values = values;
	brp_commit_secrets(pair_seed, 0x6172656e61ull, j->players, dseed, pseeds);
	info.nplayer_seeds = j->players;
	info.player_seeds = (const uint8_t(*)[RPL_DEAL_SEED_SIZE])pseeds;
	if (rpl_deal_commit_match(commitment, dseed, &info) != 0) {
		job_fail(j, path, "the commitment cannot be computed");
		goto cleanup;
	}
	info.commitment = commitment;
	if (rpl_game_new(&g, j->rules, j->players, info.first_dealer) != 0) {
		job_fail(j, "out of memory", "");
		goto cleanup;
	}
	if (j->dir && (rpl_recorder_open(&rec, path, &info, 0) != 0 || rpl_recorder_seed(rec, dseed) != 0)) {
		job_fail(j, path, rec ? rpl_recorder_errmsg(rec) : "out of memory");
		goto cleanup;
	}
	if (play_out(j, g, rec, bots, dseed, &info, a_side, r->cost, first, path) != 0)
		goto cleanup;
	r->diff[a_side] = first[a_side] - first[1 - a_side];
	if (rec) {
		int32_t total[2] = { rpl_game_total(g, 0), rpl_game_total(g, 1) };
		rpl_recorder_claim(rec, 0, total);
		if (rpl_recorder_close(rec) != 0) {
			job_fail(j, path, rpl_recorder_errmsg(rec));
			goto cleanup;
		}
	}
	err = 0;
cleanup:
	rpl_recorder_free(rec);
	rpl_game_free(g);
	for (int s = 0; s < 4; s++)
		rpl_bot_free(bots[s]);
	return err;
}

static void *worker(void *arg)
{
	struct job *j = arg;
	long i;

	while (!atomic_load(&j->failed) && (i = atomic_fetch_add(&j->next, 1)) < j->pairs) {
		if (play_seating(j, i, 0, &j->results[i]) != 0 || play_seating(j, i, 1, &j->results[i]) != 0)
			break;
		pthread_mutex_lock(&j->lock);
		brp_progress_step(&j->prog, ++j->done);
		pthread_mutex_unlock(&j->lock);
	}
	return NULL;
}

/* The pairs played by jobs threads, with the progress line (unless quiet): 0, or -1 out of memory (said). */
static int run_workers(struct job *j, int jobs, int quiet)
{
	int started;

	brp_progress_start(&j->prog, name, "pairs", quiet, (size_t)j->pairs);
	started = brp_threads_run(name, jobs, worker, j);
	brp_progress_end(&j->prog);
	if (started >= 0 && started < jobs)
		atomic_store(&j->failed, 1);
	return started < 0 ? -1 : 0;
}

/*
 * The output directory: made when missing (*made set), refused when it holds
 * anything (exit 2: another run's logs would be mixed in). -1 when the command
 * goes on, else the exit code (said).
 */
static int output_dir(const char *dir, int *made)
{
	DIR *d;
	struct dirent *de;
	int any = 0;

	*made = 0;
	if (mkdir(dir, 0755) == 0) {
		*made = 1;
		return -1;
	}
	if (errno != EEXIST || !(d = opendir(dir))) {
		brp_error(name, "%s: %s", dir, strerror(errno));
		return BRP_EXIT_FAIL;
	}
	while (!any && (de = readdir(d)) != NULL)
		any = strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
	closedir(d);
	if (any) {
		brp_error(name, "%s: the directory is not empty", dir);
		return BRP_EXIT_USAGE;
	}
	return -1;
}

/* A run that failed leaves nothing of its own: the logs it may have written, and the directory if it made it. */
static void undo(const struct job *j, int made)
{
	char path[4096];

	for (long i = 0; i < j->pairs; i++)
		for (int a_side = 0; a_side < 2; a_side++) {
			log_path(path, sizeof(path), j, i, a_side);
			unlink(path);
		}
	if (made)
		rmdir(j->dir);
}

/* What the options say beside the job's own fields. */
struct arena_args {
	int json;
};

/* The options into j, b, ro and a: -1 when the command goes on, else the code it exits with (said). */
static int arena_options(struct job *j, struct brp_batch *b, struct brp_rules_opts *ro, struct arena_args *a, int argc,
                         char **argv)
{
	enum { OPT_SEED = BRP_OPT_OWN, OPT_TIMES };
	static const struct brp_opt opts[] = {
		BRP_OPT_RULES,
		BRP_OPT_SET,
		BRP_OPT_PLAYERS,
		{ "deals", 1, 'n', 0, 0 },
		{ "seed", 1, OPT_SEED, 0, 0 },
		BRP_OPT_JOBS,
		{ "output", 1, 'o', 0, 0 },
		{ "times", 0, OPT_TIMES, 0, 0 },
		BRP_OPT_QUIET,
		BRP_OPT_JSON_ROW,
		BRP_OPT_HELP,
		BRP_OPT_END,
	};
	static const char *const counts[] = { "2", "4", NULL };
	struct brp_getopt g;
	int c, rc, first;

	brp_getopt_init(&g, name, opts, argc, argv);
	while ((c = brp_getopt_next(&g)) != -1) {
		if (c == BRP_OPT_BAD)
			return BRP_EXIT_USAGE;
		if ((rc = brp_batch_option(&g, c, b)) != 0 || (rc = brp_rules_option(&g, c, ro)) != 0) {
			if (rc != 1)
				return rc;
			continue;
		}
		rc = 0;
		switch (c) {
		case 'p':
			if ((rc = brp_opt_choice(&g, counts, &j->players)) == 0)
				j->players = j->players ? 4 : 2;
			break;
		case 'n': rc = brp_opt_long(&g, 1, MAX_PAIRS, &j->pairs); break;
		case OPT_SEED: rc = brp_opt_u64(&g, &j->seed); break;
		case 'o': rc = brp_opt_path(&g, &j->dir); break;
		case OPT_TIMES: j->times = 1; break;
		case BRP_OPT_JSON: a->json = 1; break;
		case 'h': usage(stdout); return BRP_EXIT_OK;
		}
		if (rc)
			return BRP_EXIT_USAGE;
	}
	first = brp_getopt_index(&g);
	if (argc - first != 2) {
		brp_error(name, "needs two bot kinds, A and B (try 'brp arena --help')");
		return BRP_EXIT_USAGE;
	}
	for (int k = 0; k < 2; k++)
		if (parse_kind(argv[first + k], &j->kinds[k]) != 0) {
			brp_error(name, "%s takes greedy, random, search or search:N (N samples a decision, 1 to 1000), not '%s'",
			          k ? "B" : "A", argv[first + k]);
			return BRP_EXIT_USAGE;
		}
	return -1;
}

/* The figures of a run, from the pairs in their order (so the same whatever -j). */
struct summary {
	double margin, se; /* se < 0: not defined (one pair) */
	long won, lost, tied;
	struct side_cost cost[2];
};

static void summarize(const struct job *j, struct summary *s)
{
	double sum = 0, sq = 0;

	memset(s, 0, sizeof(*s));
	for (long i = 0; i < j->pairs; i++) {
		const struct pair_result *r = &j->results[i];
		double m = ((double)r->diff[0] + (double)r->diff[1]) / 2;
		sum += m;
		s->won += m > 0;
		s->lost += m < 0;
		s->tied += m == 0;
		for (int k = 0; k < 2; k++) {
			s->cost[k].decisions += r->cost[k].decisions;
			s->cost[k].cpu += r->cost[k].cpu;
			if (r->cost[k].max > s->cost[k].max)
				s->cost[k].max = r->cost[k].max;
		}
	}
	s->margin = sum / (double)j->pairs;
	for (long i = 0; i < j->pairs; i++) {
		const struct pair_result *r = &j->results[i];
		double d = ((double)r->diff[0] + (double)r->diff[1]) / 2 - s->margin;
		sq += d * d;
	}
	s->se = j->pairs > 1 ? sqrt(sq / (double)(j->pairs - 1) / (double)j->pairs) : -1;
}

static double per_decision(const struct side_cost *c)
{
	return c->decisions ? c->cpu / (double)c->decisions : 0;
}

static void say_json(const struct job *j, const struct summary *s, const char *profile, int overridden)
{
	printf("{\"pairs\":%ld,\"margin\":%.1f,\"se\":", j->pairs, s->margin);
	if (s->se < 0)
		fputs("null", stdout);
	else
		printf("%.1f", s->se);
	printf(",\"won\":%ld,\"lost\":%ld,\"tied\":%ld,\"a\":\"%s\",\"b\":\"%s\",\"rules\":\"%s\",\"rules_overridden\":%s,"
	       "\"players\":%d,\"seed\":%llu,\"a_decisions\":%ld,\"b_decisions\":%ld",
	       s->won, s->lost, s->tied, j->kinds[0].text, j->kinds[1].text, profile, overridden ? "true" : "false",
	       j->players, (unsigned long long)j->seed, s->cost[0].decisions, s->cost[1].decisions);
	if (j->times)
		printf(",\"a_cpu_per_decision\":%.6f,\"a_cpu_max\":%.6f,\"b_cpu_per_decision\":%.6f,\"b_cpu_max\":%.6f",
		       per_decision(&s->cost[0]), s->cost[0].max, per_decision(&s->cost[1]), s->cost[1].max);
	if (j->dir) {
		fputs(",\"output\":", stdout);
		brp_json_string(stdout, j->dir);
	}
	fputs("}\n", stdout);
}

static void say_text(const struct job *j, const struct summary *s, const char *profile, int overridden)
{
	char up[16];
	size_t i;

	for (i = 0; profile[i] && i + 1 < sizeof(up); i++)
		up[i] = (char)(profile[i] >= 'a' && profile[i] <= 'z' ? profile[i] - 'a' + 'A' : profile[i]);
	up[i] = '\0';
	printf("A %s vs B %s, %s%s, %d players: %ld pair%s, A's margin %+.1f a deal", j->kinds[0].text, j->kinds[1].text,
	       up, overridden ? " (overridden)" : "", j->players, j->pairs, j->pairs == 1 ? "" : "s", s->margin);
	if (s->se < 0)
		fputs(" (no se with one pair)", stdout);
	else
		printf(" (se %.1f)", s->se);
	printf(", A won %ld, lost %ld, tied %ld\n", s->won, s->lost, s->tied);
	if (j->times)
		for (int k = 0; k < 2; k++)
			printf("%s %s: %ld decisions, %.6f s of CPU a decision, at most %.6f s\n", k ? "B" : "A", j->kinds[k].text,
			       s->cost[k].decisions, per_decision(&s->cost[k]), s->cost[k].max);
}

int cmd_arena(int argc, char **argv)
{
	struct arena_args a = { 0 };
	struct brp_batch b = BRP_BATCH_INIT;
	struct brp_rules_opts ro = { 0 };
	struct summary sum;
	struct job j;
	rpl_rules *rules = NULL;
	int status, made = 0, overridden = 0;

	memset(&j, 0, sizeof(j));
	j.players = 4;
	j.pairs = 100;
	j.seed = 1;
	pthread_mutex_init(&j.lock, NULL);
	if ((status = arena_options(&j, &b, &ro, &a, argc, argv)) >= 0)
		goto cleanup;
	overridden = ro.nsets > 0;
	/* One-deal matches: the margin is a deal's, and a pair's two logs each hold that one deal. */
	if ((status = brp_rules_opts_add(name, &ro, "target=0")) != 0)
		goto cleanup;
	if ((status = brp_rules_make(name, ro.profile, ro.sets, ro.nsets, &rules)) != 0)
		goto cleanup;
	if ((status = brp_players_allowed(name, rules, j.players)) >= 0)
		goto cleanup;
	status = BRP_EXIT_FAIL;
	j.rules = rules;
	if (!(j.results = calloc((size_t)j.pairs, sizeof(*j.results)))) {
		brp_error(name, "out of memory");
		goto cleanup;
	}
	if (j.dir && (status = output_dir(j.dir, &made)) >= 0)
		goto cleanup;
	status = BRP_EXIT_FAIL;
	if (run_workers(&j, b.jobs, b.quiet) < 0)
		goto cleanup;
	if (atomic_load(&j.failed)) {
		if (j.errmsg[0]) /* a thread that did not start has been said */
			brp_error(name, "%s", j.errmsg);
		if (j.dir)
			undo(&j, made);
		goto cleanup;
	}
	summarize(&j, &sum);
	if (a.json)
		say_json(&j, &sum, rpl_rules_profile(rules), overridden);
	else
		say_text(&j, &sum, rpl_rules_profile(rules), overridden);
	status = BRP_EXIT_OK;
cleanup:
	free(j.results);
	brp_rules_opts_free(&ro);
	rpl_rules_free(rules);
	pthread_mutex_destroy(&j.lock);
	return status;
}
