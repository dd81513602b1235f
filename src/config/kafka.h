/*
 * kafka.h — floe.toml's [kafka] and [[kafka.topics]]: Kafka topics `floe run` loads into
 * bronze (docs/kafka.md). Parsed by kafka.c when config.c meets the section.
 *
 *   [kafka]
 *   brokers = "127.0.0.1:9092"           # required
 *   security-protocol = "plaintext"      # plaintext | ssl | sasl_plaintext | sasl_ssl
 *   sasl-mechanism = "SCRAM-SHA-512"     # with sasl-username and sasl-password-env
 *   sasl-username = "floe"
 *   sasl-password-env = "FLOE_KAFKA_PASSWORD"   # the variable's name, never the password
 *   group = "floe"                       # consumer group the offsets are committed to (lag)
 *   max-batch = 100000                   # messages per snapshot at most
 *
 *   [[kafka.topics]]
 *   topic = "shop.orders"
 *   table = "orders_stream"              # bronze.<table>; default: the topic, dots as _
 *   key = ["order_id"]                   # upsert key (columns of the value)
 *   format = "json"
 *   mode = "upsert"                      # append (default) | upsert
 *   columns = { order_id = "uuid", order_status = "string", price = "decimal(10,2)" }
 */
#ifndef FLOE_CONFIG_KAFKA_H
#define FLOE_CONFIG_KAFKA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct floe_toml_value floe_toml_value;
typedef struct floe_config floe_config;

typedef enum floe_kafka_mode { FLOE_KAFKA_APPEND = 0, FLOE_KAFKA_UPSERT } floe_kafka_mode;

typedef struct floe_config_kafka_column {
	const char *name;
	const char *type;           /* an Iceberg primitive: string, long, int, double, boolean, uuid,
				     * date, timestamp, timestamptz, decimal(P,S) */
} floe_config_kafka_column;

typedef struct floe_config_kafka_topic {
	const char *topic;
	const char *table;          /* bronze table name (no namespace) */
	const char **key;
	size_t n_key;
	floe_kafka_mode mode;
	floe_config_kafka_column *columns; /* NULL: inferred from the first messages */
	size_t n_columns;
	int line;
} floe_config_kafka_topic;

typedef struct floe_config_kafka {
	const char *brokers;
	const char *security_protocol;  /* NULL: plaintext */
	const char *sasl_mechanism;
	const char *sasl_username;
	const char *sasl_password_env;  /* a variable's name */
	const char *group;              /* default "floe" */
	int64_t max_batch;
	floe_config_kafka_topic *topics;
	size_t n_topics;
	int line;
} floe_config_kafka;

/* Read [kafka] (`section`) into config->kafka, in the config's arena. FLOE_ERR_CONFIG with file:line:col. */
int floe_config_kafka_load(floe_config *config, const char *path, const floe_toml_value *section);

#endif
