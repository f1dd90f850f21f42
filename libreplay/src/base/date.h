/*
 * Private: the one date converter of the library (seconds since 1970 UTC
 * and the civil date, proleptic Gregorian, no time zone involved). The
 * notation's [Start] tag (rpl_notation_time_format and _parse, defined in
 * date.c) and the export's dates both go through it.
 */
#ifndef RPL_DATE_H
#define RPL_DATE_H

#include <stddef.h>
#include <stdint.h>

/* Room for "YYYY-MM-DDTHH:MM:SSZ" of any int64 t (a year of more than four digits, or negative, included). */
#define RPL__DATE_SIZE 48

/*
 * "YYYY-MM-DDTHH:MM:SSZ" for t seconds since 1970-01-01T00:00:00Z, into buf
 * of size bytes (cut at size, as snprintf cuts). Defined for every int64 t;
 * the years 0000 to 9999 (RPL_MIN_START_TIME..RPL_MAX_START_TIME) take 20
 * characters.
 */
void rpl__date_format(int64_t t, char *buf, size_t size);

#endif
