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
	s->opts = (floe_parquet_reader_opts)FLOE_PARQUET_READER_OPTS_INIT;
	s->opts.scratch = floe_parquet_scratch_new();
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
}

/* The top-level field with `field_id` in the open file, or -1 when the file has none. */
static long field_of(const floe_parquet_meta *m, int32_t field_id)
{
	for (size_t i = 0; i < m->n_fields; i++)
		if (m->fields[i].has_field_id && m->fields[i].field_id == field_id)
			return (long)i;
	return -1;
}

/* Column k read from `path` into `vec` must be of the table's type, nested the same way. */
static int check_shape(const bronze_scan *s, const floe_vector *vec, size_t k, const char *path)
{
	const floe_iceberg_field *f = &s->cols->schema->fields[s->want[k]];
	floe_vector want;
	floe_pg_copy_vector_init(&want, &s->cols->copy[s->want[k]]);
	bool same = floe_vector_same_shape(&want, &vec[k]);
	floe_vector_free(&want);
	if (same)
		return 0;
	floe_error_set(FLOE_ERR_CHECK, "data file \"%s\" holds column \"%s\" (field id %d) as another type "
		       "than the table's", path, f->name, (int)f->id);
	floe_error_detail("Its values (%s) are of another type, or nest other fields or elements, than the "
			  "table's schema says; rows cannot be merged across the two.",
			  floe_vec_type_name(vec[k].type));
	return -1;
}

/* The wanted columns of row group `rg` of `r` (data file `path`) into `vec` (valid vectors, refilled). */
static int read_columns(const bronze_scan *s, floe_parquet_reader *r, const char *path, size_t rg,
			floe_vector *vec)
{
	const floe_parquet_meta *m = floe_parquet_reader_meta(r);
	size_t rows = (size_t)m->row_groups[rg].num_rows;
	for (size_t k = 0; k < s->n_want; k++) {
		const floe_iceberg_field *f = &s->cols->schema->fields[s->want[k]];
		long field = field_of(m, f->id);
		if (field >= 0) {
			if (floe_parquet_reader_read_field_reuse(&vec[k], r, rg, (size_t)field) < 0)
				return floe_error_context("while reading column \"%s\" of \"%s\"", f->name, path);
			if (check_shape(s, vec, k, path) < 0)
				return -1;
			continue;
		}
		if (f->required)
			return floe_error_set(FLOE_ERR_CHECK, "data file \"%s\" has no column \"%s\" (field id %d)",
					      path, f->name, (int)f->id);
		floe_vector_free(&vec[k]);
		floe_pg_copy_vector_init(&vec[k], &s->cols->copy[s->want[k]]);
		for (size_t i = 0; i < rows; i++)
			floe_vector_append_null(&vec[k]);
	}
	return 0;
}

static int read_row_group(bronze_scan *s)
{
	const floe_parquet_meta *m = floe_parquet_reader_meta(s->reader);
	if (read_columns(s, s->reader, s->files[s->file]->path, s->row_group, s->vec) < 0)
		return -1;
	s->rows = (size_t)m->row_groups[s->row_group].num_rows;
	s->row = 0;
	return 0;
}

static int open_path(bronze_scan *s, const char *path)
{
	floe_parquet_reader_free(s->reader);
	s->reader = NULL;
	s->row_group = 0;
	s->rows = s->row = 0;
	return floe_iceberg_parquet_open(&s->reader, floe_iceberg_table_storage(s->table), path, &s->opts);
}

/* ---- a group: its members' live rows merged in key order as they stream ---- */

/* One member of the group being read: its reader, its current row group, its next deleted position. */
typedef struct bronze_cursor {
	const floe_iceberg_scan_file *f;
	floe_parquet_reader *reader;
	floe_vector *vec;          /* n_want columns of the current row group */
	floe_vector *keys[64];     /* the key columns among them */
	size_t row_group, row, rows;
	int64_t offset;            /* position in the file of the row group's first row */
	size_t next_del;           /* f->deleted[next_del]: the first deleted position at or after the row */
	bool started, done;
} bronze_cursor;

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

/*
 * A member's column vectors go to the spare list, buffers and all: the next member to open reads
 * into them (its decode refills them), where fresh ones cost a page fault every 4 KiB — a fifth of
 * a merge-on-read key pass over a table's every unit.
 */
static void cursor_release(bronze_scan *s, bronze_cursor *c)
{
	if (c->vec) {
		*FLOE_ARENA_PUSH(s->arena, s->spare, s->n_spare, s->cap_spare) = c->vec;
		c->vec = NULL;
	}
	floe_parquet_reader_free(c->reader);
	c->reader = NULL;
	c->started = false;
	c->done = true;
}

/* The first row at or after c->row that a position delete does not remove (bounded by c->rows). */
static size_t cursor_live_end(bronze_cursor *c)
{
	const int64_t *del = c->f->deleted;
	while (c->next_del < c->f->n_deleted && del[c->next_del] < c->offset + (int64_t)c->row)
		c->next_del++;
	if (c->next_del < c->f->n_deleted && del[c->next_del] < c->offset + (int64_t)c->rows)
		return (size_t)(del[c->next_del] - c->offset);
	return c->rows;
}

/* Move the cursor to its next live row, reading row groups as needed: 1, or 0 at its end (released). */
static int cursor_settle(bronze_scan *s, bronze_cursor *c)
{
	const floe_parquet_meta *m = c->done ? NULL : floe_parquet_reader_meta(c->reader);
	while (!c->done) {
		if (c->row < c->rows) {
			if (cursor_live_end(c) > c->row)
				return 1;
			c->row++; /* deleted */
			continue;
		}
		size_t rg = c->started ? c->row_group + 1 : 0;
		c->offset += (int64_t)c->rows;
		while (rg < m->n_row_groups && m->row_groups[rg].num_rows == 0)
			rg++;
		if (rg == m->n_row_groups) {
			cursor_release(s, c);
			return 0;
		}
		c->started = true;
		c->row_group = rg;
		c->row = 0;
		c->rows = (size_t)m->row_groups[rg].num_rows;
		if (read_columns(s, c->reader, c->f->file.path, rg, c->vec) < 0)
			return -1;
	}
	return 0;
}

static void close_group(bronze_scan *s)
{
	for (size_t i = 0; i < s->n_cursors; i++)
		cursor_release(s, &s->cursors[i]);
	s->n_cursors = 0;
	free(s->cursors);
	free(s->src_member);
	free(s->src_pos);
	s->cursors = NULL;
	s->src_member = NULL;
	s->src_pos = NULL;
}

/* A cursor on every member of group `grp`, each at its first live row. */
static int open_group(bronze_scan *s, const bronze_group *grp)
{
	floe_vector *probe[64];
	if (s->keys->n > 64 || key_view(s, probe, s->vec) < 0)
		return floe_error_set(FLOE_ERR_INTERNAL, "a merged scan must read the key columns (a bug in floe)");
	s->cursors = floe_xcalloc(grp->n + 1, sizeof(*s->cursors));
	s->src_member = floe_xmalloc(BRONZE_BATCH_ROWS * sizeof(*s->src_member));
	s->src_pos = floe_xmalloc(BRONZE_BATCH_ROWS * sizeof(*s->src_pos));
	s->n_cursors = grp->n;
	for (size_t i = 0; i < grp->n; i++)
		s->cursors[i].done = true; /* until opened: nothing to release */
	for (size_t i = 0; i < grp->n; i++) {
		bronze_cursor *c = &s->cursors[i];
		c->f = grp->members[i];
		c->vec = s->n_spare ? s->spare[--s->n_spare] : floe_arena_alloc(s->arena, (s->n_want + 1) * sizeof(floe_vector));
		key_view(s, c->keys, c->vec);
		if (floe_iceberg_parquet_open(&c->reader, floe_iceberg_table_storage(s->table), c->f->file.path,
					      &s->opts) < 0)
			return -1;
		c->done = false;
		if (cursor_settle(s, c) < 0)
			return -1;
	}
	for (size_t k = 0; k < s->n_want && !s->vec_merging; k++)
		floe_pg_copy_vector_init(&s->vec[k], &s->cols->copy[s->want[k]]);
	s->vec_merging = true;
	s->merged = true;
	s->rows = s->row = 0;
	return 0;
}

/* The member whose current row comes first (ties: the earlier member), and the runner-up. */
static void pick(const bronze_scan *s, size_t n, bronze_cursor **best, bronze_cursor **next)
{
	*best = *next = NULL;
	for (size_t i = 0; i < n; i++) {
		bronze_cursor *c = &s->cursors[i];
		if (c->done)
			continue;
		if (!*best || bronze_key_cmp(s->keys, c->keys, c->row, (*best)->keys, (*best)->row) < 0) {
			*next = *best;
			*best = c;
		} else if (!*next || bronze_key_cmp(s->keys, c->keys, c->row, (*next)->keys, (*next)->row) < 0) {
			*next = c;
		}
	}
}

/*
 * The group's next rows in key order into s->vec, up to a batch: runs of one member's live rows
 * that come before every other member's current row (found by binary search), copied a run at a
 * time. 1, or 0 at its end. Members are key-sorted; should one not be, the rows come out of order
 * and the readers' order checks say so.
 */
static int next_batch(bronze_scan *s)
{
	bronze_cursor *best, *next;
	size_t n = 0;
	for (size_t k = 0; k < s->n_want; k++)
		floe_vector_clear(&s->vec[k]);
	while (n < BRONZE_BATCH_ROWS) {
		pick(s, s->n_cursors, &best, &next);
		if (!best)
			break;
		size_t from = best->row, end = cursor_live_end(best), to = from + 1;
		if (end > from + (BRONZE_BATCH_ROWS - n))
			end = from + (BRONZE_BATCH_ROWS - n);
		for (size_t hi = end; next && to < hi;) { /* binary search: the member's rows are in key order */
			size_t mid = to + (hi - to) / 2;
			if (bronze_key_cmp(s->keys, best->keys, mid, next->keys, next->row) < 0)
				to = mid + 1;
			else
				hi = mid;
		}
		if (!next)
			to = end;
		for (size_t k = 0; k < s->n_want; k++)
			floe_vector_append_rows(&s->vec[k], &best->vec[k], from, to - from);
		for (size_t r = from; r < to; r++, n++) {
			s->src_member[n] = (size_t)(best - s->cursors);
			s->src_pos[n] = best->offset + (int64_t)r;
		}
		best->row = to;
		if (cursor_settle(s, best) < 0)
			return -1;
	}
	s->rows = n;
	s->row = 0;
	return n > 0;
}

/* The next row group of the open data file with rows: 1, or 0 at its end. */
static int next_row_group(bronze_scan *s)
{
	const floe_parquet_meta *m = floe_parquet_reader_meta(s->reader);
	while (s->row_group < m->n_row_groups && m->row_groups[s->row_group].num_rows == 0)
		s->row_group++;
	if (s->row_group == m->n_row_groups)
		return 0;
	return read_row_group(s) < 0 ? -1 : 1;
}

/* Open files[file]: a data file to stream, or a group to merge. */
static int open_file(bronze_scan *s)
{
	const bronze_group *grp = s->groups ? s->groups[s->file] : NULL;
	close_group(s);
	if (grp && !s->vec_merging) /* a plain file's read refills the vectors in place; a group's batches, its own */
		free_vectors(s);
	if (!grp && s->vec_merging) {
		free_vectors(s);
		memset(s->vec, 0, s->n_want * sizeof(floe_vector));
		s->vec_merging = false;
	}
	s->merged = false;
	if (!grp)
		return open_path(s, s->files[s->file]->path);
	return open_group(s, grp);
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

size_t bronze_scan_run(const bronze_scan *s, size_t from, const char **path, int64_t *pos)
{
	if (!s->merged) {
		bronze_scan at = *s;
		at.row = from;
		bronze_scan_position(&at, path, pos);
		return s->rows;
	}
	size_t member = s->src_member[from], end = from + 1;
	while (end < s->rows && s->src_member[end] == member && s->src_pos[end] == s->src_pos[end - 1] + 1)
		end++;
	*path = s->groups[s->file]->members[member]->file.path;
	*pos = s->src_pos[from];
	return end;
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
	} else if (!s->merged) {
		s->row_group++;
	}
	for (;;) {
		int rc = s->merged ? next_batch(s) : next_row_group(s);
		if (rc != 0)
			return rc;
		if (++s->file == s->n_files) {
			close_group(s);
			free_vectors(s);
			s->rows = s->row = 0;
			s->merged = false;
			return 0;
		}
		if (open_file(s) < 0)
			return -1;
	}
}

void bronze_scan_close(bronze_scan *s)
{
	close_group(s);
	free_vectors(s);
	for (size_t i = 0; i < s->n_spare; i++)
		for (size_t k = 0; k < s->n_want; k++)
			floe_vector_free(&s->spare[i][k]);
	s->n_spare = 0;
	s->vec_merging = false;
	floe_parquet_reader_free(s->reader);
	s->reader = NULL;
	floe_parquet_scratch_free(s->opts.scratch);
	s->opts.scratch = NULL;
}
