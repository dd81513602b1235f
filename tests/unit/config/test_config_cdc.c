/*
 * test_config_cdc.c — [cdc] and `[bronze] cdc` (config/cdc.c): defaults, values, which tables
 * load by CDC, and errors with positions.
 */
#include "harness.h"
#include "base/error.h"
#include "config/cdc.h"
#include "config/config.h"

#include <string.h>

#define SOURCE "[source]\ndatabase = \"shop\"\nuser = \"r\"\n"

static floe_config *parse(const char *text)
{
	floe_config *c = NULL;
	floe_error_clear();
	return floe_config_parse(&c, "/p/floe.toml", text, strlen(text)) < 0 ? NULL : c;
}

static bool refused_with(const char *text, const char *needle)
{
	floe_config *c = parse(text);
	const floe_error *e = floe_error_last();
	bool ok = !c && e && e->cls == FLOE_ERR_CONFIG && strstr(e->message, needle);
	floe_config_free(c);
	return ok;
}

FLOE_TEST(config_cdc_absent_then_values)
{
	floe_config *c = parse(SOURCE);
	FLOE_CHECK(c && !c->cdc && !c->bronze.cdc && !floe_config_cdc_wants(c, "public", "orders"));
	floe_config_free(c);
	c = parse(SOURCE "[cdc]\ntables = [\"public.orders\", \"sales.line items\"]\ncreate-slot = true\n"
			 "max-retained-wal = \"512MB\"\n");
	FLOE_CHECK(c && c->cdc);
	if (c && c->cdc) {
		FLOE_CHECK(c->cdc->n_tables == 2 && c->cdc->create_slot && !c->cdc->create_publication);
		FLOE_CHECK(c->cdc->max_retained_wal == (int64_t)512 << 20);
		FLOE_CHECK(floe_config_cdc_wants(c, "public", "orders") && floe_config_cdc_wants(c, "sales", "line items"));
		FLOE_CHECK(!floe_config_cdc_wants(c, "public", "order") && !floe_config_cdc_wants(c, "publi", "c.orders"));
	}
	floe_config_free(c);
	c = parse(SOURCE "[bronze]\ncdc = true\n");
	FLOE_CHECK(c && c->bronze.cdc && floe_config_cdc_wants(c, "any", "table"));
	floe_config_free(c);
	c = parse(SOURCE "[cdc]\n");
	FLOE_CHECK(c && c->cdc && c->cdc->max_retained_wal == (int64_t)1 << 30 && !c->cdc->create_slot);
	floe_config_free(c);
}

FLOE_TEST(config_cdc_errors_say_where)
{
	FLOE_CHECK(refused_with(SOURCE "[cdc]\ntables = [\"orders\"]\n", "/p/floe.toml:5:"));
	FLOE_CHECK(refused_with(SOURCE "[cdc]\ntables = [\"a.b.c\"]\n", "\"schema.table\""));
	FLOE_CHECK(refused_with(SOURCE "[cdc]\ntables = \"public.orders\"\n", "must be an array"));
	FLOE_CHECK(refused_with(SOURCE "[cdc]\ncreate-slot = \"yes\"\n", "`cdc.create-slot` must be true or false"));
	FLOE_CHECK(refused_with(SOURCE "[cdc]\nmax-retained-wal = \"1 GB\"\n", "max-retained-wal"));
	FLOE_CHECK(refused_with(SOURCE "[cdc]\nmax-retained-wal = \"GB\"\n", "max-retained-wal"));
	FLOE_CHECK(refused_with(SOURCE "[cdc]\nslots = 3\n", "unknown key `slots` in [cdc]"));
	FLOE_CHECK(refused_with(SOURCE "[bronze]\ncdc = 1\n", "cdc"));
	floe_error_clear();
}
