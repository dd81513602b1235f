/*
 * test_config_serve.c — [serve] (config/serve.c): absent, values, and errors with positions.
 */
#include "harness.h"
#include "base/error.h"
#include "config/config.h"
#include "config/serve.h"

#include <stdio.h>
#include <string.h>

#define SOURCE "[source]\ndatabase = \"shop\"\nuser = \"r\"\n"

static floe_config *parse(const char *text)
{
	floe_config *c = NULL;
	floe_error_clear();
	return floe_config_parse(&c, "/p/floe.toml", text, strlen(text)) < 0 ? NULL : c;
}

FLOE_TEST(config_serve_absent_and_values)
{
	floe_config *c = parse(SOURCE);
	FLOE_CHECK(c && c->serve == NULL);
	floe_config_free(c);
	c = parse(SOURCE "[serve]\nlisten = \"0.0.0.0:9464\"\ntls-cert = \"certs/a.pem\"\ntls-key = \"/k.pem\"\n"
			 "insecure-http = true\n");
	FLOE_CHECK(c && c->serve);
	if (c && c->serve) {
		FLOE_CHECK_STR(c->serve->listen, "0.0.0.0:9464");
		FLOE_CHECK_STR(c->serve->tls_cert, "certs/a.pem");
		FLOE_CHECK_STR(c->serve->tls_key, "/k.pem");
		FLOE_CHECK(c->serve->insecure_http);
	}
	floe_config_free(c);
}

FLOE_TEST(config_serve_errors)
{
	const char *bad[][2] = {
		{ SOURCE "[serve]\nport = 1\n", "floe.toml:5:8: unknown key in [serve]" },
		{ SOURCE "[serve]\ntls-cert = \"a.pem\"\n", "tls-cert and tls-key go together" },
		{ SOURCE "[serve]\nlisten = 9464\n", "floe.toml:5:10: expected a non-empty string" },
		{ SOURCE "[serve]\ninsecure-http = \"yes\"\n", "insecure-http is true or false" },
		{ "serve = 1\n" SOURCE, "`serve` must be a table" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		floe_config *c = parse(bad[i][0]);
		const floe_error *e = floe_error_last();
		FLOE_CHECK(!c && e && e->cls == FLOE_ERR_CONFIG && strstr(e->message, bad[i][1]));
		if (e && !strstr(e->message, bad[i][1]))
			fprintf(stderr, "got: %s\n", e->message);
		floe_config_free(c);
	}
	floe_error_clear();
}
