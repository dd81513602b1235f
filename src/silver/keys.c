/*
 * keys.c — a silver table's key index (keyindex/keyindex.h): where each key's live row is, so
 * that a merge-on-read incremental build finds the rows of its changed keys by looking them up
 * instead of reading the whole key column of every silver file (10–50 ms a million rows).
 *
 * The index is a cache under the project's state directory (.floe/keys/<table>.<key field ids>),
 * of the keys of the table's data files as floe's Parquet reader reads them from those files,
 * each file bound to its path and row count. A build asks it only once every live file of the
 * published snapshot is in it (a file that is not — written by another engine, a compaction, a
 * build whose update of the index was cut short — is read in first), keeps only the entries of
 * live files at positions no delete file removed, and after its publish adds its new files and
 * drops the files no longer live. Keys of one to eight columns, each uuid, int or long and not
 * masked; any other table builds as before (a scan of its key columns).
 *
 * FLOE_SILVER_KEYS_CHECK=1 (the tests) also finds the rows by the scan and fails the build when
 * the two differ.
 */
#include "silver/silver_int.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/log.h"
#include "config/config.h"
#include "iceberg/parquet_io.h"
#include "keyindex/keyindex.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define MAX_KEY_COLUMNS 8

typedef struct key_column {
	floe_vec_type type;
	size_t width, offset;
	int field_id;
} key_column;

typedef struct key_layout {
	key_column cols[MAX_KEY_COLUMNS];
	size_t n, width;
	bool nullable;                    /* a foreign key's: a row without a value is all 0xff bytes (put_column) */
} key_layout;

/* The layout of columns `cols` (n) of s; false when one is not uuid, int or long, or masked. */
static bool layout_cols(const floe_lock_silver *s, const char *const *cols, size_t n, key_layout *out)
{
	*out = (key_layout){ 0 };
	if (n == 0 || n > MAX_KEY_COLUMNS)
		return false;
	for (size_t k = 0; k < n; k++) {
		const floe_lock_silver_column *c = NULL;
		for (size_t i = 0; i < s->n_columns && !c; i++)
			c = strcmp(s->columns[i].name, cols[k]) == 0 ? &s->columns[i] : NULL;
		const char *t = c && c->type ? c->type->primitive : NULL;
		if (!t || c->pii)
			return false;
		key_column *kc = &out->cols[out->n++];
		kc->field_id = c->id, kc->offset = out->width;
		if (strcmp(t, "uuid") == 0)
			kc->type = FLOE_VEC_UUID, kc->width = 16;
		else if (strcmp(t, "int") == 0)
			kc->type = FLOE_VEC_INT, kc->width = 4;
		else if (strcmp(t, "long") == 0)
			kc->type = FLOE_VEC_LONG, kc->width = 8;
		else
			return false;
		out->width += kc->width;
	}
	return true;
}

/* The layout of s's key. */
static bool layout_of(const floe_lock_silver *s, key_layout *out)
{
	return layout_cols(s, s->unique_key, s->n_unique_key, out);
}

/* .floe/keys/<ns>.<name>.<field ids>: a key of other columns is another index. */
static const char *index_dir(silver_job *job, const floe_lock_silver *s, const key_layout *k)
{
	floe_buf d = FLOE_BUF_INIT;
	int ids[MAX_KEY_COLUMNS];
	for (size_t i = 0; i < k->n; i++)
		ids[i] = k->cols[i].field_id;
	floe_keyindex_dir(&d, job->config->project_dir, s->table, ids, k->n);
	const char *dir = floe_arena_strdup(job->arena, floe_buf_cstr(&d));
	floe_buf_free(&d);
	return dir;
}

/* The top-level field of `m` with field id `id`; m->n_fields when none. */
static size_t field_with_id(const floe_parquet_meta *m, int id)
{
	size_t i = 0;
	while (i < m->n_fields && !(m->fields[i].has_field_id && m->fields[i].field_id == id))
		i++;
	return i;
}

/* Row group values of key column `c` (vector v, its rows from `row0`) into `keys`; false when one is NULL. */
static bool put_column(uint8_t *keys, const key_layout *k, const key_column *c, const floe_vector *v, int64_t row0)
{
	if (v->validity && !k->nullable && floe_vector_null_count(v) > 0)
		return false;
	uint8_t *p = keys + (size_t)row0 * k->width + c->offset;
	if (k->n == 1 && !v->validity) { /* one column: the vector's values are the keys, one block */
		const void *src = c->type == FLOE_VEC_UUID ? (const void *)v->v.fixed
				  : c->type == FLOE_VEC_INT ? (const void *)v->v.i32 : (const void *)v->v.i64;
		memcpy(p, src, v->len * c->width);
		return true;
	}
	for (size_t i = 0; i < v->len; i++, p += k->width) {
		if (!floe_vector_is_valid(v, i)) { /* a value no lookup asks for but a key's own: a false "found" costs a read, never a row */
			memset(p, 0xff, c->width);
			continue;
		}
		const void *src = c->type == FLOE_VEC_UUID ? (const void *)(v->v.fixed + i * 16)
				  : c->type == FLOE_VEC_INT ? (const void *)&v->v.i32[i]
							    : (const void *)&v->v.i64[i];
		memcpy(p, src, c->width);
	}
	return true;
}

/*
 * The keys of the data file at `path` (`rows` rows, its manifest's count) in storage `st`, as the
 * index takes them: 0, or -1 error; with `stop`, 1 when it was set before the file was read through.
 */
static int read_keys(floe_iceberg_storage *st, const key_layout *k, const char *path, int64_t rows,
		     floe_keyindex_file *out, const atomic_bool *stop)
{
	floe_parquet_reader *r = NULL;
	floe_vector v[MAX_KEY_COLUMNS] = { 0 };
	uint8_t *keys = NULL;
	size_t field[MAX_KEY_COLUMNS];
	int error = -1;
	if (floe_iceberg_parquet_open(&r, st, path, NULL) < 0)
		goto cleanup;
	const floe_parquet_meta *m = floe_parquet_reader_meta(r);
	if (m->num_rows != rows) {
		floe_error_set(FLOE_ERR_CHECK, "data file \"%s\" holds %lld rows, its manifest says %lld", path,
			       (long long)m->num_rows, (long long)rows);
		goto cleanup;
	}
	for (size_t c = 0; c < k->n; c++)
		if ((field[c] = field_with_id(m, k->cols[c].field_id)) == m->n_fields) {
			floe_error_set(FLOE_ERR_CHECK, "data file \"%s\" has no column of field id %d", path,
				       k->cols[c].field_id);
			goto cleanup;
		}
	keys = floe_xmalloc(rows > 0 ? (size_t)rows * k->width : 1);
	int64_t row0 = 0;
	for (size_t g = 0; g < m->n_row_groups; g++) {
		if (stop && atomic_load(stop)) {
			error = 1;
			goto cleanup;
		}
		for (size_t c = 0; c < k->n; c++) {
			if (floe_parquet_reader_read_field_reuse(&v[c], r, g, field[c]) < 0)
				goto cleanup;
			bool fits = v[c].type == k->cols[c].type && (v[c].type != FLOE_VEC_UUID || v[c].width == 16);
			if (!fits || v[c].len != v[0].len || row0 + (int64_t)v[c].len > rows) {
				floe_error_set(FLOE_ERR_CHECK, "data file \"%s\": field id %d is not read as the key index needs",
					       path, k->cols[c].field_id);
				goto cleanup;
			}
			if (!put_column(keys, k, &k->cols[c], &v[c], row0)) {
				floe_error_set(FLOE_ERR_CHECK, "data file \"%s\": a key value is NULL (field id %d)", path,
					       k->cols[c].field_id);
				goto cleanup;
			}
		}
		row0 += (int64_t)v[0].len;
	}
	if (row0 != rows) {
		floe_error_set(FLOE_ERR_CHECK, "data file \"%s\": %lld rows read of %lld", path, (long long)row0,
			       (long long)rows);
		goto cleanup;
	}
	*out = (floe_keyindex_file){ .path = path, .rows = rows, .keys = keys };
	keys = NULL;
	error = 0;
cleanup:
	for (size_t c = 0; c < k->n; c++)
		floe_vector_free(&v[c]);
	floe_parquet_reader_free(r);
	free(keys);
	return error;
}

/* Add the keys of `files` (those index ix lacks) of b's table to ix: how many it lacked, or -1. */
static int add_files(floe_keyindex *ix, silver_build *b, const key_layout *k, const floe_iceberg_data_file *const *files,
		     size_t n)
{
	floe_keyindex_file *in = floe_xcalloc(n ? n : 1, sizeof(*in));
	size_t n_in = 0;
	int error = 0;
	for (size_t i = 0; i < n && error == 0; i++)
		if (!floe_keyindex_has_file(ix, files[i]->path, files[i]->record_count))
			error = read_keys(floe_iceberg_table_storage(b->silver), k, files[i]->path, files[i]->record_count,
					  &in[n_in++], NULL);
	if (error == 0 && n_in)
		error = floe_keyindex_add(ix, in, n_in);
	for (size_t i = 0; i < n_in; i++) {
		free((void *)in[i].keys);
	}
	free(in);
	return error < 0 ? -1 : (int)n_in;
}

/* Add the keys of the published snapshot's live files (b->previous) that index ix lacks: how many, or -1. */
static int add_published(floe_keyindex *ix, silver_build *b, const key_layout *k)
{
	const floe_iceberg_data_file **live = floe_arena_alloc(b->job->arena, (b->previous->n_files + 1) * sizeof(*live));
	for (size_t i = 0; i < b->previous->n_files; i++)
		live[i] = &b->previous->files[i].file;
	return add_files(ix, b, k, live, b->previous->n_files);
}

/* Drop the index (it is not used by this build) after logging why. */
static void give_up(silver_build *b, const char *when)
{
	floe_log_debug("%s: the key index is not used %s: %s", b->s->table, when, floe_error_last()->message);
	floe_error_clear();
	floe_keyindex_free(b->keys);
	b->keys = NULL;
}

/* b->keys open (NULL: the key's layout has none); 0, or -1 when it could not be opened (logged, cleared). */
static int open_index(silver_build *b, key_layout *k)
{
	if (b->keys)
		return layout_of(b->s, k) ? 0 : -1;
	if (!layout_of(b->s, k))
		return -1;
	if (floe_keyindex_open(&b->keys, index_dir(b->job, b->s, k), k->width, k->cols[0].width) < 0) {
		give_up(b, "(it could not be opened)");
		return -1;
	}
	return 0;
}

/* ---- the changed keys' live rows ---- */

typedef struct finder {
	floe_arena *arena;
	const floe_iceberg_scan *scan;    /* the live files asked about */
	const char **paths;               /* the index's path of each of scan's files, as found (cache) */
	floe_iceberg_position_delete *rows; /* the live rows found (path: scan's) */
	size_t n_rows, cap_rows;
} finder;

static finder finder_of(floe_arena *a, const floe_iceberg_scan *scan)
{
	finder f = { .arena = a, .scan = scan, .paths = floe_arena_alloc(a, (scan->n_files + 1) * sizeof(char *)) };
	memset(f.paths, 0, (scan->n_files + 1) * sizeof(char *));
	return f;
}

/* The index of `path` in f->scan when position `pos` of it is live; f->scan->n_files when not. */
static size_t live_file(finder *f, const char *path, int64_t pos)
{
	size_t k = 0;
	for (; k < f->scan->n_files; k++) {
		if (f->paths[k] == path)
			break;
		if (!f->paths[k] && strcmp(f->scan->files[k].file.path, path) == 0) {
			f->paths[k] = path;
			break;
		}
	}
	return k < f->scan->n_files && !floe_iceberg_scan_file_deleted(&f->scan->files[k], pos) ? k : f->scan->n_files;
}

/* Every live row found, into f->rows. */
static int found(void *ctx, const char *path, int64_t pos)
{
	finder *f = ctx;
	size_t k = live_file(f, path, pos);
	if (k < f->scan->n_files)
		*FLOE_ARENA_PUSH(f->arena, f->rows, f->n_rows, f->cap_rows) =
			(floe_iceberg_position_delete){ .path = f->scan->files[k].file.path, .pos = pos };
	return 0;
}

/* Whether a live row is found: 1 (counted in f->n_rows) stops the lookup at the first. */
static int found_live(void *ctx, const char *path, int64_t pos)
{
	finder *f = ctx;
	bool live = live_file(f, path, pos) < f->scan->n_files;
	f->n_rows += live;
	return live;
}

/* Key column `c`'s value from DuckDB's text of it into `p`; false when it is not one. */
static bool parse_value(uint8_t *p, const key_column *c, const char *text)
{
	char *end = NULL;
	if (c->type == FLOE_VEC_UUID) {
		size_t n = 0;
		for (const char *s = text; *s; s++) {
			if (*s == '-')
				continue;
			int v = *s >= '0' && *s <= '9' ? *s - '0' : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
				: *s >= 'A' && *s <= 'F' ? *s - 'A' + 10 : -1;
			if (v < 0 || n >= 32)
				return false;
			p[n / 2] = (uint8_t)(n % 2 ? p[n / 2] | v : v << 4);
			n++;
		}
		return n == 32;
	}
	long long v = strtoll(text, &end, 10);
	if (end == text || *end)
		return false;
	if (c->type == FLOE_VEC_INT) {
		if (v < INT32_MIN || v > INT32_MAX)
			return false;
		int32_t i = (int32_t)v;
		memcpy(p, &i, 4);
	} else {
		int64_t l = v;
		memcpy(p, &l, 8);
	}
	return true;
}

/* Bytes of the first n columns of key layout k. */
static size_t width_of(const key_layout *k, size_t n)
{
	return n == k->n ? k->width : k->cols[n].offset;
}

/*
 * Look up each row of `sql` — the first `n` key columns as text — in `ix` with fn(ctx). With
 * `ids`, the rows start with their rowid, and *ids (in the arena) are those of the rows fn
 * returned 1 for (*n_ids of them). *n_rows: the rows asked. -1 error (DuckDB), -2 the index
 * failed (error set).
 */
static int lookup_rows(silver_job *job, floe_keyindex *ix, const key_layout *k, size_t n, const char *sql,
		       floe_keyindex_fn fn, void *ctx, int64_t **ids, size_t *n_ids, size_t *n_rows)
{
	floe_engine_result *r = NULL;
	if (floe_engine_query(job->engine, &r, sql) < 0)
		return -1;
	size_t rows = floe_engine_result_rows(r);
	*n_rows = rows;
	if (ids)
		*ids = floe_arena_alloc(job->arena, (rows + 1) * sizeof(**ids)), *n_ids = 0;
	uint8_t key[MAX_KEY_COLUMNS * 16];
	int error = 0;
	for (size_t i = 0; i < rows && error == 0; i++) {
		bool ok = true;
		for (size_t c = 0; c < n && ok; c++) {
			const char *t = floe_engine_result_text(r, i, c + (ids ? 1 : 0));
			ok = t && parse_value(key + k->cols[c].offset, &k->cols[c], t); /* no key: no row holds it */
		}
		int rc = ok ? floe_keyindex_find(ix, key, width_of(k, n), fn, ctx) : 0;
		if (rc < 0)
			error = -2;
		else if (ids && rc == 1)
			(*ids)[(*n_ids)++] = strtoll(floe_engine_result_text(r, i, 0), NULL, 10);
	}
	floe_engine_result_free(r);
	return error;
}

/* "SELECT [rowid, ]"c0"::VARCHAR, … FROM rel": the first n of `cols` as text (DuckDB's C API gives none of a UUID). */
static const char *text_query(floe_arena *a, const char *const *cols, size_t n, const char *rel, bool rowid)
{
	floe_buf sql = FLOE_BUF_INIT;
	floe_buf_puts(&sql, rowid ? "SELECT rowid" : "SELECT ");
	for (size_t c = 0; c < n; c++) {
		floe_buf_puts(&sql, c || rowid ? ", " : "");
		floe_buf_put_quoted(&sql, cols[c], '"');
		floe_buf_puts(&sql, "::VARCHAR");
	}
	floe_buf_printf(&sql, " FROM %s", rel);
	const char *out = floe_arena_strdup(a, floe_buf_cstr(&sql));
	floe_buf_free(&sql);
	return out;
}

static int cmp_ref(const void *x, const void *y)
{
	const floe_iceberg_position_delete *a = x, *b = y;
	if (a->path != b->path)
		return a->path < b->path ? -1 : 1;
	return (a->pos > b->pos) - (a->pos < b->pos);
}

/*
 * With silver_gone_probe's floe_probe (a foreign key that is the key's first column, to a parent
 * that lost keys): job->probe_kept, the live rows of a lost key that are not rows of a changed
 * key (b->dels), found by the first column alone. 1 done, 0 not (another foreign key), <0 as lookup_rows.
 */
static int probe_kept(silver_build *b, const key_layout *k)
{
	silver_job *job = b->job;
	const floe_lock_test *t = &b->s->tests[job->probe_test];
	if (t->n_columns != 1 || strcmp(t->columns[0], b->s->unique_key[0]) != 0)
		return 0;
	finder f = finder_of(job->arena, b->previous);
	size_t n_keys;
	int rc = lookup_rows(job, b->keys, k, 1, text_query(job->arena, t->columns, 1, "floe_probe", false), found, &f,
			     NULL, NULL, &n_keys);
	if (rc < 0)
		return rc;
	floe_iceberg_position_delete *dels = floe_arena_alloc(job->arena, (b->n_dels + 1) * sizeof(*dels));
	if (b->n_dels) /* b->dels is NULL when none */
		memcpy(dels, b->dels, b->n_dels * sizeof(*dels));
	qsort(dels, b->n_dels, sizeof(*dels), cmp_ref);
	int64_t kept = 0;
	for (size_t i = 0; i < f.n_rows; i++)
		kept += !bsearch(&f.rows[i], dels, b->n_dels, sizeof(*dels), cmp_ref);
	job->probe_kept = kept;
	return 1;
}

static int cmp_del(const void *x, const void *y)
{
	const floe_iceberg_position_delete *a = x, *b = y;
	int c = strcmp(a->path, b->path);
	return c ? c : (a->pos > b->pos) - (a->pos < b->pos);
}

/* FLOE_SILVER_KEYS_CHECK: the scan's rows (`scan`, n) and kept count, and the index's, are the same. */
static int check_same(silver_build *b, floe_iceberg_position_delete *scan, size_t n, int64_t kept)
{
	floe_iceberg_position_delete *mine = floe_arena_alloc(b->job->arena, (b->n_dels + 1) * sizeof(*mine));
	if (b->n_dels) /* b->dels and scan are NULL when they hold none */
		memcpy(mine, b->dels, b->n_dels * sizeof(*mine));
	qsort(mine, b->n_dels, sizeof(*mine), cmp_del);
	if (n)
		qsort(scan, n, sizeof(*scan), cmp_del);
	bool same = n == b->n_dels && kept == b->job->probe_kept;
	for (size_t i = 0; i < n && same; i++)
		same = cmp_del(&mine[i], &scan[i]) == 0;
	if (same)
		return 0;
	return floe_error_set(FLOE_ERR_INTERNAL, "%s: the key index found %zu rows of the changed keys (%lld kept of lost "
						 "keys), the scan %zu (%lld)", b->s->table, b->n_dels,
			      (long long)b->job->probe_kept, n, (long long)kept);
}

bool silver_keys_checking(void)
{
	const char *on = getenv("FLOE_SILVER_KEYS_CHECK");
	return on && strcmp(on, "1") == 0;
}

/* FLOE_SILVER_KEYS_CHECK=1: `scan` finds the same rows (and kept count) as the index did. */
static int check_by_scan(silver_build *b, int (*scan)(silver_build *b))
{
	if (!silver_keys_checking())
		return 0;
	floe_iceberg_position_delete *mine = b->dels;
	size_t n_mine = b->n_dels, cap = b->cap_dels;
	int64_t kept = b->job->probe_kept;
	b->dels = NULL, b->n_dels = b->cap_dels = 0;
	if (scan(b) < 0)
		return -1;
	floe_iceberg_position_delete *theirs = b->dels;
	size_t n_theirs = b->n_dels;
	int64_t kept_theirs = b->job->probe_kept;
	b->dels = mine, b->n_dels = n_mine, b->cap_dels = cap, b->job->probe_kept = kept;
	return check_same(b, theirs, n_theirs, kept_theirs);
}

int silver_keys_rows_to_delete(silver_build *b, bool probe, int (*scan)(silver_build *b))
{
	silver_job *job = b->job;
	key_layout k;
	if (open_index(b, &k) < 0)
		return 0;
	if (add_published(b->keys, b, &k) < 0) {
		give_up(b, "(the live files' keys could not be read)");
		return 0;
	}
	finder f = finder_of(job->arena, b->previous);
	size_t n_keys = 0, before = b->n_dels;
	int rc = lookup_rows(job, b->keys, &k, k.n, text_query(job->arena, b->s->unique_key, k.n, "floe_changed", false),
			     found, &f, NULL, NULL, &n_keys);
	for (size_t i = 0; rc == 0 && i < f.n_rows; i++)
		*FLOE_ARENA_PUSH(job->arena, b->dels, b->n_dels, b->cap_dels) = f.rows[i];
	if (rc == 0 && probe && (rc = probe_kept(b, &k)) == 0) {
		b->n_dels = before; /* another foreign key: the scan counts it */
		return 0;
	}
	if (rc == -1)
		return -1;
	if (rc == -2) {
		b->n_dels = before;
		give_up(b, "(a lookup failed)");
		return 0;
	}
	floe_log_debug("%s: the rows of %zu changed keys found in the key index: %zu live%s", b->s->table, n_keys, f.n_rows,
		       probe ? floe_arena_printf(job->arena, "; %lld kept rows of lost keys", (long long)job->probe_kept) : "");
	return check_by_scan(b, scan) < 0 ? -1 : 1;
}

/* The table of the lock whose silver table is `table` ("silver.x"); NULL: none. */
static const floe_lock_table *table_named(const floe_lock *lock, const char *table)
{
	for (size_t i = 0; i < floe_lock_count(lock); i++) {
		const floe_lock_table *t = floe_lock_at(lock, i);
		if (t->silver && strcmp(t->silver->table, table) == 0)
			return t;
	}
	return NULL;
}

static const floe_lock_silver *silver_named(const floe_lock *lock, const char *table)
{
	const floe_lock_table *t = table_named(lock, table);
	return t ? t->silver : NULL;
}

int silver_keys_held(silver_job *job, const floe_lock_test *t, const floe_iceberg_scan *now, const char *keys,
		     const char *held)
{
	const floe_lock_silver *p = t->to ? silver_named(job->lock, t->to) : NULL;
	key_layout k;
	floe_keyindex *ix = NULL;
	if (!p || !layout_of(p, &k) || t->n_fields != k.n || t->n_columns != k.n)
		return 0;
	for (size_t c = 0; c < k.n; c++)
		if (strcmp(t->fields[c], p->unique_key[c]) != 0)
			return 0;
	const char *dir = index_dir(job, p, &k);
	if (!floe_keyindex_exists(dir))
		return 0; /* the parent's build makes it */
	if (floe_keyindex_open(&ix, dir, k.width, k.cols[0].width) < 0) {
		floe_log_debug("%s: %s: the parent's key index could not be opened: %s", job->result->table, t->name,
			       floe_error_last()->message);
		floe_error_clear();
		return 0;
	}
	int done = 0;
	for (size_t i = 0; i < now->n_files; i++)
		if (!floe_keyindex_has_file(ix, now->files[i].file.path, now->files[i].file.record_count))
			goto cleanup; /* not all of it in the index: its build updates it, not this one */
	finder f = finder_of(job->arena, now);
	int64_t *rowids = NULL;
	size_t n_keys = 0, n_held = 0;
	int rc = lookup_rows(job, ix, &k, k.n, text_query(job->arena, t->columns, k.n, keys, true), found_live, &f, &rowids,
			     &n_held, &n_keys);
	if (rc == -2) {
		floe_log_debug("%s: %s: the parent's key index failed: %s", job->result->table, t->name,
			       floe_error_last()->message);
		floe_error_clear();
		goto cleanup;
	}
	if (rc < 0) {
		done = -1;
		goto cleanup;
	}
	floe_buf sql = FLOE_BUF_INIT;
	floe_buf_printf(&sql, "CREATE TEMP TABLE %s AS SELECT * FROM %s", held, keys);
	if (n_held) {
		floe_buf_puts(&sql, " WHERE rowid IN (");
		floe_engine_put_int64_rows(&sql, rowids, n_held);
		floe_buf_putc(&sql, ')');
	} else
		floe_buf_puts(&sql, " LIMIT 0");
	done = floe_engine_exec(job->engine, floe_buf_cstr(&sql)) < 0 ? -1 : 1;
	floe_buf_free(&sql);
	if (done > 0)
		floe_log_debug("%s: %s: %zu of %zu keys held by %s, found in its key index", job->result->table, t->name,
			       n_held, n_keys, t->to);
cleanup:
	floe_keyindex_free(ix);
	return done;
}

/* ---- the indexes of foreign key columns ---- */

struct silver_fk_index {
	const char *const *columns;
	size_t n;
	key_layout k;
	floe_keyindex *ix;                /* NULL: given up for this build */
};

/* Whether `cols` (n) are s's key columns, in order. */
static bool is_key_columns(const floe_lock_silver *s, const char *const *cols, size_t n)
{
	bool same = n == s->n_unique_key;
	for (size_t i = 0; i < n && same; i++)
		same = strcmp(cols[i], s->unique_key[i]) == 0;
	return same;
}

/* The layout of s's foreign key columns `cols` (n) and its index's directory; false: none (the key's own
   columns, or a type the index does not take). */
static bool fk_layout(silver_job *job, const floe_lock_silver *s, const char *const *cols, size_t n, key_layout *k,
		      const char **dir)
{
	if (is_key_columns(s, cols, n) || !layout_cols(s, cols, n, k))
		return false;
	k->nullable = true; /* a row without a value is all 0xff bytes */
	*dir = index_dir(job, s, k);
	return true;
}

/* Whether test t of b's table may ask the index of its foreign key (silver_keys_kept_gone): a
   relationships test to another table whose columns are not all key columns (the key index answers those). */
static bool fk_may_be_asked(const silver_build *b, const floe_lock_test *t)
{
	return strcmp(t->kind, "relationships") == 0 && t->to && strcmp(t->to, b->s->table) != 0 &&
	       !silver_test_within_key(b->s, t);
}

/* b's entry for the index of columns `cols` (n) when this build opened it, or tried to (its ix NULL:
   given up); NULL: it did not. */
static struct silver_fk_index *fk_entry(silver_build *b, const char *const *cols, size_t n)
{
	for (size_t i = 0; i < b->n_fks; i++) {
		struct silver_fk_index *x = &b->fks[i];
		bool same = x->n == n;
		for (size_t c = 0; c < n && same; c++)
			same = strcmp(x->columns[c], cols[c]) == 0;
		if (same)
			return x;
	}
	return NULL;
}

/* b's index of columns `cols` (n, not the key): opened once, made when `make` (else only when one exists). NULL: none. */
static struct silver_fk_index *fk_index(silver_build *b, const char *const *cols, size_t n, bool make)
{
	silver_job *job = b->job;
	struct silver_fk_index *e = fk_entry(b, cols, n);
	if (e)
		return e->ix ? e : NULL;
	key_layout k;
	const char *dir;
	if (!fk_layout(job, b->s, cols, n, &k, &dir))
		return NULL;
	floe_keyindex *ix = NULL;
	if (!make && !floe_keyindex_exists(dir))
		return NULL;
	if (floe_keyindex_open(&ix, dir, k.width, k.cols[0].width) < 0) {
		floe_log_debug("%s: the index of a foreign key could not be opened: %s", b->s->table, floe_error_last()->message);
		floe_error_clear();
	}
	struct silver_fk_index *x = FLOE_ARENA_PUSH(job->arena, b->fks, b->n_fks, b->cap_fks);
	*x = (struct silver_fk_index){ .columns = cols, .n = n, .k = k, .ix = ix };
	return ix ? x : NULL;
}

/* Index x given up for this build (logged). */
static void fk_give_up(silver_build *b, struct silver_fk_index *x, const char *when)
{
	floe_log_debug("%s: the index of %s is not used %s: %s", b->s->table, x->columns[0], when, floe_error_last()->message);
	floe_error_clear();
	floe_keyindex_free(x->ix);
	x->ix = NULL;
}

int silver_keys_kept_gone(silver_job *job, const floe_lock_test *t, const char *gone, bool *any)
{
	silver_build *b = job->build;
	if (!b || !b->kept || !b->silver || !b->previous || is_key_columns(b->s, t->columns, t->n_columns))
		return 0;
	struct silver_fk_index *x = fk_index(b, t->columns, t->n_columns, false);
	if (!x) { /* none yet: the scan answers, and the publish makes one (off the path of the tables that read this one) */
		b->fk_wanted = true;
		return 0;
	}
	if (add_published(x->ix, b, &x->k) < 0) {
		fk_give_up(b, x, "(the live files' values could not be read)");
		return 0;
	}
	finder f = finder_of(job->arena, b->kept);
	size_t n_keys = 0;
	int rc = lookup_rows(job, x->ix, &x->k, x->k.n, text_query(job->arena, t->columns, t->n_columns, gone, false),
			     found_live, &f, NULL, NULL, &n_keys);
	if (rc == -2) {
		fk_give_up(b, x, "(a lookup failed)");
		return 0;
	}
	if (rc < 0)
		return -1;
	*any = f.n_rows > 0;
	floe_log_debug("%s: %s: kept rows of %zu lost keys found in the index of its foreign key: %s", job->result->table,
		       t->name, n_keys, *any ? "some" : "none");
	return 1;
}

/* ---- made ahead ---- */

/* The number `key` of table `table`'s ("ns.name") current snapshot summary; -1 when not known (an error is cleared). */
static int64_t current_count(silver_job *job, const char *table, const char *key)
{
	floe_iceberg_table *t = NULL;
	const char *ns, *name;
	silver_split(job->arena, table, &ns, &name);
	if (floe_iceberg_table_load(&t, job->cat, ns, name) < 0) {
		floe_error_clear(); /* asked when the build needs it, as before */
		return -1;
	}
	const floe_iceberg_snapshot *snap = floe_iceberg_metadata_current_snapshot(floe_iceberg_table_metadata(t));
	const char *n = snap ? floe_iceberg_snapshot_summary(snap, key) : NULL;
	int64_t count = n ? strtoll(n, NULL, 10) : -1;
	floe_iceberg_table_free(t);
	return count;
}

/* The rows test t's parent's bronze table (*table) lost to source deletes in its last load
   (floe.rows-deleted; 0 or less: none, or not known). */
static int64_t parent_rows_deleted(silver_job *job, const floe_lock_test *t, const char **table)
{
	const floe_lock_table *parent = table_named(job->lock, t->to);
	if (!parent)
		return 0;
	*table = parent->bronze;
	return current_count(job, parent->bronze, "floe.rows-deleted");
}

size_t silver_keys_make_ahead(silver_build *b)
{
	silver_job *job = b->job;
	size_t made = 0;
	if (!b->merge_on_read || !b->silver || !b->previous || b->previous->n_files == 0 || silver_incremental_base(b) <= 0)
		return 0;
	for (size_t i = 0; i < b->s->n_tests; i++) {
		const floe_lock_test *t = &b->s->tests[i];
		if (!fk_may_be_asked(b, t))
			continue;
		const char *parent = NULL;
		int64_t lost = parent_rows_deleted(job, t, &parent);
		if (lost <= 0)
			continue; /* no sign its parent loses keys: asked, if at all, of what there is then */
		bool had = fk_index(b, t->columns, t->n_columns, false) != NULL;
		struct silver_fk_index *x = fk_index(b, t->columns, t->n_columns, true);
		if (!x)
			continue;
		int added = add_published(x->ix, b, &x->k);
		if (added < 0) {
			fk_give_up(b, x, "(the live files' values could not be read)");
			continue;
		}
		if (added == 0)
			continue; /* made before: by a build before, or on an idle core */
		made++;
		if (had) /* the idle builder stopped part way, or a file was written since */
			floe_log_debug("%s: %s: the index of its foreign key completed ahead, %d files read in (%s lost %lld "
				       "rows to deletes in its last load)", job->result->table, t->name, added, parent,
				       (long long)lost);
		else
			floe_log_debug("%s: %s: the index of its foreign key made ahead (%s lost %lld rows to deletes in its "
				       "last load)", job->result->table, t->name, parent, (long long)lost);
	}
	return made;
}

/* ---- made on an idle core (idle.c runs them) ---- */

struct silver_idle_index {
	char *ns, *name;                  /* the silver table */
	char *test;                       /* its relationships test */
	char *dir;                        /* the index's directory */
	key_layout k;
	char **paths;                     /* the table's live files as its build published them */
	int64_t *rows;
	size_t n;
	int64_t parent_rows;              /* the parent's rows when it was last published (-1: not known) */
};

static char *dup_str(const char *s) { return floe_xstrndup(s, strlen(s)); }

/* Test t's foreign key index, missing after b's publish, handed to the run's idle builder with the live files. */
static void idle_index(silver_build *b, const floe_lock_test *t, const floe_iceberg_data_file *const *files, size_t n)
{
	silver_job *job = b->job;
	key_layout k;
	const char *dir;
	if (!fk_layout(job, b->s, t->columns, t->n_columns, &k, &dir))
		return;
	silver_idle_index *x = floe_xcalloc(1, sizeof(*x));
	*x = (silver_idle_index){ .ns = dup_str(job->ns), .name = dup_str(job->name), .test = dup_str(t->name),
				  .dir = dup_str(dir), .k = k, .paths = floe_xcalloc(n + 1, sizeof(char *)),
				  .rows = floe_xcalloc(n + 1, sizeof(int64_t)), .n = n,
				  .parent_rows = current_count(job, t->to, "total-records") };
	for (size_t i = 0; i < n; i++)
		x->paths[i] = dup_str(files[i]->path), x->rows[i] = files[i]->record_count;
	silver_idle_add(job->idle, x, x->parent_rows);
}

int silver_keys_idle_make(silver_idle_index *x, floe_iceberg_catalog *cat, const atomic_bool *stop)
{
	floe_iceberg_table *t = NULL;
	floe_keyindex *ix = NULL;
	int rc = -1;
	if (floe_iceberg_table_load(&t, cat, x->ns, x->name) < 0 ||
	    floe_keyindex_open(&ix, x->dir, x->k.width, x->k.cols[0].width) < 0)
		goto cleanup;
	for (size_t i = 0; i < x->n; i++) { /* a segment a file: a stop loses at most the file under way */
		if (floe_keyindex_has_file(ix, x->paths[i], x->rows[i]))
			continue;
		floe_keyindex_file in = { 0 };
		int read = read_keys(floe_iceberg_table_storage(t), &x->k, x->paths[i], x->rows[i], &in, stop);
		if (read == 0 && atomic_load(stop))
			read = 1;
		int added = read == 0 ? floe_keyindex_add(ix, &in, 1) : read;
		free((void *)in.keys);
		if (added != 0) {
			rc = added < 0 ? -1 : 0;
			goto cleanup;
		}
	}
	rc = floe_keyindex_prune(ix, (const char *const *)x->paths, x->n) < 0 ? -1 : 1; /* an earlier build's files out */
cleanup:
	floe_keyindex_free(ix);
	floe_iceberg_table_free(t);
	return rc;
}

const char *silver_keys_idle_name(const silver_idle_index *x, char *buf, size_t len)
{
	snprintf(buf, len, "%s.%s: %s", x->ns, x->name, x->test);
	return buf;
}

void silver_keys_idle_free(silver_idle_index *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->n; i++)
		free(x->paths[i]);
	free(x->paths);
	free(x->rows);
	free(x->ns);
	free(x->name);
	free(x->test);
	free(x->dir);
	free(x);
}

/* ---- after a publish ---- */

/* Index ix of layout k (of b's table) brought to the published files: those it lacks read in, those not live out. */
static int bring_up(silver_build *b, floe_keyindex *ix, const key_layout *k, const floe_iceberg_data_file *const *files,
		    const char *const *live, size_t n_live)
{
	return add_files(ix, b, k, files, n_live) < 0 || floe_keyindex_prune(ix, live, n_live) < 0 ? -1 : 0;
}

void silver_keys_published(silver_build *b)
{
	silver_job *job = b->job;
	key_layout k;
	if (!b->silver)
		return;
	size_t n_prev = b->incremental && b->previous ? b->previous->n_files : 0, n_live = 0;
	const floe_iceberg_data_file **files = floe_arena_alloc(job->arena, (b->n_files + n_prev + 1) * sizeof(*files));
	const char **live = floe_arena_alloc(job->arena, (b->n_files + n_prev + 1) * sizeof(*live));
	for (size_t i = 0; i < n_prev; i++) {
		bool rewritten = false;
		for (size_t r = 0; r < b->n_removed && !rewritten; r++)
			rewritten = strcmp(b->removed[r], b->previous->files[i].file.path) == 0;
		if (!rewritten)
			files[n_live++] = &b->previous->files[i].file;
	}
	for (size_t i = 0; i < b->n_files; i++)
		files[n_live++] = &b->files[i];
	for (size_t i = 0; i < n_live; i++)
		live[i] = files[i]->path;
	if (open_index(b, &k) == 0 && bring_up(b, b->keys, &k, files, live, n_live) < 0)
		give_up(b, "(the new files' keys could not be added; the next build reads them)");
	/* the foreign keys' indexes this build asked (or made ahead, or wanted): kept up with its files; one
	   it did not ask is left as it is — the build that asks reads in the files it lacks — and a full
	   build hands the rest to the idle builder */
	for (size_t i = 0; i < b->s->n_tests; i++) {
		const floe_lock_test *t = &b->s->tests[i];
		if (strcmp(t->kind, "relationships") != 0)
			continue;
		struct silver_fk_index *e = fk_entry(b, t->columns, t->n_columns);
		struct silver_fk_index *x = e || b->fk_wanted ? fk_index(b, t->columns, t->n_columns, b->fk_wanted) : NULL;
		if (x && bring_up(b, x->ix, &x->k, files, live, n_live) < 0)
			fk_give_up(b, x, "(the new files' values could not be added; the next build reads them)");
		else if (!x && !e && !b->incremental && b->merge_on_read && job->idle && fk_may_be_asked(b, t))
			idle_index(b, t, files, n_live);
	}
}

void silver_keys_close(silver_build *b)
{
	floe_keyindex_free(b->keys);
	b->keys = NULL;
	for (size_t i = 0; i < b->n_fks; i++)
		floe_keyindex_free(b->fks[i].ix);
	b->n_fks = 0;
}
