/*
 * fuzz_parquet_pages.c — libFuzzer target for the page decoder: page headers, the three
 * codecs, RLE/bit-packed levels, PLAIN/dictionary/RLE values, v1 and v2 pages, list
 * assembly, and the record assembly of nested fields from two leaves, behind a footer that
 * is always well formed.
 *
 * Input: a 6-byte header, then the column chunk's bytes (its pages).
 *   [0] leaf type (see `types`), [1] flags: bit 0 optional, bit 1 a 3-level list,
 *   bit 2 optional elements, bit 3 an optional struct around the column, bit 6 (with
 *   bit 1) a struct as the list's element with the leaf an optional field of it,
 *   bits 4-5 codec (0 none, 1 snappy, 2 zstd), bit 7 nested mode (below),
 *   [2..3] num_values, [4..5] num_rows (little-endian).
 * Nested mode: one top-level field of shape [0] / N_TYPES (see `shapes`: structs and lists
 * nested in each other) with two leaves, the first of type [0] % N_TYPES, the second an int;
 * [2..3] and [6..7] their num_values, [8..9] the length of the first leaf's chunk, which
 * follows from byte 10; the second's is the rest. The field is read whole, and each leaf
 * alone.
 * The target builds a Parquet file around the chunks (footer written with floe's Thrift
 * writer) and reads them with floe's reader. Inputs of odd length verify page CRCs (a
 * mutated page that records one fails there, as it should); even ones skip the check so
 * that mutations of pages floe wrote with CRCs still reach the decoder behind it. Seeds: fuzz/corpus/parquet_pages, made by
 * `build/tools/parquet_fixture seeds` from pages floe's writer produced.
 */
#include "base/buf.h"
#include "base/error.h"
#include "format/parquet.h"
#include "format/thrift_compact.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* physical, type_length, converted type (-1), logical member (0), scale, precision, unit/utc */
static const struct {
	int physical, length, converted, logical, scale, precision, unit, utc;
} types[] = {
	{ 0, 0, -1, 0, 0, 0, 0, 0 },    /* boolean */
	{ 1, 0, -1, 0, 0, 0, 0, 0 },    /* int */
	{ 2, 0, -1, 0, 0, 0, 0, 0 },    /* long */
	{ 4, 0, -1, 0, 0, 0, 0, 0 },    /* float */
	{ 5, 0, -1, 0, 0, 0, 0, 0 },    /* double */
	{ 6, 0, 0, 1, 0, 0, 0, 0 },     /* string */
	{ 7, 16, -1, 14, 0, 0, 0, 0 },  /* uuid */
	{ 1, 0, 5, 5, 2, 9, 0, 0 },     /* decimal(9,2) */
	{ 7, 9, 5, 5, 0, 19, 0, 0 },    /* decimal(19,0) */
	{ 2, 0, 10, 8, 0, 0, 2, 1 },    /* timestamptz micros */
	{ 1, 0, 6, 6, 0, 0, 0, 0 },     /* date */
	{ 6, 0, -1, 0, 0, 0, 0, 0 },    /* binary */
	{ 7, 3, -1, 0, 0, 0, 0, 0 },    /* fixed[3] */
	{ 1, 0, 7, 7, 0, 0, 1, 0 },     /* time millis in INT32 */
	{ 2, 0, 9, 8, 0, 0, 1, 0 },     /* timestamp millis */
	{ 2, 0, 5, 5, 4, 18, 0, 0 },    /* decimal(18,4) */
	{ 6, 0, 5, 5, 1, 30, 0, 0 },    /* decimal(30,1) in BYTE_ARRAY */
};
#define N_TYPES (sizeof(types) / sizeof(types[0]))

static void logical(floe_thrift_writer *t, size_t k)
{
	int member = types[k].logical;
	if (!member)
		return;
	floe_thrift_field_struct(t, 10);
	floe_thrift_field_struct(t, (int16_t)member);
	if (member == 5) {
		floe_thrift_field_i32(t, 1, types[k].scale);
		floe_thrift_field_i32(t, 2, types[k].precision);
	} else if (member == 7 || member == 8) {
		floe_thrift_field_bool(t, 1, types[k].utc);
		floe_thrift_field_struct(t, 2);
		floe_thrift_field_struct(t, (int16_t)types[k].unit);
		floe_thrift_struct_end(t);
		floe_thrift_struct_end(t);
	}
	floe_thrift_struct_end(t);
	floe_thrift_struct_end(t);
}

static void leaf(floe_thrift_writer *t, size_t k, const char *name, bool optional)
{
	floe_thrift_struct_begin(t);
	floe_thrift_field_i32(t, 1, types[k].physical);
	if (types[k].length)
		floe_thrift_field_i32(t, 2, types[k].length);
	floe_thrift_field_i32(t, 3, optional ? 1 : 0);
	floe_thrift_field_binary(t, 4, name, strlen(name));
	if (types[k].converted >= 0)
		floe_thrift_field_i32(t, 6, types[k].converted);
	if (types[k].logical == 5) {
		floe_thrift_field_i32(t, 7, types[k].scale);
		floe_thrift_field_i32(t, 8, types[k].precision);
	}
	floe_thrift_field_i32(t, 9, 2);
	logical(t, k);
	floe_thrift_struct_end(t);
}

static void group(floe_thrift_writer *t, const char *name, int repetition, int converted)
{
	floe_thrift_struct_begin(t);
	floe_thrift_field_i32(t, 3, repetition);
	floe_thrift_field_binary(t, 4, name, strlen(name));
	floe_thrift_field_i32(t, 5, 1);
	if (converted >= 0)
		floe_thrift_field_i32(t, 6, converted);
	floe_thrift_struct_end(t);
}

/*
 * Nested mode's fields, schema elements in depth-first order below the root: a group of
 * `children` (LIST-annotated when `list`), leaf 'a' (the fuzzed type) or leaf 'b' (an int).
 * The same shapes, as floe's writer takes them, make the seeds (tests/tools/parquet_fixture.c).
 */
typedef struct element {
	char kind;      /* 'g', 'a', 'b', 0 after the last */
	int repetition; /* 0 required, 1 optional, 2 repeated */
	int children;
	bool list;
} element;

static const element shapes[][8] = {
	/* s struct { a, b list<int> } */
	{ { 'g', 1, 2, 0 }, { 'a', 1, 0, 0 }, { 'g', 1, 1, 1 }, { 'g', 2, 1, 0 }, { 'b', 1, 0, 0 } },
	/* l list<struct { a, b int }> */
	{ { 'g', 1, 1, 1 }, { 'g', 2, 1, 0 }, { 'g', 1, 2, 0 }, { 'a', 1, 0, 0 }, { 'b', 1, 0, 0 } },
	/* l list<struct { a, b list<int> }>: a list in a struct in a list */
	{ { 'g', 1, 1, 1 }, { 'g', 2, 1, 0 }, { 'g', 1, 2, 0 }, { 'a', 1, 0, 0 }, { 'g', 1, 1, 1 },
	  { 'g', 2, 1, 0 }, { 'b', 1, 0, 0 } },
	/* s struct { t struct { a }, b int } */
	{ { 'g', 1, 2, 0 }, { 'g', 1, 1, 0 }, { 'a', 1, 0, 0 }, { 'b', 1, 0, 0 } },
	/* s struct { ll list<list<a>>, b int } */
	{ { 'g', 1, 2, 0 }, { 'g', 1, 1, 1 }, { 'g', 2, 1, 0 }, { 'g', 1, 1, 1 }, { 'g', 2, 1, 0 },
	  { 'a', 1, 0, 0 }, { 'b', 1, 0, 0 } },
	/* s required struct { a required, b list<int required> required } */
	{ { 'g', 0, 2, 0 }, { 'a', 0, 0, 0 }, { 'g', 0, 1, 1 }, { 'g', 2, 1, 0 }, { 'b', 0, 0, 0 } },
};
#define N_SHAPES (sizeof(shapes) / sizeof(shapes[0]))

static void nested_schema(floe_thrift_writer *t, size_t k, size_t shape)
{
	const element *e = shapes[shape];
	size_t n = 0;
	while (n < 8 && e[n].kind)
		n++;
	floe_thrift_field_list(t, 2, FLOE_THRIFT_STRUCT, (uint32_t)n + 1);
	floe_thrift_struct_begin(t);
	floe_thrift_field_binary(t, 4, "table", 5);
	floe_thrift_field_i32(t, 5, 1);
	floe_thrift_struct_end(t);
	for (size_t i = 0; i < n; i++) {
		if (e[i].kind == 'a') {
			leaf(t, k, "a", e[i].repetition == 1);
		} else if (e[i].kind == 'b') {
			leaf(t, 1, "b", e[i].repetition == 1);
		} else {
			floe_thrift_struct_begin(t);
			floe_thrift_field_i32(t, 3, e[i].repetition);
			floe_thrift_field_binary(t, 4, "g", 1);
			floe_thrift_field_i32(t, 5, e[i].children);
			if (e[i].list)
				floe_thrift_field_i32(t, 6, 3);
			floe_thrift_struct_end(t);
		}
	}
}

static void schema(floe_thrift_writer *t, size_t k, uint8_t flags)
{
	bool list = flags & 2, outer = flags & 8, inner = list && (flags & 64);
	floe_thrift_field_list(t, 2, FLOE_THRIFT_STRUCT, 2 + outer + (list ? 2 : 0) + inner);
	floe_thrift_struct_begin(t);
	floe_thrift_field_binary(t, 4, "table", 5);
	floe_thrift_field_i32(t, 5, 1);
	floe_thrift_struct_end(t);
	if (outer)
		group(t, "s", 1, -1);
	if (!list) {
		leaf(t, k, "c", flags & 1);
		return;
	}
	group(t, "c", flags & 1 ? 1 : 0, 3);
	group(t, "list", 2, -1);
	if (inner) {
		group(t, "element", flags & 4 ? 1 : 0, -1);
		leaf(t, k, "v", true);
	} else {
		leaf(t, k, "element", flags & 4);
	}
}

/* The chunks of the one row group: physical type, num_values and length of each, in file order. */
typedef struct chunk {
	int physical;
	int64_t num_values, len;
} chunk;

static void footer(floe_buf *out, size_t k, uint8_t flags, int codec, const chunk *chunks, size_t n,
		   int64_t num_rows)
{
	floe_thrift_writer t;
	int64_t offset = 4, total = 0;
	floe_thrift_writer_init(&t, out);
	floe_thrift_struct_begin(&t);
	floe_thrift_field_i32(&t, 1, 1);
	if (flags & 128)
		nested_schema(&t, k % N_TYPES, k / N_TYPES % N_SHAPES);
	else
		schema(&t, k, flags);
	floe_thrift_field_i64(&t, 3, num_rows);
	floe_thrift_field_list(&t, 4, FLOE_THRIFT_STRUCT, 1);
	floe_thrift_struct_begin(&t);
	floe_thrift_field_list(&t, 1, FLOE_THRIFT_STRUCT, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		floe_thrift_struct_begin(&t);
		floe_thrift_field_i64(&t, 2, 0);
		floe_thrift_field_struct(&t, 3);
		floe_thrift_field_i32(&t, 1, chunks[i].physical);
		floe_thrift_field_list(&t, 2, FLOE_THRIFT_I32, 1);
		floe_thrift_write_i32(&t, 0);
		floe_thrift_field_list(&t, 3, FLOE_THRIFT_BINARY, 1);
		floe_thrift_write_binary(&t, "c", 1);
		floe_thrift_field_i32(&t, 4, codec);
		floe_thrift_field_i64(&t, 5, chunks[i].num_values);
		floe_thrift_field_i64(&t, 6, chunks[i].len);
		floe_thrift_field_i64(&t, 7, chunks[i].len);
		floe_thrift_field_i64(&t, 9, offset);
		floe_thrift_struct_end(&t);
		floe_thrift_struct_end(&t);
		offset += chunks[i].len;
		total += chunks[i].len;
	}
	floe_thrift_field_i64(&t, 2, total);
	floe_thrift_field_i64(&t, 3, num_rows);
	floe_thrift_struct_end(&t);
	floe_thrift_field_list(&t, 7, FLOE_THRIFT_STRUCT, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		floe_thrift_struct_begin(&t);
		floe_thrift_field_struct(&t, 1);
		floe_thrift_struct_end(&t);
		floe_thrift_struct_end(&t);
	}
	floe_thrift_struct_end(&t);
	if (floe_thrift_writer_finish(&t) < 0)
		abort();
}

/* Read it: what decodes has the row group's rows, a failure says why. */
static void read_back(floe_parquet_reader *r, int64_t num_rows)
{
	const floe_parquet_meta *m = floe_parquet_reader_meta(r);
	for (size_t c = 0; c <= m->n_leaves; c++) {
		floe_vector v;
		int rc = c < m->n_leaves ? floe_parquet_reader_read_column(&v, r, 0, c)
					 : floe_parquet_reader_read_field(&v, r, 0, 0);
		if (rc == 0) {
			if ((int64_t)v.len != num_rows)
				abort();
			floe_vector_free(&v);
		} else if (!floe_error_last()) {
			abort();
		}
		floe_error_clear();
	}
}

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int codecs[4] = { 0, 1, 6, 0 };
	if (size < 6)
		return 0;
	uint8_t flags = data[1];
	bool nested = flags & 128;
	size_t k = nested ? data[0] : data[0] % N_TYPES, head = nested ? 10 : 6;
	if (size < head)
		return 0;
	int codec = codecs[(flags >> 4) & 3];
	int64_t num_rows = le16(data + 4);
	chunk chunks[2] = { { types[k % N_TYPES].physical, le16(data + 2), (int64_t)(size - head) },
			    { FLOE_PQ_INT32, 0, 0 } };
	if (nested) {
		size_t first = le16(data + 8) < size - head ? le16(data + 8) : size - head;
		chunks[0].len = (int64_t)first;
		chunks[1].num_values = le16(data + 6);
		chunks[1].len = (int64_t)(size - head - first);
	}

	floe_buf file = FLOE_BUF_INIT, meta = FLOE_BUF_INIT;
	footer(&meta, k, flags, codec, chunks, nested ? 2 : 1, num_rows);
	uint32_t mlen = (uint32_t)meta.len;
	if (floe_buf_put(&file, "PAR1", 4) < 0 || floe_buf_put(&file, data + head, size - head) < 0 ||
	    floe_buf_put(&file, meta.ptr, meta.len) < 0 || floe_buf_put(&file, &mlen, 4) < 0 ||
	    floe_buf_put(&file, "PAR1", 4) < 0)
		abort();

	floe_parquet_reader_opts opts = { .max_footer_bytes = 1 << 20, .max_page_bytes = 1 << 20, .max_values = 1 << 16, .skip_page_crc = size % 2 == 0 };
	floe_parquet_reader *r = NULL;
	if (floe_parquet_reader_open_mem(&r, file.ptr, file.len, &opts) != 0)
		abort(); /* the footer is always valid */
	read_back(r, num_rows);
	floe_parquet_reader_free(r);
	floe_buf_free(&file);
	floe_buf_free(&meta);
	floe_error_clear();
	return 0;
}
