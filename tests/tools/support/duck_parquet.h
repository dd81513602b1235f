/*
 * duck_parquet.h — test helper (not part of floe): write Parquet data files with
 * the embedded DuckDB and describe them as Iceberg data files, until floe's own
 * Parquet writer fills floe_iceberg_data_file itself.
 *
 * The file gets Iceberg field ids (COPY … FIELD_IDS) from the schema's top-level
 * columns, matched by name with the query's columns. Statistics are exact: sizes,
 * offsets and value counts from DuckDB's parquet_metadata(), bounds from min/max
 * over the file, encoded per spec Appendix D (strings truncated to 16 code points).
 */
#ifndef FLOE_TESTS_DUCK_PARQUET_H
#define FLOE_TESTS_DUCK_PARQUET_H

#include "base/arena.h"
#include "engine/engine.h"
#include "iceberg/data_file.h"
#include "iceberg/schema.h"

/*
 * Run `select_sql`, write its rows to the local file `uri` (file:// URI or path),
 * and describe the file in `out` (allocated in `arena`).
 */
int fx_parquet_write(floe_iceberg_data_file *out, floe_arena *arena, floe_engine *engine,
		     const floe_iceberg_schema *schema, const char *select_sql, const char *uri);

#endif
