/*
 * test_sqlparse.c — libpg_query through floe: trees as JSON documents, errors
 * in the chain, and the scanner's tokens (decoded from protobuf).
 */
#include "harness.h"
#include "base/arena.h"
#include "base/error.h"
#include "sqlparse/sqlparse.h"

FLOE_TEST(sqlparse_sql_tree)
{
	floe_json_doc *doc = NULL;
	FLOE_CHECK(floe_sqlparse_sql(&doc, "select now()") == 0);
	const floe_json_value *stmts = floe_json_get(floe_json_root(doc), "stmts");
	FLOE_CHECK(floe_json_count(stmts) == 1);
	const floe_json_value *sel = floe_json_get(floe_json_get(floe_json_value_at(stmts, 0), "stmt"),
						   "SelectStmt");
	FLOE_CHECK(sel != NULL);
	floe_json_free(doc);
}

FLOE_TEST(sqlparse_sql_error_has_position)
{
	floe_json_doc *doc = NULL;
	FLOE_CHECK(floe_sqlparse_sql(&doc, "select from where") < 0);
	FLOE_CHECK(doc == NULL);
	const floe_error *e = floe_error_last();
	FLOE_CHECK(e && strstr(e->message, "syntax error") && e->detail && strstr(e->detail, "byte"));
	floe_error_clear();
}

FLOE_TEST(sqlparse_plpgsql_tree)
{
	floe_json_doc *doc = NULL;
	FLOE_CHECK(floe_sqlparse_plpgsql(&doc, "CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS "
					       "$$BEGIN NEW.x := now(); RETURN NEW; END$$") == 0);
	const floe_json_value *fn = floe_json_get(floe_json_value_at(floe_json_root(doc), 0),
						  "PLpgSQL_function");
	FLOE_CHECK(fn && floe_json_get(fn, "action") && floe_json_get(fn, "new_varno"));
	floe_json_free(doc);
}

FLOE_TEST(sqlparse_scan_tokens_and_offsets)
{
	floe_arena *a = floe_arena_new();
	floe_sqltok *t = NULL;
	size_t n = 0;
	const char *s = "NEW.\"Up At\"[1] /* c */ := now() -- x";
	FLOE_CHECK(floe_sqlparse_scan(&t, &n, a, s) == 0);
	FLOE_CHECK(n == 10);
	if (n == 10) {
		FLOE_CHECK(t[0].kind == FLOE_SQLTOK_WORD && t[0].start == 0 && t[0].end == 3);
		FLOE_CHECK(t[1].kind == FLOE_SQLTOK_DOT);
		FLOE_CHECK(t[2].kind == FLOE_SQLTOK_WORD && t[2].start == 4 && t[2].end == 11);
		FLOE_CHECK(t[3].kind == FLOE_SQLTOK_OPEN && t[5].kind == FLOE_SQLTOK_CLOSE);
		FLOE_CHECK(t[6].kind == FLOE_SQLTOK_ASSIGN && t[6].start == 23 && t[6].end == 25);
		FLOE_CHECK(t[7].kind == FLOE_SQLTOK_WORD);
	}
	FLOE_CHECK(floe_sqlparse_scan(&t, &n, a, "x = 1") == 0 && n == 3 && t[1].kind == FLOE_SQLTOK_ASSIGN);
	floe_arena_free(a);
}
