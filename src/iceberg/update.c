/*
 * update.c — the REST catalog's requirements and metadata updates (update.h): checked
 * and applied to the metadata model, committed through the compare-and-swap loop.
 * Ids follow Java's TableMetadata builder: an added schema, spec or sort order equal to
 * an existing one reuses its id, else gets the next free one; -1 in set-current-schema,
 * set-default-spec and set-default-sort-order means the one added last in this change.
 */
#include "iceberg/update.h"
#include "iceberg/table_int.h"

#include "base/error.h"

#include <inttypes.h>
#include <string.h>

typedef struct applier {
	floe_iceberg_metadata *m;
	floe_arena *arena;
	const char *action;
	int32_t last_schema, last_spec, last_order; /* added in this change; INT32_MIN: none */
} applier;

static int malformed(const char *kind, const char *action, const char *why)
{
	floe_error_set(FLOE_ERR_USAGE, "%s \"%s\" is malformed: %s", kind, action, why);
	return -1;
}

/* An integer member (null counts as absent: *present false). */
static int member_i64(int64_t *out, bool *present, const floe_json_value *obj, const char *key)
{
	const floe_json_value *v = floe_json_get(obj, key);
	*present = v && floe_json_type_of(v) != FLOE_JSON_NULL;
	if (!*present)
		return 0;
	return floe_json_type_of(v) == FLOE_JSON_NUMBER ? floe_json_int64(out, v) : -1;
}

static const char *member_str(floe_arena *a, const floe_json_value *obj, const char *key)
{
	const floe_json_value *v = floe_json_get(obj, key);
	if (!v || floe_json_type_of(v) != FLOE_JSON_STRING)
		return NULL;
	floe_slice s = floe_json_string(v);
	return memchr(s.ptr, '\0', s.len) ? NULL : floe_arena_strndup(a, s.ptr, s.len);
}

/* ---- requirements ---- */

static const floe_iceberg_ref *find_ref(const floe_iceberg_metadata *m, const char *name)
{
	for (size_t i = 0; m && i < m->n_refs; i++)
		if (strcmp(m->refs[i].name, name) == 0)
			return &m->refs[i];
	return NULL;
}

static int failed(const char *type, const char *fmt, int64_t want, int64_t have)
{
	floe_error_set(FLOE_ERR_CONFLICT, "requirement failed: %s: expected %" PRId64 ", found %" PRId64,
		       type, want, have);
	floe_error_detail("%s", fmt);
	floe_error_hint("Another writer changed the table: load it again and retry the change.");
	return -1;
}

/* The integer requirements: member name and the base's value. */
static int check_int(const char *type, const floe_json_value *r, const floe_iceberg_metadata *b)
{
	static const struct {
		const char *type, *key, *what;
	} kinds[] = {
		{ "assert-last-assigned-field-id", "last-assigned-field-id", "The last assigned column id changed." },
		{ "assert-current-schema-id", "current-schema-id", "The current schema changed." },
		{ "assert-last-assigned-partition-id", "last-assigned-partition-id", "The last assigned partition field id changed." },
		{ "assert-default-spec-id", "default-spec-id", "The default partition spec changed." },
		{ "assert-default-sort-order-id", "default-sort-order-id", "The default sort order changed." },
	};
	int64_t have[] = { b->last_column_id, b->current_schema_id, b->last_partition_id,
			   b->default_spec_id, b->default_sort_order_id };
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (strcmp(kinds[i].type, type) != 0)
			continue;
		int64_t want = 0;
		bool present = false;
		if (member_i64(&want, &present, r, kinds[i].key) < 0 || !present)
			return malformed("requirement", type, "its id is missing or not an integer");
		return want == have[i] ? 0 : failed(type, kinds[i].what, want, have[i]);
	}
	floe_error_set(FLOE_ERR_USAGE, "unknown requirement \"%s\"", type);
	floe_error_hint("The Iceberg REST specification lists assert-create, assert-table-uuid, "
			"assert-ref-snapshot-id and the assert-…-id requirements.");
	return -1;
}

static int check_ref(const floe_json_value *r, const floe_iceberg_metadata *b, floe_arena *a)
{
	const char *name = member_str(a, r, "ref");
	int64_t want = 0;
	bool present = false;
	if (!name || member_i64(&want, &present, r, "snapshot-id") < 0)
		return malformed("requirement", "assert-ref-snapshot-id", "it needs \"ref\" and \"snapshot-id\"");
	const floe_iceberg_ref *ref = find_ref(b, name);
	if (!present && ref) {
		floe_error_set(FLOE_ERR_CONFLICT, "requirement failed: branch or tag \"%s\" was created "
			       "concurrently (it is at snapshot %" PRId64 ")", name, ref->snapshot_id);
		floe_error_hint("Load the table again and retry the change.");
		return -1;
	}
	if (present && !ref) {
		floe_error_set(FLOE_ERR_CONFLICT, "requirement failed: branch or tag \"%s\" is missing, "
			       "expected snapshot %" PRId64, name, want);
		return -1;
	}
	if (present && ref->snapshot_id != want)
		return failed("assert-ref-snapshot-id", "Another snapshot was committed to the ref meanwhile.",
			      want, ref->snapshot_id);
	return 0;
}

static int check_one(const floe_json_value *r, const floe_iceberg_metadata *b, floe_arena *a)
{
	const char *type = member_str(a, r, "type");
	if (!type)
		return malformed("requirement", "?", "it has no \"type\"");
	if (strcmp(type, "assert-create") == 0) {
		if (!b)
			return 0;
		floe_error_set(FLOE_ERR_CONFLICT, "requirement failed: the table already exists");
		return -1;
	}
	if (!b) {
		floe_error_set(FLOE_ERR_CONFLICT, "requirement failed: %s on a table that does not exist", type);
		return -1;
	}
	if (strcmp(type, "assert-table-uuid") == 0) {
		const char *uuid = member_str(a, r, "uuid");
		if (!uuid)
			return malformed("requirement", type, "it has no \"uuid\"");
		if (strcmp(uuid, b->table_uuid) == 0)
			return 0;
		floe_error_set(FLOE_ERR_CONFLICT, "requirement failed: table uuid is \"%s\", not \"%s\"",
			       b->table_uuid, uuid);
		floe_error_detail("The table was dropped and created again under the same name.");
		return -1;
	}
	if (strcmp(type, "assert-ref-snapshot-id") == 0)
		return check_ref(r, b, a);
	return check_int(type, r, b);
}

int floe_iceberg_requirements_check(const floe_iceberg_metadata *base,
				    const floe_json_value *requirements)
{
	floe_arena *a = floe_arena_new();
	int error = 0;
	if (requirements && floe_json_type_of(requirements) != FLOE_JSON_ARRAY)
		error = malformed("request", "requirements", "it is not an array");
	for (size_t i = 0; error == 0 && i < floe_json_count(requirements); i++) {
		const floe_json_value *r = floe_json_value_at(requirements, i);
		error = floe_json_type_of(r) == FLOE_JSON_OBJECT ? check_one(r, base, a)
			: malformed("requirement", "?", "it is not an object");
	}
	floe_arena_free(a);
	return error;
}

/* ---- updates ---- */

/* Grow an exactly-sized metadata array by one zeroed item; evaluates to the new item. */
#define APPEND(arena, items, n)                                                          \
	((items) = grow_array((arena), (items), (n), sizeof(*(items))), &(items)[(n)++])

static void *grow_array(floe_arena *arena, void *items, size_t n, size_t size)
{
	char *grown = floe_arena_alloc(arena, (n + 2) * size);
	if (n)
		memcpy(grown, items, n * size);
	memset(grown + n * size, 0, 2 * size);
	return grown;
}

static int bad_update(const applier *ap, const char *why)
{
	return malformed("update", ap->action, why);
}

static int member_id(const applier *ap, int32_t *out, const floe_json_value *u, const char *key)
{
	int64_t v = 0;
	bool present = false;
	if (member_i64(&v, &present, u, key) < 0 || !present || v < INT32_MIN || v > INT32_MAX)
		return malformed("update", ap->action,
				 floe_arena_printf(ap->arena, "\"%s\" is missing or not an integer", key));
	*out = (int32_t)v;
	return 0;
}

/* A piece read by a metadata reader: its FLOE_ERR_IO becomes the client's mistake. */
static int as_usage(const applier *ap, int rc)
{
	if (rc == 0)
		return 0;
	const floe_error *e = floe_error_last();
	char *why = floe_arena_strdup(ap->arena, e && e->message ? e->message : "invalid");
	return bad_update(ap, why);
}

static int add_schema(applier *ap, const floe_json_value *u)
{
	floe_iceberg_metadata *m = ap->m;
	floe_iceberg_schema *s = NULL;
	int32_t next_id = 0;
	if (as_usage(ap, floe_iceberg_schema_from_json(&s, ap->arena, floe_json_get(u, "schema"))) < 0 ||
	    as_usage(ap, floe_iceberg_schema_validate(s)) < 0)
		return -1;
	for (size_t i = 0; i < m->n_schemas; i++) {
		if (floe_iceberg_schema_equal(m->schemas[i], s)) {
			ap->last_schema = m->schemas[i]->schema_id;
			return 0;
		}
		if (m->schemas[i]->schema_id >= next_id)
			next_id = m->schemas[i]->schema_id + 1;
	}
	s->schema_id = next_id;
	*APPEND(ap->arena, m->schemas, m->n_schemas) = s;
	int32_t max = floe_iceberg_schema_max_id(s), given = 0;
	if (floe_json_get(u, "last-column-id") && member_id(ap, &given, u, "last-column-id") == 0 && given > max)
		max = given;
	floe_error_clear();
	if (max > m->last_column_id)
		m->last_column_id = max;
	ap->last_schema = s->schema_id;
	return 0;
}

static bool spec_equal(const floe_iceberg_partition_spec *a, const floe_iceberg_partition_spec *b)
{
	if (a->n_fields != b->n_fields)
		return false;
	for (size_t i = 0; i < a->n_fields; i++)
		if (a->fields[i].source_id != b->fields[i].source_id ||
		    a->fields[i].field_id != b->fields[i].field_id ||
		    strcmp(a->fields[i].transform, b->fields[i].transform) != 0 ||
		    strcmp(a->fields[i].name, b->fields[i].name) != 0)
			return false;
	return true;
}

static int add_spec(applier *ap, const floe_json_value *u)
{
	floe_iceberg_metadata *m = ap->m;
	floe_iceberg_partition_spec spec;
	const floe_json_value *js = floe_json_get(u, "spec");
	int32_t next_id = 0;
	if (!js || floe_json_type_of(js) != FLOE_JSON_OBJECT)
		return bad_update(ap, "\"spec\" is missing");
	if (as_usage(ap, floe_iceberg_spec_from_json(&spec, ap->arena, js)) < 0)
		return -1;
	for (size_t i = 0; i < m->n_specs; i++) {
		if (spec_equal(&m->specs[i], &spec)) {
			ap->last_spec = m->specs[i].spec_id;
			return 0;
		}
		if (m->specs[i].spec_id >= next_id)
			next_id = m->specs[i].spec_id + 1;
	}
	spec.spec_id = next_id;
	for (size_t i = 0; i < spec.n_fields; i++)
		if (spec.fields[i].field_id > m->last_partition_id)
			m->last_partition_id = spec.fields[i].field_id;
	*APPEND(ap->arena, m->specs, m->n_specs) = spec;
	ap->last_spec = next_id;
	return 0;
}

static bool order_equal(const floe_iceberg_sort_order *a, const floe_iceberg_sort_order *b)
{
	if (a->n_fields != b->n_fields)
		return false;
	for (size_t i = 0; i < a->n_fields; i++)
		if (a->fields[i].source_id != b->fields[i].source_id ||
		    a->fields[i].descending != b->fields[i].descending ||
		    a->fields[i].nulls_first != b->fields[i].nulls_first ||
		    strcmp(a->fields[i].transform, b->fields[i].transform) != 0)
			return false;
	return true;
}

static int add_sort_order(applier *ap, const floe_json_value *u)
{
	floe_iceberg_metadata *m = ap->m;
	floe_iceberg_sort_order o;
	int32_t next_id = 1;
	if (as_usage(ap, floe_iceberg_sort_order_from_json(&o, ap->arena, floe_json_get(u, "sort-order"))) < 0)
		return -1;
	for (size_t i = 0; i < m->n_sort_orders; i++) {
		if (order_equal(&m->sort_orders[i], &o)) {
			ap->last_order = m->sort_orders[i].order_id;
			return 0;
		}
		if (m->sort_orders[i].order_id >= next_id)
			next_id = m->sort_orders[i].order_id + 1;
	}
	o.order_id = o.n_fields == 0 ? 0 : next_id; /* unsorted is always order 0 */
	*APPEND(ap->arena, m->sort_orders, m->n_sort_orders) = o;
	ap->last_order = o.order_id;
	return 0;
}

/* set-current-schema, set-default-spec, set-default-sort-order: an id, -1 for the last added. */
static int set_current(applier *ap, const floe_json_value *u, const char *key, int32_t last,
		       int32_t *target)
{
	int32_t id = 0;
	if (member_id(ap, &id, u, key) < 0)
		return -1;
	if (id == -1 && last == INT32_MIN)
		return bad_update(ap, "-1 names the one added last, but this change added none");
	*target = id == -1 ? last : id;
	return 0;
}

static int add_snapshot(applier *ap, const floe_json_value *u)
{
	floe_iceberg_metadata *m = ap->m;
	floe_iceberg_snapshot s;
	if (as_usage(ap, floe_iceberg_snapshot_from_json(&s, ap->arena, floe_json_get(u, "snapshot"))) < 0)
		return -1;
	if (floe_iceberg_metadata_snapshot(m, s.snapshot_id))
		return bad_update(ap, floe_arena_printf(ap->arena, "snapshot %" PRId64 " already exists",
							s.snapshot_id));
	if (s.sequence_number <= m->last_sequence_number && m->n_snapshots > 0) {
		floe_error_set(FLOE_ERR_CONFLICT, "snapshot %" PRId64 " has sequence number %" PRId64
			       ", not above the table's last %" PRId64, s.snapshot_id, s.sequence_number,
			       m->last_sequence_number);
		floe_error_hint("Another snapshot was committed meanwhile: load the table and retry.");
		return -1;
	}
	*APPEND(ap->arena, m->snapshots, m->n_snapshots) = s;
	if (s.sequence_number > m->last_sequence_number)
		m->last_sequence_number = s.sequence_number;
	return 0;
}

static int set_ref(applier *ap, const floe_json_value *u)
{
	floe_iceberg_metadata *m = ap->m;
	const char *name = member_str(ap->arena, u, "ref-name");
	floe_iceberg_ref ref;
	if (!name)
		return bad_update(ap, "\"ref-name\" is missing");
	if (as_usage(ap, floe_iceberg_ref_from_json(&ref, ap->arena, name, u)) < 0)
		return -1;
	const floe_iceberg_snapshot *s = floe_iceberg_metadata_snapshot(m, ref.snapshot_id);
	if (!s)
		return bad_update(ap, floe_arena_printf(ap->arena, "snapshot %" PRId64 " does not exist",
							ref.snapshot_id));
	floe_iceberg_ref *slot = (floe_iceberg_ref *)find_ref(m, name);
	if (!slot)
		slot = APPEND(ap->arena, m->refs, m->n_refs);
	*slot = ref;
	if (strcmp(name, "main") == 0 && (!m->has_current_snapshot || m->current_snapshot_id != s->snapshot_id)) {
		m->has_current_snapshot = true;
		m->current_snapshot_id = s->snapshot_id;
		*APPEND(ap->arena, m->snapshot_log, m->n_snapshot_log) =
			(floe_iceberg_snapshot_log){ s->snapshot_id, s->timestamp_ms };
	}
	return 0;
}

static void drop_ref(floe_iceberg_metadata *m, const char *name)
{
	floe_iceberg_ref *ref = (floe_iceberg_ref *)find_ref(m, name);
	if (!ref)
		return;
	size_t i = (size_t)(ref - m->refs);
	memmove(ref, ref + 1, (m->n_refs - i - 1) * sizeof(*ref));
	m->n_refs--;
	if (strcmp(name, "main") == 0)
		m->has_current_snapshot = false;
}

static int remove_ref(applier *ap, const floe_json_value *u)
{
	const char *name = member_str(ap->arena, u, "ref-name");
	if (!name)
		return bad_update(ap, "\"ref-name\" is missing");
	drop_ref(ap->m, name);
	return 0;
}

static bool id_listed(const floe_json_value *ids, int64_t id)
{
	for (size_t i = 0; i < floe_json_count(ids); i++) {
		int64_t v;
		if (floe_json_int64(&v, floe_json_value_at(ids, i)) == 0 && v == id)
			return true;
	}
	return false;
}

static int remove_snapshots(applier *ap, const floe_json_value *u)
{
	floe_iceberg_metadata *m = ap->m;
	const floe_json_value *ids = floe_json_get(u, "snapshot-ids");
	size_t k = 0, l = 0;
	if (!ids || floe_json_type_of(ids) != FLOE_JSON_ARRAY)
		return bad_update(ap, "\"snapshot-ids\" is missing or not an array");
	for (size_t i = 0; i < floe_json_count(ids); i++)
		if (floe_json_type_of(floe_json_value_at(ids, i)) != FLOE_JSON_NUMBER)
			return bad_update(ap, "\"snapshot-ids\" holds a value that is not an id");
	for (size_t i = 0; i < m->n_snapshots; i++)
		if (!id_listed(ids, m->snapshots[i].snapshot_id))
			m->snapshots[k++] = m->snapshots[i];
	m->n_snapshots = k;
	for (size_t i = 0; i < m->n_snapshot_log; i++)
		if (!id_listed(ids, m->snapshot_log[i].snapshot_id))
			m->snapshot_log[l++] = m->snapshot_log[i];
	m->n_snapshot_log = l;
	for (size_t i = m->n_refs; i-- > 0;) /* refs to removed snapshots go too, as in Java */
		if (id_listed(ids, m->refs[i].snapshot_id))
			drop_ref(m, m->refs[i].name);
	return 0;
}

static int set_properties(applier *ap, const floe_json_value *u)
{
	const floe_json_value *set = floe_json_get(u, "updates");
	if (!set || floe_json_type_of(set) != FLOE_JSON_OBJECT)
		return bad_update(ap, "\"updates\" is missing or not an object");
	for (size_t i = 0; i < floe_json_count(set); i++) {
		floe_slice k = floe_json_key_at(set, i);
		const floe_json_value *v = floe_json_value_at(set, i);
		if (floe_json_type_of(v) != FLOE_JSON_STRING || memchr(k.ptr, '\0', k.len) || k.len == 0)
			return bad_update(ap, "a property is not a string");
		floe_slice vs = floe_json_string(v);
		if (memchr(vs.ptr, '\0', vs.len))
			return bad_update(ap, "a property value holds a NUL character");
		floe_iceberg_metadata_set_property(ap->m, ap->arena, floe_arena_strndup(ap->arena, k.ptr, k.len),
						   floe_arena_strndup(ap->arena, vs.ptr, vs.len));
	}
	return 0;
}

static int remove_properties(applier *ap, const floe_json_value *u)
{
	const floe_json_value *keys = floe_json_get(u, "removals");
	if (!keys || floe_json_type_of(keys) != FLOE_JSON_ARRAY)
		return bad_update(ap, "\"removals\" is missing or not an array");
	for (size_t i = 0; i < floe_json_count(keys); i++) {
		const floe_json_value *k = floe_json_value_at(keys, i);
		if (floe_json_type_of(k) != FLOE_JSON_STRING)
			return bad_update(ap, "\"removals\" holds a value that is not a string");
		floe_iceberg_metadata_set_property(ap->m, ap->arena, floe_json_string(k).ptr, NULL);
	}
	return 0;
}

static int scalar_update(applier *ap, const char *action, const floe_json_value *u)
{
	floe_iceberg_metadata *m = ap->m;
	if (strcmp(action, "assign-uuid") == 0) {
		const char *uuid = member_str(ap->arena, u, "uuid");
		if (!uuid || !*uuid)
			return bad_update(ap, "\"uuid\" is missing");
		if (m->table_uuid && *m->table_uuid && strcmp(m->table_uuid, uuid) != 0)
			return bad_update(ap, "a table's uuid cannot change");
		m->table_uuid = uuid;
		return 0;
	}
	if (strcmp(action, "set-location") == 0) {
		const char *loc = member_str(ap->arena, u, "location");
		if (!loc || !*loc)
			return bad_update(ap, "\"location\" is missing");
		m->location = loc;
		return 0;
	}
	int32_t v = 0;
	if (member_id(ap, &v, u, "format-version") < 0)
		return -1;
	if (v < m->format_version)
		return bad_update(ap, "a table's format version cannot go down");
	if (v != FLOE_ICEBERG_FORMAT_VERSION) {
		floe_error_set(FLOE_ERR_USAGE, "format version %d is not supported", v);
		floe_error_detail("floe reads and writes Iceberg format version 2.");
		return -1;
	}
	m->format_version = v;
	return 0;
}

static int apply_one(applier *ap, const floe_json_value *u)
{
	floe_iceberg_metadata *m = ap->m;
	const char *a = ap->action = member_str(ap->arena, u, "action");
	if (!a)
		return malformed("update", "?", "it has no \"action\"");
	if (!strcmp(a, "assign-uuid") || !strcmp(a, "set-location") || !strcmp(a, "upgrade-format-version"))
		return scalar_update(ap, a, u);
	if (!strcmp(a, "add-schema"))
		return add_schema(ap, u);
	if (!strcmp(a, "set-current-schema"))
		return set_current(ap, u, "schema-id", ap->last_schema, &m->current_schema_id);
	if (!strcmp(a, "add-spec"))
		return add_spec(ap, u);
	if (!strcmp(a, "set-default-spec"))
		return set_current(ap, u, "spec-id", ap->last_spec, &m->default_spec_id);
	if (!strcmp(a, "add-sort-order"))
		return add_sort_order(ap, u);
	if (!strcmp(a, "set-default-sort-order"))
		return set_current(ap, u, "sort-order-id", ap->last_order, &m->default_sort_order_id);
	if (!strcmp(a, "add-snapshot"))
		return add_snapshot(ap, u);
	if (!strcmp(a, "set-snapshot-ref"))
		return set_ref(ap, u);
	if (!strcmp(a, "remove-snapshot-ref"))
		return remove_ref(ap, u);
	if (!strcmp(a, "remove-snapshots"))
		return remove_snapshots(ap, u);
	if (!strcmp(a, "set-properties"))
		return set_properties(ap, u);
	if (!strcmp(a, "remove-properties"))
		return remove_properties(ap, u);
	floe_error_set(FLOE_ERR_USAGE, "unknown or unsupported update \"%s\"", a);
	floe_error_hint("floe's REST catalog applies the updates its /v1/config endpoints list describe; "
			"see docs/rest-catalog.md.");
	return -1;
}

int floe_iceberg_updates_apply(floe_iceberg_metadata *m, floe_arena *arena,
			       const floe_json_value *updates)
{
	applier ap = { m, arena, NULL, INT32_MIN, INT32_MIN, INT32_MIN };
	if (updates && floe_json_type_of(updates) != FLOE_JSON_ARRAY)
		return malformed("request", "updates", "it is not an array");
	for (size_t i = 0; i < floe_json_count(updates); i++) {
		const floe_json_value *u = floe_json_value_at(updates, i);
		if (floe_json_type_of(u) != FLOE_JSON_OBJECT)
			return malformed("update", "?", "it is not an object");
		if (apply_one(&ap, u) < 0)
			return -1;
	}
	ap.action = "(all)";
	return as_usage(&ap, floe_iceberg_metadata_check(m));
}

floe_iceberg_metadata *floe_iceberg_metadata_empty(floe_arena *arena)
{
	floe_iceberg_metadata *m = floe_arena_alloc(arena, sizeof(*m));
	memset(m, 0, sizeof(*m));
	m->format_version = FLOE_ICEBERG_FORMAT_VERSION;
	m->last_updated_ms = floe_iceberg_now_ms();
	m->current_schema_id = -1;
	m->default_spec_id = -1;
	m->default_sort_order_id = -1;
	m->last_partition_id = FLOE_ICEBERG_PARTITION_FIELD_ID_START - 1;
	return m;
}

/* ---- commits ---- */

/* A table's location stays inside its catalog's warehouse (floe_iceberg_catalog_holds). */
static int check_location(floe_iceberg_catalog *catalog, const floe_iceberg_metadata *m)
{
	if (floe_iceberg_catalog_holds(catalog, m->location))
		return 0;
	floe_error_set(FLOE_ERR_USAGE, "table location \"%s\" is outside the warehouse \"%s\"", m->location,
		       floe_iceberg_catalog_warehouse(catalog));
	floe_error_hint("Place tables under the warehouse (or leave the location out: floe picks one there).");
	return -1;
}

typedef struct update_op {
	const floe_json_value *requirements, *updates;
} update_op;

static int apply_updates(commit_ctx *c, void *opaque)
{
	update_op *op = opaque;
	if (floe_iceberg_requirements_check(c->base, op->requirements) < 0)
		return floe_error_context("while committing to table %s", c->table->full_name);
	c->next = floe_iceberg_commit_next(c);
	if (floe_iceberg_updates_apply(c->next, c->arena, op->updates) < 0 ||
	    (strcmp(c->next->location, c->base->location) != 0 &&
	     check_location(c->table->catalog, c->next) < 0))
		return floe_error_context("while committing to table %s", c->table->full_name);
	return 0;
}

int floe_iceberg_table_commit_updates(floe_iceberg_table *table,
				      const floe_json_value *requirements,
				      const floe_json_value *updates)
{
	update_op op = { requirements, updates };
	commit_change ch = { "a REST catalog commit", apply_updates, NULL, NULL, &op };
	return floe_iceberg_commit(table, &ch, NULL);
}

int floe_iceberg_table_create_from_updates(floe_iceberg_table **out, floe_iceberg_catalog *catalog,
					   const char *ns, const char *name,
					   const floe_json_value *requirements,
					   const floe_json_value *updates)
{
	floe_arena *a = floe_arena_new();
	floe_iceberg_metadata *m = floe_iceberg_metadata_empty(a);
	int error = -1;
	*out = NULL;
	m->table_uuid = ""; /* assign-uuid may give it; else a fresh one */
	for (size_t i = 0; i < floe_json_count(updates); i++) {
		const floe_json_value *u = floe_json_value_at(updates, i);
		const char *action = member_str(a, u, "action");
		if (action && strcmp(action, "assign-uuid") == 0)
			break;
		if (i + 1 == floe_json_count(updates))
			m->table_uuid = floe_iceberg_uuid(a);
	}
	m->location = floe_iceberg_table_default_location(a, catalog, ns, name);
	if (floe_iceberg_requirements_check(NULL, requirements) < 0 ||
	    floe_iceberg_updates_apply(m, a, updates) < 0 || check_location(catalog, m) < 0)
		goto cleanup;
	error = floe_iceberg_table_register_new(out, catalog, ns, name, a, m);
cleanup:
	floe_arena_free(a);
	return error;
}

/* ---- purge ---- */

static int purge_one(void *ctx, const char *uri, int64_t size, int64_t mtime_ms)
{
	return floe_iceberg_storage_remove(ctx, uri);
}

int floe_iceberg_table_purge(floe_iceberg_catalog *catalog, const char *ns, const char *name)
{
	floe_iceberg_table *t = NULL;
	floe_arena *a = floe_arena_new();
	int error = -1;
	if (floe_iceberg_table_load(&t, catalog, ns, name) < 0)
		goto cleanup;
	const char *prefix = floe_arena_printf(a, "%s/", floe_iceberg_table_location(t));
	if (check_location(catalog, floe_iceberg_table_metadata(t)) < 0) {
		floe_error_detail("Purging deletes every file under the table's location; floe deletes only "
				  "inside its warehouse. Drop the table without purge and delete the files by hand.");
		goto cleanup;
	}
	if (floe_iceberg_catalog_drop(catalog, ns, name) < 0)
		goto cleanup;
	/* Unregistered first: a reader never finds the table with its files half gone. */
	error = floe_iceberg_storage_list(floe_iceberg_catalog_storage(catalog), prefix, purge_one,
					  floe_iceberg_catalog_storage(catalog));
cleanup:
	if (error < 0)
		floe_error_context("while purging table %s.%s", ns, name);
	floe_iceberg_table_free(t);
	floe_arena_free(a);
	return error;
}
