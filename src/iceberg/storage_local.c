/*
 * storage_local.c — the `local` storage backend (a directory tree, `file:` URIs),
 * and the dispatch through floe_iceberg_storage.
 *
 * Files are created with floe_fs_write_atomic(exclusive): written under a temporary
 * name, fsynced, linked to their final name (link(2) fails instead of replacing),
 * and the directory fsynced. A process killed mid-write leaves at most a `*.tmp-*`
 * file, which no metadata references, so orphan removal deletes it.
 */
#include "iceberg/storage.h"

#include "base/error.h"
#include "base/fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct floe_iceberg_storage {
	const floe_iceberg_storage_ops *ops;
	void *state;
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

static int refuse(const floe_iceberg_storage *s, const char *uri)
{
	floe_error_set(FLOE_ERR_USAGE, "storage \"%s\" cannot reach \"%s\"", s->ops->name, uri);
	floe_error_hint("floe writes tables to local directories (file: URIs) for now.");
	return -1;
}

int floe_iceberg_storage_read(floe_iceberg_storage *s, floe_buf *out, const char *uri)
{
	return s->ops->handles(s->state, uri) ? s->ops->read(s->state, out, uri) : refuse(s, uri);
}

int floe_iceberg_storage_create(floe_iceberg_storage *s, const char *uri, const void *data,
				size_t len)
{
	return s->ops->handles(s->state, uri) ? s->ops->create(s->state, uri, data, len)
					      : refuse(s, uri);
}

int floe_iceberg_storage_remove(floe_iceberg_storage *s, const char *uri)
{
	return s->ops->handles(s->state, uri) ? s->ops->remove(s->state, uri) : refuse(s, uri);
}

int floe_iceberg_storage_list(floe_iceberg_storage *s, const char *prefix, floe_iceberg_list_fn fn,
			      void *ctx)
{
	return s->ops->handles(s->state, prefix) ? s->ops->list(s->state, prefix, fn, ctx)
						 : refuse(s, prefix);
}

int floe_iceberg_storage_size(floe_iceberg_storage *s, const char *uri, int64_t *out)
{
	return s->ops->handles(s->state, uri) ? s->ops->size(s->state, uri, out) : refuse(s, uri);
}

/* ---- URIs ---- */

/* The path part of a local URI (borrowed from `uri`), or NULL. */
static const char *local_path(const char *uri)
{
	if (strncmp(uri, "file://", 7) == 0)
		return uri[7] == '/' ? uri + 7 : NULL; /* file:///abs; file://host/… is not local */
	if (strncmp(uri, "file:", 5) == 0)
		return uri[5] == '/' ? uri + 5 : NULL;
	return uri[0] == '/' ? uri : NULL;
}

const char *floe_iceberg_uri_to_path(floe_arena *arena, const char *uri)
{
	const char *p = local_path(uri);
	return p ? floe_arena_strdup(arena, p) : NULL;
}

const char *floe_iceberg_path_to_uri(floe_arena *arena, const char *path)
{
	floe_buf abs = FLOE_BUF_INIT;
	const char *p = local_path(path);
	const char *uri;
	if (floe_fs_absolute(&abs, p ? p : path) < 0) {
		floe_buf_free(&abs);
		return NULL;
	}
	uri = floe_arena_printf(arena, "file://%s", floe_buf_cstr(&abs));
	floe_buf_free(&abs);
	return uri;
}

/* ---- local backend ---- */

static bool local_handles(void *state, const char *uri)
{
	(void)state;
	return local_path(uri) != NULL;
}

static int local_read(void *state, floe_buf *out, const char *uri)
{
	(void)state;
	const char *path = local_path(uri);
	if (!floe_fs_exists(path))
		return floe_error_set(FLOE_ERR_IO, "file \"%s\" does not exist", uri);
	return floe_fs_read_file(out, path);
}

static int mkdir_parent(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int rc;
	if (!slash || slash == path)
		return 0;
	dir = floe_xstrndup(path, (size_t)(slash - path));
	rc = floe_fs_is_dir(dir) ? 0 : floe_fs_mkdir_p(dir, 0755);
	free(dir);
	return rc;
}

static int local_create(void *state, const char *uri, const void *data, size_t len)
{
	floe_fs_write_opts opts = FLOE_FS_WRITE_OPTS_INIT;
	const char *path = local_path(uri);
	(void)state;
	opts.exclusive = true;
	if (mkdir_parent(path) < 0)
		return -1;
	return floe_fs_write_atomic(path, data, len, &opts);
}

static int local_remove(void *state, const char *uri)
{
	(void)state;
	if (unlink(local_path(uri)) < 0 && errno != ENOENT)
		return floe_error_set_errno(FLOE_ERR_IO, "could not delete \"%s\"", uri);
	return 0;
}

static int local_size(void *state, const char *uri, int64_t *out)
{
	struct stat st;
	(void)state;
	if (stat(local_path(uri), &st) < 0)
		return floe_error_set_errno(FLOE_ERR_IO, "could not stat \"%s\"", uri);
	*out = (int64_t)st.st_size;
	return 0;
}

typedef struct walk {
	floe_iceberg_list_fn fn;
	void *ctx;
	int stop;
} walk;

static int walk_dir(walk *w, floe_buf *path, int depth)
{
	DIR *d;
	struct dirent *e;
	int error = 0;
	if (depth > 32)
		return 0;
	d = opendir(floe_buf_cstr(path));
	if (!d)
		return errno == ENOENT ? 0 : floe_error_set_errno(FLOE_ERR_IO, "could not list \"%s\"",
								 floe_buf_cstr(path));
	size_t base = path->len;
	while (!error && !w->stop && (e = readdir(d)) != NULL) {
		struct stat st;
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		path->len = base;
		if (floe_buf_printf(path, "/%s", e->d_name) < 0 || lstat(floe_buf_cstr(path), &st) < 0)
			continue; /* vanished meanwhile */
		if (S_ISDIR(st.st_mode)) {
			error = walk_dir(w, path, depth + 1);
		} else if (S_ISREG(st.st_mode)) {
			floe_buf uri = FLOE_BUF_INIT;
			floe_buf_printf(&uri, "file://%s", floe_buf_cstr(path));
			w->stop = w->fn(w->ctx, floe_buf_cstr(&uri), (int64_t)st.st_size,
					(int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000);
			floe_buf_free(&uri);
		}
	}
	path->len = base;
	path->ptr[base] = '\0';
	closedir(d);
	return error;
}

static int local_list(void *state, const char *prefix, floe_iceberg_list_fn fn, void *ctx)
{
	floe_buf path = FLOE_BUF_INIT;
	walk w = { fn, ctx, 0 };
	int rc;
	(void)state;
	floe_buf_puts(&path, local_path(prefix));
	while (path.len > 1 && path.ptr[path.len - 1] == '/')
		path.ptr[--path.len] = '\0';
	rc = walk_dir(&w, &path, 0);
	floe_buf_free(&path);
	return rc;
}

static const floe_iceberg_storage_ops local_ops = {
	"local", local_handles, local_read, local_create, local_remove, local_list, local_size, NULL,
};

floe_iceberg_storage *floe_iceberg_storage_local(void)
{
	return floe_iceberg_storage_new(&local_ops, NULL);
}
