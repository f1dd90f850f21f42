/* brp simulate: bots play legal matches, recorded as logs. */
#include "brp.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const name = "simulate";

/* The most matches a corpus holds: match-000001.brp to match-999999.brp, in name order. */
#define MAX_MATCHES 999999L

/* A deal that runs this long is a bot bug, not a game. */
#define MAX_DECISIONS_PER_DEAL 20000

static void usage(FILE *f)
{
	fputs("Usage: brp simulate -o DIR [OPTION]...\n"
	      "Let bots play legal matches and record each one, with the scores claimed,\n"
	      "as DIR/match-NNNNNN.brp. The same options give the same bytes, whatever -j.\n"
	      "\n"
	      "  -r, --rules PROFILE   kzv, stbl or aberto (default stbl)\n"
	      "  -s, --set NAME=VALUE  override a rule parameter (repeatable)\n"
	      "  -p, --players N       2 or 4 (default 4)\n"
	      "  -n, --matches N       how many matches (default 1)\n"
	      "      --seed S          the seed of the whole corpus (default 1)\n"
	      "  -b, --bot KIND[,KIND]...\n"
	      "                        one kind for every seat, or one a seat: greedy, random,\n"
	      "                        blunder, search[:N], peeker[:P], feeder[:P],\n"
	      "                        signaller[:P], or mixed alone (default greedy; mixed:\n"
	      "                        greedy and random bots at random seats; blunder: greedy\n"
	      "                        but one decision in ten at random; search: N samples a\n"
	      "                        decision, default 128, slow; peeker, feeder, signaller:\n"
	      "                        greedy, but cheating at P % of their discards, default\n"
	      "                        100, by reading the next seat's or the partner's hand)\n"
	      "  -t, --target T        the match target (default: the profile's; 0: one deal)\n"
	      "      --commit          committed matches (format version 3): every deal derived\n"
	      "                        from a seed committed to in the header and revealed at\n"
	      "                        the end (the seed, too, comes from --seed: not secret)\n"
	      "      --player-seeds N  with --commit: N of the players add a seed (0 to the\n"
	      "                        number of players; default: every player)\n"
	      "  -j, --jobs N          threads (default 1)\n"
	      "  -o, --output DIR      where the logs go (created if missing; refused if it\n"
	      "                        holds anything, unless --add)\n"
	      "      --add             add to the corpus in DIR: the matches are numbered on\n"
	      "                        after its last match-NNNNNN.brp (with the same seed,\n"
	      "                        two runs make what one run of both counts makes)\n"
	      "  -k, --key FILE        sign every log with this secret key as it is written\n"
	      "      --passphrase-fd N with -k: read the passphrase from descriptor N\n"
	      "  -q, --quiet           no progress and no summary line\n"
	      "      --json            the summary as one JSON object (even with -q):\n"
	      "                        matches, deals, decisions, output\n"
	      "  -h, --help            print this help and exit\n"
	      "\n"
	      "Exit status: 0 all matches written, 2 a usage error (DIR not empty without\n"
	      "--add included), 3 a log that cannot be written or a key that cannot be read.\n",
	      f);
}

/* The kinds -b names, indexed by enum rpl_bot_kind: a seat is named KIND-SEAT. */
static const char *const kind_names[] = { "random", "greedy", "search", "blunder", "peeker", "feeder", "signaller" };

/* The search bot's samples a decision when -b search has no :N: the library's default strength. */
#define SEARCH_SAMPLES RPL_SEARCH_SAMPLES

/* A seat's bot: its kind (enum rpl_bot_kind) and its strength (search: samples; a cheater: percent). */
struct seat_bot {
	int kind, param;
};

struct job {
	const rpl_rules *rules;
	const rpl_seckey *key;
	int players;
	int mixed;                           /* -b mixed: greedy or random at each seat, drawn for each match */
	int nbots;                           /* the kinds -b gave: 1 (for every seat) or one a seat */
	struct seat_bot bots[RPL_MAX_SEATS]; /* ... the first nbots of them */
	const char *bot_arg;                 /* -b's value as given, for a refusal */
	int commit, player_seeds;
	uint64_t seed;
	long matches;
	long base; /* the matches already in the directory (--add): this run's are base+1 onwards */
	const char *dir;
	atomic_long next;
	atomic_long deals, decisions;
	atomic_int failed;
	pthread_mutex_t lock;
	struct brp_progress prog; /* under lock */
	size_t done;
	char errmsg[512];
};

/* One seat's kind: greedy, random, blunder, search[:N] or a cheater[:P] (P 1 to 100). 0, or -1 for another text. */
static int seat_kind(const char *s, struct seat_bot *b)
{
	const char *colon = strchr(s, ':'), *p = colon ? colon + 1 : NULL;
	size_t len = colon ? (size_t)(colon - s) : strlen(s);

	b->param = 100;
	if (brp_search_kind(s, &b->param) == 0) {
		b->kind = RPL_BOT_SEARCH;
		return 0;
	}
	for (int k = 0; k < (int)(sizeof(kind_names) / sizeof(kind_names[0])); k++) {
		if (k == RPL_BOT_SEARCH || strlen(kind_names[k]) != len || strncmp(s, kind_names[k], len) != 0)
			continue;
		b->kind = k;
		if (!p)
			return 0;
		/* the percent: 1 to 3 digits, 1 to 100 */
		if (k < RPL_BOT_PEEKER || !*p || strlen(p) > 3 || strspn(p, "0123456789") != strlen(p) || atoi(p) < 1 ||
		    atoi(p) > 100)
			return -1;
		b->param = atoi(p);
		return 0;
	}
	return -1;
}

/*
 * -b: mixed, or one kind for every seat, or a comma list of kinds, one a
 * seat (its length is checked against -p after the options).
 */
static int bot_option(const struct brp_getopt *g, struct job *j)
{
	char item[64];
	const char *p = g->arg;

	j->bot_arg = g->arg;
	j->mixed = strcmp(g->arg, "mixed") == 0;
	j->nbots = 1;
	if (j->mixed)
		return 0;
	for (int n = 0;; n++) {
		size_t len = strcspn(p, ",");
		struct seat_bot b;
		if (len < sizeof(item)) {
			memcpy(item, p, len);
			item[len] = '\0';
		}
		if (len < sizeof(item) && strcmp(item, "mixed") == 0)
			return brp_opt_refuse(g, "mixed only alone (for every seat)");
		if (len >= sizeof(item) || seat_kind(item, &b) != 0)
			return brp_opt_refuse(g, "one kind for every seat or a comma list of one a seat (greedy, random, blunder, "
			                         "search[:N], peeker[:P], feeder[:P], signaller[:P]; N 1 to 1000, P 1 to 100), "
			                         "or mixed");
		if (n < RPL_MAX_SEATS)
			j->bots[n] = b;
		j->nbots = n + 1;
		if (!p[len])
			return 0;
		p += len + 1;
	}
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

/*
 * One deal of the match: its layout (shuffled from rng, or derived from the
 * committed seed dseed), the bots' decisions, each applied and recorded
 * (counted in *decisions), and the claim of its scores. 0, or -1 (the job
 * failed).
 */
static int play_deal(struct job *j, rpl_game *g, rpl_recorder *rec, rpl_bot *const *bots, rpl_rng *rng,
                     const uint8_t *dseed, const rpl_match_info *info, const char *path, long *decisions)
{
	rpl_layout lay;
	int steps = 0;
	rpl_score sc[2];
	int32_t claim[2];

	if (!dseed)
		rpl_layout_shuffle(&lay, j->players, rng);
	else if (rpl_deal_derive_match(&lay, dseed, info, rpl_game_deal_number(g) + 1) != 0) {
		job_fail(j, path, "the deal cannot be derived");
		return -1;
	}
	if (rpl_game_deal(g, &lay) != 0 || rpl_recorder_deal(rec, &lay) != 0) {
		job_fail(j, path, rpl_recorder_errmsg(rec));
		return -1;
	}
	while (rpl_game_phase(g) < RPL_PHASE_DEAL_OVER) {
		rpl_action a;
		if (++steps > MAX_DECISIONS_PER_DEAL || rpl_bot_choose(bots[rpl_game_seat(g)], g, &a) != 0) {
			job_fail(j, path, "a bot found no way to go on (a bug: please report it)");
			return -1;
		}
		if (rpl_game_apply(g, &a) != 0 || rpl_recorder_action(rec, &a) != 0) {
			job_fail(j, path, rpl_recorder_errmsg(rec));
			return -1;
		}
		(*decisions)++;
	}
	rpl_game_deal_score(g, 0, &sc[0]);
	rpl_game_deal_score(g, 1, &sc[1]);
	claim[0] = sc[0].total;
	claim[1] = sc[1].total;
	rpl_recorder_claim(rec, rpl_game_deal_number(g), claim);
	return 0;
}

/* One match: a pure function of (seed, index). */
static int play_match(struct job *j, long index)
{
	uint64_t seed = brp_mix64(j->seed ^ brp_mix64((uint64_t)index));
	char path[4096], meta_seed[32], meta_index[32];
	const char *names[4] = { NULL, NULL, NULL, NULL };
	const char *keys[3] = { "platform", "corpus_seed", "match" };
	const char *values[3] = { "brp simulate", meta_seed, meta_index };
	char namebuf[4][32];
	rpl_bot *bots[4] = { NULL, NULL, NULL, NULL };
	rpl_recorder *rec = NULL;
	rpl_game *g = NULL;
	rpl_match_info info;
	rpl_rng rng;
	uint8_t dseed[RPL_DEAL_SEED_SIZE], commitment[RPL_DEAL_COMMIT_SIZE];
	uint8_t pseeds[RPL_DEAL_MAX_PLAYER_SEEDS][RPL_DEAL_SEED_SIZE];
	int err = -1;
	long deals = 0, decisions = 0;

	rpl_rng_seed(&rng, seed);
	snprintf(path, sizeof(path), "%s/match-%06ld.brp", j->dir, index + 1);
	snprintf(meta_seed, sizeof(meta_seed), "%llu", (unsigned long long)j->seed);
	snprintf(meta_index, sizeof(meta_index), "%ld", index + 1);
	for (int s = 0; s < j->players; s++) {
		struct seat_bot b = j->bots[j->nbots > 1 ? s : 0];
		uint64_t bseed = brp_mix64(seed + (uint64_t)s + 1);
		if (j->mixed)
			b.kind = (int)rpl_rng_below(&rng, 2);
		snprintf(namebuf[s], sizeof(namebuf[s]), "%s-%d", kind_names[b.kind], s);
		names[s] = namebuf[s];
		if ((b.kind == RPL_BOT_SEARCH   ? rpl_bot_new_search(&bots[s], bseed, b.param, 1)
		     : b.kind >= RPL_BOT_PEEKER ? rpl_bot_new_cheat(&bots[s], b.kind, bseed, b.param)
		                                : rpl_bot_new(&bots[s], b.kind, bseed)) != 0)
			goto cleanup;
	}
	memset(&info, 0, sizeof(info));
	info.rules = j->rules;
	info.nplayers = j->players;
	for (int s = 0; s < j->players; s++)
		info.players[s] = names[s];
	info.first_dealer = (int)rpl_rng_below(&rng, (uint32_t)j->players);
	info.start_time = 1767225600 + (int64_t)index * 3600; /* 2026-01-01, an hour a match: deterministic */
	info.nmeta = 3;
	info.meta_keys = keys;
	info.meta_values = values;
	if (j->commit) {
		brp_commit_secrets(seed, 0x636f6d6d6974ull, j->player_seeds, dseed, pseeds);
		info.nplayer_seeds = j->player_seeds;
		info.player_seeds = (const uint8_t(*)[RPL_DEAL_SEED_SIZE])pseeds;
		if (rpl_deal_commit_match(commitment, dseed, &info) != 0) {
			job_fail(j, path, "the commitment cannot be computed");
			goto cleanup;
		}
		info.commitment = commitment;
	}
	if (rpl_game_new(&g, j->rules, j->players, info.first_dealer) != 0) {
		job_fail(j, "the rules do not allow this number of players", "");
		goto cleanup;
	}
	if (rpl_recorder_open_signed(&rec, path, &info, 0, j->key) != 0 ||
	    (j->commit && rpl_recorder_seed(rec, dseed) != 0)) {
		job_fail(j, path, rec ? rpl_recorder_errmsg(rec) : "out of memory");
		goto cleanup;
	}
	while (rpl_game_phase(g) != RPL_PHASE_MATCH_OVER) {
		if (play_deal(j, g, rec, bots, &rng, j->commit ? dseed : NULL, &info, path, &decisions) != 0)
			goto cleanup;
		deals++;
	}
	{
		int32_t total[2] = { rpl_game_total(g, 0), rpl_game_total(g, 1) };
		rpl_recorder_claim(rec, 0, total);
	}
	if (rpl_recorder_close(rec) != 0) {
		job_fail(j, path, rpl_recorder_errmsg(rec));
		goto cleanup;
	}
	atomic_fetch_add(&j->deals, deals);
	atomic_fetch_add(&j->decisions, decisions);
	err = 0;
cleanup:
	rpl_recorder_free(rec);
	rpl_game_free(g);
	for (int s = 0; s < 4; s++)
		rpl_bot_free(bots[s]);
	return err;
}

/*
 * mkdir -p; *made is how many of the last components this call created
 * (they are nested: the first it made and every one below it), so that a
 * failed run can take them away again. On failure the ones it made are gone.
 */
static int make_dirs(const char *dir, int *made)
{
	char path[4096];
	size_t n = strlen(dir);

	*made = 0;
	if (n == 0 || n >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(path, dir, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		path[i] = '\0';
		if (mkdir(path, 0755) == 0) {
			(*made)++;
		} else if (errno != EEXIST) {
			int e = errno;
			for (; *made > 0; (*made)--) {
				char *slash = strrchr(path, '/');
				if (!slash)
					break;
				*slash = '\0';
				rmdir(path);
			}
			errno = e;
			return -1;
		}
		path[i] = i < n ? '/' : '\0';
	}
	return 0;
}

/*
 * A run that failed leaves nothing of its own: the logs it wrote (the ones
 * numbered after the corpus it found; the one that failed may be cut) and
 * the directories it made, innermost first. What was there before it stays.
 */
static void undo(const struct job *j, int made)
{
	char path[4096];
	size_t n;

	for (long i = 0; i < j->matches; i++) {
		snprintf(path, sizeof(path), "%s/match-%06ld.brp", j->dir, j->base + i + 1);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s", j->dir);
	n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		path[--n] = '\0';
	for (int k = 0; k < made; k++) {
		char *slash;
		if (rmdir(path) != 0)
			break; /* not empty: something else is in it */
		if (!(slash = strrchr(path, '/')))
			break;
		while (slash > path && slash[-1] == '/')
			slash--;
		*slash = '\0';
	}
}

/*
 * Where this run's matches start: a directory that holds anything is another
 * corpus, refused unless --add (so two corpora are never mixed by mistake);
 * with --add the numbering goes on after its highest match-NNNNNN.brp, so
 * that a corpus made in two runs with one seed is the corpus one run makes.
 */
static int corpus_start(struct job *j, int add)
{
	DIR *d = opendir(j->dir);
	struct dirent *de;
	int any = 0;

	if (!d) {
		brp_error(name, "%s: %s", j->dir, strerror(errno));
		return BRP_EXIT_FAIL;
	}
	j->base = 0;
	while ((de = readdir(d)) != NULL) {
		const char *n = de->d_name;
		size_t len = strlen(n);
		if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
			continue;
		any = 1;
		if (len == 16 && strncmp(n, "match-", 6) == 0 && strcmp(n + 12, ".brp") == 0 &&
		    strspn(n + 6, "0123456789") == 6) {
			long k = strtol(n + 6, NULL, 10);
			if (k > j->base)
				j->base = k;
		}
	}
	closedir(d);
	if (any && !add) {
		brp_error(name, "%s: the directory is not empty: give --add to add matches to the corpus in it", j->dir);
		return BRP_EXIT_USAGE;
	}
	if (j->base + j->matches > MAX_MATCHES) {
		brp_error(name, "%s: holds matches up to %ld: %ld more would pass match-%06ld.brp", j->dir, j->base, j->matches,
		          MAX_MATCHES);
		return BRP_EXIT_USAGE;
	}
	return 0;
}

static void *worker(void *arg)
{
	struct job *j = arg;
	long i;

	while (!atomic_load(&j->failed) && (i = atomic_fetch_add(&j->next, 1)) < j->matches) {
		if (play_match(j, j->base + i) != 0)
			break;
		pthread_mutex_lock(&j->lock);
		brp_progress_step(&j->prog, ++j->done);
		pthread_mutex_unlock(&j->lock);
	}
	return NULL;
}

/* What the options say beside the job's own fields. */
struct sim_args {
	const char *keyfile;
	int passfd, add, json;
	long target;
};

/* The options into j, b, ro and a: -1 when the command goes on, else the code it exits with (said). */
static int simulate_options(struct job *j, struct brp_batch *b, struct brp_rules_opts *ro, struct sim_args *a, int argc,
                            char **argv)
{
	enum { OPT_SEED = BRP_OPT_OWN, OPT_COMMIT, OPT_PLAYER_SEEDS, OPT_ADD };
	static const struct brp_opt opts[] = {
		BRP_OPT_RULES,
		BRP_OPT_SET,
		{ "players", 1, 'p', 0, 0 },
		{ "matches", 1, 'n', 0, 0 },
		{ "seed", 1, OPT_SEED, 0, 0 },
		{ "bot", 1, 'b', 0, 0 },
		{ "target", 1, 't', 0, 0 },
		BRP_OPT_JOBS,
		{ "output", 1, 'o', 0, 0 },
		{ "add", 0, OPT_ADD, 0, 0 },
		BRP_OPT_QUIET,
		BRP_OPT_JSON_ROW,
		{ "commit", 0, OPT_COMMIT, 0, 0 },
		{ "player-seeds", 1, OPT_PLAYER_SEEDS, 0, 0 },
		{ "key", 1, 'k', 0, 0 },
		BRP_OPT_PASSFD_ROW,
		BRP_OPT_HELP,
		BRP_OPT_END,
	};
	static const char *const counts[] = { "2", "4", NULL };
	struct brp_getopt g;
	int c, rc;

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
		case 'n': rc = brp_opt_long(&g, 1, MAX_MATCHES, &j->matches); break;
		case OPT_SEED: rc = brp_opt_u64(&g, &j->seed); break;
		case 'b': rc = bot_option(&g, j); break;
		case 't': rc = brp_opt_long(&g, 0, 1000000, &a->target); break;
		case 'o': rc = brp_opt_path(&g, &j->dir); break;
		case OPT_ADD: a->add = 1; break;
		case BRP_OPT_JSON: a->json = 1; break;
		case OPT_COMMIT: j->commit = 1; break;
		case OPT_PLAYER_SEEDS: rc = brp_opt_int(&g, 0, RPL_DEAL_MAX_PLAYER_SEEDS, &j->player_seeds); break;
		case 'k': rc = brp_opt_path(&g, &a->keyfile); break;
		case BRP_OPT_PASSFD: rc = brp_opt_int(&g, 0, 1024, &a->passfd); break;
		case 'h': usage(stdout); return BRP_EXIT_OK;
		}
		if (rc)
			return BRP_EXIT_USAGE;
	}
	if (brp_getopt_index(&g) != argc || !j->dir) {
		brp_error(name, "needs -o DIR and no other argument (try 'brp simulate --help')");
		return BRP_EXIT_USAGE;
	}
	if (j->nbots > 1 && j->nbots != j->players) {
		brp_error(name, "--bot takes one kind, or %d (one a seat of %d players), not '%s'", j->players, j->players,
		          j->bot_arg);
		return BRP_EXIT_USAGE;
	}
	if (j->player_seeds >= 0 && !j->commit) {
		brp_error(name, "--player-seeds needs --commit");
		return BRP_EXIT_USAGE;
	}
	if (j->player_seeds > j->players) {
		brp_error(name, "--player-seeds takes 0 to %d for %d players: each seat adds one seed at most", j->players,
		          j->players);
		return BRP_EXIT_USAGE;
	}
	if (j->player_seeds < 0)
		j->player_seeds = j->commit ? j->players : 0;
	if (a->passfd >= 0 && !a->keyfile) {
		brp_error(name, "--passphrase-fd needs -k KEY");
		return BRP_EXIT_USAGE;
	}
	return -1;
}

/* The matches played by jobs threads, with the progress line (unless quiet): 0, or -1 out of memory (said). */
static int run_workers(struct job *j, int jobs, int quiet)
{
	int started;

	brp_progress_start(&j->prog, name, "matches", quiet, (size_t)j->matches);
	started = brp_threads_run(name, jobs, worker, j);
	brp_progress_end(&j->prog);
	if (started >= 0 && started < jobs)
		atomic_store(&j->failed, 1);
	return started < 0 ? -1 : 0;
}

/* What was written: a JSON object, or a line unless quiet. */
static void say_written(const struct job *j, int json, int quiet)
{
	long deals = (long)atomic_load(&j->deals), decisions = (long)atomic_load(&j->decisions);

	if (json) {
		printf("{\"matches\":%ld,\"deals\":%ld,\"decisions\":%ld,\"output\":", j->matches, deals, decisions);
		brp_json_string(stdout, j->dir);
		fputs("}\n", stdout);
	} else if (!quiet) {
		printf("%ld match%s, %ld deal%s, %ld decision%s written to ", j->matches, j->matches == 1 ? "" : "es", deals,
		       deals == 1 ? "" : "s", decisions, decisions == 1 ? "" : "s");
		brp_text(stdout, j->dir);
		putchar('\n');
	}
}

int cmd_simulate(int argc, char **argv)
{
	struct sim_args a = { .passfd = -1, .target = -1 };
	int rc, made = 0;
	rpl_seckey *key = NULL;
	char tset[64];
	int status;
	struct brp_batch b = BRP_BATCH_INIT;
	struct brp_rules_opts ro = { 0 };
	struct job j;
	rpl_rules *rules = NULL;

	memset(&j, 0, sizeof(j));
	j.players = 4;
	j.player_seeds = -1; /* every player's, unless told */
	j.matches = 1;
	j.seed = 1;
	j.nbots = 1;
	j.bots[0].kind = RPL_BOT_GREEDY;
	j.bots[0].param = SEARCH_SAMPLES;
	pthread_mutex_init(&j.lock, NULL);
	if ((status = simulate_options(&j, &b, &ro, &a, argc, argv)) >= 0)
		goto cleanup;
	if (a.target >= 0) {
		snprintf(tset, sizeof(tset), "target=%ld", a.target);
		if ((status = brp_rules_opts_add(name, &ro, tset)) != 0)
			goto cleanup;
	}
	if ((status = brp_rules_make(name, ro.profile, ro.sets, ro.nsets, &rules)) != 0)
		goto cleanup;
	if ((status = brp_players_allowed(name, rules, j.players)) >= 0)
		goto cleanup;
	status = BRP_EXIT_FAIL;
	j.rules = rules;
	if (a.keyfile && brp_seckey_open(name, a.keyfile, a.passfd, &key) < 0)
		goto cleanup;
	j.key = key;
	if (make_dirs(j.dir, &made) < 0) {
		brp_error(name, "%s: %s", j.dir, strerror(errno));
		goto cleanup;
	}
	if ((rc = corpus_start(&j, a.add)) != 0) {
		status = rc;
		undo(&j, made);
		goto cleanup;
	}
	if (run_workers(&j, b.jobs, b.quiet) < 0)
		goto cleanup;
	if (atomic_load(&j.failed)) {
		if (j.errmsg[0]) /* a thread that did not start has been said */
			brp_error(name, "%s", j.errmsg);
		undo(&j, made);
		goto cleanup;
	}
	say_written(&j, a.json, b.quiet);
	status = BRP_EXIT_OK;
cleanup:
	brp_rules_opts_free(&ro);
	rpl_seckey_free(key);
	rpl_rules_free(rules);
	pthread_mutex_destroy(&j.lock);
	return status;
}
