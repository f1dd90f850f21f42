/*
 * What a seat knows (infoset.h) and its samples, on the positions of
 * simulated matches of every profile and both table sizes:
 *
 * - a sample never contradicts the seat's view: its information set in the
 *   sample equals its set in the game (its hand, the melds, the pile, every
 *   hand's size and known cards, the stock, the mortos, the unseen cards);
 *   the sample is a whole deal (the 108 cards, each known card in its hand),
 *   the seat to move keeps its legal decisions when it is the seat, and the
 *   sample plays on to the end of the deal;
 * - the sampler reads nothing the seat cannot see: a game and a sample of
 *   it (the same view, other cards) give the same sample from one stream;
 * - where a card lands is uniform over the places the seat cannot see: a
 *   chi-square test of goodness of fit, fixed seeds, a threshold at
 *   p = 1e-6.
 */
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libreplay/infoset.h"
#include "rules/game_impl.h"

#define MAXMOVES 2048

static const char *const profiles[] = { "kzv", "stbl", "aberto" };

/* The cards of g counted wherever they are: every one of the 108 once, each known card in its hand. */
static void assert_whole_deal(const struct rpl_game *g)
{
	cardset cnt;

	memset(cnt, 0, sizeof(cnt));
	for (int s = 0; s < g->n; s++) {
		int k = 0;
		for (rpl_card c = 0; c < RPL_NFACES; c++) {
			if (g->known[s][c] > g->hand[s][c])
				tl_fail("seat %d is known to hold %d %s but holds %d:\n%s", s, g->known[s][c], rpl_card_name(c),
				        g->hand[s][c], tl_snapshot(g));
			cnt[c] = (uint8_t)(cnt[c] + g->hand[s][c]);
			k += g->hand[s][c];
		}
		assert_int_equal(k, g->hand_n[s]);
	}
	for (int side = 0; side < 2; side++)
		for (int i = 0; i < g->nmelds[side]; i++)
			rpl__meld_cards(&g->melds[side][i], cnt);
	for (int i = 0; i < g->pile_n; i++)
		cnt[g->pile[i]]++;
	for (int i = g->src_pos; i < g->src_len; i++) {
		assert_true(g->src[i] < RPL_NFACES);
		cnt[g->src[i]]++;
	}
	for (int m = 0; m < 2; m++)
		for (int i = 0; g->morto_state[m] == -1 && i < RPL_MORTO_SIZE; i++) {
			assert_true(g->morto[m][i] < RPL_NFACES);
			cnt[g->morto[m][i]]++;
		}
	for (rpl_card c = 0; c < RPL_NFACES; c++)
		if (cnt[c] != rpl_card_copies(c))
			tl_fail("the deal holds %d %s, not %d:\n%s", cnt[c], rpl_card_name(c), rpl_card_copies(c), tl_snapshot(g));
}

/* Play g on to the end of its deal with greedy bots: every decision chosen and accepted. */
static void play_out(rpl_game *g, uint64_t seed)
{
	rpl_bot *bot = NULL;

	assert_int_equal(rpl_bot_new(&bot, RPL_BOT_GREEDY, seed), 0);
	for (int step = 0; rpl_game_phase(g) < RPL_PHASE_DEAL_OVER; step++) {
		rpl_action a;
		if (step == 5000)
			tl_fail("a sample's deal does not end:\n%s", tl_snapshot(g));
		if (rpl_bot_choose(bot, g, &a) != 0)
			tl_fail("no decision in a sample:\n%s", tl_snapshot(g));
		if (rpl_game_apply(g, &a) != 0)
			tl_fail("a sample refused the bot's decision: %s\n%s", rpl_game_errmsg(g), tl_snapshot(g));
	}
	rpl_bot_free(bot);
}

struct scratch {
	rpl_game *s, *s1, *s2;
	rpl_infoset a, b;
	rpl_action la[MAXMOVES], lb[MAXMOVES];
};

/* The checks of one sample of g for seat; seed: the sample's stream. */
static void check_sample(struct scratch *w, const rpl_game *g, int seat, uint64_t seed, int play)
{
	rpl_rng rng, r1, r2;
	int slots = 0;

	rpl_rng_seed(&rng, seed);
	assert_int_equal(rpl_infoset_get(g, seat, &w->a), 0);
	assert_int_equal(rpl_infoset_sample(g, seat, &rng, w->s), 0);
	/* the view is the same */
	assert_int_equal(rpl_infoset_get(w->s, seat, &w->b), 0);
	if (memcmp(&w->a, &w->b, sizeof(w->a)) != 0)
		tl_fail("seat %d's view differs in its sample:\n%s--- sample\n%s", seat, tl_snapshot(g), tl_snapshot(w->s));
	/* the unseen cards fill the places the seat cannot see, exactly */
	for (int s = 0; s < RPL_MAX_SEATS; s++)
		slots += w->a.hidden[s];
	slots += w->a.stock_n;
	for (int m = 0; m < 2; m++)
		slots += w->a.morto_state[m] == -1 ? RPL_MORTO_SIZE : 0;
	assert_int_equal(slots, w->a.unseen_n);
	assert_int_equal(w->a.hidden[seat], 0);
	assert_whole_deal(w->s);
	/* nothing the seat cannot see is read: a game and its sample sample alike */
	rpl_rng_seed(&r1, seed ^ 0x5DEECE66Dull);
	r2 = r1;
	assert_int_equal(rpl_infoset_sample(g, seat, &r1, w->s1), 0);
	assert_int_equal(rpl_infoset_sample(w->s, seat, &r2, w->s2), 0);
	if (memcmp(w->s1, w->s2, sizeof(struct rpl_game)) != 0)
		tl_fail("seat %d's samples of a game and of a sample of it differ:\n%s--- and\n%s", seat, tl_snapshot(w->s1),
		        tl_snapshot(w->s2));
	assert_memory_equal(&r1, &r2, sizeof(r1));
	/* the seat to move decides alike */
	if (seat == rpl_game_seat(g) && rpl_game_phase(g) < RPL_PHASE_DEAL_OVER) {
		size_t na = rpl_game_legal(g, w->la, MAXMOVES), nb = rpl_game_legal(w->s, w->lb, MAXMOVES);
		assert_int_equal(na, nb);
		if (na > MAXMOVES)
			na = MAXMOVES;
		assert_memory_equal(w->la, w->lb, na * sizeof(rpl_action));
	}
	if (play && rpl_game_phase(w->s) < RPL_PHASE_DEAL_OVER)
		play_out(w->s, seed);
}

/* Matches of greedy (even seats) and random (odd seats) bots; each position checked for every seat. */
static void test_samples_agree(void **state)
{
	struct scratch *w = calloc(1, sizeof(*w));
	long positions = 0, played = 0, with_known = 0;

	(void)state;
	assert_non_null(w);
	for (size_t p = 0; p < 3; p++)
		for (int n = 2; n <= 4; n += 2) {
			rpl_game *g = tl_game(profiles[p], NULL, n, n - 1);
			rpl_bot *bots[RPL_MAX_SEATS] = { NULL };
			rpl_rng deal_rng;
			char ctx[64];

			w->s = rpl_game_clone(g);
			w->s1 = rpl_game_clone(g);
			w->s2 = rpl_game_clone(g);
			assert_true(w->s && w->s1 && w->s2);
			for (int s = 0; s < n; s++)
				assert_int_equal(rpl_bot_new(&bots[s], s % 2 ? RPL_BOT_RANDOM : RPL_BOT_GREEDY, 100 + (uint64_t)s), 0);
			rpl_rng_seed(&deal_rng, 2026 + p * 10 + (uint64_t)n);
			/* three deals, or fewer when the match ends first */
			for (int deal = 0; deal < 3 && rpl_game_phase(g) != RPL_PHASE_MATCH_OVER; deal++) {
				rpl_layout lay;
				rpl_layout_shuffle(&lay, n, &deal_rng);
				assert_int_equal(rpl_game_deal(g, &lay), 0);
				snprintf(ctx, sizeof(ctx), "%s, %d players, deal %d", profiles[p], n, deal + 1);
				tl_context = ctx;
				for (int step = 0; rpl_game_phase(g) < RPL_PHASE_DEAL_OVER; step++) {
					rpl_action a;
					for (int seat = 0; seat < n; seat++, positions++) {
						int play = (positions % 61) == 0;
						for (int o = 0; o < n; o++)
							if (o != seat && rpl_game_known(g, o, NULL, 0) > 0) {
								with_known++;
								break;
							}
						check_sample(w, g, seat, (uint64_t)positions * 7919 + 1, play);
						played += play;
					}
					assert_int_equal(rpl_bot_choose(bots[rpl_game_seat(g)], g, &a), 0);
					assert_int_equal(rpl_game_apply(g, &a), 0);
					assert_true(step < 5000);
				}
				/* over, the deal's hands still have their views */
				for (int seat = 0; seat < n; seat++, positions++)
					check_sample(w, g, seat, (uint64_t)positions, 0);
			}
			for (int s = 0; s < n; s++)
				rpl_bot_free(bots[s]);
			rpl_game_free(w->s);
			rpl_game_free(w->s1);
			rpl_game_free(w->s2);
			rpl_game_free(g);
		}
	tl_context = NULL;
	/* the samples must have met known cards, or the test proves little */
	assert_true(with_known > positions / 10);
	print_message("%ld samples checked, %ld with known cards of another seat, %ld played out\n", positions, with_known,
	              played);
	free(w);
}

/* The arguments: no deal yet, a seat out of range, NULL. */
static void test_infoset_arguments(void **state)
{
	rpl_game *g = tl_game("kzv", NULL, 2, 1), *s = rpl_game_clone(g);
	rpl_infoset is;
	rpl_rng rng, before;

	(void)state;
	rpl_rng_seed(&rng, 1);
	before = rng;
	assert_int_equal(rpl_infoset_get(g, 0, &is), RPL_ESTATE);
	assert_int_equal(rpl_infoset_sample(g, 0, &rng, s), RPL_ESTATE);
	assert_memory_equal(&rng, &before, sizeof(rng));
	tl_deal(g, .hand = { "3s 4s Ac 4c 7c 10c 6d 9d Kd 5h Qh", "3c 6c 9c Qc Ad 4d 7d 10d 8h Kh 5s" });
	assert_int_equal(rpl_infoset_get(g, 2, &is), RPL_EINVAL);
	assert_int_equal(rpl_infoset_get(g, -1, &is), RPL_EINVAL);
	assert_int_equal(rpl_infoset_get(NULL, 0, &is), RPL_EINVAL);
	assert_int_equal(rpl_infoset_get(g, 0, NULL), RPL_EINVAL);
	assert_int_equal(rpl_infoset_sample(g, 2, &rng, s), RPL_EINVAL);
	assert_int_equal(rpl_infoset_sample(NULL, 0, &rng, s), RPL_EINVAL);
	assert_int_equal(rpl_infoset_sample(g, 0, NULL, s), RPL_EINVAL);
	assert_int_equal(rpl_infoset_sample(g, 0, &rng, NULL), RPL_EINVAL);
	/* at the start: 108 less the own hand is unseen, the other hand hidden whole */
	assert_int_equal(rpl_infoset_get(g, 0, &is), 0);
	assert_int_equal(is.unseen_n, RPL_DECK_SIZE - RPL_HAND_SIZE);
	assert_int_equal(is.hidden[1], RPL_HAND_SIZE);
	assert_int_equal(is.stock_n, RPL_STOCK_SIZE(2));
	assert_int_equal(is.hand[tl_card("3s")], 1);
	/* the same stream, the same sample; out may be the game itself */
	rpl_rng_seed(&rng, 7);
	before = rng;
	assert_int_equal(rpl_infoset_sample(g, 0, &rng, s), 0);
	assert_int_equal(rpl_infoset_sample(g, 0, &before, g), 0);
	assert_memory_equal(s, g, sizeof(struct rpl_game));
	rpl_game_free(s);
	rpl_game_free(g);
}

/* The chi-square statistic's threshold at p = 1e-6, by degrees of freedom (1..6). */
static const double chi2_crit[7] = { 0, 23.93, 27.63, 30.66, 33.38, 35.89, 38.26 };

/*
 * Where the one unseen copy of a face lands, over many samples: each hidden
 * hand, the top half of the stock, the rest of it, each untouched morto. A
 * uniform deal puts it in each place with the probability of the place's
 * share of the unseen cards.
 */
static void chi_square_at(const rpl_game *g, int seat, const char *ctx)
{
	enum { NSAMPLES = 6000 };
	rpl_infoset is;
	rpl_game *s = rpl_game_clone(g);
	int ncat = 0, cat_seat[RPL_MAX_SEATS], half;
	double expect[8], stat = 0;
	long count[8] = { 0 };
	rpl_card face = RPL_NFACES;
	rpl_rng rng;

	assert_int_equal(rpl_infoset_get(g, seat, &is), 0);
	for (rpl_card c = 0; c < RPL_NFACES && face == RPL_NFACES; c++)
		if (is.unseen[c] == 1)
			face = c;
	assert_true(face < RPL_NFACES);
	/* the places: hands (cat_seat), the stock's two halves, the mortos */
	for (int p = 0; p < RPL_MAX_SEATS; p++) {
		cat_seat[p] = -1;
		if (is.hidden[p] > 0) {
			cat_seat[p] = ncat;
			expect[ncat++] = (double)is.hidden[p];
		}
	}
	half = is.stock_n / 2;
	assert_true(half > 0);
	expect[ncat++] = half;
	expect[ncat++] = is.stock_n - half;
	for (int m = 0; m < 2; m++)
		if (is.morto_state[m] == -1)
			expect[ncat++] = RPL_MORTO_SIZE;
	assert_true(ncat >= 2 && ncat <= 7);

	rpl_rng_seed(&rng, 0xC0FFEE);
	for (int k = 0; k < NSAMPLES; k++) {
		int where = -1, c = 0;
		assert_int_equal(rpl_infoset_sample(g, seat, &rng, s), 0);
		for (int p = 0; p < RPL_MAX_SEATS; p++)
			if (cat_seat[p] >= 0 && s->hand[p][face] > s->known[p][face])
				where = cat_seat[p];
		c = ncat - (s->morto_state[0] == -1) - (s->morto_state[1] == -1) - 2;
		for (int i = s->src_pos; i < s->src_len; i++)
			if (s->src[i] == face)
				where = c + (i - s->src_pos >= half);
		c += 2;
		for (int m = 0; m < 2; m++)
			if (s->morto_state[m] == -1) {
				for (int i = 0; i < RPL_MORTO_SIZE; i++)
					if (s->morto[m][i] == face)
						where = c;
				c++;
			}
		assert_true(where >= 0);
		count[where]++;
	}
	for (int i = 0; i < ncat; i++) {
		double e = expect[i] * NSAMPLES / is.unseen_n;
		assert_true(e >= 5);
		stat += (count[i] - e) * (count[i] - e) / e;
	}
	print_message("%s: seat %d, %s in %d places, chi-square %.2f (df %d, threshold %.2f)\n", ctx, seat,
	              rpl_card_name(face), ncat, stat, ncat - 1, chi2_crit[ncat - 1]);
	if (stat > chi2_crit[ncat - 1])
		tl_fail("%s: %s lands unevenly: chi-square %.2f > %.2f (df %d)", ctx, rpl_card_name(face), stat,
		        chi2_crit[ncat - 1], ncat - 1);
	rpl_game_free(s);
}

/* The chi-square test at a position of the eighth turn of a greedy match, every profile and table size. */
static void test_where_a_card_lands(void **state)
{
	(void)state;
	for (size_t p = 0; p < 3; p++)
		for (int n = 2; n <= 4; n += 2) {
			rpl_game *g = tl_game(profiles[p], NULL, n, n - 1);
			rpl_bot *bot = NULL;
			rpl_layout lay;
			rpl_rng rng;
			char ctx[64];

			snprintf(ctx, sizeof(ctx), "%s, %d players", profiles[p], n);
			assert_int_equal(rpl_bot_new(&bot, RPL_BOT_GREEDY, 5), 0);
			rpl_rng_seed(&rng, 99 + p * 7 + (uint64_t)n);
			rpl_layout_shuffle(&lay, n, &rng);
			assert_int_equal(rpl_game_deal(g, &lay), 0);
			while (rpl_game_turn_number(g) < 8 || rpl_game_phase(g) != RPL_PHASE_DRAW) {
				rpl_action a;
				assert_true(rpl_game_phase(g) < RPL_PHASE_DEAL_OVER);
				assert_int_equal(rpl_bot_choose(bot, g, &a), 0);
				assert_int_equal(rpl_game_apply(g, &a), 0);
			}
			/* the seat after the one to move: the mover's hand is one of the places */
			chi_square_at(g, (rpl_game_seat(g) + 1) % n, ctx);
			rpl_bot_free(bot);
			rpl_game_free(g);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_infoset_arguments),
		cmocka_unit_test(test_samples_agree),
		cmocka_unit_test(test_where_a_card_lands),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
