/*
 * The date converter: seconds since 1970-01-01 UTC to a civil date and back
 * (proleptic Gregorian; H. Hinnant's algorithms), in the one text form the
 * notation and the export write, "YYYY-MM-DDTHH:MM:SSZ".
 */
#include <stdio.h>
#include <string.h>

#include "base/date.h"
#include "libreplay/notation.h"

/* Days since 1970-01-01 of a civil date. */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* The civil date of a day count; exact for any day count an int64 of seconds gives. */
static void civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
	int64_t era, doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

void rpl__date_format(int64_t t, char *buf, size_t size)
{
	/* floor division, written so that no int64 t overflows */
	int64_t days = t / 86400, secs = t % 86400, y;
	int m, d;

	if (secs < 0) {
		secs += 86400;
		days--;
	}
	civil_from_days(days, &y, &m, &d);
	snprintf(buf, size, "%04lld-%02d-%02dT%02d:%02d:%02dZ", (long long)y, m, d, (int)(secs / 3600),
	         (int)(secs / 60 % 60), (int)(secs % 60));
}

int rpl_notation_time_format(int64_t t, char *buf, size_t size)
{
	if (!buf || size < 21)
		return RPL_EINVAL;
	if (t < RPL_MIN_START_TIME || t > RPL_MAX_START_TIME)
		return RPL_ELIMIT;
	rpl__date_format(t, buf, size);
	return 0;
}

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

int rpl_notation_time_parse(const char *s, int64_t *out)
{
	static const char shape[] = "dddd-dd-ddTdd:dd:ddZ";
	static const int mdays[12] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int v[6], y, m, d, leap;

	if (!s || !out || strlen(s) != sizeof shape - 1)
		return RPL_EPARSE;
	for (size_t i = 0; shape[i]; i++)
		if (shape[i] == 'd' ? !is_digit(s[i]) : (s[i] | 0x20) != (shape[i] | 0x20))
			return RPL_EPARSE;
	for (int k = 0, i = 0; k < 6; k++) {
		int w = k == 0 ? 4 : 2;
		v[k] = 0;
		for (int j = 0; j < w; j++)
			v[k] = v[k] * 10 + (s[i + j] - '0');
		i += w + 1;
	}
	y = v[0];
	m = v[1];
	d = v[2];
	leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	if (m < 1 || m > 12 || d < 1 || d > mdays[m - 1] || (m == 2 && d == 29 && !leap) || v[3] > 23 || v[4] > 59 ||
	    v[5] > 59)
		return RPL_EPARSE;
	*out = days_from_civil(y, m, d) * 86400 + v[3] * 3600 + v[4] * 60 + v[5];
	return 0;
}
