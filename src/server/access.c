/*
 * access.c — the listen policy and the authenticator of `floe serve` (access.h).
 */
#include "server/access.h"
#include "server/request.h"
#include "auth/auth.h"
#include "base/error.h"
#include <stdio.h>

#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <time.h>

int floe_server_access_listen(floe_server_access *a, const char *host, bool tls, bool insecure_http)
{
	int64_t tokens = 0;
	a->loopback = floe_server_is_loopback(host);
	a->tls = tls;
	if (floe_auth_token_count(a->project_dir, &tokens) < 0)
		return -1;
	if (a->loopback)
		return 0;
	if (tokens == 0) {
		floe_error_set(FLOE_ERR_CONFIG, "refusing to listen on %s: no access token exists", host);
		floe_error_detail("Beyond loopback anyone who reaches the port could run jobs; without tokens floe "
				  "cannot tell who they are.");
		floe_error_hint("Create one with `floe serve token add --role admin`, or listen on 127.0.0.1.");
		return -1;
	}
	if (!tls && !insecure_http) {
		floe_error_set(FLOE_ERR_CONFIG, "refusing to listen on %s without TLS", host);
		floe_error_detail("Tokens and session cookies would cross the network in clear text.");
		floe_error_hint("Give --tls-cert FILE --tls-key FILE (PEM), or --insecure-http when a proxy in front "
				"terminates TLS.");
		return -1;
	}
	return 0;
}

static bool unsafe(const char *method)
{
	return strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0 && strcmp(method, "OPTIONS") != 0;
}

/* A state-changing request from another site (Sec-Fetch-Site, else Origin against Host). */
static bool cross_origin(const floe_http_request *req)
{
	return floe_server_cross_origin(floe_http_header(req, "Sec-Fetch-Site"), floe_http_header(req, "Origin"),
					floe_http_header(req, "Host"));
}

static int bearer_role(floe_http_request *req, const char *value, const floe_server_access *a)
{
	floe_role r = FLOE_ROLE_NONE;
	char name[FLOE_AUTH_NAME_MAX];
	if (strncasecmp(value, "Bearer ", 7) != 0)
		return 0;
	if (floe_auth_token_check(&r, name, a->project_dir, value + 7) < 0)
		return -1;
	req->role = (int)r;
	snprintf(req->who, sizeof(req->who), "%s", name);
	return 0;
}

int floe_server_access_auth(floe_http_request *req, const char **refusal, void *ctx)
{
	const floe_server_access *a = ctx;
	const char *authz = floe_http_header(req, "Authorization");
	char cookie[FLOE_AUTH_SECRET_LEN + 1];
	floe_auth_session session;
	int64_t tokens = 0;
	if (floe_auth_token_count(a->project_dir, &tokens) < 0)
		return -1;
	if (tokens == 0 && a->loopback) {
		/* Open: only to this machine's names (a web page cannot rebind its own name to 127.0.0.1). */
		if (!floe_server_host_is_loopback(floe_http_header(req, "Host"))) {
			*refusal = "the Host header does not name this server's loopback address";
			return 0;
		}
		req->role = FLOE_ROLE_ADMIN;
		snprintf(req->who, sizeof(req->who), "loopback");
		if (unsafe(req->method) && cross_origin(req))
			*refusal = "a cross-origin request may not change anything";
		return 0;
	}
	if (authz)
		return bearer_role(req, authz, a);
	if (unsafe(req->method) && cross_origin(req)) {
		*refusal = "a cross-origin request may not change anything";
		return 0;
	}
	if (!floe_http_cookie(cookie, sizeof(cookie), req, FLOE_SESSION_COOKIE))
		return 0;
	if (floe_auth_session_check(&session, a->project_dir, cookie, (int64_t)time(NULL)) < 0)
		return -1;
	req->role = (int)session.role;
	snprintf(req->who, sizeof(req->who), "%s", session.name);
	if (session.role && unsafe(req->method) && strcmp(req->path, "/api/login") != 0) {
		const char *sent = floe_http_header(req, "X-CSRF-Token");
		if (!sent || !floe_auth_secret_eq(sent, session.csrf))
			*refusal = "the request lacks the session's CSRF token (X-CSRF-Token)";
	}
	return 0;
}

bool floe_server_access_csrf(char out[65], const floe_server_access *a, const floe_http_request *req)
{
	char cookie[FLOE_AUTH_SECRET_LEN + 1];
	floe_auth_session session;
	out[0] = '\0';
	if (!floe_http_cookie(cookie, sizeof(cookie), req, FLOE_SESSION_COOKIE) ||
	    floe_auth_session_check(&session, a->project_dir, cookie, (int64_t)time(NULL)) < 0) {
		floe_error_clear();
		return false;
	}
	memcpy(out, session.csrf, sizeof(session.csrf));
	return session.role != FLOE_ROLE_NONE;
}
