/*
 * test_toml.c — targeted cases for the TOML reader: the API, positions of values
 * and keys, error positions and wording, limits, and hostile input.
 * Conformance as a whole is test_toml_corpus.c.
 */
#include "harness.h"

#include "base/buf.h"
#include "config/toml.h"

#include <math.h>
#include <stdlib.h>

static floe_toml_doc *parse_ok(const char *text)
{
	floe_toml_doc *doc = NULL;
	floe_toml_error err;
	if (floe_toml_parse(&doc, text, strlen(text), &err) < 0)
		fprintf(stderr, "    unexpected error %d:%d: %s\n", err.line, err.col, err.message);
	return doc;
}

/* Parse must fail at line:col with a message containing `needle`. */
static bool fails_at(const char *text, size_t len, int line, int col, const char *needle)
{
	floe_toml_doc *doc = NULL;
	floe_toml_error err;
	if (floe_toml_parse(&doc, text, len, &err) == 0) {
		floe_toml_free(doc);
		fprintf(stderr, "    accepted: %s\n", text);
		return false;
	}
	if (err.line != line || err.col != col || !strstr(err.message, needle)) {
		fprintf(stderr, "    got %d:%d: %s\n", err.line, err.col, err.message);
		return false;
	}
	return doc == NULL;
}

#define FAILS_AT(text, line, col, needle) FLOE_CHECK(fails_at(text, strlen(text), line, col, needle))

FLOE_TEST(toml_scalars)
{
	floe_toml_doc *doc = parse_ok("s = \"a\\tb\\u00e9\\U0001F600\"\n"
				      "i = -9223372036854775808\n"
				      "h = 0xDEAD_beef\n"
				      "f = 6.02e+23\n"
				      "n = -nan\n"
				      "b = true\n"
				      "z = \"nul\\u0000inside\"\n");
	const floe_toml_value *root = floe_toml_root(doc);
	floe_slice s = floe_toml_string(floe_toml_get(root, "s"));
	FLOE_CHECK(s.len == 3 + 2 + 4 && memcmp(s.ptr, "a\tb\xC3\xA9\xF0\x9F\x98\x80", s.len) == 0);
	FLOE_CHECK(floe_toml_int(floe_toml_get(root, "i")) == INT64_MIN);
	FLOE_CHECK(floe_toml_int(floe_toml_get(root, "h")) == 0xDEADBEEF);
	FLOE_CHECK(floe_toml_float(floe_toml_get(root, "f")) == 6.02e+23);
	FLOE_CHECK(isnan(floe_toml_float(floe_toml_get(root, "n"))));
	FLOE_CHECK(floe_toml_bool(floe_toml_get(root, "b")));
	FLOE_CHECK(floe_toml_string(floe_toml_get(root, "z")).len == 10);
	FLOE_CHECK(floe_toml_get(root, "missing") == NULL);
	FLOE_CHECK(floe_toml_get(floe_toml_get(root, "s"), "x") == NULL); /* not a table */
	FLOE_CHECK(floe_toml_get(NULL, "x") == NULL);
	FLOE_CHECK(floe_toml_count(floe_toml_get(root, "b")) == 0);
	FLOE_CHECK_STR(floe_toml_type_name(floe_toml_type_of(floe_toml_get(root, "h"))), "integer");
	floe_toml_free(doc);
}

FLOE_TEST(toml_datetimes)
{
	floe_toml_doc *doc = parse_ok("a = 1979-05-27T00:32:00.999999999-07:30\n"
				      "b = 1979-05-27 07:32:00\n"
				      "c = 2000-02-29\n"
				      "d = 23:59:60.5\n");
	const floe_toml_value *root = floe_toml_root(doc);
	floe_toml_datetime a = floe_toml_datetime_of(floe_toml_get(root, "a"));
	floe_toml_datetime d = floe_toml_datetime_of(floe_toml_get(root, "d"));
	FLOE_CHECK(floe_toml_type_of(floe_toml_get(root, "a")) == FLOE_TOML_DATETIME);
	FLOE_CHECK(a.year == 1979 && a.month == 5 && a.day == 27 && a.hour == 0 && a.minute == 32);
	FLOE_CHECK(a.nanosecond == 999999999 && a.has_offset && a.offset_minutes == -450);
	FLOE_CHECK(floe_toml_type_of(floe_toml_get(root, "b")) == FLOE_TOML_DATETIME_LOCAL);
	FLOE_CHECK(floe_toml_type_of(floe_toml_get(root, "c")) == FLOE_TOML_DATE_LOCAL);
	FLOE_CHECK(floe_toml_type_of(floe_toml_get(root, "d")) == FLOE_TOML_TIME_LOCAL);
	FLOE_CHECK(!d.has_date && d.has_time && d.second == 60 && d.nanosecond == 500000000);
	floe_toml_free(doc);
	FAILS_AT("x = 1900-02-29\n", 1, 5, "day is out of range");
	FAILS_AT("x = 07:32\n", 1, 5, "HH:MM:SS");
	FAILS_AT("x = 07:32:00Z\n", 1, 5, "local time");
}

FLOE_TEST(toml_key_order_and_positions)
{
	floe_toml_doc *doc = parse_ok("zeta = 1\n"
				      "alpha = { x = 1 }\n"
				      "\n"
				      "[server.http]\n"
				      "  port = 8080\n"
				      "[[jobs]]\n"
				      "name = 'a'\n"
				      "[[jobs]]\n"
				      "name = 'b'\n"
				      "[server]\n");
	const floe_toml_value *root = floe_toml_root(doc);
	const floe_toml_value *server = floe_toml_get(root, "server");
	const floe_toml_value *http = floe_toml_get(server, "http");
	const floe_toml_value *jobs = floe_toml_get(root, "jobs");
	FLOE_CHECK(floe_toml_count(root) == 4);
	FLOE_CHECK(floe_slice_eq_cstr(floe_toml_key_at(root, 0), "zeta"));
	FLOE_CHECK(floe_slice_eq_cstr(floe_toml_key_at(root, 1), "alpha"));
	FLOE_CHECK(floe_slice_eq_cstr(floe_toml_key_at(root, 2), "server"));
	FLOE_CHECK(floe_slice_eq_cstr(floe_toml_key_at(root, 3), "jobs"));
	/* alpha's value starts at its `{`, its key at column 1 */
	FLOE_CHECK(floe_toml_line(floe_toml_get(root, "alpha")) == 2);
	FLOE_CHECK(floe_toml_col(floe_toml_get(root, "alpha")) == 9);
	/* port: key at 5:3, value at 5:10 */
	FLOE_CHECK(floe_toml_key_line_at(http, 0) == 5 && floe_toml_key_col_at(http, 0) == 3);
	FLOE_CHECK(floe_toml_line(floe_toml_get(http, "port")) == 5);
	FLOE_CHECK(floe_toml_col(floe_toml_get(http, "port")) == 10);
	FLOE_CHECK(floe_toml_line(http) == 4 && floe_toml_col(http) == 1);
	/* server was made by [server.http] and defined later by [server] on line 10 */
	FLOE_CHECK(floe_toml_line(server) == 10);
	FLOE_CHECK(floe_toml_key_line_at(root, 2) == 10 && floe_toml_key_col_at(root, 2) == 2);
	FLOE_CHECK(floe_toml_count(jobs) == 2);
	FLOE_CHECK(floe_toml_line(floe_toml_value_at(jobs, 1)) == 8);
	FLOE_CHECK(floe_slice_eq_cstr(floe_toml_string(floe_toml_get(floe_toml_value_at(jobs, 1),
									"name")), "b"));
	floe_toml_free(doc);
}

FLOE_TEST(toml_implicit_key_position)
{
	floe_toml_doc *doc = parse_ok("# c\n"
				      "a.b.c = 1\n"
				      "[x . \"y\".z]\n");
	const floe_toml_value *root = floe_toml_root(doc);
	const floe_toml_value *x = floe_toml_get(root, "x");
	FLOE_CHECK(floe_toml_key_line_at(root, 0) == 2 && floe_toml_key_col_at(root, 0) == 1);
	FLOE_CHECK(floe_toml_key_line_at(floe_toml_get(root, "a"), 0) == 2);
	FLOE_CHECK(floe_toml_key_col_at(floe_toml_get(root, "a"), 0) == 3);
	FLOE_CHECK(floe_toml_key_line_at(x, 0) == 3 && floe_toml_key_col_at(x, 0) == 6);
	FLOE_CHECK(floe_toml_get(floe_toml_get(x, "y"), "z") != NULL);
	floe_toml_free(doc);
}

FLOE_TEST(toml_error_positions)
{
	FAILS_AT("a = 1\nb = 2\na = 3\n", 3, 1, "duplicate key `a` (first defined on line 1)");
	FAILS_AT("[t]\nx = 1\n[t]\n", 3, 2, "cannot define table `t`");
	FAILS_AT("name = value\n", 1, 8, "invalid value `value`");
	FAILS_AT("x = \"abc\n", 1, 9, "unterminated string");
	FAILS_AT("x = 1 2\n", 1, 7, "expected a newline or a comment");
	FAILS_AT("x = [1,,2]\n", 1, 8, "expected a value, found `,`");
	FAILS_AT("x = {a = 1,}\n", 1, 12, "trailing comma");
	FAILS_AT("x = {a = 1\n}\n", 1, 11, "newline in inline table");
	FAILS_AT("s = \"\\q\"\n", 1, 7, "invalid escape sequence `\\q`");
	FAILS_AT("s = \"\\uD800\"\n", 1, 6, "surrogate");
	FAILS_AT("i = 9223372036854775808\n", 1, 5, "out of range");
	FAILS_AT("i = 0x\n", 1, 5, "digits expected");
	FAILS_AT("f = 1e999\n", 1, 5, "out of range");
	FAILS_AT("a = {}\n[a.b]\n", 2, 2, "inline table");
	FAILS_AT("a = []\n[[a]]\n", 2, 3, "array value");
	FAILS_AT("[a.b]\n[a]\nb.c = 1\n", 3, 1, "cannot add dotted keys");
	/* columns count characters, not bytes */
	FAILS_AT("\"\xC3\xA9\xC3\xA9\" = x\n", 1, 8, "invalid value");
	FAILS_AT("# ok\r\nx = 1\ry = 2\n", 2, 6, "carriage return");
	FAILS_AT("x = 1 # \x01\n", 1, 9, "control character U+0001 in comment");
	FAILS_AT("x = \"\xff\"\n", 1, 6, "invalid utf-8");
	FAILS_AT("x = '\xed\xa0\x80'\n", 1, 6, "invalid utf-8"); /* encoded surrogate */
	FLOE_CHECK(fails_at("x = 1\n\0", 7, 2, 1, "nul byte"));
	FLOE_CHECK(fails_at("x = \"a\0b\"", 9, 1, 7, "nul byte"));
}

FLOE_TEST(toml_empty_and_bom)
{
	floe_toml_doc *doc = NULL;
	floe_toml_error err;
	FLOE_CHECK(floe_toml_parse(&doc, NULL, 0, &err) == 0);
	FLOE_CHECK(doc && floe_toml_count(floe_toml_root(doc)) == 0);
	floe_toml_free(doc);
	doc = parse_ok("\xEF\xBB\xBFk = 1\r\n");
	FLOE_CHECK(doc && floe_toml_key_col_at(floe_toml_root(doc), 0) == 1);
	floe_toml_free(doc);
	FLOE_CHECK(floe_toml_parse(&doc, "x = ", 4, NULL) < 0 && doc == NULL); /* NULL err is fine */
	floe_toml_free(NULL);
}

FLOE_TEST(toml_multiline_strings)
{
	floe_toml_doc *doc = parse_ok("a = \"\"\"\r\none\r\ntwo \\\r\n   three\"\"\"\n"
				      "b = '''x''''\n"
				      "c = \"\"\"q\"\"\"\"\"\n");
	const floe_toml_value *root = floe_toml_root(doc);
	FLOE_CHECK(floe_slice_eq_cstr(floe_toml_string(floe_toml_get(root, "a")), "one\ntwo three"));
	FLOE_CHECK(floe_slice_eq_cstr(floe_toml_string(floe_toml_get(root, "b")), "x'"));
	FLOE_CHECK(floe_slice_eq_cstr(floe_toml_string(floe_toml_get(root, "c")), "q\"\""));
	floe_toml_free(doc);
	FAILS_AT("a = '''x''''''\n", 1, 9, "too many quotes");
}

/* Nesting is limited so walkers cannot be driven into a stack overflow. */
FLOE_TEST(toml_depth_limit)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_toml_doc *doc = NULL;
	floe_toml_error err;
	floe_buf_puts(&b, "x = ");
	for (int i = 0; i < FLOE_TOML_MAX_DEPTH; i++)
		floe_buf_putc(&b, '[');
	for (int i = 0; i < FLOE_TOML_MAX_DEPTH; i++)
		floe_buf_putc(&b, ']');
	FLOE_CHECK(floe_toml_parse(&doc, b.ptr, b.len, &err) == 0);
	floe_toml_free(doc);
	floe_buf_clear(&b);
	floe_buf_puts(&b, "x = ");
	for (int i = 0; i < 100000; i++)
		floe_buf_puts(&b, "{a=[");
	FLOE_CHECK(floe_toml_parse(&doc, b.ptr, b.len, &err) < 0 && strstr(err.message, "nesting"));
	floe_buf_clear(&b);
	floe_buf_putc(&b, '[');
	for (int i = 0; i < FLOE_TOML_MAX_DEPTH + 1; i++)
		floe_buf_puts(&b, i ? ".k" : "k");
	floe_buf_puts(&b, "]\n");
	FLOE_CHECK(floe_toml_parse(&doc, b.ptr, b.len, &err) < 0);
	floe_buf_clear(&b);
	for (int i = 0; i < 100; i++)
		floe_buf_puts(&b, "[a]\n");
	FLOE_CHECK(floe_toml_parse(&doc, b.ptr, b.len, &err) < 0 && err.line == 2);
	floe_buf_free(&b);
}

/* Many keys in one table go through the hashed index; lookups and duplicates still work. */
FLOE_TEST(toml_large_table)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_toml_doc *doc = NULL;
	floe_toml_error err;
	char key[32];
	for (int i = 0; i < 5000; i++)
		floe_buf_printf(&b, "k%d = %d\n", i, i);
	FLOE_CHECK(floe_toml_parse(&doc, b.ptr, b.len, &err) == 0);
	FLOE_CHECK(floe_toml_count(floe_toml_root(doc)) == 5000);
	snprintf(key, sizeof(key), "k%d", 4321);
	FLOE_CHECK(floe_toml_int(floe_toml_get(floe_toml_root(doc), key)) == 4321);
	FLOE_CHECK(floe_slice_eq_cstr(floe_toml_key_at(floe_toml_root(doc), 4999), "k4999"));
	floe_toml_free(doc);
	floe_buf_puts(&b, "k77 = 0\n");
	FLOE_CHECK(floe_toml_parse(&doc, b.ptr, b.len, &err) < 0 && err.line == 5001);
	FLOE_CHECK(strstr(err.message, "first defined on line 78") != NULL);
	floe_buf_free(&b);
}
