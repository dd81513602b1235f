/*
 * test_json_write.c — the JSON writer always produces valid JSON.
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
