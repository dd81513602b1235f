/*
 * scan.c — scan planning: the live data files of a snapshot, with their stats, so a
 * caller can prune by bounds before opening any file.
 */
#include "iceberg/table_int.h"

#include "base/error.h"

#include <inttypes.h>
#include <string.h>

typedef struct file_vec {
	floe_iceberg_scan_file *items;
	size_t n, cap;
} file_vec;

static int plan_manifest(floe_iceberg_table *t, floe_arena *arena, const floe_iceberg_manifest_file *mf,
			 floe_iceberg_scan *scan, file_vec *files, file_vec *deletes)
{
	floe_iceberg_manifest_entry *entries = NULL;
	size_t n = 0;
	bool data = mf->content == FLOE_ICEBERG_CONTENT_DATA;
	if (!data && mf->added_files + mf->existing_files == 0)
		return 0;
	if (!data && !deletes) {
		floe_error_set(FLOE_ERR_USAGE, "table %s has delete files (manifest \"%s\")",
			       floe_iceberg_table_name(t), mf->path);
		floe_error_detail("This reader does not apply delete files (merge-on-read); it would read "
				  "deleted rows.");
		floe_error_hint("Compact the table (`floe compact`) to rewrite it without delete files.");
		return -1;
	}
	if (floe_iceberg_read_manifest(t, arena, mf, &entries, &n) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (entries[i].status == FLOE_ICEBERG_DELETED)
			continue;
		if (entries[i].file.content == FLOE_ICEBERG_CONTENT_EQUALITY_DELETES) {
			floe_error_set(FLOE_ERR_USAGE, "table %s has equality delete files (\"%s\")",
				       floe_iceberg_table_name(t), entries[i].file.path);
			floe_error_detail("floe applies position deletes only.");
			return -1;
		}
		floe_iceberg_scan_file *f = data ? FLOE_ARENA_PUSH(arena, files->items, files->n, files->cap)
						 : FLOE_ARENA_PUSH(arena, deletes->items, deletes->n, deletes->cap);
		f->file = entries[i].file;
		f->snapshot_id = entries[i].snapshot_id;
		f->data_sequence_number = entries[i].sequence_number;
		f->file_sequence_number = entries[i].file_sequence_number;
		f->manifest = mf->path;
		if (!data)
			continue;
		scan->record_count += f->file.record_count;
		scan->size_in_bytes += f->file.file_size_in_bytes;
	}
	return 0;
}

static int plan(floe_iceberg_scan **out, floe_arena *arena, floe_iceberg_table *table, int64_t snapshot_id,
		bool with_deletes)
{
	const floe_iceberg_metadata *m = floe_iceberg_table_metadata(table);
	const floe_iceberg_snapshot *snap = snapshot_id < 0 ? floe_iceberg_metadata_current_snapshot(m)
							    : floe_iceberg_metadata_snapshot(m, snapshot_id);
	floe_iceberg_scan *scan = floe_arena_alloc(arena, sizeof(*scan));
	floe_iceberg_manifest_file *list = NULL;
	file_vec files = { NULL, 0, 0 }, deletes = { NULL, 0, 0 };
	size_t n = 0;
	*out = NULL;
	if (snapshot_id >= 0 && !snap) {
		floe_error_set(FLOE_ERR_USAGE, "table %s has no snapshot %" PRId64,
			       floe_iceberg_table_name(table), snapshot_id);
		floe_error_hint("It may have been expired; list the table's snapshots.");
		return -1;
	}
	scan->snapshot_id = snap ? snap->snapshot_id : -1;
	/*
	 * The current snapshot reads with the table's current schema: a rename or a drop commits no
	 * snapshot, so the current snapshot may still name the schema before it (PyIceberg and Spark
	 * read the table so too). An older snapshot reads with the schema it was written with.
	 */
	const floe_iceberg_snapshot *cur = floe_iceberg_metadata_current_snapshot(m);
	bool older = snap && cur && snap->snapshot_id != cur->snapshot_id;
	scan->schema = older && snap->has_schema_id ? floe_iceberg_metadata_schema(m, snap->schema_id) : NULL;
	if (!scan->schema)
		scan->schema = floe_iceberg_metadata_current_schema(m);
	if (snap && floe_iceberg_read_manifest_list(table, arena, snap->manifest_list, &list, &n) < 0)
		return floe_error_context("while planning a scan of %s", floe_iceberg_table_name(table));
	for (size_t i = 0; i < n; i++)
		if (plan_manifest(table, arena, &list[i], scan, &files, with_deletes ? &deletes : NULL) < 0)
			return floe_error_context("while planning a scan of %s",
						  floe_iceberg_table_name(table));
	scan->files = files.items ? files.items : floe_arena_alloc(arena, sizeof(*scan->files));
	scan->n_files = files.n;
	scan->deletes = deletes.items;
	scan->n_deletes = deletes.n;
	*out = scan;
	return 0;
}

int floe_iceberg_table_plan(floe_iceberg_scan **out, floe_arena *arena, floe_iceberg_table *table,
			    int64_t snapshot_id)
{
	return plan(out, arena, table, snapshot_id, false);
}

int floe_iceberg_table_plan_deletes(floe_iceberg_scan **out, floe_arena *arena, floe_iceberg_table *table,
				    int64_t snapshot_id)
{
	return plan(out, arena, table, snapshot_id, true);
}
