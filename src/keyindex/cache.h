/*
 * cache.h — what the key caches under the project's state directory share (keyindex.c,
 * keyfile.c): their directory per table and key, a fast checksum of their bytes, writing one
 * file through a temporary one renamed into place, and mapping one for reading.
 *
 * They are caches: written without fsync, checked by their checksums when read, and a missing
 * or damaged file is only a slower path for their callers. Module-internal.
 */
#ifndef FLOE_KEYINDEX_CACHE_H
#define FLOE_KEYINDEX_CACHE_H

#include "base/buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

static inline uint64_t floe_cache_mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

/* A running checksum of n bytes, continuing from h (0 to start). */
uint64_t floe_cache_checksum(uint64_t h, const uint8_t *p, size_t n);

/*
 * Write the `n` pieces of `iov` (consumed) to dir/name through dir/.name.tmp renamed into
 * place (no fsync: a cache). -1 with FLOE_ERR_IO set.
 */
int floe_cache_write(const char *dir, const char *name, struct iovec *iov, size_t n);

/* Map the file at `path` read-only: 0, or -1 when it is missing or cannot be mapped (no error set). */
int floe_cache_map(const char *path, uint8_t **map, size_t *len);

/* Remove each file under `dir` whose name `doomed` says so (dot files included). */
void floe_cache_remove_where(const char *dir, bool (*doomed)(const char *name, void *ctx), void *ctx);

/* Whether a file name is one floe_cache_write's temporaries (".name.tmp"). */
bool floe_cache_is_temporary(const char *name);

/* Remove dir's temporary files (".*.tmp") that a killed writer left; one process writes a directory at a time. */
void floe_cache_sweep(const char *dir);

#endif
