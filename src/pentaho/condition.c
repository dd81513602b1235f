/*
 * condition.c — FilterRows conditions as SQL. Kettle compares with NULL as the smallest
 * value (NULL = NULL is true, NULL < 5 is true), evaluates nested conditions left to
 * right without precedence, and a condition never yields NULL; the SQL written keeps
 * all three, so the false branch (NOT cond) holds exactly the other rows.
 */
#include "pentaho/pentaho_int.h"

#include <string.h>
#include <strings.h>

static const char *right_side(pt_trans *t, const floe_kettle_node *c)
{
	const char *field = floe_kettle_text(c, "rightvalue");
	if (*field)
		return pt_ident(t, field);
	const floe_kettle_node *v = floe_kettle_child(c, "value");
	if (!v || floe_kettle_yes(v, "isnull"))
		return "NULL";
	return pt_typed_lit(t, floe_kettle_text(v, "type"), floe_kettle_text(v, "text"));
}

static const char *in_list(pt_trans *t, const char *l, const floe_kettle_node *c)
{
	const floe_kettle_node *v = floe_kettle_child(c, "value");
	const char *list = v ? floe_kettle_text(v, "text") : "";
	floe_buf b = FLOE_BUF_INIT;
	floe_buf_printf(&b, "%s in (", l);
	for (const char *p = list;;) {
		const char *semi = strchr(p, ';');
		size_t n = semi ? (size_t)(semi - p) : strlen(p);
		floe_buf_printf(&b, "%s%s", p == list ? "" : ", ", pt_lit(t, floe_arena_strndup(t->a, p, n)));
		if (!semi)
			break;
		p = semi + 1;
	}
	floe_buf_putc(&b, ')');
	const char *r = floe_arena_strdup(t->a, floe_buf_cstr(&b));
	floe_buf_free(&b);
	return r;
}

/* One comparison, never NULL. */
static const char *atom(pt_trans *t, const floe_kettle_node *c, const char **why)
{
	const char *fn = floe_kettle_text(c, "function");
	const char *l = pt_ident(t, floe_kettle_text(c, "leftvalue"));
	if (strcmp(fn, "TRUE") == 0)
		return "true";
	if (strcmp(fn, "IS NULL") == 0)
		return floe_arena_printf(t->a, "(%s is null)", l);
	if (strcmp(fn, "IS NOT NULL") == 0)
		return floe_arena_printf(t->a, "(%s is not null)", l);
	const char *r = right_side(t, c);
	static const struct {
		const char *fn, *fmt;
	} ops[] = {
		{ "=", "(%1$s is not distinct from %2$s)" },
		{ "<>", "(%1$s is distinct from %2$s)" },
		{ "<", "coalesce(%1$s < %2$s, %1$s is null and %2$s is not null)" },
		{ "<=", "coalesce(%1$s <= %2$s, %1$s is null)" },
		{ ">", "coalesce(%1$s > %2$s, %1$s is not null and %2$s is null)" },
		{ ">=", "coalesce(%1$s >= %2$s, %2$s is null)" },
		{ "REGEXP", "coalesce(regexp_full_match(%1$s, %2$s), false)" },
		{ "CONTAINS", "coalesce(contains(cast(%1$s as varchar), %2$s), false)" },
		{ "STARTS WITH", "coalesce(starts_with(cast(%1$s as varchar), %2$s), false)" },
		{ "ENDS WITH", "coalesce(ends_with(cast(%1$s as varchar), %2$s), false)" },
		{ "LIKE", "coalesce(cast(%1$s as varchar) like %2$s, false)" },
	};
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strcmp(fn, ops[i].fn) == 0)
			return floe_arena_printf(t->a, ops[i].fmt, l, r);
	if (strcmp(fn, "IN LIST") == 0)
		return floe_arena_printf(t->a, "coalesce(%s, false)", in_list(t, l, c));
	*why = floe_arena_printf(t->a, "condition function \"%s\" is not translated", fn);
	return NULL;
}

static const char *combine(pt_trans *t, const char *acc, const char *op, const char *next, const char **why)
{
	if (!*op || strcmp(op, "-") == 0 || strcasecmp(op, "NONE") == 0 || strcasecmp(op, "AND") == 0)
		return floe_arena_printf(t->a, "(%s and %s)", acc, next);
	if (strcasecmp(op, "OR") == 0)
		return floe_arena_printf(t->a, "(%s or %s)", acc, next);
	if (strcasecmp(op, "AND NOT") == 0)
		return floe_arena_printf(t->a, "(%s and not %s)", acc, next);
	if (strcasecmp(op, "OR NOT") == 0)
		return floe_arena_printf(t->a, "(%s or not %s)", acc, next);
	if (strcasecmp(op, "XOR") == 0)
		return floe_arena_printf(t->a, "(%s <> %s)", acc, next);
	*why = floe_arena_printf(t->a, "condition operator \"%s\" is not translated", op);
	return NULL;
}

const char *pt_condition(pt_trans *t, const floe_kettle_node *cond, const char **why)
{
	if (!cond)
		return "true";
	const floe_kettle_node *list = floe_kettle_child(cond, "conditions");
	const char *sql = NULL;
	if (list && list->n_children) {
		for (size_t i = 0; i < list->n_children && (i == 0 || sql); i++) {
			const char *next = pt_condition(t, list->children[i], why);
			if (!next)
				return NULL;
			sql = i == 0 ? next : combine(t, sql, floe_kettle_text(list->children[i], "operator"), next, why);
		}
	} else if (*floe_kettle_text(cond, "leftvalue") || strcmp(floe_kettle_text(cond, "function"), "TRUE") == 0) {
		sql = atom(t, cond, why);
	} else {
		sql = "true"; /* an empty condition lets every row through */
	}
	if (sql && floe_kettle_yes(cond, "negated"))
		sql = floe_arena_printf(t->a, "(not %s)", sql);
	return sql;
}
