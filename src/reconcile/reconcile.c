/*
 * reconcile.c — one table's reconciliation, from the request to the outcome:
 * the bronze snapshot's files, the source transaction, both sides' measures,
 * the comparison, the planted control, and the verdict.
 */
#include "reconcile/reconcile_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/text.h"
#include "iceberg/catalog.h"
#include "iceberg/deletes.h"
#include "iceberg/storage.h"
#include "iceberg/table.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* The one name table of floe_reconcile_outcome, in its order: floe_reconcile_outcome_name and _parse. */
static const char *const outcome_names[] = { "verified", "diverged", "unverified", "failed", "verified (partial)" };
FLOE_TEXT_NAMES_DEFINE(floe_reconcile_outcome, "reconciliation outcome", outcome_names, FLOE_RECONCILE_PARTIAL)

bool floe_reconcile_partial(const floe_reconcile_result *r)
{
	return r->outcome == FLOE_RECONCILE_VERIFIED && r->n_excluded > 0;
}

floe_reconcile_outcome floe_reconcile_state(const floe_reconcile_result *r)
{
	return floe_reconcile_partial(r) ? FLOE_RECONCILE_PARTIAL : r->outcome;
}

const char *floe_reconcile_state_name(const floe_reconcile_result *r)
{
	return floe_reconcile_outcome_name(floe_reconcile_state(r));
}

const char *floe_reconcile_tier_name(floe_reconcile_tier tier)
{
	return tier == FLOE_RECONCILE_V1 ? "V1" : tier == FLOE_RECONCILE_V2 ? "V2" : "V3";
}

int floe_reconcile_tier_parse(floe_reconcile_tier *out, const char *text)
{
	const char *p = text && (text[0] == 'V' || text[0] == 'v') ? text + 1 : text;
	if (p && (p[0] == '1' || p[0] == '2' || p[0] == '3') && p[1] == '\0') {
		*out = (floe_reconcile_tier)(p[0] - '0');
		return 0;
	}
	floe_error_set(FLOE_ERR_USAGE, "unknown tier \"%s\"", text ? text : "");
	floe_error_hint("Use V1 (row counts), V2 (+ column aggregates) or V3 (+ bucketed checksums).");
	return -1;
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *error_text(floe_arena *arena);

/* Everything one reconciliation holds open; released by floe_reconcile_table. */
typedef struct job {
	const floe_reconcile_request *req;
	floe_arena *arena;
	floe_reconcile_result *res;
	floe_iceberg_catalog *catalog;
	floe_iceberg_table *table;
	floe_iceberg_scan *scan;
	const char **paths;      /* where DuckDB reads the scan's files (storage's engine URIs) */
	rc_source *source;
	rc_lake *lake;
	rc_table t;
	rc_metric *metrics;
	size_t n_metrics;
	int64_t buckets;
	const char *sql;
	rc_control_plan *plan; /* the control, planted into the lake side while the source is measured */
} job;

/* The table's extraction query as the pipeline holds it now (a hand edit runs as edited). */
static int read_extraction(job *j)
{
	const floe_lock_table *lt = j->req->table;
	const char *dir = j->req->pipeline_dir ? j->req->pipeline_dir : floe_config_pipeline_dir(j->arena, j->req->config);
	for (size_t i = 0; i < lt->n_files; i++) {
		if (strncmp(lt->files[i].path, "bronze/", 7) != 0)
			continue;
		floe_buf text = FLOE_BUF_INIT;
		int rc = floe_fs_read_file(&text, floe_arena_printf(j->arena, "%s/%s", dir, lt->files[i].path));
		if (rc == 0)
			j->sql = floe_arena_strndup(j->arena, floe_buf_cstr(&text), text.len);
		floe_buf_free(&text);
		if (rc < 0)
			floe_error_hint("Run `floe generate` to write the pipeline's files.");
		return rc;
	}
	floe_error_set(FLOE_ERR_CONFIG, "the plan has no extraction query for %s", lt->bronze);
	floe_error_hint("Run `floe generate`.");
	return -1;
}

/* The bronze table and the snapshot's live files. Returns 1 when the table does not exist yet. */
static int open_snapshot(job *j)
{
	floe_iceberg_catalog_opts co = FLOE_ICEBERG_CATALOG_OPTS_INIT;
	floe_buf where = FLOE_BUF_INIT;
	const char *wh = j->req->warehouse_dir ? j->req->warehouse_dir : floe_config_warehouse_dir(j->req->config);
	const char *cat = j->req->catalog_path ? j->req->catalog_path : floe_arena_printf(j->arena, "%s/" FLOE_CATALOG_FILE, wh);
	const char *dot = strchr(j->req->table->bronze, '.');
	const char *name = dot ? dot + 1 : j->req->table->bronze;
	co.warehouse = wh;
	co.create = false;
	if (floe_iceberg_catalog_open_sql(&j->catalog, cat, &co) < 0)
		return -1;
	int found = floe_iceberg_catalog_load(j->catalog, &where, "bronze", name);
	floe_buf_free(&where);
	if (found <= 0)
		return found < 0 ? -1 : 1;
	if (floe_iceberg_table_load(&j->table, j->catalog, "bronze", name) < 0 ||
	    floe_iceberg_table_plan_deletes(&j->scan, j->arena, j->table, j->req->snapshot_id) < 0 ||
	    floe_iceberg_scan_load_deletes(j->arena, j->table, j->scan) < 0)
		return -1;
	j->paths = floe_arena_alloc(j->arena, (j->scan->n_files + 1) * sizeof(char *));
	for (size_t i = 0; i < j->scan->n_files; i++)
		if (!(j->paths[i] = floe_iceberg_storage_engine_uri(floe_iceberg_table_storage(j->table), j->arena,
								     j->scan->files[i].file.path)))
			return -1;
	j->res->snapshot_id = j->scan->snapshot_id;
	return j->scan->snapshot_id < 0 ? 1 : 0;
}


static void copy_diff(floe_reconcile_result *res, const rc_diff *d)
{
	res->source_rows = d->source_rows;
	res->lake_rows = d->lake_rows;
	res->metrics = d->metrics;
	res->n_metrics = d->n_metrics;
	res->n_metric_diffs = d->n_metric_diffs;
	res->diverged = d->buckets;
	res->n_diverged = d->n_buckets;
}

static void describe_key(job *j)
{
	floe_buf b = FLOE_BUF_INIT;
	if (j->t.key_is_row) {
		floe_buf_puts(&b, "whole row");
	} else {
		floe_buf_puts(&b, "primary key (");
		for (size_t i = 0, n = 0; i < j->t.n; i++)
			if (j->t.cols[i].key)
				floe_buf_printf(&b, "%s%s", n++ ? ", " : "", j->t.cols[i].name);
		floe_buf_putc(&b, ')');
	}
	j->res->key = floe_arena_strdup(j->arena, floe_buf_cstr(&b));
	floe_buf_free(&b);
	size_t n = 0;
	j->res->excluded = floe_arena_alloc(j->arena, (j->t.n + 1) * sizeof(char *));
	for (size_t i = 0; i < j->t.n; i++)
		if (j->t.cols[i].excluded)
			j->res->excluded[n++] = j->t.cols[i].excluded;
	j->res->n_excluded = n;
}

/* The source side, measured on a thread of its own while DuckDB measures the lake. */
typedef struct source_task {
	job *j;
	floe_arena *arena;     /* the thread's; freed with the job's arena */
	const rc_metric *metrics;
	size_t n_metrics;
	floe_reconcile_tier tier;
	rc_side side;
	int rc;
	floe_error_saved error; /* the thread's, carried back to the caller's chain */
} source_task;

static void free_arena(void *arena)
{
	floe_arena_free(arena);
}

static void *measure_source(void *arg)
{
	source_task *task = arg;
	job *j = task->j;
	task->rc = rc_source_measure(&task->side, j->source, task->arena, &j->t, task->metrics, task->n_metrics,
				     j->buckets, task->tier);
	if (task->rc < 0)
		floe_error_save(&task->error, task->arena);
	floe_error_clear();
	return NULL;
}

static int rethrow(const source_task *task)
{
	return floe_error_raise(&task->error, "the source side failed without a reason");
}

/*
 * Both sides at once: PostgreSQL works in its server, DuckDB in this process — the
 * lake's measures, then (when `plant`) the control planted into a copy of one bucket
 * and measured. `tier` says whether the buckets are summed (V3); `metrics` what else.
 */
static int measure_both(job *j, const rc_metric *metrics, size_t n_metrics, floe_reconcile_tier tier, bool plant,
			rc_side *src, rc_side *lake)
{
	source_task task = { .j = j, .arena = floe_arena_new(), .metrics = metrics, .n_metrics = n_metrics,
			     .tier = tier };
	pthread_t thread;
	floe_arena_on_cleanup(j->arena, free_arena, task.arena);
	if (pthread_create(&thread, NULL, measure_source, &task) != 0)
		return floe_error_set(FLOE_ERR_INTERNAL, "could not start a thread for the source side");
	int lake_rc = j->lake ? 0 : rc_lake_open(&j->lake, j->arena, &j->t, j->paths, j->scan->n_files, j->buckets);
	if (lake_rc == 0)
		lake_rc = rc_lake_measure(lake, j->lake, j->arena, metrics, n_metrics, tier);
	if (lake_rc == 0 && plant)
		lake_rc = rc_control_plant(&j->plan, j->arena, j->lake, metrics, n_metrics, tier, lake, j->req->control,
					   j->req->control_seq);
	pthread_join(thread, NULL);
	if (task.rc < 0)
		return rethrow(&task); /* the source's failure says more than the lake's */
	*src = task.side;
	return lake_rc;
}

/* ", 3 of 500 buckets" (V3 only): `n` of them when n > 0, else all of them. */
static const char *buckets_text(job *j, size_t n, const char *joiner)
{
	if (j->req->tier < FLOE_RECONCILE_V3)
		return "";
	if (n > 0)
		return floe_arena_printf(j->arena, "%s %zu of %lld bucket%s", joiner, n, (long long)j->buckets,
					 j->buckets == 1 ? "" : "s");
	return floe_arena_printf(j->arena, "%s %lld bucket%s", joiner, (long long)j->buckets, j->buckets == 1 ? "" : "s");
}

/* A diverged result narrowed to keys; a failure to narrow is noted, not the comparison's failure. */
static void narrow(job *j, const rc_diff *diff)
{
	floe_reconcile_result *res = j->res;
	if (rc_narrow(&res->keys, &res->n_keys, j->arena, j->source, j->lake, &j->t, j->buckets, diff->buckets,
		      diff->n_buckets, j->req->max_keys) < 0) {
		res->keys_note = error_text(j->arena);
		floe_error_clear();
	}
}

/* "; not compared: <column: why>; …" for a partial result, else "" (a verified result says what it left out). */
static const char *not_compared(job *j)
{
	floe_buf b = FLOE_BUF_INIT;
	for (size_t i = 0; i < j->res->n_excluded; i++)
		floe_buf_printf(&b, "%s%s", i ? "; " : "; not compared: ", j->res->excluded[i]);
	const char *text = floe_arena_strdup(j->arena, floe_buf_cstr(&b));
	floe_buf_free(&b);
	return text;
}

/*
 * Whether V2's column aggregates are computed with the comparison: at V2, and at a V3 that
 * hashes only some buckets in full (coverage.c), whose other rows' values V2 alone covers.
 * A full V3 hashes every value of every column read, so its equal buckets prove what the
 * aggregates would (docs/reconcile.md); it computes them only to name the columns of a
 * divergence (describe_columns).
 */
static bool aggregates_up_front(const job *j)
{
	return j->req->tier == FLOE_RECONCILE_V2 || (j->req->tier >= FLOE_RECONCILE_V3 && j->t.cover);
}

/*
 * A full V3 that diverged, described as V2 would: the column aggregates of both sides, at
 * the same snapshots, name the columns that differ. A failure to describe is noted in the
 * result, never its outcome (the buckets already said diverged).
 */
static void describe_columns(job *j, rc_diff *diff)
{
	rc_metric *metrics = NULL;
	size_t n = 0;
	rc_side src, lake;
	rc_diff v2;
	if (rc_metrics_build(&metrics, &n, j->arena, &j->t, FLOE_RECONCILE_V2, floe_iceberg_scan_live_rows(j->scan)) < 0 ||
	    measure_both(j, metrics, n, FLOE_RECONCILE_V2, false, &src, &lake) < 0) {
		j->res->aggregates_note = floe_arena_printf(j->arena, "not computed: %s", error_text(j->arena));
		floe_error_clear();
		return;
	}
	rc_compare(&v2, j->arena, &j->t, metrics, n, &src, &lake);
	diff->metrics = v2.metrics;
	diff->n_metrics = v2.n_metrics;
	diff->n_metric_diffs = v2.n_metric_diffs;
	j->res->source_seconds += src.seconds;
	j->res->lake_seconds += lake.seconds;
}

/* What a verified result compared: "2000 rows; 13 measures and 200 buckets equal" or, at a full V3, what covers the rest. */
static const char *verified_text(job *j, const rc_diff *diff, bool lean)
{
	if (lean)
		return floe_arena_printf(j->arena, "%lld rows; %lld bucket%s equal, every column%s hashed; column "
						   "aggregates not computed (V3 covers them)",
					 (long long)diff->source_rows, (long long)j->buckets, j->buckets == 1 ? "" : "s",
					 j->res->n_excluded ? " read" : "");
	return floe_arena_printf(j->arena, "%lld rows; %zu measure%s%s equal", (long long)diff->source_rows,
				 diff->n_metrics, diff->n_metrics == 1 ? "" : "s", buckets_text(j, 0, " and"));
}

/* The verdict from the comparison and the control. */
static void judge_outcome(job *j, const rc_diff *diff, const rc_control_run *control, bool lean)
{
	floe_reconcile_result *res = j->res;
	if (diff->n_metric_diffs > 0 || diff->n_buckets > 0) {
		res->outcome = FLOE_RECONCILE_DIVERGED;
		res->detail = floe_arena_printf(j->arena, "%zu of %zu measures differ%s%s%s", diff->n_metric_diffs,
						diff->n_metrics, buckets_text(j, diff->n_buckets, " and"),
						res->aggregates_note ? "; column aggregates " : "",
						res->aggregates_note ? res->aggregates_note : "");
	} else if (!control->fired) {
		res->outcome = FLOE_RECONCILE_UNVERIFIED;
		res->detail = floe_arena_printf(j->arena, "the sides agree, but the planted control %s",
						control->name ? "was not caught as planted" : "could not be planted");
	} else {
		res->outcome = FLOE_RECONCILE_VERIFIED;
		res->detail = floe_arena_printf(j->arena, "%s; control %s caught%s", verified_text(j, diff, lean),
						control->name, not_compared(j));
	}
}

/*
 * Both sides measured and compared; then the control, then the verdict. A full V3 measures
 * the row counts and the buckets only, and V2's aggregates after a divergence.
 */
static int compare_sides(job *j)
{
	const floe_reconcile_request *req = j->req;
	floe_reconcile_result *res = j->res;
	bool aggregates = aggregates_up_front(j), lean = req->tier >= FLOE_RECONCILE_V3 && !aggregates;
	rc_side src, lake;
	rc_diff diff;
	rc_control_run control = { 0 };
	if (rc_metrics_build(&j->metrics, &j->n_metrics, j->arena, &j->t, aggregates ? req->tier : FLOE_RECONCILE_V1,
			     floe_iceberg_scan_live_rows(j->scan)) < 0 ||
	    measure_both(j, j->metrics, j->n_metrics, req->tier, true, &src, &lake) < 0)
		return -1;
	res->source_seconds = src.seconds;
	res->lake_seconds = lake.seconds;
	rc_compare(&diff, j->arena, &j->t, j->metrics, j->n_metrics, &src, &lake);
	rc_control_judge(&control, j->arena, j->plan, &j->t, j->metrics, j->n_metrics, req->tier, aggregates, &src,
			 &diff);
	res->control = control.name;
	res->control_detail = control.detail;
	res->control_fired = control.fired;
	bool differs = diff.n_metric_diffs > 0 || diff.n_buckets > 0;
	if (differs && diff.n_buckets > 0 && req->max_keys > 0)
		narrow(j, &diff);
	if (lean)
		res->aggregates_note = "not computed: V3 hashed every value of every column read";
	if (differs && lean) {
		res->aggregates_note = NULL;
		describe_columns(j, &diff);
	}
	copy_diff(res, &diff);
	judge_outcome(j, &diff, &control, lean);
	return 0;
}

/*
 * The snapshot's files, the source transaction and the column model. Returns 1 when
 * the table has no snapshot yet (nothing to compare).
 */
static int prepare(job *j)
{
	const floe_reconcile_request *req = j->req;
	uint32_t *oids = NULL, *elems = NULL;
	size_t n_oids = 0;
	int found;
	if (read_extraction(j) < 0 || (found = open_snapshot(j)) < 0)
		return -1;
	if (found == 1)
		return 1;
	/* the live rows (merge-on-read's replaced rows left out), so a table's buckets do not move with its write mode */
	j->buckets = req->tier >= FLOE_RECONCILE_V2 ? rc_bucket_count(floe_iceberg_scan_live_rows(j->scan)) : 1;
	if (rc_source_open(&j->source, j->arena, req->config, j->sql, req->pg_snapshot, &oids, &elems, &n_oids) < 0 ||
	    rc_table_build(&j->t, j->arena, req->table, oids, elems, n_oids) < 0 ||
	    rc_lake_check_fields(&j->t, j->arena, j->paths, j->scan->n_files) < 0)
		return -1;
	rc_table_deleted(&j->t, j->arena, j->scan);
	j->t.pg_version = rc_source_version(j->source);
	return 0;
}

/* The buckets V3 hashes in full (coverage.c). */
static int cover(job *j)
{
	rc_coverage c;
	floe_reconcile_result *res = j->res;
	if (rc_coverage_plan(&c, j->arena, j->source, &j->t, j->req, j->buckets) < 0)
		return -1;
	res->covered = j->req->tier >= FLOE_RECONCILE_V3 ? c.covered : 0;
	res->touched = c.touched;
	res->share = c.share;
	res->full_every = c.rotating ? c.cycle : j->req->full_every;
	res->rotating = c.rotating;
	return 0;
}

/* A rotating result never says verified without what it covered: "V3 on 12 of 64 buckets (…); …". */
static int name_cover(job *j)
{
	floe_reconcile_result *res = j->res;
	if (res->rotating)
		res->detail = floe_arena_printf(j->arena, "V3 on %lld of %lld buckets (%lld touched by the run, share %lld "
							  "of %lld rotating; every bucket's rows and keys counted); %s",
						(long long)res->covered, (long long)res->buckets, (long long)res->touched,
						(long long)res->share + 1, (long long)res->full_every, res->detail);
	return 0;
}

static int run(job *j)
{
	int ready = prepare(j);
	if (ready < 0)
		return -1;
	if (ready == 1) {
		j->res->outcome = FLOE_RECONCILE_UNVERIFIED;
		j->res->detail = floe_arena_printf(j->arena, "%s has no snapshot to compare yet: run `floe run` to load it",
						   j->req->table->bronze);
		return 0;
	}
	j->res->buckets = j->req->tier >= FLOE_RECONCILE_V3 ? j->buckets : 0;
	j->res->source_position = rc_source_position(j->source);
	describe_key(j);
	return cover(j) < 0 ? -1 : compare_sides(j) < 0 ? -1 : name_cover(j);
}

static void finish(job *j)
{
	rc_lake_close(j->lake);
	rc_source_close(j->source);
	floe_iceberg_table_free(j->table);
	floe_iceberg_catalog_free(j->catalog);
}

int floe_reconcile_diverged_keys(floe_reconcile_key **out, size_t *n_out, floe_arena *arena,
				 const floe_reconcile_request *req, const floe_reconcile_result *result, size_t max_keys)
{
	floe_reconcile_request at = *req;
	floe_reconcile_result scratch;
	job j = { .req = &at, .arena = arena, .res = &scratch };
	int error = -1;
	*out = NULL;
	*n_out = 0;
	memset(&scratch, 0, sizeof(scratch));
	at.snapshot_id = result->snapshot_id;
	at.tier = FLOE_RECONCILE_V3;
	if (result->buckets <= 0) {
		floe_error_set(FLOE_ERR_USAGE, "the result of %s has no V3 buckets to narrow", result->table);
		return -1;
	}
	int ready = prepare(&j);
	if (ready == 1)
		floe_error_set(FLOE_ERR_CONFIG, "%s has no snapshot %lld", result->table, (long long)result->snapshot_id);
	if (ready != 0)
		goto cleanup;
	if (rc_lake_open(&j.lake, arena, &j.t, j.paths, j.scan->n_files, result->buckets) < 0 ||
	    rc_narrow(out, n_out, arena, j.source, j.lake, &j.t, result->buckets, result->diverged, result->n_diverged,
		      max_keys) < 0)
		goto cleanup;
	error = 0;
cleanup:
	finish(&j);
	return error;
}

/* The error chain as one line, for the result and the ledger. */
static const char *error_text(floe_arena *arena)
{
	const floe_error *e = floe_error_last();
	floe_buf msg = FLOE_BUF_INIT;
	if (!e)
		return "unknown error";
	floe_error_put_message(&msg, e);
	const char *text = floe_arena_strdup(arena, floe_buf_cstr(&msg));
	floe_buf_free(&msg);
	return text;
}

int floe_reconcile_table(floe_reconcile_result **out, floe_arena *arena, const floe_reconcile_request *req)
{
	double t0 = now_seconds();
	floe_reconcile_result *res = floe_arena_alloc(arena, sizeof(*res));
	job j = { .req = req, .arena = arena, .res = res };
	const floe_lock_table *lt = req->table;
	memset(res, 0, sizeof(*res));
	res->table = lt->bronze;
	res->source = floe_arena_printf(arena, "%s.%s", lt->schema, lt->name);
	res->run_id = req->run_id;
	res->tier = req->tier;
	res->snapshot_id = -1;
	*out = res;
	int error = run(&j);
	if (error < 0) {
		floe_error_context("while reconciling %s", lt->bronze);
		res->outcome = FLOE_RECONCILE_FAILED;
		res->error = error_text(arena);
		res->exit_code = (int)floe_error_exit_code();
		res->detail = "the comparison did not complete";
	}
	finish(&j);
	res->seconds = now_seconds() - t0;
	return error;
}
