/*
 * nested_values.h — test helper (not part of floe): random rows of any field tree of floe's
 * Parquet writer (structs and lists nested in any way), built with the calls the PostgreSQL
 * COPY decoder makes (floe_vector_append_null for a NULL value, fields or elements first and
 * then floe_vector_append_struct / floe_vector_append_list), so they have the layout of a load:
 * nulls at every level, empty lists, structs of nulls. Deterministic for a seed.
 */
#ifndef FLOE_TESTS_NESTED_VALUES_H
#define FLOE_TESTS_NESTED_VALUES_H

#include "format/parquet.h"

typedef struct fx_nested {
	uint64_t rng;
	/* what the values made so far hold, so a test knows it covers them */
	size_t null_structs, structs_of_nulls, null_lists, empty_lists, null_elements;
} fx_nested;

/* An empty vector of field `f`'s shape (decimals with the field's precision and scale). */
void fx_nested_init(floe_vector *v, const floe_parquet_field *f);

/* One random value of field `f` appended to `v` (of its shape). */
void fx_nested_value(fx_nested *g, const floe_parquet_field *f, floe_vector *v);

#endif
