/*
 * http_client.c — a POST whose URL is a secret (webhooks, OTLP, a local model's API; see
 * http_client.h), made through floe_net_perform (http.c, the one caller of libcurl). The
 * request runs quiet and the error set here names the transport's reason, never the URL.
 */
#include "net/http_client.h"
#include "net/http.h"
#include "base/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RESPONSE (64u << 10)

static const char *reason(floe_net_error e)
{
	switch (e) {
	case FLOE_NET_ERR_RESOLVE: return "the host name did not resolve";
	case FLOE_NET_ERR_CONNECT: return "the connection was refused or the host is unreachable";
	case FLOE_NET_ERR_TIMEOUT: return "it timed out";
	case FLOE_NET_ERR_TRANSFER: return "the connection broke during the request";
	case FLOE_NET_ERR_TLS: return "the TLS handshake or certificate failed";
	default: return "the request could not be made (is the URL well formed?)";
	}
}

/* Retry-After in seconds, -1 when absent or not a number of seconds. */
static int64_t retry_after(const floe_net_response *resp)
{
	floe_buf v = FLOE_BUF_INIT;
	int64_t out = -1;
	if (floe_net_response_header(resp, "Retry-After", &v) == 0) {
		char *end = NULL;
		long long n = strtoll(floe_buf_cstr(&v), &end, 10);
		out = end && *end == '\0' && n >= 0 ? n : -1;
	}
	floe_buf_free(&v);
	return out;
}

int floe_http_post(floe_http_post_result *result, const char *url, const char *content_type, const char *body,
		   size_t len, int timeout_seconds)
{
	floe_net_request req = FLOE_NET_REQUEST_INIT;
	floe_net_response resp = FLOE_NET_RESPONSE_INIT;
	char ctype[128];
	const char *headers[1] = { ctype };
	int error = -1;
	memset(result, 0, sizeof(*result));
	result->retry_after = -1;
	floe_buf_init(&result->body, MAX_RESPONSE + 1);
	snprintf(ctype, sizeof(ctype), "Content-Type: %s", content_type);
	req.method = "POST";
	req.url = url;
	req.headers = headers;
	req.n_headers = 1;
	req.body = body;
	req.body_len = len;
	req.timeout_ms = (long)timeout_seconds * 1000;
	req.quiet = true; /* its message would quote the URL */
	if (floe_net_perform(&resp, &req) < 0) {
		floe_error_set(FLOE_ERR_UNREACHABLE, "the HTTP request failed: %s", reason(resp.error));
		floe_error_hint("Check that the URL in the variable is right and the service reachable from here.");
		goto cleanup;
	}
	result->status = resp.status;
	result->retry_after = retry_after(&resp);
	floe_buf_put(&result->body, resp.body.ptr ? resp.body.ptr : "", resp.body.len < MAX_RESPONSE ? resp.body.len
											      : MAX_RESPONSE);
	error = 0;
cleanup:
	floe_net_response_free(&resp);
	return error;
}
