/*
 * build.c — one silver table: its model rendered and run in DuckDB over exactly the
 * verified bronze snapshot, failing rows quarantined, the rest written as Parquet with
 * the lock's field ids, every test run on the written file, and only then one commit.
 *
 * Write-audit-publish: the data file is written under the table's location but no
 * metadata references it until the commit; a failed error-severity test deletes it and
 * leaves the previous snapshot current. Incremental (docs/silver.md): when the silver
 * table was built from an earlier bronze snapshot by the same model, only the keys whose
 * bronze rows differ between the two snapshots are rebuilt, in the silver files that hold
 * them (copy-on-write).
 */
#include "silver/silver_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/log.h"
#include "base/sha256.h"
#include "bronze/bronze.h"
#include "format/parquet.h"
#include "iceberg/metadata.h"
#include "query/query.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define BRONZE_FULL "floe_bronze_snapshot"

void silver_step(silver_job *job, const char *what)
{
	int64_t now = floe_iceberg_now_ms();
	if (job->step_ms)
		floe_log_debug("%s: %s %.3f s", job->result->table, what, (double)(now - job->step_ms) / 1e3);
	job->step_ms = now;
}

/* What the build reads and where it stands. */
typedef struct build {
	silver_job *job;
	const floe_lock_silver *s;
	floe_iceberg_table *silver;       /* NULL: not created yet */
	floe_iceberg_scan *previous;      /* the silver table's live files; NULL: none */
	const char *model_sha;
	bool incremental;                 /* restricted to floe_changed's keys */
	bool schema_changed;              /* the table was brought to the lock's columns: build in full */
	const char **removed;             /* incremental: silver files rewritten */
	size_t n_removed, cap_removed;
	floe_iceberg_data_file *files;    /* the new data files (none: no rows), key ranges in order */
	size_t n_files, cap_files;
	const char **tmp;                 /* where each new file is until published (store_files): NULL once stored */
	size_t n_tmp_files, cap_tmp;
} build;

static void put_ident(floe_buf *b, const char *ns, const char *name)
{
	floe_buf_put_quoted(b, ns, '"');
	floe_buf_putc(b, '.');
	floe_buf_put_quoted(b, name, '"');
}

static const char *ident(floe_arena *a, const char *ns, const char *name)
{
	floe_buf b = FLOE_BUF_INIT;
	put_ident(&b, ns, name);
	const char *out = floe_arena_strdup(a, floe_buf_cstr(&b));
	floe_buf_free(&b);
	return out;
}

/* "ns.name" split at its first dot into the arena. */
static void split(floe_arena *a, const char *qualified, const char **ns, const char **name)
{
	const char *dot = strchr(qualified, '.');
	*ns = dot ? floe_arena_strndup(a, qualified, (size_t)(dot - qualified)) : "silver";
	*name = dot ? dot + 1 : qualified;
}

/* A dbt model's name: its file's stem ("dbt/models/silver/orders.sql" → "orders"). */
static bool is_model(const floe_lock_silver *s, const char *name)
{
	const char *base = strrchr(s->model, '/');
	base = base ? base + 1 : s->model;
	size_t n = strlen(base);
	n -= n > 4 && strcmp(base + n - 4, ".sql") == 0 ? 4 : 0;
	return strlen(name) == n && strncmp(base, name, n) == 0;
}

/*
 * source('bronze', X): only the job's own bronze table, at its verified snapshot. X is the
 * table's dbt name (the model's; sources.yml maps it to the bronze table) or the bronze name.
 */
static const char *source_rel(void *ctx, const char *source, const char *table)
{
	silver_job *job = ctx;
	const char *ns, *name;
	split(job->arena, job->table->bronze, &ns, &name);
	if (strcmp(source, ns) != 0 || (strcmp(table, name) != 0 && !is_model(job->table->silver, table)))
		return NULL;
	return ident(job->arena, ns, name);
}

/* The i-th table of the lock's silver tables, split into *ns and *name; false: it has none. */
static bool silver_at(silver_job *job, size_t i, const char **ns, const char **name)
{
	const floe_lock_silver *s = floe_lock_at(job->lock, i)->silver;
	if (s)
		split(job->arena, s->table, ns, name);
	return s != NULL;
}

/* ref(X): a silver table of the plan, at its current snapshot (a view made before the run). */
static const char *ref_rel(void *ctx, const char *model)
{
	silver_job *job = ctx;
	const char *ns, *name;
	for (size_t i = 0; i < floe_lock_count(job->lock); i++)
		if (silver_at(job, i, &ns, &name) &&
		    (strcmp(name, model) == 0 || is_model(floe_lock_at(job->lock, i)->silver, model))) {
			*FLOE_ARENA_PUSH(job->arena, job->refs, job->n_refs, job->cap_refs) =
				floe_lock_at(job->lock, i)->silver;
			return ident(job->arena, ns, name);
		}
	return NULL;
}

/* A view "ns"."name" over the current snapshot of that Iceberg table: 1; 0 when it has no files. */
static int current_view(silver_job *job, const char *ns, const char *name, const char *view_ns)
{
	floe_iceberg_table *t = NULL;
	floe_iceberg_scan *scan = NULL;
	floe_buf ddl = FLOE_BUF_INIT;
	int error = -1;
	floe_buf_puts(&ddl, "CREATE SCHEMA IF NOT EXISTS ");
	floe_buf_put_quoted(&ddl, view_ns, '"');
	if (floe_engine_exec(job->engine, floe_buf_cstr(&ddl)) < 0)
		goto cleanup;
	if (floe_iceberg_table_load(&t, job->cat, ns, name) < 0) {
		floe_error_clear(); /* not created yet */
		error = 0;
		goto cleanup;
	}
	if (floe_iceberg_table_plan(&scan, job->arena, t, -1) < 0)
		goto cleanup;
	error = scan->n_files ? floe_query_view(job->engine, job->arena, view_ns, name, floe_iceberg_table_storage(t), scan,
						scan->schema) : 0;
	error = error < 0 ? -1 : scan->n_files > 0;
cleanup:
	floe_iceberg_table_free(t);
	floe_buf_free(&ddl);
	return error;
}

static int silver_schema(floe_iceberg_schema **out, floe_arena *a, const floe_lock_silver *s);

/* A view of no rows with the lock's columns of `s`: a silver table nothing was published to yet. */
static int empty_view(silver_job *job, const floe_lock_silver *s, const char *ns, const char *name)
{
	floe_iceberg_schema *schema;
	floe_iceberg_scan none = { .snapshot_id = -1 };
	if (silver_schema(&schema, job->arena, s) < 0)
		return -1;
	return floe_query_view(job->engine, job->arena, ns, name, NULL, &none, schema);
}

/* Whether this build reads silver table `s`: itself ({{ this }}), a ref() of the model, a relationships parent. */
static bool needed(silver_job *job, const floe_lock_silver *s)
{
	if (s == job->table->silver)
		return true;
	for (size_t i = 0; i < job->n_refs; i++)
		if (job->refs[i] == s)
			return true;
	for (size_t i = 0; i < job->table->silver->n_tests; i++) {
		const char *to = job->table->silver->tests[i].to;
		if (to && strcmp(to, s->table) == 0)
			return true;
	}
	return false;
}

/*
 * Views of the silver tables this build reads: each at its current snapshot, or no rows when
 * nothing was published yet (a child's relationships test then fails: its parents are not in silver).
 */
static int parent_views(silver_job *job)
{
	const char *ns, *name;
	for (size_t i = 0; i < floe_lock_count(job->lock); i++) {
		if (!silver_at(job, i, &ns, &name) || !needed(job, floe_lock_at(job->lock, i)->silver))
			continue;
		int made = current_view(job, ns, name, ns);
		if (made < 0 || (made == 0 && empty_view(job, floe_lock_at(job->lock, i)->silver, ns, name) < 0))
			return -1;
	}
	return 0;
}

/* The model file, rendered (a hand edit runs as edited); its SHA-256 into b->model_sha. */
static int render_model(build *b, floe_buf *sql)
{
	silver_job *job = b->job;
	floe_buf text = FLOE_BUF_INIT;
	floe_silver_model_config cfg;
	char hex[FLOE_SHA256_HEX_LEN + 1];
	int error = -1;
	const char *path = floe_arena_printf(job->arena, "%s/%s", job->pipeline_dir, b->s->model);
	if (floe_fs_read_file(&text, path) < 0) {
		floe_error_hint("Run `floe generate` to write the dbt project's models.");
		goto cleanup;
	}
	floe_sha256_hex(hex, text.ptr, text.len);
	b->model_sha = floe_arena_strdup(job->arena, hex);
	floe_silver_render_opts o = { .file = floe_arena_printf(job->arena, "pipeline/%s", b->s->model),
				      .incremental = false, /* floe restricts by changed keys instead */
				      .this_relation = ident(job->arena, job->ns, job->name),
				      .source = source_rel, .ref = ref_rel, .ctx = job };
	error = floe_silver_render(sql, &cfg, job->arena, text.ptr, text.len, &o);
cleanup:
	floe_buf_free(&text);
	return error;
}

/* The ORDER BY of the table's key (nothing for a table without one). */
static void put_key_order(floe_buf *sql, const floe_lock_silver *s, const char *lead)
{
	for (size_t k = 0; k < s->n_unique_key; k++) {
		floe_buf_puts(sql, k ? ", " : lead);
		floe_buf_put_quoted(sql, s->unique_key[k], '"');
	}
}

/* Whether a lock column is named rowid (DuckDB's row number of a table, which a column shadows). */
static bool has_rowid_column(const floe_lock_silver *s)
{
	for (size_t i = 0; i < s->n_columns; i++)
		if (strcasecmp(s->columns[i].name, "rowid") == 0)
			return true;
	return false;
}

/*
 * floe_build: the model's rows sorted by the key, numbered from 0 (floe_row) in that order; its
 * columns must be the lock's. The numbers are the rows' rowids in the sorted temporary table
 * (numbering them with row_number() OVER () took a single-threaded pass as long as the model).
 */
static int run_model(build *b, floe_buf *model_sql)
{
	silver_job *job = b->job;
	floe_buf sql = FLOE_BUF_INIT, model = *model_sql;
	floe_engine_result *r = NULL;
	int error = -1;
	while (model.len && strchr(" \t\r\n;", model.ptr[model.len - 1]))
		model.len--;
	bool rowid = !has_rowid_column(b->s);
	floe_buf_printf(&sql, "CREATE TEMP TABLE floe_model_rows AS SELECT %s* FROM (%.*s\n) floe_model",
			rowid ? "" : "row_number() OVER () - 1 AS floe_row, ", (int)model.len, model.ptr);
	put_key_order(&sql, b->s, " ORDER BY ");
	floe_buf_puts(&sql, rowid ? "; CREATE TEMP VIEW floe_build AS SELECT rowid AS floe_row, * FROM floe_model_rows"
				  : "; CREATE TEMP VIEW floe_build AS SELECT * FROM floe_model_rows");
	if (floe_engine_exec(job->engine, floe_buf_cstr(&sql)) < 0) {
		floe_error_context("while running the model pipeline/%s", b->s->model);
		goto cleanup;
	}
	if (floe_engine_query(job->engine, &r, "SELECT * FROM floe_build LIMIT 0") < 0)
		goto cleanup;
	size_t n = floe_engine_result_columns(r);
	for (size_t i = 0; i < b->s->n_columns; i++) {
		size_t c = 1;
		while (c < n && strcmp(floe_engine_result_name(r, c), b->s->columns[i].name) != 0)
			c++;
		if (c == n || n - 1 != b->s->n_columns) {
			floe_error_set(FLOE_ERR_CONFIG, "model pipeline/%s returns %zu columns, not the %zu of %s in the lock",
				       b->s->model, n - 1, b->s->n_columns, b->s->table);
			floe_error_detail("Column \"%s\" is %s.", b->s->columns[i].name, c == n ? "missing" : "there");
			floe_error_hint("A model returns exactly the lock's silver columns, by name; run `floe generate` after "
					"changing them.");
			goto cleanup;
		}
	}
	error = 0;
cleanup:
	floe_engine_result_free(r);
	floe_buf_free(&sql);
	return error;
}

/* FIELD_IDS of one column: a number, or {__duckdb_field_id: id, child: …} for nested ones. */
static void put_field_ids(floe_buf *sql, const char *name, int id, const floe_lock_type *t)
{
	floe_buf_put_quoted(sql, name, '"');
	if (!t || t->kind == FLOE_PLAN_PRIMITIVE) {
		floe_buf_printf(sql, ": %d", id);
		return;
	}
	floe_buf_printf(sql, ": {__duckdb_field_id: %d", id);
	if (t->kind == FLOE_PLAN_LIST) {
		floe_buf_puts(sql, ", ");
		put_field_ids(sql, "element", t->element_id, t->element);
	}
	for (size_t i = 0; t->kind != FLOE_PLAN_LIST && i < t->n_fields; i++) {
		floe_buf_puts(sql, ", ");
		put_field_ids(sql, t->fields[i].name, t->fields[i].id, t->fields[i].type);
	}
	floe_buf_putc(sql, '}');
}

/* The lock's silver columns as an Iceberg schema (every column optional: a model may null one). */
static int silver_schema(floe_iceberg_schema **out, floe_arena *a, const floe_lock_silver *s)
{
	floe_iceberg_schema *schema = floe_arena_alloc(a, sizeof(*schema));
	memset(schema, 0, sizeof(*schema));
	schema->n_fields = s->n_columns;
	schema->fields = floe_arena_alloc(a, (s->n_columns + 1) * sizeof(floe_iceberg_field));
	for (size_t i = 0; i < s->n_columns; i++) {
		floe_iceberg_field *f = &schema->fields[i];
		memset(f, 0, sizeof(*f));
		f->id = s->columns[i].id;
		f->name = s->columns[i].name;
		f->doc = s->columns[i].description;
		if (floe_bronze_lock_type(&f->type, a, s->columns[i].type) < 0)
			return floe_error_context("in silver column \"%s\"", f->name);
	}
	*out = schema;
	return 0;
}

/* SELECT list casting each column of `schema` to its Iceberg type's DuckDB type. */
static void put_casts(floe_buf *sql, const floe_iceberg_schema *schema, const char *prefix)
{
	for (size_t i = 0; i < schema->n_fields; i++) {
		floe_buf_printf(sql, "%sCAST(%s", i ? ", " : "", prefix);
		floe_buf_put_quoted(sql, schema->fields[i].name, '"');
		floe_buf_puts(sql, " AS ");
		floe_query_duck_type(sql, schema->fields[i].type);
		floe_buf_puts(sql, ") AS ");
		floe_buf_put_quoted(sql, schema->fields[i].name, '"');
	}
}

static int put_select(floe_buf *sql, floe_arena *a, const floe_lock_silver *s, const char *prefix)
{
	floe_iceberg_schema *schema;
	if (silver_schema(&schema, a, s) < 0)
		return -1;
	put_casts(sql, schema, prefix);
	return 0;
}

static const char *tmp_uri_of(silver_job *job, const char *tmp)
{
	return floe_iceberg_path_to_uri(job->arena, tmp);
}

static void remove_tmp(silver_job *job, const char *tmp)
{
	floe_iceberg_storage *local = floe_iceberg_storage_local();
	floe_iceberg_storage_remove(local, tmp_uri_of(job, tmp));
	floe_iceberg_storage_free(local);
}

/*
 * DuckDB runs `copy` (a COPY … TO whose target follows: the statement is completed here) into a
 * private temporary file (*tmp, under the job's temporary directory, removed when the build ends)
 * and `out` describes it from its footer, its path the temporary file's until it is stored.
 */
static int copy_to_tmp(silver_job *job, floe_buf *copy, const char *options, const char **tmp,
		       floe_iceberg_data_file *out)
{
	floe_iceberg_storage *local = floe_iceberg_storage_local();
	floe_parquet_reader *r = NULL;
	floe_parquet_file_stats st;
	floe_buf bytes = FLOE_BUF_INIT;
	int error = -1;
	*tmp = NULL;
	if (!job->tmp_dir) {
		const char *dir_env = getenv("TMPDIR");
		char *dir = floe_arena_printf(job->arena, "%s/floe-silver-XXXXXX", dir_env && dir_env[0] ? dir_env : "/tmp");
		if (!mkdtemp(dir)) {
			floe_error_set_errno(FLOE_ERR_IO, "could not create a temporary directory under \"%s\"",
					     dir_env && dir_env[0] ? dir_env : "/tmp");
			goto cleanup;
		}
		job->tmp_dir = dir;
	}
	const char *file = floe_arena_printf(job->arena, "%s/%d.parquet", job->tmp_dir, job->n_tmp++);
	floe_buf_put_quoted(copy, file, '\'');
	floe_buf_puts(copy, options);
	*tmp = file;
	const char *tmp_uri = floe_iceberg_path_to_uri(job->arena, file);
	if (floe_engine_exec(job->engine, floe_buf_cstr(copy)) < 0 || floe_iceberg_storage_read(local, &bytes, tmp_uri) < 0 ||
	    floe_parquet_reader_open_mem(&r, bytes.ptr, bytes.len, NULL) < 0 ||
	    floe_parquet_reader_file_stats(&st, r, job->arena) < 0)
		goto cleanup;
	floe_iceberg_data_file_from_parquet(out, job->arena, tmp_uri, &st);
	silver_step(job, "copy (DuckDB writes a file)");
	error = 0;
cleanup:
	if (error < 0 && *tmp)
		floe_iceberg_storage_remove(local, tmp_uri_of(job, *tmp));
	floe_parquet_reader_free(r);
	floe_iceberg_storage_free(local);
	floe_buf_free(&bytes);
	return error;
}

/* The temporary file `tmp` into `dst` at `uri` through the storage layer (created durably, never replacing a file); `tmp` removed. */
static int store_tmp(silver_job *job, floe_iceberg_storage *dst, const char *uri, const char *tmp)
{
	floe_iceberg_storage *local = floe_iceberg_storage_local();
	floe_buf bytes = FLOE_BUF_INIT;
	int error = floe_iceberg_storage_read(local, &bytes, tmp_uri_of(job, tmp));
	if (error == 0)
		error = floe_iceberg_storage_create(dst, uri, bytes.ptr, bytes.len);
	floe_iceberg_storage_remove(local, tmp_uri_of(job, tmp));
	silver_step(job, "store (a file into the table's storage)");
	floe_iceberg_storage_free(local);
	floe_buf_free(&bytes);
	return error;
}

/* copy_to_tmp, then store_tmp at `uri` of `dst`: `out` names `uri`. */
static int store_copy(silver_job *job, floe_iceberg_storage *dst, const char *uri, floe_buf *copy, const char *options,
		      floe_iceberg_data_file *out)
{
	const char *tmp;
	if (copy_to_tmp(job, copy, options, &tmp, out) < 0 || store_tmp(job, dst, uri, tmp) < 0)
		return -1;
	out->path = uri;
	return 0;
}

/*
 * What DuckDB opens for a file of the silver table (storage.h: local storage gives the path).
 * A storage that cannot hand it over sets the error and gives "", which DuckDB then cannot open.
 */
static const char *engine_path(build *b, const char *uri)
{
	const char *path = floe_iceberg_storage_engine_uri(floe_iceberg_table_storage(b->silver), b->job->arena, uri);
	return path ? path : "";
}

/* EXISTS (a row of floe_changed with the key of `alias`'s row). */
static void put_changed(floe_buf *sql, const floe_lock_silver *s, const char *alias)
{
	floe_buf_puts(sql, "EXISTS (SELECT 1 FROM floe_changed c WHERE true");
	for (size_t k = 0; k < s->n_unique_key; k++) {
		floe_buf_puts(sql, " AND c.");
		floe_buf_put_quoted(sql, s->unique_key[k], '"');
		floe_buf_printf(sql, " = %s.", alias);
		floe_buf_put_quoted(sql, s->unique_key[k], '"');
	}
	floe_buf_putc(sql, ')');
}

/* The rows to publish when files are rewritten: the build's good rows, then the kept rows of those files. */
static int put_rows(floe_buf *sql, build *b)
{
	silver_job *job = b->job;
	floe_buf_puts(sql, "SELECT ");
	if (put_select(sql, job->arena, b->s, "") < 0)
		return -1;
	floe_buf_puts(sql, " FROM floe_build WHERE floe_row NOT IN (SELECT floe_row FROM floe_bad)");
	if (b->n_removed == 0)
		return 0;
	floe_buf_puts(sql, " UNION ALL SELECT ");
	if (put_select(sql, job->arena, b->s, "") < 0)
		return -1;
	floe_buf_puts(sql, " FROM read_parquet([");
	for (size_t i = 0; i < b->n_removed; i++) {
		floe_buf_puts(sql, i ? ", " : "");
		floe_buf_put_quoted(sql, engine_path(b, b->removed[i]), '\'');
	}
	floe_buf_puts(sql, "]) t WHERE NOT ");
	put_changed(sql, b->s, "t");
	return 0;
}

/* The COPY options with FIELD_IDS for the columns of `schema` (the lock's nested ids for `s`'s columns). */
static const char *copy_options(floe_arena *a, const floe_iceberg_schema *schema, const floe_lock_silver *s)
{
	floe_buf opts = FLOE_BUF_INIT;
	floe_buf_puts(&opts, " (FORMAT parquet, COMPRESSION zstd, FIELD_IDS {");
	for (size_t i = 0; i < schema->n_fields; i++) {
		floe_buf_puts(&opts, i ? ", " : "");
		put_field_ids(&opts, schema->fields[i].name, schema->fields[i].id, s ? s->columns[i].type : NULL);
	}
	floe_buf_puts(&opts, "})");
	const char *out = floe_arena_strdup(a, floe_buf_cstr(&opts));
	floe_buf_free(&opts);
	return out;
}

/* Rows [from, from + n) of floe_out into one new data file of the table, through its storage. */
static int write_one(build *b, const char *options, int64_t from, int64_t n)
{
	silver_job *job = b->job;
	floe_buf sql = FLOE_BUF_INIT;
	const char *tmp;
	floe_buf_printf(&sql, "COPY (SELECT * EXCLUDE (floe_n) FROM floe_out WHERE floe_n >= %lld AND floe_n < %lld "
			      "ORDER BY floe_n) TO ", (long long)from, (long long)(from + n));
	floe_iceberg_data_file d;
	int error = copy_to_tmp(job, &sql, options, &tmp, &d);
	if (error == 0 && d.record_count == 0) /* every row of the range was quarantined */
		remove_tmp(job, tmp);
	else if (error == 0) {
		*FLOE_ARENA_PUSH(job->arena, b->files, b->n_files, b->cap_files) = d;
		*FLOE_ARENA_PUSH(job->arena, b->tmp, b->n_tmp_files, b->cap_tmp) = tmp;
	}
	floe_buf_free(&sql);
	return error;
}

/*
 * The rows to publish, sorted by key, into new data files under the table's location: a keyed
 * table in files of at most bronze's target-file-rows rows (key ranges, so an incremental build
 * rewrites only the files its keys fall in), a table without a key in one file; none: no rows.
 */
static int write_files(build *b)
{
	silver_job *job = b->job;
	floe_buf sql = FLOE_BUF_INIT, rows = FLOE_BUF_INIT, n = FLOE_BUF_INIT;
	int error = -1;
	if (b->n_removed) { /* kept rows of rewritten files and new ones: sorted together */
		if (put_rows(&rows, b) < 0)
			goto cleanup;
		floe_buf_puts(&sql, "CREATE TEMP TABLE floe_out AS SELECT row_number() OVER (");
		put_key_order(&sql, b->s, "ORDER BY ");
		floe_buf_printf(&sql, ") - 1 AS floe_n, * FROM (%s)", floe_buf_cstr(&rows));
	} else { /* floe_build is sorted already: files by its numbers (a range may lose quarantined rows) */
		floe_buf_puts(&sql, "CREATE TEMP VIEW floe_out AS SELECT floe_row AS floe_n, ");
		if (put_select(&sql, job->arena, b->s, "") < 0)
			goto cleanup;
		floe_buf_puts(&sql, " FROM floe_build WHERE floe_row NOT IN (SELECT floe_row FROM floe_bad)");
	}
	if (floe_engine_exec(job->engine, floe_buf_cstr(&sql)) < 0 ||
	    floe_engine_query_text(job->engine, &n, b->n_removed ? "SELECT count(*) FROM floe_out"
								: "SELECT count(*) FROM floe_model_rows") < 0)
		goto cleanup;
	int64_t total = strtoll(floe_buf_cstr(&n), NULL, 10);
	int64_t per = b->s->n_unique_key && job->config->bronze.target_file_rows > 0 ? job->config->bronze.target_file_rows
										     : total;
	floe_iceberg_schema *schema;
	if (silver_schema(&schema, job->arena, b->s) < 0)
		goto cleanup;
	const char *options = copy_options(job->arena, schema, b->s);
	for (int64_t from = 0; from < total; from += per)
		if (write_one(b, options, from, total - from < per ? total - from : per) < 0)
			goto cleanup;
	error = 0;
cleanup:
	floe_buf_free(&sql);
	floe_buf_free(&rows);
	floe_buf_free(&n);
	return error;
}

/* Delete the new data files (nothing references them). */
static void discard_files(build *b)
{
	for (size_t i = 0; i < b->n_files; i++)
		if (b->tmp[i])
			remove_tmp(b->job, b->tmp[i]);
		else if (b->files[i].path)
			floe_iceberg_storage_remove(floe_iceberg_table_storage(b->silver), b->files[i].path);
	b->n_files = b->n_tmp_files = 0;
}

/*
 * The silver table, created now when it is not yet (with the lock's columns and field ids, every
 * column optional): a build whose tests fail leaves no table behind, not even an empty one.
 */
static int create_silver(build *b)
{
	silver_job *job = b->job;
	floe_iceberg_schema *schema;
	floe_iceberg_create_opts co = FLOE_ICEBERG_CREATE_OPTS_INIT;
	floe_iceberg_kv props[] = { { "floe.source-table", job->table->bronze } };
	co.properties = props;
	co.n_properties = 1;
	if (b->silver)
		return 0;
	if (silver_schema(&schema, job->arena, b->s) < 0)
		return -1;
	return floe_iceberg_table_create(&b->silver, job->cat, job->ns, job->name, schema, &co);
}

/* The new files from their temporary place into the table's storage, each at a new data URI. */
static int store_files(build *b)
{
	silver_job *job = b->job;
	if (create_silver(b) < 0)
		return -1;
	for (size_t i = 0; i < b->n_files; i++) {
		const char *uri = floe_iceberg_table_new_data_uri(b->silver, job->arena, "parquet");
		if (store_tmp(job, floe_iceberg_table_storage(b->silver), uri, b->tmp[i]) < 0) {
			b->tmp[i] = NULL; /* removed: nothing of it is left */
			b->files[i].path = NULL;
			return -1;
		}
		b->tmp[i] = NULL;
		b->files[i].path = uri;
	}
	return 0;
}

static const char *built_from(const build *b, const char *key);

/*
 * floe_fresh: the build's new rows as written (an incremental build); job->audit_fresh when the
 * published table passed the same error tests (floe.tests-sha256 of its snapshot).
 */
static int fresh_view(build *b)
{
	silver_job *job = b->job;
	floe_buf sql = FLOE_BUF_INIT;
	char tests[FLOE_SHA256_HEX_LEN + 1];
	const char *passed = built_from(b, "floe.tests-sha256");
	silver_tests_sha(tests, b->s);
	job->audit_fresh = passed && strcmp(passed, tests) == 0;
	floe_buf_puts(&sql, "CREATE TEMP VIEW floe_fresh AS SELECT ");
	int error = put_select(&sql, job->arena, b->s, "");
	floe_buf_puts(&sql, " FROM floe_build WHERE floe_row NOT IN (SELECT floe_row FROM floe_bad)");
	if (error == 0)
		error = floe_engine_exec(job->engine, floe_buf_cstr(&sql));
	floe_buf_free(&sql);
	return error;
}

/*
 * floe_written: the table as it would be published — untouched live files plus the new ones. A
 * full build publishes exactly floe_out's rows (the new files were written from it, with the lock's
 * types): the tests read them there, not decoded again from the files.
 */
static int written_view(build *b)
{
	silver_job *job = b->job;
	floe_buf sql = FLOE_BUF_INIT;
	size_t n = 0;
	if (!b->incremental)
		return floe_engine_exec(job->engine, "CREATE TEMP VIEW floe_written AS SELECT * EXCLUDE (floe_n) FROM floe_out");
	if (fresh_view(b) < 0)
		return -1;
	floe_buf_puts(&sql, "CREATE TEMP VIEW floe_written AS SELECT * FROM read_parquet([");
	for (size_t i = 0; b->previous && i < b->previous->n_files; i++) {
		const char *uri = b->previous->files[i].file.path;
		bool rewritten = false;
		for (size_t k = 0; k < b->n_removed; k++)
			rewritten |= strcmp(b->removed[k], uri) == 0;
		if (!rewritten) {
			floe_buf_puts(&sql, n++ ? ", " : "");
			floe_buf_put_quoted(&sql, engine_path(b, uri), '\'');
		}
	}
	for (size_t i = 0; i < b->n_files; i++) { /* not stored yet: at their temporary place */
		floe_buf_puts(&sql, n++ ? ", " : "");
		floe_buf_put_quoted(&sql, b->tmp[i], '\'');
	}
	floe_buf_puts(&sql, "])");
	if (n == 0) { /* nothing to publish: the tests see an empty table of the lock's columns */
		floe_buf_clear(&sql);
		floe_buf_puts(&sql, "CREATE TEMP VIEW floe_written AS SELECT * FROM floe_fresh LIMIT 0");
	}
	int error = floe_engine_exec(job->engine, floe_buf_cstr(&sql));
	floe_buf_free(&sql);
	return error;
}

/* The silver table and its live files, its schema brought to the lock's; b->silver NULL: not created yet. */
static int open_silver(build *b)
{
	silver_job *job = b->job;
	floe_iceberg_schema *schema;
	if (floe_iceberg_table_load(&b->silver, job->cat, job->ns, job->name) < 0) {
		b->silver = NULL;
		if (floe_error_last()->cls != FLOE_ERR_CONFIG)
			return -1;
		floe_error_clear(); /* created when its first build publishes (create_silver) */
		return 0;
	}
	if (silver_schema(&schema, job->arena, b->s) < 0)
		return -1;
	int changed = silver_align_schema(b->silver, job->arena, schema);
	b->schema_changed = changed > 0;
	return changed < 0 ? -1 : floe_iceberg_table_plan(&b->previous, job->arena, b->silver, -1);
}

/* The current silver snapshot's summary value of `key`, or NULL. */
static const char *built_from(const build *b, const char *key)
{
	const floe_iceberg_snapshot *snap =
		b->silver ? floe_iceberg_metadata_current_snapshot(floe_iceberg_table_metadata(b->silver)) : NULL;
	return snap ? floe_iceberg_snapshot_summary(snap, key) : NULL;
}

/* Whether the published table was built from this very bronze snapshot by this very model. */
static bool unchanged(const build *b)
{
	const char *bronze = built_from(b, "floe.bronze-snapshot-id"), *sha = built_from(b, "floe.model-sha256");
	char want[32];
	snprintf(want, sizeof(want), "%lld", (long long)b->job->bronze_snapshot);
	return !b->job->full_refresh && !b->schema_changed && bronze && sha && strcmp(bronze, want) == 0 &&
	       strcmp(sha, b->model_sha) == 0;
}

/* A view over `files` of `all` (the bronze snapshot's schema): no rows when there are none. */
static int files_view(silver_job *job, floe_iceberg_table *t, const char *name, const floe_iceberg_scan *all,
		      floe_iceberg_scan_file *files, size_t n)
{
	floe_iceberg_scan part = *all;
	part.files = files, part.n_files = n;
	return floe_query_view(job->engine, job->arena, "main", name, floe_iceberg_table_storage(t), &part, all->schema);
}

/* The files of `a` that `b` does not have. */
static size_t files_minus(floe_arena *arena, const floe_iceberg_scan *a, const floe_iceberg_scan *b,
			  floe_iceberg_scan_file **out)
{
	size_t n = 0;
	*out = floe_arena_alloc(arena, (a->n_files + 1) * sizeof(**out));
	for (size_t i = 0; i < a->n_files; i++) {
		bool found = false;
		for (size_t k = 0; k < b->n_files && !found; k++)
			found = strcmp(a->files[i].file.path, b->files[k].file.path) == 0;
		if (!found)
			(*out)[n++] = a->files[i];
	}
	return n;
}

/*
 * floe_diff: per key whose rows differ between bronze snapshot `from` and the verified one (rows
 * of the files one has and the other has not, matched by key and compared whole) — inserted,
 * updated, deleted — the key, and its row in the verified snapshot (floe_new, NULL: deleted), so
 * that source() reads the changed rows from here rather than bronze's files again. floe_changed:
 * the keys.
 */
static int changed_keys(build *b, floe_iceberg_table *bronze, int64_t from, const floe_iceberg_scan *now)
{
	silver_job *job = b->job;
	floe_iceberg_scan *before = NULL;
	floe_iceberg_scan_file *added, *removed;
	floe_buf sql = FLOE_BUF_INIT;
	int error = -1;
	if (floe_iceberg_table_plan(&before, job->arena, bronze, from) < 0)
		goto cleanup;
	size_t n_added = files_minus(job->arena, now, before, &added);
	size_t n_removed = files_minus(job->arena, before, now, &removed);
	if (files_view(job, bronze, "floe_added", now, added, n_added) < 0 ||
	    files_view(job, bronze, "floe_removed", now, removed, n_removed) < 0)
		goto cleanup;
	/* a full join on the key (bronze's keys are unique, never NULL) and whole rows compared: 8x
	   faster than EXCEPT ALL */
	const floe_lock_silver *s = b->s;
	floe_buf_puts(&sql, "CREATE TEMP TABLE floe_diff AS SELECT ");
	for (size_t k = 0; k < s->n_unique_key; k++) {
		floe_buf_puts(&sql, "coalesce(a.");
		floe_buf_put_quoted(&sql, s->unique_key[k], '"');
		floe_buf_puts(&sql, ", r.");
		floe_buf_put_quoted(&sql, s->unique_key[k], '"');
		floe_buf_puts(&sql, ") AS ");
		floe_buf_put_quoted(&sql, s->unique_key[k], '"');
		floe_buf_puts(&sql, ", ");
	}
	floe_buf_puts(&sql, "CASE WHEN a.");
	floe_buf_put_quoted(&sql, s->unique_key[0], '"');
	floe_buf_puts(&sql, " IS NOT NULL THEN a END AS floe_new FROM floe_added a FULL JOIN floe_removed r ON true");
	for (size_t k = 0; k < s->n_unique_key; k++) {
		floe_buf_puts(&sql, " AND a.");
		floe_buf_put_quoted(&sql, s->unique_key[k], '"');
		floe_buf_puts(&sql, " = r.");
		floe_buf_put_quoted(&sql, s->unique_key[k], '"');
	}
	floe_buf_puts(&sql, " WHERE a IS DISTINCT FROM r; CREATE TEMP VIEW floe_changed AS SELECT * EXCLUDE (floe_new) "
			    "FROM floe_diff");
	error = floe_engine_exec(job->engine, floe_buf_cstr(&sql));
cleanup:
	floe_buf_free(&sql);
	return error;
}

/* b->removed: the published silver files holding a changed key. */
static int files_to_rewrite(build *b)
{
	silver_job *job = b->job;
	floe_buf sql = FLOE_BUF_INIT;
	floe_engine_result *r = NULL;
	int error = -1;
	if (!b->previous || b->previous->n_files == 0)
		return 0;
	floe_buf_puts(&sql, "SELECT DISTINCT filename FROM read_parquet([");
	for (size_t i = 0; i < b->previous->n_files; i++) {
		floe_buf_puts(&sql, i ? ", " : "");
		floe_buf_put_quoted(&sql, engine_path(b, b->previous->files[i].file.path), '\'');
	}
	floe_buf_puts(&sql, "], filename = true) t WHERE ");
	put_changed(&sql, b->s, "t");
	if (floe_engine_query(job->engine, &r, floe_buf_cstr(&sql)) < 0)
		goto cleanup;
	for (size_t i = 0; i < floe_engine_result_rows(r); i++)
		for (size_t k = 0; k < b->previous->n_files; k++) {
			const char *uri = b->previous->files[k].file.path;
			if (strcmp(engine_path(b, uri), floe_engine_result_text(r, i, 0)) == 0)
				*FLOE_ARENA_PUSH(job->arena, b->removed, b->n_removed, b->cap_removed) = uri;
		}
	error = 0;
cleanup:
	floe_engine_result_free(r);
	floe_buf_free(&sql);
	return error;
}

/* Whether the model is the one `floe generate` wrote (no hand edit): its row for a key depends only on that key's rows. */
static bool model_as_generated(const build *b)
{
	const floe_lock_table *t = b->job->table;
	for (size_t i = 0; i < t->n_files; i++)
		if (strcmp(t->files[i].path, b->s->model) == 0)
			return strcmp(t->files[i].sha256, b->model_sha) == 0;
	return false;
}

/*
 * The bronze snapshot an incremental build may start from: the last build's, same model; else -1.
 * An `incremental` model, or a `table` model as generated (a full-mode bronze table: only the keys
 * whose rows differ from the last build's snapshot are rebuilt, as for incremental bronze).
 */
static int64_t incremental_base(const build *b)
{
	const char *from = built_from(b, "floe.bronze-snapshot-id"), *sha = built_from(b, "floe.model-sha256");
	bool per_key = strcmp(b->s->materialized, "incremental") == 0 || model_as_generated(b);
	bool ok = !b->job->full_refresh && !b->schema_changed && b->s->n_unique_key > 0 && per_key && from && sha &&
		  strcmp(sha, b->model_sha) == 0;
	return ok ? strtoll(from, NULL, 10) : -1;
}

/*
 * "bronze"."X", what source() reads: the verified snapshot whole, or — incremental — only
 * the rows of the keys bronze changed since the snapshot silver was last built from.
 */
static int choose_scope(build *b, floe_iceberg_table *bronze, const floe_iceberg_scan *now, const char *bns,
			const char *bname)
{
	silver_job *job = b->job;
	floe_buf sql = FLOE_BUF_INIT, n = FLOE_BUF_INIT;
	int64_t from = incremental_base(b);
	if (from > 0 && !floe_iceberg_metadata_snapshot(floe_iceberg_table_metadata(bronze), from))
		from = -1; /* the snapshot silver was built from is expired: build in full */
	int error = -1;
	floe_buf_puts(&sql, "CREATE SCHEMA IF NOT EXISTS ");
	floe_buf_put_quoted(&sql, bns, '"');
	floe_buf_puts(&sql, "; CREATE VIEW ");
	put_ident(&sql, bns, bname);
	floe_buf_puts(&sql, " AS SELECT * FROM ");
	if (from > 0) {
		if (changed_keys(b, bronze, from, now) < 0 || files_to_rewrite(b) < 0 ||
		    floe_engine_query_text(job->engine, &n, "SELECT count(*) FROM floe_changed") < 0)
			goto cleanup;
		b->incremental = true;
		job->result->changed_keys = strtoll(floe_buf_cstr(&n), NULL, 10);
		/* a changed key's row, if it has one, is in a file added since (floe_diff kept it): keys
		   are unique, and an untouched file holds the same rows as before */
		floe_buf_puts(&sql, "(SELECT floe_new.* FROM floe_diff WHERE floe_new IS NOT NULL)");
	} else {
		put_ident(&sql, BRONZE_FULL, bname);
	}
	error = floe_engine_exec(job->engine, floe_buf_cstr(&sql));
cleanup:
	floe_buf_free(&sql);
	floe_buf_free(&n);
	return error;
}

/* The quarantine table's schema: the table's unmasked key columns, then the rule, run and time. */
static int quarantine_schema(floe_iceberg_schema **out, floe_arena *a, const floe_lock_silver *s)
{
	floe_iceberg_schema *all, *q = floe_arena_alloc(a, sizeof(*q));
	static const char *const extra[] = { "floe_rule", "floe_run_id", "floe_failed_at" };
	if (silver_schema(&all, a, s) < 0)
		return -1;
	memset(q, 0, sizeof(*q));
	q->fields = floe_arena_alloc(a, (s->n_unique_key + 4) * sizeof(floe_iceberg_field));
	for (size_t k = 0; k < s->n_unique_key; k++)
		for (size_t i = 0; i < s->n_columns; i++)
			if (strcmp(s->columns[i].name, s->unique_key[k]) == 0 && !s->columns[i].pii) {
				q->fields[q->n_fields] = all->fields[i];
				q->fields[q->n_fields].doc = NULL;
				q->fields[q->n_fields].id = (int32_t)q->n_fields + 1;
				q->n_fields++;
			}
	for (size_t i = 0; i < 3; i++) {
		floe_iceberg_field *f = &q->fields[q->n_fields];
		memset(f, 0, sizeof(*f));
		f->id = (int32_t)q->n_fields + 1;
		f->name = extra[i];
		f->required = true;
		f->type = floe_iceberg_type_new(a, i == 2 ? FLOE_ICEBERG_TIMESTAMPTZ : FLOE_ICEBERG_STRING);
		q->n_fields++;
	}
	*out = q;
	return 0;
}

/* Whether the quarantine table holds every key column of `s` (none is masked): its rows can be matched to keys. */
static bool quarantine_keyed(const floe_lock_silver *s)
{
	size_t n = 0;
	for (size_t k = 0; k < s->n_unique_key; k++)
		for (size_t i = 0; i < s->n_columns; i++)
			n += strcmp(s->columns[i].name, s->unique_key[k]) == 0 && !s->columns[i].pii;
	return s->n_unique_key > 0 && n == s->n_unique_key;
}

/*
 * COPY's query of the quarantine's rows after this build: this build's failing rows, then
 * (incremental) the earlier rows of the keys it did not change — unless a key column is masked
 * (nothing to match on): then every earlier row. `old` the table's live files (NULL: none).
 */
static void put_quarantine_rows(floe_buf *sql, build *b, const floe_iceberg_schema *schema, floe_iceberg_table *t,
				const floe_iceberg_scan *old)
{
	silver_job *job = b->job;
	floe_buf_puts(sql, "COPY (SELECT ");
	put_casts(sql, schema, "");
	floe_buf_puts(sql, " FROM (SELECT b.*, q.floe_rule, ");
	floe_buf_put_quoted(sql, job->run_id, '\'');
	floe_buf_puts(sql, " AS floe_run_id, now() AS floe_failed_at FROM floe_bad q JOIN floe_build b USING (floe_row)"
			   " ORDER BY floe_row, floe_rule)");
	if (b->incremental && old && old->n_files) {
		floe_buf_puts(sql, " UNION ALL SELECT * FROM read_parquet([");
		for (size_t i = 0; i < old->n_files; i++) {
			const char *uri = floe_iceberg_storage_engine_uri(floe_iceberg_table_storage(t), job->arena,
									  old->files[i].file.path);
			floe_buf_puts(sql, i ? ", " : "");
			floe_buf_put_quoted(sql, uri ? uri : "", '\'');
		}
		floe_buf_puts(sql, "]) t");
		if (quarantine_keyed(b->s)) {
			floe_buf_puts(sql, " WHERE NOT ");
			put_changed(sql, b->s, "t");
		}
	}
	floe_buf_puts(sql, ") TO ");
}

/*
 * silver.X__quarantine after a published build holds the rows the table keeps out, each once per
 * failed rule: a full build replaces its rows with this build's; an incremental one replaces those
 * of the keys it changed (docs/silver.md). Created at the first build that quarantines a row.
 */
static int write_quarantine(build *b)
{
	silver_job *job = b->job;
	floe_iceberg_schema *schema;
	floe_iceberg_table *t = NULL;
	floe_iceberg_scan *old = NULL;
	floe_iceberg_data_file d;
	floe_buf sql = FLOE_BUF_INIT;
	const char *name = floe_arena_printf(job->arena, "%s__quarantine", job->name);
	int error = -1;
	if (b->incremental && job->result->changed_keys == 0)
		return 0; /* no key changed: what it holds stands */
	if (quarantine_schema(&schema, job->arena, b->s) < 0)
		goto cleanup;
	if (floe_iceberg_table_load(&t, job->cat, job->ns, name) < 0) {
		floe_error_clear();
		error = 0;
		if (job->result->quarantined == 0 ||
		    (error = floe_iceberg_table_create(&t, job->cat, job->ns, name, schema, NULL)) < 0)
			goto cleanup;
		error = -1;
	}
	if (floe_iceberg_table_plan(&old, job->arena, t, -1) < 0)
		goto cleanup;
	if (job->result->quarantined == 0 && old->n_files == 0) { /* nothing held, nothing to hold */
		error = 0;
		goto cleanup;
	}
	const char *uri = floe_iceberg_table_new_data_uri(t, job->arena, "parquet");
	put_quarantine_rows(&sql, b, schema, t, old);
	floe_iceberg_kv sum[] = { { "floe.run-id", job->run_id } };
	floe_iceberg_commit_opts o = FLOE_ICEBERG_COMMIT_OPTS_INIT;
	o.summary = sum, o.n_summary = 1;
	if (store_copy(job, floe_iceberg_table_storage(t), uri, &sql, copy_options(job->arena, schema, NULL), &d) < 0)
		goto cleanup;
	size_t n = d.record_count > 0;
	if (!n)
		floe_iceberg_storage_remove(floe_iceberg_table_storage(t), uri);
	if (floe_iceberg_table_replace(t, &d, n, &o) < 0) {
		if (n && !floe_iceberg_table_may_have_landed(t))
			floe_iceberg_storage_remove(floe_iceberg_table_storage(t), uri);
		goto cleanup;
	}
	error = 0;
cleanup:
	if (error < 0)
		floe_error_context("while writing %s.%s", job->ns, name);
	floe_iceberg_table_free(t);
	floe_buf_free(&sql);
	return error;
}

/* The one commit that publishes the build: replace, or (incremental) rewrite the touched files. */
static int publish(build *b)
{
	silver_job *job = b->job;
	char snap[32];
	snprintf(snap, sizeof(snap), "%lld", (long long)job->bronze_snapshot);
	char tests[FLOE_SHA256_HEX_LEN + 1];
	silver_tests_sha(tests, b->s);
	floe_iceberg_kv sum[] = { { "floe.run-id", job->run_id }, { "floe.bronze-snapshot-id", snap },
				  { "floe.model-sha256", b->model_sha }, { "floe.tests-sha256", tests } };
	floe_iceberg_commit_opts o = FLOE_ICEBERG_COMMIT_OPTS_INIT;
	o.summary = sum, o.n_summary = 4;
	o.expect_snapshot_id = b->previous && b->previous->snapshot_id > 0 ? b->previous->snapshot_id
									    : FLOE_ICEBERG_NO_SNAPSHOT;
	if (store_files(b) < 0)
		return floe_error_context("while publishing %s.%s", job->ns, job->name);
	int rc = b->incremental
			 ? floe_iceberg_table_rewrite(b->silver, b->removed, b->n_removed, b->files, b->n_files, &o)
			 : floe_iceberg_table_replace(b->silver, b->files, b->n_files, &o);
	if (rc < 0) {
		if (!floe_iceberg_table_may_have_landed(b->silver))
			discard_files(b);
		b->n_files = 0; /* kept when the commit may have landed: only orphan removal may delete them */
		return floe_error_context("while publishing %s.%s", job->ns, job->name);
	}
	const floe_iceberg_snapshot *cur = floe_iceberg_metadata_current_snapshot(floe_iceberg_table_metadata(b->silver));
	job->result->snapshot_id = cur ? cur->snapshot_id : 0;
	return 0;
}

/* Per rule, the rows this build quarantined, into the notes. */
static int note_quarantine(silver_job *job)
{
	floe_engine_result *r = NULL;
	if (floe_engine_query(job->engine, &r, "SELECT floe_rule, count(*) FROM floe_bad GROUP BY 1 ORDER BY 1") < 0)
		return -1;
	for (size_t i = 0; i < floe_engine_result_rows(r); i++) {
		floe_buf_puts(&job->notes, job->notes.len ? "; " : "");
		floe_buf_printf(&job->notes, "%s: %s row%s quarantined", floe_engine_result_text(r, i, 0),
				floe_engine_result_text(r, i, 1), strcmp(floe_engine_result_text(r, i, 1), "1") ? "s" : "");
	}
	floe_engine_result_free(r);
	return 0;
}

/* Quarantine, write, audit the written files, and publish only when every error test passed. */
static int audit_publish(build *b)
{
	silver_job *job = b->job;
	floe_silver_result *r = job->result;
	floe_buf n = FLOE_BUF_INIT;
	int error = -1;
	if (silver_quarantine(job, &r->quarantined) < 0 || note_quarantine(job) < 0)
		goto cleanup;
	silver_step(job, "quarantine");
	if (write_files(b) < 0)
		goto cleanup;
	silver_step(job, "write");
	if (written_view(b) < 0 || silver_audit(job, "floe_written") < 0 ||
	    floe_engine_query_text(job->engine, &n, "SELECT count(*) FROM floe_written") < 0)
		goto cleanup;
	silver_step(job, "audit");
	r->rows = strtoll(floe_buf_cstr(&n), NULL, 10);
	if (job->table_failed) {
		floe_error_set(FLOE_ERR_CHECK, "%s.%s was not published: an error-severity test failed", job->ns, job->name);
		floe_error_detail("%s", floe_buf_cstr(&job->notes));
		floe_error_hint("The previous snapshot stays current. Fix the source rows (or the rule), then run again.");
		goto cleanup;
	}
	bool nothing = b->incremental && b->n_removed == 0 && b->n_files == 0;
	if (!nothing && publish(b) < 0)
		goto cleanup;
	silver_step(job, "publish");
	b->n_files = 0; /* committed: they belong to the table now */
	if (write_quarantine(b) < 0)
		goto cleanup;
	silver_step(job, "quarantine table");
	error = 0;
cleanup:
	discard_files(b); /* never referenced: the audit failed (or nothing is left: committed) */
	floe_buf_free(&n);
	return error;
}

/* Two names of `fields` DuckDB cannot tell apart (its names ignore case), at any depth; NULL: none. */
static const char *case_twins(floe_arena *a, const floe_iceberg_field *fields, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t k = i + 1; k < n; k++)
			if (strcasecmp(fields[i].name, fields[k].name) == 0)
				return floe_arena_printf(a, "\"%s\" and \"%s\"", fields[i].name, fields[k].name);
		const floe_iceberg_type *t = fields[i].type;
		while (t->id == FLOE_ICEBERG_LIST)
			t = t->element;
		const char *inner = t->id == FLOE_ICEBERG_STRUCT ? case_twins(a, t->fields, t->n_fields) : NULL;
		if (inner)
			return inner;
	}
	return NULL;
}

int silver_build_table(silver_job *job)
{
	build b = { .job = job, .s = job->table->silver };
	floe_iceberg_table *bronze = NULL;
	floe_iceberg_scan *scan = NULL;
	floe_buf model = FLOE_BUF_INIT;
	int error = -1;
	const char *bns, *bname;
	split(job->arena, job->table->bronze, &bns, &bname);
	split(job->arena, b.s->table, &job->ns, &job->name);
	silver_step(job, "start");
	if (floe_iceberg_table_load(&bronze, job->cat, bns, bname) < 0 ||
	    floe_iceberg_table_plan(&scan, job->arena, bronze, job->bronze_snapshot) < 0)
		goto cleanup;
	const char *twins = case_twins(job->arena, scan->schema->fields, scan->schema->n_fields);
	if (twins) { /* as floe query leaves it out: DuckDB would take one name for the other */
		job->result->state = "skipped";
		job->result->detail = floe_arena_printf(job->arena, "DuckDB cannot build it: the names %s of %s differ "
								    "only in case, and DuckDB's names ignore case", twins,
							job->table->bronze);
		error = 0;
		goto cleanup;
	}
	if (open_silver(&b) < 0 || render_model(&b, &model) < 0)
		goto cleanup;
	silver_step(job, "open");
	if (unchanged(&b)) {
		job->result->state = "unchanged";
		job->result->rows = b.previous ? b.previous->record_count : 0;
		error = 0;
		goto cleanup;
	}
	const char *key = NULL;
	if (floe_config_pii_key(&key, job->config) < 0 || floe_engine_open(&job->engine, NULL) < 0)
		goto cleanup;
	floe_engine_hide_data_in_errors(job->engine); /* a failed build's error never quotes a row's value */
	if ((key && floe_engine_set_pii_key(job->engine, key, strlen(key)) < 0) || parent_views(job) < 0 ||
	    floe_engine_exec(job->engine, "CREATE SCHEMA IF NOT EXISTS \"" BRONZE_FULL "\"") < 0 ||
	    floe_query_view(job->engine, job->arena, BRONZE_FULL, bname, floe_iceberg_table_storage(bronze), scan,
			    scan->schema) < 0 ||
	    choose_scope(&b, bronze, scan, bns, bname) < 0)
		goto cleanup;
	silver_step(job, "scope");
	if (run_model(&b, &model) < 0)
		goto cleanup;
	silver_step(job, "model");
	error = audit_publish(&b);
cleanup:
	floe_iceberg_table_free(bronze);
	floe_iceberg_table_free(b.silver);
	floe_engine_close(job->engine);
	job->engine = NULL;
	if (job->tmp_dir)
		rmdir(job->tmp_dir); /* empty: every file in it was removed */
	job->tmp_dir = NULL;
	floe_buf_free(&model);
	return error;
}
