/*
 * test_keyfile.c — a data file's key file: written and read back through its column views,
 * refused when it is another data file's, another key's, of other rows, cut short or damaged
 * (never trusted: the caller reads the data file again), removed, and pruned to the live files.
 */
#include "harness.h"

#include "base/buf.h"
#include "base/fs.h"
#include "keyindex/keyfile.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *temp_dir(void)
{
	char tmpl[] = "/tmp/floe-keyfile-XXXXXX";
	char *d = mkdtemp(tmpl);
	return d ? strdup(d) : NULL;
}

/* Two key columns: a bigint (i * 2) and a uuid (i's bytes, big-end last). */
static void keys_of(floe_vector *v, size_t rows)
{
	floe_vector_init(&v[0], FLOE_VEC_LONG, 0);
	floe_vector_init(&v[1], FLOE_VEC_UUID, 16);
	for (size_t i = 0; i < rows; i++) {
		uint8_t u[16] = { 0 };
		u[15] = (uint8_t)i, u[14] = (uint8_t)(i >> 8);
		floe_vector_append_i64(&v[0], (int64_t)i * 2);
		floe_vector_append_fixed(&v[1], u);
	}
}

static size_t files_in(const char *dir)
{
	size_t n = 0;
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d)) != NULL;)
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/* The one key file under dir, its path into out. */
static void only_file(const char *dir, floe_buf *out)
{
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d)) != NULL;)
		if (e->d_name[0] != '.')
			floe_buf_printf(out, "%s/%s", dir, e->d_name);
	if (d)
		closedir(d);
}

FLOE_TEST(keyfile_is_read_back_through_its_columns)
{
	char *dir = temp_dir();
	floe_vector v[2];
	floe_vector *keys[2] = { &v[0], &v[1] };
	const char *why = NULL;
	keys_of(v, 3000);
	FLOE_CHECK(dir && floe_keyfile_write(dir, "s3://w/data/a.parquet", keys, 2) == 0);
	floe_keyfile *kf = floe_keyfile_open(dir, "s3://w/data/a.parquet", 3000, keys, 2, &why);
	FLOE_CHECK(kf != NULL);
	if (kf) {
		floe_vector *a = floe_keyfile_column(kf, 0), *b = floe_keyfile_column(kf, 1);
		FLOE_CHECK(a->len == 3000 && b->len == 3000 && floe_keyfile_column(kf, 2) == NULL);
		bool same = true;
		for (size_t i = 0; i < 3000; i++)
			same = same && floe_vector_compare_rows(a, i, &v[0], i) == 0 &&
			       floe_vector_compare_rows(b, i, &v[1], i) == 0;
		FLOE_CHECK(same);
		FLOE_CHECK(floe_vector_compare_rows(b, 2999, b, 256) > 0);
		floe_keyfile_free(kf);
	}
	/* another data file's, other rows, another key */
	FLOE_CHECK(floe_keyfile_open(dir, "s3://w/data/b.parquet", 3000, keys, 2, &why) == NULL);
	FLOE_CHECK(floe_keyfile_open(dir, "s3://w/data/a.parquet", 2999, keys, 2, &why) == NULL);
	FLOE_CHECK(why && strstr(why, "another") != NULL);
	floe_vector *swapped[2] = { &v[1], &v[0] };
	FLOE_CHECK(floe_keyfile_open(dir, "s3://w/data/a.parquet", 3000, swapped, 2, &why) == NULL);
	FLOE_CHECK(floe_keyfile_open(dir, "s3://w/data/a.parquet", 3000, keys, 1, &why) == NULL);
	floe_keyfile_remove(dir, "s3://w/data/a.parquet");
	FLOE_CHECK(files_in(dir) == 0);
	FLOE_CHECK(floe_keyfile_open(dir, "s3://w/data/a.parquet", 3000, keys, 2, &why) == NULL);
	FLOE_CHECK(why && strcmp(why, "there is none") == 0);
	floe_vector_free(&v[0]);
	floe_vector_free(&v[1]);
	floe_fs_remove_tree(dir);
	free(dir);
}

FLOE_TEST(keyfile_damage_and_a_short_file_are_not_trusted)
{
	char *dir = temp_dir();
	floe_vector v[2];
	floe_vector *keys[2] = { &v[0], &v[1] };
	floe_buf path = FLOE_BUF_INIT;
	const char *why = NULL;
	keys_of(v, 500);
	FLOE_CHECK(dir && floe_keyfile_write(dir, "a.parquet", keys, 2) == 0);
	only_file(dir, &path);
	int fd = open(floe_buf_cstr(&path), O_RDWR);
	FLOE_CHECK(fd >= 0);
	off_t end = lseek(fd, 0, SEEK_END);
	uint8_t byte;
	FLOE_CHECK(pread(fd, &byte, 1, end - 100) == 1); /* a key's byte */
	byte ^= 0x40;
	FLOE_CHECK(pwrite(fd, &byte, 1, end - 100) == 1);
	FLOE_CHECK(floe_keyfile_open(dir, "a.parquet", 500, keys, 2, &why) == NULL);
	FLOE_CHECK(why && strstr(why, "checksum") != NULL);
	byte ^= 0x40;
	FLOE_CHECK(pwrite(fd, &byte, 1, end - 100) == 1);
	floe_keyfile *kf = floe_keyfile_open(dir, "a.parquet", 500, keys, 2, &why);
	FLOE_CHECK(kf != NULL); /* mended: trusted again */
	floe_keyfile_free(kf);
	FLOE_CHECK(ftruncate(fd, end - 64) == 0);
	FLOE_CHECK(floe_keyfile_open(dir, "a.parquet", 500, keys, 2, &why) == NULL);
	close(fd);
	floe_vector_free(&v[0]);
	floe_vector_free(&v[1]);
	floe_buf_free(&path);
	floe_fs_remove_tree(dir);
	free(dir);
}

FLOE_TEST(keyfile_prune_keeps_the_live_files_and_sweeps_temporaries)
{
	char *dir = temp_dir();
	floe_vector v[2];
	floe_vector *keys[2] = { &v[0], &v[1] };
	floe_buf tmp = FLOE_BUF_INIT;
	const char *why = NULL;
	keys_of(v, 10);
	FLOE_CHECK(dir && floe_keyfile_write(dir, "a.parquet", keys, 2) == 0);
	FLOE_CHECK(floe_keyfile_write(dir, "b.parquet", keys, 2) == 0);
	FLOE_CHECK(floe_keyfile_write(dir, "c.parquet", keys, 2) == 0);
	floe_buf_printf(&tmp, "%s/.0123.keys.tmp", dir); /* a killed writer's */
	int fd = open(floe_buf_cstr(&tmp), O_WRONLY | O_CREAT, 0600);
	FLOE_CHECK(fd >= 0 && write(fd, "x", 1) == 1);
	close(fd);
	const char *live[] = { "c.parquet", "a.parquet" };
	floe_keyfile_prune(dir, live, 2);
	FLOE_CHECK(files_in(dir) == 2);
	FLOE_CHECK(access(floe_buf_cstr(&tmp), F_OK) != 0);
	floe_keyfile *kf = floe_keyfile_open(dir, "a.parquet", 10, keys, 2, &why);
	FLOE_CHECK(kf != NULL);
	floe_keyfile_free(kf);
	FLOE_CHECK(floe_keyfile_open(dir, "b.parquet", 10, keys, 2, &why) == NULL);
	floe_vector_free(&v[0]);
	floe_vector_free(&v[1]);
	floe_buf_free(&tmp);
	floe_fs_remove_tree(dir);
	free(dir);
}
