/*
 * test_manifest.c — manifests and manifest lists: what the writer puts in the Avro
 * header (record names, field ids, map encoding, Iceberg keys), round trips with
 * stats, and sequence-number inheritance.
 */
#include "harness.h"

#include "base/arena.h"
#include "base/error.h"
#include "format/avro.h"
#include "iceberg/manifest.h"

static floe_iceberg_schema *one_column(floe_arena *a)
{
	floe_iceberg_schema *s = floe_arena_alloc(a, sizeof(*s));
	s->n_fields = 1;
	s->fields = floe_arena_alloc(a, sizeof(*s->fields));
	s->fields[0] = (floe_iceberg_field){ 1, "id", true, floe_iceberg_type_new(a, FLOE_ICEBERG_LONG),
					     NULL };
	return s;
}

static void fill_file(floe_iceberg_data_file *f, floe_iceberg_column_stats *cols, const char *path)
{
	floe_iceberg_data_file init = FLOE_ICEBERG_DATA_FILE_INIT;
	static const int64_t splits[] = { 4, 1000 };
	*f = init;
	f->path = path;
	f->record_count = 42;
	f->file_size_in_bytes = 2048;
	f->split_offsets = splits;
	f->n_split_offsets = 2;
	cols[0] = (floe_iceberg_column_stats){ 1, 100, 42, 0, -1, true, true,
					       (const uint8_t *)"\x01\0\0\0\0\0\0\0", 8,
					       (const uint8_t *)"\x2a\0\0\0\0\0\0\0", 8 };
	cols[1] = (floe_iceberg_column_stats){ 2, 50, 42, 3, 1, false, false, NULL, 0, NULL, 0 };
	f->columns = cols;
	f->n_columns = 2;
}

static const char *header(const floe_buf *file, const char *key, floe_arena *a)
{
	floe_avro_reader *r = NULL;
	floe_slice v;
	const char *out = NULL;
	if (floe_avro_reader_open(&r, file->ptr, file->len) == 0 && floe_avro_reader_meta(r, key, &v))
		out = floe_arena_strndup(a, v.ptr, v.len);
	floe_avro_reader_free(r);
	return out;
}

FLOE_TEST(iceberg_manifest_round_trip)
{
	floe_arena *a = floe_arena_new();
	floe_iceberg_partition_spec spec = { 0, 0, NULL };
	floe_iceberg_manifest_header h = { one_column(a), &spec, FLOE_ICEBERG_CONTENT_DATA };
	floe_iceberg_manifest_entry e[3];
	floe_iceberg_column_stats cols[3][2];
	floe_iceberg_manifest_file mf = { 0 };
	floe_iceberg_manifest_entry *got = NULL;
	floe_buf file = FLOE_BUF_INIT;
	size_t n = 0;
	for (int i = 0; i < 3; i++)
		fill_file(&e[i].file, cols[i], floe_arena_printf(a, "file:///w/t/data/%d.parquet", i));
	e[0] = (floe_iceberg_manifest_entry){ FLOE_ICEBERG_ADDED, 77, -1, -1, e[0].file };
	e[1] = (floe_iceberg_manifest_entry){ FLOE_ICEBERG_EXISTING, 55, 3, 3, e[1].file };
	e[2] = (floe_iceberg_manifest_entry){ FLOE_ICEBERG_DELETED, 77, 2, 2, e[2].file };
	mf.sequence_number = 5;
	mf.added_snapshot_id = 77;
	FLOE_CHECK(floe_iceberg_manifest_write(&file, &mf, &h, e, 3) == 0);
	FLOE_CHECK(mf.added_files == 1 && mf.existing_files == 1 && mf.deleted_files == 1);
	FLOE_CHECK(mf.added_rows == 42 && mf.deleted_rows == 42);
	FLOE_CHECK(mf.min_sequence_number == 3); /* live entries only: EXISTING at 3, ADDED at 5 */

	/* The header: Iceberg's keys, and an Avro schema with its record names and ids. */
	const char *schema = header(&file, "avro.schema", a);
	FLOE_CHECK(schema && strstr(schema, "\"name\":\"manifest_entry\""));
	FLOE_CHECK(schema && strstr(schema, "\"name\":\"r2\"") && strstr(schema, "\"name\":\"r102\""));
	FLOE_CHECK(schema && strstr(schema, "\"name\":\"k126_v127\"") &&
		   strstr(schema, "\"logicalType\":\"map\""));
	FLOE_CHECK(schema && strstr(schema, "\"element-id\":133"));
	FLOE_CHECK_STR(header(&file, "format-version", a), "2");
	FLOE_CHECK_STR(header(&file, "content", a), "data");
	FLOE_CHECK_STR(header(&file, "partition-spec", a), "[]");
	FLOE_CHECK_STR(header(&file, "partition-spec-id", a), "0");
	FLOE_CHECK_STR(header(&file, "schema-id", a), "0");
	FLOE_CHECK(header(&file, "schema", a) && strstr(header(&file, "schema", a), "\"type\":\"struct\""));
	FLOE_CHECK_STR(header(&file, "avro.codec", a), "deflate");

	FLOE_CHECK(floe_iceberg_manifest_read(&got, &n, a, file.ptr, file.len, &mf) == 0);
	FLOE_CHECK(n == 3);
	if (n == 3) {
		FLOE_CHECK(got[0].status == FLOE_ICEBERG_ADDED && got[0].sequence_number == 5 &&
			   got[0].file_sequence_number == 5 && got[0].snapshot_id == 77);
		FLOE_CHECK(got[1].status == FLOE_ICEBERG_EXISTING && got[1].sequence_number == 3 &&
			   got[1].snapshot_id == 55);
		FLOE_CHECK(got[2].status == FLOE_ICEBERG_DELETED && got[2].sequence_number == 2);
		FLOE_CHECK_STR(got[1].file.path, "file:///w/t/data/1.parquet");
		FLOE_CHECK_STR(got[1].file.format, "PARQUET");
		FLOE_CHECK(got[0].file.record_count == 42 && got[0].file.file_size_in_bytes == 2048);
		FLOE_CHECK(got[0].file.n_split_offsets == 2 && got[0].file.split_offsets[1] == 1000);
		const floe_iceberg_column_stats *c1 = floe_iceberg_data_file_column(&got[0].file, 1);
		const floe_iceberg_column_stats *c2 = floe_iceberg_data_file_column(&got[0].file, 2);
		FLOE_CHECK(c1 && c1->column_size == 100 && c1->value_count == 42 &&
			   c1->null_value_count == 0 && c1->nan_value_count == -1);
		FLOE_CHECK(c1 && c1->has_lower && c1->lower_len == 8 && c1->lower[0] == 1);
		FLOE_CHECK(c1 && c1->has_upper && c1->upper[0] == 0x2a);
		FLOE_CHECK(c2 && c2->null_value_count == 3 && c2->nan_value_count == 1 && !c2->has_lower);
		FLOE_CHECK(!got[0].file.has_sort_order_id);
	}
	/* Without the list entry nothing is inherited. */
	FLOE_CHECK(floe_iceberg_manifest_read(&got, &n, a, file.ptr, file.len, NULL) == 0);
	FLOE_CHECK(n == 3 && got[0].sequence_number == -1);
	floe_buf_free(&file);
	floe_arena_free(a);
}

FLOE_TEST(iceberg_manifest_list_round_trip)
{
	floe_arena *a = floe_arena_new();
	floe_iceberg_manifest_file files[2] = {
		{ "file:///w/m0.avro", 1234, 0, FLOE_ICEBERG_CONTENT_DATA, 4, 2, 99, 1, 2, 0, 10, 20, 0 },
		{ "file:///w/m1.avro", 99, 0, FLOE_ICEBERG_CONTENT_POSITION_DELETES, 4, 4, 98, 0, 0, 3,
		  0, 0, 30 },
	};
	floe_iceberg_manifest_list_header h = { 99, false, 0, 4 };
	floe_iceberg_manifest_file *got = NULL;
	floe_buf file = FLOE_BUF_INIT;
	size_t n = 0;
	FLOE_CHECK(floe_iceberg_manifest_list_write(&file, &h, files, 2) == 0);
	FLOE_CHECK_STR(header(&file, "parent-snapshot-id", a), "null");
	FLOE_CHECK_STR(header(&file, "snapshot-id", a), "99");
	FLOE_CHECK_STR(header(&file, "sequence-number", a), "4");
	FLOE_CHECK(strstr(header(&file, "avro.schema", a), "\"name\":\"manifest_file\"") != NULL);
	FLOE_CHECK(strstr(header(&file, "avro.schema", a), "\"name\":\"r508\"") != NULL);
	FLOE_CHECK(floe_iceberg_manifest_list_read(&got, &n, a, file.ptr, file.len) == 0);
	FLOE_CHECK(n == 2);
	if (n == 2) {
		FLOE_CHECK_STR(got[0].path, "file:///w/m0.avro");
		FLOE_CHECK(got[0].length == 1234 && got[0].sequence_number == 4 &&
			   got[0].min_sequence_number == 2 && got[0].added_snapshot_id == 99);
		FLOE_CHECK(got[0].added_files == 1 && got[0].existing_files == 2 &&
			   got[0].added_rows == 10 && got[0].existing_rows == 20);
		FLOE_CHECK(got[1].content == FLOE_ICEBERG_CONTENT_POSITION_DELETES &&
			   got[1].deleted_files == 3 && got[1].deleted_rows == 30);
	}
	floe_buf_clear(&file);
	h.has_parent = true;
	h.parent_id = 7;
	FLOE_CHECK(floe_iceberg_manifest_list_write(&file, &h, files, 0) == 0);
	FLOE_CHECK_STR(header(&file, "parent-snapshot-id", a), "7");
	FLOE_CHECK(floe_iceberg_manifest_list_read(&got, &n, a, file.ptr, file.len) == 0 && n == 0);
	floe_buf_free(&file);
	floe_arena_free(a);
}

FLOE_TEST(iceberg_manifest_refuses_partitioned_and_garbage)
{
	floe_arena *a = floe_arena_new();
	floe_iceberg_partition_field pf = { 1, 1000, "id_bucket", "bucket[4]" };
	floe_iceberg_partition_spec spec = { 1, 1, &pf };
	floe_iceberg_manifest_header h = { one_column(a), &spec, FLOE_ICEBERG_CONTENT_DATA };
	floe_iceberg_manifest_file mf = { 0 };
	floe_iceberg_manifest_entry *got = NULL;
	floe_buf file = FLOE_BUF_INIT;
	size_t n = 0;
	floe_error_clear();
	FLOE_CHECK(floe_iceberg_manifest_write(&file, &mf, &h, NULL, 0) < 0);
	FLOE_CHECK(floe_error_last() && strstr(floe_error_last()->message, "partitioned"));
	/* A manifest list is not a manifest: required fields are missing. */
	floe_iceberg_manifest_list_header lh = { 1, false, 0, 1 };
	FLOE_CHECK(floe_iceberg_manifest_list_write(&file, &lh, NULL, 0) == 0);
	FLOE_CHECK(floe_iceberg_manifest_read(&got, &n, a, file.ptr, file.len, NULL) < 0);
	FLOE_CHECK(floe_error_last() && strstr(floe_error_last()->message, "\"status\""));
	floe_error_clear();
	floe_buf_free(&file);
	floe_arena_free(a);
}
