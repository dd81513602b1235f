/*
 * test_text.c — edit distance and suggestions.
 */
#include "harness.h"
#include "base/text.h"

FLOE_TEST(text_edit_distance_counts_swaps_as_one)
{
	FLOE_CHECK(floe_text_edit_distance("hots", "host") == 1);
	FLOE_CHECK(floe_text_edit_distance("sourse", "source") == 1);
	FLOE_CHECK(floe_text_edit_distance("", "abc") == 3);
	FLOE_CHECK(floe_text_edit_distance("Source", "source") == 0);
}

FLOE_TEST(text_suggest_only_plausible_typos)
{
	static const char *const keys[] = { "host", "port", "database", "user", NULL };
	FLOE_CHECK_STR(floe_text_suggest("hots", keys), "host");
	FLOE_CHECK_STR(floe_text_suggest("databse", keys), "database");
	FLOE_CHECK(floe_text_suggest("warehouse", keys) == NULL);
}

FLOE_TEST(text_parse_int64_is_strict)
{
	int64_t v = 0;
	FLOE_CHECK(floe_text_parse_int64(&v, "5432", 4, 1, 65535) == 0 && v == 5432);
	FLOE_CHECK(floe_text_parse_int64(&v, "70000", 5, 1, 65535) < 0);
	FLOE_CHECK(floe_text_parse_int64(&v, "12x", 3, 0, 100) < 0);
	FLOE_CHECK(floe_text_parse_int64(&v, "", 0, 0, 100) < 0);
	FLOE_CHECK(floe_text_parse_int64(&v, "-9223372036854775808", 20, INT64_MIN, INT64_MAX) == 0 &&
		   v == INT64_MIN);
	FLOE_CHECK(floe_text_parse_int64(&v, "9223372036854775808", 19, INT64_MIN, INT64_MAX) < 0);
}
