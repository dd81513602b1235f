/*
 * pg.h — floe's PostgreSQL sessions (the one module that calls libpq).
 *
 * A source session is read-only by construction: it connects with
 * `default_transaction_read_only = on` in its startup options, so even a role
 * that could write cannot through floe. An admin session (used only by
 * `floe stack` against the private cluster it started) may write.
 * libpq's errors are translated here into floe's error chain, with the
 * connection target named and the password never quoted.
 */
#ifndef FLOE_PG_PG_H
#define FLOE_PG_PG_H

#include "base/buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct floe_pg floe_pg;
typedef struct floe_pg_result floe_pg_result;

typedef struct floe_pg_target {
	const char *host;     /* host name, address, or a socket directory (starts with '/') */
	int port;
	const char *database;
	const char *user;
	const char *password; /* borrowed; NULL: none */
	const char *sslmode;  /* NULL: libpq default */
	bool read_only;       /* default_transaction_read_only = on for the session */
	int connect_timeout;  /* seconds; 0: 10 */
	int64_t lock_timeout_seconds; /* the session's lock_timeout; 0: PostgreSQL's default (wait forever) */
	const char *password_env; /* the variable the password came from, named in hints; NULL: [source] */
	bool replication;     /* a logical replication connection (replication=database; replication.h) */
} floe_pg_target;

#define FLOE_PG_TARGET_INIT { .port = 5432, .read_only = true }

/* Connect. Errors: FLOE_ERR_UNREACHABLE (with hints for the common causes). */
int floe_pg_connect(floe_pg **out, const floe_pg_target *target);
void floe_pg_close(floe_pg *pg);

/* "host:port/database" as the user wrote it (for messages). Borrowed. */
const char *floe_pg_describe(const floe_pg *pg);

/* server_version_num, e.g. 150018, and the human form "15.18". */
int floe_pg_server_version(const floe_pg *pg);
const char *floe_pg_server_version_text(const floe_pg *pg);

/*
 * Run `sql` with text parameters $1..$n (NULL entries are SQL NULL). Result rows
 * are read with the accessors below; free with floe_pg_result_free().
 */
int floe_pg_query(floe_pg_result **out, floe_pg *pg, const char *sql, int nparams,
		  const char *const *params);
/* Run a statement that returns no rows. */
int floe_pg_exec(floe_pg *pg, const char *sql);

/*
 * A query (no parameters) sent to run while the caller does other work (pending.c); nothing
 * else may run on `pg` until it is collected (its result or error, as floe_pg_query's; frees
 * the handle) or freed (waits for it and drops the result; NULL is fine).
 */
typedef struct floe_pg_pending floe_pg_pending;
int floe_pg_send(floe_pg_pending **out, floe_pg *pg, const char *sql);
int floe_pg_collect(floe_pg_result **out, floe_pg_pending *p);
void floe_pg_pending_free(floe_pg_pending *p);

int floe_pg_result_rows(const floe_pg_result *r);
/* Rows an INSERT, UPDATE, DELETE or COPY touched (PQcmdTuples); 0 for others. */
long long floe_pg_result_affected(const floe_pg_result *r);
int floe_pg_result_cols(const floe_pg_result *r);
bool floe_pg_result_is_null(const floe_pg_result *r, int row, int col);
/* Text of a cell ("" for NULL). Borrowed until floe_pg_result_free. */
const char *floe_pg_result_text(const floe_pg_result *r, int row, int col);
bool floe_pg_result_bool(const floe_pg_result *r, int row, int col);
long long floe_pg_result_int(const floe_pg_result *r, int row, int col);
void floe_pg_result_free(floe_pg_result *r);

/*
 * Transactions on a session that may write. floe_pg_rollback never touches the
 * error chain (it runs while a failure is being reported) and accepts NULL and
 * a broken connection; it also ends an unfinished COPY.
 */
int floe_pg_begin(floe_pg *pg);
int floe_pg_commit(floe_pg *pg);
void floe_pg_rollback(floe_pg *pg);

/*
 * COPY … FROM STDIN (copy_in.c). floe_pg_copy_in_begin runs `sql`, which must
 * be such a COPY; then floe_pg_copy_in_put streams bytes in the statement's
 * format (any split: rows may cross calls), and floe_pg_copy_in_end finishes it
 * and reports the rows the server stored. Errors in the data surface at _end.
 * Until _end or _abort, nothing else may run on `pg`. _abort makes the server
 * fail the COPY (and so the transaction around it) and never touches the error
 * chain; it does nothing when no COPY is open.
 */
int floe_pg_copy_in_begin(floe_pg *pg, const char *sql);
int floe_pg_copy_in_put(floe_pg *pg, const void *data, size_t len);
int floe_pg_copy_in_end(long long *rows_out, floe_pg *pg);
void floe_pg_copy_in_abort(floe_pg *pg, const char *why);

/* Quote an identifier / a literal for this connection's encoding, appended to `out`. */
int floe_pg_quote_ident(floe_buf *out, floe_pg *pg, const char *ident);
int floe_pg_quote_literal(floe_buf *out, floe_pg *pg, const char *literal);

/*
 * ALTER ROLE `role` PASSWORD with a SCRAM verifier computed here, so the
 * cleartext never reaches the server (or its log).
 */
int floe_pg_set_role_password(floe_pg *pg, const char *role, const char *password);

/* Parse "host:port/db", "host/db", "/socket/dir:port/db", or a postgresql:// URI. */
typedef struct floe_pg_address {
	char host[256];
	int port;
	char database[128];
	char user[128]; /* from a URI's user part, "" when absent */
} floe_pg_address;
int floe_pg_parse_address(floe_pg_address *out, const char *text);

#endif
