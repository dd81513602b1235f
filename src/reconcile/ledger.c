/*
 * ledger.c — a reconciliation result in the run ledger (.floe/state.db): its
 * outcome, the numbers of both sides as JSON, the diverged buckets and keys, the
 * control and whether it fired. `floe reconcile` and the check after each load
 * both record through here.
 */
#include "reconcile/reconcile_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/json.h"
#include "base/log.h"
#include "state/state.h"

#include <stdio.h>
#include <string.h>

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


/* Whether ",<share>," is among `seen`; and whether every share of `n` is. */
static bool seen_has(const char *seen, int64_t share)
{
	char item[32];
	snprintf(item, sizeof(item), ",%lld,", (long long)share);
	return strstr(seen, item) != NULL;
}

static bool seen_all(const char *seen, int64_t n)
{
	for (int64_t s = 0; s < n; s++)
		if (!seen_has(seen, s))
			return false;
	return true;
}

/*
 * The rotation after a V3 result: a full verified proof (every bucket at once, or the last
 * share of a cycle verified) sets the last full proof; anything not verified restarts the
 * cycle. A rotating result's detail names the last full proof.
 */
static void coverage_after(floe_state *st, floe_arena *arena, floe_reconcile_result *r, floe_state_coverage *c)
{
	char now[32];
	floe_state_now(now, sizeof(now));
	if (r->tier < FLOE_RECONCILE_V3 || r->snapshot_id < 0)
		return;
	if (c->full_every != r->full_every)
		c->seen = "";
	c->full_every = r->full_every;
	if (floe_reconcile_state(r) != FLOE_RECONCILE_VERIFIED) {
		c->seen = "";
	} else if (!r->rotating) {
		c->seen = "";
		c->last_full_at = floe_arena_strdup(arena, now);
		c->last_full_run = r->run_id;
	} else {
		if (!seen_has(c->seen, r->share))
			c->seen = floe_arena_printf(arena, "%s%s%lld,", c->seen, c->seen[0] ? "" : ",", (long long)r->share);
		if (seen_all(c->seen, r->full_every)) {
			c->seen = "";
			c->last_full_at = floe_arena_strdup(arena, now);
			c->last_full_run = r->run_id;
		}
	}
	if (r->rotating)
		c->next_share = (r->share + 1) % r->full_every;
	if (floe_state_coverage_put(st, r->table, c) < 0) {
		floe_log_warn("could not record the coverage of %s in the run ledger", r->table);
		floe_error_clear();
	}
	r->last_full_proof = c->last_full_at;
	if (r->rotating)
		r->detail = floe_arena_printf(arena, "%s; last full proof %s", r->detail,
					      c->last_full_at ? c->last_full_at : "not yet (every bucket within full-every runs)");
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
	floe_state_coverage cov;
	if (floe_state_coverage_get(st, arena, req->table->bronze, &cov) < 0) {
		floe_error_clear(); /* the rotation starts over */
		memset(&cov, 0, sizeof(cov));
		cov.seen = "";
	}
	req->share = (uint64_t)cov.next_share;
	if (floe_reconcile_table(&r, arena, req) < 0) {
		floe_log_warn("%s", r->error);
		floe_error_clear(); /* r says failed, with the error's text */
	}
	r->repaired = repaired;
	coverage_after(st, arena, r, &cov);
	rc_record(st, r, started);
	return r;
}
