/*
 * test_deletes.c — position delete files (merge-on-read) against a real catalog file and
 * real Parquet files: written sorted with the reserved field ids, committed with data files
 * in one snapshot (delete manifest, sequence numbers, summary counts), applied by floe's
 * scan by path and sequence number, refused by the plain planner, and removed by a rewrite
 * (compaction) or a replace (full load).
 */
#include "harness.h"

#include "duck_parquet.h"

#include "base/arena.h"
#include "base/error.h"
#include "base/fs.h"
#include "engine/engine.h"
#include "iceberg/catalog.h"
#include "iceberg/deletes.h"
#include "iceberg/parquet_io.h"
#include "iceberg/table.h"
#include "query/query.h"

#include <stdlib.h>

typedef struct denv {
	char dir[64];
	floe_arena *a;
	floe_engine *engine;
	floe_iceberg_catalog *catalog;
	floe_iceberg_table *t;
} denv;

static bool denv_open(denv *e)
{
	floe_iceberg_catalog_opts opts = FLOE_ICEBERG_CATALOG_OPTS_INIT;
	floe_iceberg_schema *s;
	memset(e, 0, sizeof(*e));
	snprintf(e->dir, sizeof(e->dir), "/tmp/floe-deletes-XXXXXX");
	if (!mkdtemp(e->dir))
		return false;
	e->a = floe_arena_new();
	opts.create = true;
	s = floe_arena_alloc(e->a, sizeof(*s));
	s->n_fields = 2;
	s->fields = floe_arena_alloc(e->a, 2 * sizeof(*s->fields));
	s->fields[0] = (floe_iceberg_field){ 1, "id", true, floe_iceberg_type_new(e->a, FLOE_ICEBERG_LONG), NULL };
	s->fields[1] = (floe_iceberg_field){ 2, "v", false, floe_iceberg_type_new(e->a, FLOE_ICEBERG_INT), NULL };
	return floe_engine_open(&e->engine, NULL) == 0 &&
	       floe_iceberg_catalog_open_sql(&e->catalog, floe_arena_printf(e->a, "%s/catalog.db", e->dir), &opts) == 0 &&
	       floe_iceberg_table_create(&e->t, e->catalog, "bronze", "mor", s, NULL) == 0;
}

static void denv_close(denv *e)
{
	floe_iceberg_table_free(e->t);
	floe_iceberg_catalog_free(e->catalog);
	floe_engine_close(e->engine);
	floe_fs_remove_tree(e->dir);
	floe_arena_free(e->a);
	floe_error_clear();
}

/* Ids [from, from + n) as one data file. */
static floe_iceberg_data_file *data_file(denv *e, int from, int n)
{
	floe_iceberg_data_file *f = floe_arena_alloc(e->a, sizeof(*f));
	const char *sql = floe_arena_printf(e->a, "SELECT (%d + range)::BIGINT AS id, (range %% 7)::INT AS v "
					    "FROM range(%d)", from, n);
	if (fx_parquet_write(f, e->a, e->engine, floe_iceberg_metadata_current_schema(floe_iceberg_table_metadata(e->t)),
			     sql, floe_iceberg_table_new_data_uri(e->t, e->a, "parquet")) < 0) {
		floe_error_print(stderr);
		return NULL;
	}
	return f;
}

static const char *summary(denv *e, const char *key)
{
	const floe_iceberg_snapshot *s = floe_iceberg_metadata_current_snapshot(floe_iceberg_table_metadata(e->t));
	return s ? floe_iceberg_snapshot_summary(s, key) : NULL;
}

/* The scan file whose path is `path`. */
static const floe_iceberg_scan_file *file_of(const floe_iceberg_scan *s, const char *path)
{
	for (size_t i = 0; s && i < s->n_files; i++)
		if (strcmp(s->files[i].file.path, path) == 0)
			return &s->files[i];
	return NULL;
}

FLOE_TEST(iceberg_deletes_write_sorted_with_reserved_ids)
{
	denv e;
	FLOE_CHECK(denv_open(&e));
	floe_iceberg_position_delete d[4] = { { "file:///b.parquet", 7, 0 }, { "file:///a.parquet", 9, 0 },
					      { "file:///a.parquet", 2, 0 }, { "file:///b.parquet", 7, 0 } };
	floe_iceberg_data_file out;
	FLOE_CHECK(floe_iceberg_position_deletes_write(&out, e.a, e.t, d, 0, NULL) < 0);
	FLOE_CHECK(floe_iceberg_position_deletes_write(&out, e.a, e.t, d, 4, NULL) == 0);
	FLOE_CHECK(out.content == FLOE_ICEBERG_CONTENT_POSITION_DELETES);
	FLOE_CHECK(out.record_count == 3); /* the duplicate is dropped */
	floe_parquet_reader *r = NULL;
	floe_vector path = { 0 }, pos = { 0 };
	FLOE_CHECK(floe_iceberg_parquet_open(&r, floe_iceberg_table_storage(e.t), out.path, NULL) == 0);
	const floe_parquet_meta *m = r ? floe_parquet_reader_meta(r) : NULL;
	FLOE_CHECK(m && m->n_fields == 2);
	if (m && m->n_fields == 2) {
		FLOE_CHECK(m->fields[0].field_id == FLOE_ICEBERG_FIELD_FILE_PATH);
		FLOE_CHECK(m->fields[1].field_id == FLOE_ICEBERG_FIELD_POS);
		FLOE_CHECK(floe_parquet_reader_read_field(&path, r, 0, 0) == 0);
		FLOE_CHECK(floe_parquet_reader_read_field(&pos, r, 0, 1) == 0);
		size_t len = 0;
		const uint8_t *p = path.len == 3 ? floe_vector_bytes(&path, 0, &len) : NULL;
		FLOE_CHECK(p && len == 17 && memcmp(p, "file:///a.parquet", 17) == 0);
		FLOE_CHECK(pos.len == 3 && pos.v.i64[0] == 2 && pos.v.i64[1] == 9 && pos.v.i64[2] == 7);
	}
	floe_vector_free(&path);
	floe_vector_free(&pos);
	floe_parquet_reader_free(r);
	const floe_iceberg_column_stats *ps = floe_iceberg_data_file_column(&out, FLOE_ICEBERG_FIELD_POS);
	int64_t lo = -1, hi = -1;
	FLOE_CHECK(ps && ps->has_lower && ps->has_upper);
	if (ps && ps->has_lower && ps->has_upper) {
		FLOE_CHECK(floe_iceberg_bound_to_int(&lo, FLOE_ICEBERG_LONG, ps->lower, ps->lower_len) == 0 && lo == 2);
		FLOE_CHECK(floe_iceberg_bound_to_int(&hi, FLOE_ICEBERG_LONG, ps->upper, ps->upper_len) == 0 && hi == 9);
	}
	denv_close(&e);
}

/*
 * With the deleted rows' key values: a `row` struct under its reserved id holding the table's
 * field by its id, its values sorted and de-duplicated with the entries they belong to; read
 * back by floe's reader, by DuckDB, and applied by the scan as without it.
 */
FLOE_TEST(iceberg_deletes_carry_their_rows_key_values)
{
	denv e;
	FLOE_CHECK(denv_open(&e));
	floe_iceberg_data_file *a = data_file(&e, 0, 10), *b = data_file(&e, 10, 10);
	if (!a || !b) {
		denv_close(&e);
		return;
	}
	FLOE_CHECK(floe_iceberg_table_append(e.t, a, 1, NULL) == 0 && floe_iceberg_table_append(e.t, b, 1, NULL) == 0);
	/* rows 9 and 2 of a (ids 9, 2), row 7 of b (id 17) twice; values by reference, out of order */
	floe_iceberg_position_delete d[4] = { { b->path, 7, 2 }, { a->path, 9, 0 }, { a->path, 2, 1 }, { b->path, 7, 2 } };
	floe_vector id;
	floe_vector_init(&id, FLOE_VEC_LONG, 0);
	floe_vector_append_i64(&id, 9);
	floe_vector_append_i64(&id, 2);
	floe_vector_append_i64(&id, 17);
	const floe_parquet_field key = { .name = "id", .id = 1, .required = true, .type = FLOE_VEC_LONG };
	floe_iceberg_deleted_rows rows = { .fields = &key, .cols = &id, .n = 1 };
	floe_iceberg_data_file del;
	bool a_first = strcmp(a->path, b->path) < 0; /* data file names are random */
	FLOE_CHECK(floe_iceberg_position_deletes_write(&del, e.a, e.t, d, 4, &rows) == 0);
	FLOE_CHECK(del.record_count == 3);
	floe_parquet_reader *r = NULL;
	floe_vector row = { 0 };
	FLOE_CHECK(floe_iceberg_parquet_open(&r, floe_iceberg_table_storage(e.t), del.path, NULL) == 0);
	const floe_parquet_meta *m = r ? floe_parquet_reader_meta(r) : NULL;
	FLOE_CHECK(m && m->n_fields == 3);
	if (m && m->n_fields == 3) {
		FLOE_CHECK(m->fields[2].field_id == FLOE_ICEBERG_FIELD_DELETED_ROW);
		FLOE_CHECK(floe_parquet_reader_read_field(&row, r, 0, 2) == 0);
		FLOE_CHECK(row.type == FLOE_VEC_STRUCT && row.n_children == 1 && row.len == 3);
		if (row.type == FLOE_VEC_STRUCT && row.n_children == 1 && row.children[0].len == 3) {
			const int64_t *v = row.children[0].v.i64; /* a's rows 2 and 9, b's row 7: by path, then row */
			FLOE_CHECK(a_first ? v[0] == 2 && v[1] == 9 && v[2] == 17 : v[0] == 17 && v[1] == 2 && v[2] == 9);
		}
	}
	floe_vector_free(&row);
	floe_parquet_reader_free(r);
	const floe_iceberg_column_stats *ids = floe_iceberg_data_file_column(&del, 1);
	int64_t lo = -1, hi = -1;
	FLOE_CHECK(ids && ids->has_lower && ids->has_upper);
	if (ids && ids->has_lower && ids->has_upper) {
		FLOE_CHECK(floe_iceberg_bound_to_int(&lo, FLOE_ICEBERG_LONG, ids->lower, ids->lower_len) == 0 && lo == 2);
		FLOE_CHECK(floe_iceberg_bound_to_int(&hi, FLOE_ICEBERG_LONG, ids->upper, ids->upper_len) == 0 && hi == 17);
	}
	floe_buf out = FLOE_BUF_INIT;
	const char *sql = floe_arena_printf(e.a, "SELECT string_agg(row.id::VARCHAR, ',' ORDER BY file_path, pos) "
					    "FROM read_parquet('%s')", del.path + strlen("file://"));
	FLOE_CHECK(floe_engine_query_text(e.engine, &out, sql) == 0);
	FLOE_CHECK_STR(floe_buf_cstr(&out), a_first ? "2,9,17" : "17,2,9");
	floe_buf_free(&out);
	/* the row's fields found by id, named as in the file; an id it lacks: not found */
	floe_iceberg_scan_file sf = { .file = del };
	const char *names[2] = { NULL, NULL };
	int32_t want_ids[2] = { 1, 2 };
	FLOE_CHECK(floe_iceberg_deletes_row_names(e.a, e.t, &sf, want_ids, 1, names) == 1 && names[0] &&
		   strcmp(names[0], "id") == 0);
	FLOE_CHECK(floe_iceberg_deletes_row_names(e.a, e.t, &sf, want_ids, 2, names) == 0);
	/* committed, it deletes as a delete without rows does */
	floe_iceberg_scan *scan = NULL;
	FLOE_CHECK(floe_iceberg_table_row_delta(e.t, NULL, 0, NULL, 0, &del, 1, NULL) == 0);
	FLOE_CHECK(floe_iceberg_table_plan_live(&scan, e.a, e.t, -1) == 0);
	const floe_iceberg_scan_file *fa = file_of(scan, a->path), *fb = file_of(scan, b->path);
	FLOE_CHECK(fa && fa->n_deleted == 2 && fa->deleted[0] == 2 && fa->deleted[1] == 9);
	FLOE_CHECK(fb && fb->n_deleted == 1 && fb->deleted[0] == 7);
	/* a reference past the values: no `row` at all (file_path and pos, what readers need) */
	d[0].row = 3;
	FLOE_CHECK(floe_iceberg_position_deletes_write(&del, e.a, e.t, d, 4, &rows) == 0);
	FLOE_CHECK(floe_iceberg_parquet_open(&r, floe_iceberg_table_storage(e.t), del.path, NULL) == 0);
	m = r ? floe_parquet_reader_meta(r) : NULL;
	FLOE_CHECK(m && m->n_fields == 2);
	floe_parquet_reader_free(r);
	sf.file = del;
	FLOE_CHECK(floe_iceberg_deletes_row_names(e.a, e.t, &sf, want_ids, 1, names) == 0); /* a reader reads the rows instead */
	floe_vector_free(&id);
	denv_close(&e);
}

FLOE_TEST(iceberg_deletes_row_delta_applied_by_scan)
{
	denv e;
	FLOE_CHECK(denv_open(&e));
	floe_iceberg_data_file *a = data_file(&e, 0, 10), *b = data_file(&e, 10, 10), *c = data_file(&e, 100, 2);
	FLOE_CHECK(a && b && c);
	if (!a || !b || !c) {
		denv_close(&e);
		return;
	}
	FLOE_CHECK(floe_iceberg_table_append(e.t, a, 1, NULL) == 0);
	FLOE_CHECK(floe_iceberg_table_append(e.t, b, 1, NULL) == 0);
	/* Rows 3 and 5 of a, 0 of b, 1 of c (committed with it: same sequence number, applies). */
	floe_iceberg_position_delete d[5] = { { a->path, 5, 0 }, { b->path, 0, 0 }, { a->path, 3, 0 },
					      { c->path, 1, 0 }, { "file:///elsewhere.parquet", 0, 0 } };
	floe_iceberg_data_file del;
	FLOE_CHECK(floe_iceberg_position_deletes_write(&del, e.a, e.t, d, 5, NULL) == 0);
	FLOE_CHECK(floe_iceberg_table_row_delta(e.t, NULL, 0, c, 1, &del, 1, NULL) == 0);
	FLOE_CHECK_STR(floe_iceberg_metadata_current_snapshot(floe_iceberg_table_metadata(e.t))->operation, "overwrite");
	FLOE_CHECK_STR(summary(&e, "added-data-files"), "1");
	FLOE_CHECK_STR(summary(&e, "added-delete-files"), "1");
	FLOE_CHECK_STR(summary(&e, "added-position-deletes"), "5");
	FLOE_CHECK_STR(summary(&e, "total-delete-files"), "1");
	FLOE_CHECK_STR(summary(&e, "total-position-deletes"), "5");
	FLOE_CHECK_STR(summary(&e, "total-records"), "22");
	FLOE_CHECK_STR(summary(&e, "total-data-files"), "3");
	/* The plain planner refuses: its callers would read deleted rows. */
	floe_iceberg_scan *scan = NULL;
	FLOE_CHECK(floe_iceberg_table_plan(&scan, e.a, e.t, -1) < 0);
	floe_error_clear();
	FLOE_CHECK(floe_iceberg_table_plan_deletes(&scan, e.a, e.t, -1) == 0);
	FLOE_CHECK(scan && scan->n_files == 3 && scan->n_deletes == 1);
	FLOE_CHECK(scan && scan->deletes[0].data_sequence_number == 3);
	FLOE_CHECK(scan && floe_iceberg_scan_load_deletes(e.a, e.t, scan) == 0);
	const floe_iceberg_scan_file *fa = file_of(scan, a->path), *fb = file_of(scan, b->path),
				     *fc = file_of(scan, c->path);
	FLOE_CHECK(fa && fa->n_deleted == 2 && fa->deleted[0] == 3 && fa->deleted[1] == 5);
	FLOE_CHECK(fa && floe_iceberg_scan_file_deleted(fa, 5) && !floe_iceberg_scan_file_deleted(fa, 4));
	FLOE_CHECK(fb && fb->n_deleted == 1 && fb->deleted[0] == 0);
	FLOE_CHECK(fc && fc->n_deleted == 1 && fc->deleted[0] == 1);
	FLOE_CHECK(scan && floe_iceberg_scan_live_rows(scan) == 18);
	/* A data file committed after the delete (higher sequence number) is not touched by it. */
	floe_iceberg_data_file *later = data_file(&e, 200, 3);
	FLOE_CHECK(later && floe_iceberg_table_append(e.t, later, 1, NULL) == 0);
	FLOE_CHECK(floe_iceberg_table_plan_deletes(&scan, e.a, e.t, -1) == 0);
	FLOE_CHECK(scan && floe_iceberg_scan_load_deletes(e.a, e.t, scan) == 0);
	FLOE_CHECK(scan && floe_iceberg_scan_live_rows(scan) == 21);
	FLOE_CHECK_STR(summary(&e, "total-position-deletes"), "5"); /* carried by the append */
	denv_close(&e);
}

/* `SELECT count(*), sum(id)` of `from` as "n sum". */
static const char *count_sum(denv *e, floe_buf *out, const char *from)
{
	const char *sql = floe_arena_printf(e->a, "SELECT count(*) || ' ' || coalesce(sum(id), 0) FROM %s", from);
	return floe_engine_query_text(e->engine, out, sql) == 0 ? floe_buf_cstr(out) : "";
}

/*
 * The views DuckDB reads a merge-on-read table through (query.h): the live rows, the deleted
 * ones (one file's positions as constants, another's past that many as split rows), and every
 * row with floe_pos filtered after by floe_query_put_live — each equal to what the positions say.
 */
FLOE_TEST(iceberg_deletes_views_of_live_and_deleted_rows)
{
	denv e;
	FLOE_CHECK(denv_open(&e));
	floe_iceberg_data_file *a = data_file(&e, 0, 5000), *b = data_file(&e, 5000, 100), *c = data_file(&e, 9000, 10);
	FLOE_CHECK(a && b && c && floe_iceberg_table_append(e.t, a, 1, NULL) == 0 &&
		   floe_iceberg_table_append(e.t, b, 1, NULL) == 0 && floe_iceberg_table_append(e.t, c, 1, NULL) == 0);
	/* a: its 1500 even positions below 3000 (past the constants' limit); b: 3 rows; c: none */
	floe_iceberg_position_delete *d = floe_arena_alloc(e.a, 1503 * sizeof(*d));
	int64_t want_sum = 0;
	for (int i = 0; i < 1500; i++)
		d[i] = (floe_iceberg_position_delete){ .path = a ? a->path : "", .pos = 2 * i }, want_sum += 2 * i;
	d[1500] = (floe_iceberg_position_delete){ .path = b ? b->path : "", .pos = 0 };
	d[1501] = (floe_iceberg_position_delete){ .path = b ? b->path : "", .pos = 42 };
	d[1502] = (floe_iceberg_position_delete){ .path = b ? b->path : "", .pos = 99 };
	want_sum += 5000 + 5042 + 5099;
	floe_iceberg_data_file del;
	FLOE_CHECK(floe_iceberg_position_deletes_write(&del, e.a, e.t, d, 1503, NULL) == 0 &&
		   floe_iceberg_table_row_delta(e.t, NULL, 0, NULL, 0, &del, 1, NULL) == 0);
	floe_iceberg_scan *scan = NULL;
	FLOE_CHECK(floe_iceberg_table_plan_live(&scan, e.a, e.t, -1) == 0);
	if (!scan) {
		denv_close(&e);
		return;
	}
	const floe_iceberg_schema *schema = floe_iceberg_metadata_current_schema(floe_iceberg_table_metadata(e.t));
	floe_iceberg_storage *st = floe_iceberg_table_storage(e.t);
	int64_t all_sum = 4999 * 5000 / 2 + (5000 * 100 + 99 * 100 / 2) + (9000 * 10 + 45);
	floe_buf out = FLOE_BUF_INIT, live = FLOE_BUF_INIT;
	FLOE_CHECK(floe_query_view(e.engine, e.a, "main", "v_live", st, scan, schema) == 0);
	FLOE_CHECK_STR(count_sum(&e, &out, "v_live"), floe_arena_printf(e.a, "3607 %lld", (long long)(all_sum - want_sum)));
	FLOE_CHECK(floe_query_view_deleted(e.engine, e.a, "main", "v_deleted", st, scan, schema) == 0);
	FLOE_CHECK_STR(count_sum(&e, &out, "v_deleted"), floe_arena_printf(e.a, "1503 %lld", (long long)want_sum));
	FLOE_CHECK(floe_query_view_positions(e.engine, e.a, "main", "v_pos", st, scan, schema) == 0);
	FLOE_CHECK_STR(count_sum(&e, &out, "v_pos"), floe_arena_printf(e.a, "5110 %lld", (long long)all_sum));
	floe_buf_puts(&live, "(SELECT * FROM v_pos");
	floe_query_put_live(&live, scan, "floe_pos");
	floe_buf_puts(&live, ")");
	FLOE_CHECK_STR(count_sum(&e, &out, floe_buf_cstr(&live)),
		       floe_arena_printf(e.a, "3607 %lld", (long long)(all_sum - want_sum)));
	/* no deleted row at all: a view of none, with the table's columns */
	floe_iceberg_scan none = *scan;
	floe_iceberg_scan_file only_c = *file_of(scan, c ? c->path : "");
	none.files = &only_c, none.n_files = 1;
	FLOE_CHECK(floe_query_view_deleted(e.engine, e.a, "main", "v_none", st, &none, schema) == 0);
	FLOE_CHECK_STR(count_sum(&e, &out, "v_none"), "0 0");
	floe_buf_free(&out);
	floe_buf_free(&live);
	denv_close(&e);
}

FLOE_TEST(iceberg_deletes_removed_by_rewrite_and_replace)
{
	denv e;
	FLOE_CHECK(denv_open(&e));
	floe_iceberg_data_file *a = data_file(&e, 0, 10), *b = data_file(&e, 0, 9);
	floe_iceberg_position_delete d[1] = { { a ? a->path : "", 9, 0 } };
	floe_iceberg_data_file del;
	FLOE_CHECK(a && b && floe_iceberg_table_append(e.t, a, 1, NULL) == 0);
	FLOE_CHECK(floe_iceberg_position_deletes_write(&del, e.a, e.t, d, 1, NULL) == 0);
	FLOE_CHECK(floe_iceberg_table_row_delta(e.t, NULL, 0, NULL, 0, &del, 1, NULL) == 0);
	FLOE_CHECK_STR(floe_iceberg_metadata_current_snapshot(floe_iceberg_table_metadata(e.t))->operation, "delete");
	/* Compaction: a and its delete file out, b (a without row 9) in, as one replace. */
	const char *remove[2] = { a ? a->path : "", del.path };
	floe_iceberg_commit_opts o = FLOE_ICEBERG_COMMIT_OPTS_INIT;
	o.operation = "replace";
	FLOE_CHECK(floe_iceberg_table_rewrite(e.t, remove, 2, b, 1, &o) == 0);
	FLOE_CHECK_STR(summary(&e, "total-delete-files"), "0");
	FLOE_CHECK_STR(summary(&e, "total-position-deletes"), "0");
	FLOE_CHECK_STR(summary(&e, "removed-position-deletes"), "1");
	FLOE_CHECK_STR(summary(&e, "total-records"), "9");
	floe_iceberg_scan *scan = NULL;
	FLOE_CHECK(floe_iceberg_table_plan(&scan, e.a, e.t, -1) == 0 && scan->n_files == 1);
	/* Removing a delete file that is not live is a conflict, as for data files. */
	FLOE_CHECK(floe_iceberg_table_rewrite(e.t, remove + 1, 1, NULL, 0, NULL) < 0);
	FLOE_CHECK(floe_error_last() && floe_error_last()->cls == FLOE_ERR_CONFLICT);
	floe_error_clear();
	/* A full load (replace) takes every delete file with the data files. */
	floe_iceberg_position_delete d2[1] = { { b ? b->path : "", 0, 0 } };
	FLOE_CHECK(floe_iceberg_position_deletes_write(&del, e.a, e.t, d2, 1, NULL) == 0);
	FLOE_CHECK(floe_iceberg_table_row_delta(e.t, NULL, 0, NULL, 0, &del, 1, NULL) == 0);
	FLOE_CHECK(floe_iceberg_table_replace(e.t, a, 1, NULL) == 0);
	FLOE_CHECK_STR(summary(&e, "total-delete-files"), "0");
	FLOE_CHECK(floe_iceberg_table_plan(&scan, e.a, e.t, -1) == 0 && scan->n_files == 1 && scan->n_deletes == 0);
	denv_close(&e);
}
