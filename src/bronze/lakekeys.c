/*
 * lakekeys.c — a merge-on-read table's key files: every data file a load of the table writes
 * leaves its keys on the local disk (files.c, keyindex/keyfile.h), so the next incremental load
 * finds the rows of its changed keys, counts the rows between two keys and lists the keys of a
 * few pieces by binary search over them (merge.c) instead of reading the touched units' key
 * columns — 2 M uuid keys, 32 MB, read and kept on every run that touches them all.
 *
 * A unit (mor.c: a file, or a file and the deltas in its range with their deleted positions)
 * is searched member by member; a member's deleted positions (its delete files', already read)
 * are skipped. A member without a key file (a table loaded before them, a lost cache, a file
 * another floe wrote) gets one made ahead from its key column, once. The cache follows the
 * table's commits: the key files of the files a commit removed go with it (a full load's: all
 * but its own), a discarded file's with it, and `floe expire` prunes what a killed run left.
 */
#include "bronze/bronze_int.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/log.h"
#include "keyindex/keyfile.h"
#include "keyindex/keyindex.h"

#include <stdlib.h>
#include <string.h>

typedef struct member {
	const char *path;
	size_t rows;
	const int64_t *deleted;        /* ascending */
	size_t n_deleted;
	floe_keyfile *kf;
	floe_vector *keys[64];
} member;

typedef struct unit {
	member *m;
	size_t n;
} unit;

struct bronze_lakekeys {
	const bronze_keys *k;
	unit *units;                   /* per unit of the merge; n 0: not opened (untouched) */
	size_t n_units;
};

/* ---- which tables, and where ---- */

static const char *keys_dir_of(bronze_load *l)
{
	const bronze_job *job = l->job;
	const char *off = getenv("FLOE_BRONZE_KEYFILES");
	int ids[64];
	if ((off && strcmp(off, "off") == 0) || !job->config->project_dir || l->keys.n == 0 || l->keys.n > 64 || l->keys.unmergeable ||
	    l->copy_on_write || !bronze_mor_enabled(job->config, floe_arena_printf(job->arena, "%s.%s", job->table->schema,
										    job->table->name)))
		return NULL;
	for (size_t i = 0; i < l->keys.n; i++) {
		if (!floe_keyfile_type_ok(l->cols.copy[l->keys.col[i]].vec))
			return NULL; /* a text key: its readers read its keys */
		ids[i] = (int)l->cols.schema->fields[l->keys.col[i]].id;
	}
	floe_buf d = FLOE_BUF_INIT;
	floe_keyindex_dir(&d, job->config->project_dir, job->table->bronze, ids, l->keys.n);
	const char *dir = floe_arena_strndup(job->arena, floe_buf_cstr(&d), d.len);
	floe_buf_free(&d);
	return dir;
}

const char *bronze_lakekeys_dir(bronze_load *l)
{
	if (!l->keys_dir_known) /* asked by every file a load writes, its commit and its merge */
		l->keys_dir = keys_dir_of(l), l->keys_dir_known = true;
	return l->keys_dir;
}

void bronze_lakekeys_attach(bronze_files *f, bronze_load *l)
{
	const char *dir = bronze_lakekeys_dir(l);
	if (dir)
		bronze_files_keep_keys(f, &l->keys, dir);
}

void bronze_lakekeys_committed(bronze_load *l, bool full)
{
	const char *dir = bronze_lakekeys_dir(l);
	if (!dir)
		return;
	if (full) { /* every earlier file left the table */
		const char **live = floe_arena_alloc(l->job->arena, (l->out.n + 1) * sizeof(char *));
		for (size_t i = 0; i < l->out.n; i++)
			live[i] = l->out.files[i].path;
		floe_keyfile_prune(dir, live, l->out.n);
		return;
	}
	for (size_t i = 0; i < l->n_removed; i++)
		floe_keyfile_remove(dir, l->removed[i]);
}

void bronze_lakekeys_prune(bronze_load *l, const floe_iceberg_scan *scan)
{
	const char *dir = bronze_lakekeys_dir(l);
	if (!dir)
		return;
	const char **live = floe_arena_alloc(l->job->arena, (scan->n_files + 1) * sizeof(char *));
	for (size_t i = 0; i < scan->n_files; i++)
		live[i] = scan->files[i].file.path;
	floe_keyfile_prune(dir, live, scan->n_files);
}

/* ---- opening a unit's members; a missing key file made ahead ---- */

/* The key file of `file`, made from its key column (every row, deleted ones too): *made false when its keys are
   not ascending or it could not be written; -1 only when the data file cannot be read. */
static int make_ahead(bronze_load *l, const char *dir, const floe_iceberg_data_file *file, bool *made)
{
	bronze_scan s;
	floe_vector *kept = floe_xcalloc(l->keys.n + 1, sizeof(floe_vector));
	floe_vector *batch[64], *keys[64];
	int rc;
	bool ascending = true;
	*made = false;
	for (size_t i = 0; i < l->keys.n; i++) {
		floe_vector_init(&kept[i], l->cols.copy[l->keys.col[i]].vec, l->cols.copy[l->keys.col[i]].width);
		floe_vector_reserve(&kept[i], (size_t)file->record_count);
		keys[i] = &kept[i];
	}
	bronze_scan_init(&s, l->job->arena, l->table, &l->cols, &file, 1, l->keys.col, l->keys.n);
	while (ascending && (rc = bronze_scan_next(&s)) > 0) {
		for (size_t i = 0; i < l->keys.n; i++)
			batch[i] = &s.vec[i];
		ascending = bronze_keys_append_ascending(&l->keys, keys, batch, s.rows);
		s.row = s.rows - 1; /* the batch is kept whole: on to the next */
	}
	bronze_scan_close(&s);
	int error = rc < 0 ? -1 : 0;
	if (error == 0 && ascending && (int64_t)kept[0].len == file->record_count) {
		*made = floe_keyfile_write(dir, file->path, keys, l->keys.n) == 0;
		if (!*made) { /* a cache: as files.c does, said at -vv and left out */
			floe_log_debug("the key file of %s was not written: %s", file->path, floe_error_last()->message);
			floe_error_clear();
		}
	}
	for (size_t i = 0; i < l->keys.n; i++)
		floe_vector_free(&kept[i]);
	free(kept);
	return error;
}

/* Member m of a unit, opened (made ahead when missing): 1; 0 when it has none (the scan path then); -1 on error. */
static int open_member(bronze_lakekeys *lk, bronze_load *l, const char *dir, floe_vector *const *like, member *m,
		       const floe_iceberg_data_file *file, size_t *made)
{
	const char *why = NULL;
	bool ahead = false;
	m->path = file->path;
	m->rows = (size_t)file->record_count;
	m->kf = floe_keyfile_open(dir, file->path, file->record_count, like, lk->k->n, &why);
	if (!m->kf) {
		floe_log_debug("%s: the key file of %s is not used: %s; made ahead", l->job->table->bronze, file->path, why);
		if (make_ahead(l, dir, file, &ahead) < 0)
			return -1;
		if (ahead) {
			(*made)++;
			m->kf = floe_keyfile_open(dir, file->path, file->record_count, like, lk->k->n, &why);
		}
	}
	if (!m->kf) {
		floe_log_info("%s: no key file for %s (its keys are not in key order, or it could not be written): "
			      "the touched files' keys are read", l->job->table->bronze, file->path);
		return 0;
	}
	for (size_t c = 0; c < lk->k->n; c++)
		m->keys[c] = floe_keyfile_column(m->kf, c);
	return 1;
}

int bronze_lakekeys_open(bronze_lakekeys **out, bronze_load *l, const floe_iceberg_data_file *const *files,
			 const bronze_group *const *groups, const bool *touched, size_t n, floe_vector *const *like)
{
	const char *dir = bronze_lakekeys_dir(l);
	size_t made = 0;
	int rc = 1;
	*out = NULL;
	if (!dir)
		return 0;
	bronze_lakekeys *lk = floe_xcalloc(1, sizeof(*lk));
	lk->k = &l->keys;
	lk->units = floe_xcalloc(n + 1, sizeof(unit));
	lk->n_units = n;
	double t = bronze_seconds();
	for (size_t f = 0; f < n && rc == 1; f++) {
		if (!touched[f])
			continue;
		const bronze_group *g = groups ? groups[f] : NULL;
		unit *u = &lk->units[f];
		u->m = floe_xcalloc(g ? g->n : 1, sizeof(member));
		for (size_t i = 0; i < (g ? g->n : 1) && rc == 1; i++) {
			member *m = &u->m[u->n++];
			if (g) {
				m->deleted = g->members[i]->deleted;
				m->n_deleted = g->members[i]->n_deleted;
			}
			rc = open_member(lk, l, dir, like, m, g ? &g->members[i]->file : files[f], &made);
		}
	}
	if (made && rc == 1)
		floe_log_info("%s: key files of %zu data files made ahead in %.4f s", l->job->table->bronze, made,
			      bronze_seconds() - t);
	if (rc != 1) {
		bronze_lakekeys_close(lk);
		return rc;
	}
	*out = lk;
	return 1;
}

void bronze_lakekeys_close(bronze_lakekeys *lk)
{
	if (!lk)
		return;
	for (size_t f = 0; f < lk->n_units; f++) {
		for (size_t i = 0; i < lk->units[f].n; i++)
			floe_keyfile_free(lk->units[f].m[i].kf);
		free(lk->units[f].m);
	}
	free(lk->units);
	free(lk);
}

/* ---- searching ---- */

static inline uint64_t be64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return __builtin_bswap64(v);
}

/* Row i of a first key column against row j of a bound of its type: a uuid's bytes and integers
   compared inline (a piece's count is two binary searches a file; memcmp called for 16 bytes was
   a tenth of a load's CPU), the rest as vectors compare. */
static inline int cmp_first(const floe_vector *a, size_t i, const floe_vector *b, size_t j)
{
	if (a->type == FLOE_VEC_UUID && b->type == FLOE_VEC_UUID) {
		uint64_t x = be64(a->v.fixed + i * 16), y = be64(b->v.fixed + j * 16);
		if (x == y)
			x = be64(a->v.fixed + i * 16 + 8), y = be64(b->v.fixed + j * 16 + 8);
		return (x > y) - (x < y);
	}
	if (a->type == FLOE_VEC_LONG && b->type == FLOE_VEC_LONG)
		return (a->v.i64[i] > b->v.i64[j]) - (a->v.i64[i] < b->v.i64[j]);
	return floe_vector_compare_rows(a, i, b, j);
}

/* The first row in [from, m->rows) whose first key column is at or after row `row` of `v` (NULL: m->rows):
   galloping from `from` (consecutive pieces' bounds are near each other), then a binary search. */
static size_t first_at(const member *m, size_t from, const floe_vector *v, size_t row)
{
	size_t lo = from, hi = m->rows, step = 1;
	if (!v)
		return m->rows;
	while (lo + step < hi && cmp_first(m->keys[0], lo + step, v, row) < 0) {
		lo += step;
		step *= 2;
	}
	hi = lo + step < hi ? lo + step + 1 : hi;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cmp_first(m->keys[0], mid, v, row) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first deleted position at or after `pos` (an index into m->deleted). */
static size_t deleted_from(const member *m, size_t pos)
{
	size_t lo = 0, hi = m->n_deleted;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->deleted[mid] < (int64_t)pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool bronze_lakekeys_find(const bronze_lakekeys *lk, size_t f, floe_vector *const *keys, size_t row, const char **path,
			  int64_t *pos, bool *twice)
{
	bool found = false;
	*twice = false;
	if (f >= lk->n_units)
		return false;
	for (size_t i = 0; i < lk->units[f].n; i++) {
		const member *m = &lk->units[f].m[i];
		size_t lo = 0, hi = m->rows;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (bronze_key_cmp(lk->k, m->keys, mid, keys, row) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == m->rows || bronze_key_cmp(lk->k, m->keys, lo, keys, row) != 0)
			continue;
		size_t d = deleted_from(m, lo);
		if (d < m->n_deleted && m->deleted[d] == (int64_t)lo)
			continue; /* that version was replaced or deleted */
		*twice = found;
		found = true;
		*path = m->path;
		*pos = (int64_t)lo;
	}
	return found;
}

/* Rows [*a, *b) of member m whose first key column is in [lo, hi) (NULL: unbounded). */
static void rows_between(const member *m, const floe_vector *lo, size_t lo_row, const floe_vector *hi, size_t hi_row,
			 size_t *a, size_t *b)
{
	*a = lo ? first_at(m, 0, lo, lo_row) : 0;
	*b = hi ? first_at(m, *a, hi, hi_row) : m->rows;
}

void bronze_lakekeys_count_pieces(const bronze_lakekeys *lk, size_t f, const floe_vector *const *bound,
				  const size_t *row, size_t n, int64_t *out)
{
	for (size_t i = 0; f < lk->n_units && i < lk->units[f].n; i++) {
		const member *m = &lk->units[f].m[i];
		size_t at = bound[0] ? first_at(m, 0, bound[0], row[0]) : 0, d = deleted_from(m, at);
		for (size_t j = 1; j <= n; j++) {
			size_t next = bound[j] ? first_at(m, at, bound[j], row[j]) : m->rows, dn = d;
			while (dn < m->n_deleted && m->deleted[dn] < (int64_t)next)
				dn++;
			out[j - 1] += (int64_t)(next - at) - (int64_t)(dn - d);
			at = next, d = dn;
		}
	}
}

int bronze_lakekeys_each(const bronze_lakekeys *lk, size_t f, const floe_vector *lo, size_t lo_row,
			 const floe_vector *hi, size_t hi_row, bronze_lakekeys_fn fn, void *ctx)
{
	size_t n = f < lk->n_units ? lk->units[f].n : 0;
	size_t *at = floe_xcalloc(n + 1, sizeof(size_t)), *end = floe_xcalloc(n + 1, sizeof(size_t));
	size_t *del = floe_xcalloc(n + 1, sizeof(size_t));
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		rows_between(&lk->units[f].m[i], lo, lo_row, hi, hi_row, &at[i], &end[i]);
		del[i] = deleted_from(&lk->units[f].m[i], at[i]);
	}
	for (;;) { /* the members merged in key order, their deleted positions skipped */
		size_t best = SIZE_MAX;
		for (size_t i = 0; i < n; i++) {
			const member *m = &lk->units[f].m[i];
			while (at[i] < end[i] && del[i] < m->n_deleted && m->deleted[del[i]] == (int64_t)at[i])
				at[i]++, del[i]++;
			if (at[i] < end[i] && (best == SIZE_MAX ||
					       bronze_key_cmp(lk->k, m->keys, at[i], lk->units[f].m[best].keys, at[best]) < 0))
				best = i;
		}
		if (best == SIZE_MAX)
			break;
		const member *m = &lk->units[f].m[best];
		if ((rc = fn(ctx, m->keys, at[best], m->path, (int64_t)at[best])) != 0)
			break;
		at[best]++;
	}
	free(at);
	free(end);
	free(del);
	return rc;
}
