/*
 * avro_read.c — the Avro object container reader: header (magic, metadata map,
 * sync marker), then blocks decoded one datum at a time against the writer's
 * schema into generic values.
 *
 * Nothing in the file is trusted: every length is checked against the bytes left,
 * array and map counts against what their items could occupy, decompressed blocks
 * against FLOE_AVRO_MAX_BLOCK, values per datum against MAX_VALUES, nesting against
 * FLOE_AVRO_MAX_DEPTH. Every block must end on the sync marker of the header.
 */
#include "format/avro_int.h"

#include "base/error.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define MAX_META 1024
#define MAX_VALUES ((size_t)1 << 22)     /* value nodes in one datum */
#define MAX_ZERO_SIZE_ITEMS ((size_t)1 << 16) /* items that occupy no bytes, per datum */

typedef struct cursor {
	const uint8_t *p;
	size_t len, pos;
} cursor;

typedef struct meta_kv {
	floe_slice key;
	floe_slice value;
} meta_kv;

struct floe_avro_reader {
	cursor file;
	floe_avro_schema *schema;
	floe_avro_codec codec;
	meta_kv *meta;
	size_t n_meta;
	uint8_t sync[16];
	uint8_t *inflated; /* owned block data when compressed */
	cursor block;
	int64_t block_left; /* data left in the open block */
	size_t values;      /* value nodes made for the current datum */
	size_t zero_items;
	floe_arena *arena;  /* the caller's, during next() */
};

static int corrupt(const char *what, size_t offset)
{
	floe_error_set(FLOE_ERR_IO, "avro file is corrupt: %s (at byte %zu)", what, offset);
	return -1;
}

static int read_long(cursor *c, int64_t *out)
{
	uint64_t v = 0;
	for (int shift = 0; shift < 70; shift += 7) {
		if (c->pos >= c->len)
			return corrupt("truncated number", c->pos);
		uint8_t byte = c->p[c->pos++];
		if (shift == 63 && (byte & 0x7E))
			return corrupt("number longer than 64 bits", c->pos - 1);
		v |= (uint64_t)(byte & 0x7F) << shift;
		if (!(byte & 0x80)) {
			*out = (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
			return 0;
		}
	}
	return corrupt("number longer than 64 bits", c->pos);
}

/* A length-prefixed byte string, borrowed from the cursor's buffer. */
static int read_slice(cursor *c, const uint8_t **ptr, size_t *len)
{
	int64_t n;
	if (read_long(c, &n) < 0)
		return -1;
	if (n < 0 || (uint64_t)n > c->len - c->pos)
		return corrupt("length past the end of the data", c->pos);
	*ptr = c->p + c->pos;
	*len = (size_t)n;
	c->pos += (size_t)n;
	return 0;
}

/* ---- header ---- */

static int read_meta_block(floe_avro_reader *r, int64_t count)
{
	int64_t bytes;
	if (count < 0) {
		count = -count; /* a negative count is followed by the block's size in bytes */
		if (count < 0 || read_long(&r->file, &bytes) < 0)
			return count < 0 ? corrupt("bad metadata count", r->file.pos) : -1;
	}
	if ((uint64_t)count > MAX_META - r->n_meta)
		return corrupt("too many metadata entries", r->file.pos);
	for (int64_t i = 0; i < count; i++) {
		meta_kv *kv = &r->meta[r->n_meta++];
		const uint8_t *p;
		size_t n;
		if (read_slice(&r->file, &p, &n) < 0)
			return -1;
		kv->key = (floe_slice){ (const char *)p, n };
		if (read_slice(&r->file, &p, &n) < 0)
			return -1;
		kv->value = (floe_slice){ (const char *)p, n };
	}
	return 0;
}

static int read_codec(floe_avro_reader *r)
{
	floe_slice codec;
	if (!floe_avro_reader_meta(r, "avro.codec", &codec) || floe_slice_eq_cstr(codec, "null")) {
		r->codec = FLOE_AVRO_CODEC_NULL;
		return 0;
	}
	if (floe_slice_eq_cstr(codec, "deflate")) {
		r->codec = FLOE_AVRO_CODEC_DEFLATE;
		return 0;
	}
	floe_error_set(FLOE_ERR_IO, "avro file uses codec \"%.*s\", which floe does not read",
		       (int)(codec.len > 32 ? 32 : codec.len), codec.ptr);
	floe_error_hint("floe reads the null and deflate codecs (what Iceberg writers use by default).");
	return -1;
}

static int read_header(floe_avro_reader *r)
{
	floe_slice schema;
	int64_t count;
	if (r->file.len < 4 || memcmp(r->file.p, "Obj\x01", 4) != 0)
		return floe_error_set(FLOE_ERR_IO, "not an avro object container file (no magic bytes)");
	r->file.pos = 4;
	r->meta = floe_xcalloc(MAX_META, sizeof(*r->meta));
	for (;;) {
		if (read_long(&r->file, &count) < 0)
			return -1;
		if (count == 0)
			break;
		if (read_meta_block(r, count) < 0)
			return -1;
	}
	if (r->file.len - r->file.pos < sizeof(r->sync))
		return corrupt("no sync marker after the header", r->file.pos);
	memcpy(r->sync, r->file.p + r->file.pos, sizeof(r->sync));
	r->file.pos += sizeof(r->sync);
	if (!floe_avro_reader_meta(r, "avro.schema", &schema))
		return floe_error_set(FLOE_ERR_IO, "avro file has no \"avro.schema\" in its header");
	if (floe_avro_schema_parse(&r->schema, schema.ptr, schema.len) < 0)
		return floe_error_context("while reading the schema in the avro header");
	return read_codec(r);
}

int floe_avro_reader_open(floe_avro_reader **out, const void *data, size_t len)
{
	floe_avro_reader *r = floe_xcalloc(1, sizeof(*r));
	*out = NULL;
	r->file.p = data;
	r->file.len = len;
	if (read_header(r) < 0) {
		floe_avro_reader_free(r);
		return -1;
	}
	*out = r;
	return 0;
}

void floe_avro_reader_free(floe_avro_reader *reader)
{
	if (!reader)
		return;
	floe_avro_schema_free(reader->schema);
	free(reader->meta);
	free(reader->inflated);
	free(reader);
}

const floe_avro_schema *floe_avro_reader_schema(const floe_avro_reader *reader)
{
	return reader->schema;
}

bool floe_avro_reader_meta(const floe_avro_reader *reader, const char *key, floe_slice *out)
{
	for (size_t i = 0; i < reader->n_meta; i++) {
		if (floe_slice_eq_cstr(reader->meta[i].key, key)) {
			*out = reader->meta[i].value;
			return true;
		}
	}
	return false;
}

/* ---- blocks ---- */

static int inflate_block(floe_avro_reader *r, const uint8_t *src, size_t len)
{
	z_stream zs;
	size_t cap = len * 4 + 1024, got = 0;
	int rc;
	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, -15) != Z_OK)
		return floe_error_set(FLOE_ERR_INTERNAL, "avro: could not start inflate");
	zs.next_in = (Bytef *)(uintptr_t)src;
	zs.avail_in = (uInt)len;
	for (;;) {
		if (cap > FLOE_AVRO_MAX_BLOCK)
			cap = FLOE_AVRO_MAX_BLOCK;
		r->inflated = floe_xrealloc(r->inflated, cap);
		zs.next_out = r->inflated + got;
		zs.avail_out = (uInt)(cap - got);
		rc = inflate(&zs, Z_NO_FLUSH);
		got = zs.total_out;
		if (rc == Z_STREAM_END || (rc != Z_OK && rc != Z_BUF_ERROR))
			break;
		if (zs.avail_out > 0 || cap == FLOE_AVRO_MAX_BLOCK)
			break; /* input ended early, or the block is too large */
		cap *= 2;
	}
	inflateEnd(&zs);
	if (rc != Z_STREAM_END)
		return corrupt(got == FLOE_AVRO_MAX_BLOCK ? "block inflates past the size limit"
							   : "bad deflate data in a block",
			       r->file.pos);
	r->block = (cursor){ r->inflated, got, 0 };
	return 0;
}

/* Open the next block; 0 with block_left > 0, or 0 with block_left == 0 at the end. */
static int open_block(floe_avro_reader *r)
{
	int64_t count, size;
	while (r->block_left == 0) {
		if (r->block.pos != r->block.len)
			return corrupt("bytes left over after the last datum of a block", r->file.pos);
		if (r->file.pos == r->file.len)
			return 0;
		if (read_long(&r->file, &count) < 0 || read_long(&r->file, &size) < 0)
			return -1;
		if (count < 0 || size < 0 || (uint64_t)size > r->file.len - r->file.pos)
			return corrupt("bad block header", r->file.pos);
		const uint8_t *data = r->file.p + r->file.pos;
		r->file.pos += (size_t)size;
		if (r->file.len - r->file.pos < sizeof(r->sync) ||
		    memcmp(r->file.p + r->file.pos, r->sync, sizeof(r->sync)) != 0)
			return corrupt("block does not end with the sync marker", r->file.pos);
		r->file.pos += sizeof(r->sync);
		if (r->codec == FLOE_AVRO_CODEC_DEFLATE) {
			if (inflate_block(r, data, (size_t)size) < 0)
				return -1;
		} else {
			r->block = (cursor){ data, (size_t)size, 0 };
		}
		r->block_left = count;
		if (r->schema->root->zero_size ? (uint64_t)count > MAX_ZERO_SIZE_ITEMS
					       : (uint64_t)count > r->block.len)
			return corrupt("block claims more data than it holds", r->file.pos);
	}
	return 0;
}

/* ---- values ---- */

static int decode(floe_avro_reader *r, const floe_avro_type *t, floe_avro_value **out, int depth);

static floe_avro_value *make(floe_avro_reader *r, floe_avro_kind kind)
{
	if (++r->values > MAX_VALUES)
		return NULL;
	floe_avro_value *v = floe_arena_alloc(r->arena, sizeof(*v));
	v->kind = kind;
	return v;
}

/* How many items of `t` the rest of the block could hold; for zero-size items, a cap. */
static int check_count(floe_avro_reader *r, const floe_avro_type *t, int64_t count, size_t have)
{
	if (count < 0 || (uint64_t)count > SIZE_MAX / 2 - have)
		return corrupt("bad item count", r->block.pos);
	if (t->zero_size) {
		r->zero_items += (size_t)count;
		if (r->zero_items > MAX_ZERO_SIZE_ITEMS)
			return corrupt("too many items of a type that takes no space", r->block.pos);
	} else if ((uint64_t)count > r->block.len - r->block.pos) {
		return corrupt("item count larger than the data", r->block.pos);
	}
	return 0;
}

/* The count of the next array/map block (0 at the end), skipping the optional size. */
static int block_count(floe_avro_reader *r, const floe_avro_type *items, size_t have, int64_t *n)
{
	int64_t size;
	if (read_long(&r->block, n) < 0)
		return -1;
	if (*n < 0) {
		if (*n == INT64_MIN || read_long(&r->block, &size) < 0)
			return *n == INT64_MIN ? corrupt("bad item count", r->block.pos) : -1;
		*n = -*n;
	}
	return check_count(r, items, *n, have);
}

static int decode_array(floe_avro_reader *r, const floe_avro_type *t, floe_avro_value *v, int depth)
{
	size_t cap = 0;
	int64_t n;
	for (;;) {
		if (block_count(r, t->items, v->u.list.len, &n) < 0)
			return -1;
		if (n == 0)
			return 0;
		for (int64_t i = 0; i < n; i++) {
			floe_avro_value **slot = FLOE_ARENA_PUSH(r->arena, v->u.list.items, v->u.list.len, cap);
			if (decode(r, t->items, slot, depth + 1) < 0)
				return -1;
		}
	}
}

static int decode_map(floe_avro_reader *r, const floe_avro_type *t, floe_avro_value *v, int depth)
{
	size_t kcap = 0, vcap = 0;
	int64_t n;
	for (;;) {
		if (block_count(r, t->items, v->u.map.len, &n) < 0)
			return -1;
		if (n == 0)
			return 0;
		for (int64_t i = 0; i < n; i++) {
			const uint8_t *p;
			size_t len, kn = v->u.map.len;
			if (read_slice(&r->block, &p, &len) < 0)
				return -1;
			*FLOE_ARENA_PUSH(r->arena, v->u.map.keys, kn, kcap) =
				(floe_slice){ floe_arena_strndup(r->arena, (const char *)p, len), len };
			if (decode(r, t->items, FLOE_ARENA_PUSH(r->arena, v->u.map.values, v->u.map.len, vcap),
				   depth + 1) < 0)
				return -1;
		}
	}
}

static int decode_fixed_width(floe_avro_reader *r, size_t width, uint64_t *bits)
{
	if (r->block.len - r->block.pos < width)
		return corrupt("truncated number", r->block.pos);
	*bits = 0;
	for (size_t i = 0; i < width; i++)
		*bits |= (uint64_t)r->block.p[r->block.pos + i] << (8 * i);
	r->block.pos += width;
	return 0;
}

static int decode_scalar(floe_avro_reader *r, const floe_avro_type *t, floe_avro_value *v)
{
	const uint8_t *p;
	size_t len;
	uint64_t bits;
	switch (t->kind) {
	case FLOE_AVRO_NULL:
		return 0;
	case FLOE_AVRO_BOOLEAN:
		if (r->block.pos >= r->block.len || r->block.p[r->block.pos] > 1)
			return corrupt("bad boolean", r->block.pos);
		v->u.boolean = r->block.p[r->block.pos++] == 1;
		return 0;
	case FLOE_AVRO_INT:
	case FLOE_AVRO_LONG:
	case FLOE_AVRO_ENUM:
		if (read_long(&r->block, &v->u.integer) < 0)
			return -1;
		if (t->kind == FLOE_AVRO_INT && (v->u.integer < INT32_MIN || v->u.integer > INT32_MAX))
			return corrupt("int out of range", r->block.pos);
		if (t->kind == FLOE_AVRO_ENUM && (v->u.integer < 0 || (uint64_t)v->u.integer >= t->count))
			return corrupt("enum symbol out of range", r->block.pos);
		return 0;
	case FLOE_AVRO_FLOAT: {
		float f;
		uint32_t b32;
		if (decode_fixed_width(r, 4, &bits) < 0)
			return -1;
		b32 = (uint32_t)bits;
		memcpy(&f, &b32, 4);
		v->u.real = f;
		return 0;
	}
	case FLOE_AVRO_DOUBLE:
		if (decode_fixed_width(r, 8, &bits) < 0)
			return -1;
		memcpy(&v->u.real, &bits, 8);
		return 0;
	case FLOE_AVRO_BYTES:
	case FLOE_AVRO_STRING:
		if (read_slice(&r->block, &p, &len) < 0)
			return -1;
		break;
	case FLOE_AVRO_FIXED:
		if (r->block.len - r->block.pos < t->size)
			return corrupt("truncated fixed", r->block.pos);
		p = r->block.p + r->block.pos;
		len = t->size;
		r->block.pos += len;
		break;
	default:
		return corrupt("unexpected type", r->block.pos);
	}
	v->u.bytes.ptr = (const uint8_t *)floe_arena_strndup(r->arena, (const char *)p, len);
	v->u.bytes.len = len;
	return 0;
}

static int decode(floe_avro_reader *r, const floe_avro_type *t, floe_avro_value **out, int depth)
{
	floe_avro_value *v;
	int64_t branch;
	if (depth > FLOE_AVRO_MAX_DEPTH)
		return corrupt("values nested too deeply", r->block.pos);
	while (t->kind == FLOE_AVRO_UNION) {
		if (read_long(&r->block, &branch) < 0)
			return -1;
		if (branch < 0 || (uint64_t)branch >= t->count)
			return corrupt("union branch out of range", r->block.pos);
		t = t->branches[branch];
	}
	v = make(r, t->kind);
	if (!v)
		return corrupt("too many values in one datum", r->block.pos);
	*out = v;
	if (t->kind == FLOE_AVRO_RECORD) {
		v->u.list.len = t->count;
		v->u.list.items = floe_arena_alloc(r->arena, (t->count ? t->count : 1) * sizeof(v));
		for (size_t i = 0; i < t->count; i++)
			if (decode(r, t->fields[i].type, &v->u.list.items[i], depth + 1) < 0)
				return -1;
		return 0;
	}
	if (t->kind == FLOE_AVRO_ARRAY)
		return decode_array(r, t, v, depth);
	if (t->kind == FLOE_AVRO_MAP)
		return decode_map(r, t, v, depth);
	return decode_scalar(r, t, v);
}

int floe_avro_reader_next(floe_avro_reader *reader, floe_arena *arena, const floe_avro_value **out)
{
	floe_avro_value *v = NULL;
	*out = NULL;
	if (open_block(reader) < 0)
		return -1;
	if (reader->block_left == 0)
		return 0;
	reader->arena = arena;
	reader->values = 0;
	reader->zero_items = 0;
	if (decode(reader, reader->schema->root, &v, 0) < 0)
		return -1;
	reader->block_left--;
	*out = v;
	return 1;
}
