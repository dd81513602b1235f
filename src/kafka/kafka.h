/*
 * kafka.h — Apache Kafka through librdkafka: the only module that calls it.
 *
 *   producer  keyed messages (a NULL value is a tombstone), delivery confirmed by flush
 *   consumer  explicit assignment at offsets the caller read elsewhere (an Iceberg
 *             snapshot's summary), bounded reads up to the high watermarks seen at the
 *             start, and offsets committed to the group only when the caller says
 *             (after its own commit landed): auto-commit and auto-store are off.
 *
 * Errors are classified by librdkafka's error codes: brokers down, timeouts and
 * authentication failures are FLOE_ERR_UNREACHABLE (exit 3), unknown topics
 * FLOE_ERR_CONFIG, anything else FLOE_ERR_INTERNAL. A handle is used from one thread.
 */
#ifndef FLOE_KAFKA_KAFKA_H
#define FLOE_KAFKA_KAFKA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct floe_kafka_client floe_kafka_client;

typedef struct floe_kafka_opts {
	const char *brokers;           /* "host:port,…" */
	const char *security_protocol; /* plaintext | ssl | sasl_plaintext | sasl_ssl; NULL: plaintext */
	const char *sasl_mechanism;    /* PLAIN, SCRAM-SHA-256, SCRAM-SHA-512; NULL: none */
	const char *sasl_username;
	const char *sasl_password;     /* the secret itself (the caller read it from its variable) */
	const char *group;             /* consumer group (offsets for lag dashboards); consumers only */
	const char *client_id;         /* NULL: "floe" */
	const char *transactional_id;  /* producers: set to produce in transactions; NULL: none */
} floe_kafka_opts;

#define FLOE_KAFKA_OPTS_INIT { .client_id = "floe" }

/* A consumed message: borrowed until the next poll or free. */
typedef struct floe_kafka_message {
	int32_t partition;
	int64_t offset;
	int64_t timestamp_ms;          /* -1: none */
	const void *key;               /* NULL: no key */
	size_t key_len;
	const void *value;             /* NULL: a tombstone */
	size_t value_len;
} floe_kafka_message;

/* ---- producer ---- */

int floe_kafka_producer_open(floe_kafka_client **out, const floe_kafka_opts *opts);

/* Queue one message (copied); waits while the local queue is full. value NULL: tombstone. */
int floe_kafka_produce(floe_kafka_client *p, const char *topic, const void *key, size_t key_len,
		       const void *value, size_t value_len);

/* Wait until every queued message is acknowledged; -1 when any failed or time ran out. */
int floe_kafka_flush(floe_kafka_client *p, int timeout_ms);

/* Transactions (a producer opened with transactional_id): init once, then begin … commit|abort. */
typedef enum floe_kafka_txn { FLOE_KAFKA_TXN_INIT, FLOE_KAFKA_TXN_BEGIN, FLOE_KAFKA_TXN_COMMIT, FLOE_KAFKA_TXN_ABORT } floe_kafka_txn;
int floe_kafka_transaction(floe_kafka_client *p, floe_kafka_txn step, int timeout_ms);

/* Messages acknowledged by the brokers so far. */
int64_t floe_kafka_delivered(const floe_kafka_client *p);

/* ---- consumer ---- */

int floe_kafka_consumer_open(floe_kafka_client **out, const floe_kafka_opts *opts);

/* The topic's partition ids (sorted), malloc'ed into *out. A missing topic: FLOE_ERR_CONFIG. */
int floe_kafka_partitions(int32_t **out, size_t *n_out, floe_kafka_client *c, const char *topic,
			  int timeout_ms);

/* Low and high watermarks of one partition (high: the offset the next message will get). */
int floe_kafka_watermarks(int64_t *low, int64_t *high, floe_kafka_client *c, const char *topic,
			  int32_t partition, int timeout_ms);

/* Read `topic` partitions parts[i] from offsets[i] (FLOE_KAFKA_BEGINNING: the oldest kept). */
#define FLOE_KAFKA_BEGINNING (-2)
int floe_kafka_assign(floe_kafka_client *c, const char *topic, const int32_t *parts,
		      const int64_t *offsets, size_t n);

/*
 * The next message: 1 with *out filled; 2 when a partition reached its end (out->partition,
 * and out->offset the next offset it will have: control records of transactions are skipped,
 * so this may lie past the last message); 0 when nothing came within timeout_ms; -1 on error.
 */
int floe_kafka_poll(floe_kafka_message *out, floe_kafka_client *c, int timeout_ms);

/* Commit next-offsets to the consumer group (synchronous). */
int floe_kafka_commit(floe_kafka_client *c, const char *topic, const int32_t *parts,
		      const int64_t *offsets, size_t n);

/* Offsets the group has committed (-1 where none), for lag. */
int floe_kafka_committed(int64_t *out, floe_kafka_client *c, const char *topic, const int32_t *parts,
			 size_t n, int timeout_ms);

void floe_kafka_close(floe_kafka_client *c);

#endif
