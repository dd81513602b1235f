/*
 * run.c — `floe reconcile`: each loadable table of the deployed plan against its
 * current bronze snapshot, one after another, every result in the run ledger.
 * The planted control rotates per table on how many times it was reconciled.
 */
#include "reconcile/reconcile_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/log.h"
#include "pg/pg.h"
#include "plan/plan.h"
#include "state/state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct owned {
	floe_arena *arena;
	floe_lock *lock;
	floe_pg *pg;      /* --repair: the session holding the exported snapshot */
} owned;

static bool wanted(const floe_reconcile_opts *o, const floe_lock_table *t)
{
	for (size_t i = 0; o->tables && i < o->n_tables; i++)
		if (floe_lock_table_named(t, o->tables[i]))
			return true;
	return !o->tables;
}

static int check_names(const floe_lock *lock, const floe_reconcile_opts *o)
{
	for (size_t i = 0; i < o->n_tables; i++) {
		const floe_lock_table *hit = NULL;
		for (size_t k = 0; k < floe_lock_count(lock) && !hit; k++)
			if (floe_lock_table_named(floe_lock_at(lock, k), o->tables[i]))
				hit = floe_lock_at(lock, k);
		if (!hit) {
			floe_error_set(FLOE_ERR_USAGE, "table \"%s\" is not in the deployed plan", o->tables[i]);
			floe_error_hint("Name it as bronze.TABLE or SCHEMA.TABLE; `floe status` lists them.");
			return -1;
		}
		if (!floe_load_mode_loadable(hit->mode)) {
			floe_error_set(FLOE_ERR_USAGE, "table \"%s\" is %s in the deployed plan: there is nothing to reconcile",
				       o->tables[i], floe_load_mode_name(hit->mode));
			return -1;
		}
	}
	return 0;
}

static void count_outcome(floe_reconcile_report *rep, const floe_reconcile_result *r)
{
	switch (floe_reconcile_state(r)) {
	case FLOE_RECONCILE_VERIFIED:
		rep->n_verified++;
		break;
	case FLOE_RECONCILE_PARTIAL:
		rep->n_partial++;
		break;
	case FLOE_RECONCILE_DIVERGED:
		rep->n_diverged++;
		break;
	case FLOE_RECONCILE_UNVERIFIED:
		rep->n_unverified++;
		break;
	case FLOE_RECONCILE_FAILED:
		rep->n_failed++;
		if (r->exit_code > rep->exit_code)
			rep->exit_code = r->exit_code;
		break;
	}
}

/*
 * --repair: the diverged keys re-read from the source at the run's snapshot and
 * upserted (floe_bronze_repair), then the table reconciled again; that result
 * replaces the first (both are in the ledger).
 */
static floe_reconcile_result *repaired(floe_state *st, floe_arena *arena, const floe_config *config,
				       const floe_reconcile_opts *opts, floe_reconcile_request *req,
				       floe_reconcile_result *r, const char *run_id)
{
	floe_bronze_repair_opts ro = { .run_id = run_id, .pg_snapshot = opts->pg_snapshot };
	floe_bronze_result br;
	ro.n_keys = req->table->n_key ? rc_repair_keys(&ro.keys, arena, r, req->table->n_key) : 0;
	if (ro.n_keys == 0) {
		r->repaired = "not repaired: the table has no primary key, or no key was narrowed";
		return r;
	}
	if (floe_bronze_repair(&br, arena, config, req->table->bronze, &ro) < 0) {
		r->repaired = floe_arena_printf(arena, "the repair failed: %s", br.error ? br.error : "see the log");
		floe_error_clear();
		return r;
	}
	req->snapshot_id = br.snapshot_id;
	return rc_reconcile_recorded(st, arena, req, floe_arena_printf(arena, "%zu keys re-copied: %s", ro.n_keys,
								       br.detail ? br.detail : ""));
}

/* With --repair and no snapshot given: one exported snapshot for every comparison and repair. */
static int export_snapshot(floe_pg **pg, const char **out, floe_arena *arena, const floe_config *config)
{
	floe_pg_result *r = NULL;
	if (floe_pg_connect_source(pg, config) < 0 || floe_plan_session_apply(*pg) < 0 ||
	    floe_pg_exec(*pg, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") < 0 ||
	    floe_pg_query(&r, *pg, "select pg_catalog.pg_export_snapshot()", 0, NULL) < 0)
		return -1;
	*out = floe_arena_strdup(arena, floe_pg_result_text(r, 0, 0));
	floe_pg_result_free(r);
	return 0;
}

static void reconcile_one(floe_reconcile_report *rep, floe_state *st, floe_arena *arena, const floe_config *config,
			  const floe_reconcile_opts *opts, const floe_lock_table *t)
{
	floe_reconcile_request req = FLOE_RECONCILE_REQUEST_INIT;
	req.config = config;
	req.table = t;
	req.tier = opts->tier;
	req.run_id = rep->run_id;
	req.control = opts->control;
	req.pg_snapshot = opts->pg_snapshot;
	floe_reconcile_result *r = rc_reconcile_recorded(st, arena, &req, NULL);
	if (opts->repair && r->outcome == FLOE_RECONCILE_DIVERGED)
		r = repaired(st, arena, config, opts, &req, r, rep->run_id);
	rep->results[rep->n_results++] = r;
	count_outcome(rep, r);
}

int floe_reconcile_run(floe_reconcile_report *out, const floe_config *config, const floe_reconcile_opts *opts)
{
	floe_reconcile_opts defaults = FLOE_RECONCILE_OPTS_INIT;
	floe_state *st = NULL;
	if (!opts)
		opts = &defaults;
	memset(out, 0, sizeof(*out));
	owned *own = floe_xcalloc(1, sizeof(*own));
	out->owned = own;
	own->arena = floe_arena_new();
	const char *path = floe_config_lock_path(own->arena, config);
	if (floe_lock_load(&own->lock, path) < 0) {
		floe_error_hint("Run `floe plan` to review, then `floe generate` to deploy the plan.");
		return -1;
	}
	floe_reconcile_opts with_snapshot = *opts;
	if (floe_reconcile_control_check(opts->control) < 0 || check_names(own->lock, opts) < 0)
		return -1;
	if (opts->repair && !opts->pg_snapshot) {
		if (export_snapshot(&own->pg, &with_snapshot.pg_snapshot, own->arena, config) < 0)
			return -1;
		opts = &with_snapshot;
	}
	if (floe_state_open(&st, config->project_dir) < 0)
		return -1;
	if (floe_state_run_begin(st, opts->command ? opts->command : "reconcile", out->run_id) < 0) {
		floe_state_close(st);
		return -1;
	}
	size_t n = floe_lock_count(own->lock);
	out->results = floe_arena_alloc(own->arena, (n + 1) * sizeof(floe_reconcile_result *));
	for (size_t i = 0; i < n; i++) {
		const floe_lock_table *t = floe_lock_at(own->lock, i);
		if (floe_load_mode_loadable(t->mode) && wanted(opts, t))
			reconcile_one(out, st, own->arena, config, opts, t);
	}
	floe_state_run_end(st, out->run_id, out->n_failed ? FLOE_RUN_FAILED : FLOE_RUN_OK);
	floe_state_close(st);
	return 0;
}

void floe_reconcile_report_free(floe_reconcile_report *report)
{
	owned *own = report ? report->owned : NULL;
	if (!own)
		return;
	floe_pg_close(own->pg);
	floe_lock_free(own->lock);
	floe_arena_free(own->arena);
	free(own);
	report->owned = NULL;
}
