/*
 * cmd_gold.c — `floe gold draft marts/<name>.md [--json]`.
 */
#include "cli/cli.h"
#include "base/error.h"
#include "gold/gold.h"

static const floe_cli_option draft_options[] = {
	{ "json", 0, NULL, "print the questions, or the proposal, as JSON" },
	{ NULL, 0, NULL, NULL },
};

static int draft_run(floe_cli_ctx *ctx)
{
	floe_config *config = NULL;
	floe_gold_draft_result r = { 0 };
	floe_buf out = FLOE_BUF_INIT;
	int rc = -1;
	if (floe_cli_load_config(&config, ctx) < 0 || floe_gold_draft(&r, config, ctx->positional[0], NULL) < 0)
		goto cleanup;
	if (floe_cli_flag(ctx, "json"))
		rc = floe_gold_draft_render_json(&out, &r);
	else
		rc = floe_gold_draft_render_text(&out, &r);
	if (rc == 0) {
		floe_buf_putc(&out, '\n');
		floe_cli_out(&out);
		rc = r.n_questions ? FLOE_EXIT_CHECK_FAILED : FLOE_EXIT_OK;
	}
cleanup:
	floe_buf_free(&out);
	floe_gold_draft_result_free(&r);
	floe_config_free(config);
	return rc;
}

static const floe_cli_command gold_draft = {
	.name = "gold draft",
	.summary = "resolve a mart description against silver: questions, or a proposal on a branch",
	.usage = "gold draft marts/<name>.md [--json]",
	.description =
		"Reads the mart description (YAML front matter: mart, grain, dimensions, measures,\n"
		"filters; prose below) and resolves every term against the silver tables of\n"
		"pipeline/lakehouse.lock.json: their columns, keys and foreign keys (docs/gold.md).\n\n"
		"Each term that does not resolve — a misspelt column, a join with two paths, a join\n"
		"that would multiply rows, a phrase outside the grammar — becomes a numbered question,\n"
		"written under \"## Questions\" in the file and printed; no SQL is proposed until each is\n"
		"answered by editing the file and drafting again.\n\n"
		"With no question left, the section is removed and the mart is proposed on the branch\n"
		"floe/mart/<name> of the pipeline repository: dbt/models/gold/<name>.sql, its schema file\n"
		"(grain tests, lineage), a reconciliation test per additive measure, and the lock with the\n"
		"mart. HEAD and the work tree are left alone; merging the branch approves the mart.\n\n"
		"Exits 0 when proposed, 1 when questions remain, 2 for a description that is not valid.",
	.examples = "  floe gold draft marts/monthly_revenue.md\n"
		    "  git -C pipeline merge floe/mart/monthly_revenue\n"
		    "  floe run --layer gold\n",
	.options = draft_options,
	.min_positional = 1,
	.max_positional = 1,
	.run = draft_run,
};

static const floe_cli_command *const gold_actions[] = { &gold_draft, NULL };

static const floe_cli_option no_options[] = {
	{ NULL, 0, NULL, NULL },
};

const floe_cli_command floe_cmd_gold = {
	.name = "gold",
	.summary = "gold marts from plain descriptions (marts/<name>.md)",
	.usage = "gold draft marts/<name>.md [--json]",
	.description = "Gold marts are described in Markdown and drafted into tested dbt models (docs/gold.md).",
	.examples = "  floe gold draft marts/monthly_revenue.md\n",
	.options = no_options,
	.subcommands = gold_actions,
};
