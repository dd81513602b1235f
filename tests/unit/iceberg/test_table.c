/*
 * test_table.c — table operations against a real catalog file and real Parquet
 * files: create, append, replace, rewrite, time travel, schema evolution, races
 * between two handles, expiry, orphans, and commits whose outcome is unknown.
 */
#include "harness.h"

#include "duck_parquet.h"

#include "base/arena.h"
#include "base/error.h"
#include "base/fs.h"
#include "engine/engine.h"
#include "iceberg/catalog.h"
#include "iceberg/recover.h"
#include "iceberg/table.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct env {
	char dir[64];
	floe_arena *a;
	floe_engine *engine;
	floe_iceberg_catalog *catalog;
} env;

static bool env_open(env *e)
{
	floe_iceberg_catalog_opts opts = FLOE_ICEBERG_CATALOG_OPTS_INIT;
	memset(e, 0, sizeof(*e));
	snprintf(e->dir, sizeof(e->dir), "/tmp/floe-table-XXXXXX");
	if (!mkdtemp(e->dir))
		return false;
	e->a = floe_arena_new();
	opts.create = true;
	return floe_engine_open(&e->engine, NULL) == 0 &&
	       floe_iceberg_catalog_open_sql(&e->catalog,
					     floe_arena_printf(e->a, "%s/catalog.db", e->dir), &opts) == 0;
}

static void env_close(env *e)
{
	floe_iceberg_catalog_free(e->catalog);
	floe_engine_close(e->engine);
	floe_fs_remove_tree(e->dir);
	floe_arena_free(e->a);
	floe_error_clear();
}

static floe_iceberg_schema *test_schema(floe_arena *a)
{
	floe_iceberg_schema *s = floe_arena_alloc(a, sizeof(*s));
	s->n_fields = 2;
	s->fields = floe_arena_alloc(a, 2 * sizeof(*s->fields));
	s->fields[0] = (floe_iceberg_field){ 1, "id", true, floe_iceberg_type_new(a, FLOE_ICEBERG_LONG), NULL };
	s->fields[1] = (floe_iceberg_field){ 2, "v", false, floe_iceberg_type_new(a, FLOE_ICEBERG_INT), NULL };
	return s;
}

static floe_iceberg_table *create_table(env *e, const char *name)
{
	floe_iceberg_table *t = NULL;
	if (floe_iceberg_table_create(&t, e->catalog, "bronze", name, test_schema(e->a), NULL) < 0) {
		floe_error_print(stderr);
		return NULL;
	}
	return t;
}

/* A data file of ids [from, from + n) written into the table's data directory. */
static floe_iceberg_data_file *make_file(env *e, floe_iceberg_table *t, int from, int n)
{
	floe_iceberg_data_file *f = floe_arena_alloc(e->a, sizeof(*f));
	const char *sql = floe_arena_printf(e->a, "SELECT (%d + range)::BIGINT AS id, (range %% 7)::INT "
					    "AS v FROM range(%d)", from, n);
	if (fx_parquet_write(f, e->a, e->engine,
			     floe_iceberg_metadata_current_schema(floe_iceberg_table_metadata(t)), sql,
			     floe_iceberg_table_new_data_uri(t, e->a, "parquet")) < 0) {
		floe_error_print(stderr);
		return NULL;
	}
	return f;
}

static int64_t plan_rows(floe_iceberg_table *t, int64_t snapshot, size_t *files)
{
	floe_arena *a = floe_arena_new();
	floe_iceberg_scan *scan = NULL;
	int64_t rows = -1;
	if (floe_iceberg_table_plan(&scan, a, t, snapshot) == 0) {
		rows = scan->record_count;
		if (files)
			*files = scan->n_files;
	}
	floe_arena_free(a);
	return rows;
}

static size_t count_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;
	while (d && (de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static int64_t current(floe_iceberg_table *t)
{
	return floe_iceberg_table_metadata(t)->current_snapshot_id;
}

FLOE_TEST(iceberg_table_create_and_load)
{
	env e;
	floe_iceberg_table *t = NULL, *again = NULL;
	const char **names = NULL;
	size_t n = 0;
	FLOE_CHECK(env_open(&e));
	t = create_table(&e, "orders");
	FLOE_CHECK(t != NULL);
	FLOE_CHECK(t && !floe_iceberg_table_metadata(t)->has_current_snapshot);
	FLOE_CHECK(t && strstr(floe_iceberg_table_metadata_location(t), "/bronze/orders/metadata/00000-"));
	FLOE_CHECK(t && strncmp(floe_iceberg_table_location(t), "file:///", 8) == 0);
	/* the table sits at its namespace's default location, which the REST catalog answers */
	FLOE_CHECK(t && strcmp(floe_iceberg_table_location(t),
			       floe_arena_printf(e.a, "%s/orders",
						 floe_iceberg_catalog_namespace_location(e.a, e.catalog, "bronze"))) == 0);
	FLOE_CHECK(strcmp(floe_iceberg_catalog_namespace_location(e.a, e.catalog, "a.b"),
			  floe_arena_printf(e.a, "%s/a/b", floe_iceberg_catalog_warehouse(e.catalog))) == 0);
	FLOE_CHECK(floe_iceberg_catalog_list_namespaces(e.catalog, e.a, &names, &n) == 0 && n == 1 &&
		   strcmp(names[0], "bronze") == 0);
	FLOE_CHECK(floe_iceberg_catalog_list_tables(e.catalog, "bronze", e.a, &names, &n) == 0 && n == 1);
	/* A taken name: FLOE_ERR_EXISTS, and no metadata file left behind. */
	floe_error_clear();
	FLOE_CHECK(floe_iceberg_table_create(&again, e.catalog, "bronze", "orders", test_schema(e.a),
					     NULL) < 0);
	FLOE_CHECK(floe_error_last() && floe_error_last()->cls == FLOE_ERR_EXISTS);
	FLOE_CHECK(count_files(floe_arena_printf(e.a, "%s/bronze/orders/metadata", e.dir)) == 1);
	floe_error_clear();
	FLOE_CHECK(floe_iceberg_table_load(&again, e.catalog, "bronze", "nope") < 0);
	FLOE_CHECK(floe_error_last() && strstr(floe_error_last()->message, "does not exist"));
	FLOE_CHECK(floe_iceberg_table_create(&again, e.catalog, "bronze", "a/b", test_schema(e.a),
					     NULL) < 0);
	FLOE_CHECK(floe_iceberg_table_load(&again, e.catalog, "bronze", "orders") == 0);
	FLOE_CHECK(again && floe_iceberg_metadata_current_schema(floe_iceberg_table_metadata(again))
				    ->n_fields == 2);
	floe_iceberg_table_free(again);
	floe_iceberg_table_free(t);
	env_close(&e);
}

FLOE_TEST(iceberg_table_append_replace_time_travel)
{
	env e;
	floe_iceberg_table *t;
	floe_iceberg_commit_opts opts = FLOE_ICEBERG_COMMIT_OPTS_INIT;
	floe_iceberg_kv run = { "floe.run-id", "run-1" };
	size_t nfiles = 0;
	FLOE_CHECK(env_open(&e));
	t = create_table(&e, "t");
	if (!t)
		goto done;
	opts.summary = &run;
	opts.n_summary = 1;
	FLOE_CHECK(floe_iceberg_table_append(t, make_file(&e, t, 0, 10), 1, &opts) == 0);
	int64_t s1 = current(t);
	FLOE_CHECK(floe_iceberg_table_append(t, make_file(&e, t, 10, 5), 1, NULL) == 0);
	int64_t s2 = current(t);
	FLOE_CHECK(s1 > 0 && s2 > 0 && s1 != s2);
	FLOE_CHECK(plan_rows(t, -1, &nfiles) == 15 && nfiles == 2);
	FLOE_CHECK(floe_iceberg_table_find_snapshot(t, "floe.run-id", "run-1") == s1);
	const floe_iceberg_snapshot *snap = floe_iceberg_metadata_current_snapshot(floe_iceberg_table_metadata(t));
	FLOE_CHECK_STR(floe_iceberg_snapshot_summary(snap, "total-records"), "15");
	FLOE_CHECK_STR(floe_iceberg_snapshot_summary(snap, "total-data-files"), "2");
	FLOE_CHECK(snap->sequence_number == 2 && snap->has_parent && snap->parent_id == s1);

	FLOE_CHECK(floe_iceberg_table_replace(t, make_file(&e, t, 100, 3), 1, NULL) == 0);
	snap = floe_iceberg_metadata_current_snapshot(floe_iceberg_table_metadata(t));
	FLOE_CHECK_STR(snap->operation, "overwrite");
	FLOE_CHECK_STR(floe_iceberg_snapshot_summary(snap, "deleted-data-files"), "2");
	FLOE_CHECK_STR(floe_iceberg_snapshot_summary(snap, "total-records"), "3");
	FLOE_CHECK(plan_rows(t, -1, &nfiles) == 3 && nfiles == 1);
	/* Time travel: the older snapshots still read as they were. */
	FLOE_CHECK(plan_rows(t, s1, &nfiles) == 10 && nfiles == 1);
	FLOE_CHECK(plan_rows(t, s2, &nfiles) == 15 && nfiles == 2);
	FLOE_CHECK(plan_rows(t, 12345, NULL) == -1);
	/* Replacing with nothing deletes everything. */
	FLOE_CHECK(floe_iceberg_table_replace(t, NULL, 0, NULL) == 0);
	snap = floe_iceberg_metadata_current_snapshot(floe_iceberg_table_metadata(t));
	FLOE_CHECK_STR(snap->operation, "delete");
	FLOE_CHECK(plan_rows(t, -1, &nfiles) == 0 && nfiles == 0);
	/* The standard summary keys are floe's. */
	floe_iceberg_kv bad = { "total-records", "1" };
	opts.summary = &bad;
	floe_error_clear();
	FLOE_CHECK(floe_iceberg_table_append(t, make_file(&e, t, 0, 1), 1, &opts) < 0);
	FLOE_CHECK(floe_error_last() && floe_error_last()->cls == FLOE_ERR_USAGE);
	floe_iceberg_table_free(t);
done:
	env_close(&e);
}

FLOE_TEST(iceberg_table_rewrite_and_conflicts)
{
	env e;
	floe_iceberg_table *a = NULL, *b = NULL;
	floe_iceberg_data_file *f1, *f2;
	size_t nfiles;
	FLOE_CHECK(env_open(&e));
	a = create_table(&e, "t");
	if (!a)
		goto done;
	f1 = make_file(&e, a, 0, 10);
	f2 = make_file(&e, a, 10, 10);
	FLOE_CHECK(floe_iceberg_table_append(a, f1, 1, NULL) == 0);
	FLOE_CHECK(floe_iceberg_table_append(a, f2, 1, NULL) == 0);
	FLOE_CHECK(floe_iceberg_table_load(&b, e.catalog, "bronze", "t") == 0);
	/* a rewrites f1; b, not knowing, tries the same: its file is gone, a conflict. */
	const char *rm[] = { f1->path };
	FLOE_CHECK(floe_iceberg_table_rewrite(a, rm, 1, make_file(&e, a, 0, 4), 1, NULL) == 0);
	FLOE_CHECK(plan_rows(a, -1, &nfiles) == 14 && nfiles == 2);
	size_t before = count_files(floe_arena_printf(e.a, "%s/bronze/t/metadata", e.dir));
	floe_error_clear();
	FLOE_CHECK(floe_iceberg_table_rewrite(b, rm, 1, make_file(&e, b, 0, 5), 1, NULL) < 0);
	FLOE_CHECK(floe_error_last() && floe_error_last()->cls == FLOE_ERR_CONFLICT);
	FLOE_CHECK(floe_error_last() && strstr(floe_error_last()->message, "is not live"));
	/* The lost commit left no metadata file behind. */
	FLOE_CHECK(count_files(floe_arena_printf(e.a, "%s/bronze/t/metadata", e.dir)) == before);
	/* c appends on a stale base: the swap fails once, the append re-applies and lands. */
	floe_iceberg_table *c = NULL;
	FLOE_CHECK(floe_iceberg_table_load(&c, e.catalog, "bronze", "t") == 0);
	FLOE_CHECK(floe_iceberg_table_append(a, make_file(&e, a, 50, 1), 1, NULL) == 0);
	FLOE_CHECK(c && floe_iceberg_table_append(c, make_file(&e, c, 60, 2), 1, NULL) == 0);
	FLOE_CHECK(c && plan_rows(c, -1, &nfiles) == 17 && nfiles == 4);
	const floe_iceberg_snapshot *top = floe_iceberg_metadata_current_snapshot(floe_iceberg_table_metadata(c));
	FLOE_CHECK(top && top->parent_id == current(a) && top->sequence_number == 5);
	/* expect_snapshot_id guards exactly-once loads. */
	floe_iceberg_commit_opts opts = FLOE_ICEBERG_COMMIT_OPTS_INIT;
	opts.expect_snapshot_id = current(a); /* a is one behind now */
	floe_error_clear();
	FLOE_CHECK(floe_iceberg_table_append(a, make_file(&e, a, 70, 1), 1, &opts) < 0);
	FLOE_CHECK(floe_error_last() && floe_error_last()->cls == FLOE_ERR_CONFLICT);
	floe_iceberg_table_free(c);
	floe_iceberg_table_free(b);
	floe_iceberg_table_free(a);
done:
	env_close(&e);
}

FLOE_TEST(iceberg_table_schema_evolution)
{
	env e;
	floe_iceberg_table *a = NULL, *b = NULL;
	FLOE_CHECK(env_open(&e));
	a = create_table(&e, "t");
	if (!a)
		goto done;
	FLOE_CHECK(floe_iceberg_table_append(a, make_file(&e, a, 0, 3), 1, NULL) == 0);
	FLOE_CHECK(floe_iceberg_table_load(&b, e.catalog, "bronze", "t") == 0);
	floe_iceberg_schema_change ch[] = {
		{ FLOE_ICEBERG_WIDEN_COLUMN, "v", NULL, floe_iceberg_type_new(e.a, FLOE_ICEBERG_LONG), NULL, 0, NULL, 0 },
		{ FLOE_ICEBERG_ADD_COLUMN, "note", NULL, floe_iceberg_type_new(e.a, FLOE_ICEBERG_STRING), NULL, 0, NULL, 0 },
		{ FLOE_ICEBERG_RENAME_COLUMN, "id", "order_id", NULL, NULL, 0, NULL, 0 },
	};
	FLOE_CHECK(floe_iceberg_table_update_schema(a, ch, 3, NULL) == 0);
	const floe_iceberg_metadata *m = floe_iceberg_table_metadata(a);
	FLOE_CHECK(m->current_schema_id == 1 && m->n_schemas == 2 && m->last_column_id == 3);
	FLOE_CHECK(floe_iceberg_schema_field(floe_iceberg_metadata_current_schema(m), "order_id")->id == 1);
	/* The old snapshot keeps its schema id. */
	FLOE_CHECK(m->snapshots[0].schema_id == 0);
	/* b's view of the schema is stale: a conflict, not a silent merge. */
	floe_error_clear();
	FLOE_CHECK(floe_iceberg_table_update_schema(b, ch + 1, 1, NULL) < 0);
	FLOE_CHECK(floe_error_last() && floe_error_last()->cls == FLOE_ERR_CONFLICT);
	/* Reverting to an earlier shape reuses that schema id. */
	floe_iceberg_schema_change back = { FLOE_ICEBERG_RENAME_COLUMN, "order_id", "id", NULL, NULL, 0, NULL, 0 };
	FLOE_CHECK(floe_iceberg_table_update_schema(a, &back, 1, NULL) == 0);
	FLOE_CHECK(floe_iceberg_table_metadata(a)->current_schema_id == 2);
	/* Properties. */
	floe_iceberg_kv props[] = { { "write.metadata.previous-versions-max", "2" },
				    { "write.metadata.delete-after-commit.enabled", "true" } };
	FLOE_CHECK(floe_iceberg_table_set_properties(a, props, 2, NULL, 0) == 0);
	FLOE_CHECK_STR(floe_iceberg_metadata_property(floe_iceberg_table_metadata(a),
						      "write.metadata.previous-versions-max"), "2");
	for (int i = 0; i < 3; i++)
		FLOE_CHECK(floe_iceberg_table_append(a, make_file(&e, a, 10 * i, 1), 1, NULL) == 0);
	m = floe_iceberg_table_metadata(a);
	FLOE_CHECK(m->n_metadata_log == 2);
	/* Metadata files that fell off the log are gone: current + 2 logged remain. */
	size_t json = 0;
	DIR *d = opendir(floe_arena_printf(e.a, "%s/bronze/t/metadata", e.dir));
	struct dirent *de;
	while (d && (de = readdir(d)) != NULL)
		json += strstr(de->d_name, ".metadata.json") != NULL;
	if (d)
		closedir(d);
	FLOE_CHECK(json == 3);
	floe_iceberg_table_free(b);
	floe_iceberg_table_free(a);
done:
	env_close(&e);
}

FLOE_TEST(iceberg_table_expire_and_orphans)
{
	env e;
	floe_iceberg_table *t = NULL;
	floe_iceberg_cleanup_result res;
	floe_iceberg_data_file *first;
	size_t nfiles;
	FLOE_CHECK(env_open(&e));
	t = create_table(&e, "t");
	if (!t)
		goto done;
	first = make_file(&e, t, 0, 5);
	FLOE_CHECK(floe_iceberg_table_append(t, first, 1, NULL) == 0);
	int64_t s1 = current(t);
	FLOE_CHECK(floe_iceberg_table_append(t, make_file(&e, t, 5, 5), 1, NULL) == 0);
	FLOE_CHECK(floe_iceberg_table_replace(t, make_file(&e, t, 100, 2), 1, NULL) == 0);
	int64_t s3 = current(t);
	FLOE_CHECK(floe_iceberg_table_append(t, make_file(&e, t, 200, 2), 1, NULL) == 0);
	/* The newest two stay; the first two go with the files only they reached. */
	floe_iceberg_expire_opts opts = FLOE_ICEBERG_EXPIRE_OPTS_INIT;
	opts.older_than_ms = floe_iceberg_now_ms() + 1000;
	opts.retain_last = 2;
	FLOE_CHECK(floe_iceberg_table_expire(t, &opts, &res) == 0);
	FLOE_CHECK(res.expired_snapshots == 2);
	FLOE_CHECK(res.deleted_data_files == 2 && res.deleted_manifest_lists == 2);
	FLOE_CHECK(res.deleted_manifests == 2);
	FLOE_CHECK(!floe_fs_exists(floe_iceberg_uri_to_path(e.a, first->path)));
	FLOE_CHECK(floe_iceberg_table_metadata(t)->n_snapshots == 2);
	FLOE_CHECK(floe_iceberg_table_metadata(t)->n_snapshot_log == 2);
	FLOE_CHECK(plan_rows(t, s1, NULL) == -1);
	FLOE_CHECK(plan_rows(t, s3, &nfiles) == 2 && nfiles == 1);
	FLOE_CHECK(plan_rows(t, -1, &nfiles) == 4 && nfiles == 2);
	/* The current snapshot is never expired, even when asked by id. */
	opts.snapshot_ids = &s3;
	opts.n_snapshot_ids = 1;
	FLOE_CHECK(floe_iceberg_table_expire(t, &opts, &res) < 0);
	floe_error_clear();
	/* Orphans: an old stray file goes, one newer than the cut-off stays. */
	const char *stray = floe_arena_printf(e.a, "%s/bronze/t/data/stray.parquet", e.dir);
	FLOE_CHECK(floe_fs_write_atomic(stray, "x", 1, NULL) == 0);
	FLOE_CHECK(floe_iceberg_table_remove_orphans(t, floe_iceberg_now_ms() - 60000, &res) == 0);
	FLOE_CHECK(floe_fs_exists(stray) && res.deleted_data_files == 0);
	FLOE_CHECK(floe_iceberg_table_remove_orphans(t, floe_iceberg_now_ms() + 1000, &res) == 0);
	FLOE_CHECK(!floe_fs_exists(stray) && res.deleted_data_files == 1);
	FLOE_CHECK(plan_rows(t, -1, &nfiles) == 4 && nfiles == 2);
	floe_iceberg_table_free(t);
done:
	env_close(&e);
}

/* A snapshot may reference a file outside the table's location (a REST client chose it): expiry leaves it. */
FLOE_TEST(iceberg_expire_never_deletes_a_file_outside_the_table)
{
	env e;
	floe_iceberg_table *t = NULL;
	floe_iceberg_cleanup_result res;
	floe_buf bytes = FLOE_BUF_INIT;
	FLOE_CHECK(env_open(&e));
	t = create_table(&e, "t");
	floe_iceberg_data_file *f = t ? make_file(&e, t, 0, 5) : NULL;
	if (!f)
		goto done;
	const char *inside = floe_iceberg_uri_to_path(e.a, f->path);
	const char *outside = floe_arena_printf(e.a, "%s/elsewhere.parquet", e.dir);
	FLOE_CHECK(floe_fs_read_file(&bytes, inside) == 0 && floe_fs_write_atomic(outside, bytes.ptr, bytes.len, NULL) == 0);
	f->path = outside;
	FLOE_CHECK(floe_iceberg_table_append(t, f, 1, NULL) == 0);
	FLOE_CHECK(floe_iceberg_table_replace(t, make_file(&e, t, 10, 2), 1, NULL) == 0);
	floe_iceberg_expire_opts opts = FLOE_ICEBERG_EXPIRE_OPTS_INIT;
	opts.older_than_ms = floe_iceberg_now_ms() + 1000;
	opts.retain_last = 1;
	FLOE_CHECK(floe_iceberg_table_expire(t, &opts, &res) == 0);
	FLOE_CHECK(res.expired_snapshots == 1 && res.deleted_data_files == 0);
	FLOE_CHECK(floe_fs_exists(outside));
	floe_iceberg_table_free(t);
done:
	floe_buf_free(&bytes);
	env_close(&e);
}

/* ---- a lost catalog ---- */

FLOE_TEST(iceberg_lost_catalog_is_refused_then_recovered)
{
	env e;
	floe_iceberg_table *t = NULL;
	floe_iceberg_recovered *r = NULL;
	size_t n = 0;
	FLOE_CHECK(env_open(&e));
	t = create_table(&e, "a");
	floe_iceberg_table *empty = create_table(&e, "b");
	if (!t || !empty)
		goto done;
	FLOE_CHECK(floe_iceberg_table_append(t, make_file(&e, t, 0, 5), 1, NULL) == 0);
	int64_t first = current(t);
	FLOE_CHECK(floe_iceberg_table_append(t, make_file(&e, t, 5, 5), 1, NULL) == 0);
	const char *newest = floe_arena_strdup(e.a, floe_iceberg_table_metadata_location(t));
	const char *list = floe_iceberg_metadata_current_snapshot(floe_iceberg_table_metadata(t))->manifest_list;
	FLOE_CHECK(unlink(floe_iceberg_uri_to_path(e.a, list)) == 0); /* the newest metadata is now unusable */
	floe_iceberg_table_free(t);
	floe_iceberg_table_free(empty);
	t = NULL;
	floe_iceberg_catalog_free(e.catalog);
	e.catalog = NULL;
	const char *db = floe_arena_printf(e.a, "%s/catalog.db", e.dir);
	FLOE_CHECK(unlink(db) == 0);

	/* No catalog is created empty over the tables. */
	floe_iceberg_catalog_opts co = FLOE_ICEBERG_CATALOG_OPTS_INIT;
	co.create = true;
	FLOE_CHECK(floe_iceberg_catalog_open_sql(&e.catalog, db, &co) < 0 && !floe_fs_exists(db));
	FLOE_CHECK(floe_error_last()->cls == FLOE_ERR_CONFIG &&
		   strstr(floe_error_last()->hint, "floe catalog recover"));
	floe_error_clear();

	floe_iceberg_recover_opts ro = FLOE_ICEBERG_RECOVER_OPTS_INIT;
	ro.dry_run = true;
	FLOE_CHECK(floe_iceberg_recover(&r, &n, e.a, db, &ro) == 0 && n == 2 && !floe_fs_exists(db));
	ro.dry_run = false;
	FLOE_CHECK(floe_iceberg_recover(&r, &n, e.a, db, &ro) == 0 && n == 2);
	FLOE_CHECK(r[0].action == FLOE_ICEBERG_RECOVER_REGISTERED && strcmp(r[0].name, "a") == 0);
	FLOE_CHECK(r[0].version == 1 && r[0].n_snapshots == 1 && r[0].current_snapshot_id == first);
	FLOE_CHECK(r[0].n_damaged == 1 && strcmp(r[0].damaged[0].file, newest) == 0 &&
		   strstr(r[0].damaged[0].reason, "manifest list"));
	FLOE_CHECK(r[1].action == FLOE_ICEBERG_RECOVER_REGISTERED && r[1].version == 0 && r[1].n_snapshots == 0);
	FLOE_CHECK(floe_iceberg_recover(&r, &n, e.a, db, &ro) == 0 && n == 2);
	FLOE_CHECK(r[0].action == FLOE_ICEBERG_RECOVER_KEPT && r[1].action == FLOE_ICEBERG_RECOVER_KEPT);

	FLOE_CHECK(floe_iceberg_catalog_open_sql(&e.catalog, db, NULL) == 0);
	FLOE_CHECK(floe_iceberg_table_load(&t, e.catalog, "bronze", "a") == 0);
	FLOE_CHECK(t && current(t) == first && plan_rows(t, -1, NULL) == 5);
	floe_iceberg_table_free(t);
done:
	env_close(&e);
}

/* ---- a catalog whose swap can lose its answer ---- */

typedef struct flaky {
	floe_iceberg_catalog *real;
	int mode; /* 0 pass through, 1 swap but say UNKNOWN, 2 fail with UNKNOWN, no swap,
		     3 fail with FAILED (disk full), no swap */
	int swaps;
} flaky;

static int flaky_load(void *s, floe_buf *out, const char *ns, const char *t)
{
	return floe_iceberg_catalog_load(((flaky *)s)->real, out, ns, t);
}

static int flaky_create(void *s, const char *ns, const char *t, const char *loc)
{
	return floe_iceberg_catalog_register(((flaky *)s)->real, ns, t, loc);
}

static int flaky_swap(void *s, const char *ns, const char *t, const char *expected, const char *next,
		      floe_iceberg_swap_outcome *outcome)
{
	flaky *f = s;
	f->swaps++;
	if (f->mode == 3) {
		*outcome = FLOE_ICEBERG_FAILED;
		errno = ENOSPC;
		return floe_error_set_errno(FLOE_ERR_IO, "catalog write failed (test)");
	}
	if (f->mode == 2) {
		*outcome = FLOE_ICEBERG_UNKNOWN;
		return floe_error_set(FLOE_ERR_UNREACHABLE, "catalog unreachable (test)");
	}
	if (floe_iceberg_catalog_swap(f->real, ns, t, expected, next, outcome) < 0)
		return -1;
	if (f->mode == 1) {
		*outcome = FLOE_ICEBERG_UNKNOWN;
		return floe_error_set(FLOE_ERR_UNREACHABLE, "connection lost after the swap (test)");
	}
	return 0;
}

static int flaky_ns(void *s, const char *ns, const floe_iceberg_kv *p, size_t n)
{
	return floe_iceberg_catalog_create_namespace(((flaky *)s)->real, ns, p, n);
}

static int flaky_ns_exists(void *s, const char *ns, bool *out)
{
	return floe_iceberg_catalog_namespace_exists(((flaky *)s)->real, ns, out);
}

static const floe_iceberg_catalog_ops flaky_ops = {
	"flaky", flaky_load, flaky_create, flaky_swap, NULL, flaky_ns, flaky_ns_exists, NULL, NULL, NULL,
	NULL, NULL, NULL, NULL,
};

FLOE_TEST(iceberg_table_unknown_commit_outcome_keeps_files_a_failed_one_deletes_them)
{
	env e;
	flaky f = { 0 };
	floe_iceberg_catalog *cat;
	floe_iceberg_table *t = NULL, *check = NULL;
	FLOE_CHECK(env_open(&e));
	f.real = e.catalog;
	cat = floe_iceberg_catalog_new(&flaky_ops, &f, floe_iceberg_storage_local(),
				       floe_arena_printf(e.a, "file://%s", e.dir));
	FLOE_CHECK(floe_iceberg_table_create(&t, cat, "bronze", "t", test_schema(e.a), NULL) == 0);
	if (!t)
		goto done;
	FLOE_CHECK(floe_iceberg_table_append(t, make_file(&e, t, 0, 3), 1, NULL) == 0);
	const char *meta_dir = floe_arena_printf(e.a, "%s/bronze/t/metadata", e.dir);
	size_t before = count_files(meta_dir);

	/* The swap happened but the answer was lost: an error, and every file stays. */
	f.mode = 1;
	floe_error_clear();
	FLOE_CHECK(floe_iceberg_table_append(t, make_file(&e, t, 3, 3), 1, NULL) < 0);
	FLOE_CHECK(floe_error_last() && floe_error_last()->n_context > 0);
	FLOE_CHECK(count_files(meta_dir) == before + 3); /* manifest, list, metadata */
	FLOE_CHECK(floe_iceberg_table_load(&check, e.catalog, "bronze", "t") == 0);
	FLOE_CHECK(check && plan_rows(check, -1, NULL) == 6);
	floe_iceberg_table_free(check);

	/* No swap and no answer: still nothing deleted; the table is at its last commit. */
	f.mode = 2;
	FLOE_CHECK(floe_iceberg_table_refresh(t) == 0);
	FLOE_CHECK(floe_iceberg_table_append(t, make_file(&e, t, 6, 3), 1, NULL) < 0);
	FLOE_CHECK(count_files(meta_dir) == before + 6);
	FLOE_CHECK(floe_iceberg_table_load(&check, e.catalog, "bronze", "t") == 0);
	FLOE_CHECK(check && plan_rows(check, -1, NULL) == 6);
	/* Those files are orphans, which orphan removal finds. */
	floe_iceberg_cleanup_result res;
	FLOE_CHECK(check && floe_iceberg_table_remove_orphans(check, floe_iceberg_now_ms() + 1000, &res) == 0);
	FLOE_CHECK(res.deleted_manifests == 2 && res.deleted_metadata_files == 1 &&
		   res.deleted_data_files == 1);
	FLOE_CHECK(check && plan_rows(check, -1, NULL) == 6);
	floe_iceberg_table_free(check);
	FLOE_CHECK(floe_iceberg_table_may_have_landed(t));

	/* A swap that failed without a race (disk full): not retried, and the attempt's files go. */
	f.mode = 3;
	f.swaps = 0;
	before = count_files(meta_dir);
	FLOE_CHECK(floe_iceberg_table_append(t, make_file(&e, t, 9, 3), 1, NULL) < 0);
	FLOE_CHECK(f.swaps == 1);
	FLOE_CHECK(floe_error_last() && floe_error_last()->code == FLOE_CODE_DISK_FULL);
	FLOE_CHECK(floe_error_exit_code() == FLOE_EXIT_INTERNAL);
	FLOE_CHECK(count_files(meta_dir) == before);
	FLOE_CHECK(!floe_iceberg_table_may_have_landed(t));
	floe_iceberg_table_free(t);
done:
	floe_iceberg_catalog_free(cat);
	e.catalog = f.real;
	env_close(&e);
}

static size_t manifests_of(env *e, floe_iceberg_table *t)
{
	const floe_iceberg_snapshot *s = floe_iceberg_metadata_current_snapshot(floe_iceberg_table_metadata(t));
	floe_buf data = FLOE_BUF_INIT;
	floe_iceberg_manifest_file *list = NULL;
	size_t n = 0;
	if (!s || floe_fs_read_file(&data, floe_iceberg_uri_to_path(e->a, s->manifest_list)) < 0 ||
	    floe_iceberg_manifest_list_read(&list, &n, e->a, data.ptr, data.len) < 0)
		n = (size_t)-1;
	floe_buf_free(&data);
	return n;
}

FLOE_TEST(iceberg_table_merges_small_manifests)
{
	env e;
	floe_iceberg_table *t;
	floe_iceberg_kv props[] = { { "commit.manifest.min-count-to-merge", "4" } };
	size_t nfiles = 0;
	int64_t first = 0;
	FLOE_CHECK(env_open(&e));
	t = create_table(&e, "t");
	if (!t)
		goto done;
	FLOE_CHECK(floe_iceberg_table_set_properties(t, props, 1, NULL, 0) == 0);
	for (int i = 0; i < 4; i++) {
		FLOE_CHECK(floe_iceberg_table_append(t, make_file(&e, t, 10 * i, 2), 1, NULL) == 0);
		if (i == 0)
			first = current(t);
	}
	FLOE_CHECK(manifests_of(&e, t) == 4); /* the 4th append saw 3 old ones: below the count */
	FLOE_CHECK(floe_iceberg_table_append(t, make_file(&e, t, 100, 2), 1, NULL) == 0);
	FLOE_CHECK(manifests_of(&e, t) == 2); /* the new one, and the 4 old ones merged */
	FLOE_CHECK(plan_rows(t, -1, &nfiles) == 10 && nfiles == 5);
	FLOE_CHECK(plan_rows(t, first, &nfiles) == 2 && nfiles == 1);
	/* Merged entries keep the snapshot that added them and their sequence numbers. */
	floe_iceberg_scan *scan = NULL;
	FLOE_CHECK(floe_iceberg_table_plan(&scan, e.a, t, -1) == 0);
	for (size_t i = 0; scan && i < scan->n_files; i++)
		if (scan->files[i].snapshot_id == first)
			FLOE_CHECK(scan->files[i].data_sequence_number == 1);
	const floe_iceberg_snapshot *snap = floe_iceberg_metadata_current_snapshot(floe_iceberg_table_metadata(t));
	FLOE_CHECK_STR(snap->operation, "append");
	FLOE_CHECK_STR(floe_iceberg_snapshot_summary(snap, "total-data-files"), "5");
	/* Expiring the old snapshots deletes the manifests the merge replaced, not the data. */
	floe_iceberg_expire_opts opts = FLOE_ICEBERG_EXPIRE_OPTS_INIT;
	floe_iceberg_cleanup_result res;
	opts.older_than_ms = floe_iceberg_now_ms() + 1000;
	FLOE_CHECK(floe_iceberg_table_expire(t, &opts, &res) == 0);
	FLOE_CHECK(res.expired_snapshots == 4 && res.deleted_manifests == 4 && res.deleted_data_files == 0);
	FLOE_CHECK(plan_rows(t, -1, &nfiles) == 10 && nfiles == 5);
	floe_iceberg_table_free(t);
done:
	env_close(&e);
}
