/*
 * test_config_sections.c — [publish], [orchestrators], [cdc] and [kafka], each parsed in its own file
 * (config/publish.c, config/orchestrators.c, config/cdc.c, config/kafka.c): defaults, values, and errors
 * with positions.
 */
#include "harness.h"
#include "base/error.h"
#include "config/cdc.h"
#include "config/config.h"
#include "config/publish.h"
#include "config/kafka.h"

#include <string.h>

#define SOURCE "[source]\ndatabase = \"shop\"\nuser = \"r\"\n"

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
	return ok;
}

FLOE_TEST(config_publish_absent_and_defaults)
{
	floe_config *c = parse(SOURCE);
	FLOE_CHECK(c && c->publish == NULL && c->orchestrators.airflow && c->orchestrators.dagster);
	floe_config_free(c);
	c = parse(SOURCE "[publish]\ndatabase = \"wh\"\nuser = \"pub\"\n");
	FLOE_CHECK(c && c->publish);
	if (c && c->publish) {
		FLOE_CHECK_STR(c->publish->host, "127.0.0.1");
		FLOE_CHECK(c->publish->port == 5432 && c->publish->n_grants == 0 && c->publish->lock_timeout_ms == 10000);
		FLOE_CHECK_STR(c->publish->schema, "public");
		FLOE_CHECK_STR(c->publish->password_env, "FLOE_PUBLISH_PASSWORD");
	}
	floe_config_free(c);
}

FLOE_TEST(config_publish_values)
{
	floe_config *c = parse(SOURCE "[publish]\nhost = \"wh.internal\"\nport = 6543\ndatabase = \"wh\"\n"
				      "schema = \"marts\"\nuser = \"pub\"\npassword-env = \"WH_PW\"\n"
				      "grants = [\"analyst\", \"bi\"]\nlock-timeout = \"2m\"\n");
	FLOE_CHECK(c && c->publish);
	if (c && c->publish) {
		FLOE_CHECK(c->publish->port == 6543 && c->publish->lock_timeout_ms == 120000);
		FLOE_CHECK(c->publish->n_grants == 2 && strcmp(c->publish->grants[1], "bi") == 0);
		FLOE_CHECK_STR(c->publish->password_env, "WH_PW");
		FLOE_CHECK_STR(c->publish->schema, "marts");
	}
	floe_config_free(c);
}

FLOE_TEST(config_publish_errors_name_the_place)
{
	FLOE_CHECK(refused_with(SOURCE "[publish]\nuser = \"pub\"\n", "has no `database`"));
	FLOE_CHECK(refused_with(SOURCE "[publish]\ndatabase = \"wh\"\nuser = \"p\"\npassword = \"x\"\n",
				"/p/floe.toml:7:12: unknown key `password`"));
	FLOE_CHECK(refused_with(SOURCE "[publish]\ndatabase = \"wh\"\nuser = \"p\"\nport = 0\n", "port"));
	FLOE_CHECK(refused_with(SOURCE "[publish]\ndatabase = \"wh\"\nuser = \"p\"\ngrants = \"a\"\n", "grants"));
	FLOE_CHECK(refused_with(SOURCE "[publish]\ndatabase = \"wh\"\nuser = \"p\"\nlock-timeout = \"soon\"\n",
				"lock-timeout"));
	FLOE_CHECK(refused_with(SOURCE "[publish]\ndatabase = \"wh\"\nuser = \"p\"\npassword-env = \"A-B\"\n",
				"password-env"));
	FLOE_CHECK(refused_with("publish = 1\n" SOURCE, "must be a table"));
}

FLOE_TEST(config_orchestrators)
{
	floe_config *c = parse(SOURCE "[orchestrators]\nairflow = false\n");
	FLOE_CHECK(c && !c->orchestrators.airflow && c->orchestrators.dagster);
	floe_config_free(c);
	FLOE_CHECK(refused_with(SOURCE "[orchestrators]\nairflow = \"yes\"\n", "true or false"));
	FLOE_CHECK(refused_with(SOURCE "[orchestrators]\nprefect = true\n", "unknown key"));
}

FLOE_TEST(config_cdc_absent_then_values)
{
	floe_config *c = parse(SOURCE);
	FLOE_CHECK(c && !c->cdc && !c->bronze.cdc && !floe_config_cdc_wants(c, "public", "orders"));
	floe_config_free(c);
	c = parse(SOURCE "[cdc]\ntables = [\"public.orders\", \"sales.line items\"]\ncreate-slot = true\n"
			 "max-retained-wal = \"512MB\"\n");
	FLOE_CHECK(c && c->cdc);
	if (c && c->cdc) {
		FLOE_CHECK(c->cdc->n_tables == 2 && c->cdc->create_slot && !c->cdc->create_publication);
		FLOE_CHECK(c->cdc->max_retained_wal == (int64_t)512 << 20);
		FLOE_CHECK(floe_config_cdc_wants(c, "public", "orders") && floe_config_cdc_wants(c, "sales", "line items"));
		FLOE_CHECK(!floe_config_cdc_wants(c, "public", "order") && !floe_config_cdc_wants(c, "publi", "c.orders"));
	}
	floe_config_free(c);
	c = parse(SOURCE "[bronze]\ncdc = true\n");
	FLOE_CHECK(c && c->bronze.cdc && floe_config_cdc_wants(c, "any", "table"));
	floe_config_free(c);
	c = parse(SOURCE "[cdc]\n");
	FLOE_CHECK(c && c->cdc && c->cdc->max_retained_wal == (int64_t)1 << 30 && !c->cdc->create_slot);
	FLOE_CHECK(c && c->cdc && c->cdc->follow_interval_ms == 200 && c->cdc->follow_index_mb == 256 &&
		   c->cdc->follow_reconcile_seconds == 300);
	floe_config_free(c);
	c = parse(SOURCE "[cdc]\nfollow-interval-ms = 50\nfollow-index-mb = 0\nfollow-reconcile-seconds = 0\n");
	FLOE_CHECK(c && c->cdc && c->cdc->follow_interval_ms == 50 && c->cdc->follow_index_mb == 0 &&
		   c->cdc->follow_reconcile_seconds == 0);
	floe_config_free(c);
}

FLOE_TEST(config_cdc_errors_say_where)
{
	FLOE_CHECK(refused_with(SOURCE "[cdc]\ntables = [\"orders\"]\n", "/p/floe.toml:5:"));
	FLOE_CHECK(refused_with(SOURCE "[cdc]\ntables = [\"a.b.c\"]\n", "\"schema.table\""));
	FLOE_CHECK(refused_with(SOURCE "[cdc]\ntables = \"public.orders\"\n", "must be an array"));
	FLOE_CHECK(refused_with(SOURCE "[cdc]\ncreate-slot = \"yes\"\n", "`cdc.create-slot` must be true or false"));
	FLOE_CHECK(refused_with(SOURCE "[cdc]\nmax-retained-wal = \"1 GB\"\n", "max-retained-wal"));
	FLOE_CHECK(refused_with(SOURCE "[cdc]\nmax-retained-wal = \"GB\"\n", "max-retained-wal"));
	FLOE_CHECK(refused_with(SOURCE "[cdc]\nslots = 3\n", "unknown key `slots` in [cdc]"));
	FLOE_CHECK(refused_with(SOURCE "[cdc]\nfollow-interval-ms = 0\n", "`cdc.follow-interval-ms` must be a whole number"));
	FLOE_CHECK(refused_with(SOURCE "[cdc]\nfollow-index-mb = \"256MB\"\n", "`cdc.follow-index-mb` must be"));
	FLOE_CHECK(refused_with(SOURCE "[bronze]\ncdc = 1\n", "cdc"));
	floe_error_clear();
}

/* ---- [kafka] and [[kafka.topics]] ---- */

#define KAFKA SOURCE "[kafka]\nbrokers = \"127.0.0.1:9092\"\n"

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
