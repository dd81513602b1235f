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

static const floe_lock_type T_INT = { FLOE_PLAN_PRIMITIVE, "int", 0, false, NULL, NULL, 0 };
static const floe_lock_type T_STRING = { FLOE_PLAN_PRIMITIVE, "string", 0, false, NULL, NULL, 0 };
static const floe_lock_type T_DOUBLE = { FLOE_PLAN_PRIMITIVE, "double", 0, false, NULL, NULL, 0 };
static const floe_lock_type T_DEC = { FLOE_PLAN_PRIMITIVE, "decimal(5,5)", 0, false, NULL, NULL, 0 };
static const floe_lock_type T_LIST = { FLOE_PLAN_LIST, NULL, 9, false, &T_STRING, NULL, 0 };

/* A lock table: id int (key), name string, f double, d decimal(5,5), tags list<string>. */
static floe_lock_table *lock_table(floe_arena *a, const char *key)
{
	floe_lock_table *t = floe_arena_alloc(a, sizeof(*t));
	static floe_lock_column cols[] = {
		{ 1, "id", 1, "integer", "exact", true, &T_INT },
		{ 2, "name", 2, "text", "exact", false, &T_STRING },
		{ 3, "f", 3, "double precision", "exact", false, &T_DOUBLE },
		{ 4, "d", 4, "numeric(5,5)", "exact", false, &T_DEC },
		{ 5, "tags", 5, "text[]", "exact", false, &T_LIST },
	};
	const char **keys = floe_arena_alloc(a, sizeof(char *));
	keys[0] = key;
	memset(t, 0, sizeof(*t));
	t->schema = "public";
	t->name = "t";
	t->bronze = "bronze.t";
	t->mode = "full";
	t->key = keys;
	t->n_key = 1;
	t->columns = cols;
	t->n_columns = 5;
	return t;
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
	FLOE_CHECK(t.cols[2].type.kind == RC_DOUBLE && !t.cols[2].hashed && t.cols[2].excluded);
	FLOE_CHECK(t.cols[3].type.kind == RC_DECIMAL && t.cols[3].type.precision == 5 && t.cols[3].type.scale == 5);
	FLOE_CHECK_STR(t.cols[4].duck_type, "VARCHAR[]");
	/* A float key cannot be hashed exactly: buckets hash the whole row. */
	FLOE_CHECK(rc_table_build(&t, a, lock_table(a, "f"), OIDS, ELEMS, 5) == 0);
	FLOE_CHECK(t.key_is_row);
	/* The query and the plan must agree on the columns. */
	FLOE_CHECK(rc_table_build(&t, a, lock_table(a, "id"), OIDS, ELEMS, 4) < 0);
	FLOE_CHECK(floe_error_last() && floe_error_last()->cls == FLOE_ERR_CONFIG);
	floe_error_clear();
	floe_arena_free(a);
}

/* DuckDB's canonical text of a literal, through the engine. */
static void check_duck(floe_engine *engine, const rc_table *t, const rc_type *type, const char *literal,
		       const char *want)
{
	floe_buf sql = FLOE_BUF_INIT, out = FLOE_BUF_INIT;
	floe_buf_puts(&sql, "SELECT ");
	rc_canon(&sql, t, RC_DUCK, type, literal);
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
	rc_table t = { .pg_version = 150000 };
	rc_type str = { .kind = RC_STRING }, dec = { .kind = RC_DECIMAL, .precision = 5, .scale = 5 };
	rc_type dec2 = { .kind = RC_DECIMAL, .precision = 12, .scale = 3 }, ts = { .kind = RC_TIMESTAMP };
	rc_type tz = { .kind = RC_TIMESTAMPTZ }, tm = { .kind = RC_TIME }, date = { .kind = RC_DATE };
	rc_type bin = { .kind = RC_BINARY }, b = { .kind = RC_BOOL }, list = { .kind = RC_LIST, .element = &str };
	FLOE_CHECK(floe_engine_open(&engine, NULL) == 0 && floe_engine_exec(engine, "SET TimeZone = 'UTC'") == 0);
	/* Each expected text is what the source-side SQL returned in PostgreSQL 15 for the same value. */
	check_duck(engine, &t, &str, "'ünï'", "5:ünï");
	check_duck(engine, &t, &str, "''", "0:");
	check_duck(engine, &t, &dec, "0.00123::DECIMAL(5,5)", "0.00123");
	check_duck(engine, &t, &dec, "-0.00001::DECIMAL(5,5)", "-0.00001");
	check_duck(engine, &t, &dec2, "-0.001::DECIMAL(12,3)", "-0.001");
	check_duck(engine, &t, &ts, "TIMESTAMP '1970-01-01'", "fffca2fec4c82000");
	check_duck(engine, &t, &ts, "TIMESTAMP '1677-09-21 00:12:43.145225'", "ffdbde631ee4cc09");
	check_duck(engine, &t, &ts, "TIMESTAMP '4713-01-01 (BC) 00:00:00'", "fd0f7fbdaf17e000");
	check_duck(engine, &t, &ts, "TIMESTAMP 'infinity'", "7fffffffffffffff");
	check_duck(engine, &t, &tz, "TIMESTAMPTZ '2024-02-29 12:34:56.789012+00'", "0002b58341728614");
	check_duck(engine, &t, &tm, "TIME '24:00:00'", "000000141dd76000");
	check_duck(engine, &t, &date, "DATE '2024-02-29'", "19782");
	check_duck(engine, &t, &bin, "'\\x00\\xFF'::BLOB", "00ff");
	check_duck(engine, &t, &b, "false", "f");
	check_duck(engine, &t, &list, "['a', '', NULL, 'ünï']", "4:1:a,0:,N,5:ünï");
	check_duck(engine, &t, &list, "[]::VARCHAR[]", "0:");
	floe_engine_close(engine);
}

/*
 * The DuckDB dialect's bucket and row hash of three rows (values, NULLs, '', an empty
 * list, a float outside the hash) against what the PostgreSQL dialect of the same
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
		{ "-8", "55", "-2536981827835391455" },
		{ "7", "361", "5436077193110151274" },
		{ "9", "477", "-7940511250827239861" },
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
