/*
 * avro_write.c — the Avro object container writer: values encoded against the
 * schema into blocks, blocks compressed (raw deflate) and framed with the sync
 * marker, the header written last-but-first in floe_avro_writer_finish().
 *
 * The schema JSON goes into `avro.schema` exactly as the caller gave it, so the
 * attributes Iceberg readers look for (`field-id`, `element-id`, `logicalType`)
 * arrive untouched. A datum that does not fit the schema is refused as a whole:
 * the block is cut back to where the datum started.
 */
#include "format/avro_int.h"

#include "base/error.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <zlib.h>

#define MAX_META 64

typedef struct meta_entry {
	char *key;
	uint8_t *value;
	size_t len;
} meta_entry;

struct floe_avro_writer {
	floe_avro_schema *schema;
	char *schema_json;
	size_t schema_len;
	floe_avro_writer_opts opts;
	meta_entry meta[MAX_META];
	size_t n_meta;
	uint8_t sync[16];
	floe_buf block;   /* encoded data of the open block */
	size_t block_count;
	floe_buf body;    /* finished blocks */
	size_t count;
	bool spent;
};

size_t floe_avro_zigzag_put(uint8_t out[10], int64_t v)
{
	uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
	size_t n = 0;
	while (z >= 0x80) {
		out[n++] = (uint8_t)(z | 0x80);
		z >>= 7;
	}
	out[n++] = (uint8_t)z;
	return n;
}

static int put_long(floe_buf *b, int64_t v)
{
	uint8_t tmp[10];
	return floe_buf_put(b, tmp, floe_avro_zigzag_put(tmp, v));
}

static int put_bytes(floe_buf *b, const void *p, size_t len)
{
	if (put_long(b, (int64_t)len) < 0)
		return -1;
	return floe_buf_put(b, p, len);
}

static int mismatch(const floe_avro_type *t, const floe_avro_value *v)
{
	return floe_error_set(FLOE_ERR_INTERNAL, "avro: a %s value does not fit a %s",
			      floe_avro_kind_name(v ? v->kind : FLOE_AVRO_NULL),
			      t->name ? t->name : floe_avro_kind_name(t->kind));
}

static bool is_integer(floe_avro_kind k)
{
	return k == FLOE_AVRO_INT || k == FLOE_AVRO_LONG;
}

/* Whether a value of kind `vk` may be written as `t` (ints widen, floats widen). */
static bool accepts(const floe_avro_type *t, floe_avro_kind vk, bool exact)
{
	if (t->kind == vk)
		return true;
	if (exact)
		return false;
	return (t->kind == FLOE_AVRO_LONG && vk == FLOE_AVRO_INT) ||
	       (t->kind == FLOE_AVRO_INT && vk == FLOE_AVRO_LONG) ||
	       (t->kind == FLOE_AVRO_DOUBLE && vk == FLOE_AVRO_FLOAT) ||
	       (t->kind == FLOE_AVRO_FLOAT && vk == FLOE_AVRO_DOUBLE) ||
	       (t->kind == FLOE_AVRO_BYTES && vk == FLOE_AVRO_STRING) ||
	       (t->kind == FLOE_AVRO_FIXED && (vk == FLOE_AVRO_BYTES || vk == FLOE_AVRO_STRING)) ||
	       (t->kind == FLOE_AVRO_ENUM && is_integer(vk));
}

static int encode(floe_buf *b, const floe_avro_type *t, const floe_avro_value *v, int depth);

static int encode_union(floe_buf *b, const floe_avro_type *t, const floe_avro_value *v, int depth)
{
	floe_avro_kind vk = v ? v->kind : FLOE_AVRO_NULL;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < t->count; i++) {
			if (!accepts(t->branches[i], vk, pass == 0))
				continue;
			if (put_long(b, (int64_t)i) < 0)
				return -1;
			return encode(b, t->branches[i], v, depth + 1);
		}
	}
	return mismatch(t, v);
}

static int encode_list(floe_buf *b, const floe_avro_type *t, const floe_avro_value *v, int depth)
{
	if (t->kind == FLOE_AVRO_RECORD) {
		if (v->u.list.len != t->count)
			return floe_error_set(FLOE_ERR_INTERNAL,
					      "avro: record \"%s\" has %zu fields, the value %zu", t->name,
					      t->count, v->u.list.len);
		for (size_t i = 0; i < t->count; i++)
			if (encode(b, t->fields[i].type, v->u.list.items[i], depth + 1) < 0)
				return floe_error_context("in field \"%s\" of \"%s\"", t->fields[i].name,
							  t->name);
		return 0;
	}
	if (v->u.list.len > 0 && put_long(b, (int64_t)v->u.list.len) < 0)
		return -1;
	for (size_t i = 0; i < v->u.list.len; i++)
		if (encode(b, t->items, v->u.list.items[i], depth + 1) < 0)
			return -1;
	return put_long(b, 0);
}

static int encode_map(floe_buf *b, const floe_avro_type *t, const floe_avro_value *v, int depth)
{
	if (v->u.map.len > 0 && put_long(b, (int64_t)v->u.map.len) < 0)
		return -1;
	for (size_t i = 0; i < v->u.map.len; i++) {
		if (put_bytes(b, v->u.map.keys[i].ptr, v->u.map.keys[i].len) < 0 ||
		    encode(b, t->items, v->u.map.values[i], depth + 1) < 0)
			return -1;
	}
	return put_long(b, 0);
}

static int encode_scalar(floe_buf *b, const floe_avro_type *t, const floe_avro_value *v)
{
	uint8_t raw[8];
	switch (t->kind) {
	case FLOE_AVRO_NULL:
		return 0;
	case FLOE_AVRO_BOOLEAN:
		return floe_buf_putc(b, v->u.boolean ? 1 : 0);
	case FLOE_AVRO_INT:
		if (v->u.integer < INT32_MIN || v->u.integer > INT32_MAX)
			return floe_error_set(FLOE_ERR_INTERNAL, "avro: %lld does not fit an int",
					      (long long)v->u.integer);
		return put_long(b, v->u.integer);
	case FLOE_AVRO_LONG:
		return put_long(b, v->u.integer);
	case FLOE_AVRO_FLOAT: {
		float f = (float)v->u.real;
		uint32_t bits;
		memcpy(&bits, &f, 4);
		for (int i = 0; i < 4; i++)
			raw[i] = (uint8_t)(bits >> (8 * i));
		return floe_buf_put(b, raw, 4);
	}
	case FLOE_AVRO_DOUBLE: {
		uint64_t bits;
		memcpy(&bits, &v->u.real, 8);
		for (int i = 0; i < 8; i++)
			raw[i] = (uint8_t)(bits >> (8 * i));
		return floe_buf_put(b, raw, 8);
	}
	case FLOE_AVRO_BYTES:
	case FLOE_AVRO_STRING:
		return put_bytes(b, v->u.bytes.ptr, v->u.bytes.len);
	case FLOE_AVRO_FIXED:
		if (v->u.bytes.len != t->size)
			return floe_error_set(FLOE_ERR_INTERNAL, "avro: fixed \"%s\" takes %zu bytes, not %zu",
					      t->name, t->size, v->u.bytes.len);
		return floe_buf_put(b, v->u.bytes.ptr, v->u.bytes.len);
	case FLOE_AVRO_ENUM:
		if (v->u.integer < 0 || (uint64_t)v->u.integer >= t->count)
			return floe_error_set(FLOE_ERR_INTERNAL, "avro: enum \"%s\" has no symbol %lld",
					      t->name, (long long)v->u.integer);
		return put_long(b, v->u.integer);
	default:
		return mismatch(t, v);
	}
}

static int encode(floe_buf *b, const floe_avro_type *t, const floe_avro_value *v, int depth)
{
	if (depth > FLOE_AVRO_MAX_DEPTH)
		return floe_error_set(FLOE_ERR_INTERNAL, "avro: value nested deeper than %d levels",
				      FLOE_AVRO_MAX_DEPTH);
	if (t->kind == FLOE_AVRO_UNION)
		return encode_union(b, t, v, depth);
	if (!v && t->kind == FLOE_AVRO_NULL)
		return 0;
	if (!v || !accepts(t, v->kind, false))
		return mismatch(t, v);
	if (t->kind == FLOE_AVRO_RECORD || t->kind == FLOE_AVRO_ARRAY)
		return encode_list(b, t, v, depth);
	if (t->kind == FLOE_AVRO_MAP)
		return encode_map(b, t, v, depth);
	return encode_scalar(b, t, v);
}

int floe_avro_writer_new(floe_avro_writer **out, const char *schema_json, size_t len,
			 const floe_avro_writer_opts *opts)
{
	floe_avro_writer_opts defaults = FLOE_AVRO_WRITER_OPTS_INIT;
	floe_avro_writer *w = floe_xcalloc(1, sizeof(*w));
	int error = -1;

	*out = NULL;
	w->opts = opts ? *opts : defaults;
	floe_buf_init(&w->block, 0);
	floe_buf_init(&w->body, 0);
	if (floe_avro_schema_parse(&w->schema, schema_json, len) < 0)
		goto cleanup;
	w->schema_json = floe_xstrndup(schema_json, len);
	w->schema_len = len;
	if (getrandom(w->sync, sizeof(w->sync), 0) != (ssize_t)sizeof(w->sync)) {
		floe_error_set_errno(FLOE_ERR_INTERNAL, "could not draw a random avro sync marker");
		goto cleanup;
	}
	*out = w;
	w = NULL;
	error = 0;
cleanup:
	floe_avro_writer_free(w);
	return error;
}

void floe_avro_writer_free(floe_avro_writer *writer)
{
	if (!writer)
		return;
	for (size_t i = 0; i < writer->n_meta; i++) {
		free(writer->meta[i].key);
		free(writer->meta[i].value);
	}
	floe_avro_schema_free(writer->schema);
	free(writer->schema_json);
	floe_buf_free(&writer->block);
	floe_buf_free(&writer->body);
	free(writer);
}

int floe_avro_writer_meta(floe_avro_writer *writer, const char *key, const void *value, size_t len)
{
	meta_entry *e = NULL;
	if (strncmp(key, "avro.", 5) == 0)
		return floe_error_set(FLOE_ERR_INTERNAL, "avro: metadata key \"%s\" is reserved", key);
	for (size_t i = 0; i < writer->n_meta && !e; i++)
		if (strcmp(writer->meta[i].key, key) == 0)
			e = &writer->meta[i];
	if (!e) {
		if (writer->n_meta == MAX_META)
			return floe_error_set(FLOE_ERR_INTERNAL, "avro: more than %d metadata keys",
					      MAX_META);
		e = &writer->meta[writer->n_meta++];
		e->key = floe_xstrndup(key, strlen(key));
	}
	free(e->value);
	e->value = floe_xmalloc(len ? len : 1);
	if (len)
		memcpy(e->value, value, len);
	e->len = len;
	return 0;
}

int floe_avro_writer_meta_cstr(floe_avro_writer *writer, const char *key, const char *value)
{
	return floe_avro_writer_meta(writer, key, value, strlen(value));
}

static int deflate_raw(floe_buf *out, const uint8_t *in, size_t len, int level)
{
	z_stream zs;
	int rc;
	memset(&zs, 0, sizeof(zs));
	if (deflateInit2(&zs, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return floe_error_set(FLOE_ERR_INTERNAL, "avro: could not start deflate");
	uLong bound = deflateBound(&zs, (uLong)len);
	uint8_t *dst = floe_xmalloc(bound);
	zs.next_in = (Bytef *)(uintptr_t)in;
	zs.avail_in = (uInt)len;
	zs.next_out = dst;
	zs.avail_out = (uInt)bound;
	rc = deflate(&zs, Z_FINISH);
	deflateEnd(&zs);
	if (rc != Z_STREAM_END) {
		free(dst);
		return floe_error_set(FLOE_ERR_INTERNAL, "avro: deflate failed (%d)", rc);
	}
	rc = floe_buf_put(out, dst, zs.total_out);
	free(dst);
	return rc;
}

/* Close the open block: count, size, (compressed) data, sync marker. */
static int flush_block(floe_avro_writer *w)
{
	floe_buf packed = FLOE_BUF_INIT;
	const floe_buf *data = &w->block;
	int error = -1;
	if (w->block_count == 0)
		return 0;
	if (w->opts.codec == FLOE_AVRO_CODEC_DEFLATE) {
		if (deflate_raw(&packed, (const uint8_t *)w->block.ptr, w->block.len,
				w->opts.deflate_level) < 0)
			goto cleanup;
		data = &packed;
	}
	if (put_long(&w->body, (int64_t)w->block_count) < 0 ||
	    put_long(&w->body, (int64_t)data->len) < 0 ||
	    floe_buf_put(&w->body, data->ptr, data->len) < 0 ||
	    floe_buf_put(&w->body, w->sync, sizeof(w->sync)) < 0) {
		floe_error_set(FLOE_ERR_INTERNAL, "avro: file larger than %zu bytes", w->body.max);
		goto cleanup;
	}
	floe_buf_clear(&w->block);
	w->block_count = 0;
	error = 0;
cleanup:
	floe_buf_free(&packed);
	return error;
}

int floe_avro_writer_append(floe_avro_writer *writer, const floe_avro_value *datum)
{
	size_t mark = writer->block.len;
	assert(!writer->spent);
	if (encode(&writer->block, writer->schema->root, datum, 0) < 0) {
		writer->block.len = mark;
		return -1;
	}
	writer->block_count++;
	writer->count++;
	if (writer->block.len >= writer->opts.block_bytes)
		return flush_block(writer);
	return 0;
}

size_t floe_avro_writer_count(const floe_avro_writer *writer)
{
	return writer->count;
}

static int put_header(floe_avro_writer *w, floe_buf *out)
{
	const char *codec = w->opts.codec == FLOE_AVRO_CODEC_DEFLATE ? "deflate" : "null";
	int rc = floe_buf_put(out, "Obj\x01", 4);
	rc = rc < 0 ? -1 : put_long(out, (int64_t)w->n_meta + 2);
	rc = rc < 0 ? -1 : put_bytes(out, "avro.schema", 11);
	rc = rc < 0 ? -1 : put_bytes(out, w->schema_json, w->schema_len);
	rc = rc < 0 ? -1 : put_bytes(out, "avro.codec", 10);
	rc = rc < 0 ? -1 : put_bytes(out, codec, strlen(codec));
	for (size_t i = 0; i < w->n_meta && rc == 0; i++) {
		rc = put_bytes(out, w->meta[i].key, strlen(w->meta[i].key));
		rc = rc < 0 ? -1 : put_bytes(out, w->meta[i].value, w->meta[i].len);
	}
	rc = rc < 0 ? -1 : put_long(out, 0);
	rc = rc < 0 ? -1 : floe_buf_put(out, w->sync, sizeof(w->sync));
	return rc;
}

int floe_avro_writer_finish(floe_avro_writer *writer, floe_buf *out)
{
	assert(!writer->spent);
	writer->spent = true;
	if (flush_block(writer) < 0)
		return -1;
	if (put_header(writer, out) < 0 || floe_buf_put(out, writer->body.ptr, writer->body.len) < 0)
		return floe_error_set(FLOE_ERR_INTERNAL, "avro: file larger than %zu bytes", out->max);
	return 0;
}
