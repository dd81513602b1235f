/*
 * fuzz_gold_desc.c — libFuzzer target for mart descriptions (marts/<name>.md: YAML front
 * matter read by src/yaml (libyaml)), which people write.
 *
 * Parsing must either succeed or fail with a config error naming the file, never read past
 * the input; a parsed description written back with a question section must parse again to
 * the same prose.
 */
#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "gold/gold.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	floe_arena *arena = floe_arena_new();
	floe_gold_desc *d = NULL, *again = NULL;
	floe_buf b = FLOE_BUF_INIT;
	/* a copy of exactly the input's bytes, so reading past them is caught */
	char *text = malloc(size ? size : 1);
	memcpy(text, data, size);
	if (floe_gold_desc_parse(&d, arena, "m.md", text, size) < 0) {
		const floe_error *e = floe_error_last();
		if (!e || e->cls != FLOE_ERR_CONFIG || !strstr(e->message, "m.md"))
			abort();
	} else {
		floe_gold_question q = { .term = "grain", .line = 1, .text = "a question" };
		floe_gold_desc_with_questions(&b, d, &q, 1);
		if (floe_gold_desc_parse(&again, arena, "m.md", b.ptr, b.len) < 0 || strcmp(again->prose, d->prose) != 0)
			abort();
	}
	floe_buf_free(&b);
	free(text);
	floe_error_clear();
	floe_arena_free(arena);
	return 0;
}
