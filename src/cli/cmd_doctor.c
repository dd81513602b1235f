/*
 * cmd_doctor.c — `floe doctor [--json]`.
 */
#include "cli/cli.h"
#include "doctor/doctor.h"

static const floe_cli_option options[] = {
	{ "json", 0, NULL, "print the report as JSON" },
	{ NULL, 0, NULL, NULL },
};

static int run(floe_cli_ctx *ctx)
{
	floe_config *config = NULL;
	floe_doctor_report *report = NULL;
	floe_buf out = FLOE_BUF_INIT;
	int rc = -1;
	if (floe_cli_load_config(&config, ctx) < 0 || floe_doctor_run(&report, config) < 0)
		goto cleanup;
	if (floe_cli_flag(ctx, "json"))
		floe_doctor_render_json(&out, report);
	else
		floe_doctor_render_text(&out, report);
	floe_cli_out(&out);
	rc = floe_doctor_failed(report) ? 1 : 0;
cleanup:
	floe_buf_free(&out);
	floe_doctor_free(report);
	floe_config_free(config);
	return rc;
}

const floe_cli_command floe_cmd_doctor = {
	.name = "doctor",
	.summary = "check the source, the role's privileges, the warehouse, the catalog and DuckDB",
	.usage = "doctor [--json]",
	.description =
		"Checks every service floe depends on and prints, per check, ok / warn / fail, the facts\n"
		"it saw and what to do:\n"
		"  - the source is reachable, PostgreSQL 12 or newer, the database exists;\n"
		"  - the source role is read-only: not superuser, no INSERT/UPDATE/DELETE/TRUNCATE on any\n"
		"    selected table, no CREATE on its schemas or the database; floe's sessions run with\n"
		"    default_transaction_read_only = on;\n"
		"  - every column of every selected table is visible to the role (a table with a hidden\n"
		"    column is named with the column: floe refuses to load a table incompletely);\n"
		"    row-level security is noted;\n"
		"  - the warehouse directory is writable, the catalog opens, embedded DuckDB answers.\n"
		"Exits 0 when nothing fails, 1 otherwise.",
	.examples = "  floe doctor\n  floe doctor --json | jq '.checks[] | select(.status != \"ok\")'\n",
	.options = options,
	.min_positional = 0,
	.max_positional = 0,
	.run = run,
};
