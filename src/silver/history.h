/*
 * history.h — SCD2 history of a bronze table: silver.X_history, built from bronze's snapshots
 * with dbt snapshot semantics (docs/history.md).
 *
 * Each bronze snapshot of bronze.X is one complete observation of the source table (bronze
 * always holds the whole table, loaded full or incremental). The history table has the bronze
 * table's columns followed by dbt's snapshot columns, exactly as `dbt snapshot` with
 * strategy "check", check_cols "all" and hard_deletes "invalidate" makes them:
 *
 *   dbt_scd_id      md5(coalesce(cast(<key> as varchar), '') || '|' || … ||
 *                       coalesce(cast(dbt_updated_at as varchar), '')), as DuckDB computes it
 *   dbt_updated_at  the observing bronze snapshot's commit time (UTC, a timestamp)
 *   dbt_valid_from  the same
 *   dbt_valid_to    NULL for the current version; the time of the observation that no longer
 *                   saw it — its row changed (a new version opens at that time) or its key
 *                   was gone (deleted; a key that comes back opens a new version)
 *
 * where dbt takes the time of the `dbt snapshot` run, floe takes the time of the bronze
 * snapshot, so a table loaded `full` still keeps exactly what each load saw. The newest bronze
 * snapshot processed is recorded in the history snapshot's summary
 * (floe.history-bronze-snapshot, floe.history-bronze-sequence, floe.history-bronze-table-uuid); a
 * build reads only the bronze snapshots after it (all of a bronze table created again) (compactions, operation "replace", are skipped: they change no row). A
 * build that finds no change commits nothing.
 *
 * The history table is rewritten whole (one data file) at each commit that changes it.
 */
#ifndef FLOE_SILVER_HISTORY_H
#define FLOE_SILVER_HISTORY_H

#include "config/config.h"
#include "plan/lock.h"

#include <stddef.h>
#include <stdint.h>

typedef struct floe_silver_history_opts {
	const char *run_id; /* recorded as floe.run-id in the history snapshot's summary; may be NULL */
} floe_silver_history_opts;

#define FLOE_SILVER_HISTORY_OPTS_INIT { .run_id = NULL }

typedef struct floe_silver_history_result {
	size_t observations;        /* bronze snapshots read */
	int64_t opened;             /* versions added */
	int64_t closed;             /* versions given a dbt_valid_to */
	int64_t rows;               /* rows of the history table afterwards */
	int64_t snapshot_id;        /* the history table's new snapshot; -1 when nothing changed */
	int64_t bronze_snapshot_id; /* the newest bronze snapshot now reflected; -1 when none */
} floe_silver_history_result;

/*
 * Bring silver.<X>_history up to date with the snapshots of `table`'s bronze table bronze.<X>
 * in `config`'s warehouse, creating it at the first build. The table must have a key (dbt's
 * unique_key): one without is FLOE_ERR_CONFIG, as is a bronze table whose columns no longer
 * match the history table's (history does not follow schema changes yet). A commit lost to a
 * concurrent build is FLOE_ERR_CONFLICT (run again). *out is filled on success.
 */
int floe_silver_history_build(floe_silver_history_result *out, const floe_config *config,
			      const floe_lock_table *table, const floe_silver_history_opts *opts);

#endif
