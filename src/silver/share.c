/*
 * share.c — the pieces of a silver build that a layer built on silver (gold) reuses through
 * silver.h: a view over a table's current snapshot, and DuckDB's COPY handed to a table's
 * storage with the file's Iceberg statistics.
 */
#include "silver/silver_int.h"
#include "iceberg/deletes.h"
#include "iceberg/parquet_io.h"
#include "base/arena.h"
#include "base/error.h"
#include "format/parquet.h"
#include "query/query.h"
#include "state/state.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int floe_silver_current_view(floe_engine *engine, floe_iceberg_catalog *cat, floe_arena *arena, const char *ns,
			     const char *name, const char *view_ns)
{
	floe_iceberg_table *t = NULL;
	floe_iceberg_scan *scan = NULL;
	floe_buf ddl = FLOE_BUF_INIT;
	int error = -1;
	floe_buf_puts(&ddl, "CREATE SCHEMA IF NOT EXISTS ");
	floe_buf_put_quoted(&ddl, view_ns, '"');
	if (floe_engine_exec(engine, floe_buf_cstr(&ddl)) < 0)
		goto cleanup;
	if (floe_iceberg_table_load(&t, cat, ns, name) < 0) {
		floe_error_clear(); /* not created yet */
		error = 0;
		goto cleanup;
	}
	if (floe_iceberg_table_plan_live(&scan, arena, t, -1) < 0) /* a merge-on-read build's deletes applied */
		goto cleanup;
	error = scan->n_files ? floe_query_view(engine, arena, view_ns, name, floe_iceberg_table_storage(t), scan,
						scan->schema) : 0;
	error = error < 0 ? -1 : scan->n_files > 0;
cleanup:
	floe_iceberg_table_free(t);
	floe_buf_free(&ddl);
	return error;
}

int silver_tmp_dir(floe_arena *arena, const char **dir, const char *prefix)
{
	if (*dir)
		return 0;
	const char *tmp = getenv("TMPDIR");
	char *d = floe_arena_printf(arena, "%s/%s-XXXXXX", tmp && tmp[0] ? tmp : "/tmp", prefix);
	if (!mkdtemp(d))
		return floe_error_set_errno(FLOE_ERR_IO, "could not create a temporary directory under \"%s\"",
					    tmp && tmp[0] ? tmp : "/tmp");
	*dir = d;
	return 0;
}

/* The spool's private directory, made on first use. */
static int spool_dir(floe_silver_spool *sp)
{
	return silver_tmp_dir(sp->arena, &sp->dir, "floe-silver");
}

int floe_silver_spool_copy(floe_silver_spool *sp, floe_buf *copy, const char *options, const char **tmp,
			   floe_iceberg_data_file *out)
{
	floe_iceberg_storage *local = floe_iceberg_storage_local();
	floe_parquet_reader *r = NULL;
	floe_parquet_file_stats st;
	const char *tmp_uri = NULL;
	int error = -1;
	*tmp = NULL;
	if (spool_dir(sp) < 0)
		goto cleanup;
	const char *file = floe_arena_printf(sp->arena, "%s/%d.parquet", sp->dir, sp->n++);
	floe_buf_put_quoted(copy, file, '\'');
	floe_buf_puts(copy, options);
	tmp_uri = floe_iceberg_path_to_uri(sp->arena, file);
	/* the statistics from the footer alone: the file is not read whole */
	if (floe_engine_exec(sp->engine, floe_buf_cstr(copy)) < 0 || floe_iceberg_parquet_open(&r, local, tmp_uri, NULL) < 0 ||
	    floe_parquet_reader_file_stats(&st, r, sp->arena) < 0)
		goto cleanup;
	floe_iceberg_data_file_from_parquet(out, sp->arena, tmp_uri, &st);
	*tmp = file;
	error = 0;
cleanup:
	if (error < 0 && tmp_uri)
		floe_iceberg_storage_remove(local, tmp_uri);
	floe_parquet_reader_free(r);
	floe_iceberg_storage_free(local);
	return error;
}

int floe_silver_spool_store(floe_silver_spool *sp, floe_iceberg_storage *dst, const char *uri, const char *tmp)
{
	(void)sp;
	int error = floe_iceberg_storage_adopt(dst, uri, tmp); /* linked in place when it can be */
	if (error < 0)
		unlink(tmp); /* nothing of it is left */
	return error;
}

int floe_silver_store_copy(floe_silver_spool *sp, floe_iceberg_storage *dst, const char *uri, floe_buf *copy,
			   const char *options, floe_iceberg_data_file *out)
{
	const char *tmp;
	if (floe_silver_spool_copy(sp, copy, options, &tmp, out) < 0 || floe_silver_spool_store(sp, dst, uri, tmp) < 0)
		return -1;
	out->path = uri;
	return 0;
}

int silver_catalog_open(floe_iceberg_catalog **cat, floe_arena *arena, const floe_config *config)
{
	floe_iceberg_catalog_opts co = FLOE_ICEBERG_CATALOG_OPTS_INIT;
	co.warehouse = floe_config_warehouse_dir(config);
	co.create = true;
	return floe_iceberg_catalog_open_sql(cat, floe_config_catalog_path(arena, config), &co);
}

int floe_silver_open(floe_lock **lock, floe_state **st, floe_iceberg_catalog **cat, floe_arena *arena,
		     const floe_config *config)
{
	if (floe_lock_load(lock, floe_config_lock_path(arena, config)) < 0) {
		floe_error_hint("Run `floe plan` to review, then `floe generate` to deploy the plan.");
		return -1;
	}
	if (floe_state_open(st, config->project_dir) < 0)
		return -1;
	return silver_catalog_open(cat, arena, config);
}

int floe_silver_failure(const char **message, const char **cause, floe_arena *arena, bool tests_failed,
			const char *tests_cause)
{
	const floe_error *e = floe_error_last();
	floe_buf msg = FLOE_BUF_INIT, why = FLOE_BUF_INIT;
	floe_error_put_message(&msg, e);
	floe_error_put_cause(&why, e);
	*message = floe_arena_strdup(arena, floe_buf_cstr(&msg));
	*cause = tests_failed ? tests_cause : floe_arena_strdup(arena, floe_buf_cstr(&why));
	int code = e ? (int)floe_error_class_exit(e->cls) : FLOE_EXIT_INTERNAL;
	code = e && e->cls == FLOE_ERR_CONFIG ? FLOE_EXIT_USAGE : code >= FLOE_EXIT_UNREACHABLE ? code
											 : FLOE_EXIT_CHECK_FAILED;
	floe_buf_free(&msg);
	floe_buf_free(&why);
	floe_error_clear();
	return code;
}
