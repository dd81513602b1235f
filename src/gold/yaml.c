/*
 * yaml.c — a recursive-descent reader of the YAML subset in yaml.h, over the text's
 * lines (blank and comment-only lines dropped up front). A block node starts at a
 * column of a line: the line's indentation, or — for a `- item` — the column after
 * the dash (`vcol`), so a mapping may begin inside a sequence item.
 */
#include "gold/yaml.h"
#include "base/arena.h"
#include "base/error.h"

#include <string.h>

#define MAX_DEPTH 64

typedef struct line {
	const char *ptr;
	size_t len;
	int no;                           /* the file's line number */
} line;

typedef struct parser {
	floe_arena *arena;
	const char *file;
	line *lines;
	size_t n, cap, i;                 /* lines[i] is the current line */
	int vcol;                         /* >= 0: the current line's node starts at this column */
	int depth;
} parser;

static int fail(parser *p, int line_no, size_t col, const char *what)
{
	return floe_error_set(FLOE_ERR_CONFIG, "%s in \"%s\" at %d:%zu", what, p->file, line_no, col + 1);
}

static floe_yaml *node(parser *p, floe_yaml_kind kind, int line_no, size_t col)
{
	floe_yaml *y = floe_arena_alloc(p->arena, sizeof(*y));
	y->kind = kind;
	y->line = line_no;
	y->col = (int)col + 1;
	return y;
}

static void push(parser *p, floe_yaml *parent, floe_yaml *key, floe_yaml *item)
{
	if (parent->n == parent->cap) {
		size_t cap = parent->cap;
		parent->keys = floe_arena_grow(p->arena, parent->keys, parent->n, &cap, sizeof(*parent->keys));
		parent->items = floe_arena_grow(p->arena, parent->items, parent->n, &parent->cap, sizeof(*parent->items));
	}
	parent->keys[parent->n] = key;
	parent->items[parent->n++] = item;
}

/* Split into lines, dropping blank and comment-only ones; a tab in the indentation is refused. */
static int split(parser *p, const char *text, size_t len, int first_line)
{
	size_t at = 0;
	for (int no = first_line; at < len; no++) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - text) : len, ll = end - at;
		if (ll && text[at + ll - 1] == '\r')
			ll--;
		size_t ind = 0;
		while (ind < ll && (text[at + ind] == ' ' || text[at + ind] == '\t')) {
			if (text[at + ind] == '\t')
				return fail(p, no, ind, "a tab in the indentation (YAML indents with spaces)");
			ind++;
		}
		if (ind < ll && text[at + ind] != '#')
			*FLOE_ARENA_PUSH(p->arena, p->lines, p->n, p->cap) = (line){ text + at, ll, no };
		at = nl ? end + 1 : len;
	}
	return 0;
}

static size_t indent_of(const line *l)
{
	size_t i = 0;
	while (i < l->len && l->ptr[i] == ' ')
		i++;
	return i;
}

/* The column the current line's node starts at; -1 past the end. */
static long cur_col(const parser *p)
{
	if (p->i >= p->n)
		return -1;
	return p->vcol >= 0 ? p->vcol : (long)indent_of(&p->lines[p->i]);
}

static void next_line(parser *p)
{
	p->i++;
	p->vcol = -1;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Only blanks and a comment remain after `at`. */
static bool rest_empty(const line *l, size_t at)
{
	while (at < l->len && is_blank(l->ptr[at]))
		at++;
	return at >= l->len || l->ptr[at] == '#';
}


/* A single- or double-quoted scalar starting at *at; *at moves past its closing quote. */
static int quoted(parser *p, floe_yaml **out, const line *l, size_t *at)
{
	char q = l->ptr[*at];
	size_t start = *at, i = start + 1;
	floe_buf b = FLOE_BUF_INIT;
	int error = -1;
	for (;; i++) {
		if (i >= l->len) {
			fail(p, l->no, start, "a quoted scalar does not close on its line");
			goto cleanup;
		}
		char c = l->ptr[i];
		if (c == q && q == '\'' && i + 1 < l->len && l->ptr[i + 1] == '\'') {
			floe_buf_putc(&b, '\'');
			i++;
		} else if (c == q) {
			break;
		} else if (c == '\\' && q == '"') {
			char e = i + 1 < l->len ? l->ptr[++i] : 0;
			const char *from = "\"\\/nt", *to = "\"\\/\n\t";
			const char *k = e ? strchr(from, e) : NULL;
			if (!k) {
				fail(p, l->no, i, "an unsupported escape in a double-quoted scalar (\\\" \\\\ \\/ \\n \\t)");
				goto cleanup;
			}
			floe_buf_putc(&b, to[k - from]);
		} else {
			floe_buf_putc(&b, c);
		}
	}
	*out = node(p, FLOE_YAML_SCALAR, l->no, start);
	(*out)->scalar = floe_arena_strndup(p->arena, b.ptr ? b.ptr : "", b.len);
	(*out)->quoted = true;
	*at = i + 1;
	error = 0;
cleanup:
	floe_buf_free(&b);
	return error;
}

static int check_plain_start(parser *p, const line *l, size_t at)
{
	char c = l->ptr[at];
	if (strchr("&*!|>%@`{?", c)) {
		const char *what = c == '{' ? "a flow mapping is not supported (write a block mapping)"
			: c == '|' || c == '>' ? "a block scalar is not supported (write the text on one line)"
			: c == '&' || c == '*' ? "anchors and aliases are not supported"
			: c == '!' ? "tags are not supported" : "a scalar may not start with this character";
		return fail(p, l->no, at, what);
	}
	return 0;
}

/* A plain scalar from *at up to a stop character (flow: , ] also stop), trailing blanks trimmed. */
static int plain(parser *p, floe_yaml **out, const line *l, size_t *at, bool flow)
{
	size_t start = *at, i = start;
	if (check_plain_start(p, l, start) < 0)
		return -1;
	for (; i < l->len; i++) {
		char c = l->ptr[i];
		if (c == '#' && i > start && is_blank(l->ptr[i - 1]))
			break;
		if (flow && (c == ',' || c == ']' || c == '['))
			break;
		if (c == ':' && (i + 1 == l->len || is_blank(l->ptr[i + 1])))
			return fail(p, l->no, i, "a mapping value is not allowed here (quote the text)");
	}
	size_t end = i;
	while (end > start && is_blank(l->ptr[end - 1]))
		end--;
	*out = node(p, FLOE_YAML_SCALAR, l->no, start);
	(*out)->scalar = floe_arena_strndup(p->arena, l->ptr + start, end - start);
	*at = i;
	return 0;
}

static void skip_blanks(const line *l, size_t *at)
{
	while (*at < l->len && is_blank(l->ptr[*at]))
		(*at)++;
}

/* A flow sequence starting at the '[' at *at, on this one line. */
static int flow_seq(parser *p, floe_yaml **out, const line *l, size_t *at)
{
	if (++p->depth > MAX_DEPTH)
		return fail(p, l->no, *at, "nesting too deep");
	floe_yaml *seq = node(p, FLOE_YAML_SEQ, l->no, *at);
	size_t i = *at + 1;
	for (;;) {
		skip_blanks(l, &i);
		if (i >= l->len)
			return fail(p, l->no, *at, "a flow sequence does not close on its line");
		if (l->ptr[i] == ']' && seq->n == 0)
			break;
		floe_yaml *item = NULL;
		char c = l->ptr[i];
		int rc = c == '[' ? flow_seq(p, &item, l, &i)
			: c == '\'' || c == '"' ? quoted(p, &item, l, &i)
			: c == ',' || c == ']' ? fail(p, l->no, i, "an empty item in a flow sequence")
			: plain(p, &item, l, &i, true);
		if (rc < 0)
			return -1;
		push(p, seq, NULL, item);
		skip_blanks(l, &i);
		if (i < l->len && l->ptr[i] == ']')
			break;
		if (i >= l->len)
			return fail(p, l->no, *at, "a flow sequence does not close on its line");
		if (l->ptr[i] != ',')
			return fail(p, l->no, i, "expected ',' or ']' in a flow sequence");
		i++;
	}
	*at = i + 1;
	*out = seq;
	p->depth--;
	return 0;
}

/* A value written on the rest of a line from `at`: flow sequence, quoted or plain scalar. */
static int inline_value(parser *p, floe_yaml **out, const line *l, size_t at)
{
	char c = l->ptr[at];
	int rc = c == '[' ? flow_seq(p, out, l, &at)
		: c == '\'' || c == '"' ? quoted(p, out, l, &at)
		: plain(p, out, l, &at, false);
	if (rc == 0 && !rest_empty(l, at))
		rc = fail(p, l->no, at, "unexpected text after a value");
	return rc;
}

/* Whether the line holds `key:` at column `col`: *key_end is the ':'. */
static bool key_at(const line *l, size_t col, size_t *key_end)
{
	size_t i = col;
	if (i < l->len && (l->ptr[i] == '\'' || l->ptr[i] == '"')) {
		char q = l->ptr[i];
		for (i++; i < l->len; i++) {
			if (l->ptr[i] == q && q == '\'' && i + 1 < l->len && l->ptr[i + 1] == '\'')
				i++;
			else if (l->ptr[i] == '\\' && q == '"')
				i++;
			else if (l->ptr[i] == q)
				break;
		}
		i++;
		skip_blanks(l, &i);
		*key_end = i;
		return i < l->len && l->ptr[i] == ':' && (i + 1 == l->len || is_blank(l->ptr[i + 1]));
	}
	if (i < l->len && strchr("[{-#", l->ptr[i]) && (l->ptr[i] != '-' || i + 1 == l->len || is_blank(l->ptr[i + 1])))
		return false;
	for (; i < l->len; i++) {
		if (l->ptr[i] == '#' && i > col && is_blank(l->ptr[i - 1]))
			return false;
		if (l->ptr[i] == ':' && (i + 1 == l->len || is_blank(l->ptr[i + 1]))) {
			*key_end = i;
			return true;
		}
	}
	return false;
}

static bool dash_at(const line *l, size_t col)
{
	return col < l->len && l->ptr[col] == '-' && (col + 1 == l->len || is_blank(l->ptr[col + 1]));
}

static int block(parser *p, floe_yaml **out, long col);

/* The value after `key:` or `- ` with nothing else on the line: a deeper block, or empty. */
static int nested(parser *p, floe_yaml **out, long parent_col, int line_no, size_t at, bool seq_same_col)
{
	long c = cur_col(p);
	if (c > parent_col || (seq_same_col && c == parent_col && dash_at(&p->lines[p->i], (size_t)c)))
		return block(p, out, c);
	*out = node(p, FLOE_YAML_SCALAR, line_no, at);
	(*out)->scalar = "";
	(*out)->empty = true;
	return 0;
}

static int key_scalar(parser *p, floe_yaml **out, const line *l, size_t col, size_t key_end)
{
	size_t at = col;
	if (l->ptr[col] == '\'' || l->ptr[col] == '"')
		return quoted(p, out, l, &at);
	if (check_plain_start(p, l, col) < 0)
		return -1;
	size_t end = key_end;
	while (end > col && is_blank(l->ptr[end - 1]))
		end--;
	*out = node(p, FLOE_YAML_SCALAR, l->no, col);
	(*out)->scalar = floe_arena_strndup(p->arena, l->ptr + col, end - col);
	return 0;
}

static int block_map(parser *p, floe_yaml **out, long col)
{
	floe_yaml *map = node(p, FLOE_YAML_MAP, p->lines[p->i].no, (size_t)col);
	while (cur_col(p) == col) {
		const line *l = &p->lines[p->i];
		size_t key_end = 0;
		floe_yaml *key = NULL, *value = NULL;
		if (!key_at(l, (size_t)col, &key_end))
			return fail(p, l->no, (size_t)col, "expected 'key: value' in a mapping");
		if (key_scalar(p, &key, l, (size_t)col, key_end) < 0)
			return -1;
		if (floe_yaml_get(map, key->scalar))
			return fail(p, l->no, (size_t)col, "a duplicate key");
		size_t at = key_end + 1;
		skip_blanks(l, &at);
		if (!rest_empty(l, at)) {
			if (inline_value(p, &value, l, at) < 0)
				return -1;
			next_line(p);
		} else {
			next_line(p);
			if (nested(p, &value, col, l->no, key_end + 1, true) < 0)
				return -1;
		}
		push(p, map, key, value);
	}
	*out = map;
	return 0;
}

static int block_seq(parser *p, floe_yaml **out, long col)
{
	floe_yaml *seq = node(p, FLOE_YAML_SEQ, p->lines[p->i].no, (size_t)col);
	while (cur_col(p) == col && dash_at(&p->lines[p->i], (size_t)col)) {
		const line *l = &p->lines[p->i];
		size_t at = (size_t)col + 1;
		skip_blanks(l, &at);
		floe_yaml *item = NULL;
		if (rest_empty(l, at)) {
			next_line(p);
			if (nested(p, &item, col, l->no, (size_t)col, false) < 0)
				return -1;
		} else {
			p->vcol = (int)at;
			if (block(p, &item, (long)at) < 0)
				return -1;
		}
		push(p, seq, NULL, item);
	}
	*out = seq;
	return 0;
}

/* The block node starting at column `col` of the current line. */
static int block(parser *p, floe_yaml **out, long col)
{
	const line *l = &p->lines[p->i];
	size_t key_end = 0;
	int rc;
	if (++p->depth > MAX_DEPTH)
		return fail(p, l->no, (size_t)col, "nesting too deep");
	if (dash_at(l, (size_t)col))
		rc = block_seq(p, out, col);
	else if (key_at(l, (size_t)col, &key_end))
		rc = block_map(p, out, col);
	else if ((rc = inline_value(p, out, l, (size_t)col)) == 0)
		next_line(p);
	p->depth--;
	return rc;
}

int floe_yaml_parse(floe_yaml **out, floe_arena *arena, const char *file, int first_line, const char *text,
		    size_t len)
{
	parser p = { .arena = arena, .file = file, .vcol = -1 };
	*out = NULL;
	if (split(&p, text, len, first_line) < 0)
		return -1;
	if (p.n == 0) {
		*out = node(&p, FLOE_YAML_MAP, first_line, 0);
		return 0;
	}
	if (indent_of(&p.lines[0]) != 0)
		return fail(&p, p.lines[0].no, 0, "the document must start at column 1");
	if (block(&p, out, 0) < 0)
		return -1;
	if (p.i < p.n) {
		const line *l = &p.lines[p.i];
		return fail(&p, l->no, (size_t)cur_col(&p), "unexpected indentation or text after the document");
	}
	return 0;
}

const floe_yaml *floe_yaml_get(const floe_yaml *map, const char *key)
{
	if (!map || map->kind != FLOE_YAML_MAP)
		return NULL;
	for (size_t i = 0; i < map->n; i++)
		if (strcmp(map->keys[i]->scalar, key) == 0)
			return map->items[i];
	return NULL;
}
