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
 * with '|', NULL as 'N'. Strings carry their byte length ("3:abc") and lists their
 * count, so no content can imitate a separator, and '' ("0:") differs from NULL ("N").
 * A struct (a composite type) is its fields' texts in parentheses; PostgreSQL reads
 * records by position through row_to_json, since the extraction may have rebuilt
 * them as anonymous ROW(…)s.
 */
#include "reconcile/reconcile_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/pghash.h"
#include "base/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

static const char *map_type(rc_type *out, floe_arena *arena, floe_buf *duck, const floe_lock_type *lt,
			    const char *path, bool padded);

/*
 * A struct (a composite type): DuckDB's STRUCT("name" TYPE, …). DuckDB matches a
 * struct's fields in a Parquet file by name (case-insensitively), not by field id
 * (tried: a field renamed in the schema given to read_parquet reads NULL, reordered
 * fields read right); the lock keeps a nested field's id while its name stays, so a
 * name stands for one id (lake.c checks each file's ids against the lock's).
 */
static const char *map_struct(rc_type *out, floe_arena *arena, floe_buf *duck, const floe_lock_type *lt,
			      const char *path)
{
	rc_field *fields = floe_arena_alloc(arena, (lt->n_fields + 1) * sizeof(rc_field));
	floe_buf_puts(duck, "STRUCT(");
	for (size_t i = 0; i < lt->n_fields; i++) {
		const floe_lock_field *lf = &lt->fields[i];
		for (size_t j = 0; j < i; j++)
			if (strcasecmp(lt->fields[j].name, lf->name) == 0)
				return floe_arena_printf(arena, "%s: fields \"%s\" and \"%s\" differ only in case, "
							 "which a DuckDB struct cannot hold", path, lt->fields[j].name, lf->name);
		fields[i].name = lf->name;
		fields[i].field_id = lf->id;
		floe_buf_puts(duck, i ? ", " : "");
		floe_buf_put_quoted(duck, lf->name, '"');
		floe_buf_putc(duck, ' ');
		const char *why = map_type(&fields[i].type, arena, duck, lf->type,
					   floe_arena_printf(arena, "%s.%s", path, lf->name), false);
		if (why)
			return why;
	}
	floe_buf_putc(duck, ')');
	out->kind = RC_STRUCT;
	out->fields = fields;
	out->n_fields = lt->n_fields;
	return lt->n_fields ? NULL : floe_arena_printf(arena, "%s: a struct without fields", path);
}

/*
 * `out` for the lock's type `lt` of the value at `path` ("p.at"), its DuckDB type
 * appended to `duck`. NULL, or why DuckDB cannot read it (the column is then not read).
 * `padded`: a string that is character(n) at the source.
 */
static const char *map_type(rc_type *out, floe_arena *arena, floe_buf *duck, const floe_lock_type *lt,
			    const char *path, bool padded)
{
	memset(out, 0, sizeof(*out));
	out->kind = RC_OTHER;
	if (!lt)
		return floe_arena_printf(arena, "%s: no type", path);
	if (lt->kind == FLOE_PLAN_STRUCT)
		return map_struct(out, arena, duck, lt, path);
	if (lt->kind == FLOE_PLAN_LIST) {
		rc_type *el = floe_arena_alloc(arena, sizeof(*el));
		if (lt->element && lt->element->kind == FLOE_PLAN_LIST)
			return floe_arena_printf(arena, "%s: a list of lists", path);
		const char *why = map_type(el, arena, duck, lt->element, floe_arena_printf(arena, "%s.element", path),
					   padded);
		if (why)
			return why;
		floe_buf_puts(duck, "[]");
		out->kind = RC_LIST;
		out->element = el;
		return NULL;
	}
	const char *name = parse_primitive(out, arena, lt->primitive);
	if (!name)
		return floe_arena_printf(arena, "%s: %s, a type reconciliation does not compare yet", path,
					 lt->primitive ? lt->primitive : "?");
	floe_buf_puts(duck, name);
	out->padded = padded;
	return NULL;
}

/* Map one lock column; `oid`/`elem` are the source's result types. */
static void map_column(rc_column *c, floe_arena *arena, const floe_lock_column *lc, uint32_t oid, uint32_t elem)
{
	const floe_lock_type *lt = lc->type;
	floe_buf duck = FLOE_BUF_INIT;
	c->name = lc->name;
	c->field_id = lc->id;
	snprintf(c->ident, sizeof(c->ident), "c%d", lc->id);
	bool padded = (lt && lt->kind == FLOE_PLAN_LIST ? elem : oid) == OID_BPCHAR;
	const char *why = map_type(&c->type, arena, &duck, lt, lc->name, padded);
	if (why) {
		c->type.kind = RC_OTHER;
		c->excluded = floe_arena_printf(arena, "%s (not read)", why);
	} else {
		c->duck_type = floe_arena_strdup(arena, floe_buf_cstr(&duck));
	}
	c->hashed = c->excluded == NULL;
	floe_buf_free(&duck);
}

bool rc_type_holds_struct(const rc_type *type)
{
	return type->kind == RC_STRUCT || (type->kind == RC_LIST && rc_type_holds_struct(type->element));
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
			/* a float key would be listed as text, which the two engines print differently */
			if (strcmp(out->cols[i].name, lock->key[k]) == 0 && out->cols[i].hashed &&
			    !is_float(out->cols[i].type.kind)) {
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

static void canon(floe_buf *out, rc_dialect d, const rc_type *type, const char *e, int depth);

static void canon_json(floe_buf *out, const rc_type *type, const char *j, int depth);

/*
 * A list: "<n>:" and its elements' texts joined with ',', NULL as 'N'. Aliases and
 * lambda parameters carry the depth: a list in a struct in a list names its own.
 * PostgreSQL's unnest() would spread composite elements into columns: an array of
 * them is read as JSON, like the composites themselves (canon_json).
 * A PostgreSQL array with a lower bound other than 1 or more than one dimension, which
 * no list can carry, is prefixed with its dimensions ("[0:1]:"), so it equals no list.
 */
static void canon_list(floe_buf *out, rc_dialect d, const rc_type *type, const char *e, int depth)
{
	const rc_type *el = type->element;
	char x[24];
	if (d == RC_PG)
		floe_buf_printf(out, "(CASE WHEN array_lower(%s, 1) <> 1 OR array_ndims(%s) > 1 THEN array_dims(%s) || ':' "
				     "ELSE '' END || ", e, e, e);
	if (d == RC_PG && el->kind == RC_STRUCT) {
		floe_buf j = FLOE_BUF_INIT;
		floe_buf_printf(&j, "array_to_json(%s)", e);
		canon_json(out, type, floe_buf_cstr(&j), depth);
		floe_buf_free(&j);
	} else if (d == RC_PG) {
		snprintf(x, sizeof(x), "u%d.e", depth);
		floe_buf_printf(out, "(SELECT cardinality(%s)::text || ':' || coalesce(string_agg(coalesce(", e);
		canon(out, d, el, x, depth + 1);
		floe_buf_printf(out, ", 'N'), ',' ORDER BY u%d.o), '') FROM unnest(%s) WITH ORDINALITY AS u%d(e, o))", depth,
				e, depth);
	} else {
		snprintf(x, sizeof(x), "e%d", depth);
		floe_buf_printf(out, "(CAST(len(%s) AS VARCHAR) || ':' || array_to_string(list_transform(%s, lambda %s: coalesce(",
				e, e, x);
		canon(out, d, el, x, depth + 1);
		floe_buf_puts(out, ", 'N')), ','))");
	}
	if (d == RC_PG)
		floe_buf_putc(out, ')');
}

/* The PostgreSQL type a composite's leaf is read back as from its JSON text; NULL: text as it is. */
static const char *json_leaf_cast(rc_kind k)
{
	switch (k) {
	case RC_BOOL: return "boolean";
	case RC_FLOAT: return "float4"; /* the JSON holds float4out's text: exact as a float4 */
	case RC_DOUBLE: return "float8";
	case RC_INT: return "int4";
	case RC_LONG: return "int8";
	case RC_DECIMAL: return "numeric";
	case RC_BINARY: return "bytea";
	case RC_DATE: return "date";
	case RC_TIME: return "time";
	case RC_TIMESTAMP: return "timestamp";
	case RC_TIMESTAMPTZ: return "timestamptz";
	case RC_UUID: return "uuid";
	default: return NULL;
	}
}

/*
 * PostgreSQL: the canonical text of `j`, a composite's field as row_to_json() gives it.
 * The extraction rebuilds a composite with a converted attribute as an anonymous ROW(…),
 * whose fields have no names to select: row_to_json (json, not jsonb: attribute order
 * kept) reads named and anonymous records alike, by position. A NULL record is JSON null,
 * a record of NULLs an object of nulls; each leaf is read back from its JSON text as its
 * type (the text PostgreSQL's output function wrote: exact), arrays and records nested
 * in it stay JSON.
 */
static void canon_json(floe_buf *out, const rc_type *type, const char *j, int depth)
{
	char x[24];
	if (type->kind == RC_STRUCT) {
		snprintf(x, sizeof(x), "f%d.v", depth);
		floe_buf_printf(out, "(CASE WHEN json_typeof(%s) = 'object' THEN (SELECT '(' || string_agg(coalesce(CASE f%d.o",
				j, depth);
		for (size_t i = 0; i < type->n_fields; i++) {
			floe_buf_printf(out, " WHEN %zu THEN ", i + 1);
			canon_json(out, &type->fields[i].type, x, depth + 1);
		}
		floe_buf_printf(out, " END, 'N'), ',' ORDER BY f%d.o) || ')' "
				     "FROM json_each(%s) WITH ORDINALITY AS f%d(k, v, o)) END)", depth, j, depth);
	} else if (type->kind == RC_LIST) {
		snprintf(x, sizeof(x), "a%d.e", depth);
		floe_buf_printf(out, "(CASE WHEN json_typeof(%s) = 'array' THEN (SELECT json_array_length(%s)::text || ':' || "
				     "coalesce(string_agg(coalesce(", j, j);
		canon_json(out, type->element, x, depth + 1);
		floe_buf_printf(out, ", 'N'), ',' ORDER BY a%d.o), '') "
				     "FROM json_array_elements(%s) WITH ORDINALITY AS a%d(e, o)) END)", depth, j, depth);
	} else {
		floe_buf v = FLOE_BUF_INIT;
		const char *cast = json_leaf_cast(type->kind);
		floe_buf_printf(&v, "(%s #>> '{}')", j);
		if (cast)
			floe_buf_printf(&v, "::%s", cast);
		canon(out, RC_PG, type, floe_buf_cstr(&v), depth + 1);
		floe_buf_free(&v);
	}
}

/*
 * A struct: '(' and its fields' texts in order, joined with ',', NULL as 'N', and ')';
 * NULL for a NULL struct (a struct of NULLs is "(N,N)"). DuckDB reads each field by its
 * position, PostgreSQL through row_to_json (canon_json).
 */
static void canon_struct(floe_buf *out, rc_dialect d, const rc_type *type, const char *e, int depth)
{
	floe_buf field = FLOE_BUF_INIT;
	if (d == RC_PG) {
		floe_buf_printf(&field, "row_to_json(%s)", e);
		canon_json(out, type, floe_buf_cstr(&field), depth);
		floe_buf_free(&field);
		return;
	}
	floe_buf_printf(out, "(CASE WHEN %s IS NOT NULL THEN '('", e);
	for (size_t i = 0; i < type->n_fields; i++) {
		floe_buf_clear(&field);
		floe_buf_printf(&field, "struct_extract_at(%s, %zu)", e, i + 1);
		floe_buf_puts(out, i ? " || ',' || coalesce(" : " || coalesce(");
		canon(out, d, &type->fields[i].type, floe_buf_cstr(&field), depth + 1);
		floe_buf_puts(out, ", 'N')");
	}
	floe_buf_puts(out, " || ')' END)");
	floe_buf_free(&field);
}

void rc_canon(floe_buf *out, rc_dialect d, const rc_type *type, const char *e)
{
	canon(out, d, type, e, 0);
}

/*
 * `e`'s canonical text at `depth` (0: a column's value; deeper: inside a list or a
 * struct). Floating point inside a list or a composite stands as its typed hash's
 * decimal digits (hashfloat8extended / hashfloat4extended under seed 0, NULL as NULL):
 * the two engines print doubles differently, but hash their bits alike (±0 alike, every
 * NaN alike, as PostgreSQL's = does).
 */
static void canon(floe_buf *out, rc_dialect d, const rc_type *type, const char *e, int depth)
{
	bool pg = d == RC_PG;
	const char *as_text = pg ? "::text" : "::VARCHAR";
	switch (type->kind) {
	case RC_BOOL:
		floe_buf_printf(out, "(CASE WHEN %s THEN 't' WHEN NOT %s THEN 'f' END)", e, e);
		break;
	case RC_FLOAT:
	case RC_DOUBLE:
		if (depth > 0) { /* the engines print floats differently: the value's hash stands for it */
			floe_buf_printf(out, "(%s(%s, 0))%s", type->kind == RC_FLOAT ? "hashfloat4extended"
					: "hashfloat8extended", e, as_text);
			break;
		}
		/* fall through */
	case RC_INT:
	case RC_LONG:
	case RC_UUID:
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
		canon_list(out, d, type, e, depth);
		break;
	case RC_STRUCT:
		canon_struct(out, d, type, e, depth);
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
		if (!c->hashed || (!t->key_is_row && !c->key) || is_float(c->type.kind))
			continue; /* floats: the two engines print them differently (the row's hash has them) */
		if (n++ == 0 && d == RC_DUCK)
			floe_buf_puts(out, "concat_ws('|', ");
		else if (n > 1)
			floe_buf_puts(out, d == RC_PG ? " || '|' || " : ", ");
		floe_buf_puts(out, "coalesce(");
		rc_canon(out, d, &c->type, c->ident);
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
 * uuid, text, floating point — whose hash sees the value's bits, 0 and -0 alike and
 * every NaN alike, as PostgreSQL's = does), else hashtextextended of the canonical text (decimals, binary, lists,
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
	case RC_STRUCT:
		floe_buf_puts(out, "hashtextextended(");
		if (pg && c->type.kind == RC_DECIMAL) /* free when the source's type is numeric(P,S) already */
			floe_buf_printf(out, "(%s)::numeric(%d,%d)::text", e, c->type.precision, c->type.scale);
		else if (c->type.kind == RC_STRING) /* the bytes, whatever the column's collation */
			string_value(out, d, &c->type, e);
		else
			rc_canon(out, d, &c->type, e);
		if (pg && c->type.kind == RC_STRING)
			floe_buf_puts(out, "::text COLLATE \"C\"");
		floe_buf_printf(out, ", %lld)", s);
		break;
	case RC_FLOAT: /* PostgreSQL's hashfloat4extended widens to double: the DuckDB twin does too */
	case RC_DOUBLE:
		floe_buf_printf(out, "%s(%s, %lld)", c->type.kind == RC_FLOAT ? "hashfloat4extended" : "hashfloat8extended",
				e, s);
		break;
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

/* One column's hash under `seed`, NULL as its column's constant. */
static void column_hash(floe_buf *out, const rc_table *t, rc_dialect d, const rc_column *c, int64_t seed)
{
	floe_buf_puts(out, "coalesce(");
	value_hash(out, t, d, c, column_number(c, seed));
	floe_buf_printf(out, ", %lld)", (long long)column_number(c, seed ^ SEED_NULL));
}

/*
 * The XOR of the columns `idx[0..n)` as a balanced tree: a table of 1 600 columns nests
 * about 11 deep, within DuckDB's expression depth (1 000) and PostgreSQL's stack. XOR is
 * associative: the shape never changes the value.
 */
static void xor_tree(floe_buf *out, const rc_table *t, rc_dialect d, const size_t *idx, size_t n, int64_t seed)
{
	if (n == 1) {
		column_hash(out, t, d, &t->cols[idx[0]], seed);
		return;
	}
	floe_buf_puts(out, d == RC_PG ? "(" : "xor(");
	xor_tree(out, t, d, idx, n / 2, seed);
	floe_buf_puts(out, d == RC_PG ? " # " : ", ");
	xor_tree(out, t, d, idx + n / 2, n - n / 2, seed);
	floe_buf_putc(out, ')');
}

/* The XOR of `which` columns' value hashes under `seed`, each NULL as its column's constant; 0 for none. */
static void xor_hashes(floe_buf *out, const rc_table *t, rc_dialect d, part which, int64_t seed)
{
	size_t *idx = floe_xcalloc(t->n + 1, sizeof(size_t));
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++)
		if (in_part(t, &t->cols[i], which))
			idx[n++] = i;
	if (n == 0)
		floe_buf_puts(out, "0");
	else
		xor_tree(out, t, d, idx, n, seed);
	free(idx);
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

void rc_row_rest_hash_covered(floe_buf *out, const rc_table *t, rc_dialect d, int64_t buckets)
{
	if (!t->cover) {
		rc_row_rest_hash(out, t, d);
		return;
	}
	floe_buf_puts(out, "CASE WHEN ");
	rc_bucket_expr(out, t, d, buckets);
	floe_buf_printf(out, "%s THEN ", t->cover);
	rc_row_rest_hash(out, t, d);
	floe_buf_puts(out, " ELSE 0 END");
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
		rc_canon(out, d, &sum_type, combined);
	} else {
		floe_buf_printf(out, "(%s)%s", combined, pg ? "::text" : "::VARCHAR");
	}
	floe_buf_printf(out, " AS v%zu", i);
}
