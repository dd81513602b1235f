/*
 * diff.c — what an incremental silver build reads: the keys whose rows differ between the bronze
 * snapshot the table was last built from and the verified one (one full join of the two
 * snapshots' differing files), the changed keys' new rows as source(), and the published silver
 * files that hold a changed key (rewritten).
 */
#include "silver/silver_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/log.h"
#include "engine/engine.h"
#include "iceberg/deletes.h"
#include "iceberg/metadata.h"
#include "iceberg/schema.h"
#include "query/query.h"

#include <stdlib.h>
#include <string.h>

/* " AND left."c" = right."c"" for each of the `n` columns. */
void silver_put_equal(floe_buf *sql, const char *const *cols, size_t n, const char *left, const char *right)
{
	for (size_t k = 0; k < n; k++) {
		floe_buf_printf(sql, " AND %s.", left);
		floe_buf_put_quoted(sql, cols[k], '"');
		floe_buf_printf(sql, " = %s.", right);
		floe_buf_put_quoted(sql, cols[k], '"');
	}
}

void silver_put_changed(floe_buf *sql, const floe_lock_silver *s, const char *alias, bool changed)
{
	floe_buf_puts(sql, changed ? " SEMI JOIN floe_changed floe_c ON true" : " ANTI JOIN floe_changed floe_c ON true");
	silver_put_equal(sql, s->unique_key, s->n_unique_key, "floe_c", alias);
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

/* The positions of `now` not in `before` (both ascending) into the arena; their count. */
static size_t positions_minus(floe_arena *arena, const floe_iceberg_scan_file *now,
			      const floe_iceberg_scan_file *before, int64_t **out)
{
	size_t n = 0, k = 0;
	*out = floe_arena_alloc(arena, (now->n_deleted + 1) * sizeof(**out));
	for (size_t i = 0; i < now->n_deleted; i++) {
		while (k < before->n_deleted && before->deleted[k] < now->deleted[i])
			k++;
		if (k == before->n_deleted || before->deleted[k] != now->deleted[i])
			(*out)[n++] = now->deleted[i];
	}
	return n;
}

/*
 * Merge-on-read bronze: the files both snapshots have whose rows `now` deletes and `before` did
 * not, each with those positions only (as `deleted`, for floe_query_view_deleted).
 */
static size_t newly_deleted(floe_arena *arena, const floe_iceberg_scan *now, const floe_iceberg_scan *before,
			    floe_iceberg_scan_file **out)
{
	size_t n = 0;
	*out = floe_arena_alloc(arena, (now->n_files + 1) * sizeof(**out));
	for (size_t i = 0; i < now->n_files; i++)
		for (size_t k = 0; k < before->n_files; k++) {
			int64_t *pos;
			size_t m;
			if (strcmp(now->files[i].file.path, before->files[k].file.path) != 0 ||
			    (m = positions_minus(arena, &now->files[i], &before->files[k], &pos)) == 0)
				continue;
			(*out)[n] = now->files[i];
			(*out)[n].deleted = pos, (*out)[n++].n_deleted = m;
		}
	return n;
}

static int by_size(const void *x, const void *y)
{
	int64_t a = ((const floe_iceberg_scan_file *)x)->file.file_size_in_bytes;
	int64_t c = ((const floe_iceberg_scan_file *)y)->file.file_size_in_bytes;
	return (a > c) - (a < c);
}

/* Whether files `a` and `b` of table `t` hold the same bytes: 1, 0, or -1 (error set). */
static int same_bytes(floe_iceberg_table *t, const floe_iceberg_scan_file *a, const floe_iceberg_scan_file *b)
{
	floe_buf x = FLOE_BUF_INIT, y = FLOE_BUF_INIT;
	int same = -1;
	if (floe_iceberg_storage_read(floe_iceberg_table_storage(t), &x, a->file.path) == 0 &&
	    floe_iceberg_storage_read(floe_iceberg_table_storage(t), &y, b->file.path) == 0)
		same = x.len == y.len && memcmp(x.ptr, y.ptr, x.len) == 0;
	floe_buf_free(&x);
	floe_buf_free(&y);
	return same;
}

/*
 * Whether the files `now` added are, byte for byte, the files it removed (a full load of a table
 * whose rows did not change writes the very same Parquet): then no key changed, and nothing is
 * decoded — their bytes are compared. Sizes first; neither side may have deleted rows. 1 yes, 0
 * no, -1 error.
 */
static int same_files(silver_job *job, floe_iceberg_table *t, floe_iceberg_scan_file *added, size_t n_added,
		      floe_iceberg_scan_file *removed, size_t n_removed, size_t n_newly_deleted)
{
	if (n_added != n_removed || n_added == 0 || n_newly_deleted)
		return 0;
	qsort(added, n_added, sizeof(*added), by_size);
	qsort(removed, n_removed, sizeof(*removed), by_size);
	for (size_t i = 0; i < n_added; i++)
		if (added[i].file.file_size_in_bytes != removed[i].file.file_size_in_bytes || added[i].n_deleted ||
		    removed[i].n_deleted)
			return 0;
	/* each added file equal to a distinct removed one of its size (files of one size: any order) */
	bool *taken = floe_arena_alloc(job->arena, n_removed + 1);
	memset(taken, 0, n_removed + 1);
	for (size_t i = 0; i < n_added; i++) {
		int same = 0;
		for (size_t k = 0; k < n_removed && same == 0; k++)
			if (!taken[k] && removed[k].file.file_size_in_bytes == added[i].file.file_size_in_bytes &&
			    (same = same_bytes(t, &added[i], &removed[k])) == 1)
				taken[k] = true;
		if (same != 1)
			return same;
	}
	return 1;
}

/* View `name`: the rows of the `removed` files and those at the `deleted` files' positions. */
static int removed_union(silver_job *job, floe_iceberg_table *t, const floe_iceberg_scan *now,
			 floe_iceberg_scan_file *removed, size_t n_removed, floe_iceberg_scan_file *deleted,
			 size_t n_deleted, const char *name)
{
	const char *files = floe_arena_printf(job->arena, "%s_files", name);
	const char *rows = floe_arena_printf(job->arena, "%s_rows", name);
	floe_iceberg_scan part = *now;
	part.files = deleted, part.n_files = n_deleted;
	if (files_view(job, t, n_deleted ? files : name, now, removed, n_removed) < 0)
		return -1;
	if (n_deleted == 0)
		return 0;
	if (floe_query_view_deleted(job->engine, job->arena, "main", rows, floe_iceberg_table_storage(t), &part,
				    now->schema) < 0)
		return -1;
	const char *sql = floe_arena_printf(job->arena, "CREATE VIEW %s AS SELECT * FROM %s UNION ALL SELECT * FROM %s",
					    name, files, rows);
	return floe_engine_exec(job->engine, sql);
}

int silver_removed_rows(silver_job *job, floe_iceberg_table *t, const floe_iceberg_scan *now, int64_t from,
			const char *name)
{
	floe_iceberg_scan *before = NULL;
	floe_iceberg_scan_file *removed, *deleted;
	if (floe_iceberg_table_plan_live(&before, job->arena, t, from) < 0)
		return -1;
	size_t n_removed = files_minus(job->arena, before, now, &removed);
	size_t n_deleted = newly_deleted(job->arena, now, before, &deleted);
	return removed_union(job, t, now, removed, n_removed, deleted, n_deleted, name);
}

/* Whether the scan's delete files include one at `path`. */
static bool has_delete_file(const floe_iceberg_scan *scan, const char *path)
{
	for (size_t i = 0; i < scan->n_deletes; i++)
		if (strcmp(scan->deletes[i].file.path, path) == 0)
			return true;
	return false;
}

/*
 * floe_deleted, the keys of the rows `now` deleted from files `before` had (`part`: those files,
 * each with those positions as its `deleted`), read from the delete files added since when each carries the key in
 * its `row` (deletes.h; bronze writes it) — a few pages, where the rows themselves are the key
 * column of every file a load deleted from. Taken only when the keys found cover every such
 * position: 1 made; 0 not (floe_query_view_deleted reads the rows), -1 error.
 */
static int deleted_keys_view(silver_job *job, floe_iceberg_table *bronze, const floe_iceberg_scan *now,
			     const floe_iceberg_scan *before, const floe_iceberg_scan *part)
{
	const floe_lock_silver *s = job->table->silver;
	size_t nk = s->n_unique_key, n_new = 0;
	int32_t *ids = floe_arena_alloc(job->arena, (nk + 1) * sizeof(*ids));
	const floe_iceberg_field **keys = floe_arena_alloc(job->arena, (nk + 1) * sizeof(*keys));
	const char **names = floe_arena_alloc(job->arena, (nk + 1) * sizeof(*names));
	for (size_t k = 0; k < nk; k++) {
		if (!(keys[k] = floe_iceberg_schema_field(now->schema, s->unique_key[k])))
			return 0; /* silver's key is not bronze's column */
		ids[k] = keys[k]->id;
	}
	floe_buf sql = FLOE_BUF_INIT, n = FLOE_BUF_INIT;
	int made = nk ? 1 : 0;
	floe_buf_puts(&sql, "CREATE OR REPLACE TEMP TABLE floe_deleted_keys AS SELECT DISTINCT floe_f.i, floe_d.pos");
	for (size_t k = 0; k < nk; k++) {
		floe_buf_puts(&sql, ", floe_d.");
		floe_buf_put_quoted(&sql, s->unique_key[k], '"');
	}
	floe_buf_puts(&sql, " FROM (");
	for (size_t i = 0; i < now->n_deletes && made == 1; i++) {
		const floe_iceberg_scan_file *d = &now->deletes[i];
		if (has_delete_file(before, d->file.path))
			continue;
		if ((made = floe_iceberg_deletes_row_names(job->arena, bronze, d, ids, nk, names)) != 1)
			break;
		const char *uri = floe_iceberg_storage_engine_uri(floe_iceberg_table_storage(bronze), job->arena, d->file.path);
		if (!uri) {
			made = -1;
			break;
		}
		floe_buf_puts(&sql, n_new++ ? " UNION ALL SELECT file_path, pos" : "SELECT file_path, pos");
		for (size_t k = 0; k < nk; k++) {
			floe_buf_puts(&sql, ", CAST(struct_extract(\"row\", ");
			floe_buf_put_quoted(&sql, names[k], '\'');
			floe_buf_puts(&sql, ") AS ");
			floe_query_duck_type(&sql, keys[k]->type);
			floe_buf_puts(&sql, ") AS ");
			floe_buf_put_quoted(&sql, s->unique_key[k], '"');
		}
		floe_buf_puts(&sql, " FROM read_parquet(");
		floe_buf_put_quoted(&sql, uri, '\'');
		floe_buf_putc(&sql, ')');
	}
	if (made != 1 || n_new == 0)
		goto done;
	/* the entries at exactly the newly deleted positions (file i's as floe query counts them) */
	size_t expected = 0;
	floe_buf_puts(&sql, ") floe_d JOIN (SELECT unnest([");
	for (size_t i = 0; i < part->n_files; i++) {
		floe_buf_puts(&sql, i ? ", " : "");
		floe_buf_put_quoted(&sql, part->files[i].file.path, '\'');
		expected += part->files[i].n_deleted;
	}
	floe_buf_printf(&sql, "]) AS p, unnest(range(%zu)) AS i) floe_f ON floe_d.file_path = floe_f.p WHERE ",
			part->n_files);
	floe_query_put_deleted_in(&sql, part, "floe_f.i * 4294967296 + floe_d.pos");
	if (floe_engine_exec(job->engine, floe_buf_cstr(&sql)) < 0 ||
	    floe_engine_query_text(job->engine, &n, "SELECT count(*) FROM floe_deleted_keys") < 0) {
		made = -1;
		goto done;
	}
	made = strtoull(floe_buf_cstr(&n), NULL, 10) == expected; /* one row a position, or read the rows */
	floe_buf_clear(&sql);
	floe_buf_puts(&sql, made ? "CREATE TEMP VIEW floe_deleted AS SELECT * EXCLUDE (i, pos) FROM floe_deleted_keys"
				 : "DROP TABLE floe_deleted_keys");
	if (floe_engine_exec(job->engine, floe_buf_cstr(&sql)) < 0)
		made = -1;
done:
	floe_buf_free(&sql);
	floe_buf_free(&n);
	if (made >= 0)
		floe_log_debug(made ? "%s: the keys bronze deleted read from its %zu new delete files' rows"
				    : "%s: the rows bronze deleted read from its data files (%zu new delete files, "
				      "one without the keys)",
			       job->result->table, n_new);
	return made;
}

/*
 * The rows of snapshot `before` that `now` no longer has: floe_removed, those of the files it
 * removed (as `before` read them), and floe_deleted, merge-on-read, those it deleted from files it
 * kept (by position: their keys only when the delete files carry them, deleted_keys_view).
 */
static int removed_view(silver_job *job, floe_iceberg_table *bronze, const floe_iceberg_scan *now,
			const floe_iceberg_scan *before, floe_iceberg_scan_file *added, size_t *n_added)
{
	floe_iceberg_scan_file *removed, *deleted;
	size_t n_removed = files_minus(job->arena, before, now, &removed);
	size_t n_deleted = newly_deleted(job->arena, now, before, &deleted);
	int same = same_files(job, bronze, added, *n_added, removed, n_removed, n_deleted);
	if (same < 0)
		return -1;
	if (same) /* nothing to read: no row changed */
		*n_added = n_removed = 0;
	job->same_bytes = same;
	floe_iceberg_scan part = *now;
	part.files = deleted, part.n_files = n_deleted;
	if (files_view(job, bronze, "floe_removed", now, removed, n_removed) < 0)
		return -1;
	int keys = n_deleted ? deleted_keys_view(job, bronze, now, before, &part) : 0;
	if (keys != 0)
		return keys < 0 ? -1 : 0;
	return floe_query_view_deleted(job->engine, job->arena, "main", "floe_deleted", floe_iceberg_table_storage(bronze),
				       &part, now->schema);
}

/* `coalesce(a."c", b."c"[, c."c"])` for key column `col` over the `n` aliases. */
static void put_coalesce(floe_buf *sql, const char *col, const char *const *aliases, size_t n)
{
	floe_buf_puts(sql, "coalesce(");
	for (size_t i = 0; i < n; i++) {
		floe_buf_printf(sql, "%s%s.", i ? ", " : "", aliases[i]);
		floe_buf_put_quoted(sql, col, '"');
	}
	floe_buf_putc(sql, ')');
}

/*
 * floe_diff: per key whose rows differ between bronze snapshot `from` and the verified one (rows
 * of the files one has and the other has not, matched by key and compared whole) — inserted,
 * updated, deleted — the key, and its row in the verified snapshot (floe_new, NULL: deleted), so
 * that source() reads the changed rows from here rather than bronze's files again. floe_changed:
 * the keys.
 */
/* Bronze's live files at snapshot `from`, the build's incremental base: planned once per build. */
static int plan_base(silver_build *b, floe_iceberg_table *bronze, int64_t from, floe_iceberg_scan **out)
{
	if (!b->base_planned && floe_iceberg_table_plan_live(&b->base, b->job->arena, bronze, from) < 0)
		return -1;
	b->base_planned = true;
	*out = b->base;
	return 0;
}

static int changed_keys(silver_build *b, floe_iceberg_table *bronze, int64_t from, const floe_iceberg_scan *now)
{
	silver_job *job = b->job;
	floe_iceberg_scan *before = NULL;
	floe_iceberg_scan_file *added;
	floe_buf sql = FLOE_BUF_INIT;
	int error = -1;
	if (plan_base(b, bronze, from, &before) < 0)
		goto cleanup;
	size_t n_added = files_minus(job->arena, now, before, &added);
	if (removed_view(job, bronze, now, before, added, &n_added) < 0 ||
	    files_view(job, bronze, "floe_added", now, added, n_added) < 0)
		goto cleanup;
	/* a full join on the key (bronze's keys are unique, never NULL), the rows of removed files
	   compared whole (8x faster than EXCEPT ALL; a rewritten file's unchanged rows cancel out);
	   a row deleted by position is changed by bronze's own account (a merge-on-read commit deletes
	   the rows of the keys a change touched) and only its key is read: reading it whole read every
	   column of every row of its file (orders, 498 such rows: 0.34 s against 0.08 s) */
	const floe_lock_silver *s = b->s;
	static const char *const ar[] = { "floe_a", "floe_r" }, *const ard[] = { "floe_a", "floe_r", "floe_d" };
	floe_buf_puts(&sql, "CREATE TEMP TABLE floe_diff AS SELECT ");
	for (size_t k = 0; k < s->n_unique_key; k++) {
		put_coalesce(&sql, s->unique_key[k], ard, 3);
		floe_buf_puts(&sql, " AS ");
		floe_buf_put_quoted(&sql, s->unique_key[k], '"');
		floe_buf_puts(&sql, ", ");
	}
	floe_buf_puts(&sql, "CASE WHEN floe_a.");
	floe_buf_put_quoted(&sql, s->unique_key[0], '"');
	floe_buf_puts(&sql, " IS NOT NULL THEN floe_a END AS floe_new FROM floe_added floe_a FULL JOIN floe_removed floe_r ON true");
	silver_put_equal(&sql, s->unique_key, s->n_unique_key, "floe_a", "floe_r");
	floe_buf_puts(&sql, " FULL JOIN (SELECT DISTINCT ");
	for (size_t k = 0; k < s->n_unique_key; k++) {
		floe_buf_puts(&sql, k ? ", " : "");
		floe_buf_put_quoted(&sql, s->unique_key[k], '"');
	}
	floe_buf_puts(&sql, " FROM floe_deleted) floe_d ON true");
	for (size_t k = 0; k < s->n_unique_key; k++) {
		floe_buf_puts(&sql, " AND ");
		put_coalesce(&sql, s->unique_key[k], ar, 2);
		floe_buf_puts(&sql, " = floe_d.");
		floe_buf_put_quoted(&sql, s->unique_key[k], '"');
	}
	floe_buf_puts(&sql, " WHERE floe_d.");
	floe_buf_put_quoted(&sql, s->unique_key[0], '"');
	floe_buf_puts(&sql, " IS NOT NULL OR floe_a IS DISTINCT FROM floe_r; CREATE TEMP VIEW floe_changed AS "
			    "SELECT * EXCLUDE (floe_new) FROM floe_diff");
	error = floe_engine_exec(job->engine, floe_buf_cstr(&sql));
cleanup:
	floe_buf_free(&sql);
	return error;
}

/* The index of the silver file DuckDB opened as `path` in b->previous; n_files: none. */
static size_t previous_file(silver_build *b, const char *path)
{
	size_t k = 0;
	while (k < b->previous->n_files && strcmp(silver_engine_path(b, b->previous->files[k].file.path), path) != 0)
		k++;
	return k;
}

/*
 * The published silver rows holding a changed key, by file: (filename) once per file, or with
 * `positions` (filename, file_row_number) per row. *r NULL: the table has no file.
 */
static int changed_rows(silver_build *b, floe_engine_result **r, bool positions)
{
	floe_buf sql = FLOE_BUF_INIT;
	*r = NULL;
	if (!b->previous || b->previous->n_files == 0)
		return 0;
	floe_buf_puts(&sql, positions ? "SELECT filename, file_row_number FROM read_parquet(["
				      : "SELECT DISTINCT filename FROM read_parquet([");
	for (size_t i = 0; i < b->previous->n_files; i++) {
		floe_buf_puts(&sql, i ? ", " : "");
		floe_buf_put_quoted(&sql, silver_engine_path(b, b->previous->files[i].file.path), '\'');
	}
	floe_buf_puts(&sql, positions ? "], filename = true, file_row_number = true) floe_t" : "], filename = true) floe_t");
	silver_put_changed(&sql, b->s, "floe_t", true);
	int error = floe_engine_query(b->job->engine, r, floe_buf_cstr(&sql));
	floe_buf_free(&sql);
	return error;
}

/* b->removed: the published silver files holding a changed key. */
static int files_to_rewrite(silver_build *b)
{
	floe_engine_result *r = NULL;
	if (changed_rows(b, &r, false) < 0)
		return -1;
	for (size_t i = 0; r && i < floe_engine_result_rows(r); i++) {
		size_t k = previous_file(b, floe_engine_result_text(r, i, 0));
		if (k < b->previous->n_files)
			*FLOE_ARENA_PUSH(b->job->arena, b->removed, b->n_removed, b->cap_removed) =
				b->previous->files[k].file.path;
	}
	floe_engine_result_free(r);
	return 0;
}

/* `cols`, comma-separated, each prefixed by `alias.` when given. */
static void put_cols(floe_buf *sql, const char *alias, const char *const *cols, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		floe_buf_puts(sql, i ? ", " : "");
		if (alias)
			floe_buf_printf(sql, "%s.", alias);
		floe_buf_put_quoted(sql, cols[i], '"');
	}
}

/*
 * With a probe (silver_gone_probe): floe_touched, the live silver rows whose foreign key (within the
 * key) is a changed key's or a gone one — one scan of the key columns, as for the changed rows
 * alone; *r the changed ones among them, and job->probe_kept how many of the others are live.
 */
static int touched_rows(silver_build *b, floe_engine_result **r)
{
	silver_job *job = b->job;
	const floe_lock_test *t = &b->s->tests[job->probe_test];
	floe_engine_result *gone = NULL;
	floe_buf sql = FLOE_BUF_INIT;
	floe_buf_puts(&sql, "CREATE TEMP TABLE floe_touched AS SELECT filename, file_row_number, ");
	put_cols(&sql, NULL, b->s->unique_key, b->s->n_unique_key);
	floe_buf_puts(&sql, " FROM read_parquet([");
	for (size_t i = 0; i < b->previous->n_files; i++) {
		floe_buf_puts(&sql, i ? ", " : "");
		floe_buf_put_quoted(&sql, silver_engine_path(b, b->previous->files[i].file.path), '\'');
	}
	floe_buf_puts(&sql, "], filename = true, file_row_number = true) floe_t SEMI JOIN (SELECT ");
	put_cols(&sql, NULL, t->columns, t->n_columns);
	floe_buf_puts(&sql, " FROM floe_changed UNION SELECT * FROM floe_probe) floe_p ON true");
	silver_put_equal(&sql, t->columns, t->n_columns, "floe_p", "floe_t");
	floe_buf_puts(&sql, "; CREATE TEMP VIEW floe_touched_gone AS SELECT filename, file_row_number FROM floe_touched floe_t "
			    "SEMI JOIN floe_probe floe_p ON true");
	silver_put_equal(&sql, t->columns, t->n_columns, "floe_p", "floe_t");
	silver_put_changed(&sql, b->s, "floe_t", false);
	int error = floe_engine_exec(job->engine, floe_buf_cstr(&sql));
	if (error == 0)
		error = floe_engine_query(job->engine, &gone, "SELECT * FROM floe_touched_gone");
	int64_t kept = 0;
	for (size_t i = 0; error == 0 && i < floe_engine_result_rows(gone); i++) {
		size_t k = previous_file(b, floe_engine_result_text(gone, i, 0));
		int64_t pos = strtoll(floe_engine_result_text(gone, i, 1), NULL, 10);
		kept += k < b->previous->n_files && !floe_iceberg_scan_file_deleted(&b->previous->files[k], pos);
	}
	floe_buf_clear(&sql);
	floe_buf_puts(&sql, "SELECT filename, file_row_number FROM floe_touched floe_t");
	silver_put_changed(&sql, b->s, "floe_t", true);
	if (error == 0 && (error = floe_engine_query(job->engine, r, floe_buf_cstr(&sql))) == 0)
		job->probe_kept = kept;
	floe_engine_result_free(gone);
	floe_buf_free(&sql);
	return error;
}

/* b->dels from rows (filename, file_row_number) of live silver rows (a row a live delete file removed is left out). */
static void push_rows(silver_build *b, floe_engine_result *r)
{
	for (size_t i = 0; r && i < floe_engine_result_rows(r); i++) {
		size_t k = previous_file(b, floe_engine_result_text(r, i, 0));
		int64_t pos = strtoll(floe_engine_result_text(r, i, 1), NULL, 10);
		if (k < b->previous->n_files && !floe_iceberg_scan_file_deleted(&b->previous->files[k], pos))
			*FLOE_ARENA_PUSH(b->job->arena, b->dels, b->n_dels, b->cap_dels) =
				(floe_iceberg_position_delete){ .path = b->previous->files[k].file.path, .pos = pos };
	}
}

/* b->dels by a scan of the silver files' key columns. */
static int scanned_rows_to_delete(silver_build *b)
{
	floe_engine_result *r = NULL;
	if (changed_rows(b, &r, true) < 0)
		return -1;
	push_rows(b, r);
	floe_engine_result_free(r);
	return 0;
}

/* b->dels and job->probe_kept by touched_rows' scan. */
static int touched_rows_to_delete(silver_build *b)
{
	floe_engine_result *r = NULL;
	if (touched_rows(b, &r) < 0)
		return -1;
	push_rows(b, r);
	floe_engine_result_free(r);
	return 0;
}

/*
 * Merge-on-read, b->dels: the file and position of every live silver row whose key changed (a row
 * deleted already by a live delete file is not listed again). The rows themselves stay in place.
 * Looked up in the table's key index (keys.c) unless a probe reads the key columns anyway.
 */
static int rows_to_delete(silver_build *b)
{
	int probe = b->previous && b->previous->n_files ? silver_gone_probe(b->job) : 0;
	if (probe < 0)
		return -1;
	int by_index = b->previous && b->previous->n_files
			       ? silver_keys_rows_to_delete(b, probe, probe ? touched_rows_to_delete : scanned_rows_to_delete)
			       : 0;
	if (by_index)
		return by_index < 0 ? -1 : 0;
	return probe ? touched_rows_to_delete(b) : scanned_rows_to_delete(b);
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

int64_t silver_incremental_base(const silver_build *b)
{
	const char *from = silver_built_from(b, "floe.bronze-snapshot-id"), *sha = silver_built_from(b, "floe.model-sha256");
	bool per_key = strcmp(b->s->materialized, "incremental") == 0 || model_as_generated(b);
	/* a rule added or changed reads every row, quarantine included: a build in full */
	bool ok = !b->job->full_refresh && !b->schema_changed && b->s->n_unique_key > 0 && per_key && from && sha &&
		  strcmp(sha, b->model_sha) == 0 && silver_tests_as_published(b);
	return ok ? strtoll(from, NULL, 10) : -1;
}

/*
 * Whether bronze's verified snapshot `now` holds exactly the rows of the snapshot the table was
 * last built from, by this model (an incremental base): the same data files, each with the same
 * deleted positions — a CDC run that only stamped its position commits such a snapshot. 1 yes,
 * 0 no (or no base), -1 error.
 */
int silver_bronze_rows_as_built(silver_build *b, floe_iceberg_table *bronze, const floe_iceberg_scan *now)
{
	floe_arena *a = b->job->arena;
	floe_iceberg_scan *before = NULL;
	floe_iceberg_scan_file *x;
	int64_t from = silver_incremental_base(b);
	if (from <= 0 || !floe_iceberg_metadata_snapshot(floe_iceberg_table_metadata(bronze), from))
		return 0;
	if (plan_base(b, bronze, from, &before) < 0)
		return -1;
	return files_minus(a, now, before, &x) == 0 && files_minus(a, before, now, &x) == 0 &&
	       newly_deleted(a, now, before, &x) == 0 && newly_deleted(a, before, now, &x) == 0;
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
	int64_t from = silver_incremental_base(b);
	const floe_iceberg_snapshot *base = from > 0 ? floe_iceberg_metadata_snapshot(floe_iceberg_table_metadata(bronze), from)
						     : NULL;
	if (from > 0 && !base)
		from = -1; /* the snapshot silver was built from is expired: build in full */
	int error = -1;
	floe_buf_puts(&sql, "CREATE SCHEMA IF NOT EXISTS ");
	floe_buf_put_quoted(&sql, bns, '"');
	floe_buf_puts(&sql, "; CREATE VIEW ");
	silver_put_ident(&sql, bns, bname);
	floe_buf_puts(&sql, " AS SELECT * FROM ");
	if (from > 0) {
		if (changed_keys(b, bronze, from, now) < 0)
			goto cleanup;
		silver_step(job, "diff (the changed keys)");
		if (floe_engine_query_text(job->engine, &n, "SELECT count(*) FROM floe_changed") < 0)
			goto cleanup;
		job->parents_tested = silver_built_from(b, "floe.parent-snapshots"); /* silver_gone_probe's P0 */
		job->result->changed_keys = strtoll(floe_buf_cstr(&n), NULL, 10);
		/* no changed key: no silver row to find (the table's keys not read) */
		if (job->result->changed_keys > 0 && (b->merge_on_read ? rows_to_delete(b) : files_to_rewrite(b)) < 0)
			goto cleanup;
		silver_step(job, "silver rows of the changed keys");
		b->incremental = true;
		/* a changed key's row, if it has one, is in a file added since (floe_diff kept it): keys
		   are unique, and an untouched file holds the same rows as before */
		floe_buf_puts(&sql, "(SELECT floe_new.* FROM floe_diff WHERE floe_new IS NOT NULL)");
	} else { /* the whole verified snapshot (a view made only here: an incremental build reads none of it whole) */
		if (floe_engine_exec(job->engine, "CREATE SCHEMA IF NOT EXISTS \"" SILVER_BRONZE_FULL "\"") < 0 ||
		    floe_query_view(job->engine, job->arena, SILVER_BRONZE_FULL, bname, floe_iceberg_table_storage(bronze), now,
				    now->schema) < 0)
			goto cleanup;
		silver_put_ident(&sql, SILVER_BRONZE_FULL, bname);
	}
	error = floe_engine_exec(job->engine, floe_buf_cstr(&sql));
cleanup:
	floe_buf_free(&sql);
	floe_buf_free(&n);
	return error;
}
