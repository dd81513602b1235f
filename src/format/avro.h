/*
 * avro.h — Avro object container files: a schema model, generic values, a writer
 * and a reader. Written for Iceberg's manifests and manifest lists, which need what
 * general Avro libraries drop: custom schema attributes (`field-id`, `element-id`,
 * `logicalType:"map"` on arrays) kept verbatim in the header, and free-form file
 * metadata (`schema`, `partition-spec`, `snapshot-id`, …). See src/format/AVRO.md.
 *
 * Schemas: parsed from Avro JSON into an immutable tree (floe_avro_schema owns it);
 * the JSON attributes of a record field are kept, and integer `field-id`s are
 * indexed. Values: a transparent tree (floe_avro_value) the caller builds in an
 * arena to write, and the reader builds in the caller's arena to read. Unions are
 * not a value kind: a value is always of the branch's kind, and the writer picks
 * the first branch of the value's kind.
 *
 * Codecs: `null` and `deflate` (raw RFC 1951, zlib). Everything read is bounded:
 * lengths against the bytes left, decompressed blocks by FLOE_AVRO_MAX_BLOCK,
 * nesting by FLOE_AVRO_MAX_DEPTH. A malformed file is an FLOE_ERR_IO error saying
 * what and where; callers add the path as context.
 */
#ifndef FLOE_FORMAT_AVRO_H
#define FLOE_FORMAT_AVRO_H

#include "base/arena.h"
#include "base/buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FLOE_AVRO_MAX_DEPTH 64
#define FLOE_AVRO_MAX_BLOCK ((size_t)256 << 20) /* decompressed bytes in one block */

typedef enum floe_avro_kind {
	FLOE_AVRO_NULL,
	FLOE_AVRO_BOOLEAN,
	FLOE_AVRO_INT,
	FLOE_AVRO_LONG,
	FLOE_AVRO_FLOAT,
	FLOE_AVRO_DOUBLE,
	FLOE_AVRO_BYTES,
	FLOE_AVRO_STRING,
	FLOE_AVRO_RECORD,
	FLOE_AVRO_ENUM,
	FLOE_AVRO_ARRAY,
	FLOE_AVRO_MAP,
	FLOE_AVRO_UNION,
	FLOE_AVRO_FIXED
} floe_avro_kind;

typedef enum floe_avro_codec {
	FLOE_AVRO_CODEC_NULL,
	FLOE_AVRO_CODEC_DEFLATE
} floe_avro_codec;

/* ---- schema ---- */

typedef struct floe_avro_schema floe_avro_schema;
typedef struct floe_avro_type floe_avro_type;

/*
 * Parse Avro schema JSON (`len` bytes, need not be NUL-terminated). On success *out
 * owns the tree. Named types may be referenced by name (recursion included).
 */
int floe_avro_schema_parse(floe_avro_schema **out, const char *json, size_t len);
void floe_avro_schema_free(floe_avro_schema *schema);

/* The top-level type. Borrowed from the schema, as is every type below. */
const floe_avro_type *floe_avro_schema_root(const floe_avro_schema *schema);

floe_avro_kind floe_avro_type_kind(const floe_avro_type *type);
const char *floe_avro_kind_name(floe_avro_kind kind); /* "record", "long", … */

/* Full name of a record, enum or fixed; NULL for other kinds. */
const char *floe_avro_type_name(const floe_avro_type *type);

/* `logicalType` attribute, or NULL. */
const char *floe_avro_type_logical(const floe_avro_type *type);

/* Children: record fields, union branches (count), array items, map values. */
size_t floe_avro_type_count(const floe_avro_type *type);
const floe_avro_type *floe_avro_type_child(const floe_avro_type *type, size_t i);
const floe_avro_type *floe_avro_type_items(const floe_avro_type *type);  /* array, map */
size_t floe_avro_type_fixed_size(const floe_avro_type *type);
const char *floe_avro_type_symbol(const floe_avro_type *type, size_t i); /* enum, i < count */

/* Record field `i`: its name, and its integer `field-id` (0 and *out, or -1 when absent). */
const char *floe_avro_field_name(const floe_avro_type *record, size_t i);
int floe_avro_field_id(int64_t *out, const floe_avro_type *record, size_t i);

/* `element-id` of an array: 0 and *out, or -1 when absent. */
int floe_avro_element_id(int64_t *out, const floe_avro_type *array);

/*
 * Index of the field of `record` with `field-id` == `field_id`; when no field carries
 * that id (files without ids), the field named `name` (may be NULL). -1 if neither.
 */
int floe_avro_field_find(const floe_avro_type *record, int64_t field_id, const char *name);

/* ---- values ---- */

typedef struct floe_avro_value floe_avro_value;

struct floe_avro_value {
	floe_avro_kind kind; /* never FLOE_AVRO_UNION */
	union {
		bool boolean;
		int64_t integer; /* int, long, enum (symbol index) */
		double real;     /* float, double */
		struct {
			const uint8_t *ptr;
			size_t len;
		} bytes; /* bytes, string, fixed */
		struct {
			floe_avro_value **items;
			size_t len;
		} list; /* record fields in schema order, array items */
		struct {
			floe_slice *keys;
			floe_avro_value **values;
			size_t len;
		} map;
	} u;
};

/* Value builders; everything is allocated in `arena`. Strings and bytes are copied. */
floe_avro_value *floe_avro_null(floe_arena *arena);
floe_avro_value *floe_avro_boolean(floe_arena *arena, bool b);
floe_avro_value *floe_avro_int(floe_arena *arena, int32_t i);
floe_avro_value *floe_avro_long(floe_arena *arena, int64_t l);
floe_avro_value *floe_avro_double(floe_arena *arena, double d);
floe_avro_value *floe_avro_float(floe_arena *arena, float f);
floe_avro_value *floe_avro_string(floe_arena *arena, const char *s, size_t len);
floe_avro_value *floe_avro_cstring(floe_arena *arena, const char *s);
floe_avro_value *floe_avro_bytes(floe_arena *arena, const void *p, size_t len);
/* A record or array with `len` slots, all NULL (a NULL slot is written as null). */
floe_avro_value *floe_avro_record(floe_arena *arena, size_t len);
floe_avro_value *floe_avro_array(floe_arena *arena, size_t len);

/* Field `i` of a record value read from a file (NULL for out of range). */
const floe_avro_value *floe_avro_value_at(const floe_avro_value *v, size_t i);

/* ---- writer ---- */

typedef struct floe_avro_writer floe_avro_writer;

typedef struct floe_avro_writer_opts {
	floe_avro_codec codec;
	int deflate_level;   /* 1..9; -1: zlib's default */
	size_t block_bytes;  /* encoded bytes per block before it is flushed */
} floe_avro_writer_opts;

#define FLOE_AVRO_WRITER_OPTS_INIT \
	{ .codec = FLOE_AVRO_CODEC_DEFLATE, \
	  .deflate_level = -1, \
	  .block_bytes = (size_t)1 << 20 }

/*
 * A writer for records of `schema_json`, which is parsed (and must be valid) and
 * written into the header byte for byte, so every attribute in it survives.
 * The file is built in memory; floe_avro_writer_finish() hands it out.
 */
int floe_avro_writer_new(floe_avro_writer **out, const char *schema_json, size_t len,
			 const floe_avro_writer_opts *opts);
void floe_avro_writer_free(floe_avro_writer *writer);

/* Add a file metadata entry (key not starting with "avro."); a repeated key replaces. */
int floe_avro_writer_meta(floe_avro_writer *writer, const char *key, const void *value,
			  size_t len);
int floe_avro_writer_meta_cstr(floe_avro_writer *writer, const char *key, const char *value);

/* Encode one datum of the root type. On failure nothing of it is written. */
int floe_avro_writer_append(floe_avro_writer *writer, const floe_avro_value *datum);

/* Number of data appended so far. */
size_t floe_avro_writer_count(const floe_avro_writer *writer);

/* Append the whole file (header, blocks) to `out`. The writer is spent afterwards. */
int floe_avro_writer_finish(floe_avro_writer *writer, floe_buf *out);

/* ---- reader ---- */

typedef struct floe_avro_reader floe_avro_reader;

/* Read the header of the file in `data` (borrowed until floe_avro_reader_free). */
int floe_avro_reader_open(floe_avro_reader **out, const void *data, size_t len);
void floe_avro_reader_free(floe_avro_reader *reader);

/* The writer's schema. Borrowed from the reader. */
const floe_avro_schema *floe_avro_reader_schema(const floe_avro_reader *reader);

/* File metadata `key`: true and *out (borrowed), or false when absent. */
bool floe_avro_reader_meta(const floe_avro_reader *reader, const char *key, floe_slice *out);

/*
 * The next datum, decoded into `arena`: 1 and *out, 0 at the end of the file, -1 on a
 * malformed file (error set).
 */
int floe_avro_reader_next(floe_avro_reader *reader, floe_arena *arena, const floe_avro_value **out);

#endif
