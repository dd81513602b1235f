/*
 * thrift_compact.h — the Thrift compact protocol, as Parquet uses it for its footer and
 * page headers: a writer that appends to a floe_buf and a bounded pull reader over bytes.
 *
 * Writer. Structs are written field by field in ascending id order; the writer keeps the
 * last field id of every open struct to emit short (delta) field headers. Lists carry their
 * element type and count up front. Failures (the buffer's maximum, nesting past
 * FLOE_THRIFT_MAX_DEPTH) are sticky: the writer stops appending and
 * floe_thrift_writer_finish() reports the first one.
 *
 * Reader. The caller walks the structure it expects: read_struct_begin, then read_field
 * until it returns FLOE_THRIFT_STOP, reading each value it wants and skipping the rest
 * with floe_thrift_skip(). Input is hostile: every length and count is checked against the
 * bytes that remain, varints are at most 10 bytes, nesting is limited to
 * FLOE_THRIFT_MAX_DEPTH (skip included). The first problem is sticky: every later call
 * returns -1, and floe_thrift_reader_error() says what and at which byte offset. The reader
 * sets no floe error; its caller turns the message into one with its own context.
 *
 * Both structs are declared here so they can live on the stack; their fields are private.
 */
#ifndef FLOE_FORMAT_THRIFT_COMPACT_H
#define FLOE_FORMAT_THRIFT_COMPACT_H

#include "base/buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FLOE_THRIFT_MAX_DEPTH 32

/* Wire types of the compact protocol. BOOL_TRUE/BOOL_FALSE also mean "bool" in lists. */
enum {
	FLOE_THRIFT_STOP = 0,
	FLOE_THRIFT_BOOL_TRUE = 1,
	FLOE_THRIFT_BOOL_FALSE = 2,
	FLOE_THRIFT_I8 = 3,
	FLOE_THRIFT_I16 = 4,
	FLOE_THRIFT_I32 = 5,
	FLOE_THRIFT_I64 = 6,
	FLOE_THRIFT_DOUBLE = 7,
	FLOE_THRIFT_BINARY = 8,
	FLOE_THRIFT_LIST = 9,
	FLOE_THRIFT_SET = 10,
	FLOE_THRIFT_MAP = 11,
	FLOE_THRIFT_STRUCT = 12
};

/* ---- writer ---- */

typedef struct floe_thrift_writer {
	floe_buf *out;
	int depth;
	int16_t last_id[FLOE_THRIFT_MAX_DEPTH + 1];
	const char *failed; /* first failure, NULL while fine */
} floe_thrift_writer;

/* Start writing into `out` (appended; borrowed for the writer's life). */
void floe_thrift_writer_init(floe_thrift_writer *w, floe_buf *out);

/* 0, or -1 with the floe error set when any earlier append failed. */
int floe_thrift_writer_finish(floe_thrift_writer *w);

/* A top-level struct (or a struct element of a list): begin ... end (writes the stop byte). */
void floe_thrift_struct_begin(floe_thrift_writer *w);
void floe_thrift_struct_end(floe_thrift_writer *w);

/* Fields of the innermost open struct. */
void floe_thrift_field_bool(floe_thrift_writer *w, int16_t id, bool v);
void floe_thrift_field_i8(floe_thrift_writer *w, int16_t id, int8_t v);
void floe_thrift_field_i16(floe_thrift_writer *w, int16_t id, int16_t v);
void floe_thrift_field_i32(floe_thrift_writer *w, int16_t id, int32_t v);
void floe_thrift_field_i64(floe_thrift_writer *w, int16_t id, int64_t v);
void floe_thrift_field_double(floe_thrift_writer *w, int16_t id, double v);
void floe_thrift_field_binary(floe_thrift_writer *w, int16_t id, const void *data, size_t len);
/* A struct-valued field: opens the nested struct; close it with floe_thrift_struct_end. */
void floe_thrift_field_struct(floe_thrift_writer *w, int16_t id);
/* A list-valued field: the header only; then write exactly `n` elements of `elem_type`. */
void floe_thrift_field_list(floe_thrift_writer *w, int16_t id, int elem_type, uint32_t n);

/* List elements (and nested list headers). */
void floe_thrift_list_begin(floe_thrift_writer *w, int elem_type, uint32_t n);
void floe_thrift_write_bool(floe_thrift_writer *w, bool v);
void floe_thrift_write_i8(floe_thrift_writer *w, int8_t v);
void floe_thrift_write_i16(floe_thrift_writer *w, int16_t v);
void floe_thrift_write_i32(floe_thrift_writer *w, int32_t v);
void floe_thrift_write_i64(floe_thrift_writer *w, int64_t v);
void floe_thrift_write_double(floe_thrift_writer *w, double v);
void floe_thrift_write_binary(floe_thrift_writer *w, const void *data, size_t len);

/* ---- reader ---- */

typedef struct floe_thrift_reader {
	const uint8_t *start, *p, *end;
	int depth;
	int16_t last_id[FLOE_THRIFT_MAX_DEPTH + 1];
	int pending_bool; /* value of the bool field just announced: 0, 1, or -1 none */
	const char *error;
	size_t error_offset;
} floe_thrift_reader;

/* Read `len` bytes at `data` (borrowed for the reader's life). */
void floe_thrift_reader_init(floe_thrift_reader *r, const void *data, size_t len);

/* The first problem ("list size 99 exceeds the 3 bytes left") and where, or NULL. */
const char *floe_thrift_reader_error(const floe_thrift_reader *r, size_t *offset);

/* Bytes consumed so far. */
size_t floe_thrift_reader_offset(const floe_thrift_reader *r);

int floe_thrift_read_struct_begin(floe_thrift_reader *r);

/*
 * The next field header of the innermost struct: its id and wire type. At the stop byte
 * *type is FLOE_THRIFT_STOP and the struct is closed (no struct_end call).
 * For a bool field the value is already known: read it with floe_thrift_read_bool.
 */
int floe_thrift_read_field(floe_thrift_reader *r, int16_t *id, int *type);

/* True when the wire type `type` carries a bool (fields: 1 or 2). */
bool floe_thrift_type_is_bool(int type);

/* Values: after a field header of the matching type, or as list elements. */
int floe_thrift_read_bool(floe_thrift_reader *r, bool *out);
int floe_thrift_read_i8(floe_thrift_reader *r, int8_t *out);
int floe_thrift_read_i16(floe_thrift_reader *r, int16_t *out);
int floe_thrift_read_i32(floe_thrift_reader *r, int32_t *out);
int floe_thrift_read_i64(floe_thrift_reader *r, int64_t *out);
int floe_thrift_read_double(floe_thrift_reader *r, double *out);
/* Borrowed bytes inside the input. */
int floe_thrift_read_binary(floe_thrift_reader *r, const uint8_t **data, size_t *len);
/* A list or set header: element type and count (count <= bytes left). */
int floe_thrift_read_list_begin(floe_thrift_reader *r, int *elem_type, uint32_t *n);

/* Skip one value of wire type `type` (after its field header, or as a list element). */
int floe_thrift_skip(floe_thrift_reader *r, int type);

/*
 * Struct-walking helpers for readers. floe_thrift_next_field: 1 with a field header read, 0 at the
 * struct's end, -1 on error. The field readers take the value when the wire type
 * matches and skip it otherwise (a schema a reader does not expect is not an error);
 * `seen` (may be NULL) is set when the value was taken.
 */
int floe_thrift_next_field(floe_thrift_reader *r, int16_t *id, int *type);
int floe_thrift_take_i32(floe_thrift_reader *r, int type, int32_t *out, bool *seen);
int floe_thrift_take_i64(floe_thrift_reader *r, int type, int64_t *out, bool *seen);
int floe_thrift_take_bool(floe_thrift_reader *r, int type, bool *out, bool *seen);

#endif
