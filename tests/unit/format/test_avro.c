/*
 * test_avro.c — the Avro container writer and reader: round trips through both
 * codecs, attributes kept in the header, metadata, blocks, and the errors a
 * malformed file or a misfit value must raise.
 */
#include "harness.h"

#include "base/arena.h"
#include "base/error.h"
#include "format/avro.h"

#include <stdint.h>

static const char *entry_schema =
	"{\"type\":\"record\",\"name\":\"manifest_entry\",\"fields\":["
	"{\"name\":\"status\",\"type\":\"int\",\"field-id\":0},"
	"{\"name\":\"snapshot_id\",\"type\":[\"null\",\"long\"],\"default\":null,\"field-id\":1},"
	"{\"name\":\"data_file\",\"field-id\":2,\"type\":{\"type\":\"record\",\"name\":\"r2\","
	"\"fields\":["
	"{\"name\":\"file_path\",\"type\":\"string\",\"field-id\":100},"
	"{\"name\":\"partition\",\"type\":{\"type\":\"record\",\"name\":\"r102\",\"fields\":[]},"
	"\"field-id\":102},"
	"{\"name\":\"value\",\"type\":\"double\",\"field-id\":90},"
	"{\"name\":\"ratio\",\"type\":\"float\",\"field-id\":91},"
	"{\"name\":\"ok\",\"type\":\"boolean\",\"field-id\":92},"
	"{\"name\":\"lower_bounds\",\"field-id\":125,\"type\":[\"null\",{\"type\":\"array\","
	"\"logicalType\":\"map\",\"items\":{\"type\":\"record\",\"name\":\"k126_v127\","
	"\"fields\":[{\"name\":\"key\",\"type\":\"int\",\"field-id\":126},"
	"{\"name\":\"value\",\"type\":\"bytes\",\"field-id\":127}]}}],\"default\":null},"
	"{\"name\":\"split_offsets\",\"field-id\":132,\"type\":[\"null\",{\"type\":\"array\","
	"\"element-id\":133,\"items\":\"long\"}],\"default\":null},"
	"{\"name\":\"tags\",\"type\":{\"type\":\"map\",\"values\":\"string\"}},"
	"{\"name\":\"md5\",\"type\":{\"type\":\"fixed\",\"name\":\"md5\",\"size\":4}},"
	"{\"name\":\"kind\",\"type\":{\"type\":\"enum\",\"name\":\"kind\",\"symbols\":[\"A\",\"B\"]}}"
	"]}}]}";

static floe_avro_value *make_entry(floe_arena *a, int64_t i)
{
	floe_avro_value *e = floe_avro_record(a, 3), *df = floe_avro_record(a, 10);
	floe_avro_value *bounds = floe_avro_array(a, 2), *splits = floe_avro_array(a, 1);
	floe_avro_value *tags = floe_avro_null(a), *fixed = floe_avro_bytes(a, "abcd", 4);
	e->u.list.items[0] = floe_avro_int(a, (int32_t)(i % 3));
	e->u.list.items[1] = i % 2 ? floe_avro_long(a, INT64_MAX - i) : NULL;
	e->u.list.items[2] = df;
	df->u.list.items[0] = floe_avro_cstring(a, floe_arena_printf(a, "file:///w/f-%lld.parquet",
								       (long long)i));
	df->u.list.items[1] = floe_avro_record(a, 0);
	df->u.list.items[2] = floe_avro_double(a, -1.5 * (double)i);
	df->u.list.items[3] = floe_avro_float(a, 0.25f);
	df->u.list.items[4] = floe_avro_boolean(a, i % 2 == 0);
	for (int k = 0; k < 2; k++) {
		floe_avro_value *kv = floe_avro_record(a, 2);
		kv->u.list.items[0] = floe_avro_int(a, k + 1);
		kv->u.list.items[1] = floe_avro_bytes(a, "\x00\x01\xff", (size_t)(k + 2));
		bounds->u.list.items[k] = kv;
	}
	df->u.list.items[5] = bounds;
	splits->u.list.items[0] = floe_avro_long(a, 4);
	df->u.list.items[6] = i % 5 ? splits : NULL;
	tags->kind = FLOE_AVRO_MAP;
	tags->u.map.len = 1;
	tags->u.map.keys = floe_arena_alloc(a, sizeof(floe_slice));
	tags->u.map.values = floe_arena_alloc(a, sizeof(floe_avro_value *));
	tags->u.map.keys[0] = FLOE_SLICE("k");
	tags->u.map.values[0] = floe_avro_cstring(a, "v");
	df->u.list.items[7] = tags;
	df->u.list.items[8] = fixed;
	df->u.list.items[9] = floe_avro_long(a, i % 2);
	return e;
}

static void check_entry(const floe_avro_value *e, int64_t i)
{
	const floe_avro_value *df = floe_avro_value_at(e, 2), *b, *kv;
	char path[64];
	FLOE_CHECK(e && e->kind == FLOE_AVRO_RECORD && e->u.list.len == 3);
	FLOE_CHECK(floe_avro_value_at(e, 0)->u.integer == i % 3);
	if (i % 2)
		FLOE_CHECK(floe_avro_value_at(e, 1)->kind == FLOE_AVRO_LONG &&
			   floe_avro_value_at(e, 1)->u.integer == INT64_MAX - i);
	else
		FLOE_CHECK(floe_avro_value_at(e, 1)->kind == FLOE_AVRO_NULL);
	snprintf(path, sizeof(path), "file:///w/f-%lld.parquet", (long long)i);
	FLOE_CHECK(df && floe_avro_value_at(df, 0)->u.bytes.len == strlen(path) &&
		   memcmp(floe_avro_value_at(df, 0)->u.bytes.ptr, path, strlen(path)) == 0);
	FLOE_CHECK(floe_avro_value_at(df, 1)->kind == FLOE_AVRO_RECORD &&
		   floe_avro_value_at(df, 1)->u.list.len == 0);
	FLOE_CHECK(floe_avro_value_at(df, 2)->u.real == -1.5 * (double)i);
	FLOE_CHECK(floe_avro_value_at(df, 3)->u.real == 0.25);
	FLOE_CHECK(floe_avro_value_at(df, 4)->u.boolean == (i % 2 == 0));
	b = floe_avro_value_at(df, 5);
	FLOE_CHECK(b->kind == FLOE_AVRO_ARRAY && b->u.list.len == 2);
	kv = floe_avro_value_at(b, 1);
	FLOE_CHECK(floe_avro_value_at(kv, 0)->u.integer == 2);
	FLOE_CHECK(floe_avro_value_at(kv, 1)->u.bytes.len == 3 &&
		   memcmp(floe_avro_value_at(kv, 1)->u.bytes.ptr, "\x00\x01\xff", 3) == 0);
	FLOE_CHECK(floe_avro_value_at(df, 6)->kind == (i % 5 ? FLOE_AVRO_ARRAY : FLOE_AVRO_NULL));
	FLOE_CHECK(floe_avro_value_at(df, 7)->kind == FLOE_AVRO_MAP &&
		   floe_avro_value_at(df, 7)->u.map.len == 1 &&
		   floe_slice_eq_cstr(floe_avro_value_at(df, 7)->u.map.keys[0], "k"));
	FLOE_CHECK(floe_avro_value_at(df, 8)->u.bytes.len == 4);
	FLOE_CHECK(floe_avro_value_at(df, 9)->kind == FLOE_AVRO_ENUM &&
		   floe_avro_value_at(df, 9)->u.integer == i % 2);
}

static void round_trip(floe_avro_codec codec, size_t block_bytes, int n)
{
	floe_avro_writer_opts opts = FLOE_AVRO_WRITER_OPTS_INIT;
	floe_avro_writer *w = NULL;
	floe_avro_reader *r = NULL;
	floe_arena *a = floe_arena_new();
	floe_buf file = FLOE_BUF_INIT;
	const floe_avro_value *v;
	floe_slice meta;
	int got = 0, rc;

	opts.codec = codec;
	opts.block_bytes = block_bytes;
	FLOE_CHECK(floe_avro_writer_new(&w, entry_schema, strlen(entry_schema), &opts) == 0);
	FLOE_CHECK(floe_avro_writer_meta_cstr(w, "format-version", "1") == 0);
	FLOE_CHECK(floe_avro_writer_meta_cstr(w, "format-version", "2") == 0);
	FLOE_CHECK(floe_avro_writer_meta(w, "bin", "\0x", 2) == 0);
	FLOE_CHECK(floe_avro_writer_meta_cstr(w, "avro.codec", "null") < 0);
	for (int i = 0; i < n; i++)
		FLOE_CHECK(floe_avro_writer_append(w, make_entry(a, i)) == 0);
	FLOE_CHECK(floe_avro_writer_count(w) == (size_t)n);
	FLOE_CHECK(floe_avro_writer_finish(w, &file) == 0);
	floe_avro_writer_free(w);

	FLOE_CHECK(floe_avro_reader_open(&r, file.ptr, file.len) == 0);
	if (!r)
		goto cleanup;
	FLOE_CHECK(floe_avro_reader_meta(r, "format-version", &meta) && floe_slice_eq_cstr(meta, "2"));
	FLOE_CHECK(floe_avro_reader_meta(r, "bin", &meta) && meta.len == 2 && meta.ptr[0] == 0);
	FLOE_CHECK(floe_avro_reader_meta(r, "avro.codec", &meta) &&
		   floe_slice_eq_cstr(meta, codec == FLOE_AVRO_CODEC_NULL ? "null" : "deflate"));
	/* The schema text is kept byte for byte: Iceberg's attributes survive. */
	FLOE_CHECK(floe_avro_reader_meta(r, "avro.schema", &meta) && meta.len == strlen(entry_schema) &&
		   memcmp(meta.ptr, entry_schema, meta.len) == 0);
	while ((rc = floe_avro_reader_next(r, a, &v)) == 1)
		check_entry(v, got++);
	FLOE_CHECK(rc == 0);
	FLOE_CHECK(got == n);
cleanup:
	floe_avro_reader_free(r);
	floe_buf_free(&file);
	floe_arena_free(a);
}

FLOE_TEST(avro_round_trip_deflate)
{
	round_trip(FLOE_AVRO_CODEC_DEFLATE, 1 << 20, 500);
	round_trip(FLOE_AVRO_CODEC_DEFLATE, 64, 300); /* many blocks */
	round_trip(FLOE_AVRO_CODEC_DEFLATE, 1 << 20, 0);
}

FLOE_TEST(avro_round_trip_null_codec)
{
	round_trip(FLOE_AVRO_CODEC_NULL, 1 << 20, 200);
	round_trip(FLOE_AVRO_CODEC_NULL, 1, 50);
}

FLOE_TEST(avro_schema_attributes)
{
	floe_avro_schema *s = NULL;
	const floe_avro_type *root, *df, *lb, *arr;
	int64_t id = -1;
	FLOE_CHECK(floe_avro_schema_parse(&s, entry_schema, strlen(entry_schema)) == 0);
	if (!s)
		return;
	root = floe_avro_schema_root(s);
	FLOE_CHECK_STR(floe_avro_type_name(root), "manifest_entry");
	FLOE_CHECK(floe_avro_field_find(root, 2, NULL) == 2);
	FLOE_CHECK(floe_avro_field_id(&id, root, 1) == 0 && id == 1);
	df = floe_avro_type_child(root, 2);
	FLOE_CHECK_STR(floe_avro_type_name(df), "r2");
	lb = floe_avro_type_child(df, (size_t)floe_avro_field_find(df, 125, NULL));
	FLOE_CHECK(floe_avro_type_kind(lb) == FLOE_AVRO_UNION && floe_avro_type_count(lb) == 2);
	arr = floe_avro_type_child(lb, 1);
	FLOE_CHECK_STR(floe_avro_type_logical(arr), "map");
	FLOE_CHECK_STR(floe_avro_type_name(floe_avro_type_items(arr)), "k126_v127");
	arr = floe_avro_type_child(floe_avro_type_child(df, 6), 1);
	FLOE_CHECK(floe_avro_element_id(&id, arr) == 0 && id == 133);
	FLOE_CHECK(floe_avro_field_find(df, 999, "tags") == 7);
	FLOE_CHECK(floe_avro_field_find(df, 999, "nope") == -1);
	floe_avro_schema_free(s);
}

static void schema_fails(const char *json, const char *needle)
{
	floe_avro_schema *s = NULL;
	floe_error_clear();
	FLOE_CHECK(floe_avro_schema_parse(&s, json, strlen(json)) < 0);
	FLOE_CHECK(s == NULL);
	const floe_error *e = floe_error_last();
	FLOE_CHECK(e && strstr(e->message, needle));
	if (e && !strstr(e->message, needle))
		fprintf(stderr, "    message: %s\n", e->message);
	floe_error_clear();
}

FLOE_TEST(avro_schema_errors)
{
	schema_fails("{\"type\":\"record\",\"fields\":[]}", "no \"name\"");
	schema_fails("{\"type\":\"record\",\"name\":\"a\"}", "no \"fields\"");
	schema_fails("\"r9\"", "unknown type \"r9\"");
	schema_fails("[\"null\",\"null\"]", "two branches");
	schema_fails("[\"null\",[\"int\"]]", "union directly inside");
	schema_fails("{\"type\":\"record\",\"name\":\"a\",\"fields\":[{\"name\":\"x\",\"type\":\"int\"},"
		     "{\"name\":\"x\",\"type\":\"int\"}]}", "appears twice");
	schema_fails("{\"type\":\"fixed\",\"name\":\"f\"}", "size");
	schema_fails("{\"type\":\"record\",\"name\":\"a\",\"fields\":[{\"name\":\"x\",\"type\":"
		     "{\"type\":\"record\",\"name\":\"a\",\"fields\":[]}}]}", "defined twice");
	schema_fails("{\"type\":", "not JSON");
	/* Recursion through a name is fine. */
	floe_avro_schema *s = NULL;
	const char *list = "{\"type\":\"record\",\"name\":\"node\",\"namespace\":\"x.y\",\"fields\":["
			   "{\"name\":\"next\",\"type\":[\"null\",\"node\"]},"
			   "{\"name\":\"other\",\"type\":[\"null\",\"x.y.node\"]}]}";
	FLOE_CHECK(floe_avro_schema_parse(&s, list, strlen(list)) == 0);
	FLOE_CHECK(s && strcmp(floe_avro_type_name(floe_avro_schema_root(s)), "x.y.node") == 0);
	floe_avro_schema_free(s);
}

FLOE_TEST(avro_writer_refuses_misfits)
{
	floe_avro_writer *w = NULL;
	floe_arena *a = floe_arena_new();
	floe_buf file = FLOE_BUF_INIT;
	floe_avro_value *e = make_entry(a, 1);
	FLOE_CHECK(floe_avro_writer_new(&w, entry_schema, strlen(entry_schema), NULL) == 0);
	floe_error_clear();
	e->u.list.items[0] = floe_avro_cstring(a, "x"); /* status must be an int */
	FLOE_CHECK(floe_avro_writer_append(w, e) < 0);
	FLOE_CHECK(floe_error_last() && strstr(floe_error_last()->message, "string value"));
	e->u.list.items[0] = floe_avro_long(a, (int64_t)1 << 40);
	FLOE_CHECK(floe_avro_writer_append(w, e) < 0);
	e->u.list.items[0] = floe_avro_int(a, 1);
	FLOE_CHECK(floe_avro_writer_append(w, e) == 0);
	FLOE_CHECK(floe_avro_writer_count(w) == 1);
	FLOE_CHECK(floe_avro_writer_finish(w, &file) == 0);
	floe_avro_writer_free(w);
	/* The refused data left nothing behind: the one good datum reads back. */
	floe_avro_reader *r = NULL;
	const floe_avro_value *v = NULL;
	FLOE_CHECK(floe_avro_reader_open(&r, file.ptr, file.len) == 0);
	FLOE_CHECK(r && floe_avro_reader_next(r, a, &v) == 1);
	check_entry(v, 1);
	FLOE_CHECK(r && floe_avro_reader_next(r, a, &v) == 0);
	floe_avro_reader_free(r);
	floe_error_clear();
	floe_buf_free(&file);
	floe_arena_free(a);
}

/* Every prefix and many single-byte corruptions of a file must fail cleanly or read. */
FLOE_TEST(avro_reader_survives_damage)
{
	floe_avro_writer *w = NULL;
	floe_arena *a = floe_arena_new();
	floe_buf file = FLOE_BUF_INIT;
	for (int codec = 0; codec < 2; codec++) {
		floe_avro_writer_opts opts = FLOE_AVRO_WRITER_OPTS_INIT;
		opts.codec = codec ? FLOE_AVRO_CODEC_DEFLATE : FLOE_AVRO_CODEC_NULL;
		opts.block_bytes = 200;
		floe_buf_clear(&file);
		FLOE_CHECK(floe_avro_writer_new(&w, entry_schema, strlen(entry_schema), &opts) == 0);
		for (int i = 0; i < 5; i++)
			floe_avro_writer_append(w, make_entry(a, i));
		FLOE_CHECK(floe_avro_writer_finish(w, &file) == 0);
		floe_avro_writer_free(w);
		for (size_t cut = 0; cut < file.len; cut += 7) {
			floe_avro_reader *r = NULL;
			const floe_avro_value *v;
			int rc = 0, n = 0;
			if (floe_avro_reader_open(&r, file.ptr, cut) == 0) {
				while ((rc = floe_avro_reader_next(r, a, &v)) == 1)
					n++;
				FLOE_CHECK(rc < 0 || n <= 5);
			}
			floe_avro_reader_free(r);
		}
		for (size_t at = 0; at < file.len; at += 3) {
			char saved = file.ptr[at];
			floe_avro_reader *r = NULL;
			const floe_avro_value *v;
			file.ptr[at] = (char)(saved ^ 0x5A);
			if (floe_avro_reader_open(&r, file.ptr, file.len) == 0)
				while (floe_avro_reader_next(r, a, &v) == 1)
					;
			floe_avro_reader_free(r);
			file.ptr[at] = saved;
		}
	}
	floe_error_clear();
	floe_buf_free(&file);
	floe_arena_free(a);
}

FLOE_TEST(avro_reader_errors)
{
	floe_avro_reader *r = NULL;
	floe_error_clear();
	FLOE_CHECK(floe_avro_reader_open(&r, "PAR1", 4) < 0);
	FLOE_CHECK(floe_error_last() && strstr(floe_error_last()->message, "magic"));
	/* Header with a snappy codec: refused with the codec's name. */
	static const char hdr[] = "Obj\x01\x04"
				  "\x16" "avro.schema" "\x0c" "\"long\""
				  "\x14" "avro.codec" "\x0c" "snappy"
				  "\x00" "0123456789abcdef";
	FLOE_CHECK(floe_avro_reader_open(&r, hdr, sizeof(hdr) - 1) < 0);
	FLOE_CHECK(floe_error_last() && strstr(floe_error_last()->message, "snappy"));
	/* A block of longs whose claimed count exceeds its bytes. */
	static const char blk[] = "Obj\x01\x02"
				  "\x16" "avro.schema" "\x0c" "\"long\""
				  "\x00" "0123456789abcdef"
				  "\xfe\xff\x03" "\x02" "\x02" "0123456789abcdef";
	FLOE_CHECK(floe_avro_reader_open(&r, blk, sizeof(blk) - 1) == 0);
	if (r) {
		floe_arena *a = floe_arena_new();
		const floe_avro_value *v;
		FLOE_CHECK(floe_avro_reader_next(r, a, &v) < 0);
		FLOE_CHECK(floe_error_last() && strstr(floe_error_last()->message, "corrupt"));
		floe_arena_free(a);
	}
	floe_avro_reader_free(r);
	floe_error_clear();
}
