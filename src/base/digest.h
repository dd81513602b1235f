/*
 * digest.h — one-shot message digests of a buffer through libcrypto (hardware SHA and MD5 where
 * the processor has them): for the S3 backend's payload hashes and integrity headers, where a
 * whole 8 MiB part is hashed per request, and under floe_sha256_hex (base/sha256.h), whose
 * streaming form stays portable.
 */
#ifndef FLOE_BASE_DIGEST_H
#define FLOE_BASE_DIGEST_H

#include <stddef.h>

#define FLOE_DIGEST_SHA256_HEX_LEN 64
#define FLOE_DIGEST_MD5_BASE64_LEN 24

/* SHA-256 of `len` bytes as 64 lower-case hex digits and a NUL; 0, or -1 with the error set. */
int floe_digest_sha256_hex(char out[FLOE_DIGEST_SHA256_HEX_LEN + 1], const void *data, size_t len);

/* MD5 of `len` bytes in base64 (Content-MD5's form) and a NUL; 0, or -1 with the error set. */
int floe_digest_md5_base64(char out[FLOE_DIGEST_MD5_BASE64_LEN + 1], const void *data, size_t len);

#endif
