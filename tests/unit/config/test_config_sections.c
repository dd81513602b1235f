/*
 * test_config_sections.c — [publish], [orchestrators] and [cdc], each parsed in its own file
 * (config/publish.c, config/orchestrators.c, config/cdc.c): defaults, values, and errors with positions.
 */
#include "harness.h"
#include "base/error.h"
#include "config/cdc.h"
#include "config/config.h"
#include "config/publish.h"

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

FLOE_TEST(config_publish_absent_and_defaults)
{
	floe_config *c = parse(SOURCE);
	FLOE_CHECK(c && c->publish == NULL && c->orchestrators.airflow && c->orchestrators.dagster);
	floe_config_free(c);
	c = parse(SOURCE "[publish]\ndatabase = \"wh\"\nuser = \"pub\"\n");
	FLOE_CHECK(c && c->publish);
	if (c && c->publish) {
		FLOE_CHECK_STR(c->publish->host, "127.0.0.1");
		FLOE_CHECK(c->publish->port == 5432 && c->publish->n_grants == 0 && c->publish->lock_timeout_ms == 10000);
		FLOE_CHECK_STR(c->publish->schema, "public");
		FLOE_CHECK_STR(c->publish->password_env, "FLOE_PUBLISH_PASSWORD");
	}
	floe_config_free(c);
}

FLOE_TEST(config_publish_values)
{
	floe_config *c = parse(SOURCE "[publish]\nhost = \"wh.internal\"\nport = 6543\ndatabase = \"wh\"\n"
				      "schema = \"marts\"\nuser = \"pub\"\npassword-env = \"WH_PW\"\n"
				      "grants = [\"analyst\", \"bi\"]\nlock-timeout = \"2m\"\n");
	FLOE_CHECK(c && c->publish);
	if (c && c->publish) {
		FLOE_CHECK(c->publish->port == 6543 && c->publish->lock_timeout_ms == 120000);
		FLOE_CHECK(c->publish->n_grants == 2 && strcmp(c->publish->grants[1], "bi") == 0);
		FLOE_CHECK_STR(c->publish->password_env, "WH_PW");
		FLOE_CHECK_STR(c->publish->schema, "marts");
	}
	floe_config_free(c);
}

FLOE_TEST(config_publish_errors_name_the_place)
{
	FLOE_CHECK(refused_with(SOURCE "[publish]\nuser = \"pub\"\n", "has no `database`"));
	FLOE_CHECK(refused_with(SOURCE "[publish]\ndatabase = \"wh\"\nuser = \"p\"\npassword = \"x\"\n",
				"/p/floe.toml:7:12: unknown key `password`"));
	FLOE_CHECK(refused_with(SOURCE "[publish]\ndatabase = \"wh\"\nuser = \"p\"\nport = 0\n", "port"));
	FLOE_CHECK(refused_with(SOURCE "[publish]\ndatabase = \"wh\"\nuser = \"p\"\ngrants = \"a\"\n", "grants"));
	FLOE_CHECK(refused_with(SOURCE "[publish]\ndatabase = \"wh\"\nuser = \"p\"\nlock-timeout = \"soon\"\n",
				"lock-timeout"));
	FLOE_CHECK(refused_with(SOURCE "[publish]\ndatabase = \"wh\"\nuser = \"p\"\npassword-env = \"A-B\"\n",
				"password-env"));
	FLOE_CHECK(refused_with("publish = 1\n" SOURCE, "must be a table"));
}

FLOE_TEST(config_orchestrators)
{
	floe_config *c = parse(SOURCE "[orchestrators]\nairflow = false\n");
	FLOE_CHECK(c && !c->orchestrators.airflow && c->orchestrators.dagster);
	floe_config_free(c);
	FLOE_CHECK(refused_with(SOURCE "[orchestrators]\nairflow = \"yes\"\n", "true or false"));
	FLOE_CHECK(refused_with(SOURCE "[orchestrators]\nprefect = true\n", "unknown key"));
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
