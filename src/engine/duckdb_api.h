/*
 * duckdb_api.h — DuckDB's C API as floe calls it: through pointers into libduckdb.so, which
 * floe_duckdb_load opens (dlopen) when floe first needs DuckDB, not at every process start.
 * Resolving the library's ~40 thousand symbols cost each start ~12 ms, which commands that run
 * no SQL (a bronze load, `floe status`) no longer pay; silver opens its engine on a thread of
 * its own, so the loading overlaps the rest of its start. Include from src/engine/ only (through
 * engine_int.h): the engine's code calls duckdb_query(…) as before — each name below is the
 * loaded pointer's.
 */
#ifndef FLOE_ENGINE_DUCKDB_API_H
#define FLOE_ENGINE_DUCKDB_API_H

#include "engine/duckdb_capi.h"

/* Every DuckDB function floe calls (declared in duckdb_capi.h). */
#define FLOE_DUCKDB_FUNCTIONS(X) \
	X(duckdb_add_scalar_function_to_set) \
	X(duckdb_close) \
	X(duckdb_column_count) \
	X(duckdb_column_name) \
	X(duckdb_connect) \
	X(duckdb_create_config) \
	X(duckdb_create_logical_type) \
	X(duckdb_create_scalar_function) \
	X(duckdb_create_scalar_function_set) \
	X(duckdb_data_chunk_get_size) \
	X(duckdb_data_chunk_get_vector) \
	X(duckdb_decimal_internal_type) \
	X(duckdb_decimal_scale) \
	X(duckdb_destroy_config) \
	X(duckdb_destroy_extracted) \
	X(duckdb_destroy_logical_type) \
	X(duckdb_destroy_prepare) \
	X(duckdb_destroy_result) \
	X(duckdb_destroy_scalar_function) \
	X(duckdb_destroy_scalar_function_set) \
	X(duckdb_disconnect) \
	X(duckdb_extract_statements) \
	X(duckdb_extract_statements_error) \
	X(duckdb_free) \
	X(duckdb_get_type_id) \
	X(duckdb_library_version) \
	X(duckdb_open_ext) \
	X(duckdb_prepare_error) \
	X(duckdb_prepare_extracted_statement) \
	X(duckdb_prepared_statement_column_count) \
	X(duckdb_prepared_statement_column_name) \
	X(duckdb_prepared_statement_type) \
	X(duckdb_query) \
	X(duckdb_register_scalar_function) \
	X(duckdb_register_scalar_function_set) \
	X(duckdb_result_error) \
	X(duckdb_result_error_type) \
	X(duckdb_row_count) \
	X(duckdb_scalar_function_add_parameter) \
	X(duckdb_scalar_function_get_extra_info) \
	X(duckdb_scalar_function_set_error) \
	X(duckdb_scalar_function_set_extra_info) \
	X(duckdb_scalar_function_set_function) \
	X(duckdb_scalar_function_set_name) \
	X(duckdb_scalar_function_set_return_type) \
	X(duckdb_set_config) \
	X(duckdb_string_t_data) \
	X(duckdb_string_t_length) \
	X(duckdb_validity_row_is_valid) \
	X(duckdb_validity_set_row_invalid) \
	X(duckdb_value_is_null) \
	X(duckdb_value_varchar) \
	X(duckdb_vector_assign_string_element_len) \
	X(duckdb_vector_ensure_validity_writable) \
	X(duckdb_vector_get_column_type) \
	X(duckdb_vector_get_data) \
	X(duckdb_vector_get_validity)

typedef struct floe_duckdb_api {
#define FLOE_DUCKDB_POINTER(name) __typeof__(name) *name;
	FLOE_DUCKDB_FUNCTIONS(FLOE_DUCKDB_POINTER)
#undef FLOE_DUCKDB_POINTER
} floe_duckdb_api;

/* Set by floe_duckdb_load; read only after it returned 0. */
extern floe_duckdb_api floe_duckdb;

/*
 * Open libduckdb.so (the executable's run path finds it: .deps/duckdb in a build, lib/floe once
 * installed) and resolve every function; once per process, whichever thread asks first (later
 * calls return the first one's outcome). 0, or -1 with the error set when it cannot be loaded.
 */
int floe_duckdb_load(void);

#ifndef FLOE_DUCKDB_LOADER /* duckdb_load.c names the functions themselves */
#define duckdb_add_scalar_function_to_set floe_duckdb.duckdb_add_scalar_function_to_set
#define duckdb_close floe_duckdb.duckdb_close
#define duckdb_column_count floe_duckdb.duckdb_column_count
#define duckdb_column_name floe_duckdb.duckdb_column_name
#define duckdb_connect floe_duckdb.duckdb_connect
#define duckdb_create_config floe_duckdb.duckdb_create_config
#define duckdb_create_logical_type floe_duckdb.duckdb_create_logical_type
#define duckdb_create_scalar_function floe_duckdb.duckdb_create_scalar_function
#define duckdb_create_scalar_function_set floe_duckdb.duckdb_create_scalar_function_set
#define duckdb_data_chunk_get_size floe_duckdb.duckdb_data_chunk_get_size
#define duckdb_data_chunk_get_vector floe_duckdb.duckdb_data_chunk_get_vector
#define duckdb_decimal_internal_type floe_duckdb.duckdb_decimal_internal_type
#define duckdb_decimal_scale floe_duckdb.duckdb_decimal_scale
#define duckdb_destroy_config floe_duckdb.duckdb_destroy_config
#define duckdb_destroy_extracted floe_duckdb.duckdb_destroy_extracted
#define duckdb_destroy_logical_type floe_duckdb.duckdb_destroy_logical_type
#define duckdb_destroy_prepare floe_duckdb.duckdb_destroy_prepare
#define duckdb_destroy_result floe_duckdb.duckdb_destroy_result
#define duckdb_destroy_scalar_function floe_duckdb.duckdb_destroy_scalar_function
#define duckdb_destroy_scalar_function_set floe_duckdb.duckdb_destroy_scalar_function_set
#define duckdb_disconnect floe_duckdb.duckdb_disconnect
#define duckdb_extract_statements floe_duckdb.duckdb_extract_statements
#define duckdb_extract_statements_error floe_duckdb.duckdb_extract_statements_error
#define duckdb_free floe_duckdb.duckdb_free
#define duckdb_get_type_id floe_duckdb.duckdb_get_type_id
#define duckdb_library_version floe_duckdb.duckdb_library_version
#define duckdb_open_ext floe_duckdb.duckdb_open_ext
#define duckdb_prepare_error floe_duckdb.duckdb_prepare_error
#define duckdb_prepare_extracted_statement floe_duckdb.duckdb_prepare_extracted_statement
#define duckdb_prepared_statement_column_count floe_duckdb.duckdb_prepared_statement_column_count
#define duckdb_prepared_statement_column_name floe_duckdb.duckdb_prepared_statement_column_name
#define duckdb_prepared_statement_type floe_duckdb.duckdb_prepared_statement_type
#define duckdb_query floe_duckdb.duckdb_query
#define duckdb_register_scalar_function floe_duckdb.duckdb_register_scalar_function
#define duckdb_register_scalar_function_set floe_duckdb.duckdb_register_scalar_function_set
#define duckdb_result_error floe_duckdb.duckdb_result_error
#define duckdb_result_error_type floe_duckdb.duckdb_result_error_type
#define duckdb_row_count floe_duckdb.duckdb_row_count
#define duckdb_scalar_function_add_parameter floe_duckdb.duckdb_scalar_function_add_parameter
#define duckdb_scalar_function_get_extra_info floe_duckdb.duckdb_scalar_function_get_extra_info
#define duckdb_scalar_function_set_error floe_duckdb.duckdb_scalar_function_set_error
#define duckdb_scalar_function_set_extra_info floe_duckdb.duckdb_scalar_function_set_extra_info
#define duckdb_scalar_function_set_function floe_duckdb.duckdb_scalar_function_set_function
#define duckdb_scalar_function_set_name floe_duckdb.duckdb_scalar_function_set_name
#define duckdb_scalar_function_set_return_type floe_duckdb.duckdb_scalar_function_set_return_type
#define duckdb_set_config floe_duckdb.duckdb_set_config
#define duckdb_string_t_data floe_duckdb.duckdb_string_t_data
#define duckdb_string_t_length floe_duckdb.duckdb_string_t_length
#define duckdb_validity_row_is_valid floe_duckdb.duckdb_validity_row_is_valid
#define duckdb_validity_set_row_invalid floe_duckdb.duckdb_validity_set_row_invalid
#define duckdb_value_is_null floe_duckdb.duckdb_value_is_null
#define duckdb_value_varchar floe_duckdb.duckdb_value_varchar
#define duckdb_vector_assign_string_element_len floe_duckdb.duckdb_vector_assign_string_element_len
#define duckdb_vector_ensure_validity_writable floe_duckdb.duckdb_vector_ensure_validity_writable
#define duckdb_vector_get_column_type floe_duckdb.duckdb_vector_get_column_type
#define duckdb_vector_get_data floe_duckdb.duckdb_vector_get_data
#define duckdb_vector_get_validity floe_duckdb.duckdb_vector_get_validity
#endif

#endif
