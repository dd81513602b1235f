/*
 * test_config.c — the floe.toml model: defaults, the file init writes, error positions.
 */
#include "harness.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/secret.h"
#include "config/config.h"
#include "config/scale.h"

#include <stdlib.h>
#include <string.h>

static const char *minimal = "[source]\ndatabase = \"shop\"\nuser = \"r\"\n";

static floe_config *parse(const char *text)
{
	floe_config *c = NULL;
	floe_error_clear();
	if (floe_config_parse(&c, "/p/floe.toml", text, strlen(text)) < 0)
		return NULL;
	return c;
}

static const char *error_message(void)
{
	const floe_error *e = floe_error_last();
	return e ? e->message : "";
}

FLOE_TEST(config_defaults)
{
	floe_config *c = parse(minimal);
	FLOE_CHECK(c != NULL);
	if (!c)
		return;
	FLOE_CHECK_STR(c->source.host, "127.0.0.1");
	FLOE_CHECK(c->source.port == 5432);
	FLOE_CHECK_STR(c->source.password_env, "FLOE_SOURCE_PASSWORD");
	FLOE_CHECK(c->source.schemas.count == 1 && strcmp(c->source.schemas.items[0], "public") == 0);
	FLOE_CHECK_STR(c->warehouse.catalog, "sql");
	FLOE_CHECK_STR(c->project_dir, "/p");
	FLOE_CHECK_STR(c->project_name, "p");
	FLOE_CHECK_STR(floe_config_warehouse_dir(c), "/p/warehouse");
	floe_config_free(c);
}

FLOE_TEST(config_render_parses_back)
{
	static const char *schemas[] = { "public", "we\"ird", NULL };
	floe_config_seed seed = { "shop", "db.internal", 6543, "sh\\op", "floe_reader",
				  "MY_PW", { schemas, 2 }, "discovered: 2 schemas" };
	floe_buf text = FLOE_BUF_INIT;
	floe_config_render_initial(&text, &seed);
	floe_config *c = parse(floe_buf_cstr(&text));
	FLOE_CHECK(c != NULL);
	if (c) {
		FLOE_CHECK_STR(c->project_name, "shop");
		FLOE_CHECK_STR(c->source.host, "db.internal");
		FLOE_CHECK(c->source.port == 6543);
		FLOE_CHECK_STR(c->source.database, "sh\\op");
		FLOE_CHECK_STR(c->source.password_env, "MY_PW");
		FLOE_CHECK(c->source.schemas.count == 2);
		FLOE_CHECK_STR(c->source.schemas.items[1], "we\"ird");
	}
	floe_config_free(c);
	floe_buf_free(&text);
}

FLOE_TEST(config_unknown_key_has_position_and_suggestion)
{
	FLOE_CHECK(parse("[source]\ndatabase = \"s\"\nuser = \"u\"\ndatabse = 1\n") == NULL);
	FLOE_CHECK_STR(error_message(),
		       "/p/floe.toml:4:1: unknown key `databse` in [source] — did you mean `database`?");
	FLOE_CHECK(floe_error_exit_code() == FLOE_EXIT_USAGE);
}

FLOE_TEST(config_toml_syntax_error_has_position)
{
	FLOE_CHECK(parse("[source]\ndatabase = \"s\"\nuser = u\n") == NULL);
	FLOE_CHECK(strncmp(error_message(), "/p/floe.toml:3:", 15) == 0);
}

FLOE_TEST(config_values_are_checked)
{
	FLOE_CHECK(parse("[source]\ndatabase = \"s\"\nuser = \"u\"\nexclude = [\"orders\"]\n") == NULL);
	FLOE_CHECK(strstr(error_message(), "4:12:") && strstr(error_message(), "`schema.table`"));
	FLOE_CHECK(parse("[source]\ndatabase = \"s\"\nuser = \"u\"\npassword-env = \"MY-PW\"\n") == NULL);
	FLOE_CHECK(strstr(error_message(), "environment variable name") != NULL);
	FLOE_CHECK(parse("[source]\ndatabase = \"s\"\nuser = \"u\"\n[warehouse]\nschedule = \"hourly\"\n") == NULL);
	FLOE_CHECK(strstr(error_message(), "cron") != NULL);
	FLOE_CHECK(parse("[source]\ndatabase = \"s\"\nuser = \"u\"\n[warehouse]\ncatalog = \"hive\"\n") == NULL);
	FLOE_CHECK(strstr(error_message(), "expected `sql`") != NULL);
}

FLOE_TEST(config_section_must_be_a_table)
{
	FLOE_CHECK(parse("source = 1\n") == NULL);
	FLOE_CHECK(strstr(error_message(), "`source` must be a table, not an integer") != NULL);
}

FLOE_TEST(config_bronze_durations_and_rows)
{
	floe_config *c = parse(minimal);
	FLOE_CHECK(c && c->bronze.late_window_seconds == 300 && c->bronze.target_file_rows == 262144);
	floe_config_free(c);
	c = parse("[source]\ndatabase = \"s\"\nuser = \"u\"\n[bronze]\nlate-window = \"2 hours\"\n"
		  "target-file-rows = 5000\n");
	FLOE_CHECK(c && c->bronze.late_window_seconds == 7200 && c->bronze.target_file_rows == 5000);
	floe_config_free(c);
	FLOE_CHECK(parse("[source]\ndatabase = \"s\"\nuser = \"u\"\n[bronze]\nlate-window = \"soon\"\n") == NULL);
	FLOE_CHECK(strstr(error_message(), "5:15:") && strstr(error_message(), "not a duration"));
	FLOE_CHECK(parse("[source]\ndatabase = \"s\"\nuser = \"u\"\n[bronze]\ntarget-file-rows = 0\n") == NULL);
	FLOE_CHECK(strstr(error_message(), "out of range") != NULL);
	FLOE_CHECK(floe_config_parse_duration("90s") == 90 && floe_config_parse_duration("5m") == 300);
	FLOE_CHECK(floe_config_parse_duration("1d") == 86400 && floe_config_parse_duration("m") == -1);
	FLOE_CHECK(floe_config_parse_duration("5 fortnights") == -1 && floe_config_parse_duration("") == -1);
}

FLOE_TEST(config_warehouse_zstd_level)
{
	floe_config *c = parse(minimal);
	FLOE_CHECK(c && c->warehouse.zstd_level == 0); /* the Parquet writer's default */
	floe_config_free(c);
	c = parse("[source]\ndatabase = \"s\"\nuser = \"u\"\n[warehouse]\nzstd-level = 3\n");
	FLOE_CHECK(c && c->warehouse.zstd_level == 3);
	floe_config_free(c);
	FLOE_CHECK(parse("[source]\ndatabase = \"s\"\nuser = \"u\"\n[warehouse]\nzstd-level = 20\n") == NULL);
	FLOE_CHECK(strstr(error_message(), "5:14:") && strstr(error_message(), "`warehouse.zstd-level` = 20 is out of range: expected from 1 to 19"));
	FLOE_CHECK(parse("[source]\ndatabase = \"s\"\nuser = \"u\"\n[warehouse]\nzstd-level = \"fast\"\n") == NULL);
	FLOE_CHECK(strstr(error_message(), "an integer") != NULL);
}

FLOE_TEST(config_pii_key)
{
	static const char *hmac_toml = "[source]\ndatabase = \"shop\"\nuser = \"r\"\n[silver]\n"
				       "pii-key-env = \"FLOE_TEST_PII_KEY\"\n[silver.pii]\n"
				       "\"public.customers.email\" = \"hmac\"\n";
	static const char *null_toml = "[source]\ndatabase = \"shop\"\nuser = \"r\"\n[silver]\n"
				       "pii-key-env = \"FLOE_TEST_PII_KEY\"\n[silver.pii]\n"
				       "\"public.customers.phone\" = \"null\"\n";
	floe_config *c = parse(hmac_toml), *n = parse(null_toml);
	const char *key = "x";
	FLOE_CHECK(c != NULL && n != NULL);
	if (!c || !n)
		return;
	unsetenv("FLOE_TEST_PII_KEY");
	FLOE_CHECK(floe_config_pii_key(&key, c) < 0 && key == NULL);
	FLOE_CHECK(floe_error_last()->cls == FLOE_ERR_CONFIG);
	FLOE_CHECK(strstr(error_message(), "FLOE_TEST_PII_KEY is not set") != NULL);
	FLOE_CHECK(floe_config_pii_key(&key, n) == 0 && key == NULL); /* no hmac: no key needed */
	setenv("FLOE_TEST_PII_KEY", "", 1);
	FLOE_CHECK(floe_config_pii_key(NULL, c) < 0 && strstr(error_message(), "is empty") != NULL);
	setenv("FLOE_TEST_PII_KEY", "short-1", 1);
	FLOE_CHECK(floe_config_pii_key(NULL, c) < 0 && strstr(error_message(), "too short") != NULL);
	FLOE_CHECK(strstr(error_message(), "short-1") == NULL);
	setenv("FLOE_TEST_PII_KEY", "a-long-enough-key-0123", 1);
	FLOE_CHECK(floe_config_pii_key(&key, c) == 0 && key && strcmp(key, "a-long-enough-key-0123") == 0);
	unsetenv("FLOE_TEST_PII_KEY");
	floe_secret_reset();
	floe_config_free(c);
	floe_config_free(n);
}

/* The project's layout: pipeline, deployed plan, ledger directory and catalog, the lake inside or elsewhere. */
FLOE_TEST(config_project_paths)
{
	floe_arena *a = floe_arena_new();
	floe_config *c = parse(minimal);
	FLOE_CHECK(c != NULL);
	if (c) {
		FLOE_CHECK_STR(floe_config_pipeline_dir(a, c), "/p/pipeline");
		FLOE_CHECK_STR(floe_config_lock_path(a, c), "/p/pipeline/lakehouse.lock.json");
		FLOE_CHECK_STR(floe_config_catalog_path(a, c), "/p/warehouse/catalog.db");
		/* resolved once when read: load threads call it at once, and the config's arena is not shared */
		FLOE_CHECK_STR(floe_config_warehouse_dir(c), "/p/warehouse");
		FLOE_CHECK(floe_config_warehouse_dir(c) == floe_config_warehouse_dir(c));
		floe_buf pw = FLOE_BUF_INIT;
		floe_config_password_file(&pw, c->project_dir);
		FLOE_CHECK_STR(floe_buf_cstr(&pw), "/p/.floe/secrets/source-password");
		floe_buf_free(&pw);
	}
	floe_config_free(c);
	c = parse("[source]\ndatabase = \"shop\"\nuser = \"r\"\n[warehouse]\nlocation = \"/data/lake\"\n");
	FLOE_CHECK(c != NULL);
	if (c) {
		FLOE_CHECK_STR(floe_config_catalog_path(a, c), "/data/lake/catalog.db");
		FLOE_CHECK_STR(floe_config_warehouse_dir(c), "/data/lake");
		FLOE_CHECK_STR(floe_config_pipeline_dir(a, c), "/p/pipeline"); /* the project's, wherever the lake is */
	}
	floe_config_free(c);
	floe_arena_free(a);
}

/* ---- [bronze] parallel, [bronze.tables."schema.table"], [reconcile] full-every (config/scale.h) ---- */

#define SOURCE "[source]\ndatabase = \"shop\"\nuser = \"r\"\n"

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
