/*
 * test_parquet.c — floe's Parquet writer read back by floe's reader: every Iceberg type with
 * nulls and extremes, lists, pages and row groups, codecs and dictionaries, statistics and
 * Iceberg bounds (golden cases), writer errors, and a reader fed corrupted files.
 */
#include "harness.h"
#include "parquet_testkit.h"

#include "base/arena.h"
#include "base/error.h"
#include "base/fs.h"
#include "format/parquet.h"
#include "format/parquet_int.h"
#include "format/thrift_compact.h"

#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- helpers (path_of, tmp_path, dec, same_row, column_equals: parquet_testkit.h) ---- */

static i128 pow10_(int p)
{
	i128 v = 1;
	while (p-- > 0)
		v *= 10;
	return v;
}

typedef struct written {
	floe_arena *arena;
	floe_parquet_file_stats stats;
	floe_parquet_reader *reader;
} written;

/* Write `cols` in one batch (or split in two at `split` when nonzero) and open the result. */
static bool write_and_open(written *out, const char *name, const floe_parquet_field *fields,
			   size_t n, floe_vector *cols, const floe_parquet_writer_opts *opts)
{
	floe_parquet_writer *w = NULL;
	const char *path = tmp_path(name);
	memset(out, 0, sizeof(*out));
	out->arena = floe_arena_new();
	if (tk_parquet_create(&w, path, fields, n, opts) < 0 ||
	    floe_parquet_writer_write_batch(w, cols, n) < 0 ||
	    floe_parquet_writer_close(&out->stats, w, out->arena) < 0 ||
	    tk_parquet_open(&out->reader, path, NULL) < 0) {
		floe_error_print(stderr);
		return false;
	}
	return true;
}

static void written_free(written *w)
{
	floe_parquet_reader_free(w->reader);
	floe_arena_free(w->arena);
}

static floe_parquet_writer_opts quick_opts(floe_parquet_codec codec)
{
	floe_parquet_writer_opts o = FLOE_PARQUET_WRITER_OPTS_INIT;
	o.codec = codec;
	return o;
}

/* ---- every type ---- */

enum { N_TYPES = 17 };

/* Every type; `required`: no NULLs (the reader copies PLAIN pages of such columns at once). */
static void type_matrix(floe_parquet_field *f, floe_vector *v, size_t rows, bool required)
{
	static const struct { const char *name; floe_vec_type t; int p, s, len; } spec[N_TYPES] = {
		{ "b", FLOE_VEC_BOOLEAN, 0, 0, 0 },      { "i", FLOE_VEC_INT, 0, 0, 0 },
		{ "l", FLOE_VEC_LONG, 0, 0, 0 },         { "f", FLOE_VEC_FLOAT, 0, 0, 0 },
		{ "d", FLOE_VEC_DOUBLE, 0, 0, 0 },       { "dec1", FLOE_VEC_DECIMAL, 1, 0, 0 },
		{ "dec9", FLOE_VEC_DECIMAL, 9, 3, 0 },   { "dec18", FLOE_VEC_DECIMAL, 18, 2, 0 },
		{ "dec19", FLOE_VEC_DECIMAL, 19, 5, 0 }, { "dec38", FLOE_VEC_DECIMAL, 38, 0, 0 },
		{ "dt", FLOE_VEC_DATE, 0, 0, 0 },        { "tm", FLOE_VEC_TIME, 0, 0, 0 },
		{ "ts", FLOE_VEC_TIMESTAMP, 0, 0, 0 },   { "tz", FLOE_VEC_TIMESTAMPTZ, 0, 0, 0 },
		{ "s", FLOE_VEC_STRING, 0, 0, 0 },       { "u", FLOE_VEC_UUID, 0, 0, 0 },
		{ "fx", FLOE_VEC_FIXED, 0, 0, 3 },
	};
	for (int c = 0; c < N_TYPES; c++) {
		memset(&f[c], 0, sizeof(f[c]));
		f[c].name = spec[c].name;
		f[c].id = 100 + c;
		f[c].type = spec[c].t;
		f[c].precision = spec[c].p;
		f[c].scale = spec[c].s;
		f[c].length = spec[c].len;
		f[c].required = required;
		floe_vector_init(&v[c], spec[c].t, spec[c].len);
		for (size_t i = 0; i < rows; i++) {
			bool extreme_lo = i % 10 == 1, extreme_hi = i % 10 == 2;
			if (i % 10 == 0 && !required) {
				floe_vector_append_null(&v[c]);
				continue;
			}
			int64_t x = (int64_t)(i * 2654435761u % 100000) - 50000;
			uint8_t bytes[16];
			for (int k = 0; k < 16; k++)
				bytes[k] = (uint8_t)(extreme_lo ? 0 : extreme_hi ? 0xFF : (x >> (k % 8)) ^ k);
			switch (spec[c].t) {
			case FLOE_VEC_BOOLEAN: floe_vector_append_bool(&v[c], x & 1); break;
			case FLOE_VEC_INT:
				floe_vector_append_i32(&v[c], extreme_lo ? INT32_MIN : extreme_hi ? INT32_MAX : (int32_t)x);
				break;
			case FLOE_VEC_LONG:
				floe_vector_append_i64(&v[c], extreme_lo ? INT64_MIN : extreme_hi ? INT64_MAX : x * 1000003);
				break;
			case FLOE_VEC_FLOAT:
				floe_vector_append_f32(&v[c], extreme_lo ? -INFINITY : extreme_hi ? INFINITY
							   : i % 10 == 3 ? NAN : i % 10 == 4 ? -0.0f : (float)x / 8);
				break;
			case FLOE_VEC_DOUBLE:
				floe_vector_append_f64(&v[c], extreme_lo ? -INFINITY : extreme_hi ? INFINITY
							   : i % 10 == 3 ? NAN : i % 10 == 4 ? -0.0 : (double)x / 3);
				break;
			case FLOE_VEC_DECIMAL: {
				i128 lim = pow10_(spec[c].p) - 1;
				floe_vector_append_dec(&v[c], dec(extreme_lo ? -lim : extreme_hi ? lim : (i128)x % (lim + 1)));
				break;
			}
			case FLOE_VEC_DATE:
				floe_vector_append_i32(&v[c], extreme_lo ? -2440588 : extreme_hi ? 2147483494 : (int32_t)x);
				break;
			case FLOE_VEC_TIME:
				floe_vector_append_i64(&v[c], extreme_lo ? 0 : extreme_hi ? 86399999999LL : (x + 50000) * 1000);
				break;
			case FLOE_VEC_TIMESTAMP:
			case FLOE_VEC_TIMESTAMPTZ:
				floe_vector_append_i64(&v[c], extreme_lo ? -211813488000000000LL
							   : extreme_hi ? 9223371331199999999LL : x * 86400000000LL);
				break;
			case FLOE_VEC_STRING: {
				const char *s = extreme_lo ? "" : extreme_hi ? "ÿ — ünïcödé ✓ 😀 beyond sixteen"
							  : i % 10 == 3 ? "a" : "mid";
				floe_vector_append_bytes(&v[c], s, strlen(s));
				break;
			}
			default: floe_vector_append_fixed(&v[c], bytes); break;
			}
		}
	}
}

static void check_matrix(floe_parquet_codec codec, size_t dict_bytes, size_t page_rows, bool required)
{
	floe_parquet_field f[N_TYPES];
	floe_vector v[N_TYPES];
	size_t rows = 5000;
	type_matrix(f, v, rows, required);
	floe_parquet_writer_opts o = quick_opts(codec);
	o.dictionary_bytes = dict_bytes;
	o.page_rows = page_rows;
	o.row_group_bytes = 40000;
	written wr;
	FLOE_CHECK(write_and_open(&wr, "types.parquet", f, N_TYPES, v, &o));
	const floe_parquet_meta *m = floe_parquet_reader_meta(wr.reader);
	FLOE_CHECK(m->num_rows == (int64_t)rows && m->n_leaves == N_TYPES && m->n_row_groups > 1);
	for (size_t c = 0; c < N_TYPES; c++) {
		FLOE_CHECK(column_equals(wr.reader, c, &v[c]));
		FLOE_CHECK(m->leaves[c].field_id == 100 + (int)c && m->leaves[c].vtype == f[c].type);
		FLOE_CHECK(m->leaves[c].max_def == !required && m->leaves[c].max_rep == 0);
		FLOE_CHECK(m->column_orders[c] == 1);
	}
	FLOE_CHECK(wr.stats.record_count == (int64_t)rows);
	FLOE_CHECK(wr.stats.n_split_offsets == m->n_row_groups && wr.stats.split_offsets[0] == 4);
	written_free(&wr);
	for (size_t c = 0; c < N_TYPES; c++)
		floe_vector_free(&v[c]);
}

static void check_type_matrix(floe_parquet_codec codec, size_t dict_bytes, size_t page_rows)
{
	check_matrix(codec, dict_bytes, page_rows, false);
}

FLOE_TEST(parquet_round_trip_every_type_required_plain)
{
	check_matrix(FLOE_PARQUET_UNCOMPRESSED, 0, 37, true);
	check_matrix(FLOE_PARQUET_ZSTD, 0, 1000, true);
}

FLOE_TEST(parquet_round_trip_every_type_zstd)
{
	check_type_matrix(FLOE_PARQUET_ZSTD, (size_t)2 << 20, 20000);
}

FLOE_TEST(parquet_round_trip_every_type_snappy_small_pages)
{
	check_type_matrix(FLOE_PARQUET_SNAPPY, (size_t)2 << 20, 37);
}

FLOE_TEST(parquet_round_trip_every_type_plain_uncompressed)
{
	check_type_matrix(FLOE_PARQUET_UNCOMPRESSED, 0, 1000);
}

FLOE_TEST(parquet_round_trip_dictionary_overflow)
{
	check_type_matrix(FLOE_PARQUET_ZSTD, 300, 250);
}

/* ---- lists ---- */

FLOE_TEST(parquet_round_trip_lists)
{
	floe_parquet_field el[3] = {
		{ .name = "element", .id = 2, .type = FLOE_VEC_STRING },
		{ .name = "element", .id = 4, .type = FLOE_VEC_LONG, .required = true },
		{ .name = "element", .id = 6, .type = FLOE_VEC_DECIMAL, .precision = 38, .scale = 2 },
	};
	floe_parquet_field f[3] = {
		{ .name = "tags", .id = 1, .type = FLOE_VEC_LIST, .element = &el[0] },
		{ .name = "nums", .id = 3, .type = FLOE_VEC_LIST, .required = true, .element = &el[1] },
		{ .name = "amounts", .id = 5, .type = FLOE_VEC_LIST, .element = &el[2] },
	};
	floe_vector v[3];
	floe_vector_init_list(&v[0], FLOE_VEC_STRING, 0);
	floe_vector_init_list(&v[1], FLOE_VEC_LONG, 0);
	floe_vector_init_list(&v[2], FLOE_VEC_DECIMAL, 0);
	for (size_t i = 0; i < 3000; i++) {
		size_t shape = i % 7, n = shape == 1 ? 0 : shape == 6 ? 300 : i % 4 + 1;
		if (shape == 0) {
			floe_vector_append_null(&v[0]);
			floe_vector_append_null(&v[2]);
		} else {
			for (size_t j = 0; j < n; j++) {
				if (j == 1 && shape == 3) {
					floe_vector_append_null(v[0].child);
					floe_vector_append_null(v[2].child);
				} else {
					floe_vector_append_bytes(v[0].child, j % 2 ? "é" : "", j % 2 ? 2 : 0);
					floe_vector_append_dec(v[2].child, dec((i128)j * -1000000007));
				}
			}
			floe_vector_append_list(&v[0]);
			floe_vector_append_list(&v[2]);
		}
		for (size_t j = 0; j < n; j++)
			floe_vector_append_i64(v[1].child, (int64_t)(i * j));
		floe_vector_append_list(&v[1]);
	}
	floe_parquet_writer_opts o = quick_opts(FLOE_PARQUET_ZSTD);
	o.page_rows = 100;
	o.page_bytes = 4096;
	o.row_group_bytes = 20000;
	written wr;
	FLOE_CHECK(write_and_open(&wr, "lists.parquet", f, 3, v, &o));
	const floe_parquet_meta *m = floe_parquet_reader_meta(wr.reader);
	FLOE_CHECK(m->n_leaves == 3 && m->n_schema == 10);
	FLOE_CHECK(m->leaves[0].in_list && m->leaves[0].max_def == 3 && m->leaves[0].max_rep == 1);
	FLOE_CHECK(m->leaves[1].in_list && m->leaves[1].max_def == 1);
	FLOE_CHECK(m->leaves[0].field_id == 2 && m->leaves[0].top_field_id == 1);
	FLOE_CHECK(strcmp(m->leaves[0].path, "tags.list.element") == 0);
	for (size_t c = 0; c < 3; c++)
		FLOE_CHECK(column_equals(wr.reader, c, &v[c]));
	/* No bounds inside lists; counts are level entries. */
	const floe_parquet_column_stats *cs = &wr.stats.columns[0];
	FLOE_CHECK(cs->field_id == 2 && !cs->has_lower && !cs->has_upper);
	size_t entries = 0, nulls = 0;
	for (size_t i = 0; i < v[0].len; i++) {
		int64_t n = v[0].offsets[i + 1] - v[0].offsets[i];
		entries += n ? (size_t)n : 1;
		nulls += n ? 0 : 1;
	}
	nulls += floe_vector_null_count(v[0].child);
	FLOE_CHECK(cs->value_count == (int64_t)entries && cs->null_count == (int64_t)nulls);
	written_free(&wr);
	for (size_t c = 0; c < 3; c++)
		floe_vector_free(&v[c]);
}

/* ---- large and odd values ---- */

FLOE_TEST(parquet_round_trip_a_one_mib_string)
{
	floe_parquet_field f = { .name = "s", .id = 1, .type = FLOE_VEC_STRING };
	floe_vector v;
	floe_vector_init(&v, FLOE_VEC_STRING, 0);
	size_t big = (size_t)1 << 20;
	char *s = floe_xmalloc(big);
	for (size_t i = 0; i < big; i++)
		s[i] = (char)('A' + i % 26);
	floe_vector_append_bytes(&v, "", 0);
	floe_vector_append_bytes(&v, s, big);
	floe_vector_append_null(&v);
	floe_vector_append_bytes(&v, "Ω", 2);
	free(s);
	floe_parquet_writer_opts o = quick_opts(FLOE_PARQUET_ZSTD);
	written wr;
	FLOE_CHECK(write_and_open(&wr, "big.parquet", &f, 1, &v, &o));
	FLOE_CHECK(column_equals(wr.reader, 0, &v));
	/* Parquet statistics are cut to 64 bytes; Iceberg bounds to 16 code points. */
	const floe_parquet_statistics *st = &floe_parquet_reader_meta(wr.reader)->row_groups[0].columns[0].statistics;
	FLOE_CHECK(st->has_min && st->min_len == 0 && st->has_max && st->max_len == 2);
	const floe_parquet_column_stats *cs = &wr.stats.columns[0];
	FLOE_CHECK(cs->has_lower && cs->lower_len == 0 && cs->has_upper && cs->upper_len == 2);
	written_free(&wr);
	floe_vector_free(&v);
}

/* ---- Iceberg bounds: golden cases ---- */

static bool hex_is(const uint8_t *p, size_t n, const char *hex)
{
	char buf[200] = "";
	for (size_t i = 0; i < n && 2 * i + 2 < sizeof(buf); i++)
		snprintf(buf + 2 * i, 3, "%02x", p[i]);
	if (strcmp(buf, hex) != 0) {
		fprintf(stderr, "    got %s, want %s\n", buf, hex);
		return false;
	}
	return true;
}

/* Write one column and return its stats (lower, upper) as hex checks. */
static bool bounds_are(floe_parquet_field *f, floe_vector *v, const char *lower, const char *upper)
{
	written wr;
	floe_parquet_writer_opts o = quick_opts(FLOE_PARQUET_UNCOMPRESSED);
	bool ok = write_and_open(&wr, "bounds.parquet", f, 1, v, &o);
	if (ok) {
		const floe_parquet_column_stats *cs = &wr.stats.columns[0];
		ok = (lower ? cs->has_lower && hex_is(cs->lower, cs->lower_len, lower) : !cs->has_lower) &&
		     (upper ? cs->has_upper && hex_is(cs->upper, cs->upper_len, upper) : !cs->has_upper);
		written_free(&wr);
	}
	floe_vector_free(v);
	return ok;
}

FLOE_TEST(iceberg_bounds_numbers)
{
	floe_parquet_field f = { .name = "x", .id = 1, .type = FLOE_VEC_INT };
	floe_vector v;
	floe_vector_init(&v, FLOE_VEC_INT, 0);
	floe_vector_append_i32(&v, -2);
	floe_vector_append_i32(&v, 258);
	floe_vector_append_null(&v);
	FLOE_CHECK(bounds_are(&f, &v, "feffffff", "02010000"));

	f.type = FLOE_VEC_LONG;
	floe_vector_init(&v, FLOE_VEC_LONG, 0);
	floe_vector_append_i64(&v, 1);
	FLOE_CHECK(bounds_are(&f, &v, "0100000000000000", "0100000000000000"));

	f.type = FLOE_VEC_BOOLEAN;
	floe_vector_init(&v, FLOE_VEC_BOOLEAN, 0);
	floe_vector_append_bool(&v, false);
	floe_vector_append_bool(&v, true);
	FLOE_CHECK(bounds_are(&f, &v, "00", "01"));

	/* -0.0 orders before +0.0; NaN is never a bound. */
	f.type = FLOE_VEC_FLOAT;
	floe_vector_init(&v, FLOE_VEC_FLOAT, 0);
	floe_vector_append_f32(&v, 0.0f);
	floe_vector_append_f32(&v, NAN);
	floe_vector_append_f32(&v, -0.0f);
	FLOE_CHECK(bounds_are(&f, &v, "00000080", "00000000"));
	floe_vector_init(&v, FLOE_VEC_FLOAT, 0);
	floe_vector_append_f32(&v, NAN);
	FLOE_CHECK(bounds_are(&f, &v, NULL, NULL));

	f.type = FLOE_VEC_DOUBLE;
	floe_vector_init(&v, FLOE_VEC_DOUBLE, 0);
	floe_vector_append_f64(&v, 1.0);
	floe_vector_append_f64(&v, -INFINITY);
	FLOE_CHECK(bounds_are(&f, &v, "000000000000f0ff", "000000000000f03f"));

	f.type = FLOE_VEC_DATE;
	floe_vector_init(&v, FLOE_VEC_DATE, 0);
	floe_vector_append_i32(&v, 19000);
	FLOE_CHECK(bounds_are(&f, &v, "384a0000", "384a0000"));

	f.type = FLOE_VEC_TIMESTAMPTZ;
	floe_vector_init(&v, FLOE_VEC_TIMESTAMPTZ, 0);
	floe_vector_append_i64(&v, -1);
	FLOE_CHECK(bounds_are(&f, &v, "ffffffffffffffff", "ffffffffffffffff"));
}

FLOE_TEST(iceberg_bounds_decimals_are_minimal_big_endian)
{
	floe_parquet_field f = { .name = "x", .id = 1, .type = FLOE_VEC_DECIMAL, .precision = 9, .scale = 2 };
	floe_vector v;
	floe_vector_init(&v, FLOE_VEC_DECIMAL, 0);
	floe_vector_append_dec(&v, dec(-129));
	floe_vector_append_dec(&v, dec(128));
	FLOE_CHECK(bounds_are(&f, &v, "ff7f", "0080"));

	floe_vector_init(&v, FLOE_VEC_DECIMAL, 0);
	floe_vector_append_dec(&v, dec(-128));
	floe_vector_append_dec(&v, dec(127));
	FLOE_CHECK(bounds_are(&f, &v, "80", "7f"));

	floe_vector_init(&v, FLOE_VEC_DECIMAL, 0);
	floe_vector_append_dec(&v, dec(0));
	floe_vector_append_dec(&v, dec(-1));
	FLOE_CHECK(bounds_are(&f, &v, "ff", "00"));

	f.precision = 38;
	floe_vector_init(&v, FLOE_VEC_DECIMAL, 0);
	floe_vector_append_dec(&v, dec(-(pow10_(38) - 1)));
	floe_vector_append_dec(&v, dec(pow10_(38) - 1));
	FLOE_CHECK(bounds_are(&f, &v, "b4c4b357a5793b85f675ddc000000001", "4b3b4ca85a86c47a098a223fffffffff"));

	f.precision = 19;
	floe_vector_init(&v, FLOE_VEC_DECIMAL, 0);
	floe_vector_append_dec(&v, dec((i128)INT64_MIN));
	floe_vector_append_dec(&v, dec((i128)INT64_MAX + 1));
	FLOE_CHECK(bounds_are(&f, &v, "8000000000000000", "008000000000000000"));
}

FLOE_TEST(iceberg_bounds_strings_truncate_by_code_point)
{
	floe_parquet_field f = { .name = "x", .id = 1, .type = FLOE_VEC_STRING };
	floe_vector v;
	floe_vector_init(&v, FLOE_VEC_STRING, 0);
	floe_vector_append_bytes(&v, "abcdefghijklmnopq", 17);
	FLOE_CHECK(bounds_are(&f, &v, "6162636465666768696a6b6c6d6e6f70", "6162636465666768696a6b6c6d6e6f71"));

	/* 17 two-byte code points: cut after 16 (32 bytes), increment U+00E9 to U+00EA. */
	floe_vector_init(&v, FLOE_VEC_STRING, 0);
	floe_vector_append_bytes(&v, "ééééééééééééééééé", 34);
	FLOE_CHECK(bounds_are(&f, &v, "c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9",
			      "c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3a9c3aa"));

	/* The 16th code point is U+10FFFF: it cannot grow, so the 15th is incremented. */
	floe_vector_init(&v, FLOE_VEC_STRING, 0);
	floe_vector_append_bytes(&v, "aaaaaaaaaaaaaaa\xf4\x8f\xbf\xbfz", 20);
	FLOE_CHECK(bounds_are(&f, &v, "616161616161616161616161616161f48fbfbf", "6161616161616161616161616161"
										     "62"));

	/* U+D7FF increments past the surrogates to U+E000. */
	floe_vector_init(&v, FLOE_VEC_STRING, 0);
	floe_vector_append_bytes(&v, "aaaaaaaaaaaaaaa\xed\x9f\xbfzz", 20);
	FLOE_CHECK(bounds_are(&f, &v, "616161616161616161616161616161ed9fbf",
			      "616161616161616161616161616161ee8080"));

	/* Short strings are their own bounds. */
	floe_vector_init(&v, FLOE_VEC_STRING, 0);
	floe_vector_append_bytes(&v, "b", 1);
	floe_vector_append_bytes(&v, "a", 1);
	FLOE_CHECK(bounds_are(&f, &v, "61", "62"));
}

FLOE_TEST(iceberg_bounds_binary_fixed_uuid)
{
	uint8_t ff[20];
	memset(ff, 0xFF, sizeof(ff));
	floe_parquet_field f = { .name = "x", .id = 1, .type = FLOE_VEC_BINARY };
	floe_vector v;
	floe_vector_init(&v, FLOE_VEC_BINARY, 0);
	floe_vector_append_bytes(&v, ff, 20);
	FLOE_CHECK(bounds_are(&f, &v, "ffffffffffffffffffffffffffffffff", NULL));

	uint8_t mixed[18] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0xFF, 0xFF, 0xFF, 0 };
	floe_vector_init(&v, FLOE_VEC_BINARY, 0);
	floe_vector_append_bytes(&v, mixed, 18);
	FLOE_CHECK(bounds_are(&f, &v, "0102030405060708090a0b0c0d0effff", "0102030405060708090a0b0c0d0f"));

	f.type = FLOE_VEC_FIXED;
	f.length = 17;
	floe_vector_init(&v, FLOE_VEC_FIXED, 17);
	floe_vector_append_fixed(&v, mixed);
	FLOE_CHECK(bounds_are(&f, &v, "0102030405060708090a0b0c0d0effff", "0102030405060708090a0b0c0d0f"));

	/* UUIDs are 16 bytes as stored (big-endian). */
	uint8_t u[16] = { 0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3, 0xa4, 0x56, 0x42, 0x66, 0x14, 0x17, 0x40, 0x00 };
	f.type = FLOE_VEC_UUID;
	f.length = 0;
	floe_vector_init(&v, FLOE_VEC_UUID, 0);
	floe_vector_append_fixed(&v, u);
	FLOE_CHECK(bounds_are(&f, &v, "123e4567e89b12d3a456426614174000", "123e4567e89b12d3a456426614174000"));
}

FLOE_TEST(truncation_functions)
{
	uint8_t out[80];
	size_t n = 0;
	FLOE_CHECK(floe_parquet_truncate_lower(out, (const uint8_t *)"abc", 3, true, 2) == 2);
	FLOE_CHECK(floe_parquet_truncate_upper(out, &n, (const uint8_t *)"abc", 3, true, 2) && n == 2 &&
		   memcmp(out, "ac", 2) == 0);
	FLOE_CHECK(floe_parquet_truncate_upper(out, &n, (const uint8_t *)"ab", 2, true, 2) && n == 2 &&
		   memcmp(out, "ab", 2) == 0);
	/* U+007F grows into two bytes when incremented. */
	FLOE_CHECK(floe_parquet_truncate_upper(out, &n, (const uint8_t *)"\x7fzz", 3, true, 1) && n == 2 &&
		   memcmp(out, "\xc2\x80", 2) == 0);
	const uint8_t all_max[] = { 0xF4, 0x8F, 0xBF, 0xBF, 0xF4, 0x8F, 0xBF, 0xBF, 'x' };
	FLOE_CHECK(!floe_parquet_truncate_upper(out, &n, all_max, sizeof(all_max), true, 2));
	/* Invalid UTF-8 (a run of continuation bytes) stays bounded by 4 bytes per code point. */
	uint8_t junk[200];
	memset(junk, 0x80, sizeof(junk));
	junk[0] = 'a';
	FLOE_CHECK(floe_parquet_truncate_lower(out, junk, sizeof(junk), true, 16) <= 64);
	FLOE_CHECK(pq_decimal_bytes(9) == 4 && pq_decimal_bytes(18) == 8 && pq_decimal_bytes(19) == 9 &&
		   pq_decimal_bytes(38) == 16 && pq_decimal_bytes(39) < 0);
	/* Each decimal width holds 10^p - 1 and the next smaller one does not. */
	for (int p = 1; p <= 38; p++) {
		i128 lim = pow10_(p) - 1;
		int b = pq_decimal_bytes(p);
		i128 top = b == 16 ? (i128)(((unsigned __int128)1 << 127) - 1) : ((i128)1 << (8 * b - 1)) - 1;
		FLOE_CHECK(lim <= top);
		FLOE_CHECK(b == 1 || lim > ((i128)1 << (8 * (b - 1) - 1)) - 1);
	}
}

/* ---- the writer's statistics agree with the footer's ---- */

FLOE_TEST(writer_stats_match_footer_stats)
{
	floe_parquet_field f[N_TYPES];
	floe_vector v[N_TYPES];
	type_matrix(f, v, 3000, false);
	floe_parquet_writer_opts o = quick_opts(FLOE_PARQUET_ZSTD);
	o.row_group_bytes = 30000;
	written wr;
	FLOE_CHECK(write_and_open(&wr, "stats.parquet", f, N_TYPES, v, &o));
	floe_parquet_file_stats fs;
	FLOE_CHECK(floe_parquet_reader_file_stats(&fs, wr.reader, wr.arena) == 0);
	FLOE_CHECK(fs.file_size == wr.stats.file_size && fs.record_count == wr.stats.record_count);
	FLOE_CHECK(fs.n_split_offsets == wr.stats.n_split_offsets);
	for (size_t g = 0; g < fs.n_split_offsets; g++)
		FLOE_CHECK(fs.split_offsets[g] == wr.stats.split_offsets[g]);
	for (size_t c = 0; c < N_TYPES; c++) {
		const floe_parquet_column_stats *a = &wr.stats.columns[c], *b = &fs.columns[c];
		FLOE_CHECK(a->field_id == b->field_id && a->column_size == b->column_size);
		FLOE_CHECK(a->value_count == b->value_count && a->null_count == b->null_count);
		FLOE_CHECK(a->has_nan_count == b->has_nan_count && a->nan_count == b->nan_count);
		FLOE_CHECK(a->has_lower == b->has_lower && a->has_upper == b->has_upper);
		if (a->has_lower && f[c].type != FLOE_VEC_FLOAT && f[c].type != FLOE_VEC_DOUBLE)
			FLOE_CHECK(a->lower_len == b->lower_len && memcmp(a->lower, b->lower, a->lower_len) == 0);
		if (a->has_upper)
			FLOE_CHECK(a->upper_len == b->upper_len && memcmp(a->upper, b->upper, a->upper_len) == 0);
	}
	written_free(&wr);
	for (size_t c = 0; c < N_TYPES; c++)
		floe_vector_free(&v[c]);
}

/* ---- pages: the row limit holds (page headers parsed independently) ---- */

static size_t count_pages(const char *path, const floe_parquet_column_chunk *cc, size_t *max_values)
{
	int fd = open(path, O_RDONLY);
	int64_t start = cc->has_dictionary_page_offset ? cc->dictionary_page_offset : cc->data_page_offset;
	uint8_t *buf = floe_xmalloc((size_t)cc->total_compressed_size);
	size_t pages = 0;
	*max_values = 0;
	if (pread(fd, buf, (size_t)cc->total_compressed_size, start) != cc->total_compressed_size)
		goto done;
	for (size_t pos = 0; pos < (size_t)cc->total_compressed_size;) {
		floe_thrift_reader r;
		floe_thrift_reader_init(&r, buf + pos, (size_t)cc->total_compressed_size - pos);
		int16_t id;
		int type;
		int32_t ptype = -1, comp = 0, nv = 0;
		floe_thrift_read_struct_begin(&r);
		while (floe_thrift_read_field(&r, &id, &type) == 0 && type != FLOE_THRIFT_STOP) {
			if (id == 1)
				floe_thrift_read_i32(&r, &ptype);
			else if (id == 3)
				floe_thrift_read_i32(&r, &comp);
			else if (id == 5 && type == FLOE_THRIFT_STRUCT) {
				floe_thrift_read_struct_begin(&r);
				while (floe_thrift_read_field(&r, &id, &type) == 0 && type != FLOE_THRIFT_STOP) {
					if (id == 1)
						floe_thrift_read_i32(&r, &nv);
					else
						floe_thrift_skip(&r, type);
				}
			} else
				floe_thrift_skip(&r, type);
		}
		pos += floe_thrift_reader_offset(&r) + (size_t)comp;
		if (ptype == 0) {
			pages++;
			if ((size_t)nv > *max_values)
				*max_values = (size_t)nv;
		}
	}
done:
	free(buf);
	close(fd);
	return pages;
}

FLOE_TEST(pages_respect_the_row_limit)
{
	floe_parquet_field f = { .name = "n", .id = 1, .type = FLOE_VEC_LONG, .required = true };
	floe_vector v;
	floe_vector_init(&v, FLOE_VEC_LONG, 0);
	for (int64_t i = 0; i < 10000; i++)
		floe_vector_append_i64(&v, i);
	floe_parquet_writer_opts o = quick_opts(FLOE_PARQUET_ZSTD);
	o.page_rows = 300;
	written wr;
	FLOE_CHECK(write_and_open(&wr, "pages.parquet", &f, 1, &v, &o));
	size_t max_values = 0;
	const floe_parquet_column_chunk *cc = &floe_parquet_reader_meta(wr.reader)->row_groups[0].columns[0];
	size_t pages = count_pages(path_of("pages.parquet"), cc, &max_values);
	FLOE_CHECK(pages == (10000 + 299) / 300 && max_values == 300);
	written_free(&wr);
	floe_vector_free(&v);
}

/* ---- errors ---- */

FLOE_TEST(writer_refuses_bad_input)
{
	floe_parquet_writer *w = NULL;
	floe_parquet_writer_opts o = quick_opts(FLOE_PARQUET_ZSTD);
	floe_parquet_field f = { .name = "x", .id = 1, .type = FLOE_VEC_INT, .required = true };
	floe_vector v;
	floe_vector_init(&v, FLOE_VEC_INT, 0);
	floe_vector_append_null(&v);
	FLOE_CHECK(tk_parquet_create(&w, tmp_path("bad.parquet"), &f, 1, &o) == 0);
	FLOE_CHECK(floe_parquet_writer_write_batch(w, &v, 1) < 0);
	FLOE_CHECK(floe_error_last() && floe_error_last()->cls == FLOE_ERR_USAGE &&
		   strstr(floe_error_last()->message, "required"));
	floe_parquet_writer_abort(w);
	FLOE_CHECK(access(tmp_path("bad.parquet"), F_OK) != 0); /* removed */
	floe_vector_free(&v);

	/* A decimal beyond its precision. */
	floe_parquet_field d = { .name = "d", .id = 1, .type = FLOE_VEC_DECIMAL, .precision = 3 };
	floe_vector_init(&v, FLOE_VEC_DECIMAL, 0);
	floe_vector_append_dec(&v, dec(1000));
	FLOE_CHECK(tk_parquet_create(&w, tmp_path("bad.parquet"), &d, 1, &o) == 0);
	FLOE_CHECK(floe_parquet_writer_write_batch(w, &v, 1) < 0);
	FLOE_CHECK(strstr(floe_error_last()->message, "out of range"));
	floe_parquet_writer_abort(w);
	floe_vector_free(&v);

	/* Wrong vector type, wrong lengths. */
	floe_parquet_field two[2] = { { .name = "a", .id = 1, .type = FLOE_VEC_INT },
				      { .name = "b", .id = 2, .type = FLOE_VEC_LONG } };
	floe_vector vv[2];
	floe_vector_init(&vv[0], FLOE_VEC_INT, 0);
	floe_vector_init(&vv[1], FLOE_VEC_INT, 0);
	floe_vector_append_i32(&vv[0], 1);
	floe_vector_append_i32(&vv[1], 1);
	FLOE_CHECK(tk_parquet_create(&w, tmp_path("bad.parquet"), two, 2, &o) == 0);
	FLOE_CHECK(floe_parquet_writer_write_batch(w, vv, 2) < 0);
	FLOE_CHECK(floe_parquet_writer_write_batch(w, vv, 1) < 0);
	floe_parquet_writer_abort(w);
	floe_vector_free(&vv[0]);
	floe_vector_free(&vv[1]);

	/* Bad schemas. */
	floe_parquet_field bad = { .name = "d", .id = 1, .type = FLOE_VEC_DECIMAL, .precision = 39 };
	FLOE_CHECK(tk_parquet_create(&w, tmp_path("bad.parquet"), &bad, 1, &o) < 0 && !w);
	floe_parquet_field dup[2] = { { .name = "a", .id = 1, .type = FLOE_VEC_INT },
				      { .name = "a", .id = 2, .type = FLOE_VEC_INT } };
	FLOE_CHECK(tk_parquet_create(&w, tmp_path("bad.parquet"), dup, 2, &o) < 0);
	floe_parquet_field nested_el = { .name = "element", .id = 2, .type = FLOE_VEC_LIST };
	floe_parquet_field nested = { .name = "l", .id = 1, .type = FLOE_VEC_LIST, .element = &nested_el };
	FLOE_CHECK(tk_parquet_create(&w, tmp_path("bad.parquet"), &nested, 1, &o) < 0);
	o.zstd_level = 99;
	FLOE_CHECK(tk_parquet_create(&w, tmp_path("bad.parquet"), &f, 1, &o) < 0);

	/* An existing file is not replaced. */
	o = quick_opts(FLOE_PARQUET_ZSTD);
	const char *path = tmp_path("exists.parquet");
	int fd = open(path, O_CREAT | O_WRONLY, 0644);
	close(fd);
	FLOE_CHECK(tk_parquet_create(&w, path, &f, 1, &o) < 0);
	FLOE_CHECK(floe_error_last()->cls == FLOE_ERR_EXISTS && !w);
}

FLOE_TEST(empty_file_has_no_row_groups)
{
	floe_parquet_field f = { .name = "x", .id = 7, .type = FLOE_VEC_STRING };
	floe_vector v;
	floe_vector_init(&v, FLOE_VEC_STRING, 0);
	floe_parquet_writer_opts o = quick_opts(FLOE_PARQUET_ZSTD);
	written wr;
	FLOE_CHECK(write_and_open(&wr, "empty.parquet", &f, 1, &v, &o));
	const floe_parquet_meta *m = floe_parquet_reader_meta(wr.reader);
	FLOE_CHECK(m->num_rows == 0 && m->n_row_groups == 0 && wr.stats.n_split_offsets == 0);
	FLOE_CHECK(wr.stats.columns[0].value_count == 0 && !wr.stats.columns[0].has_lower);
	written_free(&wr);
	floe_vector_free(&v);
}

/* ---- the reader on damaged files ---- */

FLOE_TEST(reader_survives_every_corrupted_byte)
{
	floe_parquet_field el = { .name = "element", .id = 3, .type = FLOE_VEC_INT };
	floe_parquet_field f[2] = { { .name = "s", .id = 1, .type = FLOE_VEC_STRING },
				    { .name = "l", .id = 2, .type = FLOE_VEC_LIST, .element = &el } };
	floe_vector v[2];
	floe_vector_init(&v[0], FLOE_VEC_STRING, 0);
	floe_vector_init_list(&v[1], FLOE_VEC_INT, 0);
	for (int i = 0; i < 40; i++) {
		floe_vector_append_bytes(&v[0], "abc", (size_t)(i % 4));
		for (int j = 0; j < i % 3; j++)
			floe_vector_append_i32(v[1].child, i * j);
		floe_vector_append_list(&v[1]);
	}
	floe_parquet_writer_opts o = quick_opts(FLOE_PARQUET_SNAPPY);
	o.page_rows = 10;
	written wr;
	FLOE_CHECK(write_and_open(&wr, "corrupt.parquet", f, 2, v, &o));
	written_free(&wr);
	floe_buf file = FLOE_BUF_INIT;
	FLOE_CHECK(floe_fs_read_file(&file, path_of("corrupt.parquet")) == 0);
	uint8_t *copy = floe_xmalloc(file.len);
	/* Past the page CRCs, so that damaged pages reach the decoder (the next test checks the CRCs). */
	floe_parquet_reader_opts ro = { .max_footer_bytes = 1 << 16, .max_page_bytes = 1 << 16, .max_values = 1 << 12, .skip_page_crc = true };
	size_t opened = 0;
	for (size_t i = 0; i < file.len; i++) {
		static const uint8_t masks[] = { 0x01, 0x80, 0xFF };
		for (size_t k = 0; k < sizeof(masks); k++) {
			floe_parquet_reader *r = NULL;
			memcpy(copy, file.ptr, file.len);
			copy[i] ^= masks[k];
			if (floe_parquet_reader_open_mem(&r, copy, file.len, &ro) < 0)
				continue;
			opened++;
			const floe_parquet_meta *m = floe_parquet_reader_meta(r);
			for (size_t g = 0; g < m->n_row_groups; g++) {
				for (size_t c = 0; c < m->n_leaves; c++) {
					floe_vector out;
					if (floe_parquet_reader_read_column(&out, r, g, c) == 0)
						floe_vector_free(&out);
				}
			}
			floe_arena *a = floe_arena_new();
			floe_parquet_file_stats st;
			FLOE_CHECK(floe_parquet_reader_file_stats(&st, r, a) == 0);
			floe_arena_free(a);
			floe_parquet_reader_free(r);
		}
	}
	FLOE_CHECK(opened > 0); /* damage inside pages leaves the footer readable */
	free(copy);
	floe_vector_free(&v[0]);
	floe_vector_free(&v[1]);
	floe_buf_free(&file);
}

/* One flipped bit anywhere in the pages: the read fails (the page CRC) or returns the same values. */
static void flip_every_bit_of_the_pages(floe_parquet_codec codec)
{
	floe_parquet_field f[2] = { { .name = "s", .id = 1, .type = FLOE_VEC_STRING },
				    { .name = "n", .id = 2, .type = FLOE_VEC_LONG } };
	floe_vector v[2];
	floe_vector_init(&v[0], FLOE_VEC_STRING, 0);
	floe_vector_init(&v[1], FLOE_VEC_LONG, 0);
	for (int i = 0; i < 60; i++) {
		floe_vector_append_bytes(&v[0], "xyzzy", (size_t)(i % 6));
		floe_vector_append_i64(&v[1], (int64_t)i * 7919);
	}
	floe_parquet_writer_opts o = quick_opts(codec);
	o.page_rows = 20;
	written wr;
	FLOE_CHECK(write_and_open(&wr, "flipped.parquet", f, 2, v, &o));
	size_t pages_end = floe_parquet_reader_meta(wr.reader)->footer_len;
	written_free(&wr);
	floe_buf file = FLOE_BUF_INIT;
	FLOE_CHECK(floe_fs_read_file(&file, path_of("flipped.parquet")) == 0);
	pages_end = file.len - 8 - pages_end;
	uint8_t *copy = floe_xmalloc(file.len);
	size_t caught = 0, flips = 0;
	for (size_t i = 4; i < pages_end; i++) {
		for (int bit = 0; bit < 8; bit++, flips++) {
			floe_parquet_reader *r = NULL;
			bool failed = false;
			memcpy(copy, file.ptr, file.len);
			copy[i] ^= (uint8_t)(1u << bit);
			FLOE_CHECK(floe_parquet_reader_open_mem(&r, copy, file.len, NULL) == 0);
			for (size_t c = 0; c < 2; c++) {
				floe_vector out;
				if (floe_parquet_reader_read_column(&out, r, 0, c) < 0) {
					failed = true;
					continue;
				}
				floe_vector_free(&out);
				FLOE_CHECK(column_equals(r, c, &v[c]));
			}
			floe_error_clear();
			caught += failed;
			floe_parquet_reader_free(r);
		}
	}
	FLOE_CHECK(caught > flips * 9 / 10);
	free(copy);
	floe_vector_free(&v[0]);
	floe_vector_free(&v[1]);
	floe_buf_free(&file);
}

FLOE_TEST(reader_catches_every_flipped_bit_in_a_page)
{
	flip_every_bit_of_the_pages(FLOE_PARQUET_UNCOMPRESSED);
	flip_every_bit_of_the_pages(FLOE_PARQUET_SNAPPY);
	flip_every_bit_of_the_pages(FLOE_PARQUET_ZSTD);
}

FLOE_TEST(reader_names_the_file_whose_page_fails_its_crc)
{
	floe_parquet_field f[1] = { { .name = "n", .id = 1, .type = FLOE_VEC_LONG } };
	floe_vector v;
	floe_vector_init(&v, FLOE_VEC_LONG, 0);
	for (int i = 0; i < 100; i++)
		floe_vector_append_i64(&v, i);
	floe_parquet_writer_opts o = quick_opts(FLOE_PARQUET_UNCOMPRESSED);
	written wr;
	FLOE_CHECK(write_and_open(&wr, "crc.parquet", f, 1, &v, &o));
	written_free(&wr);
	floe_buf file = FLOE_BUF_INIT;
	FLOE_CHECK(floe_fs_read_file(&file, path_of("crc.parquet")) == 0);
	file.ptr[file.len / 2] ^= 0x04; /* inside the one page's values */
	FLOE_CHECK(floe_fs_write_atomic(path_of("crc.parquet"), file.ptr, file.len, NULL) == 0);
	floe_parquet_reader *r = NULL;
	floe_vector out;
	FLOE_CHECK(tk_parquet_open(&r, path_of("crc.parquet"), NULL) == 0);
	FLOE_CHECK(floe_parquet_reader_read_column(&out, r, 0, 0) < 0);
	const floe_error *e = floe_error_last();
	FLOE_CHECK(e && e->cls == FLOE_ERR_CHECK && strstr(e->message, "crc.parquet\" is damaged") &&
		   strstr(e->message, "fails its checksum"));
	floe_error_clear();
	floe_parquet_reader_free(r);
	/* Told to skip the CRCs, the reader returns what the damaged page holds. */
	floe_parquet_reader_opts skip = FLOE_PARQUET_READER_OPTS_INIT;
	skip.skip_page_crc = true;
	FLOE_CHECK(tk_parquet_open(&r, path_of("crc.parquet"), &skip) == 0);
	FLOE_CHECK(floe_parquet_reader_read_column(&out, r, 0, 0) == 0);
	FLOE_CHECK(!column_equals(r, 0, &v));
	floe_vector_free(&out);
	floe_parquet_reader_free(r);
	floe_vector_free(&v);
	floe_buf_free(&file);
}

/*
 * Reading with a shared scratch and refilling one vector (floe_parquet_reader_read_field_reuse)
 * gives exactly what fresh reads give: field by field over the row groups (the vector kept), and
 * row group by row group over the fields (its type changing every read).
 */
FLOE_TEST(reused_vectors_and_scratch_read_as_fresh_ones)
{
	floe_parquet_field f[N_TYPES];
	floe_vector v[N_TYPES];
	type_matrix(f, v, 5000, false);
	floe_parquet_writer_opts o = quick_opts(FLOE_PARQUET_ZSTD);
	o.page_rows = 700;
	o.row_group_bytes = 40000;
	written wr;
	FLOE_CHECK(write_and_open(&wr, "reuse.parquet", f, N_TYPES, v, &o));
	floe_parquet_scratch *scratch = floe_parquet_scratch_new();
	floe_parquet_reader_opts ro = FLOE_PARQUET_READER_OPTS_INIT;
	ro.scratch = scratch;
	floe_parquet_reader *shared = NULL;
	FLOE_CHECK(tk_parquet_open(&shared, path_of("reuse.parquet"), &ro) == 0);
	const floe_parquet_meta *m = floe_parquet_reader_meta(wr.reader);
	FLOE_CHECK(m->n_row_groups > 2);
	for (int pass = 0; pass < 2; pass++) {
		floe_vector one, fresh;
		memset(&one, 0, sizeof(one));
		for (size_t a = 0; a < (pass ? m->n_row_groups : N_TYPES); a++)
			for (size_t b = 0; b < (pass ? N_TYPES : m->n_row_groups); b++) {
				size_t rg = pass ? a : b, c = pass ? b : a;
				FLOE_CHECK(floe_parquet_reader_read_field_reuse(&one, shared, rg, c) == 0);
				FLOE_CHECK(floe_parquet_reader_read_field(&fresh, wr.reader, rg, c) == 0);
				FLOE_CHECK(same_layout(&one, &fresh) && one.len == fresh.len);
				for (size_t i = 0; i < one.len; i++)
					FLOE_CHECK(same_row(&one, i, &fresh, i));
				floe_vector_free(&fresh);
			}
		floe_vector_free(&one);
	}
	floe_parquet_reader_free(shared);
	floe_parquet_scratch_free(scratch);
	written_free(&wr);
	for (size_t c = 0; c < N_TYPES; c++)
		floe_vector_free(&v[c]);
}
