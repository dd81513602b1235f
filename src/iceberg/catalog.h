/*
 * catalog.h — the Iceberg catalog: which metadata file is each table's current one,
 * behind one ops struct (`sql`: the embedded SQLite JDBC-schema catalog; `rest`
 * later), plus the storage the tables live on and the warehouse new tables go to.
 *
 * The catalog's one promise is the compare-and-swap of a table's metadata pointer:
 * swap(expected → next) changes it only if it still is `expected`, and reports
 * SWAPPED, CONFLICT (it was not `expected`: another writer won; nothing changed),
 * FAILED (it still is `expected` but the swap failed — disk full, I/O: nothing changed,
 * and retrying cannot help) or UNKNOWN (the outcome could not be learnt; the caller must
 * not delete anything it wrote).
 *
 * Namespaces are dot-joined level names ("bronze", "a.b"); a namespace exists when
 * it has a property row (creating one writes `exists` = `true`, as PyIceberg and
 * Java do) or a table.
 */
#ifndef FLOE_ICEBERG_CATALOG_H
#define FLOE_ICEBERG_CATALOG_H

#include "base/arena.h"
#include "base/buf.h"
#include "iceberg/metadata.h"
#include "iceberg/storage.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct floe_iceberg_catalog floe_iceberg_catalog;

typedef enum floe_iceberg_swap_outcome {
	FLOE_ICEBERG_SWAPPED,
	FLOE_ICEBERG_CONFLICT,
	FLOE_ICEBERG_FAILED,
	FLOE_ICEBERG_UNKNOWN
} floe_iceberg_swap_outcome;

typedef struct floe_iceberg_catalog_ops {
	const char *name; /* "sql" */
	/* The table's metadata location into `out`: 1 found, 0 no such table, -1 error. */
	int (*load)(void *state, floe_buf *out, const char *ns, const char *table);
	/* Register a new table; FLOE_ERR_EXISTS when the name is taken. */
	int (*create)(void *state, const char *ns, const char *table, const char *location);
	/* Compare-and-swap the pointer; returns -1 (the error set) only with *outcome FAILED or UNKNOWN. */
	int (*swap)(void *state, const char *ns, const char *table, const char *expected,
		    const char *next, floe_iceberg_swap_outcome *outcome);
	/* Unregister a table (files stay); 0 also when it did not exist. */
	int (*drop)(void *state, const char *ns, const char *table);
	/* Create a namespace with properties; an existing one is left as it is. */
	int (*create_namespace)(void *state, const char *ns, const floe_iceberg_kv *props, size_t n);
	int (*namespace_exists)(void *state, const char *ns, bool *out);
	/* Names, sorted, in `arena`. */
	int (*list_namespaces)(void *state, floe_arena *arena, const char ***out, size_t *n);
	int (*list_tables)(void *state, const char *ns, floe_arena *arena, const char ***out, size_t *n);
	void (*close)(void *state);
	/* Move a table's entry to another name; FLOE_ERR_EXISTS when taken, 0 rows: FLOE_ERR_CONFIG. */
	int (*rename)(void *state, const char *ns, const char *table, const char *to_ns,
		      const char *to_table);
	/* A namespace's properties (the `exists` marker left out), in `arena`. */
	int (*namespace_properties)(void *state, const char *ns, floe_arena *arena,
				    floe_iceberg_kv **out, size_t *n);
	/* Set and remove namespace properties in one transaction. */
	int (*update_namespace)(void *state, const char *ns, const floe_iceberg_kv *set, size_t n_set,
				const char *const *remove, size_t n_remove);
	/* Drop an empty namespace (its property rows). */
	int (*drop_namespace)(void *state, const char *ns);
} floe_iceberg_catalog_ops;

typedef struct floe_iceberg_catalog_opts {
	const char *name;      /* catalog_name in the JDBC schema; NULL: "floe" */
	const char *warehouse; /* directory or URI new tables go under; NULL: the catalog file's dir */
	bool create;           /* create the catalog file and its tables when missing — refused
				  when the warehouse already holds tables (it would orphan them) */
	bool recovering;       /* create it all the same: the caller registers those tables (recover.h) */
} floe_iceberg_catalog_opts;

#define FLOE_ICEBERG_CATALOG_OPTS_INIT { .name = NULL }
#define FLOE_ICEBERG_DEFAULT_CATALOG_NAME "floe"

/* A catalog over `ops`/`state` (owned) and `storage` (owned), tables under `warehouse_uri`. */
floe_iceberg_catalog *floe_iceberg_catalog_new(const floe_iceberg_catalog_ops *ops, void *state,
					       floe_iceberg_storage *storage,
					       const char *warehouse_uri);

/* The embedded default: SQLite file `path`, local storage. */
int floe_iceberg_catalog_open_sql(floe_iceberg_catalog **out, const char *path,
				  const floe_iceberg_catalog_opts *opts);

/*
 * Before a command works on the tables: open the SQLite catalog at `path` and close
 * it again; with `create` (a load), create it when the warehouse holds no tables
 * yet. Missing with tables on disk: fail (FLOE_ERR_CONFIG) naming `floe catalog recover`.
 */
int floe_iceberg_catalog_prepare_sql(const char *path, bool create);

void floe_iceberg_catalog_free(floe_iceberg_catalog *catalog);

floe_iceberg_storage *floe_iceberg_catalog_storage(floe_iceberg_catalog *catalog);
const char *floe_iceberg_catalog_warehouse(const floe_iceberg_catalog *catalog);
/* Where a namespace's tables go by default: <warehouse>/<level>/<level>… (dots become levels). */
const char *floe_iceberg_catalog_namespace_location(floe_arena *arena, const floe_iceberg_catalog *catalog,
						    const char *ns);

/* Dispatch to the ops (see floe_iceberg_catalog_ops for each contract). */
int floe_iceberg_catalog_load(floe_iceberg_catalog *c, floe_buf *out, const char *ns,
			      const char *table);
int floe_iceberg_catalog_register(floe_iceberg_catalog *c, const char *ns, const char *table,
				  const char *metadata_location);
int floe_iceberg_catalog_swap(floe_iceberg_catalog *c, const char *ns, const char *table,
			      const char *expected, const char *next,
			      floe_iceberg_swap_outcome *outcome);
int floe_iceberg_catalog_drop(floe_iceberg_catalog *c, const char *ns, const char *table);
int floe_iceberg_catalog_create_namespace(floe_iceberg_catalog *c, const char *ns,
					  const floe_iceberg_kv *props, size_t n);
int floe_iceberg_catalog_namespace_exists(floe_iceberg_catalog *c, const char *ns, bool *out);
int floe_iceberg_catalog_list_namespaces(floe_iceberg_catalog *c, floe_arena *arena,
					 const char ***out, size_t *n);
int floe_iceberg_catalog_list_tables(floe_iceberg_catalog *c, const char *ns, floe_arena *arena,
				     const char ***out, size_t *n);

/* Rename a table (the files stay where they are, as in Java's catalogs). */
int floe_iceberg_catalog_rename(floe_iceberg_catalog *c, const char *ns, const char *table,
				const char *to_ns, const char *to_table);
int floe_iceberg_catalog_namespace_properties(floe_iceberg_catalog *c, const char *ns,
					      floe_arena *arena, floe_iceberg_kv **out, size_t *n);
int floe_iceberg_catalog_update_namespace(floe_iceberg_catalog *c, const char *ns,
					  const floe_iceberg_kv *set, size_t n_set,
					  const char *const *remove, size_t n_remove);
/* Drop a namespace; FLOE_ERR_CONFLICT when it still holds tables. */
int floe_iceberg_catalog_drop_namespace(floe_iceberg_catalog *c, const char *ns);

/*
 * Whether `location` (a table's) lies inside the catalog's warehouse: below it, without "."
 * or ".." segments. A table a client places elsewhere could write, and on purge delete,
 * files anywhere the server may.
 */
bool floe_iceberg_catalog_holds(floe_iceberg_catalog *c, const char *location);

/* Check a namespace or table name: non-empty, no empty level, no control characters. */
int floe_iceberg_check_name(const char *what, const char *name, bool dots_allowed);

#endif
