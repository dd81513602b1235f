/*
 * parquet_stats.c — statistics: min/max tracking per column chunk and per file, their
 * PLAIN encoding for Parquet's Statistics (with truncation of long byte arrays and the
 * floating-point zero rule), Iceberg's bound truncation, and Iceberg's single-value
 * serialization (Appendix D) of a Parquet min/max.
 *
 * Orders: signed for integers, dates, times, timestamps and decimals; IEEE for floats with
 * NaN excluded and -0.0 before +0.0; unsigned byte-wise for strings, binaries, UUIDs and
 * fixed values — Parquet's TypeDefinedOrder and Iceberg's comparators agree on all of them.
 */
#include "format/parquet_writer_int.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

int pq_decimal_bytes(int precision)
{
	/* bytes[p]: the fewest bytes whose two's complement holds 10^p - 1. */
	static const signed char bytes[39] = { 0,  1,  1,  2,  2,  3,  3,  4,  4,  4,
					       5,  5,  6,  6,  6,  7,  7,  8,  8,  9,
					       9,  9,  10, 10, 11, 11, 11, 12, 12, 13,
					       13, 13, 14, 14, 15, 15, 16, 16, 16 };
	return precision >= 1 && precision <= 38 ? bytes[precision] : -1;
}

/* ---- tracking ---- */

void pq_stats_reset(pq_stats *s)
{
	s->has = false;
	s->values = s->nulls = s->nans = 0;
	floe_buf_clear(&s->bmin);
	floe_buf_clear(&s->bmax);
}

void pq_stats_free(pq_stats *s)
{
	floe_buf_free(&s->bmin);
	floe_buf_free(&s->bmax);
}

static int bytes_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	size_t n = alen < blen ? alen : blen;
	int c = n ? memcmp(a, b, n) : 0;
	if (c)
		return c;
	return alen < blen ? -1 : alen > blen;
}

static void set_bytes(floe_buf *dst, const uint8_t *p, size_t len)
{
	floe_buf_clear(dst);
	/* The buffer's maximum is the default 1 GiB, above any value Parquet can hold. */
	(void)floe_buf_put(dst, p, len);
}

void pq_stats_bytes(pq_stats *s, const uint8_t *p, size_t len)
{
	if (!s->has) {
		set_bytes(&s->bmin, p, len);
		set_bytes(&s->bmax, p, len);
		s->has = true;
		return;
	}
	if (bytes_cmp(p, len, (const uint8_t *)s->bmin.ptr, s->bmin.len) < 0)
		set_bytes(&s->bmin, p, len);
	else if (bytes_cmp(p, len, (const uint8_t *)s->bmax.ptr, s->bmax.len) > 0)
		set_bytes(&s->bmax, p, len);
}

/* a < b with -0.0 before +0.0 (neither is NaN). */
static bool float_less(double a, double b)
{
	return a < b || (a == b && signbit(a) && !signbit(b));
}

void pq_stats_merge(pq_stats *dst, const pq_stats *src, int kind)
{
	dst->values += src->values;
	dst->nulls += src->nulls;
	dst->nans += src->nans;
	if (!src->has)
		return;
	if (!dst->has) {
		dst->imin = src->imin, dst->imax = src->imax;
		dst->dmin = src->dmin, dst->dmax = src->dmax;
		dst->cmin = src->cmin, dst->cmax = src->cmax;
		if (kind == PQ_K_BYTES) {
			set_bytes(&dst->bmin, (const uint8_t *)src->bmin.ptr, src->bmin.len);
			set_bytes(&dst->bmax, (const uint8_t *)src->bmax.ptr, src->bmax.len);
		}
		dst->has = true;
		return;
	}
	switch (kind) {
	case PQ_K_INT:
		if (src->imin < dst->imin)
			dst->imin = src->imin;
		if (src->imax > dst->imax)
			dst->imax = src->imax;
		break;
	case PQ_K_FLOAT:
		if (float_less(src->dmin, dst->dmin))
			dst->dmin = src->dmin;
		if (float_less(dst->dmax, src->dmax))
			dst->dmax = src->dmax;
		break;
	case PQ_K_DEC:
		if (floe_dec128_cmp(src->cmin, dst->cmin) < 0)
			dst->cmin = src->cmin;
		if (floe_dec128_cmp(src->cmax, dst->cmax) > 0)
			dst->cmax = src->cmax;
		break;
	default:
		pq_stats_bytes(dst, (const uint8_t *)src->bmin.ptr, src->bmin.len);
		pq_stats_bytes(dst, (const uint8_t *)src->bmax.ptr, src->bmax.len);
		break;
	}
}

/* ---- PLAIN encoding of one tracked value ---- */

static void put_le(floe_buf *out, uint64_t v, int bytes)
{
	uint8_t b[8];
	for (int i = 0; i < bytes; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	(void)floe_buf_put(out, b, (size_t)bytes);
}

static void put_be128(floe_buf *out, floe_dec128 d, int bytes)
{
	uint8_t b[16];
	u128 v = ((u128)(uint64_t)d.hi << 64) | d.lo;
	for (int i = 0; i < bytes; i++)
		b[bytes - 1 - i] = (uint8_t)(v >> (8 * i));
	(void)floe_buf_put(out, b, (size_t)bytes);
}

static void plain_value(floe_buf *out, const pq_col *c, const pq_stats *s, bool upper)
{
	floe_buf_clear(out);
	switch (c->kind) {
	case PQ_K_INT: {
		int64_t v = upper ? s->imax : s->imin;
		put_le(out, (uint64_t)v, c->physical == FLOE_PQ_BOOLEAN ? 1 :
					 c->physical == FLOE_PQ_INT32 ? 4 : 8);
		break;
	}
	case PQ_K_FLOAT: {
		double v = upper ? s->dmax : s->dmin;
		if (c->physical == FLOE_PQ_FLOAT) {
			float f = (float)v;
			(void)floe_buf_put(out, &f, 4);
		} else {
			(void)floe_buf_put(out, &v, 8);
		}
		break;
	}
	case PQ_K_DEC: {
		floe_dec128 v = upper ? s->cmax : s->cmin;
		if (c->physical == FLOE_PQ_INT32)
			put_le(out, v.lo, 4);
		else if (c->physical == FLOE_PQ_INT64)
			put_le(out, v.lo, 8);
		else
			put_be128(out, v, c->type_length);
		break;
	}
	default: {
		const floe_buf *b = upper ? &s->bmax : &s->bmin;
		(void)floe_buf_put(out, b->ptr, b->len);
		break;
	}
	}
}

void pq_stats_plain(floe_buf *out, const pq_col *c, const pq_stats *s, bool upper)
{
	plain_value(out, c, s, upper);
}

static size_t cut(const uint8_t *src, size_t len, bool utf8, size_t max_units, size_t max_bytes);
static bool upper_after_cut(uint8_t *dst, size_t *dst_len, const uint8_t *src, size_t len,
			    size_t k, bool utf8);

static void put_zero(floe_buf *out, int physical, bool negative)
{
	floe_buf_clear(out);
	if (physical == FLOE_PQ_FLOAT) {
		float f = negative ? -0.0f : 0.0f;
		(void)floe_buf_put(out, &f, 4);
	} else {
		double d = negative ? -0.0 : 0.0;
		(void)floe_buf_put(out, &d, 8);
	}
}

bool pq_stats_encode(floe_buf *min, floe_buf *max, bool *min_exact, bool *max_exact,
		     bool *max_ok, const pq_col *c, const pq_stats *s)
{
	*min_exact = *max_exact = *max_ok = true;
	if (!s->has)
		return false;
	plain_value(min, c, s, false);
	plain_value(max, c, s, true);
	if (c->kind == PQ_K_FLOAT) {
		/* The zero rule of TypeDefinedOrder for floats. */
		if (s->dmin == 0)
			put_zero(min, c->physical, true);
		if (s->dmax == 0)
			put_zero(max, c->physical, false);
	}
	if (c->physical != FLOE_PQ_BYTE_ARRAY)
		return true;
	/* Long byte arrays: a shorter lower bound and an incremented upper bound. */
	bool utf8 = c->vtype == FLOE_VEC_STRING;
	uint8_t tmp[PQ_STATS_MAX_BYTES + 4];
	size_t n;
	if (min->len > PQ_STATS_MAX_BYTES) {
		n = cut((const uint8_t *)min->ptr, min->len, utf8, SIZE_MAX, PQ_STATS_MAX_BYTES);
		memcpy(tmp, min->ptr, n);
		floe_buf_clear(min);
		(void)floe_buf_put(min, tmp, n);
		*min_exact = false;
	}
	if (max->len > PQ_STATS_MAX_BYTES) {
		size_t k = cut((const uint8_t *)max->ptr, max->len, utf8, SIZE_MAX, PQ_STATS_MAX_BYTES);
		n = 0;
		*max_ok = upper_after_cut(tmp, &n, (const uint8_t *)max->ptr, max->len, k, utf8);
		floe_buf_clear(max);
		(void)floe_buf_put(max, tmp, n);
		*max_exact = false;
	}
	return true;
}

/* ---- truncation (Iceberg truncate(N), also used for long Parquet statistics) ---- */

static bool is_cont(uint8_t b)
{
	return (b & 0xC0) == 0x80;
}

/*
 * Length of the longest prefix of `src` that holds at most `max_units` units (code points
 * for UTF-8, else bytes) in at most `max_bytes` bytes, never splitting a UTF-8 sequence
 * (a code point starts at each byte that is not a continuation byte).
 */
static size_t cut(const uint8_t *src, size_t len, bool utf8, size_t max_units, size_t max_bytes)
{
	if (!utf8) {
		size_t k = len < max_units ? len : max_units;
		return k < max_bytes ? k : max_bytes;
	}
	size_t best = 0, cps = 0;
	for (size_t i = 0; i <= len && i <= max_bytes; i++) {
		if (i == len || !is_cont(src[i])) {
			if (cps > max_units)
				break;
			best = i;
		}
		if (i < len && !is_cont(src[i]))
			cps++;
	}
	return best;
}

/* Decode the code point in s[0..len) (s[0] a lead byte); false when malformed. */
static bool utf8_decode(uint32_t *cp_out, const uint8_t *s, size_t len)
{
	uint8_t b = s[0];
	size_t n = b < 0x80 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 :
				   (b & 0xF8) == 0xF0 ? 4 : 0;
	if (n == 0 || n != len)
		return false;
	uint32_t cp = n == 1 ? b : n == 2 ? (b & 0x1Fu) : n == 3 ? (b & 0x0Fu) : (b & 0x07u);
	for (size_t i = 1; i < n; i++) {
		if (!is_cont(s[i]))
			return false;
		cp = cp << 6 | (s[i] & 0x3Fu);
	}
	*cp_out = cp;
	return true;
}

static size_t utf8_encode(uint8_t *out, uint32_t cp)
{
	if (cp < 0x80) {
		out[0] = (uint8_t)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (uint8_t)(0xC0 | cp >> 6);
		out[1] = (uint8_t)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (uint8_t)(0xE0 | cp >> 12);
		out[1] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
		out[2] = (uint8_t)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (uint8_t)(0xF0 | cp >> 18);
	out[1] = (uint8_t)(0x80 | (cp >> 12 & 0x3F));
	out[2] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
	out[3] = (uint8_t)(0x80 | (cp & 0x3F));
	return 4;
}

/* dst[0..k) holds the prefix: increment its last byte that can be, dropping what follows. */
static bool increment_bytes(uint8_t *dst, size_t *dst_len, size_t k)
{
	while (k > 0) {
		if (dst[k - 1] != 0xFF) {
			dst[k - 1]++;
			*dst_len = k;
			return true;
		}
		k--;
	}
	return false;
}

/* Same by code points: the next one after U+D7FF is U+E000; past U+10FFFF it cannot. */
static bool increment_utf8(uint8_t *dst, size_t *dst_len, size_t k)
{
	while (k > 0) {
		size_t start = k - 1;
		while (start > 0 && is_cont(dst[start]))
			start--;
		uint32_t cp;
		if (utf8_decode(&cp, dst + start, k - start)) {
			uint32_t next = cp + 1;
			if (next >= 0xD800 && next <= 0xDFFF)
				next = 0xE000;
			if (next <= 0x10FFFF) {
				*dst_len = start + utf8_encode(dst + start, next);
				return true;
			}
		}
		k = start;
	}
	return false;
}

/* Upper bound of `src` cut to k bytes: the value itself when nothing was cut. dst holds
 * k + 4 bytes. */
static bool upper_after_cut(uint8_t *dst, size_t *dst_len, const uint8_t *src, size_t len,
			    size_t k, bool utf8)
{
	if (k)
		memcpy(dst, src, k);
	if (k == len) {
		*dst_len = len;
		return true;
	}
	return utf8 ? increment_utf8(dst, dst_len, k) : increment_bytes(dst, dst_len, k);
}

size_t floe_parquet_truncate_lower(uint8_t *dst, const uint8_t *src, size_t len, bool utf8,
				   size_t n)
{
	size_t k = cut(src, len, utf8, n, utf8 ? 4 * n : n);
	if (k)
		memcpy(dst, src, k);
	return k;
}

bool floe_parquet_truncate_upper(uint8_t *dst, size_t *dst_len, const uint8_t *src, size_t len,
				 bool utf8, size_t n)
{
	size_t k = cut(src, len, utf8, n, utf8 ? 4 * n : n);
	return upper_after_cut(dst, dst_len, src, len, k, utf8);
}

/* ---- Iceberg single-value serialization ---- */

#define ICEBERG_TRUNCATE 16

static floe_dec128 dec_from_plain(int physical, const uint8_t *v, size_t len)
{
	floe_dec128 d = { 0, 0 };
	if (physical == FLOE_PQ_INT32) {
		int32_t x;
		memcpy(&x, v, 4);
		return floe_dec128_from_i64(x);
	}
	if (physical == FLOE_PQ_INT64) {
		int64_t x;
		memcpy(&x, v, 8);
		return floe_dec128_from_i64(x);
	}
	/* Big-endian two's complement of len (1..16) bytes. */
	u128 u = (v[0] & 0x80) ? ~(u128)0 : 0;
	for (size_t i = 0; i < len; i++)
		u = u << 8 | v[i];
	d.lo = (uint64_t)u;
	d.hi = (int64_t)(uint64_t)(u >> 64);
	return d;
}

/* Minimal big-endian two's complement (as Java's BigInteger.toByteArray). */
static void put_min_be(floe_buf *out, floe_dec128 d)
{
	uint8_t b[16];
	u128 u = ((u128)(uint64_t)d.hi << 64) | d.lo;
	for (int i = 0; i < 16; i++)
		b[15 - i] = (uint8_t)(u >> (8 * i));
	int start = 0;
	/* Drop a leading byte while the next byte's top bit still carries the sign. */
	while (start < 15 && ((b[start] == 0x00 && !(b[start + 1] & 0x80)) ||
			      (b[start] == 0xFF && (b[start + 1] & 0x80))))
		start++;
	(void)floe_buf_put(out, b + start, (size_t)(16 - start));
}

static size_t plain_width(int physical, int32_t type_length)
{
	switch (physical) {
	case FLOE_PQ_BOOLEAN: return 1;
	case FLOE_PQ_INT32:
	case FLOE_PQ_FLOAT: return 4;
	case FLOE_PQ_INT64:
	case FLOE_PQ_DOUBLE: return 8;
	case FLOE_PQ_FIXED_LEN_BYTE_ARRAY: return type_length > 0 ? (size_t)type_length : 0;
	default: return 0;
	}
}

bool pq_iceberg_bound(floe_buf *out, const floe_parquet_leaf *leaf, int physical,
		      const uint8_t *value, size_t len, bool upper)
{
	floe_buf_clear(out);
	if (leaf->in_list || leaf->vtype == 0)
		return false;
	size_t w = plain_width(physical, leaf->width);
	if (w && len != w && physical != FLOE_PQ_FIXED_LEN_BYTE_ARRAY)
		return false;
	switch (leaf->vtype) {
	case FLOE_VEC_BOOLEAN:
		return floe_buf_putc(out, value[0] ? 1 : 0) == 0;
	case FLOE_VEC_INT:
	case FLOE_VEC_DATE:
		return physical == FLOE_PQ_INT32 && len == 4 && floe_buf_put(out, value, 4) == 0;
	case FLOE_VEC_FLOAT: {
		float f;
		if (len != 4)
			return false;
		memcpy(&f, value, 4);
		return !isnan(f) && floe_buf_put(out, value, 4) == 0;
	}
	case FLOE_VEC_DOUBLE: {
		double d;
		if (len != 8)
			return false;
		memcpy(&d, value, 8);
		return !isnan(d) && floe_buf_put(out, value, 8) == 0;
	}
	case FLOE_VEC_LONG:
	case FLOE_VEC_TIME:
	case FLOE_VEC_TIMESTAMP:
	case FLOE_VEC_TIMESTAMPTZ:
		/* Microseconds in INT64 only: a millisecond column's statistics are not bounds. */
		return physical == FLOE_PQ_INT64 && len == 8 && floe_buf_put(out, value, 8) == 0;
	case FLOE_VEC_DECIMAL:
		if (len == 0 || len > 16 || (physical == FLOE_PQ_INT32 && len != 4) ||
		    (physical == FLOE_PQ_INT64 && len != 8))
			return false;
		put_min_be(out, dec_from_plain(physical, value, len));
		return true;
	case FLOE_VEC_UUID:
		return len == 16 && floe_buf_put(out, value, 16) == 0;
	case FLOE_VEC_STRING:
	case FLOE_VEC_BINARY:
	case FLOE_VEC_FIXED: {
		bool utf8 = leaf->vtype == FLOE_VEC_STRING;
		uint8_t tmp[4 * ICEBERG_TRUNCATE + 4];
		size_t n = 0;
		if (!upper)
			n = floe_parquet_truncate_lower(tmp, value, len, utf8, ICEBERG_TRUNCATE);
		else if (!floe_parquet_truncate_upper(tmp, &n, value, len, utf8, ICEBERG_TRUNCATE))
			return false;
		return floe_buf_put(out, tmp, n) == 0;
	}
	default:
		return false;
	}
}

/* ---- ordering PLAIN statistics values (Iceberg metrics from a footer) ---- */

bool pq_plain_valid(const floe_parquet_leaf *leaf, int physical, size_t len)
{
	size_t w = plain_width(physical, leaf->width);
	if (physical == FLOE_PQ_BYTE_ARRAY)
		return leaf->vtype != FLOE_VEC_DECIMAL || (len >= 1 && len <= 16);
	if (physical == FLOE_PQ_FIXED_LEN_BYTE_ARRAY)
		return len == w && (leaf->vtype != FLOE_VEC_DECIMAL || len <= 16);
	return w != 0 && len == w;
}

int pq_plain_cmp(const floe_parquet_leaf *leaf, int physical, const uint8_t *a, size_t alen,
		 const uint8_t *b, size_t blen)
{
	if (leaf->vtype == FLOE_VEC_DECIMAL)
		return floe_dec128_cmp(dec_from_plain(physical, a, alen), dec_from_plain(physical, b, blen));
	switch (physical) {
	case FLOE_PQ_BOOLEAN: return (a[0] != 0) - (b[0] != 0);
	case FLOE_PQ_INT32: {
		int32_t x, y;
		memcpy(&x, a, 4);
		memcpy(&y, b, 4);
		return x < y ? -1 : x > y;
	}
	case FLOE_PQ_INT64: {
		int64_t x, y;
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		return x < y ? -1 : x > y;
	}
	case FLOE_PQ_FLOAT:
	case FLOE_PQ_DOUBLE: {
		double x, y;
		if (physical == FLOE_PQ_FLOAT) {
			float fx, fy;
			memcpy(&fx, a, 4);
			memcpy(&fy, b, 4);
			x = fx, y = fy;
		} else {
			memcpy(&x, a, 8);
			memcpy(&y, b, 8);
		}
		return float_less(x, y) ? -1 : float_less(y, x);
	}
	default: return bytes_cmp(a, alen, b, blen);
	}
}
