/*
 * copy.c — COPY … TO STDOUT (FORMAT binary) through libpq into column vectors.
 *
 * libpq hands over one CopyData message per row (PQgetCopyData); the row is
 * decoded field by field by copy_decode.c. The result types are described with
 * a prepared statement first, so a spec that does not match the query fails
 * before a single row moves.
 */
#include "pg/copy.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "pg/pg_int.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t COPY_SIGNATURE[11] = { 'P', 'G', 'C', 'O', 'P', 'Y', '\n', 0xff, '\r', '\n', 0 };

struct floe_pg_copy {
	floe_pg *pg;
	const floe_pg_copy_column *cols;
	size_t ncols;
	bool header_seen;
	bool done;
	uint64_t rows;
	uint64_t bytes;
};

static int element_types(floe_pg *pg, uint32_t *elems, const uint32_t *oids, size_t n)
{
	floe_pg_result *r = NULL;
	char oid_text[16];
	for (size_t i = 0; i < n; i++) {
		snprintf(oid_text, sizeof(oid_text), "%u", oids[i]);
		const char *params[1] = { oid_text };
		if (floe_pg_query(&r, pg, "select t.typelem from pg_catalog.pg_type t"
					  " where t.oid = $1::oid and t.typcategory = 'A'", 1, params) < 0)
			return -1;
		elems[i] = floe_pg_result_rows(r) ? (uint32_t)floe_pg_result_int(r, 0, 0) : 0;
		floe_pg_result_free(r);
	}
	return 0;
}

int floe_pg_describe_query(floe_pg *pg, floe_arena *arena, const char *sql, uint32_t **oids,
		     uint32_t **elem_oids, size_t *n)
{
	PGconn *conn = floe_pg_conn(pg);
	PGresult *res = floe_pg_results(pg, PQsendPrepare(conn, "", sql, 0, NULL));
	int error = -1;
	if (PQresultStatus(res) != PGRES_COMMAND_OK) {
		floe_pg_result_error(pg, res, sql);
		goto cleanup;
	}
	PQclear(res);
	res = floe_pg_results(pg, PQsendDescribePrepared(conn, ""));
	if (PQresultStatus(res) != PGRES_COMMAND_OK) {
		floe_pg_result_error(pg, res, sql);
		goto cleanup;
	}
	*n = (size_t)PQnfields(res);
	*oids = floe_arena_alloc(arena, (*n + 1) * sizeof(uint32_t));
	*elem_oids = floe_arena_alloc(arena, (*n + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < *n; i++)
		(*oids)[i] = (uint32_t)PQftype(res, (int)i);
	error = element_types(pg, *elem_oids, *oids, *n);
cleanup:
	PQclear(res);
	return error;
}

static int describe_matches(floe_pg *pg, const char *sql, const floe_pg_copy_column *cols, size_t ncols)
{
	floe_arena *arena = floe_arena_new();
	uint32_t *oids = NULL, *elems = NULL;
	size_t n = 0;
	int error = -1;
	if (floe_pg_describe_query(pg, arena, sql, &oids, &elems, &n) < 0)
		goto cleanup;
	if (n != ncols) {
		floe_error_set(FLOE_ERR_INTERNAL, "the extraction query returns %zu columns, the plan has %zu", n, ncols);
		floe_error_code_set(FLOE_CODE_SOURCE_CHANGED, "%zu columns where the plan has %zu", n, ncols);
		goto cleanup;
	}
	for (size_t i = 0; i < ncols; i++) {
		uint32_t want = cols[i].vec == FLOE_VEC_LIST ? 0 : cols[i].type_oid;
		if (want && oids[i] != want) {
			floe_error_set(FLOE_ERR_INTERNAL, "column \"%s\" has type oid %u, the plan expects %u",
				       cols[i].name, oids[i], want);
			floe_error_code_set(FLOE_CODE_SOURCE_CHANGED, "column \"%s\" has another type", cols[i].name);
			goto cleanup;
		}
		if (!floe_pg_oid_decodes_into(oids[i], cols[i].vec)) {
			floe_error_set(FLOE_ERR_INTERNAL, "column \"%s\" has type oid %u, which floe cannot carry as %s",
				       cols[i].name, oids[i], floe_vec_type_name(cols[i].vec));
			goto cleanup;
		}
	}
	error = 0;
cleanup:
	floe_arena_free(arena);
	return error;
}

int floe_pg_copy_begin(floe_pg_copy **out, floe_pg *pg, const char *select_sql,
		       const floe_pg_copy_column *cols, size_t ncols)
{
	*out = NULL;
	if (describe_matches(pg, select_sql, cols, ncols) < 0)
		return floe_error_context("while checking the extraction query against the plan");
	floe_buf sql = FLOE_BUF_INIT;
	floe_buf_printf(&sql, "COPY (%s) TO STDOUT (FORMAT binary)", select_sql);
	PGresult *res = floe_pg_results(pg, PQsendQuery(floe_pg_conn(pg), floe_buf_cstr(&sql)));
	int error = -1;
	if (PQresultStatus(res) != PGRES_COPY_OUT) {
		floe_pg_result_error(pg, res, floe_buf_cstr(&sql));
		goto cleanup;
	}
	floe_pg_copy *c = floe_xcalloc(1, sizeof(*c));
	c->pg = pg;
	c->cols = cols;
	c->ncols = ncols;
	*out = c;
	error = 0;
cleanup:
	PQclear(res);
	floe_buf_free(&sql);
	return error;
}

/* The 19-byte header (signature, flags, extension length) precedes the first row. */
static int skip_header(floe_pg_copy *c, const uint8_t **p, size_t *len)
{
	if (*len < 19 || memcmp(*p, COPY_SIGNATURE, 11) != 0)
		return floe_error_set(FLOE_ERR_INTERNAL, "COPY stream does not start with the binary signature");
	uint32_t ext = (uint32_t)((*p)[15] << 24 | (*p)[16] << 16 | (*p)[17] << 8 | (*p)[18]);
	if (*len < 19 + (size_t)ext)
		return floe_error_set(FLOE_ERR_INTERNAL, "COPY header extension is truncated");
	*p += 19 + ext;
	*len -= 19 + ext;
	c->header_seen = true;
	return 0;
}

static int decode_row(floe_pg_copy *c, floe_vector *vectors, const uint8_t *p, size_t len)
{
	if (len < 2)
		return floe_error_set(FLOE_ERR_INTERNAL, "COPY row is truncated");
	int16_t nfields = (int16_t)(p[0] << 8 | p[1]);
	if (nfields == -1) {
		c->done = true;
		return 0;
	}
	if ((size_t)nfields != c->ncols)
		return floe_error_set(FLOE_ERR_INTERNAL, "COPY row has %d fields, expected %zu", nfields, c->ncols);
	size_t off = 2;
	for (size_t i = 0; i < c->ncols; i++) {
		if (len - off < 4)
			return floe_error_set(FLOE_ERR_INTERNAL, "COPY row is truncated");
		int32_t flen = (int32_t)((uint32_t)p[off] << 24 | (uint32_t)p[off + 1] << 16 |
					 (uint32_t)p[off + 2] << 8 | p[off + 3]);
		off += 4;
		if (flen >= 0 && (size_t)flen > len - off)
			return floe_error_set(FLOE_ERR_INTERNAL, "COPY field is truncated");
		if (floe_pg_decode_field(&vectors[i], &c->cols[i], p + off, flen) < 0)
			return floe_error_context("in column \"%s\" of row %llu", c->cols[i].name,
						  (unsigned long long)c->rows + 1);
		off += flen > 0 ? (size_t)flen : 0;
	}
	c->rows++;
	return 0;
}

static size_t batch_bytes(const floe_vector *vectors, size_t n)
{
	size_t total = 0;
	for (size_t i = 0; i < n; i++) /* per row: nested vectors only are walked */
		total += vectors[i].child || vectors[i].n_children ? floe_vector_data_bytes(&vectors[i])
								 : vectors[i].data_len;
	return total;
}

/* After an error: collect the outstanding results without touching the error chain. */
static void drain(floe_pg_copy *c)
{
	PQclear(floe_pg_results(c->pg, 1));
	c->done = true;
}

static int finish(floe_pg_copy *c)
{
	PGresult *res = floe_pg_results(c->pg, 1);
	int error = res && PQresultStatus(res) != PGRES_COMMAND_OK ? floe_pg_result_error(c->pg, res, "COPY … TO STDOUT") : 0;
	PQclear(res);
	c->done = true;
	return error;
}

/* After the trailer: the end of the COPY and its result (a later query, even one sent without
 * waiting, finds the connection idle). */
static int to_end(floe_pg_copy *c)
{
	char *buf = NULL;
	int len;
	while ((len = PQgetCopyData(floe_pg_conn(c->pg), &buf, 0)) >= 0)
		PQfreemem(buf);
	return len == -1 ? finish(c) : (finish(c), floe_pg_result_error(c->pg, NULL, "COPY … TO STDOUT"));
}

int floe_pg_copy_next(floe_pg_copy *c, floe_vector *vectors, size_t max_rows, size_t max_bytes,
		      size_t *rows_out)
{
	size_t n = 0;
	*rows_out = 0;
	while (!c->done && n < max_rows && batch_bytes(vectors, c->ncols) < max_bytes) {
		char *buf = NULL;
		int len = PQgetCopyData(floe_pg_conn(c->pg), &buf, 0);
		if (len == -1)
			return finish(c);
		if (len < 0) /* the server's error (its SQLSTATE) is in a result when it sent one */
			return finish(c) < 0 ? -1 : floe_pg_result_error(c->pg, NULL, "COPY … TO STDOUT");
		const uint8_t *p = (const uint8_t *)buf;
		size_t size = (size_t)len;
		c->bytes += size;
		int rc = c->header_seen ? 0 : skip_header(c, &p, &size);
		uint64_t before = c->rows;
		if (rc == 0 && size > 0)
			rc = decode_row(c, vectors, p, size);
		PQfreemem(buf);
		if (rc < 0)
			return -1;
		n += (size_t)(c->rows - before);
		if (c->done && to_end(c) < 0) /* the trailer: read the end, so the connection is idle again */
			return -1;
	}
	*rows_out = n;
	return 0;
}

uint64_t floe_pg_copy_rows(const floe_pg_copy *c)
{
	return c->rows;
}

uint64_t floe_pg_copy_bytes(const floe_pg_copy *c)
{
	return c->bytes;
}

void floe_pg_copy_free(floe_pg_copy *c)
{
	if (!c)
		return;
	if (!c->done) {
		/* Stop the server sending the rest, then swallow what is in flight. */
		floe_pg_cancel(c->pg);
		char *buf = NULL;
		while (PQgetCopyData(floe_pg_conn(c->pg), &buf, 0) >= 0)
			PQfreemem(buf);
		drain(c);
	}
	free(c);
}
