/*
 * query.h — `floe query`: read-only SQL over the lake's current tables in the
 * embedded DuckDB. Each Iceberg table of the catalog becomes a view
 * (`bronze.orders`) over the live data files of its current snapshot, planned by
 * floe's own scan planning; DuckDB may read only the warehouse directory, and
 * only statements that read are accepted.
 */
#ifndef FLOE_QUERY_QUERY_H
#define FLOE_QUERY_QUERY_H

#include "base/buf.h"
#include "config/config.h"

typedef enum floe_query_format {
	FLOE_QUERY_TABLE = 0,
	FLOE_QUERY_CSV,
	FLOE_QUERY_JSON
} floe_query_format;

/* Run `sql` and render its result into `out`. */
int floe_query_run(floe_buf *out, const floe_config *config, const char *sql, floe_query_format format);

#endif
