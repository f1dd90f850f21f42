/* brp show: the table at a moment of a logged match, as an auditor sees it. */
#include "brp.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char *const name = "show";

static void usage(FILE *f)
{
	fputs("Usage: brp show [OPTION]... FILE\n"
	      "Replay a match log and print the table after the given turn: every hand,\n"
	      "each side's melds with where each card sits, the pile, the stock, the\n"
	      "mortos and the scores so far.\n"
	      "\n"
	      "  -d, --deal N      the deal (default: the last one in the log)\n"
	      "  -t, --turn T      after turn T of that deal (0: as dealt; default: its end)\n"
	      "      --symbols     write suits as symbols\n"
	      "  -h, --help        print this help and exit\n"
	      "\n"
	      "Exit status: 0 shown, 1 the log stops or a decision is illegal before that\n"
	      "point (the table is shown as it stood), 2 usage error or unreadable log.\n",
	      f);
}

static unsigned card_flags;

static void print_cards(const rpl_card *c, int n)
{
	char buf[16];
	for (int i = 0; i < n; i++) {
		rpl_card_format(c[i], buf, sizeof(buf), card_flags);
		printf(" %s", buf);
	}
}

static const char *phase_name(int phase)
{
	switch (phase) {
	case RPL_PHASE_DRAW: return "to draw";
	case RPL_PHASE_PLAY: return "to meld or discard";
	case RPL_PHASE_MORTO: return "to pick up the morto";
	case RPL_PHASE_DEAL_OVER: return "the deal is over";
	case RPL_PHASE_MATCH_OVER: return "the match is over";
	default: return "no deal";
	}
}

static void print_table(const rpl_game *g, const rpl_match_info *info)
{
	rpl_card cards[RPL_DECK_SIZE];
	char buf[16];
	int n = rpl_game_players(g), k;

	printf("deal %d, dealer %d, turn %d: seat %d %s\n", rpl_game_deal_number(g), rpl_game_dealer(g),
	       rpl_game_turn_number(g), rpl_game_seat(g), phase_name(rpl_game_phase(g)));
	for (int s = 0; s < n; s++) {
		k = rpl_game_hand(g, s, cards, RPL_DECK_SIZE);
		printf("hand %d", s);
		if (info->players[s] && info->players[s][0]) {
			fputs(" (", stdout);
			brp_text(stdout, info->players[s]); /* a name may hold any byte */
			putchar(')');
		}
		printf(", %d cards:", k);
		print_cards(cards, k);
		putchar('\n');
	}
	for (int side = 0; side < 2; side++) {
		int nm = rpl_game_meld_count(g, side);
		printf("side %d melds:%s\n", side, nm ? "" : " none");
		for (int i = 0; i < nm; i++) {
			rpl_meld_info m;
			rpl_game_meld(g, side, i, &m);
			printf("  %d.%d:", side, i);
			for (int j = 0; j < m.length; j++) {
				rpl_card_format(m.card[j], buf, sizeof(buf), card_flags);
				printf(" %s", buf);
				if (m.wild[j]) {
					rpl_card_format(rpl_meld_natural(m.suit, m.lo + j), buf, sizeof(buf), card_flags);
					printf("(%s)", buf);
				}
			}
			printf("  %s, %d cards, %d points", m.category ? rpl_canastra_name(m.category) : (m.clean ? "clean" : "dirty"),
			       m.length, m.points);
			if (m.category)
				printf(", canastra bonus %d", m.bonus);
			putchar('\n');
		}
	}
	k = rpl_game_pile(g, cards, RPL_DECK_SIZE);
	printf("pile, %d cards, top last:", k);
	print_cards(cards, k);
	putchar('\n');
	printf("stock: %d cards\n", rpl_game_stock_count(g));
	for (int m = 0; m < 2; m++) {
		int st = rpl_game_morto_state(g, m);
		printf("morto %d: %s", m, st == -1 ? "untouched" : st == 2 ? "turned into stock" : "taken by side ");
		if (st == 0 || st == 1)
			printf("%d", st);
		putchar('\n');
	}
	for (int side = 0; side < 2; side++) {
		rpl_score sc;
		rpl_game_deal_score(g, side, &sc);
		printf("side %d: deal %d (melded %d, bonus %d, going out %d, hand %d, morto %d); match %d%s\n", side,
		       (int)sc.total, (int)sc.melded, (int)sc.bonus, (int)sc.going_out, (int)sc.hand, (int)sc.morto,
		       (int)rpl_game_total(g, side), rpl_game_vulnerable(g, side) ? "; vulnerable" : "");
	}
}

int cmd_show(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "deal", required_argument, NULL, 'd' },
		{ "turn", required_argument, NULL, 't' },
		{ "symbols", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long deal = -1, turn = -1;
	char *end;
	int c, got = 0, status = BRP_EXIT_USAGE, stopped = 0;
	rpl_reader *rd = NULL;
	rpl_game *g = NULL;
	const rpl_match_info *info;
	rpl_event ev;

	while ((c = getopt_long(argc, argv, ":d:t:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			deal = strtol(optarg, &end, 10);
			if (*end || deal < 1) {
				brp_error(name, "--deal takes a deal number from 1, not '%s'", optarg);
				return BRP_EXIT_USAGE;
			}
			break;
		case 't':
			turn = strtol(optarg, &end, 10);
			if (*end || turn < 0) {
				brp_error(name, "--turn takes a turn number from 0, not '%s'", optarg);
				return BRP_EXIT_USAGE;
			}
			break;
		case 'S': card_flags = RPL_CARD_SYMBOLS; break;
		case 'h': usage(stdout); return BRP_EXIT_OK;
		default: return brp_bad_option(name, c, argv);
		}
	}
	if (optind + 1 != argc) {
		brp_error(name, "needs one log (try 'brp show --help')");
		return BRP_EXIT_USAGE;
	}
	if (rpl_reader_open(&rd, argv[optind]) != 0) {
		brp_error(name, "%s: %s", argv[optind], rd ? rpl_reader_errmsg(rd) : "out of memory");
		goto cleanup;
	}
	if (turn >= 0 && deal < 0) {
		/* --turn alone: of the last deal */
		rpl_reader *pre = NULL;
		deal = 0;
		if (rpl_reader_open(&pre, argv[optind]) == 0)
			while (rpl_reader_next(pre, &ev) == 1)
				if (ev.kind == RPL_EV_DEAL)
					deal = ev.deal;
		rpl_reader_free(pre);
		if (deal == 0)
			deal = 1;
	}
	info = rpl_reader_info(rd);
	if (rpl_game_new(&g, info->rules, info->nplayers, info->first_dealer) != 0) {
		brp_error(name, "%s: the rules do not allow %d players", argv[optind], info->nplayers);
		goto cleanup;
	}
	while ((got = rpl_reader_next(rd, &ev)) == 1) {
		if (ev.kind == RPL_EV_DEAL) {
			if (deal > 0 && ev.deal > deal)
				break;
			if (rpl_game_deal(g, &ev.layout) != 0) {
				printf("deal %d cannot start: ", ev.deal);
				brp_text(stdout, rpl_game_errmsg(g));
				putchar('\n');
				stopped = 1;
				break;
			}
		} else if (ev.kind == RPL_EV_ACTION) {
			if (deal > 0 && ev.deal == deal && turn >= 0 && ev.turn > turn)
				break;
			if (rpl_game_apply(g, &ev.action) != 0) {
				char act[160];
				rpl_action_format(&ev.action, act, sizeof(act));
				printf("deal %d, turn %d, seat %d: %s is illegal: %s: ", ev.deal, ev.turn, ev.seat, act,
				       rpl_rule_name(rpl_game_rule(g)));
				brp_text(stdout, rpl_game_errmsg(g));
				putchar('\n');
				stopped = 1;
				break;
			}
		}
	}
	if (got < 0) {
		fputs("the log is damaged: ", stdout);
		brp_text(stdout, rpl_reader_errmsg(rd));
		putchar('\n');
		stopped = 1;
	}
	if (deal > 0 && rpl_game_deal_number(g) < deal) {
		printf("the log stops before deal %ld\n", deal);
		stopped = 1;
	} else if (!stopped && got == 0 && turn >= 0 && rpl_game_deal_number(g) == deal &&
	           rpl_game_phase(g) < RPL_PHASE_DEAL_OVER && rpl_game_turn_number(g) < turn) {
		printf("the log stops in deal %ld at turn %d, before turn %ld\n", deal, rpl_game_turn_number(g), turn);
		stopped = 1;
	}
	print_table(g, info);
	status = stopped ? BRP_EXIT_NO : BRP_EXIT_OK;
cleanup:
	rpl_game_free(g);
	rpl_reader_free(rd);
	return status;
}
