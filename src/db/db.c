/*
 * db.c — SQLite behind floe_db.
 */
#include "db/db.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

struct floe_db {
	sqlite3 *handle;
	char *path;
};

struct floe_db_stmt {
	floe_db *db;
	sqlite3_stmt *handle;
};

static int db_error(floe_db *db, const char *what)
{
	int code = sqlite3_extended_errcode(db->handle);
	floe_error_class cls = (code & 0xff) == SQLITE_BUSY || (code & 0xff) == SQLITE_LOCKED ? FLOE_ERR_UNREACHABLE
										      : FLOE_ERR_IO;
	floe_error_set(cls, "%s failed on \"%s\": %s", what, db->path, sqlite3_errmsg(db->handle));
	if (cls == FLOE_ERR_UNREACHABLE)
		floe_error_hint("Another floe process is writing to it; try again when it has finished.");
	/* The file system's errno behind an I/O failure, or SQLite's own code for a full disk. */
	int primary = code & 0xff;
	floe_error_code fs = primary == SQLITE_FULL ? FLOE_CODE_DISK_FULL : FLOE_CODE_NONE;
	if (primary == SQLITE_IOERR || primary == SQLITE_CANTOPEN || primary == SQLITE_READONLY)
		fs = floe_error_code_of_errno(sqlite3_system_errno(db->handle));
	if (fs != FLOE_CODE_NONE)
		floe_error_code_set(fs, "%s", db->path);
	return -1;
}

/* "file:PATH?immutable=1", the path percent-encoded where a URI needs it. */
static char *immutable_uri(const char *path)
{
	floe_buf uri = FLOE_BUF_INIT;
	floe_buf_puts(&uri, "file:");
	for (const char *p = path; *p; p++)
		if (*p == '%' || *p == '?' || *p == '#')
			floe_buf_printf(&uri, "%%%02X", (unsigned char)*p);
		else
			floe_buf_putc(&uri, *p);
	floe_buf_puts(&uri, "?immutable=1");
	return floe_buf_detach(&uri, NULL);
}

int floe_db_open(floe_db **out, const char *path, const floe_db_opts *opts)
{
	floe_db_opts defaults = FLOE_DB_OPTS_INIT;
	if (!opts)
		opts = &defaults;
	*out = NULL;
	floe_db *db = floe_xcalloc(1, sizeof(*db));
	db->path = floe_xstrndup(path, strlen(path));
	int flags = opts->read_only || opts->immutable ? SQLITE_OPEN_READONLY
						       : SQLITE_OPEN_READWRITE | (opts->create ? SQLITE_OPEN_CREATE : 0);
	char *uri = opts->immutable ? immutable_uri(path) : NULL;
	int rc = sqlite3_open_v2(uri ? uri : path, &db->handle, flags | SQLITE_OPEN_NOMUTEX | (uri ? SQLITE_OPEN_URI : 0),
				 NULL);
	free(uri);
	if (rc != SQLITE_OK) {
		if (db->handle)
			db_error(db, "opening the database");
		else
			floe_error_set(FLOE_ERR_INTERNAL, "out of memory opening \"%s\"", path);
		floe_db_close(db);
		return -1;
	}
	sqlite3_busy_timeout(db->handle, opts->busy_timeout_ms > 0 ? opts->busy_timeout_ms : 10000);
	sqlite3_extended_result_codes(db->handle, 1);
	*out = db;
	return 0;
}

void floe_db_close(floe_db *db)
{
	if (!db)
		return;
	sqlite3_close_v2(db->handle);
	free(db->path);
	free(db);
}

const char *floe_db_path(const floe_db *db)
{
	return db->path;
}

int floe_db_exec(floe_db *db, const char *sql)
{
	if (sqlite3_exec(db->handle, sql, NULL, NULL, NULL) != SQLITE_OK)
		return db_error(db, "a statement");
	return 0;
}

int floe_db_begin(floe_db *db)
{
	return floe_db_exec(db, "BEGIN IMMEDIATE");
}

int floe_db_commit(floe_db *db)
{
	return floe_db_exec(db, "COMMIT");
}

void floe_db_rollback(floe_db *db)
{
	if (!sqlite3_get_autocommit(db->handle))
		sqlite3_exec(db->handle, "ROLLBACK", NULL, NULL, NULL);
}

int floe_db_user_version(floe_db *db, int *out)
{
	floe_db_stmt *st = NULL;
	*out = 0;
	if (floe_db_prepare(&st, db, "PRAGMA user_version") < 0)
		return -1;
	int rc = floe_db_step(st);
	if (rc == 1)
		*out = (int)floe_db_column_int64(st, 0);
	floe_db_finalize(st);
	return rc < 0 ? -1 : 0;
}

int floe_db_set_user_version(floe_db *db, int version)
{
	char sql[64];
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", version);
	return floe_db_exec(db, sql);
}

int floe_db_prepare(floe_db_stmt **out, floe_db *db, const char *sql)
{
	sqlite3_stmt *h = NULL;
	*out = NULL;
	if (sqlite3_prepare_v2(db->handle, sql, -1, &h, NULL) != SQLITE_OK)
		return db_error(db, "preparing a statement");
	floe_db_stmt *st = floe_xcalloc(1, sizeof(*st));
	st->db = db;
	st->handle = h;
	*out = st;
	return 0;
}

void floe_db_finalize(floe_db_stmt *stmt)
{
	if (!stmt)
		return;
	sqlite3_finalize(stmt->handle);
	free(stmt);
}

int floe_db_bind_text(floe_db_stmt *stmt, int i, const char *text)
{
	int rc = text ? sqlite3_bind_text(stmt->handle, i, text, -1, SQLITE_TRANSIENT)
		      : sqlite3_bind_null(stmt->handle, i);
	return rc == SQLITE_OK ? 0 : db_error(stmt->db, "binding a parameter");
}

int floe_db_bind_int64(floe_db_stmt *stmt, int i, int64_t value)
{
	return sqlite3_bind_int64(stmt->handle, i, value) == SQLITE_OK ? 0
									 : db_error(stmt->db, "binding a parameter");
}

int floe_db_bind_null(floe_db_stmt *stmt, int i)
{
	return sqlite3_bind_null(stmt->handle, i) == SQLITE_OK ? 0 : db_error(stmt->db, "binding a parameter");
}

int floe_db_step(floe_db_stmt *stmt)
{
	int rc = sqlite3_step(stmt->handle);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return db_error(stmt->db, "a statement");
}

int floe_db_reset(floe_db_stmt *stmt)
{
	sqlite3_reset(stmt->handle);
	return sqlite3_clear_bindings(stmt->handle) == SQLITE_OK ? 0 : -1;
}

const char *floe_db_column_text(floe_db_stmt *stmt, int i)
{
	return (const char *)sqlite3_column_text(stmt->handle, i);
}

int64_t floe_db_column_int64(floe_db_stmt *stmt, int i)
{
	return sqlite3_column_int64(stmt->handle, i);
}

bool floe_db_column_is_null(floe_db_stmt *stmt, int i)
{
	return sqlite3_column_type(stmt->handle, i) == SQLITE_NULL;
}

int64_t floe_db_changes(floe_db *db)
{
	return sqlite3_changes64(db->handle);
}
