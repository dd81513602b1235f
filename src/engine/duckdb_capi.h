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
	DUCKDB_ERROR_OUT_OF_RANGE = 1,
	DUCKDB_ERROR_CONVERSION = 2,
	DUCKDB_ERROR_MISMATCH_TYPE = 5,
	DUCKDB_ERROR_DIVIDE_BY_ZERO = 6,
	DUCKDB_ERROR_CATALOG = 13,
	DUCKDB_ERROR_PARSER = 14,
	DUCKDB_ERROR_SYNTAX = 22,
	DUCKDB_ERROR_BINDER = 24,
	DUCKDB_ERROR_NETWORK = 25,
	DUCKDB_ERROR_IO = 28,
	DUCKDB_ERROR_INVALID_INPUT = 32,
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

/*
 * One statement at a time: DuckDB's own parser splits `query` into its statements
 * (duckdb_extract_statements returns how many; 0 on a parse error, explained by
 * duckdb_extract_statements_error), and each is prepared on its own. A prepared statement
 * knows its kind (duckdb_prepared_statement_type) and its result's column names.
 */
typedef struct _duckdb_extracted_statements {
	void *internal_ptr;
} *duckdb_extracted_statements;

typedef struct _duckdb_prepared_statement {
	void *internal_ptr;
} *duckdb_prepared_statement;

/* The statement kinds floe tells apart; the full enum runs 0..27 (DUCKDB_STATEMENT_TYPE_MULTI). */
typedef enum duckdb_statement_type {
	DUCKDB_STATEMENT_TYPE_INVALID = 0,
	DUCKDB_STATEMENT_TYPE_SELECT = 1
} duckdb_statement_type;

idx_t duckdb_extract_statements(duckdb_connection connection, const char *query,
				duckdb_extracted_statements *out_extracted_statements);
const char *duckdb_extract_statements_error(duckdb_extracted_statements extracted_statements);
void duckdb_destroy_extracted(duckdb_extracted_statements *extracted_statements);
duckdb_state duckdb_prepare_extracted_statement(duckdb_connection connection,
						duckdb_extracted_statements extracted_statements, idx_t index,
						duckdb_prepared_statement *out_prepared_statement);
/* Why the statement could not be prepared (text only: the C API gives no error type here). */
const char *duckdb_prepare_error(duckdb_prepared_statement prepared_statement);
void duckdb_destroy_prepare(duckdb_prepared_statement *prepared_statement);
duckdb_statement_type duckdb_prepared_statement_type(duckdb_prepared_statement statement);
idx_t duckdb_prepared_statement_column_count(duckdb_prepared_statement prepared_statement);
/* The name of a result column; free with duckdb_free. */
const char *duckdb_prepared_statement_column_name(duckdb_prepared_statement prepared_statement, idx_t col_idx);

/* Materialized results. */
idx_t duckdb_column_count(duckdb_result *result);
idx_t duckdb_row_count(duckdb_result *result);
const char *duckdb_column_name(duckdb_result *result, idx_t col);
bool duckdb_value_is_null(duckdb_result *result, idx_t col, idx_t row);
/* The value cast to text, or NULL when it cannot be; free with duckdb_free. */
char *duckdb_value_varchar(duckdb_result *result, idx_t col, idx_t row);
void duckdb_free(void *ptr);

/* ---- scalar functions written in C (functions.c) ---- */

/* The DuckDB types floe's functions take and return; the full enum runs 0..39. */
typedef enum DUCKDB_TYPE {
	DUCKDB_TYPE_INVALID = 0,
	DUCKDB_TYPE_SMALLINT = 3,
	DUCKDB_TYPE_INTEGER = 4,
	DUCKDB_TYPE_BIGINT = 5,
	DUCKDB_TYPE_FLOAT = 10,
	DUCKDB_TYPE_DOUBLE = 11,
	DUCKDB_TYPE_TIMESTAMP = 12,
	DUCKDB_TYPE_TIME = 14,
	DUCKDB_TYPE_HUGEINT = 16,
	DUCKDB_TYPE_VARCHAR = 17,
	DUCKDB_TYPE_BLOB = 18,
	DUCKDB_TYPE_DECIMAL = 19,
	DUCKDB_TYPE_UUID = 27,
	DUCKDB_TYPE_TIMESTAMP_TZ = 31,
	DUCKDB_TYPE_ANY = 34 /* a parameter taking any type, as the argument's own */
} duckdb_type;

/* A 128-bit integer; a UUID is stored as one, its first bit flipped (so it sorts signed). */
typedef struct duckdb_hugeint {
	uint64_t lower;
	int64_t upper;
} duckdb_hugeint;

typedef struct _duckdb_logical_type {
	void *internal_ptr;
} *duckdb_logical_type;

typedef struct _duckdb_data_chunk {
	void *internal_ptr;
} *duckdb_data_chunk;

typedef struct _duckdb_vector {
	void *internal_ptr;
} *duckdb_vector;

typedef struct _duckdb_function_info {
	void *internal_ptr;
} *duckdb_function_info;

typedef struct _duckdb_scalar_function {
	void *internal_ptr;
} *duckdb_scalar_function;

typedef struct _duckdb_scalar_function_set {
	void *internal_ptr;
} *duckdb_scalar_function_set;

/* A VARCHAR or BLOB value: up to 12 bytes inline, else a 4-byte prefix and a pointer. */
typedef struct {
	union {
		struct {
			uint32_t length;
			char prefix[4];
			char *ptr;
		} pointer;
		struct {
			uint32_t length;
			char inlined[12];
		} inlined;
	} value;
} duckdb_string_t;

/* Called once per input chunk (its vectors flattened); writes `output`. */
typedef void (*duckdb_scalar_function_t)(duckdb_function_info info, duckdb_data_chunk input, duckdb_vector output);

duckdb_logical_type duckdb_create_logical_type(duckdb_type type);
void duckdb_destroy_logical_type(duckdb_logical_type *type);
duckdb_type duckdb_get_type_id(duckdb_logical_type type);
/* A DECIMAL's scale, and the integer type holding its unscaled value (SMALLINT … HUGEINT). */
uint8_t duckdb_decimal_scale(duckdb_logical_type type);
duckdb_type duckdb_decimal_internal_type(duckdb_logical_type type);

duckdb_scalar_function duckdb_create_scalar_function(void);
void duckdb_destroy_scalar_function(duckdb_scalar_function *scalar_function);
void duckdb_scalar_function_set_name(duckdb_scalar_function scalar_function, const char *name);
void duckdb_scalar_function_add_parameter(duckdb_scalar_function scalar_function, duckdb_logical_type type);
void duckdb_scalar_function_set_return_type(duckdb_scalar_function scalar_function, duckdb_logical_type type);
void duckdb_scalar_function_set_function(duckdb_scalar_function scalar_function, duckdb_scalar_function_t function);
/* DuckDBError when the function is incomplete or its name and parameters are taken. */
duckdb_state duckdb_register_scalar_function(duckdb_connection con, duckdb_scalar_function scalar_function);

/* Overloads under one name: each function added (its name the set's), then the set registered. */
duckdb_scalar_function_set duckdb_create_scalar_function_set(const char *name);
void duckdb_destroy_scalar_function_set(duckdb_scalar_function_set *scalar_function_set);
duckdb_state duckdb_add_scalar_function_to_set(duckdb_scalar_function_set set, duckdb_scalar_function function);
duckdb_state duckdb_register_scalar_function_set(duckdb_connection con, duckdb_scalar_function_set set);

idx_t duckdb_data_chunk_get_size(duckdb_data_chunk chunk);
duckdb_vector duckdb_data_chunk_get_vector(duckdb_data_chunk chunk, idx_t col_idx);
void *duckdb_vector_get_data(duckdb_vector vector);
/* The vector's type; destroy it with duckdb_destroy_logical_type. */
duckdb_logical_type duckdb_vector_get_column_type(duckdb_vector vector);
/* Fail the statement that called the function with `error`. */
void duckdb_scalar_function_set_error(duckdb_function_info info, const char *error);
/* NULL when every value is valid. */
uint64_t *duckdb_vector_get_validity(duckdb_vector vector);
void duckdb_vector_ensure_validity_writable(duckdb_vector vector);
bool duckdb_validity_row_is_valid(uint64_t *validity, idx_t row);
void duckdb_validity_set_row_invalid(uint64_t *validity, idx_t row);
uint32_t duckdb_string_t_length(duckdb_string_t string);
const char *duckdb_string_t_data(duckdb_string_t *string);
/* Copy `len` bytes into row `index` of a VARCHAR output vector. */
void duckdb_vector_assign_string_element_len(duckdb_vector vector, idx_t index, const char *str, idx_t len);

/* A pointer the function gets back at every call (floe passes its own; `destroy` may be NULL). */
typedef void (*duckdb_delete_callback_t)(void *data);
void duckdb_scalar_function_set_extra_info(duckdb_scalar_function scalar_function, void *extra_info,
					   duckdb_delete_callback_t destroy);
void *duckdb_scalar_function_get_extra_info(duckdb_function_info info);

#endif
