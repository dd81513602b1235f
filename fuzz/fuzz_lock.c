/*
 * fuzz_lock.c — libFuzzer target for the lakehouse.lock.json reader (a file a
 * person may edit, so outside input).
 *
 * A rejected input must leave no lock and set an error naming the file. An
 * accepted one is rendered, read back and rendered again: the two renderings
 * must be equal byte for byte, and every file hash it lists must be found.
 */
#include "base/buf.h"
#include "base/error.h"
#include "plan/lock.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(int ok)
{
	if (!ok)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	floe_lock *lock = NULL, *again = NULL;
	floe_buf a = FLOE_BUF_INIT, b = FLOE_BUF_INIT;
	if (floe_lock_parse(&lock, "lakehouse.lock.json", (const char *)data, size) < 0) {
		const floe_error *e = floe_error_last();
		require(lock == NULL && e && strstr(e->message, "lakehouse.lock.json"));
		floe_error_clear();
		return 0;
	}
	require(floe_lock_render(&a, lock) == 0);
	require(floe_lock_parse(&again, "again", a.ptr, a.len) == 0);
	require(floe_lock_render(&b, again) == 0);
	require(a.len == b.len && memcmp(a.ptr, b.ptr, a.len) == 0);
	for (size_t i = 0; i < floe_lock_count(lock); i++) {
		const floe_lock_table *t = floe_lock_at(lock, i);
		require(floe_lock_find(again, t->schema, t->name) != NULL);
		for (size_t j = 0; j < t->n_files; j++)
			require(floe_lock_file_hash(again, t->files[j].path) != NULL);
	}
	floe_lock_free(lock);
	floe_lock_free(again);
	floe_buf_free(&a);
	floe_buf_free(&b);
	return 0;
}
