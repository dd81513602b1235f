/*
 * cmd_init.c — `floe init [--source host:port/db] [--source-user USER] [DIR]`.
 */
#include "cli/cli.h"
#include "base/error.h"
#include "base/text.h"
#include "pg/pg.h"
#include "project/project.h"

#include <string.h>

static const floe_cli_option options[] = {
	{ "source", 's', "HOST:PORT/DB", "the source database (default: PGHOST/PGPORT/PGDATABASE, "
					 "a running `floe stack`, 127.0.0.1:5432)" },
	{ "source-user", 'U', "USER", "the role floe reads as (default: PGUSER, else your user name)" },
	{ "password-env", 0, "NAME", "variable holding the password (default: FLOE_SOURCE_PASSWORD)" },
	{ "save-password", 0, NULL, "also store the password in .floe/secrets/ (mode 0600)" },
	{ NULL, 0, NULL, NULL },
};

static void render(floe_buf *out, const floe_init_result *r)
{
	if (r->config_written)
		floe_buf_printf(out, "wrote %s\n", r->config_path);
	if (r->discovered) {
		floe_buf_printf(out, "source: PostgreSQL %s; %lld tables in %zu schemas: ", r->source_version,
				r->n_tables, r->n_schemas);
		floe_text_put_printable(out, r->schemas); /* schema names come from the source */
		floe_buf_putc(out, '\n');
	}
	for (size_t i = 0; i < r->n_notes; i++) {
		floe_buf_puts(out, "  ");
		floe_text_put_printable(out, r->notes[i]);
		floe_buf_putc(out, '\n');
	}
	floe_buf_puts(out, "next: floe doctor\n");
}

static int run(floe_cli_ctx *ctx)
{
	floe_init_opts opts = FLOE_INIT_OPTS_INIT;
	floe_init_result result;
	floe_pg_address addr;
	floe_buf out = FLOE_BUF_INIT;
	const char *source = floe_cli_value(ctx, "source");
	int rc = -1;

	opts.dir = ctx->n_positional ? ctx->positional[0] : ctx->project_dir ? ctx->project_dir : ".";
	opts.user = floe_cli_value(ctx, "source-user");
	opts.password_env = floe_cli_value(ctx, "password-env");
	opts.save_password = floe_cli_flag(ctx, "save-password");
	if (source) {
		if (floe_pg_parse_address(&addr, source) < 0)
			return -1;
		opts.host = addr.host;
		opts.port = addr.port;
		opts.database = addr.database;
		if (!opts.user && addr.user[0])
			opts.user = addr.user;
	}
	if (floe_project_init(&result, &opts) < 0)
		goto cleanup;
	render(&out, &result);
	floe_cli_out(&out);
	rc = 0;
cleanup:
	floe_init_result_free(&result);
	floe_buf_free(&out);
	return rc;
}

const floe_cli_command floe_cmd_init = {
	.name = "init",
	.summary = "create floe.toml and the project layout, discovering the source",
	.usage = "init [--source HOST:PORT/DB] [--source-user USER] [--save-password] [DIR]",
	.description =
		"Writes floe.toml and the layout (marts/, .floe/, warehouse/ with its Iceberg catalog) in\n"
		"DIR (default: the current directory), filling in what it can discover from the source:\n"
		"the schemas that hold tables the role can read, and how many. It asks nothing.\n\n"
		"The password is read from the variable named by --password-env (FLOE_SOURCE_PASSWORD by\n"
		"default); floe.toml holds only the variable's name. With --save-password it is also\n"
		"stored in .floe/secrets/source-password, readable by you only.\n\n"
		"Running init again never overwrites a file: an existing floe.toml is kept as it is,\n"
		"and missing parts of the layout are added where it says (its [warehouse] location).\n\n"
		"A password in --source (postgresql://user:password@…, ?password=, password=) is\n"
		"refused without being echoed: pass it in the variable instead.",
	.examples =
		"  export FLOE_SOURCE_PASSWORD=…\n"
		"  floe init --source 127.0.0.1:5432/shop --source-user floe_reader\n"
		"  floe init --source postgresql://floe_reader@db.internal:5432/shop ~/lake\n",
	.options = options,
	.min_positional = 0,
	.max_positional = 1,
	.run = run,
};
