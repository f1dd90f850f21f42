/*
 * The simulator's bots keep every turn finishable (libreplay/src/play/bot.c):
 * scenarios the look-ahead must cover, each played through the engine.
 */
#include "testlib.h"

#include <stdio.h>
#include <string.h>

#include "libreplay/sim.h"

/*
 * Deal 1 of an ABERTO match of 2 in which seat 0 goes out at once (645
 * points for side 0), so that side 0 is vulnerable in deal 2 with
 * vulnerable_at=600. Deal 2 then starts with seat 1, which draws Kh and
 * discards top: the pile is that one card when seat 0's turn begins, and
 * seat 0 would draw the first card of stock0.
 */
static rpl_game *vulnerable_side_0_after(const char *overrides, const char *hand0, const char *top, const char *stock0,
                                         const char *morto)
{
	char hand1[64], stock[64];
	rpl_game *g = tl_game("aberto", overrides, 2, 1);

	tl_deal(g, .hand = { "3h 4h 5h 6h 7h 8h 9h 3s 4s 5s 6s", NULL },
	        .morto = { "3c 4c 5c 6c 7c 8c 9c 10c Jc Qc Kd", NULL }, .stock = "7s");
	assert_applied(g, A_DRAW);
	assert_applied(g, A_MELD("3h 4h 5h 6h 7h 8h 9h"));
	assert_applied(g, A_MELD("3s 4s 5s 6s 7s"));
	assert_applied(g, A_MORTO(0));
	assert_applied(g, A_MELD("3c 4c 5c 6c 7c 8c 9c 10c Jc Qc"));
	assert_applied(g, A_DISCARD("Kd"));
	assert_phase(g, RPL_PHASE_DEAL_OVER, 0);
	assert_int_equal(rpl_game_total(g, 0), 645);

	snprintf(hand1, sizeof(hand1), "%s 3d 6d 9d Qd 3h 6h 9h Qh Ks Ah", top);
	snprintf(stock, sizeof(stock), "Kh %s", stock0);
	tl_deal(g, .hand = { hand0, hand1 }, .morto = { morto, NULL }, .stock = stock);
	assert_true(rpl_game_vulnerable(g, 0));
	assert_applied(g, A_DRAW);
	assert_applied(g, A_DISCARD(top));
	assert_phase(g, RPL_PHASE_DRAW, 0);
	return g;
}

/*
 * Let bot play seat 0's turn to its end: every choice must be made and
 * accepted. Returns the first decision's kind.
 */
static int play_turn(rpl_game *g, rpl_bot *bot)
{
	int first = -1;

	for (int step = 0; rpl_game_seat(g) == 0 && rpl_game_phase(g) < RPL_PHASE_DEAL_OVER; step++) {
		rpl_action a;
		char text[128];
		if (step == 30)
			tl_fail("seat 0's turn does not end:\n%s", tl_snapshot(g));
		if (rpl_bot_choose(bot, g, &a) != 0)
			tl_fail("the bot found no decision (step %d):\n%s", step, tl_snapshot(g));
		rpl_action_format(&a, text, sizeof(text));
		if (rpl_game_apply(g, &a) != 0)
			tl_fail("the bot chose %s, refused: %s", text, rpl_game_errmsg(g));
		if (first < 0)
			first = a.kind;
	}
	return first;
}

/*
 * The pile duty of a vulnerable side that has not opened. Seat 0 takes the
 * pile Qc (top_laid: Qc must be laid this turn) holding Ac Kc JK 4s 5s 7s
 * 8s: Qc Kc Ac and 4s 5s JK 7s 8s make 80 points, enough to open. The lay
 * that meets the duty with the most cards, Qc Kc Ac JK (55), spends the
 * joker and leaves no way to 75: every discard is then refused (open.minimum)
 * and the turn cannot end. The bot must meet the duty inside its opening plan.
 */
static void greedy_meets_the_duty_inside_its_opening(void **state)
{
	rpl_game *g = vulnerable_side_0_after("pile_rule=top_laid max_wilds=2 vulnerable_at=600",
	                                      "Ac Kc JK 4s 5s 7s 8s 5d Jd 8h 10h", "Qc", "", NULL);
	rpl_bot *bot = NULL;
	rpl_score sc;
	(void)state;

	assert_int_equal(rpl_bot_new(&bot, RPL_BOT_GREEDY, 1), 0);
	assert_int_equal(play_turn(g, bot), RPL_ACT_TAKE);
	assert_phase(g, RPL_PHASE_DRAW, 1);
	assert_int_equal(rpl_game_meld_count(g, 0), 2);
	assert_int_equal(rpl_game_hand(g, 0, NULL, 0), 3); /* 12 cards, 8 laid, one discarded */
	rpl_game_deal_score(g, 0, &sc);
	assert_int_equal(sc.melded, 80);
	rpl_bot_free(bot);
	rpl_game_free(g);
}

/*
 * A take that no turn can follow. Seat 0 may take the pile 10h (top_laid:
 * 9h 10h JK lays it), but no lays of its hand with 10h reach 75 (40 at
 * most, one joker): once it took, neither a discard (pile.top_not_laid
 * before laying 10h, open.minimum after) nor a lay could end the turn. The
 * engine allows the take (docs/rules.md 11.7: the checks are made when the
 * turn ends); a bot must not take. Random bots of many seeds, each of which
 * would take a third of the time, and the greedy bot play the turn out.
 */
static void no_take_without_an_opening(void **state)
{
	static const char *const rules[] = { "pile_rule=top_laid vulnerable_at=600",
		                                 "pile_rule=use_any vulnerable_at=600" };
	(void)state;

	for (int r = 0; r < 2; r++) {
		for (uint64_t seed = 1; seed <= 24; seed++) {
			rpl_game *g = vulnerable_side_0_after(rules[r], "9h JK 3c 6c Jc Jd 5h 6s 6s 9s 10s", "10h", "", NULL);
			rpl_bot *bot = NULL;
			rpl_game *taken = rpl_game_clone(g);
			assert_non_null(taken);
			assert_applied(taken, A_TAKE); /* legal: 9h 10h JK may be laid */
			rpl_game_free(taken);
			assert_int_equal(rpl_bot_new(&bot, seed == 1 ? RPL_BOT_GREEDY : RPL_BOT_RANDOM, seed), 0);
			assert_int_equal(play_turn(g, bot), RPL_ACT_DRAW);
			rpl_bot_free(bot);
			rpl_game_free(g);
		}
	}
}

/*
 * ABERTO's own pile rule. Seat 0 draws 5d: its twelve cards make 3h-7h,
 * 3s-6s and 3d-5d, 60 points, short of the 75 a vulnerable side opens with.
 * Laying them all down picks up the morto, and the turn must still reach 75
 * before the discard: with the morto's cards, nothing more can be laid, so
 * no discard would be legal. The bot does not count on a morto it has not
 * seen: it does not open this turn.
 */
static void no_opening_that_counts_on_the_morto(void **state)
{
	rpl_game *g = vulnerable_side_0_after("vulnerable_at=600", "3h 4h 5h 6h 7h 3s 4s 5s 6s 3d 4d", "Kd", "5d",
	                                      "Kc 9d Jh 9s Qd 10c Ah 6c Jd Qs Kh");
	rpl_bot *bot = NULL;
	(void)state;

	assert_int_equal(rpl_bot_new(&bot, RPL_BOT_GREEDY, 1), 0);
	assert_int_equal(play_turn(g, bot), RPL_ACT_DRAW);
	assert_phase(g, RPL_PHASE_DRAW, 1);
	assert_int_equal(rpl_game_meld_count(g, 0), 0);
	rpl_bot_free(bot);
	rpl_game_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(greedy_meets_the_duty_inside_its_opening),
		cmocka_unit_test(no_take_without_an_opening),
		cmocka_unit_test(no_opening_that_counts_on_the_morto),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
