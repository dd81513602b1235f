/*
 * cmd_generate.c — `floe generate [--json]`.
 */
#include "cli/cli.h"
#include "gen/gen.h"

static const floe_cli_option options[] = {
	{ "json", 0, NULL, "print what was written, kept and committed as JSON" },
	{ NULL, 0, NULL, NULL },
};

static int run(floe_cli_ctx *ctx)
{
	floe_config *config = NULL;
	floe_gen_result *result = NULL;
	floe_gen_opts opts = FLOE_GEN_OPTS_INIT;
	floe_buf out = FLOE_BUF_INIT;
	int rc = -1;
	if (floe_cli_load_config(&config, ctx) < 0 || floe_config_pii_key(NULL, config) < 0 ||
	    floe_gen_run(&result, config, &opts) < 0)
		goto cleanup;
	if (floe_cli_flag(ctx, "json"))
		rc = floe_gen_render_json(&out, result);
	else
		rc = floe_gen_render_text(&out, result);
	if (rc == 0)
		floe_cli_out(&out);
cleanup:
	floe_buf_free(&out);
	floe_gen_result_free(result);
	floe_config_free(config);
	return rc;
}

const floe_cli_command floe_cmd_generate = {
	.name = "generate",
	.summary = "write pipeline/ (bronze SQL, the dbt project, lakehouse.lock.json) as a git repository and commit it",
	.usage = "generate [--json]",
	.description =
		"Plans the source (as `floe plan` does) and writes pipeline/, a git repository, committing:\n"
		"  - bronze/<table>.sql — each loadable table's extraction query, the SELECT floe runs\n"
		"    inside COPY (…) TO STDOUT (FORMAT binary);\n"
		"  - dbt/ — the silver layer as a dbt project: a model per table, sources, tests derived\n"
		"    from the source's keys, NOT NULLs, foreign keys, enums and CHECKs plus quality/*.toml\n"
		"    (docs/silver.md); tests left out, and why, are listed under `silver:`;\n"
		"  - lakehouse.lock.json — the deployed plan: per table its mode, watermark, key, columns\n"
		"    with Iceberg field ids and types, its silver section, and the SHA-256 of each file.\n"
		"Field ids are stable: a column keeps its id across generations (and across a rename);\n"
		"a new column, or one dropped and added again, gets a new id; ids are never reused.\n\n"
		"A generated file you edited by hand is kept, not overwritten, and reported as drift;\n"
		"delete it to have floe write it again. Running generate again with nothing changed\n"
		"makes no commit. Commits are authored by git's user.name/user.email, else\n"
		"floe <floe@localhost>, and only ever contain floe's own files.\n\n"
		"Exits 0 (drift is reported, not an error); 2 for a mistake in quality/*.toml; 3 when the\n"
		"source is unreachable.",
	.examples =
		"  floe generate\n"
		"  git -C pipeline log --stat -1\n"
		"  floe generate --json | jq '.files[] | select(.drift)'\n",
	.options = options,
	.min_positional = 0,
	.max_positional = 0,
	.run = run,
};
