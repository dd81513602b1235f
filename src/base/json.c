/*
 * json.c — JSON writer helpers.
 */
#include "base/json.h"
#include "base/utf8.h"

#include <string.h>

int floe_json_put_string(floe_buf *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	int rc = floe_buf_putc(out, '"');
	for (size_t i = 0; i < len && rc == 0;) {
		unsigned char c = p[i];
		if (c == '"' || c == '\\') {
			char esc[2] = { '\\', (char)c };
			rc = floe_buf_put(out, esc, 2);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			switch (c) {
			case '\n': rc = floe_buf_puts(out, "\\n"); break;
			case '\r': rc = floe_buf_puts(out, "\\r"); break;
			case '\t': rc = floe_buf_puts(out, "\\t"); break;
			case '\b': rc = floe_buf_puts(out, "\\b"); break;
			case '\f': rc = floe_buf_puts(out, "\\f"); break;
			default: rc = floe_buf_printf(out, "\\u%04x", c); break;
			}
			i++;
		} else {
			size_t n = floe_utf8_len((const char *)p + i, len - i);
			if (n == 0) {
				rc = floe_buf_puts(out, "\xEF\xBF\xBD");
				i++;
			} else if (n == 2 && c == 0xc2 && p[i + 1] < 0xa0) {
				/* C1 controls escaped too: JSON printed on a terminal cannot steer it. */
				rc = floe_buf_printf(out, "\\u%04x", p[i + 1]);
				i += 2;
			} else {
				rc = floe_buf_put(out, p + i, n);
				i += n;
			}
		}
	}
	if (rc == 0)
		rc = floe_buf_putc(out, '"');
	return rc;
}

int floe_json_put_cstr(floe_buf *out, const char *s)
{
	if (!s)
		return floe_buf_puts(out, "null");
	return floe_json_put_string(out, s, strlen(s));
}

int floe_json_put_member(floe_buf *out, const char *key, const char *value)
{
	if (out->len && out->ptr[out->len - 1] != '{' && floe_buf_putc(out, ',') < 0)
		return -1;
	if (floe_json_put_key(out, key) < 0)
		return -1;
	return floe_json_put_cstr(out, value);
}

int floe_json_put_key(floe_buf *out, const char *key)
{
	if (floe_json_put_cstr(out, key) < 0)
		return -1;
	return floe_buf_putc(out, ':');
}
