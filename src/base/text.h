/*
 * text.h — small text utilities: edit distance and "did you mean" suggestions,
 * strict number parsing (no atoi).
 */
#ifndef FLOE_BASE_TEXT_H
#define FLOE_BASE_TEXT_H

#include <stddef.h>
#include <stdint.h>

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

#endif
