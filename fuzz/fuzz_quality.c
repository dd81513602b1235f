/*
 * fuzz_quality.c — libFuzzer target for the quality/<name>.toml reader (files a person
 * writes, so outside input).
 *
 * A rejected input must set an error positioned in the file ("quality/q.toml:L:C: …");
 * every accepted rule must be complete for its kind: a table and schema, a severity of
 * error or warn, columns where the kind needs them, min or max for range and row_count.
 */
#include "base/arena.h"
#include "base/error.h"
#include "config/quality.h"

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

static void check_rule(const floe_quality_rule *r)
{
	require(r->schema && r->table && r->kind && r->line >= 1 && r->col >= 1);
	require(strcmp(r->severity, "error") == 0 || strcmp(r->severity, "warn") == 0);
	require(strcmp(r->kind, "row_count") == 0 ? r->n_columns == 0 : r->n_columns > 0);
	if (strcmp(r->kind, "range") == 0 || strcmp(r->kind, "row_count") == 0)
		require(r->min || r->max);
	if (strcmp(r->kind, "regex") == 0)
		require(r->pattern != NULL);
	if (strcmp(r->kind, "accepted_values") == 0)
		require(r->n_values > 0);
	if (strcmp(r->kind, "freshness") == 0)
		require(r->max_age_seconds > 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	floe_arena *a = floe_arena_new();
	floe_quality_rule *rules = NULL;
	size_t n = 0;
	if (floe_quality_parse(&rules, &n, a, "quality/q.toml", (const char *)data, size) < 0) {
		const floe_error *e = floe_error_last();
		require(e && strncmp(e->message, "quality/q.toml:", 15) == 0);
		floe_error_clear();
	} else {
		for (size_t i = 0; i < n; i++)
			check_rule(&rules[i]);
	}
	floe_arena_free(a);
	return 0;
}
