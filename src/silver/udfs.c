/*
 * udfs.c — the dbt-duckdb plugin module that gives dbt floe's SQL functions.
 */
#include "silver/udfs.h"

#include <assert.h>
#include <string.h>

/* The module, split where the variable's name goes (KEY_ENV = "<name>"). */
static const char head[] =
	"\"\"\"floe's SQL functions for dbt-duckdb. Written by `floe generate`: do not edit.\n"
	"\n"
	"floe_hmac(value VARCHAR) -> VARCHAR: HMAC-SHA256 of the value's UTF-8 bytes as 64\n"
	"lower-case hex digits, NULL for NULL, keyed by the secret in the environment variable\n"
	"KEY_ENV -- the function floe's own engine runs, so dbt masks PII columns exactly as floe\n"
	"does. (DuckDB's Python client needs numpy for create_function.)\n"
	"\"\"\"\n"
	"import hashlib\n"
	"import hmac\n"
	"import os\n"
	"\n"
	"from dbt.adapters.duckdb.plugins import BasePlugin\n"
	"\n"
	"KEY_ENV = \"";

static const char tail[] =
	"\"\n"
	"\n"
	"\n"
	"def pii_key():\n"
	"    \"\"\"The key's bytes (as the environment holds them), or None when unset or empty.\"\"\"\n"
	"    value = os.environ.get(KEY_ENV, \"\")\n"
	"    return os.fsencode(value) if value else None\n"
	"\n"
	"\n"
	"def floe_hmac(value, key):\n"
	"    \"\"\"HMAC-SHA256 of `value` (str) keyed by `key` (bytes), lower-case hex; None for None.\"\"\"\n"
	"    if value is None:\n"
	"        return None\n"
	"    if not key:\n"
	"        raise RuntimeError(\"floe_hmac needs the PII key: environment variable \" + KEY_ENV + \" is not set\")\n"
	"    return hmac.new(key, value.encode(\"utf-8\"), hashlib.sha256).hexdigest()\n"
	"\n"
	"\n"
	"class Plugin(BasePlugin):\n"
	"    def configure_connection(self, conn):\n"
	"        key = pii_key()\n"
	"        conn.create_function(\"floe_hmac\", lambda value: floe_hmac(value, key), [\"VARCHAR\"], \"VARCHAR\")\n";

void floe_silver_dbt_udfs_py(floe_buf *out, const char *key_env)
{
	assert(key_env && key_env[0] && strspn(key_env, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
							 "0123456789_") == strlen(key_env));
	floe_buf_puts(out, head);
	floe_buf_puts(out, key_env);
	floe_buf_puts(out, tail);
}
