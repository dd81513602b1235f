/*
 * ledger.c — a reconciliation result in the run ledger (.floe/state.db): its
 * outcome, the numbers of both sides as JSON, the diverged buckets and keys, the
 * control and whether it fired. `floe reconcile` and the check after each load
 * both record through here.
 */
#include "reconcile/reconcile_int.h"
#include "base/error.h"
#include "base/json.h"
#include "base/log.h"
#include "state/state.h"

#include <stdio.h>

/* The narrowed keys as a JSON array of arrays of the key columns' text. */
static void keys_json(floe_buf *out, const floe_reconcile_result *r)
{
	floe_json_writer w;
	floe_json_write_init(&w, out, false);
	floe_json_write_begin_array(&w, true);
	for (size_t i = 0; i < r->n_keys; i++) {
		floe_json_write_begin_array(&w, true);
		for (size_t k = 0; k < r->keys[i].n_values; k++)
			floe_json_write_cstr(&w, r->keys[i].values[k]);
		floe_json_write_end_array(&w);
	}
	floe_json_write_end_array(&w);
	floe_json_write_finish(&w);
}

/* The result in the ledger; a ledger failure is logged, never the table's outcome. */
void rc_record(floe_state *st, const floe_reconcile_result *r, const char *started)
{
	floe_state_reconcile rec = FLOE_STATE_RECONCILE_INIT;
	floe_buf numbers = FLOE_BUF_INIT, keys = FLOE_BUF_INIT, excluded = FLOE_BUF_INIT;
	char finished[32], snap[32] = "";
	floe_state_now(finished, sizeof(finished));
	if (r->snapshot_id > 0)
		snprintf(snap, sizeof(snap), "%lld", (long long)r->snapshot_id);
	floe_reconcile_result_json(&numbers, r);
	keys_json(&keys, r);
	rec.run_id = r->run_id;
	rec.table_name = r->table;
	rec.tier = floe_reconcile_tier_name(r->tier);
	rec.outcome = r->outcome;
	rec.snapshot_id = snap[0] ? snap : NULL;
	rec.source_rows = r->outcome == FLOE_RECONCILE_FAILED ? -1 : r->source_rows;
	rec.lake_rows = r->outcome == FLOE_RECONCILE_FAILED ? -1 : r->lake_rows;
	rec.control = r->control;
	rec.control_fired = r->control ? r->control_fired : -1;
	rec.diverged_buckets = r->buckets > 0 ? (int64_t)r->n_diverged : -1;
	rec.diverged_keys = r->n_keys ? floe_buf_cstr(&keys) : NULL;
	rec.numbers = floe_buf_cstr(&numbers);
	rec.detail = r->detail;
	rec.error = r->error;
	rec.duration_ms = (int64_t)(r->seconds * 1000);
	rec.started_at = started;
	rec.finished_at = finished;
	rec.attempt = r->repaired ? 1 : 0;
	for (size_t i = 0; i < r->n_excluded; i++)
		floe_buf_printf(&excluded, "%s%s", i ? "; " : "", r->excluded[i]);
	rec.excluded = r->n_excluded ? floe_buf_cstr(&excluded) : NULL;
	if (floe_state_reconcile_put(st, &rec) < 0) {
		floe_log_warn("could not record the reconciliation of %s in the run ledger", r->table);
		floe_error_clear();
	}
	floe_buf_free(&numbers);
	floe_buf_free(&keys);
	floe_buf_free(&excluded);
}


floe_reconcile_result *rc_reconcile_recorded(floe_state *st, floe_arena *arena, floe_reconcile_request *req,
					     const char *repaired)
{
	floe_reconcile_result *r = NULL;
	int64_t seq = 0;
	char started[32];
	floe_state_now(started, sizeof(started));
	if (floe_state_reconcile_count(st, req->table->bronze, &seq) < 0)
		floe_error_clear(); /* the rotation starts over: not worth failing for */
	req->control_seq = (uint64_t)seq;
	if (floe_reconcile_table(&r, arena, req) < 0) {
		floe_log_warn("%s", r->error);
		floe_error_clear(); /* r says failed, with the error's text */
	}
	r->repaired = repaired;
	rc_record(st, r, started);
	return r;
}
