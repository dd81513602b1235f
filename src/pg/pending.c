/*
 * pending.c — a query sent and left running on the server while the caller does other work
 * (reads Parquet files, say), its result collected later: the load's row counts overlap its
 * scan of bronze's keys. Until it is collected or freed, nothing else runs on the connection.
 */
#include "pg/pg_int.h"

#include "base/arena.h"

#include <stdlib.h>
#include <string.h>

struct floe_pg_pending {
	floe_pg *pg;
	char *sql;
};

int floe_pg_send(floe_pg_pending **out, floe_pg *pg, const char *sql)
{
	*out = NULL;
	if (!PQsendQueryParams(floe_pg_conn(pg), sql, 0, NULL, NULL, NULL, NULL, 0))
		return floe_pg_result_error(pg, NULL, sql);
	floe_pg_pending *p = floe_xcalloc(1, sizeof(*p));
	p->pg = pg;
	p->sql = floe_xstrndup(sql, strlen(sql));
	*out = p;
	return 0;
}

int floe_pg_collect(floe_pg_result **out, floe_pg_pending *p)
{
	PGresult *res = floe_pg_results(p->pg, 1);
	int error = -1;
	*out = NULL;
	ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
	if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
		floe_pg_result_error(p->pg, res, p->sql);
		PQclear(res);
		goto cleanup;
	}
	*out = floe_pg_result_wrap(res);
	error = 0;
cleanup:
	free(p->sql);
	free(p);
	return error;
}

void floe_pg_pending_free(floe_pg_pending *p)
{
	if (!p)
		return;
	PQclear(floe_pg_results(p->pg, 1)); /* waits for the statement: the connection is usable again after */
	free(p->sql);
	free(p);
}
