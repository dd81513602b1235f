/*
 * fs.c — file system helpers.
 */
#include "base/fs.h"
#include "base/error.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int floe_fs_read_file(floe_buf *out, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return floe_error_set_errno(errno == ENOENT ? FLOE_ERR_CONFIG : FLOE_ERR_IO,
					    "could not open file \"%s\"", path);
	int error = -1;
	char chunk[65536];
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			floe_error_set_errno(FLOE_ERR_IO, "could not read file \"%s\"", path);
			goto cleanup;
		}
		if (n == 0)
			break;
		if (floe_buf_put(out, chunk, (size_t)n) < 0) {
			floe_error_set(FLOE_ERR_IO, "file \"%s\" is larger than %zu bytes", path, out->max);
			goto cleanup;
		}
	}
	error = 0;
cleanup:
	close(fd);
	return error;
}

#define WRITE_MAX ((size_t)256 << 10) /* a call's bytes (fs.h says why) */

int floe_fs_writev_all(int fd, struct iovec *iov, size_t n)
{
	for (size_t i = 0; i < n;) {
		struct iovec chunk[64]; /* at most WRITE_MAX bytes a call */
		size_t k = 0, bytes = 0;
		for (size_t j = i; j < n && k < 64 && bytes < WRITE_MAX; j++, k++) {
			chunk[k] = iov[j];
			if (chunk[k].iov_len > WRITE_MAX - bytes)
				chunk[k].iov_len = WRITE_MAX - bytes;
			bytes += chunk[k].iov_len;
		}
		ssize_t w = writev(fd, chunk, (int)k);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 || (w == 0 && bytes > 0)) {
			if (w == 0)
				errno = EIO;
			return -1;
		}
		for (size_t done = (size_t)w; done > 0;) { /* what was written leaves the list; a piece partly written goes on */
			size_t part = done < iov[i].iov_len ? done : iov[i].iov_len;
			iov[i].iov_base = (uint8_t *)iov[i].iov_base + part;
			iov[i].iov_len -= part;
			done -= part;
			if (iov[i].iov_len == 0)
				i++;
		}
		while (i < n && iov[i].iov_len == 0)
			i++;
	}
	return 0;
}

int floe_fs_write_all(int fd, const void *data, size_t len)
{
	struct iovec one = { (void *)data, len };
	return floe_fs_writev_all(fd, &one, 1);
}

static int fsync_parent(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = fsync(fd);
	close(fd);
	return rc;
}

int floe_fs_write_atomic(const char *path, const void *data, size_t len,
			 const floe_fs_write_opts *opts)
{
	floe_fs_write_opts defaults = FLOE_FS_WRITE_OPTS_INIT;
	if (!opts)
		opts = &defaults;
	char tmp[PATH_MAX];
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp-XXXXXX", path) >= sizeof(tmp))
		return floe_error_set(FLOE_ERR_IO, "path \"%s\" is too long", path);

	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		floe_error_set_errno(FLOE_ERR_IO, "could not create a file next to \"%s\"", path);
		floe_error_subject("%s", path);
		return -1;
	}
	int error = -1;
	if (fchmod(fd, opts->mode) < 0 || floe_fs_write_all(fd, data, len) < 0 || fsync(fd) < 0) {
		floe_error_set_errno(FLOE_ERR_IO, "could not write file \"%s\"", tmp);
		floe_error_subject("%s", path);
		goto cleanup;
	}
	if (opts->exclusive) {
		/* link() fails when the target exists, unlike rename(). */
		if (link(tmp, path) < 0) {
			if (errno == EEXIST) {
				floe_error_set(FLOE_ERR_EXISTS, "file \"%s\" already exists", path);
				floe_error_hint("floe never overwrites a file it did not write; move it away first.");
			} else {
				floe_error_set_errno(FLOE_ERR_IO, "could not create file \"%s\"", path);
			}
			goto cleanup;
		}
	} else if (rename(tmp, path) < 0) {
		floe_error_set_errno(FLOE_ERR_IO, "could not replace file \"%s\"", path);
		goto cleanup;
	}
	if (fsync_parent(path) < 0) {
		floe_error_set_errno(FLOE_ERR_IO, "could not sync the directory of \"%s\"", path);
		goto cleanup;
	}
	error = 0;
cleanup:
	close(fd);
	unlink(tmp); /* after rename it is gone already; after link it is a second name */
	return error;
}

static int mkdir_failed(const char *path)
{
	floe_error_set_errno(FLOE_ERR_IO, "could not create directory \"%s\"", path);
	floe_error_subject("%s", path);
	return -1;
}

int floe_fs_mkdir_p(const char *path, mode_t mode)
{
	char tmp[PATH_MAX];
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s", path) >= sizeof(tmp))
		return floe_error_set(FLOE_ERR_IO, "path \"%s\" is too long", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, mode) < 0 && errno != EEXIST)
			return mkdir_failed(tmp);
		*p = '/';
	}
	if (mkdir(tmp, mode) < 0 && errno != EEXIST)
		return mkdir_failed(tmp);
	if (!floe_fs_is_dir(tmp))
		return floe_error_set(FLOE_ERR_IO, "\"%s\" exists and is not a directory", tmp);
	return 0;
}

bool floe_fs_exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

bool floe_fs_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int remove_at(int parent, const char *name)
{
	struct stat st;
	if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(parent, name, 0);
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	int rc = 0;
	struct dirent *e;
	while (rc == 0 && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		rc = remove_at(dirfd(d), e->d_name);
	}
	closedir(d);
	if (rc == 0)
		rc = unlinkat(parent, name, AT_REMOVEDIR);
	return rc;
}

int floe_fs_remove_tree(const char *path)
{
	if (remove_at(AT_FDCWD, path) < 0)
		return floe_error_set_errno(FLOE_ERR_IO, "could not remove \"%s\"", path);
	return 0;
}

int floe_fs_join(floe_buf *out, const char *a, const char *b)
{
	size_t alen = strlen(a);
	if (alen && a[alen - 1] == '/')
		return floe_buf_printf(out, "%s%s", a, b);
	return floe_buf_printf(out, "%s/%s", a, b);
}

int floe_fs_absolute(floe_buf *out, const char *path)
{
	floe_buf raw = FLOE_BUF_INIT;
	int error = -1;
	if (path[0] == '/') {
		floe_buf_puts(&raw, path);
	} else {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof(cwd))) {
			floe_error_set_errno(FLOE_ERR_IO, "could not read the current directory");
			goto cleanup;
		}
		floe_fs_join(&raw, cwd, path);
	}
	/* Normalise "." and ".." components lexically. */
	size_t base = out->len;
	const char *p = floe_buf_cstr(&raw);
	while (*p) {
		while (*p == '/')
			p++;
		const char *end = strchr(p, '/');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n == 0)
			break;
		if (n == 1 && p[0] == '.') {
			/* skip */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (out->len > base && out->ptr[out->len - 1] != '/')
				out->len--;
			if (out->len > base)
				out->len--;
			out->ptr[out->len] = '\0';
		} else {
			floe_buf_putc(out, '/');
			floe_buf_put(out, p, n);
		}
		p += n;
	}
	if (out->len == base)
		floe_buf_putc(out, '/');
	error = 0;
cleanup:
	floe_buf_free(&raw);
	return error;
}

int floe_fs_mount_point(floe_buf *out, const char *path)
{
	char dir[PATH_MAX];
	struct stat st, up;
	if (path[0] != '/' || (size_t)snprintf(dir, sizeof(dir), "%s", path) >= sizeof(dir))
		return -1;
	while (stat(dir, &st) < 0) { /* the nearest existing ancestor */
		char *slash = strrchr(dir, '/');
		if (dir[1] == '\0')
			return -1;
		slash[slash == dir ? 1 : 0] = '\0';
	}
	/* Climb while the parent is on the same device: the last directory that is, is the mount. */
	for (;;) {
		char *slash = strrchr(dir, '/'); /* never NULL: the path is absolute */
		if (slash == dir)
			return floe_buf_puts(out, stat("/", &up) == 0 && up.st_dev == st.st_dev ? "/" : dir);
		*slash = '\0';
		if (stat(dir, &up) < 0 || up.st_dev != st.st_dev) {
			*slash = '/';
			return floe_buf_puts(out, dir);
		}
	}
}
