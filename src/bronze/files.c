/*
 * files.c — the data files one load writes: ZSTD Parquet with the plan's field
 * ids, closed when they reach the row bound (or when the caller says), each
 * described with its statistics for the Iceberg commit.
 */
#include "bronze/bronze_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "iceberg/parquet_io.h"

#include <string.h>

#define ROW_GROUP_BYTES ((size_t)64 << 20)

void bronze_files_init(bronze_files *f, floe_arena *arena, floe_iceberg_table *table,
		       const bronze_columns *cols, size_t max_rows)
{
	memset(f, 0, sizeof(*f));
	f->arena = arena;
	f->table = table;
	f->cols = cols;
	f->max_rows = max_rows;
}

size_t bronze_files_room(const bronze_files *f)
{
	return f->max_rows ? f->max_rows - f->rows : SIZE_MAX;
}

static int open_file(bronze_files *f)
{
	floe_parquet_writer_opts o = FLOE_PARQUET_WRITER_OPTS_INIT;
	o.row_group_bytes = ROW_GROUP_BYTES;
	f->uri = floe_iceberg_table_new_data_uri(f->table, f->arena, "parquet");
	f->rows = 0;
	return floe_iceberg_parquet_create(&f->writer, floe_iceberg_table_storage(f->table), f->uri,
					   f->cols->fields, f->cols->n, &o);
}

static void to_data_file(floe_iceberg_data_file *d, floe_arena *a, const char *uri,
			 const floe_parquet_file_stats *st)
{
	floe_iceberg_column_stats *cs = floe_arena_alloc(a, (st->n_columns + 1) * sizeof(*cs));
	for (size_t i = 0; i < st->n_columns; i++) {
		const floe_parquet_column_stats *p = &st->columns[i];
		cs[i] = (floe_iceberg_column_stats)FLOE_ICEBERG_COLUMN_STATS_INIT;
		cs[i].field_id = p->field_id;
		cs[i].column_size = p->column_size;
		cs[i].value_count = p->value_count;
		cs[i].null_value_count = p->null_count;
		cs[i].nan_value_count = p->has_nan_count ? p->nan_count : -1;
		cs[i].has_lower = p->has_lower;
		cs[i].lower = p->lower;
		cs[i].lower_len = p->lower_len;
		cs[i].has_upper = p->has_upper;
		cs[i].upper = p->upper;
		cs[i].upper_len = p->upper_len;
	}
	*d = (floe_iceberg_data_file)FLOE_ICEBERG_DATA_FILE_INIT;
	d->path = uri;
	d->record_count = st->record_count;
	d->file_size_in_bytes = st->file_size;
	d->split_offsets = st->split_offsets;
	d->n_split_offsets = st->n_split_offsets;
	d->columns = cs;
	d->n_columns = st->n_columns;
}

int bronze_files_close(bronze_files *f)
{
	floe_parquet_file_stats st;
	floe_parquet_writer *w = f->writer;
	if (!w)
		return 0;
	f->writer = NULL;
	if (floe_parquet_writer_close(&st, w, f->arena) < 0)
		return -1; /* nothing was published at f->uri */
	to_data_file(FLOE_ARENA_PUSH(f->arena, f->files, f->n, f->cap), f->arena, f->uri, &st);
	f->rows = 0;
	return 0;
}

int bronze_files_write(bronze_files *f, const floe_vector *vectors)
{
	size_t rows = f->cols->n ? vectors[0].len : 0;
	if (rows == 0)
		return 0;
	if (!f->writer && open_file(f) < 0)
		return -1;
	if (floe_parquet_writer_write_batch(f->writer, vectors, f->cols->n) < 0)
		return -1;
	f->rows += rows;
	if (f->max_rows && f->rows >= f->max_rows)
		return bronze_files_close(f);
	return 0;
}

void bronze_files_discard(bronze_files *f, size_t from)
{
	if (!f->table)
		return;
	floe_iceberg_storage *st = floe_iceberg_table_storage(f->table);
	for (size_t i = from; i < f->n; i++)
		floe_iceberg_storage_remove(st, f->files[i].path);
	if (f->n > from)
		f->n = from;
	if (f->writer) {
		floe_parquet_writer_abort(f->writer); /* leaves nothing at f->uri */
		f->writer = NULL;
	}
	f->rows = 0;
}
