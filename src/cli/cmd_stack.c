/*
 * cmd_stack.c — `floe stack up | down | status | destroy`: the private PostgreSQL
 * cluster under .floe/pg for demos and tests.
 */
#include "cli/cli.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/secret.h"
#include "base/text.h"
#include "stack/stack.h"

#include <stdlib.h>
#include <string.h>

static const floe_cli_option options[] = {
	{ "port", 'p', "PORT", "up: listen on this port (default: the previous one, or a free one)" },
	{ "os-user", 0, "USER", "up, as root: run PostgreSQL as this OS user (default: postgres)" },
	{ "database", 'd', "NAME", "up: create this database if it is missing" },
	{ "reader", 0, "ROLE", "up: create this read-only LOGIN role, password from FLOE_SOURCE_PASSWORD" },
	{ "json", 0, NULL, "status: print as JSON" },
	{ NULL, 0, NULL, NULL },
};

static void render_text(floe_buf *out, const floe_stack_info *info, const char *database,
			const char *reader)
{
	if (!info->initialized) {
		floe_buf_puts(out, "no local cluster in this project (run `floe stack up`)\n");
		return;
	}
	floe_buf_printf(out, "local PostgreSQL: %s\n", info->running ? "running" : "stopped");
	floe_buf_printf(out, "  data     %s", info->data_dir);
	if (info->os_user[0])
		floe_buf_printf(out, " (run as OS user %s)", info->os_user);
	floe_buf_putc(out, '\n');
	floe_buf_printf(out, "  log      %s\n", info->log_file);
	if (!info->running) {
		floe_buf_puts(out, "  start    floe stack up\n");
		return;
	}
	floe_buf_printf(out, "  listens  127.0.0.1:%d and socket %s\n", info->port, info->socket_dir);
	floe_buf_printf(out, "  admin    psql -h %s -p %d -U postgres %s\n", info->socket_dir, info->port,
			database ? database : "postgres");
	floe_buf_printf(out, "  source   floe init --source 127.0.0.1:%d/%s --source-user %s\n", info->port,
			database ? database : "DB", reader ? reader : "ROLE");
	floe_buf_puts(out, "  stop     floe stack down\n");
}

static void render_json(floe_buf *out, const floe_stack_info *info)
{
	floe_buf_printf(out, "{\"initialized\":%s,\"running\":%s,\"port\":%d",
			info->initialized ? "true" : "false", info->running ? "true" : "false", info->port);
	floe_json_put_member(out, "host", "127.0.0.1");
	floe_json_put_member(out, "socket_dir", info->socket_dir);
	floe_json_put_member(out, "data_dir", info->data_dir);
	floe_json_put_member(out, "log_file", info->log_file);
	floe_json_put_member(out, "os_user", info->os_user);
	floe_json_put_member(out, "superuser", "postgres");
	floe_buf_puts(out, "}\n");
}

static int up(floe_cli_ctx *ctx, const char *dir, floe_stack_info *info)
{
	floe_stack_opts opts = FLOE_STACK_OPTS_INIT;
	const char *port = floe_cli_value(ctx, "port");
	const char *reader = floe_cli_value(ctx, "reader");
	const char *password = NULL;
	opts.os_user = floe_cli_value(ctx, "os-user");
	if (port) {
		int64_t p;
		if (floe_text_parse_int64(&p, port, strlen(port), 1, 65535) < 0)
			return floe_error_set(FLOE_ERR_USAGE, "--port \"%s\" is not a port number (1–65535)", port);
		opts.port = (int)p;
	}
	if (reader) {
		password = getenv("FLOE_SOURCE_PASSWORD");
		if (!password || !password[0]) {
			floe_error_set(FLOE_ERR_USAGE, "--reader needs a password in FLOE_SOURCE_PASSWORD");
			floe_error_hint("export FLOE_SOURCE_PASSWORD=… (the password the role will have); "
					"floe never takes passwords on the command line.");
			return -1;
		}
		floe_secret_register(password);
	}
	if (floe_stack_up(info, dir, &opts) < 0)
		return -1;
	return floe_stack_provision(info, floe_cli_value(ctx, "database"), reader, password);
}

static int run(floe_cli_ctx *ctx)
{
	const char *verb = ctx->positional[0];
	floe_buf dir = FLOE_BUF_INIT, out = FLOE_BUF_INIT;
	floe_stack_info info;
	int rc = -1;
	if (floe_fs_absolute(&dir, ctx->project_dir ? ctx->project_dir : ".") < 0)
		goto cleanup;
	if (strcmp(verb, "up") == 0)
		rc = up(ctx, dir.ptr, &info);
	else if (strcmp(verb, "down") == 0)
		rc = floe_stack_down(&info, dir.ptr);
	else if (strcmp(verb, "status") == 0)
		rc = floe_stack_status(&info, dir.ptr);
	else if (strcmp(verb, "destroy") == 0)
		rc = floe_stack_destroy(dir.ptr);
	else {
		floe_error_set(FLOE_ERR_USAGE, "unknown `floe stack` action `%s`", verb);
		floe_error_hint("Use up, down, status or destroy.");
		goto cleanup;
	}
	if (rc < 0)
		goto cleanup;
	if (strcmp(verb, "destroy") == 0)
		floe_buf_puts(&out, "local cluster removed\n");
	else if (floe_cli_flag(ctx, "json"))
		render_json(&out, &info);
	else
		render_text(&out, &info, floe_cli_value(ctx, "database"), floe_cli_value(ctx, "reader"));
	floe_cli_out(&out);
	/* status: exit 1 when not running, so scripts can test it. */
	rc = strcmp(verb, "status") == 0 && !info.running ? 1 : 0;
cleanup:
	floe_buf_free(&dir);
	floe_buf_free(&out);
	return rc;
}

const floe_cli_command floe_cmd_stack = {
	.name = "stack",
	.summary = "start or stop a private PostgreSQL for demos and tests (.floe/pg)",
	.usage = "stack up|down|status|destroy [OPTIONS]",
	.description =
		"Runs a PostgreSQL cluster that belongs to the project: its files under .floe/pg, listening\n"
		"on 127.0.0.1 at a free port (kept across restarts) and on a socket inside the project.\n"
		"As root it runs as an unprivileged OS user (PostgreSQL refuses root). Local socket\n"
		"connections as `postgres` are trusted; TCP connections need a password.\n"
		"A user with their own database never needs this.\n\n"
		"  up       create the cluster the first time, start it, optionally create a database and\n"
		"           a read-only role for floe\n"
		"  down     stop it (fast shutdown)\n"
		"  status   say whether it runs and how to connect (exit 1 when stopped)\n"
		"  destroy  remove its files (stop it first)",
	.examples =
		"  export FLOE_SOURCE_PASSWORD=\"$(openssl rand -hex 16)\"\n"
		"  floe stack up --database shop --reader floe_reader\n"
		"  floe stack status --json\n"
		"  floe stack down\n",
	.options = options,
	.min_positional = 1,
	.max_positional = 1,
	.run = run,
};
