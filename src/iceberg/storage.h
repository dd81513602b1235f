/*
 * storage.h — where table files live, behind one ops struct: `local` (a directory,
 * `file:` URIs) and `memory` (tests, with fault injection) now, object stores later.
 * Every byte of the warehouse goes through here; no module above opens a path.
 *
 * Objects are written through a writer handle that publishes on close: nothing is
 * visible at the final URI until floe_iceberg_writer_close() succeeds, and a failed
 * close or an abort leaves nothing behind. Publishing creates, never replaces: it
 * fails with FLOE_ERR_EXISTS when the name is taken, and returns only once the
 * object is durable (local: the file and its directory entry fsynced). That, plus
 * the catalog's compare-and-swap, is what makes commits atomic and crash safe
 * (src/iceberg/README.md). Objects are read through a reader handle: the size, and
 * exact ranged reads.
 *
 * Every call returns 0 or -1 with the error chain set; the message names the URI,
 * and floe_iceberg_storage_error_kind() classifies the cause (not found, exists, no
 * space, permission, I/O) from the errno behind it, never from the message text.
 */
#ifndef FLOE_ICEBERG_STORAGE_H
#define FLOE_ICEBERG_STORAGE_H

#include "base/arena.h"
#include "base/buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct floe_iceberg_storage floe_iceberg_storage;
typedef struct floe_iceberg_writer floe_iceberg_writer;
typedef struct floe_iceberg_reader floe_iceberg_reader;

/* Called for every object under a prefix, in URI order; return non-zero to stop. */
typedef int (*floe_iceberg_list_fn)(void *ctx, const char *uri, int64_t size, int64_t mtime_ms);

/*
 * A backend. Handles (`void *h`) are the backend's own; the dispatch layer wraps
 * them, keeps `uri` alive until discard/close_read, and composes the whole-object
 * calls (read, create, size) from these. Each op sets the error chain on failure,
 * with the errno behind it (floe_error_set_errno or floe_error_errno).
 */
typedef struct floe_iceberg_storage_ops {
	const char *name; /* "local", "memory" */
	/* Whether this backend serves `uri`. */
	bool (*handles)(void *state, const char *uri);
	/* Start an object at `uri`; fails with FLOE_ERR_EXISTS when one is there already. */
	int (*open_write)(void *state, void **h, const char *uri);
	int (*write)(void *h, const void *data, size_t len);
	/* Make the object visible and durable, never replacing one; on failure nothing is visible. */
	int (*publish)(void *h);
	/* Free a write handle, removing whatever an unpublished one left. */
	void (*discard)(void *h);
	/* Open an object for reading; its size in *size. */
	int (*open_read)(void *state, void **h, int64_t *size, const char *uri);
	/* Up to `len` bytes at `offset` into `buf`, count in *got (0 only at the end). */
	int (*pread)(void *h, void *buf, size_t len, int64_t offset, size_t *got);
	void (*close_read)(void *h);
	/* Whether an object is at `uri`, and its size (0 when not). */
	int (*stat)(void *state, const char *uri, bool *exists, int64_t *size);
	/* Delete an object; a missing one is not an error. */
	int (*remove)(void *state, const char *uri);
	/* Every object under the directory URI `prefix`, recursively; a missing prefix lists nothing. */
	int (*list)(void *state, const char *prefix, floe_iceberg_list_fn fn, void *ctx);
	/* What an embedded engine (DuckDB) opens for `uri`, in `arena`; NULL: none can. */
	const char *(*engine_uri)(void *state, floe_arena *arena, const char *uri);
	/* Optional: publish the closed local file `path` as the object at `uri` without copying it
	   (durable, never replacing; `path` removed): 1, 0 when it cannot (another file system), -1. */
	int (*adopt)(void *state, const char *uri, const char *path);
	void (*close)(void *state);
} floe_iceberg_storage_ops;

/* A storage handle over `ops` and its `state` (owned: ops->close runs on free). */
floe_iceberg_storage *floe_iceberg_storage_new(const floe_iceberg_storage_ops *ops, void *state);
void floe_iceberg_storage_free(floe_iceberg_storage *storage);

/* The backend state of `s` when it runs `ops`, else NULL (for backend-specific calls). */
void *floe_iceberg_storage_backend(floe_iceberg_storage *s, const floe_iceberg_storage_ops *ops);

/* The local file system: `file:///abs/path`, `file:/abs/path` or `/abs/path`. */
floe_iceberg_storage *floe_iceberg_storage_local(void);

/* ---- byte streams ---- */

/*
 * Open `uri` for writing. The object appears at `uri` only when
 * floe_iceberg_writer_close() succeeds (local: a temporary `<name>.tmp-XXXXXX` in the
 * same directory, fsynced, link(2)ed into place, the directory fsynced). Fails with
 * FLOE_ERR_EXISTS at once when the name is taken. *out is owned by the caller, who
 * must close or abort it.
 */
int floe_iceberg_storage_open_write(floe_iceberg_writer **out, floe_iceberg_storage *s,
				    const char *uri);
/* Append bytes. After a failure the writer only accepts close (which fails) or abort. */
int floe_iceberg_writer_write(floe_iceberg_writer *w, const void *data, size_t len);
/* Bytes written so far: the offset the next write lands at. */
int64_t floe_iceberg_writer_offset(const floe_iceberg_writer *w);
/* The URI the writer publishes to (borrowed, valid until close or abort). */
const char *floe_iceberg_writer_uri(const floe_iceberg_writer *w);
/*
 * Publish and free `w`. 0: the object is at its URI, complete and durable. -1: nothing
 * is at the URI that this writer put there (a taken name is FLOE_ERR_EXISTS and the
 * object already there is untouched).
 */
int floe_iceberg_writer_close(floe_iceberg_writer *w);
/* Free `w` without publishing; removes its temporary. Accepts NULL. */
void floe_iceberg_writer_abort(floe_iceberg_writer *w);

/* Open `uri` for reading; a missing object fails with the not-found kind. */
int floe_iceberg_storage_open_read(floe_iceberg_reader **out, floe_iceberg_storage *s,
				   const char *uri);
/* The object's size in bytes, as of open. */
int64_t floe_iceberg_reader_size(const floe_iceberg_reader *r);
/*
 * Exactly `len` bytes at `offset` into `buf`. A range past the size, or an object
 * that ends early (it shrank, or the backend read short), is FLOE_ERR_IO.
 */
int floe_iceberg_reader_read_at(floe_iceberg_reader *r, void *buf, size_t len, int64_t offset);
void floe_iceberg_reader_close(floe_iceberg_reader *r);

/* ---- whole objects ---- */

/* Append the whole object to `out` (bounded by out->max). Missing: not-found kind. */
int floe_iceberg_storage_read(floe_iceberg_storage *s, floe_buf *out, const char *uri);
/* Create an object holding `data` through a writer: durable, never replaces. */
int floe_iceberg_storage_create(floe_iceberg_storage *s, const char *uri, const void *data,
				size_t len);
/*
 * Create the object at `uri` from the closed local file `path` (a file an engine wrote), which is
 * removed: linked in place when the backend can (local, one file system), else copied through a
 * writer. Durable and never replacing, as floe_iceberg_storage_create.
 */
int floe_iceberg_storage_adopt(floe_iceberg_storage *s, const char *uri, const char *path);
/* Delete an object; a missing one is not an error. */
int floe_iceberg_storage_remove(floe_iceberg_storage *s, const char *uri);
/* Every object under the directory URI `prefix`, recursively, in URI (byte) order. */
int floe_iceberg_storage_list(floe_iceberg_storage *s, const char *prefix, floe_iceberg_list_fn fn,
			      void *ctx);
/* Size of an object: 0 and *out, or -1 (missing: not-found kind). */
int floe_iceberg_storage_size(floe_iceberg_storage *s, const char *uri, int64_t *out);
/* Whether an object is at `uri`: 0 and *out, or -1 when the backend cannot tell. */
int floe_iceberg_storage_exists(floe_iceberg_storage *s, const char *uri, bool *out);

/*
 * The location DuckDB is to read `uri` from, in `arena` (local: the file's path; an
 * object store: its own URI). NULL with FLOE_ERR_USAGE when no engine can reach the
 * backend (memory). Callers hand engines this, never a path they made themselves.
 */
const char *floe_iceberg_storage_engine_uri(floe_iceberg_storage *s, floe_arena *arena,
					    const char *uri);

/* ---- what went wrong ---- */

typedef enum floe_iceberg_storage_error {
	FLOE_ICEBERG_STORAGE_OK = 0,    /* no error is set */
	FLOE_ICEBERG_STORAGE_NOT_FOUND, /* ENOENT, ENOTDIR */
	FLOE_ICEBERG_STORAGE_EXISTS,    /* FLOE_ERR_EXISTS: create-never-replace refused */
	FLOE_ICEBERG_STORAGE_NO_SPACE,  /* ENOSPC, EDQUOT, EFBIG */
	FLOE_ICEBERG_STORAGE_PERMISSION, /* EACCES, EPERM, EROFS */
	FLOE_ICEBERG_STORAGE_IO,        /* any other FLOE_ERR_IO: EIO, a short object, … */
	FLOE_ICEBERG_STORAGE_OTHER      /* an error of another class (e.g. a URI no backend serves) */
} floe_iceberg_storage_error;

/*
 * The cause of the current error (floe_error_last), from its class and the errno
 * recorded with it. The class — and so the exit code — is unchanged: storage
 * failures are FLOE_ERR_IO (exit 4) or FLOE_ERR_EXISTS (exit 2) as before.
 */
floe_iceberg_storage_error floe_iceberg_storage_error_kind(void);

/* ---- the memory backend (tests) ---- */

/*
 * Objects in memory, keyed by their URI as given (any URI), listed in byte order.
 * Reads return at most 4 KiB per backend call, as a network store may, so callers'
 * loops are exercised. Thread safe (one mutex), like the file system.
 */
floe_iceberg_storage *floe_iceberg_storage_memory(void);

typedef enum floe_iceberg_memory_fault {
	FLOE_ICEBERG_FAULT_WRITE_NO_SPACE,   /* a write fails with ENOSPC */
	FLOE_ICEBERG_FAULT_PUBLISH_NO_SPACE, /* a publish (close) fails with ENOSPC */
	FLOE_ICEBERG_FAULT_PUBLISH_FAILED,   /* a publish fails with EIO, as a failed rename */
	FLOE_ICEBERG_FAULT_SHORT_READ,       /* a read returns half, then the object ends early */
	FLOE_ICEBERG_FAULT_READ_EIO,         /* a read fails with EIO */
	FLOE_ICEBERG_FAULT_N
} floe_iceberg_memory_fault;

/*
 * Arm `fault` to fire at the `countdown`-th operation of its kind from now (1: the
 * next write, publish or read), once; 0 disarms it. `s` must be a memory storage.
 */
void floe_iceberg_storage_memory_fault(floe_iceberg_storage *s, floe_iceberg_memory_fault fault,
				       int countdown);

/* ---- URIs ---- */

/*
 * The local path of a `file:` URI or absolute path, in `arena`; NULL when `uri` is
 * neither (no error set).
 */
const char *floe_iceberg_uri_to_path(floe_arena *arena, const char *uri);

/*
 * One spelling of `uri` for comparing URIs, in `arena`: `file:///abs` for every spelling of
 * a local file (`file:/abs`, `file:///abs`, `/abs`), any other URI as it is. No I/O.
 */
const char *floe_iceberg_uri_key(floe_arena *arena, const char *uri);

/* `file:///abs/path` for a path (made absolute, normalised), in `arena`. */
const char *floe_iceberg_path_to_uri(floe_arena *arena, const char *path);

#endif
