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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

typedef struct floe_engine floe_engine;
typedef struct floe_engine_result floe_engine_result;

/*
 * Open a DuckDB database at `path` (created if missing), or an in-memory one when `path`
 * is NULL. On success *out owns the database; release it with floe_engine_close().
 */
int floe_engine_open(floe_engine **out, const char *path);

/*
 * Key floe_hmac(VARCHAR) → VARCHAR — HMAC-SHA256 of the value's UTF-8 bytes as lower-case
 * hex, NULL for NULL (silver's PII masking, base/hmac.h) — with the `len` bytes at `key`
 * (copied; the engine wipes its copy at close). The engine never reads the environment:
 * the caller passes the key (config.h floe_config_pii_key). Until a key is set, a statement
 * calling floe_hmac fails.
 */
int floe_engine_set_pii_key(floe_engine *engine, const void *key, size_t len);

/*
 * From now on a failed statement's error gives DuckDB's error class ("DuckDB's Conversion
 * error"), never DuckDB's text, which may quote the data it could not convert or compute (a
 * masked column's clear value). Only parser, syntax, binder and catalog errors, which quote the
 * statement and never data, keep their text. For engines that run over data a message must not
 * show (silver).
 */
void floe_engine_hide_data_in_errors(floe_engine *engine);

/*
 * Let the engine read `s3://` objects (an S3 warehouse, src/engine/s3.c): load the httpfs
 * extension from `extension_dir` (NULL: `extensions/` beside libduckdb.so, where
 * scripts/setup.sh puts the pinned build) — never a download — and create a temporary
 * secret from the credentials (borrowed; never in a message).
 */
typedef struct floe_engine_s3 {
	const char *endpoint;       /* "http(s)://host[:port]" */
	const char *region;
	bool path_style;
	const char *key_id, *secret, *session_token; /* session_token may be NULL */
	const char *extension_dir;
	const char *ca_file;        /* PEM certificates httpfs trusts for an https endpoint; NULL: the system's */
} floe_engine_s3;
int floe_engine_use_s3(floe_engine *engine, const floe_engine_s3 *s3);

/*
 * A function every floe_engine_open runs on the new engine before returning it (the CLI
 * sets one for an S3 warehouse: floe_engine_use_s3 with its credentials); NULL: none.
 * Process-wide; a failure fails the open.
 */
typedef int (*floe_engine_open_hook)(floe_engine *engine, void *ctx);
void floe_engine_set_open_hook(floe_engine_open_hook fn, void *ctx);

/*
 * A second connection to `engine`'s database (an engine opened with floe_engine_open, not sealed):
 * it shares the database's catalog, floe's functions and the PII key they read (set it on
 * `engine`, never on `out`), extensions and secrets; its temporary tables and views, its current
 * catalog (USE) and floe_engine_hide_data_in_errors are its own. Opening a database costs DuckDB
 * 15-20 ms (its built-in catalog); a connection next to nothing. Close `out` before `engine`.
 */
int floe_engine_connect(floe_engine **out, floe_engine *engine);

/* Close the connection and, unless it is floe_engine_connect's, the database. Accepts NULL. */
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
 * Confine the engine to reading, for good: DuckDB may open the files in `readable` (exact
 * paths; n may be 0) and no other (enable_external_access = false, allowed_paths), keeps
 * temporary data in memory, and its configuration is locked; and the whole process, every
 * thread, loses every way to change a file (a seccomp filter: no file opened for writing,
 * created, renamed, removed, truncated or re-permissioned). DuckDB lets a statement write
 * where it may read; the process filter is what keeps the readable files unchanged.
 * Irreversible: call it only in a process that writes no file afterwards (descriptors opened
 * before, like stdout, still work). Fails when the kernel refuses the filter.
 */
int floe_engine_seal(floe_engine *engine, const char *const *readable, size_t n);

/*
 * Run a user's read-only `sql` in a sealed engine: exactly one statement, as DuckDB's own
 * parser counts them, which DuckDB classifies as a query (SELECT, FROM, WITH, VALUES, TABLE,
 * DESCRIBE, SHOW, SUMMARIZE); anything else is refused before it runs. Every value is
 * DuckDB's VARCHAR cast of it (timestamptz, uuid, struct and list values included). Errors
 * the statement causes (bad SQL, a refused file, a failed cast) are FLOE_ERR_USAGE.
 */
int floe_engine_query_read(floe_engine *engine, floe_engine_result **out, const char *sql);

/*
 * Run `sql` and put the first column of its first row, as text, into `out` (replacing
 * its contents). No row, or a NULL value, is an error: use floe_engine_query() when
 * either is an expected answer.
 */
int floe_engine_query_text(floe_engine *engine, floe_buf *out, const char *sql);

/*
 * "SELECT unnest(string_split('v0,v1,…', ','))::BIGINT": `n` (at least one) integers as the
 * rows of a subquery, e.g. `pos IN (…)`. One string literal that DuckDB splits as it runs:
 * n integer literals are n expressions to parse and bind (20 000 positions: 50 ms, against
 * 7 ms split; 100 000: 240 ms against 40 ms).
 */
void floe_engine_put_int64_rows(floe_buf *sql, const int64_t *v, size_t n);

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
