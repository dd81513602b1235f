/*
 * metadata_read.c — table metadata JSON into the model, then checked.
 *
 * Strict about what a v2 reader needs (every required field, of its type) and
 * tolerant of what it does not (unknown fields, statistics files, which floe does
 * not keep when it rewrites the metadata). Every error names the field.
 */
#include "iceberg/metadata.h"

#include "base/error.h"
#include "base/json.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct reader {
	floe_arena *arena;
	const char *where; /* "snapshot 3", for messages */
	bool request;      /* a catalog request's piece: ids the server assigns may be absent */
} reader;

static int bad(const reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int bad(const reader *r, const char *fmt, ...)
{
	char msg[384];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (r->where)
		return floe_error_set(FLOE_ERR_IO, "table metadata is invalid: %s in %s", msg, r->where);
	return floe_error_set(FLOE_ERR_IO, "table metadata is invalid: %s", msg);
}

static int req_i64(const reader *r, int64_t *out, const floe_json_value *obj, const char *key)
{
	const floe_json_value *v = floe_json_get(obj, key);
	if (!v)
		return bad(r, "\"%s\" is missing", key);
	if (floe_json_type_of(v) != FLOE_JSON_NUMBER || floe_json_int64(out, v) < 0)
		return bad(r, "\"%s\" is not an integer", key);
	return 0;
}

static int req_i32(const reader *r, int32_t *out, const floe_json_value *obj, const char *key)
{
	int64_t v;
	if (req_i64(r, &v, obj, key) < 0)
		return -1;
	if (v < INT32_MIN || v > INT32_MAX)
		return bad(r, "\"%s\" is out of range", key);
	*out = (int32_t)v;
	return 0;
}

/* Metadata strings are C strings here: one with a NUL inside is refused, not cut short. */
static bool has_nul(floe_slice s)
{
	return s.len > 0 && memchr(s.ptr, '\0', s.len) != NULL;
}

static const char *opt_str(const reader *r, const floe_json_value *obj, const char *key)
{
	const floe_json_value *v = floe_json_get(obj, key);
	if (!v || floe_json_type_of(v) != FLOE_JSON_STRING)
		return NULL;
	floe_slice s = floe_json_string(v);
	return has_nul(s) ? NULL : floe_arena_strndup(r->arena, s.ptr, s.len);
}

static int req_str(const reader *r, const char **out, const floe_json_value *obj, const char *key)
{
	*out = opt_str(r, obj, key);
	if (!*out)
		return bad(r, "\"%s\" is missing or not a string", key);
	return 0;
}

static const floe_json_value *req_array(const reader *r, const floe_json_value *obj, const char *key,
					bool optional)
{
	const floe_json_value *v = floe_json_get(obj, key);
	if ((!v && optional) || (v && floe_json_type_of(v) == FLOE_JSON_ARRAY))
		return v;
	bad(r, "\"%s\" is %s", key, v ? "not an array" : "missing");
	return NULL;
}

/* A JSON scalar as text (properties and summaries hold strings; accept numbers too). */
static const char *scalar_text(const reader *r, const floe_json_value *v)
{
	floe_slice s;
	switch (floe_json_type_of(v)) {
	case FLOE_JSON_STRING:
		s = floe_json_string(v);
		return has_nul(s) ? NULL : floe_arena_strndup(r->arena, s.ptr, s.len);
	case FLOE_JSON_NUMBER:
		s = floe_json_number_text(v);
		return floe_arena_strndup(r->arena, s.ptr, s.len);
	case FLOE_JSON_BOOL:
		return floe_json_bool(v) ? "true" : "false";
	default:
		return NULL;
	}
}

static int read_kv(const reader *r, floe_iceberg_kv **out, size_t *n, const floe_json_value *obj,
		   const char *what, const char *skip)
{
	size_t count = floe_json_count(obj), k = 0;
	*out = floe_arena_alloc(r->arena, (count + 1) * sizeof(**out));
	*n = 0;
	if (obj && floe_json_type_of(obj) != FLOE_JSON_OBJECT)
		return bad(r, "\"%s\" is not an object", what);
	for (size_t i = 0; i < count; i++) {
		floe_slice key = floe_json_key_at(obj, i);
		if (skip && floe_slice_eq_cstr(key, skip))
			continue;
		if (has_nul(key))
			return bad(r, "\"%s\" has a key with a NUL character", what);
		const char *value = scalar_text(r, floe_json_value_at(obj, i));
		if (!value)
			return bad(r, "\"%s\" holds a value that is not a string", what);
		(*out)[k].key = floe_arena_strndup(r->arena, key.ptr, key.len);
		(*out)[k++].value = value;
	}
	*n = k;
	return 0;
}

static int read_schemas(const reader *r, floe_iceberg_metadata *m, const floe_json_value *root)
{
	const floe_json_value *arr = req_array(r, root, "schemas", false);
	if (!arr)
		return -1;
	m->n_schemas = floe_json_count(arr);
	m->schemas = floe_arena_alloc(r->arena, (m->n_schemas + 1) * sizeof(*m->schemas));
	for (size_t i = 0; i < m->n_schemas; i++) {
		if (floe_iceberg_schema_from_json(&m->schemas[i], r->arena, floe_json_value_at(arr, i)) < 0)
			return floe_error_context("while reading table metadata");
		for (size_t j = 0; j < i; j++)
			if (m->schemas[j]->schema_id == m->schemas[i]->schema_id)
				return bad(r, "schema id %d appears twice", m->schemas[i]->schema_id);
	}
	return req_i32(r, &m->current_schema_id, root, "current-schema-id");
}

static int read_spec(reader *r, floe_iceberg_partition_spec *spec, const floe_json_value *js)
{
	const floe_json_value *fields;
	bool id_given = !r->request || floe_json_get(js, "spec-id");
	if ((id_given && req_i32(r, &spec->spec_id, js, "spec-id") < 0) ||
	    !(fields = req_array(r, js, "fields", false)))
		return -1;
	spec->n_fields = floe_json_count(fields);
	spec->fields = floe_arena_alloc(r->arena, (spec->n_fields + 1) * sizeof(*spec->fields));
	for (size_t i = 0; i < spec->n_fields; i++) {
		const floe_json_value *f = floe_json_value_at(fields, i);
		floe_iceberg_partition_field *pf = &spec->fields[i];
		pf->field_id = FLOE_ICEBERG_PARTITION_FIELD_ID_START + (int32_t)i;
		if (req_i32(r, &pf->source_id, f, "source-id") < 0 ||
		    ((!r->request || floe_json_get(f, "field-id")) && req_i32(r, &pf->field_id, f, "field-id") < 0) ||
		    req_str(r, &pf->name, f, "name") < 0 ||
		    req_str(r, &pf->transform, f, "transform") < 0)
			return -1;
	}
	return 0;
}

static int read_specs(reader *r, floe_iceberg_metadata *m, const floe_json_value *root)
{
	const floe_json_value *arr = req_array(r, root, "partition-specs", false);
	if (!arr)
		return -1;
	m->n_specs = floe_json_count(arr);
	m->specs = floe_arena_alloc(r->arena, (m->n_specs + 1) * sizeof(*m->specs));
	for (size_t i = 0; i < m->n_specs; i++)
		if (read_spec(r, &m->specs[i], floe_json_value_at(arr, i)) < 0)
			return -1;
	if (req_i32(r, &m->default_spec_id, root, "default-spec-id") < 0)
		return -1;
	return req_i32(r, &m->last_partition_id, root, "last-partition-id");
}

static int read_sort_order(reader *r, floe_iceberg_sort_order *o, const floe_json_value *jo)
{
	const floe_json_value *fields;
	bool id_given = !r->request || floe_json_get(jo, "order-id");
	if ((id_given && req_i32(r, &o->order_id, jo, "order-id") < 0) ||
	    !(fields = req_array(r, jo, "fields", false)))
		return -1;
	o->n_fields = floe_json_count(fields);
	o->fields = floe_arena_alloc(r->arena, (o->n_fields + 1) * sizeof(*o->fields));
	for (size_t i = 0; i < o->n_fields; i++) {
		const floe_json_value *f = floe_json_value_at(fields, i);
		floe_iceberg_sort_field *sf = &o->fields[i];
		const char *dir, *nulls;
		if (req_str(r, &sf->transform, f, "transform") < 0 ||
		    req_i32(r, &sf->source_id, f, "source-id") < 0 ||
		    req_str(r, &dir, f, "direction") < 0 || req_str(r, &nulls, f, "null-order") < 0)
			return -1;
		sf->descending = strcmp(dir, "desc") == 0;
		sf->nulls_first = strcmp(nulls, "nulls-first") == 0;
	}
	return 0;
}

static int read_sort_orders(reader *r, floe_iceberg_metadata *m, const floe_json_value *root)
{
	const floe_json_value *arr = req_array(r, root, "sort-orders", false);
	if (!arr)
		return -1;
	m->n_sort_orders = floe_json_count(arr);
	m->sort_orders = floe_arena_alloc(r->arena, (m->n_sort_orders + 1) * sizeof(*m->sort_orders));
	for (size_t i = 0; i < m->n_sort_orders; i++)
		if (read_sort_order(r, &m->sort_orders[i], floe_json_value_at(arr, i)) < 0)
			return -1;
	return req_i32(r, &m->default_sort_order_id, root, "default-sort-order-id");
}

static int read_snapshot(reader *r, floe_iceberg_snapshot *s, const floe_json_value *js)
{
	const floe_json_value *summary = floe_json_get(js, "summary"), *parent;
	if (req_i64(r, &s->snapshot_id, js, "snapshot-id") < 0)
		return -1;
	r->where = floe_arena_printf(r->arena, "snapshot %" PRId64, s->snapshot_id);
	if (req_i64(r, &s->sequence_number, js, "sequence-number") < 0 ||
	    req_i64(r, &s->timestamp_ms, js, "timestamp-ms") < 0 ||
	    req_str(r, &s->manifest_list, js, "manifest-list") < 0)
		return -1;
	parent = floe_json_get(js, "parent-snapshot-id");
	if (parent && floe_json_type_of(parent) != FLOE_JSON_NULL) {
		if (req_i64(r, &s->parent_id, js, "parent-snapshot-id") < 0)
			return -1;
		s->has_parent = true;
	}
	if (floe_json_get(js, "schema-id")) {
		if (req_i32(r, &s->schema_id, js, "schema-id") < 0)
			return -1;
		s->has_schema_id = true;
	}
	if (!summary || floe_json_type_of(summary) != FLOE_JSON_OBJECT)
		return bad(r, "\"summary\" is missing");
	s->operation = opt_str(r, summary, "operation");
	if (!s->operation)
		return bad(r, "the summary has no \"operation\"");
	if (read_kv(r, &s->summary, &s->n_summary, summary, "summary", "operation") < 0)
		return -1;
	r->where = NULL;
	return 0;
}

static int read_snapshots(reader *r, floe_iceberg_metadata *m, const floe_json_value *root)
{
	const floe_json_value *arr = req_array(r, root, "snapshots", true), *cur;
	if (!arr && floe_json_get(root, "snapshots"))
		return -1;
	m->n_snapshots = floe_json_count(arr);
	m->snapshots = floe_arena_alloc(r->arena, (m->n_snapshots + 1) * sizeof(*m->snapshots));
	for (size_t i = 0; i < m->n_snapshots; i++)
		if (read_snapshot(r, &m->snapshots[i], floe_json_value_at(arr, i)) < 0)
			return -1;
	cur = floe_json_get(root, "current-snapshot-id");
	if (cur && floe_json_type_of(cur) != FLOE_JSON_NULL) {
		if (req_i64(r, &m->current_snapshot_id, root, "current-snapshot-id") < 0)
			return -1;
		m->has_current_snapshot = m->current_snapshot_id != -1;
	}
	return 0;
}

static int read_ref(reader *r, floe_iceberg_ref *ref, floe_slice name, const floe_json_value *jr)
{
	const char *type;
	int64_t v;
	if (has_nul(name))
		return bad(r, "a ref name has a NUL character");
	ref->name = floe_arena_strndup(r->arena, name.ptr, name.len);
	r->where = floe_arena_printf(r->arena, "ref \"%s\"", ref->name);
	if (req_i64(r, &ref->snapshot_id, jr, "snapshot-id") < 0 || req_str(r, &type, jr, "type") < 0)
		return -1;
	if (strcmp(type, "tag") != 0 && strcmp(type, "branch") != 0)
		return bad(r, "\"type\" is \"%s\", not \"branch\" or \"tag\"", type);
	ref->is_tag = strcmp(type, "tag") == 0;
	ref->min_snapshots_to_keep = -1;
	ref->max_snapshot_age_ms = ref->max_ref_age_ms = -1;
	if (floe_json_get(jr, "min-snapshots-to-keep")) {
		if (req_i64(r, &v, jr, "min-snapshots-to-keep") < 0 || v < 0 || v > INT32_MAX)
			return bad(r, "\"min-snapshots-to-keep\" is out of range");
		ref->min_snapshots_to_keep = (int32_t)v;
	}
	if (floe_json_get(jr, "max-snapshot-age-ms") &&
	    req_i64(r, &ref->max_snapshot_age_ms, jr, "max-snapshot-age-ms") < 0)
		return -1;
	if (floe_json_get(jr, "max-ref-age-ms") && req_i64(r, &ref->max_ref_age_ms, jr, "max-ref-age-ms") < 0)
		return -1;
	r->where = NULL;
	return 0;
}

static int read_refs(reader *r, floe_iceberg_metadata *m, const floe_json_value *root)
{
	const floe_json_value *refs = floe_json_get(root, "refs");
	if (refs && floe_json_type_of(refs) != FLOE_JSON_OBJECT)
		return bad(r, "\"refs\" is not an object");
	m->n_refs = floe_json_count(refs);
	m->refs = floe_arena_alloc(r->arena, (m->n_refs + 2) * sizeof(*m->refs));
	for (size_t i = 0; i < m->n_refs; i++)
		if (read_ref(r, &m->refs[i], floe_json_key_at(refs, i), floe_json_value_at(refs, i)) < 0)
			return -1;
	if (!refs && m->has_current_snapshot) {
		/* Old writers: main is implied by current-snapshot-id. */
		m->refs[0] = (floe_iceberg_ref){ "main", m->current_snapshot_id, false, -1, -1, -1 };
		m->n_refs = 1;
	}
	return 0;
}

static int read_logs(reader *r, floe_iceberg_metadata *m, const floe_json_value *root)
{
	const floe_json_value *sl = req_array(r, root, "snapshot-log", true);
	const floe_json_value *ml = req_array(r, root, "metadata-log", true);
	if ((!sl && floe_json_get(root, "snapshot-log")) || (!ml && floe_json_get(root, "metadata-log")))
		return -1;
	m->n_snapshot_log = floe_json_count(sl);
	m->snapshot_log = floe_arena_alloc(r->arena, (m->n_snapshot_log + 1) * sizeof(*m->snapshot_log));
	for (size_t i = 0; i < m->n_snapshot_log; i++) {
		const floe_json_value *e = floe_json_value_at(sl, i);
		if (req_i64(r, &m->snapshot_log[i].snapshot_id, e, "snapshot-id") < 0 ||
		    req_i64(r, &m->snapshot_log[i].timestamp_ms, e, "timestamp-ms") < 0)
			return floe_error_context("in \"snapshot-log\"");
	}
	m->n_metadata_log = floe_json_count(ml);
	m->metadata_log = floe_arena_alloc(r->arena, (m->n_metadata_log + 1) * sizeof(*m->metadata_log));
	for (size_t i = 0; i < m->n_metadata_log; i++) {
		const floe_json_value *e = floe_json_value_at(ml, i);
		if (req_str(r, &m->metadata_log[i].file, e, "metadata-file") < 0 ||
		    req_i64(r, &m->metadata_log[i].timestamp_ms, e, "timestamp-ms") < 0)
			return floe_error_context("in \"metadata-log\"");
	}
	return 0;
}

static int read_root(reader *r, floe_iceberg_metadata *m, const floe_json_value *root)
{
	int32_t fv = 0;
	if (floe_json_type_of(root) != FLOE_JSON_OBJECT)
		return bad(r, "it is not a JSON object");
	if (req_i32(r, &fv, root, "format-version") < 0)
		return -1;
	m->format_version = fv;
	if (fv != FLOE_ICEBERG_FORMAT_VERSION)
		return bad(r, "format-version %d (floe reads version 2)", fv);
	if (req_str(r, &m->table_uuid, root, "table-uuid") < 0 ||
	    req_str(r, &m->location, root, "location") < 0 ||
	    req_i64(r, &m->last_sequence_number, root, "last-sequence-number") < 0 ||
	    req_i64(r, &m->last_updated_ms, root, "last-updated-ms") < 0 ||
	    req_i32(r, &m->last_column_id, root, "last-column-id") < 0 || read_schemas(r, m, root) < 0 ||
	    read_specs(r, m, root) < 0 || read_sort_orders(r, m, root) < 0)
		return -1;
	if (read_kv(r, &m->properties, &m->n_properties, floe_json_get(root, "properties"),
		    "properties", NULL) < 0)
		return -1;
	if (read_snapshots(r, m, root) < 0 || read_refs(r, m, root) < 0 || read_logs(r, m, root) < 0)
		return -1;
	return floe_iceberg_metadata_check(m);
}

/* ---- pieces, for callers that receive them alone (the REST catalog's updates) ---- */

int floe_iceberg_spec_from_json(floe_iceberg_partition_spec *out, floe_arena *arena,
				const floe_json_value *json)
{
	reader r = { arena, "partition spec", true };
	memset(out, 0, sizeof(*out));
	return read_spec(&r, out, json);
}

int floe_iceberg_sort_order_from_json(floe_iceberg_sort_order *out, floe_arena *arena,
				      const floe_json_value *json)
{
	reader r = { arena, "sort order", true };
	memset(out, 0, sizeof(*out));
	return read_sort_order(&r, out, json);
}

int floe_iceberg_snapshot_from_json(floe_iceberg_snapshot *out, floe_arena *arena,
				    const floe_json_value *json)
{
	reader r = { arena, NULL, true };
	memset(out, 0, sizeof(*out));
	return read_snapshot(&r, out, json);
}

int floe_iceberg_ref_from_json(floe_iceberg_ref *out, floe_arena *arena, const char *name,
			       const floe_json_value *json)
{
	reader r = { arena, NULL, true };
	memset(out, 0, sizeof(*out));
	return read_ref(&r, out, floe_slice_from(name), json);
}

int floe_iceberg_metadata_parse(floe_iceberg_metadata **out, floe_arena *arena, const char *text,
				size_t len)
{
	floe_json_doc *doc = NULL;
	floe_json_error jerr;
	floe_iceberg_metadata *m = floe_arena_alloc(arena, sizeof(*m));
	reader r = { arena, NULL, false };
	int error = -1;
	*out = NULL;
	if (floe_json_parse(&doc, text, len, &jerr) < 0) {
		floe_error_set(FLOE_ERR_IO, "table metadata is not valid JSON: %s (line %d, column %d)",
			       jerr.message, jerr.line, jerr.col);
		goto cleanup;
	}
	if (read_root(&r, m, floe_json_root(doc)) < 0)
		goto cleanup;
	*out = m;
	error = 0;
cleanup:
	floe_json_free(doc);
	return error;
}
