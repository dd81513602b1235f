/*
 * check.c — a CHECK constraint as silver tests it. The expression (pg_get_expr of
 * conbin) is parsed by PostgreSQL's own grammar (sqlparse/) and walked: a list of
 * allowed values for one column becomes accepted_values; an expression made only of
 * what DuckDB evaluates exactly as PostgreSQL does becomes a row rule in DuckDB SQL;
 * anything else is left out with the reason. Integer division is refused: PostgreSQL
 * truncates, DuckDB's `/` does not.
 */
#include "plan/plan_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "sqlparse/sqlparse.h"

#include <inttypes.h>
#include <string.h>

#define MAX_DEPTH 64

typedef struct xlate {
	floe_arena *arena;
	const floe_pg_relation *rel;
	floe_buf out;
	const char **columns;
	size_t n_columns;
	const char *why;
} xlate;

static bool refuse(xlate *x, const char *why)
{
	if (!x->why)
		x->why = why;
	return false;
}

void floe_plan_put_quoted(floe_buf *b, const char *s, char quote)
{
	floe_buf_putc(b, quote);
	for (const char *p = s; *p; p++) {
		if (*p == quote)
			floe_buf_putc(b, quote);
		floe_buf_putc(b, *p);
	}
	floe_buf_putc(b, quote);
}

static bool expr(xlate *x, const floe_json_value *node, int depth);

/* A column of the table, by its single-name reference. */
static bool column_ref(xlate *x, const floe_json_value *v)
{
	const floe_json_value *fields = floe_json_get(v, "fields");
	const char *name = floe_json_count(fields) == 1
				   ? floe_plan_node_str(floe_json_get(floe_json_value_at(fields, 0), "String"), "sval")
				   : NULL;
	const floe_pg_column *c = NULL;
	for (size_t i = 0; name && i < x->rel->n_columns && !c; i++)
		if (strcmp(x->rel->columns[i].name, name) == 0)
			c = &x->rel->columns[i];
	if (!c)
		return refuse(x, "it refers to something other than a column of the table");
	bool seen = false;
	for (size_t i = 0; i < x->n_columns && !seen; i++)
		seen = strcmp(x->columns[i], name) == 0;
	if (!seen) {
		const char **v2 = floe_arena_alloc(x->arena, sizeof(char *) * (x->n_columns + 2));
		if (x->n_columns)
			memcpy(v2, x->columns, sizeof(char *) * x->n_columns);
		v2[x->n_columns++] = c->name;
		x->columns = v2;
	}
	floe_plan_put_quoted(&x->out, name, '"');
	return true;
}

/* A constant's text; *quote: it is a string. NULL for NULL and anything unknown. */
static const char *const_text(xlate *x, const floe_json_value *v, bool *quote, bool *is_null)
{
	const floe_json_value *m;
	*quote = false;
	*is_null = floe_json_get(v, "isnull") != NULL;
	if ((m = floe_json_get(v, "ival"))) {
		const floe_json_value *n = floe_json_get(m, "ival"); /* absent: 0 (protobuf drops zeros) */
		int64_t i = 0;
		if (n && floe_json_int64(&i, n) < 0)
			return NULL;
		return floe_arena_printf(x->arena, "%" PRId64, i);
	}
	if ((m = floe_json_get(v, "fval"))) { /* copied: the tree is freed after classifying */
		const char *f = floe_plan_node_str(m, "fval");
		return f ? floe_arena_strdup(x->arena, f) : NULL;
	}
	if ((m = floe_json_get(v, "boolval")))
		return floe_json_get(m, "boolval") ? "true" : "false";
	if ((m = floe_json_get(v, "sval"))) {
		*quote = true;
		const char *s = floe_plan_node_str(m, "sval");
		return floe_arena_strdup(x->arena, s ? s : "");
	}
	return NULL;
}

static bool constant(xlate *x, const floe_json_value *v)
{
	bool quote, is_null;
	const char *t = const_text(x, v, &quote, &is_null);
	if (is_null) {
		floe_buf_puts(&x->out, "NULL");
		return true;
	}
	if (!t)
		return refuse(x, "it holds a constant floe does not know");
	if (quote)
		floe_plan_put_quoted(&x->out, t, '\'');
	else
		floe_buf_puts(&x->out, t);
	return true;
}

/* The DuckDB type for a cast to PostgreSQL type `name`; NULL: none that means the same. */
static const char *duck_type(const char *name)
{
	static const char *const map[] = { "int2", "SMALLINT", "int4", "INTEGER", "int8", "BIGINT",
					   "float4", "REAL", "float8", "DOUBLE", "text", "VARCHAR",
					   "varchar", "VARCHAR", "bpchar", "VARCHAR", "date", "DATE",
					   "timestamp", "TIMESTAMP", "timestamptz", "TIMESTAMPTZ",
					   "bool", "BOOLEAN", "numeric", "DECIMAL", NULL };
	for (size_t i = 0; map[i]; i += 2)
		if (strcmp(name, map[i]) == 0)
			return map[i + 1];
	return NULL;
}

static bool type_cast(xlate *x, const floe_json_value *v, int depth)
{
	const floe_json_value *tn = floe_json_get(v, "typeName");
	const char *name = floe_plan_node_name(floe_json_get(tn, "names"));
	const char *duck = name && !floe_json_get(tn, "arrayBounds") ? duck_type(name) : NULL;
	const floe_json_value *mods = floe_json_get(tn, "typmods");
	if (!duck)
		return refuse(x, floe_arena_printf(x->arena, "it casts to %s, which floe does not translate",
						   name ? name : "a type"));
	if (strcmp(duck, "DECIMAL") == 0 && floe_json_count(mods) == 0) {
		/* (0)::numeric: the value itself; DuckDB compares it with any decimal column */
		floe_slice kind;
		const floe_json_value *arg = floe_plan_node_unwrap(floe_json_get(v, "arg"), &kind);
		if (!arg || !floe_slice_eq_cstr(kind, "A_Const"))
			return refuse(x, "it casts an expression to numeric without a precision");
		return constant(x, arg);
	}
	floe_buf_puts(&x->out, "CAST(");
	if (!expr(x, floe_json_get(v, "arg"), depth + 1))
		return false;
	floe_buf_printf(&x->out, " AS %s", duck);
	for (size_t i = 0; i < floe_json_count(mods); i++) {
		floe_slice kind;
		const floe_json_value *m = floe_plan_node_unwrap(floe_json_value_at(mods, i), &kind);
		bool quote, is_null;
		const char *t = m && floe_slice_eq_cstr(kind, "A_Const") ? const_text(x, m, &quote, &is_null) : NULL;
		if (!t || quote)
			return refuse(x, "it casts with a type modifier floe does not read");
		floe_buf_printf(&x->out, "%s%s", i ? ", " : "(", t);
	}
	floe_buf_puts(&x->out, floe_json_count(mods) ? "))" : ")");
	return true;
}

/* The items of `x IN (…)` or of the ARRAY[…] in `x = ANY (ARRAY[…])`, comma separated. */
static bool list_items(xlate *x, const floe_json_value *items, int depth)
{
	if (floe_json_count(items) == 0)
		return refuse(x, "it compares with an empty list");
	for (size_t i = 0; i < floe_json_count(items); i++) {
		if (i)
			floe_buf_puts(&x->out, ", ");
		if (!expr(x, floe_json_value_at(items, i), depth + 1))
			return false;
	}
	return true;
}

/* ARRAY[…] (perhaps cast to an array type) of `= ANY`: its elements; NULL otherwise. */
static const floe_json_value *array_elements(const floe_json_value *node)
{
	floe_slice kind;
	const floe_json_value *v = floe_plan_node_unwrap(node, &kind);
	if (v && floe_slice_eq_cstr(kind, "TypeCast"))
		v = floe_plan_node_unwrap(floe_json_get(v, "arg"), &kind);
	if (!v || !floe_slice_eq_cstr(kind, "A_ArrayExpr"))
		return NULL;
	return floe_json_get(v, "elements");
}

static bool in_list(xlate *x, const floe_json_value *v, const char *kind, const char *op, int depth)
{
	bool any = strcmp(kind, "AEXPR_OP_ANY") == 0, all = strcmp(kind, "AEXPR_OP_ALL") == 0;
	const floe_json_value *items = any || all ? array_elements(floe_json_get(v, "rexpr"))
						  : floe_json_get(floe_json_get(v, "rexpr"), "List");
	bool in = strcmp(op, "=") == 0 && !all, not_in = strcmp(op, "<>") == 0 && !any;
	if (!items || (!in && !not_in))
		return refuse(x, floe_arena_printf(x->arena, "it uses %s %s (…), which floe does not translate", op,
						   any ? "ANY" : all ? "ALL" : "IN"));
	if (!any && !all)
		items = floe_json_get(items, "items");
	floe_buf_putc(&x->out, '(');
	if (!expr(x, floe_json_get(v, "lexpr"), depth + 1))
		return false;
	floe_buf_puts(&x->out, not_in ? " NOT IN (" : " IN (");
	if (!list_items(x, items, depth))
		return false;
	floe_buf_puts(&x->out, "))");
	return true;
}

static bool operator(xlate *x, const floe_json_value *v, int depth)
{
	static const char *const binary[] = { "=", "<>", "!=", "<", ">", "<=", ">=", "+", "-", "*", "%", "||", NULL };
	const char *kind = floe_plan_node_str(v, "kind");
	const floe_json_value *names = floe_json_get(v, "name");
	const char *op = floe_json_count(names) == 1
				 ? floe_plan_node_str(floe_json_get(floe_json_value_at(names, 0), "String"), "sval")
				 : NULL;
	if (!kind || !op)
		return refuse(x, "it uses an operator floe does not read");
	if (strcmp(kind, "AEXPR_OP") != 0)
		return in_list(x, v, kind, op, depth);
	bool ok = false;
	for (size_t i = 0; binary[i] && !ok; i++)
		ok = strcmp(op, binary[i]) == 0;
	if (!ok)
		return refuse(x, floe_arena_printf(x->arena, strcmp(op, "/") == 0
								     ? "it divides (PostgreSQL truncates integer division, DuckDB does not)"
								     : "it uses the operator %s, which floe does not translate",
						   op));
	const floe_json_value *l = floe_json_get(v, "lexpr");
	if (!l && strcmp(op, "-") != 0 && strcmp(op, "+") != 0)
		return refuse(x, "it uses a prefix operator floe does not translate");
	floe_buf_putc(&x->out, '(');
	if (l && !expr(x, l, depth + 1))
		return false;
	floe_buf_printf(&x->out, l ? " %s " : "%s", op);
	if (!expr(x, floe_json_get(v, "rexpr"), depth + 1))
		return false;
	floe_buf_putc(&x->out, ')');
	return true;
}

static bool bool_expr(xlate *x, const floe_json_value *v, int depth)
{
	const char *op = floe_plan_node_str(v, "boolop");
	const floe_json_value *args = floe_json_get(v, "args");
	bool not_ = op && strcmp(op, "NOT_EXPR") == 0;
	const char *join = op && strcmp(op, "AND_EXPR") == 0 ? " AND " : op && strcmp(op, "OR_EXPR") == 0 ? " OR " : NULL;
	if ((!not_ && !join) || floe_json_count(args) == 0)
		return refuse(x, "it uses a boolean form floe does not read");
	floe_buf_puts(&x->out, not_ ? "(NOT " : "(");
	for (size_t i = 0; i < floe_json_count(args); i++) {
		if (i)
			floe_buf_puts(&x->out, join ? join : " AND ");
		if (!expr(x, floe_json_value_at(args, i), depth + 1))
			return false;
	}
	floe_buf_putc(&x->out, ')');
	return true;
}

static bool null_test(xlate *x, const floe_json_value *v, int depth)
{
	const char *t = floe_plan_node_str(v, "nulltesttype");
	floe_buf_putc(&x->out, '(');
	if (!expr(x, floe_json_get(v, "arg"), depth + 1))
		return false;
	floe_buf_puts(&x->out, t && strcmp(t, "IS_NOT_NULL") == 0 ? " IS NOT NULL)" : " IS NULL)");
	return true;
}

static bool func_call(xlate *x, const floe_json_value *v, int depth)
{
	static const char *const allowed[] = { "length", "char_length", "lower", "upper", NULL };
	static const char *const keys[] = { "funcname", "args", "funcformat", "location", NULL };
	const char *name = floe_plan_node_name(floe_json_get(v, "funcname"));
	bool ok = name && floe_json_count(floe_json_get(v, "args")) == 1;
	for (size_t i = 0; i < floe_json_count(v) && ok; i++) {
		bool known = false;
		for (size_t k = 0; keys[k] && !known; k++)
			known = floe_slice_eq_cstr(floe_json_key_at(v, i), keys[k]);
		ok = known;
	}
	bool listed = false;
	for (size_t i = 0; allowed[i] && ok && !listed; i++)
		listed = strcmp(name, allowed[i]) == 0;
	if (!listed)
		return refuse(x, floe_arena_printf(x->arena, "it calls %s(), which floe does not translate",
						   name ? name : "a function"));
	floe_buf_printf(&x->out, "%s(", strcmp(name, "char_length") == 0 ? "length" : name);
	if (!expr(x, floe_json_value_at(floe_json_get(v, "args"), 0), depth + 1))
		return false;
	floe_buf_putc(&x->out, ')');
	return true;
}

static bool expr(xlate *x, const floe_json_value *node, int depth)
{
	floe_slice kind;
	const floe_json_value *v = node ? floe_plan_node_unwrap(node, &kind) : NULL;
	if (!v || depth > MAX_DEPTH)
		return refuse(x, "its expression is deeper than floe reads");
	if (floe_slice_eq_cstr(kind, "ColumnRef"))
		return column_ref(x, v);
	if (floe_slice_eq_cstr(kind, "A_Const"))
		return constant(x, v);
	if (floe_slice_eq_cstr(kind, "TypeCast"))
		return type_cast(x, v, depth);
	if (floe_slice_eq_cstr(kind, "A_Expr"))
		return operator(x, v, depth);
	if (floe_slice_eq_cstr(kind, "BoolExpr"))
		return bool_expr(x, v, depth);
	if (floe_slice_eq_cstr(kind, "NullTest"))
		return null_test(x, v, depth);
	if (floe_slice_eq_cstr(kind, "FuncCall"))
		return func_call(x, v, depth);
	return refuse(x, floe_arena_printf(x->arena, "it uses %.*s, which floe does not translate", (int)kind.len,
					   kind.ptr));
}

/* `col IN (consts)` / `col = ANY (ARRAY[consts])`, casts allowed around both: accepted_values. */
static bool accepted_values(floe_plan_check *out, xlate *x, const floe_json_value *node)
{
	floe_slice kind;
	const floe_json_value *v = floe_plan_node_unwrap(node, &kind);
	const char *k = v && floe_slice_eq_cstr(kind, "A_Expr") ? floe_plan_node_str(v, "kind") : NULL;
	const floe_json_value *names = v ? floe_json_get(v, "name") : NULL;
	const char *op = floe_json_count(names) == 1
				 ? floe_plan_node_str(floe_json_get(floe_json_value_at(names, 0), "String"), "sval")
				 : NULL;
	if (!k || !op || strcmp(op, "=") != 0 || (strcmp(k, "AEXPR_OP_ANY") != 0 && strcmp(k, "AEXPR_IN") != 0))
		return false;
	const floe_json_value *items = strcmp(k, "AEXPR_IN") == 0
					       ? floe_json_get(floe_json_get(floe_json_get(v, "rexpr"), "List"), "items")
					       : array_elements(floe_json_get(v, "rexpr"));
	const floe_json_value *col = floe_plan_node_unwrap(floe_json_get(v, "lexpr"), &kind);
	if (col && floe_slice_eq_cstr(kind, "TypeCast"))
		col = floe_plan_node_unwrap(floe_json_get(col, "arg"), &kind);
	if (!items || !col || !floe_slice_eq_cstr(kind, "ColumnRef") || !column_ref(x, col))
		return false;
	size_t n = floe_json_count(items);
	const char **values = floe_arena_alloc(x->arena, sizeof(char *) * (n + 1));
	bool quote = false;
	for (size_t i = 0; i < n; i++) {
		const floe_json_value *e = floe_plan_node_unwrap(floe_json_value_at(items, i), &kind);
		if (e && floe_slice_eq_cstr(kind, "TypeCast"))
			e = floe_plan_node_unwrap(floe_json_get(e, "arg"), &kind);
		bool q, is_null;
		values[i] = e && floe_slice_eq_cstr(kind, "A_Const") ? const_text(x, e, &q, &is_null) : NULL;
		if (!values[i] || is_null || (i > 0 && q != quote))
			return false;
		quote = q;
	}
	out->kind = "accepted_values";
	out->column = x->columns[0];
	out->values = values;
	out->n_values = n;
	out->quote = quote;
	return true;
}

void floe_plan_check_classify(floe_plan_check *out, floe_arena *arena, const floe_pg_check *check,
			      const floe_pg_relation *rel)
{
	floe_json_doc *doc = NULL;
	xlate x = { arena, rel, FLOE_BUF_INIT, NULL, 0, NULL };
	memset(out, 0, sizeof(*out));
	out->name = check->name;
	out->definition = check->definition;
	if (floe_sqlparse_sql(&doc, floe_arena_printf(arena, "SELECT %s", check->expression)) < 0) {
		floe_error_clear();
		out->why_not = "PostgreSQL's grammar (libpg_query 15) does not parse its expression";
		return;
	}
	const floe_json_value *stmt = floe_json_value_at(floe_json_get(floe_json_root(doc), "stmts"), 0);
	const floe_json_value *target = floe_json_value_at(
		floe_json_get(floe_json_get(floe_json_get(stmt, "stmt"), "SelectStmt"), "targetList"), 0);
	const floe_json_value *node = floe_json_get(floe_json_get(target, "ResTarget"), "val");
	if (!accepted_values(out, &x, node)) {
		x.n_columns = 0;
		x.why = NULL;
		floe_buf_clear(&x.out);
		if (expr(&x, node, 0)) {
			out->kind = "row_rule";
			out->expression = floe_arena_strdup(arena, floe_buf_cstr(&x.out));
		} else {
			out->why_not = x.why;
		}
	}
	out->columns = x.columns;
	out->n_columns = x.n_columns;
	floe_buf_free(&x.out);
	floe_json_free(doc);
}
