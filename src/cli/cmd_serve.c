/*
 * cmd_serve.c — `floe serve [--listen HOST:PORT]`.
 */
#include "cli/cli.h"
#include "auth/auth.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/text.h"
#include "config/serve.h"
#include "state/console.h"
#include "server/http.h"
#include "server/serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const floe_cli_option options[] = {
	{ "listen", 'l', "HOST:PORT", "address to listen on (default 127.0.0.1:9464; port 0: any free one)" },
	{ "grace", 0, "SECONDS", "on SIGTERM, how long running loads may finish before they are stopped (default 30)" },
	{ "tls-cert", 0, "FILE", "serve HTTPS with this PEM certificate chain (with --tls-key)" },
	{ "tls-key", 0, "FILE", "the PEM private key of --tls-cert" },
	{ "insecure-http", 0, NULL, "listen beyond loopback without TLS (a proxy in front terminates it)" },
	{ NULL, 0, NULL, NULL },
};

static int grace_of(int *out, const char *text)
{
	char *end = NULL;
	long v = text ? strtol(text, &end, 10) : 30;
	if (text && (end == text || *end || v < 0 || v > 86400)) {
		floe_error_set(FLOE_ERR_USAGE, "`--grace %s` is not a number of seconds", text);
		floe_error_hint("Give whole seconds from 0 to 86400, e.g. `--grace 30`.");
		return -1;
	}
	*out = (int)v;
	return 0;
}

/* A [serve] file path as the server opens it: relative to the project. */
static const char *project_path(floe_config *config, const char *p)
{
	return !p || p[0] == '/' ? p : floe_arena_printf(config->arena, "%s/%s", config->project_dir, p);
}

/* The command line wins over floe.toml's [serve]. */
static void serve_settings(floe_serve_opts *opts, const char **listen, floe_cli_ctx *ctx, floe_config *config)
{
	const floe_config_serve *s = config->serve;
	*listen = floe_cli_value(ctx, "listen") ? floe_cli_value(ctx, "listen") : s ? s->listen : NULL;
	opts->tls_cert = floe_cli_value(ctx, "tls-cert");
	opts->tls_key = floe_cli_value(ctx, "tls-key");
	if (!opts->tls_cert && !opts->tls_key && s) {
		opts->tls_cert = project_path(config, s->tls_cert);
		opts->tls_key = project_path(config, s->tls_key);
	}
	opts->insecure_http = floe_cli_flag(ctx, "insecure-http") || (s && s->insecure_http);
}

static int run(floe_cli_ctx *ctx)
{
	floe_config *config = NULL;
	floe_serve_opts opts = FLOE_SERVE_OPTS_INIT;
	char host[256] = "127.0.0.1";
	const char *listen = NULL;
	int rc = -1;
	if (grace_of(&opts.grace_seconds, floe_cli_value(ctx, "grace")) < 0 || floe_cli_load_config(&config, ctx) < 0)
		goto cleanup;
	serve_settings(&opts, &listen, ctx, config);
	if (listen && floe_http_parse_listen(host, sizeof(host), &opts.port, listen) < 0)
		goto cleanup;
	if (!opts.tls_cert != !opts.tls_key) {
		floe_error_set(FLOE_ERR_USAGE, "--tls-cert and --tls-key go together");
		floe_error_hint("Give both PEM files, or neither.");
		goto cleanup;
	}
	opts.host = host;
	opts.config = config;
	rc = floe_serve_run(&opts);
cleanup:
	floe_config_free(config);
	return rc;
}

static int token_list(const char *project_dir)
{
	floe_state *st = NULL;
	floe_arena *a = floe_arena_new();
	floe_state_token *t = NULL;
	size_t n = 0;
	int error = -1;
	if (floe_state_open(&st, project_dir) < 0 || floe_state_token_list(st, a, &t, &n) < 0)
		goto cleanup;
	if (n == 0)
		floe_cli_printf("no tokens: `floe serve` on loopback lets every request act as admin\n");
	for (size_t i = 0; i < n; i++) {
		char *name = floe_text_printable(t[i].name);
		floe_cli_printf("%-24s %-9s created %s, last used %s\n", name, t[i].role, t[i].created_at,
				t[i].last_used_at ? t[i].last_used_at : "never");
		free(name);
	}
	error = 0;
cleanup:
	floe_state_close(st);
	floe_arena_free(a);
	return error;
}

static int token_add(floe_cli_ctx *ctx, const char *project_dir)
{
	char token[FLOE_AUTH_TOKEN_LEN + 1], name[FLOE_AUTH_NAME_MAX];
	floe_role role = FLOE_ROLE_NONE;
	const char *role_text = floe_cli_value(ctx, "role");
	if (!role_text) {
		floe_error_set(FLOE_ERR_USAGE, "`floe serve token add` needs --role");
		floe_error_hint("Give --role viewer, operator or admin.");
		return -1;
	}
	if (floe_auth_role_parse(&role, role_text) < 0 ||
	    floe_auth_token_add(token, name, project_dir, role, floe_cli_value(ctx, "name")) < 0)
		return -1;
	/* The one place a token is shown; on stdout only, never logged. */
	printf("%s\n", token);
	fprintf(stderr, "token \"%s\" (%s) created: it is shown only now; the ledger keeps its SHA-256\n", name,
		floe_auth_role_name(role));
	return 0;
}

static int token_run(floe_cli_ctx *ctx)
{
	floe_config *config = NULL;
	const char *action = ctx->positional[0];
	int rc = -1;
	bool named = ctx->n_positional == 2;
	if (floe_cli_load_config(&config, ctx) < 0)
		goto cleanup;
	if (strcmp(action, "add") == 0 && !named)
		rc = token_add(ctx, config->project_dir);
	else if (strcmp(action, "list") == 0 && !named)
		rc = token_list(config->project_dir);
	else if (strcmp(action, "revoke") == 0 && named)
		rc = floe_auth_token_revoke(config->project_dir, ctx->positional[1]);
	else {
		floe_error_set(FLOE_ERR_USAGE, "`floe serve token %s` is not an action", action);
		floe_error_hint("Use `token add --role R [--name N]`, `token list` or `token revoke NAME`.");
	}
	int64_t left = 0;
	if (rc == 0 && strcmp(action, "revoke") == 0 && (rc = floe_auth_token_count(config->project_dir, &left)) == 0)
		floe_cli_printf("revoked; its sessions ended%s\n",
				left ? "" : "\nno token is left: `floe serve` on loopback lets every request act as admin again");
cleanup:
	floe_config_free(config);
	return rc;
}

static const floe_cli_option token_options[] = {
	{ "role", 0, "ROLE", "add: viewer (reads everything), operator (also runs jobs) or admin (also dangerous actions)" },
	{ "name", 0, "NAME", "add: the token's name (default ROLE-xxxxxxxx)" },
	{ NULL, 0, NULL, NULL },
};

static const floe_cli_command serve_token = {
	.name = "serve token",
	.summary = "add, list or revoke the access tokens of floe serve",
	.usage = "serve token add --role viewer|operator|admin [--name NAME] | list | revoke NAME",
	.description =
		"`add` prints a new token (floe_ and 64 hex digits) once; the run ledger keeps only its SHA-256.\n"
		"Clients send it as `Authorization: Bearer TOKEN`; the console logs in with it. Once a token\n"
		"exists every request needs one (loopback too). `list` shows names, roles and last use;\n"
		"`revoke NAME` removes a token and ends its sessions at once. See docs/console.md.",
	.examples = "  floe serve token add --role viewer --name dashboards\n  floe serve token list\n"
		    "  floe serve token revoke dashboards\n",
	.options = token_options,
	.min_positional = 1,
	.max_positional = 2,
	.run = token_run,
};

static const floe_cli_command *const serve_actions[] = { &serve_token, NULL };

const floe_cli_command floe_cmd_serve = {
	.name = "serve",
	.summary = "run the pipeline on its [schedule] and serve /metrics, /healthz, /readyz",
	.usage = "serve [--listen HOST:PORT] [--grace SECONDS] [--tls-cert FILE --tls-key FILE] [--insecure-http]",
	.description =
		"One long-running process: runs each table and layer on the cron schedule of floe.toml's\n"
		"[schedule] (UTC) as `floe run --table T --layer L --json` — never two runs of one table at\n"
		"once, failed runs retried with backoff, ticks missed while it was down run once — and\n"
		"answers HTTP, on 127.0.0.1 unless --listen says otherwise: /healthz (up), /readyz (catalog\n"
		"and source reachable, else 503 with the reason), /metrics (Prometheus text format, from the\n"
		"run ledger, the values `floe status --json` shows).\n"
		"SIGTERM or SIGINT: no new runs, running loads get --grace seconds to finish, then are\n"
		"stopped (each table keeps its previous snapshot); exit 0. A second signal stops them at once.\n"
		"Access: with no token, loopback requests act as admin; beyond loopback floe needs a token\n"
		"(`floe serve token add`) and TLS (--tls-cert/--tls-key, or --insecure-http behind a proxy).\n"
		"See docs/serve.md and docs/console.md.",
	.examples = "  floe serve\n  floe serve --listen 0.0.0.0:9464\n  curl -s 127.0.0.1:9464/metrics | grep floe_table_state\n",
	.options = options,
	.min_positional = 0,
	.max_positional = 0,
	.run = run,
	.subcommands = serve_actions,
};
