/*
 * hmac.h — HMAC-SHA256, computed by OpenSSL's libcrypto.
 *
 * The one module that calls libcrypto: silver's PII masking (floe_hmac() in the
 * engine) hashes through it, and `floe serve`'s tokens and sessions take their random
 * bytes from it, so floe never carries hand-written crypto.
 */
#ifndef FLOE_BASE_HMAC_H
#define FLOE_BASE_HMAC_H

#include <stddef.h>

#define FLOE_HMAC_HEX_LEN 64 /* SHA-256: 32 bytes, two hex digits each */

/*
 * HMAC-SHA256 of the `len` bytes at `msg` (may be NULL when len is 0) keyed by the
 * `key_len` bytes at `key`, as FLOE_HMAC_HEX_LEN lower-case hex digits and a NUL in
 * `out`. Fails (FLOE_ERR_INTERNAL, libcrypto's reason as detail) only when libcrypto does.
 */
int floe_hmac_sha256_hex(char out[FLOE_HMAC_HEX_LEN + 1], const void *key, size_t key_len, const void *msg,
			 size_t len);

/*
 * `n_bytes` (at most 64) bytes from libcrypto's CSPRNG (RAND_bytes) as 2*n_bytes lower-case hex
 * digits and a NUL in `out`. Fails (FLOE_ERR_INTERNAL) only when libcrypto cannot seed.
 */
int floe_hmac_random_hex(char *out, size_t n_bytes);

#endif
