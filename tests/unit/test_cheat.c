/*
 * The planted cheaters (RPL_BOT_PEEKER, RPL_BOT_FEEDER, RPL_BOT_SIGNALLER):
 * whole matches with a cheater at seat 0 and greedy bots at the others,
 * every decision accepted by the engine; at every discard of seat 0 that
 * had a choice (two or more discards, none going out, some of their cards
 * fitting the seat the cheater reads and some not), the card it discarded
 * is on the side it cheats for; where the greedy bot's discard was already
 * on that side, the cheater's is the same; at percent 0 the match is the
 * greedy bot's; the same seed gives the same match; the refusals.
 *
 * "Fits" is the bots' one test, written again here: the hand of seat t
 * read through the public API, with one more c, and the engine's own
 * pile-take check (rpl__can_lay, private).
 */
#include "testlib.h"

#include <stdio.h>
#include <string.h>

#include "libreplay/sim.h"
#include "rules/game_impl.h"

#define MAXLOG 20000

static int fits(const rpl_game *g, int t, rpl_card c)
{
	cardset h;

	for (rpl_card f = 0; f < RPL_NFACES; f++)
		h[f] = (uint8_t)rpl_game_hand_count(g, t, f);
	h[c]++;
	return rpl__can_lay(g, SIDE(t), h, c, NULL);
}

/* What seat 0's discards showed: the choices it had, those it took on the cheat's side, where it left greedy's. */
struct tally {
	int discards;  /* seat 0's discard decisions */
	int choices;   /* ... with a choice */
	int wanted;    /* ... where it discarded a card on the cheat's side */
	int deviated;  /* ... where it discarded other than the greedy bot would */
	int kept;      /* ... where the greedy bot's card was on the cheat's side and it discarded that card */
	int greedy_ok; /* ... where the greedy bot's card was on the cheat's side */
};

/* Does a discard of seat 0 go out? */
static int goes_out(const rpl_game *g, const rpl_action *a)
{
	rpl_game *c = rpl_game_clone(g);
	int out;

	assert_non_null(c);
	assert_int_equal(rpl_game_apply(c, a), 0);
	out = rpl_game_phase(c) >= RPL_PHASE_DEAL_OVER && c->out_seat == rpl_game_seat(g);
	rpl_game_free(c);
	return out;
}

/*
 * A discard a of seat 0 (kind's seat t) at g: counted in *tl and checked.
 * want: 1 the cheater discards a fitting card when it can, 0 one that does not fit.
 */
static void check_discard(const rpl_game *g, const rpl_action *a, int t, int want, int percent, rpl_bot *greedy,
                          struct tally *tl)
{
	static rpl_action legal[4096];
	size_t n = rpl_game_legal(g, legal, 4096);
	int nd = 0, nfit = 0, out = 0;
	rpl_action gr;

	assert_true(n <= 4096);
	for (size_t i = 0; i < n; i++) {
		if (legal[i].kind != RPL_ACT_DISCARD)
			continue;
		nd++;
		nfit += fits(g, t, legal[i].cards[0]);
		out |= goes_out(g, &legal[i]);
	}
	tl->discards++;
	if (nd < 2 || out || nfit == 0 || nfit == nd)
		return;
	tl->choices++;
	assert_int_equal(rpl_bot_choose(greedy, g, &gr), 0);
	assert_int_equal(gr.kind, RPL_ACT_DISCARD);
	tl->wanted += fits(g, t, a->cards[0]) == want;
	tl->deviated += gr.cards[0] != a->cards[0];
	if (fits(g, t, gr.cards[0]) == want) {
		tl->greedy_ok++;
		tl->kept += gr.cards[0] == a->cards[0];
	}
	if (percent == 100 && fits(g, t, a->cards[0]) != want)
		tl_fail("seat 0 discarded %s, which %s seat %d, when a card that %s was legal\n%s",
		        tl_cards_str(&a->cards[0], 1), want ? "does not fit" : "fits", t, want ? "fits" : "does not fit",
		        tl_snapshot(g));
}

/*
 * A whole match of the stbl profile: kind at seat 0 (RPL_BOT_GREEDY for
 * the honest twin; a cheater at percent), greedy bots elsewhere, every
 * bot's seed from seed. Its decisions into log (*nlog); seat 0's discards
 * counted in *tl (NULL: not counted).
 */
static void play_match(int kind, int percent, int players, uint64_t seed, rpl_action *log, int *nlog, struct tally *tl)
{
	rpl_game *g = tl_game("stbl", NULL, players, players - 1);
	rpl_bot *bots[RPL_MAX_SEATS] = { NULL }, *greedy = NULL;
	int t = kind == RPL_BOT_SIGNALLER ? 2 : 1;
	rpl_rng rng;

	rpl_rng_seed(&rng, seed);
	for (int s = 0; s < players; s++)
		assert_int_equal(s == 0 && kind != RPL_BOT_GREEDY
		                         ? rpl_bot_new_cheat(&bots[s], kind, seed + 1, percent)
		                         : rpl_bot_new(&bots[s], RPL_BOT_GREEDY, seed + 1 + (uint64_t)s),
		                 0);
	assert_int_equal(rpl_bot_new(&greedy, RPL_BOT_GREEDY, seed), 0);
	*nlog = 0;
	while (rpl_game_phase(g) != RPL_PHASE_MATCH_OVER) {
		rpl_layout lay;
		rpl_layout_shuffle(&lay, players, &rng);
		assert_int_equal(rpl_game_deal(g, &lay), 0);
		while (rpl_game_phase(g) < RPL_PHASE_DEAL_OVER) {
			int seat = rpl_game_seat(g);
			rpl_action a;
			assert_true(*nlog < MAXLOG);
			assert_int_equal(rpl_bot_choose(bots[seat], g, &a), 0);
			if (tl && seat == 0 && a.kind == RPL_ACT_DISCARD)
				check_discard(g, &a, t, kind != RPL_BOT_PEEKER, percent, greedy, tl);
			if (rpl_game_apply(g, &a) != 0)
				tl_fail("a decision was refused: %s\n%s", rpl_game_errmsg(g), tl_snapshot(g));
			log[(*nlog)++] = a;
		}
	}
	for (int s = 0; s < players; s++)
		rpl_bot_free(bots[s]);
	rpl_bot_free(greedy);
	rpl_game_free(g);
}

static rpl_action first[MAXLOG], again[MAXLOG];

static void test_cheat_arguments(void **state)
{
	rpl_bot *b = (rpl_bot *)1;

	(void)state;
	assert_int_equal(rpl_bot_new_cheat(NULL, RPL_BOT_PEEKER, 1, 100), RPL_EINVAL);
	assert_int_equal(rpl_bot_new_cheat(&b, RPL_BOT_GREEDY, 1, 100), RPL_EINVAL);
	assert_null(b);
	assert_int_equal(rpl_bot_new_cheat(&b, RPL_BOT_SEARCH, 1, 100), RPL_EINVAL);
	assert_int_equal(rpl_bot_new_cheat(&b, RPL_BOT_BLUNDER, 1, 100), RPL_EINVAL);
	assert_int_equal(rpl_bot_new_cheat(&b, 7, 1, 100), RPL_EINVAL);
	assert_int_equal(rpl_bot_new_cheat(&b, -1, 1, 100), RPL_EINVAL);
	assert_int_equal(rpl_bot_new_cheat(&b, RPL_BOT_FEEDER, 1, -1), RPL_EINVAL);
	assert_int_equal(rpl_bot_new_cheat(&b, RPL_BOT_SIGNALLER, 1, 101), RPL_EINVAL);
	assert_null(b);
	assert_int_equal(rpl_bot_new(&b, 7, 1), RPL_EINVAL);
	assert_null(b);
	for (int k = RPL_BOT_PEEKER; k <= RPL_BOT_SIGNALLER; k++) {
		assert_int_equal(rpl_bot_new(&b, k, 1), 0);
		rpl_bot_free(b);
		assert_int_equal(rpl_bot_new_cheat(&b, k, 1, 0), 0);
		rpl_bot_free(b);
		assert_int_equal(rpl_bot_new_cheat(&b, k, 1, 100), 0);
		assert_int_equal(rpl_bot_choose(b, NULL, NULL), RPL_EINVAL);
		rpl_bot_free(b);
	}
}

/*
 * Each cheater at 100 %: never a discard off its side when one on it was
 * legal (check_discard), the greedy bot's discard whenever that was on its
 * side already, and the choice met often enough to mean something; the
 * same seed, the same match; rpl_bot_new's cheater is rpl_bot_new_cheat's
 * at 100.
 */
static void test_cheat_always(void **state)
{
	static const struct {
		int kind, players;
	} runs[] = { { RPL_BOT_PEEKER, 4 },
		         { RPL_BOT_PEEKER, 2 },
		         { RPL_BOT_FEEDER, 4 },
		         { RPL_BOT_FEEDER, 2 },
		         { RPL_BOT_SIGNALLER, 4 } };

	(void)state;
	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		struct tally tl = { 0 };
		char ctx[64];
		snprintf(ctx, sizeof(ctx), "kind %d, %d players", runs[r].kind, runs[r].players);
		tl_context = ctx;
		for (uint64_t seed = 1; seed <= 8; seed++) {
			int n1, n2;
			play_match(runs[r].kind, 100, runs[r].players, 100 * r + seed, first, &n1, &tl);
			play_match(runs[r].kind, 100, runs[r].players, 100 * r + seed, again, &n2, NULL);
			assert_int_equal(n1, n2);
			assert_memory_equal(first, again, (size_t)n1 * sizeof(rpl_action));
		}
		assert_true(tl.choices >= 20);
		assert_int_equal(tl.wanted, tl.choices);
		assert_int_equal(tl.kept, tl.greedy_ok);
		assert_true(tl.deviated > 0);
		assert_int_equal(tl.deviated, tl.choices - tl.greedy_ok);
	}
	tl_context = NULL;
}

/* At percent 0 a cheater's match is the greedy bot's (the same seeds); so is the signaller's with no partner. */
static void test_cheat_never(void **state)
{
	(void)state;
	for (int k = RPL_BOT_PEEKER; k <= RPL_BOT_SIGNALLER; k++)
		for (int players = 2; players <= 4; players += 2)
			for (int p = 0; p <= 100; p += 100) {
				int n1, n2;
				if (p == 100 && !(k == RPL_BOT_SIGNALLER && players == 2))
					continue;
				play_match(k, p, players, 7 + (uint64_t)players, first, &n1, NULL);
				play_match(RPL_BOT_GREEDY, 0, players, 7 + (uint64_t)players, again, &n2, NULL);
				assert_int_equal(n1, n2);
				assert_memory_equal(first, again, (size_t)n1 * sizeof(rpl_action));
			}
}

/* At 50 % each cheater both cheats and does not, at choices where the greedy discard was off its side. */
static void test_cheat_sometimes(void **state)
{
	(void)state;
	for (int k = RPL_BOT_PEEKER; k <= RPL_BOT_SIGNALLER; k++) {
		struct tally tl = { 0 };
		int n1, n2;
		for (uint64_t seed = 1; seed <= 2; seed++) {
			play_match(k, 50, 4, 300 + seed, first, &n1, &tl);
			play_match(k, 50, 4, 300 + seed, again, &n2, NULL);
			assert_int_equal(n1, n2);
			assert_memory_equal(first, again, (size_t)n1 * sizeof(rpl_action));
		}
		assert_int_equal(tl.kept, tl.greedy_ok);
		assert_true(tl.deviated > 0);
		assert_true(tl.deviated < tl.choices - tl.greedy_ok);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cheat_arguments),
		cmocka_unit_test(test_cheat_always),
		cmocka_unit_test(test_cheat_never),
		cmocka_unit_test(test_cheat_sometimes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
