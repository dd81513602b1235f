/*
 * files.c — the data files one load writes: ZSTD Parquet with the plan's field
 * ids, closed when they reach the row bound (or when the caller says), each
 * described with its statistics for the Iceberg commit.
 */
#include "bronze/bronze_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/log.h"
#include "iceberg/parquet_io.h"
#include "keyindex/keyfile.h"

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

/* The kept keys' storage, freed with the arena (one allocation for every file of the load; the
   bronze_files itself may be gone by then). */
typedef struct kept_storage {
	floe_vector *vec;
	size_t n;
} kept_storage;

static void keys_free(void *arg)
{
	kept_storage *k = arg;
	for (size_t i = 0; i < k->n; i++)
		floe_vector_free(&k->vec[i]);
}

void bronze_files_keep_keys(bronze_files *f, const bronze_keys *k, const char *dir)
{
	kept_storage *st = floe_arena_alloc(f->arena, sizeof(*st));
	f->keys = k;
	f->keys_dir = dir;
	f->key_vec = floe_arena_alloc(f->arena, (k->n + 1) * sizeof(floe_vector));
	for (size_t i = 0; i < k->n; i++) {
		floe_vector_init(&f->key_vec[i], f->cols->copy[k->col[i]].vec, f->cols->copy[k->col[i]].width);
		if (f->max_rows && f->max_rows <= ((size_t)1 << 24))
			floe_vector_reserve(&f->key_vec[i], f->max_rows); /* grown and faulted in once, not per file */
	}
	*st = (kept_storage){ .vec = f->key_vec, .n = k->n };
	floe_arena_on_cleanup(f->arena, keys_free, st);
	f->keys_ascending = true;
}

/* The open file's kept keys let go (its key file written, or none to write); their storage stays for the next. */
static void keys_release(bronze_files *f)
{
	for (size_t i = 0; f->keys_dir && i < f->keys->n; i++)
		floe_vector_clear(&f->key_vec[i]);
	f->keys_ascending = true;
}

void bronze_files_kept(bronze_files *f, const floe_vector *vectors, size_t rows)
{
	floe_vector *batch[64], *kept[64];
	if (!f->keys_dir || !f->keys_ascending || rows == 0)
		return;
	for (size_t i = 0; i < f->keys->n; i++) {
		batch[i] = (floe_vector *)&vectors[f->keys->col[i]];
		kept[i] = &f->key_vec[i];
	}
	if (!bronze_keys_append_ascending(f->keys, kept, batch, rows)) {
		keys_release(f);
		f->keys_ascending = false; /* this file gets no key file: its readers read its keys */
	}
}

/* The closed file's key file (a cache: one that cannot be written is said at -vv and left out). */
static void keys_write(bronze_files *f, const char *uri, int64_t rows)
{
	floe_vector *kept[64];
	if (!f->keys_dir)
		return;
	for (size_t i = 0; i < f->keys->n; i++)
		kept[i] = &f->key_vec[i];
	if (f->keys_ascending && rows > 0 && (int64_t)f->key_vec[0].len == rows &&
	    floe_keyfile_write(f->keys_dir, uri, kept, f->keys->n) < 0) {
		floe_log_debug("the key file of %s was not written: %s", uri, floe_error_last()->message);
		floe_error_clear();
	}
	keys_release(f);
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
	keys_write(f, f->uri, f->files[f->n - 1].record_count);
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
	bronze_files_kept(f, vectors, rows);
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
	for (size_t i = from; i < f->n; i++) {
		floe_iceberg_storage_remove(st, f->files[i].path);
		if (f->keys_dir)
			floe_keyfile_remove(f->keys_dir, f->files[i].path);
	}
	if (f->n > from)
		f->n = from;
	if (f->writer) {
		floe_parquet_writer_abort(f->writer); /* leaves nothing at f->uri */
		f->writer = NULL;
	}
	keys_release(f);
	f->rows = 0;
}
