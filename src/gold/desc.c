/*
 * desc.c — a mart description (marts/<name>.md): the YAML front matter between two
 * `---` lines, read into named terms, and the prose after it. The `## Questions`
 * section is floe's own (written by draft.c): it is removed from the prose on reading
 * and written again, or not, on every draft.
 */
#include "gold/gold.h"
#include "yaml/yaml.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/text.h"

#include <string.h>

static const char *const keys[] = { "mart", "grain", "dimensions", "measures", "filters", NULL };

/* A node as floe reads a description: a key with nothing after it is an empty scalar. */
static bool empty(const floe_yaml_node *y)
{
	return y->kind == FLOE_YAML_SCALAR && y->len == 0;
}

static int shape(const char *file, const floe_yaml_node *y, const char *key, const char *want)
{
	return floe_error_set(FLOE_ERR_CONFIG, "\"%s\" in \"%s\" at %d:%d must be %s", key, file, y->line, y->col, want);
}

/* The term `key: value` (key NULL in a list), its text copied into `a` (the YAML tree is freed). */
static floe_gold_term term_of(floe_arena *a, const floe_yaml_node *key, const floe_yaml_node *value)
{
	return (floe_gold_term){ .name = key ? floe_arena_strdup(a, key->value) : NULL,
				 .text = floe_arena_strdup(a, value->value), .line = value->line, .col = value->col };
}

/* A mapping of names to phrases (dimensions, measures). */
static int named_terms(floe_gold_term **out, size_t *n, floe_arena *a, const char *file,
		       const floe_yaml_node *y, const char *key)
{
	*n = 0;
	if (!y || empty(y))
		return 0;
	if (y->kind != FLOE_YAML_MAPPING)
		return shape(file, y, key, "a mapping of names to phrases");
	*out = floe_arena_alloc(a, (y->n ? y->n : 1) * sizeof(**out));
	for (size_t i = 0; i < y->n; i++) {
		const floe_yaml_node *k = y->items[2 * i], *v = y->items[2 * i + 1];
		if (k->kind != FLOE_YAML_SCALAR)
			return shape(file, k, key, "a mapping whose keys are names");
		if (v->kind != FLOE_YAML_SCALAR || empty(v))
			return shape(file, v, k->value, "a phrase on one line");
		(*out)[(*n)++] = term_of(a, k, v);
	}
	return 0;
}

/* A list of phrases (grain, filters); one scalar is a list of one. */
static int listed_terms(floe_gold_term **out, size_t *n, floe_arena *a, const char *file,
			const floe_yaml_node *y, const char *key)
{
	*n = 0;
	if (!y || empty(y))
		return 0;
	if (y->kind == FLOE_YAML_MAPPING)
		return shape(file, y, key, "a list");
	size_t count = y->kind == FLOE_YAML_SEQUENCE ? y->n : 1;
	*out = floe_arena_alloc(a, (count ? count : 1) * sizeof(**out));
	for (size_t i = 0; i < count; i++) {
		const floe_yaml_node *item = y->kind == FLOE_YAML_SEQUENCE ? y->items[i] : y;
		if (item->kind != FLOE_YAML_SCALAR || empty(item))
			return shape(file, item, key, "a list of phrases, each on one line");
		(*out)[(*n)++] = term_of(a, NULL, item);
	}
	return 0;
}

static bool mart_name_ok(const char *s)
{
	if (!s[0] || strlen(s) > 63 || !((s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

static int check_keys(const char *file, const floe_yaml_node *root)
{
	for (size_t i = 0; i < root->n; i++) {
		const floe_yaml_node *key = root->items[2 * i];
		if (key->kind != FLOE_YAML_SCALAR)
			return shape(file, key, "a key", "a name");
		const char *k = key->value;
		bool known = false;
		for (size_t j = 0; keys[j]; j++)
			known = known || strcmp(keys[j], k) == 0;
		if (!known) {
			floe_error_set(FLOE_ERR_CONFIG, "unknown key \"%s\" in \"%s\" at %d:%d", k, file,
				       key->line, key->col);
			const char *s = floe_text_suggest(k, keys);
			if (s)
				floe_error_hint("Did you mean \"%s\"?", s);
			else
				floe_error_hint("A mart description has the keys mart, grain, dimensions, measures and filters.");
			return -1;
		}
	}
	return 0;
}

/* The length of the line at `at` (without its newline) and where the next one starts. */
static size_t line_end(const char *text, size_t len, size_t at, size_t *next)
{
	const char *nl = memchr(text + at, '\n', len - at);
	size_t end = nl ? (size_t)(nl - text) : len;
	*next = nl ? end + 1 : len;
	return end > at && text[end - 1] == '\r' ? end - 1 : end;
}

static bool line_is(const char *text, size_t at, size_t end, const char *what)
{
	size_t n = strlen(what);
	while (end > at && (text[end - 1] == ' ' || text[end - 1] == '\t'))
		end--;
	return end - at == n && memcmp(text + at, what, n) == 0;
}

/* A Markdown heading of level 1 or 2 ends floe's section. */
static bool heading(const char *s, size_t n)
{
	return (n >= 2 && memcmp(s, "# ", 2) == 0) || (n >= 3 && memcmp(s, "## ", 3) == 0);
}

/* The prose with floe's `## Questions` section (up to the next heading of level 1 or 2) removed. */
static const char *prose_of(floe_arena *a, const char *text, size_t len)
{
	floe_buf b = FLOE_BUF_INIT;
	bool skipping = false;
	for (size_t at = 0, next; at < len; at = next) {
		size_t end = line_end(text, len, at, &next);
		if (line_is(text, at, end, "## Questions"))
			skipping = true;
		else if (skipping && heading(text + at, end - at))
			skipping = false;
		if (!skipping)
			floe_buf_put(&b, text + at, next - at);
	}
	while (b.len && (b.ptr[b.len - 1] == '\n' || b.ptr[b.len - 1] == '\r'))
		b.len--;
	if (b.len)
		floe_buf_putc(&b, '\n');
	char *s = floe_arena_strndup(a, b.ptr ? b.ptr : "", b.len);
	floe_buf_free(&b);
	return s;
}

static int front_matter(size_t *yaml_end, size_t *body, const char *file, const char *text, size_t len)
{
	size_t next = 0, end = line_end(text, len, 0, &next);
	if (!line_is(text, 0, end, "---")) {
		floe_error_set(FLOE_ERR_CONFIG, "\"%s\" does not start with YAML front matter", file);
		floe_error_hint("Start the file with a line \"---\", the mart's keys, and a closing \"---\" line.");
		return -1;
	}
	for (size_t at = next; at < len; at = next) {
		end = line_end(text, len, at, &next);
		if (line_is(text, at, end, "---") || line_is(text, at, end, "...")) {
			*yaml_end = at;
			*body = next;
			return 0;
		}
	}
	floe_error_set(FLOE_ERR_CONFIG, "the front matter of \"%s\" has no closing \"---\" line", file);
	return -1;
}

static int read_terms(floe_gold_desc *d, floe_arena *a, const floe_yaml_node *root)
{
	const char *f = d->file;
	if (named_terms(&d->dimensions, &d->n_dimensions, a, f, floe_yaml_get(root, "dimensions"), "dimensions") < 0 ||
	    named_terms(&d->measures, &d->n_measures, a, f, floe_yaml_get(root, "measures"), "measures") < 0 ||
	    listed_terms(&d->grain, &d->n_grain, a, f, floe_yaml_get(root, "grain"), "grain") < 0 ||
	    listed_terms(&d->filters, &d->n_filters, a, f, floe_yaml_get(root, "filters"), "filters") < 0)
		return -1;
	return 0;
}

/*
 * The front matter read by libyaml (src/yaml) from the file's first line to the closing `---`:
 * the opening `---` is YAML's own document start, so lines and columns are the file's.
 */
int floe_gold_desc_parse(floe_gold_desc **out, floe_arena *a, const char *file, const char *text, size_t len)
{
	size_t yaml_end = 0, body = 0;
	floe_yaml_doc *doc = NULL;
	int error = -1;
	*out = NULL;
	const char *nul = memchr(text, '\0', len);
	if (nul)
		return floe_error_set(FLOE_ERR_CONFIG, "\"%s\" holds a NUL byte at offset %zu (not a text file)", file,
				      (size_t)(nul - text));
	if (front_matter(&yaml_end, &body, file, text, len) < 0 || floe_yaml_parse(&doc, file, text, yaml_end) < 0)
		goto cleanup;
	const floe_yaml_node *root = floe_yaml_root(doc);
	if (!root || root->kind != FLOE_YAML_MAPPING) {
		floe_error_set(FLOE_ERR_CONFIG, "the front matter of \"%s\" must be a mapping (mart, grain, dimensions, "
			       "measures, filters)", file);
		goto cleanup;
	}
	if (check_keys(file, root) < 0)
		goto cleanup;
	floe_gold_desc *d = floe_arena_alloc(a, sizeof(*d));
	d->file = floe_arena_strdup(a, file);
	const floe_yaml_node *m = floe_yaml_get(root, "mart");
	if (!m || m->kind != FLOE_YAML_SCALAR || !mart_name_ok(m->value)) {
		floe_error_set(FLOE_ERR_CONFIG, "\"%s\" names no mart", file);
		floe_error_hint("Give \"mart:\" a name of lower-case letters, digits and underscores (the table "
				"gold.<name>).");
		goto cleanup;
	}
	d->mart = floe_arena_strdup(a, m->value);
	d->mart_line = m->line;
	if (read_terms(d, a, root) < 0)
		goto cleanup;
	d->front = floe_arena_strndup(a, text, body);
	d->prose = prose_of(a, text + body, len - body);
	*out = d;
	error = 0;
cleanup:
	floe_yaml_free(doc);
	return error;
}

int floe_gold_desc_with_questions(floe_buf *out, const floe_gold_desc *d, const floe_gold_question *q, size_t n)
{
	floe_buf_puts(out, d->front);
	floe_buf_puts(out, d->prose);
	if (n == 0)
		return 0;
	if (out->len && out->ptr[out->len - 1] != '\n')
		floe_buf_putc(out, '\n');
	floe_buf_puts(out, "\n## Questions\n\n"
		      "<!-- floe gold draft writes this section: answer each question by editing the front matter "
		      "above, then draft again. -->\n\n");
	for (size_t i = 0; i < n; i++)
		floe_buf_printf(out, "%zu. `%s` (line %d): %s\n", i + 1, q[i].term, q[i].line, q[i].text);
	return 0;
}
