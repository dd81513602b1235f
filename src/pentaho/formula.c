/*
 * formula.c — the Formula step's expressions (Pentaho's LibFormula, OpenFormula syntax):
 * [field], "text", numbers, operators (= <> < <= > >= & + - * / ^), parentheses and the
 * common functions, parsed by recursive descent into DuckDB SQL. An expression that does
 * not parse, or uses a function not listed here, is reported, never guessed.
 */
#include "pentaho/pentaho_int.h"

#include <string.h>
#include <strings.h>

typedef struct fp {
	pt_trans *t;
	const char *s;
	const char *why;
} fp;

static const char *expr(fp *p);

static void skip(fp *p)
{
	while (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r')
		p->s++;
}

static bool eat(fp *p, const char *tok)
{
	skip(p);
	size_t n = strlen(tok);
	if (strncmp(p->s, tok, n) != 0)
		return false;
	p->s += n;
	return true;
}

static const char *fail(fp *p, const char *why)
{
	if (!p->why)
		p->why = floe_arena_printf(p->t->a, "does not parse: %s at \"%.20s\"", why, p->s);
	return NULL;
}

static const struct {
	const char *name;
	int n_args;              /* -1: any number */
	const char *fmt;         /* %1$s … the arguments; for n_args -1 a joiner */
} fns[] = {
	{ "IF", 3, "(case when %1$s then %2$s else %3$s end)" }, { "NOT", 1, "(not %1$s)" },
	{ "UPPER", 1, "upper(%1$s)" }, { "LOWER", 1, "lower(%1$s)" }, { "LEN", 1, "length(%1$s)" },
	{ "TRIM", 1, "trim(%1$s)" }, { "ABS", 1, "abs(%1$s)" }, { "ROUND", 2, "round(%1$s, %2$s)" },
	{ "ISBLANK", 1, "(%1$s is null or cast(%1$s as varchar) = '')" }, { "LEFT", 2, "left(%1$s, %2$s)" },
	{ "RIGHT", 2, "right(%1$s, %2$s)" }, { "MID", 3, "substr(%1$s, %2$s, %3$s)" },
	{ "TODAY", 0, "current_date" }, { "NOW", 0, "now()" }, { "TRUE", 0, "true" }, { "FALSE", 0, "false" },
	{ "AND", -1, " and " }, { "OR", -1, " or " }, { "CONCATENATE", -1, " || " },
	{ "ISNULL", 1, "(%1$s is null)" }, { "MOD", 2, "(%1$s %% %2$s)" }, { "SQRT", 1, "sqrt(%1$s)" },
};

static const char *call(fp *p, const char *name, size_t n)
{
	const char *args[8] = { 0 };
	int nargs = 0;
	if (!eat(p, ")")) {
		do {
			if (nargs == 8)
				return fail(p, "too many arguments");
			if (!(args[nargs++] = expr(p)))
				return NULL;
		} while (eat(p, ";"));
		if (!eat(p, ")"))
			return fail(p, "expected )");
	}
	for (size_t k = 0; k < sizeof(fns) / sizeof(fns[0]); k++) {
		if (strlen(fns[k].name) != n || strncasecmp(fns[k].name, name, n) != 0)
			continue;
		if (fns[k].n_args >= 0) {
			if (nargs != fns[k].n_args)
				return fail(p, "wrong number of arguments");
			return floe_arena_printf(p->t->a, fns[k].fmt, args[0], args[1], args[2]);
		}
		floe_buf b = FLOE_BUF_INIT;
		for (int a = 0; a < nargs; a++)
			floe_buf_printf(&b, "%s%s", a ? fns[k].fmt : "(", args[a]);
		floe_buf_putc(&b, ')');
		const char *r = floe_arena_strdup(p->t->a, floe_buf_cstr(&b));
		floe_buf_free(&b);
		return nargs ? r : fail(p, "no arguments");
	}
	if (!p->why)
		p->why = floe_arena_printf(p->t->a, "uses function %.*s, which is not translated", (int)n, name);
	return NULL;
}

static const char *primary(fp *p)
{
	skip(p);
	const char *s = p->s;
	if (eat(p, "(")) {
		const char *e = expr(p);
		return e && eat(p, ")") ? floe_arena_printf(p->t->a, "(%s)", e) : fail(p, "expected )");
	}
	if (*s == '[' || *s == '"') {
		const char *end = strchr(s + 1, *s == '[' ? ']' : '"');
		if (!end)
			return fail(p, "unterminated name or text");
		p->s = end + 1;
		const char *v = floe_arena_strndup(p->t->a, s + 1, (size_t)(end - s - 1));
		return *s == '[' ? pt_ident(p->t, v) : pt_lit(p->t, v);
	}
	if ((*s >= '0' && *s <= '9') || *s == '.') {
		while ((*p->s >= '0' && *p->s <= '9') || *p->s == '.')
			p->s++;
		return floe_arena_strndup(p->t->a, s, (size_t)(p->s - s));
	}
	if ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z')) {
		while ((*p->s >= 'A' && *p->s <= 'Z') || (*p->s >= 'a' && *p->s <= 'z') || (*p->s >= '0' && *p->s <= '9'))
			p->s++;
		size_t n = (size_t)(p->s - s);
		return eat(p, "(") ? call(p, s, n) : fail(p, "expected ( after a function name");
	}
	return fail(p, "unexpected character");
}

static const char *unary(fp *p)
{
	if (eat(p, "-")) {
		const char *e = unary(p);
		return e ? floe_arena_printf(p->t->a, "(-%s)", e) : NULL;
	}
	const char *e = primary(p);
	while (e && eat(p, "^")) {
		const char *r = primary(p);
		e = r ? floe_arena_printf(p->t->a, "power(%s, %s)", e, r) : NULL;
	}
	return e;
}

/* One precedence level: operands of `next` joined by the operators in `ops` (longest first). */
static const char *level(fp *p, const char *(*next)(fp *), const char *const *ops, const char *const *sql)
{
	const char *e = next(p);
	for (bool more = e != NULL; more;) {
		more = false;
		for (size_t k = 0; ops[k]; k++)
			if (eat(p, ops[k])) {
				const char *r = next(p);
				e = r ? floe_arena_printf(p->t->a, "(%s %s %s)", e, sql[k], r) : NULL;
				more = e != NULL;
				break;
			}
	}
	return e;
}

static const char *mul(fp *p)
{
	static const char *const ops[] = { "*", "/", NULL }, *const sql[] = { "*", "/" };
	return level(p, unary, ops, sql);
}

static const char *add(fp *p)
{
	static const char *const ops[] = { "+", "-", NULL }, *const sql[] = { "+", "-" };
	return level(p, mul, ops, sql);
}

static const char *concat(fp *p)
{
	static const char *const ops[] = { "&", NULL }, *const sql[] = { "||" };
	return level(p, add, ops, sql);
}

static const char *expr(fp *p)
{
	static const char *const ops[] = { "<>", "<=", ">=", "=", "<", ">", NULL };
	static const char *const sql[] = { "<>", "<=", ">=", "=", "<", ">" };
	return level(p, concat, ops, sql);
}

const char *pt_formula(pt_trans *t, const char *formula, const char **why)
{
	fp p = { .t = t, .s = formula };
	const char *e = expr(&p);
	skip(&p);
	if (e && *p.s)
		e = fail(&p, "unexpected text after the expression");
	*why = p.why;
	return e;
}
