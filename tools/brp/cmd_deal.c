/*
 * brp deal: print the commitment of a committed match and the layout it
 * derives for one deal (docs/format.md, sections 15 and 18), from a seed and
 * the match's terms given as brp record takes them, or from a log's header.
 */
#include "brp.h"

#include <stdlib.h>
#include <string.h>

static const char *const name = "deal";

static void usage(FILE *f)
{
	fputs("Usage: brp deal --seed HEX [OPTION]...\n"
	      "       brp deal --log FILE [--seed HEX] [-d N] [--json]\n"
	      "Print the commitment of a committed match and the layout it derives for one\n"
	      "deal, as the text notation writes a layout (docs/format.md, sections 15 and\n"
	      "18). Under protocol 2, the default (format version 4), the commitment binds\n"
	      "the seed and the match's terms: the rules, the names by seat, the first\n"
	      "dealer and the number of players' seeds, given as brp record takes them, or\n"
	      "read from a log's header with --log; compare it with the commitment the\n"
	      "platform published before the first seed was sent.\n"
	      "\n"
	      "      --seed HEX         the platform's seed: 64 hex digits (with --log, by\n"
	      "                         default the seed the log reveals)\n"
	      "      --player-seed HEX  a seed a player added (64 hex digits; repeatable: one\n"
	      "                         a seat at most, in any order; under protocol 1 up\n"
	      "                         to 4, in the header's order)\n"
	      "  -r, --rules PROFILE    the rule profile: kzv, stbl or aberto (default stbl)\n"
	      "  -s, --set NAME=VALUE   override a rule parameter (repeatable)\n"
	      "  -p, --players N        2 or 4 (default 4)\n"
	      "      --seat I=NAME      the name of seat I (repeatable)\n"
	      "      --first-dealer S   the seat that deals first (default: the last seat)\n"
	      "      --commitment-version N  the protocol: 2 (the seed and the match's\n"
	      "                         terms; the default) or 1 (the seed alone, as format\n"
	      "                         version 3: the terms but -p do not enter)\n"
	      "      --log FILE         the terms, the protocol and the players' seeds from\n"
	      "                         the log's header, and the seed when the log reveals\n"
	      "                         it (in its header or an R section); - reads the log\n"
	      "                         from standard input\n"
	      "  -d, --deal N           the deal number (default 1)\n"
	      "      --json             one JSON object: commitment, deal, hands, mortos,\n"
	      "                         stock and, with --log, log_commitment\n"
	      "  -h, --help             print this help and exit\n"
	      "\n"
	      "Exit status: 0 printed; 1 with --log, printed, but the seed is not the one\n"
	      "the log commits to; 2 a usage error; 3 a log that cannot be read or holds no\n"
	      "committed deal, or the output cannot be written.\n",
	      f);
}

static void print_cards(const char *label, const rpl_card *c, int n)
{
	fputs(label, stdout);
	for (int i = 0; i < n; i++)
		printf(" %s", rpl_card_name(c[i]));
	putchar('\n');
}

static void print_hex(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%02x", p[i]);
}

/*
 * The seed the log reveals (its header, or an R section before any damage):
 * 1 with seed set, 0 when it reveals none, or a negative error (said).
 */
static int revealed_seed(rpl_reader *rd, const char *path, uint8_t seed[RPL_DEAL_SEED_SIZE])
{
	rpl_event ev;
	int got;

	while ((got = rpl_reader_next(rd, &ev)) > 0)
		if (ev.kind == RPL_EV_REVEAL) {
			memcpy(seed, ev.seed, RPL_DEAL_SEED_SIZE);
			return 1;
		}
	if (got < 0)
		brp_error(name, "%s: %s", path, *rpl_reader_errmsg(rd) ? rpl_reader_errmsg(rd) : rpl_strerror(got));
	return got;
}

/* The terms given on the command line, for protocol 2: 0, or BRP_EXIT_USAGE (said). */
static int check_terms(const rpl_match_info *info)
{
	for (int s = 0; s < info->nplayers; s++)
		if (info->players[s] && strlen(info->players[s]) > RPL_MAX_NAME) {
			brp_error(name, "--seat %d: a name is at most %d bytes", s, RPL_MAX_NAME);
			return BRP_EXIT_USAGE;
		}
	if (info->nplayer_seeds > info->nplayers) {
		brp_error(name, "%d player seeds for %d players: each seat adds one at most", info->nplayer_seeds,
		          info->nplayers);
		return BRP_EXIT_USAGE;
	}
	for (int i = 0; i < info->nplayer_seeds; i++)
		for (int j = 0; j < i; j++)
			if (memcmp(info->player_seeds[i], info->player_seeds[j], RPL_DEAL_SEED_SIZE) == 0) {
				brp_error(name, "--player-seed given twice with one value: each player adds his own");
				return BRP_EXIT_USAGE;
			}
	return 0;
}

/* What the command line says. */
struct deal_args {
	uint8_t seed[RPL_DEAL_SEED_SIZE], pseeds[RPL_DEAL_MAX_PLAYER_SEEDS][RPL_DEAL_SEED_SIZE];
	int have_seed, npseeds, deal, commit_version, json;
	const char *log_path;
	struct brp_rules_opts ro;
	struct brp_table_opts table;
};

/* The options into *a: -1 when the command goes on, else the code it exits with (said). */
static int deal_options(struct deal_args *a, int argc, char **argv)
{
	enum { OPT_SEED = BRP_OPT_OWN, OPT_PLAYER_SEED, OPT_COMMIT_VERSION };
	static const struct brp_opt opts[] = {
		{ "seed", 1, OPT_SEED, 0, 0 },
		{ "player-seed", 1, OPT_PLAYER_SEED, 1, 0 },
		BRP_OPT_RULES,
		BRP_OPT_SET,
		BRP_OPT_PLAYERS,
		BRP_OPT_SEAT_ROW,
		BRP_OPT_FIRST_DEALER_ROW,
		{ "commitment-version", 1, OPT_COMMIT_VERSION, 0, 0 },
		BRP_OPT_LOG,
		{ "deal", 1, 'd', 0, 0 },
		BRP_OPT_JSON_ROW,
		BRP_OPT_HELP,
		BRP_OPT_END,
	};
	const struct brp_rules_opts *ro = &a->ro;
	const struct brp_table_opts *table = &a->table;
	struct brp_getopt g;
	int c, e, first;

	brp_getopt_init(&g, name, opts, argc, argv);
	while ((c = brp_getopt_next(&g)) != -1) {
		if (c == BRP_OPT_BAD)
			return BRP_EXIT_USAGE;
		if ((e = brp_rules_option(&g, c, &a->ro)) != 0 || (e = brp_table_option(&g, c, &a->table)) != 0) {
			if (e != 1)
				return e;
			continue;
		}
		switch (c) {
		case OPT_SEED:
			if (brp_opt_hex(&g, a->seed, sizeof(a->seed)) != 0)
				return BRP_EXIT_USAGE;
			a->have_seed = 1;
			break;
		case OPT_PLAYER_SEED:
			if (a->npseeds == RPL_DEAL_MAX_PLAYER_SEEDS) {
				brp_error(name, "at most %d player seeds", RPL_DEAL_MAX_PLAYER_SEEDS);
				return BRP_EXIT_USAGE;
			}
			if (brp_opt_hex(&g, a->pseeds[a->npseeds], sizeof(a->pseeds[0])) != 0)
				return BRP_EXIT_USAGE;
			a->npseeds++;
			break;
		case OPT_COMMIT_VERSION:
			if (brp_opt_int(&g, 1, 2, &a->commit_version) != 0)
				return BRP_EXIT_USAGE;
			break;
		case BRP_OPT_LOGFILE:
			if (brp_opt_path(&g, &a->log_path) != 0)
				return BRP_EXIT_USAGE;
			break;
		case 'd':
			if (brp_opt_int(&g, 1, RPL_MAX_DEALS, &a->deal) != 0)
				return BRP_EXIT_USAGE;
			break;
		case BRP_OPT_JSON: a->json = 1; break;
		case 'h': usage(stdout); return BRP_EXIT_OK;
		}
	}
	first = brp_getopt_index(&g);
	if (first < argc) {
		brp_error(name, "unexpected argument '%s' (see brp deal --help)", argv[first]);
		return BRP_EXIT_USAGE;
	}
	if (a->log_path && (ro->profile || ro->nsets || table->given || a->npseeds || a->commit_version)) {
		brp_error(name, "--log gives the match's terms, protocol and players' seeds: no -r, -s, -p, --seat, "
		                "--first-dealer, --player-seed or --commitment-version with it");
		return BRP_EXIT_USAGE;
	}
	if (a->commit_version == RPL_COMMIT_V1 && (ro->profile || ro->nsets || table->dealer_given || table->name[0] ||
	                                           table->name[1] || table->name[2] || table->name[3])) {
		brp_error(name, "--commitment-version 1 commits to the seed alone: -r, -s, --seat and --first-dealer "
		                "are terms of protocol 2");
		return BRP_EXIT_USAGE;
	}
	if (!a->log_path && !a->have_seed) {
		brp_error(name, "no --seed given (see brp deal --help)");
		return BRP_EXIT_USAGE;
	}
	if (brp_table_finish(name, &a->table) != 0)
		return BRP_EXIT_USAGE;
	return -1;
}

/*
 * The match's terms from the log of --log (*info, lent by *rd), and its seed
 * when the log reveals it and none was given: -1 when the command goes on,
 * else the code it exits with (said).
 */
static int log_terms(struct deal_args *a, rpl_reader **rd, const rpl_match_info **info)
{
	int e = brp_open_log(a->log_path, rd);

	if (brp_stdin_spelling(a->log_path))
		a->log_path = brp_stdin_name; /* named so in messages */
	if (e != 0) {
		brp_error(name, "%s: %s", a->log_path,
		          *rd && *rpl_reader_errmsg(*rd) ? rpl_reader_errmsg(*rd) : rpl_strerror(e));
		return BRP_EXIT_FAIL;
	}
	*info = rpl_reader_info(*rd);
	if (!(*info)->commitment) {
		brp_error(name, "%s: the match has no committed deal: its layouts are not derived", a->log_path);
		return BRP_EXIT_FAIL;
	}
	if (!a->have_seed) {
		e = revealed_seed(*rd, a->log_path, a->seed);
		if (e < 0)
			return BRP_EXIT_FAIL;
		if (e == 0) {
			brp_error(name, "%s: the log does not reveal its seed: give it with --seed HEX", a->log_path);
			return BRP_EXIT_USAGE;
		}
	}
	return -1;
}

/* The commitment, then the deal's block in text notation. */
static void print_deal(const uint8_t *commit, const rpl_layout *lay, int deal, int nplayers)
{
	fputs("commitment: ", stdout);
	print_hex(commit, RPL_DEAL_COMMIT_SIZE);
	printf("\ndeal %d\n", deal);
	for (int s = 0; s < nplayers; s++) {
		char label[24];
		snprintf(label, sizeof(label), "hand %d:", s);
		print_cards(label, lay->hand[s], RPL_HAND_SIZE);
	}
	print_cards("morto 0:", lay->morto[0], RPL_MORTO_SIZE);
	print_cards("morto 1:", lay->morto[1], RPL_MORTO_SIZE);
	print_cards("stock:", lay->stock, RPL_STOCK_SIZE(nplayers));
}

static void json_cards(const char *key, const rpl_card *c, int n)
{
	printf(",\"%s\":[", key);
	for (int i = 0; i < n; i++)
		printf("%s\"%s\"", i ? "," : "", rpl_card_name(c[i]));
	putchar(']');
}

/* The same as one JSON object, with the keys of brp dump --json's deals; log_commit: --log's, else NULL. */
static void print_deal_json(const uint8_t *commit, const rpl_layout *lay, int deal, int nplayers,
                            const uint8_t *log_commit)
{
	fputs("{\"commitment\":\"", stdout);
	print_hex(commit, RPL_DEAL_COMMIT_SIZE);
	printf("\",\"deal\":%d,\"hands\":[", deal);
	for (int s = 0; s < nplayers; s++) {
		fputs(s ? ",[" : "[", stdout);
		for (int i = 0; i < RPL_HAND_SIZE; i++)
			printf("%s\"%s\"", i ? "," : "", rpl_card_name(lay->hand[s][i]));
		putchar(']');
	}
	fputs("],\"mortos\":[", stdout);
	for (int m = 0; m < 2; m++) {
		fputs(m ? ",[" : "[", stdout);
		for (int i = 0; i < RPL_MORTO_SIZE; i++)
			printf("%s\"%s\"", i ? "," : "", rpl_card_name(lay->morto[m][i]));
		putchar(']');
	}
	putchar(']');
	json_cards("stock", lay->stock, RPL_STOCK_SIZE(nplayers));
	fputs(",\"log_commitment\":", stdout);
	if (log_commit) {
		putchar('"');
		print_hex(log_commit, RPL_DEAL_COMMIT_SIZE);
		putchar('"');
	} else {
		fputs("null", stdout);
	}
	fputs("}\n", stdout);
}

int cmd_deal(int argc, char **argv)
{
	struct deal_args a = { .deal = 1, .table = BRP_TABLE_INIT };
	uint8_t commit[RPL_DEAL_COMMIT_SIZE];
	int rc;
	rpl_rules *rules = NULL;
	rpl_reader *rd = NULL;
	rpl_match_info mine;
	const rpl_match_info *info = &mine;
	rpl_layout lay;

	memset(&mine, 0, sizeof(mine));
	if ((rc = deal_options(&a, argc, argv)) >= 0)
		goto cleanup;
	if (a.log_path) {
		if ((rc = log_terms(&a, &rd, &info)) >= 0)
			goto cleanup;
	} else {
		if ((rc = brp_rules_make(name, a.ro.profile, a.ro.sets, a.ro.nsets, &rules)) != 0)
			goto cleanup;
		mine.rules = rules;
		mine.nplayers = a.table.players;
		for (int s = 0; s < RPL_MAX_SEATS; s++)
			mine.players[s] = a.table.name[s];
		mine.first_dealer = a.table.first_dealer;
		mine.nplayer_seeds = a.npseeds;
		mine.player_seeds = (const uint8_t(*)[RPL_DEAL_SEED_SIZE])a.pseeds;
		mine.commit_version = a.commit_version;
		rc = BRP_EXIT_USAGE;
		if (a.commit_version != RPL_COMMIT_V1 && check_terms(&mine) != 0)
			goto cleanup;
	}
	rc = BRP_EXIT_FAIL;
	if (rpl_deal_commit_match(commit, a.seed, info) < 0 || rpl_deal_derive_match(&lay, a.seed, info, a.deal) < 0) {
		brp_error(name, "the deal cannot be derived");
		goto cleanup;
	}
	if (a.json)
		print_deal_json(commit, &lay, a.deal, info->nplayers, a.log_path ? info->commitment : NULL);
	else
		print_deal(commit, &lay, a.deal, info->nplayers);
	rc = BRP_EXIT_OK;
	/* the commitment the log states (or, revealing its seed, is computed from) must be this one */
	if (a.log_path && memcmp(commit, info->commitment, sizeof(commit)) != 0) {
		char theirs[2 * RPL_DEAL_COMMIT_SIZE + 1];
		for (size_t i = 0; i < sizeof(commit); i++)
			snprintf(theirs + 2 * i, 3, "%02x", info->commitment[i]);
		brp_error(name, "%s: the seed is not the one the log commits to: the log's commitment is %s", a.log_path,
		          theirs);
		rc = BRP_EXIT_NO;
	}
cleanup:
	rpl_reader_free(rd);
	rpl_rules_free(rules);
	brp_rules_opts_free(&a.ro);
	return rc;
}
