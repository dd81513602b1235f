/*
 * s3.c — DuckDB reading an S3 warehouse: the httpfs extension loaded by path (never
 * downloaded; scripts/setup.sh extracts the pinned build beside libduckdb.so) and a
 * temporary secret built from credentials the caller passes (engine.h floe_engine_use_s3).
 */
#include "engine/engine.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "engine/engine_int.h"

static floe_engine_open_hook open_hook;
static void *open_hook_ctx;

void floe_engine_set_open_hook(floe_engine_open_hook fn, void *ctx)
{
	open_hook = fn;
	open_hook_ctx = ctx;
}

int floe_engine_run_open_hook(floe_engine *engine)
{
	return open_hook ? open_hook(engine, open_hook_ctx) : 0;
}

/* `dir`/httpfs.duckdb_extension, or beside libduckdb.so in extensions/; in `b`. */
static int extension_path(floe_buf *b, const char *dir)
{
	Dl_info info;
	if (dir && dir[0])
		return floe_buf_printf(b, "%s/httpfs.duckdb_extension", dir);
	if (!dladdr((void *)duckdb_library_version, &info) || !info.dli_fname)
		return floe_error_set(FLOE_ERR_INTERNAL, "could not tell where libduckdb.so is loaded from");
	const char *slash = strrchr(info.dli_fname, '/');
	size_t n = slash ? (size_t)(slash - info.dli_fname) : 1;
	floe_buf_put(b, slash ? info.dli_fname : ".", n);
	return floe_buf_puts(b, "/extensions/httpfs.duckdb_extension");
}

static void put_option(floe_buf *sql, const char *name, const char *value)
{
	floe_buf_printf(sql, ", %s ", name);
	floe_buf_put_quoted(sql, value, '\'');
}

static void secret_sql(floe_buf *sql, const floe_engine_s3 *s3)
{
	const char *host = strstr(s3->endpoint, "://");
	host = host ? host + 3 : s3->endpoint;
	floe_buf_puts(sql, "CREATE OR REPLACE TEMPORARY SECRET floe_warehouse (TYPE s3");
	put_option(sql, "KEY_ID", s3->key_id);
	put_option(sql, "SECRET", s3->secret);
	if (s3->session_token)
		put_option(sql, "SESSION_TOKEN", s3->session_token);
	put_option(sql, "REGION", s3->region);
	put_option(sql, "ENDPOINT", host);
	put_option(sql, "URL_STYLE", s3->path_style ? "path" : "vhost");
	floe_buf_printf(sql, ", USE_SSL %s)", strncmp(s3->endpoint, "https://", 8) == 0 ? "true" : "false");
}

int floe_engine_use_s3(floe_engine *engine, const floe_engine_s3 *s3)
{
	floe_buf path = FLOE_BUF_INIT, sql = FLOE_BUF_INIT;
	int error = -1;
	if (extension_path(&path, s3->extension_dir) < 0)
		goto cleanup;
	floe_buf_puts(&sql, "LOAD ");
	floe_buf_put_quoted(&sql, floe_buf_cstr(&path), '\'');
	if (floe_engine_exec(engine, floe_buf_cstr(&sql)) < 0) {
		floe_error_context("while loading DuckDB's httpfs extension from \"%s\"", floe_buf_cstr(&path));
		floe_error_hint("Run scripts/setup.sh duckdb: it installs the pinned httpfs build beside "
				"libduckdb.so (FLOE_DUCKDB_EXTENSION_DIR overrides where floe looks).");
		goto cleanup;
	}
	floe_buf_clear(&sql);
	secret_sql(&sql, s3);
	if (floe_engine_exec(engine, floe_buf_cstr(&sql)) < 0) {
		/* DuckDB's message may quote the statement, and so the keys: replace it. */
		floe_error_set(FLOE_ERR_INTERNAL, "DuckDB refused the S3 secret for the warehouse");
		goto cleanup;
	}
	floe_buf_clear(&sql);
	if (s3->ca_file) {
		floe_buf_puts(&sql, "SET ca_cert_file = ");
		floe_buf_put_quoted(&sql, s3->ca_file, '\'');
		if (floe_engine_exec(engine, floe_buf_cstr(&sql)) < 0)
			goto cleanup;
	}
	error = 0;
cleanup:
	floe_buf_free(&path);
	floe_buf_free(&sql);
	return error;
}
