/*
 * bench.c — build/floe-parquet-bench: floe's Parquet writer on an orders-shaped table
 * (integers, doubles, decimals, low- and high-cardinality strings, timestamps, dates,
 * booleans, some nulls), for bench/parquet/run.sh.
 *
 *   floe-parquet-bench OUT.parquet [ROWS] [zstd-level (default floe's)] [zstd|snappy|none]
 *
 * Rows arrive in batches of 8192, as the COPY decoder delivers them. Generating a batch is
 * not timed; write_batch and close (footer included, fsync excluded: the peers do not
 * fsync) are, in wall-clock and in CPU time. Prints one JSON line: rows, seconds,
 * cpu_seconds, bytes, row_groups.
 */
#include "base/arena.h"
#include "base/error.h"
#include "format/parquet.h"
#include "iceberg/parquet_io.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BATCH 8192
#define N_COLS 11

static uint64_t rng = 0x5EED;

static uint64_t next(void)
{
	uint64_t z = (rng += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static double clock_of(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Wall and CPU time spent in the writer. */
typedef struct spent {
	double wall, cpu, wall0, cpu0;
} spent;

static void start(spent *s)
{
	s->wall0 = clock_of(CLOCK_MONOTONIC);
	s->cpu0 = clock_of(CLOCK_PROCESS_CPUTIME_ID);
}

static void stop(spent *s)
{
	s->wall += clock_of(CLOCK_MONOTONIC) - s->wall0;
	s->cpu += clock_of(CLOCK_PROCESS_CPUTIME_ID) - s->cpu0;
}

static const floe_parquet_field fields[N_COLS] = {
	{ .name = "id", .id = 1, .required = true, .type = FLOE_VEC_LONG },
	{ .name = "customer_id", .id = 2, .required = true, .type = FLOE_VEC_INT },
	{ .name = "status", .id = 3, .type = FLOE_VEC_STRING },
	{ .name = "email", .id = 4, .type = FLOE_VEC_STRING },
	{ .name = "amount", .id = 5, .type = FLOE_VEC_DECIMAL, .precision = 12, .scale = 2 },
	{ .name = "price", .id = 6, .type = FLOE_VEC_DOUBLE },
	{ .name = "quantity", .id = 7, .type = FLOE_VEC_INT },
	{ .name = "created_at", .id = 8, .type = FLOE_VEC_TIMESTAMPTZ },
	{ .name = "ship_date", .id = 9, .type = FLOE_VEC_DATE },
	{ .name = "note", .id = 10, .type = FLOE_VEC_STRING },
	{ .name = "is_gift", .id = 11, .type = FLOE_VEC_BOOLEAN },
};

static const char *const statuses[] = { "created", "paid", "shipped", "delivered", "cancelled" };
static const char *const notes[] = { "leave at the door", "call before delivery", "gift wrap",
				     "fragile", "no plastic", "deliver after 6pm", "use side entrance",
				     "signature required" };

static void fill(floe_vector *v, size_t first, size_t n)
{
	char tmp[64];
	for (int c = 0; c < N_COLS; c++)
		floe_vector_clear(&v[c]);
	for (size_t k = 0; k < n; k++) {
		uint64_t i = first + k, r = next();
		floe_vector_append_i64(&v[0], (int64_t)i + 1);
		floe_vector_append_i32(&v[1], (int32_t)(r % 100000) + 1);
		const char *st = statuses[(r >> 20) % 5];
		floe_vector_append_bytes(&v[2], st, strlen(st));
		int len = snprintf(tmp, sizeof(tmp), "customer%" PRIu64 "@example.com", (r >> 8) % 5000000);
		floe_vector_append_bytes(&v[3], tmp, (size_t)len);
		floe_vector_append_dec(&v[4], floe_dec128_from_i64((int64_t)(next() % 10000000)));
		floe_vector_append_f64(&v[5], (double)(next() % 1000000) / 100.0);
		if (r % 50 == 0)
			floe_vector_append_null(&v[6]);
		else
			floe_vector_append_i32(&v[6], (int32_t)(r >> 40) % 10 + 1);
		floe_vector_append_i64(&v[7], 1600000000000000LL + (int64_t)i * 6000000 + (int64_t)(r % 5000000));
		if (r % 10 == 3)
			floe_vector_append_null(&v[8]);
		else
			floe_vector_append_i32(&v[8], 18500 + (int32_t)(i / 20000) + (int32_t)(r >> 50) % 7);
		if (r % 10 < 3) {
			floe_vector_append_null(&v[9]);
		} else {
			const char *nt = notes[(r >> 30) % 8];
			floe_vector_append_bytes(&v[9], nt, strlen(nt));
		}
		floe_vector_append_bool(&v[10], (r >> 33) % 7 == 0);
	}
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: floe-parquet-bench OUT.parquet [ROWS] [zstd-level] [zstd|snappy|none]\n");
		return 2;
	}
	size_t rows = argc > 2 ? (size_t)strtoull(argv[2], NULL, 10) : 5000000;
	floe_parquet_writer_opts opts = FLOE_PARQUET_WRITER_OPTS_INIT;
	if (argc > 3)
		opts.zstd_level = (int)strtol(argv[3], NULL, 10);
	if (argc > 4)
		opts.codec = strcmp(argv[4], "snappy") == 0 ? FLOE_PARQUET_SNAPPY
			     : strcmp(argv[4], "none") == 0 ? FLOE_PARQUET_UNCOMPRESSED : FLOE_PARQUET_ZSTD;
	/* Experiments: FLOE_BENCH_PAGE_ROWS, FLOE_BENCH_PAGE_BYTES, FLOE_BENCH_DICT_BYTES. */
	const char *env;
	if ((env = getenv("FLOE_BENCH_PAGE_ROWS")))
		opts.page_rows = (size_t)strtoull(env, NULL, 10);
	if ((env = getenv("FLOE_BENCH_PAGE_BYTES")))
		opts.page_bytes = (size_t)strtoull(env, NULL, 10);
	if ((env = getenv("FLOE_BENCH_DICT_BYTES")))
		opts.dictionary_bytes = (size_t)strtoull(env, NULL, 10);
	floe_vector v[N_COLS];
	for (int c = 0; c < N_COLS; c++)
		floe_vector_init(&v[c], fields[c].type, 0);
	floe_parquet_writer *w = NULL;
	floe_parquet_file_stats st;
	floe_arena *arena = floe_arena_new();
	spent t = { 0, 0, 0, 0 };
	floe_iceberg_storage *storage = floe_iceberg_storage_local();
	const char *uri = floe_iceberg_path_to_uri(arena, argv[1]);
	/* A fresh file each run: storage creates, never replaces. */
	if (!uri || floe_iceberg_storage_remove(storage, uri) < 0 ||
	    floe_iceberg_parquet_create(&w, storage, uri, fields, N_COLS, &opts) < 0)
		goto fail;
	for (size_t first = 0; first < rows; first += BATCH) {
		size_t n = rows - first < BATCH ? rows - first : BATCH;
		fill(v, first, n);
		start(&t);
		if (floe_parquet_writer_write_batch(w, v, N_COLS) < 0) {
			floe_parquet_writer_abort(w);
			goto fail;
		}
		stop(&t);
	}
	start(&t);
	if (floe_parquet_writer_close(&st, w, arena) < 0)
		goto fail;
	stop(&t);
	printf("{\"rows\": %zu, \"seconds\": %.4f, \"cpu_seconds\": %.4f, \"bytes\": %" PRId64
	       ", \"row_groups\": %zu}\n",
	       rows, t.wall, t.cpu, st.file_size, st.n_split_offsets);
	for (int c = 0; c < N_COLS; c++)
		floe_vector_free(&v[c]);
	floe_arena_free(arena);
	return 0;
fail:
	floe_error_print(stderr);
	return 1;
}
