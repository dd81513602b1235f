/*
 * copy.h — stream a query's rows out of PostgreSQL with COPY … TO STDOUT (FORMAT
 * binary) and decode them straight into column vectors (format/vector.h).
 *
 * The caller says, per result column, which PostgreSQL type it is and which
 * Iceberg-shaped vector it becomes; the stream is checked against that (the
 * query's result types are described before the COPY starts) and every value is
 * converted exactly or refused with an error naming the column and the row:
 * a value floe cannot carry is never silently changed.
 */
#ifndef FLOE_PG_COPY_H
#define FLOE_PG_COPY_H

#include "vector/vector.h"
#include "pg/pg.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct floe_arena floe_arena;

/* How date/timestamp infinity is carried (PostgreSQL has it, Iceberg has not). */
typedef enum floe_pg_infinity {
	FLOE_PG_INFINITY_ERROR = 0, /* refuse the row's load */
	FLOE_PG_INFINITY_CLAMP      /* the largest/smallest value of the Iceberg type */
} floe_pg_infinity;

/*
 * One result column (or, nested, a record's field or an array's element). A spec is a tree
 * the caller owns; the decoder only reads it.
 */
typedef struct floe_pg_copy_column floe_pg_copy_column;
struct floe_pg_copy_column {
	const char *name;       /* for messages */
	uint32_t type_oid;      /* the result column's type (after any cast in the query); nested:
				 * 0 takes the type each value carries, if it decodes into `vec` */
	floe_vec_type vec;      /* what it becomes */
	int32_t width;          /* FIXED */
	int32_t precision;      /* DECIMAL */
	int32_t scale;          /* DECIMAL */
	floe_pg_infinity infinity;
	/* LIST of a primitive: the element's type and vector (when `element` is NULL) */
	uint32_t elem_oid;
	floe_vec_type elem_vec;
	int32_t elem_precision, elem_scale;
	/* LIST: the element's whole spec (any shape); overrides the elem_* fields */
	const floe_pg_copy_column *element;
	/* STRUCT (a record, composite or ROW(…)): one spec per attribute, in order */
	const floe_pg_copy_column *fields;
	size_t n_fields;
};

typedef struct floe_pg_copy floe_pg_copy;

/*
 * The result types of `select_sql` without running it: per column its type oid
 * and, for arrays, the element type oid (0 otherwise). Arrays live in `arena`.
 */
int floe_pg_describe_query(floe_pg *pg, floe_arena *arena, const char *select_sql, uint32_t **oids,
		     uint32_t **elem_oids, size_t *n);

/*
 * Start `COPY (select_sql) TO STDOUT (FORMAT binary)`. The query's result types
 * must equal the columns' type_oid (checked first). Borrows pg and cols until
 * floe_pg_copy_free. The session's open transaction (if any) is used as it is.
 */
int floe_pg_copy_begin(floe_pg_copy **out, floe_pg *pg, const char *select_sql,
		       const floe_pg_copy_column *cols, size_t ncols);

/*
 * Append up to `max_rows` rows (stopping early once the batch holds about
 * `max_bytes` of variable-length data) to vectors[0..ncols). *rows_out is 0 at
 * the end of the stream.
 */
int floe_pg_copy_next(floe_pg_copy *copy, floe_vector *vectors, size_t max_rows, size_t max_bytes,
		      size_t *rows_out);

/* Rows and bytes received so far. */
uint64_t floe_pg_copy_rows(const floe_pg_copy *copy);
uint64_t floe_pg_copy_bytes(const floe_pg_copy *copy);

/* Abandon a stream early (drains or cancels it). Accepts NULL. */
void floe_pg_copy_free(floe_pg_copy *copy);

/*
 * The pure decoder behind floe_pg_copy_next: one field of the binary format
 * (`len` bytes at `p`, len < 0 for NULL) appended to `v`. Exposed for tests and
 * the fuzzer; errors name nothing but the record field they are in (the caller
 * adds column and row). A record (STRUCT) is its field count, then per field its
 * type oid, length and bytes; every field's oid must decode into its spec's
 * vector. After an error `v` holds a partial row: clear it or give up the batch.
 */
int floe_pg_decode_field(floe_vector *v, const floe_pg_copy_column *col, const uint8_t *p, int32_t len);

/*
 * Row `row` of `v` as PostgreSQL's text input for the type it was decoded from
 * (booleans, integers, numeric at the vector's scale, date, time, timestamp,
 * timestamptz in UTC, uuid, text, bytea as \x hex), appended to `out`. A NULL or
 * another type is an error. Quote it (floe_pg_quote_literal) or pass it as a
 * parameter; an untyped literal takes the type of the column it is compared with.
 */
typedef struct floe_buf floe_buf;
int floe_pg_value_text(floe_buf *out, const floe_vector *v, size_t row);

/*
 * The other direction (copy_encode.c): COPY … FROM STDIN (FORMAT binary) bytes appended to
 * `out` — the header, each row's field count, each field (row `row` of `v`, a primitive
 * vector: its *_recv form, NULL as length -1; a list or struct is FLOE_ERR_USAGE), and the
 * trailer. Stream them with floe_pg_copy_in_put (pg.h).
 */
void floe_pg_copy_put_header(floe_buf *out);
void floe_pg_copy_put_row_start(floe_buf *out, uint16_t n_fields);
int floe_pg_encode_field(floe_buf *out, const floe_vector *v, size_t row);
void floe_pg_copy_put_trailer(floe_buf *out);

/* `v` made an empty vector of the shape `col` decodes into (nested vectors included). */
void floe_pg_copy_vector_init(floe_vector *v, const floe_pg_copy_column *col);

/*
 * Whether a value of type `oid` decodes into a vector of type `vec`: the closed set of
 * scalar types the extraction query produces, each into its vector type; a record or a
 * composite type into STRUCT, an array type into LIST (their contents are checked as
 * they are decoded).
 */
bool floe_pg_oid_decodes_into(uint32_t oid, floe_vec_type vec);

/* Well-known type OIDs (pg_type.dat), for callers building column specs. */
enum {
	FLOE_PG_BOOLOID = 16, FLOE_PG_BYTEAOID = 17, FLOE_PG_NAMEOID = 19, FLOE_PG_INT8OID = 20,
	FLOE_PG_INT2OID = 21, FLOE_PG_INT4OID = 23, FLOE_PG_TEXTOID = 25, FLOE_PG_OIDOID = 26,
	FLOE_PG_JSONOID = 114, FLOE_PG_XMLOID = 142, FLOE_PG_FLOAT4OID = 700, FLOE_PG_FLOAT8OID = 701,
	FLOE_PG_MONEYOID = 790, FLOE_PG_BPCHAROID = 1042, FLOE_PG_VARCHAROID = 1043,
	FLOE_PG_DATEOID = 1082, FLOE_PG_TIMEOID = 1083, FLOE_PG_TIMESTAMPOID = 1114,
	FLOE_PG_TIMESTAMPTZOID = 1184, FLOE_PG_TIMETZOID = 1266, FLOE_PG_NUMERICOID = 1700,
	FLOE_PG_UUIDOID = 2950, FLOE_PG_JSONBOID = 3802, FLOE_PG_RECORDOID = 2249
};

#endif
