/*
 * follow.c — `floe run --follow`: one long-running process that applies the CDC tables'
 * streams batch after batch (docs/cdc.md, "Following"). Each batch is a CDC load exactly as
 * `floe run` makes one (load.c, cdc.c: a consistent L and S, the keys re-read at S, one
 * merge-on-read commit with floe.cdc.lsn, the slot acknowledged after it), under the table's
 * load lock, taken per batch so `floe run` and `floe compact` interleave with the follower
 * instead of waiting for it to end. What the follower keeps between batches is each table's
 * position index (posindex.c): the merge takes the positions of the rows it replaces from it
 * instead of reading every key of the table, and it is rebuilt whenever the table's snapshot
 * is not the one the follower committed; the sessions a batch opens (the load's and the
 * snapshot holder's), handed back idle after a batch that went well (a failed batch closes them);
 * and the table's replication stream, open for the follower's life (cdc.h, floe_cdc_stream: read
 * between polls, its keepalives answered; let go when a batch fails or another process holds the
 * table's lock, since that load may need the slot). A round takes every table's consistent point
 * before any of its loads: a load's reads write WAL (page pruning) that the server flushes only
 * later, and a stream cannot pass unflushed WAL.
 *
 * A batch without changes commits nothing (and acknowledges nothing) except every
 * QUIET_COMMIT_SECONDS, so the slot still moves on a quiet table without a snapshot per poll.
 * Reconciliation runs with a batch at most every [cdc] follow-reconcile-seconds.
 */
#include "bronze/bronze_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/log.h"
#include "cdc/cdc.h"
#include "config/cdc.h"
#include "iceberg/catalog.h"
#include "pg/pg.h"
#include "state/state.h"

#include <string.h>
#include <time.h>

#define QUIET_COMMIT_SECONDS 30.0

typedef struct follower {
	const floe_lock_table *table;
	bronze_posindex *index;
	floe_pg_keep source, holder;    /* the sessions the last batch left idle, for the next */
	floe_cdc_stream *stream;        /* the table's replication stream, open since the last batch */
	double last_commit, last_check; /* monotonic seconds; 0: never */
	bool busy_said;                 /* "another run holds it" logged since the last batch */
	bool retried;                   /* the last batch lost the source: the next one reconnects */
	/* the round's batch, from its consistent point (prepare) to its commit (apply) */
	floe_arena *a;                  /* NULL: no batch prepared */
	floe_table_lock *lock;
	bronze_job job;
	floe_bronze_result r;
	double t0, spent;               /* when the batch began; the seconds it took before its load */
} follower;

typedef struct follow_ctx {
	const floe_config *config;
	const floe_bronze_follow_opts *opts;
	floe_state *state;
	const char *paths[3];           /* pipeline, catalog, warehouse */
	char run_id[FLOE_RUN_ID_MAX];
	double reconcile_every;
} follow_ctx;

static bool stopping(const follow_ctx *ctx)
{
	return ctx->opts->stop && *ctx->opts->stop;
}

static void record(follow_ctx *ctx, const bronze_job *job)
{
	char at[32];
	floe_state_now(at, sizeof(at));
	bronze_record(ctx->state, ctx->run_id, job->result, at);
}

/* The table's job for one batch, in `a`. */
static void job_init(bronze_job *job, floe_bronze_result *r, floe_arena *a, follow_ctx *ctx, follower *f, double now)
{
	const floe_lock_table *t = f->table;
	memset(job, 0, sizeof(*job));
	memset(r, 0, sizeof(*r));
	r->table = t->bronze;
	r->source = floe_arena_printf(a, "%s.%s", t->schema, t->name);
	r->mode = t->mode;
	r->rows = r->bytes = r->files = r->table_rows = -1;
	job->arena = a;
	job->config = ctx->config;
	job->pipeline_dir = ctx->paths[0];
	job->catalog_path = ctx->paths[1];
	job->warehouse_dir = ctx->paths[2];
	job->table = t;
	job->run_id = ctx->run_id;
	job->result = r;
	job->index = f->index;
	job->keep_source = &f->source;
	job->keep_holder = &f->holder;
	job->keep_stream = &f->stream;
	job->follow_quiet = f->last_commit > 0 && now - f->last_commit < QUIET_COMMIT_SECONDS;
	if (ctx->opts->check && (f->last_check == 0 || now - f->last_check >= ctx->reconcile_every)) {
		job->check = ctx->opts->check;
		job->check_ctx = ctx->opts->check_ctx;
	}
}

/*
 * A batch that failed: a conflict (another writer, the lock) is retried at the next poll, and so
 * is a lost source once (its sessions are closed: the next batch connects anew); anything else
 * is recorded and ends the follower.
 */
static int failed(follow_ctx *ctx, follower *f, bronze_job *job)
{
	const floe_error *e = floe_error_last();
	floe_bronze_result *r = job->result;
	if (e && e->code == FLOE_CODE_TABLE_BUSY) { /* its load may need the slot our stream holds: let it go */
		if (!f->busy_said)
			floe_log_info("%s: %s; following resumes after it", f->table->bronze, e->message);
		f->busy_said = true;
		floe_cdc_stream_free(f->stream);
		f->stream = NULL;
		floe_error_clear();
		return 0;
	}
	if (e && e->cls == FLOE_ERR_UNREACHABLE && !f->retried) { /* a kept session the server closed? */
		floe_log_warn("%s: %s; the next batch connects again", f->table->bronze, e->message);
		f->retried = true;
		floe_error_clear();
		return 0;
	}
	if (e && e->cls == FLOE_ERR_CONFLICT) {
		floe_log_warn("%s: the batch gave way (%s); it is applied again at the next poll", f->table->bronze,
			      e->message);
		floe_error_clear();
		return 0;
	}
	floe_buf msg = FLOE_BUF_INIT;
	floe_error_put_message(&msg, e);
	r->state = FLOE_TABLE_FAILED;
	r->error = floe_arena_strdup(job->arena, floe_buf_cstr(&msg));
	floe_buf_free(&msg);
	record(ctx, job);
	return floe_error_context("while following %s", f->table->bronze);
}

/* The batch's end, whatever it was: its lock released, its arena freed. */
static void batch_end(follower *f)
{
	floe_state_unlock(f->lock);
	floe_arena_free(f->a);
	f->lock = NULL;
	f->a = NULL;
}

/* A batch failed: sessions it did not reach may be as broken as the one it failed on. */
static int batch_failed(follow_ctx *ctx, follower *f)
{
	floe_pg_close(f->source.pg);
	floe_pg_close(f->holder.pg);
	f->source.pg = f->holder.pg = NULL;
	floe_cdc_stream_free(f->stream); /* it may have read past what the batch committed */
	f->stream = NULL;
	bronze_cdc_end(&f->job, false);
	int error = failed(ctx, f, &f->job);
	batch_end(f);
	return error;
}

/*
 * The first half of table f's batch, under its load lock: the stream read to a consistent point
 * (bronze_cdc_prepare). Every table's is taken before any load of the round: a load's reads write
 * WAL (page pruning) that the server flushes only later, and a stream cannot pass what is not
 * flushed — the next table's consistent point, taken after that load, would wait for it.
 */
static int prepare_one(follow_ctx *ctx, follower *f)
{
	f->a = floe_arena_new();
	f->t0 = bronze_seconds();
	job_init(&f->job, &f->r, f->a, ctx, f, f->t0);
	double t = f->t0;
	if (floe_state_lock(&f->lock, ctx->config->project_dir, f->table->bronze, ctx->run_id) < 0 ||
	    (bronze_step(&f->job, &t, "locked"), bronze_cdc_prepare(&f->job) < 0))
		return batch_failed(ctx, f);
	f->spent = bronze_seconds() - f->t0;
	return 0;
}

/* The second half: the load (at the prepared snapshot), its commit and acknowledgement, the ledger. */
static int apply_one(follow_ctx *ctx, follower *f)
{
	bronze_job *job = &f->job;
	floe_bronze_result *r = &f->r;
	int64_t before = bronze_posindex_snapshot(f->index);
	double t1 = bronze_seconds();
	if (!f->a)
		return 0; /* not prepared: busy, or a conflict retried at the next poll */
	if (bronze_load_table(job) < 0)
		return batch_failed(ctx, f);
	double t = bronze_seconds();
	f->busy_said = f->retried = false;
	r->state = FLOE_TABLE_LOADED;
	r->seconds = f->spent + (t - t1);
	if (r->checked)
		f->last_check = f->t0;
	if (r->checked && r->check_state != FLOE_RECONCILE_VERIFIED && r->check_state != FLOE_RECONCILE_PARTIAL)
		floe_log_warn("%s: reconciliation after the batch: %s: %s", f->table->bronze,
			      floe_reconcile_outcome_name(r->check_state), r->check_detail ? r->check_detail : "");
	if (r->commit_seconds > 0 || r->checked) { /* a snapshot was committed (or checked): the ledger has it */
		f->last_commit = f->t0;
		record(ctx, job);
		bronze_step(job, &t, "recorded in the ledger");
		floe_log_info("%s: batch: slot read in %.3f s, applied and committed in %.3f s (catalog commit %.3f s)%s; "
			      "position index %s; %s", f->table->bronze, r->stream_seconds, r->seconds - r->stream_seconds,
			      r->commit_seconds, r->checked ? ", reconciled" : "",
			      bronze_posindex_snapshot(f->index) < 0 ? "dropped (rebuilt at the next batch, or over budget)"
			      : before == bronze_posindex_snapshot(f->index) ? "unchanged" : "carried forward",
			      r->detail ? r->detail : "");
	}
	batch_end(f);
	return 0;
}

/* One round: every table's consistent point, then every table's load; a failure ends the rest. */
static int follow_round(follow_ctx *ctx, follower *fs, size_t n)
{
	int error = 0;
	for (size_t i = 0; i < n && error == 0 && !stopping(ctx); i++)
		error = prepare_one(ctx, &fs[i]);
	for (size_t i = 0; i < n && error == 0; i++) /* a signal lets the prepared batches finish */
		error = apply_one(ctx, &fs[i]);
	for (size_t i = 0; i < n; i++) {
		if (fs[i].a) { /* prepared, never loaded: the follower ends */
			bronze_cdc_end(&fs[i].job, false);
			batch_end(&fs[i]);
		}
	}
	return error;
}

/* The tables to follow: the wanted CDC tables; another named table is a usage error. */
static int choose(follower **out, size_t *n, floe_arena *a, const floe_lock *lock, const follow_ctx *ctx)
{
	const floe_bronze_follow_opts *o = ctx->opts;
	size_t cap = floe_lock_count(lock);
	size_t budget = (size_t)(ctx->config->cdc ? ctx->config->cdc->follow_index_mb : FLOE_CDC_FOLLOW_INDEX_MB) << 20;
	*out = floe_arena_alloc(a, (cap + 1) * sizeof(follower));
	*n = 0;
	for (size_t i = 0; i < cap; i++) {
		const floe_lock_table *t = floe_lock_at(lock, i);
		bool cdc = floe_config_cdc_wants(ctx->config, t->schema, t->name) && !t->owner &&
			   (t->mode == FLOE_LOAD_FULL || t->mode == FLOE_LOAD_INCREMENTAL) &&
			   (t->n_key > 0 || !ctx->config->bronze.cdc);
		if (!bronze_wanted(o->tables, o->n_tables, t))
			continue;
		if (!cdc && o->tables) {
			floe_error_set(FLOE_ERR_USAGE, "%s is not loaded by change data capture: --follow follows the "
				       "[cdc] tables only", t->bronze);
			floe_error_hint("Name only tables of [cdc] (docs/cdc.md), or load this one with `floe run`.");
			return -1;
		}
		if (!cdc)
			continue;
		follower *f = &(*out)[(*n)++];
		memset(f, 0, sizeof(*f));
		f->table = t;
		bronze_posindex_new(&f->index, t->bronze, budget);
	}
	if (*n == 0) {
		floe_error_set(FLOE_ERR_USAGE, "no table to follow: none of the plan's tables is loaded by change data capture");
		floe_error_hint("List tables in [cdc] tables (or set [bronze] cdc = true) and run `floe generate` "
				"(docs/cdc.md).");
		return -1;
	}
	return 0;
}

/* The poll interval, cut short when a signal asks to stop; the kept streams read meanwhile (keepalives answered). */
static void pause_between(const follow_ctx *ctx, follower *fs, size_t n)
{
	int64_t ms = ctx->config->cdc ? ctx->config->cdc->follow_interval_ms : FLOE_CDC_FOLLOW_INTERVAL_MS;
	while (ms > 0 && !stopping(ctx)) {
		int64_t step = ms < 50 ? ms : 50;
		struct timespec ts = { 0, (long)step * 1000000L };
		nanosleep(&ts, NULL);
		ms -= step;
		for (size_t i = 0; i < n; i++)
			floe_cdc_stream_idle(fs[i].stream);
	}
}

int floe_bronze_follow(const floe_config *config, const floe_bronze_follow_opts *opts)
{
	floe_arena *a = floe_arena_new();
	floe_lock *lock = NULL;
	follower *fs = NULL;
	size_t n = 0;
	int error = -1;
	follow_ctx ctx = { .config = config, .opts = opts };
	ctx.paths[0] = floe_config_pipeline_dir(a, config);
	ctx.paths[1] = floe_config_catalog_path(a, config);
	ctx.paths[2] = floe_config_warehouse_dir(config);
	ctx.reconcile_every = (double)(config->cdc ? config->cdc->follow_reconcile_seconds
						   : FLOE_CDC_FOLLOW_RECONCILE_SECONDS);
	if (floe_lock_load(&lock, floe_config_lock_path(a, config)) < 0) {
		floe_error_hint("Run `floe plan` to review, then `floe generate` to deploy the plan.");
		goto cleanup;
	}
	if (choose(&fs, &n, a, lock, &ctx) < 0 || floe_iceberg_catalog_prepare_sql(ctx.paths[1], true) < 0 ||
	    floe_state_open(&ctx.state, config->project_dir) < 0 ||
	    floe_state_run_begin(ctx.state, "run --follow", ctx.run_id) < 0)
		goto cleanup;
	floe_log_info("following %zu table%s (run %s)", n, n == 1 ? "" : "s", ctx.run_id);
	if (!config->warehouse.keep_snapshots && !config->warehouse.keep_days) /* metadata grows per batch */
		floe_log_warn("every batch adds a snapshot and nothing expires them: set [warehouse] keep-snapshots "
			      "(or keep-days), or run `floe expire` now and then, or each batch reads and writes "
			      "ever larger table metadata");
	error = 0;
	while (error == 0 && !stopping(&ctx)) {
		error = follow_round(&ctx, fs, n);
		if (error == 0)
			pause_between(&ctx, fs, n);
	}
	floe_state_run_end(ctx.state, ctx.run_id, error < 0 ? FLOE_RUN_FAILED : FLOE_RUN_OK);
cleanup:
	for (size_t i = 0; i < n; i++) {
		bronze_posindex_free(fs[i].index);
		floe_pg_close(fs[i].source.pg);
		floe_pg_close(fs[i].holder.pg);
		floe_cdc_stream_free(fs[i].stream);
	}
	floe_state_close(ctx.state);
	floe_lock_free(lock);
	floe_arena_free(a);
	return error;
}
