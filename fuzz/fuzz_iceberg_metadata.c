/*
 * fuzz_iceberg_metadata.c — libFuzzer target for the Iceberg table metadata reader
 * (and the schema reader under it).
 *
 * Any input must be read or refused cleanly. Accepted metadata is written back out
 * and must read again, and writing that must give the same text: the writer emits
 * only what the reader accepts, and one round trip reaches a fixed point.
 */
#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "iceberg/metadata.h"

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
	floe_arena *a = floe_arena_new();
	floe_iceberg_metadata *m = NULL, *again = NULL;
	floe_buf first = FLOE_BUF_INIT, second = FLOE_BUF_INIT;
	if (floe_iceberg_metadata_parse(&m, a, (const char *)data, size) == 0) {
		require(m && floe_iceberg_metadata_current_schema(m) != NULL);
		require(floe_iceberg_metadata_write(&first, m) == 0);
		require(floe_iceberg_metadata_parse(&again, a, first.ptr, first.len) == 0);
		require(floe_iceberg_metadata_write(&second, again) == 0);
		require(first.len == second.len && memcmp(first.ptr, second.ptr, first.len) == 0);
		for (size_t i = 0; i < m->n_schemas; i++)
			(void)floe_iceberg_schema_validate(m->schemas[i]);
	} else {
		require(m == NULL && floe_error_last() != NULL);
	}
	floe_error_clear();
	floe_buf_free(&first);
	floe_buf_free(&second);
	floe_arena_free(a);
	return 0;
}
