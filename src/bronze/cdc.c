/*
 * cdc.c — a bronze load fed by change data capture (src/cdc, docs/cdc.md). Before the
 * source transaction opens, the stream says which keys changed up to a consistent LSN and
 * gives the snapshot that shows exactly those changes; the load imports that snapshot and
 * re-reads the keys through the merge path (bronze_merge_keys → bronze_merge_rows, the
 * same as an incremental load and a repair; merge-on-read unless floe.toml says otherwise,
 * mor.c), or loads in full at it (the
 * initial copy, a truncate, a lost slot). The snapshot records the LSN as floe.cdc.lsn;
 * the slot is acknowledged only after the catalog commit.
 */
#include "bronze/bronze_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/log.h"
#include "cdc/cdc.h"
#include "config/cdc.h"
#include "iceberg/catalog.h"
#include "iceberg/table.h"
#include "state/state.h"

#include <string.h>

struct bronze_cdc {
	floe_cdc *session;
	floe_cdc_batch batch;
	const char *previous_lsn;   /* the table's floe.cdc.lsn before this load; NULL: none */
	char caught_up_at[32];      /* when the batch's snapshot was taken (ISO 8601) */
	bool held;                  /* the follower did not commit a batch without changes: L is not acknowledged */
};

/* The bronze table's floe.cdc.lsn, or NULL (no table yet, or not loaded by CDC). */
static int table_lsn(const char **out, bronze_job *job)
{
	floe_iceberg_catalog_opts co = FLOE_ICEBERG_CATALOG_OPTS_INIT;
	floe_iceberg_catalog *cat = NULL;
	floe_iceberg_table *t = NULL;
	floe_buf where = FLOE_BUF_INIT;
	const char *dot = strchr(job->table->bronze, '.');
	const char *name = dot ? dot + 1 : job->table->bronze;
	int error = -1, found;
	*out = NULL;
	co.warehouse = job->warehouse_dir;
	co.create = true;
	if (floe_iceberg_catalog_open_sql(&cat, job->catalog_path, &co) < 0 ||
	    (found = floe_iceberg_catalog_load(cat, &where, "bronze", name)) < 0)
		goto cleanup;
	if (found && floe_iceberg_table_load(&t, cat, "bronze", name) < 0)
		goto cleanup;
	const floe_iceberg_snapshot *snap = t ? floe_iceberg_metadata_current_snapshot(floe_iceberg_table_metadata(t)) : NULL;
	const char *lsn = snap ? floe_iceberg_snapshot_summary(snap, "floe.cdc.lsn") : NULL;
	*out = lsn ? floe_arena_strdup(job->arena, lsn) : NULL;
	error = 0;
cleanup:
	floe_buf_free(&where);
	floe_iceberg_table_free(t);
	floe_iceberg_catalog_free(cat);
	return error;
}

bool bronze_cdc_wanted(const bronze_job *job)
{
	const floe_lock_table *t = job->table;
	return (t->mode == FLOE_LOAD_FULL || t->mode == FLOE_LOAD_INCREMENTAL) &&
	       floe_config_cdc_wants(job->config, t->schema, t->name) &&
	       !(t->n_key == 0 && job->config->bronze.cdc); /* `[bronze] cdc = true` covers keyed tables */
}

int bronze_cdc_prepare(bronze_job *job)
{
	const floe_lock_table *t = job->table;
	if (job->pg_snapshot || job->compact || !bronze_cdc_wanted(job))
		return 0; /* a repair reads at its own snapshot, a compaction no source change (nor the slot,
			     which a follower's stream holds); other tables load as the plan says */
	struct bronze_cdc *c = floe_arena_alloc(job->arena, sizeof(*c));
	memset(c, 0, sizeof(*c));
	floe_cdc_opts o = { .config = job->config, .schema = t->schema, .table = t->name,
			    .key = (const char *const *)t->key, .n_key = t->n_key, .arena = job->arena,
			    .keep = job->keep_holder, .stream = job->keep_stream };
	double t0 = bronze_seconds(), step = t0;
	if (table_lsn(&c->previous_lsn, job) < 0)
		return -1;
	bronze_step(job, &step, "table's LSN read");
	o.table_lsn = c->previous_lsn;
	floe_state_now(c->caught_up_at, sizeof(c->caught_up_at));
	if (floe_cdc_begin(&c->session, &c->batch, &o) < 0)
		return -1;
	bronze_step(job, &step, "stream read to L");
	job->result->stream_seconds = bronze_seconds() - t0;
	job->cdc = c;
	job->pg_snapshot = c->batch.snapshot;
	if (!c->batch.full_reason && c->batch.n_keys) {
		job->repair_keys = c->batch.keys;
		job->n_repair_keys = c->batch.n_keys;
	}
	floe_log_info("%s: %s", t->bronze, c->batch.detail);
	return 0;
}

int bronze_cdc_begin(bronze_load *l)
{
	if (l->job->cdc)
		return 0; /* prepared by the follower before this load */
	bronze_load_progress(l, "streaming", NULL);
	return bronze_cdc_prepare(l->job);
}

void bronze_cdc_imported(bronze_load *l)
{
	if (l->job->cdc)
		floe_cdc_release(l->job->cdc->session);
}

bool bronze_cdc_full(bronze_load *l, const char **why)
{
	struct bronze_cdc *c = l->job->cdc;
	*why = c->batch.full_reason;
	if (!*why && (l->keys.unmergeable || l->reload_why))
		*why = l->reload_why ? l->reload_why
				     : floe_arena_printf(l->job->arena, "loaded in full: %s", l->keys.unmergeable);
	l->detail = c->batch.detail;
	return *why != NULL;
}

/*
 * Whether a batch without changes still commits (L moved: the slot can then be acknowledged and
 * stops retaining WAL). The follower (job->follow_quiet) skips that commit between its periodic
 * ones and then acknowledges nothing: the slot never passes the table's LSN.
 */
bool bronze_cdc_advances(const bronze_load *l)
{
	struct bronze_cdc *c = l->job->cdc;
	bool moved = c && (!c->previous_lsn || strcmp(c->previous_lsn, c->batch.lsn) != 0);
	if (moved && c->previous_lsn && l->job->follow_quiet && !c->batch.full_reason && c->batch.n_keys == 0) {
		c->held = true;
		return false;
	}
	return moved;
}

const char *bronze_cdc_lsn(const bronze_job *job)
{
	return job->cdc ? job->cdc->batch.lsn : NULL;
}

bool bronze_cdc_is_batch(const bronze_job *job)
{
	return job->cdc && job->repair_keys && job->repair_keys == job->cdc->batch.keys;
}

const char *bronze_cdc_detail(const bronze_job *job)
{
	return job->cdc ? job->cdc->batch.detail : NULL;
}

/* The slot's lag after the acknowledgement, for `floe status`; a failure here is only logged. */
static void record_lag(bronze_job *job)
{
	struct bronze_cdc *c = job->cdc;
	floe_cdc_lag lag;
	floe_state *st = NULL;
	if (floe_cdc_measure(c->session, &lag) == 0 && lag.found &&
	    floe_state_open(&st, job->config->project_dir) == 0) {
		floe_state_cdc row = { .table = job->table->bronze, .slot = floe_cdc_slot(c->session),
				       .lsn = c->batch.lsn, .wal_status = lag.wal_status, .caught_up_at = c->caught_up_at,
				       .lag_bytes = lag.lag_bytes, .retained_bytes = lag.retained_bytes };
		floe_state_cdc_put(st, &row);
	}
	if (floe_error_last())
		floe_log_warn("%s: could not record the slot's lag: %s", job->table->bronze, floe_error_last()->message);
	floe_error_clear();
	floe_state_close(st);
}

int bronze_cdc_confirm(bronze_load *l)
{
	if (!l->job->cdc || l->job->cdc->held)
		return 0;
	if (floe_cdc_confirm(l->job->cdc->session) < 0)
		return -1;
	record_lag(l->job);
	return 0;
}

void bronze_cdc_end(bronze_job *job, bool ok)
{
	if (job->cdc && ok)
		floe_cdc_keep(job->cdc->session); /* the follower's holder session, for its next batch */
	if (job->cdc)
		floe_cdc_end(job->cdc->session);
	job->cdc = NULL;
}
