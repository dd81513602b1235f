/*
 * table.c — table handles: create, load, refresh, names and ids, reading manifests
 * through the table's storage.
 *
 * A new table's first metadata file is `00000-<uuid>.metadata.json`, registered
 * with an INSERT; if the name turns out to be taken, the file is deleted again.
 */
#include "iceberg/table_int.h"

#include "base/error.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

int64_t floe_iceberg_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void random_bytes(void *out, size_t n)
{
	uint8_t *p = out;
	while (n > 0) {
		ssize_t got = getrandom(p, n, 0);
		if (got <= 0)
			continue; /* EINTR; getrandom does not fail otherwise once the pool is ready */
		p += got;
		n -= (size_t)got;
	}
}

const char *floe_iceberg_uuid(floe_arena *arena)
{
	uint8_t b[16];
	random_bytes(b, sizeof(b));
	b[6] = (uint8_t)((b[6] & 0x0F) | 0x40);
	b[8] = (uint8_t)((b[8] & 0x3F) | 0x80);
	return floe_arena_printf(arena, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
				 "%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3], b[4], b[5], b[6],
				 b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

int64_t floe_iceberg_new_snapshot_id(const floe_iceberg_metadata *m)
{
	for (;;) {
		uint64_t v;
		random_bytes(&v, sizeof(v));
		int64_t id = (int64_t)(v & (uint64_t)INT64_MAX);
		if (id > 0 && (!m || !floe_iceberg_metadata_snapshot(m, id)))
			return id;
	}
}

const char *floe_iceberg_metadata_uri(floe_arena *arena, const floe_iceberg_metadata *m,
				      const char *name)
{
	size_t len = strlen(m->location);
	while (len > 1 && m->location[len - 1] == '/')
		len--;
	return floe_arena_printf(arena, "%.*s/metadata/%s", (int)len, m->location, name);
}

int64_t floe_iceberg_metadata_version(const char *uri)
{
	const char *name = strrchr(uri, '/');
	int64_t v = 0;
	size_t digits = 0;
	name = name ? name + 1 : uri;
	if (*name == 'v')
		name++;
	while (name[digits] >= '0' && name[digits] <= '9' && digits < 18)
		v = v * 10 + (name[digits++] - '0');
	if (digits == 0 || (name[digits] != '-' && name[digits] != '.'))
		return -1;
	return v;
}

const char *floe_iceberg_table_new_data_uri(floe_iceberg_table *table, floe_arena *arena,
					    const char *ext)
{
	const char *loc = table->metadata->location;
	size_t len = strlen(loc);
	while (len > 1 && loc[len - 1] == '/')
		len--;
	return floe_arena_printf(arena, "%.*s/data/00000-0-%s.%s", (int)len, loc,
				 floe_iceberg_uuid(arena), ext ? ext : "parquet");
}

/* ---- reading ---- */

int floe_iceberg_read_manifest_list(floe_iceberg_table *t, floe_arena *arena, const char *uri,
				    floe_iceberg_manifest_file **out, size_t *n)
{
	floe_buf data = FLOE_BUF_INIT;
	int error = -1;
	if (floe_iceberg_storage_read(floe_iceberg_table_storage(t), &data, uri) < 0 ||
	    floe_iceberg_manifest_list_read(out, n, arena, data.ptr, data.len) < 0) {
		floe_error_context("while reading manifest list \"%s\"", uri);
		goto cleanup;
	}
	error = 0;
cleanup:
	floe_buf_free(&data);
	return error;
}

int floe_iceberg_read_manifest(floe_iceberg_table *t, floe_arena *arena,
			       const floe_iceberg_manifest_file *mf,
			       floe_iceberg_manifest_entry **out, size_t *n)
{
	floe_buf data = FLOE_BUF_INIT;
	int error = -1;
	if (floe_iceberg_storage_read(floe_iceberg_table_storage(t), &data, mf->path) < 0 ||
	    floe_iceberg_manifest_read(out, n, arena, data.ptr, data.len, mf) < 0) {
		floe_error_context("while reading manifest \"%s\"", mf->path);
		goto cleanup;
	}
	error = 0;
cleanup:
	floe_buf_free(&data);
	return error;
}

int floe_iceberg_table_adopt(floe_iceberg_table *t, const char *location, const char *text,
			     size_t len)
{
	floe_arena *arena = floe_arena_new();
	floe_iceberg_metadata *m = NULL;
	if (floe_iceberg_metadata_parse(&m, arena, text, len) < 0) {
		floe_arena_free(arena);
		return floe_error_context("while reading table metadata \"%s\"", location);
	}
	floe_arena_free(t->arena);
	t->arena = arena;
	t->metadata = m;
	t->metadata_location = floe_arena_strdup(arena, location);
	return 0;
}

/* Read the metadata file at `location` and adopt it. */
static int load_metadata(floe_iceberg_table *t, const char *location)
{
	floe_buf text = FLOE_BUF_INIT;
	int error = -1;
	if (floe_iceberg_storage_read(floe_iceberg_table_storage(t), &text, location) < 0) {
		floe_error_context("while loading table %s", t->full_name);
		goto cleanup;
	}
	if (floe_iceberg_table_adopt(t, location, text.ptr, text.len) < 0) {
		floe_error_context("while loading table %s", t->full_name);
		goto cleanup;
	}
	error = 0;
cleanup:
	floe_buf_free(&text);
	return error;
}

static floe_iceberg_table *new_handle(floe_iceberg_catalog *catalog, const char *ns,
				      const char *name)
{
	floe_iceberg_table *t = floe_xcalloc(1, sizeof(*t));
	size_t len = strlen(ns) + strlen(name) + 2;
	t->catalog = catalog;
	t->ns = floe_xstrndup(ns, strlen(ns));
	t->name = floe_xstrndup(name, strlen(name));
	t->full_name = floe_xmalloc(len);
	snprintf(t->full_name, len, "%s.%s", ns, name);
	return t;
}

int floe_iceberg_table_refresh(floe_iceberg_table *t)
{
	floe_buf loc = FLOE_BUF_INIT;
	int found, error = -1;
	found = floe_iceberg_catalog_load(t->catalog, &loc, t->ns, t->name);
	if (found < 0)
		goto cleanup;
	if (found == 0) {
		floe_error_set(FLOE_ERR_CONFIG, "table %s does not exist", t->full_name);
		floe_error_hint("Check the name, or create the table first.");
		goto cleanup;
	}
	if (t->metadata_location && strcmp(t->metadata_location, floe_buf_cstr(&loc)) == 0) {
		error = 0; /* unchanged */
		goto cleanup;
	}
	error = load_metadata(t, floe_buf_cstr(&loc));
cleanup:
	floe_buf_free(&loc);
	return error;
}

int floe_iceberg_table_load(floe_iceberg_table **out, floe_iceberg_catalog *catalog,
			    const char *ns, const char *name)
{
	floe_iceberg_table *t = new_handle(catalog, ns, name);
	*out = NULL;
	if (floe_iceberg_table_refresh(t) < 0) {
		floe_iceberg_table_free(t);
		return -1;
	}
	*out = t;
	return 0;
}

void floe_iceberg_table_free(floe_iceberg_table *table)
{
	if (!table)
		return;
	floe_arena_free(table->arena);
	free(table->ns);
	free(table->name);
	free(table->full_name);
	free(table);
}

/* ---- create ---- */

const char *floe_iceberg_table_default_location(floe_arena *a, floe_iceberg_catalog *c,
					       const char *ns, const char *name)
{
	return floe_arena_printf(a, "%s/%s", floe_iceberg_catalog_namespace_location(a, c, ns), name);
}

static floe_iceberg_metadata *initial_metadata(floe_arena *a, const char *location,
					       floe_iceberg_schema *schema,
					       const floe_iceberg_create_opts *opts)
{
	floe_iceberg_metadata *m = floe_arena_alloc(a, sizeof(*m));
	m->format_version = FLOE_ICEBERG_FORMAT_VERSION;
	m->table_uuid = floe_iceberg_uuid(a);
	m->location = location;
	m->last_updated_ms = floe_iceberg_now_ms();
	m->last_column_id = floe_iceberg_schema_max_id(schema);
	m->n_schemas = 1;
	m->schemas = floe_arena_alloc(a, sizeof(*m->schemas));
	m->schemas[0] = schema;
	m->current_schema_id = schema->schema_id;
	m->n_specs = 1;
	m->specs = floe_arena_alloc(a, sizeof(*m->specs)); /* spec 0, unpartitioned */
	m->last_partition_id = FLOE_ICEBERG_PARTITION_FIELD_ID_START - 1;
	if (opts->spec) { /* the caller's, as spec 0 */
		m->specs[0] = *opts->spec;
		m->specs[0].spec_id = 0;
		for (size_t i = 0; i < opts->spec->n_fields; i++)
			if (opts->spec->fields[i].field_id > m->last_partition_id)
				m->last_partition_id = opts->spec->fields[i].field_id;
	}
	m->n_sort_orders = 1;
	m->sort_orders = floe_arena_alloc(a, sizeof(*m->sort_orders)); /* order 0, unsorted */
	if (opts->sort_order && opts->sort_order->n_fields) { /* the caller's, as order 1 */
		m->sort_orders[0] = *opts->sort_order;
		m->sort_orders[0].order_id = 1;
		m->default_sort_order_id = 1;
	}
	for (size_t i = 0; i < opts->n_properties; i++)
		floe_iceberg_metadata_set_property(m, a, opts->properties[i].key,
						   opts->properties[i].value);
	return m;
}

/* Write the first metadata file and register it; on a taken name remove the file. */
static int register_table(floe_iceberg_table *t, floe_arena *a, const floe_iceberg_metadata *m)
{
	floe_iceberg_storage *st = floe_iceberg_catalog_storage(t->catalog);
	floe_buf json = FLOE_BUF_INIT, now = FLOE_BUF_INIT;
	const char *uri = floe_iceberg_metadata_uri(
		a, m, floe_arena_printf(a, "00000-%s.metadata.json", floe_iceberg_uuid(a)));
	int error = -1;
	if (floe_iceberg_metadata_check(m) < 0 || floe_iceberg_metadata_write(&json, m) < 0 ||
	    floe_iceberg_storage_create(st, uri, json.ptr, json.len) < 0)
		goto cleanup;
	if (floe_iceberg_catalog_register(t->catalog, t->ns, t->name, uri) < 0) {
		/* Only delete the file when the catalog surely does not point at it. */
		const floe_error *e = floe_error_last();
		floe_error_class cls = e ? e->cls : FLOE_ERR_INTERNAL;
		if (cls == FLOE_ERR_EXISTS ||
		    (floe_iceberg_catalog_load(t->catalog, &now, t->ns, t->name) >= 0 &&
		     strcmp(floe_buf_cstr(&now), uri) != 0))
			floe_iceberg_storage_remove(st, uri);
		goto cleanup;
	}
	error = floe_iceberg_table_adopt(t, uri, json.ptr, json.len);
cleanup:
	floe_buf_free(&json);
	floe_buf_free(&now);
	return error;
}

/* A source column id of the caller's schema as the same top-level column's id in `fresh`. */
static int remap_source(int32_t *id, const floe_iceberg_schema *given, const floe_iceberg_schema *fresh)
{
	size_t found = given->n_fields;
	for (size_t i = 0; i < given->n_fields; i++)
		if (given->fields[i].id == *id) {
			if (found != given->n_fields)
				return floe_error_set(FLOE_ERR_USAGE, "column id %d appears twice in the schema", *id);
			found = i;
		}
	if (found == given->n_fields)
		return floe_error_set(FLOE_ERR_USAGE, "partition or sort source %d is not a top-level column "
				      "of the schema", *id);
	*id = fresh->fields[found].id;
	return 0;
}

/* With fresh ids, the partition spec and sort order follow their columns (copies in `a`). */
static int remap_spec_and_order(floe_arena *a, floe_iceberg_create_opts *o, const floe_iceberg_schema *given,
				const floe_iceberg_schema *fresh)
{
	if (o->spec && o->spec->n_fields) {
		floe_iceberg_partition_spec *s = floe_arena_alloc(a, sizeof(*s));
		*s = *o->spec;
		s->fields = floe_arena_alloc(a, s->n_fields * sizeof(*s->fields));
		memcpy(s->fields, o->spec->fields, s->n_fields * sizeof(*s->fields));
		for (size_t i = 0; i < s->n_fields; i++)
			if (remap_source(&s->fields[i].source_id, given, fresh) < 0)
				return -1;
		o->spec = s;
	}
	if (o->sort_order && o->sort_order->n_fields) {
		floe_iceberg_sort_order *so = floe_arena_alloc(a, sizeof(*so));
		*so = *o->sort_order;
		so->fields = floe_arena_alloc(a, so->n_fields * sizeof(*so->fields));
		memcpy(so->fields, o->sort_order->fields, so->n_fields * sizeof(*so->fields));
		for (size_t i = 0; i < so->n_fields; i++)
			if (remap_source(&so->fields[i].source_id, given, fresh) < 0)
				return -1;
		o->sort_order = so;
	}
	return 0;
}

int floe_iceberg_table_stage(floe_iceberg_metadata **out, floe_arena *a,
			     floe_iceberg_catalog *catalog, const char *ns, const char *name,
			     const floe_iceberg_schema *schema, const floe_iceberg_create_opts *opts)
{
	floe_iceberg_create_opts o = FLOE_ICEBERG_CREATE_OPTS_INIT;
	floe_iceberg_schema *s;
	*out = NULL;
	if (opts)
		o = *opts;
	if (floe_iceberg_check_name("namespace", ns, true) < 0 ||
	    floe_iceberg_check_name("table", name, false) < 0)
		return -1;
	s = floe_iceberg_schema_copy(a, schema);
	s->schema_id = 0;
	if (o.assign_ids) {
		int32_t last = 0;
		floe_iceberg_schema_assign_ids(s, &last);
		if (remap_spec_and_order(a, &o, schema, s) < 0)
			return -1;
	}
	if (floe_iceberg_schema_validate(s) < 0)
		return -1;
	const char *loc = o.location ? floe_iceberg_path_to_uri(a, o.location)
				     : floe_iceberg_table_default_location(a, catalog, ns, name);
	if (!loc)
		return -1;
	*out = initial_metadata(a, loc, s, &o);
	return 0;
}

int floe_iceberg_table_register_new(floe_iceberg_table **out, floe_iceberg_catalog *catalog,
				    const char *ns, const char *name, floe_arena *a,
				    const floe_iceberg_metadata *m)
{
	floe_iceberg_table *t = new_handle(catalog, ns, name);
	*out = NULL;
	if (register_table(t, a, m) < 0) {
		floe_iceberg_table_free(t);
		return -1;
	}
	*out = t;
	return 0;
}

int floe_iceberg_table_create(floe_iceberg_table **out, floe_iceberg_catalog *catalog,
			      const char *ns, const char *name, const floe_iceberg_schema *schema,
			      const floe_iceberg_create_opts *opts)
{
	floe_iceberg_create_opts defaults = FLOE_ICEBERG_CREATE_OPTS_INIT;
	floe_arena *a = floe_arena_new();
	floe_iceberg_metadata *m = NULL;
	bool ns_exists = false;
	int error = -1;
	*out = NULL;
	if (!opts)
		opts = &defaults;
	if (floe_iceberg_table_stage(&m, a, catalog, ns, name, schema, opts) < 0 ||
	    floe_iceberg_catalog_namespace_exists(catalog, ns, &ns_exists) < 0)
		goto cleanup;
	if (!ns_exists) {
		if (!opts->create_namespace) {
			floe_error_set(FLOE_ERR_CONFIG, "namespace \"%s\" does not exist", ns);
			goto cleanup;
		}
		if (floe_iceberg_catalog_create_namespace(catalog, ns, NULL, 0) < 0)
			goto cleanup;
	}
	error = floe_iceberg_table_register_new(out, catalog, ns, name, a, m);
cleanup:
	if (error < 0)
		floe_error_context("while creating table %s.%s", ns ? ns : "", name ? name : "");
	floe_arena_free(a);
	return error;
}

/* ---- accessors ---- */

const floe_iceberg_metadata *floe_iceberg_table_metadata(const floe_iceberg_table *table)
{
	return table->metadata;
}

const char *floe_iceberg_table_metadata_location(const floe_iceberg_table *table)
{
	return table->metadata_location;
}

const char *floe_iceberg_table_location(const floe_iceberg_table *table)
{
	return table->metadata->location;
}

const char *floe_iceberg_table_name(const floe_iceberg_table *table)
{
	return table->full_name;
}

floe_iceberg_storage *floe_iceberg_table_storage(floe_iceberg_table *table)
{
	return floe_iceberg_catalog_storage(table->catalog);
}

int64_t floe_iceberg_table_find_snapshot(const floe_iceberg_table *table, const char *key,
					 const char *value)
{
	const floe_iceberg_metadata *m = table->metadata;
	for (size_t i = m->n_snapshots; i-- > 0;) {
		const char *v = floe_iceberg_snapshot_summary(&m->snapshots[i], key);
		if (v && strcmp(v, value) == 0)
			return m->snapshots[i].snapshot_id;
	}
	return -1;
}
