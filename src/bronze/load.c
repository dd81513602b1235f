/*
 * load.c — one table's load: source transaction → COPY binary → Parquet → one
 * Iceberg snapshot. A full load replaces every file; a table the plan proves
 * incremental is merged by key (merge.c) once a full load gave it key-sorted
 * files and a watermark.
 *
 * Order of effects, for crash safety: data files are written first (invisible
 * until committed); the commit is the catalog's compare-and-swap and expects
 * the snapshot the load started from, so a concurrent writer is a conflict, not
 * a lost update; the source transaction ends after the commit. A failure
 * before the commit removes the files this load wrote.
 */
#include "bronze/bronze_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/log.h"
#include "base/text.h"
#include "cdc/cdc.h"
#include "iceberg/catalog.h"
#include "iceberg/table.h"
#include "pg/introspect.h"
#include "pg/pg.h"
#include "plan/plan.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FILE_TARGET_BYTES ((uint64_t)768 << 20) /* of COPY input per data file of an unkeyed table */

typedef bronze_load load_state;

/* The query without trailing blanks and semicolons, so it can be wrapped as a subquery, and ending
 * in a newline, so a last line that is a `--` comment ends before the wrapper's closing parenthesis. */
static const char *trimmed(floe_arena *a, const char *sql, size_t len)
{
	while (len && strchr(" \t\r\n;", sql[len - 1]))
		len--;
	return floe_arena_printf(a, "%.*s\n", (int)len, sql);
}

static const char *extraction_sql(load_state *s)
{
	const floe_lock_table *t = s->job->table;
	for (size_t i = 0; i < t->n_files; i++) {
		if (strncmp(t->files[i].path, "bronze/", 7) != 0)
			continue;
		const char *path = floe_arena_printf(s->job->arena, "%s/%s", s->job->pipeline_dir, t->files[i].path);
		floe_buf text = FLOE_BUF_INIT;
		if (floe_fs_read_file(&text, path) < 0) {
			floe_error_hint("Run `floe generate` to write the pipeline's files.");
			floe_buf_free(&text);
			return NULL;
		}
		const char *sql = trimmed(s->job->arena, floe_buf_cstr(&text), text.len);
		floe_buf_free(&text);
		return sql;
	}
	floe_error_set(FLOE_ERR_CONFIG, "the plan has no extraction query for %s", t->bronze);
	floe_error_hint("Run `floe generate`.");
	return NULL;
}

/* The plan's session settings, then a repeatable-read read-only transaction. */
static int open_source(load_state *s)
{
	floe_pg_result *r = NULL;
	bool kept = s->job->keep_source && s->job->keep_source->pg;
	if (kept) { /* the follower's, or the run's (its sync's), settings applied */
		s->pg = s->job->keep_source->pg;
		s->job->keep_source->pg = NULL;
	} else if (floe_pg_connect_source(&s->pg, s->job->config) < 0 || floe_plan_session_apply(s->pg) < 0) {
		return -1;
	}
	if (floe_pg_exec(s->pg, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") < 0) {
		if (!kept || floe_error_last()->cls != FLOE_ERR_UNREACHABLE)
			return -1;
		floe_error_clear(); /* an idle session the server closed (idle_session_timeout, a restart): a new one */
		floe_pg_close(s->pg);
		s->pg = NULL;
		if (floe_pg_connect_source(&s->pg, s->job->config) < 0 || floe_plan_session_apply(s->pg) < 0 ||
		    floe_pg_exec(s->pg, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") < 0)
			return -1;
	}
	if (s->job->pg_snapshot) { /* read what an earlier load read */
		floe_buf set = FLOE_BUF_INIT;
		floe_buf_puts(&set, "SET TRANSACTION SNAPSHOT ");
		int rc = floe_pg_quote_literal(&set, s->pg, s->job->pg_snapshot) < 0 ||
			 floe_pg_exec(s->pg, floe_buf_cstr(&set)) < 0;
		floe_buf_free(&set);
		if (rc)
			return floe_error_context("while reading at the load's snapshot %s", s->job->pg_snapshot);
	}
	/* The source's clock with the snapshot (the statement that takes it starts first): no row
	 * in it was changed later, so a watermark past it is a value in the future. */
	if (floe_pg_query(&r, s->pg, "select pg_catalog.pg_export_snapshot(), pg_catalog.statement_timestamp()::text, "
				     "(pg_catalog.statement_timestamp() at time zone (select reset_val from "
				     "pg_catalog.pg_settings where name = 'TimeZone'))::text", 0, NULL) < 0)
		return -1;
	s->exported = floe_arena_strdup(s->job->arena, floe_pg_result_text(r, 0, 0));
	s->clock_text[0] = floe_arena_strdup(s->job->arena, floe_pg_result_text(r, 0, 1));
	s->clock_text[1] = floe_arena_strdup(s->job->arena, floe_pg_result_text(r, 0, 2));
	floe_pg_result_free(r);
	const char *q = floe_pg_server_version(s->pg) >= 130000 ? "select pg_catalog.pg_current_snapshot()::text"
								: "select pg_catalog.txid_current_snapshot()::text";
	if (floe_pg_query(&r, s->pg, q, 0, NULL) < 0)
		return -1;
	s->position = floe_arena_strdup(s->job->arena, floe_pg_result_text(r, 0, 0));
	floe_pg_result_free(r);
	return 0;
}

static const char *table_part(const char *bronze)
{
	const char *dot = strchr(bronze, '.');
	return dot ? dot + 1 : bronze;
}

static int open_table(load_state *s)
{
	floe_iceberg_catalog_opts co = FLOE_ICEBERG_CATALOG_OPTS_INIT;
	floe_buf where = FLOE_BUF_INIT;
	const char *name = table_part(s->job->table->bronze);
	co.warehouse = s->job->warehouse_dir;
	co.create = true;
	if (floe_iceberg_catalog_open_sql(&s->catalog, s->job->catalog_path, &co) < 0)
		return -1;
	int found = floe_iceberg_catalog_load(s->catalog, &where, "bronze", name);
	floe_buf_free(&where);
	if (found < 0)
		return -1;
	if (found == 0) {
		floe_iceberg_create_opts o = FLOE_ICEBERG_CREATE_OPTS_INIT;
		floe_iceberg_kv owner[2];
		o.properties = owner;
		o.n_properties = bronze_owner_properties(owner, s->job->table);
		if (floe_iceberg_table_create(&s->table, s->catalog, "bronze", name, s->cols.schema, &o) == 0)
			return 0;
		if (!floe_error_last() || floe_error_last()->cls != FLOE_ERR_EXISTS)
			return -1;
		floe_error_clear(); /* created meanwhile by another process: load it */
	}
	if (floe_iceberg_table_load(&s->table, s->catalog, "bronze", name) < 0)
		return -1;
	return bronze_owner_check(s->table, s->job->table);
}

void bronze_load_note(bronze_load *l, const char *key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *value = floe_arena_vprintf(l->job->arena, fmt, ap);
	va_end(ap);
	if (l->n_summary < sizeof(l->summary) / sizeof(l->summary[0]))
		l->summary[l->n_summary++] = (floe_iceberg_kv){ key, value };
}

void bronze_load_progress(bronze_load *s, const char *phase, const floe_pg_copy *copy)
{
	bronze_progress *p = s->job->progress;
	if (!p)
		return;
	atomic_store_explicit(&p->phase, phase, memory_order_relaxed);
	if (copy) {
		atomic_store_explicit(&p->rows, floe_pg_copy_rows(copy), memory_order_relaxed);
		atomic_store_explicit(&p->bytes, floe_pg_copy_bytes(copy), memory_order_relaxed);
	}
}

/*
 * A keyed full load reads ORDER BY the key. When the key's first column lies in random order in
 * the table (a uuid: pg_stats correlation under 0.5 either way), PostgreSQL's index scan in key
 * order, which its planner prefers, fetches a heap page per row at random: with the table larger
 * than shared_buffers most fetches miss and copy 8 kB from the OS page cache (the bench's orders,
 * 1.99 M rows in 238 MB: 950 k reads, 6.4 s of the backend's CPU against 3.5 s for a seq scan and
 * sort; the load took 22.7–25.8 s against 8.5–14.0 s on a busy machine). Such a load turns index
 * scans off for its query: transaction-local, *prev set to the value to put back after it (NULL:
 * left as it was — a correlated key, or no statistics).
 */
static int sort_if_random(load_state *s, const char **prev)
{
	const floe_lock_table *t = s->job->table;
	const char *params[3] = { t->schema, t->name, t->columns[s->keys.col[0]].name };
	floe_pg_result *r = NULL;
	*prev = NULL;
	if (floe_pg_query(&r, s->pg, "select abs(s.correlation)::numeric(4,3)::text, pg_catalog.current_setting("
			  "'enable_indexscan'), pg_catalog.set_config('enable_indexscan', 'off', true) from pg_catalog.pg_stats s "
			  "where s.schemaname = $1 and s.tablename = $2 and s.attname = $3 and abs(s.correlation) < 0.5 "
			  "limit 1", 3, params) < 0)
		return floe_error_context("while reading the key's order in the table from pg_stats");
	if (floe_pg_result_rows(r) == 1) {
		*prev = floe_arena_strdup(s->job->arena, floe_pg_result_text(r, 0, 1));
		floe_log_info("%s: read by a seq scan and sorted: the key lies in random order in the table "
			      "(pg_stats correlation %s), an index scan would fetch its pages at random",
			      t->bronze, floe_pg_result_text(r, 0, 0));
	}
	floe_pg_result_free(r);
	return 0;
}

/* The index scans sort_if_random turned off, back as they were (`prev` NULL: nothing to do). */
static int sort_restore(load_state *s, const char *prev)
{
	floe_pg_result *r = NULL;
	const char *params[1] = { prev };
	if (prev && floe_pg_query(&r, s->pg, "select pg_catalog.set_config('enable_indexscan', $1, true)", 1, params) < 0)
		return -1;
	floe_pg_result_free(r);
	return 0;
}

/*
 * Stream every row. A keyed table's rows come sorted by key into files of at most
 * target-file-rows rows (the incremental load's invariant); others into files
 * bounded by the bytes they took from the source.
 */
static int load_full(load_state *s, bool by_key)
{
	bronze_job *job = s->job;
	floe_pg_copy *copy = NULL;
	bronze_reader *reader = NULL;
	const floe_vector *vectors;
	size_t rows = 0, file_rows = by_key ? (size_t)job->config->bronze.target_file_rows : 0;
	uint64_t file_start = 0, bytes = 0;
	int error = -1;
	const char *sql = s->sql, *indexscan = NULL;
	if (by_key && (!(sql = bronze_sql_keyed(job->arena, s->pg, job->table, &s->keys, "*", s->sql, "")) ||
		       sort_if_random(s, &indexscan) < 0))
		goto cleanup;
	bronze_files_init(&s->out, job->arena, s->table, &s->cols, file_rows, job->config->warehouse.zstd_level);
	if (by_key)
		bronze_lakekeys_attach(&s->out, s);
	s->has_watermark = false;
	if (floe_pg_copy_begin(&copy, s->pg, sql, s->cols.copy, s->cols.n) < 0 ||
	    bronze_reader_start(&reader, copy, s, &s->cols, job->arena, file_rows, bronze_load_threads()) < 0)
		goto cleanup;
	for (;;) {
		if (bronze_reader_next(reader, &vectors, &rows, &bytes) < 0)
			goto cleanup;
		if (rows == 0)
			break;
		bronze_watermark_track(s, vectors);
		if (bronze_files_write(&s->out, vectors) < 0)
			goto cleanup;
		if (!by_key && bytes - file_start >= FILE_TARGET_BYTES) {
			if (bronze_files_close(&s->out) < 0)
				goto cleanup;
			file_start = bytes;
		}
	}
	bronze_reader_free(reader); /* the decoder is done: the stream's counts are final */
	reader = NULL;
	if (bronze_files_close(&s->out) < 0)
		goto cleanup;
	s->rows_read = (int64_t)floe_pg_copy_rows(copy);
	job->result->bytes = (int64_t)floe_pg_copy_bytes(copy);
	floe_pg_copy_free(copy);
	copy = NULL;
	if (sort_restore(s, indexscan) < 0)
		goto cleanup;
	error = 0;
cleanup:
	bronze_reader_free(reader);
	floe_pg_copy_free(copy);
	return error;
}

/* Whether the load's notes already hold `key` (a compaction carries its base's floe.* keys). */
static bool noted(const load_state *s, const char *key)
{
	for (size_t i = 0; i < s->n_summary; i++)
		if (strcmp(s->summary[i].key, key) == 0)
			return true;
	return false;
}

static int commit(load_state *s, bool full)
{
	bronze_job *job = s->job;
	floe_iceberg_kv summary[24];
	size_t n = 0;
	summary[n++] = (floe_iceberg_kv){ "floe.run-id", job->run_id };
	summary[n++] = (floe_iceberg_kv){ "floe.source-position", s->position };
	summary[n++] = (floe_iceberg_kv){ "floe.load-mode", s->load_mode ? s->load_mode
							  : full			 ? "full"
							  : bronze_cdc_is_batch(job) || (job->cdc && !job->repair_keys) ? "cdc"
							  : job->repair_keys ? "repair"
									     : "incremental" };
	if (bronze_cdc_lsn(job) && !noted(s, "floe.cdc.lsn")) /* never twice: a summary's keys are unique */
		summary[n++] = (floe_iceberg_kv){ "floe.cdc.lsn", bronze_cdc_lsn(job) };
	for (size_t i = 0; i < s->n_summary; i++)
		summary[n++] = s->summary[i];
	floe_iceberg_commit_opts o = FLOE_ICEBERG_COMMIT_OPTS_INIT;
	o.summary = summary;
	o.n_summary = n;
	o.expect_snapshot_id = s->expect_snapshot;
	o.operation = s->operation;
	bronze_load_progress(s, "committing", NULL);
	double t0 = bronze_seconds();
	int rc = full ? floe_iceberg_table_replace(s->table, s->out.files, s->out.n, &o)
		 : s->n_delete_files ? floe_iceberg_table_row_delta(s->table, s->removed, s->n_removed, s->out.files,
								    s->out.n, s->delete_files, s->n_delete_files, &o)
		 : floe_iceberg_table_rewrite(s->table, s->removed, s->n_removed, s->out.files, s->out.n, &o);
	if (rc < 0) {
		if (job->index)
			bronze_posindex_committed(job->index, s, -1); /* an unknown outcome: rebuilt next batch */
		return -1;
	}
	job->result->snapshot_id = floe_iceberg_table_metadata(s->table)->current_snapshot_id;
	job->result->commit_seconds += bronze_seconds() - t0;
	bronze_lakekeys_committed(s, full);
	if (job->index) /* floe run --follow: the index follows its own commits */
		bronze_posindex_committed(job->index, s, full ? -1 : job->result->snapshot_id);
	return 0;
}

static void cleanup(load_state *s)
{
	floe_iceberg_table_free(s->table);
	floe_iceberg_catalog_free(s->catalog);
	floe_pg_close(s->pg);
}

/* The key as field ids ("1,2"): a snapshot merged by another key cannot be merged by this one. */
static const char *key_ids(load_state *s)
{
	floe_buf b = FLOE_BUF_INIT;
	for (size_t i = 0; i < s->keys.n; i++)
		floe_buf_printf(&b, "%s%d", i ? "," : "", (int)s->cols.schema->fields[s->keys.col[i]].id);
	const char *out = floe_arena_strndup(s->job->arena, floe_buf_cstr(&b), b.len);
	floe_buf_free(&b);
	return out;
}

/*
 * Whether the table can be merged: the plan says incremental, the key can be ordered,
 * and the current snapshot was loaded by key with a watermark (sets *previous).
 * Otherwise *why says what makes this load a full one.
 */
static bool mergeable(load_state *s, int64_t *previous, const char **why)
{
	const floe_lock_table *t = s->job->table;
	const floe_iceberg_metadata *m = floe_iceberg_table_metadata(s->table);
	const floe_iceberg_snapshot *snap = floe_iceberg_metadata_current_snapshot(m);
	*why = NULL;
	if (t->mode != FLOE_LOAD_INCREMENTAL && !s->job->cdc)
		return false;
	if (s->reload_why) {
		*why = s->reload_why;
		return false;
	}
	if (s->keys.unmergeable) {
		*why = floe_arena_printf(s->job->arena, "loaded in full: %s", s->keys.unmergeable);
		return false;
	}
	const char *key = snap ? floe_iceberg_snapshot_summary(snap, "floe.key") : NULL;
	const char *wm = snap ? floe_iceberg_snapshot_summary(snap, "floe.watermark") : NULL;
	if (!snap)
		*why = "first load: in full, sorted by key";
	else if (!key || strcmp(key, key_ids(s)) != 0)
		*why = "loaded in full, sorted by key: the last snapshot was not loaded by this key";
	else if (!s->job->cdc && bronze_watermark_parse(s, previous, wm) < 0)
		*why = "loaded in full, sorted by key: the last snapshot has no watermark";
	return *why == NULL;
}

const char *bronze_repair_reason(floe_arena *arena, const char *why)
{
	static const char *const said[] = { "loaded in full, sorted by key: ", "loaded in full: " };
	for (size_t i = 0; i < sizeof(said) / sizeof(said[0]); i++)
		if (strncmp(why, said[i], strlen(said[i])) == 0)
			why += strlen(said[i]);
	return floe_arena_printf(arena, "repaired by a full reload: %s", why);
}

/*
 * One pass: a merge where the table allows one (the changes, or the keys of a repair),
 * else every row; then the commit — none when a merge changed nothing. *committed says
 * whether a commit was tried (its files must then stay even if it failed).
 */
static int load_and_commit(load_state *s, bool *committed)
{
	bronze_job *job = s->job;
	floe_bronze_result *r = job->result;
	bool full = true;
	int64_t previous = 0;
	const char *why = NULL, *future = NULL;
	bool by_key = (job->table->mode == FLOE_LOAD_INCREMENTAL || job->cdc) && !s->keys.unmergeable;
	if (job->cdc && !job->repair_keys) {
		full = bronze_cdc_full(s, &why); /* the batch changed no key, or it loads in full */
	} else if (mergeable(s, &previous, &why)) {
		previous = bronze_watermark_capped(s, previous);
		s->watermark = previous;
		s->has_watermark = true;
		if ((job->repair_keys ? bronze_merge_keys(s, &why) : bronze_merge(s, previous, &why)) < 0)
			return -1;
		full = why != NULL;
		if (!full && !job->repair_keys)
			s->changed_since = bronze_watermark_text(
				s, previous - job->config->bronze.late_window_seconds * INT64_C(1000000));
		if (!full && bronze_cdc_is_batch(job)) { /* the check's cover follows the batch's keys */
			s->changed_keys = job->repair_keys;
			s->n_changed_keys = job->n_repair_keys;
		}
	} else if (job->repair_keys) {
		why = bronze_repair_reason(job->arena, why ? why : "the table's files are not sorted by key");
	}
	if (full && bronze_parallel_load(s, by_key) < 0)
		return -1;
	if (by_key) {
		bronze_load_note(s, "floe.key", "%s", key_ids(s));
		if (s->has_watermark)
			bronze_load_note(s, "floe.watermark", "%s",
					 bronze_watermark_text(s, bronze_watermark_capped(s, s->watermark)));
		future = bronze_watermark_future(s);
	}
	bronze_load_note(s, "floe.rows-read", "%lld", (long long)s->rows_read);
	if (s->schema_changes)
		bronze_load_note(s, "floe.columns-changed", "%s", s->schema_changes);
	if (full)
		bronze_mor_discard(s); /* a merge gave way to a full load */
	if (!full && s->n_removed == 0 && s->out.n == 0 && s->n_delete_files == 0 && !bronze_cdc_advances(s)) {
		r->detail = floe_arena_printf(job->arena, "no changes: %s; source snapshot %s%s%s",
					      s->detail ? s->detail : "nothing read", s->position, future ? "; " : "",
					      future ? future : "");
		r->snapshot_id = s->expect_snapshot;
		return 0;
	}
	*committed = true;
	if (commit(s, full) < 0) {
		/* Certainly not landed (disk full, a lost race, …): this pass's data files are orphans. */
		if (!floe_iceberg_table_may_have_landed(s->table)) {
			bronze_files_discard(&s->out, 0);
			bronze_mor_discard(s);
		}
		return -1;
	}
	r->detail = full ? floe_arena_printf(job->arena, "%s%ssource snapshot %s", why ? why : "", why ? "; " : "",
					     s->position)
			 : floe_arena_printf(job->arena, "%s; source snapshot %s", s->detail, s->position);
	if (full && s->parallel)
		r->detail = floe_arena_printf(job->arena, "%s; %s", r->detail, s->parallel);
	if (s->schema_changes)
		r->detail = floe_arena_printf(job->arena, "columns changed as the plan says: %s; %s", s->schema_changes,
					      r->detail);
	if (bronze_cdc_is_batch(job) || (full && job->cdc && !job->repair_keys && bronze_cdc_detail(job) != why))
		r->detail = floe_arena_printf(job->arena, "%s; %s", bronze_cdc_detail(job), r->detail);
	if (future)
		r->detail = floe_arena_printf(job->arena, "%s; %s", r->detail, future);
	return 0;
}

/* ---- compaction and expiry ---- */

/* A compaction's snapshot keeps what its base says of the source (watermark, key, position, …). */
static void carry_summary(load_state *s)
{
	const floe_iceberg_metadata *m = floe_iceberg_table_metadata(s->table);
	const floe_iceberg_snapshot *base = floe_iceberg_metadata_snapshot(m, s->expect_snapshot);
	static const char *const own[] = { "floe.run-id", "floe.load-mode", "floe.source-position" };
	s->n_summary = 0;
	for (size_t i = 0; base && i < base->n_summary; i++) {
		const char *k = base->summary[i].key;
		bool skip = strncmp(k, "floe.", 5) != 0 || strncmp(k, "floe.rows-", 10) == 0;
		for (size_t j = 0; j < sizeof(own) / sizeof(own[0]) && !skip; j++)
			skip = strcmp(k, own[j]) == 0;
		if (!skip)
			bronze_load_note(s, floe_arena_strdup(s->job->arena, k), "%s", base->summary[i].value);
	}
	const char *pos = base ? floe_iceberg_snapshot_summary(base, "floe.source-position") : NULL;
	if (pos)
		s->position = floe_arena_strdup(s->job->arena, pos);
}

/*
 * Compact the table (floe compact, `forced`; or after a load past the [compaction] thresholds)
 * as one `replace` snapshot on the snapshot it read: when another writer committed meanwhile
 * the commit fails and compaction gives way (a load never waits for it, and loses nothing).
 * s->detail says what happened; *done whether a snapshot was committed.
 */
static int compact_table(load_state *s, bool forced, bool *committed, bool *done)
{
	bronze_job *job = s->job;
	const floe_config_compaction *cc = &job->config->compaction;
	floe_bronze_compaction when = { forced, (size_t)cc->delete_files, (size_t)cc->small_files };
	const char *skip = NULL;
	*done = false;
	s->expect_snapshot = floe_iceberg_table_metadata(s->table)->current_snapshot_id;
	s->n_removed = 0;
	s->detail = NULL;
	bronze_load_progress(s, "compacting", NULL);
	if (bronze_merge_compact(s, &when, &skip) < 0)
		return -1;
	if (skip) {
		s->detail = skip;
		return 0;
	}
	carry_summary(s);
	s->load_mode = "compaction";
	s->operation = "replace";
	*committed = true;
	int rc = commit(s, false);
	s->load_mode = s->operation = NULL;
	if (rc == 0) {
		*done = true;
		return 0;
	}
	if (!floe_iceberg_table_may_have_landed(s->table))
		bronze_files_discard(&s->out, 0);
	const floe_error *e = floe_error_last();
	if (!e || e->cls != FLOE_ERR_CONFLICT)
		return -1;
	s->detail = floe_arena_printf(job->arena, "compaction gave way: %s committed meanwhile; run it again",
				      job->table->bronze);
	floe_error_clear();
	return 0;
}

/* [warehouse] keep-snapshots / keep-days after a load: expire older snapshots and their files. */
static int expire_after(load_state *s, int keep_at_least)
{
	const floe_config_warehouse *w = &s->job->config->warehouse;
	floe_iceberg_expire_opts o = FLOE_ICEBERG_EXPIRE_OPTS_INIT;
	floe_iceberg_cleanup_result res = { 0 };
	if (!w->keep_snapshots && !w->keep_days)
		return 0;
	o.retain_last = (int)(w->keep_snapshots > keep_at_least ? w->keep_snapshots : keep_at_least);
	o.older_than_ms = w->keep_days ? floe_iceberg_now_ms() - w->keep_days * INT64_C(86400000)
				       : floe_iceberg_now_ms() + 1;
	if (floe_iceberg_table_expire(s->table, &o, &res) < 0)
		return -1;
	if (res.expired_snapshots)
		s->job->result->detail = floe_arena_printf(s->job->arena, "%s; %zu old snapshots expired (%zu data "
							   "files deleted)", s->job->result->detail, res.expired_snapshots,
							   res.deleted_data_files);
	return 0;
}

/* After a load: compaction when the thresholds pass, then expiry when configured. */
static int maintain(load_state *s, bool *committed)
{
	floe_bronze_result *r = s->job->result;
	bool compacted = false;
	if (s->job->config->compaction.after_run && s->keys.n && s->mor_table) {
		if (compact_table(s, false, committed, &compacted) < 0)
			return -1;
		if (s->detail && (compacted || strncmp(s->detail, "compaction gave way", 19) == 0))
			r->detail = floe_arena_printf(s->job->arena, "%s; then %s", r->detail, s->detail);
	}
	return expire_after(s, compacted ? 2 : 1); /* the load's own (checked) snapshot stays */
}

/* floe compact: the table compacted whatever the thresholds, then expiry when configured. */
static int compact_only(load_state *s, bool *committed)
{
	bool done = false;
	if (compact_table(s, true, committed, &done) < 0)
		return -1;
	s->job->result->detail = s->detail;
	s->job->result->snapshot_id = floe_iceberg_table_metadata(s->table)->current_snapshot_id;
	return expire_after(s, 1);
}

int64_t bronze_table_rows(floe_iceberg_table *t)
{
	const floe_iceberg_metadata *m = floe_iceberg_table_metadata(t);
	const floe_iceberg_snapshot *snap = floe_iceberg_metadata_current_snapshot(m);
	const char *total = snap ? floe_iceberg_snapshot_summary(snap, "total-records") : NULL;
	const char *deleted = snap ? floe_iceberg_snapshot_summary(snap, "total-position-deletes") : NULL;
	int64_t n = -1, d = 0;
	if (total && floe_text_parse_int64(&n, total, strlen(total), 0, INT64_MAX) < 0)
		n = -1;
	if (n >= 0 && deleted && floe_text_parse_int64(&d, deleted, strlen(deleted), 0, n) == 0)
		n -= d; /* merge-on-read: rows position deletes remove (each deletes one row of ours) */
	return n;
}

/* Ask the check; a failing check is its verdict, never the load's failure (the load committed). */
static void ask(bronze_job *job, floe_bronze_check *c)
{
	c->state = FLOE_RECONCILE_FAILED;
	c->detail = NULL;
	c->repair_keys = NULL;
	c->n_repair_keys = 0;
	if (job->check(job->check_ctx, c) < 0) {
		const floe_error *e = floe_error_last();
		c->state = FLOE_RECONCILE_FAILED;
		c->detail = floe_arena_strdup(job->arena, e ? e->message : "the check gave no verdict");
		floe_error_clear();
	}
}

/*
 * The check after the load, in the load's source transaction; when it names diverged
 * keys, they are re-read in that same transaction (the load's snapshot), upserted, and
 * the check runs once more.
 */
static int check_and_repair(load_state *s, bool *committed)
{
	bronze_job *job = s->job;
	floe_bronze_result *r = job->result;
	floe_bronze_check c = { .table = job->table, .run_id = job->run_id, .snapshot_id = r->snapshot_id,
				.pg_snapshot = s->exported, .arena = job->arena, .changed_since = s->changed_since,
				.changed_keys = s->changed_keys, .n_changed_keys = s->n_changed_keys };
	if (!job->check)
		return 0;
	bronze_load_progress(s, "reconciling", NULL);
	ask(job, &c);
	if (c.state == FLOE_RECONCILE_DIVERGED && c.n_repair_keys > 0) {
		const char *loaded = r->detail;
		job->repair_keys = c.repair_keys;
		job->n_repair_keys = c.n_repair_keys;
		s->n_summary = 0;
		s->n_removed = 0;
		s->detail = NULL;
		s->expect_snapshot = r->snapshot_id;
		if (load_and_commit(s, committed) < 0)
			return -1;
		r->files += (int64_t)s->out.n;
		r->repaired = true;
		const char *repair = r->detail;
		r->detail = floe_arena_printf(job->arena, "%s; then %s (%s)", loaded, repair, c.detail);
		c.attempt = 1;
		c.repair_detail = repair;
		c.snapshot_id = r->snapshot_id;
		ask(job, &c);
	}
	r->checked = true;
	r->check_state = c.state;
	r->check_detail = c.detail;
	return 0;
}

int bronze_load_full(bronze_load *l, bool by_key)
{
	return load_full(l, by_key);
}

int bronze_load_table(bronze_job *job)
{
	load_state s = { .job = job };
	floe_bronze_result *r = job->result;
	uint32_t *oids = NULL, *elems = NULL;
	size_t n = 0;
	bool commit_tried = false;
	int error = -1;
	double t = bronze_seconds();

	if (!(s.sql = extraction_sql(&s)) || bronze_cdc_begin(&s) < 0)
		goto cleanup;
	bronze_step(job, &t, "extraction query and stream");
	if (open_source(&s) < 0)
		goto cleanup;
	bronze_step(job, &t, "source transaction");
	if (floe_pg_describe_query(s.pg, job->arena, s.sql, &oids, &elems, &n) < 0 ||
	    bronze_columns_build(&s.cols, job->arena, job->table, oids, elems, n) < 0)
		goto cleanup;
	bronze_step(job, &t, "query described");
	if (open_table(&s) < 0 || bronze_schema_follow_plan(&s) < 0)
		goto cleanup;
	bronze_step(job, &t, "table opened");
	bronze_cdc_imported(&s);
	bronze_keys_init(&s.keys, job->arena, job->table, &s.cols);
	if ((job->cdc || (job->compact && bronze_cdc_wanted(job))) && s.keys.watermark_only)
		s.keys.unmergeable = NULL; /* the stream says what changed: no watermark needed */
	if (job->compact) {
		if (compact_only(&s, &commit_tried) < 0)
			goto cleanup;
		r->table_rows = bronze_table_rows(s.table); /* what the table holds after this load */
		floe_pg_exec(s.pg, "COMMIT");
		error = 0;
		goto cleanup;
	}
	if (load_and_commit(&s, &commit_tried) < 0)
		goto cleanup;
	bronze_step(job, &t, "loaded and committed");
	if (bronze_cdc_confirm(&s) < 0)
		goto cleanup;
	bronze_step(job, &t, "acknowledged");
	r->rows = s.rows_read;
	r->files = (int64_t)s.out.n;
	if (check_and_repair(&s, &commit_tried) < 0 || maintain(&s, &commit_tried) < 0)
		goto cleanup;
	r->table_rows = bronze_table_rows(s.table); /* what the table holds after this load */
	floe_pg_exec(s.pg, "COMMIT");
	bronze_step(job, &t, "checked, maintained, source committed");
	error = 0;
cleanup:
	/* Once a commit was tried its files may be live (an unknown outcome): only orphan
	 * removal, which reads the committed metadata, may delete them then. */
	if (error < 0 && !commit_tried && s.table) {
		bronze_files_discard(&s.out, 0);
		bronze_mor_discard(&s);
	}
	if (error == 0 && job->keep_source && !job->keep_source->pg) {
		job->keep_source->pg = s.pg; /* committed: idle, kept for the follower's next batch or the run's next load */
		s.pg = NULL;
	}
	cleanup(&s);
	bronze_cdc_end(job, error == 0);
	return error;
}
