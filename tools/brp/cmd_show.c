/* brp show: the table at a moment of a logged match, as an auditor sees it. */
#include "brp.h"

#include <stdlib.h>
#include <string.h>

static const char *const name = "show";

static void usage(FILE *f)
{
	fputs("Usage: brp show [OPTION]... FILE\n"
	      "Replay a match log and print the table after the given turn: every hand,\n"
	      "each side's melds with where each card sits, the pile, the stock, the\n"
	      "mortos and the scores so far. FILE - (or /dev/stdin, or --log -) reads the\n"
	      "log from standard input.\n"
	      "\n"
	      "      --log FILE    the log to show (the same as FILE)\n"
	      "  -d, --deal N      the deal (default: the last one in the log)\n"
	      "  -t, --turn T      after turn T of that deal (0: as dealt; default: its end)\n"
	      "  -D, --decision K  after decision K of that turn (default: its last)\n"
	      "      --json        one JSON object: the position (docs/view.md)\n"
	      "      --symbols     write suits as symbols\n"
	      "  -h, --help        print this help and exit\n"
	      "\n"
	      "Exit status: 0 shown, 1 the log stops, the deal ends or a decision is illegal\n"
	      "before that point (the table is shown as it stood), 2 a usage error, 3 a log\n"
	      "that cannot be read.\n",
	      f);
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

static void print_cards(const rpl_card *c, int n, unsigned flags)
{
	char buf[16];
	for (int i = 0; i < n; i++) {
		rpl_card_format(c[i], buf, sizeof(buf), flags);
		printf(" %s", buf);
	}
}

static void print_table(const rpl_position *p, const rpl_match_info *info, unsigned flags)
{
	char buf[16];

	printf("deal %d, dealer %d, turn %d: seat %d %s\n", p->deal, p->dealer, p->turns, p->to_move, phase_name(p->phase));
	for (int s = 0; s < p->nplayers; s++) {
		printf("hand %d", s);
		if (info->players[s] && info->players[s][0]) {
			fputs(" (", stdout);
			brp_text(stdout, info->players[s]); /* a name may hold any byte */
			putchar(')');
		}
		printf(", %d cards:", p->hand_count[s]);
		print_cards(p->hand[s], p->hand_count[s], flags);
		putchar('\n');
	}
	for (int side = 0; side < 2; side++) {
		int nm = p->meld_count[side];
		printf("side %d melds:%s\n", side, nm ? "" : " none");
		for (int i = 0; i < nm; i++) {
			const rpl_meld_info *m = &p->meld[side][i];
			printf("  %d.%d:", side, i);
			for (int j = 0; j < m->length; j++) {
				rpl_card_format(m->card[j], buf, sizeof(buf), flags);
				printf(" %s", buf);
				if (m->wild[j]) {
					rpl_card_format(rpl_meld_natural(m->suit, m->lo + j), buf, sizeof(buf), flags);
					printf("(%s)", buf);
				}
			}
			printf("  %s, %d cards, %d points",
			       m->category ? rpl_canastra_name(m->category) : (m->clean ? "clean" : "dirty"), m->length, m->points);
			if (m->category)
				printf(", canastra bonus %d", m->bonus);
			putchar('\n');
		}
	}
	printf("pile, %d cards, top last:", p->pile_count);
	print_cards(p->pile, p->pile_count, flags);
	putchar('\n');
	printf("stock: %d cards\n", p->stock_count);
	for (int m = 0; m < 2; m++) {
		int st = p->morto[m];
		printf("morto %d: %s", m, st == -1 ? "untouched" : st == 2 ? "turned into stock" : "taken by side ");
		if (st == 0 || st == 1)
			printf("%d", st);
		putchar('\n');
	}
	for (int side = 0; side < 2; side++) {
		const rpl_score *sc = &p->score[side];
		printf("side %d: deal %d (melded %d, bonus %d, going out %d, hand %d, morto %d); match %d%s\n", side,
		       (int)sc->total, (int)sc->melded, (int)sc->bonus, (int)sc->going_out, (int)sc->hand, (int)sc->morto,
		       (int)p->total[side], p->vulnerable[side] ? "; vulnerable" : "");
	}
}

/* Which position to show: the last one at or before the selection. */
struct pick {
	long deal, turn, decision; /* the selection; -1: not given */
	rpl_position *best;        /* the last position within it, of the current deal when deal is -1 */
	int have, beyond, last_deal;
};

static int within(const struct pick *k, const rpl_position *p)
{
	if (k->deal > 0 && p->deal != k->deal)
		return p->deal < k->deal;
	if (k->turn < 0 || p->turn < k->turn)
		return 1;
	if (p->turn > k->turn)
		return 0;
	return k->decision < 0 || p->decision <= k->decision;
}

static int on_position(void *ctx, const rpl_position *p)
{
	struct pick *k = ctx;

	if (k->deal < 0 && p->deal != k->last_deal) {
		/* --deal not given: the selection applies to the last deal, whichever it is */
		k->beyond = 0;
		if (k->turn >= 0)
			k->have = 0;
	}
	k->last_deal = p->deal;
	if (k->beyond)
		return 0;
	if (!within(k, p)) {
		k->beyond = 1;
		return 0;
	}
	memcpy(k->best, p, sizeof(*p));
	k->have = 1;
	return 0;
}

/*
 * The lines said above the position (at most 4): the decision shown is refused,
 * the log stops or is damaged before what was asked. Returns how many.
 */
static int show_notes(char notes[][BRP_NOTE_SIZE], const struct pick *k, const rpl_verdict *v)
{
	int n = 0;

	if (k->have && k->best->kind == RPL_POS_REFUSED) {
		char act[160];
		rpl_action_format(&k->best->action, act, sizeof(act));
		snprintf(notes[n++], BRP_NOTE_SIZE, "deal %d, turn %d, seat %d: %s is illegal: %s: %s", k->best->deal,
		         k->best->turn, k->best->seat, act, rpl_rule_name(k->best->rule), k->best->message);
	} else if (!k->beyond && v->kind == RPL_VERDICT_ILLEGAL && v->turn == 0) {
		snprintf(notes[n++], BRP_NOTE_SIZE, "deal %d cannot start: %s", v->deal, v->message);
	} else if (!k->beyond && v->kind == RPL_VERDICT_MALFORMED) {
		snprintf(notes[n++], BRP_NOTE_SIZE, "the log is damaged: %s", v->message);
	}
	if (k->deal > 0 && k->best->deal < k->deal) {
		snprintf(notes[n++], BRP_NOTE_SIZE, "the log stops before deal %ld", k->deal);
	} else if (n == 0 && !k->beyond && k->turn >= 0 && (k->deal < 0 || k->best->deal == k->deal) &&
	           k->best->phase < RPL_PHASE_DEAL_OVER) {
		/* the whole log is before the selection, and its deal did not end; a
		   decision past the last one of a turn that ended shows its end */
		if (k->decision > 0 && k->best->turns <= k->turn &&
		    !(k->best->turn == k->turn && k->best->decision == k->decision))
			snprintf(notes[n++], BRP_NOTE_SIZE,
			         "the log stops in deal %d after turn %d, decision %d, before decision %ld of turn %ld",
			         k->best->deal, k->best->turn, k->best->decision, k->decision, k->turn);
		else if (k->decision < 0 && k->best->turns < k->turn)
			snprintf(notes[n++], BRP_NOTE_SIZE, "the log stops in deal %d at turn %d, before turn %ld", k->best->deal,
			         k->best->turns, k->turn);
	} else if (n == 0 && !k->beyond && k->turn >= 0 && (k->deal < 0 || k->best->deal == k->deal) &&
	           k->best->turns < k->turn) {
		/* the deal ended before the turn asked: its end is shown, and said, as a deal past the log's is */
		snprintf(notes[n++], BRP_NOTE_SIZE, "deal %d ended at turn %d, before turn %ld", k->best->deal, k->best->turns,
		         k->turn);
	}
	return n;
}

/* The position as JSON, the notes with it: 0, or -1 (said). */
static int print_json(const rpl_position *best, const rpl_match_info *info, char notes[][BRP_NOTE_SIZE], int nnotes)
{
	/* the library's writer, the one the Python bindings use too: asked its length, then written */
	const char *lines[4];
	char *text;
	size_t len;

	for (int i = 0; i < nnotes; i++)
		lines[i] = notes[i];
	len = rpl_position_json(best, info, lines, (size_t)nnotes, NULL, 0);
	text = malloc(len + 1);
	if (!text) {
		brp_error(name, "out of memory");
		return -1;
	}
	rpl_position_json(best, info, lines, (size_t)nnotes, text, len + 1);
	fputs(text, stdout);
	putchar('\n');
	free(text);
	return 0;
}

int cmd_show(int argc, char **argv)
{
	enum { OPT_SYMBOLS = BRP_OPT_OWN };
	static const struct brp_opt opts[] = {
		{ "deal", 1, 'd', 0, 0 },
		{ "turn", 1, 't', 0, 0 },
		{ "decision", 1, 'D', 0, 0 },
		BRP_OPT_JSON_ROW,
		{ "symbols", 0, OPT_SYMBOLS, 0, 0 },
		BRP_OPT_LOG,
		BRP_OPT_HELP,
		BRP_OPT_END,
	};
	struct brp_getopt g;
	char notes[4][BRP_NOTE_SIZE];
	int c, nnotes = 0, json = 0, status = BRP_EXIT_FAIL, err, first;
	unsigned flags = 0;
	struct pick k = { -1, -1, -1, NULL, 0, 0, 0 };
	rpl_reader *rd = NULL;
	rpl_game *game = NULL;
	const rpl_match_info *info;
	rpl_verdict v;
	const char *path = NULL;

	brp_getopt_init(&g, name, opts, argc, argv);
	while ((c = brp_getopt_next(&g)) != -1) {
		int rc = 0;
		switch (c) {
		case BRP_OPT_BAD: return BRP_EXIT_USAGE;
		case 'd': rc = brp_opt_long(&g, 1, RPL_MAX_DEALS, &k.deal); break;
		case 't': rc = brp_opt_long(&g, 0, 1000000, &k.turn); break;
		case 'D': rc = brp_opt_long(&g, 1, 1000000, &k.decision); break;
		case BRP_OPT_JSON: json = 1; break;
		case OPT_SYMBOLS: flags = RPL_CARD_SYMBOLS; break;
		case BRP_OPT_LOGFILE: rc = brp_opt_path(&g, &path); break;
		case 'h': usage(stdout); return BRP_EXIT_OK;
		}
		if (rc)
			return rc;
	}
	first = brp_getopt_index(&g);
	if (first + !path != argc) {
		brp_error(name, "needs one log (try 'brp show --help')");
		return BRP_EXIT_USAGE;
	}
	if (!path)
		path = argv[first];
	if (k.decision > 0 && k.turn < 1) {
		brp_error(name, "--decision needs --turn T with T from 1");
		return BRP_EXIT_USAGE;
	}
	err = brp_open_log(path, &rd);
	if (brp_stdin_spelling(path))
		path = brp_stdin_name; /* named so in messages */
	if (err != 0) {
		brp_error(name, "%s: %s", path, rd && *rpl_reader_errmsg(rd) ? rpl_reader_errmsg(rd) : rpl_strerror(err));
		goto cleanup;
	}
	info = rpl_reader_info(rd);
	if (rpl_game_new(&game, info->rules, info->nplayers, info->first_dealer) != 0) {
		brp_error(name, "%s: the rules do not allow %d players", path, info->nplayers);
		goto cleanup;
	}
	k.best = malloc(sizeof(*k.best));
	if (!k.best) {
		brp_error(name, "out of memory");
		goto cleanup;
	}
	err = rpl_positions_reader(rd, NULL, on_position, &k, &v);
	if (err) {
		brp_error(name, "%s: %s", path, v.message[0] ? v.message : rpl_strerror(err));
		goto cleanup;
	}
	if (!k.have)
		rpl_position_of_game(game, k.best); /* nothing dealt: the empty table */
	nnotes = show_notes(notes, &k, &v);
	if (json) {
		if (print_json(k.best, info, notes, nnotes) < 0)
			goto cleanup;
	} else {
		for (int i = 0; i < nnotes; i++) { /* a message may quote any byte of the log */
			brp_text(stdout, notes[i]);
			putchar('\n');
		}
		print_table(k.best, info, flags);
	}
	status = nnotes ? BRP_EXIT_NO : BRP_EXIT_OK;
cleanup:
	free(k.best);
	rpl_game_free(game);
	rpl_reader_free(rd);
	return status;
}
