/*
 * toml_table.c — TOML tables and arrays as containers, and the rules about
 * defining tables: which header or dotted key may open or extend which table.
 *
 * Every table remembers its origin (toml_int.h). The rules of TOML 1.0:
 *   - [a.b] may pass through any table except an inline one, and through the
 *     last element of an array of tables; it may define a table that does not
 *     exist yet or was only made implicitly by an earlier header, once.
 *   - [[a.b]] appends to an array made by [[a.b]], never to an array value.
 *   - a.b = 1 may only pass through tables made by dotted keys (in the same
 *     table section, which the rules above make the only place they can be met).
 *   - inline tables and array values are complete once written.
 * Lookups use a linear scan while a table is small and an open-addressing
 * index once it grows, so a hostile document with many keys stays linear.
 */
#include "config/toml_int.h"

#include <string.h>

#define INDEX_MIN 8 /* tables with fewer entries are searched linearly */

floe_toml_value *toml_new_value(toml_parser *ps, floe_toml_type type, int line, int col)
{
	floe_toml_value *v = floe_arena_alloc(ps->arena, sizeof(*v));
	v->type = type;
	v->origin = TOML_LITERAL;
	v->line = line;
	v->col = col;
	return v;
}

static size_t hash_key(floe_slice key)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	for (size_t i = 0; i < key.len; i++)
		h = (h ^ (unsigned char)key.ptr[i]) * 1099511628211ULL;
	return (size_t)h;
}

static void index_add(floe_toml_value *t, size_t i)
{
	size_t mask = t->u.tab.index_cap - 1;
	size_t h = hash_key(t->u.tab.entries[i].key) & mask;
	while (t->u.tab.index[h])
		h = (h + 1) & mask;
	t->u.tab.index[h] = i + 1;
}

static void index_rebuild(toml_parser *ps, floe_toml_value *t)
{
	size_t cap = 16;
	while (cap < t->u.tab.len * 4)
		cap *= 2;
	t->u.tab.index = floe_arena_alloc(ps->arena, cap * sizeof(size_t));
	t->u.tab.index_cap = cap;
	for (size_t i = 0; i < t->u.tab.len; i++)
		index_add(t, i);
}

floe_toml_value *toml_table_find(const floe_toml_value *t, floe_slice key, size_t *index_out)
{
	const toml_entry *e = t->u.tab.entries;
	if (!t->u.tab.index) {
		for (size_t i = 0; i < t->u.tab.len; i++) {
			if (floe_slice_eq(e[i].key, key)) {
				*index_out = i;
				return e[i].value;
			}
		}
		return NULL;
	}
	size_t mask = t->u.tab.index_cap - 1;
	for (size_t h = hash_key(key) & mask; t->u.tab.index[h]; h = (h + 1) & mask) {
		size_t i = t->u.tab.index[h] - 1;
		if (floe_slice_eq(e[i].key, key)) {
			*index_out = i;
			return e[i].value;
		}
	}
	return NULL;
}

void toml_table_insert(toml_parser *ps, floe_toml_value *t, const toml_key_part *key,
		       floe_toml_value *value)
{
	if (t->u.tab.len == t->u.tab.cap) {
		size_t cap = t->u.tab.cap ? t->u.tab.cap * 2 : 4;
		toml_entry *grown = floe_arena_alloc(ps->arena, cap * sizeof(*grown));
		if (t->u.tab.len)
			memcpy(grown, t->u.tab.entries, t->u.tab.len * sizeof(*grown));
		t->u.tab.entries = grown;
		t->u.tab.cap = cap;
	}
	t->u.tab.entries[t->u.tab.len++] = (toml_entry){ key->name, key->line, key->col, value };
	if (t->u.tab.len < INDEX_MIN)
		return;
	if (!t->u.tab.index || t->u.tab.len * 2 > t->u.tab.index_cap)
		index_rebuild(ps, t);
	else
		index_add(t, t->u.tab.len - 1);
}

void toml_array_push(toml_parser *ps, floe_toml_value *a, floe_toml_value *item)
{
	if (a->u.arr.len == a->u.arr.cap) {
		size_t cap = a->u.arr.cap ? a->u.arr.cap * 2 : 4;
		floe_toml_value **grown = floe_arena_alloc(ps->arena, cap * sizeof(*grown));
		if (a->u.arr.len)
			memcpy(grown, a->u.arr.items, a->u.arr.len * sizeof(*grown));
		a->u.arr.items = grown;
		a->u.arr.cap = cap;
	}
	a->u.arr.items[a->u.arr.len++] = item;
}

/* A new container under `parent`, named by keys[i], at (line, col). */
static floe_toml_value *add_child(toml_parser *ps, floe_toml_value *parent, int i,
				  floe_toml_type type, toml_origin origin, int line, int col)
{
	const toml_key_part *key = &ps->keys[i];
	floe_toml_value *v;
	if (parent->depth >= FLOE_TOML_MAX_DEPTH) {
		toml_fail_at(ps, key->line, key->col, "nesting deeper than %d levels",
			     FLOE_TOML_MAX_DEPTH);
		return NULL;
	}
	v = toml_new_value(ps, type, line, col);
	v->origin = origin;
	v->depth = parent->depth + 1;
	toml_table_insert(ps, parent, key, v);
	return v;
}

/* What an existing entry is, for messages: "a string", "an inline table", ... */
static const char *what_it_is(const floe_toml_value *v)
{
	switch (v->type) {
	case FLOE_TOML_TABLE:
		return v->origin == TOML_LITERAL ? "an inline table" :
		       v->origin == TOML_DOTTED	 ? "a table by dotted keys" :
						   "a table by a [header]";
	case FLOE_TOML_ARRAY:
		return v->origin == TOML_AOT ? "an array of tables" : "an array value";
	case FLOE_TOML_STRING: return "a string";
	case FLOE_TOML_INTEGER: return "an integer";
	case FLOE_TOML_FLOAT: return "a float";
	case FLOE_TOML_BOOL: return "a boolean";
	default: return "a date-time";
	}
}

/* keys[0..n) met entry `at` of `t`, which does not allow what was `asked`. */
static int conflict(toml_parser *ps, const floe_toml_value *t, size_t at, int n,
		    const char *asked)
{
	char name[96];
	const toml_entry *e = &t->u.tab.entries[at];
	const toml_key_part *key = &ps->keys[n - 1];
	return toml_fail_at(ps, key->line, key->col, "%s `%s`: it is already defined as %s "
			    "(line %d)", asked, toml_describe_key(ps, n, name, sizeof(name)),
			    what_it_is(e->value), e->line);
}

int toml_table_for_dotted(floe_toml_value **out, toml_parser *ps, floe_toml_value *table)
{
	floe_toml_value *t = table, *next;
	size_t at = 0;
	for (int i = 0; i + 1 < ps->nkeys; i++) {
		next = toml_table_find(t, ps->keys[i].name, &at);
		if (!next)
			next = add_child(ps, t, i, FLOE_TOML_TABLE, TOML_DOTTED, ps->keys[i].line,
					 ps->keys[i].col);
		else if (next->type != FLOE_TOML_TABLE || next->origin != TOML_DOTTED)
			return conflict(ps, t, at, i + 1, "cannot add dotted keys to");
		if (!next)
			return -1;
		t = next;
	}
	*out = t;
	return 0;
}

/* A header passing through keys[i], which exists as entry `at` of `t`. */
static int header_step(floe_toml_value **next, toml_parser *ps, floe_toml_value *t,
		       size_t at, int i)
{
	floe_toml_value *v = t->u.tab.entries[at].value;
	if (v->type == FLOE_TOML_TABLE && v->origin != TOML_LITERAL) {
		*next = v;
		return 0;
	}
	if (v->type == FLOE_TOML_ARRAY && v->origin == TOML_AOT) {
		*next = v->u.arr.items[v->u.arr.len - 1]; /* the element being written */
		return 0;
	}
	return conflict(ps, t, at, i + 1, "cannot add a table to");
}

/* [keys]: define the table, or take over the one an earlier header made implicitly. */
static floe_toml_value *open_table(toml_parser *ps, floe_toml_value *t, int line, int col)
{
	int n = ps->nkeys;
	size_t at = 0;
	floe_toml_value *v = toml_table_find(t, ps->keys[n - 1].name, &at);
	if (!v)
		return add_child(ps, t, n - 1, FLOE_TOML_TABLE, TOML_HEADER, line, col);
	if (v->type != FLOE_TOML_TABLE || v->origin != TOML_IMPLICIT) {
		conflict(ps, t, at, n, "cannot define table");
		return NULL;
	}
	v->origin = TOML_HEADER;
	v->line = line;
	v->col = col;
	t->u.tab.entries[at].line = ps->keys[n - 1].line;
	t->u.tab.entries[at].col = ps->keys[n - 1].col;
	return v;
}

/* [[keys]]: a new element at the end of the array of tables. */
static floe_toml_value *open_array_table(toml_parser *ps, floe_toml_value *t, int line,
					 int col)
{
	int n = ps->nkeys;
	size_t at = 0;
	floe_toml_value *a = toml_table_find(t, ps->keys[n - 1].name, &at), *elem;
	if (!a)
		a = add_child(ps, t, n - 1, FLOE_TOML_ARRAY, TOML_AOT, line, col);
	else if (a->type != FLOE_TOML_ARRAY || a->origin != TOML_AOT) {
		conflict(ps, t, at, n, "cannot append a table to");
		return NULL;
	}
	if (!a)
		return NULL;
	if (a->depth >= FLOE_TOML_MAX_DEPTH) {
		toml_fail_at(ps, line, col, "nesting deeper than %d levels", FLOE_TOML_MAX_DEPTH);
		return NULL;
	}
	elem = toml_new_value(ps, FLOE_TOML_TABLE, line, col);
	elem->origin = TOML_HEADER;
	elem->depth = a->depth + 1;
	toml_array_push(ps, a, elem);
	return elem;
}

int toml_table_open(toml_parser *ps, bool array_of_tables, int line, int col)
{
	floe_toml_value *t = ps->root, *next = NULL;
	size_t at = 0;
	for (int i = 0; i + 1 < ps->nkeys; i++) {
		if (toml_table_find(t, ps->keys[i].name, &at)) {
			if (header_step(&next, ps, t, at, i) < 0)
				return -1;
		} else {
			next = add_child(ps, t, i, FLOE_TOML_TABLE, TOML_IMPLICIT, ps->keys[i].line,
					 ps->keys[i].col);
			if (!next)
				return -1;
		}
		t = next;
	}
	next = array_of_tables ? open_array_table(ps, t, line, col) : open_table(ps, t, line, col);
	if (!next)
		return -1;
	ps->current = next;
	return 0;
}
