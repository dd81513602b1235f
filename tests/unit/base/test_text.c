/*
 * test_text.c — edit distance and suggestions.
 */
#include "harness.h"
#include "base/text.h"

#include <stdlib.h>

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

FLOE_TEST(text_printable_escapes_controls_and_invalid_bytes)
{
	char *s = floe_text_printable("a\nb\x1b[31mc\\d\te\x7f");
	FLOE_CHECK_STR(s, "a\\nb\\e[31mc\\\\d\\te\\x7f");
	free(s);
	s = floe_text_printable("caf\xc3\xa9 \xc2\x9b" "x \xff");
	FLOE_CHECK_STR(s, "caf\xc3\xa9 \\u{009b}x \\xff");
	free(s);
	s = floe_text_printable("orders");
	FLOE_CHECK_STR(s, "orders");
	free(s);
}

FLOE_TEST(text_printable_padded_counts_shown_characters)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_text_put_printable_padded(&b, "a\nß", 6); /* shown as a\nß: 4 characters */
	FLOE_CHECK_STR(floe_buf_cstr(&b), "a\\nß  ");
	floe_buf_clear(&b);
	floe_text_put_printable_padded(&b, "longer", 2);
	FLOE_CHECK_STR(floe_buf_cstr(&b), "longer");
	floe_buf_free(&b);
}
