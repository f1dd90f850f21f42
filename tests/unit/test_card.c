/*
 * Cards: ids, parsing, canonical names (card.h). docs/rules.md 1: 108 cards, two
 * 52-card decks + 4 jokers; a card is its face.
 */
#include "testlib.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *text;
	int id; /* -1: not a card */
} parse_cases[] = {
	{ "Ac", 0 },
	{ "2c", 1 },
	{ "10c", 9 },
	{ "Tc", 9 },
	{ "tc", 9 },
	{ "Jc", 10 },
	{ "Qc", 11 },
	{ "Kc", 12 },
	{ "Ad", 13 },
	{ "2d", 14 },
	{ "qh", 2 * 13 + 11 },
	{ "Qh", 2 * 13 + 11 },
	{ "QH", 2 * 13 + 11 },
	{ "Q\xe2\x99\xa5", 2 * 13 + 11 }, /* Q♥ */
	{ "5\xe2\x99\xa3", 4 },           /* 5♣ */
	{ "K\xe2\x99\xa6", 13 + 12 },     /* K♦ */
	{ "A\xe2\x99\xa0", 39 },          /* A♠ */
	{ "10\xe2\x99\xa0", 39 + 9 },     /* 10♠ */
	{ "Ks", 51 },
	{ "as", 39 },
	{ "JK", RPL_JOKER },
	{ "jk", RPL_JOKER },
	{ "Jk", RPL_JOKER },
	/* not cards */
	{ "", -1 },
	{ "c", -1 },
	{ "1c", -1 },
	{ "0c", -1 },
	{ "11c", -1 },
	{ "Xc", -1 },
	{ "10x", -1 },
	{ "5", -1 },
	{ "J", -1 },
	{ "JKK", -1 },
	{ "5cc", -1 },
	{ " 5c", -1 },
	{ "5c ", -1 },
	{ "Qhh", -1 },
	{ "1", -1 },
};

/* card.h: rank A 2..10 J Q K (also T), suit c d h s or the symbols, case-insensitive; "JK". */
static void test_parse_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
		rpl_card c = 200;
		int rc = rpl_card_parse(parse_cases[i].text, strlen(parse_cases[i].text), &c);

		if (parse_cases[i].id < 0) {
			if (rc != RPL_EINVAL)
				tl_fail("\"%s\": parse = %d (card %d), expected RPL_EINVAL", parse_cases[i].text, rc, c);
		} else if (rc != 0 || c != parse_cases[i].id) {
			tl_fail("\"%s\": parse = %d, card %d, expected card %d", parse_cases[i].text, rc, c, parse_cases[i].id);
		}
	}
}

/* len bounds the token: "5c" inside "5c 6c" parses with len 2; the NUL is not needed. */
static void test_parse_len(void **state)
{
	rpl_card c = 0;

	(void)state;
	assert_int_equal(rpl_card_parse("5c 6c", 2, &c), 0);
	assert_int_equal(c, 4);
	assert_int_equal(rpl_card_parse("10hX", 3, &c), 0);
	assert_int_equal(c, 26 + 9);
	assert_int_equal(rpl_card_parse("10h", 2, &c), RPL_EINVAL); /* "10" */
	assert_int_equal(rpl_card_parse("5c", 0, &c), RPL_EINVAL);
}

static void test_ids_and_macros(void **state)
{
	(void)state;
	assert_int_equal(RPL_CARD_MAKE(RPL_CLUBS, 1), 0);
	assert_int_equal(RPL_CARD_MAKE(RPL_SPADES, 13), 51);
	for (int id = 0; id < 52; id++) {
		assert_int_equal(RPL_CARD_MAKE(RPL_CARD_SUIT(id), RPL_CARD_RANK(id)), id);
		assert_int_equal(rpl_card_copies((rpl_card)id), 2);
		assert_int_equal(RPL_IS_TWO(id), RPL_CARD_RANK(id) == 2);
	}
	assert_int_equal(rpl_card_copies(RPL_JOKER), 4);
	assert_true(RPL_IS_WILDCAPABLE(RPL_JOKER));
	assert_false(RPL_IS_TWO(RPL_JOKER));
}

/* Every face: name -> parse -> same id; with symbols too. 108 = 52*2 + 4. */
static void test_round_trip(void **state)
{
	int total = 0;

	(void)state;
	for (int id = 0; id < RPL_NFACES; id++) {
		char buf[16];
		rpl_card c = 200;
		const char *name = rpl_card_name((rpl_card)id);
		size_t n;

		assert_non_null(name);
		assert_int_equal(rpl_card_parse(name, strlen(name), &c), 0);
		assert_int_equal(c, id);
		n = rpl_card_format((rpl_card)id, buf, sizeof(buf), 0);
		assert_int_equal(n, strlen(buf));
		assert_string_equal(buf, name);
		n = rpl_card_format((rpl_card)id, buf, sizeof(buf), RPL_CARD_SYMBOLS);
		assert_int_equal(n, strlen(buf));
		assert_true(n <= 6);
		c = 200;
		assert_int_equal(rpl_card_parse(buf, n, &c), 0);
		assert_int_equal(c, id);
		total += rpl_card_copies((rpl_card)id);
	}
	assert_int_equal(total, RPL_DECK_SIZE);
}

static void test_canonical_names(void **state)
{
	static const struct {
		int id;
		const char *name, *sym;
	} cases[] = {
		{ 9, "10c", "10\xe2\x99\xa3" },    { 2 * 13 + 11, "Qh", "Q\xe2\x99\xa5" }, { 13, "Ad", "A\xe2\x99\xa6" },
		{ 39 + 1, "2s", "2\xe2\x99\xa0" }, { 12, "Kc", "K\xe2\x99\xa3" },          { RPL_JOKER, "JK", "JK" },
	};
	char buf[16];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_string_equal(rpl_card_name((rpl_card)cases[i].id), cases[i].name);
		rpl_card_format((rpl_card)cases[i].id, buf, sizeof(buf), RPL_CARD_SYMBOLS);
		assert_string_equal(buf, cases[i].sym);
	}
	assert_string_equal(rpl_card_name(53), "??");
	assert_string_equal(rpl_card_name(200), "??");
	rpl_card_format(99, buf, sizeof(buf), 0);
	assert_string_equal(buf, "??");
}

/* rpl_card_format: like snprintf, returns the full length, truncates to size. */
static void test_format_truncation(void **state)
{
	char buf[8];

	(void)state;
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(rpl_card_format(9, buf, 2, 0), 3);
	assert_string_equal(buf, "1");
	assert_int_equal(rpl_card_format(9, buf, 1, 0), 3);
	assert_string_equal(buf, "");
	assert_int_equal(rpl_card_format(9, NULL, 0, 0), 3);
	assert_int_equal(rpl_card_format(2 * 13 + 11, buf, sizeof(buf), RPL_CARD_SYMBOLS), 4);
	assert_int_equal(rpl_card_format(39 + 9, buf, sizeof(buf), RPL_CARD_SYMBOLS), 5);
}

static void test_version_and_errors(void **state)
{
	/* clang-format off */ /* a table laid out by hand */
	static const int codes[] = {RPL_OK, RPL_EINVAL, RPL_ENOMEM, RPL_EIO, RPL_ECORRUPT, RPL_EILLEGAL,
	                            RPL_ENOTFOUND, RPL_EUNSUPPORTED, RPL_ESTATE, RPL_EPARSE, RPL_ELIMIT, -999, 7};
	/* clang-format on */

	(void)state;
	char parts[32];

	/* the version is meson's project(version:), through the generated header */
	assert_string_equal(rpl_version(), RPL_PROJECT_VERSION);
	assert_string_equal(rpl_version(), RPL_VERSION);
	snprintf(parts, sizeof(parts), "%d.%d.%d", RPL_VERSION_MAJOR, RPL_VERSION_MINOR, RPL_VERSION_PATCH);
	assert_string_equal(rpl_version(), parts);
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		assert_non_null(rpl_strerror(codes[i]));
		assert_true(rpl_strerror(codes[i])[0] != 0);
	}
	/* distinct codes have distinct texts */
	for (size_t i = 0; i + 2 < sizeof(codes) / sizeof(codes[0]); i++)
		for (size_t j = i + 1; j + 2 < sizeof(codes) / sizeof(codes[0]); j++)
			assert_string_not_equal(rpl_strerror(codes[i]), rpl_strerror(codes[j]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_table),        cmocka_unit_test(test_parse_len),
		cmocka_unit_test(test_ids_and_macros),     cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_canonical_names),    cmocka_unit_test(test_format_truncation),
		cmocka_unit_test(test_version_and_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
