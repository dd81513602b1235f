/*
 * provision.c — the demo/test database and its read-only reader role, created
 * through the cluster's trusted local socket as the superuser.
 */
#include "stack/stack.h"
#include "base/buf.h"
#include "base/error.h"
#include "pg/pg.h"

#include <stdio.h>

static int admin_connect(floe_pg **out, const floe_stack_info *info, const char *database)
{
	floe_pg_target t = FLOE_PG_TARGET_INIT;
	t.host = info->socket_dir;
	t.port = info->port;
	t.database = database;
	t.user = "postgres";
	t.read_only = false;
	return floe_pg_connect(out, &t);
}

static int exists(bool *out, floe_pg *pg, const char *sql, const char *name)
{
	floe_pg_result *r = NULL;
	const char *params[1] = { name };
	if (floe_pg_query(&r, pg, sql, 1, params) < 0)
		return -1;
	*out = floe_pg_result_rows(r) > 0;
	floe_pg_result_free(r);
	return 0;
}

/* Run `fmt` with %s replaced by the quoted identifier `ident` (at most twice). */
static int exec_with_ident(floe_pg *pg, const char *fmt, const char *ident)
{
	floe_buf q = FLOE_BUF_INIT, sql = FLOE_BUF_INIT;
	int error = floe_pg_quote_ident(&q, pg, ident);
	if (error == 0) {
		floe_buf_printf(&sql, fmt, q.ptr, q.ptr);
		error = floe_pg_exec(pg, sql.ptr);
	}
	floe_buf_free(&q);
	floe_buf_free(&sql);
	return error;
}

static int create_database(floe_pg *pg, const char *database)
{
	bool found = false;
	if (exists(&found, pg, "select 1 from pg_database where datname = $1", database) < 0)
		return -1;
	return found ? 0 : exec_with_ident(pg, "CREATE DATABASE %s", database);
}

static int create_reader(floe_pg *pg, const char *reader, const char *password)
{
	bool found = false;
	if (exists(&found, pg, "select 1 from pg_roles where rolname = $1", reader) < 0)
		return -1;
	if (!found && exec_with_ident(pg, "CREATE ROLE %s LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE", reader) < 0)
		return -1;
	return password ? floe_pg_set_role_password(pg, reader, password) : 0;
}

/* Inside the database: read every table of public, now and later; create nothing. */
static int grant_reads(const floe_stack_info *info, const char *database, const char *reader)
{
	floe_pg *pg = NULL;
	int error = -1;
	if (admin_connect(&pg, info, database) < 0)
		return -1;
	if (exec_with_ident(pg, "REVOKE CREATE ON SCHEMA public FROM PUBLIC", reader) < 0 ||
	    exec_with_ident(pg, "GRANT USAGE ON SCHEMA public TO %s", reader) < 0 ||
	    exec_with_ident(pg, "GRANT SELECT ON ALL TABLES IN SCHEMA public TO %s", reader) < 0 ||
	    exec_with_ident(pg, "ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO %s",
			    reader) < 0)
		goto cleanup;
	error = 0;
cleanup:
	floe_pg_close(pg);
	return error;
}

int floe_stack_provision(const floe_stack_info *info, const char *database, const char *reader,
			 const char *password)
{
	floe_pg *pg = NULL;
	int error = -1;
	if (!info->running) {
		floe_error_set(FLOE_ERR_USAGE, "the local cluster is not running");
		floe_error_hint("Run `floe stack up` first.");
		return -1;
	}
	if (admin_connect(&pg, info, "postgres") < 0)
		return -1;
	if (database && create_database(pg, database) < 0) {
		floe_error_context("while creating database \"%s\"", database);
		goto cleanup;
	}
	if (reader && create_reader(pg, reader, password) < 0) {
		floe_error_context("while creating role \"%s\"", reader);
		goto cleanup;
	}
	if (database && reader && grant_reads(info, database, reader) < 0) {
		floe_error_context("while granting \"%s\" read access to \"%s\"", reader, database);
		goto cleanup;
	}
	error = 0;
cleanup:
	floe_pg_close(pg);
	return error;
}
