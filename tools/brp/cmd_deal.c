/* brp deal: print the layout a committed match derives for one deal (docs/format.md, section 15). */
#include "brp.h"

#include <getopt.h>
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
	      "  -h, --help             print this help and exit\n", f);
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
	static const struct option longopts[] = {
		{ "seed", required_argument, NULL, 'S' },
		{ "player-seed", required_argument, NULL, 'P' },
		{ "deal", required_argument, NULL, 'd' },
		{ "players", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint8_t seed[RPL_DEAL_SEED_SIZE], pseeds[RPL_DEAL_MAX_PLAYER_SEEDS][RPL_DEAL_SEED_SIZE];
	uint8_t commit[RPL_DEAL_COMMIT_SIZE];
	int have_seed = 0, npseeds = 0, deal = 1, players = 4, c;
	rpl_layout lay;
	char *end;
	long v;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:p:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'S':
			if (brp_parse_hex(optarg, seed, sizeof(seed)) < 0) {
				brp_error(name, "--seed wants 64 hex digits, not '%s'", optarg);
				return BRP_EXIT_USAGE;
			}
			have_seed = 1;
			break;
		case 'P':
			if (npseeds == RPL_DEAL_MAX_PLAYER_SEEDS) {
				brp_error(name, "at most %d player seeds", RPL_DEAL_MAX_PLAYER_SEEDS);
				return BRP_EXIT_USAGE;
			}
			if (brp_parse_hex(optarg, pseeds[npseeds], sizeof(pseeds[0])) < 0) {
				brp_error(name, "--player-seed wants 64 hex digits, not '%s'", optarg);
				return BRP_EXIT_USAGE;
			}
			npseeds++;
			break;
		case 'd':
			v = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || v < 1 || v > RPL_MAX_DEALS) {
				brp_error(name, "--deal wants a number from 1 to %d, not '%s'", RPL_MAX_DEALS, optarg);
				return BRP_EXIT_USAGE;
			}
			deal = (int)v;
			break;
		case 'p':
			if (strcmp(optarg, "2") != 0 && strcmp(optarg, "4") != 0) {
				brp_error(name, "--players wants 2 or 4, not '%s'", optarg);
				return BRP_EXIT_USAGE;
			}
			players = optarg[0] - '0';
			break;
		case 'h':
			usage(stdout);
			return BRP_EXIT_OK;
		default:
			return brp_bad_option(name, c, argv);
		}
	}
	if (optind < argc) {
		brp_error(name, "unexpected argument '%s' (see brp deal --help)", argv[optind]);
		return BRP_EXIT_USAGE;
	}
	if (!have_seed) {
		brp_error(name, "no --seed given (see brp deal --help)");
		return BRP_EXIT_USAGE;
	}
	if (rpl_deal_commit(commit, seed) < 0 ||
	    rpl_deal_derive(&lay, seed, (const uint8_t(*)[RPL_DEAL_SEED_SIZE])pseeds, npseeds, players, deal) < 0) {
		brp_error(name, "the deal cannot be derived");
		return BRP_EXIT_USAGE;
	}
	fputs("commitment: ", stdout);
	for (size_t i = 0; i < sizeof(commit); i++)
		printf("%02x", commit[i]);
	printf("\ndeal %d\n", deal);
	for (int s = 0; s < players; s++) {
		char label[16];
		snprintf(label, sizeof(label), "hand %d:", s);
		print_cards(label, lay.hand[s], RPL_HAND_SIZE);
	}
	print_cards("morto 0:", lay.morto[0], RPL_MORTO_SIZE);
	print_cards("morto 1:", lay.morto[1], RPL_MORTO_SIZE);
	print_cards("stock:", lay.stock, RPL_STOCK_SIZE(players));
	return BRP_EXIT_OK;
}
