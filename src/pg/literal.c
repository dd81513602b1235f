/*
 * literal.c — a vector's value as PostgreSQL's text input for its type, so a key
 * floe read from a data file can be handed back to the source (a key range's
 * bounds, keys to re-copy). Quote the result with floe_pg_quote_literal or pass
 * it as a parameter; PostgreSQL gives the literal its column's type.
 */
#include "pg/copy.h"
#include "base/buf.h"
#include "base/civil.h"
#include "base/error.h"

#include <inttypes.h>

static void put_decimal(floe_buf *out, floe_dec128 d, int scale)
{
	unsigned __int128 v;
	bool neg = d.hi < 0;
	__int128 x = (__int128)(((unsigned __int128)(uint64_t)d.hi << 64) | d.lo);
	v = neg ? (unsigned __int128)(-(x + 1)) + 1 : (unsigned __int128)x;
	char digits[48];
	int n = 0;
	do {
		digits[n++] = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v);
	while (n <= scale)
		digits[n++] = '0';
	if (neg)
		floe_buf_putc(out, '-');
	for (int i = n - 1; i >= 0; i--) {
		if (i == scale - 1)
			floe_buf_putc(out, '.');
		floe_buf_putc(out, digits[i]);
	}
}

/* Byte b as two lowercase hex digits (a bound of thousands of pieces formats 32 per uuid: no printf). */
static void put_hex(floe_buf *out, uint8_t b)
{
	static const char digits[] = "0123456789abcdef";
	floe_buf_putc(out, digits[b >> 4]);
	floe_buf_putc(out, digits[b & 15]);
}

int floe_pg_value_text(floe_buf *out, const floe_vector *v, size_t row)
{
	char text[FLOE_CIVIL_TEXT_MAX];
	size_t len;
	const uint8_t *p;
	if (!floe_vector_is_valid(v, row))
		return floe_error_set(FLOE_ERR_INTERNAL, "a NULL has no literal");
	switch (v->type) {
	case FLOE_VEC_BOOLEAN:
		floe_buf_puts(out, v->v.u8[row] ? "t" : "f");
		return 0;
	case FLOE_VEC_INT:
		floe_buf_printf(out, "%" PRId32, v->v.i32[row]);
		return 0;
	case FLOE_VEC_LONG:
		floe_buf_printf(out, "%" PRId64, v->v.i64[row]);
		return 0;
	case FLOE_VEC_DECIMAL:
		put_decimal(out, v->v.dec[row], v->scale);
		return 0;
	case FLOE_VEC_DATE:
		floe_civil_format_days(text, v->v.i32[row]);
		floe_buf_puts(out, text);
		return 0;
	case FLOE_VEC_TIME: {
		int64_t us = v->v.i64[row];
		floe_buf_printf(out, "%02d:%02d:%02d.%06d", (int)(us / 3600000000), (int)(us / 60000000 % 60),
				(int)(us / 1000000 % 60), (int)(us % 1000000));
		return 0;
	}
	case FLOE_VEC_TIMESTAMP:
	case FLOE_VEC_TIMESTAMPTZ:
		floe_civil_format_micros(text, v->v.i64[row], v->type == FLOE_VEC_TIMESTAMPTZ);
		floe_buf_puts(out, text);
		return 0;
	case FLOE_VEC_UUID:
		p = v->v.fixed + row * 16;
		for (int i = 0; i < 16; i++) {
			if (i == 4 || i == 6 || i == 8 || i == 10)
				floe_buf_putc(out, '-');
			put_hex(out, p[i]);
		}
		return 0;
	case FLOE_VEC_STRING:
		p = floe_vector_bytes(v, row, &len);
		floe_buf_put(out, p, len);
		return 0;
	case FLOE_VEC_BINARY:
		p = floe_vector_bytes(v, row, &len);
		floe_buf_puts(out, "\\x");
		for (size_t i = 0; i < len; i++)
			put_hex(out, p[i]);
		return 0;
	default:
		return floe_error_set(FLOE_ERR_INTERNAL, "no PostgreSQL literal for a %s value",
				      floe_vec_type_name(v->type));
	}
}
