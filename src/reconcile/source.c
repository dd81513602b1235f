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

/* The extraction query as a subquery: trailing blanks and semicolons dropped, a newline added. */
static const char *subquery_text(floe_arena *arena, const char *sql)
{
	size_t n = strlen(sql);
	while (n > 0 && (sql[n - 1] == ';' || sql[n - 1] == ' ' || sql[n - 1] == '\n' || sql[n - 1] == '\t' ||
			 sql[n - 1] == '\r'))
		n--;
	return floe_arena_printf(arena, "%.*s\n", (int)n, sql); /* a last `--` comment line ends here */
}

static int begin_snapshot(rc_source *src, const char *pg_snapshot)
{
	floe_buf set = FLOE_BUF_INIT;
	int error = -1;
	/*
	 * JIT compiling these expressions costs seconds and saves nothing (measured); the
	 * planner, unable to know a bucket expression has few values, would sort millions of
	 * rows (spilling to disk) to group them where a hash table of a few thousand entries
	 * does; and the scan takes at most one parallel worker besides this backend (never
	 * more than the server's setting allows): twice the speed for at most two of the
	 * source's CPUs (measured on two cores shared with DuckDB: one worker beat two).
	 */
	if (floe_pg_exec(src->pg, "SET jit = off") < 0 || floe_pg_exec(src->pg, "SET enable_sort = off") < 0 ||
	    floe_pg_exec(src->pg, "SELECT pg_catalog.set_config('max_parallel_workers_per_gather', "
				  "least(pg_catalog.current_setting('max_parallel_workers_per_gather')::int, 1)::text, false)") < 0 ||
	    floe_pg_exec(src->pg, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") < 0)
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
void rc_source_from(floe_buf *q, const rc_source *src, const rc_table *t)
{
	floe_buf_printf(q, " FROM (\n%s\n) AS s(", src->sql);
	for (size_t i = 0; i < t->n; i++)
		floe_buf_printf(q, "%s%s", i ? ", " : "", t->cols[i].ident);
	floe_buf_putc(q, ')');
}

#define MAX_MEASURES 1500 /* per query: PostgreSQL's target lists hold at most 1 664 entries */

/*
 * One scan: the partial aggregates of measures [from, n) and, when `v3`, the checksum
 * per bucket in a materialized CTE, then the bucket rows and the whole-table row (the
 * partials combined) in one result, told apart by its first column.
 *
 * The row's two hash parts (k, x) are computed once per row in a subquery that
 * PostgreSQL cannot pull up (a volatile no-op, pg_jit_available(), in its target
 * list). Grouping by an expression of a subquery's column, the planner also assumes
 * the default 200 groups instead of as many as the key has values, and so chooses a
 * parallel partial aggregation where the server allows parallel workers (measured:
 * about half the time on two cores).
 */
static void parts_query(floe_buf *q, const rc_source *src, const rc_table *t, const rc_metric *metrics, size_t from,
			size_t n, int64_t buckets, bool v3)
{
	floe_buf_puts(q, "WITH parts AS MATERIALIZED (SELECT ");
	rc_bucket_of(q, "k", v3 ? buckets : 1);
	floe_buf_puts(q, " AS b");
	for (size_t i = from; i < n; i++) {
		if (metrics[i].distinct)
			continue;
		floe_buf_puts(q, ", ");
		rc_metric_partial(q, t, RC_PG, &metrics[i], i);
	}
	if (v3) {
		floe_buf_puts(q, ", sum(");
		rc_hash_of(q, RC_PG, "k", "x");
		floe_buf_puts(q, ") AS hs");
	}
	floe_buf_puts(q, " FROM (SELECT ");
	if (v3) {
		rc_row_key_hash(q, t, RC_PG);
		floe_buf_puts(q, " AS k, ");
		rc_row_rest_hash_covered(q, t, RC_PG, buckets);
		floe_buf_puts(q, " AS x, ");
	}
	floe_buf_puts(q, "s.*, pg_catalog.pg_jit_available() AS unpulled");
	rc_source_from(q, src, t);
	floe_buf_puts(q, ") AS r GROUP BY 1)\nSELECT 't', NULL::int8, NULL::int8, NULL::text");
	for (size_t i = from; i < n; i++) {
		if (metrics[i].distinct)
			continue;
		floe_buf_puts(q, ", ");
		rc_metric_final(q, t, RC_PG, &metrics[i], i);
	}
	floe_buf_puts(q, " FROM parts");
	if (!v3)
		return;
	floe_buf_puts(q, "\nUNION ALL SELECT 'b', b, m0, hs::text");
	for (size_t i = from; i < n; i++)
		if (!metrics[i].distinct)
			floe_buf_puts(q, ", NULL");
	floe_buf_puts(q, " FROM parts");
}

/* The values of metrics [from, n) into out->values; the bucket rows (the first query's) into out->buckets. */
static void read_parts(rc_side *out, floe_arena *arena, const floe_pg_result *r, const rc_metric *metrics, size_t from,
		       size_t n)
{
	int rows = floe_pg_result_rows(r);
	if (from == 0)
		out->buckets = floe_arena_alloc(arena, (size_t)rows * sizeof(rc_bucket_row) + 1);
	for (int row = 0; row < rows; row++) {
		if (strcmp(floe_pg_result_text(r, row, 0), "b") == 0) {
			rc_bucket_row *b = &out->buckets[out->n_buckets++];
			b->bucket = floe_pg_result_int(r, row, 1);
			b->rows = floe_pg_result_int(r, row, 2);
			b->sum = floe_arena_strdup(arena, floe_pg_result_text(r, row, 3));
			continue;
		}
		int col = 4;
		for (size_t i = from; i < n; i++) {
			if (metrics[i].distinct)
				continue;
			out->values[i] = floe_pg_result_is_null(r, row, col)
				? NULL : floe_arena_strdup(arena, floe_pg_result_text(r, row, col));
			col++;
		}
	}
}

static int cmp_bucket(const void *a, const void *b)
{
	int64_t x = ((const rc_bucket_row *)a)->bucket, y = ((const rc_bucket_row *)b)->bucket;
	return x < y ? -1 : x > y;
}

/* count(DISTINCT …): a scan of its own (only tables where it is cheap have such measures). */
static int measure_distinct(rc_side *out, rc_source *src, floe_arena *arena, const rc_table *t,
			    const rc_metric *metrics, size_t n)
{
	floe_buf q = FLOE_BUF_INIT;
	floe_pg_result *r = NULL;
	size_t wanted = 0;
	int error = -1;
	floe_buf_puts(&q, "SELECT 0");
	for (size_t i = 0; i < n; i++) {
		if (!metrics[i].distinct)
			continue;
		floe_buf_puts(&q, ", ");
		rc_metric_partial(&q, t, RC_PG, &metrics[i], i);
		wanted++;
	}
	if (wanted == 0) {
		error = 0;
		goto cleanup;
	}
	rc_source_from(&q, src, t);
	if (floe_pg_query(&r, src->pg, floe_buf_cstr(&q), 0, NULL) < 0)
		goto cleanup;
	int col = 1;
	for (size_t i = 0; i < n; i++)
		if (metrics[i].distinct)
			out->values[i] = floe_arena_strdup(arena, floe_pg_result_text(r, 0, col++));
	error = 0;
cleanup:
	floe_pg_result_free(r);
	floe_buf_free(&q);
	return error;
}

/*
 * The end of the query that measures metrics from `from` on: at most MAX_MEASURES
 * partial aggregates (count(DISTINCT) runs apart), as PostgreSQL's target lists hold at
 * most 1 664 entries — a table of 1 000 columns has about 4 000 measures.
 */
static size_t chunk_end(const rc_metric *metrics, size_t from, size_t n)
{
	size_t i = from, k = 0;
	for (; i < n && k < MAX_MEASURES; i++)
		k += !metrics[i].distinct;
	return i;
}

int rc_source_measure(rc_side *out, rc_source *src, floe_arena *arena, const rc_table *t, const rc_metric *metrics,
		      size_t n_metrics, int64_t buckets, floe_reconcile_tier tier)
{
	floe_buf q = FLOE_BUF_INIT;
	floe_pg_result *r = NULL;
	double t0 = now_seconds();
	int error = -1;
	memset(out, 0, sizeof(*out));
	out->values = floe_arena_alloc(arena, (n_metrics + 1) * sizeof(char *));
	/* one scan per chunk of measures; the first (with "rows", m0) also sums the row hashes */
	for (size_t from = 0, to; from < n_metrics; from = to) {
		to = chunk_end(metrics, from, n_metrics);
		floe_buf_clear(&q);
		parts_query(&q, src, t, metrics, from, to, buckets, from == 0 && tier >= FLOE_RECONCILE_V3);
		if (floe_pg_query(&r, src->pg, floe_buf_cstr(&q), 0, NULL) < 0)
			goto cleanup;
		read_parts(out, arena, r, metrics, from, to);
		floe_pg_result_free(r);
		r = NULL;
	}
	qsort(out->buckets, out->n_buckets, sizeof(rc_bucket_row), cmp_bucket);
	if (measure_distinct(out, src, arena, t, metrics, n_metrics) < 0)
		goto cleanup;
	out->seconds = now_seconds() - t0;
	error = 0;
cleanup:
	if (error < 0)
		floe_error_context("while measuring the source side");
	floe_pg_result_free(r);
	floe_buf_free(&q);
	return error;
}

int rc_source_query(floe_pg_result **out, rc_source *src, const char *sql)
{
	return floe_pg_query(out, src->pg, sql, 0, NULL);
}

void rc_source_close(rc_source *src)
{
	if (!src)
		return;
	floe_pg_rollback(src->pg); /* read only: nothing to keep; never touches the error chain */
	floe_pg_close(src->pg);
	free(src);
}
