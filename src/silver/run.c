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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct owned {
	floe_arena *arena;
	floe_lock *lock;
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

/* One table: skipped unless its bronze snapshot was verified; built under its lock. */
static void run_one(silver_job *job, floe_state *st, const floe_state_reconcile *rec)
{
	floe_silver_result *r = job->result;
	floe_table_lock *lock = NULL;
	int64_t t0 = floe_iceberg_now_ms();
	if (!rec || rec->outcome != FLOE_RECONCILE_VERIFIED || !rec->snapshot_id) {
		r->state = "skipped";
		r->not_reconciled = true;
		r->detail = floe_arena_printf(job->arena, "%s is %s: silver is built only over a verified bronze snapshot",
					      r->bronze, rec ? floe_reconcile_outcome_name(rec->outcome) : "not reconciled yet");
		record(st, job, true);
		return;
	}
	job->bronze_snapshot = r->bronze_snapshot_id = strtoll(rec->snapshot_id, NULL, 10);
	job->verified = rec->excluded ? floe_arena_printf(job->arena, "verified (partial): %s not compared", rec->excluded)
				      : "verified";
	job->bronze_unique = !rec->excluded && rec->tier && strcmp(rec->tier, "V3") == 0;
	r->state = "building";
	record(st, job, false);
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
	record(st, job, true);
}

int floe_silver_run(floe_silver_report *out, const floe_config *config, const floe_silver_opts *opts)
{
	floe_silver_opts defaults = { 0 };
	floe_state *st = NULL;
	floe_iceberg_catalog *cat = NULL;
	floe_state_reconcile *recs = NULL;
	const floe_lock_table **order = NULL;
	size_t n_recs = 0;
	silver_memo memo = { 0 };
	int error = -1;
	opts = opts ? opts : &defaults;
	memset(out, 0, sizeof(*out));
	owned *own = floe_xcalloc(1, sizeof(*own));
	out->owned = own;
	own->arena = floe_arena_new();
	if (floe_silver_open(&own->lock, &st, &cat, own->arena, config) < 0 || floe_state_reconcile_latest(st, own->arena, &recs, &n_recs) < 0)
		goto cleanup;
	if (opts->run_id)
		snprintf(out->run_id, sizeof(out->run_id), "%s", opts->run_id);
	else if (floe_state_run_begin(st, "run", out->run_id) < 0)
		goto cleanup;
	size_t n = ordered(own->lock, opts, own->arena, &order);
	memo.arena = own->arena;
	out->results = floe_arena_alloc(own->arena, (n + 1) * sizeof(*out->results));
	const char *pipeline = floe_arena_printf(own->arena, "%s/pipeline", config->project_dir);
	for (size_t i = 0; i < n; i++) {
		floe_silver_result *r = &out->results[out->n_results++];
		*r = (floe_silver_result){ .table = order[i]->silver->table, .bronze = order[i]->bronze,
					   .materialized = order[i]->silver->materialized, .rows = -1, .changed_keys = -1 };
		silver_job job = { .config = config, .cat = cat, .lock = own->lock, .table = order[i],
				   .pipeline_dir = pipeline, .run_id = out->run_id, .full_refresh = opts->full_refresh, .arena = own->arena, .result = r,
				   .memo = &memo, .notes = FLOE_BUF_INIT, .whole = FLOE_BUF_INIT };
		run_one(&job, st, verdict_of(recs, n_recs, order[i]->bronze));
		floe_buf_free(&job.notes);
		floe_buf_free(&job.whole);
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
	floe_arena_free(own->arena);
	free(own);
	report->owned = NULL;
}
