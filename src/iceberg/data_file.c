/*
 * data_file.c — data file descriptors (copy, lookup) and the bound serialization of
 * spec Appendix D: little-endian fixed-width numbers, minimal big-endian decimals,
 * truncated string and binary bounds.
 */
#include "iceberg/data_file.h"

#include "base/utf8.h"

#include <string.h>

static const uint8_t *dup_bytes(floe_arena *arena, const uint8_t *p, size_t len)
{
	uint8_t *c = floe_arena_alloc(arena, len ? len : 1);
	if (len)
		memcpy(c, p, len);
	return c;
}

floe_iceberg_data_file *floe_iceberg_data_file_copy(floe_arena *arena,
						    const floe_iceberg_data_file *file)
{
	floe_iceberg_data_file *c = floe_arena_alloc(arena, sizeof(*c));
	floe_iceberg_column_stats *cols;
	int64_t *splits;
	int32_t *eq;
	*c = *file;
	c->path = floe_arena_strdup(arena, file->path ? file->path : "");
	c->format = floe_arena_strdup(arena, file->format ? file->format : "PARQUET");
	splits = floe_arena_alloc(arena, (file->n_split_offsets + 1) * sizeof(*splits));
	if (file->n_split_offsets)
		memcpy(splits, file->split_offsets, file->n_split_offsets * sizeof(*splits));
	c->split_offsets = splits;
	eq = floe_arena_alloc(arena, (file->n_equality_ids + 1) * sizeof(*eq));
	if (file->n_equality_ids)
		memcpy(eq, file->equality_ids, file->n_equality_ids * sizeof(*eq));
	c->equality_ids = eq;
	cols = floe_arena_alloc(arena, (file->n_columns + 1) * sizeof(*cols));
	for (size_t i = 0; i < file->n_columns; i++) {
		cols[i] = file->columns[i];
		if (cols[i].has_lower)
			cols[i].lower = dup_bytes(arena, file->columns[i].lower, file->columns[i].lower_len);
		if (cols[i].has_upper)
			cols[i].upper = dup_bytes(arena, file->columns[i].upper, file->columns[i].upper_len);
	}
	c->columns = cols;
	return c;
}

const floe_iceberg_column_stats *floe_iceberg_data_file_column(const floe_iceberg_data_file *file,
								int32_t field_id)
{
	for (size_t i = 0; i < file->n_columns; i++)
		if (file->columns[i].field_id == field_id)
			return &file->columns[i];
	return NULL;
}

/* ---- numbers ---- */

static size_t put_le(uint8_t *out, uint64_t v, size_t width)
{
	for (size_t i = 0; i < width; i++)
		out[i] = (uint8_t)(v >> (8 * i));
	return width;
}

static size_t width_of(floe_iceberg_type_id type)
{
	switch (type) {
	case FLOE_ICEBERG_INT:
	case FLOE_ICEBERG_DATE:
	case FLOE_ICEBERG_FLOAT:
		return 4;
	case FLOE_ICEBERG_LONG:
	case FLOE_ICEBERG_TIME:
	case FLOE_ICEBERG_TIMESTAMP:
	case FLOE_ICEBERG_TIMESTAMPTZ:
	case FLOE_ICEBERG_DOUBLE:
		return 8;
	case FLOE_ICEBERG_BOOLEAN:
		return 1;
	default:
		return 0;
	}
}

size_t floe_iceberg_bound_int(uint8_t out[8], floe_iceberg_type_id type, int64_t value)
{
	size_t w = width_of(type);
	return w ? put_le(out, (uint64_t)value, w) : 0;
}

size_t floe_iceberg_bound_real(uint8_t out[8], floe_iceberg_type_id type, double value)
{
	if (type == FLOE_ICEBERG_FLOAT) {
		float f = (float)value;
		uint32_t bits;
		memcpy(&bits, &f, 4);
		return put_le(out, bits, 4);
	}
	uint64_t bits;
	memcpy(&bits, &value, 8);
	return put_le(out, bits, 8);
}

size_t floe_iceberg_bound_bool(uint8_t out[1], bool value)
{
	out[0] = value ? 1 : 0;
	return 1;
}

size_t floe_iceberg_bound_decimal(uint8_t out[16], const uint8_t *be, size_t len)
{
	size_t start = 0;
	if (len == 0)
		return 0;
	/* Drop leading bytes that only repeat the sign of the next one. */
	while (start + 1 < len &&
	       ((be[start] == 0x00 && !(be[start + 1] & 0x80)) ||
		(be[start] == 0xFF && (be[start + 1] & 0x80))))
		start++;
	if (len - start > 16)
		return 0;
	memcpy(out, be + start, len - start);
	return len - start;
}

size_t floe_iceberg_bound_decimal64(uint8_t out[16], int64_t unscaled)
{
	uint8_t be[8];
	for (int i = 0; i < 8; i++)
		be[i] = (uint8_t)((uint64_t)unscaled >> (8 * (7 - i)));
	return floe_iceberg_bound_decimal(out, be, 8);
}

int floe_iceberg_bound_to_int(int64_t *out, floe_iceberg_type_id type, const uint8_t *b, size_t len)
{
	size_t w = width_of(type);
	uint64_t v = 0;
	if (w == 0 || len != w || type == FLOE_ICEBERG_FLOAT || type == FLOE_ICEBERG_DOUBLE)
		return -1;
	for (size_t i = 0; i < w; i++)
		v |= (uint64_t)b[i] << (8 * i);
	if (w == 4)
		*out = (int32_t)(uint32_t)v;
	else if (w == 1)
		*out = v != 0;
	else
		*out = (int64_t)v;
	return 0;
}

int floe_iceberg_bound_to_real(double *out, floe_iceberg_type_id type, const uint8_t *b, size_t len)
{
	uint64_t v = 0;
	if ((type != FLOE_ICEBERG_FLOAT && type != FLOE_ICEBERG_DOUBLE) || len != width_of(type))
		return -1;
	for (size_t i = 0; i < len; i++)
		v |= (uint64_t)b[i] << (8 * i);
	if (len == 4) {
		uint32_t v32 = (uint32_t)v;
		float f;
		memcpy(&f, &v32, 4);
		*out = f;
	} else {
		memcpy(out, &v, 8);
	}
	return 0;
}

/* ---- truncation ---- */

/* Byte length of the first `width` code points of valid UTF-8 `s` (or all of it). */
static size_t prefix_len(const char *s, size_t len, size_t width, size_t *last_start)
{
	size_t i = 0, cps = 0;
	*last_start = 0;
	while (i < len && cps < width) {
		size_t n = floe_utf8_len(s + i, len - i);
		if (n == 0)
			n = 1; /* invalid byte: treat as one unit, never split further */
		*last_start = i;
		i += n;
		cps++;
	}
	return i;
}

size_t floe_iceberg_bound_string_lower(uint8_t *out, const char *s, size_t len, size_t width)
{
	size_t last;
	size_t n = prefix_len(s, len, width, &last);
	memcpy(out, s, n);
	return n;
}

/* Decode the code point of the valid sequence at s (n bytes). */
static uint32_t decode_cp(const uint8_t *s, size_t n)
{
	static const uint8_t lead_mask[5] = { 0, 0x7F, 0x1F, 0x0F, 0x07 };
	uint32_t cp = s[0] & lead_mask[n];
	for (size_t i = 1; i < n; i++)
		cp = (cp << 6) | (s[i] & 0x3F);
	return cp;
}

int floe_iceberg_bound_string_upper(uint8_t *out, size_t *out_len, const char *s, size_t len,
				    size_t width)
{
	size_t last, n = prefix_len(s, len, width, &last);
	*out_len = 0;
	if (n == len) { /* nothing cut: the value itself is the bound */
		memcpy(out, s, len);
		*out_len = len;
		return 0;
	}
	/* Increment the last code point; on overflow drop it and try the one before. */
	while (n > 0) {
		size_t cl = n - last, starts = 0;
		char enc[4];
		uint32_t cp = decode_cp((const uint8_t *)s + last, cl);
		do {
			cp++;
		} while (cp >= 0xD800 && cp <= 0xDFFF);
		if (cp <= 0x10FFFF) {
			size_t el = floe_utf8_put(enc, cp);
			memcpy(out, s, last);
			memcpy(out + last, enc, el);
			*out_len = last + el;
			return 0;
		}
		n = last;
		/* Find the start of the code point before `last`. */
		prefix_len(s, n, (size_t)-1, &starts);
		last = starts;
	}
	return -1;
}

size_t floe_iceberg_bound_binary_lower(uint8_t *out, const uint8_t *b, size_t len, size_t width)
{
	size_t n = len < width ? len : width;
	memcpy(out, b, n);
	return n;
}

int floe_iceberg_bound_binary_upper(uint8_t *out, size_t *out_len, const uint8_t *b, size_t len,
				    size_t width)
{
	size_t n = len < width ? len : width;
	*out_len = 0;
	memcpy(out, b, n);
	if (n == len) {
		*out_len = n;
		return 0;
	}
	while (n > 0) {
		if (out[n - 1] != 0xFF) {
			out[n - 1]++;
			*out_len = n;
			return 0;
		}
		n--;
	}
	return -1;
}

void floe_iceberg_data_file_from_parquet(floe_iceberg_data_file *d, floe_arena *a, const char *uri,
					 const floe_parquet_file_stats *st)
{
	floe_iceberg_column_stats *cs = floe_arena_alloc(a, (st->n_columns + 1) * sizeof(*cs));
	for (size_t i = 0; i < st->n_columns; i++) {
		const floe_parquet_column_stats *p = &st->columns[i];
		cs[i] = (floe_iceberg_column_stats)FLOE_ICEBERG_COLUMN_STATS_INIT;
		cs[i].field_id = p->field_id;
		cs[i].column_size = p->column_size;
		cs[i].value_count = p->value_count;
		cs[i].null_value_count = p->null_count;
		cs[i].nan_value_count = p->has_nan_count ? p->nan_count : -1;
		cs[i].has_lower = p->has_lower;
		cs[i].lower = p->lower;
		cs[i].lower_len = p->lower_len;
		cs[i].has_upper = p->has_upper;
		cs[i].upper = p->upper;
		cs[i].upper_len = p->upper_len;
	}
	*d = (floe_iceberg_data_file)FLOE_ICEBERG_DATA_FILE_INIT;
	d->path = uri;
	d->record_count = st->record_count;
	d->file_size_in_bytes = st->file_size;
	d->split_offsets = st->split_offsets;
	d->n_split_offsets = st->n_split_offsets;
	d->columns = cs;
	d->n_columns = st->n_columns;
}
