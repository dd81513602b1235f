/*
 * json_write.c — the structured JSON writer: commas, indentation, one-line
 * containers. Misuse (a value where a key is due, unbalanced ends) is a
 * programming error and asserts.
 */
#include "base/error.h"
#include "base/json.h"

#include <assert.h>
#include <inttypes.h>

void floe_json_write_init(floe_json_writer *w, floe_buf *out, bool pretty)
{
	*w = (floe_json_writer){ .out = out, .pretty = pretty };
}

static void put(floe_json_writer *w, const char *s)
{
	if (floe_buf_puts(w->out, s) < 0)
		w->failed = true;
}

static bool one_line(const floe_json_writer *w)
{
	return !w->pretty || w->inline_from > 0;
}

static void newline(floe_json_writer *w)
{
	put(w, "\n");
	for (int i = 0; i < w->depth; i++)
		put(w, "  ");
}

/* Separator and indentation before a value or a key. */
static void before_item(floe_json_writer *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->depth == 0)
		return;
	if (w->has_items[w->depth])
		put(w, one_line(w) && w->pretty ? ", " : ",");
	w->has_items[w->depth] = true;
	if (!one_line(w))
		newline(w);
}

static void begin(floe_json_writer *w, const char *open, bool inline_)
{
	before_item(w);
	put(w, open);
	assert(w->depth + 1 < FLOE_JSON_WRITER_DEPTH);
	w->depth++;
	w->has_items[w->depth] = false;
	if (inline_ && w->inline_from == 0)
		w->inline_from = w->depth;
}

static void end(floe_json_writer *w, const char *close)
{
	assert(w->depth > 0 && !w->after_key);
	bool had = w->has_items[w->depth];
	bool was_one_line = one_line(w);
	if (w->inline_from == w->depth)
		w->inline_from = 0;
	w->depth--;
	if (had && !was_one_line)
		newline(w);
	put(w, close);
}

void floe_json_write_begin_object(floe_json_writer *w, bool inline_)
{
	begin(w, "{", inline_);
}

void floe_json_write_end_object(floe_json_writer *w)
{
	end(w, "}");
}

void floe_json_write_begin_array(floe_json_writer *w, bool inline_)
{
	begin(w, "[", inline_);
}

void floe_json_write_end_array(floe_json_writer *w)
{
	end(w, "]");
}

void floe_json_write_key(floe_json_writer *w, const char *key)
{
	assert(!w->after_key);
	before_item(w);
	if (floe_json_put_cstr(w->out, key) < 0)
		w->failed = true;
	put(w, w->pretty ? ": " : ":");
	w->after_key = true;
}

void floe_json_write_string(floe_json_writer *w, const char *s, size_t len)
{
	before_item(w);
	if (floe_json_put_string(w->out, s, len) < 0)
		w->failed = true;
}

void floe_json_write_cstr(floe_json_writer *w, const char *s)
{
	before_item(w);
	if (floe_json_put_cstr(w->out, s) < 0)
		w->failed = true;
}

void floe_json_write_int(floe_json_writer *w, int64_t v)
{
	before_item(w);
	if (floe_buf_printf(w->out, "%" PRId64, v) < 0)
		w->failed = true;
}

void floe_json_write_number(floe_json_writer *w, const char *text)
{
	before_item(w);
	put(w, text);
}

void floe_json_write_bool(floe_json_writer *w, bool v)
{
	before_item(w);
	put(w, v ? "true" : "false");
}

void floe_json_write_null(floe_json_writer *w)
{
	before_item(w);
	put(w, "null");
}

void floe_json_write_member_cstr(floe_json_writer *w, const char *key, const char *s)
{
	floe_json_write_key(w, key);
	floe_json_write_cstr(w, s);
}

void floe_json_write_member_int(floe_json_writer *w, const char *key, int64_t v)
{
	floe_json_write_key(w, key);
	floe_json_write_int(w, v);
}

void floe_json_write_member_bool(floe_json_writer *w, const char *key, bool v)
{
	floe_json_write_key(w, key);
	floe_json_write_bool(w, v);
}

void floe_json_write_member_strings(floe_json_writer *w, const char *key, const char *const *items, size_t n)
{
	floe_json_write_key(w, key);
	floe_json_write_begin_array(w, true);
	for (size_t i = 0; i < n; i++)
		floe_json_write_cstr(w, items[i]);
	floe_json_write_end_array(w);
}

int floe_json_write_finish(floe_json_writer *w)
{
	assert(w->depth == 0);
	if (w->pretty)
		put(w, "\n");
	if (w->failed)
		return floe_error_set(FLOE_ERR_INTERNAL, "JSON output exceeds its %zu-byte limit",
				      w->out->max);
	return 0;
}
