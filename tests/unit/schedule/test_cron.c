/*
 * test_cron.c — cron expressions: fields, names, steps, the day-of-month/day-of-week OR
 * rule, month ends, leap days, impossible expressions, and next times in UTC.
 */
#include "harness.h"
#include "schedule/cron.h"

#include <string.h>
#include <time.h>

/* Unix seconds of a UTC date and time. */
static int64_t utc(int y, int mo, int d, int h, int mi)
{
	struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h, .tm_min = mi };
	return (int64_t)timegm(&tm);
}

static int64_t next_of(const char *expr, int64_t after)
{
	floe_cron c;
	char why[160];
	if (floe_cron_parse(&c, expr, why, sizeof(why)) < 0)
		return -2;
	return floe_cron_next(&c, after);
}

static bool refused(const char *expr, const char *why_has)
{
	floe_cron c;
	char why[160] = "";
	return floe_cron_parse(&c, expr, why, sizeof(why)) < 0 && strstr(why, why_has) != NULL;
}

FLOE_TEST(cron_hourly_and_steps)
{
	FLOE_CHECK(next_of("0 * * * *", utc(2027, 3, 1, 10, 0)) == utc(2027, 3, 1, 11, 0));
	FLOE_CHECK(next_of("0 * * * *", utc(2027, 3, 1, 10, 59)) == utc(2027, 3, 1, 11, 0));
	FLOE_CHECK(next_of("*/15 * * * *", utc(2027, 3, 1, 10, 0)) == utc(2027, 3, 1, 10, 15));
	FLOE_CHECK(next_of("*/15 * * * *", utc(2027, 3, 1, 10, 50)) == utc(2027, 3, 1, 11, 0));
	FLOE_CHECK(next_of("*/15 * * * *", utc(2027, 3, 1, 10, 14) + 59) == utc(2027, 3, 1, 10, 15));
	FLOE_CHECK(next_of("5-20/5 * * * *", utc(2027, 3, 1, 10, 20)) == utc(2027, 3, 1, 11, 5));
	FLOE_CHECK(next_of("50/5 * * * *", utc(2027, 3, 1, 10, 56)) == utc(2027, 3, 1, 11, 50));
	FLOE_CHECK(next_of("0,30 9-17 * * *", utc(2027, 3, 1, 17, 30)) == utc(2027, 3, 2, 9, 0));
	FLOE_CHECK(next_of("* * * * *", utc(2027, 12, 31, 23, 59)) == utc(2028, 1, 1, 0, 0));
}

FLOE_TEST(cron_or_rule_when_both_days_are_restricted)
{
	/* 2027-03-01 is a Monday: the 15th (a Monday) and every Friday (the 5th) both run. */
	int64_t t = utc(2027, 3, 1, 5, 0);
	FLOE_CHECK(next_of("30 4 1,15 * 5", t) == utc(2027, 3, 5, 4, 30));
	FLOE_CHECK(next_of("30 4 1,15 * 5", utc(2027, 3, 12, 5, 0)) == utc(2027, 3, 15, 4, 30));
	/* 2027-01-01 is a Friday: `0 0 13 * 5` runs on Fridays too, so the 8th comes before the 13th. */
	FLOE_CHECK(next_of("0 0 13 * 5", utc(2027, 1, 1, 0, 0)) == utc(2027, 1, 8, 0, 0));
	/* A field starting with `*` counts as unrestricted: both must match (a Sunday the 13th). */
	FLOE_CHECK(next_of("0 0 13 * */7", utc(2027, 1, 1, 0, 0)) == utc(2027, 6, 13, 0, 0));
	FLOE_CHECK(next_of("0 0 * * 5", utc(2027, 3, 1, 0, 0)) == utc(2027, 3, 5, 0, 0));
	/* `*` in day of week: only the 13th, of any weekday. */
	FLOE_CHECK(next_of("0 0 13 * *", utc(2027, 1, 1, 0, 0)) == utc(2027, 1, 13, 0, 0));
}

FLOE_TEST(cron_names_and_sunday_as_seven)
{
	/* 2027-03-07 is a Sunday. */
	FLOE_CHECK(next_of("0 12 * * 7", utc(2027, 3, 1, 0, 0)) == utc(2027, 3, 7, 12, 0));
	FLOE_CHECK(next_of("0 12 * * 0", utc(2027, 3, 1, 0, 0)) == utc(2027, 3, 7, 12, 0));
	FLOE_CHECK(next_of("0 12 * * SUN", utc(2027, 3, 1, 0, 0)) == utc(2027, 3, 7, 12, 0));
	FLOE_CHECK(next_of("0 12 * * mon-fri", utc(2027, 3, 6, 0, 0)) == utc(2027, 3, 8, 12, 0));
	FLOE_CHECK(next_of("0 0 1 jun *", utc(2027, 3, 1, 0, 0)) == utc(2027, 6, 1, 0, 0));
	FLOE_CHECK(next_of("0 0 1 Jan,jul *", utc(2027, 3, 1, 0, 0)) == utc(2027, 7, 1, 0, 0));
	FLOE_CHECK(next_of("0 0 * * 5-7", utc(2027, 3, 1, 0, 0)) == utc(2027, 3, 5, 0, 0));
}

FLOE_TEST(cron_month_ends_and_leap_days)
{
	/* The 31st skips months without one. */
	FLOE_CHECK(next_of("0 0 31 * *", utc(2027, 1, 31, 0, 0)) == utc(2027, 3, 31, 0, 0));
	FLOE_CHECK(next_of("0 0 31 * *", utc(2027, 4, 1, 0, 0)) == utc(2027, 5, 31, 0, 0));
	FLOE_CHECK(next_of("0 0 30 * *", utc(2027, 1, 30, 0, 0)) == utc(2027, 3, 30, 0, 0));
	/* Feb 29 runs in leap years only; 2100 is no leap year. */
	FLOE_CHECK(next_of("0 0 29 2 *", utc(2027, 1, 1, 0, 0)) == utc(2028, 2, 29, 0, 0));
	FLOE_CHECK(next_of("0 0 29 2 *", utc(2096, 3, 1, 0, 0)) == utc(2104, 2, 29, 0, 0));
	FLOE_CHECK(next_of("59 23 28-29 2 *", utc(2027, 2, 28, 23, 59)) == utc(2028, 2, 28, 23, 59));
}

FLOE_TEST(cron_impossible_and_malformed_expressions_refused)
{
	FLOE_CHECK(refused("0 0 31 2 *", "matches no date"));
	FLOE_CHECK(refused("0 0 30 2 *", "matches no date"));
	FLOE_CHECK(refused("0 0 31 4,6,9,11 *", "matches no date"));
	FLOE_CHECK(!refused("0 0 31 2 1", "matches no date")); /* the OR rule: every Monday of February */
	FLOE_CHECK(next_of("0 0 31 2 1", utc(2027, 1, 1, 0, 0)) == utc(2027, 2, 1, 0, 0));
	FLOE_CHECK(refused("60 * * * *", "minute"));
	FLOE_CHECK(refused("* 24 * * *", "hour"));
	FLOE_CHECK(refused("* * 0 * *", "day of month"));
	FLOE_CHECK(refused("* * * 13 *", "month"));
	FLOE_CHECK(refused("* * * * 8", "day of week"));
	FLOE_CHECK(refused("*/0 * * * *", "step"));
	FLOE_CHECK(refused("5-1 * * * *", "backwards"));
	FLOE_CHECK(refused("* * * *", "fields"));
	FLOE_CHECK(refused("* * * * * *", "more than five"));
	FLOE_CHECK(refused("1,,2 * * * *", "empty"));
	FLOE_CHECK(refused("1, * * * *", "comma"));
	FLOE_CHECK(refused("x * * * *", "neither"));
	FLOE_CHECK(refused("* * * foo *", "neither"));
	FLOE_CHECK(refused("1- * * * *", "range"));
	FLOE_CHECK(refused("", "fields"));
}

FLOE_TEST(cron_matches_whole_minutes)
{
	floe_cron c;
	char why[160];
	FLOE_CHECK(floe_cron_parse(&c, "*/15 3 * * *", why, sizeof(why)) == 0);
	FLOE_CHECK(floe_cron_matches(&c, utc(2027, 5, 5, 3, 45) + 30));
	FLOE_CHECK(!floe_cron_matches(&c, utc(2027, 5, 5, 3, 46)));
	FLOE_CHECK(!floe_cron_matches(&c, utc(2027, 5, 5, 4, 0)));
}
