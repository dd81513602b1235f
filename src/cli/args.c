/*
 * args.c — option parsing and help for every command, from its option table.
 * Accepts --name VALUE, --name=VALUE, -x VALUE, and flags; `--` ends options.
 */
#include "cli/cli.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/log.h"
#include "base/secret.h"
#include "base/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const floe_cli_option common_options[] = {
	{ "config", 0, "FILE", "configuration file (default: DIR/floe.toml)" },
	{ "directory", 'C', "DIR", "project directory (default: the current one)" },
	{ "verbose", 'v', NULL, "log more (twice: debug)" },
	{ "log-json", 0, NULL, "log as JSON lines on stderr" },
	{ "help", 'h', NULL, "show this help" },
	{ NULL, 0, NULL, NULL },
};

static int find_option(const floe_cli_option *opts, const char *name, size_t len, char short_name)
{
	for (int i = 0; opts[i].name; i++) {
		if (short_name ? opts[i].short_name == short_name
			       : strlen(opts[i].name) == len && strncmp(opts[i].name, name, len) == 0)
			return i;
	}
	return -1;
}

char *floe_cli_option_name(const char *arg)
{
	/* a single-dash option is one letter: what follows it may be a glued value (-pSECRET) */
	size_t len = arg[0] == '-' && arg[1] != '-' && arg[1] != '\0' ? 2 : strcspn(arg, "=");
	char *name = floe_xstrndup(arg, len);
	floe_buf shown = FLOE_BUF_INIT;
	if (floe_text_put_printable(&shown, name) < 0)
		floe_buf_puts(&shown, "(a name too long to show)");
	else if (len == 2 && arg[2] != '\0')
		floe_buf_puts(&shown, "…");
	char *out = floe_xstrndup(floe_buf_cstr(&shown), shown.len);
	floe_buf_free(&shown);
	free(name);
	return out;
}

static int unknown_option(const floe_cli_command *cmd, const char *arg)
{
	const char *names[FLOE_CLI_MAX_OPTIONS * 2];
	int n = 0;
	for (int i = 0; cmd->options[i].name && n < FLOE_CLI_MAX_OPTIONS; i++)
		names[n++] = cmd->options[i].name;
	for (int i = 0; common_options[i].name; i++)
		names[n++] = common_options[i].name;
	names[n] = NULL;
	const char *bare = arg + strspn(arg, "-");
	char word[64];
	snprintf(word, sizeof(word), "%.*s", (int)strcspn(bare, "="), bare);
	const char *near = floe_text_suggest(word, names);
	char *shown = floe_cli_option_name(arg); /* never the value: it may be a password */
	if (near)
		floe_error_set(FLOE_ERR_USAGE, "unknown option `%s` for `floe %s` — did you mean `--%s`?",
			       shown, cmd->name, near);
	else
		floe_error_set(FLOE_ERR_USAGE, "unknown option `%s` for `floe %s`", shown, cmd->name);
	floe_error_hint("Run `floe %s --help` for its options.", cmd->name);
	free(shown);
	return -1;
}

static int set_common(floe_cli_ctx *ctx, int idx, const char *value)
{
	const char *name = common_options[idx].name;
	if (strcmp(name, "config") == 0)
		ctx->config_path = value;
	else if (strcmp(name, "directory") == 0)
		ctx->project_dir = value;
	else if (strcmp(name, "verbose") == 0)
		ctx->verbose++;
	else if (strcmp(name, "log-json") == 0)
		ctx->log_json = true;
	else if (strcmp(name, "help") == 0)
		return 1;
	return 0;
}

/* Resolve one option token at argv[*i]; consumes its value. */
static int parse_option(floe_cli_ctx *ctx, const floe_cli_command *cmd, int argc, char **argv, int *i)
{
	const char *arg = argv[*i];
	const char *name = arg + 2, *inline_value = NULL;
	size_t len;
	char short_name = 0;
	if (arg[1] == '-') {
		const char *eq = strchr(name, '=');
		len = eq ? (size_t)(eq - name) : strlen(name);
		inline_value = eq ? eq + 1 : NULL;
	} else {
		if (arg[1] == 'v' && arg[strspn(arg + 1, "v") + 1] == '\0') { /* -vv */
			ctx->verbose += (int)strspn(arg + 1, "v");
			return 0;
		}
		if (arg[2] != '\0')
			return unknown_option(cmd, arg);
		short_name = arg[1];
		name = NULL;
		len = 0;
	}
	int idx = find_option(cmd->options, name, len, short_name);
	const floe_cli_option *opt = idx >= 0 ? &cmd->options[idx] : NULL;
	int common = -1;
	if (!opt) {
		common = find_option(common_options, name, len, short_name);
		if (common < 0)
			return unknown_option(cmd, arg);
		opt = &common_options[common];
	}
	const char *value = "";
	if (opt->arg) {
		if (inline_value)
			value = inline_value;
		else if (*i + 1 < argc)
			value = argv[++*i];
		else
			return floe_error_set(FLOE_ERR_USAGE, "option `--%s` needs a value (%s)", opt->name, opt->arg);
	} else if (inline_value) {
		return floe_error_set(FLOE_ERR_USAGE, "option `--%s` takes no value", opt->name);
	}
	if (common >= 0)
		return set_common(ctx, common, value);
	ctx->values[idx] = value;
	if (ctx->n_given == FLOE_CLI_MAX_GIVEN)
		return floe_error_set(FLOE_ERR_USAGE, "too many options (at most %d)", FLOE_CLI_MAX_GIVEN);
	ctx->given[ctx->n_given].option = idx;
	ctx->given[ctx->n_given++].value = value;
	return 0;
}

int floe_cli_parse(floe_cli_ctx *ctx, const floe_cli_command *cmd, int argc, char **argv)
{
	bool only_positional = false;
	ctx->command = cmd;
	for (int i = 0; i < argc; i++) {
		const char *arg = argv[i];
		if (!only_positional && strcmp(arg, "--") == 0) {
			only_positional = true;
		} else if (!only_positional && arg[0] == '-' && arg[1] != '\0') {
			int rc = parse_option(ctx, cmd, argc, argv, &i);
			if (rc == 1) {
				floe_cli_print_help(cmd);
				return 1;
			}
			if (rc < 0)
				return -1;
		} else {
			if (ctx->n_positional == cmd->max_positional) {
				floe_error_set(FLOE_ERR_USAGE, "unexpected argument `%s` for `floe %s`", arg, cmd->name);
				floe_error_hint("Usage: floe %s", cmd->usage);
				return -1;
			}
			ctx->positional[ctx->n_positional++] = arg;
		}
	}
	if (ctx->n_positional < cmd->min_positional) {
		floe_error_set(FLOE_ERR_USAGE, "`floe %s` needs more arguments", cmd->name);
		floe_error_hint("Usage: floe %s", cmd->usage);
		return -1;
	}
	floe_log_configure(ctx->verbose >= 2 ? FLOE_LOG_DEBUG : ctx->verbose ? FLOE_LOG_INFO : FLOE_LOG_WARN,
			   ctx->log_json);
	return 0;
}

const char *floe_cli_value(const floe_cli_ctx *ctx, const char *name)
{
	int idx = find_option(ctx->command->options, name, strlen(name), 0);
	return idx >= 0 ? ctx->values[idx] : NULL;
}

size_t floe_cli_values(const floe_cli_ctx *ctx, const char *name, char **out, size_t max)
{
	int idx = find_option(ctx->command->options, name, strlen(name), 0);
	size_t n = 0;
	for (int i = 0; i < ctx->n_given && idx >= 0; i++) {
		if (ctx->given[i].option != idx)
			continue;
		for (const char *p = ctx->given[i].value; *p && n < max;) {
			size_t len = strcspn(p, ",");
			if (len)
				out[n++] = floe_xstrndup(p, len);
			p += len + (p[len] == ',');
		}
	}
	return n;
}

bool floe_cli_flag(const floe_cli_ctx *ctx, const char *name)
{
	return floe_cli_value(ctx, name) != NULL;
}

static void print_options(const floe_cli_option *opts)
{
	for (int i = 0; opts[i].name; i++) {
		char left[64];
		if (opts[i].short_name)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", opts[i].short_name, opts[i].name,
				 opts[i].arg ? " " : "", opts[i].arg ? opts[i].arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", opts[i].name, opts[i].arg ? " " : "",
				 opts[i].arg ? opts[i].arg : "");
		printf("  %-28s %s\n", left, opts[i].help);
	}
}

const floe_cli_command *floe_cli_subcommand(const floe_cli_command *parent, const char *word)
{
	for (const floe_cli_command *const *c = parent->subcommands; c && *c; c++) {
		const char *leaf = strrchr((*c)->name, ' ');
		if (strcmp(leaf ? leaf + 1 : (*c)->name, word) == 0)
			return *c;
	}
	return NULL;
}

void floe_cli_print_help(const floe_cli_command *cmd)
{
	printf("usage: floe %s\n\n%s\n", cmd->usage, cmd->description);
	if (cmd->subcommands) {
		printf("\nactions:\n");
		for (const floe_cli_command *const *c = cmd->subcommands; *c; c++)
			printf("  %-22s %s\n", (*c)->name, (*c)->summary);
		printf("\nRun `floe %s ACTION --help` for an action's options and examples.\n", cmd->name);
	}
	if (cmd->options[0].name) {
		printf("\noptions:\n");
		print_options(cmd->options);
	}
	printf("\ncommon options:\n");
	print_options(common_options);
	printf("\nexamples:\n%s", cmd->examples);
	printf("\nexit codes: 0 ok, 1 a check failed, 2 usage or configuration error, "
	       "3 a service unreachable, 4 internal error\n");
}

int floe_cli_load_config(floe_config **out, const floe_cli_ctx *ctx)
{
	floe_buf path = FLOE_BUF_INIT;
	if (ctx->config_path)
		floe_buf_puts(&path, ctx->config_path);
	else
		floe_buf_printf(&path, "%s/floe.toml", ctx->project_dir ? ctx->project_dir : ".");
	int rc = floe_config_load(out, floe_buf_cstr(&path));
	if (rc == 0 && (rc = floe_cli_route_warehouse(*out)) < 0) {
		floe_config_free(*out);
		*out = NULL;
	}
	floe_buf_free(&path);
	return rc;
}

void floe_cli_out(const floe_buf *text)
{
	floe_buf copy = FLOE_BUF_INIT;
	floe_buf_put(&copy, text->ptr ? text->ptr : "", text->len);
	floe_secret_scrub_buf(&copy);
	fwrite(floe_buf_cstr(&copy), 1, copy.len, stdout);
	fflush(stdout);
	floe_buf_free(&copy);
}

void floe_cli_printf(const char *fmt, ...)
{
	floe_buf b = FLOE_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	floe_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	floe_cli_out(&b);
	floe_buf_free(&b);
}
