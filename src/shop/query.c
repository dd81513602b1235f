/*
 * query.c — the few statements every part of the shop runs: choose the schema,
 * find the shop in it, read one value.
 */
#include "shop/shop_int.h"

int shop_value(floe_buf *out, bool *found, floe_pg *pg, const char *sql, int nparams, const char *const *params)
{
	floe_pg_result *r = NULL;
	if (floe_pg_query(&r, pg, sql, nparams, params) < 0)
		return -1;
	bool any = floe_pg_result_rows(r) > 0;
	if (found)
		*found = any;
	if (out && any)
		floe_buf_puts(out, floe_pg_result_text(r, 0, 0));
	floe_pg_result_free(r);
	return 0;
}

int shop_use_schema(floe_pg *pg, const char *schema)
{
	floe_buf sql = FLOE_BUF_INIT;
	floe_buf_puts(&sql, "SET search_path = ");
	int error = floe_pg_quote_ident(&sql, pg, schema);
	if (error == 0)
		error = floe_pg_exec(pg, floe_buf_cstr(&sql));
	floe_buf_free(&sql);
	return error;
}

int shop_exists(bool *out, floe_pg *pg, const char *schema)
{
	const char *params[1] = { schema };
	return shop_value(NULL, out, pg,
			  "SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
			  "WHERE n.nspname = $1 AND c.relname = 'orders' AND c.relkind IN ('r', 'p')",
			  1, params);
}
