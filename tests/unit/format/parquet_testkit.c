/*
 * parquet_testkit.c — helpers the Parquet unit tests share (see parquet_testkit.h).
 */
#include "parquet_testkit.h"

#include "base/error.h"
#include "iceberg/parquet_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmp_dir[64];

const char *path_of(const char *name)
{
	static char path[128];
	if (!tmp_dir[0]) {
		snprintf(tmp_dir, sizeof(tmp_dir), "/tmp/floe-unit-pq-XXXXXX");
		if (!mkdtemp(tmp_dir))
			abort();
	}
	snprintf(path, sizeof(path), "%s/%s", tmp_dir, name);
	return path;
}

/* One local storage for every test (never freed: the handles it gives out may outlive a test). */
static floe_iceberg_storage *local_storage(void)
{
	static floe_iceberg_storage *s;
	if (!s)
		s = floe_iceberg_storage_local();
	return s;
}

int tk_parquet_create(floe_parquet_writer **w, const char *path, const floe_parquet_field *fields,
		      size_t n_fields, const floe_parquet_writer_opts *opts)
{
	return floe_iceberg_parquet_create(w, local_storage(), path, fields, n_fields, opts);
}

int tk_parquet_open(floe_parquet_reader **r, const char *path, const floe_parquet_reader_opts *opts)
{
	return floe_iceberg_parquet_open(r, local_storage(), path, opts);
}

const char *tmp_path(const char *name)
{
	const char *path = path_of(name);
	unlink(path);
	return path;
}

floe_dec128 dec(i128 v)
{
	floe_dec128 d = { (uint64_t)v, (int64_t)(v >> 64) };
	return d;
}

bool same_row(const floe_vector *a, size_t i, const floe_vector *b, size_t j)
{
	bool va = floe_vector_is_valid(a, i), vb = floe_vector_is_valid(b, j);
	size_t la, lb;
	if (va != vb || a->type != b->type)
		return false;
	if (!va)
		return true;
	switch (a->type) {
	case FLOE_VEC_BOOLEAN: return a->v.u8[i] == b->v.u8[j];
	case FLOE_VEC_INT:
	case FLOE_VEC_DATE: return a->v.i32[i] == b->v.i32[j];
	case FLOE_VEC_FLOAT: return memcmp(&a->v.f32[i], &b->v.f32[j], 4) == 0;
	case FLOE_VEC_DOUBLE: return memcmp(&a->v.f64[i], &b->v.f64[j], 8) == 0;
	case FLOE_VEC_DECIMAL: return floe_dec128_cmp(a->v.dec[i], b->v.dec[j]) == 0;
	case FLOE_VEC_STRING:
	case FLOE_VEC_BINARY: {
		const uint8_t *pa = floe_vector_bytes(a, i, &la), *pb = floe_vector_bytes(b, j, &lb);
		return la == lb && (la == 0 || memcmp(pa, pb, la) == 0);
	}
	case FLOE_VEC_UUID:
	case FLOE_VEC_FIXED:
		return a->width == b->width &&
		       memcmp(a->v.fixed + i * (size_t)a->width, b->v.fixed + j * (size_t)b->width,
			      (size_t)a->width) == 0;
	case FLOE_VEC_LIST: {
		int64_t n = a->offsets[i + 1] - a->offsets[i];
		if (n != b->offsets[j + 1] - b->offsets[j])
			return false;
		for (int64_t k = 0; k < n; k++)
			if (!same_row(a->child, (size_t)(a->offsets[i] + k), b->child,
				      (size_t)(b->offsets[j] + k)))
				return false;
		return true;
	}
	case FLOE_VEC_STRUCT:
		if (a->n_children != b->n_children)
			return false;
		for (size_t k = 0; k < a->n_children; k++)
			if (!same_row(&a->children[k], i, &b->children[k], j))
				return false;
		return true;
	default: return a->v.i64[i] == b->v.i64[j];
	}
}

bool same_layout(const floe_vector *a, const floe_vector *b)
{
	if (!floe_vector_same_shape(a, b) || a->len != b->len || a->precision != b->precision ||
	    a->scale != b->scale)
		return false;
	for (size_t i = 0; i < a->len; i++)
		if (floe_vector_is_valid(a, i) != floe_vector_is_valid(b, i) || !same_row(a, i, b, i))
			return false;
	bool offsets = a->type == FLOE_VEC_LIST || a->type == FLOE_VEC_STRING || a->type == FLOE_VEC_BINARY;
	for (size_t i = 0; offsets && i <= a->len; i++)
		if (floe_vector_offset(a, i) != floe_vector_offset(b, i))
			return false;
	if (a->child && !same_layout(a->child, b->child))
		return false;
	for (size_t k = 0; k < a->n_children; k++)
		if (!same_layout(&a->children[k], &b->children[k]))
			return false;
	return true;
}

bool nulls_nest(const floe_vector *v)
{
	for (size_t k = 0; k < v->n_children; k++) {
		const floe_vector *c = &v->children[k];
		if (c->len != v->len || !nulls_nest(c))
			return false;
		for (size_t i = 0; i < v->len; i++)
			if (!floe_vector_is_valid(v, i) && floe_vector_is_valid(c, i))
				return false;
	}
	if (v->type != FLOE_VEC_LIST)
		return true;
	for (size_t i = 0; i < v->len; i++)
		if (floe_vector_offset(v, i + 1) < floe_vector_offset(v, i) ||
		    (!floe_vector_is_valid(v, i) && floe_vector_offset(v, i + 1) != floe_vector_offset(v, i)))
			return false;
	return floe_vector_offset(v, v->len) == (int64_t)v->child->len && nulls_nest(v->child);
}

bool column_equals(floe_parquet_reader *r, size_t leaf, const floe_vector *want)
{
	const floe_parquet_meta *m = floe_parquet_reader_meta(r);
	size_t row = 0;
	for (size_t g = 0; g < m->n_row_groups; g++) {
		floe_vector got;
		if (floe_parquet_reader_read_column(&got, r, g, leaf) < 0) {
			floe_error_print(stderr);
			return false;
		}
		for (size_t i = 0; i < got.len; i++, row++) {
			if (row >= want->len || !same_row(&got, i, want, row)) {
				fprintf(stderr, "    leaf %zu row %zu differs\n", leaf, row);
				floe_vector_free(&got);
				return false;
			}
		}
		floe_vector_free(&got);
	}
	return row == want->len;
}

