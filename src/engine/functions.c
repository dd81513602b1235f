/*
 * functions.c — floe's scalar functions inside DuckDB, written in C.
 *
 * hashtextextended(text VARCHAR, seed BIGINT) → BIGINT is PostgreSQL's function
 * of that name (src/base/pghash.h), so one SQL expression hashes a value the
 * same way in the source and in the lake: reconciliation's V3 checksums are
 * computed by PostgreSQL on one side and by DuckDB over Parquet on the other,
 * and must agree to the bit. NULL in, NULL out (the function is strict, as
 * PostgreSQL's is).
 */
#include "engine/engine_int.h"
#include "base/error.h"
#include "base/pghash.h"

static void hashtextextended(duckdb_function_info info, duckdb_data_chunk input, duckdb_vector output)
{
	(void)info;
	idx_t n = duckdb_data_chunk_get_size(input);
	duckdb_vector texts = duckdb_data_chunk_get_vector(input, 0);
	duckdb_vector seeds = duckdb_data_chunk_get_vector(input, 1);
	duckdb_string_t *text = duckdb_vector_get_data(texts);
	const int64_t *seed = duckdb_vector_get_data(seeds);
	uint64_t *text_ok = duckdb_vector_get_validity(texts);
	uint64_t *seed_ok = duckdb_vector_get_validity(seeds);
	int64_t *out = duckdb_vector_get_data(output);
	uint64_t *out_ok = NULL;

	for (idx_t i = 0; i < n; i++) {
		if ((text_ok && !duckdb_validity_row_is_valid(text_ok, i)) ||
		    (seed_ok && !duckdb_validity_row_is_valid(seed_ok, i))) {
			if (!out_ok) {
				duckdb_vector_ensure_validity_writable(output);
				out_ok = duckdb_vector_get_validity(output);
			}
			duckdb_validity_set_row_invalid(out_ok, i);
			continue;
		}
		uint32_t len = duckdb_string_t_length(text[i]);
		const char *bytes = duckdb_string_t_data(&text[i]);
		out[i] = (int64_t)floe_pghash_extended(bytes, len, (uint64_t)seed[i]);
	}
}

int floe_engine_register_functions(duckdb_connection conn)
{
	duckdb_scalar_function fn = duckdb_create_scalar_function();
	duckdb_logical_type varchar = duckdb_create_logical_type(DUCKDB_TYPE_VARCHAR);
	duckdb_logical_type bigint = duckdb_create_logical_type(DUCKDB_TYPE_BIGINT);
	int error = 0;

	duckdb_scalar_function_set_name(fn, "hashtextextended");
	duckdb_scalar_function_add_parameter(fn, varchar);
	duckdb_scalar_function_add_parameter(fn, bigint);
	duckdb_scalar_function_set_return_type(fn, bigint);
	duckdb_scalar_function_set_function(fn, hashtextextended);
	if (duckdb_register_scalar_function(conn, fn) != DuckDBSuccess)
		error = floe_error_set(FLOE_ERR_INTERNAL, "could not register function hashtextextended in DuckDB");
	duckdb_destroy_logical_type(&varchar);
	duckdb_destroy_logical_type(&bigint);
	duckdb_destroy_scalar_function(&fn);
	return error;
}
