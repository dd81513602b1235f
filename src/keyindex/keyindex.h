/*
 * keyindex.h — where each key of a table's data files is: key → (data file, position), kept on
 * the local disk between runs, so that an incremental build finds the rows of a few thousand keys
 * without reading a million-row key column.
 *
 * It is a set of data files' keys, each file bound to its path and row count. Data files are
 * immutable, so an entry never goes stale: a file that is no longer live is simply not asked
 * about (the caller keeps only entries of its live files, deleted positions left out) and leaves
 * at the next floe_keyindex_prune. A miss means "no row" only for files the index holds: the
 * caller checks every live file with floe_keyindex_has_file first (and adds the others).
 *
 * Keys are `width` bytes: the key columns' fixed-width values one after another. Only the first
 * `prefix` bytes (the first column) are hashed, so a lookup gives a whole key or only its first
 * column (every key that starts with it).
 *
 * On disk, under `dir` (created when missing): segments — one per floe_keyindex_add: the files'
 * keys in row order and a hash table of them by the prefix's hash, a checksum per run of keys and
 * of slots checked before their first use — and `manifest`, naming the segments; each written to
 * a temporary file and renamed into place. It
 * is a cache: not fsynced, and a segment that is damaged (its size, its header's checksum) or not
 * of this key's layout is left out, so its files are not in the index and the caller reads them
 * again; a damaged run of entries found at a lookup fails that lookup (FLOE_ERR_CHECK) instead.
 * One process writes a directory at a time (the project's run lock).
 */
#ifndef FLOE_KEYINDEX_H
#define FLOE_KEYINDEX_H

#include "base/buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct floe_keyindex floe_keyindex;

/*
 * The directory of a table's key cache: <project>/.floe/keys/<table>.<id>-<id>…, the table's
 * name (any byte outside [a-z0-9_.] as %xx) and its key columns' field ids, so a key that
 * changes columns is another cache. Into `out` (cleared first).
 */
void floe_keyindex_dir(floe_buf *out, const char *project_dir, const char *table, const int *field_ids, size_t n);

/*
 * The index under `dir` for keys of `width` bytes hashed on their first `prefix` (1 ≤ prefix ≤
 * width ≤ 64). Never fails for what is on disk (a missing or unreadable index is empty); -1 only
 * when `dir` cannot be created. Free with floe_keyindex_free.
 */
int floe_keyindex_open(floe_keyindex **out, const char *dir, size_t width, size_t prefix);
void floe_keyindex_free(floe_keyindex *ix);

/* Whether an index was ever written under `dir` (its manifest is there). */
bool floe_keyindex_exists(const char *dir);

/* Whether the keys of the data file at `path` with `rows` rows are in the index. */
bool floe_keyindex_has_file(const floe_keyindex *ix, const char *path, int64_t rows);

/* One data file's keys: row i (its position) at keys + i × width (every row has one). */
typedef struct floe_keyindex_file {
	const char *path;
	int64_t rows;
	const uint8_t *keys;
} floe_keyindex_file;

/*
 * Add the keys of `files` (those the index holds already are skipped) as one new segment, and
 * name it in the manifest. The index is searchable with them at once.
 */
int floe_keyindex_add(floe_keyindex *ix, const floe_keyindex_file *files, size_t n);

/*
 * Call fn(ctx, path, position) for every entry whose first `len` bytes are `key`'s (len: the
 * width, or at least the prefix). `path` is the index's (valid until it is freed). Stops at fn's
 * first non-zero return and returns it; -1 with FLOE_ERR_CHECK set for a damaged segment.
 */
typedef int (*floe_keyindex_fn)(void *ctx, const char *path, int64_t pos);
int floe_keyindex_find(floe_keyindex *ix, const uint8_t *key, size_t len, floe_keyindex_fn fn, void *ctx);

/*
 * Keep only the files at `live` (n_live paths): segments holding none of them leave, and when
 * more than a few segments are left (or most of their entries are of files no longer live) the
 * live files' entries are written again as one segment.
 */
int floe_keyindex_prune(floe_keyindex *ix, const char *const *live, size_t n_live);

/* How many segments the index has (tests, -vv). */
size_t floe_keyindex_segments(const floe_keyindex *ix);

#endif
