/*
 * snapshot.c — changes that make a snapshot: append, replace (overwrite all), and
 * rewrite (remove given files, add new ones).
 *
 * A new snapshot's manifest list holds, in order: one manifest of the added files
 * (ADDED entries, sequence numbers left null to be inherited), manifests rewritten
 * because files in them were removed (survivors EXISTING, removed ones DELETED, both
 * with explicit sequence numbers), and the parent's other manifests as they are.
 * The added-files manifest does not depend on the base, so it is written once and
 * reused by every attempt; everything else is redone on a retry, on the fresh base,
 * after checking the files to remove are still live.
 */
#include "iceberg/table_int.h"

#include "base/error.h"
#include "base/text.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef enum snap_kind { OP_APPEND, OP_REPLACE, OP_REWRITE } snap_kind;

/* The manifest of files a snapshot adds (data, or position deletes), reused across attempts. */
typedef struct added_manifest {
	floe_iceberg_content content;
	floe_iceberg_data_file *files;
	size_t n;
	bool have;                       /* written */
	floe_iceberg_manifest_file mf;
	int32_t schema_id;
} added_manifest;

typedef struct snapshot_op {
	snap_kind kind;
	floe_arena *arena;               /* lives as long as the call */
	added_manifest data, deletes;
	const char **remove;             /* sorted, unique */
	size_t n_remove;
	const char *commit_uuid;
	int64_t snapshot_id;
	int manifests_written;           /* for <uuid>-m<N>.avro */
} snapshot_op;

/* What the new snapshot changes, for its summary. */
typedef struct delta {
	int64_t added_files, added_records, added_size;
	int64_t deleted_files, deleted_records, deleted_size;
	int64_t added_delete_files, added_pos_deletes, removed_delete_files, removed_pos_deletes;
	bool *found; /* per removed path */
} delta;

typedef struct manifest_vec {
	floe_iceberg_manifest_file *items;
	size_t n;
} manifest_vec;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const char *new_manifest_uri(commit_ctx *c, snapshot_op *op)
{
	return floe_iceberg_metadata_uri(c->arena, c->base,
					 floe_arena_printf(c->arena, "%s-m%d.avro", op->commit_uuid,
							   op->manifests_written++));
}

/* Write `entries` as a new manifest; `mf` gets its summary (caller sets seq, snapshot). */
static int write_manifest(commit_ctx *c, snapshot_op *op, floe_iceberg_manifest_file *mf,
			  const floe_iceberg_manifest_entry *entries, size_t n, bool reusable)
{
	floe_iceberg_manifest_header h = { floe_iceberg_metadata_current_schema(c->base),
					   floe_iceberg_metadata_spec(c->base, c->base->default_spec_id),
					   mf->content };
	floe_buf data = FLOE_BUF_INIT;
	int error = -1;
	const char *uri = new_manifest_uri(c, op);
	if (floe_iceberg_manifest_write(&data, mf, &h, entries, n) < 0)
		goto cleanup;
	if (reusable) {
		uri = floe_arena_strdup(op->arena, uri);
		if (floe_iceberg_storage_create(floe_iceberg_table_storage(c->table), uri, data.ptr,
						data.len) < 0)
			goto cleanup;
	} else if (floe_iceberg_commit_write(c, uri, &data) < 0) {
		goto cleanup;
	}
	mf->path = uri;
	mf->length = (int64_t)data.len;
	error = 0;
cleanup:
	floe_buf_free(&data);
	return error;
}

static void drop_added(floe_iceberg_table *t, snapshot_op *op)
{
	added_manifest *all[2] = { &op->data, &op->deletes };
	for (size_t i = 0; i < 2; i++) {
		if (all[i]->have)
			floe_iceberg_storage_remove(floe_iceberg_table_storage(t), all[i]->mf.path);
		all[i]->have = false;
	}
}

/* A manifest of added files, written on the first attempt and reused after. */
static int ensure_added(commit_ctx *c, snapshot_op *op, added_manifest *am)
{
	floe_iceberg_manifest_entry *entries;
	if (am->have && am->schema_id == c->base->current_schema_id)
		return 0;
	if (am->have)
		floe_iceberg_storage_remove(floe_iceberg_table_storage(c->table), am->mf.path);
	am->have = false;
	entries = floe_arena_alloc(c->arena, am->n * sizeof(*entries));
	for (size_t i = 0; i < am->n; i++) {
		entries[i].status = FLOE_ICEBERG_ADDED;
		entries[i].snapshot_id = op->snapshot_id;
		entries[i].sequence_number = entries[i].file_sequence_number = -1;
		entries[i].file = am->files[i];
	}
	memset(&am->mf, 0, sizeof(am->mf));
	am->mf.content = am->content;
	am->mf.added_snapshot_id = op->snapshot_id;
	if (write_manifest(c, op, &am->mf, entries, am->n, true) < 0)
		return -1;
	am->have = true;
	am->schema_id = c->base->current_schema_id;
	return 0;
}

/* Count a removed file (data or delete) into the snapshot's delta. */
static void count_removed(delta *d, const floe_iceberg_data_file *f)
{
	if (f->content == FLOE_ICEBERG_CONTENT_DATA) {
		d->deleted_files++;
		d->deleted_records += f->record_count;
		d->deleted_size += f->file_size_in_bytes;
	} else {
		d->removed_delete_files++;
		d->removed_pos_deletes += f->record_count;
	}
}

static bool is_removed(const snapshot_op *op, const char *path, size_t *index)
{
	const char **hit = op->n_remove ? bsearch(&path, op->remove, op->n_remove, sizeof(*op->remove),
						   cmp_str)
					: NULL;
	if (hit)
		*index = (size_t)(hit - op->remove);
	return hit != NULL;
}

/*
 * Rewrite one parent manifest without the removed files: 1 when rewritten (into *out),
 * 0 when untouched, -1 on error.
 */
static int filter_manifest(commit_ctx *c, snapshot_op *op, const floe_iceberg_manifest_file *mf,
			   int64_t seq, delta *d, floe_iceberg_manifest_file *out)
{
	floe_iceberg_manifest_entry *entries = NULL, *kept;
	size_t n = 0, k = 0, idx;
	bool touched = op->kind == OP_REPLACE;
	if (floe_iceberg_read_manifest(c->table, c->arena, mf, &entries, &n) < 0)
		return -1;
	kept = floe_arena_alloc(c->arena, (n + 1) * sizeof(*kept));
	for (size_t i = 0; i < n; i++) {
		floe_iceberg_manifest_entry e = entries[i];
		if (e.status == FLOE_ICEBERG_DELETED)
			continue; /* deletions of earlier snapshots are not carried */
		bool gone = op->kind == OP_REPLACE || is_removed(op, e.file.path, &idx);
		if (gone) {
			if (op->kind == OP_REWRITE) {
				if (d->found[idx])
					return floe_error_set(FLOE_ERR_INTERNAL, "file \"%s\" is live twice "
							      "in table %s", e.file.path, c->table->full_name);
				d->found[idx] = true;
			}
			touched = true;
			e.status = FLOE_ICEBERG_DELETED;
			e.snapshot_id = op->snapshot_id;
			count_removed(d, &e.file);
		} else {
			e.status = FLOE_ICEBERG_EXISTING;
		}
		kept[k++] = e;
	}
	if (!touched)
		return 0;
	memset(out, 0, sizeof(*out));
	out->content = mf->content;
	out->sequence_number = seq;
	out->added_snapshot_id = op->snapshot_id;
	if (write_manifest(c, op, out, kept, k, false) < 0)
		return -1;
	return 1;
}

/* Read a manifest's live entries as EXISTING ones (explicit sequence numbers) into *v. */
static int collect_live(commit_ctx *c, const floe_iceberg_manifest_file *mf,
			floe_iceberg_manifest_entry **v, size_t *n, size_t *cap)
{
	floe_iceberg_manifest_entry *entries = NULL;
	size_t ne = 0;
	if (floe_iceberg_read_manifest(c->table, c->arena, mf, &entries, &ne) < 0)
		return -1;
	for (size_t i = 0; i < ne; i++) {
		if (entries[i].status == FLOE_ICEBERG_DELETED)
			continue;
		floe_iceberg_manifest_entry *e = FLOE_ARENA_PUSH(c->arena, *v, *n, *cap);
		*e = entries[i];
		e->status = FLOE_ICEBERG_EXISTING;
	}
	return 0;
}

/* Merge out->items[from..to) (small, untouched parent manifests) into one new manifest. */
static int merge_bin(commit_ctx *c, snapshot_op *op, int64_t seq, const floe_iceberg_manifest_file *bin,
		     size_t n, floe_iceberg_manifest_file *merged)
{
	floe_iceberg_manifest_entry *entries = NULL;
	size_t ne = 0, cap = 0;
	for (size_t i = 0; i < n; i++)
		if (collect_live(c, &bin[i], &entries, &ne, &cap) < 0)
			return -1;
	memset(merged, 0, sizeof(*merged));
	merged->sequence_number = seq;
	merged->added_snapshot_id = op->snapshot_id;
	return write_manifest(c, op, merged, entries, ne, false);
}

/*
 * Once a snapshot would list many small data manifests the parent left untouched
 * (commit.manifest.min-count-to-merge, 100), merge them into manifests of up to
 * commit.manifest.target-size-bytes (8 MiB), as Java does; planning then reads a few
 * files instead of one per append. `keep` marks the candidates in `out`.
 */
static int merge_small(commit_ctx *c, snapshot_op *op, int64_t seq, manifest_vec *out, bool *keep)
{
	const floe_iceberg_metadata *m = c->base;
	const char *on = floe_iceberg_metadata_property(m, "commit.manifest-merge.enabled");
	int64_t min_count = floe_iceberg_metadata_property_int(m, "commit.manifest.min-count-to-merge", 100);
	int64_t target = floe_iceberg_metadata_property_int(m, "commit.manifest.target-size-bytes",
							    8 << 20);
	size_t n = 0, k = 0, start = 0;
	int64_t bytes = 0;
	floe_iceberg_manifest_file *bins = floe_arena_alloc(c->arena, (out->n + 1) * sizeof(*bins));
	floe_iceberg_manifest_file *rest = floe_arena_alloc(c->arena, (out->n + 1) * sizeof(*rest));
	for (size_t i = 0; i < out->n; i++)
		if (keep[i] && out->items[i].length < target)
			bins[n++] = out->items[i];
	if ((on && strcmp(on, "false") == 0) || n < 2 || (int64_t)n < min_count)
		return 0;
	for (size_t i = 0; i < out->n; i++) /* everything not merged stays, in order */
		if (!(keep[i] && out->items[i].length < target))
			rest[k++] = out->items[i];
	for (size_t i = 0; i <= n; i++) {
		if (i < n && (i == start || bytes + bins[i].length <= target)) {
			bytes += bins[i].length;
			continue;
		}
		if (i - start == 1) {
			rest[k++] = bins[start];
		} else if (merge_bin(c, op, seq, bins + start, i - start, &rest[k++]) < 0) {
			return -1;
		}
		start = i;
		bytes = i < n ? bins[i].length : 0;
	}
	memcpy(out->items, rest, k * sizeof(*rest));
	out->n = k;
	return 0;
}

/* The new snapshot's manifests, from the parent's (`parent` may be empty). */
static int build_manifests(commit_ctx *c, snapshot_op *op, const manifest_vec *parent, int64_t seq,
			   delta *d, manifest_vec *out)
{
	bool *untouched = floe_arena_alloc(c->arena, (parent->n + 2) * sizeof(bool));
	out->items = floe_arena_alloc(c->arena, (parent->n + 2) * sizeof(*out->items));
	out->n = 0;
	added_manifest *added[2] = { &op->data, &op->deletes };
	for (size_t i = 0; i < 2; i++) {
		if (!added[i]->n)
			continue;
		if (ensure_added(c, op, added[i]) < 0)
			return -1;
		out->items[out->n] = added[i]->mf;
		out->items[out->n].sequence_number = out->items[out->n].min_sequence_number = seq;
		out->n++;
	}
	for (size_t i = 0; i < parent->n; i++) {
		const floe_iceberg_manifest_file *mf = &parent->items[i];
		floe_iceberg_manifest_file rewritten;
		bool data = mf->content == FLOE_ICEBERG_CONTENT_DATA;
		int rc = 0;
		if (mf->added_files + mf->existing_files == 0)
			continue; /* only deletions of an earlier snapshot */
		if (!data && op->kind == OP_REPLACE) { /* every data file goes: so do the deletes */
			d->removed_delete_files += mf->added_files + mf->existing_files;
			d->removed_pos_deletes += mf->added_rows + mf->existing_rows;
			continue;
		}
		if ((op->kind == OP_REPLACE || (op->kind == OP_REWRITE && op->n_remove)) &&
		    (rc = filter_manifest(c, op, mf, seq, d, &rewritten)) < 0)
			return -1;
		untouched[out->n] = rc == 0 && data;
		out->items[out->n++] = rc == 1 ? rewritten : *mf;
	}
	for (size_t i = 0; i < op->data.n; i++) {
		d->added_files++;
		d->added_records += op->data.files[i].record_count;
		d->added_size += op->data.files[i].file_size_in_bytes;
	}
	for (size_t i = 0; i < op->deletes.n; i++) {
		d->added_delete_files++;
		d->added_pos_deletes += op->deletes.files[i].record_count;
	}
	return merge_small(c, op, seq, out, untouched);
}

/* ---- summary ---- */

typedef struct kv_vec {
	floe_iceberg_kv *items;
	size_t n, cap;
} kv_vec;

static void kv_add(floe_arena *a, kv_vec *v, const char *key, const char *value)
{
	floe_iceberg_kv *kv = FLOE_ARENA_PUSH(a, v->items, v->n, v->cap);
	kv->key = key;
	kv->value = value;
}

static void kv_num(floe_arena *a, kv_vec *v, const char *key, int64_t n)
{
	kv_add(a, v, key, floe_arena_printf(a, "%" PRId64, n));
}

/* A parent total: its summary value, or what the manifests say (-1 when unknowable). */
static int64_t parent_total(const floe_iceberg_snapshot *parent, const manifest_vec *pm,
			    const char *key)
{
	const char *v = parent ? floe_iceberg_snapshot_summary(parent, key) : NULL;
	int64_t n = 0;
	if (!parent)
		return 0;
	if (v && floe_text_parse_int64(&n, v, strlen(v), 0, INT64_MAX) == 0)
		return n;
	for (size_t i = 0; i < pm->n; i++) {
		const floe_iceberg_manifest_file *m = &pm->items[i];
		bool data = m->content == FLOE_ICEBERG_CONTENT_DATA;
		if (strcmp(key, "total-data-files") == 0 && data)
			n += m->added_files + m->existing_files;
		else if (strcmp(key, "total-records") == 0 && data)
			n += m->added_rows + m->existing_rows;
		else if (strcmp(key, "total-delete-files") == 0 && !data)
			n += m->added_files + m->existing_files;
		else if (strcmp(key, "total-position-deletes") == 0 && !data)
			n += m->added_rows + m->existing_rows;
		else if (strcmp(key, "total-files-size") == 0)
			return -1;
	}
	return n;
}

static const char *const standard_keys[] = {
	"operation", "added-data-files", "deleted-data-files", "added-records", "deleted-records",
	"added-files-size", "removed-files-size", "changed-partition-count", "total-records",
	"total-files-size", "total-data-files", "total-delete-files", "total-position-deletes",
	"total-equality-deletes", "added-delete-files", "added-position-delete-files",
	"added-position-deletes", "removed-delete-files", "removed-position-delete-files",
	"removed-position-deletes", NULL
};

/* The delete-file keys of a summary (Java's names). */
static void summary_deletes(floe_arena *a, kv_vec *out, const delta *d)
{
	if (d->added_delete_files) {
		kv_num(a, out, "added-delete-files", d->added_delete_files);
		kv_num(a, out, "added-position-delete-files", d->added_delete_files);
		kv_num(a, out, "added-position-deletes", d->added_pos_deletes);
	}
	if (d->removed_delete_files) {
		kv_num(a, out, "removed-delete-files", d->removed_delete_files);
		kv_num(a, out, "removed-position-delete-files", d->removed_delete_files);
		kv_num(a, out, "removed-position-deletes", d->removed_pos_deletes);
	}
}

static int build_summary(commit_ctx *c, const floe_iceberg_snapshot *parent, const manifest_vec *pm,
			 const delta *d, kv_vec *out)
{
	floe_arena *a = c->arena;
	static const char *const totals[] = { "total-records", "total-files-size", "total-data-files",
					      "total-delete-files", "total-position-deletes",
					      "total-equality-deletes" };
	int64_t change[6] = { d->added_records - d->deleted_records, d->added_size - d->deleted_size,
			      d->added_files - d->deleted_files, d->added_delete_files - d->removed_delete_files,
			      d->added_pos_deletes - d->removed_pos_deletes, 0 };
	if (d->added_files) {
		kv_num(a, out, "added-data-files", d->added_files);
		kv_num(a, out, "added-records", d->added_records);
		kv_num(a, out, "added-files-size", d->added_size);
	}
	if (d->deleted_files) {
		kv_num(a, out, "deleted-data-files", d->deleted_files);
		kv_num(a, out, "deleted-records", d->deleted_records);
		kv_num(a, out, "removed-files-size", d->deleted_size);
	}
	summary_deletes(a, out, d);
	if (d->added_files || d->deleted_files || d->added_delete_files || d->removed_delete_files)
		kv_num(a, out, "changed-partition-count", 1);
	for (size_t i = 0; i < 6; i++) {
		int64_t before = parent_total(parent, pm, totals[i]);
		if (before >= 0)
			kv_num(a, out, totals[i], before + change[i]);
	}
	for (size_t i = 0; c->opts && i < c->opts->n_summary; i++) {
		const floe_iceberg_kv *kv = &c->opts->summary[i];
		for (const char *const *s = standard_keys; *s; s++)
			if (strcmp(*s, kv->key) == 0)
				return floe_error_set(FLOE_ERR_USAGE, "snapshot summary key \"%s\" is "
						      "written by floe itself", kv->key);
		kv_add(a, out, floe_arena_strdup(a, kv->key), floe_arena_strdup(a, kv->value));
	}
	return 0;
}

/* ---- the new metadata ---- */

static const char *operation_of(const snapshot_op *op, const delta *d, const floe_iceberg_commit_opts *o)
{
	if (o && o->operation)
		return o->operation;
	if (d->added_delete_files)
		return d->added_files || d->deleted_files ? "overwrite" : "delete";
	if (d->deleted_files == 0)
		return "append";
	return d->added_files ? "overwrite" : "delete";
}

static void add_snapshot(commit_ctx *c, const floe_iceberg_snapshot *snap)
{
	floe_iceberg_metadata *m = c->next;
	floe_iceberg_snapshot *snaps = floe_arena_alloc(c->arena, (m->n_snapshots + 1) * sizeof(*snaps));
	floe_iceberg_snapshot_log *log = floe_arena_alloc(c->arena, (m->n_snapshot_log + 1) * sizeof(*log));
	floe_iceberg_ref *refs = floe_arena_alloc(c->arena, (m->n_refs + 1) * sizeof(*refs));
	bool have_main = false;
	if (m->n_snapshots)
		memcpy(snaps, m->snapshots, m->n_snapshots * sizeof(*snaps));
	snaps[m->n_snapshots] = *snap;
	m->snapshots = snaps;
	m->n_snapshots++;
	if (m->n_snapshot_log)
		memcpy(log, m->snapshot_log, m->n_snapshot_log * sizeof(*log));
	log[m->n_snapshot_log] = (floe_iceberg_snapshot_log){ snap->snapshot_id, snap->timestamp_ms };
	m->snapshot_log = log;
	m->n_snapshot_log++;
	if (m->n_refs)
		memcpy(refs, m->refs, m->n_refs * sizeof(*refs));
	for (size_t i = 0; i < m->n_refs; i++)
		if (strcmp(refs[i].name, "main") == 0) {
			refs[i].snapshot_id = snap->snapshot_id;
			have_main = true;
		}
	if (!have_main)
		refs[m->n_refs++] = (floe_iceberg_ref){ "main", snap->snapshot_id, false, -1, -1, -1 };
	m->refs = refs;
	m->has_current_snapshot = true;
	m->current_snapshot_id = snap->snapshot_id;
	m->last_sequence_number = snap->sequence_number;
	m->last_updated_ms = snap->timestamp_ms;
}

static int check_expected(commit_ctx *c, const floe_iceberg_snapshot *parent)
{
	int64_t want = c->opts ? c->opts->expect_snapshot_id : -1;
	if (want == -1)
		return 0;
	if (want == FLOE_ICEBERG_NO_SNAPSHOT ? parent == NULL : (parent && parent->snapshot_id == want))
		return 0;
	return floe_error_set(FLOE_ERR_CONFLICT, "table %s is at snapshot %" PRId64 ", not the %" PRId64
			      " this change was made for", c->table->full_name,
			      parent ? parent->snapshot_id : -1, want);
}

static int missing_removed(commit_ctx *c, const snapshot_op *op, const delta *d)
{
	for (size_t i = 0; i < op->n_remove; i++) {
		if (d->found[i])
			continue;
		floe_error_set(FLOE_ERR_CONFLICT, "file \"%s\" is not live in table %s", op->remove[i],
			       c->table->full_name);
		floe_error_detail("A rewrite removes files that are live in the current snapshot; this "
				  "one is not (another writer removed it, or it never was).");
		floe_error_hint("Plan the change again on the table's current snapshot.");
		return -1;
	}
	return 0;
}

static int write_list(commit_ctx *c, snapshot_op *op, const floe_iceberg_snapshot *parent,
		      int64_t seq, const manifest_vec *list, const char **uri)
{
	floe_iceberg_manifest_list_header h = { op->snapshot_id, parent != NULL,
						 parent ? parent->snapshot_id : 0, seq };
	floe_buf data = FLOE_BUF_INIT;
	int rc;
	*uri = floe_iceberg_metadata_uri(c->arena, c->base,
					 floe_arena_printf(c->arena, "snap-%" PRId64 "-%d-%s.avro",
							   op->snapshot_id, c->attempt + 1,
							   op->commit_uuid));
	rc = floe_iceberg_manifest_list_write(&data, &h, list->items, list->n);
	if (rc == 0)
		rc = floe_iceberg_commit_write(c, *uri, &data);
	floe_buf_free(&data);
	return rc;
}

static int apply_snapshot(commit_ctx *c, void *opaque)
{
	snapshot_op *op = opaque;
	const floe_iceberg_snapshot *parent = floe_iceberg_metadata_current_snapshot(c->base);
	manifest_vec pm = { NULL, 0 }, list;
	delta d = { 0 };
	kv_vec summary = { NULL, 0, 0 };
	int64_t seq = c->base->last_sequence_number + 1;
	const char *list_uri;
	if (check_expected(c, parent) < 0)
		return -1;
	if (floe_iceberg_metadata_snapshot(c->base, op->snapshot_id)) {
		drop_added(c->table, op); /* the id is taken now: a new id, a new manifest */
		op->snapshot_id = floe_iceberg_new_snapshot_id(c->base);
	}
	d.found = floe_arena_alloc(c->arena, (op->n_remove + 1) * sizeof(bool));
	if (parent && floe_iceberg_read_manifest_list(c->table, c->arena, parent->manifest_list,
						      &pm.items, &pm.n) < 0)
		return -1;
	if (build_manifests(c, op, &pm, seq, &d, &list) < 0 || missing_removed(c, op, &d) < 0 ||
	    write_list(c, op, parent, seq, &list, &list_uri) < 0 ||
	    build_summary(c, parent, &pm, &d, &summary) < 0)
		return -1;
	c->next = floe_iceberg_commit_next(c);
	floe_iceberg_snapshot snap = {
		op->snapshot_id, parent != NULL, parent ? parent->snapshot_id : 0, seq,
		c->next->last_updated_ms, list_uri, operation_of(op, &d, c->opts), summary.n,
		summary.items, true, c->base->current_schema_id,
	};
	add_snapshot(c, &snap);
	return 0;
}

static void abandon_snapshot(floe_iceberg_table *t, void *opaque)
{
	drop_added(t, opaque);
}

static int check_files(const floe_iceberg_data_file *files, size_t n, floe_iceberg_content content)
{
	for (size_t i = 0; i < n; i++) {
		const floe_iceberg_data_file *f = &files[i];
		if (!f->path || !*f->path || f->record_count < 0 || f->file_size_in_bytes <= 0)
			return floe_error_set(FLOE_ERR_USAGE, "data file %zu (\"%s\") has no path, a "
					      "negative record count or no size", i, f->path ? f->path : "");
		if (f->content != content || f->spec_id != 0)
			return floe_error_set(FLOE_ERR_USAGE, "file \"%s\": only %s files of the "
					      "unpartitioned spec are supported here", f->path,
					      content == FLOE_ICEBERG_CONTENT_DATA ? "data" : "position delete");
	}
	return 0;
}

/* Copy the caller's files into the op's arena. */
static void take_files(snapshot_op *op, added_manifest *am, floe_iceberg_content content,
		       const floe_iceberg_data_file *files, size_t n)
{
	am->content = content;
	am->files = floe_arena_alloc(op->arena, (n + 1) * sizeof(*am->files));
	for (size_t i = 0; i < n; i++)
		am->files[i] = *floe_iceberg_data_file_copy(op->arena, &files[i]);
	am->n = n;
}

static int run(floe_iceberg_table *t, snapshot_op *op, const char *what,
	       const floe_iceberg_data_file *add, size_t n_add, const char *const *remove,
	       size_t n_remove, const floe_iceberg_commit_opts *opts)
{
	commit_change ch = { what, apply_snapshot, abandon_snapshot, NULL, op };
	int rc = -1;
	if (!op->arena)
		op->arena = floe_arena_new();
	if (check_files(add, n_add, FLOE_ICEBERG_CONTENT_DATA) < 0)
		goto cleanup;
	take_files(op, &op->data, FLOE_ICEBERG_CONTENT_DATA, add, n_add);
	op->remove = floe_arena_alloc(op->arena, (n_remove + 1) * sizeof(*op->remove));
	for (size_t i = 0; i < n_remove; i++)
		op->remove[i] = floe_arena_strdup(op->arena, remove[i]);
	qsort(op->remove, n_remove, sizeof(*op->remove), cmp_str);
	for (size_t i = 0; i < n_remove; i++)
		if (op->n_remove == 0 || strcmp(op->remove[op->n_remove - 1], op->remove[i]) != 0)
			op->remove[op->n_remove++] = op->remove[i];
	op->commit_uuid = floe_iceberg_uuid(op->arena);
	op->snapshot_id = floe_iceberg_new_snapshot_id(t->metadata);
	rc = floe_iceberg_commit(t, &ch, opts);
cleanup:
	if (rc < 0)
		floe_error_context("while committing %s to table %s", what, t->full_name);
	floe_arena_free(op->arena);
	return rc;
}

int floe_iceberg_table_append(floe_iceberg_table *table, const floe_iceberg_data_file *files,
			      size_t n, const floe_iceberg_commit_opts *opts)
{
	snapshot_op op = { .kind = OP_APPEND };
	return run(table, &op, "an append", files, n, NULL, 0, opts);
}

int floe_iceberg_table_replace(floe_iceberg_table *table, const floe_iceberg_data_file *files,
			       size_t n, const floe_iceberg_commit_opts *opts)
{
	snapshot_op op = { .kind = OP_REPLACE };
	return run(table, &op, "a replace", files, n, NULL, 0, opts);
}

int floe_iceberg_table_rewrite(floe_iceberg_table *table, const char *const *remove,
			       size_t n_remove, const floe_iceberg_data_file *add, size_t n_add,
			       const floe_iceberg_commit_opts *opts)
{
	snapshot_op op = { .kind = OP_REWRITE };
	return run(table, &op, "a rewrite", add, n_add, remove, n_remove, opts);
}

int floe_iceberg_table_row_delta(floe_iceberg_table *table, const char *const *remove, size_t n_remove,
				 const floe_iceberg_data_file *add, size_t n_add,
				 const floe_iceberg_data_file *deletes, size_t n_deletes,
				 const floe_iceberg_commit_opts *opts)
{
	snapshot_op op = { .kind = OP_REWRITE, .arena = floe_arena_new() };
	if (check_files(deletes, n_deletes, FLOE_ICEBERG_CONTENT_POSITION_DELETES) < 0) {
		floe_arena_free(op.arena);
		return floe_error_context("while committing a row delta to table %s", table->full_name);
	}
	take_files(&op, &op.deletes, FLOE_ICEBERG_CONTENT_POSITION_DELETES, deletes, n_deletes);
	return run(table, &op, "a row delta", add, n_add, remove, n_remove, opts);
}
