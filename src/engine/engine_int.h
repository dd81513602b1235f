/*
 * engine_int.h — what the files of src/engine share and nobody else sees.
 */
#ifndef FLOE_ENGINE_ENGINE_INT_H
#define FLOE_ENGINE_ENGINE_INT_H

#include "engine/duckdb_api.h"

#include <stddef.h>

/*
 * Register floe's own scalar functions on `conn` (functions.c):
 * PostgreSQL's hash functions by their names (hashtextextended, hashint4extended, …).
 * Sets the error chain on failure.
 */
int floe_engine_register_functions(duckdb_connection conn);

/*
 * The PII key floe_hmac() is keyed with: set by floe_engine_set_pii_key, empty (len 0,
 * bytes NULL) until then. The engine owns it and wipes it at close.
 */
typedef struct floe_engine_key {
	unsigned char *bytes;
	size_t len;
} floe_engine_key;

/*
 * Register floe_hmac(VARCHAR) → VARCHAR on `conn` (functions.c), keyed by `key` (borrowed:
 * it must outlive the connection). A call before the key is set fails the statement.
 */
int floe_engine_register_hmac(duckdb_connection conn, const floe_engine_key *key);

/*
 * Make the whole process, every thread of it, unable to change any file from now on
 * (sandbox.c): opening for writing, creating, renaming, removing, truncating and the like
 * fail with EACCES. Irreversible. Sets the error chain when the kernel refuses.
 */
int floe_engine_forbid_writes(void);

/* Run the open hook (s3.c floe_engine_set_open_hook) on a new engine; 0 when none is set. */
struct floe_engine;
int floe_engine_run_open_hook(struct floe_engine *engine);

#endif
