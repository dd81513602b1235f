/*
 * test_parquet_dict.c — when the writer keeps a column's dictionary and when it gives up: a
 * UUID key column whose values hardly repeat goes PLAIN after the page that follows the
 * trial, a low-cardinality one keeps its dictionary for the whole chunk, and both read back
 * exactly (values and UUID bounds, which the PLAIN pages now track in a run of their own).
 */
#include "harness.h"
#include "parquet_testkit.h"

#include "base/arena.h"
#include "base/error.h"
#include "format/parquet.h"

#include <string.h>

enum { ROWS = 20000, PAGE_ROWS = 1000 };

static void uuid_of(uint8_t out[16], uint64_t k)
{
	for (int half = 0; half < 2; half++) {
		uint64_t z = k * 0x9E3779B97F4A7C15ULL + (uint64_t)half;
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
		z ^= z >> 31;
		memcpy(out + 8 * half, &z, 8);
	}
}

/* Bytes of the chunk's dictionary page (0 without one). */
static int64_t dict_page_bytes(const floe_parquet_column_chunk *cc)
{
	return cc->has_dictionary_page_offset ? cc->data_page_offset - cc->dictionary_page_offset : 0;
}

FLOE_TEST(parquet_uuid_keys_give_up_the_dictionary_after_one_page_low_cardinality_keeps_it)
{
	/* key: like order_items.order_id, each value on one or two neighbouring rows (2 of 3
	 * rows new); seller: 100 values over and over. */
	floe_parquet_field f[2] = {
		{ .name = "key", .id = 1, .type = FLOE_VEC_UUID },
		{ .name = "seller", .id = 2, .type = FLOE_VEC_UUID },
	};
	floe_vector v[2];
	uint8_t u[16], lo[16], hi[16];
	for (int c = 0; c < 2; c++)
		floe_vector_init(&v[c], FLOE_VEC_UUID, 16);
	for (uint64_t i = 0; i < ROWS; i++) {
		uuid_of(u, i * 2 / 3);
		floe_vector_append_fixed(&v[0], u);
		if (i == 0 || memcmp(u, lo, 16) < 0)
			memcpy(lo, u, 16);
		if (i == 0 || memcmp(u, hi, 16) > 0)
			memcpy(hi, u, 16);
		uuid_of(u, 1000000 + i % 100);
		floe_vector_append_fixed(&v[1], u);
	}
	floe_parquet_writer_opts o = FLOE_PARQUET_WRITER_OPTS_INIT;
	o.page_rows = PAGE_ROWS;
	floe_parquet_writer *w = NULL;
	floe_parquet_reader *r = NULL;
	floe_arena *arena = floe_arena_new();
	floe_parquet_file_stats st;
	const char *path = tmp_path("uuid_dict.parquet");
	FLOE_CHECK(tk_parquet_create(&w, path, f, 2, &o) == 0);
	FLOE_CHECK(floe_parquet_writer_write_batch(w, v, 2) == 0);
	FLOE_CHECK(floe_parquet_writer_close(&st, w, arena) == 0);
	FLOE_CHECK(tk_parquet_open(&r, path_of("uuid_dict.parquet"), NULL) == 0);
	if (!r)
		goto done;
	const floe_parquet_meta *m = floe_parquet_reader_meta(r);
	FLOE_CHECK(m->n_row_groups == 1);
	const floe_parquet_column_chunk *key = &m->row_groups[0].columns[0];
	const floe_parquet_column_chunk *seller = &m->row_groups[0].columns[1];
	/* The trial page and the next one: about 1,334 entries of 16 bytes, not the chunk's
	 * 13,334 (213 kB) a dictionary kept to the end would hold. */
	FLOE_CHECK(dict_page_bytes(key) > 0 && dict_page_bytes(key) < 2 * PAGE_ROWS * 16);
	FLOE_CHECK(key->encodings & (1u << 0)); /* PLAIN data pages */
	FLOE_CHECK(dict_page_bytes(seller) > 0 && dict_page_bytes(seller) < 100 * 16 + 64);
	FLOE_CHECK(seller->total_compressed_size < ROWS); /* well under a byte per row: indices only */
	FLOE_CHECK(column_equals(r, 0, &v[0]) && column_equals(r, 1, &v[1]));
	/* The key's Iceberg bounds are the extremes of every row, dictionary pages and PLAIN. */
	FLOE_CHECK(st.n_columns == 2 && st.columns[0].lower_len == 16 && st.columns[0].upper_len == 16);
	FLOE_CHECK(memcmp(st.columns[0].lower, lo, 16) == 0 && memcmp(st.columns[0].upper, hi, 16) == 0);
done:
	floe_parquet_reader_free(r);
	floe_arena_free(arena);
	for (int c = 0; c < 2; c++)
		floe_vector_free(&v[c]);
}
