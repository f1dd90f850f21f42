/*
 * Melds (meld.h, docs/rules.md 2 to 4): which cards form a meld, where the wild
 * sits, clean/dirty, canastra categories and bonuses; and, in play, how a
 * wild moves when cards are added (KZV floating, STBL/ABERTO fixed).
 *
 * Expected arrangements list the cards by position lo..hi, a wild marked '*'.
 */
#include "testlib.h"

#include <string.h>

#define ALL "kzv stbl aberto"
#define D RPL_END_DEFAULT
#define LO RPL_END_LOW
#define HI RPL_END_HIGH

static const struct meld_case {
	const char *profiles; /* space-separated */
	const char *overrides;
	const char *cards;
	int end;
	const char *expect; /* NULL: not a meld */
	int rule;           /* when not a meld; -1: any rule */
	const char *why;    /* the seed sentence or docs/rules.md rule */
} cases[] = {
	/* ---- KZV seed "O que é um jogo válido" (same cards under every profile) ---- */
	{ ALL, NULL, "5c 6c 7c", D, "5c 6c 7c", 0, "KZV: 5♣-6♣-7♣: três cartas seguidas, todas de paus. Vale." },
	{ ALL, NULL, "7c 5c 6c", D, "5c 6c 7c", 0, "the order the cards are given in does not matter" },
	{ ALL, NULL, "As 2s 3s", D, "As 2s 3s", 0, "KZV: A♠-2♠-3♠: o Ás abre a sequência (2♠ natural)" },
	{ ALL, NULL, "Qd Kd Ad", D, "Qd Kd Ad", 0, "KZV: Q♦-K♦-A♦: o Ás também fecha a sequência" },
	{ ALL, NULL, "9c 2c Jc", D, "9c 2c* Jc", 0, "KZV: o 2♣ está fazendo o papel do 10♣ ... fica suja" },
	{ ALL, NULL, "8c 8d 8h", D, NULL, RPL_RULE_MELD_SUIT, "KZV: Três 8 de naipes diferentes não formam jogo" },
	{ ALL, NULL, "8c 8d 8h 8s", D, NULL, RPL_RULE_MELD_SUIT, "rules.md 2: sets of one rank are never melds" },
	/* rules.md 2.5, corrected 2026-12-01: KZV follows its seed, STBL and ABERTO keep their decision */
	{ "kzv", NULL, "Kh Ah 2h", D, NULL, RPL_RULE_MELD_WRAP, "KZV: A sequência não dá a volta. K♥-A♥-2♥ não existe" },
	{ "kzv", NULL, "Kh Ah 2c", D, "2c* Kh Ah", 0,
	  "KZV: K♥-A♥ with a 2 of another suit is the dirty Q-K-A (2♣ is a wild anyway)" },
	{ "stbl aberto", NULL, "Kh Ah 2h", D, "2h* Kh Ah", 0,
	  "STBL, ABERTO [decision]: K♥-A♥-2♥ is the dirty Q-K-A, the 2 standing in for the queen" },
	{ "kzv", "wrap_as_dirty=true", "Kh Ah 2h", D, "2h* Kh Ah", 0,
	  "KZV with the STBL/ABERTO decision set: the dirty Q-K-A" },
	{ ALL, "wrap_as_dirty=false", "Kh Ah 2h", D, NULL, RPL_RULE_MELD_WRAP,
	  "KZV: K♥-A♥-2♥ não existe, with the wrap_as_dirty decision turned off" },
	/* rules.md 2.5, issue 28: KZV reads K-A-2 narrowly; a longer run may hold its own 2 as a wild below the ace */
	{ "kzv", NULL, "2h 8h 9h 10h Jh Qh Kh Ah", D, "2h* 8h 9h 10h Jh Qh Kh Ah", 0,
	  "KZV: O \"2\" é coringa em qualquer sequência onde ele não ocupa a posição natural dele (2♥ as 7♥)" },
	{ "kzv", NULL, "Qh Kh Ah 2h", D, "2h* Qh Kh Ah", 0, "KZV: Estende a ponta (2♥ as J♥): not the K♥-A♥-2♥ wrap" },
	{ "kzv", NULL, "Kh Ah 2h", D, NULL, RPL_RULE_MELD_WRAP, "KZV: K♥-A♥-2♥ não existe, the three cards alone" },
	{ ALL, "wrap_as_dirty=false", "Qh Kh Ah 2h", D, NULL, RPL_RULE_MELD_WRAP,
	  "wrap_as_dirty false, the reading before issue 28, kept for the logs written under it" },
	{ ALL, "wrap_as_dirty=false", "2h 8h 9h 10h Jh Qh Kh Ah", D, NULL, RPL_RULE_MELD_WRAP,
	  "wrap_as_dirty false: no own 2 below a high ace" },
	{ "stbl aberto", "wrap_as_dirty=narrow", "Kh Ah 2h", D, NULL, RPL_RULE_MELD_WRAP, "narrow set on STBL, ABERTO" },
	{ "stbl aberto", "wrap_as_dirty=narrow", "Qh Kh Ah 2h", D, "2h* Qh Kh Ah", 0, "narrow set on STBL, ABERTO" },
	{ "kzv", NULL, "Kh Ah 2h 3h", D, NULL, -1, "KZV: K-A-2-3 is the wrap itself, never a run" },

	/* ---- KZV seed "Como os coringas funcionam" ---- */
	{ ALL, NULL, "8d JK 10d", D, "8d JK* 10d", 0, "KZV: 8♦-coringa-10♦: o coringa faz o papel do 9♦" },
	{ ALL, NULL, "8s 9s JK", D, "8s 9s JK*", 0, "KZV: 8♠-9♠-coringa: 7♠ ou 10♠ ([decision] high by default)" },
	{ ALL, NULL, "8s 9s JK", HI, "8s 9s JK*", 0, "KZV: 8♠-9♠-coringa as 10♠, asked" },
	{ ALL, NULL, "8s 9s JK", LO, "JK* 8s 9s", 0, "KZV: 8♠-9♠-coringa as 7♠, asked" },
	{ ALL, NULL, "JK 8h 9h 2d Jh", D, NULL, RPL_RULE_MELD_WILDS,
	  "KZV: o joker faz o 7♥ e o 2♦ faz o 10♥ — dois coringas ... Não vale, mesmo os naturais sendo maioria" },
	{ ALL, NULL, "JK 8h 9h 2d", D, NULL, RPL_RULE_MELD_WILDS, "KZV: joker as 7♥ and 2♦ as 10♥: two wilds" },
	{ ALL, NULL, "8d 9d JK 2c", D, NULL, RPL_RULE_MELD_WILDS, "KZV: 2 naturais (8♦, 9♦) e 2 coringas — não vale" },
	{ "kzv", "max_wilds=2", "8d 9d JK 2c", D, NULL, RPL_RULE_MELD_WILDS,
	  "KZV: Coringas não podem empatar com as naturais (even with max_wilds raised)" },
	{ ALL, NULL, "5c JK JK", D, NULL, RPL_RULE_MELD_WILDS, "rules.md 2: naturals must outnumber wilds" },

	/* ---- KZV seed "Canastra" ---- */
	{ ALL, NULL, "3c 4c 5c 6c 7c 8c 9c", D, "3c 4c 5c 6c 7c 8c 9c", 0,
	  "KZV: 7 cartas seguidas de paus, sem nenhum coringa (clean canastra)" },
	{ ALL, NULL, "5d 6d 7d 8d JK 10d Jd", D, "5d 6d 7d 8d JK* 10d Jd", 0,
	  "KZV: A mesma ideia, mas com um coringa fazendo o 9♦ (dirty canastra)" },
	{ ALL, NULL, "Ac 2c 3c 4c 5c 6c 7c 8c 9c 10c Jc Qc Kc Ac", D, "Ac 2c 3c 4c 5c 6c 7c 8c 9c 10c Jc Qc Kc Ac", 0,
	  "KZV: A sequência COMPLETA do naipe, das duas pontas de Ás" },
	{ ALL, NULL, "Ac JK 3c 4c 5c 6c 7c 8c 9c 10c Jc Qc Kc Ac", D, "Ac JK* 3c 4c 5c 6c 7c 8c 9c 10c Jc Qc Kc Ac", 0,
	  "KZV: (+300 se tiver um coringa): A..A with a joker as 2♣" },
	{ ALL, NULL, "Ah 2h 3h 4h 5h 6h 7h 8h 9h 10h Jh Qh Kh", D, "Ah 2h 3h 4h 5h 6h 7h 8h 9h 10h Jh Qh Kh", 0,
	  "STBL: Canastra de quinhentos (13 clean cards)" },
	{ ALL, NULL, "6d 7d 8d 9d 10d Jd", D, "6d 7d 8d 9d 10d Jd", 0, "rules.md 2: 6 cards are not a canastra" },

	/* ---- docs/rules.md 3, where the wild sits ---- */
	{ ALL, NULL, "2h 4h 5h", LO, "2h* 4h 5h", 0, "ABERTO: 2♥ no lugar de 3 em 2♥–4♥–5♥ (asked low)" },
	{ ALL, NULL, "2h 4h 5h", D, "4h 5h 2h*", 0, "rules.md 3.2 [decision]: unsaid, the 2♥ goes to the high end (6♥)" },
	{ ALL, NULL, "2h 3h 4h", D, "2h 3h 4h", 0, "rules.md 2: a 2 of suit S at position 2 is a natural" },
	{ ALL, NULL, "2c 3c 4c JK", D, "2c 3c 4c JK*", 0,
	  "ABERTO: Um 2 do naipe antes de 3 é natural, podendo coexistir outro 1 joker" },
	{ ALL, NULL, "2c 3c 4c JK", LO, "JK* 2c 3c 4c", 0, "rules.md 2: A-2-3-joker style, the joker as the ace" },
	{ ALL, NULL, "2c 2d 3c", D, "2c 3c 2d*", 0, "ABERTO: ... ou dois curinga: natural 2♣ plus 2♦ as wild" },
	{ ALL, NULL, "2c 2c 3c 4c", D, "2c 3c 4c 2c*", 0, "rules.md 2: both 2♣: one natural, one wild" },
	{ ALL, NULL, "5c 6c 2c", D, "5c 6c 2c*", 0, "rules.md 2: a 2 of suit S away from position 2 is a wild" },
	{ ALL, NULL, "5c 6c 2c", LO, "2c* 5c 6c", 0, "rules.md 2: the same 2 as 4♣, asked low" },
	{ ALL, NULL, "Kd Ad JK", D, "JK* Kd Ad", 0, "rules.md 3.2 [decision]: the high end if legal, else the low end" },
	{ ALL, NULL, "Kd Ad JK", HI, NULL, RPL_RULE_MELD_END, "meld.end: no position above the high ace" },
	{ ALL, NULL, "As 2s JK", D, "As 2s JK*", 0, "rules.md 2: A-2 natural, joker as 3♠" },
	{ ALL, NULL, "As 2s JK", LO, NULL, RPL_RULE_MELD_END, "meld.end: no position below the low ace" },
	{ ALL, NULL, "Ac JK 3c", D, "Ac JK* 3c", 0, "rules.md 2: the joker fills position 2" },

	/* ---- docs/rules.md 2 refusals ---- */
	{ ALL, NULL, "5c 6c", D, NULL, RPL_RULE_MELD_SHORT, "rules.md 2: at least 3 cards" },
	{ ALL, NULL, "5c JK", D, NULL, RPL_RULE_MELD_SHORT, "rules.md 2: at least 3 cards" },
	{ ALL, NULL, "5c 6c 7d", D, NULL, RPL_RULE_MELD_SUIT, "rules.md 2: same-suit sequences only" },
	{ ALL, NULL, "5c 6c 8c 9c", D, NULL, RPL_RULE_MELD_GAP, "rules.md 2: consecutive positions" },
	{ ALL, NULL, "5c 7c 9c JK", D, NULL, RPL_RULE_MELD_GAP, "rules.md 2: one wild fills one missing position" },
	{ ALL, NULL, "5c 5c 6c", D, NULL, RPL_RULE_MELD_DUPLICATE, "ABERTO: Outros valores não repetem na sequência" },
	{ ALL, NULL, "5c 6c 7c 7c 8c", D, NULL, RPL_RULE_MELD_DUPLICATE, "rules.md 2: one card per position" },
	{ ALL, NULL, "Ac 2c 3c 4c 5c 6c 7c 8c 9c 10c Jc Qc Kc Ac JK", D, NULL, RPL_RULE_MELD_LONG,
	  "rules.md 2: at most 14 cards (A..A)" },
	{ ALL, NULL, "Kh Ah 2h 3h", D, NULL, -1, "KZV: A sequência não dá a volta" },
	{ ALL, NULL, "Qc Kc Ac 2c 3c", D, NULL, -1, "KZV: o Ás é uma ponta OU a outra" },
};

static int profile_in(const char *list, const char *p)
{
	size_t n = strlen(p);

	for (const char *s = strstr(list, p); s; s = strstr(s + 1, p))
		if ((s == list || s[-1] == ' ') && (s[n] == 0 || s[n] == ' '))
			return 1;
	return 0;
}

/* docs/rules.md 4 card values. */
static int card_value(const char *profile, rpl_card c)
{
	if (c == RPL_JOKER)
		return strcmp(profile, "stbl") == 0 ? 50 : 20;
	switch (RPL_CARD_RANK(c)) {
	case 1: return 15;
	case 2: return 10;
	case 3:
	case 4:
	case 5:
	case 6:
	case 7: return 5;
	default: return 10;
	}
}

static void check_info_consistent(const char *profile, const rpl_meld_info *m, const char *what)
{
	int pts = 0, wilds = 0;

	for (int k = 0; k < m->length; k++) {
		pts += card_value(profile, m->card[k]);
		wilds += m->wild[k] != 0;
		if (!m->wild[k] && m->card[k] != rpl_meld_natural(m->suit, m->lo + k))
			tl_fail("%s %s: card %s at position %d is marked natural", profile, what, rpl_card_name(m->card[k]),
			        m->lo + k);
	}
	if (m->points != pts)
		tl_fail("%s %s: points %d, docs/rules.md 4 values give %d", profile, what, m->points, pts);
	if (m->wilds != wilds || m->hi != m->lo + m->length - 1 || m->lo < 1 || m->hi > 14)
		tl_fail("%s %s: inconsistent info (lo %d hi %d len %d wilds %d)", profile, what, m->lo, m->hi, m->length,
		        m->wilds);
	if (m->length < 7 && (m->category != RPL_CANASTRA_NONE || m->bonus != 0))
		tl_fail("%s %s: %d cards but category %d bonus %d", profile, what, m->length, m->category, m->bonus);
}

static void test_meld_table(void **state)
{
	static const char *const profiles[] = { "kzv", "stbl", "aberto" };
	int checked = 0;

	(void)state;
	tl_soft = 1;
	tl_soft_failures = 0;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct meld_case *t = &cases[i];

		for (size_t p = 0; p < 3; p++) {
			rpl_rules *r;

			if (!profile_in(t->profiles, profiles[p]))
				continue;
			r = tl_rules(profiles[p], t->overrides);
			tl_context = t->why;
			if (t->expect) {
				rpl_meld_check_result res = tl_check_at(r, t->cards, t->end, __FILE__, __LINE__);

				assert_meld_ok(r, t->cards, t->end, t->expect);
				if (res.valid)
					check_info_consistent(profiles[p], &res.meld, t->cards);
			} else {
				assert_meld_bad(r, t->cards, t->end, t->rule);
			}
			rpl_rules_free(r);
			checked++;
		}
	}
	tl_context = NULL;
	tl_soft = 0;
	if (tl_soft_failures)
		tl_fail("%d row(s) of the meld table failed (see above)", tl_soft_failures);
	assert_true(checked > 100);
}

/* rules.md 4 canastra bonuses: only the highest category of each canastra counts. */
static void test_canastra_categories(void **state)
{
	static const struct {
		const char *cards;
		int category;
		int bonus[3]; /* KZV STBL ABERTO */
		const char *why;
	} cat[] = {
		{ "5c 6c 7c", RPL_CANASTRA_NONE, { 0, 0, 0 }, "3 cards: no canastra" },
		{ "3c 4c 5c 6c 7c 8c 9c", RPL_CANASTRA_CLEAN, { 200, 200, 200 }, "clean, 7+ cards" },
		{ "5d 6d 7d 8d JK 10d Jd", RPL_CANASTRA_DIRTY, { 100, 100, 100 }, "dirty, 7+ cards" },
		{ "3s 4s 5s 6s 7s 2s 9s", RPL_CANASTRA_DIRTY, { 100, 100, 100 }, "STBL: canastra suja com o 2 do naipe" },
		{ "Ah 2h 3h 4h 5h 6h 7h 8h 9h 10h Jh Qh Kh",
		  RPL_CANASTRA_CLEAN13,
		  { 200, 500, 500 },
		  "STBL: Canastra de quinhentos 500 (KZV 200)" },
		{ "2h 3h 4h 5h 6h 7h 8h 9h 10h Jh Qh Kh Ah", RPL_CANASTRA_CLEAN13, { 200, 500, 500 }, "clean 13, 2..A" },
		{ "Ah 2h 3h 4h 5h 6h 7h 8h 9h JK Jh Qh Kh", RPL_CANASTRA_DIRTY, { 100, 100, 100 }, "dirty 13 is just dirty" },
		{ "Ac 2c 3c 4c 5c 6c 7c 8c 9c 10c Jc Qc Kc Ac",
		  RPL_CANASTRA_CLEAN14,
		  { 600, 1000, 1000 },
		  "KZV: vale o triplo (600); STBL: Canastra Real (mil pontos)" },
		{ "Ac JK 3c 4c 5c 6c 7c 8c 9c 10c Jc Qc Kc Ac",
		  RPL_CANASTRA_DIRTY14,
		  { 300, 100, 100 },
		  "KZV: +300 se tiver um coringa; STBL/ABERTO: dirty 100" },
		{ "Ac 2c 3c 4c 5c 6c 7c 8c 9c 10c Jc Qc 2d Ac", RPL_CANASTRA_DIRTY14, { 300, 100, 100 }, "A..A with 2♦ as K♣" },
	};
	static const char *const profiles[] = { "kzv", "stbl", "aberto" };

	(void)state;
	for (size_t p = 0; p < 3; p++) {
		rpl_rules *r = tl_rules(profiles[p], NULL);

		for (size_t i = 0; i < sizeof(cat) / sizeof(cat[0]); i++) {
			rpl_meld_check_result res = tl_check_at(r, cat[i].cards, D, __FILE__, __LINE__);

			if (!res.valid)
				tl_fail("%s: %s refused (%s: %s)", profiles[p], cat[i].cards, rpl_rule_name(res.rule), res.reason);
			if (res.meld.category != cat[i].category || res.meld.bonus != cat[i].bonus[p])
				tl_fail("%s: %s (%s): category %s bonus %d, expected %s bonus %d", profiles[p], cat[i].cards,
				        cat[i].why, rpl_canastra_name(res.meld.category), res.meld.bonus,
				        rpl_canastra_name(cat[i].category), cat[i].bonus[p]);
			check_info_consistent(profiles[p], &res.meld, cat[i].cards);
		}
		rpl_rules_free(r);
	}
}

/* STBL joker 50, KZV/ABERTO 20 (docs/rules.md 4), in a meld's points. */
static void test_points(void **state)
{
	static const char *const profiles[] = { "kzv", "stbl", "aberto" };
	static const int want[3] = { 20 + 10 + 10, 50 + 10 + 10, 20 + 10 + 10 };

	(void)state;
	for (size_t p = 0; p < 3; p++) {
		rpl_rules *r = tl_rules(profiles[p], NULL);
		rpl_meld_check_result res = tl_check_at(r, "8d JK 10d", D, __FILE__, __LINE__);

		assert_true(res.valid);
		assert_int_equal(res.meld.points, want[p]);
		res = tl_check_at(r, "Qd Kd Ad", D, __FILE__, __LINE__);
		assert_int_equal(res.meld.points, 35);
		/* rules.md 4.1 [decision]: a natural 2 is worth 10 too (STBL's seed prices the 2 "usado como curinga") */
		res = tl_check_at(r, "Ah 2h 3h", D, __FILE__, __LINE__);
		assert_int_equal(res.meld.wilds, 0);
		assert_int_equal(res.meld.points, 15 + 10 + 5);
		res = tl_check_at(r, "3h 4h 5h 6h 7h 8h 9h", D, __FILE__, __LINE__);
		assert_int_equal(res.meld.points, 45); /* ABERTO §09: Valor 25+10+10=45 */
		assert_int_equal(res.meld.points + res.meld.bonus, 245);
		rpl_rules_free(r);
	}
}

/* With max_wilds raised, naturals still must outnumber wilds; 3 naturals + 2 wilds pass. */
static void test_max_wilds_param(void **state)
{
	rpl_rules *r = tl_rules("kzv", "max_wilds=2");
	rpl_meld_check_result res = tl_check_at(r, "7h 8h 9h JK 2d", D, __FILE__, __LINE__);

	(void)state;
	if (!res.valid)
		tl_fail("max_wilds=2: 7h 8h 9h JK 2d refused (%s: %s)", rpl_rule_name(res.rule), res.reason);
	assert_int_equal(res.meld.wilds, 2);
	assert_int_equal(res.meld.length, 5);
	rpl_rules_free(r);
}

static void test_check_args(void **state)
{
	rpl_rules *r = tl_rules("kzv", NULL);
	rpl_card c[3] = { 4, 5, 6 };
	rpl_card bad[3] = { 4, 5, 99 };
	rpl_meld_check_result res;

	(void)state;
	assert_int_equal(rpl_meld_check(NULL, c, 3, D, &res), RPL_EINVAL);
	assert_int_equal(rpl_meld_check(r, NULL, 3, D, &res), RPL_EINVAL);
	assert_int_equal(rpl_meld_check(r, c, 3, D, NULL), RPL_EINVAL);
	assert_int_equal(rpl_meld_check(r, bad, 3, D, &res), RPL_EINVAL);
	assert_int_equal(rpl_meld_check(r, c, 3, D, &res), 0);
	assert_true(res.valid);
	rpl_rules_free(r);
}

static void test_natural(void **state)
{
	(void)state;
	assert_int_equal(rpl_meld_natural(RPL_HEARTS, 1), tl_card("Ah"));
	assert_int_equal(rpl_meld_natural(RPL_HEARTS, 14), tl_card("Ah"));
	assert_int_equal(rpl_meld_natural(RPL_CLUBS, 2), tl_card("2c"));
	assert_int_equal(rpl_meld_natural(RPL_DIAMONDS, 10), tl_card("10d"));
	assert_int_equal(rpl_meld_natural(RPL_SPADES, 11), tl_card("Js"));
	assert_int_equal(rpl_meld_natural(RPL_SPADES, 13), tl_card("Ks"));
}

/* ---- adding cards in play (the wild moves) ------------------------------ */

/* A 2-player game where seat 0 moves first holding hand; seat 0 has drawn. */
static rpl_game *start(const char *profile, const char *hand, const char *morto0, const char *stock)
{
	rpl_game *g = tl_game(profile, NULL, 2, 1);

	tl_deal(g, .hand = { hand, NULL }, .morto = { morto0, NULL }, .stock = stock);
	assert_phase(g, RPL_PHASE_DRAW, 0);
	assert_applied(g, A_DRAW);
	return g;
}

/* ABERTO §04: "2♥ no lugar de 3 em 2♥–4♥–5♥ vira natural 2♥–3♥–4♥–5♥ ao somar 3♥". */
static void test_aberto_two_becomes_natural(void **state)
{
	rpl_game *g = start("aberto", "2h 4h 5h 3h Kc", NULL, "9s");

	(void)state;
	assert_applied(g, A_MELD_END("2h 4h 5h", LO));
	assert_meld(g, 0, 0, "2h* 4h 5h");
	assert_applied(g, A_ADD(0, 0, "3h"));
	assert_meld(g, 0, 0, "2h 3h 4h 5h");
	assert_applied(g, A_DISCARD("9s"));
	assert_meld(g, 0, 0, "2h 3h 4h 5h");
	rpl_game_free(g);
}

/* ABERTO §04: "Mover joker nunca o torna natural"; it goes to a legal end, the action's choice. */
static void test_aberto_joker_moves_to_end(void **state)
{
	rpl_game *g = start("aberto", "4h 5h JK 3h Kc", NULL, "9s"), *g2;

	(void)state;
	assert_applied(g, A_MELD_END("4h 5h JK", LO));
	assert_meld(g, 0, 0, "JK* 4h 5h");
	g2 = rpl_game_clone(g);
	assert_non_null(g2);
	assert_applied(g, A_ADD(0, 0, "3h")); /* default: the high end */
	assert_meld(g, 0, 0, "3h 4h 5h JK*");
	assert_applied(g2, A_ADD_END(0, 0, "3h", LO));
	assert_meld(g2, 0, 0, "JK* 3h 4h 5h");
	rpl_game_free(g2);
	rpl_game_free(g);
}

/*
 * STBL Obs.: "No caso das canastras sujas que usam o "2" como curinga, caso este
 * "2" seja do mesmo naipe da canastra, esta poderá se tornar limpa, quando a carta
 * que o "2" estiver substituindo for comprada".
 */
static void test_stbl_dirty_canastra_becomes_clean(void **state)
{
	rpl_game *g = start("stbl", "3s 4s 5s 6s 7s 2s 9s 8s Kc Kd", NULL, "Qh");
	rpl_meld_info m;

	(void)state;
	assert_applied(g, A_MELD("3s 4s 5s 6s 7s 2s 9s"));
	assert_meld(g, 0, 0, "3s 4s 5s 6s 7s 2s* 9s");
	assert_int_equal(rpl_game_meld(g, 0, 0, &m), 0);
	assert_int_equal(m.category, RPL_CANASTRA_DIRTY);
	assert_int_equal(m.bonus, 100);
	assert_applied(g, A_ADD(0, 0, "8s"));
	assert_meld(g, 0, 0, "2s 3s 4s 5s 6s 7s 8s 9s");
	assert_int_equal(rpl_game_meld(g, 0, 0, &m), 0);
	assert_int_equal(m.category, RPL_CANASTRA_CLEAN);
	assert_int_equal(m.bonus, 200);
	rpl_game_free(g);
}

/* rules.md 3.5 fixed wild: a 2 of another suit stays a wild, moved to the (default high) end. */
static void test_stbl_other_two_moves_to_end(void **state)
{
	rpl_game *g = start("stbl", "5d 6d 2c 7d Kc", NULL, "Qh");

	(void)state;
	assert_applied(g, A_MELD("5d 6d 2c"));
	assert_meld(g, 0, 0, "5d 6d 2c*");
	assert_applied(g, A_ADD(0, 0, "7d"));
	assert_meld(g, 0, 0, "5d 6d 7d 2c*");
	rpl_game_free(g);
}

/*
 * rules.md 3.4 KZV: "the wild floats ... preferring a clean arrangement (a 2 of the suit
 * becomes natural when it can)"; STBL/ABERTO: "fixed where it was laid. It moves
 * only when the natural card it stands for is added".
 */
static void test_floating_vs_fixed_two(void **state)
{
	rpl_game *k = start("kzv", "4c 5c 2c 3c Kh", NULL, "Qh");
	rpl_game *a = start("aberto", "4c 5c 2c 3c Kh", NULL, "Qh");

	(void)state;
	assert_applied(k, A_MELD("4c 5c 2c"));
	assert_applied(a, A_MELD("4c 5c 2c"));
	assert_meld(a, 0, 0, "4c 5c 2c*");
	assert_applied(k, A_ADD(0, 0, "3c"));
	assert_meld(k, 0, 0, "2c 3c 4c 5c");
	assert_applied(a, A_ADD(0, 0, "3c"));
	assert_meld(a, 0, 0, "3c 4c 5c 2c*");
	rpl_game_free(k);
	rpl_game_free(a);
}

/* KZV "o que for melhor": the joker re-placed to make 8♠ 9♠ 10♠ J♠ Q♠; fixed profiles refuse. */
static void test_floating_vs_fixed_joker(void **state)
{
	static const char *const profiles[] = { "kzv", "stbl", "aberto" };

	(void)state;
	for (size_t p = 0; p < 3; p++) {
		rpl_game *g = start(profiles[p], "8s 9s JK 10s Qs Kh", NULL, "Qh");

		assert_applied(g, A_MELD("8s 9s JK"));
		assert_meld(g, 0, 0, "8s 9s JK*");
		if (p == 0) {
			assert_applied(g, A_ADD(0, 0, "10s Qs"));
			assert_meld(g, 0, 0, "8s 9s 10s JK* Qs");
		} else {
			/* the joker stands for 10♠ and may only go to an end: J♠ stays missing */
			assert_refused_any(g, A_ADD(0, 0, "10s Qs"), RPL_RULE_MELD_GAP, RPL_RULE_MELD_WILD_STUCK);
			assert_applied(g, A_ADD(0, 0, "10s"));
			assert_meld(g, 0, 0, "8s 9s 10s JK*");
		}
		rpl_game_free(g);
	}
}

/* KZV "Cada jogo pode ter no máximo um coringa": adding a second wild is refused. */
static void test_add_second_wild(void **state)
{
	static const char *const profiles[] = { "kzv", "stbl", "aberto" };

	(void)state;
	for (size_t p = 0; p < 3; p++) {
		rpl_game *g = start(profiles[p], "8d JK 10d 2c Jd Kh", NULL, "Qh");

		assert_applied(g, A_MELD("8d JK 10d"));
		assert_refused(g, A_ADD(0, 0, "2c"), RPL_RULE_MELD_WILDS);
		assert_refused(g, A_ADD(0, 0, "Jd 2c"), RPL_RULE_MELD_WILDS);
		assert_refused(g, A_ADD(0, 0, "Kh"), RPL_RULE_MELD_SUIT);
		assert_applied(g, A_ADD(0, 0, "Jd"));
		assert_meld(g, 0, 0, "8d JK* 10d Jd");
		rpl_game_free(g);
	}
}

/*
 * rules.md 3.5 "With no legal place, that natural card cannot be added": an A..A dirty
 * meld whose joker stands for the 2; adding the 2 leaves the joker nowhere to
 * go. The 15 cards are the joker's doing, so the refusal is meld.wild_stuck.
 */
static void test_wild_stuck(void **state)
{
	rpl_game *g = start("aberto", "Ad 3d 4d 5d 6d 7d 8d 9d 10d Jd JK", "Kd Ad 2d", "Qd");

	(void)state;
	assert_applied(g, A_MELD("Ad JK 3d 4d 5d 6d 7d 8d 9d 10d Jd Qd"));
	assert_meld(g, 0, 0, "Ad JK* 3d 4d 5d 6d 7d 8d 9d 10d Jd Qd");
	/* the hand is empty: the morto is picked up (direct) and play goes on */
	assert_phase(g, RPL_PHASE_MORTO, 0);
	assert_applied(g, A_MORTO(0));
	assert_phase(g, RPL_PHASE_PLAY, 0);
	assert_applied(g, A_ADD(0, 0, "Kd Ad"));
	assert_meld(g, 0, 0, "Ad JK* 3d 4d 5d 6d 7d 8d 9d 10d Jd Qd Kd Ad");
	{
		rpl_meld_info m;

		assert_int_equal(rpl_game_meld(g, 0, 0, &m), 0);
		assert_int_equal(m.category, RPL_CANASTRA_DIRTY14);
		assert_int_equal(m.bonus, 100);
	}
	/* ABERTO «Sem destino legal não faça substituição»: the code says why (rules.md 3.5), not meld.long */
	assert_refused(g, A_ADD(0, 0, "2d"), RPL_RULE_MELD_WILD_STUCK);
	rpl_game_free(g);

	/* without a displaced wild, 15 cards are meld.long: a wild added to a clean A..A has no room */
	g = start("stbl", "Ac 2c 3c 4c 5c 6c 7c 8c 9c 10c Jc", "Kc Ac 2h 9s", "Qc");
	assert_applied(g, A_MELD("Ac 2c 3c 4c 5c 6c 7c 8c 9c 10c Jc Qc"));
	assert_applied(g, A_MORTO(0));
	assert_applied(g, A_ADD(0, 0, "Kc Ac"));
	assert_refused(g, A_ADD(0, 0, "2h"), RPL_RULE_MELD_LONG);
	rpl_game_free(g);
}

/* In play, a meld that breaks rules.md 2 is refused with the same rule code as rpl_meld_check. */
static void test_game_meld_refusals(void **state)
{
	rpl_game *g = start("kzv", "8c 8d 8h 5c 6c Kd Ad Kh Ah 2h JK", NULL, "Qs");
	rpl_game *w;

	(void)state;
	assert_refused(g, A_MELD("8c 8d 8h"), RPL_RULE_MELD_SUIT); /* "Trinca não vale" */
	assert_refused(g, A_MELD("5c 6c"), RPL_RULE_MELD_SHORT);
	assert_refused(g, A_MELD("5c 6c 8c"), RPL_RULE_MELD_GAP);
	assert_refused(g, A_MELD_END("Kd Ad JK", HI), RPL_RULE_MELD_END);
	assert_refused(g, A_MELD("5c 6c 2h JK"), RPL_RULE_MELD_WILDS);
	/* KZV «K♥-A♥-2♥ não existe» (rules.md 2.5) */
	assert_refused(g, A_MELD("Kh Ah 2h"), RPL_RULE_MELD_WRAP);
	rpl_game_free(g);

	/* STBL and ABERTO [decision]: the same cards are the dirty Q-K-A */
	w = tl_game("stbl", NULL, 2, 1);
	tl_deal(w, .hand = { "Kh Ah 2h" }, .stock = "Qs");
	assert_applied(w, A_DRAW);
	assert_applied(w, A_MELD("Kh Ah 2h"));
	assert_meld(w, 0, 0, "2h* Kh Ah");
	rpl_game_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_meld_table),
		cmocka_unit_test(test_canastra_categories),
		cmocka_unit_test(test_points),
		cmocka_unit_test(test_max_wilds_param),
		cmocka_unit_test(test_check_args),
		cmocka_unit_test(test_natural),
		cmocka_unit_test(test_aberto_two_becomes_natural),
		cmocka_unit_test(test_aberto_joker_moves_to_end),
		cmocka_unit_test(test_stbl_dirty_canastra_becomes_clean),
		cmocka_unit_test(test_stbl_other_two_moves_to_end),
		cmocka_unit_test(test_floating_vs_fixed_two),
		cmocka_unit_test(test_floating_vs_fixed_joker),
		cmocka_unit_test(test_add_second_wild),
		cmocka_unit_test(test_wild_stuck),
		cmocka_unit_test(test_game_meld_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
