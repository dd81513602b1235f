/*
 * xml.c — the text of named elements in S3's flat XML replies (http.h floe_net_xml_next).
 * S3 answers ListObjectsV2, InitiateMultipartUpload and errors with small documents whose
 * values are plain text elements; this finds `<tag>` … `</tag>` and decodes references.
 * It never follows DTDs or entities beyond the five predefined ones (no XXE).
 */
#include "net/http.h"

#include <string.h>

#include "base/error.h"

/* Decode one reference at s[0] == '&' (up to `len` bytes); its length in *used. */
static int decode_ref(floe_buf *out, const char *s, size_t len, size_t *used)
{
	static const struct { const char *name; char ch; } named[] = {
		{ "&amp;", '&' }, { "&lt;", '<' }, { "&gt;", '>' }, { "&quot;", '"' }, { "&apos;", '\'' },
	};
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		size_t n = strlen(named[i].name);
		if (len >= n && memcmp(s, named[i].name, n) == 0) {
			*used = n;
			return floe_buf_putc(out, named[i].ch);
		}
	}
	if (len < 4 || s[1] != '#')
		return -1;
	size_t i = 2;
	unsigned long cp = 0;
	int base = 10;
	if (s[i] == 'x') {
		base = 16;
		i++;
	}
	size_t digits = 0;
	for (; i < len && s[i] != ';' && digits < 8; i++, digits++) {
		char ch = s[i];
		int d = ch >= '0' && ch <= '9' ? ch - '0'
			: base == 16 && ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
			: base == 16 && ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
		if (d < 0)
			return -1;
		cp = cp * (unsigned long)base + (unsigned long)d;
	}
	if (i >= len || s[i] != ';' || digits == 0 || cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return -1;
	*used = i + 1;
	unsigned char u[4];
	size_t n;
	if (cp < 0x80) {
		u[0] = (unsigned char)cp, n = 1;
	} else if (cp < 0x800) {
		u[0] = (unsigned char)(0xC0 | (cp >> 6)), u[1] = (unsigned char)(0x80 | (cp & 0x3F)), n = 2;
	} else if (cp < 0x10000) {
		u[0] = (unsigned char)(0xE0 | (cp >> 12)), u[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
		u[2] = (unsigned char)(0x80 | (cp & 0x3F)), n = 3;
	} else {
		u[0] = (unsigned char)(0xF0 | (cp >> 18)), u[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
		u[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F)), u[3] = (unsigned char)(0x80 | (cp & 0x3F)), n = 4;
	}
	return floe_buf_put(out, u, n);
}

/* Where `needle` (nlen bytes) first occurs in xml[from, len), or len. */
static size_t find(const char *xml, size_t len, size_t from, const char *needle, size_t nlen)
{
	for (size_t i = from; i + nlen <= len; i++)
		if (xml[i] == needle[0] && memcmp(xml + i, needle, nlen) == 0)
			return i;
	return len;
}

int floe_net_xml_next(floe_buf *out, const char *xml, size_t len, size_t *cursor, const char *tag)
{
	char open[80], close[82];
	size_t tlen = strlen(tag);
	if (tlen == 0 || tlen + 3 >= sizeof(open))
		return floe_error_set(FLOE_ERR_INTERNAL, "XML element name \"%s\" is too long", tag);
	memcpy(open, "<", 1), memcpy(open + 1, tag, tlen), memcpy(open + 1 + tlen, ">", 2);
	memcpy(close, "</", 2), memcpy(close + 2, tag, tlen), memcpy(close + 2 + tlen, ">", 2);
	size_t start = find(xml, len, *cursor, open, tlen + 2);
	if (start >= len)
		return 0;
	start += tlen + 2;
	size_t end = find(xml, len, start, close, tlen + 3);
	if (end >= len)
		return floe_error_set(FLOE_ERR_IO, "malformed XML reply: <%s> is not closed", tag);
	floe_buf_clear(out);
	floe_buf_puts(out, "");
	for (size_t i = start; i < end;) {
		size_t used = 1;
		if (xml[i] == '<' || xml[i] == '\0')
			return floe_error_set(FLOE_ERR_IO, "malformed XML reply: <%s> holds markup or a NUL", tag);
		if (xml[i] == '&' ? decode_ref(out, xml + i, end - i, &used) < 0 : floe_buf_putc(out, xml[i]) < 0)
			return floe_error_set(FLOE_ERR_IO, "malformed XML reply: a bad reference in <%s>", tag);
		i += used;
	}
	*cursor = end + tlen + 3;
	return 1;
}
