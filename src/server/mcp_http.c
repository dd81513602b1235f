/*
 * mcp_http.c — MCP's streamable HTTP transport: POST /mcp carries one JSON-RPC message. A
 * request is answered with one JSON object (application/json; no server-sent events are
 * offered, so GET /mcp is 405), a notification or a response with 202 and no body, a message
 * that cannot be accepted with 400 and a JSON-RPC error without id. Stateless: no
 * Mcp-Session-Id is issued, every request stands alone (the tools keep no state). A request a
 * browser sends from another origin (its Origin header is not this server) is refused with
 * 403: that is how a web page would reach a server on localhost (DNS rebinding).
 */
#include "server/mcp_http.h"
#include "base/secret.h"

#include <string.h>

/* Whether Origin `origin` is this server: http(s):// followed by exactly the Host header. */
static bool same_origin(const char *origin, const char *host)
{
	const char *schemes[] = { "http://", "https://" };
	for (size_t i = 0; host && i < 2; i++) {
		size_t n = strlen(schemes[i]);
		if (strncmp(origin, schemes[i], n) == 0 && strcmp(origin + n, host) == 0)
			return true;
	}
	return false;
}

static int post_mcp(floe_http_response *res, const floe_http_request *req, void *ctx)
{
	const floe_mcp *m = ctx;
	const char *origin = floe_http_header(req, "Origin");
	res->content_type = "application/json";
	if (origin && !same_origin(origin, floe_http_header(req, "Host"))) {
		res->status = 403;
		return floe_buf_puts(&res->body, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":"
						 "\"forbidden: a request from another origin\"}}");
	}
	switch (floe_mcp_handle(&res->body, m, req->body, req->body_len)) {
	case FLOE_MCP_SILENT:
		res->status = 202;
		break;
	case FLOE_MCP_REPLIED:
		res->status = 200;
		break;
	case FLOE_MCP_REFUSED:
		res->status = 400;
		break;
	}
	floe_secret_scrub_buf(&res->body);
	return 0;
}

void floe_server_mcp_routes(floe_http_server *server, const floe_mcp *m)
{
	floe_http_route_add(server, "POST", "/mcp", post_mcp, (void *)m);
}
