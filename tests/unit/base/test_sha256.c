/*
 * test_sha256.c — SHA-256 against the FIPS 180-4 / NIST CAVP vectors, and
 * streaming in pieces of every size against the one-shot digest.
 */
#include "harness.h"
#include "base/sha256.h"

#include <stdlib.h>

static void check_hex(const char *msg, size_t len, const char *want)
{
	char hex[FLOE_SHA256_HEX_LEN + 1];
	floe_sha256_hex(hex, msg, len);
	FLOE_CHECK_STR(hex, want);
}

FLOE_TEST(sha256_fips_vectors)
{
	check_hex("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	check_hex("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	check_hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
		  "klmnopqrlmnopqrsmnopqrstnopqrstu", 112,
		  "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
	check_hex("The quick brown fox jumps over the lazy dog", 43,
		  "d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592");
}

FLOE_TEST(sha256_million_a)
{
	size_t n = 1000000;
	char *a = malloc(n);
	memset(a, 'a', n);
	check_hex(a, n, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(a);
}

FLOE_TEST(sha256_streaming_matches_one_shot)
{
	unsigned char data[300];
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 7 + 3);
	for (size_t len = 0; len <= sizeof(data); len += 13) {
		char want[FLOE_SHA256_HEX_LEN + 1];
		floe_sha256_hex(want, data, len);
		for (size_t piece = 1; piece <= 70; piece += 23) {
			floe_sha256 ctx;
			unsigned char d[FLOE_SHA256_LEN];
			char got[FLOE_SHA256_HEX_LEN + 1];
			floe_sha256_init(&ctx);
			for (size_t off = 0; off < len; off += piece)
				floe_sha256_update(&ctx, data + off, len - off < piece ? len - off : piece);
			floe_sha256_final(d, &ctx);
			for (int i = 0; i < FLOE_SHA256_LEN; i++)
				snprintf(got + 2 * i, 3, "%02x", d[i]);
			FLOE_CHECK_STR(got, want);
		}
	}
}
