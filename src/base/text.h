/*
 * text.h — small text utilities: edit distance and "did you mean" suggestions,
 * strict number parsing (no atoi), and the one escape for text shown on a terminal.
 */
#ifndef FLOE_BASE_TEXT_H
#define FLOE_BASE_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

/* Levenshtein distance, case-insensitive, capped at 64-byte inputs (longer: SIZE_MAX). */
size_t floe_text_edit_distance(const char *a, const char *b);

/*
 * The candidate nearest to `word`, or NULL when none is close enough to be a
 * plausible typo (distance at most a third of the word's length, at least 1).
 * `candidates` is NULL-terminated.
 */
const char *floe_text_suggest(const char *word, const char *const *candidates);

/* Parse a whole decimal integer in [min, max]. Returns 0 or -1 (no error set). */
int floe_text_parse_int64(int64_t *out, const char *s, size_t len, int64_t min, int64_t max);

/*
 * Append `s` to `out` so it is safe to show on a terminal or in one line of output: every
 * control character (C0, DEL, C1) becomes \n, \r, \t, \e or \xHH / \u{HHHH}, a backslash
 * becomes \\, and bytes that are not valid UTF-8 become \xHH. Printable UTF-8 is kept as it is.
 * Every source-derived string (a table or column name, a value, a server message) printed to a
 * terminal goes through this one function. NULL appends "(null)". Returns 0 or -1 (buffer full).
 */
int floe_text_put_printable(floe_buf *out, const char *s);

/* floe_text_put_printable into a new NUL-terminated string the caller frees (NULL if too long). */
char *floe_text_printable(const char *s);

/* floe_text_put_printable, then spaces up to `width` characters (UTF-8 code points), for columns. */
int floe_text_put_printable_padded(floe_buf *out, const char *s, size_t width);

#endif
