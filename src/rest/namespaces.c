/*
 * namespaces.c — /v1/namespaces: list (children of `parent`, paged), create, load,
 * exists (HEAD), drop when empty, and property updates.
 */
#include "rest/rest_int.h"

#include "base/error.h"

#include <stdlib.h>
#include <string.h>

const char *rest_query(const rest_call *c, const char *name)
{
	return c->req->query ? c->req->query(c->req->query_ctx, name) : NULL;
}

static bool parse_count(const char *text, size_t *out)
{
	char *end = NULL;
	if (!text || !*text || *text == '-' || *text == '+')
		return false;
	unsigned long long v = strtoull(text, &end, 10);
	if (*end || v > 1000000000ULL)
		return false;
	*out = (size_t)v;
	return true;
}

bool rest_page(rest_call *c, size_t n, size_t *from, size_t *to, const char **next)
{
	const char *token = rest_query(c, "pageToken"), *size = rest_query(c, "pageSize");
	size_t page = n;
	*from = 0;
	*next = NULL;
	if ((token && *token && !parse_count(token, from)) || (size && (!parse_count(size, &page) || page == 0))) {
		rest_error(c, 400, "BadRequestException", "pageToken must be a token this catalog returned and "
			   "pageSize a positive integer");
		return false;
	}
	if (*from > n)
		*from = n;
	*to = n - *from > page ? *from + page : n;
	if (*to < n)
		*next = floe_arena_printf(c->arena, "%zu", *to);
	return true;
}

/* The distinct children of `parent` (NULL: top level) among the dot-joined names. */
static size_t children(rest_call *c, const char **names, size_t n, const char *parent, const char ***out)
{
	size_t plen = parent ? strlen(parent) : 0, k = 0;
	*out = floe_arena_alloc(c->arena, (n + 1) * sizeof(**out));
	for (size_t i = 0; i < n; i++) {
		const char *rest = names[i];
		if (parent) {
			if (strncmp(rest, parent, plen) != 0 || rest[plen] != '.')
				continue;
			rest += plen + 1;
		}
		const char *dot = strchr(rest, '.');
		const char *child = floe_arena_strndup(c->arena, names[i],
						       (size_t)((dot ? dot : rest + strlen(rest)) - names[i]));
		if (k == 0 || strcmp((*out)[k - 1], child) != 0)
			(*out)[k++] = child;
	}
	return k;
}

static void list(rest_call *c)
{
	const char *parent = rest_query(c, "parent"), **names = NULL, **kids = NULL, *next = NULL;
	size_t n = 0, from, to;
	if (parent && *parent) {
		if (!(parent = rest_namespace(c, parent)) || rest_require_namespace(c, parent) <= 0)
			return;
	} else {
		parent = NULL;
	}
	if (!rest_catalog(c))
		return;
	if (floe_iceberg_catalog_list_namespaces(c->catalog, c->arena, &names, &n) < 0)
		return rest_fail(c, NULL);
	n = children(c, names, n, parent, &kids);
	if (!rest_page(c, n, &from, &to, &next))
		return;
	floe_buf *b = &c->res->body;
	floe_buf_puts(b, "{\"namespaces\":[");
	for (size_t i = from; i < to; i++) {
		if (i > from)
			floe_buf_putc(b, ',');
		rest_put_namespace(b, kids[i]);
	}
	floe_buf_putc(b, ']');
	if (next)
		floe_json_put_member(b, "next-page-token", next);
	floe_buf_putc(b, '}');
}

/* A JSON object of string values as key/value pairs; false (400 set) when it is not one. */
static bool read_props(rest_call *c, const floe_json_value *obj, floe_iceberg_kv **out, size_t *n)
{
	*n = floe_json_count(obj);
	*out = floe_arena_alloc(c->arena, (*n + 1) * sizeof(**out));
	if (obj && floe_json_type_of(obj) != FLOE_JSON_OBJECT)
		goto bad;
	for (size_t i = 0; i < *n; i++) {
		floe_slice k = floe_json_key_at(obj, i);
		const floe_json_value *v = floe_json_value_at(obj, i);
		if (floe_json_type_of(v) != FLOE_JSON_STRING || k.len == 0 || memchr(k.ptr, '\0', k.len) ||
		    memchr(floe_json_string(v).ptr, '\0', floe_json_string(v).len))
			goto bad;
		(*out)[i].key = floe_arena_strndup(c->arena, k.ptr, k.len);
		(*out)[i].value = floe_arena_strndup(c->arena, floe_json_string(v).ptr, floe_json_string(v).len);
	}
	return true;
bad:
	rest_error(c, 400, "BadRequestException", "properties must be an object of non-empty names and "
		   "string values");
	return false;
}

/* The properties as an object, with "location" = `location` appended when it is not NULL. */
static void put_props(floe_buf *b, const floe_iceberg_kv *kv, size_t n, const char *location)
{
	floe_buf_putc(b, '{');
	for (size_t i = 0; i < n; i++)
		floe_json_put_member(b, kv[i].key, kv[i].value);
	if (location)
		floe_json_put_member(b, "location", location);
	floe_buf_putc(b, '}');
}

/*
 * {"namespace": [...], "properties": {...}}: what load and create answer. Unless the namespace
 * sets its own, "location" says where its tables go by default, as Java's catalogs answer: Trino
 * places a new table at <location>/<name>-<uuid> and stage-creates it there; without it, Trino
 * creates the table outright and then refuses its own non-empty location.
 */
static void put_namespace(rest_call *c, const char *ns, const floe_iceberg_kv *kv, size_t n)
{
	const char *location = floe_iceberg_catalog_namespace_location(c->arena, c->catalog, ns);
	for (size_t i = 0; i < n; i++)
		if (strcmp(kv[i].key, "location") == 0)
			location = NULL;
	floe_buf_puts(&c->res->body, "{\"namespace\":");
	rest_put_namespace(&c->res->body, ns);
	floe_buf_puts(&c->res->body, ",\"properties\":");
	put_props(&c->res->body, kv, n, location);
	floe_buf_putc(&c->res->body, '}');
}

static void load(rest_call *c, const char *ns)
{
	floe_iceberg_kv *kv = NULL;
	size_t n = 0;
	if (rest_require_namespace(c, ns) <= 0)
		return;
	if (floe_iceberg_catalog_namespace_properties(c->catalog, ns, c->arena, &kv, &n) < 0)
		return rest_fail(c, NULL);
	put_namespace(c, ns, kv, n);
}

static void create(rest_call *c)
{
	const floe_json_value *body = rest_body(c);
	floe_iceberg_kv *kv = NULL;
	const char *ns;
	size_t n = 0;
	bool exists = false;
	if (!body || !(ns = rest_namespace_json(c, floe_json_get(body, "namespace"))) ||
	    !read_props(c, floe_json_get(body, "properties"), &kv, &n) || !rest_catalog(c))
		return;
	for (size_t i = 0; i < n; i++)
		if (strcmp(kv[i].key, "exists") == 0)
			return rest_error(c, 400, "BadRequestException", "namespace property \"exists\" is reserved");
	if (floe_iceberg_catalog_namespace_exists(c->catalog, ns, &exists) < 0)
		return rest_fail(c, NULL);
	if (exists)
		return rest_error(c, 409, "AlreadyExistsException", "namespace \"%s\" already exists", ns);
	if (floe_iceberg_catalog_create_namespace(c->catalog, ns, kv, n) < 0)
		return rest_fail(c, NULL);
	put_namespace(c, ns, kv, n);
}

static void drop(rest_call *c, const char *ns)
{
	if (rest_require_namespace(c, ns) <= 0)
		return;
	if (floe_iceberg_catalog_drop_namespace(c->catalog, ns) < 0) {
		const floe_error *e = floe_error_last();
		if (e && e->cls == FLOE_ERR_CONFLICT)
			return rest_error(c, 409, "NamespaceNotEmptyException", "%s",
					  floe_arena_strdup(c->arena, e->message));
		return rest_fail(c, NULL);
	}
	c->res->status = 204;
}

/* Names listed in a JSON array of strings; false (400 set) otherwise. */
static bool read_names(rest_call *c, const floe_json_value *arr, const char ***out, size_t *n)
{
	*n = floe_json_count(arr);
	*out = floe_arena_alloc(c->arena, (*n + 1) * sizeof(**out));
	if (arr && floe_json_type_of(arr) != FLOE_JSON_ARRAY)
		*n = (size_t)-1;
	for (size_t i = 0; *n != (size_t)-1 && i < *n; i++) {
		const floe_json_value *v = floe_json_value_at(arr, i);
		if (floe_json_type_of(v) != FLOE_JSON_STRING) {
			*n = (size_t)-1;
			break;
		}
		(*out)[i] = floe_arena_strdup(c->arena, floe_json_string(v).ptr);
	}
	if (*n != (size_t)-1)
		return true;
	rest_error(c, 400, "BadRequestException", "\"removals\" must be an array of strings");
	return false;
}

static bool has_key(const floe_iceberg_kv *kv, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(kv[i].key, key) == 0)
			return true;
	return false;
}

static void put_names(floe_buf *b, const char *key, const char **names, size_t n)
{
	floe_buf_printf(b, "%s\"%s\":[", b->len && b->ptr[b->len - 1] == '{' ? "" : ",", key);
	for (size_t i = 0; i < n; i++) {
		if (i)
			floe_buf_putc(b, ',');
		floe_json_put_cstr(b, names[i]);
	}
	floe_buf_putc(b, ']');
}

static void update_props(rest_call *c, const char *ns)
{
	const floe_json_value *body = rest_body(c);
	floe_iceberg_kv *set = NULL, *old = NULL;
	const char **remove = NULL, **removed, **missing;
	size_t n_set = 0, n_remove = 0, n_old = 0, n_removed = 0, n_missing = 0;
	if (!body || !read_props(c, floe_json_get(body, "updates"), &set, &n_set) ||
	    !read_names(c, floe_json_get(body, "removals"), &remove, &n_remove) ||
	    rest_require_namespace(c, ns) <= 0)
		return;
	for (size_t i = 0; i < n_remove; i++)
		if (has_key(set, n_set, remove[i]))
			return rest_error(c, 422, "UnprocessableEntityException", "property \"%s\" is both set "
					  "and removed", remove[i]);
	if (floe_iceberg_catalog_namespace_properties(c->catalog, ns, c->arena, &old, &n_old) < 0 ||
	    floe_iceberg_catalog_update_namespace(c->catalog, ns, set, n_set, remove, n_remove) < 0)
		return rest_fail(c, NULL);
	removed = floe_arena_alloc(c->arena, (n_remove + 1) * sizeof(*removed));
	missing = floe_arena_alloc(c->arena, (n_remove + 1) * sizeof(*missing));
	for (size_t i = 0; i < n_remove; i++) {
		if (has_key(old, n_old, remove[i]))
			removed[n_removed++] = remove[i];
		else
			missing[n_missing++] = remove[i];
	}
	const char **updated = floe_arena_alloc(c->arena, (n_set + 1) * sizeof(*updated));
	for (size_t i = 0; i < n_set; i++)
		updated[i] = set[i].key;
	floe_buf_putc(&c->res->body, '{');
	put_names(&c->res->body, "updated", updated, n_set);
	put_names(&c->res->body, "removed", removed, n_removed);
	put_names(&c->res->body, "missing", missing, n_missing);
	floe_buf_putc(&c->res->body, '}');
}

void rest_namespaces(rest_call *c)
{
	const char *m = c->req->method, *ns;
	if (c->n_seg == 1) {
		if (!strcmp(m, "GET") || !strcmp(m, "HEAD"))
			return list(c);
		if (!strcmp(m, "POST"))
			return create(c);
	} else if (!(ns = rest_namespace(c, c->seg[1]))) {
		return;
	} else if (c->n_seg == 2) {
		if (!strcmp(m, "GET"))
			return load(c, ns);
		if (!strcmp(m, "HEAD")) {
			if (rest_require_namespace(c, ns) > 0)
				c->res->status = 204;
			return;
		}
		if (!strcmp(m, "DELETE"))
			return drop(c, ns);
	} else if (strcmp(c->seg[2], "properties") == 0) {
		if (!strcmp(m, "POST"))
			return update_props(c, ns);
	} else {
		return rest_error(c, 404, "NoSuchEndpointException", "no such endpoint (see GET /v1/config)");
	}
	rest_error(c, 405, "MethodNotAllowedException", "%s is not allowed here (see GET /v1/config)", m);
}
