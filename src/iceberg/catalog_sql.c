/*
 * catalog_sql.c — open/create the JDBC-schema SQLite catalog.
 *
 * The schema is Iceberg's JdbcCatalog "V1" (with iceberg_type), which PyIceberg's
 * SqlCatalog also reads (it ignores the extra column).
 */
#include "iceberg/catalog_sql.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/fs.h"

#include <sqlite3.h>
#include <stdlib.h>

struct floe_catalog_sql {
	sqlite3 *db;
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

static int sqlite_error(sqlite3 *db, const char *what, const char *path)
{
	floe_error_set(FLOE_ERR_IO, "could not %s catalog \"%s\": %s", what, path,
		       db ? sqlite3_errmsg(db) : "out of memory");
	return -1;
}

int floe_catalog_sql_open(floe_catalog_sql **out, const char *path, bool create)
{
	sqlite3 *db = NULL;
	*out = NULL;
	if (!create && !floe_fs_exists(path)) {
		floe_error_set(FLOE_ERR_CONFIG, "catalog \"%s\" does not exist", path);
		floe_error_hint("Run `floe init` in the project to create it.");
		return -1;
	}
	int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
	if (sqlite3_open_v2(path, &db, flags, NULL) != SQLITE_OK) {
		sqlite_error(db, "open", path);
		sqlite3_close(db);
		return -1;
	}
	sqlite3_busy_timeout(db, 5000);
	char *msg = NULL;
	if (sqlite3_exec(db, create ? schema_sql : "SELECT count(*) FROM iceberg_tables", NULL, NULL,
			 &msg) != SQLITE_OK) {
		floe_error_set(FLOE_ERR_IO, "catalog \"%s\" is not usable: %s", path, msg ? msg : "?");
		floe_error_hint("It must be a SQLite file with Iceberg's JDBC-catalog tables.");
		sqlite3_free(msg);
		sqlite3_close(db);
		return -1;
	}
	floe_catalog_sql *c = floe_xcalloc(1, sizeof(*c));
	c->db = db;
	*out = c;
	return 0;
}

void floe_catalog_sql_close(floe_catalog_sql *catalog)
{
	if (!catalog)
		return;
	sqlite3_close(catalog->db);
	free(catalog);
}

int floe_catalog_sql_count_tables(const floe_catalog_sql *catalog, long long *out)
{
	sqlite3_stmt *st = NULL;
	*out = 0;
	if (sqlite3_prepare_v2(catalog->db, "SELECT count(*) FROM iceberg_tables", -1, &st, NULL) != SQLITE_OK)
		return sqlite_error(catalog->db, "query", "catalog");
	if (sqlite3_step(st) == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return 0;
}
