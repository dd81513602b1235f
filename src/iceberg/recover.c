/*
 * recover.c — registering the tables on disk in a lost (or partly lost) catalog:
 * find each table's metadata files, take the newest valid one, register it as a
 * commit would have left it (recover.h).
 */
#include "iceberg/recover.h"

#include "base/error.h"
#include "base/fs.h"
#include "iceberg/catalog.h"
#include "iceberg/metadata.h"
#include "iceberg/storage.h"
#include "iceberg/table_int.h"

#include <stdlib.h>
#include <string.h>

/* One metadata file found on disk. */
typedef struct candidate {
	const char *table_dir; /* relative to the warehouse: "bronze/orders" */
	const char *uri;
	int64_t version;
} candidate;

typedef struct finder {
	floe_arena *arena;
	const char *prefix; /* warehouse URI with a trailing '/' */
	size_t prefix_len;
	candidate *found;
	size_t n, cap;
	size_t n_tables;
} finder;

static const char metadata_suffix[] = ".metadata.json";
static const char metadata_dir[] = "/metadata/";

static int on_file(void *ctx, const char *uri, int64_t size, int64_t mtime_ms)
{
	finder *f = ctx;
	size_t len = strlen(uri), sl = sizeof(metadata_suffix) - 1;
	(void)size;
	(void)mtime_ms;
	if (strncmp(uri, f->prefix, f->prefix_len) != 0 || len < sl ||
	    strcmp(uri + len - sl, metadata_suffix) != 0)
		return 0;
	const char *rel = uri + f->prefix_len;
	const char *name = strrchr(rel, '/');
	size_t dl = sizeof(metadata_dir) - 1;
	/* <ns levels>/<table>/metadata/<name>: the table directory has at least two levels */
	if (!name || (size_t)(name + 1 - rel) < dl || strncmp(name + 1 - dl, metadata_dir, dl) != 0)
		return 0;
	const char *table_dir = floe_arena_strndup(f->arena, rel, (size_t)(name + 1 - dl - rel));
	if (!strchr(table_dir, '/'))
		return 0;
	/* A directory's files are listed together: a new table is one unlike the last file's. */
	f->n_tables += f->n == 0 || strcmp(f->found[f->n - 1].table_dir, table_dir) != 0;
	candidate *c = FLOE_ARENA_PUSH(f->arena, f->found, f->n, f->cap);
	c->table_dir = table_dir;
	c->uri = floe_arena_strdup(f->arena, uri);
	c->version = floe_iceberg_metadata_version(uri);
	return 0;
}

/* Every metadata file under `warehouse_dir`, into f->found. */
static int find_metadata(finder *f, floe_iceberg_storage *st, const char *warehouse_dir)
{
	const char *uri = floe_iceberg_path_to_uri(f->arena, warehouse_dir);
	if (!uri)
		return -1;
	size_t len = strlen(uri);
	while (len > 1 && uri[len - 1] == '/')
		len--;
	f->prefix = floe_arena_printf(f->arena, "%.*s/", (int)len, uri);
	f->prefix_len = strlen(f->prefix);
	return floe_iceberg_storage_list(st, f->prefix, on_file, f);
}

int floe_iceberg_warehouse_count_tables(size_t *out, const char *warehouse_dir)
{
	floe_arena *arena = floe_arena_new();
	floe_iceberg_storage *st = floe_iceberg_storage_local();
	finder f = { .arena = arena };
	int rc = find_metadata(&f, st, warehouse_dir);
	*out = f.n_tables;
	floe_iceberg_storage_free(st);
	floe_arena_free(arena);
	return rc;
}

/* By table, then newest first (version, then name: deterministic among equals). */
static int by_table_newest(const void *a, const void *b)
{
	const candidate *x = a, *y = b;
	int c = strcmp(x->table_dir, y->table_dir);
	if (c)
		return c;
	if (x->version != y->version)
		return x->version > y->version ? -1 : 1;
	return -strcmp(x->uri, y->uri);
}

const char *floe_iceberg_recover_action_name(floe_iceberg_recover_action action, bool dry_run)
{
	switch (action) {
	case FLOE_ICEBERG_RECOVER_REGISTERED:
		return dry_run ? "would register" : "registered";
	case FLOE_ICEBERG_RECOVER_REPAIRED:
		return dry_run ? "would repair" : "repaired";
	case FLOE_ICEBERG_RECOVER_KEPT:
		return "kept";
	case FLOE_ICEBERG_RECOVER_FAILED:
		break;
	}
	return "not recoverable";
}

/* Whether the metadata at `uri` parses and its current manifest list exists; why not in *why. */
static bool valid_metadata(floe_iceberg_recovered *r, floe_arena *a, floe_iceberg_storage *st,
			   const char *uri, const char **why)
{
	floe_buf text = FLOE_BUF_INIT;
	floe_iceberg_metadata *m = NULL;
	int64_t size = 0;
	bool ok = false;
	if (floe_iceberg_storage_read(st, &text, uri) < 0 ||
	    floe_iceberg_metadata_parse(&m, a, text.ptr, text.len) < 0) {
		*why = floe_arena_strdup(a, floe_error_last() ? floe_error_last()->message : "unreadable");
		goto cleanup;
	}
	const floe_iceberg_snapshot *cur = floe_iceberg_metadata_current_snapshot(m);
	if (cur && floe_iceberg_storage_size(st, cur->manifest_list, &size) < 0) {
		*why = floe_arena_printf(a, "the manifest list of its current snapshot %lld is missing: %s",
					 (long long)cur->snapshot_id, cur->manifest_list);
		goto cleanup;
	}
	r->n_snapshots = m->n_snapshots;
	r->current_snapshot_id = cur ? cur->snapshot_id : -1;
	ok = true;
cleanup:
	floe_error_clear();
	floe_buf_free(&text);
	return ok;
}

/* Choose the newest valid file among `c[0..n)` (one table, newest first). */
static void choose(floe_iceberg_recovered *r, floe_arena *a, floe_iceberg_storage *st,
		   const candidate *c, size_t n)
{
	size_t cap = 0;
	r->action = FLOE_ICEBERG_RECOVER_FAILED;
	r->version = -1;
	r->current_snapshot_id = -1;
	for (size_t i = 0; i < n; i++) {
		const char *why = NULL;
		if (valid_metadata(r, a, st, c[i].uri, &why)) {
			r->action = FLOE_ICEBERG_RECOVER_REGISTERED;
			r->metadata_location = c[i].uri;
			r->version = c[i].version;
			return;
		}
		floe_iceberg_damaged *d = FLOE_ARENA_PUSH(a, r->damaged, r->n_damaged, cap);
		d->file = c[i].uri;
		d->reason = why;
	}
}

/* Split "a/b/table" into namespace "a.b" and name "table". */
static void name_table(floe_iceberg_recovered *r, floe_arena *a, const char *table_dir)
{
	char *ns = floe_arena_strdup(a, table_dir);
	char *slash = strrchr(ns, '/');
	*slash = '\0';
	r->name = slash + 1;
	for (char *p = ns; *p; p++)
		if (*p == '/')
			*p = '.';
	r->ns = ns;
}

/* Register (or keep, or repair) one chosen table in `cat` (NULL: nothing registered yet). */
static int apply(floe_iceberg_recovered *r, floe_arena *a, floe_iceberg_catalog *cat,
		 floe_iceberg_storage *st, bool dry_run)
{
	floe_buf now = FLOE_BUF_INIT;
	int64_t size;
	int found = 0, error = -1;
	if (cat && (found = floe_iceberg_catalog_load(cat, &now, r->ns, r->name)) < 0)
		goto cleanup;
	if (found && floe_iceberg_storage_size(st, floe_buf_cstr(&now), &size) == 0) {
		r->action = FLOE_ICEBERG_RECOVER_KEPT; /* the catalog is the truth while it has the table */
		r->metadata_location = floe_arena_strdup(a, floe_buf_cstr(&now));
		r->version = floe_iceberg_metadata_version(r->metadata_location);
		r->n_damaged = 0; /* files the catalog does not point at: not this table's concern */
		error = 0;
		goto cleanup;
	}
	floe_error_clear();
	if (r->action == FLOE_ICEBERG_RECOVER_FAILED || dry_run) {
		if (found && r->action != FLOE_ICEBERG_RECOVER_FAILED)
			r->action = FLOE_ICEBERG_RECOVER_REPAIRED;
		error = 0;
		goto cleanup;
	}
	if (found) {
		floe_iceberg_swap_outcome outcome;
		if (floe_iceberg_catalog_swap(cat, r->ns, r->name, floe_buf_cstr(&now), r->metadata_location,
					      &outcome) < 0)
			goto cleanup;
		if (outcome != FLOE_ICEBERG_SWAPPED) {
			floe_error_set(FLOE_ERR_CONFLICT, "table %s.%s changed in the catalog while recovering",
				       r->ns, r->name);
			floe_error_hint("Stop every other floe process on this project and run the recovery again.");
			goto cleanup;
		}
		r->action = FLOE_ICEBERG_RECOVER_REPAIRED;
	} else {
		bool exists = false;
		if (floe_iceberg_catalog_namespace_exists(cat, r->ns, &exists) < 0 ||
		    (!exists && floe_iceberg_catalog_create_namespace(cat, r->ns, NULL, 0) < 0) ||
		    floe_iceberg_catalog_register(cat, r->ns, r->name, r->metadata_location) < 0)
			goto cleanup;
	}
	error = 0;
cleanup:
	if (error < 0)
		floe_error_context("while recovering table %s.%s", r->ns, r->name);
	floe_buf_free(&now);
	return error;
}

/* The catalog to register in: created when missing; NULL on a dry run without one. */
static int open_catalog(floe_iceberg_catalog **out, const char *path, const floe_iceberg_recover_opts *opts)
{
	floe_iceberg_catalog_opts co = FLOE_ICEBERG_CATALOG_OPTS_INIT;
	*out = NULL;
	co.name = opts->catalog_name;
	co.create = !opts->dry_run;
	co.recovering = true;
	if (opts->dry_run && !floe_fs_exists(path))
		return 0;
	return floe_iceberg_catalog_open_sql(out, path, &co);
}

int floe_iceberg_recover(floe_iceberg_recovered **out, size_t *n, floe_arena *arena,
			 const char *catalog_path, const floe_iceberg_recover_opts *opts)
{
	floe_iceberg_recover_opts defaults = FLOE_ICEBERG_RECOVER_OPTS_INIT;
	floe_iceberg_storage *st = floe_iceberg_storage_local();
	floe_iceberg_catalog *cat = NULL;
	finder f = { .arena = arena };
	size_t cap = 0;
	int error = -1;
	*out = NULL;
	*n = 0;
	if (!opts)
		opts = &defaults;
	const char *slash = strrchr(catalog_path, '/');
	const char *warehouse = slash ? floe_arena_strndup(arena, catalog_path, (size_t)(slash - catalog_path)) : ".";
	if (find_metadata(&f, st, *warehouse ? warehouse : "/") < 0 || open_catalog(&cat, catalog_path, opts) < 0)
		goto cleanup;
	if (f.n)
		qsort(f.found, f.n, sizeof(*f.found), by_table_newest);
	for (size_t i = 0, j; i < f.n; i = j) {
		for (j = i + 1; j < f.n && strcmp(f.found[j].table_dir, f.found[i].table_dir) == 0; j++)
			;
		floe_iceberg_recovered *r = FLOE_ARENA_PUSH(arena, *out, *n, cap);
		memset(r, 0, sizeof(*r));
		name_table(r, arena, f.found[i].table_dir);
		choose(r, arena, st, &f.found[i], j - i);
		if (apply(r, arena, cat, st, opts->dry_run) < 0) {
			/* This table stays unregistered, with the reason; the others go on. */
			const floe_error *e = floe_error_last();
			r->action = FLOE_ICEBERG_RECOVER_FAILED;
			r->error = floe_arena_strdup(arena, e && e->message ? e->message : "not registered");
			floe_error_clear();
		}
	}
	error = 0;
cleanup:
	floe_iceberg_catalog_free(cat);
	floe_iceberg_storage_free(st);
	return error;
}
