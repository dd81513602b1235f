/*
 * http.h — floe's HTTP client: one request at a time over libcurl, the only module that
 * calls libcurl. Callers describe a request (method, URL, headers, a body from memory or
 * streamed from a callback, where the response body goes, timeouts, optional AWS
 * Signature V4) and get the status, the response headers and a classification of the
 * outcome that says whether retrying may help — decided from the HTTP status and the
 * transport error code, never from message text.
 *
 * Signing is libcurl's own (CURLOPT_AWS_SIGV4); floe never computes a signature. With
 * libcurl before 8.x the caller must (a) send `x-amz-content-sha256` (floe_sha256_hex of
 * the body, or "UNSIGNED-PAYLOAD"), (b) give the path already encoded (floe_net_uri_encode) and the
 * query already sorted and encoded: libcurl signs them as given.
 *
 * Retries are the caller's loop (a streamed body may not be replayable):
 * floe_net_outcome says whether to retry, floe_net_backoff_ms how long to wait.
 */
#ifndef FLOE_NET_HTTP_H
#define FLOE_NET_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

/* The request body, streamed: up to `len` bytes into `buf`, the count (0: the end), or -1 to abort. */
typedef int64_t (*floe_net_read_fn)(void *ctx, void *buf, size_t len);
/* A piece of the response body; non-zero aborts the transfer (FLOE_NET_ERR_ABORTED). */
typedef int (*floe_net_write_fn)(void *ctx, const void *data, size_t len);

typedef struct floe_net_request {
	const char *method;           /* "GET", "PUT", "POST", "DELETE", "HEAD" */
	const char *url;              /* absolute http(s) URL, path and query already encoded */
	const char *const *headers;   /* "Name: value" lines, n_headers of them */
	size_t n_headers;
	const void *body;             /* the whole body in memory (body_len bytes), or … */
	size_t body_len;
	floe_net_read_fn read;        /* … streamed from `read` (body NULL), body_size bytes */
	void *read_ctx;
	int64_t body_size;            /* with `read`: the exact length, or -1 (chunked) */
	floe_net_write_fn write;      /* response body sink; NULL: kept in response->body */
	void *write_ctx;
	const char *aws_sigv4;        /* e.g. "aws:amz:us-east-1:s3"; NULL: no signing */
	const char *user;             /* with aws_sigv4: the access key id; else basic auth */
	const char *password;         /* with aws_sigv4: the secret key */
	long connect_timeout_ms;      /* 0: 10 s */
	long timeout_ms;              /* whole transfer; 0: none */
	long low_speed_seconds;       /* abort when under 1 byte/s for this long; 0: 60 s */
	bool quiet;                   /* on failure leave the error chain alone (cleanup calls) */
	const char *ca_file;          /* PEM certificates to trust for https; NULL: the system's */
} floe_net_request;

#define FLOE_NET_REQUEST_INIT { .method = "GET", .body_size = -1 }

/* Why a transfer did not complete — from libcurl's error code, never its message. */
typedef enum floe_net_error {
	FLOE_NET_OK = 0,          /* a response arrived (any status) */
	FLOE_NET_ERR_RESOLVE,     /* the host name did not resolve */
	FLOE_NET_ERR_CONNECT,     /* connection refused or unreachable */
	FLOE_NET_ERR_TIMEOUT,     /* a timeout fired */
	FLOE_NET_ERR_TRANSFER,    /* the connection broke mid-request (send/recv, empty reply) */
	FLOE_NET_ERR_TLS,         /* TLS handshake or certificate */
	FLOE_NET_ERR_ABORTED,     /* a caller callback stopped it */
	FLOE_NET_ERR_OTHER        /* anything else (bad URL, out of memory, …) */
} floe_net_error;

typedef struct floe_net_response {
	long status;              /* HTTP status; 0 when no response arrived */
	floe_net_error error;     /* transport outcome */
	int transport_code;       /* libcurl's code, for messages only */
	floe_buf headers;         /* raw response header lines (last response only) */
	floe_buf body;            /* the body when the request had no `write` (bounded: 1 MiB) */
} floe_net_response;

#define FLOE_NET_RESPONSE_INIT { .headers = FLOE_BUF_INIT, .body = FLOE_BUF_INIT }

/* What to do about a response. */
typedef enum floe_net_outcome {
	FLOE_NET_DONE,       /* 2xx/3xx */
	FLOE_NET_RETRY,      /* worth another try: 408, 429, 5xx (500, 502, 503 SlowDown, 504, …),
				connect/timeout/broken transfer */
	FLOE_NET_FAIL        /* another try would fail the same way: other 4xx, bad URL, TLS, abort */
} floe_net_outcome;

/*
 * Perform `req`. 0 when a response arrived (whatever its status: check resp->status),
 * -1 with the error chain set (FLOE_ERR_UNREACHABLE, naming the URL without its query)
 * when none did; resp->error says why either way. `resp` must be initialised
 * (FLOE_NET_RESPONSE_INIT); its buffers are reset first and owned by the caller
 * (floe_net_response_free).
 */
int floe_net_perform(floe_net_response *resp, const floe_net_request *req);
void floe_net_response_free(floe_net_response *resp);

/* Retry or not, from the status and transport error alone. */
floe_net_outcome floe_net_classify(long status, floe_net_error error);

/*
 * How long to wait before retry `attempt` (1, 2, …): full jitter over an exponential
 * ceiling, base_ms · 2^(attempt-1) capped at cap_ms — a random value in [0, ceiling].
 */
long floe_net_backoff_ms(int attempt, long base_ms, long cap_ms);
/* Sleep `ms` milliseconds (interrupted sleeps resume). */
void floe_net_sleep_ms(long ms);

/*
 * The value of response header `name` (case-insensitive), surrounding blanks trimmed, in a
 * fresh allocation in `out` (replacing its contents); -1 (no error set) when absent.
 */
int floe_net_response_header(const floe_net_response *resp, const char *name, floe_buf *out);

/* Append `len` bytes at `s` URI-encoded the S3/SigV4 way (unreserved kept; '/' kept when keep_slash). */
int floe_net_uri_encode(floe_buf *out, const char *s, size_t len, bool keep_slash);

/*
 * The text of the next `<tag>…</tag>` element at or after *cursor in `xml` (len bytes), with
 * the five predefined entities and numeric character references decoded, into `out`
 * (replacing its contents); *cursor moves past it. 1 found, 0 none, -1 malformed (an
 * unterminated element or a bad reference; FLOE_ERR_IO set). For the flat, known replies of
 * S3 (ListObjectsV2, InitiateMultipartUpload, Error); not a general XML parser.
 */
int floe_net_xml_next(floe_buf *out, const char *xml, size_t len, size_t *cursor, const char *tag);

#endif
