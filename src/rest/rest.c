/*
 * rest.c — the entry point of the REST catalog: the path split into segments, the
 * routes, GET /v1/config, and the error model every answer uses.
 */
#include "rest/rest_int.h"

#include "base/error.h"
#include "base/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Exactly what this catalog answers; clients call nothing else (views are not among them). */
static const char *const endpoints[] = {
	"GET /v1/{prefix}/namespaces",
	"POST /v1/{prefix}/namespaces",
	"GET /v1/{prefix}/namespaces/{namespace}",
	"HEAD /v1/{prefix}/namespaces/{namespace}",
	"DELETE /v1/{prefix}/namespaces/{namespace}",
	"POST /v1/{prefix}/namespaces/{namespace}/properties",
	"GET /v1/{prefix}/namespaces/{namespace}/tables",
	"POST /v1/{prefix}/namespaces/{namespace}/tables",
	"GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
	"HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}",
	"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}",
	"DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}",
	"POST /v1/{prefix}/tables/rename",
	"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics",
};

void rest_error(rest_call *c, int status, const char *type, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	const floe_error *e = floe_error_last();
	floe_buf *b = &c->res->body;
	floe_buf_clear(b);
	c->res->status = status;
	floe_buf_puts(b, "{\"error\":{\"message\":");
	if (e && e->hint)
		floe_json_put_cstr(b, floe_arena_printf(c->arena, "%s (hint: %s)", msg, e->hint));
	else
		floe_json_put_cstr(b, msg);
	floe_buf_puts(b, ",\"type\":");
	floe_json_put_cstr(b, type);
	floe_buf_printf(b, ",\"code\":%d}}", status);
	floe_error_clear();
}

void rest_fail(rest_call *c, const char *not_found_type)
{
	const floe_error *e = floe_error_last();
	const char *msg = e && e->message ? floe_arena_strdup(c->arena, e->message) : "internal error";
	switch (e ? e->cls : FLOE_ERR_INTERNAL) {
	case FLOE_ERR_USAGE:
		rest_error(c, 400, "BadRequestException", "%s", msg);
		break;
	case FLOE_ERR_EXISTS:
		rest_error(c, 409, "AlreadyExistsException", "%s", msg);
		break;
	case FLOE_ERR_CONFLICT:
		rest_error(c, 409, "CommitFailedException", "%s", msg);
		break;
	case FLOE_ERR_CONFIG:
		if (not_found_type)
			rest_error(c, 404, not_found_type, "%s", msg);
		else
			rest_error(c, 400, "BadRequestException", "%s", msg);
		break;
	case FLOE_ERR_UNREACHABLE:
		rest_error(c, 503, "ServiceUnavailableException", "%s", msg);
		break;
	default:
		floe_log_warn("iceberg rest %s %s: %s", c->req->method, c->req->path, msg);
		rest_error(c, 500, "ServiceFailureException", "%s", msg);
	}
}

floe_iceberg_catalog *rest_catalog(rest_call *c)
{
	if (c->catalog)
		return c->catalog;
	floe_iceberg_catalog_opts co = FLOE_ICEBERG_CATALOG_OPTS_INIT;
	co.warehouse = c->opts->warehouse;
	if (floe_iceberg_catalog_open_sql(&c->catalog, c->opts->catalog_path, &co) < 0) {
		floe_error_context("while opening the catalog");
		rest_error(c, 503, "ServiceUnavailableException", "the catalog cannot be opened: %s",
			   floe_error_last() && floe_error_last()->message ? floe_error_last()->message : "?");
		return NULL;
	}
	return c->catalog;
}

const floe_json_value *rest_body(rest_call *c)
{
	floe_json_error jerr;
	if (!c->doc && floe_json_parse(&c->doc, c->req->body ? c->req->body : "", c->req->body_len, &jerr) < 0) {
		rest_error(c, 400, "BadRequestException", "the request body is not JSON: %s (line %d, column %d)",
			   jerr.message, jerr.line, jerr.col);
		return NULL;
	}
	const floe_json_value *root = floe_json_root(c->doc);
	if (floe_json_type_of(root) != FLOE_JSON_OBJECT) {
		rest_error(c, 400, "BadRequestException", "the request body is not a JSON object");
		return NULL;
	}
	return root;
}

/* Levels joined by '.'; a level may hold no '.' (it would read as two) and no control character. */
static const char *join_levels(rest_call *c, const char *const *levels, size_t n)
{
	floe_buf b = FLOE_BUF_INIT;
	const char *out = NULL;
	for (size_t i = 0; i < n; i++) {
		if (!*levels[i] || strchr(levels[i], '.'))
			goto cleanup;
		floe_buf_printf(&b, "%s%s", i ? "." : "", levels[i]);
	}
	if (n == 0 || floe_iceberg_check_name("namespace", floe_buf_cstr(&b), true) < 0)
		goto cleanup;
	out = floe_arena_strdup(c->arena, floe_buf_cstr(&b));
cleanup:
	floe_buf_free(&b);
	if (!out) {
		floe_error_clear();
		rest_error(c, 400, "BadRequestException", "invalid namespace: a level is empty, holds a '.', "
			   "a '/' or a control character");
	}
	return out;
}

const char *rest_namespace(rest_call *c, const char *segment)
{
	const char *levels[64];
	size_t n = 0;
	char *copy = floe_arena_strdup(c->arena, segment);
	for (char *p = copy, *start = copy;; p++) {
		if (*p != '\x1f' && *p != '\0')
			continue;
		if (n == 64)
			break;
		bool end = *p == '\0';
		*p = '\0';
		levels[n++] = start;
		start = p + 1;
		if (end)
			return join_levels(c, levels, n);
	}
	rest_error(c, 400, "BadRequestException", "a namespace has at most 64 levels");
	return NULL;
}

const char *rest_namespace_json(rest_call *c, const floe_json_value *levels)
{
	const char *names[64];
	size_t n = floe_json_count(levels);
	if (!levels || floe_json_type_of(levels) != FLOE_JSON_ARRAY || n == 0 || n > 64) {
		rest_error(c, 400, "BadRequestException", "\"namespace\" must be an array of 1 to 64 strings");
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		const floe_json_value *v = floe_json_value_at(levels, i);
		floe_slice s = floe_json_type_of(v) == FLOE_JSON_STRING ? floe_json_string(v) : (floe_slice){ "", 0 };
		names[i] = memchr(s.ptr, '\0', s.len) ? "" : floe_arena_strndup(c->arena, s.ptr, s.len);
	}
	return join_levels(c, names, n);
}

void rest_put_namespace(floe_buf *out, const char *ns)
{
	floe_buf_putc(out, '[');
	for (const char *p = ns;;) {
		const char *dot = strchr(p, '.');
		size_t len = dot ? (size_t)(dot - p) : strlen(p);
		floe_json_put_string(out, p, len);
		if (!dot)
			break;
		floe_buf_putc(out, ',');
		p = dot + 1;
	}
	floe_buf_putc(out, ']');
}

int rest_require_namespace(rest_call *c, const char *ns)
{
	bool exists = false;
	if (!rest_catalog(c))
		return -1;
	if (floe_iceberg_catalog_namespace_exists(c->catalog, ns, &exists) < 0) {
		rest_fail(c, NULL);
		return -1;
	}
	if (!exists)
		rest_error(c, 404, "NoSuchNamespaceException", "namespace \"%s\" does not exist", ns);
	return exists ? 1 : 0;
}

static void config(rest_call *c)
{
	floe_buf *b = &c->res->body;
	floe_buf_puts(b, "{\"defaults\":{},\"overrides\":{},\"endpoints\":[");
	for (size_t i = 0; i < sizeof(endpoints) / sizeof(endpoints[0]); i++) {
		if (i)
			floe_buf_putc(b, ',');
		floe_json_put_cstr(b, endpoints[i]);
	}
	floe_buf_puts(b, "]}");
}

/* Split "/v1/a/b" into c->seg (after "v1"); false when it is not under /v1 or too deep. */
static bool split(rest_call *c)
{
	char *p = floe_arena_strdup(c->arena, c->req->path ? c->req->path : "");
	if (strncmp(p, "/v1/", 4) != 0)
		return false;
	p += 4;
	while (*p) {
		char *slash = strchr(p, '/');
		if (c->n_seg == REST_MAX_SEGMENTS)
			return false;
		if (slash)
			*slash = '\0';
		c->seg[c->n_seg++] = p;
		if (!slash)
			break;
		p = slash + 1;
	}
	return c->n_seg > 0;
}

static bool is(const rest_call *c, const char *method)
{
	return strcmp(c->req->method, method) == 0;
}

static void route(rest_call *c)
{
	if (!split(c)) {
		rest_error(c, 404, "NoSuchEndpointException", "no such endpoint: the catalog's paths are "
			   "under /v1 (see GET /v1/config)");
		return;
	}
	if (c->n_seg == 1 && strcmp(c->seg[0], "config") == 0) {
		if (is(c, "GET") || is(c, "HEAD"))
			config(c);
		else
			rest_error(c, 405, "MethodNotAllowedException", "/v1/config answers GET only");
		return;
	}
	if (c->n_seg == 2 && strcmp(c->seg[0], "tables") == 0 && strcmp(c->seg[1], "rename") == 0)
		return rest_rename(c);
	if (c->n_seg >= 3 && strcmp(c->seg[0], "namespaces") == 0 && strcmp(c->seg[2], "views") == 0) {
		rest_error(c, 406, "UnsupportedOperationException", "views are not supported by floe's catalog");
		return;
	}
	if (strcmp(c->seg[0], "namespaces") == 0 && c->n_seg >= 3 && strcmp(c->seg[2], "tables") == 0)
		return rest_tables(c);
	if (strcmp(c->seg[0], "namespaces") == 0 && c->n_seg <= 3)
		return rest_namespaces(c);
	if (strcmp(c->seg[0], "oauth") == 0 || strcmp(c->seg[0], "transactions") == 0 ||
	    strcmp(c->seg[0], "views") == 0) {
		rest_error(c, 406, "UnsupportedOperationException", "/v1/%s is not supported by floe's catalog "
			   "(it is not among the endpoints /v1/config lists)", c->seg[0]);
		return;
	}
	rest_error(c, 404, "NoSuchEndpointException", "no such endpoint (see GET /v1/config)");
}

void floe_rest_handle(floe_rest_response *res, const floe_rest_request *req,
		      const floe_rest_opts *opts)
{
	rest_call c = { .req = req, .opts = opts, .res = res, .arena = floe_arena_new() };
	res->status = 200;
	route(&c);
	if (strcmp(req->method, "HEAD") == 0 || res->status == 204)
		floe_buf_clear(&res->body);
	floe_json_free(c.doc);
	floe_iceberg_catalog_free(c.catalog);
	floe_arena_free(c.arena);
}
