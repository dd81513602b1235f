/*
 * test_rle_snappy.c — the RLE/bit-packed hybrid (golden bytes from the Parquet encoding
 * spec, round trips at every width, hostile runs) and the Snappy codec (round trips,
 * a golden block, malformed blocks).
 */
#include "harness.h"

#include "base/arena.h"
#include "base/buf.h"
#include "format/parquet_int.h"
#include "format/snappy.h"

#include <stdint.h>
#include <stdlib.h>

static uint64_t rng_state = 12345;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

FLOE_TEST(rle_golden_bit_packed)
{
	/* Encodings.md: 0..7 at width 3 bit-packed is header 0x03, then 0x88 0xC6 0xFA. */
	const uint32_t v[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	floe_buf b = FLOE_BUF_INIT;
	FLOE_CHECK(pq_rle_encode(&b, v, 8, 3) == 0);
	FLOE_CHECK(b.len == 4 && (uint8_t)b.ptr[0] == 0x03 && (uint8_t)b.ptr[1] == 0x88 &&
		   (uint8_t)b.ptr[2] == 0xC6 && (uint8_t)b.ptr[3] == 0xFA);
	floe_buf_free(&b);
}

FLOE_TEST(rle_golden_run)
{
	/* 100 ones at width 1: one RLE run, header 100 << 1 = 200 (varint c8 01), value 01. */
	uint8_t lv[100];
	memset(lv, 1, sizeof(lv));
	floe_buf b = FLOE_BUF_INIT;
	FLOE_CHECK(pq_rle_encode_u8(&b, lv, 100, 1) == 0);
	FLOE_CHECK(b.len == 3 && (uint8_t)b.ptr[0] == 0xC8 && (uint8_t)b.ptr[1] == 0x01 &&
		   (uint8_t)b.ptr[2] == 0x01);
	floe_buf_free(&b);
}

static bool round_trip(const uint32_t *v, size_t n, int width)
{
	floe_buf b = FLOE_BUF_INIT;
	uint32_t *out = floe_xmalloc((n + 1) * sizeof(uint32_t));
	bool ok = pq_rle_encode(&b, v, n, width) == 0;
	pq_rle_decoder d;
	pq_rle_decoder_init(&d, (const uint8_t *)b.ptr, b.len, width);
	ok = ok && pq_rle_decode(&d, out, n) == 0 && memcmp(out, v, n * sizeof(uint32_t)) == 0;
	/* The byte encoder agrees with the word encoder. */
	if (ok && width <= 8) {
		uint8_t *v8 = floe_xmalloc(n + 1);
		floe_buf b8 = FLOE_BUF_INIT;
		for (size_t i = 0; i < n; i++)
			v8[i] = (uint8_t)v[i];
		ok = pq_rle_encode_u8(&b8, v8, n, width) == 0;
		pq_rle_decoder_init(&d, (const uint8_t *)b8.ptr, b8.len, width);
		ok = ok && pq_rle_decode(&d, out, n) == 0 && memcmp(out, v, n * sizeof(uint32_t)) == 0;
		floe_buf_free(&b8);
		free(v8);
	}
	floe_buf_free(&b);
	free(out);
	return ok;
}

FLOE_TEST(rle_round_trips_every_width)
{
	size_t n = 5000;
	uint32_t *v = floe_xmalloc(n * sizeof(uint32_t));
	for (int width = 1; width <= 32; width++) {
		uint64_t mask = width == 32 ? 0xFFFFFFFFu : ((1u << width) - 1);
		/* Random values, runs of every length, and a mix. */
		for (size_t i = 0; i < n; i++)
			v[i] = (uint32_t)(rnd() & mask);
		FLOE_CHECK(round_trip(v, n, width));
		for (size_t i = 0; i < n; i++)
			v[i] = (uint32_t)((i / (1 + i % 23)) & mask);
		FLOE_CHECK(round_trip(v, n, width));
		for (size_t i = 0; i < n; i++)
			v[i] = (i % 100 < 60) ? (uint32_t)mask : (uint32_t)(rnd() & mask);
		FLOE_CHECK(round_trip(v, n, width));
		/* Short tails of every length. */
		for (size_t k = 0; k < 20; k++)
			FLOE_CHECK(round_trip(v, k, width));
	}
	free(v);
}

FLOE_TEST(rle_decoder_refuses_hostile_runs)
{
	uint32_t out[16];
	pq_rle_decoder d;
	/* A bit-packed run promising more groups than there are bytes. */
	const uint8_t packed[] = { 0x05, 0xFF };
	pq_rle_decoder_init(&d, packed, sizeof(packed), 3);
	FLOE_CHECK(pq_rle_decode(&d, out, 16) < 0);
	/* An RLE run whose value is wider than the bit width. */
	const uint8_t wide[] = { 0x10, 0x05 };
	pq_rle_decoder_init(&d, wide, sizeof(wide), 2);
	FLOE_CHECK(pq_rle_decode(&d, out, 8) < 0);
	/* A zero-length run (it would never end). */
	const uint8_t empty[] = { 0x00, 0x01 };
	pq_rle_decoder_init(&d, empty, sizeof(empty), 1);
	FLOE_CHECK(pq_rle_decode(&d, out, 1) < 0);
	/* Data ending before the values asked for. */
	const uint8_t few[] = { 0x04, 0x01 };
	pq_rle_decoder_init(&d, few, sizeof(few), 1);
	FLOE_CHECK(pq_rle_decode(&d, out, 3) < 0);
	/* Width 0: all zeros, no data needed. */
	pq_rle_decoder_init(&d, NULL, 0, 0);
	FLOE_CHECK(pq_rle_decode(&d, out, 16) == 0 && out[15] == 0);
}

FLOE_TEST(bit_widths)
{
	FLOE_CHECK(pq_bit_width(0) == 0 && pq_bit_width(1) == 1 && pq_bit_width(2) == 2);
	FLOE_CHECK(pq_bit_width(255) == 8 && pq_bit_width(256) == 9);
	FLOE_CHECK(pq_bit_width(UINT32_MAX) == 32);
}

static bool snappy_round_trip(const uint8_t *in, size_t len)
{
	uint8_t *c = floe_xmalloc(floe_snappy_max_compressed(len));
	uint8_t *d = floe_xmalloc(len + 1);
	size_t n = floe_snappy_compress(c, in, len);
	size_t declared = 0;
	bool ok = n <= floe_snappy_max_compressed(len) &&
		  floe_snappy_uncompressed_length(&declared, c, n) == 0 && declared == len &&
		  floe_snappy_decompress(d, len, c, n) == 0 && (len == 0 || memcmp(d, in, len) == 0);
	free(c);
	free(d);
	return ok;
}

FLOE_TEST(snappy_round_trips)
{
	size_t n = 300000;
	uint8_t *buf = floe_xmalloc(n);
	FLOE_CHECK(snappy_round_trip(buf, 0));
	for (size_t i = 0; i < n; i++)
		buf[i] = (uint8_t)rnd();
	FLOE_CHECK(snappy_round_trip(buf, n)); /* incompressible: literals only */
	for (size_t i = 0; i < n; i++)
		buf[i] = (uint8_t)("abcabcabd"[i % 9]);
	FLOE_CHECK(snappy_round_trip(buf, n)); /* long overlapping copies */
	memset(buf, 7, n);
	FLOE_CHECK(snappy_round_trip(buf, n));
	for (size_t i = 0; i < n; i++)
		buf[i] = (i / 1000) % 2 ? (uint8_t)rnd() : (uint8_t)(i % 7);
	FLOE_CHECK(snappy_round_trip(buf, n));
	for (size_t k = 1; k < 70; k++)
		FLOE_CHECK(snappy_round_trip(buf, k));
	free(buf);
}

FLOE_TEST(snappy_golden_block)
{
	/* "Wikipedia" example form: length 9, literal "abc", copy offset 3 length 6. */
	const uint8_t block[] = { 0x09, 0x08, 'a', 'b', 'c', 0x09, 0x03 };
	uint8_t out[9];
	FLOE_CHECK(floe_snappy_decompress(out, 9, block, sizeof(block)) == 0);
	FLOE_CHECK(memcmp(out, "abcabcabc", 9) == 0);
}

FLOE_TEST(snappy_refuses_malformed_blocks)
{
	uint8_t out[16];
	const uint8_t zero_offset[] = { 0x04, 0x00, 'a', 0x01, 0x00 };
	FLOE_CHECK(floe_snappy_decompress(out, 4, zero_offset, sizeof(zero_offset)) < 0);
	const uint8_t far_offset[] = { 0x05, 0x00, 'a', 0x01, 0x09 };
	FLOE_CHECK(floe_snappy_decompress(out, 5, far_offset, sizeof(far_offset)) < 0);
	const uint8_t long_literal[] = { 0x03, 0x10, 'a' };
	FLOE_CHECK(floe_snappy_decompress(out, 3, long_literal, sizeof(long_literal)) < 0);
	const uint8_t overflow[] = { 0x02, 0x08, 'a', 'b', 'c' };
	FLOE_CHECK(floe_snappy_decompress(out, 2, overflow, sizeof(overflow)) < 0);
	const uint8_t short_out[] = { 0x04, 0x00, 'a' };
	FLOE_CHECK(floe_snappy_decompress(out, 4, short_out, sizeof(short_out)) < 0);
	const uint8_t wrong_size[] = { 0x05, 0x00, 'a' };
	FLOE_CHECK(floe_snappy_decompress(out, 1, wrong_size, sizeof(wrong_size)) < 0);
	size_t n;
	const uint8_t bad_varint[] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01 };
	FLOE_CHECK(floe_snappy_uncompressed_length(&n, bad_varint, sizeof(bad_varint)) < 0);
}
