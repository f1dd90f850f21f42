/*
 * Scoring a deal (docs/rules.md 9), canastra bonuses (rules.md 4), the match and its
 * target (rules.md 10), ABERTO vulnerability (rules.md 5.4).
 *
 * Unless said otherwise: 2 players, first dealer 1, so seat 0 moves first in
 * deal 1, seat 1 in deal 2.
 */
#include "testlib.h"

#include <stdio.h>
#include <string.h>

#define H_DIRECT "3c 4c 5c 6c 7c 8c 9c 5h 6h 7h 8h" /* + 9♥ drawn: all melded */
#define MORTO_DIAMONDS "3d 4d 5d 6d 7d 8d 9d 10d Jd Qd Kd"
/* junk hands: no melds possible; values 90 and 95 under every profile (no joker) */
#define JUNK90 "Ac 4c 7c 10c Kd 3d 6d 9d Qh 5s 8s"
#define JUNK95 "3c 6c 9c Qc Ad 4d 7d 10d 8h Kh Js"

static rpl_game *new2(const char *profile, const char *overrides)
{
	return tl_game(profile, overrides, 2, 1);
}

static int value(const char *profile, rpl_card c)
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

static int hand_value(const rpl_game *g, const char *profile, int seat)
{
	rpl_card h[64];
	int n = rpl_game_hand(g, seat, h, 64), v = 0;

	for (int i = 0; i < n; i++)
		v += value(profile, h[i]);
	return v;
}

#define assert_score(g, side, melded_, bonus_, out_, hand_, morto_, total_)                                            \
	check_score_at((g), (side), (melded_), (bonus_), (out_), (hand_), (morto_), (total_), __FILE__, __LINE__)

static void check_score_at(const rpl_game *g, int side, int melded, int bonus, int out, int hand, int morto, int total,
                           const char *file, int line)
{
	rpl_score s = tl_score_at(g, side, file, line);

	if (s.melded != melded || s.bonus != bonus || s.going_out != out || s.hand != hand || s.morto != morto ||
	    s.total != total)
		tl_fail_at(file, line,
		           "side %d score: melded %d bonus %d going_out %d hand %d morto %d total %d; expected %d %d %d %d "
		           "%d %d",
		           side, s.melded, s.bonus, s.going_out, s.hand, s.morto, s.total, melded, bonus, out, hand, morto,
		           total);
	if (s.melded + s.bonus + s.going_out + s.hand + s.morto != s.total)
		tl_fail_at(file, line, "side %d: the breakdown does not add up to the total %d", side, s.total);
}

/*
 * The seat to move goes out in its first turn: 3♣..9♣ (clean canastra) and
 * 5♥..9♥ empty the hand, the morto (3♦..K♦) is picked up directly, 3♦..Q♦ is
 * laid and K♦ discarded. The other seat holds JUNK95.
 * The side scores 45+35+75 = 155 melded, 200+200 bonus, 100 going out: 655.
 */
static void quick_out_deal(rpl_game *g)
{
	rpl_layout L;
	tl_spec spec;
	int rc;

	memset(&spec, 0, sizeof(spec));
	/* the seat to move is the next dealer's left (games here start with first dealer 1) */
	{
		int n = rpl_game_players(g);
		int next_dealer = rpl_game_deal_number(g) == 0 ? -1 : (rpl_game_dealer(g) + 1) % n;
		int first = next_dealer < 0 ? 0 : (next_dealer + 1) % n;

		spec.hand[first] = H_DIRECT;
		spec.hand[(first + 1) % n] = JUNK95;
	}
	spec.morto[0] = MORTO_DIAMONDS;
	spec.stock = "9h";
	tl_layout_at(&L, rpl_game_players(g), &spec, __FILE__, __LINE__);
	rc = rpl_game_deal(g, &L);
	if (rc != 0)
		tl_fail("deal refused: %s", rpl_game_errmsg(g));
	assert_applied(g, A_DRAW);
	assert_applied(g, A_MELD("3c 4c 5c 6c 7c 8c 9c"));
	assert_applied(g, A_MELD("5h 6h 7h 8h 9h"));
	assert_applied(g, A_MORTO(0));
	assert_applied(g, A_MELD("3d 4d 5d 6d 7d 8d 9d 10d Jd Qd"));
	assert_applied(g, A_DISCARD("Kd"));
}

/* Draw and discard until the deal ends by the stock (86 draws with 2 players). */
static void play_out_stock(rpl_game *g)
{
	int draws = 0;

	while (rpl_game_phase(g) == RPL_PHASE_DRAW && draws < 200) {
		tl_draw_discard(g);
		draws++;
	}
	if (rpl_game_phase(g) != RPL_PHASE_DEAL_OVER && rpl_game_phase(g) != RPL_PHASE_MATCH_OVER)
		tl_fail("after %d draws the deal is still on (phase %d)", draws, rpl_game_phase(g));
}

/* ---- a deal's score ---------------------------------------------------------- */

/* rules.md 9 on a going-out deal, KZV: the other side pays its hand and the morto (-100). */
static void test_score_going_out(void **state)
{
	static const char *const profiles[] = { "kzv", "stbl", "aberto" };

	(void)state;
	for (size_t p = 0; p < 3; p++) {
		rpl_game *g = new2(profiles[p], NULL);
		rpl_score s;

		tl_context = profiles[p];
		quick_out_deal(g);
		/* STBL: the match is the deal (rules.md 10.1) */
		assert_int_equal(rpl_game_phase(g), p == 1 ? RPL_PHASE_MATCH_OVER : RPL_PHASE_DEAL_OVER);
		assert_score(g, 0, 155, 400, 100, 0, 0, 655);
		/* STBL "Caso o outro jogador ou dupla não tenha pegado o morto, diminui-se 100 pontos" */
		assert_score(g, 1, 0, 0, 0, -95, -100, -195);
		s = tl_score(g, 0);
		assert_int_equal(s.canastras[RPL_CANASTRA_CLEAN], 2);
		assert_int_equal(s.canastras[RPL_CANASTRA_DIRTY], 0);
		assert_int_equal(rpl_game_total(g, 0), 655);
		assert_int_equal(rpl_game_total(g, 1), -195);
		rpl_game_free(g);
	}
	tl_context = NULL;
}

/*
 * ABERTO §09: "Sequência 3♥–4♥–5♥–6♥–7♥–8♥ tem 6 cartas. Acrescente 9♥ da mão,
 * guardando K♠: são 7 limpas. Valor 25+10+10=45 mais bónus 200 dá 245".
 */
static void test_worked_example_245(void **state)
{
	rpl_game *g = new2("aberto", NULL);
	rpl_meld_info m;
	rpl_score s;

	(void)state;
	tl_deal(g, .hand = { "3h 4h 5h 6h 7h 8h 9h Ks Qd" }, .stock = "Jc");
	assert_applied(g, A_DRAW);
	assert_applied(g, A_MELD("3h 4h 5h 6h 7h 8h"));
	assert_int_equal(rpl_game_meld(g, 0, 0, &m), 0);
	assert_int_equal(m.points, 35);
	assert_int_equal(m.category, RPL_CANASTRA_NONE);
	assert_applied(g, A_ADD(0, 0, "9h"));
	assert_int_equal(rpl_game_meld(g, 0, 0, &m), 0);
	assert_int_equal(m.points, 45);
	assert_int_equal(m.category, RPL_CANASTRA_CLEAN);
	assert_int_equal(m.bonus, 200);
	s = tl_score(g, 0);
	assert_int_equal(s.melded, 45);
	assert_int_equal(s.bonus, 200);
	assert_int_equal(s.melded + s.bonus, 245);
	assert_int_equal(s.going_out, 0); /* "sem batida" */
	assert_int_equal(rpl_game_hand_count(g, 0, tl_card("Ks")), 1);
	rpl_game_free(g);
}

/*
 * ABERTO §09: "Noutra distribuição, valor baixado 180, limpa 200, batida 100 e
 * resto do parceiro 15 dão 465". Four players: seat 2 lays 60 and keeps K♦ 5♥
 * (15); seat 0 lays 3♥..9♥ (the clean canastra) and 3♣..7♣, picks up its morto
 * and lays 3♦..7♦ and 3♠..7♠, discarding K♣ to go out: 60 + 70 + 50 = 180.
 */
static void test_worked_example_465(void **state)
{
	rpl_game *g = tl_game("aberto", NULL, 4, 3);

	(void)state;
	tl_deal(g, .hand = { "3h 4h 5h 6h 7h 8h 9h 3c 4c 5c 6c", NULL, "5c 6c 7c 8c 9c 10c 3s 4s 5s Kd 5h", NULL },
	        .morto = { "3d 4d 5d 6d 7d 3s 4s 5s 6s 7s Kc" }, .stock = "Qd Qs Jd Js 7c");
	assert_phase(g, RPL_PHASE_DRAW, 0);
	tl_draw_discard(g); /* seat 0 keeps its hand */
	tl_draw_discard(g); /* seat 1 */
	assert_applied(g, A_DRAW);
	assert_applied(g, A_MELD("5c 6c 7c 8c 9c 10c"));
	assert_applied(g, A_MELD("3s 4s 5s"));
	assert_applied(g, A_DISCARD("Jd"));
	assert_hand(g, 2, "Kd 5h");
	tl_draw_discard(g); /* seat 3 */
	assert_applied(g, A_DRAW);
	assert_applied(g, A_MELD("3h 4h 5h 6h 7h 8h 9h"));
	assert_applied(g, A_MELD("3c 4c 5c 6c 7c"));
	assert_applied(g, A_MORTO(0));
	assert_applied(g, A_MELD("3d 4d 5d 6d 7d"));
	assert_applied(g, A_MELD("3s 4s 5s 6s 7s"));
	assert_applied(g, A_DISCARD("Kc"));
	assert_int_equal(rpl_game_phase(g), RPL_PHASE_DEAL_OVER);
	assert_score(g, 0, 180, 200, 100, -15, 0, 465);
	{
		rpl_score s = tl_score(g, 1);

		assert_int_equal(s.morto, -100);
		assert_int_equal(s.going_out, 0);
		assert_int_equal(s.melded, 0);
	}
	rpl_game_free(g);
}

/*
 * rules.md 9 "− 100 if the side did not take a morto"; "ABERTO: if no side took a morto,
 * nobody pays the −100" ("se nenhum par pegou, nenhum recebe pena"); STBL and KZV
 * [decision]: each side without a morto pays. A deal ended by the stock.
 */
static void test_morto_penalty_none_taken(void **state)
{
	static const char *const profiles[] = { "kzv", "stbl", "aberto" };
	static const int pen[3] = { -100, -100, 0 };

	(void)state;
	for (size_t p = 0; p < 3; p++) {
		rpl_game *g = new2(profiles[p], NULL);
		rpl_deal_stats st;

		tl_context = profiles[p];
		tl_deal(g, .hand = { JUNK90, JUNK95 });
		play_out_stock(g);
		rpl_game_deal_stats(g, &st);
		assert_int_equal(st.end, RPL_DEAL_STOCK);
		assert_score(g, 0, 0, 0, 0, -90, pen[p], -90 + pen[p]);
		assert_score(g, 1, 0, 0, 0, -95, pen[p], -95 + pen[p]);
		assert_int_equal(rpl_game_total(g, 0), -90 + pen[p]);
		assert_int_equal(rpl_game_total(g, 1), -95 + pen[p]);
		rpl_game_free(g);
	}
	tl_context = NULL;
}

/*
 * ABERTO §07: "Morto pego após descarte mas nunca usado numa vez antes da batida
 * adversária custa −100 em vez dos valores de todas as suas cartas". Seat 1 picks
 * up morto 1 by discarding its last card; seat 0 goes out before seat 1 plays
 * again. KZV/STBL (unplayed_morto_cost 0): the morto's cards count as hand cards.
 */
static void test_unplayed_morto(void **state)
{
	static const char *const profiles[] = { "kzv", "stbl", "aberto" };

	(void)state;
	for (size_t p = 0; p < 3; p++) {
		rpl_game *g = new2(profiles[p], NULL);
		rpl_score s;
		int mv;

		tl_context = profiles[p];
		tl_deal(g, .hand = { H_DIRECT, "3s 4s 5s 6s 7s 8s 9s Jh Qh Kh Ks" }, .morto = { MORTO_DIAMONDS },
		        .stock = "9h 10s Qs");
		assert_applied(g, A_DRAW);
		assert_applied(g, A_MELD("3c 4c 5c 6c 7c 8c 9c"));
		assert_applied(g, A_MELD("5h 6h 7h 8h 9h"));
		assert_applied(g, A_MORTO(0));
		assert_applied(g, A_MELD("3d 4d 5d 6d 7d 8d 9d 10d Jd"));
		assert_applied(g, A_DISCARD("Kd"));
		assert_hand(g, 0, "Qd");
		/* seat 1: empties the hand by the discard: indirect */
		assert_applied(g, A_DRAW);
		assert_applied(g, A_MELD("3s 4s 5s 6s 7s 8s 9s 10s"));
		assert_applied(g, A_MELD("Jh Qh Kh"));
		assert_applied(g, A_DISCARD("Ks"));
		assert_phase(g, RPL_PHASE_MORTO, 1);
		assert_applied(g, A_MORTO(1));
		assert_int_equal(rpl_game_morto_state(g, 1), 1);
		mv = hand_value(g, profiles[p], 1);
		/* seat 0 goes out at once */
		assert_phase(g, RPL_PHASE_DRAW, 0);
		assert_applied(g, A_DRAW);
		assert_applied(g, A_ADD(0, 2, "Qd"));
		assert_applied(g, A_DISCARD("Qs"));
		assert_int_equal(rpl_game_phase(g), p == 1 ? RPL_PHASE_MATCH_OVER : RPL_PHASE_DEAL_OVER);
		assert_score(g, 0, 45 + 35 + 75, 400, 100, 0, 0, 655);
		s = tl_score(g, 1);
		assert_int_equal(s.melded, 55 + 30);
		assert_int_equal(s.bonus, 200);
		if (p == 2) {
			if (s.hand + s.morto != -100 || s.total != 85 + 200 - 100)
				tl_fail("ABERTO unplayed morto: hand %d morto %d total %d; expected hand+morto -100, total 185", s.hand,
				        s.morto, s.total);
		} else {
			assert_int_equal(s.hand, -mv);
			assert_int_equal(s.morto, 0);
			assert_int_equal(s.total, 85 + 200 - mv);
		}
		rpl_game_free(g);
	}
	tl_context = NULL;
}

/* The same, but seat 1 plays one turn with its morto first: its cards count as usual. */
static void test_played_morto(void **state)
{
	rpl_game *g = new2("aberto", NULL);
	rpl_score s;
	int mv;

	(void)state;
	tl_deal(g, .hand = { H_DIRECT, "3s 4s 5s 6s 7s 8s 9s Jh Qh Kh Ks" }, .morto = { MORTO_DIAMONDS },
	        .stock = "9h 10s Qs Js Jc");
	assert_applied(g, A_DRAW);
	assert_applied(g, A_MELD("3c 4c 5c 6c 7c 8c 9c"));
	assert_applied(g, A_MELD("5h 6h 7h 8h 9h"));
	assert_applied(g, A_MORTO(0));
	assert_applied(g, A_MELD("3d 4d 5d 6d 7d 8d 9d 10d Jd"));
	assert_applied(g, A_DISCARD("Kd"));
	assert_applied(g, A_DRAW);
	assert_applied(g, A_MELD("3s 4s 5s 6s 7s 8s 9s 10s"));
	assert_applied(g, A_MELD("Jh Qh Kh"));
	assert_applied(g, A_DISCARD("Ks"));
	assert_applied(g, A_MORTO(1));
	assert_applied(g, A_DRAW); /* seat 0 draws Q♠, keeps Q♦ */
	assert_applied(g, A_DISCARD("Qs"));
	assert_applied(g, A_DRAW); /* seat 1 plays a turn from its morto */
	assert_applied(g, A_DISCARD("Js"));
	mv = hand_value(g, "aberto", 1);
	assert_applied(g, A_DRAW);
	assert_applied(g, A_ADD(0, 2, "Qd"));
	assert_applied(g, A_DISCARD("Jc"));
	assert_int_equal(rpl_game_phase(g), RPL_PHASE_DEAL_OVER);
	s = tl_score(g, 1);
	assert_int_equal(s.hand, -mv);
	assert_int_equal(s.morto, 0);
	assert_int_equal(s.total, 85 + 200 - mv);
	rpl_game_free(g);
}

/*
 * rules.md 4 "Canastra bonus, only the highest category of each canastra counts": A..A
 * built over two steps via the morto; 13 clean cards first, then 14.
 */
static void test_canastra_bonus_highest_only(void **state)
{
	static const char *const profiles[] = { "kzv", "stbl", "aberto" };
	static const int clean13[3] = { 200, 500, 500 }, clean14[3] = { 600, 1000, 1000 }, dirty14[3] = { 300, 100, 100 };

	(void)state;
	for (size_t p = 0; p < 3; p++) {
		rpl_game *g = new2(profiles[p], NULL);
		rpl_score s;

		tl_context = profiles[p];
		tl_deal(g, .hand = { "Ac 2c 3c 4c 5c 6c 7c 8c 9c 10c Jc" }, .morto = { "Kc Ac" }, .stock = "Qc");
		assert_applied(g, A_DRAW);
		assert_applied(g, A_MELD("Ac 2c 3c 4c 5c 6c 7c 8c 9c 10c Jc Qc"));
		assert_int_equal(tl_score(g, 0).bonus, 200);
		assert_applied(g, A_MORTO(0));
		assert_applied(g, A_ADD(0, 0, "Kc"));
		s = tl_score(g, 0);
		assert_int_equal(s.bonus, clean13[p]);
		assert_int_equal(s.canastras[RPL_CANASTRA_CLEAN13], 1);
		assert_int_equal(s.canastras[RPL_CANASTRA_CLEAN], 0);
		assert_applied(g, A_ADD(0, 0, "Ac"));
		s = tl_score(g, 0);
		assert_int_equal(s.bonus, clean14[p]);
		assert_int_equal(s.canastras[RPL_CANASTRA_CLEAN14], 1);
		assert_int_equal(s.canastras[RPL_CANASTRA_CLEAN13], 0);
		assert_int_equal(s.canastras[RPL_CANASTRA_CLEAN], 0);
		assert_int_equal(s.melded, 15 + 10 + 5 * 5 + 10 * 6 + 15);
		rpl_game_free(g);

		/* KZV "+300 se tiver um coringa"; STBL/ABERTO: just dirty (100) */
		g = new2(profiles[p], NULL);
		tl_deal(g, .hand = { "Ac JK 3c 4c 5c 6c 7c 8c 9c 10c Jc" }, .morto = { "Kc Ac" }, .stock = "Qc");
		assert_applied(g, A_DRAW);
		assert_applied(g, A_MELD("Ac JK 3c 4c 5c 6c 7c 8c 9c 10c Jc Qc"));
		assert_int_equal(tl_score(g, 0).bonus, 100);
		assert_applied(g, A_MORTO(0));
		assert_applied(g, A_ADD(0, 0, "Kc Ac"));
		s = tl_score(g, 0);
		assert_int_equal(s.bonus, dirty14[p]);
		assert_int_equal(s.canastras[RPL_CANASTRA_DIRTY14], 1);
		assert_int_equal(s.canastras[RPL_CANASTRA_DIRTY], 0);
		rpl_game_free(g);
	}
	tl_context = NULL;
}

/* STBL "Curinga (Joker) 50 pontos cada": a joker left in the hand costs 50 (KZV/ABERTO 20). */
static void test_joker_value_in_hand(void **state)
{
	static const char *const profiles[] = { "kzv", "stbl", "aberto" };
	static const int jk[3] = { 20, 50, 20 };

	(void)state;
	for (size_t p = 0; p < 3; p++) {
		rpl_game *g = new2(profiles[p], NULL);

		tl_context = profiles[p];
		tl_deal(g, .hand = { "Ac 4c 7c 10c Kd 3d 6d 9d Qh 5s JK", JUNK95 });
		play_out_stock(g);
		assert_int_equal(tl_score(g, 0).hand, -(90 - 10 + jk[p]));
		rpl_game_free(g);
	}
	tl_context = NULL;
}

/* ---- the match (rules.md 10) ------------------------------------------------------------ */

/* target 0 = one deal ("The match header may set another target, including one deal"). */
static void test_match_one_deal(void **state)
{
	rpl_game *g = new2("kzv", "target=0");
	rpl_layout L;

	(void)state;
	quick_out_deal(g);
	assert_int_equal(rpl_game_phase(g), RPL_PHASE_MATCH_OVER);
	assert_int_equal(rpl_game_winner(g), 0);
	tl_layout(&L, 2, .hand = { NULL });
	assert_int_equal(rpl_game_deal(g, &L), RPL_EILLEGAL);
	assert_int_equal(rpl_game_rule(g), RPL_RULE_MATCH_OVER);
	assert_refused_any(g, A_DRAW, RPL_RULE_MATCH_OVER, RPL_RULE_NO_DEAL);
	rpl_game_free(g);
}

/* rules.md 10 "When a side's total reaches the target, the match ends and the highest total wins". */
static void test_match_target_reached(void **state)
{
	rpl_game *g = new2("stbl", "target=600");

	(void)state;
	quick_out_deal(g); /* 655 >= 600 */
	assert_int_equal(rpl_game_phase(g), RPL_PHASE_MATCH_OVER);
	assert_int_equal(rpl_game_winner(g), 0);
	assert_int_equal(rpl_game_total(g, 0), 655);
	rpl_game_free(g);

	g = new2("stbl", "target=700");
	quick_out_deal(g); /* 655 < 700: another deal */
	assert_int_equal(rpl_game_phase(g), RPL_PHASE_DEAL_OVER);
	assert_int_equal(rpl_game_winner(g), -1);
	rpl_game_free(g);
}

/*
 * Totals accumulate; the dealer rotates clockwise and its left moves first
 * ("Distribuição, jogo e rotação são horários").
 */
static void test_match_accumulates(void **state)
{
	rpl_game *g = new2("kzv", NULL);

	(void)state;
	quick_out_deal(g);
	assert_int_equal(rpl_game_phase(g), RPL_PHASE_DEAL_OVER);
	assert_int_equal(rpl_game_total(g, 0), 655);
	assert_int_equal(rpl_game_total(g, 1), -195);
	tl_deal(g, .hand = { JUNK90, JUNK95 });
	assert_int_equal(rpl_game_deal_number(g), 2);
	assert_int_equal(rpl_game_dealer(g), 0);
	assert_phase(g, RPL_PHASE_DRAW, 1);
	assert_int_equal(rpl_game_total(g, 0), 655); /* the total before this deal */
	play_out_stock(g);
	assert_score(g, 0, 0, 0, 0, -90, -100, -190);
	assert_int_equal(rpl_game_total(g, 0), 655 - 190);
	assert_int_equal(rpl_game_total(g, 1), -195 - 195);
	tl_deal(g, .hand = { JUNK90, JUNK95 });
	assert_int_equal(rpl_game_dealer(g), 1);
	assert_phase(g, RPL_PHASE_DRAW, 0);
	rpl_game_free(g);

	/* four players: dealer 3 -> 0 -> 1 */
	g = tl_game("aberto", NULL, 4, 3);
	tl_deal(g, .hand = { NULL });
	assert_phase(g, RPL_PHASE_DRAW, 0);
	rpl_game_free(g);
}

/*
 * rules.md 10 "a tie plays another deal" (ABERTO §06 "igualdade exige outra"). Deal 1:
 * both sides lay a clean canastra (45 + 200), keep 40 in hand, take no morto:
 * 105 each >= target 100. Deal 2: seat 1 goes out and wins.
 */
static void test_match_tie(void **state)
{
	rpl_game *g = new2("kzv", "target=100");

	(void)state;
	tl_deal(g, .hand = { "3c 4c 5c 6c 7c 8c 9c Kh Qs Jh 10s", "3d 4d 5d 6d 7d 8d 9d Ks Qh Js 10h" }, .stock = "Kc Kd");
	assert_applied(g, A_DRAW);
	assert_applied(g, A_MELD("3c 4c 5c 6c 7c 8c 9c"));
	assert_applied(g, A_DISCARD("Kc"));
	assert_applied(g, A_DRAW);
	assert_applied(g, A_MELD("3d 4d 5d 6d 7d 8d 9d"));
	assert_applied(g, A_DISCARD("Kd"));
	play_out_stock(g);
	assert_score(g, 0, 45, 200, 0, -40, -100, 105);
	assert_score(g, 1, 45, 200, 0, -40, -100, 105);
	assert_int_equal(rpl_game_total(g, 0), rpl_game_total(g, 1));
	assert_int_equal(rpl_game_phase(g), RPL_PHASE_DEAL_OVER);
	assert_int_equal(rpl_game_winner(g), -1);
	quick_out_deal(g); /* seat 1 moves first and goes out */
	assert_int_equal(rpl_game_phase(g), RPL_PHASE_MATCH_OVER);
	assert_int_equal(rpl_game_winner(g), 1);
	assert_int_equal(rpl_game_total(g, 1), 105 + 655);
	assert_int_equal(rpl_game_total(g, 0), 105 - 95 - 100);
	rpl_game_free(g);
}

/*
 * rules.md 10.1, corrected 2026-12-01: STBL's match is one deal by default
 * (target 0). STBL «Se um jogador que já pegou um morto tornar a bater,
 * terminará a partida»; «O jogador ou a dupla que fizer o maior número de
 * pontos, ganha a partida».
 */
static void test_stbl_match_is_one_deal(void **state)
{
	rpl_game *g = new2("stbl", NULL);
	rpl_layout L;

	(void)state;
	quick_out_deal(g);
	assert_int_equal(rpl_game_phase(g), RPL_PHASE_MATCH_OVER);
	assert_int_equal(rpl_game_winner(g), 0);
	tl_layout(&L, 2, .hand = { NULL });
	assert_int_equal(rpl_game_deal(g, &L), RPL_EILLEGAL);
	assert_int_equal(rpl_game_rule(g), RPL_RULE_MATCH_OVER);
	rpl_game_free(g);
	/* a header may still set a target: 3000 plays on */
	g = new2("stbl", "target=3000");
	quick_out_deal(g);
	assert_int_equal(rpl_game_phase(g), RPL_PHASE_DEAL_OVER);
	rpl_game_free(g);
}

/*
 * rules.md 10.1: under STBL's one-deal match a tied deal plays another
 * ("a tie still plays another deal"). Deal 1: both sides lay a clean
 * canastra and take no morto: 105 each. Deal 2: seat 1 goes out and wins.
 */
static void test_stbl_tie_plays_another_deal(void **state)
{
	rpl_game *g = new2("stbl", NULL);

	(void)state;
	tl_deal(g, .hand = { "3c 4c 5c 6c 7c 8c 9c Kh Qs Jh 10s", "3d 4d 5d 6d 7d 8d 9d Ks Qh Js 10h" }, .stock = "Kc Kd");
	assert_applied(g, A_DRAW);
	assert_applied(g, A_MELD("3c 4c 5c 6c 7c 8c 9c"));
	assert_applied(g, A_DISCARD("Kc"));
	assert_applied(g, A_DRAW);
	assert_applied(g, A_MELD("3d 4d 5d 6d 7d 8d 9d"));
	assert_applied(g, A_DISCARD("Kd"));
	play_out_stock(g);
	/* no going out: each side without a morto pays [decision] (rules.md 9.3) */
	assert_score(g, 0, 45, 200, 0, -40, -100, 105);
	assert_score(g, 1, 45, 200, 0, -40, -100, 105);
	assert_int_equal(rpl_game_phase(g), RPL_PHASE_DEAL_OVER);
	assert_int_equal(rpl_game_winner(g), -1);
	quick_out_deal(g);
	assert_int_equal(rpl_game_phase(g), RPL_PHASE_MATCH_OVER);
	assert_int_equal(rpl_game_winner(g), 1);
	assert_int_equal(rpl_game_total(g, 1), 105 + 655);
	rpl_game_free(g);
}

/* ---- ABERTO vulnerability (rules.md 5.4) ------------------------------------------------- */

/*
 * ABERTO §05 "Par com acumulado de 1500 ou mais está vulnerável: primeiros jogos da
 * distribuição devem somar pelo menos 75 em cartas ao mesmo tempo. Várias sequências
 * podem somar; bónus não cumprem mínimo". To reach the threshold in one deal this
 * test lowers vulnerable_at to 100 (deal 1 gives side 0 655 points).
 */
static void test_vulnerable_opening(void **state)
{
	rpl_game *g = new2("aberto", "vulnerable_at=100"), *c;

	(void)state;
	assert_int_equal(rpl_game_vulnerable(g, 0), 0);
	quick_out_deal(g);
	assert_int_equal(rpl_game_total(g, 0), 655);
	tl_deal(g, .hand = { "3h 4h 5h 6h 7h 8h 9h 8s 9s 10s Kd", "3d 4d 5d Ac 4c 7c 10c Qh 5s Jh 6s" },
	        .stock = "Jc Jd Qc Js");
	assert_int_equal(rpl_game_vulnerable(g, 0), 1);
	assert_int_equal(rpl_game_vulnerable(g, 1), 0);
	/* seat 1 (not vulnerable): no minimum ("Abaixo de 1500 não há mínimo") */
	assert_phase(g, RPL_PHASE_DRAW, 1);
	assert_applied(g, A_DRAW);
	assert_applied(g, A_MELD("3d 4d 5d"));
	assert_applied(g, A_DISCARD("Jc"));
	/* seat 0: a clean canastra is 45 in cards; its 200 bonus does not count */
	assert_applied(g, A_DRAW);
	assert_applied(g, A_MELD("3h 4h 5h 6h 7h 8h 9h"));
	assert_refused(g, A_DISCARD("Kd"), RPL_RULE_OPEN_MINIMUM);
	c = rpl_game_clone(g);
	assert_applied(c, A_MELD("8s 9s 10s")); /* 45 + 30 = 75 */
	assert_applied(c, A_DISCARD("Kd"));
	{
		rpl_deal_stats st;

		rpl_game_deal_stats(c, &st);
		assert_int_equal(st.vulnerable_open, 1);
	}
	/* once opened, no minimum ("Aberto o par, ambos acrescentam sem abertura separada") */
	tl_draw_discard(c); /* seat 1 */
	assert_applied(c, A_DRAW);
	assert_applied(c, A_ADD(0, 1, "Js"));
	assert_applied(c, A_DISCARD("Jd"));
	rpl_game_free(c);
	assert_applied(g, A_MELD("8s 9s 10s")); /* 75: passes */
	assert_applied(g, A_DISCARD("Kd"));
	rpl_game_free(g);
}

/*
 * "Várias sequências podem somar": 65 in two melds is refused; adding a card to
 * one of them in the same turn reaches 75 and passes (vulnerable_at lowered to 100).
 */
static void test_vulnerable_several_melds(void **state)
{
	rpl_game *g = new2("aberto", "vulnerable_at=100");

	(void)state;
	quick_out_deal(g);
	tl_deal(g, .hand = { "3h 4h 5h 6h 7h 8h 9h Js Qs Ks Kd", NULL }, .stock = "Jc Jd");
	assert_int_equal(rpl_game_vulnerable(g, 0), 1);
	tl_draw_discard(g); /* seat 1 */
	assert_applied(g, A_DRAW);
	assert_applied(g, A_MELD("3h 4h 5h 6h 7h 8h")); /* 35 */
	assert_refused(g, A_DISCARD("Kd"), RPL_RULE_OPEN_MINIMUM);
	assert_applied(g, A_MELD("Js Qs Ks")); /* 30: 65 */
	assert_refused(g, A_DISCARD("Kd"), RPL_RULE_OPEN_MINIMUM);
	assert_applied(g, A_ADD(0, 0, "9h")); /* 10: 75 */
	assert_applied(g, A_DISCARD("Kd"));
	rpl_game_free(g);
}

/* "1500 ou mais": the threshold itself makes a side vulnerable (lowered to 655 / 656 here). */
static void test_vulnerable_threshold(void **state)
{
	rpl_game *g = new2("aberto", "vulnerable_at=655");

	(void)state;
	quick_out_deal(g);
	tl_deal(g, .hand = { NULL });
	assert_int_equal(rpl_game_vulnerable(g, 0), 1);
	rpl_game_free(g);
	g = new2("aberto", "vulnerable_at=656");
	quick_out_deal(g);
	tl_deal(g, .hand = { NULL });
	assert_int_equal(rpl_game_vulnerable(g, 0), 0);
	rpl_game_free(g);
	/* "reaches the target": a total equal to the target ends the match */
	g = new2("kzv", "target=655");
	quick_out_deal(g);
	assert_int_equal(rpl_game_phase(g), RPL_PHASE_MATCH_OVER);
	assert_int_equal(rpl_game_winner(g), 0);
	rpl_game_free(g);
}

/* Without the override 655 is far from 1500: not vulnerable, no minimum. */
static void test_not_vulnerable_below_1500(void **state)
{
	rpl_game *g = new2("aberto", NULL);

	(void)state;
	quick_out_deal(g);
	tl_deal(g, .hand = { "3h 4h 5h Kd", NULL }, .stock = "Jc Jd");
	assert_int_equal(rpl_game_vulnerable(g, 0), 0);
	tl_draw_discard(g);
	assert_applied(g, A_DRAW);
	assert_applied(g, A_MELD("3h 4h 5h"));
	assert_applied(g, A_DISCARD("Kd"));
	rpl_game_free(g);

	/* KZV and STBL have no vulnerability */
	g = new2("kzv", NULL);
	quick_out_deal(g);
	tl_deal(g, .hand = { NULL });
	assert_int_equal(rpl_game_vulnerable(g, 0), 0);
	rpl_game_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_score_going_out),
		cmocka_unit_test(test_worked_example_245),
		cmocka_unit_test(test_worked_example_465),
		cmocka_unit_test(test_morto_penalty_none_taken),
		cmocka_unit_test(test_unplayed_morto),
		cmocka_unit_test(test_played_morto),
		cmocka_unit_test(test_canastra_bonus_highest_only),
		cmocka_unit_test(test_joker_value_in_hand),
		cmocka_unit_test(test_match_one_deal),
		cmocka_unit_test(test_match_target_reached),
		cmocka_unit_test(test_match_accumulates),
		cmocka_unit_test(test_match_tie),
		cmocka_unit_test(test_stbl_match_is_one_deal),
		cmocka_unit_test(test_stbl_tie_plays_another_deal),
		cmocka_unit_test(test_vulnerable_opening),
		cmocka_unit_test(test_vulnerable_several_melds),
		cmocka_unit_test(test_vulnerable_threshold),
		cmocka_unit_test(test_not_vulnerable_below_1500),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
