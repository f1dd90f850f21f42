/* Domain helpers for the unit tests: see testlib.h. */
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *tl_context;
int tl_soft;
int tl_soft_failures;

void tl_fail_at(const char *file, int line, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (tl_context)
		print_error("[%s]\n", tl_context);
	print_error("%s\n", msg);
	if (tl_soft) {
		print_error("%s:%d: row failed\n", file, line);
		tl_soft_failures++;
		return;
	}
	_fail(file, line);
}

/* ---- cards ---------------------------------------------------------- */

size_t tl_cards_at(const char *text, rpl_card *out, size_t cap, const char *file, int line)
{
	size_t n = 0;
	const char *p = text ? text : "";

	for (;;) {
		const char *start;

		while (*p == ' ' || *p == ',' || *p == '\t')
			p++;
		if (!*p)
			break;
		start = p;
		while (*p && *p != ' ' && *p != ',' && *p != '\t')
			p++;
		if (n >= cap) {
			tl_fail_at(file, line, "too many cards in \"%s\"", text);
			break;
		}
		if (rpl_card_parse(start, (size_t)(p - start), &out[n]) != 0) {
			tl_fail_at(file, line, "bad card \"%.*s\" in \"%s\"", (int)(p - start), start, text);
			continue;
		}
		n++;
	}
	return n;
}

rpl_card tl_card_at(const char *text, const char *file, int line)
{
	rpl_card c[2];

	if (tl_cards_at(text, c, 2, file, line) != 1)
		tl_fail_at(file, line, "\"%s\" is not one card", text);
	return c[0];
}

const char *tl_cards_str(const rpl_card *c, size_t n)
{
	static char bufs[8][TL_MAXCARDS * 5];
	static int next;
	char *b = bufs[next++ % 8];
	size_t len = 0;

	b[0] = 0;
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(b + len, sizeof(bufs[0]) - len, "%s%s", i ? " " : "", rpl_card_name(c[i]));
	return b;
}

/* ---- rules ---------------------------------------------------------- */

rpl_rules *tl_rules_at(const char *profile, const char *overrides, const char *file, int line)
{
	rpl_rules *r = NULL;
	char buf[512];
	char *save = NULL;

	if (rpl_rules_new(&r, profile) != 0 || !r)
		tl_fail_at(file, line, "rpl_rules_new(\"%s\") failed", profile);
	if (!overrides)
		return r;
	snprintf(buf, sizeof(buf), "%s", overrides);
	for (char *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');
		int rc;

		if (!eq)
			tl_fail_at(file, line, "override \"%s\" has no '='", tok);
		*eq = 0;
		rc = rpl_rules_set(r, tok, eq + 1);
		if (rc != 0) {
			char msg[256];

			snprintf(msg, sizeof(msg), "%s", rpl_rules_errmsg(r));
			rpl_rules_free(r);
			tl_fail_at(file, line, "rpl_rules_set(%s, %s) = %d (%s)", tok, eq + 1, rc, msg);
		}
	}
	return r;
}

/* ---- layouts -------------------------------------------------------- */

/* The filler order: see the comment in testlib.h. */
static size_t filler_pool(rpl_card *pool)
{
	static const int ranks[12] = { 1, 4, 7, 10, 13, 3, 6, 9, 12, 5, 8, 11 };
	size_t n = 0;

	for (int copy = 0; copy < 2; copy++)
		for (int j = 0; j < 12; j++)
			for (int s = 0; s < 4; s++)
				pool[n++] = RPL_CARD_MAKE(s, ranks[j]);
	for (int copy = 0; copy < 2; copy++)
		for (int s = 0; s < 4; s++)
			pool[n++] = RPL_CARD_MAKE(s, 2);
	for (int k = 0; k < 4; k++)
		pool[n++] = RPL_JOKER;
	return n; /* 108 */
}

struct slot {
	rpl_card *dst;
	size_t size;
	const char *text;
};

void tl_layout_at(rpl_layout *out, int nplayers, const tl_spec *spec, const char *file, int line)
{
	rpl_card pool[RPL_DECK_SIZE];
	int left[RPL_NFACES];
	rpl_card given[TL_MAXCARDS];
	size_t npool, nstock = (size_t)RPL_STOCK_SIZE(nplayers), ip = 0;
	/* the slots: hands, mortos, stock, each with the given cards first */
	struct slot slot[RPL_MAX_SEATS + 3];
	size_t nslot = 0;

	memset(out, 0, sizeof(*out));
	for (int c = 0; c < RPL_NFACES; c++)
		left[c] = c == RPL_JOKER ? 4 : 2;
	for (int s = 0; s < nplayers; s++)
		slot[nslot++] = (struct slot){ out->hand[s], RPL_HAND_SIZE, spec->hand[s] };
	for (int m = 0; m < 2; m++)
		slot[nslot++] = (struct slot){ out->morto[m], RPL_MORTO_SIZE, spec->morto[m] };
	slot[nslot++] = (struct slot){ out->stock, nstock, spec->stock };
	for (int s = nplayers; s < RPL_MAX_SEATS; s++)
		if (spec->hand[s] && *spec->hand[s])
			tl_fail_at(file, line, "hand %d given for %d players", s, nplayers);

	/* take the given cards out of the deck first */
	for (size_t k = 0; k < nslot; k++) {
		size_t n = tl_cards_at(slot[k].text, given, TL_MAXCARDS, file, line);

		if (n > slot[k].size)
			tl_fail_at(file, line, "\"%s\": %zu cards, room for %zu", slot[k].text, n, slot[k].size);
		for (size_t i = 0; i < n; i++) {
			if (left[given[i]] == 0)
				tl_fail_at(file, line, "layout uses %s more often than the deck holds", rpl_card_name(given[i]));
			left[given[i]]--;
			slot[k].dst[i] = given[i];
		}
	}
	/* then fill each slot's remainder from the filler pool */
	npool = filler_pool(pool);
	for (size_t k = 0; k < nslot; k++) {
		size_t n = tl_cards_at(slot[k].text, given, TL_MAXCARDS, file, line);

		for (size_t i = n; i < slot[k].size; i++) {
			while (ip < npool && left[pool[ip]] == 0)
				ip++;
			if (ip >= npool)
				tl_fail_at(file, line, "filler pool exhausted");
			left[pool[ip]]--;
			slot[k].dst[i] = pool[ip++];
		}
	}
}

rpl_game *tl_game_at(const char *profile, const char *overrides, int nplayers, int first_dealer, const char *file,
                     int line)
{
	rpl_rules *r = tl_rules_at(profile, overrides, file, line);
	rpl_game *g = NULL;
	int rc = rpl_game_new(&g, r, nplayers, first_dealer);

	rpl_rules_free(r);
	if (rc != 0 || !g)
		tl_fail_at(file, line, "rpl_game_new(%s, %d, %d) = %d", profile, nplayers, first_dealer, rc);
	return g;
}

void tl_deal_at(rpl_game *g, const tl_spec *spec, const char *file, int line)
{
	rpl_layout L;
	int rc;

	tl_layout_at(&L, rpl_game_players(g), spec, file, line);
	rc = rpl_game_deal(g, &L);
	if (rc != 0)
		tl_fail_at(file, line, "rpl_game_deal = %d, rule %s: %s", rc, rpl_rule_name(rpl_game_rule(g)),
		           rpl_game_errmsg(g));
}

/* ---- actions -------------------------------------------------------- */

rpl_action tl_act(int kind)
{
	rpl_action a;

	memset(&a, 0, sizeof(a));
	a.kind = (uint8_t)kind;
	return a;
}

rpl_action tl_act_cards_at(int kind, int side, int meld, int end, const char *cards, const char *file, int line)
{
	rpl_action a = tl_act(kind);

	a.side = (uint8_t)side;
	a.meld = (uint8_t)meld;
	a.end = (uint8_t)end;
	a.ncards = (uint8_t)tl_cards_at(cards, a.cards, 14, file, line);
	return a;
}

rpl_action tl_act_morto(int i)
{
	rpl_action a = tl_act(RPL_ACT_MORTO);

	a.morto = (uint8_t)i;
	return a;
}

/* ---- state pictures ------------------------------------------------- */

const char *tl_snapshot(const rpl_game *g)
{
	static char bufs[4][8192];
	static int next;
	char *b = bufs[next++ % 4];
	size_t len = 0, cap = sizeof(bufs[0]);
	rpl_card c[RPL_DECK_SIZE];
	rpl_deal_stats st;
	int n;

#define PUT(...) len += (size_t)snprintf(b + len, len < cap ? cap - len : 0, __VA_ARGS__)
	PUT("phase %d seat %d dealer %d deal %d turn %d stock %d mortos %d %d\n", rpl_game_phase(g), rpl_game_seat(g),
	    rpl_game_dealer(g), rpl_game_deal_number(g), rpl_game_turn_number(g), rpl_game_stock_count(g),
	    rpl_game_morto_state(g, 0), rpl_game_morto_state(g, 1));
	for (int s = 0; s < rpl_game_players(g); s++) {
		n = rpl_game_hand(g, s, c, RPL_DECK_SIZE);
		PUT("hand %d: %s\n", s, tl_cards_str(c, n > 0 ? (size_t)n : 0));
		n = rpl_game_known(g, s, c, RPL_DECK_SIZE);
		PUT("known %d: %s\n", s, tl_cards_str(c, n > 0 ? (size_t)n : 0));
	}
	n = rpl_game_pile(g, c, RPL_DECK_SIZE);
	PUT("pile: %s\n", tl_cards_str(c, n > 0 ? (size_t)n : 0));
	for (int side = 0; side < 2; side++) {
		int nm = rpl_game_meld_count(g, side);
		rpl_score sc;

		for (int i = 0; i < nm; i++) {
			rpl_meld_info m;

			memset(&m, 0, sizeof(m));
			rpl_game_meld(g, side, i, &m);
			PUT("meld %d.%d lo %d:", side, i, m.lo);
			for (int k = 0; k < m.length && k < 14; k++)
				PUT(" %s%s", rpl_card_name(m.card[k]), m.wild[k] ? "*" : "");
			PUT("\n");
		}
		memset(&sc, 0, sizeof(sc));
		rpl_game_deal_score(g, side, &sc);
		PUT("side %d total %ld vulnerable %d score %ld\n", side, (long)rpl_game_total(g, side),
		    rpl_game_vulnerable(g, side), (long)sc.total);
	}
	memset(&st, 0, sizeof(st));
	rpl_game_deal_stats(g, &st);
	PUT("stats %d %d %d %d %d %d %d %d %d %d %d winner %d\n", st.turns, st.actions, st.pile_taken, st.pile_frozen,
	    st.rejects, st.morto_direct, st.morto_indirect, st.morto_to_stock, st.vulnerable_open, st.end, st.out_seat,
	    rpl_game_winner(g));
#undef PUT
	return b;
}

static const char *act_text(const rpl_action *a)
{
	static char bufs[4][256];
	static int next;
	char *b = bufs[next++ % 4];

	rpl_action_format(a, b, sizeof(bufs[0]));
	if (!b[0])
		snprintf(b, sizeof(bufs[0]), "kind %d", a->kind);
	return b;
}

void tl_applied_at(rpl_game *g, rpl_action a, const char *file, int line)
{
	int rc = rpl_game_apply(g, &a);

	if (rc != 0)
		tl_fail_at(file, line, "\"%s\" by seat %d refused: rc %d, rule %s (%d): %s", act_text(&a), rpl_game_seat(g), rc,
		           rpl_rule_name(rpl_game_rule(g)), rpl_game_rule(g), rpl_game_errmsg(g));
}

static void refused_check(rpl_game *g, rpl_action a, const int *rules, size_t nrules, const char *file, int line)
{
	char before[8192];
	int crule = -12345, crc, rc, got, ok = 0;

	snprintf(before, sizeof(before), "%s", tl_snapshot(g));
	crc = rpl_game_check(g, &a, &crule);
	rc = rpl_game_apply(g, &a);
	got = rpl_game_rule(g);
	if (rc != RPL_EILLEGAL)
		tl_fail_at(file, line, "\"%s\" by seat %d: expected refusal with %s, got rc %d (rule %s)", act_text(&a),
		           rpl_game_seat(g), rpl_rule_name(rules[0]), rc, rpl_rule_name(got));
	for (size_t i = 0; i < nrules; i++)
		ok |= got == rules[i];
	if (!ok)
		tl_fail_at(file, line, "\"%s\" refused with rule %s (%d) \"%s\", expected %s (%d)%s", act_text(&a),
		           rpl_rule_name(got), got, rpl_game_errmsg(g), rpl_rule_name(rules[0]), rules[0],
		           nrules > 1 ? " or another listed code" : "");
	if (strcmp(before, tl_snapshot(g)) != 0)
		tl_fail_at(file, line, "\"%s\" refused but the state changed:\n--- before\n%s--- after\n%s", act_text(&a),
		           before, tl_snapshot(g));
	if (crc != RPL_EILLEGAL || crule != got)
		tl_fail_at(file, line, "rpl_game_check(\"%s\") = %d rule %d, apply refused with rule %d", act_text(&a), crc,
		           crule, got);
	if (!rpl_game_errmsg(g) || !rpl_game_errmsg(g)[0])
		tl_fail_at(file, line, "\"%s\" refused without a message", act_text(&a));
}

void tl_refused_at(rpl_game *g, rpl_action a, int rule, const char *file, int line)
{
	refused_check(g, a, &rule, 1, file, line);
}

void tl_refused_any_at(rpl_game *g, rpl_action a, const char *file, int line, ...)
{
	int rules[16];
	size_t n = 0;
	va_list ap;

	va_start(ap, line);
	for (int r = va_arg(ap, int); r != -1 && n < 16; r = va_arg(ap, int))
		rules[n++] = r;
	va_end(ap);
	refused_check(g, a, rules, n, file, line);
}

static int cmp_card(const void *a, const void *b)
{
	return (int)*(const rpl_card *)a - (int)*(const rpl_card *)b;
}

void tl_hand_is_at(const rpl_game *g, int seat, const char *cards, const char *file, int line)
{
	rpl_card want[TL_MAXCARDS], got[TL_MAXCARDS];
	size_t nw = tl_cards_at(cards, want, TL_MAXCARDS, file, line);
	int ng = rpl_game_hand(g, seat, got, TL_MAXCARDS);

	qsort(want, nw, sizeof(rpl_card), cmp_card);
	if (ng < 0 || (size_t)ng != nw || memcmp(want, got, nw) != 0)
		tl_fail_at(file, line, "hand of seat %d is \"%s\", expected \"%s\"", seat,
		           tl_cards_str(got, ng > 0 ? (size_t)ng : 0), tl_cards_str(want, nw));
}

void tl_pile_is_at(const rpl_game *g, const char *cards, const char *file, int line)
{
	rpl_card want[TL_MAXCARDS], got[TL_MAXCARDS];
	size_t nw = tl_cards_at(cards, want, TL_MAXCARDS, file, line);
	int ng = rpl_game_pile(g, got, TL_MAXCARDS);

	if (ng < 0 || (size_t)ng != nw || memcmp(want, got, nw) != 0)
		tl_fail_at(file, line, "pile is \"%s\", expected \"%s\"", tl_cards_str(got, ng > 0 ? (size_t)ng : 0),
		           tl_cards_str(want, nw));
}

static const char *info_text(const rpl_meld_info *m)
{
	static char bufs[4][256];
	static int next;
	char *b = bufs[next++ % 4];
	size_t len = 0;

	b[0] = 0;
	for (int k = 0; k < m->length && k < 14; k++)
		len += (size_t)snprintf(b + len, sizeof(bufs[0]) - len, "%s%s%s", k ? " " : "", rpl_card_name(m->card[k]),
		                        m->wild[k] ? "*" : "");
	snprintf(b + len, sizeof(bufs[0]) - len, " (lo %d hi %d wilds %d clean %d)", m->lo, m->hi, m->wilds, m->clean);
	return b;
}

void tl_info_is_at(const rpl_meld_info *m, const char *cards, const char *file, int line)
{
	char buf[256], *save = NULL;
	rpl_card want[14];
	uint8_t wild[14];
	int n = 0, nw = 0, ok;

	snprintf(buf, sizeof(buf), "%s", cards);
	for (char *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		size_t len = strlen(tok);
		int w = len > 0 && tok[len - 1] == '*';

		if (n >= 14) {
			tl_fail_at(file, line, "meld \"%s\" too long", cards);
			return;
		}
		if (w)
			tok[len - 1] = 0;
		want[n] = tl_card_at(tok, file, line);
		wild[n] = (uint8_t)w;
		nw += w;
		n++;
	}
	ok = m->length == n && m->hi - m->lo + 1 == n && m->wilds == nw && m->clean == (nw == 0);
	for (int k = 0; ok && k < n; k++)
		ok = m->card[k] == want[k] && !!m->wild[k] == wild[k];
	/* every natural sits at its own position (this pins lo and the suit) */
	for (int k = 0; ok && k < n; k++)
		if (!wild[k])
			ok = m->lo + k >= 1 && m->lo + k <= 14 && want[k] == rpl_meld_natural(m->suit, m->lo + k);
	if (!ok)
		tl_fail_at(file, line, "meld is \"%s\", expected \"%s\"", info_text(m), cards);
}

void tl_meld_is_at(const rpl_game *g, int side, int index, const char *cards, const char *file, int line)
{
	rpl_meld_info m;
	int rc;

	memset(&m, 0, sizeof(m));
	rc = rpl_game_meld(g, side, index, &m);
	if (rc != 0)
		tl_fail_at(file, line, "rpl_game_meld(side %d, %d) = %d (melds: %d)", side, index, rc,
		           rpl_game_meld_count(g, side));
	tl_info_is_at(&m, cards, file, line);
}

void tl_phase_seat_at(const rpl_game *g, int phase, int seat, const char *file, int line)
{
	if (rpl_game_phase(g) != phase || (seat >= 0 && rpl_game_seat(g) != seat))
		tl_fail_at(file, line, "phase %d seat %d, expected phase %d seat %d", rpl_game_phase(g), rpl_game_seat(g),
		           phase, seat);
}

rpl_card tl_draw_discard_at(rpl_game *g, const char *file, int line)
{
	rpl_card before[TL_MAXCARDS], after[TL_MAXCARDS];
	int seat = rpl_game_seat(g);
	int nb = rpl_game_hand(g, seat, before, TL_MAXCARDS), na;
	rpl_card drawn = RPL_JOKER;
	rpl_action d;

	tl_applied_at(g, tl_act(RPL_ACT_DRAW), file, line);
	na = rpl_game_hand(g, seat, after, TL_MAXCARDS);
	if (na != nb + 1)
		tl_fail_at(file, line, "draw: hand of seat %d went from %d to %d cards", seat, nb, na);
	/* both sorted: the first difference is the drawn card */
	for (int i = 0; i < na; i++)
		if (i == nb || before[i] != after[i]) {
			drawn = after[i];
			break;
		}
	d = tl_act(RPL_ACT_DISCARD);
	d.ncards = 1;
	d.cards[0] = drawn;
	tl_applied_at(g, d, file, line);
	return drawn;
}

rpl_score tl_score_at(const rpl_game *g, int side, const char *file, int line)
{
	rpl_score s;
	int rc;

	memset(&s, 0, sizeof(s));
	rc = rpl_game_deal_score(g, side, &s);
	if (rc != 0)
		tl_fail_at(file, line, "rpl_game_deal_score(side %d) = %d", side, rc);
	return s;
}

/* ---- meld check ----------------------------------------------------- */

rpl_meld_check_result tl_check_at(const rpl_rules *r, const char *cards, int end, const char *file, int line)
{
	rpl_card c[TL_MAXCARDS];
	size_t n = tl_cards_at(cards, c, TL_MAXCARDS, file, line);
	rpl_meld_check_result res;
	int rc;

	memset(&res, 0, sizeof(res));
	rc = rpl_meld_check(r, c, n, end, &res);
	if (rc != 0)
		tl_fail_at(file, line, "rpl_meld_check(\"%s\") = %d", cards, rc);
	return res;
}

void tl_check_ok_at(const rpl_rules *r, const char *cards, int end, const char *expect, const char *file, int line)
{
	rpl_meld_check_result res = tl_check_at(r, cards, end, file, line);

	if (!res.valid) {
		tl_fail_at(file, line, "%s: \"%s\" refused (rule %s: %s), expected \"%s\"", rpl_rules_profile(r), cards,
		           rpl_rule_name(res.rule), res.reason, expect);
		return;
	}
	tl_info_is_at(&res.meld, expect, file, line);
}

void tl_check_bad_at(const rpl_rules *r, const char *cards, int end, int rule, const char *file, int line)
{
	rpl_meld_check_result res = tl_check_at(r, cards, end, file, line);

	if (res.valid) {
		tl_fail_at(file, line, "%s: \"%s\" accepted as \"%s\", expected refusal %s", rpl_rules_profile(r), cards,
		           info_text(&res.meld), rule >= 0 ? rpl_rule_name(rule) : "(any)");
		return;
	}
	if (rule >= 0 && res.rule != rule)
		tl_fail_at(file, line, "%s: \"%s\" refused with %s (%d) \"%s\", expected %s (%d)", rpl_rules_profile(r), cards,
		           rpl_rule_name(res.rule), res.rule, res.reason, rpl_rule_name(rule), rule);
	if (!res.reason[0])
		tl_fail_at(file, line, "\"%s\" refused without a reason", cards);
}

const char *tl_tmp_path_at(const char *file, const char *tag)
{
	static char buf[4][256];
	static int k;
	const char *dir = getenv("TMPDIR"), *base = strrchr(file, '/');
	char *p = buf[k++ % 4];
	size_t n;

	base = base ? base + 1 : file;
	n = strcspn(base, ".");
	if (!dir || !*dir)
		dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(p, sizeof(buf[0]), "%s/%.*s.%ld.%s", dir, (int)n, base, (long)getpid(), tag);
	return p;
}

unsigned char *tl_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	assert_int_equal(fseek(f, 0, SEEK_SET), 0);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

void tl_write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	if (n)
		assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}
