/*
 * The text notation (notation.h, docs/notation.md): the parser line by line
 * (what each line holds, and the exact error with its line and column), the
 * checks against the recorder (seat to move, turn numbers, deal numbers),
 * and the round trips: a log -> text -> log is byte-identical and a
 * canonical text -> log -> text is identical, over matches played at random
 * (fixed seeds) through the rules engine.
 */
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- helpers ---------------------------------------------------------- */

static unsigned char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = (size_t)n;
	}
	fclose(f);
	return buf;
}

struct text {
	char *s;
	size_t n, cap;
};

static int text_put(void *ud, const char *s, size_t n)
{
	struct text *t = ud;

	if (t->n + n + 1 > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 4096;
		while (cap < t->n + n + 1)
			cap *= 2;
		t->s = realloc(t->s, cap);
		assert_non_null(t->s);
		t->cap = cap;
	}
	memcpy(t->s + t->n, s, n);
	t->n += n;
	t->s[t->n] = '\0';
	return 0;
}

/* The canonical text of the log at path. */
static char *dump(const char *path)
{
	rpl_reader *rd = NULL;
	struct text t = { 0 };
	char err[300];
	int rc = rpl_reader_open(&rd, path);

	if (rc < 0)
		tl_fail("rpl_reader_open(%s) = %d: %s", path, rc, rd ? rpl_reader_errmsg(rd) : "");
	rc = rpl_notation_write(rd, text_put, &t, err, sizeof err);
	if (rc < 0)
		tl_fail("rpl_notation_write = %d: %s", rc, err);
	rpl_reader_free(rd);
	return t.s;
}

static void import_ok_at(const char *text, const char *path, const char *file, int line)
{
	char err[400];
	int rc = rpl_notation_import(text, strlen(text), path, err, sizeof err);

	if (rc != 0)
		tl_fail_at(file, line, "rpl_notation_import = %d: %s", rc, err);
}
#define import_ok(text, path) import_ok_at((text), (path), __FILE__, __LINE__)

/* ---- the parser, line by line --------------------------------------------- */

/* A one-line description of a parsed item, to compare with the table. */
static const char *describe(const rpl_notation_item *it)
{
	static char buf[2048];
	char act[128];
	size_t k = 0;

#define ADD(...) (k += (size_t)snprintf(buf + k, sizeof buf - k, __VA_ARGS__))
	buf[0] = '\0';
	switch (it->kind) {
	case RPL_NOTATION_BLANK: ADD("blank"); break;
	case RPL_NOTATION_TAG:
		ADD("tag %s", it->tag);
		for (int i = 0; i < it->nvalues; i++)
			ADD(" [%s]@%d", it->value[i], it->value_column[i]);
		break;
	case RPL_NOTATION_DEAL: ADD("deal %d", it->number); break;
	case RPL_NOTATION_HAND:
	case RPL_NOTATION_MORTO:
	case RPL_NOTATION_STOCK:
		ADD("%s %d:",
		    it->kind == RPL_NOTATION_HAND    ? "hand"
		    : it->kind == RPL_NOTATION_MORTO ? "morto"
		                                     : "stock",
		    it->number);
		for (size_t i = 0; i < it->ncards; i++)
			ADD(" %s", rpl_card_name(it->cards[i]));
		break;
	case RPL_NOTATION_TURN:
		ADD("turn %d seat %d:", it->number, it->seat);
		for (size_t i = 0; i < it->nactions; i++) {
			rpl_action_format(&it->actions[i], act, sizeof act);
			ADD("%s %s@%d", i ? " |" : "", act, it->column[i]);
		}
		break;
	case RPL_NOTATION_CLAIM: ADD("claim %d: %d %d", it->number, (int)it->score[0], (int)it->score[1]); break;
	case RPL_NOTATION_END: ADD(it->recovered ? "end recovered" : "end"); break;
	default: ADD("kind %d", it->kind); break;
	}
#undef ADD
	return buf;
}

#define H11 "Ac Ac 2c 2c 3c 3c 4c 4c 5c 5c 6c"
#define S42 H11 " " H11 " " H11 " 7c 7c 8c 8c 9c 9c 10c 10c 10c"
#define S64 S42 " " H11 " " H11
#define BLOCK4                                                                                                         \
	"deal 1\nhand 0: " H11 "\nhand 1: " H11 "\nhand 2: " H11 "\nhand 3: " H11 "\nmorto 0: " H11 "\nmorto 1: " H11      \
	"\nstock: " S42 "\n"
#define BLOCK2 "deal 1\nhand 0: " H11 "\nhand 1: " H11 "\nmorto 0: " H11 "\nmorto 1: " H11 "\nstock: " S64 "\n"

static const struct parse_case {
	const char *text;   /* lines; every line but the last must parse */
	int rc;             /* of the last line */
	const char *expect; /* describe() of the last line, or the error message */
} parse_cases[] = {
	/* what each kind of line holds */
	{ "", 0, "blank" },
	{ "   \t ; a comment [Notation \"1\"]", 0, "blank" },
	{ "[Notation \"1\"]", 0, "tag Notation [1]@11" },
	{ "[notation \"1\"]\n  [ rule  \"target\"   \"1500\" ] ; overridden", 0, "tag Rule [target]@11 [1500]@22" },
	{ "[Notation \"1\"]\n[Seat \"0\" \"a \\\"b\\\" \\\\ \\xc3\\xa9 \xc3\xa9\"]", 0,
	  "tag Seat [0]@7 [a \"b\" \\ \xc3\xa9 \xc3\xa9]@11" },
	{ "deal 1", 0, "deal 1" },
	{ "DEAL 12\r", 0, "deal 12" },
	{ "deal 1\nhand 0: " H11, 0, "hand 0: Ac Ac 2c 2c 3c 3c 4c 4c 5c 5c 6c" },
	{ "deal 1\nhand 0: " H11 "\nhand 1: " H11 "\nmorto 0: 10h Th T\xe2\x99\xa5 jk JK qS 2d 2d 2d 2d 2d", 0,
	  "morto 0: 10h 10h 10h JK JK Qs 2d 2d 2d 2d 2d" },
	{ BLOCK4 "1. 0: draw, discard 7h", 0, "turn 1 seat 0: draw@7 | discard 7h@13" },
	{ BLOCK2 "64. 1: draw, discard 7h", 0, "turn 64 seat 1: draw@8 | discard 7h@14" },
	{ BLOCK4 "12. 3: TAKE, Meld 5H 6h 7\xe2\x99\xa5 >,add 1.0 8h <, discard Td ; why", 0,
	  "turn 12 seat 3: take@8 | meld 5h 6h 7h >@14 | add 1.0 8h <@30 | discard 10d@44" },
	{ BLOCK4 "3:draw,meld 3s 4s 5s,morto 0,reject,discard 2c", 0,
	  "turn 0 seat 3: draw@3 | meld 3s 4s 5s@8 | morto 0@22 | reject@30 | discard 2c@37" },
	{ BLOCK4 "7 . 2 : draw", 0, "turn 7 seat 2: draw@9" },
	{ BLOCK4 "claim 1: 245 -30", 0, "claim 1: 245 -30" },
	{ "claim match: 3120 2410", 0, "claim 0: 3120 2410" },
	{ "end", 0, "end" },
	{ BLOCK4 "End  Recovered ; salvaged", 0, "end recovered" },
	{ BLOCK4 "end\n\n; only blank lines after end", 0, "blank" },

	/* the header */
	{ "[Notation \"2\"]", RPL_EUNSUPPORTED, "line 1, column 11: notation version \"2\": this library reads version 1" },
	{ "[Profile \"stbl\"]", RPL_EPARSE, "line 1, column 2: the first tag must be [Notation \"1\"]" },
	{ "[Notation \"1\"]\n[Foo \"x\"]", RPL_EPARSE, "line 2, column 2: unknown tag 'foo'" },
	{ "[Notation \"1\"]\n[Notation \"1\"]", RPL_EPARSE, "line 2, column 2: [Notation] is given twice" },
	{ "[Notation \"1\"]\n[Rule \"target\"]", RPL_EPARSE, "line 2, column 15: expected a quoted value, not ']'" },
	{ "[Notation \"1\"]\n[Players \"4\" \"2\"]", RPL_EPARSE, "line 2, column 14: [Players] takes 1 value" },
	{ "[Notation \"1\"]\n[Players \"3\"]", RPL_EPARSE, "line 2, column 10: [Players] is \"2\" or \"4\", not \"3\"" },
	{ "[Notation \"1\"]\n[Meta \"k\" \"v]", RPL_EPARSE, "line 2, column 14: the value has no closing '\"'" },
	{ "[Notation \"1\"]\n[Meta \"k\" \"a\\tb\"]", RPL_EPARSE,
	  "line 2, column 13: unknown escape: '\\\"', '\\\\' and '\\xHH' are known" },
	{ "[Notation \"1\"]\n[Meta \"k\" \"\\x00\"]", RPL_EPARSE,
	  "line 2, column 12: '\\x' takes two hex digits, 01 to ff" },
	{ "[Notation \"1\"]\n[Meta \"k\" \"v\"] x", RPL_EPARSE,
	  "line 2, column 16: expected the end of the line after ']', not 'x'" },
	{ "[Notation \"1\"]\n[Meta \"k\" \"a\tb\"]", RPL_EPARSE,
	  "line 2, column 13: a control character in a value: write it as '\\x09'" },
	{ BLOCK4 "[Notation \"1\"]", RPL_EPARSE,
	  "line 9, column 1: a tag after the header: tags come before the first deal" },

	/* deal blocks */
	{ "deal 0", RPL_EPARSE, "line 1, column 6: deals are numbered from 1" },
	{ "deal1", RPL_EPARSE, "line 1, column 1: expected a tag, a deal, a turn, a claim or 'end', not 'deal1'" },
	{ "deal 1 2", RPL_EPARSE, "line 1, column 8: expected the end of the line, not '2'" },
	{ "deal 1\nhand 1: " H11, RPL_EPARSE, "line 2, column 1: expected 'hand 0:', not 'hand 1:'" },
	{ "deal 1\nhand 0 " H11, RPL_EPARSE, "line 2, column 8: expected ':', not 'Ac'" },
	{ "deal 1\nhand 0: Ac 2c", RPL_EPARSE, "line 2, column 14: a hand holds 11 cards, not 2" },
	{ "deal 1\nhand 0: " H11 " 7c", RPL_EPARSE, "line 2, column 42: a hand holds 11 cards, not more" },
	{ "deal 1\nhand 0: Ac 2c 1c", RPL_EPARSE, "line 2, column 15: not a card: '1c'" },
	{ "deal 1\nhand 0: " H11 "\nmorto 0: " H11, RPL_EPARSE, "line 3, column 1: expected 'hand 1:', not 'morto 0:'" },
	{ "[Notation \"1\"]\n[Players \"4\"]\ndeal 1\nhand 0: " H11 "\nhand 1: " H11 "\nmorto 0: " H11, RPL_EPARSE,
	  "line 6, column 1: expected 'hand 2:', not 'morto 0:'" },
	{ "deal 1\nhand 0: " H11 "\nhand 1: " H11 "\nhand 2: " H11 "\nmorto 0: " H11, RPL_EPARSE,
	  "line 5, column 1: expected 'hand 3:', not 'morto 0:'" },
	{ "deal 1\nhand 0: " H11 "\nhand 1: " H11 "\nmorto 1: " H11, RPL_EPARSE,
	  "line 4, column 1: expected 'hand 2:' or 'morto 0:', not 'morto 1:'" },
	{ "deal 1\nhand 0: " H11 "\nhand 1: " H11 "\nmorto 0: " H11 "\nmorto 1: " H11 "\nstock: " S42, RPL_EPARSE,
	  "line 6, column 136: the stock holds 64 cards, not 42" },
	{ "deal 1\nhand 0: " H11 "\n1. 0: draw", RPL_EPARSE,
	  "line 3, column 1: expected 'hand 1:': the deal block is not complete" },
	{ "deal 1\nhand 0: " H11 "\nend", RPL_EPARSE,
	  "line 3, column 1: expected 'hand 1:': the deal block is not complete" },
	{ "deal 1\ndeal 2", RPL_EPARSE, "line 2, column 1: expected 'hand 0:': the deal block is not complete" },
	{ "stock: " S42, RPL_EPARSE, "line 1, column 1: a stock line outside a deal block (a deal starts with 'deal N')" },
	{ "morto 2: " H11, RPL_EPARSE, "line 1, column 1: there are mortos 0 and 1, not 2" },

	/* turn lines */
	{ "1. 0: draw", RPL_EPARSE, "line 1, column 1: a turn before the first deal" },
	{ BLOCK4 "1. 0: drwa", RPL_EPARSE, "line 9, column 7: unknown decision 'drwa'" },
	{ BLOCK4 "1. 0: draw2", RPL_EPARSE, "line 9, column 7: unknown decision 'draw2'" },
	{ BLOCK4 "1. 0: draw discard 7h", RPL_EPARSE,
	  "line 9, column 12: expected ',' or the end of the line, not 'discard'" },
	{ BLOCK4 "1. 0: draw,, discard 7h", RPL_EPARSE, "line 9, column 12: expected a decision, not ','" },
	{ BLOCK4 "1. 0: draw,", RPL_EPARSE, "line 9, column 12: expected a decision, not the end of the line" },
	{ BLOCK4 "1. 0:", RPL_EPARSE, "line 9, column 6: expected a decision, not the end of the line" },
	{ BLOCK4 "1. 0: meld 5h 6h 7x", RPL_EPARSE, "line 9, column 18: not a card: '7x'" },
	{ BLOCK4 "1. 0: meld, discard 2c", RPL_EPARSE, "line 9, column 11: expected a card, not ','" },
	{ BLOCK4 "1. 0: meld 5h 6h 7h >>", RPL_EPARSE, "line 9, column 22: expected ',' or the end of the line, not '>'" },
	{ BLOCK4 "1. 0: meld 5h 6h < 7h", RPL_EPARSE, "line 9, column 20: expected ',' or the end of the line, not '7h'" },
	{ BLOCK4 "1. 0: meld Ah 2h 3h 4h 5h 6h 7h 8h 9h 10h Jh Qh Kh Ah JK", RPL_EPARSE,
	  "line 9, column 55: a meld holds at most 14 cards" },
	{ BLOCK4 "1. 0: add 2.0 5h", RPL_EPARSE, "line 9, column 11: there are sides 0 and 1, not 2" },
	{ BLOCK4 "1. 0: add 1 5h", RPL_EPARSE, "line 9, column 12: expected '.' and the meld's index, not a space" },
	{ BLOCK4 "1. 0: add 1.x 5h", RPL_EPARSE, "line 9, column 13: expected a meld index, not 'x'" },
	{ BLOCK4 "1. 0: add 1.36 5h", RPL_EPARSE, "line 9, column 14: a side has at most 36 melds" },
	{ BLOCK4 "1. 0: discard", RPL_EPARSE, "line 9, column 14: not a card: the end of the line" },
	{ BLOCK4 "1. 0: discard 7h 8h", RPL_EPARSE, "line 9, column 18: expected ',' or the end of the line, not '8h'" },
	{ BLOCK4 "1. 0: morto 2", RPL_EPARSE, "line 9, column 13: there are mortos 0 and 1, not 2" },
	{ BLOCK4 "1. 5: draw", RPL_EPARSE, "line 9, column 4: there is no seat 5" },
	{ "[Notation \"1\"]\n[Players \"2\"]\n" BLOCK2 "1. 2: draw", RPL_EPARSE, "line 9, column 4: there is no seat 2" },
	{ BLOCK4 "0. 1: draw", RPL_EPARSE, "line 9, column 1: turns are numbered from 1" },
	{ BLOCK4 "1. 0 draw", RPL_EPARSE, "line 9, column 6: expected ':' after the seat, not 'draw'" },
	{ BLOCK4 "1234567890. 0: draw", RPL_EPARSE,
	  "line 9, column 1: expected a turn number or a seat, not '1234567890.'" },

	/* claims, end, anything else */
	{ "claim x: 1 2", RPL_EPARSE, "line 1, column 7: expected a deal number or 'match', not 'x'" },
	{ "claim 1 1 2", RPL_EPARSE, "line 1, column 9: expected ':', not '1'" },
	{ "claim 1: 1", RPL_EPARSE, "line 1, column 11: expected side 1's score, not the end of the line" },
	{ "claim 1: 1 - 2", RPL_EPARSE, "line 1, column 13: expected side 1's score, not a space" },
	{ "end now", RPL_EPARSE, "line 1, column 5: expected 'recovered' or the end of the line, not 'now'" },
	{ "end\nend", RPL_EPARSE, "line 2, column 1: nothing may follow 'end'" },
	{ "draw", RPL_EPARSE, "line 1, column 1: unknown line keyword 'draw'" },
	{ "# x", RPL_EPARSE, "line 1, column 1: expected a tag, a deal, a turn, a claim or 'end', not '#'" },
	{ "deal\x01 1", RPL_EPARSE, "line 1, column 5: a control character (0x01)" },
	{ "\xe2\x99\xa5\xe2\x99\xa5 x", RPL_EPARSE,
	  "line 1, column 1: expected a tag, a deal, a turn, a claim or 'end', not '\xe2\x99\xa5\xe2\x99\xa5'" },
};

static void test_parse_table(void **state)
{
	rpl_notation_item *it = malloc(sizeof *it);
	int failed = 0;

	(void)state;
	assert_non_null(it);
	for (size_t i = 0; i < sizeof parse_cases / sizeof parse_cases[0]; i++) {
		const struct parse_case *c = &parse_cases[i];
		rpl_notation_parser *p = NULL;
		const char *s = c->text;
		int rc = 0;

		assert_int_equal(rpl_notation_parser_new(&p), 0);
		for (;;) {
			const char *nl = strchr(s, '\n');
			size_t n = nl ? (size_t)(nl - s) : strlen(s);
			rc = rpl_notation_parser_line(p, s, n, it);
			if (!nl)
				break;
			if (rc != 0)
				tl_fail("case %zu: an earlier line fails: %s", i, rpl_notation_parser_errmsg(p));
			s = nl + 1;
		}
		if (rc != c->rc || strcmp(rc ? rpl_notation_parser_errmsg(p) : describe(it), c->expect) != 0) {
			print_error("case %zu: rc %d, expected %d\n expected: %s\n      got: %s\n", i, rc, c->rc, c->expect,
			            rc ? rpl_notation_parser_errmsg(p) : describe(it));
			failed++;
		}
		rpl_notation_parser_free(p);
	}
	free(it);
	if (failed)
		tl_fail("%d of %zu cases failed", failed, sizeof parse_cases / sizeof parse_cases[0]);
}

/* ---- random legal matches ---------------------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
	/* splitmix64: fixed seeds give the same match on every platform */
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static void shuffled_layout(rpl_layout *lay, int nplayers, uint64_t *seed)
{
	rpl_card deck[RPL_DECK_SIZE];
	size_t n = 0, k = 0;

	for (rpl_card c = 0; c < RPL_NFACES; c++)
		for (int i = 0; i < rpl_card_copies(c); i++)
			deck[n++] = c;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)(rng_next(seed) % (i + 1));
		rpl_card t = deck[i];
		deck[i] = deck[j];
		deck[j] = t;
	}
	memset(lay, 0, sizeof *lay);
	for (int s = 0; s < nplayers; s++)
		for (int i = 0; i < RPL_HAND_SIZE; i++)
			lay->hand[s][i] = deck[k++];
	for (int m = 0; m < 2; m++)
		for (int i = 0; i < RPL_MORTO_SIZE; i++)
			lay->morto[m][i] = deck[k++];
	for (int i = 0; i < RPL_STOCK_SIZE(nplayers); i++)
		lay->stock[i] = deck[k++];
}

/*
 * Record a match played at random through the engine (checked mode) into
 * path: up to max_deals deals, up to max_actions decisions in all; claims of
 * each finished deal's score; closed with "end" when close is set. Returns
 * the number of decisions recorded.
 */
static int play_random(const char *path, const char *profile, int nplayers, uint64_t seed, int max_deals,
                       int max_actions, int close)
{
	rpl_rules *r = tl_rules(profile, NULL);
	rpl_match_info info;
	rpl_recorder *rec = NULL;
	rpl_action legal[512];
	rpl_layout lay;
	int rc, actions = 0, deals = 0;
	static const char *const keys[] = { "platform", "table" };
	static const char *const values[] = { "unit \"test\"", "Mesa 7 \xc3\xa9" };

	memset(&info, 0, sizeof info);
	info.rules = r;
	info.nplayers = nplayers;
	info.players[0] = "Ana";
	info.players[1] = nplayers == 4 ? "" : "Bruno";
	if (nplayers == 4)
		info.players[3] = "Caio \\ Dora";
	info.first_dealer = nplayers - 1;
	info.start_time = 1796003903; /* 2026-11-30T01:58:23Z */
	info.nmeta = 2;
	info.meta_keys = keys;
	info.meta_values = values;
	rc = rpl_recorder_open(&rec, path, &info, 0);
	if (rc < 0)
		tl_fail("rpl_recorder_open = %d: %s", rc, rec ? rpl_recorder_errmsg(rec) : "");
	while (deals < max_deals && actions < max_actions) {
		const rpl_game *g = rpl_recorder_game(rec);
		int phase = rpl_game_phase(g);

		if (phase == RPL_PHASE_MATCH_OVER)
			break;
		if (phase == RPL_PHASE_NO_DEAL || phase == RPL_PHASE_DEAL_OVER) {
			if (phase == RPL_PHASE_DEAL_OVER) {
				int32_t score[2];
				rpl_score sc;
				for (int s = 0; s < 2; s++) {
					rpl_game_deal_score(g, s, &sc);
					score[s] = sc.total;
				}
				assert_int_equal(rpl_recorder_claim(rec, rpl_game_deal_number(g), score), 0);
			}
			shuffled_layout(&lay, nplayers, &seed);
			rc = rpl_recorder_deal(rec, &lay);
			if (rc < 0)
				tl_fail("rpl_recorder_deal = %d: %s", rc, rpl_recorder_errmsg(rec));
			deals++;
			continue;
		}
		{
			size_t n = rpl_game_legal(g, legal, sizeof legal / sizeof legal[0]), tried = 0;
			int done = 0, want_discard = (rng_next(&seed) % 3) == 0;

			if (n > sizeof legal / sizeof legal[0])
				n = sizeof legal / sizeof legal[0];
			/* shuffle the candidates; prefer a discard now and then so turns end */
			for (size_t i = n; i > 1; i--) {
				size_t j = (size_t)(rng_next(&seed) % i);
				rpl_action t = legal[i - 1];
				legal[i - 1] = legal[j];
				legal[j] = t;
			}
			for (int pass = 0; pass < 2 && !done; pass++)
				for (size_t i = 0; i < n && !done; i++) {
					if (pass == 0 && want_discard != (legal[i].kind == RPL_ACT_DISCARD))
						continue;
					tried++;
					if (rpl_recorder_action(rec, &legal[i]) == 0)
						done = 1;
				}
			if (!done)
				break; /* stuck: the log simply ends here */
			actions++;
		}
	}
	if (close) {
		int32_t total[2] = { rpl_game_total(rpl_recorder_game(rec), 0), rpl_game_total(rpl_recorder_game(rec), 1) };
		assert_int_equal(rpl_recorder_claim(rec, 0, total), 0);
		rc = rpl_recorder_close(rec);
		if (rc < 0)
			tl_fail("rpl_recorder_close = %d: %s", rc, rpl_recorder_errmsg(rec));
	} else {
		assert_int_equal(rpl_recorder_flush(rec), 0);
	}
	rpl_recorder_free(rec);
	rpl_rules_free(r);
	return actions;
}

/* ---- import: the header, the checks against the recorder ------------------ */

/* "hand 0: ...\n...stock: ...\n" for a layout. */
static const char *layout_text(const rpl_layout *lay, int nplayers)
{
	static char buf[2048];
	size_t k = 0;

#define ADD(...) (k += (size_t)snprintf(buf + k, sizeof buf - k, __VA_ARGS__))
	for (int s = 0; s < nplayers; s++) {
		ADD("hand %d:", s);
		for (int i = 0; i < RPL_HAND_SIZE; i++)
			ADD(" %s", rpl_card_name(lay->hand[s][i]));
		ADD("\n");
	}
	for (int m = 0; m < 2; m++) {
		ADD("morto %d:", m);
		for (int i = 0; i < RPL_MORTO_SIZE; i++)
			ADD(" %s", rpl_card_name(lay->morto[m][i]));
		ADD("\n");
	}
	ADD("stock:");
	for (int i = 0; i < RPL_STOCK_SIZE(nplayers); i++)
		ADD(" %s", rpl_card_name(lay->stock[i]));
	ADD("\n");
#undef ADD
	return buf;
}

/* Replace the first "XX" in s (room for two more bytes) with a card name. */
static void replace_xx(char *s, const char *card)
{
	char *x = strstr(s, "XX");
	size_t n = strlen(card);

	if (!x)
		return;
	memmove(x + n, x + 2, strlen(x + 2) + 1);
	memcpy(x, card, n);
}

#define HDR "[Notation \"1\"]\n[Profile \"stbl\"]\n[Players \"2\"]\n[FirstDealer \"1\"]\n"

static void test_import_errors(void **state)
{
	static const struct {
		const char *text; /* DEAL stands for "deal 1" and a valid 2-player layout (6 lines) */
		const char *expect;
	} cases[] = {
		{ "", "line 1: the text does not begin with [Notation \"1\"]" },
		{ "deal 1", "line 1: the text does not begin with [Notation \"1\"]" },
		{ "[Notation \"1\"]\n[Profile \"stbl\"]\n[Players \"2\"]\nDEAL",
		  "line 4: the header has no [FirstDealer] tag" },
		{ "[Notation \"1\"]\n[Players \"2\"]\n[FirstDealer \"1\"]", "line 4: the header has no [Profile] tag" },
		{ "[Notation \"1\"]\n[Profile \"xyz\"]\n[Players \"2\"]\n[FirstDealer \"1\"]\nDEAL",
		  "line 2, column 10: unknown profile \"xyz\"" },
		{ HDR "[Rule \"nope\" \"1\"]\nDEAL", "line 5, column 7: unknown rule parameter \"nope\"" },
		{ HDR "[Rule \"target\" \"1\"]\n[Rule \"TARGET\" \"2\"]",
		  "line 6, column 7: [Rule \"TARGET\"] is given twice" },
		{ HDR "[Seat \"2\" \"Caio\"]\nDEAL", "line 5, column 7: there is no seat 2 with 2 players" },
		{ HDR "[Seat \"1\" \"A\"]\n[Seat \"1\" \"B\"]", "line 6, column 7: seat 1 is named twice" },
		{ "[Notation \"1\"]\n[Profile \"stbl\"]\n[Players \"2\"]\n[FirstDealer \"2\"]\nDEAL",
		  "line 4, column 14: there is no seat 2 with 2 players" },
		{ HDR "[Start \"2026-02-29T00:00:00Z\"]",
		  "line 5, column 8: [Start] is a UTC time such as \"2026-11-30T01:58:23Z\", not \"2026-02-29T00:00:00Z\"" },
		{ HDR "[Start \"1970-01-01T00:00:00Z\"]", "line 5, column 8: [Start] at 0 means unknown: leave the tag out" },
		{ HDR "deal 2", "line 5, column 1: the next deal is deal 1, not 2" },
		{ HDR "DEAL\n1. 1: draw", "line 11, column 4: seat 0 is to move, not seat 1" },
		{ HDR "DEAL\n2. 0: draw", "line 11, column 1: this is turn 1 of the deal, not 2" },
		{ HDR "DEAL\n0: draw, discard XX", "line 11, column 10: XX is not in the hand of seat 0" },
		{ HDR "DEAL\nclaim 1: 1 2\n[Meta \"a\" \"b\"]",
		  "line 12, column 1: a tag after the header: tags come before the first deal" },
	};
	rpl_layout lay;
	uint64_t seed = 42;
	char deal[2100], text[4096], expect[400], err[400];
	const char *path = tl_tmp_path("err.brp"), *absent = NULL;

	(void)state;
	shuffled_layout(&lay, 2, &seed);
	/* XX: a card seat 0 neither holds nor draws first */
	for (rpl_card c = 0; c < RPL_NFACES && !absent; c++) {
		int held = lay.stock[0] == c;
		for (int i = 0; i < RPL_HAND_SIZE; i++)
			held |= lay.hand[0][i] == c;
		if (!held)
			absent = rpl_card_name(c);
	}
	assert_non_null(absent);
	snprintf(deal, sizeof deal, "deal 1\n%s", layout_text(&lay, 2));
	deal[strlen(deal) - 1] = '\0';
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *d = strstr(cases[i].text, "DEAL");
		int rc;

		if (d)
			snprintf(text, sizeof text, "%.*s%s%s", (int)(d - cases[i].text), cases[i].text, deal, d + 4);
		else
			snprintf(text, sizeof text, "%s", cases[i].text);
		snprintf(expect, sizeof expect, "%s", cases[i].expect);
		replace_xx(text, absent);
		replace_xx(expect, absent);
		remove(path);
		rc = rpl_notation_import(text, strlen(text), path, err, sizeof err);
		if (rc >= 0 || strcmp(err, expect) != 0)
			tl_fail("case %zu: rc %d\n expected: %s\n      got: %s", i, rc, expect, err);
		/* nothing half-written is left behind */
		if (access(path, F_OK) == 0)
			tl_fail("case %zu: %s was left behind", i, path);
	}
}

static int card_order(const void *a, const void *b)
{
	return (int)*(const rpl_card *)a - (int)*(const rpl_card *)b;
}

/* A match recorded through the notation: claims, "end recovered", times, odd names. */
static void test_import_details(void **state)
{
	static const char *const starts[] = { "0000-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "1969-12-31T23:59:59Z",
		                                  "2000-02-29T12:00:00Z", "9999-12-31T23:59:59Z" };
	rpl_layout lay;
	uint64_t seed = 42;
	char text[4096], expect[4096];
	const char *path = tl_tmp_path("details.brp");

	(void)state;
	shuffled_layout(&lay, 2, &seed);
	/* version 7 keeps of a pile only the order play revealed: with no decision, each pile ascending */
	qsort(lay.morto[0], RPL_MORTO_SIZE, 1, card_order);
	qsort(lay.morto[1], RPL_MORTO_SIZE, 1, card_order);
	qsort(lay.stock, RPL_STOCK_SIZE(2), 1, card_order);
	for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++) {
		char *out;
		snprintf(expect, sizeof expect,
		         "[Notation \"1\"]\n[Profile \"stbl\"]\n[Players \"2\"]\n"
		         "[Seat \"1\" \"\\\"Z\\\" \\\\ \\x01 \\xc3\\xa9\"]\n[FirstDealer \"1\"]\n[Start \"%s\"]\n"
		         "[Meta \"empty\" \"\"]\n\ndeal 1\n%sclaim 1: -30 245\nclaim match: 0 0\nend recovered\n",
		         starts[i], layout_text(&lay, 2));
		/* the same text in another spelling: canonical once written */
		snprintf(text, sizeof text,
		         "[notation \"1\"]\n[profile \"stbl\"]\n[PLAYERS \"2\"]\n[firstdealer \"1\"]\n"
		         "[Seat \"1\" \"\\\"Z\\\" \\\\ \\x01 \xc3\xa9\"]\n[Start \"%s\"] ; when\n"
		         "[Meta \"empty\" \"\"]\ndeal 1\n%s\n  claim 1 : -30 245\nCLAIM MATCH:0 0\n\nend recovered\n\n",
		         starts[i], layout_text(&lay, 2));
		/* the sorted hands are canonical; the test layout is not sorted */
		import_ok(text, path);
		out = dump(path);
		{
			/* compare everything but the hands, which the log keeps sorted */
			const char *a = strstr(out, "morto 0:"), *b = strstr(expect, "morto 0:");
			assert_non_null(a);
			assert_non_null(b);
			assert_string_equal(a, b);
			assert_memory_equal(out, expect, (size_t)(strstr(expect, "hand 0:") - expect));
		}
		free(out);
	}
	remove(path);
}

/*
 * Issue 13, item 9: every score a log holds (32 bits, signed) is written and
 * read back; the notation read at most 9 digits, so a claim of 10^9 dumped
 * but did not import.
 */
static void test_claim_range(void **state)
{
	static const char *const head = "[Notation \"1\"]\n[Profile \"stbl\"]\n[Players \"2\"]\n[FirstDealer \"1\"]\n";
	static const char *const refused[] = { "2147483648 0", "0 -2147483649", "99999999999 0", "0 -", "--1 0" };
	const char *path = tl_tmp_path("claims.brp");
	char text[512], err[400], *out;

	(void)state;
	snprintf(text, sizeof text, "%sclaim 1: 2147483647 -2147483648\nclaim match: 1000000000 -1000000000\nend\n", head);
	import_ok(text, path);
	out = dump(path);
	if (strcmp(out, text) != 0)
		tl_fail("written back:\n%s", out);
	free(out);
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		snprintf(text, sizeof text, "%sclaim match: %s\n", head, refused[i]);
		assert_int_equal(rpl_notation_import(text, strlen(text), path, err, sizeof err), RPL_EPARSE);
		assert_non_null(strstr(err, "line 5, column "));
		if (i < 3)
			assert_non_null(strstr(err, "is outside the 32-bit range (-2147483648 to 2147483647)"));
	}
	remove(path);
}

/* A text handed to rpl_notation_import_stream in pieces of 1 to 7 bytes. */
struct pieces {
	const char *s;
	size_t n, pos, k;
};

static ptrdiff_t read_pieces(void *ud, char *buf, size_t n)
{
	struct pieces *p = ud;
	size_t k = 1 + p->k++ % 7;

	if (k > n)
		k = n;
	if (k > p->n - p->pos)
		k = p->n - p->pos;
	memcpy(buf, p->s + p->pos, k);
	p->pos += k;
	return (ptrdiff_t)k;
}

static int import_pieces(const char *text, size_t len, const char *path, char *err, size_t errlen)
{
	struct pieces p = { text, len, 0, 0 };
	return rpl_notation_import_stream(read_pieces, &p, path, err, errlen);
}

/*
 * Issue 13, items 6 and 7: a line holds at most RPL_NOTATION_MAX_LINE bytes;
 * the parser refuses a longer one quoting 16 bytes of it, and the streamed
 * import stops at it (it keeps one line at most).
 */
static void test_line_limit(void **state)
{
	const char *path = tl_tmp_path("limit.brp");
	const char *head = "[Notation \"1\"]\n[Profile \"stbl\"]\n[Players \"2\"]\n[FirstDealer \"1\"]\n";
	size_t hn = strlen(head), max = RPL_NOTATION_MAX_LINE;
	static char text[RPL_NOTATION_MAX_LINE + 256];
	char err[400];
	rpl_notation_parser *p = NULL;
	rpl_notation_item *it = malloc(sizeof *it);

	(void)state;
	assert_true(hn + max + 8 <= sizeof text);
	assert_non_null(it);
	assert_int_equal(rpl_notation_parser_new(&p), 0);
	/* a comment line of exactly the limit, then one byte more */
	memcpy(text, "; ", 2);
	memset(text + 2, 'x', max - 2);
	text[max] = '\n';
	assert_int_equal(rpl_notation_parser_line(p, text, max + 1, it), 0);
	assert_int_equal(it->kind, RPL_NOTATION_BLANK);
	text[max] = 'x';
	text[max + 1] = '\r';
	text[max + 2] = '\n';
	assert_int_equal(rpl_notation_parser_line(p, text, max + 3, it), RPL_ELIMIT);
	assert_string_equal(rpl_notation_parser_errmsg(p),
	                    "line 2: a line holds at most 65536 bytes; this one is longer ('; xxxxxxxxxxxxxx...')");
	rpl_notation_parser_free(p);
	/* imported from memory or in pieces: the limit is the same */
	memcpy(text, head, hn);
	memcpy(text + hn, "; ", 2);
	memset(text + hn + 2, 'x', max - 2);
	memcpy(text + hn + max, "\r\n", 3);
	import_ok(text, path);
	assert_int_equal(import_pieces(text, strlen(text), path, err, sizeof err), 0);
	memcpy(text + hn + max, "x\n", 3);
	assert_int_equal(rpl_notation_import(text, strlen(text), path, err, sizeof err), RPL_ELIMIT);
	assert_string_equal(err, "line 5: a line holds at most 65536 bytes; this one is longer ('; xxxxxxxxxxxxxx...')");
	assert_int_equal(import_pieces(text, strlen(text), path, err, sizeof err), RPL_ELIMIT);
	assert_string_equal(err, "line 5: a line holds at most 65536 bytes; this one is longer ('; xxxxxxxxxxxxxx...')");
	/* a line with no end at all: stopped at the limit */
	text[hn + max + 1] = 'x';
	assert_int_equal(import_pieces(text, hn + max + 2, path, err, sizeof err), RPL_ELIMIT);
	free(it);
	remove(path);
}

/* log -> text -> log is byte-identical; text -> log -> text is identical. */
static void round_trip(const char *profile, int nplayers, uint64_t seed, int max_deals, int max_actions, int close)
{
	const char *a = tl_tmp_path("a.brp"), *b = tl_tmp_path("b.brp");
	unsigned char *ba, *bb;
	size_t na = 0, nb = 0;
	char *t1, *t2;

	play_random(a, profile, nplayers, seed, max_deals, max_actions, close);
	t1 = dump(a);
	import_ok(t1, b);
	ba = read_all(a, &na);
	bb = read_all(b, &nb);
	assert_non_null(ba);
	assert_non_null(bb);
	if (na != nb || memcmp(ba, bb, na) != 0)
		tl_fail("%s, %d players, seed %llu: the imported log differs (%zu vs %zu bytes)", profile, nplayers,
		        (unsigned long long)seed, na, nb);
	t2 = dump(b);
	assert_string_equal(t1, t2);
	/* streamed in pieces: the same log */
	{
		char err[400];
		unsigned char *bc;
		size_t nc = 0;
		int rc = import_pieces(t1, strlen(t1), b, err, sizeof err);
		if (rc != 0)
			tl_fail("rpl_notation_import_stream = %d: %s", rc, err);
		bc = read_all(b, &nc);
		assert_non_null(bc);
		if (nc != na || memcmp(ba, bc, na) != 0)
			tl_fail("%s, %d players, seed %llu: the log imported in pieces differs", profile, nplayers,
			        (unsigned long long)seed);
		free(bc);
	}
	free(ba);
	free(bb);
	free(t1);
	free(t2);
	remove(a);
	remove(b);
}

static void test_round_trip_random(void **state)
{
	(void)state;
	round_trip("stbl", 4, 1, 3, 4000, 1);
	round_trip("kzv", 4, 2, 3, 4000, 1);
	round_trip("aberto", 4, 3, 3, 4000, 1);
	round_trip("stbl", 2, 4, 2, 4000, 1);
	round_trip("aberto", 2, 5, 2, 4000, 1);
	/* a recording never closed: no "end", and the log stays in its growing form */
	round_trip("stbl", 4, 6, 1, 37, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_table),    cmocka_unit_test(test_import_errors),
		cmocka_unit_test(test_import_details), cmocka_unit_test(test_round_trip_random),
		cmocka_unit_test(test_line_limit),     cmocka_unit_test(test_claim_range),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
