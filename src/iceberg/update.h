/*
 * update.h — table changes in the Iceberg REST catalog's vocabulary: requirements
 * (assert-create, assert-table-uuid, assert-ref-snapshot-id, assert-last-assigned-field-id,
 * assert-current-schema-id, assert-last-assigned-partition-id, assert-default-spec-id,
 * assert-default-sort-order-id) and metadata updates (assign-uuid, upgrade-format-version,
 * add-schema, set-current-schema, add-spec, set-default-spec, add-sort-order,
 * set-default-sort-order, add-snapshot, set-snapshot-ref, remove-snapshot-ref,
 * remove-snapshots, set-properties, remove-properties, set-location), as the OpenAPI
 * specification spells them in JSON.
 *
 * A commit of them goes through the same compare-and-swap loop as every floe change
 * (commit.c): the requirements are checked against the metadata each attempt starts
 * from, so a REST client and `floe run` never lose each other's snapshots — when another
 * writer won meanwhile, the requirements are checked again on its metadata, and a failed
 * one ends the commit with FLOE_ERR_CONFLICT (the REST catalog's 409).
 *
 * Errors: a requirement that does not hold is FLOE_ERR_CONFLICT; an unknown or malformed
 * requirement or update, or updates that leave the metadata invalid, FLOE_ERR_USAGE.
 */
#ifndef FLOE_ICEBERG_UPDATE_H
#define FLOE_ICEBERG_UPDATE_H

#include "base/arena.h"
#include "base/json.h"
#include "iceberg/metadata.h"
#include "iceberg/table.h"

/* Check `requirements` (a JSON array; NULL: none) against `base` (NULL: the table does not exist). */
int floe_iceberg_requirements_check(const floe_iceberg_metadata *base,
				    const floe_json_value *requirements);

/*
 * Apply `updates` (a JSON array; NULL: none) in order to `m`, a copy from
 * floe_iceberg_metadata_copy (or floe_iceberg_metadata_empty); new pieces in `arena`.
 * The result is checked as a metadata file would be.
 */
int floe_iceberg_updates_apply(floe_iceberg_metadata *m, floe_arena *arena,
			       const floe_json_value *updates);

/* Metadata with nothing in it but format version 2 (for a table built from updates). */
floe_iceberg_metadata *floe_iceberg_metadata_empty(floe_arena *arena);

/* Commit `requirements` and `updates` to a loaded table (the CAS loop; the handle gets the result). */
int floe_iceberg_table_commit_updates(floe_iceberg_table *table,
				      const floe_json_value *requirements,
				      const floe_json_value *updates);

/*
 * Create table ns.name from `updates` alone (a staged create's commit, which carries
 * assert-create): they must give it a schema; location NULL: the catalog's default.
 * FLOE_ERR_CONFLICT when the name is taken.
 */
int floe_iceberg_table_create_from_updates(floe_iceberg_table **out, floe_iceberg_catalog *catalog,
					   const char *ns, const char *name,
					   const floe_json_value *requirements,
					   const floe_json_value *updates);

/* Drop ns.name from the catalog, then delete every file under its location (purgeRequested). */
int floe_iceberg_table_purge(floe_iceberg_catalog *catalog, const char *ns, const char *name);

#endif
