/*
 * parquet_decode.c — the pages of one column chunk into a column vector: page headers,
 * decompression, RLE/bit-packed levels, PLAIN and dictionary values (RLE for booleans too),
 * data pages v1 and v2, and the assembly of rows (nulls, and 3-level lists) — or, for a field
 * rebuilt from several leaves (parquet_assemble.c), the chunk's levels and values as stored.
 *
 * Every count is checked before it sizes an allocation: page sizes against
 * opts.max_page_bytes, level entries against opts.max_values, PLAIN value counts against
 * the bytes that hold them, dictionary indices against the dictionary.
 */
#include "format/parquet_reader_int.h"

#include "base/arena.h"
#include "base/error.h"
#include "format/thrift_compact.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128;

typedef struct page_header {
	int32_t type, unc, comp;
	bool has_crc;
	int32_t crc;                /* PageHeader.crc: CRC-32 of the page's bytes as written */
	bool has_data, has_dict, has_v2;
	int32_t num_values, encoding, def_enc, rep_enc; /* v1, dictionary (num_values, encoding) */
	int32_t v2_nulls, v2_rows, def_len, rep_len;
	bool v2_compressed;
} page_header;

typedef struct dec {
	floe_parquet_reader *r;
	const floe_parquet_leaf *leaf;
	int physical;
	int32_t type_length;
	int64_t factor;             /* 1000 for milliseconds read as microseconds */
	pq_codec *codec;
	floe_vector dict, own_vals;
	floe_vector *vals;          /* a page's values: own_vals, or the reader's scratch */
	bool has_dict;
	uint32_t *def, *rep, *idx;
	size_t cap_lvl, cap_idx;
	int64_t entries;            /* level entries so far */
	floe_vector *out;
	pq_levels *lv;              /* set: keep levels and values for record assembly, no rows */
	int d_outer;                /* lists: definition level of an empty list */
	bool row_open;
} dec;

static int bad(dec *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int bad(dec *d, const char *fmt, ...)
{
	char why[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return floe_error_set(FLOE_ERR_CHECK, "Parquet column %s of \"%s\" is malformed: %s",
			      d->leaf->path, d->r->path, why);
}

/* ---- page header ---- */

static int parse_sub_header(floe_thrift_reader *t, page_header *h, int which)
{
	int16_t id;
	int type, more;
	if (floe_thrift_read_struct_begin(t) < 0)
		return -1;
	while ((more = floe_thrift_next_field(t, &id, &type)) > 0) {
		int rc;
		if (id == 1)
			rc = floe_thrift_take_i32(t, type, &h->num_values, NULL);
		else if (which == 8 && id == 2)
			rc = floe_thrift_take_i32(t, type, &h->v2_nulls, NULL);
		else if (which == 8 && id == 3)
			rc = floe_thrift_take_i32(t, type, &h->v2_rows, NULL);
		else if ((which != 8 && id == 2) || (which == 8 && id == 4))
			rc = floe_thrift_take_i32(t, type, &h->encoding, NULL);
		else if (which == 5 && id == 3)
			rc = floe_thrift_take_i32(t, type, &h->def_enc, NULL);
		else if (which == 5 && id == 4)
			rc = floe_thrift_take_i32(t, type, &h->rep_enc, NULL);
		else if (which == 8 && id == 5)
			rc = floe_thrift_take_i32(t, type, &h->def_len, NULL);
		else if (which == 8 && id == 6)
			rc = floe_thrift_take_i32(t, type, &h->rep_len, NULL);
		else if (which == 8 && id == 7 && floe_thrift_type_is_bool(type))
			rc = floe_thrift_read_bool(t, &h->v2_compressed);
		else
			rc = floe_thrift_skip(t, type);
		if (rc < 0)
			return -1;
	}
	return more;
}

static int parse_page_header(floe_thrift_reader *t, page_header *h)
{
	int16_t id;
	int type, more;
	memset(h, 0, sizeof(*h));
	h->type = h->unc = h->comp = -1;
	h->def_enc = h->rep_enc = PQ_ENC_RLE;
	h->v2_compressed = true;
	if (floe_thrift_read_struct_begin(t) < 0)
		return -1;
	while ((more = floe_thrift_next_field(t, &id, &type)) > 0) {
		int rc;
		if (id == 1 || id == 2 || id == 3) {
			rc = floe_thrift_take_i32(t, type, id == 1 ? &h->type : id == 2 ? &h->unc : &h->comp, NULL);
		} else if (id == 4) {
			rc = floe_thrift_take_i32(t, type, &h->crc, &h->has_crc);
		} else if ((id == 5 || id == 7 || id == 8) && type == FLOE_THRIFT_STRUCT) {
			if (h->has_data || h->has_dict || h->has_v2)
				return -1; /* two sub-headers */
			h->has_data = id == 5, h->has_dict = id == 7, h->has_v2 = id == 8;
			rc = parse_sub_header(t, h, id);
		} else {
			rc = floe_thrift_skip(t, type);
		}
		if (rc < 0)
			return -1;
	}
	return more;
}

/* ---- values ---- */

static floe_dec128 dec_be(const uint8_t *p, size_t len)
{
	u128 u = len && (p[0] & 0x80) ? ~(u128)0 : 0;
	for (size_t i = 0; i < len; i++)
		u = u << 8 | p[i];
	floe_dec128 d = { (uint64_t)u, (int64_t)(uint64_t)(u >> 64) };
	return d;
}

/* One PLAIN value of `len` bytes appended to `v` (of the leaf's vtype). */
static int put_value(dec *d, floe_vector *v, const uint8_t *p, size_t len)
{
	int32_t i32;
	int64_t i64;
	switch (v->type) {
	case FLOE_VEC_BOOLEAN: floe_vector_append_bool(v, p[0] != 0); return 0;
	case FLOE_VEC_INT:
	case FLOE_VEC_DATE: memcpy(&i32, p, 4); floe_vector_append_i32(v, i32); return 0;
	case FLOE_VEC_FLOAT: {
		float f;
		memcpy(&f, p, 4);
		floe_vector_append_f32(v, f);
		return 0;
	}
	case FLOE_VEC_DOUBLE: {
		double x;
		memcpy(&x, p, 8);
		floe_vector_append_f64(v, x);
		return 0;
	}
	case FLOE_VEC_LONG:
	case FLOE_VEC_TIME:
	case FLOE_VEC_TIMESTAMP:
	case FLOE_VEC_TIMESTAMPTZ:
		if (d->physical == FLOE_PQ_INT32) {
			memcpy(&i32, p, 4);
			i64 = i32;
		} else {
			memcpy(&i64, p, 8);
		}
		if (d->factor != 1) {
			if (i64 > INT64_MAX / d->factor || i64 < INT64_MIN / d->factor)
				return bad(d, "a millisecond value overflows microseconds");
			i64 *= d->factor;
		}
		floe_vector_append_i64(v, i64);
		return 0;
	case FLOE_VEC_DECIMAL:
		if (d->physical == FLOE_PQ_INT32) {
			memcpy(&i32, p, 4);
			floe_vector_append_dec(v, floe_dec128_from_i64(i32));
		} else if (d->physical == FLOE_PQ_INT64) {
			memcpy(&i64, p, 8);
			floe_vector_append_dec(v, floe_dec128_from_i64(i64));
		} else {
			if (len > 16)
				return bad(d, "a decimal of %zu bytes", len);
			floe_vector_append_dec(v, dec_be(p, len));
		}
		return 0;
	case FLOE_VEC_STRING:
	case FLOE_VEC_BINARY: floe_vector_append_bytes(v, p, len); return 0;
	case FLOE_VEC_UUID:
	case FLOE_VEC_FIXED: floe_vector_append_fixed(v, p); return 0;
	default: return bad(d, "an unexpected value type");
	}
}

static size_t plain_width(const dec *d)
{
	switch (d->physical) {
	case FLOE_PQ_INT32:
	case FLOE_PQ_FLOAT: return 4;
	case FLOE_PQ_INT64:
	case FLOE_PQ_DOUBLE: return 8;
	case FLOE_PQ_FIXED_LEN_BYTE_ARRAY: return (size_t)d->type_length;
	default: return 0;
	}
}

/* Whether PLAIN values of width w are the vector's storage as they are (no conversion, no NULLs). */
static bool stored_as_read(const dec *d, const floe_vector *v, size_t w)
{
	if (v->validity || floe_vec_type_width(v->type, v->width) != w)
		return false;
	switch (v->type) {
	case FLOE_VEC_UUID:
	case FLOE_VEC_FIXED: return d->physical == FLOE_PQ_FIXED_LEN_BYTE_ARRAY;
	case FLOE_VEC_INT:
	case FLOE_VEC_DATE: return d->physical == FLOE_PQ_INT32;
	case FLOE_VEC_DOUBLE: return d->physical == FLOE_PQ_DOUBLE;
	case FLOE_VEC_LONG:
	case FLOE_VEC_TIME:
	case FLOE_VEC_TIMESTAMP:
	case FLOE_VEC_TIMESTAMPTZ: return d->physical == FLOE_PQ_INT64 && d->factor == 1;
	default: return false;
	}
}

/* Decode `n` PLAIN values from p[0..len) into `v`. */
static int decode_plain(dec *d, floe_vector *v, const uint8_t *p, size_t len, size_t n)
{
	if (d->physical == FLOE_PQ_BOOLEAN) {
		if (n > len * 8)
			return bad(d, "%zu booleans in %zu bytes", n, len);
		floe_vector_reserve(v, v->len + n);
		for (size_t i = 0; i < n; i++)
			floe_vector_append_bool(v, (p[i >> 3] >> (i & 7)) & 1);
		return 0;
	}
	if (d->physical == FLOE_PQ_BYTE_ARRAY) {
		if (n > len / 4)
			return bad(d, "%zu byte arrays in %zu bytes", n, len);
		floe_vector_reserve(v, v->len + n);
		size_t o = 0;
		for (size_t i = 0; i < n; i++) {
			if (len - o < 4)
				return bad(d, "a byte array runs past its page");
			uint32_t k;
			memcpy(&k, p + o, 4);
			o += 4;
			if (k > len - o)
				return bad(d, "a byte array runs past its page");
			if (put_value(d, v, p + o, k) < 0)
				return -1;
			o += k;
		}
		return 0;
	}
	size_t w = plain_width(d);
	if (w == 0 || n > len / w)
		return bad(d, "%zu values of %zu bytes in %zu bytes", n, w, len);
	floe_vector_reserve(v, v->len + n);
	if (n && stored_as_read(d, v, w)) { /* one copy of the page's values (none: v may have no buffer yet) */
		memcpy(v->v.u8 + v->len * w, p, n * w);
		v->len += n;
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		if (put_value(d, v, p + i * w, w) < 0)
			return -1;
	return 0;
}

static int decode_dict_indices(dec *d, const uint8_t *p, size_t len, size_t n)
{
	if (!d->has_dict)
		return bad(d, "a dictionary-encoded page without a dictionary");
	if (len < 1 || p[0] > 32)
		return bad(d, "a dictionary page with a bad index width");
	if (n > d->cap_idx) {
		d->idx = floe_xrealloc(d->idx, n * sizeof(uint32_t));
		d->cap_idx = n;
	}
	pq_rle_decoder rd;
	pq_rle_decoder_init(&rd, p + 1, len - 1, p[0]);
	if (pq_rle_decode(&rd, d->idx, n) < 0)
		return bad(d, "dictionary indices end early or are malformed");
	floe_vector_reserve(d->vals, d->vals->len + n);
	for (size_t i = 0; i < n; i++) {
		if (d->idx[i] >= d->dict.len)
			return bad(d, "dictionary index %u of a dictionary of %zu", d->idx[i], d->dict.len);
		floe_vector_append_row(d->vals, &d->dict, d->idx[i]);
	}
	return 0;
}

static int decode_rle_bools(dec *d, const uint8_t *p, size_t len, size_t n)
{
	if (len < 4)
		return bad(d, "an RLE boolean page without its length");
	uint32_t k;
	memcpy(&k, p, 4);
	if (k > len - 4)
		return bad(d, "RLE booleans run past their page");
	if (n > d->cap_idx) {
		d->idx = floe_xrealloc(d->idx, n * sizeof(uint32_t));
		d->cap_idx = n;
	}
	pq_rle_decoder rd;
	pq_rle_decoder_init(&rd, p + 4, k, 1);
	if (pq_rle_decode(&rd, d->idx, n) < 0)
		return bad(d, "RLE booleans end early or are malformed");
	floe_vector_reserve(d->vals, d->vals->len + n);
	for (size_t i = 0; i < n; i++)
		floe_vector_append_bool(d->vals, d->idx[i] != 0);
	return 0;
}

static int decode_values(dec *d, int encoding, const uint8_t *p, size_t len, size_t n)
{
	if (!d->lv)
		floe_vector_clear(d->vals); /* one page's values; levels mode keeps the chunk's */
	switch (encoding) {
	case PQ_ENC_PLAIN: return decode_plain(d, d->vals, p, len, n);
	case PQ_ENC_PLAIN_DICTIONARY:
	case PQ_ENC_RLE_DICTIONARY: return decode_dict_indices(d, p, len, n);
	case PQ_ENC_RLE:
		if (d->physical == FLOE_PQ_BOOLEAN)
			return decode_rle_bools(d, p, len, n);
		break;
	default: break;
	}
	return bad(d, "value encoding %d is not supported (floe reads PLAIN, dictionary and RLE booleans)",
		   encoding);
}

/* ---- levels and rows ---- */

static int decode_levels(dec *d, uint32_t *out, const uint8_t *p, size_t len, size_t n, int max)
{
	pq_rle_decoder rd;
	pq_rle_decoder_init(&rd, p, len, pq_bit_width((uint64_t)max));
	if (pq_rle_decode(&rd, out, n) < 0)
		return bad(d, "levels end early or are malformed");
	for (size_t i = 0; i < n; i++)
		if (out[i] > (uint32_t)max)
			return bad(d, "level %u above the maximum %d", out[i], max);
	return 0;
}

/* The page's values into the column, a NULL where a level says so: runs of values copied at once. */
static int assemble_flat(dec *d, size_t n)
{
	size_t vi = 0, k = 0;
	uint32_t max_def = (uint32_t)d->leaf->max_def;
	floe_vector_reserve(d->out, d->out->len + n);
	while (k < n) {
		size_t end = k;
		while (end < n && d->def[end] == max_def)
			end++;
		floe_vector_append_rows(d->out, d->vals, vi, end - k);
		vi += end - k;
		if (end < n)
			floe_vector_append_null(d->out);
		k = end + 1;
	}
	return 0;
}

static int assemble_list(dec *d, size_t n)
{
	floe_vector *out = d->out, *child = out->child;
	uint32_t max_def = (uint32_t)d->leaf->max_def, d_outer = (uint32_t)d->d_outer;
	size_t vi = 0;
	for (size_t k = 0; k < n; k++) {
		uint32_t def = d->def[k];
		if (d->rep[k] == 0) {
			if (d->row_open)
				floe_vector_append_list(out);
			d->row_open = false;
			if (def < d_outer) {
				floe_vector_append_null(out);
				continue;
			}
			if (def == d_outer) {
				floe_vector_append_list(out);
				continue;
			}
			d->row_open = true;
		} else if (!d->row_open || def <= d_outer) {
			return bad(d, "a repeated value outside a list");
		}
		if (def == max_def)
			floe_vector_append_row(child, d->vals, vi++);
		else
			floe_vector_append_null(child); /* the element, or a struct on the way to the leaf, is null */
	}
	return 0;
}

/* Levels mode: the page's levels appended to the chunk's (its values are already in d->vals). */
static int keep_levels(dec *d, size_t n)
{
	pq_levels *lv = d->lv;
	if (lv->n + n > lv->cap) {
		size_t cap = lv->cap ? lv->cap : 1024;
		while (cap < lv->n + n)
			cap *= 2;
		lv->def = floe_xrealloc(lv->def, cap);
		lv->rep = floe_xrealloc(lv->rep, cap);
		lv->cap = cap;
	}
	for (size_t i = 0; i < n; i++) { /* levels are at most the schema's depth (64) */
		lv->def[lv->n + i] = (uint8_t)d->def[i];
		lv->rep[lv->n + i] = (uint8_t)d->rep[i];
	}
	lv->n += n;
	return 0;
}

static void lvl_reserve(dec *d, size_t n)
{
	if (n == 0)
		n = 1; /* arrays are never NULL, even for an empty page */
	if (n <= d->cap_lvl)
		return;
	d->def = floe_xrealloc(d->def, n * sizeof(uint32_t));
	d->rep = floe_xrealloc(d->rep, n * sizeof(uint32_t));
	d->cap_lvl = n;
}

/* A data page once its levels and values are located (v1 or v2). */
static int data_page(dec *d, size_t n, const uint8_t *rep, size_t rep_len, const uint8_t *def,
		     size_t def_len, int encoding, const uint8_t *vals, size_t vals_len)
{
	const floe_parquet_leaf *l = d->leaf;
	lvl_reserve(d, n);
	if (l->max_rep > 0) {
		if (decode_levels(d, d->rep, rep, rep_len, n, l->max_rep) < 0)
			return -1;
	} else {
		memset(d->rep, 0, n * sizeof(uint32_t));
	}
	size_t present = n;
	if (l->max_def > 0) {
		if (decode_levels(d, d->def, def, def_len, n, l->max_def) < 0)
			return -1;
		present = 0;
		for (size_t i = 0; i < n; i++)
			present += d->def[i] == (uint32_t)l->max_def;
	} else {
		for (size_t i = 0; i < n; i++)
			d->def[i] = 0;
	}
	if (decode_values(d, encoding, vals, vals_len, present) < 0)
		return -1;
	if (d->entries == 0 && n > 0 && d->rep[0] != 0)
		return bad(d, "the first value continues a list");
	if (d->lv)
		return keep_levels(d, n);
	if (l->max_rep == 0 && d->out->type != FLOE_VEC_LIST)
		return assemble_flat(d, n);
	return assemble_list(d, n);
}

/* v1: levels carry a 4-byte length, everything is compressed together. */
static int page_v1(dec *d, const page_header *h, const uint8_t *body, size_t len, size_t n)
{
	const uint8_t *p = body, *rep = NULL, *def = NULL;
	size_t left = len, rep_len = 0, def_len = 0;
	for (int which = 0; which < 2; which++) {
		int max = which == 0 ? d->leaf->max_rep : d->leaf->max_def;
		if (max == 0)
			continue;
		if ((which == 0 ? h->rep_enc : h->def_enc) != PQ_ENC_RLE)
			return bad(d, "levels use encoding %d, not RLE", which == 0 ? h->rep_enc : h->def_enc);
		uint32_t k;
		if (left < 4)
			return bad(d, "a page ends inside its levels");
		memcpy(&k, p, 4);
		if (k > left - 4)
			return bad(d, "levels run past their page");
		if (which == 0)
			rep = p + 4, rep_len = k;
		else
			def = p + 4, def_len = k;
		p += 4 + k;
		left -= 4 + (size_t)k;
	}
	return data_page(d, n, rep, rep_len, def, def_len, h->encoding, p, left);
}

static int decompress(dec *d, const uint8_t *in, size_t len, size_t out_len, const uint8_t **out)
{
	floe_buf_clear(d->r->page);
	uint8_t *dst = pq_buf_extend(d->r->page, out_len);
	if (!dst)
		return bad(d, "a page of %zu bytes", out_len);
	if (pq_codec_decompress(d->codec, dst, out_len, in, len) < 0)
		return -1;
	*out = dst;
	return 0;
}

static int dictionary_page(dec *d, const page_header *h, const uint8_t *body, size_t comp)
{
	const uint8_t *p;
	if (d->has_dict || d->entries > 0)
		return bad(d, "a dictionary page that is not the first page");
	if (h->num_values < 0 || (h->encoding != PQ_ENC_PLAIN && h->encoding != PQ_ENC_PLAIN_DICTIONARY))
		return bad(d, "a dictionary page with %d values in encoding %d", h->num_values, h->encoding);
	if (decompress(d, body, comp, (size_t)h->unc, &p) < 0)
		return -1;
	d->has_dict = true;
	return decode_plain(d, &d->dict, p, (size_t)h->unc, (size_t)h->num_values);
}

/* Values this page may add: within max_values overall. */
static int page_count(dec *d, int32_t num_values, size_t *n)
{
	if (num_values < 0 || (uint64_t)d->entries + (uint64_t)num_values > d->r->opts.max_values)
		return bad(d, "a page of %d values exceeds the reader's limit of %zu", num_values,
			   d->r->opts.max_values);
	*n = (size_t)num_values;
	return 0;
}

static int one_page(dec *d, const page_header *h, const uint8_t *body)
{
	size_t comp = (size_t)h->comp, unc = (size_t)h->unc, n = 0;
	const uint8_t *p;
	if (h->type == PQ_PAGE_DICTIONARY && h->has_dict)
		return dictionary_page(d, h, body, comp);
	if (h->type == PQ_PAGE_DATA && h->has_data) {
		if (page_count(d, h->num_values, &n) < 0 || decompress(d, body, comp, unc, &p) < 0 ||
		    page_v1(d, h, p, unc, n) < 0)
			return -1;
		d->entries += (int64_t)n;
		return 0;
	}
	if (h->type == PQ_PAGE_DATA_V2 && h->has_v2) {
		if (page_count(d, h->num_values, &n) < 0)
			return -1;
		if (h->rep_len < 0 || h->def_len < 0 || (size_t)h->rep_len + (size_t)h->def_len > comp ||
		    (size_t)h->rep_len + (size_t)h->def_len > unc)
			return bad(d, "a v2 page's levels exceed the page");
		size_t lv = (size_t)h->rep_len + (size_t)h->def_len;
		const uint8_t *vals = body + lv;
		size_t vals_len = unc - lv;
		if (h->v2_compressed && d->codec && comp - lv > 0) {
			if (decompress(d, body + lv, comp - lv, unc - lv, &vals) < 0)
				return -1;
		} else if (comp != unc) {
			return bad(d, "an uncompressed v2 page of two sizes");
		}
		if (data_page(d, n, body, (size_t)h->rep_len, body + h->rep_len, (size_t)h->def_len,
			      h->encoding, vals, vals_len) < 0)
			return -1;
		d->entries += (int64_t)n;
		return 0;
	}
	if (h->type == PQ_PAGE_DATA || h->type == PQ_PAGE_DICTIONARY || h->type == PQ_PAGE_DATA_V2)
		return bad(d, "a page of type %d without its header", h->type);
	return 0; /* index pages and unknown kinds: skipped */
}

static void dec_free(dec *d)
{
	floe_vector_free(&d->dict);
	floe_vector_free(&d->own_vals);
	free(d->def);
	free(d->rep);
	free(d->idx);
}

/* `levels`: the values stay with the chunk (moved to its levels), so never the scratch's. */
static void dec_init(dec *d, floe_parquet_reader *r, const floe_parquet_leaf *leaf, bool levels)
{
	const floe_parquet_schema_element *e = &r->meta.schema[leaf->element];
	memset(d, 0, sizeof(*d));
	d->r = r;
	d->leaf = leaf;
	d->physical = e->type;
	d->type_length = e->type_length;
	d->factor = 1;
	if ((leaf->vtype == FLOE_VEC_TIME && e->type == FLOE_PQ_INT32) ||
	    ((leaf->vtype == FLOE_VEC_TIMESTAMP || leaf->vtype == FLOE_VEC_TIMESTAMPTZ) &&
	     (e->unit == FLOE_PQ_UNIT_MILLIS || (e->logical == 0 && e->converted_type == PQ_CT_TIMESTAMP_MILLIS))))
		d->factor = 1000;
	d->d_outer = leaf->list_def;
	floe_vector_init(&d->dict, leaf->vtype, leaf->vtype == FLOE_VEC_FIXED ? leaf->width : 0);
	floe_vector_init(&d->own_vals, leaf->vtype, leaf->vtype == FLOE_VEC_FIXED ? leaf->width : 0);
	d->vals = &d->own_vals;
	if (r->vals && !levels) {
		d->vals = r->vals;
		floe_vector_reuse(d->vals, leaf->vtype, leaf->vtype == FLOE_VEC_FIXED ? leaf->width : 0);
	}
}

static int get_codec(dec *d, int codec)
{
	floe_parquet_reader *r = d->r;
	if (codec < 0 || codec > 7)
		return bad(d, "unknown compression codec %d", codec);
	if (codec == FLOE_PARQUET_UNCOMPRESSED)
		return pq_codec_new(&d->codec, codec, 0) < 0 ? -1 : 0;
	if (!r->codecs[codec] && pq_codec_new(&r->codecs[codec], codec, 3) < 0)
		return -1;
	d->codec = r->codecs[codec];
	return 0;
}

/* A page whose header (at chunk byte `pos`) records a CRC must match it: a flipped bit fails here. */
static int check_crc(dec *d, const page_header *h, const uint8_t *page, size_t pos)
{
	uint32_t got;
	if (!h->has_crc || d->r->opts.skip_page_crc || (got = pq_page_crc(page, (size_t)h->comp)) == (uint32_t)h->crc)
		return 0;
	floe_error_set(FLOE_ERR_CHECK, "Parquet file \"%s\" is damaged: the page at byte %zu of column "
		       "%s's chunk fails its checksum", d->r->path, pos, d->leaf->path);
	floe_error_detail("Its page header records CRC-32 %08x, its bytes give %08x: the file changed "
			  "after it was written.", (uint32_t)h->crc, got);
	floe_error_hint("Restore the file from a backup, or load the table again from its source.");
	return -1;
}

/* A self-checked page failed to decode: when its CRC fails too, that says what happened (the file changed). */
static void crc_names_failure(dec *d, const page_header *h, const uint8_t *page, size_t pos)
{
	floe_error failed;
	floe_error_take(&failed);
	if (check_crc(d, h, page, pos) < 0)
		floe_error_discard(&failed); /* the CRC's error stands */
	else
		floe_error_give(&failed);
}

/* Every page of the chunk through `d` (set up by dec_init, with its out or lv). */
static int chunk_pages(dec *d, const floe_parquet_column_chunk *cc, const uint8_t *data, size_t len)
{
	floe_parquet_reader *r = d->r;
	int rc = -1;
	bool own_codec = cc->codec == FLOE_PARQUET_UNCOMPRESSED;
	if (get_codec(d, cc->codec) < 0)
		goto cleanup;
	for (size_t pos = 0; pos < len;) {
		floe_thrift_reader t;
		page_header h;
		floe_thrift_reader_init(&t, data + pos, len - pos);
		if (parse_page_header(&t, &h) < 0) {
			size_t at = 0;
			const char *why = floe_thrift_reader_error(&t, &at);
			bad(d, "page header at chunk byte %zu: %s", pos, why ? why : "two sub-headers");
			goto cleanup;
		}
		size_t at = pos; /* the page's header */
		pos += floe_thrift_reader_offset(&t);
		if (h.type < 0 || h.comp < 0 || h.unc < 0 || (size_t)h.comp > len - pos) {
			bad(d, "a page header without sizes, or a page past its chunk");
			goto cleanup;
		}
		if ((size_t)h.unc > r->opts.max_page_bytes) {
			bad(d, "a page of %d bytes exceeds the reader's limit of %zu", h.unc,
			    r->opts.max_page_bytes);
			goto cleanup;
		}
		/* a v1 or dictionary page that is one checksummed zstd frame: zstd verifies it as it decodes
		   (the CRC, 5 % of a merge's key read, is then computed only to name a failure) */
		bool self_checked = h.has_crc && !r->opts.skip_page_crc && cc->codec == FLOE_PARQUET_ZSTD &&
				    (h.type == PQ_PAGE_DATA || h.type == PQ_PAGE_DICTIONARY) &&
				    pq_zstd_checks_itself(data + pos, (size_t)h.comp);
		if (!self_checked && check_crc(d, &h, data + pos, at) < 0)
			goto cleanup;
		if (one_page(d, &h, data + pos) < 0) {
			if (self_checked)
				crc_names_failure(d, &h, data + pos, at);
			goto cleanup;
		}
		pos += (size_t)h.comp;
	}
	if (d->entries != cc->num_values) {
		bad(d, "its pages hold %lld values, its metadata says %lld", (long long)d->entries,
		    (long long)cc->num_values);
		goto cleanup;
	}
	rc = 0;
cleanup:
	if (own_codec)
		pq_codec_free(d->codec);
	d->codec = NULL;
	return rc;
}

int pq_decode_chunk(floe_vector *out, floe_parquet_reader *r, const floe_parquet_leaf *leaf,
		    const floe_parquet_column_chunk *cc, const uint8_t *data, size_t len, bool reuse)
{
	dec d;
	int32_t width = leaf->vtype == FLOE_VEC_FIXED ? leaf->width : 0;
	dec_init(&d, r, leaf, false);
	if (reuse && !leaf->in_list) {
		floe_vector_reuse(out, leaf->vtype, width);
	} else {
		if (reuse)
			floe_vector_free(out);
		if (leaf->in_list)
			floe_vector_init_list(out, leaf->vtype, width);
		else
			floe_vector_init(out, leaf->vtype, width);
	}
	if (leaf->vtype == FLOE_VEC_DECIMAL) {
		floe_vector *values = leaf->in_list ? out->child : out;
		values->precision = leaf->precision;
		values->scale = leaf->scale;
	}
	d.out = out;
	int rc = chunk_pages(&d, cc, data, len);
	if (rc == 0 && d.row_open)
		floe_vector_append_list(out);
	dec_free(&d);
	return rc;
}

int pq_decode_levels(pq_levels *out, floe_parquet_reader *r, const floe_parquet_leaf *leaf,
		     const floe_parquet_column_chunk *cc, const uint8_t *data, size_t len)
{
	dec d;
	dec_init(&d, r, leaf, true);
	d.lv = out;
	int rc = chunk_pages(&d, cc, data, len);
	out->vals = d.own_vals; /* the chunk's values move to `out` */
	floe_vector_init(&d.own_vals, leaf->vtype, 0);
	dec_free(&d);
	return rc;
}

void pq_levels_free(pq_levels *lv)
{
	if (!lv)
		return;
	free(lv->def);
	free(lv->rep);
	floe_vector_free(&lv->vals);
	memset(lv, 0, sizeof(*lv));
}
