/*
 * pg_int.h — what the files of src/pg share and nobody else sees: the libpq
 * connection behind a floe_pg, and libpq error translation.
 */
#ifndef FLOE_PG_PG_INT_H
#define FLOE_PG_PG_INT_H

#include "base/error.h"
#include "pg/pg.h"

#include <libpq-fe.h>

PGconn *floe_pg_conn(floe_pg *pg);

/*
 * The error code of a SQLSTATE (NULL: none was sent). Without one, a connection that is
 * no longer `connected` was lost; otherwise the failure has no code of its own.
 */
floe_error_code floe_pg_code_of_sqlstate(const char *state, bool connected);

/* Set the error chain from a failed result (NULL: the connection's message). Returns -1. */
int floe_pg_result_error(floe_pg *pg, PGresult *res, const char *sql);

/*
 * The result of what was just sent with a PQsend… call (`sent`: its return): the first failed result
 * when one fails, otherwise the last; it stops at a COPY's start and when the connection is lost.
 * libpq's PQexec keeps the last instead, so a session ended by the server (its FATAL, SQLSTATE 57P01,
 * then the socket closed) read as "server closed the connection unexpectedly" with no SQLSTATE.
 * NULL when nothing was sent (the connection's message says why), or no result came. Every
 * reader of results in src/pg goes through it (`sent` 1 for what is already under way: a COPY's end).
 */
PGresult *floe_pg_results(floe_pg *pg, int sent);

/* A result that owns `res` (freed by floe_pg_result_free). */
floe_pg_result *floe_pg_result_wrap(PGresult *res);

/* Ask the server to cancel the running statement (best effort). */
void floe_pg_cancel(floe_pg *pg);

#endif
