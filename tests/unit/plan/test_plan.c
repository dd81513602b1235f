/*
 * test_plan.c — the per-table decisions on synthetic catalog facts: which
 * trigger proves a watermark, what [watermarks] does, refusals and skips.
 */
#include "harness.h"
#include "base/arena.h"
#include "plan_fixture.h"
#include "plan/lock.h"

#define BEFORE_UPDATE_ROW (FLOE_PG_TRIGGER_ROW | FLOE_PG_TRIGGER_BEFORE | FLOE_PG_TRIGGER_UPDATE)
#define TOUCH "CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN NEW.updated_at := now(); RETURN NEW; END$$"
#define TOUCH_IF "CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN IF NEW.a THEN NEW.updated_at := now(); END IF; RETURN NEW; END$$"
#define SPOIL "CREATE FUNCTION spoil() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN NEW.updated_at := NEW.updated_at - interval '1 hour'; RETURN NEW; END$$"

/* orders(id PK, updated_at timestamptz DEFAULT now()) with one trigger. */
static floe_pg_relation *orders(floe_arena *a, floe_pg_relation *slot, int trigger_type, const char *body)
{
	fx_table(a, slot, "public", "orders");
	fx_column(a, slot, "id", 1, fx_type(a, "int4"))->not_null = true;
	fx_column(a, slot, "updated_at", 2, fx_type(a, "timestamptz"))->default_expr = "now()";
	fx_key(slot, "id");
	if (body)
		fx_trigger(slot, "orders_touch", trigger_type, body);
	return slot;
}

static const floe_plan_table *plan1(floe_plan **p, floe_arena *a, floe_pg_relation *rel, const char *extra)
{
	*p = fx_plan(a, rel, 1, extra);
	return floe_plan_at(*p, 0);
}

#define EXPECT(rel, extra, mode_, fragment)                                           \
	do {                                                                            \
		floe_plan *p_ = NULL;                                                       \
		const floe_plan_table *t_ = plan1(&p_, a, (rel), (extra));                  \
		FLOE_CHECK(t_->mode == (mode_));                                            \
		FLOE_CHECK(strstr(t_->reason, (fragment)) != NULL);                         \
		if (t_->mode != (mode_) || !strstr(t_->reason, (fragment)))                 \
			fprintf(stderr, "    %s: %s\n", floe_load_mode_name(t_->mode), t_->reason); \
		floe_plan_free(p_);                                                         \
	} while (0)

FLOE_TEST(plan_watermark_proven_and_not)
{
	floe_pg_relation r;
	floe_arena *a = floe_arena_new();
	EXPECT(orders(a, &r, BEFORE_UPDATE_ROW, TOUCH), "", FLOE_LOAD_INCREMENTAL,
	       "orders.updated_at is set from the clock on every update by trigger orders_touch");
	a = floe_arena_new();
	EXPECT(orders(a, &r, 0, NULL), "", FLOE_LOAD_FULL, "orders.updated_at has no BEFORE UPDATE trigger setting it");
	a = floe_arena_new();
	EXPECT(orders(a, &r, FLOE_PG_TRIGGER_ROW | FLOE_PG_TRIGGER_UPDATE, TOUCH), "", FLOE_LOAD_FULL, "fires AFTER");
	a = floe_arena_new();
	EXPECT(orders(a, &r, FLOE_PG_TRIGGER_BEFORE | FLOE_PG_TRIGGER_UPDATE, TOUCH), "", FLOE_LOAD_FULL,
	       "FOR EACH STATEMENT");
	a = floe_arena_new();
	orders(a, &r, BEFORE_UPDATE_ROW, TOUCH)->triggers[0].enabled = 'D';
	EXPECT(&r, "", FLOE_LOAD_FULL, "that trigger is disabled");
	a = floe_arena_new();
	orders(a, &r, BEFORE_UPDATE_ROW, TOUCH)->triggers[0].has_when = true;
	EXPECT(&r, "", FLOE_LOAD_FULL, "WHEN condition");
	a = floe_arena_new();
	EXPECT(orders(a, &r, BEFORE_UPDATE_ROW, TOUCH_IF), "", FLOE_LOAD_FULL, "on a path that does not set it");
	a = floe_arena_new();
	orders(a, &r, BEFORE_UPDATE_ROW, TOUCH)->columns[1].default_expr = NULL;
	EXPECT(&r, "", FLOE_LOAD_FULL, "has no insert default of now()");
	a = floe_arena_new();
	orders(a, &r, BEFORE_UPDATE_ROW | FLOE_PG_TRIGGER_INSERT, TOUCH)->columns[1].default_expr = NULL;
	EXPECT(&r, "", FLOE_LOAD_INCREMENTAL, "on insert by trigger orders_touch");
	a = floe_arena_new();
	orders(a, &r, BEFORE_UPDATE_ROW, TOUCH)->n_key = 0;
	EXPECT(&r, "", FLOE_LOAD_FULL, "orders has no primary key");
	a = floe_arena_new();
	fx_trigger(orders(a, &r, BEFORE_UPDATE_ROW, TOUCH), "zz_spoil", BEFORE_UPDATE_ROW, SPOIL);
	EXPECT(&r, "", FLOE_LOAD_FULL, "trigger zz_spoil fires after it");
}

FLOE_TEST(plan_watermarks_config)
{
	floe_pg_relation r;
	floe_arena *a = floe_arena_new();
	orders(a, &r, BEFORE_UPDATE_ROW, TOUCH);
	fx_column(a, &r, "created_at", 3, fx_type(a, "timestamptz"))->default_expr = "now()";
	EXPECT(&r, "[watermarks]\n\"public.orders\" = \"created_at\"\n", FLOE_LOAD_FULL,
	       "orders.created_at has no BEFORE UPDATE trigger setting it");
	a = floe_arena_new();
	orders(a, &r, BEFORE_UPDATE_ROW, TOUCH);
	EXPECT(&r, "[watermarks]\n\"public.orders\" = \"nope\"\n", FLOE_LOAD_FULL, "names orders.nope, which does not exist");
	a = floe_arena_new();
	orders(a, &r, BEFORE_UPDATE_ROW, TOUCH);
	EXPECT(&r, "[watermarks]\n\"public.orders\" = \"id\"\n", FLOE_LOAD_FULL, "a watermark must be timestamp");
	a = floe_arena_new();
	orders(a, &r, BEFORE_UPDATE_ROW, TOUCH);
	EXPECT(&r, "[watermarks]\n\"public.orders\" = \"updated_at\"\n", FLOE_LOAD_INCREMENTAL, "orders_touch");
	/* moddatetime (contrib) proves its argument. */
	a = floe_arena_new();
	floe_pg_trigger *t = fx_trigger(orders(a, &r, 0, NULL), "mdt", BEFORE_UPDATE_ROW, NULL);
	t->language = "c";
	t->prosrc = "moddatetime";
	t->definition = NULL;
	t->first_arg = "updated_at";
	EXPECT(&r, "", FLOE_LOAD_INCREMENTAL, "trigger mdt");
}

FLOE_TEST(plan_refusals_and_skips)
{
	floe_pg_relation r[1];
	floe_arena *a = floe_arena_new();
	orders(a, &r[0], BEFORE_UPDATE_ROW, TOUCH)->columns[1].visible = false;
	EXPECT(&r[0], "", FLOE_LOAD_REFUSED, "column updated_at is not visible to role reader");
	a = floe_arena_new();
	fx_column(a, orders(a, &r[0], 0, NULL), "tree", 3, fx_type(a, "pg_node_tree"));
	EXPECT(&r[0], "", FLOE_LOAD_REFUSED, "column tree (pg_node_tree) cannot be carried");
	a = floe_arena_new();
	orders(a, &r[0], 0, NULL)->rls_active = true;
	EXPECT(&r[0], "", FLOE_LOAD_REFUSED, "row-level security");
	a = floe_arena_new();
	orders(a, &r[0], 0, NULL)->kind = 'v';
	EXPECT(&r[0], "", FLOE_LOAD_SKIPPED, "a view");
	a = floe_arena_new();
	orders(a, &r[0], 0, NULL)->persistence = 't';
	EXPECT(&r[0], "", FLOE_LOAD_SKIPPED, "temporary");
}

/* sales.x__y and sales__x.y: both bronze.sales__x__y. */
static void same_bronze_name(floe_arena *a, floe_pg_relation *r)
{
	orders(a, &r[0], 0, NULL);
	r[0].schema = "sales";
	r[0].name = "x__y";
	orders(a, &r[1], 0, NULL);
	r[1].schema = "sales__x";
	r[1].name = "y";
}

FLOE_TEST(plan_exclude_and_collisions)
{
	floe_pg_relation r[3];
	floe_arena *a = floe_arena_new();
	same_bronze_name(a, r);
	orders(a, &r[2], 0, NULL);
	r[2].name = "gone";
	floe_plan *p = fx_plan(a, r, 3, "exclude = [\"public.gone\"]\n");
	FLOE_CHECK(floe_plan_count(p) == 2);
	FLOE_CHECK(floe_plan_at(p, 1)->mode == FLOE_LOAD_REFUSED &&
		   strstr(floe_plan_at(p, 1)->reason, "already taken by sales.x__y"));
	floe_plan_free(p);
}

/* The table the lock deployed under a name keeps it, though the newcomer sorts first. */
FLOE_TEST(plan_a_deployed_bronze_name_stays_its_tables)
{
	floe_pg_relation first[2], both[2];
	floe_lock *deployed = NULL, *next = NULL;
	floe_arena *a = floe_arena_new(), *b = floe_arena_new();
	same_bronze_name(a, first);
	floe_plan *p1 = fx_plan(a, &first[1], 1, "");
	floe_lock_build(&deployed, p1, NULL);
	same_bronze_name(b, both);
	floe_plan *p2 = fx_plan_deployed(b, both, 2, "", deployed);
	const floe_plan_table *newcomer = floe_plan_at(p2, 0), *owner = floe_plan_at(p2, 1);
	FLOE_CHECK(strcmp(newcomer->name, "x__y") == 0 && newcomer->mode == FLOE_LOAD_REFUSED && !newcomer->sql);
	FLOE_CHECK(strstr(newcomer->reason, "bronze.sales__x__y belongs to sales__x.y"));
	FLOE_CHECK(owner->mode == FLOE_LOAD_FULL && owner->sql);
	/* The lock names the owner to everyone but the owner itself. */
	FLOE_CHECK(floe_lock_name_owner(deployed, "sales", "x__y", "bronze.sales__x__y") != NULL);
	FLOE_CHECK(floe_lock_name_owner(deployed, "sales__x", "y", "bronze.sales__x__y") == NULL);
	/* The next lock: the owner holds it still, the refused newcomer holds nothing. */
	floe_lock_build(&next, p2, deployed);
	FLOE_CHECK(floe_lock_name_owner(next, "sales", "x__y", "bronze.SALES__X__Y") != NULL);
	FLOE_CHECK(floe_lock_name_owner(next, "sales__x", "y", "bronze.sales__x__y") == NULL);
	/* bronze.sales__x__y names the owner only; the newcomer answers to its source name. */
	const floe_lock_table *lost = floe_lock_find(next, "sales", "x__y"), *kept = floe_lock_find(next, "sales__x", "y");
	FLOE_CHECK(lost && kept && lost->owner && strcmp(lost->owner, "sales__x.y") == 0 && !kept->owner);
	FLOE_CHECK(lost && !floe_lock_table_named(lost, "bronze.sales__x__y") && floe_lock_table_named(lost, "sales.x__y"));
	FLOE_CHECK(kept && floe_lock_table_named(kept, "bronze.sales__x__y"));
	floe_lock_free(next);
	floe_plan_free(p2);
	floe_lock_free(deployed);
	floe_plan_free(p1);
}
