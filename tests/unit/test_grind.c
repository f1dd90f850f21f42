/*
 * The grinding attack on a committed deal (issue 22, part 4; docs/security.md,
 * "A committed deal"): a platform draws its seed S, publishes the commitment
 * for the announced terms (KZV, Ana, Bia, Caio and Dora at seats 0 to 3,
 * seat 3 deals first, every player adds a seed), receives the four players'
 * seeds, and then tries every choice it still has: which of the seeds enter
 * (every subset) and in which order, every assignment of the players to the
 * seats, every first dealer; 65 x 24 x 4 = 6240 choices. Each is written as a
 * log and verified in both forms: the compact form that reveals S in its
 * header, and a growing form with the published commitment in its header
 * and S revealed in an R section.
 *
 *   protocol 2   no choice but the honest one verifies "revealed" with a
 *                digest equal to the published commitment; the order of the
 *                seeds is no choice (every order gives the same layouts and
 *                the same bytes), and a header that stores them in another
 *                order, or one twice, or more than there are seats, is refused
 *   substituted  what no verifier can catch: a player's seed replaced by the
 *                platform's own verifies; only that player, who does not
 *                find his seed in the header, can tell
 *   protocol 1   every choice verifies "revealed" with the published
 *                digest, and among them the platform finds hands for Ana
 *                with more wilds than the honest deal gives her: the attack
 *                works there, so the change of protocol is what stops it
 */
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sodium.h>
#include <zlib.h>

#include "libreplay/deal.h"

#define NP 4

static const char *const names[NP] = { "Ana", "Bia", "Caio", "Dora" };
static uint8_t seed_s[32];          /* the platform's */
static uint8_t pseed[NP][32];       /* pseed[i]: the seed player i (names[i]) sent */
static const int honest_dealer = 3; /* announced: the last seat deals first */

/* One choice of the platform's after the commitment. */
struct choice {
	int k, order[NP]; /* the players whose seeds enter, in this order */
	int seat[NP];     /* seat[s]: the player seated at s */
	int dealer;
};

struct run {
	int protocol;
	rpl_rules *rules;
	uint8_t published[32];
	int passed, passed_classes, choices;
	int honest_wilds, best_wilds; /* Ana's wilds in deal 1: honestly, and the most a passing choice gives */
	int seen_hands;               /* distinct hands of Ana's among the passing choices (protocol 1) */
	rpl_card hands[8192][RPL_HAND_SIZE];
};

static int is_honest(const struct choice *c)
{
	if (c->k != NP || c->dealer != honest_dealer)
		return 0;
	for (int s = 0; s < NP; s++)
		if (c->seat[s] != s)
			return 0;
	return 1; /* the order of the seeds aside: it is no choice under protocol 2 (checked apart) */
}

static void choice_info(const struct run *r, const struct choice *c, rpl_match_info *info, uint8_t (*seeds)[32])
{
	memset(info, 0, sizeof(*info));
	info->rules = r->rules;
	info->nplayers = NP;
	for (int s = 0; s < NP; s++)
		info->players[s] = names[c->seat[s]];
	info->first_dealer = c->dealer;
	for (int i = 0; i < c->k; i++)
		memcpy(seeds[i], pseed[c->order[i]], 32);
	info->player_seeds = (const uint8_t(*)[32])seeds;
	info->nplayer_seeds = c->k;
	info->commit_version = r->protocol;
}

/* Deal 1 and one turn played by a bot, recorded into rec (checked). */
static void play(rpl_recorder *rec, const rpl_layout *lay)
{
	rpl_bot *bot = NULL;
	rpl_action a;

	assert_int_equal(rpl_bot_new(&bot, RPL_BOT_GREEDY, 3), 0);
	assert_int_equal(rpl_recorder_deal(rec, lay), 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(rpl_bot_choose(bot, rpl_recorder_game(rec), &a), 0);
		assert_int_equal(rpl_recorder_action(rec, &a), 0);
	}
	rpl_bot_free(bot);
}

/* 1 when the log verifies with its deals revealed and the published commitment as digest. */
static int passes(const struct run *r, const uint8_t *d, size_t n)
{
	rpl_reader *rd = NULL;
	rpl_verdict v;

	assert_int_equal(rpl_reader_open_memory(&rd, d, n), 0);
	assert_int_equal(rpl_verify_reader(rd, NULL, &v), 0);
	rpl_reader_free(rd);
	assert_int_not_equal(v.kind, RPL_VERDICT_MALFORMED);
	return v.deal_commitment == RPL_DEAL_REVEALED && memcmp(v.commitment, r->published, 32) == 0;
}

/*
 * The compact form: the header reveals S, so its commitment is computed from
 * S and the header's terms (those of the choice). *out: the log's bytes.
 */
static int try_compact(const struct run *r, const struct choice *c, const rpl_layout *lay, uint8_t **out, size_t *n)
{
	rpl_match_info info;
	uint8_t seeds[NP][32], commit[32];
	rpl_recorder *rec = NULL;
	const uint8_t *d;
	int ok;

	choice_info(r, c, &info, seeds);
	assert_int_equal(rpl_deal_commit_match(commit, seed_s, &info), 0);
	info.commitment = commit;
	assert_int_equal(rpl_recorder_open_memory(&rec, &info, 0, NULL), 0);
	assert_int_equal(rpl_recorder_seed(rec, seed_s), 0);
	play(rec, lay);
	assert_int_equal(rpl_recorder_close(rec), 0);
	assert_int_equal(rpl_recorder_log(&d, n, rec), 0);
	ok = passes(r, d, *n);
	*out = malloc(*n);
	assert_non_null(*out);
	memcpy(*out, d, *n);
	rpl_recorder_free(rec);
	return ok;
}

/* The growing form: the published commitment in the header, the choice's terms and layouts, S in an R. */
static int try_growing(const struct run *r, const struct choice *c, const rpl_layout *lay)
{
	rpl_match_info info;
	uint8_t seeds[NP][32], *d;
	rpl_recorder *rec = NULL;
	const uint8_t *g;
	size_t n;
	uLong crc;
	int ok;

	choice_info(r, c, &info, seeds);
	info.commitment = r->published;
	assert_int_equal(rpl_recorder_open_memory(&rec, &info, 0, NULL), 0);
	play(rec, lay);
	assert_int_equal(rpl_recorder_flush(rec), 0);
	assert_int_equal(rpl_recorder_log(&g, &n, rec), 0);
	d = malloc(n + 38);
	assert_non_null(d);
	memcpy(d, g, n);
	d[n] = 'R';
	d[n + 1] = 32;
	memcpy(d + n + 2, seed_s, 32);
	crc = crc32(0, d + n, 34);
	for (int i = 0; i < 4; i++)
		d[n + 34 + i] = (uint8_t)(crc >> (8 * i));
	ok = passes(r, d, n + 38);
	free(d);
	rpl_recorder_free(rec);
	return ok;
}

static int wilds(const rpl_card *h)
{
	int w = 0;
	for (int i = 0; i < RPL_HAND_SIZE; i++)
		w += h[i] == RPL_JOKER || h[i] % 13 == 1; /* KZV: jokers and 2s */
	return w;
}

/* Try one choice: both forms; the bookkeeping of what passed. sorted_log: the bytes of the sorted order's log. */
static void try_choice(struct run *r, const struct choice *c, uint8_t *const *sorted_log, const size_t *sorted_n,
                       int *class_passed)
{
	rpl_match_info info;
	uint8_t seeds[NP][32], *d;
	rpl_layout lay;
	size_t n;
	int a, b, ana = 0;

	choice_info(r, c, &info, seeds);
	assert_int_equal(rpl_deal_derive_match(&lay, seed_s, &info, 1), 0);
	a = try_compact(r, c, &lay, &d, &n);
	b = try_growing(r, c, &lay);
	assert_int_equal(a, b); /* the two forms say the same of every choice */
	r->choices++;
	if (r->protocol == RPL_COMMIT_V2 && sorted_log) {
		/* another order of the same seeds: the same layouts, and the same bytes (the log stores them sorted) */
		assert_int_equal(n, *sorted_n);
		assert_memory_equal(d, *sorted_log, n);
	}
	free(d);
	if (!a)
		return;
	r->passed++;
	if (!*class_passed) {
		*class_passed = 1;
		r->passed_classes++;
	}
	if (r->protocol == RPL_COMMIT_V2)
		assert_true(is_honest(c)); /* only the honest choice passes */
	for (int s = 0; s < NP; s++)
		if (c->seat[s] == 0)
			ana = s;
	if (wilds(lay.hand[ana]) > r->best_wilds)
		r->best_wilds = wilds(lay.hand[ana]);
	if (r->protocol == RPL_COMMIT_V1) {
		int seen = 0;
		for (int i = 0; i < r->seen_hands && !seen; i++)
			seen = memcmp(r->hands[i], lay.hand[ana], RPL_HAND_SIZE) == 0;
		if (!seen && r->seen_hands < 8192)
			memcpy(r->hands[r->seen_hands++], lay.hand[ana], RPL_HAND_SIZE);
	}
}

/* The next permutation of p[0..n) in lexicographic order; 0 after the last. */
static int next_perm(int *p, int n)
{
	int i = n - 2, j = n - 1, t;
	while (i >= 0 && p[i] >= p[i + 1])
		i--;
	if (i < 0)
		return 0;
	while (p[j] <= p[i])
		j--;
	t = p[i];
	p[i] = p[j];
	p[j] = t;
	for (int a = i + 1, b = n - 1; a < b; a++, b--) {
		t = p[a];
		p[a] = p[b];
		p[b] = t;
	}
	return 1;
}

/* Every choice: the seeds that enter and their order, the seating, the first dealer. */
static void grind(struct run *r)
{
	rpl_match_info announced;
	uint8_t seeds[NP][32];
	struct choice honest = { NP, { 0, 1, 2, 3 }, { 0, 1, 2, 3 }, 3 };

	rpl_layout honest_lay;

	r->rules = tl_rules("kzv", NULL);
	choice_info(r, &honest, &announced, seeds);
	assert_int_equal(rpl_deal_commit_match(r->published, seed_s, &announced), 0);
	/* the honest deal: the seeds in seat order (protocol 1's header order; protocol 2 sorts them), Ana at seat 0 */
	assert_int_equal(rpl_deal_derive_match(&honest_lay, seed_s, &announced, 1), 0);
	r->honest_wilds = wilds(honest_lay.hand[0]);
	for (int mask = 0; mask < (1 << NP); mask++) {
		struct choice c;
		int members[NP], k = 0;
		for (int i = 0; i < NP; i++)
			if (mask & (1 << i))
				members[k++] = i;
		c.k = k;
		for (int s = 0; s < NP; s++)
			c.seat[s] = s;
		do {
			for (c.dealer = 0; c.dealer < NP; c.dealer++) {
				uint8_t *sorted_log = NULL;
				size_t sorted_n = 0;
				int class_passed = 0;
				/* the seeds' orders: the ascending one first, as the reference for the others */
				int order[NP];
				memcpy(order, members, sizeof(order));
				for (int i = 0; i < k; i++)
					for (int j = i + 1; j < k; j++)
						if (memcmp(pseed[order[j]], pseed[order[i]], 32) < 0) {
							int t = order[i];
							order[i] = order[j];
							order[j] = t;
						}
				memcpy(c.order, order, sizeof(order));
				{
					rpl_match_info info;
					rpl_layout lay;
					choice_info(r, &c, &info, seeds);
					assert_int_equal(rpl_deal_derive_match(&lay, seed_s, &info, 1), 0);
					if (r->protocol == RPL_COMMIT_V2) {
						try_compact(r, &c, &lay, &sorted_log, &sorted_n);
						/* every order of these seeds derives this layout */
						int perm[NP];
						memcpy(perm, members, sizeof(perm));
						do {
							rpl_layout other;
							for (int i = 0; i < k; i++)
								memcpy(seeds[i], pseed[perm[i]], 32);
							info.player_seeds = (const uint8_t(*)[32])seeds;
							assert_int_equal(rpl_deal_derive_match(&other, seed_s, &info, 1), 0);
							assert_true(rpl_layout_same(&lay, &other, NP));
						} while (next_perm(perm, k));
					}
				}
				memcpy(c.order, members, sizeof(members));
				do {
					try_choice(r, &c, r->protocol == RPL_COMMIT_V2 ? &sorted_log : NULL, &sorted_n, &class_passed);
				} while (next_perm(c.order, k));
				free(sorted_log);
			}
		} while (next_perm(c.seat, NP));
	}
	rpl_rules_free(r->rules);
}

/* Fixed seeds that look random (so that a header holding them is not worth deflating). */
static void setup_seeds(void)
{
	crypto_generichash(seed_s, 32, (const unsigned char *)"platform", 8, NULL, 0);
	for (int p = 0; p < NP; p++)
		crypto_generichash(pseed[p], 32, (const unsigned char *)names[p], strlen(names[p]), NULL, 0);
}

static void protocol_2(void **state)
{
	struct run *r = calloc(1, sizeof(*r));
	(void)state;
	assert_non_null(r);
	setup_seeds();
	r->protocol = RPL_COMMIT_V2;
	grind(r);
	assert_int_equal(r->choices, 65 * 24 * 4);
	assert_int_equal(r->passed_classes, 1); /* the honest seats, dealer and seeds */
	assert_int_equal(r->passed, 24);        /* ... in each of their 24 orders, which are one log */
	assert_int_equal(r->best_wilds, r->honest_wilds);
	free(r);
}

static void protocol_1(void **state)
{
	struct run *r = calloc(1, sizeof(*r));
	(void)state;
	assert_non_null(r);
	setup_seeds();
	r->protocol = RPL_COMMIT_V1;
	grind(r);
	assert_int_equal(r->choices, 65 * 24 * 4);
	assert_int_equal(r->passed, r->choices); /* every choice reads revealed, with the published digest */
	/* 65 orders of seeds, each a layout, and Ana at any of 4 seats: the platform picks among 260 hands */
	assert_int_equal(r->seen_hands, 260);
	assert_true(r->best_wilds > r->honest_wilds);
	print_message("protocol 1: Ana gets %d wilds honestly, up to %d among %d hands the platform may choose\n",
	              r->honest_wilds, r->best_wilds, r->seen_hands);
	free(r);
}

/*
 * What verification cannot catch, and who can: the platform swaps Dora's
 * seed for one of its own (chosen after seeing the others: it could grind
 * that one freely). The commitment binds the number of seeds, not their
 * values, so the log verifies revealed with the published digest; only Dora
 * can tell, as her seed is not among the header's (docs/security.md's step
 * "your seed among the header's").
 */
static void substituted_seed(void **state)
{
	struct run r = { 0 };
	struct choice honest = { NP, { 0, 1, 2, 3 }, { 0, 1, 2, 3 }, 3 };
	rpl_match_info info;
	uint8_t seeds[NP][32], *d;
	rpl_reader *rd = NULL;
	rpl_layout lay;
	size_t n;
	int found = 0;
	(void)state;

	setup_seeds();
	r.protocol = RPL_COMMIT_V2;
	r.rules = tl_rules("kzv", NULL);
	choice_info(&r, &honest, &info, seeds);
	assert_int_equal(rpl_deal_commit_match(r.published, seed_s, &info), 0);
	crypto_generichash(pseed[3], 32, (const unsigned char *)"the platform's own", 18, NULL, 0);
	choice_info(&r, &honest, &info, seeds);
	assert_int_equal(rpl_deal_derive_match(&lay, seed_s, &info, 1), 0);
	assert_true(try_compact(&r, &honest, &lay, &d, &n));
	assert_int_equal(rpl_reader_open_memory(&rd, d, n), 0);
	setup_seeds(); /* Dora's own seed again */
	for (int i = 0; i < rpl_reader_info(rd)->nplayer_seeds; i++)
		found += memcmp(rpl_reader_info(rd)->player_seeds[i], pseed[3], 32) == 0;
	assert_int_equal(found, 0);
	rpl_reader_free(rd);
	free(d);
	rpl_rules_free(r.rules);
}

/*
 * The header of log g[0..n) (committed to commitment, m players' seeds)
 * edited: edit 0 swaps the first two seeds, 1 repeats the first, 2 says one
 * seed more than stored; the CRC mended. The reader must refuse it, saying why.
 */
static void refused_header(const uint8_t *g, size_t n, const uint8_t *commitment, int m, int edit, const char *why)
{
	rpl_reader *rd = NULL;
	uint8_t *d = malloc(n), *at;
	size_t hlen = 0, p = 9, off = 0;
	uLong crc;

	assert_non_null(d);
	memcpy(d, g, n);
	assert_int_equal(d[8], 'H');
	for (int shift = 0; shift == 0 || d[p - 1] & 0x80; shift += 7)
		hlen |= (size_t)(d[p++] & 0x7f) << shift;
	assert_int_equal(d[p], 0); /* raw, not deflated: the seeds are in it as they are */
	/* the players' seeds as stored: after the commitment and their count */
	for (size_t i = p + 1; i + 32 <= p + hlen && !off; i++)
		if (memcmp(d + i, commitment, 32) == 0)
			off = i;
	assert_true(off > 0);
	at = d + off + 33;
	assert_int_equal(at[-1], m);
	if (edit == 0) {
		uint8_t t[32];
		memcpy(t, at, 32);
		memcpy(at, at + 32, 32);
		memcpy(at + 32, t, 32);
	} else if (edit == 1) {
		memcpy(at + 32, at, 32);
	} else {
		at[-1] = (uint8_t)(m + 1); /* refused at the count, before the seeds are read */
	}
	crc = crc32(0, d + 8, (uInt)(p - 8 + hlen));
	for (int i = 0; i < 4; i++)
		d[p + hlen + i] = (uint8_t)(crc >> (8 * i));
	assert_int_equal(rpl_reader_open_memory(&rd, d, n), RPL_ECORRUPT);
	assert_non_null(strstr(rpl_reader_errmsg(rd), why));
	rpl_reader_free(rd);
	free(d);
}

/* A version-4 header must store the players' seeds ascending, each once, one a seat at most: else refused. */
static void header_order(void **state)
{
	struct run r = { 0 };
	struct choice honest = { NP, { 0, 1, 2, 3 }, { 0, 1, 2, 3 }, 3 };
	rpl_match_info info;
	uint8_t seeds[NP][32];
	rpl_recorder *rec = NULL;
	const uint8_t *g;
	size_t n;
	(void)state;

	setup_seeds();
	r.protocol = RPL_COMMIT_V2;
	r.rules = tl_rules("kzv", NULL);
	choice_info(&r, &honest, &info, seeds);
	assert_int_equal(rpl_deal_commit_match(r.published, seed_s, &info), 0);
	info.commitment = r.published;
	assert_int_equal(rpl_recorder_open_memory(&rec, &info, 0, NULL), 0);
	assert_int_equal(rpl_recorder_flush(rec), 0);
	assert_int_equal(rpl_recorder_log(&g, &n, rec), 0);
	refused_header(g, n, r.published, NP, 0, "not distinct and in ascending order");
	refused_header(g, n, r.published, NP, 1, "not distinct and in ascending order");
	rpl_recorder_free(rec);
	/* a table of two with both seeds: a third is refused, as one seat would have added two */
	info.nplayers = 2;
	info.first_dealer = 1;
	info.nplayer_seeds = 2;
	assert_int_equal(rpl_recorder_open_memory(&rec, &info, 0, NULL), 0);
	assert_int_equal(rpl_recorder_flush(rec), 0);
	assert_int_equal(rpl_recorder_log(&g, &n, rec), 0);
	refused_header(g, n, r.published, 2, 2, "each seat adds one at most");
	rpl_recorder_free(rec);
	/* the recorder refuses a seed given twice, and more seeds than seats */
	rec = NULL;
	info.nplayers = NP;
	info.first_dealer = 3;
	info.nplayer_seeds = NP;
	memcpy(seeds[1], seeds[0], 32);
	assert_int_equal(rpl_recorder_open_memory(&rec, &info, 0, NULL), RPL_EINVAL);
	rpl_recorder_free(rec);
	rec = NULL;
	info.nplayers = 2;
	info.first_dealer = 1;
	info.nplayer_seeds = 3;
	memcpy(seeds[1], pseed[1], 32);
	assert_int_equal(rpl_recorder_open_memory(&rec, &info, 0, NULL), RPL_EINVAL);
	rpl_recorder_free(rec);
	rpl_rules_free(r.rules);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(protocol_2),
		cmocka_unit_test(protocol_1),
		cmocka_unit_test(header_order),
		cmocka_unit_test(substituted_seed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
