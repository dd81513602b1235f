/*
 * ollama.c — the Ollama-compatible HTTP API (POST <endpoint>/api/generate, not streamed),
 * the one module that calls libcurl. A local model drafts a term the rules could not
 * resolve; what it answers is checked by invent.c before anything uses it.
 */
#include "gold/gold_int.h"
#include "base/error.h"
#include "base/json.h"

#include <curl/curl.h>
#include <string.h>

#define MAX_ANSWER ((size_t)1 << 20)

static size_t take(char *data, size_t size, size_t n, void *ctx)
{
	return floe_buf_put(ctx, data, size * n) == 0 ? size * n : 0; /* too long: curl stops */
}

/* The "response" member of the answer, with code fences, blank lines and a trailing ';' removed. */
static int answer_of(floe_buf *out, const floe_buf *body, const char *url)
{
	floe_json_doc *doc = NULL;
	floe_json_error jerr;
	const floe_json_value *r = NULL;
	if (floe_json_parse(&doc, body->ptr ? body->ptr : "", body->len, &jerr) == 0)
		r = floe_json_get(floe_json_root(doc), "response");
	if (!r || floe_json_type_of(r) != FLOE_JSON_STRING) {
		floe_json_free(doc);
		return floe_error_set(FLOE_ERR_UNREACHABLE, "the model at \"%s\" answered without a \"response\" text", url);
	}
	floe_slice s = floe_json_string(r);
	const char *p = s.ptr, *end = s.ptr + s.len;
	if (end - p > 3 && memcmp(p, "```", 3) == 0) { /* ```sql … ``` */
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
		const char *close = p;
		while (close + 3 <= end && memcmp(close, "```", 3) != 0)
			close++;
		end = close + 3 <= end ? close : end;
	}
	while (p < end && strchr(" \t\r\n", *p))
		p++;
	while (end > p && strchr(" \t\r\n;", end[-1]))
		end--;
	floe_buf_put(out, p, (size_t)(end - p));
	floe_json_free(doc);
	return 0;
}

static int post(floe_buf *body, const char *url, const char *request)
{
	CURL *curl = curl_easy_init();
	struct curl_slist *headers = curl_slist_append(NULL, "Content-Type: application/json");
	long status = 0;
	int error = -1;
	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, take);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, body);
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 5L);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT, 300L);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	CURLcode rc = curl_easy_perform(curl);
	if (rc != CURLE_OK) {
		floe_error_set(FLOE_ERR_UNREACHABLE, "could not ask the model at \"%s\": %s", url, curl_easy_strerror(rc));
		floe_error_hint("Start the model server (ollama serve) or set [gold] endpoint in floe.toml; without "
				"[gold] model floe resolves terms by its rules only.");
		goto cleanup;
	}
	curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
	if (status != 200) {
		floe_error_set(FLOE_ERR_UNREACHABLE, "the model at \"%s\" answered HTTP %ld", url, status);
		goto cleanup;
	}
	error = 0;
cleanup:
	curl_slist_free_all(headers);
	curl_easy_cleanup(curl);
	return error;
}

int gold_ollama_generate(floe_buf *out, const char *endpoint, const char *model, const char *prompt)
{
	floe_buf request = FLOE_BUF_INIT, body, url = FLOE_BUF_INIT;
	floe_buf_init(&body, MAX_ANSWER);
	floe_buf_printf(&url, "%s/api/generate", endpoint);
	floe_buf_puts(&request, "{\"model\":");
	floe_json_put_cstr(&request, model);
	floe_buf_puts(&request, ",\"prompt\":");
	floe_json_put_cstr(&request, prompt);
	floe_buf_puts(&request, ",\"stream\":false,\"options\":{\"temperature\":0}}");
	int rc = post(&body, floe_buf_cstr(&url), floe_buf_cstr(&request));
	if (rc == 0)
		rc = answer_of(out, &body, floe_buf_cstr(&url));
	floe_buf_free(&request);
	floe_buf_free(&body);
	floe_buf_free(&url);
	return rc;
}
