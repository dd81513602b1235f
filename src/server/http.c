/*
 * http.c — the route table over libmicrohttpd (the only file that includes it): a thread
 * per connection, access by role through the server's authenticator, streamed bodies,
 * and TLS when given a certificate.
 */
#include "server/http.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/log.h"

#include <arpa/inet.h>
#include <assert.h>
#include <stdint.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define MAX_ROUTES 64
#define MAX_CONNECTIONS 128
#define TEXT "text/plain; charset=utf-8"

typedef struct route {
	const char *method, *path;
	int min_role;
	floe_http_handler handler;
	void *ctx;
} route;

struct floe_http_server {
	struct MHD_Daemon *daemon;
	route routes[MAX_ROUTES];
	size_t n_routes;
	size_t max_body;
	int port;
	floe_http_auth_fn auth;
	void *auth_ctx;
	char *tls_cert, *tls_key;
};

/* What one connection accumulates between libmicrohttpd's calls: the body. */
typedef struct pending {
	floe_buf body;
	bool too_large;
} pending;

floe_http_server *floe_http_server_new(size_t max_body)
{
	floe_http_server *s = floe_xcalloc(1, sizeof(*s));
	s->max_body = max_body;
	return s;
}

void floe_http_route_add_role(floe_http_server *s, const char *method, const char *path, int min_role,
			      floe_http_handler handler, void *ctx)
{
	assert(s->n_routes < MAX_ROUTES);
	s->routes[s->n_routes++] = (route){ method, path, min_role, handler, ctx };
}

void floe_http_route_add(floe_http_server *s, const char *method, const char *path, floe_http_handler handler,
			 void *ctx)
{
	floe_http_route_add_role(s, method, path, 0, handler, ctx);
}

void floe_http_server_set_auth(floe_http_server *s, floe_http_auth_fn fn, void *ctx)
{
	s->auth = fn;
	s->auth_ctx = ctx;
}

void floe_http_server_set_tls(floe_http_server *s, const char *cert_pem, const char *key_pem)
{
	free(s->tls_cert);
	free(s->tls_key);
	s->tls_cert = floe_xstrndup(cert_pem, strlen(cert_pem));
	s->tls_key = floe_xstrndup(key_pem, strlen(key_pem));
}

bool floe_http_tls_supported(void)
{
	return MHD_is_feature_supported(MHD_FEATURE_TLS) == MHD_YES;
}

void floe_http_response_header(floe_http_response *res, const char *name, const char *value)
{
	assert(res->n_headers < FLOE_HTTP_MAX_HEADERS);
	res->headers[res->n_headers].name = floe_xstrndup(name, strlen(name));
	res->headers[res->n_headers].value = floe_xstrndup(value, strlen(value));
	res->n_headers++;
}

static bool path_matches(const char *pattern, const char *path)
{
	size_t n = strlen(pattern);
	if (n && pattern[n - 1] == '*')
		return strncmp(pattern, path, n - 1) == 0;
	return strcmp(pattern, path) == 0;
}

/* The route for (method, path); *allowed_other: the path has routes, none for this method. */
static const route *find_route(const floe_http_server *s, const char *method, const char *path, bool *other)
{
	*other = false;
	for (size_t i = 0; i < s->n_routes; i++) {
		const route *r = &s->routes[i];
		if (!path_matches(r->path, path))
			continue;
		if (!r->method || strcmp(r->method, method) == 0 ||
		    (strcmp(method, "HEAD") == 0 && strcmp(r->method, "GET") == 0))
			return r;
		*other = true;
	}
	return NULL;
}

static enum MHD_Result queue(struct MHD_Connection *conn, int status, const char *type, struct MHD_Response *resp,
			     const floe_http_response *res)
{
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(resp, "Cache-Control", "no-store");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	for (int i = 0; res && i < res->n_headers; i++)
		MHD_add_response_header(resp, res->headers[i].name, res->headers[i].value);
	enum MHD_Result ret = MHD_queue_response(conn, (unsigned int)status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result respond(struct MHD_Connection *conn, int status, const char *type, const char *body,
			       size_t len, const floe_http_response *res)
{
	struct MHD_Response *resp =
		MHD_create_response_from_buffer(len, (void *)(uintptr_t)body, MHD_RESPMEM_MUST_COPY);
	return queue(conn, status, type, resp, res);
}

static void response_free(floe_http_response *res)
{
	floe_buf_free(&res->body);
	for (int i = 0; i < res->n_headers; i++) {
		free(res->headers[i].name);
		free(res->headers[i].value);
	}
}

/* 401 or 403 in the Iceberg error model (a message of our own words, JSON-safe). */
static enum MHD_Result refuse(struct MHD_Connection *conn, int status, const char *message)
{
	floe_http_response res = { .body = FLOE_BUF_INIT };
	const char *type = status == 401 ? "NotAuthorizedException" : "ForbiddenException";
	if (status == 401)
		floe_http_response_header(&res, "WWW-Authenticate", "Bearer realm=\"floe\"");
	floe_buf_printf(&res.body, "{\"error\":{\"message\":\"%s\",\"type\":\"%s\",\"code\":%d}}\n", message, type,
			status);
	enum MHD_Result ret = respond(conn, status, "application/json", res.body.ptr, res.body.len, &res);
	response_free(&res);
	return ret;
}

typedef struct stream {
	floe_http_stream_fn fn;
	void *ctx;
	void (*done)(void *ctx);
} stream;

static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	stream *st = cls;
	long n = st->fn(st->ctx, buf, max);
	return n > 0 ? (ssize_t)n : n == 0 ? MHD_CONTENT_READER_END_OF_STREAM : MHD_CONTENT_READER_END_WITH_ERROR;
}

static void stream_end(void *cls)
{
	stream *st = cls;
	if (st->done)
		st->done(st->ctx);
	free(st);
}

static enum MHD_Result send_response(struct MHD_Connection *conn, floe_http_response *res)
{
	if (!res->stream)
		return respond(conn, res->status, res->content_type, res->body.ptr ? res->body.ptr : "", res->body.len,
			       res);
	stream *st = floe_xcalloc(1, sizeof(*st));
	*st = (stream){ res->stream, res->stream_ctx, res->stream_free };
	struct MHD_Response *resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, stream_read, st, stream_end);
	if (!resp) {
		stream_end(st);
		return MHD_NO;
	}
	return queue(conn, res->status, res->content_type, resp, res);
}

/* The request's role per the authenticator; a refusal or a role below the route's is answered here. */
static int authorize(const floe_http_server *s, struct MHD_Connection *conn, const route *r, floe_http_request *req,
		     enum MHD_Result *answered)
{
	const char *refusal = NULL;
	if (s->auth && s->auth(req, &refusal, s->auth_ctx) < 0) {
		floe_log_warn("%s %s: could not check access: %s", req->method, req->path,
			      floe_error_last() ? floe_error_last()->message : "internal error");
		floe_error_clear();
		*answered = respond(conn, 500, TEXT, "could not check access\n", 23, NULL);
		return -1;
	}
	if (refusal)
		*answered = refuse(conn, 403, refusal);
	else if (req->role < r->min_role && req->role == 0)
		*answered = refuse(conn, 401, "this needs a token: send Authorization: Bearer <token>");
	else if (req->role < r->min_role)
		*answered = refuse(conn, 403, "the token's role may not do this");
	else
		return 0;
	return -1;
}

static enum MHD_Result dispatch(floe_http_server *s, struct MHD_Connection *conn, const char *method,
				const char *path, pending *p)
{
	bool other = false;
	const route *r = find_route(s, method, path, &other);
	enum MHD_Result ret = MHD_NO;
	if (!r)
		return other ? respond(conn, 405, TEXT, "method not allowed\n", 19, NULL)
			     : respond(conn, 404, TEXT, "not found\n", 10, NULL);
	floe_http_request req = { method, path, floe_buf_cstr(&p->body), p->body.len, conn, 0, "" };
	req.role = 0;
	if (authorize(s, conn, r, &req, &ret) < 0)
		return ret;
	floe_http_response res = { .status = 200, .content_type = TEXT, .body = FLOE_BUF_INIT };
	if (r->handler(&res, &req, r->ctx) < 0) {
		const floe_error *e = floe_error_last();
		if (res.stream_free)
			res.stream_free(res.stream_ctx);
		res.stream = NULL;
		floe_buf_clear(&res.body);
		floe_buf_printf(&res.body, "%s\n", e && e->message ? e->message : "internal error");
		res.status = 500;
		res.content_type = TEXT;
		floe_log_warn("%s %s: %s", method, path, floe_buf_cstr(&res.body));
		floe_error_clear();
	}
	ret = send_response(conn, &res);
	response_free(&res);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
				  const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
	floe_http_server *s = cls;
	pending *p = *con_cls;
	if (!p) { /* first call: headers only */
		p = floe_xcalloc(1, sizeof(*p));
		floe_buf_init(&p->body, s->max_body + 1);
		*con_cls = p;
		return MHD_YES;
	}
	if (*upload_size) {
		if (p->body.len + *upload_size > s->max_body)
			p->too_large = true;
		else
			floe_buf_put(&p->body, upload, *upload_size);
		*upload_size = 0;
		return MHD_YES;
	}
	if (p->too_large)
		return respond(conn, 413, TEXT, "request body too large\n", 23, NULL);
	return dispatch(s, conn, method, url, p);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	pending *p = *con_cls;
	if (!p)
		return;
	floe_buf_free(&p->body);
	free(p);
	*con_cls = NULL;
}

int floe_http_parse_listen(char *host, size_t host_size, int *port, const char *text)
{
	const char *colon = strrchr(text, ':');
	const char *h = text, *h_end = colon;
	if (text[0] == '[') {
		h = text + 1;
		h_end = strchr(text, ']');
		if (!h_end || h_end[1] != ':')
			colon = NULL;
	}
	char *end = NULL;
	long p = colon ? strtol(colon + 1, &end, 10) : -1;
	if (!colon || h_end <= h || !end || *end || end == colon + 1 || p < 0 || p > 65535 ||
	    (size_t)(h_end - h) >= host_size) {
		floe_error_set(FLOE_ERR_USAGE, "`--listen %s` is not HOST:PORT", text);
		floe_error_hint("Give an address and a port, e.g. `--listen 127.0.0.1:9464` (port 0: any free one).");
		return -1;
	}
	memcpy(host, h, (size_t)(h_end - h));
	host[h_end - h] = '\0';
	*port = (int)p;
	return 0;
}

/* host:port as a socket address; IPv4 or IPv6 literals only (no name lookups). */
static int address_of(struct sockaddr_storage *ss, socklen_t *len, const char *host, int port)
{
	struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
	memset(ss, 0, sizeof(*ss));
	if (strcmp(host, "localhost") == 0)
		host = "127.0.0.1";
	if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons((uint16_t)port);
		*len = sizeof(*v4);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*v6);
		return 0;
	}
	floe_error_set(FLOE_ERR_USAGE, "\"%s\" is not an IP address to listen on", host);
	floe_error_hint("Use an address such as 127.0.0.1 (the default, loopback only) or 0.0.0.0 (every interface).");
	return -1;
}

int floe_http_server_listen(floe_http_server *s, const char *host, int port)
{
	struct sockaddr_storage ss;
	socklen_t len = 0;
	if (address_of(&ss, &len, host, port) < 0)
		return -1;
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
			     (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0) | (s->tls_cert ? MHD_USE_TLS : 0);
	if (s->tls_cert)
		s->daemon = MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR,
					     (struct sockaddr *)&ss, MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
					     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)30, MHD_OPTION_CONNECTION_LIMIT,
					     (unsigned int)MAX_CONNECTIONS, MHD_OPTION_HTTPS_MEM_CERT, s->tls_cert,
					     MHD_OPTION_HTTPS_MEM_KEY, s->tls_key, MHD_OPTION_END);
	else
		s->daemon = MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR,
					     (struct sockaddr *)&ss, MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
					     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)30, MHD_OPTION_CONNECTION_LIMIT,
					     (unsigned int)MAX_CONNECTIONS, MHD_OPTION_END);
	if (!s->daemon) {
		floe_error_set(FLOE_ERR_UNREACHABLE, "could not listen on %s:%d", host, port);
		floe_error_hint(s->tls_cert ? "Another process may hold the port, or the TLS certificate and key do not "
					      "match or are not PEM."
					    : "Another process may hold the port: pick another with --listen HOST:PORT.");
		return -1;
	}
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
	s->port = info ? (int)info->port : port;
	return 0;
}

int floe_http_server_port(const floe_http_server *s)
{
	return s->port;
}

const char *floe_http_header(const floe_http_request *req, const char *name)
{
	return MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND, name);
}

const char *floe_http_query(const floe_http_request *req, const char *name)
{
	return MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, name);
}

bool floe_http_cookie(char *out, size_t size, const floe_http_request *req, const char *name)
{
	const char *v = MHD_lookup_connection_value(req->conn, MHD_COOKIE_KIND, name);
	size_t n = v ? strlen(v) : 0;
	if (!v || n >= size)
		return false;
	memcpy(out, v, n + 1);
	return true;
}

void floe_http_server_free(floe_http_server *s)
{
	if (!s)
		return;
	if (s->daemon)
		MHD_stop_daemon(s->daemon);
	free(s->tls_cert);
	free(s->tls_key);
	free(s);
}
