/*
 * sha256.c — SHA-256 as FIPS 180-4 specifies it, block by block (the stream); the one-shot hex
 * form goes through libcrypto.
 */
#include "base/sha256.h"
#include "base/digest.h"
#include "base/error.h"

#include <string.h>

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotr(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static void compress(uint32_t state[8], const unsigned char block[64])
{
	uint32_t w[64], s[8];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)block[4 * i] << 24 | (uint32_t)block[4 * i + 1] << 16 |
		       (uint32_t)block[4 * i + 2] << 8 | (uint32_t)block[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	memcpy(s, state, sizeof(s));
	for (int i = 0; i < 64; i++) {
		uint32_t e = s[4], a = s[0];
		uint32_t t1 = s[7] + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & s[5]) ^ (~e & s[6])) +
			      K[i] + w[i];
		uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & s[1]) ^ (a & s[2]) ^ (s[1] & s[2]));
		memmove(s + 1, s, 7 * sizeof(uint32_t));
		s[4] += t1;
		s[0] = t1 + t2;
	}
	for (int i = 0; i < 8; i++)
		state[i] += s[i];
}

void floe_sha256_init(floe_sha256 *ctx)
{
	static const uint32_t iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
					0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	memcpy(ctx->state, iv, sizeof(iv));
	ctx->total = 0;
	ctx->used = 0;
}

void floe_sha256_update(floe_sha256 *ctx, const void *data, size_t len)
{
	const unsigned char *p = data;
	ctx->total += len;
	while (len > 0) {
		size_t take = 64 - ctx->used < len ? 64 - ctx->used : len;
		memcpy(ctx->block + ctx->used, p, take);
		ctx->used += take;
		p += take;
		len -= take;
		if (ctx->used == 64) {
			compress(ctx->state, ctx->block);
			ctx->used = 0;
		}
	}
}

void floe_sha256_final(unsigned char out[FLOE_SHA256_LEN], floe_sha256 *ctx)
{
	uint64_t bits = ctx->total * 8;
	unsigned char pad[72] = { 0x80 };
	/* Pad to 56 mod 64, then the message length in bits, big-endian. */
	size_t npad = ctx->used < 56 ? 56 - ctx->used : 120 - ctx->used;
	for (int i = 0; i < 8; i++)
		pad[npad + (size_t)i] = (unsigned char)(bits >> (56 - 8 * i));
	floe_sha256_update(ctx, pad, npad + 8);
	for (int i = 0; i < 8; i++) {
		out[4 * i] = (unsigned char)(ctx->state[i] >> 24);
		out[4 * i + 1] = (unsigned char)(ctx->state[i] >> 16);
		out[4 * i + 2] = (unsigned char)(ctx->state[i] >> 8);
		out[4 * i + 3] = (unsigned char)ctx->state[i];
	}
}

/* One shot through libcrypto (base/digest.h: hardware SHA where the processor has it); the
 * portable stream above only if libcrypto fails, which it does not for SHA-256 of a buffer. */
void floe_sha256_hex(char out[FLOE_SHA256_HEX_LEN + 1], const void *data, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	unsigned char d[FLOE_SHA256_LEN];
	floe_sha256 ctx;
	if (floe_digest_sha256_hex(out, data, len) == 0)
		return;
	floe_error_clear();
	floe_sha256_init(&ctx);
	floe_sha256_update(&ctx, data, len);
	floe_sha256_final(d, &ctx);
	for (int i = 0; i < FLOE_SHA256_LEN; i++) {
		out[2 * i] = digits[d[i] >> 4];
		out[2 * i + 1] = digits[d[i] & 15];
	}
	out[FLOE_SHA256_HEX_LEN] = '\0';
}
