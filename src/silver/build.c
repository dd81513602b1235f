/*
 * build.c — one silver table (silver_build_table): its model run over exactly the verified
 * bronze snapshot (model.c), failing rows quarantined, the rest written as Parquet (write.c),
 * every test run on the table as it would be published, and only then one commit.
 *
 * Write-audit-publish: the new files stay in the build's temporary directory, unknown to the
 * warehouse, until the tests passed; a failed error-severity test deletes them and leaves the
 * previous snapshot current (and a first build leaves no table). Incremental (diff.c): when the
 * silver table was built from an earlier bronze snapshot by the same model, only the keys whose
 * bronze rows differ between the two snapshots are rebuilt, in the silver files that hold them
 * (copy-on-write).
 */
#include "silver/silver_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/log.h"
#include "base/sha256.h"
#include "bronze/bronze.h"
#include "iceberg/deletes.h"
#include "iceberg/metadata.h"
#include "query/query.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

void silver_step(silver_job *job, const char *what)
{
	int64_t now = floe_iceberg_now_ms();
	if (job->step_ms)
		floe_log_debug("%s: %s %.3f s", job->result->table, what, (double)(now - job->step_ms) / 1e3);
	job->step_ms = now;
}

/*
 * floe_fresh: the build's new rows as written (an incremental build), a table: every narrowed
 * test reads it; job->audit_fresh when the published table passed the same error tests
 * (floe.tests-sha256 of its snapshot).
 */
static int fresh_view(silver_build *b)
{
	silver_job *job = b->job;
	floe_buf sql = FLOE_BUF_INIT;
	job->audit_fresh = silver_tests_as_published(b);
	job->parents_tested = silver_built_from(b, "floe.parent-snapshots");
	floe_buf_puts(&sql, "CREATE TEMP TABLE floe_fresh AS SELECT ");
	int error = silver_put_select(&sql, job->arena, b->s, "");
	floe_buf_puts(&sql, " FROM floe_build WHERE floe_row NOT IN (SELECT floe_row FROM floe_bad)");
	if (error == 0)
		error = floe_engine_exec(job->engine, floe_buf_cstr(&sql));
	floe_buf_free(&sql);
	return error;
}

static int cmp_pos(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, c = *(const int64_t *)y;
	return (a > c) - (a < c);
}

/* `file`'s deleted positions with those of b->dels in it, ascending and unique, in the arena. */
static void with_new_deletes(silver_build *b, floe_iceberg_scan_file *file)
{
	size_t n = file->n_deleted;
	int64_t *pos = floe_arena_alloc(b->job->arena, (file->n_deleted + b->n_dels + 1) * sizeof(*pos));
	if (file->n_deleted) /* file->deleted is NULL when none */
		memcpy(pos, file->deleted, file->n_deleted * sizeof(*pos));
	for (size_t i = 0; i < b->n_dels; i++)
		if (strcmp(b->dels[i].path, file->file.path) == 0)
			pos[n++] = b->dels[i].pos;
	qsort(pos, n, sizeof(*pos), cmp_pos);
	size_t u = 0;
	for (size_t i = 0; i < n; i++)
		if (u == 0 || pos[u - 1] != pos[i])
			pos[u++] = pos[i];
	file->deleted = pos, file->n_deleted = u;
}

/*
 * Merge-on-read, floe_kept: the live rows of the table's files minus those the build deletes
 * (b->dels), through floe query's view, which leaves deleted positions out; floe_kept_pos the same
 * files' every row with its position, and job->kept_live the filter that leaves those positions out
 * (a narrowed relationships test reads the few rows it wants first). 0: no such file.
 */
static int kept_view(silver_build *b)
{
	silver_job *job = b->job;
	floe_iceberg_schema *schema;
	if (!b->previous || b->previous->n_files == 0)
		return 0;
	floe_iceberg_scan kept = *b->previous;
	kept.files = floe_arena_alloc(job->arena, kept.n_files * sizeof(*kept.files));
	for (size_t i = 0; i < kept.n_files; i++) {
		kept.files[i] = b->previous->files[i];
		with_new_deletes(b, &kept.files[i]);
	}
	if (silver_schema(&schema, job->arena, b->s) < 0 ||
	    floe_query_view(job->engine, job->arena, "main", "floe_kept", floe_iceberg_table_storage(b->silver), &kept,
			    schema) < 0 ||
	    floe_query_view_positions(job->engine, job->arena, "main", "floe_kept_pos", floe_iceberg_table_storage(b->silver),
				      &kept, schema) < 0)
		return -1;
	b->kept = floe_arena_alloc(job->arena, sizeof(*b->kept));
	*b->kept = kept;
	floe_buf live = FLOE_BUF_INIT;
	floe_query_put_live(&live, &kept, "floe_pos");
	job->kept_live = floe_arena_strdup(job->arena, floe_buf_cstr(&live));
	floe_buf_free(&live);
	return 1;
}

/* Merge-on-read, floe_written: floe_kept and the new files (at their temporary place). */
static int mor_written_view(silver_build *b)
{
	floe_buf sql = FLOE_BUF_INIT;
	int kept = kept_view(b);
	if (kept < 0)
		return -1;
	floe_buf_puts(&sql, "CREATE TEMP VIEW floe_written AS ");
	floe_buf_puts(&sql, kept ? "SELECT * FROM floe_kept" : "");
	for (size_t i = 0; i < b->n_files; i++) {
		floe_buf_puts(&sql, i      ? ", "
				    : kept ? " UNION ALL BY NAME SELECT * FROM read_parquet(["
					   : "SELECT * FROM read_parquet([");
		floe_buf_put_quoted(&sql, b->tmp[i], '\'');
	}
	floe_buf_puts(&sql, b->n_files ? "])" : kept ? "" : "SELECT * FROM floe_fresh LIMIT 0");
	int error = floe_engine_exec(b->job->engine, floe_buf_cstr(&sql));
	floe_buf_free(&sql);
	return error;
}

/*
 * floe_written: the table as it would be published — untouched live files plus the new ones. A
 * full build publishes exactly floe_out's rows (the new files were written from it, with the lock's
 * types): the tests read them there, not decoded again from the files.
 */
static int written_view(silver_build *b)
{
	silver_job *job = b->job;
	floe_buf sql = FLOE_BUF_INIT;
	size_t n = 0;
	if (!b->incremental)
		return floe_engine_exec(job->engine, "CREATE TEMP VIEW floe_written AS SELECT * EXCLUDE (floe_n) FROM floe_out");
	if (fresh_view(b) < 0)
		return -1;
	if (b->merge_on_read)
		return mor_written_view(b);
	floe_buf_puts(&sql, "CREATE TEMP VIEW floe_written AS SELECT * FROM read_parquet([");
	for (size_t i = 0; b->previous && i < b->previous->n_files; i++) {
		const char *uri = b->previous->files[i].file.path;
		bool rewritten = false;
		for (size_t k = 0; k < b->n_removed; k++)
			rewritten |= strcmp(b->removed[k], uri) == 0;
		if (!rewritten) {
			floe_buf_puts(&sql, n++ ? ", " : "");
			floe_buf_put_quoted(&sql, silver_engine_path(b, uri), '\'');
		}
	}
	for (size_t i = 0; i < b->n_files; i++) { /* not stored yet: at their temporary place */
		floe_buf_puts(&sql, n++ ? ", " : "");
		floe_buf_put_quoted(&sql, b->tmp[i], '\'');
	}
	floe_buf_puts(&sql, "])");
	if (n == 0) { /* nothing to publish: the tests see an empty table of the lock's columns */
		floe_buf_clear(&sql);
		floe_buf_puts(&sql, "CREATE TEMP VIEW floe_written AS SELECT * FROM floe_fresh LIMIT 0");
	}
	int error = floe_engine_exec(job->engine, floe_buf_cstr(&sql));
	floe_buf_free(&sql);
	return error;
}

/* The silver table and its live files, its schema brought to the lock's; b->silver NULL: not created yet. */
static int open_silver(silver_build *b)
{
	silver_job *job = b->job;
	floe_iceberg_schema *schema;
	if (floe_iceberg_table_load(&b->silver, job->cat, job->ns, job->name) < 0) {
		b->silver = NULL;
		if (floe_error_last()->cls != FLOE_ERR_CONFIG)
			return -1;
		floe_error_clear(); /* created when its first build publishes (create_silver) */
		b->merge_on_read = floe_bronze_merge_on_read(job->config, job->table->schema, job->table->name);
		return 0;
	}
	if (silver_schema(&schema, job->arena, b->s) < 0)
		return -1;
	int changed = silver_align_schema(b->silver, job->arena, schema);
	b->schema_changed = changed > 0;
	if (changed < 0 || floe_iceberg_table_plan_live(&b->previous, job->arena, b->silver, -1) < 0)
		return -1;
	/* merge-on-read as bronze's write mode says, and always once the table has delete files (a
	   rewrite would copy their deleted rows) */
	b->merge_on_read = b->previous->n_deletes > 0 ||
			   floe_bronze_merge_on_read(job->config, job->table->schema, job->table->name);
	return 0;
}

/* The current silver snapshot's summary value of `key`, or NULL. */
const char *silver_built_from(const silver_build *b, const char *key)
{
	const floe_iceberg_snapshot *snap =
		b->silver ? floe_iceberg_metadata_current_snapshot(floe_iceberg_table_metadata(b->silver)) : NULL;
	return snap ? floe_iceberg_snapshot_summary(snap, key) : NULL;
}

/* Whether the published snapshot passed exactly the table's tests as they stand (floe.tests-sha256). */
bool silver_tests_as_published(const silver_build *b)
{
	char tests[FLOE_SHA256_HEX_LEN + 1];
	const char *passed = silver_built_from(b, "floe.tests-sha256");
	silver_tests_sha(tests, b->s);
	return passed && strcmp(passed, tests) == 0;
}

/* Whether one of the table's tests depends on the clock (freshness): it must run every run. */
static bool tested_by_the_clock(const floe_lock_silver *s)
{
	for (size_t i = 0; i < s->n_tests; i++)
		if (strcmp(s->tests[i].kind, "freshness") == 0)
			return true;
	return false;
}

/*
 * Whether the published table was built from this very bronze snapshot by this very model and
 * tested by these very tests, none of which can fail by time passing alone (a stale table fails
 * freshness exactly when its source went quiet).
 */
static bool unchanged(const silver_build *b)
{
	const char *bronze = silver_built_from(b, "floe.bronze-snapshot-id"), *sha = silver_built_from(b, "floe.model-sha256");
	char want[32];
	snprintf(want, sizeof(want), "%lld", (long long)b->job->bronze_snapshot);
	return !b->job->full_refresh && !b->schema_changed && bronze && sha && strcmp(bronze, want) == 0 &&
	       strcmp(sha, b->model_sha) == 0 && silver_tests_as_published(b) && !tested_by_the_clock(b->s);
}

/* Whether relationships test `t`'s parent has published since the last publish tested against it: 1, 0, -1. */
static int parent_moved(silver_job *job, const floe_lock_test *t)
{
	floe_iceberg_table *pt = NULL;
	const char *dot = strchr(t->to, '.');
	int64_t tested = silver_tested_snapshot(job, t);
	if (!dot || tested < 0)
		return 1; /* not tested against a snapshot of it (an empty parent, say): test again */
	if (floe_iceberg_table_load(&pt, job->cat, floe_arena_strndup(job->arena, t->to, (size_t)(dot - t->to)), dot + 1) < 0)
		return -1;
	const floe_iceberg_snapshot *now = floe_iceberg_metadata_current_snapshot(floe_iceberg_table_metadata(pt));
	int moved = !now || now->snapshot_id != tested;
	floe_iceberg_table_free(pt);
	return moved;
}

void silver_wait_reads(silver_job *job)
{
	if (!job->wait_reads || job->reads_waited)
		return;
	job->reads_waited = true;
	job->wait_reads(job);
	silver_step(job, "waited for the silver tables it reads");
}

/*
 * Whether every relationships parent of the table is at the snapshot the last publish tested
 * against: 1; 0 when one published since (it may have lost keys the table's rows hold: the test
 * runs again, even over bronze rows that did not move); -1 error.
 */
static int parents_as_tested(silver_build *b)
{
	silver_job *job = b->job;
	silver_wait_reads(job);
	job->parents_tested = silver_built_from(b, "floe.parent-snapshots");
	for (size_t i = 0; i < b->s->n_tests; i++) {
		int moved = b->s->tests[i].to ? parent_moved(job, &b->s->tests[i]) : 0;
		if (moved != 0)
			return moved < 0 ? -1 : 0;
	}
	return 1;
}

/*
 * Whether a build would publish what is published although bronze moved (unchanged() is the case
 * where it did not): bronze holds the very rows the table was built from, by the same model; the
 * model reads no other silver table; every test is an error test the published snapshot passed
 * (a warn test's notes would be lost), none depends on the time (freshness); and every
 * relationships parent is at the snapshot the last publish tested against. 1, 0, -1.
 */
static int rows_as_built(silver_build *b, floe_iceberg_table *bronze, const floe_iceberg_scan *now)
{
	if (b->job->n_refs > 0 || !silver_tests_as_published(b) || tested_by_the_clock(b->s))
		return 0;
	for (size_t i = 0; i < b->s->n_tests; i++)
		if (strcmp(b->s->tests[i].severity, "error") != 0)
			return 0;
	int rows = silver_bronze_rows_as_built(b, bronze, now); /* first: it reads no other silver table */
	return rows <= 0 ? rows : parents_as_tested(b);
}

/* The one commit that publishes the build: replace, or (incremental) rewrite the touched files. */
static int publish(silver_build *b)
{
	silver_job *job = b->job;
	char snap[32];
	snprintf(snap, sizeof(snap), "%lld", (long long)job->bronze_snapshot);
	char tests[FLOE_SHA256_HEX_LEN + 1];
	silver_tests_sha(tests, b->s);
	floe_iceberg_kv sum[] = { { "floe.run-id", job->run_id }, { "floe.bronze-snapshot-id", snap },
				  { "floe.model-sha256", b->model_sha }, { "floe.tests-sha256", tests },
				  { "floe.parent-snapshots", job->parents } };
	floe_iceberg_commit_opts o = FLOE_ICEBERG_COMMIT_OPTS_INIT;
	o.summary = sum, o.n_summary = job->parents ? 5 : 4;
	o.expect_snapshot_id = b->previous && b->previous->snapshot_id > 0 ? b->previous->snapshot_id
									    : FLOE_ICEBERG_NO_SNAPSHOT;
	if (silver_store_files(b) < 0)
		return floe_error_context("while publishing %s.%s", job->ns, job->name);
	floe_iceberg_data_file del = { 0 };
	size_t n_del = b->merge_on_read && b->n_dels > 0;
	if (n_del && floe_iceberg_position_deletes_write(&del, job->arena, b->silver, b->dels, b->n_dels, NULL) < 0)
		return floe_error_context("while publishing %s.%s", job->ns, job->name);
	int rc = b->merge_on_read && b->incremental
			 ? floe_iceberg_table_row_delta(b->silver, NULL, 0, b->files, b->n_files, &del, n_del, &o)
		 : b->incremental ? floe_iceberg_table_rewrite(b->silver, b->removed, b->n_removed, b->files, b->n_files, &o)
				  : floe_iceberg_table_replace(b->silver, b->files, b->n_files, &o);
	if (rc < 0) {
		if (!floe_iceberg_table_may_have_landed(b->silver)) {
			silver_discard_files(b);
			if (n_del)
				floe_iceberg_storage_remove(floe_iceberg_table_storage(b->silver), del.path);
		}
		b->n_files = 0; /* kept when the commit may have landed: only orphan removal may delete them */
		return floe_error_context("while publishing %s.%s", job->ns, job->name);
	}
	const floe_iceberg_snapshot *cur = floe_iceberg_metadata_current_snapshot(floe_iceberg_table_metadata(b->silver));
	job->result->snapshot_id = cur ? cur->snapshot_id : 0;
	return 0;
}

/*
 * The rows the table will hold: a full build's floe_out counted (a table in memory); an
 * incremental one's from the metadata — the live rows of the files it keeps, less the rows it
 * deletes by position, plus the new files' — rather than a scan of the whole table.
 */
static int published_rows(silver_build *b, int64_t *out)
{
	floe_buf n = FLOE_BUF_INIT;
	int error = 0;
	if (!b->incremental) {
		error = floe_engine_query_text(b->job->engine, &n, "SELECT count(*) FROM floe_written");
		*out = error < 0 ? 0 : strtoll(floe_buf_cstr(&n), NULL, 10);
		floe_buf_free(&n);
		return error;
	}
	*out = -(int64_t)b->n_dels;
	for (size_t i = 0; b->previous && i < b->previous->n_files; i++) {
		const floe_iceberg_scan_file *f = &b->previous->files[i];
		bool rewritten = false;
		for (size_t k = 0; k < b->n_removed; k++)
			rewritten |= strcmp(b->removed[k], f->file.path) == 0;
		*out += rewritten ? 0 : f->file.record_count - (int64_t)f->n_deleted;
	}
	for (size_t i = 0; i < b->n_files; i++)
		*out += b->files[i].record_count;
	return 0;
}

/* Quarantine, write, audit the written files, and publish only when every error test passed. */
static int audit_publish(silver_build *b)
{
	silver_job *job = b->job;
	floe_silver_result *r = job->result;
	int error = -1;
	if (silver_quarantine(job, &r->quarantined) < 0 || silver_note_quarantine(job) < 0)
		goto cleanup;
	silver_step(job, "quarantine");
	if (silver_write_files(b) < 0)
		goto cleanup;
	silver_step(job, "write");
	job->unique_by_model = !b->incremental && job->model_generated;
	if (written_view(b) < 0 || silver_audit(job, "floe_written") < 0 || published_rows(b, &r->rows) < 0)
		goto cleanup;
	silver_step(job, "audit");
	if (job->table_failed) {
		floe_error_set(FLOE_ERR_CHECK, "%s.%s was not published: an error-severity test failed", job->ns, job->name);
		floe_error_detail("%s", floe_buf_cstr(&job->notes));
		floe_error_hint("The previous snapshot stays current. Fix the source rows (or the rule), then run again.");
		goto cleanup;
	}
	bool nothing = b->incremental && b->n_removed == 0 && b->n_files == 0 && b->n_dels == 0;
	if (!nothing && publish(b) < 0)
		goto cleanup;
	silver_step(job, "publish");
	if (!nothing) {
		silver_remember_gone(b, r->snapshot_id);
		silver_step(job, "gone keys (for the tables that reference it)");
	}
	if (job->readable)
		job->readable(job); /* what the tables reading this one need is there: the index work below is this table's */
	if (!nothing) {
		silver_keys_published(b);
		silver_step(job, "key index");
	}
	b->n_files = 0; /* committed: they belong to the table now */
	if (silver_write_quarantine(b) < 0)
		goto cleanup;
	silver_step(job, "quarantine table");
	error = 0;
cleanup:
	silver_discard_files(b); /* never referenced: the audit failed (or nothing is left: committed) */
	return error;
}

/* Two names of `fields` DuckDB cannot tell apart (its names ignore case), at any depth; NULL: none. */
static const char *case_twins(floe_arena *a, const floe_iceberg_field *fields, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t k = i + 1; k < n; k++)
			if (strcasecmp(fields[i].name, fields[k].name) == 0)
				return floe_arena_printf(a, "\"%s\" and \"%s\"", fields[i].name, fields[k].name);
		const floe_iceberg_type *t = fields[i].type;
		while (t->id == FLOE_ICEBERG_LIST)
			t = t->element;
		const char *inner = t->id == FLOE_ICEBERG_STRUCT ? case_twins(a, t->fields, t->n_fields) : NULL;
		if (inner)
			return inner;
	}
	return NULL;
}

/*
 * job->engine: a connection to the run's DuckDB database (opened, its PII key set, at the run's
 * first build: job->memo->engine), working in an in-memory catalog of its own (USE floe_build_<n>),
 * so that no view or table of a build meets another's and all go with it (build_engine_close);
 * without a memo a database of its own. A failed build's error never quotes a row's value.
 */
static void *warm_engine(void *arg)
{
	silver_memo *m = arg;
	if (floe_engine_open(&m->warmed, NULL) < 0) {
		floe_error_clear(); /* the first build opens one itself and says why it cannot */
		m->warmed = NULL;
	}
	return NULL;
}

void silver_memo_warm(silver_memo *m)
{
	/* glibc's time zone state set here first: DuckDB's start reads it (tzset) on the new thread, and
	   glibc sets it up (and frees the old name) on first use, under a lock ThreadSanitizer cannot see */
	tzset();
	m->warming = pthread_create(&m->warm, NULL, warm_engine, m) == 0;
}

floe_engine *silver_memo_warmed(silver_memo *m)
{
	if (m->warming)
		pthread_join(m->warm, NULL);
	m->warming = false;
	floe_engine *e = m->warmed;
	m->warmed = NULL;
	return e;
}

static int build_engine_open(silver_job *job)
{
	silver_memo *m = job->memo;
	const char *key = NULL;
	floe_buf home = FLOE_BUF_INIT;
	if (floe_config_pii_key(&key, job->config) < 0)
		return -1;
	if (!m) {
		if (floe_engine_open(&job->engine, NULL) < 0)
			return -1;
		floe_engine_hide_data_in_errors(job->engine);
		return key ? floe_engine_set_pii_key(job->engine, key, strlen(key)) : 0;
	}
	pthread_mutex_lock(&m->mu);
	if (!m->engine) {
		m->engine = silver_memo_warmed(m);
		int error = m->engine ? 0 : floe_engine_open(&m->engine, NULL);
		if (error == 0 && key)
			error = floe_engine_set_pii_key(m->engine, key, strlen(key));
		if (error == 0 && m->threads > 0)
			error = floe_engine_exec(m->engine, floe_arena_printf(job->arena, "SET threads = %d", m->threads));
		if (error == 0)
			error = floe_engine_query_text(m->engine, &home, "SELECT current_database()");
		m->home = floe_arena_strdup(m->arena, floe_buf_cstr(&home));
		floe_buf_free(&home);
		if (error < 0) {
			floe_engine_close(m->engine);
			m->engine = NULL;
			pthread_mutex_unlock(&m->mu);
			return -1;
		}
	}
	int n = m->n_builds++;
	pthread_mutex_unlock(&m->mu);
	if (floe_engine_connect(&job->engine, m->engine) < 0)
		return -1;
	floe_engine_hide_data_in_errors(job->engine);
	job->catalog = floe_arena_printf(job->arena, "floe_build_%d", n);
	const char *sql = floe_arena_printf(job->arena, "ATTACH ':memory:' AS \"%s\"; USE \"%s\"", job->catalog, job->catalog);
	return floe_engine_exec(job->engine, sql);
}

/* The build's catalog detached (its views and tables gone), its connection closed; the build's error kept. */
static void build_engine_close(silver_job *job)
{
	if (job->engine && job->catalog) {
		floe_error pending;
		floe_error_take(&pending);
		const char *sql = floe_arena_printf(job->arena, "USE \"%s\"; DETACH \"%s\"", job->memo->home, job->catalog);
		if (floe_engine_exec(job->engine, sql) < 0)
			floe_error_clear(); /* the next build uses a catalog of another name */
		if (pending.message)
			floe_error_give(&pending);
	}
	floe_engine_close(job->engine);
	job->engine = NULL;
	job->catalog = NULL;
}

int silver_build_table(silver_job *job)
{
	silver_build b = { .job = job, .s = job->table->silver };
	job->build = &b;
	floe_iceberg_table *bronze = NULL;
	floe_iceberg_scan *scan = NULL;
	floe_buf model = FLOE_BUF_INIT;
	int error = -1;
	const char *bns, *bname;
	silver_split(job->arena, job->table->bronze, &bns, &bname);
	silver_split(job->arena, b.s->table, &job->ns, &job->name);
	silver_step(job, "start");
	if (floe_iceberg_table_load(&bronze, job->cat, bns, bname) < 0 ||
	    floe_iceberg_table_plan_live(&scan, job->arena, bronze, job->bronze_snapshot) < 0)
		goto cleanup;
	const char *twins = case_twins(job->arena, scan->schema->fields, scan->schema->n_fields);
	if (twins) { /* as floe query leaves it out: DuckDB would take one name for the other */
		job->result->state = "skipped";
		job->result->detail = floe_arena_printf(job->arena, "DuckDB cannot build it: the names %s of %s differ "
								    "only in case, and DuckDB's names ignore case", twins,
							job->table->bronze);
		error = 0;
		goto cleanup;
	}
	if (open_silver(&b) < 0 || silver_render_model(&b, &model) < 0)
		goto cleanup;
	silver_step(job, "open");
	/* the same bronze snapshot and model, and no relationships parent moved since its test */
	int same = unchanged(&b) ? parents_as_tested(&b) : 0;
	int as_built = same ? 0 : rows_as_built(&b, bronze, scan);
	if (same < 0 || as_built < 0)
		goto cleanup;
	if (same || as_built) {
		job->result->state = "unchanged";
		job->result->rows = b.previous ? floe_iceberg_scan_live_rows(b.previous) : 0;
		if (as_built)
			job->result->detail = floe_arena_printf(
				job->arena, "%lld rows; bronze snapshot %lld holds the rows of snapshot %s, which the "
					    "model built and its tests passed as they stand", (long long)job->result->rows,
				(long long)job->bronze_snapshot, silver_built_from(&b, "floe.bronze-snapshot-id"));
		error = 0;
		goto cleanup;
	}
	if (silver_keys_make_ahead(&b)) /* while the run's DuckDB database opens */
		silver_step(job, "foreign keys' indexes made ahead");
	if (build_engine_open(job) < 0 || silver_parent_views(job) < 0 ||
	    silver_choose_scope(&b, bronze, scan, bns, bname) < 0)
		goto cleanup;
	silver_step(job, "scope");
	if (silver_run_model(&b, &model) < 0)
		goto cleanup;
	silver_step(job, "model");
	error = audit_publish(&b);
cleanup:
	floe_iceberg_table_free(bronze);
	silver_keys_close(&b);
	job->build = NULL;
	floe_iceberg_table_free(b.silver);
	build_engine_close(job);
	if (job->tmp_dir)
		rmdir(job->tmp_dir); /* empty: every file in it was removed */
	job->tmp_dir = NULL;
	floe_buf_free(&model);
	return error;
}
