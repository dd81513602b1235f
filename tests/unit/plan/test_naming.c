/*
 * test_naming.c — bronze names, safe and stable file names for any table name,
 * and extraction queries a hostile name cannot break out of.
 */
#include "harness.h"
#include "base/arena.h"
#include "base/sha256.h"
#include "plan_fixture.h"

static bool safe_file(const char *f)
{
	if (strncmp(f, "bronze/", 7) != 0)
		return false;
	const char *stem = f + 7;
	size_t n = strlen(stem);
	if (n < 5 || strcmp(stem + n - 4, ".sql") != 0 || stem[0] == '.' || stem[0] == '-')
		return false;
	return strspn(stem, "abcdefghijklmnopqrstuvwxyz0123456789_-.") == n && !strstr(stem, "..");
}

FLOE_TEST(naming_bronze_names)
{
	floe_arena *a = floe_arena_new();
	FLOE_CHECK_STR(floe_plan_bronze_name(a, "public", "orders"), "bronze.orders");
	FLOE_CHECK_STR(floe_plan_bronze_name(a, "sales", "targets"), "bronze.sales__targets");
	FLOE_CHECK_STR(floe_plan_bronze_name(a, "My Schema", "Ord\"ers"), "bronze.My Schema__Ord\"ers");
	floe_arena_free(a);
}

FLOE_TEST(naming_plain_file_names_stay_readable)
{
	floe_arena *a = floe_arena_new();
	FLOE_CHECK_STR(floe_plan_file_name(a, "bronze.orders"), "bronze/orders.sql");
	FLOE_CHECK_STR(floe_plan_file_name(a, "bronze.sales__targets"), "bronze/sales__targets.sql");
	FLOE_CHECK_STR(floe_plan_file_name(a, "bronze.t_2024"), "bronze/t_2024.sql");
	floe_arena_free(a);
}

FLOE_TEST(naming_hostile_file_names_are_safe_unique_stable)
{
	static const char *const hostile[] = {
		"bronze.Orders", "bronze.orders ", "bronze.Order Items", "bronze.order_items",
		"bronze.../../etc/passwd", "bronze.a/b", "bronze.a\\b", "bronze.\xc3\xbc\xc3\xa9",
		"bronze.\xc3\x9c\xc3\xa9", "bronze.select", "bronze.x\ny", "bronze.\"quoted\"",
		"bronze.-rf", "bronze..hidden", "bronze.CON", "bronze.",
		"bronze.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1",
		"bronze.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa2",
	};
	size_t n = sizeof(hostile) / sizeof(hostile[0]);
	floe_arena *a = floe_arena_new();
	const char *files[32];
	for (size_t i = 0; i < n; i++) {
		files[i] = floe_plan_file_name(a, hostile[i]);
		FLOE_CHECK(safe_file(files[i]));
		if (!safe_file(files[i]))
			fprintf(stderr, "    unsafe: %s\n", files[i]);
		FLOE_CHECK_STR(floe_plan_file_name(a, hostile[i]), files[i]); /* stable */
		for (size_t j = 0; j < i; j++)
			FLOE_CHECK(strcasecmp(files[i], files[j]) != 0); /* unique, even case-insensitively */
	}
	char hex[FLOE_SHA256_HEX_LEN + 1];
	floe_sha256_hex(hex, "bronze.Order Items", strlen("bronze.Order Items"));
	FLOE_CHECK_STR(floe_plan_file_name(a, "bronze.Order Items"),
		       floe_arena_printf(a, "bronze/order_items-%.12s.sql", hex));
	FLOE_CHECK(strncmp(floe_plan_file_name(a, "bronze.\xc3\xbc"), "bronze/table-", 13) == 0);
	floe_arena_free(a);
}

FLOE_TEST(naming_extraction_sql_quotes_and_comments)
{
	floe_arena *a = floe_arena_new();
	floe_pg_relation rel;
	fx_table(a, &rel, "public", "bad\xc2\x85name"); /* U+0085, NEL: a line break to some readers */
	rel.quoted = "public.\"bad\xc2\x85name\"";
	floe_pg_column *c = fx_column(a, &rel, "Order Id", 1, fx_type(a, "int4"));
	c->quoted = "\"Order Id\"";
	c = fx_column(a, &rel, "doc", 2, fx_type(a, "jsonb"));
	fx_key(&rel, "Order Id");
	floe_plan *plan = fx_plan(a, &rel, 1, "");
	const floe_plan_table *t = floe_plan_at(plan, 0);
	FLOE_CHECK(t->sql != NULL);
	if (t->sql) {
		FLOE_CHECK(strstr(t->sql, "-- bronze.bad\\u{0085}name: the extraction query of public.bad\\u{0085}name,"));
		FLOE_CHECK(strstr(t->sql, "SELECT\n    \"Order Id\",\n    \"doc\"::text AS \"doc\"\n"
					  "FROM public.\"bad\xc2\x85name\"\n"));
		/* Every line that is not SQL is a whole comment. */
		int comment_lines = 0;
		for (const char *p = t->sql; *p; p = strchr(p, '\n') + 1) {
			comment_lines += strncmp(p, "--", 2) == 0;
			if (!strchr(p, '\n'))
				break;
		}
		FLOE_CHECK(comment_lines == 3);
	}
	floe_plan_free(plan);
}

/* Names an Iceberg table name cannot hold are refused in the plan, with the reason. */
FLOE_TEST(naming_iceberg_cannot_hold_refused)
{
	static const char *const bad[] = { "a.b", "a/b", "new\nline", "esc\x1b[31m", "del\x7f" };
	static const char *const why[] = { "'.'", "'/'", "control character", "control character",
					   "control character" };
	floe_arena *a = floe_arena_new();
	floe_pg_relation rel[5];
	for (size_t i = 0; i < 5; i++) {
		fx_table(a, &rel[i], "public", bad[i]);
		fx_key(rel + i, fx_column(a, &rel[i], "id", 1, fx_type(a, "int4"))->name);
	}
	floe_plan *plan = fx_plan(a, rel, 5, "");
	for (size_t i = 0; i < 5; i++) {
		const floe_plan_table *t = floe_plan_at(plan, i);
		FLOE_CHECK(t->mode == FLOE_LOAD_REFUSED && t->sql == NULL);
		FLOE_CHECK(strstr(t->reason, why[i]) && strstr(t->reason, "Iceberg table name"));
	}
	FLOE_CHECK(floe_plan_name_problem(a, "bronze.h__a\xc2\x9b") == NULL); /* C1: Iceberg takes it */
	FLOE_CHECK(floe_plan_same_name("bronze.h__CamelCase", "bronze.h__camelcase"));
	FLOE_CHECK(!floe_plan_same_name("bronze.h__camelcase", "bronze.h__camelcase2"));
	FLOE_CHECK(!floe_plan_same_name("bronze.\xc3\x84", "bronze.\xc3\xa4"));
	floe_plan_free(plan);
}
