/*
 * copy_encode.c — column vectors into PostgreSQL's binary COPY format, the inverse of
 * copy_decode.c: what `floe publish` streams with COPY … FROM STDIN (FORMAT binary).
 * Pure: no libpq, so the unit tests drive it directly.
 *
 * Each value is written in its type's *_recv form: integers and floats big-endian;
 * date = int32 days since 2000-01-01; time = int64 µs; timestamp(tz) = int64 µs since
 * 2000-01-01 (UTC for tz); numeric = ndigits, weight, sign, dscale then base-10000
 * digits; uuid = 16 bytes; text and bytea = the bytes.
 */
#include "pg/copy.h"
#include "base/error.h"

#include <string.h>

#define PG_EPOCH_DAYS 10957                      /* 1970-01-01 → 2000-01-01 */
#define PG_EPOCH_MICROS INT64_C(946684800000000)
#define NUMERIC_POS 0x0000
#define NUMERIC_NEG 0x4000
#define NUMERIC_MAX_GROUPS 24                    /* 38 digits and a scale up to 38 */

static void put_be(floe_buf *out, uint64_t x, int bytes)
{
	uint8_t b[8];
	for (int i = 0; i < bytes; i++)
		b[i] = (uint8_t)(x >> (8 * (bytes - 1 - i)));
	floe_buf_put(out, b, (size_t)bytes);
}

void floe_pg_copy_put_header(floe_buf *out)
{
	static const uint8_t sig[11] = { 'P', 'G', 'C', 'O', 'P', 'Y', '\n', 0xff, '\r', '\n', 0 };
	floe_buf_put(out, sig, sizeof(sig));
	put_be(out, 0, 4); /* flags: no OIDs */
	put_be(out, 0, 4); /* no header extension */
}

void floe_pg_copy_put_row_start(floe_buf *out, uint16_t n_fields)
{
	put_be(out, n_fields, 2);
}

void floe_pg_copy_put_trailer(floe_buf *out)
{
	put_be(out, 0xffff, 2);
}

/* Floor division by 4 (for negative decimal exponents). */
static int floor4(int e)
{
	return e >= 0 ? e / 4 : -((-e + 3) / 4);
}

/* A decimal's unscaled value at `scale` as numeric_recv's bytes (length included). */
static void put_numeric(floe_buf *out, floe_dec128 d, int scale)
{
	unsigned __int128 v;
	bool neg = d.hi < 0;
	__int128 x = (__int128)(((unsigned __int128)(uint64_t)d.hi << 64) | d.lo);
	v = neg ? (unsigned __int128)(-(x + 1)) + 1 : (unsigned __int128)x;
	int digit[48], n = 0;
	do {
		digit[n++] = (int)(v % 10);
		v /= 10;
	} while (v);
	while (n <= scale)
		digit[n++] = 0;
	/* digit i stands for 10^(i - scale); group w for 10000^w */
	int low = floor4(-scale), high = floor4(n - 1 - scale);
	int group[NUMERIC_MAX_GROUPS] = { 0 };
	for (int i = 0; i < n; i++) {
		int e = i - scale, w = floor4(e), pos = e - 4 * w;
		static const int pow10[4] = { 1, 10, 100, 1000 };
		group[high - w] += digit[i] * pow10[pos];
	}
	int first = 0, last = high - low; /* group[0] is weight `high` */
	while (first <= last && group[first] == 0)
		first++;
	while (last >= first && group[last] == 0)
		last--;
	int ndigits = last >= first ? last - first + 1 : 0;
	put_be(out, (uint64_t)(8 + 2 * ndigits), 4);
	put_be(out, (uint64_t)ndigits, 2);
	put_be(out, (uint16_t)(int16_t)(ndigits ? high - first : 0), 2);
	put_be(out, neg && ndigits ? NUMERIC_NEG : NUMERIC_POS, 2);
	put_be(out, (uint64_t)scale, 2);
	for (int k = first; k <= last; k++)
		put_be(out, (uint64_t)group[k], 2);
}

static void put_bytes(floe_buf *out, const void *p, size_t len)
{
	put_be(out, len, 4);
	floe_buf_put(out, p, len);
}

static void put_fixed_value(floe_buf *out, uint64_t bits, int bytes)
{
	put_be(out, (uint64_t)bytes, 4);
	put_be(out, bits, bytes);
}

int floe_pg_encode_field(floe_buf *out, const floe_vector *v, size_t row)
{
	if (!floe_vector_is_valid(v, row)) {
		put_be(out, 0xffffffffu, 4);
		return 0;
	}
	uint32_t f32;
	uint64_t f64;
	switch (v->type) {
	case FLOE_VEC_BOOLEAN:
		put_fixed_value(out, v->v.u8[row] ? 1 : 0, 1);
		return 0;
	case FLOE_VEC_INT:
		put_fixed_value(out, (uint32_t)v->v.i32[row], 4);
		return 0;
	case FLOE_VEC_DATE:
		put_fixed_value(out, (uint32_t)(v->v.i32[row] - PG_EPOCH_DAYS), 4);
		return 0;
	case FLOE_VEC_LONG:
	case FLOE_VEC_TIME:
		put_fixed_value(out, (uint64_t)v->v.i64[row], 8);
		return 0;
	case FLOE_VEC_TIMESTAMP:
	case FLOE_VEC_TIMESTAMPTZ:
		put_fixed_value(out, (uint64_t)(v->v.i64[row] - PG_EPOCH_MICROS), 8);
		return 0;
	case FLOE_VEC_FLOAT:
		memcpy(&f32, &v->v.f32[row], 4);
		put_fixed_value(out, f32, 4);
		return 0;
	case FLOE_VEC_DOUBLE:
		memcpy(&f64, &v->v.f64[row], 8);
		put_fixed_value(out, f64, 8);
		return 0;
	case FLOE_VEC_DECIMAL:
		put_numeric(out, v->v.dec[row], v->scale);
		return 0;
	case FLOE_VEC_STRING:
	case FLOE_VEC_BINARY:
		put_bytes(out, v->data + v->offsets[row], (size_t)(v->offsets[row + 1] - v->offsets[row]));
		return 0;
	case FLOE_VEC_UUID:
	case FLOE_VEC_FIXED:
		put_bytes(out, v->v.fixed + row * (size_t)v->width, (size_t)v->width);
		return 0;
	case FLOE_VEC_LIST:
	case FLOE_VEC_STRUCT:
		break;
	}
	floe_error_set(FLOE_ERR_USAGE, "a %s value has no binary COPY form floe writes", floe_vec_type_name(v->type));
	floe_error_hint("Publish marts of primitive columns; lists and structs stay in the lake.");
	return -1;
}
