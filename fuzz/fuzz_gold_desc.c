/*
 * fuzz_gold_desc.c — libFuzzer target for mart descriptions (marts/<name>.md: YAML front
 * matter read by src/yaml (libyaml)), which people write.
 *
 * Parsing must either succeed or fail with a config error naming the file, never read past
 * the input; a parsed description written back with a question section must parse again to
 * the same prose. A parsed description is then resolved against a small silver lock
 * (fuzz/gold_lock.json: customers, orders, order_items, visits) by the rules, and proposed when
 * no question remains: the phrase grammar, the joins and the SQL see every term the fuzzer makes.
 */
#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "gold/gold.h"
#include "gold/gold_int.h"
#include "plan/lock.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static floe_lock *lock;

/* No model is configured here (resolve gets none): the model's path is draft_model.c's, never reached. */
void gold_model_measure(floe_gold_mart *m, size_t measure)
{
	(void)m;
	(void)measure;
	abort();
}

/* Resolve and, without questions, propose: either way no crash, and a proposal names its mart. */
static void resolve(floe_arena *arena, const floe_gold_desc *d)
{
	floe_gold_mart *m = NULL;
	floe_gold_proposal *p = NULL;
	if (!lock && floe_lock_load(&lock, "fuzz/gold_lock.json") < 0)
		abort(); /* run from the repository root (scripts/fuzz.sh does) */
	if (floe_gold_resolve(&m, arena, d, lock, NULL) < 0)
		abort();
	if (floe_gold_question_count(m) == 0 && (floe_gold_propose(&p, arena, m) < 0 || strcmp(p->name, d->mart) != 0))
		abort();
}

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
		resolve(arena, d);
	}
	floe_buf_free(&b);
	free(text);
	floe_error_clear();
	floe_arena_free(arena);
	return 0;
}
