/*
 * storage.h — where table files live, behind one ops struct: `local` (a directory,
 * `file:` URIs) now, object stores later.
 *
 * Every file a table operation writes is created, never replaced: create() fails
 * with FLOE_ERR_EXISTS when the name is taken, and returns only once the file and
 * its directory entry are durable (fsync). That, plus the catalog's compare-and-swap,
 * is what makes commits atomic and crash safe (src/iceberg/README.md).
 */
#ifndef FLOE_ICEBERG_STORAGE_H
#define FLOE_ICEBERG_STORAGE_H

#include "base/arena.h"
#include "base/buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct floe_iceberg_storage floe_iceberg_storage;

/* Called for every file under a prefix; return non-zero to stop the listing. */
typedef int (*floe_iceberg_list_fn)(void *ctx, const char *uri, int64_t size, int64_t mtime_ms);

typedef struct floe_iceberg_storage_ops {
	const char *name; /* "local" */
	/* Whether this backend serves `uri`. */
	bool (*handles)(void *state, const char *uri);
	/* Append the whole file to `out`. A missing file is FLOE_ERR_IO with "does not exist". */
	int (*read)(void *state, floe_buf *out, const char *uri);
	/* Create a new file with `data`, durably, creating parent directories; never replaces. */
	int (*create)(void *state, const char *uri, const void *data, size_t len);
	/* Delete a file; a missing file is not an error. */
	int (*remove)(void *state, const char *uri);
	/* Every file under the directory URI `prefix`, recursively; a missing prefix lists nothing. */
	int (*list)(void *state, const char *prefix, floe_iceberg_list_fn fn, void *ctx);
	/* Size of a file: 0 and *out, or -1 (error set). */
	int (*size)(void *state, const char *uri, int64_t *out);
	void (*close)(void *state);
} floe_iceberg_storage_ops;

/* A storage handle over `ops` and its `state` (owned: ops->close runs on free). */
floe_iceberg_storage *floe_iceberg_storage_new(const floe_iceberg_storage_ops *ops, void *state);
void floe_iceberg_storage_free(floe_iceberg_storage *storage);

/* The local file system: `file:///abs/path`, `file:/abs/path` or `/abs/path`. */
floe_iceberg_storage *floe_iceberg_storage_local(void);

int floe_iceberg_storage_read(floe_iceberg_storage *s, floe_buf *out, const char *uri);
int floe_iceberg_storage_create(floe_iceberg_storage *s, const char *uri, const void *data,
				size_t len);
int floe_iceberg_storage_remove(floe_iceberg_storage *s, const char *uri);
int floe_iceberg_storage_list(floe_iceberg_storage *s, const char *prefix, floe_iceberg_list_fn fn,
			      void *ctx);
int floe_iceberg_storage_size(floe_iceberg_storage *s, const char *uri, int64_t *out);

/*
 * The local path of a `file:` URI or absolute path, in `arena`; NULL when `uri` is
 * neither (no error set).
 */
const char *floe_iceberg_uri_to_path(floe_arena *arena, const char *uri);

/* `file:///abs/path` for a path (made absolute, normalised), in `arena`. */
const char *floe_iceberg_path_to_uri(floe_arena *arena, const char *path);

#endif
