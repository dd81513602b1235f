/*
 * request.h — the pieces of a request `floe serve` parses itself (no libmicrohttpd, no state),
 * kept apart so a fuzz target reaches them (fuzz/fuzz_serve_request.c): the Host header, the
 * cross-origin test over Sec-Fetch-Site / Origin / Host, and the job paths of the console API.
 */
#ifndef FLOE_SERVER_REQUEST_H
#define FLOE_SERVER_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#define FLOE_JOB_ID_MAX 48

/* Whether `host` (an IP literal or "localhost") is a loopback address. */
bool floe_server_is_loopback(const char *host);

/* Whether a Host header ("127.0.0.1:9464", "[::1]:80", "localhost") names a loopback address. NULL: false. */
bool floe_server_host_is_loopback(const char *host_header);

/*
 * Whether a state-changing request comes from another site: Sec-Fetch-Site other than
 * same-origin/none; without it an Origin whose host:port is not Host. Neither (not a browser): false.
 */
bool floe_server_cross_origin(const char *sec_fetch_site, const char *origin, const char *host);

/* "/api/jobs/<id>/<action>" into id (letters, digits, '-') and action; false when it is not one. */
bool floe_server_job_path(char id[FLOE_JOB_ID_MAX], const char **action, const char *path);

#endif
