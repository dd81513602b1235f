/*
 * fuzz_toml.c — libFuzzer target for the TOML reader.
 *
 * Parses the input, then walks the whole tree through the public accessors the
 * way the config layer does, checking what must hold for any accepted document:
 * every key is found again by lookup, strings are valid UTF-8, positions are
 * 1-based, nesting stays within FLOE_TOML_MAX_DEPTH, date-time fields are in
 * range. A rejected document must carry a positioned message.
 */
#include "base/utf8.h"
#include "config/toml.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(int ok)
{
	if (!ok)
		abort();
}

static void check_utf8(floe_slice s)
{
	for (size_t i = 0, n; i < s.len; i += n) {
		n = s.ptr[i] ? floe_utf8_len(s.ptr + i, s.len - i) : 1; /* "\u0000" is allowed */
		require(n > 0);
	}
}

static void check_datetime(const floe_toml_value *v)
{
	floe_toml_datetime dt = floe_toml_datetime_of(v);
	require(!dt.has_date || (dt.month >= 1 && dt.month <= 12 && dt.day >= 1 && dt.day <= 31));
	require(!dt.has_time || (dt.hour <= 23 && dt.minute <= 59 && dt.second <= 60 &&
				 dt.nanosecond >= 0 && dt.nanosecond < 1000000000));
	require(dt.offset_minutes > -24 * 60 && dt.offset_minutes < 24 * 60);
}

static void walk(const floe_toml_value *v, int depth)
{
	floe_toml_type t = floe_toml_type_of(v);
	require(depth <= FLOE_TOML_MAX_DEPTH + 1);
	require(floe_toml_line(v) >= 1 && floe_toml_col(v) >= 1);
	require(floe_toml_type_name(t)[0] != '\0');
	if (t == FLOE_TOML_STRING)
		check_utf8(floe_toml_string(v));
	else if (t == FLOE_TOML_INTEGER)
		(void)floe_toml_int(v);
	else if (t == FLOE_TOML_FLOAT)
		(void)floe_toml_float(v);
	else if (t == FLOE_TOML_BOOL)
		(void)floe_toml_bool(v);
	else if (t != FLOE_TOML_ARRAY && t != FLOE_TOML_TABLE)
		check_datetime(v);
	for (size_t i = 0; i < floe_toml_count(v); i++) {
		const floe_toml_value *child = floe_toml_value_at(v, i);
		if (t == FLOE_TOML_TABLE) {
			floe_slice key = floe_toml_key_at(v, i);
			check_utf8(key);
			require(floe_toml_get_slice(v, key) == child);
			require(floe_toml_key_line_at(v, i) >= 1 && floe_toml_key_col_at(v, i) >= 1);
		}
		walk(child, depth + 1);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	floe_toml_doc *doc = NULL;
	floe_toml_error err;
	if (floe_toml_parse(&doc, (const char *)data, size, &err) == 0) {
		require(floe_toml_type_of(floe_toml_root(doc)) == FLOE_TOML_TABLE);
		walk(floe_toml_root(doc), 0);
	} else {
		require(doc == NULL && err.line >= 1 && err.col >= 1 && err.message[0] != '\0');
	}
	floe_toml_free(doc);
	return 0;
}
