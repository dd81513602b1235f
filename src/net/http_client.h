/*
 * http_client.h — outgoing HTTP POSTs to a URL that is a secret (alert webhooks, OTLP, a local
 * model's API), made through http.h (src/net is the one module that calls libcurl).
 *
 * The URL is a secret (a Slack or Teams webhook URL is a credential): it is never put into
 * an error message, a log line or a result.
 */
#ifndef FLOE_NET_HTTP_CLIENT_H
#define FLOE_NET_HTTP_CLIENT_H

#include "base/buf.h"

#include <stdint.h>

typedef struct floe_http_post_result {
	long status;           /* HTTP status, 0 when no response came */
	int64_t retry_after;   /* seconds from a Retry-After header, -1 none */
	floe_buf body;         /* the response body, at most 64 KiB */
} floe_http_post_result;

/*
 * POST body to url with content_type, waiting at most timeout_seconds. Returns 0 when a
 * response came (whatever its status: read result->status), -1 (FLOE_ERR_UNREACHABLE, the
 * URL not quoted) when none did. The caller frees result->body.
 */
int floe_http_post(floe_http_post_result *result, const char *url, const char *content_type, const char *body,
		   size_t len, int timeout_seconds);

#endif
