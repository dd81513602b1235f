/*
 * desc.c — a mart description (marts/<name>.md): the YAML front matter between two
 * `---` lines, read into named terms, and the prose after it. The `## Questions`
 * section is floe's own (written by draft.c): it is removed from the prose on reading
 * and written again, or not, on every draft.
 */
#include "gold/gold.h"
#include "gold/yaml.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/text.h"

#include <string.h>

static const char *const keys[] = { "mart", "grain", "dimensions", "measures", "filters", NULL };

static int shape(const char *file, const floe_yaml *y, const char *key, const char *want)
{
	return floe_error_set(FLOE_ERR_CONFIG, "\"%s\" in \"%s\" at %d:%d must be %s", key, file, y->line, y->col, want);
}

static floe_gold_term term_of(const floe_yaml *key, const floe_yaml *value)
{
	return (floe_gold_term){ .name = key ? key->scalar : NULL, .text = value->scalar, .line = value->line,
				 .col = value->col };
}

/* A name of the mart or of one of its columns: lower case, digits, underscores, at most 63 bytes. */
static bool mart_name_ok(const char *s)
{
	if (!s[0] || strlen(s) > 63 || !((s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

/* A mapping of names to phrases (dimensions, measures). */
static int named_terms(floe_gold_term **out, size_t *n, floe_arena *a, const char *file, const floe_yaml *y,
		       const char *key)
{
	*n = 0;
	if (!y || (y->kind == FLOE_YAML_SCALAR && y->empty))
		return 0;
	if (y->kind != FLOE_YAML_MAP)
		return shape(file, y, key, "a mapping of names to phrases");
	*out = floe_arena_alloc(a, (y->n ? y->n : 1) * sizeof(**out));
	for (size_t i = 0; i < y->n; i++) {
		if (!mart_name_ok(y->keys[i]->scalar))
			return shape(file, y->keys[i], y->keys[i]->scalar,
				     "a name of lower-case letters, digits and underscores (it names a column of the mart)");
		if (y->items[i]->kind != FLOE_YAML_SCALAR || y->items[i]->empty)
			return shape(file, y->items[i], y->keys[i]->scalar, "a phrase on one line");
		(*out)[(*n)++] = term_of(y->keys[i], y->items[i]);
	}
	return 0;
}

/* A list of phrases (grain, filters); one scalar is a list of one. */
static int listed_terms(floe_gold_term **out, size_t *n, floe_arena *a, const char *file, const floe_yaml *y,
			const char *key)
{
	*n = 0;
	if (!y || (y->kind == FLOE_YAML_SCALAR && y->empty))
		return 0;
	if (y->kind == FLOE_YAML_MAP)
		return shape(file, y, key, "a list");
	size_t count = y->kind == FLOE_YAML_SEQ ? y->n : 1;
	*out = floe_arena_alloc(a, (count ? count : 1) * sizeof(**out));
	for (size_t i = 0; i < count; i++) {
		const floe_yaml *item = y->kind == FLOE_YAML_SEQ ? y->items[i] : y;
		if (item->kind != FLOE_YAML_SCALAR || item->empty)
			return shape(file, item, key, "a list of phrases, each on one line");
		(*out)[(*n)++] = term_of(NULL, item);
	}
	return 0;
}


static int check_keys(const char *file, const floe_yaml *root)
{
	for (size_t i = 0; i < root->n; i++) {
		const char *k = root->keys[i]->scalar;
		bool known = false;
		for (size_t j = 0; keys[j]; j++)
			known = known || strcmp(keys[j], k) == 0;
		if (!known) {
			floe_error_set(FLOE_ERR_CONFIG, "unknown key \"%s\" in \"%s\" at %d:%d", k, file,
				       root->keys[i]->line, root->keys[i]->col);
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

static int read_terms(floe_gold_desc *d, floe_arena *a, const floe_yaml *root)
{
	const char *f = d->file;
	if (named_terms(&d->dimensions, &d->n_dimensions, a, f, floe_yaml_get(root, "dimensions"), "dimensions") < 0 ||
	    named_terms(&d->measures, &d->n_measures, a, f, floe_yaml_get(root, "measures"), "measures") < 0 ||
	    listed_terms(&d->grain, &d->n_grain, a, f, floe_yaml_get(root, "grain"), "grain") < 0 ||
	    listed_terms(&d->filters, &d->n_filters, a, f, floe_yaml_get(root, "filters"), "filters") < 0)
		return -1;
	return 0;
}

int floe_gold_desc_parse(floe_gold_desc **out, floe_arena *a, const char *file, const char *text, size_t len)
{
	size_t yaml_end = 0, body = 0, first = 0;
	floe_yaml *root = NULL;
	*out = NULL;
	const char *nul = memchr(text, '\0', len);
	if (nul)
		return floe_error_set(FLOE_ERR_CONFIG, "\"%s\" holds a NUL byte at offset %zu (not a text file)", file,
				      (size_t)(nul - text));
	if (front_matter(&yaml_end, &body, file, text, len) < 0)
		return -1;
	line_end(text, len, 0, &first);
	if (floe_yaml_parse(&root, a, file, 2, text + first, yaml_end - first) < 0)
		return -1;
	if (root->kind != FLOE_YAML_MAP)
		return shape(file, root, "the front matter", "a mapping (mart, grain, dimensions, measures, filters)");
	if (check_keys(file, root) < 0)
		return -1;
	floe_gold_desc *d = floe_arena_alloc(a, sizeof(*d));
	d->file = floe_arena_strdup(a, file);
	const floe_yaml *m = floe_yaml_get(root, "mart");
	if (!m || m->kind != FLOE_YAML_SCALAR || !mart_name_ok(m->scalar)) {
		floe_error_set(FLOE_ERR_CONFIG, "\"%s\" names no mart", file);
		floe_error_hint("Give \"mart:\" a name of lower-case letters, digits and underscores (the table "
				"gold.<name>).");
		return -1;
	}
	d->mart = m->scalar;
	d->mart_line = m->line;
	if (read_terms(d, a, root) < 0)
		return -1;
	d->front = floe_arena_strndup(a, text, body);
	d->prose = prose_of(a, text + body, len - body);
	*out = d;
	return 0;
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
