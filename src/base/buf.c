/*
 * buf.c — bounded growable buffer.
 */
#include "base/buf.h"
#include "base/arena.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

floe_slice floe_slice_from(const char *cstr)
{
	return (floe_slice){ cstr, cstr ? strlen(cstr) : 0 };
}

bool floe_slice_eq(floe_slice a, floe_slice b)
{
	return a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0);
}

bool floe_slice_eq_cstr(floe_slice a, const char *cstr)
{
	return floe_slice_eq(a, floe_slice_from(cstr));
}

void floe_buf_init(floe_buf *buf, size_t max)
{
	buf->ptr = NULL;
	buf->len = 0;
	buf->cap = 0;
	buf->max = max ? max : FLOE_BUF_DEFAULT_MAX;
}

void floe_buf_free(floe_buf *buf)
{
	if (!buf)
		return;
	free(buf->ptr);
	buf->ptr = NULL;
	buf->len = buf->cap = 0;
}

void floe_buf_clear(floe_buf *buf)
{
	buf->len = 0;
	if (buf->ptr)
		buf->ptr[0] = '\0';
}

int floe_buf_reserve(floe_buf *buf, size_t extra)
{
	if (extra > buf->max || buf->len > buf->max - extra)
		return -1;
	size_t need = buf->len + extra + 1;
	if (need <= buf->cap)
		return 0;
	size_t cap = buf->cap ? buf->cap : 64;
	while (cap < need)
		cap *= 2;
	buf->ptr = floe_xrealloc(buf->ptr, cap);
	buf->cap = cap;
	return 0;
}

int floe_buf_put(floe_buf *buf, const void *data, size_t len)
{
	if (floe_buf_reserve(buf, len) < 0)
		return -1;
	if (len)
		memcpy(buf->ptr + buf->len, data, len);
	buf->len += len;
	buf->ptr[buf->len] = '\0';
	return 0;
}

int floe_buf_puts(floe_buf *buf, const char *cstr)
{
	return floe_buf_put(buf, cstr, strlen(cstr));
}

int floe_buf_putc(floe_buf *buf, char c)
{
	return floe_buf_put(buf, &c, 1);
}

int floe_buf_put_quoted(floe_buf *buf, const char *cstr, char quote)
{
	int rc = floe_buf_putc(buf, quote);
	for (const char *p = cstr; *p && rc == 0; p++)
		rc = *p == quote ? floe_buf_putc(buf, quote) | floe_buf_putc(buf, quote) : floe_buf_putc(buf, *p);
	return rc == 0 ? floe_buf_putc(buf, quote) : rc;
}

int floe_buf_vprintf(floe_buf *buf, const char *fmt, va_list ap)
{
	va_list copy;
	va_copy(copy, ap);
	int n = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (n < 0 || floe_buf_reserve(buf, (size_t)n) < 0)
		return -1;
	vsnprintf(buf->ptr + buf->len, (size_t)n + 1, fmt, ap);
	buf->len += (size_t)n;
	return 0;
}

int floe_buf_printf(floe_buf *buf, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = floe_buf_vprintf(buf, fmt, ap);
	va_end(ap);
	return rc;
}

const char *floe_buf_cstr(const floe_buf *buf)
{
	return buf->ptr ? buf->ptr : "";
}

char *floe_buf_detach(floe_buf *buf, size_t *len_out)
{
	char *p = buf->ptr ? buf->ptr : floe_xstrndup("", 0);
	if (len_out)
		*len_out = buf->len;
	buf->ptr = NULL;
	buf->len = buf->cap = 0;
	return p;
}
