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

typedef struct floe_arena floe_arena;
typedef struct floe_engine floe_engine;
typedef struct floe_iceberg_scan floe_iceberg_scan;
typedef struct floe_iceberg_storage floe_iceberg_storage;
typedef struct floe_iceberg_schema floe_iceberg_schema;
typedef struct floe_iceberg_type floe_iceberg_type;

/*
 * CREATE VIEW "ns"."name" in `e` over exactly the data files of `scan`, its columns those of
 * `schema` found by field id (read_parquet's schema map): a renamed column reads from files
 * written under its old name, one added since reads as NULL; a scan without files is a view of
 * no rows with those columns. Silver builds read a bronze snapshot through it. `storage` (the
 * table's, floe_iceberg_table_storage) turns each file's URI into what DuckDB opens; NULL only
 * for a scan without files.
 */
int floe_query_view(floe_engine *e, floe_arena *a, const char *ns, const char *name, floe_iceberg_storage *storage,
		    const floe_iceberg_scan *scan, const floe_iceberg_schema *schema);

/*
 * The same view, but of exactly the rows at each file's `deleted` positions (a file without any
 * gives none): what a merge-on-read commit removed from files it kept (silver's diff of two
 * bronze snapshots).
 */
int floe_query_view_deleted(floe_engine *e, floe_arena *a, const char *ns, const char *name,
			    floe_iceberg_storage *storage, const floe_iceberg_scan *scan, const floe_iceberg_schema *schema);

/*
 * The same view of every row of the files, deleted or not, with one more column, floe_pos (the
 * file's index in the scan × 2^32 + the row's position in it): a query that keeps few rows filters
 * first, then leaves the deleted ones out with floe_query_put_live (DuckDB would otherwise
 * compute and look up every row's position before the query's own filter: 2x the time of a key
 * column's scan).
 */
int floe_query_view_positions(floe_engine *e, floe_arena *a, const char *ns, const char *name,
			      floe_iceberg_storage *storage, const floe_iceberg_scan *scan, const floe_iceberg_schema *schema);

/* " WHERE `pos` NOT IN (…)": the scan's deleted positions as floe_pos counts them (nothing when none). */
void floe_query_put_live(floe_buf *sql, const floe_iceberg_scan *scan, const char *pos);
/* "`pos` IN (…)": the same positions, to keep only the deleted rows (nothing when none). */
void floe_query_put_deleted_in(floe_buf *sql, const floe_iceberg_scan *scan, const char *pos);

/*
 * read_parquet's `schema = MAP {…}` argument for `schema`: each column found by its field id,
 * so a file written under a column's old name reads under its current one (NULL when absent).
 */
void floe_query_put_parquet_schema(floe_buf *sql, const floe_iceberg_schema *schema);

/* An Iceberg type as DuckDB names it ("DECIMAL(12,2)", "STRUCT(\"a\" INTEGER)"). */
void floe_query_duck_type(floe_buf *out, const floe_iceberg_type *t);

/* Run `sql` and render its result into `out`. */
int floe_query_run(floe_buf *out, const floe_config *config, const char *sql, floe_query_format format);

#endif
