/*
 * test_reconcile.c — reconciliation's pieces without a database: the column model,
 * the canonical forms and row hashes DuckDB computes (checked against what PostgreSQL
 * 15 produced for the same values with the source-side SQL), bucket counts, the
 * comparison's rules (float tolerance, spellings of NaN and infinity, buckets on one
 * side only), tiers and the control catalog.
 */
#include "harness.h"

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "engine/engine.h"
#include "reconcile/reconcile_int.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const floe_lock_type T_INT = { FLOE_PLAN_PRIMITIVE, "int", 0, false, NULL, NULL, 0 };
static const floe_lock_type T_STRING = { FLOE_PLAN_PRIMITIVE, "string", 0, false, NULL, NULL, 0 };
static const floe_lock_type T_DOUBLE = { FLOE_PLAN_PRIMITIVE, "double", 0, false, NULL, NULL, 0 };
static const floe_lock_type T_DEC = { FLOE_PLAN_PRIMITIVE, "decimal(5,5)", 0, false, NULL, NULL, 0 };
static const floe_lock_type T_LIST = { FLOE_PLAN_LIST, NULL, 9, false, &T_STRING, NULL, 0 };

/* A full-mode lock table public.<name> of `cols`, keyed by `key`. */
static floe_lock_table *table_of(floe_arena *a, const char *name, floe_lock_column *cols, size_t n, const char *key)
{
	floe_lock_table *t = floe_arena_alloc(a, sizeof(*t));
	const char **keys = floe_arena_alloc(a, sizeof(char *));
	keys[0] = key;
	memset(t, 0, sizeof(*t));
	t->schema = "public";
	t->name = name;
	t->bronze = floe_arena_printf(a, "bronze.%s", name);
	t->mode = FLOE_LOAD_FULL;
	t->key = keys;
	t->n_key = 1;
	t->columns = cols;
	t->n_columns = n;
	return t;
}

/* A lock table: id int (key), name string, f double, d decimal(5,5), tags list<string>. */
static floe_lock_table *lock_table(floe_arena *a, const char *key)
{
	static floe_lock_column cols[] = {
		{ 1, "id", 1, "integer", "exact", true, &T_INT },
		{ 2, "name", 2, "text", "exact", false, &T_STRING },
		{ 3, "f", 3, "double precision", "exact", false, &T_DOUBLE },
		{ 4, "d", 4, "numeric(5,5)", "exact", false, &T_DEC },
		{ 5, "tags", 5, "text[]", "exact", false, &T_LIST },
	};
	return table_of(a, "t", cols, 5, key);
}

static const uint32_t OIDS[] = { 23, 25, 701, 1700, 1009 };
static const uint32_t ELEMS[] = { 0, 0, 0, 0, 25 };

FLOE_TEST(reconcile_columns_keys_and_exclusions)
{
	floe_arena *a = floe_arena_new();
	rc_table t;
	FLOE_CHECK(rc_table_build(&t, a, lock_table(a, "id"), OIDS, ELEMS, 5) == 0);
	FLOE_CHECK(!t.key_is_row && t.cols[0].key && !t.cols[1].key);
	FLOE_CHECK_STR(t.cols[0].ident, "c1");
	FLOE_CHECK(t.cols[2].type.kind == RC_DOUBLE && t.cols[2].hashed && !t.cols[2].excluded);
	FLOE_CHECK(t.cols[3].type.kind == RC_DECIMAL && t.cols[3].type.precision == 5 && t.cols[3].type.scale == 5);
	FLOE_CHECK_STR(t.cols[4].duck_type, "VARCHAR[]");
	/* A float key cannot be listed as text both engines print alike: buckets hash the whole row. */
	FLOE_CHECK(rc_table_build(&t, a, lock_table(a, "f"), OIDS, ELEMS, 5) == 0);
	FLOE_CHECK(t.key_is_row);
	/* The query and the plan must agree on the columns. */
	FLOE_CHECK(rc_table_build(&t, a, lock_table(a, "id"), OIDS, ELEMS, 4) < 0);
	FLOE_CHECK(floe_error_last() && floe_error_last()->cls == FLOE_ERR_CONFIG);
	floe_error_clear();
	floe_arena_free(a);
}

/* DuckDB's canonical text of a literal, through the engine. */
static void check_duck(floe_engine *engine, const rc_type *type, const char *literal, const char *want)
{
	floe_buf sql = FLOE_BUF_INIT, out = FLOE_BUF_INIT;
	floe_buf_puts(&sql, "SELECT ");
	rc_canon(&sql, RC_DUCK, type, literal);
	if (floe_engine_query_text(engine, &out, floe_buf_cstr(&sql)) < 0) {
		floe_test_fail(__FILE__, __LINE__, floe_buf_cstr(&sql));
	} else if (strcmp(floe_buf_cstr(&out), want) != 0) {
		char msg[512];
		snprintf(msg, sizeof(msg), "%s gave \"%s\", PostgreSQL \"%s\"", literal, floe_buf_cstr(&out), want);
		floe_test_fail(__FILE__, __LINE__, msg);
	}
	floe_buf_free(&sql);
	floe_buf_free(&out);
}

FLOE_TEST(reconcile_duckdb_canonical_forms_match_postgres)
{
	floe_engine *engine = NULL;
	rc_type str = { .kind = RC_STRING }, dec = { .kind = RC_DECIMAL, .precision = 5, .scale = 5 };
	rc_type dec2 = { .kind = RC_DECIMAL, .precision = 12, .scale = 3 }, ts = { .kind = RC_TIMESTAMP };
	rc_type tz = { .kind = RC_TIMESTAMPTZ }, tm = { .kind = RC_TIME }, date = { .kind = RC_DATE };
	rc_type bin = { .kind = RC_BINARY }, b = { .kind = RC_BOOL }, list = { .kind = RC_LIST, .element = &str };
	FLOE_CHECK(floe_engine_open(&engine, NULL) == 0 && floe_engine_exec(engine, "SET TimeZone = 'UTC'") == 0);
	/* Each expected text is what the source-side SQL returned in PostgreSQL 15 for the same value. */
	check_duck(engine, &str, "'ünï'", "5:ünï");
	check_duck(engine, &str, "''", "0:");
	check_duck(engine, &dec, "0.00123::DECIMAL(5,5)", "0.00123");
	check_duck(engine, &dec, "-0.00001::DECIMAL(5,5)", "-0.00001");
	check_duck(engine, &dec2, "-0.001::DECIMAL(12,3)", "-0.001");
	check_duck(engine, &ts, "TIMESTAMP '1970-01-01'", "fffca2fec4c82000");
	check_duck(engine, &ts, "TIMESTAMP '1677-09-21 00:12:43.145225'", "ffdbde631ee4cc09");
	check_duck(engine, &ts, "TIMESTAMP '4713-01-01 (BC) 00:00:00'", "fd0f7fbdaf17e000");
	check_duck(engine, &ts, "TIMESTAMP 'infinity'", "7fffffffffffffff");
	check_duck(engine, &tz, "TIMESTAMPTZ '2024-02-29 12:34:56.789012+00'", "0002b58341728614");
	check_duck(engine, &tm, "TIME '24:00:00'", "000000141dd76000");
	check_duck(engine, &date, "DATE '2024-02-29'", "19782");
	check_duck(engine, &bin, "'\\x00\\xFF'::BLOB", "00ff");
	check_duck(engine, &b, "false", "f");
	check_duck(engine, &list, "['a', '', NULL, 'ünï']", "4:1:a,0:,N,5:ünï");
	check_duck(engine, &list, "[]::VARCHAR[]", "0:");
	/* floats in a list: each element's hashfloat8extended / hashfloat4extended (seed 0) */
	rc_type f8 = { .kind = RC_DOUBLE }, f4 = { .kind = RC_FLOAT };
	rc_type f8s = { .kind = RC_LIST, .element = &f8 }, f4s = { .kind = RC_LIST, .element = &f4 };
	check_duck(engine, &f8s, "[1.5, NULL, -0.0, 'NaN'::DOUBLE, 'Infinity'::DOUBLE]",
		   "5:6158159405676898674,N,0,4719788943832604568,-4973912021728129854");
	check_duck(engine, &f4s, "[1.1]::FLOAT[]", "1:-892871181807376535");
	floe_engine_close(engine);
}

/* ---- composite types: structs ---- */

static const floe_lock_type T_LONG = { FLOE_PLAN_PRIMITIVE, "long", 0, false, NULL, NULL, 0 };
static const floe_lock_type T_TSTZ = { FLOE_PLAN_PRIMITIVE, "timestamptz", 0, false, NULL, NULL, 0 };
static const floe_lock_type T_DEC2 = { FLOE_PLAN_PRIMITIVE, "decimal(10,2)", 0, false, NULL, NULL, 0 };
static const floe_lock_type T_UUID = { FLOE_PLAN_PRIMITIVE, "uuid", 0, false, NULL, NULL, 0 };
static const floe_lock_type T_BIN = { FLOE_PLAN_PRIMITIVE, "binary", 0, false, NULL, NULL, 0 };
static const floe_lock_type T_DATE = { FLOE_PLAN_PRIMITIVE, "date", 0, false, NULL, NULL, 0 };
static const floe_lock_type T_BOOL = { FLOE_PLAN_PRIMITIVE, "boolean", 0, false, NULL, NULL, 0 };
static const floe_lock_type T_INTS = { FLOE_PLAN_LIST, NULL, 99, false, &T_INT, NULL, 0 };

/* tests/it/test_bronze_composite.py's types: addr, geo, place, tagged, wrapper (field ids as its lock has them). */
static floe_lock_field F_ADDR[] = {
	{ 3, "street", false, &T_STRING }, { 4, "zip", false, &T_INT }, { 5, "tags", false, &T_LIST },
};
static const floe_lock_type T_ADDR = { FLOE_PLAN_STRUCT, NULL, 0, false, NULL, F_ADDR, 3 };
static floe_lock_field F_GEO[] = { { 15, "lat", false, &T_DOUBLE }, { 16, "lon", false, &T_DOUBLE } };
static const floe_lock_type T_GEO = { FLOE_PLAN_STRUCT, NULL, 0, false, NULL, F_GEO, 2 };
static floe_lock_field F_PLACE[] = {
	{ 8, "name", false, &T_STRING }, { 9, "at", false, &T_ADDR },      { 14, "pos", false, &T_GEO },
	{ 17, "since", false, &T_TSTZ }, { 18, "price", false, &T_DEC2 },  { 19, "id", false, &T_UUID },
	{ 20, "raw", false, &T_BIN },    { 21, "day", false, &T_DATE },    { 22, "ok", false, &T_BOOL },
	{ 23, "big", false, &T_LONG },   { 24, "small", false, &T_INT },
};
static const floe_lock_type T_PLACE = { FLOE_PLAN_STRUCT, NULL, 0, false, NULL, F_PLACE, 11 };
static floe_lock_field F_TAGGED[] = {
	{ 26, "label", false, &T_STRING }, { 27, "score", false, &T_INT }, { 28, "note", false, &T_STRING },
	{ 29, "n", false, &T_STRING },     { 30, "pts", false, &T_INTS },
};
static const floe_lock_type T_TAGGED = { FLOE_PLAN_STRUCT, NULL, 0, false, NULL, F_TAGGED, 5 };
static floe_lock_field F_WRAPPER[] = {
	{ 33, "inner_t", false, &T_TAGGED }, { 40, "k", false, &T_INT }, { 41, "g", false, &T_GEO },
};
static const floe_lock_type T_WRAPPER = { FLOE_PLAN_STRUCT, NULL, 0, false, NULL, F_WRAPPER, 3 };
static const floe_lock_type T_TAGS = { FLOE_PLAN_LIST, NULL, 49, false, &T_STRING, NULL, 0 };
static floe_lock_field F_ADDR_EL[] = {
	{ 46, "street", false, &T_STRING }, { 47, "zip", false, &T_INT }, { 48, "tags", false, &T_TAGS },
};
static const floe_lock_type T_ADDR_EL = { FLOE_PLAN_STRUCT, NULL, 0, false, NULL, F_ADDR_EL, 3 };
static const floe_lock_type T_ADDRS = { FLOE_PLAN_LIST, NULL, 45, false, &T_ADDR_EL, NULL, 0 };
static const floe_lock_type T_GEOS = { FLOE_PLAN_LIST, NULL, 51, false, &T_GEO, NULL, 0 };
/* Names DuckDB must quote, and two that differ only in case (a DuckDB struct cannot hold both). */
static floe_lock_field F_ODD[] = { { 61, "it's \"q\"", false, &T_INT }, { 62, "x", false, &T_STRING } };
static const floe_lock_type T_ODD = { FLOE_PLAN_STRUCT, NULL, 0, false, NULL, F_ODD, 2 };
static floe_lock_field F_CASES[] = { { 64, "A", false, &T_INT }, { 65, "a", false, &T_INT } };
static const floe_lock_type T_CASES = { FLOE_PLAN_STRUCT, NULL, 0, false, NULL, F_CASES, 2 };

static floe_lock_table *struct_table(floe_arena *a)
{
	static floe_lock_column cols[] = {
		{ 1, "id", 1, "integer", "exact", true, &T_INT },
		{ 2, "home", 2, "addr", "exact", false, &T_ADDR },
		{ 7, "p", 3, "place", "widening", false, &T_PLACE },
		{ 25, "t", 4, "tagged", "exact", false, &T_TAGGED },
		{ 32, "w", 5, "wrapper", "widening", false, &T_WRAPPER },
		{ 44, "homes", 6, "addr[]", "exact", false, &T_ADDRS },
		{ 50, "geos", 7, "geo[]", "exact", false, &T_GEOS },
		{ 60, "odd", 8, "odd", "exact", false, &T_ODD },
		{ 63, "cases", 9, "cases", "exact", false, &T_CASES },
	};
	return table_of(a, "comp", cols, 9, "id");
}

static const uint32_t S_OIDS[9] = { 23 };

FLOE_TEST(reconcile_struct_columns)
{
	floe_arena *a = floe_arena_new();
	rc_table t;
	FLOE_CHECK(rc_table_build(&t, a, struct_table(a), S_OIDS, NULL, 9) == 0);
	FLOE_CHECK(!t.key_is_row && t.cols[0].key);
	FLOE_CHECK(t.cols[1].type.kind == RC_STRUCT && t.cols[1].hashed && !t.cols[1].excluded);
	FLOE_CHECK_STR(t.cols[1].duck_type, "STRUCT(\"street\" VARCHAR, \"zip\" INTEGER, \"tags\" VARCHAR[])");
	FLOE_CHECK(t.cols[1].type.fields[1].field_id == 4 && t.cols[1].type.fields[2].type.kind == RC_LIST);
	/* A composite's doubles are compared by value: nothing of the column is excluded. */
	FLOE_CHECK(t.cols[2].hashed && !t.cols[2].excluded && t.cols[4].hashed && !t.cols[4].excluded);
	FLOE_CHECK(t.cols[5].type.kind == RC_LIST && t.cols[5].type.element->kind == RC_STRUCT && t.cols[5].hashed);
	FLOE_CHECK_STR(t.cols[5].duck_type, "STRUCT(\"street\" VARCHAR, \"zip\" INTEGER, \"tags\" VARCHAR[])[]");
	FLOE_CHECK(t.cols[6].hashed && !t.cols[6].excluded);
	FLOE_CHECK_STR(t.cols[7].duck_type, "STRUCT(\"it's \"\"q\"\"\" INTEGER, \"x\" VARCHAR)");
	FLOE_CHECK(!t.cols[8].hashed && !t.cols[8].duck_type && t.cols[8].excluded);
	FLOE_CHECK(t.cols[8].excluded && strstr(t.cols[8].excluded, "differ only in case") != NULL);
	/* V2: a struct's non-null count, a list of structs' elements too; no min, max or distinct. */
	rc_metric *m = NULL;
	size_t n = 0;
	FLOE_CHECK(rc_metrics_build(&m, &n, a, &t, FLOE_RECONCILE_V2, 10) == 0);
	size_t home = 0, homes = 0, cases = 0;
	for (size_t i = 0; i < n; i++) {
		home += m[i].col == 1;
		homes += m[i].col == 5;
		cases += m[i].col == 8;
		FLOE_CHECK(m[i].col != 5 || strcmp(m[i].name, "non_null") == 0 || strcmp(m[i].name, "elements") == 0);
	}
	FLOE_CHECK(home == 1 && homes == 2 && cases == 0);
	floe_arena_free(a);
}

/*
 * DuckDB's canonical text of structs — rows 1, 3 and 4 of tests/it/test_bronze_composite.py,
 * a NULL record, a record of NULLs, lists of records — against what the PostgreSQL dialect
 * returned in PostgreSQL 15 for the same rows read through the extraction query (where
 * `t` and `w` are anonymous ROW(…)s).
 */
FLOE_TEST(reconcile_duckdb_struct_canonical_forms_match_postgres)
{
	floe_arena *a = floe_arena_new();
	floe_engine *engine = NULL;
	rc_table t;
	FLOE_CHECK(rc_table_build(&t, a, struct_table(a), S_OIDS, NULL, 9) == 0);
	FLOE_CHECK(floe_engine_open(&engine, NULL) == 0 && floe_engine_exec(engine, "SET TimeZone = 'UTC'") == 0);
	const rc_type *home = &t.cols[1].type, *p = &t.cols[2].type, *tg = &t.cols[3].type, *w = &t.cols[4].type;
	const rc_type *homes = &t.cols[5].type, *geos = &t.cols[6].type;
	char sql[1024];
#define AS(col, literal) (snprintf(sql, sizeof(sql), "CAST(%s AS %s)", literal, t.cols[col].duck_type), sql)
	check_duck(engine, home, AS(1, "{'street': 'Main St ☃', 'zip': 12345, 'tags': ['a', NULL, '']}"),
		   "(11:Main St ☃,12345,3:1:a,N,0:)");
	check_duck(engine, home, AS(1, "{'street': NULL, 'zip': NULL, 'tags': NULL}"), "(N,N,N)");
	check_duck(engine, home, AS(1, "{'street': '', 'zip': 0, 'tags': NULL}"), "(0:,0,N)");
	check_duck(engine, p,
		   AS(2, "{'name': 'Café', 'at': {'street': 'Elm', 'zip': -1, 'tags': []}, 'pos': {'lat': 1.5, "
			 "'lon': -0.25}, 'since': TIMESTAMPTZ '2000-01-01 10:00:00.123456+00', 'price': -12.34, "
			 "'id': 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'raw': '\\x00\\xFF'::BLOB, 'day': DATE '2024-02-29', "
			 "'ok': true, 'big': 9223372036854775807, 'small': -32768}"),
		   "(5:Café,(3:Elm,-1,0:),(6158159405676898674,-1454987051387342766),0000000861c64a40,-12.34,a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11,00ff,19782,t,"
		   "9223372036854775807,-32768)");
	check_duck(engine, p,
		   AS(2, "{'name': NULL, 'at': NULL, 'pos': {'lat': NULL, 'lon': NULL}, 'since': NULL, 'price': 0, "
			 "'id': NULL, 'raw': ''::BLOB, 'day': NULL, 'ok': false, 'big': 0, 'small': 0}"),
		   "(N,N,(N,N),N,0.00,N,,N,f,0,0)");
	check_duck(engine, tg,
		   AS(3, "{'label': 'happy', 'score': 7, 'note': '{\"a\": null, \"b\": [1, 2]}', "
			 "'n': '1.000000000000000000001', 'pts': [1, NULL, 3]}"),
		   "(5:happy,7,24:{\"a\": null, \"b\": [1, 2]},23:1.000000000000000000001,3:1,N,3)");
	check_duck(engine, w,
		   AS(4, "{'inner_t': {'label': 'ok', 'score': 1, 'note': 'null', 'n': 'NaN', 'pts': []}, 'k': 5, "
			 "'g': {'lat': 0, 'lon': 0}}"),
		   "((2:ok,1,4:null,3:NaN,0:),5,(0,0))");
	check_duck(engine, homes,
		   AS(5, "[{'street': 'A', 'zip': 1, 'tags': ['x']}, NULL, {'street': NULL, 'zip': NULL, 'tags': NULL}, "
			 "{'street': 'B', 'zip': 2, 'tags': []}]"),
		   "4:(1:A,1,1:1:x),N,(N,N,N),(1:B,2,0:)");
	check_duck(engine, homes, AS(5, "[NULL]"), "1:N");
	check_duck(engine, homes, AS(5, "[]"), "0:");
	check_duck(engine, geos, AS(6, "[{'lat': 1, 'lon': 2}, {'lat': NULL, 'lon': 3}]"),
		   "2:(4033440226552636220,-3877462642155372215),(N,7940154811809169244)");
#undef AS
	/* A NULL record is NULL, never a record of NULLs. */
	floe_buf q = FLOE_BUF_INIT, out = FLOE_BUF_INIT;
	floe_buf_puts(&q, "SELECT coalesce(");
	rc_canon(&q, RC_DUCK, home, "CAST(NULL AS STRUCT(street VARCHAR, zip INTEGER, tags VARCHAR[]))");
	floe_buf_puts(&q, ", 'null')");
	FLOE_CHECK(floe_engine_query_text(engine, &out, floe_buf_cstr(&q)) == 0);
	FLOE_CHECK_STR(floe_buf_cstr(&out), "null");
	floe_buf_free(&q);
	floe_buf_free(&out);
	floe_engine_close(engine);
	floe_arena_free(a);
}

/*
 * DuckDB finds a struct's fields in a file by name: a file whose nested field carries
 * the lock's field id under another name excludes the column instead of reading NULLs.
 */
FLOE_TEST(reconcile_nested_field_ids_checked_in_the_files)
{
	floe_arena *a = floe_arena_new();
	floe_engine *engine = NULL;
	char dir[] = "/tmp/floe-rc-XXXXXX", good[128], renamed[128], sql[1024];
	const char *paths[1];
	rc_table t;
	FLOE_CHECK(mkdtemp(dir) != NULL && floe_engine_open(&engine, NULL) == 0);
	snprintf(good, sizeof(good), "%s/good.parquet", dir);
	snprintf(renamed, sizeof(renamed), "%s/renamed.parquet", dir);
	static const char *const copy = "COPY (SELECT 1::INTEGER AS id, {'%s': 'x', 'zip': 5, 'tags': ['a']} AS home, "
		"[{'street': 'y', 'zip': 6, 'tags': []}] AS homes) TO '%s' (FIELD_IDS {id: 1, home: {__duckdb_field_id: 2, "
		"%s: 3, zip: 4, tags: {__duckdb_field_id: 5, element: 6}}, homes: {__duckdb_field_id: 44, element: "
		"{__duckdb_field_id: 45, street: 46, zip: %d, tags: {__duckdb_field_id: 48, element: 49}}}})";
	snprintf(sql, sizeof(sql), copy, "street", good, "street", 47);
	FLOE_CHECK(floe_engine_exec(engine, sql) == 0);
	snprintf(sql, sizeof(sql), copy, "strasse", renamed, "strasse", 99);
	FLOE_CHECK(floe_engine_exec(engine, sql) == 0);
	FLOE_CHECK(rc_table_build(&t, a, struct_table(a), S_OIDS, NULL, 9) == 0);
	paths[0] = good;
	FLOE_CHECK(rc_lake_check_fields(&t, a, paths, 1) == 0);
	FLOE_CHECK(t.cols[1].hashed && t.cols[1].duck_type && t.cols[5].hashed && t.cols[5].duck_type);
	paths[0] = renamed;
	FLOE_CHECK(rc_lake_check_fields(&t, a, paths, 1) == 0);
	FLOE_CHECK(!t.cols[1].hashed && !t.cols[1].duck_type);
	FLOE_CHECK(t.cols[1].excluded && strstr(t.cols[1].excluded, "home.street: data file ") != NULL);
	FLOE_CHECK(t.cols[1].excluded && strstr(t.cols[1].excluded, "holds field id 3 as \"strasse\"") != NULL);
	FLOE_CHECK(!t.cols[5].hashed && t.cols[5].excluded && strstr(t.cols[5].excluded, "homes.element.zip: ") != NULL);
	FLOE_CHECK(t.cols[5].excluded && strstr(t.cols[5].excluded, "holds \"zip\" with field id 99, not 47") != NULL);
	FLOE_CHECK(t.cols[2].hashed && t.cols[2].duck_type); /* a column the file lacks reads NULL: nothing to check */
	floe_engine_close(engine);
	unlink(good);
	unlink(renamed);
	rmdir(dir);
	floe_arena_free(a);
}

/*
 * The DuckDB dialect's bucket and row hash of three rows (values, NULLs, '', an empty
 * list, doubles 1.5 and NaN) against what the PostgreSQL dialect of the same
 * expressions returned in PostgreSQL 15 for the same rows.
 */
FLOE_TEST(reconcile_row_hashes_match_postgres)
{
	floe_arena *a = floe_arena_new();
	floe_engine *engine = NULL;
	floe_engine_result *res = NULL;
	floe_buf q = FLOE_BUF_INIT;
	rc_table t;
	FLOE_CHECK(rc_table_build(&t, a, lock_table(a, "id"), OIDS, ELEMS, 5) == 0);
	floe_buf_puts(&q, "SELECT c1, ");
	rc_bucket_expr(&q, &t, RC_DUCK, 508);
	floe_buf_puts(&q, ", ");
	rc_hash_expr(&q, &t, RC_DUCK);
	floe_buf_puts(&q, " FROM (VALUES (7::INTEGER, 'ünï'::VARCHAR, 1.5::DOUBLE, 0.00123::DECIMAL(5,5),"
			  " ['a', NULL, '']::VARCHAR[]), (-8, NULL, NULL, NULL, NULL), (9, '', 'NaN', -0.5, []::VARCHAR[]))"
			  " AS s(c1, c2, c3, c4, c5) ORDER BY c1");
	static const char *const want[3][3] = {
		{ "-8", "55", "-2497915636927572859" },
		{ "7", "361", "-1687752940660013104" },
		{ "9", "477", "4558325273348041561" },
	};
	FLOE_CHECK(floe_engine_open(&engine, NULL) == 0);
	FLOE_CHECK(floe_engine_query(engine, &res, floe_buf_cstr(&q)) == 0);
	FLOE_CHECK(res && floe_engine_result_rows(res) == 3);
	for (size_t r = 0; res && r < 3 && r < floe_engine_result_rows(res); r++)
		for (size_t c = 0; c < 3; c++)
			FLOE_CHECK_STR(floe_engine_result_text(res, r, c), want[r][c]);
	floe_engine_result_free(res);
	floe_engine_close(engine);
	floe_buf_free(&q);
	floe_arena_free(a);
}

FLOE_TEST(reconcile_bucket_count)
{
	FLOE_CHECK(rc_bucket_count(0) == 1);
	FLOE_CHECK(rc_bucket_count(10000) == 1);
	FLOE_CHECK(rc_bucket_count(10001) == 2);
	FLOE_CHECK(rc_bucket_count(5000000) == 500);
	FLOE_CHECK(rc_bucket_count((int64_t)1 << 40) == 4096);
}

/* The test table's model and its measures at `tier` for `rows` rows. */
static void build(rc_table *t, rc_metric **m, size_t *n, floe_arena *a, floe_reconcile_tier tier, int64_t rows)
{
	FLOE_CHECK(rc_table_build(t, a, lock_table(a, "id"), OIDS, ELEMS, 5) == 0);
	FLOE_CHECK(rc_metrics_build(m, n, a, t, tier, rows) == 0);
}

FLOE_TEST(reconcile_compare_rules)
{
	floe_arena *a = floe_arena_new();
	rc_table t;
	rc_metric *m = NULL;
	size_t n = 0;
	build(&t, &m, &n, a, FLOE_RECONCILE_V2, 10);
	const char **src = floe_arena_alloc(a, n * sizeof(char *)), **lake = floe_arena_alloc(a, n * sizeof(char *));
	size_t f_sum = n, f_abs = n, f_max = n;
	for (size_t i = 0; i < n; i++) {
		src[i] = lake[i] = "7";
		if (m[i].col == 2 && strcmp(m[i].name, "sum") == 0)
			f_sum = i;
		if (m[i].col == 2 && strcmp(m[i].name, "sum_abs") == 0)
			f_abs = i;
		if (m[i].col == 2 && strcmp(m[i].name, "max") == 0)
			f_max = i;
	}
	FLOE_CHECK(f_sum < n && f_abs < n && f_max < n);
	src[f_abs] = lake[f_abs] = "1000000";
	src[f_sum] = "1000";
	lake[f_sum] = "1000.0000001"; /* 1e-7 off, within 1e-9 of sum(|x|) = 1e6 */
	src[f_max] = "Infinity";
	lake[f_max] = "inf";
	rc_bucket_row sb[] = { { 0, 5, "10" }, { 1, 5, "20" } }, lb[] = { { 0, 5, "10" }, { 2, 5, "20" } };
	rc_side s = { .values = src, .buckets = sb, .n_buckets = 2 }, l = { .values = lake, .buckets = lb, .n_buckets = 2 };
	rc_diff d;
	rc_compare(&d, a, &t, m, n, &s, &l);
	FLOE_CHECK(d.n_metric_diffs == 0);
	FLOE_CHECK(d.source_rows == 7 && d.lake_rows == 7);
	FLOE_CHECK(d.n_buckets == 2 && d.buckets[0].bucket == 1 && d.buckets[1].bucket == 2);
	FLOE_CHECK(d.buckets[0].lake_rows == 0 && d.buckets[1].source_rows == 0);
	lake[f_sum] = "1000.01"; /* 1e-8 of sum(|x|): too far */
	src[f_max] = "NaN";
	lake[f_max] = "nan";
	rc_compare(&d, a, &t, m, n, &s, &l);
	FLOE_CHECK(d.n_metric_diffs == 1 && !d.metrics[f_sum].equal && d.metrics[f_max].equal);
	FLOE_CHECK_STR(d.metrics[f_sum].column, "f");
	floe_arena_free(a);
}

FLOE_TEST(reconcile_v1_measures_rows_only)
{
	floe_arena *a = floe_arena_new();
	rc_table t;
	rc_metric *m = NULL;
	size_t n = 0;
	build(&t, &m, &n, a, FLOE_RECONCILE_V1, 10);
	FLOE_CHECK(n == 1 && m[0].col == -1);
	/* count(DISTINCT) only where cheap. */
	FLOE_CHECK(rc_metrics_build(&m, &n, a, &t, FLOE_RECONCILE_V2, 10) == 0);
	bool distinct = false;
	for (size_t i = 0; i < n; i++)
		distinct |= m[i].distinct;
	FLOE_CHECK(distinct);
	FLOE_CHECK(rc_metrics_build(&m, &n, a, &t, FLOE_RECONCILE_V2, 200000) == 0);
	for (size_t i = 0; i < n; i++)
		FLOE_CHECK(!m[i].distinct);
	floe_arena_free(a);
}

FLOE_TEST(reconcile_tiers_and_controls)
{
	floe_reconcile_tier tier;
	FLOE_CHECK(floe_reconcile_tier_parse(&tier, "V2") == 0 && tier == FLOE_RECONCILE_V2);
	FLOE_CHECK(floe_reconcile_tier_parse(&tier, "v3") == 0 && tier == FLOE_RECONCILE_V3);
	FLOE_CHECK(floe_reconcile_tier_parse(&tier, "1") == 0 && tier == FLOE_RECONCILE_V1);
	FLOE_CHECK(floe_reconcile_tier_parse(&tier, "V4") < 0);
	floe_error_clear();
	FLOE_CHECK(floe_reconcile_control_count() == 11);
	FLOE_CHECK_STR(floe_reconcile_control_at(0)->name, "dropped-row");
	FLOE_CHECK(floe_reconcile_control_at(0)->tier == FLOE_RECONCILE_V1);
	FLOE_CHECK(floe_reconcile_control_at(2)->tier == FLOE_RECONCILE_V3); /* swapped values: sums cannot see it */
	FLOE_CHECK(floe_reconcile_control_check("null-to-empty") == 0 && floe_reconcile_control_check("none") == 0);
	FLOE_CHECK(floe_reconcile_control_check("typo") < 0);
	floe_error_clear();
	FLOE_CHECK(floe_reconcile_control_at(11) == NULL);
}
