/*
 * schema.c — Iceberg types and schemas: construction, JSON (spec Appendix C) both
 * ways, validation, lookups and copies. Evolution is in schema_evolve.c.
 */
#include "iceberg/schema.h"

#include "base/error.h"
#include "base/text.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	floe_iceberg_type_id id;
} primitive_names[] = {
	{ "boolean", FLOE_ICEBERG_BOOLEAN },	 { "int", FLOE_ICEBERG_INT },
	{ "long", FLOE_ICEBERG_LONG },		 { "float", FLOE_ICEBERG_FLOAT },
	{ "double", FLOE_ICEBERG_DOUBLE },	 { "date", FLOE_ICEBERG_DATE },
	{ "time", FLOE_ICEBERG_TIME },		 { "timestamp", FLOE_ICEBERG_TIMESTAMP },
	{ "timestamptz", FLOE_ICEBERG_TIMESTAMPTZ }, { "string", FLOE_ICEBERG_STRING },
	{ "uuid", FLOE_ICEBERG_UUID },		 { "binary", FLOE_ICEBERG_BINARY },
};

bool floe_iceberg_type_is_primitive(const floe_iceberg_type *type)
{
	return type->id != FLOE_ICEBERG_STRUCT && type->id != FLOE_ICEBERG_LIST &&
	       type->id != FLOE_ICEBERG_MAP;
}

floe_iceberg_type *floe_iceberg_type_new(floe_arena *arena, floe_iceberg_type_id id)
{
	floe_iceberg_type *t = floe_arena_alloc(arena, sizeof(*t));
	t->id = id;
	return t;
}

floe_iceberg_type *floe_iceberg_type_decimal(floe_arena *arena, int32_t precision, int32_t scale)
{
	floe_iceberg_type *t = floe_iceberg_type_new(arena, FLOE_ICEBERG_DECIMAL);
	t->precision = precision;
	t->scale = scale;
	return t;
}

floe_iceberg_type *floe_iceberg_type_fixed(floe_arena *arena, int32_t length)
{
	floe_iceberg_type *t = floe_iceberg_type_new(arena, FLOE_ICEBERG_FIXED);
	t->length = length;
	return t;
}

/* ---- primitive type strings ---- */

static size_t skip_spaces(const char *s, size_t i, size_t len)
{
	while (i < len && s[i] == ' ')
		i++;
	return i;
}

/* An unsigned decimal number at s[*i..], up to `max`. */
static int parse_small_int(int32_t *out, const char *s, size_t *i, size_t len, int32_t max)
{
	size_t start = *i;
	int64_t v = 0;
	while (*i < len && s[*i] >= '0' && s[*i] <= '9' && *i - start < 10)
		(*i)++;
	if (*i == start || floe_text_parse_int64(&v, s + start, *i - start, 0, max) < 0)
		return -1;
	*out = (int32_t)v;
	return 0;
}

static int parse_decimal(floe_iceberg_type *t, const char *s, size_t len)
{
	size_t i = skip_spaces(s, 8, len); /* after "decimal(" */
	if (parse_small_int(&t->precision, s, &i, len, 1000) < 0)
		return -1;
	i = skip_spaces(s, i, len);
	if (i >= len || s[i++] != ',')
		return -1;
	i = skip_spaces(s, i, len);
	if (parse_small_int(&t->scale, s, &i, len, 1000) < 0)
		return -1;
	i = skip_spaces(s, i, len);
	return i + 1 == len && s[i] == ')' ? 0 : -1;
}

static int parse_fixed(floe_iceberg_type *t, const char *s, size_t len)
{
	size_t i = 6; /* after "fixed[" */
	if (parse_small_int(&t->length, s, &i, len, INT32_MAX) < 0)
		return -1;
	return i + 1 == len && s[i] == ']' ? 0 : -1;
}

int floe_iceberg_type_parse(floe_iceberg_type **out, floe_arena *arena, const char *s, size_t len)
{
	floe_iceberg_type *t = NULL;
	int rc = -1;
	for (size_t i = 0; i < sizeof(primitive_names) / sizeof(primitive_names[0]); i++) {
		if (strlen(primitive_names[i].name) == len && memcmp(primitive_names[i].name, s, len) == 0) {
			*out = floe_iceberg_type_new(arena, primitive_names[i].id);
			return 0;
		}
	}
	if (len > 8 && memcmp(s, "decimal(", 8) == 0) {
		t = floe_iceberg_type_new(arena, FLOE_ICEBERG_DECIMAL);
		rc = parse_decimal(t, s, len);
	} else if (len > 6 && memcmp(s, "fixed[", 6) == 0) {
		t = floe_iceberg_type_new(arena, FLOE_ICEBERG_FIXED);
		rc = parse_fixed(t, s, len);
	}
	if (rc < 0)
		return floe_error_set(FLOE_ERR_CONFIG, "unknown iceberg type \"%.*s\"",
				      (int)(len > 64 ? 64 : len), s);
	*out = t;
	return 0;
}

const char *floe_iceberg_type_string(floe_arena *arena, const floe_iceberg_type *type)
{
	for (size_t i = 0; i < sizeof(primitive_names) / sizeof(primitive_names[0]); i++)
		if (primitive_names[i].id == type->id)
			return primitive_names[i].name;
	switch (type->id) {
	case FLOE_ICEBERG_DECIMAL:
		return floe_arena_printf(arena, "decimal(%d, %d)", type->precision, type->scale);
	case FLOE_ICEBERG_FIXED:
		return floe_arena_printf(arena, "fixed[%d]", type->length);
	case FLOE_ICEBERG_STRUCT:
		return "struct";
	case FLOE_ICEBERG_LIST:
		return "list";
	default:
		return "map";
	}
}

/* ---- JSON writer ---- */

static int write_fields(floe_buf *out, const floe_iceberg_field *fields, size_t n);

int floe_iceberg_type_write_json(floe_buf *out, const floe_iceberg_type *t)
{
	char tmp[48];
	switch (t->id) {
	case FLOE_ICEBERG_DECIMAL:
		snprintf(tmp, sizeof(tmp), "decimal(%d, %d)", t->precision, t->scale);
		return floe_json_put_cstr(out, tmp);
	case FLOE_ICEBERG_FIXED:
		snprintf(tmp, sizeof(tmp), "fixed[%d]", t->length);
		return floe_json_put_cstr(out, tmp);
	case FLOE_ICEBERG_STRUCT:
		if (floe_buf_puts(out, "{\"type\":\"struct\",\"fields\":") < 0 ||
		    write_fields(out, t->fields, t->n_fields) < 0)
			return -1;
		return floe_buf_putc(out, '}');
	case FLOE_ICEBERG_LIST:
		if (floe_buf_printf(out, "{\"type\":\"list\",\"element-id\":%d,\"element-required\":%s,"
				    "\"element\":", t->element_id,
				    t->element_required ? "true" : "false") < 0 ||
		    floe_iceberg_type_write_json(out, t->element) < 0)
			return -1;
		return floe_buf_putc(out, '}');
	case FLOE_ICEBERG_MAP:
		if (floe_buf_printf(out, "{\"type\":\"map\",\"key-id\":%d,\"key\":", t->key_id) < 0 ||
		    floe_iceberg_type_write_json(out, t->key) < 0 ||
		    floe_buf_printf(out, ",\"value-id\":%d,\"value-required\":%s,\"value\":", t->value_id,
				    t->value_required ? "true" : "false") < 0 ||
		    floe_iceberg_type_write_json(out, t->value) < 0)
			return -1;
		return floe_buf_putc(out, '}');
	default:
		return floe_json_put_cstr(out, floe_iceberg_type_string(NULL, t));
	}
}

static int write_fields(floe_buf *out, const floe_iceberg_field *fields, size_t n)
{
	if (floe_buf_putc(out, '[') < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const floe_iceberg_field *f = &fields[i];
		if ((i && floe_buf_putc(out, ',') < 0) ||
		    floe_buf_printf(out, "{\"id\":%d,\"name\":", f->id) < 0 ||
		    floe_json_put_cstr(out, f->name) < 0 ||
		    floe_buf_printf(out, ",\"required\":%s,\"type\":", f->required ? "true" : "false") < 0 ||
		    floe_iceberg_type_write_json(out, f->type) < 0)
			return -1;
		if (f->doc && (floe_buf_puts(out, ",\"doc\":") < 0 || floe_json_put_cstr(out, f->doc) < 0))
			return -1;
		if (floe_buf_putc(out, '}') < 0)
			return -1;
	}
	return floe_buf_putc(out, ']');
}

int floe_iceberg_schema_write_json(floe_buf *out, const floe_iceberg_schema *schema)
{
	if (floe_buf_printf(out, "{\"type\":\"struct\",\"schema-id\":%d,\"identifier-field-ids\":[",
			    schema->schema_id) < 0)
		return -1;
	for (size_t i = 0; i < schema->n_identifier_ids; i++)
		if (floe_buf_printf(out, "%s%d", i ? "," : "", schema->identifier_ids[i]) < 0)
			return -1;
	if (floe_buf_puts(out, "],\"fields\":") < 0 || write_fields(out, schema->fields, schema->n_fields) < 0)
		return -1;
	return floe_buf_putc(out, '}');
}

/* ---- JSON reader ---- */

static int parse_type_json(floe_iceberg_type **out, floe_arena *arena, const floe_json_value *v,
			   int depth);

static int json_error(const char *what, const char *name)
{
	return floe_error_set(FLOE_ERR_IO, "iceberg schema: %s%s%s%s", what, name ? " \"" : "",
			      name ? name : "", name ? "\"" : "");
}

/* Member `key` as an int32: 0, or -1 (no error set) when absent or not an int32. */
static int get_i32(int32_t *out, const floe_json_value *obj, const char *key)
{
	const floe_json_value *v = floe_json_get(obj, key);
	int64_t i;
	if (!v || floe_json_type_of(v) != FLOE_JSON_NUMBER || floe_json_int64(&i, v) < 0 ||
	    i < INT32_MIN || i > INT32_MAX)
		return -1;
	*out = (int32_t)i;
	return 0;
}

static int get_bool(bool *out, const floe_json_value *obj, const char *key)
{
	const floe_json_value *v = floe_json_get(obj, key);
	if (!v || floe_json_type_of(v) != FLOE_JSON_BOOL)
		return -1;
	*out = floe_json_bool(v);
	return 0;
}

static const char *get_str(floe_arena *arena, const floe_json_value *obj, const char *key)
{
	const floe_json_value *v = floe_json_get(obj, key);
	if (!v || floe_json_type_of(v) != FLOE_JSON_STRING)
		return NULL;
	floe_slice s = floe_json_string(v);
	return memchr(s.ptr, '\0', s.len) ? NULL : floe_arena_strndup(arena, s.ptr, s.len);
}

static int parse_fields(floe_iceberg_field **out, size_t *n, floe_arena *arena,
			const floe_json_value *arr, int depth)
{
	if (!arr || floe_json_type_of(arr) != FLOE_JSON_ARRAY)
		return json_error("a struct has no \"fields\" array", NULL);
	*n = floe_json_count(arr);
	*out = floe_arena_alloc(arena, (*n ? *n : 1) * sizeof(**out));
	for (size_t i = 0; i < *n; i++) {
		const floe_json_value *jf = floe_json_value_at(arr, i);
		floe_iceberg_field *f = &(*out)[i];
		f->name = get_str(arena, jf, "name");
		if (!f->name)
			return json_error("a field has no \"name\"", NULL);
		if (get_i32(&f->id, jf, "id") < 0)
			return json_error("no integer \"id\" for field", f->name);
		if (get_bool(&f->required, jf, "required") < 0)
			return json_error("no boolean \"required\" for field", f->name);
		f->doc = get_str(arena, jf, "doc");
		if (!floe_json_get(jf, "type"))
			return json_error("no \"type\" for field", f->name);
		if (parse_type_json(&f->type, arena, floe_json_get(jf, "type"), depth + 1) < 0)
			return floe_error_context("in field \"%s\"", f->name);
	}
	return 0;
}

static int parse_list_json(floe_iceberg_type *t, floe_arena *arena, const floe_json_value *v,
			   int depth)
{
	const floe_json_value *el = floe_json_get(v, "element");
	if (get_i32(&t->element_id, v, "element-id") < 0 ||
	    get_bool(&t->element_required, v, "element-required") < 0 || !el)
		return json_error("a list needs \"element-id\", \"element-required\" and \"element\"", NULL);
	return parse_type_json(&t->element, arena, el, depth + 1);
}

static int parse_map_json(floe_iceberg_type *t, floe_arena *arena, const floe_json_value *v,
			  int depth)
{
	const floe_json_value *k = floe_json_get(v, "key"), *val = floe_json_get(v, "value");
	if (get_i32(&t->key_id, v, "key-id") < 0 || get_i32(&t->value_id, v, "value-id") < 0 ||
	    get_bool(&t->value_required, v, "value-required") < 0 || !k || !val)
		return json_error("a map needs \"key-id\", \"key\", \"value-id\", \"value-required\" and "
				  "\"value\"", NULL);
	if (parse_type_json(&t->key, arena, k, depth + 1) < 0)
		return -1;
	return parse_type_json(&t->value, arena, val, depth + 1);
}

static int parse_type_json(floe_iceberg_type **out, floe_arena *arena, const floe_json_value *v,
			   int depth)
{
	const floe_json_value *type;
	floe_iceberg_type *t;
	if (depth > 64)
		return json_error("types nested deeper than 64 levels", NULL);
	if (floe_json_type_of(v) == FLOE_JSON_STRING) {
		floe_slice s = floe_json_string(v);
		return floe_iceberg_type_parse(out, arena, s.ptr, s.len) < 0 ? -1 : 0;
	}
	type = floe_json_get(v, "type");
	if (!type || floe_json_type_of(type) != FLOE_JSON_STRING)
		return json_error("a type is neither a string nor an object with \"type\"", NULL);
	if (floe_slice_eq_cstr(floe_json_string(type), "struct")) {
		t = floe_iceberg_type_new(arena, FLOE_ICEBERG_STRUCT);
		*out = t;
		return parse_fields(&t->fields, &t->n_fields, arena, floe_json_get(v, "fields"), depth);
	}
	if (floe_slice_eq_cstr(floe_json_string(type), "list")) {
		t = floe_iceberg_type_new(arena, FLOE_ICEBERG_LIST);
		*out = t;
		return parse_list_json(t, arena, v, depth);
	}
	if (floe_slice_eq_cstr(floe_json_string(type), "map")) {
		t = floe_iceberg_type_new(arena, FLOE_ICEBERG_MAP);
		*out = t;
		return parse_map_json(t, arena, v, depth);
	}
	return json_error("unknown nested type", floe_arena_strndup(arena, floe_json_string(type).ptr,
								   floe_json_string(type).len));
}

int floe_iceberg_schema_from_json(floe_iceberg_schema **out, floe_arena *arena,
				  const floe_json_value *json)
{
	floe_iceberg_schema *s = floe_arena_alloc(arena, sizeof(*s));
	const floe_json_value *ids = floe_json_get(json, "identifier-field-ids");
	*out = NULL;
	if (!json || floe_json_type_of(json) != FLOE_JSON_OBJECT)
		return json_error("a schema is not an object", NULL);
	if (get_i32(&s->schema_id, json, "schema-id") < 0)
		s->schema_id = 0; /* v1 tables may omit it */
	if (parse_fields(&s->fields, &s->n_fields, arena, floe_json_get(json, "fields"), 0) < 0)
		return floe_error_context("in schema %d", s->schema_id);
	if (ids && floe_json_type_of(ids) == FLOE_JSON_ARRAY) {
		s->n_identifier_ids = floe_json_count(ids);
		s->identifier_ids = floe_arena_alloc(arena, (s->n_identifier_ids + 1) * sizeof(int32_t));
		for (size_t i = 0; i < s->n_identifier_ids; i++) {
			const floe_json_value *iv = floe_json_value_at(ids, i);
			int64_t id;
			if (floe_json_type_of(iv) != FLOE_JSON_NUMBER || floe_json_int64(&id, iv) < 0 ||
			    id < 0 || id > INT32_MAX)
				return json_error("\"identifier-field-ids\" holds a non-id", NULL);
			s->identifier_ids[i] = (int32_t)id;
		}
	}
	*out = s;
	return 0;
}

/* ---- walking ---- */

typedef struct id_visit {
	int32_t max;
	int32_t want;
	const floe_iceberg_field *found;
} id_visit;

static void visit_type(id_visit *v, const floe_iceberg_type *t);

static void visit_fields(id_visit *v, const floe_iceberg_field *fields, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (fields[i].id > v->max)
			v->max = fields[i].id;
		if (fields[i].id == v->want && !v->found)
			v->found = &fields[i];
		visit_type(v, fields[i].type);
	}
}

static void visit_type(id_visit *v, const floe_iceberg_type *t)
{
	if (t->id == FLOE_ICEBERG_STRUCT) {
		visit_fields(v, t->fields, t->n_fields);
	} else if (t->id == FLOE_ICEBERG_LIST) {
		if (t->element_id > v->max)
			v->max = t->element_id;
		visit_type(v, t->element);
	} else if (t->id == FLOE_ICEBERG_MAP) {
		if (t->key_id > v->max)
			v->max = t->key_id;
		if (t->value_id > v->max)
			v->max = t->value_id;
		visit_type(v, t->key);
		visit_type(v, t->value);
	}
}

int32_t floe_iceberg_schema_max_id(const floe_iceberg_schema *schema)
{
	id_visit v = { 0, -1, NULL };
	visit_fields(&v, schema->fields, schema->n_fields);
	return v.max;
}

const floe_iceberg_field *floe_iceberg_schema_find(const floe_iceberg_schema *schema, int32_t id)
{
	id_visit v = { 0, id, NULL };
	visit_fields(&v, schema->fields, schema->n_fields);
	return v.found;
}

const floe_iceberg_field *floe_iceberg_schema_field(const floe_iceberg_schema *schema,
						    const char *name)
{
	for (size_t i = 0; i < schema->n_fields; i++)
		if (strcmp(schema->fields[i].name, name) == 0)
			return &schema->fields[i];
	return NULL;
}

/* ---- validation ---- */

typedef struct id_set {
	int32_t *ids;
	size_t n, cap;
	floe_arena *arena;
} id_set;

static int claim_id(id_set *set, int32_t id, const char *what)
{
	if (id <= 0 || id > FLOE_ICEBERG_MAX_FIELD_ID)
		return floe_error_set(FLOE_ERR_USAGE, "iceberg schema: %s has invalid id %d", what, id);
	for (size_t i = 0; i < set->n; i++)
		if (set->ids[i] == id)
			return floe_error_set(FLOE_ERR_USAGE, "iceberg schema: id %d is used twice (by %s)",
					      id, what);
	if (set->n == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 32;
		int32_t *grown = floe_arena_alloc(set->arena, cap * sizeof(*grown));
		if (set->n)
			memcpy(grown, set->ids, set->n * sizeof(*grown));
		set->ids = grown;
		set->cap = cap;
	}
	set->ids[set->n++] = id;
	return 0;
}

static int validate_type(id_set *set, const floe_iceberg_type *t, const char *owner);

static int validate_fields(id_set *set, const floe_iceberg_field *fields, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const floe_iceberg_field *f = &fields[i];
		if (!f->name || !*f->name)
			return floe_error_set(FLOE_ERR_USAGE, "iceberg schema: field %d has no name", f->id);
		for (size_t j = 0; j < i; j++)
			if (strcmp(fields[j].name, f->name) == 0)
				return floe_error_set(FLOE_ERR_USAGE,
						      "iceberg schema: two fields are named \"%s\"", f->name);
		if (claim_id(set, f->id, f->name) < 0 || validate_type(set, f->type, f->name) < 0)
			return -1;
	}
	return 0;
}

static int validate_type(id_set *set, const floe_iceberg_type *t, const char *owner)
{
	switch (t->id) {
	case FLOE_ICEBERG_DECIMAL:
		if (t->precision < 1 || t->precision > FLOE_ICEBERG_MAX_DECIMAL_PRECISION ||
		    t->scale < 0 || t->scale > t->precision)
			return floe_error_set(FLOE_ERR_USAGE, "iceberg schema: \"%s\" has invalid "
					      "decimal(%d, %d)", owner, t->precision, t->scale);
		return 0;
	case FLOE_ICEBERG_FIXED:
		return t->length > 0 ? 0 : floe_error_set(FLOE_ERR_USAGE,
							  "iceberg schema: \"%s\" has fixed[%d]", owner,
							  t->length);
	case FLOE_ICEBERG_STRUCT:
		return validate_fields(set, t->fields, t->n_fields);
	case FLOE_ICEBERG_LIST:
		if (claim_id(set, t->element_id, owner) < 0)
			return -1;
		return validate_type(set, t->element, owner);
	case FLOE_ICEBERG_MAP:
		if (claim_id(set, t->key_id, owner) < 0 || claim_id(set, t->value_id, owner) < 0 ||
		    validate_type(set, t->key, owner) < 0)
			return -1;
		return validate_type(set, t->value, owner);
	default:
		return 0;
	}
}

/* An identifier field: a required primitive reachable through required structs only. */
static const floe_iceberg_field *find_identifier(const floe_iceberg_field *fields, size_t n,
						 int32_t id)
{
	for (size_t i = 0; i < n; i++) {
		if (fields[i].id == id)
			return &fields[i];
		if (fields[i].type->id == FLOE_ICEBERG_STRUCT && fields[i].required) {
			const floe_iceberg_field *f = find_identifier(fields[i].type->fields,
								      fields[i].type->n_fields, id);
			if (f)
				return f;
		}
	}
	return NULL;
}

int floe_iceberg_schema_validate(const floe_iceberg_schema *schema)
{
	floe_arena *arena = floe_arena_new();
	id_set set = { NULL, 0, 0, arena };
	int error = -1;
	if (validate_fields(&set, schema->fields, schema->n_fields) < 0)
		goto cleanup;
	for (size_t i = 0; i < schema->n_identifier_ids; i++) {
		const floe_iceberg_field *f = find_identifier(schema->fields, schema->n_fields,
							      schema->identifier_ids[i]);
		if (!f || !f->required || !floe_iceberg_type_is_primitive(f->type) ||
		    f->type->id == FLOE_ICEBERG_FLOAT || f->type->id == FLOE_ICEBERG_DOUBLE) {
			floe_error_set(FLOE_ERR_USAGE, "iceberg schema: identifier field %d is not a "
				       "required non-float primitive column", schema->identifier_ids[i]);
			goto cleanup;
		}
	}
	error = 0;
cleanup:
	floe_arena_free(arena);
	return error;
}

/* ---- copies and comparison ---- */

static floe_iceberg_type *copy_type(floe_arena *arena, const floe_iceberg_type *t);

static floe_iceberg_field *copy_fields(floe_arena *arena, const floe_iceberg_field *fields, size_t n)
{
	floe_iceberg_field *out = floe_arena_alloc(arena, (n ? n : 1) * sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		out[i] = fields[i];
		out[i].name = floe_arena_strdup(arena, fields[i].name);
		out[i].doc = fields[i].doc ? floe_arena_strdup(arena, fields[i].doc) : NULL;
		out[i].type = copy_type(arena, fields[i].type);
	}
	return out;
}

static floe_iceberg_type *copy_type(floe_arena *arena, const floe_iceberg_type *t)
{
	floe_iceberg_type *c = floe_arena_alloc(arena, sizeof(*c));
	*c = *t;
	if (t->id == FLOE_ICEBERG_STRUCT)
		c->fields = copy_fields(arena, t->fields, t->n_fields);
	if (t->element)
		c->element = copy_type(arena, t->element);
	if (t->key)
		c->key = copy_type(arena, t->key);
	if (t->value)
		c->value = copy_type(arena, t->value);
	return c;
}

floe_iceberg_type *floe_iceberg_type_copy(floe_arena *arena, const floe_iceberg_type *type)
{
	return copy_type(arena, type);
}

floe_iceberg_schema *floe_iceberg_schema_copy(floe_arena *arena, const floe_iceberg_schema *schema)
{
	floe_iceberg_schema *c = floe_arena_alloc(arena, sizeof(*c));
	*c = *schema;
	c->fields = copy_fields(arena, schema->fields, schema->n_fields);
	c->identifier_ids = floe_arena_alloc(arena, (schema->n_identifier_ids + 1) * sizeof(int32_t));
	if (schema->n_identifier_ids)
		memcpy(c->identifier_ids, schema->identifier_ids,
		       schema->n_identifier_ids * sizeof(int32_t));
	return c;
}

static bool fields_equal(const floe_iceberg_field *a, const floe_iceberg_field *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (a[i].id != b[i].id || a[i].required != b[i].required ||
		    strcmp(a[i].name, b[i].name) != 0 || !floe_iceberg_type_equal(a[i].type, b[i].type))
			return false;
		if ((a[i].doc == NULL) != (b[i].doc == NULL) || (a[i].doc && strcmp(a[i].doc, b[i].doc)))
			return false;
	}
	return true;
}

bool floe_iceberg_type_equal(const floe_iceberg_type *a, const floe_iceberg_type *b)
{
	if (a->id != b->id)
		return false;
	switch (a->id) {
	case FLOE_ICEBERG_DECIMAL:
		return a->precision == b->precision && a->scale == b->scale;
	case FLOE_ICEBERG_FIXED:
		return a->length == b->length;
	case FLOE_ICEBERG_STRUCT:
		return a->n_fields == b->n_fields && fields_equal(a->fields, b->fields, a->n_fields);
	case FLOE_ICEBERG_LIST:
		return a->element_id == b->element_id && a->element_required == b->element_required &&
		       floe_iceberg_type_equal(a->element, b->element);
	case FLOE_ICEBERG_MAP:
		return a->key_id == b->key_id && a->value_id == b->value_id &&
		       a->value_required == b->value_required &&
		       floe_iceberg_type_equal(a->key, b->key) && floe_iceberg_type_equal(a->value, b->value);
	default:
		return true;
	}
}

bool floe_iceberg_schema_equal(const floe_iceberg_schema *a, const floe_iceberg_schema *b)
{
	if (a->n_fields != b->n_fields || a->n_identifier_ids != b->n_identifier_ids)
		return false;
	for (size_t i = 0; i < a->n_identifier_ids; i++)
		if (a->identifier_ids[i] != b->identifier_ids[i])
			return false;
	return fields_equal(a->fields, b->fields, a->n_fields);
}

bool floe_iceberg_type_promotable(const floe_iceberg_type *from, const floe_iceberg_type *to)
{
	if (floe_iceberg_type_equal(from, to))
		return true;
	if (from->id == FLOE_ICEBERG_INT)
		return to->id == FLOE_ICEBERG_LONG;
	if (from->id == FLOE_ICEBERG_FLOAT)
		return to->id == FLOE_ICEBERG_DOUBLE;
	if (from->id == FLOE_ICEBERG_DECIMAL && to->id == FLOE_ICEBERG_DECIMAL)
		return from->scale == to->scale && from->precision <= to->precision;
	return false;
}

/* ---- id assignment ---- */

typedef struct id_map {
	int32_t *from, *to;
	size_t n, cap;
	floe_arena *arena;
} id_map;

static int32_t fresh(id_map *m, int32_t old, int32_t *last)
{
	int32_t id = ++*last;
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 32;
		int32_t *f = floe_arena_alloc(m->arena, cap * sizeof(*f)),
			*t = floe_arena_alloc(m->arena, cap * sizeof(*t));
		if (m->n) {
			memcpy(f, m->from, m->n * sizeof(*f));
			memcpy(t, m->to, m->n * sizeof(*t));
		}
		m->from = f;
		m->to = t;
		m->cap = cap;
	}
	m->from[m->n] = old;
	m->to[m->n++] = id;
	return id;
}

static void assign_type(id_map *m, floe_iceberg_type *t, int32_t *last);

static void assign_fields(id_map *m, floe_iceberg_field *fields, size_t n, int32_t *last)
{
	/* Breadth first, as Java and PyIceberg do: a struct's own fields, then what they hold. */
	for (size_t i = 0; i < n; i++)
		fields[i].id = fresh(m, fields[i].id, last);
	for (size_t i = 0; i < n; i++)
		assign_type(m, fields[i].type, last);
}

static void assign_type(id_map *m, floe_iceberg_type *t, int32_t *last)
{
	if (t->id == FLOE_ICEBERG_STRUCT) {
		assign_fields(m, t->fields, t->n_fields, last);
	} else if (t->id == FLOE_ICEBERG_LIST) {
		t->element_id = fresh(m, t->element_id, last);
		assign_type(m, t->element, last);
	} else if (t->id == FLOE_ICEBERG_MAP) {
		t->key_id = fresh(m, t->key_id, last);
		t->value_id = fresh(m, t->value_id, last);
		assign_type(m, t->key, last);
		assign_type(m, t->value, last);
	}
}

void floe_iceberg_type_assign_ids(floe_iceberg_type *type, int32_t *last_id)
{
	floe_arena *arena = floe_arena_new();
	id_map m = { NULL, NULL, 0, 0, arena };
	assign_type(&m, type, last_id);
	floe_arena_free(arena);
}

void floe_iceberg_schema_assign_ids(floe_iceberg_schema *schema, int32_t *last_id)
{
	floe_arena *arena = floe_arena_new();
	id_map m = { NULL, NULL, 0, 0, arena };
	assign_fields(&m, schema->fields, schema->n_fields, last_id);
	for (size_t i = 0; i < schema->n_identifier_ids; i++)
		for (size_t j = 0; j < m.n; j++)
			if (m.from[j] == schema->identifier_ids[i]) {
				schema->identifier_ids[i] = m.to[j];
				break;
			}
	floe_arena_free(arena);
}
