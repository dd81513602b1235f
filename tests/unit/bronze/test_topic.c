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
