/*
 * source.c — TableInput's SQL: its tables resolved to floe's bronze tables through the
 * lock (`{{ source('bronze', …) }}`), its variables made dbt variables. The SQL is read
 * by PostgreSQL's own grammar (src/sqlparse); SQL in another dialect is kept as written
 * and marked for a check.
 */
#include "pentaho/pentaho_int.h"
#include "base/error.h"
#include "plan/lock.h"
#include "sqlparse/sqlparse.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct table_ref {
	size_t start, end;          /* bytes of the name in the SQL */
	const char *schema, *name;
} table_ref;

typedef struct walk {
	pt_trans *t;
	table_ref *refs;
	size_t n_refs, cap_refs;
	const char **ctes;
	size_t n_ctes, cap_ctes;
} walk;

const char *pt_bronze_source(pt_trans *t, const char *schema, const char *name)
{
	for (size_t i = 0; t->lock && i < floe_lock_count(t->lock); i++) {
		const floe_lock_table *lt = floe_lock_at(t->lock, i);
		if (!lt->silver || strcasecmp(lt->name, name) != 0 || (schema && strcasecmp(lt->schema, schema) != 0))
			continue;
		const char *base = strrchr(lt->silver->model, '/');
		base = base ? base + 1 : lt->silver->model;
		size_t n = strlen(base) > 4 ? strlen(base) - 4 : strlen(base); /* without ".sql" */
		return floe_arena_printf(t->a, "{{ source('bronze', '%.*s') }}", (int)n, base);
	}
	return NULL;
}

static void visit(walk *w, const floe_json_value *v)
{
	if (floe_json_type_of(v) == FLOE_JSON_ARRAY) {
		for (size_t i = 0; i < floe_json_count(v); i++)
			visit(w, floe_json_value_at(v, i));
		return;
	}
	if (floe_json_type_of(v) != FLOE_JSON_OBJECT)
		return;
	for (size_t i = 0; i < floe_json_count(v); i++) {
		floe_slice key = floe_json_key_at(v, i);
		const floe_json_value *m = floe_json_value_at(v, i);
		int64_t loc = -1;
		if (floe_slice_eq_cstr(key, "RangeVar") && floe_json_int64(&loc, floe_json_get(m, "location")) == 0) {
			table_ref *r = FLOE_ARENA_PUSH(w->t->a, w->refs, w->n_refs, w->cap_refs);
			r->start = (size_t)loc;
			r->name = floe_json_string(floe_json_get(m, "relname")).ptr;
			r->schema = floe_json_get(m, "schemaname") ? floe_json_string(floe_json_get(m, "schemaname")).ptr : NULL;
		} else if (floe_slice_eq_cstr(key, "CommonTableExpr") && floe_json_get(m, "ctename")) {
			*FLOE_ARENA_PUSH(w->t->a, w->ctes, w->n_ctes, w->cap_ctes) =
				floe_json_string(floe_json_get(m, "ctename")).ptr;
		}
		visit(w, m);
	}
}

/* The SQL with every variable replaced by as many letters: it parses, and offsets stay. */
static char *placeholders(const char *sql)
{
	char *p = floe_xstrndup(sql, strlen(sql));
	for (size_t k = 0; p[k]; k++) {
		char *close = p[k] == '$' && p[k + 1] == '{' ? strchr(p + k, '}') : NULL;
		if (!close)
			continue;
		for (char *s = p + k; s <= close; s++)
			*s = 'v';
		k = (size_t)(close - p);
	}
	return p;
}

static int by_start(const void *a, const void *b)
{
	const table_ref *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The end of the qualified name whose first token starts at `start`. */
static size_t name_end(const floe_sqltok *tok, size_t n, size_t start)
{
	size_t k = 0;
	while (k < n && tok[k].start < start)
		k++;
	if (k == n || tok[k].start != start)
		return start;
	size_t end = tok[k].end;
	while (k + 2 < n && tok[k + 1].kind == FLOE_SQLTOK_DOT && tok[k + 2].kind == FLOE_SQLTOK_WORD)
		end = tok[k += 2].end;
	return end;
}

static bool is_cte(const walk *w, const table_ref *r)
{
	for (size_t i = 0; !r->schema && i < w->n_ctes; i++)
		if (strcmp(w->ctes[i], r->name) == 0)
			return true;
	return false;
}

/* Rewrite the SQL: resolved tables as source(), the rest with dbt variables. */
static const char *rewrite(pt_trans *t, size_t i, const char *sql, walk *w, const floe_sqltok *tok, size_t n_tok)
{
	floe_buf out = FLOE_BUF_INIT;
	size_t at = 0;
	for (size_t k = 0; k < w->n_refs; k++) {
		table_ref *r = &w->refs[k];
		if (is_cte(w, r) || r->start < at)
			continue;
		bool var_schema = r->schema && (strncmp(sql + r->start, "${", 2) == 0);
		const char *src = pt_bronze_source(t, var_schema ? NULL : r->schema, r->name);
		if (!src) {
			pt_mark(t, i, FLOE_PENTAHO_PARTIAL, "table %s%s%s is not in the lock (floe loads no such bronze "
				"table): the SQL still names it", r->schema && !var_schema ? r->schema : "",
				r->schema && !var_schema ? "." : "", r->name);
			continue;
		}
		pt_put_sql_vars(t, &out, sql + at, r->start - at);
		floe_buf_puts(&out, src);
		at = name_end(tok, n_tok, r->start);
	}
	pt_put_sql_vars(t, &out, sql + at, strlen(sql) - at);
	const char *s = floe_arena_strdup(t->a, floe_buf_cstr(&out));
	floe_buf_free(&out);
	return s;
}

/* The name a sort key's column reference ends with, or NULL for an expression. */
static const char *sort_column(const floe_json_value *sortby)
{
	const floe_json_value *fields = floe_json_get(floe_json_get(floe_json_get(sortby, "node"), "ColumnRef"), "fields");
	size_t n = floe_json_count(fields);
	const floe_json_value *last = n ? floe_json_get(floe_json_value_at(fields, n - 1), "String") : NULL;
	const floe_json_value *name = last ? floe_json_get(last, "sval") : NULL;
	name = name ? name : (last ? floe_json_get(last, "str") : NULL);
	return name ? floe_json_string(name).ptr : NULL;
}

/*
 * The query's top-level ORDER BY, when every key is a column: Kettle reads the rows in that
 * order, so a later Group by, Unique or Merge join sees sorted input ("sort in the database").
 */
static const char *order_of(pt_trans *t, const floe_json_doc *doc)
{
	const floe_json_value *stmts = floe_json_get(floe_json_root(doc), "stmts");
	if (floe_json_count(stmts) != 1)
		return NULL;
	const floe_json_value *sel = floe_json_get(floe_json_get(floe_json_value_at(stmts, 0), "stmt"), "SelectStmt");
	const floe_json_value *keys = floe_json_get(sel, "sortClause");
	floe_buf b = FLOE_BUF_INIT;
	bool ok = floe_json_count(keys) > 0;
	for (size_t k = 0; ok && k < floe_json_count(keys); k++) {
		const char *col = sort_column(floe_json_get(floe_json_value_at(keys, k), "SortBy"));
		ok = col != NULL;
		if (ok)
			floe_buf_printf(&b, "%s%s", k ? "," : "", col);
	}
	const char *r = ok ? floe_arena_strdup(t->a, floe_buf_cstr(&b)) : NULL;
	floe_buf_free(&b);
	return r;
}

const char *pt_table_input_sql(pt_trans *t, size_t i, const char *sql)
{
	char *ph = placeholders(sql);
	floe_json_doc *doc = NULL;
	floe_sqltok *tok = NULL;
	size_t n_tok = 0;
	walk w = { .t = t };
	const char *r = NULL;
	if (floe_sqlparse_sql(&doc, ph) < 0 || floe_sqlparse_scan(&tok, &n_tok, t->a, ph) < 0) {
		const floe_error *e = floe_error_last();
		pt_mark(t, i, FLOE_PENTAHO_PARTIAL, "the SQL does not parse as PostgreSQL (%s): kept as written, its "
			"tables not resolved to bronze", e ? e->message : "parse error");
		floe_error_clear();
		floe_buf out = FLOE_BUF_INIT;
		pt_put_sql_vars(t, &out, sql, strlen(sql));
		r = floe_arena_strdup(t->a, floe_buf_cstr(&out));
		floe_buf_free(&out);
		goto cleanup;
	}
	visit(&w, floe_json_root(doc));
	if (w.n_refs)
		qsort(w.refs, w.n_refs, sizeof(*w.refs), by_start);
	r = rewrite(t, i, sql, &w, tok, n_tok);
	t->steps[i].sorted_by = order_of(t, doc);
cleanup:
	floe_json_free(doc);
	free(ph);
	return r;
}
