/*
 * test_thrift.c — the Thrift compact protocol: golden bytes, round trips of every wire type,
 * field-id deltas, list headers, skipping, and the limits that hold on hostile input.
 */
#include "harness.h"

#include "base/buf.h"
#include "format/thrift_compact.h"

#include <math.h>
#include <stdint.h>

static bool bytes_eq(const floe_buf *b, const char *hex)
{
	static const char digits[] = "0123456789abcdef";
	size_t n = strlen(hex) / 2;
	if (b->len != n)
		return false;
	for (size_t i = 0; i < n; i++) {
		uint8_t x = (uint8_t)b->ptr[i];
		if (hex[2 * i] != digits[x >> 4] || hex[2 * i + 1] != digits[x & 15])
			return false;
	}
	return true;
}

FLOE_TEST(thrift_golden_field_headers)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_thrift_writer w;
	floe_thrift_writer_init(&w, &b);
	floe_thrift_struct_begin(&w);
	floe_thrift_field_i32(&w, 1, 1);     /* delta 1, i32: 0x15, zigzag(1)=2 */
	floe_thrift_field_i64(&w, 3, -1);    /* delta 2, i64: 0x26, zigzag(-1)=1 */
	floe_thrift_field_bool(&w, 4, true); /* delta 1, true: 0x11 */
	floe_thrift_field_bool(&w, 5, false);/* delta 1, false: 0x12 */
	floe_thrift_field_i32(&w, 40, 300);  /* long form: 0x05, zigzag(40)=80=0x50, 600=0xd8 0x04 */
	floe_thrift_field_binary(&w, 41, "ab", 2); /* delta 1, binary: 0x18 02 61 62 */
	floe_thrift_struct_end(&w);
	FLOE_CHECK(floe_thrift_writer_finish(&w) == 0);
	FLOE_CHECK(bytes_eq(&b, "1502260111120550d804180261620" "0"));
	floe_buf_free(&b);
}

FLOE_TEST(thrift_golden_lists_and_structs)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_thrift_writer w;
	floe_thrift_writer_init(&w, &b);
	floe_thrift_struct_begin(&w);
	floe_thrift_field_list(&w, 1, FLOE_THRIFT_I32, 2); /* 0x19, (2<<4)|5 = 0x25 */
	floe_thrift_write_i32(&w, 0);
	floe_thrift_write_i32(&w, -2);
	floe_thrift_field_list(&w, 2, FLOE_THRIFT_I8, 15); /* 0x19, 0xf3, varint 15 */
	for (int i = 0; i < 15; i++)
		floe_thrift_write_i8(&w, (int8_t)i);
	floe_thrift_field_struct(&w, 3); /* 0x1c, then an empty struct: 0x00 */
	floe_thrift_struct_end(&w);
	floe_thrift_struct_end(&w);
	FLOE_CHECK(floe_thrift_writer_finish(&w) == 0);
	FLOE_CHECK(bytes_eq(&b, "19250003" "19f30f000102030405060708090a0b0c0d0e" "1c00" "00"));
	floe_buf_free(&b);
}

FLOE_TEST(thrift_round_trip_every_type)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_thrift_writer w;
	floe_thrift_writer_init(&w, &b);
	floe_thrift_struct_begin(&w);
	floe_thrift_field_i8(&w, 1, -128);
	floe_thrift_field_i16(&w, 2, INT16_MIN);
	floe_thrift_field_i32(&w, 3, INT32_MAX);
	floe_thrift_field_i64(&w, 20, INT64_MIN);
	floe_thrift_field_double(&w, 21, -0.5);
	floe_thrift_field_bool(&w, 5, true); /* ids may go down: long form */
	floe_thrift_field_struct(&w, 6);
	floe_thrift_field_i64(&w, 1, INT64_MAX);
	floe_thrift_struct_end(&w);
	floe_thrift_field_list(&w, 7, FLOE_THRIFT_BOOL_TRUE, 3);
	floe_thrift_write_bool(&w, true);
	floe_thrift_write_bool(&w, false);
	floe_thrift_write_bool(&w, true);
	floe_thrift_field_list(&w, 8, FLOE_THRIFT_BINARY, 20);
	for (int i = 0; i < 20; i++)
		floe_thrift_write_binary(&w, "xyz", (size_t)(i % 4));
	floe_thrift_struct_end(&w);
	FLOE_CHECK(floe_thrift_writer_finish(&w) == 0);

	floe_thrift_reader r;
	floe_thrift_reader_init(&r, b.ptr, b.len);
	FLOE_CHECK(floe_thrift_read_struct_begin(&r) == 0);
	int16_t id;
	int type;
	int8_t i8;
	int16_t i16;
	int32_t i32;
	int64_t i64;
	double d;
	bool flag;
	FLOE_CHECK(floe_thrift_read_field(&r, &id, &type) == 0 && id == 1 && type == FLOE_THRIFT_I8);
	FLOE_CHECK(floe_thrift_read_i8(&r, &i8) == 0 && i8 == -128);
	FLOE_CHECK(floe_thrift_read_field(&r, &id, &type) == 0 && id == 2 && type == FLOE_THRIFT_I16);
	FLOE_CHECK(floe_thrift_read_i16(&r, &i16) == 0 && i16 == INT16_MIN);
	FLOE_CHECK(floe_thrift_read_field(&r, &id, &type) == 0 && id == 3);
	FLOE_CHECK(floe_thrift_read_i32(&r, &i32) == 0 && i32 == INT32_MAX);
	FLOE_CHECK(floe_thrift_read_field(&r, &id, &type) == 0 && id == 20 && type == FLOE_THRIFT_I64);
	FLOE_CHECK(floe_thrift_read_i64(&r, &i64) == 0 && i64 == INT64_MIN);
	FLOE_CHECK(floe_thrift_read_field(&r, &id, &type) == 0 && id == 21);
	FLOE_CHECK(floe_thrift_read_double(&r, &d) == 0 && d == -0.5);
	FLOE_CHECK(floe_thrift_read_field(&r, &id, &type) == 0 && id == 5 && floe_thrift_type_is_bool(type));
	FLOE_CHECK(floe_thrift_read_bool(&r, &flag) == 0 && flag);
	FLOE_CHECK(floe_thrift_read_field(&r, &id, &type) == 0 && id == 6 && type == FLOE_THRIFT_STRUCT);
	FLOE_CHECK(floe_thrift_read_struct_begin(&r) == 0);
	FLOE_CHECK(floe_thrift_read_field(&r, &id, &type) == 0 && id == 1);
	FLOE_CHECK(floe_thrift_read_i64(&r, &i64) == 0 && i64 == INT64_MAX);
	FLOE_CHECK(floe_thrift_read_field(&r, &id, &type) == 0 && type == FLOE_THRIFT_STOP);
	FLOE_CHECK(floe_thrift_read_field(&r, &id, &type) == 0 && id == 7 && type == FLOE_THRIFT_LIST);
	int et;
	uint32_t n;
	FLOE_CHECK(floe_thrift_read_list_begin(&r, &et, &n) == 0 && n == 3 && floe_thrift_type_is_bool(et));
	bool bools[3];
	for (int i = 0; i < 3; i++)
		FLOE_CHECK(floe_thrift_read_bool(&r, &bools[i]) == 0);
	FLOE_CHECK(bools[0] && !bools[1] && bools[2]);
	/* The binary list is skipped as a whole. */
	FLOE_CHECK(floe_thrift_read_field(&r, &id, &type) == 0 && id == 8);
	FLOE_CHECK(floe_thrift_skip(&r, type) == 0);
	FLOE_CHECK(floe_thrift_read_field(&r, &id, &type) == 0 && type == FLOE_THRIFT_STOP);
	FLOE_CHECK(floe_thrift_reader_offset(&r) == b.len);
	FLOE_CHECK(floe_thrift_reader_error(&r, NULL) == NULL);
	floe_buf_free(&b);
}

FLOE_TEST(thrift_varints_at_the_limits)
{
	const int64_t values[] = { 0, 1, -1, 63, -64, 64, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN };
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		floe_buf b = FLOE_BUF_INIT;
		floe_thrift_writer w;
		floe_thrift_writer_init(&w, &b);
		floe_thrift_write_i64(&w, values[i]);
		floe_thrift_reader r;
		floe_thrift_reader_init(&r, b.ptr, b.len);
		int64_t v = 0;
		FLOE_CHECK(floe_thrift_read_i64(&r, &v) == 0 && v == values[i]);
		FLOE_CHECK(b.len <= 10);
		floe_buf_free(&b);
	}
}

static bool reader_fails(const uint8_t *data, size_t len, const char *needle)
{
	floe_thrift_reader r;
	floe_thrift_reader_init(&r, data, len);
	int rc = floe_thrift_skip(&r, FLOE_THRIFT_STRUCT);
	const char *why = floe_thrift_reader_error(&r, NULL);
	if (rc == 0 || !why || !strstr(why, needle)) {
		fprintf(stderr, "    rc %d, error %s\n", rc, why ? why : "(none)");
		return false;
	}
	/* Sticky: nothing reads after a failure. */
	int32_t v;
	return floe_thrift_read_i32(&r, &v) < 0;
}

FLOE_TEST(thrift_reader_refuses_hostile_input)
{
	/* A list claiming 2^31 elements in 3 bytes. */
	const uint8_t big_list[] = { 0x19, 0xF5, 0x80, 0x80, 0x80, 0x80, 0x08, 0x00 };
	FLOE_CHECK(reader_fails(big_list, sizeof(big_list), "list size"));
	/* A binary longer than what is left. */
	const uint8_t big_bin[] = { 0x18, 0x7F, 'a', 0x00 };
	FLOE_CHECK(reader_fails(big_bin, sizeof(big_bin), "binary length"));
	/* An eleven-byte varint. */
	const uint8_t long_varint[] = { 0x15, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01 };
	FLOE_CHECK(reader_fails(long_varint, sizeof(long_varint), "varint"));
	/* Truncated inside a struct. */
	const uint8_t truncated[] = { 0x15 };
	FLOE_CHECK(reader_fails(truncated, sizeof(truncated), "end of data"));
	/* An unknown type nibble. */
	const uint8_t bad_type[] = { 0x1D, 0x00 };
	FLOE_CHECK(reader_fails(bad_type, sizeof(bad_type), "unknown field type"));
	/* An i32 field whose value does not fit 32 bits. */
	floe_thrift_reader r;
	const uint8_t wide[] = { 0x80, 0x80, 0x80, 0x80, 0x20 };
	floe_thrift_reader_init(&r, wide, sizeof(wide));
	int32_t v;
	FLOE_CHECK(floe_thrift_read_i32(&r, &v) < 0);
}

FLOE_TEST(thrift_reader_limits_nesting)
{
	/* 1000 nested structs: field 1 of type struct, over and over. */
	uint8_t deep[1001];
	memset(deep, 0x1C, 1000);
	deep[1000] = 0;
	FLOE_CHECK(reader_fails(deep, sizeof(deep), "nest"));
	/* Nested lists of lists: 0x19 field, then list headers of lists. */
	uint8_t lists[1002];
	lists[0] = 0x19;
	memset(lists + 1, 0x19, 1000); /* (1 << 4) | LIST */
	lists[1001] = 0;
	FLOE_CHECK(reader_fails(lists, sizeof(lists), "nest"));
	/* The writer refuses to nest past the limit too. */
	floe_buf b = FLOE_BUF_INIT;
	floe_thrift_writer w;
	floe_thrift_writer_init(&w, &b);
	for (int i = 0; i < FLOE_THRIFT_MAX_DEPTH + 2; i++)
		floe_thrift_struct_begin(&w);
	FLOE_CHECK(floe_thrift_writer_finish(&w) < 0);
	floe_buf_free(&b);
}

FLOE_TEST(thrift_writer_reports_a_full_buffer)
{
	floe_buf b;
	floe_buf_init(&b, 8);
	floe_thrift_writer w;
	floe_thrift_writer_init(&w, &b);
	floe_thrift_struct_begin(&w);
	floe_thrift_field_binary(&w, 1, "0123456789", 10);
	floe_thrift_struct_end(&w);
	FLOE_CHECK(floe_thrift_writer_finish(&w) < 0);
	floe_buf_free(&b);
}
