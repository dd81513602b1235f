/*
 * cmd_query.c — `floe query "SQL" [--csv | --json]`.
 */
#include "cli/cli.h"
#include "query/query.h"

static const floe_cli_option options[] = {
	{ "csv", 0, NULL, "print CSV (a header line, then rows)" },
	{ "json", 0, NULL, "print a JSON array of objects (values as text)" },
	{ NULL, 0, NULL, NULL },
};

static int run(floe_cli_ctx *ctx)
{
	floe_config *config = NULL;
	floe_buf out = FLOE_BUF_INIT;
	floe_query_format f = floe_cli_flag(ctx, "csv") ? FLOE_QUERY_CSV
			      : floe_cli_flag(ctx, "json") ? FLOE_QUERY_JSON : FLOE_QUERY_TABLE;
	int rc = -1;
	if (floe_cli_load_config(&config, ctx) == 0 && floe_query_run(&out, config, ctx->positional[0], f) == 0) {
		floe_cli_out(&out);
		rc = 0;
	}
	floe_config_free(config);
	floe_buf_free(&out);
	return rc;
}

const floe_cli_command floe_cmd_query = {
	.name = "query",
	.summary = "read-only SQL over the lake's current tables in embedded DuckDB",
	.usage = "query SQL [--csv | --json]",
	.description =
		"Runs one read-only statement in the embedded DuckDB, where every table of the catalog\n"
		"is a view over the data files of its current snapshot (bronze.orders, …). Only statements\n"
		"that read are accepted, and DuckDB may read nothing but the warehouse directory.",
	.examples = "  floe query \"select order_status, count(*) from bronze.orders group by 1 order by 2 desc\"\n"
		    "  floe query \"from bronze.customers limit 5\" --csv\n",
	.options = options,
	.min_positional = 1,
	.max_positional = 1,
	.run = run,
};
