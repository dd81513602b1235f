/*
 * access.h — who `floe serve` lets in (docs/console.md "Access"): the listen policy and the
 * HTTP server's authenticator (http.h), over src/auth's tokens and sessions.
 *
 * - Listening on loopback with no token in the ledger: every request is admin (one person's
 *   machine), as long as its Host names loopback (no DNS rebinding) and, for a state-changing
 *   request from a browser, Sec-Fetch-Site / Origin say it comes from the same origin.
 * - With tokens: `Authorization: Bearer floe_…` or the session cookie `floe_session` decide
 *   the role; a cookie's unsafe request must also carry the session's X-CSRF-Token.
 * - Listening elsewhere needs at least one token, and TLS unless --insecure-http says a proxy
 *   in front terminates it; otherwise floe_server_access_listen refuses with the reason.
 */
#ifndef FLOE_SERVER_ACCESS_H
#define FLOE_SERVER_ACCESS_H

#include "server/http.h"

#include <stdbool.h>

#define FLOE_SESSION_COOKIE "floe_session"

typedef struct floe_server_access {
	const char *project_dir;
	bool loopback;  /* set by floe_server_access_listen */
	bool tls;
} floe_server_access;

/*
 * May the server listen on `host`? Sets a->loopback and a->tls; prints nothing. FLOE_ERR_CONFIG
 * with the reason and what to do when not.
 */
int floe_server_access_listen(floe_server_access *a, const char *host, bool tls, bool insecure_http);

/* The authenticator for floe_http_server_set_auth (ctx: a floe_server_access). */
int floe_server_access_auth(floe_http_request *req, const char **refusal, void *ctx);

/* The CSRF token of the request's session into out (65 bytes); false when none (open mode needs none). */
bool floe_server_access_csrf(char out[65], const floe_server_access *a, const floe_http_request *req);

#endif
