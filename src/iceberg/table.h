/*
 * table.h — Iceberg table operations: create and load, append, replace, rewrite
 * (the basis of copy-on-write upserts), schema evolution, properties, snapshot
 * expiry, orphan removal, and scan planning.
 *
 * A floe_iceberg_table is a loaded table: its catalog entry and its current
 * metadata. Every change is one commit: new files are written (never replacing
 * one), then the catalog's pointer is compare-and-swapped from the metadata the
 * change was computed on to the new metadata file. When another writer won the
 * race, the change is computed again on the fresh metadata (appends re-apply;
 * rewrites first check their removed files are still live, else fail with
 * FLOE_ERR_CONFLICT) up to `commit.retry.num-retries` times (default 10). When the
 * catalog cannot say whether the swap happened, the call fails with the outcome
 * unknown and deletes nothing. On success the handle holds the new metadata.
 *
 * Data files are described by floe_iceberg_data_file (data_file.h), which the
 * Parquet writer fills; paths are absolute `file:` URIs. Tables are unpartitioned
 * for now (the metadata model keeps partition specs).
 *
 * A handle is used from one thread at a time; any number of processes may commit
 * to one table at once.
 */
#ifndef FLOE_ICEBERG_TABLE_H
#define FLOE_ICEBERG_TABLE_H

#include "base/arena.h"
#include "iceberg/catalog.h"
#include "iceberg/data_file.h"
#include "iceberg/manifest.h"
#include "iceberg/metadata.h"
#include "iceberg/schema.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct floe_iceberg_table floe_iceberg_table;

typedef struct floe_iceberg_create_opts {
	const char *location;             /* NULL: <warehouse>/<namespace levels>/<table> */
	const floe_iceberg_kv *properties;
	size_t n_properties;
	bool assign_ids;                  /* give the schema fresh ids 1..n (ignore the given ones; the
					     spec's and sort order's top-level sources follow) */
	bool create_namespace;            /* create the namespace when missing (default true) */
	const floe_iceberg_partition_spec *spec;  /* NULL: unpartitioned; else spec 0 */
	const floe_iceberg_sort_order *sort_order; /* NULL or no fields: unsorted; else order 1 */
} floe_iceberg_create_opts;

#define FLOE_ICEBERG_CREATE_OPTS_INIT { .create_namespace = true }

/*
 * Create a table with `schema` (validated; copied) and register it. Fails with
 * FLOE_ERR_EXISTS when the name is taken (and leaves no file behind).
 */
int floe_iceberg_table_create(floe_iceberg_table **out, floe_iceberg_catalog *catalog,
			      const char *ns, const char *name, const floe_iceberg_schema *schema,
			      const floe_iceberg_create_opts *opts);

/*
 * The metadata floe_iceberg_table_create would write, in `arena`, without writing or
 * registering anything (the REST catalog's stage-create).
 */
int floe_iceberg_table_stage(floe_iceberg_metadata **out, floe_arena *arena,
			     floe_iceberg_catalog *catalog, const char *ns, const char *name,
			     const floe_iceberg_schema *schema, const floe_iceberg_create_opts *opts);

/* Load a table; a missing one is FLOE_ERR_CONFIG "table … does not exist". */
int floe_iceberg_table_load(floe_iceberg_table **out, floe_iceberg_catalog *catalog,
			    const char *ns, const char *name);

/* Read the catalog pointer and metadata again. */
int floe_iceberg_table_refresh(floe_iceberg_table *table);

void floe_iceberg_table_free(floe_iceberg_table *table);

/* Borrowed until the next call that changes or refreshes the table. */
const floe_iceberg_metadata *floe_iceberg_table_metadata(const floe_iceberg_table *table);
const char *floe_iceberg_table_metadata_location(const floe_iceberg_table *table);
const char *floe_iceberg_table_location(const floe_iceberg_table *table);
const char *floe_iceberg_table_name(const floe_iceberg_table *table); /* "ns.table" */
floe_iceberg_storage *floe_iceberg_table_storage(floe_iceberg_table *table);

/* A fresh URI for a new data file: <location>/data/<5 digits>-<uuid>.<ext>, in `arena`. */
const char *floe_iceberg_table_new_data_uri(floe_iceberg_table *table, floe_arena *arena,
					    const char *ext);

/*
 * After a change failed: false when it certainly did not land — no metadata references the
 * data files the caller wrote for it, so the caller deletes them; true when it landed (a step
 * after the swap failed) or the catalog could not say (keep them: only orphan removal, which
 * reads the committed metadata, may delete them).
 */
bool floe_iceberg_table_may_have_landed(const floe_iceberg_table *table);

/* A snapshot id (current when none) whose summary has `key` = `value`, or -1. */
int64_t floe_iceberg_table_find_snapshot(const floe_iceberg_table *table, const char *key,
					 const char *value);

/* ---- changes ---- */

typedef struct floe_iceberg_commit_opts {
	const floe_iceberg_kv *summary; /* extra snapshot summary keys (floe.run-id, …) */
	size_t n_summary;
	int max_retries;        /* -1: table property commit.retry.num-retries, else 10 */
	const char *operation;  /* NULL: derived (append, overwrite, delete); "replace" for compaction */
	/*
	 * When >= 0 (or -2 for "no snapshot yet"): fail with FLOE_ERR_CONFLICT unless the
	 * table's current snapshot is this one — for callers that must not commit on top
	 * of a change they did not see (exactly-once loads).
	 */
	int64_t expect_snapshot_id;
} floe_iceberg_commit_opts;

#define FLOE_ICEBERG_COMMIT_OPTS_INIT { .max_retries = -1, .expect_snapshot_id = -1 }
#define FLOE_ICEBERG_NO_SNAPSHOT (-2)

/* Add data files in a new snapshot (operation "append"). */
int floe_iceberg_table_append(floe_iceberg_table *table, const floe_iceberg_data_file *files,
			      size_t n, const floe_iceberg_commit_opts *opts);

/* Replace every live data file with `files` in one snapshot ("overwrite", "delete" when n = 0). */
int floe_iceberg_table_replace(floe_iceberg_table *table, const floe_iceberg_data_file *files,
			       size_t n, const floe_iceberg_commit_opts *opts);

/*
 * Remove the live data files at `remove` (URIs) and add `add`, in one snapshot
 * ("overwrite"). Every removed file must be live in the snapshot the commit lands on:
 * a file another writer removed meanwhile fails the call with FLOE_ERR_CONFLICT.
 */
int floe_iceberg_table_rewrite(floe_iceberg_table *table, const char *const *remove,
			       size_t n_remove, const floe_iceberg_data_file *add, size_t n_add,
			       const floe_iceberg_commit_opts *opts);

/*
 * Merge-on-read: remove the live files at `remove` (data or delete files; each must be live,
 * as for a rewrite), add data files `add` and position delete files `deletes` (deletes.h), in
 * one snapshot ("overwrite"; "delete" when only deletes are added). The new delete files get
 * the snapshot's sequence number, so they apply to every data file committed before and in it.
 */
int floe_iceberg_table_row_delta(floe_iceberg_table *table, const char *const *remove, size_t n_remove,
				 const floe_iceberg_data_file *add, size_t n_add,
				 const floe_iceberg_data_file *deletes, size_t n_deletes,
				 const floe_iceberg_commit_opts *opts);

/*
 * Evolve the current schema (schema.h). Fails with FLOE_ERR_CONFLICT when another
 * writer changed the schema since this handle last read it.
 */
int floe_iceberg_table_update_schema(floe_iceberg_table *table,
				     const floe_iceberg_schema_change *changes, size_t n,
				     const floe_iceberg_commit_opts *opts);

/* Set `set` and remove `remove` table properties. */
int floe_iceberg_table_set_properties(floe_iceberg_table *table, const floe_iceberg_kv *set,
				      size_t n_set, const char *const *remove, size_t n_remove);

/* ---- maintenance ---- */

typedef struct floe_iceberg_expire_opts {
	int64_t older_than_ms;    /* expire snapshots older than this; -1: now - history.expire.max-snapshot-age-ms (5 days) */
	int retain_last;          /* keep at least this many of main's newest; -1: history.expire.min-snapshots-to-keep (1) */
	const int64_t *snapshot_ids; /* expire exactly these (ages ignored) */
	size_t n_snapshot_ids;
} floe_iceberg_expire_opts;

#define FLOE_ICEBERG_EXPIRE_OPTS_INIT { .older_than_ms = -1, .retain_last = -1 }

typedef struct floe_iceberg_cleanup_result {
	size_t expired_snapshots;
	size_t deleted_data_files;
	size_t deleted_manifests;
	size_t deleted_manifest_lists;
	size_t deleted_metadata_files;
	size_t deleted_other_files;
} floe_iceberg_cleanup_result;

/*
 * Expire snapshots, commit, then delete the files only they referenced (manifest
 * lists, manifests, data files) and metadata files that fell off the metadata log
 * (write.metadata.previous-versions-max, default 100). Snapshots a ref points at,
 * and main's newest `retain_last`, are never expired.
 */
int floe_iceberg_table_expire(floe_iceberg_table *table, const floe_iceberg_expire_opts *opts,
			      floe_iceberg_cleanup_result *result);

/*
 * Delete files under the table's location that no snapshot, manifest or logged
 * metadata file references and that are older than `older_than_ms` (files of
 * unfinished commits: crashes, lost races). Pass a time well before any commit that
 * may still be running.
 */
int floe_iceberg_table_remove_orphans(floe_iceberg_table *table, int64_t older_than_ms,
				      floe_iceberg_cleanup_result *result);

/* ---- scans ---- */

typedef struct floe_iceberg_scan_file {
	floe_iceberg_data_file file;
	int64_t snapshot_id;          /* the snapshot that added it */
	int64_t data_sequence_number;
	int64_t file_sequence_number;
	const char *manifest;         /* the manifest listing it */
	/* Positions deleted by live position delete files, ascending and unique: set by
	 * floe_iceberg_scan_load_deletes (deletes.h), else NULL and 0. */
	const int64_t *deleted;
	size_t n_deleted;
} floe_iceberg_scan_file;

typedef struct floe_iceberg_scan {
	int64_t snapshot_id;          /* -1 for a table without snapshots */
	const floe_iceberg_schema *schema; /* the current schema for the current snapshot; an older one's own (current if unknown) */
	size_t n_files;
	floe_iceberg_scan_file *files;
	int64_t record_count;         /* of the data files, deleted rows included */
	int64_t size_in_bytes;
	size_t n_deletes;             /* live position delete files (floe_iceberg_table_plan_deletes) */
	floe_iceberg_scan_file *deletes;
} floe_iceberg_scan;

/*
 * The live data files of snapshot `snapshot_id` (-1: the current one) with their
 * statistics, in `arena`. An unknown snapshot id is FLOE_ERR_USAGE.
 */
int floe_iceberg_table_plan(floe_iceberg_scan **out, floe_arena *arena, floe_iceberg_table *table,
			    int64_t snapshot_id);
/*
 * The same, but a table with live position delete files plans too: they are in `deletes`, and
 * the caller applies them (floe_iceberg_scan_load_deletes, deletes.h). floe_iceberg_table_plan
 * refuses such a table, so a reader that does not apply deletes never reads deleted rows.
 */
int floe_iceberg_table_plan_deletes(floe_iceberg_scan **out, floe_arena *arena, floe_iceberg_table *table,
				    int64_t snapshot_id);

/* Milliseconds since the epoch (the clock commits use). */
int64_t floe_iceberg_now_ms(void);

#endif
