/*
 * canon.c — the row hash and the canonical text of every value, as SQL for
 * PostgreSQL and for DuckDB, and the V2 measures. docs/reconcile.md states the
 * forms; this file is the only place they are written, the unit tests check the
 * DuckDB dialect against values PostgreSQL returned, and tests/it/test_reconcile.py
 * proves the two dialects agree on every type.
 *
 * A row's hash combines one typed hash per column (PostgreSQL's hash functions,
 * floe's C twins in DuckDB; text hashed only where no exact typed hash exists).
 * A canonical text is strict (NULL for NULL); a key's text joins its columns' texts
 * with '|', NULL as 'N'. Strings carry their byte length ("3:abc"), so no content
 * can imitate a separator, and '' ("0:") differs from NULL ("N").
 */
#include "reconcile/reconcile_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/pghash.h"
#include "base/text.h"

#include <stdio.h>
#include <string.h>

#define OID_BPCHAR 1042u

#define SEED_ROW 1718382437    /* "floe" */
#define SEED_NULL 1853189228   /* "null": the constant a NULL stands as */

#define ROWS_PER_BUCKET 10000
#define MAX_BUCKETS 4096
#define DISTINCT_MAX_ROWS 100000 /* count(DISTINCT) sorts in PostgreSQL: only where that is cheap */

static const struct {
	const char *iceberg;
	rc_kind kind;
	const char *duck;
} primitives[] = {
	{ "boolean", RC_BOOL, "BOOLEAN" },      { "int", RC_INT, "INTEGER" },
	{ "long", RC_LONG, "BIGINT" },          { "float", RC_FLOAT, "FLOAT" },
	{ "double", RC_DOUBLE, "DOUBLE" },      { "string", RC_STRING, "VARCHAR" },
	{ "binary", RC_BINARY, "BLOB" },        { "date", RC_DATE, "DATE" },
	{ "time", RC_TIME, "TIME" },            { "timestamp", RC_TIMESTAMP, "TIMESTAMP" },
	{ "timestamptz", RC_TIMESTAMPTZ, "TIMESTAMPTZ" }, { "uuid", RC_UUID, "UUID" },
};

/* An Iceberg primitive as a kind and DuckDB's type name; RC_OTHER when floe has no form for it. */
static const char *parse_primitive(rc_type *out, floe_arena *arena, const char *p)
{
	int precision = 0, scale = 0;
	memset(out, 0, sizeof(*out));
	out->kind = RC_OTHER;
	if (!p)
		return NULL;
	for (size_t i = 0; i < sizeof(primitives) / sizeof(primitives[0]); i++) {
		if (strcmp(p, primitives[i].iceberg) == 0) {
			out->kind = primitives[i].kind;
			return primitives[i].duck;
		}
	}
	if (sscanf(p, "decimal(%d,%d)", &precision, &scale) == 2 && precision >= 1 && precision <= 38 &&
	    scale >= 0 && scale <= precision) {
		out->kind = RC_DECIMAL;
		out->precision = precision;
		out->scale = scale;
		return floe_arena_printf(arena, "DECIMAL(%d,%d)", precision, scale);
	}
	return NULL;
}

static bool is_float(rc_kind k)
{
	return k == RC_FLOAT || k == RC_DOUBLE;
}

/* Map one lock column; `oid`/`elem` are the source's result types. */
static void map_column(rc_column *c, floe_arena *arena, const floe_lock_column *lc, uint32_t oid, uint32_t elem)
{
	const floe_lock_type *lt = lc->type;
	c->name = lc->name;
	c->field_id = lc->id;
	snprintf(c->ident, sizeof(c->ident), "c%d", lc->id);
	if (lt && lt->kind == FLOE_PLAN_PRIMITIVE) {
		c->duck_type = parse_primitive(&c->type, arena, lt->primitive);
		c->type.padded = oid == OID_BPCHAR;
	} else if (lt && lt->kind == FLOE_PLAN_LIST && lt->element && lt->element->kind == FLOE_PLAN_PRIMITIVE) {
		const char *el = parse_primitive(&c->element, arena, lt->element->primitive);
		c->element.padded = elem == OID_BPCHAR;
		c->type.kind = RC_LIST;
		c->type.element = &c->element;
		c->duck_type = el ? floe_arena_printf(arena, "%s[]", el) : NULL;
		if (!el)
			c->type.kind = RC_OTHER;
	} else {
		c->type.kind = RC_OTHER;
	}
	rc_kind k = c->type.kind == RC_LIST ? c->element.kind : c->type.kind;
	if (c->type.kind == RC_OTHER || !c->duck_type)
		c->excluded = floe_arena_printf(arena, "%s: a type reconciliation does not compare yet (not read)", c->name);
	else if (is_float(k))
		c->excluded = floe_arena_printf(arena, "%s: floating point, checked in V2 within a relative tolerance",
						c->name);
	c->hashed = c->excluded == NULL;
}

int rc_table_build(rc_table *out, floe_arena *arena, const floe_lock_table *lock, const uint32_t *oids,
		   const uint32_t *elem_oids, size_t n_oids)
{
	memset(out, 0, sizeof(*out));
	if (n_oids != lock->n_columns) {
		floe_error_set(FLOE_ERR_CONFIG, "the extraction query of %s returns %zu columns, the plan has %zu",
			       lock->bronze, n_oids, lock->n_columns);
		floe_error_hint("Run `floe generate` so the pipeline's query and the plan agree.");
		return -1;
	}
	out->lock = lock;
	out->n = lock->n_columns;
	out->cols = floe_arena_alloc(arena, (out->n + 1) * sizeof(rc_column));
	for (size_t i = 0; i < out->n; i++)
		map_column(&out->cols[i], arena, &lock->columns[i], oids[i], elem_oids ? elem_oids[i] : 0);
	size_t found = 0;
	for (size_t k = 0; k < lock->n_key; k++) {
		for (size_t i = 0; i < out->n; i++) {
			if (strcmp(out->cols[i].name, lock->key[k]) == 0 && out->cols[i].hashed) {
				out->cols[i].key = true;
				found++;
			}
		}
	}
	out->key_is_row = lock->n_key == 0 || found != lock->n_key;
	if (out->key_is_row)
		for (size_t i = 0; i < out->n; i++)
			out->cols[i].key = false;
	return 0;
}

/* ---- canonical texts ---- */

/* `expr` as text, for a string: character(n) keeps its padding on the source side. */
static void string_value(floe_buf *out, rc_dialect d, const rc_type *type, const char *expr)
{
	if (d == RC_PG && type->padded)
		floe_buf_printf(out, "pg_catalog.textin(pg_catalog.bpcharout(%s))", expr);
	else
		floe_buf_puts(out, expr);
}

/*
 * Times and timestamps: their microseconds as 16 hex digits of a big-endian int64 —
 * what PostgreSQL's own binary send functions produce (timestamps counted from
 * 2000-01-01, ±infinity as the int64 extremes), cheaper than any text form and exact
 * for every value. DuckDB counts from 1970 and reads floe's ±infinity as its own
 * infinity and as the int64 minimum.
 */
#define PG_EPOCH_US "946684800000000"

static void canon_duck_timestamp(floe_buf *out, const char *e, const char *type)
{
	/* The common case first: the CASE runs only for NULL and the two infinities. */
	floe_buf_printf(out,
			"coalesce(lpad(lower(hex(nullif(epoch_us(%s), -9223372036854775808) - " PG_EPOCH_US ")), 16, '0'),"
			" CASE WHEN %s = 'infinity'::%s THEN '7fffffffffffffff' WHEN %s IS NOT NULL THEN '8000000000000000' END)",
			e, e, type, e);
}

/* A date as days since 1970-01-01, ±infinity as the int32 extremes (how floe loads them). */
static void date_days(floe_buf *out, rc_dialect d, const char *e)
{
	if (d == RC_PG)
		floe_buf_printf(out, "(CASE WHEN %s = 'infinity' THEN 2147483647 WHEN %s = '-infinity' THEN -2147483647 - 1 "
				     "ELSE %s - DATE '1970-01-01' END)", e, e, e);
	else /* floe writes ±infinity as the extreme day numbers, which DuckDB subtracts as they are */
		floe_buf_printf(out, "(%s - DATE '1970-01-01')", e);
}

static void canon_list(floe_buf *out, const rc_table *t, rc_dialect d, const rc_type *el, const char *e)
{
	if (d == RC_PG) {
		floe_buf_printf(out, "(SELECT cardinality(%s)::text || ':' || coalesce(string_agg(coalesce(", e);
		rc_canon(out, t, d, el, "u.e");
		floe_buf_printf(out, ", 'N'), ',' ORDER BY u.o), '') FROM unnest(%s) WITH ORDINALITY AS u(e, o))", e);
	} else {
		floe_buf_printf(out, "(CAST(len(%s) AS VARCHAR) || ':' || array_to_string(list_transform(%s, lambda e: coalesce(",
				e, e);
		rc_canon(out, t, d, el, "e");
		floe_buf_puts(out, ", 'N')), ','))");
	}
}

void rc_canon(floe_buf *out, const rc_table *t, rc_dialect d, const rc_type *type, const char *e)
{
	bool pg = d == RC_PG;
	const char *as_text = pg ? "::text" : "::VARCHAR";
	switch (type->kind) {
	case RC_BOOL:
		floe_buf_printf(out, "(CASE WHEN %s THEN 't' WHEN NOT %s THEN 'f' END)", e, e);
		break;
	case RC_INT:
	case RC_LONG:
	case RC_UUID:
	case RC_FLOAT:
	case RC_DOUBLE:
		floe_buf_printf(out, "(%s)%s", e, as_text);
		break;
	case RC_DECIMAL:
		if (pg)
			floe_buf_printf(out, "round(%s, %d)::text", e, type->scale);
		else if (type->precision > type->scale)
			floe_buf_printf(out, "(%s)::VARCHAR", e);
		else /* DuckDB prints DECIMAL(s,s) without the leading zero: ".5" */
			floe_buf_printf(out, "(CASE WHEN %s < 0 THEN '-0' || substr((%s)::VARCHAR, 2) ELSE '0' || (%s)::VARCHAR END)",
					e, e, e);
		break;
	case RC_STRING:
		if (pg) {
			floe_buf_puts(out, "(octet_length(");
			string_value(out, d, type, e);
			floe_buf_puts(out, ")::text || ':' || ");
			string_value(out, d, type, e);
			floe_buf_putc(out, ')');
		} else { /* concat() builds it at once; it reads NULL as '', so ':' alone means NULL */
			floe_buf_printf(out, "nullif(concat(strlen(%s), ':', %s), ':')", e, e);
		}
		break;
	case RC_BINARY:
		floe_buf_printf(out, pg ? "encode(%s, 'hex')" : "lower(hex(%s))", e);
		break;
	case RC_DATE:
		floe_buf_putc(out, '(');
		date_days(out, d, e);
		floe_buf_printf(out, ")%s", as_text);
		break;
	case RC_TIME:
		floe_buf_printf(out, pg ? "encode(time_send(%s), 'hex')" : "lpad(lower(hex(epoch_us(%s))), 16, '0')", e);
		break;
	case RC_TIMESTAMP:
		if (pg)
			floe_buf_printf(out, "encode(timestamp_send(%s), 'hex')", e);
		else
			canon_duck_timestamp(out, e, "TIMESTAMP");
		break;
	case RC_TIMESTAMPTZ:
		if (pg)
			floe_buf_printf(out, "encode(timestamptz_send(%s), 'hex')", e);
		else
			canon_duck_timestamp(out, e, "TIMESTAMPTZ");
		break;
	case RC_LIST:
		canon_list(out, t, d, type->element, e);
		break;
	case RC_OTHER:
		floe_buf_puts(out, "NULL");
		break;
	}
}

/*
 * The key's canonical text: its columns' texts joined with '|', NULL as 'N' (the whole
 * row's without a key). Only diverged keys are listed this way (keys.c): PostgreSQL
 * joins fastest with ||, DuckDB with one concat_ws.
 */
void rc_key_text(floe_buf *out, const rc_table *t, rc_dialect d)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++) {
		const rc_column *c = &t->cols[i];
		if (!c->hashed || (!t->key_is_row && !c->key))
			continue;
		if (n++ == 0 && d == RC_DUCK)
			floe_buf_puts(out, "concat_ws('|', ");
		else if (n > 1)
			floe_buf_puts(out, d == RC_PG ? " || '|' || " : ", ");
		floe_buf_puts(out, "coalesce(");
		rc_canon(out, t, d, &c->type, c->ident);
		floe_buf_puts(out, ", 'N')");
	}
	if (n == 0)
		floe_buf_puts(out, "''");
	else if (d == RC_DUCK)
		floe_buf_putc(out, ')');
}

/* ---- typed hashes ---- */

/*
 * A 64-bit number derived from a column and a seed: each column hashes under a seed of
 * its own, so two columns that swap values change the row's hash, and its NULL stands
 * as a constant of its own. Neither it nor its complement is the int64 minimum, whose
 * literal PostgreSQL would read as numeric.
 */
static int64_t column_number(const rc_column *c, int64_t seed)
{
	int64_t v = (int64_t)floe_pghash_uint32_extended((uint32_t)c->field_id, (uint64_t)seed);
	return v == INT64_MIN || v == INT64_MAX ? 1 : v;
}

/*
 * The hash of column `c`'s value under `seed`, NULL for NULL: PostgreSQL's own hash
 * function of the type where it tells every value apart (integers, booleans, dates,
 * uuid, text), else hashtextextended of the canonical text (decimals, binary, lists,
 * times and timestamps as their binary form in hex). bigint's hashint8extended folds
 * the value to 32 bits, so its high word is hashed too, under the seed inverted.
 */
static void value_hash(floe_buf *out, const rc_table *t, rc_dialect d, const rc_column *c, int64_t seed)
{
	bool pg = d == RC_PG;
	const char *e = c->ident;
	long long s = (long long)seed;
	switch (c->type.kind) {
	case RC_BOOL:
	case RC_INT:
		floe_buf_printf(out, pg ? "hashint4extended((%s)::int4, %lld)" : "hashint4extended(CAST(%s AS INTEGER), %lld)",
				e, s);
		break;
	case RC_LONG:
		if (pg)
			floe_buf_printf(out, "(hashint8extended(%s, %lld) # hashint4extended((%s >> 32)::int4, %lld))", e, s, e,
					~s);
		else
			floe_buf_printf(out, "xor(hashint8extended(%s, %lld), hashint4extended(CAST(%s >> 32 AS INTEGER), %lld))",
					e, s, e, ~s);
		break;
	case RC_UUID:
		floe_buf_printf(out, "uuid_hash_extended(%s, %lld)", e, s);
		break;
	case RC_DATE:
		floe_buf_puts(out, "hashint4extended(CAST(");
		date_days(out, d, e);
		floe_buf_printf(out, " AS %s), %lld)", pg ? "int4" : "INTEGER", s);
		break;
	case RC_TIME:
	case RC_TIMESTAMP:
	case RC_TIMESTAMPTZ:
	case RC_DECIMAL:
		if (!pg) { /* the same number from the typed value, in C (src/engine/functions.c) */
			floe_buf_printf(out, "%s(%s, %lld)", c->type.kind == RC_DECIMAL ? "hash_decimal_text_extended"
				: "hash_send_hex_extended", e, s);
			break;
		}
		/* fall through */
	case RC_STRING:
	case RC_BINARY:
	case RC_LIST:
		floe_buf_puts(out, "hashtextextended(");
		if (pg && c->type.kind == RC_DECIMAL) /* free when the source's type is numeric(P,S) already */
			floe_buf_printf(out, "(%s)::numeric(%d,%d)::text", e, c->type.precision, c->type.scale);
		else if (c->type.kind == RC_STRING) /* the bytes, whatever the column's collation */
			string_value(out, d, &c->type, e);
		else
			rc_canon(out, t, d, &c->type, e);
		if (pg && c->type.kind == RC_STRING)
			floe_buf_puts(out, "::text COLLATE \"C\"");
		floe_buf_printf(out, ", %lld)", s);
		break;
	case RC_FLOAT:
	case RC_DOUBLE:
	case RC_OTHER:
		floe_buf_puts(out, "NULL");
		break;
	}
}

/* Which hashed columns an XOR takes. */
typedef enum part { KEY_PART, REST_PART, ALL_PARTS } part;

static bool in_part(const rc_table *t, const rc_column *c, part which)
{
	bool key = t->key_is_row || c->key;
	return c->hashed && (which == ALL_PARTS || (which == KEY_PART) == key);
}

/* The XOR of `which` columns' value hashes under `seed`, each NULL as its column's constant; 0 for none. */
static void xor_hashes(floe_buf *out, const rc_table *t, rc_dialect d, part which, int64_t seed)
{
	size_t n = 0, k = 0;
	for (size_t i = 0; i < t->n; i++)
		n += in_part(t, &t->cols[i], which);
	if (n == 0) {
		floe_buf_puts(out, "0");
		return;
	}
	for (size_t i = 0; d == RC_DUCK && i + 1 < n; i++)
		floe_buf_puts(out, "xor(");
	for (size_t i = 0; i < t->n; i++) {
		const rc_column *c = &t->cols[i];
		if (!in_part(t, c, which))
			continue;
		if (k > 0)
			floe_buf_puts(out, d == RC_PG ? " # " : ", ");
		floe_buf_puts(out, "coalesce(");
		value_hash(out, t, d, c, column_number(c, seed));
		floe_buf_printf(out, ", %lld)", (long long)column_number(c, seed ^ SEED_NULL));
		if (d == RC_DUCK && k > 0)
			floe_buf_putc(out, ')');
		k++;
	}
}

void rc_key_hash(floe_buf *out, const rc_table *t, rc_dialect d, int64_t seed)
{
	xor_hashes(out, t, d, KEY_PART, seed);
}

void rc_row_key_hash(floe_buf *out, const rc_table *t, rc_dialect d)
{
	xor_hashes(out, t, d, KEY_PART, SEED_ROW);
}

void rc_row_rest_hash(floe_buf *out, const rc_table *t, rc_dialect d)
{
	xor_hashes(out, t, d, REST_PART, SEED_ROW);
}

void rc_bucket_of(floe_buf *out, const char *key_hash, int64_t buckets)
{
	long long b = (long long)buckets;
	if (buckets <= 1)
		floe_buf_puts(out, "0");
	else
		floe_buf_printf(out, "((%s) %% %lld + %lld) %% %lld", key_hash, b, b, b);
}

/*
 * The columns' XOR is linear: summed over a bucket, one column's values swapped between
 * two rows would cancel in part. The row's hash is therefore that XOR mixed once more,
 * as the seed of hashint4extended, which spreads all its 64 bits.
 */
void rc_hash_of(floe_buf *out, rc_dialect d, const char *key_hash, const char *rest_hash)
{
	floe_buf_printf(out, d == RC_PG ? "hashint4extended(0, (%s) # (%s))" : "hashint4extended(0, xor(%s, %s))",
			key_hash, rest_hash);
}

void rc_bucket_expr(floe_buf *out, const rc_table *t, rc_dialect d, int64_t buckets)
{
	floe_buf key = FLOE_BUF_INIT;
	rc_row_key_hash(&key, t, d);
	rc_bucket_of(out, floe_buf_cstr(&key), buckets);
	floe_buf_free(&key);
}

void rc_hash_expr(floe_buf *out, const rc_table *t, rc_dialect d)
{
	floe_buf key = FLOE_BUF_INIT, rest = FLOE_BUF_INIT;
	rc_row_key_hash(&key, t, d);
	rc_row_rest_hash(&rest, t, d);
	rc_hash_of(out, d, floe_buf_cstr(&key), floe_buf_cstr(&rest));
	floe_buf_free(&key);
	floe_buf_free(&rest);
}

int64_t rc_bucket_count(int64_t rows)
{
	int64_t b = (rows + ROWS_PER_BUCKET - 1) / ROWS_PER_BUCKET;
	return b < 1 ? 1 : b > MAX_BUCKETS ? MAX_BUCKETS : b;
}

/* ---- V2 measures ---- */

static void add_metric(rc_metric **items, size_t *n, size_t *cap, floe_arena *arena, int col, const char *name,
		       rc_combine combine, rc_rule rule, bool distinct)
{
	rc_metric *m = FLOE_ARENA_PUSH(arena, *items, *n, *cap);
	m->col = col;
	m->name = name;
	m->combine = combine;
	m->rule = rule;
	m->distinct = distinct;
}

static bool has_min_max(rc_kind k)
{
	return k == RC_INT || k == RC_LONG || k == RC_DECIMAL || k == RC_STRING || k == RC_DATE || k == RC_TIME ||
	       k == RC_TIMESTAMP || k == RC_TIMESTAMPTZ;
}

static bool distinct_is_cheap(rc_kind k)
{
	return k == RC_INT || k == RC_LONG || k == RC_DECIMAL || k == RC_DATE || k == RC_TIME || k == RC_TIMESTAMP ||
	       k == RC_TIMESTAMPTZ || k == RC_UUID;
}

int rc_metrics_build(rc_metric **out, size_t *n_out, floe_arena *arena, const rc_table *t, floe_reconcile_tier tier,
		     int64_t rows)
{
	rc_metric *items = NULL;
	size_t n = 0, cap = 0;
	add_metric(&items, &n, &cap, arena, -1, "rows", RC_SUM, RC_EXACT, false);
	for (size_t i = 0; tier >= FLOE_RECONCILE_V2 && i < t->n; i++) {
		const rc_column *c = &t->cols[i];
		rc_kind k = c->type.kind;
		int col = (int)i;
		if (!c->duck_type)
			continue;
		add_metric(&items, &n, &cap, arena, col, "non_null", RC_SUM, RC_EXACT, false);
		if (k == RC_BOOL)
			add_metric(&items, &n, &cap, arena, col, "true", RC_SUM, RC_EXACT, false);
		if (has_min_max(k)) {
			add_metric(&items, &n, &cap, arena, col, "min", RC_MIN, RC_EXACT, false);
			add_metric(&items, &n, &cap, arena, col, "max", RC_MAX, RC_EXACT, false);
		}
		if (k == RC_INT || k == RC_LONG || k == RC_DECIMAL)
			add_metric(&items, &n, &cap, arena, col, "sum", RC_SUM, RC_EXACT, false);
		if (is_float(k)) {
			add_metric(&items, &n, &cap, arena, col, "min", RC_MIN, RC_FLOAT_VALUE, false);
			add_metric(&items, &n, &cap, arena, col, "max", RC_MAX, RC_FLOAT_VALUE, false);
			add_metric(&items, &n, &cap, arena, col, "sum", RC_SUM, RC_FLOAT_SUM, false);
			add_metric(&items, &n, &cap, arena, col, "sum_abs", RC_SUM, RC_FLOAT_SUM, false);
			add_metric(&items, &n, &cap, arena, col, "nan", RC_SUM, RC_EXACT, false);
		}
		if (k == RC_STRING || k == RC_BINARY)
			add_metric(&items, &n, &cap, arena, col, "bytes", RC_SUM, RC_EXACT, false);
		if (k == RC_LIST)
			add_metric(&items, &n, &cap, arena, col, "elements", RC_SUM, RC_EXACT, false);
		if (distinct_is_cheap(k) && rows <= DISTINCT_MAX_ROWS && !c->key) /* a key's count is the rows' */
			add_metric(&items, &n, &cap, arena, col, "distinct", RC_SUM, RC_EXACT, true);
	}
	*out = items;
	*n_out = n;
	return 0;
}

/* The column as the aggregate reads it: floats widened to double, strings as their (padded) text. */
static void agg_input(floe_buf *out, rc_dialect d, const rc_column *c)
{
	if (is_float(c->type.kind))
		floe_buf_printf(out, d == RC_PG ? "%s::float8" : "CAST(%s AS DOUBLE)", c->ident);
	else if (c->type.kind == RC_STRING)
		string_value(out, d, &c->type, c->ident);
	else
		floe_buf_puts(out, c->ident);
}

void rc_metric_partial(floe_buf *out, const rc_table *t, rc_dialect d, const rc_metric *m, size_t i)
{
	bool pg = d == RC_PG;
	const rc_column *c = m->col >= 0 ? &t->cols[m->col] : NULL;
	floe_buf x = FLOE_BUF_INIT;
	if (c)
		agg_input(&x, d, c);
	const char *v = floe_buf_cstr(&x);
	if (!c)
		floe_buf_puts(out, "count(*)");
	else if (m->distinct)
		floe_buf_printf(out, "count(DISTINCT %s)", v);
	else if (strcmp(m->name, "non_null") == 0)
		floe_buf_printf(out, "count(%s)", c->ident);
	else if (strcmp(m->name, "true") == 0)
		floe_buf_printf(out, "count(*) FILTER (WHERE %s)", v);
	else if (strcmp(m->name, "min") == 0 || strcmp(m->name, "max") == 0)
		/* Strings order by their bytes on both sides (PostgreSQL's C collation). */
		floe_buf_printf(out, "%s(%s%s)", m->name, v, pg && c->type.kind == RC_STRING ? " COLLATE \"C\"" : "");
	else if (strcmp(m->name, "sum") == 0)
		floe_buf_printf(out, "sum(%s)%s", v, pg && (c->type.kind == RC_INT || c->type.kind == RC_LONG) ? "::numeric" : "");
	else if (strcmp(m->name, "sum_abs") == 0)
		floe_buf_printf(out, "sum(abs(%s))", v);
	else if (strcmp(m->name, "nan") == 0)
		floe_buf_printf(out, pg ? "count(*) FILTER (WHERE %s = 'NaN'::float8)" : "count(*) FILTER (WHERE isnan(%s))", v);
	else if (strcmp(m->name, "bytes") == 0)
		floe_buf_printf(out, "sum(%s(%s))", pg || c->type.kind == RC_BINARY ? "octet_length" : "strlen", v);
	else if (strcmp(m->name, "elements") == 0)
		floe_buf_printf(out, "sum(%s(%s))", pg ? "cardinality" : "len", v);
	floe_buf_printf(out, " AS m%zu", i);
	floe_buf_free(&x);
}

static bool counts(const rc_metric *m)
{
	return m->col < 0 || m->distinct || strcmp(m->name, "non_null") == 0 || strcmp(m->name, "true") == 0 ||
	       strcmp(m->name, "nan") == 0;
}

void rc_metric_final(floe_buf *out, const rc_table *t, rc_dialect d, const rc_metric *m, size_t i)
{
	bool pg = d == RC_PG;
	const rc_column *c = m->col >= 0 ? &t->cols[m->col] : NULL;
	const char *agg = m->combine == RC_MIN ? "min" : m->combine == RC_MAX ? "max" : "sum";
	char combined[48];
	snprintf(combined, sizeof(combined), "%s(m%zu)", agg, i);
	if (!c || counts(m)) {
		floe_buf_printf(out, "coalesce(%s, 0)%s", combined, pg ? "::text" : "::VARCHAR");
	} else if (c->type.kind == RC_STRING && m->combine != RC_SUM) {
		/* The value itself may be personal data: its hash stands for it. */
		floe_buf_printf(out, "hashtextextended(%s, 0)%s", combined, pg ? "::text" : "::VARCHAR");
	} else if (m->combine != RC_SUM || c->type.kind == RC_DECIMAL) {
		rc_type sum_type = c->type;
		if (m->combine == RC_SUM)
			sum_type.precision = 38; /* DuckDB sums DECIMAL(p,s) as DECIMAL(38,s) */
		rc_canon(out, t, d, &sum_type, combined);
	} else {
		floe_buf_printf(out, "(%s)%s", combined, pg ? "::text" : "::VARCHAR");
	}
	floe_buf_printf(out, " AS v%zu", i);
}
