/*
 * resolve.c — a description's terms against the silver tables of the lock: the
 * tables and their many-to-one foreign keys, each term read by phrase.c, the grain
 * checked, each fact's joins found by join.c. Whatever does not resolve becomes a
 * numbered question; a mart with questions gets no SQL.
 */
#include "gold/gold_int.h"
#include "base/error.h"
#include "base/text.h"

#include <stdarg.h>
#include <string.h>

static const char *const question_kinds[] = {
	"unknown_table", "unknown_column", "unsupported", "unknown_word", "no_key", "ambiguous_path", "no_path",
	"grain",
};
_Static_assert(sizeof(question_kinds) / sizeof(question_kinds[0]) == FLOE_GOLD_Q_COUNT, "a name per kind");

const char *floe_gold_question_kind_name(floe_gold_question_kind kind)
{
	return question_kinds[kind];
}

void gold_ident(floe_buf *b, const char *name)
{
	floe_buf_put_quoted(b, name, '"');
}

void gold_ask(floe_gold_mart *m, floe_gold_question_kind kind, const char *term, int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *text = floe_arena_vprintf(m->a, fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < m->n_questions; i++)
		if (strcmp(m->questions[i].text, text) == 0)
			return; /* asked already (the same join for two terms) */
	*FLOE_ARENA_PUSH(m->a, m->questions, m->n_questions, m->cap_questions) =
		(floe_gold_question){ .kind = kind, .term = term, .line = line, .text = text };
}

void gold_uses_add(floe_gold_mart *m, gold_uses *u, size_t table)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->n; i++)
		if (u->tables[i] == table)
			return;
	*FLOE_ARENA_PUSH(m->a, u->tables, u->n, u->cap) = table;
}

const gold_table *gold_table_named(const floe_gold_mart *m, const char *name, size_t *index)
{
	for (size_t i = 0; i < m->n_tables; i++)
		if (strcmp(m->tables[i].name, name) == 0) {
			if (index)
				*index = i;
			return &m->tables[i];
		}
	return NULL;
}

int gold_measure_named(const floe_gold_mart *m, const char *name)
{
	for (size_t i = 0; i < m->n_measures; i++)
		if (!m->measures[i].hidden && strcmp(m->measures[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* "dbt/models/silver/orders.sql" → "orders" */
static const char *model_name(floe_arena *a, const char *path)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	size_t n = strlen(base);
	if (n > 4 && strcmp(base + n - 4, ".sql") == 0)
		n -= 4;
	return floe_arena_strndup(a, base, n);
}

static bool key_is(const floe_lock_silver *s, const char *const *fields, size_t n)
{
	if (n == 0 || n != s->n_unique_key)
		return false;
	for (size_t i = 0; i < n; i++) {
		bool found = false;
		for (size_t j = 0; j < s->n_unique_key; j++)
			found = found || strcmp(fields[i], s->unique_key[j]) == 0;
		if (!found)
			return false;
	}
	return true;
}

/* Silver tables, and each foreign key to another table's whole key (many-to-one). */
static void load_silver(floe_gold_mart *m, const floe_lock *lock)
{
	for (size_t i = 0; i < floe_lock_count(lock); i++) {
		const floe_lock_silver *s = floe_lock_at(lock, i)->silver;
		if (!s)
			continue;
		const char *dot = strchr(s->table, '.');
		*FLOE_ARENA_PUSH(m->a, m->tables, m->n_tables, m->cap_tables) =
			(gold_table){ .name = dot ? dot + 1 : s->table, .model = model_name(m->a, s->model), .s = s };
	}
	for (size_t i = 0; i < m->n_tables; i++) {
		const floe_lock_silver *s = m->tables[i].s;
		for (size_t k = 0; k < s->n_tests; k++) {
			const floe_lock_test *t = &s->tests[k];
			size_t to = 0;
			const char *dot = t->to ? strchr(t->to, '.') : NULL;
			if (strcmp(t->kind, "relationships") != 0 || !dot || !gold_table_named(m, dot + 1, &to) ||
			    to == i || t->n_fields != t->n_columns || !key_is(m->tables[to].s, t->fields, t->n_fields))
				continue;
			*FLOE_ARENA_PUSH(m->a, m->edges, m->n_edges, m->cap_edges) =
				(gold_edge){ .from = i, .to = to, .columns = t->columns, .fields = t->fields, .n = t->n_columns };
		}
	}
}

bool gold_in_grain(const floe_gold_desc *d, const char *name)
{
	for (size_t i = 0; i < d->n_grain; i++)
		if (strcmp(d->grain[i].text, name) == 0)
			return true;
	return false;
}

/* Dimensions in the grain's order; a grain name no dimension has, or a dimension outside the grain, asks. */
static void read_dimensions(floe_gold_mart *m, const floe_gold_desc *d)
{
	const char **names = floe_arena_alloc(m->a, (d->n_dimensions + 1) * sizeof(*names));
	for (size_t i = 0; i < d->n_dimensions; i++)
		names[i] = d->dimensions[i].name;
	for (size_t g = 0; g < d->n_grain; g++) {
		const floe_gold_term *found = NULL;
		for (size_t i = 0; i < d->n_dimensions && !found; i++)
			if (strcmp(d->dimensions[i].name, d->grain[g].text) == 0)
				found = &d->dimensions[i];
		if (!found) {
			const char *s = floe_text_suggest(d->grain[g].text, names);
			gold_ask(m, FLOE_GOLD_Q_GRAIN, "grain", d->grain[g].line,
				 "the grain names `%s`, which is no dimension%s%s", d->grain[g].text,
				 s ? "; did you mean " : "; add it under `dimensions:` with the column it groups by.",
				 s ? floe_arena_printf(m->a, "`%s`?", s) : "");
			continue;
		}
		gold_dim *dim = FLOE_ARENA_PUSH(m->a, m->dims, m->n_dims, m->cap_dims);
		*dim = (gold_dim){ .name = found->name, .term = found };
		gold_phrase_dimension(m, dim);
	}
	for (size_t i = 0; i < d->n_dimensions; i++)
		if (!gold_in_grain(d, d->dimensions[i].name))
			gold_ask(m, FLOE_GOLD_Q_GRAIN, floe_arena_printf(m->a, "dimensions.%s", d->dimensions[i].name),
				 d->dimensions[i].line,
				 "the dimension `%s` is not in the grain; add it to `grain:` (one row per value) or remove "
				 "it.", d->dimensions[i].name);
}

static void read_measures(floe_gold_mart *m, const floe_gold_desc *d)
{
	for (size_t i = 0; i < d->n_measures; i++)
		*FLOE_ARENA_PUSH(m->a, m->measures, m->n_measures, m->cap_measures) =
			(gold_measure){ .name = d->measures[i].name, .term = &d->measures[i],
					.label = floe_arena_printf(m->a, "measures.%s", d->measures[i].name) };
	if (d->n_measures == 0)
		gold_ask(m, FLOE_GOLD_Q_UNSUPPORTED, "measures", d->mart_line,
			 "the mart has no measures; add at least one under `measures:` (e.g. `orders: number of orders`).");
	for (size_t i = 0; i < d->n_measures; i++) {
		if (gold_in_grain(d, d->measures[i].name)) {
			gold_ask(m, FLOE_GOLD_Q_UNSUPPORTED, m->measures[i].label, d->measures[i].line,
				 "the measure's name `%s` is also a grain column's; name it differently.", d->measures[i].name);
			continue;
		}
		if (gold_phrase_measure(m, i) < 0 && m->model)
			gold_model_measure(m, i);
	}
}

/* A ratio whose sides lead back to itself. */
static bool cyclic(const floe_gold_mart *m, size_t i, int depth)
{
	const gold_measure *g = &m->measures[i];
	if (g->kind == GOLD_AGGREGATE)
		return false;
	if (depth > 16)
		return true;
	return cyclic(m, g->num, depth + 1) || (g->kind == GOLD_RATIO && cyclic(m, g->den, depth + 1));
}

static void read_filters(floe_gold_mart *m, const floe_gold_desc *d)
{
	for (size_t i = 0; i < d->n_filters; i++) {
		gold_filter *f = FLOE_ARENA_PUSH(m->a, m->filters, m->n_filters, m->cap_filters);
		*f = (gold_filter){ .term = &d->filters[i], .label = floe_arena_printf(m->a, "filters[%zu]", i + 1) };
		gold_phrase_filter(m, f);
	}
}

int floe_gold_resolve(floe_gold_mart **out, floe_arena *a, const floe_gold_desc *d, const floe_lock *lock,
		      const floe_gold_model *model)
{
	floe_gold_mart *m = floe_arena_alloc(a, sizeof(*m));
	m->a = a;
	m->desc = d;
	m->model = model && model->name && model->name[0] ? model : NULL;
	load_silver(m, lock);
	if (m->n_tables == 0)
		gold_ask(m, FLOE_GOLD_Q_UNKNOWN_TABLE, "mart", d->mart_line,
			 "the lock has no silver tables yet; run `floe generate` and `floe run` first.");
	if (gold_table_named(m, d->mart, NULL))
		gold_ask(m, FLOE_GOLD_Q_UNSUPPORTED, "mart", d->mart_line,
			 "the mart's name `%s` is also a silver model's; dbt needs unique model names, so name the mart "
			 "differently.", d->mart);
	read_dimensions(m, d);
	read_measures(m, d);
	for (size_t i = 0; i < m->n_measures; i++)
		if (cyclic(m, i, 0))
			gold_ask(m, FLOE_GOLD_Q_UNSUPPORTED, m->measures[i].label, m->measures[i].term->line,
				 "`%s` is defined through itself; define one of its parts without it.", m->measures[i].name);
	read_filters(m, d);
	gold_join_facts(m);
	*out = m;
	return 0;
}

size_t floe_gold_question_count(const floe_gold_mart *m)
{
	return m->n_questions;
}

const floe_gold_question *floe_gold_question_at(const floe_gold_mart *m, size_t i)
{
	return &m->questions[i];
}
