/*
 * manifest.h — Iceberg manifests (`manifest_entry` Avro files listing data files)
 * and manifest lists (`manifest_file` Avro files listing a snapshot's manifests),
 * format version 2, to and from bytes. Storage is the caller's business.
 *
 * Written as Java writes them: record names manifest_entry / r2 / r102 / k<id>_v<id> /
 * manifest_file / r508, a `field-id` on every field, `element-id` on lists,
 * int-keyed maps as arrays of key/value records with logicalType "map", and the
 * header keys readers need (manifests: schema, schema-id, partition-spec,
 * partition-spec-id, format-version, content; lists: snapshot-id,
 * parent-snapshot-id, sequence-number, format-version). Read by field id, so files
 * of other writers (other field order, extra fields) read too.
 */
#ifndef FLOE_ICEBERG_MANIFEST_H
#define FLOE_ICEBERG_MANIFEST_H

#include "base/arena.h"
#include "base/buf.h"
#include "iceberg/data_file.h"
#include "iceberg/metadata.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum floe_iceberg_entry_status {
	FLOE_ICEBERG_EXISTING = 0,
	FLOE_ICEBERG_ADDED = 1,
	FLOE_ICEBERG_DELETED = 2
} floe_iceberg_entry_status;

/* Sequence numbers of -1 are written as null: inherited from the manifest list. */
typedef struct floe_iceberg_manifest_entry {
	floe_iceberg_entry_status status;
	int64_t snapshot_id;
	int64_t sequence_number;      /* data sequence number */
	int64_t file_sequence_number;
	floe_iceberg_data_file file;
} floe_iceberg_manifest_entry;

/* One entry of a manifest list. */
typedef struct floe_iceberg_manifest_file {
	const char *path;
	int64_t length;
	int32_t spec_id;
	floe_iceberg_content content; /* DATA, or POSITION_DELETES for any delete manifest */
	int64_t sequence_number;
	int64_t min_sequence_number;
	int64_t added_snapshot_id;
	int32_t added_files, existing_files, deleted_files;
	int64_t added_rows, existing_rows, deleted_rows;
} floe_iceberg_manifest_file;

/* What a manifest's header says about the table. */
typedef struct floe_iceberg_manifest_header {
	const floe_iceberg_schema *schema;
	const floe_iceberg_partition_spec *spec;
	floe_iceberg_content content;
} floe_iceberg_manifest_header;

/*
 * Write a manifest of `n` entries to `out`, and fill `summary`'s counts and
 * min_sequence_number (entries with sequence_number -1 count as `summary`'s
 * sequence_number, which the caller sets first, as it sets path, spec_id,
 * added_snapshot_id; the caller sets length after writing). Only unpartitioned specs
 * are written for now.
 */
int floe_iceberg_manifest_write(floe_buf *out, floe_iceberg_manifest_file *summary,
				const floe_iceberg_manifest_header *header,
				const floe_iceberg_manifest_entry *entries, size_t n);

/*
 * Read a manifest into `arena`. With `from` (its manifest list entry), null snapshot
 * ids and sequence numbers are inherited as the spec says; without it they stay -1.
 */
int floe_iceberg_manifest_read(floe_iceberg_manifest_entry **out, size_t *n, floe_arena *arena,
			       const void *data, size_t len, const floe_iceberg_manifest_file *from);

typedef struct floe_iceberg_manifest_list_header {
	int64_t snapshot_id;
	bool has_parent;
	int64_t parent_id;
	int64_t sequence_number;
} floe_iceberg_manifest_list_header;

int floe_iceberg_manifest_list_write(floe_buf *out, const floe_iceberg_manifest_list_header *header,
				     const floe_iceberg_manifest_file *files, size_t n);

int floe_iceberg_manifest_list_read(floe_iceberg_manifest_file **out, size_t *n, floe_arena *arena,
				    const void *data, size_t len);

#endif
