/*
 * duckdb_capi.h — the part of DuckDB's C API floe calls, declared by floe.
 *
 * The library comes from DuckDB's npm platform package (scripts/setup.sh), which ships
 * libduckdb.so without duckdb.h, so the declarations floe uses are copied here from
 * DuckDB's own header (src/include/duckdb.h at tag v1.5.5). Types, enum values and
 * struct layouts must stay exactly as DuckDB defines them: the C API is DuckDB's stable
 * ABI, and only additions are made to it between releases. Include this header from
 * src/engine/ only: DuckDB is called from that one module.
 */
#ifndef FLOE_ENGINE_DUCKDB_CAPI_H
#define FLOE_ENGINE_DUCKDB_CAPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* DuckDB's index type. */
typedef uint64_t idx_t;

typedef enum duckdb_state { DuckDBSuccess = 0, DuckDBError = 1 } duckdb_state;

/* The values floe distinguishes; the full enum runs 0..42 (DUCKDB_INVALID_CONFIGURATION). */
typedef enum duckdb_error_type {
	DUCKDB_ERROR_INVALID = 0,
	DUCKDB_ERROR_CATALOG = 13,
	DUCKDB_ERROR_PARSER = 14,
	DUCKDB_ERROR_SYNTAX = 22,
	DUCKDB_ERROR_BINDER = 24,
	DUCKDB_ERROR_NETWORK = 25,
	DUCKDB_ERROR_IO = 28,
	DUCKDB_ERROR_PERMISSION = 34,
	DUCKDB_ERROR_PARAMETER_NOT_RESOLVED = 35,
	DUCKDB_ERROR_PARAMETER_NOT_ALLOWED = 36,
	DUCKDB_ERROR_HTTP = 38,
	DUCKDB_INVALID_CONFIGURATION = 42
} duckdb_error_type;

/* Handles: each a pointer to a struct holding one internal pointer. */
typedef struct _duckdb_database {
	void *internal_ptr;
} *duckdb_database;

typedef struct _duckdb_connection {
	void *internal_ptr;
} *duckdb_connection;

typedef struct _duckdb_config {
	void *internal_ptr;
} *duckdb_config;

/* DuckDB's duckdb_column; floe never reads it (deprecated), so it stays incomplete here. */
typedef struct floe_duckdb_column floe_duckdb_column;

/* A query result. Layout exactly as DuckDB's duckdb_result; free with duckdb_destroy_result. */
typedef struct {
	idx_t deprecated_column_count;
	idx_t deprecated_row_count;
	idx_t deprecated_rows_changed;
	floe_duckdb_column *deprecated_columns;
	char *deprecated_error_message;
	void *internal_data;
} duckdb_result;

/* Configuration: only for duckdb_open_ext. */
duckdb_state duckdb_create_config(duckdb_config *out_config);
duckdb_state duckdb_set_config(duckdb_config config, const char *name, const char *option);
void duckdb_destroy_config(duckdb_config *config);

/* Databases and connections. path NULL or ":memory:" is an in-memory database; *out_error
 * (free with duckdb_free) explains a failure. */
duckdb_state duckdb_open_ext(const char *path, duckdb_database *out_database, duckdb_config config,
			     char **out_error);
void duckdb_close(duckdb_database *database);
duckdb_state duckdb_connect(duckdb_database database, duckdb_connection *out_connection);
void duckdb_disconnect(duckdb_connection *connection);

/* "v1.5.5". Static storage. */
const char *duckdb_library_version(void);

/* Queries. duckdb_destroy_result must be called even when duckdb_query fails. */
duckdb_state duckdb_query(duckdb_connection connection, const char *query, duckdb_result *out_result);
void duckdb_destroy_result(duckdb_result *result);
const char *duckdb_result_error(duckdb_result *result);
duckdb_error_type duckdb_result_error_type(duckdb_result *result);

/* Materialized results. */
idx_t duckdb_column_count(duckdb_result *result);
idx_t duckdb_row_count(duckdb_result *result);
const char *duckdb_column_name(duckdb_result *result, idx_t col);
bool duckdb_value_is_null(duckdb_result *result, idx_t col, idx_t row);
/* The value cast to text, or NULL when it cannot be; free with duckdb_free. */
char *duckdb_value_varchar(duckdb_result *result, idx_t col, idx_t row);
void duckdb_free(void *ptr);

#endif
