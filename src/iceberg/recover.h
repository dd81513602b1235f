/*
 * recover.h — rebuilding a lost catalog from the tables on disk.
 *
 * The catalog (warehouse/catalog.db) is the one place that says which metadata
 * file is each table's current one. When it is gone, the tables are still on disk:
 * every `<warehouse>/<ns levels>/<table>/metadata/<NNNNN>-<uuid>.metadata.json`
 * holds the table's whole history (snapshots, schemas, watermarks in summaries).
 * floe_iceberg_recover registers each table from its newest valid metadata file —
 * the highest version that parses and whose current snapshot's manifest list
 * exists — in the JDBC-catalog schema, exactly as a commit leaves it. Damaged newer
 * files are passed over and reported.
 *
 * Recovery never moves an entry the catalog already has at an existing file (it
 * may be newer than any file's version says: the catalog is the truth while it
 * exists), so it is idempotent; an entry whose file is missing is pointed at the
 * newest valid file instead.
 */
#ifndef FLOE_ICEBERG_RECOVER_H
#define FLOE_ICEBERG_RECOVER_H

#include "base/arena.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum floe_iceberg_recover_action {
	FLOE_ICEBERG_RECOVER_REGISTERED, /* registered (dry run: would be) */
	FLOE_ICEBERG_RECOVER_REPAIRED,   /* its entry named a missing file; now the newest valid one */
	FLOE_ICEBERG_RECOVER_KEPT,       /* already registered at an existing file: left alone */
	FLOE_ICEBERG_RECOVER_FAILED      /* no valid metadata file: not registered */
} floe_iceberg_recover_action;

typedef struct floe_iceberg_damaged {
	const char *file;   /* metadata file URI */
	const char *reason; /* why it was passed over */
} floe_iceberg_damaged;

typedef struct floe_iceberg_recovered {
	const char *ns, *name;
	floe_iceberg_recover_action action;
	const char *metadata_location; /* registered (KEPT: the catalog's); NULL when FAILED */
	int64_t version;               /* of metadata_location; -1 unknown */
	size_t n_snapshots;            /* in the newest valid file; 0 when FAILED */
	int64_t current_snapshot_id;   /* -1: none */
	const char *error;             /* FAILED after choosing a file: why registering it failed */
	size_t n_damaged;              /* newer files passed over, newest first */
	floe_iceberg_damaged *damaged;
} floe_iceberg_recovered;

typedef struct floe_iceberg_recover_opts {
	const char *catalog_name; /* NULL: "floe" */
	bool dry_run;             /* decide and report, change nothing (no catalog file created) */
} floe_iceberg_recover_opts;

#define FLOE_ICEBERG_RECOVER_OPTS_INIT { .catalog_name = NULL, .dry_run = false }

/*
 * Register every table found under the catalog file's directory (the warehouse)
 * in the SQLite catalog `catalog_path`, creating the file when missing. One entry
 * per table directory holding metadata files, sorted by name, in `arena`. Returns
 * 0 (some entries may be FAILED) or -1 with the error set.
 */
int floe_iceberg_recover(floe_iceberg_recovered **out, size_t *n, floe_arena *arena,
			 const char *catalog_path, const floe_iceberg_recover_opts *opts);

/* How many table directories under `warehouse_dir` hold a metadata file. */
int floe_iceberg_warehouse_count_tables(size_t *out, const char *warehouse_dir);

const char *floe_iceberg_recover_action_name(floe_iceberg_recover_action action, bool dry_run);

#endif
