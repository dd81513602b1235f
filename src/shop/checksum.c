/*
 * checksum.c — what the shop holds, proven by PostgreSQL itself: per table the
 * row count and md5 over the md5 of every row's text, in key order; for the
 * shop, md5 over "table rows md5" lines in load order. Computed in one
 * REPEATABLE READ snapshot with the output settings pinned (time zone, date
 * style, float digits, bytea format), so the same contents give the same sum
 * whatever the session's defaults.
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

static int table_sum(floe_shop_table_sum *out, floe_pg *pg, const shop_table *t)
{
	floe_buf sql = FLOE_BUF_INIT;
	floe_pg_result *r = NULL;
	floe_buf_printf(&sql,
			"SELECT count(*), coalesce(md5(string_agg(md5(t::text), '' ORDER BY %s)), md5('')) FROM %s t",
			t->key, t->name);
	int error = floe_pg_query(&r, pg, floe_buf_cstr(&sql), 0, NULL);
	if (error == 0) {
		out->table = t->name;
		out->rows = floe_pg_result_int(r, 0, 0);
		snprintf(out->md5, sizeof(out->md5), "%s", floe_pg_result_text(r, 0, 1));
	}
	floe_pg_result_free(r);
	floe_buf_free(&sql);
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
		floe_buf_printf(&lines, "%s %lld %s\n", out->tables[i].table, out->tables[i].rows, out->tables[i].md5);
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
