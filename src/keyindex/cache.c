/*
 * cache.c — what keyindex.c and keyfile.c share (cache.h).
 */
#include "keyindex/cache.h"
#include "keyindex/keyindex.h"
#include "config/config.h"
#include "base/error.h"
#include "base/fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t sum_step(uint64_t h, uint64_t w)
{
	return ((h ^ w) << 29 | (h ^ w) >> 35) * 0x9e3779b97f4a7c15ULL;
}

/* A running checksum of n bytes: 32 bytes at a time in four independent lanes (a multiply's
   latency each, not four), then words, then a length-mixed tail. */
uint64_t floe_cache_checksum(uint64_t h, const uint8_t *p, size_t n)
{
	uint64_t w, lane[4] = { h, h ^ 0x243f6a8885a308d3ULL, h ^ 0x13198a2e03707344ULL, h ^ 0xa4093822299f31d0ULL };
	size_t total = n;
	for (; n >= 32; p += 32, n -= 32)
		for (int i = 0; i < 4; i++) {
			memcpy(&w, p + 8 * i, 8);
			lane[i] = sum_step(lane[i], w);
		}
	h = total >= 32 ? floe_cache_mix(lane[0]) ^ floe_cache_mix(lane[1] + 1) ^ floe_cache_mix(lane[2] + 2) ^ floe_cache_mix(lane[3] + 3) : h;
	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&w, p, 8);
		h = sum_step(h, w);
	}
	w = 0;
	if (n) /* p may be the end of nothing */
		memcpy(&w, p, n);
	return floe_cache_mix(h ^ w ^ ((uint64_t)n << 60));
}

int floe_cache_write(const char *dir, const char *name, struct iovec *iov, size_t n)
{
	floe_buf path = FLOE_BUF_INIT, tmp = FLOE_BUF_INIT;
	floe_buf_printf(&path, "%s/%s", dir, name);
	floe_buf_printf(&tmp, "%s/.%s.tmp", dir, name);
	int error = -1, fd = open(floe_buf_cstr(&tmp), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		floe_error_set_errno(FLOE_ERR_IO, "could not create \"%s\"", floe_buf_cstr(&tmp));
		goto cleanup;
	}
	if (floe_fs_writev_all(fd, iov, n) < 0) {
		floe_error_set_errno(FLOE_ERR_IO, "could not write \"%s\"", floe_buf_cstr(&tmp));
		close(fd);
		unlink(floe_buf_cstr(&tmp));
		goto cleanup;
	}
	if (close(fd) < 0 || rename(floe_buf_cstr(&tmp), floe_buf_cstr(&path)) < 0) {
		floe_error_set_errno(FLOE_ERR_IO, "could not write \"%s\"", floe_buf_cstr(&path));
		unlink(floe_buf_cstr(&tmp));
		goto cleanup;
	}
	error = 0;
cleanup:
	floe_buf_free(&path);
	floe_buf_free(&tmp);
	return error;
}

int floe_cache_map(const char *path, uint8_t **map, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || st.st_size <= 0) {
		close(fd);
		return -1;
	}
	void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -1;
	*map = m;
	*len = (size_t)st.st_size;
	return 0;
}

void floe_cache_remove_where(const char *dir, bool (*doomed)(const char *name, void *ctx), void *ctx)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	floe_buf path = FLOE_BUF_INIT;
	while (d && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 || !doomed(e->d_name, ctx))
			continue;
		floe_buf_clear(&path);
		floe_buf_printf(&path, "%s/%s", dir, e->d_name);
		unlink(floe_buf_cstr(&path));
	}
	if (d)
		closedir(d);
	floe_buf_free(&path);
}

bool floe_cache_is_temporary(const char *name)
{
	size_t n = strlen(name);
	return name[0] == '.' && n >= 5 && strcmp(name + n - 4, ".tmp") == 0;
}

static bool temporary(const char *name, void *ctx)
{
	(void)ctx;
	return floe_cache_is_temporary(name);
}

void floe_cache_sweep(const char *dir)
{
	floe_cache_remove_where(dir, temporary, NULL);
}

void floe_keyindex_dir(floe_buf *out, const char *project_dir, const char *table, const int *field_ids, size_t n)
{
	floe_buf_clear(out);
	floe_buf_printf(out, "%s/" FLOE_STATE_DIR "/keys/", project_dir);
	for (const char *p = table; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.')
			floe_buf_putc(out, (char)c);
		else
			floe_buf_printf(out, "%%%02x", c);
	}
	for (size_t i = 0; i < n; i++)
		floe_buf_printf(out, "%c%d", i ? '-' : '.', field_ids[i]);
}
