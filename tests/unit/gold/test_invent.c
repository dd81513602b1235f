/*
 * test_invent.c — the anti-invention check of a model's draft (invent.c): a faithful draft is
 * accepted; one that adds a condition, a table, a column or a constant the description never
 * states is rejected with the reason, as is one DuckDB cannot plan. No model is involved: the
 * drafts are given.
 */
#include "harness.h"
#include "gold_testkit.h"
#include "gold/gold_int.h"

static const char md[] = "---\n"
			 "mart: spread\n"
			 "measures:\n"
			 "  spread: the gap between the highest and the lowest order_items.price\n"
			 "---\n";

/* The reason a draft is rejected, "" when accepted. */
static const char *verdict(gold_kit *k, floe_gold_mart *m, const char *draft)
{
	const char *reason = NULL;
	gold_uses tables = { 0 };
	if (gold_invention_check(&reason, &tables, m, m->measures[0].term->text, draft) < 0)
		return "engine error";
	if (!reason && (tables.n != 1 || strcmp(m->tables[tables.tables[0]].name, "order_items") != 0))
		return "wrong tables";
	return reason ? floe_arena_strdup(k->arena, reason) : "";
}

FLOE_TEST(gold_invention_check_accepts_only_what_the_description_states)
{
	gold_kit k;
	gold_kit_init(&k);
	floe_gold_mart *m = gold_kit_resolve(&k, md);
	FLOE_CHECK(m && floe_gold_question_count(m) == 1); /* the rules cannot read the phrase */
	if (!m)
		goto cleanup;
	FLOE_CHECK_STR(verdict(&k, m, "max(order_items.price) - min(order_items.price)"), "");
	FLOE_CHECK(strstr(verdict(&k, m, "max(order_items.price) - min(order_items.price) filter (where order_items.price > 0)"),
			  "adds a condition the term does not state"));
	FLOE_CHECK(strstr(verdict(&k, m, "max(order_items.price) - (select min(price) from order_items)"),
			  "reads a table or subquery of its own"));
	FLOE_CHECK(strstr(verdict(&k, m, "max(order_items.price) - min(products.product_weight_g)"),
			  "reads `products.product_weight_g`, which the description never mentions"));
	FLOE_CHECK(strstr(verdict(&k, m, "max(order_items.price) - min(order_items.price) + 42"),
			  "adds the constant `42`"));
	FLOE_CHECK(strstr(verdict(&k, m, "max(order_items.price) - min(order_items.price) + 'x'"), "constant `x`"));
	FLOE_CHECK(strstr(verdict(&k, m, "max(order_items.nope)"), "`order_items.nope`, which is no silver"));
	FLOE_CHECK(strstr(verdict(&k, m, "pg_sleep(order_items.price)"), "calls `pg_sleep`"));
	FLOE_CHECK(strstr(verdict(&k, m, "max(order_items.price); drop table x"), "not one SQL expression"));
	FLOE_CHECK(strstr(verdict(&k, m, "max(order_items.price) - order_items.price"), "DuckDB cannot plan it"));
cleanup:
	gold_kit_free(&k);
}
