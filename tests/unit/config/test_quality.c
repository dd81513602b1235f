/*
 * test_quality.c — quality/<name>.toml: every kind read, and shape errors with file:line:col.
 */
#include "harness.h"
#include "base/arena.h"
#include "base/error.h"
#include "config/quality.h"

static const char *parse_error(floe_arena *a, const char *text)
{
	floe_quality_rule *r = NULL;
	size_t n = 0;
	floe_error_clear();
	if (floe_quality_parse(&r, &n, a, "quality/q.toml", text, strlen(text)) == 0)
		return "";
	const char *msg = floe_arena_strdup(a, floe_error_last()->message);
	floe_error_clear();
	return msg;
}

FLOE_TEST(quality_rules_of_every_kind)
{
	floe_arena *a = floe_arena_new();
	const char *text = "[[rule]]\ntable = \"public.order_items\"\nkind = \"range\"\ncolumns = [\"price\"]\n"
			   "min = 0\nmax = 10000.5\nseverity = \"warn\"\n\n"
			   "[[rule]]\ntable = \"public.customers\"\nkind = \"regex\"\ncolumns = [\"customer_email\"]\n"
			   "pattern = '^[^@]+@[^@]+$'\n\n"
			   "[[rule]]\ntable = \"public.orders\"\nkind = \"row_count\"\nmin = 1\nname = \"orders_exist\"\n\n"
			   "[[rule]]\ntable = \"public.orders\"\nkind = \"freshness\"\ncolumns = [\"updated_at\"]\n"
			   "max_age_seconds = 86400\n\n"
			   "[[rule]]\ntable = \"public.payments\"\nkind = \"accepted_values\"\ncolumns = [\"payment_installments\"]\n"
			   "values = [1, 2, 3]\n\n"
			   "[[rule]]\ntable = \"public.customers\"\nkind = \"unique\"\ncolumns = [\"customer_email\", \"customer_city\"]\n";
	floe_quality_rule *r = NULL;
	size_t n = 0;
	FLOE_CHECK(floe_quality_parse(&r, &n, a, "quality/q.toml", text, strlen(text)) == 0);
	FLOE_CHECK(n == 6);
	if (n == 6) {
		FLOE_CHECK_STR(r[0].kind, "range");
		FLOE_CHECK_STR(r[0].schema, "public");
		FLOE_CHECK_STR(r[0].table, "order_items");
		FLOE_CHECK_STR(r[0].min, "0");
		FLOE_CHECK_STR(r[0].max, "10000.5");
		FLOE_CHECK_STR(r[0].severity, "warn");
		FLOE_CHECK(r[0].line == 1 && r[0].col == 1);
		FLOE_CHECK_STR(r[1].pattern, "^[^@]+@[^@]+$");
		FLOE_CHECK_STR(r[1].severity, "error");
		FLOE_CHECK_STR(r[2].name, "orders_exist");
		FLOE_CHECK(r[3].max_age_seconds == 86400);
		FLOE_CHECK(r[4].n_values == 3 && !r[4].quote);
		FLOE_CHECK(r[5].n_columns == 2);
	}
	floe_arena_free(a);
}

FLOE_TEST(quality_errors_say_where)
{
	floe_arena *a = floe_arena_new();
	FLOE_CHECK_STR(parse_error(a, "[[rule]]\ntable = \"public.t\"\nkind = \"range\"\ncolumns = [\"a\"]\nmin = 0\n"
				      "maximum = 3\n"),
		       "quality/q.toml:6:1: unknown key `maximum` in a range [[rule]]");
	FLOE_CHECK_STR(parse_error(a, "[[rule]]\ntable = \"public.t\"\nkind = \"between\"\n"),
		       "quality/q.toml:3:8: unknown kind \"between\": one of range, regex, not_null, accepted_values, "
		       "row_count, freshness, unique");
	FLOE_CHECK_STR(parse_error(a, "[[rule]]\ntable = \"t\"\nkind = \"unique\"\ncolumns = [\"a\"]\n"),
		       "quality/q.toml:2:9: `table` must name a table as \"schema.table\"");
	FLOE_CHECK_STR(parse_error(a, "[[rule]]\ntable = \"public.t\"\nkind = \"range\"\ncolumns = [\"a\"]\n"),
		       "quality/q.toml:1:1: a range rule needs `min`, `max` or both");
	FLOE_CHECK_STR(parse_error(a, "[[rule]]\ntable = \"public.t\"\nkind = \"unique\"\ncolumns = [\"a\"]\n"
				      "severity = \"fatal\"\n"),
		       "quality/q.toml:5:12: `severity` must be \"error\" or \"warn\"");
	FLOE_CHECK_STR(parse_error(a, "[[rule]]\ntable = \"public.t\"\nkind = \"row_count\"\nmin = 1.5\n"),
		       "quality/q.toml:4:7: `min` must be an integer");
	FLOE_CHECK_STR(parse_error(a, "[rules]\n"), "quality/q.toml:1:2: unknown key `rules`: a quality file holds "
						    "[[rule]] tables");
	FLOE_CHECK(strstr(parse_error(a, "[[rule]]\nkind = \n"), "quality/q.toml:2:"));
	floe_arena_free(a);
}
