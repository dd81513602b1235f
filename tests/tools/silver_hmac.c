/*
 * silver_hmac.c — test tool: floe's own floe_hmac over a file of values, for comparison with
 * the dbt-duckdb plugin `floe generate` writes. Not part of floe's command line.
 *
 *   silver_hmac PROJECT_DIR IN OUT     OUT (Parquet) = SELECT id, floe_hmac(v) AS h
 *                                      FROM IN (Parquet with columns id, v)
 * The key comes as `floe run` gets it: floe_config_pii_key on PROJECT_DIR/floe.toml.
 */
#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "config/config.h"
#include "engine/engine.h"

#include <stdio.h>
#include <string.h>

static int hash(const floe_config *config, const char *in, const char *out)
{
	floe_engine *e = NULL;
	floe_buf sql = FLOE_BUF_INIT;
	const char *key = NULL;
	int error = -1;
	if (floe_config_pii_key(&key, config) < 0 || floe_engine_open(&e, NULL) < 0)
		goto cleanup;
	if (!key) {
		floe_error_set(FLOE_ERR_CONFIG, "no PII key in %s", config->silver.pii_key_env);
		goto cleanup;
	}
	if (floe_engine_set_pii_key(e, key, strlen(key)) < 0)
		goto cleanup;
	floe_buf_puts(&sql, "COPY (SELECT id, floe_hmac(v) AS h FROM read_parquet(");
	floe_buf_put_quoted(&sql, in, '\'');
	floe_buf_puts(&sql, ")) TO ");
	floe_buf_put_quoted(&sql, out, '\'');
	floe_buf_puts(&sql, " (FORMAT parquet)");
	error = floe_engine_exec(e, floe_buf_cstr(&sql));
cleanup:
	floe_buf_free(&sql);
	floe_engine_close(e);
	return error;
}

int main(int argc, char **argv)
{
	floe_config *config = NULL;
	floe_arena *arena = floe_arena_new();
	int rc = 2;
	if (argc != 4) {
		fprintf(stderr, "usage: silver_hmac PROJECT_DIR IN OUT\n");
		goto cleanup;
	}
	rc = 1;
	if (floe_config_load(&config, floe_arena_printf(arena, "%s/floe.toml", argv[1])) < 0 ||
	    hash(config, argv[2], argv[3]) < 0) {
		floe_error_print(stderr);
		goto cleanup;
	}
	rc = 0;
cleanup:
	floe_config_free(config);
	floe_arena_free(arena);
	return rc;
}
