/*
 * lint_int.h — the dbt project as lint reads it (project.c), shared by the rules (rules.c),
 * sqlfluff.c and render.c.
 */
#ifndef FLOE_LINT_LINT_INT_H
#define FLOE_LINT_LINT_INT_H

#include "lint/lint.h"
#include "base/arena.h"

typedef struct lint_ref {            /* ref('model') or source('name', 'table') in a model's SQL */
	const char *source;              /* NULL: a ref */
	const char *name;
	int line, col;
} lint_ref;

typedef struct lint_column {
	const char *name;
	bool described;
	int line;
} lint_column;

typedef struct lint_model {
	const char *name;                /* the SQL file's stem */
	const char *sql;                 /* its file, relative to pipeline/ */
	lint_ref *refs;
	size_t n_refs;
	const char *yml;                 /* the YAML describing it; NULL: none */
	int yml_line;
	bool described;
	lint_column *columns;
	size_t n_columns;
	int tests;                       /* tests attached (model and column level) */
	bool pk_tested;                  /* unique + not_null on one column, or a unique combination */
} lint_model;

typedef struct lint_source_table {
	const char *source, *name;
	const char *yml;
	int line;
	bool described;
	bool used;
} lint_source_table;

struct floe_lint_report {
	floe_arena *arena;
	const char *pipeline;            /* absolute pipeline/ */
	lint_model *models;
	size_t n_models, cap_models;
	lint_source_table *sources;
	size_t n_sources, cap_sources;
	floe_lint_finding *findings;
	size_t n_findings, cap_findings;
	floe_lint_coverage coverage;
	const char *sqlfluff;            /* the version that ran; NULL: it did not */
	const char *sqlfluff_note;       /* why it did not run, or its trouble */
};

void lint_add(floe_lint_report *r, const char *rule, floe_lint_severity sev, const char *file, int line, int col,
	      const char *fmt, ...) __attribute__((format(printf, 7, 8)));

/* Read pipeline/dbt/: the models (SQL and YAML) and the declared sources. */
int lint_read_project(floe_lint_report *r);

/* The rules over what was read: lineage, tests, documentation, coverage; drift against the lock. */
int lint_check_project(floe_lint_report *r);
int lint_check_drift(floe_lint_report *r);

/* sqlfluff over the models' SQL, when it is installed; its findings added as warnings. */
int lint_sqlfluff(floe_lint_report *r, const char *program);

#endif
