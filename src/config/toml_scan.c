/*
 * toml_scan.c — the TOML cursor and its lexical pieces: errors with positions,
 * the encoding check, whitespace, newlines, comments, strings and keys.
 *
 * Strings are decoded into the parser's scratch buffer and then copied into the
 * document's arena, so nothing handed out points into the caller's text.
 */
#include "config/toml_int.h"
#include "base/utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void toml_advance(toml_parser *ps, size_t n)
{
	for (size_t i = 0; i < n && ps->pos < ps->len; i++) {
		unsigned char c = (unsigned char)ps->text[ps->pos++];
		if (c == '\n') {
			ps->line++;
			ps->col = 1;
		} else if ((c & 0xC0) != 0x80) {
			ps->col++;
		}
	}
}

int toml_fail_at(toml_parser *ps, int line, int col, const char *fmt, ...)
{
	va_list ap;
	if (ps->failed)
		return -1;
	ps->failed = true;
	ps->err->line = line;
	ps->err->col = col;
	va_start(ap, fmt);
	vsnprintf(ps->err->message, sizeof(ps->err->message), fmt, ap);
	va_end(ap);
	return -1;
}

static bool is_control(int c)
{
	return (c >= 0 && c < 0x20 && c != '\t') || c == 0x7F;
}

const char *toml_describe_here(const toml_parser *ps, char *buf, size_t cap)
{
	int c = toml_peek(ps, 0);
	if (c < 0)
		snprintf(buf, cap, "end of file");
	else if (c == '\n' || (c == '\r' && toml_peek(ps, 1) == '\n'))
		snprintf(buf, cap, "a newline");
	else if (is_control(c))
		snprintf(buf, cap, "control character U+%04X", (unsigned)c);
	else if (c < 0x80)
		snprintf(buf, cap, "`%c`", c);
	else
		snprintf(buf, cap, "a non-ascii character");
	return buf;
}

static bool is_bare_key_char(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

/* Append one key part to buf at *used, quoted unless bare, never past cap - 1. */
static void describe_part(floe_slice name, char *buf, size_t cap, size_t *used)
{
	bool bare = name.len > 0;
	for (size_t i = 0; i < name.len; i++)
		bare = bare && is_bare_key_char((unsigned char)name.ptr[i]);
	if (!bare && *used + 1 < cap)
		buf[(*used)++] = '"';
	for (size_t i = 0; i < name.len && *used + 1 < cap; i++) {
		unsigned char c = (unsigned char)name.ptr[i];
		buf[(*used)++] = (c < 0x20 || c == 0x7F) ? '?' : (char)c;
	}
	if (!bare && *used + 1 < cap)
		buf[(*used)++] = '"';
}

const char *toml_describe_key(const toml_parser *ps, int n, char *buf, size_t cap)
{
	size_t used = 0;
	for (int i = 0; i < n; i++) {
		if (i > 0 && used + 1 < cap)
			buf[used++] = '.';
		describe_part(ps->keys[i].name, buf, cap, &used);
	}
	buf[used] = '\0';
	if (used + 1 >= cap && cap > 4)
		memcpy(buf + cap - 4, "...", 4);
	return buf;
}

int toml_check_encoding(toml_parser *ps)
{
	const unsigned char *s = (const unsigned char *)ps->text;
	size_t i = 0, n = 0;
	for (; i < ps->len; i += n) {
		n = s[i] == 0 ? 0 : floe_utf8_len(ps->text + i, ps->len - i);
		if (n == 0)
			break;
	}
	if (i == ps->len)
		return 0;
	/* Walk the cursor there so the error carries a line and column. */
	toml_advance(ps, i);
	if (s[i] == 0)
		return toml_fail(ps, "nul byte in document (toml text must be utf-8)");
	return toml_fail(ps, "invalid utf-8 byte 0x%02X", (unsigned)s[i]);
}

void toml_skip_ws(toml_parser *ps)
{
	int c;
	while ((c = toml_peek(ps, 0)) == ' ' || c == '\t')
		toml_advance(ps, 1);
}

int toml_eat_newline(toml_parser *ps)
{
	int c = toml_peek(ps, 0);
	if (c == '\n') {
		toml_advance(ps, 1);
		return 1;
	}
	if (c != '\r')
		return 0;
	if (toml_peek(ps, 1) != '\n')
		return toml_fail(ps, "carriage return not followed by a newline");
	toml_advance(ps, 2);
	return 1;
}

int toml_skip_comment(toml_parser *ps)
{
	int c;
	toml_advance(ps, 1);
	while ((c = toml_peek(ps, 0)) >= 0 && c != '\n') {
		if (c == '\r' && toml_peek(ps, 1) == '\n')
			break;
		if (is_control(c))
			return toml_fail(ps, "control character U+%04X in comment", (unsigned)c);
		toml_advance(ps, 1);
	}
	return 0;
}

int toml_skip_blank(toml_parser *ps)
{
	for (;;) {
		toml_skip_ws(ps);
		if (toml_peek(ps, 0) == '#' && toml_skip_comment(ps) < 0)
			return -1;
		int nl = toml_eat_newline(ps);
		if (nl <= 0)
			return nl;
	}
}

int toml_expect_eol(toml_parser *ps)
{
	char what[64];
	toml_skip_ws(ps);
	if (toml_peek(ps, 0) == '#' && toml_skip_comment(ps) < 0)
		return -1;
	if (toml_at_end(ps))
		return 0;
	int nl = toml_eat_newline(ps);
	if (nl < 0)
		return -1;
	if (nl == 0)
		return toml_fail(ps, "expected a newline or a comment, found %s",
				 toml_describe_here(ps, what, sizeof(what)));
	return 0;
}

/* Append code point `cp` (already checked to be a scalar value) as UTF-8. */
static int put_utf8(toml_parser *ps, uint32_t cp)
{
	char b[4];
	if (floe_buf_put(&ps->scratch, b, floe_utf8_put(b, cp)) < 0)
		return toml_fail(ps, "string too long");
	return 0;
}

static int hex_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* After `\u` or `\U` (cursor on the first digit): `ndigits` hex digits. */
static int unicode_escape(toml_parser *ps, int ndigits)
{
	int line = ps->line, col = ps->col - 2;
	uint32_t cp = 0;
	for (int i = 0; i < ndigits; i++) {
		int h = hex_value(toml_peek(ps, 0));
		if (h < 0)
			return toml_fail(ps, "\\%c escape needs %d hex digits",
					 ndigits == 4 ? 'u' : 'U', ndigits);
		cp = (cp << 4) | (uint32_t)h;
		toml_advance(ps, 1);
	}
	if (cp >= 0xD800 && cp <= 0xDFFF)
		return toml_fail_at(ps, line, col, "escape U+%04X is a surrogate, not a unicode "
				    "scalar value", (unsigned)cp);
	if (cp > 0x10FFFF)
		return toml_fail_at(ps, line, col, "escape U+%X is beyond U+10FFFF", (unsigned)cp);
	return put_utf8(ps, cp);
}

/* In a multi-line basic string, after `\` followed by blanks: a line-ending backslash. */
static int line_ending_backslash(toml_parser *ps)
{
	int line = ps->line, col = ps->col - 1;
	toml_skip_ws(ps);
	int nl = toml_eat_newline(ps);
	if (nl < 0)
		return -1;
	if (nl == 0)
		return toml_fail_at(ps, line, col, "a backslash followed by whitespace must end "
				    "the line");
	for (;;) {
		toml_skip_ws(ps);
		nl = toml_eat_newline(ps);
		if (nl <= 0)
			return nl;
	}
}

/* Cursor on the backslash of an escape in a basic string. */
static int escape(toml_parser *ps, bool multiline)
{
	static const char from[] = "btnfr\"\\", to[] = "\b\t\n\f\r\"\\";
	char what[64];
	int c = toml_peek(ps, 1);
	const char *hit = c > 0 ? strchr(from, c) : NULL;
	if (multiline && (c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
		toml_advance(ps, 1);
		return line_ending_backslash(ps);
	}
	if (c == 'u' || c == 'U') {
		toml_advance(ps, 2);
		return unicode_escape(ps, c == 'u' ? 4 : 8);
	}
	if (hit) {
		toml_advance(ps, 2);
		if (floe_buf_putc(&ps->scratch, to[hit - from]) < 0)
			return toml_fail(ps, "string too long");
		return 0;
	}
	toml_advance(ps, 1);
	if (c > 0x20 && c < 0x7F)
		return toml_fail(ps, "invalid escape sequence `\\%c`", c);
	return toml_fail(ps, "invalid escape sequence: backslash followed by %s",
			 toml_describe_here(ps, what, sizeof(what)));
}

/*
 * At a run of closing quotes in a multi-line string: 1 and 2 quotes are content,
 * 3 to 5 end the string (the extra ones are content), 6 or more are an error.
 * Returns 1 when the string ended, 0 to go on, -1 on error.
 */
static int multiline_quotes(toml_parser *ps, int q)
{
	size_t run = 0;
	while (toml_peek(ps, run) == q)
		run++;
	if (run >= 6)
		return toml_fail(ps, "too many quotes: at most two may precede the closing %c%c%c",
				 q, q, q);
	size_t content = run >= 3 ? run - 3 : run;
	for (size_t i = 0; i < content; i++) {
		if (floe_buf_putc(&ps->scratch, (char)q) < 0)
			return toml_fail(ps, "string too long");
	}
	toml_advance(ps, run);
	return run >= 3 ? 1 : 0;
}

/*
 * One step inside a string body: copy a character, decode an escape, or notice
 * the end. Returns 1 when the string is closed, 0 to go on, -1 on error.
 */
static int string_step(toml_parser *ps, int q, bool multiline)
{
	int c = toml_peek(ps, 0);
	if (c == q && multiline)
		return multiline_quotes(ps, q);
	if (c == q) {
		toml_advance(ps, 1);
		return 1;
	}
	if (c == '\\' && q == '"')
		return escape(ps, multiline);
	if (multiline && (c == '\n' || c == '\r')) {
		if (toml_eat_newline(ps) < 0)
			return -1;
		return floe_buf_putc(&ps->scratch, '\n') < 0 ? toml_fail(ps, "string too long") : 0;
	}
	if (c < 0 || c == '\n' || (c == '\r' && toml_peek(ps, 1) == '\n'))
		return toml_fail(ps, "unterminated string%s",
				 multiline ? "" : " (use \"\"\" or ''' for multi-line strings)");
	if (is_control(c))
		return toml_fail(ps, "control character U+%04X in string (escape it)", (unsigned)c);
	if (floe_buf_putc(&ps->scratch, (char)c) < 0)
		return toml_fail(ps, "string too long");
	toml_advance(ps, 1);
	return 0;
}

int toml_parse_string(floe_slice *out, toml_parser *ps, bool allow_multiline)
{
	int q = toml_peek(ps, 0), rc;
	bool multiline = allow_multiline && toml_peek(ps, 1) == q && toml_peek(ps, 2) == q;
	floe_buf_clear(&ps->scratch);
	toml_advance(ps, multiline ? 3 : 1);
	/* A newline right after the opening delimiter is not part of the string. */
	if (multiline && toml_eat_newline(ps) < 0)
		return -1;
	while ((rc = string_step(ps, q, multiline)) == 0)
		;
	if (rc < 0)
		return -1;
	out->ptr = floe_arena_strndup(ps->arena, ps->scratch.ptr ? ps->scratch.ptr : "",
				      ps->scratch.len);
	out->len = ps->scratch.len;
	return 0;
}

/* One part of a key: bare, "basic" or 'literal'. */
static int key_part(toml_parser *ps, toml_key_part *part)
{
	char what[64];
	int c = toml_peek(ps, 0);
	size_t n = 0;
	part->line = ps->line;
	part->col = ps->col;
	if (c == '"' || c == '\'') {
		if (toml_peek(ps, 1) == c && toml_peek(ps, 2) == c)
			return toml_fail(ps, "a key cannot be a multi-line string");
		return toml_parse_string(&part->name, ps, false);
	}
	while (is_bare_key_char(toml_peek(ps, n)))
		n++;
	if (n == 0)
		return toml_fail(ps, "expected a key, found %s",
				 toml_describe_here(ps, what, sizeof(what)));
	part->name.ptr = floe_arena_strndup(ps->arena, ps->text + ps->pos, n);
	part->name.len = n;
	toml_advance(ps, n);
	return 0;
}

int toml_parse_key(toml_parser *ps)
{
	ps->nkeys = 0;
	for (;;) {
		if (ps->nkeys == FLOE_TOML_MAX_DEPTH)
			return toml_fail(ps, "key has more than %d dotted parts", FLOE_TOML_MAX_DEPTH);
		if (key_part(ps, &ps->keys[ps->nkeys]) < 0)
			return -1;
		ps->nkeys++;
		toml_skip_ws(ps);
		if (toml_peek(ps, 0) != '.')
			return 0;
		toml_advance(ps, 1);
		toml_skip_ws(ps);
	}
}
