/*
 * mcp_http.c — MCP's streamable HTTP transport: POST /mcp carries one JSON-RPC message. A
 * request is answered with one JSON object (application/json; no server-sent events are
 * offered, so GET /mcp is 405), a notification or a response with 202 and no body, a message
 * that cannot be accepted with 400 and a JSON-RPC error without id. Stateless: no
 * Mcp-Session-Id is issued, every request stands alone (the tools keep no state). The route
 * needs the viewer role (src/auth: a bearer token, or loopback without tokens); the server's
 * authenticator refuses a browser's cross-origin POST (403) before it gets here — how a web
 * page would otherwise reach a server on localhost (DNS rebinding).
 */
#include "server/mcp_http.h"
#include "auth/auth.h"
#include "base/secret.h"

static int post_mcp(floe_http_response *res, const floe_http_request *req, void *ctx)
{
	const floe_mcp *m = ctx;
	res->content_type = "application/json";
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
	floe_http_route_add_role(server, "POST", "/mcp", FLOE_ROLE_VIEWER, post_mcp, (void *)m);
}
