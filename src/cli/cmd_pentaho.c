/*
 * cmd_pentaho.c — `floe pentaho translate DIR [--name NAME] [--json]`.
 */
#include "cli/cli.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/text.h"
#include "pentaho/pentaho.h"

static const floe_cli_option translate_options[] = {
	{ "name", 0, "NAME", "the translation's name (branch floe/pentaho/NAME); default: DIR's base name" },
	{ "json", 0, NULL, "print the coverage report as JSON" },
	{ NULL, 0, NULL, NULL },
};

static const floe_cli_option no_options[] = { { NULL, 0, NULL, NULL } };

static void put_text(floe_buf *out, const floe_pentaho_result *r)
{
	size_t n[2][3] = { { 0 } }, unread = 0;
	for (size_t i = 0; i < r->n_steps; i++)
		n[r->steps[i].entry][r->steps[i].status]++;
	floe_buf_puts(out, "branch: ");
	floe_text_put_printable(out, r->branch);
	floe_buf_printf(out, "%s%s\n", r->commit[0] ? " at " : " (unchanged)", r->commit);
	floe_buf_printf(out, "steps:   %zu mapped, %zu partial, %zu unmapped\n", n[0][0], n[0][1], n[0][2]);
	floe_buf_printf(out, "entries: %zu mapped, %zu partial, %zu unmapped\n", n[1][0], n[1][1], n[1][2]);
	floe_buf_printf(out, "checks:  %zu `-- floe: check` markers\n", r->n_checks);
	for (size_t i = 0; i < r->n_files; i++) {
		if (!r->files[i].error)
			continue;
		unread++;
		floe_buf_puts(out, "not read: ");
		floe_text_put_printable(out, r->files[i].rel);
		floe_buf_puts(out, ": ");
		floe_text_put_printable(out, r->files[i].error);
		floe_buf_putc(out, '\n');
	}
	floe_buf_printf(out, "report:  proposals/pentaho-%s.md on that branch (%zu of %zu files read)\n", r->name,
			r->n_files - unread, r->n_files);
}

static int translate_run(floe_cli_ctx *ctx)
{
	floe_config *config = NULL;
	floe_pentaho_result *r = NULL;
	floe_buf out = FLOE_BUF_INIT, pipeline = FLOE_BUF_INIT;
	int rc = -1;
	if (floe_cli_load_config(&config, ctx) < 0)
		goto cleanup;
	floe_fs_join(&pipeline, config->project_dir, FLOE_PIPELINE_DIR);
	floe_pentaho_opts opts = FLOE_PENTAHO_OPTS_INIT;
	opts.dir = ctx->positional[0];
	opts.pipeline_dir = floe_buf_cstr(&pipeline);
	opts.name = floe_cli_value(ctx, "name");
	opts.project = config->project_name;
	if (floe_pentaho_translate(&r, &opts) < 0)
		goto cleanup;
	if (floe_cli_flag(ctx, "json"))
		floe_pentaho_render_json(&out, r);
	else
		put_text(&out, r);
	floe_cli_out(&out);
	rc = 0;
	for (size_t i = 0; i < r->n_files; i++)
		rc = r->files[i].error ? FLOE_EXIT_CHECK_FAILED : rc;
cleanup:
	floe_buf_free(&out);
	floe_buf_free(&pipeline);
	floe_pentaho_result_free(r);
	floe_config_free(config);
	return rc;
}

static const floe_cli_command pentaho_translate = {
	.name = "pentaho translate",
	.summary = "translate Kettle .ktr/.kjb files into dbt models and Dagster jobs on a proposal branch",
	.usage = "pentaho translate DIR [--name NAME] [--json]",
	.description =
		"Reads every .ktr (transformation) and .kjb (job) under DIR with libxml2 (no network, no\n"
		"entity expansion) and commits, on branch floe/pentaho/NAME of pipeline/ (never on main):\n"
		"  - dbt/models/pentaho/NAME/*.sql — one model on silver per output step (TableOutput,\n"
		"    InsertUpdate, Update, Delete) and per final step, its upstream steps as CTEs; source\n"
		"    tables resolved to bronze through the lock, ${VAR} as dbt var();\n"
		"  - dagster/src/floe_<project>/defs/pentaho_<job>.py — one Dagster job per .kjb, its\n"
		"    entries wired along the success/failure hops; SQL entries as dbt macros;\n"
		"  - proposals/pentaho-NAME.md and .json — the coverage report: per step type and per\n"
		"    file mapped / partial / unmapped with reasons, and every `-- floe: check` marker.\n"
		"A partly translated step keeps its XML and a `-- floe: check` line; an unmapped step is a\n"
		"placeholder whose model fails its build. Nothing is run; merging the branch is the approval\n"
		"(docs/pentaho.md). Passwords in the files are never read into the output.\n\n"
		"Exits 0; 1 when some file could not be read (listed, with the reason); 2 when DIR or\n"
		"pipeline/ is missing.",
	.examples =
		"  floe pentaho translate etl/kettle --name warehouse\n"
		"  git -C pipeline show floe/pentaho/warehouse:proposals/pentaho-warehouse.md\n"
		"  floe pentaho translate etl/kettle --json | jq '.types[] | select(.unmapped > 0)'\n",
	.options = translate_options,
	.min_positional = 1,
	.max_positional = 1,
	.run = translate_run,
};

static const floe_cli_command *const pentaho_actions[] = { &pentaho_translate, NULL };

const floe_cli_command floe_cmd_pentaho = {
	.name = "pentaho",
	.summary = "translate Pentaho Data Integration (Kettle) files into dbt and Dagster",
	.usage = "pentaho translate DIR [OPTIONS]",
	.description = "Pentaho Data Integration (Kettle) transformations and jobs, moved to floe (docs/pentaho.md).",
	.examples = "  floe pentaho translate etl/kettle\n",
	.options = no_options,
	.subcommands = pentaho_actions,
};
