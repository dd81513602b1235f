/*
 * http.h — floe's HTTP server: the one module that calls libmicrohttpd.
 *
 * A server is a route table: each route is a method and a path (exact, or a
 * prefix ending in '*') with a handler. `floe serve` joins the routes of every
 * part it serves (operations: /healthz, /readyz, /metrics; later the console,
 * the Iceberg REST catalog, MCP) before it listens. Handlers run on the
 * server's thread, one request at a time; each fills a response (status,
 * content type, body) and returns 0, or -1 for a 500 with the error's message.
 */
#ifndef FLOE_SERVER_HTTP_H
#define FLOE_SERVER_HTTP_H

#include "base/buf.h"

#include <stddef.h>

typedef struct floe_http_server floe_http_server;

typedef struct floe_http_request {
	const char *method;      /* "GET", "POST", … */
	const char *path;        /* "/metrics" (no query) */
	const char *body;        /* the request body, NUL-terminated; "" when none */
	size_t body_len;
	void *conn;              /* for floe_http_header */
} floe_http_request;

typedef struct floe_http_response {
	int status;              /* 200 unless the handler says otherwise */
	const char *content_type; /* static text; default "text/plain; charset=utf-8" */
	floe_buf body;
} floe_http_response;

typedef int (*floe_http_handler)(floe_http_response *res, const floe_http_request *req, void *ctx);

/* A new server with no routes; bodies above `max_body` bytes get 413. */
floe_http_server *floe_http_server_new(size_t max_body);

/* Join a route: `method` NULL matches any; `path` "/x" exactly, "/x/ *" (no space) by prefix. First match wins. */
void floe_http_route_add(floe_http_server *s, const char *method, const char *path, floe_http_handler handler,
			 void *ctx);

/* Listen on host:port (port 0: any free one) and serve on a thread of the library. */
int floe_http_server_listen(floe_http_server *s, const char *host, int port);

/* The port listened on (after listen). */
int floe_http_server_port(const floe_http_server *s);

/* A request header's value, or NULL. */
const char *floe_http_header(const floe_http_request *req, const char *name);

/* A query parameter's decoded value (`?name=value`), or NULL. */
const char *floe_http_query(const floe_http_request *req, const char *name);

/* Stop listening (waits for the request being served) and free. Accepts NULL. */
void floe_http_server_free(floe_http_server *s);

/* Parse "HOST:PORT" (HOST may be [v6]); FLOE_ERR_USAGE when it is not one. `host` gets at most host_size-1 bytes. */
int floe_http_parse_listen(char *host, size_t host_size, int *port, const char *text);

#endif
