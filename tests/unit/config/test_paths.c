/*
 * test_paths.c — the project's layout (floe_config_*_dir/_path): where the pipeline,
 * the deployed plan, the run ledger's directory and the catalog are, for a warehouse
 * under the project and for one elsewhere.
 */
#include "harness.h"
#include "base/arena.h"
#include "base/error.h"
#include "config/config.h"

#include <string.h>

static floe_config *parse(const char *text)
{
	floe_config *c = NULL;
	floe_error_clear();
	if (floe_config_parse(&c, "/p/q/floe.toml", text, strlen(text)) < 0)
		return NULL;
	return c;
}

FLOE_TEST(config_project_paths)
{
	floe_arena *a = floe_arena_new();
	floe_config *c = parse("[source]\ndatabase = \"shop\"\nuser = \"r\"\n");
	FLOE_CHECK(c != NULL);
	if (c) {
		FLOE_CHECK_STR(floe_config_pipeline_dir(a, c), "/p/q/pipeline");
		FLOE_CHECK_STR(floe_config_lock_path(a, c), "/p/q/pipeline/lakehouse.lock.json");
		FLOE_CHECK_STR(floe_config_state_dir(a, c), "/p/q/.floe");
		FLOE_CHECK_STR(floe_config_catalog_path(a, c), "/p/q/warehouse/catalog.db");
		floe_buf pw = FLOE_BUF_INIT;
		floe_config_password_file(&pw, c->project_dir);
		FLOE_CHECK_STR(floe_buf_cstr(&pw), "/p/q/.floe/secrets/source-password");
		floe_buf_free(&pw);
	}
	floe_config_free(c);
	c = parse("[source]\ndatabase = \"shop\"\nuser = \"r\"\n[warehouse]\nlocation = \"/data/lake\"\n");
	FLOE_CHECK(c != NULL);
	if (c) {
		FLOE_CHECK_STR(floe_config_catalog_path(a, c), "/data/lake/catalog.db");
		FLOE_CHECK_STR(floe_config_warehouse_dir(c), "/data/lake");
		FLOE_CHECK_STR(floe_config_pipeline_dir(a, c), "/p/q/pipeline"); /* the project's, wherever the lake is */
	}
	floe_config_free(c);
	floe_arena_free(a);
}
