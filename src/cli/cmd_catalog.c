/*
 * cmd_catalog.c — `floe catalog recover [--dry-run] [--json]`: register the tables on
 * disk in a lost or damaged catalog (warehouse/catalog.db), each with its history.
 */
#include "cli/cli.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/json.h"
#include "base/text.h"
#include "iceberg/recover.h"

static const floe_cli_option recover_options[] = {
	{ "dry-run", 'n', NULL, "show what would be registered; change nothing" },
	{ "json", 0, NULL, "print the result as JSON" },
	{ NULL, 0, NULL, NULL },
};

static void render_text(floe_buf *out, const floe_iceberg_recovered *r, size_t n, bool dry_run)
{
	if (n == 0)
		floe_buf_puts(out, "no tables on disk under the warehouse: nothing to recover\n");
	for (size_t i = 0; i < n; i++) {
		floe_buf name = FLOE_BUF_INIT;
		floe_buf_printf(&name, "%s.%s", r[i].ns, r[i].name);
		floe_buf_printf(out, "%-16s ", floe_iceberg_recover_action_name(r[i].action, dry_run));
		floe_text_put_printable(out, floe_buf_cstr(&name));
		if (r[i].metadata_location) {
			floe_buf_printf(out, "  version %lld, %zu snapshot%s\n    ", (long long)r[i].version,
					r[i].n_snapshots, r[i].n_snapshots == 1 ? "" : "s");
			floe_text_put_printable(out, r[i].metadata_location);
		}
		floe_buf_putc(out, '\n');
		if (r[i].error) {
			floe_buf_puts(out, "    not registered: ");
			floe_text_put_printable(out, r[i].error);
			floe_buf_putc(out, '\n');
		}
		for (size_t k = 0; k < r[i].n_damaged; k++) {
			floe_buf_puts(out, "    passed over ");
			floe_text_put_printable(out, r[i].damaged[k].file);
			floe_buf_puts(out, ": ");
			floe_text_put_printable(out, r[i].damaged[k].reason);
			floe_buf_putc(out, '\n');
		}
		floe_buf_free(&name);
	}
}

static void render_json(floe_buf *out, const char *catalog, const floe_iceberg_recovered *r, size_t n,
			bool dry_run)
{
	floe_json_writer w;
	floe_json_write_init(&w, out, false);
	floe_json_write_begin_object(&w, false);
	floe_json_write_member_cstr(&w, "catalog", catalog);
	floe_json_write_member_bool(&w, "dry_run", dry_run);
	floe_json_write_key(&w, "tables");
	floe_json_write_begin_array(&w, false);
	for (size_t i = 0; i < n; i++) {
		floe_json_write_begin_object(&w, false);
		floe_json_write_member_cstr(&w, "namespace", r[i].ns);
		floe_json_write_member_cstr(&w, "table", r[i].name);
		floe_json_write_member_cstr(&w, "action", floe_iceberg_recover_action_name(r[i].action, dry_run));
		floe_json_write_member_cstr(&w, "metadata_location", r[i].metadata_location);
		floe_json_write_member_int(&w, "version", r[i].version);
		floe_json_write_member_int(&w, "snapshots", (int64_t)r[i].n_snapshots);
		floe_json_write_member_cstr(&w, "error", r[i].error);
		floe_json_write_key(&w, "damaged");
		floe_json_write_begin_array(&w, true);
		for (size_t k = 0; k < r[i].n_damaged; k++) {
			floe_json_write_begin_object(&w, true);
			floe_json_write_member_cstr(&w, "file", r[i].damaged[k].file);
			floe_json_write_member_cstr(&w, "reason", r[i].damaged[k].reason);
			floe_json_write_end_object(&w);
		}
		floe_json_write_end_array(&w);
		floe_json_write_end_object(&w);
	}
	floe_json_write_end_array(&w);
	floe_json_write_end_object(&w);
	floe_json_write_finish(&w);
	floe_buf_putc(out, '\n');
}

static int run_recover(floe_cli_ctx *ctx)
{
	floe_config *config = NULL;
	floe_arena *arena = floe_arena_new();
	floe_iceberg_recover_opts opts = FLOE_ICEBERG_RECOVER_OPTS_INIT;
	floe_iceberg_recovered *r = NULL;
	floe_buf out = FLOE_BUF_INIT;
	size_t n = 0, failed = 0;
	int rc = -1;
	opts.dry_run = floe_cli_flag(ctx, "dry-run");
	if (floe_cli_load_config(&config, ctx) < 0)
		goto cleanup;
	const char *path = floe_config_catalog_path(arena, config);
	if (floe_iceberg_recover(&r, &n, arena, path, &opts) < 0)
		goto cleanup;
	for (size_t i = 0; i < n; i++)
		failed += r[i].action == FLOE_ICEBERG_RECOVER_FAILED;
	if (floe_cli_flag(ctx, "json"))
		render_json(&out, path, r, n, opts.dry_run);
	else
		render_text(&out, r, n, opts.dry_run);
	floe_cli_out(&out);
	rc = failed ? FLOE_EXIT_CHECK_FAILED : FLOE_EXIT_OK;
cleanup:
	floe_buf_free(&out);
	floe_config_free(config);
	floe_arena_free(arena);
	return rc;
}

static const floe_cli_command catalog_recover = {
	.name = "catalog recover",
	.summary = "register the tables on disk in a lost catalog, each with its history",
	.usage = "catalog recover [--dry-run] [--json]",
	.description =
		"When warehouse/catalog.db is lost or a table's entry names a missing file, registers\n"
		"each table under warehouse/<namespace>/<table>/ from its newest valid metadata file: the\n"
		"highest version that parses and whose current snapshot's manifest list exists. Newer\n"
		"damaged files are passed over and named. Snapshots, schemas and watermarks come back with\n"
		"the table, so the next run continues where the last one ended. An entry the catalog\n"
		"already has at an existing file is kept as it is: running it again changes nothing.\n"
		"Exit 1 when a table has no valid metadata file left.",
	.examples =
		"  floe catalog recover --dry-run\n"
		"  floe catalog recover\n"
		"  floe catalog recover --json | jq '.tables[] | select(.action != \"kept\")'\n",
	.options = recover_options,
	.run = run_recover,
};

static const floe_cli_command *const catalog_actions[] = {
	&catalog_recover,
	NULL,
};

static const floe_cli_option no_options[] = { { NULL, 0, NULL, NULL } };

const floe_cli_command floe_cmd_catalog = {
	.name = "catalog",
	.summary = "the Iceberg catalog (warehouse/catalog.db): recover it from the tables on disk",
	.usage = "catalog recover [OPTIONS]",
	.description =
		"The catalog says which metadata file is each table's current one; `floe init` creates it.\n"
		"If it is lost while tables are on disk, run, query, reconcile and status stop and say so\n"
		"(no command creates an empty one over them), and `floe catalog recover` rebuilds it.",
	.examples = "  floe catalog recover --dry-run\n",
	.options = no_options,
	.subcommands = catalog_actions,
};
