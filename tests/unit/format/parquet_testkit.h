/*
 * parquet_testkit.h — helpers the Parquet unit tests share: temporary paths, decimals, and
 * comparing what floe's reader reads back with the vectors written.
 */
#ifndef FLOE_TESTS_PARQUET_TESTKIT_H
#define FLOE_TESTS_PARQUET_TESTKIT_H

#include "format/parquet.h"

#include <stdbool.h>
#include <stddef.h>

__extension__ typedef __int128 i128;

/* The path of `name` in this run's temporary directory; tmp_path removes an earlier file first. */
const char *path_of(const char *name);
const char *tmp_path(const char *name);

/* The writer and reader on a local path, through table storage (iceberg/parquet_io.h). */
int tk_parquet_create(floe_parquet_writer **w, const char *path, const floe_parquet_field *fields,
		      size_t n_fields, const floe_parquet_writer_opts *opts);
int tk_parquet_open(floe_parquet_reader **r, const char *path, const floe_parquet_reader_opts *opts);

floe_dec128 dec(i128 v);

/* Row i of a and row j of b hold the same value (lists element by element, structs field by
 * field; floats bit for bit). */
bool same_row(const floe_vector *a, size_t i, const floe_vector *b, size_t j);

/*
 * The same vectors, not only the same values: shape, decimal precision and scale, validity of
 * every row, offsets, and the same of every nested vector (rows under a null struct too).
 */
bool same_layout(const floe_vector *a, const floe_vector *b);

/* The layout the writer takes and the COPY decoder makes: a null struct row is null in every
 * field, a null list row has no elements, offsets ascend to the child's length. */
bool nulls_nest(const floe_vector *v);

/* Read every row group of leaf `leaf` and compare with `want`, row by row. */
bool column_equals(floe_parquet_reader *r, size_t leaf, const floe_vector *want);

#endif
