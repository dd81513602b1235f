/*
 * copy_decode.c — PostgreSQL's binary send format, one field at a time, into
 * column vectors. Pure: no libpq, so the tests and the fuzzer drive it directly.
 *
 * Formats (PostgreSQL's *_send functions): integers and floats big-endian;
 * date = int32 days since 2000-01-01; time = int64 µs; timestamp(tz) = int64 µs
 * since 2000-01-01 (UTC for tz); numeric = ndigits, weight, sign, dscale (int16
 * each) then base-10000 digits; uuid = 16 bytes; text-like = the bytes; jsonb =
 * version byte 1 then text; money = int64 in the currency's minor unit;
 * arrays = ndim, has-null flag, element oid, (size, lower bound) per dimension,
 * then each element as int32 length + bytes; records (record_send) = field
 * count, then per field its type oid, int32 length (-1: NULL) and bytes.
 *
 * Nested values carry their own type oids (array elements, record fields); each
 * is checked against the spec before it is decoded, so the spec decides what a
 * value may become and the stream only which of the allowed forms it takes.
 * Recursion follows the spec, never the data: a value nests no deeper than its
 * column's type.
 */
#include "pg/copy.h"
#include "base/error.h"

#include <assert.h>
#include <string.h>

#define PG_EPOCH_DAYS 10957                      /* 1970-01-01 → 2000-01-01 */
#define PG_EPOCH_MICROS INT64_C(946684800000000)
#define NUMERIC_POS 0x0000
#define NUMERIC_NEG 0x4000

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const uint8_t *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

static int bad(const char *what)
{
	return floe_error_set(FLOE_ERR_CHECK, "%s", what);
}

static int want_len(int32_t len, int32_t expected, const char *type)
{
	if (len == expected)
		return 0;
	floe_error_set(FLOE_ERR_INTERNAL, "malformed %s value: %d bytes, expected %d", type, len, expected);
	return -1;
}

static int decode_date(floe_vector *v, const floe_pg_copy_column *c, const uint8_t *p)
{
	int32_t days = (int32_t)be32(p);
	if (days == INT32_MAX || days == INT32_MIN) {
		if (c->infinity != FLOE_PG_INFINITY_CLAMP)
			return bad("date infinity cannot be carried by an Iceberg date");
		floe_vector_append_i32(v, days);
		return 0;
	}
	if (days > INT32_MAX - PG_EPOCH_DAYS)
		return bad("date is past the last day an Iceberg date can hold");
	floe_vector_append_i32(v, days + PG_EPOCH_DAYS);
	return 0;
}

static int decode_timestamp(floe_vector *v, const floe_pg_copy_column *c, const uint8_t *p)
{
	int64_t us = (int64_t)be64(p);
	if (us == INT64_MAX || us == INT64_MIN) {
		if (c->infinity != FLOE_PG_INFINITY_CLAMP)
			return bad("timestamp infinity cannot be carried by an Iceberg timestamp");
		floe_vector_append_i64(v, us);
		return 0;
	}
	if (us > INT64_MAX - PG_EPOCH_MICROS)
		return bad("timestamp is past the last instant an Iceberg timestamp can hold");
	floe_vector_append_i64(v, us + PG_EPOCH_MICROS);
	return 0;
}

/* 128-bit helpers on the unsigned magnitude; overflow past 10^38 is an error. */
typedef unsigned __int128 u128;
static const u128 DEC38 = (u128)10000000000000000000ULL * (u128)10000000000000000000ULL; /* 10^38 */

static const uint32_t POW10[] = { 1, 10, 100, 1000, 10000 };

/* floor(10^38 / 10^k): the largest accumulator that a step by 10^k keeps within 10^38 * (constants:
 * the division is the compiler's, not the row's). */
static const u128 DEC38_DIV[] = { DEC38, DEC38 / 10, DEC38 / 100, DEC38 / 1000, DEC38 / 10000 };

/* Below this an accumulator times 10^4 plus 9999 still fits 64 bits: the common case, in 64-bit
 * arithmetic. */
#define ACC64_MAX (UINT64_MAX / 10000 - 1)

/* *acc = *acc * 10^k + add (k 1..4, add < 10^k), or an error past 10^38 — no 128-bit division. */
static int mul_add(u128 *acc, int k, uint32_t add)
{
	if (*acc <= ACC64_MAX) {
		*acc = (u128)((uint64_t)*acc * POW10[k] + add);
		return 0;
	}
	if (*acc > DEC38_DIV[k])
		return bad("numeric value has more than 38 digits");
	u128 next = *acc * POW10[k] + add;
	if (next > DEC38)
		return bad("numeric value has more than 38 digits");
	*acc = next;
	return 0;
}

/* Magnitude of a numeric at `scale` fractional digits, exact or an error. */
static int numeric_magnitude(u128 *out, const uint8_t *p, int ndigits, int weight, int scale)
{
	u128 acc = 0;
	int i = 0;
	for (; i < ndigits; i++) {
		uint16_t d = be16(p + 8 + 2 * i);
		int low = 4 * (weight - i); /* decimal exponent of the group's last digit */
		if (d > 9999)
			return bad("malformed numeric digit");
		if (low >= -scale) {
			if (mul_add(&acc, 4, d) < 0)
				return -1;
			continue;
		}
		int keep = low + 4 + scale; /* digits of this group at or above 10^-scale */
		if (keep <= 0)
			break;
		if (d % POW10[4 - keep] != 0)
			return bad("numeric value has more fractional digits than the column's scale");
		if (mul_add(&acc, keep, d / POW10[4 - keep]) < 0)
			return -1;
		i++;
		break;
	}
	for (; i < ndigits; i++)
		if (be16(p + 8 + 2 * i) != 0)
			return bad("numeric value has more fractional digits than the column's scale");
	/* Groups absent below the last one are zeros down to 10^-scale. */
	int last_low = ndigits ? 4 * (weight - ndigits + 1) : -scale;
	for (int e = last_low; e > -scale; e--)
		if (mul_add(&acc, 1, 0) < 0)
			return -1;
	*out = acc;
	return 0;
}

static int decode_numeric(floe_vector *v, const floe_pg_copy_column *c, const uint8_t *p, int32_t len)
{
	if (len < 8)
		return want_len(len, 8, "numeric");
	int ndigits = be16(p), weight = (int16_t)be16(p + 2), sign = be16(p + 4);
	if (len != 8 + 2 * ndigits)
		return want_len(len, 8 + 2 * ndigits, "numeric");
	if (sign != NUMERIC_POS && sign != NUMERIC_NEG)
		return bad("numeric NaN or infinity cannot be carried by an Iceberg decimal");
	u128 mag = 0;
	if (numeric_magnitude(&mag, p, ndigits, weight, c->scale) < 0)
		return -1;
	floe_dec128 x = { (uint64_t)mag, (int64_t)(mag >> 64) };
	if (sign == NUMERIC_NEG) {
		u128 neg = ~mag + 1;
		x.lo = (uint64_t)neg;
		x.hi = (int64_t)(neg >> 64);
	}
	if (c->precision > 0 && !floe_dec128_fits(x, c->precision))
		return bad("numeric value does not fit the column's precision");
	floe_vector_append_dec(v, x);
	return 0;
}

static int decode_money(floe_vector *v, const uint8_t *p)
{
	floe_vector_append_dec(v, floe_dec128_from_i64((int64_t)be64(p)));
	return 0;
}

static int decode_string(floe_vector *v, uint32_t oid, const uint8_t *p, int32_t len)
{
	if (oid == FLOE_PG_JSONBOID) {
		if (len < 1 || p[0] != 1)
			return bad("unknown jsonb binary version");
		p++;
		len--;
	}
	floe_vector_append_bytes(v, p, (size_t)len);
	return 0;
}

/* The vector type a scalar type decodes into; 0 for a type that is not one of them. */
static floe_vec_type scalar_vec(uint32_t oid)
{
	switch (oid) {
	case FLOE_PG_BOOLOID: return FLOE_VEC_BOOLEAN;
	case FLOE_PG_INT2OID:
	case FLOE_PG_INT4OID: return FLOE_VEC_INT;
	case FLOE_PG_INT8OID:
	case FLOE_PG_OIDOID: return FLOE_VEC_LONG;
	case FLOE_PG_FLOAT4OID: return FLOE_VEC_FLOAT;
	case FLOE_PG_FLOAT8OID: return FLOE_VEC_DOUBLE;
	case FLOE_PG_NUMERICOID:
	case FLOE_PG_MONEYOID: return FLOE_VEC_DECIMAL;
	case FLOE_PG_DATEOID: return FLOE_VEC_DATE;
	case FLOE_PG_TIMEOID: return FLOE_VEC_TIME;
	case FLOE_PG_TIMESTAMPOID: return FLOE_VEC_TIMESTAMP;
	case FLOE_PG_TIMESTAMPTZOID: return FLOE_VEC_TIMESTAMPTZ;
	case FLOE_PG_UUIDOID: return FLOE_VEC_UUID;
	case FLOE_PG_BYTEAOID: return FLOE_VEC_BINARY;
	case FLOE_PG_TEXTOID:
	case FLOE_PG_VARCHAROID:
	case FLOE_PG_BPCHAROID:
	case FLOE_PG_NAMEOID:
	case FLOE_PG_JSONOID:
	case FLOE_PG_JSONBOID:
	case FLOE_PG_XMLOID: return FLOE_VEC_STRING;
	default: return 0;
	}
}

/* The array types of the scalars above (and record[]), which no record can be. */
static bool scalar_array(uint32_t oid)
{
	static const uint32_t arrays[] = { 1000, 1001, 1003, 1005, 1007, 1009, 1014, 1015, 1016, 1021,
					   1022, 1028, 1115, 1182, 1183, 1185, 1231, 143, 199, 2287,
					   2951, 3807, 791 };
	for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++)
		if (arrays[i] == oid)
			return true;
	return false;
}

bool floe_pg_oid_decodes_into(uint32_t oid, floe_vec_type vec)
{
	if (oid == 0)
		return false;
	if (vec == FLOE_VEC_STRUCT) /* a record, or a composite type (whose oid only the catalog knows) */
		return oid == FLOE_PG_RECORDOID || (!scalar_vec(oid) && !scalar_array(oid));
	if (vec == FLOE_VEC_LIST)   /* an array type; its element type is checked per value */
		return oid != FLOE_PG_RECORDOID && !scalar_vec(oid);
	return scalar_vec(oid) == vec;
}

static int decode_value(floe_vector *v, const floe_pg_copy_column *c, uint32_t oid, const uint8_t *p,
			int32_t len);

static int decode_scalar(floe_vector *v, const floe_pg_copy_column *c, uint32_t oid, const uint8_t *p,
			 int32_t len)
{
	switch (oid) {
	case FLOE_PG_BOOLOID:
		if (want_len(len, 1, "boolean") < 0)
			return -1;
		floe_vector_append_bool(v, p[0] != 0);
		return 0;
	case FLOE_PG_INT2OID:
		if (want_len(len, 2, "smallint") < 0)
			return -1;
		floe_vector_append_i32(v, (int16_t)be16(p));
		return 0;
	case FLOE_PG_INT4OID:
		if (want_len(len, 4, "integer") < 0)
			return -1;
		floe_vector_append_i32(v, (int32_t)be32(p));
		return 0;
	case FLOE_PG_OIDOID:
		if (want_len(len, 4, "oid") < 0)
			return -1;
		floe_vector_append_i64(v, (int64_t)be32(p));
		return 0;
	case FLOE_PG_INT8OID:
		if (want_len(len, 8, "bigint") < 0)
			return -1;
		floe_vector_append_i64(v, (int64_t)be64(p));
		return 0;
	case FLOE_PG_FLOAT4OID: {
		if (want_len(len, 4, "real") < 0)
			return -1;
		uint32_t bits = be32(p);
		float f;
		memcpy(&f, &bits, 4);
		floe_vector_append_f32(v, f);
		return 0;
	}
	case FLOE_PG_FLOAT8OID: {
		if (want_len(len, 8, "double precision") < 0)
			return -1;
		uint64_t bits = be64(p);
		double d;
		memcpy(&d, &bits, 8);
		floe_vector_append_f64(v, d);
		return 0;
	}
	case FLOE_PG_NUMERICOID:
		return decode_numeric(v, c, p, len);
	case FLOE_PG_MONEYOID:
		return want_len(len, 8, "money") < 0 ? -1 : decode_money(v, p);
	case FLOE_PG_DATEOID:
		return want_len(len, 4, "date") < 0 ? -1 : decode_date(v, c, p);
	case FLOE_PG_TIMEOID:
		if (want_len(len, 8, "time") < 0)
			return -1;
		floe_vector_append_i64(v, (int64_t)be64(p));
		return 0;
	case FLOE_PG_TIMESTAMPOID:
	case FLOE_PG_TIMESTAMPTZOID:
		return want_len(len, 8, "timestamp") < 0 ? -1 : decode_timestamp(v, c, p);
	case FLOE_PG_UUIDOID:
		if (want_len(len, 16, "uuid") < 0)
			return -1;
		floe_vector_append_fixed(v, p);
		return 0;
	default: {
		/* bytea and the text-like types: their bytes (jsonb's after its version byte) */
		floe_vec_type sv = scalar_vec(oid);
		if (sv == FLOE_VEC_STRING || sv == FLOE_VEC_BINARY)
			return decode_string(v, oid, p, len);
		return floe_error_set(FLOE_ERR_INTERNAL, "no binary decoder for type oid %u", oid);
	}
	}
}

/* Whether a nested value of type `oid` may become what `c` says. */
static int check_nested(const floe_pg_copy_column *c, uint32_t oid, const char *what)
{
	if (c->type_oid ? oid == c->type_oid : floe_pg_oid_decodes_into(oid, c->vec))
		return 0;
	if (c->type_oid)
		return floe_error_set(FLOE_ERR_INTERNAL, "%s has type oid %u, expected %u", what, oid, c->type_oid);
	return floe_error_set(FLOE_ERR_INTERNAL, "%s has type oid %u, which floe cannot carry as %s", what, oid,
			      floe_vec_type_name(c->vec));
}

/* One-dimensional arrays become lists; NULL elements are null list elements. */
static int decode_array(floe_vector *v, const floe_pg_copy_column *c, const uint8_t *p, int32_t len)
{
	floe_pg_copy_column flat;
	const floe_pg_copy_column *ec = c->element;
	assert(v->type == FLOE_VEC_LIST && v->child);
	if (!ec) {
		flat = (floe_pg_copy_column){ .name = c->name, .type_oid = c->elem_oid, .vec = c->elem_vec,
					      .precision = c->elem_precision, .scale = c->elem_scale,
					      .infinity = c->infinity };
		ec = &flat;
	}
	if (len < 12)
		return want_len(len, 12, "array");
	int32_t ndim = (int32_t)be32(p);
	uint32_t elem = be32(p + 8);
	if (check_nested(ec, elem, "array element") < 0)
		return -1;
	if (ndim == 0) {
		floe_vector_append_list(v);
		return 0;
	}
	if (ndim != 1)
		return bad("multi-dimensional arrays cannot be carried by an Iceberg list");
	if (len < 20)
		return want_len(len, 20, "array");
	int32_t n = (int32_t)be32(p + 12);
	if (n < 0)
		return bad("malformed array dimension");
	int32_t lower = (int32_t)be32(p + 16);
	if (lower != 1) /* a list counts from its first element: the bound would be lost */
		return floe_error_set(FLOE_ERR_CHECK, "an array with lower bound %d (not 1) cannot be carried by an "
				      "Iceberg list", lower);
	size_t off = 20;
	for (int32_t i = 0; i < n; i++) {
		if ((size_t)len - off < 4)
			return bad("malformed array: truncated element");
		int32_t elen = (int32_t)be32(p + off);
		off += 4;
		if (elen >= 0 && (size_t)elen > (size_t)len - off)
			return bad("malformed array: element past the end");
		if (decode_value(v->child, ec, elem, p + off, elen) < 0)
			return -1;
		off += elen > 0 ? (size_t)elen : 0;
	}
	if (off != (size_t)len)
		return bad("malformed array: trailing bytes");
	floe_vector_append_list(v);
	return 0;
}

/* A record (a composite type's value, or ROW(…)) becomes a struct row: one value per field. */
static int decode_record(floe_vector *v, const floe_pg_copy_column *c, const uint8_t *p, int32_t len)
{
	assert(v->type == FLOE_VEC_STRUCT && v->n_children == c->n_fields);
	if (len < 4)
		return want_len(len, 4, "record");
	int32_t n = (int32_t)be32(p);
	if (n < 0 || (size_t)n != c->n_fields)
		return floe_error_set(FLOE_ERR_INTERNAL, "record has %d fields, expected %zu", n, c->n_fields);
	size_t off = 4;
	for (size_t i = 0; i < c->n_fields; i++) {
		const floe_pg_copy_column *fc = &c->fields[i];
		if ((size_t)len - off < 8)
			return bad("malformed record: truncated field");
		uint32_t oid = be32(p + off);
		int32_t flen = (int32_t)be32(p + off + 4);
		off += 8;
		if (flen >= 0 && (size_t)flen > (size_t)len - off)
			return bad("malformed record: field past the end");
		if (check_nested(fc, oid, "record field") < 0 || decode_value(&v->children[i], fc, oid, p + off, flen) < 0)
			return floe_error_context("in field \"%s\"", fc->name ? fc->name : "");
		off += flen > 0 ? (size_t)flen : 0;
	}
	if (off != (size_t)len)
		return bad("malformed record: trailing bytes");
	floe_vector_append_struct(v);
	return 0;
}

static int decode_value(floe_vector *v, const floe_pg_copy_column *c, uint32_t oid, const uint8_t *p,
			int32_t len)
{
	if (len < 0) {
		floe_vector_append_null(v);
		return 0;
	}
	switch (c->vec) {
	case FLOE_VEC_LIST: return decode_array(v, c, p, len);
	case FLOE_VEC_STRUCT: return decode_record(v, c, p, len);
	default: return decode_scalar(v, c, oid, p, len);
	}
}

int floe_pg_decode_field(floe_vector *v, const floe_pg_copy_column *c, const uint8_t *p, int32_t len)
{
	return decode_value(v, c, c->type_oid, p, len);
}

void floe_pg_copy_vector_init(floe_vector *v, const floe_pg_copy_column *c)
{
	if (c->vec == FLOE_VEC_STRUCT) {
		floe_vector_init_struct(v, c->n_fields);
		for (size_t i = 0; i < c->n_fields; i++)
			floe_pg_copy_vector_init(&v->children[i], &c->fields[i]);
		return;
	}
	if (c->vec == FLOE_VEC_LIST) {
		floe_pg_copy_column flat = { .vec = c->elem_vec, .precision = c->elem_precision,
					     .scale = c->elem_scale };
		floe_vector_init_list(v, FLOE_VEC_BOOLEAN, 0);
		floe_pg_copy_vector_init(v->child, c->element ? c->element : &flat);
		return;
	}
	floe_vector_init(v, c->vec, c->width);
	v->precision = c->precision;
	v->scale = c->scale;
}
