/*
 * run.c — silver for the plan's tables: which tables, in which order, over which bronze
 * snapshot (the one reconciliation verified last), each under its table lock, every
 * outcome in the run ledger (layer silver).
 */
#include "silver/silver_int.h"
#include "silver/history.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/log.h"
#include "state/state.h"

#include <pthread.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct owned {
	floe_arena *arena;
	floe_lock *lock;
	floe_arena **job_arenas;          /* one a table: its build's allocations, its result's strings */
	size_t n_job_arenas;
} owned;

static bool wanted(const floe_silver_opts *o, const floe_lock_table *t)
{
	if (!t->silver || t->owner || (t->mode != FLOE_LOAD_FULL && t->mode != FLOE_LOAD_INCREMENTAL))
		return false;
	bool moved = o->moved == NULL;
	for (size_t i = 0; i < o->n_moved && !moved; i++)
		moved = strcmp(o->moved[i], t->bronze) == 0;
	if (!moved)
		return false;
	for (size_t i = 0; i < o->n_tables; i++)
		if (floe_lock_table_named(t, o->tables[i]) || strcmp(o->tables[i], t->silver->table) == 0)
			return true;
	return o->n_tables == 0;
}

/* Whether `t` has a relationships test to a table of `order[from..n)` other than itself. */
static bool waits_for(const floe_lock_table *t, const floe_lock_table **order, size_t from, size_t n)
{
	for (size_t i = 0; i < t->silver->n_tests; i++) {
		const floe_lock_test *test = &t->silver->tests[i];
		for (size_t k = from; test->to && k < n; k++)
			if (order[k] != t && strcmp(order[k]->silver->table, test->to) == 0)
				return true;
	}
	return false;
}

/* The wanted tables, a relationships test's parent before its children (cycles: lock order). */
static size_t ordered(const floe_lock *lock, const floe_silver_opts *o, floe_arena *a, const floe_lock_table ***out)
{
	size_t n = 0, cap = 0;
	const floe_lock_table **order = NULL;
	for (size_t i = 0; i < floe_lock_count(lock); i++)
		if (wanted(o, floe_lock_at(lock, i)))
			*FLOE_ARENA_PUSH(a, order, n, cap) = floe_lock_at(lock, i);
	for (size_t done = 0; done < n; done++) {
		size_t pick = done;
		while (pick < n && waits_for(order[pick], order, done, n))
			pick++;
		if (pick == n)
			pick = done;
		const floe_lock_table *t = order[pick];
		memmove(&order[done + 1], &order[done], (pick - done) * sizeof(*order));
		order[done] = t;
	}
	*out = order;
	return n;
}

/* The newest reconciliation of `bronze` among `recs`, or NULL. */
static const floe_state_reconcile *verdict_of(const floe_state_reconcile *recs, size_t n, const char *bronze)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(recs[i].table_name, bronze) == 0)
			return &recs[i];
	return NULL;
}

/* The ledger's state of a silver outcome: built and unchanged are a good load, building a load. */
static floe_table_state ledger_state(const char *state)
{
	return strcmp(state, "building") == 0 ? FLOE_TABLE_LOADING
	       : strcmp(state, "failed") == 0 ? FLOE_TABLE_FAILED
	       : strcmp(state, "skipped") == 0 ? FLOE_TABLE_SKIPPED
					       : FLOE_TABLE_LOADED;
}

/* The result into the ledger; `done`: with the time it finished. */
static void record(floe_state *st, const silver_job *job, bool done)
{
	char finished[32];
	floe_state_now(finished, sizeof(finished));
	const floe_silver_result *r = job->result;
	char snap[32] = "";
	if (r->snapshot_id > 0)
		snprintf(snap, sizeof(snap), "%lld", (long long)r->snapshot_id);
	floe_state_table_run tr = { .run_id = job->run_id, .table_name = r->table, .layer = "silver",
				    .source = r->bronze, .mode = r->materialized, .state = ledger_state(r->state), .rows = r->rows,
				    .bytes = -1, .files = -1, .snapshot_id = snap[0] ? snap : NULL,
				    .detail = r->detail, .error = r->error, .cause = r->cause,
				    .finished_at = done ? finished : NULL, .tests_failed = done ? r->tests_failed : -1,
				    .tests_warned = done ? r->tests_warned : -1, .quarantined = done ? r->quarantined : -1,
				    .tests_passed = done ? r->tests_passed : -1 };
	if (floe_state_table_put(st, &tr) < 0) {
		floe_log_warn("could not record %s in the run ledger", r->table);
		floe_error_clear();
	}
}

/* The result's one-line detail: rows, the bronze snapshot read, tests, quarantine, notes. */
static void describe(silver_job *job)
{
	floe_silver_result *r = job->result;
	floe_buf b = FLOE_BUF_INIT;
	floe_buf_printf(&b, "%lld rows from bronze snapshot %lld (%s)", (long long)r->rows,
			(long long)r->bronze_snapshot_id, job->verified);
	if (r->changed_keys >= 0)
		floe_buf_printf(&b, ", incremental: %lld changed keys", (long long)r->changed_keys);
	if (job->same_bytes)
		floe_buf_puts(&b, " (bronze's new files are byte for byte those of the last build: no row read)");
	floe_buf_printf(&b, "; tests %d passed", r->tests_passed);
	if (r->tests_proven)
		floe_buf_printf(&b, " (%d by construction: one row per key)", r->tests_proven);
	if (r->tests_incremental)
		floe_buf_printf(&b, ", %d of them incrementally (the changed rows and the keys they touch; the rest passed "
				    "at the last publish)%s%s", r->tests_incremental, job->whole.len ? ", over the whole table: " : "",
				floe_buf_cstr(&job->whole));
	floe_buf_printf(&b, ", %d failed, %d warned; %lld rows quarantined", r->tests_failed, r->tests_warned,
			(long long)r->quarantined);
	if (job->dedup_skipped)
		floe_buf_puts(&b, "; deduplication skipped: bronze proven unique on the key");
	if (job->notes.len)
		floe_buf_printf(&b, "; %s", floe_buf_cstr(&job->notes));
	r->detail = floe_arena_strdup(job->arena, floe_buf_cstr(&b));
	floe_buf_free(&b);
}

static void failed(silver_job *job)
{
	floe_silver_result *r = job->result;
	r->state = "failed";
	r->exit_code = floe_silver_failure(&r->error, &r->cause, job->arena, job->table_failed,
					   "a silver test found rows the rules refuse (see the error)");
}

/* silver.X_history brought up to date with bronze's snapshots (history.h), its counts in the notes. */
static int build_history(silver_job *job)
{
	floe_silver_history_result h;
	floe_silver_history_opts o = FLOE_SILVER_HISTORY_OPTS_INIT;
	o.run_id = job->run_id;
	if (floe_silver_history_build(&h, job->config, job->table, &o) < 0)
		return floe_error_context("while building the history of %s", job->result->table);
	floe_buf_puts(&job->notes, job->notes.len ? "; " : "");
	floe_buf_printf(&job->notes, "history: %zu bronze snapshots read, %lld versions opened, %lld closed, %lld rows",
			h.observations, (long long)h.opened, (long long)h.closed, (long long)h.rows);
	return 0;
}

/*
 * ---- the builds, on up to `jobs` threads ----
 *
 * Tables start in the order `ordered` gives. A build reads another table of the run only after
 * wait_reads, once every earlier table it reads has finished: those its relationships tests read
 * (their published snapshot, and the keys they lost in this run: silver_memo) and — a model that is
 * not `floe generate`'s own text, which may ref() any table — every earlier one (it starts only
 * then). A table an earlier one reads (a cycle of relationships) starts only once every earlier
 * table has finished, so it never publishes under a build that reads it. So each build reads what
 * it would read one table at a time. Each thread has its own catalog handle; the ledger is written
 * under `mu`.
 */
typedef struct silver_run {
	const floe_config *config;
	floe_state *st;
	const floe_state_reconcile *recs;
	size_t n_recs;
	const floe_lock_table **order;
	silver_job *jobs;
	size_t n;
	bool *after_all;                  /* starts once every earlier table finished: its model may ref()
	                                     any, or an earlier one's tests read it */
	enum { WAITING, BUILDING, FINISHED } *status;
	bool *readable;                   /* published, or over: what a table reading it waits for (wait_reads) */
	size_t started;
	pthread_mutex_t mu;               /* guards status, started and the ledger */
	pthread_cond_t finished;
} run_ctx;

/* Whether table a has a relationships test reading table b. */
static bool tests_read(const floe_lock_table *a, const floe_lock_table *b)
{
	const floe_lock_silver *s = a->silver;
	for (size_t t = 0; t < s->n_tests; t++)
		if (s->tests[t].to && strcmp(s->tests[t].to, b->silver->table) == 0)
			return true;
	return false;
}

/* Whether order[i] reads order[k] (k < i): a relationships test to it, or a model that may ref() it. */
static bool reads(const run_ctx *c, size_t i, size_t k)
{
	return c->after_all[i] || tests_read(c->order[i], c->order[k]);
}

/*
 * The next table to start (under mu): tables start in order, a model that may ref() any table only
 * once every earlier one finished; n when it must wait. So a build that waits (wait_reads) waits
 * for earlier tables that have all started, and the earliest unfinished one never waits.
 */
static size_t next_ready(const run_ctx *c)
{
	size_t i = c->started;
	for (size_t k = 0; i < c->n && c->after_all[i] && k < i; k++)
		if (c->status[k] != FINISHED)
			return c->n;
	return i;
}

/* job->wait_reads: until every earlier table the build reads has finished. */
static void wait_reads(silver_job *job)
{
	run_ctx *c = job->run;
	size_t i = (size_t)(job - c->jobs);
	pthread_mutex_lock(&c->mu);
	for (size_t k = 0; k < i; k++)
		while (!c->readable[k] && reads(c, i, k))
			pthread_cond_wait(&c->finished, &c->mu);
	pthread_mutex_unlock(&c->mu);
}

/* job->readable: the tables reading this one may go on (its index upkeep and history are its own). */
static void mark_readable(silver_job *job)
{
	run_ctx *c = job->run;
	pthread_mutex_lock(&c->mu);
	c->readable[job - c->jobs] = true;
	pthread_cond_broadcast(&c->finished);
	pthread_mutex_unlock(&c->mu);
}

static void record_locked(run_ctx *c, const silver_job *job, bool done)
{
	pthread_mutex_lock(&c->mu);
	record(c->st, job, done);
	pthread_mutex_unlock(&c->mu);
}

/* One table: skipped unless its bronze snapshot was verified; built under its lock. */
static void run_one(silver_job *job, run_ctx *c, const floe_state_reconcile *rec)
{
	floe_silver_result *r = job->result;
	floe_table_lock *lock = NULL;
	int64_t t0 = floe_iceberg_now_ms();
	if (!rec || rec->outcome != FLOE_RECONCILE_VERIFIED || !rec->snapshot_id) {
		r->state = "skipped";
		r->not_reconciled = true;
		r->detail = floe_arena_printf(job->arena, "%s is %s: silver is built only over a verified bronze snapshot",
					      r->bronze, rec ? floe_reconcile_outcome_name(rec->outcome) : "not reconciled yet");
		record_locked(c, job, true);
		return;
	}
	job->bronze_snapshot = r->bronze_snapshot_id = strtoll(rec->snapshot_id, NULL, 10);
	job->verified = rec->excluded ? floe_arena_printf(job->arena, "verified (partial): %s not compared", rec->excluded)
				      : "verified";
	job->bronze_unique = !rec->excluded && rec->tier && strcmp(rec->tier, "V3") == 0;
	r->state = "building";
	record_locked(c, job, false);
	int rc = floe_state_lock(&lock, job->config->project_dir, r->table, job->run_id);
	if (rc == 0)
		rc = silver_build_table(job);
	if (rc == 0 && job->table->silver->history)
		rc = build_history(job);
	floe_state_unlock(lock);
	r->seconds = (double)(floe_iceberg_now_ms() - t0) / 1e3;
	if (rc < 0)
		failed(job);
	else if (strcmp(r->state, "building") == 0)
		r->state = "built";
	bool unchanged = strcmp(r->state, "unchanged") == 0;
	if (unchanged && !r->detail) /* with one, the build said why: bronze moved, its rows did not */
		r->detail = floe_arena_printf(job->arena, "%lld rows; bronze snapshot %lld and the model are as at the "
							 "last build", (long long)r->rows, (long long)r->bronze_snapshot_id);
	else if (!unchanged && strcmp(r->state, "skipped") != 0) /* skipped: the build said why */
		describe(job);
	record_locked(c, job, true);
}

static void *worker(void *arg)
{
	run_ctx *c = arg;
	floe_iceberg_catalog *cat = NULL;
	floe_arena *a = floe_arena_new();
	pthread_mutex_lock(&c->mu);
	while (c->started < c->n) {
		size_t i = next_ready(c);
		if (i == c->n) {
			pthread_cond_wait(&c->finished, &c->mu);
			continue;
		}
		c->status[i] = BUILDING;
		c->started++;
		pthread_mutex_unlock(&c->mu);
		silver_job *job = &c->jobs[i];
		if (!cat && silver_catalog_open(&cat, a, c->config) < 0) { /* the thread's, opened at its first table */
			failed(job);
			record_locked(c, job, true);
		} else {
			job->cat = cat;
			run_one(job, c, verdict_of(c->recs, c->n_recs, c->order[i]->bronze));
		}
		floe_buf_free(&job->notes);
		floe_buf_free(&job->whole);
		pthread_mutex_lock(&c->mu);
		c->status[i] = FINISHED;
		c->readable[i] = true;
		pthread_cond_broadcast(&c->finished);
	}
	pthread_mutex_unlock(&c->mu);
	floe_iceberg_catalog_free(cat);
	floe_arena_free(a);
	return NULL;
}

/*
 * DuckDB's threads for `jobs` builds at once: the cores shared out, at least one each. Each build's
 * queries then run on its own thread without handing work to DuckDB's pool (on 2 cores, 2 builds:
 * the shop's full silver build 11 % less CPU, its incremental one 13 %, wall no slower); one build
 * alone keeps every core.
 */
static int duck_threads(int jobs)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	if (cores < 1 || jobs < 1)
		return 0;
	return cores / jobs > 1 ? (int)(cores / jobs) : 1;
}

/* Build c's tables on `threads` threads (the caller's the first): none started is an error. */
static int build_all(run_ctx *c, int threads)
{
	pthread_t t[8];
	int started = 0;
	if (threads > 8)
		threads = 8;
	for (int i = 1; i < threads && (size_t)i < c->n; i++) {
		if (pthread_create(&t[started], NULL, worker, c) != 0)
			break; /* the threads that started take every table */
		started++;
	}
	worker(c);
	for (int i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	return 0;
}

int floe_silver_run(floe_silver_report *out, const floe_config *config, const floe_silver_opts *opts)
{
	floe_silver_opts defaults = { 0 };
	floe_state *st = NULL;
	floe_iceberg_catalog *cat = NULL;
	floe_state_reconcile *recs = NULL;
	const floe_lock_table **order = NULL;
	size_t n_recs = 0;
	silver_memo memo = { .mu = PTHREAD_MUTEX_INITIALIZER };
	int error = -1;
	opts = opts ? opts : &defaults;
	memset(out, 0, sizeof(*out));
	owned *own = floe_xcalloc(1, sizeof(*own));
	out->owned = own;
	own->arena = floe_arena_new();
	if (opts->moved && !opts->n_moved) { /* bronze proved no load this run: no silver table to build */
		snprintf(out->run_id, sizeof(out->run_id), "%s", opts->run_id ? opts->run_id : "");
		return 0;
	}
	if (floe_silver_open(&own->lock, &st, &cat, own->arena, config) < 0 || floe_state_reconcile_latest(st, own->arena, &recs, &n_recs) < 0)
		goto cleanup;
	floe_iceberg_catalog_free(cat); /* each thread opens its own */
	cat = NULL;
	if (opts->run_id)
		snprintf(out->run_id, sizeof(out->run_id), "%s", opts->run_id);
	else if (floe_state_run_begin(st, "run", out->run_id) < 0)
		goto cleanup;
	size_t n = ordered(own->lock, opts, own->arena, &order);
	if (n)
		silver_memo_warm(&memo); /* while the first tables are opened */
	memo.arena = own->arena;
	memo.gone = floe_arena_alloc(own->arena, (n + 1) * sizeof(*memo.gone)); /* never moved: see silver_memo */
	memo.cap_gone = n + 1;
	out->results = floe_arena_alloc(own->arena, (n + 1) * sizeof(*out->results));
	own->job_arenas = floe_arena_alloc(own->arena, (n + 1) * sizeof(*own->job_arenas));
	const char *pipeline = floe_arena_printf(own->arena, "%s/pipeline", config->project_dir);
	silver_idle *idle = silver_idle_start(config);
	run_ctx c = { .config = config, .st = st, .recs = recs, .n_recs = n_recs, .order = order, .n = n,
		      .jobs = floe_arena_alloc(own->arena, (n + 1) * sizeof(silver_job)),
		      .after_all = floe_arena_alloc(own->arena, n + 1),
		      .status = floe_arena_alloc(own->arena, (n + 1) * sizeof(*c.status)),
		      .readable = floe_arena_alloc(own->arena, n + 1),
		      .mu = PTHREAD_MUTEX_INITIALIZER, .finished = PTHREAD_COND_INITIALIZER };
	for (size_t i = 0; i < n; i++) {
		floe_silver_result *r = &out->results[out->n_results++];
		*r = (floe_silver_result){ .table = order[i]->silver->table, .bronze = order[i]->bronze,
					   .materialized = order[i]->silver->materialized, .rows = -1, .changed_keys = -1 };
		floe_arena *a = own->job_arenas[own->n_job_arenas++] = floe_arena_new();
		c.jobs[i] = (silver_job){ .config = config, .lock = own->lock, .table = order[i], .pipeline_dir = pipeline,
					  .run_id = out->run_id, .full_refresh = opts->full_refresh, .arena = a, .result = r,
					  .memo = &memo, .notes = FLOE_BUF_INIT, .whole = FLOE_BUF_INIT,
					  .readable = mark_readable, .wait_reads = wait_reads, .run = &c, .idle = idle };
		c.after_all[i] = !silver_model_generated(config, pipeline, order[i]);
		for (size_t k = 0; k < i && !c.after_all[i]; k++)
			c.after_all[i] = order[k] != order[i] && tests_read(order[k], order[i]); /* a cycle */
		c.status[i] = WAITING;
		c.readable[i] = false;
	}
	int jobs = opts->jobs > 0 ? opts->jobs : SILVER_JOBS_DEFAULT;
	memo.threads = duck_threads(jobs < (int)n ? jobs : (int)n);
	build_all(&c, jobs);
	silver_idle_stop(idle); /* what it has not made, the builds that ask make */
	for (size_t i = 0; i < n; i++) {
		const floe_silver_result *r = &out->results[i];
		out->n_failed += strcmp(r->state, "failed") == 0;
		out->n_not_reconciled += r->not_reconciled;
		if (r->exit_code > out->exit_code)
			out->exit_code = r->exit_code;
	}
	if (!opts->run_id)
		floe_state_run_end(st, out->run_id, out->n_failed ? FLOE_RUN_FAILED : FLOE_RUN_OK);
	error = 0;
cleanup:
	silver_memo_clear(&memo);
	floe_iceberg_catalog_free(cat);
	floe_state_close(st);
	return error;
}

void floe_silver_report_free(floe_silver_report *report)
{
	owned *own = report ? report->owned : NULL;
	if (!own)
		return;
	floe_lock_free(own->lock);
	for (size_t i = 0; i < own->n_job_arenas; i++)
		floe_arena_free(own->job_arenas[i]);
	floe_arena_free(own->arena);
	free(own);
	report->owned = NULL;
}
