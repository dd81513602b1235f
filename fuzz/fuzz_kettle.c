/*
 * fuzz_kettle.c — libFuzzer target for the Kettle reader (src/pentaho/kettle.c): any
 * bytes either read as a transformation or job, or fail with a config error naming
 * the file; never a crash, a leak or a read past the input.
 */
#include "base/arena.h"
#include "base/error.h"
#include "pentaho/kettle.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	floe_arena *arena = floe_arena_new();
	floe_kettle_file *f = NULL;
	char *copy = malloc(size ? size : 1);
	memcpy(copy, data, size);
	if (floe_kettle_read(&f, arena, "f.ktr", "f.ktr", copy, size) < 0) {
		const floe_error *e = floe_error_last();
		if (!e || e->cls != FLOE_ERR_CONFIG || !strstr(e->message, "f.ktr"))
			abort();
	} else {
		for (size_t i = 0; i < f->n_hops; i++)
			if (f->hops[i].from >= f->n_steps || f->hops[i].to >= f->n_steps)
				abort();
	}
	free(copy);
	floe_error_clear();
	floe_arena_free(arena);
	return 0;
}
