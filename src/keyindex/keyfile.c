/*
 * keyfile.c — one data file's keys as mapped, checked fixed-width arrays (keyfile.h).
 */
#include "keyindex/keyfile.h"
#include "keyindex/cache.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/fs.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAGIC "FLOEKEY1"
#define ALIGN 64
#define MAX_COLS 64
#define SUFFIX ".keys"

typedef struct header {
	char magic[8];
	uint32_t n_cols, path_len;
	uint64_t rows, data_sum, sum;
} header;

typedef struct column_desc {
	uint32_t type, width;
} column_desc;

struct floe_keyfile {
	uint8_t *map;
	size_t len;
	size_t n;
	floe_vector cols[MAX_COLS];
};

bool floe_keyfile_type_ok(floe_vec_type type)
{
	return type != FLOE_VEC_BOOLEAN && floe_vec_type_width(type, 16) > 0;
}

static size_t align(size_t n) { return (n + ALIGN - 1) & ~(size_t)(ALIGN - 1); }

static size_t col_width(const floe_vector *v) { return floe_vec_type_width(v->type, v->width); }

/* The file's name under its directory (`dir`: its path, dir/name): the hash of the data file's path. */
static void name_of(floe_buf *out, const char *dir, const char *data_path)
{
	floe_buf_clear(out);
	if (dir)
		floe_buf_printf(out, "%s/", dir);
	floe_buf_printf(out, "%016llx" SUFFIX,
			(unsigned long long)floe_cache_checksum(0, (const uint8_t *)data_path, strlen(data_path)));
}

/* Where the columns start: after the header, the descriptions and the path. */
static size_t data_offset(size_t n_cols, size_t path_len)
{
	return align(sizeof(header) + n_cols * sizeof(column_desc) + path_len);
}

int floe_keyfile_write(const char *dir, const char *data_path, floe_vector *const *keys, size_t n)
{
	static const uint8_t zeros[ALIGN];
	struct iovec iov[3 + 2 * MAX_COLS];
	column_desc desc[MAX_COLS];
	floe_buf name = FLOE_BUF_INIT;
	size_t path_len = strlen(data_path), rows = n ? keys[0]->len : 0, n_iov = 0;
	if (n == 0 || n > MAX_COLS)
		return floe_error_set(FLOE_ERR_INTERNAL, "a key file holds 1 to %d key columns, not %zu", MAX_COLS, n);
	header h = { .n_cols = (uint32_t)n, .path_len = (uint32_t)path_len, .rows = rows };
	memcpy(h.magic, MAGIC, 8);
	for (size_t c = 0; c < n; c++) {
		if (!floe_keyfile_type_ok(keys[c]->type) || keys[c]->len != rows || keys[c]->validity)
			return floe_error_set(FLOE_ERR_INTERNAL, "key column %zu cannot be kept in a key file", c);
		desc[c] = (column_desc){ .type = (uint32_t)keys[c]->type, .width = (uint32_t)keys[c]->width };
		h.data_sum = floe_cache_checksum(h.data_sum, keys[c]->v.u8, rows * col_width(keys[c]));
	}
	uint64_t sum = floe_cache_checksum(0, (const uint8_t *)&h, sizeof(h));
	sum = floe_cache_checksum(sum, (const uint8_t *)desc, n * sizeof(*desc));
	h.sum = floe_cache_checksum(sum, (const uint8_t *)data_path, path_len);
	size_t head = sizeof(h) + n * sizeof(*desc) + path_len;
	iov[n_iov++] = (struct iovec){ &h, sizeof(h) };
	iov[n_iov++] = (struct iovec){ desc, n * sizeof(*desc) };
	iov[n_iov++] = (struct iovec){ (void *)data_path, path_len };
	iov[n_iov++] = (struct iovec){ (void *)zeros, align(head) - head };
	for (size_t c = 0; c < n; c++) {
		size_t bytes = rows * col_width(keys[c]);
		iov[n_iov++] = (struct iovec){ keys[c]->v.u8, bytes };
		iov[n_iov++] = (struct iovec){ (void *)zeros, align(bytes) - bytes };
	}
	int error = floe_fs_mkdir_p(dir, 0700);
	name_of(&name, NULL, data_path);
	if (error == 0)
		error = floe_cache_write(dir, floe_buf_cstr(&name), iov, n_iov);
	floe_buf_free(&name);
	return error;
}

/* Whether the mapped file is data_path's key file of `rows` rows with columns like like[0..n); else *why. */
static bool check(const floe_keyfile *kf, const char *data_path, int64_t rows, floe_vector *const *like, size_t n,
		  const char **why)
{
	header h;
	size_t path_len = strlen(data_path);
	if (kf->len < sizeof(h))
		return *why = "it is cut short", false;
	memcpy(&h, kf->map, sizeof(h));
	if (memcmp(h.magic, MAGIC, 8) != 0)
		return *why = "it is not a key file of this format", false;
	if (h.n_cols != n || h.path_len != path_len || h.rows != (uint64_t)rows)
		return *why = "it is another data file's or another key's", false;
	size_t at = data_offset(n, path_len);
	if (kf->len < at)
		return *why = "it is cut short", false;
	const uint8_t *desc = kf->map + sizeof(h);
	if (memcmp(desc + n * sizeof(column_desc), data_path, path_len) != 0)
		return *why = "it is another data file's", false;
	for (size_t c = 0; c < n; c++) {
		column_desc d;
		memcpy(&d, desc + c * sizeof(d), sizeof(d));
		if (d.type != (uint32_t)like[c]->type || d.width != (uint32_t)like[c]->width)
			return *why = "its key columns are of other types", false;
		at += align((size_t)rows * col_width(like[c]));
	}
	if (kf->len != at)
		return *why = "its size is not its columns'", false;
	uint64_t want = h.sum, data = 0;
	h.sum = 0;
	uint64_t sum = floe_cache_checksum(0, (const uint8_t *)&h, sizeof(h));
	sum = floe_cache_checksum(sum, desc, n * sizeof(column_desc));
	if (floe_cache_checksum(sum, (const uint8_t *)data_path, path_len) != want)
		return *why = "its header's checksum does not match", false;
	at = data_offset(n, path_len);
	for (size_t c = 0; c < n; c++) {
		size_t bytes = (size_t)rows * col_width(like[c]);
		data = floe_cache_checksum(data, kf->map + at, bytes);
		at += align(bytes);
	}
	if (data != h.data_sum)
		return *why = "its keys' checksum does not match", false;
	return true;
}

floe_keyfile *floe_keyfile_open(const char *dir, const char *data_path, int64_t rows, floe_vector *const *like,
				size_t n, const char **why)
{
	floe_buf path = FLOE_BUF_INIT;
	floe_keyfile *kf = floe_xcalloc(1, sizeof(*kf));
	*why = "there is none";
	name_of(&path, dir, data_path);
	bool ok = n > 0 && n <= MAX_COLS && rows >= 0 && floe_cache_map(floe_buf_cstr(&path), &kf->map, &kf->len) == 0;
	floe_buf_free(&path);
	if (ok && !check(kf, data_path, rows, like, n, why)) {
		munmap(kf->map, kf->len);
		ok = false;
	}
	if (!ok) {
		free(kf);
		return NULL;
	}
	kf->n = n;
	size_t at = data_offset(n, strlen(data_path));
	for (size_t c = 0; c < n; c++) {
		floe_vector *v = &kf->cols[c];
		*v = (floe_vector){ .type = like[c]->type, .width = like[c]->width, .precision = like[c]->precision,
				    .scale = like[c]->scale, .len = (size_t)rows, .cap = (size_t)rows };
		v->v.u8 = kf->map + at;
		at += align((size_t)rows * col_width(like[c]));
	}
	return kf;
}

void floe_keyfile_free(floe_keyfile *kf)
{
	if (!kf)
		return;
	munmap(kf->map, kf->len);
	free(kf);
}

floe_vector *floe_keyfile_column(floe_keyfile *kf, size_t c)
{
	return c < kf->n ? &kf->cols[c] : NULL;
}

void floe_keyfile_remove(const char *dir, const char *data_path)
{
	floe_buf path = FLOE_BUF_INIT;
	name_of(&path, dir, data_path);
	unlink(floe_buf_cstr(&path));
	floe_buf_free(&path);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct live_names {
	char **names;                  /* sorted */
	size_t n;
} live_names;

/* A key file (not a live data file's) or a killed writer's temporary file. */
static bool not_live(const char *name, void *ctx)
{
	const live_names *l = ctx;
	size_t len = strlen(name);
	if (name[0] == '.')
		return floe_cache_is_temporary(name);
	return len > strlen(SUFFIX) && strcmp(name + len - strlen(SUFFIX), SUFFIX) == 0 &&
	       !bsearch(&name, l->names, l->n, sizeof(*l->names), cmp_str);
}

void floe_keyfile_prune(const char *dir, const char *const *live, size_t n)
{
	live_names l = { .names = floe_xcalloc(n + 1, sizeof(char *)), .n = n };
	floe_buf name = FLOE_BUF_INIT;
	for (size_t i = 0; i < n; i++) {
		name_of(&name, NULL, live[i]);
		l.names[i] = floe_xstrndup(floe_buf_cstr(&name), name.len);
	}
	qsort(l.names, n, sizeof(*l.names), cmp_str);
	floe_cache_remove_where(dir, not_live, &l);
	for (size_t i = 0; i < n; i++)
		free(l.names[i]);
	free(l.names);
	floe_buf_free(&name);
}
