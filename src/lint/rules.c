/*
 * rules.c — the findings over the project lint read (project.c) and the coverage figures,
 * with dbt-project-evaluator's names and formulas:
 *   test_coverage_pct          = round(tested_models * 100 / total_models, 2)
 *   test_to_model_ratio        = round(total_tests / total_models, 4)
 *   documentation_coverage_pct = round(documented_models * 100 / total_models, 2)
 * (models/marts/tests/fct_test_coverage.sql, models/marts/documentation/
 * fct_documentation_coverage.sql); a model is tested when a test is attached to it, described
 * when its description is not blank. Drift compares each generated file with the hash the lock
 * recorded for what floe wrote.
 */
#include "lint/lint_int.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/sha256.h"
#include "plan/lock.h"

#include <stdarg.h>
#include <string.h>

void lint_add(floe_lint_report *r, const char *rule, floe_lint_severity sev, const char *file, int line, int col,
	      const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	r->findings = floe_arena_grow(r->arena, r->findings, r->n_findings, &r->cap_findings,
				      sizeof(*r->findings));
	r->findings[r->n_findings++] = (floe_lint_finding){ rule, sev, file, line, col,
							     floe_arena_vprintf(r->arena, fmt, ap) };
	va_end(ap);
}

static bool is_model(const floe_lint_report *r, const char *name)
{
	for (size_t i = 0; i < r->n_models; i++)
		if (strcmp(r->models[i].name, name) == 0)
			return true;
	return false;
}

static lint_source_table *source_table(floe_lint_report *r, const char *source, const char *name)
{
	for (size_t i = 0; i < r->n_sources; i++)
		if (strcmp(r->sources[i].source, source) == 0 && strcmp(r->sources[i].name, name) == 0)
			return &r->sources[i];
	return NULL;
}

/* Every ref() names a model, every source() a declared source table; unused sources. */
static void lineage(floe_lint_report *r)
{
	for (size_t i = 0; i < r->n_models; i++) {
		const lint_model *m = &r->models[i];
		for (size_t j = 0; j < m->n_refs; j++) {
			const lint_ref *x = &m->refs[j];
			lint_source_table *s = x->source ? source_table(r, x->source, x->name) : NULL;
			if (s)
				s->used = true;
			else if (x->source)
				lint_add(r, "unresolved_source", FLOE_LINT_ERROR, m->sql, x->line, x->col,
					 "source('%s', '%s') is declared in no sources YAML", x->source, x->name);
			else if (!is_model(r, x->name))
				lint_add(r, "unresolved_ref", FLOE_LINT_ERROR, m->sql, x->line, x->col,
					 "ref('%s') names no model of the project", x->name);
		}
	}
	for (size_t i = 0; i < r->n_sources; i++)
		if (!r->sources[i].used)
			lint_add(r, "unused_sources", FLOE_LINT_WARN, r->sources[i].yml, r->sources[i].line, 0,
				 "source table %s.%s is read by no model", r->sources[i].source, r->sources[i].name);
}

static void model_findings(floe_lint_report *r, const lint_model *m)
{
	const char *file = m->yml ? m->yml : m->sql;
	int line = m->yml ? m->yml_line : 1;
	if (m->tests == 0)
		lint_add(r, "untested_models", FLOE_LINT_WARN, file, line, 0, "model %s has no tests", m->name);
	if (!m->pk_tested)
		lint_add(r, "missing_primary_key_tests", FLOE_LINT_WARN, file, line, 0,
			 "model %s has no primary key test (unique and not_null on one column, or a unique combination)",
			 m->name);
	if (!m->described)
		lint_add(r, "undocumented_models", FLOE_LINT_WARN, file, line, 0, "model %s has no description",
			 m->name);
	for (size_t i = 0; i < m->n_columns; i++)
		if (!m->columns[i].described)
			lint_add(r, "undocumented_columns", FLOE_LINT_WARN, m->yml, m->columns[i].line, 0,
				 "column %s.%s has no description", m->name, m->columns[i].name);
}

int lint_check_project(floe_lint_report *r)
{
	floe_lint_coverage *c = &r->coverage;
	lineage(r);
	for (size_t i = 0; i < r->n_models; i++) {
		const lint_model *m = &r->models[i];
		model_findings(r, m);
		c->total_models++;
		c->tested_models += m->tests > 0;
		c->total_tests += m->tests;
		c->documented_models += m->described;
		c->total_columns += (int)m->n_columns;
		for (size_t j = 0; j < m->n_columns; j++)
			c->documented_columns += m->columns[j].described;
	}
	for (size_t i = 0; i < r->n_sources; i++)
		if (!r->sources[i].described)
			lint_add(r, "undocumented_source_tables", FLOE_LINT_WARN, r->sources[i].yml, r->sources[i].line, 0,
				 "source table %s.%s has no description", r->sources[i].source, r->sources[i].name);
	return 0;
}

static void drift_of(floe_lint_report *r, const floe_lock_file *f)
{
	const char *path = floe_arena_printf(r->arena, "%s/%s", r->pipeline, f->path);
	floe_buf text = FLOE_BUF_INIT;
	char hex[FLOE_SHA256_HEX_LEN + 1];
	if (!floe_fs_exists(path)) {
		lint_add(r, "drift", FLOE_LINT_WARN, floe_arena_strdup(r->arena, f->path), 0, 0, "deleted since `floe generate` wrote it (it writes it again)");
	} else if (floe_fs_read_file(&text, path) == 0) {
		floe_sha256_hex(hex, text.ptr ? text.ptr : "", text.len);
		if (strcmp(hex, f->sha256) != 0)
			lint_add(r, "drift", FLOE_LINT_WARN, floe_arena_strdup(r->arena, f->path), 1, 0,
				 "edited by hand since `floe generate` wrote it (kept; delete it to have it written again)");
	}
	floe_error_clear();
	floe_buf_free(&text);
}

int lint_check_drift(floe_lint_report *r)
{
	floe_lock *lock = NULL;
	if (floe_lock_load(&lock, floe_arena_printf(r->arena, "%s/%s", r->pipeline, FLOE_LOCK_FILE)) < 0)
		return -1;
	for (size_t i = 0; i < floe_lock_count(lock); i++) {
		const floe_lock_table *t = floe_lock_at(lock, i);
		for (size_t j = 0; j < t->n_files; j++)
			drift_of(r, &t->files[j]);
	}
	for (size_t i = 0; i < floe_lock_project_file_count(lock); i++)
		drift_of(r, floe_lock_project_file_at(lock, i));
	floe_lock_free(lock);
	return 0;
}
