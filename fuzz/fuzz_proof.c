/*
 * fuzz_proof.c — libFuzzer target for the watermark proof, which reads trigger
 * functions from the source (outside input) through libpg_query.
 *
 * The first byte chooses the input's form: even, a PL/pgSQL tree as JSON fed
 * straight to the walker (any shape, however malformed); odd, a function body
 * wrapped in CREATE FUNCTION … LANGUAGE plpgsql and parsed first. Either way the
 * analysis must finish with a verdict, and a FAILED verdict must say why.
 */
#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/json.h"
#include "plan/proof.h"

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

static void check(const floe_proof_result *r)
{
	require(r->verdict == FLOE_PROOF_PROVEN || r->verdict == FLOE_PROOF_UNTOUCHED ||
		r->verdict == FLOE_PROOF_FAILED);
	require(r->verdict != FLOE_PROOF_FAILED || (r->why && r->why[0]));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	floe_arena *arena = floe_arena_new();
	floe_proof_result r;
	if (size > 0 && (data[0] & 1)) {
		floe_buf src = FLOE_BUF_INIT;
		floe_buf_puts(&src, "CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $fuzz$");
		floe_buf_put(&src, data + 1, size - 1);
		floe_buf_puts(&src, "$fuzz$");
		if (!memchr(data + 1, '\0', size - 1)) {
			require(floe_proof_analyze_source(&r, arena, floe_buf_cstr(&src), "updated_at") == 0);
			check(&r);
		}
		floe_buf_free(&src);
	} else if (size > 0) {
		floe_json_doc *doc = NULL;
		if (floe_json_parse(&doc, (const char *)data + 1, size - 1, NULL) == 0) {
			require(floe_proof_analyze(&r, arena, floe_json_root(doc), "updated_at") == 0);
			check(&r);
		}
		floe_json_free(doc);
	}
	floe_error_clear();
	floe_arena_free(arena);
	return 0;
}
