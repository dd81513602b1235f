/*
 * fuzz_yaml.c — libFuzzer target for the YAML reader (src/yaml: dbt's schema.yml and
 * sources.yml, files people edit, so outside input).
 *
 * A rejected input must leave no document and set an error. An accepted one is walked
 * whole: every node's kind is known, every line and column is positive, every mapping key
 * is found again by floe_yaml_get (the first of equal keys).
 */
#include "base/error.h"
#include "yaml/yaml.h"

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

static void walk(const floe_yaml_node *n)
{
	require(n->line > 0 && n->col > 0);
	if (n->kind == FLOE_YAML_SCALAR) {
		require(n->value != NULL && n->n == 0);
		return;
	}
	require(n->kind == FLOE_YAML_SEQUENCE || n->kind == FLOE_YAML_MAPPING);
	size_t items = n->kind == FLOE_YAML_SEQUENCE ? n->n : 2 * n->n;
	for (size_t i = 0; i < items; i++)
		walk(n->items[i]);
	for (size_t i = 0; n->kind == FLOE_YAML_MAPPING && i < n->n; i++) {
		const char *key = floe_yaml_text(n->items[2 * i]);
		if (key && strlen(key) == n->items[2 * i]->len)
			require(floe_yaml_get(n, key) != NULL);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	floe_yaml_doc *doc = NULL;
	if (floe_yaml_parse(&doc, "fuzz.yml", (const char *)data, size) < 0) {
		require(doc == NULL && floe_error_last() != NULL);
		floe_error_clear();
		return 0;
	}
	if (floe_yaml_root(doc))
		walk(floe_yaml_root(doc));
	floe_yaml_free(doc);
	return 0;
}
