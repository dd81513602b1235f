/*
 * yaml.h — YAML documents (dbt's schema.yml and sources.yml, front matter) read into a small
 * tree with line numbers. The one module that calls libyaml.
 *
 * Only the first document is read. Aliases are expanded, within a depth of 64 and a budget of
 * nodes, so a hostile file (an alias inside its own anchor, "billion laughs") is refused, not
 * followed. Tags are ignored: every scalar is its text.
 */
#ifndef FLOE_YAML_YAML_H
#define FLOE_YAML_YAML_H

#include <stddef.h>

typedef enum floe_yaml_kind {
	FLOE_YAML_SCALAR = 0,
	FLOE_YAML_SEQUENCE,
	FLOE_YAML_MAPPING
} floe_yaml_kind;

typedef struct floe_yaml_node floe_yaml_node;

struct floe_yaml_node {
	floe_yaml_kind kind;
	const char *value;          /* scalar: its text (NUL-terminated); else NULL */
	size_t len;                 /* scalar: bytes in value (it may hold NUL) */
	const floe_yaml_node **items; /* sequence: n items; mapping: keys at 2i, values at 2i + 1 */
	size_t n;                   /* sequence items or mapping pairs */
	int line, col;              /* 1-based, where the node starts */
};

typedef struct floe_yaml_doc floe_yaml_doc;

/*
 * Parse `len` bytes of `text`; `name` labels messages ("models/schema.yml:3:5: ..."). Errors:
 * FLOE_ERR_CONFIG with the line and column. An empty document parses to a NULL root.
 */
int floe_yaml_parse(floe_yaml_doc **out, const char *name, const char *text, size_t len);
void floe_yaml_free(floe_yaml_doc *doc);

const floe_yaml_node *floe_yaml_root(const floe_yaml_doc *doc);

/* The value of `key` in a mapping; NULL when absent or when `map` is not a mapping. */
const floe_yaml_node *floe_yaml_get(const floe_yaml_node *map, const char *key);

/* The scalar text of `node`; NULL when it is not a scalar (or NULL). */
const char *floe_yaml_text(const floe_yaml_node *node);

/* Items of a sequence (0 for anything else). */
size_t floe_yaml_count(const floe_yaml_node *seq);
const floe_yaml_node *floe_yaml_at(const floe_yaml_node *seq, size_t i);

#endif
