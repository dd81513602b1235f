/*
 * cmd_plan.c — `floe plan [--json] [--strict] [--types]`.
 */
#include "cli/cli.h"
#include "doctor/doctor.h"
#include "plan/plan.h"

static const floe_cli_option options[] = {
	{ "json", 0, NULL, "print the plan as JSON" },
	{ "strict", 0, NULL, "exit 1 when a table is refused" },
	{ "types", 0, NULL, "print the PostgreSQL → Iceberg type table instead (Markdown; with --json, JSON)" },
	{ NULL, 0, NULL, NULL },
};

static int print_types(const floe_cli_ctx *ctx)
{
	floe_buf out = FLOE_BUF_INIT;
	int rc = floe_cli_flag(ctx, "json") ? floe_plan_types_json(&out) : floe_plan_types_markdown(&out);
	if (rc == 0)
		floe_cli_out(&out);
	floe_buf_free(&out);
	return rc;
}

static int run(floe_cli_ctx *ctx)
{
	floe_config *config = NULL;
	floe_plan *plan = NULL;
	floe_buf out = FLOE_BUF_INIT;
	int rc = -1;
	if (floe_cli_flag(ctx, "types"))
		return print_types(ctx);
	if (floe_cli_load_config(&config, ctx) < 0)
		goto cleanup;
	floe_doctor_warn_role(config);
	if (floe_plan_build(&plan, config) < 0)
		goto cleanup;
	if (floe_cli_flag(ctx, "json"))
		rc = floe_plan_render_json(&out, plan);
	else
		rc = floe_plan_render_text(&out, plan);
	if (rc < 0)
		goto cleanup;
	floe_cli_out(&out);
	rc = floe_cli_flag(ctx, "strict") && floe_plan_count_mode(plan, FLOE_LOAD_REFUSED) ? 1 : 0;
cleanup:
	floe_buf_free(&out);
	floe_plan_free(plan);
	floe_config_free(config);
	return rc;
}

const floe_cli_command floe_cmd_plan = {
	.name = "plan",
	.summary = "show, per table, the load mode, the type mappings and any refusal, with the reasons",
	.usage = "plan [--json] [--strict] [--types]",
	.description =
		"Reads the selected schemas ([source] schemas, minus exclude) and prints, per table:\n"
		"  - the load mode and why: `incremental` only when a watermark column is proven — a\n"
		"    BEFORE UPDATE … FOR EACH ROW trigger, enabled, whose PL/pgSQL function sets it from\n"
		"    now()/current_timestamp/clock_timestamp()/statement_timestamp()/transaction_timestamp()\n"
		"    on every path, an insert default of the same, and a primary key; `full` otherwise;\n"
		"    `refused` when floe cannot load the table whole and exactly (a column the role cannot\n"
		"    see, row-level security hiding rows, a type floe refuses) or not under a name of its\n"
		"    own (its bronze name holds '/', '.' or a control character, or belongs to another\n"
		"    table: deployed under it before, or first in name order; case does not count);\n"
		"  - the primary key and the watermark; [watermarks] in floe.toml chooses among proven\n"
		"    columns, and a named column that fails the proof gives `full` with the reason;\n"
		"  - every column: PostgreSQL type → Iceberg type, class (exact, widening, lossy,\n"
		"    refused) and what is lost. The table of mappings is docs/types.md (--types).\n"
		"Views, materialized views, foreign and temporary tables are listed as skipped; a\n"
		"partitioned table is one table, loaded through its parent.\n\n"
		"Exits 0 even when tables are refused (a refusal is an answer, not a failure); with\n"
		"--strict, exits 1 when any table is refused.",
	.examples =
		"  floe plan\n"
		"  floe plan --json | jq '.tables[] | select(.mode == \"refused\") | .reason'\n"
		"  floe plan --strict          # in CI: fail when a table would not load\n"
		"  floe plan --types           # the type table docs/types.md holds\n",
	.options = options,
	.min_positional = 0,
	.max_positional = 0,
	.run = run,
};
