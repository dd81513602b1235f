/*
 * json_read.c — the JSON reader: RFC 8259 text into a tree owned by an arena.
 *
 * A recursive descent parser bounded by FLOE_JSON_MAX_DEPTH. It is strict: no
 * comments, no trailing commas, no leading zeros, no NaN, no control characters
 * in strings, no invalid UTF-8, no lone surrogates, no duplicate member names.
 * Objects with many members get a sorted index when they close, which both finds
 * duplicates and serves floe_json_get() by binary search.
 * Numbers are converted with strtod, which assumes the C locale's decimal point.
 */
#include "base/arena.h"
#include "base/json.h"
#include "base/utf8.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SORTED_MIN 8 /* objects with fewer members are searched linearly */

typedef struct json_member {
	floe_slice key;
	size_t offset; /* of the name */
	floe_json_value *value;
} json_member;

struct floe_json_value {
	floe_json_type type;
	size_t offset;
	union {
		bool b;
		floe_slice str;
		struct {
			floe_slice text;
			double d;
			int64_t i;
			bool is_int;
		} num;
		struct {
			floe_json_value **items;
			size_t len, cap;
		} arr;
		struct {
			json_member *members;
			size_t len, cap;
			json_member **sorted; /* by name; NULL while small */
		} obj;
	} u;
};

struct floe_json_doc {
	floe_arena *arena;
	floe_json_value *root;
};

typedef struct json_parser {
	floe_arena *arena;
	const char *text;
	size_t len, pos;
	floe_json_error *err;
	bool failed;
	floe_buf scratch;
} json_parser;

static int parse_value(floe_json_value **out, json_parser *ps, int depth);

static int peek(const json_parser *ps)
{
	return ps->pos < ps->len ? (unsigned char)ps->text[ps->pos] : -1;
}

/* Record the first error, at byte `offset`. Returns -1. */
static int __attribute__((format(printf, 3, 4)))
fail_at(json_parser *ps, size_t offset, const char *fmt, ...)
{
	va_list ap;
	if (ps->failed)
		return -1;
	ps->failed = true;
	ps->err->offset = offset;
	ps->err->line = 1;
	ps->err->col = 1;
	for (size_t i = 0; i < offset && i < ps->len; i++) {
		ps->err->col++;
		if (ps->text[i] == '\n') {
			ps->err->line++;
			ps->err->col = 1;
		}
	}
	va_start(ap, fmt);
	vsnprintf(ps->err->message, sizeof(ps->err->message), fmt, ap);
	va_end(ap);
	return -1;
}

static const char *describe_here(const json_parser *ps, char *buf, size_t cap)
{
	int c = peek(ps);
	if (c < 0)
		snprintf(buf, cap, "end of input");
	else if (c > 0x20 && c < 0x7F)
		snprintf(buf, cap, "`%c`", c);
	else
		snprintf(buf, cap, "byte 0x%02X", (unsigned)c);
	return buf;
}

static int unexpected(json_parser *ps, const char *expected)
{
	char what[32];
	return fail_at(ps, ps->pos, "expected %s, found %s", expected,
		       describe_here(ps, what, sizeof(what)));
}

static void skip_ws(json_parser *ps)
{
	int c;
	while ((c = peek(ps)) == ' ' || c == '\t' || c == '\n' || c == '\r')
		ps->pos++;
}

static floe_json_value *new_value(json_parser *ps, floe_json_type type)
{
	floe_json_value *v = floe_arena_alloc(ps->arena, sizeof(*v));
	v->type = type;
	v->offset = ps->pos;
	return v;
}

static int hex4(json_parser *ps, uint32_t *out)
{
	uint32_t v = 0;
	for (int i = 0; i < 4; i++) {
		int c = peek(ps), h = c >= '0' && c <= '9' ? c - '0' :
				      c >= 'a' && c <= 'f' ? c - 'a' + 10 :
				      c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (h < 0)
			return unexpected(ps, "a hex digit in \\u escape");
		v = (v << 4) | (uint32_t)h;
		ps->pos++;
	}
	*out = v;
	return 0;
}

/* Cursor after `\u`: one escape, or a surrogate pair written as two. */
static int unicode_escape(json_parser *ps, size_t start)
{
	uint32_t cp = 0, lo = 0;
	char b[4];
	if (hex4(ps, &cp) < 0)
		return -1;
	if (cp >= 0xDC00 && cp <= 0xDFFF)
		return fail_at(ps, start, "lone low surrogate \\u%04X in string", (unsigned)cp);
	if (cp >= 0xD800 && cp <= 0xDBFF) {
		if (ps->len - ps->pos < 2 || ps->text[ps->pos] != '\\' || ps->text[ps->pos + 1] != 'u')
			return fail_at(ps, start, "high surrogate \\u%04X not followed by a low "
				       "surrogate", (unsigned)cp);
		ps->pos += 2;
		if (hex4(ps, &lo) < 0)
			return -1;
		if (lo < 0xDC00 || lo > 0xDFFF)
			return fail_at(ps, start, "high surrogate \\u%04X not followed by a low "
				       "surrogate", (unsigned)cp);
		cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
	}
	return floe_buf_put(&ps->scratch, b, floe_utf8_put(b, cp)) < 0 ?
		       fail_at(ps, start, "string too long") : 0;
}

/* Cursor on a backslash. */
static int escape(json_parser *ps)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	size_t start = ps->pos;
	int c;
	const char *hit;
	ps->pos++;
	c = peek(ps);
	if (c == 'u') {
		ps->pos++;
		return unicode_escape(ps, start);
	}
	hit = c > 0 ? strchr(from, c) : NULL;
	if (!hit)
		return fail_at(ps, start, "invalid escape sequence in string");
	ps->pos++;
	return floe_buf_putc(&ps->scratch, to[hit - from]) < 0 ? fail_at(ps, start, "string too long") :
								  0;
}

/* One step in a string body: 1 at the closing quote, 0 to go on, -1 on error. */
static int string_step(json_parser *ps, size_t start)
{
	int c = peek(ps);
	size_t n;
	if (c < 0)
		return fail_at(ps, start, "unterminated string");
	if (c == '"') {
		ps->pos++;
		return 1;
	}
	if (c == '\\')
		return escape(ps);
	if (c < 0x20)
		return fail_at(ps, ps->pos, "control character 0x%02X in string (escape it)",
			       (unsigned)c);
	n = floe_utf8_len(ps->text + ps->pos, ps->len - ps->pos);
	if (n == 0)
		return fail_at(ps, ps->pos, "invalid utf-8 in string");
	if (floe_buf_put(&ps->scratch, ps->text + ps->pos, n) < 0)
		return fail_at(ps, start, "string too long");
	ps->pos += n;
	return 0;
}

/* Cursor on the opening quote. */
static int parse_string(floe_slice *out, json_parser *ps)
{
	size_t start = ps->pos;
	int rc;
	ps->pos++;
	floe_buf_clear(&ps->scratch);
	while ((rc = string_step(ps, start)) == 0)
		;
	if (rc < 0)
		return -1;
	out->ptr = floe_arena_strndup(ps->arena, ps->scratch.ptr ? ps->scratch.ptr : "",
				      ps->scratch.len);
	out->len = ps->scratch.len;
	return 0;
}

static size_t skip_digits(const json_parser *ps, size_t i)
{
	while (i < ps->len && ps->text[i] >= '0' && ps->text[i] <= '9')
		i++;
	return i;
}

/* The end of the number at the cursor per the RFC grammar, or 0 when malformed. */
static size_t number_end(const json_parser *ps, bool *is_int)
{
	size_t i = ps->pos, d;
	const char *s = ps->text;
	if (i < ps->len && s[i] == '-')
		i++;
	if (i < ps->len && s[i] == '0')
		i++;
	else if ((d = skip_digits(ps, i)) > i)
		i = d;
	else
		return 0;
	*is_int = true;
	if (i < ps->len && s[i] == '.') {
		if ((d = skip_digits(ps, i + 1)) == i + 1)
			return 0;
		i = d;
		*is_int = false;
	}
	if (i < ps->len && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < ps->len && (s[i] == '+' || s[i] == '-'))
			i++;
		if ((d = skip_digits(ps, i)) == i)
			return 0;
		i = d;
		*is_int = false;
	}
	return i;
}

static int parse_number(floe_json_value *v, json_parser *ps)
{
	bool is_int = false;
	size_t end = number_end(ps, &is_int), n;
	char *stop = NULL;
	if (end == 0)
		return fail_at(ps, ps->pos, "malformed number");
	n = end - ps->pos;
	v->u.num.text.ptr = floe_arena_strndup(ps->arena, ps->text + ps->pos, n);
	v->u.num.text.len = n;
	v->u.num.d = strtod(v->u.num.text.ptr, &stop);
	if (stop != v->u.num.text.ptr + n)
		return fail_at(ps, ps->pos, "could not convert number (is LC_NUMERIC not \"C\"?)");
	if (isinf(v->u.num.d))
		return fail_at(ps, ps->pos, "number out of range for a double");
	if (is_int) {
		errno = 0;
		long long ll = strtoll(v->u.num.text.ptr, &stop, 10);
		v->u.num.is_int = errno == 0 && stop == v->u.num.text.ptr + n;
		v->u.num.i = (int64_t)ll;
	}
	ps->pos = end;
	return 0;
}

static int parse_literal(floe_json_value *v, json_parser *ps)
{
	static const struct {
		const char *word;
		floe_json_type type;
		bool b;
	} words[] = { { "true", FLOE_JSON_BOOL, true }, { "false", FLOE_JSON_BOOL, false },
		      { "null", FLOE_JSON_NULL, false } };
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t n = strlen(words[i].word);
		if (ps->len - ps->pos >= n && memcmp(ps->text + ps->pos, words[i].word, n) == 0) {
			v->type = words[i].type;
			v->u.b = words[i].b;
			ps->pos += n;
			return 0;
		}
	}
	return unexpected(ps, "a value");
}

static void array_push(json_parser *ps, floe_json_value *a, floe_json_value *item)
{
	if (a->u.arr.len == a->u.arr.cap) {
		size_t cap = a->u.arr.cap ? a->u.arr.cap * 2 : 4;
		floe_json_value **grown = floe_arena_alloc(ps->arena, cap * sizeof(*grown));
		if (a->u.arr.len)
			memcpy(grown, a->u.arr.items, a->u.arr.len * sizeof(*grown));
		a->u.arr.items = grown;
		a->u.arr.cap = cap;
	}
	a->u.arr.items[a->u.arr.len++] = item;
}

static int parse_array(floe_json_value *a, json_parser *ps, int depth)
{
	floe_json_value *item = NULL;
	ps->pos++;
	skip_ws(ps);
	if (peek(ps) == ']') {
		ps->pos++;
		return 0;
	}
	for (;;) {
		if (parse_value(&item, ps, depth + 1) < 0)
			return -1;
		array_push(ps, a, item);
		skip_ws(ps);
		if (peek(ps) == ']') {
			ps->pos++;
			return 0;
		}
		if (peek(ps) != ',')
			return unexpected(ps, "`,` or `]` in array");
		ps->pos++;
	}
}

static int member_cmp(const void *a, const void *b)
{
	floe_slice x = (*(json_member *const *)a)->key, y = (*(json_member *const *)b)->key;
	size_t n = x.len < y.len ? x.len : y.len;
	int c = n ? memcmp(x.ptr, y.ptr, n) : 0;
	return c ? c : (x.len > y.len) - (x.len < y.len);
}

/* Find duplicate names: pairwise while small, through a sorted index when large. */
static int object_close(json_parser *ps, floe_json_value *o)
{
	json_member *m = o->u.obj.members, **sorted;
	size_t n = o->u.obj.len, dup = n;
	if (n < SORTED_MIN) {
		for (size_t i = 1; i < n && dup == n; i++)
			for (size_t j = 0; j < i && dup == n; j++)
				dup = floe_slice_eq(m[i].key, m[j].key) ? i : n;
	} else {
		sorted = floe_arena_alloc(ps->arena, n * sizeof(*sorted));
		for (size_t i = 0; i < n; i++)
			sorted[i] = &m[i];
		qsort(sorted, n, sizeof(*sorted), member_cmp);
		for (size_t i = 1; i < n && dup == n; i++)
			dup = member_cmp(&sorted[i - 1], &sorted[i]) == 0 ? (size_t)(sorted[i] - m) : n;
		o->u.obj.sorted = sorted;
	}
	if (dup == n)
		return 0;
	return fail_at(ps, m[dup].offset, "duplicate member name \"%.*s\" in object",
		       (int)(m[dup].key.len > 64 ? 64 : m[dup].key.len), m[dup].key.ptr);
}

static int object_member(json_parser *ps, floe_json_value *o, int depth)
{
	json_member m = { { NULL, 0 }, ps->pos, NULL };
	if (peek(ps) != '"')
		return unexpected(ps, "a member name (a string)");
	if (parse_string(&m.key, ps) < 0)
		return -1;
	skip_ws(ps);
	if (peek(ps) != ':')
		return unexpected(ps, "`:` after member name");
	ps->pos++;
	if (parse_value(&m.value, ps, depth + 1) < 0)
		return -1;
	if (o->u.obj.len == o->u.obj.cap) {
		size_t cap = o->u.obj.cap ? o->u.obj.cap * 2 : 4;
		json_member *grown = floe_arena_alloc(ps->arena, cap * sizeof(*grown));
		if (o->u.obj.len)
			memcpy(grown, o->u.obj.members, o->u.obj.len * sizeof(*grown));
		o->u.obj.members = grown;
		o->u.obj.cap = cap;
	}
	o->u.obj.members[o->u.obj.len++] = m;
	return 0;
}

static int parse_object(floe_json_value *o, json_parser *ps, int depth)
{
	ps->pos++;
	skip_ws(ps);
	if (peek(ps) == '}') {
		ps->pos++;
		return 0;
	}
	for (;;) {
		if (object_member(ps, o, depth) < 0)
			return -1;
		skip_ws(ps);
		if (peek(ps) == '}') {
			ps->pos++;
			return object_close(ps, o);
		}
		if (peek(ps) != ',')
			return unexpected(ps, "`,` or `}` in object");
		ps->pos++;
		skip_ws(ps);
	}
}

static int parse_value(floe_json_value **out, json_parser *ps, int depth)
{
	floe_json_value *v;
	int c;
	skip_ws(ps);
	c = peek(ps);
	v = new_value(ps, FLOE_JSON_NULL);
	*out = v;
	if ((c == '[' || c == '{') && depth >= FLOE_JSON_MAX_DEPTH)
		return fail_at(ps, ps->pos, "nesting deeper than %d levels", FLOE_JSON_MAX_DEPTH);
	if (c == '{') {
		v->type = FLOE_JSON_OBJECT;
		return parse_object(v, ps, depth);
	}
	if (c == '[') {
		v->type = FLOE_JSON_ARRAY;
		return parse_array(v, ps, depth);
	}
	if (c == '"') {
		v->type = FLOE_JSON_STRING;
		return parse_string(&v->u.str, ps);
	}
	if (c == '-' || (c >= '0' && c <= '9')) {
		v->type = FLOE_JSON_NUMBER;
		return parse_number(v, ps);
	}
	return parse_literal(v, ps);
}

int floe_json_parse(floe_json_doc **out, const char *text, size_t len, floe_json_error *err)
{
	floe_json_error local;
	floe_json_doc *doc = floe_xcalloc(1, sizeof(*doc));
	json_parser ps = { 0 };
	int error = -1;
	*out = NULL;
	doc->arena = floe_arena_new();
	ps.arena = doc->arena;
	ps.text = len ? text : "";
	ps.len = len;
	ps.err = err ? err : &local;
	memset(ps.err, 0, sizeof(*ps.err));
	floe_buf_init(&ps.scratch, len + 16);
	if (parse_value(&doc->root, &ps, 0) < 0)
		goto cleanup;
	skip_ws(&ps);
	if (ps.pos < ps.len) {
		unexpected(&ps, "end of input after the value");
		goto cleanup;
	}
	*out = doc;
	doc = NULL;
	error = 0;
cleanup:
	floe_buf_free(&ps.scratch);
	floe_json_free(doc);
	return error;
}

void floe_json_free(floe_json_doc *doc)
{
	if (!doc)
		return;
	floe_arena_free(doc->arena);
	free(doc);
}

const floe_json_value *floe_json_root(const floe_json_doc *doc)
{
	return doc->root;
}

floe_json_type floe_json_type_of(const floe_json_value *v)
{
	return v->type;
}

const char *floe_json_type_name(floe_json_type t)
{
	switch (t) {
	case FLOE_JSON_NULL: return "null";
	case FLOE_JSON_BOOL: return "boolean";
	case FLOE_JSON_NUMBER: return "number";
	case FLOE_JSON_STRING: return "string";
	case FLOE_JSON_ARRAY: return "array";
	case FLOE_JSON_OBJECT: return "object";
	}
	return "unknown";
}

size_t floe_json_offset(const floe_json_value *v)
{
	return v->offset;
}

size_t floe_json_count(const floe_json_value *v)
{
	if (!v)
		return 0;
	if (v->type == FLOE_JSON_OBJECT)
		return v->u.obj.len;
	if (v->type == FLOE_JSON_ARRAY)
		return v->u.arr.len;
	return 0;
}

floe_slice floe_json_key_at(const floe_json_value *object, size_t i)
{
	assert(object->type == FLOE_JSON_OBJECT && i < object->u.obj.len);
	return object->u.obj.members[i].key;
}

const floe_json_value *floe_json_value_at(const floe_json_value *v, size_t i)
{
	if (v->type == FLOE_JSON_OBJECT) {
		assert(i < v->u.obj.len);
		return v->u.obj.members[i].value;
	}
	assert(v->type == FLOE_JSON_ARRAY && i < v->u.arr.len);
	return v->u.arr.items[i];
}

const floe_json_value *floe_json_get_slice(const floe_json_value *object, floe_slice key)
{
	json_member probe = { key, 0, NULL }, *pp = &probe, **hit;
	if (!object || object->type != FLOE_JSON_OBJECT)
		return NULL;
	if (object->u.obj.sorted) {
		hit = bsearch(&pp, object->u.obj.sorted, object->u.obj.len,
			      sizeof(*object->u.obj.sorted), member_cmp);
		return hit ? (*hit)->value : NULL;
	}
	for (size_t i = 0; i < object->u.obj.len; i++) {
		if (floe_slice_eq(object->u.obj.members[i].key, key))
			return object->u.obj.members[i].value;
	}
	return NULL;
}

const floe_json_value *floe_json_get(const floe_json_value *object, const char *key)
{
	return floe_json_get_slice(object, floe_slice_from(key));
}

floe_slice floe_json_string(const floe_json_value *v)
{
	assert(v->type == FLOE_JSON_STRING);
	return v->u.str;
}

bool floe_json_bool(const floe_json_value *v)
{
	assert(v->type == FLOE_JSON_BOOL);
	return v->u.b;
}

floe_slice floe_json_number_text(const floe_json_value *v)
{
	assert(v->type == FLOE_JSON_NUMBER);
	return v->u.num.text;
}

double floe_json_number(const floe_json_value *v)
{
	assert(v->type == FLOE_JSON_NUMBER);
	return v->u.num.d;
}

int floe_json_int64(int64_t *out, const floe_json_value *v)
{
	assert(v->type == FLOE_JSON_NUMBER);
	if (!v->u.num.is_int)
		return -1;
	*out = v->u.num.i;
	return 0;
}
