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

#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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
	      "\n"
	      "  -o, --output FILE         the log to write (required)\n"
	      "  -r, --rules PROFILE       rule profile: kzv, stbl or aberto (default stbl)\n"
	      "  -s, --set NAME=VALUE      override a rule parameter (repeatable)\n"
	      "  -p, --players N           2 or 4 (default 4)\n"
	      "      --seat I=NAME         the name of seat I (repeatable)\n"
	      "      --first-dealer S      the seat that deals first (default: the last\n"
	      "                            seat, so that seat 0 moves first)\n"
	      "      --start TIME          when the match began, e.g. 2026-11-30T01:58:23Z\n"
	      "      --meta KEY=VALUE      free-form metadata (repeatable, in order)\n"
	      "  -k, --key FILE            sign as it writes: a signature at every flush (a\n"
	      "                            killed recording leaves a signed prefix), one over\n"
	      "                            the whole log at the close\n"
	      "      --passphrase-fd N     read the key's passphrase from file descriptor N\n"
	      "  -h, --help                print this help and exit\n"
	      "\n"
	      "Exit status: 0 every line was taken, 1 some line was refused or not taken,\n"
	      "2 a usage error or a log that cannot be written.\n", f);
}

/* A small number option in lo..hi; -1 (with a message) otherwise. */
static int number_opt(const char *opt, const char *v, int lo, int hi)
{
	char *end;
	long n = strtol(v, &end, 10);

	if (!*v || *end || n < lo || n > hi) {
		brp_error(name, "%s wants a number from %d to %d, not '%s'", opt, lo, hi, v);
		return -1;
	}
	return (int)n;
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

static void answer(const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;

static void answer(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

/* End an answer about decision k of a turn line: the decisions after it were not recorded. */
static void not_recorded(const rpl_notation_item *it, size_t k)
{
	char text[128];

	for (size_t i = k + 1; it->kind == RPL_NOTATION_TURN && i < it->nactions; i++) {
		rpl_action_format(&it->actions[i], text, sizeof text);
		printf("%s%s", i == k + 1 ? "; not recorded: " : ", ", text);
	}
	answer("%s", "");
}

/*
 * A refused decision: the rule and the recorder's message. A decision the
 * cards do not allow (a card not in the hand) is caught by the card
 * bookkeeping before the engine; the engine still names its rule.
 */
static void refused_turn(rpl_recorder *rec, const rpl_notation_item *it, size_t k)
{
	int rule = rpl_recorder_rule(rec);
	const rpl_game *g = rpl_recorder_game(rec);

	if (rule == RPL_RULE_NONE && g)
		rpl_game_check(g, &it->actions[k], &rule);
	printf("refused: %s: %s", rpl_rule_name(rule), rpl_recorder_errmsg(rec));
	not_recorded(it, k);
}

int cmd_record(int argc, char **argv)
{
	enum { OPT_SEAT = 256, OPT_FIRST_DEALER, OPT_START, OPT_META, OPT_PASSFD };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "rules", required_argument, NULL, 'r' },
		{ "set", required_argument, NULL, 's' },
		{ "players", required_argument, NULL, 'p' },
		{ "seat", required_argument, NULL, OPT_SEAT },
		{ "first-dealer", required_argument, NULL, OPT_FIRST_DEALER },
		{ "start", required_argument, NULL, OPT_START },
		{ "meta", required_argument, NULL, OPT_META },
		{ "key", required_argument, NULL, 'k' },
		{ "passphrase-fd", required_argument, NULL, OPT_PASSFD },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out_path = NULL, *profile = NULL, *dealer_opt = NULL, *keyfile = NULL;
	int passfd = -1;
	rpl_seckey *key = NULL;
	const char *seat_name[RPL_MAX_SEATS] = { NULL };
	char **sets = NULL, **metas = NULL, **keys = NULL, **values = NULL;
	int nsets = 0, nmeta = 0, players = 4, first_dealer, c, e, fe, bad = 0, closed = 0;
	int rc = BRP_EXIT_USAGE;
	rpl_rules *rules = NULL;
	rpl_recorder *rec = NULL;
	rpl_notation_parser *p = NULL;
	rpl_notation_item *it = NULL;
	rpl_match_info info;
	int64_t start = 0;
	char *line = NULL;
	const size_t cap = RPL_NOTATION_MAX_LINE + 2;
	size_t len;

	memset(&info, 0, sizeof info);
	sets = calloc((size_t)argc, sizeof *sets);
	metas = calloc((size_t)argc, sizeof *metas);
	keys = calloc((size_t)argc, sizeof *keys);
	values = calloc((size_t)argc, sizeof *values);
	it = malloc(sizeof *it);
	line = malloc(cap);
	if (!sets || !metas || !keys || !values || !it || !line) {
		brp_error(name, "out of memory");
		goto cleanup;
	}
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:r:s:p:k:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': out_path = optarg; break;
		case 'r': profile = optarg; break;
		case 's': sets[nsets++] = optarg; break;
		case 'p':
			if ((players = number_opt("--players", optarg, 2, 4)) < 0)
				goto cleanup;
			if (players == 3) {
				brp_error(name, "--players wants 2 or 4, not 3");
				goto cleanup;
			}
			break;
		case OPT_SEAT: {
			const char *eq = strchr(optarg, '=');
			int s;
			if (!eq || eq - optarg != 1 || optarg[0] < '0' || optarg[0] > '3') {
				brp_error(name, "--seat wants I=NAME with I a seat from 0 to 3, not '%s'", optarg);
				goto cleanup;
			}
			s = optarg[0] - '0';
			seat_name[s] = eq + 1;
			break;
		}
		case OPT_FIRST_DEALER: dealer_opt = optarg; break;
		case 'k': keyfile = optarg; break;
		case OPT_PASSFD:
			if (brp_parse_fd(name, optarg, &passfd) < 0)
				goto cleanup;
			break;
		case OPT_START:
			if (rpl_notation_time_parse(optarg, &start) < 0 || start == 0) {
				brp_error(name, "--start wants a UTC time such as 2026-11-30T01:58:23Z, not '%s'", optarg);
				goto cleanup;
			}
			break;
		case OPT_META: {
			const char *eq = strchr(optarg, '=');
			if (!eq || eq == optarg) {
				brp_error(name, "--meta wants KEY=VALUE, not '%s'", optarg);
				goto cleanup;
			}
			metas[nmeta++] = optarg;
			break;
		}
		case 'h':
			usage(stdout);
			rc = BRP_EXIT_OK;
			goto cleanup;
		default:
			rc = brp_bad_option(name, c, argv);
			goto cleanup;
		}
	}
	if (optind != argc) {
		brp_error(name, "unexpected argument '%s': the match is read from stdin", argv[optind]);
		goto cleanup;
	}
	if (!out_path) {
		brp_error(name, "no log to write: give -o FILE.brp");
		goto cleanup;
	}
	first_dealer = players - 1;
	if (dealer_opt && (first_dealer = number_opt("--first-dealer", dealer_opt, 0, players - 1)) < 0)
		goto cleanup;
	for (int s = players; s < RPL_MAX_SEATS; s++)
		if (seat_name[s]) {
			brp_error(name, "--seat %d: there is no seat %d with %d players", s, s, players);
			goto cleanup;
		}
	if (brp_rules_make(name, profile, sets, nsets, &rules) < 0)
		goto cleanup;
	for (int i = 0; i < nmeta; i++) {
		char *eq = strchr(metas[i], '=');
		size_t k = (size_t)(eq - metas[i]);
		keys[i] = malloc(k + 1);
		if (!keys[i]) {
			brp_error(name, "out of memory");
			goto cleanup;
		}
		memcpy(keys[i], metas[i], k);
		keys[i][k] = '\0';
		values[i] = eq + 1;
	}
	info.rules = rules;
	info.nplayers = players;
	for (int s = 0; s < RPL_MAX_SEATS; s++)
		info.players[s] = seat_name[s];
	info.first_dealer = first_dealer;
	info.start_time = start;
	info.nmeta = (size_t)nmeta;
	info.meta_keys = (const char *const *)keys;
	info.meta_values = (const char *const *)values;

	if (rpl_notation_parser_new(&p) < 0 || rpl_notation_parser_set_players(p, players) < 0) {
		brp_error(name, "out of memory");
		goto cleanup;
	}
	if (keyfile && brp_seckey_open(name, keyfile, passfd, &key) < 0)
		goto cleanup;
	e = rpl_recorder_open_signed(&rec, out_path, &info, 0, key);
	if (e < 0) {
		const char *m = rec ? rpl_recorder_errmsg(rec) : "";
		brp_error(name, "cannot record into %s: %s", out_path, *m ? m : rpl_strerror(e));
		goto cleanup;
	}

	while (!closed && read_line(stdin, line, cap, &len)) {
		size_t recorded = 0;

		e = rpl_notation_parser_line(p, line, len, it);
		if (e < 0) {
			answer("error: %s", rpl_notation_parser_errmsg(p));
			bad = 1;
			continue;
		}
		switch (it->kind) {
		case RPL_NOTATION_BLANK: continue;
		case RPL_NOTATION_TAG:
			answer("error: line %d: tags cannot be recorded: give the header as options (see brp record --help)",
			       it->line);
			bad = 1;
			continue;
		case RPL_NOTATION_END:
			if (it->recovered) {
				answer("error: line %d: 'end recovered' is for logs salvaged by brp recover", it->line);
				bad = 1;
				continue;
			}
			closed = 1;
			continue; /* answered once the log is closed */
		default: break;
		}
		e = rpl_notation_record(p, rec, it, &recorded);
		if (e == RPL_EIO || e == RPL_ENOMEM) {
			brp_error(name, "%s: %s", out_path, rpl_notation_parser_errmsg(p));
			goto cleanup;
		}
		/*
		 * What was taken reaches the file before the line is answered: a
		 * driver that has read the answer may count on it surviving a crash.
		 */
		fe = rpl_recorder_flush(rec);
		if (fe < 0) {
			brp_error(name, "%s: %s", out_path, rpl_recorder_errmsg(rec));
			goto cleanup;
		}
		if (e == RPL_EILLEGAL || (e == RPL_EINVAL && it->kind == RPL_NOTATION_TURN)) {
			if (it->kind == RPL_NOTATION_TURN)
				refused_turn(rec, it, recorded);
			else
				answer("refused: %s: %s", rpl_rule_name(rpl_recorder_rule(rec)), rpl_recorder_errmsg(rec));
			bad = 1;
		} else if (e < 0) {
			printf("error: %s", rpl_notation_parser_errmsg(p));
			not_recorded(it, recorded);
			bad = 1;
		} else if (it->kind == RPL_NOTATION_DEAL || it->kind == RPL_NOTATION_HAND ||
		           it->kind == RPL_NOTATION_MORTO) {
			answer("kept"); /* the stock line writes the deal */
		} else {
			answer("ok");
		}
	}
	if (ferror(stdin)) {
		brp_error(name, "cannot read stdin");
		goto cleanup;
	}
	if (rpl_notation_parser_finish(p) < 0) {
		answer("error: %s", rpl_notation_parser_errmsg(p));
		bad = 1;
	}
	e = rpl_recorder_close(rec);
	if (e < 0) {
		brp_error(name, "cannot close %s: %s", out_path, rpl_recorder_errmsg(rec));
		goto cleanup;
	}
	if (closed)
		answer("ok");
	rc = bad ? BRP_EXIT_NO : BRP_EXIT_OK;
cleanup:
	free(line);
	rpl_recorder_free(rec);
	rpl_seckey_free(key);
	rpl_notation_parser_free(p);
	rpl_rules_free(rules);
	for (int i = 0; keys && i < nmeta; i++)
		free(keys[i]);
	free(keys);
	free(values);
	free(metas);
	free(sets);
	free(it);
	return rc;
}
