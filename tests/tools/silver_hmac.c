/*
 * silver_hmac.c — test tool: floe's two floe_hmac implementations, side by side. Not part
 * of floe's command line.
 *
 *   silver_hmac udfs-py PROJECT_DIR            print the dbt-duckdb plugin module floe writes
 *   silver_hmac hash PROJECT_DIR IN OUT        OUT (Parquet) = SELECT id, floe_hmac(v) AS h
 *                                              FROM IN (Parquet with columns id, v)
 * The key comes as `floe run` gets it: floe_config_pii_key on PROJECT_DIR/floe.toml.
 */
#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "config/config.h"
#include "engine/engine.h"
#include "silver/udfs.h"

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
	floe_buf py = FLOE_BUF_INIT;
	int rc = 2;
	bool udfs = argc == 3 && strcmp(argv[1], "udfs-py") == 0, hashing = argc == 5 && strcmp(argv[1], "hash") == 0;
	if (!udfs && !hashing) {
		fprintf(stderr, "usage: silver_hmac udfs-py PROJECT_DIR | hash PROJECT_DIR IN OUT\n");
		goto cleanup;
	}
	rc = 1;
	if (floe_config_load(&config, floe_arena_printf(arena, "%s/floe.toml", argv[2])) < 0)
		goto failed;
	if (udfs) {
		floe_silver_dbt_udfs_py(&py, config->silver.pii_key_env);
		fputs(floe_buf_cstr(&py), stdout);
	} else if (hash(config, argv[3], argv[4]) < 0) {
		goto failed;
	}
	rc = 0;
	goto cleanup;
failed:
	floe_error_print(stderr);
cleanup:
	floe_buf_free(&py);
	floe_config_free(config);
	floe_arena_free(arena);
	return rc;
}
