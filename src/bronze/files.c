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
		       const bronze_columns *cols, size_t max_rows, int zstd_level)
{
	memset(f, 0, sizeof(*f));
	f->zstd_level = zstd_level;
	f->arena = arena;
	f->table = table;
	f->cols = cols;
	f->max_rows = max_rows;
}

size_t bronze_files_room(const bronze_files *f)
{
	return f->max_rows ? f->max_rows - f->rows : SIZE_MAX;
}

int bronze_files_open(bronze_files *f)
{
	floe_parquet_writer_opts o = FLOE_PARQUET_WRITER_OPTS_INIT;
	o.row_group_bytes = ROW_GROUP_BYTES;
	if (f->zstd_level)
		o.zstd_level = f->zstd_level;
	f->uri = floe_iceberg_table_new_data_uri(f->table, f->arena, "parquet");
	f->rows = 0;
	return floe_iceberg_parquet_create(&f->writer, floe_iceberg_table_storage(f->table), f->uri,
					   f->cols->fields, f->cols->n, &o);
}

int bronze_files_close(bronze_files *f)
{
	floe_parquet_file_stats st;
	if (bronze_files_settle(f) < 0)
		return -1;
	floe_parquet_writer *w = f->writer;
	if (!w)
		return 0;
	f->writer = NULL;
	if (floe_parquet_writer_close(&st, w, f->arena) < 0)
		return -1; /* nothing was published at f->uri */
	floe_iceberg_data_file_from_parquet(FLOE_ARENA_PUSH(f->arena, f->files, f->n, f->cap), f->arena, f->uri, &st);
	f->rows = 0;
	return 0;
}

int bronze_files_write(bronze_files *f, const floe_vector *vectors)
{
	size_t rows = f->cols->n ? vectors[0].len : 0;
	if (rows == 0)
		return 0;
	if (bronze_files_settle(f) < 0 || (!f->writer && bronze_files_open(f) < 0))
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
	bronze_files_settle_quiet(f); /* what it wrote goes anyway */
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
