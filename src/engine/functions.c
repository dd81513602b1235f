/*
 * functions.c — floe's scalar functions inside DuckDB, written in C.
 *
 * Each is a PostgreSQL hash function (src/base/pghash.h) with PostgreSQL's name
 * and result, so one SQL expression hashes a value the same way in the source
 * and in the lake: reconciliation's V3 checksums are computed by PostgreSQL on
 * one side and by DuckDB over Parquet on the other, and must agree to the bit.
 *
 *   hashtextextended(VARCHAR, BIGINT)   the text's bytes
 *   hashint4extended(INTEGER, BIGINT)   one 32-bit word
 *   hashint8extended(BIGINT, BIGINT)    the value folded to 32 bits, as PostgreSQL does
 *   uuid_hash_extended(UUID, BIGINT)    the 16 bytes
 *   hashfloat8extended(DOUBLE, BIGINT)  the value's 8 bytes; ±0 → the seed, one NaN
 *   hashfloat4extended(FLOAT, BIGINT)   the value widened to double, then as above
 *   hash_send_hex_extended(TIMESTAMP | TIMESTAMPTZ | TIME, BIGINT)
 *       PostgreSQL's hashtextextended(encode(<type>_send(x), 'hex'), seed): the 16 hex
 *       digits of the microseconds PostgreSQL stores (timestamps counted from
 *       2000-01-01, ±infinity as the int64 extremes), without building the text
 *   hash_decimal_text_extended(DECIMAL(p,s), BIGINT)
 *       PostgreSQL's hashtextextended(x::numeric(p,s)::text, seed): the text PostgreSQL
 *       prints for the value at exactly s fractional digits ("-0.50"), built in C
 *
 * All are strict (NULL in, NULL out), as PostgreSQL's are.
 *
 * And silver's PII masking, the same function dbt runs through floe's dbt-duckdb plugin
 * (pipeline/dbt/floe_plugins/floe_udfs.py, written by src/gen/dbt_files.c):
 *
 *   floe_hmac(VARCHAR) → VARCHAR        HMAC-SHA256 of the value's bytes keyed by the
 *                                       engine's PII key, 64 lower-case hex digits
 */
#include "engine/engine_int.h"
#include "base/error.h"
#include "base/hmac.h"
#include "base/pghash.h"

#include <stdbool.h>
#include <string.h>

#define PG_EPOCH_US INT64_C(946684800000000) /* 2000-01-01 in microseconds since 1970 */

/* The values being hashed: the input vector's data and, for a DECIMAL, its layout. */
typedef struct hash_input {
	const void *values;
	duckdb_type unscaled; /* DECIMAL: SMALLINT, INTEGER, BIGINT or HUGEINT */
	int scale;
} hash_input;

/* One value's hash. */
typedef uint64_t (*hash_row_fn)(const hash_input *in, idx_t row, uint64_t seed);

static uint64_t hash_text(const hash_input *in, idx_t row, uint64_t seed)
{
	duckdb_string_t *s = (duckdb_string_t *)in->values + row;
	return floe_pghash_extended(duckdb_string_t_data(s), duckdb_string_t_length(*s), seed);
}

static uint64_t hash_int4(const hash_input *in, idx_t row, uint64_t seed)
{
	return floe_pghash_uint32_extended((uint32_t)((const int32_t *)in->values)[row], seed);
}

static uint64_t hash_int8(const hash_input *in, idx_t row, uint64_t seed)
{
	return floe_pghash_int8_extended(((const int64_t *)in->values)[row], seed);
}

static uint64_t hash_float8(const hash_input *in, idx_t row, uint64_t seed)
{
	return floe_pghash_float8_extended(((const double *)in->values)[row], seed);
}

static uint64_t hash_float4(const hash_input *in, idx_t row, uint64_t seed)
{
	return floe_pghash_float8_extended((double)((const float *)in->values)[row], seed);
}

/* `v` big-endian into 8 bytes at `out`. */
static void put_be64(unsigned char *out, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		out[i] = (unsigned char)v;
}

static uint64_t hash_uuid(const hash_input *in, idx_t row, uint64_t seed)
{
	const duckdb_hugeint *u = (const duckdb_hugeint *)in->values + row;
	unsigned char bytes[16];
	put_be64(bytes, (uint64_t)u->upper ^ (UINT64_C(1) << 63));
	put_be64(bytes + 8, u->lower);
	return floe_pghash_extended(bytes, sizeof(bytes), seed);
}

/* hashtextextended of `v`'s 16 lower-case hex digits (two's complement). */
static uint64_t hash_hex64(uint64_t v, uint64_t seed)
{
	static const char digits[] = "0123456789abcdef";
	char hex[16];
	for (int i = 15; i >= 0; i--, v >>= 4)
		hex[i] = digits[v & 15];
	return floe_pghash_extended(hex, sizeof(hex), seed);
}

/*
 * A DuckDB timestamp counts from 1970, PostgreSQL's from 2000. DuckDB's infinity is the
 * int64 maximum, as PostgreSQL's; −infinity reads as the int64 minimum (what floe
 * writes) or DuckDB's own −(2^63 − 1): both are PostgreSQL's minimum.
 */
static uint64_t hash_timestamp(const hash_input *in, idx_t row, uint64_t seed)
{
	int64_t us = ((const int64_t *)in->values)[row];
	int64_t pg = us == INT64_MAX ? INT64_MAX : us <= INT64_MIN + 1 ? INT64_MIN : us - PG_EPOCH_US;
	return hash_hex64((uint64_t)pg, seed);
}

static uint64_t hash_time(const hash_input *in, idx_t row, uint64_t seed)
{
	return hash_hex64((uint64_t)((const int64_t *)in->values)[row], seed);
}

/* (hi:lo) /= 10, returning the remainder: long division over 32-bit limbs. */
static unsigned div10(uint64_t *hi, uint64_t *lo)
{
	uint32_t limb[4] = { (uint32_t)(*hi >> 32), (uint32_t)*hi, (uint32_t)(*lo >> 32), (uint32_t)*lo };
	uint64_t rem = 0;
	for (int i = 0; i < 4; i++) {
		uint64_t cur = (rem << 32) | limb[i];
		limb[i] = (uint32_t)(cur / 10);
		rem = cur % 10;
	}
	*hi = ((uint64_t)limb[0] << 32) | limb[1];
	*lo = ((uint64_t)limb[2] << 32) | limb[3];
	return (unsigned)rem;
}

/*
 * A DECIMAL's value as PostgreSQL prints a numeric of that scale: '-' for a value below
 * zero, the integer digits ("0" when none), then '.' and exactly `scale` digits.
 * DuckDB's decimals have at most 38 digits: the magnitude never overflows.
 */
static uint64_t hash_decimal(const hash_input *in, idx_t row, uint64_t seed)
{
	uint64_t hi = 0, lo;
	bool negative;
	switch (in->unscaled) {
	case DUCKDB_TYPE_SMALLINT:
		lo = (uint64_t)(int64_t)((const int16_t *)in->values)[row];
		break;
	case DUCKDB_TYPE_INTEGER:
		lo = (uint64_t)(int64_t)((const int32_t *)in->values)[row];
		break;
	case DUCKDB_TYPE_BIGINT:
		lo = (uint64_t)((const int64_t *)in->values)[row];
		break;
	default: {
		const duckdb_hugeint *h = (const duckdb_hugeint *)in->values + row;
		hi = (uint64_t)h->upper;
		lo = h->lower;
	}
	}
	if (in->unscaled != DUCKDB_TYPE_HUGEINT)
		hi = (int64_t)lo < 0 ? UINT64_MAX : 0;
	negative = (int64_t)hi < 0;
	if (negative) { /* two's complement: invert, add one */
		hi = ~hi;
		lo = ~lo + 1;
		hi += lo == 0;
	}
	char digits[48], text[48];
	size_t n = 0, len = 0;
	while (n <= (size_t)in->scale || hi || lo) { /* the lowest digit first */
		unsigned d;
		if (hi) {
			d = div10(&hi, &lo);
		} else {
			d = (unsigned)(lo % 10);
			lo /= 10;
		}
		digits[n++] = (char)('0' + d);
	}
	if (negative)
		text[len++] = '-';
	for (size_t i = n; i-- > 0;) {
		text[len++] = digits[i];
		if (i == (size_t)in->scale && in->scale > 0)
			text[len++] = '.';
	}
	return floe_pghash_extended(text, len, seed);
}

/* Apply `fn` to every row of (value, seed) in `input`; NULL where either is NULL. */
static void hash_chunk(duckdb_data_chunk input, duckdb_vector output, hash_row_fn fn, hash_input in)
{
	idx_t n = duckdb_data_chunk_get_size(input);
	duckdb_vector vals = duckdb_data_chunk_get_vector(input, 0);
	duckdb_vector seeds = duckdb_data_chunk_get_vector(input, 1);
	const int64_t *seed = duckdb_vector_get_data(seeds);
	uint64_t *val_ok = duckdb_vector_get_validity(vals);
	uint64_t *seed_ok = duckdb_vector_get_validity(seeds);
	int64_t *out = duckdb_vector_get_data(output);
	uint64_t *out_ok = NULL;

	for (idx_t i = 0; i < n; i++) {
		if ((val_ok && !duckdb_validity_row_is_valid(val_ok, i)) ||
		    (seed_ok && !duckdb_validity_row_is_valid(seed_ok, i))) {
			if (!out_ok) {
				duckdb_vector_ensure_validity_writable(output);
				out_ok = duckdb_vector_get_validity(output);
			}
			duckdb_validity_set_row_invalid(out_ok, i);
			continue;
		}
		out[i] = (int64_t)fn(&in, i, (uint64_t)seed[i]);
	}
}

#define CHUNK_FN(name, row_fn)                                                                   \
	static void name(duckdb_function_info info, duckdb_data_chunk input, duckdb_vector output) \
	{                                                                                          \
		hash_input in = { NULL, DUCKDB_TYPE_INVALID, 0 };                                  \
		(void)info;                                                                        \
		in.values = duckdb_vector_get_data(duckdb_data_chunk_get_vector(input, 0));        \
		hash_chunk(input, output, row_fn, in);                                             \
	}

CHUNK_FN(chunk_text, hash_text)
CHUNK_FN(chunk_int4, hash_int4)
CHUNK_FN(chunk_int8, hash_int8)
CHUNK_FN(chunk_uuid, hash_uuid)
CHUNK_FN(chunk_float8, hash_float8)
CHUNK_FN(chunk_float4, hash_float4)
CHUNK_FN(chunk_timestamp, hash_timestamp)
CHUNK_FN(chunk_time, hash_time)

/* A DECIMAL of any width and scale (the parameter is ANY): its layout from its type. */
static void chunk_decimal(duckdb_function_info info, duckdb_data_chunk input, duckdb_vector output)
{
	duckdb_vector vals = duckdb_data_chunk_get_vector(input, 0);
	duckdb_logical_type type = duckdb_vector_get_column_type(vals);
	hash_input in = { duckdb_vector_get_data(vals), DUCKDB_TYPE_INVALID, 0 };
	if (duckdb_get_type_id(type) == DUCKDB_TYPE_DECIMAL) {
		in.unscaled = duckdb_decimal_internal_type(type);
		in.scale = duckdb_decimal_scale(type);
	}
	duckdb_destroy_logical_type(&type);
	if (in.unscaled == DUCKDB_TYPE_INVALID)
		duckdb_scalar_function_set_error(info, "hash_decimal_text_extended takes a DECIMAL");
	else
		hash_chunk(input, output, hash_decimal, in);
}

/* Every function (value type, BIGINT seed) → BIGINT; overloads of one name are adjacent. */
static const struct {
	const char *name;
	duckdb_type arg;
	duckdb_scalar_function_t fn;
} functions[] = {
	{ "hashtextextended", DUCKDB_TYPE_VARCHAR, chunk_text },
	{ "hashint4extended", DUCKDB_TYPE_INTEGER, chunk_int4 },
	{ "hashint8extended", DUCKDB_TYPE_BIGINT, chunk_int8 },
	{ "uuid_hash_extended", DUCKDB_TYPE_UUID, chunk_uuid },
	{ "hashfloat8extended", DUCKDB_TYPE_DOUBLE, chunk_float8 },
	{ "hashfloat4extended", DUCKDB_TYPE_FLOAT, chunk_float4 },
	{ "hash_send_hex_extended", DUCKDB_TYPE_TIMESTAMP, chunk_timestamp },
	{ "hash_send_hex_extended", DUCKDB_TYPE_TIMESTAMP_TZ, chunk_timestamp },
	{ "hash_send_hex_extended", DUCKDB_TYPE_TIME, chunk_time },
	{ "hash_decimal_text_extended", DUCKDB_TYPE_ANY, chunk_decimal },
};
#define N_FUNCTIONS (sizeof(functions) / sizeof(functions[0]))

/* Functions [from, to) — one name's overloads — as one set on `conn`. */
static int register_set(duckdb_connection conn, size_t from, size_t to)
{
	duckdb_scalar_function_set set = duckdb_create_scalar_function_set(functions[from].name);
	duckdb_logical_type bigint = duckdb_create_logical_type(DUCKDB_TYPE_BIGINT);
	int error = 0;
	for (size_t i = from; i < to && error == 0; i++) {
		duckdb_scalar_function fn = duckdb_create_scalar_function();
		duckdb_logical_type arg = duckdb_create_logical_type(functions[i].arg);
		duckdb_scalar_function_set_name(fn, functions[i].name);
		duckdb_scalar_function_add_parameter(fn, arg);
		duckdb_scalar_function_add_parameter(fn, bigint);
		duckdb_scalar_function_set_return_type(fn, bigint);
		duckdb_scalar_function_set_function(fn, functions[i].fn);
		if (duckdb_add_scalar_function_to_set(set, fn) != DuckDBSuccess)
			error = -1;
		duckdb_destroy_logical_type(&arg);
		duckdb_destroy_scalar_function(&fn);
	}
	if (error == 0 && duckdb_register_scalar_function_set(conn, set) != DuckDBSuccess)
		error = -1;
	if (error < 0)
		floe_error_set(FLOE_ERR_INTERNAL, "could not register function %s in DuckDB", functions[from].name);
	duckdb_destroy_logical_type(&bigint);
	duckdb_destroy_scalar_function_set(&set);
	return error;
}

int floe_engine_register_functions(duckdb_connection conn)
{
	size_t from = 0;
	for (size_t i = 1; i <= N_FUNCTIONS; i++) {
		if (i < N_FUNCTIONS && strcmp(functions[i].name, functions[from].name) == 0)
			continue;
		if (register_set(conn, from, i) < 0)
			return -1;
		from = i;
	}
	return 0;
}

/* floe_hmac over one chunk: NULL stays NULL; no key, or a libcrypto failure, fails the statement. */
static void chunk_hmac(duckdb_function_info info, duckdb_data_chunk input, duckdb_vector output)
{
	const floe_engine_key *key = duckdb_scalar_function_get_extra_info(info);
	idx_t n = duckdb_data_chunk_get_size(input);
	duckdb_vector vals = duckdb_data_chunk_get_vector(input, 0);
	duckdb_string_t *s = duckdb_vector_get_data(vals);
	uint64_t *val_ok = duckdb_vector_get_validity(vals);
	uint64_t *out_ok = NULL;
	char hex[FLOE_HMAC_HEX_LEN + 1];

	if (!key->len) {
		duckdb_scalar_function_set_error(info, "floe_hmac has no PII key: floe was not given one");
		return;
	}
	for (idx_t i = 0; i < n; i++) {
		if (val_ok && !duckdb_validity_row_is_valid(val_ok, i)) {
			if (!out_ok) {
				duckdb_vector_ensure_validity_writable(output);
				out_ok = duckdb_vector_get_validity(output);
			}
			duckdb_validity_set_row_invalid(out_ok, i);
			continue;
		}
		if (floe_hmac_sha256_hex(hex, key->bytes, key->len, duckdb_string_t_data(&s[i]),
					 duckdb_string_t_length(s[i])) < 0) {
			floe_error_clear();
			duckdb_scalar_function_set_error(info, "floe_hmac: libcrypto could not compute an HMAC-SHA256");
			return;
		}
		duckdb_vector_assign_string_element_len(output, i, hex, FLOE_HMAC_HEX_LEN);
	}
}

int floe_engine_register_hmac(duckdb_connection conn, const floe_engine_key *key)
{
	duckdb_scalar_function fn = duckdb_create_scalar_function();
	duckdb_logical_type varchar = duckdb_create_logical_type(DUCKDB_TYPE_VARCHAR);
	int error = 0;
	duckdb_scalar_function_set_name(fn, "floe_hmac");
	duckdb_scalar_function_add_parameter(fn, varchar);
	duckdb_scalar_function_set_return_type(fn, varchar);
	duckdb_scalar_function_set_function(fn, chunk_hmac);
	duckdb_scalar_function_set_extra_info(fn, (void *)key, NULL);
	if (duckdb_register_scalar_function(conn, fn) != DuckDBSuccess)
		error = floe_error_set(FLOE_ERR_INTERNAL, "could not register function floe_hmac in DuckDB");
	duckdb_destroy_logical_type(&varchar);
	duckdb_destroy_scalar_function(&fn);
	return error;
}
