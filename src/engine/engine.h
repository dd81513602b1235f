/*
 * engine.h — floe's embedded SQL engine: DuckDB, called through its C API.
 *
 * A floe_engine is one DuckDB database (in memory, or a file) with one connection.
 * Modules run SQL through it — reading Parquet files and Iceberg tables as views,
 * computing the DuckDB side of reconciliation, running silver and gold models — and
 * get floe errors back: DuckDB's own message becomes the detail of a floe error set
 * here, the only module that calls DuckDB.
 *
 * The engine never downloads anything: DuckDB's automatic extension install and load
 * are switched off, so it runs what is built into libduckdb.so and nothing else.
 *
 * An engine is not thread-safe: use it from one thread at a time.
 */
#ifndef FLOE_ENGINE_ENGINE_H
#define FLOE_ENGINE_ENGINE_H

#include <stddef.h>

#include "base/buf.h"

typedef struct floe_engine floe_engine;
typedef struct floe_engine_result floe_engine_result;

/*
 * Open a DuckDB database at `path` (created if missing), or an in-memory one when `path`
 * is NULL. On success *out owns the database; release it with floe_engine_close().
 */
int floe_engine_open(floe_engine **out, const char *path);

/* Close the connection and the database. Accepts NULL. */
void floe_engine_close(floe_engine *engine);

/* Run one or more `;`-separated statements and discard any result. */
int floe_engine_exec(floe_engine *engine, const char *sql);

/*
 * Run `sql` and materialize its (last statement's) result as text, for small results:
 * metadata, aggregates, checks. Results of more than FLOE_ENGINE_RESULT_MAX_CELLS cells
 * are refused; write large results to files with COPY … TO instead.
 * On success *out owns the result; release it with floe_engine_result_free().
 */
#define FLOE_ENGINE_RESULT_MAX_CELLS ((size_t)1 << 22)
int floe_engine_query(floe_engine *engine, floe_engine_result **out, const char *sql);

/*
 * Run `sql` and put the first column of its first row, as text, into `out` (replacing
 * its contents). No row, or a NULL value, is an error: use floe_engine_query() when
 * either is an expected answer.
 */
int floe_engine_query_text(floe_engine *engine, floe_buf *out, const char *sql);

size_t floe_engine_result_rows(const floe_engine_result *result);
size_t floe_engine_result_columns(const floe_engine_result *result);

/* Column name. Borrowed from the result. */
const char *floe_engine_result_name(const floe_engine_result *result, size_t col);

/* Cell as DuckDB casts it to VARCHAR, or NULL for SQL NULL. Borrowed from the result. */
const char *floe_engine_result_text(const floe_engine_result *result, size_t row, size_t col);

/* Accepts NULL. Invalidates every string borrowed from the result. */
void floe_engine_result_free(floe_engine_result *result);

/* The linked DuckDB's version, e.g. "v1.5.5". Static storage. */
const char *floe_engine_version(void);

#endif
