/*
 * coverage.c — which buckets a V3 comparison hashes in full ([reconcile] full-every,
 * docs/parallel-load.md).
 *
 * With full-every = N > 1, an incremental load's check hashes every row of the buckets
 * the run touched (rows whose watermark is at or past where the load read its changes
 * from, found at the load's source snapshot) and of one rotating share of the others
 * (bucket % N == share; N at most the bucket count, so no share is empty and the
 * planted control always has a covered bucket), so N consecutive runs hash every bucket. The rows of the other
 * buckets still count by their key's hash: every bucket's row count and key checksum
 * is compared every run, so a row lost, duplicated or left behind anywhere is caught at
 * once; a value changed in place outside the cover waits for its share. V1 and V2 run
 * over the whole table every run. A full load, a repair's check and `floe reconcile`
 * hash every bucket.
 */
#include "reconcile/reconcile_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "pg/pg.h"

#include <string.h>

/* The watermark column among t's columns, or NULL. */
static const rc_column *watermark_of(const rc_table *t)
{
	const char *wm = t->lock->watermark;
	for (size_t i = 0; wm && i < t->n; i++)
		if (strcmp(t->cols[i].name, wm) == 0)
			return &t->cols[i];
	return NULL;
}

/* The buckets holding rows changed since `since`, marked in `covered`; their number in *n. */
static int touched(bool *covered, int64_t *n, rc_source *src, const rc_table *t, const rc_column *wm,
		   const char *since, int64_t buckets)
{
	floe_buf q = FLOE_BUF_INIT;
	floe_pg_result *r = NULL;
	int error = -1;
	floe_buf_puts(&q, "SELECT DISTINCT ");
	rc_bucket_expr(&q, t, RC_PG, buckets);
	rc_source_from(&q, src, t);
	floe_buf_printf(&q, " WHERE s.%s >= '", wm->ident);
	for (const char *p = since; *p; p++) { /* the load's own text of a timestamp; quoted all the same */
		if (*p == '\'')
			floe_buf_putc(&q, '\'');
		floe_buf_putc(&q, *p);
	}
	floe_buf_putc(&q, '\'');
	if (rc_source_query(&r, src, floe_buf_cstr(&q)) < 0) {
		floe_error_context("while finding the buckets the run touched");
		goto cleanup;
	}
	*n = floe_pg_result_rows(r);
	for (int i = 0; i < floe_pg_result_rows(r); i++) {
		long long b = floe_pg_result_int(r, i, 0);
		if (b >= 0 && b < buckets)
			covered[b] = true;
	}
	error = 0;
cleanup:
	floe_pg_result_free(r);
	floe_buf_free(&q);
	return error;
}

int rc_coverage_plan(rc_coverage *out, floe_arena *arena, rc_source *src, rc_table *t,
		     const floe_reconcile_request *req, int64_t buckets)
{
	const rc_column *wm = watermark_of(t);
	int64_t n = req->full_every;
	memset(out, 0, sizeof(*out));
	out->covered = buckets;
	if (req->tier < FLOE_RECONCILE_V3 || n <= 1 || !req->changed_since || !wm || t->key_is_row || buckets <= 1)
		return 0;
	bool *covered = floe_arena_alloc(arena, (size_t)buckets * sizeof(bool));
	memset(covered, 0, (size_t)buckets * sizeof(bool));
	if (touched(covered, &out->touched, src, t, wm, req->changed_since, buckets) < 0)
		return -1;
	if (n > buckets) /* a share never empty: every bucket within min(full-every, buckets) runs */
		n = buckets;
	out->share = (int64_t)(req->share % (uint64_t)n);
	out->cycle = n;
	for (int64_t b = out->share; b < buckets; b += n)
		covered[b] = true;
	floe_buf list = FLOE_BUF_INIT;
	out->covered = 0;
	for (int64_t b = 0; b < buckets; b++)
		if (covered[b])
			floe_buf_printf(&list, "%s%lld", out->covered++ ? ", " : " IN (", (long long)b);
	floe_buf_putc(&list, ')');
	out->rotating = out->covered < buckets;
	if (out->rotating)
		t->cover = floe_arena_strdup(arena, floe_buf_cstr(&list));
	floe_buf_free(&list);
	return 0;
}
