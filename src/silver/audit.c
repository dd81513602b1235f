/*
 * audit.c — the lock's silver tests as SQL over a build: row-level tests pick the rows
 * to quarantine, and every test is run again on the files written, before they are
 * published (write-audit-publish).
 *
 * A test's failures are a query of (k, n): k a failing entity's key as text, n how many
 * rows it stands for. Keys shown are the table's key columns (or the test's columns when it
 * has none), never a column the lock masks (pii): then only "a row".
 */
#include "silver/silver_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/log.h"
#include "base/sha256.h"
#include "base/text.h"
#include "iceberg/deletes.h"
#include "iceberg/table.h"
#include "query/query.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SAMPLE_KEYS 5

static bool is_kind(const floe_lock_test *t, const char *kind)
{
	return strcmp(t->kind, kind) == 0;
}

static bool masked(const floe_lock_silver *s, const char *col)
{
	for (size_t i = 0; i < s->n_columns; i++)
		if (strcmp(s->columns[i].name, col) == 0)
			return s->columns[i].pii != NULL;
	return false;
}

void silver_key_text(floe_buf *sql, const floe_lock_silver *s, const char *const *cols, size_t n)
{
	bool hidden = n == 0;
	for (size_t i = 0; i < n; i++)
		hidden |= masked(s, cols[i]);
	if (hidden) {
		floe_buf_puts(sql, "'a row'");
		return;
	}
	floe_buf_puts(sql, "'(' || concat_ws(', '");
	for (size_t i = 0; i < n; i++) {
		floe_buf_puts(sql, ", coalesce(CAST(");
		floe_buf_put_quoted(sql, cols[i], '"');
		floe_buf_puts(sql, " AS VARCHAR), 'NULL')");
	}
	floe_buf_puts(sql, ") || ')'");
}

/* The key a failing row is shown by: the table's unique key, else the test's columns. */
static void row_key(floe_buf *sql, const floe_lock_silver *s, const floe_lock_test *t)
{
	if (s->n_unique_key)
		silver_key_text(sql, s, s->unique_key, s->n_unique_key);
	else
		silver_key_text(sql, s, t->columns, t->n_columns);
}

/* A number from the lock as SQL: only digits, sign, point and exponent pass. */
static int put_number(floe_buf *sql, const char *num, const floe_lock_test *t)
{
	if (!num[0] || strspn(num, "0123456789+-.eE") != strlen(num))
		return floe_error_set(FLOE_ERR_CONFIG, "test \"%s\" has a bound \"%s\" that is not a number", t->name, num);
	floe_buf_puts(sql, num);
	return 0;
}

/* `col IS NULL OR (…)`, the NULL-passes shape of value tests. */
static void null_or(floe_buf *sql, const char *col)
{
	floe_buf_put_quoted(sql, col, '"');
	floe_buf_puts(sql, " IS NULL OR ");
}

/* SQL true for a row that passes row-level test `t`. */
static int row_pass(floe_buf *sql, const floe_lock_test *t)
{
	const char *c = t->n_columns ? t->columns[0] : "";
	floe_buf_putc(sql, '(');
	if (is_kind(t, "not_null")) {
		for (size_t i = 0; i < t->n_columns; i++) {
			floe_buf_puts(sql, i ? " AND " : "");
			floe_buf_put_quoted(sql, t->columns[i], '"');
			floe_buf_puts(sql, " IS NOT NULL");
		}
		floe_buf_puts(sql, t->n_columns ? "" : "true");
	} else if (is_kind(t, "accepted_values")) {
		null_or(sql, c);
		floe_buf_put_quoted(sql, c, '"');
		floe_buf_puts(sql, " IN (");
		for (size_t i = 0; i < t->n_values; i++) {
			floe_buf_puts(sql, i ? ", " : "");
			floe_buf_put_quoted(sql, t->values[i], '\'');
		}
		floe_buf_puts(sql, t->n_values ? ")" : "NULL)");
	} else if (is_kind(t, "row_rule")) {
		floe_buf_printf(sql, "coalesce((%s), true)", t->expression ? t->expression : "true");
	} else if (is_kind(t, "range")) {
		null_or(sql, c);
		floe_buf_puts(sql, "(true");
		for (int b = 0; b < 2; b++) {
			const char *bound = b ? t->max : t->min;
			if (!bound)
				continue;
			floe_buf_puts(sql, " AND ");
			floe_buf_put_quoted(sql, c, '"');
			floe_buf_puts(sql, b ? " <= " : " >= ");
			if (put_number(sql, bound, t) < 0)
				return -1;
		}
		floe_buf_putc(sql, ')');
	} else if (is_kind(t, "regex")) {
		null_or(sql, c);
		floe_buf_puts(sql, "regexp_matches(CAST(");
		floe_buf_put_quoted(sql, c, '"');
		floe_buf_puts(sql, " AS VARCHAR), ");
		floe_buf_put_quoted(sql, t->pattern ? t->pattern : "", '\'');
		floe_buf_putc(sql, ')');
	} else {
		return floe_error_set(FLOE_ERR_CONFIG, "test \"%s\" has an unknown kind \"%s\"", t->name, t->kind);
	}
	floe_buf_putc(sql, ')');
	return 0;
}

/* `c1 IS NOT NULL AND c2 IS NOT NULL` over `alias.` columns. */
static void all_not_null(floe_buf *sql, const char *const *cols, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		floe_buf_puts(sql, i ? " AND " : "");
		floe_buf_put_quoted(sql, cols[i], '"');
		floe_buf_puts(sql, " IS NOT NULL");
	}
	floe_buf_puts(sql, n ? "" : "true");
}

/* The relation a relationships test's parent is read from: `rel` when it is this table. */
static const char *parent_of(silver_job *job, const floe_lock_test *t, const char *rel)
{
	floe_buf q = FLOE_BUF_INIT;
	const char *dot = t->to ? strchr(t->to, '.') : NULL;
	if (!dot)
		return NULL;
	if (strcmp(dot + 1, job->name) == 0 && strncmp(t->to, job->ns, (size_t)(dot - t->to)) == 0)
		return rel;
	floe_buf_put_quoted(&q, floe_arena_strndup(job->arena, t->to, (size_t)(dot - t->to)), '"');
	floe_buf_putc(&q, '.');
	floe_buf_put_quoted(&q, dot + 1, '"');
	const char *out = floe_arena_strdup(job->arena, floe_buf_cstr(&q));
	floe_buf_free(&q);
	return out;
}

/* The failures query (k, n) of test `t` over `rel` (a relationships test: against `parent`). */
static int failures_sql(floe_buf *sql, silver_job *job, const floe_lock_test *t, const char *rel, const char *parent)
{
	const floe_lock_silver *s = job->table->silver;
	if (floe_lock_test_row_level(t->kind)) {
		floe_buf_puts(sql, "SELECT ");
		row_key(sql, s, t);
		floe_buf_printf(sql, " AS k, 1 AS n FROM %s WHERE NOT ", rel);
		return row_pass(sql, t);
	}
	if (is_kind(t, "unique") || is_kind(t, "unique_combination")) {
		floe_buf_puts(sql, "SELECT ");
		silver_key_text(sql, s, t->columns, t->n_columns);
		floe_buf_printf(sql, " AS k, count(*) AS n FROM %s WHERE ", rel);
		all_not_null(sql, t->columns, t->n_columns);
		floe_buf_puts(sql, " GROUP BY "); /* the columns, not the shown key: a masked one shows as a constant */
		for (size_t i = 0; i < t->n_columns; i++) {
			floe_buf_puts(sql, i ? ", " : "");
			floe_buf_put_quoted(sql, t->columns[i], '"');
		}
		floe_buf_puts(sql, " HAVING count(*) > 1");
	} else if (is_kind(t, "relationships")) {
		if (!parent || t->n_fields != t->n_columns)
			return floe_error_set(FLOE_ERR_CONFIG, "test \"%s\" names no parent table and columns", t->name);
		/* an ANTI JOIN, not NOT EXISTS: the same rows, but DuckDB plans the correlated form with a
		   duplicate-eliminating join that cost 5x the CPU (1.1M order_items against 1M orders) */
		floe_buf_puts(sql, "SELECT ");
		row_key(sql, s, t);
		floe_buf_printf(sql, " AS k, 1 AS n FROM %s floe_c ANTI JOIN %s floe_p ON true", rel, parent);
		for (size_t i = 0; i < t->n_columns; i++) {
			floe_buf_puts(sql, " AND floe_p.");
			floe_buf_put_quoted(sql, t->fields[i], '"');
			floe_buf_puts(sql, " = floe_c.");
			floe_buf_put_quoted(sql, t->columns[i], '"');
		}
		floe_buf_puts(sql, " WHERE ");
		all_not_null(sql, t->columns, t->n_columns);
	} else if (is_kind(t, "row_count")) {
		floe_buf_printf(sql, "SELECT count(*)::VARCHAR || ' rows' AS k, count(*) AS n FROM %s HAVING false", rel);
		for (int b = 0; b < 2; b++)
			if (b ? t->max : t->min) {
				floe_buf_puts(sql, b ? " OR count(*) > " : " OR count(*) < ");
				if (put_number(sql, b ? t->max : t->min, t) < 0)
					return -1;
			}
	} else if (is_kind(t, "freshness") && t->n_columns == 1) {
		floe_buf_puts(sql, "SELECT 'newest ' || coalesce(max(");
		floe_buf_put_quoted(sql, t->columns[0], '"');
		floe_buf_printf(sql, ")::VARCHAR, 'none') AS k, 1 AS n FROM %s HAVING coalesce(max(", rel);
		floe_buf_put_quoted(sql, t->columns[0], '"');
		floe_buf_printf(sql, ")::TIMESTAMPTZ < now() - to_seconds(%lld), true)", (long long)t->max_age_seconds);
	} else {
		return floe_error_set(FLOE_ERR_CONFIG, "test \"%s\" has an unknown kind \"%s\"", t->name, t->kind);
	}
	return 0;
}

/* Rows failing test `t` over `rel` and up to five sample keys ("(5); (7)"). */
static int count_failures(silver_job *job, const floe_lock_test *t, const char *rel, const char *parent,
			  int64_t *rows, char **samples)
{
	floe_buf sql = FLOE_BUF_INIT;
	floe_engine_result *r = NULL;
	int error = -1;
	floe_buf_puts(&sql, "WITH f AS (");
	if (failures_sql(&sql, job, t, rel, parent) < 0)
		goto cleanup;
	floe_buf_printf(&sql, ") SELECT coalesce(sum(n), 0)::BIGINT, (SELECT string_agg(k, '; ') FROM "
			      "(SELECT k FROM f ORDER BY k LIMIT %d)) FROM f", SAMPLE_KEYS);
	if (floe_engine_query(job->engine, &r, floe_buf_cstr(&sql)) < 0) {
		floe_error_context("while running test \"%s\" of %s.%s", t->name, job->ns, job->name);
		goto cleanup;
	}
	const char *n = floe_engine_result_text(r, 0, 0), *k = floe_engine_result_text(r, 0, 1);
	*rows = n ? strtoll(n, NULL, 10) : 0;
	*samples = floe_arena_strdup(job->arena, k ? k : "");
	error = 0;
cleanup:
	floe_engine_result_free(r);
	floe_buf_free(&sql);
	return error;
}

/* The `prefix` of test `t`'s quarantine insert: "SELECT floe_row, 'name' FROM floe_build WHERE NOT (…)". */
static int bad_rows_sql(floe_buf *sql, const floe_lock_test *t)
{
	floe_buf_puts(sql, "SELECT floe_row, ");
	floe_buf_put_quoted(sql, t->name, '\'');
	floe_buf_puts(sql, " FROM floe_build WHERE NOT ");
	return row_pass(sql, t);
}

/* floe_bad's rows of every error row test, in one statement. -1 with the error set when it failed. */
static int bad_rows_at_once(silver_job *job)
{
	const floe_lock_silver *s = job->table->silver;
	floe_buf sql = FLOE_BUF_INIT;
	size_t n = 0;
	int error = 0;
	floe_buf_puts(&sql, "INSERT INTO floe_bad ");
	for (size_t i = 0; i < s->n_tests && error == 0; i++) {
		const floe_lock_test *t = &s->tests[i];
		if (!floe_lock_test_row_level(t->kind) || strcmp(t->severity, "error") != 0)
			continue;
		floe_buf_puts(&sql, n++ ? " UNION ALL " : "");
		error = bad_rows_sql(&sql, t);
	}
	if (error == 0 && n > 0)
		error = floe_engine_exec(job->engine, floe_buf_cstr(&sql));
	floe_buf_free(&sql);
	return error;
}

int silver_quarantine(silver_job *job, int64_t *quarantined)
{
	const floe_lock_silver *s = job->table->silver;
	floe_buf sql = FLOE_BUF_INIT, n = FLOE_BUF_INIT;
	int error = -1;
	if (floe_engine_exec(job->engine, "CREATE TEMP TABLE floe_bad (floe_row BIGINT, floe_rule VARCHAR)") < 0)
		goto cleanup;
	if (bad_rows_at_once(job) == 0)
		goto count;
	floe_error_clear(); /* one test a statement: the error names the test */
	for (size_t i = 0; i < s->n_tests; i++) {
		const floe_lock_test *t = &s->tests[i];
		if (!floe_lock_test_row_level(t->kind) || strcmp(t->severity, "error") != 0)
			continue;
		floe_buf_clear(&sql);
		floe_buf_puts(&sql, "INSERT INTO floe_bad ");
		if (bad_rows_sql(&sql, t) < 0 || floe_engine_exec(job->engine, floe_buf_cstr(&sql)) < 0) {
			floe_error_context("while running test \"%s\" of %s.%s", t->name, job->ns, job->name);
			goto cleanup;
		}
	}
count:
	if (floe_engine_query_text(job->engine, &n, "SELECT count(DISTINCT floe_row) FROM floe_bad") < 0)
		goto cleanup;
	*quarantined = strtoll(floe_buf_cstr(&n), NULL, 10);
	error = 0;
cleanup:
	floe_buf_free(&sql);
	floe_buf_free(&n);
	return error;
}

static void hash_str(floe_sha256 *h, const char *v)
{
	floe_sha256_update(h, v ? v : "\x01", v ? strlen(v) + 1 : 1);
}

static void hash_list(floe_sha256 *h, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		hash_str(h, v[i]);
	floe_sha256_update(h, "\x02", 1);
}

void silver_tests_sha(char out[65], const floe_lock_silver *s)
{
	floe_sha256 h;
	unsigned char d[FLOE_SHA256_LEN];
	floe_sha256_init(&h);
	for (size_t i = 0; i < s->n_tests; i++) {
		const floe_lock_test *t = &s->tests[i];
		if (strcmp(t->severity, "error") != 0)
			continue;
		const char *one[] = { t->name, t->kind, t->to, t->expression, t->pattern, t->min, t->max, t->quote ? "q" : "" };
		hash_list(&h, one, sizeof(one) / sizeof(one[0]));
		hash_list(&h, t->columns, t->n_columns);
		hash_list(&h, t->fields, t->n_fields);
		hash_list(&h, t->values, t->n_values);
		floe_sha256_update(&h, &t->max_age_seconds, sizeof(t->max_age_seconds));
	}
	floe_sha256_final(d, &h);
	for (size_t i = 0; i < FLOE_SHA256_LEN; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* Whether `col` is one of `cols`. */
static bool has_column(const char *const *cols, size_t n, const char *col)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(cols[i], col) == 0)
			return true;
	return false;
}

bool silver_test_within_key(const floe_lock_silver *s, const floe_lock_test *t)
{
	bool within = true;
	for (size_t k = 0; within && k < t->n_columns; k++)
		within = has_column(s->unique_key, s->n_unique_key, t->columns[k]);
	return within;
}

/* Whether test `t`'s columns are exactly the table's key (in any order), none of them masked. */
static bool on_key(const floe_lock_silver *s, const floe_lock_test *t)
{
	if (t->n_columns != s->n_unique_key)
		return false;
	for (size_t i = 0; i < t->n_columns; i++)
		if (!has_column(s->unique_key, s->n_unique_key, t->columns[i]) || masked(s, t->columns[i]))
			return false;
	return t->n_columns > 0;
}

/*
 * Whether every new row's key is one of the keys the build changed (floe_changed): then no kept
 * row has it — the build deleted (merge-on-read) or left out of its rewritten files (copy-on-write)
 * every published row of a changed key. Asked once per build: a small anti join.
 */
static int fresh_keys_changed(silver_job *job, bool *out)
{
	const floe_lock_silver *s = job->table->silver;
	floe_buf sql = FLOE_BUF_INIT, n = FLOE_BUF_INIT;
	int error = 0;
	if (!job->fresh_keys_asked) {
		floe_buf_puts(&sql, "SELECT count(*) FROM floe_fresh floe_f");
		silver_put_changed(&sql, s, "floe_f", false);
		error = floe_engine_query_text(job->engine, &n, floe_buf_cstr(&sql));
		job->fresh_keys_asked = error == 0;
		job->fresh_keys_changed = error == 0 && strcmp(floe_buf_cstr(&n), "0") == 0;
	}
	*out = job->fresh_keys_changed;
	floe_buf_free(&sql);
	floe_buf_free(&n);
	return error;
}

/*
 * What test `t` reads: `relation`, or when the other rows passed it at the last publish
 * (job->audit_fresh, an error test) only what a new row can fail — a row test the new rows
 * (floe_fresh); a uniqueness test over the key the new rows alone when their keys are changed
 * keys (no kept row shares one: fresh_keys_changed), else the groups holding a new row's values.
 * *narrowed: the scope is not the whole table.
 */
static int audit_scope(silver_job *job, const floe_lock_test *t, const char *relation, const char **out, bool *narrowed)
{
	bool alone = false;
	*out = relation;
	*narrowed = false;
	if (!job->audit_fresh || strcmp(t->severity, "error") != 0)
		return 0;
	if (floe_lock_test_row_level(t->kind)) {
		*out = "floe_fresh", *narrowed = true;
		return 0;
	}
	if (!is_kind(t, "unique") && !is_kind(t, "unique_combination"))
		return 0;
	*narrowed = true;
	if (on_key(job->table->silver, t) && fresh_keys_changed(job, &alone) < 0)
		return -1;
	if (alone) {
		*out = "floe_fresh";
		return 0;
	}
	floe_buf q = FLOE_BUF_INIT;
	floe_buf_printf(&q, "(SELECT * FROM %s floe_w SEMI JOIN floe_fresh floe_f ON true", relation);
	silver_put_equal(&q, t->columns, t->n_columns, "floe_f", "floe_w");
	floe_buf_puts(&q, ")");
	*out = floe_arena_strdup(job->arena, floe_buf_cstr(&q));
	floe_buf_free(&q);
	return 0;
}

int64_t silver_tested_snapshot(const silver_job *job, const floe_lock_test *t)
{
	size_t n = strlen(t->name);
	for (const char *p = job->parents_tested; p && *p; p = strchr(p, ';') ? strchr(p, ';') + 1 : "")
		if (strncmp(p, t->name, n) == 0 && p[n] == '=')
			return strtoll(p + n + 1, NULL, 10);
	return -1;
}

/* `cols`, comma-separated, each `AS` the same-position name of `as` (NULL: as named). */
static void put_columns(floe_buf *sql, const char *const *cols, const char *const *as, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		floe_buf_puts(sql, i ? ", " : "");
		floe_buf_put_quoted(sql, cols[i], '"');
		if (as) {
			floe_buf_puts(sql, " AS ");
			floe_buf_put_quoted(sql, as[i], '"');
		}
	}
}

/* " ON true AND a."x" = b."y"" for each of the `n` pairs of `a_cols` and `b_cols`. */
static void put_on(floe_buf *sql, const char *a, const char *const *a_cols, const char *b, const char *const *b_cols,
		   size_t n)
{
	floe_buf_puts(sql, " ON true");
	for (size_t i = 0; i < n; i++) {
		floe_buf_printf(sql, " AND %s.", a);
		floe_buf_put_quoted(sql, a_cols[i], '"');
		floe_buf_printf(sql, " = %s.", b);
		floe_buf_put_quoted(sql, b_cols[i], '"');
	}
}

/* The child's columns a relationships test's failures read: the table's key, then the test's columns. */
static void put_child_columns(floe_buf *sql, const floe_lock_silver *s, const floe_lock_test *t)
{
	put_columns(sql, s->unique_key, NULL, s->n_unique_key);
	for (size_t i = 0; i < t->n_columns; i++)
		if (!has_column(s->unique_key, s->n_unique_key, t->columns[i])) {
			floe_buf_puts(sql, s->n_unique_key || i ? ", " : "");
			floe_buf_put_quoted(sql, t->columns[i], '"');
		}
}

/* Names of the narrowed relationships test's temporary tables (floe_rel_<what>_<i>). */
typedef struct rel_names {
	const char *removed, *keys, *found, *gone, *child, *parent_pos;
} rel_names;

/*
 * " FROM (SELECT fields, floe_pos FROM <nm->parent_pos> SEMI JOIN `keys`) WHERE <live>": the
 * parent's rows holding one of `keys` (named as the child's columns) that `now` has — its rows of
 * those keys first, then its deleted ones left out (floe_query_view_positions).
 */
static void put_parent_holding(floe_buf *sql, const floe_lock_test *t, const floe_iceberg_scan *now, const rel_names *nm,
			       const char *keys)
{
	size_t k = t->n_columns;
	floe_buf_puts(sql, " FROM (SELECT ");
	put_columns(sql, t->fields, NULL, k);
	floe_buf_printf(sql, ", floe_pos FROM %s floe_q SEMI JOIN %s floe_k", nm->parent_pos, keys);
	put_on(sql, "floe_q", t->fields, "floe_k", t->columns, k);
	floe_buf_putc(sql, ')');
	floe_query_put_live(sql, now, "floe_pos");
}

/*
 * " FROM (SELECT columns AS fields FROM <held>)": what put_parent_holding gives when the parent's
 * key index found the keys it holds (silver_keys_held, temporary table `held`).
 */
static void put_held(floe_buf *sql, const floe_lock_test *t, const char *held)
{
	floe_buf_puts(sql, " FROM (SELECT ");
	put_columns(sql, t->columns, t->fields, t->n_columns);
	floe_buf_printf(sql, " FROM %s)", held);
}

/*
 * " FROM …" into `sql`: the rows of temporary table `keys` that parent `pt` holds at `now` — from
 * its key index when it answers (silver_keys_held), else by a scan of its key columns
 * (put_parent_holding over view nm->parent_pos, made here).
 */
static int put_holding(silver_job *job, floe_buf *sql, const floe_lock_test *t, floe_iceberg_table *pt,
		       const floe_iceberg_scan *now, const rel_names *nm, const char *keys)
{
	const char *held = floe_arena_printf(job->arena, "%s_held", keys);
	int h = silver_keys_held(job, t, now, keys, held);
	if (h < 0 || (h == 0 && floe_query_view_positions(job->engine, job->arena, "main", nm->parent_pos,
							  floe_iceberg_table_storage(pt), now, now->schema) < 0))
		return -1;
	if (h)
		put_held(sql, t, held);
	else
		put_parent_holding(sql, t, now, nm, keys);
	return 0;
}

/* `count(*)` of temporary table `name` into *out. */
static int count_rows(silver_job *job, const char *name, int64_t *out)
{
	floe_buf n = FLOE_BUF_INIT;
	const char *sql = floe_arena_printf(job->arena, "SELECT count(*) FROM %s", name);
	int error = floe_engine_query_text(job->engine, &n, sql);
	*out = error < 0 ? 0 : strtoll(floe_buf_cstr(&n), NULL, 10);
	floe_buf_free(&n);
	return error;
}

/*
 * The narrowed test's sets, temporary tables (each small, each from one pass): `keys` — the
 * foreign keys of the new rows and, when the parent moved since P0, the parent keys P0 had that
 * it removed since (`removed`: updated rows too, a superset); `found` — those of them the parent
 * holds now (one scan of the parent at `now`, its key columns only: put_parent_holding); `gone` —
 * the removed ones it no longer holds (none when the parent is still at P0). *n_gone: how many.
 */
static int rel_sets(silver_job *job, const floe_lock_test *t, floe_iceberg_table *pt, const floe_iceberg_scan *now,
		    bool moved, const rel_names *nm, int64_t *n_gone)
{
	floe_buf sql = FLOE_BUF_INIT;
	size_t k = t->n_columns;
	if (moved) { /* the removed rows' keys, read once (a view over the parent's files) */
		floe_buf_printf(&sql, "CREATE TEMP TABLE %s_keys AS SELECT DISTINCT ", nm->removed);
		put_columns(&sql, t->fields, t->columns, k);
		floe_buf_printf(&sql, " FROM %s WHERE ", nm->removed);
		all_not_null(&sql, t->fields, k);
		floe_buf_puts(&sql, "; ");
	}
	floe_buf_printf(&sql, "CREATE TEMP TABLE %s AS SELECT DISTINCT ", nm->keys);
	put_columns(&sql, t->columns, NULL, k);
	floe_buf_puts(&sql, " FROM floe_fresh WHERE ");
	all_not_null(&sql, t->columns, k);
	if (moved)
		floe_buf_printf(&sql, " UNION SELECT * FROM %s_keys", nm->removed);
	int error = floe_engine_exec(job->engine, floe_buf_cstr(&sql));
	floe_buf_clear(&sql);
	floe_buf_printf(&sql, "CREATE TEMP TABLE %s AS SELECT DISTINCT ", nm->found);
	put_columns(&sql, t->fields, NULL, k);
	if (error == 0)
		error = put_holding(job, &sql, t, pt, now, nm, nm->keys);
	if (moved) {
		floe_buf_printf(&sql, "; CREATE TEMP TABLE %s AS SELECT * FROM %s_keys EXCEPT SELECT ", nm->gone, nm->removed);
		put_columns(&sql, t->fields, t->columns, k);
		floe_buf_printf(&sql, " FROM %s", nm->found);
	}
	if (error == 0)
		error = floe_engine_exec(job->engine, floe_buf_cstr(&sql));
	*n_gone = 0;
	if (error == 0 && moved)
		error = count_rows(job, nm->gone, n_gone);
	floe_buf_free(&sql);
	return error;
}

/*
 * The same sets when the parent's own build in this run went from P0 to `now` (`g`, silver_gone):
 * then the parent holds now every key it held at P0 but those it changed, and of those exactly the
 * ones with a new row — `g`'s file says which. `gone`: the changed keys it holds no more (a
 * superset of the removed ones it lost, each absent now; no kept row references a key P0 lacked,
 * as it passed the test against P0); `found`: the new rows' foreign keys the parent changed and
 * holds, and — only when some new row's foreign key is one the parent did not change (`rest`) —
 * those of them the parent holds (its scan). No removed row of the parent is read.
 */
static int rel_sets_remembered(silver_job *job, const floe_lock_test *t, floe_iceberg_table *pt,
			       const floe_iceberg_scan *now, const silver_gone *g, const rel_names *nm, int64_t *n_gone)
{
	floe_buf sql = FLOE_BUF_INIT;
	size_t k = t->n_columns;
	int64_t n_rest = 0;
	floe_buf_printf(&sql, "CREATE TEMP TABLE %s AS SELECT DISTINCT ", nm->keys);
	put_columns(&sql, t->columns, NULL, k);
	floe_buf_puts(&sql, " FROM floe_fresh WHERE ");
	all_not_null(&sql, t->columns, k);
	floe_buf_printf(&sql, "; CREATE TEMP TABLE %s_changed AS SELECT ", nm->removed);
	put_columns(&sql, t->fields, t->columns, k);
	floe_buf_puts(&sql, ", floe_gone FROM read_parquet(");
	floe_buf_put_quoted(&sql, g->path, '\'');
	floe_buf_printf(&sql, "); CREATE TEMP TABLE %s AS SELECT * EXCLUDE (floe_gone) FROM %s_changed WHERE floe_gone",
			nm->gone, nm->removed);
	floe_buf_printf(&sql, "; CREATE TEMP TABLE %s_rest AS SELECT * FROM %s floe_k ANTI JOIN %s_changed floe_c", nm->keys,
			nm->keys, nm->removed);
	put_on(&sql, "floe_k", t->columns, "floe_c", t->columns, k);
	int error = floe_engine_exec(job->engine, floe_buf_cstr(&sql));
	const char *rest = floe_arena_printf(job->arena, "%s_rest", nm->keys);
	if (error == 0)
		error = count_rows(job, rest, &n_rest);
	floe_buf_clear(&sql);
	floe_buf_printf(&sql, "CREATE TEMP TABLE %s AS SELECT ", nm->found);
	put_columns(&sql, t->columns, t->fields, k);
	floe_buf_printf(&sql, " FROM %s_changed floe_c SEMI JOIN %s floe_k", nm->removed, nm->keys);
	put_on(&sql, "floe_c", t->columns, "floe_k", t->columns, k);
	floe_buf_puts(&sql, " WHERE NOT floe_gone");
	if (error == 0 && n_rest > 0) {
		floe_buf_puts(&sql, " UNION SELECT DISTINCT ");
		put_columns(&sql, t->fields, NULL, k);
		error = put_holding(job, &sql, t, pt, now, nm, rest);
	}
	if (error == 0)
		error = floe_engine_exec(job->engine, floe_buf_cstr(&sql));
	if (error == 0)
		error = count_rows(job, nm->gone, n_gone);
	floe_buf_free(&sql);
	return error;
}

/*
 * Merge-on-read with kept rows: whether a kept row's foreign key is gone — its foreign key columns
 * and positions only (a key column more would double the read of a table whose key is a uuid). *any.
 */
static int kept_gone(silver_job *job, const floe_lock_test *t, const rel_names *nm, bool *any)
{
	int by_index = silver_keys_kept_gone(job, t, nm->gone, any);
	if (by_index < 0 || (by_index && !silver_keys_checking()))
		return by_index < 0 ? -1 : 0;
	bool indexed = *any;
	floe_buf sql = FLOE_BUF_INIT, n = FLOE_BUF_INIT;
	floe_buf_puts(&sql, "SELECT count(*) FROM (SELECT floe_pos FROM floe_kept_pos floe_w SEMI JOIN ");
	floe_buf_puts(&sql, nm->gone);
	floe_buf_puts(&sql, " floe_k");
	put_on(&sql, "floe_w", t->columns, "floe_k", t->columns, t->n_columns);
	floe_buf_printf(&sql, ")%s", job->kept_live);
	int error = floe_engine_query_text(job->engine, &n, floe_buf_cstr(&sql));
	*any = error == 0 && strcmp(floe_buf_cstr(&n), "0") != 0;
	if (error == 0 && by_index && indexed != *any)
		error = floe_error_set(FLOE_ERR_INTERNAL, "%s: %s: the index of its foreign key says a kept row %s a lost key, "
							  "the scan says it %s", job->result->table, t->name,
				       indexed ? "holds" : "holds no", *any ? "does" : "does not");
	floe_buf_free(&sql);
	floe_buf_free(&n);
	return error;
}

/*
 * *child: the rows the narrowed test reads — the new rows whose foreign key is not gone, and every
 * row of `relation` (kept or new: each once) whose foreign key is gone (one scan of the table's
 * foreign key and key columns). A merge-on-read build with kept rows (job->kept_live): every new
 * row, and the kept rows of a gone foreign key, read from floe_kept_pos before its deleted
 * positions are left out — the same rows; none kept (kept_gone, the usual case: the source deleted
 * a parent's children with it), the new rows alone (floe_fresh).
 */
static int rel_child(silver_job *job, const floe_lock_test *t, const silver_gone *g, const char *relation,
		     const rel_names *nm, const char **child)
{
	const floe_lock_silver *s = job->table->silver;
	floe_buf sql = FLOE_BUF_INIT;
	bool any = true;
	if (job->kept_live && g && g == job->probe_gone && t == &s->tests[job->probe_test] && job->probe_kept >= 0) {
		any = job->probe_kept > 0; /* asked while the build found its changed rows (silver_gone_probe) */
		floe_log_debug("%s: %s: kept rows of lost keys counted with the changed rows: %lld", job->result->table,
			       t->name, (long long)job->probe_kept);
	} else if (job->kept_live && kept_gone(job, t, nm, &any) < 0)
		return -1;
	*child = any ? nm->child : "floe_fresh";
	if (!any)
		return 0;
	floe_buf_printf(&sql, "CREATE TEMP TABLE %s AS SELECT ", nm->child);
	put_child_columns(&sql, s, t);
	if (job->kept_live) {
		floe_buf_puts(&sql, " FROM floe_fresh UNION ALL SELECT ");
		put_child_columns(&sql, s, t);
		floe_buf_puts(&sql, " FROM (SELECT ");
		put_child_columns(&sql, s, t);
		floe_buf_printf(&sql, ", floe_pos FROM floe_kept_pos floe_w SEMI JOIN %s floe_k", nm->gone);
		put_on(&sql, "floe_w", t->columns, "floe_k", t->columns, t->n_columns);
		floe_buf_printf(&sql, ")%s", job->kept_live);
	} else {
		floe_buf_printf(&sql, " FROM floe_fresh floe_w ANTI JOIN %s floe_k", nm->gone);
		put_on(&sql, "floe_w", t->columns, "floe_k", t->columns, t->n_columns);
		floe_buf_puts(&sql, " UNION ALL SELECT ");
		put_child_columns(&sql, s, t);
		floe_buf_printf(&sql, " FROM %s floe_w SEMI JOIN %s floe_k", relation, nm->gone);
		put_on(&sql, "floe_w", t->columns, "floe_k", t->columns, t->n_columns);
	}
	int error = floe_engine_exec(job->engine, floe_buf_cstr(&sql));
	floe_buf_free(&sql);
	return error;
}

/* The parent's gone keys from P0 `from` to `now` (-1: any), kept by its build in this run
   (silver_gone), when the test reads exactly the parent's key; NULL: none. */
static const silver_gone *remembered_gone(const silver_job *job, const floe_lock_test *t, int64_t from, int64_t now)
{
	const silver_gone *found = NULL;
	if (!job->memo)
		return NULL;
	pthread_mutex_lock(&job->memo->mu);
	for (size_t i = 0; i < job->memo->n_gone && !found; i++) {
		const silver_gone *g = &job->memo->gone[i];
		bool key = t->n_fields == g->n_key && t->n_fields > 0;
		for (size_t k = 0; key && k < t->n_fields; k++)
			key = has_column(g->key, g->n_key, t->fields[k]);
		if (key && strcmp(g->table, t->to) == 0 && g->from == from && (now < 0 || g->to == now))
			found = g;
	}
	pthread_mutex_unlock(&job->memo->mu);
	return found;
}

/* Whether a table of the lock other than `s` has a relationships test reading `s`. */
static bool read_by_child(const floe_lock *lock, const floe_lock_silver *s)
{
	for (size_t i = 0; i < floe_lock_count(lock); i++) {
		const floe_lock_silver *c = floe_lock_at(lock, i)->silver;
		for (size_t k = 0; c && c != s && k < c->n_tests; k++)
			if (is_kind(&c->tests[k], "relationships") && c->tests[k].to && strcmp(c->tests[k].to, s->table) == 0)
				return true;
	}
	return false;
}

int silver_gone_probe(silver_job *job)
{
	const floe_lock_silver *s = job->table->silver;
	const silver_gone *found = NULL;
	size_t which = 0, n = 0;
	for (size_t i = 0; i < s->n_tests; i++) {
		const floe_lock_test *t = &s->tests[i];
		bool in_key = t->n_columns > 0 && t->n_columns == t->n_fields && silver_test_within_key(s, t);
		if (!in_key || !is_kind(t, "relationships") || strcmp(t->severity, "error") != 0 || !t->to ||
		    strcmp(t->to, s->table) == 0)
			continue;
		silver_wait_reads(job); /* the parent's lost keys, once its build in this run is over */
		const silver_gone *g = remembered_gone(job, t, silver_tested_snapshot(job, t), -1);
		if (g)
			found = g, which = i, n++;
	}
	if (n != 1)
		return 0;
	const floe_lock_test *t = &s->tests[which];
	floe_buf sql = FLOE_BUF_INIT;
	floe_buf_puts(&sql, "CREATE TEMP TABLE floe_probe AS SELECT ");
	put_columns(&sql, t->fields, t->columns, t->n_columns);
	floe_buf_puts(&sql, " FROM read_parquet(");
	floe_buf_put_quoted(&sql, found->path, '\'');
	floe_buf_puts(&sql, ") WHERE floe_gone");
	int error = floe_engine_exec(job->engine, floe_buf_cstr(&sql));
	floe_buf_free(&sql);
	if (error < 0)
		return -1;
	job->probe_gone = found, job->probe_test = which, job->probe_kept = -1;
	return 1;
}

void silver_remember_gone(silver_build *b, int64_t to)
{
	silver_job *job = b->job;
	silver_memo *m = job->memo;
	const floe_lock_silver *s = b->s;
	floe_buf sql = FLOE_BUF_INIT;
	bool hidden = false;
	for (size_t i = 0; i < s->n_unique_key; i++)
		hidden |= masked(s, s->unique_key[i]);
	if (!m || !b->incremental || !b->previous || b->previous->snapshot_id <= 0 || to <= 0 || hidden ||
	    s->n_unique_key == 0 || !read_by_child(job->lock, s))
		return;
	pthread_mutex_lock(&m->mu);
	const char *path = silver_tmp_dir(m->arena, &m->dir, "floe-silver-run") < 0
				   ? NULL
				   : floe_arena_printf(m->arena, "%s/gone-%d.parquet", m->dir, m->n_files++);
	pthread_mutex_unlock(&m->mu);
	if (!path) {
		floe_error_clear(); /* the children read the parent's removed rows instead */
		return;
	}
	/* every changed key, and whether the table holds none of its rows now (floe_fresh: the rows it added) */
	floe_buf_puts(&sql, "COPY (SELECT DISTINCT ");
	for (size_t i = 0; i < s->n_unique_key; i++) {
		floe_buf_puts(&sql, i ? ", floe_c." : "floe_c.");
		floe_buf_put_quoted(&sql, s->unique_key[i], '"');
	}
	floe_buf_puts(&sql, ", floe_f.");
	floe_buf_put_quoted(&sql, s->unique_key[0], '"');
	floe_buf_puts(&sql, " IS NULL AS floe_gone FROM floe_changed floe_c LEFT JOIN (SELECT DISTINCT ");
	put_columns(&sql, s->unique_key, NULL, s->n_unique_key);
	floe_buf_puts(&sql, " FROM floe_fresh) floe_f ON true");
	silver_put_equal(&sql, s->unique_key, s->n_unique_key, "floe_c", "floe_f");
	floe_buf_puts(&sql, ") TO ");
	floe_buf_put_quoted(&sql, path, '\'');
	floe_buf_puts(&sql, " (FORMAT parquet)");
	if (floe_engine_exec(job->engine, floe_buf_cstr(&sql)) < 0) {
		floe_error_clear(); /* as above */
		unlink(path);
	} else {
		pthread_mutex_lock(&m->mu);
		*FLOE_ARENA_PUSH(m->arena, m->gone, m->n_gone, m->cap_gone) = (silver_gone){
			.table = s->table, .from = b->previous->snapshot_id, .to = to, .path = path,
			.key = (const char *const *)s->unique_key, .n_key = s->n_unique_key };
		pthread_mutex_unlock(&m->mu);
	}
	floe_buf_free(&sql);
}

void silver_memo_clear(silver_memo *m)
{
	floe_engine_close(silver_memo_warmed(m)); /* never asked for: no table was built */
	floe_engine_close(m->engine);
	m->engine = NULL;
	for (size_t i = 0; i < m->n_gone; i++)
		unlink(m->gone[i].path);
	if (m->dir)
		rmdir(m->dir);
	m->dir = NULL, m->n_gone = 0;
}

/*
 * The narrowed relationships test (its table's other rows passed it against parent snapshot
 * `from`): a row can fail now only when it is new, or its foreign key is a key the parent removed
 * since and holds no more. *child and *parent become the rows that can fail and the parent keys
 * they could match (rel_sets, rel_child): the same verdict, count and sample keys as the whole
 * test, without reading the kept rows unless the parent lost a key.
 */
static int rel_narrow(silver_job *job, const floe_lock_test *t, size_t i, floe_iceberg_table *pt,
		      const floe_iceberg_scan *now, int64_t from, const char **child, const char **parent)
{
	rel_names nm = {
		floe_arena_printf(job->arena, "floe_rel_removed_%zu", i), floe_arena_printf(job->arena, "floe_rel_keys_%zu", i),
		floe_arena_printf(job->arena, "floe_rel_found_%zu", i), floe_arena_printf(job->arena, "floe_rel_gone_%zu", i),
		floe_arena_printf(job->arena, "floe_rel_child_%zu", i), floe_arena_printf(job->arena, "floe_rel_parent_%zu", i),
	};
	int64_t n_gone = 0;
	bool moved = from != now->snapshot_id;
	const silver_gone *g = moved ? remembered_gone(job, t, from, now->snapshot_id) : NULL;
	if (g) {
		floe_log_debug("%s: %s: the keys %s lost come from its own build in this run", job->result->table, t->name, t->to);
		if (rel_sets_remembered(job, t, pt, now, g, &nm, &n_gone) < 0)
			return -1;
	} else if ((moved && silver_removed_rows(job, pt, now, from, nm.removed) < 0) ||
		   rel_sets(job, t, pt, now, moved, &nm, &n_gone) < 0) {
		return -1;
	}
	const char *rows = "floe_fresh"; /* the parent lost no key: only a new row can be an orphan */
	if (n_gone > 0 && rel_child(job, t, g, *child, &nm, &rows) < 0)
		return -1;
	*child = rows;
	*parent = nm.found;
	return 0;
}

/* View `view` of no rows with the lock's columns of parent `to` ("silver.x"): not created, or no rows yet. */
static int empty_parent(silver_job *job, const char *to, const char *view, const char **parent)
{
	for (size_t i = 0; i < floe_lock_count(job->lock); i++) {
		const floe_lock_silver *s = floe_lock_at(job->lock, i)->silver;
		if (s && strcmp(s->table, to) == 0) {
			*parent = view;
			return silver_empty_view(job, s, "main", view);
		}
	}
	return 0; /* not a table of the plan: the parent as named (the test fails to run, naming it) */
}

/*
 * A relationships test reads its parent at the parent's current snapshot (view floe_parent_<i>),
 * recorded for the publish (job->parents). When the table's other rows passed this very error test
 * at the last publish against parent snapshot P0, only rows that can fail now are read
 * (rel_narrow, which makes no view of the whole parent): *narrowed. Otherwise (or P0 no longer
 * planned) *child stays: the whole test.
 */
static int relationships_scope(silver_job *job, const floe_lock_test *t, size_t i, const char **child,
			       const char **parent, bool *narrowed)
{
	floe_iceberg_table *pt = NULL;
	floe_iceberg_scan *now = NULL;
	const char *dot = strchr(t->to, '.'), *view = floe_arena_printf(job->arena, "floe_parent_%zu", i);
	int error = -1;
	if (!job->cat) /* an audit without a catalog (the engine's own relations) reads the parent as named */
		return 0;
	if (floe_iceberg_table_load(&pt, job->cat, floe_arena_strndup(job->arena, t->to, (size_t)(dot - t->to)), dot + 1) < 0) {
		floe_error_clear(); /* not created yet: no rows */
		return empty_parent(job, t->to, view, parent);
	}
	if (floe_iceberg_table_plan_live(&now, job->arena, pt, -1) < 0)
		goto cleanup;
	if (now->n_files == 0) {
		error = empty_parent(job, t->to, view, parent);
		goto cleanup;
	}
	job->parents = floe_arena_printf(job->arena, "%s%s=%lld;", job->parents ? job->parents : "", t->name,
					 (long long)now->snapshot_id);
	int64_t from = silver_tested_snapshot(job, t);
	const char *c = *child, *p = *parent;
	if (job->audit_fresh && strcmp(t->severity, "error") == 0 && from >= 0) {
		if (rel_narrow(job, t, i, pt, now, from, &c, &p) == 0) {
			*child = c, *parent = p, *narrowed = true;
			error = 0;
			goto cleanup;
		}
		floe_error_clear(); /* P0 expired, say: the whole test */
	}
	error = floe_query_view(job->engine, job->arena, "main", view, floe_iceberg_table_storage(pt), now, now->schema);
	*parent = view;
cleanup:
	floe_iceberg_table_free(pt);
	return error;
}

/* One note: "unique_orders_id (error) failed: 2 rows, keys (5); (5)". */
static void note(silver_job *job, const floe_lock_test *t, const char *verdict, int64_t rows, const char *samples)
{
	floe_buf *b = &job->notes;
	floe_buf_puts(b, b->len ? "; " : "");
	floe_buf_printf(b, "%s %s: %lld row%s", t->name, verdict, (long long)rows, rows == 1 ? "" : "s");
	if (samples && samples[0])
		floe_buf_printf(b, ", keys %s", samples);
}

/*
 * Whether test `t` holds by construction: a uniqueness test of exactly the table's key over a full
 * build of the generated model, which keeps one row per key (its dedup numbering, or bronze proven
 * unique on the key), quarantine only removing rows. Not when a key column is masked (HMAC values
 * are compared, not the source's) — then the test runs.
 */
static bool proven(const silver_job *job, const floe_lock_test *t)
{
	return job->unique_by_model && (is_kind(t, "unique") || is_kind(t, "unique_combination")) &&
	       on_key(job->table->silver, t);
}

/* One test of an audit: what its failures query reads, and what it found. */
typedef struct audit_item {
	const floe_lock_test *t;
	const char *rel, *parent;
	bool narrowed, counted;
	int64_t rows;
	char *samples;
} audit_item;

/*
 * Every item's failures in one query (one statement to plan and run, not one a test: most read a
 * few new rows, where DuckDB's fixed cost per statement is the cost): a row (item, rows, sample
 * keys) each. -1 with the error set when the query failed (the caller runs them one by one then,
 * for the error of the test that failed).
 */
static int count_all(silver_job *job, audit_item *it, size_t n)
{
	floe_buf sql = FLOE_BUF_INIT;
	floe_engine_result *r = NULL;
	int error = -1;
	for (size_t i = 0; i < n; i++) {
		floe_buf_printf(&sql, "%sfloe_f%zu AS (", i ? ", " : "WITH ", i);
		if (failures_sql(&sql, job, it[i].t, it[i].rel, it[i].parent) < 0)
			goto cleanup;
		floe_buf_putc(&sql, ')');
	}
	for (size_t i = 0; i < n; i++)
		floe_buf_printf(&sql, "%s SELECT %zu, coalesce(sum(n), 0)::BIGINT, (SELECT string_agg(k, '; ') FROM "
				      "(SELECT k FROM floe_f%zu ORDER BY k LIMIT %d)) FROM floe_f%zu",
				i ? " UNION ALL" : "", i, i, SAMPLE_KEYS, i);
	if (n == 0 || floe_engine_query(job->engine, &r, floe_buf_cstr(&sql)) < 0)
		goto cleanup;
	for (size_t row = 0; row < floe_engine_result_rows(r); row++) {
		size_t i = (size_t)strtoull(floe_engine_result_text(r, row, 0), NULL, 10);
		const char *rows = floe_engine_result_text(r, row, 1), *k = floe_engine_result_text(r, row, 2);
		if (i >= n)
			continue;
		it[i].rows = rows ? strtoll(rows, NULL, 10) : 0;
		it[i].samples = floe_arena_strdup(job->arena, k ? k : "");
		it[i].counted = true;
	}
	error = 0;
	for (size_t i = 0; i < n && error == 0; i++)
		if (!it[i].counted)
			error = floe_error_set(FLOE_ERR_INTERNAL, "the tests' query of %s.%s returned no row for test \"%s\"",
					       job->ns, job->name, it[i].t->name);
cleanup:
	floe_engine_result_free(r);
	floe_buf_free(&sql);
	return error;
}

/* The item's outcome into the result and the notes. */
static void tally(silver_job *job, const audit_item *it)
{
	floe_silver_result *r = job->result;
	r->tests_incremental += it->narrowed;
	if (job->audit_fresh && !it->narrowed) {
		floe_buf_puts(&job->whole, job->whole.len ? ", " : "");
		floe_buf_puts(&job->whole, it->t->name);
	}
	if (it->rows == 0) {
		r->tests_passed++;
	} else if (strcmp(it->t->severity, "error") == 0) {
		r->tests_failed++;
		job->table_failed = true;
		note(job, it->t, "failed", it->rows, it->samples);
	} else {
		r->tests_warned++;
		note(job, it->t, "warned", it->rows, it->samples);
	}
}

int silver_audit(silver_job *job, const char *relation)
{
	const floe_lock_silver *s = job->table->silver;
	floe_silver_result *r = job->result;
	audit_item *it = floe_arena_alloc(job->arena, (s->n_tests + 1) * sizeof(*it));
	size_t n = 0;
	for (size_t i = 0; i < s->n_tests; i++) {
		const floe_lock_test *t = &s->tests[i];
		if (proven(job, t)) { /* passed: no row can fail it (docs/silver.md) */
			r->tests_passed++;
			r->tests_proven++;
			continue;
		}
		audit_item *a = &it[n++];
		*a = (audit_item){ .t = t, .rel = relation };
		if (audit_scope(job, t, relation, &a->rel, &a->narrowed) < 0)
			return -1;
		if (is_kind(t, "relationships") && (a->parent = parent_of(job, t, relation)) != NULL &&
		    a->parent != relation) {
			silver_wait_reads(job);
			if (relationships_scope(job, t, i, &a->rel, &a->parent, &a->narrowed) < 0)
				return -1;
			silver_step(job, floe_arena_printf(job->arena, "%s (its sets)", t->name));
		}
	}
	if (count_all(job, it, n) < 0) {
		floe_error_clear(); /* one by one: the error names the test */
		for (size_t i = 0; i < n; i++)
			if (count_failures(job, it[i].t, it[i].rel, it[i].parent, &it[i].rows, &it[i].samples) < 0)
				return -1;
	}
	silver_step(job, floe_arena_printf(job->arena, "tests (%zu in one query)", n));
	for (size_t i = 0; i < n; i++)
		tally(job, &it[i]);
	return 0;
}
