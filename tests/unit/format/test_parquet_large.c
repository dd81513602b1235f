/*
 * test_parquet_large.c — a value larger than the dictionary and longer than any statistic:
 * the writer skips the dictionary trial for it (without a copy into a dictionary) and tracks
 * statistics on a prefix, and the file still reads back equal with the bounds the whole
 * values give.
 */
#include "harness.h"
#include "parquet_testkit.h"

#include "base/arena.h"
#include "base/error.h"

#include <stdlib.h>

static bool hex_equal(const uint8_t *p, size_t n, const char *want)
{
	char got[256];
	if (2 * n + 1 > sizeof(got))
		return false;
	for (size_t i = 0; i < n; i++)
		snprintf(got + 2 * i, 3, "%02x", p[i]);
	got[2 * n] = '\0';
	return strcmp(got, want) == 0;
}

FLOE_TEST(parquet_a_value_larger_than_the_dictionary_reads_back_with_its_bounds)
{
	floe_parquet_field f = { .name = "s", .id = 1, .type = FLOE_VEC_STRING };
	floe_parquet_writer_opts o = FLOE_PARQUET_WRITER_OPTS_INIT;
	floe_parquet_writer *w = NULL;
	floe_parquet_reader *r = NULL;
	floe_parquet_file_stats st;
	floe_arena *a = floe_arena_new();
	floe_vector small, large, all;
	const char *path = tmp_path("large.parquet");
	size_t big = 100000;
	char *b = malloc(big);
	memset(b, 'b', big);
	b[big - 1] = 'c'; /* the last byte decides nothing a bound keeps */
	o.fsync = false;
	o.dictionary_bytes = 4096;
	floe_vector_init(&small, FLOE_VEC_STRING, 0);
	floe_vector_init(&large, FLOE_VEC_STRING, 0);
	floe_vector_init(&all, FLOE_VEC_STRING, 0);
	/* one page: a batch the dictionary trial takes, then one no dictionary could hold */
	static const char *const words[] = { "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaz", "b",
					     "b" };
	for (int i = 0; i < 3; i++) {
		floe_vector_append_bytes(&small, words[i], strlen(words[i]));
		floe_vector_append_bytes(&all, words[i], strlen(words[i]));
	}
	floe_vector_append_bytes(&large, b, big);
	floe_vector_append_bytes(&all, b, big);
	FLOE_CHECK(floe_parquet_writer_open(&w, path, &f, 1, &o) == 0 &&
		   floe_parquet_writer_write_batch(w, &small, 1) == 0 &&
		   floe_parquet_writer_write_batch(w, &large, 1) == 0 && floe_parquet_writer_close(&st, w, a) == 0);
	FLOE_CHECK(floe_parquet_reader_open(&r, path, NULL) == 0 && column_equals(r, 0, &all));
	/* Iceberg's 16-character bounds, as from the whole values */
	const floe_parquet_column_stats *cs = &st.columns[0];
	FLOE_CHECK(cs->has_lower && hex_equal(cs->lower, cs->lower_len, "61616161616161616161616161616161"));
	FLOE_CHECK(cs->has_upper && hex_equal(cs->upper, cs->upper_len, "62626262626262626262626262626263"));
	floe_parquet_reader_free(r);
	floe_vector_free(&small);
	floe_vector_free(&large);
	floe_vector_free(&all);
	floe_arena_free(a);
	free(b);
	floe_error_clear();
}
