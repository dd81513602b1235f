/*
 * test_render.c — the Jinja subset floe renders in silver models.
 */
#include "harness.h"
#include "base/arena.h"
#include "base/error.h"
#include "silver/silver.h"

#include <stdlib.h>
#include <string.h>

static const char *source_of(void *ctx, const char *s, const char *t)
{
	(void)ctx;
	if (strcmp(s, "bronze") != 0 || strcmp(t, "orders") != 0)
		return NULL;
	return "\"bronze_in\".\"orders\"";
}

static const char *ref_of(void *ctx, const char *m)
{
	(void)ctx;
	return strcmp(m, "customers") == 0 ? "\"silver\".\"customers\"" : NULL;
}

/* Render `text`; the output (malloc'd) or NULL on error, the config into *cfg. */
static char *render(const char *text, bool incremental, floe_silver_model_config *cfg, floe_arena *a)
{
	floe_silver_render_opts o = { .file = "dbt/models/silver/orders.sql", .incremental = incremental,
				      .this_relation = "\"silver\".\"orders\"", .source = source_of, .ref = ref_of };
	floe_buf out = FLOE_BUF_INIT;
	floe_error_clear();
	if (floe_silver_render(&out, cfg, a, text, strlen(text), &o) < 0) {
		floe_buf_free(&out);
		return NULL;
	}
	return floe_buf_detach(&out, NULL);
}

static void check_render(const char *text, bool incremental, const char *want)
{
	floe_arena *a = floe_arena_new();
	floe_silver_model_config cfg;
	char *got = render(text, incremental, &cfg, a);
	FLOE_CHECK_STR(got, want);
	free(got);
	floe_arena_free(a);
}

/* The error's message for `text`, which must fail (exit 2). */
static void check_error(const char *text, const char *want_in_message)
{
	floe_arena *a = floe_arena_new();
	floe_silver_model_config cfg;
	char *got = render(text, false, &cfg, a);
	FLOE_CHECK(got == NULL);
	const floe_error *e = floe_error_last();
	FLOE_CHECK(e && e->cls == FLOE_ERR_CONFIG);
	if (e && !strstr(e->message, want_in_message))
		FLOE_CHECK_STR(e->message, want_in_message);
	free(got);
	floe_error_clear();
	floe_arena_free(a);
}

FLOE_TEST(silver_render_generated_model)
{
	const char *model = "{{ config(materialized='incremental', unique_key=['order_id'], on_schema_change='fail') }}\n"
			    "select \"order_id\" from {{ source('bronze', 'orders') }}\n"
			    "{% if is_incremental() %}\nwhere x > (select max(x) from {{ this }})\n{% endif %}\n";
	check_render(model, false, "\nselect \"order_id\" from \"bronze_in\".\"orders\"\n\n");
	check_render(model, true, "\nselect \"order_id\" from \"bronze_in\".\"orders\"\n\n"
				  "where x > (select max(x) from \"silver\".\"orders\")\n\n");
}

FLOE_TEST(silver_render_config_typed)
{
	floe_arena *a = floe_arena_new();
	floe_silver_model_config cfg;
	char *got = render("{{ config(materialized=\"table\", unique_key='id', full_refresh=False, tags=['a', 'b',],"
			   " enabled=True) }}{{ config(materialized='incremental') }}",
			   false, &cfg, a);
	FLOE_CHECK_STR(got, "");
	FLOE_CHECK_STR(cfg.materialized, "incremental");
	FLOE_CHECK(cfg.n_unique_key == 1);
	FLOE_CHECK_STR(cfg.unique_key[0], "id");
	FLOE_CHECK(cfg.n_items == 5);
	FLOE_CHECK(cfg.items[2].kind == FLOE_SILVER_BOOL && !cfg.items[2].flag);
	FLOE_CHECK(cfg.items[3].kind == FLOE_SILVER_LIST && cfg.items[3].n_list == 2);
	FLOE_CHECK_STR(cfg.items[3].list[1], "b");
	FLOE_CHECK(cfg.items[4].flag);
	free(got);
	floe_arena_free(a);
}

FLOE_TEST(silver_render_else_comments_whitespace)
{
	check_render("a {# note {{ not rendered }} #} b", false, "a  b");
	check_render("{% if is_incremental() %}inc{% else %}full{% endif %}", false, "full");
	check_render("{% if is_incremental() %}inc{% else %}full{% endif %}", true, "inc");
	check_render("select 1   \n  {%- if is_incremental() -%}  \n x {%- endif %}\n", false, "select 1\n");
	check_render("a  {{- ref('customers') -}}  b", false, "a\"silver\".\"customers\"b");
	check_render("{% if is_incremental() %}{% if is_incremental() %}x{% else %}y{% endif %}{% endif %}z", true, "xz");
	check_render("select '{' || '}' as braces, '{x}'", false, "select '{' || '}' as braces, '{x}'");
	check_render("{{ source('bronze', 'orders') }}", false, "\"bronze_in\".\"orders\"");
}

FLOE_TEST(silver_render_refuses_other_jinja)
{
	check_error("select 1\nfrom t where x = {{ var('day') }}", "unsupported Jinja construct \"{{ var('day') }}\" "
								    "in dbt/models/silver/orders.sql at 2:18");
	check_error("{% for c in cols %}{{ c }}{% endfor %}", "\"{% for c in cols %}\" in dbt/models/silver/orders.sql at 1:1");
	check_error("{% if target.name == 'dev' %}x{% endif %}", "unsupported Jinja construct");
	check_error("{% macro m() %}{% endmacro %}", "unsupported Jinja construct");
	check_error("{{ config(materialized=var('m')) }}", "unsupported Jinja construct");
	check_error("{{ config('table') }}", "unsupported Jinja construct");
	check_error("{{ ref('pkg', 'customers') }}", "unsupported Jinja construct");
	check_error("{{ source('bronze', 'orders') | upper }}", "unsupported Jinja construct");
	check_error("{{ this.schema }}", "unsupported Jinja construct");
	check_error("{% endif %}", "unsupported Jinja construct");
	check_error("{% if is_incremental() %}x{% else %}y{% else %}z{% endif %}", "at 1:38");
	check_error("{{ source('bronze', 'customers') }}", "unknown relation");
	check_error("{{ ref('nope') }}", "unknown relation");
	check_error("select 1 {{ this", "unclosed Jinja tag \"{{\" in dbt/models/silver/orders.sql at 1:10");
	check_error("x\n{% if is_incremental() %}y", "unclosed Jinja if \"{%\" in dbt/models/silver/orders.sql at 2:1");
	check_error("{{ source('bron\\ze', 'orders') }}", "unsupported Jinja construct");
}
