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
#include "iceberg/deletes.h"
#include "iceberg/metadata.h"
#include "iceberg/table.h"
#include "base/log.h"
#include "base/text.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void floe_query_duck_type(floe_buf *out, const floe_iceberg_type *t)
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
			floe_query_duck_type(out, t->fields[i].type);
		}
		floe_buf_putc(out, ')');
		break;
	case FLOE_ICEBERG_LIST:
		floe_query_duck_type(out, t->element);
		floe_buf_puts(out, "[]");
		break;
	case FLOE_ICEBERG_MAP:
		floe_buf_puts(out, "MAP(");
		floe_query_duck_type(out, t->key);
		floe_buf_puts(out, ", ");
		floe_query_duck_type(out, t->value);
		floe_buf_putc(out, ')');
		break;
	default:
		floe_buf_puts(out, (size_t)t->id < sizeof(names) / sizeof(names[0]) && names[t->id] ? names[t->id]
												: "VARCHAR");
		break;
	}
}

/* The files DuckDB may read: the live data files of every table that became a view. */
typedef struct readable {
	const char **paths;
	size_t n, cap;
} readable;

/* DuckDB's name of a date, timestamp or timestamptz type, else NULL. */
static const char *instant_type(const floe_iceberg_type *t)
{
	static const char *const names[] = { [FLOE_ICEBERG_DATE] = "DATE",
					     [FLOE_ICEBERG_TIMESTAMP] = "TIMESTAMP",
					     [FLOE_ICEBERG_TIMESTAMPTZ] = "TIMESTAMPTZ" };
	return (size_t)t->id < sizeof(names) / sizeof(names[0]) ? names[t->id] : NULL;
}

/* Whether a value of type `t` holds a date, timestamp or timestamptz (in a struct or list too). */
static bool has_instant(const floe_iceberg_type *t)
{
	bool found = instant_type(t) != NULL || (t->id == FLOE_ICEBERG_LIST && has_instant(t->element));
	for (size_t i = 0; t->id == FLOE_ICEBERG_STRUCT && i < t->n_fields && !found; i++)
		found = has_instant(t->fields[i].type);
	return found;
}

/*
 * `expr` (of type `t`) as a view shows it. floe carries PostgreSQL's '-infinity' as the type's
 * smallest value (docs/types.md), one below what DuckDB calls -infinity and outside what it can
 * print: the view shows it as DuckDB's -infinity, at any depth of structs and lists ('infinity',
 * the largest value, already is DuckDB's). Maps are shown as they are.
 */
static void put_shown(floe_buf *sql, const char *expr, const floe_iceberg_type *t, int depth)
{
	const char *instant = instant_type(t);
	floe_buf inner = FLOE_BUF_INIT;
	if (!has_instant(t) || t->id == FLOE_ICEBERG_MAP) {
		floe_buf_puts(sql, expr);
	} else if (instant) {
		floe_buf_printf(sql, "CASE WHEN %s < '-infinity'::%s THEN '-infinity'::%s ELSE %s END", expr,
				instant, instant, expr);
	} else if (t->id == FLOE_ICEBERG_LIST) {
		floe_buf_printf(&inner, "floe_x%d", depth);
		floe_buf_printf(sql, "list_transform(%s, lambda floe_x%d: ", expr, depth);
		put_shown(sql, floe_buf_cstr(&inner), t->element, depth + 1);
		floe_buf_putc(sql, ')');
	} else {
		floe_buf_printf(sql, "CASE WHEN %s IS NULL THEN NULL ELSE struct_pack(", expr);
		for (size_t i = 0; i < t->n_fields; i++) {
			floe_buf_clear(&inner);
			floe_buf_printf(&inner, "%s.", expr);
			floe_buf_put_quoted(&inner, t->fields[i].name, '"');
			floe_buf_puts(sql, i ? ", " : "");
			floe_buf_put_quoted(sql, t->fields[i].name, '"');
			floe_buf_puts(sql, " := ");
			put_shown(sql, floe_buf_cstr(&inner), t->fields[i].type, depth);
		}
		floe_buf_puts(sql, ") END");
	}
	floe_buf_free(&inner);
}

/* Whether a lower bound (Appendix D, little-endian) is the type's smallest value: -infinity. */
static bool bound_is_smallest(const floe_iceberg_column_stats *c, int width)
{
	if (!c->has_lower || c->lower_len != (size_t)width)
		return true;  /* unknown: it may be */
	uint64_t v = 0;
	for (int i = width - 1; i >= 0; i--)
		v = v << 8 | c->lower[i];
	return v == (width == 4 ? UINT64_C(0x80000000) : UINT64_C(0x8000000000000000));
}

/*
 * Whether a file of `scan` may hold -infinity in the top-level instant column `f`: only then
 * does the view need its CASE, which hides the column's statistics from DuckDB (a filter on it
 * could no longer skip row groups). A file without the column's lower bound may.
 */
static bool may_hold_minus_infinity(const floe_iceberg_scan *scan, const floe_iceberg_field *f)
{
	int width = f->type->id == FLOE_ICEBERG_DATE ? 4 : 8;
	for (size_t i = 0; i < scan->n_files; i++) {
		const floe_iceberg_data_file *d = &scan->files[i].file;
		const floe_iceberg_column_stats *c = NULL;
		for (size_t j = 0; j < d->n_columns && !c; j++)
			c = d->columns[j].field_id == f->id ? &d->columns[j] : NULL;
		if (!c || (c->value_count != c->null_value_count && bound_is_smallest(c, width)))
			return true;
	}
	return false;
}

/* One column of a view: the expression that shows it, named as the column. */
static void view_column(floe_buf *sql, const floe_iceberg_field *f, const floe_iceberg_scan *scan)
{
	floe_buf name = FLOE_BUF_INIT;
	floe_buf_put_quoted(&name, f->name, '"');
	if (instant_type(f->type) && !may_hold_minus_infinity(scan, f))
		floe_buf_puts(sql, floe_buf_cstr(&name));
	else
		put_shown(sql, floe_buf_cstr(&name), f->type, 0);
	floe_buf_printf(sql, " AS %s", floe_buf_cstr(&name));
	floe_buf_free(&name);
}

void floe_query_put_parquet_schema(floe_buf *sql, const floe_iceberg_schema *schema)
{
	floe_buf type = FLOE_BUF_INIT;
	floe_buf_puts(sql, "schema = MAP {");
	for (size_t i = 0; i < schema->n_fields; i++) {
		const floe_iceberg_field *f = &schema->fields[i];
		floe_buf_clear(&type);
		floe_query_duck_type(&type, f->type);
		floe_buf_printf(sql, "%s%d: {name: ", i ? ", " : "", (int)f->id);
		floe_buf_put_quoted(sql, f->name, '\'');
		floe_buf_puts(sql, ", type: ");
		floe_buf_put_quoted(sql, floe_buf_cstr(&type), '\'');
		floe_buf_puts(sql, ", default_value: NULL}");
	}
	floe_buf_putc(sql, '}');
	floe_buf_free(&type);
}

/* A view's SELECT list of no rows: each column of `schema` a NULL of its type (and `pos`: floe_pos). */
static void put_no_rows(floe_buf *sql, const floe_iceberg_schema *schema, bool pos)
{
	for (size_t i = 0; i < schema->n_fields; i++) {
		floe_buf_puts(sql, i ? ", CAST(NULL AS " : "CAST(NULL AS ");
		floe_query_duck_type(sql, schema->fields[i].type);
		floe_buf_puts(sql, ") AS ");
		floe_buf_put_quoted(sql, schema->fields[i].name, '"');
	}
	floe_buf_puts(sql, pos ? ", CAST(NULL AS BIGINT) AS floe_pos WHERE false" : " WHERE false");
}

#define POS_EXPR "CAST(file_index AS BIGINT) * 4294967296 + file_row_number"

/* Which rows of the scan's files a view shows. */
typedef enum view_rows { VIEW_LIVE, VIEW_DELETED, VIEW_ALL_POSITIONS } view_rows;

/*
 * Merge-on-read: "`pos` NOT IN (…)" (in: "IN") over the positions the scan's position deletes
 * remove (loaded with floe_iceberg_table_plan_live), each the file's index × 2^32 + the row number,
 * after `lead`; nothing when there are none.
 */
static void put_positions(floe_buf *sql, const floe_iceberg_scan *scan, const char *lead, const char *pos, bool in)
{
	size_t n = 0;
	for (size_t i = 0; i < scan->n_files; i++)
		n += scan->files[i].n_deleted;
	if (n == 0)
		return;
	int64_t *v = floe_xmalloc(n * sizeof(*v));
	n = 0;
	for (size_t i = 0; i < scan->n_files; i++)
		for (size_t k = 0; k < scan->files[i].n_deleted; k++)
			v[n++] = (int64_t)i * 4294967296 + scan->files[i].deleted[k];
	floe_buf_printf(sql, "%s%s %sIN (", lead, pos, in ? "" : "NOT ");
	floe_engine_put_int64_rows(sql, v, n);
	floe_buf_putc(sql, ')');
	free(v);
}

static void put_live(floe_buf *sql, const floe_iceberg_scan *scan, const char *pos)
{
	put_positions(sql, scan, " WHERE ", pos, false);
}

void floe_query_put_live(floe_buf *sql, const floe_iceberg_scan *scan, const char *pos)
{
	put_live(sql, scan, pos);
}

void floe_query_put_deleted_in(floe_buf *sql, const floe_iceberg_scan *scan, const char *pos)
{
	put_positions(sql, scan, "", pos, true);
}

/*
 * The SELECT of a view of only the deleted rows: per file that has some, its rows at those
 * positions — `file_row_number IN (p, …)` on one file's read_parquet, a list of constants DuckDB
 * applies in the scan, decoding the other columns of those rows only (a bronze table's 38 deleted
 * rows over its four files: 1 ms a file, against 11 ms for one scan of the four that computes every
 * row's position; the same positions as a subquery's rows: a join after a whole scan, 3x slower).
 * Past DELETED_LITERALS positions in a file, parsing the constants costs more than the scan saves
 * (2.5 µs each): the positions as rows (floe_engine_put_int64_rows).
 */
#define DELETED_LITERALS 1000

static int put_deleted_rows(floe_buf *sql, floe_arena *a, floe_iceberg_storage *storage, const floe_iceberg_scan *scan,
			    const floe_iceberg_schema *schema)
{
	size_t parts = 0;
	for (size_t i = 0; i < scan->n_files; i++) {
		const floe_iceberg_scan_file *f = &scan->files[i];
		if (f->n_deleted == 0)
			continue;
		const char *uri = floe_iceberg_storage_engine_uri(storage, a, f->file.path);
		if (!uri)
			return -1;
		floe_buf_puts(sql, parts++ ? " UNION ALL SELECT " : "SELECT ");
		for (size_t k = 0; k < schema->n_fields; k++) {
			floe_buf_puts(sql, k ? ", " : "");
			view_column(sql, &schema->fields[k], scan);
		}
		floe_buf_puts(sql, " FROM read_parquet([");
		floe_buf_put_quoted(sql, uri, '\'');
		floe_buf_puts(sql, "], ");
		floe_query_put_parquet_schema(sql, schema);
		floe_buf_puts(sql, ") WHERE file_row_number IN (");
		if (f->n_deleted <= DELETED_LITERALS)
			for (size_t k = 0; k < f->n_deleted; k++)
				floe_buf_printf(sql, k ? ",%lld" : "%lld", (long long)f->deleted[k]);
		else
			floe_engine_put_int64_rows(sql, f->deleted, f->n_deleted);
		floe_buf_putc(sql, ')');
	}
	if (parts == 0) {
		floe_buf_puts(sql, "SELECT ");
		put_no_rows(sql, schema, false);
	}
	return 0;
}

static int view(floe_engine *e, floe_arena *a, const char *ns, const char *name, floe_iceberg_storage *storage,
		const floe_iceberg_scan *scan, const floe_iceberg_schema *schema, view_rows rows)
{
	floe_buf sql = FLOE_BUF_INIT;
	int error = -1;
	floe_buf_puts(&sql, "CREATE VIEW ");
	floe_buf_put_quoted(&sql, ns, '"');
	floe_buf_putc(&sql, '.');
	floe_buf_put_quoted(&sql, name, '"');
	floe_buf_puts(&sql, " AS ");
	if (rows == VIEW_DELETED) {
		if (put_deleted_rows(&sql, a, storage, scan, schema) < 0)
			goto cleanup;
	} else {
		floe_buf_puts(&sql, "SELECT ");
		if (scan->n_files == 0)
			put_no_rows(&sql, schema, rows == VIEW_ALL_POSITIONS);
		for (size_t i = 0; i < schema->n_fields && scan->n_files > 0; i++) {
			floe_buf_puts(&sql, i ? ", " : "");
			view_column(&sql, &schema->fields[i], scan);
		}
	}
	if (rows != VIEW_DELETED && scan->n_files > 0) {
		floe_buf_puts(&sql, rows == VIEW_ALL_POSITIONS ? ", " POS_EXPR " AS floe_pos FROM read_parquet([" : " FROM read_parquet([");
		for (size_t i = 0; i < scan->n_files; i++) {
			const char *uri = floe_iceberg_storage_engine_uri(storage, a, scan->files[i].file.path);
			if (!uri)
				goto cleanup;
			floe_buf_puts(&sql, i ? "," : "");
			floe_buf_put_quoted(&sql, uri, '\'');
		}
		floe_buf_puts(&sql, "], ");
		floe_query_put_parquet_schema(&sql, schema);
		floe_buf_putc(&sql, ')');
		if (rows == VIEW_LIVE)
			put_live(&sql, scan, POS_EXPR);
	}
	error = floe_engine_exec(e, floe_buf_cstr(&sql));
cleanup:
	floe_buf_free(&sql);
	return error;
}

int floe_query_view(floe_engine *e, floe_arena *a, const char *ns, const char *name, floe_iceberg_storage *storage,
		    const floe_iceberg_scan *scan, const floe_iceberg_schema *schema)
{
	return view(e, a, ns, name, storage, scan, schema, VIEW_LIVE);
}

int floe_query_view_deleted(floe_engine *e, floe_arena *a, const char *ns, const char *name,
			    floe_iceberg_storage *storage, const floe_iceberg_scan *scan, const floe_iceberg_schema *schema)
{
	return view(e, a, ns, name, storage, scan, schema, VIEW_DELETED);
}

int floe_query_view_positions(floe_engine *e, floe_arena *a, const char *ns, const char *name,
			      floe_iceberg_storage *storage, const floe_iceberg_scan *scan, const floe_iceberg_schema *schema)
{
	return view(e, a, ns, name, storage, scan, schema, VIEW_ALL_POSITIONS);
}

/*
 * CREATE VIEW ns.table over the files of the current snapshot (floe_query_view); the files
 * join `files` once the view exists.
 */
static int table_view(floe_engine *e, floe_iceberg_catalog *cat, floe_arena *a, const char *ns, const char *name,
		      readable *files)
{
	floe_iceberg_table *t = NULL;
	floe_iceberg_scan *scan = NULL;
	int error = -1;
	if (floe_iceberg_table_load(&t, cat, ns, name) < 0 || floe_iceberg_table_plan_live(&scan, a, t, -1) < 0)
		goto cleanup;
	if (scan->n_files == 0) { /* nothing committed yet: no view */
		error = 0;
		goto cleanup;
	}
	const floe_iceberg_schema *schema = floe_iceberg_metadata_current_schema(floe_iceberg_table_metadata(t));
	if (floe_query_view(e, a, ns, name, floe_iceberg_table_storage(t), scan, schema) < 0)
		goto cleanup;
	for (size_t i = 0; i < scan->n_files; i++) {
		const char *uri = floe_iceberg_storage_engine_uri(floe_iceberg_table_storage(t), a, scan->files[i].file.path);
		if (!uri)
			goto cleanup;
		*FLOE_ARENA_PUSH(a, files->paths, files->n, files->cap) = uri;
	}
	error = 0;
cleanup:
	floe_iceberg_table_free(t);
	return error;
}

/* Warn that `ns.name` is not queryable, and why: the current error (then cleared), or `why`. */
static void warn_skipped(const char *ns, const char *name, const char *why)
{
	const floe_error *err = floe_error_last();
	floe_buf msg = FLOE_BUF_INIT;
	floe_buf_printf(&msg, "%s.%s", ns, name);
	floe_buf_puts(&msg, " is not queryable: ");
	if (why)
		floe_buf_puts(&msg, why);
	else if (err)
		floe_buf_printf(&msg, "%s%s%s", err->message, err->detail ? " — " : "", err->detail ? err->detail : "");
	char *shown = floe_text_printable(floe_buf_cstr(&msg));
	floe_log_warn("%s", shown ? shown : "a table is not queryable");
	free(shown);
	floe_buf_free(&msg);
	floe_error_clear();
}

/* A table of the catalog. */
typedef struct table_name {
	const char *ns, *name;
} table_name;

/* Another table of the catalog that DuckDB, whose identifiers ignore (ASCII) case, would take for t[k]. */
static const table_name *case_twin(const table_name *t, size_t n, size_t k)
{
	for (size_t i = 0; i < n; i++)
		if (i != k && strcasecmp(t[i].ns, t[k].ns) == 0 && strcasecmp(t[i].name, t[k].name) == 0)
			return &t[i];
	return NULL;
}

/* Every table of every namespace. */
static int list_all(floe_iceberg_catalog *cat, floe_arena *a, table_name **out, size_t *n)
{
	const char **namespaces = NULL, **tables = NULL;
	size_t n_ns = 0, n_t = 0, cap = 0;
	*out = NULL, *n = 0;
	if (floe_iceberg_catalog_list_namespaces(cat, a, &namespaces, &n_ns) < 0)
		return -1;
	for (size_t i = 0; i < n_ns; i++) {
		if (floe_iceberg_catalog_list_tables(cat, namespaces[i], a, &tables, &n_t) < 0)
			return -1;
		for (size_t k = 0; k < n_t; k++)
			*FLOE_ARENA_PUSH(a, *out, *n, cap) = (table_name){ namespaces[i], tables[k] };
	}
	return 0;
}

/*
 * A view for each table of the catalog. A table that cannot be one — its metadata unreadable,
 * its name one DuckDB cannot tell from another's — is left out with a warning naming it and
 * why; the others, and queries that name none, still work.
 */
static int define_views(floe_engine *e, const floe_config *config, floe_arena *a, readable *files)
{
	floe_iceberg_catalog *cat = NULL;
	floe_iceberg_catalog_opts co = FLOE_ICEBERG_CATALOG_OPTS_INIT;
	table_name *t = NULL;
	size_t n = 0;
	int error = -1;
	co.warehouse = floe_config_warehouse_dir(config);
	if (floe_iceberg_catalog_open_sql(&cat, floe_config_catalog_path(a, config), &co) < 0 ||
	    list_all(cat, a, &t, &n) < 0)
		goto cleanup;
	for (size_t k = 0; k < n; k++) {
		const table_name *twin = case_twin(t, n, k);
		floe_buf ddl = FLOE_BUF_INIT;
		floe_buf_puts(&ddl, "CREATE SCHEMA IF NOT EXISTS ");
		floe_buf_put_quoted(&ddl, t[k].ns, '"');
		if (twin)
			warn_skipped(t[k].ns, t[k].name,
				     floe_arena_printf(a, "its name differs from %s.%s only in case, and DuckDB's "
							  "names ignore case (read it with another reader, e.g. PyIceberg)",
						       twin->ns, twin->name));
		else if (floe_engine_exec(e, floe_buf_cstr(&ddl)) < 0 || table_view(e, cat, a, t[k].ns, t[k].name, files) < 0)
			warn_skipped(t[k].ns, t[k].name, NULL);
		floe_buf_free(&ddl);
	}
	error = 0;
cleanup:
	floe_iceberg_catalog_free(cat);
	return error;
}

/* Row 0 the column names, then the values ("NULL" for SQL NULL), each safe for a terminal. */
static char **printable_cells(floe_arena *a, floe_engine_result *r)
{
	size_t rows = floe_engine_result_rows(r), cols = floe_engine_result_columns(r);
	char **cells = floe_arena_alloc(a, ((rows + 1) * cols + 1) * sizeof(char *));
	floe_buf b = FLOE_BUF_INIT;
	for (size_t i = 0; i <= rows; i++)
		for (size_t c = 0; c < cols; c++) {
			const char *v = i == 0 ? floe_engine_result_name(r, c) : floe_engine_result_text(r, i - 1, c);
			floe_buf_clear(&b);
			floe_text_put_printable(&b, v ? v : "NULL");
			cells[i * cols + c] = floe_arena_strdup(a, floe_buf_cstr(&b));
		}
	floe_buf_free(&b);
	return cells;
}

static void render_table(floe_buf *out, floe_arena *a, floe_engine_result *r)
{
	size_t rows = floe_engine_result_rows(r), cols = floe_engine_result_columns(r);
	char **cells = printable_cells(a, r);
	size_t *width = floe_arena_alloc(a, (cols + 1) * sizeof(size_t));
	for (size_t c = 0; c < cols; c++) {
		width[c] = strlen(cells[c]);
		for (size_t i = 1; i <= rows; i++) {
			size_t n = strlen(cells[i * cols + c]);
			if (n > width[c])
				width[c] = n;
		}
	}
	for (size_t i = 0; i <= rows; i++) {
		for (size_t c = 0; c < cols; c++)
			floe_buf_printf(out, "%s%-*.*s", c ? " | " : "", (int)width[c], (int)width[c], cells[i * cols + c]);
		floe_buf_putc(out, '\n');
		for (size_t c = 0; i == 0 && c < cols; c++) {
			floe_buf_puts(out, c ? "-+-" : "");
			for (size_t k = 0; k < width[c]; k++)
				floe_buf_putc(out, '-');
		}
		floe_buf_puts(out, i == 0 ? "\n" : "");
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
	readable files = { 0 };
	int error = -1;
	if (floe_engine_open(&e, NULL) < 0 || define_views(e, config, a, &files) < 0 ||
	    floe_engine_seal(e, files.paths, files.n) < 0)
		goto cleanup;
	if (floe_engine_query_read(e, &r, sql) < 0) {
		if (floe_error_last()->cls == FLOE_ERR_IO && !floe_error_last()->hint)
			floe_error_hint("A file of the warehouse could not be read: check that it exists and that "
					"this user may read it.");
		goto cleanup;
	}
	if (format == FLOE_QUERY_CSV)
		render_csv(out, r);
	else if (format == FLOE_QUERY_JSON)
		render_json(out, r);
	else
		render_table(out, a, r);
	error = 0;
cleanup:
	floe_engine_result_free(r);
	floe_engine_close(e);
	floe_arena_free(a);
	return error;
}
