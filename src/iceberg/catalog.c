/*
 * catalog.c — the catalog handle: ops dispatch, the storage and warehouse it
 * carries, and name checks shared by every backend.
 */
#include "iceberg/catalog.h"

#include "base/error.h"

#include <stdlib.h>
#include <string.h>

struct floe_iceberg_catalog {
	const floe_iceberg_catalog_ops *ops;
	void *state;
	floe_iceberg_storage *storage;
	char *warehouse;
};

floe_iceberg_catalog *floe_iceberg_catalog_new(const floe_iceberg_catalog_ops *ops, void *state,
					       floe_iceberg_storage *storage,
					       const char *warehouse_uri)
{
	floe_iceberg_catalog *c = floe_xcalloc(1, sizeof(*c));
	size_t len = strlen(warehouse_uri);
	while (len > 1 && warehouse_uri[len - 1] == '/')
		len--;
	c->ops = ops;
	c->state = state;
	c->storage = storage;
	c->warehouse = floe_xstrndup(warehouse_uri, len);
	return c;
}

void floe_iceberg_catalog_free(floe_iceberg_catalog *catalog)
{
	if (!catalog)
		return;
	if (catalog->ops->close)
		catalog->ops->close(catalog->state);
	floe_iceberg_storage_free(catalog->storage);
	free(catalog->warehouse);
	free(catalog);
}

floe_iceberg_storage *floe_iceberg_catalog_storage(floe_iceberg_catalog *catalog)
{
	return catalog->storage;
}

const char *floe_iceberg_catalog_warehouse(const floe_iceberg_catalog *catalog)
{
	return catalog->warehouse;
}

const char *floe_iceberg_catalog_namespace_location(floe_arena *arena, const floe_iceberg_catalog *catalog,
						    const char *ns)
{
	char *levels = floe_arena_strdup(arena, ns);
	for (char *p = levels; *p; p++)
		if (*p == '.')
			*p = '/';
	return floe_arena_printf(arena, "%s/%s", catalog->warehouse, levels);
}

int floe_iceberg_check_name(const char *what, const char *name, bool dots_allowed)
{
	size_t len = name ? strlen(name) : 0;
	bool bad = len == 0 || len > 255;
	for (size_t i = 0; i < len && !bad; i++) {
		unsigned char ch = (unsigned char)name[i];
		bad = ch < 0x20 || ch == 0x7F || ch == '/' || (ch == '.' && !dots_allowed) ||
		      (ch == '.' && (i == 0 || i + 1 == len || name[i + 1] == '.'));
	}
	if (!bad)
		return 0;
	floe_error_set(FLOE_ERR_USAGE, "invalid %s name \"%s\"", what, name ? name : "");
	floe_error_detail("A %s name is 1 to 255 characters without '/' or control characters%s.",
			  what, dots_allowed ? ", with '.' only between levels" : " and without '.'");
	return -1;
}

int floe_iceberg_catalog_load(floe_iceberg_catalog *c, floe_buf *out, const char *ns,
			      const char *table)
{
	return c->ops->load(c->state, out, ns, table);
}

int floe_iceberg_catalog_register(floe_iceberg_catalog *c, const char *ns, const char *table,
				  const char *metadata_location)
{
	if (floe_iceberg_check_name("namespace", ns, true) < 0 ||
	    floe_iceberg_check_name("table", table, false) < 0)
		return -1;
	return c->ops->create(c->state, ns, table, metadata_location);
}

int floe_iceberg_catalog_swap(floe_iceberg_catalog *c, const char *ns, const char *table,
			      const char *expected, const char *next,
			      floe_iceberg_swap_outcome *outcome)
{
	return c->ops->swap(c->state, ns, table, expected, next, outcome);
}

int floe_iceberg_catalog_drop(floe_iceberg_catalog *c, const char *ns, const char *table)
{
	return c->ops->drop(c->state, ns, table);
}

int floe_iceberg_catalog_create_namespace(floe_iceberg_catalog *c, const char *ns,
					  const floe_iceberg_kv *props, size_t n)
{
	if (floe_iceberg_check_name("namespace", ns, true) < 0)
		return -1;
	return c->ops->create_namespace(c->state, ns, props, n);
}

int floe_iceberg_catalog_namespace_exists(floe_iceberg_catalog *c, const char *ns, bool *out)
{
	return c->ops->namespace_exists(c->state, ns, out);
}

int floe_iceberg_catalog_list_namespaces(floe_iceberg_catalog *c, floe_arena *arena,
					 const char ***out, size_t *n)
{
	return c->ops->list_namespaces(c->state, arena, out, n);
}

int floe_iceberg_catalog_list_tables(floe_iceberg_catalog *c, const char *ns, floe_arena *arena,
				     const char ***out, size_t *n)
{
	return c->ops->list_tables(c->state, ns, arena, out, n);
}

bool floe_iceberg_catalog_holds(floe_iceberg_catalog *c, const char *location)
{
	floe_arena *a = floe_arena_new();
	char *w = floe_arena_strdup(a, floe_iceberg_uri_key(a, c->warehouse));
	const char *l = floe_iceberg_uri_key(a, location);
	size_t n = strlen(w);
	while (n > 0 && w[n - 1] == '/')
		w[--n] = '\0';
	bool ok = strncmp(l, w, n) == 0 && l[n] == '/' && l[n + 1] != '\0';
	for (const char *p = l + n; ok && *p; p++) {
		if (*p != '/')
			continue;
		size_t seg = strcspn(p + 1, "/");
		ok = seg != 0 && !(seg == 1 && p[1] == '.') && !(seg == 2 && p[1] == '.' && p[2] == '.');
	}
	floe_arena_free(a);
	return ok;
}

static int unsupported(const floe_iceberg_catalog *c, const char *what)
{
	floe_error_set(FLOE_ERR_USAGE, "the %s catalog cannot %s", c->ops->name, what);
	return -1;
}

int floe_iceberg_catalog_rename(floe_iceberg_catalog *c, const char *ns, const char *table,
				const char *to_ns, const char *to_table)
{
	if (!c->ops->rename)
		return unsupported(c, "rename tables");
	if (floe_iceberg_check_name("namespace", to_ns, true) < 0 ||
	    floe_iceberg_check_name("table", to_table, false) < 0)
		return -1;
	return c->ops->rename(c->state, ns, table, to_ns, to_table);
}

int floe_iceberg_catalog_namespace_properties(floe_iceberg_catalog *c, const char *ns,
					      floe_arena *arena, floe_iceberg_kv **out, size_t *n)
{
	if (!c->ops->namespace_properties)
		return unsupported(c, "read namespace properties");
	return c->ops->namespace_properties(c->state, ns, arena, out, n);
}

int floe_iceberg_catalog_update_namespace(floe_iceberg_catalog *c, const char *ns,
					  const floe_iceberg_kv *set, size_t n_set,
					  const char *const *remove, size_t n_remove)
{
	if (!c->ops->update_namespace)
		return unsupported(c, "update namespace properties");
	for (size_t i = 0; i < n_set; i++)
		if (strcmp(set[i].key, "exists") == 0)
			return floe_error_set(FLOE_ERR_USAGE, "namespace property \"exists\" is reserved");
	for (size_t i = 0; i < n_remove; i++)
		if (strcmp(remove[i], "exists") == 0)
			return floe_error_set(FLOE_ERR_USAGE, "namespace property \"exists\" is reserved");
	return c->ops->update_namespace(c->state, ns, set, n_set, remove, n_remove);
}

int floe_iceberg_catalog_drop_namespace(floe_iceberg_catalog *c, const char *ns)
{
	floe_arena *a = floe_arena_new();
	const char **names = NULL;
	size_t n = 0;
	if (!c->ops->drop_namespace || !c->ops->list_tables) {
		floe_arena_free(a);
		return unsupported(c, "drop namespaces");
	}
	int rc = c->ops->list_tables(c->state, ns, a, &names, &n);
	if (rc == 0 && n > 0)
		rc = floe_error_set(FLOE_ERR_CONFLICT, "namespace \"%s\" is not empty: it holds %zu table%s",
				    ns, n, n == 1 ? "" : "s");
	if (rc == 0)
		rc = c->ops->drop_namespace(c->state, ns);
	floe_arena_free(a);
	return rc;
}
