/*
 * read.c — the Iceberg side of a publish: the mart's schema as PostgreSQL columns, and
 * its rows read through floe's own scan and Parquet reader (file after file, row group
 * after row group, columns found by field id) and encoded as binary COPY rows.
 */
#include "publish/publish_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "format/parquet.h"
#include "iceberg/parquet_io.h"
#include "iceberg/schema.h"
#include "pg/copy.h"
#include "vector/vector.h"

#include <string.h>

#define FLUSH_BYTES (1u << 20)

typedef struct type_map {
	floe_iceberg_type_id id;
	floe_vec_type vec;
	const char *pg;             /* NULL: decimal, written with its precision and scale */
} type_map;

static const type_map TYPES[] = {
	{ FLOE_ICEBERG_BOOLEAN, FLOE_VEC_BOOLEAN, "boolean" },
	{ FLOE_ICEBERG_INT, FLOE_VEC_INT, "integer" },
	{ FLOE_ICEBERG_LONG, FLOE_VEC_LONG, "bigint" },
	{ FLOE_ICEBERG_FLOAT, FLOE_VEC_FLOAT, "real" },
	{ FLOE_ICEBERG_DOUBLE, FLOE_VEC_DOUBLE, "double precision" },
	{ FLOE_ICEBERG_DECIMAL, FLOE_VEC_DECIMAL, NULL },
	{ FLOE_ICEBERG_DATE, FLOE_VEC_DATE, "date" },
	{ FLOE_ICEBERG_TIME, FLOE_VEC_TIME, "time" },
	{ FLOE_ICEBERG_TIMESTAMP, FLOE_VEC_TIMESTAMP, "timestamp" },
	{ FLOE_ICEBERG_TIMESTAMPTZ, FLOE_VEC_TIMESTAMPTZ, "timestamptz" },
	{ FLOE_ICEBERG_STRING, FLOE_VEC_STRING, "text" },
	{ FLOE_ICEBERG_UUID, FLOE_VEC_UUID, "uuid" },
	{ FLOE_ICEBERG_FIXED, FLOE_VEC_FIXED, "bytea" },
	{ FLOE_ICEBERG_BINARY, FLOE_VEC_BINARY, "bytea" },
};

static const type_map *map_of(const floe_iceberg_type *t)
{
	for (size_t i = 0; i < sizeof(TYPES) / sizeof(TYPES[0]); i++)
		if (TYPES[i].id == t->id)
			return &TYPES[i];
	return NULL;
}

static int unsupported(publish_job *job, const floe_iceberg_field *f)
{
	floe_error_set(FLOE_ERR_USAGE, "column \"%s\" of gold.%s is a %s, which floe does not publish", f->name,
		       job->mart, floe_iceberg_type_string(job->arena, f->type));
	floe_error_detail("Published tables carry primitive columns only (numbers, text, dates, times, "
			  "uuid, binary); a struct, list or map has no single PostgreSQL column type here.");
	floe_error_hint("Flatten the column in the mart's model, or leave this mart out with --mart.");
	return -1;
}

int publish_columns_ddl(floe_buf *out, publish_job *job)
{
	floe_buf_putc(out, '(');
	for (size_t i = 0; i < job->schema->n_fields; i++) {
		const floe_iceberg_field *f = &job->schema->fields[i];
		const type_map *m = map_of(f->type);
		if (!m)
			return unsupported(job, f);
		floe_buf_puts(out, i ? ", " : "");
		if (floe_pg_quote_ident(out, job->pg, f->name) < 0)
			return -1;
		if (m->pg)
			floe_buf_printf(out, " %s", m->pg);
		else
			floe_buf_printf(out, " numeric(%d,%d)", (int)f->type->precision, (int)f->type->scale);
		floe_buf_puts(out, f->required ? " NOT NULL" : "");
	}
	floe_buf_putc(out, ')');
	return 0;
}

/* The rows and columns of one row group, in the schema's order. */
typedef struct batch {
	floe_vector *vec;
	size_t n, rows;
} batch;

static void batch_clear(batch *b)
{
	for (size_t i = 0; i < b->n; i++)
		floe_vector_free(&b->vec[i]);
	b->rows = 0;
}

/* The top-level Parquet field carrying Iceberg field `id`, or -1. */
static long field_with_id(const floe_parquet_meta *m, int32_t id)
{
	for (size_t i = 0; i < m->n_fields; i++)
		if (m->fields[i].has_field_id && m->fields[i].field_id == id)
			return (long)i;
	return -1;
}

/* Column k of the row group: read by field id, or all nulls when the file predates the column. */
static int read_column(batch *b, size_t k, publish_job *job, floe_parquet_reader *r, size_t rg, const char *path)
{
	const floe_iceberg_field *f = &job->schema->fields[k];
	const type_map *m = map_of(f->type);
	long at = field_with_id(floe_parquet_reader_meta(r), f->id);
	if (at < 0) {
		floe_vector_init(&b->vec[k], m->vec, f->type->length);
		b->vec[k].precision = f->type->precision;
		b->vec[k].scale = f->type->scale;
		for (size_t i = 0; i < b->rows; i++)
			floe_vector_append_null(&b->vec[k]);
		return 0;
	}
	if (floe_parquet_reader_read_field(&b->vec[k], r, rg, (size_t)at) < 0)
		return floe_error_context("while reading column \"%s\" of \"%s\"", f->name, path);
	if (b->vec[k].type != m->vec || (m->vec == FLOE_VEC_DECIMAL && b->vec[k].scale != f->type->scale))
		return floe_error_set(FLOE_ERR_CHECK, "data file \"%s\" holds column \"%s\" as %s, not as the "
				      "table's %s", path, f->name, floe_vec_type_name(b->vec[k].type),
				      floe_iceberg_type_string(job->arena, f->type));
	return 0;
}

static int flush(floe_buf *buf, publish_job *job)
{
	int error = floe_pg_copy_in_put(job->pg, buf->ptr, buf->len);
	floe_buf_clear(buf);
	return error;
}

static int put_batch(floe_buf *buf, const batch *b, publish_job *job)
{
	for (size_t row = 0; row < b->rows; row++) {
		floe_pg_copy_put_row_start(buf, (uint16_t)b->n);
		for (size_t k = 0; k < b->n; k++)
			if (floe_pg_encode_field(buf, &b->vec[k], row) < 0)
				return -1;
		if (buf->len >= FLUSH_BYTES && flush(buf, job) < 0)
			return -1;
	}
	return 0;
}

static int stream_file(floe_buf *buf, batch *b, publish_job *job, const char *path)
{
	floe_parquet_reader *r = NULL;
	int error = -1;
	if (floe_iceberg_parquet_open(&r, floe_iceberg_table_storage(job->table), path, NULL) < 0)
		goto cleanup;
	const floe_parquet_meta *m = floe_parquet_reader_meta(r);
	for (size_t rg = 0; rg < m->n_row_groups; rg++) {
		batch_clear(b);
		b->rows = (size_t)m->row_groups[rg].num_rows;
		for (size_t k = 0; k < b->n; k++)
			if (read_column(b, k, job, r, rg, path) < 0)
				goto cleanup;
		if (put_batch(buf, b, job) < 0)
			goto cleanup;
	}
	error = 0;
cleanup:
	batch_clear(b);
	floe_parquet_reader_free(r);
	return error;
}

int publish_stream_rows(publish_job *job)
{
	floe_buf buf = FLOE_BUF_INIT;
	batch b = { floe_arena_alloc(job->arena, (job->schema->n_fields + 1) * sizeof(floe_vector)),
		    job->schema->n_fields, 0 };
	memset(b.vec, 0, (b.n + 1) * sizeof(floe_vector));
	int error = -1;
	floe_pg_copy_put_header(&buf);
	for (size_t i = 0; i < job->scan->n_files; i++)
		if (stream_file(&buf, &b, job, job->scan->files[i].file.path) < 0)
			goto cleanup;
	floe_pg_copy_put_trailer(&buf);
	error = flush(&buf, job);
cleanup:
	floe_buf_free(&buf);
	return error;
}
