/*
 * test_yaml.c — the front matter's YAML subset: every construct it takes, every one it
 * refuses with line:col, and the description read from a whole marts/<name>.md.
 */
#include "harness.h"
#include "base/arena.h"
#include "base/error.h"
#include "gold/gold.h"
#include "gold/yaml.h"

#include <string.h>

static floe_yaml *parse(floe_arena *a, const char *text)
{
	floe_yaml *y = NULL;
	if (floe_yaml_parse(&y, a, "m.md", 1, text, strlen(text)) < 0)
		return NULL;
	return y;
}

/* The message of a refused text, "" when it parsed. */
static const char *refusal(floe_arena *a, const char *text)
{
	floe_error_clear();
	if (parse(a, text))
		return "";
	const floe_error *e = floe_error_last();
	FLOE_CHECK(e && e->cls == FLOE_ERR_CONFIG);
	return e ? floe_arena_strdup(a, e->message) : "";
}

FLOE_TEST(gold_yaml_block_mapping_and_sequences)
{
	floe_arena *a = floe_arena_new();
	floe_yaml *y = parse(a, "# a comment\n"
			     "mart: monthly_revenue   # trailing comment\n"
			     "grain: [month, 'state', \"x y\", [n]]\n"
			     "dimensions:\n"
			     "  month: month of orders.ts\n"
			     "\n"
			     "  state: customers.customer_state\n"
			     "filters:\n"
			     "- orders.order_status is not 'canceled'\n"
			     "-   'a: b'\n"
			     "nested:\n"
			     "  - k: v\n"
			     "    j: w\n"
			     "  -\n"
			     "    - deep\n"
			     "empty:\n");
	FLOE_CHECK(y && y->kind == FLOE_YAML_MAP && y->n == 6);
	if (!y)
		goto cleanup;
	FLOE_CHECK_STR(floe_yaml_get(y, "mart")->scalar, "monthly_revenue");
	const floe_yaml *g = floe_yaml_get(y, "grain");
	FLOE_CHECK(g->kind == FLOE_YAML_SEQ && g->n == 4);
	FLOE_CHECK_STR(g->items[1]->scalar, "state");
	FLOE_CHECK(g->items[1]->quoted && g->items[1]->line == 3 && g->items[1]->col == 16);
	FLOE_CHECK_STR(g->items[2]->scalar, "x y");
	FLOE_CHECK(g->items[3]->kind == FLOE_YAML_SEQ && g->items[3]->n == 1);
	const floe_yaml *d = floe_yaml_get(y, "dimensions");
	FLOE_CHECK(d->kind == FLOE_YAML_MAP && d->n == 2);
	FLOE_CHECK_STR(floe_yaml_get(d, "state")->scalar, "customers.customer_state");
	FLOE_CHECK(floe_yaml_get(d, "state")->line == 7);
	const floe_yaml *f = floe_yaml_get(y, "filters");
	FLOE_CHECK(f->kind == FLOE_YAML_SEQ && f->n == 2);
	FLOE_CHECK_STR(f->items[0]->scalar, "orders.order_status is not 'canceled'");
	FLOE_CHECK_STR(f->items[1]->scalar, "a: b");
	const floe_yaml *n = floe_yaml_get(y, "nested");
	FLOE_CHECK(n->kind == FLOE_YAML_SEQ && n->n == 2);
	FLOE_CHECK(n->items[0]->kind == FLOE_YAML_MAP && n->items[0]->n == 2);
	FLOE_CHECK_STR(floe_yaml_get(n->items[0], "j")->scalar, "w");
	FLOE_CHECK(n->items[1]->kind == FLOE_YAML_SEQ && n->items[1]->n == 1);
	FLOE_CHECK(floe_yaml_get(y, "empty")->empty);
cleanup:
	floe_arena_free(a);
}

FLOE_TEST(gold_yaml_quoted_scalars)
{
	floe_arena *a = floe_arena_new();
	floe_yaml *y = parse(a, "a: 'it''s'\nb: \"q\\\"\\n\\\\\"\n'c d': [ '', \"\" ]\n");
	FLOE_CHECK(y != NULL);
	if (y) {
		FLOE_CHECK_STR(floe_yaml_get(y, "a")->scalar, "it's");
		FLOE_CHECK_STR(floe_yaml_get(y, "b")->scalar, "q\"\n\\");
		FLOE_CHECK(floe_yaml_get(y, "c d")->n == 2);
	}
	floe_arena_free(a);
}

FLOE_TEST(gold_yaml_refusals_name_line_and_column)
{
	floe_arena *a = floe_arena_new();
	FLOE_CHECK(strstr(refusal(a, "a: 1\na: 2\n"), "duplicate key in \"m.md\" at 2:1"));
	FLOE_CHECK(strstr(refusal(a, "a:\n\t- b\n"), "tab in the indentation (YAML indents with spaces) in \"m.md\" at 2:1"));
	FLOE_CHECK(strstr(refusal(a, "a: {b: 1}\n"), "flow mapping is not supported (write a block mapping) in \"m.md\" at 1:4"));
	FLOE_CHECK(strstr(refusal(a, "a: |\n  text\n"), "block scalar"));
	FLOE_CHECK(strstr(refusal(a, "a: &x 1\n"), "anchors"));
	FLOE_CHECK(strstr(refusal(a, "a: !!str 1\n"), "tags"));
	FLOE_CHECK(strstr(refusal(a, "a: [b, c\n"), "does not close"));
	FLOE_CHECK(strstr(refusal(a, "a: [b,, c]\n"), "empty item"));
	FLOE_CHECK(strstr(refusal(a, "a: 'b\n"), "does not close"));
	FLOE_CHECK(strstr(refusal(a, "a: b: c\n"), "mapping value is not allowed here (quote the text) in \"m.md\" at 1:5"));
	FLOE_CHECK(strstr(refusal(a, "a: b\n  c: d\n"), "unexpected indentation"));
	FLOE_CHECK(strstr(refusal(a, "a:\n    b: 1\n  c: 2\n"), "at 3:3"));
	FLOE_CHECK(strstr(refusal(a, "a: 'x' y\n"), "unexpected text after a value"));
	FLOE_CHECK(strstr(refusal(a, "a: \"\\q\"\n"), "unsupported escape"));
	FLOE_CHECK(strstr(refusal(a, "  a: 1\n"), "column 1"));
	FLOE_CHECK(strstr(refusal(a, "a: 1\n- b\n"), "expected 'key: value'"));
	floe_arena_free(a);
}

FLOE_TEST(gold_yaml_depth_is_bounded)
{
	floe_arena *a = floe_arena_new();
	char text[400];
	memset(text, '[', 300);
	memcpy(text + 300, "\n", 2);
	FLOE_CHECK(strstr(refusal(a, text), "nesting too deep"));
	floe_arena_free(a);
}

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
	FLOE_CHECK(strstr(desc_refusal(a, "---\nmart: x\nmeasures:\n  ../../x: sum of t.c\n---\n"),
			  "\"../../x\" in \"m.md\" at 4:3 must be a name of lower-case letters"));
	FLOE_CHECK(strstr(desc_refusal(a, "---\nmart: x\ndimensions:\n  'a\"b': t.c\n---\n"), "must be a name"));
	FLOE_CHECK(strcmp(desc_refusal(a, "---\nmart: x\ngrain: month\n---\n"), "") == 0);
	floe_gold_desc *d = NULL;
	FLOE_CHECK(floe_gold_desc_parse(&d, a, "m.md", "---\nmart: x\0\n---\n", 16) < 0);
	FLOE_CHECK(strstr(floe_error_last()->message, "NUL byte at offset 11"));
	floe_arena_free(a);
}
