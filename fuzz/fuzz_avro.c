/*
 * fuzz_avro.c — libFuzzer target for the Avro container reader, and through it the
 * Iceberg manifest and manifest-list readers.
 *
 * Any input must be read or refused cleanly (no crash, leak, hang, or unbounded
 * memory). A file read to its end is written again with floe's writer (same schema
 * text, null codec) and read back: the values must come back equal, so the reader
 * and the writer agree on every encoding. Unions with two branches of one kind (two
 * named records) are exempt: a generic value does not say which branch it took.
 */
#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "format/avro.h"
#include "iceberg/manifest.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DATA 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(int ok)
{
	if (!ok)
		abort();
}

static bool same(const floe_avro_value *a, const floe_avro_value *b, int depth)
{
	if (!a || !b || a->kind != b->kind || depth > 200)
		return a == b;
	switch (a->kind) {
	case FLOE_AVRO_NULL:
		return true;
	case FLOE_AVRO_BOOLEAN:
		return a->u.boolean == b->u.boolean;
	case FLOE_AVRO_INT:
	case FLOE_AVRO_LONG:
	case FLOE_AVRO_ENUM:
		return a->u.integer == b->u.integer;
	case FLOE_AVRO_FLOAT:
	case FLOE_AVRO_DOUBLE:
		return (isnan(a->u.real) && isnan(b->u.real)) ||
		       memcmp(&a->u.real, &b->u.real, sizeof(double)) == 0;
	case FLOE_AVRO_BYTES:
	case FLOE_AVRO_STRING:
	case FLOE_AVRO_FIXED:
		return a->u.bytes.len == b->u.bytes.len &&
		       (a->u.bytes.len == 0 || memcmp(a->u.bytes.ptr, b->u.bytes.ptr, a->u.bytes.len) == 0);
	case FLOE_AVRO_RECORD:
	case FLOE_AVRO_ARRAY:
		if (a->u.list.len != b->u.list.len)
			return false;
		for (size_t i = 0; i < a->u.list.len; i++)
			if (!same(a->u.list.items[i], b->u.list.items[i], depth + 1))
				return false;
		return true;
	case FLOE_AVRO_MAP:
		if (a->u.map.len != b->u.map.len)
			return false;
		for (size_t i = 0; i < a->u.map.len; i++)
			if (!floe_slice_eq(a->u.map.keys[i], b->u.map.keys[i]) ||
			    !same(a->u.map.values[i], b->u.map.values[i], depth + 1))
				return false;
		return true;
	default:
		return false;
	}
}

/* Whether a union in `t` has two branches of one kind (visiting each named type once). */
static bool ambiguous(const floe_avro_type *t, const floe_avro_type **seen, size_t *n_seen, int depth)
{
	floe_avro_kind k = floe_avro_type_kind(t);
	if (depth > 80)
		return true;
	if (k == FLOE_AVRO_RECORD) {
		for (size_t i = 0; i < *n_seen; i++)
			if (seen[i] == t)
				return false;
		if (*n_seen == 256)
			return true;
		seen[(*n_seen)++] = t;
	}
	if (k == FLOE_AVRO_ARRAY || k == FLOE_AVRO_MAP)
		return ambiguous(floe_avro_type_items(t), seen, n_seen, depth + 1);
	if (k != FLOE_AVRO_RECORD && k != FLOE_AVRO_UNION)
		return false;
	for (size_t i = 0; i < floe_avro_type_count(t); i++) {
		const floe_avro_type *c = floe_avro_type_child(t, i);
		if (k == FLOE_AVRO_UNION)
			for (size_t j = 0; j < i; j++)
				if (floe_avro_type_kind(floe_avro_type_child(t, j)) == floe_avro_type_kind(c))
					return true;
		if (ambiguous(c, seen, n_seen, depth + 1))
			return true;
	}
	return false;
}

/* Write `values` again with the file's own schema and check they read back equal. */
static void round_trip(const floe_avro_reader *r, const floe_avro_value **values, size_t n)
{
	floe_avro_writer_opts opts = FLOE_AVRO_WRITER_OPTS_INIT;
	floe_avro_writer *w = NULL;
	floe_avro_reader *back = NULL;
	floe_arena *a = floe_arena_new();
	floe_buf file = FLOE_BUF_INIT;
	const floe_avro_type *seen[256];
	size_t n_seen = 0, got = 0;
	const floe_avro_value *v;
	floe_slice schema;
	int rc;
	if (ambiguous(floe_avro_schema_root(floe_avro_reader_schema(r)), seen, &n_seen, 0))
		goto done;
	require(floe_avro_reader_meta(r, "avro.schema", &schema));
	opts.codec = FLOE_AVRO_CODEC_NULL;
	opts.block_bytes = 512;
	require(floe_avro_writer_new(&w, schema.ptr, schema.len, &opts) == 0);
	for (size_t i = 0; i < n; i++)
		require(floe_avro_writer_append(w, values[i]) == 0);
	require(floe_avro_writer_finish(w, &file) == 0);
	require(floe_avro_reader_open(&back, file.ptr, file.len) == 0);
	while ((rc = floe_avro_reader_next(back, a, &v)) == 1) {
		require(got < n && same(v, values[got], 0));
		got++;
	}
	require(rc == 0 && got == n);
done:
	floe_avro_reader_free(back);
	floe_avro_writer_free(w);
	floe_buf_free(&file);
	floe_arena_free(a);
}

static void read_container(const uint8_t *data, size_t size)
{
	floe_avro_reader *r = NULL;
	floe_arena *a = floe_arena_new();
	const floe_avro_value **values = calloc(MAX_DATA, sizeof(*values));
	size_t n = 0;
	int rc = -1;
	if (floe_avro_reader_open(&r, data, size) == 0) {
		while (n < MAX_DATA && (rc = floe_avro_reader_next(r, a, &values[n])) == 1)
			n++;
		if (rc == 0)
			round_trip(r, values, n);
	}
	floe_avro_reader_free(r);
	floe_arena_free(a);
	free(values);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	floe_arena *a = floe_arena_new();
	floe_iceberg_manifest_entry *entries;
	floe_iceberg_manifest_file *files;
	size_t n;
	read_container(data, size);
	floe_error_clear();
	if (floe_iceberg_manifest_read(&entries, &n, a, data, size, NULL) == 0)
		for (size_t i = 0; i < n; i++)
			require(entries[i].file.path != NULL && entries[i].file.record_count >= 0);
	floe_error_clear();
	if (floe_iceberg_manifest_list_read(&files, &n, a, data, size) == 0)
		for (size_t i = 0; i < n; i++)
			require(files[i].path != NULL);
	floe_error_clear();
	floe_arena_free(a);
	return 0;
}
