/*
 * vector.h — column vectors: one column of a batch of rows, typed, with a validity bitmap.
 *
 * The PostgreSQL COPY decoder fills them and the Parquet writer drains them; the Parquet
 * reader fills them back. A vector's type is an Iceberg v2 type (primitive, list or struct);
 * its storage follows the type:
 *
 *   BOOLEAN                              u8    one byte per row, 0 or 1
 *   INT, DATE (days from 1970-01-01)     i32
 *   LONG, TIME (µs from midnight),
 *   TIMESTAMP, TIMESTAMPTZ (µs from the epoch, UTC for TZ)   i64
 *   FLOAT, DOUBLE                        f32, f64
 *   DECIMAL(P,S)                         dec   the unscaled value as a 128-bit integer
 *   STRING, BINARY                       data + offsets: row i is data[offsets[i] .. offsets[i+1])
 *   UUID (16 bytes, big-endian as written), FIXED[L]   fixed: `width` bytes per row
 *   LIST                                 offsets into `child` (the elements, a vector itself)
 *   STRUCT                               `children`: one vector per field, each with a row per row
 *
 * A null row still has a slot (zero, or an empty range), so row i always lives at index i; a
 * null struct row is null in every child too (floe_vector_append_null keeps that), so a child
 * holds a value only where its struct does.
 * `validity` is NULL while every row is valid; bit i (LSB first) is 1 for a valid row.
 *
 * Storage is heap memory owned by the vector, grown by doubling; floe_vector_clear() keeps
 * it for the next batch (a batch lifetime without reallocating), floe_vector_free() returns
 * it. The struct is public so decoders can write into the arrays directly after
 * floe_vector_reserve(); the append helpers do the bookkeeping for everyone else.
 */
#ifndef FLOE_VECTOR_VECTOR_H
#define FLOE_VECTOR_VECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum floe_vec_type {
	FLOE_VEC_BOOLEAN = 1,
	FLOE_VEC_INT,
	FLOE_VEC_LONG,
	FLOE_VEC_FLOAT,
	FLOE_VEC_DOUBLE,
	FLOE_VEC_DECIMAL,
	FLOE_VEC_DATE,
	FLOE_VEC_TIME,
	FLOE_VEC_TIMESTAMP,
	FLOE_VEC_TIMESTAMPTZ,
	FLOE_VEC_STRING,
	FLOE_VEC_UUID,
	FLOE_VEC_FIXED,
	FLOE_VEC_BINARY,
	FLOE_VEC_LIST,
	FLOE_VEC_STRUCT
} floe_vec_type;

/* A 128-bit two's complement integer (decimal unscaled values). */
typedef struct floe_dec128 {
	uint64_t lo;
	int64_t hi;
} floe_dec128;

typedef struct floe_vector floe_vector;
struct floe_vector {
	floe_vec_type type;
	int32_t width;       /* FIXED: L; UUID: 16; others 0 */
	int32_t precision;   /* DECIMAL */
	int32_t scale;       /* DECIMAL */
	size_t len;          /* rows */
	size_t cap;          /* rows the arrays hold */
	uint8_t *validity;   /* NULL: all valid */
	union {
		uint8_t *u8;
		int32_t *i32;
		int64_t *i64;
		float *f32;
		double *f64;
		floe_dec128 *dec;
		uint8_t *fixed;
	} v;
	int64_t *offsets;    /* STRING, BINARY, LIST: cap + 1 entries, offsets[0] == 0 */
	uint8_t *data;       /* STRING, BINARY bytes */
	size_t data_len, data_cap;
	floe_vector *child;  /* LIST elements */
	floe_vector *children; /* STRUCT fields, n_children of them */
	size_t n_children;
};

/* "boolean", "int", ..., "list", "struct". */
const char *floe_vec_type_name(floe_vec_type type);

/* Bytes per row of the fixed-width storage (0 for STRING, BINARY, LIST, STRUCT). */
size_t floe_vec_type_width(floe_vec_type type, int32_t width);

/*
 * Make `v` an empty vector of `type`. `width` is FIXED's L (UUID is 16 whatever is given);
 * DECIMAL's precision and scale are set on the struct by the caller when they matter.
 * A LIST gets an empty child of `element` (use floe_vector_init on v->child for its
 * parameters instead of passing them here).
 */
void floe_vector_init(floe_vector *v, floe_vec_type type, int32_t width);
void floe_vector_init_list(floe_vector *v, floe_vec_type element, int32_t element_width);
/* A STRUCT of `n` children, each an empty BOOLEAN vector: floe_vector_init each one. */
void floe_vector_init_struct(floe_vector *v, size_t n);

/* Release every array (and the children's). `v` stays a valid empty vector. Accepts NULL. */
void floe_vector_free(floe_vector *v);

/* Forget the rows, keep the memory (and the children's). */
void floe_vector_clear(floe_vector *v);
/*
 * `v` (a valid vector) emptied as a flat vector of `type`: its memory kept when it already is one
 * of that type and width (a reader refilling it batch after batch), else freed and initialised.
 */
void floe_vector_reuse(floe_vector *v, floe_vec_type type, int32_t width);

/* Room for `rows` rows in total (not more), and for `bytes` bytes of STRING/BINARY data. */
void floe_vector_reserve(floe_vector *v, size_t rows);
void floe_vector_reserve_data(floe_vector *v, size_t bytes);

static inline bool floe_vector_is_valid(const floe_vector *v, size_t i)
{
	return !v->validity || (v->validity[i >> 3] >> (i & 7)) & 1;
}

/* Rows that are null. */
size_t floe_vector_null_count(const floe_vector *v);

/* Bytes of STRING/BINARY data held by `v` and everything nested in it. */
size_t floe_vector_data_bytes(const floe_vector *v);

/* Append one row. The type must match (assert). A null STRUCT row is null in its children. */
void floe_vector_append_null(floe_vector *v);
void floe_vector_append_bool(floe_vector *v, bool x);
void floe_vector_append_i32(floe_vector *v, int32_t x);  /* INT, DATE */
void floe_vector_append_i64(floe_vector *v, int64_t x);  /* LONG, TIME, TIMESTAMP(TZ) */
void floe_vector_append_f32(floe_vector *v, float x);
void floe_vector_append_f64(floe_vector *v, double x);
void floe_vector_append_dec(floe_vector *v, floe_dec128 x);
void floe_vector_append_bytes(floe_vector *v, const void *p, size_t len); /* STRING, BINARY */
void floe_vector_append_fixed(floe_vector *v, const void *p);             /* UUID, FIXED */
/* LIST: append the elements to v->child first, then close the row over them. */
void floe_vector_append_list(floe_vector *v);
/* STRUCT: append one row to every child first, then close the row over them. */
void floe_vector_append_struct(floe_vector *v);
/* Row i of `src` (null or not; a list or struct with what it holds), appended to `dst` of the
 * same shape. */
void floe_vector_append_row(floe_vector *dst, const floe_vector *src, size_t i);
/* Rows [from, from + n) of `src` appended to `dst` of the same type, copied in bulk. */
void floe_vector_append_rows(floe_vector *dst, const floe_vector *src, size_t from, size_t n);

/* Whether `a` and `b` are of one type nested the same way (fixed widths, list elements, struct
 * fields), so rows of one can be appended to or compared with the other. */
bool floe_vector_same_shape(const floe_vector *a, const floe_vector *b);

/*
 * Order row i of `a` against row j of `b` (same type): -1, 0, 1. Nulls first; numbers,
 * dates and times by value; strings, binary, uuid and fixed bytewise, a prefix first (the
 * order of PostgreSQL's COLLATE "C", bytea and uuid); floats in a total order (-0 before
 * +0, NaN last); lists element by element, the shorter first on a tie; structs field by
 * field. 0 means equal
 * values, so it is also the row equality of an upsert.
 */
int floe_vector_compare_rows(const floe_vector *a, size_t i, const floe_vector *b, size_t j);
/* The first of rows [0, n) of `v` (ascending) at or after row `row` of `key` (n when none): a binary search. */
size_t floe_vector_lower_bound(const floe_vector *v, size_t n, const floe_vector *key, size_t row);

/* Offset i of a STRING/BINARY/LIST vector: 0 while it has held no row (it has no offsets yet). */
static inline int64_t floe_vector_offset(const floe_vector *v, size_t i)
{
	return v->offsets ? v->offsets[i] : 0;
}

/* Bytes of row i of a STRING/BINARY vector. */
static inline const uint8_t *floe_vector_bytes(const floe_vector *v, size_t i, size_t *len)
{
	*len = (size_t)(v->offsets[i + 1] - v->offsets[i]);
	return v->data ? v->data + v->offsets[i] : (const uint8_t *)""; /* no bytes yet: all empty */
}

/* Decimal helpers: from int64, comparison, and whether |x| < 10^precision. */
floe_dec128 floe_dec128_from_i64(int64_t x);
int floe_dec128_cmp(floe_dec128 a, floe_dec128 b);
bool floe_dec128_fits(floe_dec128 x, int precision);

#endif
