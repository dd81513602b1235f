/*
 * test_yaml.c — YAML read into floe_yaml_node trees: dbt's shapes with line numbers, aliases
 * expanded, hostile documents refused with file:line:col.
 */
#include "harness.h"
#include "base/error.h"
#include "yaml/yaml.h"

static floe_yaml_doc *parse(const char *text)
{
	floe_yaml_doc *doc = NULL;
	if (floe_yaml_parse(&doc, "t.yml", text, strlen(text)) < 0)
		return NULL;
	return doc;
}

FLOE_TEST(yaml_reads_a_dbt_schema_with_lines)
{
	floe_yaml_doc *doc = parse("version: 2\nmodels:\n  - name: orders\n    description: \"Orders.\"\n"
				   "    columns:\n      - name: id\n        data_tests: [unique, not_null]\n");
	FLOE_CHECK(doc != NULL);
	const floe_yaml_node *models = floe_yaml_get(floe_yaml_root(doc), "models");
	FLOE_CHECK(floe_yaml_count(models) == 1);
	const floe_yaml_node *m = floe_yaml_at(models, 0);
	FLOE_CHECK_STR(floe_yaml_text(floe_yaml_get(m, "name")), "orders");
	FLOE_CHECK_STR(floe_yaml_text(floe_yaml_get(m, "description")), "Orders.");
	FLOE_CHECK(m->line == 3 && m->col == 5);
	const floe_yaml_node *col = floe_yaml_at(floe_yaml_get(m, "columns"), 0);
	FLOE_CHECK(col->line == 6);
	const floe_yaml_node *tests = floe_yaml_get(col, "data_tests");
	FLOE_CHECK(floe_yaml_count(tests) == 2);
	FLOE_CHECK_STR(floe_yaml_text(floe_yaml_at(tests, 1)), "not_null");
	FLOE_CHECK(floe_yaml_get(m, "absent") == NULL && floe_yaml_text(models) == NULL);
	FLOE_CHECK(floe_yaml_at(tests, 2) == NULL && floe_yaml_count(m) == 0);
	floe_yaml_free(doc);
}

FLOE_TEST(yaml_empty_document_has_no_root)
{
	floe_yaml_doc *doc = parse("");
	FLOE_CHECK(doc != NULL && floe_yaml_root(doc) == NULL);
	FLOE_CHECK(floe_yaml_get(floe_yaml_root(doc), "models") == NULL);
	floe_yaml_free(doc);
	floe_yaml_free(NULL);
}

FLOE_TEST(yaml_aliases_are_expanded)
{
	floe_yaml_doc *doc = parse("base: &b {severity: warn}\ntest: *b\n");
	FLOE_CHECK(doc != NULL);
	FLOE_CHECK_STR(floe_yaml_text(floe_yaml_get(floe_yaml_get(floe_yaml_root(doc), "test"), "severity")), "warn");
	floe_yaml_free(doc);
}

FLOE_TEST(yaml_errors_say_where)
{
	floe_yaml_doc *doc = NULL;
	const char *bad = "models:\n  - name: [unclosed\n";
	FLOE_CHECK(floe_yaml_parse(&doc, "schema.yml", bad, strlen(bad)) < 0 && doc == NULL);
	const floe_error *e = floe_error_last();
	FLOE_CHECK(e && e->cls == FLOE_ERR_CONFIG && strstr(e->message, "schema.yml:3:") != NULL);
	floe_error_clear();
}

FLOE_TEST(yaml_billion_laughs_is_refused)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_buf_puts(&b, "a: &a [x, x, x, x, x, x, x, x, x, x]\n");
	for (char c = 'b'; c <= 'j'; c++)
		floe_buf_printf(&b, "%c: &%c [*%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c]\n", c, c, c - 1, c - 1,
				c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1);
	floe_yaml_doc *doc = NULL;
	FLOE_CHECK(floe_yaml_parse(&doc, "laughs.yml", b.ptr, b.len) < 0 && doc == NULL);
	const floe_error *e = floe_error_last();
	FLOE_CHECK(e && strstr(e->message, "too many nodes") != NULL);
	floe_error_clear();
	floe_buf_free(&b);
}

FLOE_TEST(yaml_alias_inside_its_own_anchor_is_refused)
{
	floe_yaml_doc *doc = NULL;
	const char *loop = "a: &a [1, *a]\n";
	FLOE_CHECK(floe_yaml_parse(&doc, "loop.yml", loop, strlen(loop)) < 0 && doc == NULL);
	FLOE_CHECK(floe_error_last() && floe_error_last()->cls == FLOE_ERR_CONFIG);
	floe_error_clear();
}
