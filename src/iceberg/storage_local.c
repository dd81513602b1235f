/*
 * storage_local.c — the `local` storage backend (a directory tree, `file:` URIs).
 *
 * A writer writes `<name>.tmp-XXXXXX` in the object's directory (created as
 * needed); publishing fsyncs it, link(2)s it to its final name (which fails
 * instead of replacing), removes the temporary name and fsyncs the directory. A
 * process killed mid-write leaves at most a `*.tmp-*` file, which no metadata
 * references, so orphan removal deletes it. Listings are sorted by URI.
 */
#include "iceberg/storage.h"

#include "base/error.h"
#include "base/fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/*
 * An I/O failure at `uri` with errno's reason; the local path becomes the subject of the
 * error's cause (floe_error_put_cause: "disk full at <path> (the file system mounted at …)").
 */
static int io_error(const char *what, const char *uri)
{
	int saved = errno;
	const char *path = local_path(uri);
	errno = saved;
	floe_error_set_errno(FLOE_ERR_IO, "could not %s \"%s\"", what, uri);
	if (path)
		floe_error_subject("%s", path);
	return -1;
}

const char *floe_iceberg_uri_to_path(floe_arena *arena, const char *uri)
{
	const char *p = local_path(uri);
	return p ? floe_arena_strdup(arena, p) : NULL;
}

const char *floe_iceberg_uri_key(floe_arena *arena, const char *uri)
{
	const char *p = local_path(uri);
	return p ? floe_arena_printf(arena, "file://%s", p) : floe_arena_strdup(arena, uri);
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

static int taken(const char *uri)
{
	floe_error_set(FLOE_ERR_EXISTS, "file \"%s\" already exists", uri);
	floe_error_hint("floe never overwrites a file it did not write; move it away first.");
	return -1;
}

typedef struct local_writer {
	const char *uri;  /* borrowed from the dispatch layer */
	const char *path; /* inside uri */
	char *tmp;        /* the temporary file; NULL once it is gone */
	int fd;
} local_writer;

static void local_discard(void *h)
{
	local_writer *w = h;
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	if (w->tmp)
		unlink(w->tmp);
	free(w->tmp);
	free(w);
}

static int local_open_write(void *state, void **h, const char *uri)
{
	local_writer *w;
	size_t n;
	(void)state;
	if (mkdir_parent(local_path(uri)) < 0)
		return floe_error_context("while creating \"%s\"", uri);
	if (floe_fs_exists(local_path(uri)))
		return taken(uri);
	w = floe_xcalloc(1, sizeof(*w));
	w->uri = uri;
	w->path = local_path(uri);
	n = strlen(w->path) + sizeof(".tmp-XXXXXX");
	w->tmp = floe_xmalloc(n);
	snprintf(w->tmp, n, "%s.tmp-XXXXXX", w->path);
	w->fd = mkostemp(w->tmp, O_CLOEXEC);
	if (w->fd < 0) {
		io_error("create", uri);
		free(w->tmp);
		w->tmp = NULL;
	} else if (fchmod(w->fd, 0644) < 0) {
		io_error("create", uri);
	} else {
		*h = w;
		return 0;
	}
	local_discard(w);
	return -1;
}

static int local_write(void *h, const void *data, size_t len)
{
	local_writer *w = h;
	return floe_fs_write_all(w->fd, data, len) < 0 ? io_error("write", w->uri) : 0;
}

/* fsync the directory holding `path`. */
static int sync_dir_of(const char *path)
{
	char *dir = floe_xstrndup(path, (size_t)(strrchr(path, '/') - path));
	int fd = open(dir[0] ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = fd < 0 ? -1 : fsync(fd);
	int saved = errno;
	if (fd >= 0)
		close(fd);
	free(dir);
	errno = saved;
	return rc;
}

static int local_publish(void *h)
{
	local_writer *w = h;
	int fd = w->fd;
	w->fd = -1;
	if (fsync(fd) < 0) {
		io_error("write", w->uri);
		close(fd);
		return -1;
	}
	if (close(fd) < 0)
		return io_error("write", w->uri);
	if (link(w->tmp, w->path) < 0)
		return errno == EEXIST ? taken(w->uri) : io_error("publish", w->uri);
	if (sync_dir_of(w->path) < 0) {
		/* Not durable, so not published: take the name back. */
		io_error("sync the directory of", w->uri);
		unlink(w->path);
		return -1;
	}
	return 0; /* discard removes the temporary name; the object keeps its inode */
}

typedef struct local_reader {
	const char *uri;
	int fd;
} local_reader;

static int local_open_read(void *state, void **h, int64_t *size, const char *uri)
{
	struct stat st;
	local_reader *r;
	int fd = open(local_path(uri), O_RDONLY | O_CLOEXEC);
	(void)state;
	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR)) {
		floe_error_set(FLOE_ERR_IO, "file \"%s\" does not exist", uri);
		floe_error_errno(ENOENT);
		return -1;
	}
	if (fd < 0)
		return io_error("open", uri);
	bool stated = fstat(fd, &st) == 0;
	if (!stated || !S_ISREG(st.st_mode)) {
		if (stated)
			errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL; /* not a regular file */
		io_error("read", uri);
		close(fd);
		return -1;
	}
	r = floe_xcalloc(1, sizeof(*r));
	r->uri = uri;
	r->fd = fd;
	*size = (int64_t)st.st_size;
	*h = r;
	return 0;
}

static int local_pread(void *h, void *buf, size_t len, int64_t offset, size_t *got)
{
	local_reader *r = h;
	ssize_t n;
	do
		n = pread(r->fd, buf, len, (off_t)offset);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return floe_error_set_errno(FLOE_ERR_IO, "could not read \"%s\" at offset %lld", r->uri,
					    (long long)offset);
	*got = (size_t)n;
	return 0;
}

static void local_close_read(void *h)
{
	local_reader *r = h;
	if (!r)
		return;
	close(r->fd);
	free(r);
}

static int local_stat(void *state, const char *uri, bool *exists, int64_t *size)
{
	struct stat st;
	(void)state;
	*exists = false;
	*size = 0;
	if (stat(local_path(uri), &st) < 0)
		return errno == ENOENT || errno == ENOTDIR
			       ? 0
			       : io_error("stat", uri);
	*exists = S_ISREG(st.st_mode);
	*size = *exists ? (int64_t)st.st_size : 0;
	return 0;
}

static int local_remove(void *state, const char *uri)
{
	(void)state;
	if (unlink(local_path(uri)) < 0 && errno != ENOENT && errno != ENOTDIR)
		return io_error("delete", uri);
	return 0;
}

typedef struct listed {
	const char *uri;
	int64_t size, mtime_ms;
} listed;

typedef struct walk {
	floe_arena *arena;
	listed *items;
	size_t n, cap;
} walk;

static int walk_dir(walk *w, floe_buf *path, int depth)
{
	DIR *d;
	struct dirent *e;
	size_t base = path->len;
	if (depth > 32)
		return 0;
	d = opendir(floe_buf_cstr(path));
	if (!d)
		return errno == ENOENT || errno == ENOTDIR
			       ? 0
			       : floe_error_set_errno(FLOE_ERR_IO, "could not list \"file://%s\"",
						      floe_buf_cstr(path));
	int error = 0;
	while (!error && (e = readdir(d)) != NULL) {
		struct stat st;
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		path->len = base;
		if (floe_buf_printf(path, "/%s", e->d_name) < 0 || lstat(floe_buf_cstr(path), &st) < 0)
			continue; /* vanished meanwhile */
		if (S_ISDIR(st.st_mode)) {
			error = walk_dir(w, path, depth + 1);
		} else if (S_ISREG(st.st_mode)) {
			listed *it = FLOE_ARENA_PUSH(w->arena, w->items, w->n, w->cap);
			it->uri = floe_arena_printf(w->arena, "file://%s", floe_buf_cstr(path));
			it->size = (int64_t)st.st_size;
			it->mtime_ms = (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
		}
	}
	path->len = base;
	path->ptr[base] = '\0';
	closedir(d);
	return error;
}

static int by_uri(const void *a, const void *b)
{
	return strcmp(((const listed *)a)->uri, ((const listed *)b)->uri);
}

static int local_list(void *state, const char *prefix, floe_iceberg_list_fn fn, void *ctx)
{
	floe_buf path = FLOE_BUF_INIT;
	walk w = { floe_arena_new(), NULL, 0, 0 };
	int rc;
	(void)state;
	floe_buf_puts(&path, local_path(prefix));
	while (path.len > 1 && path.ptr[path.len - 1] == '/')
		path.ptr[--path.len] = '\0';
	rc = walk_dir(&w, &path, 0);
	if (rc == 0 && w.n > 0)
		qsort(w.items, w.n, sizeof(*w.items), by_uri);
	for (size_t i = 0; rc == 0 && i < w.n; i++)
		if (fn(ctx, w.items[i].uri, w.items[i].size, w.items[i].mtime_ms))
			break;
	floe_buf_free(&path);
	floe_arena_free(w.arena);
	return rc;
}

static const char *local_engine_uri(void *state, floe_arena *arena, const char *uri)
{
	(void)state;
	return floe_arena_strdup(arena, local_path(uri));
}

/*
 * A closed file linked in as the object: fsynced, link(2)ed to its name (never replacing), the
 * directory fsynced, the old name removed. 0 across file systems (EXDEV): the caller copies.
 */
static int local_adopt(void *state, const char *uri, const char *path)
{
	const char *dst = local_path(uri);
	(void)state;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) < 0) {
		io_error("write", uri);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	if (mkdir_parent(dst) < 0)
		return floe_error_context("while creating \"%s\"", uri);
	if (link(path, dst) < 0)
		return errno == EXDEV ? 0 : errno == EEXIST ? taken(uri) : io_error("publish", uri);
	if (sync_dir_of(dst) < 0) {
		io_error("sync the directory of", uri); /* not durable, so not published */
		unlink(dst);
		return -1;
	}
	unlink(path);
	return 1;
}

static const floe_iceberg_storage_ops local_ops = {
	.name = "local",
	.handles = local_handles,
	.open_write = local_open_write,
	.write = local_write,
	.publish = local_publish,
	.discard = local_discard,
	.open_read = local_open_read,
	.pread = local_pread,
	.close_read = local_close_read,
	.stat = local_stat,
	.remove = local_remove,
	.list = local_list,
	.engine_uri = local_engine_uri,
	.adopt = local_adopt,
};

floe_iceberg_storage *floe_iceberg_storage_local(void)
{
	return floe_iceberg_storage_new(&local_ops, NULL);
}
