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
#include "iceberg/parquet_io.h"

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

static int open_file(bronze_scan *s)
{
	floe_parquet_reader_free(s->reader);
	s->reader = NULL;
	s->row_group = 0;
	s->rows = s->row = 0;
	return floe_iceberg_parquet_open(&s->reader, floe_iceberg_table_storage(s->table), s->files[s->file]->path, NULL);
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
	} else {
		s->row_group++;
	}
	for (;;) {
		const floe_parquet_meta *m = floe_parquet_reader_meta(s->reader);
		while (s->row_group < m->n_row_groups && m->row_groups[s->row_group].num_rows == 0)
			s->row_group++;
		if (s->row_group < m->n_row_groups)
			return read_row_group(s) < 0 ? -1 : 1;
		if (++s->file == s->n_files) {
			free_vectors(s);
			s->rows = s->row = 0;
			return 0;
		}
		if (open_file(s) < 0)
			return -1;
	}
}

void bronze_scan_close(bronze_scan *s)
{
	free_vectors(s);
	floe_parquet_reader_free(s->reader);
	s->reader = NULL;
}
