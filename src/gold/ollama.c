/*
 * ollama.c — the Ollama-compatible HTTP API (POST <endpoint>/api/generate, not streamed),
 * through src/net (the one module that calls libcurl). A local model drafts a term the rules could not
 * resolve; what it answers is checked by invent.c before anything uses it.
 */
#include "gold/gold_int.h"
#include "base/error.h"
#include "base/json.h"

#include "net/http_client.h"
#include <string.h>

#define MAX_ANSWER ((size_t)1 << 20)

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
	floe_http_post_result res = { 0 };
	int error = -1;
	if (floe_http_post(&res, url, "application/json", request, strlen(request), 300) < 0) {
		floe_error_context("while asking the model at \"%s\"", url);
		floe_error_hint("Start the model server (ollama serve) or set [gold] endpoint in floe.toml; without "
				"[gold] model floe resolves terms by its rules only.");
		goto cleanup;
	}
	if (res.status != 200) {
		floe_error_set(FLOE_ERR_UNREACHABLE, "the model at \"%s\" answered HTTP %ld", url, res.status);
		goto cleanup;
	}
	floe_buf_put(body, res.body.ptr ? res.body.ptr : "", res.body.len);
	error = 0;
cleanup:
	floe_buf_free(&res.body);
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
