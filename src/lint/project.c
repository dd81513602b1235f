/*
 * project.c — pipeline/dbt/ as dbt sees it, for the rules: every .sql under the model paths
 * (dbt_project.yml `model-paths`, default models) is a model named by its file's stem, with
 * the ref() and source() calls of its SQL; every .yml there may describe models (`models:`,
 * with columns and data_tests/tests) and declare sources (`sources:` with tables). A test
 * is attached to the model whose YAML entry holds it, as dbt's attached_node.
 */
#include "lint/lint_int.h"
#include "base/error.h"
#include "base/fs.h"
#include "yaml/yaml.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Files under `rel` (relative to pipeline/), depth first, sorted, appended to *files. */
static void walk(floe_lint_report *r, const char *rel, const char ***files, size_t *n, size_t *cap)
{
	const char *path = floe_arena_printf(r->arena, "%s/%s", r->pipeline, rel);
	DIR *dir = opendir(path);
	const char **names = NULL;
	size_t nn = 0, ncap = 0;
	if (!dir)
		return;
	for (struct dirent *e; (e = readdir(dir));) {
		if (e->d_name[0] == '.')
			continue;
		names = floe_arena_grow(r->arena, names, nn, &ncap, sizeof(*names));
		names[nn++] = floe_arena_strdup(r->arena, e->d_name);
	}
	closedir(dir);
	if (nn)
		qsort(names, nn, sizeof(*names), cmp_str);
	for (size_t i = 0; i < nn; i++) {
		const char *child = floe_arena_printf(r->arena, "%s/%s", rel, names[i]);
		if (floe_fs_is_dir(floe_arena_printf(r->arena, "%s/%s", r->pipeline, child))) {
			walk(r, child, files, n, cap);
			continue;
		}
		*files = floe_arena_grow(r->arena, *files, *n, cap, sizeof(**files));
		(*files)[(*n)++] = child;
	}
}

static const char *read_text(floe_lint_report *r, const char *rel)
{
	floe_buf b = FLOE_BUF_INIT;
	const char *out = NULL;
	if (floe_fs_read_file(&b, floe_arena_printf(r->arena, "%s/%s", r->pipeline, rel)) == 0)
		out = floe_arena_strndup(r->arena, b.ptr ? b.ptr : "", b.len);
	floe_buf_free(&b);
	return out;
}

/* ---- SQL: ref() and source() ---- */

/* A quoted string literal at *p ('x' or "x"); NULL when there is none. */
static const char *literal(floe_arena *a, const char **p)
{
	const char *s = *p;
	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	if (*s != '\'' && *s != '"')
		return NULL;
	const char *end = strchr(s + 1, *s);
	if (!end)
		return NULL;
	*p = end + 1;
	return floe_arena_strndup(a, s + 1, (size_t)(end - s - 1));
}

/* The string arguments of a call whose "(" is at *p: up to two, before any keyword argument. */
static size_t call_args(floe_arena *a, const char *p, const char *args[2])
{
	size_t n = 0;
	p++;
	while (n < 2 && (args[n] = literal(a, &p))) {
		n++;
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (*p != ',')
			break;
		p++;
	}
	return n;
}

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static void scan_sql(floe_lint_report *r, lint_model *m, const char *text)
{
	size_t cap = 0;
	int line = 1;
	const char *line_start = text;
	for (const char *p = text; *p; p++) {
		if (*p == '\n') {
			line++;
			line_start = p + 1;
			continue;
		}
		bool is_ref = strncmp(p, "ref", 3) == 0, is_source = strncmp(p, "source", 6) == 0;
		if ((!is_ref && !is_source) || (p > text && ident_char(p[-1])))
			continue;
		const char *q = p + (is_ref ? 3 : 6);
		while (*q == ' ')
			q++;
		const char *args[2] = { NULL, NULL };
		size_t n = *q == '(' ? call_args(r->arena, q, args) : 0;
		if (n == 0 || (is_source && n < 2))
			continue;
		m->refs = floe_arena_grow(r->arena, m->refs, m->n_refs, &cap, sizeof(*m->refs));
		m->refs[m->n_refs++] = (lint_ref){ is_source ? args[0] : NULL, args[n - 1], line,
						    (int)(p - line_start) + 1 };
	}
}

static void add_model(floe_lint_report *r, const char *rel)
{
	const char *text = read_text(r, rel), *base = strrchr(rel, '/');
	base = base ? base + 1 : rel;
	r->models = floe_arena_grow(r->arena, r->models, r->n_models, &r->cap_models, sizeof(*r->models));
	lint_model *m = &r->models[r->n_models++];
	memset(m, 0, sizeof(*m));
	m->name = floe_arena_strndup(r->arena, base, strlen(base) - 4);
	m->sql = rel;
	if (text)
		scan_sql(r, m, text);
}

/* ---- YAML: models and sources (names copied into the report's arena: the document is freed) ---- */

static bool described(const floe_yaml_node *entry)
{
	const char *d = floe_yaml_text(floe_yaml_get(entry, "description"));
	for (; d && *d; d++)
		if (*d != ' ' && *d != '\t' && *d != '\n' && *d != '\r')
			return true;
	return false;
}

/* The generic test's name: a bare item ("unique"), or a mapping's key ({relationships: ...}). */
static const char *test_kind(const floe_yaml_node *t)
{
	if (t->kind == FLOE_YAML_SCALAR)
		return t->value;
	if (t->kind != FLOE_YAML_MAPPING || t->n == 0)
		return "";
	const char *tn = floe_yaml_text(floe_yaml_get(t, "test_name"));
	return tn ? tn : floe_yaml_text(t->items[0]) ? floe_yaml_text(t->items[0]) : "";
}

static const floe_yaml_node *tests_of(const floe_yaml_node *entry)
{
	const floe_yaml_node *t = floe_yaml_get(entry, "data_tests");
	return t ? t : floe_yaml_get(entry, "tests");
}

static void column_tests(lint_model *m, const floe_yaml_node *col)
{
	const floe_yaml_node *tests = tests_of(col);
	bool unique = false, not_null = false;
	for (size_t i = 0; i < floe_yaml_count(tests); i++) {
		const char *k = test_kind(floe_yaml_at(tests, i));
		unique |= ends_with(k, "unique");
		not_null |= ends_with(k, "not_null");
	}
	m->tests += (int)floe_yaml_count(tests);
	m->pk_tested |= unique && not_null;
}

static lint_model *model_named(floe_lint_report *r, const char *name)
{
	for (size_t i = 0; i < r->n_models; i++)
		if (strcmp(r->models[i].name, name) == 0)
			return &r->models[i];
	return NULL;
}

static void read_model_entry(floe_lint_report *r, const char *rel, const floe_yaml_node *entry)
{
	const char *name = floe_yaml_text(floe_yaml_get(entry, "name"));
	lint_model *m = name ? model_named(r, name) : NULL;
	if (!m) {
		lint_add(r, "yaml_without_model", FLOE_LINT_WARN, rel, entry->line, entry->col,
			 "the YAML describes model '%s', but no models/**/%s.sql exists", name ? name : "",
			 name ? name : "");
		return;
	}
	const floe_yaml_node *cols = floe_yaml_get(entry, "columns"), *tests = tests_of(entry);
	size_t cap = 0;
	m->yml = rel;
	m->yml_line = entry->line;
	m->described = described(entry);
	for (size_t i = 0; i < floe_yaml_count(cols); i++) {
		const floe_yaml_node *c = floe_yaml_at(cols, i);
		m->columns = floe_arena_grow(r->arena, m->columns, m->n_columns, &cap, sizeof(*m->columns));
		const char *cname = floe_yaml_text(floe_yaml_get(c, "name"));
		m->columns[m->n_columns++] = (lint_column){ floe_arena_strdup(r->arena, cname ? cname : ""), described(c),
							     c->line };
		column_tests(m, c);
	}
	for (size_t i = 0; i < floe_yaml_count(tests); i++)
		m->pk_tested |= strstr(test_kind(floe_yaml_at(tests, i)), "unique_combination") != NULL;
	m->tests += (int)floe_yaml_count(tests);
}

static void read_source_entry(floe_lint_report *r, const char *rel, const floe_yaml_node *src)
{
	const char *name = floe_yaml_text(floe_yaml_get(src, "name"));
	const floe_yaml_node *tables = floe_yaml_get(src, "tables");
	for (size_t i = 0; name && i < floe_yaml_count(tables); i++) {
		const floe_yaml_node *t = floe_yaml_at(tables, i);
		const char *tname = floe_yaml_text(floe_yaml_get(t, "name"));
		if (!tname)
			continue;
		r->sources = floe_arena_grow(r->arena, r->sources, r->n_sources, &r->cap_sources,
					     sizeof(*r->sources));
		r->sources[r->n_sources++] = (lint_source_table){ floe_arena_strdup(r->arena, name),
								   floe_arena_strdup(r->arena, tname), rel, t->line,
								   described(t), false };
	}
}

static int read_yaml(floe_lint_report *r, const char *rel)
{
	const char *text = read_text(r, rel);
	floe_yaml_doc *doc = NULL;
	if (!text)
		return floe_error_context("while reading pipeline/%s", rel);
	if (floe_yaml_parse(&doc, rel, text, strlen(text)) < 0)
		return -1;
	const floe_yaml_node *root = floe_yaml_root(doc), *models = floe_yaml_get(root, "models"),
			     *sources = floe_yaml_get(root, "sources");
	for (size_t i = 0; i < floe_yaml_count(models); i++)
		read_model_entry(r, rel, floe_yaml_at(models, i));
	for (size_t i = 0; i < floe_yaml_count(sources); i++)
		read_source_entry(r, rel, floe_yaml_at(sources, i));
	floe_yaml_free(doc);
	return 0;
}

/* dbt_project.yml's model-paths (default ["models"]), relative to pipeline/. */
static int model_paths(floe_lint_report *r, const char ***out, size_t *n)
{
	const char *text = read_text(r, "dbt/dbt_project.yml");
	floe_yaml_doc *doc = NULL;
	if (!text) {
		floe_error_set(FLOE_ERR_CONFIG, "no dbt project in %s/dbt (dbt_project.yml is missing)", r->pipeline);
		floe_error_hint("Run `floe generate` to write the pipeline.");
		return -1;
	}
	if (floe_yaml_parse(&doc, "dbt/dbt_project.yml", text, strlen(text)) < 0)
		return -1;
	const floe_yaml_node *paths = floe_yaml_get(floe_yaml_root(doc), "model-paths");
	size_t count = floe_yaml_count(paths);
	*out = floe_arena_alloc(r->arena, (count ? count : 1) * sizeof(**out));
	*n = 0;
	for (size_t i = 0; i < count; i++)
		if (floe_yaml_text(floe_yaml_at(paths, i)))
			(*out)[(*n)++] = floe_arena_printf(r->arena, "dbt/%s", floe_yaml_text(floe_yaml_at(paths, i)));
	if (*n == 0)
		(*out)[(*n)++] = "dbt/models";
	floe_yaml_free(doc);
	return 0;
}

int lint_read_project(floe_lint_report *r)
{
	const char **roots = NULL, **files = NULL;
	size_t n_roots = 0, n = 0, cap = 0;
	if (model_paths(r, &roots, &n_roots) < 0)
		return -1;
	for (size_t i = 0; i < n_roots; i++)
		walk(r, roots[i], &files, &n, &cap);
	for (size_t i = 0; i < n; i++)
		if (ends_with(files[i], ".sql"))
			add_model(r, files[i]);
	for (size_t i = 0; i < n; i++)
		if ((ends_with(files[i], ".yml") || ends_with(files[i], ".yaml")) && read_yaml(r, files[i]) < 0)
			return -1;
	return 0;
}
