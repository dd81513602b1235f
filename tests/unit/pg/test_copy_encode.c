/*
 * test_copy_encode.c — vectors encoded in PostgreSQL's binary COPY form (what `floe publish`
 * streams) decode back to the same values through floe's own decoder, numeric included.
 */
#include "harness.h"
#include "base/buf.h"
#include "pg/copy.h"

#include <string.h>

/* Encode row 0 of `v`, decode the field into `back` (same spec), and compare. */
static bool round_trips(const floe_vector *v, const floe_pg_copy_column *col)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_vector back;
	floe_pg_copy_vector_init(&back, col);
	bool ok = floe_pg_encode_field(&b, v, 0) == 0;
	const uint8_t *p = (const uint8_t *)b.ptr;
	int32_t len = ok ? (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]) : 0;
	ok = ok && floe_pg_decode_field(&back, col, p + 4, len) == 0 && back.len == 1 &&
	     floe_vector_compare_rows(v, 0, &back, 0) == 0 && floe_vector_is_valid(v, 0) == floe_vector_is_valid(&back, 0);
	floe_vector_free(&back);
	floe_buf_free(&b);
	return ok;
}

static bool numeric_round_trips(int64_t hi, uint64_t lo, int scale)
{
	floe_pg_copy_column col = { .name = "n", .type_oid = FLOE_PG_NUMERICOID, .vec = FLOE_VEC_DECIMAL,
				    .precision = 38, .scale = scale };
	floe_vector v;
	floe_pg_copy_vector_init(&v, &col);
	floe_vector_append_dec(&v, (floe_dec128){ lo, hi });
	bool ok = round_trips(&v, &col);
	floe_vector_free(&v);
	return ok;
}

FLOE_TEST(copy_encode_numeric_round_trips)
{
	FLOE_CHECK(numeric_round_trips(0, 0, 0));
	FLOE_CHECK(numeric_round_trips(0, 0, 2));
	FLOE_CHECK(numeric_round_trips(0, 1, 2));         /* 0.01 */
	FLOE_CHECK(numeric_round_trips(-1, UINT64_MAX, 2)); /* -0.01 */
	FLOE_CHECK(numeric_round_trips(0, 1000000, 2));   /* 10000.00: a group of zeros inside */
	FLOE_CHECK(numeric_round_trips(0, 123456789, 0));
	FLOE_CHECK(numeric_round_trips(0, 123456789, 7)); /* 12.3456789 */
	FLOE_CHECK(numeric_round_trips(0, 5, 9));         /* 0.000000005 */
	FLOE_CHECK(numeric_round_trips(0x4b3b4ca85a86c47a, 0x098a223fffffffff, 0)); /* 10^38 - 1 */
	FLOE_CHECK(numeric_round_trips(0x4b3b4ca85a86c47a, 0x098a223fffffffff, 38));
}

FLOE_TEST(copy_encode_scalars_round_trip)
{
	floe_pg_copy_column ts = { .name = "t", .type_oid = FLOE_PG_TIMESTAMPTZOID, .vec = FLOE_VEC_TIMESTAMPTZ };
	floe_pg_copy_column d = { .name = "d", .type_oid = FLOE_PG_DATEOID, .vec = FLOE_VEC_DATE };
	floe_pg_copy_column s = { .name = "s", .type_oid = FLOE_PG_TEXTOID, .vec = FLOE_VEC_STRING };
	floe_vector v;
	floe_pg_copy_vector_init(&v, &ts);
	floe_vector_append_i64(&v, -3600000000LL); /* before 1970 and before 2000 */
	FLOE_CHECK(round_trips(&v, &ts));
	floe_vector_free(&v);
	floe_pg_copy_vector_init(&v, &d);
	floe_vector_append_i32(&v, 10956);
	FLOE_CHECK(round_trips(&v, &d));
	floe_vector_free(&v);
	floe_pg_copy_vector_init(&v, &s);
	floe_vector_append_bytes(&v, "Zoë 東京", strlen("Zoë 東京"));
	FLOE_CHECK(round_trips(&v, &s));
	floe_vector_free(&v);
	floe_pg_copy_vector_init(&v, &s);
	floe_vector_append_null(&v);
	floe_buf b = FLOE_BUF_INIT;
	FLOE_CHECK(floe_pg_encode_field(&b, &v, 0) == 0 && b.len == 4 && memcmp(b.ptr, "\xff\xff\xff\xff", 4) == 0);
	floe_buf_free(&b);
	floe_vector_free(&v);
}
