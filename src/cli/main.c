/*
 * main.c — floe's entry point: common options, then dispatch to cmd_<verb>.c.
 */
#include "cli/cli.h"
#include "base/error.h"
#include "base/text.h"
#include "base/version.h"
#include "engine/engine.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const floe_cli_command *const commands[] = {
	&floe_cmd_init,
	&floe_cmd_doctor,
	&floe_cmd_plan,
	&floe_cmd_generate,
	&floe_cmd_sync,
	&floe_cmd_run,
	&floe_cmd_reconcile,
	&floe_cmd_status,
	&floe_cmd_serve,
	&floe_cmd_alert,
	&floe_cmd_check,
	&floe_cmd_catalog,
	&floe_cmd_query,
	&floe_cmd_publish,
	&floe_cmd_stack,
	&floe_cmd_shop,
	&floe_cmd_gold,
	&floe_cmd_pentaho,
	&floe_cmd_mcp,
	&floe_cmd_quickstart,
	NULL,
};

static void print_overview(void)
{
	printf("floe %s — PostgreSQL into Apache Iceberg (bronze, silver, gold), verified.\n\n"
	       "usage: floe [-C DIR] [--config FILE] [-v] COMMAND [OPTIONS]\n\ncommands:\n",
	       FLOE_VERSION);
	for (const floe_cli_command *const *c = commands; *c; c++)
		printf("  %-10s %s\n", (*c)->name, (*c)->summary);
	printf("\nexamples:\n"
	       "  floe stack up --database shop --reader floe_reader   # a local PostgreSQL to try floe on\n"
	       "  floe shop generate --scale 0.1                       # fill it with an Olist-shaped shop\n"
	       "  floe init --source 127.0.0.1:5432/shop --source-user floe_reader\n"
	       "  floe doctor\n"
	       "  floe plan\n"
	       "  floe generate\n\n"
	       "Run `floe COMMAND --help` for a command's options and examples.\n\n"
	       "exit codes:\n"
	       "  0  ok\n"
	       "  1  a check failed or data diverged\n"
	       "  2  usage or configuration error\n"
	       "  3  a service (PostgreSQL, catalog) unreachable\n"
	       "  4  internal error\n");
}

static const floe_cli_command *find_command(const char *name)
{
	for (const floe_cli_command *const *c = commands; *c; c++)
		if (strcmp((*c)->name, name) == 0)
			return *c;
	return NULL;
}

static int unknown_command(const char *name)
{
	const char *names[16];
	int n = 0;
	for (const floe_cli_command *const *c = commands; *c && n < 15; c++)
		names[n++] = (*c)->name;
	names[n] = NULL;
	const char *near = floe_text_suggest(name, names);
	if (near)
		floe_error_set(FLOE_ERR_USAGE, "unknown command `%s` — did you mean `%s`?", name, near);
	else
		floe_error_set(FLOE_ERR_USAGE, "unknown command `%s`", name);
	floe_error_hint("Run `floe --help` for the list of commands.");
	return -1;
}

static int unknown_action(const floe_cli_command *cmd, const char *word)
{
	const char *names[FLOE_CLI_MAX_OPTIONS + 1];
	int n = 0;
	for (const floe_cli_command *const *c = cmd->subcommands; *c && n < FLOE_CLI_MAX_OPTIONS; c++) {
		const char *leaf = strrchr((*c)->name, ' ');
		names[n++] = leaf ? leaf + 1 : (*c)->name;
	}
	names[n] = NULL;
	const char *near = floe_text_suggest(word, names);
	if (near)
		floe_error_set(FLOE_ERR_USAGE, "unknown `floe %s` action `%s` — did you mean `%s`?", cmd->name, word, near);
	else
		floe_error_set(FLOE_ERR_USAGE, "unknown `floe %s` action `%s`", cmd->name, word);
	floe_error_hint("Run `floe %s --help` for its actions.", cmd->name);
	return -1;
}

/* Common options written before the verb: -C DIR, --config FILE, -v, --log-json. */
static int leading_options(floe_cli_ctx *ctx, int argc, char **argv)
{
	int i = 1;
	while (i < argc && argv[i][0] == '-') {
		const char *a = argv[i];
		if ((strcmp(a, "-C") == 0 || strcmp(a, "--directory") == 0) && i + 1 < argc) {
			ctx->project_dir = argv[i + 1];
			i += 2;
		} else if (strcmp(a, "--config") == 0 && i + 1 < argc) {
			ctx->config_path = argv[i + 1];
			i += 2;
		} else if (strcmp(a, "--verbose") == 0 || (a[1] == 'v' && a[strspn(a + 1, "v") + 1] == '\0')) {
			ctx->verbose += a[1] == 'v' ? (int)strspn(a + 1, "v") : 1;
			i++;
		} else if (strcmp(a, "--log-json") == 0) {
			ctx->log_json = true;
			i++;
		} else {
			break;
		}
	}
	return i;
}

static int run(int argc, char **argv)
{
	floe_cli_ctx ctx = { 0 };
	int i = leading_options(&ctx, argc, argv);
	if (i >= argc || strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
		print_overview();
		return i >= argc ? FLOE_EXIT_USAGE : FLOE_EXIT_OK;
	}
	if (strcmp(argv[i], "--version") == 0 || strcmp(argv[i], "version") == 0) {
		printf("floe %s (DuckDB %s)\n", FLOE_VERSION, floe_engine_version());
		return FLOE_EXIT_OK;
	}
	if (strcmp(argv[i], "help") == 0) {
		const floe_cli_command *cmd = i + 1 < argc ? find_command(argv[i + 1]) : NULL;
		if (i + 1 < argc && !cmd)
			return unknown_command(argv[i + 1]), -1;
		if (cmd)
			floe_cli_print_help(cmd);
		else
			print_overview();
		return FLOE_EXIT_OK;
	}
	if (argv[i][0] == '-') {
		char *shown = floe_cli_option_name(argv[i]);
		floe_error_set(FLOE_ERR_USAGE, "unknown option `%s` before the command", shown);
		floe_error_hint("Run `floe --help`.");
		free(shown);
		return -1;
	}
	const floe_cli_command *cmd = find_command(argv[i]);
	if (!cmd)
		return unknown_command(argv[i]);
	/* A command that runs itself and has actions (`floe serve`, `floe serve token`): an action's word, else itself. */
	const floe_cli_command *own = cmd->run && cmd->subcommands && i + 1 < argc ? floe_cli_subcommand(cmd, argv[i + 1]) : NULL;
	if (cmd->subcommands && (!cmd->run || own)) {
		const char *word = i + 1 < argc ? argv[i + 1] : NULL;
		if (!word || strcmp(word, "--help") == 0 || strcmp(word, "-h") == 0) {
			floe_cli_print_help(cmd);
			return word ? FLOE_EXIT_OK : FLOE_EXIT_USAGE;
		}
		const floe_cli_command *sub = floe_cli_subcommand(cmd, word);
		if (!sub)
			return unknown_action(cmd, word);
		cmd = sub;
		i++;
	}
	int rc = floe_cli_parse(&ctx, cmd, argc - i - 1, argv + i + 1);
	if (rc != 0)
		return rc > 0 ? FLOE_EXIT_OK : -1;
	return cmd->run(&ctx);
}

int main(int argc, char **argv)
{
	/* A file-size limit (ulimit -f) is an error with a cause (EFBIG), not a killed process. */
	signal(SIGXFSZ, SIG_IGN);
	int rc = run(argc, argv);
	if (rc < 0) {
		floe_error_print(stderr);
		rc = (int)floe_error_exit_code();
	}
	return rc;
}
