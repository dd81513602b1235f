/*
 * cmd_quickstart.c — `floe quickstart`: the installer script installed beside this binary
 * (PREFIX/share/floe/install.sh; scripts/install.sh in a source tree), run in this process's
 * place so it keeps the terminal (its password prompt turns echo off).
 */
#include "cli/cli.h"
#include "base/buf.h"
#include "base/error.h"

#include <errno.h>
#include <libgen.h>
#include <string.h>
#include <unistd.h>

static const floe_cli_option options[] = {
	{ "project", 0, "DIR", "the project directory (default: ~/floe-shop, or ~/floe-DB with --source)" },
	{ "source", 0, "HOST:PORT/DB", "set up on this database instead of the sample shop (doctor and plan, no load)" },
	{ "source-user", 0, "USER", "the read-only role floe reads the source as (with --source)" },
	{ "scale", 0, "S", "the sample shop's size (default 0.1; 1 is Olist's own size)" },
	{ "listen", 0, "HOST:PORT", "where the console listens (default 127.0.0.1 on a free port)" },
	{ NULL, 0, NULL, NULL },
};

/* The installer beside this binary: ../share/floe/install.sh (installed) or ../scripts/install.sh (a build). */
static int find_script(floe_buf *out)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		floe_error_set_errno(FLOE_ERR_INTERNAL, "cannot find where this floe is installed (/proc/self/exe)");
		return -1;
	}
	self[n] = '\0';
	const char *dir = dirname(self);
	static const char *const candidates[] = { "/../share/floe/install.sh", "/../scripts/install.sh" };
	for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
		floe_buf_clear(out);
		if (floe_buf_printf(out, "%s%s", dir, candidates[i]) < 0)
			return -1;
		if (access(floe_buf_cstr(out), R_OK) == 0)
			return 0;
	}
	floe_error_set(FLOE_ERR_CONFIG, "the installer is not installed beside %s", self);
	floe_error_hint("Install floe with `make install` or its Debian package, which put it in PREFIX/share/floe/.");
	return -1;
}

static int run(floe_cli_ctx *ctx)
{
	floe_buf script = FLOE_BUF_INIT;
	const char *argv[2 + 2 * 5 + 1] = { "bash" };
	char flags[5][24]; /* "--name" of each option given */
	int argc = 1, rc = -1;
	if (find_script(&script) < 0)
		goto cleanup;
	argv[argc++] = floe_buf_cstr(&script);
	for (const floe_cli_option *o = options; o->name; o++) {
		const char *value = floe_cli_value(ctx, o->name);
		if (!value && strcmp(o->name, "project") == 0 && strcmp(ctx->project_dir, ".") != 0)
			value = ctx->project_dir; /* -C DIR names the project too */
		if (!value)
			continue;
		size_t i = (size_t)(o - options);
		memcpy(flags[i], "--", 3);
		strncat(flags[i], o->name, sizeof(flags[i]) - 3);
		argv[argc++] = flags[i];
		argv[argc++] = value;
	}
	fflush(NULL);
	execvp("bash", (char *const *)argv);
	floe_error_set_errno(FLOE_ERR_CONFIG, "cannot run the installer %s with bash", floe_buf_cstr(&script));
cleanup:
	floe_buf_free(&script);
	return rc;
}

const floe_cli_command floe_cmd_quickstart = {
	.name = "quickstart",
	.summary = "from nothing to a running pipeline and the console (the installer, docs/quickstart.md)",
	.usage = "quickstart [--project DIR] [--scale S] [--listen HOST:PORT] | quickstart --source HOST:PORT/DB --source-user USER",
	.description =
		"Runs the installer installed with floe (share/floe/install.sh). Without --source: starts a\n"
		"private PostgreSQL under the project, fills it with the sample shop, creates the project,\n"
		"runs doctor, plan, generate and run (bronze, silver, the example gold marts), starts\n"
		"`floe serve` in the background and prints the console's address and an admin token.\n"
		"With --source: reads the password once (FLOE_SOURCE_PASSWORD, or a prompt without echo),\n"
		"keeps it in the project's .floe/secrets/ (mode 0600), runs doctor and plan, and stops before\n"
		"any load if doctor fails. A second run changes nothing and says so. Exit codes are the\n"
		"failed step's (see floe --help).",
	.examples = "  floe quickstart\n"
		    "  FLOE_SOURCE_PASSWORD=… floe quickstart --source db.internal:5432/shop --source-user floe_reader\n",
	.options = options,
	.min_positional = 0,
	.max_positional = 0,
	.run = run,
};
