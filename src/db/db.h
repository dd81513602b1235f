/*
 * db.h — floe's embedded SQL store: the one module that calls SQLite.
 *
 * Used by the Iceberg SQL catalog (warehouse/catalog.db) and the run ledger
 * (.floe/state.db). Statements are prepared with `?` parameters, never spliced.
 * SQLite's errors are translated here into floe's error chain, naming the file.
 */
#ifndef FLOE_DB_DB_H
#define FLOE_DB_DB_H

#include <stdbool.h>
#include <stdint.h>

typedef struct floe_db floe_db;
typedef struct floe_db_stmt floe_db_stmt;

typedef struct floe_db_opts {
	bool create;        /* create the file when missing */
	bool read_only;
	/*
	 * Read-only without locks and without creating -wal/-shm files (SQLite's immutable=1): for
	 * readers that must leave a project exactly as they found it, and only while no writer
	 * has the file open (its -wal file absent).
	 */
	bool immutable;
	int busy_timeout_ms; /* 0: 10 s */
} floe_db_opts;

#define FLOE_DB_OPTS_INIT { .create = false }

int floe_db_open(floe_db **out, const char *path, const floe_db_opts *opts);
void floe_db_close(floe_db *db);
const char *floe_db_path(const floe_db *db);

/* Run one or more statements without parameters or results. */
int floe_db_exec(floe_db *db, const char *sql);

/* BEGIN IMMEDIATE / COMMIT / ROLLBACK (rollback never fails the caller). */
int floe_db_begin(floe_db *db);
int floe_db_commit(floe_db *db);
void floe_db_rollback(floe_db *db);

/* PRAGMA user_version, for schema migrations. */
int floe_db_user_version(floe_db *db, int *out);
int floe_db_set_user_version(floe_db *db, int version);

int floe_db_prepare(floe_db_stmt **out, floe_db *db, const char *sql);
void floe_db_finalize(floe_db_stmt *stmt);

/* Parameters are 1-based. Text is copied. NULL text binds SQL NULL. */
int floe_db_bind_text(floe_db_stmt *stmt, int i, const char *text);
int floe_db_bind_int64(floe_db_stmt *stmt, int i, int64_t value);
int floe_db_bind_null(floe_db_stmt *stmt, int i);

/* 1: a row is ready; 0: done; -1: error. */
int floe_db_step(floe_db_stmt *stmt);
int floe_db_reset(floe_db_stmt *stmt);

/* Columns are 0-based. Text is borrowed until the next step; NULL for SQL NULL. */
const char *floe_db_column_text(floe_db_stmt *stmt, int i);
int64_t floe_db_column_int64(floe_db_stmt *stmt, int i);
bool floe_db_column_is_null(floe_db_stmt *stmt, int i);

/* Rows changed by the last INSERT/UPDATE/DELETE. */
int64_t floe_db_changes(floe_db *db);

#endif
