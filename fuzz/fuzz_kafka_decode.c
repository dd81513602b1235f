/*
 * fuzz_kafka_decode.c — libFuzzer target for the Kafka message decoder
 * (src/bronze/topic_decode.c): any bytes as a message value (and the first byte's
 * parity: a key or none) either become one row in every column's vector or are
 * rejected with a reason and append nothing; a rejected row is always written.
 * The same bytes as a snapshot summary's offsets either parse or fail cleanly.
 */
#include "base/arena.h"
#include "base/error.h"
#include "bronze/topic_int.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(int ok)
{
	if (!ok)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static floe_config_kafka_column cols[] = { { "id", "long" },      { "n", "int" },    { "p", "decimal(10,2)" },
						   { "t", "timestamptz" }, { "s", "string" }, { "u", "uuid" },
						   { "d", "date" },        { "b", "boolean" }, { "f", "double" },
						   { "ts", "timestamp" } };
	floe_config_kafka_topic t = { .topic = "t", .table = "t", .columns = cols, .n_columns = 10 };
	floe_arena *a = floe_arena_new();
	topic_columns tc;
	bronze_columns rej;
	topic_offsets o;
	const char *why = NULL;
	require(topic_columns_build(&tc, a, &t) == 0);
	topic_rejected_columns(&rej, a);
	floe_vector v[16], r[8];
	for (size_t i = 0; i < tc.cols.n; i++) {
		floe_vector_init(&v[i], tc.cols.fields[i].type, tc.cols.fields[i].length);
		v[i].precision = tc.cols.fields[i].precision;
		v[i].scale = tc.cols.fields[i].scale;
	}
	for (size_t i = 0; i < rej.n; i++)
		floe_vector_init(&r[i], rej.fields[i].type, 0);
	topic_message m = { 1, 2, 3, size && data[0] % 2 ? (const char *)data : NULL, size ? 1 : 0,
			    (const char *)data, size };
	int rc = topic_decode(v, &tc, &m, a, &why);
	require(rc == 0 || (rc == 1 && why));
	for (size_t i = 0; i < tc.cols.n; i++)
		require(v[i].len == (size_t)(rc == 0));
	topic_reject_row(r, &m, rc ? why : "x");
	for (size_t i = 0; i < rej.n; i++)
		require(r[i].len == 1);
	if (topic_offsets_parse(&o, a, (const char *)data, size, "t") < 0)
		require(floe_error_last() != NULL);
	floe_error_clear();
	for (size_t i = 0; i < tc.cols.n; i++)
		floe_vector_free(&v[i]);
	for (size_t i = 0; i < rej.n; i++)
		floe_vector_free(&r[i]);
	floe_arena_free(a);
	return 0;
}
