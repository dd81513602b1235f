/*
 * sha256.h — SHA-256 (FIPS 180-4): streaming and one-shot, with a hex form.
 *
 * Used for the hashes in lakehouse.lock.json (every generated file), stable
 * file-name suffixes, and later for checksums elsewhere. No allocation; a
 * context is a plain value the caller owns.
 */
#ifndef FLOE_BASE_SHA256_H
#define FLOE_BASE_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define FLOE_SHA256_LEN 32
#define FLOE_SHA256_HEX_LEN 64

typedef struct floe_sha256 {
	uint32_t state[8];
	uint64_t total;        /* bytes hashed so far */
	unsigned char block[64];
	size_t used;           /* bytes waiting in `block` */
} floe_sha256;

void floe_sha256_init(floe_sha256 *ctx);
void floe_sha256_update(floe_sha256 *ctx, const void *data, size_t len);
/* Write the digest to `out`; the context must be initialised again before reuse. */
void floe_sha256_final(unsigned char out[FLOE_SHA256_LEN], floe_sha256 *ctx);

/* Digest of `len` bytes as 64 lower-case hex digits and a NUL. */
void floe_sha256_hex(char out[FLOE_SHA256_HEX_LEN + 1], const void *data, size_t len);

#endif
