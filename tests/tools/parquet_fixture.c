/*
 * parquet_fixture.c — test-only program (build/tools/parquet_fixture) that lets the pytest
 * suite check floe's Parquet writer and reader against independent readers and writers.
 *
 *   parquet_fixture write CASE OUT.parquet [options]
 *       Write the named type-matrix case with floe's writer and print JSON: the fields, the
 *       values written (column by column, in the canonical form below) and the Iceberg
 *       statistics floe_parquet_writer_close returned.
 *   parquet_fixture dump IN.parquet
 *       Read any Parquet file with floe's reader and print JSON: footer facts, leaves,
 *       every column's values (null for a leaf floe's reader refuses; the leaf says why),
 *       and the Iceberg statistics derived from the footer.
 *   parquet_fixture cases
 *       List the case names.
 *   parquet_fixture seeds DIR
 *       Write seed inputs for the fuzz targets into DIR/parquet_pages and DIR/parquet_footer
 *       (how fuzz/corpus/ was made).
 *
 * Options of write: --codec zstd|snappy|none, --rows N, --page-rows N, --page-bytes N,
 * --row-group-bytes N, --dict-bytes N (0: no dictionary), --seed N.
 *
 * Canonical values: null; true/false; integers for int, long, date (days), time and
 * timestamps (µs); "f32:<hex bits>" / "f64:<hex bits>" for floats; decimals as exact text
 * ("-12.340"); strings as JSON strings; binary, fixed and uuid as "x:<hex>"; lists as arrays.
 */
#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/text.h"
#include "format/parquet.h"
#include "iceberg/parquet_io.h"
#include "nested_values.h"

#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

#define MAX_FIELDS 32

typedef struct fixture {
	floe_parquet_field fields[MAX_FIELDS];
	floe_parquet_field elements[MAX_FIELDS];
	floe_vector cols[MAX_FIELDS];
	size_t n;
	size_t rows;
	uint64_t rng;
} fixture;

/* ---- deterministic values ---- */

static uint64_t next(fixture *f)
{
	uint64_t z = (f->rng += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static int64_t between(fixture *f, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(next(f) % (uint64_t)(hi - lo + 1));
}

static floe_dec128 dec_of(i128 v)
{
	floe_dec128 d = { (uint64_t)(u128)v, (int64_t)(uint64_t)((u128)v >> 64) };
	return d;
}

static i128 pow10_128(int p)
{
	i128 v = 1;
	while (p-- > 0)
		v *= 10;
	return v;
}

static floe_parquet_field *add_field(fixture *f, const char *name, floe_vec_type type,
				     bool required)
{
	size_t i = f->n++;
	floe_parquet_field *fd = &f->fields[i];
	memset(fd, 0, sizeof(*fd));
	fd->name = name;
	fd->id = (int32_t)(2 * i + 1);
	fd->type = type;
	fd->required = required;
	return fd;
}

static const char *const words[] = {
	"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa",
	"lambda", "mu", "nu", "xi", "omicron", "pi", "rho", "sigma", "tau", "upsilon",
	"Zürich", "São Paulo", "Kraków", "東京", "Αθήνα", "Москва", "القاهرة", "🌊 wave",
};
#define N_WORDS (sizeof(words) / sizeof(words[0]))

/* Value of primitive `type` for row i: rows 0, 1, 2 hold the extremes and zero. */
static void gen_value(fixture *f, floe_vector *v, const floe_parquet_field *fd, size_t i)
{
	uint8_t buf[64];
	i128 lim;
	switch (fd->type) {
	case FLOE_VEC_BOOLEAN: floe_vector_append_bool(v, i == 1 || (i > 2 && (next(f) & 1))); break;
	case FLOE_VEC_INT:
		floe_vector_append_i32(v, i == 0 ? INT32_MIN : i == 1 ? INT32_MAX : i == 2 ? 0
							   : (int32_t)between(f, -1000000, 1000000));
		break;
	case FLOE_VEC_LONG:
		floe_vector_append_i64(v, i == 0 ? INT64_MIN : i == 1 ? INT64_MAX : i == 2 ? 0
							   : (int64_t)next(f));
		break;
	case FLOE_VEC_FLOAT: {
		float x = i == 0 ? -INFINITY : i == 1 ? INFINITY : i == 2 ? -0.0f : i == 4 ? NAN
			  : i == 5 ? 0.0f : (float)between(f, -100000, 100000) / 64.0f;
		floe_vector_append_f32(v, x);
		break;
	}
	case FLOE_VEC_DOUBLE: {
		double x = i == 0 ? -INFINITY : i == 1 ? INFINITY : i == 2 ? -0.0 : i == 4 ? NAN
			   : i == 5 ? 0.0 : i == 6 ? 5e-324 : i == 8 ? -1.7976931348623157e308
			   : (double)(int64_t)next(f) / 3.0;
		floe_vector_append_f64(v, x);
		break;
	}
	case FLOE_VEC_DECIMAL:
		lim = pow10_128(fd->precision) - 1;
		if (i == 0)
			floe_vector_append_dec(v, dec_of(-lim));
		else if (i == 1)
			floe_vector_append_dec(v, dec_of(lim));
		else if (i == 2)
			floe_vector_append_dec(v, dec_of(0));
		else
			floe_vector_append_dec(v, dec_of((i128)((u128)next(f) << 64 | next(f)) % (lim + 1)));
		break;
	case FLOE_VEC_DATE:
		/* PostgreSQL's first and last dates. */
		floe_vector_append_i32(v, i == 0 ? -2440588 : i == 1 ? 2147483494 : i == 2 ? 0
							   : (int32_t)between(f, -100000, 100000));
		break;
	case FLOE_VEC_TIME:
		floe_vector_append_i64(v, i == 0 ? 0 : i == 1 ? 86399999999LL
							   : between(f, 0, 86399999999LL));
		break;
	case FLOE_VEC_TIMESTAMP:
	case FLOE_VEC_TIMESTAMPTZ:
		/* 4713 BC (PostgreSQL's first) and year ~293 000. */
		floe_vector_append_i64(v, i == 0 ? -211813488000000000LL : i == 1 ? 9200000000000000000LL
				       : i == 2 ? 0 : between(f, -2000000000000000LL, 4000000000000000LL));
		break;
	case FLOE_VEC_STRING: {
		const char *s = i == 0 ? "" : i == 1 ? "\xf4\x8f\xbf\xbf max" : i == 2
			? "héllo wörld — ✓ 😀 a string longer than sixteen code points"
			: words[next(f) % N_WORDS];
		floe_vector_append_bytes(v, s, strlen(s));
		break;
	}
	case FLOE_VEC_UUID:
	case FLOE_VEC_FIXED:
		for (int k = 0; k < v->width; k++)
			buf[k] = i == 0 ? 0 : i == 1 ? 0xFF : (uint8_t)next(f);
		floe_vector_append_fixed(v, buf);
		break;
	case FLOE_VEC_BINARY: {
		size_t n = i == 0 ? 0 : i == 1 ? 20 : (size_t)between(f, 1, 40);
		for (size_t k = 0; k < n; k++)
			buf[k] = i == 1 ? 0xFF : (uint8_t)next(f);
		if (i == 2)
			buf[0] = 0;
		floe_vector_append_bytes(v, buf, n);
		break;
	}
	default: break;
	}
}

/* Every primitive type once; `null_every`: row i of column c is null when (i+c) % it == 3. */
static void case_types(fixture *f, bool required, size_t null_every)
{
	static const struct { const char *name; floe_vec_type type; int p, s, len; } spec[] = {
		{ "b", FLOE_VEC_BOOLEAN, 0, 0, 0 },     { "i", FLOE_VEC_INT, 0, 0, 0 },
		{ "l", FLOE_VEC_LONG, 0, 0, 0 },        { "f", FLOE_VEC_FLOAT, 0, 0, 0 },
		{ "d", FLOE_VEC_DOUBLE, 0, 0, 0 },      { "dec1", FLOE_VEC_DECIMAL, 1, 0, 0 },
		{ "dec9", FLOE_VEC_DECIMAL, 9, 2, 0 },  { "dec18", FLOE_VEC_DECIMAL, 18, 4, 0 },
		{ "dec19", FLOE_VEC_DECIMAL, 19, 0, 0 }, { "dec38", FLOE_VEC_DECIMAL, 38, 10, 0 },
		{ "dt", FLOE_VEC_DATE, 0, 0, 0 },       { "tm", FLOE_VEC_TIME, 0, 0, 0 },
		{ "ts", FLOE_VEC_TIMESTAMP, 0, 0, 0 },  { "tstz", FLOE_VEC_TIMESTAMPTZ, 0, 0, 0 },
		{ "s", FLOE_VEC_STRING, 0, 0, 0 },      { "u", FLOE_VEC_UUID, 0, 0, 0 },
		{ "fx", FLOE_VEC_FIXED, 0, 0, 5 },      { "bin", FLOE_VEC_BINARY, 0, 0, 0 },
	};
	for (size_t c = 0; c < sizeof(spec) / sizeof(spec[0]); c++) {
		floe_parquet_field *fd = add_field(f, spec[c].name, spec[c].type, required);
		fd->precision = spec[c].p;
		fd->scale = spec[c].s;
		fd->length = spec[c].len;
		floe_vector *v = &f->cols[c];
		floe_vector_init(v, fd->type, fd->length);
		v->precision = fd->precision;
		v->scale = fd->scale;
		for (size_t i = 0; i < f->rows; i++) {
			bool null = !required && (null_every == 1 ||
						  (null_every > 1 && i >= 10 && (i + c) % null_every == 3));
			if (null)
				floe_vector_append_null(v);
			else
				gen_value(f, v, fd, i);
		}
	}
}

/* Lists: null lists, empty lists, null elements, long lists. */
static void case_lists(fixture *f)
{
	static const struct { const char *name; floe_vec_type type; bool req, ereq; int p, s; } spec[] = {
		{ "li", FLOE_VEC_INT, false, false, 0, 0 },
		{ "ls", FLOE_VEC_STRING, true, true, 0, 0 },
		{ "ld", FLOE_VEC_DECIMAL, false, false, 38, 6 },
		{ "lf", FLOE_VEC_DOUBLE, false, true, 0, 0 },
		{ "lts", FLOE_VEC_TIMESTAMPTZ, false, false, 0, 0 },
		{ "lb", FLOE_VEC_BOOLEAN, false, false, 0, 0 },
		{ "lu", FLOE_VEC_UUID, false, false, 0, 0 },
	};
	for (size_t c = 0; c < sizeof(spec) / sizeof(spec[0]); c++) {
		floe_parquet_field *fd = add_field(f, spec[c].name, FLOE_VEC_LIST, spec[c].req);
		floe_parquet_field *el = &f->elements[c];
		memset(el, 0, sizeof(*el));
		el->name = "element";
		el->id = fd->id + 1;
		el->type = spec[c].type;
		el->required = spec[c].ereq;
		el->precision = spec[c].p;
		el->scale = spec[c].s;
		fd->element = el;
		floe_vector *v = &f->cols[c];
		floe_vector_init_list(v, el->type, 0);
		v->child->precision = el->precision;
		v->child->scale = el->scale;
		size_t k = 0;
		for (size_t i = 0; i < f->rows; i++) {
			size_t shape = (i + c) % 6;
			if (shape == 0 && !spec[c].req) {
				floe_vector_append_null(v);
				continue;
			}
			size_t n = shape == 1 ? 0 : shape == 5 ? 40 + (size_t)between(f, 0, 30)
							       : (size_t)between(f, 1, 5);
			for (size_t j = 0; j < n; j++, k++) {
				if (!spec[c].ereq && shape == 3 && j == 1)
					floe_vector_append_null(v->child);
				else
					gen_value(f, v->child, el, k % 64);
			}
			floe_vector_append_list(v);
		}
	}
}

/* A 1 MiB string and a 1 MiB binary among small ones, and truncation edges. */
static void case_big(fixture *f)
{
	floe_parquet_field *s = add_field(f, "s", FLOE_VEC_STRING, false);
	floe_parquet_field *b = add_field(f, "bin", FLOE_VEC_BINARY, false);
	floe_vector_init(&f->cols[0], s->type, 0);
	floe_vector_init(&f->cols[1], b->type, 0);
	size_t big = (size_t)1 << 20;
	char *mem = floe_xmalloc(big);
	for (size_t i = 0; i < big; i++)
		mem[i] = (char)('a' + i % 26);
	memcpy(mem, "\xe2\x9c\x93", 3); /* non-ASCII first code point */
	for (size_t i = 0; i < f->rows; i++) {
		if (i == 3) {
			floe_vector_append_bytes(&f->cols[0], mem, big);
			memset(mem, 0xFF, big); /* binary: all 0xFF, an upper bound that cannot increment */
			floe_vector_append_bytes(&f->cols[1], mem, big);
			for (size_t k = 0; k < big; k++)
				mem[k] = (char)('a' + k % 26);
			memcpy(mem, "\xe2\x9c\x93", 3);
		} else if (i % 5 == 4) {
			floe_vector_append_null(&f->cols[0]);
			floe_vector_append_null(&f->cols[1]);
		} else {
			gen_value(f, &f->cols[0], s, i % 3 == 0 ? 3 + i : i % 3);
			gen_value(f, &f->cols[1], b, i % 3 == 0 ? 3 + i : i % 3);
		}
	}
	free(mem);
}

/* Low- and high-cardinality columns: dictionaries kept, and dictionaries given up. */
static void case_card(fixture *f)
{
	floe_parquet_field *lo = add_field(f, "low", FLOE_VEC_STRING, false);
	floe_parquet_field *hi = add_field(f, "high", FLOE_VEC_STRING, false);
	floe_parquet_field *n = add_field(f, "n", FLOE_VEC_LONG, true);
	floe_parquet_field *d = add_field(f, "price", FLOE_VEC_DECIMAL, false);
	d->precision = 12;
	d->scale = 2;
	floe_vector_init(&f->cols[0], lo->type, 0);
	floe_vector_init(&f->cols[1], hi->type, 0);
	floe_vector_init(&f->cols[2], n->type, 0);
	floe_vector_init(&f->cols[3], d->type, 0);
	char tmp[64];
	for (size_t i = 0; i < f->rows; i++) {
		const char *w = words[next(f) % N_WORDS];
		floe_vector_append_bytes(&f->cols[0], w, strlen(w));
		int len = snprintf(tmp, sizeof(tmp), "user-%016" PRIx64 "@example.org", next(f));
		floe_vector_append_bytes(&f->cols[1], tmp, (size_t)len);
		floe_vector_append_i64(&f->cols[2], (int64_t)i);
		if (i % 10 == 9)
			floe_vector_append_null(&f->cols[3]);
		else
			floe_vector_append_dec(&f->cols[3], floe_dec128_from_i64(between(f, 0, 99999) * 25));
	}
}

/* Random ids in key order, like a bronze file's uuid keys (which share their first byte, then
 * rise: entropy coding gains ~2 %): one byte, a rising 3-byte prefix, 12 random bytes; beside
 * them a counter zstd shrinks well. */
static void case_ids(fixture *f)
{
	floe_parquet_field *id = add_field(f, "id", FLOE_VEC_UUID, true);
	floe_parquet_field *n = add_field(f, "n", FLOE_VEC_LONG, true);
	floe_vector_init(&f->cols[0], id->type, 16);
	floe_vector_init(&f->cols[1], n->type, 0);
	for (size_t i = 0; i < f->rows; i++) {
		uint8_t b[16];
		uint32_t prefix = (uint32_t)(((uint64_t)i << 24) / (f->rows ? f->rows : 1));
		b[0] = 0x5A;
		for (int k = 1; k < 4; k++)
			b[k] = (uint8_t)(prefix >> (24 - 8 * k));
		for (int k = 4; k < 16; k++)
			b[k] = (uint8_t)next(f);
		floe_vector_append_fixed(&f->cols[0], b);
		floe_vector_append_i64(&f->cols[1], (int64_t)i);
	}
}

/* Floating-point edges: signed zeros, NaN, a column of zeros, a column of NaN. */
static void case_floats(fixture *f)
{
	static const double mixed[] = { -0.0, 0.0, NAN, 1.5, -2.25 };
	const char *names[] = { "f", "d", "fz", "dz", "fn", "dn" };
	for (size_t c = 0; c < 6; c++) {
		floe_vec_type t = c % 2 ? FLOE_VEC_DOUBLE : FLOE_VEC_FLOAT;
		add_field(f, names[c], t, false);
		floe_vector *v = &f->cols[c];
		floe_vector_init(v, t, 0);
		for (size_t i = 0; i < f->rows; i++) {
			double x = c < 2 ? mixed[i % 5] : c < 4 ? (i % 2 ? 0.0 : 0.0) : NAN;
			if (i % 6 == 5)
				floe_vector_append_null(v);
			else if (t == FLOE_VEC_FLOAT)
				floe_vector_append_f32(v, (float)x);
			else
				floe_vector_append_f64(v, x);
		}
	}
}

static int build_case(fixture *f, const char *name)
{
	if (strcmp(name, "types") == 0)
		case_types(f, false, 7);
	else if (strcmp(name, "required") == 0)
		case_types(f, true, 0);
	else if (strcmp(name, "allnull") == 0)
		case_types(f, false, 1);
	else if (strcmp(name, "lists") == 0)
		case_lists(f);
	else if (strcmp(name, "big") == 0)
		case_big(f);
	else if (strcmp(name, "card") == 0)
		case_card(f);
	else if (strcmp(name, "floats") == 0)
		case_floats(f);
	else if (strcmp(name, "ids") == 0)
		case_ids(f);
	else
		return -1;
	return 0;
}

/* ---- canonical JSON ---- */

static void put_hex(floe_buf *out, const char *prefix, const uint8_t *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	floe_buf_puts(out, prefix);
	for (size_t i = 0; i < n; i++) {
		char two[2] = { hex[p[i] >> 4], hex[p[i] & 15] };
		floe_buf_put(out, two, 2);
	}
}

static void put_decimal(floe_buf *out, floe_dec128 d, int scale)
{
	i128 v = (i128)(((u128)(uint64_t)d.hi << 64) | d.lo);
	u128 mag = v < 0 ? (u128)0 - (u128)v : (u128)v;
	char digits[64];
	int n = 0;
	do {
		digits[n++] = (char)('0' + (int)(mag % 10));
		mag /= 10;
	} while (mag);
	while (n <= scale)
		digits[n++] = '0';
	floe_buf_putc(out, '"');
	if (v < 0)
		floe_buf_putc(out, '-');
	for (int i = n - 1; i >= 0; i--) {
		floe_buf_putc(out, digits[i]);
		if (i == scale && scale > 0)
			floe_buf_putc(out, '.');
	}
	floe_buf_putc(out, '"');
}

static void put_value(floe_buf *out, const floe_vector *v, size_t i, int scale)
{
	size_t len;
	const uint8_t *p;
	if (!floe_vector_is_valid(v, i)) {
		floe_buf_puts(out, "null");
		return;
	}
	switch (v->type) {
	case FLOE_VEC_BOOLEAN: floe_buf_puts(out, v->v.u8[i] ? "true" : "false"); break;
	case FLOE_VEC_INT:
	case FLOE_VEC_DATE: floe_buf_printf(out, "%" PRId32, v->v.i32[i]); break;
	case FLOE_VEC_FLOAT: {
		uint32_t bits;
		memcpy(&bits, &v->v.f32[i], 4);
		floe_buf_printf(out, "\"f32:%08" PRIx32 "\"", bits);
		break;
	}
	case FLOE_VEC_DOUBLE: {
		uint64_t bits;
		memcpy(&bits, &v->v.f64[i], 8);
		floe_buf_printf(out, "\"f64:%016" PRIx64 "\"", bits);
		break;
	}
	case FLOE_VEC_DECIMAL: put_decimal(out, v->v.dec[i], scale); break;
	case FLOE_VEC_STRING:
		p = floe_vector_bytes(v, i, &len);
		floe_json_put_string(out, (const char *)p, len);
		break;
	case FLOE_VEC_BINARY:
		p = floe_vector_bytes(v, i, &len);
		floe_buf_putc(out, '"');
		put_hex(out, "x:", p, len);
		floe_buf_putc(out, '"');
		break;
	case FLOE_VEC_UUID:
	case FLOE_VEC_FIXED:
		floe_buf_putc(out, '"');
		put_hex(out, "x:", v->v.fixed + i * (size_t)v->width, (size_t)v->width);
		floe_buf_putc(out, '"');
		break;
	case FLOE_VEC_LIST:
		floe_buf_putc(out, '[');
		for (int64_t j = v->offsets[i]; j < v->offsets[i + 1]; j++) {
			if (j > v->offsets[i])
				floe_buf_putc(out, ',');
			put_value(out, v->child, (size_t)j, scale);
		}
		floe_buf_putc(out, ']');
		break;
	default: floe_buf_printf(out, "%" PRId64, v->v.i64[i]); break;
	}
}

static void put_column(floe_buf *out, const floe_vector *v, int scale)
{
	floe_buf_putc(out, '[');
	for (size_t i = 0; i < v->len; i++) {
		if (i)
			floe_buf_putc(out, ',');
		put_value(out, v, i, scale);
	}
	floe_buf_putc(out, ']');
}

static void put_field(floe_buf *out, const floe_parquet_field *fd)
{
	floe_buf_printf(out, "{\"name\":");
	floe_json_put_cstr(out, fd->name);
	floe_buf_printf(out, ",\"id\":%d,\"type\":\"%s\",\"required\":%s,\"precision\":%d,"
			     "\"scale\":%d,\"length\":%d",
			(int)fd->id, floe_vec_type_name(fd->type), fd->required ? "true" : "false",
			(int)fd->precision, (int)fd->scale, (int)fd->length);
	if (fd->element) {
		floe_buf_puts(out, ",\"element\":");
		put_field(out, fd->element);
	}
	floe_buf_putc(out, '}');
}

static void put_opt_hex(floe_buf *out, bool has, const uint8_t *p, size_t n)
{
	if (!has) {
		floe_buf_puts(out, "null");
		return;
	}
	floe_buf_putc(out, '"');
	put_hex(out, "", p, n);
	floe_buf_putc(out, '"');
}

static void put_stats(floe_buf *out, const floe_parquet_file_stats *st)
{
	floe_buf_printf(out, "{\"record_count\":%" PRId64 ",\"file_size\":%" PRId64 ",\"split_offsets\":[",
			st->record_count, st->file_size);
	for (size_t i = 0; i < st->n_split_offsets; i++)
		floe_buf_printf(out, "%s%" PRId64, i ? "," : "", st->split_offsets[i]);
	floe_buf_puts(out, "],\"columns\":[");
	for (size_t i = 0; i < st->n_columns; i++) {
		const floe_parquet_column_stats *c = &st->columns[i];
		floe_buf_printf(out, "%s{\"field_id\":%d,\"column_size\":%" PRId64 ",\"value_count\":%" PRId64
				     ",\"null_count\":%" PRId64 ",\"nan_count\":",
				i ? "," : "", (int)c->field_id, c->column_size, c->value_count, c->null_count);
		if (c->has_nan_count)
			floe_buf_printf(out, "%" PRId64, c->nan_count);
		else
			floe_buf_puts(out, "null");
		floe_buf_puts(out, ",\"lower\":");
		put_opt_hex(out, c->has_lower, c->lower, c->lower_len);
		floe_buf_puts(out, ",\"upper\":");
		put_opt_hex(out, c->has_upper, c->upper, c->upper_len);
		floe_buf_putc(out, '}');
	}
	floe_buf_puts(out, "]}");
}

static int emit(floe_buf *out)
{
	floe_buf_putc(out, '\n');
	return fwrite(out->ptr, 1, out->len, stdout) == out->len ? 0 : -1;
}

/* ---- commands ---- */

static const char *const case_names[] = { "types", "required", "allnull", "lists", "big",
					  "card", "floats", "ids", NULL };

static int parse_size(size_t *out, const char *s)
{
	int64_t v;
	if (floe_text_parse_int64(&v, s, strlen(s), 0, INT64_MAX) < 0)
		return -1;
	*out = (size_t)v;
	return 0;
}

static int write_options(floe_parquet_writer_opts *o, size_t *rows, uint64_t *seed, int argc,
			 char **argv)
{
	for (int i = 0; i < argc; i++) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		size_t n = 0;
		if (!v)
			return floe_error_set(FLOE_ERR_USAGE, "option %s needs a value", k);
		i++;
		if (strcmp(k, "--codec") == 0) {
			o->codec = strcmp(v, "zstd") == 0     ? FLOE_PARQUET_ZSTD
				   : strcmp(v, "snappy") == 0 ? FLOE_PARQUET_SNAPPY
				   : strcmp(v, "none") == 0   ? FLOE_PARQUET_UNCOMPRESSED
							      : (floe_parquet_codec)-1;
			continue;
		}
		if (parse_size(&n, v) < 0)
			return floe_error_set(FLOE_ERR_USAGE, "option %s needs a number", k);
		if (strcmp(k, "--rows") == 0)
			*rows = n;
		else if (strcmp(k, "--page-rows") == 0)
			o->page_rows = n;
		else if (strcmp(k, "--page-bytes") == 0)
			o->page_bytes = n;
		else if (strcmp(k, "--row-group-bytes") == 0)
			o->row_group_bytes = n;
		else if (strcmp(k, "--dict-bytes") == 0)
			o->dictionary_bytes = n;
		else if (strcmp(k, "--zstd-level") == 0)
			o->zstd_level = (int)n;
		else if (strcmp(k, "--seed") == 0)
			*seed = n;
		else
			return floe_error_set(FLOE_ERR_USAGE, "unknown option %s", k);
	}
	return 0;
}

/* Rows [from, to) of `src` as a new vector. */
static void slice(floe_vector *dst, const floe_vector *src, size_t from, size_t to)
{
	if (src->type == FLOE_VEC_LIST)
		floe_vector_init_list(dst, src->child->type, src->child->width);
	else
		floe_vector_init(dst, src->type, src->width);
	for (size_t i = from; i < to; i++)
		floe_vector_append_row(dst, src, i);
}

static void put_fields_and_values(floe_buf *out, const fixture *f)
{
	floe_buf_puts(out, "{\"fields\":[");
	for (size_t i = 0; i < f->n; i++) {
		if (i)
			floe_buf_putc(out, ',');
		put_field(out, &f->fields[i]);
	}
	floe_buf_puts(out, "],\"columns\":{");
	for (size_t i = 0; i < f->n; i++) {
		const floe_parquet_field *fd = &f->fields[i];
		int scale = fd->element ? fd->element->scale : fd->scale;
		floe_buf_printf(out, "%s", i ? "," : "");
		floe_json_put_cstr(out, fd->name);
		floe_buf_putc(out, ':');
		put_column(out, &f->cols[i], scale);
	}
	floe_buf_putc(out, '}');
}

/* The rows go in as two batches, so batch boundaries are crossed too. */
static int write_rows(floe_parquet_writer *w, fixture *f)
{
	floe_vector a[MAX_FIELDS], b[MAX_FIELDS];
	size_t half = f->rows / 2;
	for (size_t i = 0; i < f->n; i++) {
		slice(&a[i], &f->cols[i], 0, half);
		slice(&b[i], &f->cols[i], half, f->rows);
	}
	int rc = floe_parquet_writer_write_batch(w, a, f->n);
	if (rc == 0)
		rc = floe_parquet_writer_write_batch(w, b, f->n);
	for (size_t i = 0; i < f->n; i++) {
		floe_vector_free(&a[i]);
		floe_vector_free(&b[i]);
	}
	return rc;
}

/* The local storage the tool's files go through (iceberg/parquet_io.h); never freed. */
static floe_iceberg_storage *local_storage(void)
{
	static floe_iceberg_storage *s;
	if (!s)
		s = floe_iceberg_storage_local();
	return s;
}

/* Write a fresh file at `path` (relative or absolute), replacing one a previous run left. */
static int create_file(floe_parquet_writer **w, const char *path, const floe_parquet_field *fields, size_t n,
		       const floe_parquet_writer_opts *opts)
{
	floe_arena *a = floe_arena_new();
	const char *uri = path[0] == '/' ? path : floe_iceberg_path_to_uri(a, path); /* messages name it as given */
	int rc = -1;
	*w = NULL;
	if (uri && floe_iceberg_storage_remove(local_storage(), uri) == 0)
		rc = floe_iceberg_parquet_create(w, local_storage(), uri, fields, n, opts);
	floe_arena_free(a);
	return rc;
}

static int open_file(floe_parquet_reader **r, const char *path)
{
	floe_arena *a = floe_arena_new();
	const char *uri = path[0] == '/' ? path : floe_iceberg_path_to_uri(a, path);
	int rc = uri ? floe_iceberg_parquet_open(r, local_storage(), uri, NULL) : -1;
	floe_arena_free(a);
	return rc;
}

static int cmd_write(const char *name, const char *path, int argc, char **argv)
{
	floe_parquet_writer_opts opts = FLOE_PARQUET_WRITER_OPTS_INIT;
	fixture f;
	floe_parquet_writer *w = NULL;
	floe_parquet_file_stats st;
	floe_arena *arena = floe_arena_new();
	floe_buf out = FLOE_BUF_INIT;
	uint64_t seed = 42;
	int rc = -1;
	memset(&f, 0, sizeof(f));
	f.rows = strcmp(name, "big") == 0 ? 12 : 64;
	if (write_options(&opts, &f.rows, &seed, argc, argv) < 0)
		goto cleanup;
	f.rng = seed;
	if (build_case(&f, name) < 0) {
		floe_error_set(FLOE_ERR_USAGE, "unknown case \"%s\"", name);
		goto cleanup;
	}
	if (create_file(&w, path, f.fields, f.n, &opts) < 0)
		goto cleanup;
	if (write_rows(w, &f) < 0) {
		floe_parquet_writer_abort(w);
		goto cleanup;
	}
	if (floe_parquet_writer_close(&st, w, arena) < 0)
		goto cleanup;
	put_fields_and_values(&out, &f);
	floe_buf_puts(&out, ",\"stats\":");
	put_stats(&out, &st);
	floe_buf_putc(&out, '}');
	rc = emit(&out);
cleanup:
	for (size_t i = 0; i < f.n; i++)
		floe_vector_free(&f.cols[i]);
	floe_buf_free(&out);
	floe_arena_free(arena);
	return rc;
}

/* ---- dump ---- */

static void put_stat_bytes(floe_buf *out, const char *key, bool has, const uint8_t *p, size_t n)
{
	floe_buf_printf(out, ",\"%s\":", key);
	put_opt_hex(out, has, p, n);
}

static void put_chunk(floe_buf *out, const floe_parquet_column_chunk *cc)
{
	const floe_parquet_statistics *s = &cc->statistics;
	floe_buf_printf(out, "{\"type\":%d,\"codec\":%d,\"encodings\":%u,\"num_values\":%" PRId64
			     ",\"total_compressed_size\":%" PRId64 ",\"total_uncompressed_size\":%" PRId64
			     ",\"data_page_offset\":%" PRId64 ",\"dictionary_page_offset\":",
			cc->type, cc->codec, cc->encodings, cc->num_values, cc->total_compressed_size,
			cc->total_uncompressed_size, cc->data_page_offset);
	if (cc->has_dictionary_page_offset)
		floe_buf_printf(out, "%" PRId64, cc->dictionary_page_offset);
	else
		floe_buf_puts(out, "null");
	floe_buf_puts(out, ",\"null_count\":");
	if (cc->has_statistics && s->has_null_count)
		floe_buf_printf(out, "%" PRId64, s->null_count);
	else
		floe_buf_puts(out, "null");
	put_stat_bytes(out, "min", cc->has_statistics && s->has_min, s->min, s->min_len);
	put_stat_bytes(out, "max", cc->has_statistics && s->has_max, s->max, s->max_len);
	floe_buf_putc(out, '}');
}

static void put_meta(floe_buf *out, const floe_parquet_meta *m)
{
	floe_buf_printf(out, "{\"num_rows\":%" PRId64 ",\"version\":%d,\"created_by\":", m->num_rows,
			(int)m->version);
	if (m->created_by)
		floe_json_put_cstr(out, m->created_by);
	else
		floe_buf_puts(out, "null");
	floe_buf_puts(out, ",\"leaves\":[");
	for (size_t i = 0; i < m->n_leaves; i++) {
		const floe_parquet_leaf *l = &m->leaves[i];
		floe_buf_printf(out, "%s{\"path\":", i ? "," : "");
		floe_json_put_cstr(out, l->path);
		floe_buf_printf(out, ",\"field_id\":%d,\"max_def\":%d,\"max_rep\":%d,\"type\":\"%s\","
				     "\"in_list\":%s,\"precision\":%d,\"scale\":%d,\"column_order\":%d",
				(int)l->field_id, l->max_def, l->max_rep,
				l->vtype ? floe_vec_type_name(l->vtype) : "unsupported",
				l->in_list ? "true" : "false", (int)l->precision, (int)l->scale,
				i < m->n_column_orders ? m->column_orders[i] : -1);
		if (!l->vtype) {
			floe_buf_puts(out, ",\"unsupported\":");
			floe_json_put_cstr(out, l->unsupported ? l->unsupported : "");
		}
		floe_buf_putc(out, '}');
	}
	floe_buf_puts(out, "],\"row_groups\":[");
	for (size_t g = 0; g < m->n_row_groups; g++) {
		const floe_parquet_row_group *rg = &m->row_groups[g];
		floe_buf_printf(out, "%s{\"num_rows\":%" PRId64 ",\"file_offset\":%" PRId64
				     ",\"total_byte_size\":%" PRId64 ",\"total_compressed_size\":%" PRId64
				     ",\"columns\":[",
				g ? "," : "", rg->num_rows, rg->has_file_offset ? rg->file_offset : -1,
				rg->total_byte_size,
				rg->has_total_compressed_size ? rg->total_compressed_size : -1);
		for (size_t i = 0; i < rg->n_columns; i++) {
			if (i)
				floe_buf_putc(out, ',');
			put_chunk(out, &rg->columns[i]);
		}
		floe_buf_puts(out, "]}");
	}
	floe_buf_putc(out, ']');
}

static int dump_values(floe_buf *out, floe_parquet_reader *r)
{
	const floe_parquet_meta *m = floe_parquet_reader_meta(r);
	floe_buf_puts(out, ",\"columns\":{");
	for (size_t i = 0; i < m->n_leaves; i++) {
		const floe_parquet_leaf *l = &m->leaves[i];
		floe_buf_printf(out, "%s", i ? "," : "");
		floe_json_put_cstr(out, l->path);
		if (!l->vtype) { /* listed with its reason under "leaves" */
			floe_buf_puts(out, ":null");
			continue;
		}
		floe_buf_puts(out, ":[");
		bool first = true;
		for (size_t g = 0; g < m->n_row_groups; g++) {
			floe_vector v;
			if (floe_parquet_reader_read_column(&v, r, g, i) < 0)
				return -1;
			for (size_t k = 0; k < v.len; k++) {
				if (!first)
					floe_buf_putc(out, ',');
				first = false;
				put_value(out, &v, k, l->scale);
			}
			floe_vector_free(&v);
		}
		floe_buf_putc(out, ']');
	}
	floe_buf_putc(out, '}');
	return 0;
}

static int cmd_dump(const char *path)
{
	floe_parquet_reader *r = NULL;
	floe_arena *arena = floe_arena_new();
	floe_buf out = FLOE_BUF_INIT;
	floe_parquet_file_stats st;
	int rc = -1;
	if (open_file(&r, path) < 0)
		goto cleanup;
	put_meta(&out, floe_parquet_reader_meta(r));
	if (dump_values(&out, r) < 0 || floe_parquet_reader_file_stats(&st, r, arena) < 0)
		goto cleanup;
	floe_buf_puts(&out, ",\"stats\":");
	put_stats(&out, &st);
	floe_buf_putc(&out, '}');
	rc = emit(&out);
cleanup:
	floe_parquet_reader_free(r);
	floe_buf_free(&out);
	floe_arena_free(arena);
	return rc;
}

/* ---- fuzz seeds ---- */

/* The leaf types of fuzz/fuzz_parquet_pages.c that floe's writer produces, by index. */
static const struct { int index; floe_vec_type type; int precision, scale, length; } seed_types[] = {
	{ 0, FLOE_VEC_BOOLEAN, 0, 0, 0 }, { 1, FLOE_VEC_INT, 0, 0, 0 },
	{ 2, FLOE_VEC_LONG, 0, 0, 0 },    { 3, FLOE_VEC_FLOAT, 0, 0, 0 },
	{ 4, FLOE_VEC_DOUBLE, 0, 0, 0 },  { 5, FLOE_VEC_STRING, 0, 0, 0 },
	{ 6, FLOE_VEC_UUID, 0, 0, 0 },    { 7, FLOE_VEC_DECIMAL, 9, 2, 0 },
	{ 8, FLOE_VEC_DECIMAL, 19, 0, 0 }, { 9, FLOE_VEC_TIMESTAMPTZ, 0, 0, 0 },
	{ 10, FLOE_VEC_DATE, 0, 0, 0 },   { 11, FLOE_VEC_BINARY, 0, 0, 0 },
	{ 12, FLOE_VEC_FIXED, 0, 0, 3 },  { 15, FLOE_VEC_DECIMAL, 18, 4, 0 },
};

static int write_file(const char *path, const uint8_t *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return floe_error_set_errno(FLOE_ERR_IO, "could not create \"%s\"", path);
	size_t w = fwrite(p, 1, n, f);
	if (fclose(f) != 0 || w != n)
		return floe_error_set_errno(FLOE_ERR_IO, "could not write \"%s\"", path);
	return 0;
}

/* `cols` written with `fields` to DIR/.seed.parquet (then removed), read back: its reader and bytes. */
static int seed_file(floe_parquet_reader **r, floe_buf *file, const char *dir, const floe_parquet_field *fields,
		     size_t n, const floe_vector *cols, const floe_parquet_writer_opts *opts)
{
	floe_parquet_writer *w = NULL;
	floe_buf tmp = FLOE_BUF_INIT;
	int rc = -1;
	floe_buf_printf(&tmp, "%s/.seed.parquet", dir);
	if (create_file(&w, tmp.ptr, fields, n, opts) < 0)
		goto cleanup;
	if (floe_parquet_writer_write_batch(w, cols, n) < 0) {
		floe_parquet_writer_abort(w);
		goto cleanup;
	}
	if (floe_parquet_writer_close(NULL, w, NULL) < 0 || open_file(r, tmp.ptr) < 0 ||
	    floe_fs_read_file(file, tmp.ptr) < 0)
		goto cleanup;
	rc = 0;
cleanup:
	unlink(tmp.ptr);
	floe_buf_free(&tmp);
	return rc;
}

/* The bytes of column chunk `leaf` of row group 0 appended to `out`. */
static void put_chunk_bytes(floe_buf *out, const floe_parquet_reader *r, const floe_buf *file, size_t leaf)
{
	const floe_parquet_column_chunk *cc = &floe_parquet_reader_meta(r)->row_groups[0].columns[leaf];
	int64_t start = cc->has_dictionary_page_offset ? cc->dictionary_page_offset : cc->data_page_offset;
	floe_buf_put(out, (const uint8_t *)file->ptr + start, (size_t)cc->total_compressed_size);
}

/* One pages seed: the 6-byte header and the chunk floe wrote for `ty` with `flags`. */
static int page_seed(const char *dir, size_t t, uint8_t flags, floe_parquet_codec codec)
{
	fixture f;
	floe_parquet_writer_opts opts = FLOE_PARQUET_WRITER_OPTS_INIT;
	floe_parquet_reader *r = NULL;
	floe_buf seed = FLOE_BUF_INIT, file = FLOE_BUF_INIT, path = FLOE_BUF_INIT;
	int rc = -1;
	memset(&f, 0, sizeof(f));
	f.rng = t * 31 + flags;
	f.rows = 14;
	opts.codec = codec;
	opts.page_rows = 6;
	bool list = flags & 2;
	floe_parquet_field *fd = add_field(&f, "c", list ? FLOE_VEC_LIST : seed_types[t].type, !(flags & 1));
	floe_parquet_field *leaf = fd;
	if (list) {
		leaf = &f.elements[0];
		memset(leaf, 0, sizeof(*leaf));
		leaf->name = "element";
		leaf->id = 2;
		leaf->required = !(flags & 4);
		leaf->type = seed_types[t].type;
		fd->element = leaf;
	}
	leaf->precision = seed_types[t].precision;
	leaf->scale = seed_types[t].scale;
	leaf->length = seed_types[t].length;
	floe_vector *v = &f.cols[0];
	if (list)
		floe_vector_init_list(v, leaf->type, leaf->length);
	else
		floe_vector_init(v, leaf->type, leaf->length);
	for (size_t i = 0; i < f.rows; i++) {
		if (!list) {
			if ((flags & 1) && i % 4 == 3)
				floe_vector_append_null(v);
			else
				gen_value(&f, v, leaf, i % 5 == 4 ? 1 : i % 3);
			continue;
		}
		if ((flags & 1) && i % 5 == 2) {
			floe_vector_append_null(v);
			continue;
		}
		for (size_t j = 0; j < i % 4; j++) {
			if ((flags & 4) && j == 1)
				floe_vector_append_null(v->child);
			else
				gen_value(&f, v->child, leaf, (i + j) % 3);
		}
		floe_vector_append_list(v);
	}
	if (seed_file(&r, &file, dir, f.fields, 1, f.cols, &opts) < 0)
		goto cleanup;
	const floe_parquet_column_chunk *cc = &floe_parquet_reader_meta(r)->row_groups[0].columns[0];
	uint8_t head[6] = { (uint8_t)seed_types[t].index,
			    (uint8_t)(flags | (codec == FLOE_PARQUET_SNAPPY ? 0x10 : codec == FLOE_PARQUET_ZSTD ? 0x20 : 0)),
			    (uint8_t)cc->num_values, (uint8_t)(cc->num_values >> 8),
			    (uint8_t)f.rows, (uint8_t)(f.rows >> 8) };
	floe_buf_put(&seed, head, 6);
	put_chunk_bytes(&seed, r, &file, 0);
	floe_buf_printf(&path, "%s/t%02d-f%d-c%d", dir, seed_types[t].index, flags, (int)codec);
	rc = write_file(path.ptr, (const uint8_t *)seed.ptr, seed.len);
cleanup:
	floe_parquet_reader_free(r);
	floe_vector_free(&f.cols[0]);
	floe_buf_free(&seed);
	floe_buf_free(&file);
	floe_buf_free(&path);
	return rc;
}

/* ---- nested seeds: the shapes of fuzz_parquet_pages.c's nested mode, as the writer takes them ---- */

#define FUZZ_PAGE_TYPES 17 /* N_TYPES of fuzz/fuzz_parquet_pages.c: nested mode's [0] is shape * 17 + type */
#define NESTED_SHAPES 6

typedef struct nested_shape {
	floe_parquet_field top, n[4];
} nested_shape;

#define NODE(nm, i, t, ...) ((floe_parquet_field){ .name = nm, .id = i, .type = FLOE_VEC_##t, __VA_ARGS__ })

/* Shape `shape` with leaf `a` (the fuzzed type) and `b` (an int); see `shapes` in the target. */
static void nested_fields(nested_shape *s, size_t shape, floe_parquet_field a)
{
	floe_parquet_field *n = s->n, b = NODE("b", 9, INT);
	a.name = "a";
	a.id = 8;
	s->top = NODE("s", 1, STRUCT, .children = n, .n_children = 2);
	switch (shape) {
	case 0: /* s struct { a, b list<int> } */
		n[0] = a, n[1] = NODE("b", 2, LIST, .element = &n[2]), n[2] = b;
		break;
	case 1: /* l list<struct { a, b int }> */
		s->top = NODE("l", 1, LIST, .element = &n[0]);
		n[0] = NODE("element", 2, STRUCT, .children = &n[1], .n_children = 2), n[1] = a, n[2] = b;
		break;
	case 2: /* l list<struct { a, b list<int> }> */
		s->top = NODE("l", 1, LIST, .element = &n[0]);
		n[0] = NODE("element", 2, STRUCT, .children = &n[1], .n_children = 2), n[1] = a;
		n[2] = NODE("b", 3, LIST, .element = &n[3]), n[3] = b;
		break;
	case 3: /* s struct { t struct { a }, b int } */
		n[0] = NODE("t", 2, STRUCT, .children = &n[2], .n_children = 1), n[1] = b, n[2] = a;
		break;
	case 4: /* s struct { ll list<list<a>>, b int } */
		n[0] = NODE("ll", 2, LIST, .element = &n[2]), n[1] = b;
		n[2] = NODE("element", 3, LIST, .element = &n[3]), n[3] = a;
		break;
	default: /* s required struct { a required, b list<int required> required } */
		a.required = b.required = s->top.required = true;
		n[0] = a, n[1] = NODE("b", 2, LIST, .element = &n[2], .required = true), n[2] = b;
		break;
	}
}

/* One nested-mode pages seed (and, with `footer_dir`, the whole file as a footer seed). */
static int nested_seed(const char *dir, const char *footer_dir, size_t shape, size_t t, floe_parquet_codec codec)
{
	nested_shape s;
	fx_nested g = { .rng = shape * 131 + t };
	floe_parquet_writer_opts opts = FLOE_PARQUET_WRITER_OPTS_INIT;
	floe_parquet_reader *r = NULL;
	floe_buf seed = FLOE_BUF_INIT, file = FLOE_BUF_INIT, path = FLOE_BUF_INIT;
	floe_vector v;
	size_t rows = 14;
	int rc = -1;
	nested_fields(&s, shape, (floe_parquet_field){ .type = seed_types[t].type, .precision = seed_types[t].precision,
						       .scale = seed_types[t].scale, .length = seed_types[t].length });
	opts.codec = codec;
	opts.page_rows = 5;
	fx_nested_init(&v, &s.top);
	for (size_t i = 0; i < rows; i++)
		fx_nested_value(&g, &s.top, &v);
	if (seed_file(&r, &file, dir, &s.top, 1, &v, &opts) < 0)
		goto cleanup;
	const floe_parquet_row_group *rg = &floe_parquet_reader_meta(r)->row_groups[0];
	int64_t a_values = rg->columns[0].num_values, b_values = rg->columns[1].num_values;
	int64_t a_len = rg->columns[0].total_compressed_size;
	uint8_t head[10] = { (uint8_t)(shape * FUZZ_PAGE_TYPES + (size_t)seed_types[t].index),
			     (uint8_t)(0x80 | (codec == FLOE_PARQUET_SNAPPY ? 0x10 : codec == FLOE_PARQUET_ZSTD ? 0x20 : 0)),
			     (uint8_t)a_values, (uint8_t)(a_values >> 8), (uint8_t)rows, (uint8_t)(rows >> 8),
			     (uint8_t)b_values, (uint8_t)(b_values >> 8), (uint8_t)a_len, (uint8_t)(a_len >> 8) };
	floe_buf_put(&seed, head, 10);
	put_chunk_bytes(&seed, r, &file, 0);
	put_chunk_bytes(&seed, r, &file, 1);
	floe_buf_printf(&path, "%s/nested-s%zu-t%02d-c%d", dir, shape, seed_types[t].index, (int)codec);
	if (write_file(path.ptr, (const uint8_t *)seed.ptr, seed.len) < 0)
		goto cleanup;
	floe_buf_clear(&path);
	if (footer_dir)
		floe_buf_printf(&path, "%s/nested-s%zu.parquet", footer_dir, shape);
	rc = footer_dir ? write_file(path.ptr, (const uint8_t *)file.ptr, file.len) : 0;
cleanup:
	floe_parquet_reader_free(r);
	floe_vector_free(&v);
	floe_buf_free(&seed);
	floe_buf_free(&file);
	floe_buf_free(&path);
	return rc;
}

/* Seeds for both fuzz targets: DIR/parquet_pages/ and DIR/parquet_footer/. */
static int cmd_seeds(const char *dir)
{
	static const uint8_t flag_sets[] = { 0, 1, 3, 7 };
	static const floe_parquet_codec codecs[] = { FLOE_PARQUET_UNCOMPRESSED, FLOE_PARQUET_SNAPPY,
						     FLOE_PARQUET_ZSTD };
	floe_buf sub = FLOE_BUF_INIT, path = FLOE_BUF_INIT;
	int rc = -1;
	floe_buf_printf(&sub, "%s/parquet_pages", dir);
	if (floe_fs_mkdir_p(sub.ptr, 0755) < 0)
		goto cleanup;
	for (size_t t = 0; t < sizeof(seed_types) / sizeof(seed_types[0]); t++)
		for (size_t k = 0; k < sizeof(flag_sets); k++)
			if (page_seed(sub.ptr, t, flag_sets[k], codecs[(t + k) % 3]) < 0)
				goto cleanup;
	floe_buf_printf(&path, "%s/parquet_footer", dir);
	if (floe_fs_mkdir_p(path.ptr, 0755) < 0)
		goto cleanup;
	for (size_t shape = 0; shape < NESTED_SHAPES; shape++) {
		static const size_t nested_types[] = { 1, 5, 8, 4 }; /* int, string, decimal(19,0), double */
		for (size_t k = 0; k < sizeof(nested_types) / sizeof(nested_types[0]); k++)
			if (nested_seed(sub.ptr, k == 0 ? path.ptr : NULL, shape, nested_types[k],
					codecs[(shape + k) % 3]) < 0)
				goto cleanup;
	}
	floe_buf_clear(&sub);
	floe_buf_printf(&sub, "%s/parquet_footer", dir);
	for (const char *const *c = case_names; *c; c++) {
		if (strcmp(*c, "big") == 0)
			continue;
		floe_buf_clear(&path);
		floe_buf_printf(&path, "%s/%s.parquet", sub.ptr, *c);
		char *args[] = { "--rows", "12", "--page-rows", "5", "--codec",
				 strcmp(*c, "lists") == 0 ? "snappy" : strcmp(*c, "card") == 0 ? "none" : "zstd" };
		fflush(stdout);
		int saved = dup(1), null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		int written = cmd_write(*c, path.ptr, 6, args);
		fflush(stdout);
		dup2(saved, 1);
		close(saved);
		close(null);
		if (written < 0)
			goto cleanup;
	}
	rc = 0;
cleanup:
	floe_buf_free(&sub);
	floe_buf_free(&path);
	return rc;
}

int main(int argc, char **argv)
{
	int rc = -1;
	if (argc >= 4 && strcmp(argv[1], "write") == 0) {
		rc = cmd_write(argv[2], argv[3], argc - 4, argv + 4);
	} else if (argc == 3 && strcmp(argv[1], "dump") == 0) {
		rc = cmd_dump(argv[2]);
	} else if (argc == 3 && strcmp(argv[1], "seeds") == 0) {
		rc = cmd_seeds(argv[2]);
	} else if (argc == 2 && strcmp(argv[1], "cases") == 0) {
		for (const char *const *c = case_names; *c; c++)
			printf("%s\n", *c);
		rc = 0;
	} else {
		fprintf(stderr, "usage: parquet_fixture write CASE OUT [options] | dump IN | cases\n");
		return 2;
	}
	if (rc < 0) {
		floe_error_print(stderr);
		return 1;
	}
	return 0;
}
