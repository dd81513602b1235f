/*
 * cmd_query.c — `floe query "SQL" [--csv | --json]`.
 */
#include "base/error.h"
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
	if (floe_cli_flag(ctx, "csv") && floe_cli_flag(ctx, "json")) {
		floe_error_set(FLOE_ERR_USAGE, "`--csv` and `--json` exclude each other");
		floe_error_hint("Choose one output format (the default is an aligned table).");
	} else if (floe_cli_load_config(&config, ctx) == 0 && floe_query_run(&out, config, ctx->positional[0], f) == 0) {
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
		"Runs one query in the embedded DuckDB, where every table of the catalog is a view over\n"
		"the data files of its current snapshot (bronze.orders, …). Exactly one statement, which\n"
		"DuckDB's parser classifies as a query (SELECT, FROM, WITH, VALUES, DESCRIBE, SHOW,\n"
		"SUMMARIZE); DuckDB may open only those data files, and the process can write no file.\n"
		"A table that cannot be a view is left out with a warning naming it and why.",
	.examples = "  floe query \"select order_status, count(*) from bronze.orders group by 1 order by 2 desc\"\n"
		    "  floe query \"from bronze.customers limit 5\" --csv\n",
	.options = options,
	.min_positional = 1,
	.max_positional = 1,
	.run = run,
};
