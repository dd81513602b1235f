/*
 * replication.h — PostgreSQL's streaming replication protocol on a logical replication
 * connection (`replication=database`): replication commands (IDENTIFY_SYSTEM,
 * CREATE_REPLICATION_SLOT, DROP_REPLICATION_SLOT) through the simple query protocol, and
 * START_REPLICATION's COPY BOTH stream, read message by message and answered with standby
 * status updates. The messages themselves (XLogData, keepalives, pgoutput) are decoded by
 * src/cdc, which never sees libpq.
 */
#ifndef FLOE_PG_REPLICATION_H
#define FLOE_PG_REPLICATION_H

#include "base/buf.h"
#include "pg/pg.h"

typedef struct floe_config floe_config;

/*
 * A replication connection to the configured source, as its role. The session stays
 * read-only for SQL (default_transaction_read_only); replication commands still run.
 * Errors as floe_pg_connect; a role without REPLICATION fails with a hint naming the grant.
 */
int floe_pg_connect_replication(floe_pg **out, const floe_config *config);

/* Run a replication command (simple query protocol); free the result with floe_pg_result_free. */
int floe_pg_replication_command(floe_pg_result **out, floe_pg *pg, const char *command);

/* Run START_REPLICATION …: the connection is then in COPY BOTH until it is closed. */
int floe_pg_replication_start(floe_pg *pg, const char *command);

/*
 * The next message of the stream into `out` (cleared first): 1 a message, 0 none within
 * `timeout_ms`, -1 the stream ended or broke (the error chain says which, with its SQLSTATE code).
 */
int floe_pg_replication_read(floe_pg *pg, floe_buf *out, int timeout_ms);

/* Send a message (a standby status update) and flush it. */
int floe_pg_replication_send(floe_pg *pg, const void *data, size_t len);

/*
 * End the stream (CopyDone) and wait, at most `timeout_ms`, for the server to finish the
 * command: every message sent before — a final status update — has then been processed.
 */
int floe_pg_replication_finish(floe_pg *pg, int timeout_ms);

#endif
