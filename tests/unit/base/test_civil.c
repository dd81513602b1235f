/*
 * test_civil.c — civil dates and timestamp text.
 */
#include "harness.h"
#include "base/civil.h"

FLOE_TEST(civil_days_round_trip)
{
	FLOE_CHECK(floe_days_from_civil(1970, 1, 1) == 0);
	FLOE_CHECK(floe_days_from_civil(2000, 3, 1) == 11017);
	FLOE_CHECK(floe_days_from_civil(1969, 12, 31) == -1);
	for (int64_t d = -800000; d < 800000; d += 997) {
		int y, m, dd;
		floe_civil_from_days(d, &y, &m, &dd);
		FLOE_CHECK(floe_days_from_civil(y, m, dd) == d);
	}
}

FLOE_TEST(civil_timestamp_text_round_trips)
{
	char text[FLOE_CIVIL_TEXT_MAX];
	int64_t v = 0;
	int64_t t = INT64_C(1764485480123456); /* 2025-11-30 06:51:20.123456 UTC */
	floe_civil_format_micros(text, t, 1);
	FLOE_CHECK_STR(text, "2025-11-30 06:51:20.123456+00");
	FLOE_CHECK(floe_civil_parse_micros(&v, text) == 0 && v == t);
	floe_civil_format_micros(text, -1, 0);
	FLOE_CHECK_STR(text, "1969-12-31 23:59:59.999999");
	FLOE_CHECK(floe_civil_parse_micros(&v, text) == 0 && v == -1);
	FLOE_CHECK(floe_civil_parse_micros(&v, "2025-11-30T06:51:20Z") == 0 && v == t - 123456);
	FLOE_CHECK(floe_civil_parse_micros(&v, "2025-11-30 06:51:20.5") == 0 && v == t - 123456 + 500000);
	FLOE_CHECK(floe_civil_parse_micros(&v, "2025-02-29 00:00:00") < 0);
	FLOE_CHECK(floe_civil_parse_micros(&v, "2025-11-30 24:00:00") < 0);
	FLOE_CHECK(floe_civil_parse_micros(&v, "2025-11-30 06:51:20.1234567") < 0);
	FLOE_CHECK(floe_civil_parse_micros(&v, "2025-11-30 06:51:20+01") < 0);
	FLOE_CHECK(floe_civil_parse_micros(&v, "") < 0);
	floe_civil_format_days(text, 20422);
	FLOE_CHECK_STR(text, "2025-11-30");
	FLOE_CHECK(floe_civil_parse_days(&v, "2025-11-30") == 0 && v == 20422);
	FLOE_CHECK(floe_civil_parse_days(&v, "2025-11-30 ") < 0);
}
