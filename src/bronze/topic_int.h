/*
 * topic_int.h — what the Kafka topic load (topic.c) shares with its pure parts
 * (topic_decode.c: message → row, offsets ↔ summary JSON), which the unit tests and
 * the fuzz target call directly.
 */
#ifndef FLOE_BRONZE_TOPIC_INT_H
#define FLOE_BRONZE_TOPIC_INT_H

#include "base/arena.h"
#include "base/buf.h"
#include "bronze/bronze_int.h"
#include "config/kafka.h"

/* floe's own columns, first in every topic table: where each row came from. */
#define TOPIC_META_COLUMNS 4 /* _kafka_partition, _kafka_offset, _kafka_timestamp, _kafka_key */
#define TOPIC_SUMMARY_KEY "floe.kafka.offsets"
#define TOPIC_NEWEST_KEY "floe.kafka.valid-through-ms" /* newest message timestamp loaded so far */

/* The table's columns: the meta columns, then the topic's declared columns. */
typedef struct topic_columns {
	bronze_columns cols;
	size_t n_user;                       /* declared columns (after the meta ones) */
	size_t *key;                         /* upsert: the key columns' indexes among cols */
	size_t n_key;                        /* 0: append */
} topic_columns;

/* Build from the topic's declared columns; a type floe cannot read from JSON is FLOE_ERR_CONFIG. */
int topic_columns_build(topic_columns *out, floe_arena *a, const floe_config_kafka_topic *t);

/* The rejected-messages table: meta columns, reason, raw value (escaped text). */
void topic_rejected_columns(bronze_columns *out, floe_arena *a);

/* One message, as the consumer handed it over. */
typedef struct topic_message {
	int32_t partition;
	int64_t offset;
	int64_t timestamp_ms;  /* -1: none */
	const char *key;       /* NULL: none */
	size_t key_len;
	const char *value;     /* NULL: a tombstone */
	size_t value_len;
} topic_message;

/*
 * Decode `m` into one row appended to `vec` (one vector per column of `tc`). A
 * tombstone is a row whose declared columns are null — but for an upsert topic its key
 * columns, read from the message key (a JSON object of them, or the one key column's
 * value as text). An upsert row whose key columns are not all set is rejected. A value that is not a JSON
 * object, or a member that does not fit its column's type, appends nothing and
 * returns 1 with *why set (in `a`); 0 when the row was appended.
 */
int topic_decode(floe_vector *vec, const topic_columns *tc, const topic_message *m, floe_arena *a, const char **why);

/* Append the rejected row for `m` with `why` to `vec` (topic_rejected_columns). */
void topic_reject_row(floe_vector *vec, const topic_message *m, const char *why);

/* ---- topic_infer.c: columns inferred from a topic's first messages ---- */

#define TOPIC_INFER_MESSAGES 1000
#define TOPIC_INFER_MAX_COLUMNS 256

typedef struct topic_infer {
	floe_arena *arena;
	const char *names[TOPIC_INFER_MAX_COLUMNS];  /* in order of first appearance */
	unsigned kinds[TOPIC_INFER_MAX_COLUMNS];     /* bit set of the value kinds seen */
	size_t n;
	int64_t messages;                             /* JSON objects read */
	int64_t seen;                                 /* messages of any kind (the caller counts) */
} topic_infer;

/* Learn from one message value (NULL, not JSON, not an object: ignored). */
void topic_infer_add(topic_infer *st, const char *value, size_t len);

/*
 * The columns: per member its narrowest type that holds every value seen — boolean, long,
 * double, uuid, date, timestamp, timestamptz, else string (also for mixed kinds, objects and
 * arrays, whose values are then rejected). Names that are not column names are left out.
 */
void topic_infer_columns(const topic_infer *st, floe_config_kafka_column **out, size_t *n_out);

/* The declared columns of a table floe created for a topic: its schema after the meta columns. */
int topic_columns_from_schema(floe_config_kafka_column **out, size_t *n_out, floe_arena *a,
			      const floe_iceberg_schema *schema);

/* ---- topic_upsert.c: an upsert topic's batch merged by key ---- */

typedef struct topic_upsert {
	floe_iceberg_table *table;   /* its current snapshot is the one merged into */
	const topic_columns *tc;
	const floe_config *config;   /* bronze.target-file-rows */
	floe_arena *arena;
	floe_vector *rows;           /* the batch, one row per message in offset order per partition */
	const bool *tombstone;       /* per row */
	/* out: files to add and URIs to remove, for one rewrite commit */
	bronze_files out;
	const char **removed;
	size_t n_removed;
	int64_t upserted, deleted;
} topic_upsert;

/*
 * The last message per key wins: a row upserts, a tombstone deletes. Written through the
 * bronze merge path (bronze_merge_rows: copy-on-write of the files the keys fall in); a
 * table without data files gets the rows as key-sorted files. -1 with the error set.
 */
int topic_upsert_prepare(topic_upsert *u);

/* ---- offsets: next offsets to read per partition ---- */

typedef struct topic_offsets {
	int32_t *partition;
	int64_t *next;
	size_t n;
} topic_offsets;

/* Parse `{"topic":{"0":12,…}}` (the summary value) for `topic`; absent topic: n = 0. -1: not such JSON. */
int topic_offsets_parse(topic_offsets *out, floe_arena *a, const char *json, size_t len, const char *topic);

/* The summary value for `topic` (partitions in order). */
void topic_offsets_format(floe_buf *out, const topic_offsets *o, const char *topic);

/* The next offset of `partition` (`dflt` when absent). */
int64_t topic_offsets_get(const topic_offsets *o, int32_t partition, int64_t dflt);

#endif
