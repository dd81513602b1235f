/*
 * quality.c — quality/<name>.toml → floe_quality_rule (see quality.h). Every value is
 * checked where it is written; messages carry file:line:col.
 */
#include "config/quality.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/fs.h"
#include "config/toml.h"

#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define QUALITY_MAX_BYTES (4u << 20)

typedef struct kind_spec {
	const char *kind;
	const char *keys;        /* space-separated keys this kind takes beyond the common ones */
	bool needs_columns;
} kind_spec;

static const kind_spec KINDS[] = {
	{ "range", "min max", true },
	{ "regex", "pattern", true },
	{ "not_null", "", true },
	{ "accepted_values", "values", true },
	{ "row_count", "min max", false },
	{ "freshness", "max_age_seconds", true },
	{ "unique", "", true },
	{ NULL, NULL, false },
};

static const char *const COMMON_KEYS = "table kind columns severity name";

typedef struct parser {
	floe_arena *arena;
	const char *file;
	floe_quality_rule *rules;
	size_t n, cap;
} parser;

static int at(parser *p, const floe_toml_value *v, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int at(parser *p, const floe_toml_value *v, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	const char *msg = floe_arena_vprintf(p->arena, fmt, ap);
	va_end(ap);
	floe_error_set(FLOE_ERR_CONFIG, "%s:%d:%d: %s", p->file, floe_toml_line(v), floe_toml_col(v), msg);
	floe_error_hint("See docs/silver.md, \"Your own rules\", for the keys each kind takes.");
	return -1;
}

static bool word_in(const char *words, const char *w, size_t len)
{
	for (const char *s = words; *s;) {
		size_t n = strcspn(s, " ");
		if (n == len && strncmp(s, w, len) == 0)
			return true;
		s += n + (s[n] == ' ');
	}
	return false;
}

static int string_of(const char **out, parser *p, const floe_toml_value *v, const char *key)
{
	if (floe_toml_type_of(v) != FLOE_TOML_STRING)
		return at(p, v, "`%s` must be a string, not %s", key, floe_toml_type_name(floe_toml_type_of(v)));
	floe_slice s = floe_toml_string(v);
	if (s.len == 0 || memchr(s.ptr, '\0', s.len))
		return at(p, v, "`%s` must be a non-empty string without NUL", key);
	*out = floe_arena_strndup(p->arena, s.ptr, s.len);
	return 0;
}

/* A number as JSON number text: an integer, or a finite float. */
static int number_of(const char **out, parser *p, const floe_toml_value *v, const char *key, bool integer)
{
	floe_toml_type t = floe_toml_type_of(v);
	if (t == FLOE_TOML_INTEGER) {
		*out = floe_arena_printf(p->arena, "%" PRId64, floe_toml_int(v));
		return 0;
	}
	if (t == FLOE_TOML_FLOAT && !integer && isfinite(floe_toml_float(v))) {
		*out = floe_arena_printf(p->arena, "%.17g", floe_toml_float(v));
		return 0;
	}
	return at(p, v, "`%s` must be %s", key, integer ? "an integer" : "a number (integer or finite float)");
}

static int strings_of(const char ***out, size_t *n, parser *p, const floe_toml_value *v, const char *key)
{
	if (floe_toml_type_of(v) != FLOE_TOML_ARRAY || floe_toml_count(v) == 0)
		return at(p, v, "`%s` must be a non-empty array of strings", key);
	*n = floe_toml_count(v);
	*out = floe_arena_alloc(p->arena, sizeof(char *) * (*n + 1));
	for (size_t i = 0; i < *n; i++)
		if (string_of(&(*out)[i], p, floe_toml_value_at(v, i), key) < 0)
			return -1;
	return 0;
}

/* accepted_values: all strings (quoted) or all numbers. */
static int values_of(floe_quality_rule *r, parser *p, const floe_toml_value *v)
{
	size_t n = floe_toml_count(v);
	if (floe_toml_type_of(v) != FLOE_TOML_ARRAY || n == 0)
		return at(p, v, "`values` must be a non-empty array of strings or of numbers");
	r->quote = floe_toml_type_of(floe_toml_value_at(v, 0)) == FLOE_TOML_STRING;
	r->values = floe_arena_alloc(p->arena, sizeof(char *) * (n + 1));
	r->n_values = n;
	for (size_t i = 0; i < n; i++) {
		const floe_toml_value *x = floe_toml_value_at(v, i);
		bool is_string = floe_toml_type_of(x) == FLOE_TOML_STRING;
		if (is_string != r->quote)
			return at(p, x, "`values` must be all strings or all numbers");
		if ((is_string ? string_of(&r->values[i], p, x, "values")
			       : number_of(&r->values[i], p, x, "values", false)) < 0)
			return -1;
	}
	return 0;
}

static int table_of(floe_quality_rule *r, parser *p, const floe_toml_value *v)
{
	const char *t = NULL;
	if (string_of(&t, p, v, "table") < 0)
		return -1;
	const char *dot = strchr(t, '.');
	if (!dot || dot == t || !dot[1] || strchr(dot + 1, '.'))
		return at(p, v, "`table` must name a table as \"schema.table\"");
	r->schema = floe_arena_strndup(p->arena, t, (size_t)(dot - t));
	r->table = dot + 1;
	return 0;
}

static int member(floe_quality_rule *r, parser *p, const char *key, const floe_toml_value *v)
{
	if (strcmp(key, "table") == 0)
		return table_of(r, p, v);
	if (strcmp(key, "columns") == 0)
		return strings_of(&r->columns, &r->n_columns, p, v, key);
	if (strcmp(key, "name") == 0)
		return string_of(&r->name, p, v, key);
	if (strcmp(key, "pattern") == 0)
		return string_of(&r->pattern, p, v, key);
	if (strcmp(key, "values") == 0)
		return values_of(r, p, v);
	if (strcmp(key, "min") == 0 || strcmp(key, "max") == 0)
		return number_of(key[1] == 'i' ? &r->min : &r->max, p, v, key, strcmp(r->kind, "row_count") == 0);
	if (strcmp(key, "max_age_seconds") == 0) {
		if (floe_toml_type_of(v) != FLOE_TOML_INTEGER || floe_toml_int(v) < 1)
			return at(p, v, "`max_age_seconds` must be a positive integer");
		r->max_age_seconds = floe_toml_int(v);
		return 0;
	}
	if (strcmp(key, "severity") == 0) {
		if (string_of(&r->severity, p, v, key) < 0)
			return -1;
		if (strcmp(r->severity, "error") != 0 && strcmp(r->severity, "warn") != 0)
			return at(p, v, "`severity` must be \"error\" or \"warn\"");
	}
	return 0; /* kind: read first */
}

static const kind_spec *kind_of(parser *p, const floe_toml_value *rule)
{
	const floe_toml_value *k = floe_toml_get(rule, "kind");
	const char *name = NULL;
	if (!k) {
		at(p, rule, "a [[rule]] needs `kind` (range, regex, not_null, accepted_values, row_count, freshness, "
			    "unique)");
		return NULL;
	}
	if (string_of(&name, p, k, "kind") < 0)
		return NULL;
	for (const kind_spec *s = KINDS; s->kind; s++)
		if (strcmp(s->kind, name) == 0)
			return s;
	at(p, k, "unknown kind \"%s\": one of range, regex, not_null, accepted_values, row_count, freshness, unique",
	   name);
	return NULL;
}

/* What the kind needs, said at the rule. */
static int complete(floe_quality_rule *r, parser *p, const kind_spec *s, const floe_toml_value *rule)
{
	if (!r->table)
		return at(p, rule, "a [[rule]] needs `table = \"schema.table\"`");
	if (s->needs_columns && r->n_columns == 0)
		return at(p, rule, "a %s rule needs `columns`", s->kind);
	if (!s->needs_columns && r->n_columns > 0)
		return at(p, rule, "a %s rule takes no `columns`", s->kind);
	if (word_in(s->keys, "min", 3) && !r->min && !r->max)
		return at(p, rule, "a %s rule needs `min`, `max` or both", s->kind);
	if (strcmp(s->kind, "regex") == 0 && !r->pattern)
		return at(p, rule, "a regex rule needs `pattern`");
	if (strcmp(s->kind, "accepted_values") == 0 && r->n_values == 0)
		return at(p, rule, "an accepted_values rule needs `values`");
	if (strcmp(s->kind, "freshness") == 0 && r->max_age_seconds == 0)
		return at(p, rule, "a freshness rule needs `max_age_seconds`");
	if (!r->severity)
		r->severity = "error";
	return 0;
}

static int read_rule(parser *p, const floe_toml_value *rule)
{
	if (floe_toml_type_of(rule) != FLOE_TOML_TABLE)
		return at(p, rule, "each `rule` must be a table ([[rule]])");
	const kind_spec *s = kind_of(p, rule);
	if (!s)
		return -1;
	p->rules = floe_arena_grow(p->arena, p->rules, p->n, &p->cap, sizeof(*p->rules));
	floe_quality_rule *r = &p->rules[p->n++];
	memset(r, 0, sizeof(*r));
	r->file = p->file;
	r->line = floe_toml_line(rule);
	r->col = floe_toml_col(rule);
	r->kind = s->kind;
	for (size_t i = 0; i < floe_toml_count(rule); i++) {
		floe_slice k = floe_toml_key_at(rule, i);
		if (!word_in(COMMON_KEYS, k.ptr, k.len) && !word_in(s->keys, k.ptr, k.len)) {
			floe_error_set(FLOE_ERR_CONFIG, "%s:%d:%d: unknown key `%.*s` in a %s [[rule]]", p->file,
				       floe_toml_key_line_at(rule, i), floe_toml_key_col_at(rule, i), (int)k.len, k.ptr,
				       s->kind);
			floe_error_hint("A %s rule takes %s%s%s.", s->kind, COMMON_KEYS, s->keys[0] ? " " : "", s->keys);
			return -1;
		}
		const char *key = floe_arena_strndup(p->arena, k.ptr, k.len);
		if (member(r, p, key, floe_toml_value_at(rule, i)) < 0)
			return -1;
	}
	return complete(r, p, s, rule);
}

int floe_quality_parse(floe_quality_rule **out, size_t *n_out, floe_arena *arena, const char *file,
		       const char *text, size_t len)
{
	floe_toml_doc *doc = NULL;
	floe_toml_error err;
	parser p = { arena, floe_arena_strdup(arena, file), NULL, 0, 0 };
	int error = -1;
	if (floe_toml_parse(&doc, text, len, &err) < 0) {
		floe_error_set(FLOE_ERR_CONFIG, "%s:%d:%d: %s", file, err.line, err.col, err.message);
		return -1;
	}
	const floe_toml_value *root = floe_toml_root(doc);
	for (size_t i = 0; i < floe_toml_count(root); i++) {
		floe_slice k = floe_toml_key_at(root, i);
		if (!floe_slice_eq_cstr(k, "rule")) {
			floe_error_set(FLOE_ERR_CONFIG, "%s:%d:%d: unknown key `%.*s`: a quality file holds [[rule]] tables",
				       file, floe_toml_key_line_at(root, i), floe_toml_key_col_at(root, i), (int)k.len,
				       k.ptr);
			goto cleanup;
		}
	}
	const floe_toml_value *rules = floe_toml_get(root, "rule");
	if (rules && floe_toml_type_of(rules) != FLOE_TOML_ARRAY) {
		at(&p, rules, "`rule` must be an array of tables ([[rule]])");
		goto cleanup;
	}
	for (size_t i = 0; i < floe_toml_count(rules); i++)
		if (read_rule(&p, floe_toml_value_at(rules, i)) < 0)
			goto cleanup;
	error = 0;
cleanup:
	floe_toml_free(doc);
	*out = p.rules;
	*n_out = error == 0 ? p.n : 0;
	return error;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The *.toml names in `dir`, sorted; none when it does not exist. */
static int list_files(const char ***out, size_t *n, floe_arena *arena, const char *dir)
{
	size_t cap = 0;
	*out = NULL;
	*n = 0;
	DIR *d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : floe_error_set_errno(FLOE_ERR_IO, "could not read directory \"%s\"", dir);
	for (struct dirent *e; (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		if (len <= 5 || e->d_name[0] == '.' || strcmp(e->d_name + len - 5, ".toml") != 0)
			continue;
		*out = floe_arena_grow(arena, *out, *n, &cap, sizeof(char *));
		(*out)[(*n)++] = floe_arena_strdup(arena, e->d_name);
	}
	closedir(d);
	if (*n > 1)
		qsort(*out, *n, sizeof(char *), by_name);
	return 0;
}

int floe_quality_load(floe_quality_rule **out, size_t *n_out, floe_arena *arena, const char *project_dir)
{
	const char **files = NULL;
	size_t n_files = 0, cap = 0;
	floe_buf text;
	int error = -1;
	*out = NULL;
	*n_out = 0;
	floe_buf_init(&text, QUALITY_MAX_BYTES);
	if (list_files(&files, &n_files, arena, floe_arena_printf(arena, "%s/quality", project_dir)) < 0)
		goto cleanup;
	for (size_t i = 0; i < n_files; i++) {
		floe_quality_rule *rules = NULL;
		size_t n = 0;
		floe_buf_clear(&text);
		const char *rel = floe_arena_printf(arena, "quality/%s", files[i]);
		if (floe_fs_read_file(&text, floe_arena_printf(arena, "%s/%s", project_dir, rel)) < 0 ||
		    floe_quality_parse(&rules, &n, arena, rel, text.ptr ? text.ptr : "", text.len) < 0)
			goto cleanup;
		for (size_t j = 0; j < n; j++) {
			*out = floe_arena_grow(arena, *out, *n_out, &cap, sizeof(**out));
			(*out)[(*n_out)++] = rules[j];
		}
	}
	error = 0;
cleanup:
	floe_buf_free(&text);
	return error;
}
