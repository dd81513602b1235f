/*
 * plan_fixture.h — synthetic catalog facts for the plan and lock tests: tables,
 * columns of built-in types, keys and triggers, without a PostgreSQL server.
 */
#ifndef FLOE_TESTS_PLAN_FIXTURE_H
#define FLOE_TESTS_PLAN_FIXTURE_H

#include "plan/plan.h"

#define FX_MAX_COLUMNS 32
#define FX_MAX_TRIGGERS 8

floe_pg_type *fx_type(floe_arena *a, const char *name);
floe_pg_type *fx_array(floe_arena *a, const floe_pg_type *element);
floe_pg_relation *fx_table(floe_arena *a, floe_pg_relation *slot, const char *schema, const char *name);
floe_pg_column *fx_column(floe_arena *a, floe_pg_relation *rel, const char *name, int attnum,
			  const floe_pg_type *type);
void fx_key(floe_pg_relation *rel, const char *column);
floe_pg_trigger *fx_trigger(floe_pg_relation *rel, const char *name, int type, const char *body);

/*
 * A plan of `rels` under a floe.toml whose [source] table ends with `extra` (more keys of
 * [source], then other tables; may be ""). The arena passes to the plan.
 */
floe_plan *fx_plan(floe_arena *a, const floe_pg_relation *rels, size_t n, const char *extra);

/* The same, with the bronze names the lock `deployed` gave out (floe_plan_from_relations). */
floe_plan *fx_plan_deployed(floe_arena *a, const floe_pg_relation *rels, size_t n, const char *extra,
			    const floe_lock *deployed);

#endif
