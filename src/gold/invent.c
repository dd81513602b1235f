/*
 * invent.c — the anti-invention check of an expression a local model drafted for a term
 * the rules could not resolve. The draft is parsed by PostgreSQL's grammar (src/sqlparse,
 * libpg_query) as `SELECT <draft>` and its tree walked — never searched as text. It is
 * accepted only when everything it states is in the description:
 *
 *   - each column is `table.column` of silver, written in the description or read by a resolved term;
 *   - each constant is written in the description;
 *   - a condition (comparison, and/or/not, is null, case, an aggregate's filter) only when the
 *     term itself states one (is, not, than, before, after, when, where, with, without, only, <, >, =);
 *   - no table of its own, subquery, window or function outside the aggregates and a few scalar ones;
 *
 * and DuckDB plans it (EXPLAIN) over empty tables with silver's columns.
 */
#include "gold/gold_int.h"
#include "base/error.h"
#include "engine/engine.h"
#include "iceberg/schema.h"
#include "query/query.h"
#include "sqlparse/sqlparse.h"

#include <ctype.h>
#include <string.h>

typedef struct check {
	floe_gold_mart *m;
	const char *term;                 /* the term's own text */
	const char *reason;               /* set at the first thing the description does not state */
	bool condition;                   /* the draft states a condition */
	gold_uses tables;                 /* silver tables it reads */
} check;

static const char *const functions[] = { "sum", "avg", "count", "min", "max", "median", "coalesce", "nullif",
					 "date_trunc", "round", "abs", "greatest", "least", NULL };
static const char *const condition_words[] = { "is", "not", "than", "before", "after", "when", "where", "with",
					       "without", "only", "<", ">", "=", NULL };

static void reject(check *c, const char *fmt, const char *what)
{
	if (!c->reason)
		c->reason = floe_arena_printf(c->m->a, fmt, what);
}

/* Whether `needle` is written in the description: a term's text (or, for columns, a resolved read). */
static bool described(const check *c, const char *needle)
{
	const floe_gold_desc *d = c->m->desc;
	const floe_gold_term *lists[] = { d->dimensions, d->measures, d->filters };
	size_t counts[] = { d->n_dimensions, d->n_measures, d->n_filters };
	for (size_t l = 0; l < 3; l++)
		for (size_t i = 0; i < counts[l]; i++)
			if (strstr(lists[l][i].text, needle))
				return true;
	return false;
}

static bool states_condition(const char *text)
{
	for (size_t i = 0; condition_words[i]; i++) {
		const char *w = condition_words[i], *at = text;
		size_t n = strlen(w);
		while ((at = strstr(at, w))) {
			bool word = !isalpha((unsigned char)w[0]) ||
				    ((at == text || !isalnum((unsigned char)at[-1])) && !isalnum((unsigned char)at[n]));
			if (word)
				return true;
			at += n;
		}
	}
	return false;
}

static const char *sval(const floe_json_value *v)
{
	const floe_json_value *s = floe_json_get(floe_json_get(v, "String"), "sval");
	return s ? floe_json_string(s).ptr : NULL;
}

static void column(check *c, const floe_json_value *ref)
{
	const floe_json_value *fields = floe_json_get(ref, "fields");
	const char *t = floe_json_count(fields) == 2 ? sval(floe_json_value_at(fields, 0)) : NULL;
	const char *col = t ? sval(floe_json_value_at(fields, 1)) : NULL;
	size_t ti = 0;
	const gold_table *gt = t && col ? gold_table_named(c->m, t, &ti) : NULL;
	bool known = false;
	for (size_t i = 0; gt && i < gt->s->n_columns; i++)
		known = known || strcmp(gt->s->columns[i].name, col) == 0;
	if (!known) {
		reject(c, "it reads `%s`, which is no silver `table.column`",
		       t && col ? floe_arena_printf(c->m->a, "%s.%s", t, col) : "a column without its table");
		return;
	}
	const char *name = floe_arena_printf(c->m->a, "%s.%s", t, col);
	bool read = false;
	for (size_t i = 0; i < c->m->n_reads; i++)
		read = read || strcmp(c->m->reads[i] + strlen("silver."), name) == 0;
	if (!read && !described(c, name))
		reject(c, "it reads `%s`, which the description never mentions", name);
	gold_uses_add(c->m, &c->tables, ti);
}

static void constant(check *c, const floe_json_value *v)
{
	const floe_json_value *s = floe_json_get(floe_json_get(v, "sval"), "sval");
	const floe_json_value *f = floe_json_get(floe_json_get(v, "fval"), "fval");
	const floe_json_value *i = floe_json_get(v, "ival"), *b = floe_json_get(v, "boolval");
	const char *text = s ? floe_json_string(s).ptr : f ? floe_json_string(f).ptr : NULL;
	if (!text && i) {
		const floe_json_value *n = floe_json_get(i, "ival");
		text = n ? floe_arena_strndup(c->m->a, floe_json_number_text(n).ptr, floe_json_number_text(n).len) : "0";
	}
	if (!text && b)
		text = floe_json_get(b, "boolval") && floe_json_bool(floe_json_get(b, "boolval")) ? "true" : "false";
	if (!text)
		text = "null";
	if (strcmp(text, "1") != 0 && strcmp(text, "0") != 0 && !described(c, text)) /* 1 and 0 count rows */
		reject(c, "it adds the constant `%s`, which the description never mentions", text);
}

static void walk(check *c, const floe_json_value *v, int depth);

static void function(check *c, const floe_json_value *call, int depth)
{
	const floe_json_value *names = floe_json_get(call, "funcname");
	const char *name = floe_json_count(names) ? sval(floe_json_value_at(names, floe_json_count(names) - 1)) : NULL;
	bool ok = false;
	for (size_t i = 0; name && functions[i]; i++)
		ok = ok || strcmp(name, functions[i]) == 0;
	if (!ok)
		reject(c, "it calls `%s`, which is not an aggregate or scalar function floe allows", name ? name : "?");
	if (floe_json_get(call, "over"))
		reject(c, "%s", "it adds a window (over …)");
	if (floe_json_get(call, "agg_filter"))
		c->condition = true;
	walk(c, call, depth + 1);
}

/* An operator expression that computes (+ - * / % ||) rather than compares or tests. */
static bool arithmetic(const floe_json_value *expr)
{
	const floe_json_value *kind = floe_json_get(expr, "kind"), *names = floe_json_get(expr, "name");
	const char *op = floe_json_count(names) == 1 ? sval(floe_json_value_at(names, 0)) : NULL;
	return kind && floe_slice_eq_cstr(floe_json_string(kind), "AEXPR_OP") && op && strlen(op) <= 2 &&
	       strspn(op, "+-*/%|") == strlen(op);
}

static void walk_object(check *c, const floe_json_value *v, int depth)
{
	static const char *const conditions[] = { "BoolExpr", "NullTest", "BooleanTest", "CaseExpr", NULL };
	static const char *const sources[] = { "SubLink", "RangeVar", "RangeSubselect", "SelectStmt", NULL };
	for (size_t i = 0; i < floe_json_count(v); i++) {
		floe_slice k = floe_json_key_at(v, i);
		const floe_json_value *x = floe_json_value_at(v, i);
		for (size_t j = 0; conditions[j]; j++)
			c->condition = c->condition || floe_slice_eq_cstr(k, conditions[j]);
		for (size_t j = 0; sources[j]; j++)
			if (floe_slice_eq_cstr(k, sources[j]))
				reject(c, "%s", "it reads a table or subquery of its own");
		if (floe_slice_eq_cstr(k, "A_Expr"))
			c->condition = c->condition || !arithmetic(x);
		if (floe_slice_eq_cstr(k, "ColumnRef"))
			column(c, x);
		else if (floe_slice_eq_cstr(k, "A_Const"))
			constant(c, x);
		else if (floe_slice_eq_cstr(k, "FuncCall"))
			function(c, x, depth);
		else
			walk(c, x, depth + 1);
	}
}

static void walk(check *c, const floe_json_value *v, int depth)
{
	if (depth > 200) {
		reject(c, "%s", "it nests too deeply");
		return;
	}
	if (floe_json_type_of(v) == FLOE_JSON_ARRAY)
		for (size_t i = 0; i < floe_json_count(v); i++)
			walk(c, floe_json_value_at(v, i), depth + 1);
	else if (floe_json_type_of(v) == FLOE_JSON_OBJECT)
		walk_object(c, v, depth);
}

/* The draft's one expression: stmts[0] a SelectStmt of one target and nothing else. */
static const floe_json_value *target_of(const floe_json_value *root)
{
	const floe_json_value *stmts = floe_json_get(root, "stmts");
	const floe_json_value *sel = floe_json_count(stmts) == 1
		? floe_json_get(floe_json_get(floe_json_value_at(stmts, 0), "stmt"), "SelectStmt") : NULL;
	const floe_json_value *targets = sel ? floe_json_get(sel, "targetList") : NULL;
	if (!sel || floe_json_count(sel) != 3 || floe_json_count(targets) != 1) /* targetList, limitOption, op */
		return NULL;
	return floe_json_get(floe_json_get(floe_json_value_at(targets, 0), "ResTarget"), "val");
}

/* EXPLAIN the draft over empty tables with the silver columns of the tables it reads. */
static int plans(check *c, const char *expr)
{
	floe_engine *e = NULL;
	floe_buf sql = FLOE_BUF_INIT;
	int rc = floe_engine_open(&e, NULL);
	for (size_t i = 0; rc == 0 && i < c->tables.n; i++) {
		const gold_table *t = &c->m->tables[c->tables.tables[i]];
		floe_buf_clear(&sql);
		floe_buf_puts(&sql, "CREATE TABLE ");
		gold_ident(&sql, t->name);
		for (size_t k = 0; k < t->s->n_columns; k++) {
			const floe_lock_type *lt = t->s->columns[k].type;
			floe_iceberg_type *it = NULL;
			floe_buf_puts(&sql, k ? ", " : " (");
			gold_ident(&sql, t->s->columns[k].name);
			floe_buf_putc(&sql, ' ');
			if (lt && lt->primitive && floe_iceberg_type_parse(&it, c->m->a, lt->primitive, strlen(lt->primitive)) == 0)
				floe_query_duck_type(&sql, it);
			else
				floe_buf_puts(&sql, "VARCHAR");
		}
		floe_buf_putc(&sql, ')');
		rc = floe_engine_exec(e, floe_buf_cstr(&sql));
	}
	floe_buf_clear(&sql);
	floe_buf_printf(&sql, "EXPLAIN SELECT %s", expr);
	for (size_t i = 0; i < c->tables.n; i++) {
		floe_buf_puts(&sql, i ? ", " : " FROM ");
		gold_ident(&sql, c->m->tables[c->tables.tables[i]].name);
	}
	if (rc == 0 && floe_engine_exec(e, floe_buf_cstr(&sql)) < 0) {
		const floe_error *err = floe_error_last();
		reject(c, "DuckDB cannot plan it: %s", err && err->message ? err->message : "?");
		floe_error_clear();
	}
	floe_engine_close(e);
	floe_buf_free(&sql);
	return rc;
}

int gold_invention_check(const char **reason, gold_uses *tables, floe_gold_mart *m, const char *term, const char *expr)
{
	floe_json_doc *doc = NULL;
	check c = { .m = m, .term = term };
	*reason = NULL;
	if (floe_sqlparse_sql(&doc, floe_arena_printf(m->a, "SELECT %s", expr)) < 0) {
		*reason = floe_arena_printf(m->a, "it is not one SQL expression (%s)", floe_error_last()->message);
		floe_error_clear();
		return 0;
	}
	const floe_json_value *v = target_of(floe_json_root(doc));
	if (!v)
		reject(&c, "%s", "it is not one SQL expression");
	else
		walk(&c, v, 0);
	floe_json_free(doc);
	if (!c.reason && c.condition && !states_condition(term))
		reject(&c, "%s", "it adds a condition the term does not state");
	if (!c.reason && c.tables.n == 0)
		reject(&c, "%s", "it reads no silver column");
	int rc = c.reason ? 0 : plans(&c, expr);
	*reason = c.reason;
	*tables = c.tables;
	return rc;
}
