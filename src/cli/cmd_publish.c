/*
 * cmd_publish.c — `floe publish [--mart M …] [--json]`.
 */
#include "base/error.h"
#include "cli/cli.h"
#include "publish/publish.h"

#include <stdlib.h>

#define MAX_MARTS 256

static const floe_cli_option options[] = {
	{ "mart", 0, "MART", "publish this mart only (repeatable; default: every gold table)" },
	{ "json", 0, NULL, "print the outcome as JSON" },
	{ NULL, 0, NULL, NULL },
};

static int run(floe_cli_ctx *ctx)
{
	floe_config *config = NULL;
	floe_publish_report rep = { 0 };
	floe_buf out = FLOE_BUF_INIT;
	char *marts[MAX_MARTS];
	size_t n = floe_cli_values(ctx, "mart", marts, MAX_MARTS);
	floe_publish_opts opts = { (const char *const *)marts, n };
	int rc = -1;
	if (floe_cli_load_config(&config, ctx) < 0 || floe_publish_run(&rep, config, &opts) < 0)
		goto cleanup;
	floe_publish_render(&out, &rep, floe_cli_flag(ctx, "json"));
	floe_cli_out(&out);
	rc = rep.exit_code;
cleanup:
	for (size_t i = 0; i < n; i++)
		free(marts[i]);
	floe_publish_report_free(&rep);
	floe_config_free(config);
	floe_buf_free(&out);
	return rc;
}

const floe_cli_command floe_cmd_publish = {
	.name = "publish",
	.summary = "copy gold marts into the PostgreSQL warehouse of [publish], swapped in atomically",
	.usage = "publish [--mart MART …] [--json]",
	.description =
		"Reads each gold mart (the Iceberg table gold.MART, at its current snapshot) and copies it\n"
		"into the warehouse named by [publish] in floe.toml: a new table SCHEMA.MART__floe_new is\n"
		"created and loaded with binary COPY in one transaction, then swapped in by renames in a\n"
		"second one (waiting at most [publish] lock-timeout for readers' locks), with SELECT\n"
		"granted to the roles in `grants`. Readers see the old table or the new one, never a\n"
		"half-loaded one; a failure leaves the old table as it was, and a leftover new table is\n"
		"dropped by the next publish. The password comes from the variable [publish] password-env\n"
		"names (docs/publish.md).\n"
		"Exit 0 when every mart was published; 1 when a reader's lock outlasted the lock timeout\n"
		"(run again); 2 for a configuration problem (no [publish], a missing schema, an\n"
		"unknown mart or a column type floe does not publish); 3 when the warehouse cannot be\n"
		"reached or refuses the login; 4 when the machine failed (the server's disk full).",
	.examples = "  floe publish\n  floe publish --mart monthly_revenue --json\n",
	.options = options,
	.min_positional = 0,
	.max_positional = 0,
	.run = run,
};
