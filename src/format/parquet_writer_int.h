/*
 * parquet_writer_int.h — the writer's per-column state, shared by parquet_write.c (files,
 * pages, row groups, footer), parquet_encode.c (levels, values, dictionary) and
 * parquet_stats.c (min/max tracking, statistics and bounds).
 *
 * Every primitive at the end of a field's path becomes one leaf column: a top-level
 * primitive, the element of a list of primitives (3-level layout), or a leaf nested in
 * structs and lists in any way (`nodes`, walked for its levels). A column holds the current page (levels, PLAIN values and/or
 * dictionary indices), the dictionary, and the encoded pages of the current row group's
 * chunk; row group flushes move the chunk to the file and keep only its footer record.
 */
#ifndef FLOE_FORMAT_PARQUET_WRITER_INT_H
#define FLOE_FORMAT_PARQUET_WRITER_INT_H

#include "format/parquet_int.h"

/* How min/max are tracked, by vector type. */
enum { PQ_K_INT, PQ_K_FLOAT, PQ_K_DEC, PQ_K_BYTES };

typedef struct pq_stats {
	bool has;               /* a non-null, non-NaN value was seen */
	int64_t imin, imax;     /* PQ_K_INT (booleans as 0/1) */
	double dmin, dmax;      /* PQ_K_FLOAT; -0.0 orders before +0.0 */
	floe_dec128 cmin, cmax; /* PQ_K_DEC */
	floe_buf bmin, bmax;    /* PQ_K_BYTES: unsigned byte-wise */
	int64_t values;         /* level entries, nulls included */
	int64_t nulls, nans;
} pq_stats;

/* Dictionary modes of a column chunk. TRIAL: the first page keeps both encodings and
 * decides; ON: pages are dictionary-encoded; OFF: PLAIN for the rest of the chunk. */
enum { PQ_DICT_TRIAL, PQ_DICT_ON, PQ_DICT_OFF };

/* One field on a leaf column's path, from the top-level field down to the leaf itself. */
typedef struct pq_node {
	floe_vec_type type;         /* STRUCT, LIST, or the leaf's type */
	bool optional;
	uint32_t child;             /* STRUCT: the field the path goes on through */
	uint8_t rep;                /* LIST: the repetition level of its elements */
} pq_node;

typedef struct pq_col {
	/* description */
	const char *name;           /* the field path for messages: "note", "addr.zip" (lists add no name) */
	size_t top;                 /* index of its top-level field (and of that field's vector) */
	const pq_node *nodes;       /* its path; nodes[n_nodes - 1] is the leaf */
	size_t n_nodes;
	const char *const *schema_path; /* path_in_schema: "tags", "list", "element" */
	size_t n_schema_path;
	bool nested;                /* neither flat nor a list of primitives: levels by walking `nodes` */
	int32_t field_id, top_id;   /* the leaf's id (the element's for a list), the field's */
	floe_vec_type vtype;
	int32_t precision, scale, width;
	uint64_t dec_limit;         /* 10^precision for decimals of precision <= 18 */
	int physical;               /* FLOE_PQ_* */
	int32_t type_length;        /* FIXED_LEN_BYTE_ARRAY */
	int kind;                   /* PQ_K_* */
	bool list, optional;        /* list: a top-level list of primitives; optional: the top-level field may be null */
	bool elem_optional;         /* list: elements may be null */
	int max_def, max_rep;
	floe_parquet_leaf leaf;     /* the reader's view of this leaf, for bound encoding */
	const floe_parquet_writer_opts *opts; /* the writer's, borrowed */

	/* current page */
	floe_buf plain;             /* PLAIN values (and during the dictionary trial) */
	uint32_t *idx;              /* dictionary indices */
	size_t n_idx, cap_idx;
	uint8_t *def, *rep;
	size_t n_lvl, cap_lvl;
	size_t page_rows, page_values;
	bool page_full;             /* flush before the next row */
	bool raw_literals;          /* zstd: a data page of this column shrank by under 1/32 — its pages since
	                               are compressed with raw literals (pq_codec_compress), for the file */

	/* dictionary */
	int dict_mode;
	floe_buf dict;              /* PLAIN-encoded entries: the dictionary page body */
	uint32_t *dict_off;         /* entry -> offset of its value bytes in `dict` */
	uint32_t *dict_len;
	uint32_t n_dict, cap_dict;
	uint32_t page_dict_start;   /* n_dict when the current page began */
	uint64_t *slots;            /* open addressing: hash << 32 | (entry + 1), 0 empty */
	uint32_t slot_mask;
	bool chunk_has_dict;        /* some page of this chunk uses the dictionary */

	/* current chunk */
	floe_buf chunk;             /* data pages: header + compressed body each */
	int64_t chunk_uncompressed; /* data pages, headers included */
	uint32_t encodings;         /* bit per Encoding used */
	pq_stats cstats;            /* this chunk */
	pq_stats fstats;            /* the file so far (merged at each row group) */
	int64_t column_size;        /* compressed bytes written for this column */
} pq_col;

/* ---- parquet_encode.c ---- */

/* Largest value (bytes) floe writes: PostgreSQL's own limit, well inside Parquet's i32 sizes. */
#define PQ_MAX_VALUE_BYTES ((size_t)1 << 30)

/* Append rows [from, to) of `vec` to the column's pages; calls pq_page_flush when full. */
int pq_col_append(floe_parquet_writer *w, pq_col *c, const floe_vector *vec, size_t from,
		  size_t to);
/* Estimated encoded bytes of the current page. */
size_t pq_page_estimate(const pq_col *c);
/* Rough encoded size of the column's buffered state (row group sizing). */
size_t pq_col_buffered(const pq_col *c);
/* Forget the dictionary (new chunk). */
void pq_dict_reset(pq_col *c);
void pq_col_free(pq_col *c);

/* ---- parquet_write.c ---- */

/* Encode, compress and append the current page to the column's chunk. */
int pq_page_flush(floe_parquet_writer *w, pq_col *c);

/* ---- parquet_stats.c ---- */

void pq_stats_reset(pq_stats *s);
void pq_stats_free(pq_stats *s);
void pq_stats_merge(pq_stats *dst, const pq_stats *src, int kind);
void pq_stats_bytes(pq_stats *s, const uint8_t *p, size_t len);
/*
 * Parquet Statistics min/max for a chunk, PLAIN-encoded into `min`/`max` (cleared first).
 * Byte arrays longer than PQ_STATS_MAX_BYTES are truncated (exact flags false). Floats
 * follow the zero rule (a zero min is -0.0, a zero max +0.0). Returns false when there is
 * no value; *max_ok is false when a truncated max cannot be incremented.
 */
#define PQ_STATS_MAX_BYTES 64
/*
 * Byte-array statistics are tracked on at most this many bytes of each value: a prefix longer
 * than PQ_STATS_MAX_BYTES (plus a UTF-8 sequence) and than Iceberg's 16-code-point bounds, so
 * the min and max written are the ones the whole values give (a prefix orders no later than its
 * value; a value between a prefix and its whole shares that prefix), and long ones stay inexact.
 */
#define PQ_STATS_KEEP_BYTES (PQ_STATS_MAX_BYTES + 8)
bool pq_stats_encode(floe_buf *min, floe_buf *max, bool *min_exact, bool *max_exact,
		     bool *max_ok, const pq_col *c, const pq_stats *s);
/* The tracked min or max as PLAIN bytes, untouched (for the Iceberg bounds). */
void pq_stats_plain(floe_buf *out, const pq_col *c, const pq_stats *s, bool upper);

/* The footer record of one column chunk. */
typedef struct pq_chunk_rec {
	int64_t dict_offset; /* -1: no dictionary page */
	int64_t data_offset;
	int64_t num_values, uncompressed, compressed;
	uint32_t encodings;
	bool has_minmax, min_exact, max_exact, max_ok;
	uint8_t *min, *max;
	size_t min_len, max_len;
	int64_t nulls, nans;
} pq_chunk_rec;

typedef struct pq_rg_rec {
	pq_chunk_rec *chunks;
	int64_t num_rows, file_offset, total_byte_size, total_compressed;
} pq_rg_rec;

struct floe_parquet_writer {
	floe_arena *arena;
	floe_parquet_writer_opts opts;
	floe_parquet_sink sink;     /* owned: published by close, aborted otherwise */
	bool has_sink, failed;
	const floe_parquet_field *fields; /* the writer's copy of the top-level fields */
	size_t n_fields;
	pq_col *cols;               /* one per leaf, depth-first */
	size_t n_cols;
	pq_codec *codec;
	floe_buf out;               /* bytes not yet written to the sink */
	int64_t pos;                /* file position after `out` */
	floe_buf body, comp, hdr, min, max; /* scratch */
	pq_rg_rec *rgs;
	size_t n_rgs, cap_rgs;
	int64_t rg_rows, total_rows;
};

/* The FileMetaData of `w`'s file, Thrift compact, appended to `meta` (parquet_footer.c). */
int pq_footer_encode(floe_buf *meta, const floe_parquet_writer *w);

#endif
