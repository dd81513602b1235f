/*
 * silver.c — the lock's silver section of each loadable table (docs/silver.md): the
 * silver table and its model, columns with the source's comments and the PII treatment
 * a person chose ([silver.pii]), and the data tests — derived from what the source
 * declares (primary key, NOT NULL, foreign keys, enums, CHECKs) and read from the
 * project's quality/<name>.toml. A test over a masked column is left out (its values are
 * hashes or NULL in silver), except uniqueness and presence over an hmac column.
 */
#include "gen/gen_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "config/quality.h"

#include <string.h>

static const floe_lock_type STRING_TYPE = { .kind = FLOE_PLAN_PRIMITIVE, .primitive = "string" };

typedef struct builder {
	floe_gen_result *r;
	floe_arena *a;
	const floe_config *config;
	const floe_lock *lock;
	const floe_lock_table *t;
	floe_lock_silver *s;
	const char *stem;             /* the dbt model name */
	size_t cap_tests;
} builder;

static bool loadable(const floe_lock_table *t)
{
	return floe_load_mode_loadable(t->mode);
}

/* "orders" of "bronze/orders.sql": the model's name, safe as a file and dbt name. */
static const char *stem_of(floe_arena *a, const floe_lock_table *t)
{
	for (size_t i = 0; i < t->n_files; i++) {
		const char *p = t->files[i].path;
		if (strncmp(p, "bronze/", 7) == 0 && strlen(p) > 11)
			return floe_arena_strndup(a, p + 7, strlen(p) - 11);
	}
	return NULL;
}

static const char *pii_of(const builder *b, const char *column)
{
	const floe_string_map *m = &b->config->silver.pii;
	const char *key = floe_arena_printf(b->a, "%s.%s.%s", b->t->schema, b->t->name, column);
	for (size_t i = 0; i < m->count; i++)
		if (strcmp(m->keys[i], key) == 0)
			return m->values[i];
	return NULL;
}

static const floe_lock_silver_column *silver_column(const floe_lock_silver *s, const char *name)
{
	for (size_t i = 0; i < s->n_columns; i++)
		if (strcmp(s->columns[i].name, name) == 0)
			return &s->columns[i];
	return NULL;
}

/* A dbt-safe test name from `base`, unique within the table. */
static const char *test_name(builder *b, const char *base)
{
	floe_buf n = FLOE_BUF_INIT;
	for (const char *p = base; *p; p++) {
		char c = *p;
		bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
		floe_buf_putc(&n, ok ? c : (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : '_');
	}
	const char *first = floe_arena_strdup(b->a, floe_buf_cstr(&n)), *name = first;
	floe_buf_free(&n);
	for (int k = 2;; k++) {
		bool taken = false;
		for (size_t i = 0; i < b->s->n_tests && !taken; i++)
			taken = strcmp(b->s->tests[i].name, name) == 0;
		if (!taken)
			return name;
		name = floe_arena_printf(b->a, "%s_%d", first, k);
	}
}

/*
 * Whether a test of `kind` over `columns` can run on silver's values: none masked, or
 * only hmac ones under a test that hashing keeps true (uniqueness, presence, a relationship
 * to another hmac column). Otherwise a note says why it is left out.
 */
static bool testable(builder *b, const char *kind, const char *const *columns, size_t n, const char *origin)
{
	bool hash_safe = strcmp(kind, "unique") == 0 || strcmp(kind, "not_null") == 0 ||
			 strcmp(kind, "unique_combination") == 0 || strcmp(kind, "relationships") == 0;
	for (size_t i = 0; i < n; i++) {
		const floe_lock_silver_column *c = silver_column(b->s, columns[i]);
		if (c && c->pii && !(hash_safe && strcmp(c->pii, "hmac") == 0)) {
			floe_gen_note(b->r, "%s.%s: %s test from %s not run in silver: column %s is masked (pii = %s)",
				      b->t->schema, b->t->name, kind, origin, columns[i], c->pii);
			return false;
		}
	}
	return true;
}

static floe_lock_test *add_test(builder *b, const char *kind, const char *const *columns, size_t n,
				const char *origin, const char *severity, const char *name)
{
	if (!testable(b, kind, columns, n, origin))
		return NULL;
	b->s->tests = floe_arena_grow(b->a, b->s->tests, b->s->n_tests, &b->cap_tests, sizeof(*b->s->tests));
	floe_lock_test *t = &b->s->tests[b->s->n_tests];
	memset(t, 0, sizeof(*t));
	t->name = test_name(b, name ? name : floe_arena_printf(b->a, "%s_%s_%s", kind, b->stem, n ? columns[0] : "rows"));
	b->s->n_tests++;
	t->kind = kind;
	t->columns = floe_arena_alloc(b->a, sizeof(char *) * (n + 1));
	for (size_t i = 0; i < n; i++)
		t->columns[i] = columns[i];
	t->n_columns = n;
	t->origin = origin;
	t->severity = severity;
	return t;
}

/* "<prefix>_<constraint>", the constraint's name without a leading "<model>_" (it usually has one). */
static const char *constraint_test_name(builder *b, const char *prefix, const char *constraint)
{
	size_t n = strlen(b->stem);
	bool named = strncmp(constraint, b->stem, n) == 0 && constraint[n] == '_';
	return floe_arena_printf(b->a, "%s_%s%s%s", prefix, named ? "" : b->stem, named ? "" : "_", constraint);
}

static void key_and_not_null(builder *b)
{
	const floe_lock_table *t = b->t;
	if (t->n_key == 1) {
		add_test(b, "unique", t->key, 1, "primary key", "error", NULL);
		add_test(b, "not_null", t->key, 1, "primary key", "error", NULL);
	} else if (t->n_key > 1) {
		add_test(b, "unique_combination", t->key, t->n_key, "primary key", "error",
			 floe_arena_printf(b->a, "unique_combination_%s", b->stem));
	}
	for (size_t i = 0; i < t->n_columns; i++) {
		const char *name = t->columns[i].name;
		if (!t->columns[i].required || (t->n_key == 1 && strcmp(t->key[0], name) == 0))
			continue;
		add_test(b, "not_null", &t->columns[i].name, 1, "not null", "error", NULL);
	}
}

static void foreign_keys(builder *b, const floe_pg_relation *rel)
{
	for (size_t i = 0; i < rel->n_foreign_keys; i++) {
		const floe_pg_foreign_key *fk = &rel->foreign_keys[i];
		const floe_lock_table *to = floe_lock_find(b->lock, fk->ref_schema, fk->ref_table);
		if (!to || !loadable(to)) {
			floe_gen_note(b->r, "%s.%s: foreign key %s not tested in silver: %s.%s is not loaded", b->t->schema,
				      b->t->name, fk->name, fk->ref_schema, fk->ref_table);
			continue;
		}
		floe_lock_test *t = add_test(b, "relationships", fk->columns, fk->n_columns,
					     floe_arena_printf(b->a, "foreign key %s", fk->name), "error",
					     constraint_test_name(b, "relationships", fk->name));
		if (!t)
			continue;
		t->to = floe_arena_printf(b->a, "silver.%s", to->bronze + strlen("bronze."));
		t->fields = fk->ref_columns;
		t->n_fields = fk->n_columns;
	}
}

static void enums_and_checks(builder *b, const floe_plan_table *pt)
{
	const floe_pg_relation *rel = pt->source;
	for (size_t i = 0; i < rel->n_columns; i++) {
		const floe_pg_column *c = &rel->columns[i];
		if (!c->n_enum_labels || !silver_column(b->s, c->name))
			continue;
		const char *type = c->type->typtype == 'd' && c->type->base ? c->type->base->name : c->type->name;
		floe_lock_test *t = add_test(b, "accepted_values", &c->name, 1, floe_arena_printf(b->a, "enum %s", type),
					     "error", NULL);
		if (t) {
			t->values = c->enum_labels;
			t->n_values = c->n_enum_labels;
			t->quote = true;
		}
	}
	for (size_t i = 0; i < pt->n_checks; i++) {
		const floe_plan_check *k = &pt->checks[i];
		const char *origin = floe_arena_printf(b->a, "check %s", k->name);
		if (!k->kind) {
			floe_gen_note(b->r, "%s.%s: CHECK %s not tested in silver: %s", b->t->schema, b->t->name, k->name,
				      k->why_not);
			continue;
		}
		const char *name = constraint_test_name(b, "check", k->name);
		floe_lock_test *t = add_test(b, k->kind, k->columns, k->n_columns, origin, "error", name);
		if (t && strcmp(k->kind, "accepted_values") == 0) {
			t->values = k->values;
			t->n_values = k->n_values;
			t->quote = k->quote;
		} else if (t) {
			t->expression = k->expression;
		}
	}
}

static int rule_error(const floe_quality_rule *q, const char *what)
{
	floe_error_set(FLOE_ERR_CONFIG, "%s:%d:%d: %s", q->file, q->line, q->col, what);
	floe_error_hint("A rule names a table floe loads (see `floe plan`) and columns of it.");
	return -1;
}

static int quality_rule(builder *b, const floe_quality_rule *q)
{
	for (size_t i = 0; i < q->n_columns; i++)
		if (!silver_column(b->s, q->columns[i]))
			return rule_error(q, floe_arena_printf(b->a, "%s.%s has no column \"%s\"", q->schema, q->table,
							       q->columns[i]));
	const char *kind = strcmp(q->kind, "unique") == 0 && q->n_columns > 1 ? "unique_combination" : q->kind;
	const char *name = q->name ? q->name : floe_arena_printf(b->a, "%s_%s_%s", q->kind, b->stem,
								  q->n_columns ? q->columns[0] : "rows");
	floe_lock_test *t = add_test(b, kind, q->columns, q->n_columns, q->file, q->severity, name);
	if (!t)
		return 0;
	t->min = q->min;
	t->max = q->max;
	t->pattern = q->pattern;
	t->values = q->values;
	t->n_values = q->n_values;
	t->quote = q->quote;
	t->max_age_seconds = q->max_age_seconds;
	return 0;
}

static void columns(builder *b, const floe_pg_relation *rel)
{
	const floe_lock_table *t = b->t;
	b->s->n_columns = t->n_columns;
	b->s->columns = floe_arena_alloc(b->a, sizeof(*b->s->columns) * (t->n_columns + 1));
	for (size_t i = 0; i < t->n_columns; i++) {
		floe_lock_silver_column *c = &b->s->columns[i];
		c->name = t->columns[i].name;
		c->id = t->columns[i].id;
		c->pii = pii_of(b, c->name);
		c->type = c->pii && strcmp(c->pii, "hmac") == 0 ? &STRING_TYPE : t->columns[i].type;
		for (size_t j = 0; j < rel->n_columns; j++)
			if (strcmp(rel->columns[j].name, c->name) == 0)
				c->description = rel->columns[j].comment;
	}
}

static bool in_history(const floe_config *config, const floe_lock_table *t)
{
	for (size_t i = 0; i < config->silver.history.count; i++) {
		const char *h = config->silver.history.items[i];
		size_t sl = strlen(t->schema);
		if (strncmp(h, t->schema, sl) == 0 && h[sl] == '.' && strcmp(h + sl + 1, t->name) == 0)
			return true;
	}
	return false;
}

static int build_table(builder *b, const floe_plan_table *pt, const floe_quality_rule *rules, size_t n_rules)
{
	const floe_lock_table *t = b->t;
	floe_lock_silver *s = b->s;
	s->table = floe_arena_printf(b->a, "silver.%s", t->bronze + strlen("bronze."));
	s->model = floe_arena_printf(b->a, "dbt/models/silver/%s.sql", b->stem);
	/* incremental needs a key to replace rows by and a watermark silver still holds in clear */
	s->materialized = t->mode == FLOE_LOAD_INCREMENTAL && t->n_key > 0 && t->watermark &&
					  !pii_of(b, t->watermark) ? "incremental" : "table";
	s->unique_key = t->key;
	s->n_unique_key = t->n_key;
	s->description = pt->source->comment;
	s->history = in_history(b->config, t);
	columns(b, pt->source);
	key_and_not_null(b);
	foreign_keys(b, pt->source);
	enums_and_checks(b, pt);
	for (size_t i = 0; i < n_rules; i++)
		if (strcmp(rules[i].schema, t->schema) == 0 && strcmp(rules[i].table, t->name) == 0 &&
		    quality_rule(b, &rules[i]) < 0)
			return -1;
	return 0;
}

/* Every rule names a loadable table. */
static int rules_have_tables(floe_arena *a, const floe_lock *lock, const floe_quality_rule *rules, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const floe_lock_table *t = floe_lock_find(lock, rules[i].schema, rules[i].table);
		if (!t || !loadable(t))
			return rule_error(&rules[i], floe_arena_printf(a, "table %s.%s is %s",
								       rules[i].schema, rules[i].table,
								       t ? "not loaded by floe (see `floe plan`)"
									 : "not among the tables floe plans"));
	}
	return 0;
}

static bool has_jinja(const char *s)
{
	return strstr(s, "{{") || strstr(s, "{%") || strstr(s, "{#");
}

/* A name holding Jinja delimiters cannot appear in a model (dbt and floe render it): the column, or NULL. */
static const char *jinja_name(const floe_lock_table *t)
{
	if (has_jinja(t->bronze))
		return t->bronze;
	for (size_t i = 0; i < t->n_columns; i++)
		if (has_jinja(t->columns[i].name))
			return t->columns[i].name;
	return NULL;
}

int floe_gen_silver(floe_gen_result *r, floe_lock *next, const floe_plan *plan, const floe_config *config)
{
	floe_quality_rule *rules = NULL;
	size_t n_rules = 0;
	floe_arena *a = floe_gen_arena(r);
	if (floe_quality_load(&rules, &n_rules, a, config->project_dir) < 0 ||
	    rules_have_tables(a, next, rules, n_rules) < 0)
		return -1;
	for (size_t i = 0; i < floe_plan_count(plan); i++) {
		const floe_plan_table *pt = floe_plan_at(plan, i);
		const floe_lock_table *t = floe_lock_find(next, pt->schema, pt->name);
		const char *stem = t ? stem_of(a, t) : NULL;
		if (!t || !loadable(t) || !pt->source || !stem)
			continue;
		if (jinja_name(t)) {
			floe_gen_note(r, "%s.%s: no silver model: the name %s holds Jinja delimiters ({{, {%%, {#), which a "
					 "model cannot carry", t->schema, t->name, jinja_name(t));
			continue;
		}
		floe_lock_silver s;
		memset(&s, 0, sizeof(s));
		builder b = { r, a, config, next, t, &s, stem, 0 };
		if (build_table(&b, pt, rules, n_rules) < 0 ||
		    floe_lock_set_silver(next, t->schema, t->name, &s) < 0)
			return floe_error_context("while deriving the silver tests of %s.%s", t->schema, t->name);
	}
	return 0;
}
