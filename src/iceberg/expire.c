/*
 * expire.c — snapshot expiry and orphan removal: the only places floe deletes a
 * table's committed files.
 *
 * Expiry commits metadata without the expired snapshots first, and deletes files
 * only after that commit landed, only those no retained snapshot reaches: the
 * expired snapshots' manifest lists, their manifests that no retained snapshot
 * lists, and the data files in those manifests that no retained snapshot has live.
 * Metadata files are deleted when they are older (by version) than the current one
 * and no longer in the metadata log. A writer racing the expiry computes on the
 * current snapshot, which is always retained, or loses its swap and recomputes.
 *
 * Orphan removal deletes what nothing in the current metadata reaches and that is
 * older than a cut-off: the files of commits that never landed.
 */
#include "iceberg/table_int.h"

#include "base/error.h"
#include "base/log.h"
#include "base/text.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX_SNAPSHOT_AGE_MS (5LL * 24 * 3600 * 1000)
#define DEFAULT_MIN_SNAPSHOTS 1

/* ---- sets of paths (normalised: `file:` URIs and plain paths compare equal) ---- */

typedef struct path_set {
	const char **items;
	size_t n, cap;
	bool sorted;
} path_set;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const char *norm(floe_arena *a, const char *uri)
{
	return floe_iceberg_uri_key(a, uri);
}

static void set_add(floe_arena *a, path_set *s, const char *uri)
{
	*FLOE_ARENA_PUSH(a, s->items, s->n, s->cap) = norm(a, uri);
	s->sorted = false;
}

static void set_seal(path_set *s)
{
	size_t k = 0;
	if (s->sorted)
		return;
	if (s->n)
		qsort(s->items, s->n, sizeof(*s->items), cmp_str);
	for (size_t i = 0; i < s->n; i++)
		if (k == 0 || strcmp(s->items[k - 1], s->items[i]) != 0)
			s->items[k++] = s->items[i];
	s->n = k;
	s->sorted = true;
}

static bool set_has(floe_arena *a, path_set *s, const char *uri)
{
	const char *key = norm(a, uri);
	set_seal(s);
	return s->n && bsearch(&key, s->items, s->n, sizeof(*s->items), cmp_str) != NULL;
}

/* ---- what snapshots reach ---- */

typedef struct reach {
	path_set lists, manifests, live_data, all_data;
} reach;

/* Add what `snaps` reach to `r`; manifests already in r->manifests are not read again. */
static int walk_snapshots(floe_iceberg_table *t, floe_arena *a, const floe_iceberg_snapshot *snaps,
			  size_t n, reach *r, path_set *skip_manifests)
{
	for (size_t i = 0; i < n; i++) {
		floe_iceberg_manifest_file *list = NULL;
		size_t nl = 0;
		set_add(a, &r->lists, snaps[i].manifest_list);
		if (floe_iceberg_read_manifest_list(t, a, snaps[i].manifest_list, &list, &nl) < 0)
			return -1;
		for (size_t j = 0; j < nl; j++) {
			floe_iceberg_manifest_entry *e = NULL;
			size_t ne = 0;
			if (set_has(a, &r->manifests, list[j].path) ||
			    (skip_manifests && set_has(a, skip_manifests, list[j].path)))
				continue;
			set_add(a, &r->manifests, list[j].path);
			if (floe_iceberg_read_manifest(t, a, &list[j], &e, &ne) < 0)
				return -1;
			for (size_t k = 0; k < ne; k++) {
				set_add(a, &r->all_data, e[k].file.path);
				if (e[k].status != FLOE_ICEBERG_DELETED)
					set_add(a, &r->live_data, e[k].file.path);
			}
		}
	}
	return 0;
}

/*
 * Whether `uri` lies under the table's own location. A snapshot may reference files anywhere (an
 * Iceberg client chose them, e.g. through the REST catalog); those are not the table's to delete.
 */
static bool inside_table(const floe_iceberg_table *t, const char *uri)
{
	floe_arena *a = floe_arena_new();
	const char *root = floe_iceberg_uri_key(a, floe_iceberg_table_location(t));
	const char *key = floe_iceberg_uri_key(a, uri);
	size_t n = strlen(root);
	while (n > 0 && root[n - 1] == '/')
		n--;
	bool inside = n > 0 && strncmp(key, root, n) == 0 && key[n] == '/' && !strstr(key + n, "/../") &&
		      !strstr(key + n, "/./");
	floe_arena_free(a);
	return inside;
}

static void remove_file(floe_iceberg_table *t, const char *uri, size_t *counter)
{
	if (!inside_table(t, uri)) {
		char *shown = floe_text_printable(uri);
		floe_log_warn("left %s in place: it lies outside the table's location", shown);
		free(shown);
		return;
	}
	if (floe_iceberg_storage_remove(floe_iceberg_table_storage(t), uri) == 0)
		(*counter)++;
	else
		floe_error_clear(); /* a file left behind is an orphan, not a failure */
}

/* ---- expiry ---- */

typedef struct expire_op {
	const floe_iceberg_expire_opts *opts;
	floe_arena *arena;                 /* the call's */
	floe_iceberg_snapshot *expired;    /* of the attempt that landed */
	size_t n_expired;
} expire_op;

static bool id_in(const int64_t *ids, size_t n, int64_t id)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/* Snapshots that must stay: ref heads, and each branch's newest `retain` ancestors. */
static int64_t *protected_ids(commit_ctx *c, int retain, size_t *n)
{
	const floe_iceberg_metadata *m = c->base;
	int64_t *ids = floe_arena_alloc(c->arena, (m->n_snapshots + m->n_refs + 1) * sizeof(*ids));
	*n = 0;
	for (size_t i = 0; i < m->n_refs; i++) {
		const floe_iceberg_ref *ref = &m->refs[i];
		int keep = ref->is_tag ? 1 : ref->min_snapshots_to_keep >= 0 ? ref->min_snapshots_to_keep
										 : retain;
		const floe_iceberg_snapshot *s = floe_iceberg_metadata_snapshot(m, ref->snapshot_id);
		if (keep < 1)
			keep = 1;
		for (int k = 0; s && k < keep && *n < m->n_snapshots + m->n_refs; k++) {
			if (!id_in(ids, *n, s->snapshot_id))
				ids[(*n)++] = s->snapshot_id;
			s = s->has_parent ? floe_iceberg_metadata_snapshot(m, s->parent_id) : NULL;
		}
	}
	return ids;
}

static int choose_expired(commit_ctx *c, expire_op *op, bool *expire)
{
	const floe_iceberg_metadata *m = c->base;
	const floe_iceberg_expire_opts *o = op->opts;
	int64_t older = o->older_than_ms >= 0 ? o->older_than_ms
					      : floe_iceberg_now_ms() -
							floe_iceberg_metadata_property_int(
								m, "history.expire.max-snapshot-age-ms",
								DEFAULT_MAX_SNAPSHOT_AGE_MS);
	int retain = o->retain_last >= 0 ? o->retain_last
					 : (int)floe_iceberg_metadata_property_int(
						   m, "history.expire.min-snapshots-to-keep",
						   DEFAULT_MIN_SNAPSHOTS);
	size_t n_protected;
	int64_t *prot = protected_ids(c, retain, &n_protected);
	for (size_t i = 0; i < o->n_snapshot_ids; i++) {
		if (!floe_iceberg_metadata_snapshot(m, o->snapshot_ids[i]))
			return floe_error_set(FLOE_ERR_USAGE, "table %s has no snapshot %" PRId64,
					      c->table->full_name, o->snapshot_ids[i]);
		if (id_in(prot, n_protected, o->snapshot_ids[i]))
			return floe_error_set(FLOE_ERR_USAGE, "snapshot %" PRId64 " of table %s is "
					      "referenced (a branch or tag, or one of the newest kept)",
					      o->snapshot_ids[i], c->table->full_name);
	}
	for (size_t i = 0; i < m->n_snapshots; i++) {
		const floe_iceberg_snapshot *s = &m->snapshots[i];
		if (o->n_snapshot_ids)
			expire[i] = id_in(o->snapshot_ids, o->n_snapshot_ids, s->snapshot_id);
		else
			expire[i] = s->timestamp_ms < older && !id_in(prot, n_protected, s->snapshot_id);
	}
	return 0;
}

static int apply_expire(commit_ctx *c, void *opaque)
{
	expire_op *op = opaque;
	const floe_iceberg_metadata *m = c->base;
	bool *expire = floe_arena_alloc(c->arena, (m->n_snapshots + 1) * sizeof(bool));
	size_t kept = 0, logged = 0;
	op->n_expired = 0;
	if (choose_expired(c, op, expire) < 0)
		return -1;
	op->expired = floe_arena_alloc(op->arena, (m->n_snapshots + 1) * sizeof(*op->expired));
	for (size_t i = 0; i < m->n_snapshots; i++) {
		if (!expire[i])
			continue;
		op->expired[op->n_expired] = m->snapshots[i];
		op->expired[op->n_expired++].manifest_list = floe_arena_strdup(op->arena,
									      m->snapshots[i].manifest_list);
	}
	if (op->n_expired == 0)
		return 0; /* nothing to commit; files may still be cleaned */
	c->next = floe_iceberg_commit_next(c);
	for (size_t i = 0; i < m->n_snapshots; i++)
		if (!expire[i])
			c->next->snapshots[kept++] = m->snapshots[i];
	c->next->n_snapshots = kept;
	for (size_t i = 0; i < m->n_snapshot_log; i++)
		if (floe_iceberg_metadata_snapshot(c->next, m->snapshot_log[i].snapshot_id))
			c->next->snapshot_log[logged++] = m->snapshot_log[i];
	c->next->n_snapshot_log = logged;
	return 0;
}

typedef struct meta_sweep {
	floe_iceberg_table *t;
	floe_arena *a;
	path_set *keep;
	int64_t current_version;
	size_t *counter;
} meta_sweep;

static int sweep_metadata(void *ctx, const char *uri, int64_t size, int64_t mtime_ms)
{
	meta_sweep *s = ctx;
	size_t len = strlen(uri);
	int64_t v = floe_iceberg_metadata_version(uri);
	(void)size;
	(void)mtime_ms;
	if (len < 14 || strcmp(uri + len - 14, ".metadata.json") != 0 || v < 0 ||
	    v >= s->current_version || set_has(s->a, s->keep, uri))
		return 0;
	remove_file(s->t, uri, s->counter);
	return 0;
}

/* Delete what only the expired snapshots reached, and metadata files off the log. */
static int delete_expired_files(floe_iceberg_table *t, expire_op *op,
				floe_iceberg_cleanup_result *res)
{
	const floe_iceberg_metadata *m = floe_iceberg_table_metadata(t);
	floe_arena *a = floe_arena_new();
	reach keep = { 0 }, gone = { 0 };
	path_set meta = { 0 };
	int error = -1;
	if (walk_snapshots(t, a, m->snapshots, m->n_snapshots, &keep, NULL) < 0 ||
	    walk_snapshots(t, a, op->expired, op->n_expired, &gone, &keep.manifests) < 0)
		goto cleanup;
	for (size_t i = 0; i < gone.all_data.n; i++)
		if (!set_has(a, &keep.live_data, gone.all_data.items[i]))
			remove_file(t, gone.all_data.items[i], &res->deleted_data_files);
	for (size_t i = 0; i < gone.manifests.n; i++)
		remove_file(t, gone.manifests.items[i], &res->deleted_manifests);
	for (size_t i = 0; i < gone.lists.n; i++)
		if (!set_has(a, &keep.lists, gone.lists.items[i]))
			remove_file(t, gone.lists.items[i], &res->deleted_manifest_lists);
	set_add(a, &meta, floe_iceberg_table_metadata_location(t));
	for (size_t i = 0; i < m->n_metadata_log; i++)
		set_add(a, &meta, m->metadata_log[i].file);
	meta_sweep sweep = { t, a, &meta, floe_iceberg_metadata_version(
						     floe_iceberg_table_metadata_location(t)),
			     &res->deleted_metadata_files };
	if (floe_iceberg_storage_list(floe_iceberg_table_storage(t),
				      floe_iceberg_metadata_uri(a, m, ""), sweep_metadata, &sweep) < 0)
		goto cleanup;
	error = 0;
cleanup:
	floe_arena_free(a);
	return error;
}

int floe_iceberg_table_expire(floe_iceberg_table *table, const floe_iceberg_expire_opts *opts,
			      floe_iceberg_cleanup_result *result)
{
	floe_iceberg_expire_opts defaults = FLOE_ICEBERG_EXPIRE_OPTS_INIT;
	floe_iceberg_cleanup_result local;
	expire_op op = { opts ? opts : &defaults, floe_arena_new(), NULL, 0 };
	commit_change ch = { "a snapshot expiry", apply_expire, NULL, NULL, &op };
	int rc;
	if (!result)
		result = &local;
	memset(result, 0, sizeof(*result));
	rc = floe_iceberg_commit(table, &ch, NULL);
	if (rc == 0) {
		result->expired_snapshots = op.n_expired;
		rc = delete_expired_files(table, &op, result);
	}
	if (rc < 0)
		floe_error_context("while expiring snapshots of table %s", table->full_name);
	floe_arena_free(op.arena);
	return rc;
}

/* ---- orphans ---- */

typedef struct orphan_sweep {
	floe_iceberg_table *t;
	floe_arena *a;
	reach *refs;
	path_set *meta;
	int64_t older_than_ms;
	floe_iceberg_cleanup_result *res;
} orphan_sweep;

static int sweep_orphan(void *ctx, const char *uri, int64_t size, int64_t mtime_ms)
{
	orphan_sweep *s = ctx;
	size_t len = strlen(uri);
	(void)size;
	if (mtime_ms >= s->older_than_ms || set_has(s->a, &s->refs->all_data, uri) ||
	    set_has(s->a, &s->refs->manifests, uri) || set_has(s->a, &s->refs->lists, uri) ||
	    set_has(s->a, s->meta, uri))
		return 0;
	if (len > 14 && strcmp(uri + len - 14, ".metadata.json") == 0)
		remove_file(s->t, uri, &s->res->deleted_metadata_files);
	else if (len > 5 && strcmp(uri + len - 5, ".avro") == 0)
		remove_file(s->t, uri, &s->res->deleted_manifests);
	else if (strstr(uri, "/data/"))
		remove_file(s->t, uri, &s->res->deleted_data_files);
	else
		remove_file(s->t, uri, &s->res->deleted_other_files);
	return 0;
}

int floe_iceberg_table_remove_orphans(floe_iceberg_table *table, int64_t older_than_ms,
				      floe_iceberg_cleanup_result *result)
{
	floe_iceberg_cleanup_result local;
	floe_arena *a = floe_arena_new();
	reach refs = { 0 };
	path_set meta = { 0 };
	int error = -1;
	if (!result)
		result = &local;
	memset(result, 0, sizeof(*result));
	/* Read the newest state first: a commit that landed just now is not an orphan. */
	if (floe_iceberg_table_refresh(table) < 0)
		goto cleanup;
	const floe_iceberg_metadata *m = floe_iceberg_table_metadata(table);
	if (walk_snapshots(table, a, m->snapshots, m->n_snapshots, &refs, NULL) < 0)
		goto cleanup;
	set_add(a, &meta, floe_iceberg_table_metadata_location(table));
	for (size_t i = 0; i < m->n_metadata_log; i++)
		set_add(a, &meta, m->metadata_log[i].file);
	orphan_sweep sweep = { table, a, &refs, &meta, older_than_ms, result };
	if (floe_iceberg_storage_list(floe_iceberg_table_storage(table), m->location, sweep_orphan,
				      &sweep) < 0)
		goto cleanup;
	error = 0;
cleanup:
	if (error < 0)
		floe_error_context("while removing orphan files of table %s", table->full_name);
	floe_arena_free(a);
	return error;
}
