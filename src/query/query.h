/*
 * query.h — `floe query`: read-only SQL over the lake's current tables in the
 * embedded DuckDB. Each Iceberg table of the catalog becomes a view
 * (`bronze.orders`) over the live data files of its current snapshot, planned by
 * floe's own scan planning; DuckDB may read only the warehouse directory, and
 * only statements that read are accepted.
 */
#ifndef FLOE_QUERY_QUERY_H
#define FLOE_QUERY_QUERY_H

#include "base/arena.h"
#include "base/buf.h"
#include "config/config.h"
#include "engine/engine.h"
#include "iceberg/table.h"

typedef enum floe_query_format {
	FLOE_QUERY_TABLE = 0,
	FLOE_QUERY_CSV,
	FLOE_QUERY_JSON
} floe_query_format;

/* Run `sql` and render its result into `out`. */
int floe_query_run(floe_buf *out, const floe_config *config, const char *sql, floe_query_format format);

/*
 * Define (or replace) view `view` — an SQL name, quoted as needed — in `e` over the data files of
 * snapshot `snapshot_id` (-1: current) of `t`: the columns of the table's current schema found by
 * field id (a column added since reads as NULL from older files); a snapshot without files is a
 * view of no rows. Allocates in `a`. The engine must be allowed to read the files.
 */
int floe_query_snapshot_view(floe_engine *e, floe_arena *a, floe_iceberg_table *t, int64_t snapshot_id,
			     const char *view);

#endif
