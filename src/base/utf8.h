/*
 * utf8.h — UTF-8 validation and encoding for the readers (TOML, JSON).
 *
 * "Valid" is RFC 3629: shortest form only, no surrogates, nothing past U+10FFFF.
 */
#ifndef FLOE_BASE_UTF8_H
#define FLOE_BASE_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Length (1..4) of the valid sequence at `s`, which has `avail` > 0 bytes; 0 if invalid. */
size_t floe_utf8_len(const char *s, size_t avail);

/* Encode the scalar value `cp` (not a surrogate, <= U+10FFFF) into `out`; returns 1..4. */
size_t floe_utf8_put(char out[4], uint32_t cp);

#endif
