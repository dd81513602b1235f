/*
 * test_snapshot.c — the classifier's two sides built the way floe sync builds them (a plan of
 * synthetic catalog facts, the lock floe_lock_build makes of it), and the proposal text: a
 * rename found by attnum keeps its field id, reaches the silver column, its tests and the gold
 * marts whose model reads the silver table, and says what merging does.
 */
#include "harness.h"
#include "base/arena.h"
#include "plan/lock.h"
#include "plan/plan_fixture.h"
#include "config/policy.h"
#include "sync/sync_int.h"

/* The plan of public.orders (id, status, total) with `second` as attnum 2's name. */
static floe_plan *orders_plan(const char *second)
{
	floe_arena *a = floe_arena_new();
	floe_pg_relation *rel = floe_arena_alloc(a, sizeof(*rel)); /* the plan points at it */
	fx_table(a, rel, "public", "orders");
	fx_column(a, rel, "id", 1, fx_type(a, "int4"));
	fx_column(a, rel, second, 2, fx_type(a, "text"));
	fx_column(a, rel, "total", 3, fx_type(a, "int8"));
	fx_key(rel, "id");
	return fx_plan(a, rel, 1, "");
}

static floe_lock *lock_for(const floe_plan *plan, const floe_lock *prev)
{
	floe_lock *empty = NULL, *lock = NULL;
	if (!prev) {
		floe_lock_parse(&empty, "empty", "{\"format\": 1, \"tables\": []}", 27);
		prev = empty;
	}
	FLOE_CHECK(floe_lock_build(&lock, plan, prev) == 0);
	floe_lock_free(empty);
	return lock;
}

static void give_silver(floe_lock *lock, floe_arena *a)
{
	static const char *status[] = { "status" };
	const floe_lock_table *t = floe_lock_find(lock, "public", "orders");
	floe_lock_silver *s = floe_arena_alloc(a, sizeof(*s));
	memset(s, 0, sizeof(*s));
	s->table = "silver.orders";
	s->model = "dbt/models/silver/orders.sql";
	s->materialized = "table";
	s->n_columns = t->n_columns;
	s->columns = floe_arena_alloc(a, sizeof(*s->columns) * t->n_columns);
	for (size_t i = 0; i < t->n_columns; i++)
		s->columns[i] = (floe_lock_silver_column){ t->columns[i].name, t->columns[i].id, t->columns[i].type, NULL, NULL };
	s->tests = floe_arena_alloc(a, sizeof(*s->tests));
	s->tests[0] = (floe_lock_test){ .name = "not_null_orders_status", .kind = "not_null", .columns = status,
					.n_columns = 1, .severity = "error", .origin = "NOT NULL" };
	s->n_tests = 1;
	FLOE_CHECK(floe_lock_set_silver(lock, "public", "orders", s) == 0);
}

FLOE_TEST(sync_snapshot_rename_through_plan_and_lock)
{
	floe_arena *a = floe_arena_new();
	floe_plan *p1 = orders_plan("status"), *p2 = orders_plan("order_status");
	floe_lock *before = lock_for(p1, NULL);
	give_silver(before, a);
	floe_lock *after = lock_for(p2, before);
	floe_sync_table *dep = NULL, *now = NULL;
	size_t n_dep = 0, n_now = 0, n = 0;
	floe_sync_change *c = NULL;
	FLOE_CHECK(floe_sync_from_lock(&dep, &n_dep, a, before) == 0 && n_dep == 1);
	FLOE_CHECK(floe_sync_from_plan(&now, &n_now, a, p2) == 0 && n_now == 1);
	FLOE_CHECK(floe_sync_classify(&c, &n, a, dep, n_dep, now, n_now) == 0);
	FLOE_CHECK(n == 1 && c[0].cls == FLOE_SYNC_RENAME_COLUMN && c[0].field_id == 2);
	FLOE_CHECK(now[0].ddl && strstr(now[0].ddl, "CREATE TABLE") && strstr(now[0].ddl, "order_status"));
	/* nothing changed: the plan the lock was built from classifies to nothing */
	floe_sync_table *same = NULL;
	size_t n_same = 0;
	FLOE_CHECK(floe_sync_from_plan(&same, &n_same, a, p1) == 0);
	FLOE_CHECK(floe_sync_classify(&c, &n, a, dep, n_dep, same, n_same) == 0 && n == 0);

	FLOE_CHECK(floe_sync_classify(&c, &n, a, dep, n_dep, now, n_now) == 0);
	sync_table t = { .table = "public.orders", .bronze = "bronze.orders", .changes = c, .n = n,
			 .action = FLOE_SYNC_BRANCH, .pauses = true, .id = "0123abcd", .ddl = now[0].ddl };
	static const char marts[] = "{\"marts\": [{\"name\": \"revenue\", \"table\": \"gold.revenue\", "
				    "\"reads\": [\"silver.orders\"]}, {\"name\": \"other\", \"table\": \"gold.other\", "
				    "\"reads\": [\"silver.customers\"]}]}";
	const char *text = sync_proposal_text(a, &t, before, after, "2026-12-02T01:00:00Z", marts);
	FLOE_CHECK(strstr(text, "rename-column (breaking): column status renamed to order_status (field id 2 kept)"));
	FLOE_CHECK(strstr(text, "- bronze: bronze.orders.status (field id 2)"));
	FLOE_CHECK(strstr(text, "- silver: silver.orders.status"));
	FLOE_CHECK(strstr(text, "- silver test: not_null_orders_status (not_null)"));
	FLOE_CHECK(strstr(text, "- gold: gold.revenue (its model reads silver.orders)"));
	FLOE_CHECK(!strstr(text, "gold.other"));
	FLOE_CHECK(strstr(text, "## What merging will do\n\n- bronze.orders: "));
	FLOE_CHECK(strstr(text, "First seen 2026-12-02T01:00:00Z"));
	floe_lock_free(before);
	floe_lock_free(after);
	floe_plan_free(p1);
	floe_plan_free(p2);
	floe_arena_free(a);
}

FLOE_TEST(sync_policy_names_are_the_class_names)
{
	size_t n = 0;
	while (floe_policy_classes[n])
		n++;
	FLOE_CHECK(n == FLOE_SYNC_CLASS_COUNT);
	for (size_t i = 0; i < n && i < FLOE_SYNC_CLASS_COUNT; i++)
		FLOE_CHECK_STR(floe_policy_classes[i], floe_sync_class_name((floe_sync_class)i));
	FLOE_CHECK(floe_policy_class_problem("rename") != NULL && floe_policy_class_problem("drop-table") == NULL);
	FLOE_CHECK(floe_policy_action_problem("merge") != NULL && floe_policy_action_problem("refuse") == NULL);
}
