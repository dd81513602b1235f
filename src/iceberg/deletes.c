/*
 * deletes.c — position delete files: written sorted by path then position, read back
 * and matched to a scan's data files by path and sequence number (deletes.h).
 */
#include "iceberg/deletes.h"

#include "base/error.h"
#include "iceberg/parquet_io.h"
#include "vector/vector.h"

#include <stdlib.h>
#include <string.h>

static int cmp_delete(const void *x, const void *y)
{
	const floe_iceberg_position_delete *a = x, *b = y;
	int c = strcmp(a->path, b->path);
	return c ? c : (a->pos > b->pos) - (a->pos < b->pos);
}

static int cmp_delete_at(const void *x, const void *y, void *ctx)
{
	const floe_iceberg_position_delete *d = ctx;
	return cmp_delete(&d[*(const size_t *)x], &d[*(const size_t *)y]);
}

/* v[0], v[1] and (rows) v[2]: the columns; fields: theirs. */
static int write_vectors(floe_iceberg_data_file *out, floe_arena *arena, floe_iceberg_table *table,
			 const floe_vector *v, const floe_iceberg_deleted_rows *rows)
{
	floe_parquet_field fields[3] = {
		{ .name = "file_path", .id = FLOE_ICEBERG_FIELD_FILE_PATH, .required = true, .type = FLOE_VEC_STRING },
		{ .name = "pos", .id = FLOE_ICEBERG_FIELD_POS, .required = true, .type = FLOE_VEC_LONG },
		{ .name = "row", .id = FLOE_ICEBERG_FIELD_DELETED_ROW, .required = true, .type = FLOE_VEC_STRUCT },
	};
	size_t n_fields = rows ? 3 : 2;
	if (rows)
		fields[2].children = rows->fields, fields[2].n_children = rows->n;
	floe_parquet_writer *w = NULL;
	floe_parquet_file_stats st;
	const char *uri = floe_iceberg_table_new_data_uri(table, arena, "deletes.parquet");
	if (floe_iceberg_parquet_create(&w, floe_iceberg_table_storage(table), uri, fields, n_fields, NULL) < 0)
		return -1;
	if (floe_parquet_writer_write_batch(w, v, n_fields) < 0) {
		floe_parquet_writer_abort(w);
		return -1;
	}
	if (floe_parquet_writer_close(&st, w, arena) < 0)
		return -1;
	floe_iceberg_data_file_from_parquet(out, arena, uri, &st);
	out->content = FLOE_ICEBERG_CONTENT_POSITION_DELETES;
	return 0;
}

/* Whether rows->cols can be the row struct's fields: flat, holding a row for every delete. */
static bool rows_usable(const floe_iceberg_deleted_rows *rows, const floe_iceberg_position_delete *dels, size_t n)
{
	for (size_t k = 0; rows && k < rows->n; k++)
		if (rows->cols[k].type == FLOE_VEC_LIST || rows->cols[k].type == FLOE_VEC_STRUCT ||
		    rows->cols[k].len != rows->cols[0].len)
			return false;
	for (size_t i = 0; rows && rows->n && i < n; i++)
		if (dels[i].row < 0 || (size_t)dels[i].row >= rows->cols[0].len)
			return false;
	return rows && rows->n > 0;
}

int floe_iceberg_position_deletes_write(floe_iceberg_data_file *out, floe_arena *arena,
					floe_iceberg_table *table, floe_iceberg_position_delete *dels,
					size_t n, const floe_iceberg_deleted_rows *rows)
{
	floe_vector v[3];
	int error = -1;
	if (n == 0)
		return floe_error_set(FLOE_ERR_INTERNAL, "no position deletes to write (a bug in floe)");
	if (!rows_usable(rows, dels, n))
		rows = NULL; /* file_path and pos alone: what every reader needs */
	size_t *order = floe_xmalloc(n * sizeof(*order));
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), cmp_delete_at, dels);
	floe_vector_init(&v[0], FLOE_VEC_STRING, 0);
	floe_vector_init(&v[1], FLOE_VEC_LONG, 0);
	floe_vector_init_struct(&v[2], rows ? rows->n : 0);
	for (size_t k = 0; rows && k < rows->n; k++) {
		floe_vector_init(&v[2].children[k], rows->cols[k].type, rows->cols[k].width);
		v[2].children[k].precision = rows->cols[k].precision, v[2].children[k].scale = rows->cols[k].scale;
	}
	for (size_t x = 0; x < n; x++) {
		size_t i = order[x];
		if (x && cmp_delete(&dels[order[x - 1]], &dels[i]) == 0)
			continue;
		floe_vector_append_bytes(&v[0], dels[i].path, strlen(dels[i].path));
		floe_vector_append_i64(&v[1], dels[i].pos);
		for (size_t k = 0; rows && k < rows->n; k++)
			floe_vector_append_row(&v[2].children[k], &rows->cols[k], (size_t)dels[i].row);
		if (rows)
			floe_vector_append_struct(&v[2]);
	}
	if (write_vectors(out, arena, table, v, rows) < 0) {
		floe_error_context("while writing a position delete file of table %s",
				   floe_iceberg_table_name(table));
		goto cleanup;
	}
	error = 0;
cleanup:
	free(order);
	for (size_t k = 0; k < 3; k++)
		floe_vector_free(&v[k]);
	return error;
}

int floe_iceberg_deletes_row_names(floe_arena *arena, floe_iceberg_table *table, const floe_iceberg_scan_file *d,
				   const int32_t *ids, size_t n, const char **names)
{
	floe_parquet_reader *r = NULL;
	size_t found = 0;
	if (floe_iceberg_parquet_open(&r, floe_iceberg_table_storage(table), d->file.path, NULL) < 0)
		return floe_error_context("while reading position delete file \"%s\"", d->file.path);
	const floe_parquet_meta *meta = floe_parquet_reader_meta(r);
	for (size_t k = 0; k < n; k++) {
		names[k] = NULL;
		for (size_t i = 0; i < meta->n_leaves && !names[k]; i++) {
			const floe_parquet_leaf *leaf = &meta->leaves[i];
			const char *dot = strchr(leaf->path, '.');
			if (leaf->top_field_id == FLOE_ICEBERG_FIELD_DELETED_ROW && leaf->has_field_id &&
			    leaf->field_id == ids[k] && !leaf->in_list && dot && !strchr(dot + 1, '.'))
				names[k] = floe_arena_strdup(arena, dot + 1);
		}
		found += names[k] != NULL;
	}
	floe_parquet_reader_free(r);
	return found == n && n > 0;
}

/* ---- applying them ---- */

typedef struct by_path {
	const char *path;
	size_t len;
	size_t file; /* index in scan->files */
} by_path;

typedef struct pos_vec {
	int64_t *items;
	size_t n, cap;
} pos_vec;

typedef struct matcher {
	floe_arena *arena;
	floe_iceberg_scan *scan;
	by_path *index; /* data files by path */
	pos_vec *pos;   /* per data file */
} matcher;

static int cmp_bytes(const char *a, size_t alen, const char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);
	return c ? c : (alen > blen) - (alen < blen);
}

static int cmp_by_path(const void *x, const void *y)
{
	const by_path *a = x, *b = y;
	return cmp_bytes(a->path, a->len, b->path, b->len);
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return (a > b) - (a < b);
}

/* The data file whose path is `p`, or NULL. */
static const by_path *find_path(const matcher *m, const uint8_t *p, size_t len)
{
	by_path key = { (const char *)p, len, 0 };
	return bsearch(&key, m->index, m->scan->n_files, sizeof(*m->index), cmp_by_path);
}

static long field_index(const floe_parquet_meta *meta, int32_t id)
{
	for (size_t i = 0; i < meta->n_fields; i++)
		if (meta->fields[i].has_field_id && meta->fields[i].field_id == id)
			return (long)i;
	return -1;
}

static void match_rows(matcher *m, const floe_iceberg_scan_file *d, const floe_vector *path,
		       const floe_vector *pos)
{
	for (size_t i = 0; i < path->len; i++) {
		size_t len = 0;
		const uint8_t *p = floe_vector_bytes(path, i, &len);
		const by_path *hit = find_path(m, p, len);
		if (!hit || m->scan->files[hit->file].data_sequence_number > d->data_sequence_number)
			continue; /* another snapshot's file, or a file added after this delete */
		pos_vec *v = &m->pos[hit->file];
		*FLOE_ARENA_PUSH(m->arena, v->items, v->n, v->cap) = pos->v.i64[i];
	}
}

/* Read one delete file and record its positions against the scan's data files. */
static int read_delete_file(matcher *m, floe_iceberg_table *t, const floe_iceberg_scan_file *d)
{
	floe_parquet_reader *r = NULL;
	floe_vector path = { 0 }, pos = { 0 };
	int error = -1;
	if (floe_iceberg_parquet_open(&r, floe_iceberg_table_storage(t), d->file.path, NULL) < 0)
		goto cleanup;
	const floe_parquet_meta *meta = floe_parquet_reader_meta(r);
	long fp = field_index(meta, FLOE_ICEBERG_FIELD_FILE_PATH), fq = field_index(meta, FLOE_ICEBERG_FIELD_POS);
	if (fp < 0 || fq < 0) {
		floe_error_set(FLOE_ERR_CHECK, "position delete file \"%s\" has no file_path or pos column",
			       d->file.path);
		goto cleanup;
	}
	for (size_t g = 0; g < meta->n_row_groups; g++) {
		floe_vector_free(&path);
		floe_vector_free(&pos);
		if (floe_parquet_reader_read_field(&path, r, g, (size_t)fp) < 0 ||
		    floe_parquet_reader_read_field(&pos, r, g, (size_t)fq) < 0)
			goto cleanup;
		if (path.type != FLOE_VEC_STRING || pos.type != FLOE_VEC_LONG || path.len != pos.len ||
		    floe_vector_null_count(&path) || floe_vector_null_count(&pos)) {
			floe_error_set(FLOE_ERR_CHECK, "position delete file \"%s\" is malformed", d->file.path);
			floe_error_detail("file_path must be a required string and pos a required long.");
			goto cleanup;
		}
		match_rows(m, d, &path, &pos);
	}
	error = 0;
cleanup:
	floe_vector_free(&path);
	floe_vector_free(&pos);
	floe_parquet_reader_free(r);
	if (error < 0)
		floe_error_context("while reading position delete file \"%s\"", d->file.path);
	return error;
}

int floe_iceberg_scan_load_deletes(floe_arena *arena, floe_iceberg_table *table, floe_iceberg_scan *scan)
{
	matcher m = { arena, scan, NULL, NULL };
	if (scan->n_deletes == 0)
		return 0;
	m.index = floe_arena_alloc(arena, (scan->n_files + 1) * sizeof(*m.index));
	m.pos = floe_arena_alloc(arena, (scan->n_files + 1) * sizeof(*m.pos));
	for (size_t i = 0; i < scan->n_files; i++)
		m.index[i] = (by_path){ scan->files[i].file.path, strlen(scan->files[i].file.path), i };
	qsort(m.index, scan->n_files, sizeof(*m.index), cmp_by_path);
	for (size_t d = 0; d < scan->n_deletes; d++)
		if (read_delete_file(&m, table, &scan->deletes[d]) < 0)
			return floe_error_context("while applying the delete files of %s",
						  floe_iceberg_table_name(table));
	for (size_t i = 0; i < scan->n_files; i++) {
		pos_vec *v = &m.pos[i];
		size_t k = 0;
		if (v->n)
			qsort(v->items, v->n, sizeof(int64_t), cmp_i64);
		for (size_t j = 0; j < v->n; j++)
			if (k == 0 || v->items[k - 1] != v->items[j])
				v->items[k++] = v->items[j];
		scan->files[i].deleted = v->items;
		scan->files[i].n_deleted = k;
	}
	return 0;
}

int floe_iceberg_table_plan_live(floe_iceberg_scan **out, floe_arena *arena, floe_iceberg_table *table,
				 int64_t snapshot_id)
{
	if (floe_iceberg_table_plan_deletes(out, arena, table, snapshot_id) < 0)
		return -1;
	return floe_iceberg_scan_load_deletes(arena, table, *out);
}

bool floe_iceberg_scan_file_deleted(const floe_iceberg_scan_file *file, int64_t pos)
{
	return file->n_deleted &&
	       bsearch(&pos, file->deleted, file->n_deleted, sizeof(int64_t), cmp_i64) != NULL;
}

int64_t floe_iceberg_scan_live_rows(const floe_iceberg_scan *scan)
{
	int64_t n = 0;
	for (size_t i = 0; i < scan->n_files; i++)
		n += scan->files[i].file.record_count - (int64_t)scan->files[i].n_deleted;
	return n;
}
