/*
 * metadata_write.c — table metadata JSON writer, model checks, copies and lookups.
 *
 * Field order follows Java's TableMetadataParser so files diff cleanly against
 * other writers'. Only format version 2 is written.
 */
#include "iceberg/metadata.h"

#include "base/error.h"
#include "base/json.h"
#include "base/text.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int put_kv_object(floe_buf *out, const floe_iceberg_kv *kv, size_t n)
{
	if (floe_buf_putc(out, '{') < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if ((i && floe_buf_putc(out, ',') < 0) || floe_json_put_key(out, kv[i].key) < 0 ||
		    floe_json_put_cstr(out, kv[i].value) < 0)
			return -1;
	}
	return floe_buf_putc(out, '}');
}

int floe_iceberg_partition_fields_write_json(floe_buf *out, const floe_iceberg_partition_spec *spec)
{
	if (floe_buf_putc(out, '[') < 0)
		return -1;
	for (size_t i = 0; i < spec->n_fields; i++) {
		const floe_iceberg_partition_field *f = &spec->fields[i];
		if ((i && floe_buf_putc(out, ',') < 0) || floe_buf_puts(out, "{\"name\":") < 0 ||
		    floe_json_put_cstr(out, f->name) < 0 || floe_buf_puts(out, ",\"transform\":") < 0 ||
		    floe_json_put_cstr(out, f->transform) < 0 ||
		    floe_buf_printf(out, ",\"source-id\":%d,\"field-id\":%d}", f->source_id,
				    f->field_id) < 0)
			return -1;
	}
	return floe_buf_putc(out, ']');
}

static int put_specs(floe_buf *out, const floe_iceberg_metadata *m)
{
	if (floe_buf_puts(out, ",\"partition-specs\":[") < 0)
		return -1;
	for (size_t i = 0; i < m->n_specs; i++) {
		if (floe_buf_printf(out, "%s{\"spec-id\":%d,\"fields\":", i ? "," : "",
				    m->specs[i].spec_id) < 0 ||
		    floe_iceberg_partition_fields_write_json(out, &m->specs[i]) < 0 ||
		    floe_buf_putc(out, '}') < 0)
			return -1;
	}
	return floe_buf_printf(out, "],\"default-spec-id\":%d,\"last-partition-id\":%d",
			       m->default_spec_id, m->last_partition_id);
}

static int put_sort_orders(floe_buf *out, const floe_iceberg_metadata *m)
{
	if (floe_buf_puts(out, ",\"sort-orders\":[") < 0)
		return -1;
	for (size_t i = 0; i < m->n_sort_orders; i++) {
		const floe_iceberg_sort_order *o = &m->sort_orders[i];
		if (floe_buf_printf(out, "%s{\"order-id\":%d,\"fields\":[", i ? "," : "", o->order_id) < 0)
			return -1;
		for (size_t j = 0; j < o->n_fields; j++) {
			const floe_iceberg_sort_field *f = &o->fields[j];
			if ((j && floe_buf_putc(out, ',') < 0) || floe_buf_puts(out, "{\"transform\":") < 0 ||
			    floe_json_put_cstr(out, f->transform) < 0 ||
			    floe_buf_printf(out, ",\"source-id\":%d,\"direction\":\"%s\","
					    "\"null-order\":\"%s\"}", f->source_id,
					    f->descending ? "desc" : "asc",
					    f->nulls_first ? "nulls-first" : "nulls-last") < 0)
				return -1;
		}
		if (floe_buf_puts(out, "]}") < 0)
			return -1;
	}
	return floe_buf_printf(out, "],\"default-sort-order-id\":%d", m->default_sort_order_id);
}

static int put_snapshot(floe_buf *out, const floe_iceberg_snapshot *s)
{
	if (floe_buf_printf(out, "{\"snapshot-id\":%" PRId64, s->snapshot_id) < 0 ||
	    (s->has_parent && floe_buf_printf(out, ",\"parent-snapshot-id\":%" PRId64, s->parent_id) < 0) ||
	    floe_buf_printf(out, ",\"sequence-number\":%" PRId64 ",\"timestamp-ms\":%" PRId64
			    ",\"manifest-list\":", s->sequence_number, s->timestamp_ms) < 0 ||
	    floe_json_put_cstr(out, s->manifest_list) < 0 ||
	    floe_buf_puts(out, ",\"summary\":{\"operation\":") < 0 ||
	    floe_json_put_cstr(out, s->operation) < 0)
		return -1;
	for (size_t i = 0; i < s->n_summary; i++)
		if (floe_buf_putc(out, ',') < 0 || floe_json_put_key(out, s->summary[i].key) < 0 ||
		    floe_json_put_cstr(out, s->summary[i].value) < 0)
			return -1;
	if (floe_buf_putc(out, '}') < 0 ||
	    (s->has_schema_id && floe_buf_printf(out, ",\"schema-id\":%d", s->schema_id) < 0))
		return -1;
	return floe_buf_putc(out, '}');
}

static int put_refs(floe_buf *out, const floe_iceberg_metadata *m)
{
	if (floe_buf_puts(out, ",\"refs\":{") < 0)
		return -1;
	for (size_t i = 0; i < m->n_refs; i++) {
		const floe_iceberg_ref *r = &m->refs[i];
		if ((i && floe_buf_putc(out, ',') < 0) || floe_json_put_key(out, r->name) < 0 ||
		    floe_buf_printf(out, "{\"snapshot-id\":%" PRId64 ",\"type\":\"%s\"", r->snapshot_id,
				    r->is_tag ? "tag" : "branch") < 0)
			return -1;
		if ((r->min_snapshots_to_keep >= 0 &&
		     floe_buf_printf(out, ",\"min-snapshots-to-keep\":%d", r->min_snapshots_to_keep) < 0) ||
		    (r->max_snapshot_age_ms >= 0 &&
		     floe_buf_printf(out, ",\"max-snapshot-age-ms\":%" PRId64, r->max_snapshot_age_ms) < 0) ||
		    (r->max_ref_age_ms >= 0 &&
		     floe_buf_printf(out, ",\"max-ref-age-ms\":%" PRId64, r->max_ref_age_ms) < 0) ||
		    floe_buf_putc(out, '}') < 0)
			return -1;
	}
	return floe_buf_putc(out, '}');
}

static int put_logs(floe_buf *out, const floe_iceberg_metadata *m)
{
	if (floe_buf_puts(out, ",\"snapshot-log\":[") < 0)
		return -1;
	for (size_t i = 0; i < m->n_snapshot_log; i++)
		if (floe_buf_printf(out, "%s{\"timestamp-ms\":%" PRId64 ",\"snapshot-id\":%" PRId64 "}",
				    i ? "," : "", m->snapshot_log[i].timestamp_ms,
				    m->snapshot_log[i].snapshot_id) < 0)
			return -1;
	if (floe_buf_puts(out, "],\"metadata-log\":[") < 0)
		return -1;
	for (size_t i = 0; i < m->n_metadata_log; i++)
		if (floe_buf_printf(out, "%s{\"timestamp-ms\":%" PRId64 ",\"metadata-file\":", i ? "," : "",
				    m->metadata_log[i].timestamp_ms) < 0 ||
		    floe_json_put_cstr(out, m->metadata_log[i].file) < 0 || floe_buf_putc(out, '}') < 0)
			return -1;
	return floe_buf_putc(out, ']');
}

int floe_iceberg_metadata_write(floe_buf *out, const floe_iceberg_metadata *m)
{
	if (floe_buf_printf(out, "{\"format-version\":%d,\"table-uuid\":", m->format_version) < 0 ||
	    floe_json_put_cstr(out, m->table_uuid) < 0 || floe_buf_puts(out, ",\"location\":") < 0 ||
	    floe_json_put_cstr(out, m->location) < 0 ||
	    floe_buf_printf(out, ",\"last-sequence-number\":%" PRId64 ",\"last-updated-ms\":%" PRId64
			    ",\"last-column-id\":%d,\"current-schema-id\":%d,\"schemas\":[",
			    m->last_sequence_number, m->last_updated_ms, m->last_column_id,
			    m->current_schema_id) < 0)
		return -1;
	for (size_t i = 0; i < m->n_schemas; i++)
		if ((i && floe_buf_putc(out, ',') < 0) ||
		    floe_iceberg_schema_write_json(out, m->schemas[i]) < 0)
			return -1;
	if (floe_buf_putc(out, ']') < 0 || put_specs(out, m) < 0 || put_sort_orders(out, m) < 0 ||
	    floe_buf_puts(out, ",\"properties\":") < 0 ||
	    put_kv_object(out, m->properties, m->n_properties) < 0 ||
	    floe_buf_printf(out, ",\"current-snapshot-id\":%" PRId64,
			    m->has_current_snapshot ? m->current_snapshot_id : -1) < 0 ||
	    put_refs(out, m) < 0 || floe_buf_puts(out, ",\"snapshots\":[") < 0)
		return -1;
	for (size_t i = 0; i < m->n_snapshots; i++)
		if ((i && floe_buf_putc(out, ',') < 0) || put_snapshot(out, &m->snapshots[i]) < 0)
			return -1;
	if (floe_buf_puts(out, "],\"statistics\":[],\"partition-statistics\":[]") < 0 ||
	    put_logs(out, m) < 0)
		return -1;
	return floe_buf_putc(out, '}');
}

/* ---- checks ---- */

static int invalid(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int invalid(const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return floe_error_set(FLOE_ERR_IO, "table metadata is invalid: %s", msg);
}

static int check_snapshots(const floe_iceberg_metadata *m)
{
	for (size_t i = 0; i < m->n_snapshots; i++) {
		const floe_iceberg_snapshot *s = &m->snapshots[i];
		if (s->sequence_number > m->last_sequence_number)
			return invalid("snapshot %" PRId64 " has sequence number %" PRId64 ", past "
				       "last-sequence-number %" PRId64, s->snapshot_id, s->sequence_number,
				       m->last_sequence_number);
		for (size_t j = 0; j < i; j++)
			if (m->snapshots[j].snapshot_id == s->snapshot_id)
				return invalid("snapshot id %" PRId64 " appears twice", s->snapshot_id);
		if (s->has_schema_id && !floe_iceberg_metadata_schema(m, s->schema_id))
			return invalid("snapshot %" PRId64 " names unknown schema %d", s->snapshot_id,
				       s->schema_id);
	}
	for (size_t i = 0; i < m->n_refs; i++) {
		if (!floe_iceberg_metadata_snapshot(m, m->refs[i].snapshot_id))
			return invalid("ref \"%s\" points at unknown snapshot %" PRId64, m->refs[i].name,
				       m->refs[i].snapshot_id);
		if (strcmp(m->refs[i].name, "main") == 0 &&
		    (!m->has_current_snapshot || m->current_snapshot_id != m->refs[i].snapshot_id))
			return invalid("ref \"main\" (%" PRId64 ") differs from current-snapshot-id",
				       m->refs[i].snapshot_id);
	}
	if (m->has_current_snapshot && !floe_iceberg_metadata_current_snapshot(m))
		return invalid("current-snapshot-id %" PRId64 " is not among the snapshots",
			       m->current_snapshot_id);
	return 0;
}

int floe_iceberg_metadata_check(const floe_iceberg_metadata *m)
{
	if (m->format_version != FLOE_ICEBERG_FORMAT_VERSION)
		return invalid("format-version %d (floe reads and writes version 2)", m->format_version);
	if (!m->table_uuid || !*m->table_uuid || !m->location || !*m->location)
		return invalid("no table-uuid or location");
	if (!floe_iceberg_metadata_current_schema(m))
		return invalid("current-schema-id %d is not among the schemas", m->current_schema_id);
	for (size_t i = 0; i < m->n_schemas; i++)
		if (floe_iceberg_schema_max_id(m->schemas[i]) > m->last_column_id)
			return invalid("schema %d uses ids past last-column-id %d", m->schemas[i]->schema_id,
				       m->last_column_id);
	if (!floe_iceberg_metadata_spec(m, m->default_spec_id))
		return invalid("default-spec-id %d is not among the partition specs", m->default_spec_id);
	bool sort_found = false;
	for (size_t i = 0; i < m->n_sort_orders; i++)
		sort_found = sort_found || m->sort_orders[i].order_id == m->default_sort_order_id;
	if (!sort_found)
		return invalid("default-sort-order-id %d is not among the sort orders",
			       m->default_sort_order_id);
	return check_snapshots(m);
}

/* ---- copies and lookups ---- */

#define COPY_ARRAY(arena, dst, src, n)                                               \
	do {                                                                          \
		void *copy_ = floe_arena_alloc((arena), ((n) + 1) * sizeof(*(src)));      \
		if ((n))                                                                  \
			memcpy(copy_, (src), (n) * sizeof(*(src)));                           \
		(dst) = copy_;                                                            \
	} while (0)

floe_iceberg_metadata *floe_iceberg_metadata_copy(floe_arena *arena, const floe_iceberg_metadata *m)
{
	floe_iceberg_metadata *c = floe_arena_alloc(arena, sizeof(*c));
	*c = *m;
	COPY_ARRAY(arena, c->schemas, m->schemas, m->n_schemas);
	COPY_ARRAY(arena, c->specs, m->specs, m->n_specs);
	COPY_ARRAY(arena, c->sort_orders, m->sort_orders, m->n_sort_orders);
	COPY_ARRAY(arena, c->properties, m->properties, m->n_properties);
	COPY_ARRAY(arena, c->snapshots, m->snapshots, m->n_snapshots);
	COPY_ARRAY(arena, c->snapshot_log, m->snapshot_log, m->n_snapshot_log);
	COPY_ARRAY(arena, c->metadata_log, m->metadata_log, m->n_metadata_log);
	COPY_ARRAY(arena, c->refs, m->refs, m->n_refs);
	return c;
}

const floe_iceberg_schema *floe_iceberg_metadata_schema(const floe_iceberg_metadata *m, int32_t id)
{
	for (size_t i = 0; i < m->n_schemas; i++)
		if (m->schemas[i]->schema_id == id)
			return m->schemas[i];
	return NULL;
}

const floe_iceberg_schema *floe_iceberg_metadata_current_schema(const floe_iceberg_metadata *m)
{
	return floe_iceberg_metadata_schema(m, m->current_schema_id);
}

const floe_iceberg_snapshot *floe_iceberg_metadata_snapshot(const floe_iceberg_metadata *m,
							    int64_t snapshot_id)
{
	for (size_t i = 0; i < m->n_snapshots; i++)
		if (m->snapshots[i].snapshot_id == snapshot_id)
			return &m->snapshots[i];
	return NULL;
}

const floe_iceberg_snapshot *floe_iceberg_metadata_current_snapshot(const floe_iceberg_metadata *m)
{
	return m->has_current_snapshot ? floe_iceberg_metadata_snapshot(m, m->current_snapshot_id) : NULL;
}

const floe_iceberg_partition_spec *floe_iceberg_metadata_spec(const floe_iceberg_metadata *m,
							      int32_t spec_id)
{
	for (size_t i = 0; i < m->n_specs; i++)
		if (m->specs[i].spec_id == spec_id)
			return &m->specs[i];
	return NULL;
}

const char *floe_iceberg_metadata_property(const floe_iceberg_metadata *m, const char *key)
{
	for (size_t i = 0; i < m->n_properties; i++)
		if (strcmp(m->properties[i].key, key) == 0)
			return m->properties[i].value;
	return NULL;
}

int64_t floe_iceberg_metadata_property_int(const floe_iceberg_metadata *m, const char *key,
					   int64_t fallback)
{
	const char *v = floe_iceberg_metadata_property(m, key);
	int64_t out;
	if (!v || floe_text_parse_int64(&out, v, strlen(v), INT64_MIN, INT64_MAX) < 0)
		return fallback;
	return out;
}

const char *floe_iceberg_snapshot_summary(const floe_iceberg_snapshot *s, const char *key)
{
	if (strcmp(key, "operation") == 0)
		return s->operation;
	for (size_t i = 0; i < s->n_summary; i++)
		if (strcmp(s->summary[i].key, key) == 0)
			return s->summary[i].value;
	return NULL;
}

void floe_iceberg_metadata_set_property(floe_iceberg_metadata *m, floe_arena *arena,
					const char *key, const char *value)
{
	for (size_t i = 0; i < m->n_properties; i++) {
		if (strcmp(m->properties[i].key, key) != 0)
			continue;
		if (value) {
			m->properties[i].value = floe_arena_strdup(arena, value);
		} else {
			memmove(&m->properties[i], &m->properties[i + 1],
				(m->n_properties - i - 1) * sizeof(*m->properties));
			m->n_properties--;
		}
		return;
	}
	if (!value)
		return;
	floe_iceberg_kv *grown = floe_arena_alloc(arena, (m->n_properties + 1) * sizeof(*grown));
	if (m->n_properties)
		memcpy(grown, m->properties, m->n_properties * sizeof(*grown));
	grown[m->n_properties].key = floe_arena_strdup(arena, key);
	grown[m->n_properties].value = floe_arena_strdup(arena, value);
	m->properties = grown;
	m->n_properties++;
}
