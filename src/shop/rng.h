/*
 * rng.h — the shop's deterministic randomness: xoshiro256** streams seeded
 * through splitmix64, and the samplers the profiles need.
 *
 * Every table, pool member and order draws from its own stream, named by
 * (seed, stream kind, index), so a value never depends on what was generated
 * before it, in which order, or on which thread. Same seed and index → same
 * numbers on every run of the same build. Streams are plain structs on the
 * caller's stack; nothing here allocates except floe_shop_dist_init.
 */
#ifndef FLOE_SHOP_RNG_H
#define FLOE_SHOP_RNG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct floe_shop_rng {
	uint64_t s[4];
} floe_shop_rng;

/* splitmix64: one step of the seeding generator (also a good 64-bit mixer). */
uint64_t floe_shop_splitmix64(uint64_t *state);

/* The stream `index` of kind `kind` under `seed`. */
void floe_shop_rng_init(floe_shop_rng *rng, uint64_t seed, uint32_t kind, uint64_t index);

uint64_t floe_shop_rng_next(floe_shop_rng *rng);

/* Uniform in [0, 1) with 53 random bits. */
double floe_shop_rng_uniform(floe_shop_rng *rng);

/* Uniform integer in [0, n) without modulo bias (n > 0). */
uint64_t floe_shop_rng_below(floe_shop_rng *rng, uint64_t n);

/* Uniform integer in [lo, hi], both included (lo <= hi). */
int64_t floe_shop_rng_range(floe_shop_rng *rng, int64_t lo, int64_t hi);

/* True with probability p. */
bool floe_shop_rng_chance(floe_shop_rng *rng, double p);

/* Standard normal (Box–Muller; always two uniforms, so draw counts are fixed). */
double floe_shop_rng_normal(floe_shop_rng *rng);

/* Log-normal with the given median and log-space standard deviation. */
double floe_shop_rng_lognormal(floe_shop_rng *rng, double median, double sigma);

/* Exponential with the given mean. */
double floe_shop_rng_exponential(floe_shop_rng *rng, double mean);

/* 16 random bytes shaped as an RFC 4122 version-4 UUID. */
void floe_shop_rng_uuid(floe_shop_rng *rng, uint8_t out[16]);

/*
 * A discrete distribution over 0..n-1 from non-negative weights (need not sum
 * to 1): the cumulative table, searched by bisection. floe_shop_dist_init
 * copies what it needs; free with floe_shop_dist_free.
 */
typedef struct floe_shop_dist {
	double *cum; /* cum[i] = sum of weights 0..i, normalised so cum[n-1] = 1 */
	size_t n;
} floe_shop_dist;

void floe_shop_dist_init(floe_shop_dist *dist, const double *weights, size_t n);
void floe_shop_dist_free(floe_shop_dist *dist);

/* The index whose cumulative share first exceeds u, for u in [0, 1). */
size_t floe_shop_dist_quantile(const floe_shop_dist *dist, double u);
size_t floe_shop_dist_sample(const floe_shop_dist *dist, floe_shop_rng *rng);

/* Probability of index i (for tests and reports). */
double floe_shop_dist_share(const floe_shop_dist *dist, size_t i);

#endif
