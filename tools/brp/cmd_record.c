/*
 * brp record: record a match as it is played, from notation lines on stdin.
 *
 * One answer line on stdout for every input line that holds something
 * (blank lines and comments get none), flushed at once, so that a program
 * driving brp can read one answer per line it writes:
 *   ok                          the line was taken and is in the file
 *   kept                        a deal, hand or morto line: held until the deal
 *                               block's stock line writes the deal (a kill before
 *                               that loses it)
 *   refused: RULE: MESSAGE      a decision or a deal the rules engine refused
 *   error: MESSAGE              a line that cannot be taken (syntax, wrong seat...)
 */
#include "brp.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const name = "record";

static void usage(FILE *f)
{
	fputs("Usage: brp record -o FILE.brp [OPTION]...\n"
	      "Record a match as it is played. Read text notation (docs/notation.md) from\n"
	      "stdin: deal blocks (deal N, hand S:, morto I:, stock:), turn lines\n"
	      "(N. S: draw, meld 5h 6h 7h, discard Kd), claims, and 'end'. Each decision\n"
	      "is checked by the rules engine; a refused one is not recorded, and neither\n"
	      "is the rest of its line: the decisions before it on the line are kept, so\n"
	      "the turn goes on with a line that repeats the turn number and the seat.\n"
	      "The log is flushed after every line and closed at 'end' or at the end of\n"
	      "the input. The header comes from the options, not from tags. A line holds\n"
	      "at most 65536 bytes; a longer one is answered with an error and skipped.\n"
	      "\n"
	      "Each input line that is not blank or a comment gets one answer on stdout:\n"
	      "  ok                       taken, and in the file: it survives a crash\n"
	      "  kept                     a deal, hand or morto line, held until the\n"
	      "                           block's stock line: that line's ok writes the\n"
	      "                           deal; a crash before it loses the block\n"
	      "  refused: RULE: MESSAGE   refused by the rules (RULE is a stable code);\n"
	      "                           '; not recorded: ...' lists the rest of the line\n"
	      "  error: MESSAGE           not taken: a syntax error, a wrong seat or turn\n"
	      "A line not taken inside a deal block leaves the block's earlier lines kept:\n"
	      "its answer ends with what the block keeps and the line it expects next\n"
	      "(send that line again, corrected). A refused layout (at the stock line)\n"
	      "keeps nothing of the block: the answer names each card that is there too\n"
	      "often or too seldom and its lines; send the block again from 'deal N'.\n"
	      "\n"
	      "At a keyboard (standard input a terminal), brp record prompts on stderr\n"
	      "before each line with whose turn it is and what the game waits for:\n"
	      "  deal 1, deal block: 'hand 2:' next>\n"
	      "  deal 1, turn 3: seat 2 (Caio) to draw or take the pile>\n"
	      "  deal 1, turn 3: seat 2 (Caio) to meld, add or discard>\n"
	      "Type a deal block (deal N, a hand line a seat, morto 0, morto 1, stock),\n"
	      "then one line a turn or a part of one; 'end' or Ctrl-D closes the log.\n"
	      "Piped, there is no prompt: one answer a line, at once.\n"
	      "\n",
	      f);
	fputs("  -o, --output FILE         the log to write (required)\n"
	      "  -r, --rules PROFILE       rule profile: kzv, stbl or aberto (default stbl)\n"
	      "  -s, --set NAME=VALUE      override a rule parameter (repeatable)\n"
	      "  -p, --players N           2 or 4 (default 4)\n"
	      "      --seat I=NAME         the name of seat I (repeatable)\n"
	      "      --first-dealer S      the seat that deals first (default: the last\n"
	      "                            seat, so that seat 0 moves first)\n"
	      "      --start TIME          when the match began, e.g. 2026-11-30T01:58:23Z\n"
	      "      --meta KEY=VALUE      free-form metadata (repeatable, in order)\n"
	      "      --commitment HEX      a committed deal (docs/format.md section 18): the\n"
	      "                            platform's commitment to its seed and the match's\n"
	      "                            terms, 64 hex digits (brp deal prints it);\n"
	      "                            every layout must be the one the seed derives, and\n"
	      "                            a 'seed HEX' line reveals the seed (at the start,\n"
	      "                            or when the match ends), which the recorder checks\n"
	      "      --player-seed HEX     with --commitment: a seed a player added (64 hex\n"
	      "                            digits; repeatable, one a seat at most)\n"
	      "      --commitment-version N  with --commitment: the protocol the commitment\n"
	      "                            follows, 2 (the seed and the match's terms; the\n"
	      "                            default) or 1 (the seed alone: format version 3)\n"
	      "  -k, --key FILE            sign as it writes: a signature at every flush (a\n"
	      "                            killed recording leaves a signed prefix), one over\n"
	      "                            the whole log at the close\n"
	      "      --passphrase-fd N     with -k: read the passphrase from file descriptor N\n"
	      "      --json                each answer as one JSON object on its line:\n"
	      "                            line, answer (ok, kept, refused, error), rule,\n"
	      "                            message, recorded and not_recorded (turn lines),\n"
	      "                            note (what a deal block keeps)\n"
	      "  -h, --help                print this help and exit\n"
	      "\n"
	      "Exit status: 0 every line was taken, 1 some line was refused or not taken,\n"
	      "2 a usage error, 3 a log that cannot be written or a key that cannot be read.\n",
	      f);
}

/*
 * The next line of f into buf (cap = RPL_NOTATION_MAX_LINE + 2 bytes, the
 * line and its line break): 1 with *len, 0 at the end of the input. A longer
 * line is kept cut at cap bytes, for the parser to refuse, and the rest of it
 * is read and dropped: memory never grows with a line.
 */
static int read_line(FILE *f, char *buf, size_t cap, size_t *len)
{
	size_t n = 0;
	int c = EOF;

	while (n < cap && (c = getc(f)) != EOF) {
		buf[n++] = (char)c;
		if (c == '\n')
			break;
	}
	if (n == cap && c != '\n')
		while ((c = getc(f)) != EOF && c != '\n')
			;
	*len = n;
	return n > 0;
}

/*
 * How answers are written, and the deal block being read: brp record keeps
 * the cards and lines of the block itself, to say what a bad line leaves
 * kept and which cards make a refused layout.
 */
struct rec_out {
	int json; /* one JSON object an answer */
	int tty;  /* standard input is a terminal: prompts on stderr */
	int players;
	const char *const *names;    /* by seat, NULL or "" unnamed */
	int block_deal;              /* the deal of the open block; 0 when none is open */
	int block_first, block_last; /* its first and last line kept */
	int block_next;              /* what it expects: 0..3 hand S, 4 morto 0, 5 morto 1, 6 stock */
	int hand_line[RPL_MAX_SEATS], morto_line[2], stock_line;
	rpl_card hand[RPL_MAX_SEATS][RPL_HAND_SIZE], morto[2][RPL_MORTO_SIZE];
	rpl_card stock[RPL_STOCK_SIZE(2)];
};

#define NOTE_SIZE 512

/* The line the open block expects next, as the notation writes it. */
static void block_next_name(const struct rec_out *o, char *buf, size_t size)
{
	if (o->block_next < RPL_MAX_SEATS)
		snprintf(buf, size, "'hand %d:'", o->block_next);
	else if (o->block_next < 6)
		snprintf(buf, size, "'morto %d:'", o->block_next - 4);
	else
		snprintf(buf, size, "'stock:'");
}

/* What the open deal block keeps after a line that was not taken: into note. */
static void block_kept_note(const struct rec_out *o, char *note)
{
	char want[32];

	block_next_name(o, want, sizeof want);
	if (o->block_first == o->block_last)
		snprintf(note, NOTE_SIZE, "deal %d's block keeps line %d; next: %s", o->block_deal, o->block_first, want);
	else
		snprintf(note, NOTE_SIZE, "deal %d's block keeps lines %d-%d; next: %s", o->block_deal, o->block_first,
		         o->block_last, want);
}

/* Append to note (cut at NOTE_SIZE). */
static void note_add(char *note, const char *fmt, ...)
#if defined(__GNUC__)
		__attribute__((format(printf, 2, 3)))
#endif
		;

static void note_add(char *note, const char *fmt, ...)
{
	size_t len = strlen(note);
	va_list ap;

	if (len + 1 >= NOTE_SIZE)
		return;
	va_start(ap, fmt);
	vsnprintf(note + len, NOTE_SIZE - len, fmt, ap);
	va_end(ap);
}

/*
 * A refused layout (its stock line): nothing of the block is kept. Which
 * cards it holds too often or too seldom, and on which lines, into note.
 */
static void layout_note(const struct rec_out *o, char *note)
{
	int count[RPL_NFACES] = { 0 }, nstock = RPL_STOCK_SIZE(o->players), wrong = 0;
	const rpl_card *line_cards[RPL_MAX_SEATS + 3];
	int line_n[RPL_MAX_SEATS + 3], line_no[RPL_MAX_SEATS + 3], nlines = 0;

	for (int s = 0; s < o->players; s++) {
		line_cards[nlines] = o->hand[s];
		line_n[nlines] = RPL_HAND_SIZE;
		line_no[nlines++] = o->hand_line[s];
	}
	for (int m = 0; m < 2; m++) {
		line_cards[nlines] = o->morto[m];
		line_n[nlines] = RPL_MORTO_SIZE;
		line_no[nlines++] = o->morto_line[m];
	}
	line_cards[nlines] = o->stock;
	line_n[nlines] = nstock;
	line_no[nlines++] = o->stock_line;
	for (int l = 0; l < nlines; l++)
		for (int i = 0; i < line_n[l]; i++)
			if (line_cards[l][i] < RPL_NFACES)
				count[line_cards[l][i]]++;
	snprintf(note, NOTE_SIZE, "nothing of deal %d is kept (lines %d-%d)", o->block_deal, o->block_first, o->block_last);
	for (int c = 0; c < RPL_NFACES; c++) {
		int on[RPL_MAX_SEATS + 3], n = 0;
		if (count[c] == rpl_card_copies((rpl_card)c))
			continue;
		for (int l = 0; l < nlines; l++)
			if (memchr(line_cards[l], c, (size_t)line_n[l]))
				on[n++] = line_no[l];
		note_add(note, "%s%s %d time%s of %d", wrong++ ? "; " : ": ", rpl_card_name((rpl_card)c), count[c],
		         count[c] == 1 ? "" : "s", rpl_card_copies((rpl_card)c));
		for (int i = 0; i < n; i++)
			note_add(note, "%s%d%s", i ? ", " : n == 1 ? " (line " : " (lines ", on[i], i + 1 == n ? ")" : "");
	}
	note_add(note, "; send the block again from 'deal %d'", o->block_deal);
}

/*
 * One answer, written and flushed at once. kind: "ok", "kept", "refused" or
 * "error"; rule (refused) and message (refused, error); it: the turn line
 * whose decisions from k + 1 on were not recorded (NULL: none); note: what
 * the deal block keeps ("" none). Text: one line as brp record --help says;
 * JSON: one object with the same content.
 */
static void reply(const struct rec_out *o, int line, const char *kind, const char *rule, const char *message,
                  const rpl_notation_item *it, size_t k, const char *note)
{
	char text[128];
	int turn = it && it->kind == RPL_NOTATION_TURN;

	if (o->json) {
		printf("{\"line\":%d,\"answer\":\"%s\"", line, kind);
		if (rule) {
			fputs(",\"rule\":", stdout);
			brp_json_string(stdout, rule);
		}
		if (message) {
			fputs(",\"message\":", stdout);
			brp_json_string(stdout, message);
		}
		if (turn) {
			printf(",\"recorded\":%zu,\"not_recorded\":[", k);
			for (size_t i = k + 1; i < it->nactions; i++) {
				rpl_action_format(&it->actions[i], text, sizeof text);
				if (i > k + 1)
					putchar(',');
				brp_json_string(stdout, text);
			}
			putchar(']');
		}
		if (note && note[0]) {
			fputs(",\"note\":", stdout);
			brp_json_string(stdout, note);
		}
		fputs("}\n", stdout);
	} else {
		fputs(kind, stdout);
		if (rule)
			printf(": %s", rule);
		if (message)
			printf(": %s", message);
		for (size_t i = k + 1; turn && i < it->nactions; i++) {
			rpl_action_format(&it->actions[i], text, sizeof text);
			printf("%s%s", i == k + 1 ? "; not recorded: " : ", ", text);
		}
		if (note && note[0])
			printf("; %s", note);
		putchar('\n');
	}
	fflush(stdout);
}

/* The rule of a refused decision: a card not held is caught by the card bookkeeping; the engine names its rule. */
static const char *refused_rule(rpl_recorder *rec, const rpl_notation_item *it, size_t k)
{
	int rule = rpl_recorder_rule(rec);
	const rpl_game *g = rpl_recorder_game(rec);

	if (rule == RPL_RULE_NONE && g && it->kind == RPL_NOTATION_TURN)
		rpl_game_check(g, &it->actions[k], &rule);
	return rpl_rule_name(rule);
}

/* A terminal's prompt on stderr: whose turn it is and what it waits for. */
static void prompt(const struct rec_out *o, const rpl_recorder *rec)
{
	const rpl_game *g = rpl_recorder_game(rec);
	int phase = rpl_game_phase(g), seat = rpl_game_seat(g), deal = rpl_game_deal_number(g);
	char want[32];

	if (o->block_deal) {
		block_next_name(o, want, sizeof want);
		fprintf(stderr, "deal %d, deal block: %s next> ", o->block_deal, want);
		return;
	}
	switch (phase) {
	case RPL_PHASE_NO_DEAL:
	case RPL_PHASE_DEAL_OVER:
		fprintf(stderr, "%s'deal %d', then a hand line a seat, 'morto 0:', 'morto 1:', 'stock:'> ",
		        phase == RPL_PHASE_DEAL_OVER ? "deal over: a claim, or " : "", deal + 1);
		return;
	case RPL_PHASE_MATCH_OVER: fputs("match over: claims, then 'end'> ", stderr); return;
	default: break;
	}
	fprintf(stderr, "deal %d, turn %d: seat %d", deal,
	        rpl_recorder_turn(rec, phase == RPL_PHASE_DRAW ? RPL_ACT_DRAW : RPL_ACT_DISCARD), seat);
	if (seat >= 0 && seat < RPL_MAX_SEATS && o->names[seat] && o->names[seat][0]) {
		fputs(" (", stderr);
		brp_text(stderr, o->names[seat]);
		fputc(')', stderr);
	}
	fputs(phase == RPL_PHASE_DRAW    ? " to draw or take the pile> "
	      : phase == RPL_PHASE_MORTO ? " to pick up a morto> "
	                                 : " to meld, add or discard> ",
	      stderr);
}

/* After an item was taken (e == 0): the block's bookkeeping. */
static void block_taken(struct rec_out *o, const rpl_notation_item *it, int line)
{
	switch (it->kind) {
	case RPL_NOTATION_DEAL:
		o->block_deal = it->number;
		o->block_first = o->block_last = line;
		o->block_next = 0;
		break;
	case RPL_NOTATION_HAND:
		memcpy(o->hand[it->number], it->cards, RPL_HAND_SIZE);
		o->hand_line[it->number] = line;
		o->block_last = line;
		o->block_next = it->number + 1 < o->players ? it->number + 1 : 4;
		break;
	case RPL_NOTATION_MORTO:
		memcpy(o->morto[it->number], it->cards, RPL_MORTO_SIZE);
		o->morto_line[it->number] = line;
		o->block_last = line;
		o->block_next = it->number == 0 ? 5 : 6;
		break;
	default: break;
	}
}

/* What the command line says: the log, the signing key, and the match's header. */
struct record_args {
	struct brp_rules_opts ro;
	struct brp_table_opts table;
	const char *out_path, *keyfile;
	int passfd, commit_version, json;
	char **metas; /* the --meta KEY=VALUE as given, argc of room */
	int nmeta;
	int64_t start;
	uint8_t commitment[RPL_DEAL_COMMIT_SIZE], pseeds[RPL_DEAL_MAX_PLAYER_SEEDS][RPL_DEAL_SEED_SIZE];
	int committed, npseeds;
};

/* What the options say together, first the index of the first operand: -1 when they agree, else BRP_EXIT_USAGE (said). */
static int record_args_check(struct record_args *a, int argc, char **argv, int first)
{
	if (first != argc) {
		brp_error(name, "unexpected argument '%s': the match is read from stdin", argv[first]);
		return BRP_EXIT_USAGE;
	}
	if (!a->out_path) {
		brp_error(name, "no log to write: give -o FILE.brp");
		return BRP_EXIT_USAGE;
	}
	if (a->npseeds && !a->committed) {
		brp_error(name, "--player-seed needs --commitment: players' seeds belong to a committed deal");
		return BRP_EXIT_USAGE;
	}
	if (a->commit_version && !a->committed) {
		brp_error(name, "--commitment-version needs --commitment");
		return BRP_EXIT_USAGE;
	}
	if (a->passfd >= 0 && !a->keyfile) {
		brp_error(name, "--passphrase-fd needs -k KEY");
		return BRP_EXIT_USAGE;
	}
	if (brp_table_finish(name, &a->table) != 0)
		return BRP_EXIT_USAGE;
	return -1;
}

/* The options into *a: -1 when the command goes on, else the code it exits with (said). */
static int record_args_parse(struct record_args *a, int argc, char **argv)
{
	enum { OPT_START = BRP_OPT_OWN, OPT_META, OPT_COMMITMENT, OPT_PLAYER_SEED, OPT_COMMIT_VERSION };
	static const struct brp_opt opts[] = {
		{ "output", 1, 'o', 0, 0 },
		BRP_OPT_RULES,
		BRP_OPT_SET,
		BRP_OPT_PLAYERS,
		BRP_OPT_SEAT_ROW,
		BRP_OPT_FIRST_DEALER_ROW,
		{ "start", 1, OPT_START, 0, 0 },
		{ "meta", 1, OPT_META, 1, 0 },
		{ "commitment", 1, OPT_COMMITMENT, 0, 0 },
		{ "player-seed", 1, OPT_PLAYER_SEED, 1, 0 },
		{ "commitment-version", 1, OPT_COMMIT_VERSION, 0, 0 },
		{ "key", 1, 'k', 0, 0 },
		BRP_OPT_PASSFD_ROW,
		BRP_OPT_JSON_ROW,
		BRP_OPT_HELP,
		BRP_OPT_END,
	};
	struct brp_getopt g;
	const char *value;
	int c, e;

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
		case 'o':
			if (brp_opt_path(&g, &a->out_path) != 0)
				return BRP_EXIT_USAGE;
			break;
		case BRP_OPT_JSON: a->json = 1; break;
		case 'k':
			if (brp_opt_path(&g, &a->keyfile) != 0)
				return BRP_EXIT_USAGE;
			break;
		case BRP_OPT_PASSFD:
			if (brp_opt_int(&g, 0, 1024, &a->passfd) != 0)
				return BRP_EXIT_USAGE;
			break;
		case OPT_START:
			if (rpl_notation_time_parse(g.arg, &a->start) < 0 || a->start == 0) {
				brp_opt_refuse(&g, "a UTC time such as 2026-11-30T01:58:23Z");
				return BRP_EXIT_USAGE;
			}
			break;
		case OPT_META:
			if (brp_opt_pair(&g, "KEY=VALUE", &value) != 0)
				return BRP_EXIT_USAGE;
			a->metas[a->nmeta++] = (char *)g.arg;
			break;
		case OPT_COMMITMENT:
			if (brp_opt_hex(&g, a->commitment, sizeof(a->commitment)) != 0)
				return BRP_EXIT_USAGE;
			a->committed = 1;
			break;
		case OPT_COMMIT_VERSION:
			if (brp_opt_int(&g, 1, 2, &a->commit_version) != 0)
				return BRP_EXIT_USAGE;
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
		case 'h': usage(stdout); return BRP_EXIT_OK;
		}
	}
	return record_args_check(a, argc, argv, brp_getopt_index(&g));
}

/* The match's header from the options: keys[i] (allocated) and values[i] split from each --meta. 0, or -1 (said). */
static int match_info_make(rpl_match_info *info, const struct record_args *a, const rpl_rules *rules, char **keys,
                           char **values)
{
	for (int i = 0; i < a->nmeta; i++) {
		char *eq = strchr(a->metas[i], '=');
		size_t k = (size_t)(eq - a->metas[i]);
		keys[i] = malloc(k + 1);
		if (!keys[i]) {
			brp_error(name, "out of memory");
			return -1;
		}
		memcpy(keys[i], a->metas[i], k);
		keys[i][k] = '\0';
		values[i] = eq + 1;
	}
	info->rules = rules;
	info->nplayers = a->table.players;
	for (int s = 0; s < RPL_MAX_SEATS; s++)
		info->players[s] = a->table.name[s];
	info->first_dealer = a->table.first_dealer;
	info->start_time = a->start;
	info->nmeta = (size_t)a->nmeta;
	info->meta_keys = (const char *const *)keys;
	info->meta_values = (const char *const *)values;
	if (a->committed) {
		info->commitment = a->commitment;
		info->nplayer_seeds = a->npseeds;
		info->player_seeds = (const uint8_t(*)[RPL_DEAL_SEED_SIZE])a->pseeds;
		info->commit_version = a->commit_version;
	}
	return 0;
}

/* The recorder of the log, signing with the key when one is given (*key, which the caller frees): 0, or -1 (said). */
static int recorder_open(rpl_recorder **rec, rpl_seckey **key, const struct record_args *a, const rpl_match_info *info)
{
	int e;

	if (a->keyfile && brp_seckey_open(name, a->keyfile, a->passfd, key) < 0)
		return -1;
	e = rpl_recorder_open_signed(rec, a->out_path, info, 0, *key);
	if (e < 0) {
		const char *m = *rec ? rpl_recorder_errmsg(*rec) : "";
		brp_error(name, "cannot record into %s: %s", a->out_path, *m ? m : rpl_strerror(e));
		return -1;
	}
	return 0;
}

/* What became of an input line. */
enum { LINE_TAKEN, LINE_NOT_TAKEN, LINE_END };

/*
 * One input line: parsed, recorded, flushed and answered. LINE_END for an
 * 'end' (answered once the log is closed), -1 for a failure that stops the
 * command (said).
 */
static int record_line(struct rec_out *out, rpl_notation_parser *p, rpl_recorder *rec, rpl_notation_item *it,
                       const char *out_path, const char *line, size_t len, int lineno)
{
	size_t recorded = 0;
	char msg[RPL_ERRMSG_SIZE + 64], note[NOTE_SIZE];
	int e, fe;

	note[0] = '\0';
	e = rpl_notation_parser_line(p, line, len, it);
	if (e < 0) {
		if (out->block_deal)
			block_kept_note(out, note);
		reply(out, lineno, "error", NULL, rpl_notation_parser_errmsg(p), NULL, 0, note);
		return LINE_NOT_TAKEN;
	}
	switch (it->kind) {
	case RPL_NOTATION_BLANK: return LINE_TAKEN;
	case RPL_NOTATION_TAG:
		snprintf(msg, sizeof msg,
		         "line %d: tags cannot be recorded: give the header as options (see brp record --help)", it->line);
		reply(out, lineno, "error", NULL, msg, NULL, 0, "");
		return LINE_NOT_TAKEN;
	case RPL_NOTATION_END:
		if (it->recovered) {
			snprintf(msg, sizeof msg, "line %d: 'end recovered' is for logs salvaged by brp recover", it->line);
			reply(out, lineno, "error", NULL, msg, NULL, 0, "");
			return LINE_NOT_TAKEN;
		}
		return LINE_END;
	default: break;
	}
	if (it->kind == RPL_NOTATION_STOCK) {
		memcpy(out->stock, it->cards, it->ncards);
		out->stock_line = out->block_last = lineno;
	}
	e = rpl_notation_record(p, rec, it, &recorded);
	if (e == RPL_EIO || e == RPL_ENOMEM) {
		brp_error(name, "%s: %s", out_path, rpl_notation_parser_errmsg(p));
		return -1;
	}
	/*
	 * What was taken reaches the file before the line is answered: a
	 * driver that has read the answer may count on it surviving a crash.
	 */
	fe = rpl_recorder_flush(rec);
	if (fe < 0) {
		brp_error(name, "%s: %s", out_path, rpl_recorder_errmsg(rec));
		return -1;
	}
	if (it->kind == RPL_NOTATION_STOCK) {
		/* the block ends with its stock line, written or refused as a whole */
		if (e < 0 && out->block_deal)
			layout_note(out, note);
		out->block_deal = 0;
	} else if (e == 0) {
		block_taken(out, it, lineno);
	} else if (it->kind == RPL_NOTATION_DEAL) {
		out->block_deal = 0; /* refused as a whole: the parser expects a new 'deal N' */
	}
	if (e == RPL_EILLEGAL || (e == RPL_EINVAL && it->kind == RPL_NOTATION_TURN)) {
		reply(out, lineno, "refused", refused_rule(rec, it, recorded), rpl_recorder_errmsg(rec), it, recorded, note);
		return LINE_NOT_TAKEN;
	}
	if (e < 0) {
		reply(out, lineno, "error", NULL, rpl_notation_parser_errmsg(p), it, recorded, note);
		return LINE_NOT_TAKEN;
	}
	if (it->kind == RPL_NOTATION_DEAL || it->kind == RPL_NOTATION_HAND || it->kind == RPL_NOTATION_MORTO)
		reply(out, lineno, "kept", NULL, NULL, NULL, 0, ""); /* the stock line writes the deal */
	else
		reply(out, lineno, "ok", NULL, NULL, NULL, 0, "");
	return LINE_TAKEN;
}

int cmd_record(int argc, char **argv)
{
	struct record_args a = { .passfd = -1, .table = BRP_TABLE_INIT };
	rpl_seckey *key = NULL;
	char **keys = NULL, **values = NULL;
	int e, bad = 0, closed = 0;
	int rc = BRP_EXIT_FAIL;
	rpl_rules *rules = NULL;
	rpl_recorder *rec = NULL;
	rpl_notation_parser *p = NULL;
	rpl_notation_item *it = NULL;
	rpl_match_info info;
	char *line = NULL;
	const size_t cap = RPL_NOTATION_MAX_LINE + 2;
	size_t len;
	struct rec_out out;
	int lineno = 0;

	memset(&info, 0, sizeof info);
	memset(&out, 0, sizeof out);
	a.metas = calloc((size_t)argc, sizeof *a.metas);
	keys = calloc((size_t)argc, sizeof *keys);
	values = calloc((size_t)argc, sizeof *values);
	it = malloc(sizeof *it);
	line = malloc(cap);
	if (!a.metas || !keys || !values || !it || !line) {
		brp_error(name, "out of memory");
		goto cleanup;
	}
	if ((rc = record_args_parse(&a, argc, argv)) >= 0)
		goto cleanup;
	out.json = a.json;
	if ((rc = brp_rules_make(name, a.ro.profile, a.ro.sets, a.ro.nsets, &rules)) != 0)
		goto cleanup;
	rc = BRP_EXIT_FAIL;
	if (match_info_make(&info, &a, rules, keys, values) < 0)
		goto cleanup;

	if (rpl_notation_parser_new(&p) < 0 || rpl_notation_parser_set_players(p, a.table.players) < 0) {
		brp_error(name, "out of memory");
		goto cleanup;
	}
	if (recorder_open(&rec, &key, &a, &info) < 0)
		goto cleanup;

	out.players = a.table.players;
	out.names = info.players;
	out.tty = isatty(STDIN_FILENO);
	if (out.tty) {
		fputs("brp record: recording into ", stderr);
		brp_text(stderr, a.out_path);
		fputs("; type the match in text notation, one line at a time: a deal block, then\n"
		      "the turns (brp record --help shows the lines); 'end' or Ctrl-D closes the log.\n",
		      stderr);
	}
	while (!closed) {
		if (out.tty)
			prompt(&out, rec);
		if (!read_line(stdin, line, cap, &len))
			break;
		lineno++;
		e = record_line(&out, p, rec, it, a.out_path, line, len, lineno);
		if (e < 0)
			goto cleanup;
		bad |= e == LINE_NOT_TAKEN;
		closed = e == LINE_END;
	}
	if (out.tty && !closed)
		fputc('\n', stderr); /* Ctrl-D after a prompt */
	if (ferror(stdin)) {
		brp_error(name, "cannot read stdin");
		goto cleanup;
	}
	if (rpl_notation_parser_finish(p) < 0) {
		reply(&out, lineno, "error", NULL, rpl_notation_parser_errmsg(p), NULL, 0, "");
		bad = 1;
	}
	e = rpl_recorder_close(rec);
	if (e < 0) {
		brp_error(name, "cannot close %s: %s", a.out_path, rpl_recorder_errmsg(rec));
		goto cleanup;
	}
	if (closed)
		reply(&out, lineno, "ok", NULL, NULL, NULL, 0, "");
	rc = bad ? BRP_EXIT_NO : BRP_EXIT_OK;
cleanup:
	free(line);
	rpl_recorder_free(rec);
	rpl_seckey_free(key);
	rpl_notation_parser_free(p);
	rpl_rules_free(rules);
	for (int i = 0; keys && i < a.nmeta; i++)
		free(keys[i]);
	free(keys);
	free(values);
	free(a.metas);
	brp_rules_opts_free(&a.ro);
	free(it);
	return rc;
}
