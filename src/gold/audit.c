/*
 * audit.c — a mart's build checked before it is published: the model's columns as an
 * Iceberg schema (the table keeps them: a change of columns is refused, not guessed), and
 * its tests on the written file — the grain unique and not null, and each reconciliation
 * data test the draft wrote (dbt/tests/gold/<mart>__reconcile_<measure>.sql, run as
 * committed, so dbt and floe run the same test).
 */
#include "gold/gold_build.h"
#include "base/error.h"
#include "engine/engine.h"
#include "iceberg/table.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define WRITTEN "\"floe_gold_written\""

/* A DuckDB column type as an Iceberg type string; NULL: none fits. */
static const char *iceberg_type(floe_arena *a, const char *duck)
{
	static const char *const map[][2] = {
		{ "BOOLEAN", "boolean" },  { "TINYINT", "int" },     { "SMALLINT", "int" },     { "INTEGER", "int" },
		{ "UTINYINT", "int" },     { "USMALLINT", "int" },   { "UINTEGER", "long" },    { "BIGINT", "long" },
		{ "HUGEINT", "decimal(38, 0)" }, { "UBIGINT", "decimal(38, 0)" }, { "FLOAT", "float" },
		{ "DOUBLE", "double" },    { "VARCHAR", "string" },  { "DATE", "date" },        { "TIME", "time" },
		{ "TIMESTAMP", "timestamp" }, { "TIMESTAMP WITH TIME ZONE", "timestamptz" }, { "UUID", "uuid" },
		{ "BLOB", "binary" },
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcasecmp(duck, map[i][0]) == 0)
			return map[i][1];
	if (strncasecmp(duck, "DECIMAL(", 8) == 0)
		return floe_arena_printf(a, "decimal(%s", duck + 8);
	return NULL;
}

int gold_schema_of(gold_job *job, floe_iceberg_schema **out)
{
	floe_engine_result *r = NULL;
	floe_buf n = FLOE_BUF_INIT;
	int error = -1;
	if (floe_engine_query(job->engine, &r, "SELECT column_name, column_type FROM (DESCRIBE floe_gold)") < 0 ||
	    floe_engine_query_text(job->engine, &n, "SELECT count(*) FROM floe_gold") < 0)
		goto cleanup;
	job->rows = strtoll(floe_buf_cstr(&n), NULL, 10);
	floe_iceberg_schema *s = floe_arena_alloc(job->arena, sizeof(*s));
	s->n_fields = floe_engine_result_rows(r);
	s->fields = floe_arena_alloc(job->arena, (s->n_fields + 1) * sizeof(*s->fields));
	for (size_t i = 0; i < s->n_fields; i++) {
		const char *name = floe_engine_result_text(r, i, 0), *duck = floe_engine_result_text(r, i, 1);
		const char *type = iceberg_type(job->arena, duck);
		floe_iceberg_field *f = &s->fields[i];
		f->id = (int32_t)i + 1;
		f->name = floe_arena_strdup(job->arena, name);
		if (!type || floe_iceberg_type_parse(&f->type, job->arena, type, strlen(type)) < 0) {
			floe_error_set(FLOE_ERR_CONFIG, "column \"%s\" of pipeline/%s has type %s, which gold cannot store",
				       name, job->mart->model, duck);
			floe_error_hint("Cast it in the model to a number, text, date or timestamp.");
			goto cleanup;
		}
	}
	*out = s;
	error = 0;
cleanup:
	floe_engine_result_free(r);
	floe_buf_free(&n);
	return error;
}

int gold_schema_check(gold_job *job, const floe_iceberg_schema *want)
{
	const floe_iceberg_schema *have = floe_iceberg_metadata_current_schema(floe_iceberg_table_metadata(job->table));
	bool same = have && have->n_fields == want->n_fields;
	for (size_t i = 0; same && i < want->n_fields; i++)
		same = strcmp(have->fields[i].name, want->fields[i].name) == 0 &&
		       strcmp(floe_iceberg_type_string(job->arena, have->fields[i].type),
			      floe_iceberg_type_string(job->arena, want->fields[i].type)) == 0;
	if (same)
		return 0;
	floe_error_set(FLOE_ERR_CONFIG, "the model of gold.%s returns other columns than the table has",
		       job->mart->name);
	floe_error_hint("A mart's columns are its grain and measures: draft the mart again; floe does not evolve a "
			"gold table's columns yet (drop gold.%s to rebuild it).", job->mart->name);
	return -1;
}

/* Run a failures query (rows = failures); count them; note the test when it fails. */
static int check(gold_job *job, const char *name, const char *failures, const char *what)
{
	floe_buf sql = FLOE_BUF_INIT, n = FLOE_BUF_INIT;
	floe_buf_printf(&sql, "SELECT count(*) FROM (%s\n) floe_failures", failures);
	int rc = floe_engine_query_text(job->engine, &n, floe_buf_cstr(&sql));
	if (rc == 0) {
		long long bad = strtoll(floe_buf_cstr(&n), NULL, 10);
		job->result->tests_passed += bad == 0;
		job->result->tests_failed += bad != 0;
		if (bad) {
			floe_buf_puts(&job->notes, job->notes.len ? "; " : "");
			floe_buf_printf(&job->notes, "%s failed: %lld %s", name, bad, what);
		}
	} else {
		floe_error_context("while running the test %s", name);
	}
	floe_buf_free(&sql);
	floe_buf_free(&n);
	return rc;
}

static int grain_tests(gold_job *job)
{
	const floe_lock_mart *m = job->mart;
	floe_buf sql = FLOE_BUF_INIT;
	int rc = 0;
	if (m->n_grain) {
		floe_buf_puts(&sql, "SELECT 1 FROM " WRITTEN " GROUP BY ");
		for (size_t i = 0; i < m->n_grain; i++) {
			floe_buf_puts(&sql, i ? ", " : "");
			floe_buf_put_quoted(&sql, m->grain[i], '"');
		}
		floe_buf_puts(&sql, " HAVING count(*) > 1");
		rc = check(job, floe_arena_printf(job->arena, "floe_grain_unique_%s", m->name), floe_buf_cstr(&sql),
			   "grain values on more than one row");
	}
	for (size_t i = 0; rc == 0 && i < m->n_grain; i++) {
		floe_buf_clear(&sql);
		floe_buf_puts(&sql, "SELECT 1 FROM " WRITTEN " WHERE ");
		floe_buf_put_quoted(&sql, m->grain[i], '"');
		floe_buf_puts(&sql, " IS NULL");
		rc = check(job, floe_arena_printf(job->arena, "floe_grain_not_null_%s_%s", m->name, m->grain[i]),
			   floe_buf_cstr(&sql), "rows with no value");
	}
	floe_buf_free(&sql);
	return rc;
}

int gold_audit(gold_job *job)
{
	if (grain_tests(job) < 0)
		return -1;
	for (size_t i = 0; i < job->mart->n_files; i++) {
		const char *rel = job->mart->files[i].path, *base = strrchr(rel, '/');
		if (strncmp(rel, "dbt/tests/", 10) != 0)
			continue;
		floe_buf sql = FLOE_BUF_INIT;
		int rc = gold_render_test(job, &sql, rel);
		while (rc == 0 && sql.len && strchr(" \t\r\n;", sql.ptr[sql.len - 1]))
			sql.len--;
		const char *name = floe_arena_strndup(job->arena, base + 1, strlen(base + 1) - 4);
		if (rc == 0)
			rc = check(job, name, floe_arena_strndup(job->arena, sql.ptr, sql.len),
				   "row: the mart's total differs from silver's");
		floe_buf_free(&sql);
		if (rc < 0)
			return -1;
	}
	return 0;
}
