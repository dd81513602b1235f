/*
 * test_config_planned.c — a value floe.toml's shape knows but nothing implements yet is a
 * configuration error where it is written, never silently replaced by what is built.
 */
#include "harness.h"
#include "base/error.h"
#include "config/config.h"

#include <string.h>

FLOE_TEST(config_refuses_the_planned_rest_catalog)
{
	const char *text = "[source]\ndatabase = \"shop\"\nuser = \"r\"\n\n[warehouse]\ncatalog = \"rest\"\n";
	floe_config *c = NULL;
	floe_error_clear();
	FLOE_CHECK(floe_config_parse(&c, "/p/floe.toml", text, strlen(text)) < 0);
	floe_config_free(c);
	const floe_error *e = floe_error_last();
	FLOE_CHECK(e != NULL && e->cls == FLOE_ERR_CONFIG);
	FLOE_CHECK(floe_error_exit_code() == FLOE_EXIT_USAGE);
	if (!e)
		return;
	FLOE_CHECK_STR(e->message, "/p/floe.toml:6:11: `warehouse.catalog` = \"rest\" is refused: "
				   "the REST catalog is planned, not built yet");
	FLOE_CHECK(e->hint && strstr(e->hint, "catalog = \"sql\"") && strstr(e->hint, "remove the key"));
}

FLOE_TEST(config_accepts_the_sql_catalog)
{
	const char *text = "[source]\ndatabase = \"shop\"\nuser = \"r\"\n\n[warehouse]\ncatalog = \"sql\"\n";
	floe_config *c = NULL;
	floe_error_clear();
	FLOE_CHECK(floe_config_parse(&c, "/p/floe.toml", text, strlen(text)) == 0);
	FLOE_CHECK(c && strcmp(c->warehouse.catalog, "sql") == 0);
	floe_config_free(c);
}
