/*
 * test_storage_s3.c — the s3 backend without a server: credentials read from the variables
 * named (a missing one named, never a value shown), the endpoint AWS gets by default, the
 * process route, and a store that cannot be reached (the requests themselves run against moto
 * in tests/it/test_s3*.py).
 */
#include "harness.h"
#include "base/arena.h"
#include "base/error.h"
#include "iceberg/storage_s3.h"

#include <stdlib.h>
#include <string.h>

FLOE_TEST(storage_s3_credentials_come_from_the_named_variables)
{
	floe_iceberg_storage *st = NULL;
	floe_iceberg_s3_opts o = { .location = "s3://lake/wh", .region = "eu-west-1",
				   .access_key_env = "FLOE_TEST_S3_KEY", .secret_key_env = "FLOE_TEST_S3_SECRET" };
	unsetenv("FLOE_TEST_S3_KEY");
	setenv("FLOE_TEST_S3_SECRET", "test-secret-value-42", 1);
	FLOE_CHECK(floe_iceberg_storage_s3(&st, &o) == -1 && st == NULL);
	FLOE_CHECK(floe_error_last()->cls == FLOE_ERR_CONFIG);
	FLOE_CHECK(strstr(floe_error_last()->message, "FLOE_TEST_S3_KEY is not set") != NULL);
	setenv("FLOE_TEST_S3_KEY", "AKIATESTKEY000000001", 1);
	setenv("FLOE_TEST_S3_SECRET", "", 1);
	FLOE_CHECK(floe_iceberg_storage_s3(&st, &o) == -1);
	FLOE_CHECK(strstr(floe_error_last()->message, "FLOE_TEST_S3_SECRET is empty") != NULL);
	setenv("FLOE_TEST_S3_SECRET", "test-secret-value-42", 1);
	floe_error_clear();
	FLOE_CHECK(floe_iceberg_storage_s3(&st, &o) == 0 && st != NULL);
	floe_iceberg_s3_access a;
	FLOE_CHECK(floe_iceberg_storage_s3_access(st, &a) == 1);
	FLOE_CHECK_STR(a.endpoint, "https://s3.eu-west-1.amazonaws.com");
	FLOE_CHECK_STR(a.key_id, "AKIATESTKEY000000001");
	FLOE_CHECK(!a.session_token && !a.path_style);
	floe_arena *arena = floe_arena_new();
	FLOE_CHECK_STR(floe_iceberg_storage_engine_uri(st, arena, "s3://lake/wh/t/data/a.parquet"),
		       "s3://lake/wh/t/data/a.parquet");
	floe_arena_free(arena);
	floe_iceberg_storage_free(st);
	floe_iceberg_storage *local = floe_iceberg_storage_local();
	FLOE_CHECK(floe_iceberg_storage_s3_access(local, &a) == 0);
	floe_iceberg_storage_free(local);
	unsetenv("FLOE_TEST_S3_KEY");
	unsetenv("FLOE_TEST_S3_SECRET");
}

FLOE_TEST(storage_s3_route_matches_the_warehouse_directory)
{
	floe_iceberg_s3_opts o = { .location = "s3://lake/wh", .access_key_env = "K", .secret_key_env = "S" };
	floe_iceberg_storage_route_s3("/p/warehouse", &o);
	FLOE_CHECK(floe_iceberg_storage_routed_s3("/p/warehouse") != NULL);
	FLOE_CHECK(floe_iceberg_storage_routed_s3("/p/warehouse/") != NULL);
	FLOE_CHECK_STR(floe_iceberg_storage_routed_s3("/p/warehouse")->location, "s3://lake/wh");
	FLOE_CHECK(floe_iceberg_storage_routed_s3("/p/warehouse2") == NULL);
	FLOE_CHECK(floe_iceberg_storage_routed_s3("/q/warehouse") == NULL);
	floe_iceberg_storage_route_s3(NULL, NULL);
	FLOE_CHECK(floe_iceberg_storage_routed_s3("/p/warehouse") == NULL);
}

FLOE_TEST(storage_s3_unreachable_store_is_a_service_error)
{
	floe_iceberg_storage *st = NULL;
	floe_iceberg_reader *r = NULL;
	floe_iceberg_s3_opts o = { .location = "s3://lake/wh", .endpoint = "http://127.0.0.1:1", .path_style = true,
				   .access_key_env = "FLOE_TEST_S3_KEY", .secret_key_env = "FLOE_TEST_S3_SECRET",
				   .attempts = 2, .backoff_base_ms = 1 };
	setenv("FLOE_TEST_S3_KEY", "AKIATESTKEY000000001", 1);
	setenv("FLOE_TEST_S3_SECRET", "test-secret-value-42", 1);
	FLOE_CHECK(floe_iceberg_storage_s3(&st, &o) == 0);
	FLOE_CHECK(floe_iceberg_storage_open_read(&r, st, "s3://lake/wh/x.json") == -1 && r == NULL);
	FLOE_CHECK(floe_error_last()->cls == FLOE_ERR_UNREACHABLE);
	FLOE_CHECK(strstr(floe_error_last()->message, "test-secret-value-42") == NULL);
	floe_error_clear();
	floe_iceberg_storage_free(st);
	unsetenv("FLOE_TEST_S3_KEY");
	unsetenv("FLOE_TEST_S3_SECRET");
}

FLOE_TEST(storage_s3_payload_is_unsigned_over_https_unless_asked)
{
	floe_iceberg_s3_opts o = { .location = "s3://lake/x", .endpoint = "https://s3.example.com" };
	FLOE_CHECK(floe_iceberg_s3_payload_unsigned(&o));          /* auto, https */
	o.endpoint = NULL;
	FLOE_CHECK(floe_iceberg_s3_payload_unsigned(&o));          /* auto, AWS */
	o.endpoint = "http://127.0.0.1:9000";
	FLOE_CHECK(!floe_iceberg_s3_payload_unsigned(&o));         /* auto, plain http: signed */
	o.payload_signing = FLOE_S3_SIGN_NEVER;
	FLOE_CHECK(floe_iceberg_s3_payload_unsigned(&o));
	o.endpoint = "HTTPS://s3.example.com";
	o.payload_signing = FLOE_S3_SIGN_ALWAYS;
	FLOE_CHECK(!floe_iceberg_s3_payload_unsigned(&o));
}
