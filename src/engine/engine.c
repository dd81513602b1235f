/*
 * engine.c — the embedded DuckDB: open, run SQL, materialize small results as text,
 * and translate DuckDB's errors into floe's error chain (nowhere else does).
 */
#include "engine/engine.h"

#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/error.h"
#include "engine/engine_int.h"

_Static_assert(sizeof(duckdb_result) == 4 * sizeof(idx_t) + 2 * sizeof(void *),
	       "duckdb_result must keep DuckDB's layout");

struct floe_engine {
	duckdb_database db;
	duckdb_connection conn;
	bool borrowed; /* floe_engine_connect: the database is another engine's */
	bool sealed; /* floe_engine_seal ran: only reading is left */
	bool hide_data; /* floe_engine_hide_data_in_errors ran: DuckDB's text only where it quotes no data */
	floe_engine_key pii_key; /* floe_hmac's key; registered by address */
};

struct floe_engine_result {
	floe_arena *arena;
	size_t rows;
	size_t cols;
	char **names; /* cols entries */
	char **cells; /* rows * cols entries, row-major; NULL for SQL NULL */
};

/*
 * Settings every engine starts with. The engine must not fetch code at run time (CI and
 * many servers have no route to DuckDB's extension repository, and a download would make
 * results depend on the day): it runs what libduckdb.so has built in.
 */
static const struct {
	const char *name;
	const char *value;
} engine_settings[] = {
	{ "autoinstall_known_extensions", "false" },
	{ "autoload_known_extensions", "false" },
};

/* A one-line excerpt of `sql` for messages: whitespace runs collapsed, at most ~60 bytes. */
static void sql_excerpt(char *out, size_t size, const char *sql)
{
	const size_t limit = 60;
	size_t n = 0;
	int space = 0;
	const char *p = sql;

	assert(size > limit + 4);
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	for (; *p && n < limit; p++) {
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
			space = 1;
			continue;
		}
		if (space && n > 0) {
			if (n + 1 >= limit)
				break;
			out[n++] = ' ';
		}
		space = 0;
		out[n++] = *p;
	}
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	if (*p) {
		/* Cut on a UTF-8 character boundary, then mark the cut. */
		while (n > 0 && ((unsigned char)out[n - 1] & 0xC0) == 0x80)
			n--;
		if (n > 0 && ((unsigned char)out[n - 1] & 0x80))
			n--;
		memcpy(out + n, "...", 3);
		n += 3;
	}
	out[n] = '\0';
}

/* The floe error class for a DuckDB error: whose fault it is decides the exit code. */
static floe_error_class class_of(duckdb_error_type type)
{
	switch (type) {
	case DUCKDB_ERROR_PARSER:
	case DUCKDB_ERROR_SYNTAX:
	case DUCKDB_ERROR_BINDER:
	case DUCKDB_ERROR_CATALOG:
	case DUCKDB_ERROR_PARAMETER_NOT_RESOLVED:
	case DUCKDB_ERROR_PARAMETER_NOT_ALLOWED:
		return FLOE_ERR_USAGE; /* the statement itself is wrong */
	case DUCKDB_ERROR_IO:
	case DUCKDB_ERROR_PERMISSION:
		return FLOE_ERR_IO;
	case DUCKDB_ERROR_NETWORK:
	case DUCKDB_ERROR_HTTP:
		return FLOE_ERR_UNREACHABLE;
	default:
		return FLOE_ERR_INTERNAL;
	}
}

/*
 * The class of a DuckDB error in a statement a user wrote (floe query): besides a wrong
 * statement, a file DuckDB's configuration refuses and a value the statement cannot convert
 * or compute are the user's to fix, not floe's.
 */
static floe_error_class user_class_of(duckdb_error_type type)
{
	switch (type) {
	case DUCKDB_ERROR_PERMISSION:
	case DUCKDB_ERROR_CONVERSION:
	case DUCKDB_ERROR_OUT_OF_RANGE:
	case DUCKDB_ERROR_MISMATCH_TYPE:
	case DUCKDB_ERROR_DIVIDE_BY_ZERO:
	case DUCKDB_ERROR_INVALID_INPUT:
	case DUCKDB_INVALID_CONFIGURATION: /* a statement that would change the locked configuration */
		return FLOE_ERR_USAGE;
	default:
		return class_of(type);
	}
}

/* Attach DuckDB's own text (which may run to several lines) as the error's detail. */
static void detail_from_duckdb(const char *why)
{
	size_t len = why ? strlen(why) : 0;

	while (len > 0 && (why[len - 1] == '\n' || why[len - 1] == ' ' || why[len - 1] == '\r'))
		len--;
	if (len == 0)
		floe_error_detail("DuckDB gave no reason.");
	else
		floe_error_detail("%.*s", (int)len, why);
}

/* DuckDB's name of its error class (duckdb.h's duckdb_error_type, 0..42). */
static const char *error_type_name(duckdb_error_type type)
{
	static const char *const names[] = {
		"Invalid", "Out of Range", "Conversion", "Unknown Type", "Decimal", "Mismatch Type",
		"Divide by Zero", "Object Size", "Invalid Type", "Serialization", "Transaction", "Not Implemented",
		"Expression", "Catalog", "Parser", "Planner", "Scheduler", "Executor", "Constraint", "Index", "Stat",
		"Connection", "Syntax", "Settings", "Binder", "Network", "Optimizer", "Null Pointer", "IO",
		"Interrupt", "Fatal", "Internal", "Invalid Input", "Out of Memory", "Permission",
		"Parameter Not Resolved", "Parameter Not Allowed", "Dependency", "HTTP", "Missing Extension",
		"Autoload", "Sequence", "Invalid Configuration"
	};
	return (unsigned)type < sizeof(names) / sizeof(names[0]) ? names[type] : "unknown";
}

/* Whether DuckDB's text for an error of `type` quotes only the statement, never data. */
static bool quotes_no_data(duckdb_error_type type)
{
	return type == DUCKDB_ERROR_PARSER || type == DUCKDB_ERROR_SYNTAX || type == DUCKDB_ERROR_BINDER ||
	       type == DUCKDB_ERROR_CATALOG;
}

/* Set the floe error for a failed duckdb_query: what failed, DuckDB's text (or class) as detail. */
static int set_query_error(const floe_engine *engine, duckdb_result *res, const char *sql, bool user)
{
	char excerpt[80];
	duckdb_error_type type = duckdb_result_error_type(res);

	sql_excerpt(excerpt, sizeof(excerpt), sql);
	floe_error_set(user ? user_class_of(type) : class_of(type), "DuckDB could not run \"%s\"", excerpt);
	if (engine->hide_data && !quotes_no_data(type))
		floe_error_detail("DuckDB's %s error (its text is not shown: it may quote the data).",
				  error_type_name(type));
	else
		detail_from_duckdb(duckdb_result_error(res));
	return -1;
}

int floe_engine_open(floe_engine **out, const char *path)
{
	floe_engine *engine = NULL;
	duckdb_config config = NULL;
	char *why = NULL;
	int error = -1;

	*out = NULL;
	if (floe_duckdb_load() < 0)
		return -1;
	engine = floe_xcalloc(1, sizeof(*engine));
	if (duckdb_create_config(&config) != DuckDBSuccess) {
		floe_error_set(FLOE_ERR_INTERNAL, "could not create a DuckDB configuration");
		goto cleanup;
	}
	for (size_t i = 0; i < sizeof(engine_settings) / sizeof(engine_settings[0]); i++) {
		if (duckdb_set_config(config, engine_settings[i].name, engine_settings[i].value) !=
		    DuckDBSuccess) {
			floe_error_set(FLOE_ERR_INTERNAL, "DuckDB %s does not accept setting \"%s\"",
				       duckdb_library_version(), engine_settings[i].name);
			floe_error_hint("Use the DuckDB version scripts/setup.sh pins.");
			goto cleanup;
		}
	}
	if (duckdb_open_ext(path, &engine->db, config, &why) != DuckDBSuccess) {
		if (path)
			floe_error_set(FLOE_ERR_IO, "could not open DuckDB database \"%s\"", path);
		else
			floe_error_set(FLOE_ERR_INTERNAL, "could not start an in-memory DuckDB database");
		detail_from_duckdb(why);
		goto cleanup;
	}
	if (duckdb_connect(engine->db, &engine->conn) != DuckDBSuccess) {
		floe_error_set(FLOE_ERR_INTERNAL, "could not connect to DuckDB database \"%s\"",
			       path ? path : ":memory:");
		goto cleanup;
	}
	if (floe_engine_register_functions(engine->conn) < 0 ||
	    floe_engine_register_hmac(engine->conn, &engine->pii_key) < 0 ||
	    floe_engine_run_open_hook(engine) < 0)
		goto cleanup;
	*out = engine;
	engine = NULL;
	error = 0;

cleanup:
	duckdb_free(why);
	if (config)
		duckdb_destroy_config(&config);
	floe_engine_close(engine);
	return error;
}

static void wipe_key(floe_engine_key *key)
{
	if (key->bytes)
		explicit_bzero(key->bytes, key->len);
	free(key->bytes);
	key->bytes = NULL;
	key->len = 0;
}

int floe_engine_set_pii_key(floe_engine *engine, const void *key, size_t len)
{
	if (len == 0) {
		floe_error_set(FLOE_ERR_USAGE, "the PII key is empty");
		return -1;
	}
	wipe_key(&engine->pii_key);
	engine->pii_key.bytes = floe_xmalloc(len);
	memcpy(engine->pii_key.bytes, key, len);
	engine->pii_key.len = len;
	return 0;
}

int floe_engine_connect(floe_engine **out, floe_engine *engine)
{
	floe_engine *c = floe_xcalloc(1, sizeof(*c));
	assert(engine && !engine->borrowed && !engine->sealed);
	*out = NULL;
	c->db = engine->db;
	c->borrowed = true;
	if (duckdb_connect(c->db, &c->conn) != DuckDBSuccess) {
		free(c);
		return floe_error_set(FLOE_ERR_INTERNAL, "could not open a second connection to a DuckDB database");
	}
	*out = c;
	return 0;
}

void floe_engine_close(floe_engine *engine)
{
	if (!engine)
		return;
	wipe_key(&engine->pii_key);
	if (engine->conn)
		duckdb_disconnect(&engine->conn);
	if (engine->db && !engine->borrowed)
		duckdb_close(&engine->db);
	free(engine);
}

int floe_engine_exec(floe_engine *engine, const char *sql)
{
	duckdb_result res;
	int error = 0;

	assert(engine && sql);
	if (duckdb_query(engine->conn, sql, &res) != DuckDBSuccess)
		error = set_query_error(engine, &res, sql, false);
	duckdb_destroy_result(&res);
	return error;
}

/* Copy the result's names and cells, as text, into `result`'s arena. */
static int materialize(floe_engine_result *result, duckdb_result *res, const char *sql)
{
	floe_arena *arena = result->arena;
	size_t rows = (size_t)duckdb_row_count(res);
	size_t cols = (size_t)duckdb_column_count(res);

	if (cols > 0 && rows > FLOE_ENGINE_RESULT_MAX_CELLS / cols) {
		char excerpt[80];
		sql_excerpt(excerpt, sizeof(excerpt), sql);
		floe_error_set(FLOE_ERR_INTERNAL, "result of \"%s\" is too large to hold as text", excerpt);
		floe_error_detail("It has %zu rows and %zu columns; the limit is %zu cells.", rows, cols,
				  FLOE_ENGINE_RESULT_MAX_CELLS);
		floe_error_hint("Write large results to a file with COPY ... TO.");
		return -1;
	}
	result->rows = rows;
	result->cols = cols;
	result->names = floe_arena_alloc(arena, (cols ? cols : 1) * sizeof(char *));
	result->cells = floe_arena_alloc(arena, (rows > 0 && cols > 0 ? rows * cols : 1) * sizeof(char *));
	for (size_t c = 0; c < cols; c++) {
		const char *name = duckdb_column_name(res, c);
		result->names[c] = floe_arena_strdup(arena, name ? name : "");
	}
	for (size_t r = 0; r < rows; r++) {
		for (size_t c = 0; c < cols; c++) {
			char *text;
			if (duckdb_value_is_null(res, c, r))
				continue;
			text = duckdb_value_varchar(res, c, r);
			if (!text)
				return floe_error_set(FLOE_ERR_INTERNAL,
						      "DuckDB could not cast column \"%s\" of row %zu to text",
						      result->names[c], r + 1);
			result->cells[r * cols + c] = floe_arena_strdup(arena, text);
			duckdb_free(text);
		}
	}
	return 0;
}

/* Run `run` and materialize its result; errors name `shown` (the statement the caller was given). */
static int query_as(floe_engine *engine, floe_engine_result **out, const char *run, const char *shown, bool user)
{
	floe_engine_result *result = NULL;
	duckdb_result res;
	int error = -1;

	*out = NULL;
	if (duckdb_query(engine->conn, run, &res) != DuckDBSuccess) {
		set_query_error(engine, &res, shown, user);
		goto cleanup;
	}
	result = floe_xcalloc(1, sizeof(*result));
	result->arena = floe_arena_new();
	if (materialize(result, &res, shown) < 0)
		goto cleanup;
	*out = result;
	result = NULL;
	error = 0;

cleanup:
	duckdb_destroy_result(&res);
	floe_engine_result_free(result);
	return error;
}

int floe_engine_query(floe_engine *engine, floe_engine_result **out, const char *sql)
{
	assert(engine && out && sql);
	return query_as(engine, out, sql, sql, false);
}

int floe_engine_seal(floe_engine *engine, const char *const *readable, size_t n)
{
	floe_buf sql = FLOE_BUF_INIT;
	int error = -1;

	assert(engine && !engine->sealed);
	/* temporary files would be writes: DuckDB keeps everything in memory instead */
	floe_buf_puts(&sql, "SET temp_directory = ''; ");
	if (n > 0) {
		floe_buf_puts(&sql, "SET allowed_paths = [");
		for (size_t i = 0; i < n; i++) {
			floe_buf_puts(&sql, i ? ", " : "");
			floe_buf_put_quoted(&sql, readable[i], '\'');
		}
		floe_buf_puts(&sql, "]; ");
	}
	floe_buf_puts(&sql, "SET enable_external_access = false; SET lock_configuration = true");
	if (floe_engine_exec(engine, floe_buf_cstr(&sql)) < 0 || floe_engine_forbid_writes() < 0)
		goto cleanup;
	engine->sealed = true;
	error = 0;

cleanup:
	floe_buf_free(&sql);
	return error;
}

/*
 * A statement DuckDB could not prepare. The C API gives the reason as text only; the error's
 * type, which says whose fault it is (a misspelt column, a refused file, a failing disk), comes
 * from running the statement, which fails at the same step, binding, before it does anything —
 * and runs only in a sealed engine, where nothing could be written anyway.
 */
static int set_unprepared_error(floe_engine *engine, const char *sql, const char *why)
{
	duckdb_result res;
	char excerpt[80];

	if (duckdb_query(engine->conn, sql, &res) != DuckDBSuccess) {
		set_query_error(engine, &res, sql, true);
	} else {
		sql_excerpt(excerpt, sizeof(excerpt), sql);
		floe_error_set(FLOE_ERR_INTERNAL, "DuckDB could not prepare \"%s\"", excerpt);
		detail_from_duckdb(why);
	}
	duckdb_destroy_result(&res);
	return -1;
}

/* Refuse `p` unless DuckDB runs it as a query; else copy its column names into `names`. */
static int check_query(duckdb_prepared_statement p, const char *sql, floe_arena *arena, char ***names,
		       size_t *n_names)
{
	char excerpt[80];

	if (duckdb_prepared_statement_type(p) != DUCKDB_STATEMENT_TYPE_SELECT) {
		sql_excerpt(excerpt, sizeof(excerpt), sql);
		floe_error_set(FLOE_ERR_USAGE, "\"%s\" is not a query", excerpt);
		floe_error_detail("Only a statement DuckDB runs as a SELECT is accepted: SELECT, FROM, WITH, "
				  "VALUES, TABLE, DESCRIBE, SHOW or SUMMARIZE.");
		floe_error_hint("The lake is read here; it changes only through `floe run`.");
		return -1;
	}
	*n_names = (size_t)duckdb_prepared_statement_column_count(p);
	*names = floe_arena_alloc(arena, (*n_names ? *n_names : 1) * sizeof(char *));
	for (size_t c = 0; c < *n_names; c++) {
		const char *name = duckdb_prepared_statement_column_name(p, c);
		(*names)[c] = floe_arena_strdup(arena, name ? name : "");
		duckdb_free((void *)name);
	}
	return 0;
}

/* `sql` must be exactly one statement, by DuckDB's own parser, and a query (check_query). */
static int check_one_query(floe_engine *engine, const char *sql, floe_arena *arena, char ***names,
			   size_t *n_names)
{
	duckdb_extracted_statements stmts = NULL;
	duckdb_prepared_statement p = NULL;
	char excerpt[80];
	int error = -1;

	sql_excerpt(excerpt, sizeof(excerpt), sql);
	idx_t n = duckdb_extract_statements(engine->conn, sql, &stmts);
	if (n != 1) {
		const char *why = n == 0 ? duckdb_extract_statements_error(stmts) : NULL;
		if (why) {
			floe_error_set(FLOE_ERR_USAGE, "DuckDB could not parse \"%s\"", excerpt);
			detail_from_duckdb(why);
		} else if (n == 0) {
			floe_error_set(FLOE_ERR_USAGE, "no statement to run");
			floe_error_detail("The SQL given is empty or only comments.");
		} else {
			floe_error_set(FLOE_ERR_USAGE, "\"%s\" is %llu statements, not one", excerpt,
				       (unsigned long long)n);
			floe_error_detail("DuckDB's parser counts the statements; exactly one is run.");
			floe_error_hint("Run one statement at a time.");
		}
		goto cleanup;
	}
	if (duckdb_prepare_extracted_statement(engine->conn, stmts, 0, &p) != DuckDBSuccess) {
		set_unprepared_error(engine, sql, duckdb_prepare_error(p));
		goto cleanup;
	}
	error = check_query(p, sql, arena, names, n_names);

cleanup:
	if (p)
		duckdb_destroy_prepare(&p);
	if (stmts)
		duckdb_destroy_extracted(&stmts);
	return error;
}

int floe_engine_query_read(floe_engine *engine, floe_engine_result **out, const char *sql)
{
	floe_arena *arena = floe_arena_new();
	floe_buf text = FLOE_BUF_INIT;
	char **names = NULL;
	size_t n_names = 0;
	int error = -1;

	assert(engine && engine->sealed && out && sql);
	*out = NULL;
	if (check_one_query(engine, sql, arena, &names, &n_names) < 0)
		goto cleanup;
	/* every value as DuckDB's own VARCHAR cast of it: the only text DuckDB has for all types */
	floe_buf_puts(&text, "SELECT CAST(COLUMNS(*) AS VARCHAR) FROM query(");
	floe_buf_put_quoted(&text, sql, '\'');
	floe_buf_putc(&text, ')');
	if (query_as(engine, out, floe_buf_cstr(&text), sql, true) < 0)
		goto cleanup;
	for (size_t c = 0; c < (*out)->cols && c < n_names; c++) /* query() renames duplicates */
		(*out)->names[c] = floe_arena_strdup((*out)->arena, names[c]);
	error = 0;

cleanup:
	floe_buf_free(&text);
	floe_arena_free(arena);
	return error;
}

void floe_engine_put_int64_rows(floe_buf *sql, const int64_t *v, size_t n)
{
	assert(n > 0); /* string_split('') is one empty string, not a BIGINT */
	floe_buf_puts(sql, "SELECT unnest(string_split('");
	for (size_t i = 0; i < n; i++)
		floe_buf_printf(sql, i ? ",%lld" : "%lld", (long long)v[i]);
	floe_buf_puts(sql, "', ','))::BIGINT");
}

int floe_engine_query_text(floe_engine *engine, floe_buf *out, const char *sql)
{
	floe_engine_result *result = NULL;
	const char *text;
	char excerpt[80];
	int error = -1;

	if (floe_engine_query(engine, &result, sql) < 0)
		goto cleanup;
	sql_excerpt(excerpt, sizeof(excerpt), sql);
	if (result->rows == 0 || result->cols == 0) {
		floe_error_set(FLOE_ERR_INTERNAL, "\"%s\" returned no rows", excerpt);
		floe_error_detail("One value was expected.");
		goto cleanup;
	}
	text = floe_engine_result_text(result, 0, 0);
	if (!text) {
		floe_error_set(FLOE_ERR_INTERNAL, "\"%s\" returned NULL", excerpt);
		floe_error_detail("A value was expected.");
		goto cleanup;
	}
	floe_buf_clear(out);
	if (floe_buf_puts(out, text) < 0) {
		floe_error_set(FLOE_ERR_INTERNAL, "value returned by \"%s\" does not fit its buffer", excerpt);
		floe_error_detail("It is %zu bytes long; the buffer holds at most %zu.", strlen(text), out->max);
		goto cleanup;
	}
	error = 0;

cleanup:
	floe_engine_result_free(result);
	return error;
}

size_t floe_engine_result_rows(const floe_engine_result *result)
{
	return result->rows;
}

size_t floe_engine_result_columns(const floe_engine_result *result)
{
	return result->cols;
}

const char *floe_engine_result_name(const floe_engine_result *result, size_t col)
{
	assert(col < result->cols);
	return result->names[col];
}

const char *floe_engine_result_text(const floe_engine_result *result, size_t row, size_t col)
{
	assert(row < result->rows && col < result->cols);
	return result->cells[row * result->cols + col];
}

void floe_engine_result_free(floe_engine_result *result)
{
	if (!result)
		return;
	floe_arena_free(result->arena);
	free(result);
}

const char *floe_engine_version(void)
{
	if (floe_duckdb_load() == 0)
		return duckdb_library_version();
	floe_error_clear();
	return "unavailable"; /* `floe --version`: "(DuckDB unavailable)"; what needs SQL says why */
}

void floe_engine_hide_data_in_errors(floe_engine *engine)
{
	assert(engine);
	engine->hide_data = true;
}
