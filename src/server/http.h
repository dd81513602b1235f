/*
 * http.h — floe's HTTP server: the one module that calls libmicrohttpd.
 *
 * A server is a route table: each route is a method and a path (exact, or a
 * prefix ending in '*') with a handler. `floe serve` joins the routes of every
 * part it serves (operations: /healthz, /readyz, /metrics; later the console,
 * the Iceberg REST catalog, MCP) before it listens. Each connection has a thread
 * of its own, so handlers run concurrently (no mutable state in a ctx without a
 * lock) and a long streamed response blocks nobody else. A handler fills a
 * response (status, content type, body — or a stream) and returns 0, or -1 for
 * a 500 with the error's message.
 *
 * Access: every route names the least role it needs (a floe_role of src/auth:
 * NONE, VIEWER, OPERATOR, ADMIN). The server asks its authenticator (set by
 * `floe serve`) for the request's role; below the route's role it answers 401
 * (role NONE; `WWW-Authenticate: Bearer`) or 403, with the Iceberg error model's
 * body {"error":{"message","type","code"}}, and never calls the handler.
 */
#ifndef FLOE_SERVER_HTTP_H
#define FLOE_SERVER_HTTP_H

#include "base/buf.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct floe_http_server floe_http_server;

typedef struct floe_http_request {
	const char *method;      /* "GET", "POST", … */
	const char *path;        /* "/metrics" (no query) */
	const char *body;        /* the request body, NUL-terminated; "" when none */
	size_t body_len;
	void *conn;              /* for floe_http_header */
	int role;                /* a floe_role: what the authenticator granted; NONE when none */
	char who[64];            /* the credential's name: a token's name, "loopback" when open, "" when none */
} floe_http_request;

/*
 * A streamed body (chunked): called on the connection's thread with room for `max` bytes
 * until it returns 0 (end) or -1 (abort); it may block until it has something to send.
 */
typedef long (*floe_http_stream_fn)(void *ctx, char *buf, size_t max);

#define FLOE_HTTP_MAX_HEADERS 8

typedef struct floe_http_response {
	int status;              /* 200 unless the handler says otherwise */
	const char *content_type; /* static text; default "text/plain; charset=utf-8" */
	floe_buf body;
	floe_http_stream_fn stream;  /* when set, sent instead of body */
	void *stream_ctx;
	void (*stream_free)(void *ctx); /* called once when the response ends, however it ends */
	struct {
		char *name, *value;
	} headers[FLOE_HTTP_MAX_HEADERS]; /* floe_http_response_header */
	int n_headers;
} floe_http_response;

/* Add a header to the response (copied). Beyond FLOE_HTTP_MAX_HEADERS it asserts. */
void floe_http_response_header(floe_http_response *res, const char *name, const char *value);

/*
 * The authenticator: sets req->role (from its Authorization header or session cookie) and
 * req->who, or a refusal (*refusal: static text, 403 with that message, e.g. a cross-origin
 * POST). Returns -1 (500) when it cannot tell. Without one every request has role NONE.
 */
typedef int (*floe_http_auth_fn)(floe_http_request *req, const char **refusal, void *ctx);
void floe_http_server_set_auth(floe_http_server *s, floe_http_auth_fn fn, void *ctx);

/* TLS: PEM certificate chain and key (copied); call before listen. */
void floe_http_server_set_tls(floe_http_server *s, const char *cert_pem, const char *key_pem);

/* Whether this build of libmicrohttpd can serve TLS. */
bool floe_http_tls_supported(void);

typedef int (*floe_http_handler)(floe_http_response *res, const floe_http_request *req, void *ctx);

/* A new server with no routes; bodies above `max_body` bytes get 413. */
floe_http_server *floe_http_server_new(size_t max_body);

/* Join a route: `method` NULL matches any; `path` "/x" exactly, "/x/ *" (no space) by prefix. First match wins. */
void floe_http_route_add(floe_http_server *s, const char *method, const char *path, floe_http_handler handler,
			 void *ctx);

/* The same for a route that needs at least `min_role` (a floe_role); floe_http_route_add is min role NONE. */
void floe_http_route_add_role(floe_http_server *s, const char *method, const char *path, int min_role,
			      floe_http_handler handler, void *ctx);

/* The value of cookie `name` in the request, copied into `out` (size bytes); false when absent or too long. */
bool floe_http_cookie(char *out, size_t size, const floe_http_request *req, const char *name);

/* Listen on host:port (port 0: any free one) and serve on a thread of the library. */
int floe_http_server_listen(floe_http_server *s, const char *host, int port);

/* The port listened on (after listen). */
int floe_http_server_port(const floe_http_server *s);

/* A request header's value, or NULL. */
const char *floe_http_header(const floe_http_request *req, const char *name);

/* Stop listening (waits for the requests being served) and free. Accepts NULL. */
void floe_http_server_free(floe_http_server *s);

/* Parse "HOST:PORT" (HOST may be [v6]); FLOE_ERR_USAGE when it is not one. `host` gets at most host_size-1 bytes. */
int floe_http_parse_listen(char *host, size_t host_size, int *port, const char *text);

#endif
