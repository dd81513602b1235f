/*
 * mcp_http.h — MCP's streamable HTTP transport in `floe serve` (POST /mcp), over the same
 * handler `floe mcp serve` uses on stdio (src/mcp).
 */
#ifndef FLOE_SERVER_MCP_HTTP_H
#define FLOE_SERVER_MCP_HTTP_H

#include "mcp/mcp.h"
#include "server/http.h"

/* Join POST /mcp; `m` must outlive the server. */
void floe_server_mcp_routes(floe_http_server *server, const floe_mcp *m);

#endif
