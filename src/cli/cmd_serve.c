/*
 * cmd_serve.c — `floe serve [--listen HOST:PORT]`.
 */
#include "cli/cli.h"
#include "base/error.h"
#include "server/http.h"
#include "server/serve.h"

#include <stdlib.h>

static const floe_cli_option options[] = {
	{ "listen", 'l', "HOST:PORT", "address to listen on (default 127.0.0.1:9464; port 0: any free one)" },
	{ "grace", 0, "SECONDS", "on SIGTERM, how long running loads may finish before they are stopped (default 30)" },
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

static int run(floe_cli_ctx *ctx)
{
	floe_config *config = NULL;
	floe_serve_opts opts = FLOE_SERVE_OPTS_INIT;
	char host[256] = "127.0.0.1";
	const char *listen = floe_cli_value(ctx, "listen");
	int rc = -1;
	if (listen && floe_http_parse_listen(host, sizeof(host), &opts.port, listen) < 0)
		goto cleanup;
	if (grace_of(&opts.grace_seconds, floe_cli_value(ctx, "grace")) < 0 || floe_cli_load_config(&config, ctx) < 0)
		goto cleanup;
	opts.host = host;
	opts.config = config;
	rc = floe_serve_run(&opts);
cleanup:
	floe_config_free(config);
	return rc;
}

const floe_cli_command floe_cmd_serve = {
	.name = "serve",
	.summary = "run the pipeline on its [schedule] and serve /metrics, /healthz, /readyz",
	.usage = "serve [--listen HOST:PORT] [--grace SECONDS]",
	.description =
		"One long-running process: runs each table and layer on the cron schedule of floe.toml's\n"
		"[schedule] (UTC) as `floe run --table T --layer L --json` — never two runs of one table at\n"
		"once, failed runs retried with backoff, ticks missed while it was down run once — and\n"
		"answers HTTP, on 127.0.0.1 unless --listen says otherwise: /healthz (up), /readyz (catalog\n"
		"and source reachable, else 503 with the reason), /metrics (Prometheus text format, from the\n"
		"run ledger, the values `floe status --json` shows).\n"
		"SIGTERM or SIGINT: no new runs, running loads get --grace seconds to finish, then are\n"
		"stopped (each table keeps its previous snapshot); exit 0. A second signal stops them at once.\n"
		"See docs/serve.md.",
	.examples = "  floe serve\n  floe serve --listen 0.0.0.0:9464\n  curl -s 127.0.0.1:9464/metrics | grep floe_table_state\n",
	.options = options,
	.min_positional = 0,
	.max_positional = 0,
	.run = run,
};
