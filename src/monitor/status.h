/*
 * status.h — `floe status`: every table and layer of the deployed plan, its state
 * and the facts behind it, from the run ledger and the pipeline on disk.
 *
 * States: never loaded, loading, loaded, failed, refused, skipped, interrupted
 * (a load whose process died); a loaded table whose current snapshot was
 * reconciled takes the reconciliation's outcome: verified, diverged or
 * unverified (a comparison that could not complete leaves it unverified).
 * A loaded table is `catalog missing` when the catalog does not open.
 * Drift: the pipeline file differs from what `floe generate` wrote (a hand
 * edit, which runs as edited).
 */
#ifndef FLOE_MONITOR_STATUS_H
#define FLOE_MONITOR_STATUS_H

#include "base/buf.h"
#include "config/config.h"
#include "plan/plan.h"
#include "reconcile/outcome.h"
#include "state/state.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct floe_status_row {
	const char *table;        /* "bronze.orders" */
	const char *layer;
	const char *source;
	floe_load_mode mode;
	/* The state (floe_status_state_name): the last load's, unless one of these decides. */
	floe_table_state load;
	bool decided;             /* a reconciliation of the snapshot the last good load committed decides: */
	floe_reconcile_outcome verdict; /* verified, diverged, unverified (a failed comparison too) or partial */
	bool catalog_missing;     /* the catalog does not open: "catalog missing" */
	const char *last_run;     /* run id, NULL when never */
	const char *finished_at;  /* ISO 8601, NULL when never */
	int64_t rows;             /* of the last successful load; -1 unknown */
	int64_t age_seconds;      /* since the last successful load finished; -1 never */
	const char *snapshot_id;
	bool drift;               /* the pipeline file was edited by hand */
	/* The newest record's run (the metrics): seconds, rows written, bytes; -1 unknown. */
	double last_duration_seconds;
	int64_t last_rows_written, last_bytes;
	int64_t tests_failed, tests_warned, quarantined; /* silver: the newest build's; -1 unknown */
	int64_t tests_passed;     /* silver: the newest build's; -1 unknown */
	const char *facts;        /* why it is in this state */
	const char *cause;        /* failed: probable cause */
	/* The newest reconciliation (floe reconcile, or after a load); done false: never reconciled. */
	struct {
		bool done;
		floe_reconcile_outcome outcome; /* verified, diverged, unverified or failed */
		const char *tier;
		const char *run_id;
		const char *finished_at;
		const char *snapshot_id;
		bool current;         /* of the snapshot the last good load committed */
		int64_t diverged_buckets;
		const char *control;
		int control_fired;    /* 1, 0; -1: none planted */
		const char *detail;
		const char *error;
		/* when the run repaired the table first: "diverged (…) → repaired → verified" */
		const char *history;
	} reconcile;
} floe_status_row;

typedef struct floe_status {
	floe_status_row *rows;
	size_t n_rows;
	size_t n_failed, n_drift, n_diverged, n_unverified;
	size_t n_partial;         /* "verified (partial)": a column not compared */
	size_t n_interrupted;     /* a load or build whose process ended before it finished */
	/* The catalog does not open (lost, damaged): why, and what to do; each loaded table's state is "catalog missing". */
	const char *catalog_error, *catalog_hint;
	size_t n_catalog_missing;
	void *owned;
} floe_status;

int floe_status_build(floe_status *out, const floe_config *config);
/* The same, opening the ledger read-only (floe_state_open_read): for readers that must write nothing (MCP). */
int floe_status_build_read(floe_status *out, const floe_config *config);

/* The row's state as `floe status` shows it: "loaded", "verified (partial)", "catalog missing", … */
const char *floe_status_state_name(const floe_status_row *row);
void floe_status_free(floe_status *status);

int floe_status_render_text(floe_buf *out, const floe_status *status);
int floe_status_render_json(floe_buf *out, const floe_status *status);

#endif
