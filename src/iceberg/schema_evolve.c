/*
 * schema_evolve.c — schema evolution: add, rename, widen, make optional, delete, and
 * which fields identify a row.
 *
 * Changes are applied to a deep copy, one after the other, so a later change sees
 * the result of an earlier one (add "b", then rename it). Only what the spec allows
 * without rewriting data is accepted: additions are optional (old files lack them),
 * widening follows floe_iceberg_type_promotable, and a column never becomes
 * required again. Field ids are never reused: new ones start after last-column-id
 * (given by the caller or assigned), and a deleted column's id stays spent.
 */
#include "iceberg/schema.h"

#include "base/error.h"

#include <string.h>

typedef struct located {
	floe_iceberg_field **siblings; /* the array holding the field */
	size_t *n_siblings;
	floe_iceberg_field *field;     /* NULL when the last segment is absent */
	const char *leaf;              /* last segment of the path */
} located;

/*
 * Find `path` ("a" or "a.b.c" through struct columns). With `parent_only`, the
 * parent must exist but the field itself may not.
 */
static int locate(located *out, floe_arena *arena, floe_iceberg_schema *s, const char *path,
		  bool parent_only)
{
	floe_iceberg_field **fields = &s->fields;
	size_t *n = &s->n_fields;
	const char *seg = path, *dot;
	memset(out, 0, sizeof(*out));
	while ((dot = strchr(seg, '.')) != NULL) {
		floe_iceberg_field *hit = NULL;
		for (size_t i = 0; i < *n && !hit; i++)
			if (strlen((*fields)[i].name) == (size_t)(dot - seg) &&
			    memcmp((*fields)[i].name, seg, (size_t)(dot - seg)) == 0)
				hit = &(*fields)[i];
		if (!hit || hit->type->id != FLOE_ICEBERG_STRUCT)
			return floe_error_set(FLOE_ERR_USAGE, "no struct column \"%.*s\" in the schema",
					      (int)(dot - path), path);
		fields = &hit->type->fields;
		n = &hit->type->n_fields;
		seg = dot + 1;
	}
	out->siblings = fields;
	out->n_siblings = n;
	out->leaf = floe_arena_strdup(arena, seg);
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*fields)[i].name, seg) == 0)
			out->field = &(*fields)[i];
	if (!out->field && !parent_only)
		return floe_error_set(FLOE_ERR_USAGE, "no column \"%s\" in the schema", path);
	return 0;
}

/* The smallest and largest field id nested in `t` (lists' elements, maps' keys and values); 0 in *zero if any is unset. */
static void nested_ids(const floe_iceberg_type *t, int32_t *lo, int32_t *hi, bool *zero)
{
	int32_t ids[2] = { 0, 0 };
	size_t n = 0;
	const floe_iceberg_type *inner[2] = { NULL, NULL };
	if (t->id == FLOE_ICEBERG_STRUCT) {
		for (size_t i = 0; i < t->n_fields; i++) {
			int32_t id = t->fields[i].id;
			*zero |= id == 0;
			*lo = *lo == 0 || id < *lo ? id : *lo;
			*hi = id > *hi ? id : *hi;
			nested_ids(t->fields[i].type, lo, hi, zero);
		}
		return;
	}
	if (t->id == FLOE_ICEBERG_LIST) {
		ids[n] = t->element_id;
		inner[n++] = t->element;
	} else if (t->id == FLOE_ICEBERG_MAP) {
		ids[n] = t->key_id;
		inner[n++] = t->key;
		ids[n] = t->value_id;
		inner[n++] = t->value;
	}
	for (size_t i = 0; i < n; i++) {
		*zero |= ids[i] == 0;
		*lo = *lo == 0 || ids[i] < *lo ? ids[i] : *lo;
		*hi = ids[i] > *hi ? ids[i] : *hi;
		nested_ids(inner[i], lo, hi, zero);
	}
}

/* The new field's id (and its type's nested ids): the caller's, above *last_id, or the next free ones. */
static int new_field_ids(floe_iceberg_field *f, const floe_iceberg_schema_change *c, int32_t *last_id)
{
	int32_t lo = 0, hi = 0;
	bool zero = false;
	if (c->id <= 0) {
		f->id = ++*last_id;
		floe_iceberg_type_assign_ids(f->type, last_id);
		return 0;
	}
	nested_ids(f->type, &lo, &hi, &zero);
	if (zero)
		return floe_error_set(FLOE_ERR_USAGE, "cannot add column \"%s\" with field id %d: the ids "
				      "inside its type are not all given", c->name, (int)c->id);
	if (c->id <= *last_id || (lo && lo <= *last_id))
		return floe_error_set(FLOE_ERR_USAGE, "cannot add column \"%s\" with field id %d: ids up to %d "
				      "were used already and are never reused", c->name, (int)(lo && lo < c->id ? lo : c->id),
				      (int)*last_id);
	f->id = c->id;
	*last_id = hi > c->id ? hi : c->id;
	return 0;
}

static bool is_identifier(const floe_iceberg_schema *s, int32_t id)
{
	for (size_t i = 0; i < s->n_identifier_ids; i++)
		if (s->identifier_ids[i] == id)
			return true;
	return false;
}

static int add_column(floe_arena *arena, floe_iceberg_schema *s, const floe_iceberg_schema_change *c,
		      int32_t *last_id)
{
	located at;
	floe_iceberg_field *grown;
	if (!c->type)
		return floe_error_set(FLOE_ERR_USAGE, "cannot add column \"%s\": no type given", c->name);
	if (locate(&at, arena, s, c->name, true) < 0)
		return -1;
	if (!*at.leaf)
		return floe_error_set(FLOE_ERR_USAGE, "cannot add a column with an empty name");
	if (at.field)
		return floe_error_set(FLOE_ERR_USAGE, "cannot add column \"%s\": it exists already",
				      c->name);
	grown = floe_arena_alloc(arena, (*at.n_siblings + 1) * sizeof(*grown));
	if (*at.n_siblings)
		memcpy(grown, *at.siblings, *at.n_siblings * sizeof(*grown));
	floe_iceberg_field *f = &grown[*at.n_siblings];
	f->name = at.leaf;
	f->required = false;
	f->doc = c->doc ? floe_arena_strdup(arena, c->doc) : NULL;
	f->type = floe_iceberg_type_copy(arena, c->type);
	if (new_field_ids(f, c, last_id) < 0)
		return -1;
	*at.siblings = grown;
	(*at.n_siblings)++;
	return 0;
}

static int delete_column(floe_arena *arena, floe_iceberg_schema *s, const floe_iceberg_schema_change *c)
{
	located at;
	if (locate(&at, arena, s, c->name, false) < 0)
		return -1;
	if (is_identifier(s, at.field->id))
		return floe_error_set(FLOE_ERR_USAGE, "cannot delete \"%s\": it is an identifier field "
				      "of the table", c->name);
	size_t k = (size_t)(at.field - *at.siblings);
	floe_iceberg_field *kept = floe_arena_alloc(arena, (*at.n_siblings + 1) * sizeof(*kept));
	memcpy(kept, *at.siblings, k * sizeof(*kept));
	memcpy(kept + k, *at.siblings + k + 1, (*at.n_siblings - k - 1) * sizeof(*kept));
	*at.siblings = kept;
	(*at.n_siblings)--;
	return 0;
}

static int rename_column(floe_arena *arena, floe_iceberg_schema *s,
			 const floe_iceberg_schema_change *c)
{
	located at;
	if (!c->new_name || !*c->new_name || strchr(c->new_name, '.'))
		return floe_error_set(FLOE_ERR_USAGE, "cannot rename \"%s\": the new name \"%s\" is not "
				      "a valid column name", c->name, c->new_name ? c->new_name : "");
	if (locate(&at, arena, s, c->name, false) < 0)
		return -1;
	for (size_t i = 0; i < *at.n_siblings; i++)
		if (&(*at.siblings)[i] != at.field && strcmp((*at.siblings)[i].name, c->new_name) == 0)
			return floe_error_set(FLOE_ERR_USAGE, "cannot rename \"%s\" to \"%s\": that name "
					      "is taken", c->name, c->new_name);
	at.field->name = floe_arena_strdup(arena, c->new_name);
	return 0;
}

static int widen_column(floe_arena *arena, floe_iceberg_schema *s, const floe_iceberg_schema_change *c)
{
	located at;
	if (locate(&at, arena, s, c->name, false) < 0)
		return -1;
	if (!c->type || !floe_iceberg_type_is_primitive(at.field->type) ||
	    !floe_iceberg_type_promotable(at.field->type, c->type)) {
		floe_error_set(FLOE_ERR_USAGE, "cannot change column \"%s\" from %s to %s", c->name,
			       floe_iceberg_type_string(arena, at.field->type),
			       c->type ? floe_iceberg_type_string(arena, c->type) : "nothing");
		floe_error_hint("Iceberg widens int to long, float to double and decimal(P,S) to "
				"decimal(P2,S) with P2 > P; anything else needs a new column.");
		return -1;
	}
	at.field->type = floe_iceberg_type_copy(arena, c->type);
	return 0;
}

static int make_optional(floe_arena *arena, floe_iceberg_schema *s,
			 const floe_iceberg_schema_change *c)
{
	located at;
	if (locate(&at, arena, s, c->name, false) < 0)
		return -1;
	if (is_identifier(s, at.field->id))
		return floe_error_set(FLOE_ERR_USAGE, "cannot make \"%s\" optional: it is an "
				      "identifier field of the table", c->name);
	at.field->required = false;
	return 0;
}

/* The identifier fields become c->ids (checked with the whole schema at the end). */
static void set_identifiers(floe_arena *arena, floe_iceberg_schema *s, const floe_iceberg_schema_change *c)
{
	s->identifier_ids = floe_arena_alloc(arena, (c->n_ids + 1) * sizeof(int32_t));
	if (c->n_ids)
		memcpy(s->identifier_ids, c->ids, c->n_ids * sizeof(int32_t));
	s->n_identifier_ids = c->n_ids;
}

static int apply(floe_arena *arena, floe_iceberg_schema *s, const floe_iceberg_schema_change *c,
		 int32_t *last_id)
{
	if (!c->name && c->kind != FLOE_ICEBERG_SET_IDENTIFIERS)
		return floe_error_set(FLOE_ERR_USAGE, "a schema change names no column");
	switch (c->kind) {
	case FLOE_ICEBERG_ADD_COLUMN:
		return add_column(arena, s, c, last_id);
	case FLOE_ICEBERG_RENAME_COLUMN:
		return rename_column(arena, s, c);
	case FLOE_ICEBERG_WIDEN_COLUMN:
		return widen_column(arena, s, c);
	case FLOE_ICEBERG_MAKE_OPTIONAL:
		return make_optional(arena, s, c);
	case FLOE_ICEBERG_DELETE_COLUMN:
		return delete_column(arena, s, c);
	case FLOE_ICEBERG_SET_IDENTIFIERS:
		set_identifiers(arena, s, c);
		return 0;
	}
	return floe_error_set(FLOE_ERR_INTERNAL, "unknown schema change %d", (int)c->kind);
}

int floe_iceberg_schema_evolve(floe_iceberg_schema **out, floe_arena *arena,
			       const floe_iceberg_schema *base, int32_t new_schema_id,
			       int32_t *last_column_id, const floe_iceberg_schema_change *changes,
			       size_t n_changes)
{
	floe_iceberg_schema *s = floe_iceberg_schema_copy(arena, base);
	int32_t last = *last_column_id;
	*out = NULL;
	s->schema_id = new_schema_id;
	for (size_t i = 0; i < n_changes; i++)
		if (apply(arena, s, &changes[i], &last) < 0)
			return floe_error_context("while applying schema change %zu of %zu", i + 1,
						  n_changes);
	if (floe_iceberg_schema_validate(s) < 0)
		return floe_error_context("while checking the evolved schema");
	*last_column_id = last;
	*out = s;
	return 0;
}
