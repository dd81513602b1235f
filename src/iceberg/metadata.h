/*
 * metadata.h — Iceberg table metadata (format version 2): the model of a
 * `*.metadata.json` file, its writer and its reader.
 *
 * Like the schema model, the metadata is plain structs in an arena the caller owns.
 * The reader checks everything a writer must keep true (format version, current
 * schema / spec / sort order present, refs pointing at known snapshots, main equal
 * to current-snapshot-id, sequence numbers not past last-sequence-number) and says
 * what is wrong; it accepts current-snapshot-id -1 or null for "no snapshot". The
 * writer emits every required field and never the deprecated v1 ones.
 */
#ifndef FLOE_ICEBERG_METADATA_H
#define FLOE_ICEBERG_METADATA_H

#include "base/arena.h"
#include "base/buf.h"
#include "iceberg/schema.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FLOE_ICEBERG_FORMAT_VERSION 2
#define FLOE_ICEBERG_PARTITION_FIELD_ID_START 1000 /* last-partition-id 999: unpartitioned */

typedef struct floe_iceberg_kv {
	const char *key;
	const char *value;
} floe_iceberg_kv;

typedef struct floe_iceberg_partition_field {
	int32_t source_id;
	int32_t field_id;
	const char *name;
	const char *transform; /* identity, bucket[N], truncate[W], year, month, day, hour, void */
} floe_iceberg_partition_field;

typedef struct floe_iceberg_partition_spec {
	int32_t spec_id;
	size_t n_fields;
	floe_iceberg_partition_field *fields;
} floe_iceberg_partition_spec;

typedef struct floe_iceberg_sort_field {
	const char *transform;
	int32_t source_id;
	bool descending;
	bool nulls_first;
} floe_iceberg_sort_field;

typedef struct floe_iceberg_sort_order {
	int32_t order_id; /* 0: unsorted */
	size_t n_fields;
	floe_iceberg_sort_field *fields;
} floe_iceberg_sort_order;

typedef struct floe_iceberg_snapshot {
	int64_t snapshot_id;
	bool has_parent;
	int64_t parent_id;
	int64_t sequence_number;
	int64_t timestamp_ms;
	const char *manifest_list;
	const char *operation; /* append, replace, overwrite, delete */
	size_t n_summary;      /* summary entries other than "operation" */
	floe_iceberg_kv *summary;
	bool has_schema_id;
	int32_t schema_id;
} floe_iceberg_snapshot;

typedef struct floe_iceberg_ref {
	const char *name;
	int64_t snapshot_id;
	bool is_tag;
	int32_t min_snapshots_to_keep; /* -1 when absent */
	int64_t max_snapshot_age_ms;   /* -1 when absent */
	int64_t max_ref_age_ms;        /* -1 when absent */
} floe_iceberg_ref;

typedef struct floe_iceberg_snapshot_log {
	int64_t snapshot_id;
	int64_t timestamp_ms;
} floe_iceberg_snapshot_log;

typedef struct floe_iceberg_metadata_log {
	const char *file;
	int64_t timestamp_ms;
} floe_iceberg_metadata_log;

typedef struct floe_iceberg_metadata {
	int format_version;
	const char *table_uuid;
	const char *location;
	int64_t last_sequence_number;
	int64_t last_updated_ms;
	int32_t last_column_id;
	size_t n_schemas;
	floe_iceberg_schema **schemas;
	int32_t current_schema_id;
	size_t n_specs;
	floe_iceberg_partition_spec *specs;
	int32_t default_spec_id;
	int32_t last_partition_id;
	size_t n_sort_orders;
	floe_iceberg_sort_order *sort_orders;
	int32_t default_sort_order_id;
	size_t n_properties;
	floe_iceberg_kv *properties;
	bool has_current_snapshot;
	int64_t current_snapshot_id;
	size_t n_snapshots;
	floe_iceberg_snapshot *snapshots;
	size_t n_snapshot_log;
	floe_iceberg_snapshot_log *snapshot_log;
	size_t n_metadata_log;
	floe_iceberg_metadata_log *metadata_log;
	size_t n_refs;
	floe_iceberg_ref *refs;
} floe_iceberg_metadata;

/* Append the metadata JSON (one line). */
int floe_iceberg_metadata_write(floe_buf *out, const floe_iceberg_metadata *m);

/*
 * Parse and check metadata JSON (`len` bytes) into `arena`. Errors are FLOE_ERR_IO
 * ("table metadata is invalid: …") naming the field; callers add the file's path.
 */
int floe_iceberg_metadata_parse(floe_iceberg_metadata **out, floe_arena *arena, const char *text,
				size_t len);

/*
 * One piece of metadata JSON alone (a REST catalog update carries them so), read as the
 * whole-file reader reads it, into `arena`; errors are FLOE_ERR_IO naming the field.
 */
int floe_iceberg_spec_from_json(floe_iceberg_partition_spec *out, floe_arena *arena,
				const floe_json_value *json);
int floe_iceberg_sort_order_from_json(floe_iceberg_sort_order *out, floe_arena *arena,
				      const floe_json_value *json);
int floe_iceberg_snapshot_from_json(floe_iceberg_snapshot *out, floe_arena *arena,
				    const floe_json_value *json);
int floe_iceberg_ref_from_json(floe_iceberg_ref *out, floe_arena *arena, const char *name,
			       const floe_json_value *json);

/* Check the model as the reader does (the writer's side calls this before writing). */
int floe_iceberg_metadata_check(const floe_iceberg_metadata *m);

/* A copy in `arena` whose arrays may be grown or edited; strings and schemas are shared. */
floe_iceberg_metadata *floe_iceberg_metadata_copy(floe_arena *arena, const floe_iceberg_metadata *m);

/* Lookups; NULL when absent. */
const floe_iceberg_schema *floe_iceberg_metadata_schema(const floe_iceberg_metadata *m, int32_t id);
const floe_iceberg_schema *floe_iceberg_metadata_current_schema(const floe_iceberg_metadata *m);
const floe_iceberg_snapshot *floe_iceberg_metadata_snapshot(const floe_iceberg_metadata *m,
							    int64_t snapshot_id);
const floe_iceberg_snapshot *floe_iceberg_metadata_current_snapshot(const floe_iceberg_metadata *m);
const floe_iceberg_partition_spec *floe_iceberg_metadata_spec(const floe_iceberg_metadata *m,
							      int32_t spec_id);
const char *floe_iceberg_metadata_property(const floe_iceberg_metadata *m, const char *key);
const char *floe_iceberg_snapshot_summary(const floe_iceberg_snapshot *s, const char *key);

/* An integer table property, or `fallback` when absent or not an integer. */
int64_t floe_iceberg_metadata_property_int(const floe_iceberg_metadata *m, const char *key,
					   int64_t fallback);

/* Set (or with value NULL remove) a property in a copy made by floe_iceberg_metadata_copy. */
void floe_iceberg_metadata_set_property(floe_iceberg_metadata *m, floe_arena *arena,
					const char *key, const char *value);

/* The JSON of a partition spec's fields array ("[]" unpartitioned), for manifest headers. */
int floe_iceberg_partition_fields_write_json(floe_buf *out, const floe_iceberg_partition_spec *spec);

#endif
