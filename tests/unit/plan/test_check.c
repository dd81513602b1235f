/*
 * test_check.c — CHECK constraints as silver tests them: accepted_values from IN
 * lists and = ANY (ARRAY[…]) (as pg_get_expr prints them), row rules in DuckDB SQL,
 * and the reason for each expression left out.
 */
#include "harness.h"
#include "base/arena.h"
#include "plan/plan_int.h"
#include "plan_fixture.h"

static floe_plan_check classify(floe_arena *a, const char *expression)
{
	floe_pg_relation rel;
	fx_table(a, &rel, "public", "t");
	const char *names[] = { "price", "lat", "payment_type", "a", "b", "name", "qty", "say \"hi\"" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		fx_column(a, &rel, names[i], (int)i + 1, fx_type(a, "int4"));
	floe_pg_check check = { "t_check", floe_arena_printf(a, "CHECK (%s)", expression), expression, true };
	floe_plan_check out;
	floe_plan_check_classify(&out, a, &check, &rel);
	return out;
}

FLOE_TEST(check_becomes_accepted_values)
{
	floe_arena *a = floe_arena_new();
	floe_plan_check c = classify(a, "((payment_type)::text = ANY ((ARRAY['credit_card'::character varying, "
				     "'it''s'::character varying])::text[]))");
	FLOE_CHECK_STR(c.kind, "accepted_values");
	FLOE_CHECK_STR(c.column, "payment_type");
	FLOE_CHECK(c.n_values == 2 && c.quote);
	FLOE_CHECK_STR(c.values[1], "it's");
	c = classify(a, "(qty = ANY (ARRAY[0, 2, 5]))");
	FLOE_CHECK_STR(c.kind, "accepted_values");
	FLOE_CHECK(c.n_values == 3 && !c.quote);
	FLOE_CHECK_STR(c.values[0], "0"); /* libpg_query drops a zero ival: still 0 */
	c = classify(a, "(qty IN (1, 2))");
	FLOE_CHECK_STR(c.kind, "accepted_values");
	floe_arena_free(a);
}

FLOE_TEST(check_becomes_a_duckdb_row_rule)
{
	floe_arena *a = floe_arena_new();
	floe_plan_check c = classify(a, "((lat >= ('-90'::integer)::double precision) AND (lat <= "
				     "('90'::integer)::double precision))");
	FLOE_CHECK_STR(c.kind, "row_rule");
	FLOE_CHECK_STR(c.expression, "((\"lat\" >= CAST(CAST('-90' AS INTEGER) AS DOUBLE)) AND "
				     "(\"lat\" <= CAST(CAST('90' AS INTEGER) AS DOUBLE)))");
	FLOE_CHECK(c.n_columns == 1);
	c = classify(a, "(price >= (0)::numeric)");
	FLOE_CHECK_STR(c.expression, "(\"price\" >= 0)");
	c = classify(a, "((length((name)::text) > 0) OR (NOT (a IS NULL)) OR (b <> ALL (ARRAY[1, 2])))");
	FLOE_CHECK_STR(c.expression, "((length(CAST(\"name\" AS VARCHAR)) > 0) OR (NOT (\"a\" IS NULL)) OR "
				     "(\"b\" NOT IN (1, 2)))");
	FLOE_CHECK(c.n_columns == 3);
	c = classify(a, "((a + (b * '-2'::integer)) % 3 = 0 AND \"say \"\"hi\"\"\" IS NOT NULL)");
	FLOE_CHECK_STR(c.expression, "((((\"a\" + (\"b\" * CAST('-2' AS INTEGER))) % 3) = 0) AND "
				     "(\"say \"\"hi\"\"\" IS NOT NULL))");
	c = classify(a, "(price::numeric(10,2) > 1.5)");
	FLOE_CHECK_STR(c.expression, "(CAST(\"price\" AS DECIMAL(10, 2)) > 1.5)");
	floe_arena_free(a);
}

FLOE_TEST(check_left_out_says_why)
{
	floe_arena *a = floe_arena_new();
	FLOE_CHECK(strstr(classify(a, "((name)::text ~ '^[a-z]+$'::text)").why_not, "operator ~"));
	FLOE_CHECK(strstr(classify(a, "((a / 2) > 1)").why_not, "divides"));
	FLOE_CHECK(strstr(classify(a, "(is_valid(name))").why_not, "calls is_valid()"));
	FLOE_CHECK(strstr(classify(a, "(other_table_col > 0)").why_not, "other than a column"));
	FLOE_CHECK(strstr(classify(a, "(CASE WHEN a > 0 THEN true ELSE false END)").why_not, "CaseExpr"));
	FLOE_CHECK(strstr(classify(a, "((a)::money > (0)::money)").why_not, "casts to money"));
	FLOE_CHECK(!classify(a, "((a)::money > (0)::money)").kind);
	floe_arena_free(a);
}
