/*
 * rng.c — xoshiro256** (Blackman & Vigna, 2018) seeded by splitmix64, and samplers.
 */
#include "shop/rng.h"
#include "base/arena.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>

uint64_t floe_shop_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void floe_shop_rng_init(floe_shop_rng *rng, uint64_t seed, uint32_t kind, uint64_t index)
{
	/* Mix the three parts through splitmix64 so nearby indexes give unrelated streams. */
	uint64_t st = seed;
	uint64_t a = floe_shop_splitmix64(&st);
	st = a ^ ((uint64_t)kind << 32 | kind);
	uint64_t b = floe_shop_splitmix64(&st);
	st = b ^ index;
	for (int i = 0; i < 4; i++)
		rng->s[i] = floe_shop_splitmix64(&st);
	if ((rng->s[0] | rng->s[1] | rng->s[2] | rng->s[3]) == 0)
		rng->s[0] = 1; /* the one state xoshiro cannot leave */
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t floe_shop_rng_next(floe_shop_rng *rng)
{
	uint64_t *s = rng->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double floe_shop_rng_uniform(floe_shop_rng *rng)
{
	return (double)(floe_shop_rng_next(rng) >> 11) * 0x1.0p-53;
}

uint64_t floe_shop_rng_below(floe_shop_rng *rng, uint64_t n)
{
	assert(n > 0);
	/* Lemire's multiply-shift with rejection of the biased low range. */
	unsigned __int128 m = (unsigned __int128)floe_shop_rng_next(rng) * n;
	uint64_t low = (uint64_t)m;
	if (low < n) {
		uint64_t threshold = -n % n;
		while (low < threshold) {
			m = (unsigned __int128)floe_shop_rng_next(rng) * n;
			low = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

int64_t floe_shop_rng_range(floe_shop_rng *rng, int64_t lo, int64_t hi)
{
	assert(lo <= hi);
	return lo + (int64_t)floe_shop_rng_below(rng, (uint64_t)(hi - lo) + 1);
}

bool floe_shop_rng_chance(floe_shop_rng *rng, double p)
{
	return floe_shop_rng_uniform(rng) < p;
}

double floe_shop_rng_normal(floe_shop_rng *rng)
{
	double u1 = floe_shop_rng_uniform(rng);
	double u2 = floe_shop_rng_uniform(rng);
	return sqrt(-2.0 * log(1.0 - u1)) * cos(2.0 * M_PI * u2);
}

double floe_shop_rng_lognormal(floe_shop_rng *rng, double median, double sigma)
{
	return median * exp(sigma * floe_shop_rng_normal(rng));
}

double floe_shop_rng_exponential(floe_shop_rng *rng, double mean)
{
	return -mean * log(1.0 - floe_shop_rng_uniform(rng));
}

void floe_shop_rng_uuid(floe_shop_rng *rng, uint8_t out[16])
{
	uint64_t a = floe_shop_rng_next(rng), b = floe_shop_rng_next(rng);
	for (int i = 0; i < 8; i++) {
		out[i] = (uint8_t)(a >> (56 - 8 * i));
		out[8 + i] = (uint8_t)(b >> (56 - 8 * i));
	}
	out[6] = (uint8_t)((out[6] & 0x0f) | 0x40); /* version 4 */
	out[8] = (uint8_t)((out[8] & 0x3f) | 0x80); /* RFC 4122 variant */
}

void floe_shop_dist_init(floe_shop_dist *dist, const double *weights, size_t n)
{
	assert(n > 0);
	double total = 0;
	for (size_t i = 0; i < n; i++) {
		assert(weights[i] >= 0);
		total += weights[i];
	}
	assert(total > 0);
	dist->cum = floe_xmalloc(n * sizeof(double));
	dist->n = n;
	double run = 0;
	for (size_t i = 0; i < n; i++) {
		run += weights[i];
		dist->cum[i] = run / total;
	}
	dist->cum[n - 1] = 1.0;
}

void floe_shop_dist_free(floe_shop_dist *dist)
{
	if (!dist)
		return;
	free(dist->cum);
	dist->cum = NULL;
	dist->n = 0;
}

size_t floe_shop_dist_quantile(const floe_shop_dist *dist, double u)
{
	size_t lo = 0, hi = dist->n - 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (u < dist->cum[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

size_t floe_shop_dist_sample(const floe_shop_dist *dist, floe_shop_rng *rng)
{
	return floe_shop_dist_quantile(dist, floe_shop_rng_uniform(rng));
}

double floe_shop_dist_share(const floe_shop_dist *dist, size_t i)
{
	assert(i < dist->n);
	return dist->cum[i] - (i ? dist->cum[i - 1] : 0.0);
}
