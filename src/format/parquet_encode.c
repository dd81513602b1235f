/*
 * parquet_encode.c — turning column vectors into a column's page state: definition and
 * repetition levels, PLAIN values, dictionary indices, and min/max/null/NaN tracking.
 *
 * Pages end at row boundaries. Each call handles a run of rows that fits the page's row and
 * byte budgets, so the page flush (parquet_write.c) only ever sees whole rows. Dictionary
 * statistics for byte-array and fixed values are taken when an entry is added (every value
 * of the chunk is in the dictionary, so its extremes are the chunk's), which saves a
 * comparison per value; numbers are compared per value, which is as cheap as hashing.
 */
#include "format/parquet_writer_int.h"

#include "base/arena.h"
#include "base/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128;

/* ---- growth ---- */

static void lvl_reserve(pq_col *c, size_t extra)
{
	if (c->n_lvl + extra <= c->cap_lvl)
		return;
	size_t cap = c->cap_lvl ? c->cap_lvl : 1024;
	while (cap < c->n_lvl + extra)
		cap *= 2;
	c->def = floe_xrealloc(c->def, cap);
	c->rep = floe_xrealloc(c->rep, cap);
	c->cap_lvl = cap;
}

static void idx_reserve(pq_col *c, size_t extra)
{
	if (c->n_idx + extra <= c->cap_idx)
		return;
	size_t cap = c->cap_idx ? c->cap_idx : 1024;
	while (cap < c->n_idx + extra)
		cap *= 2;
	c->idx = floe_xrealloc(c->idx, cap * sizeof(uint32_t));
	c->cap_idx = cap;
}

static uint8_t *plain_extend(pq_col *c, size_t n)
{
	uint8_t *p = pq_buf_extend(&c->plain, n);
	if (!p)
		floe_error_set(FLOE_ERR_INTERNAL, "a data page of column \"%s\" outgrew %zu bytes",
			       c->name, c->plain.max);
	return p;
}

/* ---- dictionary ---- */

static uint32_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (uint32_t)x;
}

static uint32_t hash_bytes(const uint8_t *p, size_t len)
{
	uint64_t h = 0x9E3779B97F4A7C15ULL ^ len;
	while (len >= 8) {
		uint64_t k;
		memcpy(&k, p, 8);
		h = (h ^ k) * 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 29;
		p += 8;
		len -= 8;
	}
	uint64_t k = 0;
	for (size_t i = 0; i < len; i++)
		k |= (uint64_t)p[i] << (8 * i);
	h = (h ^ k) * 0x94d049bb133111ebULL;
	return mix64(h);
}

static uint32_t hash_fixed(const uint8_t *p, size_t w)
{
	uint64_t k;
	if (w == 4) {
		uint32_t x;
		memcpy(&x, p, 4);
		return mix64(x);
	}
	if (w == 8) {
		memcpy(&k, p, 8);
		return mix64(k);
	}
	return hash_bytes(p, w);
}

void pq_dict_reset(pq_col *c)
{
	floe_buf_clear(&c->dict);
	c->n_dict = 0;
	c->page_dict_start = 0;
	if (c->slots)
		memset(c->slots, 0, ((size_t)c->slot_mask + 1) * sizeof(uint64_t));
	c->chunk_has_dict = false;
}

/* A slot holds the entry's hash beside its number: a probe compares hashes without touching the
 * entry, whose bytes it reads only on a match. */
#define SLOT(h, e) ((uint64_t)(h) << 32 | ((uint64_t)(e) + 1))
#define SLOT_HASH(x) ((uint32_t)((x) >> 32))
#define SLOT_ENTRY(x) ((uint32_t)(x) - 1)

static void dict_grow_slots(pq_col *c)
{
	size_t old = c->slots ? (size_t)c->slot_mask + 1 : 0, n = old ? old * 2 : 1024;
	uint64_t *was = c->slots;
	c->slots = floe_xcalloc(n, sizeof(uint64_t));
	c->slot_mask = (uint32_t)(n - 1);
	for (size_t i = 0; i < old; i++) {
		if (!was[i])
			continue;
		uint32_t s = SLOT_HASH(was[i]) & c->slot_mask;
		while (c->slots[s])
			s = (s + 1) & c->slot_mask;
		c->slots[s] = was[i];
	}
	free(was);
}

/* A new entry at empty slot `s`. `var`: a BYTE_ARRAY entry with its 4-byte length. */
static uint32_t dict_insert(pq_col *c, const uint8_t *p, size_t len, uint32_t h, uint32_t s,
			    bool var)
{
	if (c->n_dict == c->cap_dict) {
		c->cap_dict = c->cap_dict ? c->cap_dict * 2 : 1024;
		c->dict_off = floe_xrealloc(c->dict_off, c->cap_dict * sizeof(uint32_t));
		c->dict_len = floe_xrealloc(c->dict_len, c->cap_dict * sizeof(uint32_t));
	}
	uint32_t e = c->n_dict++;
	uint8_t *dst = pq_buf_extend(&c->dict, len + (var ? 4 : 0));
	if (var) {
		uint32_t n32 = (uint32_t)len;
		memcpy(dst, &n32, 4);
		dst += 4;
	}
	if (len)
		memcpy(dst, p, len);
	c->dict_off[e] = (uint32_t)(dst - (uint8_t *)c->dict.ptr);
	c->dict_len[e] = (uint32_t)len;
	c->slots[s] = SLOT(h, e);
	if ((size_t)c->n_dict * 2 > (size_t)c->slot_mask + 1)
		dict_grow_slots(c);
	return e;
}

/* Index of the value's entry, adding it when new (*added set). */
static uint32_t dict_find(pq_col *c, const uint8_t *p, size_t len, bool var, bool *added)
{
	if (!c->slots)
		dict_grow_slots(c);
	uint32_t h = var ? hash_bytes(p, len) : hash_fixed(p, len);
	uint32_t s = h & c->slot_mask;
	const uint8_t *base = (const uint8_t *)c->dict.ptr;
	for (uint64_t x; (x = c->slots[s]) != 0; s = (s + 1) & c->slot_mask) {
		uint32_t e = SLOT_ENTRY(x);
		if (SLOT_HASH(x) == h && c->dict_len[e] == len &&
		    memcmp(base + c->dict_off[e], p, len) == 0) {
			*added = false;
			return e;
		}
	}
	*added = true;
	return dict_insert(c, p, len, h, s, var);
}

/* ---- levels ---- */

static int null_in_required(const pq_col *c, bool element)
{
	floe_error_set(FLOE_ERR_USAGE, "null %s in required field \"%s\" (id %d)",
		       element ? "list element" : "value", c->name, (int)c->field_id);
	floe_error_detail("The schema says the %s cannot be null, but the batch holds a null.",
			  element ? "list's elements" : "field");
	return -1;
}

static int levels_flat(pq_col *c, const floe_vector *v, size_t from, size_t to)
{
	size_t n = to - from;
	c->page_values += n;
	c->cstats.values += (int64_t)n;
	if (!c->optional) {
		for (size_t i = from; v->validity && i < to; i++)
			if (!floe_vector_is_valid(v, i))
				return null_in_required(c, false);
		return 0;
	}
	lvl_reserve(c, n);
	uint8_t *d = c->def + c->n_lvl;
	c->n_lvl += n;
	if (!v->validity) {
		memset(d, 1, n);
		return 0;
	}
	size_t valid = 0;
	for (size_t i = 0; i < n; i++) {
		d[i] = floe_vector_is_valid(v, from + i);
		valid += d[i];
	}
	c->cstats.nulls += (int64_t)(n - valid);
	return 0;
}

static size_t list_entries(const floe_vector *v, size_t from, size_t to)
{
	size_t n = 0;
	for (size_t r = from; r < to; r++) {
		size_t k = (size_t)(v->offsets[r + 1] - v->offsets[r]);
		n += k ? k : 1;
	}
	return n;
}

static int levels_list(pq_col *c, const floe_vector *v, size_t from, size_t to)
{
	const floe_vector *ch = v->child;
	uint8_t d_empty = c->optional ? 1 : 0, d_max = (uint8_t)c->max_def;
	size_t n = list_entries(v, from, to), nulls = 0;
	lvl_reserve(c, n);
	uint8_t *d = c->def + c->n_lvl, *rp = c->rep + c->n_lvl;
	size_t o = 0;
	for (size_t r = from; r < to; r++) {
		if (!floe_vector_is_valid(v, r)) {
			if (!c->optional)
				return null_in_required(c, false);
			d[o] = 0, rp[o++] = 0, nulls++;
			continue;
		}
		size_t a = (size_t)v->offsets[r], b = (size_t)v->offsets[r + 1];
		if (a == b) {
			d[o] = d_empty, rp[o++] = 0, nulls++;
			continue;
		}
		for (size_t j = a; j < b; j++) {
			bool ok = floe_vector_is_valid(ch, j);
			if (!ok && !c->elem_optional)
				return null_in_required(c, true);
			d[o] = ok ? d_max : (uint8_t)(d_max - 1);
			rp[o++] = j == a ? 0 : 1;
			nulls += !ok;
		}
	}
	c->n_lvl += n;
	c->page_values += n;
	c->cstats.values += (int64_t)n;
	c->cstats.nulls += (int64_t)nulls;
	return 0;
}

/*
 * The leaf vector under `v` (a top-level field's) and the range of its entries that rows
 * [*a, *b) hold: a struct passes its rows to its fields, a list maps them through its offsets.
 */
static const floe_vector *leaf_range(const pq_col *c, const floe_vector *v, size_t *a, size_t *b)
{
	for (size_t k = 0; k + 1 < c->n_nodes; k++) {
		if (c->nodes[k].type == FLOE_VEC_LIST) {
			*a = (size_t)floe_vector_offset(v, *a);
			*b = (size_t)floe_vector_offset(v, *b);
			v = v->child;
		} else {
			v = &v->children[c->nodes[k].child];
		}
	}
	return v;
}

typedef struct level_walk {
	size_t present;             /* leaf values reached */
	size_t nulls;               /* entries below the maximum definition level */
} level_walk;

static void emit_level(pq_col *c, level_walk *lw, int def, int rep)
{
	lvl_reserve(c, 1);
	c->def[c->n_lvl] = (uint8_t)def;
	c->rep[c->n_lvl++] = (uint8_t)rep;
	lw->nulls += def < c->max_def;
}

/*
 * Levels of entry i of `v`, node k of the column's path: a null stops at the definition
 * level reached so far; a struct goes on into the field on the path; a list into each of
 * its elements (the first repeating at the list's enclosing level, the others at its own).
 */
static int walk_levels(pq_col *c, level_walk *lw, size_t k, const floe_vector *v, size_t i, int def,
		       int rep)
{
	const pq_node *node = &c->nodes[k];
	if (!floe_vector_is_valid(v, i)) {
		if (!node->optional)
			return null_in_required(c, k > 0 && c->nodes[k - 1].type == FLOE_VEC_LIST);
		emit_level(c, lw, def, rep);
		return 0;
	}
	def += node->optional;
	if (node->type == FLOE_VEC_STRUCT)
		return walk_levels(c, lw, k + 1, &v->children[node->child], i, def, rep);
	if (node->type != FLOE_VEC_LIST) {
		lw->present++;
		emit_level(c, lw, def, rep);
		return 0;
	}
	size_t a = (size_t)v->offsets[i], b = (size_t)v->offsets[i + 1];
	if (a == b)
		emit_level(c, lw, def, rep);
	for (size_t j = a; j < b; j++)
		if (walk_levels(c, lw, k + 1, v->child, j, def + 1, j == a ? rep : node->rep) < 0)
			return -1;
	return 0;
}

static int levels_nested(pq_col *c, const floe_vector *v, size_t from, size_t to)
{
	level_walk lw = { 0, 0 };
	size_t before = c->n_lvl;
	for (size_t r = from; r < to; r++)
		if (walk_levels(c, &lw, 0, v, r, 0, 0) < 0)
			return -1;
	size_t n = c->n_lvl - before, a = from, b = to, valid = 0;
	const floe_vector *leaf = leaf_range(c, v, &a, &b);
	for (size_t i = a; i < b; i++)
		valid += floe_vector_is_valid(leaf, i);
	if (valid != lw.present) {
		/* The values written are the valid leaf entries: one hidden by a null parent would be
		 * written without a level to place it. */
		floe_error_set(FLOE_ERR_USAGE, "field \"%s\" (id %d) holds a value inside a null struct row",
			       c->name, (int)c->field_id);
		floe_error_detail("A null struct row must be null in its fields too (floe_vector_append_null does that).");
		return -1;
	}
	c->page_values += n;
	c->cstats.values += (int64_t)n;
	c->cstats.nulls += (int64_t)lw.nulls;
	return 0;
}

/* ---- values ---- */

static inline void stat_int(pq_stats *s, int64_t x)
{
	if (!s->has) {
		s->imin = s->imax = x;
		s->has = true;
	} else if (x < s->imin) {
		s->imin = x;
	} else if (x > s->imax) {
		s->imax = x;
	}
}

static inline void stat_float(pq_stats *s, double x)
{
	if (isnan(x)) {
		s->nans++;
		return;
	}
	if (!s->has) {
		s->dmin = s->dmax = x;
		s->has = true;
		return;
	}
	if (x < s->dmin || (x == s->dmin && signbit(x) && !signbit(s->dmin)))
		s->dmin = x;
	if (x > s->dmax || (x == s->dmax && !signbit(x) && signbit(s->dmax)))
		s->dmax = x;
}

/*
 * Dictionary lookup of a fixed-width value; `w` is a constant at every call site, so the
 * hash and the comparison compile to a few instructions.
 */
static inline __attribute__((always_inline)) uint32_t dict_fixed(pq_col *c, const uint8_t *p,
								  size_t w, bool *added)
{
	if (__builtin_expect(!c->slots, 0))
		dict_grow_slots(c);
	uint32_t h = hash_fixed(p, w);
	uint32_t s = h & c->slot_mask;
	const uint8_t *base = (const uint8_t *)c->dict.ptr;
	for (uint64_t x; (x = c->slots[s]) != 0; s = (s + 1) & c->slot_mask) {
		uint32_t e = SLOT_ENTRY(x);
		if (SLOT_HASH(x) == h && memcmp(base + (size_t)e * w, p, w) == 0) {
			*added = false;
			return e;
		}
	}
	*added = true;
	return dict_insert(c, p, w, h, s, false);
}

/*
 * Room for `n` more values of `w` bytes in the page: *plain (NULL while the dictionary is ON)
 * and the index array. Trim with values_done().
 */
static int values_begin(pq_col *c, size_t n, size_t w, uint8_t **plain)
{
	*plain = NULL;
	if (c->dict_mode != PQ_DICT_OFF)
		idx_reserve(c, n);
	if (c->dict_mode != PQ_DICT_ON && !(*plain = plain_extend(c, n * w)))
		return -1;
	return 0;
}

/* Give back the reserved PLAIN bytes (`reserved`) that nulls left unused (`used` were). */
static void values_done(pq_col *c, uint8_t *plain, size_t reserved, size_t used)
{
	if (plain)
		c->plain.len -= reserved - used;
}

#define NUMBER_LOOP(T, FIELD, W, STAT)                                                     \
	for (size_t i = from; i < to; i++) {                                                   \
		if (v->validity && !floe_vector_is_valid(v, i))                                    \
			continue;                                                                      \
		T x = v->v.FIELD[i];                                                               \
		STAT(&c->cstats, x);                                                               \
		if (dict)                                                                          \
			c->idx[c->n_idx++] = dict_fixed(c, (const uint8_t *)&x, W, &added);            \
		if (plain)                                                                         \
			memcpy(plain + (used++) * W, &x, W);                                           \
	}

/* INT, DATE, LONG, TIME, TIMESTAMP(TZ), FLOAT, DOUBLE: host layout is PLAIN. */
static int values_number(pq_col *c, const floe_vector *v, size_t from, size_t to)
{
	size_t w = c->physical == FLOE_PQ_INT32 || c->physical == FLOE_PQ_FLOAT ? 4 : 8;
	uint8_t *plain;
	size_t used = 0;
	bool added, dict = c->dict_mode != PQ_DICT_OFF;
	if (values_begin(c, to - from, w, &plain) < 0)
		return -1;
	switch (c->physical) {
	case FLOE_PQ_INT32: NUMBER_LOOP(int32_t, i32, 4, stat_int) break;
	case FLOE_PQ_INT64: NUMBER_LOOP(int64_t, i64, 8, stat_int) break;
	case FLOE_PQ_FLOAT: NUMBER_LOOP(float, f32, 4, stat_float) break;
	default: NUMBER_LOOP(double, f64, 8, stat_float) break;
	}
	values_done(c, plain, (to - from) * w, used * w);
	return 0;
}

static int values_bool(pq_col *c, const floe_vector *v, size_t from, size_t to)
{
	uint8_t *dst = plain_extend(c, to - from);
	if (!dst)
		return -1;
	size_t n = 0;
	for (size_t i = from; i < to; i++) {
		if (!floe_vector_is_valid(v, i))
			continue;
		uint8_t b = v->v.u8[i] ? 1 : 0;
		dst[n++] = b;
		stat_int(&c->cstats, b);
	}
	/* Bytes now, bits at the page flush. */
	c->plain.len -= (to - from) - n;
	return 0;
}

static void dec_to_plain(uint8_t *out, const pq_col *c, floe_dec128 d)
{
	if (c->physical == FLOE_PQ_INT32) {
		int32_t x = (int32_t)(int64_t)d.lo;
		memcpy(out, &x, 4);
	} else if (c->physical == FLOE_PQ_INT64) {
		memcpy(out, &d.lo, 8);
	} else {
		u128 u = ((u128)(uint64_t)d.hi << 64) | d.lo;
		for (int i = 0; i < c->type_length; i++)
			out[c->type_length - 1 - i] = (uint8_t)(u >> (8 * i));
	}
}

static int decimal_out_of_range(const pq_col *c)
{
	floe_error_set(FLOE_ERR_USAGE, "decimal value out of range for decimal(%d,%d) in field \"%s\"",
		       (int)c->precision, (int)c->scale, c->name);
	floe_error_detail("Its unscaled value needs more than %d digits.", (int)c->precision);
	return -1;
}

/* |d| < 10^precision; the int64 case (precision <= 18) without 128-bit arithmetic. */
static bool decimal_fits(const pq_col *c, floe_dec128 d)
{
	if (c->precision <= 18) {
		int64_t x = (int64_t)d.lo;
		if (d.hi != (x < 0 ? -1 : 0))
			return false;
		uint64_t mag = x < 0 ? 0 - (uint64_t)x : (uint64_t)x;
		return mag < c->dec_limit;
	}
	return floe_dec128_fits(d, c->precision);
}

static void stat_dec(pq_stats *s, floe_dec128 d)
{
	if (!s->has) {
		s->cmin = s->cmax = d;
		s->has = true;
	} else if (floe_dec128_cmp(d, s->cmin) < 0) {
		s->cmin = d;
	} else if (floe_dec128_cmp(d, s->cmax) > 0) {
		s->cmax = d;
	}
}

static int values_decimal(pq_col *c, const floe_vector *v, size_t from, size_t to)
{
	size_t w = c->physical == FLOE_PQ_INT32 ? 4 : c->physical == FLOE_PQ_INT64 ? 8
										   : (size_t)c->type_length;
	uint8_t tmp[16], *plain;
	size_t used = 0;
	bool added;
	if (values_begin(c, to - from, w, &plain) < 0)
		return -1;
	for (size_t i = from; i < to; i++) {
		if (!floe_vector_is_valid(v, i))
			continue;
		floe_dec128 d = v->v.dec[i];
		if (!decimal_fits(c, d)) {
			values_done(c, plain, (to - from) * w, used * w);
			return decimal_out_of_range(c);
		}
		stat_dec(&c->cstats, d);
		dec_to_plain(tmp, c, d);
		if (c->dict_mode != PQ_DICT_OFF)
			c->idx[c->n_idx++] = w == 4 ? dict_fixed(c, tmp, 4, &added)
					     : w == 8 ? dict_fixed(c, tmp, 8, &added)
						      : dict_find(c, tmp, w, false, &added);
		if (plain)
			memcpy(plain + (used++) * w, tmp, w);
	}
	values_done(c, plain, (to - from) * w, used * w);
	return 0;
}

/* Unsigned byte order of two `w`-byte values; a UUID's 16 bytes as two big-endian words. */
static inline int fixed_cmp(const uint8_t *a, const uint8_t *b, size_t w)
{
	if (w != 16)
		return memcmp(a, b, w);
	uint64_t x[2], y[2];
	memcpy(x, a, 16);
	memcpy(y, b, 16);
	for (int i = 0; i < 2; i++) {
		uint64_t p = __builtin_bswap64(x[i]), q = __builtin_bswap64(y[i]);
		if (p != q)
			return p < q ? -1 : 1;
	}
	return 0;
}

static int values_fixed(pq_col *c, const floe_vector *v, size_t from, size_t to)
{
	size_t w = (size_t)c->type_length;
	uint8_t *plain;
	size_t used = 0;
	bool added = false, dict = c->dict_mode != PQ_DICT_OFF;
	/* The extremes of this run, merged into the chunk's once at the end. */
	const uint8_t *mn = NULL, *mx = NULL;
	if (v->width != c->type_length) {
		floe_error_set(FLOE_ERR_USAGE, "field \"%s\" holds %d-byte values, not %d", c->name,
			       (int)c->type_length, (int)v->width);
		return -1;
	}
	if (values_begin(c, to - from, w, &plain) < 0)
		return -1;
	for (size_t i = from; i < to; i++) {
		if (v->validity && !floe_vector_is_valid(v, i))
			continue;
		const uint8_t *p = v->v.fixed + i * w;
		if (dict)
			c->idx[c->n_idx++] = w == 16 ? dict_fixed(c, p, 16, &added)
						     : dict_find(c, p, w, false, &added);
		if (plain && w == 16)
			memcpy(plain + (used++) * 16, p, 16);
		else if (plain)
			memcpy(plain + (used++) * w, p, w);
		if (added || !dict) {
			if (!mn || fixed_cmp(p, mn, w) < 0)
				mn = p;
			if (!mx || fixed_cmp(p, mx, w) > 0)
				mx = p;
		}
	}
	values_done(c, plain, (to - from) * w, used * w);
	if (mn) {
		pq_stats_bytes(&c->cstats, mn, w);
		pq_stats_bytes(&c->cstats, mx, w);
	}
	return 0;
}

static int value_too_long(const pq_col *c, size_t len)
{
	floe_error_set(FLOE_ERR_USAGE, "a value of field \"%s\" is %zu bytes long", c->name, len);
	floe_error_detail("floe writes values of at most %zu bytes.", PQ_MAX_VALUE_BYTES);
	return -1;
}

static int bytes_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	int r = memcmp(a, b, alen < blen ? alen : blen);
	return r ? r : (alen > blen) - (alen < blen);
}

/* The longest byte array among rows [from, to). */
static size_t longest(const floe_vector *v, size_t from, size_t to)
{
	size_t max = 0;
	for (size_t i = from; i < to; i++) {
		size_t len = (size_t)(floe_vector_offset(v, i + 1) - floe_vector_offset(v, i));
		max = len > max ? len : max;
	}
	return max;
}

static int values_bytes(pq_col *c, const floe_vector *v, size_t from, size_t to)
{
	bool added = false, dict = c->dict_mode != PQ_DICT_OFF, plain_mode = c->dict_mode != PQ_DICT_ON;
	size_t total = (size_t)(floe_vector_offset(v, to) - floe_vector_offset(v, from)) + 4 * (to - from);
	size_t used = 0;
	uint8_t *plain = NULL;
	/* The extremes of this run, compared with the chunk's once at the end. */
	const uint8_t *mn = NULL, *mx = NULL;
	size_t mnl = 0, mxl = 0;
	if (c->dict_mode == PQ_DICT_TRIAL && longest(v, from, to) > c->opts->dictionary_bytes) {
		c->dict_mode = PQ_DICT_OFF; /* no dictionary holds it: PLAIN without a copy into one */
		pq_dict_reset(c);
		dict = false;
	}
	if (dict)
		idx_reserve(c, to - from);
	if (plain_mode && !(plain = plain_extend(c, total)))
		return -1;
	for (size_t i = from; i < to; i++) {
		if (!floe_vector_is_valid(v, i))
			continue;
		size_t len;
		const uint8_t *p = floe_vector_bytes(v, i, &len);
		if (len > PQ_MAX_VALUE_BYTES) {
			values_done(c, plain, total, used);
			return value_too_long(c, len);
		}
		if (dict)
			c->idx[c->n_idx++] = dict_find(c, p, len, true, &added);
		if (plain) {
			uint32_t n32 = (uint32_t)len;
			memcpy(plain + used, &n32, 4);
			memcpy(plain + used + 4, p, len);
			used += 4 + len;
		}
		if (added || !dict) {
			if (!mn || bytes_cmp(p, len, mn, mnl) < 0)
				mn = p, mnl = len;
			if (!mx || bytes_cmp(p, len, mx, mxl) > 0)
				mx = p, mxl = len;
		}
	}
	values_done(c, plain, total, used);
	if (mn) {
		/* A prefix longer than any statistic written keeps every bound the same (see
		 * PQ_STATS_KEEP_BYTES) without a copy of a long value in each statistic. */
		pq_stats_bytes(&c->cstats, mn, mnl < PQ_STATS_KEEP_BYTES ? mnl : PQ_STATS_KEEP_BYTES);
		pq_stats_bytes(&c->cstats, mx, mxl < PQ_STATS_KEEP_BYTES ? mxl : PQ_STATS_KEEP_BYTES);
	}
	return 0;
}

static int append_values(pq_col *c, const floe_vector *v, size_t from, size_t to)
{
	switch (c->vtype) {
	case FLOE_VEC_BOOLEAN: return values_bool(c, v, from, to);
	case FLOE_VEC_DECIMAL: return values_decimal(c, v, from, to);
	case FLOE_VEC_UUID:
	case FLOE_VEC_FIXED: return values_fixed(c, v, from, to);
	case FLOE_VEC_STRING:
	case FLOE_VEC_BINARY: return values_bytes(c, v, from, to);
	default: return values_number(c, v, from, to);
	}
}

/* ---- pages ---- */

size_t pq_page_estimate(const pq_col *c)
{
	size_t values = c->plain.len;
	if (c->dict_mode == PQ_DICT_ON)
		values = (c->n_idx * (size_t)pq_bit_width(c->n_dict) + 7) / 8;
	return values + c->n_lvl / 4;
}

size_t pq_col_buffered(const pq_col *c)
{
	return c->chunk.len + pq_page_estimate(c) + c->dict.len;
}

static bool page_is_full(const pq_col *c)
{
	return c->page_full || c->page_rows >= c->opts->page_rows ||
	       pq_page_estimate(c) >= c->opts->page_bytes;
}

/* PLAIN bytes of row r's values of the column (its leaf entries, for a nested one). */
static size_t row_bytes(const pq_col *c, const floe_vector *v, size_t r)
{
	size_t a = r, b = r + 1;
	const floe_vector *vals = leaf_range(c, v, &a, &b);
	if (c->physical == FLOE_PQ_BYTE_ARRAY)
		return (size_t)(floe_vector_offset(vals, b) - floe_vector_offset(vals, a)) + 4 * (b - a) + 1;
	size_t w = c->physical == FLOE_PQ_BOOLEAN ? 1 : c->physical == FLOE_PQ_INT32 ||
							c->physical == FLOE_PQ_FLOAT ? 4 :
							c->physical == FLOE_PQ_FIXED_LEN_BYTE_ARRAY ?
							(size_t)c->type_length : 8;
	return w * (b - a) + 1;
}

/* How many rows from r (at least one) fit in the current page. */
static size_t rows_that_fit(const pq_col *c, const floe_vector *v, size_t r, size_t to)
{
	size_t n = to - r, room = c->opts->page_rows - c->page_rows;
	if (n > room)
		n = room;
	size_t est = pq_page_estimate(c);
	size_t budget = c->opts->page_bytes > est ? c->opts->page_bytes - est : 1;
	if (c->n_nodes == 1 && c->physical != FLOE_PQ_BYTE_ARRAY) {
		size_t k = budget / row_bytes(c, v, r) + 1;
		return k < n ? k : n;
	}
	size_t used = 0, k = 0;
	while (k < n && used < budget)
		used += row_bytes(c, v, r + k++);
	return k;
}

int pq_col_append(floe_parquet_writer *w, pq_col *c, const floe_vector *vec, size_t from,
		  size_t to)
{
	size_t r = from;
	while (r < to) {
		if (page_is_full(c) && pq_page_flush(w, c) < 0)
			return -1;
		size_t n = rows_that_fit(c, vec, r, to);
		int rc;
		if (c->nested) {
			size_t a = r, b = r + n;
			const floe_vector *leaf = leaf_range(c, vec, &a, &b);
			rc = levels_nested(c, vec, r, r + n);
			if (rc == 0)
				rc = append_values(c, leaf, a, b);
		} else if (c->list) {
			rc = levels_list(c, vec, r, r + n);
			if (rc == 0)
				rc = append_values(c, vec->child, (size_t)vec->offsets[r],
						   (size_t)vec->offsets[r + n]);
		} else {
			rc = levels_flat(c, vec, r, r + n);
			if (rc == 0)
				rc = append_values(c, vec, r, r + n);
		}
		if (rc < 0)
			return -1;
		c->page_rows += n;
		if (c->dict_mode != PQ_DICT_OFF && c->dict.len > c->opts->dictionary_bytes)
			c->page_full = true; /* flush this page with the dictionary, then go PLAIN */
		r += n;
	}
	return 0;
}

void pq_col_free(pq_col *c)
{
	floe_buf_free(&c->plain);
	floe_buf_free(&c->dict);
	floe_buf_free(&c->chunk);
	free(c->idx);
	free(c->def);
	free(c->rep);
	free(c->dict_off);
	free(c->dict_len);
	free(c->slots);
	pq_stats_free(&c->cstats);
	pq_stats_free(&c->fstats);
}
