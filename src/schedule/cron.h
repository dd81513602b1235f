/*
 * cron.h — five-field cron expressions (minute hour day-of-month month day-of-week),
 * with the semantics of Vixie cron / cronie, always in UTC:
 *
 *   - each field: `*`, a number, a range `a-b`, a step (`*` or a range, then `/n`: `a-b/n`) or `a/n` (a to the
 *     field's end), and comma lists of these; months jan–dec and days sun–sat by name
 *     (any case; names may also bound a range); day-of-week 0–7, 0 and 7 both Sunday;
 *   - day of month and day of week: when both are restricted, a day matching EITHER
 *     runs (`30 4 1,15 * 5` = the 1st, the 15th and every Friday); when either starts
 *     with `*`, both must match;
 *   - an expression no date can match (`0 0 31 2 *`, `0 0 30 2 *`) is refused when
 *     parsed; `0 0 29 2 *` is valid (it runs in leap years).
 *
 * Times are unix seconds; no time zone, no daylight saving time: UTC.
 */
#ifndef FLOE_SCHEDULE_CRON_H
#define FLOE_SCHEDULE_CRON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct floe_cron {
	uint64_t minutes;      /* bit m: minute m */
	uint32_t hours;        /* bit h */
	uint32_t days;         /* bit d: day of month d (1–31) */
	uint16_t months;       /* bit m: month m (1–12) */
	uint8_t weekdays;      /* bit w: day of week w (0 Sunday – 6) */
	bool days_star, weekdays_star; /* the field starts with `*` (unrestricted for the OR rule) */
} floe_cron;

/*
 * Parse `text`. On error returns -1 and writes why (lower case, naming the field) into
 * `why` (why_size bytes); sets no floe error (the caller says where the text came from).
 */
int floe_cron_parse(floe_cron *out, const char *text, char *why, size_t why_size);

/* The first time after `after` (strictly) the expression matches, on a whole minute; -1 when none. */
int64_t floe_cron_next(const floe_cron *cron, int64_t after);

/* Whether the expression matches the minute holding `t`. */
bool floe_cron_matches(const floe_cron *cron, int64_t t);

#endif
