/*
 * render.c — the floe.toml that `floe init` writes: every section a user is
 * likely to touch, with the defaults spelt out and a comment saying what each is.
 */
#include "config/config.h"

#include <stdio.h>

int floe_config_put_toml_string(floe_buf *out, const char *s)
{
	floe_buf_putc(out, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': floe_buf_puts(out, "\\\""); break;
		case '\\': floe_buf_puts(out, "\\\\"); break;
		case '\n': floe_buf_puts(out, "\\n"); break;
		case '\t': floe_buf_puts(out, "\\t"); break;
		case '\r': floe_buf_puts(out, "\\r"); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				floe_buf_printf(out, "\\u%04x", *p);
			else
				floe_buf_putc(out, (char)*p);
		}
	}
	return floe_buf_putc(out, '"');
}

static void key_string(floe_buf *out, const char *key, const char *value, const char *comment)
{
	size_t start = out->len;
	floe_buf_printf(out, "%s = ", key);
	floe_config_put_toml_string(out, value);
	if (comment) {
		int pad = 38 - (int)(out->len - start);
		floe_buf_printf(out, "%*s# %s", pad > 1 ? pad : 1, "", comment);
	}
	floe_buf_putc(out, '\n');
}

int floe_config_render_initial(floe_buf *out, const floe_config_seed *seed)
{
	floe_buf_puts(out,
		"# floe.toml — the configuration of this floe project, written by `floe init`.\n"
		"# Edit freely: floe never overwrites it. Every key is described in docs/configuration.md.\n"
		"# It never holds a credential, only the names of the variables that do.\n\n"
		"[project]\n");
	key_string(out, "name", seed->project_name, NULL);
	floe_buf_puts(out, "\n[source]                              # the PostgreSQL database floe reads\n");
	key_string(out, "host", seed->host, NULL);
	floe_buf_printf(out, "port = %d\n", seed->port);
	key_string(out, "database", seed->database, NULL);
	key_string(out, "user", seed->user, "a read-only role (floe doctor checks)");
	key_string(out, "password-env", seed->password_env, "the variable's name, never the password");
	size_t start = out->len;
	floe_buf_puts(out, "schemas = [");
	for (size_t i = 0; i < seed->schemas.count; i++) {
		if (i)
			floe_buf_puts(out, ", ");
		floe_config_put_toml_string(out, seed->schemas.items[i]);
	}
	floe_buf_putc(out, ']');
	if (seed->discovery_note) {
		int pad = 38 - (int)(out->len - start);
		floe_buf_printf(out, "%*s# %s", pad > 1 ? pad : 1, "", seed->discovery_note);
	}
	floe_buf_puts(out, "\nexclude = []                          # tables to leave out, as \"schema.table\"\n");
	floe_buf_puts(out,
		"\n[warehouse]\n"
		"location = \"warehouse\"                # Iceberg tables and the catalog (catalog.db)\n"
		"catalog = \"sql\"                       # sql: SQLite with the JDBC-catalog schema (rest: planned)\n"
		"schedule = \"0 * * * *\"                # bronze schedule for `floe serve` (cron)\n"
		"\n[watermarks]                          # incremental loads, used only when a trigger proves them\n"
		"# \"public.orders\" = \"updated_at\"\n"
		"\n[bronze]\n"
		"late-window = \"5m\"                   # incremental loads re-read this much before the last watermark\n"
		"target-file-rows = 262144             # rows per data file of keyed tables (smaller: cheaper upserts)\n"
		"\n[silver]\n"
		"history = []                          # tables with SCD2 history, chosen by a person\n"
		"pii-key-env = \"FLOE_PII_KEY\"          # variable holding the key for `hmac` masking\n"
		"\n[silver.pii]                          # column masking, chosen by a person: hmac | null\n"
		"# \"public.customer.email\" = \"hmac\"\n");
	return 0;
}
