/*
 * The engine's readings where the seeds leave the mechanics open
 * (docs/rules.md section 11), each through a whole scenario.
 */
#include "testlib.h"

#include <string.h>

#include "rules/meld_impl.h"

/*
 * 11.3: STBL may take the pile only if laying its top card is accepted on
 * the table after the take. Here 8c fits the side's 5c-6c-7c, but the player
 * holds only 5d: laying 8c would leave 5d, which could not be discarded (the
 * side has its morto and no clean canastra), so the take is refused.
 */
static void stbl_take_refused_when_laying_leaves_an_unplayable_card(void **state)
{
	rpl_game *g = tl_game("stbl", NULL, 2, 1);
	(void)state;

	tl_deal(g, .hand = { "3h 4h JK 6h 7h 8h 3s 4s 2c 6s 7s", "Jd Qd 8c 4c 9c 10c 4d 10d Ad Qh Qs" },
	        .morto = { "9h 10h Jh 9s 10s Js 5c 6c 7c 5d Kd", NULL }, .stock = "8s");
	assert_applied(g, A_DRAW);
	assert_applied(g, A_MELD("3h 4h JK 6h 7h 8h"));
	assert_applied(g, A_MELD("3s 4s 2c 6s 7s 8s"));
	assert_phase(g, RPL_PHASE_MORTO, 0); /* direct: the hand emptied by melding */
	assert_applied(g, A_MORTO(0));
	assert_applied(g, A_ADD(0, 0, "9h 10h Jh"));
	assert_applied(g, A_ADD(0, 1, "9s 10s Js"));
	assert_applied(g, A_MELD("5c 6c 7c"));
	assert_applied(g, A_DISCARD("Kd"));
	/* seat 1 takes the one-card pile Kd with Jd Qd, and discards 8c */
	assert_applied(g, A_TAKE);
	assert_applied(g, A_MELD("Jd Qd Kd"));
	assert_applied(g, A_DISCARD("8c"));
	/* seat 0 holds 5d alone: 8c fits a meld, but the lay would leave 5d stranded */
	assert_hand(g, 0, "5d");
	assert_refused(g, A_TAKE, RPL_RULE_PILE_UNUSABLE);
	assert_applied(g, A_DRAW);
	rpl_game_free(g);
}

/* 11.8: a lay that leaves one card which could not end the turn is refused with the out.* rule. */
static void stbl_lay_keeps_a_card_to_discard(void **state)
{
	rpl_game *g = tl_game("stbl", NULL, 2, 1);
	(void)state;

	tl_deal(g, .hand = { "3h 4h JK 6h 7h 8h 3s 4s 2c 6s 7s", NULL },
	        .morto = { "9h 10h Jh 9s 10s Js 5c 6c 7c 5d 8c", NULL }, .stock = "8s");
	assert_applied(g, A_DRAW);
	assert_applied(g, A_MELD("3h 4h JK 6h 7h 8h"));
	assert_applied(g, A_MELD("3s 4s 2c 6s 7s 8s"));
	assert_applied(g, A_MORTO(0));
	assert_applied(g, A_ADD(0, 0, "9h 10h Jh"));
	assert_applied(g, A_ADD(0, 1, "9s 10s Js"));
	/* 5c 6c 7c 8c would leave 5d: it could not be discarded (no clean canastra), nor melded */
	assert_refused(g, A_MELD("5c 6c 7c 8c"), RPL_RULE_OUT_NO_CLEAN);
	assert_hand(g, 0, "5c 6c 7c 8c 5d");
	/* keeping two cards is fine */
	assert_applied(g, A_MELD("5c 6c 7c"));
	assert_applied(g, A_DISCARD("5d"));
	rpl_game_free(g);
}

/*
 * 6.5 and 11.6 [decision]: ABERTO's one-card pile may not go back ("não
 * devolva essa carta"), and no card of its face may, a copy held before the
 * take included: a log names faces, not copies, and either copy puts the
 * same card back on the pile (one_card_pile_no_return face).
 */
static void aberto_one_card_pile_face_not_discarded(void **state)
{
	rpl_game *g = tl_game("aberto", NULL, 2, 1);
	(void)state;

	tl_deal(g, .hand = { "9c 3d 5d 7d 9d Jd 3h 5h 7h 9h Jh", "9c 4d 6d 8d 10d Qd 4h 6h 8h 10h Qh" }, .stock = "Ks Kc");
	assert_applied(g, A_DRAW);
	assert_applied(g, A_DISCARD("9c"));
	/* seat 1 held a 9c before taking the one-card pile 9c: no 9c may go back */
	assert_applied(g, A_TAKE);
	assert_hand(g, 1, "9c 9c 4d 6d 8d 10d Qd 4h 6h 8h 10h Qh");
	assert_refused(g, A_DISCARD("9c"), RPL_RULE_PILE_RETURN);
	assert_hand(g, 1, "9c 9c 4d 6d 8d 10d Qd 4h 6h 8h 10h Qh");
	assert_applied(g, A_DISCARD("4d"));
	/* seat 0 holds no 4d: taking the one-card pile 4d, it may not discard it back either */
	assert_applied(g, A_TAKE);
	assert_refused(g, A_DISCARD("4d"), RPL_RULE_PILE_RETURN);
	assert_applied(g, A_DISCARD("3d"));
	/* the rule lasts one turn: seat 1 draws and discards a 9c */
	assert_applied(g, A_DRAW);
	assert_applied(g, A_DISCARD("9c"));
	rpl_game_free(g);
}

/*
 * one_card_pile_no_return true, the reading of the logs written before
 * (frozen revision 1's ABERTO): a copy of the face held before the take is
 * another card and may be discarded; without one, the card may not go back.
 */
static void aberto_true_lets_a_copy_held_before_go(void **state)
{
	rpl_game *g = tl_game("aberto", "one_card_pile_no_return=true", 2, 1);
	(void)state;

	tl_deal(g, .hand = { "9c 3d 5d 7d 9d Jd 3h 5h 7h 9h Jh", "9c 4d 6d 8d 10d Qd 4h 6h 8h 10h Qh" }, .stock = "Ks Kc");
	assert_applied(g, A_DRAW);
	assert_applied(g, A_DISCARD("9c"));
	/* seat 1 held a 9c before taking the one-card pile 9c: discarding a 9c is allowed */
	assert_applied(g, A_TAKE);
	assert_applied(g, A_DISCARD("9c"));
	/* seat 0 holds no 9c: taking the one-card pile 9c, it may not discard it back */
	assert_applied(g, A_TAKE);
	assert_refused(g, A_DISCARD("9c"), RPL_RULE_PILE_RETURN);
	assert_applied(g, A_DISCARD("3d"));
	rpl_game_free(g);
}

/*
 * 8.3 [decision], STBL's two senses of "bater": «Só pode bater com canastra
 * limpa» is the final going out; «O jogador que bater com as onze cartas
 * iniciais, pegará o morto» needs no canastra. Seat 0 empties its hand with
 * no canastra at all and takes its morto; then, with dirty canastras only, it
 * may not go out.
 */
static void stbl_bater_morto_needs_no_canastra(void **state)
{
	rpl_game *g = tl_game("stbl", NULL, 2, 1);
	(void)state;

	tl_deal(g, .hand = { "3h 4h JK 6h 7h 8h 3s 4s 2c 6s 7s", NULL },
	        .morto = { "9h 10h Jh 9s 10s Js 5c 6c 7c 5d 8c", NULL }, .stock = "8s");
	assert_applied(g, A_DRAW);
	assert_applied(g, A_MELD("3h 4h JK 6h 7h 8h"));
	/* six cards each: no canastra on the table, and the hand empties */
	assert_applied(g, A_MELD("3s 4s 2c 6s 7s 8s"));
	assert_phase(g, RPL_PHASE_MORTO, 0);
	assert_applied(g, A_MORTO(0));
	assert_applied(g, A_ADD(0, 0, "9h 10h Jh"));
	assert_applied(g, A_ADD(0, 1, "9s 10s Js"));
	assert_applied(g, A_MELD("5c 6c 7c"));
	/* the final going out is near (8c, then 5d): two dirty canastras, no clean one, so the player keeps a card */
	assert_refused(g, A_ADD(0, 2, "8c"), RPL_RULE_OUT_NO_CLEAN);
	assert_applied(g, A_DISCARD("8c"));
	assert_hand(g, 0, "5d");
	rpl_game_free(g);
}

/* 4.1 [decision]: under STBL a natural 2 on the table and a 2 left in hand are worth 10, as a wild 2 is. */
static void stbl_every_two_is_worth_ten(void **state)
{
	rpl_rules *r = tl_rules("stbl", NULL);
	cardset hand;
	(void)state;

	memset(hand, 0, sizeof hand);
	hand[tl_card("2h")] = 1;
	hand[tl_card("2c")] = 1;
	assert_int_equal(rpl__cards_points(r, hand), 20);
	rpl_rules_free(r);
}

/*
 * docs/rules.md 3.4, KZV "o que for melhor": a floating meld may be arranged anew.
 * Adding Kc to Ac 2s(2c) 3c..Jc moves the ace high and the 2s to the queen;
 * the legal-move generator lists that addition.
 */
static void kzv_floating_add_rearranges_and_is_listed(void **state)
{
	rpl_game *g = tl_game("kzv", NULL, 2, 1);
	rpl_action moves[512];
	size_t n;
	int found = 0;
	(void)state;

	tl_deal(g, .hand = { "Ac 2s 3c 4c 5c 6c 7c 8c 9c 10c Jc", NULL }, .stock = "Kc");
	assert_applied(g, A_DRAW);
	assert_applied(g, A_MELD("Ac 2s 3c 4c 5c 6c 7c 8c 9c 10c Jc"));
	assert_meld(g, 0, 0, "Ac 2s* 3c 4c 5c 6c 7c 8c 9c 10c Jc");
	n = rpl_game_legal(g, moves, 512);
	for (size_t i = 0; i < n && i < 512; i++)
		if (moves[i].kind == RPL_ACT_ADD && moves[i].ncards == 1 && moves[i].cards[0] == tl_card("Kc"))
			found = 1;
	assert_true(found);
	assert_applied(g, A_ADD(0, 0, "Kc"));
	assert_meld(g, 0, 0, "3c 4c 5c 6c 7c 8c 9c 10c Jc 2s* Kc Ac");
	assert_phase(g, RPL_PHASE_MORTO, 0);
	rpl_game_free(g);
}

/* Every move the generator lists is accepted, through whole bot matches of every profile. */
static void generated_moves_always_apply(void **state)
{
	static const char *const profiles[] = { "kzv", "stbl", "aberto" };
	static rpl_action moves[4096];
	(void)state;

	for (int p = 0; p < 3; p++) {
		for (int players = 2; players <= 4; players += 2) {
			rpl_rules *r = tl_rules(profiles[p], "target=0");
			rpl_game *g = NULL, *copy = NULL;
			rpl_bot *bot = NULL;
			rpl_rng rng;
			rpl_layout lay;
			assert_int_equal(rpl_game_new(&g, r, players, 0), 0);
			assert_int_equal(rpl_bot_new(&bot, RPL_BOT_RANDOM, 7 + (uint64_t)p), 0);
			rpl_rng_seed(&rng, 99 + (uint64_t)players);
			rpl_layout_shuffle(&lay, players, &rng);
			assert_int_equal(rpl_game_deal(g, &lay), 0);
			copy = rpl_game_clone(g);
			assert_non_null(copy);
			while (rpl_game_phase(g) < RPL_PHASE_DEAL_OVER) {
				rpl_action a;
				size_t n = rpl_game_legal(g, moves, 4096);
				assert_true(n > 0);
				for (size_t i = 0; i < n && i < 4096; i++) {
					rpl_game_copy(copy, g);
					if (rpl_game_apply(copy, &moves[i]) != 0)
						fail_msg("%s: listed move %zu refused: %s", profiles[p], i, rpl_game_errmsg(copy));
				}
				assert_int_equal(rpl_bot_choose(bot, g, &a), 0);
				assert_int_equal(rpl_game_apply(g, &a), 0);
			}
			rpl_game_free(copy);
			rpl_game_free(g);
			rpl_bot_free(bot);
			rpl_rules_free(r);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stbl_take_refused_when_laying_leaves_an_unplayable_card),
		cmocka_unit_test(stbl_lay_keeps_a_card_to_discard),
		cmocka_unit_test(aberto_one_card_pile_face_not_discarded),
		cmocka_unit_test(aberto_true_lets_a_copy_held_before_go),
		cmocka_unit_test(stbl_bater_morto_needs_no_canastra),
		cmocka_unit_test(stbl_every_two_is_worth_ten),
		cmocka_unit_test(kzv_floating_add_rearranges_and_is_listed),
		cmocka_unit_test(generated_moves_always_apply),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
