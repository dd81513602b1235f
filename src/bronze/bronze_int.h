/*
 * bronze_int.h — what the files of src/bronze share.
 */
#ifndef FLOE_BRONZE_INT_H
#define FLOE_BRONZE_INT_H

#include "bronze/bronze.h"
#include "format/parquet.h"
#include "format/vector.h"
#include "iceberg/schema.h"
#include "pg/copy.h"
#include "plan/lock.h"

typedef struct floe_arena floe_arena;

/* One table's load, run by one worker thread. Everything it allocates is in `arena`. */
typedef struct bronze_job {
	const floe_config *config;
	const char *pipeline_dir;
	const char *catalog_path;
	const char *warehouse_dir;
	const floe_lock_table *table;
	const char *run_id;
	floe_bronze_result *result;
	floe_arena *arena;
} bronze_job;

/* The lock's columns as the three shapes the load needs, in result-column order. */
typedef struct bronze_columns {
	floe_iceberg_schema *schema;
	floe_parquet_field *fields;
	floe_pg_copy_column *copy;
	size_t n;
} bronze_columns;

/*
 * Build the shapes from the lock table and the extraction query's described
 * result types (oids, array element oids). The query must return the lock's
 * columns in order; a type floe cannot decode is an error naming the column.
 */
int bronze_columns_build(bronze_columns *out, floe_arena *arena, const floe_lock_table *table,
			 const uint32_t *oids, const uint32_t *elem_oids, size_t n);

/* Load one table (a full snapshot replace). Sets job->result; returns -1 on failure. */
int bronze_load_table(bronze_job *job);

#endif
