/*
 * warehouse.c — where the CLI's tables live: after floe.toml is read, an S3 warehouse
 * (`[warehouse] location = "s3://…"`) is routed for the process, so every catalog the
 * commands open over the project's warehouse directory puts its tables on S3
 * (storage_s3.h) and every DuckDB engine can read them (engine.h floe_engine_use_s3).
 */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "config/config.h"
#include "engine/engine.h"
#include "iceberg/storage_s3.h"

/* The engine open hook: DuckDB gets httpfs and the warehouse's credentials. */
static int engine_reads_s3(floe_engine *engine, void *ctx)
{
	floe_iceberg_storage *st = NULL;
	floe_iceberg_s3_access a;
	int error = -1;
	if (floe_iceberg_storage_s3(&st, floe_iceberg_storage_routed_s3(ctx)) < 0 ||
	    !floe_iceberg_storage_s3_access(st, &a))
		goto cleanup;
	floe_engine_s3 e = { a.endpoint, a.region, a.path_style, a.key_id, a.secret, a.session_token,
			     getenv("FLOE_DUCKDB_EXTENSION_DIR"), a.ca_file };
	error = floe_engine_use_s3(engine, &e);
cleanup:
	floe_iceberg_storage_free(st);
	return error;
}

/* [warehouse] payload-signing (config.c checked it is one of the three). */
static floe_iceberg_s3_signing signing(const char *v)
{
	return v && strcmp(v, "always") == 0 ? FLOE_S3_SIGN_ALWAYS
	       : v && strcmp(v, "never") == 0 ? FLOE_S3_SIGN_NEVER : FLOE_S3_SIGN_AUTO;
}

/* [warehouse] part-size-mb and parts-in-flight within what S3 and floe take. */
static int check_parts(const floe_config_warehouse *w)
{
	int error = 0;
	if (w->part_size_mb && (w->part_size_mb < 5 || w->part_size_mb > 5120)) {
		error = floe_error_set(FLOE_ERR_CONFIG, "[warehouse] part-size-mb = %lld is out of range",
				       (long long)w->part_size_mb);
		floe_error_hint("S3 takes parts of 5 to 5120 MiB; floe holds 1 + parts-in-flight of them in memory.");
	} else if (w->parts_in_flight > 8) {
		error = floe_error_set(FLOE_ERR_CONFIG, "[warehouse] parts-in-flight = %lld is out of range",
				       (long long)w->parts_in_flight);
		floe_error_hint("Use 1 to 8.");
	}
	return error;
}

int floe_cli_route_warehouse(const floe_config *config)
{
	const floe_config_warehouse *w = &config->warehouse;
	if (!floe_config_warehouse_is_s3(config)) {
		floe_iceberg_storage_route_s3(NULL, NULL);
		floe_engine_set_open_hook(NULL, NULL);
		return 0;
	}
	const char *bucket = w->location + 5;
	if (!bucket[0] || bucket[0] == '/') {
		floe_error_set(FLOE_ERR_CONFIG, "[warehouse] location \"%s\" names no bucket", w->location);
		floe_error_hint("Write it as \"s3://bucket/prefix\".");
		return -1;
	}
	if (check_parts(w) < 0)
		return -1;
	floe_iceberg_s3_opts o = { .location = w->location, .endpoint = w->endpoint, .region = w->region,
				   .path_style = w->path_style, .access_key_env = w->access_key_env,
				   .secret_key_env = w->secret_key_env, .session_token_env = w->session_token_env,
				   .payload_signing = signing(w->payload_signing),
				   .part_size = (size_t)w->part_size_mb << 20, .parts_in_flight = (int)w->parts_in_flight,
				   .ca_file = w->ca_file };
	floe_iceberg_storage_route_s3(floe_config_warehouse_dir(config), &o);
	/* The route keeps its own copy of the directory: the hook's context outlives config. */
	floe_engine_set_open_hook(engine_reads_s3, (void *)floe_iceberg_storage_routed_dir_s3());
	return 0;
}
