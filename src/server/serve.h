/*
 * serve.h — `floe serve`: one long-running process that answers HTTP (the route
 * table of http.h: /healthz, /readyz, /metrics, and later the console, the Iceberg
 * REST catalog and MCP) and runs the pipeline on the [schedule] of floe.toml
 * (scheduler.h). SIGTERM or SIGINT: no new runs; running loads get `grace_seconds` to finish,
 * then are stopped (their previous snapshot stays current) and it returns 0. A
 * second signal stops them at once (SIGKILL) and returns 0 at once.
 */
#ifndef FLOE_SERVER_SERVE_H
#define FLOE_SERVER_SERVE_H

#include "config/config.h"

#include <stdbool.h>

typedef struct floe_serve_opts {
	const floe_config *config;
	const char *host;          /* default "127.0.0.1" */
	int port;                  /* 0: any free one */
	const char *floe_bin;      /* the floe the scheduler starts; NULL: this one (/proc/self/exe) */
	int grace_seconds;         /* default 30 */
	const char *tls_cert;      /* PEM files; both or neither (access.h: needed beyond loopback) */
	const char *tls_key;
	bool insecure_http;        /* beyond loopback without TLS: a proxy in front terminates it */
} floe_serve_opts;

#define FLOE_SERVE_OPTS_INIT { .host = "127.0.0.1", .port = 9464, .grace_seconds = 30 }

/* Serve until a signal; prints "listening on http://HOST:PORT" when it listens. */
int floe_serve_run(const floe_serve_opts *opts);

#endif
