/*
 * catalog_sql.h — the embedded Iceberg catalog: a SQLite file with the schema of
 * Iceberg's JDBC catalog (`iceberg_tables`, `iceberg_namespace_properties`), so
 * PyIceberg's SqlCatalog and the JDBC catalogs of Spark and Trino open it as is.
 * The one module that calls SQLite for the catalog.
 *
 * This header is the low-level handle (open, count) that `floe init` and `floe
 * doctor` use; table operations go through catalog.h (floe_iceberg_catalog_open_sql),
 * which wraps it in the catalog ops struct.
 */
#ifndef FLOE_ICEBERG_CATALOG_SQL_H
#define FLOE_ICEBERG_CATALOG_SQL_H

#include <stdbool.h>

typedef struct floe_catalog_sql floe_catalog_sql;

/* Open `path`; with `create`, create the file and the schema when missing. */
int floe_catalog_sql_open(floe_catalog_sql **out, const char *path, bool create);
void floe_catalog_sql_close(floe_catalog_sql *catalog);

/* Number of tables registered (all namespaces). */
int floe_catalog_sql_count_tables(const floe_catalog_sql *catalog, long long *out);

#endif
