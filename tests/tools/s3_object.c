/*
 * s3_object.c — build/tools/s3_object: a test helper (not a user command) that drives floe's
 * s3 storage backend directly, so tests/it/test_s3_faults.py can check create-never-replace and
 * ranged reads against a real S3 server.
 *
 *   s3_object ENDPOINT put URI FILE     create URI from FILE (multipart above 8 MiB)
 *   s3_object ENDPOINT get URI          the object's bytes on stdout, read in 1 MiB ranges
 *
 * Credentials from FLOE_S3_KEY and FLOE_S3_SECRET; path-style, region us-east-1.
 * Exit 0 ok, 1 failure (floe's error on stderr; "exists" for a taken name), 2 usage.
 */
#include "base/error.h"
#include "iceberg/storage_s3.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int put(floe_iceberg_storage *st, const char *uri, const char *path)
{
	floe_iceberg_writer *w = NULL;
	char buf[65536];
	size_t n;
	FILE *f = fopen(path, "rb");
	int error = -1;
	if (!f) {
		floe_error_set_errno(FLOE_ERR_IO, "could not open \"%s\"", path);
		return -1;
	}
	if (floe_iceberg_storage_open_write(&w, st, uri) < 0)
		goto cleanup;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		if (floe_iceberg_writer_write(w, buf, n) < 0)
			goto cleanup;
	error = floe_iceberg_writer_close(w);
	w = NULL;
cleanup:
	floe_iceberg_writer_abort(w);
	fclose(f);
	return error;
}

static int get(floe_iceberg_storage *st, const char *uri)
{
	floe_iceberg_reader *r = NULL;
	static char buf[1 << 20];
	if (floe_iceberg_storage_open_read(&r, st, uri) < 0)
		return -1;
	int64_t size = floe_iceberg_reader_size(r);
	int error = 0;
	for (int64_t off = 0; off < size && error == 0; off += (int64_t)sizeof(buf)) {
		size_t len = size - off < (int64_t)sizeof(buf) ? (size_t)(size - off) : sizeof(buf);
		error = floe_iceberg_reader_read_at(r, buf, len, off);
		if (error == 0)
			fwrite(buf, 1, len, stdout);
	}
	floe_iceberg_reader_close(r);
	return error;
}

int main(int argc, char **argv)
{
	floe_iceberg_storage *st = NULL;
	if (argc < 4 || (strcmp(argv[2], "put") == 0 && argc != 5) || (strcmp(argv[2], "get") == 0 && argc != 4)) {
		fprintf(stderr, "usage: s3_object ENDPOINT put URI FILE | get URI\n");
		return 2;
	}
	floe_iceberg_s3_opts o = { .location = argv[3], .endpoint = argv[1], .path_style = true,
				   .access_key_env = "FLOE_S3_KEY", .secret_key_env = "FLOE_S3_SECRET" };
	int rc = floe_iceberg_storage_s3(&st, &o);
	if (rc == 0)
		rc = strcmp(argv[2], "put") == 0 ? put(st, argv[3], argv[4]) : get(st, argv[3]);
	if (rc < 0) {
		if (floe_iceberg_storage_error_kind() == FLOE_ICEBERG_STORAGE_EXISTS)
			fprintf(stderr, "exists\n");
		floe_error_print(stderr);
	}
	floe_iceberg_storage_free(st);
	return rc < 0 ? 1 : 0;
}
