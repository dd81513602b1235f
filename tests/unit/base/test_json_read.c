/*
 * test_json_read.c — the JSON reader: values, order, escapes, numbers, limits
 * and the errors it must raise.
 */
#include "harness.h"

#include "base/buf.h"
#include "base/json.h"

#include <stdint.h>

static floe_json_doc *json_ok(const char *text)
{
	floe_json_doc *doc = NULL;
	floe_json_error err;
	if (floe_json_parse(&doc, text, strlen(text), &err) < 0)
		fprintf(stderr, "    unexpected error at %zu: %s\n", err.offset, err.message);
	return doc;
}

/* Must fail at byte `offset` with a message containing `needle`. */
static bool json_fails(const char *text, size_t len, size_t offset, const char *needle)
{
	floe_json_doc *doc = NULL;
	floe_json_error err;
	if (floe_json_parse(&doc, text, len, &err) == 0) {
		floe_json_free(doc);
		fprintf(stderr, "    accepted: %.*s\n", (int)len, text);
		return false;
	}
	if (err.offset != offset || !strstr(err.message, needle)) {
		fprintf(stderr, "    got %zu: %s\n", err.offset, err.message);
		return false;
	}
	return doc == NULL;
}

#define JSON_FAILS(text, offset, needle) FLOE_CHECK(json_fails(text, strlen(text), offset, needle))

FLOE_TEST(json_read_values)
{
	floe_json_doc *doc = json_ok(" {\"z\": 1, \"a\": [true, false, null, -0.5e2, \"x\"],\n"
				     "  \"id\": 9223372036854775807, \"big\": 18446744073709551616,"
				     " \"o\": {}} ");
	const floe_json_value *root = floe_json_root(doc), *a = floe_json_get(root, "a");
	int64_t i = 0;
	FLOE_CHECK(floe_json_type_of(root) == FLOE_JSON_OBJECT && floe_json_count(root) == 5);
	FLOE_CHECK(floe_slice_eq_cstr(floe_json_key_at(root, 0), "z"));
	FLOE_CHECK(floe_slice_eq_cstr(floe_json_key_at(root, 1), "a"));
	FLOE_CHECK(floe_json_count(a) == 5);
	FLOE_CHECK(floe_json_bool(floe_json_value_at(a, 0)) && !floe_json_bool(floe_json_value_at(a, 1)));
	FLOE_CHECK(floe_json_type_of(floe_json_value_at(a, 2)) == FLOE_JSON_NULL);
	FLOE_CHECK(floe_json_number(floe_json_value_at(a, 3)) == -50.0);
	FLOE_CHECK(floe_json_int64(&i, floe_json_value_at(a, 3)) < 0);
	FLOE_CHECK(floe_slice_eq_cstr(floe_json_number_text(floe_json_value_at(a, 3)), "-0.5e2"));
	FLOE_CHECK(floe_json_int64(&i, floe_json_get(root, "id")) == 0 && i == INT64_MAX);
	FLOE_CHECK(floe_json_int64(&i, floe_json_get(root, "big")) < 0);
	FLOE_CHECK(floe_json_number(floe_json_get(root, "big")) == 18446744073709551616.0);
	FLOE_CHECK(floe_json_count(floe_json_get(root, "o")) == 0);
	FLOE_CHECK(floe_json_get(root, "nope") == NULL && floe_json_get(a, "z") == NULL);
	FLOE_CHECK(floe_json_offset(a) == 15);
	FLOE_CHECK_STR(floe_json_type_name(FLOE_JSON_ARRAY), "array");
	floe_json_free(doc);
	doc = json_ok("42");
	FLOE_CHECK(floe_json_int64(&i, floe_json_root(doc)) == 0 && i == 42);
	floe_json_free(doc);
}

FLOE_TEST(json_read_strings)
{
	floe_json_doc *doc = json_ok("[\"a\\\"\\\\\\/\\b\\f\\n\\r\\t\", \"\\u00e9\\ud83d\\ude00\","
				     " \"nul\\u0000\", \"\xE2\x82\xAC\"]");
	const floe_json_value *root = floe_json_root(doc);
	floe_slice s = floe_json_string(floe_json_value_at(root, 0));
	FLOE_CHECK(s.len == 9 && memcmp(s.ptr, "a\"\\/\b\f\n\r\t", 9) == 0);
	s = floe_json_string(floe_json_value_at(root, 1));
	FLOE_CHECK(s.len == 6 && memcmp(s.ptr, "\xC3\xA9\xF0\x9F\x98\x80", 6) == 0);
	FLOE_CHECK(floe_json_string(floe_json_value_at(root, 2)).len == 4);
	FLOE_CHECK(floe_slice_eq_cstr(floe_json_string(floe_json_value_at(root, 3)), "\xE2\x82\xAC"));
	floe_json_free(doc);
}

FLOE_TEST(json_read_errors)
{
	JSON_FAILS("", 0, "expected a value");
	JSON_FAILS("[1,]", 3, "expected a value");
	JSON_FAILS("{\"a\":1,}", 7, "member name");
	JSON_FAILS("{\"a\" 1}", 5, "`:`");
	JSON_FAILS("[1 2]", 3, "`,` or `]`");
	JSON_FAILS("01", 1, "end of input");
	JSON_FAILS("1.", 0, "malformed number");
	JSON_FAILS("-", 0, "malformed number");
	JSON_FAILS("1e", 0, "malformed number");
	JSON_FAILS("NaN", 0, "expected a value");
	JSON_FAILS("1e400", 0, "out of range");
	JSON_FAILS("\"a\nb\"", 2, "control character");
	JSON_FAILS("\"\\x\"", 1, "invalid escape");
	JSON_FAILS("\"\\ud800\"", 1, "high surrogate");
	JSON_FAILS("\"\\udc00\"", 1, "lone low surrogate");
	JSON_FAILS("\"\\u12\"", 5, "hex digit");
	JSON_FAILS("\"\xC0\xAF\"", 1, "invalid utf-8");
	JSON_FAILS("\"abc", 0, "unterminated");
	JSON_FAILS("{\"a\":1,\"b\":2,\"a\":3}", 13, "duplicate member name \"a\"");
	JSON_FAILS("true false", 5, "end of input");
	JSON_FAILS("// c\n1", 0, "expected a value");
	FLOE_CHECK(json_fails("[1,\0]", 5, 3, "expected a value"));
	floe_json_error err;
	floe_json_doc *doc = NULL;
	FLOE_CHECK(floe_json_parse(&doc, "[\n  x]", 6, &err) < 0 && err.line == 2 && err.col == 3);
	FLOE_CHECK(floe_json_parse(&doc, "{", 1, NULL) < 0 && doc == NULL);
	floe_json_free(NULL);
}

FLOE_TEST(json_read_limits)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_json_doc *doc = NULL;
	floe_json_error err;
	for (int i = 0; i < FLOE_JSON_MAX_DEPTH; i++)
		floe_buf_putc(&b, '[');
	for (int i = 0; i < FLOE_JSON_MAX_DEPTH; i++)
		floe_buf_putc(&b, ']');
	FLOE_CHECK(floe_json_parse(&doc, b.ptr, b.len, &err) == 0);
	floe_json_free(doc);
	floe_buf_clear(&b);
	for (int i = 0; i < 100000; i++)
		floe_buf_puts(&b, "{\"a\":[");
	FLOE_CHECK(floe_json_parse(&doc, b.ptr, b.len, &err) < 0 && strstr(err.message, "nesting"));
	/* a wide object: sorted index for lookups and duplicate detection */
	floe_buf_clear(&b);
	floe_buf_putc(&b, '{');
	for (int i = 0; i < 3000; i++)
		floe_buf_printf(&b, "%s\"k%d\":%d", i ? "," : "", i, i);
	floe_buf_putc(&b, '}');
	FLOE_CHECK(floe_json_parse(&doc, b.ptr, b.len, &err) == 0);
	FLOE_CHECK(floe_json_number(floe_json_get(floe_json_root(doc), "k2999")) == 2999);
	FLOE_CHECK(floe_slice_eq_cstr(floe_json_key_at(floe_json_root(doc), 10), "k10"));
	floe_json_free(doc);
	b.len--;
	floe_buf_puts(&b, ",\"k5\":0}");
	FLOE_CHECK(floe_json_parse(&doc, b.ptr, b.len, &err) < 0 && strstr(err.message, "\"k5\""));
	floe_buf_free(&b);
}
