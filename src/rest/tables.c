/*
 * tables.c — /v1/namespaces/{ns}/tables…: list (paged), create (and stage-create), load,
 * exists (HEAD), commit (requirements and updates, through src/iceberg's compare-and-swap),
 * drop (with or without purge), metrics reports; and /v1/tables/rename.
 */
#include "rest/rest_int.h"

#include "base/error.h"
#include "iceberg/table.h"
#include "iceberg/update.h"

#include <string.h>

static const char *table_name(rest_call *c, const char *segment)
{
	if (floe_iceberg_check_name("table", segment, false) == 0)
		return segment;
	rest_fail(c, NULL);
	return NULL;
}

/* {"metadata-location": …, "metadata": {…}[, "config": {}]}; location NULL: staged, not written. */
static void put_result(rest_call *c, const char *location, const floe_iceberg_metadata *m, bool config)
{
	floe_buf *b = &c->res->body;
	floe_buf_clear(b);
	floe_buf_putc(b, '{');
	if (location)
		floe_json_put_member(b, "metadata-location", location);
	floe_buf_puts(b, location ? ",\"metadata\":" : "\"metadata\":");
	if (floe_iceberg_metadata_write(b, m) < 0)
		return rest_error(c, 500, "ServiceFailureException", "the table metadata is too large to send");
	floe_buf_puts(b, config ? ",\"config\":{}}" : "}");
}

static void put_load_result(rest_call *c, const char *location, const floe_iceberg_metadata *m)
{
	put_result(c, location, m, true);
}

/* 1 the table exists, 0 not (404 set), -1 error (set). */
static int table_exists(rest_call *c, const char *ns, const char *name)
{
	floe_buf loc = FLOE_BUF_INIT;
	int found = floe_iceberg_catalog_load(c->catalog, &loc, ns, name);
	floe_buf_free(&loc);
	if (found < 0)
		rest_fail(c, NULL);
	else if (found == 0)
		rest_error(c, 404, "NoSuchTableException", "table \"%s.%s\" does not exist", ns, name);
	return found;
}

static void list(rest_call *c, const char *ns)
{
	const char **names = NULL, *next = NULL;
	size_t n = 0, from, to;
	if (rest_require_namespace(c, ns) <= 0)
		return;
	if (floe_iceberg_catalog_list_tables(c->catalog, ns, c->arena, &names, &n) < 0)
		return rest_fail(c, NULL);
	if (!rest_page(c, n, &from, &to, &next))
		return;
	floe_buf *b = &c->res->body;
	floe_buf_puts(b, "{\"identifiers\":[");
	for (size_t i = from; i < to; i++) {
		floe_buf_puts(b, i > from ? ",{\"namespace\":" : "{\"namespace\":");
		rest_put_namespace(b, ns);
		floe_buf_puts(b, ",\"name\":");
		floe_json_put_cstr(b, names[i]);
		floe_buf_putc(b, '}');
	}
	floe_buf_putc(b, ']');
	if (next)
		floe_json_put_member(b, "next-page-token", next);
	floe_buf_putc(b, '}');
}

/* The create request's optional pieces into `o`; false (400 set) when one is malformed. */
static bool create_opts(rest_call *c, const floe_json_value *body, floe_iceberg_create_opts *o)
{
	const floe_json_value *spec = floe_json_get(body, "partition-spec");
	const floe_json_value *order = floe_json_get(body, "write-order");
	const floe_json_value *props = floe_json_get(body, "properties");
	const floe_json_value *loc = floe_json_get(body, "location");
	if (spec && floe_json_type_of(spec) != FLOE_JSON_NULL) {
		floe_iceberg_partition_spec *s = floe_arena_alloc(c->arena, sizeof(*s));
		if (floe_iceberg_spec_from_json(s, c->arena, spec) < 0)
			goto bad;
		o->spec = s;
	}
	if (order && floe_json_type_of(order) != FLOE_JSON_NULL) {
		floe_iceberg_sort_order *s = floe_arena_alloc(c->arena, sizeof(*s));
		if (floe_iceberg_sort_order_from_json(s, c->arena, order) < 0)
			goto bad;
		o->sort_order = s;
	}
	if (loc && floe_json_type_of(loc) == FLOE_JSON_STRING && floe_json_string(loc).len)
		o->location = floe_json_string(loc).ptr;
	if (props && floe_json_type_of(props) == FLOE_JSON_OBJECT) {
		floe_iceberg_kv *kv = floe_arena_alloc(c->arena, (floe_json_count(props) + 1) * sizeof(*kv));
		for (size_t i = 0; i < floe_json_count(props); i++) {
			const floe_json_value *v = floe_json_value_at(props, i);
			if (floe_json_type_of(v) != FLOE_JSON_STRING) {
				floe_error_set(FLOE_ERR_USAGE, "table properties must be strings");
				goto bad;
			}
			kv[i].key = floe_json_key_at(props, i).ptr;
			kv[i].value = floe_json_string(v).ptr;
		}
		o->properties = kv;
		o->n_properties = floe_json_count(props);
	}
	return true;
bad:
	rest_error(c, 400, "BadRequestException", "the create request is malformed: %s",
		   floe_error_last() && floe_error_last()->message ? floe_error_last()->message : "?");
	return false;
}

static void create(rest_call *c, const char *ns)
{
	const floe_json_value *body = rest_body(c), *jname, *stage;
	floe_iceberg_create_opts o = FLOE_ICEBERG_CREATE_OPTS_INIT;
	floe_iceberg_schema *schema = NULL;
	floe_iceberg_table *t = NULL;
	const char *name;
	if (!body)
		return;
	jname = floe_json_get(body, "name");
	if (!jname || floe_json_type_of(jname) != FLOE_JSON_STRING)
		return rest_error(c, 400, "BadRequestException", "the create request has no \"name\"");
	if (!(name = table_name(c, floe_json_string(jname).ptr)))
		return;
	if (floe_iceberg_schema_from_json(&schema, c->arena, floe_json_get(body, "schema")) < 0)
		return rest_error(c, 400, "BadRequestException", "the create request's schema is invalid: %s",
				  floe_arena_strdup(c->arena, floe_error_last()->message));
	if (!create_opts(c, body, &o) || rest_require_namespace(c, ns) <= 0)
		return;
	const char *loc = o.location ? floe_iceberg_path_to_uri(c->arena, o.location) : NULL;
	if (o.location && (!loc || !floe_iceberg_catalog_holds(c->catalog, loc)))
		return rest_error(c, 400, "BadRequestException", "table location \"%s\" is outside the warehouse "
				  "\"%s\"; leave it out and floe places the table there", o.location,
				  floe_iceberg_catalog_warehouse(c->catalog));
	o.create_namespace = false;
	o.assign_ids = true; /* as Java's catalogs do: Spark sends ids from 0, PyIceberg fresh ones already */
	stage = floe_json_get(body, "stage-create");
	if (stage && floe_json_type_of(stage) == FLOE_JSON_BOOL && floe_json_bool(stage)) {
		floe_iceberg_metadata *m = NULL;
		if (floe_iceberg_table_stage(&m, c->arena, c->catalog, ns, name, schema, &o) < 0)
			return rest_fail(c, NULL);
		return put_load_result(c, NULL, m);
	}
	if (floe_iceberg_table_create(&t, c->catalog, ns, name, schema, &o) < 0)
		return rest_fail(c, "NoSuchNamespaceException");
	put_load_result(c, floe_iceberg_table_metadata_location(t), floe_iceberg_table_metadata(t));
	floe_iceberg_table_free(t);
}

static void load(rest_call *c, const char *ns, const char *name)
{
	floe_iceberg_table *t = NULL;
	if (table_exists(c, ns, name) <= 0)
		return;
	if (floe_iceberg_table_load(&t, c->catalog, ns, name) < 0)
		return rest_fail(c, "NoSuchTableException");
	put_load_result(c, floe_iceberg_table_metadata_location(t), floe_iceberg_table_metadata(t));
	floe_iceberg_table_free(t);
}

static bool asserts_create(const floe_json_value *reqs)
{
	for (size_t i = 0; i < floe_json_count(reqs); i++) {
		const floe_json_value *type = floe_json_get(floe_json_value_at(reqs, i), "type");
		if (type && floe_json_type_of(type) == FLOE_JSON_STRING &&
		    strcmp(floe_json_string(type).ptr, "assert-create") == 0)
			return true;
	}
	return false;
}

static void commit(rest_call *c, const char *ns, const char *name)
{
	const floe_json_value *body = rest_body(c), *reqs, *updates;
	floe_iceberg_table *t = NULL;
	floe_buf loc = FLOE_BUF_INIT;
	int found;
	if (!body)
		return;
	reqs = floe_json_get(body, "requirements");
	updates = floe_json_get(body, "updates");
	if ((reqs && floe_json_type_of(reqs) != FLOE_JSON_ARRAY) || !updates ||
	    floe_json_type_of(updates) != FLOE_JSON_ARRAY)
		return rest_error(c, 400, "BadRequestException", "a commit needs \"requirements\" and \"updates\" arrays");
	found = floe_iceberg_catalog_load(c->catalog, &loc, ns, name);
	floe_buf_free(&loc);
	if (found < 0)
		return rest_fail(c, NULL);
	if (found == 0 && !asserts_create(reqs))
		return rest_error(c, 404, "NoSuchTableException", "table \"%s.%s\" does not exist", ns, name);
	if (found == 0) { /* a staged create's commit */
		if (rest_require_namespace(c, ns) <= 0)
			return;
		if (floe_iceberg_table_create_from_updates(&t, c->catalog, ns, name, reqs, updates) < 0)
			return rest_fail(c, NULL);
	} else if (floe_iceberg_table_load(&t, c->catalog, ns, name) < 0 ||
		   floe_iceberg_table_commit_updates(t, reqs, updates) < 0) {
		floe_iceberg_table_free(t);
		return rest_fail(c, "NoSuchTableException");
	}
	put_result(c, floe_iceberg_table_metadata_location(t), floe_iceberg_table_metadata(t), false);
	floe_iceberg_table_free(t);
}

static void drop(rest_call *c, const char *ns, const char *name)
{
	const char *purge = rest_query(c, "purgeRequested");
	if (table_exists(c, ns, name) <= 0)
		return;
	if ((purge && strcmp(purge, "true") == 0 ? floe_iceberg_table_purge(c->catalog, ns, name)
						  : floe_iceberg_catalog_drop(c->catalog, ns, name)) < 0)
		return rest_fail(c, "NoSuchTableException");
	c->res->status = 204;
}

void rest_tables(rest_call *c)
{
	const char *m = c->req->method, *ns = rest_namespace(c, c->seg[1]), *name;
	if (!ns || !rest_catalog(c))
		return;
	if (c->n_seg == 3) {
		if (!strcmp(m, "GET") || !strcmp(m, "HEAD"))
			return list(c, ns);
		if (!strcmp(m, "POST"))
			return create(c, ns);
		return rest_error(c, 405, "MethodNotAllowedException", "%s is not allowed here", m);
	}
	if (!(name = table_name(c, c->seg[3])))
		return;
	if (c->n_seg == 5 && strcmp(c->seg[4], "metrics") == 0 && !strcmp(m, "POST")) {
		if (table_exists(c, ns, name) > 0)
			c->res->status = 204; /* reports are accepted and not kept */
		return;
	}
	if (c->n_seg != 4)
		return rest_error(c, 404, "NoSuchEndpointException", "no such endpoint (see GET /v1/config)");
	if (!strcmp(m, "GET"))
		return load(c, ns, name);
	if (!strcmp(m, "HEAD")) {
		if (table_exists(c, ns, name) > 0)
			c->res->status = 204;
		return;
	}
	if (!strcmp(m, "POST"))
		return commit(c, ns, name);
	if (!strcmp(m, "DELETE"))
		return drop(c, ns, name);
	rest_error(c, 405, "MethodNotAllowedException", "%s is not allowed here", m);
}

/* {"namespace": [...], "name": "..."} into ns and name; false (400 set) otherwise. */
static bool identifier(rest_call *c, const floe_json_value *id, const char **ns, const char **name)
{
	const floe_json_value *n = floe_json_get(id, "name");
	if (!n || floe_json_type_of(n) != FLOE_JSON_STRING) {
		rest_error(c, 400, "BadRequestException", "a table identifier needs \"namespace\" and \"name\"");
		return false;
	}
	return (*ns = rest_namespace_json(c, floe_json_get(id, "namespace"))) &&
	       (*name = table_name(c, floe_json_string(n).ptr));
}

void rest_rename(rest_call *c)
{
	const floe_json_value *body;
	const char *ns, *name, *to_ns, *to_name;
	if (strcmp(c->req->method, "POST") != 0)
		return rest_error(c, 405, "MethodNotAllowedException", "/v1/tables/rename answers POST only");
	if (!(body = rest_body(c)) || !identifier(c, floe_json_get(body, "source"), &ns, &name) ||
	    !identifier(c, floe_json_get(body, "destination"), &to_ns, &to_name) || !rest_catalog(c) ||
	    table_exists(c, ns, name) <= 0 || rest_require_namespace(c, to_ns) <= 0)
		return;
	if (floe_iceberg_catalog_rename(c->catalog, ns, name, to_ns, to_name) < 0)
		return rest_fail(c, "NoSuchTableException");
	c->res->status = 204;
}
