/*
 * The search bot (rpl_bot_new_search, play/search.c): its strength's bounds,
 * whole deals of every profile and table size played legally with it at
 * some seats, the same decisions for the same seed, and a bot that never
 * reads the cards its seat cannot see (the same decisions on a sample of
 * the game for its seat); a deal that stops moving played on as the greedy
 * bot plays it.
 */
#include "testlib.h"

#include <stdio.h>
#include <string.h>

#include "libreplay/infoset.h"
#include "libreplay/sim.h"

static void test_search_arguments(void **state)
{
	rpl_bot *b = (rpl_bot *)1;

	(void)state;
	assert_int_equal(rpl_bot_new_search(NULL, 1, 2, 1), RPL_EINVAL);
	assert_int_equal(rpl_bot_new_search(&b, 1, 0, 1), RPL_EINVAL);
	assert_null(b);
	assert_int_equal(rpl_bot_new_search(&b, 1, 2, 0), RPL_EINVAL);
	assert_int_equal(rpl_bot_new_search(&b, 1, 1001, 1), RPL_EINVAL);
	assert_int_equal(rpl_bot_new(&b, 7, 1), RPL_EINVAL);
	assert_null(b);
	assert_int_equal(rpl_bot_new(NULL, RPL_BOT_SEARCH, 1), RPL_EINVAL);
	assert_int_equal(rpl_bot_new_search(&b, 1, 1, 1), 0);
	assert_int_equal(rpl_bot_choose(b, NULL, NULL), RPL_EINVAL);
	rpl_bot_free(b);
}

/*
 * One deal: the search bot (1 sample, 1 rollout) at the even seats,
 * greedy at the odd; every decision accepted. With check, each decision of
 * the search bot is also asked of a twin bot (the same seed) on a sample
 * of the game for its seat: it must be the same.
 */
static void play_deal(const char *profile, int n, uint64_t seed, int check, rpl_action *log, int *nlog)
{
	rpl_game *g = tl_game(profile, NULL, n, n - 1), *s = rpl_game_clone(g);
	rpl_bot *bots[RPL_MAX_SEATS] = { NULL }, *twins[RPL_MAX_SEATS] = { NULL };
	rpl_layout lay;
	rpl_rng rng;

	rpl_rng_seed(&rng, seed);
	rpl_layout_shuffle(&lay, n, &rng);
	for (int i = 0; i < n; i++) {
		assert_int_equal(i % 2 ? rpl_bot_new(&bots[i], RPL_BOT_GREEDY, seed + (uint64_t)i)
		                       : rpl_bot_new_search(&bots[i], seed + (uint64_t)i, 1, 1),
		                 0);
		if (i % 2 == 0)
			assert_int_equal(rpl_bot_new_search(&twins[i], seed + (uint64_t)i, 1, 1), 0);
	}
	assert_int_equal(rpl_game_deal(g, &lay), 0);
	*nlog = 0;
	while (rpl_game_phase(g) < RPL_PHASE_DEAL_OVER) {
		int seat = rpl_game_seat(g);
		rpl_action a, b;
		assert_true(*nlog < 4000);
		assert_int_equal(rpl_bot_choose(bots[seat], g, &a), 0);
		if (twins[seat]) {
			/* the twin decides on another deal of what the seat cannot see */
			assert_int_equal(rpl_infoset_sample(g, seat, &rng, s), 0);
			assert_int_equal(rpl_bot_choose(twins[seat], check ? s : g, &b), 0);
			assert_memory_equal(&a, &b, sizeof(a));
		}
		if (rpl_game_apply(g, &a) != 0)
			tl_fail("the search bot's decision was refused: %s\n%s", rpl_game_errmsg(g), tl_snapshot(g));
		log[(*nlog)++] = a;
	}
	for (int i = 0; i < n; i++) {
		rpl_bot_free(bots[i]);
		rpl_bot_free(twins[i]);
	}
	rpl_game_free(s);
	rpl_game_free(g);
}

static void test_search_plays(void **state)
{
	static const char *const profiles[] = { "kzv", "stbl", "aberto" };
	static rpl_action log1[4000], log2[4000];

	(void)state;
	for (size_t p = 0; p < 3; p++)
		for (int n = 2; n <= 4; n += 2) {
			int n1, n2;
			char ctx[64];
			snprintf(ctx, sizeof(ctx), "%s, %d players", profiles[p], n);
			tl_context = ctx;
			play_deal(profiles[p], n, 40 + p * 3 + (uint64_t)n, 1, log1, &n1);
			/* the same seed, the same deal */
			play_deal(profiles[p], n, 40 + p * 3 + (uint64_t)n, 0, log2, &n2);
			assert_int_equal(n1, n2);
			assert_memory_equal(log1, log2, (size_t)n1 * sizeof(rpl_action));
		}
	tl_context = NULL;
}

/*
 * rpl_bot_new makes the search bot at its default strength: at two draws
 * of a greedy deal that may take the pile, it decides as
 * rpl_bot_new_search(RPL_SEARCH_SAMPLES, 1) with the same seed.
 */
static void test_search_default(void **state)
{
	rpl_game *g = tl_game("stbl", NULL, 2, 1);
	rpl_bot *greedy, *def, *made;
	rpl_layout lay;
	rpl_rng rng;
	int searched = 0;

	(void)state;
	rpl_rng_seed(&rng, 7);
	rpl_layout_shuffle(&lay, 2, &rng);
	assert_int_equal(rpl_game_deal(g, &lay), 0);
	assert_int_equal(rpl_bot_new(&greedy, RPL_BOT_GREEDY, 7), 0);
	for (int step = 0; rpl_game_phase(g) < RPL_PHASE_DEAL_OVER && searched < 2; step++) {
		rpl_action a, b;
		rpl_action legal[2];
		/* draws that may take the pile: two candidates, so that the default's 128 samples stay cheap */
		if (step > 8 && rpl_game_phase(g) == RPL_PHASE_DRAW && rpl_game_legal(g, legal, 2) == 2) {
			assert_int_equal(rpl_bot_new(&def, RPL_BOT_SEARCH, 11), 0);
			assert_int_equal(rpl_bot_new_search(&made, 11, RPL_SEARCH_SAMPLES, 1), 0);
			assert_int_equal(rpl_bot_choose(def, g, &a), 0);
			assert_int_equal(rpl_bot_choose(made, g, &b), 0);
			assert_memory_equal(&a, &b, sizeof(a));
			assert_int_equal(rpl_game_check(g, &a, NULL), 0);
			rpl_bot_free(def);
			rpl_bot_free(made);
			searched++;
		}
		assert_int_equal(rpl_bot_choose(greedy, g, &a), 0);
		assert_int_equal(rpl_game_apply(g, &a), 0);
	}
	assert_int_equal(searched, 2);
	rpl_bot_free(greedy);
	rpl_game_free(g);
}

/*
 * A deal that stops moving (play/search.c, STILL_TURNS): asked to decide
 * at the same draw again and again, the stock where it was each time, the
 * search bot decides by its search 8 times, then as the greedy bot does.
 * The position is one where its search takes the other way from the greedy
 * bot, so that the test sees the change.
 */
static void test_search_still(void **state)
{
	rpl_game *g = tl_game("aberto", NULL, 4, 3);
	rpl_bot *greedy, *probe;
	rpl_layout lay;
	rpl_rng rng;
	int found = 0;

	(void)state;
	rpl_rng_seed(&rng, 3);
	rpl_layout_shuffle(&lay, 4, &rng);
	assert_int_equal(rpl_game_deal(g, &lay), 0);
	assert_int_equal(rpl_bot_new(&greedy, RPL_BOT_GREEDY, 3), 0);
	for (int step = 0; step < 400 && rpl_game_phase(g) < RPL_PHASE_DEAL_OVER && !found; step++) {
		rpl_action a, want, legal[2];
		assert_int_equal(rpl_bot_choose(greedy, g, &want), 0);
		if (rpl_game_phase(g) == RPL_PHASE_DRAW && rpl_game_legal(g, legal, 2) == 2) {
			int differed = 0;
			assert_int_equal(rpl_bot_new_search(&probe, 5, 8, 1), 0);
			for (int i = 0; i < 8; i++) {
				assert_int_equal(rpl_bot_choose(probe, g, &a), 0);
				differed |= memcmp(&a, &want, sizeof(a)) != 0;
			}
			if (differed) {
				/* the ninth draw with the stock unmoved and every one after it: the greedy bot's decision */
				for (int i = 0; i < 8; i++) {
					assert_int_equal(rpl_bot_choose(probe, g, &a), 0);
					assert_memory_equal(&a, &want, sizeof(a));
				}
				found = 1;
			}
			rpl_bot_free(probe);
		}
		assert_int_equal(rpl_game_apply(g, &want), 0);
	}
	assert_true(found);
	rpl_bot_free(greedy);
	rpl_game_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_search_arguments),
		cmocka_unit_test(test_search_plays),
		cmocka_unit_test(test_search_default),
		cmocka_unit_test(test_search_still),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
