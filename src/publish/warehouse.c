/*
 * warehouse.c — the PostgreSQL side of a publish: the new table created and loaded in
 * one transaction, then swapped in by renames in a second, short one (publish.h).
 *
 * A process killed during the load leaves nothing: the server rolls the transaction
 * back when the connection drops. Killed between the two transactions, it leaves a
 * complete <mart>__floe_new nobody reads, which the next publish drops first.
 */
#include "publish/publish_int.h"
#include "base/error.h"
#include "base/log.h"
#include "base/text.h"
#include "pg/copy.h"

#include <inttypes.h>
#include <string.h>

/* Whether the leftover table exists (to_regclass: NULL when it does not). */
static int new_exists(bool *out, publish_job *job)
{
	floe_pg_result *r = NULL;
	floe_buf name = FLOE_BUF_INIT;
	floe_buf_printf(&name, "%s.", job->quoted_schema);
	int error = floe_pg_quote_ident(&name, job->pg, job->new_name);
	const char *params[] = { floe_buf_cstr(&name) };
	if (error == 0)
		error = floe_pg_query(&r, job->pg, "SELECT to_regclass($1) IS NOT NULL", 1, params);
	if (error == 0)
		*out = floe_pg_result_bool(r, 0, 0);
	floe_pg_result_free(r);
	floe_buf_free(&name);
	return error;
}

static int drop_leftover(bool *cleaned_up, publish_job *job)
{
	bool exists = false;
	floe_buf sql = FLOE_BUF_INIT;
	int error = new_exists(&exists, job);
	if (error == 0 && exists) {
		floe_buf_printf(&sql, "DROP TABLE %s", job->quoted_new);
		error = floe_pg_exec(job->pg, floe_buf_cstr(&sql));
		*cleaned_up = error == 0;
		if (error == 0)
			floe_log_info("dropped %s, left over by an interrupted publish", job->quoted_new);
	}
	floe_buf_free(&sql);
	return error;
}

/* CREATE TABLE new (…); COMMENT naming the snapshot; COPY new FROM STDIN (FORMAT binary). */
static int create_and_copy(long long *rows, publish_job *job)
{
	floe_buf sql = FLOE_BUF_INIT;
	int error = -1;
	floe_buf_printf(&sql, "CREATE TABLE %s ", job->quoted_new);
	if (publish_columns_ddl(&sql, job) < 0 || floe_pg_exec(job->pg, floe_buf_cstr(&sql)) < 0)
		goto cleanup;
	floe_buf_clear(&sql);
	floe_buf_printf(&sql, "COMMENT ON TABLE %s IS ", job->quoted_new);
	const char *note = floe_arena_printf(job->arena, "published by floe from gold.%s, snapshot %" PRId64,
					     job->mart, job->scan->snapshot_id);
	if (floe_pg_quote_literal(&sql, job->pg, note) < 0 || floe_pg_exec(job->pg, floe_buf_cstr(&sql)) < 0)
		goto cleanup;
	floe_buf_clear(&sql);
	floe_buf_printf(&sql, "COPY %s FROM STDIN (FORMAT binary)", job->quoted_new);
	if (floe_pg_copy_in_begin(job->pg, floe_buf_cstr(&sql)) < 0)
		goto cleanup;
	if (publish_stream_rows(job) < 0) {
		floe_pg_copy_in_abort(job->pg, "floe publish stopped");
		goto cleanup;
	}
	error = floe_pg_copy_in_end(rows, job->pg);
cleanup:
	floe_buf_free(&sql);
	return error;
}

int publish_load(long long *rows, bool *cleaned_up, publish_job *job)
{
	int error = -1;
	*rows = 0;
	*cleaned_up = false;
	if (drop_leftover(cleaned_up, job) < 0 || floe_pg_begin(job->pg) < 0)
		goto cleanup;
	if (create_and_copy(rows, job) < 0 || floe_pg_commit(job->pg) < 0)
		goto cleanup;
	error = 0;
cleanup:
	if (error < 0) {
		floe_pg_rollback(job->pg);
		floe_error_context("while loading %s", job->quoted_new);
	}
	return error;
}

static int grant(floe_buf *sql, publish_job *job)
{
	for (size_t i = 0; i < job->conf->n_grants; i++) {
		floe_buf_clear(sql);
		floe_buf_printf(sql, "GRANT SELECT ON %s TO ", job->quoted_target);
		if (floe_pg_quote_ident(sql, job->pg, job->conf->grants[i]) < 0 || floe_pg_exec(job->pg, floe_buf_cstr(sql)) < 0)
			return -1;
	}
	return 0;
}

int publish_swap(publish_job *job)
{
	floe_buf sql = FLOE_BUF_INIT;
	int error = -1;
	const char *mart_quoted_name = job->quoted_target + strlen(job->quoted_schema) + 1;
	if (floe_pg_begin(job->pg) < 0)
		goto cleanup;
	floe_buf_printf(&sql, "ALTER TABLE IF EXISTS %s RENAME TO ", job->quoted_target);
	if (floe_pg_quote_ident(&sql, job->pg, floe_arena_printf(job->arena, "%s__floe_old", job->mart)) < 0 ||
	    floe_pg_exec(job->pg, floe_buf_cstr(&sql)) < 0)
		goto cleanup;
	floe_buf_clear(&sql);
	floe_buf_printf(&sql, "ALTER TABLE %s RENAME TO %s", job->quoted_new, mart_quoted_name);
	if (floe_pg_exec(job->pg, floe_buf_cstr(&sql)) < 0 || grant(&sql, job) < 0)
		goto cleanup;
	floe_buf_clear(&sql);
	floe_buf_printf(&sql, "DROP TABLE IF EXISTS %s", job->quoted_old);
	if (floe_pg_exec(job->pg, floe_buf_cstr(&sql)) < 0 || floe_pg_commit(job->pg) < 0)
		goto cleanup;
	error = 0;
cleanup:
	if (error < 0) {
		floe_pg_rollback(job->pg);
		floe_error_context("while swapping %s in for %s", job->quoted_new, job->quoted_target);
	}
	floe_buf_free(&sql);
	return error;
}

/* After a failure the caller has recorded: best effort, the next publish retries the drop. */
void publish_drop_new(publish_job *job)
{
	floe_buf sql = FLOE_BUF_INIT;
	floe_buf_printf(&sql, "DROP TABLE IF EXISTS %s", job->quoted_new);
	if (floe_pg_exec(job->pg, floe_buf_cstr(&sql)) < 0)
		floe_error_clear();
	floe_buf_free(&sql);
}
