/*
 * cmd_mcp.c — `floe mcp serve --workspace DIR`: the MCP server over stdio (src/mcp).
 */
#include "cli/cli.h"
#include "base/error.h"
#include "mcp/mcp.h"

#include <stdio.h>
#include <unistd.h>

static const floe_cli_option serve_options[] = {
	{ "workspace", 0, "DIR", "the floe project (the directory holding floe.toml); default -C or ." },
	{ NULL, 0, NULL, NULL },
};

static const floe_cli_option no_options[] = { { NULL, 0, NULL, NULL } };

static int serve_run(floe_cli_ctx *ctx)
{
	floe_config *config = NULL;
	floe_mcp *m = NULL;
	int rc = -1;
	const char *workspace = floe_cli_value(ctx, "workspace");
	if (workspace)
		ctx->project_dir = workspace;
	if (floe_cli_load_config(&config, ctx) < 0)
		goto cleanup;
	m = floe_mcp_new(config);
	fprintf(stderr, "floe mcp: serving project \"%s\" on stdio (read-only tools)\n", config->project_dir);
	if (floe_mcp_serve_stdio(m, STDIN_FILENO, stdout) < 0)
		goto cleanup;
	rc = 0;
cleanup:
	floe_mcp_free(m);
	floe_config_free(config);
	return rc;
}

static const floe_cli_command mcp_serve = {
	.name = "mcp serve",
	.summary = "answer an agent's Model Context Protocol requests on stdio, read-only",
	.usage = "mcp serve [--workspace DIR]",
	.description =
		"Speaks the Model Context Protocol (JSON-RPC 2.0, one message per line) on stdin and\n"
		"stdout for a coding agent that starts it (docs/mcp.md). Tools, each read-only:\n"
		"  floe_pipeline_status      every table and layer, its state and the facts behind it\n"
		"  floe_table_health         one table: load, reconciliation tiers and control, tests,\n"
		"                            freshness, recent history\n"
		"  floe_schema_changes       open branches floe/change/* and floe/mart/* and their proposals\n"
		"  floe_pentaho_translation  the latest Pentaho translation report(s)\n"
		"No tool runs, merges, approves or writes anything: the run ledger is opened read-only.\n"
		"stdout carries protocol messages only; messages about the server go to stderr. Ends at\n"
		"the end of stdin (exit 0). `floe serve` answers the same at POST /mcp.",
	.examples = "  floe mcp serve --workspace ~/lake\n"
		    "  claude mcp add floe -- floe mcp serve --workspace ~/lake\n",
	.options = serve_options,
	.min_positional = 0,
	.max_positional = 0,
	.run = serve_run,
};

static const floe_cli_command *const mcp_actions[] = { &mcp_serve, NULL };

const floe_cli_command floe_cmd_mcp = {
	.name = "mcp",
	.summary = "a read-only Model Context Protocol server for coding agents",
	.usage = "mcp serve [--workspace DIR]",
	.description = "The Model Context Protocol server for coding agents (docs/mcp.md).",
	.examples = "  floe mcp serve --workspace .\n",
	.options = no_options,
	.subcommands = mcp_actions,
};
