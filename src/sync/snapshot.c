/*
 * snapshot.c — the two sides the classifier compares, as floe_sync_table: the deployed
 * lock's tables and the catalog's (a plan built from it), with the table's DDL as
 * PostgreSQL reports it (format_type, pg_get_expr, pg_get_constraintdef) for the evidence.
 */
#include "sync/sync.h"
#include "base/arena.h"
#include "plan/lock.h"
#include "plan/plan.h"

#include <string.h>

/* A lock type as floe_plan_type_text writes a plan type: "long", "list<string>", "struct<a: int>". */
static void lock_type_text(floe_buf *b, const floe_lock_type *t)
{
	if (t->kind == FLOE_PLAN_PRIMITIVE) {
		floe_buf_puts(b, t->primitive);
	} else if (t->kind == FLOE_PLAN_LIST) {
		floe_buf_puts(b, "list<");
		lock_type_text(b, t->element);
		floe_buf_putc(b, '>');
	} else {
		floe_buf_puts(b, "struct<");
		for (size_t i = 0; i < t->n_fields; i++) {
			floe_buf_printf(b, "%s%s: ", i ? ", " : "", t->fields[i].name);
			lock_type_text(b, t->fields[i].type);
		}
		floe_buf_putc(b, '>');
	}
}

static const char *type_text(floe_arena *a, const floe_lock_type *lt, const floe_plan_type *pt)
{
	floe_buf b = FLOE_BUF_INIT;
	if (lt)
		lock_type_text(&b, lt);
	else if (pt)
		floe_plan_type_text(&b, pt);
	const char *s = floe_arena_strdup(a, floe_buf_cstr(&b));
	floe_buf_free(&b);
	return s;
}

/* The deployed enum labels of `column`: its silver accepted_values test from the enum type. */
static void lock_enum(floe_sync_column *c, const floe_lock_silver *s)
{
	for (size_t i = 0; s && i < s->n_tests; i++) {
		const floe_lock_test *t = &s->tests[i];
		if (strcmp(t->kind, "accepted_values") == 0 && t->n_columns == 1 && strcmp(t->columns[0], c->name) == 0 &&
		    t->origin && strncmp(t->origin, "enum ", 5) == 0) {
			c->enum_labels = t->values;
			c->n_enum_labels = t->n_values;
		}
	}
}

int floe_sync_from_lock(floe_sync_table **out, size_t *n_out, floe_arena *a, const floe_lock *lock)
{
	size_t n = 0, total = floe_lock_count(lock);
	floe_sync_table *ts = floe_arena_alloc(a, (total + 1) * sizeof(*ts));
	for (size_t i = 0; i < total; i++) {
		const floe_lock_table *t = floe_lock_at(lock, i);
		if (t->mode == FLOE_LOAD_REMOVED)
			continue;
		floe_sync_column *cs = floe_arena_alloc(a, (t->n_columns + 1) * sizeof(*cs));
		for (size_t k = 0; k < t->n_columns; k++) {
			const floe_lock_column *c = &t->columns[k];
			cs[k] = (floe_sync_column){ .name = c->name, .attnum = c->attnum, .pg_type = c->pg_type,
						    .iceberg = type_text(a, c->type, NULL), .not_null = c->required,
						    .id = c->id };
			lock_enum(&cs[k], t->silver);
		}
		ts[n++] = (floe_sync_table){ .schema = t->schema, .name = t->name, .bronze = t->bronze,
					     .loadable = floe_load_mode_loadable(t->mode), .watermark = t->watermark,
					     .key = t->key, .n_key = t->n_key, .columns = cs, .n_columns = t->n_columns };
	}
	*out = ts;
	*n_out = n;
	return 0;
}

static const floe_pg_column *source_column(const floe_pg_relation *rel, int attnum)
{
	for (size_t i = 0; rel && i < rel->n_columns; i++)
		if (rel->columns[i].attnum == attnum)
			return &rel->columns[i];
	return NULL;
}

/* CREATE TABLE as the catalog describes it now: columns, defaults, NOT NULL, key, CHECKs, triggers. */
static const char *ddl_of(floe_arena *a, const floe_pg_relation *rel)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_buf_printf(&b, "CREATE TABLE %s (\n", rel->quoted);
	for (size_t i = 0; i < rel->n_columns; i++) {
		const floe_pg_column *c = &rel->columns[i];
		floe_buf_printf(&b, "    %s %s%s%s%s%s\n", c->quoted, c->type_text, c->default_expr ? " DEFAULT " : "",
				c->default_expr ? c->default_expr : "", c->not_null ? " NOT NULL" : "",
				i + 1 < rel->n_columns || rel->n_key || rel->n_checks ? "," : "");
	}
	if (rel->n_key) {
		floe_buf_puts(&b, "    PRIMARY KEY (");
		for (size_t i = 0; i < rel->n_key; i++)
			floe_buf_printf(&b, "%s%s", i ? ", " : "", rel->key[i]->quoted);
		floe_buf_printf(&b, ")%s\n", rel->n_checks ? "," : "");
	}
	for (size_t i = 0; i < rel->n_checks; i++)
		floe_buf_printf(&b, "    CONSTRAINT %s %s%s\n", rel->checks[i].name, rel->checks[i].definition,
				i + 1 < rel->n_checks ? "," : "");
	floe_buf_puts(&b, ");\n");
	for (size_t i = 0; i < rel->n_triggers; i++) {
		const floe_pg_trigger *t = &rel->triggers[i];
		floe_buf_printf(&b, "-- trigger %s: %s %s%s%s FOR EACH %s EXECUTE FUNCTION %s\n", t->name,
				t->type & FLOE_PG_TRIGGER_BEFORE ? "BEFORE" : "AFTER",
				t->type & FLOE_PG_TRIGGER_INSERT ? "INSERT " : "", t->type & FLOE_PG_TRIGGER_UPDATE ? "UPDATE " : "",
				t->type & FLOE_PG_TRIGGER_DELETE ? "DELETE " : "", t->type & FLOE_PG_TRIGGER_ROW ? "ROW" : "STATEMENT",
				t->function);
	}
	const char *s = floe_arena_strdup(a, floe_buf_cstr(&b));
	floe_buf_free(&b);
	return s;
}

static void plan_table(floe_sync_table *out, floe_arena *a, const floe_plan_table *t)
{
	floe_sync_column *cs = floe_arena_alloc(a, (t->n_columns + 1) * sizeof(*cs));
	for (size_t k = 0; k < t->n_columns; k++) {
		const floe_plan_column *c = &t->columns[k];
		const floe_pg_column *pc = source_column(t->source, c->attnum);
		cs[k] = (floe_sync_column){ .name = c->name, .attnum = c->attnum, .pg_type = c->pg_type,
					    .iceberg = type_text(a, NULL, c->map.type), .not_null = c->required,
					    .default_expr = pc ? pc->default_expr : NULL,
					    .enum_labels = pc ? pc->enum_labels : NULL, .n_enum_labels = pc ? pc->n_enum_labels : 0 };
	}
	*out = (floe_sync_table){ .schema = t->schema, .name = t->name, .bronze = t->bronze,
				  .loadable = floe_load_mode_loadable(t->mode), .watermark = t->watermark,
				  .key = t->key, .n_key = t->n_key, .columns = cs, .n_columns = t->n_columns,
				  .ddl = t->source ? ddl_of(a, t->source) : NULL };
}

int floe_sync_from_plan(floe_sync_table **out, size_t *n_out, floe_arena *a, const floe_plan *plan)
{
	size_t n = 0, total = floe_plan_count(plan);
	floe_sync_table *ts = floe_arena_alloc(a, (total + 1) * sizeof(*ts));
	for (size_t i = 0; i < total; i++) {
		const floe_plan_table *t = floe_plan_at(plan, i);
		if (t->mode != FLOE_LOAD_SKIPPED)
			plan_table(&ts[n++], a, t);
	}
	*out = ts;
	*n_out = n;
	return 0;
}
