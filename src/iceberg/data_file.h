/*
 * data_file.h — the data file descriptor: what a table needs to know about one
 * data file to add it to a snapshot, and what scan planning hands back.
 *
 * The Parquet writer (src/format/parquet*) fills one per file it closes: the path
 * as an absolute URI, the exact record count and byte size, the row-group start
 * offsets, and per leaf column (by Iceberg field id) the compressed size, value /
 * null / NaN counts and lower / upper bounds in the spec's single-value binary
 * serialization (Appendix D; helpers below). The descriptor only borrows: every
 * pointer in it must stay valid until the call it is passed to returns, and table
 * operations copy what they keep.
 */
#ifndef FLOE_ICEBERG_DATA_FILE_H
#define FLOE_ICEBERG_DATA_FILE_H

#include "base/arena.h"
#include "format/parquet.h"
#include "iceberg/schema.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum floe_iceberg_content {
	FLOE_ICEBERG_CONTENT_DATA = 0,
	FLOE_ICEBERG_CONTENT_POSITION_DELETES = 1,
	FLOE_ICEBERG_CONTENT_EQUALITY_DELETES = 2
} floe_iceberg_content;

/* Statistics of one column (a leaf field id) of one file. Counts are -1 when unknown. */
typedef struct floe_iceberg_column_stats {
	int32_t field_id;
	int64_t column_size;      /* compressed bytes of its chunks */
	int64_t value_count;      /* values including nulls and NaN */
	int64_t null_value_count;
	int64_t nan_value_count;  /* float and double columns only; -1 otherwise */
	bool has_lower, has_upper;
	const uint8_t *lower;     /* Appendix D bytes; never NaN */
	size_t lower_len;
	const uint8_t *upper;
	size_t upper_len;
} floe_iceberg_column_stats;

#define FLOE_ICEBERG_COLUMN_STATS_INIT \
	{ .column_size = -1, \
	  .value_count = -1, \
	  .null_value_count = -1, \
	  .nan_value_count = -1 }

typedef struct floe_iceberg_data_file {
	floe_iceberg_content content;
	const char *path;          /* absolute URI, e.g. file:///srv/warehouse/bronze/t/data/x.parquet */
	const char *format;        /* "PARQUET" when NULL */
	int32_t spec_id;           /* partition spec; 0 = the unpartitioned spec */
	int64_t record_count;
	int64_t file_size_in_bytes;
	const int64_t *split_offsets; /* row-group start offsets, ascending */
	size_t n_split_offsets;
	const floe_iceberg_column_stats *columns;
	size_t n_columns;
	bool has_sort_order_id;
	int32_t sort_order_id;
	const int32_t *equality_ids; /* equality delete files only */
	size_t n_equality_ids;
} floe_iceberg_data_file;

#define FLOE_ICEBERG_DATA_FILE_INIT { .content = FLOE_ICEBERG_CONTENT_DATA }

/* A deep copy in `arena`. */
floe_iceberg_data_file *floe_iceberg_data_file_copy(floe_arena *arena,
						    const floe_iceberg_data_file *file);

/*
 * `d` describes the Parquet file at `uri` from what the Parquet writer or reader computed
 * (parquet.h floe_parquet_file_stats); the column statistics are allocated in `a`, the rest
 * borrowed from `st`.
 */
void floe_iceberg_data_file_from_parquet(floe_iceberg_data_file *d, floe_arena *a, const char *uri,
					 const floe_parquet_file_stats *st);

/* The statistics of `field_id`, or NULL. */
const floe_iceberg_column_stats *floe_iceberg_data_file_column(const floe_iceberg_data_file *file,
								int32_t field_id);

/* ---- bounds: the single-value binary serialization (spec Appendix D) ---- */

/* The longest bound: uuid 16 bytes, decimal(38) 16 bytes. Strings and binary are not capped. */
#define FLOE_ICEBERG_BOUND_FIXED_MAX 16

/*
 * Encode an integral value of an int, long, date, time, timestamp or timestamptz
 * column (little-endian, 4 or 8 bytes), a float or double (little-endian IEEE; -0.0
 * is kept as written), a boolean (one byte), into `out`. Returns the length.
 */
size_t floe_iceberg_bound_int(uint8_t out[8], floe_iceberg_type_id type, int64_t value);
size_t floe_iceberg_bound_real(uint8_t out[8], floe_iceberg_type_id type, double value);
size_t floe_iceberg_bound_bool(uint8_t out[1], bool value);

/*
 * A decimal's unscaled value given as big-endian two's complement of any width
 * (Parquet's FIXED_LEN_BYTE_ARRAY form), shortened to the minimal width the spec
 * requires. Returns the length (1..16), or 0 when `len` is 0 or more than 16.
 */
size_t floe_iceberg_bound_decimal(uint8_t out[16], const uint8_t *big_endian, size_t len);
/* The same from an int64 unscaled value (INT32/INT64 decimals). */
size_t floe_iceberg_bound_decimal64(uint8_t out[16], int64_t unscaled);

/*
 * Truncate a string bound to `width` code points (Java's default metrics mode is
 * truncate(16)): the lower bound is the prefix; the upper bound is the prefix with
 * its last code point incremented (carrying left), or absent (*out_len == 0 and -1
 * returned) when no increment is possible. Never splits a UTF-8 sequence. The
 * result is written into `out`, which holds at least `len` bytes.
 */
size_t floe_iceberg_bound_string_lower(uint8_t *out, const char *s, size_t len, size_t width);
int floe_iceberg_bound_string_upper(uint8_t *out, size_t *out_len, const char *s, size_t len,
				    size_t width);
/* The same for binary, by bytes. */
size_t floe_iceberg_bound_binary_lower(uint8_t *out, const uint8_t *b, size_t len, size_t width);
int floe_iceberg_bound_binary_upper(uint8_t *out, size_t *out_len, const uint8_t *b, size_t len,
				    size_t width);

/*
 * Decode a bound of an integral or date/time type into *out (sign-extended): 0, or
 * -1 when the length does not fit the type. For readers that prune by bounds.
 */
int floe_iceberg_bound_to_int(int64_t *out, floe_iceberg_type_id type, const uint8_t *b,
			      size_t len);
int floe_iceberg_bound_to_real(double *out, floe_iceberg_type_id type, const uint8_t *b,
			       size_t len);

#endif
