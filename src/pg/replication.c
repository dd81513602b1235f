/*
 * replication.c — the replication connection and the COPY BOTH stream of
 * START_REPLICATION (replication.h). Only bytes cross this file's boundary: what
 * they mean is src/cdc's business.
 */
#include "pg/replication.h"
#include "pg/introspect.h"
#include "pg/pg_int.h"
#include "base/error.h"
#include "config/config.h"

#include <errno.h>
#include <libpq-fe.h>
#include <poll.h>
#include <string.h>

int floe_pg_connect_replication(floe_pg **out, const floe_config *config)
{
	floe_pg_target t;
	floe_pg_source_target(&t, config);
	t.replication = true;
	if (floe_pg_connect(out, &t) < 0)
		return floe_error_context("while opening a replication connection (the role needs REPLICATION: "
					  "ALTER ROLE %s REPLICATION)", config->source.user);
	return 0;
}

int floe_pg_replication_command(floe_pg_result **out, floe_pg *pg, const char *command)
{
	*out = NULL;
	PGresult *res = floe_pg_results(pg, PQsendQuery(floe_pg_conn(pg), command));
	ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
	if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
		floe_pg_result_error(pg, res, command);
		PQclear(res);
		return -1;
	}
	*out = floe_pg_result_wrap(res);
	return 0;
}

int floe_pg_replication_start(floe_pg *pg, const char *command)
{
	PGresult *res = floe_pg_results(pg, PQsendQuery(floe_pg_conn(pg), command));
	if (!res || PQresultStatus(res) != PGRES_COPY_BOTH) {
		floe_pg_result_error(pg, res, command);
		PQclear(res);
		return -1;
	}
	PQclear(res);
	return 0;
}

/* The stream ended: the server's final result says why (an error with its SQLSTATE). */
static int stream_ended(floe_pg *pg)
{
	PGresult *res = floe_pg_results(pg, 1);
	int rc = res && PQresultStatus(res) == PGRES_FATAL_ERROR
			 ? floe_pg_result_error(pg, res, "START_REPLICATION")
			 : floe_error_set(FLOE_ERR_UNREACHABLE, "the replication stream from %s ended",
					  floe_pg_describe(pg));
	PQclear(res);
	return rc;
}

int floe_pg_replication_read(floe_pg *pg, floe_buf *out, int timeout_ms)
{
	PGconn *conn = floe_pg_conn(pg);
	char *data = NULL;
	floe_buf_clear(out);
	for (;;) {
		int n = PQgetCopyData(conn, &data, 1);
		if (n > 0) {
			int rc = floe_buf_put(out, data, (size_t)n);
			PQfreemem(data);
			return rc < 0 ? -1 : 1;
		}
		if (n == -1)
			return stream_ended(pg);
		if (n == -2)
			return floe_pg_result_error(pg, NULL, "START_REPLICATION");
		struct pollfd p = { .fd = PQsocket(conn), .events = POLLIN };
		int ready = poll(&p, 1, timeout_ms);
		if (ready < 0 && errno != EINTR)
			return floe_error_set_errno(FLOE_ERR_INTERNAL, "could not wait for the replication stream");
		if (ready == 0)
			return 0;
		if (ready > 0 && !PQconsumeInput(conn))
			return floe_pg_result_error(pg, NULL, "START_REPLICATION");
	}
}

int floe_pg_replication_send(floe_pg *pg, const void *data, size_t len)
{
	PGconn *conn = floe_pg_conn(pg);
	if (PQputCopyData(conn, data, (int)len) != 1 || PQflush(conn) != 0)
		return floe_pg_result_error(pg, NULL, "standby status update");
	return 0;
}

int floe_pg_replication_finish(floe_pg *pg, int timeout_ms)
{
	PGconn *conn = floe_pg_conn(pg);
	char *data = NULL;
	if (PQputCopyEnd(conn, NULL) != 1 || PQflush(conn) != 0)
		return floe_pg_result_error(pg, NULL, "CopyDone");
	for (;;) {
		int n = PQgetCopyData(conn, &data, 1);
		if (n > 0) {
			PQfreemem(data); /* what was already on its way: the next run reads it again */
			continue;
		}
		if (n < 0)
			break;
		struct pollfd p = { .fd = PQsocket(conn), .events = POLLIN };
		int ready = poll(&p, 1, timeout_ms);
		if (ready == 0)
			return floe_error_set(FLOE_ERR_UNREACHABLE, "the replication stream from %s did not end "
					      "within %d ms", floe_pg_describe(pg), timeout_ms);
		if (ready > 0 && !PQconsumeInput(conn))
			return floe_pg_result_error(pg, NULL, "CopyDone");
	}
	PGresult *res = floe_pg_results(pg, 1);
	int rc = res && PQresultStatus(res) == PGRES_FATAL_ERROR ? floe_pg_result_error(pg, res, "START_REPLICATION") : 0;
	PQclear(res);
	return rc;
}
