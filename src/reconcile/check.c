/*
 * check.c — reconciliation as the check after every bronze load
 * (floe_bronze_check_fn): the table compared at the very source snapshot the load
 * read (imported from the load's still-open transaction) against the snapshot it
 * committed, recorded in the run ledger; a diverged table's keys are handed back so
 * the load re-copies them, and the second call proves the repair.
 */
#include "reconcile/reconcile_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "state/state.h"

#include <string.h>

#define REPAIR_MAX_KEYS 10000 /* beyond this a table diverged too far for a repair by key */

size_t rc_repair_keys(const char *const **out, floe_arena *arena, const floe_reconcile_result *r, size_t width)
{
	const char **keys = floe_arena_alloc(arena, (r->n_keys * width + 1) * sizeof(char *));
	size_t n = 0;
	for (size_t i = 0; i < r->n_keys; i++) {
		if (r->keys[i].n_values != width)
			return 0;
		for (size_t k = 0; k < width; k++)
			keys[n++] = r->keys[i].values[k];
	}
	*out = keys;
	return r->n_keys;
}

int floe_reconcile_bronze_check(void *ctx, floe_bronze_check *c)
{
	const floe_reconcile_check_opts *o = ctx;
	floe_reconcile_request req = FLOE_RECONCILE_REQUEST_INIT;
	floe_state *st = NULL;
	if (floe_state_open(&st, o->config->project_dir) < 0)
		return -1;
	req.config = o->config;
	req.table = c->table;
	req.snapshot_id = c->snapshot_id;
	req.pg_snapshot = c->pg_snapshot;
	req.tier = o->tier;
	req.run_id = c->run_id;
	req.control = o->control;
	req.max_keys = REPAIR_MAX_KEYS;
	req.full_every = o->config->reconcile_full_every;
	req.changed_since = c->attempt ? NULL : c->changed_since; /* a repair's check proves every bucket */
	req.changed_keys = c->attempt ? NULL : c->changed_keys;
	req.n_changed_keys = c->attempt ? 0 : c->n_changed_keys;
	floe_reconcile_result *r = rc_reconcile_recorded(st, c->arena, &req, c->attempt ? c->repair_detail : NULL);
	floe_state_close(st);
	c->state = floe_reconcile_state(r); /* "verified (partial)" is not "verified": the run says so */
	c->detail = r->error ? r->error : r->detail;
	if (r->outcome == FLOE_RECONCILE_DIVERGED && c->attempt == 0 && c->table->n_key && r->n_keys &&
	    r->n_keys < REPAIR_MAX_KEYS)
		c->n_repair_keys = rc_repair_keys(&c->repair_keys, c->arena, r, c->table->n_key);
	return 0;
}
