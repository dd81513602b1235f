/*
 * plan_fixture.c — see plan_fixture.h.
 */
#include "plan_fixture.h"
#include "base/arena.h"
#include "config/config.h"

#include <stdlib.h>
#include <string.h>

floe_pg_type *fx_type(floe_arena *a, const char *name)
{
	floe_pg_type *t = floe_arena_alloc(a, sizeof(*t));
	t->schema = "pg_catalog";
	t->name = t->display = t->quoted = floe_arena_strdup(a, name);
	t->typtype = 'b';
	t->category = 'U';
	return t;
}

floe_pg_type *fx_array(floe_arena *a, const floe_pg_type *element)
{
	floe_pg_type *t = fx_type(a, floe_arena_printf(a, "_%s", element->name));
	t->display = floe_arena_printf(a, "%s[]", element->name);
	t->category = 'A';
	t->element = element;
	return t;
}

floe_pg_relation *fx_table(floe_arena *a, floe_pg_relation *slot, const char *schema, const char *name)
{
	memset(slot, 0, sizeof(*slot));
	slot->schema = schema;
	slot->name = name;
	slot->quoted = floe_arena_printf(a, "\"%s\".\"%s\"", schema, name);
	slot->kind = 'r';
	slot->persistence = 'p';
	slot->schema_usage = slot->can_select = true;
	slot->columns = floe_arena_alloc(a, sizeof(floe_pg_column) * FX_MAX_COLUMNS);
	slot->key = floe_arena_alloc(a, sizeof(floe_pg_column *) * FX_MAX_COLUMNS);
	slot->triggers = floe_arena_alloc(a, sizeof(floe_pg_trigger) * FX_MAX_TRIGGERS);
	return slot;
}

floe_pg_column *fx_column(floe_arena *a, floe_pg_relation *rel, const char *name, int attnum,
			  const floe_pg_type *type)
{
	floe_pg_column *c = &rel->columns[rel->n_columns++];
	c->attnum = attnum;
	c->name = name;
	c->quoted = floe_arena_printf(a, "\"%s\"", name);
	c->type = type;
	c->typmod = -1;
	c->type_text = type->display;
	c->visible = true;
	return c;
}

void fx_key(floe_pg_relation *rel, const char *column)
{
	for (size_t i = 0; i < rel->n_columns; i++)
		if (strcmp(rel->columns[i].name, column) == 0)
			rel->key[rel->n_key++] = &rel->columns[i];
}

floe_pg_trigger *fx_trigger(floe_pg_relation *rel, const char *name, int type, const char *body)
{
	floe_pg_trigger *t = &rel->triggers[rel->n_triggers++];
	memset(t, 0, sizeof(*t));
	t->name = name;
	t->type = type;
	t->enabled = 'O';
	t->function = "touch()";
	t->language = "plpgsql";
	t->prosrc = body;
	t->definition = body;
	return t;
}

floe_plan *fx_plan(floe_arena *a, const floe_pg_relation *rels, size_t n, const char *extra)
{
	return fx_plan_deployed(a, rels, n, extra, NULL);
}

floe_plan *fx_plan_deployed(floe_arena *a, const floe_pg_relation *rels, size_t n, const char *extra,
			    const floe_lock *deployed)
{
	const char *toml = floe_arena_printf(a, "[source]\ndatabase = \"shop\"\nuser = \"reader\"\n"
						"schemas = [\"public\", \"sales\"]\n%s", extra);
	floe_config *config = NULL;
	floe_plan *plan = NULL;
	if (floe_config_parse(&config, "/p/floe.toml", toml, strlen(toml)) < 0)
		abort();
	floe_plan_from_relations(&plan, config, "reader", a, rels, n, deployed);
	floe_config_free(config);
	return plan;
}
