/*
 * checksum.c — what the shop holds, proven by PostgreSQL itself.
 *
 * Per table: the row count and the sum (as numeric, so nothing wraps) of a
 * 64-bit hash of every row; for the shop: md5 over "table rows sum" lines in
 * load order. A sum does not depend on the order rows are read in, so no sort
 * is needed, and hashing each column's value (hash_record_extended, PostgreSQL
 * 14+) avoids turning rows into text, which costs ten times more. Enum columns
 * are hashed as their labels: an enum's own hash is of its OID, which differs
 * between two otherwise identical databases. Before 14 the row's text is
 * hashed (hashtextextended), with the output settings pinned.
 *
 * Everything is read in one REPEATABLE READ snapshot.
 */
#include "shop/shop_int.h"
#include "base/error.h"

#include <stdio.h>
#include <string.h>

static const char *const pinned[] = {
	"SET LOCAL TimeZone = 'UTC'",
	"SET LOCAL DateStyle = 'ISO, YMD'",
	"SET LOCAL IntervalStyle = 'postgres'",
	"SET LOCAL extra_float_digits = 1",
	"SET LOCAL bytea_output = 'hex'",
	NULL,
};

/* The table's columns as a row expression, enums (and arrays of them) as text. */
static int row_expression(floe_buf *out, floe_pg *pg, const char *table)
{
	static const char sql[] =
		"SELECT string_agg(quote_ident(a.attname) || CASE WHEN t.typtype = 'e' OR e.typtype = 'e' "
		"THEN '::text' ELSE '' END, ', ' ORDER BY a.attnum) "
		"FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid LEFT JOIN pg_type e ON e.oid = t.typelem "
		"WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped";
	const char *params[1] = { table };
	floe_buf_puts(out, "ROW(");
	if (shop_value(out, NULL, pg, sql, 1, params) < 0)
		return -1;
	return floe_buf_putc(out, ')');
}

static int table_sum(floe_shop_table_sum *out, floe_pg *pg, const shop_table *t)
{
	floe_buf sql = FLOE_BUF_INIT, expr = FLOE_BUF_INIT;
	floe_pg_result *r = NULL;
	int error = -1;
	if (floe_pg_server_version(pg) >= 140000) {
		if (row_expression(&expr, pg, t->name) < 0)
			goto cleanup;
		floe_buf_printf(&sql, "SELECT count(*), coalesce(sum(hash_record_extended(%s, 0)), 0) FROM %s",
				floe_buf_cstr(&expr), t->name);
	} else {
		floe_buf_printf(&sql, "SELECT count(*), coalesce(sum(hashtextextended(t::text, 0)), 0) FROM %s t",
				t->name);
	}
	if (floe_pg_query(&r, pg, floe_buf_cstr(&sql), 0, NULL) < 0)
		goto cleanup;
	out->table = t->name;
	out->rows = floe_pg_result_int(r, 0, 0);
	snprintf(out->hash, sizeof(out->hash), "%s", floe_pg_result_text(r, 0, 1));
	error = 0;
cleanup:
	floe_pg_result_free(r);
	floe_buf_free(&sql);
	floe_buf_free(&expr);
	return error;
}

int shop_checksum(floe_shop_sum *out, floe_pg *pg)
{
	floe_buf lines = FLOE_BUF_INIT;
	floe_pg_result *r = NULL;
	int error = -1;
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < SHOP_N_TABLES; i++) {
		if (table_sum(&out->tables[i], pg, &shop_tables[i]) < 0)
			goto cleanup;
		out->n_tables++;
		out->rows += out->tables[i].rows;
		floe_buf_printf(&lines, "%s %lld %s\n", out->tables[i].table, out->tables[i].rows, out->tables[i].hash);
	}
	const char *params[1] = { floe_buf_cstr(&lines) };
	if (floe_pg_query(&r, pg, "SELECT md5($1)", 1, params) < 0)
		goto cleanup;
	snprintf(out->md5, sizeof(out->md5), "%s", floe_pg_result_text(r, 0, 0));
	error = 0;
cleanup:
	floe_pg_result_free(r);
	floe_buf_free(&lines);
	return error;
}

int floe_shop_checksum(floe_shop_sum *out, floe_pg *pg, const char *schema)
{
	bool exists = false;
	if (shop_use_schema(pg, schema) < 0 || shop_exists(&exists, pg, schema) < 0)
		return -1;
	if (!exists) {
		floe_error_set(FLOE_ERR_USAGE, "schema \"%s\" holds no shop", schema);
		floe_error_hint("Create one with `floe shop generate`.");
		return -1;
	}
	if (floe_pg_exec(pg, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") < 0)
		return -1;
	for (const char *const *s = pinned; *s; s++) {
		if (floe_pg_exec(pg, *s) < 0) {
			floe_pg_rollback(pg);
			return -1;
		}
	}
	if (shop_checksum(out, pg) < 0) {
		floe_pg_rollback(pg);
		floe_error_context("while computing the checksum of schema \"%s\"", schema);
		return -1;
	}
	return floe_pg_commit(pg);
}
