/*
 * console.h — the console of `floe serve` (docs/console.md): the page at `/` and its JSON
 * API under /api/. This part: the browser session (login with a token, logout, who am I).
 */
#ifndef FLOE_SERVER_CONSOLE_H
#define FLOE_SERVER_CONSOLE_H

#include "config/config.h"
#include "server/access.h"
#include "server/http.h"

typedef struct floe_server_console {
	const floe_config *config;
	floe_server_access *access;
	const char *floe_bin;        /* the floe jobs run */
	_Atomic(const char *) listen_url; /* "http://127.0.0.1:9464", published once listening (NULL before) */
	struct floe_server_jobs *jobs; /* jobs.h; NULL: none */
} floe_server_console;

/* Join the console's routes (the page, the session and the panels' API); `c` must outlive the server. */
void floe_server_console_routes(floe_http_server *server, floe_server_console *c);

/* The panels' API (console_api.c), joined by floe_server_console_routes. */
void floe_server_console_api_routes(floe_http_server *server, floe_server_console *c);

#endif
