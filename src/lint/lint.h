/*
 * lint.h — `floe check --lint`: what is wrong or missing in the pipeline repository.
 *
 * Reads pipeline/dbt/ (dbt_project.yml, every model's SQL and the YAML beside it) and
 * pipeline/lakehouse.lock.json, and reports findings, each with file:line:
 *   lineage        unresolved_ref, unresolved_source (errors: the model cannot build),
 *                  unused_sources, yaml_without_model
 *   tests          untested_models, missing_primary_key_tests; coverage figures
 *   documentation  undocumented_models, undocumented_source_tables, undocumented_columns;
 *                  coverage figures
 *   drift          a generated file edited by hand or deleted since `floe generate`
 *   sqlfluff/<code> SQL style from sqlfluff (dialect duckdb) when it is installed
 * Rule names and the coverage formulas are dbt-project-evaluator's (fct_test_coverage,
 * fct_documentation_coverage, fct_undocumented_models, fct_unused_sources, ...); the column
 * rule is dbt-checkpoint's check-model-columns-have-desc. docs/lint.md.
 */
#ifndef FLOE_LINT_LINT_H
#define FLOE_LINT_LINT_H

#include "base/buf.h"
#include "config/config.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum floe_lint_severity {
	FLOE_LINT_WARN = 0,
	FLOE_LINT_ERROR
} floe_lint_severity;

typedef struct floe_lint_finding {
	const char *rule;
	floe_lint_severity severity;
	const char *file;           /* relative to pipeline/ */
	int line, col;              /* 1-based; 0: the whole file */
	const char *message;
} floe_lint_finding;

/* dbt-project-evaluator's figures over the project's models, plus columns. */
typedef struct floe_lint_coverage {
	int total_models;
	int tested_models;          /* models with at least one test attached */
	int total_tests;            /* tests attached to models */
	int documented_models;      /* models with a non-blank description */
	int total_columns;          /* columns the models' YAML lists */
	int documented_columns;
} floe_lint_coverage;

typedef struct floe_lint_report floe_lint_report;

typedef struct floe_lint_opts {
	const char *sqlfluff;       /* the sqlfluff program; NULL: $FLOE_SQLFLUFF, else "sqlfluff" on PATH */
} floe_lint_opts;

#define FLOE_LINT_OPTS_INIT { .sqlfluff = NULL }

/* Lint the project's pipeline/. Errors: a pipeline that cannot be read (no dbt project, bad YAML). */
int floe_lint_run(floe_lint_report **out, const floe_config *config, const floe_lint_opts *opts);
void floe_lint_report_free(floe_lint_report *report);

size_t floe_lint_count(const floe_lint_report *report);
const floe_lint_finding *floe_lint_at(const floe_lint_report *report, size_t i);
const floe_lint_coverage *floe_lint_coverage_of(const floe_lint_report *report);
size_t floe_lint_errors(const floe_lint_report *report);

int floe_lint_render_text(floe_buf *out, const floe_lint_report *report);
int floe_lint_render_json(floe_buf *out, const floe_lint_report *report);

#endif
