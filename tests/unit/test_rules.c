/*
 * Rule profiles (rules.h): the values docs/rules.md gives each profile, the
 * parameter table, overrides, and the stable rule-code names.
 */
#include "testlib.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ANY (-99999) /* a value this table does not pin down */

/* docs/rules.md 4 to 10 and 12, per profile. */
static const struct {
	int id;
	const char *name;
	int kzv, stbl, aberto;
} values[] = {
	{ RPL_P_ALLOW_2_PLAYERS, "allow_2_players", 1, 1, 1 }, /* rules.md 10 Players: ABERTO 2 allowed [decision] */
	{ RPL_P_ALLOW_4_PLAYERS, "allow_4_players", 1, 1, 1 },
	/* rules.md 10.1: ABERTO "até 3000"; STBL one deal (corrected 2026-12-01): «Se um jogador que já pegou um
	   morto tornar a bater, terminará a partida»; KZV decision */
	{ RPL_P_TARGET, "target", 3000, 0, 3000 },
	{ RPL_P_VALUE_JOKER, "value_joker", 20, 50, 20 }, /* STBL "este vale 50 pontos"; ABERTO "joker 20" */
	{ RPL_P_VALUE_TWO, "value_two", 10, 10, 10 },
	{ RPL_P_VALUE_ACE, "value_ace", 15, 15, 15 },
	{ RPL_P_VALUE_HIGH, "value_high", 10, 10, 10 },
	{ RPL_P_VALUE_LOW, "value_low", 5, 5, 5 },
	{ RPL_P_BONUS_DIRTY, "bonus_dirty", 100, 100, 100 },
	{ RPL_P_BONUS_CLEAN, "bonus_clean", 200, 200, 200 },
	{ RPL_P_BONUS_CLEAN13, "bonus_clean13", 200, 500, 500 },   /* "Canastra de quinhentos" */
	{ RPL_P_BONUS_CLEAN14, "bonus_clean14", 600, 1000, 1000 }, /* "vale o triplo"; "Canastra Real (mil pontos)" */
	{ RPL_P_BONUS_DIRTY14, "bonus_dirty14", 300, 100, 100 },   /* "+300 se tiver um coringa" */
	{ RPL_P_BONUS_GOING_OUT, "bonus_going_out", 100, 100, 100 },
	{ RPL_P_PENALTY_NO_MORTO, "penalty_no_morto", ANY, ANY, ANY }, /* 100 or -100: checked below */
	{ RPL_P_MAX_WILDS, "max_wilds", 1, 1, 1 },
	/* rules.md 2.5: KZV «K♥-A♥-2♥ não existe», read narrowly with «O "2" é coringa em qualquer sequência onde
	   ele não ocupa a posição natural dele» (decision, issue 28); STBL, ABERTO decision */
	{ RPL_P_WRAP_AS_DIRTY, "wrap_as_dirty", RPL_WRAP_NARROW, RPL_WRAP_DIRTY, RPL_WRAP_DIRTY },
	{ RPL_P_WILD_END_DEFAULT, "wild_end_default", ANY, ANY, ANY },
	{ RPL_P_WILD_MOBILITY, "wild_mobility", RPL_WILD_FLOATING, RPL_WILD_FIXED, RPL_WILD_FIXED },
	{ RPL_P_PILE_RULE, "pile_rule", RPL_PILE_USE_ANY, RPL_PILE_TOP_LAID, RPL_PILE_FREE },
	{ RPL_P_PILE_FREEZES, "pile_freezes", 1, 0, 0 },
	/* rules.md 6.5: ABERTO «não devolva essa carta», no card of that face (decision, RULES.md 2026-12-01) */
	{ RPL_P_ONE_CARD_PILE_NO_RETURN, "one_card_pile_no_return", RPL_NO_RETURN_NONE, RPL_NO_RETURN_NONE,
	  RPL_NO_RETURN_FACE },
	{ RPL_P_FIRST_TURN_REJECT, "first_turn_reject", 0, 0, 1 },
	{ RPL_P_VULNERABLE_AT, "vulnerable_at", ANY, ANY, 1500 },
	{ RPL_P_VULNERABLE_MIN_OPEN, "vulnerable_min_open", ANY, ANY, 75 },
	{ RPL_P_OUT_NEEDS_MORTO, "out_needs_morto", 1, 1, 1 },
	{ RPL_P_OUT_IF_MORTOS_STOCK, "out_if_mortos_stock", 0, 1, 0 },
	{ RPL_P_OUT_CANASTRA, "out_canastra", RPL_OUT_CANASTRA_ANY, RPL_OUT_CANASTRA_CLEAN, RPL_OUT_CANASTRA_CLEAN },
	{ RPL_P_OUT_LAST_CARD, "out_last_card", RPL_OUT_LAST_ANY, RPL_OUT_LAST_ANY, RPL_OUT_LAST_DISCARD },
	{ RPL_P_PENALTY_IF_NONE_TAKEN, "penalty_if_none_taken", 1, 1, 0 },
	{ RPL_P_UNPLAYED_MORTO_COST, "unplayed_morto_cost", 0, 0, 100 },
	/* rules.md 9.3: STBL «Caso o outro jogador ou dupla não tenha pegado o morto, diminui-se 100 pontos»
	   (corrected 2026-12-01); KZV «perde 100 pontos se não pegou o morto» */
	{ RPL_P_PENALTY_NO_MORTO_SIDES, "penalty_no_morto_sides", RPL_PENALTY_EACH, RPL_PENALTY_NOT_OUT, RPL_PENALTY_EACH },
};
#define NVALUES (sizeof(values) / sizeof(values[0]))

static void test_profiles_listed(void **state)
{
	const char *const *p = rpl_rules_profiles();
	int seen = 0;
	rpl_rules *r = NULL;

	(void)state;
	assert_non_null(p);
	for (; *p; p++) {
		seen |= !strcasecmp(*p, "kzv") ? 1 : !strcasecmp(*p, "stbl") ? 2 : !strcasecmp(*p, "aberto") ? 4 : 0;
		assert_int_equal(rpl_rules_new(&r, *p), 0);
		rpl_rules_free(r);
		r = NULL;
	}
	assert_int_equal(seen, 7);
	assert_int_equal(rpl_rules_new(&r, "fechado"), RPL_ENOTFOUND);
	assert_int_equal(rpl_rules_new(&r, "KZV"), 0); /* case-insensitive */
	assert_int_equal(strcasecmp(rpl_rules_profile(r), "kzv"), 0);
	rpl_rules_free(r);
	rpl_rules_free(NULL);
}

static void check_profile(const char *profile, int col)
{
	rpl_rules *r = tl_rules(profile, NULL);

	for (size_t i = 0; i < NVALUES; i++) {
		int want = col == 0 ? values[i].kzv : col == 1 ? values[i].stbl : values[i].aberto;
		int v = ANY;
		const rpl_param_info *info = rpl_rules_param_by_name(values[i].name);

		if (!info)
			tl_fail("%s: no parameter named \"%s\"", profile, values[i].name);
		if (info->id != values[i].id)
			tl_fail("parameter \"%s\" has id %d, expected %d", values[i].name, info->id, values[i].id);
		if (rpl_rules_get_id(r, values[i].id, &v) != 0)
			tl_fail("%s: get_id(%s) failed", profile, values[i].name);
		if (v < info->min || v > info->max)
			tl_fail("%s: %s = %d outside its range %d..%d", profile, values[i].name, v, info->min, info->max);
		if (want != ANY && v != want)
			tl_fail("%s: %s = %d, docs/rules.md 12 says %d", profile, values[i].name, v, want);
		if (values[i].id == RPL_P_PENALTY_NO_MORTO && abs(v) != 100)
			tl_fail("%s: penalty_no_morto = %d, docs/rules.md 9.3 says 100", profile, v);
		assert_int_equal(rpl_rules_is_override(r, values[i].id), 0);
	}
	rpl_rules_free(r);
}

static void test_kzv_values(void **state)
{
	(void)state;
	check_profile("kzv", 0);
}

static void test_stbl_values(void **state)
{
	(void)state;
	check_profile("stbl", 1);
}

static void test_aberto_values(void **state)
{
	(void)state;
	check_profile("aberto", 2);
}

/* rules.h: value text "true", "fixed", "3000". */
static void test_value_text(void **state)
{
	static const struct {
		const char *profile, *name, *text;
	} cases[] = {
		{ "kzv", "target", "3000" },          { "kzv", "wild_mobility", "floating" },
		{ "stbl", "wild_mobility", "fixed" }, { "kzv", "pile_rule", "use_any" },
		{ "stbl", "pile_rule", "top_laid" },  { "aberto", "pile_rule", "free" },
		{ "kzv", "pile_freezes", "true" },    { "aberto", "pile_freezes", "false" },
		{ "stbl", "value_joker", "50" },      { "aberto", "vulnerable_at", "1500" },
	};
	char buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rpl_rules *r = tl_rules(cases[i].profile, NULL);

		assert_int_equal(rpl_rules_get(r, cases[i].name, buf, sizeof(buf)), 0);
		if (strcmp(buf, cases[i].text) != 0)
			tl_fail("%s %s = \"%s\", expected \"%s\"", cases[i].profile, cases[i].name, buf, cases[i].text);
		rpl_rules_free(r);
	}
}

/* Every parameter is described, with a unique id 1..RPL_P_COUNT and a name. */
static void test_param_table(void **state)
{
	int seen[RPL_P_COUNT + 1] = { 0 };

	(void)state;
	assert_int_equal(rpl_rules_param_count(), RPL_P_COUNT);
	for (size_t i = 0; i < rpl_rules_param_count(); i++) {
		const rpl_param_info *p = rpl_rules_param_info(i);

		assert_non_null(p);
		assert_true(p->id >= 1 && p->id <= RPL_P_COUNT);
		assert_int_equal(seen[p->id], 0);
		seen[p->id] = 1;
		assert_non_null(p->name);
		assert_ptr_equal(rpl_rules_param_by_name(p->name), p);
		assert_ptr_equal(rpl_rules_param_by_id(p->id), p);
		assert_non_null(p->meaning);
		assert_true(p->meaning[0] != 0);
		assert_non_null(p->source);
		assert_true(p->source[0] != 0);
		assert_true(p->min <= p->max);
		assert_true(p->kind == RPL_PARAM_BOOL || p->kind == RPL_PARAM_INT || p->kind == RPL_PARAM_ENUM);
		if (p->kind == RPL_PARAM_BOOL) {
			assert_int_equal(p->min, 0);
			assert_int_equal(p->max, 1);
		}
		if (p->kind == RPL_PARAM_ENUM) {
			assert_non_null(p->names);
			for (int v = p->min; v <= p->max; v++)
				assert_non_null(p->names[v - p->min]);
		}
	}
	/* every name of the table above is known */
	for (size_t i = 0; i < NVALUES; i++)
		assert_non_null(rpl_rules_param_by_name(values[i].name));
	assert_null(rpl_rules_param_by_name("no_such_param"));
	assert_null(rpl_rules_param_by_id(0));
	assert_null(rpl_rules_param_by_id(RPL_P_COUNT + 1));
}

/* "Each decision is a profile parameter, so a user can override it." */
static void test_set_and_override(void **state)
{
	rpl_rules *r = tl_rules("stbl", NULL), *c;
	char buf[32];
	int v = 0;

	(void)state;
	assert_int_equal(rpl_rules_set(r, "target", "1500"), 0);
	assert_int_equal(rpl_rules_get_id(r, RPL_P_TARGET, &v), 0);
	assert_int_equal(v, 1500);
	assert_int_equal(rpl_rules_is_override(r, RPL_P_TARGET), 1);
	assert_int_equal(rpl_rules_get(r, "target", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "1500");
	assert_string_equal(rpl_rules_profile(r), "stbl");

	/* booleans: true/false/yes/no/1/0 */
	assert_int_equal(rpl_rules_set(r, "pile_freezes", "yes"), 0);
	assert_int_equal(rpl_rules_get_id(r, RPL_P_PILE_FREEZES, &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(rpl_rules_is_override(r, RPL_P_PILE_FREEZES), 1);
	assert_int_equal(rpl_rules_set(r, "pile_freezes", "no"), 0);
	assert_int_equal(rpl_rules_is_override(r, RPL_P_PILE_FREEZES), 0);
	assert_int_equal(rpl_rules_set(r, "pile_freezes", "1"), 0);
	assert_int_equal(rpl_rules_set(r, "pile_freezes", "false"), 0);
	assert_int_equal(rpl_rules_get(r, "pile_freezes", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "false");

	/* enums by name */
	assert_int_equal(rpl_rules_set(r, "pile_rule", "free"), 0);
	assert_int_equal(rpl_rules_get_id(r, RPL_P_PILE_RULE, &v), 0);
	assert_int_equal(v, RPL_PILE_FREE);
	assert_int_equal(rpl_rules_set(r, "wild_mobility", "floating"), 0);
	assert_int_equal(rpl_rules_get_id(r, RPL_P_WILD_MOBILITY, &v), 0);
	assert_int_equal(v, RPL_WILD_FLOATING);

	/* errors */
	assert_int_equal(rpl_rules_set(r, "no_such_param", "1"), RPL_ENOTFOUND);
	assert_int_equal(rpl_rules_set(r, "pile_rule", "sometimes"), RPL_EINVAL);
	assert_true(rpl_rules_errmsg(r)[0] != 0);
	assert_int_equal(rpl_rules_set(r, "target", "lots"), RPL_EINVAL);
	assert_int_equal(rpl_rules_set(r, "pile_freezes", "maybe"), RPL_EINVAL);
	assert_int_equal(rpl_rules_set_id(r, 0, 1), RPL_ENOTFOUND);
	assert_int_equal(rpl_rules_set_id(r, RPL_P_COUNT + 1, 1), RPL_ENOTFOUND);
	assert_int_equal(rpl_rules_get_id(r, RPL_P_COUNT + 1, &v), RPL_ENOTFOUND);
	assert_int_equal(rpl_rules_get(r, "no_such_param", buf, sizeof(buf)), RPL_ENOTFOUND);
	{
		const rpl_param_info *p = rpl_rules_param_by_id(RPL_P_PILE_RULE);

		assert_int_equal(rpl_rules_set_id(r, RPL_P_PILE_RULE, p->max + 1), RPL_EINVAL);
		assert_int_equal(rpl_rules_set_id(r, RPL_P_PILE_RULE, p->min - 1), RPL_EINVAL);
	}
	/* a failed set leaves the value */
	assert_int_equal(rpl_rules_get_id(r, RPL_P_PILE_RULE, &v), 0);
	assert_int_equal(v, RPL_PILE_FREE);

	/* a clone is independent */
	c = rpl_rules_clone(r);
	assert_non_null(c);
	assert_int_equal(rpl_rules_set(c, "target", "0"), 0);
	assert_int_equal(rpl_rules_get_id(r, RPL_P_TARGET, &v), 0);
	assert_int_equal(v, 1500);
	assert_int_equal(rpl_rules_get_id(c, RPL_P_TARGET, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(rpl_rules_get_id(c, RPL_P_PILE_RULE, &v), 0);
	assert_int_equal(v, RPL_PILE_FREE);
	rpl_rules_free(c);
	rpl_rules_free(r);
}

/* rules.h: rule codes and their names never change meaning. */
static void test_rule_names(void **state)
{
	static const struct {
		int code;
		const char *name;
	} names[] = {
		{ RPL_RULE_NO_DEAL, "turn.no_deal" },
		{ RPL_RULE_MATCH_OVER, "turn.match_over" },
		{ RPL_RULE_MUST_DRAW, "turn.must_draw" },
		{ RPL_RULE_ALREADY_DREW, "turn.already_drew" },
		{ RPL_RULE_MORTO_DUE, "morto.due" },
		{ RPL_RULE_MORTO_NOT_DUE, "morto.not_due" },
		{ RPL_RULE_MORTO_WRONG, "morto.wrong" },
		{ RPL_RULE_NOT_IN_HAND, "card.not_in_hand" },
		{ RPL_RULE_BAD_ACTION, "action.malformed" },
		{ RPL_RULE_DEAL_NOT_OVER, "deal.not_over" },
		{ RPL_RULE_LAYOUT, "deal.layout" },
		{ RPL_RULE_STOCK_EMPTY, "stock.empty" },
		{ RPL_RULE_PILE_EMPTY, "pile.empty" },
		{ RPL_RULE_PILE_FROZEN, "pile.frozen" },
		{ RPL_RULE_PILE_UNUSABLE, "pile.unusable" },
		{ RPL_RULE_PILE_TOP_NOT_LAID, "pile.top_not_laid" },
		{ RPL_RULE_PILE_NOT_USED, "pile.not_used" },
		{ RPL_RULE_PILE_RETURN, "pile.return" },
		{ RPL_RULE_REJECT, "draw.reject" },
		{ RPL_RULE_MELD_SHORT, "meld.short" },
		{ RPL_RULE_MELD_LONG, "meld.long" },
		{ RPL_RULE_MELD_SUIT, "meld.suit" },
		{ RPL_RULE_MELD_DUPLICATE, "meld.duplicate" },
		{ RPL_RULE_MELD_WILDS, "meld.wilds" },
		{ RPL_RULE_MELD_GAP, "meld.gap" },
		{ RPL_RULE_MELD_WRAP, "meld.wrap" },
		{ RPL_RULE_MELD_END, "meld.end" },
		{ RPL_RULE_MELD_NO_SUCH, "meld.no_such" },
		{ RPL_RULE_MELD_OPPONENT, "meld.opponent" },
		{ RPL_RULE_MELD_WILD_STUCK, "meld.wild_stuck" },
		{ RPL_RULE_OPEN_MINIMUM, "open.minimum" },
		{ RPL_RULE_TURN_DEAD_END, "turn.dead_end" },
		{ RPL_RULE_OUT_NO_MORTO, "out.no_morto" },
		{ RPL_RULE_OUT_NO_CANASTRA, "out.no_canastra" },
		{ RPL_RULE_OUT_NO_CLEAN, "out.no_clean_canastra" },
		{ RPL_RULE_OUT_MELDED, "out.melded_last" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(rpl_rule_name(names[i].code), names[i].name) != 0)
			tl_fail("rule %d is named \"%s\", expected \"%s\"", names[i].code, rpl_rule_name(names[i].code),
			        names[i].name);
	assert_string_equal(rpl_rule_name(999), "unknown");
	assert_string_equal(rpl_rule_name(-3), "unknown");
	assert_string_equal(rpl_rule_name(13), "unknown"); /* a gap in the numbering */
}

static void test_canastra_names(void **state)
{
	(void)state;
	assert_string_equal(rpl_canastra_name(RPL_CANASTRA_DIRTY), "dirty");
	assert_string_equal(rpl_canastra_name(RPL_CANASTRA_CLEAN), "clean");
	assert_string_equal(rpl_canastra_name(RPL_CANASTRA_CLEAN13), "clean13");
	assert_string_equal(rpl_canastra_name(RPL_CANASTRA_CLEAN14), "clean14");
	assert_string_equal(rpl_canastra_name(RPL_CANASTRA_DIRTY14), "dirty14");
	assert_string_equal(rpl_canastra_name(RPL_CANASTRA_NONE), "none");
}

/* rules.md 10 Players: STBL 2 or 4; ABERTO 4 (2 allowed [decision]); KZV 2 or 4 [decision]. */
static void test_players(void **state)
{
	static const char *const profiles[] = { "kzv", "stbl", "aberto" };
	rpl_game *g = NULL;

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		rpl_rules *r = tl_rules(profiles[i], NULL);

		for (int n = 2; n <= 4; n += 2) {
			assert_int_equal(rpl_game_new(&g, r, n, 0), 0);
			assert_int_equal(rpl_game_players(g), n);
			assert_int_equal(rpl_game_phase(g), RPL_PHASE_NO_DEAL);
			assert_int_equal(rpl_game_deal_number(g), 0);
			assert_int_equal(rpl_game_winner(g), -1);
			rpl_game_free(g);
			g = NULL;
		}
		assert_int_equal(rpl_game_new(&g, r, 3, 0), RPL_EINVAL);
		assert_int_equal(rpl_game_new(&g, r, 1, 0), RPL_EINVAL);
		assert_int_equal(rpl_game_new(&g, r, 5, 0), RPL_EINVAL);
		assert_int_equal(rpl_game_new(&g, r, 4, 4), RPL_EINVAL);
		assert_int_equal(rpl_game_new(&g, r, 2, 2), RPL_EINVAL);
		assert_int_equal(rpl_game_new(&g, r, 2, -1), RPL_EINVAL);
		assert_int_equal(rpl_rules_set(r, "allow_2_players", "false"), 0);
		assert_int_equal(rpl_game_new(&g, r, 2, 0), RPL_EINVAL);
		assert_int_equal(rpl_game_new(&g, r, 4, 0), 0);
		/* the game holds its own copy of the rules */
		assert_int_equal(rpl_rules_set(r, "target", "77"), 0);
		{
			int v = 0;

			assert_int_equal(rpl_rules_get_id(rpl_game_rules(g), RPL_P_TARGET, &v), 0);
			assert_int_equal(v, i == 1 ? 0 : 3000);
		}
		rpl_game_free(g);
		g = NULL;
		rpl_rules_free(r);
	}
	rpl_game_free(NULL);
}

/*
 * Issue 28's five readings (docs/rules.md 2.5, 4.1, 4.3, 6.5, 8.3): each is a
 * parameter whose source, as brp rules shows it, names the decision.
 */
static void test_settled_readings_sources(void **state)
{
	static const char *const decided[] = { "wrap_as_dirty", "bonus_clean", "out_canastra", "value_two",
		                                   "one_card_pile_no_return" };
	rpl_rules *r = tl_rules("kzv", NULL);
	char text[32];
	(void)state;

	for (size_t i = 0; i < sizeof(decided) / sizeof(decided[0]); i++) {
		const rpl_param_info *p = rpl_rules_param_by_name(decided[i]);
		assert_non_null(p);
		if (!strstr(p->source, "decision") || !strstr(p->source, "docs/rules.md"))
			tl_fail("%s: the source \"%s\" names no decision of docs/rules.md", p->name, p->source);
	}
	/* reading 1: KZV's value is narrow; true and false keep their meanings for the logs written before */
	assert_int_equal(rpl_rules_get(r, "wrap_as_dirty", text, sizeof text), 0);
	assert_string_equal(text, "narrow");
	assert_int_equal(rpl_rules_set(r, "wrap_as_dirty", "false"), 0);
	assert_int_equal(rpl_rules_is_override(r, RPL_P_WRAP_AS_DIRTY), 1);
	assert_int_equal(rpl_rules_set(r, "wrap_as_dirty", "wrapped"), RPL_EINVAL);
	rpl_rules_free(r);

	/* reading 5: ABERTO's value is face; true keeps its meaning (a copy held before may go) for the logs before */
	r = tl_rules("aberto", NULL);
	assert_int_equal(rpl_rules_get(r, "one_card_pile_no_return", text, sizeof text), 0);
	assert_string_equal(text, "face");
	assert_int_equal(rpl_rules_set(r, "one_card_pile_no_return", "true"), 0);
	assert_int_equal(rpl_rules_is_override(r, RPL_P_ONE_CARD_PILE_NO_RETURN), 1);
	assert_int_equal(rpl_rules_set(r, "one_card_pile_no_return", "copy"), RPL_EINVAL);
	assert_int_equal(rpl_rules_set_id(r, RPL_P_ONE_CARD_PILE_NO_RETURN, 3), RPL_EINVAL);
	rpl_rules_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profiles_listed),
		cmocka_unit_test(test_kzv_values),
		cmocka_unit_test(test_stbl_values),
		cmocka_unit_test(test_aberto_values),
		cmocka_unit_test(test_value_text),
		cmocka_unit_test(test_param_table),
		cmocka_unit_test(test_set_and_override),
		cmocka_unit_test(test_rule_names),
		cmocka_unit_test(test_canastra_names),
		cmocka_unit_test(test_players),
		cmocka_unit_test(test_settled_readings_sources),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
