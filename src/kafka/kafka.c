/*
 * kafka.c — floe_kafka_*: librdkafka behind floe's error chain (see kafka.h).
 */
#include "kafka/kafka.h"
#include "base/arena.h"
#include "base/error.h"

#include <librdkafka/rdkafka.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct floe_kafka_client {
	rd_kafka_t *rk;
	rd_kafka_message_t *msg;       /* the last polled message (consumer) */
	_Atomic int64_t delivered, failed;
	rd_kafka_resp_err_t first_failure;
};

static floe_error_class class_of(rd_kafka_resp_err_t err)
{
	switch (err) {
	case RD_KAFKA_RESP_ERR__TRANSPORT:
	case RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN:
	case RD_KAFKA_RESP_ERR__TIMED_OUT:
	case RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT:
	case RD_KAFKA_RESP_ERR__AUTHENTICATION:
	case RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED:
	case RD_KAFKA_RESP_ERR__RESOLVE:
	case RD_KAFKA_RESP_ERR__MSG_TIMED_OUT:
	case RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION:
	case RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE:
		return FLOE_ERR_UNREACHABLE;
	case RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC:
	case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART:
	case RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED:
	case RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED:
		return FLOE_ERR_CONFIG;
	default:
		return FLOE_ERR_INTERNAL;
	}
}

static int fail(rd_kafka_resp_err_t err, const char *what)
{
	floe_error_set(class_of(err), "%s: %s", what, rd_kafka_err2str(err));
	if (class_of(err) == FLOE_ERR_UNREACHABLE)
		floe_error_hint("Check that the brokers in [kafka] of floe.toml are running and reachable, "
				"and the security settings match theirs.");
	return -1;
}

static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
	(void)rk;
	floe_kafka_client *c = opaque;
	if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
		atomic_fetch_add(&c->delivered, 1);
	} else if (m->err == RD_KAFKA_RESP_ERR__PURGE_QUEUE || m->err == RD_KAFKA_RESP_ERR__PURGE_INFLIGHT) {
		/* an aborted transaction's messages: withdrawn on purpose */
	} else if (atomic_fetch_add(&c->failed, 1) == 0) {
		c->first_failure = m->err;
	}
}

/* librdkafka logs to stderr by default; floe keeps its own messages. */
static void on_log(const rd_kafka_t *rk, int level, const char *fac, const char *buf)
{
	(void)rk, (void)level, (void)fac, (void)buf;
}

static int set(rd_kafka_conf_t *conf, const char *key, const char *value)
{
	char err[512];
	if (!value)
		return 0;
	if (rd_kafka_conf_set(conf, key, value, err, sizeof(err)) != RD_KAFKA_CONF_OK) {
		floe_error_set(FLOE_ERR_CONFIG, "kafka setting \"%s\" was refused: %s", key, err);
		floe_error_hint("Check [kafka] in floe.toml (docs/kafka.md lists the keys).");
		return -1;
	}
	return 0;
}

static int open_client(floe_kafka_client **out, const floe_kafka_opts *o, rd_kafka_type_t type)
{
	char err[512];
	int error = -1;
	floe_kafka_client *c = floe_xcalloc(1, sizeof(*c));
	rd_kafka_conf_t *conf = rd_kafka_conf_new();
	rd_kafka_conf_set_opaque(conf, c);
	rd_kafka_conf_set_log_cb(conf, on_log);
	if (set(conf, "bootstrap.servers", o->brokers) < 0 || set(conf, "client.id", o->client_id ? o->client_id : "floe") < 0 ||
	    set(conf, "security.protocol", o->security_protocol) < 0 || set(conf, "sasl.mechanisms", o->sasl_mechanism) < 0 ||
	    set(conf, "sasl.username", o->sasl_username) < 0 || set(conf, "sasl.password", o->sasl_password) < 0)
		goto cleanup;
	if (type == RD_KAFKA_PRODUCER) {
		rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
		if (set(conf, "transactional.id", o->transactional_id) < 0)
			goto cleanup;
		/* a message the brokers have not taken in 30 s fails the stream (exit 3) rather than waiting 5 minutes */
		if (set(conf, "enable.idempotence", "true") < 0 || set(conf, "linger.ms", "5") < 0 ||
		    set(conf, "message.timeout.ms", "30000") < 0)
			goto cleanup;
	} else if (set(conf, "group.id", o->group ? o->group : "floe") < 0 ||
		   set(conf, "enable.auto.commit", "false") < 0 || set(conf, "enable.auto.offset.store", "false") < 0 ||
		   set(conf, "isolation.level", "read_committed") < 0 || set(conf, "auto.offset.reset", "earliest") < 0 ||
		   set(conf, "enable.partition.eof", "true") < 0) {
		goto cleanup;
	}
	c->rk = rd_kafka_new(type, conf, err, sizeof(err));
	if (!c->rk) {
		floe_error_set(FLOE_ERR_CONFIG, "could not create a kafka client: %s", err);
		goto cleanup;
	}
	conf = NULL; /* the client owns it now */
	*out = c;
	c = NULL;
	error = 0;
cleanup:
	if (conf)
		rd_kafka_conf_destroy(conf);
	free(c);
	return error;
}

int floe_kafka_producer_open(floe_kafka_client **out, const floe_kafka_opts *opts)
{
	return open_client(out, opts, RD_KAFKA_PRODUCER);
}

int floe_kafka_consumer_open(floe_kafka_client **out, const floe_kafka_opts *opts)
{
	return open_client(out, opts, RD_KAFKA_CONSUMER);
}

int floe_kafka_produce(floe_kafka_client *p, const char *topic, const void *key, size_t key_len,
		       const void *value, size_t value_len)
{
	for (;;) {
		rd_kafka_resp_err_t err = rd_kafka_producev(
			p->rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
			RD_KAFKA_V_KEY((void *)key, key_len), RD_KAFKA_V_VALUE((void *)value, value ? value_len : 0),
			RD_KAFKA_V_END);
		if (err == RD_KAFKA_RESP_ERR_NO_ERROR)
			break;
		if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL)
			return fail(err, "could not queue a kafka message");
		rd_kafka_poll(p->rk, 100); /* delivery reports make room */
	}
	rd_kafka_poll(p->rk, 0);
	if (atomic_load(&p->failed) > 0)
		return fail(p->first_failure, "a kafka message was not delivered");
	return 0;
}

int floe_kafka_flush(floe_kafka_client *p, int timeout_ms)
{
	rd_kafka_resp_err_t err = rd_kafka_flush(p->rk, timeout_ms);
	if (atomic_load(&p->failed) > 0)
		return fail(p->first_failure, "a kafka message was not delivered");
	if (err != RD_KAFKA_RESP_ERR_NO_ERROR)
		return fail(err, "kafka messages were not all acknowledged in time");
	return 0;
}

int64_t floe_kafka_delivered(const floe_kafka_client *p)
{
	return atomic_load(&((floe_kafka_client *)p)->delivered);
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

int floe_kafka_partitions(int32_t **out, size_t *n_out, floe_kafka_client *c, const char *topic, int timeout_ms)
{
	const struct rd_kafka_metadata *md = NULL;
	rd_kafka_topic_t *t = rd_kafka_topic_new(c->rk, topic, NULL);
	int error = -1;
	rd_kafka_resp_err_t err = rd_kafka_metadata(c->rk, 0, t, &md, timeout_ms);
	if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
		fail(err, "could not read kafka metadata");
		goto cleanup;
	}
	if (md->topic_cnt != 1 || md->topics[0].err != RD_KAFKA_RESP_ERR_NO_ERROR || md->topics[0].partition_cnt == 0) {
		floe_error_set(FLOE_ERR_CONFIG, "kafka topic \"%s\" does not exist", topic);
		floe_error_hint("Create it, or correct `topic` in [[kafka.topics]] of floe.toml.");
		goto cleanup;
	}
	*n_out = (size_t)md->topics[0].partition_cnt;
	*out = floe_xcalloc(*n_out, sizeof(int32_t));
	for (size_t i = 0; i < *n_out; i++)
		(*out)[i] = md->topics[0].partitions[i].id;
	qsort(*out, *n_out, sizeof(int32_t), cmp_i32);
	error = 0;
cleanup:
	if (md)
		rd_kafka_metadata_destroy(md);
	rd_kafka_topic_destroy(t);
	if (error < 0)
		floe_error_context("while listing the partitions of kafka topic \"%s\"", topic);
	return error;
}

/* A partition just created (or moving) has no leader for a moment: worth asking again. */
static bool settling(rd_kafka_resp_err_t err)
{
	return err == RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION || err == RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE ||
	       err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART;
}

int floe_kafka_watermarks(int64_t *low, int64_t *high, floe_kafka_client *c, const char *topic, int32_t partition,
			  int timeout_ms)
{
	rd_kafka_resp_err_t err;
	for (int waited = 0;; waited += 250) {
		err = rd_kafka_query_watermark_offsets(c->rk, topic, partition, low, high, timeout_ms);
		if (!settling(err) || waited >= timeout_ms)
			break;
		rd_kafka_poll(c->rk, 250); /* lets the client refresh its metadata meanwhile */
	}
	if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
		fail(err, "could not read kafka watermarks");
		return floe_error_context("of partition %d of topic \"%s\"", (int)partition, topic);
	}
	return 0;
}

static rd_kafka_topic_partition_list_t *list_of(const char *topic, const int32_t *parts, const int64_t *offsets,
						size_t n)
{
	rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new((int)n);
	for (size_t i = 0; i < n; i++)
		rd_kafka_topic_partition_list_add(l, topic, parts[i])->offset =
			offsets ? (offsets[i] == FLOE_KAFKA_BEGINNING ? RD_KAFKA_OFFSET_BEGINNING : offsets[i])
				: RD_KAFKA_OFFSET_INVALID;
	return l;
}

int floe_kafka_assign(floe_kafka_client *c, const char *topic, const int32_t *parts, const int64_t *offsets, size_t n)
{
	rd_kafka_topic_partition_list_t *l = list_of(topic, parts, offsets, n);
	rd_kafka_resp_err_t err = rd_kafka_assign(c->rk, l);
	rd_kafka_topic_partition_list_destroy(l);
	return err == RD_KAFKA_RESP_ERR_NO_ERROR ? 0 : fail(err, "could not assign kafka partitions");
}

int floe_kafka_poll(floe_kafka_message *out, floe_kafka_client *c, int timeout_ms)
{
	if (c->msg)
		rd_kafka_message_destroy(c->msg);
	c->msg = rd_kafka_consumer_poll(c->rk, timeout_ms);
	if (!c->msg)
		return 0;
	rd_kafka_message_t *m = c->msg;
	if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
		*out = (floe_kafka_message){ .partition = m->partition, .offset = m->offset, .timestamp_ms = -1 };
		return 2;
	}
	if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR)
		return fail(m->err, "could not read from kafka");
	rd_kafka_timestamp_type_t tt;
	*out = (floe_kafka_message){ .partition = m->partition, .offset = m->offset,
				     .timestamp_ms = rd_kafka_message_timestamp(m, &tt),
				     .key = m->key, .key_len = m->key_len,
				     .value = m->payload, .value_len = m->payload ? m->len : 0 };
	return 1;
}

int floe_kafka_commit(floe_kafka_client *c, const char *topic, const int32_t *parts, const int64_t *offsets, size_t n)
{
	rd_kafka_topic_partition_list_t *l = list_of(topic, parts, offsets, n);
	rd_kafka_resp_err_t err = rd_kafka_commit(c->rk, l, 0);
	rd_kafka_topic_partition_list_destroy(l);
	return err == RD_KAFKA_RESP_ERR_NO_ERROR ? 0 : fail(err, "could not commit offsets to the kafka group");
}

int floe_kafka_committed(int64_t *out, floe_kafka_client *c, const char *topic, const int32_t *parts, size_t n,
			 int timeout_ms)
{
	rd_kafka_topic_partition_list_t *l = list_of(topic, parts, NULL, n);
	rd_kafka_resp_err_t err = rd_kafka_committed(c->rk, l, timeout_ms);
	for (size_t i = 0; err == RD_KAFKA_RESP_ERR_NO_ERROR && i < n; i++)
		out[i] = l->elems[i].offset >= 0 ? l->elems[i].offset : -1;
	rd_kafka_topic_partition_list_destroy(l);
	return err == RD_KAFKA_RESP_ERR_NO_ERROR ? 0 : fail(err, "could not read the kafka group's offsets");
}

void floe_kafka_close(floe_kafka_client *c)
{
	if (!c)
		return;
	if (c->msg)
		rd_kafka_message_destroy(c->msg);
	if (c->rk) {
		if (rd_kafka_type(c->rk) == RD_KAFKA_CONSUMER)
			rd_kafka_consumer_close(c->rk);
		rd_kafka_destroy(c->rk);
	}
	free(c);
}

static int txn_fail(rd_kafka_error_t *e, const char *what)
{
	floe_error_set(class_of(rd_kafka_error_code(e)), "%s: %s", what, rd_kafka_error_string(e));
	rd_kafka_error_destroy(e);
	return -1;
}

int floe_kafka_transaction(floe_kafka_client *p, floe_kafka_txn step, int timeout_ms)
{
	rd_kafka_error_t *e = NULL;
	switch (step) {
	case FLOE_KAFKA_TXN_INIT: e = rd_kafka_init_transactions(p->rk, timeout_ms); break;
	case FLOE_KAFKA_TXN_BEGIN: e = rd_kafka_begin_transaction(p->rk); break;
	case FLOE_KAFKA_TXN_COMMIT: e = rd_kafka_commit_transaction(p->rk, timeout_ms); break;
	case FLOE_KAFKA_TXN_ABORT: e = rd_kafka_abort_transaction(p->rk, timeout_ms); break;
	}
	return e ? txn_fail(e, "a kafka transaction step failed") : 0;
}
