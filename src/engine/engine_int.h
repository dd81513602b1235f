/*
 * engine_int.h — what the files of src/engine share and nobody else sees.
 */
#ifndef FLOE_ENGINE_ENGINE_INT_H
#define FLOE_ENGINE_ENGINE_INT_H

#include "engine/duckdb_capi.h"

/*
 * Register floe's own scalar functions on `conn` (functions.c):
 * PostgreSQL's hash functions by their names (hashtextextended, hashint4extended, …).
 * Sets the error chain on failure.
 */
int floe_engine_register_functions(duckdb_connection conn);

/*
 * Make the whole process, every thread of it, unable to change any file from now on
 * (sandbox.c): opening for writing, creating, renaming, removing, truncating and the like
 * fail with EACCES. Irreversible. Sets the error chain when the kernel refuses.
 */
int floe_engine_forbid_writes(void);

#endif
