/*
 * test_history.c — silver.X_history from a bronze table's snapshots, in a real catalog with real
 * Parquet files: versions opened and closed per observation, an emptied table closing every
 * version, compactions skipped, nothing committed without a change, and the refusals.
 */
#include "harness.h"

#include "duck_parquet.h"

#include "base/arena.h"
#include "base/error.h"
#include "base/fs.h"
#include "config/config.h"
#include "engine/engine.h"
#include "iceberg/catalog.h"
#include "iceberg/table.h"
#include "silver/history.h"

#include <stdlib.h>
#include <unistd.h>

typedef struct env {
	char dir[64];
	floe_arena *a;
	floe_engine *engine;
	floe_iceberg_catalog *catalog;
	floe_iceberg_table *bronze;
	floe_config *config;
} env;

static const char *key_id[] = { "id" };
static const floe_lock_table table_t = { .schema = "public", .name = "t", .bronze = "bronze.t", .mode = FLOE_LOAD_FULL,
					 .key = key_id, .n_key = 1 };

static bool env_open(env *e)
{
	floe_iceberg_catalog_opts opts = FLOE_ICEBERG_CATALOG_OPTS_INIT;
	floe_iceberg_schema s = { 0 };
	floe_iceberg_field f[3];
	const char *toml = "[source]\ndatabase = \"d\"\nuser = \"u\"\n";
	memset(e, 0, sizeof(*e));
	snprintf(e->dir, sizeof(e->dir), "/tmp/floe-history-XXXXXX");
	if (!mkdtemp(e->dir))
		return false;
	e->a = floe_arena_new();
	opts.create = true;
	f[0] = (floe_iceberg_field){ 1, "id", true, floe_iceberg_type_new(e->a, FLOE_ICEBERG_LONG), NULL };
	f[1] = (floe_iceberg_field){ 2, "v", false, floe_iceberg_type_new(e->a, FLOE_ICEBERG_STRING), NULL };
	f[2] = (floe_iceberg_field){ 3, "w", false, floe_iceberg_type_new(e->a, FLOE_ICEBERG_STRING), NULL };
	s.n_fields = 3;
	s.fields = f;
	return floe_config_parse(&e->config, floe_arena_printf(e->a, "%s/floe.toml", e->dir), toml, strlen(toml)) == 0 &&
	       floe_fs_mkdir_p(floe_arena_printf(e->a, "%s/warehouse", e->dir), 0755) == 0 &&
	       floe_engine_open(&e->engine, NULL) == 0 &&
	       floe_iceberg_catalog_open_sql(&e->catalog, floe_arena_printf(e->a, "%s/warehouse/catalog.db", e->dir),
					     &opts) == 0 &&
	       floe_iceberg_table_create(&e->bronze, e->catalog, "bronze", "t", &s, NULL) == 0;
}

static void env_close(env *e)
{
	floe_iceberg_table_free(e->bronze);
	floe_iceberg_catalog_free(e->catalog);
	floe_engine_close(e->engine);
	floe_config_free(e->config);
	floe_fs_remove_tree(e->dir);
	floe_arena_free(e->a);
	floe_error_clear();
}

/* Replace bronze's rows with those of `select_sql` (id, v); NULL: empty the table. */
static bool observe(env *e, const char *select_sql, const char *operation)
{
	floe_iceberg_commit_opts co = FLOE_ICEBERG_COMMIT_OPTS_INIT;
	floe_iceberg_data_file f;
	co.operation = operation;
	if (select_sql &&
	    fx_parquet_write(&f, e->a, e->engine, floe_iceberg_metadata_current_schema(floe_iceberg_table_metadata(e->bronze)),
			     select_sql, floe_iceberg_table_new_data_uri(e->bronze, e->a, "parquet")) < 0)
		return false;
	usleep(2000); /* distinct commit times (milliseconds) */
	return floe_iceberg_table_replace(e->bronze, select_sql ? &f : NULL, select_sql ? 1 : 0, &co) == 0;
}

/* `sql` over the history table's current snapshot (view h), as text. */
static const char *history_query(env *e, const char *sql)
{
	floe_iceberg_table *h = NULL;
	floe_iceberg_scan *scan = NULL;
	floe_buf out = FLOE_BUF_INIT;
	const char *text = NULL;
	if (floe_iceberg_table_load(&h, e->catalog, "silver", "t_history") == 0 &&
	    floe_iceberg_table_plan(&scan, e->a, h, -1) == 0 &&
	    floe_engine_exec(e->engine, "DROP VIEW IF EXISTS h") == 0 &&
	    floe_engine_exec(e->engine, floe_arena_printf(e->a, "CREATE VIEW h AS SELECT * FROM read_parquet('%s')",
							   floe_iceberg_uri_to_path(e->a, scan->files[0].file.path))) == 0 &&
	    floe_engine_query_text(e->engine, &out, sql) == 0)
		text = floe_arena_strdup(e->a, floe_buf_cstr(&out));
	floe_iceberg_table_free(h);
	floe_buf_free(&out);
	return text ? text : "(failed)";
}

FLOE_TEST(silver_history_versions_from_snapshots)
{
	env e;
	floe_silver_history_result r;
	FLOE_CHECK(env_open(&e));
	FLOE_CHECK(observe(&e, "SELECT range::BIGINT AS id, 'v' || range AS v FROM range(5)", NULL));
	FLOE_CHECK(observe(&e, "SELECT range::BIGINT AS id, CASE WHEN range = 2 THEN NULL ELSE 'v' || range END AS v "
			       "FROM range(5)", NULL)); /* a value becomes NULL: a change */
	FLOE_CHECK(observe(&e, NULL, NULL));     /* emptied: every version closes */
	FLOE_CHECK(observe(&e, "SELECT range::BIGINT AS id, 'v' || range AS v FROM range(3)", NULL));
	FLOE_CHECK(floe_silver_history_build(&r, e.config, &table_t, NULL) == 0);
	FLOE_CHECK(r.observations == 4 && r.opened == 5 + 1 + 0 + 3 && r.closed == 0 + 1 + 5 + 0 && r.rows == 9);
	FLOE_CHECK(r.snapshot_id > 0 && r.bronze_snapshot_id == floe_iceberg_table_metadata(e.bronze)->current_snapshot_id);
	FLOE_CHECK_STR(history_query(&e, "SELECT count(*) FILTER (dbt_valid_to IS NULL) || ' ' || count(DISTINCT dbt_scd_id) "
					 "|| ' ' || count(*) FILTER (id = 2) FROM h"),
		       "3 9 3");
	/* dbt_scd_id is md5 of key | updated_at as DuckDB casts them */
	FLOE_CHECK_STR(history_query(&e, "SELECT count(*) FROM h WHERE dbt_scd_id = md5(cast(id AS VARCHAR) || '|' || "
					 "cast(dbt_updated_at AS VARCHAR)) AND dbt_valid_from = dbt_updated_at"),
		       "9");

	/* a compaction and an unchanged reload: nothing new, nothing committed */
	FLOE_CHECK(observe(&e, "SELECT range::BIGINT AS id, 'v' || range AS v FROM range(3)", "replace"));
	FLOE_CHECK(floe_silver_history_build(&r, e.config, &table_t, NULL) == 0);
	FLOE_CHECK(r.observations == 0 && r.snapshot_id == -1);
	FLOE_CHECK(observe(&e, "SELECT range::BIGINT AS id, 'v' || range AS v FROM range(3)", NULL));
	FLOE_CHECK(floe_silver_history_build(&r, e.config, &table_t, NULL) == 0);
	FLOE_CHECK(r.observations == 1 && r.opened == 0 && r.closed == 0 && r.snapshot_id == -1 && r.rows == 9);
	env_close(&e);
}

FLOE_TEST(silver_history_refuses_a_table_without_key)
{
	env e;
	floe_silver_history_result r;
	floe_lock_table keyless = table_t;
	keyless.n_key = 0;
	FLOE_CHECK(env_open(&e));
	FLOE_CHECK(floe_silver_history_build(&r, e.config, &keyless, NULL) < 0);
	FLOE_CHECK(floe_error_last()->cls == FLOE_ERR_CONFIG && strstr(floe_error_last()->message, "no key"));
	env_close(&e);
}

FLOE_TEST(silver_history_follows_a_recreated_bronze_table_and_refuses_a_snapshot_without_position)
{
	env e;
	floe_silver_history_result r;
	floe_iceberg_table *h = NULL;
	const floe_iceberg_schema *schema;
	FLOE_CHECK(env_open(&e));
	FLOE_CHECK(observe(&e, "SELECT range::BIGINT AS id, 'v' || range AS v FROM range(4)", NULL));
	FLOE_CHECK(observe(&e, "SELECT range::BIGINT AS id, 'w' || range AS v FROM range(4)", NULL));
	FLOE_CHECK(floe_silver_history_build(&r, e.config, &table_t, NULL) == 0 && r.rows == 8);
	/* bronze.t dropped and created again: its sequence numbers start over, its one snapshot is new */
	schema = floe_iceberg_metadata_current_schema(floe_iceberg_table_metadata(e.bronze));
	FLOE_CHECK(floe_iceberg_catalog_drop(e.catalog, "bronze", "t") == 0);
	floe_iceberg_table *old = e.bronze;
	FLOE_CHECK(floe_iceberg_table_create(&e.bronze, e.catalog, "bronze", "t", schema, NULL) == 0);
	FLOE_CHECK(observe(&e, "SELECT range::BIGINT AS id, 'w' || range AS v FROM range(3)", NULL));
	floe_iceberg_table_free(old);
	FLOE_CHECK(floe_silver_history_build(&r, e.config, &table_t, NULL) == 0);
	FLOE_CHECK(r.observations == 1 && r.opened == 0 && r.closed == 1 && r.rows == 8); /* id 3 is gone */
	/* a history snapshot that does not record its bronze position: refused, not replayed */
	FLOE_CHECK(floe_iceberg_table_load(&h, e.catalog, "silver", "t_history") == 0);
	FLOE_CHECK(h && floe_iceberg_table_replace(h, NULL, 0, NULL) == 0);
	FLOE_CHECK(floe_silver_history_build(&r, e.config, &table_t, NULL) < 0);
	FLOE_CHECK(floe_error_last()->cls == FLOE_ERR_CONFIG &&
		   strstr(floe_error_last()->message, "does not say which bronze snapshot"));
	floe_iceberg_table_free(h);
	env_close(&e);
}

FLOE_TEST(silver_history_closes_by_key_not_by_scd_id)
{
	/* keys ('a|b', 'c') and ('a', 'b|c') share a dbt_scd_id (dbt joins key parts with '|'):
	 * a change to one must close only its own version */
	env e;
	floe_silver_history_result r;
	static const char *vw[] = { "v", "w" };
	floe_lock_table pair = table_t;
	pair.key = vw;
	pair.n_key = 2;
	FLOE_CHECK(env_open(&e));
	FLOE_CHECK(observe(&e, "SELECT * FROM (VALUES (1::BIGINT, 'a|b', 'c'), (1::BIGINT, 'a', 'b|c')) t(id, v, w)", NULL));
	FLOE_CHECK(observe(&e, "SELECT * FROM (VALUES (2::BIGINT, 'a|b', 'c'), (1::BIGINT, 'a', 'b|c')) t(id, v, w)", NULL));
	FLOE_CHECK(floe_silver_history_build(&r, e.config, &pair, NULL) == 0);
	FLOE_CHECK(r.opened == 3 && r.closed == 1 && r.rows == 3);
	FLOE_CHECK_STR(history_query(&e, "SELECT count(DISTINCT dbt_scd_id) || ' ' || string_agg(v || ':' || id || ':' || "
					 "(dbt_valid_to IS NULL), ',' ORDER BY v, id) FROM h"),
		       "2 a:1:true,a|b:1:false,a|b:2:true");
	env_close(&e);
}
