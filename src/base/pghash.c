/*
 * pghash.c — lookup3's 64-bit hash as PostgreSQL's hash_bytes_extended computes it
 * on a little-endian server (see pghash.h). Byte-wise loads make it independent of
 * this machine's alignment and byte order.
 */
#include "base/pghash.h"

#include <math.h>
#include <string.h>

#define ROTL32(x, k) (((x) << (k)) | ((x) >> (32 - (k))))

/* The reversible mix of three lanes, applied after every 12-byte block. */
static inline void mix3(uint32_t *a, uint32_t *b, uint32_t *c)
{
	*a -= *c; *a ^= ROTL32(*c, 4);  *c += *b;
	*b -= *a; *b ^= ROTL32(*a, 6);  *a += *c;
	*c -= *b; *c ^= ROTL32(*b, 8);  *b += *a;
	*a -= *c; *a ^= ROTL32(*c, 16); *c += *b;
	*b -= *a; *b ^= ROTL32(*a, 19); *a += *c;
	*c -= *b; *c ^= ROTL32(*b, 4);  *b += *a;
}

/* The final avalanche of the three lanes. */
static inline void final3(uint32_t *a, uint32_t *b, uint32_t *c)
{
	*c ^= *b; *c -= ROTL32(*b, 14);
	*a ^= *c; *a -= ROTL32(*c, 11);
	*b ^= *a; *b -= ROTL32(*a, 25);
	*c ^= *b; *c -= ROTL32(*b, 16);
	*a ^= *c; *a -= ROTL32(*c, 4);
	*b ^= *a; *b -= ROTL32(*a, 14);
	*c ^= *b; *c -= ROTL32(*b, 24);
}

/* `n` (0..4) bytes at `p` as a little-endian word, missing high bytes zero. */
static inline uint32_t load_le(const unsigned char *p, size_t n)
{
	uint32_t w = 0;
	for (size_t i = 0; i < n; i++)
		w |= (uint32_t)p[i] << (8 * i);
	return w;
}

static inline size_t min_size(size_t x, size_t y)
{
	return x < y ? x : y;
}

uint64_t floe_pghash_extended(const void *data, size_t len, uint64_t seed)
{
	const unsigned char *k = data;
	/* The lanes start from the golden ratio, the length (as PostgreSQL's 32-bit
	 * length: values over 1 GB do not exist there) and lookup3's constant. */
	uint32_t a, b, c;
	a = b = c = 0x9e3779b9u + (uint32_t)len + 3923095u;
	if (seed != 0) {
		a += (uint32_t)(seed >> 32);
		b += (uint32_t)seed;
		mix3(&a, &b, &c);
	}
	size_t left = len;
	while (left >= 12) {
		a += load_le(k, 4);
		b += load_le(k + 4, 4);
		c += load_le(k + 8, 4);
		mix3(&a, &b, &c);
		k += 12;
		left -= 12;
	}
	/* The tail: bytes 0..3 into a, 4..7 into b, 8..10 into c shifted up one byte,
	 * because c's lowest byte is reserved for the length in lookup3. */
	a += load_le(k, min_size(left, 4));
	if (left > 4)
		b += load_le(k + 4, min_size(left - 4, 4));
	if (left > 8)
		c += load_le(k + 8, left - 8) << 8;
	final3(&a, &b, &c);
	return ((uint64_t)b << 32) | c;
}

uint64_t floe_pghash_uint32_extended(uint32_t k, uint64_t seed)
{
	uint32_t a, b, c;
	a = b = c = 0x9e3779b9u + (uint32_t)sizeof(uint32_t) + 3923095u;
	if (seed != 0) {
		a += (uint32_t)(seed >> 32);
		b += (uint32_t)seed;
		mix3(&a, &b, &c);
	}
	a += k;
	final3(&a, &b, &c);
	return ((uint64_t)b << 32) | c;
}

uint64_t floe_pghash_int8_extended(int64_t v, uint64_t seed)
{
	uint32_t lo = (uint32_t)(uint64_t)v, hi = (uint32_t)((uint64_t)v >> 32);
	return floe_pghash_uint32_extended(lo ^ (v >= 0 ? hi : ~hi), seed);
}

uint64_t floe_pghash_float8_extended(double v, uint64_t seed)
{
	unsigned char bytes[sizeof(double)];
	if (v == 0.0)
		return seed;
	if (isnan(v))
		v = (double)NAN;
	memcpy(bytes, &v, sizeof(bytes));
	return floe_pghash_extended(bytes, sizeof(bytes), seed);
}
