/*
 * fuzz_parquet_footer.c — libFuzzer target for floe's Parquet reader, given a whole file:
 * magic and footer length, the Thrift footer (schema, row groups, statistics), the schema
 * tree, and then every column chunk of every row group decoded, every top-level field read
 * whole (nested fields rebuilt from their leaves), and the Iceberg metrics derived from the
 * footer.
 *
 * Contract checked beyond "no crash, no leak, no undefined behaviour": a column or field
 * that decodes has exactly its row group's row count; a rejected file sets an error message.
 * The reader's limits are small so a tiny input cannot ask for gigabytes.
 * Seeds: fuzz/corpus/parquet_footer (files floe, pyarrow and DuckDB wrote).
 */
#include "base/arena.h"
#include "base/error.h"
#include "format/parquet.h"
#include "format/thrift_compact.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(int ok)
{
	if (!ok)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	floe_parquet_reader_opts opts = { .max_footer_bytes = 1 << 20, .max_page_bytes = 1 << 20, .max_values = 1 << 16, .skip_page_crc = false };
	floe_parquet_reader *r = NULL;

	/* The Thrift layer on its own: skipping any input as a struct must stay in bounds. */
	floe_thrift_reader t;
	floe_thrift_reader_init(&t, data, size);
	if (floe_thrift_skip(&t, FLOE_THRIFT_STRUCT) == 0)
		require(floe_thrift_reader_offset(&t) <= size);
	else
		require(floe_thrift_reader_error(&t, NULL) != NULL);

	if (floe_parquet_reader_open_mem(&r, data, size, &opts) < 0) {
		require(floe_error_last() != NULL && floe_error_last()->message[0]);
		floe_error_clear();
		return 0;
	}
	const floe_parquet_meta *m = floe_parquet_reader_meta(r);
	size_t reads = 0;
	for (size_t g = 0; g < m->n_row_groups && reads < 256; g++) {
		/* each leaf alone, then each top-level field whole */
		for (size_t c = 0; c < m->n_leaves + m->n_fields && reads < 256; c++, reads++) {
			floe_vector v;
			int rc = c < m->n_leaves ? floe_parquet_reader_read_column(&v, r, g, c)
						 : floe_parquet_reader_read_field(&v, r, g, c - m->n_leaves);
			if (rc == 0) {
				require((int64_t)v.len == m->row_groups[g].num_rows);
				floe_vector_free(&v);
			} else {
				require(floe_error_last() != NULL);
			}
			floe_error_clear();
		}
	}
	floe_arena *a = floe_arena_new();
	floe_parquet_file_stats st;
	require(floe_parquet_reader_file_stats(&st, r, a) == 0);
	require(st.n_columns == m->n_leaves);
	for (size_t i = 0; i < st.n_columns; i++)
		require(!st.columns[i].has_upper || st.columns[i].upper_len <= 68);
	floe_arena_free(a);
	floe_parquet_reader_free(r);
	floe_error_clear();
	return 0;
}
