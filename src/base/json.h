/*
 * json.h — JSON output helpers (writer side) on floe_buf, and a JSON reader.
 *
 * The writer escapes per RFC 8259; strings are taken as bytes with a length and
 * invalid UTF-8 is replaced with U+FFFD so output is always valid JSON.
 *
 * The reader (json_read.c) parses RFC 8259 text into a read-only tree owned by a
 * floe_json_doc: objects keep their members in document order and reject
 * duplicate names, strings are unescaped to UTF-8 with a length, numbers keep
 * their text beside a double (and an int64 when written as an integer that
 * fits). Nesting is limited to FLOE_JSON_MAX_DEPTH. Everything handed out is
 * borrowed until floe_json_free(); asking a scalar accessor for the wrong type
 * is a programming error (assert).
 */
#ifndef FLOE_BASE_JSON_H
#define FLOE_BASE_JSON_H

#include "base/buf.h"

#include <stdbool.h>
#include <stdint.h>

/* Append `"..."` with escaping. */
int floe_json_put_string(floe_buf *out, const char *s, size_t len);
int floe_json_put_cstr(floe_buf *out, const char *s);

/* `"key":` — for hand-written objects. */
int floe_json_put_key(floe_buf *out, const char *key);

/*
 * `"key":"value"` (or `"key":null` for NULL), preceded by a comma unless it is the
 * first member, i.e. unless the buffer ends with '{'.
 */
int floe_json_put_member(floe_buf *out, const char *key, const char *value);

/*
 * A structured writer (json_write.c) for documents people read and diff, such as
 * lakehouse.lock.json: it places commas and, when `pretty`, one member per line
 * indented by two spaces — except inside containers begun with `inline_`, which
 * stay on one line (`{"id": 1, "name": "a"}`). Output is deterministic. An
 * append past the buffer's maximum is remembered and reported by _finish.
 */
#define FLOE_JSON_WRITER_DEPTH 64

typedef struct floe_json_writer {
	floe_buf *out;
	bool pretty;
	bool failed;
	int depth;
	int inline_from;                      /* depth at which one-line output began; 0: none */
	bool has_items[FLOE_JSON_WRITER_DEPTH]; /* per open container: something written */
	bool after_key;
} floe_json_writer;

void floe_json_write_init(floe_json_writer *w, floe_buf *out, bool pretty);
void floe_json_write_begin_object(floe_json_writer *w, bool inline_);
void floe_json_write_end_object(floe_json_writer *w);
void floe_json_write_begin_array(floe_json_writer *w, bool inline_);
void floe_json_write_end_array(floe_json_writer *w);
void floe_json_write_key(floe_json_writer *w, const char *key);
void floe_json_write_string(floe_json_writer *w, const char *s, size_t len);
void floe_json_write_cstr(floe_json_writer *w, const char *s); /* NULL: null */
void floe_json_write_int(floe_json_writer *w, int64_t v);
/* A number given as JSON number text the caller has checked (floe_json_number_text, a TOML number). */
void floe_json_write_number(floe_json_writer *w, const char *text);
void floe_json_write_bool(floe_json_writer *w, bool v);
void floe_json_write_null(floe_json_writer *w);
/* Key and value in one call. */
void floe_json_write_member_cstr(floe_json_writer *w, const char *key, const char *s);
void floe_json_write_member_int(floe_json_writer *w, const char *key, int64_t v);
void floe_json_write_member_bool(floe_json_writer *w, const char *key, bool v);
/* `"key": ["a", "b"]`, the array on one line. */
void floe_json_write_member_strings(floe_json_writer *w, const char *key, const char *const *items, size_t n);
/* A final newline (pretty); 0, or -1 when an append failed (error set). */
int floe_json_write_finish(floe_json_writer *w);

/* ---- reader ---- */

#define FLOE_JSON_MAX_DEPTH 256

typedef enum floe_json_type {
	FLOE_JSON_NULL,
	FLOE_JSON_BOOL,
	FLOE_JSON_NUMBER,
	FLOE_JSON_STRING,
	FLOE_JSON_ARRAY,
	FLOE_JSON_OBJECT
} floe_json_type;

typedef struct floe_json_doc floe_json_doc;
typedef struct floe_json_value floe_json_value;

typedef struct floe_json_error {
	size_t offset; /* byte offset of the problem */
	int line, col; /* 1-based; col counts bytes */
	char message[256];
} floe_json_error;

/*
 * Parse `len` bytes of `text` (need not be NUL-terminated) as one JSON value with
 * optional whitespace around it. On success *out owns the tree; on failure *out
 * is NULL and `err` (if not NULL) says where and why. Returns 0 or -1.
 */
int floe_json_parse(floe_json_doc **out, const char *text, size_t len, floe_json_error *err);

/* Release the document and everything in it. Accepts NULL. */
void floe_json_free(floe_json_doc *doc);

const floe_json_value *floe_json_root(const floe_json_doc *doc);
floe_json_type floe_json_type_of(const floe_json_value *v);
const char *floe_json_type_name(floe_json_type t); /* "null", "boolean", "number", ... */

/* Byte offset in the text where the value starts (for messages). */
size_t floe_json_offset(const floe_json_value *v);

/* Members of an object or items of an array; 0 for NULL and for scalars. */
size_t floe_json_count(const floe_json_value *v);

/* Name of member `i` (< count) of an object, in document order. */
floe_slice floe_json_key_at(const floe_json_value *object, size_t i);

/* Member `i` of an object or item `i` of an array (< count). */
const floe_json_value *floe_json_value_at(const floe_json_value *v, size_t i);

/* Member named `key`; NULL when absent, when `object` is NULL or not an object. */
const floe_json_value *floe_json_get(const floe_json_value *object, const char *key);
const floe_json_value *floe_json_get_slice(const floe_json_value *object, floe_slice key);

/* UTF-8 with a length; NUL-terminated too, but may contain NUL ("\u0000"). */
floe_slice floe_json_string(const floe_json_value *v);
bool floe_json_bool(const floe_json_value *v);

/* A number as written ("1.50e3"), and as the nearest double. */
floe_slice floe_json_number_text(const floe_json_value *v);
double floe_json_number(const floe_json_value *v);

/* 0 and *out when the number is written without fraction or exponent and fits int64; else -1. */
int floe_json_int64(int64_t *out, const floe_json_value *v);

#endif
