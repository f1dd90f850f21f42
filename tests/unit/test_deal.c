/*
 * The committed deal (docs/format.md, sections 15 and 18): the
 * specification's test vectors of both protocols, what a derived layout must
 * be, and what protocol 2's commitment binds.
 */
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "libreplay/deal.h"
#include "libreplay/log.h"
#include "libreplay/rules.h"

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

/* ---- protocol 2 (format.md section 18) ---- */

/* A match's terms for rpl_deal_commit_match: the rules are the caller's, every seat unnamed. */
static rpl_match_info terms(const rpl_rules *rules, int nplayers, int first_dealer,
                            const uint8_t (*pseeds)[RPL_DEAL_SEED_SIZE], int npseeds)
{
	rpl_match_info info;
	memset(&info, 0, sizeof(info));
	info.rules = rules;
	info.nplayers = nplayers;
	info.first_dealer = first_dealer;
	info.player_seeds = pseeds;
	info.nplayer_seeds = npseeds;
	info.commit_version = RPL_COMMIT_V2;
	return info;
}

/* format.md 18.4, vector 4: seed 00 01 .. 1f, STBL as it is, 4 unnamed players, first dealer 3, no player seed. */
static void test_v2_vector_bare(void **state)
{
	uint8_t seed[32], want[32], got[32], tb[84], *m;
	rpl_rules *rules;
	rpl_match_info info;
	rpl_layout l, v1;
	(void)state;
	hex(seed, 32, seed_a);
	assert_int_equal(rpl_rules_new(&rules, "stbl"), 0);
	info = terms(rules, 4, 3, NULL, 0);
	hex(want, 32, "b8bde754eca9870c8ad15e773854178ce888a8d6982916a575552db80436f65e");
	assert_int_equal(rpl_deal_commit_match(got, seed, &info), 0);
	assert_memory_equal(got, want, 32);
	/* the terms' bytes as section 18.2 lays them out, hashed after the domain and the seed */
	hex(tb, sizeof(tb),
	    "047374626c2001020202030004640514061e0714080a09c8010a90030be8070cd00f0dc8010ec8010fc80110021102120413001402"
	    "150016001700180019001a021b021c041d001e021f00200204000000000300");
	m = malloc(13 + 32 + sizeof(tb));
	assert_non_null(m);
	memcpy(m, "brp-commit-v2", 13);
	memcpy(m + 13, seed, 32);
	memcpy(m + 45, tb, sizeof(tb));
	assert_int_equal(crypto_generichash(got, 32, m, 45 + sizeof(tb), NULL, 0), 0);
	free(m);
	assert_memory_equal(got, want, 32);
	assert_int_equal(rpl_deal_derive_match(&l, seed, &info, 1), 0);
	assert_string_equal(layout_text(&l, 4),
	                    "hand 0: 9c Jc Ad 6d 7d 10d 2h 7h 5s Qs Ks|"
	                    "hand 1: 7c 10c 2d 10h Jh 3s 4s 5s 6s 8s 10s|"
	                    "hand 2: Ac 2c 9c Qc Kc Ad Jd Qh Qh 8s JK|"
	                    "hand 3: 10c Kc 4d Ah 3h 6h 7h 8h Kh 10s Js|"
	                    "morto 0: Js 9d 3s 3c 5d 5h Qd As Qd 5d 3h|"
	                    "morto 1: Kd 8d Ac Ks 4d 4h 4c 9s 8c Jc 8c|"
	                    "stock: 10h 6s 4c 5h 5c 2h Jd As 8d 2c 2s 4h Kh Jh 4s 9h 6c 9s 6c JK Ah 5c 3d 7c Kd 7s 3c "
	                    "3d 2s 6h Qs Qc 2d 7d 6d 9h JK 8h 7s 10d JK 9d");
	/* the same seed under protocol 1 (vector 1) deals otherwise: the protocols never share a deal */
	info.commit_version = RPL_COMMIT_V1;
	assert_int_equal(rpl_deal_derive_match(&v1, seed, &info, 1), 0);
	assert_false(rpl_layout_same(&l, &v1, 4));
	assert_int_equal(rpl_deal_commit_match(got, seed, &info), 0);
	hex(want, 32, "4cd0539895f54b9551d1ae0337813f5767e65ee45d058c6c59a75ea6b1cad813");
	assert_memory_equal(got, want, 32);
	rpl_rules_free(rules);
}

/*
 * Vector 5: seed ff.., KZV with target 1500, 2 players Ana and Bia, first
 * dealer 0, player seeds 01.. and 02.., deal 1; their order is no choice.
 */
static void test_v2_vector_terms(void **state)
{
	uint8_t seed[32], ps[2][32], rev[2][32], want[32], got[32];
	rpl_rules *rules;
	rpl_match_info info;
	rpl_layout l, swapped;
	(void)state;
	memset(seed, 0xff, 32);
	memset(ps[0], 0x01, 32);
	memset(ps[1], 0x02, 32);
	memcpy(rev[0], ps[1], 32);
	memcpy(rev[1], ps[0], 32);
	assert_int_equal(rpl_rules_new(&rules, "kzv"), 0);
	/* KZV as frozen revision 1 has it: the vector's terms were fixed before KZV's wrap_as_dirty became narrow */
	assert_int_equal(rpl_rules_set(rules, "wrap_as_dirty", "false"), 0);
	assert_int_equal(rpl_rules_set(rules, "target", "1500"), 0);
	info = terms(rules, 2, 0, (const uint8_t(*)[32])ps, 2);
	info.players[0] = "Ana";
	info.players[1] = "Bia";
	hex(want, 32, "3cf88b15c236e4b9fb7c7686a83f1ad57a51f45706bc6cc91109f0ee903952ca");
	assert_int_equal(rpl_deal_commit_match(got, seed, &info), 0);
	assert_memory_equal(got, want, 32);
	assert_int_equal(rpl_deal_derive_match(&l, seed, &info, 1), 0);
	assert_string_equal(layout_text(&l, 2),
	                    "hand 0: 2c 5c Ad 6d 7d 10d 6h 4s 5s 8s 8s|"
	                    "hand 1: 8c Jc 2d 4d 7d 8d 5h Qh 7s 9s Qs|"
	                    "morto 0: Qs 9s Jh As 10h JK 2s 10s 9d 9h 7h|"
	                    "morto 1: Jd Jc 10s 2s 2h 9c 3d 4h 8d Qd JK|"
	                    "stock: 7c 8c 6s 3s 10c Kc 4c 9c 9h Ac Js 3h Js Ac 10d 5d 2d Ks 8h Kd Kh 3d Kh 7c 6c Ks 3s "
	                    "JK 3c JK 4d 10c 6d 8h Ad 6h 7h Qd 3c 3h 6s 5h 10h Kc 4h 4s 5s Ah Qc Qh Ah 4c 6c As 5c 2c "
	                    "Jd 7s Jh 9d Kd 2h Qc 5d");
	info.player_seeds = (const uint8_t(*)[32])rev;
	assert_int_equal(rpl_deal_commit_match(got, seed, &info), 0);
	assert_memory_equal(got, want, 32);
	assert_int_equal(rpl_deal_derive_match(&swapped, seed, &info, 1), 0);
	assert_true(rpl_layout_same(&l, &swapped, 2));
	/* under protocol 1 the order is a choice (vector 3's seed and seeds) */
	info.commit_version = RPL_COMMIT_V1;
	assert_int_equal(rpl_deal_derive_match(&swapped, seed, &info, 1), 0);
	info.player_seeds = (const uint8_t(*)[32])ps;
	assert_int_equal(rpl_deal_derive_match(&l, seed, &info, 1), 0);
	assert_false(rpl_layout_same(&l, &swapped, 2));
	rpl_rules_free(rules);
}

/* Vector 6: seed 00 01 .. 1f, ABERTO, Ana, Bia, Caio and Dora, first dealer 3, player seeds 01.. to 04.., deal 2. */
static void test_v2_vector_every_seat(void **state)
{
	uint8_t seed[32], ps[4][32], want[32], got[32];
	rpl_rules *rules;
	rpl_match_info info;
	rpl_layout l;
	(void)state;
	hex(seed, 32, seed_a);
	for (int i = 0; i < 4; i++)
		memset(ps[i], 4 - i, 32); /* 04.., 03.., 02.., 01..: sorted by the derivation */
	assert_int_equal(rpl_rules_new(&rules, "aberto"), 0);
	/* ABERTO as frozen revision 1 has it: the vector's terms were fixed before one_card_pile_no_return became face */
	assert_int_equal(rpl_rules_set(rules, "one_card_pile_no_return", "true"), 0);
	info = terms(rules, 4, 3, (const uint8_t(*)[32])ps, 4);
	info.players[0] = "Ana";
	info.players[1] = "Bia";
	info.players[2] = "Caio";
	info.players[3] = "Dora";
	hex(want, 32, "662bc7d76e35a4a64a293fbb6f17ff6d7030f6fca8db74c2520955744d5b2aa9");
	assert_int_equal(rpl_deal_commit_match(got, seed, &info), 0);
	assert_memory_equal(got, want, 32);
	assert_int_equal(rpl_deal_derive_match(&l, seed, &info, 2), 0);
	assert_string_equal(layout_text(&l, 4),
	                    "hand 0: 2c Kc 2d 2d 5d 9d Kd 2h 3h 6h 3s|"
	                    "hand 1: 3c 5c 9c Qc 10d Ah 2h Jh Kh 4s 6s|"
	                    "hand 2: 5c 10c Jc 6d 7d Ah 4h 5s 6s 9s 10s|"
	                    "hand 3: 4c Kc Ad 3d 4d Jd Qd 3h 8h Jh 8s|"
	                    "morto 0: 7d JK 4d 4h Kd 8d 6d Qh As 6c 6c|"
	                    "morto 1: 10s Ad 8c 8c 7h 3s Qs Kh Ac 4c 8s|"
	                    "stock: JK 9s 5d 3d 10h 5s 6h 10c Ac 3c 7s Js As Qc 2s JK 2s 4s 7s Jc 5h 7c JK Qd Qs 7c 8h "
	                    "9h Jd 2c 5h 9h Qh Ks 7h 8d 9d Ks 10d 10h 9c Js");
	rpl_rules_free(rules);
}

/*
 * Each term changes the commitment and every deal under protocol 2: a rule
 * parameter, the profile, a name, two seats swapped, the first dealer, the
 * number of players' seeds. Under protocol 1 none does but the seeds.
 */
static void test_v2_terms_bind(void **state)
{
	uint8_t seed[32], ps[4][32], base[32], got[32];
	rpl_rules *rules, *other, *aberto;
	rpl_match_info info, t;
	rpl_layout l0, l;
	(void)state;
	hex(seed, 32, seed_a);
	for (int i = 0; i < 4; i++)
		memset(ps[i], 0x10 + i, 32);
	assert_int_equal(rpl_rules_new(&rules, "kzv"), 0);
	other = rpl_rules_clone(rules);
	assert_non_null(other);
	assert_int_equal(rpl_rules_set(other, "bonus_clean", "250"), 0);
	assert_int_equal(rpl_rules_new(&aberto, "aberto"), 0);
	info = terms(rules, 4, 3, (const uint8_t(*)[32])ps, 4);
	info.players[0] = "Ana";
	info.players[1] = "Bia";
	info.players[2] = "Caio";
	info.players[3] = "Dora";
	assert_int_equal(rpl_deal_commit_match(base, seed, &info), 0);
	assert_int_equal(rpl_deal_derive_match(&l0, seed, &info, 1), 0);
	for (int k = 0; k < 7; k++) {
		t = info;
		switch (k) {
		case 0: t.rules = other; break;
		case 1: t.rules = aberto; break;
		case 2: t.players[1] = "Bea"; break;
		case 3: /* Ana and Bia swap seats */
			t.players[0] = "Bia";
			t.players[1] = "Ana";
			break;
		case 4: t.first_dealer = 0; break;
		case 5: t.nplayer_seeds = 3; break; /* the last seed left out */
		case 6: t.players[2] = NULL; break; /* unnamed is the empty name, not Caio */
		}
		assert_int_equal(rpl_deal_commit_match(got, seed, &t), 0);
		assert_memory_not_equal(got, base, 32);
		assert_int_equal(rpl_deal_derive_match(&l, seed, &t, 1), 0);
		assert_false(rpl_layout_same(&l, &l0, 4));
		t.commit_version = RPL_COMMIT_V1;
		assert_int_equal(rpl_deal_commit_match(got, seed, &t), 0);
		{
			uint8_t plain[32];
			assert_int_equal(rpl_deal_commit(plain, seed), 0);
			assert_memory_equal(got, plain, 32); /* protocol 1: the seed alone */
		}
	}
	/* an unnamed seat and a seat named "" are one term: the header stores both as the empty string */
	t = info;
	t.players[2] = NULL;
	assert_int_equal(rpl_deal_commit_match(base, seed, &t), 0);
	t.players[2] = "";
	assert_int_equal(rpl_deal_commit_match(got, seed, &t), 0);
	assert_memory_equal(got, base, 32);
	rpl_rules_free(rules);
	rpl_rules_free(other);
	rpl_rules_free(aberto);
}

/* What protocol 2 refuses: more seeds than seats, a first dealer out of range, an unknown protocol. */
static void test_v2_bad_arguments(void **state)
{
	uint8_t seed[32] = { 0 }, ps[4][32] = { { 0 } }, out[32];
	rpl_rules *rules;
	rpl_match_info info;
	rpl_layout l;
	(void)state;
	assert_int_equal(rpl_rules_new(&rules, "stbl"), 0);
	info = terms(rules, 2, 1, (const uint8_t(*)[32])ps, 3);
	assert_int_equal(rpl_deal_commit_match(out, seed, &info), RPL_EINVAL);
	assert_int_equal(rpl_deal_derive_match(&l, seed, &info, 1), RPL_EINVAL);
	info.commit_version = RPL_COMMIT_V1; /* protocol 1 took up to 4 whatever the table */
	assert_int_equal(rpl_deal_derive_match(&l, seed, &info, 1), 0);
	info = terms(rules, 4, 4, NULL, 0);
	assert_int_equal(rpl_deal_commit_match(out, seed, &info), RPL_EINVAL);
	info = terms(rules, 3, 0, NULL, 0);
	assert_int_equal(rpl_deal_commit_match(out, seed, &info), RPL_EINVAL);
	info = terms(rules, 4, 0, NULL, 1);
	assert_int_equal(rpl_deal_commit_match(out, seed, &info), RPL_EINVAL);
	info = terms(rules, 4, 0, NULL, 0);
	info.commit_version = 3;
	assert_int_equal(rpl_deal_commit_match(out, seed, &info), RPL_EINVAL);
	info.commit_version = 0; /* 0: the current protocol, 2 */
	assert_int_equal(rpl_deal_commit_match(out, seed, &info), 0);
	assert_int_equal(rpl_deal_derive_match(&l, seed, &info, 0), RPL_EINVAL);
	assert_int_equal(rpl_deal_derive_match(&l, seed, &info, RPL_MAX_DEALS + 1), RPL_EINVAL);
	info.rules = NULL;
	assert_int_equal(rpl_deal_commit_match(out, seed, &info), RPL_EINVAL);
	assert_int_equal(rpl_deal_commit_match(out, seed, NULL), RPL_EINVAL);
	rpl_rules_free(rules);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_commitment_vector),    cmocka_unit_test(test_vector_deals_1_and_2),
		cmocka_unit_test(test_vector_player_seeds),  cmocka_unit_test(test_derived_layouts),
		cmocka_unit_test(test_layout_same),          cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_v2_vector_bare),       cmocka_unit_test(test_v2_vector_terms),
		cmocka_unit_test(test_v2_vector_every_seat), cmocka_unit_test(test_v2_terms_bind),
		cmocka_unit_test(test_v2_bad_arguments),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
