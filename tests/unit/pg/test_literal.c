/*
 * test_literal.c — vector values as PostgreSQL text input.
 */
#include "harness.h"
#include "base/buf.h"
#include "pg/copy.h"

static const char *text_of(floe_buf *b, const floe_vector *v, size_t row)
{
	floe_buf_clear(b);
	return floe_pg_value_text(b, v, row) == 0 ? floe_buf_cstr(b) : "(error)";
}

FLOE_TEST(pg_value_text_of_key_types)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_vector d;
	floe_vector_init(&d, FLOE_VEC_DECIMAL, 0);
	d.scale = 2;
	floe_vector_append_dec(&d, floe_dec128_from_i64(12345));
	floe_vector_append_dec(&d, floe_dec128_from_i64(-5));
	floe_vector_append_dec(&d, floe_dec128_from_i64(0));
	FLOE_CHECK_STR(text_of(&b, &d, 0), "123.45");
	FLOE_CHECK_STR(text_of(&b, &d, 1), "-0.05");
	FLOE_CHECK_STR(text_of(&b, &d, 2), "0.00");
	d.scale = 0;
	FLOE_CHECK_STR(text_of(&b, &d, 1), "-5");
	floe_vector_free(&d);

	floe_vector u;
	floe_vector_init(&u, FLOE_VEC_UUID, 16);
	floe_vector_append_fixed(&u, "\xa0\xee\xbc\x99\x9c\x0b\x4e\xf8\xbb\x6d\x6b\xb9\xbd\x38\x0a\x11");
	FLOE_CHECK_STR(text_of(&b, &u, 0), "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
	floe_vector_free(&u);

	floe_vector t;
	floe_vector_init(&t, FLOE_VEC_TIMESTAMPTZ, 0);
	floe_vector_append_i64(&t, 1);
	FLOE_CHECK_STR(text_of(&b, &t, 0), "1970-01-01 00:00:00.000001+00");
	floe_vector_free(&t);

	floe_vector bin;
	floe_vector_init(&bin, FLOE_VEC_BINARY, 0);
	floe_vector_append_bytes(&bin, "\x00\xff", 2);
	floe_vector_append_null(&bin);
	FLOE_CHECK_STR(text_of(&b, &bin, 0), "\\x00ff");
	FLOE_CHECK_STR(text_of(&b, &bin, 1), "(error)");
	floe_vector_free(&bin);
	floe_buf_free(&b);
}
