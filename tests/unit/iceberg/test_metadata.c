/*
 * test_metadata.c — table metadata JSON: a file PyIceberg wrote reads; what floe
 * writes reads back equal; and the reader refuses what a v2 reader must refuse.
 */
#include "harness.h"

#include "base/arena.h"
#include "base/error.h"
#include "iceberg/metadata.h"

/* Written by PyIceberg 0.12 (two appends), trimmed of nothing but whitespace. */
static const char *pyiceberg_json =
	"{\"location\":\"file:///tmp/ref/wh/bronze/orders\",\"table-uuid\":"
	"\"b5220924-a07d-4f24-8eca-d235348b270e\",\"last-updated-ms\":1796012949845,"
	"\"last-column-id\":5,\"schemas\":[{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"id\","
	"\"type\":\"long\",\"required\":true},{\"id\":2,\"name\":\"name\",\"type\":\"string\","
	"\"required\":false},{\"id\":3,\"name\":\"m\",\"type\":{\"type\":\"map\",\"key-id\":4,"
	"\"key\":\"int\",\"value-id\":5,\"value\":\"string\",\"value-required\":false},"
	"\"required\":false}],\"schema-id\":0,\"identifier-field-ids\":[]}],\"current-schema-id\":0,"
	"\"partition-specs\":[{\"spec-id\":0,\"fields\":[]}],\"default-spec-id\":0,"
	"\"last-partition-id\":999,\"properties\":{},\"current-snapshot-id\":5085161471425880007,"
	"\"snapshots\":[{\"snapshot-id\":9018912672531978616,\"sequence-number\":1,\"timestamp-ms\":"
	"1796012949826,\"manifest-list\":\"file:///tmp/ref/wh/bronze/orders/metadata/snap-"
	"9018912672531978616-0-5cc48921-808f-4414-978b-4427261213e1.avro\",\"summary\":{\"operation\":"
	"\"append\",\"added-files-size\":\"1875\",\"added-data-files\":\"1\",\"added-records\":\"3\","
	"\"total-data-files\":\"1\",\"total-delete-files\":\"0\",\"total-records\":\"3\","
	"\"total-files-size\":\"1875\",\"total-position-deletes\":\"0\",\"total-equality-deletes\":"
	"\"0\"},\"schema-id\":0},{\"snapshot-id\":5085161471425880007,\"parent-snapshot-id\":"
	"9018912672531978616,\"sequence-number\":2,\"timestamp-ms\":1796012949845,\"manifest-list\":"
	"\"file:///tmp/ref/wh/bronze/orders/metadata/snap-5085161471425880007-0-87f62bc6-ae67-424f-"
	"a87b-f47c3ec33e70.avro\",\"summary\":{\"operation\":\"append\",\"added-records\":\"1\","
	"\"total-records\":\"4\"},\"schema-id\":0}],\"snapshot-log\":[{\"snapshot-id\":"
	"9018912672531978616,\"timestamp-ms\":1796012949826},{\"snapshot-id\":5085161471425880007,"
	"\"timestamp-ms\":1796012949845}],\"metadata-log\":[{\"metadata-file\":\"file:///tmp/ref/wh/"
	"bronze/orders/metadata/00000-ebacc3b3-8bd9-4d59-9c72-255ab57e1d1f.metadata.json\","
	"\"timestamp-ms\":1796012949784}],\"sort-orders\":[{\"order-id\":0,\"fields\":[]}],"
	"\"default-sort-order-id\":0,\"refs\":{\"main\":{\"snapshot-id\":5085161471425880007,"
	"\"type\":\"branch\"}},\"statistics\":[],\"partition-statistics\":[],\"format-version\":2,"
	"\"last-sequence-number\":2}";

static floe_iceberg_metadata *parse(floe_arena *a, const char *json)
{
	floe_iceberg_metadata *m = NULL;
	if (floe_iceberg_metadata_parse(&m, a, json, strlen(json)) < 0) {
		const floe_error *e = floe_error_last();
		fprintf(stderr, "    parse error: %s\n", e ? e->message : "?");
		return NULL;
	}
	return m;
}

FLOE_TEST(iceberg_metadata_reads_pyiceberg)
{
	floe_arena *a = floe_arena_new();
	floe_iceberg_metadata *m = parse(a, pyiceberg_json);
	FLOE_CHECK(m != NULL);
	if (m) {
		const floe_iceberg_snapshot *cur = floe_iceberg_metadata_current_snapshot(m);
		FLOE_CHECK(m->format_version == 2 && m->last_sequence_number == 2);
		FLOE_CHECK(cur && cur->snapshot_id == 5085161471425880007LL && cur->has_parent &&
			   cur->parent_id == 9018912672531978616LL);
		FLOE_CHECK_STR(floe_iceberg_snapshot_summary(cur, "total-records"), "4");
		FLOE_CHECK_STR(floe_iceberg_snapshot_summary(cur, "operation"), "append");
		FLOE_CHECK(m->n_refs == 1 && strcmp(m->refs[0].name, "main") == 0);
		FLOE_CHECK(m->n_snapshot_log == 2 && m->n_metadata_log == 1);
		FLOE_CHECK(floe_iceberg_metadata_current_schema(m)->fields[2].type->id == FLOE_ICEBERG_MAP);
	}
	floe_arena_free(a);
}

FLOE_TEST(iceberg_metadata_round_trip)
{
	floe_arena *a = floe_arena_new();
	floe_iceberg_metadata *m = parse(a, pyiceberg_json), *m2;
	floe_buf out = FLOE_BUF_INIT, again = FLOE_BUF_INIT;
	if (!m) {
		FLOE_CHECK(m != NULL);
		goto done;
	}
	floe_iceberg_metadata_set_property(m, a, "commit.retry.num-retries", "7");
	floe_iceberg_metadata_set_property(m, a, "owner", "floe");
	floe_iceberg_metadata_set_property(m, a, "owner", NULL);
	FLOE_CHECK(floe_iceberg_metadata_property_int(m, "commit.retry.num-retries", 4) == 7);
	FLOE_CHECK(floe_iceberg_metadata_property(m, "owner") == NULL);
	FLOE_CHECK(floe_iceberg_metadata_write(&out, m) == 0);
	m2 = parse(a, floe_buf_cstr(&out));
	FLOE_CHECK(m2 != NULL);
	if (m2) {
		FLOE_CHECK(floe_iceberg_metadata_write(&again, m2) == 0);
		FLOE_CHECK_STR(floe_buf_cstr(&again), floe_buf_cstr(&out));
		FLOE_CHECK(m2->n_properties == 1);
	}
	/* Never the deprecated v1 fields. */
	FLOE_CHECK(strstr(floe_buf_cstr(&out), "\"schema\":") == NULL);
	FLOE_CHECK(strstr(floe_buf_cstr(&out), "\"partition-spec\":") == NULL);
	FLOE_CHECK(strstr(floe_buf_cstr(&out), "\"manifests\"") == NULL);
done:
	floe_buf_free(&out);
	floe_buf_free(&again);
	floe_arena_free(a);
}

/* `from` replaced once by `to` in the PyIceberg document must fail with `needle`. */
static void refuses(const char *from, const char *to, const char *needle)
{
	floe_arena *a = floe_arena_new();
	floe_buf doc = FLOE_BUF_INIT;
	const char *at = strstr(pyiceberg_json, from);
	floe_iceberg_metadata *m = NULL;
	FLOE_CHECK(at != NULL);
	if (!at)
		goto done;
	floe_buf_put(&doc, pyiceberg_json, (size_t)(at - pyiceberg_json));
	floe_buf_puts(&doc, to);
	floe_buf_puts(&doc, at + strlen(from));
	floe_error_clear();
	FLOE_CHECK(floe_iceberg_metadata_parse(&m, a, doc.ptr, doc.len) < 0 && m == NULL);
	const floe_error *e = floe_error_last();
	FLOE_CHECK(e && strstr(e->message, needle));
	if (e && !strstr(e->message, needle))
		fprintf(stderr, "    message: %s\n", e->message);
done:
	floe_error_clear();
	floe_buf_free(&doc);
	floe_arena_free(a);
}

FLOE_TEST(iceberg_metadata_refuses)
{
	refuses("\"format-version\":2", "\"format-version\":3", "format-version 3");
	refuses("\"last-sequence-number\":2", "\"last-sequence-number\":1", "past last-sequence-number");
	refuses("\"current-schema-id\":0", "\"current-schema-id\":4", "current-schema-id 4");
	refuses("\"default-spec-id\":0", "\"default-spec-id\":2", "default-spec-id 2");
	refuses("\"location\":\"file:///tmp/ref/wh/bronze/orders\",", "", "\"location\" is missing");
	refuses("\"snapshot-id\":5085161471425880007,\"type\"", "\"snapshot-id\":9018912672531978616,\"type\"",
		"differs from current-snapshot-id");
	refuses("\"snapshot-id\":5085161471425880007,\"type\":\"branch\"",
		"\"snapshot-id\":5085161471425880007,\"type\":\"bough\"", "\"bough\"");
	refuses("\"operation\":\"append\",\"added-records\"", "\"added-records\"", "no \"operation\"");
	refuses("\"last-column-id\":5", "\"last-column-id\":4", "past last-column-id");
	refuses("{\"location\"", "[{\"location\"", "not valid JSON");
	refuses("\"timestamp-ms\":1796012949845,\"manifest-list\"", "\"manifest-list\"",
		"\"timestamp-ms\" is missing in snapshot 5085161471425880007");
}

FLOE_TEST(iceberg_metadata_no_snapshot)
{
	floe_arena *a = floe_arena_new();
	const char *json = "{\"format-version\":2,\"table-uuid\":\"u\",\"location\":\"file:///t\","
			   "\"last-sequence-number\":0,\"last-updated-ms\":1,\"last-column-id\":1,"
			   "\"current-schema-id\":0,\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,"
			   "\"fields\":[{\"id\":1,\"name\":\"a\",\"required\":false,\"type\":\"int\"}]}],"
			   "\"partition-specs\":[{\"spec-id\":0,\"fields\":[]}],\"default-spec-id\":0,"
			   "\"last-partition-id\":999,\"sort-orders\":[{\"order-id\":0,\"fields\":[]}],"
			   "\"default-sort-order-id\":0,\"current-snapshot-id\":-1}";
	floe_iceberg_metadata *m = parse(a, json);
	FLOE_CHECK(m && !m->has_current_snapshot && !floe_iceberg_metadata_current_snapshot(m));
	FLOE_CHECK(m && m->n_refs == 0);
	floe_arena_free(a);
}
