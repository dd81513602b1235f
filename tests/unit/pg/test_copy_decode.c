/*
 * test_copy_decode.c — PostgreSQL binary values into vectors: exact, or refused.
 */
#include "harness.h"
#include "base/error.h"
#include "pg/copy.h"

#include <stdlib.h>
#include <string.h>

static size_t put16(uint8_t *p, uint16_t x)
{
	p[0] = (uint8_t)(x >> 8);
	p[1] = (uint8_t)x;
	return 2;
}

static size_t put32(uint8_t *p, uint32_t x)
{
	put16(p, (uint16_t)(x >> 16));
	put16(p + 2, (uint16_t)x);
	return 4;
}

/* PostgreSQL's numeric_send for a plain decimal literal like "-123.4500". */
static int32_t encode_numeric(uint8_t *out, const char *lit)
{
	int neg = lit[0] == '-';
	const char *s = lit + neg;
	const char *dot = strchr(s, '.');
	size_t ilen = dot ? (size_t)(dot - s) : strlen(s);
	const char *frac = dot ? dot + 1 : "";
	size_t flen = strlen(frac);
	/* Pad the integer part on the left and the fraction on the right to whole groups. */
	char digits[256] = { 0 };
	size_t ipad = (4 - ilen % 4) % 4, fpad = (4 - flen % 4) % 4;
	memset(digits, '0', ipad);
	memcpy(digits + ipad, s, ilen);
	memcpy(digits + ipad + ilen, frac, flen);
	memset(digits + ipad + ilen + flen, '0', fpad);
	size_t total = ipad + ilen + flen + fpad, ngroups = total / 4;
	int weight = (int)((ipad + ilen) / 4) - 1;
	uint16_t groups[64];
	for (size_t g = 0; g < ngroups; g++)
		groups[g] = (uint16_t)((digits[4 * g] - '0') * 1000 + (digits[4 * g + 1] - '0') * 100 +
				       (digits[4 * g + 2] - '0') * 10 + (digits[4 * g + 3] - '0'));
	size_t first = 0, last = ngroups;
	while (first < last && groups[first] == 0) {
		first++;
		weight--;
	}
	while (last > first && groups[last - 1] == 0)
		last--;
	size_t n = last - first, off = 0;
	if (n == 0)
		weight = 0;
	off += put16(out + off, (uint16_t)n);
	off += put16(out + off, (uint16_t)(int16_t)weight);
	off += put16(out + off, neg ? 0x4000 : 0);
	off += put16(out + off, (uint16_t)flen);
	for (size_t g = first; g < last; g++)
		off += put16(out + off, groups[g]);
	return (int32_t)off;
}

static int decode_numeric(floe_dec128 *out, const char *lit, int precision, int scale)
{
	uint8_t buf[256];
	int32_t len = encode_numeric(buf, lit);
	floe_vector v;
	floe_vector_init(&v, FLOE_VEC_DECIMAL, 0);
	floe_pg_copy_column c = { .name = "n", .type_oid = FLOE_PG_NUMERICOID, .vec = FLOE_VEC_DECIMAL,
				  .precision = precision, .scale = scale };
	floe_error_clear();
	int rc = floe_pg_decode_field(&v, &c, buf, len);
	if (rc == 0)
		*out = v.v.dec[0];
	floe_vector_free(&v);
	return rc;
}

static bool numeric_is(const char *lit, int precision, int scale, int64_t want)
{
	floe_dec128 got;
	if (decode_numeric(&got, lit, precision, scale) < 0)
		return false;
	return floe_dec128_cmp(got, floe_dec128_from_i64(want)) == 0;
}

FLOE_TEST(copy_numeric_exact_at_scale)
{
	FLOE_CHECK(numeric_is("123.45", 10, 2, 12345));
	FLOE_CHECK(numeric_is("-0.01", 10, 2, -1));
	FLOE_CHECK(numeric_is("0", 10, 2, 0));
	FLOE_CHECK(numeric_is("100000000", 12, 0, 100000000));
	FLOE_CHECK(numeric_is("12.5", 10, 3, 12500));
	FLOE_CHECK(numeric_is("0.0001", 10, 4, 1));
	FLOE_CHECK(numeric_is("0.0001", 10, 6, 100));
	FLOE_CHECK(numeric_is("99999999.99", 10, 2, 9999999999));
	FLOE_CHECK(numeric_is("-12345678901234.5678", 18, 4, INT64_C(-123456789012345678)));
}

FLOE_TEST(copy_numeric_refuses_loss)
{
	floe_dec128 got;
	FLOE_CHECK(decode_numeric(&got, "1.005", 10, 2) < 0);
	FLOE_CHECK(strstr(floe_error_last()->message, "fractional digits") != NULL);
	FLOE_CHECK(decode_numeric(&got, "12345.6", 5, 1) < 0);
	FLOE_CHECK(strstr(floe_error_last()->message, "precision") != NULL);
	FLOE_CHECK(decode_numeric(&got, "1234567890123456789012345678901234567890", 0, 0) < 0);
}

FLOE_TEST(copy_numeric_38_digits)
{
	floe_dec128 got;
	FLOE_CHECK(decode_numeric(&got, "99999999999999999999999999999999999999", 38, 0) == 0);
	FLOE_CHECK(floe_dec128_fits(got, 38) && !floe_dec128_fits(got, 37));
	FLOE_CHECK(decode_numeric(&got, "-9999999999999999999.9999999999999999999", 38, 19) == 0);
	FLOE_CHECK(got.hi < 0);
}

/* The unscaled value of a decimal literal at `scale`, by schoolbook arithmetic (digits only). */
static void unscaled_of(floe_dec128 *out, const char *lit, int scale)
{
	__extension__ unsigned __int128 acc = 0;
	int frac = -1;
	for (const char *p = lit + (lit[0] == '-'); *p; p++) {
		if (*p == '.') {
			frac = 0;
			continue;
		}
		acc = acc * 10 + (unsigned)(*p - '0');
		frac += frac >= 0;
	}
	for (int k = frac < 0 ? 0 : frac; k < scale; k++)
		acc *= 10;
	if (lit[0] == '-')
		acc = ~acc + 1;
	out->lo = (uint64_t)acc;
	out->hi = (int64_t)(acc >> 64);
}

FLOE_TEST(copy_numeric_across_the_64_bit_boundary)
{
	/* Values on both sides of 2^64 and of 10^19, up to 38 digits, at several scales: the
	 * 64-bit fast path hands over to 128 bits exactly. */
	static const struct { const char *lit; int precision, scale; } cases[] = {
		{ "18446744073709551615", 38, 0 }, { "18446744073709551616", 38, 0 },
		{ "-18446744073709551617", 38, 0 }, { "9999999999999999999", 19, 0 },
		{ "10000000000000000000", 20, 0 }, { "1844674407370955.1615", 38, 4 },
		{ "1844674407370955.16", 38, 6 }, { "-922337203685477580.8", 38, 1 },
		{ "12345678901234567890123456789.123456789", 38, 9 },
		{ "-99999999999999999999999999999999999999", 38, 0 }, { "0.00000000000000000001", 38, 20 },
		{ "1", 38, 37 }, { "123456789012345678901.2", 38, 3 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		floe_dec128 got, want;
		unscaled_of(&want, cases[i].lit, cases[i].scale);
		FLOE_CHECK(decode_numeric(&got, cases[i].lit, cases[i].precision, cases[i].scale) == 0);
		if (got.lo != want.lo || got.hi != want.hi)
			floe_test_fail(__FILE__, __LINE__, cases[i].lit);
	}
	floe_dec128 got;
	/* 10^38 itself is the last value a 38-digit accumulator reaches; one more digit is refused. */
	FLOE_CHECK(decode_numeric(&got, "100000000000000000000000000000000000000", 0, 0) == 0);
	FLOE_CHECK(decode_numeric(&got, "100000000000000000000000000000000000001", 0, 0) < 0);
	FLOE_CHECK(decode_numeric(&got, "99999999999999999999999999999999999999.9", 0, 1) < 0);
	FLOE_CHECK(strstr(floe_error_last()->message, "38 digits") != NULL);
	FLOE_CHECK(decode_numeric(&got, "99999999999999999999", 19, 0) < 0); /* 20 digits in 19 */
}

FLOE_TEST(copy_numeric_nan_is_refused)
{
	uint8_t buf[8] = { 0, 0, 0, 0, 0xC0, 0, 0, 0 };
	floe_vector v;
	floe_vector_init(&v, FLOE_VEC_DECIMAL, 0);
	floe_pg_copy_column c = { .name = "n", .type_oid = FLOE_PG_NUMERICOID, .vec = FLOE_VEC_DECIMAL,
				  .precision = 10, .scale = 2 };
	FLOE_CHECK(floe_pg_decode_field(&v, &c, buf, 8) < 0);
	FLOE_CHECK(strstr(floe_error_last()->message, "NaN") != NULL);
	floe_vector_free(&v);
}

FLOE_TEST(copy_dates_and_timestamps_move_to_the_unix_epoch)
{
	uint8_t buf[8];
	floe_vector d, t;
	floe_vector_init(&d, FLOE_VEC_DATE, 0);
	floe_vector_init(&t, FLOE_VEC_TIMESTAMPTZ, 0);
	floe_pg_copy_column dc = { .name = "d", .type_oid = FLOE_PG_DATEOID, .vec = FLOE_VEC_DATE };
	floe_pg_copy_column tc = { .name = "t", .type_oid = FLOE_PG_TIMESTAMPTZOID, .vec = FLOE_VEC_TIMESTAMPTZ };
	put32(buf, 0);
	FLOE_CHECK(floe_pg_decode_field(&d, &dc, buf, 4) == 0 && d.v.i32[0] == 10957);
	put32(buf, (uint32_t)-10957);
	FLOE_CHECK(floe_pg_decode_field(&d, &dc, buf, 4) == 0 && d.v.i32[1] == 0);
	put32(buf, 0x7fffffff);
	FLOE_CHECK(floe_pg_decode_field(&d, &dc, buf, 4) < 0); /* infinity refused by default */
	dc.infinity = FLOE_PG_INFINITY_CLAMP;
	FLOE_CHECK(floe_pg_decode_field(&d, &dc, buf, 4) == 0 && d.v.i32[2] == INT32_MAX);
	memset(buf, 0, 8);
	FLOE_CHECK(floe_pg_decode_field(&t, &tc, buf, 8) == 0 && t.v.i64[0] == INT64_C(946684800000000));
	FLOE_CHECK(floe_pg_decode_field(&t, &tc, buf, -1) == 0 && !floe_vector_is_valid(&t, 1));
	floe_vector_free(&d);
	floe_vector_free(&t);
}

FLOE_TEST(copy_int_array_becomes_a_list)
{
	uint8_t buf[64];
	size_t off = 0;
	off += put32(buf + off, 1);           /* ndim */
	off += put32(buf + off, 1);           /* has nulls */
	off += put32(buf + off, FLOE_PG_INT4OID);
	off += put32(buf + off, 3);           /* size */
	off += put32(buf + off, 1);           /* lower bound */
	off += put32(buf + off, 4);
	off += put32(buf + off, 7);
	off += put32(buf + off, (uint32_t)-1); /* NULL */
	off += put32(buf + off, 4);
	off += put32(buf + off, (uint32_t)-9);
	floe_vector v;
	floe_vector_init_list(&v, FLOE_VEC_INT, 0);
	floe_pg_copy_column c = { .name = "a", .type_oid = 1007, .vec = FLOE_VEC_LIST,
				  .elem_oid = FLOE_PG_INT4OID, .elem_vec = FLOE_VEC_INT };
	FLOE_CHECK(floe_pg_decode_field(&v, &c, buf, (int32_t)off) == 0);
	FLOE_CHECK(v.len == 1 && v.offsets[1] == 3 && v.child->len == 3);
	FLOE_CHECK(v.child->v.i32[0] == 7 && !floe_vector_is_valid(v.child, 1) && v.child->v.i32[2] == -9);
	FLOE_CHECK(floe_pg_decode_field(&v, &c, buf, (int32_t)off - 1) < 0); /* truncated */
	floe_error_clear();
	put32(buf + 16, 0); /* '[0:2]={7,NULL,-9}': a list would lose the bound */
	FLOE_CHECK(floe_pg_decode_field(&v, &c, buf, (int32_t)off) < 0 && v.len == 1);
	FLOE_CHECK(floe_error_last() && strstr(floe_error_last()->message, "lower bound 0") != NULL);
	floe_error_clear();
	floe_vector_free(&v);
}

FLOE_TEST(copy_malformed_lengths_are_errors)
{
	uint8_t buf[16] = { 0 };
	floe_vector v;
	floe_vector_init(&v, FLOE_VEC_LONG, 0);
	floe_pg_copy_column c = { .name = "x", .type_oid = FLOE_PG_INT8OID, .vec = FLOE_VEC_LONG };
	FLOE_CHECK(floe_pg_decode_field(&v, &c, buf, 4) < 0);
	FLOE_CHECK(floe_pg_decode_field(&v, &c, buf, 8) == 0);
	floe_vector_free(&v);
}

/* ---- records (composite types, ROW(...)) into structs ---- */

/* A record_send field: type oid, length (-1: NULL), bytes. */
static size_t put_field(uint8_t *p, uint32_t oid, const void *bytes, int32_t len)
{
	size_t off = put32(p, oid);
	off += put32(p + off, (uint32_t)len);
	if (len > 0)
		memcpy(p + off, bytes, (size_t)len);
	return off + (len > 0 ? (size_t)len : 0);
}

/* addr: (street text, zip int4, tags text[]) */
static const floe_pg_copy_column ADDR_TAGS = { .name = "element", .vec = FLOE_VEC_STRING };
static const floe_pg_copy_column ADDR_FIELDS[] = {
	{ .name = "street", .vec = FLOE_VEC_STRING },
	{ .name = "zip", .vec = FLOE_VEC_INT },
	{ .name = "tags", .vec = FLOE_VEC_LIST, .element = &ADDR_TAGS },
};
static const floe_pg_copy_column ADDR = { .name = "home", .type_oid = 70001, .vec = FLOE_VEC_STRUCT,
					  .fields = ADDR_FIELDS, .n_fields = 3 };

/* An addr record: street (NULL when NULL), zip, tags {"x", NULL} unless !with_tags (NULL). */
static size_t encode_addr(uint8_t *out, const char *street, int32_t zip, bool with_tags)
{
	uint8_t zipb[4], arr[64];
	size_t off = put32(out, 3), a = 0;
	put32(zipb, (uint32_t)zip);
	a += put32(arr + a, 1);
	a += put32(arr + a, 1);
	a += put32(arr + a, FLOE_PG_TEXTOID);
	a += put32(arr + a, 2);
	a += put32(arr + a, 1);
	a += put32(arr + a, 1);
	arr[a++] = 'x';
	a += put32(arr + a, (uint32_t)-1);
	off += put_field(out + off, FLOE_PG_VARCHAROID, street, street ? (int32_t)strlen(street) : -1);
	off += put_field(out + off, FLOE_PG_INT4OID, zipb, 4);
	off += put_field(out + off, 1009, arr, with_tags ? (int32_t)a : -1);
	return off;
}

FLOE_TEST(copy_records_become_structs_null_records_apart_from_records_of_nulls)
{
	uint8_t buf[256];
	floe_vector v;
	floe_pg_copy_vector_init(&v, &ADDR);
	FLOE_CHECK(v.type == FLOE_VEC_STRUCT && v.n_children == 3 && v.children[2].type == FLOE_VEC_LIST);
	size_t n = encode_addr(buf, "Main ☃", 12345, true);
	FLOE_CHECK(floe_pg_decode_field(&v, &ADDR, buf, (int32_t)n) == 0);
	FLOE_CHECK(floe_pg_decode_field(&v, &ADDR, NULL, -1) == 0); /* a NULL record */
	static const uint32_t oids[] = { FLOE_PG_TEXTOID, FLOE_PG_INT4OID, 1009 };
	size_t m = put32(buf, 3); /* a record of NULLs: each field still carries its type */
	for (int i = 0; i < 3; i++)
		m += put_field(buf + m, oids[i], NULL, -1);
	FLOE_CHECK(floe_pg_decode_field(&v, &ADDR, buf, (int32_t)m) == 0);
	FLOE_CHECK(v.len == 3 && v.children[0].len == 3 && v.children[1].len == 3 && v.children[2].len == 3);
	size_t len;
	const uint8_t *street = floe_vector_bytes(&v.children[0], 0, &len);
	FLOE_CHECK(len == strlen("Main ☃") && memcmp(street, "Main ☃", len) == 0);
	FLOE_CHECK(v.children[1].v.i32[0] == 12345);
	const floe_vector *tags = &v.children[2];
	FLOE_CHECK(tags->offsets[1] == 2 && tags->child->len == 2 && !floe_vector_is_valid(tags->child, 1));
	FLOE_CHECK(!floe_vector_is_valid(&v, 1) && !floe_vector_is_valid(&v.children[1], 1));
	FLOE_CHECK(floe_vector_is_valid(&v, 2));
	for (size_t k = 0; k < 3; k++)
		FLOE_CHECK(!floe_vector_is_valid(&v.children[k], 2));
	floe_vector_free(&v);
}

FLOE_TEST(copy_nested_records_and_arrays_of_records)
{
	/* wrap: (a addr, n numeric(10,2)); list: addr[] (element oid from the stream) */
	static const floe_pg_copy_column wrap_fields[] = {
		{ .name = "a", .vec = FLOE_VEC_STRUCT, .fields = ADDR_FIELDS, .n_fields = 3 },
		{ .name = "n", .vec = FLOE_VEC_DECIMAL, .precision = 10, .scale = 2 },
	};
	static const floe_pg_copy_column wrap = { .name = "w", .type_oid = FLOE_PG_RECORDOID,
						  .vec = FLOE_VEC_STRUCT, .fields = wrap_fields, .n_fields = 2 };
	static const floe_pg_copy_column elem = { .name = "element", .type_oid = 70001, .vec = FLOE_VEC_STRUCT,
						  .fields = ADDR_FIELDS, .n_fields = 3 };
	static const floe_pg_copy_column homes = { .name = "homes", .type_oid = 70002, .vec = FLOE_VEC_LIST,
						   .element = &elem };
	uint8_t rec[128], num[64], buf[512];
	size_t r = encode_addr(rec, "A", 1, false);
	int32_t nl = encode_numeric(num, "-12.5");
	size_t off = put32(buf, 2);
	off += put_field(buf + off, 70001, rec, (int32_t)r);
	off += put_field(buf + off, FLOE_PG_NUMERICOID, num, nl);
	floe_vector w;
	floe_pg_copy_vector_init(&w, &wrap);
	FLOE_CHECK(floe_pg_decode_field(&w, &wrap, buf, (int32_t)off) == 0);
	FLOE_CHECK(w.len == 1 && w.children[0].len == 1 && w.children[0].children[2].len == 1);
	FLOE_CHECK(!floe_vector_is_valid(&w.children[0].children[2], 0)); /* tags NULL */
	FLOE_CHECK(floe_dec128_cmp(w.children[1].v.dec[0], floe_dec128_from_i64(-1250)) == 0);
	floe_vector_free(&w);

	/* {addr, NULL}: the array's element oid must be the spec's */
	off = 0;
	off += put32(buf + off, 1);
	off += put32(buf + off, 1);
	off += put32(buf + off, 70001);
	off += put32(buf + off, 2);
	off += put32(buf + off, 1);
	off += put32(buf + off, (uint32_t)r);
	memcpy(buf + off, rec, r);
	off += r;
	off += put32(buf + off, (uint32_t)-1);
	floe_vector l;
	floe_pg_copy_vector_init(&l, &homes);
	FLOE_CHECK(floe_pg_decode_field(&l, &homes, buf, (int32_t)off) == 0);
	FLOE_CHECK(l.len == 1 && l.offsets[1] == 2 && l.child->len == 2 && !floe_vector_is_valid(l.child, 1));
	FLOE_CHECK(l.child->children[1].v.i32[0] == 1);
	put32(buf + 8, 70003);
	FLOE_CHECK(floe_pg_decode_field(&l, &homes, buf, (int32_t)off) < 0);
	FLOE_CHECK(strstr(floe_error_last()->message, "expected 70001") != NULL);
	floe_error_clear();
	floe_vector_free(&l);
}

FLOE_TEST(copy_records_that_do_not_match_the_plan_are_refused)
{
	uint8_t buf[256];
	floe_vector v;
	floe_pg_copy_vector_init(&v, &ADDR);
	size_t n = encode_addr(buf, "s", 7, true);
	/* zip arrives as text: not what the plan's int can carry */
	put32(buf + 4 + 8 + 1, FLOE_PG_TEXTOID);
	FLOE_CHECK(floe_pg_decode_field(&v, &ADDR, buf, (int32_t)n) < 0);
	const floe_error *e = floe_error_last();
	FLOE_CHECK(e && strstr(e->message, "type oid 25") && strstr(e->message, "as int"));
	floe_error_clear();
	floe_vector_free(&v);
	floe_pg_copy_vector_init(&v, &ADDR);
	n = encode_addr(buf, "s", 7, true);
	put32(buf, 2); /* the field count */
	FLOE_CHECK(floe_pg_decode_field(&v, &ADDR, buf, (int32_t)n) < 0);
	floe_error_clear();
	put32(buf, 3);
	FLOE_CHECK(floe_pg_decode_field(&v, &ADDR, buf, (int32_t)n + 1) < 0); /* trailing byte */
	floe_error_clear();
	for (size_t cut = 0; cut < n; cut++) /* every truncation */
		FLOE_CHECK(floe_pg_decode_field(&v, &ADDR, buf, (int32_t)cut) < 0);
	floe_error_clear();
	floe_vector_free(&v);
	/* The oid table: what decodes into what. */
	FLOE_CHECK(floe_pg_oid_decodes_into(FLOE_PG_INT2OID, FLOE_VEC_INT));
	FLOE_CHECK(!floe_pg_oid_decodes_into(FLOE_PG_INT8OID, FLOE_VEC_INT));
	FLOE_CHECK(!floe_pg_oid_decodes_into(FLOE_PG_TIMESTAMPOID, FLOE_VEC_TIMESTAMPTZ));
	FLOE_CHECK(!floe_pg_oid_decodes_into(FLOE_PG_TIMETZOID, FLOE_VEC_TIME));
	FLOE_CHECK(floe_pg_oid_decodes_into(FLOE_PG_RECORDOID, FLOE_VEC_STRUCT));
	FLOE_CHECK(floe_pg_oid_decodes_into(70001, FLOE_VEC_STRUCT));
	FLOE_CHECK(!floe_pg_oid_decodes_into(FLOE_PG_TEXTOID, FLOE_VEC_STRUCT));
	FLOE_CHECK(!floe_pg_oid_decodes_into(1007, FLOE_VEC_STRUCT));
	FLOE_CHECK(floe_pg_oid_decodes_into(1007, FLOE_VEC_LIST) && !floe_pg_oid_decodes_into(FLOE_PG_RECORDOID, FLOE_VEC_LIST));
	FLOE_CHECK(!floe_pg_oid_decodes_into(0, FLOE_VEC_STRUCT));
}
