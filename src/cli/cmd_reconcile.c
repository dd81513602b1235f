/*
 * cmd_reconcile.c — `floe reconcile [--table T …] [--tier V1|V2|V3] [--json]`.
 */
#include "cli/cli.h"
#include "base/error.h"
#include "iceberg/catalog.h"
#include "base/text.h"
#include "reconcile/reconcile.h"

#include <stdlib.h>
#include <string.h>

#define MAX_TABLES 256

static const floe_cli_option options[] = {
	{ "table", 't', "TABLE", "reconcile only this table (bronze.NAME or SCHEMA.NAME); repeatable, or comma-separated" },
	{ "tier", 0, "TIER", "V1 (row counts), V2 (+ per-column aggregates) or V3 (+ bucketed checksums; default)" },
	{ "control", 0, "NAME", "plant this control instead of the next in rotation (`none`: plant none)" },
	{ "pg-snapshot", 0, "NAME", "compare with this exported source snapshot (pg_export_snapshot(), its transaction still open)" },
	{ "repair", 0, NULL, "re-copy a diverged table's rows from the source (at one snapshot for the whole run) and reconcile it again" },
	{ "json", 0, NULL, "print the results as JSON" },
	{ NULL, 0, NULL, NULL },
};

/* `s` shown printable (names and values come from the source), with `before` and a newline. */
static void put_text(floe_buf *out, const char *before, const char *s)
{
	floe_buf_puts(out, before);
	floe_text_put_printable(out, s);
	floe_buf_putc(out, '\n');
}

static void render_metric(floe_buf *out, const floe_reconcile_metric *m)
{
	floe_buf_printf(out, "%13s", "");
	floe_text_put_printable(out, m->column);
	floe_buf_putc(out, ' ');
	floe_text_put_printable(out, m->name);
	floe_buf_puts(out, ": source ");
	floe_text_put_printable(out, m->source ? m->source : "NULL");
	put_text(out, ", lake ", m->lake ? m->lake : "NULL");
}

static void render_text(floe_buf *out, const floe_reconcile_report *rep)
{
	floe_buf_printf(out, "run %s\n", rep->run_id);
	for (size_t i = 0; i < rep->n_results; i++) {
		const floe_reconcile_result *r = rep->results[i];
		floe_buf_printf(out, "  %-10s ", floe_reconcile_state_name(r));
		floe_text_put_printable_padded(out, r->table, 32);
		floe_buf_printf(out, " %s ", floe_reconcile_tier_name(r->tier));
		put_text(out, "", r->detail ? r->detail : "");
		if (r->error)
			put_text(out, "             ", r->error);
		if (r->repaired)
			put_text(out, "             repaired first: ", r->repaired);
		for (size_t k = 0; k < r->n_metrics; k++)
			if (!r->metrics[k].equal)
				render_metric(out, &r->metrics[k]);
		for (size_t k = 0; k < r->n_diverged && k < 10; k++)
			floe_buf_printf(out, "%13sbucket %lld: source %lld rows, lake %lld rows\n", "",
					(long long)r->diverged[k].bucket, (long long)r->diverged[k].source_rows,
					(long long)r->diverged[k].lake_rows);
		if (r->n_diverged > 10)
			floe_buf_printf(out, "%13s… %zu more buckets\n", "", r->n_diverged - 10);
		for (size_t k = 0; k < r->n_keys && k < 10; k++) {
			const floe_reconcile_key *key = &r->keys[k];
			floe_buf_printf(out, "%13skey (", "");
			for (size_t v = 0; v < key->n_values; v++) {
				floe_buf_puts(out, v ? ", " : "");
				floe_text_put_printable(out, key->values[v]);
			}
			floe_buf_printf(out, "): source %lld rows, lake %lld rows\n", (long long)key->source_rows,
					(long long)key->lake_rows);
		}
		if (r->n_keys > 10)
			floe_buf_printf(out, "%13s… %zu more keys\n", "", r->n_keys - 10);
		if (r->keys_note)
			put_text(out, "             keys not named: ", r->keys_note);
		if (r->control) {
			floe_buf_printf(out, "%13scontrol %s: ", "", r->control);
			put_text(out, "", r->control_detail ? r->control_detail : (r->control_fired ? "caught" : "not caught"));
		}
	}
	floe_buf_printf(out, "%zu verified, ", rep->n_verified);
	if (rep->n_partial)
		floe_buf_printf(out, "%zu %s, ", rep->n_partial, floe_reconcile_outcome_name(FLOE_RECONCILE_PARTIAL));
	floe_buf_printf(out, "%zu diverged, %zu unverified, %zu failed\n", rep->n_diverged, rep->n_unverified,
			rep->n_failed);
}

static void render_json(floe_buf *out, const floe_reconcile_report *rep)
{
	floe_buf_printf(out, "{\"run_id\":\"%s\",\"tables\":[", rep->run_id);
	for (size_t i = 0; i < rep->n_results; i++) {
		floe_buf_puts(out, i ? "," : "");
		floe_reconcile_result_json(out, rep->results[i]);
	}
	floe_buf_printf(out, "],\"verified\":%zu,\"partial\":%zu,\"diverged\":%zu,\"unverified\":%zu,\"failed\":%zu}\n",
			rep->n_verified, rep->n_partial, rep->n_diverged, rep->n_unverified, rep->n_failed);
}

/* A lost catalog stops the command before any table is compared (and says why, once). */
static int catalog_ready(const floe_config *config)
{
	return floe_iceberg_catalog_prepare_sql(floe_config_catalog_path(config->arena, config), false);
}

static int run(floe_cli_ctx *ctx)
{
	floe_config *config = NULL;
	floe_reconcile_report rep = { 0 };
	floe_reconcile_opts opts = FLOE_RECONCILE_OPTS_INIT;
	floe_buf out = FLOE_BUF_INIT;
	char *tables[MAX_TABLES];
	size_t n_tables = floe_cli_values(ctx, "table", tables, MAX_TABLES);
	const char *tier = floe_cli_value(ctx, "tier");
	int rc = -1;
	if (tier && floe_reconcile_tier_parse(&opts.tier, tier) < 0)
		goto cleanup;
	opts.tables = n_tables ? (const char *const *)tables : NULL;
	opts.n_tables = n_tables;
	opts.control = floe_cli_value(ctx, "control");
	opts.pg_snapshot = floe_cli_value(ctx, "pg-snapshot");
	opts.repair = floe_cli_flag(ctx, "repair");
	if (floe_cli_load_config(&config, ctx) < 0 ||
	    catalog_ready(config) < 0 ||
	    floe_reconcile_run(&rep, config, &opts) < 0)
		goto cleanup;
	if (floe_cli_flag(ctx, "json"))
		render_json(&out, &rep);
	else
		render_text(&out, &rep);
	floe_cli_out(&out);
	/* A comparison that failed because the source was unreachable exits 3 (disk, I/O: 4). */
	rc = rep.exit_code >= FLOE_EXIT_UNREACHABLE ? rep.exit_code : rep.n_verified == rep.n_results ? 0 : 1;
cleanup:
	for (size_t i = 0; i < n_tables; i++)
		free(tables[i]);
	floe_reconcile_report_free(&rep);
	floe_config_free(config);
	floe_buf_free(&out);
	return rc;
}

const floe_cli_command floe_cmd_reconcile = {
	.name = "reconcile",
	.summary = "prove each bronze table against its source: counts, aggregates, checksums",
	.usage = "reconcile [--table TABLE …] [--tier V1|V2|V3] [--repair] [--json]",
	.description =
		"Compares each bronze table of the deployed plan (its current Iceberg snapshot) with its\n"
		"source. V1 compares row counts; V2 adds per column the non-null count, min, max, sum of\n"
		"numbers, total bytes of text and bytea and, where cheap, the count of distinct values\n"
		"(floating point within a relative tolerance of 1e-9, everything else exactly); V3 adds\n"
		"per bucket of the primary key the row count and the sum of a 64-bit hash of each row's\n"
		"canonical form. PostgreSQL computes the source side (nothing leaves the database), DuckDB\n"
		"the lake side over the snapshot's Parquet files. Every run also plants a known difference\n"
		"(a control, rotating through the catalog in docs/reconcile.md) into a copy of one bucket\n"
		"of the lake side and requires the comparison to report exactly it: a table is `verified`\n"
		"only when the sides agree and the control was caught, `unverified` when the control was\n"
		"not caught, `diverged` when the sides differ, `verified (partial)` when the sides agree\n"
		"but a column could not be compared (named, with why). With --repair, a diverged table's keys are\n"
		"re-read from the source (at one exported snapshot for the whole run), upserted into its\n"
		"bronze table, and the table reconciled again. (`floe run` reconciles and repairs every\n"
		"load by itself, at the snapshot the load read.) Results go to the run ledger that\n"
		"`floe status` reads.\n"
		"Exit 0 when every table is verified in full, 1 when one diverged, is unverified, is\n"
		"verified (partial) or could not be compared.",
	.examples = "  floe reconcile\n  floe reconcile --table public.orders --tier V2\n"
		    "  floe reconcile --repair\n"
		    "  floe reconcile --json | jq '.tables[] | select(.outcome != \"verified\")'\n",
	.options = options,
	.min_positional = 0,
	.max_positional = 0,
	.run = run,
};
