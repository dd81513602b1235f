/*
 * render.c — the Jinja subset of the generated dbt models, rendered by floe.
 *
 * A model is SQL with tags: {{ expression }}, {% statement %}, {# comment #}, each
 * optionally trimming the whitespace before it ('{{-', '{%-', '{#-') or after it
 * ('-}}', '-%}', '-#}'), as Jinja does. Only the constructs silver.h lists are
 * rendered; any other tag fails naming itself, the file and its line:col, so a
 * model floe cannot run as dbt would is never run differently.
 */
#include "silver/silver.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/text.h"

#include <stdlib.h>
#include <string.h>

#define MAX_IF_DEPTH 32
#define QUOTED_MAX 60

typedef enum tok_kind { T_END, T_NAME, T_STRING, T_PUNCT, T_BAD } tok_kind;

typedef struct tok {
	tok_kind kind;
	const char *p;      /* T_NAME: the name; T_STRING: the raw body between the quotes */
	size_t n;
	char c;             /* T_PUNCT */
} tok;

/* One tag being parsed: its inner text and where it sits in the file. */
typedef struct tag {
	const char *text;   /* the model */
	size_t start, end;  /* the whole tag, delimiters included */
	const char *in;     /* inner text */
	size_t in_len, pos;
} tag;

typedef struct renderer {
	const char *text;
	size_t len;
	const floe_silver_render_opts *opts;
	floe_silver_model_config *config;
	floe_arena *arena;
	floe_buf *out;
	struct {
		bool value, in_else;
		size_t at;
	} ifs[MAX_IF_DEPTH];
	int depth;
} renderer;

/* 1-based line and column (in bytes) of offset `at`. */
static void line_col(const char *text, size_t at, int *line, int *col)
{
	*line = 1, *col = 1;
	for (size_t i = 0; i < at; i++) {
		if (text[i] == '\n')
			(*line)++, *col = 1;
		else
			(*col)++;
	}
}

/* Fail naming the tag at [start, end) as `what`, with `detail`. Always -1. */
static int fail_at(const renderer *r, size_t start, size_t end, const char *what, const char *detail)
{
	int line, col;
	floe_buf quoted = FLOE_BUF_INIT;
	size_t n = end - start > QUOTED_MAX ? QUOTED_MAX : end - start;
	char *raw = floe_xstrndup(r->text + start, n);
	floe_text_put_printable(&quoted, raw);
	floe_buf_puts(&quoted, n < end - start ? "…" : "");
	line_col(r->text, start, &line, &col);
	floe_error_set(FLOE_ERR_CONFIG, "%s \"%s\" in %s at %d:%d", what, floe_buf_cstr(&quoted),
		       r->opts->file ? r->opts->file : "the model", line, col);
	floe_error_detail("%s", detail);
	floe_error_hint("floe renders only {{ config(…) }}, {{ source('bronze', '…') }}, {{ ref('…') }}, "
			"{{ this }}, {%% if is_incremental() %%} … {%% else %%} … {%% endif %%} and {# comments #}: "
			"rewrite the model with these, or run it with dbt.");
	free(raw);
	floe_buf_free(&quoted);
	return -1;
}

static int unsupported(const renderer *r, const tag *t, const char *detail)
{
	return fail_at(r, t->start, t->end, "unsupported Jinja construct", detail);
}

static bool is_name_char(char c, bool first)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (!first && c >= '0' && c <= '9');
}

/* The next token of the tag's inner text. A string has no escapes: a backslash is a T_BAD. */
static tok next(tag *t)
{
	tok k = { T_END, NULL, 0, 0 };
	while (t->pos < t->in_len && strchr(" \t\r\n", t->in[t->pos]))
		t->pos++;
	if (t->pos >= t->in_len)
		return k;
	const char *p = t->in + t->pos;
	size_t rest = t->in_len - t->pos, n = 1;
	if (is_name_char(*p, true)) {
		while (n < rest && is_name_char(p[n], false))
			n++;
		k = (tok){ T_NAME, p, n, 0 };
	} else if (*p == '\'' || *p == '"') {
		while (n < rest && p[n] != *p && p[n] != '\\' && p[n] != '\n')
			n++;
		k = n < rest && p[n] == *p ? (tok){ T_STRING, p + 1, n - 1, 0 } : (tok){ T_BAD, p, n, 0 };
		n++;
	} else if (strchr("()[],=", *p)) {
		k = (tok){ T_PUNCT, p, 1, *p };
	} else {
		k = (tok){ T_BAD, p, 1, 0 };
	}
	t->pos += n;
	return k;
}

static bool is_punct(tok k, char c)
{
	return k.kind == T_PUNCT && k.c == c;
}

static bool is_name(tok k, const char *name)
{
	return k.kind == T_NAME && strlen(name) == k.n && memcmp(k.p, name, k.n) == 0;
}

static const char *str_of(renderer *r, tok k)
{
	return floe_arena_strndup(r->arena, k.p, k.n);
}

/* A list of strings after its '[': strings separated by commas, a trailing comma allowed. */
static int parse_list(renderer *r, tag *t, floe_silver_config_item *item)
{
	size_t cap = 0;
	tok k = next(t);
	while (k.kind == T_STRING) {
		*FLOE_ARENA_PUSH(r->arena, item->list, item->n_list, cap) = str_of(r, k);
		k = next(t);
		if (is_punct(k, ','))
			k = next(t);
		else
			break;
	}
	return is_punct(k, ']') ? 0 : unsupported(r, t, "A config list holds only quoted strings.");
}

/* Keep `item` in the config (replacing an earlier value of its key) and the typed fields. */
static void config_keep(renderer *r, const floe_silver_config_item *item)
{
	floe_silver_model_config *c = r->config;
	size_t i = 0;
	while (i < c->n_items && strcmp(c->items[i].key, item->key) != 0)
		i++;
	if (i == c->n_items)
		*FLOE_ARENA_PUSH(r->arena, c->items, c->n_items, c->cap_items) = *item;
	else
		c->items[i] = *item;
	if (strcmp(item->key, "materialized") == 0 && item->kind == FLOE_SILVER_STRING)
		c->materialized = item->string;
	if (strcmp(item->key, "unique_key") == 0 && item->kind == FLOE_SILVER_STRING) {
		c->unique_key = floe_arena_alloc(r->arena, sizeof(char *));
		c->unique_key[0] = item->string, c->n_unique_key = 1;
	} else if (strcmp(item->key, "unique_key") == 0 && item->kind == FLOE_SILVER_LIST) {
		c->unique_key = item->list, c->n_unique_key = item->n_list;
	}
}

/* config(key=value, …) after its name: keyword arguments only, literal values only. */
static int parse_config(renderer *r, tag *t)
{
	tok k = next(t);
	if (!is_punct(k, '('))
		return unsupported(r, t, "config is called as config(key=value, …).");
	k = next(t);
	while (k.kind == T_NAME) {
		floe_silver_config_item item = { .key = str_of(r, k) };
		if (!is_punct(next(t), '='))
			return unsupported(r, t, "config takes keyword arguments only (key=value).");
		tok v = next(t);
		if (v.kind == T_STRING)
			item.kind = FLOE_SILVER_STRING, item.string = str_of(r, v);
		else if (is_name(v, "True") || is_name(v, "true") || is_name(v, "False") || is_name(v, "false"))
			item.kind = FLOE_SILVER_BOOL, item.flag = v.p[0] == 'T' || v.p[0] == 't';
		else if (is_punct(v, '[')) {
			item.kind = FLOE_SILVER_LIST;
			if (parse_list(r, t, &item) < 0)
				return -1;
		} else
			return unsupported(r, t, "A config value is a quoted string, a list of them, True or False.");
		config_keep(r, &item);
		k = next(t);
		if (!is_punct(k, ','))
			break;
		k = next(t);
	}
	if (!is_punct(k, ')') || next(t).kind != T_END)
		return unsupported(r, t, "config is called as config(key=value, …), alone in its tag.");
	return 0;
}

/* name(arguments) after the name: `n` quoted strings separated by commas, alone in the tag. */
static int parse_call(renderer *r, tag *t, tok *args, size_t n, const char *usage)
{
	if (!is_punct(next(t), '('))
		return unsupported(r, t, usage);
	for (size_t i = 0; i < n; i++) {
		args[i] = next(t);
		if (args[i].kind != T_STRING || (i + 1 < n && !is_punct(next(t), ',')))
			return unsupported(r, t, usage);
	}
	if (!is_punct(next(t), ')') || next(t).kind != T_END)
		return unsupported(r, t, usage);
	return 0;
}

static bool emitting(const renderer *r)
{
	for (int i = 0; i < r->depth; i++)
		if (r->ifs[i].value == r->ifs[i].in_else)
			return false;
	return true;
}

static int emit_relation(renderer *r, const tag *t, const char *relation, const char *what)
{
	if (!relation)
		return fail_at(r, t->start, t->end, "unknown relation", what);
	if (emitting(r))
		floe_buf_puts(r->out, relation);
	return 0;
}

/* {{ … }}: config, source, ref or this. */
static int expression(renderer *r, tag *t)
{
	tok name = next(t), args[2];
	const floe_silver_render_opts *o = r->opts;
	if (is_name(name, "config"))
		return parse_config(r, t);
	if (is_name(name, "source")) {
		if (parse_call(r, t, args, 2, "source is called as source('bronze', 'table').") < 0)
			return -1;
		const char *s = str_of(r, args[0]), *n = str_of(r, args[1]);
		return emit_relation(r, t, o->source ? o->source(o->ctx, s, n) : NULL,
				     "The source names no bronze table of the deployed plan (pipeline/lakehouse.lock.json).");
	}
	if (is_name(name, "ref")) {
		if (parse_call(r, t, args, 1, "ref is called as ref('model').") < 0)
			return -1;
		return emit_relation(r, t, o->ref ? o->ref(o->ctx, str_of(r, args[0])) : NULL,
				     "The ref names no silver model floe builds.");
	}
	if (is_name(name, "this") && next(t).kind == T_END)
		return emit_relation(r, t, o->this_relation, "{{ this }} has no table here.");
	return unsupported(r, t, "Only config(…), source(…), ref(…) and this are rendered in {{ … }}.");
}

/* {% … %}: if is_incremental(), else, endif. */
static int statement(renderer *r, tag *t)
{
	tok k = next(t);
	if (is_name(k, "if")) {
		if (!is_name(next(t), "is_incremental") || !is_punct(next(t), '(') || !is_punct(next(t), ')') ||
		    next(t).kind != T_END)
			return unsupported(r, t, "The only condition is is_incremental().");
		if (r->depth == MAX_IF_DEPTH)
			return unsupported(r, t, "Ifs nest at most 32 deep.");
		r->ifs[r->depth].value = r->opts->incremental;
		r->ifs[r->depth].in_else = false;
		r->ifs[r->depth++].at = t->start;
		return 0;
	}
	bool is_else = is_name(k, "else"), is_endif = is_name(k, "endif");
	if ((!is_else && !is_endif) || next(t).kind != T_END)
		return unsupported(r, t, "Only {% if is_incremental() %}, {% else %} and {% endif %} are rendered.");
	if (r->depth == 0 || (is_else && r->ifs[r->depth - 1].in_else))
		return unsupported(r, t, is_else ? "This else belongs to no if." : "This endif closes no if.");
	if (is_else)
		r->ifs[r->depth - 1].in_else = true;
	else
		r->depth--;
	return 0;
}

/* Where the tag opened at `open` ends (just past its closing delimiter), skipping quoted strings. */
static size_t find_close(const renderer *r, size_t open, char kind)
{
	char quote = 0;
	for (size_t i = open + 2; i + 1 < r->len; i++) {
		char c = r->text[i];
		if (quote)
			quote = c == quote || c == '\n' ? 0 : quote;
		else if (kind != '#' && (c == '\'' || c == '"'))
			quote = c;
		else if (c == (kind == '{' ? '}' : kind) && r->text[i + 1] == '}')
			return i + 2;
	}
	return 0;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* The next tag's opening at or after `from`, or r->len. */
static size_t find_open(const renderer *r, size_t from)
{
	for (size_t i = from; i + 1 < r->len; i++)
		if (r->text[i] == '{' && r->text[i + 1] && strchr("{%#", r->text[i + 1]))
			return i;
	return r->len;
}

/* One tag at `open`: parsed and rendered; *trim_after set by its '-' before the close. */
static int one_tag(renderer *r, size_t open, size_t *end, bool *trim_after)
{
	char kind = r->text[open + 1];
	size_t close = find_close(r, open, kind);
	if (close == 0)
		return fail_at(r, open, open + 2, "unclosed Jinja tag", "The tag has no closing delimiter.");
	tag t = { r->text, open, close, r->text + open + 2, close - open - 4, 0 };
	if (t.in_len > 0 && t.in[0] == '-')
		t.in++, t.in_len--;
	*trim_after = t.in_len > 0 && t.in[t.in_len - 1] == '-';
	if (*trim_after)
		t.in_len--;
	*end = close;
	if (kind == '#')
		return 0;
	return kind == '{' ? expression(r, &t) : statement(r, &t);
}

static int render_all(renderer *r)
{
	size_t pos = 0;
	bool trim = false;
	while (pos < r->len) {
		size_t open = find_open(r, pos), lit_end = open;
		if (trim)
			while (pos < open && is_space(r->text[pos]))
				pos++;
		if (open + 2 < r->len && r->text[open + 2] == '-')
			while (lit_end > pos && is_space(r->text[lit_end - 1]))
				lit_end--;
		if (emitting(r))
			floe_buf_put(r->out, r->text + pos, lit_end - pos);
		if (open == r->len)
			break;
		if (one_tag(r, open, &pos, &trim) < 0)
			return -1;
	}
	if (r->depth > 0)
		return fail_at(r, r->ifs[r->depth - 1].at, r->ifs[r->depth - 1].at + 2, "unclosed Jinja if",
			       "This {% if %} has no {% endif %}.");
	return 0;
}

int floe_silver_render(floe_buf *out, floe_silver_model_config *config, floe_arena *arena, const char *text,
		       size_t len, const floe_silver_render_opts *opts)
{
	renderer r = { .text = text, .len = len, .opts = opts, .config = config, .arena = arena, .out = out };
	memset(config, 0, sizeof(*config));
	if (memchr(text, '\0', len)) {
		floe_error_set(FLOE_ERR_CONFIG, "model %s holds a NUL byte", opts->file ? opts->file : "");
		floe_error_hint("A model is SQL text: restore it (floe generate rewrites a generated one).");
		return -1;
	}
	return render_all(&r);
}
