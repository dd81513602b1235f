/*
 * dbt_tests.c — models/silver/schema.yml: each silver model with its description, its
 * columns' descriptions and its data tests in current dbt syntax (`data_tests:`, inputs
 * under `arguments:`, severity under `config:`, each named as the lock names it). One-column
 * tests sit under their column; tests over several columns or the whole row under the model.
 * Kinds dbt lacks use the generic tests of macros/floe_tests.sql.
 */
#include "gen/dbt_int.h"
#include "base/arena.h"
#include "plan/plan.h"

#include <string.h>

/* Whether a column name needs quoting in SQL (anything but a plain lower-case identifier). */
static bool needs_quote(const char *name)
{
	if (!(name[0] >= 'a' && name[0] <= 'z') && name[0] != '_')
		return true;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return true;
	return false;
}

/*
 * A column as dbt puts it into test SQL: dbt quotes a name naively ("a"b" stays broken), so a
 * name that needs quoting is given already quoted (a double quote doubled) and left unquoted.
 */
static const char *sql_name(floe_arena *a, const char *name)
{
	if (!needs_quote(name))
		return name;
	floe_buf b = FLOE_BUF_INIT;
	floe_plan_put_quoted(&b, name, '"');
	const char *s = floe_arena_strdup(a, floe_buf_cstr(&b));
	floe_buf_free(&b);
	return s;
}

typedef struct yml {
	floe_buf *b;
	floe_arena *a;
	const floe_lock *lock;
} yml;

static void strings(yml *y, const char *const *v, size_t n)
{
	floe_buf_putc(y->b, '[');
	for (size_t i = 0; i < n; i++) {
		floe_buf_puts(y->b, i ? ", " : "");
		floe_dbt_yaml_string(y->b, y->a, v[i]);
	}
	floe_buf_putc(y->b, ']');
}

/* accepted_values: strings quoted, numbers as YAML numbers. */
static void values(yml *y, const floe_lock_test *t)
{
	if (t->quote) {
		strings(y, t->values, t->n_values);
		return;
	}
	floe_buf_putc(y->b, '[');
	for (size_t i = 0; i < t->n_values; i++)
		floe_buf_printf(y->b, "%s%s", i ? ", " : "", t->values[i]);
	floe_buf_putc(y->b, ']');
}

static const char *ref_of(yml *y, const char *table)
{
	const floe_lock_silver *s = floe_dbt_silver_named(y->lock, table);
	return floe_arena_printf(y->a, "ref('%s')", s ? floe_dbt_model_name(y->a, s) : table);
}

/* Tests that take dbt's column_name go under their column. */
static bool column_level(const floe_lock_test *t)
{
	return t->n_columns == 1 && strcmp(t->kind, "unique_combination") != 0 && strcmp(t->kind, "row_rule") != 0 &&
	       strcmp(t->kind, "row_count") != 0;
}

/* dbt's name for the test of `kind`. */
static const char *macro_of(const floe_lock_test *t)
{
	static const char *const map[] = { "unique", "unique", "not_null", "not_null", "accepted_values",
					   "accepted_values", "unique_combination", "floe_unique_combination",
					   "row_rule", "floe_row_rule", "range", "floe_range", "regex", "floe_regex",
					   "row_count", "floe_row_count", "freshness", "floe_freshness", NULL };
	if (strcmp(t->kind, "relationships") == 0)
		return t->n_columns == 1 ? "relationships" : "floe_relationships";
	for (size_t i = 0; map[i]; i += 2)
		if (strcmp(t->kind, map[i]) == 0)
			return map[i + 1];
	return t->kind;
}

static void arguments(yml *y, const floe_lock_test *t, const char *in)
{
	floe_buf *b = y->b;
	const char *k = t->kind;
	if (strcmp(k, "unique") == 0 || strcmp(k, "not_null") == 0)
		return;
	floe_buf_printf(b, "%sarguments:\n", in);
	if (strcmp(k, "accepted_values") == 0) {
		floe_buf_printf(b, "%s  values: ", in);
		values(y, t);
		floe_buf_printf(b, "\n%s  quote: %s\n", in, t->quote ? "true" : "false");
	} else if (strcmp(k, "relationships") == 0 && t->n_columns == 1) {
		floe_buf_printf(b, "%s  to: \"%s\"\n%s  field: ", in, ref_of(y, t->to), in);
		floe_dbt_yaml_string(b, y->a, sql_name(y->a, t->fields[0]));
		floe_buf_putc(b, '\n');
	} else if (strcmp(k, "relationships") == 0) {
		floe_buf_printf(b, "%s  columns: ", in);
		strings(y, t->columns, t->n_columns);
		floe_buf_printf(b, "\n%s  to: \"%s\"\n%s  fields: ", in, ref_of(y, t->to), in);
		strings(y, t->fields, t->n_fields);
		floe_buf_putc(b, '\n');
	} else if (strcmp(k, "unique_combination") == 0) {
		floe_buf_printf(b, "%s  columns: ", in);
		strings(y, t->columns, t->n_columns);
		floe_buf_putc(b, '\n');
	} else if (strcmp(k, "row_rule") == 0) {
		floe_buf_printf(b, "%s  expression: ", in);
		floe_dbt_yaml_string(b, y->a, t->expression);
		floe_buf_putc(b, '\n');
	} else if (strcmp(k, "regex") == 0) {
		floe_buf_printf(b, "%s  pattern: ", in);
		floe_dbt_yaml_string(b, y->a, t->pattern);
		floe_buf_putc(b, '\n');
	} else if (strcmp(k, "freshness") == 0) {
		floe_buf_printf(b, "%s  max_age_seconds: %lld\n", in, (long long)t->max_age_seconds);
	} else { /* range, row_count */
		const char *lo = strcmp(k, "range") == 0 ? "min_value" : "min_rows";
		const char *hi = strcmp(k, "range") == 0 ? "max_value" : "max_rows";
		if (t->min)
			floe_buf_printf(b, "%s  %s: %s\n", in, lo, t->min);
		if (t->max)
			floe_buf_printf(b, "%s  %s: %s\n", in, hi, t->max);
	}
}

static void test_entry(yml *y, const floe_lock_test *t, const char *in)
{
	floe_buf_printf(y->b, "%s- %s:\n%s    name: ", in, macro_of(t), in);
	floe_dbt_yaml_string(y->b, y->a, t->name);
	floe_buf_putc(y->b, '\n');
	arguments(y, t, floe_arena_printf(y->a, "%s    ", in));
	floe_buf_printf(y->b, "%s    config:\n%s      severity: %s\n%s      meta: {floe_origin: ", in, in, t->severity,
			in);
	floe_dbt_yaml_string(y->b, y->a, t->origin);
	floe_buf_puts(y->b, "}\n");
}

static void model(yml *y, const floe_lock_silver *s)
{
	floe_buf *b = y->b;
	floe_buf_printf(b, "  - name: %s\n    description: ", floe_dbt_model_name(y->a, s));
	floe_dbt_yaml_string(b, y->a, s->description);
	floe_buf_puts(b, "\n    columns:\n");
	for (size_t i = 0; i < s->n_columns; i++) {
		const char *name = s->columns[i].name;
		floe_buf_puts(b, "      - name: ");
		floe_dbt_yaml_string(b, y->a, sql_name(y->a, name));
		floe_buf_puts(b, "\n        description: ");
		floe_dbt_yaml_string(b, y->a, s->columns[i].description);
		floe_buf_puts(b, "\n");
		bool any = false;
		for (size_t j = 0; j < s->n_tests; j++) {
			const floe_lock_test *t = &s->tests[j];
			if (!column_level(t) || strcmp(t->columns[0], name) != 0)
				continue;
			if (!any)
				floe_buf_puts(b, "        data_tests:\n");
			any = true;
			test_entry(y, t, "          ");
		}
	}
	bool any = false;
	for (size_t j = 0; j < s->n_tests; j++) {
		if (column_level(&s->tests[j]))
			continue;
		if (!any)
			floe_buf_puts(b, "    data_tests:\n");
		any = true;
		test_entry(y, &s->tests[j], "      ");
	}
}

const char *floe_dbt_schema_yml(floe_arena *a, const floe_lock *lock)
{
	floe_buf b = FLOE_BUF_INIT;
	yml y = { &b, a, lock };
	floe_buf_puts(&b, "# Generated by `floe generate`; a hand edit is kept and reported as drift (docs/silver.md).\n"
			  "# Tests: derived from the source's constraints and quality/<name>.toml (lakehouse.lock.json).\n"
			  "version: 2\nmodels:");
	size_t n = 0;
	for (size_t i = 0; i < floe_lock_count(lock); i++)
		if (floe_lock_at(lock, i)->silver) {
			floe_buf_puts(&b, n++ ? "" : "\n");
			model(&y, floe_lock_at(lock, i)->silver);
		}
	if (n == 0)
		floe_buf_puts(&b, " []\n");
	const char *s = floe_arena_strdup(a, floe_buf_cstr(&b));
	floe_buf_free(&b);
	return s;
}
