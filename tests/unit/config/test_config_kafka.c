/*
 * test_config_kafka.c — [kafka] and [[kafka.topics]] (config/kafka.c): defaults, values, and
 * errors with positions.
 */
#include "harness.h"
#include "base/error.h"
#include "config/config.h"
#include "config/kafka.h"

#include <string.h>

#define SOURCE "[source]\ndatabase = \"shop\"\nuser = \"r\"\n"
#define KAFKA SOURCE "[kafka]\nbrokers = \"127.0.0.1:9092\"\n"

static floe_config *parse(const char *text)
{
	floe_config *c = NULL;
	floe_error_clear();
	return floe_config_parse(&c, "/p/floe.toml", text, strlen(text)) < 0 ? NULL : c;
}

static bool refused_with(const char *text, const char *needle)
{
	floe_config *c = parse(text);
	const floe_error *e = floe_error_last();
	bool ok = !c && e && e->cls == FLOE_ERR_CONFIG && strstr(e->message, needle);
	floe_config_free(c);
	floe_error_clear();
	return ok;
}

FLOE_TEST(config_kafka_defaults_and_topics)
{
	floe_config *c = parse(KAFKA "[[kafka.topics]]\ntopic = \"shop.orders\"\nmode = \"upsert\"\nkey = \"order_id\"\n"
				     "columns = { order_id = \"uuid\", order_status = \"string\" }\n"
				     "[[kafka.topics]]\ntopic = \"shop.payments\"\n");
	FLOE_CHECK(c && c->kafka);
	FLOE_CHECK_STR(c->kafka->group, "floe");
	FLOE_CHECK(c->kafka->max_batch == 100000 && c->kafka->n_topics == 2);
	const floe_config_kafka_topic *t = &c->kafka->topics[0];
	FLOE_CHECK_STR(t->table, "shop_orders");
	FLOE_CHECK(t->mode == FLOE_KAFKA_UPSERT && t->n_key == 1 && t->n_columns == 2);
	FLOE_CHECK_STR(t->columns[1].name, "order_status");
	FLOE_CHECK(c->kafka->topics[1].columns == NULL && c->kafka->topics[1].mode == FLOE_KAFKA_APPEND);
	floe_config_free(c);
	c = parse(SOURCE);
	FLOE_CHECK(c && c->kafka == NULL);
	floe_config_free(c);
}

FLOE_TEST(config_kafka_refusals_name_the_place)
{
	FLOE_CHECK(refused_with(SOURCE "[kafka]\ngroup = \"g\"\n", "has no `brokers`"));
	FLOE_CHECK(refused_with(KAFKA "linger = 5\n", "unknown key `linger` in [kafka]"));
	FLOE_CHECK(refused_with(KAFKA "security-protocol = \"tls\"\n", "security-protocol"));
	FLOE_CHECK(refused_with(KAFKA "sasl-password-env = \"not a name\"\n", "sasl-password-env"));
	FLOE_CHECK(refused_with(KAFKA "[[kafka.topics]]\ntable = \"x\"\n", "has no `topic`"));
	FLOE_CHECK(refused_with(KAFKA "[[kafka.topics]]\ntopic = \"t\"\nmode = \"upsert\"\n", "no `key`"));
	FLOE_CHECK(refused_with(KAFKA "[[kafka.topics]]\ntopic = \"t\"\nkey = \"id\"\ncolumns = { name = \"string\" }\n",
				"key column \"id\""));
	FLOE_CHECK(refused_with(KAFKA "[[kafka.topics]]\ntopic = \"t\"\nformat = \"avro\"\n", "topics.format"));
	FLOE_CHECK(refused_with(KAFKA "[[kafka.topics]]\ntopic = \"t\"\ncolumns = { _kafka_offset = \"long\" }\n",
				"not starting with _"));
	FLOE_CHECK(refused_with(KAFKA "[[kafka.topics]]\ntopic = \"a.b\"\n[[kafka.topics]]\ntopic = \"a_b\"\n",
				"both load bronze.a_b"));
	FLOE_CHECK(refused_with(KAFKA "max-batch = 0\n", "/p/floe.toml:6:13:"));
}
