/*
 * lint.c — `floe check --lint`: read the pipeline's dbt project, apply the rules, run sqlfluff,
 * and keep the findings in file order.
 */
#include "lint/lint_int.h"
#include "base/error.h"
#include "base/fs.h"

#include <stdlib.h>
#include <string.h>

static int cmp_finding(const void *a, const void *b)
{
	const floe_lint_finding *x = a, *y = b;
	int c = strcmp(x->file, y->file);
	if (c == 0)
		c = x->line - y->line;
	if (c == 0)
		c = x->col - y->col;
	return c ? c : strcmp(x->rule, y->rule);
}

int floe_lint_run(floe_lint_report **out, const floe_config *config, const floe_lint_opts *opts)
{
	floe_lint_report *r = floe_xcalloc(1, sizeof(*r));
	floe_buf dir = FLOE_BUF_INIT;
	int error = -1;
	*out = NULL;
	r->arena = floe_arena_new();
	floe_fs_join(&dir, config->project_dir, FLOE_PIPELINE_DIR);
	r->pipeline = floe_arena_strdup(r->arena, floe_buf_cstr(&dir));
	if (lint_read_project(r) < 0 || lint_check_project(r) < 0 || lint_check_drift(r) < 0 ||
	    lint_sqlfluff(r, opts ? opts->sqlfluff : NULL) < 0)
		goto cleanup;
	if (r->n_findings > 1)
		qsort(r->findings, r->n_findings, sizeof(*r->findings), cmp_finding);
	*out = r;
	r = NULL;
	error = 0;
cleanup:
	if (error < 0)
		floe_error_context("while linting %s", floe_buf_cstr(&dir));
	floe_buf_free(&dir);
	floe_lint_report_free(r);
	return error;
}

void floe_lint_report_free(floe_lint_report *report)
{
	if (!report)
		return;
	floe_arena_free(report->arena);
	free(report);
}

size_t floe_lint_count(const floe_lint_report *report)
{
	return report->n_findings;
}

const floe_lint_finding *floe_lint_at(const floe_lint_report *report, size_t i)
{
	return i < report->n_findings ? &report->findings[i] : NULL;
}

const floe_lint_coverage *floe_lint_coverage_of(const floe_lint_report *report)
{
	return &report->coverage;
}

size_t floe_lint_errors(const floe_lint_report *report)
{
	size_t n = 0;
	for (size_t i = 0; i < report->n_findings; i++)
		n += report->findings[i].severity == FLOE_LINT_ERROR;
	return n;
}
