/*
 * test_bounds.c — the single-value binary serialization of bounds (spec Appendix D)
 * and truncated string / binary bounds.
 */
#include "harness.h"

#include "iceberg/data_file.h"

#include <math.h>

static bool bytes_are(const uint8_t *got, size_t n, const char *want, size_t wn)
{
	return n == wn && memcmp(got, want, n) == 0;
}

#define BYTES_ARE(got, n, lit) bytes_are(got, n, lit, sizeof(lit) - 1)

FLOE_TEST(iceberg_bounds_numbers)
{
	uint8_t b[16];
	int64_t i = 0;
	double d = 0;
	size_t n = floe_iceberg_bound_int(b, FLOE_ICEBERG_INT, -2);
	FLOE_CHECK(BYTES_ARE(b, n, "\xfe\xff\xff\xff"));
	FLOE_CHECK(floe_iceberg_bound_to_int(&i, FLOE_ICEBERG_INT, b, n) == 0 && i == -2);
	n = floe_iceberg_bound_int(b, FLOE_ICEBERG_LONG, 0x0102030405060708LL);
	FLOE_CHECK(BYTES_ARE(b, n, "\x08\x07\x06\x05\x04\x03\x02\x01"));
	n = floe_iceberg_bound_int(b, FLOE_ICEBERG_DATE, 19723); /* 2024-01-01 */
	FLOE_CHECK(BYTES_ARE(b, n, "\x0b\x4d\x00\x00"));
	n = floe_iceberg_bound_int(b, FLOE_ICEBERG_TIMESTAMPTZ, 1);
	FLOE_CHECK(n == 8 && b[0] == 1);
	FLOE_CHECK(floe_iceberg_bound_to_int(&i, FLOE_ICEBERG_LONG, b, 4) < 0);
	n = floe_iceberg_bound_real(b, FLOE_ICEBERG_DOUBLE, 1.0);
	FLOE_CHECK(BYTES_ARE(b, n, "\x00\x00\x00\x00\x00\x00\xf0\x3f"));
	n = floe_iceberg_bound_real(b, FLOE_ICEBERG_FLOAT, -0.0);
	FLOE_CHECK(BYTES_ARE(b, n, "\x00\x00\x00\x80"));
	FLOE_CHECK(floe_iceberg_bound_to_real(&d, FLOE_ICEBERG_FLOAT, b, n) == 0 && d == 0.0 && signbit(d));
	n = floe_iceberg_bound_bool(b, true);
	FLOE_CHECK(BYTES_ARE(b, n, "\x01"));
}

FLOE_TEST(iceberg_bounds_decimal_minimal)
{
	uint8_t b[16];
	size_t n = floe_iceberg_bound_decimal64(b, 0);
	FLOE_CHECK(BYTES_ARE(b, n, "\x00"));
	n = floe_iceberg_bound_decimal64(b, 127);
	FLOE_CHECK(BYTES_ARE(b, n, "\x7f"));
	n = floe_iceberg_bound_decimal64(b, 128);
	FLOE_CHECK(BYTES_ARE(b, n, "\x00\x80"));
	n = floe_iceberg_bound_decimal64(b, -1);
	FLOE_CHECK(BYTES_ARE(b, n, "\xff"));
	n = floe_iceberg_bound_decimal64(b, -129);
	FLOE_CHECK(BYTES_ARE(b, n, "\xff\x7f"));
	n = floe_iceberg_bound_decimal64(b, 600); /* 6.00 at scale 2 */
	FLOE_CHECK(BYTES_ARE(b, n, "\x02\x58"));
	/* A 16-byte FLBA (decimal(38)) shortens too. */
	static const uint8_t wide[16] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x0c };
	n = floe_iceberg_bound_decimal(b, wide, 16);
	FLOE_CHECK(BYTES_ARE(b, n, "\xfe\x0c"));
	FLOE_CHECK(floe_iceberg_bound_decimal(b, wide, 0) == 0);
}

FLOE_TEST(iceberg_bounds_truncated_strings)
{
	uint8_t b[64];
	size_t n = 0;
	const char *s = "abcdefghijklmnopqrstuvwxyz";
	n = floe_iceberg_bound_string_lower(b, s, strlen(s), 16);
	FLOE_CHECK(BYTES_ARE(b, n, "abcdefghijklmnop"));
	FLOE_CHECK(floe_iceberg_bound_string_upper(b, &n, s, strlen(s), 16) == 0);
	FLOE_CHECK(BYTES_ARE(b, n, "abcdefghijklmnoq"));
	/* Short values are their own bounds. */
	FLOE_CHECK(floe_iceberg_bound_string_upper(b, &n, "abc", 3, 16) == 0 && BYTES_ARE(b, n, "abc"));
	/* Code points, not bytes: "é" is one. The cut never splits a sequence. */
	const char *e = "\xc3\xa9\xc3\xa9\xc3\xa9";
	n = floe_iceberg_bound_string_lower(b, e, strlen(e), 2);
	FLOE_CHECK(BYTES_ARE(b, n, "\xc3\xa9\xc3\xa9"));
	FLOE_CHECK(floe_iceberg_bound_string_upper(b, &n, e, strlen(e), 2) == 0);
	FLOE_CHECK(BYTES_ARE(b, n, "\xc3\xa9\xc3\xaa"));
	/* U+10FFFF cannot grow: the one before it is incremented and it is dropped. */
	const char *m = "a\xf4\x8f\xbf\xbfzz";
	FLOE_CHECK(floe_iceberg_bound_string_upper(b, &n, m, strlen(m), 2) == 0);
	FLOE_CHECK(BYTES_ARE(b, n, "b"));
	const char *only = "\xf4\x8f\xbf\xbf\xf4\x8f\xbf\xbfx";
	FLOE_CHECK(floe_iceberg_bound_string_upper(b, &n, only, strlen(only), 2) < 0);
	/* Skipping the surrogate range: U+D7FF + 1 is U+E000. */
	const char *sur = "\xed\x9f\xbfz";
	FLOE_CHECK(floe_iceberg_bound_string_upper(b, &n, sur, strlen(sur), 1) == 0);
	FLOE_CHECK(BYTES_ARE(b, n, "\xee\x80\x80"));
}

FLOE_TEST(iceberg_bounds_truncated_binary)
{
	uint8_t b[8];
	size_t n = 0;
	FLOE_CHECK(floe_iceberg_bound_binary_upper(b, &n, (const uint8_t *)"\x01\xff\xff\x00", 4, 3) == 0);
	FLOE_CHECK(BYTES_ARE(b, n, "\x02"));
	FLOE_CHECK(floe_iceberg_bound_binary_upper(b, &n, (const uint8_t *)"\xff\xff\x00", 3, 2) < 0);
	n = floe_iceberg_bound_binary_lower(b, (const uint8_t *)"\x01\x02\x03", 3, 2);
	FLOE_CHECK(BYTES_ARE(b, n, "\x01\x02"));
}
