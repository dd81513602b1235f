/*
 * parquet_reader_int.h — the reader's handle, shared by parquet_read.c (open, footer,
 * schema, file statistics), parquet_decode.c (pages into vectors or levels) and
 * parquet_assemble.c (top-level fields rebuilt from their leaves).
 */
#ifndef FLOE_FORMAT_PARQUET_READER_INT_H
#define FLOE_FORMAT_PARQUET_READER_INT_H

#include "format/parquet_int.h"

/*
 * A top-level field as a tree of what it reads into: structs, lists (the 3-level layout, its
 * repeated middle group folded into the list) and primitive leaves. A node is null below
 * definition level `def`; a list with elements reaches def + 1. Its leaves are contiguous, and
 * the first (`leaf`) decides the shape of each of its values (the others must agree).
 */
typedef struct pq_shape pq_shape;
struct pq_shape {
	floe_vec_type type;           /* STRUCT, LIST, or the leaf's value type */
	int def;                      /* the definition level at which it is present */
	int rep;                      /* LIST: the repetition level of its elements after the first */
	size_t leaf, n_leaves;        /* global leaf indexes */
	const pq_shape *kids;         /* STRUCT: its fields; LIST: the element */
	size_t n_kids;
};

/* A column chunk's level entries and present values, as stored, with a read cursor. */
typedef struct pq_levels {
	uint8_t *def, *rep;
	size_t n, cap;
	floe_vector vals;             /* the values of the entries at the leaf's max_def, in order */
	size_t at, vi;                /* next entry, next value */
} pq_levels;

struct floe_parquet_reader {
	floe_arena *arena;            /* the footer model and every string in it */
	floe_parquet_reader_opts opts;
	floe_parquet_source source;   /* owned when has_source: closed on free */
	bool has_source;
	const uint8_t *mem;           /* a reader over memory instead */
	char *path;                   /* for messages: the source's name or "(memory)" */
	floe_parquet_meta meta;
	int64_t data_end;             /* first byte of the footer: chunks must end before */
	pq_codec *codecs[8];          /* created on first use, by codec number */
	floe_buf own_chunk, own_page; /* column chunk bytes and a decompressed page, without opts.scratch */
	floe_buf *chunk, *page;       /* those, or the shared scratch's */
	floe_vector *vals;            /* a page's values: the scratch's, or NULL (the decoder's own) */
	const pq_shape **shapes;      /* per top-level field; NULL when floe cannot read it */
	floe_parquet_leaf *values;    /* per leaf: how its values read, wherever it is nested */
};

/* Copy `len` bytes at `offset` of the file into `dst`. */
int pq_read_at(floe_parquet_reader *r, int64_t offset, size_t len, uint8_t *dst);

/* The compressed bytes of leaf `leaf`'s chunk in row group `rg`, in r->chunk (valid until the
 * next call), and its metadata. */
int pq_chunk_bytes(const uint8_t **data, const floe_parquet_column_chunk **cc, floe_parquet_reader *r,
		   size_t rg, size_t leaf);

/*
 * Decode the column chunk bytes of `leaf` in row group `rg` into `out` (parquet_decode.c):
 * initialised, or with `reuse` refilled keeping its memory (floe_vector_reuse).
 */
int pq_decode_chunk(floe_vector *out, floe_parquet_reader *r, const floe_parquet_leaf *leaf,
		    const floe_parquet_column_chunk *cc, const uint8_t *data, size_t len, bool reuse);

/* floe_parquet_reader_read_column, with `reuse` as pq_decode_chunk's. */
int pq_read_column(floe_vector *out, floe_parquet_reader *r, size_t row_group, size_t leaf, bool reuse);

struct floe_parquet_scratch {
	floe_buf chunk, page;
	floe_vector vals;
};

/* The same chunk as its level entries and values, for record assembly (zeroed `out`; free it
 * with pq_levels_free). */
int pq_decode_levels(pq_levels *out, floe_parquet_reader *r, const floe_parquet_leaf *leaf,
		     const floe_parquet_column_chunk *cc, const uint8_t *data, size_t len);
void pq_levels_free(pq_levels *lv);

/* What decoding FileMetaData saw (parquet_footer.c), for the reader's structural checks. */
typedef struct rg_parse {
	floe_parquet_row_group *rg;
	unsigned *chunk_seen; /* per column */
	bool has_columns, has_total, has_rows;
} rg_parse;

typedef struct fm_parse {
	floe_parquet_meta *m;
	rg_parse *rgs;
	bool has_version, has_schema, has_rows, has_row_groups;
} fm_parse;

/* Decode FileMetaData from `t` into p->m, every string and list in `a` (parquet_footer.c). */
typedef struct floe_thrift_reader floe_thrift_reader;
int pq_footer_decode(floe_thrift_reader *t, floe_arena *a, fm_parse *p);

#endif
