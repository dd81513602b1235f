/*
 * test_config_s3.c — [warehouse] for an S3 warehouse: the keys, their checks, the defaults, and
 * where the catalog stays (the project's warehouse/ directory).
 */
#include "harness.h"
#include "base/error.h"
#include "config/config.h"

#include <stdio.h>
#include <string.h>

static floe_config *parse_s3(const char *warehouse)
{
	floe_config *c = NULL;
	char text[1024];
	snprintf(text, sizeof(text), "[source]\ndatabase = \"s\"\nuser = \"u\"\n[warehouse]\n%s", warehouse);
	floe_error_clear();
	return floe_config_parse(&c, "/p/floe.toml", text, strlen(text)) < 0 ? NULL : c;
}

FLOE_TEST(config_s3_warehouse_keys)
{
	floe_config *c = parse_s3("location = \"s3://lake/floe\"\nendpoint = \"http://127.0.0.1:9000\"\n"
				  "region = \"eu-west-1\"\npath-style = true\naccess-key-env = \"K\"\n"
				  "secret-key-env = \"S\"\nsession-token-env = \"T\"\n");
	FLOE_CHECK(c != NULL);
	if (!c)
		return;
	FLOE_CHECK(floe_config_warehouse_is_s3(c));
	FLOE_CHECK_STR(floe_config_warehouse_dir(c), "/p/warehouse"); /* the catalog stays local */
	FLOE_CHECK_STR(c->warehouse.endpoint, "http://127.0.0.1:9000");
	FLOE_CHECK_STR(c->warehouse.region, "eu-west-1");
	FLOE_CHECK(c->warehouse.path_style);
	FLOE_CHECK_STR(c->warehouse.access_key_env, "K");
	FLOE_CHECK_STR(c->warehouse.secret_key_env, "S");
	FLOE_CHECK_STR(c->warehouse.session_token_env, "T");
	floe_config_free(c);

	c = parse_s3("location = \"s3://lake\"\n");
	FLOE_CHECK(c && !c->warehouse.path_style && !c->warehouse.session_token_env);
	FLOE_CHECK(c && strcmp(c->warehouse.access_key_env, "AWS_ACCESS_KEY_ID") == 0);
	FLOE_CHECK(c && strcmp(c->warehouse.secret_key_env, "AWS_SECRET_ACCESS_KEY") == 0);
	floe_config_free(c);

	c = parse_s3("location = \"lake\"\n");
	FLOE_CHECK(c && !floe_config_warehouse_is_s3(c));
	floe_config_free(c);
}

FLOE_TEST(config_s3_warehouse_keys_are_checked)
{
	FLOE_CHECK(parse_s3("path-style = \"yes\"\n") == NULL);
	FLOE_CHECK(strstr(floe_error_last()->message, "true or false") != NULL);
	FLOE_CHECK(parse_s3("endpoint = \"127.0.0.1:9000\"\n") == NULL);
	FLOE_CHECK(strstr(floe_error_last()->message, "http://") != NULL);
	FLOE_CHECK(parse_s3("secret-key-env = \"MY SECRET\"\n") == NULL);
	FLOE_CHECK(strstr(floe_error_last()->message, "environment variable") != NULL);
	floe_error_clear();
}

FLOE_TEST(config_s3_payload_signing)
{
	floe_config *c = parse_s3("location = \"s3://lake\"\n");
	FLOE_CHECK(c && strcmp(c->warehouse.payload_signing, "auto") == 0);
	floe_config_free(c);
	c = parse_s3("location = \"s3://lake\"\npayload-signing = \"never\"\n");
	FLOE_CHECK(c && strcmp(c->warehouse.payload_signing, "never") == 0);
	floe_config_free(c);
	FLOE_CHECK(parse_s3("payload-signing = \"sometimes\"\n") == NULL);
	FLOE_CHECK(strstr(floe_error_last()->message, "`auto`, `always` or `never`") != NULL);
	floe_error_clear();
}

FLOE_TEST(config_s3_part_settings)
{
	floe_config *c = parse_s3("location = \"s3://lake\"\n");
	FLOE_CHECK(c && c->warehouse.part_size_mb == 0 && c->warehouse.parts_in_flight == 0); /* the backend's */
	floe_config_free(c);
	c = parse_s3("location = \"s3://lake\"\npart-size-mb = 16\nparts-in-flight = 2\n");
	FLOE_CHECK(c && c->warehouse.part_size_mb == 16 && c->warehouse.parts_in_flight == 2);
	floe_config_free(c);
	FLOE_CHECK(parse_s3("parts-in-flight = 0\n") == NULL);
	floe_error_clear();
}

FLOE_TEST(config_s3_ca_file_is_an_absolute_path)
{
	floe_config *c = parse_s3("location = \"s3://lake\"\nca-file = \"/etc/ssl/store.pem\"\n");
	FLOE_CHECK(c && strcmp(c->warehouse.ca_file, "/etc/ssl/store.pem") == 0);
	floe_config_free(c);
	FLOE_CHECK(parse_s3("ca-file = \"store.pem\"\n") == NULL);
	FLOE_CHECK(strstr(floe_error_last()->message, "an absolute path") != NULL);
	floe_error_clear();
}
