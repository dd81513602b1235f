/*
 * test_topic.c — the Kafka topic load's pure parts (src/bronze/topic_decode.c): offsets to
 * and from the snapshot summary's JSON, and a message's JSON value decoded into a row or
 * rejected with a reason (nothing appended then).
 */
#include "harness.h"

#include "base/arena.h"
#include "base/error.h"
#include "bronze/topic_int.h"

#include <string.h>

FLOE_TEST(topic_offsets_round_trip)
{
	floe_arena *a = floe_arena_new();
	int32_t parts[] = { 0, 1, 2 };
	int64_t next[] = { 12, 0, 987654321012 };
	topic_offsets o = { parts, next, 3 }, back;
	floe_buf b = FLOE_BUF_INIT;
	topic_offsets_format(&b, &o, "shop.orders");
	FLOE_CHECK_STR(floe_buf_cstr(&b), "{\"shop.orders\":{\"0\":12,\"1\":0,\"2\":987654321012}}");
	FLOE_CHECK(topic_offsets_parse(&back, a, b.ptr, b.len, "shop.orders") == 0);
	FLOE_CHECK(back.n == 3 && topic_offsets_get(&back, 2, -1) == 987654321012);
	FLOE_CHECK(topic_offsets_get(&back, 7, -5) == -5);
	FLOE_CHECK(topic_offsets_parse(&back, a, b.ptr, b.len, "other") == 0 && back.n == 0);
	floe_buf_free(&b);
	floe_arena_free(a);
}

FLOE_TEST(topic_offsets_refuse_bad_summaries)
{
	floe_arena *a = floe_arena_new();
	topic_offsets o;
	static const char *const bad[] = { "[1]", "{\"t\":{\"x\":1}}", "{\"t\":{\"0\":-1}}", "{\"t\":{\"0\":1.5}}",
					   "{\"t\":[1]}", "{\"t\":{\"0\":\"1\"}}", "not json" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		FLOE_CHECK(topic_offsets_parse(&o, a, bad[i], strlen(bad[i]), "t") < 0);
		floe_error_clear();
	}
	floe_arena_free(a);
}

static floe_vector *vectors(floe_arena *a, const bronze_columns *c)
{
	floe_vector *v = floe_arena_alloc(a, c->n * sizeof(floe_vector));
	for (size_t i = 0; i < c->n; i++) {
		floe_vector_init(&v[i], c->fields[i].type, c->fields[i].length);
		v[i].precision = c->fields[i].precision;
		v[i].scale = c->fields[i].scale;
	}
	return v;
}

FLOE_TEST(topic_decode_rows_and_rejects)
{
	floe_arena *a = floe_arena_new();
	floe_config_kafka_column cols[] = { { "id", "long" }, { "price", "decimal(10,2)" }, { "at", "timestamptz" },
					    { "u", "uuid" }, { "d", "date" } };
	floe_config_kafka_topic t = { .topic = "t", .table = "t", .columns = cols, .n_columns = 5 };
	topic_columns tc;
	const char *why = NULL;
	FLOE_CHECK(topic_columns_build(&tc, a, &t) == 0 && tc.cols.n == 9);
	floe_vector *v = vectors(a, &tc.cols);
	const char *ok = "{\"id\": 7, \"price\": 12.5, \"at\": \"2018-10-18T10:00:00-03:00\", "
			 "\"u\": \"6f1c3a52-8d0e-4a55-9f0e-0c0c3f1b2a11\", \"d\": \"2018-10-18\"}";
	topic_message m = { 2, 41, 1000, "k", 1, ok, strlen(ok) };
	FLOE_CHECK(topic_decode(v, &tc, &m, a, &why) == 0);
	FLOE_CHECK(v[0].v.i32[0] == 2 && v[1].v.i64[0] == 41 && v[2].v.i64[0] == 1000000);
	FLOE_CHECK(v[4].v.i64[0] == 7 && v[5].v.dec[0].lo == 1250);
	FLOE_CHECK(v[6].v.i64[0] == (int64_t)1539867600 * 1000000); /* 13:00 UTC */
	static const char *const bad[] = { "{\"price\": 1.234}", "{\"id\": \"7\"}", "[1]", "nope",
					   "{\"at\": \"2018-10-18\"}", "{\"u\": \"xyz\"}", "{\"id\": 1.5}" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		topic_message b = { 0, (int64_t)i, -1, NULL, 0, bad[i], strlen(bad[i]) };
		why = NULL;
		FLOE_CHECK(topic_decode(v, &tc, &b, a, &why) == 1 && why != NULL);
	}
	FLOE_CHECK(v[0].len == 1 && v[8].len == 1); /* nothing appended by a reject */
	topic_message tomb = { 0, 9, -1, "k", 1, NULL, 0 };
	FLOE_CHECK(topic_decode(v, &tc, &tomb, a, &why) == 0 && v[4].len == 2 && !floe_vector_is_valid(&v[4], 1));
	for (size_t i = 0; i < tc.cols.n; i++)
		floe_vector_free(&v[i]);
	floe_arena_free(a);
}

FLOE_TEST(topic_columns_refuse_unreadable_types)
{
	floe_arena *a = floe_arena_new();
	floe_config_kafka_column cols[] = { { "x", "decimal(30,2)" } };
	floe_config_kafka_topic t = { .topic = "t", .table = "t", .columns = cols, .n_columns = 1 };
	topic_columns tc;
	FLOE_CHECK(topic_columns_build(&tc, a, &t) < 0);
	floe_error_clear();
	cols[0].type = "list<string>";
	FLOE_CHECK(topic_columns_build(&tc, a, &t) < 0);
	floe_error_clear();
	floe_arena_free(a);
}

FLOE_TEST(topic_infer_picks_the_narrowest_type_that_holds_every_value)
{
	floe_arena *a = floe_arena_new();
	topic_infer st = { .arena = a };
	static const char *const msgs[] = {
		"{\"id\": 1, \"price\": 2, \"u\": \"6f1c3a52-8d0e-4a55-9f0e-0c0c3f1b2a11\", \"d\": \"2018-10-18\", "
		"\"at\": \"2018-10-18T10:00:00Z\", \"ts\": \"2018-10-18 10:00:00\", \"ok\": true, \"mixed\": 1, \"_x\": 1}",
		"{\"id\": 2, \"price\": 2.5, \"u\": null, \"d\": \"2018-10-19\", \"at\": \"2018-10-18 10:00:00-03:00\", "
		"\"ts\": \"2018-10-18T11:00:00.25\", \"ok\": false, \"mixed\": \"one\", \"nested\": {\"a\": 1}}",
		"[1, 2]", "not json",
	};
	for (size_t i = 0; i < sizeof(msgs) / sizeof(msgs[0]); i++)
		topic_infer_add(&st, msgs[i], strlen(msgs[i]));
	topic_infer_add(&st, NULL, 0);
	floe_config_kafka_column *cols = NULL;
	size_t n = 0;
	topic_infer_columns(&st, &cols, &n);
	static const char *const want[][2] = { { "id", "long" }, { "price", "double" }, { "u", "uuid" }, { "d", "date" },
					       { "at", "timestamptz" }, { "ts", "timestamp" }, { "ok", "boolean" },
					       { "mixed", "string" }, { "nested", "string" } };
	FLOE_CHECK(st.messages == 2 && n == 9);
	for (size_t i = 0; i < n && i < 9; i++) {
		FLOE_CHECK_STR(cols[i].name, want[i][0]);
		FLOE_CHECK_STR(cols[i].type, want[i][1]);
	}
	/* every inferred type is one the decoder reads, and the first message decodes with them */
	floe_config_kafka_topic t = { .topic = "t", .table = "t", .columns = cols, .n_columns = n };
	topic_columns tc;
	FLOE_CHECK(topic_columns_build(&tc, a, &t) == 0);
	floe_arena_free(a);
}

/* ---- upsert through the bronze merge path, against a real table ---- */

#include "base/fs.h"
#include "iceberg/catalog.h"
#include "iceberg/table.h"

#include <stdlib.h>
#include <unistd.h>

typedef struct upsert_env {
	char dir[64];
	floe_arena *a;
	floe_config config;
	floe_iceberg_catalog *catalog;
	floe_iceberg_table *table;
	topic_columns tc;
} upsert_env;

static bool upsert_env_open(upsert_env *e)
{
	static floe_config_kafka_column cols[] = { { "id", "long" }, { "v", "string" } };
	static const char *key[] = { "id" };
	floe_config_kafka_topic t = { .topic = "t", .table = "t", .columns = cols, .n_columns = 2, .key = key,
				      .n_key = 1, .mode = FLOE_KAFKA_UPSERT };
	floe_iceberg_catalog_opts co = FLOE_ICEBERG_CATALOG_OPTS_INIT;
	memset(e, 0, sizeof(*e));
	snprintf(e->dir, sizeof(e->dir), "/tmp/floe-topic-XXXXXX");
	if (!mkdtemp(e->dir))
		return false;
	e->a = floe_arena_new();
	e->config.bronze.target_file_rows = 4;
	co.create = true;
	co.warehouse = e->dir;
	return topic_columns_build(&e->tc, e->a, &t) == 0 &&
	       floe_iceberg_catalog_open_sql(&e->catalog, floe_arena_printf(e->a, "%s/catalog.db", e->dir), &co) == 0 &&
	       floe_iceberg_table_create(&e->table, e->catalog, "bronze", "t", e->tc.cols.schema, NULL) == 0;
}

/* Messages (id, value; NULL value: tombstone) as one batch, merged and committed; rows in the table after. */
static int64_t upsert_batch(upsert_env *e, const int64_t *ids, const char *const *vals, size_t n, int64_t *upserted,
			    int64_t *deleted)
{
	floe_vector *rows = bronze_vectors_new(e->a, &e->tc.cols);
	bool *tomb = floe_arena_alloc(e->a, n + 1);
	for (size_t i = 0; i < n; i++) {
		floe_vector_append_i32(&rows[0], 0);
		floe_vector_append_i64(&rows[1], (int64_t)i);
		floe_vector_append_null(&rows[2]);
		floe_vector_append_null(&rows[3]);
		floe_vector_append_i64(&rows[4], ids[i]);
		if (vals[i])
			floe_vector_append_bytes(&rows[5], vals[i], strlen(vals[i]));
		else
			floe_vector_append_null(&rows[5]);
		tomb[i] = vals[i] == NULL;
	}
	topic_upsert u = { .table = e->table, .tc = &e->tc, .config = &e->config, .arena = e->a, .rows = rows,
			   .tombstone = tomb };
	floe_iceberg_commit_opts o = FLOE_ICEBERG_COMMIT_OPTS_INIT;
	int64_t total = -1;
	if (topic_upsert_prepare(&u) == 0 &&
	    floe_iceberg_table_rewrite(e->table, u.removed, u.n_removed, u.out.files, u.out.n, &o) == 0) {
		floe_iceberg_scan *scan = NULL;
		if (floe_iceberg_table_plan(&scan, e->a, e->table, -1) == 0)
			total = scan->record_count;
	}
	*upserted = u.upserted;
	*deleted = u.deleted;
	bronze_vectors_free(rows, e->tc.cols.n);
	return total;
}

FLOE_TEST(topic_upsert_last_message_per_key_wins_and_tombstones_delete)
{
	upsert_env e;
	int64_t up = 0, del = 0;
	FLOE_CHECK(upsert_env_open(&e));
	/* first batch: key 3 twice (the later wins), key 5 created then deleted, into an empty table */
	static const int64_t ids1[] = { 3, 1, 3, 5, 2, 5, 7, 9, 8 };
	static const char *const v1[] = { "a", "b", "c", "d", "e", NULL, "f", "g", "h" };
	FLOE_CHECK(upsert_batch(&e, ids1, v1, 9, &up, &del) == 6 && up == 6 && del == 1);
	/* second batch: merged into the files the first wrote, copy-on-write although the write
	 * mode is merge-on-read (the default): the commit below is a rewrite, as topic.c's is */
	static const int64_t ids2[] = { 1, 9, 4, 3 };
	static const char *const v2[] = { NULL, "g2", "i", NULL };
	FLOE_CHECK(upsert_batch(&e, ids2, v2, 4, &up, &del) == 5 && up == 2 && del == 2);
	floe_iceberg_table_free(e.table);
	floe_iceberg_catalog_free(e.catalog);
	floe_fs_remove_tree(e.dir);
	floe_arena_free(e.a);
	floe_error_clear();
}
