/*
 * model.c — what a silver model reads and returns: the model file rendered (source() is the
 * table's own bronze table, ref() a silver table of the plan), views of the silver tables the
 * build reads (its own, its ref()s, its relationships parents), and the model run into
 * floe_build (sorted by the key unless a full merge-on-read build), its columns checked against the lock's.
 */
#include "silver/silver_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/sha256.h"
#include "gen/gen.h"
#include "query/query.h"

#include <string.h>
#include <strings.h>

void silver_put_ident(floe_buf *b, const char *ns, const char *name)
{
	floe_buf_put_quoted(b, ns, '"');
	floe_buf_putc(b, '.');
	floe_buf_put_quoted(b, name, '"');
}

const char *silver_ident(floe_arena *a, const char *ns, const char *name)
{
	floe_buf b = FLOE_BUF_INIT;
	silver_put_ident(&b, ns, name);
	const char *out = floe_arena_strdup(a, floe_buf_cstr(&b));
	floe_buf_free(&b);
	return out;
}

/* "ns.name" split at its first dot into the arena. */
void silver_split(floe_arena *a, const char *qualified, const char **ns, const char **name)
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
	silver_split(job->arena, job->table->bronze, &ns, &name);
	if (strcmp(source, ns) != 0 || (strcmp(table, name) != 0 && !is_model(job->table->silver, table)))
		return NULL;
	return silver_ident(job->arena, ns, name);
}

/* The i-th table of the lock's silver tables, split into *ns and *name; false: it has none. */
static bool silver_at(silver_job *job, size_t i, const char **ns, const char **name)
{
	const floe_lock_silver *s = floe_lock_at(job->lock, i)->silver;
	if (s)
		silver_split(job->arena, s->table, ns, name);
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
			return silver_ident(job->arena, ns, name);
		}
	return NULL;
}

/* A view "ns"."name" over the current snapshot of that Iceberg table: 1; 0 when it has no files. */
static int current_view(silver_job *job, const char *ns, const char *name, const char *view_ns)
{
	return floe_silver_current_view(job->engine, job->cat, job->arena, ns, name, view_ns);
}

int silver_empty_view(silver_job *job, const floe_lock_silver *s, const char *ns, const char *name)
{
	floe_iceberg_schema *schema;
	floe_iceberg_scan none = { .snapshot_id = -1 };
	if (silver_schema(&schema, job->arena, s) < 0)
		return -1;
	return floe_query_view(job->engine, job->arena, ns, name, NULL, &none, schema);
}

/*
 * Whether this build reads silver table `s` by its name: itself ({{ this }}), a ref() of the model,
 * a relationships parent when there is no catalog (with one, the test makes its own view of the
 * parent: audit.c's relationships_scope).
 */
static bool needed(silver_job *job, const floe_lock_silver *s)
{
	if (s == job->table->silver)
		return true;
	for (size_t i = 0; i < job->n_refs; i++)
		if (job->refs[i] == s)
			return true;
	for (size_t i = 0; !job->cat && i < job->table->silver->n_tests; i++) {
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
int silver_parent_views(silver_job *job)
{
	const char *ns, *name;
	for (size_t i = 0; i < floe_lock_count(job->lock); i++) {
		if (!silver_at(job, i, &ns, &name) || !needed(job, floe_lock_at(job->lock, i)->silver))
			continue;
		int made = current_view(job, ns, name, ns);
		if (made < 0 || (made == 0 && silver_empty_view(job, floe_lock_at(job->lock, i)->silver, ns, name) < 0))
			return -1;
	}
	return 0;
}

/*
 * The model text floe renders: the file — or, when floe proved bronze unique on the key, the same
 * model without its dedup numbering, which then keeps every row (identical output, no window pass).
 * Proven: the key is the source's primary key (the lock's unique_key), reconciliation's V3 verified
 * this very bronze snapshot on every column (its rows are the source's, so unique as the source's
 * key is), and the file is byte for byte what `floe generate` writes for this lock and floe.toml
 * (a hand edit runs as edited). NULL: run the file.
 */
static const char *proven_text(silver_build *b, const floe_buf *text)
{
	silver_job *job = b->job;
	if (b->s->n_unique_key == 0)
		return NULL;
	const char *generated = floe_gen_dbt_model(job->arena, job->config, job->table, true);
	job->model_generated = strlen(generated) == text->len && memcmp(generated, text->ptr, text->len) == 0;
	if (!job->model_generated || !job->bronze_unique)
		return NULL;
	job->dedup_skipped = true;
	return floe_gen_dbt_model(job->arena, job->config, job->table, false);
}

bool silver_model_generated(const floe_config *config, const char *pipeline_dir, const floe_lock_table *t)
{
	floe_arena *a = floe_arena_new();
	floe_buf text = FLOE_BUF_INIT;
	bool same = false;
	if (floe_fs_read_file(&text, floe_arena_printf(a, "%s/%s", pipeline_dir, t->silver->model)) == 0) {
		const char *gen = floe_gen_dbt_model(a, config, t, true);
		same = strlen(gen) == text.len && memcmp(gen, text.ptr, text.len) == 0;
	}
	floe_error_clear(); /* unreadable: the build says so */
	floe_buf_free(&text);
	floe_arena_free(a);
	return same;
}

/* The model file, rendered (a hand edit runs as edited); its SHA-256 into b->model_sha. */
int silver_render_model(silver_build *b, floe_buf *sql)
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
				      .this_relation = silver_ident(job->arena, job->ns, job->name),
				      .source = source_rel, .ref = ref_rel, .ctx = job };
	const char *run = proven_text(b, &text);
	error = floe_silver_render(sql, &cfg, job->arena, run ? run : text.ptr, run ? strlen(run) : text.len, &o);
cleanup:
	floe_buf_free(&text);
	return error;
}

/* Whether a lock column is named rowid (DuckDB's row number of a table, which a column shadows). */
bool silver_has_rowid_column(const floe_lock_silver *s)
{
	for (size_t i = 0; i < s->n_columns; i++)
		if (strcasecmp(s->columns[i].name, "rowid") == 0)
			return true;
	return false;
}

/*
 * floe_build: the model's rows numbered from 0 (floe_row) in the order they are written, its
 * columns the lock's. Sorted by the key — so that the files are key ranges and an incremental
 * copy-on-write build rewrites only those its keys fall in — except in a full merge-on-read build:
 * its incremental builds delete replaced rows by position (found by key in every file), so key
 * ranges buy nothing there, and the sort of a table over random keys cost as much as reading it.
 * The numbers are the rows' rowids in the temporary table (numbering them with row_number() OVER
 * () took a single-threaded pass as long as the model).
 */
int silver_run_model(silver_build *b, floe_buf *model_sql)
{
	silver_job *job = b->job;
	floe_buf sql = FLOE_BUF_INIT, model = *model_sql;
	floe_engine_result *r = NULL;
	int error = -1;
	while (model.len && strchr(" \t\r\n;", model.ptr[model.len - 1]))
		model.len--;
	bool rowid = !silver_has_rowid_column(b->s);
	floe_buf_printf(&sql, "CREATE TEMP TABLE floe_model_rows AS SELECT %s* FROM (%.*s\n) floe_model",
			rowid ? "" : "row_number() OVER () - 1 AS floe_row, ", (int)model.len, model.ptr);
	if (b->incremental || !b->merge_on_read)
		silver_put_key_order(&sql, b->s, " ORDER BY ");
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
