/*
 * build.c — one merged mart, write-audit-publish as silver does (silver.h's shared pieces):
 * views over the silver tables' current snapshots, the model rendered and run in DuckDB,
 * its rows written as one Parquet file of gold.<name> that nothing references yet, the
 * grain tests (unique combination, not null) and every reconciliation test of the mart run
 * on that file, and the one commit only when all pass; otherwise the file is deleted and
 * the previous snapshot stays current.
 */
#include "gold/gold_build.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/sha256.h"
#include "engine/engine.h"
#include "iceberg/table.h"
#include "query/query.h"
#include "silver/silver.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WRITTEN "\"floe_gold_written\""

static void put_ident(floe_buf *b, const char *ns, const char *name)
{
	floe_buf_put_quoted(b, ns, '"');
	floe_buf_putc(b, '.');
	floe_buf_put_quoted(b, name, '"');
}

/* ref(X): a silver model's view, or the mart itself (its written file, for the tests). */
static const char *ref_rel(void *ctx, const char *model)
{
	gold_job *job = ctx;
	floe_buf b = FLOE_BUF_INIT;
	if (strcmp(model, job->mart->name) == 0)
		return WRITTEN;
	for (size_t i = 0; i < floe_lock_count(job->lock); i++) {
		const floe_lock_silver *s = floe_lock_at(job->lock, i)->silver;
		const char *base = s ? strrchr(s->model, '/') : NULL;
		base = base ? base + 1 : s ? s->model : NULL;
		if (!base || strncmp(base, model, strlen(model)) != 0 || strcmp(base + strlen(model), ".sql") != 0)
			continue;
		const char *dot = strchr(s->table, '.');
		put_ident(&b, "silver", dot ? dot + 1 : s->table);
		const char *out = floe_arena_strdup(job->arena, b.ptr);
		floe_buf_free(&b);
		return out;
	}
	return NULL;
}

/* A pipeline file rendered as floe's runtime renders dbt's (ref() only). */
static int render_file(gold_job *job, floe_buf *out, const char *rel, char sha[FLOE_SHA256_HEX_LEN + 1])
{
	floe_buf text = FLOE_BUF_INIT;
	floe_silver_model_config cfg;
	const char *path = floe_arena_printf(job->arena, "%s/%s", job->pipeline_dir, rel);
	int error = floe_fs_read_file(&text, path);
	if (error == 0 && sha)
		floe_sha256_hex(sha, text.ptr ? text.ptr : "", text.len);
	floe_silver_render_opts o = { .file = floe_arena_printf(job->arena, "pipeline/%s", rel), .ref = ref_rel,
				      .ctx = job };
	if (error == 0)
		error = floe_silver_render(out, &cfg, job->arena, text.ptr ? text.ptr : "", text.len, &o);
	floe_buf_free(&text);
	return error;
}

/* Views "silver"."X" of the silver tables the mart reads; one not built yet fails the mart. */
static int silver_views(gold_job *job)
{
	for (size_t i = 0; i < job->mart->n_reads; i++) {
		const char *t = job->mart->reads[i], *dot = strchr(t, '.');
		const char *ns = dot ? floe_arena_strndup(job->arena, t, (size_t)(dot - t)) : "silver";
		int made = floe_silver_current_view(job->engine, job->cat, job->arena, ns, dot ? dot + 1 : t, "silver");
		if (made < 0)
			return -1;
		if (made == 0) {
			floe_error_set(FLOE_ERR_CHECK, "%s has no rows in silver yet", t);
			floe_error_hint("Run `floe run` so silver is built before its marts.");
			return -1;
		}
	}
	return 0;
}

static int run_model(gold_job *job)
{
	floe_buf model = FLOE_BUF_INIT, sql = FLOE_BUF_INIT;
	int error = -1;
	if (render_file(job, &model, job->mart->model, job->model_sha) < 0)
		goto cleanup;
	while (model.len && strchr(" \t\r\n;", model.ptr[model.len - 1]))
		model.len--;
	floe_buf_printf(&sql, "CREATE TEMP TABLE floe_gold AS SELECT * FROM (%.*s\n) floe_model", (int)model.len,
			model.ptr ? model.ptr : "");
	error = floe_engine_exec(job->engine, floe_buf_cstr(&sql));
	if (error < 0)
		floe_error_context("while running the model pipeline/%s", job->mart->model);
cleanup:
	floe_buf_free(&model);
	floe_buf_free(&sql);
	return error;
}

/* The table to publish into (created when missing), its columns those of the model's result. */
static int open_table(gold_job *job, const floe_iceberg_schema *schema)
{
	floe_iceberg_create_opts co = FLOE_ICEBERG_CREATE_OPTS_INIT;
	floe_iceberg_kv props[] = { { "floe.mart", job->mart->name } };
	co.properties = props;
	co.n_properties = 1;
	if (floe_iceberg_table_load(&job->table, job->cat, "gold", job->mart->name) == 0)
		return gold_schema_check(job, schema);
	if (floe_error_last()->cls != FLOE_ERR_CONFIG)
		return -1;
	floe_error_clear();
	return floe_iceberg_table_create(&job->table, job->cat, "gold", job->mart->name, schema, &co);
}

/* The model's rows, ordered by the grain, into one new data file of the table (none: no rows). */
static int write_file(gold_job *job, const floe_iceberg_schema *schema)
{
	floe_buf copy = FLOE_BUF_INIT, opts = FLOE_BUF_INIT;
	floe_silver_spool sp = { .engine = job->engine, .arena = job->arena };
	floe_buf_puts(&copy, "COPY (SELECT ");
	floe_buf_puts(&opts, " (FORMAT parquet, COMPRESSION zstd, FIELD_IDS {");
	for (size_t i = 0; i < schema->n_fields; i++) {
		floe_buf_puts(&copy, i ? ", CAST(" : "CAST(");
		floe_buf_put_quoted(&copy, schema->fields[i].name, '"');
		floe_buf_puts(&copy, " AS ");
		floe_query_duck_type(&copy, schema->fields[i].type);
		floe_buf_puts(&copy, ") AS ");
		floe_buf_put_quoted(&copy, schema->fields[i].name, '"');
		floe_buf_puts(&opts, i ? ", " : "");
		floe_buf_put_quoted(&opts, schema->fields[i].name, '"');
		floe_buf_printf(&opts, ": %d", schema->fields[i].id);
	}
	floe_buf_puts(&copy, " FROM floe_gold ORDER BY ALL) TO ");
	floe_buf_puts(&opts, "})");
	const char *uri = floe_iceberg_table_new_data_uri(job->table, job->arena, "parquet");
	int error = 0;
	if (job->rows > 0) {
		error = floe_silver_store_copy(&sp, floe_iceberg_table_storage(job->table), uri, &copy,
					       floe_buf_cstr(&opts), &job->file);
		job->has_file = error == 0;
	}
	if (sp.dir)
		rmdir(sp.dir);
	floe_buf_free(&copy);
	floe_buf_free(&opts);
	return error;
}

/* floe_gold_written: the table as it would be published (the new file, or no rows). */
static int written_view(gold_job *job)
{
	floe_buf sql = FLOE_BUF_INIT;
	if (job->has_file) {
		const char *path = floe_iceberg_storage_engine_uri(floe_iceberg_table_storage(job->table), job->arena,
								   job->file.path);
		floe_buf_puts(&sql, "CREATE TEMP VIEW " WRITTEN " AS SELECT * FROM read_parquet(");
		floe_buf_put_quoted(&sql, path ? path : "", '\'');
		floe_buf_putc(&sql, ')');
	} else {
		floe_buf_puts(&sql, "CREATE TEMP VIEW " WRITTEN " AS SELECT * FROM floe_gold LIMIT 0");
	}
	int rc = floe_engine_exec(job->engine, floe_buf_cstr(&sql));
	floe_buf_free(&sql);
	return rc;
}

/* The one commit: every live file replaced by the new one, on top of the snapshot the build saw. */
static int publish(gold_job *job)
{
	const floe_iceberg_snapshot *cur = floe_iceberg_metadata_current_snapshot(floe_iceberg_table_metadata(job->table));
	floe_iceberg_kv sum[] = { { "floe.run-id", job->run_id }, { "floe.model-sha256", job->model_sha } };
	floe_iceberg_commit_opts o = FLOE_ICEBERG_COMMIT_OPTS_INIT;
	o.summary = sum;
	o.n_summary = 2;
	o.expect_snapshot_id = cur ? cur->snapshot_id : FLOE_ICEBERG_NO_SNAPSHOT;
	if (floe_iceberg_table_replace(job->table, &job->file, job->has_file ? 1 : 0, &o) < 0) {
		if (floe_iceberg_table_may_have_landed(job->table))
			job->has_file = false; /* only orphan removal may delete it now */
		return floe_error_context("while publishing gold.%s", job->mart->name);
	}
	job->has_file = false; /* the table's now */
	cur = floe_iceberg_metadata_current_snapshot(floe_iceberg_table_metadata(job->table));
	job->result->snapshot_id = cur ? cur->snapshot_id : 0;
	return 0;
}

int gold_render_test(gold_job *job, floe_buf *out, const char *rel)
{
	return render_file(job, out, rel, NULL);
}

int gold_build_mart(gold_job *job)
{
	floe_iceberg_schema *schema = NULL;
	int error = -1;
	if (floe_engine_open(&job->engine, NULL) < 0 || silver_views(job) < 0 || run_model(job) < 0 ||
	    gold_schema_of(job, &schema) < 0 || open_table(job, schema) < 0 || write_file(job, schema) < 0 ||
	    written_view(job) < 0 || gold_audit(job) < 0)
		goto cleanup;
	if (job->result->tests_failed) {
		floe_error_set(FLOE_ERR_CHECK, "gold.%s was not published: %d test%s failed", job->mart->name,
			       job->result->tests_failed, job->result->tests_failed == 1 ? "" : "s");
		floe_error_detail("%s", floe_buf_cstr(&job->notes));
		floe_error_hint("The previous snapshot stays current. Check the model against its description "
				"(floe gold draft) or the silver rows the test names, then run again.");
		goto cleanup;
	}
	error = publish(job);
cleanup:
	if (job->has_file && job->table)
		floe_iceberg_storage_remove(floe_iceberg_table_storage(job->table), job->file.path);
	floe_iceberg_table_free(job->table);
	job->table = NULL;
	floe_engine_close(job->engine);
	job->engine = NULL;
	return error;
}
