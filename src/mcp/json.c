/*
 * json.c — compact JSON for the wire: the stdio transport frames one message per line, so
 * nothing floe embeds in a reply (the status model's JSON, a Pentaho report) may keep the
 * newlines of its pretty form. Values are re-written from the parsed tree.
 */
#include "mcp/mcp_int.h"
#include "base/error.h"

int mcp_put_json(floe_buf *out, const floe_json_value *v)
{
	floe_slice s;
	size_t n = floe_json_count(v);
	switch (floe_json_type_of(v)) {
	case FLOE_JSON_NULL:
		return floe_buf_puts(out, "null");
	case FLOE_JSON_BOOL:
		return floe_buf_puts(out, floe_json_bool(v) ? "true" : "false");
	case FLOE_JSON_NUMBER:
		s = floe_json_number_text(v);
		return floe_buf_put(out, s.ptr, s.len);
	case FLOE_JSON_STRING:
		s = floe_json_string(v);
		return floe_json_put_string(out, s.ptr, s.len);
	case FLOE_JSON_ARRAY:
		floe_buf_putc(out, '[');
		for (size_t i = 0; i < n; i++) {
			if (i)
				floe_buf_putc(out, ',');
			mcp_put_json(out, floe_json_value_at(v, i));
		}
		return floe_buf_putc(out, ']');
	case FLOE_JSON_OBJECT:
		floe_buf_putc(out, '{');
		for (size_t i = 0; i < n; i++) {
			s = floe_json_key_at(v, i);
			if (i)
				floe_buf_putc(out, ',');
			floe_json_put_string(out, s.ptr, s.len);
			floe_buf_putc(out, ':');
			mcp_put_json(out, floe_json_value_at(v, i));
		}
		return floe_buf_putc(out, '}');
	}
	return -1;
}

int mcp_put_json_text(floe_buf *out, const char *text, size_t len)
{
	floe_json_doc *doc = NULL;
	floe_json_error jerr;
	if (floe_json_parse(&doc, text, len, &jerr) < 0)
		return floe_error_set(FLOE_ERR_INTERNAL, "floe wrote JSON it cannot read back: %s at line %d, column %d",
				      jerr.message, jerr.line, jerr.col);
	int rc = mcp_put_json(out, floe_json_root(doc));
	floe_json_free(doc);
	return rc;
}
