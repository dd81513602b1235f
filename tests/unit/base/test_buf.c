/*
 * test_buf.c — the growable buffer's quoting.
 */
#include "harness.h"
#include "base/buf.h"

FLOE_TEST(buf_put_quoted_doubles_its_quote_only)
{
	floe_buf b = FLOE_BUF_INIT;
	FLOE_CHECK(floe_buf_put_quoted(&b, "it's \"x\"", '\'') == 0);
	FLOE_CHECK_STR(floe_buf_cstr(&b), "'it''s \"x\"'");
	floe_buf_clear(&b);
	FLOE_CHECK(floe_buf_put_quoted(&b, "a\"b", '"') == 0 && floe_buf_put_quoted(&b, "", '"') == 0);
	FLOE_CHECK_STR(floe_buf_cstr(&b), "\"a\"\"b\"\"\"");
	floe_buf_free(&b);
}
