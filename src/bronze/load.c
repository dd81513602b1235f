/*
 * load.c — one table's full load: source transaction → COPY binary → Parquet →
 * one Iceberg snapshot that replaces the previous one.
 *
 * Order of effects, for crash safety: data files are written first (invisible
 * until committed); the commit is the catalog's compare-and-swap and expects
 * the snapshot the load started from, so a concurrent writer is a conflict, not
 * a lost update; the source transaction ends after the commit. A failure
 * before the commit removes the files this load wrote.
 */
#include "bronze/bronze_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/log.h"
#include "iceberg/catalog.h"
#include "iceberg/table.h"
#include "pg/introspect.h"
#include "pg/pg.h"
#include "plan/plan.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BATCH_ROWS 65536
#define BATCH_BYTES ((size_t)32 << 20)
#define FILE_TARGET_BYTES ((uint64_t)768 << 20) /* of COPY input per data file (~ a few hundred MB of Parquet) */
#define ROW_GROUP_BYTES ((size_t)64 << 20)
#define MAX_FILES 4096

typedef struct load_state {
	bronze_job *job;
	floe_pg *pg;
	floe_pg_copy *copy;
	floe_iceberg_catalog *catalog;
	floe_iceberg_table *table;
	bronze_columns cols;
	floe_vector *vectors;
	floe_parquet_writer *writer;
	const char *writer_uri;
	uint64_t file_start_bytes;
	floe_iceberg_data_file *files;
	size_t n_files;
	const char *position;      /* the source's snapshot, pg_current_snapshot() */
	int64_t expect_snapshot;
} load_state;

static const char *extraction_sql(load_state *s)
{
	const floe_lock_table *t = s->job->table;
	for (size_t i = 0; i < t->n_files; i++) {
		if (strncmp(t->files[i].path, "bronze/", 7) != 0)
			continue;
		const char *path = floe_arena_printf(s->job->arena, "%s/%s", s->job->pipeline_dir, t->files[i].path);
		floe_buf text = FLOE_BUF_INIT;
		if (floe_fs_read_file(&text, path) < 0) {
			floe_error_hint("Run `floe generate` to write the pipeline's files.");
			floe_buf_free(&text);
			return NULL;
		}
		const char *sql = floe_arena_strndup(s->job->arena, floe_buf_cstr(&text), text.len);
		floe_buf_free(&text);
		return sql;
	}
	floe_error_set(FLOE_ERR_CONFIG, "the plan has no extraction query for %s", t->bronze);
	floe_error_hint("Run `floe generate`.");
	return NULL;
}

/* The plan's session settings, then a repeatable-read read-only transaction. */
static int open_source(load_state *s)
{
	floe_pg_result *r = NULL;
	if (floe_pg_connect_source(&s->pg, s->job->config) < 0)
		return -1;
	for (const char *const *kv = floe_plan_session_settings; kv[0]; kv += 2) {
		const char *params[2] = { kv[0], kv[1] };
		if (floe_pg_query(&r, s->pg, "select pg_catalog.set_config($1, $2, false)", 2, params) < 0)
			return -1;
		floe_pg_result_free(r);
	}
	if (floe_pg_exec(s->pg, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") < 0)
		return -1;
	const char *q = floe_pg_server_version(s->pg) >= 130000 ? "select pg_catalog.pg_current_snapshot()::text"
								: "select pg_catalog.txid_current_snapshot()::text";
	if (floe_pg_query(&r, s->pg, q, 0, NULL) < 0)
		return -1;
	s->position = floe_arena_strdup(s->job->arena, floe_pg_result_text(r, 0, 0));
	floe_pg_result_free(r);
	return 0;
}

static const char *table_part(const char *bronze)
{
	const char *dot = strchr(bronze, '.');
	return dot ? dot + 1 : bronze;
}

static int open_table(load_state *s)
{
	floe_iceberg_catalog_opts co = FLOE_ICEBERG_CATALOG_OPTS_INIT;
	floe_buf where = FLOE_BUF_INIT;
	const char *name = table_part(s->job->table->bronze);
	co.warehouse = s->job->warehouse_dir;
	co.create = true;
	if (floe_iceberg_catalog_open_sql(&s->catalog, s->job->catalog_path, &co) < 0)
		return -1;
	int found = floe_iceberg_catalog_load(s->catalog, &where, "bronze", name);
	floe_buf_free(&where);
	if (found < 0)
		return -1;
	if (found == 0) {
		floe_iceberg_create_opts o = FLOE_ICEBERG_CREATE_OPTS_INIT;
		if (floe_iceberg_table_create(&s->table, s->catalog, "bronze", name, s->cols.schema, &o) == 0)
			return 0;
		if (!floe_error_last() || floe_error_last()->cls != FLOE_ERR_EXISTS)
			return -1;
		floe_error_clear(); /* created meanwhile by another process: load it */
	}
	return floe_iceberg_table_load(&s->table, s->catalog, "bronze", name);
}

/* The table's schema must be the plan's; new columns are added, anything else waits for a person. */
static int check_schema(load_state *s)
{
	const floe_iceberg_metadata *m = floe_iceberg_table_metadata(s->table);
	const floe_iceberg_schema *cur = floe_iceberg_metadata_current_schema(m);
	const floe_iceberg_snapshot *snap = floe_iceberg_metadata_current_snapshot(m);
	s->expect_snapshot = snap ? m->current_snapshot_id : FLOE_ICEBERG_NO_SNAPSHOT;
	for (size_t i = 0; i < s->cols.n; i++) {
		const floe_iceberg_field *want = &s->cols.schema->fields[i];
		const floe_iceberg_field *have = floe_iceberg_schema_find(cur, want->id);
		if (have && strcmp(have->name, want->name) == 0 && floe_iceberg_type_equal(have->type, want->type))
			continue;
		floe_error_set(FLOE_ERR_CONFLICT, "%s: column \"%s\" (field id %d) differs from the table in the lake",
			       s->job->table->bronze, want->name, (int)want->id);
		floe_error_hint("The source's schema changed since the table was created; `floe sync` turns "
				"such a change into a reviewable branch.");
		return -1;
	}
	return 0;
}

static int open_writer(load_state *s)
{
	floe_parquet_writer_opts o = FLOE_PARQUET_WRITER_OPTS_INIT;
	o.row_group_bytes = ROW_GROUP_BYTES;
	s->writer_uri = floe_iceberg_table_new_data_uri(s->table, s->job->arena, "parquet");
	const char *path = floe_iceberg_uri_to_path(s->job->arena, s->writer_uri);
	const char *slash = strrchr(path, '/');
	const char *dir = floe_arena_strndup(s->job->arena, path, (size_t)(slash - path));
	if (floe_fs_mkdir_p(dir, 0755) < 0)
		return -1;
	s->file_start_bytes = floe_pg_copy_bytes(s->copy);
	return floe_parquet_writer_open(&s->writer, path, s->cols.fields, s->cols.n, &o);
}

static void to_data_file(floe_iceberg_data_file *f, floe_arena *a, const char *uri,
			 const floe_parquet_file_stats *st)
{
	floe_iceberg_column_stats *cs = floe_arena_alloc(a, (st->n_columns + 1) * sizeof(*cs));
	for (size_t i = 0; i < st->n_columns; i++) {
		const floe_parquet_column_stats *p = &st->columns[i];
		cs[i] = (floe_iceberg_column_stats)FLOE_ICEBERG_COLUMN_STATS_INIT;
		cs[i].field_id = p->field_id;
		cs[i].column_size = p->column_size;
		cs[i].value_count = p->value_count;
		cs[i].null_value_count = p->null_count;
		cs[i].nan_value_count = p->has_nan_count ? p->nan_count : -1;
		cs[i].has_lower = p->has_lower;
		cs[i].lower = p->lower;
		cs[i].lower_len = p->lower_len;
		cs[i].has_upper = p->has_upper;
		cs[i].upper = p->upper;
		cs[i].upper_len = p->upper_len;
	}
	*f = (floe_iceberg_data_file)FLOE_ICEBERG_DATA_FILE_INIT;
	f->path = uri;
	f->record_count = st->record_count;
	f->file_size_in_bytes = st->file_size;
	f->split_offsets = st->split_offsets;
	f->n_split_offsets = st->n_split_offsets;
	f->columns = cs;
	f->n_columns = st->n_columns;
}

static int close_writer(load_state *s)
{
	floe_parquet_file_stats st;
	floe_parquet_writer *w = s->writer;
	s->writer = NULL;
	if (floe_parquet_writer_close(&st, w, s->job->arena) < 0)
		return -1;
	if (s->n_files == MAX_FILES)
		return floe_error_set(FLOE_ERR_INTERNAL, "more than %d data files for one load", MAX_FILES);
	to_data_file(&s->files[s->n_files++], s->job->arena, s->writer_uri, &st);
	return 0;
}

static int stream(load_state *s, const char *sql)
{
	size_t rows = 0;
	s->vectors = floe_arena_alloc(s->job->arena, (s->cols.n + 1) * sizeof(floe_vector));
	for (size_t i = 0; i < s->cols.n; i++)
		floe_pg_copy_vector_init(&s->vectors[i], &s->cols.copy[i]);
	if (floe_pg_copy_begin(&s->copy, s->pg, sql, s->cols.copy, s->cols.n) < 0 || open_writer(s) < 0)
		return -1;
	for (;;) {
		for (size_t i = 0; i < s->cols.n; i++)
			floe_vector_clear(&s->vectors[i]);
		if (floe_pg_copy_next(s->copy, s->vectors, BATCH_ROWS, BATCH_BYTES, &rows) < 0)
			return -1;
		if (rows == 0)
			break;
		if (floe_parquet_writer_write_batch(s->writer, s->vectors, s->cols.n) < 0)
			return -1;
		if (floe_pg_copy_bytes(s->copy) - s->file_start_bytes >= FILE_TARGET_BYTES &&
		    (close_writer(s) < 0 || open_writer(s) < 0))
			return -1;
	}
	return close_writer(s);
}

static int commit(load_state *s)
{
	bronze_job *job = s->job;
	floe_iceberg_kv summary[3] = {
		{ "floe.run-id", job->run_id },
		{ "floe.source-position", s->position },
		{ "floe.load-mode", "full" },
	};
	floe_iceberg_commit_opts o = FLOE_ICEBERG_COMMIT_OPTS_INIT;
	o.summary = summary;
	o.n_summary = 3;
	o.expect_snapshot_id = s->expect_snapshot;
	if (floe_iceberg_table_replace(s->table, s->files, s->n_files, &o) < 0)
		return -1;
	const floe_iceberg_metadata *m = floe_iceberg_table_metadata(s->table);
	job->result->snapshot_id = m->current_snapshot_id;
	return 0;
}

static void remove_written(load_state *s)
{
	floe_iceberg_storage *st = s->table ? floe_iceberg_table_storage(s->table) : NULL;
	if (!st)
		return;
	for (size_t i = 0; i < s->n_files; i++)
		floe_iceberg_storage_remove(st, s->files[i].path);
	if (s->writer) {
		floe_parquet_writer_abort(s->writer);
		s->writer = NULL;
		floe_iceberg_storage_remove(st, s->writer_uri);
	}
}

static void cleanup(load_state *s)
{
	floe_pg_copy_free(s->copy);
	floe_parquet_writer_abort(s->writer);
	for (size_t i = 0; s->vectors && i < s->cols.n; i++)
		floe_vector_free(&s->vectors[i]);
	floe_iceberg_table_free(s->table);
	floe_iceberg_catalog_free(s->catalog);
	floe_pg_close(s->pg);
}

int bronze_load_table(bronze_job *job)
{
	load_state s = { .job = job };
	floe_bronze_result *r = job->result;
	uint32_t *oids = NULL, *elems = NULL;
	size_t n = 0;
	const char *sql = NULL;
	bool commit_tried = false;
	int error = -1;
	s.files = floe_arena_alloc(job->arena, MAX_FILES * sizeof(*s.files));

	if (!(sql = extraction_sql(&s)) || open_source(&s) < 0 ||
	    floe_pg_describe_query(s.pg, job->arena, sql, &oids, &elems, &n) < 0 ||
	    bronze_columns_build(&s.cols, job->arena, job->table, oids, elems, n) < 0 ||
	    open_table(&s) < 0 || check_schema(&s) < 0 || stream(&s, sql) < 0)
		goto cleanup;
	commit_tried = true;
	if (commit(&s) < 0)
		goto cleanup;
	floe_pg_exec(s.pg, "COMMIT");
	r->rows = (int64_t)floe_pg_copy_rows(s.copy);
	r->bytes = (int64_t)floe_pg_copy_bytes(s.copy);
	r->files = (int64_t)s.n_files;
	r->detail = strcmp(job->table->mode, "incremental") == 0
		? floe_arena_printf(job->arena, "loaded in full: incremental loading is not built yet; source snapshot %s",
				    s.position)
		: floe_arena_printf(job->arena, "source snapshot %s", s.position);
	error = 0;
cleanup:
	/* Once a commit was tried its files may be live (an unknown outcome): only orphan
	 * removal, which reads the committed metadata, may delete them then. */
	if (error < 0 && !commit_tried)
		remove_written(&s);
	cleanup(&s);
	return error;
}
