/*
 * run.c — `floe run --layer gold` (and `floe run` after silver): every merged mart of the
 * lock built under its table lock (build.c), each outcome recorded in the run ledger with
 * layer gold, so `floe status` shows the mart's state and its tests.
 */
#include "gold/gold_build.h"
#include "base/error.h"
#include "base/log.h"
#include "iceberg/catalog.h"
#include "iceberg/table.h"
#include "silver/silver.h"
#include "state/state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct owned {
	floe_arena *arena;
	floe_lock *lock;
} owned;

static bool wanted(const floe_gold_opts *o, const floe_lock_mart *m)
{
	if (!o->marts)
		return true;
	for (size_t i = 0; i < o->n_marts; i++)
		if (strcmp(o->marts[i], m->name) == 0 || strcmp(o->marts[i], m->table) == 0)
			return true;
	return false;
}

static void record(floe_state *st, const gold_job *job, bool done)
{
	char finished[32], snap[32] = "";
	const floe_gold_result *r = job->result;
	floe_state_now(finished, sizeof(finished));
	if (r->snapshot_id > 0)
		snprintf(snap, sizeof(snap), "%lld", (long long)r->snapshot_id);
	floe_table_state state = strcmp(r->state, "building") == 0 ? FLOE_TABLE_LOADING
				 : strcmp(r->state, "failed") == 0  ? FLOE_TABLE_FAILED
								    : FLOE_TABLE_LOADED;
	floe_state_table_run tr = { .run_id = job->run_id, .table_name = r->table, .layer = "gold",
				    .source = job->mart->model, .mode = "table", .state = state, .rows = r->rows,
				    .bytes = -1, .files = -1, .snapshot_id = snap[0] ? snap : NULL, .detail = r->detail,
				    .error = r->error, .cause = r->cause, .finished_at = done ? finished : NULL };
	if (floe_state_table_put(st, &tr) < 0) {
		floe_log_warn("could not record %s in the run ledger", r->table);
		floe_error_clear();
	}
}

static void describe(gold_job *job)
{
	floe_gold_result *r = job->result;
	r->detail = floe_arena_printf(job->arena, "%lld rows; tests %d passed, %d failed%s%s", (long long)job->rows,
				      r->tests_passed, r->tests_failed, job->notes.len ? "; " : "",
				      floe_buf_cstr(&job->notes));
}

static void failed(gold_job *job)
{
	floe_gold_result *r = job->result;
	r->state = "failed";
	r->exit_code = floe_silver_failure(&r->error, &r->cause, job->arena, r->tests_failed > 0,
					   "a gold test failed: the mart disagrees with its grain or with silver "
					   "(see the error)");
}

static void run_one(gold_job *job, floe_state *st)
{
	floe_gold_result *r = job->result;
	floe_table_lock *lock = NULL;
	int64_t t0 = floe_iceberg_now_ms();
	r->state = "building";
	record(st, job, false);
	int rc = floe_state_lock(&lock, job->config->project_dir, r->table, job->run_id);
	if (rc == 0)
		rc = gold_build_mart(job);
	floe_state_unlock(lock);
	r->seconds = (double)(floe_iceberg_now_ms() - t0) / 1e3;
	describe(job);
	if (rc < 0)
		failed(job);
	else
		r->state = "built";
	r->rows = rc < 0 ? -1 : job->rows;
	record(st, job, true);
}

int floe_gold_run(floe_gold_report *out, const floe_config *config, const floe_gold_opts *opts)
{
	floe_gold_opts defaults = { 0 };
	floe_state *st = NULL;
	floe_iceberg_catalog *cat = NULL;
	int error = -1;
	opts = opts ? opts : &defaults;
	memset(out, 0, sizeof(*out));
	owned *own = floe_xcalloc(1, sizeof(*own));
	out->owned = own;
	own->arena = floe_arena_new();
	if (floe_silver_open(&own->lock, &st, &cat, own->arena, config) < 0)
		goto cleanup;
	if (opts->run_id)
		snprintf(out->run_id, sizeof(out->run_id), "%s", opts->run_id);
	else if (floe_state_run_begin(st, "run", out->run_id) < 0)
		goto cleanup;
	size_t n = floe_lock_mart_count(own->lock);
	out->results = floe_arena_alloc(own->arena, (n + 1) * sizeof(*out->results));
	for (size_t i = 0; i < n; i++) {
		const floe_lock_mart *m = floe_lock_mart_at(own->lock, i);
		if (!wanted(opts, m))
			continue;
		floe_gold_result *r = &out->results[out->n_results++];
		*r = (floe_gold_result){ .mart = m->name, .table = m->table, .rows = -1 };
		gold_job job = { .config = config, .cat = cat, .lock = own->lock, .mart = m,
				 .pipeline_dir = floe_config_pipeline_dir(own->arena, config), .run_id = out->run_id,
				 .arena = own->arena, .result = r, .notes = FLOE_BUF_INIT };
		run_one(&job, st);
		floe_buf_free(&job.notes);
		out->n_failed += strcmp(r->state, "failed") == 0;
		if (r->exit_code > out->exit_code)
			out->exit_code = r->exit_code;
	}
	if (!opts->run_id)
		floe_state_run_end(st, out->run_id, out->n_failed ? FLOE_RUN_FAILED : FLOE_RUN_OK);
	error = 0;
cleanup:
	floe_iceberg_catalog_free(cat);
	floe_state_close(st);
	return error;
}

void floe_gold_report_free(floe_gold_report *report)
{
	owned *own = report ? report->owned : NULL;
	if (!own)
		return;
	floe_lock_free(own->lock);
	floe_arena_free(own->arena);
	free(own);
	report->owned = NULL;
}
