/*
 * nested_values.c — random rows of nested fields (see nested_values.h).
 */
#include "nested_values.h"

static uint64_t rnd(fx_nested *g)
{
	uint64_t z = (g->rng += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

void fx_nested_init(floe_vector *v, const floe_parquet_field *f)
{
	if (f->type == FLOE_VEC_STRUCT) {
		floe_vector_init_struct(v, f->n_children);
		for (size_t k = 0; k < f->n_children; k++)
			fx_nested_init(&v->children[k], &f->children[k]);
	} else if (f->type == FLOE_VEC_LIST) {
		floe_vector_init_list(v, FLOE_VEC_BOOLEAN, 0);
		fx_nested_init(v->child, f->element);
	} else {
		floe_vector_init(v, f->type, f->length);
		if (f->type == FLOE_VEC_DECIMAL) {
			v->precision = f->precision;
			v->scale = f->scale;
		}
	}
}

static void primitive(fx_nested *g, const floe_parquet_field *f, floe_vector *v)
{
	static const char text[] = "the quick brown fox jumps over the lazy dog";
	uint64_t x = rnd(g);
	uint8_t b[16];
	switch (f->type) {
	case FLOE_VEC_BOOLEAN: floe_vector_append_bool(v, x & 1); break;
	case FLOE_VEC_INT: floe_vector_append_i32(v, (int32_t)(x % 2001) - 1000); break;
	case FLOE_VEC_DATE: floe_vector_append_i32(v, (int32_t)(x % 40000)); break;
	case FLOE_VEC_FLOAT: floe_vector_append_f32(v, (float)(int32_t)x / 64.0f); break;
	case FLOE_VEC_DOUBLE: floe_vector_append_f64(v, x % 13 == 0 ? -0.0 : (double)(int64_t)x / 1e6); break;
	case FLOE_VEC_DECIMAL: floe_vector_append_dec(v, floe_dec128_from_i64((int64_t)(x % 2000000) - 1000000)); break;
	case FLOE_VEC_UUID:
	case FLOE_VEC_FIXED:
		for (size_t i = 0; i < 16; i++)
			b[i] = (uint8_t)(x >> (i % 8 * 8)) ^ (uint8_t)i;
		floe_vector_append_fixed(v, b);
		break;
	case FLOE_VEC_STRING:
	case FLOE_VEC_BINARY: /* a few distinct values (dictionary pages) and the empty one */
		floe_vector_append_bytes(v, text + x % 7, (size_t)(x >> 8) % 12);
		break;
	default: /* LONG, TIME, TIMESTAMP, TIMESTAMPTZ */
		floe_vector_append_i64(v, (int64_t)x >> (x % 60));
		break;
	}
}

static void value(fx_nested *g, const floe_parquet_field *f, floe_vector *v, bool element)
{
	if (!f->required && rnd(g) % 6 == 0) {
		floe_vector_append_null(v);
		g->null_structs += f->type == FLOE_VEC_STRUCT;
		g->null_lists += f->type == FLOE_VEC_LIST;
		g->null_elements += element;
		return;
	}
	if (f->type == FLOE_VEC_STRUCT) {
		size_t nulls = 0;
		for (size_t k = 0; k < f->n_children; k++) {
			value(g, &f->children[k], &v->children[k], false);
			nulls += !floe_vector_is_valid(&v->children[k], v->len);
		}
		g->structs_of_nulls += nulls == f->n_children;
		floe_vector_append_struct(v);
	} else if (f->type == FLOE_VEC_LIST) {
		size_t n = rnd(g) % 4;
		for (size_t k = 0; k < n; k++)
			value(g, f->element, v->child, true);
		g->empty_lists += n == 0;
		floe_vector_append_list(v);
	} else {
		primitive(g, f, v);
	}
}

void fx_nested_value(fx_nested *g, const floe_parquet_field *f, floe_vector *v)
{
	value(g, f, v, false);
}
