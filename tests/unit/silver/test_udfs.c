/*
 * test_udfs.c — the dbt-duckdb plugin module's text: the key's variable, the plugin class.
 * (tests/it/test_silver_pii.py runs it in Python against floe's own floe_hmac.)
 */
#include "harness.h"
#include "silver/udfs.h"

#include <string.h>

FLOE_TEST(silver_udfs_module_names_the_key_variable)
{
	floe_buf py = FLOE_BUF_INIT;
	floe_silver_dbt_udfs_py(&py, "MY_KEY_9");
	const char *s = floe_buf_cstr(&py);
	FLOE_CHECK(strstr(s, "\nKEY_ENV = \"MY_KEY_9\"\n") != NULL);
	FLOE_CHECK(strstr(s, "class Plugin(BasePlugin):\n    def configure_connection(self, conn):") != NULL);
	FLOE_CHECK(strstr(s, "conn.create_function(\"floe_hmac\"") != NULL);
	FLOE_CHECK(strstr(s, "hashlib.sha256") != NULL);
	floe_buf_free(&py);
}
