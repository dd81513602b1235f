/*
 * source.c — the source side of reconciliation: SQL pushed down to PostgreSQL.
 *
 * Every measure is an aggregate over the table's extraction query (the query the
 * load ran, from pipeline/bronze/), wrapped as `(…) AS s(c<id>, …)`: no row leaves
 * the database. The session runs under the plan's settings in one REPEATABLE READ
 * READ ONLY transaction, importing the load's exported snapshot when given, so
 * every query sees the source state the load read.
 */
#include "reconcile/reconcile_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/pghash.h"
#include "pg/copy.h"
#include "pg/introspect.h"
#include "pg/pg.h"
#include "plan/plan.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A value whose hash the source must compute exactly as floe does (multi-byte, crosses a block). */
#define PROBE_TEXT "floe reconcile probe \xc3\xbcn\xc3\xaf \xe2\x98\x83 0123456789"
#define PROBE_SEED 1718382437

struct rc_source {
	floe_pg *pg;
	const char *sql;       /* the extraction query, without a trailing ';' */
	const char *position;  /* pg_current_snapshot() */
};

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The extraction query as a subquery: trailing blanks and semicolons dropped. */
static const char *subquery_text(floe_arena *arena, const char *sql)
{
	size_t n = strlen(sql);
	while (n > 0 && (sql[n - 1] == ';' || sql[n - 1] == ' ' || sql[n - 1] == '\n' || sql[n - 1] == '\t' ||
			 sql[n - 1] == '\r'))
		n--;
	return floe_arena_strndup(arena, sql, n);
}

static int begin_snapshot(rc_source *src, const char *pg_snapshot)
{
	floe_buf set = FLOE_BUF_INIT;
	int error = -1;
	if (floe_pg_exec(src->pg, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") < 0)
		goto cleanup;
	if (pg_snapshot) {
		floe_buf_puts(&set, "SET TRANSACTION SNAPSHOT ");
		if (floe_pg_quote_literal(&set, src->pg, pg_snapshot) < 0)
			goto cleanup;
		if (floe_pg_exec(src->pg, floe_buf_cstr(&set)) < 0) {
			floe_error_hint("The snapshot is importable only while the load's transaction that exported it "
					"is still open.");
			goto cleanup;
		}
	}
	error = 0;
cleanup:
	floe_buf_free(&set);
	return error;
}

/* The server must hash as floe's C code does, or no checksum could ever agree. */
static int check_hash(rc_source *src)
{
	floe_pg_result *r = NULL;
	char seed[24];
	snprintf(seed, sizeof(seed), "%d", PROBE_SEED);
	const char *params[2] = { PROBE_TEXT, seed };
	if (floe_pg_query(&r, src->pg, "select pg_catalog.hashtextextended($1::text, $2::int8)::text", 2, params) < 0)
		return -1;
	char want[24];
	snprintf(want, sizeof(want), "%lld",
		 (long long)(int64_t)floe_pghash_extended(PROBE_TEXT, strlen(PROBE_TEXT), (uint64_t)PROBE_SEED));
	int error = 0;
	if (strcmp(floe_pg_result_text(r, 0, 0), want) != 0) {
		error = floe_error_set(FLOE_ERR_CHECK, "the source's hashtextextended() differs from floe's");
		floe_error_detail("For a probe value PostgreSQL returned %s, floe computes %s.", floe_pg_result_text(r, 0, 0),
				  want);
		floe_error_hint("floe matches servers on little-endian machines whose database collation is "
				"deterministic; V1 and V2 still apply (--tier V2).");
	}
	floe_pg_result_free(r);
	return error;
}

static int read_position(rc_source *src, floe_arena *arena)
{
	floe_pg_result *r = NULL;
	const char *q = floe_pg_server_version(src->pg) >= 130000 ? "select pg_catalog.pg_current_snapshot()::text"
								  : "select pg_catalog.txid_current_snapshot()::text";
	if (floe_pg_query(&r, src->pg, q, 0, NULL) < 0)
		return -1;
	src->position = floe_arena_strdup(arena, floe_pg_result_text(r, 0, 0));
	floe_pg_result_free(r);
	return 0;
}

int rc_source_open(rc_source **out, floe_arena *arena, const floe_config *config, const char *sql,
		   const char *pg_snapshot, uint32_t **oids, uint32_t **elem_oids, size_t *n_oids)
{
	rc_source *src = floe_xcalloc(1, sizeof(*src));
	int error = -1;
	*out = NULL;
	src->sql = subquery_text(arena, sql);
	if (floe_pg_connect_source(&src->pg, config) < 0 || floe_plan_session_apply(src->pg) < 0 ||
	    begin_snapshot(src, pg_snapshot) < 0 || read_position(src, arena) < 0 || check_hash(src) < 0 ||
	    floe_pg_describe_query(src->pg, arena, src->sql, oids, elem_oids, n_oids) < 0)
		goto cleanup;
	*out = src;
	src = NULL;
	error = 0;
cleanup:
	rc_source_close(src);
	return error;
}

const char *rc_source_position(const rc_source *src)
{
	return src->position;
}

int rc_source_version(const rc_source *src)
{
	return floe_pg_server_version(src->pg);
}

/* `FROM (<extraction query>) AS s(c1, c2, …)`: the user's names never reach floe's SQL. */
static void from_extraction(floe_buf *q, const rc_source *src, const rc_table *t)
{
	floe_buf_printf(q, " FROM (\n%s\n) AS s(", src->sql);
	for (size_t i = 0; i < t->n; i++)
		floe_buf_printf(q, "%s%s", i ? ", " : "", t->cols[i].ident);
	floe_buf_putc(q, ')');
}

static int measure_metrics(rc_side *out, rc_source *src, floe_arena *arena, const rc_table *t,
			   const rc_metric *metrics, size_t n)
{
	floe_buf q = FLOE_BUF_INIT;
	floe_pg_result *r = NULL;
	int error = -1;
	floe_buf_puts(&q, "SELECT ");
	for (size_t i = 0; i < n; i++) {
		floe_buf_puts(&q, i ? ", " : "");
		rc_metric_final(&q, t, RC_PG, &metrics[i], i);
	}
	floe_buf_puts(&q, " FROM (SELECT ");
	for (size_t i = 0; i < n; i++) {
		floe_buf_puts(&q, i ? ", " : "");
		rc_metric_partial(&q, t, RC_PG, &metrics[i], i);
	}
	from_extraction(&q, src, t);
	floe_buf_puts(&q, ") AS p");
	if (floe_pg_query(&r, src->pg, floe_buf_cstr(&q), 0, NULL) < 0)
		goto cleanup;
	out->values = floe_arena_alloc(arena, (n + 1) * sizeof(char *));
	for (size_t i = 0; i < n; i++)
		out->values[i] = floe_pg_result_is_null(r, 0, (int)i)
			? NULL : floe_arena_strdup(arena, floe_pg_result_text(r, 0, (int)i));
	error = 0;
cleanup:
	floe_pg_result_free(r);
	floe_buf_free(&q);
	return error;
}

static int measure_buckets(rc_side *out, rc_source *src, floe_arena *arena, const rc_table *t, int64_t buckets)
{
	floe_buf q = FLOE_BUF_INIT;
	floe_pg_result *r = NULL;
	int error = -1;
	floe_buf_puts(&q, "SELECT b, count(*), sum(h)::text FROM (SELECT ");
	rc_bucket_expr(&q, t, RC_PG, buckets);
	floe_buf_puts(&q, " AS b, ");
	rc_hash_expr(&q, t, RC_PG);
	floe_buf_puts(&q, " AS h");
	from_extraction(&q, src, t);
	floe_buf_puts(&q, ") AS x GROUP BY b ORDER BY b");
	if (floe_pg_query(&r, src->pg, floe_buf_cstr(&q), 0, NULL) < 0)
		goto cleanup;
	out->n_buckets = (size_t)floe_pg_result_rows(r);
	out->buckets = floe_arena_alloc(arena, (out->n_buckets + 1) * sizeof(rc_bucket_row));
	for (size_t i = 0; i < out->n_buckets; i++) {
		out->buckets[i].bucket = floe_pg_result_int(r, (int)i, 0);
		out->buckets[i].rows = floe_pg_result_int(r, (int)i, 1);
		out->buckets[i].sum = floe_arena_strdup(arena, floe_pg_result_text(r, (int)i, 2));
	}
	error = 0;
cleanup:
	floe_pg_result_free(r);
	floe_buf_free(&q);
	return error;
}

int rc_source_measure(rc_side *out, rc_source *src, floe_arena *arena, const rc_table *t, const rc_metric *metrics,
		      size_t n_metrics, int64_t buckets, floe_reconcile_tier tier)
{
	double t0 = now_seconds();
	memset(out, 0, sizeof(*out));
	if (measure_metrics(out, src, arena, t, metrics, n_metrics) < 0 ||
	    (tier >= FLOE_RECONCILE_V3 && measure_buckets(out, src, arena, t, buckets) < 0))
		return floe_error_context("while measuring the source side");
	out->seconds = now_seconds() - t0;
	return 0;
}

void rc_source_close(rc_source *src)
{
	if (!src)
		return;
	floe_pg_rollback(src->pg); /* read only: nothing to keep; never touches the error chain */
	floe_pg_close(src->pg);
	free(src);
}
