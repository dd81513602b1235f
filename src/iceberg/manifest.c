/*
 * manifest.c — writing manifests and manifest lists (format version 2).
 *
 * The Avro schemas are fixed text (spec "Manifests" and "Manifest Lists"), in
 * Java's field order, with the partition record r102 built from the spec (empty
 * when unpartitioned). Values are built per entry in a scratch arena and handed to
 * the Avro writer; stats maps with no entries are written as null.
 */
#include "iceberg/manifest.h"

#include "base/error.h"
#include "format/avro.h"

#include <inttypes.h>
#include <string.h>

#define OPT(t) "[\"null\"," t "],\"default\":null"
#define INT_MAP(name, id, kid, vid, vtype)                                                     \
	"{\"name\":\"" name "\",\"field-id\":" #id ",\"type\":" OPT(                               \
		"{\"type\":\"array\",\"logicalType\":\"map\",\"items\":{\"type\":\"record\","        \
		"\"name\":\"k" #kid "_v" #vid "\",\"fields\":[{\"name\":\"key\",\"type\":\"int\","   \
		"\"field-id\":" #kid "},{\"name\":\"value\",\"type\":\"" vtype "\",\"field-id\":"    \
		#vid "}]}}") "}"

static const char entry_schema_head[] =
	"{\"type\":\"record\",\"name\":\"manifest_entry\",\"fields\":["
	"{\"name\":\"status\",\"type\":\"int\",\"field-id\":0},"
	"{\"name\":\"snapshot_id\",\"type\":" OPT("\"long\"") ",\"field-id\":1},"
	"{\"name\":\"sequence_number\",\"type\":" OPT("\"long\"") ",\"field-id\":3},"
	"{\"name\":\"file_sequence_number\",\"type\":" OPT("\"long\"") ",\"field-id\":4},"
	"{\"name\":\"data_file\",\"field-id\":2,\"type\":{\"type\":\"record\",\"name\":\"r2\","
	"\"fields\":["
	"{\"name\":\"content\",\"type\":\"int\",\"field-id\":134},"
	"{\"name\":\"file_path\",\"type\":\"string\",\"field-id\":100},"
	"{\"name\":\"file_format\",\"type\":\"string\",\"field-id\":101},"
	"{\"name\":\"partition\",\"field-id\":102,\"type\":";

static const char entry_schema_tail[] =
	"},{\"name\":\"record_count\",\"type\":\"long\",\"field-id\":103},"
	"{\"name\":\"file_size_in_bytes\",\"type\":\"long\",\"field-id\":104},"
	INT_MAP("column_sizes", 108, 117, 118, "long") ","
	INT_MAP("value_counts", 109, 119, 120, "long") ","
	INT_MAP("null_value_counts", 110, 121, 122, "long") ","
	INT_MAP("nan_value_counts", 137, 138, 139, "long") ","
	INT_MAP("lower_bounds", 125, 126, 127, "bytes") ","
	INT_MAP("upper_bounds", 128, 129, 130, "bytes") ","
	"{\"name\":\"key_metadata\",\"type\":" OPT("\"bytes\"") ",\"field-id\":131},"
	"{\"name\":\"split_offsets\",\"type\":" OPT("{\"type\":\"array\",\"items\":\"long\","
						      "\"element-id\":133}") ",\"field-id\":132},"
	"{\"name\":\"equality_ids\",\"type\":" OPT("{\"type\":\"array\",\"items\":\"int\","
						     "\"element-id\":136}") ",\"field-id\":135},"
	"{\"name\":\"sort_order_id\",\"type\":" OPT("\"int\"") ",\"field-id\":140}"
	"]}}]}";

static const char list_schema[] =
	"{\"type\":\"record\",\"name\":\"manifest_file\",\"fields\":["
	"{\"name\":\"manifest_path\",\"type\":\"string\",\"field-id\":500},"
	"{\"name\":\"manifest_length\",\"type\":\"long\",\"field-id\":501},"
	"{\"name\":\"partition_spec_id\",\"type\":\"int\",\"field-id\":502},"
	"{\"name\":\"content\",\"type\":\"int\",\"field-id\":517},"
	"{\"name\":\"sequence_number\",\"type\":\"long\",\"field-id\":515},"
	"{\"name\":\"min_sequence_number\",\"type\":\"long\",\"field-id\":516},"
	"{\"name\":\"added_snapshot_id\",\"type\":\"long\",\"field-id\":503},"
	"{\"name\":\"added_files_count\",\"type\":\"int\",\"field-id\":504},"
	"{\"name\":\"existing_files_count\",\"type\":\"int\",\"field-id\":505},"
	"{\"name\":\"deleted_files_count\",\"type\":\"int\",\"field-id\":506},"
	"{\"name\":\"added_rows_count\",\"type\":\"long\",\"field-id\":512},"
	"{\"name\":\"existing_rows_count\",\"type\":\"long\",\"field-id\":513},"
	"{\"name\":\"deleted_rows_count\",\"type\":\"long\",\"field-id\":514},"
	"{\"name\":\"partitions\",\"type\":" OPT(
		"{\"type\":\"array\",\"element-id\":508,\"items\":{\"type\":\"record\","
		"\"name\":\"r508\",\"fields\":["
		"{\"name\":\"contains_null\",\"type\":\"boolean\",\"field-id\":509},"
		"{\"name\":\"contains_nan\",\"type\":" OPT("\"boolean\"") ",\"field-id\":518},"
		"{\"name\":\"lower_bound\",\"type\":" OPT("\"bytes\"") ",\"field-id\":510},"
		"{\"name\":\"upper_bound\",\"type\":" OPT("\"bytes\"") ",\"field-id\":511}]}}")
	",\"field-id\":507},"
	"{\"name\":\"key_metadata\",\"type\":" OPT("\"bytes\"") ",\"field-id\":519}"
	"]}";

/* ---- manifests ---- */

static int entry_schema(floe_buf *out, const floe_iceberg_partition_spec *spec)
{
	if (spec->n_fields > 0) {
		floe_error_set(FLOE_ERR_USAGE, "partitioned tables are not supported yet (spec %d has %zu "
			       "fields)", spec->spec_id, spec->n_fields);
		return -1;
	}
	if (floe_buf_puts(out, entry_schema_head) < 0 ||
	    floe_buf_puts(out, "{\"type\":\"record\",\"name\":\"r102\",\"fields\":[]}") < 0 ||
	    floe_buf_puts(out, entry_schema_tail) < 0)
		return floe_error_set(FLOE_ERR_INTERNAL, "manifest schema too large");
	return 0;
}

static floe_avro_value *opt_long(floe_arena *a, int64_t v)
{
	return v < 0 ? NULL : floe_avro_long(a, v);
}

/* The stats map of one kind: 0 column_size … 3 nan_count, 4 lower, 5 upper. */
static floe_avro_value *stats_map(floe_arena *a, const floe_iceberg_data_file *f, int kind)
{
	size_t n = 0;
	floe_avro_value *arr = floe_avro_array(a, f->n_columns);
	for (size_t i = 0; i < f->n_columns; i++) {
		const floe_iceberg_column_stats *c = &f->columns[i];
		int64_t counts[4] = { c->column_size, c->value_count, c->null_value_count,
				      c->nan_value_count };
		floe_avro_value *v = NULL;
		if (kind < 4 && counts[kind] >= 0)
			v = floe_avro_long(a, counts[kind]);
		else if (kind == 4 && c->has_lower)
			v = floe_avro_bytes(a, c->lower, c->lower_len);
		else if (kind == 5 && c->has_upper)
			v = floe_avro_bytes(a, c->upper, c->upper_len);
		if (!v)
			continue;
		floe_avro_value *kv = floe_avro_record(a, 2);
		kv->u.list.items[0] = floe_avro_int(a, c->field_id);
		kv->u.list.items[1] = v;
		arr->u.list.items[n++] = kv;
	}
	arr->u.list.len = n;
	return n ? arr : NULL;
}

static floe_avro_value *data_file_value(floe_arena *a, const floe_iceberg_data_file *f)
{
	floe_avro_value *df = floe_avro_record(a, 16), **it = df->u.list.items;
	it[0] = floe_avro_int(a, (int32_t)f->content);
	it[1] = floe_avro_cstring(a, f->path);
	it[2] = floe_avro_cstring(a, f->format ? f->format : "PARQUET");
	it[3] = floe_avro_record(a, 0);
	it[4] = floe_avro_long(a, f->record_count);
	it[5] = floe_avro_long(a, f->file_size_in_bytes);
	for (int k = 0; k < 6; k++)
		it[6 + k] = stats_map(a, f, k);
	it[12] = NULL; /* key_metadata */
	if (f->n_split_offsets) {
		it[13] = floe_avro_array(a, f->n_split_offsets);
		for (size_t i = 0; i < f->n_split_offsets; i++)
			it[13]->u.list.items[i] = floe_avro_long(a, f->split_offsets[i]);
	}
	if (f->n_equality_ids) {
		it[14] = floe_avro_array(a, f->n_equality_ids);
		for (size_t i = 0; i < f->n_equality_ids; i++)
			it[14]->u.list.items[i] = floe_avro_int(a, f->equality_ids[i]);
	}
	it[15] = f->has_sort_order_id ? floe_avro_int(a, f->sort_order_id) : NULL;
	return df;
}

static floe_avro_value *entry_value(floe_arena *a, const floe_iceberg_manifest_entry *e)
{
	floe_avro_value *v = floe_avro_record(a, 5);
	v->u.list.items[0] = floe_avro_int(a, (int32_t)e->status);
	v->u.list.items[1] = opt_long(a, e->snapshot_id);
	v->u.list.items[2] = opt_long(a, e->sequence_number);
	v->u.list.items[3] = opt_long(a, e->file_sequence_number);
	v->u.list.items[4] = data_file_value(a, &e->file);
	return v;
}

static void count_entry(floe_iceberg_manifest_file *s, const floe_iceberg_manifest_entry *e,
			bool *any_live)
{
	int64_t seq = e->sequence_number >= 0 ? e->sequence_number : s->sequence_number;
	switch (e->status) {
	case FLOE_ICEBERG_ADDED:
		s->added_files++;
		s->added_rows += e->file.record_count;
		break;
	case FLOE_ICEBERG_EXISTING:
		s->existing_files++;
		s->existing_rows += e->file.record_count;
		break;
	case FLOE_ICEBERG_DELETED:
		s->deleted_files++;
		s->deleted_rows += e->file.record_count;
		return;
	}
	if (!*any_live || seq < s->min_sequence_number)
		s->min_sequence_number = seq;
	*any_live = true;
}

static int manifest_meta(floe_avro_writer *w, const floe_iceberg_manifest_header *h)
{
	floe_buf json = FLOE_BUF_INIT;
	char num[32];
	int rc = floe_iceberg_schema_write_json(&json, h->schema);
	rc = rc < 0 ? -1 : floe_avro_writer_meta(w, "schema", json.ptr, json.len);
	snprintf(num, sizeof(num), "%d", h->schema->schema_id);
	rc = rc < 0 ? -1 : floe_avro_writer_meta_cstr(w, "schema-id", num);
	floe_buf_clear(&json);
	rc = rc < 0 ? -1 : floe_iceberg_partition_fields_write_json(&json, h->spec);
	rc = rc < 0 ? -1 : floe_avro_writer_meta(w, "partition-spec", json.ptr, json.len);
	snprintf(num, sizeof(num), "%d", h->spec->spec_id);
	rc = rc < 0 ? -1 : floe_avro_writer_meta_cstr(w, "partition-spec-id", num);
	rc = rc < 0 ? -1 : floe_avro_writer_meta_cstr(w, "format-version", "2");
	rc = rc < 0 ? -1 : floe_avro_writer_meta_cstr(w, "content",
						     h->content == FLOE_ICEBERG_CONTENT_DATA ? "data"
											     : "deletes");
	floe_buf_free(&json);
	return rc;
}

int floe_iceberg_manifest_write(floe_buf *out, floe_iceberg_manifest_file *summary,
				const floe_iceberg_manifest_header *header,
				const floe_iceberg_manifest_entry *entries, size_t n)
{
	floe_buf schema = FLOE_BUF_INIT;
	floe_avro_writer *w = NULL;
	floe_arena *scratch = floe_arena_new();
	bool any_live = false;
	int error = -1;

	summary->added_files = summary->existing_files = summary->deleted_files = 0;
	summary->added_rows = summary->existing_rows = summary->deleted_rows = 0;
	summary->min_sequence_number = summary->sequence_number;
	summary->spec_id = header->spec->spec_id;
	summary->content = header->content == FLOE_ICEBERG_CONTENT_DATA ? FLOE_ICEBERG_CONTENT_DATA
									: FLOE_ICEBERG_CONTENT_POSITION_DELETES;
	if (entry_schema(&schema, header->spec) < 0 ||
	    floe_avro_writer_new(&w, schema.ptr, schema.len, NULL) < 0 || manifest_meta(w, header) < 0)
		goto cleanup;
	for (size_t i = 0; i < n; i++) {
		if (floe_avro_writer_append(w, entry_value(scratch, &entries[i])) < 0) {
			floe_error_context("while writing the manifest entry of \"%s\"", entries[i].file.path);
			goto cleanup;
		}
		count_entry(summary, &entries[i], &any_live);
	}
	if (floe_avro_writer_finish(w, out) < 0)
		goto cleanup;
	error = 0;
cleanup:
	floe_avro_writer_free(w);
	floe_buf_free(&schema);
	floe_arena_free(scratch);
	return error;
}

/* ---- manifest lists ---- */

static floe_avro_value *list_value(floe_arena *a, const floe_iceberg_manifest_file *m)
{
	floe_avro_value *v = floe_avro_record(a, 15), **it = v->u.list.items;
	it[0] = floe_avro_cstring(a, m->path);
	it[1] = floe_avro_long(a, m->length);
	it[2] = floe_avro_int(a, m->spec_id);
	it[3] = floe_avro_int(a, (int32_t)m->content);
	it[4] = floe_avro_long(a, m->sequence_number);
	it[5] = floe_avro_long(a, m->min_sequence_number);
	it[6] = floe_avro_long(a, m->added_snapshot_id);
	it[7] = floe_avro_int(a, m->added_files);
	it[8] = floe_avro_int(a, m->existing_files);
	it[9] = floe_avro_int(a, m->deleted_files);
	it[10] = floe_avro_long(a, m->added_rows);
	it[11] = floe_avro_long(a, m->existing_rows);
	it[12] = floe_avro_long(a, m->deleted_rows);
	it[13] = floe_avro_array(a, 0); /* no partition fields: no summaries */
	it[14] = NULL;
	return v;
}

int floe_iceberg_manifest_list_write(floe_buf *out, const floe_iceberg_manifest_list_header *header,
				     const floe_iceberg_manifest_file *files, size_t n)
{
	floe_avro_writer *w = NULL;
	floe_arena *scratch = floe_arena_new();
	char num[32];
	int error = -1;

	if (floe_avro_writer_new(&w, list_schema, sizeof(list_schema) - 1, NULL) < 0)
		goto cleanup;
	snprintf(num, sizeof(num), "%" PRId64, header->snapshot_id);
	if (floe_avro_writer_meta_cstr(w, "snapshot-id", num) < 0)
		goto cleanup;
	/* Java writes the literal "null" for a first snapshot; readers expect the key. */
	if (header->has_parent)
		snprintf(num, sizeof(num), "%" PRId64, header->parent_id);
	else
		snprintf(num, sizeof(num), "null");
	if (floe_avro_writer_meta_cstr(w, "parent-snapshot-id", num) < 0)
		goto cleanup;
	snprintf(num, sizeof(num), "%" PRId64, header->sequence_number);
	if (floe_avro_writer_meta_cstr(w, "sequence-number", num) < 0 ||
	    floe_avro_writer_meta_cstr(w, "format-version", "2") < 0)
		goto cleanup;
	for (size_t i = 0; i < n; i++)
		if (floe_avro_writer_append(w, list_value(scratch, &files[i])) < 0)
			goto cleanup;
	if (floe_avro_writer_finish(w, out) < 0)
		goto cleanup;
	error = 0;
cleanup:
	floe_avro_writer_free(w);
	floe_arena_free(scratch);
	return error;
}
