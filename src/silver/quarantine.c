/*
 * quarantine.c — silver.X__quarantine: the rows a published build keeps out (audit.c picks them),
 * each once per failed rule — a full build replaces its rows, an incremental one those of the
 * keys it changed — and the per-rule counts in the build's notes.
 */
#include "silver/silver_int.h"
#include "base/arena.h"
#include "base/error.h"

#include <string.h>

/* The quarantine table's schema: the table's unmasked key columns, then the rule, run and time. */
static int quarantine_schema(floe_iceberg_schema **out, floe_arena *a, const floe_lock_silver *s)
{
	floe_iceberg_schema *all, *q = floe_arena_alloc(a, sizeof(*q));
	static const char *const extra[] = { "floe_rule", "floe_run_id", "floe_failed_at" };
	if (silver_schema(&all, a, s) < 0)
		return -1;
	memset(q, 0, sizeof(*q));
	q->fields = floe_arena_alloc(a, (s->n_unique_key + 4) * sizeof(floe_iceberg_field));
	for (size_t k = 0; k < s->n_unique_key; k++)
		for (size_t i = 0; i < s->n_columns; i++)
			if (strcmp(s->columns[i].name, s->unique_key[k]) == 0 && !s->columns[i].pii) {
				q->fields[q->n_fields] = all->fields[i];
				q->fields[q->n_fields].doc = NULL;
				q->fields[q->n_fields].id = (int32_t)q->n_fields + 1;
				q->n_fields++;
			}
	for (size_t i = 0; i < 3; i++) {
		floe_iceberg_field *f = &q->fields[q->n_fields];
		memset(f, 0, sizeof(*f));
		f->id = (int32_t)q->n_fields + 1;
		f->name = extra[i];
		f->required = true;
		f->type = floe_iceberg_type_new(a, i == 2 ? FLOE_ICEBERG_TIMESTAMPTZ : FLOE_ICEBERG_STRING);
		q->n_fields++;
	}
	*out = q;
	return 0;
}

/* Whether the quarantine table holds every key column of `s` (none is masked): its rows can be matched to keys. */
static bool quarantine_keyed(const floe_lock_silver *s)
{
	size_t n = 0;
	for (size_t k = 0; k < s->n_unique_key; k++)
		for (size_t i = 0; i < s->n_columns; i++)
			n += strcmp(s->columns[i].name, s->unique_key[k]) == 0 && !s->columns[i].pii;
	return s->n_unique_key > 0 && n == s->n_unique_key;
}

/*
 * COPY's query of the quarantine's rows after this build: this build's failing rows, then
 * (incremental) the earlier rows of the keys it did not change — unless a key column is masked
 * (nothing to match on): then every earlier row. `old` the table's live files (NULL: none).
 */
static void put_quarantine_rows(floe_buf *sql, silver_build *b, const floe_iceberg_schema *schema, floe_iceberg_table *t,
				const floe_iceberg_scan *old)
{
	silver_job *job = b->job;
	floe_buf_puts(sql, "COPY (SELECT ");
	silver_put_casts(sql, schema, "");
	floe_buf_puts(sql, " FROM (SELECT floe_b.*, floe_q.floe_rule, ");
	floe_buf_put_quoted(sql, job->run_id, '\'');
	floe_buf_puts(sql, " AS floe_run_id, now() AS floe_failed_at FROM floe_bad floe_q JOIN floe_build floe_b USING (floe_row)"
			   " ORDER BY floe_row, floe_rule)");
	if (b->incremental && old && old->n_files) {
		floe_buf_puts(sql, " UNION ALL SELECT * FROM read_parquet([");
		for (size_t i = 0; i < old->n_files; i++) {
			const char *uri = floe_iceberg_storage_engine_uri(floe_iceberg_table_storage(t), job->arena,
									  old->files[i].file.path);
			floe_buf_puts(sql, i ? ", " : "");
			floe_buf_put_quoted(sql, uri ? uri : "", '\'');
		}
		floe_buf_puts(sql, "]) floe_t");
		if (quarantine_keyed(b->s))
			silver_put_changed(sql, b->s, "floe_t", false);
	}
	floe_buf_puts(sql, ") TO ");
}

/*
 * silver.X__quarantine after a published build holds the rows the table keeps out, each once per
 * failed rule: a full build replaces its rows with this build's; an incremental one replaces those
 * of the keys it changed (docs/silver.md). Created at the first build that quarantines a row.
 */
int silver_write_quarantine(silver_build *b)
{
	silver_job *job = b->job;
	floe_iceberg_schema *schema;
	floe_iceberg_table *t = NULL;
	floe_iceberg_scan *old = NULL;
	floe_iceberg_data_file d;
	floe_buf sql = FLOE_BUF_INIT;
	const char *name = floe_arena_printf(job->arena, "%s__quarantine", job->name);
	int error = -1;
	if (b->incremental && job->result->changed_keys == 0)
		return 0; /* no key changed: what it holds stands */
	if (quarantine_schema(&schema, job->arena, b->s) < 0)
		goto cleanup;
	if (floe_iceberg_table_load(&t, job->cat, job->ns, name) < 0) {
		floe_error_clear();
		error = 0;
		if (job->result->quarantined == 0 ||
		    (error = floe_iceberg_table_create(&t, job->cat, job->ns, name, schema, NULL)) < 0)
			goto cleanup;
		error = -1;
	}
	if (floe_iceberg_table_plan(&old, job->arena, t, -1) < 0)
		goto cleanup;
	if (job->result->quarantined == 0 && old->n_files == 0) { /* nothing held, nothing to hold */
		error = 0;
		goto cleanup;
	}
	const char *uri = floe_iceberg_table_new_data_uri(t, job->arena, "parquet");
	put_quarantine_rows(&sql, b, schema, t, old);
	floe_iceberg_kv sum[] = { { "floe.run-id", job->run_id } };
	floe_iceberg_commit_opts o = FLOE_ICEBERG_COMMIT_OPTS_INIT;
	o.summary = sum, o.n_summary = 1;
	const char *options = silver_copy_options(job->arena, job->config, schema, NULL);
	if (silver_store_copy(job, floe_iceberg_table_storage(t), uri, &sql, options, &d) < 0)
		goto cleanup;
	size_t n = d.record_count > 0;
	if (!n)
		floe_iceberg_storage_remove(floe_iceberg_table_storage(t), uri);
	if (floe_iceberg_table_replace(t, &d, n, &o) < 0) {
		if (n && !floe_iceberg_table_may_have_landed(t))
			floe_iceberg_storage_remove(floe_iceberg_table_storage(t), uri);
		goto cleanup;
	}
	error = 0;
cleanup:
	if (error < 0)
		floe_error_context("while writing %s.%s", job->ns, name);
	floe_iceberg_table_free(t);
	floe_buf_free(&sql);
	return error;
}

/* Per rule, the rows this build quarantined, into the notes. */
int silver_note_quarantine(silver_job *job)
{
	floe_engine_result *r = NULL;
	if (floe_engine_query(job->engine, &r, "SELECT floe_rule, count(*) FROM floe_bad GROUP BY 1 ORDER BY 1") < 0)
		return -1;
	for (size_t i = 0; i < floe_engine_result_rows(r); i++) {
		floe_buf_puts(&job->notes, job->notes.len ? "; " : "");
		floe_buf_printf(&job->notes, "%s: %s row%s quarantined", floe_engine_result_text(r, i, 0),
				floe_engine_result_text(r, i, 1), strcmp(floe_engine_result_text(r, i, 1), "1") ? "s" : "");
	}
	floe_engine_result_free(r);
	return 0;
}
