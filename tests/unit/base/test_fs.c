/*
 * test_fs.c — floe_fs_writev_all: pieces of every size (empty ones, one larger than a call's
 * 256 KB, many small ones past the 64 a call takes) reach the file whole and in order.
 */
#include "harness.h"
#include "base/fs.h"
#include "base/buf.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

FLOE_TEST(fs_writev_all_writes_every_piece_in_order)
{
	enum { PIECES = 300 };
	size_t sizes[PIECES], total = 0;
	for (size_t i = 0; i < PIECES; i++) {
		sizes[i] = i % 7 == 0 ? 0 : (i * 7919) % 5000;
		total += sizes[i];
	}
	total -= sizes[5];
	sizes[5] = 1536 * 1024 + 3; /* more than a call takes, and not a multiple of it */
	total += sizes[5];
	uint8_t *data = malloc(total);
	for (size_t i = 0; i < total; i++)
		data[i] = (uint8_t)(i * 2654435761u >> 11);
	struct iovec iov[PIECES];
	for (size_t i = 0, off = 0; i < PIECES; off += sizes[i], i++)
		iov[i] = (struct iovec){ data + off, sizes[i] };
	char path[] = "/tmp/floe-test-fs-XXXXXX";
	int fd = mkstemp(path);
	FLOE_CHECK(fd >= 0);
	FLOE_CHECK(floe_fs_writev_all(fd, iov, PIECES) == 0);
	FLOE_CHECK(floe_fs_write_all(fd, "tail", 4) == 0);
	close(fd);
	floe_buf back = FLOE_BUF_INIT;
	floe_buf_init(&back, (size_t)64 << 20);
	FLOE_CHECK(floe_fs_read_file(&back, path) == 0);
	FLOE_CHECK(back.len == total + 4);
	FLOE_CHECK(back.len == total + 4 && memcmp(back.ptr, data, total) == 0 && memcmp(back.ptr + total, "tail", 4) == 0);
	floe_buf_free(&back);
	unlink(path);
	free(data);
}

FLOE_TEST(fs_write_all_fails_with_errno_on_a_closed_descriptor)
{
	char path[] = "/tmp/floe-test-fs-XXXXXX";
	int fd = mkstemp(path);
	close(fd);
	unlink(path);
	FLOE_CHECK(floe_fs_write_all(fd, "x", 1) == -1);
}
