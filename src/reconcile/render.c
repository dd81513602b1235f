/*
 * render.c — a reconciliation result as JSON: what the ledger keeps and what
 * `floe reconcile --json` prints. Values of string columns never appear (their
 * extremes are hashes), so a result may be shown and stored.
 */
#include "reconcile/reconcile_int.h"
#include "base/json.h"

static void put_metrics(floe_json_writer *w, const floe_reconcile_result *r)
{
	floe_json_write_key(w, "v2");
	floe_json_write_begin_array(w, false);
	for (size_t i = 0; i < r->n_metrics; i++) {
		const floe_reconcile_metric *m = &r->metrics[i];
		floe_json_write_begin_object(w, true);
		floe_json_write_member_cstr(w, "column", m->column);
		floe_json_write_member_cstr(w, "measure", m->name);
		floe_json_write_member_cstr(w, "source", m->source);
		floe_json_write_member_cstr(w, "lake", m->lake);
		floe_json_write_member_bool(w, "equal", m->equal);
		floe_json_write_member_cstr(w, "rule", m->rule);
		floe_json_write_end_object(w);
	}
	floe_json_write_end_array(w);
}

static void put_buckets(floe_json_writer *w, const floe_reconcile_result *r)
{
	floe_json_write_key(w, "v3");
	floe_json_write_begin_object(w, false);
	floe_json_write_member_int(w, "buckets", r->buckets);
	floe_json_write_member_int(w, "covered", r->covered);  /* hashed in full; == buckets unless rotating */
	floe_json_write_member_bool(w, "rotating", r->rotating);
	floe_json_write_member_cstr(w, "last_full_proof", r->last_full_proof);
	floe_json_write_member_cstr(w, "key", r->key);
	floe_json_write_member_strings(w, "excluded", r->excluded, r->n_excluded);
	floe_json_write_key(w, "diverged");
	floe_json_write_begin_array(w, false);
	for (size_t i = 0; i < r->n_diverged; i++) {
		const floe_reconcile_bucket *b = &r->diverged[i];
		floe_json_write_begin_object(w, true);
		floe_json_write_member_int(w, "bucket", b->bucket);
		floe_json_write_member_int(w, "source_rows", b->source_rows);
		floe_json_write_member_int(w, "lake_rows", b->lake_rows);
		floe_json_write_member_cstr(w, "source_sum", b->source_sum);
		floe_json_write_member_cstr(w, "lake_sum", b->lake_sum);
		floe_json_write_end_object(w);
	}
	floe_json_write_end_array(w);
	floe_json_write_key(w, "keys");
	floe_json_write_begin_array(w, false);
	for (size_t i = 0; i < r->n_keys; i++) {
		const floe_reconcile_key *k = &r->keys[i];
		floe_json_write_begin_object(w, true);
		floe_json_write_member_strings(w, "key", k->values, k->n_values);
		floe_json_write_member_int(w, "source_rows", k->source_rows);
		floe_json_write_member_int(w, "lake_rows", k->lake_rows);
		floe_json_write_member_int(w, "bucket", k->bucket);
		floe_json_write_end_object(w);
	}
	floe_json_write_end_array(w);
	floe_json_write_member_cstr(w, "keys_note", r->keys_note);
	floe_json_write_end_object(w);
}

int floe_reconcile_result_json(floe_buf *out, const floe_reconcile_result *r)
{
	floe_json_writer w;
	floe_json_write_init(&w, out, false);
	floe_json_write_begin_object(&w, false);
	floe_json_write_member_cstr(&w, "table", r->table);
	floe_json_write_member_cstr(&w, "source", r->source);
	floe_json_write_member_cstr(&w, "run_id", r->run_id);
	floe_json_write_member_cstr(&w, "tier", floe_reconcile_tier_name(r->tier));
	floe_json_write_member_cstr(&w, "outcome", floe_reconcile_outcome_name(r->outcome));
	floe_json_write_member_cstr(&w, "state", floe_reconcile_state_name(r));
	floe_json_write_member_bool(&w, "partial", floe_reconcile_partial(r));
	floe_json_write_member_int(&w, "snapshot_id", r->snapshot_id);
	floe_json_write_member_cstr(&w, "source_position", r->source_position);
	floe_json_write_key(&w, "v1");
	floe_json_write_begin_object(&w, true);
	floe_json_write_member_int(&w, "source_rows", r->source_rows);
	floe_json_write_member_int(&w, "lake_rows", r->lake_rows);
	floe_json_write_end_object(&w);
	put_metrics(&w, r);
	floe_json_write_member_cstr(&w, "v2_note", r->aggregates_note); /* null: v2 holds every measure of the tier */
	put_buckets(&w, r);
	floe_json_write_key(&w, "control");
	floe_json_write_begin_object(&w, true);
	floe_json_write_member_cstr(&w, "name", r->control);
	floe_json_write_member_bool(&w, "fired", r->control_fired);
	floe_json_write_member_cstr(&w, "detail", r->control_detail);
	floe_json_write_end_object(&w);
	floe_json_write_member_cstr(&w, "detail", r->detail);
	floe_json_write_member_cstr(&w, "repaired", r->repaired);
	floe_json_write_member_cstr(&w, "error", r->error);
	floe_json_write_member_int(&w, "duration_ms", (int64_t)(r->seconds * 1000));
	floe_json_write_member_int(&w, "source_ms", (int64_t)(r->source_seconds * 1000));
	floe_json_write_member_int(&w, "lake_ms", (int64_t)(r->lake_seconds * 1000));
	floe_json_write_end_object(&w);
	return floe_json_write_finish(&w);
}
