/*
 * test_schedule.c — floe.toml's [schedule] and the [alerts] keys serve reads.
 */
#include "harness.h"
#include "base/error.h"
#include "config/config.h"
#include "config/schedule.h"

#include <string.h>

static floe_config *parse(const char *body)
{
	char text[1024];
	floe_config *c = NULL;
	snprintf(text, sizeof(text), "[source]\ndatabase = \"shop\"\nuser = \"r\"\n%s", body);
	if (floe_config_parse(&c, "/p/floe.toml", text, strlen(text)) < 0)
		return NULL;
	return c;
}

static const char *message(void)
{
	const floe_error *e = floe_error_last();
	return e && e->message ? e->message : "";
}

FLOE_TEST(schedule_layers_tables_and_retries)
{
	floe_config *c = parse("[schedule]\nbronze = \"0 * * * *\"\n\"public.orders\" = \"*/15 * * * *\"\n"
			       "retries = 3\nretry-delay = \"2m\"\n");
	FLOE_CHECK(c != NULL);
	FLOE_CHECK(c->schedule && c->schedule->n_entries == 2);
	FLOE_CHECK_STR(c->schedule->entries[0].key, "bronze");
	FLOE_CHECK_STR(c->schedule->entries[1].key, "public.orders");
	FLOE_CHECK(c->schedule->retries == 3 && c->schedule->retry_delay == 120);
	floe_config_free(c);
	c = parse("");
	FLOE_CHECK(c && c->schedule == NULL);
	floe_config_free(c);
}

FLOE_TEST(schedule_errors_name_the_place)
{
	FLOE_CHECK(parse("[schedule]\ngold = \"0 0 31 2 *\"\n") == NULL);
	FLOE_CHECK(strstr(message(), "/p/floe.toml:5:8:") && strstr(message(), "matches no date"));
	floe_error_clear();
	FLOE_CHECK(parse("[schedule]\nbronz = \"0 * * * *\"\n") == NULL);
	FLOE_CHECK(strstr(message(), "unknown key `bronz`"));
	floe_error_clear();
	FLOE_CHECK(parse("[schedule]\nretries = -1\n") == NULL);
	FLOE_CHECK(strstr(message(), "retries"));
	floe_error_clear();
	FLOE_CHECK(parse("[schedule]\nsilver = 5\n") == NULL);
	floe_error_clear();
}

FLOE_TEST(alerts_format_and_routing_key)
{
	floe_config *c = parse("[alerts]\nformat = \"pagerduty\"\nrouting-key-env = \"PD_KEY\"\n");
	FLOE_CHECK(c && strcmp(c->alerts.format, "pagerduty") == 0 && strcmp(c->alerts.routing_key_env, "PD_KEY") == 0);
	floe_config_free(c);
	FLOE_CHECK(parse("[alerts]\nformat = \"email\"\n") == NULL);
	floe_error_clear();
}
