/*
 * diff.c — what an incremental silver build reads: the keys whose rows differ between the bronze
 * snapshot the table was last built from and the verified one (one full join of the two
 * snapshots' differing files), the changed keys' new rows as source(), and the published silver
 * files that hold a changed key (rewritten).
 */
#include "silver/silver_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "iceberg/metadata.h"
#include "query/query.h"

#include <stdlib.h>
#include <string.h>

/* EXISTS (a row of floe_changed with the key of `alias`'s row). */
void silver_put_equal(floe_buf *sql, const char *const *cols, size_t n, const char *left, const char *right)
{
	for (size_t k = 0; k < n; k++) {
		floe_buf_printf(sql, " AND %s.", left);
		floe_buf_put_quoted(sql, cols[k], '"');
		floe_buf_printf(sql, " = %s.", right);
		floe_buf_put_quoted(sql, cols[k], '"');
	}
}

void silver_put_changed(floe_buf *sql, const floe_lock_silver *s, const char *alias)
{
	floe_buf_puts(sql, "EXISTS (SELECT 1 FROM floe_changed floe_c WHERE true");
	silver_put_equal(sql, s->unique_key, s->n_unique_key, "floe_c", alias);
	floe_buf_putc(sql, ')');
}

/* A view over `files` of `all` (the bronze snapshot's schema): no rows when there are none. */
static int files_view(silver_job *job, floe_iceberg_table *t, const char *name, const floe_iceberg_scan *all,
		      floe_iceberg_scan_file *files, size_t n)
{
	floe_iceberg_scan part = *all;
	part.files = files, part.n_files = n;
	return floe_query_view(job->engine, job->arena, "main", name, floe_iceberg_table_storage(t), &part, all->schema);
}

/* The files of `a` that `b` does not have. */
static size_t files_minus(floe_arena *arena, const floe_iceberg_scan *a, const floe_iceberg_scan *b,
			  floe_iceberg_scan_file **out)
{
	size_t n = 0;
	*out = floe_arena_alloc(arena, (a->n_files + 1) * sizeof(**out));
	for (size_t i = 0; i < a->n_files; i++) {
		bool found = false;
		for (size_t k = 0; k < b->n_files && !found; k++)
			found = strcmp(a->files[i].file.path, b->files[k].file.path) == 0;
		if (!found)
			(*out)[n++] = a->files[i];
	}
	return n;
}

/*
 * floe_diff: per key whose rows differ between bronze snapshot `from` and the verified one (rows
 * of the files one has and the other has not, matched by key and compared whole) — inserted,
 * updated, deleted — the key, and its row in the verified snapshot (floe_new, NULL: deleted), so
 * that source() reads the changed rows from here rather than bronze's files again. floe_changed:
 * the keys.
 */
static int changed_keys(silver_build *b, floe_iceberg_table *bronze, int64_t from, const floe_iceberg_scan *now)
{
	silver_job *job = b->job;
	floe_iceberg_scan *before = NULL;
	floe_iceberg_scan_file *added, *removed;
	floe_buf sql = FLOE_BUF_INIT;
	int error = -1;
	if (floe_iceberg_table_plan(&before, job->arena, bronze, from) < 0)
		goto cleanup;
	size_t n_added = files_minus(job->arena, now, before, &added);
	size_t n_removed = files_minus(job->arena, before, now, &removed);
	if (files_view(job, bronze, "floe_added", now, added, n_added) < 0 ||
	    files_view(job, bronze, "floe_removed", now, removed, n_removed) < 0)
		goto cleanup;
	/* a full join on the key (bronze's keys are unique, never NULL) and whole rows compared: 8x
	   faster than EXCEPT ALL */
	const floe_lock_silver *s = b->s;
	floe_buf_puts(&sql, "CREATE TEMP TABLE floe_diff AS SELECT ");
	for (size_t k = 0; k < s->n_unique_key; k++) {
		floe_buf_puts(&sql, "coalesce(floe_a.");
		floe_buf_put_quoted(&sql, s->unique_key[k], '"');
		floe_buf_puts(&sql, ", floe_r.");
		floe_buf_put_quoted(&sql, s->unique_key[k], '"');
		floe_buf_puts(&sql, ") AS ");
		floe_buf_put_quoted(&sql, s->unique_key[k], '"');
		floe_buf_puts(&sql, ", ");
	}
	floe_buf_puts(&sql, "CASE WHEN floe_a.");
	floe_buf_put_quoted(&sql, s->unique_key[0], '"');
	floe_buf_puts(&sql, " IS NOT NULL THEN floe_a END AS floe_new FROM floe_added floe_a FULL JOIN floe_removed floe_r ON true");
	silver_put_equal(&sql, s->unique_key, s->n_unique_key, "floe_a", "floe_r");
	floe_buf_puts(&sql, " WHERE floe_a IS DISTINCT FROM floe_r; CREATE TEMP VIEW floe_changed AS SELECT * EXCLUDE (floe_new) "
			    "FROM floe_diff");
	error = floe_engine_exec(job->engine, floe_buf_cstr(&sql));
cleanup:
	floe_buf_free(&sql);
	return error;
}

/* b->removed: the published silver files holding a changed key. */
static int files_to_rewrite(silver_build *b)
{
	silver_job *job = b->job;
	floe_buf sql = FLOE_BUF_INIT;
	floe_engine_result *r = NULL;
	int error = -1;
	if (!b->previous || b->previous->n_files == 0)
		return 0;
	floe_buf_puts(&sql, "SELECT DISTINCT filename FROM read_parquet([");
	for (size_t i = 0; i < b->previous->n_files; i++) {
		floe_buf_puts(&sql, i ? ", " : "");
		floe_buf_put_quoted(&sql, silver_engine_path(b, b->previous->files[i].file.path), '\'');
	}
	floe_buf_puts(&sql, "], filename = true) floe_t WHERE ");
	silver_put_changed(&sql, b->s, "floe_t");
	if (floe_engine_query(job->engine, &r, floe_buf_cstr(&sql)) < 0)
		goto cleanup;
	for (size_t i = 0; i < floe_engine_result_rows(r); i++)
		for (size_t k = 0; k < b->previous->n_files; k++) {
			const char *uri = b->previous->files[k].file.path;
			if (strcmp(silver_engine_path(b, uri), floe_engine_result_text(r, i, 0)) == 0)
				*FLOE_ARENA_PUSH(job->arena, b->removed, b->n_removed, b->cap_removed) = uri;
		}
	error = 0;
cleanup:
	floe_engine_result_free(r);
	floe_buf_free(&sql);
	return error;
}

/* Whether the model is the one `floe generate` wrote (no hand edit): its row for a key depends only on that key's rows. */
static bool model_as_generated(const silver_build *b)
{
	const floe_lock_table *t = b->job->table;
	for (size_t i = 0; i < t->n_files; i++)
		if (strcmp(t->files[i].path, b->s->model) == 0)
			return strcmp(t->files[i].sha256, b->model_sha) == 0;
	return false;
}

/*
 * The bronze snapshot an incremental build may start from: the last build's, same model; else -1.
 * An `incremental` model, or a `table` model as generated (a full-mode bronze table: only the keys
 * whose rows differ from the last build's snapshot are rebuilt, as for incremental bronze).
 */
static int64_t incremental_base(const silver_build *b)
{
	const char *from = silver_built_from(b, "floe.bronze-snapshot-id"), *sha = silver_built_from(b, "floe.model-sha256");
	bool per_key = strcmp(b->s->materialized, "incremental") == 0 || model_as_generated(b);
	bool ok = !b->job->full_refresh && !b->schema_changed && b->s->n_unique_key > 0 && per_key && from && sha &&
		  strcmp(sha, b->model_sha) == 0;
	return ok ? strtoll(from, NULL, 10) : -1;
}

/*
 * "bronze"."X", what source() reads: the verified snapshot whole, or — incremental — only
 * the rows of the keys bronze changed since the snapshot silver was last built from.
 */
int silver_choose_scope(silver_build *b, floe_iceberg_table *bronze, const floe_iceberg_scan *now, const char *bns,
			const char *bname)
{
	silver_job *job = b->job;
	floe_buf sql = FLOE_BUF_INIT, n = FLOE_BUF_INIT;
	int64_t from = incremental_base(b);
	const floe_iceberg_snapshot *base = from > 0 ? floe_iceberg_metadata_snapshot(floe_iceberg_table_metadata(bronze), from)
						     : NULL;
	const char *base_deletes = base ? floe_iceberg_snapshot_summary(base, "total-delete-files") : NULL;
	if (from > 0 && !base)
		from = -1; /* the snapshot silver was built from is expired: build in full */
	if (from > 0 && (now->n_deletes || (base_deletes && strcmp(base_deletes, "0") != 0)))
		from = -1; /* merge-on-read bronze: deleted rows are in no file diff; build in full */
	int error = -1;
	floe_buf_puts(&sql, "CREATE SCHEMA IF NOT EXISTS ");
	floe_buf_put_quoted(&sql, bns, '"');
	floe_buf_puts(&sql, "; CREATE VIEW ");
	silver_put_ident(&sql, bns, bname);
	floe_buf_puts(&sql, " AS SELECT * FROM ");
	if (from > 0) {
		if (changed_keys(b, bronze, from, now) < 0 || files_to_rewrite(b) < 0 ||
		    floe_engine_query_text(job->engine, &n, "SELECT count(*) FROM floe_changed") < 0)
			goto cleanup;
		b->incremental = true;
		job->result->changed_keys = strtoll(floe_buf_cstr(&n), NULL, 10);
		/* a changed key's row, if it has one, is in a file added since (floe_diff kept it): keys
		   are unique, and an untouched file holds the same rows as before */
		floe_buf_puts(&sql, "(SELECT floe_new.* FROM floe_diff WHERE floe_new IS NOT NULL)");
	} else {
		silver_put_ident(&sql, SILVER_BRONZE_FULL, bname);
	}
	error = floe_engine_exec(job->engine, floe_buf_cstr(&sql));
cleanup:
	floe_buf_free(&sql);
	floe_buf_free(&n);
	return error;
}
