/*
 * kettle.h — Pentaho Data Integration (Kettle) files as plain data: a .ktr
 * transformation (steps and hops) or a .kjb job (entries and hops), read by
 * kettle.c, the one file of floe that calls libxml2.
 *
 * Every string is owned by the arena handed to floe_kettle_read. Elements named
 * `password` and values that begin "Encrypted " are dropped while reading: no
 * credential reaches the translation, its comments or the report.
 */
#ifndef FLOE_PENTAHO_KETTLE_H
#define FLOE_PENTAHO_KETTLE_H

#include "base/buf.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct floe_arena floe_arena;

/* Files larger than this are refused before they are parsed. */
#define FLOE_KETTLE_MAX_BYTES ((size_t)32 << 20)
/* Deeper element nesting is refused (Kettle files nest about 8 deep). */
#define FLOE_KETTLE_MAX_DEPTH 64

/* One XML element: its name, its own text (direct text and CDATA, concatenated) and children. */
typedef struct floe_kettle_node {
	const char *name;
	const char *text;
	struct floe_kettle_node **children;
	size_t n_children;
	size_t cap;
} floe_kettle_node;

typedef struct floe_kettle_param {
	const char *name;
	const char *default_value; /* NULL: none */
	const char *description;
} floe_kettle_param;

typedef struct floe_kettle_step {
	const char *name;
	const char *type;              /* Kettle's step id: "TableInput", "FilterRows" … */
	const floe_kettle_node *node;  /* the whole <step> (or <entry>) element */
} floe_kettle_step;

typedef enum floe_kettle_hop_kind {
	FLOE_KETTLE_HOP_ALWAYS = 0,    /* a transformation's hop; a job's unconditional hop */
	FLOE_KETTLE_HOP_SUCCESS,       /* a job hop followed when the entry succeeded */
	FLOE_KETTLE_HOP_FAILURE        /* … when it failed */
} floe_kettle_hop_kind;

typedef struct floe_kettle_hop {
	size_t from, to;               /* indexes into steps */
	floe_kettle_hop_kind kind;
} floe_kettle_hop;

typedef struct floe_kettle_file {
	const char *path;              /* as given */
	const char *rel;               /* relative to the directory translated */
	bool is_job;                   /* .kjb */
	const char *name;              /* <info><name> or <name>; else the file's base name */
	floe_kettle_param *params;
	size_t n_params;
	floe_kettle_step *steps;       /* steps (.ktr) or entries (.kjb), in file order */
	size_t n_steps;
	floe_kettle_hop *hops;         /* enabled hops only */
	size_t n_hops;
	size_t n_disabled_hops;        /* disabled hops, ignored */
	size_t *order;                 /* steps in an order where every hop goes forward */
} floe_kettle_file;

/*
 * Parse `len` bytes of `data` (the content of `path`) as a Kettle file. The parser never
 * touches the network, loads no DTD and refuses any document that declares an entity
 * (billion laughs, external entities). Errors: FLOE_ERR_CONFIG naming the file and, for
 * malformed XML, the line; a hop cycle names its steps.
 */
int floe_kettle_read(floe_kettle_file **out, floe_arena *arena, const char *path, const char *rel,
		     const char *data, size_t len);

/* Read the file at `path` (refused above FLOE_KETTLE_MAX_BYTES without reading it). */
int floe_kettle_load(floe_kettle_file **out, floe_arena *arena, const char *path, const char *rel);

/* The first child of `node` named `name`, or NULL. */
const floe_kettle_node *floe_kettle_child(const floe_kettle_node *node, const char *name);
/* The text of the child named `name` ("" when absent); a path "a/b" descends. */
const char *floe_kettle_text(const floe_kettle_node *node, const char *path);
/* Whether that text is "Y" (Kettle's true). */
bool floe_kettle_yes(const floe_kettle_node *node, const char *path);
/* Index of the step named `name`, or -1. */
long floe_kettle_step_index(const floe_kettle_file *f, const char *name);

/* `node` as XML text (escaped, indented), for the comment that keeps a step's original form. */
void floe_kettle_render(floe_buf *out, const floe_kettle_node *node, int depth);

#endif
