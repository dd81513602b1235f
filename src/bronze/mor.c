/*
 * mor.c — merge-on-read: an incremental load writes its new and changed rows as new data
 * files and marks the rows they replace, and deleted rows, with one position delete file
 * (iceberg/deletes.h), in one snapshot; nothing it did not change is rewritten.
 *
 * The table stays a sequence of key ranges: the changes routed to a file's range are written
 * into a delta file of their own, so files overlap only within a range. Here the live files
 * are clustered back into those ranges (units): merge.c routes, counts and diffs units as it
 * does files, and bronze_scan reads a unit of several files as one, in key order, without its
 * deleted rows. Compaction (merge.c) folds a unit's deltas and files with deletes back into one.
 */
#include "bronze/bronze_int.h"

#include "base/error.h"
#include "iceberg/deletes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A table's write mode: its [bronze.write-modes] entry, else `[bronze] write-mode` when set,
 * else merge-on-read — chosen by measurement (docs/merge-on-read.md, "Which default"): never
 * slower for bronze, and silver's incremental build over it costs half of what it costs over
 * copy-on-write's rewritten files (until then it was the default for CDC tables only).
 */
bool bronze_mor_enabled(const floe_config *config, const char *source_name)
{
	const floe_string_map *m = &config->bronze.write_modes;
	for (size_t i = 0; i < m->count; i++)
		if (strcmp(m->keys[i], source_name) == 0)
			return strcmp(m->values[i], "merge-on-read") == 0;
	if (config->bronze.write_mode)
		return strcmp(config->bronze.write_mode, "merge-on-read") == 0;
	return true;
}

bool floe_bronze_merge_on_read(const floe_config *config, const char *schema, const char *table)
{
	char name[512];
	snprintf(name, sizeof(name), "%s.%s", schema, table);
	return bronze_mor_enabled(config, name);
}

typedef struct bounds_ctx {
	const floe_vector *lower, *upper;
} bounds_ctx;

static int by_lower(const void *x, const void *y, void *ctx)
{
	const bounds_ctx *b = ctx;
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	int c = floe_vector_compare_rows(b->lower, i, b->lower, j);
	return c ? c : floe_vector_compare_rows(b->upper, i, b->upper, j);
}

/* Close unit [from, to) of the sorted files: its bounds, the file standing for it, its group. */
static void add_unit(bronze_units *u, floe_arena *a, const floe_iceberg_scan *scan, const size_t *order,
		     size_t from, size_t to, size_t hi, const bounds_ctx *b, floe_vector *lower, floe_vector *upper)
{
	const floe_iceberg_scan_file *first = &scan->files[order[from]];
	int64_t live = 0;
	bool deletes = false;
	for (size_t i = from; i < to; i++) {
		const floe_iceberg_scan_file *f = &scan->files[order[i]];
		live += f->file.record_count - (int64_t)f->n_deleted;
		deletes |= f->n_deleted > 0;
	}
	floe_vector_append_row(lower, b->lower, order[from]);
	floe_vector_append_row(upper, b->upper, hi);
	u->live_rows += live;
	u->n_data_files += to - from;
	if (to - from == 1 && !deletes) {
		u->files[u->n] = &first->file;
		u->groups[u->n++] = NULL;
		return;
	}
	floe_iceberg_data_file *d = floe_arena_alloc(a, sizeof(*d));
	bronze_group *g = floe_arena_alloc(a, sizeof(*g));
	const floe_iceberg_scan_file **members = floe_arena_alloc(a, (to - from + 1) * sizeof(*members));
	for (size_t i = from; i < to; i++)
		members[i - from] = &scan->files[order[i]];
	*d = first->file;
	d->record_count = live;
	d->columns = NULL;
	d->n_columns = 0;
	g->members = members;
	g->n = to - from;
	u->files[u->n] = d;
	u->groups[u->n++] = g;
}

const char *bronze_mor_units(bronze_units *out, floe_arena *a, const floe_iceberg_scan *scan,
			     const floe_iceberg_field *key0, const floe_pg_copy_column *c0, size_t max_group_rows,
			     floe_vector *lower, floe_vector *upper)
{
	floe_vector flo, fup;
	bounds_ctx b = { &flo, &fup };
	size_t n = scan->n_files, from = 0, hi = 0;
	size_t *order = floe_arena_alloc(a, (n + 1) * sizeof(size_t));
	const char *why = NULL;
	memset(out, 0, sizeof(*out));
	out->files = floe_arena_alloc(a, (n + 1) * sizeof(*out->files));
	out->groups = floe_arena_alloc(a, (n + 1) * sizeof(*out->groups));
	floe_vector_init(&flo, c0->vec, c0->width);
	floe_vector_init(&fup, c0->vec, c0->width);
	for (size_t f = 0; f < n && !why; f++) {
		order[f] = f;
		why = bronze_map_bounds(a, &flo, &fup, &scan->files[f].file, key0);
	}
	if (!why && n) {
		qsort_r(order, n, sizeof(size_t), by_lower, &b);
		int64_t rows = scan->files[order[0]].file.record_count;
		hi = order[0];
		for (size_t i = 1; i <= n && !why; i++) {
			if (i < n && floe_vector_compare_rows(&flo, order[i], &fup, hi) <= 0) { /* overlaps: same unit */
				if (floe_vector_compare_rows(&fup, order[i], &fup, hi) > 0)
					hi = order[i];
				rows += scan->files[order[i]].file.record_count;
				continue;
			}
			if (i - from > 1 && rows > (int64_t)max_group_rows)
				why = floe_arena_printf(a, "loaded in full: %zu data files overlap in key ranges with %lld "
							"rows together (compact the table: `floe compact`)", i - from,
							(long long)rows);
			else
				add_unit(out, a, scan, order, from, i, hi, &b, lower, upper);
			from = i;
			hi = i < n ? order[i] : hi;
			rows = i < n ? scan->files[order[i]].file.record_count : 0;
		}
	}
	floe_vector_free(&flo);
	floe_vector_free(&fup);
	return why;
}

int bronze_mor_write_deletes(bronze_load *l, floe_iceberg_position_delete *dels, size_t n,
			     const floe_iceberg_deleted_rows *rows)
{
	floe_iceberg_data_file *d = floe_arena_alloc(l->job->arena, sizeof(*d));
	if (n == 0)
		return 0;
	if (floe_iceberg_position_deletes_write(d, l->job->arena, l->table, dels, n, rows) < 0)
		return -1;
	l->delete_files = d;
	l->n_delete_files = 1;
	return 0;
}

void bronze_mor_discard(bronze_load *l)
{
	for (size_t i = 0; l->table && i < l->n_delete_files; i++)
		floe_iceberg_storage_remove(floe_iceberg_table_storage(l->table), l->delete_files[i].path);
	l->n_delete_files = 0;
}
