/* brp simulate: bots play legal matches, recorded as logs. */
#include "brp.h"

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const name = "simulate";

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
	      "  -b, --bot KIND        greedy, random or mixed (default greedy; mixed:\n"
	      "                        greedy and random bots at random seats)\n"
	      "  -t, --target T        the match target (default: the profile's; 0: one deal)\n"
	      "      --commit          committed matches (format version 3): every deal derived\n"
	      "                        from a seed committed to in the header and revealed at\n"
	      "                        the end (the seed, too, comes from --seed: not secret)\n"
	      "      --player-seeds N  with --commit: N seeds added by the players (0..4, default 0)\n"
	      "  -j, --jobs N          threads (default 1)\n"
	      "  -o, --output DIR      where the logs go (created if missing)\n"
	      "  -k, --key FILE        sign every log with this secret key as it is written\n"
	      "      --passphrase-fd N read the key's passphrase from file descriptor N\n"
	      "  -q, --quiet           no progress and no summary line\n"
	      "      --json            the summary as one JSON object (even with -q):\n"
	      "                        matches, deals, decisions, output\n"
	      "  -h, --help            print this help and exit\n"
	      "\n"
	      "Exit status: 0 all matches written, 2 a usage or write error.\n",
	      f);
}

enum { BOT_GREEDY, BOT_RANDOM, BOT_MIXED };

struct job {
	const rpl_rules *rules;
	const rpl_seckey *key;
	int players, bot;
	int commit, player_seeds;
	uint64_t seed;
	long matches;
	const char *dir;
	atomic_long next;
	atomic_long deals, decisions;
	atomic_int failed;
	pthread_mutex_t lock;
	struct brp_progress prog; /* under lock */
	size_t done;
	char errmsg[512];
};

static uint64_t mix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

/* Keep the first failure's message: "a: b" (b alone when it already starts with "a: "). */
static void job_fail(struct job *j, const char *a, const char *b)
{
	size_t n = strlen(a);

	if (strncmp(b, a, n) == 0 && b[n] == ':' && b[n + 1] == ' ')
		a = "";
	pthread_mutex_lock(&j->lock);
	if (!atomic_load(&j->failed))
		snprintf(j->errmsg, sizeof(j->errmsg), "%s%s%s", a, a[0] && b[0] ? ": " : "", b);
	atomic_store(&j->failed, 1);
	pthread_mutex_unlock(&j->lock);
}

/* One match: a pure function of (seed, index). */
static int play_match(struct job *j, long index)
{
	uint64_t seed = mix(j->seed ^ mix((uint64_t)index));
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
		int kind = j->bot == BOT_GREEDY   ? RPL_BOT_GREEDY
		           : j->bot == BOT_RANDOM ? RPL_BOT_RANDOM
		                                  : (int)rpl_rng_below(&rng, 2);
		snprintf(namebuf[s], sizeof(namebuf[s]), "%s-%d", kind == RPL_BOT_GREEDY ? "greedy" : "random", s);
		names[s] = namebuf[s];
		if (rpl_bot_new(&bots[s], kind, mix(seed + (uint64_t)s + 1)) != 0)
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
		/* a deterministic "secret": simulated matches are made again byte for byte */
		rpl_rng srng;
		rpl_rng_seed(&srng, mix(seed ^ 0x636f6d6d6974ull));
		for (int i = 0; i < RPL_DEAL_SEED_SIZE; i += 8) {
			uint64_t w = rpl_rng_next(&srng);
			for (int b = 0; b < 8; b++)
				dseed[i + b] = (uint8_t)(w >> (8 * b));
		}
		for (int p = 0; p < j->player_seeds; p++)
			for (int i = 0; i < RPL_DEAL_SEED_SIZE; i += 8) {
				uint64_t w = rpl_rng_next(&srng);
				for (int b = 0; b < 8; b++)
					pseeds[p][i + b] = (uint8_t)(w >> (8 * b));
			}
		rpl_deal_commit(commitment, dseed);
		info.commitment = commitment;
		info.nplayer_seeds = j->player_seeds;
		info.player_seeds = (const uint8_t(*)[RPL_DEAL_SEED_SIZE])pseeds;
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
		rpl_layout lay;
		int steps = 0;
		rpl_score sc[2];
		int32_t claim[2];
		if (!j->commit)
			rpl_layout_shuffle(&lay, j->players, &rng);
		else if (rpl_deal_derive(&lay, dseed, (const uint8_t(*)[RPL_DEAL_SEED_SIZE])pseeds, j->player_seeds,
		                         j->players, rpl_game_deal_number(g) + 1) != 0) {
			job_fail(j, path, "the deal cannot be derived");
			goto cleanup;
		}
		if (rpl_game_deal(g, &lay) != 0 || rpl_recorder_deal(rec, &lay) != 0) {
			job_fail(j, path, rpl_recorder_errmsg(rec));
			goto cleanup;
		}
		deals++;
		while (rpl_game_phase(g) < RPL_PHASE_DEAL_OVER) {
			rpl_action a;
			if (++steps > MAX_DECISIONS_PER_DEAL || rpl_bot_choose(bots[rpl_game_seat(g)], g, &a) != 0) {
				job_fail(j, path, "a bot found no way to go on (a bug: please report it)");
				goto cleanup;
			}
			if (rpl_game_apply(g, &a) != 0 || rpl_recorder_action(rec, &a) != 0) {
				job_fail(j, path, rpl_recorder_errmsg(rec));
				goto cleanup;
			}
			decisions++;
		}
		rpl_game_deal_score(g, 0, &sc[0]);
		rpl_game_deal_score(g, 1, &sc[1]);
		claim[0] = sc[0].total;
		claim[1] = sc[1].total;
		rpl_recorder_claim(rec, rpl_game_deal_number(g), claim);
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

/* mkdir -p */
static int make_dirs(const char *dir)
{
	char path[4096];
	size_t n = strlen(dir);

	if (n == 0 || n >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(path, dir, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		path[i] = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return -1;
		path[i] = i < n ? '/' : '\0';
	}
	return 0;
}

static void *worker(void *arg)
{
	struct job *j = arg;
	long i;

	while (!atomic_load(&j->failed) && (i = atomic_fetch_add(&j->next, 1)) < j->matches)
	{
		if (play_match(j, i) != 0)
			break;
		pthread_mutex_lock(&j->lock);
		brp_progress_step(&j->prog, ++j->done);
		pthread_mutex_unlock(&j->lock);
	}
	return NULL;
}

int cmd_simulate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "rules", required_argument, NULL, 'r' },
		{ "set", required_argument, NULL, 's' },
		{ "players", required_argument, NULL, 'p' },
		{ "matches", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 'S' },
		{ "bot", required_argument, NULL, 'b' },
		{ "target", required_argument, NULL, 't' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "json", no_argument, NULL, 'J' },
		{ "commit", no_argument, NULL, 'C' },
		{ "player-seeds", required_argument, NULL, 'E' },
		{ "key", required_argument, NULL, 'k' },
		{ "passphrase-fd", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *profile = NULL, *target = NULL, *keyfile = NULL;
	int passfd = -1;
	rpl_seckey *key = NULL;
	char **sets = NULL, *end, tset[64];
	int nsets = 0, c, jobs = 1, quiet = 0, json = 0, status = BRP_EXIT_USAGE;
	struct job j;
	pthread_t *th = NULL;
	rpl_rules *rules = NULL;

	memset(&j, 0, sizeof(j));
	j.players = 4;
	j.matches = 1;
	j.seed = 1;
	j.bot = BOT_GREEDY;
	pthread_mutex_init(&j.lock, NULL);
	sets = calloc((size_t)argc + 1, sizeof(char *));
	if (!sets)
		goto cleanup;
	while ((c = getopt_long(argc, argv, ":r:s:p:n:b:t:j:o:k:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'r': profile = optarg; break;
		case 's': sets[nsets++] = optarg; break;
		case 'p':
			j.players = (int)strtol(optarg, &end, 10);
			if (*end || (j.players != 2 && j.players != 4)) {
				brp_error(name, "--players is 2 or 4, not '%s'", optarg);
				goto cleanup;
			}
			break;
		case 'n':
			j.matches = strtol(optarg, &end, 10);
			if (*end || j.matches < 1 || j.matches > 999999) {
				brp_error(name, "--matches takes 1 to 999999, not '%s'", optarg);
				goto cleanup;
			}
			break;
		case 'S':
			errno = 0;
			j.seed = strtoull(optarg, &end, 10);
			if (*end || errno || optarg[0] == '-') {
				brp_error(name, "--seed takes a number, not '%s'", optarg);
				goto cleanup;
			}
			break;
		case 'b':
			if (strcmp(optarg, "greedy") == 0)
				j.bot = BOT_GREEDY;
			else if (strcmp(optarg, "random") == 0)
				j.bot = BOT_RANDOM;
			else if (strcmp(optarg, "mixed") == 0)
				j.bot = BOT_MIXED;
			else {
				brp_error(name, "--bot is greedy, random or mixed, not '%s'", optarg);
				goto cleanup;
			}
			break;
		case 't':
			target = optarg;
			strtol(optarg, &end, 10);
			if (*end || optarg[0] == '\0' || optarg[0] == '-') {
				brp_error(name, "--target takes a number of points from 0 (0: one deal), not '%s'", optarg);
				goto cleanup;
			}
			break;
		case 'j':
			if (brp_parse_jobs(name, optarg, &jobs) < 0)
				goto cleanup;
			break;
		case 'o': j.dir = optarg; break;
		case 'q': quiet = 1; break;
		case 'J': json = 1; break;
		case 'C': j.commit = 1; break;
		case 'E':
			j.player_seeds = (int)strtol(optarg, &end, 10);
			if (*end || optarg[0] == '\0' || j.player_seeds < 0 || j.player_seeds > RPL_DEAL_MAX_PLAYER_SEEDS) {
				brp_error(name, "--player-seeds takes 0 to %d, not '%s'", RPL_DEAL_MAX_PLAYER_SEEDS, optarg);
				goto cleanup;
			}
			break;
		case 'k': keyfile = optarg; break;
		case 'P':
			if (brp_parse_fd(name, optarg, &passfd) < 0)
				goto cleanup;
			break;
		case 'h':
			usage(stdout);
			status = BRP_EXIT_OK;
			goto cleanup;
		default:
			status = brp_bad_option(name, c, argv);
			goto cleanup;
		}
	}
	if (optind != argc || !j.dir) {
		brp_error(name, "needs -o DIR and no other argument (try 'brp simulate --help')");
		goto cleanup;
	}
	if (j.player_seeds && !j.commit) {
		brp_error(name, "--player-seeds needs --commit");
		goto cleanup;
	}
	if (target) {
		snprintf(tset, sizeof(tset), "target=%s", target);
		sets[nsets++] = tset;
	}
	if (brp_rules_make(name, profile, sets, nsets, &rules) < 0)
		goto cleanup;
	j.rules = rules;
	if (keyfile && brp_seckey_open(name, keyfile, passfd, &key) < 0)
		goto cleanup;
	j.key = key;
	if (make_dirs(j.dir) < 0) {
		brp_error(name, "%s: %s", j.dir, strerror(errno));
		goto cleanup;
	}
	th = calloc((size_t)jobs, sizeof(*th));
	if (!th)
		goto cleanup;
	brp_progress_start(&j.prog, name, "matches", quiet, (size_t)j.matches);
	for (int i = 0; i < jobs; i++)
		if (pthread_create(&th[i], NULL, worker, &j) != 0) {
			brp_error(name, "cannot start a thread");
			jobs = i;
			atomic_store(&j.failed, 1);
			break;
		}
	for (int i = 0; i < jobs; i++)
		pthread_join(th[i], NULL);
	brp_progress_end(&j.prog);
	if (atomic_load(&j.failed)) {
		brp_error(name, "%s", j.errmsg);
		goto cleanup;
	}
	if (json) {
		printf("{\"matches\":%ld,\"deals\":%ld,\"decisions\":%ld,\"output\":", j.matches,
		       (long)atomic_load(&j.deals), (long)atomic_load(&j.decisions));
		brp_json_string(stdout, j.dir);
		fputs("}\n", stdout);
	} else if (!quiet) {
		long deals = (long)atomic_load(&j.deals), decisions = (long)atomic_load(&j.decisions);
		printf("%ld match%s, %ld deal%s, %ld decision%s written to ", j.matches, j.matches == 1 ? "" : "es",
		       deals, deals == 1 ? "" : "s", decisions, decisions == 1 ? "" : "s");
		brp_text(stdout, j.dir);
		putchar('\n');
	}
	status = BRP_EXIT_OK;
cleanup:
	free(th);
	free(sets);
	rpl_seckey_free(key);
	rpl_rules_free(rules);
	pthread_mutex_destroy(&j.lock);
	return status;
}
