/*
 * test_http.c — the --listen address parser and the route table over a real socket.
 */
#include "harness.h"
#include "base/error.h"
#include "server/http.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

FLOE_TEST(http_parse_listen)
{
	char host[64];
	int port = -1;
	FLOE_CHECK(floe_http_parse_listen(host, sizeof(host), &port, "127.0.0.1:9464") == 0);
	FLOE_CHECK_STR(host, "127.0.0.1");
	FLOE_CHECK(port == 9464);
	FLOE_CHECK(floe_http_parse_listen(host, sizeof(host), &port, "[::1]:0") == 0);
	FLOE_CHECK_STR(host, "::1");
	FLOE_CHECK(port == 0);
	const char *bad[] = { "127.0.0.1", ":80", "host:", "h:65536", "h:-1", "h:80x", "[::1]80", "[::1:80", NULL };
	for (int i = 0; bad[i]; i++) {
		FLOE_CHECK(floe_http_parse_listen(host, sizeof(host), &port, bad[i]) < 0);
		floe_error_clear();
	}
}

static int hello(floe_http_response *res, const floe_http_request *req, void *ctx)
{
	res->content_type = "text/x-test";
	return floe_buf_printf(&res->body, "%s %s %s", (const char *)ctx, req->method, req->path);
}

/* One request over a plain socket; the whole answer into `out`. */
static void ask(char *out, size_t size, int port, const char *request)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	size_t n = 0;
	out[0] = '\0';
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 && write(fd, request, strlen(request)) > 0) {
		ssize_t r;
		while (n + 1 < size && (r = read(fd, out + n, size - 1 - n)) > 0)
			n += (size_t)r;
	}
	out[n] = '\0';
	close(fd);
}

FLOE_TEST(http_routes_exact_prefix_and_methods)
{
	floe_http_server *s = floe_http_server_new(1024);
	floe_http_route_add(s, "GET", "/metrics", hello, "exact");
	floe_http_route_add(s, NULL, "/v1/*", hello, "prefix");
	FLOE_CHECK(floe_http_server_listen(s, "127.0.0.1", 0) == 0);
	int port = floe_http_server_port(s);
	char out[4096];
	ask(out, sizeof(out), port, "GET /metrics HTTP/1.0\r\n\r\n");
	FLOE_CHECK(strstr(out, " 200 ") && strstr(out, "text/x-test") && strstr(out, "exact GET /metrics"));
	ask(out, sizeof(out), port, "POST /metrics HTTP/1.0\r\nContent-Length: 0\r\n\r\n");
	FLOE_CHECK(strstr(out, " 405 "));
	ask(out, sizeof(out), port, "GET /nothing HTTP/1.0\r\n\r\n");
	FLOE_CHECK(strstr(out, " 404 "));
	ask(out, sizeof(out), port, "POST /v1/namespaces HTTP/1.0\r\nContent-Length: 2\r\n\r\n{}");
	FLOE_CHECK(strstr(out, "prefix POST /v1/namespaces"));
	char big[2200];
	int n = snprintf(big, sizeof(big), "POST /v1/x HTTP/1.0\r\nContent-Length: 2000\r\n\r\n");
	memset(big + n, 'a', 2000);
	big[n + 2000] = '\0';
	ask(out, sizeof(out), port, big);
	FLOE_CHECK(strstr(out, " 413 "));
	floe_http_server_free(s);
}

/* The authenticator of these tests: the role is the digit after "Bearer " (refused when "x"). */
static int digit_auth(floe_http_request *req, const char **refusal, void *ctx)
{
	const char *a = floe_http_header(req, "Authorization");
	if (a && strncmp(a, "Bearer ", 7) == 0 && a[7] == 'x')
		*refusal = "refused by test";
	else if (a && strncmp(a, "Bearer ", 7) == 0 && a[7] >= '0' && a[7] <= '3')
		req->role = a[7] - '0';
	return 0;
}

FLOE_TEST(http_routes_need_their_role)
{
	floe_http_server *s = floe_http_server_new(1024);
	floe_http_server_set_auth(s, digit_auth, NULL);
	floe_http_route_add(s, "GET", "/open", hello, "open");
	floe_http_route_add_role(s, "GET", "/viewer", 1, hello, "viewer");
	floe_http_route_add_role(s, "POST", "/admin", 3, hello, "admin");
	FLOE_CHECK(floe_http_server_listen(s, "127.0.0.1", 0) == 0);
	int port = floe_http_server_port(s);
	char out[4096];
	ask(out, sizeof(out), port, "GET /open HTTP/1.0\r\n\r\n");
	FLOE_CHECK(strstr(out, " 200 ") && strstr(out, "open GET /open"));
	ask(out, sizeof(out), port, "GET /viewer HTTP/1.0\r\n\r\n");
	FLOE_CHECK(strstr(out, " 401 ") && strstr(out, "WWW-Authenticate: Bearer") &&
		   strstr(out, "\"type\":\"NotAuthorizedException\",\"code\":401") && !strstr(out, "viewer GET"));
	ask(out, sizeof(out), port, "GET /viewer HTTP/1.0\r\nAuthorization: Bearer 1\r\n\r\n");
	FLOE_CHECK(strstr(out, " 200 ") && strstr(out, "viewer GET /viewer"));
	ask(out, sizeof(out), port, "POST /admin HTTP/1.0\r\nAuthorization: Bearer 2\r\nContent-Length: 0\r\n\r\n");
	FLOE_CHECK(strstr(out, " 403 ") && strstr(out, "\"type\":\"ForbiddenException\",\"code\":403") &&
		   !strstr(out, "admin POST"));
	ask(out, sizeof(out), port, "POST /admin HTTP/1.0\r\nAuthorization: Bearer 3\r\nContent-Length: 0\r\n\r\n");
	FLOE_CHECK(strstr(out, " 200 ") && strstr(out, "admin POST /admin"));
	ask(out, sizeof(out), port, "GET /open HTTP/1.0\r\nAuthorization: Bearer x\r\n\r\n");
	FLOE_CHECK(strstr(out, " 403 ") && strstr(out, "refused by test"));
	floe_http_server_free(s);
}

/* A stream that sends "first;", waits until /release is asked for, then sends "second;" and ends. */
typedef struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool released;
	int step;
	bool freed;
} gate;

static long gated_stream(void *ctx, char *buf, size_t max)
{
	gate *g = ctx;
	long n = 0;
	pthread_mutex_lock(&g->lock);
	if (g->step == 0)
		n = snprintf(buf, max, "first;");
	else if (g->step == 1) {
		while (!g->released)
			pthread_cond_wait(&g->cond, &g->lock);
		n = snprintf(buf, max, "second;");
	}
	g->step++;
	pthread_mutex_unlock(&g->lock);
	return n;
}

static void gate_done(void *ctx)
{
	gate *g = ctx;
	pthread_mutex_lock(&g->lock);
	g->freed = true;
	pthread_mutex_unlock(&g->lock);
}

static int stream_route(floe_http_response *res, const floe_http_request *req, void *ctx)
{
	res->content_type = "text/event-stream";
	res->stream = gated_stream;
	res->stream_ctx = ctx;
	res->stream_free = gate_done;
	return 0;
}

static int release_route(floe_http_response *res, const floe_http_request *req, void *ctx)
{
	gate *g = ctx;
	pthread_mutex_lock(&g->lock);
	g->released = true;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
	return floe_buf_puts(&res->body, "released");
}

FLOE_TEST(http_stream_does_not_block_other_requests)
{
	gate g = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, 0, false };
	floe_http_server *s = floe_http_server_new(1024);
	floe_http_route_add(s, "GET", "/stream", stream_route, &g);
	floe_http_route_add(s, "GET", "/release", release_route, &g);
	FLOE_CHECK(floe_http_server_listen(s, "127.0.0.1", 0) == 0);
	int port = floe_http_server_port(s);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	const char *request = "GET /stream HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
	FLOE_CHECK(connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 && write(fd, request, strlen(request)) > 0);
	char got[4096] = "", out[4096];
	size_t n = 0;
	ssize_t r;
	while (!strstr(got, "first;") && (r = read(fd, got + n, sizeof(got) - 1 - n)) > 0)
		got[n += (size_t)r] = '\0';
	FLOE_CHECK(strstr(got, "Transfer-Encoding: chunked") && strstr(got, "first;") && !strstr(got, "second;"));
	/* The stream is waiting: another request is still answered (it is what releases the stream). */
	ask(out, sizeof(out), port, "GET /release HTTP/1.0\r\n\r\n");
	FLOE_CHECK(strstr(out, " 200 ") && strstr(out, "released"));
	while ((r = read(fd, got + n, sizeof(got) - 1 - n)) > 0)
		got[n += (size_t)r] = '\0';
	FLOE_CHECK(strstr(got, "second;") && strstr(got, "\r\n0\r\n"));
	close(fd);
	floe_http_server_free(s);
	FLOE_CHECK(g.freed);
}
