/*
 * fuzz_silver_render.c — libFuzzer target for the silver model renderer, which reads
 * model files people edit (pipeline/dbt/models/silver/*.sql).
 *
 * The first byte sets is_incremental(); the rest is the model. Rendering must either
 * succeed or fail with a config error (exit 2) that names the file, and never read
 * past the input.
 */
#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "silver/silver.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *relation(void *ctx, const char *a, const char *b)
{
	(void)ctx;
	return strcmp(a, "bronze") == 0 && b[0] ? "\"bronze_in\".\"t\"" : NULL;
}

static const char *ref(void *ctx, const char *m)
{
	return relation(ctx, "bronze", m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	floe_arena *arena = floe_arena_new();
	floe_buf out = FLOE_BUF_INIT;
	floe_silver_model_config cfg;
	floe_silver_render_opts o = { .file = "m.sql", .incremental = data[0] & 1, .this_relation = "\"s\".\"t\"",
				      .source = relation, .ref = ref };
	/* a copy of exactly the model's bytes, so reading past them is caught */
	char *text = malloc(size - 1 ? size - 1 : 1);
	memcpy(text, data + 1, size - 1);
	if (floe_silver_render(&out, &cfg, arena, text, size - 1, &o) < 0) {
		const floe_error *e = floe_error_last();
		if (!e || e->cls != FLOE_ERR_CONFIG || !strstr(e->message, "m.sql"))
			abort();
	} else if (out.len > (size - 1) * 16 + 64) {
		abort(); /* a relation is at most 16 bytes per 2 bytes of tag */
	}
	free(text);
	floe_buf_free(&out);
	floe_error_clear();
	floe_arena_free(arena);
	return 0;
}
