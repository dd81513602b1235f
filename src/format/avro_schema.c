/*
 * avro_schema.c — Avro schema JSON into a type tree, and value builders.
 *
 * Follows the Avro 1.11 specification: primitive names, records, enums, arrays,
 * maps, unions and fixed; named types are registered under their full name before
 * their body is parsed, so a record may refer to itself. Attributes the spec does not
 * define are ignored, except those Iceberg needs: `field-id` on record fields and
 * `element-id` on arrays (integers), and `logicalType` on any type.
 */
#include "format/avro_int.h"

#include "base/error.h"
#include "base/json.h"

#include <stdlib.h>
#include <string.h>

#define MAX_NAMED 4096

typedef struct schema_parser {
	floe_arena *arena;
	floe_avro_type **named;
	size_t n_named;
} schema_parser;

static int parse_type(floe_avro_type **out, schema_parser *p, const floe_json_value *v,
		      const char *ns, int depth);

static const struct {
	const char *name;
	floe_avro_kind kind;
} primitives[] = {
	{ "null", FLOE_AVRO_NULL },     { "boolean", FLOE_AVRO_BOOLEAN }, { "int", FLOE_AVRO_INT },
	{ "long", FLOE_AVRO_LONG },     { "float", FLOE_AVRO_FLOAT },     { "double", FLOE_AVRO_DOUBLE },
	{ "bytes", FLOE_AVRO_BYTES },   { "string", FLOE_AVRO_STRING },
};

const char *floe_avro_kind_name(floe_avro_kind kind)
{
	static const char *names[] = { "null",   "boolean", "int",  "long",  "float",
				       "double", "bytes",   "string", "record", "enum",
				       "array",  "map",     "union", "fixed" };
	return (size_t)kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "unknown";
}

static int bad_schema(const char *fmt, const char *what)
{
	floe_error_set(FLOE_ERR_IO, fmt, what);
	return -1;
}

static bool slice_is(floe_slice s, const char *lit)
{
	return floe_slice_eq_cstr(s, lit);
}

/* A string member as an arena C string; NULL when absent or not a string. */
static const char *get_string(schema_parser *p, const floe_json_value *obj, const char *key)
{
	const floe_json_value *v = floe_json_get(obj, key);
	if (!v || floe_json_type_of(v) != FLOE_JSON_STRING)
		return NULL;
	floe_slice s = floe_json_string(v);
	if (memchr(s.ptr, '\0', s.len))
		return NULL;
	return floe_arena_strndup(p->arena, s.ptr, s.len);
}

/* An integer member: 0 and *out, -1 when absent or not an integer. */
static int get_int(int64_t *out, const floe_json_value *obj, const char *key)
{
	const floe_json_value *v = floe_json_get(obj, key);
	if (!v || floe_json_type_of(v) != FLOE_JSON_NUMBER)
		return -1;
	return floe_json_int64(out, v);
}

static floe_avro_type *new_type(schema_parser *p, floe_avro_kind kind)
{
	floe_avro_type *t = floe_arena_alloc(p->arena, sizeof(*t));
	t->kind = kind;
	t->zero_size = kind == FLOE_AVRO_NULL;
	return t;
}

static floe_avro_type *find_named(const schema_parser *p, const char *fullname)
{
	for (size_t i = 0; i < p->n_named; i++)
		if (strcmp(p->named[i]->name, fullname) == 0)
			return p->named[i];
	return NULL;
}

/* A reference by name: relative to the enclosing namespace first, then as written. */
static floe_avro_type *resolve_name(schema_parser *p, const char *name, const char *ns)
{
	floe_avro_type *t = NULL;
	if (!strchr(name, '.') && ns && *ns)
		t = find_named(p, floe_arena_printf(p->arena, "%s.%s", ns, name));
	return t ? t : find_named(p, name);
}

static bool valid_name_part(const char *s, size_t len)
{
	if (len == 0 || !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
		return false;
	for (size_t i = 1; i < len; i++) {
		char c = s[i];
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '_'))
			return false;
	}
	return true;
}

static bool valid_fullname(const char *s)
{
	const char *dot;
	while ((dot = strchr(s, '.')) != NULL) {
		if (!valid_name_part(s, (size_t)(dot - s)))
			return false;
		s = dot + 1;
	}
	return valid_name_part(s, strlen(s));
}

/* Give a named type its full name and register it; sets *ns_out to its namespace. */
static int register_named(schema_parser *p, floe_avro_type *t, const floe_json_value *obj,
			  const char *ns, const char **ns_out)
{
	const char *name = get_string(p, obj, "name"), *own_ns = get_string(p, obj, "namespace");
	const char *dot;
	if (!name)
		return bad_schema("avro schema: a %s has no \"name\"", floe_avro_kind_name(t->kind));
	if (own_ns)
		ns = own_ns;
	if (strchr(name, '.') || !ns || !*ns)
		t->name = name;
	else
		t->name = floe_arena_printf(p->arena, "%s.%s", ns, name);
	if (!valid_fullname(t->name))
		return bad_schema("avro schema: invalid name \"%s\"", t->name);
	if (find_named(p, t->name))
		return bad_schema("avro schema: type \"%s\" is defined twice", t->name);
	if (p->n_named == MAX_NAMED)
		return bad_schema("avro schema: more than %s named types", "4096");
	dot = strrchr(t->name, '.');
	*ns_out = dot ? floe_arena_strndup(p->arena, t->name, (size_t)(dot - t->name)) : "";
	p->named[p->n_named++] = t;
	return 0;
}

static int parse_field(avro_field *f, schema_parser *p, const floe_json_value *jf, const char *ns,
		       int depth)
{
	if (floe_json_type_of(jf) != FLOE_JSON_OBJECT)
		return bad_schema("avro schema: a record field is not an %s", "object");
	f->name = get_string(p, jf, "name");
	if (!f->name || !valid_name_part(f->name, strlen(f->name)))
		return bad_schema("avro schema: a record field has no valid \"name\"%s", "");
	f->has_id = get_int(&f->id, jf, "field-id") == 0;
	if (!floe_json_get(jf, "type"))
		return bad_schema("avro schema: field \"%s\" has no \"type\"", f->name);
	return parse_type(&f->type, p, floe_json_get(jf, "type"), ns, depth + 1);
}

static int parse_record(floe_avro_type *t, schema_parser *p, const floe_json_value *obj,
			const char *ns, int depth)
{
	const floe_json_value *fields = floe_json_get(obj, "fields");
	if (register_named(p, t, obj, ns, &ns) < 0)
		return -1;
	if (!fields || floe_json_type_of(fields) != FLOE_JSON_ARRAY)
		return bad_schema("avro schema: record \"%s\" has no \"fields\" array", t->name);
	t->count = floe_json_count(fields);
	t->fields = floe_arena_alloc(p->arena, (t->count ? t->count : 1) * sizeof(*t->fields));
	t->zero_size = true;
	for (size_t i = 0; i < t->count; i++) {
		if (parse_field(&t->fields[i], p, floe_json_value_at(fields, i), ns, depth) < 0)
			return floe_error_context("in record \"%s\"", t->name);
		for (size_t j = 0; j < i; j++)
			if (strcmp(t->fields[j].name, t->fields[i].name) == 0)
				return bad_schema("avro schema: field \"%s\" appears twice",
						  t->fields[i].name);
		t->zero_size = t->zero_size && t->fields[i].type->zero_size;
	}
	return 0;
}

static int parse_enum(floe_avro_type *t, schema_parser *p, const floe_json_value *obj,
		      const char *ns)
{
	const floe_json_value *syms = floe_json_get(obj, "symbols");
	if (register_named(p, t, obj, ns, &ns) < 0)
		return -1;
	if (!syms || floe_json_type_of(syms) != FLOE_JSON_ARRAY || floe_json_count(syms) == 0)
		return bad_schema("avro schema: enum \"%s\" has no \"symbols\"", t->name);
	t->count = floe_json_count(syms);
	t->symbols = floe_arena_alloc(p->arena, t->count * sizeof(*t->symbols));
	for (size_t i = 0; i < t->count; i++) {
		const floe_json_value *s = floe_json_value_at(syms, i);
		if (floe_json_type_of(s) != FLOE_JSON_STRING)
			return bad_schema("avro schema: a symbol of enum \"%s\" is not a string", t->name);
		t->symbols[i] = floe_arena_strndup(p->arena, floe_json_string(s).ptr,
						   floe_json_string(s).len);
	}
	return 0;
}

static int parse_fixed(floe_avro_type *t, schema_parser *p, const floe_json_value *obj,
		       const char *ns)
{
	int64_t size = -1;
	if (register_named(p, t, obj, ns, &ns) < 0)
		return -1;
	if (get_int(&size, obj, "size") < 0 || size < 0 || size > (1 << 20))
		return bad_schema("avro schema: fixed \"%s\" has no valid \"size\"", t->name);
	t->size = (size_t)size;
	t->zero_size = size == 0;
	return 0;
}

static int parse_union(floe_avro_type **out, schema_parser *p, const floe_json_value *arr,
		       const char *ns, int depth)
{
	floe_avro_type *t = new_type(p, FLOE_AVRO_UNION);
	t->count = floe_json_count(arr);
	if (t->count == 0)
		return bad_schema("avro schema: an empty %s", "union");
	t->branches = floe_arena_alloc(p->arena, t->count * sizeof(*t->branches));
	for (size_t i = 0; i < t->count; i++) {
		floe_avro_type *b = NULL;
		if (parse_type(&b, p, floe_json_value_at(arr, i), ns, depth + 1) < 0)
			return -1;
		if (b->kind == FLOE_AVRO_UNION)
			return bad_schema("avro schema: a union directly inside a %s", "union");
		for (size_t j = 0; j < i; j++) {
			floe_avro_type *o = t->branches[j];
			bool named = b->name != NULL;
			if (o->kind == b->kind && (!named || strcmp(o->name, b->name) == 0))
				return bad_schema("avro schema: a union has two branches of type %s",
						  named ? b->name : floe_avro_kind_name(b->kind));
		}
		t->branches[i] = b;
	}
	*out = t;
	return 0;
}

/* The kind named by a "type" string, or -1 for a complex or unknown name. */
static int kind_of_word(floe_slice s)
{
	for (size_t i = 0; i < sizeof(primitives) / sizeof(primitives[0]); i++)
		if (slice_is(s, primitives[i].name))
			return (int)primitives[i].kind;
	if (slice_is(s, "record") || slice_is(s, "error"))
		return FLOE_AVRO_RECORD;
	if (slice_is(s, "enum"))
		return FLOE_AVRO_ENUM;
	if (slice_is(s, "array"))
		return FLOE_AVRO_ARRAY;
	if (slice_is(s, "map"))
		return FLOE_AVRO_MAP;
	if (slice_is(s, "fixed"))
		return FLOE_AVRO_FIXED;
	return -1;
}

static int parse_string_type(floe_avro_type **out, schema_parser *p, floe_slice s, const char *ns)
{
	for (size_t i = 0; i < sizeof(primitives) / sizeof(primitives[0]); i++) {
		if (slice_is(s, primitives[i].name)) {
			*out = new_type(p, primitives[i].kind);
			return 0;
		}
	}
	char *name = floe_arena_strndup(p->arena, s.ptr, s.len);
	*out = memchr(s.ptr, '\0', s.len) ? NULL : resolve_name(p, name, ns);
	if (!*out)
		return bad_schema("avro schema: unknown type \"%s\"", name);
	return 0;
}

static int parse_object_type(floe_avro_type **out, schema_parser *p, const floe_json_value *obj,
			     const char *ns, int depth)
{
	const floe_json_value *type = floe_json_get(obj, "type");
	floe_avro_type *t;
	int kind, rc = 0;
	int64_t id;
	if (!type)
		return bad_schema("avro schema: an object without \"type\"%s", "");
	if (floe_json_type_of(type) != FLOE_JSON_STRING)
		return parse_type(out, p, type, ns, depth + 1); /* {"type": {...}} or [..] */
	kind = kind_of_word(floe_json_string(type));
	if (kind < 0) {
		rc = parse_string_type(out, p, floe_json_string(type), ns);
		return rc;
	}
	t = new_type(p, (floe_avro_kind)kind);
	t->logical = get_string(p, obj, "logicalType");
	if (kind == FLOE_AVRO_RECORD)
		rc = parse_record(t, p, obj, ns, depth);
	else if (kind == FLOE_AVRO_ENUM)
		rc = parse_enum(t, p, obj, ns);
	else if (kind == FLOE_AVRO_FIXED)
		rc = parse_fixed(t, p, obj, ns);
	else if (kind == FLOE_AVRO_ARRAY || kind == FLOE_AVRO_MAP) {
		const floe_json_value *items = floe_json_get(obj, kind == FLOE_AVRO_ARRAY ? "items" : "values");
		if (!items)
			return bad_schema("avro schema: %s without its item type",
					  floe_avro_kind_name((floe_avro_kind)kind));
		rc = parse_type(&t->items, p, items, ns, depth + 1);
		t->has_element_id = kind == FLOE_AVRO_ARRAY && get_int(&id, obj, "element-id") == 0;
		t->element_id = t->has_element_id ? id : 0;
	}
	*out = t;
	return rc;
}

static int parse_type(floe_avro_type **out, schema_parser *p, const floe_json_value *v,
		      const char *ns, int depth)
{
	if (depth > FLOE_AVRO_MAX_DEPTH)
		return bad_schema("avro schema: nested deeper than %s levels", "64");
	switch (floe_json_type_of(v)) {
	case FLOE_JSON_STRING:
		return parse_string_type(out, p, floe_json_string(v), ns);
	case FLOE_JSON_ARRAY:
		return parse_union(out, p, v, ns, depth);
	case FLOE_JSON_OBJECT:
		return parse_object_type(out, p, v, ns, depth);
	default:
		return bad_schema("avro schema: a type cannot be a %s",
				  floe_json_type_name(floe_json_type_of(v)));
	}
}

int floe_avro_schema_parse(floe_avro_schema **out, const char *json, size_t len)
{
	floe_json_doc *doc = NULL;
	floe_json_error jerr;
	floe_avro_schema *schema = floe_xcalloc(1, sizeof(*schema));
	schema_parser p = { 0 };
	int error = -1;

	*out = NULL;
	schema->arena = floe_arena_new();
	p.arena = schema->arena;
	p.named = floe_arena_alloc(p.arena, MAX_NAMED * sizeof(*p.named));
	if (floe_json_parse(&doc, json, len, &jerr) < 0) {
		floe_error_set(FLOE_ERR_IO, "avro schema is not JSON: %s at byte %zu", jerr.message,
			       jerr.offset);
		goto cleanup;
	}
	if (parse_type(&schema->root, &p, floe_json_root(doc), "", 0) < 0)
		goto cleanup;
	*out = schema;
	schema = NULL;
	error = 0;
cleanup:
	floe_json_free(doc);
	floe_avro_schema_free(schema);
	return error;
}

void floe_avro_schema_free(floe_avro_schema *schema)
{
	if (!schema)
		return;
	floe_arena_free(schema->arena);
	free(schema);
}

const floe_avro_type *floe_avro_schema_root(const floe_avro_schema *schema)
{
	return schema->root;
}

floe_avro_kind floe_avro_type_kind(const floe_avro_type *type)
{
	return type->kind;
}

const char *floe_avro_type_name(const floe_avro_type *type)
{
	return type->name;
}

const char *floe_avro_type_logical(const floe_avro_type *type)
{
	return type->logical;
}

size_t floe_avro_type_count(const floe_avro_type *type)
{
	return type->count;
}

const floe_avro_type *floe_avro_type_child(const floe_avro_type *type, size_t i)
{
	if (i >= type->count)
		return NULL;
	if (type->kind == FLOE_AVRO_RECORD)
		return type->fields[i].type;
	if (type->kind == FLOE_AVRO_UNION)
		return type->branches[i];
	return NULL;
}

const floe_avro_type *floe_avro_type_items(const floe_avro_type *type)
{
	return type->items;
}

size_t floe_avro_type_fixed_size(const floe_avro_type *type)
{
	return type->size;
}

const char *floe_avro_type_symbol(const floe_avro_type *type, size_t i)
{
	return type->kind == FLOE_AVRO_ENUM && i < type->count ? type->symbols[i] : NULL;
}

const char *floe_avro_field_name(const floe_avro_type *record, size_t i)
{
	return record->kind == FLOE_AVRO_RECORD && i < record->count ? record->fields[i].name : NULL;
}

int floe_avro_field_id(int64_t *out, const floe_avro_type *record, size_t i)
{
	if (record->kind != FLOE_AVRO_RECORD || i >= record->count || !record->fields[i].has_id)
		return -1;
	*out = record->fields[i].id;
	return 0;
}

int floe_avro_element_id(int64_t *out, const floe_avro_type *array)
{
	if (!array->has_element_id)
		return -1;
	*out = array->element_id;
	return 0;
}

int floe_avro_field_find(const floe_avro_type *record, int64_t field_id, const char *name)
{
	if (!record || record->kind != FLOE_AVRO_RECORD)
		return -1;
	for (size_t i = 0; i < record->count; i++)
		if (record->fields[i].has_id && record->fields[i].id == field_id)
			return (int)i;
	for (size_t i = 0; name && i < record->count; i++)
		if (!record->fields[i].has_id && strcmp(record->fields[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* ---- values ---- */

static floe_avro_value *new_value(floe_arena *arena, floe_avro_kind kind)
{
	floe_avro_value *v = floe_arena_alloc(arena, sizeof(*v));
	v->kind = kind;
	return v;
}

floe_avro_value *floe_avro_null(floe_arena *arena)
{
	return new_value(arena, FLOE_AVRO_NULL);
}

floe_avro_value *floe_avro_boolean(floe_arena *arena, bool b)
{
	floe_avro_value *v = new_value(arena, FLOE_AVRO_BOOLEAN);
	v->u.boolean = b;
	return v;
}

floe_avro_value *floe_avro_int(floe_arena *arena, int32_t i)
{
	floe_avro_value *v = new_value(arena, FLOE_AVRO_INT);
	v->u.integer = i;
	return v;
}

floe_avro_value *floe_avro_long(floe_arena *arena, int64_t l)
{
	floe_avro_value *v = new_value(arena, FLOE_AVRO_LONG);
	v->u.integer = l;
	return v;
}

floe_avro_value *floe_avro_double(floe_arena *arena, double d)
{
	floe_avro_value *v = new_value(arena, FLOE_AVRO_DOUBLE);
	v->u.real = d;
	return v;
}

floe_avro_value *floe_avro_float(floe_arena *arena, float f)
{
	floe_avro_value *v = new_value(arena, FLOE_AVRO_FLOAT);
	v->u.real = f;
	return v;
}

floe_avro_value *floe_avro_string(floe_arena *arena, const char *s, size_t len)
{
	floe_avro_value *v = new_value(arena, FLOE_AVRO_STRING);
	v->u.bytes.ptr = (const uint8_t *)floe_arena_strndup(arena, s ? s : "", s ? len : 0);
	v->u.bytes.len = s ? len : 0;
	return v;
}

floe_avro_value *floe_avro_cstring(floe_arena *arena, const char *s)
{
	return floe_avro_string(arena, s, s ? strlen(s) : 0);
}

floe_avro_value *floe_avro_bytes(floe_arena *arena, const void *p, size_t len)
{
	floe_avro_value *v = new_value(arena, FLOE_AVRO_BYTES);
	uint8_t *copy = floe_arena_alloc(arena, len ? len : 1);
	if (len)
		memcpy(copy, p, len);
	v->u.bytes.ptr = copy;
	v->u.bytes.len = len;
	return v;
}

static floe_avro_value *new_list(floe_arena *arena, floe_avro_kind kind, size_t len)
{
	floe_avro_value *v = new_value(arena, kind);
	v->u.list.items = floe_arena_alloc(arena, (len ? len : 1) * sizeof(*v->u.list.items));
	v->u.list.len = len;
	return v;
}

floe_avro_value *floe_avro_record(floe_arena *arena, size_t len)
{
	return new_list(arena, FLOE_AVRO_RECORD, len);
}

floe_avro_value *floe_avro_array(floe_arena *arena, size_t len)
{
	return new_list(arena, FLOE_AVRO_ARRAY, len);
}

const floe_avro_value *floe_avro_value_at(const floe_avro_value *v, size_t i)
{
	if (!v || (v->kind != FLOE_AVRO_RECORD && v->kind != FLOE_AVRO_ARRAY) || i >= v->u.list.len)
		return NULL;
	return v->u.list.items[i];
}
