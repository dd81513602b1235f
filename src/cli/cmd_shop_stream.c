/*
 * cmd_shop_stream.c — `floe shop stream`: the shop's live traffic (src/shop/stream.c)
 * as keyed JSON messages to Kafka topics <prefix><table> (src/kafka), at a rate, for a
 * count of events or a number of seconds. Brokers: --brokers, else [kafka] of floe.toml.
 */
#include "cli/cli.h"
#include "base/error.h"
#include "base/json.h"
#include "base/text.h"
#include "config/config.h"
#include "config/kafka.h"
#include "kafka/kafka.h"
#include "shop/shop.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N_TOPICS 5
static const char *const stream_tables[N_TOPICS] = { "customers", "orders", "order_items", "payments", "reviews" };

typedef struct sink {
	floe_kafka_client *producer;
	const char *prefix;
	char topic[256];
	int64_t sent[N_TOPICS], tombstones;
} sink;

static int emit(void *ctx, const char *table, const char *key, size_t key_len, const char *value, size_t value_len)
{
	sink *s = ctx;
	for (int i = 0; i < N_TOPICS; i++)
		if (strcmp(table, stream_tables[i]) == 0)
			s->sent[i]++;
	s->tombstones += value == NULL;
	snprintf(s->topic, sizeof(s->topic), "%s%s", s->prefix, table);
	return floe_kafka_produce(s->producer, s->topic, key, key_len, value, value_len);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void pause_until(double t)
{
	double d = t - now_s();
	if (d <= 0)
		return;
	struct timespec ts = { (time_t)d, (long)((d - (double)(time_t)d) * 1e9) };
	nanosleep(&ts, NULL);
}

static int number(int64_t *out, const floe_cli_ctx *ctx, const char *name, int64_t dflt, int64_t max)
{
	const char *v = floe_cli_value(ctx, name);
	*out = dflt;
	if (v && floe_text_parse_int64(out, v, strlen(v), 0, max) < 0)
		return floe_error_set(FLOE_ERR_USAGE, "--%s \"%s\" is not a whole number from 0 to %lld", name, v,
				      (long long)max);
	return 0;
}

static const char *brokers_of(const floe_cli_ctx *ctx, floe_config **config)
{
	const char *b = floe_cli_value(ctx, "brokers");
	if (b)
		return b;
	if (floe_cli_load_config(config, ctx) == 0 && (*config)->kafka)
		return (*config)->kafka->brokers;
	floe_error_clear();
	return "127.0.0.1:9092";
}

static void render(floe_buf *out, const sink *s, int64_t events, double secs, bool json)
{
	if (json) {
		floe_json_writer j;
		floe_json_write_init(&j, out, true);
		floe_json_write_begin_object(&j, false);
		floe_json_write_member_int(&j, "events", events);
		floe_json_write_key(&j, "messages");
		floe_json_write_begin_object(&j, true);
		for (int i = 0; i < N_TOPICS; i++) {
			snprintf((char *)s->topic, sizeof(s->topic), "%s%s", s->prefix, stream_tables[i]);
			floe_json_write_member_int(&j, s->topic, s->sent[i]);
		}
		floe_json_write_end_object(&j);
		floe_json_write_member_int(&j, "tombstones", s->tombstones);
		floe_json_write_member_int(&j, "milliseconds", (int64_t)(secs * 1000));
		floe_json_write_end_object(&j);
		floe_json_write_finish(&j);
		floe_buf_putc(out, '\n');
		return;
	}
	int64_t total = 0;
	for (int i = 0; i < N_TOPICS; i++)
		total += s->sent[i];
	floe_buf_printf(out, "streamed %lld events as %lld messages (%lld tombstones) in %.1f s\n", (long long)events,
			(long long)total, (long long)s->tombstones, secs);
	for (int i = 0; i < N_TOPICS; i++) {
		floe_buf_puts(out, "  ");
		floe_text_put_printable(out, s->prefix);
		floe_buf_printf(out, "%-12s %lld\n", stream_tables[i], (long long)s->sent[i]);
	}
}

static int produce_events(sink *s, int64_t *events, floe_shop_stream *gen, int64_t rate, int64_t count,
			  int64_t seconds)
{
	double start = now_s();
	for (*events = 0; !count || *events < count; (*events)++) {
		if (seconds && now_s() - start >= (double)seconds)
			break;
		if (rate)
			pause_until(start + (double)*events / (double)rate);
		if (floe_shop_stream_next(gen, emit, s) < 0)
			return -1;
	}
	return floe_kafka_flush(s->producer, 45000);
}

static int run_stream(floe_cli_ctx *ctx)
{
	floe_config *config = NULL;
	floe_shop_stream *gen = NULL;
	floe_kafka_opts ko = FLOE_KAFKA_OPTS_INIT;
	sink s = { .prefix = floe_cli_value(ctx, "topic-prefix") ? floe_cli_value(ctx, "topic-prefix") : "shop." };
	int64_t rate, count, seconds, seed, events = 0;
	int error = -1;
	if (number(&rate, ctx, "rate", 0, 10000000) < 0 || number(&seconds, ctx, "seconds", 0, 86400 * 365) < 0 ||
	    number(&count, ctx, "count", seconds ? 0 : 1000, INT64_MAX) < 0 || number(&seed, ctx, "seed", 1, INT64_MAX) < 0)
		goto cleanup;
	ko.brokers = brokers_of(ctx, &config);
	double start = now_s();
	if (floe_shop_stream_new(&gen, (uint64_t)seed) < 0 || floe_kafka_producer_open(&s.producer, &ko) < 0 ||
	    produce_events(&s, &events, gen, rate, count, seconds) < 0)
		goto cleanup;
	floe_buf out = FLOE_BUF_INIT;
	render(&out, &s, events, now_s() - start, floe_cli_flag(ctx, "json"));
	floe_cli_out(&out);
	floe_buf_free(&out);
	error = 0;
cleanup:
	if (error < 0)
		floe_error_context("while streaming the shop's traffic to kafka at %s", ko.brokers ? ko.brokers : "?");
	floe_kafka_close(s.producer);
	floe_shop_stream_free(gen);
	floe_config_free(config);
	return error;
}

static const floe_cli_option stream_options[] = {
	{ "brokers", 'b', "HOST:PORT,…", "Kafka brokers (default: [kafka] brokers of floe.toml, else 127.0.0.1:9092)" },
	{ "topic-prefix", 0, "PREFIX", "topics are PREFIX + customers, orders, order_items, payments, reviews (default: shop.)" },
	{ "rate", 'r', "N", "events per second (default: as fast as the brokers take them)" },
	{ "count", 'n', "N", "events to send (default: 1000; with --seconds: no limit)" },
	{ "seconds", 's', "S", "stop after S seconds" },
	{ "seed", 0, "N", "seed of the traffic: the same seed sends the same messages (default: 1)" },
	{ "json", 0, NULL, "print the result as JSON" },
	{ NULL, 0, NULL, NULL },
};

const floe_cli_command floe_cmd_shop_stream = {
	.name = "shop stream",
	.summary = "send the shop's live traffic to Kafka as keyed JSON messages",
	.usage = "shop stream [--rate N] [--topic-prefix shop.] [--count N] [--seconds S] [OPTIONS]",
	.description =
		"Sends the traffic `floe shop tick` writes to PostgreSQL as Kafka messages: new orders\n"
		"with their customer, items and payments; each status step of an open order (the\n"
		"`orders` value is the order's whole state, keyed by order_id); reviews at delivery;\n"
		"abandoned carts as tombstones (a null value) for the order, its items, payments and\n"
		"customer. One event is one order's change. The same seed sends the same messages.",
	.examples =
		"  floe shop stream --brokers 127.0.0.1:9092 --count 10000\n"
		"  floe shop stream --rate 500 --seconds 60 --topic-prefix demo.\n",
	.options = stream_options,
	.run = run_stream,
};
