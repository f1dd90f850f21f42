/* brp deal: print the layout a committed match derives for one deal (docs/format.md, section 15). */
#include "brp.h"

#include <stdlib.h>
#include <string.h>

static const char *const name = "deal";

static void usage(FILE *f)
{
	fputs("Usage: brp deal --seed HEX [OPTION]...\n"
	      "Print the commitment to a seed and the layout it derives for one deal, as\n"
	      "the text notation writes a layout (docs/format.md, section 15).\n"
	      "\n"
	      "      --seed HEX         the platform's secret seed: 64 hex digits\n"
	      "      --player-seed HEX  a seed a player added (64 hex digits; repeatable, up to 4,\n"
	      "                         in the header's order)\n"
	      "  -d, --deal N           the deal number (default 1)\n"
	      "  -p, --players N        2 or 4 (default 4)\n"
	      "  -h, --help             print this help and exit\n"
	      "\n"
	      "Exit status: 0 printed, 2 a usage error (no seed, a seed that is not 64 hex\n"
	      "digits), 3 the deal cannot be derived or the output cannot be written.\n",
	      f);
}

static void print_cards(const char *label, const rpl_card *c, int n)
{
	fputs(label, stdout);
	for (int i = 0; i < n; i++)
		printf(" %s", rpl_card_name(c[i]));
	putchar('\n');
}

int cmd_deal(int argc, char **argv)
{
	enum { OPT_SEED = BRP_OPT_OWN, OPT_PLAYER_SEED };
	static const struct brp_opt opts[] = {
		{ "seed", 1, OPT_SEED, 0, 0 },
		{ "player-seed", 1, OPT_PLAYER_SEED, 1, 0 },
		{ "deal", 1, 'd', 0, 0 },
		{ "players", 1, 'p', 0, 0 },
		BRP_OPT_HELP,
		BRP_OPT_END,
	};
	static const char *const counts[] = { "2", "4", NULL };
	uint8_t seed[RPL_DEAL_SEED_SIZE], pseeds[RPL_DEAL_MAX_PLAYER_SEEDS][RPL_DEAL_SEED_SIZE];
	uint8_t commit[RPL_DEAL_COMMIT_SIZE];
	int have_seed = 0, npseeds = 0, deal = 1, players = 4, c, first;
	struct brp_getopt g;
	rpl_layout lay;

	brp_getopt_init(&g, name, opts, argc, argv);
	while ((c = brp_getopt_next(&g)) != -1) {
		switch (c) {
		case BRP_OPT_BAD: return BRP_EXIT_USAGE;
		case OPT_SEED:
			if (brp_opt_hex(&g, seed, sizeof(seed)) != 0)
				return BRP_EXIT_USAGE;
			have_seed = 1;
			break;
		case OPT_PLAYER_SEED:
			if (npseeds == RPL_DEAL_MAX_PLAYER_SEEDS) {
				brp_error(name, "at most %d player seeds", RPL_DEAL_MAX_PLAYER_SEEDS);
				return BRP_EXIT_USAGE;
			}
			if (brp_opt_hex(&g, pseeds[npseeds], sizeof(pseeds[0])) != 0)
				return BRP_EXIT_USAGE;
			npseeds++;
			break;
		case 'd':
			if (brp_opt_int(&g, 1, RPL_MAX_DEALS, &deal) != 0)
				return BRP_EXIT_USAGE;
			break;
		case 'p':
			if (brp_opt_choice(&g, counts, &players) != 0)
				return BRP_EXIT_USAGE;
			players = players ? 4 : 2;
			break;
		case 'h': usage(stdout); return BRP_EXIT_OK;
		}
	}
	first = brp_getopt_index(&g);
	if (first < argc) {
		brp_error(name, "unexpected argument '%s' (see brp deal --help)", argv[first]);
		return BRP_EXIT_USAGE;
	}
	if (!have_seed) {
		brp_error(name, "no --seed given (see brp deal --help)");
		return BRP_EXIT_USAGE;
	}
	if (rpl_deal_commit(commit, seed) < 0 ||
	    rpl_deal_derive(&lay, seed, (const uint8_t(*)[RPL_DEAL_SEED_SIZE])pseeds, npseeds, players, deal) < 0) {
		brp_error(name, "the deal cannot be derived");
		return BRP_EXIT_FAIL;
	}
	fputs("commitment: ", stdout);
	for (size_t i = 0; i < sizeof(commit); i++)
		printf("%02x", commit[i]);
	printf("\ndeal %d\n", deal);
	for (int s = 0; s < players; s++) {
		char label[24];
		snprintf(label, sizeof(label), "hand %d:", s);
		print_cards(label, lay.hand[s], RPL_HAND_SIZE);
	}
	print_cards("morto 0:", lay.morto[0], RPL_MORTO_SIZE);
	print_cards("morto 1:", lay.morto[1], RPL_MORTO_SIZE);
	print_cards("stock:", lay.stock, RPL_STOCK_SIZE(players));
	return BRP_EXIT_OK;
}
