/*
 * brp play: a person plays one seat of a match against bots, one line of
 * input a decision, at a terminal or from a pipe.
 *
 * The person is shown only what the seat may see (rpl_infoset_get: the own
 * hand, the melds, the pile as the profile shows it, the other hands'
 * sizes and known cards, the stock, the mortos), never a card of another
 * hand. The deals are committed (docs/format.md section 18) as brp simulate
 * --commit makes them, and the seed is revealed when the log is closed, so
 * that a log written with -o proves its deals were not chosen.
 */
#include "brp.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const name = "play";

/* The longest input line: more than any decision needs (a meld of 14 cards is under 60 bytes). */
#define LINE_MAX_BYTES 1024

/* A deal that runs this long is a bot bug, not a game (as in brp simulate). */
#define MAX_DECISIONS_PER_DEAL 20000

/* The search bot's samples a decision when -b search has no :N (as in brp simulate). */
#define SEARCH_SAMPLES RPL_SEARCH_SAMPLES

/* Where the person's text goes in the turn line handed to the notation parser: "1. S: " */
#define TURN_PREFIX 6

static void usage(FILE *f)
{
	fputs("Usage: brp play [OPTION]...\n"
	      "Play one seat of a match against bots at the other seats. At each of your\n"
	      "decisions the table is shown as your seat sees it (your hand, the melds, the\n"
	      "pile as the profile shows it, the other hands' sizes, the stock, the mortos)\n"
	      "with the legal decisions, numbered. Type a number, or a decision in text\n"
	      "notation (docs/notation.md: draw, take, meld 5h 6h 7h, add 0.1 8s,\n"
	      "discard Kh; several on one line, separated by commas), or 'help' or 'quit'.\n"
	      "A refused decision is said in one line and asked again. The bots decide at\n"
	      "once, and their decisions are shown. Standard input may be a pipe: one line\n"
	      "a decision (the end of the input quits).\n"
	      "\n"
	      "  -r, --rules PROFILE   kzv, stbl or aberto (default stbl)\n"
	      "  -s, --set NAME=VALUE  override a rule parameter (repeatable)\n"
	      "  -p, --players N       2 or 4 (default 4)\n"
	      "      --seat N          your seat, 0 to players-1 (default 0); seat 0 moves\n"
	      "                        first\n"
	      "      --name NAME       your name in the log (default player)\n"
	      "  -b, --bot KIND        the bots: greedy, random or search[:N] (default\n"
	      "                        greedy; search: N samples a decision, default 128)\n"
	      "      --seed S          the seed of the deals and the bots (default: a random\n"
	      "                        one, said when the match ends)\n"
	      "  -t, --target T        the match target (default: the profile's; 0: one deal)\n"
	      "  -o, --output FILE     record the match into FILE as it is played (flushed\n"
	      "                        at every decision: a killed session leaves a log\n"
	      "                        brp verify reads as incomplete); the deals are\n"
	      "                        committed and the seed revealed when it is closed\n"
	      "  -h, --help            print this help and exit\n"
	      "\n"
	      "Exit status: 0 the match was played to its end or quit, 2 a usage error,\n"
	      "3 a log that cannot be written.\n",
	      f);
}

enum { BOT_GREEDY, BOT_RANDOM, BOT_SEARCH };
static const char *const bot_kinds[] = { "greedy", "random", "search", NULL }; /* by BOT_* */

struct play_args {
	struct brp_rules_opts ro;
	int players, seat, bot, samples;
	uint64_t seed;
	int seed_given;
	long target; /* -1: the profile's */
	const char *out_path, *player;
};

/* The session: the game, the log, the bots and the parser of the person's decisions. */
struct play {
	const struct play_args *a;
	rpl_game *g;
	rpl_game *scratch; /* a person's decision tried on it first */
	rpl_recorder *rec; /* NULL without -o */
	rpl_bot *bots[RPL_MAX_SEATS];
	const char *names[RPL_MAX_SEATS];
	char botnames[RPL_MAX_SEATS][32];
	rpl_notation_parser *parser; /* made anew each deal, fed that deal's block */
	rpl_notation_item *item;
	rpl_action *legal;
	size_t legal_cap, nlegal;
	rpl_match_info info;
	uint8_t dseed[RPL_DEAL_SEED_SIZE], commitment[RPL_DEAL_COMMIT_SIZE];
	uint8_t pseeds[RPL_MAX_SEATS][RPL_DEAL_SEED_SIZE];
	int top_only; /* the profile shows only the pile's top card (docs/rules.md 6.3) */
	int tty;      /* standard input is a terminal: it echoes what is typed */
	char line[LINE_MAX_BYTES + 2];
	char turn[LINE_MAX_BYTES + TURN_PREFIX + 2];
};

/* What became of a step of the session: it goes on, the person quit, the question stands, a failure (said). */
enum { STEP_ON, STEP_QUIT, STEP_AGAIN, STEP_FAIL = -1 };

/* -b KIND: greedy, random, search or search:N (N samples a decision, 1..1000), as brp simulate reads it. */
static int bot_option(const struct brp_getopt *g, struct play_args *a)
{
	if (!strchr(g->arg, ':'))
		return brp_opt_choice(g, bot_kinds, &a->bot);
	if (brp_search_kind(g->arg, &a->samples) != 0)
		return brp_opt_refuse(g, "greedy, random, search or search:N (N samples a decision, 1 to 1000)");
	a->bot = BOT_SEARCH;
	return 0;
}

/* The options into *a: -1 when the command goes on, else the code it exits with (said). */
static int play_args_parse(struct play_args *a, int argc, char **argv)
{
	enum { OPT_SEAT = BRP_OPT_OWN, OPT_NAME, OPT_SEED };
	static const struct brp_opt opts[] = {
		BRP_OPT_RULES,
		BRP_OPT_SET,
		{ "players", 1, 'p', 0, 0 },
		{ "seat", 1, OPT_SEAT, 0, 0 },
		{ "name", 1, OPT_NAME, 0, 0 },
		{ "bot", 1, 'b', 0, 0 },
		{ "seed", 1, OPT_SEED, 0, 0 },
		{ "target", 1, 't', 0, 0 },
		{ "output", 1, 'o', 0, 0 },
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
		if ((rc = brp_rules_option(&g, c, &a->ro)) != 0) {
			if (rc != 1)
				return rc;
			continue;
		}
		rc = 0;
		switch (c) {
		case 'p':
			if ((rc = brp_opt_choice(&g, counts, &a->players)) == 0)
				a->players = a->players ? 4 : 2;
			break;
		case OPT_SEAT: rc = brp_opt_int(&g, 0, RPL_MAX_SEATS - 1, &a->seat); break;
		case OPT_NAME: rc = brp_opt_path(&g, &a->player); break;
		case 'b': rc = bot_option(&g, a); break;
		case OPT_SEED:
			rc = brp_opt_u64(&g, &a->seed);
			a->seed_given = 1;
			break;
		case 't': rc = brp_opt_long(&g, 0, 1000000, &a->target); break;
		case 'o': rc = brp_opt_path(&g, &a->out_path); break;
		case 'h': usage(stdout); return BRP_EXIT_OK;
		}
		if (rc)
			return BRP_EXIT_USAGE;
	}
	if (brp_getopt_index(&g) != argc) {
		brp_error(name, "unexpected argument '%s': the decisions are read from stdin", argv[brp_getopt_index(&g)]);
		return BRP_EXIT_USAGE;
	}
	if (a->seat >= a->players) {
		brp_error(name, "--seat %d: a table of %d players has seats 0 to %d", a->seat, a->players, a->players - 1);
		return BRP_EXIT_USAGE;
	}
	return -1;
}

/* The rules from the options, -t folded in, and the table size they must allow: -1 when they do, else the exit code (said). */
static int play_rules(struct play_args *a, rpl_rules **rules)
{
	rpl_game *probe = NULL;
	char tset[64];
	int rc;

	if (a->target >= 0) {
		snprintf(tset, sizeof tset, "target=%ld", a->target);
		if ((rc = brp_rules_opts_add(name, &a->ro, tset)) != 0)
			return rc;
	}
	if ((rc = brp_rules_make(name, a->ro.profile, a->ro.sets, a->ro.nsets, rules)) != 0)
		return rc;
	rc = rpl_game_new(&probe, *rules, a->players, 0);
	rpl_game_free(probe);
	if (rc == RPL_ENOMEM) {
		brp_error(name, "out of memory");
		return BRP_EXIT_FAIL;
	}
	if (rc < 0) {
		brp_error(name, "the rules do not allow %d players", a->players);
		return BRP_EXIT_USAGE;
	}
	return -1;
}

/* ---- what the person is shown ---- */

/* "seat S (NAME)", "seat S (you)" for the person's. */
static void say_seat(const struct play *pl, int s)
{
	printf("seat %d (", s);
	if (s == pl->a->seat)
		fputs("you", stdout);
	else
		brp_text(stdout, pl->names[s]);
	putchar(')');
}

/* The cards counted by face in count[] (an information set's hand or known cards), in card order. */
static void print_counted(const uint8_t *count)
{
	for (int c = 0; c < RPL_NFACES; c++)
		for (int k = 0; k < count[c]; k++)
			printf(" %s", rpl_card_name((rpl_card)c));
}

static void print_meld(int side, int i, const rpl_meld_info *m)
{
	printf("    %d.%d:", side, i);
	for (int j = 0; j < m->length; j++) {
		printf(" %s", rpl_card_name(m->card[j]));
		if (m->wild[j])
			printf("(%s)", rpl_card_name(rpl_meld_natural(m->suit, m->lo + j)));
	}
	printf("  %s, %d cards, %d points", m->category ? rpl_canastra_name(m->category) : (m->clean ? "clean" : "dirty"),
	       m->length, m->points);
	if (m->category)
		printf(", canastra bonus %d", m->bonus);
	putchar('\n');
}

static const char *phase_want(int phase)
{
	switch (phase) {
	case RPL_PHASE_DRAW: return "to draw or take the pile";
	case RPL_PHASE_MORTO: return "to pick up a morto";
	default: return "to meld, add or discard";
	}
}

/* The table as the person's seat sees it: its information set, nothing more. */
static void show_table(const struct play *pl, const rpl_infoset *is)
{
	const rpl_game *g = pl->g;
	int me = pl->a->seat;

	printf("deal %d, turn %d: your turn (seat %d, side %d) %s\n", is->deal, rpl_game_turn_number(g), me, me % 2,
	       phase_want(is->phase));
	printf("  your hand, %d cards:", is->hand_n[me]);
	print_counted(is->hand);
	putchar('\n');
	for (int s = 0; s < is->players; s++) {
		int nknown = 0;
		if (s == me)
			continue;
		printf("  ");
		say_seat(pl, s);
		printf("%s: %d cards", s % 2 == me % 2 ? ", your partner" : "", is->hand_n[s]);
		for (int c = 0; c < RPL_NFACES; c++)
			nknown += is->known[s][c];
		if (nknown) {
			fputs("; known:", stdout);
			print_counted(is->known[s]);
		}
		putchar('\n');
	}
	for (int side = 0; side < 2; side++) {
		printf("  side %d melds%s:%s\n", side, side == me % 2 ? " (yours)" : "", is->nmelds[side] ? "" : " none");
		for (int i = 0; i < is->nmelds[side]; i++)
			print_meld(side, i, &is->melds[side][i]);
	}
	if (is->pile_n == 0) {
		puts("  pile: empty");
	} else if (pl->top_only && is->pile_n > 1) {
		printf("  pile, %d cards, only the top one seen: %s\n", is->pile_n, rpl_card_name(is->pile[is->pile_n - 1]));
	} else {
		printf("  pile, %d card%s, top last:", is->pile_n, is->pile_n == 1 ? "" : "s");
		for (int i = 0; i < is->pile_n; i++)
			printf(" %s", rpl_card_name(is->pile[i]));
		putchar('\n');
	}
	printf("  stock: %d cards", is->stock_n);
	for (int m = 0; m < 2; m++) {
		int st = is->morto_state[m];
		printf("; morto %d: %s", m, st == -1 ? "untouched" : st == 2 ? "turned into stock" : "taken by side ");
		if (st == 0 || st == 1)
			printf("%d", st);
	}
	putchar('\n');
	printf("  match: side 0 %d, side 1 %d", (int)rpl_game_total(g, 0), (int)rpl_game_total(g, 1));
	for (int side = 0; side < 2; side++)
		if (rpl_game_vulnerable(g, side))
			printf("; side %d vulnerable", side);
	putchar('\n');
}

/* The legal decisions into pl->legal (rpl_game_legal: each leaves a turn that can end): 0, or -1 out of memory (said). */
static int list_legal(struct play *pl)
{
	size_t n = rpl_game_legal(pl->g, NULL, 0);

	if (n > pl->legal_cap) {
		rpl_action *m = realloc(pl->legal, n * sizeof *m);
		if (!m) {
			brp_error(name, "out of memory");
			return -1;
		}
		pl->legal = m;
		pl->legal_cap = n;
	}
	pl->nlegal = rpl_game_legal(pl->g, pl->legal, pl->legal_cap);
	if (pl->nlegal > pl->legal_cap)
		pl->nlegal = pl->legal_cap;
	return 0;
}

static void show_legal(const struct play *pl)
{
	char text[128];

	puts("decisions:");
	for (size_t i = 0; i < pl->nlegal; i++) {
		rpl_action_format(&pl->legal[i], text, sizeof text);
		printf("  %zu. %s\n", i + 1, text);
	}
}

static void show_help(void)
{
	fputs("Type the number of a decision listed, or decisions in text notation\n"
	      "(docs/notation.md), several on one line separated by commas:\n"
	      "  draw              draw the top card of the stock\n"
	      "  take              take the whole pile\n"
	      "  reject            ABERTO's first turn: put the drawn card on the pile\n"
	      "  meld 5h 6h 7h     lay a new meld (a wild that may sit at either end:\n"
	      "                    '<' or '>' after the cards puts it low or high)\n"
	      "  add 0.1 8s        add cards to meld 1 of side 0\n"
	      "  discard Kh        discard a card, which ends the turn\n"
	      "  morto 0           pick up morto 0\n"
	      "  help              this text\n"
	      "  quit              stop the match here (the log, if any, is closed)\n",
	      stdout);
}

/* ---- decisions ---- */

/*
 * Apply a decision of seat to the game and the log (flushed, so that a
 * killed session keeps it). 0, or -1 (said): the log cannot be written, or
 * the engine refused a decision it was sure to take (a bug).
 */
static int apply(struct play *pl, const rpl_action *a)
{
	if (rpl_game_apply(pl->g, a) != 0) {
		brp_error(name, "the engine refused a decision it listed: %s (a bug: please report it)",
		          rpl_game_errmsg(pl->g));
		return -1;
	}
	if (pl->rec && (rpl_recorder_action(pl->rec, a) != 0 || rpl_recorder_flush(pl->rec) != 0)) {
		brp_error(name, "%s: %s", pl->a->out_path, rpl_recorder_errmsg(pl->rec));
		return -1;
	}
	return 0;
}

/* "seat S (NAME): DECISION" for every decision made; a draw of the person's says the card drawn. */
static void say_decision(const struct play *pl, int seat, const rpl_action *a, const uint8_t *before)
{
	char text[128];

	rpl_action_format(a, text, sizeof text);
	printf("  ");
	say_seat(pl, seat);
	printf(": %s", text);
	if (before && (a->kind == RPL_ACT_DRAW || a->kind == RPL_ACT_REJECT)) {
		const char *sep = " (you drew";
		for (int c = 0; c < RPL_NFACES; c++)
			for (int k = before[c]; k < rpl_game_hand_count(pl->g, seat, (rpl_card)c); k++) {
				printf("%s %s", sep, rpl_card_name((rpl_card)c));
				sep = ",";
			}
		if (sep[0] == ',')
			putchar(')');
	}
	putchar('\n');
}

/*
 * A decision the person typed: tried on a copy first, so that a refusal
 * changes nothing. Refused by the engine, or leaving a turn that can no
 * longer end (docs/rules.md 11.10: rpl_game_legal never lists such a
 * decision): said in one line, returns 1. Applied: 0. Failed: -1 (said).
 */
static int person_decision(struct play *pl, const rpl_action *a)
{
	int seat = rpl_game_seat(pl->g), turn = rpl_game_turn_number(pl->g);
	uint8_t before[RPL_NFACES];

	rpl_game_copy(pl->scratch, pl->g);
	if (rpl_game_apply(pl->scratch, a) != 0) {
		printf("refused: %s: %s\n", rpl_rule_name(rpl_game_rule(pl->scratch)), rpl_game_errmsg(pl->scratch));
		return 1;
	}
	if (rpl_game_phase(pl->scratch) < RPL_PHASE_DEAL_OVER && rpl_game_seat(pl->scratch) == seat &&
	    rpl_game_turn_number(pl->scratch) == turn && rpl_game_turn_can_end(pl->scratch) == 0) {
		printf("refused: %s: after it the turn could not end: no discard would be accepted (docs/rules.md "
		       "11.10)\n",
		       rpl_rule_name(RPL_RULE_TURN_DEAD_END));
		return 1;
	}
	for (int c = 0; c < RPL_NFACES; c++)
		before[c] = (uint8_t)rpl_game_hand_count(pl->g, seat, (rpl_card)c);
	if (apply(pl, a) < 0)
		return -1;
	say_decision(pl, seat, a, before);
	return 0;
}

/*
 * The next line of stdin into pl->line, without its line break: 1, or 0 at
 * the end of the input. A line longer than LINE_MAX_BYTES is cut there
 * (*cut set) and the rest of it dropped. Without a terminal the line is
 * echoed after the prompt, so that the output reads as the session went.
 */
static int read_line(struct play *pl, int *cut)
{
	size_t n = 0;
	int c = EOF;

	*cut = 0;
	while ((c = getchar()) != EOF && c != '\n') {
		if (n < LINE_MAX_BYTES)
			pl->line[n++] = (char)c;
		else
			*cut = 1;
	}
	if (n && pl->line[n - 1] == '\r')
		n--;
	pl->line[n] = '\0';
	if (c == EOF && n == 0 && !*cut)
		return 0;
	if (!pl->tty) {
		brp_text(stdout, pl->line);
		putchar('\n');
	}
	return 1;
}

/* The text of a line without the white space around it. */
static char *trim(char *s)
{
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	return s;
}

/* A parser's message with the column counted in the person's text: "column C: ..." (the turn line's prefix taken off). */
static void say_parse_error(const struct play *pl)
{
	const char *m = rpl_notation_parser_errmsg(pl->parser);
	const char *rest = strstr(m, ": ");
	int line, col;

	rpl_notation_parser_where(pl->parser, &line, &col);
	rest = rest ? rest + 2 : m;
	if (col > TURN_PREFIX)
		printf("not a decision: column %d: ", col - TURN_PREFIX);
	else
		fputs("not a decision: ", stdout);
	brp_text(stdout, rest);
	putchar('\n');
}

/*
 * Decisions typed in text notation: parsed as a turn line of the seat, and
 * taken in order while it is the person's turn; the first refused stops the
 * line (the rest is said as not taken). 0 when at least one was taken, 1
 * when none was (said), -1 failed (said).
 */
static int typed_decisions(struct play *pl, const char *text)
{
	int seat = rpl_game_seat(pl->g), taken = 0, e = 0;
	size_t i;
	char buf[128];

	snprintf(pl->turn, sizeof pl->turn, "1. %d: %s", seat, text);
	if (rpl_notation_parser_line(pl->parser, pl->turn, strlen(pl->turn), pl->item) < 0) {
		say_parse_error(pl);
		return 1;
	}
	for (i = 0; i < pl->item->nactions; i++) {
		if (rpl_game_phase(pl->g) >= RPL_PHASE_DEAL_OVER || rpl_game_seat(pl->g) != seat)
			break; /* the turn ended: the rest belongs to no one */
		if ((e = person_decision(pl, &pl->item->actions[i])) != 0)
			break;
		taken++;
	}
	if (e < 0)
		return -1;
	if (e > 0)
		i++; /* the refused one is said */
	for (size_t k = i; k < pl->item->nactions; k++) {
		rpl_action_format(&pl->item->actions[k], buf, sizeof buf);
		printf("%s%s", k == i ? "not taken: " : ", ", buf);
		if (k + 1 == pl->item->nactions)
			fputs(e > 0 ? "\n" : " (your turn ended)\n", stdout);
	}
	return taken ? 0 : 1;
}

/*
 * One line of the person's: STEP_ON once a decision was taken, STEP_QUIT,
 * STEP_FAIL (said), STEP_AGAIN when nothing was taken and the question stands.
 */
static int person_line(struct play *pl, char *text)
{
	char *end;
	long k;
	int e;

	if (text[0] == '\0')
		return STEP_AGAIN;
	if (strcmp(text, "quit") == 0)
		return STEP_QUIT;
	if (strcmp(text, "help") == 0) {
		show_help();
		return STEP_AGAIN;
	}
	if (text[0] >= '0' && text[0] <= '9') {
		k = strtol(text, &end, 10);
		if (*end == '\0') {
			if (k < 1 || (size_t)k > pl->nlegal) {
				printf("no decision %s: type a number from 1 to %zu, a decision, help or quit\n", text, pl->nlegal);
				return STEP_AGAIN;
			}
			e = person_decision(pl, &pl->legal[k - 1]);
			return e < 0 ? STEP_FAIL : e ? STEP_AGAIN : STEP_ON;
		}
	}
	e = typed_decisions(pl, text);
	return e < 0 ? STEP_FAIL : e ? STEP_AGAIN : STEP_ON;
}

/* The person's turn, one question at a time until a decision is taken: STEP_ON, STEP_QUIT or STEP_FAIL (said). */
static int person_turn(struct play *pl)
{
	rpl_infoset is;
	int cut, e;

	if (rpl_infoset_get(pl->g, pl->a->seat, &is) != 0) {
		brp_error(name, "the seat's view cannot be had (a bug: please report it)");
		return STEP_FAIL;
	}
	if (list_legal(pl) < 0)
		return STEP_FAIL;
	show_table(pl, &is);
	show_legal(pl);
	for (;;) {
		fputs("choose> ", stdout);
		fflush(stdout);
		if (!read_line(pl, &cut)) {
			fputs("\nend of the input: quitting\n", stdout);
			return STEP_QUIT;
		}
		if (cut) {
			printf("not a decision: a line holds at most %d bytes\n", LINE_MAX_BYTES);
			continue;
		}
		e = person_line(pl, trim(pl->line));
		if (e != STEP_AGAIN)
			return e;
		fflush(stdout);
	}
}

/* ---- the match ---- */

/*
 * A parser for the person's decisions in this deal: it reads turn lines only
 * after a deal block, so it is fed the deal's own layout first (never shown).
 */
static int parser_for_deal(struct play *pl, const rpl_layout *lay, int deal)
{
	char text[RPL_NOTATION_MAX_CARDS * 4 + 16];
	int n = pl->a->players;

	rpl_notation_parser_free(pl->parser);
	pl->parser = NULL;
	if (rpl_notation_parser_new(&pl->parser) < 0 || rpl_notation_parser_set_players(pl->parser, n) < 0)
		return -1;
	for (int l = 0; l < n + 4; l++) {
		const rpl_card *c = l == 0 ? NULL : l <= n ? lay->hand[l - 1] : l <= n + 2 ? lay->morto[l - n - 1] : lay->stock;
		int nc = l == 0 ? 0 : l <= n ? RPL_HAND_SIZE : l <= n + 2 ? RPL_MORTO_SIZE : RPL_STOCK_SIZE(n);
		size_t k;
		if (l == 0)
			k = (size_t)snprintf(text, sizeof text, "deal %d", deal);
		else if (l <= n)
			k = (size_t)snprintf(text, sizeof text, "hand %d:", l - 1);
		else if (l <= n + 2)
			k = (size_t)snprintf(text, sizeof text, "morto %d:", l - n - 1);
		else
			k = (size_t)snprintf(text, sizeof text, "stock:");
		for (int i = 0; i < nc; i++)
			k += (size_t)snprintf(text + k, sizeof text - k, " %s", rpl_card_name(c[i]));
		if (rpl_notation_parser_line(pl->parser, text, k, pl->item) < 0)
			return -1;
	}
	return 0;
}

/* How a deal ended, and its scores: the claim in the log too. 0, or -1 (said). */
static int deal_over(struct play *pl)
{
	rpl_deal_stats st;
	rpl_score sc[2];
	int32_t claim[2];
	int deal = rpl_game_deal_number(pl->g);

	rpl_game_deal_stats(pl->g, &st);
	printf("deal %d over: ", deal);
	if (st.end == RPL_DEAL_OUT) {
		say_seat(pl, st.out_seat);
		puts(" went out");
	} else {
		puts("the stock ran out");
	}
	for (int side = 0; side < 2; side++) {
		rpl_game_deal_score(pl->g, side, &sc[side]);
		claim[side] = sc[side].total;
		printf("  side %d%s: %d (melded %d, bonus %d, going out %d, hand %d, morto %d); match %d\n", side,
		       side == pl->a->seat % 2 ? " (yours)" : "", (int)sc[side].total, (int)sc[side].melded,
		       (int)sc[side].bonus, (int)sc[side].going_out, (int)sc[side].hand, (int)sc[side].morto,
		       (int)rpl_game_total(pl->g, side));
	}
	if (pl->rec && (rpl_recorder_claim(pl->rec, deal, claim) != 0 || rpl_recorder_flush(pl->rec) != 0)) {
		brp_error(name, "%s: %s", pl->a->out_path, rpl_recorder_errmsg(pl->rec));
		return -1;
	}
	return 0;
}

/* One deal, from its committed layout to its scores: STEP_ON, STEP_QUIT or STEP_FAIL (said). */
static int play_deal(struct play *pl)
{
	rpl_layout lay;
	int deal = rpl_game_deal_number(pl->g) + 1, steps = 0, e;

	if (rpl_deal_derive_match(&lay, pl->dseed, &pl->info, deal) != 0 || rpl_game_deal(pl->g, &lay) != 0) {
		brp_error(name, "deal %d cannot be dealt (a bug: please report it)", deal);
		return STEP_FAIL;
	}
	if (pl->rec && (rpl_recorder_deal(pl->rec, &lay) != 0 || rpl_recorder_flush(pl->rec) != 0)) {
		brp_error(name, "%s: %s", pl->a->out_path, rpl_recorder_errmsg(pl->rec));
		return STEP_FAIL;
	}
	if (parser_for_deal(pl, &lay, deal) < 0) {
		brp_error(name, "out of memory");
		return STEP_FAIL;
	}
	printf("deal %d: dealer ", deal);
	say_seat(pl, rpl_game_dealer(pl->g));
	putchar('\n');
	while (rpl_game_phase(pl->g) < RPL_PHASE_DEAL_OVER) {
		int seat = rpl_game_seat(pl->g);
		rpl_action a;
		if (seat == pl->a->seat) {
			if ((e = person_turn(pl)) != STEP_ON)
				return e;
			continue;
		}
		if (++steps > MAX_DECISIONS_PER_DEAL || rpl_bot_choose(pl->bots[seat], pl->g, &a) != 0) {
			brp_error(name, "a bot found no way to go on (a bug: please report it)");
			return STEP_FAIL;
		}
		if (apply(pl, &a) < 0)
			return STEP_FAIL;
		say_decision(pl, seat, &a, NULL);
	}
	return deal_over(pl) < 0 ? STEP_FAIL : STEP_ON;
}

/* The bots, the header and the game of the match, and the log opened: 0, or -1 (said). */
static int play_start(struct play *pl, const rpl_rules *rules, const char **keys, const char **values)
{
	const struct play_args *a = pl->a;
	int v = 0;

	for (int s = 0; s < a->players; s++) {
		uint64_t bseed = brp_mix64(a->seed + (uint64_t)s + 1);
		int e;
		if (s == a->seat) {
			pl->names[s] = a->player;
			continue;
		}
		snprintf(pl->botnames[s], sizeof pl->botnames[s], "%s-%d", bot_kinds[a->bot], s);
		pl->names[s] = pl->botnames[s];
		e = a->bot == BOT_SEARCH
		            ? rpl_bot_new_search(&pl->bots[s], bseed, a->samples, 1)
		            : rpl_bot_new(&pl->bots[s], a->bot == BOT_GREEDY ? RPL_BOT_GREEDY : RPL_BOT_RANDOM, bseed);
		if (e != 0) {
			brp_error(name, "out of memory");
			return -1;
		}
	}
	rpl_rules_get_id(rules, RPL_P_PILE_RULE, &v);
	pl->top_only = v == RPL_PILE_TOP_LAID;
	brp_commit_secrets(a->seed, 0x636f6d6d6974ull, a->players, pl->dseed, pl->pseeds);
	pl->info.rules = rules;
	pl->info.nplayers = a->players;
	for (int s = 0; s < a->players; s++)
		pl->info.players[s] = pl->names[s];
	pl->info.first_dealer = a->players - 1; /* seat 0 moves first, as brp record's default */
	pl->info.start_time = (int64_t)time(NULL);
	pl->info.nmeta = 2;
	pl->info.meta_keys = keys;
	pl->info.meta_values = values;
	pl->info.nplayer_seeds = a->players;
	pl->info.player_seeds = (const uint8_t(*)[RPL_DEAL_SEED_SIZE])pl->pseeds;
	if (rpl_deal_commit_match(pl->commitment, pl->dseed, &pl->info) != 0) {
		brp_error(name, "the commitment cannot be computed");
		return -1;
	}
	pl->info.commitment = pl->commitment;
	if (rpl_game_new(&pl->g, rules, a->players, pl->info.first_dealer) != 0 || !(pl->scratch = rpl_game_clone(pl->g)) ||
	    !(pl->item = malloc(sizeof *pl->item))) {
		brp_error(name, "out of memory");
		return -1;
	}
	if (a->out_path && rpl_recorder_open(&pl->rec, a->out_path, &pl->info, 0) != 0) {
		const char *m = pl->rec ? rpl_recorder_errmsg(pl->rec) : "";
		brp_error(name, "cannot record into %s: %s", a->out_path, m[0] ? m : "out of memory");
		return -1;
	}
	return 0;
}

/* The match's end: the totals and the winner, claimed in the log. 0, or -1 (said). */
static int match_over(struct play *pl)
{
	int32_t total[2] = { rpl_game_total(pl->g, 0), rpl_game_total(pl->g, 1) };
	int w = rpl_game_winner(pl->g);

	printf("match over: side 0 %d, side 1 %d: ", (int)total[0], (int)total[1]);
	if (w < 0)
		puts("no winner");
	else
		puts(w == pl->a->seat % 2 ? "your side wins" : "your side loses");
	if (pl->rec && rpl_recorder_claim(pl->rec, 0, total) != 0) {
		brp_error(name, "%s: %s", pl->a->out_path, rpl_recorder_errmsg(pl->rec));
		return -1;
	}
	return 0;
}

/* The log closed with the seed revealed, so that its deals can be checked: 0, or -1 (said). */
static int play_close(struct play *pl)
{
	if (!pl->rec)
		return 0;
	if (rpl_recorder_seed(pl->rec, pl->dseed) != 0 || rpl_recorder_close(pl->rec) != 0) {
		brp_error(name, "cannot close %s: %s", pl->a->out_path, rpl_recorder_errmsg(pl->rec));
		return -1;
	}
	return 0;
}

int cmd_play(int argc, char **argv)
{
	struct play_args a = {
		.players = 4, .bot = BOT_GREEDY, .samples = SEARCH_SAMPLES, .target = -1, .player = "player"
	};
	struct play *pl = NULL;
	rpl_rules *rules = NULL;
	char meta_seed[32];
	const char *keys[2] = { "platform", "seed" }, *values[2] = { "brp play", meta_seed };
	int rc, e = STEP_ON;

	if ((rc = play_args_parse(&a, argc, argv)) >= 0)
		goto cleanup;
	if ((rc = play_rules(&a, &rules)) >= 0)
		goto cleanup;
	rc = BRP_EXIT_FAIL;
	if (!a.seed_given) {
		uint8_t r[RPL_DEAL_SEED_SIZE];
		if (rpl_deal_seed_random(r) != 0) {
			brp_error(name, "no random seed could be had: give --seed S");
			goto cleanup;
		}
		for (int i = 0; i < 8; i++)
			a.seed = a.seed << 8 | r[i];
	}
	snprintf(meta_seed, sizeof meta_seed, "%llu", (unsigned long long)a.seed);
	if (!(pl = calloc(1, sizeof *pl))) {
		brp_error(name, "out of memory");
		goto cleanup;
	}
	pl->a = &a;
	pl->tty = isatty(STDIN_FILENO);
	if (play_start(pl, rules, keys, values) < 0)
		goto cleanup;
	printf("brp play: %s, %d players; you are seat %d (side %d); the bots: %s", rpl_rules_profile(rules), a.players,
	       a.seat, a.seat % 2, bot_kinds[a.bot]);
	if (a.bot == BOT_SEARCH)
		printf(", %d samples a decision", a.samples);
	putchar('\n');
	while (rpl_game_phase(pl->g) != RPL_PHASE_MATCH_OVER && (e = play_deal(pl)) == STEP_ON)
		;
	if (e == STEP_FAIL)
		goto cleanup;
	if (e == STEP_QUIT)
		printf("quit in deal %d, turn %d\n", rpl_game_deal_number(pl->g), rpl_game_turn_number(pl->g));
	else if (match_over(pl) < 0)
		goto cleanup;
	if (play_close(pl) < 0)
		goto cleanup;
	if (!a.seed_given)
		printf("the seed was %s: --seed %s plays these deals again\n", meta_seed, meta_seed);
	rc = BRP_EXIT_OK;
cleanup:
	if (pl) {
		rpl_recorder_free(pl->rec);
		rpl_game_free(pl->g);
		rpl_game_free(pl->scratch);
		for (int s = 0; s < RPL_MAX_SEATS; s++)
			rpl_bot_free(pl->bots[s]);
		rpl_notation_parser_free(pl->parser);
		free(pl->item);
		free(pl->legal);
		free(pl);
	}
	rpl_rules_free(rules);
	brp_rules_opts_free(&a.ro);
	return rc;
}
