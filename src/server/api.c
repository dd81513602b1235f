/*
 * api.c — shared pieces of the console's JSON API (api.h).
 */
#include "server/api.h"
#include "base/error.h"
#include "base/json.h"

#include <string.h>

int floe_server_api_error(floe_http_response *res, int status, const char *type, const char *message)
{
	floe_json_writer w;
	res->status = status;
	res->content_type = FLOE_API_JSON;
	floe_buf_clear(&res->body);
	floe_json_write_init(&w, &res->body, false);
	floe_json_write_begin_object(&w, true);
	floe_json_write_key(&w, "error");
	floe_json_write_begin_object(&w, true);
	floe_json_write_member_cstr(&w, "message", message);
	floe_json_write_member_cstr(&w, "type", type);
	floe_json_write_member_int(&w, "code", status);
	floe_json_write_end_object(&w);
	floe_json_write_end_object(&w);
	return floe_json_write_finish(&w);
}

bool floe_server_api_text(char *out, size_t size, const floe_http_request *req, const char *key)
{
	floe_json_doc *doc = NULL;
	floe_json_error err;
	bool ok = false;
	out[0] = '\0';
	if (floe_json_parse(&doc, req->body, req->body_len, &err) == 0) {
		const floe_json_value *v = floe_json_get(floe_json_root(doc), key);
		floe_slice t = v && floe_json_type_of(v) == FLOE_JSON_STRING ? floe_json_string(v) : (floe_slice){ 0 };
		if (t.ptr && t.len < size && !memchr(t.ptr, '\0', t.len)) {
			memcpy(out, t.ptr, t.len);
			out[t.len] = '\0';
			ok = true;
		}
	}
	floe_error_clear();
	floe_json_free(doc);
	return ok;
}
