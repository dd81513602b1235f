/*
 * pghash.h — PostgreSQL's 64-bit text hash, computed outside PostgreSQL.
 *
 * `hashtextextended(text, seed)` (PostgreSQL ≥ 11) hashes a value's bytes with
 * Bob Jenkins' lookup3 (2006) in its 64-bit form: three 32-bit lanes set up
 * from the length, perturbed by the seed, mixed twelve bytes at a time, the
 * last up-to-eleven bytes added in little-endian order, and the final mix's
 * lanes b and c returned as (b << 32) | c. This is that function, written for
 * floe from the algorithm's description, so the lake side of reconciliation
 * (DuckDB, through src/engine) computes the very numbers the source computes.
 *
 * PostgreSQL reads words in the server's byte order; this code matches servers
 * on little-endian machines (x86-64, arm64 Linux) — reconciliation checks a
 * probe value against the server before trusting it. Text hashes the value's
 * bytes under a deterministic collation, as here.
 */
#ifndef FLOE_BASE_PGHASH_H
#define FLOE_BASE_PGHASH_H

#include <stddef.h>
#include <stdint.h>

/* hashtextextended(`len` bytes at `data`, seed) as PostgreSQL's uint64 (its int8 result, cast). */
uint64_t floe_pghash_extended(const void *data, size_t len, uint64_t seed);

/*
 * hashint4extended(k, seed): lookup3 of one 32-bit word, the same as
 * floe_pghash_extended over its four little-endian bytes, computed without
 * memory. PostgreSQL hashes smallint, integer, boolean and date values this way.
 */
uint64_t floe_pghash_uint32_extended(uint32_t k, uint64_t seed);

/*
 * hashint8extended(v, seed): the value folded to 32 bits — the low word XOR the
 * high word, the high word inverted when v is negative — then hashed as above.
 * Many values share a fold (0 and 2^32 + 1 do): a caller that must tell every
 * value apart also hashes the high word.
 */
uint64_t floe_pghash_int8_extended(int64_t v, uint64_t seed);

/*
 * hashfloat8extended(v, seed): zero (either sign) hashes to the seed itself, every NaN
 * as the one NaN PostgreSQL makes, anything else as the value's eight bytes. A float4
 * widened to double hashes the same (hashfloat4extended widens before hashing), so
 * equal values hash equal across the two types, as PostgreSQL's float = does.
 */
uint64_t floe_pghash_float8_extended(double v, uint64_t seed);

#endif
