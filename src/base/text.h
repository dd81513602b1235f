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

/*
 * The index of `text` in the name table `names` (n entries, each an enum value's
 * name): how a state or mode read back from a file (the ledger, the lock) becomes
 * its enum again. -1 when `text` is NULL or names none of them; with `what` not
 * NULL the error is set too (FLOE_ERR_CONFIG: unknown <what> "<text>").
 */
int floe_text_name_index(const char *what, const char *const *names, size_t n, const char *text);

/*
 * Define the two functions of an enum whose values 0..last are named by the static
 * table `names` (in the enum's order; the build fails when a value has no name):
 *   const char *TYPE_name(TYPE value);
 *   int TYPE_parse(TYPE *out, const char *text);  -- -1 (FLOE_ERR_CONFIG) for other text
 * `what` names the kind in that error ("load mode"). One table, both directions.
 */
#define FLOE_TEXT_NAMES_DEFINE(type, what, names, last)                                                     \
	_Static_assert(sizeof(names) / sizeof((names)[0]) == (size_t)(last) + 1, "a name for every " what); \
	const char *type##_name(type value)                                                                 \
	{                                                                                                   \
		return (names)[value];                                                                      \
	}                                                                                                   \
	int type##_parse(type *out, const char *text)                                                       \
	{                                                                                                   \
		int i_ = floe_text_name_index(what, names, sizeof(names) / sizeof((names)[0]), text);       \
		if (i_ >= 0)                                                                                \
			*out = (type)i_;                                                                    \
		return i_ < 0 ? -1 : 0;                                                                     \
	}

#endif
