/*
 * merge.c — the incremental load: an upsert by primary key with copy-on-write.
 *
 * The table's data files are sorted by key and disjoint (a full load of a keyed
 * table writes them so, and every merge keeps it so). One load:
 *
 *   1. reads the rows whose watermark is at or past the last one loaded minus the
 *      late-arrival window, sorted by key (the changes);
 *   2. routes each change to the files whose key bounds (Iceberg column stats of
 *      the first key column) hold it — a new key between files goes to the file
 *      before it, so files grow instead of multiplying;
 *   3. finds deletes: the source's row count must equal bronze's plus the changes
 *      that are new keys — per key range (a range the changes wholly touch in
 *      sub-ranges between change keys, the untouched ones together first — as the
 *      whole source less the touched ranges' pieces when they hold most rows), all
 *      counted in one query; where a count differs, the source's keys there are
 *      streamed in key order against bronze's (a key-set diff: a sub-range's
 *      against the keys step 2's read kept), which names every deleted key (and
 *      counts the rows bronze lacks that the changes did not bring: late arrivals,
 *      left to reconciliation);
 *   4. rewrites each run of adjacent touched files as one sorted stream merged
 *      with its changes and deletes, into files of at most target-file-rows rows;
 *      a run whose rows all come out equal is left as it was.
 *
 * What makes the load a full one instead (the reason is reported): too many
 * changes to hold (a full load is cheaper then), a file without key bounds, files
 * out of key order, too many deletes.
 */
#include "bronze/bronze_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/log.h"
#include "iceberg/data_file.h"
#include "iceberg/metadata.h"
#include "iceberg/table.h"
#include "pg/introspect.h"
#include "pg/pg.h"

#include <math.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#define CHANGE_MAX_BYTES ((uint64_t)64 << 20) /* of COPY data held in memory */
#define DELETE_MAX_KEYS ((size_t)1 << 20)
#define SUB_MAX 256                   /* key ranges and sub-ranges counted in one query */
#define SUB_MAX_SCATTERED 1024        /* … when the last load's deletes were as many as a quarter of SUB_MAX */
#define SUB_FINE_MAX 16384           /* … split evenly where deletes scatter (subs_refine) */
#define PIECES_AS_ARRAY 16            /* pieces counted or streamed through one relation of their bounds */
#define REFINE_ROWS 128              /* a differing piece of at least so many rows is counted again in parts */
#define REFINE_PART_ROWS 64          /* … of about so many rows, 2 to REFINE_PARTS_MAX of them */
#define REFINE_PARTS_MAX 64
#define PIECE_ROWS 100.0            /* a counted piece's own cost, in rows' (~6 us against ~55 ns a row) */
#define COUNT_SPLIT_ROWS ((int64_t)1 << 20) /* … counted on a second connection (count_on_two) from so many rows */
#define KEEP_MAX_BYTES ((size_t)256 << 20) /* of touched units' keys kept for the sub-ranges' diffs */

/* A key interval of the first key column, [lo, hi); a NULL side is unbounded. */
typedef struct key_bounds {
	const floe_vector *lo, *hi;
	size_t lo_row, hi_row;
} key_bounds;

/* A counted part of key range `range`: the whole range, or a piece of it between change keys. */
typedef struct sub_range {
	key_bounds b;
	size_t range;
	int64_t expected;              /* split ranges with kept keys: the rows the source should count */
} sub_range;

/* The touched units' live keys as find_existing read them, in key order, with each row's unit and position. */
/* One kept run: rows at consecutive positions of one data file (a scan's batch, or a run of a merged group's). */
typedef struct kept_batch {
	size_t start, unit;            /* its first kept row; the unit it came from */
	const char *path;              /* the file, and the first row's position */
	int64_t pos;
} kept_batch;

typedef struct kept_keys {
	floe_vector *vec;              /* one per key column */
	floe_vector *keys[64];
	size_t n;
	kept_batch *batch;             /* in row order */
	size_t n_batch, cap_batch;
	const size_t *unit_of;         /* per file find_existing scans: its unit */
	bool on, ok;                   /* keeping now; kept whole (not dropped past KEEP_MAX_BYTES) */
} kept_keys;

typedef struct standby standby;

typedef struct merge {
	bronze_load *l;
	floe_arena *a;
	const bronze_keys *k;
	size_t ncols;
	const char *full;              /* set: load in full instead, for this reason */
	/* the changes, sorted by key */
	floe_vector *chg;
	floe_vector **chg_keys;
	size_t n_chg;
	size_t *chg_file;              /* the file each change goes to (NO_FILE: no files yet) */
	/* the current snapshot's files, sorted by key, and their bounds, touches and key ranges */
	const floe_iceberg_data_file **files;
	bronze_file_map map;
	int64_t bronze_rows;
	bool *exists;                  /* per change: bronze has its key */
	/* deleted keys, sorted, and the file each was found in */
	floe_vector *del;
	floe_vector **del_keys;
	size_t *del_file;              /* (grown as deletes are found: cap_del) */
	size_t cap_del;
	size_t n_del;
	int64_t late_missing;
	int64_t inserted, updated, deleted, rewritten;
	/* merge-on-read (mor.c): files[f] may stand for a group of files; the rows to delete */
	const bronze_group **groups;   /* per file, or NULL for none */
	bool skip_same;                /* a change whose watermark bronze has is unchanged (a re-read row) */
	int64_t previous;              /* skip_same: the watermark the last load reached */
	bool compacting;               /* bronze_merge_compact */
	bool *same;                    /* per change: so */
	size_t n_data_files;           /* every data file the units hold */
	size_t n_delete_files;         /* live position delete files */
	const floe_iceberg_scan *scan;
	floe_iceberg_position_delete *pdel;
	size_t n_pdel, cap_pdel;
	/* delete detection: the counted sub-ranges (a range whose units are all touched split at change keys) */
	sub_range *subs;
	size_t n_subs;
	bool *split;                   /* per range */
	bool rest_whole;               /* the ranges not split: the whole source's count less the split ones' */
	size_t untouched_deleted;      /* deletes found in ranges not split (diffed whole) */
	kept_keys kept;
	const char *key_type0;         /* the first key column's source type (first_key_type) */
	floe_vector *fine;             /* bounds subs_refine added */
	int64_t split_rows;            /* the rows of the split ranges (subs_plan) */
	standby *standby;              /* the count's second connection, opening (standby_start); NULL: none */
	bronze_lakekeys *lake;         /* merge-on-read: the touched units' key files (lakekeys.c); NULL: their keys are read */
	bool refine;                   /* a differing piece is counted again in parts before its diff (refine_pieces) */
	bool deltas_written;           /* merge-on-read: the changes' data files are written (write_delta_files) */
	floe_pg *second;               /* the count's second connection, open while the diffs run; NULL: none */
	size_t *new_before;            /* refine: per change c, the changes before it that are new keys (n_chg + 1) */
} merge;

static int key_types(merge *m, const char ***out);

/* One line per step at -v: where an incremental run spends its time. */
static void step(merge *m, double *t, const char *what)
{
	bronze_step_at(FLOE_LOG_INFO, m->l->job, t, what);
}

/* ---- checking that a stream of keys ascends ---- */

typedef struct key_order {
	floe_vector *prev;             /* the previous key, one row per key column */
	floe_vector **prev_keys;
	bool has_prev;
} key_order;

static void order_init(key_order *o, const merge *m, floe_arena *a)
{
	o->prev = floe_arena_alloc(a, (m->k->n + 1) * sizeof(floe_vector));
	o->prev_keys = floe_arena_alloc(a, (m->k->n + 1) * sizeof(floe_vector *));
	for (size_t i = 0; i < m->k->n; i++) {
		const floe_pg_copy_column *c = &m->l->cols.copy[m->k->col[i]];
		floe_vector_init(&o->prev[i], c->vec, c->width);
		o->prev_keys[i] = &o->prev[i];
	}
	o->has_prev = false;
}

/* Whether key row i of `keys` comes strictly after the previous one; remembers it. */
static bool order_next(key_order *o, const bronze_keys *k, floe_vector *const *keys, size_t i)
{
	bool ok = !o->has_prev || bronze_key_cmp(k, o->prev_keys, 0, keys, i) < 0;
	for (size_t c = 0; c < k->n; c++) {
		floe_vector_clear(&o->prev[c]);
		floe_vector_append_row(&o->prev[c], keys[c], i);
	}
	o->has_prev = true;
	return ok;
}

/*
 * order_next for row i of a batch of `rows` rows: against the row before it in the batch, no copy;
 * the batch's last row is remembered for the next batch's first.
 */
static bool order_in_batch(key_order *o, const bronze_keys *k, floe_vector *const *keys, size_t i, size_t rows)
{
	if (i == 0 || i + 1 == rows)
		return order_next(o, k, keys, i) && (i == 0 || bronze_key_cmp(k, keys, i - 1, keys, i) < 0);
	return bronze_key_cmp(k, keys, i - 1, keys, i) < 0;
}

/* order_next for a whole batch of `rows` rows: its first against the previous batch's last, then each against the one before. */
static bool order_batch(key_order *o, const bronze_keys *k, floe_vector *const *keys, size_t rows)
{
	return rows == 0 || (order_next(o, k, keys, 0) && bronze_keys_ascending(k, keys, rows) &&
			     (rows == 1 || order_next(o, k, keys, rows - 1)));
}

static void order_free(key_order *o, const bronze_keys *k)
{
	for (size_t c = 0; o->prev && c < k->n; c++)
		floe_vector_free(&o->prev[c]);
}

/* ---- 1. the changes ---- */

static const char *wrapped(merge *m, const char *columns, const char *where)
{
	return bronze_sql_keyed(m->a, m->l->pg, m->l->job->table, m->k, columns, m->l->sql, where);
}

/* The rows of `sql` (every column, in key order) as the changes; `what` names them in a reason. */
static int fetch_rows(merge *m, const char *sql, const char *what)
{
	bronze_load *l = m->l;
	floe_pg_copy *copy = NULL;
	size_t rows = 0;
	int error = -1;
	if (floe_pg_copy_begin(&copy, l->pg, sql, l->cols.copy, m->ncols) < 0)
		goto cleanup;
	m->chg = bronze_vectors_new(m->a, &l->cols);
	for (;;) {
		if (m->full) /* too many: read on (a cancel would end the transaction) and drop them */
			bronze_vectors_clear(m->chg, m->ncols);
		if (floe_pg_copy_next(copy, m->chg, BRONZE_BATCH_ROWS, BRONZE_BATCH_BYTES, &rows) < 0)
			goto cleanup;
		if (rows == 0)
			break;
		if (!m->full && floe_pg_copy_bytes(copy) > CHANGE_MAX_BYTES)
			m->full = floe_arena_printf(m->a, "loaded in full: more than %llu MB of %s",
						    (unsigned long long)(CHANGE_MAX_BYTES >> 20), what);
		bronze_load_progress(l, "copying changes", copy);
	}
	l->rows_read = (int64_t)floe_pg_copy_rows(copy);
	l->job->result->bytes = (int64_t)floe_pg_copy_bytes(copy);
	m->n_chg = m->chg[0].len;
	m->chg_keys = floe_arena_alloc(m->a, (m->k->n + 1) * sizeof(floe_vector *));
	bronze_key_view(m->k, m->chg_keys, m->chg);
	key_order o;
	order_init(&o, m, m->a);
	for (size_t i = 0; i < m->n_chg && !m->full; i++)
		if (!order_next(&o, m->k, m->chg_keys, i))
			m->full = "loaded in full: the source returned keys out of order or twice";
	order_free(&o, m->k);
	error = 0;
cleanup:
	floe_pg_copy_free(copy);
	return error;
}

static int fetch_changes(merge *m, int64_t previous)
{
	bronze_load *l = m->l;
	floe_buf where = FLOE_BUF_INIT;
	int error = -1;
	int64_t lower = previous - l->job->config->bronze.late_window_seconds * INT64_C(1000000);
	floe_buf_puts(&where, " WHERE floe_src.");
	if (floe_pg_quote_ident(&where, l->pg, l->job->table->columns[m->k->watermark].name) < 0)
		goto cleanup;
	floe_buf_printf(&where, " >= '%s'", bronze_watermark_text(l, lower));
	const char *sql = wrapped(m, "*", floe_buf_cstr(&where));
	const char *what = floe_arena_printf(m->a, "changes since %s", bronze_watermark_text(l, lower));
	if (!sql || fetch_rows(m, sql, what) < 0)
		goto cleanup;
	bronze_watermark_track(l, m->chg);
	error = 0;
cleanup:
	floe_buf_free(&where);
	return error;
}

/* ---- 2. the files and where each change goes ---- */

const char *bronze_map_bounds(floe_arena *a, floe_vector *lower, floe_vector *upper,
			      const floe_iceberg_data_file *d, const floe_iceberg_field *key0)
{
	const floe_iceberg_column_stats *st = floe_iceberg_data_file_column(d, key0->id);
	if (d->content != FLOE_ICEBERG_CONTENT_DATA)
		return "loaded in full: the table has delete files";
	if (!st || !st->has_lower || !st->has_upper || bronze_key_bound_append(lower, st->lower, st->lower_len) < 0 ||
	    bronze_key_bound_append(upper, st->upper, st->upper_len) < 0)
		return floe_arena_printf(a, "loaded in full: data file \"%s\" has no bounds for \"%s\"", d->path,
					 key0->name);
	return NULL;
}

static const char OVERLAP[] = "loaded in full: the data files overlap in key ranges";

typedef struct file_bounds {
	const floe_vector *lower, *upper;
} file_bounds;

static int by_bounds(const void *x, const void *y, void *ctx)
{
	const file_bounds *b = ctx;
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	int c = floe_vector_compare_rows(b->lower, i, b->lower, j);
	return c ? c : floe_vector_compare_rows(b->upper, i, b->upper, j);
}

const char *bronze_map_sort(bronze_file_map *map, floe_arena *a, const floe_vector *lower,
			    const floe_vector *upper, size_t n, size_t *order)
{
	file_bounds b = { lower, upper };
	const char *why = NULL;
	for (size_t f = 0; f < n; f++)
		order[f] = f;
	qsort_r(order, n, sizeof(size_t), by_bounds, &b);
	floe_vector_free(&map->lower);
	floe_vector_free(&map->upper);
	floe_vector_init(&map->lower, lower->type, lower->width);
	floe_vector_init(&map->upper, upper->type, upper->width);
	for (size_t f = 0; f < n; f++) {
		floe_vector_append_row(&map->lower, lower, order[f]);
		floe_vector_append_row(&map->upper, upper, order[f]);
		/* Disjoint files have ascending upper bounds too; anything else is not ours. */
		if (f && floe_vector_compare_rows(&map->upper, f - 1, &map->upper, f) > 0)
			why = OVERLAP;
	}
	map->n_files = n;
	map->touched = floe_arena_alloc(a, (n + 1) * sizeof(bool));
	return why;
}

/* A merge-on-read table (or one with delete files): its files as units of overlapping key ranges. */
static int list_units(merge *m, floe_iceberg_scan *scan)
{
	bronze_load *l = m->l;
	bronze_units u;
	const floe_pg_copy_column *c0 = &l->cols.copy[m->k->col[0]];
	size_t max_rows = 4 * (size_t)l->job->config->bronze.target_file_rows;
	floe_vector lower, upper;
	if (floe_iceberg_scan_load_deletes(m->a, l->table, scan) < 0)
		return -1;
	m->scan = scan;
	m->n_delete_files = scan->n_deletes;
	floe_vector_init(&lower, c0->vec, c0->width);
	floe_vector_init(&upper, c0->vec, c0->width);
	m->full = bronze_mor_units(&u, m->a, scan, &l->cols.schema->fields[m->k->col[0]], c0,
				   max_rows < 1000000 ? 1000000 : max_rows, &lower, &upper);
	if (!m->full) {
		size_t *order = floe_arena_alloc(m->a, (u.n + 1) * sizeof(size_t));
		m->full = bronze_map_sort(&m->map, m->a, &lower, &upper, u.n, order);
		m->files = floe_arena_alloc(m->a, (u.n + 1) * sizeof(*m->files));
		m->groups = floe_arena_alloc(m->a, (u.n + 1) * sizeof(*m->groups));
		for (size_t f = 0; f < u.n; f++) {
			m->files[f] = u.files[order[f]];
			m->groups[f] = u.groups[order[f]];
		}
		m->bronze_rows = u.live_rows;
		m->n_data_files = u.n_data_files;
	}
	floe_vector_free(&lower);
	floe_vector_free(&upper);
	if (!m->map.touched)
		m->map.touched = floe_arena_alloc(m->a, sizeof(bool));
	return 0;
}

static int list_files(merge *m)
{
	bronze_load *l = m->l;
	floe_iceberg_scan *scan = NULL;
	const floe_iceberg_field *key0 = &l->cols.schema->fields[m->k->col[0]];
	const floe_pg_copy_column *c0 = &l->cols.copy[m->k->col[0]];
	if (floe_iceberg_table_plan_deletes(&scan, m->a, l->table, l->expect_snapshot) < 0)
		return -1;
	if (l->mor || scan->n_deletes)
		return list_units(m, scan);
	m->n_data_files = scan->n_files;
	floe_vector lower, upper;
	floe_vector_init(&lower, c0->vec, c0->width);
	floe_vector_init(&upper, c0->vec, c0->width);
	size_t *order = floe_arena_alloc(m->a, (scan->n_files + 1) * sizeof(size_t));
	for (size_t f = 0; f < scan->n_files && !m->full; f++) {
		m->bronze_rows += scan->files[f].file.record_count;
		m->full = bronze_map_bounds(m->a, &lower, &upper, &scan->files[f].file, key0);
	}
	if (!m->full) {
		m->full = bronze_map_sort(&m->map, m->a, &lower, &upper, scan->n_files, order);
		m->files = floe_arena_alloc(m->a, (scan->n_files + 1) * sizeof(*m->files));
		for (size_t f = 0; f < scan->n_files; f++)
			m->files[f] = &scan->files[order[f]].file;
	}
	floe_vector_free(&lower);
	floe_vector_free(&upper);
	if (m->full == OVERLAP) { /* merge-on-read's deltas (this table was, or compaction kept a big
				     file they overlap): read as units, rewritten whole */
		m->full = NULL;
		return list_units(m, scan);
	}
	if (!m->map.touched)
		m->map.touched = floe_arena_alloc(m->a, sizeof(bool));
	return 0;
}

/* The first file index in [0, n) whose bound row compares `want` to the key (binary search). */
static size_t first_file(const bronze_file_map *map, const floe_vector *bounds, const floe_vector *key, size_t row,
			 bool above)
{
	size_t lo = 0, hi = map->n_files;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = floe_vector_compare_rows(bounds, mid, key, row);
		if (above ? c > 0 : c >= 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

size_t bronze_map_route(bronze_file_map *map, const floe_vector *key0, size_t row)
{
	if (map->n_files == 0)
		return BRONZE_NO_FILE;
	size_t from = first_file(map, &map->upper, key0, row, false); /* upper >= key */
	size_t to = first_file(map, &map->lower, key0, row, true);    /* lower > key */
	for (size_t f = from; f < to; f++)
		map->touched[f] = true;
	if (from < to)
		return from;
	size_t f = to ? to - 1 : 0; /* between files: the one before (or the first) */
	map->touched[f] = true;
	return f;
}

static void route_changes(merge *m)
{
	m->chg_file = floe_arena_alloc(m->a, (m->n_chg + 1) * sizeof(size_t));
	for (size_t i = 0; i < m->n_chg; i++)
		m->chg_file[i] = bronze_map_route(&m->map, m->chg_keys[0], i);
}

/* ---- 3. deletes ---- */

/* A position delete's key row (its `row`): change c's key, or deleted key d's (write_position_deletes). */
#define ROW_OF_CHANGE(c) ((int64_t)(c))
#define ROW_OF_DELETE(d) (-(int64_t)(d) - 1)

/* Merge-on-read: the scan's current row, whose key is `row`'s, is replaced or deleted (a position delete). */
static void mark_position(merge *m, const bronze_scan *s, int64_t row)
{
	if (!m->l->mor)
		return;
	floe_iceberg_position_delete *d = FLOE_ARENA_PUSH(m->a, m->pdel, m->n_pdel, m->cap_pdel);
	bronze_scan_position(s, &d->path, &d->pos);
	d->row = row;
}

/* ---- the touched units' keys, kept for the sub-ranges' key-set diffs ---- */

static void kept_drop(kept_keys *kk, const merge *m)
{
	for (size_t i = 0; kk->vec && i < m->k->n; i++)
		floe_vector_free(&kk->vec[i]);
	free(kk->batch);
	memset(kk, 0, sizeof(*kk));
}

/*
 * Keeping starts; `rows`: what the units it keeps hold (the key vectors are sized once for them);
 * `unit_of`: the unit of each file the scan that feeds it reads. The vectors come from `a`.
 */
static void kept_start(kept_keys *kk, const merge *m, floe_arena *a, int64_t rows, const size_t *unit_of)
{
	memset(kk, 0, sizeof(*kk));
	kk->vec = floe_arena_alloc(a, (m->k->n + 1) * sizeof(floe_vector));
	for (size_t i = 0; i < m->k->n; i++) {
		const floe_pg_copy_column *c = &m->l->cols.copy[m->k->col[i]];
		floe_vector_init(&kk->vec[i], c->vec, c->width);
		if (rows > 0 && (size_t)rows * (c->width ? c->width : 16) <= KEEP_MAX_BYTES)
			floe_vector_reserve(&kk->vec[i], (size_t)rows);
		kk->keys[i] = &kk->vec[i];
	}
	kk->unit_of = unit_of;
	kk->on = kk->ok = true;
}

/* The kept rows' bytes: keys and runs. */
static size_t kept_bytes(const kept_keys *kk, const merge *m)
{
	size_t bytes = kk->cap_batch * sizeof(*kk->batch);
	for (size_t i = 0; i < m->k->n; i++)
		bytes += floe_vector_data_bytes(&kk->vec[i]);
	return bytes;
}

static void kept_too_many(kept_keys *kk, const merge *m)
{
	floe_log_info("%s: more than %zu MB of keys to keep: differing ranges are diffed whole",
		      m->l->job->table->bronze, KEEP_MAX_BYTES >> 20);
	kept_drop(kk, m);
}

static kept_batch *kept_push_batch(kept_keys *kk)
{
	if (kk->n_batch == kk->cap_batch) {
		kk->cap_batch = kk->cap_batch ? kk->cap_batch * 2 : 256;
		kk->batch = floe_xrealloc(kk->batch, kk->cap_batch * sizeof(*kk->batch));
	}
	return &kk->batch[kk->n_batch++];
}

/*
 * The scan's current batch (at its first row) joins the kept keys, a run of consecutive positions at
 * a time (a merged group's batch: its base file's rows between the changed and deleted ones; listing
 * every row's file and position cost a sixth of the key pass's page faults); all are dropped past
 * `max_bytes` (KEEP_MAX_BYTES shared by the parts that keep).
 */
static void keep_batch(kept_keys *kk, const merge *m, const bronze_scan *s, size_t max_bytes)
{
	if (!kk->on)
		return;
	for (size_t r = 0; r < s->rows;) {
		kept_batch *b = kept_push_batch(kk);
		*b = (kept_batch){ .start = kk->n + r, .unit = kk->unit_of[s->file] };
		r = bronze_scan_run(s, r, &b->path, &b->pos);
	}
	for (size_t i = 0; i < m->k->n; i++)
		floe_vector_append_rows(&kk->vec[i], &s->vec[i], 0, s->rows);
	kk->n += s->rows;
	if (kept_bytes(kk, m) > max_bytes)
		kept_too_many(kk, m);
}

/* `from`'s kept keys (the ones after `into`'s) appended to `into`'s; `from` emptied. Dropped both when either was. */
static void kept_join(kept_keys *into, kept_keys *from, const merge *m)
{
	if (!into->ok || !from->ok) {
		kept_drop(into, m);
		kept_drop(from, m);
		return;
	}
	for (size_t i = 0; i < m->k->n; i++)
		floe_vector_append_rows(&into->vec[i], &from->vec[i], 0, from->n);
	for (size_t b = 0; b < from->n_batch; b++) {
		kept_batch *to = kept_push_batch(into);
		*to = from->batch[b];
		to->start += into->n;
	}
	into->n += from->n;
	kept_drop(from, m);
	if (kept_bytes(into, m) > KEEP_MAX_BYTES)
		kept_too_many(into, m);
}

/* The run kept row `at` belongs to (binary search over the runs' first rows). */
static const kept_batch *kept_batch_of(const kept_keys *kk, size_t at)
{
	size_t lo = 0, hi = kk->n_batch; /* the last batch whose start <= at */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (kk->batch[mid].start <= at)
			lo = mid;
		else
			hi = mid;
	}
	return &kk->batch[lo];
}

/* Kept row `at`'s data file and position. */
static void kept_position(const kept_keys *kk, size_t at, const char **path, int64_t *pos)
{
	const kept_batch *b = kept_batch_of(kk, at);
	*path = b->path;
	*pos = b->pos + (int64_t)(at - b->start);
}

/* The first kept row whose first key column is at or after row `row` of `bound` (binary search). */
static size_t kept_first(const kept_keys *kk, const floe_vector *bound, size_t row)
{
	return floe_vector_lower_bound(&kk->vec[0], kk->n, bound, row);
}

/* Whether key row `row` of `keys` is among the deleted keys (cursor *d advances; merge-on-read). */
static bool in_deletes(merge *m, size_t *d, floe_vector *const *keys, size_t row)
{
	if (!m->l->mor)
		return false;
	int cmp = -1;
	while (*d < m->n_del && (cmp = bronze_key_cmp(m->k, m->del_keys, *d, keys, row)) < 0)
		(*d)++;
	return *d < m->n_del && cmp == 0;
}

/* Merge-on-read under `floe run --follow`: the positions from its index (posindex.c), no scan. */
static void existing_by_index(merge *m, bronze_posindex *ix)
{
	floe_iceberg_position_delete p;
	for (size_t c = 0; c < m->n_chg; c++)
		if ((m->exists[c] = bronze_posindex_take(ix, m->k, m->chg_keys, c, &p.path, &p.pos))) {
			p.row = ROW_OF_CHANGE(c);
			*FLOE_ARENA_PUSH(m->a, m->pdel, m->n_pdel, m->cap_pdel) = p;
		}
	for (size_t d = 0; d < m->n_del; d++)
		if (bronze_posindex_take(ix, m->k, m->del_keys, d, &p.path, &p.pos)) {
			m->deleted++;
			p.row = ROW_OF_DELETE(d);
			*FLOE_ARENA_PUSH(m->a, m->pdel, m->n_pdel, m->cap_pdel) = p;
		}
}

/*
 * A change bronze has whose watermark is not past the last load's: possibly a row the late window
 * re-read unchanged. Its position delete's index (bronze's row: file and position) until the
 * watermarks are compared.
 */
typedef struct reread {
	size_t change, pdel;
} reread;

/* Change c may be a re-read row: its watermark is not past the one the last load reached. */
static bool may_be_reread(const merge *m, size_t c)
{
	const floe_vector *w = &m->chg[m->k->watermark];
	return m->skip_same && (!floe_vector_is_valid(w, c) || w->v.i64[c] <= m->previous);
}

/*
 * ---- which changes bronze has: the touched units' keys read against the changes ----
 *
 * Read in two parts of about equal rows on two threads (bronze_load_threads: with more than two
 * cores or FLOE_LOAD_THREADS=2; else one part, inline — on two cores the source's count of the
 * same moment, and its parallel workers, keep both busy and a second thread only adds CPU). Each
 * part scans its units' keys (no other column), marks the changes it holds (a key lives in one
 * unit, so the parts mark different changes), notes the positions it replaces or deletes, the
 * changes that may be re-read rows, and keeps its keys; joined in unit order after, with the
 * order check across the boundary; then compare_rereads reads those rows' watermarks.
 */
typedef struct existing_part {
	merge *m;
	floe_arena *a;                 /* the part's own while it runs on a thread */
	const floe_iceberg_data_file **files;
	const bronze_group **groups;
	const size_t *unit_of;         /* per file: its unit */
	size_t n;
	size_t keep_max;               /* bytes of kept keys */
	reread *rereads;               /* changes bronze has that may be re-read rows (the watermark to compare) */
	size_t n_rereads, cap_rereads;
	kept_keys kept;
	floe_iceberg_position_delete *pdel;
	size_t n_pdel, cap_pdel;
	int64_t deleted;
	const char *full;
	key_order first, last;         /* its first key; its last */
	bool any;
	int rc;
	bool take_error;               /* parts after the first: the error moves to the caller's chain at the join */
	floe_error err;
	pthread_t thread;
} existing_part;

/* Merge-on-read: the scan's current row, whose key is `row`'s, is replaced or deleted. */
static void part_mark(existing_part *p, const bronze_scan *s, int64_t row)
{
	if (!p->m->l->mor)
		return;
	floe_iceberg_position_delete *d = FLOE_ARENA_PUSH(p->a, p->pdel, p->n_pdel, p->cap_pdel);
	bronze_scan_position(s, &d->path, &d->pos);
	d->row = row;
}

/*
 * The first row of the scan's batch from row `from` whose key may be change c's or deleted key d's:
 * the rows before it come before both (a binary search — the batch is in key order, which the
 * caller checks row by row all the same); s->rows when no change or delete is left.
 */
static size_t next_hit(const merge *m, const bronze_scan *s, floe_vector *const *keys, size_t from, size_t c, size_t d)
{
	bool chg = c < m->n_chg, del = m->l->mor && d < m->n_del;
	size_t lo = from, hi = s->rows;
	if (!chg && !del)
		return s->rows;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if ((!chg || bronze_key_cmp(m->k, keys, mid, m->chg_keys, c) < 0) &&
		    (!del || bronze_key_cmp(m->k, keys, mid, m->del_keys, d) < 0))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int part_read(existing_part *p)
{
	merge *m = p->m;
	bronze_scan s;
	size_t c = 0, d = 0, hit = 0;
	int rc;
	floe_vector *keys[64];
	size_t want[64];
	memcpy(want, m->k->col, m->k->n * sizeof(size_t));
	order_init(&p->first, m, p->a);
	order_init(&p->last, m, p->a);
	bronze_scan_init(&s, p->a, m->l->table, &m->l->cols, p->files, p->n, want, m->k->n);
	bronze_scan_groups(&s, p->groups, m->k);
	while ((rc = bronze_scan_next(&s)) > 0) {
		for (size_t i = 0; i < m->k->n; i++)
			keys[i] = &s.vec[i];
		if (s.row == 0) {
			if (!p->any)
				order_next(&p->first, m->k, keys, 0);
			p->any = true;
			if (!order_batch(&p->last, m->k, keys, s.rows)) {
				p->full = "loaded in full: the data files are not in key order";
				break;
			}
			keep_batch(&p->kept, m, &s, p->keep_max); /* delete detection's sub-ranges diff against these */
			hit = next_hit(m, &s, keys, 0, c, d);
		}
		if (s.row < hit) { /* no change's key, nor a deleted one, before row `hit`: on to it (or the next batch) */
			s.row = hit - 1;
			continue;
		}
		int cmp = -1;
		while (c < m->n_chg && (cmp = bronze_key_cmp(m->k, m->chg_keys, c, keys, s.row)) < 0)
			c++;
		if (c < m->n_chg && cmp == 0) {
			m->exists[c] = true;
			if (may_be_reread(m, c)) /* merge-on-read only: its mark says where bronze's row is */
				*FLOE_ARENA_PUSH(p->a, p->rereads, p->n_rereads, p->cap_rereads) =
					(reread){ .change = c, .pdel = p->n_pdel };
			part_mark(p, &s, ROW_OF_CHANGE(c)); /* merge-on-read: the old version goes (compare_rereads keeps a re-read row the same) */
		} else if (m->n_del && in_deletes(m, &d, keys, s.row)) {
			p->deleted++;
			part_mark(p, &s, ROW_OF_DELETE(d));
		}
		hit = next_hit(m, &s, keys, s.row + 1, c, d);
	}
	bronze_scan_close(&s);
	return rc < 0 ? -1 : 0;
}

/* A part read; its error taken off the thread (part 0's stays on the caller's). */
static void *part_thread(void *arg)
{
	existing_part *p = arg;
	if ((p->rc = part_read(p)) < 0 && p->take_error)
		floe_error_take(&p->err);
	return NULL;
}

/* The rows a unit holds (a merge-on-read unit: its files'). */
static int64_t unit_rows(const merge *m, size_t f)
{
	if (!m->groups || !m->groups[f])
		return m->files[f]->record_count;
	int64_t rows = 0;
	for (size_t i = 0; i < m->groups[f]->n; i++)
		rows += m->groups[f]->members[i]->file.record_count;
	return rows;
}

/* Part p's result into the merge (parts in unit order); -1 on its error. */
static int part_join(merge *m, existing_part *parts, size_t p, bool keep, reread **rereads, size_t *n_rereads,
		     size_t *cap_rereads)
{
	existing_part *q = &parts[p];
	if (q->rc < 0)
		return -1;
	if (!m->full)
		m->full = q->full;
	if (p > 0 && q->any && parts[p - 1].any && !m->full &&
	    bronze_key_cmp(m->k, parts[p - 1].last.prev_keys, 0, q->first.prev_keys, 0) >= 0)
		m->full = "loaded in full: the data files are not in key order";
	for (size_t i = 0; i < q->n_rereads; i++) {
		q->rereads[i].pdel += m->n_pdel;
		*FLOE_ARENA_PUSH(m->a, *rereads, *n_rereads, *cap_rereads) = q->rereads[i];
	}
	for (size_t i = 0; i < q->n_pdel; i++)
		*FLOE_ARENA_PUSH(m->a, m->pdel, m->n_pdel, m->cap_pdel) = q->pdel[i];
	m->deleted += q->deleted;
	if (keep && p > 0)
		kept_join(&m->kept, &q->kept, m);
	return 0;
}

/* A re-read row's place in bronze: the data file and position the key pass found it at. */
typedef struct reread_at {
	const char *path;
	int64_t pos;
	size_t r;                      /* its reread */
} reread_at;

static int by_file_and_position(const void *x, const void *y)
{
	const reread_at *a = x, *b = y;
	int c = a->path == b->path ? 0 : strcmp(a->path, b->path);
	return c ? c : (a->pos > b->pos) - (a->pos < b->pos);
}

/* The live data file at `path`: a unit's, or a member of its group; NULL when none is. */
static const floe_iceberg_data_file *data_file_at(const merge *m, const char *path)
{
	for (size_t f = 0; f < m->map.n_files; f++) {
		const bronze_group *g = m->groups ? m->groups[f] : NULL;
		if (!g && strcmp(m->files[f]->path, path) == 0)
			return m->files[f];
		for (size_t i = 0; g && i < g->n; i++)
			if (strcmp(g->members[i]->file.path, path) == 0)
				return &g->members[i]->file;
	}
	return NULL;
}

/*
 * The watermark column of `file` (its row groups in turn, no key read) at the positions of
 * at[0..n) (ascending), against the re-read changes': `same` where equal, and then that row's
 * position delete dropped (path NULL: the row stays).
 */
static int compare_in_file(merge *m, const floe_iceberg_data_file *file, const reread *rr, const reread_at *at,
			   size_t n, size_t *dropped)
{
	size_t want = (size_t)m->k->watermark, i = 0;
	bronze_scan s;
	int rc = 0;
	bronze_scan_init(&s, m->a, m->l->table, &m->l->cols, &file, 1, &want, 1);
	while (i < n && (rc = bronze_scan_next(&s)) > 0) {
		const char *path;
		int64_t first;
		bronze_scan_position(&s, &path, &first); /* the row group's first row */
		for (; i < n && at[i].pos < first + (int64_t)s.rows; i++) {
			size_t c = rr[at[i].r].change;
			if (at[i].pos < first)
				continue; /* not a row of the file: rewritten as a change */
			m->same[c] = floe_vector_compare_rows(&s.vec[0], (size_t)(at[i].pos - first), &m->chg[m->k->watermark], c) == 0;
			if (m->same[c]) {
				m->pdel[rr[at[i].r].pdel].path = NULL;
				(*dropped)++;
			}
		}
		s.row = s.rows - 1; /* the rest of the row group: the next call moves past it */
	}
	bronze_scan_close(&s);
	return rc < 0 ? -1 : 0;
}

/*
 * The watermarks of the changes that may be re-read rows, against bronze's: read at the file and
 * position the key pass found each at, in just the data files that hold one (a load after a
 * load: mostly the delta files that load wrote, a few thousand rows). A change whose row bronze
 * has with the same watermark is unchanged (`same`): it is not written, and its row not marked
 * deleted.
 */
static int compare_rereads(merge *m, const reread *rr, size_t n)
{
	reread_at *at = floe_arena_alloc(m->a, (n + 1) * sizeof(*at));
	size_t dropped = 0;
	for (size_t r = 0; r < n; r++)
		at[r] = (reread_at){ .path = m->pdel[rr[r].pdel].path, .pos = m->pdel[rr[r].pdel].pos, .r = r };
	qsort(at, n, sizeof(*at), by_file_and_position);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && strcmp(at[j].path, at[i].path) == 0; j++)
			;
		const floe_iceberg_data_file *file = data_file_at(m, at[i].path);
		if (file && compare_in_file(m, file, rr, at + i, j - i, &dropped) < 0)
			return -1; /* no file: not the same (rewritten) */
	}
	size_t kept = 0;
	for (size_t d = 0; dropped && d < m->n_pdel; d++)
		if (m->pdel[d].path)
			m->pdel[kept++] = m->pdel[d];
	m->n_pdel -= dropped;
	return 0;
}

/*
 * Merge-on-read with key files (lakekeys.c): each change's row (and each given deleted key's) by
 * binary search in its unit's members, no key column read; delete detection then counts and
 * lists the touched units' keys from the same files (subs_expect, diff_kept).
 */
static int existing_by_keyfiles(merge *m)
{
	reread *rereads = NULL;
	size_t n_rereads = 0, cap_rereads = 0;
	floe_iceberg_position_delete p;
	bool twice = false, two = false;
	for (size_t c = 0; c < m->n_chg && !twice; c++, twice |= two) {
		size_t f = m->chg_file[c];
		if (f == BRONZE_NO_FILE || !m->map.touched[f] ||
		    !(m->exists[c] = bronze_lakekeys_find(m->lake, f, m->chg_keys, c, &p.path, &p.pos, &two)))
			continue;
		if (may_be_reread(m, c)) /* its mark says where bronze's row is */
			*FLOE_ARENA_PUSH(m->a, rereads, n_rereads, cap_rereads) = (reread){ .change = c, .pdel = m->n_pdel };
		p.row = ROW_OF_CHANGE(c);
		*FLOE_ARENA_PUSH(m->a, m->pdel, m->n_pdel, m->cap_pdel) = p;
	}
	for (size_t d = 0; d < m->n_del && !twice; d++, twice |= two) {
		if (!bronze_lakekeys_find(m->lake, m->del_file[d], m->del_keys, d, &p.path, &p.pos, &two))
			continue;
		m->deleted++;
		p.row = ROW_OF_DELETE(d);
		*FLOE_ARENA_PUSH(m->a, m->pdel, m->n_pdel, m->cap_pdel) = p;
	}
	if (twice) {
		m->full = "loaded in full: the data files are not in key order (a key is live in two of them)";
		return 0;
	}
	return n_rereads ? compare_rereads(m, rereads, n_rereads) : 0;
}

/* Which changes have a key bronze has, and (`keep`) the touched units' keys kept in m->kept. */
static int find_existing(merge *m, bool keep)
{
	existing_part parts[2];
	const floe_iceberg_data_file **files = floe_arena_alloc(m->a, (m->map.n_files + 1) * sizeof(*files));
	const bronze_group **groups = floe_arena_alloc(m->a, (m->map.n_files + 1) * sizeof(*groups));
	size_t *unit_of = floe_arena_alloc(m->a, (m->map.n_files + 1) * sizeof(size_t));
	size_t n = 0, n_parts = 1;
	bool error = false;
	int64_t rows = 0, half = 0, part_rows[2] = { 0, 0 };
	int rc;
	for (size_t f = 0; f < m->map.n_files; f++)
		if (m->map.touched[f]) {
			groups[n] = m->groups ? m->groups[f] : NULL;
			unit_of[n] = f;
			files[n++] = m->files[f];
			rows += unit_rows(m, f);
		}
	m->exists = floe_arena_alloc(m->a, (m->n_chg + 1) * sizeof(bool));
	m->same = floe_arena_alloc(m->a, (m->n_chg + 1) * sizeof(bool));
	bronze_posindex *ix = m->l->mor && !m->compacting ? m->l->job->index : NULL;
	if (ix && (rc = bronze_posindex_ready(ix, m->l, m->files, m->groups, m->map.n_files)) != 0) {
		if (rc > 0)
			existing_by_index(m, ix);
		return rc < 0 ? -1 : 0;
	}
	if (m->l->mor && !m->compacting && m->groups &&
	    (rc = bronze_lakekeys_open(&m->lake, m->l, m->files, m->groups, m->map.touched, m->map.n_files,
				       m->chg_keys)) != 0)
		return rc < 0 ? -1 : existing_by_keyfiles(m);
	/* the parts: units [0, cut) and [cut, n), about half the rows each */
	size_t cut = n;
	if (n >= 2 && bronze_load_threads() > 1) {
		for (cut = 0; cut + 1 < n && half < rows / 2; cut++)
			half += unit_rows(m, unit_of[cut]);
		cut = cut ? cut : 1;
		n_parts = 2;
	}
	part_rows[0] = n_parts == 2 ? half : rows;
	part_rows[1] = rows - part_rows[0];
	for (size_t p = 0; p < n_parts; p++) {
		size_t from = p ? cut : 0, to = p ? n : cut;
		existing_part *q = &parts[p];
		*q = (existing_part){ .m = m, .a = p == 0 ? m->a : floe_arena_new(), .files = files + from,
				      .groups = groups + from, .unit_of = unit_of + from, .n = to - from,
				      .keep_max = KEEP_MAX_BYTES / n_parts, .take_error = p > 0 };
		if (keep)
			kept_start(&q->kept, m, m->a, part_rows[p], unit_of + from);
	}
	bool threaded[2] = { false, false };
	for (size_t p = 1; p < n_parts; p++)
		threaded[p] = pthread_create(&parts[p].thread, NULL, part_thread, &parts[p]) == 0;
	for (size_t p = 0; p < n_parts; p++)
		if (!threaded[p]) /* part 0, or a thread that could not start: inline */
			part_thread(&parts[p]);
	for (size_t p = 1; p < n_parts; p++)
		if (threaded[p])
			pthread_join(parts[p].thread, NULL);
	if (keep)
		m->kept = parts[0].kept;
	reread *rereads = NULL;
	size_t n_rereads = 0, cap_rereads = 0;
	for (size_t p = 0; p < n_parts; p++) {
		if (!error && part_join(m, parts, p, keep, &rereads, &n_rereads, &cap_rereads) < 0) {
			error = true;
			if (p > 0)
				floe_error_give(&parts[p].err);
		}
		floe_error_discard(&parts[p].err);
	}
	for (size_t p = 0; p < n_parts; p++) { /* after every join: a join reads the part before */
		if (keep && p > 0)
			kept_drop(&parts[p].kept, m);
		order_free(&parts[p].first, m->k);
		order_free(&parts[p].last, m->k);
		if (p > 0)
			floe_arena_free(parts[p].a);
	}
	m->kept.on = false;
	if (!error && !m->full && n_rereads && compare_rereads(m, rereads, n_rereads) < 0)
		error = true;
	return error ? -1 : 0;
}

/* Range r's bounds: the lower bounds of its first file and of the next range's (SIZE_MAX: none). */
static key_bounds range_bounds(const merge *m, size_t r)
{
	key_bounds b = { 0 };
	if (r != SIZE_MAX && r > 0) {
		b.lo = &m->map.lower;
		b.lo_row = m->map.range_start[r];
	}
	if (r != SIZE_MAX && r + 1 < m->map.n_ranges) {
		b.hi = &m->map.lower;
		b.hi_row = m->map.range_start[r + 1];
	}
	return b;
}

/* " COLLATE "C"" for a text first key column (bounds compare as its files are sorted), else "". */
static const char *first_key_collation(const merge *m)
{
	return m->l->cols.copy[m->k->col[0]].vec == FLOE_VEC_STRING ? " COLLATE \"C\"" : "";
}

/* The first key column's bounds as a condition after `first` ("" when unbounded); text compares COLLATE "C". */
static int bounds_cond(merge *m, const key_bounds *b, const char *first, floe_buf *out)
{
	const floe_lock_column *k0 = &m->l->job->table->columns[m->k->col[0]];
	const char *collate = first_key_collation(m);
	const char *sep = first;
	for (int side = 0; side < 2; side++) {
		const floe_vector *bound = side == 0 ? b->lo : b->hi;
		if (!bound)
			continue;
		floe_buf value = FLOE_BUF_INIT;
		floe_buf_puts(out, sep);
		floe_buf_puts(out, "floe_src.");
		sep = " AND ";
		int rc = floe_pg_quote_ident(out, m->l->pg, k0->name) < 0 ||
			 floe_pg_value_text(&value, bound, side == 0 ? b->lo_row : b->hi_row) < 0;
		if (!rc) {
			floe_buf_printf(out, "%s %s ", collate, side == 0 ? ">=" : "<");
			rc = floe_pg_quote_literal(out, m->l->pg, floe_buf_cstr(&value)) < 0;
		}
		floe_buf_free(&value);
		if (rc)
			return -1;
	}
	return 0;
}

static int bounds_where(merge *m, const key_bounds *b, floe_buf *out)
{
	return bounds_cond(m, b, " WHERE ", out);
}

/* The first key column's type as the source names it (format_type), asked once per load. */
static const char *first_key_type(merge *m)
{
	const char **types = NULL;
	if (!m->key_type0 && key_types(m, &types) == 0)
		m->key_type0 = types[0];
	return m->key_type0;
}

/* Whether keys of vector type t are numbers in their order (key_number): uuid and integers. */
static bool numeric_key(floe_vec_type t)
{
	return t == FLOE_VEC_UUID || t == FLOE_VEC_LONG || t == FLOE_VEC_INT;
}

/* A key of the first column as an unsigned 128-bit number in its order (uuid: big-endian; integers offset by 2^63). */
static unsigned __int128 key_number(const floe_vector *v, size_t row)
{
	unsigned __int128 n = 0;
	if (v->type == FLOE_VEC_UUID)
		for (int i = 0; i < 16; i++)
			n = n << 8 | v->v.fixed[row * 16 + (size_t)i];
	else
		n = (uint64_t)(v->type == FLOE_VEC_LONG ? v->v.i64[row] : v->v.i32[row]) ^ ((uint64_t)1 << 63);
	return n;
}

static void append_key_number(floe_vector *v, unsigned __int128 n)
{
	uint8_t b[16];
	if (v->type == FLOE_VEC_UUID) {
		for (int i = 15; i >= 0; i--, n >>= 8)
			b[i] = (uint8_t)n;
		floe_vector_append_fixed(v, b);
	} else if (v->type == FLOE_VEC_LONG) {
		floe_vector_append_i64(v, (int64_t)((uint64_t)n ^ ((uint64_t)1 << 63)));
	} else {
		floe_vector_append_i32(v, (int32_t)(int64_t)((uint64_t)n ^ ((uint64_t)1 << 63)));
	}
}

/* Whether piece b has both bounds (a row of bounds_relation). */
static bool bounded(const key_bounds *b)
{
	return b->lo && b->hi;
}

/* Whether pieces b[0..n) labelled label[] meet end to end, labels one after another, over a fixed-width key. */
static bool bounds_chained(const merge *m, const key_bounds *b, const size_t *label, size_t n)
{
	if (n < 2 || !numeric_key(m->l->cols.copy[m->k->col[0]].vec))
		return false;
	for (size_t i = 0; i + 1 < n; i++)
		if ((label && label[i + 1] != label[i] + 1) ||
		    floe_vector_compare_rows(b[i].hi, b[i].hi_row, b[i + 1].lo, b[i + 1].lo_row) != 0)
			return false;
	return true;
}

/* The chained pieces' relation (bounds_chained): one array of the n + 1 bounds, subscripted. */
static int chained_relation(merge *m, floe_buf *out, const char *type, const key_bounds *b, const size_t *label, size_t n)
{
	const char **items = floe_arena_alloc(m->a, (n + 2) * sizeof(char *));
	for (size_t i = 0; i <= n; i++) {
		floe_buf v = FLOE_BUF_INIT;
		int rc = i < n ? floe_pg_value_text(&v, b[i].lo, b[i].lo_row) : floe_pg_value_text(&v, b[n - 1].hi, b[n - 1].hi_row);
		items[i] = rc == 0 ? floe_arena_strdup(m->a, floe_buf_cstr(&v)) : NULL;
		floe_buf_free(&v);
		if (!items[i])
			return -1;
	}
	floe_buf_printf(out, "(SELECT %zu + floe_g.i - 1 AS i, floe_a.a[floe_g.i] AS lo, floe_a.a[floe_g.i + 1] AS hi FROM (SELECT ",
			label ? label[0] : 0);
	if (floe_pg_quote_literal(out, m->l->pg, floe_pg_array_literal(m->a, items, n + 1)) < 0)
		return -1;
	floe_buf_printf(out, "::%s[] AS a) AS floe_a, pg_catalog.generate_series(1, %zu) AS floe_g(i)) AS floe_r", type, n);
	return 0;
}

/*
 * Pieces b[i] (both sides bounded) labelled label[i] (NULL: i), as a relation of typed arrays unnested together:
 *   ROWS FROM (unnest('{…}'::int8[]), unnest('{…}'::uuid[]), unnest('{…}'::uuid[])) AS floe_r(i, lo, hi)
 * The query's size grows with the pieces, its plan does not: a UNION of a thousand pieces' scans
 * cost 90 ms to parse and plan, as much as counting their 2 M keys. Pieces end to end with labels
 * one after another (the usual case) and a fixed-width key go as one array of their n + 1 bounds,
 * subscripted (O(1) a row for fixed-width elements, not for text):
 *   (SELECT first + g.i - 1 AS i, a.a[g.i] AS lo, a.a[g.i + 1] AS hi FROM (SELECT '{…}'::uuid[] AS a) AS a,
 *    generate_series(1, n) AS g(i)) AS floe_r
 * — half the values for the server to parse (4540 pieces: 118 → 112 ms, parse and count) and floe to print.
 */
static int bounds_relation(merge *m, floe_buf *out, const key_bounds *b, const size_t *label, size_t n)
{
	const char *type = first_key_type(m);
	if (!type)
		return -1;
	if (bounds_chained(m, b, label, n))
		return chained_relation(m, out, type, b, label, n);
	const char **items = floe_arena_alloc(m->a, (n + 1) * sizeof(char *));
	floe_buf_puts(out, "ROWS FROM (");
	for (int side = -1; side < 2; side++) {
		for (size_t i = 0; i < n; i++) {
			floe_buf v = FLOE_BUF_INIT;
			int rc = side < 0 ? (floe_buf_printf(&v, "%zu", label ? label[i] : i), 0)
				 : floe_pg_value_text(&v, side ? b[i].hi : b[i].lo, side ? b[i].hi_row : b[i].lo_row);
			items[i] = rc == 0 ? floe_arena_strdup(m->a, floe_buf_cstr(&v)) : NULL;
			floe_buf_free(&v);
			if (!items[i])
				return -1;
		}
		floe_buf_puts(out, side < 0 ? "pg_catalog.unnest(" : ", pg_catalog.unnest(");
		if (floe_pg_quote_literal(out, m->l->pg, floe_pg_array_literal(m->a, items, n)) < 0)
			return -1;
		floe_buf_printf(out, "::%s[])", side < 0 ? "int8" : type);
	}
	floe_buf_puts(out, ") AS floe_r(i, lo, hi)");
	return 0;
}

/* " WHERE floe_src.k >= floe_r.lo AND floe_src.k < floe_r.hi" (text keys compared COLLATE "C"). */
static int relation_where(merge *m, floe_buf *out)
{
	const char *collate = first_key_collation(m);
	floe_buf k = FLOE_BUF_INIT;
	int rc = floe_pg_quote_ident(&k, m->l->pg, m->l->job->table->columns[m->k->col[0]].name);
	if (rc == 0)
		floe_buf_printf(out, " WHERE floe_src.%s%s >= floe_r.lo AND floe_src.%s%s < floe_r.hi", floe_buf_cstr(&k),
				collate, floe_buf_cstr(&k), collate);
	floe_buf_free(&k);
	return rc;
}

/* The ranges that are not split, as one WHERE clause: their runs of adjacent ranges OR-ed ("" for all). */
static int rest_where(merge *m, floe_buf *out)
{
	const char *sep = " WHERE (";
	for (size_t i = 0; i < m->n_subs; i++) {
		if (m->split[m->subs[i].range])
			continue;
		key_bounds b = m->subs[i].b;
		for (; i + 1 < m->n_subs && !m->split[m->subs[i + 1].range]; i++) {
			b.hi = m->subs[i + 1].b.hi;
			b.hi_row = m->subs[i + 1].b.hi_row;
		}
		if (!b.lo && !b.hi)
			return 0; /* the whole table */
		floe_buf_puts(out, sep);
		if (bounds_cond(m, &b, "", out) < 0)
			return -1;
		floe_buf_putc(out, ')');
		sep = " OR (";
	}
	return 0;
}

/* `SELECT <label>, count(*)` of the source rows of sub-range `label` (n_subs: of the ranges not split, or of the
 * whole source when rest_whole). */
static int count_select(merge *m, floe_buf *out, size_t label)
{
	floe_buf where = FLOE_BUF_INIT;
	int rc = label < m->n_subs ? bounds_where(m, &m->subs[label].b, &where) : m->rest_whole ? 0 : rest_where(m, &where);
	if (rc == 0)
		floe_buf_printf(out, "%sSELECT %zu, count(*) FROM (\n%s\n) AS floe_src%s", out->len ? "\nUNION ALL " : "",
				label, m->l->sql, floe_buf_cstr(&where));
	floe_buf_free(&where);
	return rc;
}

/* `SELECT i, count(*)` per piece b[i] labelled label[i]: one subquery run per row of the pieces' relation. */
static int count_pieces_select(merge *m, floe_buf *out, const key_bounds *b, const size_t *label, size_t n)
{
	floe_buf_printf(out, "%sSELECT floe_r.i, (SELECT count(*) FROM (\n%s\n) AS floe_src", out->len ? "\nUNION ALL " : "",
			m->l->sql);
	int rc = relation_where(m, out);
	floe_buf_puts(out, ") FROM ");
	return rc ? rc : bounds_relation(m, out, b, label, n);
}

enum { COUNT_PIECES = 1, COUNT_RANGES = 2, COUNT_REST = 4 };

/*
 * The count's second connection, opened as the merge starts when the count may well take two
 * (a table of COUNT_SPLIT_ROWS rows or more, two cores; count_on_two decides once the pieces are
 * planned): its connecting, authenticating and snapshot import (10–25 ms) overlap reading the
 * changes instead of delaying the later half of the count. The count's helper takes it; unused,
 * it is closed at the merge's end.
 */
struct standby {
	const floe_config *config;
	const char *exported;
	floe_pg *pg;
	int rc;
	floe_error err;
	pthread_t thread;
	bool taken;                    /* by a count_helper, whose thread joins it */
};

static void *standby_run(void *arg)
{
	standby *sb = arg;
	if ((sb->rc = bronze_snapshot_connect(&sb->pg, sb->config, sb->exported)) < 0)
		floe_error_take(&sb->err);
	return NULL;
}

/* FLOE_COUNT_CONNECTIONS: 1 or 2 connections for the count, forced; 0: floe decides. */
static int count_connections_forced(void)
{
	const char *env = getenv("FLOE_COUNT_CONNECTIONS");
	return env && (strcmp(env, "1") == 0 || strcmp(env, "2") == 0) ? env[0] - '0' : 0;
}

static void standby_start(merge *m)
{
	int forced = count_connections_forced();
	if (!m->l->exported || forced == 1 || m->full ||
	    (forced != 2 && (sysconf(_SC_NPROCESSORS_ONLN) < 2 || bronze_table_rows(m->l->table) < COUNT_SPLIT_ROWS)))
		return;
	standby *sb = floe_arena_alloc(m->a, sizeof(*sb));
	*sb = (standby){ .config = m->l->job->config, .exported = m->l->exported };
	if (pthread_create(&sb->thread, NULL, standby_run, sb) == 0)
		m->standby = sb; /* else the helper connects when it starts */
}

/* A standby no count took: joined and closed. */
static void standby_end(merge *m)
{
	standby *sb = m->standby;
	m->standby = NULL;
	if (!sb || sb->taken)
		return;
	pthread_join(sb->thread, NULL);
	floe_pg_close(sb->pg);
	floe_error_discard(&sb->err);
}

/*
 * A second connection at the load's exported snapshot counting the later half of many pieces,
 * on a thread of its own from connecting (or taking the standby's) to sending, so that the count —
 * one index-only pass over the whole key of a table whose changes touch every range, the steady
 * state's critical path — takes two backends.
 * Collected by counts_read; when it could not connect or import the snapshot (a connection limit,
 * say), its half is counted on the load's connection after the first, and the load goes on.
 */
typedef struct count_helper {
	const floe_config *config;
	const char *exported;
	char *sql;                     /* its count (malloc'd in the caller's thread: quoting uses the load's connection) */
	standby *standby;              /* the connection opened early, when there is one */
	floe_pg *pg;
	floe_pg_pending *pending;
	int rc;
	floe_error err;
	pthread_t thread;
	bool running;
} count_helper;

static void *helper_run(void *arg)
{
	count_helper *h = arg;
	standby *sb = h->standby;
	bool connected;
	if (sb) {
		pthread_join(sb->thread, NULL);
		h->pg = sb->pg;
		sb->pg = NULL;
		if (!(connected = sb->rc == 0))
			floe_error_give(&sb->err); /* its error: this thread's, taken below */
	} else {
		connected = bronze_snapshot_connect(&h->pg, h->config, h->exported) == 0;
	}
	h->rc = connected && floe_pg_exec(h->pg, "SET LOCAL jit = off") == 0 && floe_pg_send(&h->pending, h->pg, h->sql) == 0
		? 0 : -1;
	if (h->rc < 0)
		floe_error_take(&h->err);
	return NULL;
}

/* Whether n bounded pieces are counted on two connections (count_helper): FLOE_COUNT_CONNECTIONS=1|2
 * says so; else when the machine has a second core and the split ranges the pieces cover hold a
 * million rows or more (their count then takes far longer than a connection costs: 2 M uuid keys
 * in 256 pieces, the first load after a full one, counted 0.17 s on one backend). */
static bool count_on_two(const merge *m, size_t n)
{
	int forced = count_connections_forced();
	if (!m->l->exported || n < 2 * PIECES_AS_ARRAY)
		return false;
	if (forced)
		return forced == 2;
	return sysconf(_SC_NPROCESSORS_ONLN) >= 2 && m->split_rows >= COUNT_SPLIT_ROWS;
}

/* Whether every unit of range r is touched (its keys are all read by find_existing); sums their rows. */
static bool range_touched(const merge *m, size_t r, int64_t *rows)
{
	bool all = true;
	for (size_t f = m->map.range_start[r]; f < m->map.range_start[r + 1]; f++) {
		all &= m->map.touched[f];
		*rows += m->map.touched[f] ? m->files[f]->record_count : 0;
	}
	return all;
}

/*
 * Where pieces b[0..n) (sub-ranges label[], in key order) cut into two halves of about equal work:
 * each piece's share of its range's rows by its width of the range's keys (a uuid or integer first
 * key; any other, an equal share per piece), and PIECE_ROWS rows' worth a piece. The pieces follow the changes, not the rows — the
 * shop's progressed orders, picked in key order, made the lower half of 9000 pieces hold 0.72 M
 * rows and the upper 1.26 M — and the count takes as long as its larger half.
 */
static size_t balanced_half(const merge *m, const size_t *label, size_t n, double *above, double *all)
{
	const bronze_file_map *map = &m->map;
	double *share = floe_arena_alloc(m->a, (n + 1) * sizeof(double)), total = 0, sum = 0;
	bool numeric = numeric_key(map->lower.type);
	for (size_t i = 0, j; i < n; i = j) {
		size_t r = m->subs[label[i]].range, first = map->range_start[r], last = map->range_start[r + 1] - 1;
		int64_t rows = 0;
		range_touched(m, r, &rows); /* a split range: every file touched */
		for (j = i; j < n && m->subs[label[j]].range == r; j++)
			;
		double lo = numeric ? (double)key_number(&map->lower, first) : 0;
		double width = numeric ? (double)key_number(&map->upper, last) - lo : 0;
		for (size_t k = i; k < j; k++) {
			const key_bounds *b = &m->subs[label[k]].b;
			double w = width > 0 ? ((double)key_number(b->hi, b->hi_row) - (double)key_number(b->lo, b->lo_row)) / width
					     : 1.0 / (double)(j - i);
			share[k] = (double)rows * (w < 0 ? 0 : w > 1 ? 1 : w);
			total += share[k];
		}
	}
	*all = total;
	/* halves of equal work: a piece's own (its subquery and index descent, PIECE_ROWS rows' worth) too —
	   3001 pieces and 5732 over the same rows took 70 and 87 ms */
	double work = total + (double)n * PIECE_ROWS;
	for (size_t i = 0; total > 0 && i + 1 < n; i++)
		if ((sum += share[i]) + (double)(i + 1) * PIECE_ROWS >= work / 2) {
			*above = total - sum;
			return i + 1;
		}
	*above = *all = 0; /* no estimate: half the pieces */
	return n / 2;
}

/* The later half of pieces b[0..n) (labels label[]) to the helper; the first half's count stays for the caller. */
static int helper_start(merge *m, count_helper *h, const key_bounds *b, const size_t *label, size_t n, size_t half)
{
	floe_buf sql = FLOE_BUF_INIT;
	if (count_pieces_select(m, &sql, b + half, label + half, n - half) < 0) {
		floe_buf_free(&sql);
		return -1;
	}
	*h = (count_helper){ .config = m->l->job->config, .exported = m->l->exported, .sql = floe_xstrndup(floe_buf_cstr(&sql), sql.len) };
	floe_buf_free(&sql);
	if (m->standby && !m->standby->taken) {
		h->standby = m->standby;
		m->standby->taken = true;
	}
	h->running = pthread_create(&h->thread, NULL, helper_run, h) == 0;
	if (!h->running) /* no thread: connect and send here (its error is the helper's, as on a thread) */
		helper_run(h);
	return 0;
}

/* The helper's thread joined and its count's leftovers freed; its connection stays open (refine_pieces counts on it). */
static void helper_join(count_helper *h)
{
	if (h->running)
		pthread_join(h->thread, NULL);
	h->running = false;
	floe_pg_pending_free(h->pending);
	h->pending = NULL;
	floe_error_discard(&h->err);
	free(h->sql);
	h->sql = NULL;
}

/* The helper joined and its connection closed (its transaction with it); its error dropped. */
static void helper_end(count_helper *h)
{
	helper_join(h);
	floe_pg_close(h->pg);
	h->pg = NULL;
}

/*
 * The source's row counts in one query, a UNION ALL of key-range counts: `what` says which —
 * COUNT_PIECES the split ranges' sub-ranges (PIECES_AS_ARRAY or more bounded ones as one count
 * per row of their bounds' relation, its later half on a second connection when count_on_two),
 * COUNT_RANGES the other ranges one by one,
 * COUNT_REST those as one count. Small ranges run side by side as a Parallel Append of index-only
 * scans (measured: 20 ranges of 5 M rows in 0.2 s, where 20 queries one after the other took
 * 0.55 s). The rest, most of a table whose changes cluster, is counted as the whole source
 * (rest_whole: a count(*) without a condition, a parallel seq scan that evaluates nothing per
 * row, the cheapest pass over a table — 0.6 of the same scan filtered by key, or of its ranges'
 * index-only counts, on the bench's 5 M events) less the pieces of the split ranges; when the
 * split ranges hold most rows, by its bounds. Sent to run while the touched files' keys are read
 * (find_deletes); counts_read takes its result.
 */
static int counts_send(merge *m, unsigned what, floe_pg_pending **out, count_helper *h)
{
	floe_buf sql = FLOE_BUF_INIT;
	int error = -1;
	bool rest = false;
	size_t n_arr = 0, *label = floe_arena_alloc(m->a, (m->n_subs + 1) * sizeof(size_t));
	key_bounds *b = floe_arena_alloc(m->a, (m->n_subs + 1) * sizeof(key_bounds));
	for (size_t i = 0; i < m->n_subs; i++)
		if ((what & COUNT_PIECES) && m->split[m->subs[i].range] && bounded(&m->subs[i].b)) {
			label[n_arr] = i;
			b[n_arr++] = m->subs[i].b;
		}
	n_arr = n_arr >= PIECES_AS_ARRAY ? n_arr : 0;
	double above = 0, all = 0;
	size_t mine = n_arr && count_on_two(m, n_arr) ? balanced_half(m, label, n_arr, &above, &all) : n_arr;
	if (mine < n_arr && helper_start(m, h, b, label, n_arr, mine) < 0)
		goto cleanup;
	if (mine < n_arr) /* the rows, not a key: a key column may be one a person asked to mask */
		floe_log_info("%s: pieces %zu to %zu of %zu counted on a second connection (about %.0f of their %.0f rows)",
			      m->l->job->table->bronze, mine + 1, n_arr, n_arr, above, all);
	if (mine && count_pieces_select(m, &sql, b, label, mine) < 0)
		goto cleanup;
	for (size_t i = 0; i < m->n_subs; i++) {
		bool split = m->split[m->subs[i].range];
		rest |= !split;
		if (n_arr && split && bounded(&m->subs[i].b))
			continue; /* counted above */
		if ((split ? what & COUNT_PIECES : what & COUNT_RANGES) && count_select(m, &sql, i) < 0)
			goto cleanup;
	}
	if (rest && (what & COUNT_REST) && count_select(m, &sql, m->n_subs) < 0)
		goto cleanup;
	error = sql.len ? floe_pg_send(out, m->l->pg, floe_buf_cstr(&sql)) : 0;
cleanup:
	floe_buf_free(&sql);
	return error;
}

/* The rows of a count's result into out[label] (out[n_subs]: the rest's). */
static void counts_take(merge *m, const floe_pg_result *r, int64_t *out)
{
	size_t n = m->n_subs + 1;
	for (int row = 0; r && row < floe_pg_result_rows(r); row++) {
		size_t i = (size_t)floe_pg_result_int(r, row, 0);
		if (i < n)
			out[i] = floe_pg_result_int(r, row, 1);
	}
}

/* The counts of counts_send into out[s] per sub-range (out[n_subs]: the rest's); frees `p` and ends the helper. */
static int counts_read(merge *m, floe_pg_pending *p, count_helper *h, int64_t *out)
{
	floe_pg_result *r = NULL;
	int error = -1;
	int rc = p ? floe_pg_collect(&r, p) : 0; /* frees p */
	if (rc < 0)
		goto cleanup;
	counts_take(m, r, out);
	floe_pg_result_free(r);
	r = NULL;
	if (!h->sql) {
		error = 0;
		goto cleanup;
	}
	if (h->running)
		pthread_join(h->thread, NULL);
	h->running = false;
	if (h->rc == 0) {
		floe_pg_pending *hp = h->pending;
		h->pending = NULL;
		if (floe_pg_collect(&r, hp) < 0)
			goto cleanup;
	} else {
		floe_buf why = FLOE_BUF_INIT;
		floe_error_put_message(&why, &h->err);
		floe_log_info("%s: the second count connection failed (%s): its half is counted on the load's",
			      m->l->job->table->bronze, floe_buf_cstr(&why));
		floe_buf_free(&why);
		floe_pg_close(h->pg); /* nothing more is asked of it */
		h->pg = NULL;
		if (floe_pg_query(&r, m->l->pg, h->sql, 0, NULL) < 0)
			goto cleanup;
	}
	counts_take(m, r, out);
	error = 0;
cleanup:
	floe_pg_result_free(r);
	helper_join(h);
	return error;
}

static int source_counts(merge *m, unsigned what, int64_t *out)
{
	floe_pg_pending *p = NULL;
	count_helper h = { 0 };
	if (counts_send(m, what, &p, &h) < 0) {
		floe_pg_pending_free(p);
		helper_end(&h);
		return -1;
	}
	int rc = counts_read(m, p, &h, out);
	helper_end(&h);
	return rc;
}

/* The source's keys in key order, a batch at a time. */
typedef struct key_stream {
	floe_pg_copy *copy;
	floe_pg_copy_column *cols;
	floe_vector *vec;
	floe_vector *keys[64];
	size_t row, rows;
	bool done;
} key_stream;

static int stream_next(key_stream *ks, size_t nkeys)
{
	if (ks->row + 1 < ks->rows) {
		ks->row++;
		return 1;
	}
	for (size_t i = 0; i < nkeys; i++)
		floe_vector_clear(&ks->vec[i]);
	if (floe_pg_copy_next(ks->copy, ks->vec, BRONZE_BATCH_ROWS, BRONZE_BATCH_BYTES, &ks->rows) < 0)
		return -1;
	ks->row = 0;
	ks->done = ks->rows == 0;
	return ks->done ? 0 : 1;
}

/* The key columns' COPY specs and empty vectors; then start streaming `sql`. */
static int begin_key_stream(key_stream *ks, merge *m, const char *sql)
{
	ks->cols = floe_arena_alloc(m->a, (m->k->n + 1) * sizeof(*ks->cols));
	ks->vec = floe_arena_alloc(m->a, (m->k->n + 1) * sizeof(floe_vector));
	for (size_t i = 0; i < m->k->n; i++) {
		ks->cols[i] = m->l->cols.copy[m->k->col[i]];
		floe_vector_init(&ks->vec[i], ks->cols[i].vec, ks->cols[i].width);
		ks->keys[i] = &ks->vec[i];
	}
	return sql ? floe_pg_copy_begin(&ks->copy, m->l->pg, sql, ks->cols, m->k->n) : -1;
}

static int open_key_stream(key_stream *ks, merge *m, const key_bounds *b)
{
	floe_buf where = FLOE_BUF_INIT;
	const char *cols = bronze_sql_key_columns(m->a, m->l->pg, m->l->job->table, m->k);
	int error = cols && bounds_where(m, b, &where) == 0 &&
			    begin_key_stream(ks, m, wrapped(m, cols, floe_buf_cstr(&where))) == 0
		? 0 : -1;
	floe_buf_free(&where);
	return error;
}

static void close_key_stream(key_stream *ks, size_t nkeys)
{
	floe_pg_copy_free(ks->copy);
	for (size_t i = 0; ks->vec && i < nkeys; i++)
		floe_vector_free(&ks->vec[i]);
}

static void add_delete(merge *m, floe_vector *const *keys, size_t row, size_t file)
{
	if (m->n_del == DELETE_MAX_KEYS) {
		m->full = "loaded in full: more than a million rows were deleted";
		return;
	}
	for (size_t i = 0; i < m->k->n; i++)
		floe_vector_append_row(&m->del[i], keys[i], row);
	*FLOE_ARENA_PUSH(m->a, m->del_file, m->n_del, m->cap_del) = file;
	m->map.touched[file] = true;
}

/* Whether key row `row` of `keys` is among the changes (cursor *c advances). */
static bool in_changes(merge *m, size_t *c, floe_vector *const *keys, size_t row)
{
	while (*c < m->n_chg && bronze_key_cmp(m->k, m->chg_keys, *c, keys, row) < 0)
		(*c)++;
	return *c < m->n_chg && bronze_key_cmp(m->k, m->chg_keys, *c, keys, row) == 0;
}

static void deletes_init(merge *m)
{
	if (m->del)
		return;
	m->del = floe_arena_alloc(m->a, (m->k->n + 1) * sizeof(floe_vector));
	m->del_keys = floe_arena_alloc(m->a, (m->k->n + 1) * sizeof(floe_vector *));
	for (size_t i = 0; i < m->k->n; i++) {
		const floe_pg_copy_column *col = &m->l->cols.copy[m->k->col[i]];
		floe_vector_init(&m->del[i], col->vec, col->width);
		m->del_keys[i] = &m->del[i];
	}
}

/* The lake's side of a key-set diff: a scan of a range's files, or kept keys [at, end) — then the
 * segments [seg_at[i], seg_end[i]) after it, if any (one diff of several pieces). */
typedef struct lake_side {
	bronze_scan *scan;
	size_t first;                  /* scan: the range's first unit */
	size_t at, end;
	const size_t *seg_at, *seg_end;
	size_t seg, n_seg;
	bool started;
	floe_vector *keys[64];
} lake_side;

static int lake_next(merge *m, lake_side *ls)
{
	if (ls->scan) {
		int rc = bronze_scan_next(ls->scan);
		for (size_t i = 0; rc > 0 && i < m->k->n; i++)
			ls->keys[i] = &ls->scan->vec[i];
		return rc;
	}
	ls->at += ls->started;
	ls->started = true;
	for (; ls->at >= ls->end && ls->seg < ls->n_seg; ls->seg++)
		ls->at = ls->seg_at[ls->seg], ls->end = ls->seg_end[ls->seg];
	return ls->at < ls->end;
}

static size_t lake_row(const lake_side *ls)
{
	return ls->scan ? ls->scan->row : ls->at;
}

/* The rows of the lake side's current batch (kept keys: one batch). */
static size_t lake_rows(const lake_side *ls)
{
	return ls->scan ? ls->scan->rows : ls->n_seg ? ls->seg_end[ls->n_seg - 1] : ls->end;
}

/* The lake's current key is not in the source: a delete (and, merge-on-read, its position). */
static void lake_deleted(merge *m, const lake_side *ls)
{
	const kept_keys *kk = &m->kept;
	add_delete(m, ls->keys, lake_row(ls), ls->scan ? ls->first + ls->scan->file : kept_batch_of(kk, ls->at)->unit);
	if (!m->l->mor || m->full)
		return; /* (full: add_delete refused it; the load goes in full) */
	m->deleted++;
	if (ls->scan) {
		mark_position(m, ls->scan, ROW_OF_DELETE(m->n_del - 1));
		return;
	}
	floe_iceberg_position_delete *d = FLOE_ARENA_PUSH(m->a, m->pdel, m->n_pdel, m->cap_pdel);
	kept_position(kk, ls->at, &d->path, &d->pos);
	d->row = ROW_OF_DELETE(m->n_del - 1);
}

/* The source's keys (`ks`) against the lake's, in key order: deletes and late arrivals. */
static int diff_keys(merge *m, key_stream *ks, lake_side *ls)
{
	key_order src_order, lake_order;
	size_t c = 0;
	int rs, rb, error = -1;
	order_init(&src_order, m, m->a);
	order_init(&lake_order, m, m->a);
	rs = stream_next(ks, m->k->n);
	rb = lake_next(m, ls);
	while ((rs > 0 || rb > 0) && !m->full) {
		int cmp = rs == 0 ? 1 : rb == 0 ? -1 : bronze_key_cmp(m->k, ks->keys, ks->row, ls->keys, lake_row(ls));
		if (cmp <= 0 && !order_in_batch(&src_order, m->k, ks->keys, ks->row, ks->rows)) {
			m->full = "loaded in full: the source returned keys out of order or twice";
			break;
		}
		if (cmp >= 0 && !order_in_batch(&lake_order, m->k, ls->keys, lake_row(ls), lake_rows(ls))) {
			m->full = "loaded in full: the data files are not in key order";
			break;
		}
		if (cmp < 0 && !in_changes(m, &c, ks->keys, ks->row))
			m->late_missing++; /* in the source, not in bronze, not a change: a late arrival */
		if (cmp > 0)
			lake_deleted(m, ls);
		if (cmp <= 0)
			rs = stream_next(ks, m->k->n);
		if (cmp >= 0)
			rb = lake_next(m, ls);
		if (rs < 0 || rb < 0)
			goto cleanup;
	}
	if (rs >= 0 && rb >= 0)
		error = 0;
cleanup:
	order_free(&src_order, m->k);
	order_free(&lake_order, m->k);
	return error;
}

/* The key-set diff of range r: its files' keys against the source's keys in its bounds, in key order. */
static int diff_range(merge *m, size_t r)
{
	key_stream ks = { 0 };
	bronze_scan s;
	size_t first = m->map.range_start[r];
	key_bounds b = range_bounds(m, r);
	lake_side ls = { .scan = &s, .first = first };
	int error = -1;
	deletes_init(m);
	bronze_scan_init(&s, m->a, m->l->table, &m->l->cols, m->files + first, m->map.range_start[r + 1] - first,
			 m->k->col, m->k->n);
	bronze_scan_groups(&s, m->groups ? m->groups + first : NULL, m->k);
	if (open_key_stream(&ks, m, &b) == 0 && diff_keys(m, &ks, &ls) == 0)
		error = 0;
	close_key_stream(&ks, m->k->n);
	bronze_scan_close(&s);
	return error;
}

/* Setting `name` to `value` until the transaction ends or it is set back; *prev (the arena's): what it was. */
static int local_setting(merge *m, const char *name, const char *value, const char **prev)
{
	floe_pg_result *r = NULL;
	const char *params[] = { name, value };
	int error = floe_pg_query(&r, m->l->pg, "SELECT current_setting($1), set_config($1, $2, true)", 2, params);
	if (error == 0 && prev)
		*prev = floe_arena_strdup(m->a, floe_pg_result_text(r, 0, 0));
	floe_pg_result_free(r);
	return error;
}

static int parallel_workers(merge *m, const char *value, const char **prev)
{
	return local_setting(m, "max_parallel_workers_per_gather", value, prev);
}

/*
 * "(SELECT floe_k.* FROM <pieces' relation> CROSS JOIN LATERAL (<keys of one piece, in key order>) AS floe_k)":
 * a nested loop over the pieces in their order, an index range scan each.
 */
static int pieces_select(merge *m, floe_buf *out, const char *sep, const char *cols, const key_bounds *b, size_t n)
{
	floe_buf where = FLOE_BUF_INIT;
	const char *one = relation_where(m, &where) == 0 ? wrapped(m, cols, floe_buf_cstr(&where)) : NULL;
	floe_buf_free(&where);
	if (!one)
		return -1;
	floe_buf_printf(out, "%s(SELECT floe_k.* FROM ", sep);
	if (bounds_relation(m, out, b, NULL, n) < 0)
		return -1;
	floe_buf_printf(out, " CROSS JOIN LATERAL (%s) AS floe_k)", one);
	return 0;
}

/*
 * The source's keys in pieces `b` (ascending, disjoint) as one query, one per piece costing a
 * round trip and a plan (182 pieces: 0.3 s): each piece its own index range scan in key order,
 * their UNION ALL in piece order — an Append runs its branches one after the other, and a Merge
 * Append over the branches (an ORDER BY on the whole) was a sort of all the keys instead. The
 * query runs without parallel workers (a Parallel Append would interleave the pieces); diff_keys
 * checks every key's order all the same, and a stream out of order loads the table in full.
 */
static int open_pieces_stream(key_stream *ks, merge *m, const key_bounds *b, size_t n, const char **prev)
{
	floe_buf pieces = FLOE_BUF_INIT, where = FLOE_BUF_INIT;
	const char *cols = bronze_sql_key_columns(m->a, m->l->pg, m->l->job->table, m->k);
	int error = cols ? 0 : -1;
	/* the bounded pieces between the first and the last (which may lack a side) through their relation */
	size_t first = !bounded(&b[0]), last = n - !bounded(&b[n - 1]);
	bool as_array = last > first && last - first >= PIECES_AS_ARRAY;
	floe_buf_puts(&pieces, "SELECT * FROM (");
	for (size_t i = 0; i < n && error == 0; i++) {
		floe_buf_clear(&where);
		if (as_array && i == first) {
			error = pieces_select(m, &pieces, i ? "\nUNION ALL " : "", cols, b + first, last - first);
			i = last - 1;
			continue;
		}
		const char *one = bounds_where(m, &b[i], &where) == 0 ? wrapped(m, cols, floe_buf_cstr(&where)) : NULL;
		floe_buf_printf(&pieces, "%s(%s)", i ? "\nUNION ALL " : "", one ? one : "");
		error = one ? 0 : -1;
	}
	floe_buf_puts(&pieces, ") AS floe_pieces");
	if (error == 0)
		error = parallel_workers(m, "0", prev);
	if (error == 0)
		error = begin_key_stream(ks, m, floe_buf_cstr(&pieces));
	floe_buf_free(&pieces);
	floe_buf_free(&where);
	return error;
}

/* A key file's row joins the kept keys (kept_from_keyfiles): a run of one file's consecutive positions grows. */
typedef struct keyfile_keep {
	merge *m;
	size_t unit;
} keyfile_keep;

static int keep_keyfile_row(void *ctx, floe_vector *const *keys, size_t row, const char *path, int64_t pos)
{
	keyfile_keep *x = ctx;
	kept_keys *kk = &x->m->kept;
	kept_batch *last = kk->n_batch ? &kk->batch[kk->n_batch - 1] : NULL;
	if (!last || last->path != path || last->unit != x->unit || last->pos + (int64_t)(kk->n - last->start) != pos) {
		last = kept_push_batch(kk);
		*last = (kept_batch){ .start = kk->n, .unit = x->unit, .path = path, .pos = pos };
	}
	for (size_t i = 0; i < x->m->k->n; i++)
		floe_vector_append_row(&kk->vec[i], keys[i], row);
	kk->n++;
	return 0;
}

/* The kept keys, from the key files: the live keys of pieces b[0..n) (ascending, disjoint), in key order. */
static void kept_from_keyfiles(merge *m, const key_bounds *b, size_t n)
{
	keyfile_keep x = { .m = m };
	kept_drop(&m->kept, m);
	kept_start(&m->kept, m, m->a, 0, NULL);
	for (size_t i = 0; i < n; i++)
		for (x.unit = 0; x.unit < m->map.n_files; x.unit++) /* units are key ranges in key order */
			if (m->map.touched[x.unit])
				bronze_lakekeys_each(m->lake, x.unit, b[i].lo, b[i].lo_row, b[i].hi, b[i].hi_row,
						     keep_keyfile_row, &x);
	m->kept.on = false;
}

/*
 * The key-set diff of pieces of split ranges (`b[i]` spans adjacent differing sub-ranges; ascending,
 * disjoint): the kept keys in them (listed from the key files when the table keeps them) against
 * the source's, one query for them all.
 */
static int diff_kept(merge *m, const key_bounds *b, size_t n)
{
	key_stream ks = { 0 };
	const char *prev = NULL;
	int error = -1;
	deletes_init(m);
	/* the source's keys start streaming first: the key files' are listed while the server reads */
	if ((n == 1 ? open_key_stream(&ks, m, b) : open_pieces_stream(&ks, m, b, n, &prev)) < 0)
		goto cleanup;
	if (m->lake)
		kept_from_keyfiles(m, b, n);
	const kept_keys *kk = &m->kept;
	size_t *at = floe_arena_alloc(m->a, (n + 1) * sizeof(size_t)), *end = floe_arena_alloc(m->a, (n + 1) * sizeof(size_t));
	for (size_t i = 0; i < n; i++) {
		at[i] = b[i].lo ? kept_first(kk, b[i].lo, b[i].lo_row) : 0;
		end[i] = b[i].hi ? kept_first(kk, b[i].hi, b[i].hi_row) : kk->n;
	}
	lake_side ls = { .at = at[0], .end = end[0], .seg_at = at + 1, .seg_end = end + 1, .n_seg = n - 1 };
	for (size_t i = 0; i < m->k->n; i++)
		ls.keys[i] = kk->keys[i];
	if (diff_keys(m, &ks, &ls) == 0)
		error = 0;
cleanup:
	close_key_stream(&ks, m->k->n);
	if (m->lake)
		kept_drop(&m->kept, m);
	if (prev && error == 0)
		error = parallel_workers(m, prev, NULL); /* the count and the loads after it use them again */
	return error;
}

/* ---- 4. rewriting runs of touched files ---- */

typedef struct run_out {
	floe_vector *vec;  /* rows waiting to be written */
	bool changed;
	size_t pending_from, pending; /* unchanged rows of the scan's row group not yet copied */
} run_out;

/* Rows [from, from + n) of `src` to the output, in batches that never cross a file's bound. */
static int emit_rows(merge *m, run_out *o, const floe_vector *src, size_t from, size_t n)
{
	bronze_files *out = &m->l->out;
	while (n) {
		size_t room = bronze_files_room(out);
		size_t cap = room < BRONZE_BATCH_ROWS ? room : BRONZE_BATCH_ROWS;
		size_t k = cap - o->vec[0].len < n ? cap - o->vec[0].len : n;
		for (size_t i = 0; i < m->ncols; i++)
			floe_vector_append_rows(&o->vec[i], &src[i], from, k);
		from += k;
		n -= k;
		if (o->vec[0].len < cap)
			continue;
		int rc = bronze_files_write_async(out, o->vec); /* o->vec comes back empty */
		bronze_vectors_clear(o->vec, m->ncols);
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int emit(merge *m, run_out *o, const floe_vector *src, size_t row)
{
	return emit_rows(m, o, src, row, 1);
}

/* Unchanged rows of the current row group waiting to be copied in one go. */
static int flush_pending(merge *m, run_out *o, const bronze_scan *s)
{
	int rc = emit_rows(m, o, s->vec, o->pending_from, o->pending);
	o->pending = 0;
	return rc;
}

static bool rows_equal(merge *m, const floe_vector *a, size_t i, const floe_vector *b, size_t j)
{
	for (size_t c = 0; c < m->ncols; c++)
		if (floe_vector_compare_rows(&a[c], i, &b[c], j) != 0)
			return false;
	return true;
}

/* Files [f0, f1) merged with changes [*c, …) and deletes [*d, …) that go to them. */
static int rewrite_run(merge *m, run_out *o, size_t f0, size_t f1, size_t *c, size_t *d)
{
	bronze_scan s;
	key_order order;
	floe_vector *keys[64];
	size_t *all = floe_arena_alloc(m->a, (m->ncols + 1) * sizeof(size_t));
	int rc, error = -1;
	for (size_t i = 0; i < m->ncols; i++)
		all[i] = i;
	bronze_scan_init(&s, m->a, m->l->table, &m->l->cols, m->files + f0, f1 - f0, all, m->ncols);
	bronze_scan_groups(&s, m->groups ? m->groups + f0 : NULL, m->k);
	order_init(&order, m, m->a);
	o->pending = 0;
	while ((rc = bronze_scan_next(&s)) > 0) {
		bronze_key_view(m->k, keys, s.vec);
		/* within a row group against the row before; across groups against the saved key */
		bool ascending = s.row ? bronze_key_cmp(m->k, keys, s.row - 1, keys, s.row) < 0
				       : order_next(&order, m->k, keys, s.row);
		if (!ascending) {
			m->full = "loaded in full: the data files are not in key order";
			goto cleanup;
		}
		if (s.row + 1 == s.rows)
			order_next(&order, m->k, keys, s.row);
		int cmp = 0;
		bool keep = true;
		while (*c < m->n_chg && m->chg_file[*c] < f1 &&
		       (cmp = bronze_key_cmp(m->k, m->chg_keys, *c, keys, s.row)) < 0) {
			o->changed = true;
			m->inserted++;
			if (flush_pending(m, o, &s) < 0 || emit(m, o, m->chg, (*c)++) < 0)
				goto cleanup;
		}
		if (*c < m->n_chg && m->chg_file[*c] < f1 && cmp == 0) {
			keep = rows_equal(m, m->chg, *c, s.vec, s.row);
			o->changed |= !keep;
			m->updated += !keep;
			if (!keep && (flush_pending(m, o, &s) < 0 || emit(m, o, m->chg, *c) < 0))
				goto cleanup;
			(*c)++;
		} else {
			while (*d < m->n_del && m->del_file[*d] < f1 &&
			       bronze_key_cmp(m->k, m->del_keys, *d, keys, s.row) < 0)
				(*d)++;
			if (*d < m->n_del && m->del_file[*d] < f1 &&
			    bronze_key_cmp(m->k, m->del_keys, *d, keys, s.row) == 0) {
				o->changed = true;
				m->deleted++;
				(*d)++;
				keep = false;
				if (flush_pending(m, o, &s) < 0)
					goto cleanup;
			}
		}
		if (keep) {
			if (o->pending == 0)
				o->pending_from = s.row;
			o->pending++;
		}
		if (s.row + 1 == s.rows && flush_pending(m, o, &s) < 0) /* the row group's vectors go next */
			goto cleanup;
	}
	if (rc < 0)
		goto cleanup;
	for (; *c < m->n_chg && m->chg_file[*c] < f1; (*c)++) { /* new keys after the run's last */
		o->changed = true;
		m->inserted++;
		if (emit(m, o, m->chg, *c) < 0)
			goto cleanup;
	}
	while (*d < m->n_del && m->del_file[*d] < f1)
		(*d)++;
	error = 0;
cleanup:
	order_free(&order, m->k);
	bronze_scan_close(&s);
	return error;
}

/* Unit f's files leave the table (every member of a group). */
static void remove_unit(merge *m, size_t f)
{
	const bronze_group *g = m->groups ? m->groups[f] : NULL;
	for (size_t i = 0; g && i < g->n; i++)
		m->l->removed[m->l->n_removed++] = g->members[i]->file.path;
	if (!g)
		m->l->removed[m->l->n_removed++] = m->files[f]->path;
}

/*
 * Merge-on-read: the load's position delete file, each entry with its row's key values (the
 * spec's optional `row`, the key columns under their field ids): silver's diff reads a load's
 * deleted keys there instead of decoding the key column of every file the load deleted from.
 */
static int write_position_deletes(merge *m)
{
	size_t nk = m->k->n;
	floe_vector *cols = floe_arena_alloc(m->a, (nk + 1) * sizeof(*cols));
	floe_parquet_field *fields = floe_arena_alloc(m->a, (nk + 1) * sizeof(*fields));
	for (size_t k = 0; k < nk; k++) {
		const floe_vector *like = m->chg_keys[k];
		fields[k] = m->l->cols.fields[m->k->col[k]];
		floe_vector_init(&cols[k], like->type, like->width);
		cols[k].precision = like->precision, cols[k].scale = like->scale;
	}
	for (size_t i = 0; i < m->n_pdel; i++) {
		int64_t r = m->pdel[i].row;
		for (size_t k = 0; k < nk; k++)
			floe_vector_append_row(&cols[k], r >= 0 ? m->chg_keys[k] : m->del_keys[k], r >= 0 ? (size_t)r : (size_t)(-r - 1));
		m->pdel[i].row = (int64_t)i;
	}
	floe_iceberg_deleted_rows rows = { .fields = fields, .cols = cols, .n = nk };
	int error = bronze_mor_write_deletes(m->l, m->pdel, m->n_pdel, nk ? &rows : NULL);
	for (size_t k = 0; k < nk; k++)
		floe_vector_free(&cols[k]);
	return error;
}

/*
 * Merge-on-read: the changes as new data files, one run per unit they go to (so files overlap
 * only within a unit's range), and the old versions of replaced and deleted rows, found by
 * find_existing and the key-set diff, as one position delete file. The data files depend on the
 * changes alone (which are new keys, which re-read rows are the same: find_existing), so
 * find_deletes writes them while the source counts; the delete file waits for the diffs.
 */
static int write_delta_files(merge *m)
{
	bronze_load *l = m->l;
	run_out o = { .vec = bronze_vectors_new(m->a, &l->cols) };
	int error = -1;
	bronze_files_init(&l->out, l->job->arena, l->table, &l->cols, (size_t)l->job->config->bronze.target_file_rows,
			  l->job->config->warehouse.zstd_level);
	bronze_lakekeys_attach(&l->out, l);
	l->removed = floe_arena_alloc(l->job->arena, sizeof(char *));
	for (size_t c = 0; c < m->n_chg; c++) {
		if (c && m->chg_file[c] != m->chg_file[c - 1]) {
			if (bronze_files_write(&l->out, o.vec) < 0 || bronze_files_close(&l->out) < 0)
				goto cleanup;
			bronze_vectors_clear(o.vec, m->ncols);
		}
		if (m->same && m->same[c])
			continue; /* re-read in the late window, unchanged */
		if (m->exists && m->exists[c])
			m->updated++;
		else
			m->inserted++;
		if (emit(m, &o, m->chg, c) < 0)
			goto cleanup;
	}
	if (bronze_files_write(&l->out, o.vec) < 0 || bronze_files_close(&l->out) < 0)
		goto cleanup;
	m->deltas_written = true;
	error = 0;
cleanup:
	bronze_vectors_free(o.vec, m->ncols);
	return error;
}

/* Merge-on-read: the changes' data files (unless written while the source counted), then the delete file. */
static int write_deltas(merge *m)
{
	return !m->deltas_written && write_delta_files(m) < 0 ? -1 : write_position_deletes(m);
}

/*
 * Runs of touched units in [from, to) rewritten, each into files of its own (discarded when every
 * row came out as it was); with `remove`, each rewritten unit's files listed as removed.
 */
static int rewrite_units(merge *m, run_out *o, size_t from, size_t to, size_t *c, size_t *d, bool remove)
{
	bronze_load *l = m->l;
	for (size_t f0 = from; f0 < to && !m->full;) {
		if (!m->map.touched[f0]) {
			f0++;
			continue;
		}
		size_t f1 = f0;
		while (f1 < to && m->map.touched[f1])
			f1++;
		size_t mark = l->out.n;
		o->changed = m->compacting; /* compaction rewrites what it touched, equal or not */
		if (rewrite_run(m, o, f0, f1, c, d) < 0)
			return -1;
		if (bronze_files_write_async(&l->out, o->vec) < 0 || bronze_files_close(&l->out) < 0)
			return -1;
		bronze_vectors_clear(o->vec, m->ncols);
		if (!o->changed) {
			bronze_files_discard(&l->out, mark); /* every row came out as it was */
		} else {
			for (size_t f = f0; f < f1 && remove; f++)
				remove_unit(m, f);
			m->rewritten += (int64_t)(f1 - f0);
		}
		f0 = f1;
	}
	return 0;
}

/* ---- a compaction on two threads ---- */

/*
 * A compaction's later units rewritten on a thread of their own while the caller rewrites the
 * earlier ones: each half reads its units and hands its batches to a writer thread of its own, so
 * both cores read and compress at once (alone, one writer thread's compression bounded a
 * compaction: events' 5 M rows in 1.5 s on a core and a sixth). As parallel.c's parts, the half
 * reads and writes through its own catalog and table handles and arena; the caller adopts its
 * files after its own, in key order, or removes them all.
 */
typedef struct half {
	merge m;                       /* the caller's, over `load` and the half's arena */
	bronze_load load;              /* the caller's, with its own table handle and files */
	bronze_job job;                /* the caller's, with its own arena */
	floe_iceberg_catalog *catalog;
	size_t from, to;               /* its units */
	int64_t rewritten;             /* the caller's count of rewritten units when it started */
	int rc;
	floe_error_saved error;
} half;

/* Where a compaction's touched units split into two halves of about equal rows; 0: not split. */
static size_t half_split(const merge *m)
{
	int64_t rows = 0, below = 0;
	if (!m->compacting || m->n_chg || m->n_del || !bronze_files_async_wanted())
		return 0;
	for (size_t f = 0; f < m->map.n_files; f++)
		rows += m->map.touched[f] ? unit_rows(m, f) : 0;
	if (rows < 2 * m->l->job->config->bronze.target_file_rows)
		return 0; /* a file or two: one thread */
	for (size_t f = 0; f < m->map.n_files; f++) {
		if (below >= rows / 2)
			return f;
		below += m->map.touched[f] ? unit_rows(m, f) : 0;
	}
	return 0;
}

static void *half_run(void *arg)
{
	half *h = arg;
	merge *m = &h->m;
	run_out o = { .vec = bronze_vectors_new(m->a, &h->load.cols) };
	size_t c = 0, d = 0;
	h->rc = bronze_table_open_own(&h->job, &h->catalog, &h->load.table);
	if (h->rc == 0) {
		bronze_files_init(&h->load.out, h->job.arena, h->load.table, &h->load.cols,
				  (size_t)h->job.config->bronze.target_file_rows, h->job.config->warehouse.zstd_level);
		bronze_lakekeys_attach(&h->load.out, &h->load);
		h->rc = bronze_files_async_start(&h->load.out) < 0 || rewrite_units(m, &o, h->from, h->to, &c, &d, false) < 0
				? -1
				: 0;
		if (h->rc < 0)
			bronze_files_settle_quiet(&h->load.out);
		if (bronze_files_async_stop(&h->load.out) < 0)
			h->rc = -1;
	}
	if (h->rc < 0)
		floe_error_save(&h->error, h->job.arena);
	floe_error_clear();
	bronze_vectors_free(o.vec, m->ncols);
	return NULL;
}

/* The half of units [from, n) started on its thread; -1 when it could not start (the caller rewrites them). */
static int half_start(merge *m, half *h, size_t from, pthread_t *thread)
{
	bronze_load *l = m->l;
	memset(h, 0, sizeof(*h));
	bronze_job_fork(&h->job, l->job);
	h->load = *l;
	h->load.job = &h->job;
	h->load.table = NULL;
	memset(&h->load.out, 0, sizeof(h->load.out)); /* its own, made on its thread */
	h->m = *m;
	h->m.l = &h->load;
	h->m.a = h->job.arena;
	h->from = from, h->to = m->map.n_files;
	h->rewritten = m->rewritten;
	return pthread_create(thread, NULL, half_run, h) == 0 ? 0 : -1;
}

/* The half joined: its files after the caller's, its units removed; or, failed, its files gone and its error raised. */
static int half_join(merge *m, half *h, pthread_t thread, int error)
{
	bronze_load *l = m->l;
	pthread_join(thread, NULL);
	if (h->m.full && !m->full)
		m->full = h->m.full;
	if (error == 0 && h->rc < 0) {
		floe_error_raise(&h->error, "the compaction's second half failed without a reason");
		error = floe_error_context("while rewriting the later half of %s", l->job->table->bronze);
	}
	if (error < 0 || m->full) {
		bronze_files_discard(&h->load.out, 0);
	} else {
		for (size_t f = 0; f < h->load.out.n; f++)
			*FLOE_ARENA_PUSH(l->job->arena, l->out.files, l->out.n, l->out.cap) = h->load.out.files[f];
		for (size_t f = h->from; f < h->to; f++)
			if (m->map.touched[f])
				remove_unit(m, f);
		m->rewritten += h->m.rewritten - h->rewritten;
	}
	floe_iceberg_table_free(h->load.table);
	floe_iceberg_catalog_free(h->catalog);
	return error;
}

static int rewrite(merge *m)
{
	bronze_load *l = m->l;
	run_out o = { .vec = bronze_vectors_new(m->a, &l->cols) };
	size_t c = 0, d = 0, split = 0;
	half h;
	pthread_t thread;
	int error = -1;
	bronze_files_init(&l->out, l->job->arena, l->table, &l->cols, (size_t)l->job->config->bronze.target_file_rows,
			  l->job->config->warehouse.zstd_level);
	bronze_lakekeys_attach(&l->out, l);
	if (bronze_files_async_wanted() && bronze_files_async_start(&l->out) < 0)
		goto cleanup;
	l->removed = floe_arena_alloc(l->job->arena, (m->n_data_files + m->n_delete_files + 1) * sizeof(char *));
	if (m->map.n_files == 0 && m->n_chg) { /* an empty table: the changes are the rows */
		m->inserted = (int64_t)m->n_chg;
		for (; c < m->n_chg; c++)
			if (emit(m, &o, m->chg, c) < 0)
				goto cleanup;
	}
	split = half_split(m);
	if (split && half_start(m, &h, split, &thread) < 0)
		split = 0; /* no thread: this one rewrites every unit */
	if (split)
		floe_log_debug("%s: units %zu to %zu of %zu rewritten on a second thread", l->job->table->bronze, split + 1,
			       m->map.n_files, m->map.n_files);
	error = rewrite_units(m, &o, 0, split ? split : m->map.n_files, &c, &d, true);
	if (split)
		error = half_join(m, &h, thread, error);
	if (error == 0 && (bronze_files_write_async(&l->out, o.vec) < 0 || bronze_files_close(&l->out) < 0))
		error = -1;
cleanup:
	if (error < 0)
		bronze_files_settle_quiet(&l->out); /* the first failure is the one to report */
	if (bronze_files_async_stop(&l->out) < 0)
		error = -1;
	bronze_vectors_free(o.vec, m->ncols);
	return error;
}

/* ---- the whole ---- */

/* Undo what a merge that will not commit wrote; release what every merge holds. */
static void finish(merge *m, int error)
{
	standby_end(m);
	if (error < 0 || m->full) {
		bronze_files_discard(&m->l->out, 0);
		bronze_mor_discard(m->l);
		m->l->n_removed = 0;
	}
	bronze_vectors_free(m->chg, m->chg ? m->ncols : 0);
	kept_drop(&m->kept, m);
	bronze_lakekeys_close(m->lake);
	m->lake = NULL;
	for (size_t i = 0; m->del && i < m->k->n; i++)
		floe_vector_free(&m->del[i]);
	floe_vector_free(&m->map.lower);
	floe_vector_free(&m->map.upper);
	if (m->fine)
		floe_vector_free(m->fine);
}

void bronze_map_ranges(bronze_file_map *map, floe_arena *a)
{
	map->range_start = floe_arena_alloc(a, (map->n_files + 2) * sizeof(size_t));
	map->n_ranges = 0;
	for (size_t f = 0; f < map->n_files; f++)
		if (f == 0 || floe_vector_compare_rows(&map->upper, f - 1, &map->lower, f) < 0)
			map->range_start[map->n_ranges++] = f;
	if (map->n_ranges > BRONZE_MAX_RANGES) { /* coarser: every k-th boundary */
		size_t k = (map->n_ranges + BRONZE_MAX_RANGES - 1) / BRONZE_MAX_RANGES, n = 0;
		for (size_t r = 0; r < map->n_ranges; r += k)
			map->range_start[n++] = map->range_start[r];
		map->n_ranges = n;
	}
	map->range_start[map->n_ranges] = map->n_files;
}

size_t bronze_map_range_of(const bronze_file_map *map, const floe_vector *key0, size_t row)
{
	size_t lo = 1, hi = map->n_ranges; /* the largest r >= 1 whose lower bound <= key, else 0 */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (floe_vector_compare_rows(&map->lower, map->range_start[mid], key0, row) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

void bronze_map_expect(const bronze_file_map *map, int64_t *expected, const floe_iceberg_data_file *const *files,
		       const floe_vector *key0, const bool *exists, size_t n_chg)
{
	for (size_t r = 0; r < map->n_ranges; r++) {
		expected[r] = 0;
		for (size_t f = map->range_start[r]; f < map->range_start[r + 1]; f++)
			expected[r] += files[f]->record_count;
	}
	for (size_t i = 0; i < n_chg; i++)
		if (!exists[i])
			expected[bronze_map_range_of(map, key0, i)]++;
}

/* The last load's snapshot summary value of `key` as a count (0 when absent). */
static int64_t last_load_count(merge *m, const char *key)
{
	const floe_iceberg_metadata *md = floe_iceberg_table_metadata(m->l->table);
	const floe_iceberg_snapshot *snap = floe_iceberg_metadata_snapshot(md, m->l->expect_snapshot);
	/* past compactions (`replace`: the same rows in other files) to the load they rewrote — the first
	   load after a compaction would otherwise plan as if no row had been deleted lately */
	for (int hops = 0; snap && snap->operation && strcmp(snap->operation, "replace") == 0 && hops < 64; hops++)
		snap = snap->has_parent ? floe_iceberg_metadata_snapshot(md, snap->parent_id) : NULL;
	const char *n = snap ? floe_iceberg_snapshot_summary(snap, key) : NULL;
	return n ? strtoll(n, NULL, 10) : 0;
}

/* Whether the load before this one found deletes in key ranges its changes did not touch (its snapshot says so). */
static bool untouched_deleted_last_time(merge *m)
{
	return last_load_count(m, "floe.rows-deleted-untouched") != 0;
}


static void subs_refine(merge *m, int64_t deletes, int64_t split_rows);

/*
 * The sub-ranges delete detection counts: every key range, and each range whose units are all
 * touched (their keys are read anyway) split at every `every`-th change key in it — where the
 * changes fall is where the keys are read, so the pieces follow the key's distribution there.
 * At most SUB_MAX in all, none expected under target-file-rows / 32 rows.
 */
static void subs_plan(merge *m)
{
	size_t nr = m->map.n_ranges, split_chg = 0, n = 0, c = 0;
	/* deletes scattered over the changes' ranges (random keys, a steady share of rows deleted): most
	   pieces of SUB_MAX would differ and be diffed, so count four times finer while the keys are read */
	bool scattered = last_load_count(m, "floe.rows-deleted") >= SUB_MAX / 4;
	const char *refine = getenv("FLOE_COUNT_REFINE");
	m->refine = numeric_key(m->l->cols.copy[m->k->col[0]].vec) &&
		    (refine ? strcmp(refine, "on") == 0 : bronze_lakekeys_dir(m->l) != NULL); /* =on: kept keys too (tests) */
	size_t sub_max = scattered ? SUB_MAX_SCATTERED : SUB_MAX;
	int64_t split_rows = 0, min_rows = m->l->job->config->bronze.target_file_rows / (scattered ? 128 : 32);
	size_t *chg_range = floe_arena_alloc(m->a, (m->n_chg + 1) * sizeof(size_t));
	m->split = floe_arena_alloc(m->a, (nr + 1) * sizeof(bool));
	int64_t all_rows = 0;
	for (size_t r = 0; r < nr; r++) {
		int64_t rows = 0;
		m->split[r] = range_touched(m, r, &rows);
		split_rows += m->split[r] ? rows : 0;
	}
	for (size_t f = 0; f < m->map.n_files; f++)
		all_rows += m->files[f]->record_count;
	m->split_rows = split_rows;
	m->rest_whole = all_rows - split_rows >= split_rows; /* the rest is at least half: count it all */
	for (size_t i = 0; i < m->n_chg; i++) {
		chg_range[i] = bronze_map_range_of(&m->map, m->chg_keys[0], i);
		split_chg += m->split[chg_range[i]];
	}
	size_t room = sub_max > nr ? sub_max - nr : 0;
	if (min_rows > 0 && (int64_t)room > split_rows / min_rows)
		room = (size_t)(split_rows / min_rows);
	size_t every = room ? (split_chg + room - 1) / room : 0;
	m->subs = floe_arena_alloc(m->a, (nr + room + 1) * sizeof(sub_range));
	for (size_t r = 0; r < nr; r++) {
		key_bounds b = range_bounds(m, r);
		m->subs[n++] = (sub_range){ .b = { .lo = b.lo, .lo_row = b.lo_row }, .range = r };
		for (size_t seen = 0; c < m->n_chg && chg_range[c] == r; c++) {
			sub_range *last = &m->subs[n - 1];
			if (!every || !m->split[r] || ++seen % every ||
			    (last->b.lo && floe_vector_compare_rows(last->b.lo, last->b.lo_row, m->chg_keys[0], c) >= 0))
				continue;
			last->b.hi = m->chg_keys[0];
			last->b.hi_row = c;
			m->subs[n++] = (sub_range){ .b = { .lo = m->chg_keys[0], .lo_row = c }, .range = r };
		}
		m->subs[n - 1].b.hi = b.hi;
		m->subs[n - 1].b.hi_row = b.hi_row;
	}
	m->n_subs = n;
	/* the deletes to expect among the changes' ranges: the last load's there; with uuid keys, whose
	   deletes land anywhere, a quarter of the fresh changes (not re-read in the late window) once a
	   load has found any (the one after a load of 12 deletes met 330 in 256 pieces and diffed most
	   of the table's keys) */
	int64_t deletes = last_load_count(m, "floe.rows-deleted") - last_load_count(m, "floe.rows-deleted-untouched");
	bool uuid = m->l->cols.copy[m->k->col[0]].vec == FLOE_VEC_UUID;
	if (uuid && !scattered && deletes > 0) {
		int64_t fresh = 0;
		for (size_t i = 0; i < m->n_chg; i++)
			fresh += !may_be_reread(m, i);
		deletes = deletes > fresh / 4 ? deletes : fresh / 4;
	}
	if (scattered || (uuid && deletes >= SUB_MAX / 4))
		subs_refine(m, deletes, split_rows);
}

/*
 * Finer pieces where deletes scatter (random keys, a steady share deleted): the last load's
 * deletes fell inside the ranges its changes touched, so most pieces between change keys differ
 * and each costs the diff of its keys. A uuid or integer first key column is split evenly between
 * the bounds of each piece of a split range, to about sqrt(deletes * rows / 8) pieces in all — the
 * count's cost per piece (4 us, one index descent) against the diff's per key (0.5 us) times the
 * keys a delete's piece holds. Equal widths balance random keys; dense serial ones too.
 */
static void subs_refine(merge *m, int64_t deletes, int64_t split_rows)
{
	floe_vec_type t = m->l->cols.copy[m->k->col[0]].vec;
	size_t n_split = 0;
	if (deletes <= 0 || split_rows <= 0 || !numeric_key(t))
		return;
	for (size_t i = 0; i < m->n_subs; i++)
		n_split += m->split[m->subs[i].range] && bounded(&m->subs[i].b);
	double want = sqrt((double)deletes * (double)split_rows / (m->refine ? 32.0 : 8.0));
	size_t each = n_split && want > (double)n_split ? (size_t)(want / (double)n_split + 0.5) : 1;
	each = each > SUB_FINE_MAX / (n_split + 1) ? SUB_FINE_MAX / (n_split + 1) : each;
	if (each < 2)
		return;
	floe_vector *fine = floe_arena_alloc(m->a, sizeof(floe_vector));
	floe_vector_init(fine, t, m->l->cols.copy[m->k->col[0]].width);
	m->fine = fine;
	sub_range *subs = floe_arena_alloc(m->a, (m->n_subs + n_split * (each - 1) + 1) * sizeof(sub_range));
	size_t n = 0;
	for (size_t i = 0; i < m->n_subs; i++) {
		sub_range piece = m->subs[i];
		if (!m->split[piece.range] || !bounded(&piece.b)) {
			subs[n++] = piece;
			continue;
		}
		unsigned __int128 lo = key_number(piece.b.lo, piece.b.lo_row), hi = key_number(piece.b.hi, piece.b.hi_row);
		unsigned __int128 step = hi > lo ? (hi - lo) / each : 0;
		subs[n] = piece;
		for (size_t j = 1; step && j < each; j++) {
			subs[n].b.hi = fine;
			subs[n].b.hi_row = fine->len;
			append_key_number(fine, lo + step * j);
			subs[++n] = (sub_range){ .b = { .lo = fine, .lo_row = fine->len - 1, .hi = piece.b.hi,
							.hi_row = piece.b.hi_row }, .range = piece.range };
		}
		n++;
	}
	m->subs = subs;
	m->n_subs = n;
}

/*
 * Bronze's live rows, from the key files, in each of the n consecutive pieces b[0..n) of range r
 * (b[j].hi is b[j + 1].lo), added to out[]: one search a bound a file, each from the last.
 */
static void lake_rows_chain(const merge *m, size_t r, const key_bounds *b, size_t n, int64_t *out)
{
	const floe_vector **bound = floe_arena_alloc(m->a, (n + 1) * sizeof(*bound));
	size_t *row = floe_arena_alloc(m->a, (n + 1) * sizeof(size_t));
	for (size_t j = 0; j < n; j++)
		bound[j] = b[j].lo, row[j] = b[j].lo_row;
	bound[n] = b[n - 1].hi, row[n] = b[n - 1].hi_row;
	for (size_t f = m->map.range_start[r]; f < m->map.range_start[r + 1]; f++)
		bronze_lakekeys_count_pieces(m->lake, f, bound, row, n, out);
}

/* Per sub-range of a split range (keys kept, or key files): the rows bronze has in its bounds plus the changes that are new keys there. */
static void subs_expect(merge *m)
{
	const kept_keys *kk = &m->kept;
	size_t sub = 0;
	key_bounds *chain = m->lake ? floe_arena_alloc(m->a, (m->n_subs + 1) * sizeof(key_bounds)) : NULL;
	int64_t *rows = m->lake ? floe_arena_alloc(m->a, (m->n_subs + 1) * sizeof(int64_t)) : NULL;
	for (size_t i = 0, j; m->lake && i < m->n_subs; i = j) { /* a range's sub-ranges meet end to end */
		size_t r = m->subs[i].range;
		for (j = i; j < m->n_subs && m->subs[j].range == r; j++) {
			chain[j] = m->subs[j].b;
			rows[j] = 0;
		}
		if (m->split[r])
			lake_rows_chain(m, r, chain + i, j - i, rows + i);
		for (size_t k = i; k < j; k++)
			m->subs[k].expected = rows[k];
	}
	for (size_t i = 0; kk->ok && i < m->n_subs; i++) {
		const key_bounds *b = &m->subs[i].b;
		size_t from = b->lo ? kept_first(kk, b->lo, b->lo_row) : 0, to = b->hi ? kept_first(kk, b->hi, b->hi_row) : kk->n;
		m->subs[i].expected = (int64_t)(to - from);
	}
	for (size_t c = 0; m->n_subs && c < m->n_chg; c++) {
		while (sub + 1 < m->n_subs &&
		       floe_vector_compare_rows(m->subs[sub + 1].b.lo, m->subs[sub + 1].b.lo_row, m->chg_keys[0], c) <= 0)
			sub++;
		m->subs[sub].expected += !m->exists[c];
	}
}

/*
 * The key-set diffs where counts differ: a split range's sub-ranges each against its kept keys,
 * any other range (or a split one whose keys were not kept) whole against its files.
 */
/* Differing pieces of split ranges waiting for their one diff against the kept keys (in key order). */
typedef struct pieces {
	key_bounds *b;
	size_t n, cap;
} pieces;

/* Pieces [i0, i1) of a split range whose counts differ, to be diffed against the kept keys: adjacent ones as one. */
static void diff_pieces(merge *m, const int64_t *source, size_t i0, size_t i1, size_t *subs, pieces *p)
{
	for (size_t j = i0; j < i1; j++) {
		if (source[j] == m->subs[j].expected)
			continue;
		key_bounds b = m->subs[j].b;
		for ((*subs)++; j + 1 < i1 && source[j + 1] != m->subs[j + 1].expected; j++, (*subs)++) {
			b.hi = m->subs[j + 1].b.hi;
			b.hi_row = m->subs[j + 1].b.hi_row;
		}
		*FLOE_ARENA_PUSH(m->a, p->b, p->n, p->cap) = b;
	}
}

/*
 * ---- a second round of counts: the differing pieces in parts ----
 *
 * A piece whose count differs costs its diff every key in it (~0.27 us each, on one connection);
 * counted again in parts of REFINE_PART_ROWS rows (~6 us a part and 0.05 us a row, on two), only
 * the parts that differ are diffed. So the first round counts coarser pieces (subs_refine: a
 * quarter of the pieces, each costing the count its index descent and subquery), and a scattered
 * delete costs a part's keys, not a piece's. The parts' expected rows come from the key files (or
 * the kept keys) and the changes that are new keys, as the pieces' did (subs_expect).
 */

/* Per change: how many changes before it are new keys (for the parts' expected rows). */
static void new_keys_before(merge *m)
{
	m->new_before = floe_arena_alloc(m->a, (m->n_chg + 1) * sizeof(size_t));
	m->new_before[0] = 0;
	for (size_t c = 0; c < m->n_chg; c++)
		m->new_before[c + 1] = m->new_before[c] + !m->exists[c];
}

/* The first change whose first key column is at or after row `row` of `v`. */
static size_t first_change_at(const merge *m, const floe_vector *v, size_t row)
{
	return floe_vector_lower_bound(m->chg_keys[0], m->n_chg, v, row);
}

/*
 * The rows the source should count in each of the n consecutive bounded pieces b[0..n) of one key
 * range (b[j].hi is b[j + 1].lo), into out[]: bronze's there (key files, or kept keys), and the new
 * keys among the changes.
 */
static void rows_expected(const merge *m, const key_bounds *b, size_t n, int64_t *out)
{
	for (size_t j = 0; j < n; j++)
		out[j] = (int64_t)(m->new_before[first_change_at(m, b[j].hi, b[j].hi_row)] -
				   m->new_before[first_change_at(m, b[j].lo, b[j].lo_row)]);
	if (m->lake) {
		lake_rows_chain(m, bronze_map_range_of(&m->map, b[0].lo, b[0].lo_row), b, n, out);
		return;
	}
	for (size_t j = 0; j < n; j++)
		out[j] += (int64_t)(kept_first(&m->kept, b[j].hi, b[j].hi_row) - kept_first(&m->kept, b[j].lo, b[j].lo_row));
}

/* Counts of parts[from, to) (labels from 0) on `pg`, sent (*pending) or at once (pending NULL), into got[]. */
static int parts_send(merge *m, floe_pg *pg, const key_bounds *parts, size_t from, size_t to, floe_pg_pending **pending)
{
	floe_buf sql = FLOE_BUF_INIT;
	size_t *label = floe_arena_alloc(m->a, (to - from + 1) * sizeof(size_t));
	for (size_t i = from; i < to; i++)
		label[i - from] = i;
	int rc = count_pieces_select(m, &sql, parts + from, label, to - from);
	if (rc == 0)
		rc = floe_pg_send(pending, pg, floe_buf_cstr(&sql));
	floe_buf_free(&sql);
	return rc;
}

static int parts_collect(floe_pg_pending *pending, int64_t *got, size_t n)
{
	floe_pg_result *r = NULL;
	if (floe_pg_collect(&r, pending) < 0)
		return -1;
	for (int row = 0; row < floe_pg_result_rows(r); row++) {
		size_t i = (size_t)floe_pg_result_int(r, row, 0);
		if (i < n)
			got[i] = floe_pg_result_int(r, row, 1);
	}
	floe_pg_result_free(r);
	return 0;
}

/* The parts' source counts: halves on the two connections when the second is open (else, or should it fail, on the load's). */
static int parts_count(merge *m, const key_bounds *parts, size_t n, int64_t *got)
{
	floe_pg_pending *mine = NULL, *theirs = NULL;
	size_t cut = m->second && n >= 2 * PIECES_AS_ARRAY ? n / 2 : n;
	bool again = false; /* the second connection failed: its parts on the load's */
	if (cut < n && parts_send(m, m->second, parts, cut, n, &theirs) < 0) {
		floe_pg_pending_free(theirs);
		theirs = NULL;
		again = true;
	}
	int rc = parts_send(m, m->l->pg, parts, 0, cut, &mine) == 0 ? parts_collect(mine, got, n) : -1;
	if (rc < 0) {
		floe_pg_pending_free(theirs); /* waits for it, drops it */
		return -1;
	}
	if (theirs && parts_collect(theirs, got, n) < 0) /* collected or not, freed */
		again = true;
	if (again) {
		floe_log_info("%s: the second count connection failed: its parts are counted on the load's",
			      m->l->job->table->bronze);
		floe_error_clear();
		m->second = NULL;
		rc = parts_send(m, m->l->pg, parts, cut, n, &mine) == 0 ? parts_collect(mine, got, n) : -1;
	}
	return rc;
}

/* Piece b split evenly over its first key column's numbers into k parts, appended to parts (bounds in m->fine). */
static void split_piece(merge *m, const key_bounds *b, size_t k, key_bounds **parts, size_t *n, size_t *cap)
{
	unsigned __int128 lo = key_number(b->lo, b->lo_row), hi = key_number(b->hi, b->hi_row);
	unsigned __int128 step = hi > lo ? (hi - lo) / k : 0;
	key_bounds part = { .lo = b->lo, .lo_row = b->lo_row };
	for (size_t j = 1; step && j < k; j++) {
		part.hi = m->fine;
		part.hi_row = m->fine->len;
		append_key_number(m->fine, lo + step * j);
		*FLOE_ARENA_PUSH(m->a, *parts, *n, *cap) = part;
		part.lo = part.hi;
		part.lo_row = part.hi_row;
	}
	part.hi = b->hi;
	part.hi_row = b->hi_row;
	*FLOE_ARENA_PUSH(m->a, *parts, *n, *cap) = part;
}

/* The differing pieces p (key order) replaced by their differing parts, adjacent ones as one; small or unbounded pieces stay whole. */
static int refine_pieces(merge *m, pieces *p)
{
	double t = bronze_seconds();
	key_bounds *parts = NULL;
	size_t n = 0, cap = 0, refined = 0, n_ask = 0, differ = 0;
	size_t *first = floe_arena_alloc(m->a, (p->n + 1) * sizeof(size_t)); /* piece i: parts [first[i], first[i + 1]) */
	bool *whole = floe_arena_alloc(m->a, (p->n + 1) * sizeof(bool));
	if (!m->fine) {
		m->fine = floe_arena_alloc(m->a, sizeof(floe_vector));
		floe_vector_init(m->fine, m->chg_keys[0]->type, m->chg_keys[0]->width);
	}
	if (!m->new_before)
		new_keys_before(m);
	for (size_t i = 0; i < p->n; i++) {
		const key_bounds *b = &p->b[i];
		int64_t rows = 0;
		if (bounded(b))
			rows_expected(m, b, 1, &rows);
		size_t k = (size_t)(rows / REFINE_PART_ROWS);
		first[i] = n;
		whole[i] = rows < REFINE_ROWS;
		if (whole[i])
			*FLOE_ARENA_PUSH(m->a, parts, n, cap) = *b;
		else
			split_piece(m, b, k < 2 ? 2 : k > REFINE_PARTS_MAX ? REFINE_PARTS_MAX : k, &parts, &n, &cap);
		refined += !whole[i];
	}
	first[p->n] = n;
	if (refined == 0)
		return 0;
	/* the refined pieces' parts counted; a part differs when its count is not what bronze and the changes make it */
	bool *differs = floe_arena_alloc(m->a, (n + 1) * sizeof(bool));
	key_bounds *ask = floe_arena_alloc(m->a, (n + 1) * sizeof(key_bounds));
	size_t *at = floe_arena_alloc(m->a, (n + 1) * sizeof(size_t));
	for (size_t i = 0; i < p->n; i++)
		for (size_t j = first[i]; j < first[i + 1]; j++) {
			differs[j] = whole[i]; /* a piece kept whole is diffed as it is */
			if (!whole[i]) {
				at[n_ask] = j;
				ask[n_ask++] = parts[j];
			}
		}
	int64_t *counted = floe_arena_alloc(m->a, (n_ask + 1) * sizeof(int64_t));
	if (parts_count(m, ask, n_ask, counted) < 0)
		return -1;
	int64_t *expected = floe_arena_alloc(m->a, (n + 1) * sizeof(int64_t));
	for (size_t i = 0; i < p->n; i++)
		if (!whole[i]) /* a piece's parts meet end to end */
			rows_expected(m, parts + first[i], first[i + 1] - first[i], expected + first[i]);
	for (size_t q = 0; q < n_ask; q++) {
		differs[at[q]] = counted[q] != expected[at[q]];
		differ += differs[at[q]];
	}
	pieces out = { 0 };
	for (size_t i = 0; i < p->n; i++)
		for (size_t j = first[i]; j < first[i + 1]; j++) {
			if (!differs[j])
				continue;
			key_bounds b = parts[j];
			for (; j + 1 < first[i + 1] && differs[j + 1]; j++) { /* adjacent differing parts: one diff */
				b.hi = parts[j + 1].hi;
				b.hi_row = parts[j + 1].hi_row;
			}
			*FLOE_ARENA_PUSH(m->a, out.b, out.n, out.cap) = b;
		}
	floe_log_info("%s: %zu differing pieces counted again in %zu parts, %zu of them differ, in %.4f s",
		      m->l->job->table->bronze, refined, n_ask, differ, bronze_seconds() - t);
	*p = out;
	return 0;
}

/* The pieces waiting, diffed (deletes are found in key order: before a range diffed whole after them). */
static int diff_waiting(merge *m, pieces *p)
{
	int rc = p->n && !m->full && m->refine ? refine_pieces(m, p) : 0;
	rc = rc == 0 && p->n && !m->full ? diff_kept(m, p->b, p->n) : rc;
	p->n = 0;
	return rc;
}

static int diff_subs(merge *m, const int64_t *source, const int64_t *expected, size_t *ranges, size_t *subs)
{
	size_t i = 0;
	pieces p = { 0 };
	for (size_t r = 0; r < m->map.n_ranges && !m->full; r++) {
		size_t i0 = i, before = *subs;
		int64_t sum = 0;
		for (; i < m->n_subs && m->subs[i].range == r; i++)
			sum += source[i];
		if ((m->kept.ok || m->lake) && m->split[r]) {
			diff_pieces(m, source, i0, i, subs, &p);
		} else if (sum != expected[r]) {
			if (diff_waiting(m, &p) < 0)
				return -1;
			size_t before_del = m->n_del;
			(*subs)++;
			if (diff_range(m, r) < 0)
				return -1;
			m->untouched_deleted += m->split[r] ? 0 : m->n_del - before_del;
		}
		*ranges += *subs > before;
	}
	return diff_waiting(m, &p);
}

/* The rows the ranges that are not split should count (expected[] per range). */
static int64_t rest_expected(const merge *m, const int64_t *expected)
{
	int64_t n = 0;
	for (size_t r = 0; r < m->map.n_ranges; r++)
		n += m->split[r] ? 0 : expected[r];
	return n;
}

/*
 * The counts of the ranges not split, per sub-range, from the rest's count (source[n_subs]): the
 * whole source's when rest_whole, less the split ranges' pieces. Equal to what they should count:
 * each its expected rows; else each counted (one query), or the one such range the rest is.
 */
static int rest_counts(merge *m, int64_t *source, const int64_t *expected, bool *differs)
{
	size_t n_rest = 0, last_rest = 0;
	for (size_t i = 0; i < m->n_subs; i++) {
		bool split = m->split[m->subs[i].range];
		source[m->n_subs] -= split && m->rest_whole ? source[i] : 0;
		n_rest += !split;
		last_rest = split ? last_rest : i;
	}
	*differs = n_rest && source[m->n_subs] != rest_expected(m, expected);
	if (*differs && n_rest > 1)
		return source_counts(m, COUNT_RANGES, source);
	if (*differs)
		source[last_rest] = source[m->n_subs]; /* the rest is that one range */
	for (size_t i = 0; !*differs && i < m->n_subs; i++)
		if (!m->split[m->subs[i].range])
			source[i] = expected[m->subs[i].range]; /* the rest counted equal */
	return 0;
}

/*
 * Deletes: per sub-range, the source's row count against bronze's plus the changes that are new
 * keys there; a sub-range that differs gets a key-set diff. (One where as many rows arrived late
 * as left counts equal: reconciliation finds those.) A range whose units the changes all touch
 * is counted in pieces between change keys (subs_plan), its keys kept as find_existing reads
 * them, so a delete costs a diff of its piece against those keys, not of the range's files.
 *
 * The other ranges are counted together first — equal, and no key left them, short of a late
 * arrival exactly offsetting a delete elsewhere, which reconciliation's V3 finds — and one by one
 * only when that count differs; at once, when the last load found deletes in ranges its changes
 * did not touch (it will most likely need them again: old rows purged every run); deletes among
 * the changes' rows, the common case of serial keys, were found in pieces and say nothing about
 * the rest. The query runs on the server while the touched files' keys are read here, so its
 * time hides behind theirs.
 */
static int find_deletes(merge *m)
{
	double t = bronze_seconds();
	floe_pg_pending *counting = NULL;
	count_helper helper = { 0 };
	int64_t *source = NULL;
	const char *jit = NULL;
	size_t ranges = 0, subs = 0;
	int error = -1;
	if (m->map.n_files == 0)
		return 0;
	bronze_map_ranges(&m->map, m->a);
	subs_plan(m);
	bronze_step(m->l->job, &t, "delete detection planned");
	bool each = m->n_subs > 1 && untouched_deleted_last_time(m);
	if (each)
		floe_log_info("%s: the last load found deletes in key ranges its changes did not touch: the %zu key ranges "
			      "are counted at once, in %zu sub-ranges", m->l->job->table->bronze, m->map.n_ranges, m->n_subs);
	/* the source counts while bronze's keys are read; without JIT, whose compiling the count of
	   thousands of pieces' index scans cost 0.2 s (its plan's estimate is their rows, not their work) */
	source = floe_arena_alloc(m->a, (m->n_subs + 1) * sizeof(int64_t));
	if (local_setting(m, "jit", "off", &jit) < 0 ||
	    counts_send(m, COUNT_PIECES | (each ? COUNT_RANGES : COUNT_REST), &counting, &helper) < 0)
		goto cleanup;
	standby_end(m); /* the count took it, or did not need it: a connection slot is not held for nothing */
	if (find_existing(m, true) < 0 || m->full) {
		error = m->full ? 0 : -1; /* loads in full */
		goto cleanup;
	}
	step(m, &t, m->lake ? "the changes' rows found in the key files, re-read rows' watermarks compared (the source "
			      "counting meanwhile)"
			    : "keys of the touched files read, re-read rows' watermarks compared (the source counting meanwhile)");
	int64_t *expected = floe_arena_alloc(m->a, (m->map.n_ranges + 1) * sizeof(int64_t));
	bronze_map_expect(&m->map, expected, m->files, m->chg_keys[0], m->exists, m->n_chg);
	subs_expect(m);
	if (m->l->mor) { /* the changes' data files while the source counts (the delete file waits for the diffs) */
		if (write_delta_files(m) < 0)
			goto cleanup;
		step(m, &t, "changes written (the source counting meanwhile)");
	}
	floe_pg_pending *p = counting;
	counting = NULL;
	bool rest_differs = false, two = helper.sql != NULL;
	if (counts_read(m, p, &helper, source) < 0 || (!each && rest_counts(m, source, expected, &rest_differs) < 0))
		goto cleanup;
	two = two && helper.rc == 0; /* a helper that failed: all of it counted on the load's connection */
	m->second = two ? helper.pg : NULL;
	step(m, &t, rest_differs ? "source counted by key range (after the keys)"
		    : two ? "source counted (its pieces on two connections)"
		    : each || m->n_subs == 0 || !m->rest_whole ? "source counted"
		    : "source counted (the whole table, less the pieces of the touched ranges)");
	if (diff_subs(m, source, expected, &ranges, &subs) < 0)
		goto cleanup;
	floe_log_info("%s: %zu of %zu key ranges differ in count; %zu of %zu sub-ranges key-set diffed",
		      m->l->job->table->bronze, ranges, m->map.n_ranges, subs, m->n_subs);
	if (subs)
		step(m, &t, "key sets compared");
	error = 0;
cleanup:
	kept_drop(&m->kept, m);
	floe_pg_pending_free(counting);
	m->second = NULL;
	helper_end(&helper);
	if (jit && error == 0)
		error = local_setting(m, "jit", jit, NULL);
	return error;
}

static void describe(merge *m)
{
	bronze_load *l = m->l;
	bronze_load_note(l, "floe.rows-inserted", "%lld", (long long)m->inserted);
	bronze_load_note(l, "floe.rows-updated", "%lld", (long long)m->updated);
	bronze_load_note(l, "floe.rows-deleted", "%lld", (long long)m->deleted);
	if (m->untouched_deleted)
		bronze_load_note(l, "floe.rows-deleted-untouched", "%zu", m->untouched_deleted);
	bronze_load_note(l, "floe.files-rewritten", "%lld", (long long)m->rewritten);
	if (l->mor)
		bronze_load_note(l, "floe.write-mode", "merge-on-read");
	if (m->late_missing)
		bronze_load_note(l, "floe.rows-missing", "%lld", (long long)m->late_missing);
	const char *files = l->mor ? floe_arena_printf(l->job->arena, "%zu rows marked deleted (merge-on-read)",
							 m->n_pdel)
				   : floe_arena_printf(l->job->arena, "%lld of %zu files rewritten",
						       (long long)m->rewritten, m->map.n_files);
	l->detail = floe_arena_printf(l->job->arena,
				      "incremental: %zu rows read, %lld inserted, %lld updated, %lld deleted, %s%s",
				      m->n_chg, (long long)m->inserted, (long long)m->updated, (long long)m->deleted,
				      files,
				      m->late_missing ? floe_arena_printf(l->job->arena,
					      "; %lld source rows are missing from bronze (late arrivals for reconciliation)",
					      (long long)m->late_missing) : "");
}

/* The write mode of the load's table ([bronze] write-mode, per table in [bronze.write-modes]: mor.c). */
static void choose_mode(bronze_load *l)
{
	const floe_lock_table *t = l->job->table;
	l->mor = !l->copy_on_write && bronze_mor_enabled(l->job->config, floe_arena_printf(l->job->arena, "%s.%s", t->schema, t->name));
	l->mor_table = l->mor;
	l->n_delete_files = 0;
}

int bronze_merge(bronze_load *l, int64_t previous, const char **full_reason)
{
	merge m = { .l = l, .a = l->job->arena, .k = &l->keys, .ncols = l->cols.n };
	int error = -1;
	choose_mode(l);
	floe_vector_init(&m.map.lower, FLOE_VEC_LONG, 0);
	floe_vector_init(&m.map.upper, FLOE_VEC_LONG, 0);
	if (m.k->n > 64)
		m.full = "loaded in full: the key has more than 64 columns";
	l->watermark = previous;
	l->has_watermark = true;
	double t = bronze_seconds();
	m.skip_same = l->mor && m.k->watermark >= 0;
	m.previous = previous;
	standby_start(&m);
	if (!m.full && fetch_changes(&m, previous) < 0)
		goto cleanup;
	step(&m, &t, "changes read");
	if (!m.full && list_files(&m) < 0)
		goto cleanup;
	bronze_step(l->job, &t, "data and delete files listed");
	if (!m.full) {
		bronze_load_progress(l, "merging", NULL);
		route_changes(&m);
		if (find_deletes(&m) < 0)
			goto cleanup;
		t = bronze_seconds();
		if (!m.full && (l->mor ? write_deltas(&m) : rewrite(&m)) < 0)
			goto cleanup;
		step(&m, &t, l->mor ? "replaced and deleted rows marked (the delete file written)" : "files rewritten");
	}
	if (!m.full)
		describe(&m);
	error = 0;
cleanup:
	*full_reason = m.full;
	finish(&m, error);
	return error;
}

/* ---- repair: given keys re-read ---- */

/* The source's names of the key columns' types ("bigint", "public.mood"), from the described oids. */
static int key_types(merge *m, const char ***out)
{
	floe_buf oids = FLOE_BUF_INIT;
	floe_pg_result *r = NULL;
	int error = -1;
	for (size_t i = 0; i < m->k->n; i++)
		floe_buf_printf(&oids, "%s%u", i ? "," : "{", m->l->cols.copy[m->k->col[i]].type_oid);
	floe_buf_putc(&oids, '}');
	const char *param = floe_buf_cstr(&oids);
	if (floe_pg_query(&r, m->l->pg, "select pg_catalog.format_type(t, null) from pg_catalog.unnest($1::oid[]) "
			  "with ordinality as u(t, i) order by i", 1, &param) < 0)
		goto cleanup;
	*out = floe_arena_alloc(m->a, (m->k->n + 1) * sizeof(char *));
	for (size_t i = 0; i < m->k->n; i++)
		(*out)[i] = floe_arena_strdup(m->a, floe_pg_result_text(r, (int)i, 0));
	error = 0;
cleanup:
	floe_pg_result_free(r);
	floe_buf_free(&oids);
	return error;
}

/* Key column `c` of every requested key as one array literal: {"v1","v2"} (pg's text[] form). */
static const char *key_array(merge *m, size_t c)
{
	const bronze_job *job = m->l->job;
	const char **items = floe_arena_alloc(m->a, (job->n_repair_keys + 1) * sizeof(*items));
	for (size_t i = 0; i < job->n_repair_keys; i++)
		items[i] = job->repair_keys[i * m->k->n + c];
	return floe_pg_array_literal(m->a, items, job->n_repair_keys);
}

/*
 * The requested keys as a relation typed like the source's key columns (named as `cols`
 * names them), one array literal per key column unnested together, distinct:
 *   SELECT DISTINCT * FROM ROWS FROM (unnest('{…}'::bigint[]), unnest('{…}'::text[])) AS floe_src("id", "k")
 * A query whose size grows with the keys but whose plan does not (a UNION per key took
 * 0.2 s to plan 5,000 keys and overflowed the parser's stack past ~10,000).
 */
static const char *keys_relation(merge *m)
{
	const bronze_job *job = m->l->job;
	const char **types = NULL;
	floe_buf b = FLOE_BUF_INIT;
	const char *out = NULL;
	if (key_types(m, &types) < 0)
		goto cleanup;
	floe_buf_puts(&b, "SELECT DISTINCT * FROM ROWS FROM (");
	for (size_t c = 0; c < m->k->n; c++) {
		floe_buf_puts(&b, c ? ", pg_catalog.unnest(" : "pg_catalog.unnest(");
		if (floe_pg_quote_literal(&b, m->l->pg, key_array(m, c)) < 0)
			goto cleanup;
		floe_buf_printf(&b, "::%s[])", types[c]);
	}
	floe_buf_puts(&b, ") AS floe_src(");
	for (size_t c = 0; c < m->k->n; c++) {
		floe_buf_puts(&b, c ? ", " : "");
		if (floe_pg_quote_ident(&b, m->l->pg, job->table->columns[m->k->col[c]].name) < 0)
			goto cleanup;
	}
	floe_buf_putc(&b, ')');
	out = floe_arena_strndup(m->a, floe_buf_cstr(&b), b.len);
cleanup:
	floe_buf_free(&b);
	return out;
}

/* The requested keys as key vectors, in key order (COPY hands them back typed by the source). */
static int requested_keys(merge *m, const char *relation, floe_vector **out)
{
	key_stream ks = { 0 };
	int rc, error = -1;
	*out = floe_arena_alloc(m->a, (m->k->n + 1) * sizeof(floe_vector));
	for (size_t i = 0; i < m->k->n; i++) {
		const floe_pg_copy_column *c = &m->l->cols.copy[m->k->col[i]];
		floe_vector_init(&(*out)[i], c->vec, c->width);
	}
	if (begin_key_stream(&ks, m, bronze_sql_keyed(m->a, m->l->pg, m->l->job->table, m->k, "*", relation, "")) < 0)
		goto cleanup;
	while ((rc = stream_next(&ks, m->k->n)) > 0)
		for (size_t i = 0; i < m->k->n; i++)
			floe_vector_append_row(&(*out)[i], ks.keys[i], ks.row);
	if (rc == 0)
		error = 0;
cleanup:
	close_key_stream(&ks, m->k->n);
	return error;
}

int bronze_merge_rows(bronze_load *l, floe_vector *rows, floe_vector *keys, const char **full_reason)
{
	merge m = { .l = l, .a = l->job->arena, .k = &l->keys, .ncols = l->cols.n };
	floe_vector *key_view[64];
	int error = -1;
	choose_mode(l);
	floe_vector_init(&m.map.lower, FLOE_VEC_LONG, 0);
	floe_vector_init(&m.map.upper, FLOE_VEC_LONG, 0);
	if (m.k->n > 64)
		m.full = "loaded in full: the key has more than 64 columns";
	m.chg = rows;
	m.n_chg = rows[0].len;
	m.chg_keys = floe_arena_alloc(m.a, (m.k->n + 1) * sizeof(floe_vector *));
	bronze_key_view(m.k, m.chg_keys, m.chg);
	if (!m.full && list_files(&m) < 0)
		goto cleanup;
	if (m.full)
		goto done;
	/* Requested keys the rows lack are deletes, routed like changes: by bounds, ascending. */
	deletes_init(&m);
	for (size_t i = 0; i < m.k->n; i++)
		key_view[i] = &keys[i];
	size_t c = 0;
	for (size_t i = 0; i < keys[0].len && !m.full && m.map.n_files; i++)
		if (!in_changes(&m, &c, key_view, i))
			add_delete(&m, key_view, i, bronze_map_route(&m.map, key_view[0], i));
	route_changes(&m);
	for (size_t d = 1; d < m.n_del; d++)
		if (m.del_file[d] < m.del_file[d - 1])
			m.del_file[d] = m.del_file[d - 1];
	if (!m.full && l->mor && m.map.n_files && find_existing(&m, false) < 0)
		goto cleanup;
	if (!m.full && (l->mor ? write_deltas(&m) : rewrite(&m)) < 0)
		goto cleanup;
	if (!m.full)
		describe(&m);
done:
	error = 0;
cleanup:
	*full_reason = m.full;
	m.chg = NULL; /* the caller's */
	finish(&m, error);
	return error;
}

int bronze_merge_keys(bronze_load *l, const char **full_reason)
{
	merge m = { .l = l, .a = l->job->arena, .k = &l->keys, .ncols = l->cols.n };
	floe_buf where = FLOE_BUF_INIT;
	const char *cols = NULL, *relation = NULL;
	floe_vector *keys = NULL;
	int error = -1;
	*full_reason = NULL;
	if (m.k->n > 64 || l->job->n_repair_keys == 0) {
		*full_reason = bronze_repair_reason(l->job->arena, "no keys to re-read");
		error = 0;
		goto cleanup;
	}
	if (!(cols = bronze_sql_key_columns(m.a, l->pg, l->job->table, m.k)) || !(relation = keys_relation(&m)) ||
	    requested_keys(&m, relation, &keys) < 0)
		goto cleanup;
	floe_buf_printf(&where, " WHERE (%s) IN (SELECT * FROM (%s) AS floe_keys)", cols, relation);
	const char *sql = wrapped(&m, "*", floe_buf_cstr(&where));
	double t = bronze_seconds();
	if (!sql || fetch_rows(&m, sql, "rows to repair") < 0)
		goto cleanup;
	bronze_step(l->job, &t, "keys re-read");
	error = m.full ? 0 : bronze_merge_rows(l, m.chg, keys, full_reason);
	bronze_step(l->job, &t, "rows merged");
	if (m.full)
		*full_reason = bronze_repair_reason(l->job->arena, m.full);
	else if (error == 0 && *full_reason)
		*full_reason = bronze_repair_reason(l->job->arena, *full_reason);
	else if (error == 0)
		l->detail = floe_arena_printf(l->job->arena, "repair of %zu keys: %s", l->job->n_repair_keys,
					      l->detail + strlen("incremental: "));
cleanup:
	bronze_vectors_free(m.chg, m.chg ? m.ncols : 0);
	for (size_t i = 0; keys && i < m.k->n; i++)
		floe_vector_free(&keys[i]);
	floe_buf_free(&where);
	return error;
}

/* ---- compaction ---- */

/*
 * What compaction rewrites of group g: its members with deleted rows and its small ones; a big
 * member without deletes stays as it is (its manifest entry is carried over), the rewritten rows
 * overlapping it as the deltas did. NULL when there is nothing to fold (no deletes, at most one
 * small member); else g itself or the group of its rewritten members. *carried counts the rest.
 */
static const bronze_group *compaction_members(merge *m, const bronze_group *g, int64_t small_rows, size_t *carried)
{
	const floe_iceberg_scan_file **keep = floe_arena_alloc(m->a, (g->n + 1) * sizeof(*keep));
	size_t n = 0;
	bool deletes = false;
	for (size_t i = 0; i < g->n; i++) {
		const floe_iceberg_scan_file *f = g->members[i];
		deletes |= f->n_deleted > 0;
		if (f->n_deleted > 0 || f->file.record_count < small_rows)
			keep[n++] = f;
	}
	if (!deletes && n < 2)
		return NULL;
	*carried += g->n - n;
	if (n == g->n)
		return g;
	bronze_group *sub = floe_arena_alloc(m->a, sizeof(*sub));
	sub->members = keep;
	sub->n = n;
	return sub;
}

/* Mark the units compaction rewrites: groups (their deletes and small deltas) and runs of small files. */
static size_t compaction_targets(merge *m, int64_t small_rows, size_t *carried)
{
	size_t n = 0;
	for (size_t f = 0; f < m->map.n_files; f++) {
		bool small = m->files[f]->record_count < small_rows;
		bool next_small = f + 1 < m->map.n_files && m->files[f + 1]->record_count < small_rows;
		bool prev_small = f > 0 && m->files[f - 1]->record_count < small_rows;
		const bronze_group *fold = m->groups[f] ? compaction_members(m, m->groups[f], small_rows, carried) : NULL;
		m->map.touched[f] = fold || (small && (next_small || prev_small));
		if (fold)
			m->groups[f] = fold; /* else a group in a run of small files is rewritten whole */
		n += m->map.touched[f];
	}
	return n;
}

int bronze_merge_compact(bronze_load *l, const floe_bronze_compaction *when, const char **skip)
{
	merge m = { .l = l, .a = l->job->arena, .k = &l->keys, .ncols = l->cols.n, .compacting = true };
	floe_iceberg_scan *scan = NULL;
	int error = -1;
	*skip = NULL;
	floe_vector_init(&m.map.lower, FLOE_VEC_LONG, 0);
	floe_vector_init(&m.map.upper, FLOE_VEC_LONG, 0);
	l->mor = false;
	l->n_delete_files = 0; /* the load's are committed: never discarded here */
	bronze_files_init(&l->out, l->job->arena, l->table, &l->cols, (size_t)l->job->config->bronze.target_file_rows,
			  l->job->config->warehouse.zstd_level);
	if (m.k->n == 0 || m.k->n > 64 || l->keys.unmergeable) {
		*skip = "nothing to compact: the table has no key to sort its files by";
		error = 0;
		goto cleanup;
	}
	if (floe_iceberg_table_plan_deletes(&scan, m.a, l->table, l->expect_snapshot) < 0 || list_units(&m, scan) < 0)
		goto cleanup;
	bronze_lakekeys_prune(l, scan); /* a killed run's key files, of data files never committed */
	int64_t target = l->job->config->bronze.target_file_rows;
	size_t small = 0, carried = 0;
	for (size_t f = 0; f < scan->n_files; f++)
		small += scan->files[f].file.record_count < target / 4;
	bool due = scan->n_deletes >= when->delete_files || small >= when->small_files;
	if (m.full) {
		*skip = floe_arena_printf(m.a, "not compacted: %s", m.full);
	} else if (!when->forced && !due) {
		*skip = floe_arena_printf(m.a, "nothing to compact: %zu delete files, %zu small files (thresholds %zu, "
					  "%zu)", scan->n_deletes, small, when->delete_files, when->small_files);
	} else if (compaction_targets(&m, target / 4, &carried) == 0 && scan->n_deletes == 0) {
		*skip = "nothing to compact: no delete files, no overlapping or adjacent small files";
	} else if (rewrite(&m) < 0) {
		goto cleanup;
	} else {
		for (size_t i = 0; i < scan->n_deletes; i++) /* every delete file's rows are in the rewrite */
			l->removed[l->n_removed++] = scan->deletes[i].file.path;
		l->detail = floe_arena_printf(l->job->arena, "compacted: %lld units of %zu data files and %zu delete "
					      "files rewritten into %zu files (%zu big files without deletes kept)",
					      (long long)m.rewritten, scan->n_files, scan->n_deletes, l->out.n, carried);
	}
	error = 0;
cleanup:
	if (*skip)
		m.full = *skip; /* nothing to commit */
	finish(&m, error);
	return error;
}
