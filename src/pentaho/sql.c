/*
 * sql.c — the pieces every step translator writes with: identifiers, literals and
 * types in DuckDB's SQL, Jinja-safe text, the relations a step reads, CTE definitions,
 * and the status a step ends with.
 */
#include "pentaho/pentaho_int.h"
#include "base/text.h"

#include <stdarg.h>
#include <string.h>
#include <strings.h>

void pt_mark(pt_trans *t, size_t i, floe_pentaho_status status, const char *fmt, ...)
{
	pt_step *s = &t->steps[i];
	va_list ap;
	va_start(ap, fmt);
	const char *why = floe_arena_vprintf(t->a, fmt, ap);
	va_end(ap);
	if (status > s->status)
		s->status = status;
	s->reason = s->reason ? floe_arena_printf(t->a, "%s; %s", s->reason, why) : why;
}

void pt_put_jinja_safe(floe_buf *out, const char *s)
{
	for (; *s; s++) {
		if (s[0] == '{' && (s[1] == '{' || s[1] == '%' || s[1] == '#'))
			floe_buf_puts(out, "{{ '{' }}");
		else
			floe_buf_putc(out, *s);
	}
}

static const char *quoted(pt_trans *t, const char *s, char q)
{
	floe_buf b = FLOE_BUF_INIT, safe = FLOE_BUF_INIT;
	floe_buf_put_quoted(&b, s, q);
	pt_put_jinja_safe(&safe, floe_buf_cstr(&b));
	const char *r = floe_arena_strdup(t->a, floe_buf_cstr(&safe));
	floe_buf_free(&b);
	floe_buf_free(&safe);
	return r;
}

const char *pt_ident(pt_trans *t, const char *name)
{
	return quoted(t, name, '"');
}

const char *pt_lit(pt_trans *t, const char *text)
{
	return quoted(t, text, '\'');
}

static const struct {
	const char *kettle, *sql;
} types[] = {
	{ "String", "VARCHAR" }, { "Integer", "BIGINT" }, { "Number", "DOUBLE" },
	{ "BigNumber", "DECIMAL(38,10)" }, { "Date", "TIMESTAMP" }, { "Timestamp", "TIMESTAMP" },
	{ "Boolean", "BOOLEAN" }, { "Binary", "BLOB" }, { "Internet Address", "VARCHAR" },
};

const char *pt_sql_type(const char *kettle_type)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strcasecmp(kettle_type, types[i].kettle) == 0)
			return types[i].sql;
	return NULL;
}

const char *pt_typed_lit(pt_trans *t, const char *type, const char *text)
{
	const char *sql = pt_sql_type(type);
	if (!sql || strcmp(sql, "VARCHAR") == 0)
		return pt_lit(t, text);
	return floe_arena_printf(t->a, "cast(%s as %s)", pt_lit(t, text), sql);
}

const char *pt_number(pt_trans *t, size_t i, const char *what, const char *text, const char *fallback)
{
	int64_t v = 0;
	if (!*text)
		return fallback;
	if (floe_text_parse_int64(&v, text, strlen(text), INT64_MIN / 2, INT64_MAX / 2) == 0)
		return floe_arena_printf(t->a, "%lld", (long long)v);
	pt_mark(t, i, FLOE_PENTAHO_UNMAPPED, "%s \"%s\" is not a whole number", what, text);
	return fallback;
}

const char *pt_edge_rel(pt_trans *t, size_t from, size_t to)
{
	pt_step *s = &t->steps[from];
	const floe_kettle_node *n = t->f->steps[from].node;
	for (size_t b = 0; b < s->n_branch; b++)
		if (strcmp(s->branches[b].to, t->f->steps[to].name) == 0)
			return s->branches[b].rel;
	if (s->rel[1] && strcmp(floe_kettle_text(n, "send_false_to"), t->f->steps[to].name) == 0)
		return s->rel[1];
	return s->rel[0];
}

static bool is_info(const floe_kettle_file *f, size_t from, const char *const *info)
{
	for (size_t k = 0; info && info[k]; k++)
		if (strcmp(f->steps[from].name, info[k]) == 0)
			return true;
	return false;
}

const char *pt_main_input(pt_trans *t, size_t i, const char *const *info)
{
	const floe_kettle_file *f = t->f;
	const char *first = NULL;
	floe_buf u = FLOE_BUF_INIT;
	size_t n = 0;
	for (size_t h = 0; h < f->n_hops; h++) {
		if (f->hops[h].to != i || is_info(f, f->hops[h].from, info))
			continue;
		const char *rel = pt_edge_rel(t, f->hops[h].from, i);
		floe_buf_printf(&u, "%sselect * from %s", n++ ? "\n    union all by name\n    " : "    ", rel);
		first = first ? first : rel;
	}
	const char *r = n > 1 ? pt_cte(t, i, "in", "%s", floe_buf_cstr(&u)) : first;
	floe_buf_free(&u);
	return r;
}

/* A lower-case identifier made of the name's letters and digits (at most 40). */
static void put_slug(floe_buf *out, const char *name)
{
	size_t n = 0;
	bool sep = false;
	for (const char *p = name; *p && n < 40; p++) {
		char c = *p;
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z')) {
			if (sep && n)
				floe_buf_putc(out, '_'), n++;
			floe_buf_putc(out, (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c));
			n++;
			sep = false;
		} else {
			sep = true;
		}
	}
}

const char *pt_cte(pt_trans *t, size_t i, const char *suffix, const char *fmt, ...)
{
	floe_buf name = FLOE_BUF_INIT;
	floe_buf_printf(&name, "s%zu_", i + 1);
	put_slug(&name, t->f->steps[i].name);
	if (suffix)
		floe_buf_printf(&name, "__%s", suffix);
	const char *rel = floe_arena_strdup(t->a, floe_buf_cstr(&name));
	va_list ap;
	va_start(ap, fmt);
	floe_buf_printf(&t->steps[i].sql, "%s as (\n", rel);
	floe_buf_vprintf(&t->steps[i].sql, fmt, ap);
	floe_buf_puts(&t->steps[i].sql, "\n),\n");
	va_end(ap);
	floe_buf_free(&name);
	return rel;
}

const char *pt_input_sorted(pt_trans *t, size_t i)
{
	const char *sorted = NULL;
	size_t n = 0;
	for (size_t h = 0; h < t->f->n_hops; h++)
		if (t->f->hops[h].to == i) {
			sorted = t->steps[t->f->hops[h].from].sorted_by;
			n++;
		}
	return n == 1 ? sorted : NULL; /* a union of streams has no order */
}

const char *pt_slug(floe_arena *a, const char *name)
{
	floe_buf b = FLOE_BUF_INIT;
	put_slug(&b, name);
	const char *r = floe_arena_strdup(a, b.len ? floe_buf_cstr(&b) : "x");
	floe_buf_free(&b);
	return r;
}

const char *pt_field_list(pt_trans *t, const char *fields, const char *suffix)
{
	floe_buf b = FLOE_BUF_INIT;
	for (const char *p = fields; *p;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		floe_buf_printf(&b, "%s%s%s", b.len ? ", " : "", pt_ident(t, floe_arena_strndup(t->a, p, n)), suffix);
		p += n + (comma ? 1 : 0);
	}
	const char *r = floe_arena_strdup(t->a, floe_buf_cstr(&b));
	floe_buf_free(&b);
	return r;
}
