/*
 * control.c — the planted control: a check that reports "equal" must be able to
 * fail, so every reconciliation alters a copy of one bucket of the lake side in a
 * known way, pushes it through the very same measures and comparison, and
 * requires exactly that difference to be reported:
 *
 *   - V1: the row count moves by the control's delta (-1, +2, +1) and by nothing else;
 *   - V2 (when run): new differences only in the measures of the altered columns,
 *     and for the controls V2 must catch, the measure that catches them;
 *   - V3 (when run): exactly the planted bucket diverges, and nothing else.
 *
 * A control whose lowest catching tier is above the tier run is never chosen. The
 * alteration is made on the raw lake values (before they are hashed), so the
 * control also proves the row hash sees the change: a hash that dropped
 * microseconds would let "dropped-microseconds" through, and the run would be
 * `unverified`. The real rows and files are never touched.
 */
#include "reconcile/reconcile_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "engine/engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum ctl {
	DROPPED_ROW = 0,
	TRIPLED_ROW,
	SWAPPED_VALUES,
	TRUNCATED_DECIMAL,
	SHIFTED_TIMESTAMP,
	DROPPED_MICROSECONDS,
	NULL_TO_EMPTY,
	TRIMMED_SPACE,
	SWAPPED_COLUMNS,
	CHANGED_BYTE,
	ADDED_ROW, /* only for a table without rows, where no other control can be planted */
	N_CONTROLS
} ctl;

#define N_ROTATING ADDED_ROW

static const floe_reconcile_control_info catalog[N_CONTROLS] = {
	{ "dropped-row", "one row dropped", FLOE_RECONCILE_V1 },
	{ "tripled-row", "one row present three times instead of once", FLOE_RECONCILE_V1 },
	{ "swapped-values", "one column's values swapped between two rows", FLOE_RECONCILE_V3 },
	{ "truncated-decimal", "a decimal's last digit truncated", FLOE_RECONCILE_V2 },
	{ "shifted-timestamp", "a timestamp shifted by one hour", FLOE_RECONCILE_V3 },
	{ "dropped-microseconds", "a timestamp's fraction of a second dropped", FLOE_RECONCILE_V3 },
	{ "null-to-empty", "a NULL string turned into ''", FLOE_RECONCILE_V2 },
	{ "trimmed-space", "a string's trailing space trimmed", FLOE_RECONCILE_V3 },
	{ "swapped-columns", "two columns of one type swapped", FLOE_RECONCILE_V3 },
	{ "changed-byte", "one byte of one value changed", FLOE_RECONCILE_V3 },
	{ "added-row", "one row added (a table without rows)", FLOE_RECONCILE_V1 },
};

size_t floe_reconcile_control_count(void)
{
	return N_CONTROLS;
}

const floe_reconcile_control_info *floe_reconcile_control_at(size_t i)
{
	return i < N_CONTROLS ? &catalog[i] : NULL;
}

/* Where a control is planted: its column(s), bucket and row(s). */
typedef struct plant {
	ctl control;
	int col, col2;        /* -1: none */
	int64_t bucket;       /* -1: wherever the added row lands */
	int64_t rid, rid2;
} plant;

/* ---- which columns a control can alter ---- */

static bool is_timestamp(rc_kind k)
{
	return k == RC_TIMESTAMP || k == RC_TIMESTAMPTZ;
}

/* A numeric(…) the plan carries as its exact text (unconstrained, or wider than 38 digits). */
static bool is_numeric_text(const floe_lock_table *lt, int col, const rc_column *c)
{
	return c->type.kind == RC_STRING && strncmp(lt->columns[col].pg_type, "numeric", 7) == 0;
}

static bool applicable(const rc_table *t, ctl control, int col)
{
	const rc_column *c = &t->cols[col];
	rc_kind k = c->type.kind;
	if (!c->hashed || c->key)
		return false; /* an altered key would move its row to another bucket */
	if (rc_type_holds_struct(&c->type))
		return false; /* not yet: a struct takes only the row controls (docs/reconcile.md) */
	switch (control) {
	case SWAPPED_VALUES:
		return true;
	case TRUNCATED_DECIMAL:
		return k == RC_DECIMAL || is_numeric_text(t->lock, col, c);
	case SHIFTED_TIMESTAMP:
		return is_timestamp(k);
	case DROPPED_MICROSECONDS:
		return is_timestamp(k) || k == RC_TIME;
	case NULL_TO_EMPTY:
	case TRIMMED_SPACE:
		return k == RC_STRING;
	case SWAPPED_COLUMNS:
		return true;
	case CHANGED_BYTE:
		return k == RC_STRING || k == RC_INT || k == RC_LONG;
	default:
		return false;
	}
}

static bool row_control(ctl control)
{
	return control == DROPPED_ROW || control == TRIPLED_ROW || control == ADDED_ROW;
}

/* ---- finding where to plant ---- */

/* The WHERE clause a target row of `p` must meet (lake_b's columns). */
static void target_filter(floe_buf *q, const rc_table *t, const plant *p)
{
	const rc_column *c = p->col >= 0 ? &t->cols[p->col] : NULL;
	const char *x = c ? c->ident : NULL;
	switch (p->control) {
	case TRUNCATED_DECIMAL:
		if (c->type.kind == RC_DECIMAL)
			floe_buf_printf(q, "right(%s::VARCHAR, 1) BETWEEN '1' AND '9'", x);
		else /* two or more fractional digits, the last one not 0: it can be dropped */
			floe_buf_printf(q, "regexp_full_match(%s, '-?[0-9]*\\.[0-9]+[1-9]')", x);
		break;
	case SHIFTED_TIMESTAMP:
		floe_buf_printf(q, "epoch_us(%s) BETWEEN -9000000000000000000 AND 9000000000000000000", x);
		break;
	case DROPPED_MICROSECONDS:
		floe_buf_printf(q, "epoch_us(%s) %% 1000000 <> 0 AND epoch_us(%s) BETWEEN -9000000000000000000 AND "
				   "9000000000000000000", x, x);
		break;
	case NULL_TO_EMPTY:
		floe_buf_printf(q, "%s IS NULL", x);
		break;
	case TRIMMED_SPACE:
		floe_buf_printf(q, "%s LIKE '%% '", x);
		break;
	case CHANGED_BYTE:
		if (c->type.kind == RC_STRING)
			floe_buf_printf(q, "%s <> ''", x);
		else
			floe_buf_printf(q, "%s IS NOT NULL", x);
		break;
	case SWAPPED_COLUMNS:
		floe_buf_printf(q, "%s IS DISTINCT FROM %s", x, t->cols[p->col2].ident);
		break;
	default:
		floe_buf_puts(q, "true");
		break;
	}
}

/* 1: found in `rows` (lake_b's shape; bucket and rows set), 0: no row qualifies, -1: error. */
static int probe_in(plant *p, rc_lake *lake, const char *rows)
{
	const rc_table *t = rc_lake_table(lake);
	floe_buf q = FLOE_BUF_INIT;
	floe_engine_result *r = NULL;
	int found = -1;
	if (p->control == SWAPPED_VALUES) {
		const char *x = t->cols[p->col].ident;
		floe_buf_printf(&q, "SELECT b, arg_min(rid, %s), arg_max(rid, %s) FROM %s WHERE %s IS NOT NULL%s%s "
				    "GROUP BY b HAVING min(%s) <> max(%s) ORDER BY b LIMIT 1", x, x, rows, x,
				t->cover ? " AND b" : "", t->cover ? t->cover : "", x, x);
	} else {
		floe_buf_printf(&q, "SELECT b, rid, rid FROM %s WHERE ", rows);
		target_filter(&q, t, p);
		if (t->cover) /* a rotating V3 proves only the covered buckets' values: plant there */
			floe_buf_printf(&q, " AND b%s", t->cover);
		floe_buf_puts(&q, " LIMIT 1");
	}
	if (rc_lake_query(&r, lake, floe_buf_cstr(&q)) < 0)
		goto cleanup;
	found = floe_engine_result_rows(r) > 0;
	if (found) {
		p->bucket = strtoll(floe_engine_result_text(r, 0, 0), NULL, 10);
		p->rid = strtoll(floe_engine_result_text(r, 0, 1), NULL, 10);
		p->rid2 = strtoll(floe_engine_result_text(r, 0, 2), NULL, 10);
	}
cleanup:
	floe_engine_result_free(r);
	floe_buf_free(&q);
	return found;
}

/* The kept bucket's rows first (no read of the files), then every bucket's. */
static int probe(plant *p, rc_lake *lake)
{
	int found = rc_lake_kept(lake) >= 0 ? probe_in(p, lake, "lake_kept") : 0;
	return found != 0 ? found : probe_in(p, lake, "lake_b");
}

/* The partner of `col` for swapped-columns: the next column of the same lake type, or -1. */
static int partner(const rc_table *t, int col)
{
	for (size_t i = (size_t)col + 1; i < t->n; i++)
		if (applicable(t, SWAPPED_COLUMNS, (int)i) && strcmp(t->cols[i].duck_type, t->cols[col].duck_type) == 0)
			return (int)i;
	return -1;
}

/*
 * Find where `control` can be planted, trying its columns from the `turn`-th on.
 * 1: planted at *p; 0: not applicable to this table's data; -1: error.
 */
static int locate(plant *p, rc_lake *lake, ctl control, uint64_t turn)
{
	const rc_table *t = rc_lake_table(lake);
	*p = (plant){ .control = control, .col = -1, .col2 = -1, .bucket = -1 };
	if (control == ADDED_ROW)
		return 1;
	if (row_control(control))
		return probe(p, lake);
	for (size_t i = 0; i < t->n; i++) {
		int col = (int)((turn + i) % t->n);
		if (!applicable(t, control, col))
			continue;
		p->col = col;
		p->col2 = control == SWAPPED_COLUMNS ? partner(t, col) : -1;
		if (control == SWAPPED_COLUMNS && p->col2 < 0)
			continue;
		int found = probe(p, lake);
		if (found != 0)
			return found;
	}
	return 0;
}

/* ---- the altered copy of the bucket ---- */

/* The altered value of the target column, in terms of its raw value `x`. */
static void altered_value(floe_buf *q, const rc_table *t, const plant *p, const char *x)
{
	const rc_column *c = &t->cols[p->col];
	switch (p->control) {
	case TRUNCATED_DECIMAL:
		if (c->type.kind == RC_DECIMAL)
			floe_buf_printf(q, "CAST(substr(%s::VARCHAR, 1, length(%s::VARCHAR) - 1) || '0' AS %s)", x, x,
					c->duck_type);
		else
			floe_buf_printf(q, "substr(%s, 1, length(%s) - 1)", x, x);
		break;
	case SHIFTED_TIMESTAMP:
		floe_buf_printf(q, "%s + INTERVAL 1 HOUR", x);
		break;
	case DROPPED_MICROSECONDS:
		floe_buf_printf(q, "%s - to_microseconds(((epoch_us(%s) %% 1000000) + 1000000) %% 1000000)", x, x);
		break;
	case NULL_TO_EMPTY:
		floe_buf_puts(q, "''");
		break;
	case TRIMMED_SPACE:
		floe_buf_printf(q, "rtrim(%s, ' ')", x);
		break;
	case CHANGED_BYTE:
		if (c->type.kind == RC_STRING)
			floe_buf_printf(q, "substr(%s, 1, length(%s) - 1) || CASE WHEN right(%s, 1) = 'x' THEN 'y' ELSE 'x' END",
					x, x, x);
		else
			floe_buf_printf(q, "xor(%s, 1)", x);
		break;
	case SWAPPED_VALUES:
		floe_buf_printf(q, "CASE WHEN rid = %lld THEN max(%s) OVER () ELSE min(%s) OVER () END", (long long)p->rid, x,
				x);
		break;
	default:
		floe_buf_puts(q, x);
		break;
	}
}

/* One select-list entry of the altered copy for column `i`. */
static void altered_column(floe_buf *q, const rc_table *t, const plant *p, size_t i)
{
	const rc_column *c = &t->cols[i];
	int col = (int)i;
	if (p->control == SWAPPED_COLUMNS && (col == p->col || col == p->col2)) {
		floe_buf_printf(q, ", %s AS %s", t->cols[col == p->col ? p->col2 : p->col].ident, c->ident);
	} else if (!row_control(p->control) && p->control != SWAPPED_COLUMNS && col == p->col) {
		floe_buf_printf(q, ", CASE WHEN rid IN (%lld, %lld) THEN ", (long long)p->rid, (long long)p->rid2);
		altered_value(q, t, p, c->ident);
		floe_buf_printf(q, " ELSE %s END AS %s", c->ident, c->ident);
	} else {
		floe_buf_printf(q, ", %s", c->ident);
	}
}

/* A SELECT of the view lake's shape: the bucket's rows (from `rows`) with the control applied. */
static void altered_sql(floe_buf *q, const rc_table *t, const plant *p, const char *rows)
{
	if (p->control == ADDED_ROW) {
		floe_buf_puts(q, "SELECT NULL::BIGINT AS rid");
		for (size_t i = 0; i < t->n; i++)
			if (t->cols[i].duck_type)
				floe_buf_printf(q, ", NULL::%s AS %s", t->cols[i].duck_type, t->cols[i].ident);
		return;
	}
	int copies = p->control == TRIPLED_ROW ? 3 : 1;
	for (int k = 0; k < copies; k++) {
		floe_buf_puts(q, k ? " UNION ALL SELECT rid" : "SELECT rid");
		for (size_t i = 0; i < t->n; i++)
			if (t->cols[i].duck_type)
				altered_column(q, t, p, i);
		floe_buf_printf(q, " FROM %s WHERE b = %lld", rows, (long long)p->bucket);
		if (p->control == DROPPED_ROW)
			floe_buf_printf(q, " AND rid <> %lld", (long long)p->rid);
		if (k > 0)
			floe_buf_printf(q, " AND rid = %lld", (long long)p->rid);
	}
}

/* ---- did the comparison report exactly the planted difference? ---- */

static int64_t rows_delta(ctl control)
{
	return control == DROPPED_ROW ? -1 : control == TRIPLED_ROW ? 2 : control == ADDED_ROW ? 1 : 0;
}

/* The V2 measure the control must move when its lowest tier is V2, or NULL. */
static const char *required_measure(const rc_table *t, const plant *p)
{
	if (p->control == NULL_TO_EMPTY)
		return "non_null";
	if (p->control == TRUNCATED_DECIMAL)
		return t->cols[p->col].type.kind == RC_DECIMAL ? "sum" : "bytes";
	return NULL;
}

static bool in_buckets(const rc_diff *d, int64_t bucket)
{
	for (size_t i = 0; i < d->n_buckets; i++)
		if (d->buckets[i].bucket == bucket)
			return true;
	return false;
}

/* Why the control was not caught as planted, or NULL when it was. `note` gets what was reported. */
static const char *judge(floe_buf *note, const rc_table *t, const plant *p, const rc_metric *metrics,
			 floe_reconcile_tier tier, bool aggregates, const rc_diff *real, const rc_diff *got)
{
	bool v2 = tier >= FLOE_RECONCILE_V2 && aggregates;
	int64_t want = (real->lake_rows - real->source_rows) + rows_delta(p->control);
	int64_t seen = got->lake_rows - got->source_rows;
	floe_buf_printf(note, "V1 rows %+lld", (long long)(seen - (real->lake_rows - real->source_rows)));
	if (seen != want)
		return "V1 did not report the planted row count";
	const char *required = required_measure(t, p);
	bool required_seen = false;
	size_t new_diffs = 0;
	for (size_t i = 0; v2 && i < got->n_metrics; i++) {
		if (got->metrics[i].equal || !real->metrics[i].equal || metrics[i].col < 0)
			continue;
		new_diffs++;
		bool altered = row_control(p->control) || metrics[i].col == p->col || metrics[i].col == p->col2;
		if (!altered)
			return "V2 reported a difference in a column the control did not alter";
		required_seen |= required && metrics[i].col == p->col && strcmp(metrics[i].name, required) == 0;
	}
	if (v2)
		floe_buf_printf(note, ", V2 %zu measure%s", new_diffs, new_diffs == 1 ? "" : "s");
	if (required && v2 && !required_seen)
		return "V2 did not report the altered column's measure that must catch it";
	if (tier < FLOE_RECONCILE_V3)
		return NULL;
	if (p->bucket >= 0 && in_buckets(real, p->bucket))
		return "the bucket chosen had already diverged";
	size_t fresh = 0;
	int64_t which = -1;
	for (size_t i = 0; i < got->n_buckets; i++) {
		if (!in_buckets(real, got->buckets[i].bucket)) {
			fresh++;
			which = got->buckets[i].bucket;
		}
	}
	floe_buf_printf(note, ", V3 %zu bucket%s", fresh, fresh == 1 ? "" : "s");
	if (t->key_is_row && !row_control(p->control)) {
		/* Without a key the bucket hashes the whole row: an altered row moves to its own bucket. */
		size_t most = p->control == SWAPPED_VALUES ? 3 : 2;
		if (fresh < 1 || fresh > most || !in_buckets(got, p->bucket))
			return "V3 did not report the planted bucket and the ones the altered rows moved to";
		return NULL;
	}
	if (fresh != 1 || (p->bucket >= 0 && which != p->bucket))
		return "V3 did not report exactly the planted bucket";
	return NULL;
}

/* ---- choosing, planting, judging ---- */

int floe_reconcile_control_check(const char *name)
{
	if (!name || strcmp(name, "none") == 0)
		return 0;
	for (int i = 0; i < N_CONTROLS; i++)
		if (strcmp(catalog[i].name, name) == 0)
			return 0;
	floe_error_set(FLOE_ERR_USAGE, "unknown control \"%s\"", name);
	floe_error_hint("The controls: dropped-row, tripled-row, swapped-values, truncated-decimal, "
			"shifted-timestamp, dropped-microseconds, null-to-empty, trimmed-space, swapped-columns, "
			"changed-byte, added-row (docs/reconcile.md); `none` plants none.");
	return -1;
}

static ctl by_name(const char *name)
{
	for (int i = 0; i < N_CONTROLS; i++)
		if (strcmp(catalog[i].name, name) == 0)
			return (ctl)i;
	return N_CONTROLS;
}

/*
 * The control to plant: `name`, or the first applicable in rotation from `seq` (added-row
 * only when the lake side has no rows). 1 found, 0 none, -1 error.
 */
static int choose(plant *p, rc_lake *lake, floe_reconcile_tier tier, bool lake_empty, const char *name,
		  uint64_t seq)
{
	if (name) {
		ctl c = by_name(name);
		if (floe_reconcile_control_check(name) < 0)
			return -1;
		if (catalog[c].tier > tier) {
			floe_error_set(FLOE_ERR_USAGE, "control \"%s\" needs tier %s", name,
				       floe_reconcile_tier_name(catalog[c].tier));
			return -1;
		}
		return locate(p, lake, c, seq);
	}
	for (uint64_t i = 0; i < N_ROTATING; i++) {
		ctl c = (ctl)((seq + i) % N_ROTATING);
		if (catalog[c].tier > tier)
			continue;
		int found = locate(p, lake, c, seq / N_ROTATING);
		if (found != 0)
			return found;
	}
	if (lake_empty)
		return locate(p, lake, ADDED_ROW, 0);
	return 0;
}

static const char *where_text(floe_arena *arena, const rc_table *t, const plant *p)
{
	if (p->control == ADDED_ROW)
		return "a row of NULLs added";
	const char *cols = p->col2 >= 0 ? floe_arena_printf(arena, " (columns %s and %s)", t->cols[p->col].name,
							    t->cols[p->col2].name)
			   : p->col >= 0 ? floe_arena_printf(arena, " (column %s)", t->cols[p->col].name) : "";
	return floe_arena_printf(arena, "in bucket %lld, %s%s", (long long)p->bucket, catalog[p->control].what, cols);
}

/* A control planted into a copy of the lake side and measured, not yet judged. */
struct rc_control_plan {
	const char *name;   /* NULL: none (or `none`) */
	const char *detail; /* why none was planted */
	bool planted;
	plant p;
	rc_side altered;
};

int rc_control_plant(rc_control_plan **out, floe_arena *arena, rc_lake *lake, const rc_metric *metrics,
		     size_t n_metrics, floe_reconcile_tier tier, const rc_side *lake_side, const char *name,
		     uint64_t seq)
{
	rc_control_plan *plan = floe_arena_alloc(arena, sizeof(*plan));
	floe_buf sql = FLOE_BUF_INIT;
	int error = -1;
	memset(plan, 0, sizeof(*plan));
	*out = plan;
	if (name && strcmp(name, "none") == 0)
		return 0;
	bool lake_empty = lake_side->values[0] && strcmp(lake_side->values[0], "0") == 0; /* the "rows" measure */
	int found = choose(&plan->p, lake, tier, lake_empty, name, seq);
	if (found < 0)
		goto cleanup;
	if (found == 0) {
		plan->name = name;
		plan->detail = "no control of the catalog applies to this table's rows at this tier";
		error = 0;
		goto cleanup;
	}
	plan->name = catalog[plan->p.control].name;
	altered_sql(&sql, rc_lake_table(lake), &plan->p, rc_lake_rows_of(lake, plan->p.bucket));
	/* count(DISTINCT) does not combine across buckets: the control keeps the lake's real values. */
	if (rc_lake_measure_altered(&plan->altered, lake, arena, metrics, n_metrics, tier, plan->p.bucket,
				    floe_buf_cstr(&sql), lake_side) < 0)
		goto cleanup;
	plan->planted = true;
	error = 0;
cleanup:
	floe_buf_free(&sql);
	return error;
}

void rc_control_judge(rc_control_run *out, floe_arena *arena, const rc_control_plan *plan, const rc_table *t,
		      const rc_metric *metrics, size_t n_metrics, floe_reconcile_tier tier, bool aggregates,
		      const rc_side *source, const rc_diff *real)
{
	floe_buf note = FLOE_BUF_INIT;
	rc_diff got;
	memset(out, 0, sizeof(*out));
	out->name = plan->name;
	out->detail = plan->detail;
	if (!plan->planted)
		return;
	rc_compare(&got, arena, t, metrics, n_metrics, source, &plan->altered);
	const char *why = judge(&note, t, &plan->p, metrics, tier, aggregates, real, &got);
	out->fired = why == NULL;
	out->detail = floe_arena_printf(arena, "%s: %s (reported %s)", where_text(arena, t, &plan->p),
					why ? why : "caught", floe_buf_cstr(&note));
	floe_buf_free(&note);
}
