/*
 * keys.c — narrowing diverged V3 buckets to the exact keys whose rows differ.
 *
 * Buckets hold about 10 000 rows. Each diverged bucket is split into 128
 * sub-buckets by a second hash of the key, and both sides' (count, sum of row
 * hashes) per sub-bucket compared; only the rows of the sub-buckets that differ
 * (about 80 rows each) are then listed on both sides — as the key's canonical
 * text, its columns' text and the row's hash, never other values — and compared
 * key by key. A key whose rows differ, or that one side lacks or holds more than
 * once, is returned.
 */
#include "reconcile/reconcile_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "engine/engine.h"
#include "pg/pg.h"

#include <stdlib.h>
#include <string.h>

#define SUB_BUCKETS 128
#define SEED_SUB 1937072482 /* "sub" */
#define MAX_BUCKETS_NARROWED 64
#define MAX_CELLS_LISTED 256

/* One (bucket, sub-bucket) or one key, with both sides' numbers. */
typedef struct cell {
	int64_t bucket, sub;
	const char *key;      /* level 2: the key's canonical text */
	const char **values;  /* level 2: the key columns' text */
	size_t n_values;
	int64_t rows;
	const char *sum;
} cell;

typedef struct cells {
	cell *items;
	size_t n, cap;
} cells;

static void sub_expr(floe_buf *q, const rc_table *t, rc_dialect d)
{
	floe_buf_puts(q, "((");
	rc_key_hash(q, t, d, SEED_SUB);
	floe_buf_printf(q, ") %% %d + %d) %% %d", SUB_BUCKETS, SUB_BUCKETS, SUB_BUCKETS);
}

/* The rows both levels read: b, s, the key, the key columns' text, h; in `d`'s dialect. */
static void rows_select(floe_buf *q, const rc_table *t, rc_dialect d, rc_source *src, int64_t buckets)
{
	floe_buf_puts(q, "(SELECT ");
	rc_bucket_expr(q, t, d, buckets);
	floe_buf_puts(q, " AS b, ");
	sub_expr(q, t, d);
	floe_buf_puts(q, " AS s, ");
	rc_key_text(q, t, d);
	floe_buf_puts(q, " AS k, ");
	rc_hash_expr(q, t, d);
	floe_buf_puts(q, " AS h");
	for (size_t i = 0; i < t->n; i++)
		if (t->cols[i].key)
			floe_buf_printf(q, ", (%s)%s AS v%zu", t->cols[i].ident, d == RC_PG ? "::text" : "::VARCHAR", i);
	if (d == RC_PG)
		rc_source_from(q, src, t);
	else
		floe_buf_puts(q, " FROM lake");
	floe_buf_puts(q, ") AS x");
}

/* Level 1 over the diverged buckets, level 2 over the diverged cells. */
static void level_query(floe_buf *q, const rc_table *t, rc_dialect d, rc_source *src, int64_t buckets, const cells *where,
			bool by_key)
{
	const char *text = d == RC_PG ? "::text" : "::VARCHAR";
	floe_buf_printf(q, "SELECT b, s, %s, count(*), sum(h)%s", by_key ? "k" : "NULL", text);
	for (size_t i = 0; by_key && i < t->n; i++)
		if (t->cols[i].key)
			floe_buf_printf(q, ", min(v%zu)", i);
	floe_buf_puts(q, " FROM ");
	rows_select(q, t, d, src, buckets);
	floe_buf_puts(q, " WHERE ");
	for (size_t i = 0; i < where->n; i++) {
		const cell *c = &where->items[i];
		floe_buf_puts(q, i ? " OR " : "(");
		if (by_key)
			floe_buf_printf(q, "(b = %lld AND s = %lld)", (long long)c->bucket, (long long)c->sub);
		else
			floe_buf_printf(q, "b = %lld", (long long)c->bucket);
	}
	floe_buf_printf(q, ") GROUP BY b, s%s", by_key ? ", k" : "");
}

/* A result row (b, s, k, count, sum, key texts…) into `out`. */
static void push_row(cells *out, floe_arena *arena, const char *const *col, size_t n_cols)
{
	cell *c = FLOE_ARENA_PUSH(arena, out->items, out->n, out->cap);
	c->bucket = strtoll(col[0], NULL, 10);
	c->sub = strtoll(col[1], NULL, 10);
	c->key = col[2] ? floe_arena_strdup(arena, col[2]) : NULL;
	c->rows = strtoll(col[3], NULL, 10);
	c->sum = floe_arena_strdup(arena, col[4] ? col[4] : "0");
	c->n_values = n_cols > 5 ? n_cols - 5 : 0;
	c->values = floe_arena_alloc(arena, (c->n_values + 1) * sizeof(char *));
	for (size_t i = 0; i < c->n_values; i++)
		c->values[i] = floe_arena_strdup(arena, col[5 + i] ? col[5 + i] : "");
}

static int run_source(cells *out, floe_arena *arena, rc_source *src, const char *sql)
{
	floe_pg_result *r = NULL;
	if (rc_source_query(&r, src, sql) < 0)
		return -1;
	int cols = floe_pg_result_cols(r);
	const char *col[64];
	for (int row = 0; row < floe_pg_result_rows(r); row++) {
		for (int i = 0; i < cols && i < 64; i++)
			col[i] = floe_pg_result_is_null(r, row, i) ? NULL : floe_pg_result_text(r, row, i);
		push_row(out, arena, col, (size_t)(cols < 64 ? cols : 64));
	}
	floe_pg_result_free(r);
	return 0;
}

static int run_lake(cells *out, floe_arena *arena, rc_lake *lake, const char *sql)
{
	floe_engine_result *r = NULL;
	if (rc_lake_query(&r, lake, sql) < 0)
		return -1;
	size_t cols = floe_engine_result_columns(r);
	const char *col[64];
	for (size_t row = 0; row < floe_engine_result_rows(r); row++) {
		for (size_t i = 0; i < cols && i < 64; i++)
			col[i] = floe_engine_result_text(r, row, i);
		push_row(out, arena, col, cols < 64 ? cols : 64);
	}
	floe_engine_result_free(r);
	return 0;
}

static int cmp_cell(const void *a, const void *b)
{
	const cell *x = a, *y = b;
	if (x->bucket != y->bucket)
		return x->bucket < y->bucket ? -1 : 1;
	if (x->sub != y->sub)
		return x->sub < y->sub ? -1 : 1;
	return strcmp(x->key ? x->key : "", y->key ? y->key : "");
}

/*
 * The cells (or keys) whose numbers differ between the two sorted lists, into `out`;
 * `emit` receives the pair (either may be NULL: missing on that side).
 */
typedef void (*emit_fn)(void *ctx, const cell *s, const cell *l);

static void merge(const cells *src, const cells *lake, emit_fn emit, void *ctx)
{
	size_t i = 0, k = 0;
	qsort(src->items, src->n, sizeof(cell), cmp_cell);
	qsort(lake->items, lake->n, sizeof(cell), cmp_cell);
	while (i < src->n || k < lake->n) {
		const cell *s = i < src->n ? &src->items[i] : NULL, *l = k < lake->n ? &lake->items[k] : NULL;
		int c = !s ? 1 : !l ? -1 : cmp_cell(s, l);
		if (c != 0 || s->rows != l->rows || strcmp(s->sum, l->sum) != 0)
			emit(ctx, c <= 0 ? s : NULL, c >= 0 ? l : NULL);
		i += c <= 0;
		k += c >= 0;
	}
}

typedef struct narrowing {
	floe_arena *arena;
	cells next;                   /* level 1: the diverged cells */
	floe_reconcile_key *keys;     /* level 2 */
	size_t n_keys, cap_keys, max_keys;
} narrowing;

static void emit_cell(void *ctx, const cell *s, const cell *l)
{
	narrowing *n = ctx;
	if (n->next.n < MAX_CELLS_LISTED)
		*FLOE_ARENA_PUSH(n->arena, n->next.items, n->next.n, n->next.cap) = s ? *s : *l;
}

static void emit_key(void *ctx, const cell *s, const cell *l)
{
	narrowing *n = ctx;
	if (n->n_keys >= n->max_keys)
		return;
	floe_reconcile_key *k = FLOE_ARENA_PUSH(n->arena, n->keys, n->n_keys, n->cap_keys);
	k->canonical = s ? s->key : l->key;
	k->values = s ? s->values : l->values;
	k->n_values = s ? s->n_values : l->n_values;
	k->source_rows = s ? s->rows : 0;
	k->lake_rows = l ? l->rows : 0;
	k->bucket = s ? s->bucket : l->bucket;
}

int rc_narrow(floe_reconcile_key **out, size_t *n_out, floe_arena *arena, rc_source *src, rc_lake *lake,
	      const rc_table *t, int64_t buckets, const floe_reconcile_bucket *diverged, size_t n_diverged,
	      size_t max_keys)
{
	narrowing nr = { .arena = arena, .max_keys = max_keys };
	cells where = { 0 }, s1 = { 0 }, l1 = { 0 }, s2 = { 0 }, l2 = { 0 };
	floe_buf q = FLOE_BUF_INIT;
	int error = -1;
	*out = NULL;
	*n_out = 0;
	if (t->key_is_row) {
		floe_error_set(FLOE_ERR_USAGE, "%s has no primary key: its diverged rows have no key to name", t->lock->bronze);
		floe_error_hint("The diverged buckets are listed; a primary key on the source table lets floe name the rows.");
		return -1;
	}
	for (size_t i = 0; i < n_diverged && i < MAX_BUCKETS_NARROWED; i++)
		FLOE_ARENA_PUSH(arena, where.items, where.n, where.cap)->bucket = diverged[i].bucket;
	if (where.n == 0)
		return 0;
	for (int level = 1; level <= 2; level++) {
		bool by_key = level == 2;
		cells *s = by_key ? &s2 : &s1, *l = by_key ? &l2 : &l1;
		floe_buf_clear(&q);
		level_query(&q, t, RC_PG, src, buckets, &where, by_key);
		if (run_source(s, arena, src, floe_buf_cstr(&q)) < 0)
			goto cleanup;
		floe_buf_clear(&q);
		level_query(&q, t, RC_DUCK, src, buckets, &where, by_key);
		if (run_lake(l, arena, lake, floe_buf_cstr(&q)) < 0)
			goto cleanup;
		merge(s, l, by_key ? emit_key : emit_cell, &nr);
		where = nr.next;
		if (where.n == 0)
			break;
	}
	*out = nr.keys;
	*n_out = nr.n_keys;
	error = 0;
cleanup:
	if (error < 0)
		floe_error_context("while narrowing the diverged buckets to keys");
	floe_buf_free(&q);
	return error;
}
