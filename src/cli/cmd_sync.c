/*
 * cmd_sync.c — `floe sync [--json] [--repropose TABLE]`.
 */
#include "cli/cli.h"
#include "sync/sync.h"

static const floe_cli_option options[] = {
	{ "json", 0, NULL, "print the changes, actions, branches and commit as JSON" },
	{ "repropose", 0, "TABLE", "make the branch of a rejected change to TABLE again" },
	{ NULL, 0, NULL, NULL },
};

static int run(floe_cli_ctx *ctx)
{
	floe_config *config = NULL;
	floe_sync_result *result = NULL;
	floe_sync_opts opts = FLOE_SYNC_OPTS_INIT;
	floe_buf out = FLOE_BUF_INIT;
	int rc = -1;
	opts.repropose = floe_cli_value(ctx, "repropose");
	if (floe_cli_load_config(&config, ctx) < 0 || floe_config_pii_key(NULL, config) < 0 ||
	    floe_sync_run(&result, config, &opts) < 0)
		goto cleanup;
	if (floe_cli_flag(ctx, "json"))
		rc = floe_sync_render_json(&out, result);
	else
		rc = floe_sync_render_text(&out, result);
	if (rc == 0) {
		floe_cli_out(&out);
		rc = floe_sync_exit_code(result);
	}
cleanup:
	floe_buf_free(&out);
	floe_sync_result_free(result);
	floe_config_free(config);
	return rc;
}

const floe_cli_command floe_cmd_sync = {
	.name = "sync",
	.summary = "classify the source's schema changes: commit the safe ones, propose the breaking ones as branches",
	.usage = "sync [--json] [--repropose TABLE]",
	.description =
		"Compares the source's catalog with the lock deployed on main of pipeline/ and classifies\n"
		"every difference (docs/sync.md):\n"
		"  - safe (a new table, a new nullable column, a widened type, a dropped NOT NULL, a new\n"
		"    enum value): committed on main — the lock and every generated file;\n"
		"  - breaking (a rename, a drop, a narrowed type, a type Iceberg cannot evolve, a new NOT\n"
		"    NULL column without a default, a primary-key change, a watermark changed or dropped, a\n"
		"    dropped table): a branch floe/change/<table>/<id> with the regenerated files and\n"
		"    proposals/<id>.md (what changed, the evidence, what it reaches, what merging does).\n"
		"Main keeps such a table as deployed; a rename, drop or narrowing pauses its loads until\n"
		"the branch is merged into main (the approval). A branch deleted unmerged is rejected: the\n"
		"table stays paused until the source changes back or --repropose makes the branch again.\n"
		"[policy] in floe.toml sets the action per class (commit, branch or refuse). Nothing new:\n"
		"no commit and no branch. Two syncs never run at once: the second reports the lock held.\n"
		"Exits 0; 1 when [policy] refused a change; 2 for a configuration mistake; 3 when the\n"
		"source is unreachable.",
	.examples = "  floe sync\n  git -C pipeline branch --list 'floe/change/*'\n  floe sync --json | jq '.tables[] | {table, state, branch}'\n",
	.options = options,
	.min_positional = 0,
	.max_positional = 0,
	.run = run,
};
