/*
 * schema.h — Iceberg types and schemas (format version 2): the model, its JSON form
 * (spec Appendix C), validation, and schema evolution.
 *
 * The model is a tree of plain structs allocated in an arena the caller owns; a
 * schema never owns memory itself, and every function that builds one takes the
 * arena it builds in. Field ids are unique across the whole schema, nested
 * fields, list elements, map keys and values included.
 */
#ifndef FLOE_ICEBERG_SCHEMA_H
#define FLOE_ICEBERG_SCHEMA_H

#include "base/arena.h"
#include "base/buf.h"
#include "base/json.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum floe_iceberg_type_id {
	FLOE_ICEBERG_BOOLEAN,
	FLOE_ICEBERG_INT,
	FLOE_ICEBERG_LONG,
	FLOE_ICEBERG_FLOAT,
	FLOE_ICEBERG_DOUBLE,
	FLOE_ICEBERG_DECIMAL,
	FLOE_ICEBERG_DATE,
	FLOE_ICEBERG_TIME,
	FLOE_ICEBERG_TIMESTAMP,
	FLOE_ICEBERG_TIMESTAMPTZ,
	FLOE_ICEBERG_STRING,
	FLOE_ICEBERG_UUID,
	FLOE_ICEBERG_FIXED,
	FLOE_ICEBERG_BINARY,
	FLOE_ICEBERG_STRUCT,
	FLOE_ICEBERG_LIST,
	FLOE_ICEBERG_MAP
} floe_iceberg_type_id;

#define FLOE_ICEBERG_MAX_DECIMAL_PRECISION 38
/* Field ids above this are reserved for metadata columns (_file, _pos, …). */
#define FLOE_ICEBERG_MAX_FIELD_ID 2147483447

typedef struct floe_iceberg_type floe_iceberg_type;

typedef struct floe_iceberg_field {
	int32_t id;
	const char *name;
	bool required;
	floe_iceberg_type *type;
	const char *doc; /* NULL when none */
} floe_iceberg_field;

struct floe_iceberg_type {
	floe_iceberg_type_id id;
	int32_t precision, scale; /* decimal */
	int32_t length;           /* fixed */
	size_t n_fields;          /* struct */
	floe_iceberg_field *fields;
	int32_t element_id;       /* list */
	bool element_required;
	floe_iceberg_type *element;
	int32_t key_id, value_id; /* map (keys are always required) */
	bool value_required;
	floe_iceberg_type *key, *value;
};

typedef struct floe_iceberg_schema {
	int32_t schema_id;
	size_t n_fields;
	floe_iceberg_field *fields;
	size_t n_identifier_ids;
	int32_t *identifier_ids;
} floe_iceberg_schema;

/* ---- types ---- */

bool floe_iceberg_type_is_primitive(const floe_iceberg_type *type);

/* A primitive type (not decimal or fixed), a decimal, a fixed, in `arena`. */
floe_iceberg_type *floe_iceberg_type_new(floe_arena *arena, floe_iceberg_type_id id);
floe_iceberg_type *floe_iceberg_type_decimal(floe_arena *arena, int32_t precision, int32_t scale);
floe_iceberg_type *floe_iceberg_type_fixed(floe_arena *arena, int32_t length);

/* Parse a primitive type string ("long", "decimal(10, 2)", "fixed[16]"). */
int floe_iceberg_type_parse(floe_iceberg_type **out, floe_arena *arena, const char *s, size_t len);

/* Append the JSON of `type` (a string for primitives, an object otherwise). */
int floe_iceberg_type_write_json(floe_buf *out, const floe_iceberg_type *type);

/* "long", "decimal(10,2)", "struct"…; primitives in their spec spelling. */
const char *floe_iceberg_type_string(floe_arena *arena, const floe_iceberg_type *type);

bool floe_iceberg_type_equal(const floe_iceberg_type *a, const floe_iceberg_type *b);

/* Whether values of `from` may be read as `to` (int→long, float→double, decimal widening). */
bool floe_iceberg_type_promotable(const floe_iceberg_type *from, const floe_iceberg_type *to);

/* ---- schemas ---- */

/* Append the schema's JSON object (type, schema-id, identifier-field-ids, fields). */
int floe_iceberg_schema_write_json(floe_buf *out, const floe_iceberg_schema *schema);

/* Read a schema object; errors say which field and why. */
int floe_iceberg_schema_from_json(floe_iceberg_schema **out, floe_arena *arena,
				  const floe_json_value *json);

/*
 * Check the rules a writer must keep: ids positive, unique and not reserved, names
 * unique per struct and non-empty, decimal precision 1..38 with scale ≤ precision,
 * identifier fields required primitives of the top level or nested structs.
 */
int floe_iceberg_schema_validate(const floe_iceberg_schema *schema);

/* The highest field id in the schema (0 for an empty schema). */
int32_t floe_iceberg_schema_max_id(const floe_iceberg_schema *schema);

/* The field with id `id`, searched through nested structs, lists and maps; NULL if none. */
const floe_iceberg_field *floe_iceberg_schema_find(const floe_iceberg_schema *schema, int32_t id);

/* The top-level field named `name` (case-sensitive); NULL if none. */
const floe_iceberg_field *floe_iceberg_schema_field(const floe_iceberg_schema *schema,
						    const char *name);

/* Deep copy into `arena`. */
floe_iceberg_schema *floe_iceberg_schema_copy(floe_arena *arena, const floe_iceberg_schema *schema);

/* Same fields, ids, types and identifier fields (schema ids are not compared). */
bool floe_iceberg_schema_equal(const floe_iceberg_schema *a, const floe_iceberg_schema *b);

/*
 * Give every field of `schema` (nested ids included) a fresh id from *last_id + 1 on,
 * raising *last_id; for building a new table's schema without choosing ids by hand.
 * Identifier ids given as old ids are mapped to the new ones.
 */
void floe_iceberg_schema_assign_ids(floe_iceberg_schema *schema, int32_t *last_id);

/* The same for the ids nested in `type` (struct fields, list elements, map keys and values). */
void floe_iceberg_type_assign_ids(floe_iceberg_type *type, int32_t *last_id);

/* A deep copy of `type` in `arena`. */
floe_iceberg_type *floe_iceberg_type_copy(floe_arena *arena, const floe_iceberg_type *type);

/* ---- evolution ---- */

typedef enum floe_iceberg_change_kind {
	FLOE_ICEBERG_ADD_COLUMN,    /* name, type, doc, id; always optional */
	FLOE_ICEBERG_RENAME_COLUMN, /* name → new_name */
	FLOE_ICEBERG_WIDEN_COLUMN,  /* name, type: int→long, float→double, decimal(P,S)→(P',S) */
	FLOE_ICEBERG_MAKE_OPTIONAL, /* name */
	FLOE_ICEBERG_DELETE_COLUMN, /* name; old files keep its data, its id is never used again */
	FLOE_ICEBERG_SET_IDENTIFIERS /* ids, n_ids: the identifier fields (required primitives); none: no key */
} floe_iceberg_change_kind;

typedef struct floe_iceberg_schema_change {
	floe_iceberg_change_kind kind;
	const char *name;      /* a top-level column, or "a.b" for a field of a struct column */
	const char *new_name;
	const floe_iceberg_type *type;
	const char *doc;
	/*
	 * ADD_COLUMN: 0 — the new field and any fields nested in its type get the next free
	 * ids; or the field's id, when the caller owns the ids (floe's plan does): it and the
	 * ids nested in `type` (all set) must lie above last-column-id.
	 */
	int32_t id;
	const int32_t *ids;    /* SET_IDENTIFIERS */
	size_t n_ids;
} floe_iceberg_schema_change;

/*
 * Apply `changes` in order to `base`, building the new schema in `arena` with
 * schema id `new_schema_id`. New fields get ids from *last_column_id + 1 (raised).
 * A change that is not allowed (unknown column, name taken, narrowing, a required
 * addition) fails with FLOE_ERR_USAGE and names the change; nothing is applied.
 */
int floe_iceberg_schema_evolve(floe_iceberg_schema **out, floe_arena *arena,
			       const floe_iceberg_schema *base, int32_t new_schema_id,
			       int32_t *last_column_id, const floe_iceberg_schema_change *changes,
			       size_t n_changes);

#endif
