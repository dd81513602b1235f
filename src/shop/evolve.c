/*
 * evolve.c — floe_shop_evolve: one realistic schema change, in a transaction,
 * reported with the DDL it ran. These are the changes floe's schema-change
 * handling is tested against.
 *
 * Each kind plans its statements from the catalog as it is now (so a change
 * can follow another: renaming a column already renamed picks another), then
 * everything runs in one transaction. A kind that cannot apply to the table
 * asked for says why (usage error) and changes nothing.
 */
#include "shop/shop_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COLUMNS 64
#define NAME_MAX_LEN 64

typedef struct column {
	char name[NAME_MAX_LEN];
	char type[64];     /* as written: "varchar(20)", "numeric(10,2)", "integer", "timestamptz" */
	bool key;          /* in the primary key, a unique key or a foreign key */
	bool pk;
	bool not_null;
} column;

/* An identifier as PostgreSQL's quote_ident writes it: quoted only when it must be. */
typedef struct ident {
	char s[2 * NAME_MAX_LEN + 3];
} ident;

static int quote(ident *out, floe_pg *pg, const char *name)
{
	floe_buf q = FLOE_BUF_INIT;
	const char *params[1] = { name };
	int error = shop_value(&q, NULL, pg, "SELECT quote_ident($1)", 1, params);
	snprintf(out->s, sizeof(out->s), "%s", floe_buf_cstr(&q));
	floe_buf_free(&q);
	return error;
}

typedef struct evolve {
	floe_pg *pg;
	const char *schema;
	const char *table;
	column cols[MAX_COLUMNS];
	int n_cols;
	bool referenced;   /* another table's foreign key points at this one */
	ident qt;          /* the table, quoted */
	floe_buf *ddl;
	floe_buf *summary;
} evolve;

typedef int (*plan_fn)(evolve *e);

/* ---- the catalog ---- */

static int table_exists(bool *out, floe_pg *pg, const char *schema, const char *table)
{
	const char *params[2] = { schema, table };
	return shop_value(NULL, out, pg,
			  "SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
			  "WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r', 'p')",
			  2, params);
}

/* format_type's long names in the short forms people write: "character varying(20)" → "varchar(20)". */
static void normalize_type(char *out, size_t cap, const char *type)
{
	static const char *const forms[] = {
		"character varying", "varchar", "character", "char", "timestamp without time zone", "timestamp",
		"timestamp with time zone", "timestamptz", NULL,
	};
	for (int i = 0; forms[i]; i += 2) {
		size_t n = strlen(forms[i]);
		if (strncmp(type, forms[i], n) == 0 && (type[n] == '\0' || type[n] == '(' || type[n] == '[')) {
			snprintf(out, cap, "%s%s", forms[i + 1], type + n);
			return;
		}
	}
	snprintf(out, cap, "%s", type);
}

static int load_columns(evolve *e)
{
	static const char sql[] =
		"SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, "
		"EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conrelid = a.attrelid AND c.contype IN ('p', 'u', 'f') "
		"AND a.attnum = ANY (c.conkey)), "
		"EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conrelid = a.attrelid AND c.contype = 'p' "
		"AND a.attnum = ANY (c.conkey)), "
		"EXISTS (SELECT 1 FROM pg_constraint c WHERE c.confrelid = a.attrelid AND c.contype = 'f') "
		"FROM pg_attribute a WHERE a.attrelid = (quote_ident($1) || '.' || quote_ident($2))::regclass "
		"AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum";
	floe_pg_result *r = NULL;
	const char *params[2] = { e->schema, e->table };
	if (floe_pg_query(&r, e->pg, sql, 2, params) < 0)
		return -1;
	e->n_cols = floe_pg_result_rows(r) < MAX_COLUMNS ? floe_pg_result_rows(r) : MAX_COLUMNS;
	for (int i = 0; i < e->n_cols; i++) {
		column *c = &e->cols[i];
		snprintf(c->name, sizeof(c->name), "%s", floe_pg_result_text(r, i, 0));
		normalize_type(c->type, sizeof(c->type), floe_pg_result_text(r, i, 1));
		c->not_null = floe_pg_result_bool(r, i, 2);
		c->key = floe_pg_result_bool(r, i, 3);
		c->pk = floe_pg_result_bool(r, i, 4);
		e->referenced = e->referenced || floe_pg_result_bool(r, i, 5);
	}
	floe_pg_result_free(r);
	return 0;
}

static const column *find_column(const evolve *e, const char *name)
{
	for (int i = 0; i < e->n_cols; i++)
		if (strcmp(e->cols[i].name, name) == 0)
			return &e->cols[i];
	return NULL;
}

/* A column name not yet taken: `base`, else base_2, base_3, … */
static void fresh_name(char out[NAME_MAX_LEN], const evolve *e, const char *base)
{
	snprintf(out, NAME_MAX_LEN, "%s", base);
	for (int k = 2; find_column(e, out) && k < 100; k++)
		snprintf(out, NAME_MAX_LEN, "%.50s_%d", base, k);
}

/* The per-table choice of `map` (pairs of table, value; NULL-terminated), else NULL. */
static const char *for_table(const char *const *map, const char *table)
{
	for (; map[0]; map += 2)
		if (strcmp(map[0], table) == 0)
			return map[1];
	return NULL;
}

/* The first non-key column whose type starts with `prefix`; `preferred` first when it qualifies. */
static const column *pick_column(const evolve *e, const char *preferred, const char *prefix)
{
	const column *c = preferred ? find_column(e, preferred) : NULL;
	if (c && !c->key && strncmp(c->type, prefix, strlen(prefix)) == 0)
		return c;
	for (int i = 0; i < e->n_cols; i++)
		if (!e->cols[i].key && strncmp(e->cols[i].type, prefix, strlen(prefix)) == 0 &&
		    strcmp(e->cols[i].name, "updated_at") != 0)
			return &e->cols[i];
	return NULL;
}

static int not_applicable(const evolve *e, const char *why)
{
	floe_error_set(FLOE_ERR_USAGE, "cannot apply this change to table \"%s\": %s", e->table, why);
	floe_error_hint("Pick another table with --table, or see `floe shop evolve --list`.");
	return -1;
}

/* Append one statement to the plan. */
static void stmt(evolve *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void stmt(evolve *e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	floe_buf_vprintf(e->ddl, fmt, ap);
	va_end(ap);
	floe_buf_puts(e->ddl, ";\n");
}

static void say(evolve *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(evolve *e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	floe_buf_vprintf(e->summary, fmt, ap);
	va_end(ap);
}

/* "name type…" → name and the rest. */
static void split_spec(char name[NAME_MAX_LEN], const char **rest, const char *spec)
{
	size_t n = strcspn(spec, " ");
	snprintf(name, NAME_MAX_LEN, "%.*s", (int)n, spec);
	*rest = spec[n] ? spec + n + 1 : "";
}

/* ---- columns added ---- */

static int add_column(evolve *e, const char *spec, const char *fallback, const char *what)
{
	char base[NAME_MAX_LEN], name[NAME_MAX_LEN];
	const char *type;
	ident q;
	split_spec(base, &type, spec ? spec : fallback);
	fresh_name(name, e, base);
	if (quote(&q, e->pg, name) < 0)
		return -1;
	stmt(e, "ALTER TABLE %s ADD COLUMN %s %s", e->qt.s, q.s, type);
	say(e, "added %s column %s.%s (%s)", what, e->table, name, type);
	return 0;
}

static int plan_add_column(evolve *e)
{
	static const char *const specs[] = {
		"customers", "customer_phone varchar(20)",
		"orders", "order_coupon_code varchar(32)",
		"order_items", "item_gift_wrap boolean",
		"payments", "payment_gateway varchar(32)",
		"reviews", "review_helpful_votes integer",
		"products", "product_ean varchar(14)",
		"sellers", "seller_rating numeric(3,2)",
		"geolocation", "geolocation_region varchar(16)",
		"product_categories", "product_category_parent varchar(64)",
		NULL,
	};
	return add_column(e, for_table(specs, e->table), "note text", "nullable");
}

static int plan_add_not_null(evolve *e)
{
	static const char *const specs[] = {
		"orders", "order_channel varchar(16) NOT NULL DEFAULT 'web'",
		"customers", "customer_segment varchar(16) NOT NULL DEFAULT 'retail'",
		"payments", "payment_currency char(3) NOT NULL DEFAULT 'BRL'",
		"order_items", "item_quantity smallint NOT NULL DEFAULT 1",
		"reviews", "review_source varchar(16) NOT NULL DEFAULT 'email'",
		"products", "product_active boolean NOT NULL DEFAULT true",
		"sellers", "seller_tier varchar(16) NOT NULL DEFAULT 'standard'",
		NULL,
	};
	return add_column(e, for_table(specs, e->table), "revision integer NOT NULL DEFAULT 1", "NOT NULL");
}

/* ---- columns renamed and dropped ---- */

/* The last column that is not part of a key nor the watermark; NULL when none. */
static const column *last_plain_column(const evolve *e)
{
	for (int i = e->n_cols - 1; i >= 0; i--)
		if (!e->cols[i].key && strcmp(e->cols[i].name, "updated_at") != 0)
			return &e->cols[i];
	return NULL;
}

static int plan_rename(evolve *e)
{
	static const char *const specs[] = {
		"customers", "customer_zip_code_prefix customer_postal_code_prefix",
		"orders", "order_delivered_carrier_date order_shipped_at",
		"order_items", "freight_value shipping_cost",
		"payments", "payment_value payment_amount",
		"reviews", "review_comment_message review_comment",
		"products", "product_photos_qty product_photo_count",
		"sellers", "seller_city seller_city_name",
		"geolocation", "geolocation_lat geolocation_latitude",
		"product_categories", "product_category_name_english product_category_label_en",
		NULL,
	};
	char from[NAME_MAX_LEN], base[NAME_MAX_LEN], to[NAME_MAX_LEN];
	const char *spec = for_table(specs, e->table), *rest = "";
	if (spec)
		split_spec(from, &rest, spec);
	if (!spec || !find_column(e, from)) {
		const column *c = last_plain_column(e);
		if (!c)
			return not_applicable(e, "every column is part of a key");
		snprintf(from, sizeof(from), "%s", c->name);
		snprintf(base, sizeof(base), "%.50s_renamed", c->name);
		rest = base;
	}
	fresh_name(to, e, rest);
	ident qf, qto;
	if (quote(&qf, e->pg, from) < 0 || quote(&qto, e->pg, to) < 0)
		return -1;
	stmt(e, "ALTER TABLE %s RENAME COLUMN %s TO %s", e->qt.s, qf.s, qto.s);
	say(e, "renamed column %s.%s to %s", e->table, from, to);
	return 0;
}

static int plan_drop(evolve *e)
{
	static const char *const specs[] = {
		"products", "product_description_length",
		"customers", "customer_email",
		"orders", "order_delivered_carrier_date",
		"order_items", "shipping_limit_date",
		"payments", "payment_installments",
		"reviews", "review_comment_title",
		"sellers", "seller_joined_on",
		"geolocation", "geolocation_city",
		"product_categories", "product_category_name_english",
		NULL,
	};
	const char *name = for_table(specs, e->table);
	const column *c = name ? find_column(e, name) : NULL;
	if (!c)
		c = last_plain_column(e);
	if (!c)
		return not_applicable(e, "every column is part of a key");
	ident q;
	if (quote(&q, e->pg, c->name) < 0)
		return -1;
	stmt(e, "ALTER TABLE %s DROP COLUMN %s", e->qt.s, q.s);
	say(e, "dropped column %s.%s (%s)", e->table, c->name, c->type);
	return 0;
}

/* ---- types changed ---- */

static int alter_type(evolve *e, const column *c, const char *to, const char *what)
{
	ident q;
	if (quote(&q, e->pg, c->name) < 0)
		return -1;
	stmt(e, "ALTER TABLE %s ALTER COLUMN %s TYPE %s", e->qt.s, q.s, to);
	say(e, "%s %s.%s from %s to %s", what, e->table, c->name, c->type, to);
	return 0;
}

/* Like pick_column, falling back to key columns (widening a key is a change real schemas see). */
static const column *pick_any(const evolve *e, const char *preferred, const char *prefix)
{
	const column *c = pick_column(e, preferred, prefix);
	for (int i = 0; !c && i < e->n_cols; i++)
		if (strncmp(e->cols[i].type, prefix, strlen(prefix)) == 0)
			c = &e->cols[i];
	return c;
}

/* The numbers in "varchar(20)" or "numeric(10,2)"; missing ones are 0. */
static void type_args(int64_t *a, int64_t *b, const char *type)
{
	const char *open = strchr(type, '(');
	*a = *b = 0;
	if (!open)
		return;
	const char *comma = strchr(open, ',');
	size_t n = strcspn(open + 1, ",)");
	floe_text_parse_int64(a, open + 1, n, 0, 100000);
	if (comma)
		floe_text_parse_int64(b, comma + 1, strcspn(comma + 1, ")"), 0, 1000);
}

static int plan_widen_int(evolve *e)
{
	static const char *const preferred[] = {
		"products", "product_weight_g", "customers", "customer_zip_code_prefix",
		"sellers", "seller_zip_code_prefix", "reviews", "review_helpful_votes", NULL,
	};
	const column *c = pick_any(e, for_table(preferred, e->table), "integer");
	if (!c)
		return not_applicable(e, "it has no integer column");
	return alter_type(e, c, "bigint", "widened");
}

static int plan_widen_varchar(evolve *e)
{
	static const char *const preferred[] = {
		"payments", "payment_type", "customers", "customer_city", "sellers", "seller_city",
		"reviews", "review_comment_title", "geolocation", "geolocation_city", NULL,
	};
	const column *c = pick_column(e, for_table(preferred, e->table), "varchar(");
	if (!c)
		return not_applicable(e, "it has no varchar(n) column outside its keys");
	int64_t n, unused;
	char to[48];
	type_args(&n, &unused, c->type);
	snprintf(to, sizeof(to), "varchar(%lld)", (long long)n + 30);
	return alter_type(e, c, to, "widened");
}

static int plan_widen_numeric(evolve *e)
{
	static const char *const preferred[] = { "order_items", "price", "payments", "payment_value", NULL };
	const column *c = pick_column(e, for_table(preferred, e->table), "numeric(");
	if (!c)
		return not_applicable(e, "it has no numeric(p,s) column outside its keys");
	int64_t p, scale;
	char to[48];
	type_args(&p, &scale, c->type);
	snprintf(to, sizeof(to), "numeric(%lld,%lld)", (long long)p + 2, (long long)scale);
	return alter_type(e, c, to, "widened");
}

/* The longest value (characters) or the largest magnitude of column `c`. */
static int column_extent(int64_t *out, evolve *e, const column *c, bool text)
{
	ident q;
	floe_buf sql = FLOE_BUF_INIT;
	floe_pg_result *r = NULL;
	int error = -1;
	if (quote(&q, e->pg, c->name) < 0)
		return -1;
	floe_buf_printf(&sql, text ? "SELECT coalesce(max(length(%s)), 0) FROM %s"
				   : "SELECT coalesce(max(ceil(abs(%s))), 0)::numeric(40,0)::text FROM %s",
			q.s, e->qt.s);
	if (floe_pg_query(&r, e->pg, floe_buf_cstr(&sql), 0, NULL) == 0) {
		const char *v = floe_pg_result_text(r, 0, 0);
		if (floe_text_parse_int64(out, v, strlen(v), 0, INT64_MAX) < 0)
			*out = INT64_MAX;
		error = 0;
	}
	floe_pg_result_free(r);
	floe_buf_free(&sql);
	return error;
}

static int narrow_varchar(evolve *e, const column *c)
{
	int64_t n, unused, longest;
	char to[48];
	type_args(&n, &unused, c->type);
	if (column_extent(&longest, e, c, true) < 0)
		return -1;
	int64_t m = (n * 3 + 4) / 5 > longest ? (n * 3 + 4) / 5 : longest;
	if (m >= n)
		return not_applicable(e, "its values already need every character of its varchar columns");
	snprintf(to, sizeof(to), "varchar(%lld)", (long long)m);
	return alter_type(e, c, to, "narrowed");
}

static int plan_narrow(evolve *e)
{
	static const char *const preferred[] = {
		"sellers", "seller_city", "customers", "customer_city", "geolocation", "geolocation_city",
		"reviews", "review_comment_title", "payments", "payment_type", NULL,
	};
	const column *c = pick_column(e, for_table(preferred, e->table), "varchar(");
	if (c)
		return narrow_varchar(e, c);
	int64_t largest;
	if ((c = pick_column(e, NULL, "bigint")) != NULL) {
		if (column_extent(&largest, e, c, false) < 0)
			return -1;
		if (largest <= INT32_MAX)
			return alter_type(e, c, "integer", "narrowed");
	}
	return not_applicable(e, "it has no varchar(n) or bigint column outside its keys whose values fit a narrower type");
}

/* ---- keys, tables, triggers, enums ---- */

/* The primary key's name and columns ("a, b"). */
static int primary_key(floe_buf *name, floe_buf *cols, evolve *e)
{
	floe_pg_result *r = NULL;
	const char *params[2] = { e->schema, e->table };
	if (floe_pg_query(&r, e->pg,
			  "SELECT c.conname, string_agg(quote_ident(a.attname), ', ' ORDER BY k.ord) "
			  "FROM pg_constraint c CROSS JOIN LATERAL unnest(c.conkey) WITH ORDINALITY k(attnum, ord) "
			  "JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum "
			  "WHERE c.conrelid = (quote_ident($1) || '.' || quote_ident($2))::regclass AND c.contype = 'p' "
			  "GROUP BY c.conname",
			  2, params) < 0)
		return -1;
	if (floe_pg_result_rows(r) > 0) {
		floe_buf_puts(name, floe_pg_result_text(r, 0, 0));
		floe_buf_puts(cols, floe_pg_result_text(r, 0, 1));
	}
	floe_pg_result_free(r);
	return 0;
}

/* A composite natural key becomes a surrogate identity key (kept unique); a single one gains a column. */
static int plan_change_pk(evolve *e)
{
	static const char *const surrogate[] = { "payments", "payment_id", "order_items", "item_id", NULL };
	floe_buf name = FLOE_BUF_INIT, cols = FLOE_BUF_INIT;
	ident qname, qcol;
	int error = -1, n_pk = 0;
	for (int i = 0; i < e->n_cols; i++)
		n_pk += e->cols[i].pk;
	if (e->referenced || n_pk == 0) {
		not_applicable(e, n_pk ? "other tables' foreign keys reference its primary key" : "it has no primary key");
		goto cleanup;
	}
	if (primary_key(&name, &cols, e) < 0 || quote(&qname, e->pg, floe_buf_cstr(&name)) < 0)
		goto cleanup;
	char col[NAME_MAX_LEN];
	if (n_pk > 1) {
		const char *base = for_table(surrogate, e->table);
		fresh_name(col, e, base ? base : "id");
		if (quote(&qcol, e->pg, col) < 0)
			goto cleanup;
		stmt(e, "ALTER TABLE %s DROP CONSTRAINT %s", e->qt.s, qname.s);
		stmt(e, "ALTER TABLE %s ADD COLUMN %s bigint GENERATED BY DEFAULT AS IDENTITY", e->qt.s, qcol.s);
		stmt(e, "ALTER TABLE %s ADD CONSTRAINT %s PRIMARY KEY (%s)", e->qt.s, qname.s, qcol.s);
		stmt(e, "ALTER TABLE %s ADD UNIQUE (%s)", e->qt.s, floe_buf_cstr(&cols));
		say(e, "primary key of %s changed from (%s) to a surrogate identity column %s; (%s) stays unique",
		    e->table, floe_buf_cstr(&cols), col, floe_buf_cstr(&cols));
	} else {
		const column *c = NULL;
		for (int i = 0; i < e->n_cols && !c; i++)
			if (!e->cols[i].pk && e->cols[i].not_null && strcmp(e->cols[i].type, "uuid") == 0)
				c = &e->cols[i];
		if (!c) {
			not_applicable(e, "it has no NOT NULL uuid column to extend its key with");
			goto cleanup;
		}
		if (quote(&qcol, e->pg, c->name) < 0)
			goto cleanup;
		stmt(e, "ALTER TABLE %s DROP CONSTRAINT %s", e->qt.s, qname.s);
		stmt(e, "ALTER TABLE %s ADD CONSTRAINT %s PRIMARY KEY (%s, %s)", e->qt.s, qname.s, qcol.s,
		     floe_buf_cstr(&cols));
		say(e, "primary key of %s changed from (%s) to (%s, %s)", e->table, floe_buf_cstr(&cols), c->name,
		    floe_buf_cstr(&cols));
	}
	error = 0;
cleanup:
	floe_buf_free(&name);
	floe_buf_free(&cols);
	return error;
}

static int plan_add_table(evolve *e)
{
	stmt(e, "CREATE TABLE %s (promotion_id uuid PRIMARY KEY, seller_id uuid NOT NULL REFERENCES sellers, "
		"promotion_code varchar(32) NOT NULL UNIQUE, "
		"discount_pct numeric(5,2) NOT NULL CHECK (discount_pct > 0 AND discount_pct <= 90), "
		"starts_on date NOT NULL, ends_on date NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), "
		"CHECK (ends_on >= starts_on))", e->qt.s);
	stmt(e, "COMMENT ON TABLE %s IS 'Seller promotions: a discount code valid for a period.'", e->qt.s);
	stmt(e, "INSERT INTO %s (promotion_id, seller_id, promotion_code, discount_pct, starts_on, ends_on) "
		"SELECT md5('promotion ' || seller_id)::uuid, seller_id, 'PROMO' || upper(left(md5(seller_id::text), 8)), "
		"5 + get_byte(uuid_send(seller_id), 0) %% 30, date '2018-01-01' + get_byte(uuid_send(seller_id), 1), "
		"date '2018-01-31' + get_byte(uuid_send(seller_id), 1) FROM sellers ORDER BY seller_id LIMIT 50", e->qt.s);
	say(e, "created table %s (promotions: key, foreign key to sellers, unique code, CHECKs) with up to 50 rows",
	    e->table);
	return 0;
}

static int plan_drop_trigger(evolve *e)
{
	floe_pg_result *r = NULL;
	const char *params[2] = { e->schema, e->table };
	if (floe_pg_query(&r, e->pg,
			  "SELECT t.tgname FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid "
			  "WHERE t.tgrelid = (quote_ident($1) || '.' || quote_ident($2))::regclass AND NOT t.tgisinternal "
			  "AND p.proname = 'set_updated_at' ORDER BY 1",
			  2, params) < 0)
		return -1;
	int n = floe_pg_result_rows(r), error = 0;
	ident q;
	if (n == 0)
		error = not_applicable(e, "no trigger keeps its updated_at");
	for (int i = 0; i < n && error == 0; i++) {
		if ((error = quote(&q, e->pg, floe_pg_result_text(r, i, 0))) == 0) {
			stmt(e, "DROP TRIGGER %s ON %s", q.s, e->qt.s);
			say(e, "%sdropped trigger %s: %s.updated_at no longer moves on update", i ? "; " : "",
			    floe_pg_result_text(r, i, 0), e->table);
		}
	}
	floe_pg_result_free(r);
	return error;
}

static int plan_add_enum_value(evolve *e)
{
	static const char *const candidates[] = { "returned", "refunded", "disputed", "lost", NULL };
	floe_pg_result *r = NULL;
	const char *params[2] = { e->schema, e->table };
	if (floe_pg_query(&r, e->pg,
			  "SELECT a.atttypid::regtype::text, a.attname, (SELECT array_agg(enumlabel::text ORDER BY enumsortorder) "
			  "FROM pg_enum WHERE enumtypid = a.atttypid)::text FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid "
			  "WHERE a.attrelid = (quote_ident($1) || '.' || quote_ident($2))::regclass AND a.attnum > 0 "
			  "AND NOT a.attisdropped AND t.typtype = 'e' ORDER BY a.attnum LIMIT 1",
			  2, params) < 0)
		return -1;
	int error = 0;
	if (floe_pg_result_rows(r) == 0) {
		error = not_applicable(e, "it has no enum column");
	} else {
		const char *labels = floe_pg_result_text(r, 0, 2), *pick = NULL;
		char quoted[40];
		for (int i = 0; candidates[i] && !pick; i++) {
			snprintf(quoted, sizeof(quoted), ",%s,", candidates[i]);
			floe_buf padded = FLOE_BUF_INIT;
			floe_buf_printf(&padded, ",%.*s,", (int)strlen(labels) - 2, labels + 1);
			if (!strstr(floe_buf_cstr(&padded), quoted))
				pick = candidates[i];
			floe_buf_free(&padded);
		}
		if (!pick) {
			error = not_applicable(e, "its enum already has every value this change adds");
		} else {
			stmt(e, "ALTER TYPE %s ADD VALUE '%s'", floe_pg_result_text(r, 0, 0), pick);
			say(e, "added value '%s' to enum %s (column %s.%s)", pick, floe_pg_result_text(r, 0, 0), e->table,
			    floe_pg_result_text(r, 0, 1));
		}
	}
	floe_pg_result_free(r);
	return error;
}

/* ---- the kinds ---- */

static const floe_shop_change_kind kinds[] = {
	{ "add-column", "add a nullable column", "customers" },
	{ "add-column-not-null", "add a NOT NULL column with a default", "orders" },
	{ "rename-column", "rename a column", "order_items" },
	{ "drop-column", "drop a column", "products" },
	{ "widen-int", "widen integer to bigint", "products" },
	{ "widen-varchar", "widen varchar(n) to varchar(n+30), e.g. varchar(20) to varchar(50)", "payments" },
	{ "widen-numeric", "widen numeric(p,s) to numeric(p+2,s), e.g. numeric(10,2) to numeric(12,2)", "order_items" },
	{ "narrow-type", "narrow varchar(n) to the length its values need (or bigint to integer)", "sellers" },
	{ "change-pk", "change the primary key (composite to a surrogate identity key, or extend a single one)",
	  "payments" },
	{ "add-table", "add a table (promotions, with a foreign key to sellers and rows)", "promotions" },
	{ "drop-trigger", "drop the trigger behind an updated_at watermark", "orders" },
	{ "add-enum-value", "add a value to an enum type (order_status)", "orders" },
};

static const plan_fn plans[] = {
	plan_add_column, plan_add_not_null, plan_rename, plan_drop, plan_widen_int, plan_widen_varchar,
	plan_widen_numeric, plan_narrow, plan_change_pk, plan_add_table, plan_drop_trigger, plan_add_enum_value,
};

#define N_KINDS ((int)(sizeof(kinds) / sizeof(kinds[0])))
#define ADD_TABLE 9

const floe_shop_change_kind *floe_shop_evolve_kinds(int *n_out)
{
	*n_out = N_KINDS;
	return kinds;
}

static int find_kind(const char *name)
{
	const char *names[N_KINDS + 1];
	for (int i = 0; i < N_KINDS; i++) {
		if (strcmp(kinds[i].name, name) == 0)
			return i;
		names[i] = kinds[i].name;
	}
	names[N_KINDS] = NULL;
	const char *near = floe_text_suggest(name, names);
	if (near)
		floe_error_set(FLOE_ERR_USAGE, "unknown change kind \"%s\" — did you mean \"%s\"?", name, near);
	else
		floe_error_set(FLOE_ERR_USAGE, "unknown change kind \"%s\"", name);
	floe_error_hint("`floe shop evolve --list` shows the kinds.");
	return -1;
}

/* Run the planned statements (one per line) in one transaction. */
static int apply(floe_pg *pg, const floe_buf *ddl)
{
	if (floe_pg_begin(pg) < 0)
		return -1;
	const char *p = floe_buf_cstr(ddl);
	while (*p) {
		const char *end = strstr(p, ";\n");
		char *one = floe_xstrndup(p, (size_t)(end - p));
		int rc = floe_pg_exec(pg, one);
		free(one);
		if (rc < 0) {
			floe_pg_rollback(pg);
			return -1;
		}
		p = end + 2;
	}
	return floe_pg_commit(pg);
}

static int check_table(evolve *e, bool must_exist)
{
	bool exists = false;
	if (table_exists(&exists, e->pg, e->schema, e->table) < 0)
		return -1;
	if (must_exist && !exists) {
		floe_error_set(FLOE_ERR_USAGE, "table \"%s\" does not exist in schema \"%s\"", e->table, e->schema);
		floe_error_hint("Pass one of the shop's tables with --table (see `floe shop evolve --list`).");
		return -1;
	}
	if (!must_exist && exists) {
		floe_error_set(FLOE_ERR_EXISTS, "table \"%s\" already exists in schema \"%s\"", e->table, e->schema);
		floe_error_hint("Name a new table with --table NAME.");
		return -1;
	}
	return must_exist ? load_columns(e) : 0;
}

int floe_shop_evolve(floe_shop_evolve_result *out, floe_pg *pg, const floe_shop_evolve_opts *opts)
{
	evolve e;
	bool shop = false;
	memset(out, 0, sizeof(*out));
	floe_buf_init(&out->ddl, 0);
	floe_buf_init(&out->summary, 0);
	int k = opts->kind ? find_kind(opts->kind) : floe_error_set(FLOE_ERR_USAGE, "no change kind given");
	if (k < 0)
		return -1;
	memset(&e, 0, sizeof(e));
	e.pg = pg;
	e.schema = opts->schema;
	e.table = opts->table ? opts->table : kinds[k].default_table;
	e.ddl = &out->ddl;
	e.summary = &out->summary;
	snprintf(out->kind, sizeof(out->kind), "%s", kinds[k].name);
	snprintf(out->table, sizeof(out->table), "%s", e.table);
	if (shop_use_schema(pg, opts->schema) < 0 || shop_exists(&shop, pg, opts->schema) < 0)
		return -1;
	if (!shop) {
		floe_error_set(FLOE_ERR_USAGE, "schema \"%s\" holds no shop", opts->schema);
		floe_error_hint("Create one with `floe shop generate`.");
		return -1;
	}
	if (check_table(&e, k != ADD_TABLE) < 0 || quote(&e.qt, pg, e.table) < 0 || plans[k](&e) < 0 ||
	    apply(pg, &out->ddl) < 0)
		return floe_error_context("while applying change \"%s\" to table \"%s\"", kinds[k].name, e.table);
	return 0;
}

void floe_shop_evolve_result_free(floe_shop_evolve_result *r)
{
	if (!r)
		return;
	floe_buf_free(&r->ddl);
	floe_buf_free(&r->summary);
}
