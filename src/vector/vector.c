/*
 * vector.c — column vectors (see vector.h): growth, appends, decimal helpers.
 */
#include "vector/vector.h"

#include "base/arena.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

static const char *const type_names[] = {
	[FLOE_VEC_BOOLEAN] = "boolean",     [FLOE_VEC_INT] = "int",
	[FLOE_VEC_LONG] = "long",           [FLOE_VEC_FLOAT] = "float",
	[FLOE_VEC_DOUBLE] = "double",       [FLOE_VEC_DECIMAL] = "decimal",
	[FLOE_VEC_DATE] = "date",           [FLOE_VEC_TIME] = "time",
	[FLOE_VEC_TIMESTAMP] = "timestamp", [FLOE_VEC_TIMESTAMPTZ] = "timestamptz",
	[FLOE_VEC_STRING] = "string",       [FLOE_VEC_UUID] = "uuid",
	[FLOE_VEC_FIXED] = "fixed",         [FLOE_VEC_BINARY] = "binary",
	[FLOE_VEC_LIST] = "list",           [FLOE_VEC_STRUCT] = "struct",
};

const char *floe_vec_type_name(floe_vec_type type)
{
	if ((int)type < FLOE_VEC_BOOLEAN || type > FLOE_VEC_STRUCT)
		return "unknown";
	return type_names[type];
}

size_t floe_vec_type_width(floe_vec_type type, int32_t width)
{
	switch (type) {
	case FLOE_VEC_BOOLEAN: return 1;
	case FLOE_VEC_INT:
	case FLOE_VEC_DATE:
	case FLOE_VEC_FLOAT: return 4;
	case FLOE_VEC_LONG:
	case FLOE_VEC_TIME:
	case FLOE_VEC_TIMESTAMP:
	case FLOE_VEC_TIMESTAMPTZ:
	case FLOE_VEC_DOUBLE: return 8;
	case FLOE_VEC_DECIMAL: return sizeof(floe_dec128);
	case FLOE_VEC_UUID: return 16;
	case FLOE_VEC_FIXED: return width > 0 ? (size_t)width : 0;
	case FLOE_VEC_STRING:
	case FLOE_VEC_BINARY:
	case FLOE_VEC_LIST:
	case FLOE_VEC_STRUCT: return 0;
	}
	return 0;
}

static bool has_offsets(floe_vec_type type)
{
	return type == FLOE_VEC_STRING || type == FLOE_VEC_BINARY || type == FLOE_VEC_LIST;
}

void floe_vector_init(floe_vector *v, floe_vec_type type, int32_t width)
{
	memset(v, 0, sizeof(*v));
	v->type = type;
	v->width = type == FLOE_VEC_UUID ? 16 : type == FLOE_VEC_FIXED ? width : 0;
}

void floe_vector_init_list(floe_vector *v, floe_vec_type element, int32_t element_width)
{
	floe_vector_init(v, FLOE_VEC_LIST, 0);
	v->child = floe_xcalloc(1, sizeof(floe_vector));
	floe_vector_init(v->child, element, element_width);
}

void floe_vector_init_struct(floe_vector *v, size_t n)
{
	floe_vector_init(v, FLOE_VEC_STRUCT, 0);
	v->children = floe_xcalloc(n ? n : 1, sizeof(floe_vector));
	v->n_children = n;
	for (size_t i = 0; i < n; i++)
		floe_vector_init(&v->children[i], FLOE_VEC_BOOLEAN, 0);
}

void floe_vector_free(floe_vector *v)
{
	if (!v)
		return;
	if (v->child) {
		floe_vector_free(v->child);
		free(v->child);
	}
	for (size_t i = 0; i < v->n_children; i++)
		floe_vector_free(&v->children[i]);
	free(v->children);
	free(v->validity);
	free(v->v.u8);
	free(v->offsets);
	free(v->data);
	floe_vector_init(v, v->type, v->width);
}

void floe_vector_reuse(floe_vector *v, floe_vec_type type, int32_t width)
{
	int32_t w = type == FLOE_VEC_UUID ? 16 : type == FLOE_VEC_FIXED ? width : 0;
	if (v->type != type || v->width != w || v->child || v->n_children) {
		floe_vector_free(v);
		floe_vector_init(v, type, width);
		return;
	}
	floe_vector_clear(v);
	v->precision = v->scale = 0;
}

void floe_vector_clear(floe_vector *v)
{
	v->len = 0;
	v->data_len = 0;
	if (v->validity) {
		free(v->validity);
		v->validity = NULL;
	}
	if (v->child)
		floe_vector_clear(v->child);
	for (size_t i = 0; i < v->n_children; i++)
		floe_vector_clear(&v->children[i]);
}

void floe_vector_reserve(floe_vector *v, size_t rows)
{
	if (rows <= v->cap && (v->offsets || !has_offsets(v->type)))
		return;
	size_t cap = v->cap ? v->cap : 64;
	while (cap < rows)
		cap *= 2;
	size_t w = floe_vec_type_width(v->type, v->width);
	if (w)
		v->v.u8 = floe_xrealloc(v->v.u8, cap * w);
	if (has_offsets(v->type)) {
		bool fresh = v->offsets == NULL;
		v->offsets = floe_xrealloc(v->offsets, (cap + 1) * sizeof(int64_t));
		if (fresh)
			v->offsets[0] = 0;
	}
	if (v->validity) {
		size_t old = (v->cap + 7) / 8, now = (cap + 7) / 8;
		v->validity = floe_xrealloc(v->validity, now);
		memset(v->validity + old, 0xFF, now - old);
	}
	v->cap = cap;
}

void floe_vector_reserve_data(floe_vector *v, size_t bytes)
{
	if (bytes <= v->data_cap)
		return;
	size_t cap = v->data_cap ? v->data_cap : 256;
	while (cap < bytes)
		cap *= 2;
	v->data = floe_xrealloc(v->data, cap);
	v->data_cap = cap;
}

size_t floe_vector_null_count(const floe_vector *v)
{
	if (!v->validity)
		return 0;
	size_t valid = 0;
	for (size_t i = 0; i < v->len; i++)
		valid += floe_vector_is_valid(v, i);
	return v->len - valid;
}

size_t floe_vector_data_bytes(const floe_vector *v)
{
	size_t n = v->data_len + (v->child ? floe_vector_data_bytes(v->child) : 0);
	for (size_t i = 0; i < v->n_children; i++)
		n += floe_vector_data_bytes(&v->children[i]);
	return n;
}

/* Room for one more row; returns its index. Most appends have room: no call then (the COPY
 * decoder appends every value of a load here). */
static inline size_t grow_one(floe_vector *v)
{
	if (__builtin_expect(v->len >= v->cap || (!v->offsets && has_offsets(v->type)), 0))
		floe_vector_reserve(v, v->len + 1);
	return v->len++;
}

static void close_offset(floe_vector *v, size_t i)
{
	v->offsets[i + 1] = v->type == FLOE_VEC_LIST ? (int64_t)v->child->len : (int64_t)v->data_len;
}

void floe_vector_append_null(floe_vector *v)
{
	size_t i = grow_one(v);
	if (!v->validity) {
		size_t n = (v->cap + 7) / 8;
		v->validity = floe_xmalloc(n);
		memset(v->validity, 0xFF, n);
	}
	v->validity[i >> 3] &= (uint8_t) ~(1u << (i & 7));
	size_t w = floe_vec_type_width(v->type, v->width);
	if (w)
		memset(v->v.u8 + i * w, 0, w);
	if (has_offsets(v->type))
		v->offsets[i + 1] = v->offsets[i];
	for (size_t k = 0; k < v->n_children; k++)
		floe_vector_append_null(&v->children[k]);
}

void floe_vector_append_bool(floe_vector *v, bool x)
{
	assert(v->type == FLOE_VEC_BOOLEAN);
	size_t i = grow_one(v); /* grow first: it may move v->v.u8 */
	v->v.u8[i] = x ? 1 : 0;
}

void floe_vector_append_i32(floe_vector *v, int32_t x)
{
	assert(v->type == FLOE_VEC_INT || v->type == FLOE_VEC_DATE);
	size_t i = grow_one(v);
	v->v.i32[i] = x;
}

void floe_vector_append_i64(floe_vector *v, int64_t x)
{
	assert(v->type == FLOE_VEC_LONG || v->type == FLOE_VEC_TIME ||
	       v->type == FLOE_VEC_TIMESTAMP || v->type == FLOE_VEC_TIMESTAMPTZ);
	size_t i = grow_one(v);
	v->v.i64[i] = x;
}

void floe_vector_append_f32(floe_vector *v, float x)
{
	assert(v->type == FLOE_VEC_FLOAT);
	size_t i = grow_one(v);
	v->v.f32[i] = x;
}

void floe_vector_append_f64(floe_vector *v, double x)
{
	assert(v->type == FLOE_VEC_DOUBLE);
	size_t i = grow_one(v);
	v->v.f64[i] = x;
}

void floe_vector_append_dec(floe_vector *v, floe_dec128 x)
{
	assert(v->type == FLOE_VEC_DECIMAL);
	size_t i = grow_one(v);
	v->v.dec[i] = x;
}

void floe_vector_append_bytes(floe_vector *v, const void *p, size_t len)
{
	assert(v->type == FLOE_VEC_STRING || v->type == FLOE_VEC_BINARY);
	size_t i = grow_one(v);
	floe_vector_reserve_data(v, v->data_len + len);
	if (len)
		memcpy(v->data + v->data_len, p, len);
	v->data_len += len;
	close_offset(v, i);
}

void floe_vector_append_fixed(floe_vector *v, const void *p)
{
	assert(v->type == FLOE_VEC_UUID || v->type == FLOE_VEC_FIXED);
	size_t i = grow_one(v);
	if (v->width == 16) /* a UUID: a copy of constant width, not a call */
		memcpy(v->v.fixed + i * 16, p, 16);
	else
		memcpy(v->v.fixed + i * (size_t)v->width, p, (size_t)v->width);
}

void floe_vector_append_list(floe_vector *v)
{
	assert(v->type == FLOE_VEC_LIST && v->child);
	size_t i = grow_one(v);
	close_offset(v, i);
}

void floe_vector_append_struct(floe_vector *v)
{
	assert(v->type == FLOE_VEC_STRUCT);
	for (size_t k = 0; k < v->n_children; k++)
		assert(v->children[k].len == v->len + 1);
	grow_one(v);
}

void floe_vector_append_row(floe_vector *dst, const floe_vector *src, size_t i)
{
	size_t len;
	const uint8_t *p;
	assert(dst->type == src->type);
	if (!floe_vector_is_valid(src, i)) {
		floe_vector_append_null(dst);
		return;
	}
	switch (src->type) {
	case FLOE_VEC_BOOLEAN: floe_vector_append_bool(dst, src->v.u8[i]); break;
	case FLOE_VEC_INT:
	case FLOE_VEC_DATE: floe_vector_append_i32(dst, src->v.i32[i]); break;
	case FLOE_VEC_FLOAT: floe_vector_append_f32(dst, src->v.f32[i]); break;
	case FLOE_VEC_DOUBLE: floe_vector_append_f64(dst, src->v.f64[i]); break;
	case FLOE_VEC_DECIMAL: floe_vector_append_dec(dst, src->v.dec[i]); break;
	case FLOE_VEC_STRING:
	case FLOE_VEC_BINARY:
		p = floe_vector_bytes(src, i, &len);
		floe_vector_append_bytes(dst, p, len);
		break;
	case FLOE_VEC_UUID:
	case FLOE_VEC_FIXED: floe_vector_append_fixed(dst, src->v.fixed + i * (size_t)src->width); break;
	case FLOE_VEC_LIST:
		for (int64_t j = src->offsets[i]; j < src->offsets[i + 1]; j++)
			floe_vector_append_row(dst->child, src->child, (size_t)j);
		floe_vector_append_list(dst);
		break;
	case FLOE_VEC_STRUCT:
		assert(dst->n_children == src->n_children);
		for (size_t k = 0; k < src->n_children; k++)
			floe_vector_append_row(&dst->children[k], &src->children[k], i);
		floe_vector_append_struct(dst);
		break;
	default: floe_vector_append_i64(dst, src->v.i64[i]); break;
	}
}

bool floe_vector_same_shape(const floe_vector *a, const floe_vector *b)
{
	if (a->type != b->type || a->width != b->width || a->n_children != b->n_children ||
	    !a->child != !b->child)
		return false;
	if (a->child && !floe_vector_same_shape(a->child, b->child))
		return false;
	for (size_t k = 0; k < a->n_children; k++)
		if (!floe_vector_same_shape(&a->children[k], &b->children[k]))
			return false;
	return true;
}

static int cmp_bytes(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);
	if (c)
		return c < 0 ? -1 : 1;
	return alen < blen ? -1 : alen > blen;
}

/* Floats in a total order (NaN last, -0 before +0): how a sort must place them. */
static int cmp_real(double x, double y)
{
	if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y);
	if (x == y)
		return signbit(y) - signbit(x);
	return x < y ? -1 : 1;
}

#define CMP(x, y) ((x) < (y) ? -1 : (x) > (y))

int floe_vector_compare_rows(const floe_vector *a, size_t i, const floe_vector *b, size_t j)
{
	bool va = floe_vector_is_valid(a, i), vb = floe_vector_is_valid(b, j);
	size_t alen, blen;
	assert(a->type == b->type);
	if (!va || !vb)
		return (int)va - (int)vb; /* nulls first */
	switch (a->type) {
	case FLOE_VEC_BOOLEAN: return CMP(a->v.u8[i], b->v.u8[j]);
	case FLOE_VEC_INT:
	case FLOE_VEC_DATE: return CMP(a->v.i32[i], b->v.i32[j]);
	case FLOE_VEC_FLOAT: return cmp_real(a->v.f32[i], b->v.f32[j]);
	case FLOE_VEC_DOUBLE: return cmp_real(a->v.f64[i], b->v.f64[j]);
	case FLOE_VEC_DECIMAL: return floe_dec128_cmp(a->v.dec[i], b->v.dec[j]);
	case FLOE_VEC_STRING:
	case FLOE_VEC_BINARY: {
		const uint8_t *pa = floe_vector_bytes(a, i, &alen), *pb = floe_vector_bytes(b, j, &blen);
		return cmp_bytes(pa, alen, pb, blen);
	}
	case FLOE_VEC_UUID:
	case FLOE_VEC_FIXED:
		return cmp_bytes(a->v.fixed + i * (size_t)a->width, (size_t)a->width,
				 b->v.fixed + j * (size_t)b->width, (size_t)b->width);
	case FLOE_VEC_LIST: {
		int64_t x = a->offsets[i], xe = a->offsets[i + 1], y = b->offsets[j], ye = b->offsets[j + 1];
		for (; x < xe && y < ye; x++, y++) {
			int c = floe_vector_compare_rows(a->child, (size_t)x, b->child, (size_t)y);
			if (c)
				return c;
		}
		return CMP(xe - x, ye - y);
	}
	case FLOE_VEC_STRUCT:
		for (size_t k = 0; k < a->n_children; k++) {
			int c = floe_vector_compare_rows(&a->children[k], i, &b->children[k], j);
			if (c)
				return c;
		}
		return 0;
	default: return CMP(a->v.i64[i], b->v.i64[j]);
	}
}

void floe_vector_append_rows(floe_vector *dst, const floe_vector *src, size_t from, size_t n)
{
	assert(dst->type == src->type);
	if (n == 0)
		return;
	size_t at = dst->len, w = floe_vec_type_width(src->type, src->width);
	floe_vector_reserve(dst, at + n);
	if (w)
		memcpy(dst->v.u8 + at * w, src->v.u8 + from * w, n * w);
	if (src->type == FLOE_VEC_STRING || src->type == FLOE_VEC_BINARY || src->type == FLOE_VEC_LIST) {
		int64_t b0 = src->offsets[from], b1 = src->offsets[from + n];
		int64_t base = src->type == FLOE_VEC_LIST ? (int64_t)dst->child->len : (int64_t)dst->data_len;
		if (src->type == FLOE_VEC_LIST) {
			floe_vector_append_rows(dst->child, src->child, (size_t)b0, (size_t)(b1 - b0));
		} else if (b1 > b0) {
			floe_vector_reserve_data(dst, dst->data_len + (size_t)(b1 - b0));
			memcpy(dst->data + dst->data_len, src->data + b0, (size_t)(b1 - b0));
			dst->data_len += (size_t)(b1 - b0);
		}
		for (size_t i = 0; i < n; i++)
			dst->offsets[at + i + 1] = base + (src->offsets[from + i + 1] - b0);
	}
	if (src->type == FLOE_VEC_STRUCT) {
		assert(dst->n_children == src->n_children);
		for (size_t k = 0; k < src->n_children; k++)
			floe_vector_append_rows(&dst->children[k], &src->children[k], from, n);
	}
	dst->len += n;
	for (size_t i = 0; src->validity && i < n; i++) {
		if (floe_vector_is_valid(src, from + i))
			continue;
		if (!dst->validity) {
			size_t bytes = (dst->cap + 7) / 8;
			dst->validity = floe_xmalloc(bytes);
			memset(dst->validity, 0xFF, bytes);
		}
		dst->validity[(at + i) >> 3] &= (uint8_t) ~(1u << ((at + i) & 7));
	}
}

/* ---- decimals ---- */

static i128 to_i128(floe_dec128 x)
{
	return (i128)(((u128)(uint64_t)x.hi << 64) | x.lo);
}

floe_dec128 floe_dec128_from_i64(int64_t x)
{
	floe_dec128 d = { (uint64_t)x, x < 0 ? -1 : 0 };
	return d;
}

int floe_dec128_cmp(floe_dec128 a, floe_dec128 b)
{
	i128 x = to_i128(a), y = to_i128(b);
	return x < y ? -1 : x > y;
}

/* 10^0 .. 10^19: every power of ten that fits 64 bits. */
static const uint64_t POW10_64[20] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL, 100000000ULL,
	1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL, 10000000000000ULL,
	100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
	1000000000000000000ULL, 10000000000000000000ULL,
};

bool floe_dec128_fits(floe_dec128 x, int precision)
{
	if (precision < 1 || precision > 38)
		return false;
	int64_t lo = (int64_t)x.lo;
	if (x.hi == (lo < 0 ? -1 : 0) && precision <= 19) { /* a 64-bit value: no 128-bit arithmetic */
		uint64_t mag = lo < 0 ? 0 - (uint64_t)lo : (uint64_t)lo;
		return mag < POW10_64[precision];
	}
	u128 limit = precision <= 19 ? (u128)POW10_64[precision]
				     : (u128)POW10_64[19] * POW10_64[precision - 19];
	i128 v = to_i128(x);
	/* -v overflows only for INT128_MIN, which no precision up to 38 admits. */
	u128 mag = v < 0 ? (u128)0 - (u128)v : (u128)v;
	return mag < limit;
}

size_t floe_vector_lower_bound(const floe_vector *v, size_t n, const floe_vector *key, size_t row)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (floe_vector_compare_rows(v, mid, key, row) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
