/*
 * test_sql.c — a mart's SQL run in DuckDB over hand-made silver rows: orders with
 * several items and several payments (fan-out), a canceled order filtered out, the
 * ratio at the grain, and the reconciliation test passing — and failing once the
 * model's filter is planted away.
 */
#include "harness.h"
#include "gold_testkit.h"
#include "engine/engine.h"
#include "silver/silver.h"

static const char mart[] = "---\n"
			   "mart: order_money\n"
			   "grain: [month]\n"
			   "dimensions:\n"
			   "  month: month of orders.order_purchase_timestamp\n"
			   "measures:\n"
			   "  revenue: sum of order_items.price\n"
			   "  paid: sum of payments.payment_value\n"
			   "  orders: number of orders\n"
			   "  per_order: revenue divided by orders\n"
			   "filters:\n"
			   "  - orders.order_status is not 'canceled'\n"
			   "---\n";

static const char rows[] =
	"CREATE TABLE orders AS SELECT * FROM (VALUES (1, 'delivered', TIMESTAMP '2018-01-05 10:00'),"
	" (2, 'canceled', TIMESTAMP '2018-01-06 10:00'), (3, 'delivered', TIMESTAMP '2018-02-01 00:00'))"
	" v(order_id, order_status, order_purchase_timestamp);"
	"CREATE TABLE order_items AS SELECT * FROM (VALUES (1, 1, 10.00), (1, 2, 20.00), (1, 3, 30.00),"
	" (2, 1, 100.00), (3, 1, 5.00)) v(order_id, order_item_id, price);"
	"CREATE TABLE payments AS SELECT * FROM (VALUES (1, 1, 25.00), (1, 2, 35.00), (2, 1, 100.00),"
	" (3, 1, 2.00), (3, 2, 3.00)) v(order_id, payment_sequential, payment_value);";

static const char *ref(void *ctx, const char *model)
{
	return floe_arena_printf(ctx, "\"%s\"", model);
}

/* `text` rendered as floe's runtime does (ref() to the tables above). */
static const char *render(floe_arena *a, const char *text)
{
	floe_buf out = FLOE_BUF_INIT;
	floe_silver_model_config cfg;
	floe_silver_render_opts o = { .file = "m.sql", .ref = ref, .ctx = a };
	if (floe_silver_render(&out, &cfg, a, text, strlen(text), &o) < 0)
		floe_error_print(stderr);
	const char *s = floe_arena_strdup(a, out.ptr ? out.ptr : "");
	floe_buf_free(&out);
	return s;
}

static const char *text_of(floe_engine *e, floe_arena *a, const char *sql)
{
	floe_buf b = FLOE_BUF_INIT;
	if (floe_engine_query_text(e, &b, sql) < 0)
		floe_error_print(stderr);
	const char *s = floe_arena_strdup(a, b.ptr ? b.ptr : "");
	floe_buf_free(&b);
	return s;
}

static size_t failing_rows(floe_engine *e, const char *sql)
{
	floe_engine_result *r = NULL;
	if (floe_engine_query(e, &r, sql) < 0) {
		floe_error_print(stderr);
		return 99;
	}
	size_t n = floe_engine_result_rows(r);
	floe_engine_result_free(r);
	return n;
}

FLOE_TEST(gold_sql_fan_out_ratio_and_reconciliation_in_duckdb)
{
	gold_kit k;
	floe_engine *e = NULL;
	gold_kit_init(&k);
	floe_gold_mart *m = gold_kit_resolve(&k, mart);
	floe_gold_proposal *p = NULL;
	FLOE_CHECK(m && floe_gold_propose(&p, k.arena, m) == 0);
	FLOE_CHECK(floe_engine_open(&e, NULL) == 0 && floe_engine_exec(e, rows) == 0);
	if (!p || !e)
		goto cleanup;
	const char *model = render(k.arena, p->model);
	FLOE_CHECK(floe_engine_exec(e, floe_arena_printf(k.arena, "CREATE TABLE order_money AS %s", model)) == 0);
	/* each fact aggregated alone: a row-level join of items and payments would give January 120 and 120 */
	FLOE_CHECK_STR(text_of(e, k.arena, "SELECT string_agg(concat_ws('|', month, revenue, paid, orders, per_order), ' ' "
					   "ORDER BY month) FROM order_money"),
		       "2018-01-01|60.00|60.00|1|60.0 2018-02-01|5.00|5.00|1|5.0");
	FLOE_CHECK_STR(text_of(e, k.arena, "SELECT sum(revenue) = (SELECT sum(price) FROM order_items WHERE order_id <> 2) "
					   "AND sum(paid) = (SELECT sum(payment_value) FROM payments WHERE order_id <> 2) "
					   "FROM order_money"), "true");
	FLOE_CHECK(p->n_tests == 3); /* revenue, paid, orders */
	for (size_t i = 0; i < p->n_tests; i++)
		FLOE_CHECK(failing_rows(e, render(k.arena, p->tests[i])) == 0);
	/* a planted filter mismatch: the model without its filter fails every reconciliation */
	char *unfiltered = floe_arena_strdup(k.arena, model);
	char *w;
	while ((w = strstr(unfiltered, "where (\"orders\".\"order_status\" is distinct from 'canceled')")))
		memcpy(w, "--", 2);
	FLOE_CHECK(floe_engine_exec(e, floe_arena_printf(k.arena, "CREATE OR REPLACE TABLE order_money AS %s",
							      unfiltered)) == 0);
	for (size_t i = 0; i < p->n_tests; i++)
		FLOE_CHECK(failing_rows(e, render(k.arena, p->tests[i])) == 1);
cleanup:
	floe_engine_close(e);
	gold_kit_free(&k);
}

static const char scorecard[] = "---\n"
				"mart: scorecard\n"
				"grain: [seller]\n"
				"dimensions:\n"
				"  seller: sellers.seller_id\n"
				"measures:\n"
				"  revenue: sum of order_items.price\n"
				"  orders: number of distinct order_items.order_id\n"
				"  score: average of reviews.review_score through order_items\n"
				"  late: rate of orders.order_delivered_customer_date > orders.order_estimated_delivery_date "
				"through order_items\n"
				"  share: share of revenue\n"
				"  revenue_half: tercile of revenue\n"
				"---\n";

/* Seller a sells in orders 1 and 2 (two items in 1), b in orders 2 and 3; orders 2 and 3 were late; reviews 5, 3, 1. */
static const char scorecard_rows[] =
	"CREATE TABLE sellers AS SELECT * FROM (VALUES ('a'), ('b'), ('c')) v(seller_id);"
	"CREATE TABLE orders AS SELECT * FROM (VALUES (1, DATE '2018-01-10', DATE '2018-01-09'),"
	" (2, DATE '2018-01-10', DATE '2018-01-20'), (3, DATE '2018-01-01', DATE '2018-01-02'))"
	" v(order_id, order_estimated_delivery_date, order_delivered_customer_date);"
	"CREATE TABLE order_items AS SELECT * FROM (VALUES (1, 1, 'a', 10.00), (1, 2, 'a', 10.00), (2, 1, 'a', 30.00),"
	" (2, 2, 'b', 40.00), (3, 1, 'b', 10.00)) v(order_id, order_item_id, seller_id, price);"
	"CREATE TABLE reviews AS SELECT * FROM (VALUES ('r1', 1, 5), ('r2', 2, 3), ('r3', 3, 1))"
	" v(review_id, order_id, review_score);";

FLOE_TEST(gold_sql_through_rate_share_and_tiles_in_duckdb)
{
	gold_kit k;
	floe_engine *e = NULL;
	gold_kit_init(&k);
	floe_gold_mart *m = gold_kit_resolve(&k, scorecard);
	floe_gold_proposal *p = NULL;
	FLOE_CHECK(m && floe_gold_question_count(m) == 0 && floe_gold_propose(&p, k.arena, m) == 0);
	FLOE_CHECK(floe_engine_open(&e, NULL) == 0 && floe_engine_exec(e, scorecard_rows) == 0);
	if (!p || !e)
		goto cleanup;
	FLOE_CHECK(floe_engine_exec(e, floe_arena_printf(k.arena, "CREATE TABLE scorecard AS %s",
							  render(k.arena, p->model))) == 0);
	/* a: orders 1, 2 (order 1 once though it has two items of a): score (5 + 3) / 2, late 1 of 2;
	   b: orders 2, 3: score (3 + 1) / 2, late 2 of 2; shares of 100.00; terciles by revenue, a tie
	   broken by the grain */
	FLOE_CHECK_STR(text_of(e, k.arena, "SELECT string_agg(concat_ws('|', seller, revenue, orders, score, late, share, "
					   "revenue_half), ' ' ORDER BY seller) FROM scorecard"),
		       "a|50.00|2|4.0|0.5|0.5|1 b|50.00|2|2.0|1.0|0.5|2");
	/* only revenue reconciles: the distinct count, the average and the rate are not additive */
	FLOE_CHECK(p->n_tests == 1 && strstr(p->test_paths[0], "reconcile_revenue"));
cleanup:
	floe_engine_close(e);
	gold_kit_free(&k);
}

FLOE_TEST(gold_sql_measure_filter_applies_after_aggregation)
{
	gold_kit k;
	floe_engine *e = NULL;
	gold_kit_init(&k);
	floe_gold_mart *m = gold_kit_resolve(&k, "---\nmart: big_orders\ngrain: [order]\ndimensions:\n"
						 "  order: orders.order_id\nmeasures:\n  revenue: sum of order_items.price\n"
						 "filters:\n  - revenue > 20\n---\n");
	floe_gold_proposal *p = NULL;
	FLOE_CHECK(m && floe_gold_propose(&p, k.arena, m) == 0);
	FLOE_CHECK(floe_engine_open(&e, NULL) == 0 && floe_engine_exec(e, rows) == 0);
	if (!p || !e)
		goto cleanup;
	FLOE_CHECK(strstr(p->model, ") as \"floe_mart\"\nwhere (\"revenue\" > 20)\n"));
	FLOE_CHECK(p->n_tests == 0); /* rows dropped after aggregation: totals no longer reconcile */
	FLOE_CHECK_STR(text_of(e, k.arena, floe_arena_printf(k.arena, "SELECT string_agg(concat_ws('|', \"order\", revenue), "
								       "' ' ORDER BY \"order\") FROM (%s)",
							      render(k.arena, p->model))),
		       "1|60.00 2|100.00"); /* order 3 (5.00) is left out */
cleanup:
	floe_engine_close(e);
	gold_kit_free(&k);
}
