/*
 * test_merge.c — the incremental merge's decisions (src/bronze/merge.c): which files a changed
 * key goes to, which files form key ranges and what each range should count in the source, the
 * reasons that make a load a full one (overlapping files, missing bounds, delete files), and —
 * against a real Iceberg table with floe's own Parquet files — that a run of files whose rows all
 * come out equal is kept while a changed one is rewritten.
 */
#include "harness.h"

#include "base/arena.h"
#include "base/error.h"
#include "base/fs.h"
#include "bronze/bronze_int.h"
#include "iceberg/catalog.h"
#include "iceberg/metadata.h"
#include "iceberg/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A map of files with the given [lower, upper] bounds of a bigint key, in that order. */
static void map_of(bronze_file_map *map, floe_arena *a, const int64_t (*bounds)[2], size_t n)
{
	memset(map, 0, sizeof(*map));
	floe_vector_init(&map->lower, FLOE_VEC_LONG, 0);
	floe_vector_init(&map->upper, FLOE_VEC_LONG, 0);
	for (size_t f = 0; f < n; f++) {
		floe_vector_append_i64(&map->lower, bounds[f][0]);
		floe_vector_append_i64(&map->upper, bounds[f][1]);
	}
	map->n_files = n;
	map->touched = floe_arena_alloc(a, (n + 1) * sizeof(bool));
}

static void map_free(bronze_file_map *map)
{
	floe_vector_free(&map->lower);
	floe_vector_free(&map->upper);
}

/* Route one key; the file it goes to, and the touched files as a bit mask (cleared first). */
static size_t route_one(bronze_file_map *map, int64_t key, unsigned *touched)
{
	floe_vector k;
	floe_vector_init(&k, FLOE_VEC_LONG, 0);
	floe_vector_append_i64(&k, key);
	memset(map->touched, 0, map->n_files * sizeof(bool));
	size_t f = bronze_map_route(map, &k, 0);
	*touched = 0;
	for (size_t i = 0; i < map->n_files; i++)
		*touched |= (unsigned)map->touched[i] << i;
	floe_vector_free(&k);
	return f;
}

/* bronze_key_cmp's own comparisons of uuid and bigint keys order as floe_vector_compare_rows does. */
FLOE_TEST(bronze_key_cmp_orders_uuid_and_bigint_keys_as_the_vectors_do)
{
	floe_vector u, l, un;
	bronze_keys k = { .n = 1 };
	floe_vector_init(&u, FLOE_VEC_UUID, 16);
	floe_vector_init(&l, FLOE_VEC_LONG, 0);
	floe_vector_init(&un, FLOE_VEC_UUID, 16);
	uint64_t seed = 88172645463325252u;
	for (int r = 0; r < 400; r++) {
		uint8_t b[16];
		for (int i = 0; i < 16; i++) {
			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			b[i] = r % 7 == 0 && i < 8 ? 0x80 : (uint8_t)(r % 5 == 0 ? (i < 12 ? 0xFF : seed) : seed);
		}
		floe_vector_append_fixed(&u, b);
		floe_vector_append_i64(&l, r % 3 == 0 ? INT64_MIN + r : (int64_t)seed);
		if (r % 9 == 0)
			floe_vector_append_null(&un);
		else
			floe_vector_append_fixed(&un, b);
	}
	floe_vector *vs[3] = { &u, &l, &un };
	for (int v = 0; v < 3; v++) {
		floe_vector *key[1] = { vs[v] };
		for (size_t i = 0; i < vs[v]->len; i++)
			for (size_t j = 0; j < vs[v]->len; j += 7) {
				int want = floe_vector_compare_rows(vs[v], i, vs[v], j), got = bronze_key_cmp(&k, key, i, key, j);
				FLOE_CHECK((want > 0) == (got > 0) && (want < 0) == (got < 0));
			}
	}
	floe_vector_free(&u);
	floe_vector_free(&l);
	floe_vector_free(&un);
}

/* Row r of an ascending key (a uuid, bigint, text column, or the bigint then text pair) with value v, or a NULL first. */
static void append_key(floe_vector *v, int kind, int64_t x)
{
	char t[32];
	uint8_t b[16] = { 0 };
	switch (kind) {
	case 0: /* uuid: v as the big-endian last 8 bytes, a constant high half */
		b[0] = 0x7F;
		for (int i = 0; i < 8; i++)
			b[8 + i] = (uint8_t)((uint64_t)x >> (56 - 8 * i));
		floe_vector_append_fixed(v, b);
		return;
	case 1: floe_vector_append_i64(v, x * 3 - 1000); return;
	default:
		snprintf(t, sizeof(t), "k%08lld", (long long)x);
		floe_vector_append_bytes(v, t, strlen(t));
	}
}

/* Whether rows [0, n) ascend strictly, pair by pair through bronze_key_cmp (the oracle). */
static bool ascends_by_pairs(const bronze_keys *k, floe_vector *const *keys, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (bronze_key_cmp(k, keys, i - 1, keys, i) >= 0)
			return false;
	return true;
}

/* bronze_keys_ascending (the key pass's order check, a batch at a time) agrees with pairwise comparison:
 * true for an ascending batch, false for one equal or swapped pair anywhere, for every key shape. */
FLOE_TEST(bronze_keys_ascending_is_the_pairwise_order_for_every_key_shape)
{
	static const floe_vec_type types[] = { FLOE_VEC_UUID, FLOE_VEC_LONG, FLOE_VEC_STRING };
	enum { ROWS = 300 };
	for (int shape = 0; shape < 5; shape++) { /* uuid, bigint, text, bigint + text, uuid with a NULL first */
		int kind = shape == 4 ? 0 : shape == 3 ? 1 : shape, refused = 0;
		for (int bad = -1; bad < 2 * ROWS; bad += bad < 0 ? 1 : 37) {
			floe_vector v[2];
			floe_vector *keys[2] = { &v[0], &v[1] };
			bronze_keys k = { .n = shape == 3 ? 2 : 1 };
			floe_vector_init(&v[0], types[kind], kind == 0 ? 16 : 0);
			floe_vector_init(&v[1], FLOE_VEC_STRING, 0);
			for (int64_t r = 0; r < ROWS; r++) {
				int64_t x = r;
				if (bad >= 0 && r == bad % ROWS)
					x = bad < ROWS ? r - 1 : r - 2; /* an equal pair, or one out of order */
				if (shape == 4 && r == 0)
					floe_vector_append_null(&v[0]);
				else
					append_key(&v[0], kind, shape == 3 ? r / 4 : x); /* the pair: runs of equal firsts */
				append_key(&v[1], 2, x);
			}
			bool want = ascends_by_pairs(&k, keys, ROWS);
			FLOE_CHECK(bronze_keys_ascending(&k, keys, ROWS) == want);
			FLOE_CHECK(bad >= 0 || want); /* the untouched batch ascends */
			refused += !want;
			FLOE_CHECK(bronze_keys_ascending(&k, keys, 1) && bronze_keys_ascending(&k, keys, 0));
			floe_vector_free(&v[0]);
			floe_vector_free(&v[1]);
		}
		FLOE_CHECK(refused >= 8); /* most perturbed batches do not ascend: the check is not vacuous */
	}
}

FLOE_TEST(bronze_merge_routes_a_key_to_the_file_that_holds_it)
{
	static const int64_t b[][2] = { { 10, 20 }, { 30, 40 }, { 50, 60 } };
	floe_arena *a = floe_arena_new();
	bronze_file_map map;
	unsigned t;
	map_of(&map, a, b, 3);
	FLOE_CHECK(route_one(&map, 15, &t) == 0 && t == 1u);
	FLOE_CHECK(route_one(&map, 10, &t) == 0 && t == 1u);  /* on a lower bound */
	FLOE_CHECK(route_one(&map, 40, &t) == 1 && t == 2u);  /* on an upper bound */
	FLOE_CHECK(route_one(&map, 55, &t) == 2 && t == 4u);
	/* a new key between files goes to the file before it: files grow, they do not multiply */
	FLOE_CHECK(route_one(&map, 25, &t) == 0 && t == 1u);
	FLOE_CHECK(route_one(&map, 45, &t) == 1 && t == 2u);
	/* below every file: the first; above every file: the last */
	FLOE_CHECK(route_one(&map, 1, &t) == 0 && t == 1u);
	FLOE_CHECK(route_one(&map, 99, &t) == 2 && t == 4u);
	map_free(&map);
	floe_arena_free(a);
}

FLOE_TEST(bronze_merge_routes_a_key_on_a_shared_bound_to_every_file_that_may_hold_it)
{
	/* truncated string bounds can make neighbours share a bound: the key may be in either */
	static const int64_t b[][2] = { { 10, 30 }, { 30, 40 }, { 50, 60 } };
	floe_arena *a = floe_arena_new();
	bronze_file_map map;
	unsigned t;
	map_of(&map, a, b, 3);
	FLOE_CHECK(route_one(&map, 30, &t) == 0 && t == 3u);
	map_free(&map);
	map_of(&map, a, b, 0);
	FLOE_CHECK(route_one(&map, 30, &t) == BRONZE_NO_FILE && t == 0u); /* no files yet */
	map_free(&map);
	floe_arena_free(a);
}

FLOE_TEST(bronze_merge_key_ranges_break_only_at_clean_boundaries)
{
	/* 20 < 21 is clean; 30 == 30 is shared (one range); 40 < 50 is clean */
	static const int64_t b[][2] = { { 10, 20 }, { 21, 30 }, { 30, 40 }, { 50, 60 } };
	floe_arena *a = floe_arena_new();
	bronze_file_map map;
	floe_vector k;
	map_of(&map, a, b, 4);
	bronze_map_ranges(&map, a);
	FLOE_CHECK(map.n_ranges == 3);
	FLOE_CHECK(map.range_start[0] == 0 && map.range_start[1] == 1 && map.range_start[2] == 3 &&
		   map.range_start[3] == 4);
	floe_vector_init(&k, FLOE_VEC_LONG, 0);
	static const int64_t keys[] = { 5, 20, 21, 45, 49, 50, 99 };
	static const size_t want[] = { 0, 0, 1, 1, 1, 2, 2 };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		floe_vector_append_i64(&k, keys[i]);
		FLOE_CHECK(bronze_map_range_of(&map, &k, i) == want[i]);
	}
	floe_vector_free(&k);
	map_free(&map);
	floe_arena_free(a);
}

FLOE_TEST(bronze_merge_key_ranges_are_at_most_64)
{
	int64_t (*b)[2] = calloc(130, sizeof(*b));
	floe_arena *a = floe_arena_new();
	bronze_file_map map;
	for (int f = 0; f < 130; f++) {
		b[f][0] = f * 10;
		b[f][1] = f * 10 + 5;
	}
	map_of(&map, a, (const int64_t(*)[2])b, 130);
	bronze_map_ranges(&map, a);
	FLOE_CHECK(map.n_ranges > 1 && map.n_ranges <= BRONZE_MAX_RANGES);
	FLOE_CHECK(map.range_start[0] == 0 && map.range_start[map.n_ranges] == 130);
	for (size_t r = 0; r < map.n_ranges; r++)
		FLOE_CHECK(map.range_start[r] < map.range_start[r + 1]);
	map_free(&map);
	floe_arena_free(a);
	free(b);
}

FLOE_TEST(bronze_merge_finds_the_key_ranges_whose_count_moved)
{
	static const int64_t b[][2] = { { 10, 20 }, { 21, 30 }, { 30, 40 }, { 50, 60 } };
	floe_arena *a = floe_arena_new();
	floe_iceberg_data_file files[4];
	const floe_iceberg_data_file *fp[4];
	bronze_file_map map;
	floe_vector chg;
	map_of(&map, a, b, 4);
	bronze_map_ranges(&map, a);
	for (int f = 0; f < 4; f++) {
		files[f] = (floe_iceberg_data_file)FLOE_ICEBERG_DATA_FILE_INIT;
		files[f].record_count = 10 * (f + 1);
		fp[f] = &files[f];
	}
	/* changes: 5 new (range 0), 25 new and 35 already in bronze (range 1), 55 new (range 2) */
	static const int64_t keys[] = { 5, 25, 35, 55 };
	static const bool exists[] = { false, false, true, false };
	floe_vector_init(&chg, FLOE_VEC_LONG, 0);
	for (int i = 0; i < 4; i++)
		floe_vector_append_i64(&chg, keys[i]);
	int64_t expected[3];
	bronze_map_expect(&map, expected, fp, &chg, exists, 4);
	FLOE_CHECK(expected[0] == 10 + 1 && expected[1] == 20 + 30 + 1 && expected[2] == 40 + 1);
	/* the source lost a row in range 1 only: that range, and no other, gets a key-set diff */
	const int64_t source[3] = { 11, 50, 41 };
	size_t moved = 0, which = 99;
	for (size_t r = 0; r < map.n_ranges; r++)
		if (source[r] != expected[r]) {
			moved++;
			which = r;
		}
	FLOE_CHECK(moved == 1 && which == 1);
	floe_vector_free(&chg);
	map_free(&map);
	floe_arena_free(a);
}

FLOE_TEST(bronze_merge_sorts_files_by_bounds_and_refuses_overlaps)
{
	floe_arena *a = floe_arena_new();
	bronze_file_map map = { 0 };
	floe_vector lo, up;
	size_t order[3];
	static const int64_t in[][2] = { { 50, 60 }, { 10, 20 }, { 30, 40 } };
	floe_vector_init(&lo, FLOE_VEC_LONG, 0);
	floe_vector_init(&up, FLOE_VEC_LONG, 0);
	for (int f = 0; f < 3; f++) {
		floe_vector_append_i64(&lo, in[f][0]);
		floe_vector_append_i64(&up, in[f][1]);
	}
	FLOE_CHECK(bronze_map_sort(&map, a, &lo, &up, 3, order) == NULL);
	FLOE_CHECK(order[0] == 1 && order[1] == 2 && order[2] == 0);
	FLOE_CHECK(map.n_files == 3 && map.lower.v.i64[0] == 10 && map.upper.v.i64[2] == 60);
	/* [25, 45] reaches into [30, 40]'s range: not files floe wrote; load in full */
	up.v.i64[1] = 45;
	lo.v.i64[1] = 25;
	up.v.i64[2] = 40;
	const char *why = bronze_map_sort(&map, a, &lo, &up, 3, order);
	FLOE_CHECK(why && strstr(why, "loaded in full: the data files overlap in key ranges"));
	floe_vector_free(&lo);
	floe_vector_free(&up);
	map_free(&map);
	floe_arena_free(a);
}

FLOE_TEST(bronze_merge_needs_bounds_and_no_delete_files)
{
	floe_arena *a = floe_arena_new();
	floe_vector lo, up;
	floe_iceberg_field key0 = { 1, "id", true, NULL, NULL };
	floe_iceberg_column_stats with[1] = { { 1, 100, 42, 0, -1, true, true, (const uint8_t *)"\x01\0\0\0\0\0\0\0",
						 8, (const uint8_t *)"\x2a\0\0\0\0\0\0\0", 8 } };
	floe_iceberg_column_stats without[1] = { FLOE_ICEBERG_COLUMN_STATS_INIT };
	floe_iceberg_data_file d = FLOE_ICEBERG_DATA_FILE_INIT;
	floe_vector_init(&lo, FLOE_VEC_LONG, 0);
	floe_vector_init(&up, FLOE_VEC_LONG, 0);
	d.path = "file:///w/bronze/t/data/a.parquet";
	d.columns = with;
	d.n_columns = 1;
	FLOE_CHECK(bronze_map_bounds(a, &lo, &up, &d, &key0) == NULL);
	FLOE_CHECK(lo.len == 1 && lo.v.i64[0] == 1 && up.v.i64[0] == 42);
	without[0].field_id = 1;
	d.columns = without;
	const char *why = bronze_map_bounds(a, &lo, &up, &d, &key0);
	FLOE_CHECK_STR(why, "loaded in full: data file \"file:///w/bronze/t/data/a.parquet\" has no bounds for \"id\"");
	d.n_columns = 0;
	FLOE_CHECK(bronze_map_bounds(a, &lo, &up, &d, &key0) != NULL);
	d.columns = with;
	d.n_columns = 1;
	d.content = FLOE_ICEBERG_CONTENT_EQUALITY_DELETES;
	FLOE_CHECK_STR(bronze_map_bounds(a, &lo, &up, &d, &key0), "loaded in full: the table has delete files");
	floe_vector_free(&lo);
	floe_vector_free(&up);
	floe_arena_free(a);
}

/* ---- the rewrite, against a real table: files of ids 2, 4, … 60 (10 rows each), v = "v<id>" ---- */

typedef struct table_env {
	char dir[64];
	floe_arena *a;
	floe_config config;
	floe_lock_table lt;
	bronze_job job;
	floe_bronze_result result;
	floe_iceberg_catalog *catalog;
	bronze_load l;
	const char *initial[3];    /* the first files' URIs, in key order */
} table_env;

static const floe_lock_type LONG_T = { .kind = FLOE_PLAN_PRIMITIVE, .primitive = "long" };
static const floe_lock_type STRING_T = { .kind = FLOE_PLAN_PRIMITIVE, .primitive = "string" };
static floe_lock_column COLUMNS[2] = {
	{ .id = 1, .name = "id", .attnum = 1, .pg_type = "bigint", .cls = "exact", .required = true, .type = &LONG_T },
	{ .id = 2, .name = "v", .attnum = 2, .pg_type = "text", .cls = "exact", .type = &STRING_T },
};
static const char *KEY[1] = { "id" };

/* Rows (id, "v<id>" or `text` when given) as fresh vectors of the table's columns. */
static floe_vector *rows_of(table_env *e, const int64_t *ids, const char *const *texts, size_t n)
{
	floe_vector *v = bronze_vectors_new(e->a, &e->l.cols);
	for (size_t i = 0; i < n; i++) {
		char text[32];
		snprintf(text, sizeof(text), "v%lld", (long long)ids[i]);
		const char *t = texts && texts[i] ? texts[i] : text;
		floe_vector_append_i64(&v[0], ids[i]);
		floe_vector_append_bytes(&v[1], t, strlen(t));
	}
	return v;
}

static bool env_table(table_env *e)
{
	static const uint32_t oids[2] = { 20, 25 }, elems[2] = { 0, 0 };
	floe_iceberg_catalog_opts co = FLOE_ICEBERG_CATALOG_OPTS_INIT;
	floe_iceberg_commit_opts o = FLOE_ICEBERG_COMMIT_OPTS_INIT;
	memset(e, 0, sizeof(*e));
	snprintf(e->dir, sizeof(e->dir), "/tmp/floe-merge-XXXXXX");
	if (!mkdtemp(e->dir))
		return false;
	e->a = floe_arena_new();
	e->config.bronze.target_file_rows = 10;
	e->config.bronze.write_mode = "copy-on-write"; /* the tests that want merge-on-read say so */
	e->lt = (floe_lock_table){ .schema = "public", .name = "t", .bronze = "bronze.t", .mode = FLOE_LOAD_INCREMENTAL,
				   .key = KEY, .n_key = 1, .columns = COLUMNS, .n_columns = 2 };
	e->job = (bronze_job){ .config = &e->config, .table = &e->lt, .arena = e->a, .result = &e->result };
	e->l.job = &e->job;
	co.create = true;
	co.warehouse = e->dir;
	if (bronze_columns_build(&e->l.cols, e->a, &e->lt, oids, elems, 2) < 0 ||
	    floe_iceberg_catalog_open_sql(&e->catalog, floe_arena_printf(e->a, "%s/catalog.db", e->dir), &co) < 0 ||
	    floe_iceberg_table_create(&e->l.table, e->catalog, "bronze", "t", e->l.cols.schema, NULL) < 0)
		return false;
	bronze_keys_init(&e->l.keys, e->a, &e->lt, &e->l.cols);
	int64_t ids[30];
	for (int i = 0; i < 30; i++)
		ids[i] = 2 * (i + 1);
	floe_vector *v = rows_of(e, ids, NULL, 30);
	bronze_files_init(&e->l.out, e->a, e->l.table, &e->l.cols, 10, 0);
	bool ok = true;
	for (size_t from = 0; from < 30 && ok; from += 10) { /* the writer takes at most `room` rows */
		floe_vector *part = rows_of(e, ids + from, NULL, 10);
		ok = bronze_files_write(&e->l.out, part) == 0;
		bronze_vectors_free(part, 2);
	}
	ok = ok && bronze_files_close(&e->l.out) == 0 && e->l.out.n == 3 &&
	     floe_iceberg_table_replace(e->l.table, e->l.out.files, e->l.out.n, &o) == 0;
	bronze_vectors_free(v, 2);
	for (size_t f = 0; ok && f < 3; f++)
		e->initial[f] = floe_arena_strdup(e->a, e->l.out.files[f].path);
	e->l.expect_snapshot = floe_iceberg_table_metadata(e->l.table)->current_snapshot_id;
	return ok;
}

static void env_table_close(table_env *e)
{
	floe_iceberg_table_free(e->l.table);
	floe_iceberg_catalog_free(e->catalog);
	floe_fs_remove_tree(e->dir);
	floe_arena_free(e->a);
	floe_error_clear();
}

/* Merge rows (ids, texts) and requested keys; the reason for a full load, if any. */
static const char *merge(table_env *e, const int64_t *ids, const char *const *texts, size_t n,
			 const int64_t *keys, size_t n_keys, int *rc)
{
	const char *full = NULL;
	floe_vector *rows = rows_of(e, ids, texts, n);
	floe_vector key;
	floe_vector_init(&key, FLOE_VEC_LONG, 0);
	for (size_t i = 0; i < n_keys; i++)
		floe_vector_append_i64(&key, keys[i]);
	e->l.n_removed = 0;
	*rc = bronze_merge_rows(&e->l, rows, &key, &full);
	bronze_vectors_free(rows, 2);
	floe_vector_free(&key);
	return full;
}

/* Which of the first files (0: ids 2-20, 1: 22-40, 2: 42-60) the merge's i-th removal is; -1: none. */
static int removed_file(const table_env *e, size_t i)
{
	for (int f = 0; i < e->l.n_removed && f < 3; f++)
		if (strcmp(e->l.removed[i], e->initial[f]) == 0)
			return f;
	return -1;
}

FLOE_TEST(bronze_merge_keeps_a_file_whose_rows_all_come_out_equal)
{
	table_env e;
	int rc = 0;
	FLOE_CHECK(env_table(&e));
	/* the late window re-read two rows that did not change: nothing is rewritten */
	static const int64_t same[] = { 14, 16 };
	FLOE_CHECK(merge(&e, same, NULL, 2, same, 2, &rc) == NULL && rc == 0);
	FLOE_CHECK(e.l.n_removed == 0 && e.l.out.n == 0);
	/* one of them changed: its file (ids 2-20) alone is rewritten, as one file of 10 rows */
	static const char *const changed[] = { NULL, "changed" };
	FLOE_CHECK(merge(&e, same, changed, 2, same, 2, &rc) == NULL && rc == 0);
	FLOE_CHECK(e.l.n_removed == 1 && removed_file(&e, 0) == 0);
	FLOE_CHECK(e.l.out.n == 1 && e.l.out.files[0].record_count == 10);
	bronze_files_discard(&e.l.out, 0);
	env_table_close(&e);
}

FLOE_TEST(bronze_merge_rewrites_only_the_files_a_change_or_delete_goes_to)
{
	table_env e;
	int rc = 0;
	FLOE_CHECK(env_table(&e));
	/* a new key between the first two files joins the first: it grows to 11 rows */
	static const int64_t between[] = { 21 };
	FLOE_CHECK(merge(&e, between, NULL, 1, between, 1, &rc) == NULL && rc == 0);
	FLOE_CHECK(e.l.n_removed == 1 && removed_file(&e, 0) == 0);
	FLOE_CHECK(e.l.out.n == 2 && e.l.out.files[0].record_count + e.l.out.files[1].record_count == 11);
	bronze_files_discard(&e.l.out, 0);
	/* a requested key the source no longer has is deleted from its file (22-40) only */
	static const int64_t gone[] = { 30 };
	FLOE_CHECK(merge(&e, NULL, NULL, 0, gone, 1, &rc) == NULL && rc == 0);
	FLOE_CHECK(e.l.n_removed == 1 && removed_file(&e, 0) == 1);
	FLOE_CHECK(e.l.out.n == 1 && e.l.out.files[0].record_count == 9);
	bronze_files_discard(&e.l.out, 0);
	/* a change in the last file and a delete in the first: two runs, each rewritten alone */
	static const int64_t two[] = { 4, 50 };
	static const int64_t upd[] = { 50 };
	static const char *const text[] = { "new" };
	FLOE_CHECK(merge(&e, upd, text, 1, two, 2, &rc) == NULL && rc == 0);
	FLOE_CHECK(e.l.n_removed == 2 && removed_file(&e, 0) == 0 && removed_file(&e, 1) == 2);
	bronze_files_discard(&e.l.out, 0);
	env_table_close(&e);
}

/* ---- merge-on-read (mor.c): deltas and position deletes, units read back in key order ---- */

static int64_t commit_mor(table_env *e)
{
	floe_iceberg_commit_opts o = FLOE_ICEBERG_COMMIT_OPTS_INIT;
	if (floe_iceberg_table_row_delta(e->l.table, NULL, 0, e->l.out.files, e->l.out.n, e->l.delete_files,
					 e->l.n_delete_files, &o) < 0)
		return -1;
	e->l.expect_snapshot = floe_iceberg_table_metadata(e->l.table)->current_snapshot_id;
	return e->l.expect_snapshot;
}

FLOE_TEST(bronze_merge_on_read_writes_deltas_and_position_deletes)
{
	table_env e;
	int rc = 0;
	FLOE_CHECK(env_table(&e));
	e.config.bronze.write_mode = "merge-on-read";
	/* 14 changes, 21 is new (between the first two files: the first's range), 30 is gone */
	static const int64_t ids[] = { 14, 21 }, keys[] = { 14, 21, 30 };
	static const char *const text[] = { "x", NULL };
	FLOE_CHECK(merge(&e, ids, text, 2, keys, 3, &rc) == NULL && rc == 0);
	FLOE_CHECK(e.l.mor && e.l.n_removed == 0);             /* nothing rewritten */
	FLOE_CHECK(e.l.out.n == 1 && e.l.out.files[0].record_count == 2); /* one delta: 14, 21 */
	FLOE_CHECK(e.l.n_delete_files == 1 && e.l.delete_files[0].record_count == 2); /* old 14, 30 */
	FLOE_CHECK(commit_mor(&e) > 0);
	/* Units: the first file and its delta are one range; the second has a delete; the third alone. */
	floe_iceberg_scan *scan = NULL;
	bronze_units u;
	floe_vector lo, up;
	floe_vector_init(&lo, FLOE_VEC_LONG, 0);
	floe_vector_init(&up, FLOE_VEC_LONG, 0);
	FLOE_CHECK(floe_iceberg_table_plan_live(&scan, e.a, e.l.table, -1) == 0);
	FLOE_CHECK(scan && bronze_mor_units(&u, e.a, scan, &e.l.cols.schema->fields[0], &e.l.cols.copy[0], 1000,
					    &lo, &up) == NULL);
	FLOE_CHECK(u.n == 3 && u.groups[0] && u.groups[0]->n == 2 && u.groups[1] && u.groups[1]->n == 1 && !u.groups[2]);
	FLOE_CHECK(u.n == 3 && u.files[0]->record_count == 11 && u.files[1]->record_count == 9 && u.live_rows == 30);
	FLOE_CHECK(lo.len == 3 && lo.v.i64[0] == 2 && up.v.i64[0] == 21);
	/* The first range reads as one, in key order, with 14's new value and no old one. */
	size_t all[2] = { 0, 1 };
	bronze_scan s;
	int64_t prev = 0, n = 0;
	bool ordered = true, new14 = false;
	bronze_scan_init(&s, e.a, e.l.table, &e.l.cols, u.files, 1, all, 2);
	bronze_scan_groups(&s, u.groups, &e.l.keys);
	while ((rc = bronze_scan_next(&s)) > 0) {
		int64_t id = s.vec[0].v.i64[s.row];
		size_t len = 0;
		const uint8_t *v = floe_vector_bytes(&s.vec[1], s.row, &len);
		ordered &= id > prev;
		prev = id;
		n++;
		if (id == 14)
			new14 = len == 1 && v[0] == 'x';
		const char *path = NULL;
		int64_t pos = -1;
		bronze_scan_position(&s, &path, &pos);
		ordered &= path != NULL && pos >= 0;
	}
	bronze_scan_close(&s);
	FLOE_CHECK(rc == 0 && ordered && n == 11 && new14);
	floe_vector_free(&lo);
	floe_vector_free(&up);
	env_table_close(&e);
}

/* The write mode: a table's [bronze.write-modes] entry, then [bronze] write-mode, then merge-on-read. */
FLOE_TEST(bronze_write_mode_defaults_to_merge_on_read)
{
	floe_config c;
	const char *keys[] = { "public.events" }, *values[] = { "copy-on-write" };
	memset(&c, 0, sizeof(c));
	FLOE_CHECK(bronze_mor_enabled(&c, "public.orders"));   /* unset: merge-on-read */
	c.bronze.write_modes = (floe_string_map){ keys, values, 1 };
	FLOE_CHECK(!bronze_mor_enabled(&c, "public.events"));  /* the table's own entry wins */
	FLOE_CHECK(bronze_mor_enabled(&c, "public.orders"));
	c.bronze.write_mode = "copy-on-write";
	FLOE_CHECK(!bronze_mor_enabled(&c, "public.orders"));  /* said for every table */
	c.bronze.write_mode = "merge-on-read";
	FLOE_CHECK(bronze_mor_enabled(&c, "public.orders"));
	FLOE_CHECK(!bronze_mor_enabled(&c, "public.events"));
}

/* Read unit 0 of the table's live files: ids and texts into out (at most 64), the path of each row. */
static size_t read_first_unit(table_env *e, int64_t *ids, char texts[][16], const char **paths, size_t *members)
{
	floe_iceberg_scan *scan = NULL;
	bronze_units u;
	floe_vector lo, up;
	size_t all[2] = { 0, 1 }, n = 0;
	bronze_scan s;
	floe_vector_init(&lo, FLOE_VEC_LONG, 0);
	floe_vector_init(&up, FLOE_VEC_LONG, 0);
	if (floe_iceberg_table_plan_live(&scan, e->a, e->l.table, -1) < 0 ||
	    bronze_mor_units(&u, e->a, scan, &e->l.cols.schema->fields[0], &e->l.cols.copy[0], 1000, &lo, &up) ||
	    !u.groups[0])
		return 0;
	*members = u.groups[0]->n;
	bronze_scan_init(&s, e->a, e->l.table, &e->l.cols, u.files, 1, all, 2);
	bronze_scan_groups(&s, u.groups, &e->l.keys);
	while (n < 64 && bronze_scan_next(&s) > 0) {
		size_t len = 0;
		const uint8_t *v = floe_vector_bytes(&s.vec[1], s.row, &len);
		int64_t pos = -1;
		ids[n] = s.vec[0].v.i64[s.row];
		snprintf(texts[n], 16, "%.*s", (int)len, (const char *)v);
		bronze_scan_position(&s, &paths[n], &pos);
		n++;
	}
	bronze_scan_close(&s);
	floe_vector_free(&lo);
	floe_vector_free(&up);
	return n;
}

FLOE_TEST(bronze_scan_merges_a_range_of_several_deltas_as_it_streams)
{
	table_env e;
	int rc = 0;
	FLOE_CHECK(env_table(&e));
	e.config.bronze.write_mode = "merge-on-read";
	/* run 1: 4 changes, 7 and 21 are new; run 2: 4 and 12 change, 9 is new, 16 is gone */
	static const int64_t ids1[] = { 4, 7, 21 }, ids2[] = { 4, 9, 12 }, keys2[] = { 4, 9, 12, 16 };
	static const char *const text1[] = { "a4", NULL, NULL }, *const text2[] = { "b4", NULL, "b12" };
	FLOE_CHECK(merge(&e, ids1, text1, 3, ids1, 3, &rc) == NULL && rc == 0 && commit_mor(&e) > 0);
	FLOE_CHECK(merge(&e, ids2, text2, 3, keys2, 4, &rc) == NULL && rc == 0 && commit_mor(&e) > 0);
	int64_t ids[64];
	char texts[64][16];
	const char *paths[64];
	size_t members = 0, n = read_first_unit(&e, ids, texts, paths, &members);
	static const int64_t want[] = { 2, 4, 6, 7, 8, 9, 10, 12, 14, 18, 20, 21 };
	FLOE_CHECK(members == 3 && n == 12);
	for (size_t i = 0; i < n && n == 12; i++)
		FLOE_CHECK(ids[i] == want[i]);
	if (n == 12) {
		/* the newest version of each key, each row named by the file it came from */
		FLOE_CHECK_STR(texts[1], "b4");
		FLOE_CHECK_STR(texts[7], "b12");
		FLOE_CHECK_STR(texts[3], "v7");
		FLOE_CHECK(strcmp(paths[0], e.initial[0]) == 0 && strcmp(paths[2], e.initial[0]) == 0);
		FLOE_CHECK(strcmp(paths[1], paths[5]) == 0 && strcmp(paths[1], paths[7]) == 0); /* run 2's delta */
		FLOE_CHECK(strcmp(paths[3], paths[11]) == 0 && strcmp(paths[3], paths[1]) != 0); /* run 1's */
		FLOE_CHECK(strcmp(paths[3], e.initial[0]) != 0);
	}
	env_table_close(&e);
}

/* Whether path is among the compaction's removed files. */
static bool removed(const table_env *e, const char *path)
{
	for (size_t i = 0; i < e->l.n_removed; i++)
		if (strcmp(e->l.removed[i], path) == 0)
			return true;
	return false;
}

FLOE_TEST(bronze_compaction_keeps_a_big_file_without_deletes_and_folds_its_deltas)
{
	table_env e;
	int rc = 0;
	const char *skip = NULL;
	floe_bronze_compaction when = { true, 10, 20 };
	FLOE_CHECK(env_table(&e));
	e.config.bronze.write_mode = "merge-on-read";
	/* two runs insert into the first file's range (ids 2-20): two deltas, no deletes */
	static const int64_t ids1[] = { 7, 9 }, ids2[] = { 11 };
	FLOE_CHECK(merge(&e, ids1, NULL, 2, ids1, 2, &rc) == NULL && rc == 0 && commit_mor(&e) > 0);
	FLOE_CHECK(merge(&e, ids2, NULL, 1, ids2, 1, &rc) == NULL && rc == 0 && commit_mor(&e) > 0);
	const char *delta1 = NULL;
	floe_iceberg_scan *scan = NULL;
	FLOE_CHECK(floe_iceberg_table_plan_live(&scan, e.a, e.l.table, -1) == 0 && scan->n_files == 5);
	e.l.n_removed = 0;
	e.l.keys.unmergeable = NULL; /* this table has no watermark; compaction needs the key alone */
	e.config.bronze.target_file_rows = 40; /* small: under 10 rows */
	FLOE_CHECK(bronze_merge_compact(&e.l, &when, &skip) == 0 && skip == NULL);
	/* the two deltas (3 rows) fold into one file; the first file (10 rows, no deletes) stays */
	FLOE_CHECK(e.l.n_removed == 2 && !removed(&e, e.initial[0]));
	FLOE_CHECK(e.l.out.n == 1 && e.l.out.files[0].record_count == 3);
	for (size_t i = 0; scan && i < scan->n_files; i++)
		if (strcmp(scan->files[i].file.path, e.initial[0]) != 0 && scan->files[i].file.record_count == 2)
			delta1 = scan->files[i].file.path;
	FLOE_CHECK(delta1 && removed(&e, delta1));
	bronze_files_discard(&e.l.out, 0);
	/* a delete in the first file: then it is rewritten with its deltas */
	static const int64_t gone[] = { 4 };
	FLOE_CHECK(merge(&e, NULL, NULL, 0, gone, 1, &rc) == NULL && rc == 0 && commit_mor(&e) > 0);
	e.l.n_removed = 0;
	FLOE_CHECK(bronze_merge_compact(&e.l, &when, &skip) == 0 && skip == NULL);
	FLOE_CHECK(e.l.n_removed == 4 && removed(&e, e.initial[0])); /* 3 data files and the delete file */
	FLOE_CHECK(e.l.out.n == 1 && e.l.out.files[0].record_count == 12);
	bronze_files_discard(&e.l.out, 0);
	env_table_close(&e);
}

FLOE_TEST(bronze_files_written_on_a_thread_of_their_own_come_out_whole_and_in_order)
{
	table_env e;
	FLOE_CHECK(env_table(&e));
	int64_t ids[25];
	for (int i = 0; i < 25; i++)
		ids[i] = 100 + i;
	bronze_files_init(&e.l.out, e.a, e.l.table, &e.l.cols, 10, 0);
	FLOE_CHECK(bronze_files_async_start(&e.l.out) == 0 && e.l.out.async != NULL);
	bool ok = true;
	for (size_t from = 0; from < 25; from += 5) { /* batches of 5: two per file, handed back empty */
		floe_vector *batch = rows_of(&e, ids + from, NULL, 5);
		ok &= bronze_files_write_async(&e.l.out, batch) == 0 && batch[0].len == 0;
		bronze_vectors_free(batch, 2);
	}
	FLOE_CHECK(ok && bronze_files_close(&e.l.out) == 0 && bronze_files_async_stop(&e.l.out) == 0);
	FLOE_CHECK(e.l.out.async == NULL && e.l.out.n == 3);
	const floe_iceberg_data_file *files[3] = { NULL };
	for (size_t f = 0; f < 3 && e.l.out.n == 3; f++)
		files[f] = &e.l.out.files[f];
	FLOE_CHECK(files[2] && files[0]->record_count == 10 && files[1]->record_count == 10 &&
		   files[2]->record_count == 5);
	size_t all[2] = { 0, 1 };
	int64_t next = 100;
	int rc = 0;
	bronze_scan s;
	bronze_scan_init(&s, e.a, e.l.table, &e.l.cols, files, files[2] ? 3 : 0, all, 2);
	while ((rc = bronze_scan_next(&s)) > 0)
		ok &= s.vec[0].v.i64[s.row] == next++;
	bronze_scan_close(&s);
	FLOE_CHECK(rc == 0 && ok && next == 125);
	bronze_files_discard(&e.l.out, 0);
	env_table_close(&e);
}

FLOE_TEST(bronze_copy_on_write_merges_a_range_merge_on_read_left_overlapping)
{
	table_env e;
	int rc = 0;
	FLOE_CHECK(env_table(&e));
	e.config.bronze.write_mode = "merge-on-read";
	static const int64_t ids[] = { 7, 9 }; /* a delta inside the first file's range, no deletes */
	FLOE_CHECK(merge(&e, ids, NULL, 2, ids, 2, &rc) == NULL && rc == 0 && commit_mor(&e) > 0);
	/* the table back to copy-on-write: a change in that range rewrites the file and its delta */
	e.config.bronze.write_mode = "copy-on-write";
	static const int64_t upd[] = { 8 };
	static const char *const text[] = { "new" };
	FLOE_CHECK(merge(&e, upd, text, 1, upd, 1, &rc) == NULL && rc == 0);
	FLOE_CHECK(!e.l.mor && e.l.n_removed == 2 && removed(&e, e.initial[0]));
	FLOE_CHECK(e.l.out.n == 2 && e.l.out.files[0].record_count + e.l.out.files[1].record_count == 12);
	bronze_files_discard(&e.l.out, 0);
	env_table_close(&e);
}
