/*
 * The text notation of a match (docs/notation.md): the streaming parser,
 * the bridge from parsed lines to a recorder, the writer and the one-shot
 * import.
 *
 * The parser works one line at a time and keeps only what the order of the
 * lines needs (are we in the header, inside a deal block, past "end");
 * what a turn line means for the game is checked by rpl_notation_record()
 * against the recorder's card bookkeeping.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "libreplay/notation.h"
#include "msg.h"

/* Where a deal block is: what the next line of the block must be. */
enum block { BLOCK_NONE = 0, BLOCK_HAND, BLOCK_MORTO0, BLOCK_MORTO1, BLOCK_STOCK };

struct rpl_notation_parser {
	int line;        /* lines seen */
	int tags;        /* tags seen */
	int body;        /* a line after the header was seen: no more tags */
	int ended;       /* "end" was seen */
	int nplayers;    /* 0 while unknown */
	int block;       /* enum block */
	int block_hands; /* hand lines of the current block */
	int deal_lines;  /* "deal N" lines seen */

	/* rpl_notation_record: where the recording is */
	rpl_layout layout;
	int deal_line;   /* the "deal N" line number of the block being recorded */
	int deals;       /* deals recorded */
	int turn;        /* turns opened in the current deal (the codec's count) */
	int open;        /* a turn is open: no discard yet */
	int last_seat;   /* the seat of the last decision in this deal, -1 */

	/* the failure */
	int err_line, err_col;
	char errmsg[RPL_ERRMSG_SIZE];

	/* unescaped tag values */
	char tag[16];
	char *val;
	size_t valcap;
};

/* ---- errors ---- */

static int fail(rpl_notation_parser *p, int err, int column, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(rpl_notation_parser *p, int err, int column, const char *fmt, ...)
{
	va_list ap;
	size_t k;

	p->err_line = p->line;
	p->err_col = column;
	if (column > 0)
		k = rpl__msgf(p->errmsg, "line %d, column %d: ", p->line, column);
	else
		k = rpl__msgf(p->errmsg, "line %d: ", p->line);
	va_start(ap, fmt);
	rpl__vmsgf_at(p->errmsg, k, fmt, ap);
	va_end(ap);
	return err;
}

int rpl_notation_parser_new(rpl_notation_parser **out)
{
	rpl_notation_parser *p;

	if (!out)
		return RPL_EINVAL;
	*out = NULL;
	p = calloc(1, sizeof *p);
	if (!p)
		return RPL_ENOMEM;
	p->last_seat = -1;
	*out = p;
	return RPL_OK;
}

void rpl_notation_parser_free(rpl_notation_parser *p)
{
	if (!p)
		return;
	free(p->val);
	free(p);
}

const char *rpl_notation_parser_errmsg(const rpl_notation_parser *p)
{
	return p ? p->errmsg : "";
}

void rpl_notation_parser_where(const rpl_notation_parser *p, int *line, int *column)
{
	if (line)
		*line = p ? p->err_line : 0;
	if (column)
		*column = p ? p->err_col : 0;
}

int rpl_notation_parser_set_players(rpl_notation_parser *p, int nplayers)
{
	if (!p || (nplayers != 2 && nplayers != 4))
		return RPL_EINVAL;
	p->nplayers = nplayers;
	return RPL_OK;
}

/* ---- the scanner: one line, a position, columns in code points ---- */

struct scan {
	rpl_notation_parser *p;
	const char *s;
	size_t n, i;
};

static int column_at(const struct scan *sc, size_t i)
{
	int col = 1;

	for (size_t k = 0; k < i && k < sc->n; k++)
		if (((unsigned char)sc->s[k] & 0xC0) != 0x80)
			col++;
	return col;
}

static int col(const struct scan *sc)
{
	return column_at(sc, sc->i);
}

static void skip_ws(struct scan *sc)
{
	while (sc->i < sc->n && (sc->s[sc->i] == ' ' || sc->s[sc->i] == '\t'))
		sc->i++;
}

/* At the end of the line's content (white space and a comment may follow). */
static int at_end(struct scan *sc)
{
	skip_ws(sc);
	return sc->i >= sc->n || sc->s[sc->i] == ';';
}

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int is_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The token at the position: up to white space, ',', ':' or ';'. Does not move. */
static size_t token_len(const struct scan *sc)
{
	size_t k = sc->i;

	while (k < sc->n && sc->s[k] != ' ' && sc->s[k] != '\t' && sc->s[k] != ',' && sc->s[k] != ':' &&
	       sc->s[k] != ';')
		k++;
	return k - sc->i;
}

/* A short, printable quotation of the token at the position, for messages. */
static const char *quote_token(const struct scan *sc, char *buf, size_t size)
{
	size_t len = token_len(sc), k = 0;

	if (len == 0 && sc->i < sc->n)
		len = 1;
	for (size_t j = 0; j < len && k + 1 < size; j++) {
		unsigned char c = (unsigned char)sc->s[sc->i + j];
		buf[k++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	buf[k] = '\0';
	if (len > 24 && size > 28) {
		memcpy(buf + 24, "...", 4);
	}
	return buf;
}

/* What is at the position, for "expected X, not Y" messages. */
static const char *found(const struct scan *sc, char *buf, size_t size)
{
	char q[40];

	if (sc->i >= sc->n || sc->s[sc->i] == ';')
		snprintf(buf, size, "the end of the line");
	else if (sc->s[sc->i] == ' ' || sc->s[sc->i] == '\t')
		snprintf(buf, size, "a space");
	else
		snprintf(buf, size, "'%s'", quote_token(sc, q, sizeof q));
	return buf;
}

/* Consume one expected character (after optional white space). */
static int expect_char(struct scan *sc, char c, const char *what)
{
	char f[64];

	skip_ws(sc);
	if (sc->i < sc->n && sc->s[sc->i] == c) {
		sc->i++;
		return 0;
	}
	return fail(sc->p, RPL_EPARSE, col(sc), "expected %s, not %s", what, found(sc, f, sizeof f));
}

/* A letter word (a keyword), lower-cased into buf; 0 when there is none. */
static size_t word(struct scan *sc, char *buf, size_t size)
{
	size_t k = 0;

	while (sc->i < sc->n && is_alpha(sc->s[sc->i])) {
		if (k + 1 < size)
			buf[k++] = (char)(sc->s[sc->i] | 0x20);
		sc->i++;
	}
	buf[k] = '\0';
	return k;
}

/* An unsigned decimal number of at most 9 digits; -1 when there is none. */
static int number(struct scan *sc, const char *what)
{
	long v = 0;
	size_t start = sc->i;
	char f[64];

	while (sc->i < sc->n && is_digit(sc->s[sc->i]) && sc->i - start < 10) {
		v = v * 10 + (sc->s[sc->i] - '0');
		sc->i++;
	}
	if (sc->i == start || (sc->i < sc->n && is_digit(sc->s[sc->i])) || v > 999999999) {
		sc->i = start;
		return fail(sc->p, RPL_EPARSE, col(sc), "expected %s, not %s", what, found(sc, f, sizeof f));
	}
	return (int)v;
}

/*
 * A claimed score: an optionally negative decimal number in the 32-bit
 * signed range, every score a log may hold (issue 13, item 9: the scores
 * of 10^9 and more that a log holds were written but refused on reading).
 */
static int score(struct scan *sc, const char *what, int32_t *out)
{
	size_t start = sc->i, digits;
	int neg = 0;
	int64_t v = 0;
	char f[64];

	if (sc->i < sc->n && sc->s[sc->i] == '-') {
		neg = 1;
		sc->i++;
	}
	digits = sc->i;
	while (sc->i < sc->n && is_digit(sc->s[sc->i]) && v <= (int64_t)INT32_MAX + 1) {
		v = v * 10 + (sc->s[sc->i] - '0');
		sc->i++;
	}
	if (sc->i == digits) {
		return fail(sc->p, RPL_EPARSE, col(sc), "expected %s, not %s", what, found(sc, f, sizeof f));
	}
	if ((sc->i < sc->n && is_digit(sc->s[sc->i])) || v > (int64_t)INT32_MAX + neg) {
		sc->i = start;
		return fail(sc->p, RPL_EPARSE, col(sc), "%s is outside the 32-bit range (%ld to %ld)", what,
		            (long)INT32_MIN, (long)INT32_MAX);
	}
	*out = (int32_t)(neg ? -v : v);
	return 0;
}

/* A card token. */
static int card(struct scan *sc, rpl_card *out)
{
	size_t len = token_len(sc);
	char q[40];

	if (len == 0 || rpl_card_parse(sc->s + sc->i, len, out) < 0)
		return fail(sc->p, RPL_EPARSE, col(sc), "not a card: %s", found(sc, q, sizeof q));
	sc->i += len;
	return 0;
}

/* ---- lines ---- */

static int parse_cards(struct scan *sc, rpl_notation_item *it, size_t want, const char *what)
{
	it->ncards = 0;
	while (!at_end(sc)) {
		if (it->ncards == want)
			return fail(sc->p, RPL_EPARSE, col(sc), "%s holds %zu cards, not more", what, want);
		if (card(sc, &it->cards[it->ncards]) < 0)
			return RPL_EPARSE;
		it->ncards++;
	}
	if (it->ncards != want)
		return fail(sc->p, RPL_EPARSE, col(sc), "%s holds %zu cards, not %zu", what, want, it->ncards);
	return 0;
}

static void block_name(const rpl_notation_parser *p, char *buf, size_t size)
{
	switch (p->block) {
	case BLOCK_HAND: snprintf(buf, size, "'hand %d:'", p->block_hands); break;
	case BLOCK_MORTO0:
		if (p->nplayers == 0 && p->block_hands < RPL_MAX_SEATS)
			snprintf(buf, size, "'hand %d:' or 'morto 0:'", p->block_hands);
		else
			snprintf(buf, size, "'morto 0:'");
		break;
	case BLOCK_MORTO1: snprintf(buf, size, "'morto 1:'"); break;
	case BLOCK_STOCK: snprintf(buf, size, "'stock:'"); break;
	default: buf[0] = '\0'; break;
	}
}

/* A line of the deal block; kw is its keyword, already read. */
static int parse_block_line(struct scan *sc, const char *kw, int kwcol, rpl_notation_item *it)
{
	rpl_notation_parser *p = sc->p;
	char want[64];
	int v;

	block_name(p, want, sizeof want);
	if (strcmp(kw, "hand") == 0) {
		if (p->block != BLOCK_HAND &&
		    !(p->block == BLOCK_MORTO0 && p->nplayers == 0 && p->block_hands < RPL_MAX_SEATS)) {
			if (!p->block)
				return fail(p, RPL_EPARSE, kwcol, "a hand line outside a deal block (a deal starts with 'deal N')");
			return fail(p, RPL_EPARSE, kwcol, "expected %s, not a hand", want);
		}
		skip_ws(sc);
		v = number(sc, "a seat");
		if (v < 0)
			return v;
		if (v != p->block_hands)
			return fail(p, RPL_EPARSE, kwcol, "expected %s, not 'hand %d:'", want, v);
		if (expect_char(sc, ':', "':'") < 0 || parse_cards(sc, it, RPL_HAND_SIZE, "a hand") < 0)
			return RPL_EPARSE;
		it->kind = RPL_NOTATION_HAND;
		it->number = v;
		return 0;
	}
	if (strcmp(kw, "morto") == 0) {
		skip_ws(sc);
		v = number(sc, "0 or 1");
		if (v < 0)
			return v;
		if (v > 1)
			return fail(p, RPL_EPARSE, kwcol, "there are mortos 0 and 1, not %d", v);
		if (!((v == 0 && p->block == BLOCK_MORTO0) || (v == 1 && p->block == BLOCK_MORTO1))) {
			if (!p->block)
				return fail(p, RPL_EPARSE, kwcol, "a morto line outside a deal block (a deal starts with 'deal N')");
			return fail(p, RPL_EPARSE, kwcol, "expected %s, not 'morto %d:'", want, v);
		}
		if (expect_char(sc, ':', "':'") < 0 || parse_cards(sc, it, RPL_MORTO_SIZE, "a morto") < 0)
			return RPL_EPARSE;
		it->kind = RPL_NOTATION_MORTO;
		it->number = v;
		return 0;
	}
	if (strcmp(kw, "stock") == 0) {
		if (p->block != BLOCK_STOCK) {
			if (!p->block)
				return fail(p, RPL_EPARSE, kwcol, "a stock line outside a deal block (a deal starts with 'deal N')");
			return fail(p, RPL_EPARSE, kwcol, "expected %s, not the stock", want);
		}
		if (expect_char(sc, ':', "':'") < 0 ||
		    parse_cards(sc, it, (size_t)RPL_STOCK_SIZE(p->block_hands), "the stock") < 0)
			return RPL_EPARSE;
		it->kind = RPL_NOTATION_STOCK;
		return 0;
	}
	return fail(p, RPL_EPARSE, kwcol, "unknown line keyword '%s'", kw);
}

/* The cards of a meld or an addition, then an optional '<' or '>'. */
static int parse_lay(struct scan *sc, rpl_action *a)
{
	char f[64];

	a->ncards = 0;
	for (;;) {
		skip_ws(sc);
		if (at_end(sc) || sc->s[sc->i] == ',')
			break;
		if (sc->s[sc->i] == '<' || sc->s[sc->i] == '>') {
			a->end = sc->s[sc->i] == '<' ? RPL_END_LOW : RPL_END_HIGH;
			sc->i++;
			if (token_len(sc) != 0)
				return fail(sc->p, RPL_EPARSE, col(sc), "expected ',' or the end of the line, not %s",
				            found(sc, f, sizeof f));
			break;
		}
		if (a->ncards == 14)
			return fail(sc->p, RPL_EPARSE, col(sc), "a meld holds at most 14 cards");
		if (card(sc, &a->cards[a->ncards]) < 0)
			return RPL_EPARSE;
		a->ncards++;
	}
	if (a->ncards == 0)
		return fail(sc->p, RPL_EPARSE, col(sc), "expected a card, not %s", found(sc, f, sizeof f));
	return 0;
}

static int parse_decision(struct scan *sc, rpl_action *a)
{
	char kw[16], f[64];
	size_t start = sc->i;
	int v;

	memset(a, 0, sizeof *a);
	skip_ws(sc);
	start = sc->i;
	if (word(sc, kw, sizeof kw) == 0 || token_len(sc) != 0) {
		sc->i = start;
		if (at_end(sc) || sc->s[sc->i] == ',')
			return fail(sc->p, RPL_EPARSE, col(sc), "expected a decision, not %s", found(sc, f, sizeof f));
		return fail(sc->p, RPL_EPARSE, col(sc), "unknown decision %s", found(sc, f, sizeof f));
	}
	if (strcmp(kw, "draw") == 0) {
		a->kind = RPL_ACT_DRAW;
	} else if (strcmp(kw, "take") == 0) {
		a->kind = RPL_ACT_TAKE;
	} else if (strcmp(kw, "reject") == 0) {
		a->kind = RPL_ACT_REJECT;
	} else if (strcmp(kw, "meld") == 0) {
		a->kind = RPL_ACT_MELD;
		return parse_lay(sc, a);
	} else if (strcmp(kw, "add") == 0) {
		a->kind = RPL_ACT_ADD;
		skip_ws(sc);
		v = number(sc, "SIDE.INDEX (such as 0.2)");
		if (v < 0)
			return v;
		if (v > 1)
			return fail(sc->p, RPL_EPARSE, col(sc) - 1, "there are sides 0 and 1, not %d", v);
		a->side = (uint8_t)v;
		if (sc->i >= sc->n || sc->s[sc->i] != '.')
			return fail(sc->p, RPL_EPARSE, col(sc), "expected '.' and the meld's index, not %s",
			            found(sc, f, sizeof f));
		sc->i++;
		v = number(sc, "a meld index");
		if (v < 0)
			return v;
		if (v >= RPL_MAX_MELDS)
			return fail(sc->p, RPL_EPARSE, col(sc) - 1, "a side has at most %d melds", RPL_MAX_MELDS);
		a->meld = (uint8_t)v;
		return parse_lay(sc, a);
	} else if (strcmp(kw, "discard") == 0) {
		a->kind = RPL_ACT_DISCARD;
		skip_ws(sc);
		if (card(sc, &a->cards[0]) < 0)
			return RPL_EPARSE;
		a->ncards = 1;
	} else if (strcmp(kw, "morto") == 0) {
		a->kind = RPL_ACT_MORTO;
		skip_ws(sc);
		v = number(sc, "0 or 1");
		if (v < 0)
			return v;
		if (v > 1)
			return fail(sc->p, RPL_EPARSE, col(sc) - 1, "there are mortos 0 and 1, not %d", v);
		a->morto = (uint8_t)v;
	} else {
		sc->i = start;
		return fail(sc->p, RPL_EPARSE, col(sc), "unknown decision %s", found(sc, f, sizeof f));
	}
	return 0;
}

/* "N. S: decision, ..." or "S: decision, ...". */
static int parse_turn(struct scan *sc, rpl_notation_item *it)
{
	rpl_notation_parser *p = sc->p;
	int v, first_col = col(sc);

	if (p->block) {
		char want[64];
		block_name(p, want, sizeof want);
		return fail(p, RPL_EPARSE, first_col, "expected %s: the deal block is not complete", want);
	}
	v = number(sc, "a turn number or a seat");
	if (v < 0)
		return v;
	it->number = 0;
	skip_ws(sc);
	if (sc->i < sc->n && sc->s[sc->i] == '.') {
		if (v == 0)
			return fail(p, RPL_EPARSE, first_col, "turns are numbered from 1");
		sc->i++;
		it->number = v;
		skip_ws(sc);
		v = number(sc, "a seat");
		if (v < 0)
			return v;
	}
	if (v >= RPL_MAX_SEATS || (p->nplayers && v >= p->nplayers))
		return fail(p, RPL_EPARSE, col(sc) - 1, "there is no seat %d", v);
	it->seat = v;
	it->seat_column = col(sc) - 1;
	if (expect_char(sc, ':', "':' after the seat") < 0)
		return RPL_EPARSE;
	it->nactions = 0;
	for (;;) {
		skip_ws(sc);
		if (it->nactions == RPL_NOTATION_MAX_ACTIONS)
			return fail(p, RPL_ELIMIT, col(sc), "a line holds at most %d decisions: continue the turn on the next line",
			            RPL_NOTATION_MAX_ACTIONS);
		it->column[it->nactions] = col(sc);
		if (parse_decision(sc, &it->actions[it->nactions]) < 0)
			return RPL_EPARSE;
		it->nactions++;
		if (at_end(sc))
			break;
		if (expect_char(sc, ',', "',' or the end of the line") < 0)
			return RPL_EPARSE;
	}
	it->kind = RPL_NOTATION_TURN;
	return 0;
}

static int hexval(char h)
{
	if (is_digit(h))
		return h - '0';
	if (h >= 'a' && h <= 'f')
		return h - 'a' + 10;
	if (h >= 'A' && h <= 'F')
		return h - 'A' + 10;
	return -1;
}

/* Exactly 2n hex digits into out; -1 otherwise. */
static int hex_bytes(const char *s, uint8_t *out, size_t n)
{
	if (strlen(s) != 2 * n)
		return -1;
	for (size_t i = 0; i < n; i++) {
		int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

/* A quoted string, unescaped into p->val at *used. */
static int parse_string(struct scan *sc, size_t *used)
{
	rpl_notation_parser *p = sc->p;
	char f[64];

	skip_ws(sc);
	if (sc->i >= sc->n || sc->s[sc->i] != '"')
		return fail(p, RPL_EPARSE, col(sc), "expected a quoted value, not %s", found(sc, f, sizeof f));
	sc->i++;
	for (;;) {
		unsigned char c;
		if (sc->i >= sc->n)
			return fail(p, RPL_EPARSE, col(sc), "the value has no closing '\"'");
		c = (unsigned char)sc->s[sc->i];
		if (c == '"') {
			sc->i++;
			break;
		}
		if (c == '\\') {
			size_t at = sc->i;
			char e = sc->i + 1 < sc->n ? sc->s[sc->i + 1] : '\0';
			if (e == '"' || e == '\\') {
				c = (unsigned char)e;
				sc->i += 2;
			} else if (e == 'x') {
				int hi = sc->i + 2 < sc->n ? hexval(sc->s[sc->i + 2]) : -1;
				int lo = sc->i + 3 < sc->n ? hexval(sc->s[sc->i + 3]) : -1;
				if (hi < 0 || lo < 0 || hi * 16 + lo == 0)
					return fail(p, RPL_EPARSE, column_at(sc, at), "'\\x' takes two hex digits, 01 to ff");
				c = (unsigned char)(hi * 16 + lo);
				sc->i += 4;
			} else {
				return fail(p, RPL_EPARSE, column_at(sc, at), "unknown escape: '\\\"', '\\\\' and '\\xHH' are known");
			}
		} else {
			if (c < 0x20 || c == 0x7f)
				return fail(p, RPL_EPARSE, col(sc), "a control character in a value: write it as '\\x%02x'", c);
			sc->i++;
		}
		if (*used + 2 > p->valcap) {
			size_t cap = p->valcap ? p->valcap * 2 : 256;
			char *nv = realloc(p->val, cap);
			if (!nv)
				return fail(p, RPL_ENOMEM, 0, "out of memory");
			p->val = nv;
			p->valcap = cap;
		}
		p->val[(*used)++] = (char)c;
	}
	if (*used + 1 > p->valcap) {
		char *nv = realloc(p->val, *used + 1);
		if (!nv)
			return fail(p, RPL_ENOMEM, 0, "out of memory");
		p->val = nv;
		p->valcap = *used + 1;
	}
	p->val[(*used)++] = '\0';
	return 0;
}

static const struct tag_def {
	const char *name;
	int nvalues;
} tag_defs[] = {
	{ "Notation", 1 }, { "Profile", 1 }, { "Rule", 2 },  { "Players", 1 },
	{ "Seat", 2 },     { "FirstDealer", 1 }, { "Start", 1 }, { "Meta", 2 },
	{ "Commitment", 1 }, { "PlayerSeed", 1 },
};

static int ieq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if ((*a | 0x20) != (*b | 0x20))
			return 0;
	return *a == *b;
}

static int parse_tag(struct scan *sc, rpl_notation_item *it)
{
	rpl_notation_parser *p = sc->p;
	const struct tag_def *def = NULL;
	char name[32], f[64];
	size_t used = 0, off[2] = { 0, 0 };
	int namecol;

	if (p->body)
		return fail(p, RPL_EPARSE, col(sc), "a tag after the header: tags come before the first deal");
	sc->i++; /* '[' */
	skip_ws(sc);
	namecol = col(sc);
	if (word(sc, name, sizeof name) == 0 || token_len(sc) != 0) {
		sc->i = sc->i - strlen(name);
		return fail(p, RPL_EPARSE, namecol, "expected a tag name, not %s", found(sc, f, sizeof f));
	}
	for (size_t k = 0; k < sizeof tag_defs / sizeof tag_defs[0]; k++)
		if (ieq(name, tag_defs[k].name))
			def = &tag_defs[k];
	if (!def)
		return fail(p, RPL_EPARSE, namecol, "unknown tag '%s'", name);
	if (p->tags == 0 && strcmp(def->name, "Notation") != 0)
		return fail(p, RPL_EPARSE, namecol, "the first tag must be [Notation \"1\"]");
	for (int k = 0; k < def->nvalues; k++) {
		it->value_column[k] = (skip_ws(sc), col(sc));
		off[k] = used;
		if (parse_string(sc, &used) < 0)
			return RPL_EPARSE;
	}
	skip_ws(sc);
	if (sc->i >= sc->n || sc->s[sc->i] != ']') {
		if (sc->i < sc->n && sc->s[sc->i] == '"')
			return fail(p, RPL_EPARSE, col(sc), "[%s] takes %d value%s", def->name, def->nvalues,
			            def->nvalues > 1 ? "s" : "");
		return fail(p, RPL_EPARSE, col(sc), "expected ']', not %s", found(sc, f, sizeof f));
	}
	sc->i++;
	if (!at_end(sc))
		return fail(p, RPL_EPARSE, col(sc), "expected the end of the line after ']', not %s", found(sc, f, sizeof f));

	it->kind = RPL_NOTATION_TAG;
	snprintf(p->tag, sizeof p->tag, "%s", def->name);
	it->tag = p->tag;
	it->nvalues = def->nvalues;
	for (int k = 0; k < def->nvalues; k++)
		it->value[k] = p->val + off[k];
	/* the values whose meaning the parser itself needs */
	if (strcmp(def->name, "Notation") == 0) {
		if (p->tags != 0)
			return fail(p, RPL_EPARSE, namecol, "[Notation] is given twice");
		if (strcmp(it->value[0], "1") != 0)
			return fail(p, RPL_EUNSUPPORTED, it->value_column[0],
			            "notation version \"%s\": this library reads version 1", it->value[0]);
	} else if (strcmp(def->name, "Players") == 0) {
		if (strcmp(it->value[0], "2") != 0 && strcmp(it->value[0], "4") != 0)
			return fail(p, RPL_EPARSE, it->value_column[0], "[Players] is \"2\" or \"4\", not \"%s\"", it->value[0]);
		p->nplayers = it->value[0][0] - '0';
	}
	p->tags++;
	return 0;
}

int rpl_notation_parser_line(rpl_notation_parser *p, const char *line, size_t len, rpl_notation_item *it)
{
	struct scan sc;
	char kw[16], f[64];
	int err, kwcol;

	if (!p || (!line && len) || !it)
		return RPL_EINVAL;
	p->line++;
	p->errmsg[0] = '\0';
	p->err_line = p->err_col = 0;
	if (len && line[len - 1] == '\n')
		len--;
	if (len && line[len - 1] == '\r')
		len--;
	if (len > RPL_NOTATION_MAX_LINE) {
		/* quote a short prefix only: the line may be anything, of any length */
		char q[24];
		size_t k = 0;
		for (; k < 16; k++) {
			unsigned char c = (unsigned char)line[k];
			q[k] = c < 0x20 || c >= 0x7f ? '?' : (char)c;
		}
		q[k] = '\0';
		return fail(p, RPL_ELIMIT, 0, "a line holds at most %d bytes; this one is longer ('%s...')",
		            RPL_NOTATION_MAX_LINE, q);
	}
	sc.p = p;
	sc.s = line ? line : "";
	sc.n = len;
	sc.i = 0;
	for (size_t k = 0; k < len; k++) {
		unsigned char c = (unsigned char)line[k];
		if ((c < 0x20 && c != '\t') || c == 0x7f) {
			sc.i = k;
			return fail(p, RPL_EPARSE, col(&sc), "a control character (0x%02x)", c);
		}
	}
	memset(it, 0, offsetof(rpl_notation_item, cards));
	it->ncards = 0;
	it->nactions = 0;
	it->line = p->line;

	if (at_end(&sc)) {
		it->kind = RPL_NOTATION_BLANK;
		return 0;
	}
	if (p->ended)
		return fail(p, RPL_EPARSE, col(&sc), "nothing may follow 'end'");
	if (sc.s[sc.i] == '[')
		return parse_tag(&sc, it);
	kwcol = col(&sc);
	if (is_digit(sc.s[sc.i])) {
		if (!p->deal_lines)
			return fail(p, RPL_EPARSE, kwcol, "a turn before the first deal");
		err = parse_turn(&sc, it);
		if (err < 0)
			return err;
		return 0;
	}
	if (word(&sc, kw, sizeof kw) == 0 || token_len(&sc) != 0) {
		sc.i = 0;
		skip_ws(&sc);
		return fail(p, RPL_EPARSE, kwcol, "expected a tag, a deal, a turn, a claim or 'end', not %s",
		            found(&sc, f, sizeof f));
	}
	if (strcmp(kw, "hand") == 0 || strcmp(kw, "morto") == 0 || strcmp(kw, "stock") == 0) {
		err = parse_block_line(&sc, kw, kwcol, it);
		if (err < 0)
			return err;
		switch (it->kind) {
		case RPL_NOTATION_HAND:
			/* players unknown: 2 or 4 hands, so a morto may follow the second hand */
			p->block_hands++;
			if (p->nplayers)
				p->block = p->block_hands < p->nplayers ? BLOCK_HAND : BLOCK_MORTO0;
			else
				p->block = p->block_hands == 2 || p->block_hands == 4 ? BLOCK_MORTO0 : BLOCK_HAND;
			break;
		case RPL_NOTATION_MORTO: p->block = it->number == 0 ? BLOCK_MORTO1 : BLOCK_STOCK; break;
		default: p->block = BLOCK_NONE; break;
		}
		return 0;
	}
	if (p->block) {
		char want[64];
		block_name(p, want, sizeof want);
		return fail(p, RPL_EPARSE, kwcol, "expected %s: the deal block is not complete", want);
	}
	if (strcmp(kw, "deal") == 0) {
		skip_ws(&sc);
		err = number(&sc, "a deal number");
		if (err < 0)
			return err;
		if (err == 0)
			return fail(p, RPL_EPARSE, col(&sc) - 1, "deals are numbered from 1");
		it->number = err;
		if (!at_end(&sc))
			return fail(p, RPL_EPARSE, col(&sc), "expected the end of the line, not %s", found(&sc, f, sizeof f));
		it->kind = RPL_NOTATION_DEAL;
		p->body = 1;
		p->deal_lines++;
		p->block = BLOCK_HAND;
		p->block_hands = 0;
		return 0;
	}
	if (strcmp(kw, "claim") == 0) {
		skip_ws(&sc);
		if (sc.i < sc.n && is_alpha(sc.s[sc.i])) {
			size_t at = sc.i;
			char w[16];
			word(&sc, w, sizeof w);
			if (strcmp(w, "match") != 0) {
				sc.i = at;
				return fail(p, RPL_EPARSE, col(&sc), "expected a deal number or 'match', not %s",
				            found(&sc, f, sizeof f));
			}
			it->number = 0;
		} else {
			err = number(&sc, "a deal number or 'match'");
			if (err < 0)
				return err;
			if (err == 0)
				return fail(p, RPL_EPARSE, col(&sc) - 1, "deals are numbered from 1 ('claim match' for the match)");
			it->number = err;
		}
		if (expect_char(&sc, ':', "':'") < 0)
			return RPL_EPARSE;
		for (int s = 0; s < 2; s++) {
			skip_ws(&sc);
			err = score(&sc, s ? "side 1's score" : "side 0's score", &it->score[s]);
			if (err < 0)
				return err;
		}
		if (!at_end(&sc))
			return fail(p, RPL_EPARSE, col(&sc), "expected the end of the line, not %s", found(&sc, f, sizeof f));
		it->kind = RPL_NOTATION_CLAIM;
		p->body = 1;
		return 0;
	}
	if (strcmp(kw, "seed") == 0) {
		char hex[80];
		size_t n = 0;
		int hcol;
		skip_ws(&sc);
		hcol = col(&sc);
		while (sc.i < sc.n && n + 1 < sizeof hex && sc.s[sc.i] != ' ' && sc.s[sc.i] != '\t' && sc.s[sc.i] != ';')
			hex[n++] = sc.s[sc.i++];
		hex[n] = '\0';
		if (hex_bytes(hex, it->seed, sizeof it->seed) < 0)
			return fail(p, RPL_EPARSE, hcol, "a seed is 64 hex digits");
		if (!at_end(&sc))
			return fail(p, RPL_EPARSE, col(&sc), "expected the end of the line, not %s", found(&sc, f, sizeof f));
		it->kind = RPL_NOTATION_SEED;
		p->body = 1;
		return 0;
	}
	if (strcmp(kw, "end") == 0) {
		if (!at_end(&sc)) {
			size_t at = sc.i;
			char w[16];
			if (word(&sc, w, sizeof w) == 0 || strcmp(w, "recovered") != 0 || !at_end(&sc)) {
				sc.i = at;
				return fail(p, RPL_EPARSE, col(&sc), "expected 'recovered' or the end of the line, not %s",
				            found(&sc, f, sizeof f));
			}
			it->recovered = 1;
		}
		it->kind = RPL_NOTATION_END;
		p->body = 1;
		p->ended = 1;
		return 0;
	}
	return fail(p, RPL_EPARSE, kwcol, "unknown line keyword '%s'", kw);
}

int rpl_notation_parser_finish(rpl_notation_parser *p)
{
	char want[64];

	if (!p)
		return RPL_EINVAL;
	if (p->block) {
		block_name(p, want, sizeof want);
		p->line++;
		fail(p, RPL_EPARSE, 0, "the text ends inside a deal block: expected %s", want);
		p->line--;
		return RPL_EPARSE;
	}
	return 0;
}

/* ---- recording parsed lines ---- */

/* Fail with the recorder's message, at a column of the current item's line. */
static int fail_rec(rpl_notation_parser *p, const rpl_notation_item *it, int err, int column,
                    const rpl_recorder *rec)
{
	const char *msg = rpl_recorder_errmsg(rec);
	int saved = p->line, rc;

	p->line = it->line;
	if (err == RPL_EILLEGAL)
		rc = fail(p, err, column, "%s: %s", rpl_rule_name(rpl_recorder_rule(rec)), msg && *msg ? msg : "refused");
	else
		rc = fail(p, err, column, "%s", msg && *msg ? msg : rpl_strerror(err));
	p->line = saved;
	return rc;
}

/* The turn a decision of this kind opens or continues, as the codec counts them. */
static int turn_of(const rpl_notation_parser *p, int kind)
{
	return kind == RPL_ACT_MORTO || p->open ? p->turn : p->turn + 1;
}

static int record_turn(rpl_notation_parser *p, rpl_recorder *rec, const rpl_notation_item *it, size_t *recorded)
{
	int saved = p->line, err = 0;
	char text[128];

	p->line = it->line;
	for (size_t i = 0; i < it->nactions; i++) {
		const rpl_action *a = &it->actions[i];
		/* a morto belongs to whoever emptied the hand; anything else to the seat to move */
		int seat = a->kind == RPL_ACT_MORTO && p->last_seat >= 0 ? p->last_seat : rpl_recorder_seat(rec);
		int turn = turn_of(p, a->kind);

		if (seat < 0) {
			err = fail(p, RPL_ESTATE, it->column[i], "no deal is in progress");
			goto done;
		}
		if (seat != it->seat) {
			rpl_action_format(a, text, sizeof text);
			if (i == 0)
				err = fail(p, RPL_EPARSE, it->seat_column, "seat %d is to move, not seat %d", seat, it->seat);
			else
				err = fail(p, RPL_EPARSE, it->column[i],
				           "'%s' belongs to seat %d's turn: a line holds one turn of one seat", text, seat);
			goto done;
		}
		if (i == 0 && it->number && it->number != turn) {
			err = fail(p, RPL_EPARSE, 1, "this is turn %d of the deal, not %d", turn, it->number);
			goto done;
		}
		err = rpl_recorder_action(rec, a);
		if (err < 0) {
			p->line = saved;
			err = fail_rec(p, it, err, it->column[i], rec);
			p->line = it->line;
			goto done;
		}
		if (a->kind != RPL_ACT_MORTO && !p->open) {
			p->open = 1;
			p->turn++;
		}
		if (a->kind == RPL_ACT_DISCARD)
			p->open = 0;
		p->last_seat = seat;
		if (recorded)
			(*recorded)++;
	}
done:
	p->line = saved;
	return err;
}

int rpl_notation_record(rpl_notation_parser *p, rpl_recorder *rec, const rpl_notation_item *it, size_t *recorded)
{
	int err, saved;

	if (recorded)
		*recorded = 0;
	if (!p || !rec || !it)
		return RPL_EINVAL;
	p->errmsg[0] = '\0';
	saved = p->line;
	switch (it->kind) {
	case RPL_NOTATION_BLANK:
	case RPL_NOTATION_END:
		return 0;
	case RPL_NOTATION_TAG:
		p->line = it->line;
		err = fail(p, RPL_ESTATE, 1, "a tag cannot be recorded: the header goes to the recorder when it opens");
		p->line = saved;
		return err;
	case RPL_NOTATION_DEAL:
		if (it->number != p->deals + 1) {
			p->line = it->line;
			/* the block is refused as a whole: the parser expects a new "deal N" */
			p->block = BLOCK_NONE;
			err = fail(p, RPL_EPARSE, 1, "the next deal is deal %d, not %d", p->deals + 1, it->number);
			p->line = saved;
			return err;
		}
		memset(&p->layout, 0, sizeof p->layout);
		p->deal_line = it->line;
		return 0;
	case RPL_NOTATION_HAND:
		memcpy(p->layout.hand[it->number], it->cards, RPL_HAND_SIZE);
		return 0;
	case RPL_NOTATION_MORTO:
		memcpy(p->layout.morto[it->number], it->cards, RPL_MORTO_SIZE);
		return 0;
	case RPL_NOTATION_STOCK:
		memcpy(p->layout.stock, it->cards, it->ncards);
		err = rpl_recorder_deal(rec, &p->layout);
		if (err < 0)
			return fail_rec(p, it, err, 0, rec);
		p->deals++;
		p->turn = 0;
		p->open = 0;
		p->last_seat = -1;
		return 0;
	case RPL_NOTATION_TURN:
		return record_turn(p, rec, it, recorded);
	case RPL_NOTATION_CLAIM:
		err = rpl_recorder_claim(rec, it->number, it->score);
		if (err < 0)
			return fail_rec(p, it, err, 0, rec);
		return 0;
	case RPL_NOTATION_SEED:
		err = rpl_recorder_seed(rec, it->seed);
		if (err < 0)
			return fail_rec(p, it, err, 0, rec);
		return 0;
	default:
		return RPL_EINVAL;
	}
}

/* ---- the writer ---- */

struct out {
	int (*write)(void *ud, const char *s, size_t n);
	void *ud;
	int err;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->err == 0 && n > 0)
		o->err = o->write(o->ud, s, n);
	if (o->err > 0)
		o->err = RPL_EIO;
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void printf_(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void printf_(struct out *o, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (k > 0)
		put(o, buf, (size_t)k < sizeof buf ? (size_t)k : sizeof buf - 1);
}

/* A tag value in quotes: printable ASCII as is, '"' and '\' escaped, any other byte as \xHH. */
static void put_string(struct out *o, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)(s ? s : "");
	size_t run = 0;

	put(o, "\"", 1);
	for (;; u++) {
		char esc[4];
		if (*u >= 0x20 && *u < 0x7f && *u != '"' && *u != '\\') {
			run++;
			continue;
		}
		put(o, (const char *)u - run, run);
		run = 0;
		if (!*u)
			break;
		esc[0] = '\\';
		if (*u == '"' || *u == '\\') {
			esc[1] = (char)*u;
			put(o, esc, 2);
		} else {
			esc[1] = 'x';
			esc[2] = hex[*u >> 4];
			esc[3] = hex[*u & 15];
			put(o, esc, 4);
		}
	}
	put(o, "\"", 1);
}

static void put_cards(struct out *o, const rpl_card *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		put(o, " ", 1);
		puts_(o, rpl_card_name(c[i]));
	}
	put(o, "\n", 1);
}

static void put_hex(struct out *o, const uint8_t *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		char two[2] = { digits[p[i] >> 4], digits[p[i] & 15] };
		put(o, two, 2);
	}
}

static void write_header(struct out *o, const rpl_match_info *info)
{
	char val[64];
	size_t n = rpl_rules_param_count();

	puts_(o, "[Notation \"1\"]\n[Profile ");
	put_string(o, rpl_rules_profile(info->rules));
	puts_(o, "]\n");
	for (size_t i = 0; i < n; i++) {
		const rpl_param_info *pi = rpl_rules_param_info(i);
		if (!pi || !rpl_rules_is_override(info->rules, pi->id))
			continue;
		if (rpl_rules_get(info->rules, pi->name, val, sizeof val) < 0)
			continue;
		puts_(o, "[Rule ");
		put_string(o, pi->name);
		put(o, " ", 1);
		put_string(o, val);
		puts_(o, "]\n");
	}
	printf_(o, "[Players \"%d\"]\n", info->nplayers);
	for (int s = 0; s < info->nplayers && s < RPL_MAX_SEATS; s++) {
		if (!info->players[s] || !info->players[s][0])
			continue;
		printf_(o, "[Seat \"%d\" ", s);
		put_string(o, info->players[s]);
		puts_(o, "]\n");
	}
	printf_(o, "[FirstDealer \"%d\"]\n", info->first_dealer);
	if (info->start_time != 0) {
		rpl_notation_time_format(info->start_time, val, sizeof val); /* checked by the caller */
		printf_(o, "[Start \"%s\"]\n", val);
	}
	for (size_t i = 0; i < info->nmeta; i++) {
		puts_(o, "[Meta ");
		put_string(o, info->meta_keys[i]);
		put(o, " ", 1);
		put_string(o, info->meta_values[i]);
		puts_(o, "]\n");
	}
	if (info->commitment) {
		puts_(o, "[Commitment \"");
		put_hex(o, info->commitment, RPL_DEAL_COMMIT_SIZE);
		puts_(o, "\"]\n");
		for (int i = 0; i < info->nplayer_seeds; i++) {
			puts_(o, "[PlayerSeed \"");
			put_hex(o, info->player_seeds[i], RPL_DEAL_SEED_SIZE);
			puts_(o, "\"]\n");
		}
	}
}

static void seterr(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

int rpl_notation_write(rpl_reader *rd, int (*write)(void *ud, const char *s, size_t n), void *ud, char *err,
                       size_t errlen)
{
	struct out o = { write, ud, 0 };
	const rpl_match_info *info;
	rpl_event *ev = NULL;
	char text[128], tbuf[32];
	int rc = 0, open = 0, deal = 0, turn = 0, seat = -1, nplayers;
	size_t inline_n = 0;

	if (err && errlen)
		err[0] = '\0';
	if (!rd || !write)
		return RPL_EINVAL;
	info = rpl_reader_info(rd);
	if (!info || !info->rules)
		return RPL_EINVAL;
	nplayers = info->nplayers;
	if (info->start_time != 0 && rpl_notation_time_format(info->start_time, tbuf, sizeof tbuf) < 0) {
		seterr(err, errlen, "the start time %lld is outside the years 0000 to 9999", (long long)info->start_time);
		return RPL_ELIMIT;
	}
	ev = malloc(sizeof *ev);
	if (!ev) {
		seterr(err, errlen, "out of memory");
		return RPL_ENOMEM;
	}
	write_header(&o, info);
	while (o.err == 0 && (rc = rpl_reader_next(rd, ev)) > 0) {
		if (ev->kind == RPL_EV_ACTION) {
			/* one line per turn (the codec's turn count); a very long turn goes on on the next line */
			if (open && (ev->deal != deal || ev->turn != turn || ev->seat != seat ||
			             inline_n == RPL_NOTATION_MAX_ACTIONS)) {
				put(&o, "\n", 1);
				open = 0;
			}
			rpl_action_format(&ev->action, text, sizeof text);
			if (!open) {
				printf_(&o, "%d. %d: %s", ev->turn, ev->seat, text);
				open = 1;
				inline_n = 0;
				deal = ev->deal;
				turn = ev->turn;
				seat = ev->seat;
			} else {
				put(&o, ", ", 2);
				puts_(&o, text);
			}
			inline_n++;
			continue;
		}
		if (open) {
			put(&o, "\n", 1);
			open = 0;
		}
		switch (ev->kind) {
		case RPL_EV_DEAL:
			printf_(&o, "\ndeal %d\n", ev->deal);
			for (int s = 0; s < nplayers; s++) {
				printf_(&o, "hand %d:", s);
				put_cards(&o, ev->layout.hand[s], RPL_HAND_SIZE);
			}
			for (int m = 0; m < 2; m++) {
				printf_(&o, "morto %d:", m);
				put_cards(&o, ev->layout.morto[m], RPL_MORTO_SIZE);
			}
			puts_(&o, "stock:");
			put_cards(&o, ev->layout.stock, (size_t)RPL_STOCK_SIZE(nplayers));
			break;
		case RPL_EV_CLAIM:
			if (ev->deal == 0)
				printf_(&o, "claim match: %ld %ld\n", (long)ev->score[0], (long)ev->score[1]);
			else
				printf_(&o, "claim %d: %ld %ld\n", ev->deal, (long)ev->score[0], (long)ev->score[1]);
			break;
		case RPL_EV_END:
			puts_(&o, ev->recovered ? "end recovered\n" : "end\n");
			break;
		case RPL_EV_REVEAL:
			puts_(&o, "\nseed ");
			put_hex(&o, ev->seed, RPL_DEAL_SEED_SIZE);
			put(&o, "\n", 1);
			break;
		default:
			break;
		}
	}
	if (open)
		put(&o, "\n", 1);
	if (o.err < 0) {
		rc = o.err;
		seterr(err, errlen, "cannot write the text: %s", rpl_strerror(rc));
	} else if (rc < 0) {
		seterr(err, errlen, "%s (byte %llu)", rpl_reader_errmsg(rd), (unsigned long long)rpl_reader_offset(rd));
	} else {
		rc = 0;
	}
	free(ev);
	return rc;
}

/* ---- import ---- */

/* The header as the tags give it; strings are copies. */
struct header {
	int line;                 /* line of the last tag */
	char *profile;
	int profile_line, profile_col;
	int nrules;
	struct {
		char *name, *value;
		int line, col;
	} rule[64];
	int players, players_line;
	char *seat[RPL_MAX_SEATS];
	int seat_line[RPL_MAX_SEATS], seat_col[RPL_MAX_SEATS];
	int first_dealer, dealer_line, dealer_col;
	int64_t start;
	int start_line;
	size_t nmeta;
	char *meta_key[RPL_MAX_META], *meta_value[RPL_MAX_META];
	int commit_line, nseeds, seeds_line;
	uint8_t commitment[RPL_DEAL_COMMIT_SIZE];
	uint8_t seeds[RPL_DEAL_MAX_PLAYER_SEEDS][RPL_DEAL_SEED_SIZE];
};

static void header_free(struct header *h)
{
	free(h->profile);
	for (int i = 0; i < h->nrules; i++) {
		free(h->rule[i].name);
		free(h->rule[i].value);
	}
	for (int s = 0; s < RPL_MAX_SEATS; s++)
		free(h->seat[s]);
	for (size_t i = 0; i < h->nmeta; i++) {
		free(h->meta_key[i]);
		free(h->meta_value[i]);
	}
}

static char *dup_str(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	if (d)
		memcpy(d, s, n);
	return d;
}

/* A small decimal tag value in 0..max; -1 otherwise. */
static int small_number(const char *s, int max)
{
	int v = 0;

	if (!*s || strlen(s) > 3)
		return -1;
	for (; *s; s++) {
		if (!is_digit(*s))
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v <= max ? v : -1;
}

/* Take in one tag; errors name the line and column of the value at fault. */
static int header_add(rpl_notation_parser *p, struct header *h, const rpl_notation_item *it)
{
	const char *t = it->tag, *v0 = it->value[0];
	int c0 = it->value_column[0], c1 = it->value_column[1];

	h->line = it->line;
	if (strcmp(t, "Notation") == 0)
		return 0;
	if (strcmp(t, "Profile") == 0) {
		if (h->profile)
			return fail(p, RPL_EPARSE, c0, "[Profile] is given twice");
		if (!(h->profile = dup_str(v0)))
			return fail(p, RPL_ENOMEM, 0, "out of memory");
		h->profile_line = it->line;
		h->profile_col = c0;
		return 0;
	}
	if (strcmp(t, "Rule") == 0) {
		for (int i = 0; i < h->nrules; i++)
			if (ieq(h->rule[i].name, v0))
				return fail(p, RPL_EPARSE, c0, "[Rule \"%s\"] is given twice", v0);
		if (h->nrules == (int)(sizeof h->rule / sizeof h->rule[0]))
			return fail(p, RPL_ELIMIT, c0, "too many [Rule] tags");
		h->rule[h->nrules].name = dup_str(v0);
		h->rule[h->nrules].value = dup_str(it->value[1]);
		h->rule[h->nrules].line = it->line;
		h->rule[h->nrules].col = c0;
		h->nrules++;
		if (!h->rule[h->nrules - 1].name || !h->rule[h->nrules - 1].value)
			return fail(p, RPL_ENOMEM, 0, "out of memory");
		return 0;
	}
	if (strcmp(t, "Players") == 0) {
		if (h->players)
			return fail(p, RPL_EPARSE, c0, "[Players] is given twice");
		h->players = v0[0] - '0'; /* the parser checked "2" or "4" */
		h->players_line = it->line;
		return 0;
	}
	if (strcmp(t, "Seat") == 0) {
		int s = small_number(v0, RPL_MAX_SEATS - 1);
		if (s < 0)
			return fail(p, RPL_EPARSE, c0, "[Seat] names seat 0 to 3, not \"%s\"", v0);
		if (h->seat[s])
			return fail(p, RPL_EPARSE, c0, "seat %d is named twice", s);
		if (strlen(it->value[1]) > RPL_MAX_NAME)
			return fail(p, RPL_ELIMIT, c1, "a name has at most %d bytes", RPL_MAX_NAME);
		if (!(h->seat[s] = dup_str(it->value[1])))
			return fail(p, RPL_ENOMEM, 0, "out of memory");
		h->seat_line[s] = it->line;
		h->seat_col[s] = c0;
		return 0;
	}
	if (strcmp(t, "FirstDealer") == 0) {
		int s = small_number(v0, RPL_MAX_SEATS - 1);
		if (h->dealer_line)
			return fail(p, RPL_EPARSE, c0, "[FirstDealer] is given twice");
		if (s < 0)
			return fail(p, RPL_EPARSE, c0, "[FirstDealer] is a seat, 0 to 3, not \"%s\"", v0);
		h->first_dealer = s;
		h->dealer_line = it->line;
		h->dealer_col = c0;
		return 0;
	}
	if (strcmp(t, "Start") == 0) {
		if (h->start_line)
			return fail(p, RPL_EPARSE, c0, "[Start] is given twice");
		if (rpl_notation_time_parse(v0, &h->start) < 0)
			return fail(p, RPL_EPARSE, c0, "[Start] is a UTC time such as \"2026-11-30T01:58:23Z\", not \"%s\"", v0);
		if (h->start == 0)
			return fail(p, RPL_EPARSE, c0, "[Start] at 0 means unknown: leave the tag out");
		h->start_line = it->line;
		return 0;
	}
	if (strcmp(t, "Meta") == 0) {
		if (h->nmeta == RPL_MAX_META)
			return fail(p, RPL_ELIMIT, c0, "at most %d [Meta] tags", RPL_MAX_META);
		if (strlen(v0) > RPL_MAX_META_TEXT)
			return fail(p, RPL_ELIMIT, c0, "a metadata key has at most %d bytes", RPL_MAX_META_TEXT);
		if (strlen(it->value[1]) > RPL_MAX_META_TEXT)
			return fail(p, RPL_ELIMIT, c1, "a metadata value has at most %d bytes", RPL_MAX_META_TEXT);
		h->meta_key[h->nmeta] = dup_str(v0);
		h->meta_value[h->nmeta] = dup_str(it->value[1]);
		h->nmeta++;
		if (!h->meta_key[h->nmeta - 1] || !h->meta_value[h->nmeta - 1])
			return fail(p, RPL_ENOMEM, 0, "out of memory");
		return 0;
	}
	if (strcmp(t, "Commitment") == 0) {
		if (h->commit_line)
			return fail(p, RPL_EPARSE, c0, "[Commitment] is given twice");
		if (hex_bytes(v0, h->commitment, sizeof h->commitment) < 0)
			return fail(p, RPL_EPARSE, c0, "[Commitment] is 64 hex digits");
		h->commit_line = it->line;
		return 0;
	}
	if (strcmp(t, "PlayerSeed") == 0) {
		if (h->nseeds == RPL_DEAL_MAX_PLAYER_SEEDS)
			return fail(p, RPL_ELIMIT, c0, "at most %d [PlayerSeed] tags", RPL_DEAL_MAX_PLAYER_SEEDS);
		if (hex_bytes(v0, h->seeds[h->nseeds], RPL_DEAL_SEED_SIZE) < 0)
			return fail(p, RPL_EPARSE, c0, "[PlayerSeed] is 64 hex digits");
		h->nseeds++;
		h->seeds_line = it->line;
		return 0;
	}
	return fail(p, RPL_EPARSE, 1, "unknown tag '%s'", t);
}

/* The rules and the match info of a complete header; p->line is the line that ends the header. */
static int header_finish(rpl_notation_parser *p, const struct header *h, rpl_rules **rules, rpl_match_info *info)
{
	int err, saved = p->line;
	const char *missing = NULL;

	if (p->tags == 0)
		return fail(p, RPL_EPARSE, 0, "the text does not begin with [Notation \"1\"]");
	if (!h->profile)
		missing = "Profile";
	else if (!h->players)
		missing = "Players";
	else if (!h->dealer_line)
		missing = "FirstDealer";
	if (missing)
		return fail(p, RPL_EPARSE, 0, "the header has no [%s] tag", missing);
	err = rpl_rules_new(rules, h->profile);
	if (err < 0) {
		p->line = h->profile_line;
		if (err == RPL_ENOTFOUND)
			err = fail(p, RPL_EPARSE, h->profile_col, "unknown profile \"%s\"", h->profile);
		else
			err = fail(p, err, 0, "%s", rpl_strerror(err));
		goto out;
	}
	for (int i = 0; i < h->nrules; i++) {
		err = rpl_rules_set(*rules, h->rule[i].name, h->rule[i].value);
		if (err < 0) {
			const char *detail = rpl_rules_errmsg(*rules);
			p->line = h->rule[i].line;
			if (err == RPL_ENOTFOUND)
				err = fail(p, RPL_EPARSE, h->rule[i].col, "unknown rule parameter \"%s\"", h->rule[i].name);
			else
				err = fail(p, RPL_EPARSE, h->rule[i].col, "%s",
				           detail && *detail ? detail : "a value out of range");
			goto out;
		}
	}
	for (int s = h->players; s < RPL_MAX_SEATS; s++)
		if (h->seat[s]) {
			p->line = h->seat_line[s];
			err = fail(p, RPL_EPARSE, h->seat_col[s], "there is no seat %d with %d players", s, h->players);
			goto out;
		}
	if (h->first_dealer >= h->players) {
		p->line = h->dealer_line;
		err = fail(p, RPL_EPARSE, h->dealer_col, "there is no seat %d with %d players", h->first_dealer,
		           h->players);
		goto out;
	}
	memset(info, 0, sizeof *info);
	info->rules = *rules;
	info->nplayers = h->players;
	for (int s = 0; s < RPL_MAX_SEATS; s++)
		info->players[s] = h->seat[s];
	info->first_dealer = h->first_dealer;
	info->start_time = h->start;
	info->nmeta = h->nmeta;
	info->meta_keys = (const char *const *)h->meta_key;
	info->meta_values = (const char *const *)h->meta_value;
	if (h->nseeds && !h->commit_line) {
		p->line = h->seeds_line;
		err = fail(p, RPL_EPARSE, 1, "[PlayerSeed] needs a [Commitment]");
		goto out;
	}
	if (h->commit_line) {
		info->commitment = h->commitment;
		info->nplayer_seeds = h->nseeds;
		info->player_seeds = (const uint8_t(*)[RPL_DEAL_SEED_SIZE])h->seeds;
	}
	err = 0;
out:
	p->line = saved;
	return err;
}

/* Why the recorder failed (its message names no path; the caller knows out_path). */
static const char *io_why(const rpl_recorder *rec, int rc)
{
	const char *m = rec ? rpl_recorder_errmsg(rec) : "";

	return m && *m ? m : rpl_strerror(rc);
}

/*
 * The log is recorded into OUT.part~ and renamed over out_path once whole, so
 * that a failed or killed import never leaves a log that looks complete, and
 * an existing out_path is untouched until then.
 */
/* The header is complete: open the recorder on the temporary file. */
static int open_output(rpl_notation_parser *p, const struct header *h, rpl_rules **rules, rpl_match_info *info,
                       rpl_recorder **rec, const char *tmp, int *created)
{
	int rc = header_finish(p, h, rules, info);

	if (rc < 0)
		return rc;
	rc = rpl_recorder_open(rec, tmp, info, RPL_RECORD_UNCHECKED);
	if (rc < 0) {
		rpl__msgf(p->errmsg, "%s", io_why(*rec, rc));
		*created = *rec != NULL;
		return rc;
	}
	*created = 1;
	return 0;
}

/*
 * Where import takes its lines from: a text in memory, or a read callback
 * through a buffer of one line at most (plus its line break), so that
 * memory does not grow with the input. A line longer than the limit is
 * handed over cut at RPL_NOTATION_MAX_LINE + 1 bytes, for the parser to
 * refuse: the rest of it is never read.
 */
struct source {
	const char *text; /* in memory */
	size_t len, pos;
	ptrdiff_t (*read)(void *ud, char *buf, size_t n); /* or streamed */
	void *ud;
	char *buf;
	size_t start, end;
	int eof;
};

#define SOURCE_BUF (RPL_NOTATION_MAX_LINE + 2)

/* The next line without its "\n": 1, 0 at the end of the text, or a negative error of the callback. */
static int next_line(struct source *src, const char **line, size_t *n)
{
	if (!src->read) {
		const char *nl;
		if (src->pos >= src->len)
			return 0;
		nl = memchr(src->text + src->pos, '\n', src->len - src->pos);
		*line = src->text + src->pos;
		*n = nl ? (size_t)(nl - *line) : src->len - src->pos;
		src->pos += *n + (nl ? 1 : 0);
		return 1;
	}
	for (;;) {
		const char *nl = memchr(src->buf + src->start, '\n', src->end - src->start);
		ptrdiff_t got;
		if (nl || src->end - src->start == SOURCE_BUF || (src->eof && src->end > src->start)) {
			*line = src->buf + src->start;
			*n = nl ? (size_t)(nl - *line) : src->end - src->start;
			src->start += *n + (nl ? 1 : 0);
			return 1;
		}
		if (src->eof)
			return 0;
		if (src->start > 0) {
			memmove(src->buf, src->buf + src->start, src->end - src->start);
			src->end -= src->start;
			src->start = 0;
		}
		got = src->read(src->ud, src->buf + src->end, SOURCE_BUF - src->end);
		if (got < 0)
			return (int)got;
		if (got == 0)
			src->eof = 1;
		src->end += (size_t)got;
	}
}

static int import_source(struct source *src, const char *out_path, char *err, size_t errlen);

int rpl_notation_import(const char *text, size_t len, const char *out_path, char *err, size_t errlen)
{
	struct source src = { 0 };

	if (err && errlen)
		err[0] = '\0';
	if ((!text && len) || !out_path)
		return RPL_EINVAL;
	src.text = text;
	src.len = len;
	return import_source(&src, out_path, err, errlen);
}

int rpl_notation_import_stream(ptrdiff_t (*read)(void *ud, char *buf, size_t n), void *ud, const char *out_path,
                               char *err, size_t errlen)
{
	struct source src = { 0 };
	int rc;

	if (err && errlen)
		err[0] = '\0';
	if (!read || !out_path)
		return RPL_EINVAL;
	src.read = read;
	src.ud = ud;
	src.buf = malloc(SOURCE_BUF);
	if (!src.buf)
		return RPL_ENOMEM;
	rc = import_source(&src, out_path, err, errlen);
	free(src.buf);
	return rc;
}

static int import_source(struct source *src, const char *out_path, char *err, size_t errlen)
{
	rpl_notation_parser *p = NULL;
	rpl_notation_item *it = NULL;
	rpl_recorder *rec = NULL;
	rpl_rules *rules = NULL;
	rpl_match_info info;
	struct header h;
	const char *line = NULL;
	size_t n = 0;
	int rc, ended = 0, created = 0, got;
	char *tmp = NULL;
	struct stat st;

	memset(&h, 0, sizeof h);
	rc = rpl_notation_parser_new(&p);
	if (rc < 0)
		goto cleanup;
	if (stat(out_path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* the log is renamed into place: never over a device or a directory */
		rc = RPL_EIO;
		rpl__msgf(p->errmsg, "not a regular file");
		goto cleanup;
	}
	tmp = malloc(strlen(out_path) + sizeof ".part~");
	if (!tmp) {
		rc = RPL_ENOMEM;
		goto cleanup;
	}
	sprintf(tmp, "%s.part~", out_path);
	it = malloc(sizeof *it);
	if (!it) {
		rc = RPL_ENOMEM;
		goto cleanup;
	}
	while ((got = next_line(src, &line, &n)) > 0) {
		rc = rpl_notation_parser_line(p, line, n, it);
		if (rc < 0)
			goto cleanup;
		if (it->kind == RPL_NOTATION_BLANK)
			continue;
		if (it->kind == RPL_NOTATION_TAG) {
			rc = header_add(p, &h, it);
			if (rc < 0)
				goto cleanup;
			continue;
		}
		if (!rec) {
			rc = open_output(p, &h, &rules, &info, &rec, tmp, &created);
			if (rc < 0)
				goto cleanup;
		}
		if (it->kind == RPL_NOTATION_END) {
			ended = 1;
			if (it->recovered)
				rpl_recorder_mark_recovered(rec);
			continue;
		}
		rc = rpl_notation_record(p, rec, it, NULL);
		if (rc < 0)
			goto cleanup;
	}
	if (got < 0) {
		rc = got;
		snprintf(p->errmsg, sizeof p->errmsg, "line %d: cannot read the text: %s", p->line + 1, rpl_strerror(rc));
		goto cleanup;
	}
	rc = rpl_notation_parser_finish(p);
	if (rc < 0)
		goto cleanup;
	if (!rec) {
		/* a header and nothing else: a match not yet begun */
		p->line++;
		rc = open_output(p, &h, &rules, &info, &rec, tmp, &created);
		if (rc < 0)
			goto cleanup;
	}
	rc = ended ? rpl_recorder_close(rec) : rpl_recorder_flush(rec);
	if (rc < 0) {
		rpl__msgf(p->errmsg, "%s", io_why(rec, rc));
	} else {
		rpl_recorder_free(rec);
		rec = NULL;
		if (rename(tmp, out_path) < 0) {
			rc = RPL_EIO;
			rpl__msgf(p->errmsg, "%s", strerror(errno));
		}
	}
cleanup:
	if (rc < 0 && err && errlen)
		snprintf(err, errlen, "%s", p && p->errmsg[0] ? p->errmsg : rpl_strerror(rc));
	rpl_recorder_free(rec);
	if (rc < 0 && created)
		remove(tmp); /* nothing half-written is left behind */
	free(tmp);
	rpl_rules_free(rules);
	header_free(&h);
	free(it);
	rpl_notation_parser_free(p);
	return rc;
}
