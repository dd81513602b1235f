/*
 * catalog_sql.c — the embedded catalog: a SQLite file (through src/db, the one module
 * that calls SQLite) with the schema of Iceberg's JDBC catalog, which PyIceberg's
 * SqlCatalog and Java's JdbcCatalog (schema V1, with iceberg_type) open as they are.
 *
 * Every commit is one UPDATE … WHERE metadata_location = <expected>, SQLite's own
 * transaction making it atomic: one row changed is SWAPPED, none is CONFLICT. A
 * failed UPDATE leaves the outcome to be found out: the pointer is read again, and
 * only when that read fails too is the outcome UNKNOWN.
 */
#include "iceberg/catalog_sql.h"
#include "iceberg/storage_s3.h"
#include "iceberg/catalog.h"
#include "iceberg/recover.h"

#include "base/arena.h"
#include "base/error.h"
#include "base/fs.h"
#include "db/db.h"

#include <stdlib.h>
#include <string.h>

struct floe_catalog_sql {
	floe_db *db;
	char *name; /* catalog_name */
};

static const char *schema_sql =
	"CREATE TABLE IF NOT EXISTS iceberg_tables ("
	" catalog_name VARCHAR(255) NOT NULL,"
	" table_namespace VARCHAR(255) NOT NULL,"
	" table_name VARCHAR(255) NOT NULL,"
	" metadata_location VARCHAR(1000),"
	" previous_metadata_location VARCHAR(1000),"
	" iceberg_type VARCHAR(5),"
	" PRIMARY KEY (catalog_name, table_namespace, table_name));"
	"CREATE TABLE IF NOT EXISTS iceberg_namespace_properties ("
	" catalog_name VARCHAR(255) NOT NULL,"
	" namespace VARCHAR(255) NOT NULL,"
	" property_key VARCHAR(255) NOT NULL,"
	" property_value VARCHAR(1000),"
	" PRIMARY KEY (catalog_name, namespace, property_key));";

/*
 * A catalog file that is not there. Creating one is refused when the warehouse
 * around it already holds tables: an empty catalog would start each of them over
 * and orphan its history — unless the caller is the recovery that registers them.
 */
static int check_missing(const char *path, bool create, bool recovering)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? floe_xstrndup(path, (size_t)(slash - path)) : floe_xstrndup(".", 1);
	size_t n = 0;
	int rc = recovering ? 0 : floe_iceberg_warehouse_count_tables(&n, *dir ? dir : "/");
	free(dir);
	if (rc < 0 || recovering || (create && n == 0))
		return rc;
	if (n == 0) {
		floe_error_set(FLOE_ERR_CONFIG, "catalog \"%s\" does not exist", path);
		floe_error_hint("Run `floe init` in the project to create it.");
		return -1;
	}
	floe_error_set(FLOE_ERR_CONFIG, "catalog \"%s\" is missing, but the warehouse holds %zu table%s",
		       path, n, n == 1 ? "" : "s");
	floe_error_detail("Every table's history is on disk, but only the catalog says which metadata file "
			  "is current; an empty catalog would load every table again from scratch and "
			  "orphan its history.");
	floe_error_hint("Run `floe catalog recover` to register each table from its newest valid metadata "
			"file (`floe catalog recover --dry-run` shows what it would do).");
	return -1;
}

static int open_file(floe_catalog_sql **out, const char *path, bool create, bool recovering)
{
	floe_db_opts opts = FLOE_DB_OPTS_INIT;
	floe_db *db = NULL;
	*out = NULL;
	if (!floe_fs_exists(path) && check_missing(path, create, recovering) < 0)
		return -1;
	opts.create = create;
	opts.busy_timeout_ms = 30000; /* writers wait for each other: commits are short */
	if (floe_db_open(&db, path, &opts) < 0)
		return -1;
	if (floe_db_exec(db, create ? schema_sql : "SELECT count(*) FROM iceberg_tables") < 0) {
		floe_error_context("while opening catalog \"%s\"", path);
		floe_error_hint("It must be a SQLite file with Iceberg's JDBC-catalog tables.");
		floe_db_close(db);
		return -1;
	}
	floe_catalog_sql *c = floe_xcalloc(1, sizeof(*c));
	c->db = db;
	c->name = floe_xstrndup(FLOE_ICEBERG_DEFAULT_CATALOG_NAME,
				strlen(FLOE_ICEBERG_DEFAULT_CATALOG_NAME));
	*out = c;
	return 0;
}

int floe_catalog_sql_open(floe_catalog_sql **out, const char *path, bool create)
{
	return open_file(out, path, create, false);
}

void floe_catalog_sql_close(floe_catalog_sql *catalog)
{
	if (!catalog)
		return;
	floe_db_close(catalog->db);
	free(catalog->name);
	free(catalog);
}

/* Prepare `sql` and bind the NULL-terminated text parameters in order. */
static int prepare(floe_catalog_sql *c, floe_db_stmt **st, const char *sql, const char *const *args)
{
	if (floe_db_prepare(st, c->db, sql) < 0)
		return -1;
	for (int i = 0; args && args[i]; i++)
		if (floe_db_bind_text(*st, i + 1, args[i]) < 0) {
			floe_db_finalize(*st);
			*st = NULL;
			return -1;
		}
	return 0;
}

/* The first column of the first row as an integer (0 when there is no row). */
static int query_int(floe_catalog_sql *c, const char *sql, const char *const *args, int64_t *out)
{
	floe_db_stmt *st = NULL;
	int rc;
	*out = 0;
	if (prepare(c, &st, sql, args) < 0)
		return -1;
	rc = floe_db_step(st);
	if (rc == 1)
		*out = floe_db_column_int64(st, 0);
	floe_db_finalize(st);
	return rc < 0 ? -1 : 0;
}

/* Run a statement without result rows; *changes gets the rows changed. */
static int exec_args(floe_catalog_sql *c, const char *sql, const char *const *args, int64_t *changes)
{
	floe_db_stmt *st = NULL;
	int rc;
	if (prepare(c, &st, sql, args) < 0)
		return -1;
	rc = floe_db_step(st);
	if (rc == 0 && changes)
		*changes = floe_db_changes(c->db);
	floe_db_finalize(st);
	return rc < 0 ? -1 : 0;
}

int floe_catalog_sql_count_tables(const floe_catalog_sql *catalog, long long *out)
{
	int64_t n = 0;
	int rc = query_int((floe_catalog_sql *)catalog, "SELECT count(*) FROM iceberg_tables", NULL, &n);
	*out = (long long)n;
	return rc;
}

/* ---- the catalog ops ---- */

static int sql_load(void *state, floe_buf *out, const char *ns, const char *table)
{
	floe_catalog_sql *c = state;
	const char *args[] = { c->name, ns, table, NULL };
	floe_db_stmt *st = NULL;
	int rc, found = 0;
	if (prepare(c, &st,
		    "SELECT metadata_location FROM iceberg_tables WHERE catalog_name = ?1 AND "
		    "table_namespace = ?2 AND table_name = ?3 AND "
		    "(iceberg_type = 'TABLE' OR iceberg_type IS NULL)", args) < 0)
		return -1;
	rc = floe_db_step(st);
	if (rc == 1 && floe_db_column_text(st, 0)) {
		floe_buf_clear(out);
		floe_buf_puts(out, floe_db_column_text(st, 0));
		found = 1;
	}
	floe_db_finalize(st);
	return rc < 0 ? -1 : found;
}

/* Begin a write transaction and count the entries named `key` (catalog, namespace, table) in it. */
static int begin_checking(floe_catalog_sql *c, const char *const *key, int64_t *taken)
{
	if (floe_db_begin(c->db) < 0)
		return -1;
	if (query_int(c, "SELECT count(*) FROM iceberg_tables WHERE catalog_name = ?1 AND "
		      "table_namespace = ?2 AND table_name = ?3", key, taken) < 0) {
		floe_db_rollback(c->db);
		return -1;
	}
	return 0;
}

static int sql_create(void *state, const char *ns, const char *table, const char *location)
{
	floe_catalog_sql *c = state;
	const char *key[] = { c->name, ns, table, NULL };
	const char *row[] = { c->name, ns, table, location, NULL };
	int64_t taken = 0;
	/* Check and insert in one write transaction: two creators cannot both win. */
	if (begin_checking(c, key, &taken) < 0)
		return -1;
	if (taken) {
		floe_db_rollback(c->db);
		floe_error_set(FLOE_ERR_EXISTS, "table \"%s.%s\" already exists in catalog \"%s\"", ns,
			       table, floe_db_path(c->db));
		floe_error_hint("Load the table instead, or drop it first.");
		return -1;
	}
	if (exec_args(c, "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
		      "metadata_location, previous_metadata_location, iceberg_type) "
		      "VALUES (?1, ?2, ?3, ?4, NULL, 'TABLE')", row, NULL) < 0 ||
	    floe_db_commit(c->db) < 0)
		goto fail;
	return 0;
fail:
	floe_db_rollback(c->db);
	return -1;
}

static int sql_swap(void *state, const char *ns, const char *table, const char *expected,
		    const char *next, floe_iceberg_swap_outcome *outcome)
{
	floe_catalog_sql *c = state;
	const char *args[] = { next, expected, c->name, ns, table, NULL };
	floe_buf now = FLOE_BUF_INIT;
	int64_t changes = 0;
	int found;
	*outcome = FLOE_ICEBERG_UNKNOWN;
	if (exec_args(c, "UPDATE iceberg_tables SET metadata_location = ?1, "
		      "previous_metadata_location = ?2 WHERE catalog_name = ?3 AND "
		      "table_namespace = ?4 AND table_name = ?5 AND metadata_location = ?2 AND "
		      "(iceberg_type = 'TABLE' OR iceberg_type IS NULL)", args, &changes) == 0) {
		*outcome = changes == 1 ? FLOE_ICEBERG_SWAPPED : FLOE_ICEBERG_CONFLICT;
		return 0;
	}
	/*
	 * The UPDATE failed: learn what the pointer is now. Still `expected`: nothing changed
	 * and no writer won — the UPDATE's own error (disk full, I/O) stands, unless it was a
	 * busy database (another writer holds it), which is a race to retry.
	 */
	const floe_error *e = floe_error_last();
	bool busy = e && e->cls == FLOE_ERR_UNREACHABLE;
	found = sql_load(c, &now, ns, table);
	if (found == 1 && strcmp(floe_buf_cstr(&now), next) == 0)
		*outcome = FLOE_ICEBERG_SWAPPED;
	else if (found == 1 && strcmp(floe_buf_cstr(&now), expected) == 0)
		*outcome = busy ? FLOE_ICEBERG_CONFLICT : FLOE_ICEBERG_FAILED;
	else if (found >= 0)
		*outcome = FLOE_ICEBERG_CONFLICT;
	floe_buf_free(&now);
	if (*outcome == FLOE_ICEBERG_SWAPPED || *outcome == FLOE_ICEBERG_CONFLICT) {
		floe_error_clear();
		return 0;
	}
	return -1;
}

static int sql_drop(void *state, const char *ns, const char *table)
{
	floe_catalog_sql *c = state;
	const char *args[] = { c->name, ns, table, NULL };
	return exec_args(c, "DELETE FROM iceberg_tables WHERE catalog_name = ?1 AND "
			 "table_namespace = ?2 AND table_name = ?3", args, NULL);
}

static int sql_create_namespace(void *state, const char *ns, const floe_iceberg_kv *props, size_t n)
{
	floe_catalog_sql *c = state;
	const char *sql = "INSERT OR IGNORE INTO iceberg_namespace_properties "
			  "(catalog_name, namespace, property_key, property_value) VALUES (?1, ?2, ?3, ?4)";
	const char *exists[] = { c->name, ns, "exists", "true", NULL };
	if (exec_args(c, sql, exists, NULL) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const char *args[] = { c->name, ns, props[i].key, props[i].value, NULL };
		if (exec_args(c, sql, args, NULL) < 0)
			return -1;
	}
	return 0;
}

static int sql_namespace_exists(void *state, const char *ns, bool *out)
{
	floe_catalog_sql *c = state;
	const char *args[] = { c->name, ns, NULL };
	int64_t n = 0;
	int rc = query_int(c, "SELECT (SELECT count(*) FROM iceberg_namespace_properties WHERE "
			   "catalog_name = ?1 AND namespace = ?2) + (SELECT count(*) FROM iceberg_tables "
			   "WHERE catalog_name = ?1 AND table_namespace = ?2)", args, &n);
	*out = n > 0;
	return rc;
}

/* Every first column of `sql`'s rows, as strings in `arena`. */
static int list_strings(floe_catalog_sql *c, const char *sql, const char *const *args,
			floe_arena *arena, const char ***out, size_t *n)
{
	floe_db_stmt *st = NULL;
	size_t cap = 0;
	int rc;
	*n = 0;
	*out = floe_arena_grow(arena, NULL, 0, &cap, sizeof(**out));
	if (prepare(c, &st, sql, args) < 0)
		return -1;
	while ((rc = floe_db_step(st)) == 1) {
		const char *t = floe_db_column_text(st, 0);
		*FLOE_ARENA_PUSH(arena, *out, *n, cap) = floe_arena_strdup(arena, t ? t : "");
	}
	floe_db_finalize(st);
	return rc < 0 ? -1 : 0;
}

static int sql_list_namespaces(void *state, floe_arena *arena, const char ***out, size_t *n)
{
	floe_catalog_sql *c = state;
	const char *args[] = { c->name, NULL };
	return list_strings(c, "SELECT namespace FROM iceberg_namespace_properties WHERE catalog_name = ?1 "
			    "UNION SELECT table_namespace FROM iceberg_tables WHERE catalog_name = ?1 "
			    "ORDER BY 1", args, arena, out, n);
}

static int sql_list_tables(void *state, const char *ns, floe_arena *arena, const char ***out,
			   size_t *n)
{
	floe_catalog_sql *c = state;
	const char *args[] = { c->name, ns, NULL };
	return list_strings(c, "SELECT table_name FROM iceberg_tables WHERE catalog_name = ?1 AND "
			    "table_namespace = ?2 AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL) "
			    "ORDER BY 1", args, arena, out, n);
}

static void sql_close(void *state)
{
	floe_catalog_sql_close(state);
}

static int sql_rename(void *state, const char *ns, const char *table, const char *to_ns,
		      const char *to_table)
{
	floe_catalog_sql *c = state;
	const char *to[] = { c->name, to_ns, to_table, NULL };
	const char *args[] = { to_ns, to_table, c->name, ns, table, NULL };
	int64_t taken = 0, changes = 0;
	if (begin_checking(c, to, &taken) < 0)
		return -1;
	if (taken) {
		floe_db_rollback(c->db);
		return floe_error_set(FLOE_ERR_EXISTS, "table \"%s.%s\" already exists", to_ns, to_table);
	}
	if (exec_args(c, "UPDATE iceberg_tables SET table_namespace = ?1, table_name = ?2 WHERE "
		      "catalog_name = ?3 AND table_namespace = ?4 AND table_name = ?5 AND "
		      "(iceberg_type = 'TABLE' OR iceberg_type IS NULL)", args, &changes) < 0)
		goto fail;
	if (changes == 0) {
		floe_db_rollback(c->db);
		return floe_error_set(FLOE_ERR_CONFIG, "table \"%s.%s\" does not exist", ns, table);
	}
	if (floe_db_commit(c->db) < 0)
		goto fail;
	return 0;
fail:
	floe_db_rollback(c->db);
	return -1;
}

static int sql_namespace_properties(void *state, const char *ns, floe_arena *arena,
				    floe_iceberg_kv **out, size_t *n)
{
	floe_catalog_sql *c = state;
	const char *args[] = { c->name, ns, NULL };
	floe_db_stmt *st = NULL;
	size_t cap = 0;
	int rc;
	*n = 0;
	*out = floe_arena_grow(arena, NULL, 0, &cap, sizeof(**out));
	if (prepare(c, &st, "SELECT property_key, property_value FROM iceberg_namespace_properties "
		    "WHERE catalog_name = ?1 AND namespace = ?2 AND property_key <> 'exists' ORDER BY 1",
		    args) < 0)
		return -1;
	while ((rc = floe_db_step(st)) == 1) {
		floe_iceberg_kv *kv = FLOE_ARENA_PUSH(arena, *out, *n, cap);
		const char *k = floe_db_column_text(st, 0), *v = floe_db_column_text(st, 1);
		kv->key = floe_arena_strdup(arena, k ? k : "");
		kv->value = floe_arena_strdup(arena, v ? v : "");
	}
	floe_db_finalize(st);
	return rc < 0 ? -1 : 0;
}

static int sql_update_namespace(void *state, const char *ns, const floe_iceberg_kv *set,
				size_t n_set, const char *const *remove, size_t n_remove)
{
	floe_catalog_sql *c = state;
	if (floe_db_begin(c->db) < 0)
		return -1;
	for (size_t i = 0; i < n_remove; i++) {
		const char *args[] = { c->name, ns, remove[i], NULL };
		if (exec_args(c, "DELETE FROM iceberg_namespace_properties WHERE catalog_name = ?1 AND "
			      "namespace = ?2 AND property_key = ?3", args, NULL) < 0)
			goto fail;
	}
	for (size_t i = 0; i < n_set; i++) {
		const char *args[] = { c->name, ns, set[i].key, set[i].value, NULL };
		if (exec_args(c, "INSERT OR REPLACE INTO iceberg_namespace_properties (catalog_name, "
			      "namespace, property_key, property_value) VALUES (?1, ?2, ?3, ?4)", args, NULL) < 0)
			goto fail;
	}
	if (floe_db_commit(c->db) < 0)
		goto fail;
	return 0;
fail:
	floe_db_rollback(c->db);
	return -1;
}

static int sql_drop_namespace(void *state, const char *ns)
{
	floe_catalog_sql *c = state;
	const char *args[] = { c->name, ns, NULL };
	return exec_args(c, "DELETE FROM iceberg_namespace_properties WHERE catalog_name = ?1 AND "
			 "namespace = ?2", args, NULL);
}

static const floe_iceberg_catalog_ops sql_ops = {
	"sql",
	sql_load,
	sql_create,
	sql_swap,
	sql_drop,
	sql_create_namespace,
	sql_namespace_exists,
	sql_list_namespaces,
	sql_list_tables,
	sql_close,
	sql_rename,
	sql_namespace_properties,
	sql_update_namespace,
	sql_drop_namespace,
};

int floe_iceberg_catalog_open_sql(floe_iceberg_catalog **out, const char *path,
				  const floe_iceberg_catalog_opts *opts)
{
	floe_iceberg_catalog_opts defaults = FLOE_ICEBERG_CATALOG_OPTS_INIT;
	floe_catalog_sql *sql = NULL;
	floe_arena *arena = floe_arena_new();
	const char *warehouse;
	int error = -1;
	*out = NULL;
	if (!opts)
		opts = &defaults;
	const char *slash = strrchr(path, '/');
	if (opts->create && slash && slash != path &&
	    floe_fs_mkdir_p(floe_arena_strndup(arena, path, (size_t)(slash - path)), 0755) < 0)
		goto cleanup;
	if (open_file(&sql, path, opts->create, opts->recovering) < 0)
		goto cleanup;
	if (opts->name) {
		free(sql->name);
		sql->name = floe_xstrndup(opts->name, strlen(opts->name));
	}
	const char *dir = opts->warehouse ? opts->warehouse
			  : slash ? floe_arena_strndup(arena, path, (size_t)(slash - path)) : ".";
	const floe_iceberg_s3_opts *s3 = floe_iceberg_storage_routed_s3(dir);
	floe_iceberg_storage *storage = NULL;
	warehouse = s3 ? s3->location : floe_iceberg_path_to_uri(arena, dir);
	if (!warehouse || (s3 ? floe_iceberg_storage_s3(&storage, s3) : 0) < 0)
		goto cleanup;
	*out = floe_iceberg_catalog_new(&sql_ops, sql, storage ? storage : floe_iceberg_storage_local(), warehouse);
	sql = NULL;
	error = 0;
cleanup:
	floe_catalog_sql_close(sql);
	floe_arena_free(arena);
	return error;
}

int floe_iceberg_catalog_prepare_sql(const char *path, bool create)
{
	floe_iceberg_catalog_opts opts = FLOE_ICEBERG_CATALOG_OPTS_INIT;
	floe_iceberg_catalog *cat = NULL;
	opts.create = create;
	int rc = floe_iceberg_catalog_open_sql(&cat, path, &opts);
	floe_iceberg_catalog_free(cat);
	return rc;
}
