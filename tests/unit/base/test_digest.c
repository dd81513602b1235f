/*
 * test_digest.c — libcrypto's one-shot SHA-256 (hex) and MD5 (base64): the FIPS 180-4 and
 * RFC 1321 vectors, and agreement with base/sha256.c over a buffer larger than a block.
 */
#include "harness.h"
#include "base/digest.h"
#include "base/sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

FLOE_TEST(digest_sha256_vectors)
{
	char hex[FLOE_DIGEST_SHA256_HEX_LEN + 1];
	FLOE_CHECK(floe_digest_sha256_hex(hex, "abc", 3) == 0);
	FLOE_CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	FLOE_CHECK(floe_digest_sha256_hex(hex, NULL, 0) == 0);
	FLOE_CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

FLOE_TEST(digest_sha256_agrees_with_the_portable_one)
{
	size_t n = 3 * 1000 * 1000 + 17;
	unsigned char *data = malloc(n);
	char a[FLOE_DIGEST_SHA256_HEX_LEN + 1], b[FLOE_SHA256_HEX_LEN + 1];
	for (size_t i = 0; i < n; i++)
		data[i] = (unsigned char)(i * 2654435761u >> 13);
	unsigned char d[FLOE_SHA256_LEN];
	floe_sha256 ctx; /* the portable stream (floe_sha256_hex itself goes through libcrypto) */
	floe_sha256_init(&ctx);
	floe_sha256_update(&ctx, data, n);
	floe_sha256_final(d, &ctx);
	for (int i = 0; i < FLOE_SHA256_LEN; i++)
		snprintf(b + 2 * i, 3, "%02x", d[i]);
	FLOE_CHECK(floe_digest_sha256_hex(a, data, n) == 0);
	FLOE_CHECK_STR(a, b);
	free(data);
}

FLOE_TEST(digest_md5_base64_vectors)
{
	char b64[FLOE_DIGEST_MD5_BASE64_LEN + 1];
	FLOE_CHECK(floe_digest_md5_base64(b64, NULL, 0) == 0);
	FLOE_CHECK_STR(b64, "1B2M2Y8AsgTpgAmY7PhCfg=="); /* d41d8cd98f00b204e9800998ecf8427e */
	FLOE_CHECK(floe_digest_md5_base64(b64, "abc", 3) == 0);
	FLOE_CHECK_STR(b64, "kAFQmDzST7DWlj99KOF/cg=="); /* 900150983cd24fb0d6963f7d28e17f72 */
}
