/*
 * test_keyindex.c — the key index: lookups of whole keys and of their first column across
 * segments, what a reopened index holds, pruning and folding, and damage found (a damaged
 * segment left out at open; damaged entries failing the lookup that reads them).
 */
#include "harness.h"

#include "base/buf.h"
#include "base/error.h"
#include "base/fs.h"
#include "keyindex/keyindex.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define W 12 /* a key of two columns: 8 bytes, then 4 */

typedef struct hits {
	const char *path[16];
	int64_t pos[16];
	size_t n;
} hits;

static int hit(void *ctx, const char *path, int64_t pos)
{
	hits *h = ctx;
	if (h->n < 16)
		h->path[h->n] = path, h->pos[h->n] = pos;
	h->n++;
	return 0;
}

static void key_of(uint8_t *k, int64_t a, int32_t b)
{
	memcpy(k, &a, 8);
	memcpy(k + 8, &b, 4);
}

/* n keys (i, i % 3) for i from `first`; with `pairs`, two rows a first column: (i / 2, i % 2). */
static floe_keyindex_file file_of(const char *path, int64_t first, int64_t n, bool pairs)
{
	uint8_t *keys = malloc((size_t)n * W);
	for (int64_t i = 0; i < n; i++)
		key_of(keys + i * W, pairs ? (first + i) / 2 : first + i, pairs ? (int32_t)((first + i) % 2)
										  : (int32_t)((first + i) % 3));
	return (floe_keyindex_file){ .path = path, .rows = n, .keys = keys };
}

static void file_free(floe_keyindex_file *f)
{
	free((void *)f->keys);
}

static hits find(floe_keyindex *ix, int64_t a, int32_t b, size_t len)
{
	uint8_t k[W];
	hits h = { 0 };
	key_of(k, a, b);
	FLOE_CHECK(floe_keyindex_find(ix, k, len, hit, &h) == 0);
	return h;
}

static char *temp_dir(void)
{
	char tmpl[] = "/tmp/floe-keyindex-XXXXXX";
	char *d = mkdtemp(tmpl);
	return d ? strdup(d) : NULL;
}

FLOE_TEST(keyindex_finds_whole_keys_and_first_columns_across_segments)
{
	char *dir = temp_dir();
	floe_keyindex *ix = NULL;
	FLOE_CHECK(dir && floe_keyindex_open(&ix, dir, W, 8) == 0);
	floe_keyindex_file a = file_of("s3://w/a.parquet", 0, 5000, false), b = file_of("s3://w/b.parquet", 10000, 300, true);
	FLOE_CHECK(floe_keyindex_add(ix, &a, 1) == 0);
	FLOE_CHECK(floe_keyindex_add(ix, &b, 1) == 0);
	FLOE_CHECK(floe_keyindex_add(ix, &a, 1) == 0); /* held already: no third segment */
	FLOE_CHECK(floe_keyindex_segments(ix) == 2);
	FLOE_CHECK(floe_keyindex_has_file(ix, "s3://w/a.parquet", 5000));
	FLOE_CHECK(!floe_keyindex_has_file(ix, "s3://w/a.parquet", 4999)); /* another file at that path */
	FLOE_CHECK(!floe_keyindex_has_file(ix, "s3://w/c.parquet", 5000));
	hits h = find(ix, 1234, 1234 % 3, W);
	FLOE_CHECK(h.n == 1 && strcmp(h.path[0], "s3://w/a.parquet") == 0 && h.pos[0] == 1234);
	h = find(ix, 5004, 1, W); /* b's rows 8 and 9 are (5004, 0) and (5004, 1) */
	FLOE_CHECK(h.n == 1 && strcmp(h.path[0], "s3://w/b.parquet") == 0 && h.pos[0] == 9);
	h = find(ix, 5004, 0, 8); /* by the first column alone: both */
	FLOE_CHECK(h.n == 2 && h.pos[0] + h.pos[1] == 17 && strcmp(h.path[1], "s3://w/b.parquet") == 0);
	FLOE_CHECK(find(ix, 5004, 2, W).n == 0);
	FLOE_CHECK(find(ix, 1234, 2, W).n == 0);        /* the first column's, not the second's */
	FLOE_CHECK(find(ix, 1234, 0, 8).n == 1);
	FLOE_CHECK(find(ix, 99999, 0, 8).n == 0);
	floe_keyindex_free(ix);

	/* reopened: the same answers from the files on disk */
	FLOE_CHECK(floe_keyindex_open(&ix, dir, W, 8) == 0);
	FLOE_CHECK(floe_keyindex_segments(ix) == 2 && floe_keyindex_has_file(ix, "s3://w/b.parquet", 300));
	FLOE_CHECK(find(ix, 5149, 1, W).n == 1); /* b's last row */
	h = find(ix, 4999, 4999 % 3, W);
	FLOE_CHECK(h.n == 1 && h.pos[0] == 4999);
	floe_keyindex_free(ix);

	/* another key layout: nothing of it */
	FLOE_CHECK(floe_keyindex_open(&ix, dir, 16, 16) == 0);
	FLOE_CHECK(floe_keyindex_segments(ix) == 0 && !floe_keyindex_has_file(ix, "s3://w/a.parquet", 5000));
	floe_keyindex_free(ix);
	file_free(&a);
	file_free(&b);
	floe_fs_remove_tree(dir);
	free(dir);
}

FLOE_TEST(keyindex_prunes_files_no_longer_live_and_folds_segments)
{
	char *dir = temp_dir();
	floe_keyindex *ix = NULL;
	FLOE_CHECK(dir && floe_keyindex_open(&ix, dir, W, 8) == 0);
	char paths[12][32];
	const char *live[12];
	for (int i = 0; i < 12; i++) {
		snprintf(paths[i], sizeof(paths[i]), "/w/f%02d.parquet", i);
		floe_keyindex_file f = file_of(paths[i], i * 100, 100, false);
		FLOE_CHECK(floe_keyindex_add(ix, &f, 1) == 0);
		file_free(&f);
		live[i] = paths[i];
	}
	FLOE_CHECK(floe_keyindex_segments(ix) == 12);
	/* f00 gone (rewritten): its segment leaves; the eleven left are more than eight: one segment */
	FLOE_CHECK(floe_keyindex_prune(ix, live + 1, 11) == 0);
	FLOE_CHECK(floe_keyindex_segments(ix) == 1);
	FLOE_CHECK(!floe_keyindex_has_file(ix, paths[0], 100) && floe_keyindex_has_file(ix, paths[11], 100));
	FLOE_CHECK(find(ix, 50, 50 % 3, W).n == 0);
	hits h = find(ix, 1150, 1150 % 3, W);
	FLOE_CHECK(h.n == 1 && strcmp(h.path[0], paths[11]) == 0 && h.pos[0] == 50);
	floe_keyindex_free(ix);
	FLOE_CHECK(floe_keyindex_open(&ix, dir, W, 8) == 0);
	FLOE_CHECK(floe_keyindex_segments(ix) == 1 && find(ix, 777, 777 % 3, W).n == 1);
	/* nothing live: nothing left, on disk too */
	FLOE_CHECK(floe_keyindex_prune(ix, NULL, 0) == 0);
	FLOE_CHECK(floe_keyindex_segments(ix) == 0);
	floe_keyindex_free(ix);
	FLOE_CHECK(floe_keyindex_open(&ix, dir, W, 8) == 0 && floe_keyindex_segments(ix) == 0);
	floe_keyindex_free(ix);
	floe_fs_remove_tree(dir);
	free(dir);
}

/* The one segment file of `dir` (not the manifest), its path into `out`. */
static void segment_path(floe_buf *out, const char *dir)
{
	floe_buf m = FLOE_BUF_INIT, p = FLOE_BUF_INIT;
	floe_buf_printf(&p, "%s/manifest", dir);
	FLOE_CHECK(floe_fs_read_file(&m, floe_buf_cstr(&p)) == 0);
	const char *name = strchr(floe_buf_cstr(&m), '\n');
	FLOE_CHECK(name != NULL);
	floe_buf_printf(out, "%s/%.*s", dir, (int)strcspn(name + 1, "\n"), name + 1);
	floe_buf_free(&m);
	floe_buf_free(&p);
}

static void flip_byte(const char *path, off_t at)
{
	int fd = open(path, O_RDWR);
	unsigned char c = 0;
	FLOE_CHECK(fd >= 0 && pread(fd, &c, 1, at) == 1);
	c ^= 0x40;
	FLOE_CHECK(pwrite(fd, &c, 1, at) == 1);
	close(fd);
}

FLOE_TEST(keyindex_damage_is_found_not_trusted)
{
	char *dir = temp_dir();
	floe_keyindex *ix = NULL;
	floe_buf seg = FLOE_BUF_INIT;
	FLOE_CHECK(dir && floe_keyindex_open(&ix, dir, W, 8) == 0);
	floe_keyindex_file a = file_of("/w/a.parquet", 0, 3000, false);
	FLOE_CHECK(floe_keyindex_add(ix, &a, 1) == 0);
	floe_keyindex_free(ix);
	segment_path(&seg, dir);

	/* a key's bytes (the last byte of the file: the last key's): a lookup that reads its run fails */
	struct stat st;
	FLOE_CHECK(stat(floe_buf_cstr(&seg), &st) == 0);
	off_t size = st.st_size;
	flip_byte(floe_buf_cstr(&seg), size - 1);
	FLOE_CHECK(floe_keyindex_open(&ix, dir, W, 8) == 0 && floe_keyindex_segments(ix) == 1);
	int failed = 0;
	uint8_t k[W];
	for (int64_t i = 0; i < 3000; i++) { /* every key: one of them is in the damaged run */
		hits h = { 0 };
		key_of(k, i, (int32_t)(i % 3));
		if (floe_keyindex_find(ix, k, W, hit, &h) < 0) {
			failed++;
			FLOE_CHECK(floe_error_last()->cls == FLOE_ERR_CHECK);
			floe_error_clear();
		}
	}
	FLOE_CHECK(failed > 0 && failed < 3000);
	floe_keyindex_free(ix);
	flip_byte(floe_buf_cstr(&seg), size - 1);

	/* the header (a file's row count): the segment is left out, its file not in the index */
	flip_byte(floe_buf_cstr(&seg), 64);
	FLOE_CHECK(floe_keyindex_open(&ix, dir, W, 8) == 0);
	FLOE_CHECK(floe_keyindex_segments(ix) == 0 && !floe_keyindex_has_file(ix, "/w/a.parquet", 3000));
	floe_keyindex_free(ix);

	/* truncated: left out too */
	FLOE_CHECK(truncate(floe_buf_cstr(&seg), size - 5) == 0);
	FLOE_CHECK(floe_keyindex_open(&ix, dir, W, 8) == 0 && floe_keyindex_segments(ix) == 0);
	floe_keyindex_free(ix);
	file_free(&a);
	floe_buf_free(&seg);
	floe_fs_remove_tree(dir);
	free(dir);
}
