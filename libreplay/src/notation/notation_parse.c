/*
 * The text notation's streaming parser (docs/notation.md): one line at a
 * time, it keeps only what the order of the lines needs (are we in the
 * header, inside a deal block, past "end"); what a turn line means for the
 * game is checked by rpl_notation_record() (notation_record.c) against the
 * recorder's card bookkeeping.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "notation/notation_impl.h"

/* ---- errors ---- */

int rpl__notation_fail(rpl_notation_parser *p, int err, int column, const char *fmt, ...)
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

static int is_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The token at the position: up to white space, ',', ':' or ';'. Does not move. */
static size_t token_len(const struct scan *sc)
{
	size_t k = sc->i;

	while (k < sc->n && sc->s[k] != ' ' && sc->s[k] != '\t' && sc->s[k] != ',' && sc->s[k] != ':' && sc->s[k] != ';')
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
	return rpl__notation_fail(sc->p, RPL_EPARSE, col(sc), "expected %s, not %s", what, found(sc, f, sizeof f));
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
		return rpl__notation_fail(sc->p, RPL_EPARSE, col(sc), "expected %s, not %s", what, found(sc, f, sizeof f));
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
		return rpl__notation_fail(sc->p, RPL_EPARSE, col(sc), "expected %s, not %s", what, found(sc, f, sizeof f));
	}
	if ((sc->i < sc->n && is_digit(sc->s[sc->i])) || v > (int64_t)INT32_MAX + neg) {
		sc->i = start;
		return rpl__notation_fail(sc->p, RPL_EPARSE, col(sc), "%s is outside the 32-bit range (%ld to %ld)", what,
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
		return rpl__notation_fail(sc->p, RPL_EPARSE, col(sc), "not a card: %s", found(sc, q, sizeof q));
	sc->i += len;
	return 0;
}

/* ---- lines ---- */

static int parse_cards(struct scan *sc, rpl_notation_item *it, size_t want, const char *what)
{
	it->ncards = 0;
	while (!at_end(sc)) {
		if (it->ncards == want)
			return rpl__notation_fail(sc->p, RPL_EPARSE, col(sc), "%s holds %zu cards, not more", what, want);
		if (card(sc, &it->cards[it->ncards]) < 0)
			return RPL_EPARSE;
		it->ncards++;
	}
	if (it->ncards != want)
		return rpl__notation_fail(sc->p, RPL_EPARSE, col(sc), "%s holds %zu cards, not %zu", what, want, it->ncards);
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
				return rpl__notation_fail(p, RPL_EPARSE, kwcol,
				                          "a hand line outside a deal block (a deal starts with 'deal N')");
			return rpl__notation_fail(p, RPL_EPARSE, kwcol, "expected %s, not a hand", want);
		}
		skip_ws(sc);
		v = number(sc, "a seat");
		if (v < 0)
			return v;
		if (v != p->block_hands)
			return rpl__notation_fail(p, RPL_EPARSE, kwcol, "expected %s, not 'hand %d:'", want, v);
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
			return rpl__notation_fail(p, RPL_EPARSE, kwcol, "there are mortos 0 and 1, not %d", v);
		if (!((v == 0 && p->block == BLOCK_MORTO0) || (v == 1 && p->block == BLOCK_MORTO1))) {
			if (!p->block)
				return rpl__notation_fail(p, RPL_EPARSE, kwcol,
				                          "a morto line outside a deal block (a deal starts with 'deal N')");
			return rpl__notation_fail(p, RPL_EPARSE, kwcol, "expected %s, not 'morto %d:'", want, v);
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
				return rpl__notation_fail(p, RPL_EPARSE, kwcol,
				                          "a stock line outside a deal block (a deal starts with 'deal N')");
			return rpl__notation_fail(p, RPL_EPARSE, kwcol, "expected %s, not the stock", want);
		}
		if (expect_char(sc, ':', "':'") < 0 ||
		    parse_cards(sc, it, (size_t)RPL_STOCK_SIZE(p->block_hands), "the stock") < 0)
			return RPL_EPARSE;
		it->kind = RPL_NOTATION_STOCK;
		return 0;
	}
	return rpl__notation_fail(p, RPL_EPARSE, kwcol, "unknown line keyword '%s'", kw);
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
				return rpl__notation_fail(sc->p, RPL_EPARSE, col(sc), "expected ',' or the end of the line, not %s",
				                          found(sc, f, sizeof f));
			break;
		}
		if (a->ncards == 14)
			return rpl__notation_fail(sc->p, RPL_EPARSE, col(sc), "a meld holds at most 14 cards");
		if (card(sc, &a->cards[a->ncards]) < 0)
			return RPL_EPARSE;
		a->ncards++;
	}
	if (a->ncards == 0)
		return rpl__notation_fail(sc->p, RPL_EPARSE, col(sc), "expected a card, not %s", found(sc, f, sizeof f));
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
			return rpl__notation_fail(sc->p, RPL_EPARSE, col(sc), "expected a decision, not %s",
			                          found(sc, f, sizeof f));
		return rpl__notation_fail(sc->p, RPL_EPARSE, col(sc), "unknown decision %s", found(sc, f, sizeof f));
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
			return rpl__notation_fail(sc->p, RPL_EPARSE, col(sc) - 1, "there are sides 0 and 1, not %d", v);
		a->side = (uint8_t)v;
		if (sc->i >= sc->n || sc->s[sc->i] != '.')
			return rpl__notation_fail(sc->p, RPL_EPARSE, col(sc), "expected '.' and the meld's index, not %s",
			                          found(sc, f, sizeof f));
		sc->i++;
		v = number(sc, "a meld index");
		if (v < 0)
			return v;
		if (v >= RPL_MAX_MELDS)
			return rpl__notation_fail(sc->p, RPL_EPARSE, col(sc) - 1, "a side has at most %d melds", RPL_MAX_MELDS);
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
			return rpl__notation_fail(sc->p, RPL_EPARSE, col(sc) - 1, "there are mortos 0 and 1, not %d", v);
		a->morto = (uint8_t)v;
	} else {
		sc->i = start;
		return rpl__notation_fail(sc->p, RPL_EPARSE, col(sc), "unknown decision %s", found(sc, f, sizeof f));
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
		return rpl__notation_fail(p, RPL_EPARSE, first_col, "expected %s: the deal block is not complete", want);
	}
	v = number(sc, "a turn number or a seat");
	if (v < 0)
		return v;
	it->number = 0;
	skip_ws(sc);
	if (sc->i < sc->n && sc->s[sc->i] == '.') {
		if (v == 0)
			return rpl__notation_fail(p, RPL_EPARSE, first_col, "turns are numbered from 1");
		sc->i++;
		it->number = v;
		skip_ws(sc);
		v = number(sc, "a seat");
		if (v < 0)
			return v;
	}
	if (v >= RPL_MAX_SEATS || (p->nplayers && v >= p->nplayers))
		return rpl__notation_fail(p, RPL_EPARSE, col(sc) - 1, "there is no seat %d", v);
	it->seat = v;
	it->seat_column = col(sc) - 1;
	if (expect_char(sc, ':', "':' after the seat") < 0)
		return RPL_EPARSE;
	it->nactions = 0;
	for (;;) {
		skip_ws(sc);
		if (it->nactions == RPL_NOTATION_MAX_ACTIONS)
			return rpl__notation_fail(p, RPL_ELIMIT, col(sc),
			                          "a line holds at most %d decisions: continue the turn on the next line",
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

int rpl__notation_hex_bytes(const char *s, uint8_t *out, size_t n)
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
		return rpl__notation_fail(p, RPL_EPARSE, col(sc), "expected a quoted value, not %s", found(sc, f, sizeof f));
	sc->i++;
	for (;;) {
		unsigned char c;
		if (sc->i >= sc->n)
			return rpl__notation_fail(p, RPL_EPARSE, col(sc), "the value has no closing '\"'");
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
					return rpl__notation_fail(p, RPL_EPARSE, column_at(sc, at), "'\\x' takes two hex digits, 01 to ff");
				c = (unsigned char)(hi * 16 + lo);
				sc->i += 4;
			} else {
				return rpl__notation_fail(p, RPL_EPARSE, column_at(sc, at),
				                          "unknown escape: '\\\"', '\\\\' and '\\xHH' are known");
			}
		} else {
			if (c < 0x20 || c == 0x7f)
				return rpl__notation_fail(p, RPL_EPARSE, col(sc),
				                          "a control character in a value: write it as '\\x%02x'", c);
			sc->i++;
		}
		if (*used + 2 > p->valcap) {
			size_t cap = p->valcap ? p->valcap * 2 : 256;
			char *nv = realloc(p->val, cap);
			if (!nv)
				return rpl__notation_fail(p, RPL_ENOMEM, 0, "out of memory");
			p->val = nv;
			p->valcap = cap;
		}
		p->val[(*used)++] = (char)c;
	}
	if (*used + 1 > p->valcap) {
		char *nv = realloc(p->val, *used + 1);
		if (!nv)
			return rpl__notation_fail(p, RPL_ENOMEM, 0, "out of memory");
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
	{ "Notation", 1 },   { "Profile", 1 },           { "Rule", 2 },       { "Players", 1 },
	{ "Seat", 2 },       { "FirstDealer", 1 },       { "Start", 1 },      { "Meta", 2 },
	{ "Commitment", 1 }, { "CommitmentVersion", 1 }, { "PlayerSeed", 1 }, { "FormatVersion", 1 },
};

static int parse_tag(struct scan *sc, rpl_notation_item *it)
{
	rpl_notation_parser *p = sc->p;
	const struct tag_def *def = NULL;
	char name[32], f[64];
	size_t used = 0, off[2] = { 0, 0 };
	int namecol;

	if (p->body)
		return rpl__notation_fail(p, RPL_EPARSE, col(sc), "a tag after the header: tags come before the first deal");
	sc->i++; /* '[' */
	skip_ws(sc);
	namecol = col(sc);
	if (word(sc, name, sizeof name) == 0 || token_len(sc) != 0) {
		sc->i = sc->i - strlen(name);
		return rpl__notation_fail(p, RPL_EPARSE, namecol, "expected a tag name, not %s", found(sc, f, sizeof f));
	}
	for (size_t k = 0; k < sizeof tag_defs / sizeof tag_defs[0]; k++)
		if (ieq(name, tag_defs[k].name))
			def = &tag_defs[k];
	if (!def)
		return rpl__notation_fail(p, RPL_EPARSE, namecol, "unknown tag '%s'", name);
	if (p->tags == 0 && strcmp(def->name, "Notation") != 0)
		return rpl__notation_fail(p, RPL_EPARSE, namecol, "the first tag must be [Notation \"1\"]");
	for (int k = 0; k < def->nvalues; k++) {
		it->value_column[k] = (skip_ws(sc), col(sc));
		off[k] = used;
		if (parse_string(sc, &used) < 0)
			return RPL_EPARSE;
	}
	skip_ws(sc);
	if (sc->i >= sc->n || sc->s[sc->i] != ']') {
		if (sc->i < sc->n && sc->s[sc->i] == '"')
			return rpl__notation_fail(p, RPL_EPARSE, col(sc), "[%s] takes %d value%s", def->name, def->nvalues,
			                          def->nvalues > 1 ? "s" : "");
		return rpl__notation_fail(p, RPL_EPARSE, col(sc), "expected ']', not %s", found(sc, f, sizeof f));
	}
	sc->i++;
	if (!at_end(sc))
		return rpl__notation_fail(p, RPL_EPARSE, col(sc), "expected the end of the line after ']', not %s",
		                          found(sc, f, sizeof f));

	it->kind = RPL_NOTATION_TAG;
	snprintf(p->tag, sizeof p->tag, "%s", def->name);
	it->tag = p->tag;
	it->nvalues = def->nvalues;
	for (int k = 0; k < def->nvalues; k++)
		it->value[k] = p->val + off[k];
	/* the values whose meaning the parser itself needs */
	if (strcmp(def->name, "Notation") == 0) {
		if (p->tags != 0)
			return rpl__notation_fail(p, RPL_EPARSE, namecol, "[Notation] is given twice");
		if (strcmp(it->value[0], "1") != 0)
			return rpl__notation_fail(p, RPL_EUNSUPPORTED, it->value_column[0],
			                          "notation version \"%s\": this library reads version 1", it->value[0]);
	} else if (strcmp(def->name, "Players") == 0) {
		if (strcmp(it->value[0], "2") != 0 && strcmp(it->value[0], "4") != 0)
			return rpl__notation_fail(p, RPL_EPARSE, it->value_column[0], "[Players] is \"2\" or \"4\", not \"%s\"",
			                          it->value[0]);
		p->nplayers = it->value[0][0] - '0';
	}
	p->tags++;
	return 0;
}

/* A line over the limit, refused quoting a short prefix only: the line may be anything, of any length. */
static int too_long(rpl_notation_parser *p, const char *line)
{
	char q[24];
	size_t k = 0;

	for (; k < 16; k++) {
		unsigned char c = (unsigned char)line[k];
		q[k] = c < 0x20 || c >= 0x7f ? '?' : (char)c;
	}
	q[k] = '\0';
	return rpl__notation_fail(p, RPL_ELIMIT, 0, "a line holds at most %d bytes; this one is longer ('%s...')",
	                          RPL_NOTATION_MAX_LINE, q);
}

/* The first control character of the line but the tab, refused where it is; 0 when there is none. */
static int control_char(struct scan *sc)
{
	for (size_t k = 0; k < sc->n; k++) {
		unsigned char c = (unsigned char)sc->s[k];
		if ((c < 0x20 && c != '\t') || c == 0x7f) {
			sc->i = k;
			return rpl__notation_fail(sc->p, RPL_EPARSE, col(sc), "a control character (0x%02x)", c);
		}
	}
	return 0;
}

/* What the deal block's next line must be after a hand, a morto or the stock (it). */
static void block_advance(rpl_notation_parser *p, const rpl_notation_item *it)
{
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
}

/* The rest of a line after its last field: nothing, or a comment. */
static int line_end(struct scan *sc)
{
	char f[64];

	if (!at_end(sc))
		return rpl__notation_fail(sc->p, RPL_EPARSE, col(sc), "expected the end of the line, not %s",
		                          found(sc, f, sizeof f));
	return 0;
}

/* "deal N": a deal block starts. */
static int parse_deal(struct scan *sc, rpl_notation_item *it)
{
	rpl_notation_parser *p = sc->p;
	int err;

	skip_ws(sc);
	err = number(sc, "a deal number");
	if (err < 0)
		return err;
	if (err == 0)
		return rpl__notation_fail(p, RPL_EPARSE, col(sc) - 1, "deals are numbered from 1");
	it->number = err;
	if ((err = line_end(sc)) < 0)
		return err;
	it->kind = RPL_NOTATION_DEAL;
	p->body = 1;
	p->deal_lines++;
	p->block = BLOCK_HAND;
	p->block_hands = 0;
	return 0;
}

/* "claim N: S0 S1" or "claim match: S0 S1": the scores a recorder claimed. */
static int parse_claim(struct scan *sc, rpl_notation_item *it)
{
	rpl_notation_parser *p = sc->p;
	char f[64];
	int err;

	skip_ws(sc);
	if (sc->i < sc->n && is_alpha(sc->s[sc->i])) {
		size_t at = sc->i;
		char w[16];
		word(sc, w, sizeof w);
		if (strcmp(w, "match") != 0) {
			sc->i = at;
			return rpl__notation_fail(p, RPL_EPARSE, col(sc), "expected a deal number or 'match', not %s",
			                          found(sc, f, sizeof f));
		}
		it->number = 0;
	} else {
		err = number(sc, "a deal number or 'match'");
		if (err < 0)
			return err;
		if (err == 0)
			return rpl__notation_fail(p, RPL_EPARSE, col(sc) - 1,
			                          "deals are numbered from 1 ('claim match' for the match)");
		it->number = err;
	}
	if (expect_char(sc, ':', "':'") < 0)
		return RPL_EPARSE;
	for (int s = 0; s < 2; s++) {
		skip_ws(sc);
		err = score(sc, s ? "side 1's score" : "side 0's score", &it->score[s]);
		if (err < 0)
			return err;
	}
	if ((err = line_end(sc)) < 0)
		return err;
	it->kind = RPL_NOTATION_CLAIM;
	p->body = 1;
	return 0;
}

/* "seed HEX": the revealed seed of a committed match. */
static int parse_seed(struct scan *sc, rpl_notation_item *it)
{
	rpl_notation_parser *p = sc->p;
	char hex[80];
	size_t n = 0;
	int hcol, err;

	skip_ws(sc);
	hcol = col(sc);
	while (sc->i < sc->n && n + 1 < sizeof hex && sc->s[sc->i] != ' ' && sc->s[sc->i] != '\t' && sc->s[sc->i] != ';')
		hex[n++] = sc->s[sc->i++];
	hex[n] = '\0';
	if (rpl__notation_hex_bytes(hex, it->seed, sizeof it->seed) < 0)
		return rpl__notation_fail(p, RPL_EPARSE, hcol, "a seed is 64 hex digits");
	if ((err = line_end(sc)) < 0)
		return err;
	it->kind = RPL_NOTATION_SEED;
	p->body = 1;
	return 0;
}

/* "end" or "end recovered": the match's end; nothing may follow. */
static int parse_end(struct scan *sc, rpl_notation_item *it)
{
	rpl_notation_parser *p = sc->p;
	char f[64];

	if (!at_end(sc)) {
		size_t at = sc->i;
		char w[16];
		if (word(sc, w, sizeof w) == 0 || strcmp(w, "recovered") != 0 || !at_end(sc)) {
			sc->i = at;
			return rpl__notation_fail(p, RPL_EPARSE, col(sc), "expected 'recovered' or the end of the line, not %s",
			                          found(sc, f, sizeof f));
		}
		it->recovered = 1;
	}
	it->kind = RPL_NOTATION_END;
	p->body = 1;
	p->ended = 1;
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
	if (len > RPL_NOTATION_MAX_LINE)
		return too_long(p, line);
	sc.p = p;
	sc.s = line ? line : "";
	sc.n = len;
	sc.i = 0;
	if ((err = control_char(&sc)) < 0)
		return err;
	memset(it, 0, offsetof(rpl_notation_item, cards));
	it->ncards = 0;
	it->nactions = 0;
	it->line = p->line;

	if (at_end(&sc)) {
		it->kind = RPL_NOTATION_BLANK;
		return 0;
	}
	if (p->ended)
		return rpl__notation_fail(p, RPL_EPARSE, col(&sc), "nothing may follow 'end'");
	if (sc.s[sc.i] == '[')
		return parse_tag(&sc, it);
	kwcol = col(&sc);
	if (is_digit(sc.s[sc.i])) {
		if (!p->deal_lines)
			return rpl__notation_fail(p, RPL_EPARSE, kwcol, "a turn before the first deal");
		err = parse_turn(&sc, it);
		if (err < 0)
			return err;
		return 0;
	}
	if (word(&sc, kw, sizeof kw) == 0 || token_len(&sc) != 0) {
		sc.i = 0;
		skip_ws(&sc);
		return rpl__notation_fail(p, RPL_EPARSE, kwcol, "expected a tag, a deal, a turn, a claim or 'end', not %s",
		                          found(&sc, f, sizeof f));
	}
	if (strcmp(kw, "hand") == 0 || strcmp(kw, "morto") == 0 || strcmp(kw, "stock") == 0) {
		err = parse_block_line(&sc, kw, kwcol, it);
		if (err < 0)
			return err;
		block_advance(p, it);
		return 0;
	}
	if (p->block) {
		char want[64];
		block_name(p, want, sizeof want);
		return rpl__notation_fail(p, RPL_EPARSE, kwcol, "expected %s: the deal block is not complete", want);
	}
	if (strcmp(kw, "deal") == 0)
		return parse_deal(&sc, it);
	if (strcmp(kw, "claim") == 0)
		return parse_claim(&sc, it);
	if (strcmp(kw, "seed") == 0)
		return parse_seed(&sc, it);
	if (strcmp(kw, "end") == 0)
		return parse_end(&sc, it);
	return rpl__notation_fail(p, RPL_EPARSE, kwcol, "unknown line keyword '%s'", kw);
}

int rpl_notation_parser_finish(rpl_notation_parser *p)
{
	char want[64];

	if (!p)
		return RPL_EINVAL;
	if (p->block) {
		block_name(p, want, sizeof want);
		p->line++;
		rpl__notation_fail(p, RPL_EPARSE, 0, "the text ends inside a deal block: expected %s", want);
		p->line--;
		return RPL_EPARSE;
	}
	return 0;
}
