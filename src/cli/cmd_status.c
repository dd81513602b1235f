/*
 * cmd_status.c — `floe status [--json]`.
 */
#include "cli/cli.h"
#include "monitor/status.h"

static const floe_cli_option options[] = {
	{ "json", 0, NULL, "print as JSON" },
	{ NULL, 0, NULL, NULL },
};

static int run(floe_cli_ctx *ctx)
{
	floe_config *config = NULL;
	floe_status st = { 0 };
	floe_buf out = FLOE_BUF_INIT;
	int rc = -1;
	if (floe_cli_load_config(&config, ctx) < 0 || floe_status_build(&st, config) < 0)
		goto cleanup;
	if (floe_cli_flag(ctx, "json"))
		floe_status_render_json(&out, &st);
	else
		floe_status_render_text(&out, &st);
	int k_rc = config->kafka ? floe_cli_status_topics(&out, config, floe_cli_flag(ctx, "json")) : 0;
	floe_cli_out(&out);
	rc = st.n_failed || st.n_diverged || st.n_interrupted || st.n_catalog_missing ? 1 : k_rc;
cleanup:
	floe_status_free(&st);
	floe_config_free(config);
	floe_buf_free(&out);
	return rc;
}

const floe_cli_command floe_cmd_status = {
	.name = "status",
	.summary = "every table: state, rows, freshness, drift, and the facts behind it",
	.usage = "status [--json]",
	.description =
		"Shows, for every table of the deployed plan, its state (never loaded, loading, loaded,\n"
		"failed, refused, interrupted; once its current snapshot was reconciled: verified,\n"
		"verified (partial) — a column not compared, named in the facts —, diverged or\n"
		"unverified), its last run, the rows and age of its last good load,\n"
		"whether its pipeline file was edited by hand (drift), the facts behind the state and,\n"
		"for a failure, the probable cause. Reads the run ledger (.floe/state.db) and pipeline/.\n"
		"Exit 1 when a table's last load failed or its reconciliation diverged, or the catalog is missing.",
	.examples = "  floe status\n  floe status --json | jq '.tables[] | select(.state != \"loaded\")'\n",
	.options = options,
	.min_positional = 0,
	.max_positional = 0,
	.run = run,
};
