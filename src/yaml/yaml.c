/*
 * yaml.c — libyaml's document loader, converted into floe_yaml_node trees in an arena.
 */
#include "yaml/yaml.h"
#include "base/arena.h"
#include "base/error.h"

#include <string.h>
#include <yaml.h>

#define MAX_DEPTH 64
#define MAX_NODES 1000000 /* nodes made, aliases expanded: a bound on "billion laughs" */

struct floe_yaml_doc {
	floe_arena *arena;
	const floe_yaml_node *root;
};

typedef struct convert {
	yaml_document_t *doc;
	floe_arena *arena;
	size_t made;
} convert;

static const floe_yaml_node *node_of(convert *c, int index, int depth);

static int fill_children(convert *c, floe_yaml_node *n, const yaml_node_t *src, int depth)
{
	size_t count = src->type == YAML_SEQUENCE_NODE
			       ? (size_t)(src->data.sequence.items.top - src->data.sequence.items.start)
			       : (size_t)(src->data.mapping.pairs.top - src->data.mapping.pairs.start) * 2;
	n->items = floe_arena_alloc(c->arena, (count ? count : 1) * sizeof(*n->items));
	n->n = src->type == YAML_SEQUENCE_NODE ? count : count / 2;
	for (size_t i = 0; i < count; i++) {
		int idx = src->type == YAML_SEQUENCE_NODE ? src->data.sequence.items.start[i]
			  : i % 2 == 0 ? src->data.mapping.pairs.start[i / 2].key
				       : src->data.mapping.pairs.start[i / 2].value;
		if (!(n->items[i] = node_of(c, idx, depth + 1)))
			return -1;
	}
	return 0;
}

static const floe_yaml_node *node_of(convert *c, int index, int depth)
{
	const yaml_node_t *src = yaml_document_get_node(c->doc, index);
	if (!src || depth > MAX_DEPTH || ++c->made > MAX_NODES) {
		floe_error_set(FLOE_ERR_CONFIG, "%s", !src ? "a node refers to nothing"
						: depth > MAX_DEPTH ? "nested deeper than 64 levels (or an alias inside its own anchor)"
								    : "too many nodes once aliases are expanded");
		return NULL;
	}
	floe_yaml_node *n = floe_arena_alloc(c->arena, sizeof(*n));
	memset(n, 0, sizeof(*n));
	n->line = (int)src->start_mark.line + 1;
	n->col = (int)src->start_mark.column + 1;
	if (src->type == YAML_SCALAR_NODE) {
		n->kind = FLOE_YAML_SCALAR;
		n->len = src->data.scalar.length;
		n->value = floe_arena_strndup(c->arena, (const char *)src->data.scalar.value, n->len);
		return n;
	}
	n->kind = src->type == YAML_SEQUENCE_NODE ? FLOE_YAML_SEQUENCE : FLOE_YAML_MAPPING;
	return fill_children(c, n, src, depth) < 0 ? NULL : n;
}

int floe_yaml_parse(floe_yaml_doc **out, const char *name, const char *text, size_t len)
{
	yaml_parser_t parser;
	yaml_document_t document;
	bool loaded = false;
	floe_yaml_doc *d = floe_xcalloc(1, sizeof(*d));
	int error = -1;
	*out = NULL;
	d->arena = floe_arena_new();
	if (!yaml_parser_initialize(&parser)) {
		floe_error_set(FLOE_ERR_INTERNAL, "could not start the YAML parser");
		goto cleanup_doc;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &document)) {
		floe_error_set(FLOE_ERR_CONFIG, "%s:%zu:%zu: %s", name, parser.problem_mark.line + 1,
			       parser.problem_mark.column + 1, parser.problem ? parser.problem : "not valid YAML");
		if (parser.context)
			floe_error_detail("The problem is %s.", parser.context);
		floe_error_hint("Fix the YAML at that place.");
		goto cleanup;
	}
	loaded = true;
	if (yaml_document_get_root_node(&document)) {
		convert c = { &document, d->arena, 0 };
		if (!(d->root = node_of(&c, 1, 0))) {
			floe_error_context("while reading %s", name);
			goto cleanup;
		}
	}
	*out = d;
	d = NULL;
	error = 0;
cleanup:
	if (loaded)
		yaml_document_delete(&document);
	yaml_parser_delete(&parser);
cleanup_doc:
	floe_yaml_free(d);
	return error;
}

void floe_yaml_free(floe_yaml_doc *doc)
{
	if (!doc)
		return;
	floe_arena_free(doc->arena);
	free(doc);
}

const floe_yaml_node *floe_yaml_root(const floe_yaml_doc *doc)
{
	return doc ? doc->root : NULL;
}

const floe_yaml_node *floe_yaml_get(const floe_yaml_node *map, const char *key)
{
	if (!map || map->kind != FLOE_YAML_MAPPING)
		return NULL;
	for (size_t i = 0; i < map->n; i++) {
		const floe_yaml_node *k = map->items[2 * i];
		if (k->kind == FLOE_YAML_SCALAR && strcmp(k->value, key) == 0)
			return map->items[2 * i + 1];
	}
	return NULL;
}

const char *floe_yaml_text(const floe_yaml_node *node)
{
	return node && node->kind == FLOE_YAML_SCALAR ? node->value : NULL;
}

size_t floe_yaml_count(const floe_yaml_node *seq)
{
	return seq && seq->kind == FLOE_YAML_SEQUENCE ? seq->n : 0;
}

const floe_yaml_node *floe_yaml_at(const floe_yaml_node *seq, size_t i)
{
	return i < floe_yaml_count(seq) ? seq->items[i] : NULL;
}
