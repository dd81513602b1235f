/*
 * udfs.h — floe's SQL functions for dbt: the text of the Python module dbt-duckdb loads as
 * a plugin (pipeline/dbt/floe_plugins/floe_udfs.py, written by `floe generate`).
 *
 * The module registers floe_hmac(VARCHAR) → VARCHAR on each dbt-duckdb connection: the
 * HMAC-SHA256 of the value's UTF-8 bytes as 64 lower-case hex digits, NULL for NULL, keyed by
 * the bytes of the environment variable named by [silver] pii-key-env — computed with
 * Python's hmac and hashlib, and equal to floe's own floe_hmac (src/engine/functions.c), so
 * a masked column is the same value whether floe or dbt built it. A call without the key
 * fails the query naming the variable; a project without hmac columns never calls it.
 * DuckDB's Python client needs numpy for create_function.
 */
#ifndef FLOE_SILVER_UDFS_H
#define FLOE_SILVER_UDFS_H

#include "base/buf.h"

/*
 * Append the module's text, reading the key from `key_env` (an environment variable name,
 * as config.c accepts them: letters, digits, underscores), to `out`.
 */
void floe_silver_dbt_udfs_py(floe_buf *out, const char *key_env);

#endif
