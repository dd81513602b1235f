/*
 * parallel.c — one table's full load split into key ranges, each read by its own
 * connection, all at the load's one exported snapshot, gathered into one commit.
 *
 * The coordinating transaction (load.c's, REPEATABLE READ) exported its snapshot;
 * each part opens a connection, begins REPEATABLE READ READ ONLY and imports that
 * snapshot (`SET TRANSACTION SNAPSHOT`), so the parts together are one consistent
 * read — a transaction that moves rows between ranges mid-load is seen by every
 * part or by none. Ranges split the leading key column at quantiles of its values:
 * pg_stats' histogram when ANALYZE made one, else a TABLESAMPLE of keys; the first
 * range has no lower bound and the last no upper, so stale statistics cost balance,
 * never rows. Text keys compare COLLATE "C", the order the files are sorted in, so
 * the parts' files, in range order, are the one key-sorted sequence of a serial load.
 *
 * Each part writes its own files through its own catalog and table handles and its
 * own arena (freed with the job's); the coordinator waits for every part, then
 * either adopts all their files or removes all of them.
 */
#include "bronze/bronze_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/log.h"
#include "config/scale.h"
#include "iceberg/catalog.h"
#include "iceberg/table.h"
#include "pg/introspect.h"
#include "pg/pg.h"
#include "plan/plan.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#define SAMPLE_KEYS 30000 /* keys a TABLESAMPLE aims for when pg_stats has no histogram */

typedef struct part {
	bronze_load *coord;
	bronze_job job;            /* the coordinator's, with this part's arena and result */
	floe_bronze_result result;
	bronze_load load;
	floe_iceberg_catalog *catalog;
	bronze_progress progress;  /* the part's COPY, summed into the table's meter by the coordinator */
	atomic_bool done;
	bool by_key;
	int rc;
	floe_error_saved error;    /* the part's, copied out of its thread's chain */
} part;

static void free_arena(void *a)
{
	floe_arena_free(a);
}

/* Why the key cannot split the table, or NULL. */
static const char *unusable(const bronze_load *l)
{
	if (l->job->table->n_key == 0 || l->keys.n == 0)
		return "the table has no primary key";
	switch (l->cols.copy[l->keys.col[0]].vec) {
	case FLOE_VEC_BOOLEAN:
		return "its leading key column is a boolean";
	case FLOE_VEC_LIST: case FLOE_VEC_STRUCT:
		return "its leading key column is not of an orderable base type";
	default:
		return NULL;
	}
}

/* "{0.25,0.5,0.75}": the n-1 cut points of n equal shares. */
static const char *fractions(floe_arena *a, int n)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_buf_putc(&b, '{');
	for (int i = 1; i < n; i++)
		floe_buf_printf(&b, "%s%.6f", i > 1 ? "," : "", (double)i / n);
	floe_buf_putc(&b, '}');
	const char *out = floe_arena_strdup(a, floe_buf_cstr(&b));
	floe_buf_free(&b);
	return out;
}

/* Distinct bounds, in order, from a one-column result of quantiles. */
static size_t keep_bounds(const char **out, floe_arena *a, const floe_pg_result *r)
{
	size_t n = 0;
	for (int i = 0; i < floe_pg_result_rows(r); i++) {
		if (floe_pg_result_is_null(r, i, 0))
			continue;
		const char *v = floe_pg_result_text(r, i, 0);
		if (n == 0 || strcmp(out[n - 1], v) != 0)
			out[n++] = floe_arena_strdup(a, v);
	}
	return n;
}

/*
 * The quantile query over the leading key column: from pg_stats' histogram, or from a
 * TABLESAMPLE of the table. $1 fractions, $2 schema, $3 table, $4 column.
 */
static const char *bounds_sql(bronze_load *l, bool histogram)
{
	const floe_lock_table *t = l->job->table;
	const floe_lock_column *c = &t->columns[l->keys.col[0]];
	floe_buf b = FLOE_BUF_INIT;
	const char *out = NULL;
	floe_buf_puts(&b, "select q::text from pg_catalog.unnest((select pg_catalog.percentile_disc($1::float8[]) "
			  "within group (order by k");
	floe_buf_puts(&b, bronze_key_collation(c));
	if (histogram) {
		floe_buf_printf(&b, ") from pg_catalog.unnest((select histogram_bounds from pg_catalog.pg_stats "
				    "where schemaname = $2 and tablename = $3 and attname = $4 order by inherited desc "
				    "limit 1)::text::%s[]) as k)) as q", c->pg_type);
	} else {
		floe_buf_puts(&b, ") from (select ");
		if (floe_pg_quote_ident(&b, l->pg, c->name) < 0)
			goto cleanup;
		floe_buf_puts(&b, " as k from ");
		if (floe_pg_quote_ident(&b, l->pg, t->schema) < 0)
			goto cleanup;
		floe_buf_putc(&b, '.');
		if (floe_pg_quote_ident(&b, l->pg, t->name) < 0)
			goto cleanup;
		floe_buf_printf(&b, " tablesample bernoulli ((select least(100, greatest(0.001, "
				    "100.0 * %d / greatest(1, case when c.reltuples > 0 then c.reltuples "
				    "else pg_catalog.pg_relation_size(c.oid) / 40.0 end))) from pg_catalog.pg_class c "
				    "join pg_catalog.pg_namespace n on n.oid = c.relnamespace where n.nspname = $2 "
				    "and c.relname = $3))) as s)) as q",
				SAMPLE_KEYS);
	}
	out = floe_arena_strndup(l->job->arena, floe_buf_cstr(&b), b.len);
cleanup:
	floe_buf_free(&b);
	return out;
}

/* Up to n-1 bounds into out (sets *from: where they came from); 0 when there is nothing to split. */
static int find_bounds(size_t *n_out, const char **out, const char **from, bronze_load *l, int n)
{
	const floe_lock_table *t = l->job->table;
	const char *params[4] = { fractions(l->job->arena, n), t->schema, t->name,
				  t->columns[l->keys.col[0]].name };
	floe_pg_result *r = NULL;
	*n_out = 0;
	for (int histogram = 1; histogram >= 0 && *n_out == 0; histogram--) {
		const char *sql = bounds_sql(l, histogram);
		if (!sql || floe_pg_query(&r, l->pg, sql, histogram ? 4 : 3, params) < 0)
			return floe_error_context("while choosing key ranges for %s", t->bronze);
		*n_out = keep_bounds(out, l->job->arena, r);
		floe_pg_result_free(r);
		*from = histogram ? "pg_stats' histogram" : "a sample of keys";
	}
	return 0;
}

/*
 * find_bounds under a savepoint: a key whose values cannot be cut this way (a type the
 * histogram's text does not cast back to, a relation TABLESAMPLE cannot read) leaves the
 * load's transaction usable and the reason in *why: the load goes on through one connection.
 */
static int try_bounds(size_t *n_out, const char **out, const char **from, const char **why, bronze_load *l, int n)
{
	*why = NULL;
	if (floe_pg_exec(l->pg, "SAVEPOINT floe_ranges") < 0)
		return -1;
	if (find_bounds(n_out, out, from, l, n) == 0)
		return floe_pg_exec(l->pg, "RELEASE SAVEPOINT floe_ranges");
	const floe_error *e = floe_error_last();
	*why = floe_arena_printf(l->job->arena, "could not choose key ranges (%s)", e ? e->message : "no reason given");
	floe_log_warn("%s: %s; reading through one connection", l->job->table->bronze, *why);
	floe_error_clear();
	*n_out = 0;
	return floe_pg_exec(l->pg, "ROLLBACK TO SAVEPOINT floe_ranges");
}

/* "<extraction query> restricted to [lo, hi)" — NULL bounds are open. */
static const char *range_sql(bronze_load *l, const char *lo, const char *hi)
{
	const floe_lock_column *c = &l->job->table->columns[l->keys.col[0]];
	floe_buf b = FLOE_BUF_INIT;
	const char *out = NULL;
	floe_buf_printf(&b, "SELECT * FROM (\n%s\n) AS floe_src WHERE true", l->sql);
	for (int side = 0; side < 2; side++) {
		const char *v = side ? hi : lo;
		if (!v)
			continue;
		floe_buf_puts(&b, " AND floe_src.");
		if (floe_pg_quote_ident(&b, l->pg, c->name) < 0)
			goto cleanup;
		floe_buf_printf(&b, "%s %s ", bronze_key_collation(c), side ? "<" : ">=");
		if (floe_pg_quote_literal(&b, l->pg, v) < 0)
			goto cleanup;
		floe_buf_printf(&b, "::%s", c->pg_type);
	}
	out = floe_arena_strndup(l->job->arena, floe_buf_cstr(&b), b.len);
cleanup:
	floe_buf_free(&b);
	return out;
}

int bronze_snapshot_connect(floe_pg **out, const floe_config *config, const char *exported)
{
	floe_buf set = FLOE_BUF_INIT;
	int error = -1;
	if (floe_pg_connect_source(out, config) < 0 || floe_plan_session_apply(*out) < 0 ||
	    floe_pg_exec(*out, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") < 0)
		goto cleanup;
	floe_buf_puts(&set, "SET TRANSACTION SNAPSHOT ");
	if (floe_pg_quote_literal(&set, *out, exported) < 0 || floe_pg_exec(*out, floe_buf_cstr(&set)) < 0) {
		floe_error_context("while importing the load's snapshot %s", exported);
		goto cleanup;
	}
	error = 0;
cleanup:
	floe_buf_free(&set);
	return error;
}

/* The part's connection at the coordinator's snapshot, and its own handle on the table. */
int bronze_table_open_own(const bronze_job *job, floe_iceberg_catalog **cat, floe_iceberg_table **table)
{
	floe_iceberg_catalog_opts co = FLOE_ICEBERG_CATALOG_OPTS_INIT;
	co.warehouse = job->warehouse_dir;
	if (floe_iceberg_catalog_open_sql(cat, job->catalog_path, &co) < 0 ||
	    floe_iceberg_table_load(table, *cat, "bronze", strchr(job->table->bronze, '.') + 1) < 0)
		return -1;
	return 0;
}

void bronze_job_fork(bronze_job *out, const bronze_job *job)
{
	*out = *job;
	out->arena = floe_arena_new();
	floe_arena_on_cleanup(job->arena, free_arena, out->arena);
}

static int part_open(part *p)
{
	if (bronze_snapshot_connect(&p->load.pg, p->job.config, p->coord->exported) < 0 ||
	    bronze_table_open_own(&p->job, &p->catalog, &p->load.table) < 0)
		return -1;
	return 0;
}

static void *part_run(void *arg)
{
	part *p = arg;
	p->rc = part_open(p) == 0 && bronze_load_full(&p->load, p->by_key) == 0 ? 0 : -1;
	if (p->rc < 0)
		floe_error_save(&p->error, p->job.arena);
	floe_error_clear();
	atomic_store(&p->done, true);
	return NULL;
}

/* The first failed part's error, in the coordinator's chain. */
static int rethrow(const part *p, size_t i, size_t n)
{
	floe_error_raise(&p->error, "a part of the load failed without a reason");
	return floe_error_context("while reading part %zu of %zu of %s", i + 1, n, p->job.table->bronze);
}

/* A part reading [lo, hi): the coordinator's job and load, with its own arena, result and query. */
static int part_init(part *p, bronze_load *l, bool by_key, const char *lo, const char *hi)
{
	memset(p, 0, sizeof(*p));
	atomic_init(&p->done, false);
	p->coord = l;
	p->by_key = by_key;
	bronze_job_fork(&p->job, l->job);
	p->job.result = &p->result;
	p->job.progress = &p->progress;
	p->load.job = &p->job;
	p->load.cols = l->cols;
	p->load.keys = l->keys;
	p->load.clock_text[0] = l->clock_text[0];
	p->load.clock_text[1] = l->clock_text[1];
	p->load.exported = l->exported;
	p->load.sql = range_sql(l, lo, hi);
	return p->load.sql ? 0 : -1;
}

static void part_close(part *p)
{
	floe_iceberg_table_free(p->load.table);
	floe_iceberg_catalog_free(p->catalog);
	floe_pg_close(p->load.pg);
}

/* Every part's files, in range order, as the coordinator's; the rows, bytes and watermark they read. */
static void gather(bronze_load *l, part *parts, size_t n, bool by_key)
{
	bronze_files_init(&l->out, l->job->arena, l->table, &l->cols,
			  by_key ? (size_t)l->job->config->bronze.target_file_rows : 0, l->job->config->warehouse.zstd_level);
	l->rows_read = 0;
	l->job->result->bytes = 0;
	l->has_watermark = false;
	for (size_t i = 0; i < n; i++) {
		bronze_load *p = &parts[i].load;
		for (size_t f = 0; f < p->out.n; f++)
			*FLOE_ARENA_PUSH(l->job->arena, l->out.files, l->out.n, l->out.cap) = p->out.files[f];
		l->rows_read += p->rows_read;
		l->job->result->bytes += parts[i].result.bytes;
		l->future_rows += p->future_rows;
		if (p->has_watermark && (!l->has_watermark || p->watermark > l->watermark)) {
			l->watermark = p->watermark;
			l->has_watermark = true;
		}
	}
}

/* Until every started part is done: their rows and bytes so far, summed into the table's meter. */
static void watch(bronze_load *l, part *parts, size_t started)
{
	bronze_progress *meter = l->job->progress;
	for (bool all = false; !all;) {
		uint64_t rows = 0, bytes = 0;
		all = true;
		for (size_t i = 0; i < started; i++) {
			all = all && atomic_load(&parts[i].done);
			rows += atomic_load_explicit(&parts[i].progress.rows, memory_order_relaxed);
			bytes += atomic_load_explicit(&parts[i].progress.bytes, memory_order_relaxed);
		}
		if (meter) {
			atomic_store_explicit(&meter->rows, rows, memory_order_relaxed);
			atomic_store_explicit(&meter->bytes, bytes, memory_order_relaxed);
		}
		if (!all)
			nanosleep(&(struct timespec){ .tv_nsec = 100 * 1000 * 1000 }, NULL);
	}
}

/* Start a thread per part, wait for all; on a failure remove every part's files. */
static int run_parts(bronze_load *l, part *parts, size_t n, bool by_key)
{
	pthread_t *threads = floe_arena_alloc(l->job->arena, n * sizeof(pthread_t));
	size_t started = 0, failed = n;
	int error = -1;
	while (started < n && pthread_create(&threads[started], NULL, part_run, &parts[started]) == 0)
		started++;
	watch(l, parts, started);
	for (size_t i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	for (size_t i = 0; i < started && failed == n; i++)
		failed = parts[i].rc < 0 ? i : n;
	if (started < n)
		floe_error_set(FLOE_ERR_INTERNAL, "could not start a thread for part %zu of %s", started + 1,
			       l->job->table->bronze);
	else if (failed < n)
		rethrow(&parts[failed], failed, n);
	else
		error = 0;
	for (size_t i = 0; i < n; i++) {
		if (error < 0)
			bronze_files_discard(&parts[i].load.out, 0);
		part_close(&parts[i]);
	}
	if (error == 0)
		gather(l, parts, n, by_key);
	return error;
}

int bronze_parallel_load(bronze_load *l, bool by_key)
{
	const floe_lock_table *t = l->job->table;
	int want = l->job->parallel > 0 ? l->job->parallel : floe_config_parallel_for(l->job->config, t->schema, t->name);
	const char *why = want > 1 ? unusable(l) : NULL, *from = NULL;
	const char **bounds = NULL;
	size_t n_bounds = 0;
	l->parallel = NULL;
	if (want <= 1 || why) {
		if (why)
			l->parallel = floe_arena_printf(l->job->arena, "read through one connection, not %d: %s", want, why);
		return bronze_load_full(l, by_key);
	}
	bounds = floe_arena_alloc(l->job->arena, (size_t)want * sizeof(*bounds));
	if (try_bounds(&n_bounds, bounds, &from, &why, l, want) < 0)
		return -1;
	if (n_bounds == 0) {
		l->parallel = floe_arena_printf(l->job->arena, "read through one connection, not %d: %s", want,
						why ? why : "no key values to split by (the table looks empty)");
		return bronze_load_full(l, by_key);
	}
	size_t n = n_bounds + 1;
	part *parts = floe_arena_alloc(l->job->arena, n * sizeof(part));
	for (size_t i = 0; i < n; i++)
		if (part_init(&parts[i], l, by_key, i ? bounds[i - 1] : NULL, i < n_bounds ? bounds[i] : NULL) < 0)
			return -1;
	bronze_load_progress(l, "copying", NULL);
	if (run_parts(l, parts, n, by_key) < 0)
		return -1;
	l->parallel = floe_arena_printf(l->job->arena, "read in %zu parts by ranges of \"%s\" (from %s), "
							"one exported snapshot", n, t->columns[l->keys.col[0]].name, from);
	bronze_load_note(l, "floe.parallel", "%zu", n);
	return 0;
}
