/*
 * duck_parquet.c — test helper: Parquet data files written by the embedded DuckDB,
 * described as floe_iceberg_data_file (see duck_parquet.h).
 */
#include "duck_parquet.h"

#include "base/buf.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/text.h"
#include "iceberg/storage.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* `s` as a SQL string literal body (quotes doubled), in `a`. */
static const char *sql_quote(floe_arena *a, const char *s)
{
	floe_buf b = FLOE_BUF_INIT;
	for (; *s; s++) {
		if (*s == '\'')
			floe_buf_putc(&b, '\'');
		floe_buf_putc(&b, *s);
	}
	const char *out = floe_arena_strdup(a, floe_buf_cstr(&b));
	floe_buf_free(&b);
	return out;
}

static int copy_to_parquet(floe_arena *a, floe_engine *e, const floe_iceberg_schema *schema,
			   const char *select_sql, const char *path)
{
	floe_engine_result *cols = NULL;
	floe_buf ids = FLOE_BUF_INIT, sql = FLOE_BUF_INIT;
	int error = -1;
	floe_buf_printf(&sql, "DESCRIBE (%s)", select_sql);
	if (floe_engine_query(e, &cols, floe_buf_cstr(&sql)) < 0)
		goto cleanup;
	for (size_t i = 0; i < floe_engine_result_rows(cols); i++) {
		const char *name = floe_engine_result_text(cols, i, 0);
		const floe_iceberg_field *f = floe_iceberg_schema_field(schema, name);
		if (!f) {
			floe_error_set(FLOE_ERR_USAGE, "column \"%s\" of the query is not in the schema", name);
			goto cleanup;
		}
		floe_buf_printf(&ids, "%s'%s': %d", i ? ", " : "", sql_quote(a, name), f->id);
	}
	floe_buf_clear(&sql);
	floe_buf_printf(&sql, "COPY (%s) TO '%s' (FORMAT parquet, FIELD_IDS {%s})", select_sql,
			sql_quote(a, path), floe_buf_cstr(&ids));
	error = floe_engine_exec(e, floe_buf_cstr(&sql));
cleanup:
	floe_engine_result_free(cols);
	floe_buf_free(&ids);
	floe_buf_free(&sql);
	return error;
}

static int64_t to_i64(const char *s)
{
	int64_t v = -1;
	if (!s || floe_text_parse_int64(&v, s, strlen(s), INT64_MIN, INT64_MAX) < 0)
		return -1;
	return v;
}

/* Row-group starts and per-column sizes and counts from parquet_metadata(). */
static int read_layout(floe_arena *a, floe_engine *e, const char *qpath, floe_iceberg_data_file *f,
		       floe_engine_result **per_column)
{
	floe_engine_result *rg = NULL;
	floe_buf sql = FLOE_BUF_INIT;
	int error = -1;
	floe_buf_printf(&sql, "SELECT row_group_id, min(coalesce(dictionary_page_offset, "
			"data_page_offset)), max(row_group_num_rows) FROM parquet_metadata('%s') "
			"GROUP BY 1 ORDER BY 1", qpath);
	if (floe_engine_query(e, &rg, floe_buf_cstr(&sql)) < 0)
		goto cleanup;
	int64_t *splits = floe_arena_alloc(a, (floe_engine_result_rows(rg) + 1) * sizeof(*splits));
	f->record_count = 0;
	for (size_t i = 0; i < floe_engine_result_rows(rg); i++) {
		splits[i] = to_i64(floe_engine_result_text(rg, i, 1));
		f->record_count += to_i64(floe_engine_result_text(rg, i, 2));
	}
	f->split_offsets = splits;
	f->n_split_offsets = floe_engine_result_rows(rg);
	floe_buf_clear(&sql);
	floe_buf_printf(&sql, "SELECT path_in_schema, sum(total_compressed_size), sum(num_values), "
			"sum(stats_null_count) FROM parquet_metadata('%s') GROUP BY 1", qpath);
	error = floe_engine_query(e, per_column, floe_buf_cstr(&sql));
cleanup:
	floe_engine_result_free(rg);
	floe_buf_free(&sql);
	return error;
}

/* The SQL expression giving a bound of column `q` as text that encodes simply. */
static const char *bound_expr(floe_arena *a, const floe_iceberg_type *t, const char *fn,
			      const char *q)
{
	switch (t->id) {
	case FLOE_ICEBERG_BOOLEAN:
		return floe_arena_printf(a, "%s(%s)::int", fn, q);
	case FLOE_ICEBERG_INT:
	case FLOE_ICEBERG_LONG:
		return floe_arena_printf(a, "%s(%s)::bigint", fn, q);
	case FLOE_ICEBERG_DATE:
		return floe_arena_printf(a, "(%s(%s) - DATE '1970-01-01')::bigint", fn, q);
	case FLOE_ICEBERG_TIMESTAMP:
	case FLOE_ICEBERG_TIMESTAMPTZ:
		return floe_arena_printf(a, "epoch_us(%s(%s))", fn, q);
	case FLOE_ICEBERG_FLOAT:
	case FLOE_ICEBERG_DOUBLE:
		return floe_arena_printf(a, "%s(%s) FILTER (WHERE NOT isnan(%s))::double", fn, q, q);
	case FLOE_ICEBERG_DECIMAL:
		/* DuckDB prints a decimal with all `scale` digits: drop the point, exactly. */
		return t->precision <= 18 ? floe_arena_printf(a, "replace(%s(%s)::varchar, '.', '')::bigint",
							      fn, q)
					  : NULL;
	case FLOE_ICEBERG_STRING:
		return floe_arena_printf(a, "%s(%s)::varchar", fn, q);
	default:
		return NULL;
	}
}

static void set_bound(floe_arena *a, floe_iceberg_column_stats *c, const floe_iceberg_type *t,
		      const char *text, bool upper)
{
	uint8_t *buf;
	size_t len = 0;
	if (!text)
		return;
	if (t->id == FLOE_ICEBERG_STRING) {
		buf = floe_arena_alloc(a, strlen(text) + 4);
		if (upper) {
			if (floe_iceberg_bound_string_upper(buf, &len, text, strlen(text), 16) < 0)
				return;
		} else {
			len = floe_iceberg_bound_string_lower(buf, text, strlen(text), 16);
		}
	} else {
		buf = floe_arena_alloc(a, 16);
		if (t->id == FLOE_ICEBERG_FLOAT || t->id == FLOE_ICEBERG_DOUBLE)
			len = floe_iceberg_bound_real(buf, t->id, strtod(text, NULL));
		else if (t->id == FLOE_ICEBERG_DECIMAL)
			len = floe_iceberg_bound_decimal64(buf, to_i64(text));
		else if (t->id == FLOE_ICEBERG_BOOLEAN)
			len = floe_iceberg_bound_bool(buf, to_i64(text) != 0);
		else
			len = floe_iceberg_bound_int(buf, t->id, to_i64(text));
	}
	if (upper) {
		c->has_upper = true;
		c->upper = buf;
		c->upper_len = len;
	} else {
		c->has_lower = true;
		c->lower = buf;
		c->lower_len = len;
	}
}

/* Bounds and NaN counts of one primitive top-level column. */
static int column_bounds(floe_arena *a, floe_engine *e, const char *qpath,
			 const floe_iceberg_field *f, floe_iceberg_column_stats *c)
{
	floe_engine_result *r = NULL;
	const char *q = floe_arena_printf(a, "\"%s\"", f->name);
	const char *lo = bound_expr(a, f->type, "min", q), *hi = bound_expr(a, f->type, "max", q);
	bool real = f->type->id == FLOE_ICEBERG_FLOAT || f->type->id == FLOE_ICEBERG_DOUBLE;
	floe_buf sql = FLOE_BUF_INIT;
	int error = -1;
	if (!lo && !real)
		return 0;
	floe_buf_printf(&sql, "SELECT %s, %s, %s FROM read_parquet('%s')", lo ? lo : "NULL",
			hi ? hi : "NULL", real ? floe_arena_printf(a, "count(*) FILTER (WHERE isnan(%s))", q)
					       : "NULL", qpath);
	if (floe_engine_query(e, &r, floe_buf_cstr(&sql)) < 0)
		goto cleanup;
	set_bound(a, c, f->type, floe_engine_result_text(r, 0, 0), false);
	set_bound(a, c, f->type, floe_engine_result_text(r, 0, 1), true);
	if (real)
		c->nan_value_count = to_i64(floe_engine_result_text(r, 0, 2));
	error = 0;
cleanup:
	floe_engine_result_free(r);
	floe_buf_free(&sql);
	return error;
}

int fx_parquet_write(floe_iceberg_data_file *out, floe_arena *arena, floe_engine *engine,
		     const floe_iceberg_schema *schema, const char *select_sql, const char *uri)
{
	floe_engine_result *cols = NULL;
	floe_iceberg_data_file init = FLOE_ICEBERG_DATA_FILE_INIT;
	const char *path = floe_iceberg_uri_to_path(arena, uri), *qpath;
	char *dir;
	struct stat st;
	int error = -1;
	*out = init;
	if (!path)
		return floe_error_set(FLOE_ERR_USAGE, "\"%s\" is not a local file", uri);
	dir = floe_arena_strdup(arena, path);
	*strrchr(dir, '/') = '\0';
	qpath = sql_quote(arena, path);
	if (floe_fs_mkdir_p(dir, 0755) < 0 || copy_to_parquet(arena, engine, schema, select_sql, path) < 0 ||
	    read_layout(arena, engine, qpath, out, &cols) < 0)
		goto cleanup;
	floe_iceberg_column_stats *stats = floe_arena_alloc(arena, (floe_engine_result_rows(cols) + 1) *
								      sizeof(*stats));
	for (size_t i = 0; i < floe_engine_result_rows(cols); i++) {
		floe_iceberg_column_stats init_c = FLOE_ICEBERG_COLUMN_STATS_INIT;
		const floe_iceberg_field *f = floe_iceberg_schema_field(schema,
									floe_engine_result_text(cols, i, 0));
		if (!f)
			continue; /* nested leaves: no stats, as Java and PyIceberg do */
		stats[out->n_columns] = init_c;
		stats[out->n_columns].field_id = f->id;
		stats[out->n_columns].column_size = to_i64(floe_engine_result_text(cols, i, 1));
		stats[out->n_columns].value_count = to_i64(floe_engine_result_text(cols, i, 2));
		stats[out->n_columns].null_value_count = to_i64(floe_engine_result_text(cols, i, 3));
		if (column_bounds(arena, engine, qpath, f, &stats[out->n_columns]) < 0)
			goto cleanup;
		out->n_columns++;
	}
	out->columns = stats;
	if (stat(path, &st) < 0) {
		floe_error_set_errno(FLOE_ERR_IO, "could not stat \"%s\"", path);
		goto cleanup;
	}
	out->file_size_in_bytes = (int64_t)st.st_size;
	out->path = floe_arena_strdup(arena, uri);
	out->format = "PARQUET";
	error = 0;
cleanup:
	floe_engine_result_free(cols);
	return error;
}
