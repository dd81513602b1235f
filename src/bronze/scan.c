/*
 * scan.c — rows of bronze data files, file after file, row group after row
 * group, for the incremental load's key-set diff and copy-on-write rewrites.
 *
 * Columns are found by their Iceberg field id (the id of each top-level Parquet
 * field), so a rename in between does not matter; a column the file predates
 * reads as nulls. Composite columns read whole (structs and lists rebuilt from
 * their leaves), in the shape the COPY decoder gives them. One row group of the
 * wanted columns is in memory at a time.
 */
#include "bronze/bronze_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "iceberg/deletes.h"
#include "iceberg/parquet_io.h"

#include <stdlib.h>
#include <string.h>

void bronze_scan_init(bronze_scan *s, floe_arena *arena, floe_iceberg_table *table,
		      const bronze_columns *cols, const floe_iceberg_data_file *const *files,
		      size_t n_files, const size_t *want, size_t n_want)
{
	memset(s, 0, sizeof(*s));
	s->arena = arena;
	s->table = table;
	s->cols = cols;
	s->files = files;
	s->n_files = n_files;
	s->want = want;
	s->n_want = n_want;
	s->vec = floe_arena_alloc(arena, (n_want + 1) * sizeof(floe_vector));
}

void bronze_scan_groups(bronze_scan *s, const bronze_group *const *groups, const bronze_keys *keys)
{
	s->groups = groups;
	s->keys = keys;
}

static void free_vectors(bronze_scan *s)
{
	for (size_t i = 0; i < s->n_want; i++)
		floe_vector_free(&s->vec[i]);
	free(s->src_member);
	free(s->src_pos);
	s->src_member = NULL;
	s->src_pos = NULL;
}

/* The top-level field with `field_id` in the open file, or -1 when the file has none. */
static long field_of(const floe_parquet_meta *m, int32_t field_id)
{
	for (size_t i = 0; i < m->n_fields; i++)
		if (m->fields[i].has_field_id && m->fields[i].field_id == field_id)
			return (long)i;
	return -1;
}

/* Column k read from the file must be of the table's type, nested the same way. */
static int check_shape(bronze_scan *s, size_t k)
{
	const floe_iceberg_field *f = &s->cols->schema->fields[s->want[k]];
	floe_vector want;
	floe_pg_copy_vector_init(&want, &s->cols->copy[s->want[k]]);
	bool same = floe_vector_same_shape(&want, &s->vec[k]);
	floe_vector_free(&want);
	if (same)
		return 0;
	floe_error_set(FLOE_ERR_CHECK, "data file \"%s\" holds column \"%s\" (field id %d) as another type "
		       "than the table's", s->files[s->file]->path, f->name, (int)f->id);
	floe_error_detail("Its values (%s) are of another type, or nest other fields or elements, than the "
			  "table's schema says; rows cannot be merged across the two.",
			  floe_vec_type_name(s->vec[k].type));
	return -1;
}

static int read_row_group(bronze_scan *s)
{
	const floe_parquet_meta *m = floe_parquet_reader_meta(s->reader);
	size_t rows = (size_t)m->row_groups[s->row_group].num_rows;
	free_vectors(s);
	for (size_t k = 0; k < s->n_want; k++) {
		const floe_iceberg_field *f = &s->cols->schema->fields[s->want[k]];
		long field = field_of(m, f->id);
		if (field >= 0) {
			if (floe_parquet_reader_read_field(&s->vec[k], s->reader, s->row_group, (size_t)field) < 0)
				return floe_error_context("while reading column \"%s\" of \"%s\"", f->name,
							  s->files[s->file]->path);
			if (check_shape(s, k) < 0)
				return -1;
			continue;
		}
		if (f->required)
			return floe_error_set(FLOE_ERR_CHECK, "data file \"%s\" has no column \"%s\" (field id %d)",
					      s->files[s->file]->path, f->name, (int)f->id);
		floe_pg_copy_vector_init(&s->vec[k], &s->cols->copy[s->want[k]]);
		for (size_t r = 0; r < rows; r++)
			floe_vector_append_null(&s->vec[k]);
	}
	s->rows = rows;
	s->row = 0;
	return 0;
}

static int open_path(bronze_scan *s, const char *path)
{
	floe_parquet_reader_free(s->reader);
	s->reader = NULL;
	s->row_group = 0;
	s->rows = s->row = 0;
	return floe_iceberg_parquet_open(&s->reader, floe_iceberg_table_storage(s->table), path, NULL);
}

/* ---- a group: its members' live rows gathered, then sorted by key ---- */

typedef struct gathered {
	floe_vector *vec;     /* n_want columns */
	size_t *member;
	int64_t *pos;
	size_t n, cap;
} gathered;

typedef struct sort_ctx {
	const bronze_keys *k;
	floe_vector *keys[64];
} sort_ctx;

static int by_key(const void *x, const void *y, void *ctx)
{
	sort_ctx *c = ctx;
	return bronze_key_cmp(c->k, c->keys, *(const size_t *)x, c->keys, *(const size_t *)y);
}

static void gather_row(bronze_scan *s, gathered *g, size_t member, int64_t pos)
{
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 1024;
		g->member = floe_xrealloc(g->member, g->cap * sizeof(*g->member));
		g->pos = floe_xrealloc(g->pos, g->cap * sizeof(*g->pos));
	}
	for (size_t k = 0; k < s->n_want; k++)
		floe_vector_append_row(&g->vec[k], &s->vec[k], s->row);
	g->member[g->n] = member;
	g->pos[g->n++] = pos;
}

/* Every live row of member `mi` of group `grp` into `g`. */
static int gather_member(bronze_scan *s, const bronze_group *grp, size_t mi, gathered *g)
{
	const floe_iceberg_scan_file *f = grp->members[mi];
	int64_t offset = 0;
	if (open_path(s, f->file.path) < 0)
		return -1;
	const floe_parquet_meta *m = floe_parquet_reader_meta(s->reader);
	for (s->row_group = 0; s->row_group < m->n_row_groups; s->row_group++) {
		int64_t rows = m->row_groups[s->row_group].num_rows;
		if (rows > 0 && read_row_group(s) < 0)
			return -1;
		for (s->row = 0; rows > 0 && s->row < s->rows; s->row++)
			if (!floe_iceberg_scan_file_deleted(f, offset + (int64_t)s->row))
				gather_row(s, g, mi, offset + (int64_t)s->row);
		offset += rows;
	}
	return 0;
}

/* The key columns among the wanted ones; -1 when one is not read. */
static int key_view(const bronze_scan *s, floe_vector **keys, floe_vector *vec)
{
	for (size_t i = 0; i < s->keys->n; i++) {
		keys[i] = NULL;
		for (size_t w = 0; w < s->n_want && !keys[i]; w++)
			if (s->want[w] == s->keys->col[i])
				keys[i] = &vec[w];
		if (!keys[i])
			return -1;
	}
	return 0;
}

/* The sorted rows of `g` as the scan's vectors (which take its member and position arrays). */
static void sort_gathered(bronze_scan *s, gathered *g)
{
	sort_ctx c = { s->keys, { NULL } };
	size_t *idx = floe_xmalloc((g->n + 1) * sizeof(size_t));
	size_t *member = floe_xmalloc((g->n + 1) * sizeof(size_t));
	int64_t *pos = floe_xmalloc((g->n + 1) * sizeof(int64_t));
	for (size_t i = 0; i < g->n; i++)
		idx[i] = i;
	key_view(s, c.keys, g->vec);
	qsort_r(idx, g->n, sizeof(size_t), by_key, &c);
	free_vectors(s);
	for (size_t k = 0; k < s->n_want; k++) {
		floe_pg_copy_vector_init(&s->vec[k], &s->cols->copy[s->want[k]]);
		floe_vector_reserve(&s->vec[k], g->n);
		for (size_t i = 0; i < g->n; i++)
			floe_vector_append_row(&s->vec[k], &g->vec[k], idx[i]);
	}
	for (size_t i = 0; i < g->n; i++) {
		member[i] = g->member[idx[i]];
		pos[i] = g->pos[idx[i]];
	}
	s->src_member = member;
	s->src_pos = pos;
	free(idx);
}

static int load_group(bronze_scan *s, const bronze_group *grp)
{
	gathered g = { floe_arena_alloc(s->arena, (s->n_want + 1) * sizeof(floe_vector)), NULL, NULL, 0, 0 };
	floe_vector *probe[64];
	int error = -1;
	for (size_t k = 0; k < s->n_want; k++)
		floe_pg_copy_vector_init(&g.vec[k], &s->cols->copy[s->want[k]]);
	if (s->keys->n > 64 || key_view(s, probe, g.vec) < 0) {
		floe_error_set(FLOE_ERR_INTERNAL, "a merged scan must read the key columns (a bug in floe)");
		goto cleanup;
	}
	for (size_t mi = 0; mi < grp->n; mi++)
		if (gather_member(s, grp, mi, &g) < 0)
			goto cleanup;
	sort_gathered(s, &g);
	s->merged = true;
	s->rows = g.n;
	s->row = 0;
	error = 0;
cleanup:
	for (size_t k = 0; k < s->n_want; k++)
		floe_vector_free(&g.vec[k]);
	free(g.member);
	free(g.pos);
	return error;
}

/* Open files[file]: a data file to stream, or a group to gather. */
static int open_file(bronze_scan *s)
{
	const bronze_group *grp = s->groups ? s->groups[s->file] : NULL;
	s->merged = false;
	if (!grp)
		return open_path(s, s->files[s->file]->path);
	return load_group(s, grp);
}

void bronze_scan_position(const bronze_scan *s, const char **path, int64_t *pos)
{
	if (s->merged) {
		*path = s->groups[s->file]->members[s->src_member[s->row]]->file.path;
		*pos = s->src_pos[s->row];
		return;
	}
	const floe_parquet_meta *m = floe_parquet_reader_meta(s->reader);
	int64_t offset = 0;
	for (size_t g = 0; g < s->row_group; g++)
		offset += m->row_groups[g].num_rows;
	*path = s->files[s->file]->path;
	*pos = offset + (int64_t)s->row;
}

int bronze_scan_next(bronze_scan *s)
{
	if (s->started && s->row + 1 < s->rows) {
		s->row++;
		return 1;
	}
	if (!s->started) {
		s->started = true;
		s->file = 0;
		if (s->n_files == 0)
			return 0;
		if (open_file(s) < 0)
			return -1;
		if (s->merged && s->rows)
			return 1;
	} else if (!s->merged) {
		s->row_group++;
	}
	for (;;) {
		if (!s->merged) { /* a group is read whole: after its rows comes the next file */
			const floe_parquet_meta *m = floe_parquet_reader_meta(s->reader);
			while (s->row_group < m->n_row_groups && m->row_groups[s->row_group].num_rows == 0)
				s->row_group++;
			if (s->row_group < m->n_row_groups)
				return read_row_group(s) < 0 ? -1 : 1;
		}
		if (++s->file == s->n_files) {
			free_vectors(s);
			s->rows = s->row = 0;
			s->merged = false;
			return 0;
		}
		if (open_file(s) < 0)
			return -1;
		if (s->merged && s->rows)
			return 1;
	}
}

void bronze_scan_close(bronze_scan *s)
{
	free_vectors(s);
	floe_parquet_reader_free(s->reader);
	s->reader = NULL;
}
