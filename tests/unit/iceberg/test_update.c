/*
 * test_update.c — the REST catalog's vocabulary in src/iceberg (update.h): every
 * requirement holding and failing, every update applied to the model, unknown ones
 * refused, commits through the catalog's compare-and-swap (a stale requirement loses,
 * nothing written stays), a staged create, purge, and the catalog's rename and
 * namespace operations.
 */
#include "harness.h"

#include "base/arena.h"
#include "base/error.h"
#include "base/fs.h"
#include "iceberg/catalog.h"
#include "iceberg/table.h"
#include "iceberg/update.h"

#include <stdlib.h>
#include <unistd.h>

static const char *base_json =
	"{\"format-version\":2,\"table-uuid\":\"9c12d441-03fe-4693-9a96-a0705ddf69c1\","
	"\"location\":\"file:///tmp/t\",\"last-sequence-number\":1,\"last-updated-ms\":1,"
	"\"last-column-id\":2,\"current-schema-id\":0,\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,"
	"\"fields\":[{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
	"{\"id\":2,\"name\":\"v\",\"required\":false,\"type\":\"int\"}]}],"
	"\"default-spec-id\":0,\"partition-specs\":[{\"spec-id\":0,\"fields\":[]}],"
	"\"last-partition-id\":999,\"default-sort-order-id\":0,"
	"\"sort-orders\":[{\"order-id\":0,\"fields\":[]}],\"properties\":{\"a\":\"1\"},"
	"\"current-snapshot-id\":7,\"refs\":{\"main\":{\"snapshot-id\":7,\"type\":\"branch\"}},"
	"\"snapshots\":[{\"snapshot-id\":7,\"sequence-number\":1,\"timestamp-ms\":1,"
	"\"manifest-list\":\"file:///tmp/t/metadata/snap-7.avro\",\"summary\":{\"operation\":\"append\"},"
	"\"schema-id\":0}],\"snapshot-log\":[{\"snapshot-id\":7,\"timestamp-ms\":1}],\"metadata-log\":[]}";

static floe_iceberg_metadata *base(floe_arena *a)
{
	floe_iceberg_metadata *m = NULL;
	if (floe_iceberg_metadata_parse(&m, a, base_json, strlen(base_json)) < 0)
		floe_error_print(stderr);
	return m;
}

/* requirements (JSON text) against the base: 0 holds, else the error class. */
static int check(floe_arena *a, const char *json)
{
	floe_json_doc *doc = NULL;
	int rc = -100;
	if (floe_json_parse(&doc, json, strlen(json), NULL) == 0)
		rc = floe_iceberg_requirements_check(base(a), floe_json_root(doc)) == 0
			     ? 0 : (int)floe_error_last()->cls;
	floe_json_free(doc);
	floe_error_clear();
	return rc;
}

FLOE_TEST(iceberg_update_each_requirement_holds_or_fails_with_conflict)
{
	floe_arena *a = floe_arena_new();
	FLOE_CHECK(check(a, "[{\"type\":\"assert-table-uuid\",\"uuid\":\"9c12d441-03fe-4693-9a96-a0705ddf69c1\"}]") == 0);
	FLOE_CHECK(check(a, "[{\"type\":\"assert-table-uuid\",\"uuid\":\"x\"}]") == FLOE_ERR_CONFLICT);
	FLOE_CHECK(check(a, "[{\"type\":\"assert-ref-snapshot-id\",\"ref\":\"main\",\"snapshot-id\":7}]") == 0);
	FLOE_CHECK(check(a, "[{\"type\":\"assert-ref-snapshot-id\",\"ref\":\"main\",\"snapshot-id\":8}]") == FLOE_ERR_CONFLICT);
	FLOE_CHECK(check(a, "[{\"type\":\"assert-ref-snapshot-id\",\"ref\":\"main\",\"snapshot-id\":null}]") == FLOE_ERR_CONFLICT);
	FLOE_CHECK(check(a, "[{\"type\":\"assert-ref-snapshot-id\",\"ref\":\"dev\",\"snapshot-id\":null}]") == 0);
	FLOE_CHECK(check(a, "[{\"type\":\"assert-ref-snapshot-id\",\"ref\":\"dev\",\"snapshot-id\":7}]") == FLOE_ERR_CONFLICT);
	FLOE_CHECK(check(a, "[{\"type\":\"assert-last-assigned-field-id\",\"last-assigned-field-id\":2}]") == 0);
	FLOE_CHECK(check(a, "[{\"type\":\"assert-last-assigned-field-id\",\"last-assigned-field-id\":3}]") == FLOE_ERR_CONFLICT);
	FLOE_CHECK(check(a, "[{\"type\":\"assert-current-schema-id\",\"current-schema-id\":0}]") == 0);
	FLOE_CHECK(check(a, "[{\"type\":\"assert-current-schema-id\",\"current-schema-id\":1}]") == FLOE_ERR_CONFLICT);
	FLOE_CHECK(check(a, "[{\"type\":\"assert-last-assigned-partition-id\",\"last-assigned-partition-id\":999}]") == 0);
	FLOE_CHECK(check(a, "[{\"type\":\"assert-last-assigned-partition-id\",\"last-assigned-partition-id\":1000}]") == FLOE_ERR_CONFLICT);
	FLOE_CHECK(check(a, "[{\"type\":\"assert-default-spec-id\",\"default-spec-id\":0}]") == 0);
	FLOE_CHECK(check(a, "[{\"type\":\"assert-default-spec-id\",\"default-spec-id\":1}]") == FLOE_ERR_CONFLICT);
	FLOE_CHECK(check(a, "[{\"type\":\"assert-default-sort-order-id\",\"default-sort-order-id\":0}]") == 0);
	FLOE_CHECK(check(a, "[{\"type\":\"assert-default-sort-order-id\",\"default-sort-order-id\":1}]") == FLOE_ERR_CONFLICT);
	FLOE_CHECK(check(a, "[{\"type\":\"assert-create\"}]") == FLOE_ERR_CONFLICT);
	FLOE_CHECK(check(a, "[{\"type\":\"assert-view-uuid\",\"uuid\":\"x\"}]") == FLOE_ERR_USAGE);
	FLOE_CHECK(check(a, "[{\"type\":\"assert-current-schema-id\"}]") == FLOE_ERR_USAGE);
	FLOE_CHECK(check(a, "[{\"no-type\":1}]") == FLOE_ERR_USAGE);
	FLOE_CHECK(check(a, "{}") == FLOE_ERR_USAGE);
	floe_arena_free(a);
}

/* Apply updates (JSON text) to a copy of the base; NULL with the error class in *cls on failure. */
static floe_iceberg_metadata *apply(floe_arena *a, const char *json, int *cls)
{
	floe_json_doc *doc = NULL;
	floe_iceberg_metadata *m = floe_iceberg_metadata_copy(a, base(a));
	*cls = -1;
	if (floe_json_parse(&doc, json, strlen(json), NULL) < 0 ||
	    floe_iceberg_updates_apply(m, a, floe_json_root(doc)) < 0) {
		*cls = floe_error_last() ? (int)floe_error_last()->cls : -100;
		m = NULL;
	}
	floe_json_free(doc);
	floe_error_clear();
	return m;
}

FLOE_TEST(iceberg_update_schema_spec_sort_order_and_properties)
{
	floe_arena *a = floe_arena_new();
	int cls;
	floe_iceberg_metadata *m = apply(a,
		"[{\"action\":\"add-schema\",\"schema\":{\"type\":\"struct\",\"schema-id\":5,\"fields\":["
		"{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
		"{\"id\":3,\"name\":\"w\",\"required\":false,\"type\":\"string\"}]},\"last-column-id\":3},"
		"{\"action\":\"set-current-schema\",\"schema-id\":-1},"
		"{\"action\":\"add-spec\",\"spec\":{\"fields\":[{\"source-id\":1,\"transform\":\"bucket[4]\",\"name\":\"b\"}]}},"
		"{\"action\":\"set-default-spec\",\"spec-id\":-1},"
		"{\"action\":\"add-sort-order\",\"sort-order\":{\"order-id\":9,\"fields\":[{\"transform\":\"identity\","
		"\"source-id\":1,\"direction\":\"desc\",\"null-order\":\"nulls-last\"}]}},"
		"{\"action\":\"set-default-sort-order\",\"sort-order-id\":-1},"
		"{\"action\":\"set-properties\",\"updates\":{\"b\":\"2\"}},"
		"{\"action\":\"remove-properties\",\"removals\":[\"a\",\"absent\"]},"
		"{\"action\":\"set-location\",\"location\":\"file:///tmp/u\"},"
		"{\"action\":\"upgrade-format-version\",\"format-version\":2}]", &cls);
	FLOE_CHECK(m != NULL);
	if (m) {
		FLOE_CHECK(m->n_schemas == 2 && m->current_schema_id == 1 && m->last_column_id == 3);
		FLOE_CHECK(m->n_specs == 2 && m->default_spec_id == 1 && m->last_partition_id == 1000);
		FLOE_CHECK(m->n_sort_orders == 2 && m->default_sort_order_id == 1);
		FLOE_CHECK_STR(floe_iceberg_metadata_property(m, "b"), "2");
		FLOE_CHECK(floe_iceberg_metadata_property(m, "a") == NULL);
		FLOE_CHECK_STR(m->location, "file:///tmp/u");
	}
	/* an equal schema is not added twice: its id is reused */
	m = apply(a, "[{\"action\":\"add-schema\",\"schema\":{\"type\":\"struct\",\"schema-id\":3,\"fields\":["
		     "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
		     "{\"id\":2,\"name\":\"v\",\"required\":false,\"type\":\"int\"}]}},"
		     "{\"action\":\"set-current-schema\",\"schema-id\":-1}]", &cls);
	FLOE_CHECK(m && m->n_schemas == 1 && m->current_schema_id == 0);
	FLOE_CHECK(!apply(a, "[{\"action\":\"set-current-schema\",\"schema-id\":-1}]", &cls) && cls == FLOE_ERR_USAGE);
	FLOE_CHECK(!apply(a, "[{\"action\":\"set-current-schema\",\"schema-id\":4}]", &cls) && cls == FLOE_ERR_USAGE);
	FLOE_CHECK(!apply(a, "[{\"action\":\"upgrade-format-version\",\"format-version\":3}]", &cls) && cls == FLOE_ERR_USAGE);
	FLOE_CHECK(!apply(a, "[{\"action\":\"upgrade-format-version\",\"format-version\":1}]", &cls) && cls == FLOE_ERR_USAGE);
	FLOE_CHECK(!apply(a, "[{\"action\":\"assign-uuid\",\"uuid\":\"other\"}]", &cls) && cls == FLOE_ERR_USAGE);
	FLOE_CHECK(!apply(a, "[{\"action\":\"set-statistics\"}]", &cls) && cls == FLOE_ERR_USAGE);
	FLOE_CHECK(!apply(a, "[{\"action\":\"set-properties\",\"updates\":{\"k\":1}}]", &cls) && cls == FLOE_ERR_USAGE);
	FLOE_CHECK(!apply(a, "[{\"action\":\"add-schema\",\"schema\":{\"type\":\"struct\",\"fields\":["
			     "{\"id\":1,\"name\":\"x\",\"required\":true,\"type\":\"nope\"}]}}]", &cls) &&
		   cls == FLOE_ERR_USAGE);
	FLOE_CHECK(!apply(a, "[1]", &cls) && cls == FLOE_ERR_USAGE);
	floe_arena_free(a);
}

FLOE_TEST(iceberg_update_snapshots_and_refs)
{
	floe_arena *a = floe_arena_new();
	int cls;
	floe_iceberg_metadata *m = apply(a,
		"[{\"action\":\"add-snapshot\",\"snapshot\":{\"snapshot-id\":8,\"parent-snapshot-id\":7,"
		"\"sequence-number\":2,\"timestamp-ms\":5,\"manifest-list\":\"file:///tmp/t/metadata/snap-8.avro\","
		"\"summary\":{\"operation\":\"append\"},\"schema-id\":0}},"
		"{\"action\":\"set-snapshot-ref\",\"ref-name\":\"main\",\"snapshot-id\":8,\"type\":\"branch\"},"
		"{\"action\":\"set-snapshot-ref\",\"ref-name\":\"v1\",\"snapshot-id\":7,\"type\":\"tag\"}]", &cls);
	FLOE_CHECK(m && m->current_snapshot_id == 8 && m->last_sequence_number == 2 && m->n_refs == 2);
	FLOE_CHECK(m && m->n_snapshot_log == 2 && m->snapshot_log[1].snapshot_id == 8);
	m = apply(a, "[{\"action\":\"set-snapshot-ref\",\"ref-name\":\"v1\",\"snapshot-id\":7,\"type\":\"tag\"},"
		     "{\"action\":\"remove-snapshot-ref\",\"ref-name\":\"main\"},"
		     "{\"action\":\"remove-snapshots\",\"snapshot-ids\":[7]}]", &cls);
	FLOE_CHECK(m && m->n_snapshots == 0 && m->n_refs == 0 && !m->has_current_snapshot && m->n_snapshot_log == 0);
	/* a stale sequence number means another snapshot landed first: a conflict */
	FLOE_CHECK(!apply(a, "[{\"action\":\"add-snapshot\",\"snapshot\":{\"snapshot-id\":9,\"sequence-number\":1,"
			     "\"timestamp-ms\":5,\"manifest-list\":\"m\",\"summary\":{\"operation\":\"append\"}}}]", &cls) &&
		   cls == FLOE_ERR_CONFLICT);
	FLOE_CHECK(!apply(a, "[{\"action\":\"set-snapshot-ref\",\"ref-name\":\"main\",\"snapshot-id\":99,\"type\":\"branch\"}]", &cls) &&
		   cls == FLOE_ERR_USAGE);
	FLOE_CHECK(!apply(a, "[{\"action\":\"add-snapshot\",\"snapshot\":{\"snapshot-id\":7,\"sequence-number\":3,"
			     "\"timestamp-ms\":5,\"manifest-list\":\"m\",\"summary\":{\"operation\":\"append\"}}}]", &cls) &&
		   cls == FLOE_ERR_USAGE);
	floe_arena_free(a);
}

typedef struct lake {
	char dir[64];
	floe_arena *a;
	floe_iceberg_catalog *cat;
} lake;

static bool lake_open(lake *l)
{
	floe_iceberg_catalog_opts opts = FLOE_ICEBERG_CATALOG_OPTS_INIT;
	memset(l, 0, sizeof(*l));
	snprintf(l->dir, sizeof(l->dir), "/tmp/floe-update-XXXXXX");
	if (!mkdtemp(l->dir))
		return false;
	l->a = floe_arena_new();
	opts.create = true;
	return floe_iceberg_catalog_open_sql(&l->cat, floe_arena_printf(l->a, "%s/catalog.db", l->dir), &opts) == 0;
}

static void lake_close(lake *l)
{
	floe_iceberg_catalog_free(l->cat);
	floe_fs_remove_tree(l->dir);
	floe_arena_free(l->a);
	floe_error_clear();
}

static const floe_json_value *json(floe_json_doc **doc, const char *text)
{
	*doc = NULL;
	return floe_json_parse(doc, text, strlen(text), NULL) == 0 ? floe_json_root(*doc) : NULL;
}

static floe_iceberg_schema *one_column(floe_arena *a)
{
	floe_iceberg_schema *s = floe_arena_alloc(a, sizeof(*s));
	s->n_fields = 1;
	s->fields = floe_arena_alloc(a, sizeof(*s->fields));
	s->fields[0] = (floe_iceberg_field){ 1, "id", true, floe_iceberg_type_new(a, FLOE_ICEBERG_LONG), NULL };
	return s;
}

FLOE_TEST(iceberg_update_commit_rechecks_requirements_on_the_fresh_metadata)
{
	lake l;
	floe_iceberg_table *t = NULL, *stale = NULL;
	floe_json_doc *r1 = NULL, *u1 = NULL, *r2 = NULL;
	FLOE_CHECK(lake_open(&l));
	FLOE_CHECK(floe_iceberg_table_create(&t, l.cat, "ns", "t", one_column(l.a), NULL) == 0);
	FLOE_CHECK(floe_iceberg_table_load(&stale, l.cat, "ns", "t") == 0);
	const char *schema_req = "[{\"type\":\"assert-current-schema-id\",\"current-schema-id\":0}]";
	const floe_json_value *upd = json(&u1, "[{\"action\":\"add-schema\",\"schema\":{\"type\":\"struct\",\"fields\":["
					       "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
					       "{\"id\":2,\"name\":\"n\",\"required\":false,\"type\":\"string\"}]}},"
					       "{\"action\":\"set-current-schema\",\"schema-id\":-1}]");
	if (t && stale) {
		FLOE_CHECK(floe_iceberg_table_commit_updates(t, json(&r1, schema_req), upd) == 0);
		FLOE_CHECK(floe_iceberg_table_metadata(t)->current_schema_id == 1);
		const char *landed = floe_arena_strdup(l.a, floe_iceberg_table_metadata_location(t));
		/* the stale handle's swap loses, its retry sees schema 1 and the requirement fails */
		FLOE_CHECK(floe_iceberg_table_commit_updates(stale, json(&r2, schema_req), upd) < 0);
		FLOE_CHECK(floe_error_last() && floe_error_last()->cls == FLOE_ERR_CONFLICT);
		floe_error_clear();
		FLOE_CHECK(floe_iceberg_table_refresh(t) == 0);
		FLOE_CHECK_STR(floe_iceberg_table_metadata_location(t), landed);
	}
	floe_iceberg_table_free(t);
	floe_iceberg_table_free(stale);
	floe_json_free(r1);
	floe_json_free(r2);
	floe_json_free(u1);
	lake_close(&l);
}

static int count_file(void *ctx, const char *uri, int64_t size, int64_t mtime_ms)
{
	(*(size_t *)ctx)++;
	return 0;
}

FLOE_TEST(iceberg_update_staged_create_purge_rename_and_namespaces)
{
	lake l;
	floe_iceberg_table *t = NULL;
	floe_json_doc *r = NULL, *u = NULL;
	floe_buf loc = FLOE_BUF_INIT;
	FLOE_CHECK(lake_open(&l));
	FLOE_CHECK(floe_iceberg_catalog_create_namespace(l.cat, "ns", NULL, 0) == 0);
	const floe_json_value *req = json(&r, "[{\"type\":\"assert-create\"}]");
	const floe_json_value *upd = json(&u, "[{\"action\":\"assign-uuid\",\"uuid\":\"4bd4bd7c-1d3e-4d59-9a38-2e6cf7bbf0a1\"},"
					      "{\"action\":\"add-schema\",\"schema\":{\"type\":\"struct\",\"fields\":["
					      "{\"id\":1,\"name\":\"x\",\"required\":false,\"type\":\"int\"}]}},"
					      "{\"action\":\"set-current-schema\",\"schema-id\":-1},"
					      "{\"action\":\"add-spec\",\"spec\":{\"spec-id\":0,\"fields\":[]}},"
					      "{\"action\":\"set-default-spec\",\"spec-id\":-1},"
					      "{\"action\":\"add-sort-order\",\"sort-order\":{\"order-id\":0,\"fields\":[]}},"
					      "{\"action\":\"set-default-sort-order\",\"sort-order-id\":-1}]");
	FLOE_CHECK(floe_iceberg_table_create_from_updates(&t, l.cat, "ns", "staged", req, upd) == 0);
	FLOE_CHECK(t && strcmp(floe_iceberg_table_metadata(t)->table_uuid, "4bd4bd7c-1d3e-4d59-9a38-2e6cf7bbf0a1") == 0);
	floe_iceberg_table_free(t);
	t = NULL;
	FLOE_CHECK(floe_iceberg_table_create_from_updates(&t, l.cat, "ns", "staged", req, upd) < 0 &&
		   floe_error_last()->cls == FLOE_ERR_EXISTS);
	floe_error_clear();
	/* rename: the entry moves; a taken name is refused */
	FLOE_CHECK(floe_iceberg_catalog_rename(l.cat, "ns", "staged", "ns", "moved") == 0);
	FLOE_CHECK(floe_iceberg_catalog_load(l.cat, &loc, "ns", "staged") == 0);
	FLOE_CHECK(floe_iceberg_catalog_load(l.cat, &loc, "ns", "moved") == 1);
	FLOE_CHECK(floe_iceberg_table_create(&t, l.cat, "ns", "other", one_column(l.a), NULL) == 0);
	FLOE_CHECK(floe_iceberg_catalog_rename(l.cat, "ns", "moved", "ns", "other") < 0 &&
		   floe_error_last()->cls == FLOE_ERR_EXISTS);
	floe_error_clear();
	/* namespace properties; drop refused while tables remain */
	floe_iceberg_kv set[] = { { "owner", "me" } };
	const char *remove[] = { "absent" };
	floe_iceberg_kv *props = NULL;
	size_t n = 0;
	FLOE_CHECK(floe_iceberg_catalog_update_namespace(l.cat, "ns", set, 1, remove, 1) == 0);
	FLOE_CHECK(floe_iceberg_catalog_namespace_properties(l.cat, "ns", l.a, &props, &n) == 0 && n == 1 &&
		   strcmp(props[0].key, "owner") == 0);
	FLOE_CHECK(floe_iceberg_catalog_drop_namespace(l.cat, "ns") < 0 && floe_error_last()->cls == FLOE_ERR_CONFLICT);
	floe_error_clear();
	/* locations: inside the warehouse only; purge refuses a table placed outside */
	const char *wh = floe_iceberg_catalog_warehouse(l.cat);
	FLOE_CHECK(floe_iceberg_catalog_holds(l.cat, floe_arena_printf(l.a, "%s/ns/t", wh)));
	FLOE_CHECK(!floe_iceberg_catalog_holds(l.cat, wh));
	FLOE_CHECK(!floe_iceberg_catalog_holds(l.cat, floe_arena_printf(l.a, "%s/../x", wh)));
	FLOE_CHECK(!floe_iceberg_catalog_holds(l.cat, floe_arena_printf(l.a, "%s/ns/./t", wh)));
	FLOE_CHECK(!floe_iceberg_catalog_holds(l.cat, floe_arena_printf(l.a, "%sx/t", wh)));
	FLOE_CHECK(!floe_iceberg_catalog_holds(l.cat, "file:///etc"));
	floe_iceberg_table *moved = NULL;
	floe_json_doc *out = NULL;
	FLOE_CHECK(floe_iceberg_table_load(&moved, l.cat, "ns", "other") == 0);
	FLOE_CHECK(moved && floe_iceberg_table_commit_updates(moved, NULL,
		json(&out, "[{\"action\":\"set-location\",\"location\":\"file:///tmp\"}]")) < 0 &&
		   floe_error_last()->cls == FLOE_ERR_USAGE);
	floe_error_clear();
	floe_iceberg_table_free(moved);
	floe_json_free(out);
	/* purge: unregistered and every file under the table's location gone */
	const char *dir = floe_arena_printf(l.a, "%s/ns/other/metadata", l.dir);
	size_t before = 0;
	FLOE_CHECK(floe_fs_exists(dir));
	FLOE_CHECK(floe_iceberg_storage_list(floe_iceberg_catalog_storage(l.cat),
					     floe_arena_printf(l.a, "file://%s/ns/other/", l.dir), count_file, &before) == 0);
	FLOE_CHECK(before >= 1);
	FLOE_CHECK(floe_iceberg_table_purge(l.cat, "ns", "other") == 0);
	FLOE_CHECK(floe_iceberg_catalog_load(l.cat, &loc, "ns", "other") == 0);
	size_t left = 0;
	FLOE_CHECK(floe_iceberg_storage_list(floe_iceberg_catalog_storage(l.cat),
					     floe_arena_printf(l.a, "file://%s/ns/other/", l.dir), count_file, &left) == 0);
	FLOE_CHECK(left == 0);
	FLOE_CHECK(floe_iceberg_catalog_drop(l.cat, "ns", "moved") == 0);
	FLOE_CHECK(floe_iceberg_catalog_drop_namespace(l.cat, "ns") == 0);
	bool exists = true;
	FLOE_CHECK(floe_iceberg_catalog_namespace_exists(l.cat, "ns", &exists) == 0 && !exists);
	floe_iceberg_table_free(t);
	floe_json_free(r);
	floe_json_free(u);
	floe_buf_free(&loc);
	lake_close(&l);
}
