/*
 * test_json_write.c — the JSON writer always produces valid JSON: the string and
 * member helpers, and the structured writer (commas, pretty and one-line
 * containers, escaping, output that reads back).
 */
#include "harness.h"
#include "base/json.h"

FLOE_TEST(json_write_escapes_and_replaces_invalid_utf8)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_json_put_string(&b, "a\"b\\c\n\x01\xc3\xa9\xff", 10);
	FLOE_CHECK_STR(floe_buf_cstr(&b), "\"a\\\"b\\\\c\\n\\u0001\xc3\xa9\xef\xbf\xbd\"");
	floe_buf_free(&b);
}

FLOE_TEST(json_write_members)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_buf_putc(&b, '{');
	floe_json_put_member(&b, "a", "1");
	floe_json_put_member(&b, "b", NULL);
	floe_buf_putc(&b, '}');
	FLOE_CHECK_STR(floe_buf_cstr(&b), "{\"a\":\"1\",\"b\":null}");
	floe_buf_free(&b);
}

FLOE_TEST(json_writer_compact)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_json_writer w;
	floe_json_write_init(&w, &b, false);
	floe_json_write_begin_object(&w, false);
	floe_json_write_member_cstr(&w, "a", "x\"y");
	floe_json_write_key(&w, "b");
	floe_json_write_begin_array(&w, false);
	floe_json_write_int(&w, -3);
	floe_json_write_bool(&w, true);
	floe_json_write_null(&w);
	floe_json_write_begin_object(&w, false);
	floe_json_write_end_object(&w);
	floe_json_write_end_array(&w);
	floe_json_write_member_cstr(&w, "c", NULL);
	floe_json_write_end_object(&w);
	FLOE_CHECK(floe_json_write_finish(&w) == 0);
	FLOE_CHECK_STR(floe_buf_cstr(&b), "{\"a\":\"x\\\"y\",\"b\":[-3,true,null,{}],\"c\":null}");
	floe_buf_free(&b);
}

FLOE_TEST(json_writer_pretty_with_inline_rows)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_json_writer w;
	floe_json_write_init(&w, &b, true);
	floe_json_write_begin_object(&w, false);
	floe_json_write_member_int(&w, "format", 1);
	floe_json_write_key(&w, "columns");
	floe_json_write_begin_array(&w, false);
	for (int i = 1; i <= 2; i++) {
		floe_json_write_begin_object(&w, true);
		floe_json_write_member_int(&w, "id", i);
		floe_json_write_key(&w, "type");
		floe_json_write_begin_object(&w, false); /* stays on the line: inside an inline one */
		floe_json_write_member_cstr(&w, "type", "list");
		floe_json_write_end_object(&w);
		floe_json_write_end_object(&w);
	}
	floe_json_write_end_array(&w);
	floe_json_write_key(&w, "empty");
	floe_json_write_begin_array(&w, false);
	floe_json_write_end_array(&w);
	floe_json_write_end_object(&w);
	FLOE_CHECK(floe_json_write_finish(&w) == 0);
	FLOE_CHECK_STR(floe_buf_cstr(&b), "{\n"
					  "  \"format\": 1,\n"
					  "  \"columns\": [\n"
					  "    {\"id\": 1, \"type\": {\"type\": \"list\"}},\n"
					  "    {\"id\": 2, \"type\": {\"type\": \"list\"}}\n"
					  "  ],\n"
					  "  \"empty\": []\n"
					  "}\n");
	floe_json_doc *doc = NULL;
	FLOE_CHECK(floe_json_parse(&doc, b.ptr, b.len, NULL) == 0);
	floe_json_free(doc);
	floe_buf_free(&b);
}

FLOE_TEST(json_writer_reports_overflow)
{
	floe_buf b;
	floe_buf_init(&b, 8);
	floe_json_writer w;
	floe_json_write_init(&w, &b, false);
	floe_json_write_begin_array(&w, false);
	floe_json_write_cstr(&w, "longer than eight bytes");
	floe_json_write_end_array(&w);
	FLOE_CHECK(floe_json_write_finish(&w) < 0);
	floe_buf_free(&b);
}

/* DEL and C1 controls (U+0080..U+009F) are escaped too: JSON shown on a terminal cannot steer it. */
FLOE_TEST(json_write_escapes_del_and_c1_controls)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_json_put_cstr(&b, "a\x7f" "b\xc2\x9b" "c\xc2\x85" "d\xc2\xa0" "e");
	FLOE_CHECK_STR(floe_buf_cstr(&b), "\"a\\u007fb\\u009bc\\u0085d\xc2\xa0" "e\"");
	floe_buf_free(&b);
}
