/*
 * fuzz_copy_decode.c — libFuzzer target for the binary COPY field decoder: the first
 * byte picks a column type, the rest is one field as the server would send it.
 * Every input must be decoded or refused with an error, never crash or overrun.
 */
#include "base/error.h"
#include "pg/copy.h"

#include <stddef.h>
#include <stdint.h>

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
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const floe_pg_copy_column *c = &columns[data[0] % (sizeof(columns) / sizeof(columns[0]))];
	floe_vector v;
	if (c->vec == FLOE_VEC_LIST)
		floe_vector_init_list(&v, c->elem_vec, 0);
	else
		floe_vector_init(&v, c->vec, c->width);
	v.precision = c->precision;
	v.scale = c->scale;
	floe_pg_decode_field(&v, c, data + 1, (int32_t)(size - 1));
	floe_pg_decode_field(&v, c, data + 1, -1);
	floe_error_clear();
	floe_vector_free(&v);
	return 0;
}
