/*
 * The date converter (src/date.c): the export's dates and the notation's
 * [Start] stamps are one conversion. Known dates, the ends of int64, the
 * notation's form agreeing with the export's over its whole range, and
 * text -> seconds -> text round trips.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base/date.h"
#include "libreplay/notation.h"

static void known_dates(void **state)
{
	char buf[RPL__DATE_SIZE];

	(void)state;
	rpl__date_format(0, buf, sizeof buf);
	assert_string_equal(buf, "1970-01-01T00:00:00Z");
	rpl__date_format(1767225600, buf, sizeof buf);
	assert_string_equal(buf, "2026-01-01T00:00:00Z");
	rpl__date_format(951782400 + 86399, buf, sizeof buf); /* 2000-02-29, a leap day of a century year */
	assert_string_equal(buf, "2000-02-29T23:59:59Z");
	rpl__date_format(-1, buf, sizeof buf);
	assert_string_equal(buf, "1969-12-31T23:59:59Z");
	rpl__date_format(RPL_MIN_START_TIME, buf, sizeof buf);
	assert_string_equal(buf, "0000-01-01T00:00:00Z");
	rpl__date_format(RPL_MAX_START_TIME, buf, sizeof buf);
	assert_string_equal(buf, "9999-12-31T23:59:59Z");
	/* outside the notation's years the export still writes a date, never overflows */
	rpl__date_format(RPL_MIN_START_TIME - 1, buf, sizeof buf);
	assert_string_equal(buf, "-001-12-31T23:59:59Z");
	rpl__date_format(INT64_MAX, buf, sizeof buf);
	assert_string_equal(buf, "292277026596-12-04T15:30:07Z");
	rpl__date_format(INT64_MIN, buf, sizeof buf);
	assert_string_equal(buf, "-292277022657-01-27T08:29:52Z");
	/* cut as snprintf cuts */
	rpl__date_format(0, buf, 5);
	assert_string_equal(buf, "1970");
}

/* rpl_notation_time_format writes what the export writes, and parses back, over the years 0000 to 9999. */
static void notation_is_the_same_date(void **state)
{
	char a[RPL__DATE_SIZE], b[21];
	int64_t back;

	(void)state;
	/* a step that is no multiple of a day or of an hour visits every time of day and every day of a cycle */
	for (int64_t t = RPL_MIN_START_TIME; t <= RPL_MAX_START_TIME; t += 86400 * 11 + 3607) {
		rpl__date_format(t, a, sizeof a);
		assert_int_equal(rpl_notation_time_format(t, b, sizeof b), 0);
		assert_string_equal(a, b);
		assert_int_equal(rpl_notation_time_parse(b, &back), 0);
		assert_true(back == t);
	}
	assert_int_equal(rpl_notation_time_format(RPL_MAX_START_TIME, b, sizeof b), 0);
	assert_string_equal(b, "9999-12-31T23:59:59Z");
	assert_int_equal(rpl_notation_time_format(RPL_MAX_START_TIME + 1, b, sizeof b), RPL_ELIMIT);
	assert_int_equal(rpl_notation_time_format(RPL_MIN_START_TIME - 1, b, sizeof b), RPL_ELIMIT);
	assert_int_equal(rpl_notation_time_format(0, b, 20), RPL_EINVAL);
	assert_int_equal(rpl_notation_time_format(0, NULL, 21), RPL_EINVAL);
}

static void parse_refuses(void **state)
{
	int64_t t = 42;

	(void)state;
	assert_int_equal(rpl_notation_time_parse("2000-02-29T00:00:00Z", &t), 0);
	assert_true(t == 951782400);
	assert_int_equal(rpl_notation_time_parse("2026-11-30t01:58:23z", &t), 0); /* T and Z in either case */
	assert_true(t == 1796003903);
	assert_int_equal(rpl_notation_time_parse("1900-02-29T00:00:00Z", &t), RPL_EPARSE);
	assert_int_equal(rpl_notation_time_parse("2025-02-29T00:00:00Z", &t), RPL_EPARSE);
	assert_int_equal(rpl_notation_time_parse("2025-04-31T00:00:00Z", &t), RPL_EPARSE);
	assert_int_equal(rpl_notation_time_parse("2025-13-01T00:00:00Z", &t), RPL_EPARSE);
	assert_int_equal(rpl_notation_time_parse("2025-01-01T24:00:00Z", &t), RPL_EPARSE);
	assert_int_equal(rpl_notation_time_parse("2025-01-01T00:60:00Z", &t), RPL_EPARSE);
	assert_int_equal(rpl_notation_time_parse("2025-01-01T00:00:60Z", &t), RPL_EPARSE);
	assert_int_equal(rpl_notation_time_parse("2025-01-01 00:00:00Z", &t), RPL_EPARSE);
	assert_int_equal(rpl_notation_time_parse("2025-01-01T00:00:00", &t), RPL_EPARSE);
	assert_int_equal(rpl_notation_time_parse("2025-01-01T00:00:00Z ", &t), RPL_EPARSE);
	assert_int_equal(rpl_notation_time_parse(NULL, &t), RPL_EPARSE);
	assert_int_equal(rpl_notation_time_parse("2025-01-01T00:00:00Z", NULL), RPL_EPARSE);
	assert_true(t == 1796003903); /* untouched by a refusal */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(known_dates),
		cmocka_unit_test(notation_is_the_same_date),
		cmocka_unit_test(parse_refuses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
