/*
 * test_resolve.c — mart terms against the shop's silver tables (tests/unit/gold/lock.json,
 * plus `shipments` with a billing and a shipping customer and `visits` without a key):
 * every question kind, and what a resolved mart's SQL says.
 */
#include "harness.h"
#include "gold_testkit.h"
#include "base/fs.h"

#include <string.h>

static const char monthly[] = "---\n"
			      "mart: monthly_revenue\n"
			      "grain: [month, state]\n"
			      "dimensions:\n"
			      "  month: month of orders.order_purchase_timestamp\n"
			      "  state: customers.customer_state\n"
			      "measures:\n"
			      "  revenue: sum of order_items.price\n"
			      "  orders: number of orders\n"
			      "  average_order_value: the revenue divided by the number of orders\n"
			      "filters:\n"
			      "  - orders.order_status is not 'canceled'\n"
			      "---\n"
			      "Revenue per month and customer state.\n";

FLOE_TEST(gold_resolve_monthly_revenue)
{
	gold_kit k;
	gold_kit_init(&k);
	floe_gold_mart *m = gold_kit_resolve(&k, monthly);
	FLOE_CHECK(m && floe_gold_question_count(m) == 0);
	floe_gold_proposal *p = NULL;
	FLOE_CHECK(m && floe_gold_propose(&p, k.arena, m) == 0);
	if (!p)
		goto cleanup;
	FLOE_CHECK_STR(p->model_path, "dbt/models/gold/monthly_revenue.sql");
	FLOE_CHECK(strstr(p->model, "{{ config(materialized='table', schema='gold') }}"));
	FLOE_CHECK(strstr(p->model, "cast(date_trunc('month', \"orders\".\"order_purchase_timestamp\") as date) as \"month\""));
	FLOE_CHECK(strstr(p->model, "sum(\"order_items\".\"price\") as \"revenue\""));
	FLOE_CHECK(strstr(p->model, "count(distinct \"orders\".\"order_id\") as \"orders\""));
	FLOE_CHECK(strstr(p->model, "left join {{ ref('orders') }} as \"orders\" on \"orders\".\"order_id\" = \"order_items\".\"order_id\""));
	FLOE_CHECK(strstr(p->model, "where (\"orders\".\"order_status\" is distinct from 'canceled')"));
	/* a ratio of the two aggregates at the grain */
	FLOE_CHECK(strstr(p->model, "cast(\"f_order_items\".\"revenue\" as double) / nullif(coalesce(\"f_orders\".\"orders\", 0), 0) as \"average_order_value\""));
	FLOE_CHECK(p->n_reconcile == 2 && p->n_tests == 2);
	FLOE_CHECK_STR(p->test_paths[0], "dbt/tests/gold/monthly_revenue__reconcile_revenue.sql");
	FLOE_CHECK(strstr(p->schema, "floe_unique_combination") && strstr(p->schema, "columns: [\"month\", \"state\"]"));
	FLOE_CHECK(strstr(p->schema, "floe_grain_not_null_monthly_revenue_state"));
	FLOE_CHECK(p->n_tables == 3);
	FLOE_CHECK_STR(p->tables[0], "silver.customers");
	FLOE_CHECK(p->n_reads == 8);
	FLOE_CHECK_STR(p->reads[0], "silver.customers.customer_id");
cleanup:
	gold_kit_free(&k);
}

/* The questions a description gets: kind, term and text. */
static void expect_question(const char *front, floe_gold_question_kind kind, const char *term, const char *text)
{
	gold_kit k;
	gold_kit_init(&k);
	const char *md = floe_arena_printf(k.arena, "---\nmart: q\n%s---\n", front);
	floe_gold_mart *m = gold_kit_resolve(&k, md);
	bool found = false;
	for (size_t i = 0; m && i < floe_gold_question_count(m); i++) {
		const floe_gold_question *q = floe_gold_question_at(m, i);
		if (q->kind == kind && strcmp(q->term, term) == 0 && strstr(q->text, text))
			found = true;
	}
	if (!found) {
		for (size_t i = 0; m && i < floe_gold_question_count(m); i++)
			fprintf(stderr, "    asked: %s %s: %s\n", floe_gold_question_kind_name(floe_gold_question_at(m, i)->kind),
				floe_gold_question_at(m, i)->term, floe_gold_question_at(m, i)->text);
		floe_test_fail(__FILE__, __LINE__, text);
	}
	floe_gold_proposal *p = NULL;
	FLOE_CHECK(m && floe_gold_propose(&p, k.arena, m) < 0 && p == NULL); /* no SQL while a question is open */
	gold_kit_free(&k);
}

FLOE_TEST(gold_question_misspelt_column)
{
	expect_question("grain: [status]\ndimensions:\n  status: orders.status\nmeasures:\n  n: number of orders\n",
			FLOE_GOLD_Q_UNKNOWN_COLUMN, "dimensions.status",
			"`orders.status`: no such column in silver.orders; did you mean `orders.order_status`?");
}

FLOE_TEST(gold_question_unknown_table)
{
	expect_question("measures:\n  revenue: sum of order_item.price\n", FLOE_GOLD_Q_UNKNOWN_TABLE,
			"measures.revenue", "silver has no table order_item; did you mean `order_items`?");
}

FLOE_TEST(gold_question_two_join_paths)
{
	const char *front = "grain: [state]\ndimensions:\n  state: customers.customer_state\n"
			    "measures:\n  weight: sum of shipments.weight\n";
	expect_question(front, FLOE_GOLD_Q_AMBIGUOUS_PATH, "dimensions.state",
			"shipments reaches customers by two paths: `shipments.billing_customer_id` → customers; or "
			"`shipments.shipping_customer_id` → customers; add `via <table.column>`");
	/* answered: via picks one */
	gold_kit k;
	gold_kit_init(&k);
	floe_gold_mart *m = gold_kit_resolve(&k, "---\nmart: q\ngrain: [state]\ndimensions:\n  state: customers.customer_state "
						 "via shipments.shipping_customer_id\nmeasures:\n  weight: sum of shipments.weight\n---\n");
	floe_gold_proposal *p = NULL;
	FLOE_CHECK(m && floe_gold_question_count(m) == 0 && floe_gold_propose(&p, k.arena, m) == 0);
	FLOE_CHECK(p && strstr(p->model, "\"customers\".\"customer_id\" = \"shipments\".\"shipping_customer_id\""));
	gold_kit_free(&k);
}

FLOE_TEST(gold_question_phrase_outside_the_grammar)
{
	expect_question("measures:\n  best: the best customers by loyalty\n", FLOE_GOLD_Q_UNSUPPORTED, "measures.best",
			"\"the best customers by loyalty\" is not a phrase floe can resolve (at `best`)");
	expect_question("filters:\n  - orders.order_status looks 'odd'\nmeasures:\n  n: number of orders\n",
			FLOE_GOLD_Q_UNSUPPORTED, "filters[1]", "(at `looks`)");
}

FLOE_TEST(gold_question_entity_without_key)
{
	expect_question("measures:\n  visits: number of visits\n", FLOE_GOLD_Q_NO_KEY, "measures.visits",
			"silver.visits has no key");
}

FLOE_TEST(gold_question_fan_out_has_no_path)
{
	expect_question("grain: [category]\ndimensions:\n  category: products.product_category_name\n"
			"measures:\n  orders: number of orders\n",
			FLOE_GOLD_Q_NO_PATH, "dimensions.category", "no chain of foreign keys leads from orders to products");
}

FLOE_TEST(gold_question_unknown_word_and_grain)
{
	expect_question("measures:\n  revenue: sum of order_items.price\n  aov: the revenu divided by the number of orders\n",
			FLOE_GOLD_Q_UNKNOWN_WORD, "measures.aov", "`revenu` in \"the revenu divided by the number of orders\" "
			"names no measure; did you mean `revenue`?");
	expect_question("grain: [month]\ndimensions:\n  mnth: month of orders.order_purchase_timestamp\n"
			"measures:\n  n: number of orders\n", FLOE_GOLD_Q_GRAIN, "grain", "did you mean `mnth`?");
	expect_question("grain: [month]\ndimensions:\n  month: month of orders.order_purchase_timestamp\n"
			"  state: customers.customer_state\nmeasures:\n  n: number of orders\n",
			FLOE_GOLD_Q_GRAIN, "dimensions.state", "not in the grain");
	expect_question("measures:\n  n: number of orders\nfilters:\n  - status = 'x'\n", FLOE_GOLD_Q_UNKNOWN_WORD,
			"filters[1]", "`status` in \"status = 'x'\" names no measure and is not a column");
	expect_question("measures:\n  n: number of orders\nfilters:\n  - n > 3 and orders.order_id > 1\n",
			FLOE_GOLD_Q_UNSUPPORTED, "filters[1]", "mixes columns");
}

FLOE_TEST(gold_questions_are_written_into_the_file)
{
	gold_kit k;
	gold_kit_init(&k);
	const char *md = "---\nmart: q\nmeasures:\n  revenue: sum of order_items.prise\n---\nProse.\n";
	floe_gold_mart *m = gold_kit_resolve(&k, md);
	floe_buf b = FLOE_BUF_INIT;
	FLOE_CHECK(m && floe_gold_question_count(m) == 1);
	if (m)
		floe_gold_desc_with_questions(&b, k.desc, floe_gold_question_at(m, 0), 1);
	FLOE_CHECK(b.ptr && strstr(b.ptr, "Prose.\n\n## Questions\n"));
	FLOE_CHECK(b.ptr && strstr(b.ptr, "1. `measures.revenue` (line 4): `order_items.prise`: no such column in "
				  "silver.order_items; did you mean `order_items.price`?\n"));
	floe_buf_free(&b);
	gold_kit_free(&k);
}

FLOE_TEST(gold_question_extensions)
{
	expect_question("measures:\n  revenue: sum of order_items.price\n  q: quintile of revenu\n", FLOE_GOLD_Q_UNKNOWN_WORD,
			"measures.q", "`revenu` in \"quintile of revenu\" names no measure; did you mean `revenue`?");
	expect_question("grain: [month]\ndimensions:\n  month: month of orders.order_purchase_timestamp\n"
			"measures:\n  n: number of orders\n  s: share of n within week\n", FLOE_GOLD_Q_UNKNOWN_WORD,
			"measures.s", "`within` names a dimension of the grain, and `week` is none.");
	expect_question("measures:\n  s: average of reviews.review_score through order_itemz\n", FLOE_GOLD_Q_UNKNOWN_TABLE,
			"measures.s", "silver has no table order_itemz; did you mean `order_items`?");
	expect_question("measures:\n  n: number of orders\n  r: rate of n > 3\n", FLOE_GOLD_Q_UNSUPPORTED, "measures.r",
			"`rate of` a condition on columns");
	expect_question("grain: [seller]\ndimensions:\n  seller: sellers.seller_id\n"
			"measures:\n  s: average of reviews.review_score\n", FLOE_GOLD_Q_NO_PATH, "dimensions.seller",
			"count through one (`… through <table>`)");
}

/* Every example mart the shop ships (examples/shop/marts) resolves with no question. */
FLOE_TEST(gold_shop_examples_resolve)
{
	static const char *const names[] = { "monthly_revenue", "customer_segments", "payment_mix", "seller_scorecard" };
	for (size_t i = 0; i < 4; i++) {
		gold_kit k;
		floe_buf text = FLOE_BUF_INIT;
		gold_kit_init(&k);
		const char *path = floe_arena_printf(k.arena, "examples/shop/marts/%s.md", names[i]);
		FLOE_CHECK(floe_fs_read_file(&text, path) == 0);
		floe_gold_mart *m = text.ptr ? gold_kit_resolve(&k, text.ptr) : NULL;
		floe_gold_proposal *p = NULL;
		FLOE_CHECK(m && floe_gold_question_count(m) == 0 && floe_gold_propose(&p, k.arena, m) == 0);
		FLOE_CHECK(p && strcmp(p->name, names[i]) == 0);
		floe_buf_free(&text);
		gold_kit_free(&k);
	}
}
