/*
 * console.c — the console's session routes (console.h): POST /api/login, POST /api/logout,
 * GET /api/session.
 */
#include "server/console.h"
#include "auth/auth.h"
#include "base/error.h"
#include "base/json.h"
#include "console/assets.h"
#include "server/api.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static int session_json(floe_http_response *res, floe_role role, const char *who, const char *csrf, bool open)
{
	floe_json_writer w;
	res->content_type = FLOE_API_JSON;
	floe_json_write_init(&w, &res->body, false);
	floe_json_write_begin_object(&w, true);
	floe_json_write_member_cstr(&w, "role", floe_auth_role_name(role));
	floe_json_write_member_cstr(&w, "who", who);
	floe_json_write_member_cstr(&w, "csrf", csrf[0] ? csrf : NULL);
	floe_json_write_member_bool(&w, "open", open);
	floe_json_write_end_object(&w);
	return floe_json_write_finish(&w);
}

static int login(floe_http_response *res, const floe_http_request *req, void *ctx)
{
	const floe_server_console *c = ctx;
	char token[FLOE_AUTH_TOKEN_LEN + 2], cookie[FLOE_AUTH_SECRET_LEN + 1];
	char header[256];
	floe_auth_session s;
	if (!floe_server_api_text(token, sizeof(token), req, "token"))
		return floe_server_api_error(res, 400, "BadRequestException", "send {\"token\": \"floe_...\"}");
	if (floe_auth_session_new(cookie, &s, c->access->project_dir, token, (int64_t)time(NULL)) < 0)
		return -1;
	if (s.role == FLOE_ROLE_NONE)
		return floe_server_api_error(res, 401, "NotAuthorizedException", "unknown token");
	snprintf(header, sizeof(header), FLOE_SESSION_COOKIE "=%s; Path=/; HttpOnly; SameSite=Strict; Max-Age=%d%s", cookie,
		 FLOE_AUTH_SESSION_SECONDS, c->access->tls ? "; Secure" : "");
	floe_http_response_header(res, "Set-Cookie", header);
	return session_json(res, s.role, s.name, s.csrf, false);
}

static int logout(floe_http_response *res, const floe_http_request *req, void *ctx)
{
	const floe_server_console *c = ctx;
	char cookie[FLOE_AUTH_SECRET_LEN + 1];
	if (floe_http_cookie(cookie, sizeof(cookie), req, FLOE_SESSION_COOKIE) &&
	    floe_auth_session_end(c->access->project_dir, cookie) < 0)
		return -1;
	floe_http_response_header(res, "Set-Cookie", FLOE_SESSION_COOKIE "=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0");
	res->status = 204;
	return 0;
}

static int session(floe_http_response *res, const floe_http_request *req, void *ctx)
{
	const floe_server_console *c = ctx;
	char csrf[FLOE_AUTH_SECRET_LEN + 1] = "";
	bool open = strcmp(req->who, "loopback") == 0;
	if (!open && req->role != FLOE_ROLE_NONE)
		floe_server_access_csrf(csrf, c->access, req);
	return session_json(res, (floe_role)req->role, req->who, csrf, open);
}

/* GET / and /assets/<name>: the embedded page; no data in it, so no role needed. */
static int page(floe_http_response *res, const floe_http_request *req, void *ctx)
{
	const char *name = strcmp(req->path, "/") == 0 ? "index.html" : req->path + strlen("/assets/");
	const floe_console_asset *a = floe_console_asset_find(name);
	if (!a || strcmp(req->path, "/assets/index.html") == 0) {
		res->status = 404;
		return floe_buf_puts(&res->body, "not found\n");
	}
	res->content_type = floe_console_asset_type(a);
	floe_http_response_header(res, "Content-Security-Policy",
				  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
				  "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'");
	floe_http_response_header(res, "X-Frame-Options", "DENY");
	floe_http_response_header(res, "Referrer-Policy", "no-referrer");
	return floe_buf_put(&res->body, a->data, a->size);
}

void floe_server_console_routes(floe_http_server *server, floe_server_console *c)
{
	floe_http_route_add(server, "GET", "/", page, c);
	floe_http_route_add(server, "GET", "/assets/*", page, c);
	floe_http_route_add(server, "POST", "/api/login", login, c);
	floe_http_route_add_role(server, "POST", "/api/logout", FLOE_ROLE_VIEWER, logout, c);
	floe_http_route_add(server, "GET", "/api/session", session, c);
	floe_server_console_api_routes(server, c);
}
