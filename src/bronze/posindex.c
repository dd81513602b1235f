/*
 * posindex.c — where each live row of a bronze table is: key → (data file, position), held
 * by `floe run --follow` (follow.c) across its batches so a merge-on-read batch finds the rows
 * it replaces and deletes without reading every key of the table (merge.c's find_existing).
 *
 * Built once by the merge's own scan of the table's units (deleted positions skipped, as the
 * scan path sees them) and carried forward by each commit the follower makes: the positions
 * the batch marked deleted leave, the rows of the data files it wrote come in (read back from
 * those small files). It reflects exactly one table snapshot; a merge whose snapshot is any
 * other (a compaction, another process's run, a repair, a full load) rebuilds it first, so a
 * position never comes from a stale index. Over the memory budget it is not built and the
 * merge scans as without it (said once).
 *
 * An open-addressing hash table of slots (key offset, file, position); keys as bytes in one
 * growing buffer (each column's fixed-width value, or a length and the bytes of a string).
 */
#include "bronze/bronze_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/log.h"
#include "iceberg/table.h"

#include <stdlib.h>
#include <string.h>

#define EMPTY 0
#define GONE UINT64_MAX

typedef struct slot {
	uint64_t key;                 /* offset + 1 in keys; EMPTY, or GONE (a removed entry) */
	uint32_t file;
	uint32_t pos;
} slot;

struct bronze_posindex {
	size_t budget;                /* bytes */
	const char *table;            /* for messages */
	int64_t snapshot;             /* the table snapshot it reflects; -1: none */
	char **paths;
	size_t n_paths, cap_paths;
	uint8_t *keys;
	size_t keys_len, keys_cap;
	slot *slots;
	size_t cap, used, live;       /* used: live and GONE slots */
	size_t *taken;                /* slots a batch marked deleted: they leave at its commit */
	size_t n_taken, cap_taken;
	int64_t taken_base;           /* the snapshot those were taken at; -1: none */
	bool said;                    /* the over-budget notice was logged */
	uint8_t *tmp;
	size_t tmp_cap;
};

void bronze_posindex_new(bronze_posindex **out, const char *table, size_t budget_bytes)
{
	bronze_posindex *ix = floe_xcalloc(1, sizeof(*ix));
	ix->budget = budget_bytes;
	ix->table = table;
	ix->snapshot = ix->taken_base = -1;
	*out = ix;
}

static void reset(bronze_posindex *ix)
{
	for (size_t i = 0; i < ix->n_paths; i++)
		free(ix->paths[i]);
	free(ix->paths);
	free(ix->keys);
	free(ix->slots);
	free(ix->taken);
	ix->paths = NULL;
	ix->keys = NULL;
	ix->slots = NULL;
	ix->taken = NULL;
	ix->n_paths = ix->cap_paths = ix->keys_len = ix->keys_cap = ix->cap = ix->used = ix->live = 0;
	ix->n_taken = ix->cap_taken = 0;
	ix->snapshot = ix->taken_base = -1;
}

void bronze_posindex_free(bronze_posindex *ix)
{
	if (!ix)
		return;
	reset(ix);
	free(ix->tmp);
	free(ix);
}

int64_t bronze_posindex_snapshot(const bronze_posindex *ix)
{
	return ix ? ix->snapshot : -1;
}

/* ---- keys as bytes ---- */

static void tmp_put(bronze_posindex *ix, size_t *len, const void *p, size_t n)
{
	if (*len + n > ix->tmp_cap) {
		ix->tmp_cap = (*len + n) * 2 + 64;
		ix->tmp = floe_xrealloc(ix->tmp, ix->tmp_cap);
	}
	memcpy(ix->tmp + *len, p, n);
	*len += n;
}

/* Key row `row` of `keys` as bytes in ix->tmp; 0 when a column's type has no byte form here. */
static size_t encode(bronze_posindex *ix, const bronze_keys *k, floe_vector *const *keys, size_t row)
{
	size_t len = 0;
	for (size_t c = 0; c < k->n; c++) {
		const floe_vector *v = keys[c];
		size_t w = floe_vec_type_width(v->type, v->width), n;
		if (v->type == FLOE_VEC_STRING || v->type == FLOE_VEC_BINARY) {
			const uint8_t *b = floe_vector_bytes(v, row, &n);
			uint32_t n32 = (uint32_t)n;
			tmp_put(ix, &len, &n32, sizeof(n32));
			tmp_put(ix, &len, b, n);
		} else if (w && v->type != FLOE_VEC_BOOLEAN) {
			tmp_put(ix, &len, v->v.u8 + row * w, w);
		} else {
			return 0; /* lists, structs (never keys), booleans: the scan path */
		}
	}
	return len;
}

static uint64_t hash_bytes(const uint8_t *p, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	return h ^ (h >> 33);
}

static const uint8_t *stored(const bronze_posindex *ix, const slot *s, uint32_t *len)
{
	memcpy(len, ix->keys + (s->key - 1), sizeof(*len));
	return ix->keys + (s->key - 1) + sizeof(*len);
}

/* The slot holding the key in ix->tmp[0, n), or the first free one on its probe path (*found false). */
static size_t probe(const bronze_posindex *ix, size_t n, bool *found)
{
	size_t mask = ix->cap - 1, i = (size_t)hash_bytes(ix->tmp, n) & mask, reuse = SIZE_MAX;
	*found = false;
	for (;; i = (i + 1) & mask) {
		const slot *s = &ix->slots[i];
		if (s->key == EMPTY)
			return reuse != SIZE_MAX ? reuse : i;
		if (s->key == GONE) {
			if (reuse == SIZE_MAX)
				reuse = i;
			continue;
		}
		uint32_t len;
		const uint8_t *b = stored(ix, s, &len);
		if (len == n && memcmp(b, ix->tmp, n) == 0) {
			*found = true;
			return i;
		}
	}
}

static void grow(bronze_posindex *ix, size_t want)
{
	size_t cap = 1024;
	if (ix->cap && want * 10 < ix->cap * 7)
		return; /* room below 70 % (GONE slots count: a probe must always meet an EMPTY one) */
	while (cap * 7 / 10 <= want)
		cap *= 2;
	slot *old = ix->slots;
	size_t old_cap = ix->cap;
	ix->slots = floe_xcalloc(cap, sizeof(slot));
	ix->cap = cap;
	ix->used = 0;
	for (size_t i = 0; i < old_cap; i++) {
		if (old[i].key == EMPTY || old[i].key == GONE)
			continue;
		uint32_t len;
		const uint8_t *b = stored(ix, &old[i], &len);
		size_t j = (size_t)hash_bytes(b, len) & (cap - 1);
		while (ix->slots[j].key != EMPTY)
			j = (j + 1) & (cap - 1);
		ix->slots[j] = old[i];
		ix->used++;
	}
	free(old);
}

static uint32_t file_id(bronze_posindex *ix, const char *path)
{
	for (size_t i = ix->n_paths; i-- > 0;) /* the scan reads file after file: the newest first */
		if (strcmp(ix->paths[i], path) == 0)
			return (uint32_t)i;
	if (ix->n_paths == ix->cap_paths) {
		ix->cap_paths = ix->cap_paths ? ix->cap_paths * 2 : 64;
		ix->paths = floe_xrealloc(ix->paths, ix->cap_paths * sizeof(char *));
	}
	ix->paths[ix->n_paths] = floe_xmalloc(strlen(path) + 1);
	memcpy(ix->paths[ix->n_paths], path, strlen(path) + 1);
	return (uint32_t)ix->n_paths++;
}

/* Add the key of scan row `row` at its position; false when it is there already (not a key). */
static bool add(bronze_posindex *ix, const bronze_keys *k, floe_vector *const *keys, size_t row, uint32_t file,
		int64_t pos)
{
	size_t n = encode(ix, k, keys, row);
	bool found;
	if (n == 0 || pos < 0 || pos > (int64_t)UINT32_MAX)
		return false;
	grow(ix, ix->used + 1);
	size_t i = probe(ix, n, &found);
	if (found)
		return false;
	uint32_t n32 = (uint32_t)n;
	if (ix->keys_len + n + sizeof(n32) > ix->keys_cap) {
		ix->keys_cap = (ix->keys_len + n + sizeof(n32)) * 3 / 2 + 4096;
		ix->keys = floe_xrealloc(ix->keys, ix->keys_cap);
	}
	memcpy(ix->keys + ix->keys_len, &n32, sizeof(n32));
	memcpy(ix->keys + ix->keys_len + sizeof(n32), ix->tmp, n);
	ix->used += ix->slots[i].key == EMPTY;
	ix->slots[i] = (slot){ .key = ix->keys_len + 1, .file = file, .pos = (uint32_t)pos };
	ix->keys_len += n + sizeof(n32);
	ix->live++;
	return true;
}

/* ---- building and carrying forward ---- */

/* Every key of `files` (units: `groups`, when set) with its position; false: not a key set. */
static int add_scanned(bronze_posindex *ix, bool *ok, bronze_load *l, const floe_iceberg_data_file *const *files,
		       const bronze_group *const *groups, size_t n)
{
	bronze_scan s;
	floe_vector *keys[64];
	const char *last = NULL;
	uint32_t file = 0;
	int rc = 0;
	*ok = true;
	bronze_scan_init(&s, l->job->arena, l->table, &l->cols, files, n, l->keys.col, l->keys.n);
	bronze_scan_groups(&s, groups, &l->keys);
	while (*ok && (rc = bronze_scan_next(&s)) > 0) {
		const char *path;
		int64_t pos;
		for (size_t i = 0; i < l->keys.n; i++)
			keys[i] = &s.vec[i];
		bronze_scan_position(&s, &path, &pos);
		if (path != last)
			file = file_id(ix, path);
		last = path;
		*ok = add(ix, &l->keys, keys, s.row, file, pos);
	}
	bronze_scan_close(&s);
	return rc < 0 ? -1 : 0;
}

/* What the index of `rows` rows of this key would take (slots at 70 % load, keys with their lengths). */
static size_t estimate(const bronze_load *l, int64_t rows)
{
	size_t key = 0;
	for (size_t c = 0; c < l->keys.n; c++) {
		const floe_pg_copy_column *col = &l->cols.copy[l->keys.col[c]];
		size_t w = floe_vec_type_width(col->vec, col->width);
		key += w ? w : 4 + 24; /* a string key: its length and a guess at its bytes */
	}
	size_t cap = 1024;
	while (cap * 7 / 10 < (size_t)rows)
		cap *= 2;
	return cap * sizeof(slot) + (size_t)rows * (key + 4);
}

int bronze_posindex_ready(bronze_posindex *ix, bronze_load *l, const floe_iceberg_data_file *const *files,
			  const bronze_group *const *groups, size_t n)
{
	int64_t rows = 0;
	bool ok = false;
	ix->n_taken = 0;
	ix->taken_base = -1;
	if (ix->snapshot == l->expect_snapshot && ix->snapshot >= 0) {
		ix->taken_base = l->expect_snapshot;
		floe_log_info("%s: positions from the index (%zu rows, snapshot %lld)", ix->table, ix->live,
			      (long long)ix->snapshot);
		return 1;
	}
	reset(ix); /* another snapshot than the one it reflects: never a stale position */
	if (l->keys.n == 0 || l->keys.n > 64)
		return 0;
	for (size_t f = 0; f < n; f++)
		rows += files[f]->record_count;
	if (estimate(l, rows) > ix->budget) {
		if (!ix->said)
			floe_log_warn("%s: the follower's position index would take about %zu MB, over "
				      "[cdc] follow-index-mb (%zu MB): each batch reads the table's keys instead",
				      ix->table, estimate(l, rows) >> 20, ix->budget >> 20);
		ix->said = true;
		return 0;
	}
	grow(ix, (size_t)rows);
	if (add_scanned(ix, &ok, l, files, groups, n) < 0)
		return -1;
	if (!ok) {
		reset(ix);
		floe_log_info("%s: no position index (a key that is not unique or has no byte form here)", ix->table);
		return 0;
	}
	ix->snapshot = ix->taken_base = l->expect_snapshot;
	floe_log_info("%s: position index built: %zu rows in %zu files, %zu MB", ix->table, ix->live, ix->n_paths,
		      (ix->cap * sizeof(slot) + ix->keys_cap) >> 20);
	return 1;
}

bool bronze_posindex_take(bronze_posindex *ix, const bronze_keys *k, floe_vector *const *keys, size_t row,
			  const char **path, int64_t *pos)
{
	size_t n = encode(ix, k, keys, row);
	bool found = false;
	size_t i = n ? probe(ix, n, &found) : 0;
	if (!found)
		return false;
	*path = ix->paths[ix->slots[i].file];
	*pos = ix->slots[i].pos;
	if (ix->n_taken == ix->cap_taken) {
		ix->cap_taken = ix->cap_taken ? ix->cap_taken * 2 : 256;
		ix->taken = floe_xrealloc(ix->taken, ix->cap_taken * sizeof(size_t));
	}
	ix->taken[ix->n_taken++] = i;
	return true;
}

void bronze_posindex_committed(bronze_posindex *ix, bronze_load *l, int64_t snapshot)
{
	bool ok = true, same = l->n_removed == 0;
	bool nothing = l->out.n == 0 && l->n_delete_files == 0 && same;
	if (snapshot < 0 || ix->snapshot < 0 || ix->snapshot != l->expect_snapshot || !same || (!nothing && ix->taken_base != ix->snapshot)) {
		reset(ix); /* a commit the index did not follow (a full load, a rewrite, a compaction) */
		return;
	}
	for (size_t t = 0; t < ix->n_taken; t++) {
		ix->slots[ix->taken[t]].key = GONE;
		ix->live--;
	}
	ix->n_taken = 0;
	const floe_iceberg_data_file **files = floe_arena_alloc(l->job->arena, (l->out.n + 1) * sizeof(*files));
	for (size_t f = 0; f < l->out.n; f++)
		files[f] = &l->out.files[f];
	if (l->out.n && add_scanned(ix, &ok, l, files, NULL, l->out.n) < 0) {
		floe_log_warn("%s: the position index is rebuilt next batch: %s", ix->table,
			      floe_error_last() ? floe_error_last()->message : "its new files could not be read");
		floe_error_clear();
		ok = false;
	}
	if (ok && ix->cap * sizeof(slot) + ix->keys_cap > ix->budget) { /* replaced keys' bytes stay until a rebuild */
		floe_log_info("%s: the position index outgrew [cdc] follow-index-mb: rebuilt at the next batch", ix->table);
		ok = false;
	}
	if (!ok) {
		reset(ix);
		return;
	}
	ix->snapshot = snapshot;
	ix->taken_base = -1;
}
