/*
 * snappy.c — Snappy block compression and decompression (see snappy.h).
 *
 * Element tags (low two bits of the tag byte):
 *   00 literal: length-1 in the upper six bits when < 60, else 60..63 say that 1..4
 *      little-endian bytes of length-1 follow; then the bytes.
 *   01 copy, length 4..11 ((tag >> 2 & 7) + 4), offset 11 bits: (tag >> 5) << 8 | next byte.
 *   10 copy, length 1..64 ((tag >> 2) + 1), offset 2 bytes little-endian.
 *   11 copy, length 1..64, offset 4 bytes little-endian.
 * A copy may overlap its own output (offset < length): it repeats a pattern.
 */
#include "format/snappy.h"

#include <string.h>

#define BLOCK_SIZE 65536
#define HASH_BITS 14

size_t floe_snappy_max_compressed(size_t len)
{
	return 32 + len + len / 6;
}

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static uint32_t load32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static uint32_t hash32(uint32_t v)
{
	return (v * 0x1E35A7BDu) >> (32 - HASH_BITS);
}

static uint8_t *emit_literal(uint8_t *op, const uint8_t *lit, size_t len)
{
	size_t n = len - 1;
	if (n < 60) {
		*op++ = (uint8_t)(n << 2);
	} else {
		int bytes = n < 0x100 ? 1 : n < 0x10000 ? 2 : n < 0x1000000 ? 3 : 4;
		*op++ = (uint8_t)((59 + bytes) << 2);
		for (int i = 0; i < bytes; i++)
			*op++ = (uint8_t)(n >> (8 * i));
	}
	memcpy(op, lit, len);
	return op + len;
}

/* One copy element of length 4..64 (or 1..64 with a 2-byte offset). */
static uint8_t *emit_copy_one(uint8_t *op, size_t offset, size_t len)
{
	if (len >= 4 && len <= 11 && offset < 2048) {
		*op++ = (uint8_t)(1 | (len - 4) << 2 | (offset >> 8) << 5);
		*op++ = (uint8_t)offset;
	} else {
		*op++ = (uint8_t)(2 | (len - 1) << 2);
		*op++ = (uint8_t)offset;
		*op++ = (uint8_t)(offset >> 8);
	}
	return op;
}

static uint8_t *emit_copy(uint8_t *op, size_t offset, size_t len)
{
	/* Keep the last piece at least 4 long so it can use the short form when it fits. */
	while (len >= 68) {
		op = emit_copy_one(op, offset, 64);
		len -= 64;
	}
	if (len > 64) {
		op = emit_copy_one(op, offset, 60);
		len -= 60;
	}
	return emit_copy_one(op, offset, len);
}

/* Compress one block (≤ 64 KiB, so every offset fits two bytes). */
static uint8_t *compress_block(uint8_t *op, const uint8_t *in, size_t len, uint16_t *table)
{
	const uint8_t *ip = in, *end = in + len, *lit = in;
	if (len < 15)
		goto tail;
	memset(table, 0, sizeof(uint16_t) << HASH_BITS);
	const uint8_t *limit = end - 4;
	ip++;
	uint32_t skip = 32;
	while (ip < limit) {
		uint32_t cur = load32(ip);
		uint32_t h = hash32(cur);
		const uint8_t *cand = in + table[h];
		table[h] = (uint16_t)(ip - in);
		if (cand >= ip || load32(cand) != cur) {
			/* No match: move faster the longer we go without one. */
			ip += skip++ >> 5;
			continue;
		}
		skip = 32;
		if (ip > lit)
			op = emit_literal(op, lit, (size_t)(ip - lit));
		const uint8_t *m = ip + 4, *c = cand + 4;
		while (m < end && *m == *c) {
			m++;
			c++;
		}
		op = emit_copy(op, (size_t)(ip - cand), (size_t)(m - ip));
		ip = lit = m;
		if (ip < limit && ip - 1 > in)
			table[hash32(load32(ip - 1))] = (uint16_t)(ip - 1 - in);
	}
tail:
	if (end > lit)
		op = emit_literal(op, lit, (size_t)(end - lit));
	return op;
}

size_t floe_snappy_compress(uint8_t *out, const uint8_t *in, size_t len)
{
	uint16_t table[1 << HASH_BITS];
	uint8_t *op = put_varint(out, len);
	for (size_t pos = 0; pos < len; pos += BLOCK_SIZE) {
		size_t n = len - pos < BLOCK_SIZE ? len - pos : BLOCK_SIZE;
		op = compress_block(op, in + pos, n, table);
	}
	return (size_t)(op - out);
}

int floe_snappy_uncompressed_length(size_t *out, const uint8_t *in, size_t len)
{
	uint64_t v = 0;
	for (size_t i = 0; i < len && i < 5; i++) {
		v |= (uint64_t)(in[i] & 0x7F) << (7 * i);
		if (!(in[i] & 0x80)) {
			if (v > UINT32_MAX)
				return -1;
			*out = (size_t)v;
			return 0;
		}
	}
	return -1;
}

static size_t varint_size(const uint8_t *in, size_t len)
{
	size_t i = 0;
	while (i < len && (in[i] & 0x80))
		i++;
	return i + 1;
}

int floe_snappy_decompress(uint8_t *out, size_t out_len, const uint8_t *in, size_t len)
{
	size_t declared;
	if (floe_snappy_uncompressed_length(&declared, in, len) < 0 || declared != out_len)
		return -1;
	const uint8_t *ip = in + varint_size(in, len), *end = in + len;
	size_t o = 0;
	while (ip < end) {
		uint8_t tag = *ip++;
		size_t n, offset;
		switch (tag & 3) {
		case 0:
			n = tag >> 2;
			if (n >= 60) {
				size_t bytes = n - 59;
				if ((size_t)(end - ip) < bytes)
					return -1;
				n = 0;
				for (size_t i = 0; i < bytes; i++)
					n |= (size_t)ip[i] << (8 * i);
				ip += bytes;
			}
			n += 1;
			if ((size_t)(end - ip) < n || out_len - o < n)
				return -1;
			memcpy(out + o, ip, n);
			ip += n;
			o += n;
			continue;
		case 1:
			if (end - ip < 1)
				return -1;
			n = ((tag >> 2) & 7) + 4;
			offset = (size_t)(tag >> 5) << 8 | ip[0];
			ip += 1;
			break;
		case 2:
			if (end - ip < 2)
				return -1;
			n = (size_t)(tag >> 2) + 1;
			offset = (size_t)ip[0] | (size_t)ip[1] << 8;
			ip += 2;
			break;
		default:
			if (end - ip < 4)
				return -1;
			n = (size_t)(tag >> 2) + 1;
			offset = (size_t)ip[0] | (size_t)ip[1] << 8 | (size_t)ip[2] << 16 |
				 (size_t)ip[3] << 24;
			ip += 4;
			break;
		}
		if (offset == 0 || offset > o || out_len - o < n)
			return -1;
		if (offset >= n) {
			memcpy(out + o, out + o - offset, n);
		} else {
			for (size_t i = 0; i < n; i++)
				out[o + i] = out[o + i - offset];
		}
		o += n;
	}
	return o == out_len ? 0 : -1;
}
