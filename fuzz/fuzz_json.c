/*
 * fuzz_json.c — libFuzzer target for the JSON reader (and, through a round
 * trip, the JSON string writer).
 *
 * An accepted document is written back out with floe_json_put_string and the
 * number texts, parsed again, and must come back equal: same types, same member
 * order, same bytes in every string, same numbers. Lookups must find every
 * member. A rejected document must carry a message and an offset within it.
 */
#include "base/buf.h"
#include "base/json.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(int ok)
{
	if (!ok)
		abort();
}

static void write_value(floe_buf *out, const floe_json_value *v)
{
	floe_json_type t = floe_json_type_of(v);
	floe_slice s;
	size_t n = floe_json_count(v);
	switch (t) {
	case FLOE_JSON_NULL: floe_buf_puts(out, "null"); return;
	case FLOE_JSON_BOOL: floe_buf_puts(out, floe_json_bool(v) ? "true" : "false"); return;
	case FLOE_JSON_NUMBER:
		s = floe_json_number_text(v);
		floe_buf_put(out, s.ptr, s.len);
		return;
	case FLOE_JSON_STRING:
		s = floe_json_string(v);
		floe_json_put_string(out, s.ptr, s.len);
		return;
	default: break;
	}
	floe_buf_putc(out, t == FLOE_JSON_ARRAY ? '[' : '{');
	for (size_t i = 0; i < n; i++) {
		if (i)
			floe_buf_putc(out, ',');
		if (t == FLOE_JSON_OBJECT) {
			s = floe_json_key_at(v, i);
			floe_json_put_string(out, s.ptr, s.len);
			floe_buf_putc(out, ':');
			require(floe_json_get_slice(v, s) == floe_json_value_at(v, i));
		}
		write_value(out, floe_json_value_at(v, i));
	}
	floe_buf_putc(out, t == FLOE_JSON_ARRAY ? ']' : '}');
}

static void same(const floe_json_value *a, const floe_json_value *b)
{
	floe_json_type t = floe_json_type_of(a);
	require(t == floe_json_type_of(b) && floe_json_count(a) == floe_json_count(b));
	if (t == FLOE_JSON_BOOL)
		require(floe_json_bool(a) == floe_json_bool(b));
	if (t == FLOE_JSON_NUMBER)
		require(floe_slice_eq(floe_json_number_text(a), floe_json_number_text(b)));
	if (t == FLOE_JSON_STRING)
		require(floe_slice_eq(floe_json_string(a), floe_json_string(b)));
	for (size_t i = 0; i < floe_json_count(a); i++) {
		if (t == FLOE_JSON_OBJECT)
			require(floe_slice_eq(floe_json_key_at(a, i), floe_json_key_at(b, i)));
		same(floe_json_value_at(a, i), floe_json_value_at(b, i));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	floe_json_doc *doc = NULL, *again = NULL;
	floe_json_error err;
	floe_buf out = FLOE_BUF_INIT;
	if (floe_json_parse(&doc, (const char *)data, size, &err) < 0) {
		require(doc == NULL && err.message[0] != '\0' && err.offset <= size);
		return 0;
	}
	write_value(&out, floe_json_root(doc));
	require(floe_json_parse(&again, out.ptr, out.len, &err) == 0);
	same(floe_json_root(doc), floe_json_root(again));
	floe_json_free(again);
	floe_json_free(doc);
	floe_buf_free(&out);
	return 0;
}
