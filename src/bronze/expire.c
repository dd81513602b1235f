/*
 * expire.c — floe expire: old snapshots of the bronze tables expired ([warehouse]
 * keep-snapshots / keep-days, or the command's options) and orphan files removed, through
 * the Iceberg library's expiry (which deletes only files no kept snapshot references: data,
 * position delete files, manifests of either content, manifest lists, old metadata).
 */
#include "bronze/bronze_int.h"

#include "base/arena.h"
#include "base/error.h"
#include "iceberg/catalog.h"
#include "iceberg/table.h"

#include <string.h>

static int64_t keep_count(const floe_config *c, const floe_bronze_expire_opts *o)
{
	if (o->keep_snapshots > 0)
		return o->keep_snapshots;
	return c->warehouse.keep_snapshots > 0 ? c->warehouse.keep_snapshots : 1;
}

static int64_t keep_days(const floe_config *c, const floe_bronze_expire_opts *o)
{
	return o->keep_days >= 0 ? o->keep_days : c->warehouse.keep_days;
}

static int expire_one(floe_bronze_expiry *r, floe_iceberg_catalog *cat, const floe_config *c,
		      const floe_bronze_expire_opts *o, const char *name)
{
	floe_iceberg_table *t = NULL;
	floe_iceberg_expire_opts eo = FLOE_ICEBERG_EXPIRE_OPTS_INIT;
	floe_iceberg_cleanup_result res = { 0 }, orphans = { 0 };
	int64_t days = keep_days(c, o), now = floe_iceberg_now_ms();
	int error = -1;
	eo.retain_last = (int)keep_count(c, o);
	eo.older_than_ms = days > 0 ? now - days * INT64_C(86400000) : now + 1;
	if (floe_iceberg_table_load(&t, cat, "bronze", name) < 0)
		goto cleanup;
	r->snapshots_before = (int64_t)floe_iceberg_table_metadata(t)->n_snapshots;
	if (floe_iceberg_table_expire(t, &eo, &res) < 0 ||
	    floe_iceberg_table_remove_orphans(t, now - o->orphan_age_ms, &orphans) < 0)
		goto cleanup;
	r->snapshots_after = (int64_t)floe_iceberg_table_metadata(t)->n_snapshots;
	r->deleted_files = res.deleted_data_files;
	r->deleted_metadata = res.deleted_manifests + res.deleted_manifest_lists + res.deleted_metadata_files;
	r->deleted_orphans = orphans.deleted_data_files + orphans.deleted_manifests + orphans.deleted_manifest_lists +
			     orphans.deleted_metadata_files + orphans.deleted_other_files;
	error = 0;
cleanup:
	floe_iceberg_table_free(t);
	return error;
}

int floe_bronze_expire(floe_bronze_expiry **out, size_t *n, floe_arena *arena, const floe_config *config,
		       const floe_bronze_expire_opts *opts)
{
	floe_lock *lock = NULL;
	floe_iceberg_catalog *cat = NULL;
	floe_iceberg_catalog_opts co = FLOE_ICEBERG_CATALOG_OPTS_INIT;
	int error = -1;
	*out = NULL;
	*n = 0;
	co.warehouse = floe_config_warehouse_dir(config);
	co.create = false;
	if (floe_lock_load(&lock, floe_config_lock_path(arena, config)) < 0 ||
	    floe_iceberg_catalog_open_sql(&cat, floe_config_catalog_path(arena, config), &co) < 0)
		goto cleanup;
	size_t total = floe_lock_count(lock);
	*out = floe_arena_alloc(arena, (total + 1) * sizeof(**out));
	for (size_t i = 0; i < total; i++) {
		const floe_lock_table *t = floe_lock_at(lock, i);
		const char *dot = strchr(t->bronze, '.');
		floe_buf where = FLOE_BUF_INIT;
		if (!bronze_wanted(opts->tables, opts->n_tables, t) || t->owner || !dot)
			continue;
		int found = floe_iceberg_catalog_load(cat, &where, "bronze", dot + 1);
		floe_buf_free(&where);
		if (found == 0)
			continue; /* never loaded */
		floe_bronze_expiry *r = &(*out)[(*n)++];
		r->table = floe_arena_strdup(arena, t->bronze);
		if (found < 0 || expire_one(r, cat, config, opts, dot + 1) < 0) {
			const floe_error *e = floe_error_last();
			r->error = floe_arena_strdup(arena, e ? e->message : "expiry failed");
			floe_error_clear();
		}
	}
	error = 0;
cleanup:
	floe_iceberg_catalog_free(cat);
	floe_lock_free(lock);
	return error;
}
