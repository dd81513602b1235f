/*
 * test_config_scale.c — [bronze] parallel, [bronze.tables."schema.table"] and [reconcile]
 * full-every (config/scale.h): defaults, per-table lookup, and every refusal with its position.
 */
#include "harness.h"
#include "base/error.h"
#include "config/config.h"
#include "config/scale.h"

#include <string.h>

#define SOURCE "[source]\ndatabase = \"shop\"\nuser = \"r\"\n"

static floe_config *parse(const char *text)
{
	floe_config *c = NULL;
	floe_error_clear();
	if (floe_config_parse(&c, "/p/floe.toml", text, strlen(text)) < 0)
		return NULL;
	return c;
}

static bool refused_at(const char *text, const char *where)
{
	floe_config *c = parse(text);
	const floe_error *e = floe_error_last();
	bool ok = !c && e && e->cls == FLOE_ERR_CONFIG && strstr(e->message, where) != NULL;
	floe_config_free(c);
	floe_error_clear();
	return ok;
}

FLOE_TEST(config_scale_defaults_are_todays_behaviour)
{
	floe_config *c = parse(SOURCE);
	FLOE_CHECK(c && c->bronze.parallel == 1 && c->reconcile_full_every == 1 && c->bronze.n_tables == 0);
	FLOE_CHECK(c && floe_config_parallel_for(c, "public", "orders") == 1);
	floe_config_free(c);
}

FLOE_TEST(config_scale_per_table_over_global)
{
	floe_config *c = parse(SOURCE "[bronze]\nparallel = 4\ntarget-file-rows = 100\n"
				      "[bronze.tables.\"public.events\"]\nparallel = 2\n"
				      "[bronze.tables.\"public.x.y\"]\n"
				      "[reconcile]\nfull-every = 8\n");
	FLOE_CHECK(c != NULL);
	if (!c)
		return;
	FLOE_CHECK(floe_config_parallel_for(c, "public", "events") == 2);
	FLOE_CHECK(floe_config_parallel_for(c, "public", "event") == 4);
	FLOE_CHECK(floe_config_parallel_for(c, "publi", "c.events") == 4);
	FLOE_CHECK(floe_config_parallel_for(c, "public", "x.y") == 4); /* an entry without parallel */
	FLOE_CHECK(c->reconcile_full_every == 8 && c->bronze.target_file_rows == 100);
	floe_config_free(c);
}

FLOE_TEST(config_scale_refusals_say_where)
{
	FLOE_CHECK(refused_at(SOURCE "[bronze]\nparallel = 0\n", "floe.toml:5:12"));
	FLOE_CHECK(refused_at(SOURCE "[bronze]\nparallel = 65\n", "in range"));
	FLOE_CHECK(refused_at(SOURCE "[bronze]\nparallel = \"4\"\n", "in range"));
	FLOE_CHECK(refused_at(SOURCE "[bronze.tables.orders]\nparallel = 2\n", "named \"schema.table\""));
	FLOE_CHECK(refused_at(SOURCE "[bronze.tables.\"public.orders\"]\nparalel = 2\n", "unknown key"));
	FLOE_CHECK(refused_at(SOURCE "[bronze]\ntables = 3\n", "must be a table"));
	FLOE_CHECK(refused_at(SOURCE "[reconcile]\nfull-every = 0\n", "in range"));
	FLOE_CHECK(refused_at(SOURCE "[reconcile]\nfull_every = 2\n", "unknown key in [reconcile]"));
	FLOE_CHECK(refused_at(SOURCE "\"bronze.parallel\" = 2\n", "unknown key"));
}
