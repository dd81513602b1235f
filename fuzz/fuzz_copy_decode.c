/*
 * fuzz_copy_decode.c — libFuzzer target for the binary COPY field decoder: the first
 * byte picks a column spec (scalars, arrays, records — composite types, ROW(...), nested
 * records, arrays inside records, arrays of records), the rest is a run of fields as the
 * server sends a row's (int32 length, -1 for NULL, then the bytes). Every input must be
 * decoded or refused with an error, never crash or overrun; and while every field decodes,
 * the vector keeps its shape: struct children as long as their struct, a NULL struct row
 * NULL in every child, list offsets inside their elements (checked here, abort() if not).
 */
#include "base/error.h"
#include "pg/copy.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* addr: (street text, zip int4, tags text[]) — a composite type's oid is unknown: 0 */
static const floe_pg_copy_column tags_el = { .name = "element", .vec = FLOE_VEC_STRING };
static const floe_pg_copy_column addr_fields[] = {
	{ .name = "street", .vec = FLOE_VEC_STRING },
	{ .name = "zip", .vec = FLOE_VEC_INT },
	{ .name = "tags", .vec = FLOE_VEC_LIST, .element = &tags_el },
};
/* tagged: ROW(label::text, score::int4, n numeric(12,2), d date, u uuid, at timestamptz) */
static const floe_pg_copy_column tagged_fields[] = {
	{ .name = "label", .vec = FLOE_VEC_STRING },
	{ .name = "score", .vec = FLOE_VEC_INT },
	{ .name = "n", .vec = FLOE_VEC_DECIMAL, .precision = 12, .scale = 2 },
	{ .name = "d", .vec = FLOE_VEC_DATE, .infinity = FLOE_PG_INFINITY_CLAMP },
	{ .name = "u", .vec = FLOE_VEC_UUID, .width = 16 },
	{ .name = "at", .vec = FLOE_VEC_TIMESTAMPTZ },
};
/* outer: ROW(inner tagged, a addr, k int2, g float8[]) */
static const floe_pg_copy_column f8_el = { .name = "element", .vec = FLOE_VEC_DOUBLE };
static const floe_pg_copy_column outer_fields[] = {
	{ .name = "inner", .vec = FLOE_VEC_STRUCT, .fields = tagged_fields, .n_fields = 6 },
	{ .name = "a", .vec = FLOE_VEC_STRUCT, .fields = addr_fields, .n_fields = 3 },
	{ .name = "k", .vec = FLOE_VEC_INT },
	{ .name = "g", .vec = FLOE_VEC_LIST, .element = &f8_el },
};
static const floe_pg_copy_column addr_el = { .name = "element", .vec = FLOE_VEC_STRUCT,
					     .fields = addr_fields, .n_fields = 3 };
static const floe_pg_copy_column addr_el_exact = { .name = "element", .type_oid = 70001,
						   .vec = FLOE_VEC_STRUCT, .fields = addr_fields, .n_fields = 3 };

static const floe_pg_copy_column columns[] = {
	{ "b", FLOE_PG_BOOLOID, FLOE_VEC_BOOLEAN, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "i2", FLOE_PG_INT2OID, FLOE_VEC_INT, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "i8", FLOE_PG_INT8OID, FLOE_VEC_LONG, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "f8", FLOE_PG_FLOAT8OID, FLOE_VEC_DOUBLE, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "n", FLOE_PG_NUMERICOID, FLOE_VEC_DECIMAL, 0, 38, 10, 0, 0, 0, 0, 0 },
	{ "n0", FLOE_PG_NUMERICOID, FLOE_VEC_DECIMAL, 0, 9, 0, 0, 0, 0, 0, 0 },
	{ "d", FLOE_PG_DATEOID, FLOE_VEC_DATE, 0, 0, 0, FLOE_PG_INFINITY_CLAMP, 0, 0, 0, 0 },
	{ "ts", FLOE_PG_TIMESTAMPTZOID, FLOE_VEC_TIMESTAMPTZ, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "u", FLOE_PG_UUIDOID, FLOE_VEC_UUID, 16, 0, 0, 0, 0, 0, 0, 0 },
	{ "j", FLOE_PG_JSONBOID, FLOE_VEC_STRING, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "ai", 1007, FLOE_VEC_LIST, 0, 0, 0, 0, FLOE_PG_INT4OID, FLOE_VEC_INT, 0, 0 },
	{ "an", 1231, FLOE_VEC_LIST, 0, 0, 0, 0, FLOE_PG_NUMERICOID, FLOE_VEC_DECIMAL, 18, 4 },
	{ "at", 1009, FLOE_VEC_LIST, 0, 0, 0, 0, FLOE_PG_TEXTOID, FLOE_VEC_STRING, 0, 0 },
	{ .name = "home", .type_oid = 70001, .vec = FLOE_VEC_STRUCT, .fields = addr_fields, .n_fields = 3 },
	{ .name = "t", .type_oid = FLOE_PG_RECORDOID, .vec = FLOE_VEC_STRUCT, .fields = tagged_fields,
	  .n_fields = 6 },
	{ .name = "o", .type_oid = FLOE_PG_RECORDOID, .vec = FLOE_VEC_STRUCT, .fields = outer_fields,
	  .n_fields = 4 },
	{ .name = "homes", .type_oid = 70002, .vec = FLOE_VEC_LIST, .element = &addr_el },
	{ .name = "homes_exact", .type_oid = 70002, .vec = FLOE_VEC_LIST, .element = &addr_el_exact },
};

/* The shape invariants the Parquet writer relies on; `null_above`: a parent row is NULL. */
static void check_shape(const floe_vector *v, size_t i, bool null_above)
{
	bool valid = floe_vector_is_valid(v, i);
	if (null_above && valid)
		abort(); /* a value under a NULL struct row */
	if (v->type == FLOE_VEC_STRUCT) {
		for (size_t k = 0; k < v->n_children; k++) {
			if (v->children[k].len != v->len)
				abort();
			check_shape(&v->children[k], i, !valid);
		}
	} else if (v->type == FLOE_VEC_LIST) {
		int64_t a = v->offsets[i], b = v->offsets[i + 1];
		if (a > b || (size_t)b > v->child->len || (!valid && a != b))
			abort();
		for (int64_t j = a; j < b; j++)
			check_shape(v->child, (size_t)j, false);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const floe_pg_copy_column *c = &columns[data[0] % (sizeof(columns) / sizeof(columns[0]))];
	floe_vector v, copy;
	bool ok = true;
	floe_pg_copy_vector_init(&v, c);
	floe_pg_copy_vector_init(&copy, c);
	/* The whole input as one field, then as a run of length-prefixed fields. */
	ok = floe_pg_decode_field(&v, c, data + 1, (int32_t)(size - 1)) == 0;
	for (size_t off = 1; ok && size - off >= 4;) {
		int32_t len = (int32_t)((uint32_t)data[off] << 24 | (uint32_t)data[off + 1] << 16 |
					(uint32_t)data[off + 2] << 8 | data[off + 3]);
		off += 4;
		if (len >= 0 && (size_t)len > size - off)
			break;
		ok = floe_pg_decode_field(&v, c, data + off, len) == 0;
		off += len > 0 ? (size_t)len : 0;
	}
	if (ok) {
		ok = floe_pg_decode_field(&v, c, data + 1, -1) == 0;
		for (size_t i = 0; ok && i < v.len; i++) {
			check_shape(&v, i, false);
			floe_vector_append_row(&copy, &v, i);
		}
	}
	floe_error_clear();
	floe_vector_free(&copy);
	floe_vector_free(&v);
	return 0;
}
