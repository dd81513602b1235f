/*
 * naming.c — bronze table names, the file names derived from them, and the
 * extraction query text.
 *
 * Identifiers in SQL are always the server's quote_ident() forms (read with the
 * catalog), never spliced raw. Names that reach SQL comments are escaped
 * (floe_text_put_printable) so a newline in a hostile name cannot end the comment.
 */
#include "plan/plan_int.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/sha256.h"
#include "base/text.h"
#include "pg/pg.h"

#include <string.h>

#define PLAIN_STEM_MAX 100
#define SLUG_MAX 48
#define HASH_DIGITS 12

const char *const floe_plan_session_settings[] = {
	"search_path", "pg_catalog",        /* unqualified casts name built-in types */
	"DateStyle", "ISO, YMD",
	"IntervalStyle", "iso_8601",
	"TimeZone", "UTC",
	"extra_float_digits", "3",          /* shortest exact float text in geometric and range types */
	"bytea_output", "hex",
	"client_encoding", "UTF8",
	NULL, NULL,
};

int floe_plan_session_apply(floe_pg *pg)
{
	for (const char *const *kv = floe_plan_session_settings; kv[0]; kv += 2) {
		floe_pg_result *r = NULL;
		const char *params[2] = { kv[0], kv[1] };
		if (floe_pg_query(&r, pg, "select pg_catalog.set_config($1, $2, false)", 2, params) < 0)
			return floe_error_context("while applying the session setting %s", kv[0]);
		floe_pg_result_free(r);
	}
	return 0;
}

const char *floe_plan_bronze_name(floe_arena *arena, const char *schema, const char *table)
{
	if (strcmp(schema, "public") == 0)
		return floe_arena_printf(arena, "bronze.%s", table);
	return floe_arena_printf(arena, "bronze.%s__%s", schema, table);
}

static char fold(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

bool floe_plan_same_name(const char *a, const char *b)
{
	for (; *a && fold(*a) == fold(*b); a++, b++)
		;
	return fold(*a) == fold(*b);
}

const char *floe_plan_name_problem(floe_arena *arena, const char *bronze_name)
{
	const char *name = strncmp(bronze_name, "bronze.", 7) == 0 ? bronze_name + 7 : bronze_name;
	const char *what = NULL;
	for (const unsigned char *p = (const unsigned char *)name; *p && !what; p++) {
		if (*p == '/')
			what = "a '/', which would split the table's path in the warehouse";
		else if (*p == '.')
			what = "a '.', which Iceberg catalogs read as a namespace separator";
		else if (*p < 0x20 || *p == 0x7f)
			what = "a control character";
	}
	if (!what)
		return NULL;
	return floe_arena_printf(arena, "its name holds %s, and an Iceberg table name may not (rename the "
					"table or schema, or exclude it in floe.toml)", what);
}

static bool plain_stem(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > PLAIN_STEM_MAX)
		return false;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	return true;
}

const char *floe_plan_file_name(floe_arena *arena, const char *bronze_name)
{
	const char *stem = strncmp(bronze_name, "bronze.", 7) == 0 ? bronze_name + 7 : bronze_name;
	if (plain_stem(stem))
		return floe_arena_printf(arena, "bronze/%s.sql", stem);
	char slug[SLUG_MAX + 1];
	size_t n = 0;
	for (const unsigned char *p = (const unsigned char *)stem; *p && n < SLUG_MAX; p++) {
		char c = (char)*p;
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
			c = '_';
		if (c == '_' && n > 0 && slug[n - 1] == '_')
			continue; /* one underscore per run of other bytes */
		slug[n++] = c;
	}
	while (n > 0 && slug[n - 1] == '_')
		n--;
	slug[n] = '\0';
	const char *start = slug + (slug[0] == '_');
	char hex[FLOE_SHA256_HEX_LEN + 1];
	floe_sha256_hex(hex, bronze_name, strlen(bronze_name));
	return floe_arena_printf(arena, "bronze/%s-%.*s.sql", start[0] ? start : "table", HASH_DIGITS, hex);
}

const char *floe_plan_extract_sql(floe_arena *arena, const floe_plan_table *t, const char *quoted_relation)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_buf_puts(&b, "-- ");
	floe_text_put_printable(&b, t->bronze);
	floe_buf_puts(&b, ": the extraction query of ");
	floe_text_put_printable(&b, t->schema);
	floe_buf_putc(&b, '.');
	floe_text_put_printable(&b, t->name);
	floe_buf_puts(&b, ", written by `floe generate`.\n"
			  "-- floe runs it as COPY (…) TO STDOUT (FORMAT binary) under the session settings in\n"
			  "-- lakehouse.lock.json. An edit by hand is kept and reported as drift.\n"
			  "SELECT\n");
	for (size_t i = 0; i < t->n_columns; i++) {
		const floe_plan_column *c = &t->columns[i];
		floe_buf_printf(&b, "    %s", c->map.extract);
		/* A converted value keeps its column's name (a record expression would not). */
		if (c->map.converted)
			floe_buf_printf(&b, " AS %s", c->quoted);
		floe_buf_puts(&b, i + 1 < t->n_columns ? ",\n" : "\n");
	}
	floe_buf_printf(&b, "FROM %s\n", quoted_relation);
	const char *sql = floe_arena_strdup(arena, floe_buf_cstr(&b));
	floe_buf_free(&b);
	return sql;
}
