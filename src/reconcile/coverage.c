/*
 * coverage.c — which buckets a V3 comparison hashes in full ([reconcile] full-every,
 * docs/parallel-load.md).
 *
 * With full-every = N > 1, an incremental load's check hashes every row of the buckets
 * the run touched (rows whose watermark is at or past where the load read its changes
 * from, or — a CDC batch — whose key the batch changed, found at the load's source
 * snapshot) and of one rotating share of the others
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

/* A literal of the load's own text (a watermark, a key value), quoted all the same. */
static void put_literal(floe_buf *q, const char *text)
{
	floe_buf_putc(q, '\'');
	for (const char *p = text; *p; p++) {
		if (*p == '\'')
			floe_buf_putc(q, '\'');
		floe_buf_putc(q, *p);
	}
	floe_buf_putc(q, '\'');
}

/* An incremental load's rows: the watermark at or past where it read its changes from. */
static void where_since(floe_buf *q, const rc_column *wm, const char *since)
{
	floe_buf_printf(q, " WHERE s.%s >= ", wm->ident);
	put_literal(q, since);
}

/* A CDC batch's rows: the keys it changed (a key gone from the source has no bucket to cover). */
static int where_keys(floe_buf *q, const rc_table *t, const floe_reconcile_request *req)
{
	const floe_lock_table *l = t->lock;
	floe_buf_puts(q, " WHERE (");
	for (size_t k = 0; k < l->n_key; k++) {
		const rc_column *c = NULL;
		for (size_t i = 0; i < t->n && !c; i++)
			c = strcmp(t->cols[i].name, l->key[k]) == 0 ? &t->cols[i] : NULL;
		if (!c)
			return floe_error_set(FLOE_ERR_INTERNAL, "key column \"%s\" is not among the compared columns",
					      l->key[k]);
		floe_buf_printf(q, "%ss.%s", k ? ", " : "", c->ident);
	}
	floe_buf_puts(q, ") IN (");
	for (size_t i = 0; i < req->n_changed_keys; i++) {
		floe_buf_puts(q, i ? ", (" : "(");
		for (size_t k = 0; k < l->n_key; k++) {
			floe_buf_puts(q, k ? ", " : "");
			put_literal(q, req->changed_keys[i * l->n_key + k]);
		}
		floe_buf_putc(q, ')');
	}
	floe_buf_putc(q, ')');
	return 0;
}

/* The buckets holding the rows the load changed, marked in `covered`; their number in *n. */
static int touched(bool *covered, int64_t *n, rc_source *src, const rc_table *t, const rc_column *wm,
		   const floe_reconcile_request *req, int64_t buckets)
{
	floe_buf q = FLOE_BUF_INIT;
	floe_pg_result *r = NULL;
	int error = -1;
	floe_buf_puts(&q, "SELECT DISTINCT ");
	rc_bucket_expr(&q, t, RC_PG, buckets);
	rc_source_from(&q, src, t);
	if (req->changed_since)
		where_since(&q, wm, req->changed_since);
	else if (where_keys(&q, t, req) < 0)
		goto cleanup;
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
	bool by_since = req->changed_since && wm, by_keys = !req->changed_since && req->n_changed_keys;
	if (req->tier < FLOE_RECONCILE_V3 || n <= 1 || !(by_since || by_keys) || t->key_is_row || buckets <= 1)
		return 0;
	bool *covered = floe_arena_alloc(arena, (size_t)buckets * sizeof(bool));
	memset(covered, 0, (size_t)buckets * sizeof(bool));
	if (touched(covered, &out->touched, src, t, wm, req, buckets) < 0)
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
