/*
 * parquet_io.h — Parquet files in table storage: the Parquet writer and reader
 * (format/parquet.h) over storage.h's byte-stream handles, so no caller opens a
 * data file by path. A file written here appears at its URI only when
 * floe_parquet_writer_close() succeeds; floe_parquet_writer_abort() leaves nothing.
 */
#ifndef FLOE_ICEBERG_PARQUET_IO_H
#define FLOE_ICEBERG_PARQUET_IO_H

#include "format/parquet.h"
#include "iceberg/storage.h"

/*
 * Start a Parquet file at `uri` (create, never replace: FLOE_ERR_EXISTS when taken).
 * Close or abort *out as format/parquet.h says. On failure *out is NULL.
 */
int floe_iceberg_parquet_create(floe_parquet_writer **out, floe_iceberg_storage *s,
				const char *uri, const floe_parquet_field *fields, size_t n_fields,
				const floe_parquet_writer_opts *opts);

/* Open the Parquet file at `uri` and parse its footer; free with floe_parquet_reader_free. */
int floe_iceberg_parquet_open(floe_parquet_reader **out, floe_iceberg_storage *s, const char *uri,
			      const floe_parquet_reader_opts *opts);

#endif
