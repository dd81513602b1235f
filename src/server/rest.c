/*
 * rest.c — mounts the Iceberg REST catalog (src/rest) at /iceberg: the request's path
 * below the mount, its query parameters and body handed over, the answer sent as JSON.
 * The catalog is the project's own (floe.toml's warehouse), opened per request; requests
 * may run concurrently (nothing here is shared but the read-only config).
 */
#include "server/rest.h"
#include "auth/auth.h"
#include "base/arena.h"
#include "rest/rest.h"

#include <string.h>

#define MOUNT "/iceberg"

static const char *query(void *ctx, const char *name)
{
	return floe_http_query(ctx, name);
}

static int handle(floe_http_response *res, const floe_http_request *req, void *ctx)
{
	const floe_config *config = ctx;
	floe_arena *a = floe_arena_new();
	floe_rest_opts opts = { floe_config_catalog_path(a, config), floe_config_warehouse_dir(config) };
	floe_rest_request r = { req->method, req->path + strlen(MOUNT), query, (void *)req, req->body,
				req->body_len };
	floe_rest_response out = { 200, FLOE_BUF_INIT };
	floe_rest_handle(&out, &r, &opts);
	res->status = out.status;
	res->content_type = FLOE_REST_CONTENT_TYPE;
	floe_buf_put(&res->body, out.body.ptr ? out.body.ptr : "", out.body.len);
	floe_buf_free(&out.body);
	floe_arena_free(a);
	return 0;
}

/* Reading (GET, and HEAD through it) needs a viewer; changing (POST, DELETE) an operator. */
void floe_server_rest_routes(floe_http_server *server, const floe_config *config)
{
	floe_http_route_add_role(server, "GET", MOUNT "/v1/*", FLOE_ROLE_VIEWER, handle, (void *)config);
	floe_http_route_add_role(server, "POST", MOUNT "/v1/*", FLOE_ROLE_OPERATOR, handle, (void *)config);
	floe_http_route_add_role(server, "DELETE", MOUNT "/v1/*", FLOE_ROLE_OPERATOR, handle, (void *)config);
}
