/*
 * test_desc.c — a whole marts/<name>.md read: the front matter (YAML, read by src/yaml's
 * libyaml) into terms with the file's line and column, the prose without floe's old questions,
 * and every refusal with what to do.
 */
#include "harness.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "gold/gold.h"

#include <string.h>

static const char mart[] = "---\n"
			   "mart: monthly_revenue\n"
			   "grain: [month, state]\n"
			   "dimensions:\n"
			   "  month: month of orders.order_purchase_timestamp\n"
			   "  state: customers.customer_state\n"
			   "measures:\n"
			   "  revenue: sum of order_items.price\n"
			   "filters:\n"
			   "  - orders.order_status is not 'canceled'\n"
			   "---\n"
			   "Revenue per month.\n"
			   "\n"
			   "## Questions\n"
			   "\n"
			   "1. old question\n"
			   "\n"
			   "## Notes\n"
			   "kept\n";

FLOE_TEST(gold_desc_reads_terms_and_drops_old_questions)
{
	floe_arena *a = floe_arena_new();
	floe_gold_desc *d = NULL;
	FLOE_CHECK(floe_gold_desc_parse(&d, a, "marts/m.md", mart, strlen(mart)) == 0);
	if (!d)
		goto cleanup;
	FLOE_CHECK_STR(d->mart, "monthly_revenue");
	FLOE_CHECK(d->n_grain == 2 && d->n_dimensions == 2 && d->n_measures == 1 && d->n_filters == 1);
	FLOE_CHECK_STR(d->dimensions[0].name, "month");
	FLOE_CHECK(d->dimensions[0].line == 5 && d->dimensions[0].col == 10);
	FLOE_CHECK_STR(d->filters[0].text, "orders.order_status is not 'canceled'");
	FLOE_CHECK_STR(d->prose, "Revenue per month.\n\n## Notes\nkept\n");
	floe_buf b = FLOE_BUF_INIT;
	floe_gold_question q = { .term = "measures.revenue", .line = 8, .text = "why?" };
	floe_gold_desc_with_questions(&b, d, &q, 1);
	FLOE_CHECK(strstr(b.ptr, "## Questions\n") && strstr(b.ptr, "1. `measures.revenue` (line 8): why?\n"));
	floe_gold_desc *again = NULL;
	FLOE_CHECK(floe_gold_desc_parse(&again, a, "marts/m.md", b.ptr, b.len) == 0);
	FLOE_CHECK(again && strcmp(again->prose, d->prose) == 0);
	floe_buf_free(&b);
cleanup:
	floe_arena_free(a);
}

static const char *desc_refusal(floe_arena *a, const char *text)
{
	floe_gold_desc *d = NULL;
	floe_error_clear();
	if (floe_gold_desc_parse(&d, a, "m.md", text, strlen(text)) == 0)
		return "";
	const floe_error *e = floe_error_last();
	return floe_arena_printf(a, "%s / %s", e->message, e->hint ? e->hint : "");
}

FLOE_TEST(gold_desc_refusals)
{
	floe_arena *a = floe_arena_new();
	FLOE_CHECK(strstr(desc_refusal(a, "mart: x\n"), "does not start with YAML front matter"));
	FLOE_CHECK(strstr(desc_refusal(a, "---\nmart: x\n"), "no closing"));
	FLOE_CHECK(strstr(desc_refusal(a, "---\nmart: x\nmeasure:\n  a: b\n---\n"), "Did you mean \"measures\"?"));
	FLOE_CHECK(strstr(desc_refusal(a, "---\nmart: Bad-Name\n---\n"), "names no mart"));
	FLOE_CHECK(strstr(desc_refusal(a, "---\nmart: x\nmeasures: [a]\n---\n"), "at 3:11 must be a mapping"));
	FLOE_CHECK(strstr(desc_refusal(a, "---\nmart: x\nfilters:\n  a: b\n---\n"), "must be a list"));
	FLOE_CHECK(strcmp(desc_refusal(a, "---\nmart: x\ngrain: month\n---\n"), "") == 0);
	floe_gold_desc *d = NULL;
	FLOE_CHECK(floe_gold_desc_parse(&d, a, "m.md", "---\nmart: x\0\n---\n", 16) < 0);
	FLOE_CHECK(strstr(floe_error_last()->message, "NUL byte at offset 11"));
	floe_arena_free(a);
}
