/*
 * copy_in.c — COPY … FROM STDIN through libpq: begin, stream, end or abort.
 *
 * The connection stays in blocking mode, so floe_pg_copy_in_put returns once
 * libpq has queued (and, past its buffer, sent) the bytes; the caller's buffer
 * is free again on return. Used by `floe shop generate` to load what it makes.
 */
#include "pg/pg.h"
#include "pg/pg_int.h"
#include "base/error.h"
#include "base/text.h"

#include <string.h>

/* COPY data goes out in pieces libpq accepts as an int length. */
#define COPY_PIECE_MAX ((size_t)1 << 30)

static const char copy_sql[] = "COPY … FROM STDIN";

int floe_pg_copy_in_begin(floe_pg *pg, const char *sql)
{
	PGresult *res = floe_pg_results(pg, PQsendQuery(floe_pg_conn(pg), sql));
	if (!res || PQresultStatus(res) != PGRES_COPY_IN) {
		floe_pg_result_error(pg, res, sql);
		PQclear(res);
		return -1;
	}
	PQclear(res);
	return 0;
}

int floe_pg_copy_in_put(floe_pg *pg, const void *data, size_t len)
{
	const char *p = data;
	while (len > 0) {
		size_t n = len < COPY_PIECE_MAX ? len : COPY_PIECE_MAX;
		if (PQputCopyData(floe_pg_conn(pg), p, (int)n) != 1)
			return floe_pg_result_error(pg, NULL, copy_sql);
		p += n;
		len -= n;
	}
	return 0;
}

/* The COPY's result: its rows, or its failure. */
static int drain_results(long long *rows_out, floe_pg *pg)
{
	int error = 0;
	PGresult *res = floe_pg_results(pg, 1);
	if (res && PQresultStatus(res) == PGRES_COMMAND_OK && rows_out) {
		const char *n = PQcmdTuples(res);
		int64_t rows = 0;
		if (n && floe_text_parse_int64(&rows, n, strlen(n), 0, INT64_MAX) == 0)
			*rows_out = (long long)rows;
	} else if (res && PQresultStatus(res) != PGRES_COMMAND_OK) {
		error = floe_pg_result_error(pg, res, copy_sql);
	}
	PQclear(res);
	return error;
}

int floe_pg_copy_in_end(long long *rows_out, floe_pg *pg)
{
	if (rows_out)
		*rows_out = 0;
	if (PQputCopyEnd(floe_pg_conn(pg), NULL) != 1)
		return floe_pg_result_error(pg, NULL, copy_sql);
	return drain_results(rows_out, pg);
}

void floe_pg_copy_in_abort(floe_pg *pg, const char *why)
{
	if (!pg || PQtransactionStatus(floe_pg_conn(pg)) != PQTRANS_ACTIVE)
		return;
	if (PQputCopyEnd(floe_pg_conn(pg), why ? why : "aborted by floe") == 1)
		PQclear(floe_pg_results(pg, 1));
}
