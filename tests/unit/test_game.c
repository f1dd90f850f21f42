/*
 * The game as a state machine (game.h, docs/rules.md 1, 5, 7, 8): dealing,
 * the order of a turn, taking the pile under each profile, the ABERTO
 * first-turn reject, mortos (direct, indirect, turned into stock), going out,
 * the legal-move list and state copies.
 *
 * Unless said otherwise: 2 players, first dealer 1, so seat 0 moves first.
 * Hands that matter are given in full; the "junk" hands below hold no two cards
 * of a suit within 2 ranks, so nothing in them can form a meld by accident.
 */
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* seat 0: 3♠ 4♠ make a meld with a 5♠; the rest is junk */
#define H0_SPADES "3s 4s Ac 4c 7c 10c 6d 9d Kd 5h Qh"
/* seat 1: junk plus 5♠ to discard */
#define H1_JUNK "3c 6c 9c Qc Ad 4d 7d 10d 8h Kh 5s"

static rpl_game *new2(const char *profile, const char *overrides)
{
	return tl_game(profile, overrides, 2, 1);
}

/*
 * The phase after a deal ends: the match is over after one deal under a
 * target of 0 (STBL's own, rules.md 10.1) when the totals differ.
 */
static int phase_after_deal(const rpl_game *g)
{
	int target = -1;

	assert_int_equal(rpl_rules_get_id(rpl_game_rules(g), RPL_P_TARGET, &target), 0);
	return target == 0 && rpl_game_total(g, 0) != rpl_game_total(g, 1) ? RPL_PHASE_MATCH_OVER : RPL_PHASE_DEAL_OVER;
}

static rpl_deal_stats stats(const rpl_game *g)
{
	rpl_deal_stats st;

	memset(&st, 0, sizeof(st));
	rpl_game_deal_stats(g, &st);
	return st;
}

/* ---- dealing ------------------------------------------------------------ */

/* rules.md 1: 11 cards each, two mortos of 11, the rest is the stock (64 / 42); the pile starts empty. */
static void test_deal_start(void **state)
{
	rpl_game *g = new2("kzv", NULL);
	rpl_card pile[4];

	(void)state;
	assert_refused(g, A_DRAW, RPL_RULE_NO_DEAL);
	tl_deal(g, .hand = { H0_SPADES, H1_JUNK });
	assert_int_equal(rpl_game_deal_number(g), 1);
	assert_int_equal(rpl_game_dealer(g), 1);
	assert_phase(g, RPL_PHASE_DRAW, 0); /* "Esquerda do dador começa" */
	assert_hand(g, 0, H0_SPADES);
	assert_hand(g, 1, H1_JUNK);
	assert_int_equal(rpl_game_stock_count(g), 64);
	assert_int_equal(rpl_game_pile(g, pile, 4), 0);
	assert_int_equal(rpl_game_morto_state(g, 0), -1);
	assert_int_equal(rpl_game_morto_state(g, 1), -1);
	assert_int_equal(rpl_game_meld_count(g, 0), 0);
	assert_int_equal(rpl_game_meld_count(g, 1), 0);
	assert_int_equal(rpl_game_winner(g), -1);
	/* docs/rules.md 1: a new deal only after the end of this one */
	{
		rpl_layout L;

		tl_layout(&L, 2, .hand = { NULL });
		assert_int_equal(rpl_game_deal(g, &L), RPL_EILLEGAL);
		assert_int_equal(rpl_game_rule(g), RPL_RULE_DEAL_NOT_OVER);
	}
	rpl_game_free(g);

	g = tl_game("aberto", NULL, 4, 2);
	tl_deal(g, .hand = { NULL });
	assert_int_equal(rpl_game_dealer(g), 2);
	assert_phase(g, RPL_PHASE_DRAW, 3); /* the seat left of the dealer */
	assert_int_equal(rpl_game_stock_count(g), 42);
	for (int s = 0; s < 4; s++)
		assert_int_equal(rpl_game_hand(g, s, NULL, 0), 11);
	rpl_game_free(g);
}

/* game.h: the layout must be exactly the 108-card deck (deal.layout). */
static void test_deal_bad_layout(void **state)
{
	rpl_game *g = new2("stbl", NULL);
	rpl_layout L, bad;

	(void)state;
	tl_layout(&L, 2, .hand = { NULL });
	bad = L;
	bad.hand[0][0] = bad.hand[0][1] == bad.hand[0][0] ? bad.hand[0][2] : bad.hand[0][1]; /* one face 3x */
	assert_int_equal(rpl_game_deal(g, &bad), RPL_EILLEGAL);
	assert_int_equal(rpl_game_rule(g), RPL_RULE_LAYOUT);
	assert_int_equal(rpl_game_phase(g), RPL_PHASE_NO_DEAL);
	bad = L;
	bad.stock[5] = 60; /* not a card */
	assert_int_equal(rpl_game_deal(g, &bad), RPL_EILLEGAL);
	assert_int_equal(rpl_game_rule(g), RPL_RULE_LAYOUT);
	bad = L;
	bad.morto[1][3] = RPL_JOKER; /* a fifth joker */
	assert_int_equal(rpl_game_deal(g, &bad), RPL_EILLEGAL);
	assert_int_equal(rpl_game_rule(g), RPL_RULE_LAYOUT);
	assert_int_equal(rpl_game_deal(g, &L), 0);
	assert_int_equal(rpl_game_deal(NULL, &L), RPL_EINVAL);
	assert_int_equal(rpl_game_apply(g, NULL), RPL_EINVAL);
	rpl_game_free(g);
}

/* ---- the order of a turn (rules.md 5) -------------------------------------------- */

static void test_turn_order(void **state)
{
	rpl_game *g = new2("kzv", NULL);
	rpl_action bad;

	(void)state;
	tl_deal(g, .hand = { "5c 6c 7c 8c Kd 3d 6d 9d Jh 5s 8s", "3h 4h 5h 9c Ad 4d 7d 10d Qh Ks 4s" }, .stock = "Qs Js");
	/* 1. Draw first */
	assert_refused(g, A_MELD("5c 6c 7c"), RPL_RULE_MUST_DRAW);
	assert_refused(g, A_DISCARD("Kd"), RPL_RULE_MUST_DRAW);
	assert_refused(g, A_ADD(0, 0, "8c"), RPL_RULE_MUST_DRAW);
	assert_refused(g, A_TAKE, RPL_RULE_PILE_EMPTY); /* "The first player of a deal faces an empty pile" */
	assert_refused(g, A_REJECT, RPL_RULE_REJECT);   /* KZV has no first-turn reject */
	assert_refused_any(g, A_MORTO(0), RPL_RULE_MORTO_NOT_DUE, RPL_RULE_MUST_DRAW);
	bad = tl_act(0);
	assert_refused(g, bad, RPL_RULE_BAD_ACTION);
	bad = tl_act(99);
	assert_refused(g, bad, RPL_RULE_BAD_ACTION);
	assert_applied(g, A_DRAW);
	assert_phase(g, RPL_PHASE_PLAY, 0);
	assert_hand(g, 0, "5c 6c 7c 8c Kd 3d 6d 9d Jh 5s 8s Qs");
	assert_int_equal(rpl_game_stock_count(g), 63);
	/* once */
	assert_refused(g, A_DRAW, RPL_RULE_ALREADY_DREW);
	assert_refused(g, A_TAKE, RPL_RULE_ALREADY_DREW);
	assert_refused(g, A_MORTO(0), RPL_RULE_MORTO_NOT_DUE);
	/* cards must be in the hand */
	assert_refused(g, A_DISCARD("Ah"), RPL_RULE_NOT_IN_HAND);
	assert_refused(g, A_MELD("5c 6c 7c 8c 9c"), RPL_RULE_NOT_IN_HAND);
	bad = A_DISCARD("Kd");
	bad.ncards = 2;
	bad.cards[1] = tl_card("Jh");
	assert_refused(g, bad, RPL_RULE_BAD_ACTION);
	/* no melds yet */
	assert_refused(g, A_ADD(0, 0, "8c"), RPL_RULE_MELD_NO_SUCH);
	/* 2. melds, any number */
	assert_applied(g, A_MELD("5c 6c 7c"));
	assert_hand(g, 0, "8c Kd 3d 6d 9d Jh 5s 8s Qs");
	assert_meld(g, 0, 0, "5c 6c 7c");
	assert_refused(g, A_ADD(0, 1, "8c"), RPL_RULE_MELD_NO_SUCH);
	assert_applied(g, A_ADD(0, 0, "8c"));
	assert_meld(g, 0, 0, "5c 6c 7c 8c");
	assert_int_equal(rpl_game_meld_count(g, 0), 1);
	/* 3. the discard ends the turn */
	assert_applied(g, A_DISCARD("Kd"));
	assert_pile(g, "Kd");
	assert_phase(g, RPL_PHASE_DRAW, 1);
	assert_hand(g, 0, "3d 6d 9d Jh 5s 8s Qs");
	/* seat 1: never add to the opponents' melds ("nunca adversários") */
	assert_applied(g, A_DRAW);
	assert_refused(g, A_ADD(0, 0, "9c"), RPL_RULE_MELD_OPPONENT);
	assert_applied(g, A_MELD("3h 4h 5h"));
	assert_meld(g, 1, 0, "3h 4h 5h");
	assert_applied(g, A_DISCARD("Js"));
	assert_phase(g, RPL_PHASE_DRAW, 0);
	assert_pile(g, "Kd Js");
	rpl_game_free(g);
}

/* ABERTO §03: "Acrescente aos seus jogos ou do parceiro, nunca adversários" (4 players). */
static void test_partner_melds(void **state)
{
	rpl_game *g = tl_game("aberto", NULL, 4, 3);

	(void)state;
	tl_deal(g, .hand = { "5c 6c 7c Kd", NULL, "8c", "4c" }, .stock = "Qs Js 10s 9s");
	assert_phase(g, RPL_PHASE_DRAW, 0);
	assert_applied(g, A_DRAW);
	assert_applied(g, A_MELD("5c 6c 7c"));
	assert_applied(g, A_DISCARD("Kd"));
	tl_draw_discard(g); /* seat 1 */
	assert_phase(g, RPL_PHASE_DRAW, 2);
	assert_applied(g, A_DRAW);
	assert_applied(g, A_ADD(0, 0, "8c")); /* the partner's meld */
	assert_meld(g, 0, 0, "5c 6c 7c 8c");
	assert_applied(g, A_DISCARD("10s"));
	assert_phase(g, RPL_PHASE_DRAW, 3);
	assert_applied(g, A_DRAW);
	assert_refused(g, A_ADD(0, 0, "4c"), RPL_RULE_MELD_OPPONENT);
	rpl_game_free(g);
}

/* ---- taking the pile ------------------------------------------------------ */

/*
 * KZV: "se a última carta descartada for um coringa — um 2 ou um joker —, o lixo
 * congela ... Um coringa enterrado no meio da pilha não congela nada".
 */
static void test_kzv_pile_frozen(void **state)
{
	rpl_game *g = new2("kzv", NULL);

	(void)state;
	tl_deal(g, .hand = { "2c JK 8h 9h Kd 3d 6d 9d Jc 5s 8s", "3c 6c 9c Qc Ad 4d 7d 10d Kh 4s 7h" },
	        .stock = "Qs Js 10c");
	assert_applied(g, A_DRAW);
	assert_applied(g, A_DISCARD("2c"));
	assert_int_equal(stats(g).pile_frozen, 1);
	/* seat 1: a 2 on top freezes the pile */
	assert_refused(g, A_TAKE, RPL_RULE_PILE_FROZEN);
	assert_applied(g, A_DRAW);
	assert_applied(g, A_DISCARD("7h"));
	assert_pile(g, "2c 7h");
	/* seat 0: the 2 is buried now; 7♥ goes with 8♥ 9♥ */
	assert_applied(g, A_TAKE);
	assert_pile(g, "");
	assert_hand(g, 0, "2c 7h JK 8h 9h Kd 3d 6d 9d Jc 5s 8s Qs");
	assert_int_equal(stats(g).pile_taken, 1);
	assert_applied(g, A_MELD("7h 8h 9h"));
	assert_applied(g, A_DISCARD("JK"));
	assert_int_equal(stats(g).pile_frozen, 2);
	/* seat 1: a joker on top freezes it too */
	assert_refused(g, A_TAKE, RPL_RULE_PILE_FROZEN);
	assert_applied(g, A_DRAW);
	assert_applied(g, A_DISCARD("10c"));
	/* seat 0: the joker is buried: "pode ser pego normalmente", and used */
	assert_applied(g, A_TAKE);
	assert_applied(g, A_MELD("10c Jc JK"));
	assert_applied(g, A_DISCARD("Kd"));
	assert_int_equal(stats(g).pile_taken, 2);
	rpl_game_free(g);
}

/*
 * The same pile under each profile: 9♠ 5♠ K♠ Q♠ (bottom first), seat 0 holds
 * 3♠ 4♠, so only the buried 5♠ can be laid.
 * KZV: "A carta que você usa pode ser qualquer uma da pilha, inclusive enterrada
 * no meio"; "Não existe pegar o lixo só pra guardar cartas na mão".
 * STBL: "só poderá comprar o lixo se a carta que estiver no topo do lixo puder ser
 * utilizada". ABERTO: "Comprar não exige usar topo logo".
 */
static void test_pile_buried_card(void **state)
{
	static const char *const profiles[] = { "kzv", "stbl", "aberto" };

	(void)state;
	for (size_t p = 0; p < 3; p++) {
		rpl_game *g = new2(profiles[p], NULL), *c;

		tl_context = profiles[p];
		tl_deal(g, .hand = { H0_SPADES, H1_JUNK }, .stock = "9s Js Ks Qs");
		assert_applied(g, A_DRAW);
		assert_applied(g, A_DISCARD("9s"));
		assert_applied(g, A_DRAW);
		assert_applied(g, A_DISCARD("5s"));
		assert_applied(g, A_DRAW);
		assert_applied(g, A_DISCARD("Ks"));
		assert_pile(g, "9s 5s Ks");
		/* seat 1 (J♠ in hand) can lay no card of this pile */
		if (p == 2) {
			c = rpl_game_clone(g);
			assert_applied(c, A_TAKE); /* ABERTO: free */
			rpl_game_free(c);
		} else {
			assert_refused(g, A_TAKE, RPL_RULE_PILE_UNUSABLE);
		}
		assert_applied(g, A_DRAW);
		assert_applied(g, A_DISCARD("Qs"));
		assert_pile(g, "9s 5s Ks Qs");
		/* seat 0: 5♠ is buried, Q♠ on top cannot be laid */
		if (p == 1) {
			assert_refused(g, A_TAKE, RPL_RULE_PILE_UNUSABLE);
		} else {
			assert_applied(g, A_TAKE);
			assert_hand(g, 0, H0_SPADES " 9s 5s Ks Qs");
			c = rpl_game_clone(g);
			if (p == 0) /* KZV: taking only to keep the cards is refused at the discard */
				assert_refused(c, A_DISCARD("Ac"), RPL_RULE_PILE_NOT_USED);
			else
				assert_applied(c, A_DISCARD("Ac"));
			rpl_game_free(c);
			assert_applied(g, A_MELD("3s 4s 5s"));
			assert_applied(g, A_DISCARD("Ac"));
			assert_phase(g, RPL_PHASE_DRAW, 1);
		}
		rpl_game_free(g);
	}
	tl_context = NULL;
}

/* The known cards (rpl_game_known): what a take shows everyone, lowered by each card of the face that leaves the hand. */
static void assert_known_at(const rpl_game *g, int seat, const char *cards, const char *file, int line)
{
	rpl_card c[RPL_DECK_SIZE];
	int n = rpl_game_known(g, seat, c, RPL_DECK_SIZE);
	const char *got = tl_cards_str(c, n > 0 ? (size_t)n : 0);

	if (strcmp(got, cards) != 0)
		tl_fail_at(file, line, "seat %d's known cards are \"%s\", expected \"%s\"", seat, got, cards);
}
#define assert_known(g, seat, cards) assert_known_at((g), (seat), (cards), __FILE__, __LINE__)

static void test_known_cards(void **state)
{
	rpl_game *g = new2("kzv", NULL);
	rpl_card c[4];

	(void)state;
	tl_deal(g, .hand = { H0_SPADES, H1_JUNK }, .stock = "9s Js Kd Qs 8s");
	assert_known(g, 0, "");
	assert_int_equal(rpl_game_known(g, 2, c, 4), -1);
	assert_int_equal(rpl_game_known(NULL, 0, c, 4), -1);
	assert_applied(g, A_DRAW);
	assert_applied(g, A_DISCARD("9s"));
	assert_applied(g, A_DRAW);
	assert_applied(g, A_DISCARD("5s"));
	assert_applied(g, A_DRAW);
	assert_applied(g, A_DISCARD("Kd")); /* seat 0 holds a Kd of its own */
	assert_applied(g, A_DRAW);
	assert_applied(g, A_DISCARD("Qs"));
	assert_applied(g, A_TAKE);
	assert_known(g, 0, "Kd 5s 9s Qs");
	assert_known(g, 1, "");
	/* a count without the cards; a short out gets the first ones */
	assert_int_equal(rpl_game_known(g, 0, NULL, 0), 4);
	assert_int_equal(rpl_game_known(g, 0, c, 2), 4);
	assert_int_equal(c[0], tl_card("Kd"));
	assert_int_equal(c[1], tl_card("5s"));
	assert_applied(g, A_MELD("3s 4s 5s"));
	assert_known(g, 0, "Kd 9s Qs");
	/* two Kd held, one of them known: whichever is discarded, none is sure to remain */
	assert_hand(g, 0, "Ac 4c 7c 10c 6d 9d Kd Kd 5h Qh 9s Qs");
	assert_applied(g, A_DISCARD("Kd"));
	assert_known(g, 0, "9s Qs");
	assert_known(g, 1, "");
	rpl_game_free(g);
}

/* KZV: a pile card laid by adding it to one of the side's melds also counts. */
static void test_kzv_pile_card_added(void **state)
{
	rpl_game *g = new2("kzv", NULL);

	(void)state;
	tl_deal(g, .hand = { H0_SPADES, H1_JUNK }, .stock = "5s Js");
	assert_applied(g, A_DRAW);
	assert_applied(g, A_MELD("3s 4s 5s"));
	assert_applied(g, A_DISCARD("Ac"));
	assert_applied(g, A_DRAW);
	assert_applied(g, A_DISCARD("5s"));
	/* seat 0: pile A♣ 5♠; a second 5♠ cannot go on 3♠-4♠-5♠, A♣ fits nothing */
	assert_refused(g, A_TAKE, RPL_RULE_PILE_UNUSABLE);
	rpl_game_free(g);

	g = new2("kzv", NULL);
	tl_deal(g, .hand = { H0_SPADES, "3c 6c 9c Qc Ad 4d 7d 10d 8h Kh 6s" }, .stock = "5s Js");
	assert_applied(g, A_DRAW);
	assert_applied(g, A_MELD("3s 4s 5s"));
	assert_applied(g, A_DISCARD("Ac"));
	assert_applied(g, A_DRAW);
	assert_applied(g, A_DISCARD("6s"));
	assert_applied(g, A_TAKE);
	assert_applied(g, A_ADD(0, 0, "6s"));
	assert_applied(g, A_DISCARD("Kd"));
	rpl_game_free(g);
}

/*
 * STBL: the top card must be laid this turn, from a new meld with hand cards or
 * added to a meld of the side; no freezing.
 */
static void test_stbl_pile_top(void **state)
{
	rpl_game *g = new2("stbl", NULL), *c;

	(void)state;
	tl_deal(g, .hand = { H0_SPADES, H1_JUNK }, .stock = "9s Js 6s 2d");
	assert_applied(g, A_DRAW);
	assert_applied(g, A_DISCARD("9s"));
	assert_applied(g, A_DRAW);
	assert_applied(g, A_DISCARD("5s"));
	assert_pile(g, "9s 5s");
	/* seat 0: 5♠ with 3♠ 4♠ from the hand */
	assert_applied(g, A_TAKE);
	c = rpl_game_clone(g);
	assert_refused(c, A_DISCARD("Ac"), RPL_RULE_PILE_TOP_NOT_LAID);
	assert_refused(c, A_DISCARD("5s"), RPL_RULE_PILE_TOP_NOT_LAID);
	rpl_game_free(c);
	assert_applied(g, A_MELD("3s 4s 5s"));
	assert_applied(g, A_DISCARD("Ac"));
	/* seat 1: A♣ on top, no use for it */
	assert_refused(g, A_TAKE, RPL_RULE_PILE_UNUSABLE);
	assert_applied(g, A_DRAW);
	assert_applied(g, A_DISCARD("6s"));
	/* seat 0: 6♠ goes on the side's meld */
	assert_applied(g, A_TAKE);
	assert_hand(g, 0, "4c 7c 10c 6d 9d Kd 5h Qh 9s Ac 6s");
	c = rpl_game_clone(g);
	assert_refused(c, A_DISCARD("9s"), RPL_RULE_PILE_TOP_NOT_LAID);
	rpl_game_free(c);
	assert_applied(g, A_ADD(0, 0, "6s"));
	assert_applied(g, A_DISCARD("Qh"));
	/* seat 1 discards a 2: no freezing in STBL */
	assert_applied(g, A_DRAW);
	assert_applied(g, A_DISCARD("2d"));
	assert_int_equal(stats(g).pile_frozen, 0);
	assert_applied(g, A_TAKE);
	assert_applied(g, A_ADD(0, 0, "2d"));
	assert_meld(g, 0, 0, "3s 4s 5s 6s 2d*");
	assert_applied(g, A_DISCARD("Kd"));
	rpl_game_free(g);
}

/* STBL: a card of the top card's face laid this turn satisfies the rule (a card is its face). */
static void test_stbl_pile_top_face(void **state)
{
	rpl_game *g = new2("stbl", NULL);

	(void)state;
	tl_deal(g, .hand = { "3s 4s 5s Ac 4c 7c 10c 6d 9d Kd Qh", H1_JUNK }, .stock = "9s Js");
	assert_applied(g, A_DRAW);
	assert_applied(g, A_DISCARD("9s"));
	assert_applied(g, A_DRAW);
	assert_applied(g, A_DISCARD("5s"));
	assert_applied(g, A_TAKE);
	assert_hand(g, 0, "3s 4s 5s 5s Ac 4c 7c 10c 6d 9d Kd Qh 9s");
	assert_applied(g, A_MELD("3s 4s 5s"));
	assert_applied(g, A_DISCARD("Ac"));
	rpl_game_free(g);
}

/*
 * ABERTO §03: "compre topo ou lixo inteiro visível ... Comprar não exige usar topo
 * logo, nem curinga; sem congelamento. Se tirar descarte único, não devolva essa
 * carta na mesma vez".
 */
static void test_aberto_pile(void **state)
{
	rpl_game *g = new2("aberto", NULL), *c;

	(void)state;
	tl_deal(g, .hand = { "3s 4s JK 4c 7c 10c 6d 9d Kd 5h Qh", H1_JUNK }, .stock = "9s Js Jd Jh");
	assert_applied(g, A_DRAW);
	assert_applied(g, A_DISCARD("9s"));
	/* seat 1 takes a one-card pile it cannot use */
	assert_applied(g, A_TAKE);
	assert_hand(g, 1, H1_JUNK " 9s");
	c = rpl_game_clone(g);
	assert_refused(c, A_DISCARD("9s"), RPL_RULE_PILE_RETURN);
	rpl_game_free(c);
	assert_applied(g, A_DISCARD("Kh"));
	/* seat 0 discards the joker: no freezing */
	assert_applied(g, A_DRAW);
	assert_applied(g, A_DISCARD("JK"));
	assert_pile(g, "Kh JK");
	assert_int_equal(stats(g).pile_frozen, 0);
	assert_applied(g, A_TAKE);
	/* a pile of two cards: its top card may go back */
	assert_applied(g, A_DISCARD("JK"));
	assert_pile(g, "JK");
	/* a one-card pile of a joker: not back either */
	assert_applied(g, A_TAKE);
	assert_refused(g, A_DISCARD("JK"), RPL_RULE_PILE_RETURN);
	assert_applied(g, A_DISCARD("Qh"));
	assert_int_equal(stats(g).pile_taken, 3);
	rpl_game_free(g);
}

/* The one-card rule is a parameter ("nosso esclarecimento"): turned off, the card may go back. */
static void test_one_card_return_param(void **state)
{
	rpl_game *g = new2("aberto", "one_card_pile_no_return=false");

	(void)state;
	tl_deal(g, .hand = { H0_SPADES, H1_JUNK }, .stock = "9s Js");
	assert_applied(g, A_DRAW);
	assert_applied(g, A_DISCARD("9s"));
	assert_applied(g, A_TAKE);
	assert_applied(g, A_DISCARD("9s"));
	assert_pile(g, "9s");
	rpl_game_free(g);
}

/*
 * ABERTO §03: "Exceção inicial: compre topo; guarde e descarte depois 1, ou rejeite
 * logo aberto, compre segundo e após jogos descarte outro 1".
 */
static void test_aberto_first_turn_reject(void **state)
{
	rpl_game *g = tl_game("aberto", NULL, 4, 3), *c;

	(void)state;
	tl_deal(g, .hand = { "5c 6c Kd", NULL, NULL, NULL }, .stock = "9s 7c Js Jd");
	assert_refused(g, A_REJECT, RPL_RULE_REJECT); /* before the draw */
	assert_applied(g, A_DRAW);
	assert_int_equal(rpl_game_hand_count(g, 0, tl_card("9s")), 1);
	c = rpl_game_clone(g);
	assert_applied(c, A_DISCARD("9s")); /* keeping it is a normal turn */
	rpl_game_free(c);
	assert_applied(g, A_REJECT);
	assert_pile(g, "9s");
	assert_int_equal(rpl_game_hand_count(g, 0, tl_card("9s")), 0);
	assert_int_equal(rpl_game_hand_count(g, 0, tl_card("7c")), 1);
	assert_int_equal(rpl_game_hand(g, 0, NULL, 0), 12);
	assert_int_equal(rpl_game_stock_count(g), 40);
	assert_phase(g, RPL_PHASE_PLAY, 0);
	assert_int_equal(stats(g).rejects, 1);
	assert_refused(g, A_REJECT, RPL_RULE_REJECT); /* once */
	assert_applied(g, A_MELD("5c 6c 7c"));
	assert_applied(g, A_DISCARD("Kd"));
	assert_pile(g, "9s Kd");
	/* the next player: no reject */
	assert_applied(g, A_DRAW);
	assert_refused(g, A_REJECT, RPL_RULE_REJECT);
	rpl_game_free(g);
}

/* The reject is the first decision after the draw, or never; and ABERTO's only. */
static void test_reject_elsewhere(void **state)
{
	rpl_game *g = new2("aberto", NULL);

	(void)state;
	tl_deal(g, .hand = { "5c 6c 7c Kd" }, .stock = "9s Js");
	assert_applied(g, A_DRAW);
	assert_applied(g, A_MELD("5c 6c 7c"));
	assert_refused(g, A_REJECT, RPL_RULE_REJECT);
	rpl_game_free(g);

	g = new2("stbl", NULL);
	tl_deal(g, .hand = { NULL }, .stock = "9s Js");
	assert_applied(g, A_DRAW);
	assert_refused(g, A_REJECT, RPL_RULE_REJECT);
	rpl_game_free(g);

	g = new2("kzv", "first_turn_reject=true");
	tl_deal(g, .hand = { NULL }, .stock = "9s Js");
	assert_applied(g, A_DRAW);
	assert_applied(g, A_REJECT);
	assert_pile(g, "9s");
	rpl_game_free(g);
}

/* ---- mortos (rules.md 7) ---------------------------------------------------------- */

#define H0_DIRECT "3c 4c 5c 6c 7c 8c 9c 5h 6h 7h 8h"   /* + 9♥ drawn: all melded */
#define H0_INDIRECT "3c 4c 5c 6c 7c 8c 9c 5h 6h 7h Kd" /* + 8♥ drawn: K♦ discarded */
#define MORTO_DIAMONDS "3d 4d 5d 6d 7d 8d 9d 10d Jd Qd Kd"

/*
 * STBL "Batida Direta ... Caso haja morto, o jogador irá pegá-lo e então
 * continuará a jogar, sem comprar carta"; "Não é possível que a mesma dupla, ou o
 * mesmo jogador, pegue os dois mortos".
 */
static void test_morto_direct(void **state)
{
	static const char *const profiles[] = { "kzv", "stbl", "aberto" };

	(void)state;
	for (size_t p = 0; p < 3; p++) {
		rpl_game *g = new2(profiles[p], NULL);

		tl_context = profiles[p];
		tl_deal(g, .hand = { H0_DIRECT, "3s 4s 5s 6s 7s 8s 9s Jh Qh Kh Ah" }, .morto = { MORTO_DIAMONDS, "Kc" },
		        .stock = "9h 10s");
		assert_applied(g, A_DRAW);
		assert_applied(g, A_MELD("3c 4c 5c 6c 7c 8c 9c"));
		assert_phase(g, RPL_PHASE_PLAY, 0);
		assert_applied(g, A_MELD("5h 6h 7h 8h 9h"));
		assert_hand(g, 0, "");
		assert_phase(g, RPL_PHASE_MORTO, 0);
		assert_refused(g, A_DRAW, RPL_RULE_MORTO_DUE);
		assert_refused(g, A_MELD("3d 4d 5d"), RPL_RULE_MORTO_DUE);
		assert_refused(g, A_MORTO(1), RPL_RULE_MORTO_WRONG);
		assert_applied(g, A_MORTO(0));
		assert_phase(g, RPL_PHASE_PLAY, 0); /* no new draw */
		assert_hand(g, 0, MORTO_DIAMONDS);
		assert_int_equal(rpl_game_morto_state(g, 0), 0);
		assert_int_equal(rpl_game_morto_state(g, 1), -1);
		assert_int_equal(rpl_game_stock_count(g), 63);
		assert_int_equal(stats(g).morto_direct, 1);
		assert_int_equal(stats(g).morto_indirect, 0);
		assert_refused(g, A_DRAW, RPL_RULE_ALREADY_DREW);
		assert_applied(g, A_DISCARD("Kd"));
		assert_phase(g, RPL_PHASE_DRAW, 1);
		/* seat 1 (the other side) empties its hand: the other morto */
		assert_applied(g, A_DRAW);
		assert_applied(g, A_MELD("3s 4s 5s 6s 7s 8s 9s 10s"));
		assert_applied(g, A_MELD("Jh Qh Kh Ah"));
		assert_phase(g, RPL_PHASE_MORTO, 1);
		assert_refused(g, A_MORTO(0), RPL_RULE_MORTO_WRONG);
		assert_applied(g, A_MORTO(1));
		assert_int_equal(rpl_game_morto_state(g, 1), 1);
		assert_int_equal(stats(g).morto_direct, 2);
		assert_applied(g, A_DISCARD("Kc"));
		assert_phase(g, RPL_PHASE_DRAW, 0);
		rpl_game_free(g);
	}
	tl_context = NULL;
}

/*
 * STBL "Batida Indireta ... o jogador deverá pegá-lo, podendo jogar apenas na
 * próxima rodada"; ABERTO "Última descartada: pegue 11 mas use só na próxima vez".
 */
static void test_morto_indirect(void **state)
{
	static const char *const profiles[] = { "kzv", "stbl", "aberto" };

	(void)state;
	for (size_t p = 0; p < 3; p++) {
		rpl_game *g = new2(profiles[p], NULL);

		tl_context = profiles[p];
		tl_deal(g, .hand = { H0_INDIRECT }, .morto = { MORTO_DIAMONDS }, .stock = "8h");
		assert_applied(g, A_DRAW);
		assert_applied(g, A_MELD("3c 4c 5c 6c 7c 8c 9c"));
		assert_applied(g, A_MELD("5h 6h 7h 8h"));
		assert_applied(g, A_DISCARD("Kd"));
		assert_pile(g, "Kd");
		assert_phase(g, RPL_PHASE_MORTO, 0);
		assert_refused(g, A_DRAW, RPL_RULE_MORTO_DUE);
		assert_refused(g, A_MORTO(1), RPL_RULE_MORTO_WRONG);
		assert_applied(g, A_MORTO(0));
		assert_phase(g, RPL_PHASE_DRAW, 1); /* the turn passes */
		assert_hand(g, 0, MORTO_DIAMONDS);
		assert_int_equal(rpl_game_morto_state(g, 0), 0);
		assert_int_equal(stats(g).morto_indirect, 1);
		assert_int_equal(stats(g).morto_direct, 0);
		rpl_game_free(g);
	}
	tl_context = NULL;
}

/*
 * ABERTO §06 "Parceiro não recebe outro morto": the partner emptying the hand
 * after the side took its morto goes out (KZV: any canastra).
 */
static void test_partner_no_second_morto(void **state)
{
	rpl_game *g = tl_game("kzv", NULL, 4, 3);
	rpl_deal_stats st;

	(void)state;
	tl_deal(g, .hand = { H0_DIRECT, NULL, "10h Jh Qh Kh 10c Jc Qc Kc 10s Js Qs", NULL }, .morto = { MORTO_DIAMONDS },
	        .stock = "9h Ad Ks");
	assert_applied(g, A_DRAW);
	assert_applied(g, A_MELD("3c 4c 5c 6c 7c 8c 9c"));
	assert_applied(g, A_MELD("5h 6h 7h 8h 9h"));
	assert_applied(g, A_MORTO(0));
	assert_applied(g, A_DISCARD("Kd"));
	tl_draw_discard(g); /* seat 1 */
	assert_phase(g, RPL_PHASE_DRAW, 2);
	assert_applied(g, A_DRAW);
	assert_applied(g, A_MELD("10h Jh Qh Kh"));
	assert_applied(g, A_MELD("10c Jc Qc Kc"));
	assert_applied(g, A_MELD("10s Js Qs Ks"));
	assert_int_equal(rpl_game_phase(g), phase_after_deal(g));
	assert_int_equal(rpl_game_morto_state(g, 1), -1);
	st = stats(g);
	assert_int_equal(st.end, RPL_DEAL_OUT);
	assert_int_equal(st.out_seat, 2);
	rpl_game_free(g);
}

/*
 * rules.md 7 "Stock exhausted: an untaken morto becomes the new stock ...; when that runs
 * out, the next one. No stock and no morto left: the turn of the player who drew
 * the last card finishes, and the deal ends." (ABERTO §06 "Acabando monte, morto
 * intocado vira novo monte de 11 ...").
 */
static void test_mortos_become_stock(void **state)
{
	static const char *const profiles[] = { "kzv", "stbl", "aberto" };

	(void)state;
	for (size_t p = 0; p < 3; p++) {
		rpl_game *g = new2(profiles[p], NULL);
		rpl_deal_stats st;
		int draws = 0;

		tl_context = profiles[p];
		tl_deal(g, .hand = { H0_SPADES, H1_JUNK }, .morto = { "Kd Qd", "Jh 10h" });
		while (draws < 63) {
			tl_draw_discard(g);
			draws++;
		}
		assert_int_equal(rpl_game_stock_count(g), 1);
		assert_int_equal(rpl_game_morto_state(g, 0), -1);
		tl_draw_discard(g); /* the 64th: the stock is empty, morto 0 turns into stock */
		assert_int_equal(rpl_game_morto_state(g, 0), 2);
		assert_int_equal(rpl_game_morto_state(g, 1), -1);
		assert_int_equal(rpl_game_stock_count(g), 11);
		assert_int_equal(stats(g).morto_to_stock, 1);
		assert_int_equal(tl_draw_discard(g), tl_card("Kd")); /* its card 0 first */
		assert_int_equal(tl_draw_discard(g), tl_card("Qd"));
		for (draws = 67; draws <= 75; draws++)
			tl_draw_discard(g);
		assert_int_equal(rpl_game_morto_state(g, 1), 2);
		assert_int_equal(rpl_game_stock_count(g), 11);
		assert_int_equal(stats(g).morto_to_stock, 2);
		assert_int_equal(tl_draw_discard(g), tl_card("Jh"));
		assert_int_equal(tl_draw_discard(g), tl_card("10h"));
		for (draws = 78; draws <= 85; draws++)
			tl_draw_discard(g);
		assert_int_equal(rpl_game_stock_count(g), 1);
		/* the last card: seat 1 draws it, finishes the turn, the deal ends */
		assert_phase(g, RPL_PHASE_DRAW, 1);
		assert_applied(g, A_DRAW);
		assert_int_equal(rpl_game_stock_count(g), 0);
		assert_phase(g, RPL_PHASE_PLAY, 1);
		{
			rpl_card h[16];
			int n = rpl_game_hand(g, 1, h, 16);
			rpl_action d = tl_act(RPL_ACT_DISCARD);

			assert_int_equal(n, 12);
			d.ncards = 1;
			d.cards[0] = h[0];
			assert_applied(g, d);
		}
		assert_int_equal(rpl_game_phase(g), phase_after_deal(g));
		st = stats(g);
		assert_int_equal(st.end, RPL_DEAL_STOCK);
		assert_int_equal(st.out_seat, -1);
		assert_int_equal(st.morto_to_stock, 2);
		assert_refused_any(g, A_DRAW, RPL_RULE_NO_DEAL, RPL_RULE_MATCH_OVER);
		rpl_game_free(g);
	}
	tl_context = NULL;
}

/* ---- going out (rules.md 8) ------------------------------------------------------- */

#define MORTO_NO_CANASTRA "3s 4s 5s 8s 9s 10s Jh Qh Kh Ah 7d"

/*
 * Seat 0 picks up morto 0 directly in its first turn and then tries to go out
 * in the same turn. docs/rules.md 8 table: canastra needed (KZV any [decision],
 * STBL/ABERTO clean: "Só pode bater com canastra limpa", "Batida final após morto
 * exige canastra limpa de pelo menos 7 e última carta descartada, não baixada").
 */
/* clang-format off */ /* a table laid out by hand */
static const struct out_case {
	const char *name;
	const char *hand0;        /* + 9♥ drawn */
	const char *first[3];     /* seat 0's melds before the morto: they empty the hand */
	const char *morto0;
	const char *final[4];     /* melds from the morto */
	const char *discard;      /* the last card; NULL: the last of final[] empties the hand */
	int rule[3];              /* KZV STBL ABERTO: 0 = goes out */
} out_cases[] = {
	{"clean canastra, last card discarded", H0_DIRECT, {"3c 4c 5c 6c 7c 8c 9c", "5h 6h 7h 8h 9h"},
	 MORTO_DIAMONDS, {"3d 4d 5d 6d 7d 8d 9d 10d Jd Qd"}, "Kd", {0, 0, 0}},
	{"clean canastra, last card melded", H0_DIRECT, {"3c 4c 5c 6c 7c 8c 9c", "5h 6h 7h 8h 9h"},
	 MORTO_DIAMONDS, {"3d 4d 5d 6d 7d 8d 9d 10d Jd Qd Kd"}, NULL, {0, 0, RPL_RULE_OUT_MELDED}},
	{"dirty canastra only", "3c 4c 5c 6c 7c JK 9c 5h 6h 7h 8h", {"3c 4c 5c 6c 7c JK 9c", "5h 6h 7h 8h 9h"},
	 MORTO_NO_CANASTRA, {"3s 4s 5s", "8s 9s 10s", "Jh Qh Kh Ah"}, "7d",
	 {0, RPL_RULE_OUT_NO_CLEAN, RPL_RULE_OUT_NO_CLEAN}},
	{"no canastra", "3c 4c 5c 6c 5h 6h 7h 8h Jd Qd Kd", {"3c 4c 5c 6c", "5h 6h 7h 8h 9h", "Jd Qd Kd"},
	 MORTO_NO_CANASTRA, {"3s 4s 5s", "8s 9s 10s", "Jh Qh Kh Ah"}, "7d",
	 {RPL_RULE_OUT_NO_CANASTRA, RPL_RULE_OUT_NO_CLEAN, RPL_RULE_OUT_NO_CLEAN}},
};
/* clang-format on */

/*
 * Play seq[0..n-1] (melds, then the discard) where going out is not allowed:
 * "When not allowed, the move that would empty the hand is illegal: the player
 * keeps a card." The refusal (with rule) comes at the move that empties the
 * hand, or earlier at a meld that would leave one card, since that card could
 * not end the turn either; the hand is never emptied.
 */
static void refused_going_out_at(rpl_game *g, const rpl_action *seq, int n, int rule, const char *file, int line)
{
	int k, rk = -1, left;

	for (k = 0; k < n; k++) {
		if (rpl_game_check(g, &seq[k], &rk) != 0)
			break;
		tl_applied_at(g, seq[k], file, line);
	}
	if (k == n) {
		tl_fail_at(file, line, "the hand was emptied (phase %d): expected refusal %s", rpl_game_phase(g),
		           rpl_rule_name(rule));
		return;
	}
	left = rpl_game_hand(g, rpl_game_seat(g), NULL, 0) - seq[k].ncards;
	if (k != n - 1 && !(seq[k].kind == RPL_ACT_MELD && left == 1))
		tl_fail_at(file, line, "move %d of %d refused (%s: %s), leaving %d cards: not a going-out refusal", k + 1, n,
		           rpl_rule_name(rk), rpl_game_errmsg(g), left);
	tl_refused_at(g, seq[k], rule, file, line);
	tl_phase_seat_at(g, RPL_PHASE_PLAY, -1, file, line);
	if (rpl_game_hand(g, rpl_game_seat(g), NULL, 0) < 1)
		tl_fail_at(file, line, "the hand is empty");
}
#define refused_going_out(g, seq, n, rule) refused_going_out_at((g), (seq), (n), (rule), __FILE__, __LINE__)

static void test_going_out(void **state)
{
	static const char *const profiles[] = { "kzv", "stbl", "aberto" };

	(void)state;
	for (size_t i = 0; i < sizeof(out_cases) / sizeof(out_cases[0]); i++) {
		const struct out_case *t = &out_cases[i];

		for (size_t p = 0; p < 3; p++) {
			rpl_game *g = new2(profiles[p], NULL);
			rpl_action seq[5];
			int nfinal = 0, nseq = 0;
			char ctx[160];

			snprintf(ctx, sizeof(ctx), "%s: %s", profiles[p], t->name);
			tl_context = ctx;
			tl_deal(g, .hand = { t->hand0 }, .morto = { t->morto0 }, .stock = "9h");
			assert_applied(g, A_DRAW);
			for (int k = 0; k < 3 && t->first[k]; k++)
				assert_applied(g, A_MELD(t->first[k]));
			assert_phase(g, RPL_PHASE_MORTO, 0);
			assert_applied(g, A_MORTO(0));
			while (nfinal < 4 && t->final[nfinal])
				nfinal++;
			for (int k = 0; k < nfinal; k++)
				seq[nseq++] = A_MELD(t->final[k]);
			if (t->discard)
				seq[nseq++] = A_DISCARD(t->discard);
			if (t->rule[p]) {
				refused_going_out(g, seq, nseq, t->rule[p]);
				assert_phase(g, RPL_PHASE_PLAY, 0);
			} else {
				rpl_deal_stats st;

				for (int k = 0; k < nseq; k++)
					assert_applied(g, seq[k]);
				assert_hand(g, 0, "");
				assert_int_equal(rpl_game_phase(g), phase_after_deal(g));
				st = stats(g);
				assert_int_equal(st.end, RPL_DEAL_OUT);
				assert_int_equal(st.out_seat, 0);
				assert_int_equal(tl_score(g, 0).going_out, 100);
				assert_int_equal(tl_score(g, 1).going_out, 0);
				assert_refused(g, A_DRAW,
				               phase_after_deal(g) == RPL_PHASE_MATCH_OVER ? RPL_RULE_MATCH_OVER : RPL_RULE_NO_DEAL);
			}
			rpl_game_free(g);
		}
	}
	tl_context = NULL;
}

/*
 * Emptying the hand with no morto taken and none left:
 * STBL "No caso de um jogo em que nenhum jogador tenha pegado o morto, só é possível
 * bater quando os dois mortos virarem monte"; KZV/ABERTO: out.no_morto.
 */
static void test_out_after_mortos_became_stock(void **state)
{
	static const char *const profiles[] = { "kzv", "stbl", "aberto" };
	static const int rule[3] = { RPL_RULE_OUT_NO_MORTO, 0, RPL_RULE_OUT_NO_MORTO };

	(void)state;
	for (size_t p = 0; p < 3; p++) {
		rpl_game *g = new2(profiles[p], NULL);
		rpl_card h[16], drawn = RPL_JOKER;
		rpl_action d = tl_act(RPL_ACT_DISCARD);
		int n;

		tl_context = profiles[p];
		tl_deal(g, .hand = { H0_DIRECT, H1_JUNK });
		for (int draws = 1; draws <= 74; draws++)
			tl_draw_discard(g);
		assert_int_equal(rpl_game_morto_state(g, 0), 2);
		assert_int_equal(rpl_game_morto_state(g, 1), -1);
		assert_phase(g, RPL_PHASE_DRAW, 0);
		assert_applied(g, A_DRAW); /* the 75th: morto 1 turns into stock */
		assert_int_equal(rpl_game_morto_state(g, 1), 2);
		assert_applied(g, A_MELD("3c 4c 5c 6c 7c 8c 9c"));
		n = rpl_game_hand(g, 0, h, 16);
		assert_int_equal(n, 5);
		/* the drawn card: what is left once 5h 6h 7h 8h are taken out */
		for (int i = 0, took = 0; i < n; i++) {
			int r = RPL_CARD_RANK(h[i]);

			if (h[i] != RPL_JOKER && RPL_CARD_SUIT(h[i]) == RPL_HEARTS && r >= 5 && r <= 8 && !(took & (1 << r)))
				took |= 1 << r;
			else
				drawn = h[i];
		}
		d.ncards = 1;
		d.cards[0] = drawn;
		if (rule[p]) {
			rpl_action seq[2];

			seq[0] = A_MELD("5h 6h 7h 8h");
			seq[1] = d;
			refused_going_out(g, seq, 2, rule[p]);
		} else {
			assert_applied(g, A_MELD("5h 6h 7h 8h"));
			assert_applied(g, d);
			assert_int_equal(rpl_game_phase(g), phase_after_deal(g));
			assert_int_equal(stats(g).end, RPL_DEAL_OUT);
			assert_int_equal(stats(g).out_seat, 0);
			/* rules.md 9.3, corrected 2026-12-01: STBL «Caso o outro jogador ou dupla não tenha pegado o
			   morto, diminui-se 100 pontos»: the side that went out is not charged, the other is */
			assert_int_equal(tl_score(g, 0).morto, 0);
			assert_int_equal(tl_score(g, 0).going_out, 100);
			assert_int_equal(tl_score(g, 1).morto, -100);
		}
		rpl_game_free(g);
	}
	tl_context = NULL;
}

/* A morto that became stock cannot be picked up: emptying the hand before the second one goes... */
static void test_morto_after_one_became_stock(void **state)
{
	rpl_game *g = new2("kzv", NULL);

	(void)state;
	/* morto 0 becomes stock; seat 0 then empties the hand: it gets morto 1 */
	tl_deal(g, .hand = { H0_DIRECT, H1_JUNK }, .morto = { "9h" });
	for (int draws = 1; draws <= 64; draws++)
		tl_draw_discard(g);
	assert_int_equal(rpl_game_morto_state(g, 0), 2);
	assert_phase(g, RPL_PHASE_DRAW, 0);
	assert_applied(g, A_DRAW); /* 9♥ from the morto turned stock */
	assert_applied(g, A_MELD("3c 4c 5c 6c 7c 8c 9c"));
	assert_applied(g, A_MELD("5h 6h 7h 8h 9h"));
	assert_phase(g, RPL_PHASE_MORTO, 0);
	assert_refused(g, A_MORTO(0), RPL_RULE_MORTO_WRONG);
	assert_applied(g, A_MORTO(1));
	assert_int_equal(rpl_game_morto_state(g, 1), 0);
	assert_int_equal(rpl_game_hand(g, 0, NULL, 0), 11);
	rpl_game_free(g);
}

/* ---- legal moves ----------------------------------------------------------- */

static int same_action(const rpl_action *a, const rpl_action *b)
{
	rpl_card x[14], y[14];

	if (a->kind != b->kind || a->ncards != b->ncards)
		return 0;
	if (a->kind == RPL_ACT_MORTO && a->morto != b->morto)
		return 0;
	if (a->kind == RPL_ACT_ADD && (a->side != b->side || a->meld != b->meld))
		return 0;
	memcpy(x, a->cards, a->ncards);
	memcpy(y, b->cards, b->ncards);
	for (int i = 0; i < a->ncards; i++)
		for (int j = i + 1; j < a->ncards; j++) {
			if (x[j] < x[i]) {
				rpl_card t = x[i];
				x[i] = x[j];
				x[j] = t;
			}
			if (y[j] < y[i]) {
				rpl_card t = y[i];
				y[i] = y[j];
				y[j] = t;
			}
		}
	return memcmp(x, y, a->ncards) == 0;
}

/* Every listed move applies on a copy; returns the count. */
static size_t check_legal(const rpl_game *g, rpl_action *out, size_t cap, const char *file, int line)
{
	size_t n = rpl_game_legal(g, NULL, 0), m;
	char before[8192];

	snprintf(before, sizeof(before), "%s", tl_snapshot(g));
	if (n > cap)
		tl_fail_at(file, line, "%zu legal moves, more than %zu", n, cap);
	m = rpl_game_legal(g, out, cap);
	if (m != n)
		tl_fail_at(file, line, "rpl_game_legal counted %zu, then %zu", n, m);
	for (size_t i = 0; i < n; i++) {
		rpl_game *c = rpl_game_clone(g);
		int rule = -1;

		if (rpl_game_check(g, &out[i], &rule) != 0)
			tl_fail_at(file, line, "listed move %zu (kind %d) fails rpl_game_check: %s", i, out[i].kind,
			           rpl_rule_name(rule));
		tl_applied_at(c, out[i], file, line);
		rpl_game_free(c);
	}
	if (strcmp(before, tl_snapshot(g)) != 0)
		tl_fail_at(file, line, "rpl_game_legal changed the state");
	/* "Moves that differ only in where a floating wild ends up are listed once" */
	{
		int floating = 0;

		rpl_rules_get_id(rpl_game_rules(g), RPL_P_WILD_MOBILITY, &floating);
		for (size_t i = 0; i < n; i++)
			for (size_t j = i + 1; j < n; j++)
				if (same_action(&out[i], &out[j]) && (floating || out[i].end == out[j].end))
					tl_fail_at(file, line, "moves %zu and %zu are the same (kind %d, %d cards)", i, j, out[i].kind,
					           out[i].ncards);
	}
	return n;
}

static int listed(const rpl_action *moves, size_t n, rpl_action a)
{
	for (size_t i = 0; i < n; i++)
		if (same_action(&moves[i], &a))
			return 1;
	return 0;
}

#define MAXMOVES 20000

static void test_legal_moves(void **state)
{
	rpl_game *g = new2("kzv", NULL);
	rpl_action *mv = calloc(MAXMOVES, sizeof(*mv));
	size_t n;
	rpl_card h[16];
	int nh;

	(void)state;
	assert_non_null(mv);
	tl_deal(g, .hand = { "5c 6c 7c Kd 3d 6d 9d Jh 5s 8s 2d", H1_JUNK }, .stock = "Qs 7s 9h Ks");
	/* DRAW phase, empty pile: draw only */
	n = check_legal(g, mv, MAXMOVES, __FILE__, __LINE__);
	assert_int_equal(n, 1);
	assert_true(listed(mv, n, A_DRAW));
	assert_int_equal(rpl_game_legal(g, mv, 0), 1);
	/* PLAY phase: discards of every face, the obvious meld */
	assert_applied(g, A_DRAW);
	n = check_legal(g, mv, MAXMOVES, __FILE__, __LINE__);
	nh = rpl_game_hand(g, 0, h, 16);
	for (int i = 0; i < nh; i++) {
		rpl_action d = tl_act(RPL_ACT_DISCARD);

		d.ncards = 1;
		d.cards[0] = h[i];
		if (!listed(mv, n, d))
			tl_fail("discard %s not listed", rpl_card_name(h[i]));
	}
	assert_true(listed(mv, n, A_MELD("5c 6c 7c")));
	assert_true(listed(mv, n, A_MELD("5c 6c 7c 2d")));
	assert_false(listed(mv, n, A_DRAW));
	assert_false(listed(mv, n, A_TAKE));
	assert_false(listed(mv, n, A_MELD("5s 8s 2d")));
	{
		/* a small cap: still the full count, only cap written */
		rpl_action two[2];

		assert_int_equal(rpl_game_legal(g, two, 2), n);
	}
	assert_applied(g, A_MELD("5c 6c 7c"));
	n = check_legal(g, mv, MAXMOVES, __FILE__, __LINE__);
	assert_true(listed(mv, n, A_ADD(0, 0, "2d")));
	assert_applied(g, A_DISCARD("Kd"));
	/* seat 1, pile K♦ unusable: no take (KZV) */
	n = check_legal(g, mv, MAXMOVES, __FILE__, __LINE__);
	assert_false(listed(mv, n, A_TAKE));
	assert_true(listed(mv, n, A_DRAW));
	assert_applied(g, A_DRAW);
	assert_applied(g, A_DISCARD("7s"));
	/* seat 0, pile K♦ 7♠ with 5♠ 8♠ 2♦: take listed */
	n = check_legal(g, mv, MAXMOVES, __FILE__, __LINE__);
	assert_true(listed(mv, n, A_TAKE));
	assert_true(listed(mv, n, A_DRAW));
	/* frozen: after a 2 is discarded, no take */
	assert_applied(g, A_DRAW);
	assert_applied(g, A_DISCARD("2d"));
	n = check_legal(g, mv, MAXMOVES, __FILE__, __LINE__);
	assert_false(listed(mv, n, A_TAKE));
	rpl_game_free(g);

	/* MORTO phase: exactly the pick-up of the next morto */
	g = new2("stbl", NULL);
	tl_deal(g, .hand = { H0_DIRECT }, .stock = "9h");
	assert_applied(g, A_DRAW);
	assert_applied(g, A_MELD("3c 4c 5c 6c 7c 8c 9c"));
	assert_applied(g, A_MELD("5h 6h 7h 8h 9h"));
	n = check_legal(g, mv, MAXMOVES, __FILE__, __LINE__);
	assert_int_equal(n, 1);
	assert_true(listed(mv, n, A_MORTO(0)));
	rpl_game_free(g);

	/* ABERTO first turn: the reject is listed after the draw, then not */
	g = new2("aberto", NULL);
	tl_deal(g, .hand = { "5c 6c 7c" }, .stock = "9s Js");
	n = check_legal(g, mv, MAXMOVES, __FILE__, __LINE__);
	assert_false(listed(mv, n, A_REJECT));
	assert_applied(g, A_DRAW);
	n = check_legal(g, mv, MAXMOVES, __FILE__, __LINE__);
	assert_true(listed(mv, n, A_REJECT));
	assert_applied(g, A_REJECT);
	n = check_legal(g, mv, MAXMOVES, __FILE__, __LINE__);
	assert_false(listed(mv, n, A_REJECT));
	rpl_game_free(g);

	/* no deal: nothing */
	g = new2("kzv", NULL);
	assert_int_equal(rpl_game_legal(g, mv, MAXMOVES), 0);
	rpl_game_free(g);
	free(mv);
}

/* ---- state copies ---------------------------------------------------------- */

/* game.h: "rpl_game_copy() is one memcpy"; a copy diverges without touching the original. */
static void test_copy(void **state)
{
	rpl_game *g = new2("kzv", NULL), *c, *d;
	char before[8192];

	(void)state;
	tl_deal(g, .hand = { H0_DIRECT }, .morto = { MORTO_DIAMONDS }, .stock = "9h");
	assert_applied(g, A_DRAW);
	assert_applied(g, A_MELD("3c 4c 5c 6c 7c 8c 9c"));
	snprintf(before, sizeof(before), "%s", tl_snapshot(g));

	c = rpl_game_clone(g);
	assert_non_null(c);
	assert_string_equal(tl_snapshot(c), before);
	assert_applied(c, A_MELD("5h 6h 7h 8h 9h"));
	assert_applied(c, A_MORTO(0));
	assert_applied(c, A_DISCARD("Kd"));
	assert_string_equal(tl_snapshot(g), before);
	assert_phase(g, RPL_PHASE_PLAY, 0);
	assert_int_equal(rpl_game_morto_state(g, 0), -1);

	/* copy into a game in another state (another profile, no deal) */
	d = new2("kzv", NULL);
	rpl_game_copy(d, g);
	assert_string_equal(tl_snapshot(d), before);
	assert_string_equal(rpl_rules_profile(rpl_game_rules(d)), "kzv");
	assert_applied(d, A_DISCARD("8h"));
	assert_string_equal(tl_snapshot(g), before);
	/* and the original plays on as before */
	assert_applied(g, A_DISCARD("8h"));
	assert_string_equal(tl_snapshot(g), tl_snapshot(d));
	rpl_game_copy(c, g);
	assert_string_equal(tl_snapshot(c), tl_snapshot(g));
	rpl_game_free(c);
	rpl_game_free(d);
	rpl_game_free(g);
}

/* rpl_game_check never changes the state, and agrees with apply. */
static void test_check_only(void **state)
{
	rpl_game *g = new2("stbl", NULL);
	rpl_action a = A_DRAW;
	int rule = -1;
	char before[8192];

	(void)state;
	tl_deal(g, .hand = { NULL });
	snprintf(before, sizeof(before), "%s", tl_snapshot(g));
	assert_int_equal(rpl_game_check(g, &a, &rule), 0);
	assert_string_equal(tl_snapshot(g), before);
	a = A_TAKE;
	assert_int_equal(rpl_game_check(g, &a, &rule), RPL_EILLEGAL);
	assert_int_equal(rule, RPL_RULE_PILE_EMPTY);
	assert_string_equal(tl_snapshot(g), before);
	rpl_game_free(g);
}

static void test_action_format(void **state)
{
	char buf[64];
	rpl_action a = A_DRAW;

	(void)state;
	rpl_action_format(&a, buf, sizeof(buf));
	assert_string_equal(buf, "draw");
	a = A_MELD("5h 6h 7h");
	rpl_action_format(&a, buf, sizeof(buf));
	assert_string_equal(buf, "meld 5h 6h 7h");
	a = A_DISCARD("10c");
	assert_true(rpl_action_format(&a, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "10c"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deal_start),
		cmocka_unit_test(test_deal_bad_layout),
		cmocka_unit_test(test_turn_order),
		cmocka_unit_test(test_partner_melds),
		cmocka_unit_test(test_kzv_pile_frozen),
		cmocka_unit_test(test_pile_buried_card),
		cmocka_unit_test(test_known_cards),
		cmocka_unit_test(test_kzv_pile_card_added),
		cmocka_unit_test(test_stbl_pile_top),
		cmocka_unit_test(test_stbl_pile_top_face),
		cmocka_unit_test(test_aberto_pile),
		cmocka_unit_test(test_one_card_return_param),
		cmocka_unit_test(test_aberto_first_turn_reject),
		cmocka_unit_test(test_reject_elsewhere),
		cmocka_unit_test(test_morto_direct),
		cmocka_unit_test(test_morto_indirect),
		cmocka_unit_test(test_partner_no_second_morto),
		cmocka_unit_test(test_mortos_become_stock),
		cmocka_unit_test(test_going_out),
		cmocka_unit_test(test_out_after_mortos_became_stock),
		cmocka_unit_test(test_morto_after_one_became_stock),
		cmocka_unit_test(test_legal_moves),
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_check_only),
		cmocka_unit_test(test_action_format),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
