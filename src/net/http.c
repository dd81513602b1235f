/*
 * http.c — requests over libcurl (http.h). One easy handle per request: floe's requests
 * are few and large (object-store parts, webhooks), so connection reuse is not worth the
 * shared state.
 */
#include "net/http.h"

#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

#include "base/error.h"

#define RESPONSE_BODY_MAX ((size_t)1 << 20)
#define RESPONSE_HEADERS_MAX ((size_t)64 << 10)

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static CURLcode init_code = CURLE_OK;

static void global_init(void)
{
	init_code = curl_global_init(CURL_GLOBAL_DEFAULT);
}

typedef struct transfer {
	const floe_net_request *req;
	floe_net_response *resp;
	size_t body_off; /* into req->body */
	bool sink_failed;
} transfer;

static size_t on_body(char *data, size_t size, size_t n, void *ctx)
{
	transfer *t = ctx;
	size_t len = size * n;
	if (t->req->write) {
		if (t->req->write(t->req->write_ctx, data, len) != 0) {
			t->sink_failed = true;
			return 0;
		}
		return len;
	}
	if (t->resp->body.len + len > RESPONSE_BODY_MAX)
		return len; /* keep the first MiB: error replies are short, the rest is not needed */
	return floe_buf_put(&t->resp->body, data, len) < 0 ? 0 : len;
}

static size_t on_header(char *data, size_t size, size_t n, void *ctx)
{
	transfer *t = ctx;
	size_t len = size * n;
	/* A new status line starts a new response (100 Continue, redirects): keep the last. */
	if (len >= 5 && memcmp(data, "HTTP/", 5) == 0)
		floe_buf_clear(&t->resp->headers);
	if (t->resp->headers.len + len <= RESPONSE_HEADERS_MAX)
		floe_buf_put(&t->resp->headers, data, len);
	return len;
}

static size_t on_read(char *buf, size_t size, size_t n, void *ctx)
{
	transfer *t = ctx;
	size_t len = size * n;
	if (t->req->read) {
		int64_t got = t->req->read(t->req->read_ctx, buf, len);
		return got < 0 ? CURL_READFUNC_ABORT : (size_t)got;
	}
	size_t left = t->req->body_len - t->body_off;
	if (len > left)
		len = left;
	if (len)
		memcpy(buf, (const char *)t->req->body + t->body_off, len);
	t->body_off += len;
	return len;
}

/* libcurl may rewind an upload to resend it (a redirect, auth): only an in-memory body can. */
static int on_seek(void *ctx, curl_off_t offset, int origin)
{
	transfer *t = ctx;
	if (t->req->read || origin != SEEK_SET || offset < 0 || (size_t)offset > t->req->body_len)
		return CURL_SEEKFUNC_CANTSEEK;
	t->body_off = (size_t)offset;
	return CURL_SEEKFUNC_OK;
}

static floe_net_error error_of(CURLcode c)
{
	switch (c) {
	case CURLE_OK:
		return FLOE_NET_OK;
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
		return FLOE_NET_ERR_RESOLVE;
	case CURLE_COULDNT_CONNECT:
		return FLOE_NET_ERR_CONNECT;
	case CURLE_OPERATION_TIMEDOUT:
		return FLOE_NET_ERR_TIMEOUT;
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return FLOE_NET_ERR_TRANSFER;
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CACERT_BADFILE:
		return FLOE_NET_ERR_TLS;
	case CURLE_ABORTED_BY_CALLBACK:
	case CURLE_WRITE_ERROR:
	case CURLE_READ_ERROR:
		return FLOE_NET_ERR_ABORTED;
	default:
		return FLOE_NET_ERR_OTHER;
	}
}

floe_net_outcome floe_net_classify(long status, floe_net_error error)
{
	switch (error) {
	case FLOE_NET_OK:
		break;
	case FLOE_NET_ERR_RESOLVE:
	case FLOE_NET_ERR_CONNECT:
	case FLOE_NET_ERR_TIMEOUT:
	case FLOE_NET_ERR_TRANSFER:
		return FLOE_NET_RETRY;
	default:
		return FLOE_NET_FAIL;
	}
	if (status >= 200 && status < 400)
		return FLOE_NET_DONE;
	if (status == 408 || status == 429 || status >= 500)
		return FLOE_NET_RETRY;
	return FLOE_NET_FAIL;
}

long floe_net_backoff_ms(int attempt, long base_ms, long cap_ms)
{
	long ceiling = base_ms;
	uint32_t r = 0;
	for (int i = 1; i < attempt && ceiling < cap_ms; i++)
		ceiling *= 2;
	if (ceiling > cap_ms)
		ceiling = cap_ms;
	if (ceiling <= 0)
		return 0;
	if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
		r = (uint32_t)clock();
	return (long)(r % (uint32_t)(ceiling + 1));
}

void floe_net_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (ms > 0 && nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* The URL up to its query: queries may carry upload ids and, elsewhere, tokens. */
static void url_for_message(char *out, size_t size, const char *url)
{
	size_t n = strcspn(url, "?");
	if (n >= size)
		n = size - 1;
	memcpy(out, url, n);
	out[n] = '\0';
}

static int set_body(CURL *c, const floe_net_request *req, transfer *t)
{
	bool has_body = req->body || req->read;
	if (!has_body)
		return 0;
	curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(c, CURLOPT_READFUNCTION, on_read);
	curl_easy_setopt(c, CURLOPT_READDATA, t);
	curl_easy_setopt(c, CURLOPT_SEEKFUNCTION, on_seek);
	curl_easy_setopt(c, CURLOPT_SEEKDATA, t);
	curl_off_t size = req->read ? (curl_off_t)req->body_size : (curl_off_t)req->body_len;
	if (size >= 0)
		curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, size);
	return 0;
}

static void set_options(CURL *c, const floe_net_request *req, transfer *t, struct curl_slist *hdrs)
{
	curl_easy_setopt(c, CURLOPT_URL, req->url);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 1L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, req->connect_timeout_ms ? req->connect_timeout_ms : 10000L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, req->timeout_ms);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, req->low_speed_seconds ? req->low_speed_seconds : 60L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, t);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, t);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	if (req->ca_file)
		curl_easy_setopt(c, CURLOPT_CAINFO, req->ca_file);
	if (strcmp(req->method, "HEAD") == 0)
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
	else if (strcmp(req->method, "GET") != 0)
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, req->method);
	if (strcmp(req->method, "POST") == 0 && !req->body && !req->read) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, "");
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, 0L);
	}
	if (req->aws_sigv4)
		curl_easy_setopt(c, CURLOPT_AWS_SIGV4, req->aws_sigv4);
	else if (req->user)
		curl_easy_setopt(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
	if (req->user)
		curl_easy_setopt(c, CURLOPT_USERNAME, req->user);
	if (req->password)
		curl_easy_setopt(c, CURLOPT_PASSWORD, req->password);
}

int floe_net_perform(floe_net_response *resp, const floe_net_request *req)
{
	CURL *c = NULL;
	struct curl_slist *hdrs = NULL;
	transfer t = { req, resp, 0, false };
	char where[512];
	int error = -1;
	url_for_message(where, sizeof(where), req->url);
	floe_buf_clear(&resp->headers);
	floe_buf_clear(&resp->body);
	resp->status = 0;
	resp->transport_code = 0;
	resp->error = FLOE_NET_ERR_OTHER;
	pthread_once(&init_once, global_init);
	if (init_code != CURLE_OK || !(c = curl_easy_init())) {
		if (!req->quiet)
			floe_error_set(FLOE_ERR_INTERNAL, "could not start an HTTP request to \"%s\"", where);
		goto cleanup;
	}
	/*
	 * No "Expect:" line to suppress 100-continue: libcurl 7.88 would sign it as an empty
	 * header, which servers then reject. libcurl's own Expect is not signed.
	 */
	for (size_t i = 0; i < req->n_headers; i++)
		hdrs = curl_slist_append(hdrs, req->headers[i]);
	set_options(c, req, &t, hdrs);
	set_body(c, req, &t);
	CURLcode rc = curl_easy_perform(c);
	resp->transport_code = (int)rc;
	resp->error = t.sink_failed ? FLOE_NET_ERR_ABORTED : error_of(rc);
	if (rc != CURLE_OK) {
		if (req->quiet)
			goto cleanup;
		floe_error_set(resp->error == FLOE_NET_ERR_ABORTED ? FLOE_ERR_IO : FLOE_ERR_UNREACHABLE,
			       "%s \"%s\" failed: %s", req->method, where, curl_easy_strerror(rc));
		goto cleanup;
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &resp->status);
	error = 0;
cleanup:
	curl_slist_free_all(hdrs);
	if (c)
		curl_easy_cleanup(c);
	return error;
}

void floe_net_response_free(floe_net_response *resp)
{
	if (!resp)
		return;
	floe_buf_free(&resp->headers);
	floe_buf_free(&resp->body);
}

int floe_net_response_header(const floe_net_response *resp, const char *name, floe_buf *out)
{
	const char *p = resp->headers.ptr, *end = p ? p + resp->headers.len : NULL;
	size_t nlen = strlen(name);
	while (p && p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = eol ? eol : end;
		if ((size_t)(line_end - p) > nlen && p[nlen] == ':' && strncasecmp(p, name, nlen) == 0) {
			const char *v = p + nlen + 1, *ve = line_end;
			while (v < ve && (*v == ' ' || *v == '\t'))
				v++;
			while (ve > v && (ve[-1] == '\r' || ve[-1] == ' ' || ve[-1] == '\t'))
				ve--;
			floe_buf_clear(out);
			return floe_buf_put(out, v, (size_t)(ve - v));
		}
		p = eol ? eol + 1 : end;
	}
	return -1;
}

int floe_net_uri_encode(floe_buf *out, const char *s, size_t len, bool keep_slash)
{
	static const char hex[] = "0123456789ABCDEF";
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];
		bool plain = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
			     ch == '-' || ch == '.' || ch == '_' || ch == '~' || (keep_slash && ch == '/');
		char enc[3] = { '%', hex[ch >> 4], hex[ch & 15] };
		if ((plain ? floe_buf_putc(out, (char)ch) : floe_buf_put(out, enc, 3)) < 0)
			return -1;
	}
	return 0;
}
