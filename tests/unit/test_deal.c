/*
 * The committed deal (docs/format.md, section 15): the specification's test
 * vectors, and what a derived layout must be.
 */
#include "testlib.h"

#include <stdio.h>
#include <string.h>

#include "libreplay/deal.h"

static void hex(uint8_t *out, size_t n, const char *s)
{
	assert_int_equal(strlen(s), 2 * n);
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		assert_int_equal(sscanf(s + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t)v;
	}
}

/* The layout as the text notation writes it: "hand 0: ...|...|stock: ..." */
static const char *layout_text(const rpl_layout *l, int n)
{
	static char buf[2048];
	size_t k = 0;
	for (int s = 0; s < n; s++)
		k += (size_t)snprintf(buf + k, sizeof(buf) - k, "hand %d: %s|", s, tl_cards_str(l->hand[s], RPL_HAND_SIZE));
	for (int m = 0; m < 2; m++)
		k += (size_t)snprintf(buf + k, sizeof(buf) - k, "morto %d: %s|", m, tl_cards_str(l->morto[m], RPL_MORTO_SIZE));
	snprintf(buf + k, sizeof(buf) - k, "stock: %s", tl_cards_str(l->stock, (size_t)RPL_STOCK_SIZE(n)));
	return buf;
}

static const char *const seed_a = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

static void test_commitment_vector(void **state)
{
	uint8_t seed[32], want[32], got[32];
	(void)state;
	hex(seed, 32, seed_a);
	hex(want, 32, "4cd0539895f54b9551d1ae0337813f5767e65ee45d058c6c59a75ea6b1cad813");
	assert_int_equal(rpl_deal_commit(got, seed), 0);
	assert_memory_equal(got, want, 32);
	seed[31] ^= 1;
	assert_int_equal(rpl_deal_commit(got, seed), 0);
	assert_memory_not_equal(got, want, 32);
}

/* format.md 15.4, vectors 1 and 2: seed 00 01 .. 1f, no player seed, 4 players, deals 1 and 2. */
static void test_vector_deals_1_and_2(void **state)
{
	uint8_t seed[32];
	rpl_layout l;
	(void)state;
	hex(seed, 32, seed_a);
	assert_int_equal(rpl_deal_derive(&l, seed, NULL, 0, 4, 1), 0);
	assert_string_equal(layout_text(&l, 4),
	                    "hand 0: 5c 6c 10c 5d 6d Jd Jd Qd Kd 5h 4s|"
	                    "hand 1: 7c 7d 8d Ah Ah 8h As 6s 9s 10s Ks|"
	                    "hand 2: 4c 7c 8c 9c 9c 10c As 2s 5s Qs JK|"
	                    "hand 3: Ac 2c 3c Kc 2d 3d 7d 9d 4h Jh 8s|"
	                    "morto 0: Kd JK 3h Qs 7s Kc Ks Jc 9s Kh 9h|"
	                    "morto 1: JK 8h 6h Qc 3d Kh Jc Js 10d 5c 4c|"
	                    "stock: 2h 10h 2h 2d 8d Js 10h 7h 9h 5h 2c 4s 2s 9d 3s Ac 4d 5s JK 8c Qh 7h Jh Ad 4h Ad "
	                    "6h 10d 5d 3h Qc 6d 8s Qd 6c Qh 4d 6s 10s 3s 7s 3c");
	assert_int_equal(rpl_deal_derive(&l, seed, NULL, 0, 4, 2), 0);
	assert_string_equal(layout_text(&l, 4),
	                    "hand 0: 2c 4c 5c 10d 5h 6h 7h Kh 9s Qs JK|"
	                    "hand 1: Ac 4c 9c Ad 10d Ah 7h As 8s 9s Js|"
	                    "hand 2: 2c 8c 5d 8d Qd Ah 9h 9h Jh 6s 7s|"
	                    "hand 3: Ac 6c Ad 5d 6d 8d Qd 2h 3h 8h 10h|"
	                    "morto 0: Kc 2h 4s 3s 6h Kh Ks 7d 3d 3c Jd|"
	                    "morto 1: 9d 5h Qc 4s Kc 3d 10c Jc As 10s 2s|"
	                    "stock: 9d Kd Jd 8c JK 2d 6c JK 8h 4h 2d 7c Kd Ks Qs 6d 3c 10c Jc 2s 10h 5s Js Jh 4d 5c "
	                    "Qc 4d 5s 3s 7d 3h 6s Qh JK 9c 8s Qh 10s 4h 7c 7s");
}

/* Vector 3: seed ff.., player seeds 01.. and 02.., 2 players, deal 1. */
static void test_vector_player_seeds(void **state)
{
	uint8_t seed[32], ps[2][32], commit[32], want[32];
	rpl_layout l, swapped;
	(void)state;
	memset(seed, 0xff, 32);
	memset(ps[0], 0x01, 32);
	memset(ps[1], 0x02, 32);
	assert_int_equal(rpl_deal_commit(commit, seed), 0);
	hex(want, 32, "88fdcea2632f8c84ee8745522ced6c555f51299e1ce9629a014027ea3fcf529d");
	assert_memory_equal(commit, want, 32);
	assert_int_equal(rpl_deal_derive(&l, seed, (const uint8_t(*)[32])ps, 2, 2, 1), 0);
	assert_string_equal(layout_text(&l, 2),
	                    "hand 0: 2c Kc 10d 10d 2h 2h 4h Jh As 2s 5s|"
	                    "hand 1: 6c 6c 7c Qc 3d 5d Jd Kd 6h Qh Js|"
	                    "morto 0: 4c 3c Kh 10h 4s 4d 9h Qs Ad 3d Kc|"
	                    "morto 1: Ah 8h 5d 3s 8c Ah 9d JK 7d 6d 3h|"
	                    "stock: Qd Jc JK As Ad 2c 4h 4d Ks 10c Kd Ac Qd 6d 8d 5c Qs 2d 9s 9c JK 6h Kh 9s 8c Qc 3h "
	                    "7h 3s Ac 10s 8h 3c JK 4s 4c 9h 10c 5s 7h 7c 5h 5c Jd Jc Jh 9c 9d 10s 6s Qh 10h 7d 8d 2s "
	                    "6s 2d 8s 7s 5h Js 8s Ks 7s");
	/* the players' seeds bind in their order */
	{
		uint8_t rev[2][32];
		memcpy(rev[0], ps[1], 32);
		memcpy(rev[1], ps[0], 32);
		assert_int_equal(rpl_deal_derive(&swapped, seed, (const uint8_t(*)[32])rev, 2, 2, 1), 0);
		assert_false(rpl_layout_same(&l, &swapped, 2));
	}
}

/* Every derived layout is a deck of 108 cards, hands sorted; deals and seeds give different layouts. */
static void test_derived_layouts(void **state)
{
	uint8_t seed[32];
	rpl_layout prev, l;
	(void)state;
	hex(seed, 32, seed_a);
	for (int n = 2; n <= 4; n += 2) {
		for (int d = 1; d <= 50; d++) {
			int count[RPL_NFACES] = { 0 };
			assert_int_equal(rpl_deal_derive(&l, seed, NULL, 0, n, d), 0);
			for (int s = 0; s < n; s++)
				for (int i = 0; i < RPL_HAND_SIZE; i++) {
					count[l.hand[s][i]]++;
					if (i)
						assert_true(l.hand[s][i - 1] <= l.hand[s][i]);
				}
			for (int m = 0; m < 2; m++)
				for (int i = 0; i < RPL_MORTO_SIZE; i++)
					count[l.morto[m][i]]++;
			for (int i = 0; i < RPL_STOCK_SIZE(n); i++)
				count[l.stock[i]]++;
			for (int c = 0; c < RPL_NFACES; c++)
				assert_int_equal(count[c], rpl_card_copies((rpl_card)c));
			assert_true(rpl_layout_same(&l, &l, n));
			if (d > 1)
				assert_false(rpl_layout_same(&l, &prev, n));
			prev = l;
		}
	}
	/* the same deal of the two table sizes is one shuffle, cut differently */
	{
		rpl_layout two;
		assert_int_equal(rpl_deal_derive(&l, seed, NULL, 0, 4, 1), 0);
		assert_int_equal(rpl_deal_derive(&two, seed, NULL, 0, 2, 1), 0);
		assert_memory_equal(l.hand[0], two.hand[0], RPL_HAND_SIZE);
	}
	seed[0] ^= 0x80;
	assert_int_equal(rpl_deal_derive(&l, seed, NULL, 0, 4, 1), 0);
	hex(seed, 32, seed_a);
	assert_int_equal(rpl_deal_derive(&prev, seed, NULL, 0, 4, 1), 0);
	assert_false(rpl_layout_same(&l, &prev, 4));
}

/* A layout with its hands in another order is the same deal; one card moved is not. */
static void test_layout_same(void **state)
{
	uint8_t seed[32];
	rpl_layout a, b;
	rpl_card t;
	(void)state;
	hex(seed, 32, seed_a);
	assert_int_equal(rpl_deal_derive(&a, seed, NULL, 0, 4, 1), 0);
	b = a;
	t = b.hand[2][0];
	b.hand[2][0] = b.hand[2][10];
	b.hand[2][10] = t;
	assert_true(rpl_layout_same(&a, &b, 4));
	b = a;
	t = b.stock[0];
	b.stock[0] = b.stock[1];
	b.stock[1] = t;
	assert_false(rpl_layout_same(&a, &b, 4));
	b = a;
	t = b.hand[0][0];
	b.hand[0][0] = b.morto[0][0];
	b.morto[0][0] = t;
	assert_false(rpl_layout_same(&a, &b, 4));
}

static void test_bad_arguments(void **state)
{
	uint8_t seed[32] = { 0 }, ps[5][32] = { { 0 } };
	rpl_layout l;
	(void)state;
	assert_int_equal(rpl_deal_derive(&l, seed, NULL, 0, 3, 1), RPL_EINVAL);
	assert_int_equal(rpl_deal_derive(&l, seed, NULL, 0, 4, 0), RPL_EINVAL);
	assert_int_equal(rpl_deal_derive(&l, seed, NULL, 0, 4, RPL_MAX_DEALS + 1), RPL_EINVAL);
	assert_int_equal(rpl_deal_derive(&l, seed, (const uint8_t(*)[32])ps, 5, 4, 1), RPL_EINVAL);
	assert_int_equal(rpl_deal_derive(&l, seed, NULL, 1, 4, 1), RPL_EINVAL);
	assert_int_equal(rpl_deal_derive(NULL, seed, NULL, 0, 4, 1), RPL_EINVAL);
	assert_int_equal(rpl_deal_commit(NULL, seed), RPL_EINVAL);
	assert_int_equal(rpl_deal_seed_random(seed), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_commitment_vector),   cmocka_unit_test(test_vector_deals_1_and_2),
		cmocka_unit_test(test_vector_player_seeds), cmocka_unit_test(test_derived_layouts),
		cmocka_unit_test(test_layout_same),         cmocka_unit_test(test_bad_arguments),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
