/*
 * http_client.c — POST over libcurl (see http_client.h). Errors name curl's reason, never the URL.
 */
#include "net/http_client.h"
#include "base/error.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_RESPONSE (64u << 10)

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void global_init(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
}

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
	floe_buf *b = arg;
	size_t len = size * n;
	if (b->len + len <= MAX_RESPONSE)
		floe_buf_put(b, data, len);
	return len;
}

static size_t on_header(char *data, size_t size, size_t n, void *arg)
{
	int64_t *retry_after = arg;
	size_t len = size * n;
	static const char name[] = "retry-after:";
	if (len > sizeof(name) && strncasecmp(data, name, sizeof(name) - 1) == 0) {
		char text[32] = "";
		size_t m = len - (sizeof(name) - 1) < sizeof(text) - 1 ? len - (sizeof(name) - 1) : sizeof(text) - 1;
		memcpy(text, data + sizeof(name) - 1, m);
		char *end = NULL;
		long long v = strtoll(text, &end, 10);
		if (end != text && v >= 0)
			*retry_after = v;
	}
	return len;
}

int floe_http_post(floe_http_post_result *result, const char *url, const char *content_type, const char *body,
		   size_t len, int timeout_seconds)
{
	struct curl_slist *headers = NULL;
	char ctype[128];
	int error = -1;
	pthread_once(&once, global_init);
	memset(result, 0, sizeof(*result));
	result->retry_after = -1;
	floe_buf_init(&result->body, MAX_RESPONSE + 1);
	CURL *curl = curl_easy_init();
	if (!curl) {
		floe_error_set(FLOE_ERR_INTERNAL, "could not start an HTTP client");
		goto cleanup;
	}
	snprintf(ctype, sizeof(ctype), "Content-Type: %s", content_type);
	headers = curl_slist_append(headers, ctype);
	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT, (long)timeout_seconds);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, &result->body);
	curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(curl, CURLOPT_HEADERDATA, &result->retry_after);
	CURLcode rc = curl_easy_perform(curl);
	if (rc != CURLE_OK) {
		floe_error_set(FLOE_ERR_UNREACHABLE, "the HTTP request failed: %s", curl_easy_strerror(rc));
		floe_error_hint("Check that the URL in the variable is right and the service reachable from here.");
		goto cleanup;
	}
	curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &result->status);
	error = 0;
cleanup:
	curl_slist_free_all(headers);
	if (curl)
		curl_easy_cleanup(curl);
	return error;
}
