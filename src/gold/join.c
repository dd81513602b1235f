/*
 * join.c — each fact table's joins. A fact is a table some measure aggregates; every
 * table a dimension or a row filter reads must be reachable from it along foreign keys
 * toward the referenced table (many-to-one), so joining never multiplies the fact's
 * rows. No such path (the join would fan out) or two of them (a billing and a shipping
 * customer) is a question; `via t.c` in the term picks one. Measures of different facts
 * are aggregated apart and meet at the grain (sql.c), never joined row to row.
 */
#include "gold/gold_int.h"

#include <string.h>

#define MAX_FOUND 3

typedef struct search {
	const floe_gold_mart *m;
	size_t to;
	const char *via_table, *via_column;
	gold_path cur, found[MAX_FOUND];
	size_t n_found;
	bool visited[256];
} search;

static bool edge_has(const floe_gold_mart *m, const gold_edge *e, const char *table, const char *column)
{
	if (strcmp(m->tables[e->from].name, table) != 0)
		return false;
	for (size_t i = 0; i < e->n; i++)
		if (strcmp(e->columns[i], column) == 0)
			return true;
	return false;
}

static bool path_ok(const search *s)
{
	if (!s->via_table)
		return true;
	for (size_t i = 0; i < s->cur.n; i++)
		if (edge_has(s->m, &s->m->edges[s->cur.edges[i]], s->via_table, s->via_column))
			return true;
	return false;
}

static void dfs(search *s, size_t at)
{
	if (at == s->to) {
		if (path_ok(s) && s->n_found < MAX_FOUND)
			s->found[s->n_found++] = s->cur;
		return;
	}
	if (s->cur.n == GOLD_MAX_PATH || at >= 256)
		return;
	s->visited[at] = true;
	for (size_t i = 0; i < s->m->n_edges; i++) {
		const gold_edge *e = &s->m->edges[i];
		if (e->from != at || (e->to < 256 && s->visited[e->to]))
			continue;
		s->cur.edges[s->cur.n++] = i;
		dfs(s, e->to);
		s->cur.n--;
	}
	s->visited[at] = false;
}

/* "`orders.customer_id` → customers" for each hop. */
static const char *path_text(const floe_gold_mart *m, const gold_path *p)
{
	floe_buf b = FLOE_BUF_INIT;
	for (size_t i = 0; i < p->n; i++) {
		const gold_edge *e = &m->edges[p->edges[i]];
		floe_buf_printf(&b, "%s`%s.%s` → %s", i ? ", then " : "", m->tables[e->from].name, e->columns[0],
				m->tables[e->to].name);
	}
	const char *s = floe_arena_strdup(m->a, b.ptr ? b.ptr : "");
	floe_buf_free(&b);
	return s;
}

static gold_fact *fact_of(floe_gold_mart *m, const gold_measure *g)
{
	for (size_t i = 0; i < m->n_facts; i++)
		if (m->facts[i].table == g->fact && m->facts[i].bridged == g->bridged &&
		    (!g->bridged || m->facts[i].bridge == g->bridge))
			return &m->facts[i];
	gold_fact *f = FLOE_ARENA_PUSH(m->a, m->facts, m->n_facts, m->cap_facts);
	f->table = f->joins.from = g->fact;
	f->bridged = g->bridged;
	f->bridge = f->bridge_joins.from = g->bridge;
	return f;
}

/* Add the path's edges to the joins; a table reached already by another edge asks. */
static void add_path(floe_gold_mart *m, gold_joins *j, const gold_path *p, const char *label, int line)
{
	for (size_t i = 0; i < p->n; i++) {
		const gold_edge *e = &m->edges[p->edges[i]];
		bool have = false;
		for (size_t k = 0; k < j->n_edges; k++) {
			const gold_edge *o = &m->edges[j->edges[k]];
			if (j->edges[k] == p->edges[i])
				have = true;
			else if (o->to == e->to) {
				gold_ask(m, FLOE_GOLD_Q_AMBIGUOUS_PATH, label, line,
					 "`%s` joins %s through `%s.%s`, and another term through `%s.%s`; one mart joins "
					 "a table one way: use the same `via` in both terms.", m->tables[j->from].name,
					 m->tables[e->to].name, m->tables[e->from].name, e->columns[0],
					 m->tables[o->from].name, o->columns[0]);
				return;
			}
		}
		if (!have)
			*FLOE_ARENA_PUSH(m->a, j->edges, j->n_edges, j->cap_edges) = p->edges[i];
	}
}

static size_t paths(search *s, const floe_gold_mart *m, size_t from, size_t to, const gold_uses *u)
{
	*s = (search){ .m = m, .to = to, .via_table = u ? u->via_table : NULL, .via_column = u ? u->via_column : NULL };
	dfs(s, from);
	return s->n_found;
}

static void reach(floe_gold_mart *m, gold_joins *j, const gold_uses *u, const char *label, int line)
{
	for (size_t i = 0; i < u->n; i++) {
		if (u->tables[i] == j->from)
			continue;
		search s;
		size_t n = paths(&s, m, j->from, u->tables[i], u);
		const char *from = m->tables[j->from].name, *to = m->tables[u->tables[i]].name;
		if (n == 0)
			gold_ask(m, FLOE_GOLD_Q_NO_PATH, label, line,
				 "%s is aggregated here, but no chain of foreign keys leads from %s to %s%s: joining them "
				 "would repeat %s rows (fan-out) or needs a key silver does not have; drop the term, "
				 "aggregate a table that references %s, or count through one (`… through <table>`).",
				 from, from, to,
				 u->via_table ? floe_arena_printf(m->a, " via `%s.%s`", u->via_table, u->via_column) : "",
				 from, to);
		else if (n > 1)
			gold_ask(m, FLOE_GOLD_Q_AMBIGUOUS_PATH, label, line,
				 "%s reaches %s by %s paths: %s; or %s; add `via <table.column>` to the term to pick one "
				 "(e.g. `via %s.%s`).", from, to, n == 2 ? "two" : "several",
				 path_text(m, &s.found[0]), path_text(m, &s.found[1]),
				 m->tables[m->edges[s.found[0].edges[0]].from].name, m->edges[s.found[0].edges[0]].columns[0]);
		else
			add_path(m, j, &s.found[0], label, line);
	}
}

/* The nearest table the bridge reaches (one path) that the fact is or reaches (one path). */
static bool bridge_parent(floe_gold_mart *m, gold_fact *f)
{
	for (size_t len = 1; len <= GOLD_MAX_PATH; len++)
		for (size_t t = 0; t < m->n_tables; t++) {
			search s;
			if (t == f->bridge || paths(&s, m, f->bridge, t, NULL) != 1 || s.found[0].n != len)
				continue;
			if (t == f->table || paths(&s, m, f->table, t, NULL) == 1) {
				f->parent = t;
				return true;
			}
		}
	return false;
}

static void join_fact(floe_gold_mart *m, const gold_measure *g, gold_fact *f)
{
	gold_joins *dims = &f->joins;
	reach(m, &f->joins, &g->uses, g->label, g->term->line);
	for (size_t k = 0; k < m->n_filters; k++)
		if (m->filters[k].sql && !m->filters[k].on_measures)
			reach(m, &f->joins, &m->filters[k].uses, m->filters[k].label, m->filters[k].term->line);
	if (f->bridged) {
		if (!bridge_parent(m, f)) {
			gold_ask(m, FLOE_GOLD_Q_NO_PATH, g->label, g->term->line,
				 "%s and %s reach no table in common along foreign keys, so %s rows cannot be counted "
				 "through %s.", m->tables[f->table].name, m->tables[f->bridge].name,
				 m->tables[f->table].name, m->tables[f->bridge].name);
			return;
		}
		gold_uses parent = { .tables = &f->parent, .n = 1 };
		reach(m, &f->joins, &parent, g->label, g->term->line);
		reach(m, &f->bridge_joins, &parent, g->label, g->term->line);
		dims = &f->bridge_joins;
	}
	for (size_t k = 0; k < m->n_dims; k++)
		if (m->dims[k].sql)
			reach(m, dims, &m->dims[k].uses, floe_arena_printf(m->a, "dimensions.%s", m->dims[k].name),
			      m->dims[k].term->line);
}

void gold_join_facts(floe_gold_mart *m)
{
	for (size_t i = 0; i < m->n_measures; i++) {
		const gold_measure *g = &m->measures[i];
		if (g->kind == GOLD_AGGREGATE && g->agg_sql)
			join_fact(m, g, fact_of(m, g));
	}
}

void gold_join_sql(floe_buf *b, const floe_gold_mart *m, const gold_joins *j)
{
	for (size_t i = 0; i < j->n_edges; i++) {
		const gold_edge *e = &m->edges[j->edges[i]];
		const gold_table *to = &m->tables[e->to], *from = &m->tables[e->from];
		floe_buf_printf(b, "    left join {{ ref('%s') }} as ", to->model);
		gold_ident(b, to->name);
		for (size_t k = 0; k < e->n; k++) {
			floe_buf_puts(b, k ? " and " : " on ");
			gold_ident(b, to->name);
			floe_buf_putc(b, '.');
			gold_ident(b, e->fields[k]);
			floe_buf_puts(b, " = ");
			gold_ident(b, from->name);
			floe_buf_putc(b, '.');
			gold_ident(b, e->columns[k]);
		}
		floe_buf_putc(b, '\n');
	}
}
