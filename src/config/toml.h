/*
 * toml.h — a TOML 1.0 reader: text in, a read-only tree out.
 *
 * floe_toml_parse() reads a whole document and either returns a tree or fails
 * with the first error (1-based line and column, in characters, and a lower-case
 * message that says what and why). It implements all of TOML 1.0.0 and passes
 * the toml-test corpus (tests/unit/config/test_toml_corpus.c): every string form
 * and escape, integers in four bases, floats with inf/nan, the four date-time
 * kinds with range checks, arrays, inline tables, tables, arrays of tables,
 * dotted and quoted keys and the rules against defining anything twice.
 * Invalid UTF-8, NUL bytes, bare CR and control characters are rejected.
 * Nesting (arrays, inline tables, dotted keys and headers together) is limited
 * to FLOE_TOML_MAX_DEPTH so hostile input cannot exhaust the stack of a walker.
 *
 * The document owns every value, key and string; everything handed out is
 * borrowed until floe_toml_free(). Asking a scalar accessor for the wrong type is
 * a programming error (assert); check floe_toml_type_of() first.
 */
#ifndef FLOE_CONFIG_TOML_H
#define FLOE_CONFIG_TOML_H

#include "base/buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FLOE_TOML_MAX_DEPTH 128

typedef enum floe_toml_type {
	FLOE_TOML_STRING,
	FLOE_TOML_INTEGER,
	FLOE_TOML_FLOAT,
	FLOE_TOML_BOOL,
	FLOE_TOML_DATETIME,       /* offset date-time: 1979-05-27T07:32:00Z */
	FLOE_TOML_DATETIME_LOCAL, /* 1979-05-27T07:32:00 */
	FLOE_TOML_DATE_LOCAL,     /* 1979-05-27 */
	FLOE_TOML_TIME_LOCAL,     /* 07:32:00 */
	FLOE_TOML_ARRAY,
	FLOE_TOML_TABLE
} floe_toml_type;

typedef struct floe_toml_doc floe_toml_doc;
typedef struct floe_toml_value floe_toml_value;

typedef struct floe_toml_error {
	int line, col; /* 1-based; col counts characters, a tab is one */
	char message[256];
} floe_toml_error;

/* Fields not implied by the type (has_date, has_time, has_offset) are zero. */
typedef struct floe_toml_datetime {
	int year, month, day;
	int hour, minute, second, nanosecond;
	int has_date, has_time, has_offset;
	int offset_minutes; /* east of UTC; "Z" and "-00:00" are 0 */
} floe_toml_datetime;

/*
 * Parse `len` bytes of `text` (need not be NUL-terminated; a leading UTF-8 BOM is
 * skipped). On success *out owns the tree; on failure *out is NULL and `err`
 * (if not NULL) says where and why. Returns 0 or -1.
 */
int floe_toml_parse(floe_toml_doc **out, const char *text, size_t len, floe_toml_error *err);

/* Release the document and every value, key and string in it. Accepts NULL. */
void floe_toml_free(floe_toml_doc *doc);

/* The root table. */
const floe_toml_value *floe_toml_root(const floe_toml_doc *doc);

floe_toml_type floe_toml_type_of(const floe_toml_value *v);

/* "string", "integer", "float", "boolean", "datetime", "local datetime", ... */
const char *floe_toml_type_name(floe_toml_type t);

/* Entries of a table or items of an array; 0 for NULL and for scalars. */
size_t floe_toml_count(const floe_toml_value *v);

/* Key of entry `i` (< count) of a table, in document order. May hold "\u0000". */
floe_slice floe_toml_key_at(const floe_toml_value *table, size_t i);

/* Entry `i` of a table or item `i` of an array (< count). */
const floe_toml_value *floe_toml_value_at(const floe_toml_value *v, size_t i);

/* Value under `key` in a table; NULL when absent, when `table` is NULL or not a table. */
const floe_toml_value *floe_toml_get(const floe_toml_value *table, const char *key);
const floe_toml_value *floe_toml_get_slice(const floe_toml_value *table, floe_slice key);

/*
 * Where a value starts (for a table: its header, its `{`, or for a table made
 * implicitly, the key that made it), and where the key of entry `i` was written.
 */
int floe_toml_line(const floe_toml_value *v);
int floe_toml_col(const floe_toml_value *v);
int floe_toml_key_line_at(const floe_toml_value *table, size_t i);
int floe_toml_key_col_at(const floe_toml_value *table, size_t i);

/*
 * Scalars. A string is valid UTF-8 with its length; it is also NUL-terminated,
 * but may itself contain NUL when the document wrote "\u0000".
 */
floe_slice floe_toml_string(const floe_toml_value *v);
int64_t floe_toml_int(const floe_toml_value *v);
double floe_toml_float(const floe_toml_value *v);
bool floe_toml_bool(const floe_toml_value *v);
floe_toml_datetime floe_toml_datetime_of(const floe_toml_value *v); /* the four date-time types */

#endif
