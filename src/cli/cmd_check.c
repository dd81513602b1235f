/*
 * cmd_check.c — `floe check --lint [--json]`: the pipeline repository's lint report (src/lint/).
 */
#include "cli/cli.h"
#include "base/error.h"
#include "lint/lint.h"

static const floe_cli_option options[] = {
	{ "lint", 0, NULL, "lint the pipeline repository: lineage, tests, documentation, drift, SQL style" },
	{ "json", 0, NULL, "print as JSON" },
	{ NULL, 0, NULL, NULL },
};

static int run(floe_cli_ctx *ctx)
{
	floe_config *config = NULL;
	floe_lint_report *report = NULL;
	floe_lint_opts opts = FLOE_LINT_OPTS_INIT;
	floe_buf out = FLOE_BUF_INIT;
	int rc = -1;
	if (!floe_cli_flag(ctx, "lint")) {
		floe_error_set(FLOE_ERR_USAGE, "floe check needs --lint");
		floe_error_hint("Run `floe check --lint`; the other checks are `floe reconcile` and `floe status`.");
		goto cleanup;
	}
	if (floe_cli_load_config(&config, ctx) < 0 || floe_lint_run(&report, config, &opts) < 0)
		goto cleanup;
	if (floe_cli_flag(ctx, "json"))
		floe_lint_render_json(&out, report);
	else
		floe_lint_render_text(&out, report);
	floe_cli_out(&out);
	rc = floe_lint_errors(report) ? 1 : 0;
cleanup:
	floe_lint_report_free(report);
	floe_config_free(config);
	floe_buf_free(&out);
	return rc;
}

const floe_cli_command floe_cmd_check = {
	.name = "check",
	.summary = "lint the pipeline repository (lineage, test and documentation coverage, drift, SQL style)",
	.usage = "check --lint [--json]",
	.description =
		"Reads pipeline/dbt/ and pipeline/lakehouse.lock.json and reports each finding with\n"
		"file:line: lineage (every ref() and source() resolves; unused sources), tests and\n"
		"documentation (dbt-project-evaluator's rule names and coverage formulas; columns without a\n"
		"description), drift (generated files edited by hand) and SQL style from sqlfluff when it is\n"
		"installed (dialect duckdb; $FLOE_SQLFLUFF names the program). docs/lint.md.\n"
		"Exit 1 when a finding is an error (a ref or source that resolves to nothing).",
	.examples = "  floe check --lint\n  floe check --lint --json | jq '.test_coverage'\n",
	.options = options,
	.min_positional = 0,
	.max_positional = 0,
	.run = run,
};
