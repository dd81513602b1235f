/*
 * parquet.h — floe's own Parquet writer and reader, for Iceberg v2 data files.
 *
 * Writer. A file is a list of fields (Iceberg fields: name, field id, required, type; structs
 * as groups, lists with the 3-level layout, nested in any way). Column vectors (format/vector.h) go in batch by
 * batch; the writer encodes them at once into pages (PLAIN, or RLE_DICTIONARY with a PLAIN
 * dictionary page and a fallback to PLAIN when the dictionary grows past its limit or does
 * not pay), compresses every page (ZSTD by default, SNAPPY, or none), and flushes a row
 * group when its encoded size reaches the target. Memory is bounded by one row group,
 * whatever the file's size. Closing writes the footer (schema with field ids, logical and
 * converted types, statistics with column orders, exact offsets and sizes) and returns what
 * an Iceberg manifest needs about the file (floe_parquet_file_stats).
 *
 * Reader. For verification, statistics and recovery (not for queries): the footer (schema,
 * field ids, logical types, row groups, column chunk statistics) and the decoded values of
 * any column chunk (PLAIN, dictionary, RLE levels, data pages v1 and v2; ZSTD, SNAPPY or
 * uncompressed). Input is hostile: every size, offset and count is checked, and the limits
 * in floe_parquet_reader_opts bound what a file can make the reader allocate.
 *
 * Errors go to the error chain (base/error.h); zstd's errors are translated here.
 */
#ifndef FLOE_FORMAT_PARQUET_H
#define FLOE_FORMAT_PARQUET_H

#include "vector/vector.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct floe_arena floe_arena;

typedef enum floe_parquet_codec {
	FLOE_PARQUET_UNCOMPRESSED = 0,
	FLOE_PARQUET_SNAPPY = 1,
	FLOE_PARQUET_ZSTD = 6
} floe_parquet_codec;

/* "uncompressed", "snappy", "zstd"; NULL for a codec floe does not write. */
const char *floe_parquet_codec_name(floe_parquet_codec codec);

/* ---- writing ---- */

/*
 * One Iceberg field. `type` is any floe_vec_type; DECIMAL uses precision (1..38) and scale,
 * FIXED uses length. A LIST names its element in `element` (the element's name is ignored:
 * it is always "element"; its id, required flag and type are used). A STRUCT lists its fields
 * in `children` (at least one; names unique among them). Fields nest up to
 * FLOE_PARQUET_MAX_DEPTH levels. Borrowed by open (the writer keeps a copy).
 *
 * Each primitive at the end of a path is one leaf column of the file, in depth-first order;
 * statistics are per leaf and keyed by the leaf's field id (a list's element id, a struct
 * field's id).
 */
#define FLOE_PARQUET_MAX_DEPTH 32
typedef struct floe_parquet_field floe_parquet_field;
struct floe_parquet_field {
	const char *name;
	int32_t id;
	bool required;
	floe_vec_type type;
	int32_t precision, scale;
	int32_t length;
	const floe_parquet_field *element;
	const floe_parquet_field *children;
	size_t n_children;
};

typedef struct floe_parquet_writer_opts {
	floe_parquet_codec codec;
	int zstd_level;            /* 1..19 */
	size_t row_group_bytes;    /* flush a row group once its encoded size reaches this */
	size_t page_bytes;         /* close a data page once its encoded values reach this */
	size_t page_rows;          /* ... or once it holds this many rows */
	size_t dictionary_bytes;   /* fall back to PLAIN past this dictionary size; 0: never use one */
	const char *created_by;    /* NULL: "floe version <FLOE_VERSION>" */
	const char *const *metadata; /* key/value pairs k0, v0, k1, v1, ..., NULL; may be NULL */
} floe_parquet_writer_opts;

/*
 * Java Iceberg's defaults (128 MiB row groups, 1 MiB or 20,000-row pages, 2 MiB
 * dictionaries), except ZSTD level 1 where Java uses 3: measured on the shop's tables its
 * files are 1.6 % larger than level 2's (2.6 % on order_items, 8.9 % on bench/parquet's
 * orders) for about a tenth less CPU per row (bench/RESULTS.md). `[warehouse] zstd-level`
 * sets another for bronze's files.
 */
#define FLOE_PARQUET_WRITER_OPTS_INIT \
	{ .codec = FLOE_PARQUET_ZSTD, \
	  .zstd_level = 1, \
	  .row_group_bytes = (size_t)128 << 20, \
	  .page_bytes = (size_t)1 << 20, \
	  .page_rows = 20000, \
	  .dictionary_bytes = (size_t)2 << 20 }

typedef struct floe_parquet_writer floe_parquet_writer;

/* What Iceberg's manifest says about one leaf column (an Iceberg field id). */
typedef struct floe_parquet_column_stats {
	int32_t field_id;          /* the leaf's: a primitive field, a list element, a struct field */
	int64_t column_size;       /* compressed bytes of its chunks, page headers included */
	int64_t value_count;       /* values including nulls (for list elements: level entries) */
	int64_t null_count;
	bool has_nan_count;        /* float and double only */
	int64_t nan_count;
	/* Appendix D single-value serialization; absent inside lists (at any depth), for
	 * all-null columns, and for an upper bound that cannot be incremented after truncation. */
	bool has_lower, has_upper;
	const uint8_t *lower, *upper;
	size_t lower_len, upper_len;
} floe_parquet_column_stats;

typedef struct floe_parquet_file_stats {
	int64_t record_count;
	int64_t file_size;
	const int64_t *split_offsets; /* row group starts, ascending */
	size_t n_split_offsets;
	const floe_parquet_column_stats *columns; /* one per leaf column, in schema order */
	size_t n_columns;
} floe_parquet_file_stats;

/*
 * Where a writer's bytes go: a byte stream that publishes on close — nothing is visible at
 * `name` until publish succeeds, and abort leaves nothing. The format module opens no file
 * itself; iceberg/data_io.h makes a sink of a storage writer handle (iceberg/storage.h).
 * publish and abort free `ctx`; the writer calls exactly one of them, once.
 */
typedef struct floe_parquet_sink {
	void *ctx;
	const char *name;                                        /* for messages: its URI */
	int (*write)(void *ctx, const void *data, size_t len);  /* all of it, or -1 */
	int (*publish)(void *ctx);  /* complete and durable at `name`, or -1 and nothing there */
	void (*abort)(void *ctx);
} floe_parquet_sink;

/*
 * Get ready to write `fields` to `sink`, which the writer owns from here on, even when this
 * fails (it is then aborted). `opts` may be NULL for the defaults. On failure *out is NULL.
 */
int floe_parquet_writer_open(floe_parquet_writer **out, const floe_parquet_sink *sink,
			     const floe_parquet_field *fields, size_t n_fields,
			     const floe_parquet_writer_opts *opts);

/*
 * Append rows: one vector per top-level field, in field order, all of the same length, each
 * of its field's shape (a STRUCT vector with one child per field, a LIST vector whose child
 * is the element's). The vectors are only read. Fails (FLOE_ERR_USAGE) on a null in a
 * required field, a value inside a null struct row (its children must be null there, as
 * floe_vector_append_null makes them), a decimal outside its precision, a fixed value of the
 * wrong width, a value longer than Parquet allows; the writer is then unusable (abort it).
 */
int floe_parquet_writer_write_batch(floe_parquet_writer *w, const floe_vector *columns,
				    size_t n_columns);

/*
 * Write the last row group and the footer, publish the sink, and release the writer
 * (always, even on failure; the sink is then aborted: nothing is at its name). On success *out describes the file,
 * allocated in `arena`; `out` may be NULL.
 */
int floe_parquet_writer_close(floe_parquet_file_stats *out, floe_parquet_writer *w,
			      floe_arena *arena);

/* Give up: release the writer and abort its sink (nothing is left). Accepts NULL. */
void floe_parquet_writer_abort(floe_parquet_writer *w);

/*
 * Iceberg's bound truncation (Appendix D, "truncate(16)"), exposed for tests and for the
 * manifest writer: the lower bound of a STRING keeps the first `n` code points, of a
 * BINARY/FIXED the first `n` bytes; the upper bound also increments the last code point or
 * byte that can be, dropping what follows. Returns false when no upper bound exists.
 * Results are written to `dst` (at least `len` bytes; 4 more for an upper string bound).
 */
size_t floe_parquet_truncate_lower(uint8_t *dst, const uint8_t *src, size_t len, bool utf8,
				   size_t n);
bool floe_parquet_truncate_upper(uint8_t *dst, size_t *dst_len, const uint8_t *src, size_t len,
				 bool utf8, size_t n);

/* ---- reading ---- */

/* Parquet's enums, as in parquet.thrift. */
enum {
	FLOE_PQ_BOOLEAN = 0,
	FLOE_PQ_INT32 = 1,
	FLOE_PQ_INT64 = 2,
	FLOE_PQ_INT96 = 3,
	FLOE_PQ_FLOAT = 4,
	FLOE_PQ_DOUBLE = 5,
	FLOE_PQ_BYTE_ARRAY = 6,
	FLOE_PQ_FIXED_LEN_BYTE_ARRAY = 7
};
enum { FLOE_PQ_REQUIRED = 0, FLOE_PQ_OPTIONAL = 1, FLOE_PQ_REPEATED = 2 };
/* LogicalType union members (0: none). */
enum {
	FLOE_PQ_LT_NONE = 0,
	FLOE_PQ_LT_STRING = 1,
	FLOE_PQ_LT_MAP = 2,
	FLOE_PQ_LT_LIST = 3,
	FLOE_PQ_LT_ENUM = 4,
	FLOE_PQ_LT_DECIMAL = 5,
	FLOE_PQ_LT_DATE = 6,
	FLOE_PQ_LT_TIME = 7,
	FLOE_PQ_LT_TIMESTAMP = 8,
	FLOE_PQ_LT_INTEGER = 10,
	FLOE_PQ_LT_UNKNOWN = 11,
	FLOE_PQ_LT_JSON = 12,
	FLOE_PQ_LT_BSON = 13,
	FLOE_PQ_LT_UUID = 14,
	FLOE_PQ_LT_FLOAT16 = 15,
	FLOE_PQ_LT_OTHER = 99 /* a member floe does not know */
};
enum { FLOE_PQ_UNIT_MILLIS = 1, FLOE_PQ_UNIT_MICROS = 2, FLOE_PQ_UNIT_NANOS = 3 };

typedef struct floe_parquet_schema_element {
	const char *name;
	int type;                 /* FLOE_PQ_BOOLEAN.., -1 for a group */
	int32_t type_length;      /* -1 absent */
	int repetition;           /* FLOE_PQ_REQUIRED.., -1 absent (the root) */
	int32_t num_children;     /* 0 for a leaf */
	int converted_type;       /* -1 absent */
	int32_t scale, precision; /* -1 absent */
	bool has_field_id;
	int32_t field_id;
	int logical;              /* FLOE_PQ_LT_* */
	bool utc;                 /* TIME, TIMESTAMP: isAdjustedToUTC */
	int unit;                 /* TIME, TIMESTAMP: FLOE_PQ_UNIT_* */
	int32_t lt_scale, lt_precision; /* DECIMAL */
	int lt_bit_width;         /* INTEGER */
	bool lt_signed;           /* INTEGER */
} floe_parquet_schema_element;

typedef struct floe_parquet_statistics {
	bool has_null_count, has_nan_count, has_distinct_count;
	int64_t null_count, nan_count, distinct_count;
	bool has_min, has_max;    /* min_value / max_value (ordered by column_orders) */
	const uint8_t *min, *max;
	size_t min_len, max_len;
	bool has_min_exact, min_exact, has_max_exact, max_exact;
	bool has_legacy_min, has_legacy_max; /* the deprecated signed min / max */
	const uint8_t *legacy_min, *legacy_max;
	size_t legacy_min_len, legacy_max_len;
} floe_parquet_statistics;

typedef struct floe_parquet_column_chunk {
	int type;
	uint32_t encodings;       /* bit e set for each Encoding e listed */
	const char *const *path;
	size_t path_len;
	int codec;
	int64_t num_values;
	int64_t total_uncompressed_size, total_compressed_size;
	int64_t data_page_offset;
	bool has_dictionary_page_offset;
	int64_t dictionary_page_offset;
	bool has_statistics;
	floe_parquet_statistics statistics;
} floe_parquet_column_chunk;

typedef struct floe_parquet_row_group {
	const floe_parquet_column_chunk *columns; /* one per leaf */
	size_t n_columns;
	int64_t total_byte_size, num_rows;
	bool has_file_offset, has_total_compressed_size, has_ordinal;
	int64_t file_offset, total_compressed_size;
	int16_t ordinal;
} floe_parquet_row_group;

/* A leaf column, derived from the schema. */
typedef struct floe_parquet_leaf {
	size_t element;           /* index into schema */
	const char *path;         /* dotted: "tags.list.element" */
	int max_def, max_rep;
	bool has_field_id;
	int32_t field_id;         /* the leaf's own id (a list element's id for a list) */
	int32_t top_field_id;     /* the top-level field's id, -1 absent */
	bool in_list;             /* inside a list: read as a LIST vector of the leaf's values */
	int list_def;             /* in_list: the definition level of an empty list (below: a null
				   * list or parent; above and below max_def: a null element or
				   * a null struct inside it) */
	/* How floe reads it: 0 when it cannot (the reason is in `unsupported`). */
	floe_vec_type vtype;
	int32_t precision, scale, width;
	const char *unsupported;
} floe_parquet_leaf;

/*
 * A top-level field of the schema (a child of the root), read whole by
 * floe_parquet_reader_read_field: its leaves are leaves[first_leaf .. first_leaf + n_leaves).
 */
typedef struct floe_parquet_top_field {
	const char *name;
	size_t element;           /* index into schema */
	bool has_field_id;
	int32_t field_id;
	size_t first_leaf, n_leaves;
	/* The vector it reads into (a primitive's type, LIST or STRUCT, nested as the schema
	 * says); 0 when floe cannot read it (the reason is in `unsupported`). */
	floe_vec_type vtype;
	const char *unsupported;
} floe_parquet_top_field;

typedef struct floe_parquet_meta {
	int64_t file_size;
	size_t footer_len;
	int32_t version;
	const floe_parquet_schema_element *schema;
	size_t n_schema;
	const floe_parquet_leaf *leaves;
	size_t n_leaves;
	const floe_parquet_top_field *fields;
	size_t n_fields;
	int64_t num_rows;
	const floe_parquet_row_group *row_groups;
	size_t n_row_groups;
	const char *const *kv_keys;   /* values NULL when absent */
	const char *const *kv_values;
	size_t n_kv;
	const char *created_by;       /* NULL when absent */
	const int *column_orders;     /* per leaf: 1 TYPE_ORDER, 2 IEEE_754_TOTAL_ORDER, 0 other */
	size_t n_column_orders;
} floe_parquet_meta;

/*
 * Buffers that readers opened one after another share (a scan over many files): a column chunk's
 * bytes, a decompressed page, a page's values — kept at their size from file to file instead of
 * allocated and faulted in again for each. Readers that use one must not run at the same time
 * (two threads: two scratches). Freed after the last reader that used it.
 */
typedef struct floe_parquet_scratch floe_parquet_scratch;
floe_parquet_scratch *floe_parquet_scratch_new(void);
void floe_parquet_scratch_free(floe_parquet_scratch *s);

typedef struct floe_parquet_reader_opts {
	size_t max_footer_bytes;  /* refuse larger footers */
	size_t max_page_bytes;    /* refuse pages that decompress to more */
	size_t max_values;        /* refuse column chunks with more level entries */
	bool skip_page_crc;       /* do not verify page CRCs (by default a page whose header
				     records one must match it, else FLOE_ERR_CHECK naming the file) */
	floe_parquet_scratch *scratch; /* NULL: the reader's own buffers */
} floe_parquet_reader_opts;

#define FLOE_PARQUET_READER_OPTS_INIT \
	{ .max_footer_bytes = (size_t)64 << 20, \
	  .max_page_bytes = (size_t)256 << 20, \
	  .max_values = (size_t)1 << 31 }

typedef struct floe_parquet_reader floe_parquet_reader;

/*
 * Where a reader's bytes come from: an object of `size` bytes read by exact ranges
 * (iceberg/data_io.h makes one of a storage reader handle). close frees `ctx`.
 */
typedef struct floe_parquet_source {
	void *ctx;
	const char *name;                                              /* for messages: its URI */
	int64_t size;
	int (*read_at)(void *ctx, void *buf, size_t len, int64_t offset); /* exactly len, or -1 */
	void (*close)(void *ctx);
} floe_parquet_source;

/*
 * Parse the footer of `source`, which the reader owns from here on, even when this fails
 * (it is then closed). `opts` may be NULL.
 */
int floe_parquet_reader_open(floe_parquet_reader **out, const floe_parquet_source *source,
			     const floe_parquet_reader_opts *opts);

/* Same over `len` bytes in memory (borrowed until the reader is freed). */
int floe_parquet_reader_open_mem(floe_parquet_reader **out, const void *data, size_t len,
				 const floe_parquet_reader_opts *opts);

void floe_parquet_reader_free(floe_parquet_reader *r);

/* The footer, borrowed until the reader is freed. */
const floe_parquet_meta *floe_parquet_reader_meta(const floe_parquet_reader *r);

/*
 * Decode leaf `leaf` of row group `row_group` into `out` (initialised here; the caller
 * frees it with floe_vector_free): a vector of the leaf's vtype, or for a list element a
 * LIST vector whose child holds the elements. Fails on an unsupported leaf, encoding or
 * codec, and on any inconsistency in the pages.
 */
int floe_parquet_reader_read_column(floe_vector *out, floe_parquet_reader *r, size_t row_group,
				    size_t leaf);

/*
 * Decode top-level field `field` of row group `row_group` into `out` (initialised here; the
 * caller frees it with floe_vector_free) as the writer takes it: a primitive or a list of
 * primitives as floe_parquet_reader_read_column reads its leaf; structs and lists nested in
 * any way rebuilt from the levels of all their leaves (record assembly): a STRUCT vector with
 * a child per field, null in every child where the struct is null; a LIST vector whose
 * offsets give each row its elements, an empty range for a null or empty list. A null struct
 * apart from a struct of nulls, a null list apart from an empty one, null elements: as
 * written. Fails on an unsupported field, and when its leaves disagree on the nesting of a
 * value (a malformed file).
 */
int floe_parquet_reader_read_field(floe_vector *out, floe_parquet_reader *r, size_t row_group,
				   size_t field);
/*
 * floe_parquet_reader_read_field into `out`, a vector an earlier read filled (or a zeroed one):
 * a flat vector of the same type keeps its memory and is refilled — a scan reading row group
 * after row group does not allocate (and fault in) its vectors again for each.
 */
int floe_parquet_reader_read_field_reuse(floe_vector *out, floe_parquet_reader *r, size_t row_group,
					 size_t field);

/*
 * Iceberg metrics of the whole file computed from its footer (as Iceberg's Java
 * ParquetUtil.footerMetrics does), for files floe did not just write (recovery). Bounds
 * come from min_value/max_value, so they are absent where the statistics are.
 */
int floe_parquet_reader_file_stats(floe_parquet_file_stats *out, floe_parquet_reader *r,
				   floe_arena *arena);

#endif
