/*
 * parquet_reader_int.h — the reader's handle, shared by parquet_read.c (open, footer,
 * schema, file statistics) and parquet_decode.c (pages into vectors).
 */
#ifndef FLOE_FORMAT_PARQUET_READER_INT_H
#define FLOE_FORMAT_PARQUET_READER_INT_H

#include "format/parquet_int.h"

struct floe_parquet_reader {
	floe_arena *arena;            /* the footer model and every string in it */
	floe_parquet_reader_opts opts;
	int fd;                       /* -1 for a reader over memory */
	const uint8_t *mem;
	char *path;                   /* for messages: the path or "(memory)" */
	floe_parquet_meta meta;
	int64_t data_end;             /* first byte of the footer: chunks must end before */
	pq_codec *codecs[8];          /* created on first use, by codec number */
	floe_buf chunk, page;         /* scratch for column chunk bytes and a decompressed page */
};

/* Copy `len` bytes at `offset` of the file into `dst`. */
int pq_read_at(floe_parquet_reader *r, int64_t offset, size_t len, uint8_t *dst);

/* Decode the column chunk bytes of `leaf` in row group `rg` into `out` (parquet_decode.c). */
int pq_decode_chunk(floe_vector *out, floe_parquet_reader *r, const floe_parquet_leaf *leaf,
		    const floe_parquet_column_chunk *cc, const uint8_t *data, size_t len);

#endif
