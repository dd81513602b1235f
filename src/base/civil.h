/*
 * civil.h — civil dates and UTC timestamps without the C library's time zone
 * machinery: days since 1970-01-01 from a proleptic Gregorian date and back, and
 * microsecond timestamps as the text PostgreSQL reads and prints.
 */
#ifndef FLOE_BASE_CIVIL_H
#define FLOE_BASE_CIVIL_H

#include <stddef.h>
#include <stdint.h>

/* Days since 1970-01-01 for a civil date, and back (Howard Hinnant's algorithms). */
int64_t floe_days_from_civil(int y, int m, int d);
void floe_civil_from_days(int64_t days, int *y, int *m, int *d);

/* Longest text the formatters write, NUL included. */
#define FLOE_CIVIL_TEXT_MAX 40

/*
 * Microseconds since the epoch as "YYYY-MM-DD HH:MM:SS.ffffff", with "+00" appended
 * when `utc` (a timestamptz in UTC); days as "YYYY-MM-DD". Years outside 1..9999 are
 * written with as many digits as they need (and a leading '-' before year 1 — not
 * PostgreSQL's BC form: callers that hand the text to PostgreSQL keep to 1..9999).
 * Returns the length written to `out` (NUL-terminated).
 */
size_t floe_civil_format_micros(char out[FLOE_CIVIL_TEXT_MAX], int64_t micros, int utc);
size_t floe_civil_format_days(char out[FLOE_CIVIL_TEXT_MAX], int64_t days);

/*
 * Parse what the formatters write (the fraction may have 0–6 digits; "+00" or "Z"
 * may end a timestamp) back into microseconds or days. Returns -1 on anything else.
 */
int floe_civil_parse_micros(int64_t *out, const char *text);
int floe_civil_parse_days(int64_t *out, const char *text);

#endif
