/*
 * toml.c — the TOML document: its lifetime and the read-only accessors.
 * Parsing lives in toml_parse.c and the files it names (see toml_int.h).
 */
#include "config/toml_int.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

void floe_toml_free(floe_toml_doc *doc)
{
	if (!doc)
		return;
	floe_arena_free(doc->arena);
	free(doc);
}

const floe_toml_value *floe_toml_root(const floe_toml_doc *doc)
{
	return doc->root;
}

floe_toml_type floe_toml_type_of(const floe_toml_value *v)
{
	return v->type;
}

const char *floe_toml_type_name(floe_toml_type t)
{
	switch (t) {
	case FLOE_TOML_STRING: return "string";
	case FLOE_TOML_INTEGER: return "integer";
	case FLOE_TOML_FLOAT: return "float";
	case FLOE_TOML_BOOL: return "boolean";
	case FLOE_TOML_DATETIME: return "offset date-time";
	case FLOE_TOML_DATETIME_LOCAL: return "local date-time";
	case FLOE_TOML_DATE_LOCAL: return "local date";
	case FLOE_TOML_TIME_LOCAL: return "local time";
	case FLOE_TOML_ARRAY: return "array";
	case FLOE_TOML_TABLE: return "table";
	}
	return "unknown";
}

size_t floe_toml_count(const floe_toml_value *v)
{
	if (!v)
		return 0;
	if (v->type == FLOE_TOML_TABLE)
		return v->u.tab.len;
	if (v->type == FLOE_TOML_ARRAY)
		return v->u.arr.len;
	return 0;
}

static const toml_entry *entry_at(const floe_toml_value *table, size_t i)
{
	assert(table->type == FLOE_TOML_TABLE && i < table->u.tab.len);
	return &table->u.tab.entries[i];
}

floe_slice floe_toml_key_at(const floe_toml_value *table, size_t i)
{
	return entry_at(table, i)->key;
}

int floe_toml_key_line_at(const floe_toml_value *table, size_t i)
{
	return entry_at(table, i)->line;
}

int floe_toml_key_col_at(const floe_toml_value *table, size_t i)
{
	return entry_at(table, i)->col;
}

const floe_toml_value *floe_toml_value_at(const floe_toml_value *v, size_t i)
{
	if (v->type == FLOE_TOML_TABLE)
		return entry_at(v, i)->value;
	assert(v->type == FLOE_TOML_ARRAY && i < v->u.arr.len);
	return v->u.arr.items[i];
}

const floe_toml_value *floe_toml_get_slice(const floe_toml_value *table, floe_slice key)
{
	size_t at;
	if (!table || table->type != FLOE_TOML_TABLE)
		return NULL;
	return toml_table_find(table, key, &at);
}

const floe_toml_value *floe_toml_get(const floe_toml_value *table, const char *key)
{
	return floe_toml_get_slice(table, floe_slice_from(key));
}

int floe_toml_line(const floe_toml_value *v)
{
	return v->line;
}

int floe_toml_col(const floe_toml_value *v)
{
	return v->col;
}

floe_slice floe_toml_string(const floe_toml_value *v)
{
	assert(v->type == FLOE_TOML_STRING);
	return v->u.str;
}

int64_t floe_toml_int(const floe_toml_value *v)
{
	assert(v->type == FLOE_TOML_INTEGER);
	return v->u.i;
}

double floe_toml_float(const floe_toml_value *v)
{
	assert(v->type == FLOE_TOML_FLOAT);
	return v->u.f;
}

bool floe_toml_bool(const floe_toml_value *v)
{
	assert(v->type == FLOE_TOML_BOOL);
	return v->u.b;
}

floe_toml_datetime floe_toml_datetime_of(const floe_toml_value *v)
{
	assert(v->type >= FLOE_TOML_DATETIME && v->type <= FLOE_TOML_TIME_LOCAL);
	return v->u.dt;
}
