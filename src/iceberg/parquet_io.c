/*
 * parquet_io.c — storage writer and reader handles as the Parquet writer's sink and
 * the reader's source (parquet_io.h).
 */
#include "iceberg/parquet_io.h"

static int sink_write(void *ctx, const void *data, size_t len)
{
	return floe_iceberg_writer_write(ctx, data, len);
}

static int sink_publish(void *ctx)
{
	return floe_iceberg_writer_close(ctx);
}

static void sink_abort(void *ctx)
{
	floe_iceberg_writer_abort(ctx);
}

int floe_iceberg_parquet_create(floe_parquet_writer **out, floe_iceberg_storage *s,
				const char *uri, const floe_parquet_field *fields, size_t n_fields,
				const floe_parquet_writer_opts *opts)
{
	floe_iceberg_writer *w;
	floe_parquet_sink sink = { .write = sink_write, .publish = sink_publish, .abort = sink_abort };
	*out = NULL;
	if (floe_iceberg_storage_open_write(&w, s, uri) < 0)
		return -1;
	sink.ctx = w;
	sink.name = floe_iceberg_writer_uri(w);
	return floe_parquet_writer_open(out, &sink, fields, n_fields, opts);
}

static int source_read_at(void *ctx, void *buf, size_t len, int64_t offset)
{
	return floe_iceberg_reader_read_at(ctx, buf, len, offset);
}

static void source_close(void *ctx)
{
	floe_iceberg_reader_close(ctx);
}

int floe_iceberg_parquet_open(floe_parquet_reader **out, floe_iceberg_storage *s, const char *uri,
			      const floe_parquet_reader_opts *opts)
{
	floe_iceberg_reader *r;
	floe_parquet_source src = { .read_at = source_read_at, .close = source_close, .name = uri };
	*out = NULL;
	if (floe_iceberg_storage_open_read(&r, s, uri) < 0)
		return -1;
	src.ctx = r;
	src.size = floe_iceberg_reader_size(r);
	return floe_parquet_reader_open(out, &src, opts);
}
