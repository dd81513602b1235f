/*
 * storage.c — the dispatch through floe_iceberg_storage: writer and reader handles
 * over a backend's ops, the whole-object calls composed from them, and the
 * classification of storage errors. The backends are storage_local.c and
 * storage_memory.c.
 */
#include "iceberg/storage.h"

#include "base/error.h"
#include "base/fs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct floe_iceberg_storage {
	const floe_iceberg_storage_ops *ops;
	void *state;
};

/* What a writer and a reader share: the storage, the backend's handle, the URI. */
typedef struct handle {
	floe_iceberg_storage *s;
	void *h;
	char *uri;
} handle;

struct floe_iceberg_writer {
	handle base;
	int64_t offset;
	int failed_errno; /* -1 while healthy; else the errno of the failed write (0: none) */
};

struct floe_iceberg_reader {
	handle base;
	int64_t size;
};

floe_iceberg_storage *floe_iceberg_storage_new(const floe_iceberg_storage_ops *ops, void *state)
{
	floe_iceberg_storage *s = floe_xcalloc(1, sizeof(*s));
	s->ops = ops;
	s->state = state;
	return s;
}

void floe_iceberg_storage_free(floe_iceberg_storage *storage)
{
	if (!storage)
		return;
	if (storage->ops->close)
		storage->ops->close(storage->state);
	free(storage);
}

void *floe_iceberg_storage_backend(floe_iceberg_storage *s, const floe_iceberg_storage_ops *ops)
{
	return s && s->ops == ops ? s->state : NULL;
}

/* 0 when the backend serves `uri`, else -1 with a usage error. */
static int reach(const floe_iceberg_storage *s, const char *uri)
{
	if (uri && s->ops->handles(s->state, uri))
		return 0;
	floe_error_set(FLOE_ERR_USAGE, "storage \"%s\" cannot reach \"%s\"", s->ops->name,
		       uri ? uri : "(no location)");
	floe_error_hint("floe writes tables to local directories (file: URIs) for now.");
	return -1;
}

/* A zeroed `size`-byte handle over `s` and a copy of `uri`, or NULL (error set). */
static void *handle_new(floe_iceberg_storage *s, const char *uri, size_t size)
{
	handle *h;
	if (reach(s, uri) < 0)
		return NULL;
	h = floe_xcalloc(1, size);
	h->s = s;
	h->uri = floe_xstrndup(uri, strlen(uri));
	return h;
}

static void handle_free(handle *h)
{
	free(h->uri);
	free(h);
}

/* ---- writers ---- */

int floe_iceberg_storage_open_write(floe_iceberg_writer **out, floe_iceberg_storage *s,
				    const char *uri)
{
	floe_iceberg_writer *w = handle_new(s, uri, sizeof(*w));
	*out = NULL;
	if (!w)
		return -1;
	w->failed_errno = -1;
	if (s->ops->open_write(s->state, &w->base.h, w->base.uri) < 0) {
		handle_free(&w->base);
		return -1;
	}
	*out = w;
	return 0;
}

int floe_iceberg_writer_write(floe_iceberg_writer *w, const void *data, size_t len)
{
	const floe_error *e;
	if (w->failed_errno >= 0)
		return floe_error_set(FLOE_ERR_INTERNAL, "write to \"%s\" after a failed write", w->base.uri);
	if (len == 0)
		return 0;
	if (w->base.s->ops->write(w->base.h, data, len) < 0) {
		e = floe_error_last();
		w->failed_errno = e ? e->sys_errno : 0;
		return -1;
	}
	w->offset += (int64_t)len;
	return 0;
}

int64_t floe_iceberg_writer_offset(const floe_iceberg_writer *w)
{
	return w->offset;
}

const char *floe_iceberg_writer_uri(const floe_iceberg_writer *w)
{
	return w->base.uri;
}

int floe_iceberg_writer_close(floe_iceberg_writer *w)
{
	int rc;
	if (w->failed_errno >= 0) {
		/* The write's error may have been replaced since; say it again, same cause. */
		floe_error_set(FLOE_ERR_IO, "could not publish \"%s\": a write to it failed", w->base.uri);
		floe_error_errno(w->failed_errno);
		rc = -1;
	} else {
		rc = w->base.s->ops->publish(w->base.h);
	}
	floe_iceberg_writer_abort(w); /* after a publish it only frees */
	return rc;
}

void floe_iceberg_writer_abort(floe_iceberg_writer *w)
{
	if (!w)
		return;
	w->base.s->ops->discard(w->base.h);
	handle_free(&w->base);
}

/* ---- readers ---- */

int floe_iceberg_storage_open_read(floe_iceberg_reader **out, floe_iceberg_storage *s,
				   const char *uri)
{
	floe_iceberg_reader *r = handle_new(s, uri, sizeof(*r));
	*out = NULL;
	if (!r)
		return -1;
	if (s->ops->open_read(s->state, &r->base.h, &r->size, r->base.uri) < 0) {
		handle_free(&r->base);
		return -1;
	}
	*out = r;
	return 0;
}

int64_t floe_iceberg_reader_size(const floe_iceberg_reader *r)
{
	return r->size;
}

int floe_iceberg_reader_read_at(floe_iceberg_reader *r, void *buf, size_t len, int64_t offset)
{
	size_t done = 0, got;
	if (offset < 0 || offset > r->size || len > (uint64_t)(r->size - offset))
		return floe_error_set(FLOE_ERR_IO,
				      "could not read %zu bytes at offset %lld of \"%s\": it has %lld",
				      len, (long long)offset, r->base.uri, (long long)r->size);
	while (done < len) {
		if (r->base.s->ops->pread(r->base.h, (char *)buf + done, len - done, offset + (int64_t)done,
				     &got) < 0)
			return -1;
		if (got == 0) {
			floe_error_set(FLOE_ERR_IO, "\"%s\" ended at offset %lld, before its size %lld",
				       r->base.uri, (long long)(offset + (int64_t)done), (long long)r->size);
			floe_error_detail("The object changed or was truncated while it was read.");
			return -1;
		}
		done += got;
	}
	return 0;
}

void floe_iceberg_reader_close(floe_iceberg_reader *r)
{
	if (!r)
		return;
	r->base.s->ops->close_read(r->base.h);
	handle_free(&r->base);
}

/* ---- whole objects ---- */

int floe_iceberg_storage_read(floe_iceberg_storage *s, floe_buf *out, const char *uri)
{
	floe_iceberg_reader *r = NULL;
	size_t n;
	int error = -1;
	if (floe_iceberg_storage_open_read(&r, s, uri) < 0)
		return -1;
	n = (size_t)r->size;
	if ((uint64_t)r->size > SIZE_MAX || floe_buf_reserve(out, n) < 0) {
		floe_error_set(FLOE_ERR_IO, "\"%s\" is larger than %zu bytes", uri, out->max);
		goto cleanup;
	}
	if (floe_iceberg_reader_read_at(r, out->ptr + out->len, n, 0) < 0)
		goto cleanup;
	out->len += n;
	out->ptr[out->len] = '\0';
	error = 0;
cleanup:
	floe_iceberg_reader_close(r);
	return error;
}

int floe_iceberg_storage_create(floe_iceberg_storage *s, const char *uri, const void *data,
				size_t len)
{
	floe_iceberg_writer *w = NULL;
	if (floe_iceberg_storage_open_write(&w, s, uri) < 0)
		return -1;
	if (floe_iceberg_writer_write(w, data, len) < 0) {
		floe_iceberg_writer_abort(w);
		return -1;
	}
	return floe_iceberg_writer_close(w);
}

int floe_iceberg_storage_adopt(floe_iceberg_storage *s, const char *uri, const char *path)
{
	floe_buf bytes = FLOE_BUF_INIT;
	int done = reach(s, uri) < 0 ? -1 : s->ops->adopt ? s->ops->adopt(s->state, uri, path) : 0;
	if (done != 0) /* linked in place, or failed */
		return done < 0 ? -1 : 0;
	int error = floe_fs_read_file(&bytes, path); /* another backend or file system: copied */
	if (error == 0)
		error = floe_iceberg_storage_create(s, uri, bytes.ptr, bytes.len);
	if (error == 0)
		unlink(path);
	floe_buf_free(&bytes);
	return error;
}

int floe_iceberg_storage_remove(floe_iceberg_storage *s, const char *uri)
{
	return reach(s, uri) < 0 ? -1 : s->ops->remove(s->state, uri);
}

int floe_iceberg_storage_list(floe_iceberg_storage *s, const char *prefix, floe_iceberg_list_fn fn,
			      void *ctx)
{
	return reach(s, prefix) < 0 ? -1 : s->ops->list(s->state, prefix, fn, ctx);
}

int floe_iceberg_storage_size(floe_iceberg_storage *s, const char *uri, int64_t *out)
{
	bool exists = false;
	if (reach(s, uri) < 0 || s->ops->stat(s->state, uri, &exists, out) < 0)
		return -1;
	if (!exists) {
		floe_error_set(FLOE_ERR_IO, "\"%s\" does not exist", uri);
		floe_error_errno(ENOENT);
		return -1;
	}
	return 0;
}

int floe_iceberg_storage_exists(floe_iceberg_storage *s, const char *uri, bool *out)
{
	int64_t size;
	*out = false;
	return reach(s, uri) < 0 ? -1 : s->ops->stat(s->state, uri, out, &size);
}

const char *floe_iceberg_storage_engine_uri(floe_iceberg_storage *s, floe_arena *arena,
					    const char *uri)
{
	const char *out = NULL;
	if (reach(s, uri) < 0)
		return NULL;
	if (s->ops->engine_uri)
		out = s->ops->engine_uri(s->state, arena, uri);
	if (!out)
		floe_error_set(FLOE_ERR_USAGE, "storage \"%s\" cannot hand \"%s\" to a query engine",
			       s->ops->name, uri);
	return out;
}

/* ---- what went wrong ---- */

floe_iceberg_storage_error floe_iceberg_storage_error_kind(void)
{
	const floe_error *e = floe_error_last();
	if (!e)
		return FLOE_ICEBERG_STORAGE_OK;
	if (e->cls == FLOE_ERR_EXISTS)
		return FLOE_ICEBERG_STORAGE_EXISTS;
	switch (e->sys_errno) {
	case ENOENT:
	case ENOTDIR:
		return FLOE_ICEBERG_STORAGE_NOT_FOUND;
	case ENOSPC:
	case EDQUOT:
	case EFBIG:
		return FLOE_ICEBERG_STORAGE_NO_SPACE;
	case EACCES:
	case EPERM:
	case EROFS:
		return FLOE_ICEBERG_STORAGE_PERMISSION;
	default:
		break;
	}
	return e->cls == FLOE_ERR_IO ? FLOE_ICEBERG_STORAGE_IO : FLOE_ICEBERG_STORAGE_OTHER;
}
