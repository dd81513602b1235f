/*
 * cmd_compact.c — `floe compact [--table T …] [--json]`: merge-on-read tables' delta files,
 * position delete files and small files rewritten into key-sorted files (src/bronze).
 */
#include "cli/cli.h"
#include "base/error.h"
#include "base/json.h"
#include "base/text.h"
#include "bronze/bronze.h"

#include <stdlib.h>

static const floe_cli_option compact_options[] = {
	{ "table", 't', "TABLE", "compact only this table (bronze.NAME or SCHEMA.NAME); repeatable" },
	{ "json", 0, NULL, "print the outcome as JSON" },
	{ NULL, 0, NULL, NULL },
};

static void render(floe_buf *out, const floe_bronze_report *rep, bool json)
{
	if (json)
		floe_buf_puts(out, "{\"tables\":[");
	for (size_t i = 0; i < rep->n_results; i++) {
		const floe_bronze_result *r = &rep->results[i];
		if (json) {
			floe_buf_puts(out, i ? ",{" : "{");
			floe_json_put_member(out, "table", r->table);
			floe_json_put_member(out, "state", floe_table_state_name(r->state));
			floe_buf_printf(out, ",\"snapshot_id\":%lld,\"table_rows\":%lld", (long long)r->snapshot_id,
					(long long)r->table_rows);
			floe_json_put_member(out, "detail", r->detail);
			floe_json_put_member(out, "error", r->error);
			floe_buf_putc(out, '}');
			continue;
		}
		floe_text_put_printable(out, r->table);
		floe_buf_puts(out, ": ");
		floe_text_put_printable(out, r->error ? r->error : r->detail ? r->detail : floe_table_state_name(r->state));
		floe_buf_putc(out, '\n');
	}
	if (json)
		floe_buf_printf(out, "],\"failed\":%zu}\n", rep->n_failed);
}

static int compact_run(floe_cli_ctx *ctx)
{
	floe_config *config = NULL;
	floe_bronze_report rep = { 0 };
	floe_bronze_opts opts = FLOE_BRONZE_OPTS_INIT;
	floe_buf out = FLOE_BUF_INIT;
	char *tables[256];
	int rc = -1;
	if (floe_cli_load_config(&config, ctx) < 0)
		goto cleanup;
	opts.n_tables = floe_cli_values(ctx, "table", tables, 256);
	opts.tables = opts.n_tables ? (const char *const *)tables : NULL;
	opts.command = "compact";
	opts.compact = true;
	if (floe_bronze_run(&rep, config, &opts) < 0)
		goto cleanup;
	render(&out, &rep, floe_cli_flag(ctx, "json"));
	floe_cli_out(&out);
	rc = rep.exit_code ? rep.exit_code : rep.n_failed ? FLOE_EXIT_CHECK_FAILED : 0;
cleanup:
	floe_buf_free(&out);
	floe_bronze_report_free(&rep);
	floe_config_free(config);
	for (size_t i = 0; i < opts.n_tables; i++)
		free(tables[i]);
	return rc;
}

const floe_cli_command floe_cmd_compact = {
	.name = "compact",
	.summary = "rewrite merge-on-read delta and delete files into key-sorted files",
	.usage = "compact [--table TABLE …] [--json]",
	.description =
		"For each bronze table with a primary key (or each --table): the key ranges where\n"
		"merge-on-read loads left delta files and position delete files, and runs of small files,\n"
		"are rewritten into key-sorted files of [bronze] target-file-rows rows without deletes, and\n"
		"every live delete file removed, as one `replace` snapshot. It commits only on the snapshot\n"
		"it read: when a load committed meanwhile it gives way (says so; run it again) — a load\n"
		"never waits for it and never loses a row to it. Then old snapshots expire when [warehouse]\n"
		"keep-snapshots or keep-days is set. Loads compact on their own when [compaction]\n"
		"delete-files or small-files is reached (docs/merge-on-read.md).\n\n"
		"Exits 0; 1 when a table failed; 3 when the source (described for the columns) is unreachable.",
	.examples = "  floe compact\n  floe compact --table public.orders --json\n",
	.options = compact_options,
	.min_positional = 0,
	.max_positional = 0,
	.run = compact_run,
};
