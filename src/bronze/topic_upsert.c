/*
 * topic_upsert.c — an upsert topic's batch as the final state per key, merged into
 * bronze through the same path incremental loads use (merge.c's bronze_merge_rows),
 * copy-on-write: the topic's commit replaces the files the batch touches (topic.c), and
 * no compaction folds a topic table's delete files back. Rows are sorted by key (stable:
 * equal keys keep message order) and the last message of each key decides.
 */
#include "bronze/topic_int.h"
#include "base/error.h"

#include <stdlib.h>
#include <string.h>

typedef struct sorter {
	const bronze_keys *k;
	floe_vector **keys;
} sorter;

static int by_key(const void *a, const void *b, void *ctx)
{
	const sorter *s = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = bronze_key_cmp(s->k, s->keys, i, s->keys, j);
	return c ? c : (i > j) - (i < j); /* stable: message order among equal keys */
}

static void keys_of(bronze_keys *k, const topic_columns *tc)
{
	memset(k, 0, sizeof(*k));
	k->n = tc->n_key;
	k->col = tc->key;
	k->watermark = -1;
}

/* Final rows (tombstones left out) into `chg`, every distinct key into `keys`. */
static void finals(topic_upsert *u, const bronze_keys *k, floe_vector *chg, floe_vector *keys)
{
	size_t n = u->rows[0].len;
	floe_vector *view[64];
	size_t *order = floe_arena_alloc(u->arena, (n + 1) * sizeof(size_t));
	sorter s = { k, view };
	bronze_key_view(k, view, u->rows);
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(size_t), by_key, &s);
	for (size_t i = 0; i < n; i++) {
		size_t r = order[i];
		if (i + 1 < n && bronze_key_cmp(k, view, r, view, order[i + 1]) == 0)
			continue; /* a later message of the same key decides */
		for (size_t c = 0; c < k->n; c++)
			floe_vector_append_row(&keys[c], view[c], r);
		if (u->tombstone[r]) {
			u->deleted++;
			continue;
		}
		for (size_t c = 0; c < u->tc->cols.n; c++)
			floe_vector_append_row(&chg[c], &u->rows[c], r);
		u->upserted++;
	}
}

static int live_files(size_t *out, topic_upsert *u)
{
	floe_iceberg_scan *scan = NULL;
	if (floe_iceberg_table_plan(&scan, u->arena, u->table, -1) < 0)
		return -1;
	*out = scan->n_files;
	return 0;
}

static int write_sorted(topic_upsert *u, floe_vector *chg)
{
	bronze_files_init(&u->out, u->arena, u->table, &u->tc->cols, (size_t)u->config->bronze.target_file_rows,
			  u->config->warehouse.zstd_level);
	size_t n = chg[0].len;
	floe_vector *part = bronze_vectors_new(u->arena, &u->tc->cols);
	int error = 0;
	for (size_t from = 0; from < n && error == 0;) {
		size_t take = bronze_files_room(&u->out) < n - from ? bronze_files_room(&u->out) : n - from;
		bronze_vectors_clear(part, u->tc->cols.n);
		for (size_t c = 0; c < u->tc->cols.n; c++)
			floe_vector_append_rows(&part[c], &chg[c], from, take);
		error = bronze_files_write(&u->out, part);
		from += take;
	}
	bronze_vectors_free(part, u->tc->cols.n);
	return error < 0 || bronze_files_close(&u->out) < 0 ? -1 : 0;
}

static int merge_into_files(topic_upsert *u, bronze_keys *k, floe_vector *chg, floe_vector *keys)
{
	floe_lock_table lt = { .bronze = floe_iceberg_table_name(u->table) };
	floe_bronze_result result = { 0 };
	bronze_job job = { .config = u->config, .table = &lt, .arena = u->arena, .result = &result };
	/* copy-on-write whatever [bronze] write-mode says: the topic's commit is a rewrite (topic.c) */
	bronze_load l = { .job = &job, .table = u->table, .cols = u->tc->cols, .keys = *k, .copy_on_write = true };
	const char *full = NULL;
	l.expect_snapshot = floe_iceberg_table_metadata(u->table)->current_snapshot_id;
	if (bronze_merge_rows(&l, chg, keys, &full) < 0)
		return -1;
	if (full) {
		floe_error_set(FLOE_ERR_CHECK, "the upsert into %s cannot merge by key: %s", lt.bronze, full);
		floe_error_hint("Only floe should write this table; drop it to reload the topic from its oldest offset.");
		return -1;
	}
	u->out = l.out;
	u->removed = l.removed;
	u->n_removed = l.n_removed;
	return 0;
}

int topic_upsert_prepare(topic_upsert *u)
{
	bronze_keys k;
	size_t n_files = 0;
	int error = -1;
	keys_of(&k, u->tc);
	floe_vector *chg = bronze_vectors_new(u->arena, &u->tc->cols);
	floe_vector *keys = floe_arena_alloc(u->arena, (k.n + 1) * sizeof(floe_vector));
	for (size_t c = 0; c < k.n; c++)
		floe_vector_init(&keys[c], u->tc->cols.fields[k.col[c]].type, u->tc->cols.fields[k.col[c]].length);
	finals(u, &k, chg, keys);
	if (live_files(&n_files, u) < 0)
		goto cleanup;
	if (n_files == 0 ? write_sorted(u, chg) < 0 : merge_into_files(u, &k, chg, keys) < 0)
		goto cleanup;
	error = 0;
cleanup:
	bronze_vectors_free(chg, u->tc->cols.n);
	for (size_t c = 0; c < k.n; c++)
		floe_vector_free(&keys[c]);
	return error;
}
