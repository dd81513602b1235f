/*
 * run.c — `floe run` for bronze: which tables, in parallel up to --jobs, each
 * under its load lock, every outcome in the run ledger.
 */
#include "bronze/bronze_int.h"
#include "base/arena.h"
#include "cdc/cdc.h"
#include "base/error.h"
#include "base/log.h"
#include "iceberg/catalog.h"
#include "base/text.h"
#include "state/state.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct run_ctx {
	const floe_config *config;
	floe_state *state;
	pthread_mutex_t mu;       /* guards next, the ledger and progress output */
	size_t next;
	bronze_job *jobs;
	size_t n_jobs;
	size_t finished;
	bool progress;
	floe_bronze_check_fn check;
	void *check_ctx;
	int parallel;
	bool compact;             /* floe compact */
	floe_pg *idle;            /* an idle source session a load takes instead of connecting (guarded by mu) */
} run_ctx;

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* What a person should look at first: from the error's code (base/error.h's one table). */
static const char *probable_cause(floe_arena *a, const floe_error *e)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_error_put_cause(&b, e);
	const char *cause = floe_arena_strdup(a, floe_buf_cstr(&b));
	floe_buf_free(&b);
	return cause;
}

void bronze_record(floe_state *st, const char *run_id, const floe_bronze_result *r, const char *finished)
{
	floe_state_table_run tr = FLOE_STATE_TABLE_RUN_INIT;
	char snap[32] = "";
	if (r->snapshot_id > 0)
		snprintf(snap, sizeof(snap), "%lld", (long long)r->snapshot_id);
	tr.run_id = run_id;
	tr.table_name = r->table;
	tr.layer = "bronze";
	tr.source = r->source;
	tr.mode = floe_load_mode_name(r->mode);
	tr.state = r->state;
	tr.rows = r->table_rows >= 0 ? r->table_rows : r->rows; /* status shows what the table holds */
	tr.bytes = r->bytes;
	tr.files = r->files;
	tr.snapshot_id = snap[0] ? snap : NULL;
	tr.detail = r->detail;
	tr.error = r->error;
	tr.cause = r->cause;
	tr.finished_at = finished;
	if (floe_state_table_put(st, &tr) < 0) {
		floe_log_warn("could not record %s in the run ledger", r->table);
		floe_error_clear();
	}
}

static void record(run_ctx *ctx, bronze_job *job, const char *finished)
{
	bronze_record(ctx->state, job->run_id, job->result, finished);
}

static void run_one(run_ctx *ctx, bronze_job *job)
{
	floe_bronze_result *r = job->result;
	floe_table_lock *lock = NULL;
	double t0 = now_seconds();
	floe_pg_keep session = { NULL }; /* the run's idle session, when no other load has it */
	pthread_mutex_lock(&ctx->mu);
	r->state = FLOE_TABLE_LOADING;
	record(ctx, job, NULL);
	if (job->progress)
		job->progress->started = t0;
	session.pg = ctx->idle;
	ctx->idle = NULL;
	pthread_mutex_unlock(&ctx->mu);

	int rc = floe_state_lock(&lock, job->config->project_dir, r->table, job->run_id);
	job->keep_source = &session; /* taken by the load; handed back idle when it committed */
	if (rc == 0)
		rc = bronze_load_table(job);
	job->keep_source = NULL;
	floe_state_unlock(lock);
	pthread_mutex_lock(&ctx->mu);
	if (!ctx->idle) {
		ctx->idle = session.pg;
		session.pg = NULL;
	}
	pthread_mutex_unlock(&ctx->mu);
	floe_pg_close(session.pg);
	r->seconds = now_seconds() - t0;
	if (rc < 0) {
		const floe_error *e = floe_error_last();
		floe_buf msg = FLOE_BUF_INIT;
		floe_error_put_message(&msg, e);
		r->state = FLOE_TABLE_FAILED;
		r->error = floe_arena_strdup(job->arena, floe_buf_cstr(&msg));
		r->cause = probable_cause(job->arena, e);
		r->exit_code = e ? (int)floe_error_class_exit(e->cls) : FLOE_EXIT_INTERNAL;
		floe_buf_free(&msg);
		floe_error_clear();
	} else {
		r->state = FLOE_TABLE_LOADED;
	}
	char finished[32];
	floe_state_now(finished, sizeof(finished));
	pthread_mutex_lock(&ctx->mu);
	record(ctx, job, finished);
	ctx->finished++;
	if (job->progress)
		job->progress->started = 0;
	pthread_mutex_unlock(&ctx->mu);
}

/*
 * The live line on a terminal while tables load: each loading table's rows and MB/s
 * from the source, redrawn in place, cleared at the end (the summary follows).
 */
static void show_progress(run_ctx *ctx)
{
	struct timespec tick = { 0, 250 * 1000 * 1000 };
	floe_buf line = FLOE_BUF_INIT;
	for (;;) {
		floe_buf_clear(&line);
		pthread_mutex_lock(&ctx->mu);
		bool done = ctx->finished == ctx->n_jobs;
		double now = now_seconds();
		for (size_t i = 0; i < ctx->n_jobs && !done && line.len < 400; i++) {
			const bronze_progress *p = ctx->jobs[i].progress;
			if (!p->started)
				continue;
			double secs = now - p->started;
			const char *phase = atomic_load_explicit(&p->phase, memory_order_relaxed);
			uint64_t rows = atomic_load_explicit(&p->rows, memory_order_relaxed);
			uint64_t bytes = atomic_load_explicit(&p->bytes, memory_order_relaxed);
			floe_buf_puts(&line, line.len ? " · " : "");
			floe_text_put_printable(&line, p->table);
			floe_buf_printf(&line, " %s %llu rows %.1f MB/s", phase ? phase : "starting",
					(unsigned long long)rows, secs > 0 ? (double)bytes / 1e6 / secs : 0.0);
		}
		size_t finished = ctx->finished;
		pthread_mutex_unlock(&ctx->mu);
		if (done)
			break;
		fprintf(stderr, "\r\033[K[%zu/%zu] %s", finished, ctx->n_jobs, floe_buf_cstr(&line));
		fflush(stderr);
		nanosleep(&tick, NULL);
	}
	fputs("\r\033[K", stderr);
	floe_buf_free(&line);
}

static void *worker(void *arg)
{
	run_ctx *ctx = arg;
	for (;;) {
		pthread_mutex_lock(&ctx->mu);
		size_t i = ctx->next++;
		pthread_mutex_unlock(&ctx->mu);
		if (i >= ctx->n_jobs)
			return NULL;
		run_one(ctx, &ctx->jobs[i]);
	}
}

bool bronze_wanted(const char *const *tables, size_t n, const floe_lock_table *t)
{
	if (!tables)
		return true;
	for (size_t i = 0; i < n; i++)
		if (floe_lock_table_named(t, tables[i]))
			return true;
	return false;
}

static bool wanted(const floe_bronze_opts *o, const floe_lock_table *t)
{
	return bronze_wanted(o->tables, o->n_tables, t);
}

static int check_names(const floe_lock *lock, const floe_bronze_opts *o)
{
	for (size_t i = 0; i < o->n_tables; i++) {
		bool found = false;
		for (size_t k = 0; k < floe_lock_count(lock) && !found; k++) {
			floe_bronze_opts one = { .tables = &o->tables[i], .n_tables = 1 };
			found = wanted(&one, floe_lock_at(lock, k));
		}
		if (!found) {
			floe_error_set(FLOE_ERR_USAGE, "table \"%s\" is not in the deployed plan", o->tables[i]);
			floe_error_hint("Name it as bronze.TABLE or SCHEMA.TABLE; `floe plan` lists them "
					"(and `floe generate` deploys a new one).");
			return -1;
		}
	}
	return 0;
}

/* A table's result before its load: names, and every count unknown. */
static void result_init(floe_bronze_result *r, floe_arena *a, const floe_lock_table *t)
{
	r->table = t->bronze;
	r->source = floe_arena_printf(a, "%s.%s", t->schema, t->name);
	r->mode = t->mode;
	r->rows = r->bytes = r->files = r->table_rows = -1;
}

static void add_job(run_ctx *ctx, floe_bronze_report *rep, const floe_lock_table *t, const char *const *paths)
{
	bronze_job *job = &ctx->jobs[ctx->n_jobs++];
	floe_bronze_result *r = &rep->results[rep->n_results++];
	job->arena = floe_arena_new();
	job->config = ctx->config;
	job->pipeline_dir = paths[0];
	job->catalog_path = paths[1];
	job->warehouse_dir = paths[2];
	job->table = t;
	job->run_id = rep->run_id;
	job->result = r;
	job->check = ctx->check;
	job->check_ctx = ctx->check_ctx;
	job->parallel = ctx->parallel;
	job->compact = ctx->compact;
	job->progress = floe_arena_alloc(job->arena, sizeof(*job->progress));
	job->progress->table = t->bronze;
	result_init(r, job->arena, t);
}

/*
 * Tables not loaded by design still appear in the report and the ledger. One whose
 * bronze name another table owns (t->owner) is refused and recorded under its source
 * name: the owner's records stay the owner's.
 */
static void add_unloaded(run_ctx *ctx, floe_bronze_report *rep, floe_arena *a, const floe_lock_table *t)
{
	floe_bronze_result *r = &rep->results[rep->n_results++];
	bronze_job job = { .config = ctx->config, .table = t, .run_id = rep->run_id, .result = r, .arena = a };
	result_init(r, a, t);
	r->state = t->mode == FLOE_LOAD_REFUSED || t->owner ? FLOE_TABLE_REFUSED : FLOE_TABLE_SKIPPED;
	r->detail = t->reason;
	if (t->owner) {
		r->table = r->source;
		if (t->mode != FLOE_LOAD_REFUSED)
			r->detail = floe_arena_printf(a, "its bronze name %s belongs to %s, loaded under it before; "
							 "floe never loads one table into another's", t->bronze, t->owner);
	}
	char finished[32];
	floe_state_now(finished, sizeof(finished));
	record(ctx, &job, finished);
}

/* A table a schema change pauses (floe sync): recorded as paused, with why. */
static void add_paused(run_ctx *ctx, floe_bronze_report *rep, floe_arena *a, const floe_lock_table *t,
		       const char *why)
{
	floe_bronze_result *r = &rep->results[rep->n_results++];
	bronze_job job = { .config = ctx->config, .table = t, .run_id = rep->run_id, .result = r, .arena = a };
	char finished[32];
	result_init(r, a, t);
	r->state = FLOE_TABLE_PAUSED;
	r->detail = why;
	floe_state_now(finished, sizeof(finished));
	record(ctx, &job, finished);
}

/*
 * Start up to `want` (at most 64) worker threads; *n says how many run (only those are
 * joined). Fewer than asked is a warning — the ones that run take every table; none is
 * an error, and then no table was started.
 */
static int start_workers(pthread_t *threads, int *n, int want, run_ctx *ctx)
{
	int rc = 0;
	*n = 0;
	if (want > 64)
		want = 64;
	while (*n < want && (rc = pthread_create(&threads[*n], NULL, worker, ctx)) == 0)
		(*n)++;
	if (*n == want)
		return 0;
	if (*n > 0) {
		floe_log_warn("started %d of %d load threads (%s); the others' tables wait for them", *n, want,
			      strerror(rc));
		return 0;
	}
	errno = rc;
	floe_error_set_errno(FLOE_ERR_IO, "could not start a load thread");
	floe_error_hint("The system refused a new thread (see the reason: processes or memory per user); "
			"free some, or lower --jobs, and run again.");
	return -1;
}

typedef struct owned {
	floe_arena *arena;
	floe_lock *lock;
	bronze_job *jobs;
	size_t n_jobs;
} owned;

int floe_bronze_run(floe_bronze_report *out, const floe_config *config, const floe_bronze_opts *opts)
{
	floe_bronze_opts defaults = FLOE_BRONZE_OPTS_INIT;
	if (!opts)
		opts = &defaults;
	memset(out, 0, sizeof(*out));
	owned *own = floe_xcalloc(1, sizeof(*own));
	out->owned = own;
	own->arena = floe_arena_new();
	run_ctx ctx = { .config = config, .progress = opts->progress, .check = opts->check,
			.check_ctx = opts->check_ctx, .parallel = opts->parallel, .compact = opts->compact };
	const char *paths[3] = { floe_config_pipeline_dir(own->arena, config),
				 floe_config_catalog_path(own->arena, config), floe_config_warehouse_dir(config) };
	if (floe_lock_load(&own->lock, floe_config_lock_path(own->arena, config)) < 0) {
		floe_error_hint("Run `floe plan` to review, then `floe generate` to deploy the plan.");
		return -1;
	}
	if (check_names(own->lock, opts) < 0 || floe_iceberg_catalog_prepare_sql(paths[1], true) < 0 ||
	    floe_state_open(&ctx.state, config->project_dir) < 0)
		return -1;
	size_t n = floe_lock_count(own->lock);
	own->jobs = ctx.jobs = floe_arena_alloc(own->arena, (n + 1) * sizeof(bronze_job));
	out->results = floe_arena_alloc(own->arena, (n + 1) * sizeof(floe_bronze_result));
	if (floe_state_run_begin(ctx.state, opts->command ? opts->command : "run", out->run_id) < 0) {
		floe_state_close(ctx.state);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const floe_lock_table *t = floe_lock_at(own->lock, i);
		if (!wanted(opts, t) || t->mode == FLOE_LOAD_REMOVED)
			continue;
		const char *paused = opts->paused ? opts->paused(opts->paused_ctx, own->arena, t) : NULL;
		if (paused)
			add_paused(&ctx, out, own->arena, t, paused);
		else if (!t->owner && floe_load_mode_loadable(t->mode))
			add_job(&ctx, out, t, paths);
		else
			add_unloaded(&ctx, out, own->arena, t);
	}
	own->n_jobs = ctx.n_jobs;
	pthread_t threads[64];
	int n_threads = 0;
	pthread_mutex_init(&ctx.mu, NULL);
	if (opts->session && *opts->session && !ctx.compact) { /* the caller's, with the plan's settings */
		ctx.idle = *opts->session;
		*opts->session = NULL;
		if (floe_plan_session_apply(ctx.idle) < 0) {
			floe_pg_close(ctx.idle);
			ctx.idle = NULL;
			floe_error_clear(); /* each load connects, and reports what fails */
		}
	}
	bool no_workers = start_workers(threads, &n_threads, opts->jobs > 0 ? opts->jobs : 2, &ctx) < 0;
	if (!no_workers && ctx.progress)
		show_progress(&ctx);
	for (int i = 0; i < n_threads; i++)
		pthread_join(threads[i], NULL);
	pthread_mutex_destroy(&ctx.mu);
	floe_pg_close(ctx.idle);
	if (no_workers) {
		floe_state_run_end(ctx.state, out->run_id, FLOE_RUN_FAILED);
		floe_state_close(ctx.state);
		return -1;
	}
	for (size_t i = 0; i < out->n_results; i++) {
		const floe_bronze_result *r = &out->results[i];
		out->n_failed += r->state == FLOE_TABLE_FAILED;
		if (r->exit_code > out->exit_code)
			out->exit_code = r->exit_code;
		out->n_unproven += r->checked && r->check_state != FLOE_RECONCILE_VERIFIED;
		out->n_unchecked += !r->checked && r->state == FLOE_TABLE_LOADED;
	}
	floe_state_run_end(ctx.state, out->run_id, out->n_failed ? FLOE_RUN_FAILED : FLOE_RUN_OK);
	floe_state_close(ctx.state);
	return 0;
}

void floe_bronze_report_free(floe_bronze_report *report)
{
	owned *own = report ? report->owned : NULL;
	if (!own)
		return;
	for (size_t i = 0; i < own->n_jobs; i++)
		floe_arena_free(own->jobs[i].arena);
	floe_lock_free(own->lock);
	floe_arena_free(own->arena);
	free(own);
	report->owned = NULL;
}

int floe_bronze_repair(floe_bronze_result *out, floe_arena *arena, const floe_config *config,
		       const char *table, const floe_bronze_repair_opts *opts)
{
	run_ctx ctx = { .config = config };
	floe_lock *lock = NULL;
	const char *paths[3] = { floe_config_pipeline_dir(arena, config), floe_config_catalog_path(arena, config),
				 floe_config_warehouse_dir(config) };
	floe_bronze_opts one = { .tables = &table, .n_tables = 1 };
	const floe_lock_table *t = NULL;
	int error = -1;
	memset(out, 0, sizeof(*out));
	out->state = FLOE_TABLE_FAILED; /* until the repair runs */
	if (floe_lock_load(&lock, floe_config_lock_path(arena, config)) < 0 ||
	    check_names(lock, &one) < 0 || floe_state_open(&ctx.state, config->project_dir) < 0)
		goto cleanup;
	for (size_t i = 0; i < floe_lock_count(lock) && !t; i++)
		if (wanted(&one, floe_lock_at(lock, i)))
			t = floe_lock_at(lock, i);
	bronze_job job = { .config = config, .pipeline_dir = paths[0], .catalog_path = paths[1],
			   .warehouse_dir = paths[2], .table = t, .run_id = opts->run_id, .result = out,
			   .arena = arena, .pg_snapshot = opts->pg_snapshot, .repair_keys = opts->keys,
			   .n_repair_keys = opts->n_keys };
	result_init(out, arena, t);
	out->table = floe_arena_strdup(arena, t->bronze); /* the lock is freed before the caller reads them */
	out->mode = t->mode;
	ctx.jobs = &job;
	ctx.n_jobs = 1;
	run_one(&ctx, &job);
	error = out->state == FLOE_TABLE_FAILED ? -1 : 0;
cleanup:
	floe_pg_close(ctx.idle); /* the repair's own session, handed back by its load */
	floe_state_close(ctx.state);
	floe_lock_free(lock);
	return error;
}
