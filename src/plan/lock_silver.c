/*
 * lock_silver.c — a table's "silver" section of lakehouse.lock.json: the silver table,
 * its model file, columns (field ids and types of bronze, comments, PII treatment) and
 * data tests. Setting it copies into the lock's arena; rendering is deterministic
 * (members in a fixed order, a member only for the kinds that use it).
 */
#include "plan/lock_int.h"
#include "base/arena.h"

#include <string.h>

static const char *const ROW_LEVEL[] = { "not_null", "accepted_values", "row_rule", "range", "regex", NULL };

bool floe_lock_test_row_level(const char *kind)
{
	for (size_t i = 0; ROW_LEVEL[i]; i++)
		if (strcmp(kind, ROW_LEVEL[i]) == 0)
			return true;
	return false;
}

static const char *dup(floe_arena *a, const char *s)
{
	return s ? floe_arena_strdup(a, s) : NULL;
}

static const char **dup_strings(floe_arena *a, const char *const *v, size_t n)
{
	const char **out = floe_arena_alloc(a, sizeof(char *) * (n + 1));
	for (size_t i = 0; i < n; i++)
		out[i] = floe_arena_strdup(a, v[i]);
	return out;
}

static void copy_test(floe_arena *a, floe_lock_test *d, const floe_lock_test *s)
{
	*d = *s;
	d->name = dup(a, s->name);
	d->kind = dup(a, s->kind);
	d->columns = dup_strings(a, s->columns, s->n_columns);
	d->severity = dup(a, s->severity);
	d->origin = dup(a, s->origin);
	d->to = dup(a, s->to);
	d->fields = dup_strings(a, s->fields, s->n_fields);
	d->values = dup_strings(a, s->values, s->n_values);
	d->expression = dup(a, s->expression);
	d->pattern = dup(a, s->pattern);
	d->min = dup(a, s->min);
	d->max = dup(a, s->max);
}

int floe_lock_set_silver(floe_lock *lock, const char *schema, const char *name, const floe_lock_silver *silver)
{
	floe_lock_table *t = (floe_lock_table *)floe_lock_find(lock, schema, name);
	if (!t)
		return -1;
	floe_arena *a = lock->arena;
	floe_lock_silver *d = floe_arena_alloc(a, sizeof(*d));
	*d = *silver;
	d->table = dup(a, silver->table);
	d->model = dup(a, silver->model);
	d->materialized = dup(a, silver->materialized);
	d->unique_key = dup_strings(a, silver->unique_key, silver->n_unique_key);
	d->description = dup(a, silver->description);
	floe_lock_silver_column *cols = floe_arena_alloc(a, sizeof(*cols) * (silver->n_columns + 1));
	for (size_t i = 0; i < silver->n_columns; i++) {
		cols[i] = silver->columns[i]; /* type: shared with the bronze column, same lock */
		cols[i].name = dup(a, silver->columns[i].name);
		cols[i].description = dup(a, silver->columns[i].description);
		cols[i].pii = dup(a, silver->columns[i].pii);
	}
	d->columns = cols;
	floe_lock_test *tests = floe_arena_alloc(a, sizeof(*tests) * (silver->n_tests + 1));
	for (size_t i = 0; i < silver->n_tests; i++)
		copy_test(a, &tests[i], &silver->tests[i]);
	d->tests = tests;
	t->silver = d;
	return 0;
}

static void write_test(floe_json_writer *w, const floe_lock_test *t)
{
	floe_json_write_begin_object(w, true);
	floe_json_write_member_cstr(w, "name", t->name);
	floe_json_write_member_cstr(w, "kind", t->kind);
	if (t->n_columns > 0)
		floe_json_write_member_strings(w, "columns", t->columns, t->n_columns);
	if (t->to) {
		floe_json_write_member_cstr(w, "to", t->to);
		floe_json_write_member_strings(w, "fields", t->fields, t->n_fields);
	}
	if (strcmp(t->kind, "accepted_values") == 0) {
		floe_json_write_member_strings(w, "values", t->values, t->n_values);
		floe_json_write_member_bool(w, "quote", t->quote);
	}
	if (t->expression)
		floe_json_write_member_cstr(w, "expression", t->expression);
	if (t->pattern)
		floe_json_write_member_cstr(w, "pattern", t->pattern);
	if (t->min) {
		floe_json_write_key(w, "min");
		floe_json_write_number(w, t->min);
	}
	if (t->max) {
		floe_json_write_key(w, "max");
		floe_json_write_number(w, t->max);
	}
	if (strcmp(t->kind, "freshness") == 0)
		floe_json_write_member_int(w, "max_age_seconds", t->max_age_seconds);
	floe_json_write_member_cstr(w, "severity", t->severity);
	floe_json_write_member_cstr(w, "origin", t->origin);
	floe_json_write_end_object(w);
}

static void write_column(floe_json_writer *w, const floe_lock_silver_column *c)
{
	floe_json_write_begin_object(w, true);
	floe_json_write_member_cstr(w, "name", c->name);
	floe_json_write_member_int(w, "id", c->id);
	floe_json_write_key(w, "type");
	floe_lock_write_type(w, c->type);
	floe_json_write_member_cstr(w, "description", c->description);
	floe_json_write_member_cstr(w, "pii", c->pii);
	floe_json_write_end_object(w);
}

void floe_lock_write_silver(floe_json_writer *w, const floe_lock_silver *s)
{
	floe_json_write_key(w, "silver");
	floe_json_write_begin_object(w, false);
	floe_json_write_member_cstr(w, "table", s->table);
	floe_json_write_member_cstr(w, "model", s->model);
	floe_json_write_member_cstr(w, "materialized", s->materialized);
	floe_json_write_member_strings(w, "unique_key", s->unique_key, s->n_unique_key);
	floe_json_write_member_cstr(w, "description", s->description);
	floe_json_write_key(w, "columns");
	floe_json_write_begin_array(w, false);
	for (size_t i = 0; i < s->n_columns; i++)
		write_column(w, &s->columns[i]);
	floe_json_write_end_array(w);
	floe_json_write_key(w, "tests");
	floe_json_write_begin_array(w, false);
	for (size_t i = 0; i < s->n_tests; i++)
		write_test(w, &s->tests[i]);
	floe_json_write_end_array(w);
	floe_json_write_member_bool(w, "history", s->history);
	floe_json_write_end_object(w);
}
