/*
 * cmd_expire.c — `floe expire [--table T …] [--keep-snapshots N] [--keep-days N] [--json]`:
 * old bronze snapshots expired and unreferenced files deleted (src/bronze/expire.c).
 */
#include "cli/cli.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/json.h"
#include "base/text.h"
#include "bronze/bronze.h"

#include <stdlib.h>
#include <string.h>

static const floe_cli_option expire_options[] = {
	{ "table", 't', "TABLE", "expire only this table (bronze.NAME or SCHEMA.NAME); repeatable" },
	{ "keep-snapshots", 0, "N", "keep the newest N snapshots (default: [warehouse] keep-snapshots, else 1)" },
	{ "keep-days", 0, "N", "keep snapshots younger than N days (default: [warehouse] keep-days, else none)" },
	{ "json", 0, NULL, "print the outcome as JSON" },
	{ NULL, 0, NULL, NULL },
};

static void render(floe_buf *out, const floe_bronze_expiry *r, size_t n, bool json)
{
	floe_buf_puts(out, json ? "{\"tables\":[" : "");
	for (size_t i = 0; i < n; i++) {
		if (json) {
			floe_buf_puts(out, i ? ",{" : "{");
			floe_json_put_member(out, "table", r[i].table);
			floe_buf_printf(out, ",\"snapshots_before\":%lld,\"snapshots_after\":%lld,\"deleted_files\":%zu,"
					"\"deleted_metadata\":%zu,\"deleted_orphans\":%zu",
					(long long)r[i].snapshots_before, (long long)r[i].snapshots_after,
					r[i].deleted_files, r[i].deleted_metadata, r[i].deleted_orphans);
			floe_json_put_member(out, "error", r[i].error);
			floe_buf_putc(out, '}');
			continue;
		}
		floe_text_put_printable(out, r[i].table);
		if (r[i].error) {
			floe_buf_puts(out, ": failed: ");
			floe_text_put_printable(out, r[i].error);
		} else {
			floe_buf_printf(out, ": %lld of %lld snapshots kept; %zu data and delete files, %zu metadata "
					"files and %zu orphans deleted", (long long)r[i].snapshots_after,
					(long long)r[i].snapshots_before, r[i].deleted_files, r[i].deleted_metadata,
					r[i].deleted_orphans);
		}
		floe_buf_putc(out, '\n');
	}
	floe_buf_puts(out, json ? "]}\n" : "");
}

/* A non-negative count option, or -1 (an error is set) when it is not one. */
static int64_t count_option(const floe_cli_ctx *ctx, const char *name, int64_t unset)
{
	const char *v = floe_cli_value(ctx, name);
	int64_t n = 0;
	if (!v)
		return unset;
	if (floe_text_parse_int64(&n, v, strlen(v), 0, 1000000) < 0) {
		floe_error_set(FLOE_ERR_USAGE, "--%s must be a whole number, not \"%s\"", name, v);
		return -2;
	}
	return n;
}

static int expire_run(floe_cli_ctx *ctx)
{
	floe_config *config = NULL;
	floe_arena *a = floe_arena_new();
	floe_bronze_expiry *res = NULL;
	floe_bronze_expire_opts opts = FLOE_BRONZE_EXPIRE_OPTS_INIT;
	floe_buf out = FLOE_BUF_INIT;
	char *tables[256];
	size_t n = 0, failed = 0;
	int rc = -1;
	opts.n_tables = floe_cli_values(ctx, "table", tables, 256);
	opts.tables = opts.n_tables ? (const char *const *)tables : NULL;
	opts.keep_snapshots = count_option(ctx, "keep-snapshots", 0);
	opts.keep_days = count_option(ctx, "keep-days", -1);
	if (opts.keep_snapshots < -1 || opts.keep_days < -1 || floe_cli_load_config(&config, ctx) < 0 ||
	    floe_bronze_expire(&res, &n, a, config, &opts) < 0)
		goto cleanup;
	render(&out, res, n, floe_cli_flag(ctx, "json"));
	floe_cli_out(&out);
	for (size_t i = 0; i < n; i++)
		failed += res[i].error != NULL;
	rc = failed ? FLOE_EXIT_CHECK_FAILED : 0;
cleanup:
	floe_buf_free(&out);
	floe_arena_free(a);
	floe_config_free(config);
	for (size_t i = 0; i < opts.n_tables; i++)
		free(tables[i]);
	return rc;
}

const floe_cli_command floe_cmd_expire = {
	.name = "expire",
	.summary = "expire old bronze snapshots and delete the files only they reference",
	.usage = "expire [--table TABLE …] [--keep-snapshots N] [--keep-days N] [--json]",
	.description =
		"For each bronze table (or each --table): snapshots beyond the newest N ([warehouse]\n"
		"keep-snapshots, else 1) and older than N days ([warehouse] keep-days, else any age)\n"
		"are expired; then the files no kept snapshot references are deleted — data files,\n"
		"position delete files, manifests, manifest lists, old metadata — and orphan files (of\n"
		"crashed or lost commits) older than an hour. A snapshot a ref points at is never expired.\n"
		"Loads expire on their own when keep-snapshots or keep-days is set (docs/merge-on-read.md).\n\n"
		"Exits 0; 1 when a table failed (named, with the reason); 2 on a bad option.",
	.examples = "  floe expire --keep-snapshots 5\n  floe expire --table public.orders --keep-days 7 --json\n",
	.options = expire_options,
	.min_positional = 0,
	.max_positional = 0,
	.run = expire_run,
};
