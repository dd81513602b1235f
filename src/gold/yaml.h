/*
 * yaml.h — the YAML subset of mart descriptions' front matter (marts/<name>.md):
 * block mappings, block sequences (`- item`, a mapping inside an item too), flow
 * sequences on one line (`[a, 'b', [c]]`), plain, single- and double-quoted scalars,
 * `#` comments. Anything else YAML has — flow mappings, block scalars (`|`, `>`),
 * anchors, aliases, tags, directives, multi-line plain scalars, tabs in indentation —
 * is refused with FLOE_ERR_CONFIG naming file:line:col, as are duplicate keys.
 */
#ifndef FLOE_GOLD_YAML_H
#define FLOE_GOLD_YAML_H

#include <stdbool.h>
#include <stddef.h>

typedef struct floe_arena floe_arena;

typedef enum floe_yaml_kind {
	FLOE_YAML_SCALAR = 0,
	FLOE_YAML_MAP,
	FLOE_YAML_SEQ
} floe_yaml_kind;

typedef struct floe_yaml floe_yaml;

/* One node. A mapping's keys are scalar nodes (keys[i] names items[i]); a sequence has no keys. */
struct floe_yaml {
	floe_yaml_kind kind;
	int line, col;                    /* 1-based, in the file (the parse's first_line offset applied) */
	const char *scalar;               /* SCALAR: the text, unquoted and unescaped */
	bool quoted;                      /* SCALAR: written in quotes */
	bool empty;                       /* SCALAR: nothing was written (`key:` with no value) */
	floe_yaml **keys;                 /* MAP */
	floe_yaml **items;                /* MAP values, SEQ items */
	size_t n, cap;
};

/*
 * Parse `len` bytes of `text` (no NUL needed) into *out, nodes in `arena`. `file` and
 * `first_line` (the file's line number of text's first line) place messages. Empty
 * text (only blanks and comments) is an empty mapping.
 */
int floe_yaml_parse(floe_yaml **out, floe_arena *arena, const char *file, int first_line, const char *text,
		    size_t len);

/* The value of `key` in mapping `map` (NULL: not a mapping, or no such key). */
const floe_yaml *floe_yaml_get(const floe_yaml *map, const char *key);

#endif
