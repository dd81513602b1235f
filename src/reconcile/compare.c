/*
 * compare.c — the comparison of the two sides' numbers: V1 and V2 measure by
 * measure, exactly except floating-point sums (a stated relative tolerance) and
 * floating-point extremes (equal as numbers, whatever their spelling); V3 bucket
 * by bucket.
 */
#include "reconcile/reconcile_int.h"
#include "base/arena.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * Sums of doubles in a different order differ in their last bits. The bound for
 * n additions is about n·2⁻⁵³·Σ|x|; 1e-9 of Σ|x| covers ten million rows with room.
 */
#define FLOAT_SUM_TOLERANCE 1e-9
#define FLOAT_SUM_RULE "relative 1e-09 of sum(|x|)"

static bool same_text(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* PostgreSQL spells "Infinity", "NaN"; DuckDB "inf", "nan": strtod reads both. */
static bool parse_double(const char *s, double *out)
{
	char *end = NULL;
	if (!s)
		return false;
	*out = strtod(s, &end);
	return end && end != s && *end == '\0';
}

static bool same_double(const char *a, const char *b)
{
	double x, y;
	if (!a || !b)
		return !a && !b;
	if (!parse_double(a, &x) || !parse_double(b, &y))
		return strcmp(a, b) == 0;
	if (isnan(x) || isnan(y))
		return isnan(x) && isnan(y);
	return x == y;
}

/* The sum_abs values of the metric's column, which scale the tolerance. */
static double abs_scale(const rc_metric *metrics, size_t n, size_t i, const rc_side *src, const rc_side *lake)
{
	double scale = 0, v;
	for (size_t k = 0; k < n; k++) {
		if (metrics[k].col != metrics[i].col || strcmp(metrics[k].name, "sum_abs") != 0)
			continue;
		if (parse_double(src->values[k], &v) && fabs(v) > scale)
			scale = fabs(v);
		if (parse_double(lake->values[k], &v) && fabs(v) > scale)
			scale = fabs(v);
	}
	return scale;
}

static bool same_sum(const char *a, const char *b, double scale)
{
	double x, y;
	if (!a || !b || !parse_double(a, &x) || !parse_double(b, &y) || !isfinite(x) || !isfinite(y))
		return same_double(a, b);
	return fabs(x - y) <= FLOAT_SUM_TOLERANCE * scale;
}

static void compare_metrics(rc_diff *out, floe_arena *arena, const rc_table *t, const rc_metric *metrics, size_t n,
			    const rc_side *src, const rc_side *lake)
{
	out->metrics = floe_arena_alloc(arena, (n + 1) * sizeof(floe_reconcile_metric));
	out->n_metrics = n;
	for (size_t i = 0; i < n; i++) {
		const rc_metric *m = &metrics[i];
		floe_reconcile_metric *r = &out->metrics[i];
		r->column = m->col >= 0 ? t->cols[m->col].name : "*";
		r->name = m->name;
		r->source = src->values[i];
		r->lake = lake->values[i];
		r->rule = "exact";
		if (m->rule == RC_FLOAT_VALUE) {
			r->equal = same_double(r->source, r->lake);
		} else if (m->rule == RC_FLOAT_SUM) {
			r->equal = same_sum(r->source, r->lake, abs_scale(metrics, n, i, src, lake));
			r->rule = FLOAT_SUM_RULE;
		} else {
			r->equal = same_text(r->source, r->lake);
		}
		out->n_metric_diffs += !r->equal;
		if (m->col < 0) {
			out->source_rows = r->source ? strtoll(r->source, NULL, 10) : 0;
			out->lake_rows = r->lake ? strtoll(r->lake, NULL, 10) : 0;
		}
	}
}

static void push_bucket(rc_diff *out, floe_arena *arena, size_t *cap, int64_t b, const rc_bucket_row *s,
			const rc_bucket_row *l)
{
	floe_reconcile_bucket *d = FLOE_ARENA_PUSH(arena, out->buckets, out->n_buckets, *cap);
	d->bucket = b;
	d->source_rows = s ? s->rows : 0;
	d->lake_rows = l ? l->rows : 0;
	d->source_sum = s ? s->sum : "0";
	d->lake_sum = l ? l->sum : "0";
}

/* Both lists are ordered by bucket; a bucket on one side only differs. */
static void compare_buckets(rc_diff *out, floe_arena *arena, const rc_side *src, const rc_side *lake)
{
	size_t i = 0, k = 0, cap = 0;
	while (i < src->n_buckets || k < lake->n_buckets) {
		const rc_bucket_row *s = i < src->n_buckets ? &src->buckets[i] : NULL;
		const rc_bucket_row *l = k < lake->n_buckets ? &lake->buckets[k] : NULL;
		if (s && (!l || s->bucket < l->bucket)) {
			push_bucket(out, arena, &cap, s->bucket, s, NULL);
			i++;
		} else if (l && (!s || l->bucket < s->bucket)) {
			push_bucket(out, arena, &cap, l->bucket, NULL, l);
			k++;
		} else {
			if (s->rows != l->rows || strcmp(s->sum, l->sum) != 0)
				push_bucket(out, arena, &cap, s->bucket, s, l);
			i++;
			k++;
		}
	}
}

void rc_compare(rc_diff *out, floe_arena *arena, const rc_table *t, const rc_metric *metrics, size_t n_metrics,
		const rc_side *source, const rc_side *lake)
{
	memset(out, 0, sizeof(*out));
	compare_metrics(out, arena, t, metrics, n_metrics, source, lake);
	compare_buckets(out, arena, source, lake);
}
