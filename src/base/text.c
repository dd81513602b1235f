/*
 * text.c — edit distance, suggestions, strict integer parsing, terminal-safe text,
 * names of enum values read back.
 */
#include "base/text.h"

#include "base/error.h"
#include "base/utf8.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EDIT_LEN 64

size_t floe_text_edit_distance(const char *a, const char *b)
{
	/* Optimal string alignment: insert, delete, substitute, swap two neighbours. */
	size_t la = strlen(a), lb = strlen(b);
	if (la > MAX_EDIT_LEN || lb > MAX_EDIT_LEN)
		return SIZE_MAX;
	unsigned char d[MAX_EDIT_LEN + 1][MAX_EDIT_LEN + 1];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (unsigned char)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (unsigned char)j;
	for (size_t i = 1; i <= la; i++) {
		int ca = tolower((unsigned char)a[i - 1]);
		for (size_t j = 1; j <= lb; j++) {
			int cb = tolower((unsigned char)b[j - 1]);
			unsigned best = d[i - 1][j - 1] + (ca != cb);
			if (d[i - 1][j] + 1u < best)
				best = d[i - 1][j] + 1u;
			if (d[i][j - 1] + 1u < best)
				best = d[i][j - 1] + 1u;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1u < best)
				best = d[i - 2][j - 2] + 1u;
			d[i][j] = (unsigned char)best;
		}
	}
	return d[la][lb];
}

const char *floe_text_suggest(const char *word, const char *const *candidates)
{
	size_t limit = strlen(word) / 3;
	if (limit < 1)
		limit = 1;
	const char *best = NULL;
	size_t best_d = SIZE_MAX;
	for (const char *const *c = candidates; *c; c++) {
		size_t d = floe_text_edit_distance(word, *c);
		if (d < best_d) {
			best_d = d;
			best = *c;
		}
	}
	return best_d <= limit ? best : NULL;
}

int floe_text_parse_int64(int64_t *out, const char *s, size_t len, int64_t min, int64_t max)
{
	size_t i = 0;
	int neg = 0;
	if (len == 0)
		return -1;
	if (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-';
		i = 1;
		if (len == 1)
			return -1;
	}
	uint64_t v = 0;
	for (; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		uint64_t d = (uint64_t)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	if (neg) {
		if (v > (uint64_t)INT64_MAX + 1)
			return -1;
		int64_t r = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
		if (r < min)
			return -1;
		*out = r;
	} else {
		if (v > (uint64_t)INT64_MAX || (int64_t)v > max)
			return -1;
		*out = (int64_t)v;
	}
	return *out >= min ? 0 : -1;
}

int floe_text_put_printable(floe_buf *out, const char *s)
{
	if (!s)
		return floe_buf_puts(out, "(null)");
	size_t len = strlen(s);
	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)s[i];
		size_t n = floe_utf8_len(s + i, len - i);
		int rc = 0;
		if (n == 0) {
			rc = floe_buf_printf(out, "\\x%02x", c);
			n = 1;
		} else if (n == 1 && (c < 0x20 || c == 0x7f || c == '\\')) {
			switch (c) {
			case '\n': rc = floe_buf_puts(out, "\\n"); break;
			case '\r': rc = floe_buf_puts(out, "\\r"); break;
			case '\t': rc = floe_buf_puts(out, "\\t"); break;
			case 0x1b: rc = floe_buf_puts(out, "\\e"); break;
			case '\\': rc = floe_buf_puts(out, "\\\\"); break;
			default: rc = floe_buf_printf(out, "\\x%02x", c); break;
			}
		} else if (n == 2 && c == 0xc2 && (unsigned char)s[i + 1] < 0xa0) {
			/* C1 controls U+0080..U+009F (CSI U+009B among them). */
			rc = floe_buf_printf(out, "\\u{%04x}", (unsigned char)s[i + 1] & 0xff);
		} else {
			rc = floe_buf_put(out, s + i, n);
		}
		if (rc < 0)
			return -1;
		i += n;
	}
	return 0;
}

char *floe_text_printable(const char *s)
{
	floe_buf b;
	floe_buf_init(&b, FLOE_BUF_DEFAULT_MAX);
	if (floe_text_put_printable(&b, s) < 0) {
		floe_buf_free(&b);
		return NULL;
	}
	return floe_buf_detach(&b, NULL);
}

int floe_text_put_printable_padded(floe_buf *out, const char *s, size_t width)
{
	size_t before = out->len, n = 0;
	if (floe_text_put_printable(out, s) < 0)
		return -1;
	for (size_t i = before; i < out->len; i++)
		n += ((unsigned char)out->ptr[i] & 0xC0) != 0x80;
	for (; n < width; n++)
		if (floe_buf_putc(out, ' ') < 0)
			return -1;
	return 0;
}

int floe_text_name_index(const char *what, const char *const *names, size_t n, const char *text)
{
	for (size_t i = 0; text && i < n; i++)
		if (names[i] && strcmp(names[i], text) == 0)
			return (int)i;
	if (what) {
		char *shown = floe_text_printable(text ? text : "");
		floe_error_set(FLOE_ERR_CONFIG, "unknown %s \"%s\"", what, shown ? shown : "");
		free(shown);
	}
	return -1;
}
