/*
 * keys.c — a table's primary key as the order of its bronze files and rows.
 *
 * Tables loaded by key keep their data files sorted by the primary key and
 * disjoint, so an upsert rewrites only the files its keys fall in. The order is
 * PostgreSQL's `ORDER BY` of the key with text columns `COLLATE "C"` (bytes), which
 * floe_vector_compare_rows reproduces. Key types whose PostgreSQL order floe does
 * not reproduce (floats, char(n) with its padding rules, enums in declaration
 * order, domains, arrays) make the table load in full, with the reason.
 */
#include "bronze/bronze_int.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "iceberg/data_file.h"
#include "pg/pg.h"

#include <string.h>

static bool text_type(const char *pg_type)
{
	return strcmp(pg_type, "text") == 0 || strncmp(pg_type, "character varying", 17) == 0 ||
	       strncmp(pg_type, "varchar", 7) == 0 || strcmp(pg_type, "name") == 0;
}

/* Why a key column's values cannot be ordered as PostgreSQL orders them, or NULL. */
static const char *unorderable(const floe_lock_column *c, floe_vec_type vec)
{
	switch (vec) {
	case FLOE_VEC_BOOLEAN: case FLOE_VEC_INT: case FLOE_VEC_LONG: case FLOE_VEC_DECIMAL:
	case FLOE_VEC_DATE: case FLOE_VEC_TIME: case FLOE_VEC_TIMESTAMP: case FLOE_VEC_TIMESTAMPTZ:
	case FLOE_VEC_UUID:
		return NULL;
	case FLOE_VEC_STRING:
		return text_type(c->pg_type) ? NULL : "its order in PostgreSQL is not the order of its text";
	case FLOE_VEC_BINARY:
		return strcmp(c->pg_type, "bytea") == 0 ? NULL : "its order in PostgreSQL is not the order of its bytes";
	default:
		return "floe does not order keys of this type";
	}
}

void bronze_keys_init(bronze_keys *out, floe_arena *a, const floe_lock_table *t, const bronze_columns *cols)
{
	memset(out, 0, sizeof(*out));
	out->watermark = -1;
	out->col = floe_arena_alloc(a, (t->n_key + 1) * sizeof(size_t));
	for (size_t i = 0; i < cols->n; i++)
		if (t->watermark && strcmp(t->columns[i].name, t->watermark) == 0)
			out->watermark = (long)i;
	for (size_t k = 0; k < t->n_key; k++) {
		size_t i = 0;
		while (i < cols->n && strcmp(t->columns[i].name, t->key[k]) != 0)
			i++;
		if (i == cols->n) {
			out->unmergeable = floe_arena_printf(a, "key column \"%s\" is not among the columns", t->key[k]);
			out->n = 0;
			return;
		}
		const char *why = unorderable(&t->columns[i], cols->copy[i].vec);
		if (why && !out->unmergeable)
			out->unmergeable = floe_arena_printf(a, "key column \"%s\" (%s): %s", t->key[k],
							     t->columns[i].pg_type, why);
		out->col[out->n++] = i;
	}
	if (out->n == 0)
		out->unmergeable = "the table has no primary key";
	else if (out->watermark < 0)
		out->unmergeable = "the table has no proven watermark", out->watermark_only = true;
	else if (cols->copy[out->watermark].vec != FLOE_VEC_TIMESTAMP &&
		 cols->copy[out->watermark].vec != FLOE_VEC_TIMESTAMPTZ)
		out->unmergeable = "the watermark is not a timestamp", out->watermark_only = true;
}

void bronze_key_view(const bronze_keys *k, floe_vector **keys, floe_vector *rows)
{
	for (size_t i = 0; i < k->n; i++)
		keys[i] = &rows[k->col[i]];
}

/* 8 bytes as a number that orders as the bytes do. */
static uint64_t big_endian(const uint8_t *p)
{
	uint64_t x;
	memcpy(&x, p, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	x = __builtin_bswap64(x);
#endif
	return x;
}

/* Rows i of x and j of y, the commonest key columns (uuid, bigint, no NULLs) compared without a call. */
static int key_column_cmp(const floe_vector *x, size_t i, const floe_vector *y, size_t j)
{
	if (x->validity || y->validity)
		return floe_vector_compare_rows(x, i, y, j);
	if (x->type == FLOE_VEC_UUID) {
		const uint8_t *p = x->v.fixed + i * 16, *q = y->v.fixed + j * 16;
		uint64_t a = big_endian(p), b = big_endian(q);
		if (a == b) {
			a = big_endian(p + 8);
			b = big_endian(q + 8);
		}
		return (a > b) - (a < b);
	}
	if (x->type == FLOE_VEC_LONG)
		return (x->v.i64[i] > y->v.i64[j]) - (x->v.i64[i] < y->v.i64[j]);
	return floe_vector_compare_rows(x, i, y, j);
}

int bronze_key_cmp(const bronze_keys *k, floe_vector *const *a, size_t i, floe_vector *const *b, size_t j)
{
	for (size_t c = 0; c < k->n; c++) {
		int r = key_column_cmp(a[c], i, b[c], j);
		if (r)
			return r;
	}
	return 0;
}

bool bronze_keys_ascending(const bronze_keys *k, floe_vector *const *keys, size_t rows)
{
	const floe_vector *x = keys[0];
	if (k->n == 1 && !x->validity && x->type == FLOE_VEC_UUID) {
		for (size_t i = 1; i < rows; i++)
			if (key_column_cmp(x, i - 1, x, i) >= 0)
				return false;
		return true;
	}
	if (k->n == 1 && !x->validity && x->type == FLOE_VEC_LONG) {
		for (size_t i = 1; i < rows; i++)
			if (x->v.i64[i - 1] >= x->v.i64[i])
				return false;
		return true;
	}
	for (size_t i = 1; i < rows; i++)
		if (bronze_key_cmp(k, keys, i - 1, keys, i) >= 0)
			return false;
	return true;
}

int bronze_key_bound_append(floe_vector *dst, const uint8_t *b, size_t len)
{
	int64_t x = 0;
	switch (dst->type) {
	case FLOE_VEC_BOOLEAN:
		if (len != 1)
			return -1;
		floe_vector_append_bool(dst, b[0] != 0);
		return 0;
	case FLOE_VEC_INT: case FLOE_VEC_DATE:
		if (floe_iceberg_bound_to_int(&x, FLOE_ICEBERG_INT, b, len) < 0)
			return -1;
		floe_vector_append_i32(dst, (int32_t)x);
		return 0;
	case FLOE_VEC_LONG: case FLOE_VEC_TIME: case FLOE_VEC_TIMESTAMP: case FLOE_VEC_TIMESTAMPTZ:
		if (floe_iceberg_bound_to_int(&x, FLOE_ICEBERG_LONG, b, len) < 0)
			return -1;
		floe_vector_append_i64(dst, x);
		return 0;
	case FLOE_VEC_DECIMAL: {
		if (len == 0 || len > 16)
			return -1;
		/* big-endian two's complement of any width, sign-extended to 128 bits */
		uint64_t hi = (b[0] & 0x80) ? UINT64_MAX : 0, lo = hi;
		for (size_t i = 0; i < len; i++) {
			hi = (hi << 8) | (lo >> 56);
			lo = (lo << 8) | b[i];
		}
		floe_dec128 d = { lo, (int64_t)hi };
		floe_vector_append_dec(dst, d);
		return 0;
	}
	case FLOE_VEC_STRING: case FLOE_VEC_BINARY:
		floe_vector_append_bytes(dst, b, len);
		return 0;
	case FLOE_VEC_UUID:
		if (len != 16)
			return -1;
		floe_vector_append_fixed(dst, b);
		return 0;
	default:
		return -1;
	}
}

const char *bronze_key_collation(const floe_lock_column *c)
{
	return text_type(c->pg_type) ? " COLLATE \"C\"" : "";
}

/* " ORDER BY floe_src.k1 COLLATE "C", …" into `b`. */
static int order_by(floe_buf *b, floe_pg *pg, const floe_lock_table *t, const bronze_keys *k)
{
	floe_buf_puts(b, " ORDER BY ");
	for (size_t i = 0; i < k->n; i++) {
		const floe_lock_column *c = &t->columns[k->col[i]];
		floe_buf_puts(b, i ? ", floe_src." : "floe_src.");
		if (floe_pg_quote_ident(b, pg, c->name) < 0)
			return -1;
		if (text_type(c->pg_type))
			floe_buf_puts(b, " COLLATE \"C\"");
	}
	return 0;
}

const char *bronze_sql_key_columns(floe_arena *a, floe_pg *pg, const floe_lock_table *t, const bronze_keys *k)
{
	floe_buf b = FLOE_BUF_INIT;
	const char *out = NULL;
	for (size_t i = 0; i < k->n; i++) {
		floe_buf_puts(&b, i ? ", floe_src." : "floe_src.");
		if (floe_pg_quote_ident(&b, pg, t->columns[k->col[i]].name) < 0)
			goto cleanup;
	}
	out = floe_arena_strndup(a, floe_buf_cstr(&b), b.len);
cleanup:
	floe_buf_free(&b);
	return out;
}

const char *bronze_sql_keyed(floe_arena *a, floe_pg *pg, const floe_lock_table *t, const bronze_keys *k,
			     const char *columns, const char *sql, const char *where)
{
	floe_buf b = FLOE_BUF_INIT;
	const char *out = NULL;
	floe_buf_printf(&b, "SELECT %s FROM (\n%s\n) AS floe_src%s", columns, sql, where);
	if (order_by(&b, pg, t, k) == 0)
		out = floe_arena_strndup(a, floe_buf_cstr(&b), b.len);
	floe_buf_free(&b);
	return out;
}

bool bronze_keys_append_ascending(const bronze_keys *k, floe_vector *const *kept, floe_vector *const *batch, size_t rows)
{
	size_t have = kept[0]->len;
	for (size_t i = 0; i < k->n; i++)
		if (floe_vector_null_count(batch[i]) > 0)
			return false;
	if ((have && bronze_key_cmp(k, kept, have - 1, batch, 0) >= 0) || !bronze_keys_ascending(k, batch, rows))
		return false;
	for (size_t i = 0; i < k->n; i++)
		floe_vector_append_rows(kept[i], batch[i], 0, rows);
	return true;
}
