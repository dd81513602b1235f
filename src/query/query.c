/*
 * query.c — catalog tables as DuckDB views, one read-only statement, rendering.
 */
#include "query/query.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/json.h"
#include "base/text.h"
#include "engine/engine.h"
#include "iceberg/catalog.h"
#include "iceberg/metadata.h"
#include "iceberg/table.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

/* An Iceberg type as DuckDB names it (struct fields quoted, so any name is one). */
static void duck_type(floe_buf *out, const floe_iceberg_type *t)
{
	static const char *const names[] = {
		[FLOE_ICEBERG_BOOLEAN] = "BOOLEAN", [FLOE_ICEBERG_INT] = "INTEGER", [FLOE_ICEBERG_LONG] = "BIGINT",
		[FLOE_ICEBERG_FLOAT] = "FLOAT", [FLOE_ICEBERG_DOUBLE] = "DOUBLE", [FLOE_ICEBERG_DATE] = "DATE",
		[FLOE_ICEBERG_TIME] = "TIME", [FLOE_ICEBERG_TIMESTAMP] = "TIMESTAMP",
		[FLOE_ICEBERG_TIMESTAMPTZ] = "TIMESTAMPTZ", [FLOE_ICEBERG_STRING] = "VARCHAR",
		[FLOE_ICEBERG_UUID] = "UUID", [FLOE_ICEBERG_FIXED] = "BLOB", [FLOE_ICEBERG_BINARY] = "BLOB",
	};
	switch (t->id) {
	case FLOE_ICEBERG_DECIMAL:
		floe_buf_printf(out, "DECIMAL(%d,%d)", (int)t->precision, (int)t->scale);
		break;
	case FLOE_ICEBERG_STRUCT:
		floe_buf_puts(out, "STRUCT(");
		for (size_t i = 0; i < t->n_fields; i++) {
			floe_buf_puts(out, i ? ", " : "");
			floe_buf_put_quoted(out, t->fields[i].name, '"');
			floe_buf_putc(out, ' ');
			duck_type(out, t->fields[i].type);
		}
		floe_buf_putc(out, ')');
		break;
	case FLOE_ICEBERG_LIST:
		duck_type(out, t->element);
		floe_buf_puts(out, "[]");
		break;
	case FLOE_ICEBERG_MAP:
		floe_buf_puts(out, "MAP(");
		duck_type(out, t->key);
		floe_buf_puts(out, ", ");
		duck_type(out, t->value);
		floe_buf_putc(out, ')');
		break;
	default:
		floe_buf_puts(out, (size_t)t->id < sizeof(names) / sizeof(names[0]) && names[t->id] ? names[t->id]
												: "VARCHAR");
		break;
	}
}

/*
 * CREATE VIEW ns.table AS SELECT * FROM read_parquet([files of the current snapshot], schema = …):
 * the columns of the table's current schema found by field id, so a renamed column reads from
 * files written under its old name, and a column added since reads as NULL from older files.
 */
static int table_view(floe_engine *e, floe_iceberg_catalog *cat, floe_arena *a, const char *ns, const char *name)
{
	floe_iceberg_table *t = NULL;
	floe_iceberg_scan *scan = NULL;
	floe_buf sql = FLOE_BUF_INIT, type = FLOE_BUF_INIT;
	int error = -1;
	if (floe_iceberg_table_load(&t, cat, ns, name) < 0 || floe_iceberg_table_plan(&scan, a, t, -1) < 0)
		goto cleanup;
	if (scan->n_files == 0) { /* nothing committed yet: no view */
		error = 0;
		goto cleanup;
	}
	const floe_iceberg_schema *schema = floe_iceberg_metadata_current_schema(floe_iceberg_table_metadata(t));
	floe_buf_puts(&sql, "CREATE VIEW ");
	floe_buf_put_quoted(&sql, ns, '"');
	floe_buf_putc(&sql, '.');
	floe_buf_put_quoted(&sql, name, '"');
	floe_buf_puts(&sql, " AS SELECT * FROM read_parquet([");
	for (size_t i = 0; i < scan->n_files; i++) {
		if (i)
			floe_buf_putc(&sql, ',');
		floe_buf_put_quoted(&sql, floe_iceberg_uri_to_path(a, scan->files[i].file.path), '\'');
	}
	floe_buf_puts(&sql, "], schema = MAP {");
	for (size_t i = 0; i < schema->n_fields; i++) {
		const floe_iceberg_field *f = &schema->fields[i];
		floe_buf_clear(&type);
		duck_type(&type, f->type);
		floe_buf_printf(&sql, "%s%d: {name: ", i ? ", " : "", (int)f->id);
		floe_buf_put_quoted(&sql, f->name, '\'');
		floe_buf_puts(&sql, ", type: ");
		floe_buf_put_quoted(&sql, floe_buf_cstr(&type), '\'');
		floe_buf_puts(&sql, ", default_value: NULL}");
	}
	floe_buf_puts(&sql, "})");
	error = floe_engine_exec(e, floe_buf_cstr(&sql));
cleanup:
	floe_iceberg_table_free(t);
	floe_buf_free(&sql);
	floe_buf_free(&type);
	return error;
}

static int define_views(floe_engine *e, const floe_config *config, floe_arena *a)
{
	floe_iceberg_catalog *cat = NULL;
	floe_iceberg_catalog_opts co = FLOE_ICEBERG_CATALOG_OPTS_INIT;
	const char **namespaces = NULL, **tables = NULL;
	size_t n_ns = 0, n_t = 0;
	int error = -1;
	co.warehouse = floe_config_warehouse_dir(config);
	if (floe_iceberg_catalog_open_sql(&cat, floe_arena_printf(a, "%s/catalog.db", co.warehouse), &co) < 0 ||
	    floe_iceberg_catalog_list_namespaces(cat, a, &namespaces, &n_ns) < 0)
		goto cleanup;
	for (size_t i = 0; i < n_ns; i++) {
		floe_buf ddl = FLOE_BUF_INIT;
		floe_buf_puts(&ddl, "CREATE SCHEMA IF NOT EXISTS ");
		floe_buf_put_quoted(&ddl, namespaces[i], '"');
		int rc = floe_engine_exec(e, floe_buf_cstr(&ddl));
		floe_buf_free(&ddl);
		if (rc < 0 || floe_iceberg_catalog_list_tables(cat, namespaces[i], a, &tables, &n_t) < 0)
			goto cleanup;
		for (size_t k = 0; k < n_t; k++)
			if (table_view(e, cat, a, namespaces[i], tables[k]) < 0)
				goto cleanup;
	}
	error = 0;
cleanup:
	floe_iceberg_catalog_free(cat);
	return error;
}

/* Only statements that read; the first keyword decides (DuckDB also may touch nothing but the warehouse). */
static int check_read_only(const char *sql)
{
	static const char *const allowed[] = { "select", "with", "from", "values", "table", "explain",
					       "describe", "show", "summarize", "(", NULL };
	while (isspace((unsigned char)*sql))
		sql++;
	for (const char *const *k = allowed; *k; k++)
		if (strncasecmp(sql, *k, strlen(*k)) == 0)
			return 0;
	floe_error_set(FLOE_ERR_USAGE, "floe query runs only statements that read (SELECT, WITH, FROM, "
				      "EXPLAIN, DESCRIBE, SHOW, SUMMARIZE)");
	floe_error_hint("The lake changes only through `floe run`.");
	return -1;
}

/* Whether `sql` starts like a query (a statement DuckDB can DESCRIBE and nest in FROM). */
static bool is_query(const char *sql)
{
	static const char *const queries[] = { "select", "with", "from", "values", "(", NULL };
	while (isspace((unsigned char)*sql))
		sql++;
	for (const char *const *k = queries; *k; k++)
		if (strncasecmp(sql, *k, strlen(*k)) == 0)
			return true;
	return false;
}

/* A DuckDB type name of a nested type: struct, map, union, list or array. */
static bool is_nested(const char *type)
{
	size_t n = type ? strlen(type) : 0;
	return n && (strncmp(type, "STRUCT", 6) == 0 || strncmp(type, "MAP", 3) == 0 ||
		     strncmp(type, "UNION", 5) == 0 || type[n - 1] == ']');
}

/*
 * The statement to run for `sql`. The engine hands results over as text, and DuckDB has
 * no text for a nested value (an Iceberg struct or list) but its cast to VARCHAR: a query
 * whose result has one runs inside `SELECT CAST(COLUMNS(*) AS VARCHAR) FROM (…)`. What
 * cannot be described runs as it is, so its error is the user's own statement's.
 */
static const char *statement(floe_engine *e, floe_arena *a, const char *sql)
{
	floe_engine_result *types = NULL;
	bool nested = false;
	if (!is_query(sql))
		return sql;
	if (floe_engine_query(e, &types, floe_arena_printf(a, "DESCRIBE %s", sql)) < 0) {
		floe_error_clear();
		return sql;
	}
	for (size_t i = 0; i < floe_engine_result_rows(types) && !nested; i++)
		nested = is_nested(floe_engine_result_text(types, i, 1));
	floe_engine_result_free(types);
	if (!nested)
		return sql;
	size_t n = strlen(sql);
	while (n && (isspace((unsigned char)sql[n - 1]) || sql[n - 1] == ';'))
		n--;
	/* the newline ends a trailing -- comment before the closing parenthesis */
	return floe_arena_printf(a, "SELECT CAST(COLUMNS(*) AS VARCHAR) FROM (%.*s\n) AS floe_query", (int)n, sql);
}

/* A cell as a terminal shows it: printable (floe_text_put_printable), cut at `width` code points, padded. */
static size_t put_cell(floe_buf *out, const char *s, size_t width)
{
	floe_buf b = FLOE_BUF_INIT;
	size_t i = 0, n = 0;
	floe_text_put_printable(&b, s);
	for (; i < b.len && n < width; i++)
		n += ((unsigned char)b.ptr[i] & 0xC0) != 0x80;
	while (i < b.len && ((unsigned char)b.ptr[i] & 0xC0) == 0x80)
		i++;
	if (out) {
		floe_buf_put(out, b.ptr ? b.ptr : "", i);
		for (; n < width; n++)
			floe_buf_putc(out, ' ');
	}
	floe_buf_free(&b);
	return n;
}

static void render_table(floe_buf *out, floe_engine_result *r)
{
	size_t rows = floe_engine_result_rows(r), cols = floe_engine_result_columns(r);
	size_t width[256] = { 0 };
	for (size_t c = 0; c < cols && c < 256; c++) {
		width[c] = put_cell(NULL, floe_engine_result_name(r, c), SIZE_MAX);
		for (size_t i = 0; i < rows; i++) {
			const char *v = floe_engine_result_text(r, i, c);
			size_t n = put_cell(NULL, v ? v : "NULL", 60);
			if (n > width[c])
				width[c] = n;
		}
	}
	for (size_t c = 0; c < cols && c < 256; c++) {
		floe_buf_puts(out, c ? " | " : "");
		put_cell(out, floe_engine_result_name(r, c), width[c]);
	}
	floe_buf_putc(out, '\n');
	for (size_t c = 0; c < cols && c < 256; c++) {
		floe_buf_puts(out, c ? "-+-" : "");
		for (size_t k = 0; k < width[c]; k++)
			floe_buf_putc(out, '-');
	}
	floe_buf_putc(out, '\n');
	for (size_t i = 0; i < rows; i++) {
		for (size_t c = 0; c < cols && c < 256; c++) {
			const char *v = floe_engine_result_text(r, i, c);
			floe_buf_puts(out, c ? " | " : "");
			put_cell(out, v ? v : "NULL", width[c]);
		}
		floe_buf_putc(out, '\n');
	}
	floe_buf_printf(out, "(%zu row%s)\n", rows, rows == 1 ? "" : "s");
}

static void render_csv(floe_buf *out, floe_engine_result *r)
{
	size_t rows = floe_engine_result_rows(r), cols = floe_engine_result_columns(r);
	for (size_t i = 0; i <= rows; i++) {
		for (size_t c = 0; c < cols; c++) {
			const char *v = i == 0 ? floe_engine_result_name(r, c) : floe_engine_result_text(r, i - 1, c);
			floe_buf_puts(out, c ? "," : "");
			if (!v)
				continue;
			if (strpbrk(v, ",\"\n\r"))
				floe_buf_put_quoted(out, v, '"');
			else
				floe_buf_puts(out, v);
		}
		floe_buf_putc(out, '\n');
	}
}

static void render_json(floe_buf *out, floe_engine_result *r)
{
	size_t rows = floe_engine_result_rows(r), cols = floe_engine_result_columns(r);
	floe_buf_putc(out, '[');
	for (size_t i = 0; i < rows; i++) {
		floe_buf_puts(out, i ? ",{" : "{");
		for (size_t c = 0; c < cols; c++)
			floe_json_put_member(out, floe_engine_result_name(r, c), floe_engine_result_text(r, i, c));
		floe_buf_putc(out, '}');
	}
	floe_buf_puts(out, "]\n");
}

int floe_query_run(floe_buf *out, const floe_config *config, const char *sql, floe_query_format format)
{
	floe_engine *e = NULL;
	floe_engine_result *r = NULL;
	floe_arena *a = floe_arena_new();
	floe_buf setup = FLOE_BUF_INIT;
	int error = -1;
	if (check_read_only(sql) < 0 || floe_engine_open(&e, NULL) < 0 || define_views(e, config, a) < 0)
		goto cleanup;
	floe_buf_puts(&setup, "SET allowed_directories = [");
	floe_buf_put_quoted(&setup, floe_arena_printf(a, "%s/", floe_config_warehouse_dir(config)), '\'');
	floe_buf_puts(&setup, "]; SET enable_external_access = false; SET lock_configuration = true");
	if (floe_engine_exec(e, floe_buf_cstr(&setup)) < 0 || floe_engine_query(e, &r, statement(e, a, sql)) < 0)
		goto cleanup;
	if (format == FLOE_QUERY_CSV)
		render_csv(out, r);
	else if (format == FLOE_QUERY_JSON)
		render_json(out, r);
	else
		render_table(out, r);
	error = 0;
cleanup:
	floe_engine_result_free(r);
	floe_engine_close(e);
	floe_buf_free(&setup);
	floe_arena_free(a);
	return error;
}
