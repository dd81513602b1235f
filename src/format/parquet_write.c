/*
 * parquet_write.c — the Parquet writer: file and row groups, page assembly, and the per-file
 * statistics Iceberg's manifest needs (see parquet.h for the contract); the footer's
 * FileMetaData is encoded in parquet_footer.c. Bytes go to the caller's sink, never a file.
 *
 * Layout: "PAR1", then per row group each column chunk in schema order (its dictionary page
 * first when it has one, then its data pages), then the footer (FileMetaData, Thrift
 * compact), its 4-byte little-endian length and "PAR1". A column chunk's pages are built in
 * memory while the row group fills (the dictionary page must precede them and is only
 * final at the end); the row group is written when its buffered size reaches the target,
 * so memory is bounded by one row group plus one slice of rows.
 */
#include "format/parquet_writer_int.h"

#include "base/arena.h"
#include "base/error.h"
#include "base/version.h"
#include "format/thrift_compact.h"

#include <stdlib.h>
#include <string.h>

#define OUT_FLUSH_BYTES ((size_t)1 << 20)
#define SLICE_ROWS 65536
#define BUF_MAX (SIZE_MAX >> 1)

/* ---- output ---- */

static int sink_write(floe_parquet_writer *w, const void *data, size_t len)
{
	return w->sink.write(w->sink.ctx, data, len); /* its error names the object */
}

static int out_flush(floe_parquet_writer *w)
{
	if (w->out.len == 0)
		return 0;
	int rc = sink_write(w, w->out.ptr, w->out.len);
	floe_buf_clear(&w->out);
	return rc;
}

static int out_write(floe_parquet_writer *w, const void *data, size_t len)
{
	w->pos += (int64_t)len;
	if (len >= OUT_FLUSH_BYTES) {
		/* Large pieces (whole column chunks) go straight to the file. */
		if (out_flush(w) < 0)
			return -1;
		return sink_write(w, data, len);
	}
	if (floe_buf_put(&w->out, data, len) < 0)
		return floe_error_set(FLOE_ERR_INTERNAL, "Parquet output buffer overflow");
	return w->out.len >= OUT_FLUSH_BYTES ? out_flush(w) : 0;
}

/* ---- schema ---- */

static int physical_of(const floe_parquet_field *f, int32_t *type_length)
{
	*type_length = 0;
	switch (f->type) {
	case FLOE_VEC_BOOLEAN: return FLOE_PQ_BOOLEAN;
	case FLOE_VEC_INT:
	case FLOE_VEC_DATE: return FLOE_PQ_INT32;
	case FLOE_VEC_LONG:
	case FLOE_VEC_TIME:
	case FLOE_VEC_TIMESTAMP:
	case FLOE_VEC_TIMESTAMPTZ: return FLOE_PQ_INT64;
	case FLOE_VEC_FLOAT: return FLOE_PQ_FLOAT;
	case FLOE_VEC_DOUBLE: return FLOE_PQ_DOUBLE;
	case FLOE_VEC_DECIMAL:
		if (f->precision <= 9)
			return FLOE_PQ_INT32;
		if (f->precision <= 18)
			return FLOE_PQ_INT64;
		*type_length = pq_decimal_bytes(f->precision);
		return FLOE_PQ_FIXED_LEN_BYTE_ARRAY;
	case FLOE_VEC_STRING:
	case FLOE_VEC_BINARY: return FLOE_PQ_BYTE_ARRAY;
	case FLOE_VEC_UUID: *type_length = 16; return FLOE_PQ_FIXED_LEN_BYTE_ARRAY;
	case FLOE_VEC_FIXED: *type_length = f->length; return FLOE_PQ_FIXED_LEN_BYTE_ARRAY;
	case FLOE_VEC_LIST:
	case FLOE_VEC_STRUCT: break;
	}
	return -1;
}

static int kind_of(floe_vec_type t)
{
	switch (t) {
	case FLOE_VEC_FLOAT:
	case FLOE_VEC_DOUBLE: return PQ_K_FLOAT;
	case FLOE_VEC_DECIMAL: return PQ_K_DEC;
	case FLOE_VEC_STRING:
	case FLOE_VEC_BINARY:
	case FLOE_VEC_UUID:
	case FLOE_VEC_FIXED: return PQ_K_BYTES;
	default: return PQ_K_INT;
	}
}

static int bad_field(const floe_parquet_field *f, const char *why)
{
	floe_error_set(FLOE_ERR_USAGE, "cannot write field \"%s\" (id %d) to Parquet: %s",
		       f->name ? f->name : "", (int)f->id, why);
	return -1;
}

static int check_primitive(const floe_parquet_field *f)
{
	if ((int)f->type < FLOE_VEC_BOOLEAN || f->type >= FLOE_VEC_LIST)
		return bad_field(f, "unknown or nested type");
	if (f->type == FLOE_VEC_DECIMAL &&
	    (f->precision < 1 || f->precision > 38 || f->scale < 0 || f->scale > f->precision))
		return bad_field(f, "decimal precision must be 1..38 and scale 0..precision");
	if (f->type == FLOE_VEC_FIXED && (f->length < 1 || f->length > (1 << 24)))
		return bad_field(f, "fixed length must be 1..16777216");
	return 0;
}

/* A field and everything nested in it; `element`: a list's element, whose name is not used. */
static int check_field(const floe_parquet_field *f, bool element, int depth)
{
	if (!element && (!f->name || !f->name[0]))
		return bad_field(f, "a field needs a name");
	if (f->id < 0)
		return bad_field(f, "field ids are not negative");
	if (depth >= FLOE_PARQUET_MAX_DEPTH)
		return bad_field(f, "fields nest too deep");
	if (f->type == FLOE_VEC_LIST) {
		if (!f->element)
			return bad_field(f, "a list needs an element");
		return check_field(f->element, true, depth + 1);
	}
	if (f->type != FLOE_VEC_STRUCT)
		return check_primitive(f);
	if (!f->children || f->n_children == 0)
		return bad_field(f, "a struct needs at least one field");
	for (size_t i = 0; i < f->n_children; i++) {
		if (check_field(&f->children[i], false, depth + 1) < 0)
			return -1;
		for (size_t j = 0; j < i; j++)
			if (strcmp(f->children[i].name, f->children[j].name) == 0)
				return bad_field(&f->children[i], "two fields of a struct share the name");
	}
	return 0;
}

/* A deep copy of a field tree in `a`: the writer outlives what open borrowed. */
static void copy_field(floe_arena *a, floe_parquet_field *dst, const floe_parquet_field *src)
{
	*dst = *src;
	dst->name = floe_arena_strdup(a, src->name ? src->name : "element");
	if (src->element) {
		floe_parquet_field *e = floe_arena_alloc(a, sizeof(*e));
		copy_field(a, e, src->element);
		dst->element = e;
	}
	if (src->type == FLOE_VEC_STRUCT) {
		floe_parquet_field *ch = floe_arena_alloc(a, src->n_children * sizeof(*ch));
		for (size_t i = 0; i < src->n_children; i++)
			copy_field(a, &ch[i], &src->children[i]);
		dst->children = ch;
	}
}

static size_t count_leaves(const floe_parquet_field *f)
{
	if (f->type == FLOE_VEC_LIST)
		return count_leaves(f->element);
	if (f->type != FLOE_VEC_STRUCT)
		return 1;
	size_t n = 0;
	for (size_t i = 0; i < f->n_children; i++)
		n += count_leaves(&f->children[i]);
	return n;
}

/* The path from a top-level field to the leaf being visited (collect_leaves). */
typedef struct leaf_path {
	size_t top;
	pq_node nodes[FLOE_PARQUET_MAX_DEPTH + 1];
	const char *names[2 * FLOE_PARQUET_MAX_DEPTH + 2]; /* path_in_schema */
	const char *fields[FLOE_PARQUET_MAX_DEPTH + 1];    /* named fields, for messages */
	size_t n_nodes, n_names, n_fields;
	int def, rep;
} leaf_path;

static const char *joined(floe_arena *a, const char *const *names, size_t n)
{
	floe_buf b = FLOE_BUF_INIT;
	for (size_t i = 0; i < n; i++) {
		if (i)
			floe_buf_putc(&b, '.');
		floe_buf_puts(&b, names[i]);
	}
	const char *s = floe_arena_strndup(a, floe_buf_cstr(&b), b.len);
	floe_buf_free(&b);
	return s;
}

static void col_init(floe_parquet_writer *w, pq_col *c, const floe_parquet_field *leaf,
		     const leaf_path *lp, size_t i)
{
	memset(c, 0, sizeof(*c));
	pq_node *nodes = floe_arena_alloc(w->arena, lp->n_nodes * sizeof(pq_node));
	const char **names = floe_arena_alloc(w->arena, lp->n_names * sizeof(char *));
	memcpy(nodes, lp->nodes, lp->n_nodes * sizeof(pq_node));
	memcpy(names, lp->names, lp->n_names * sizeof(char *));
	c->name = joined(w->arena, lp->fields, lp->n_fields);
	c->top = lp->top;
	c->nodes = nodes;
	c->n_nodes = lp->n_nodes;
	c->schema_path = names;
	c->n_schema_path = lp->n_names;
	c->top_id = w->fields[lp->top].id;
	c->field_id = leaf->id;
	c->vtype = leaf->type;
	c->precision = leaf->precision;
	c->scale = leaf->scale;
	c->width = leaf->type == FLOE_VEC_UUID ? 16 : leaf->length;
	c->dec_limit = 1;
	for (int p = 0; p < c->precision && p < 19; p++)
		c->dec_limit *= 10;
	c->physical = physical_of(leaf, &c->type_length);
	c->kind = kind_of(leaf->type);
	c->list = lp->n_nodes == 2 && nodes[0].type == FLOE_VEC_LIST;
	c->optional = nodes[0].optional;
	c->elem_optional = c->list && nodes[1].optional;
	c->nested = lp->n_nodes > 1 && !c->list;
	c->max_def = lp->def;
	c->max_rep = lp->rep;
	c->opts = &w->opts;
	c->dict_mode = leaf->type == FLOE_VEC_BOOLEAN || w->opts.dictionary_bytes == 0
			       ? PQ_DICT_OFF : PQ_DICT_TRIAL;
	floe_buf_init(&c->plain, BUF_MAX);
	floe_buf_init(&c->dict, BUF_MAX);
	floe_buf_init(&c->chunk, BUF_MAX);
	floe_buf_init(&c->cstats.bmin, BUF_MAX);
	floe_buf_init(&c->cstats.bmax, BUF_MAX);
	floe_buf_init(&c->fstats.bmin, BUF_MAX);
	floe_buf_init(&c->fstats.bmax, BUF_MAX);
	c->leaf.element = i;
	c->leaf.path = c->name;
	c->leaf.max_def = c->max_def;
	c->leaf.max_rep = c->max_rep;
	c->leaf.has_field_id = true;
	c->leaf.field_id = c->field_id;
	c->leaf.top_field_id = c->top_id;
	c->leaf.in_list = c->max_rep > 0; /* no Iceberg bounds inside a list, at any depth */
	c->leaf.vtype = c->vtype;
	c->leaf.precision = c->precision;
	c->leaf.scale = c->scale;
	c->leaf.width = c->type_length;
}

/* Depth-first over `f` (named `name` in the schema), one column per leaf into w->cols. */
static void collect_leaves(floe_parquet_writer *w, leaf_path *lp, const floe_parquet_field *f,
			   const char *name, bool named)
{
	pq_node *node = &lp->nodes[lp->n_nodes++];
	size_t names = lp->n_names, fields = lp->n_fields;
	int def = lp->def, rep = lp->rep;
	*node = (pq_node){ .type = f->type, .optional = !f->required };
	lp->names[lp->n_names++] = name;
	if (named)
		lp->fields[lp->n_fields++] = name;
	lp->def += node->optional;
	if (f->type == FLOE_VEC_STRUCT) {
		for (size_t i = 0; i < f->n_children; i++) {
			node->child = (uint32_t)i;
			collect_leaves(w, lp, &f->children[i], f->children[i].name, true);
		}
	} else if (f->type == FLOE_VEC_LIST) {
		node->rep = (uint8_t)++lp->rep;
		lp->def++;
		lp->names[lp->n_names++] = "list";
		collect_leaves(w, lp, f->element, "element", false);
	} else {
		col_init(w, &w->cols[w->n_cols], f, lp, w->n_cols);
		w->n_cols++;
	}
	lp->n_nodes--;
	lp->n_names = names;
	lp->n_fields = fields;
	lp->def = def;
	lp->rep = rep;
}

/* ---- pages ---- */

static int put_levels(floe_buf *body, const uint8_t *lv, size_t n, int max_level)
{
	size_t at = body->len;
	uint8_t *len_at = pq_buf_extend(body, 4);
	if (!len_at || pq_rle_encode_u8(body, lv, n, pq_bit_width((uint64_t)max_level)) < 0)
		return -1;
	uint32_t len = (uint32_t)(body->len - at - 4);
	memcpy(body->ptr + at, &len, 4);
	return 0;
}

static int put_bools(floe_buf *body, const uint8_t *b, size_t n)
{
	uint8_t *dst = pq_buf_extend(body, (n + 7) / 8);
	if (!dst)
		return -1;
	memset(dst, 0, (n + 7) / 8);
	for (size_t i = 0; i < n; i++)
		dst[i >> 3] |= (uint8_t)(b[i] << (i & 7));
	return 0;
}

static int dict_bit_width(const pq_col *c)
{
	int bw = pq_bit_width(c->n_dict ? c->n_dict - 1 : 0);
	return bw ? bw : 1; /* width 0 is legal, but some readers have mishandled it */
}

/* End of the dictionary trial: keep the dictionary only when it makes the page smaller. */
static bool decide_dictionary(pq_col *c)
{
	if (c->dict_mode == PQ_DICT_OFF)
		return false;
	if (c->dict_mode == PQ_DICT_TRIAL) {
		size_t with = c->dict.len + (c->n_idx * (size_t)dict_bit_width(c) + 7) / 8 + 8;
		if (with >= c->plain.len) {
			c->dict_mode = PQ_DICT_OFF;
			pq_dict_reset(c);
			return false;
		}
		c->dict_mode = PQ_DICT_ON;
	}
	return true;
}

/*
 * After the trial, a page more than half of whose values were new to the dictionary: the
 * column's values hardly repeat (keys, UUIDs), so the dictionary would only grow to its limit
 * and the hash lookups cost more than they save. The rest of the chunk is PLAIN.
 */
static bool high_cardinality(const pq_col *c)
{
	return (size_t)(c->n_dict - c->page_dict_start) * 2 > c->n_idx;
}

/* A page's PLAIN buffer larger than this (one huge value made it so) is freed once copied. */
#define PLAIN_KEEP_BYTES ((size_t)16 << 20)

/* A page's body: the PLAIN values themselves when there are no levels to put before them, else
 * levels and values assembled in w->body. */
typedef struct page_bytes {
	const char *ptr;
	size_t len;
} page_bytes;

static int page_body(floe_parquet_writer *w, pq_col *c, bool dict, page_bytes *out)
{
	floe_buf *body = &w->body;
	floe_buf_clear(body);
	if (!dict && c->max_rep == 0 && c->max_def == 0 && c->physical != FLOE_PQ_BOOLEAN) {
		*out = (page_bytes){ c->plain.ptr, c->plain.len }; /* no copy */
		return 0;
	}
	if (c->max_rep > 0 && put_levels(body, c->rep, c->n_lvl, c->max_rep) < 0)
		return -1;
	if (c->max_def > 0 && put_levels(body, c->def, c->n_lvl, c->max_def) < 0)
		return -1;
	if (dict) {
		int bw = dict_bit_width(c);
		if (floe_buf_putc(body, (char)bw) < 0 || pq_rle_encode(body, c->idx, c->n_idx, bw) < 0)
			return -1;
	} else if (c->physical == FLOE_PQ_BOOLEAN) {
		if (put_bools(body, (const uint8_t *)c->plain.ptr, c->plain.len) < 0)
			return -1;
	} else if (floe_buf_put(body, c->plain.ptr, c->plain.len) < 0) {
		return -1;
	}
	if (c->plain.cap > PLAIN_KEEP_BYTES) /* copied: give a huge value's bytes back before compressing */
		floe_buf_free(&c->plain);
	*out = (page_bytes){ body->ptr, body->len };
	return 0;
}

/* Header + compressed body of a page into `dst` (`raw_literals`: pq_codec_compress's); returns the header size in *hdr_len. */
static int emit_page(floe_parquet_writer *w, floe_buf *dst, int type, int32_t num_values,
		     int encoding, page_bytes body, bool raw_literals, size_t *hdr_len)
{
	floe_buf_clear(&w->comp);
	if (body.len > INT32_MAX)
		return floe_error_set(FLOE_ERR_USAGE, "a Parquet page would exceed 2 GiB");
	if (pq_codec_compress(w->codec, &w->comp, body.ptr, body.len, raw_literals) < 0)
		return -1;
	if (w->comp.len > INT32_MAX)
		return floe_error_set(FLOE_ERR_USAGE, "a compressed Parquet page would exceed 2 GiB");
	floe_thrift_writer t;
	floe_buf_clear(&w->hdr);
	floe_thrift_writer_init(&t, &w->hdr);
	floe_thrift_struct_begin(&t);
	floe_thrift_field_i32(&t, 1, type);
	floe_thrift_field_i32(&t, 2, (int32_t)body.len);
	floe_thrift_field_i32(&t, 3, (int32_t)w->comp.len);
	/* The spec's page CRC: zlib's CRC-32 of the page as written (compressed), header excluded. */
	floe_thrift_field_i32(&t, 4, (int32_t)pq_page_crc(w->comp.ptr, w->comp.len));
	if (type == PQ_PAGE_DATA) {
		floe_thrift_field_struct(&t, 5);
		floe_thrift_field_i32(&t, 1, num_values);
		floe_thrift_field_i32(&t, 2, encoding);
		floe_thrift_field_i32(&t, 3, PQ_ENC_RLE);
		floe_thrift_field_i32(&t, 4, PQ_ENC_RLE);
		floe_thrift_struct_end(&t);
	} else {
		floe_thrift_field_struct(&t, 7);
		floe_thrift_field_i32(&t, 1, num_values);
		floe_thrift_field_i32(&t, 2, encoding);
		floe_thrift_struct_end(&t);
	}
	floe_thrift_struct_end(&t);
	if (floe_thrift_writer_finish(&t) < 0)
		return -1;
	*hdr_len = w->hdr.len;
	if (floe_buf_put(dst, w->hdr.ptr, w->hdr.len) < 0 ||
	    floe_buf_put(dst, w->comp.ptr, w->comp.len) < 0)
		return floe_error_set(FLOE_ERR_INTERNAL, "column chunk buffer overflow");
	return 0;
}

static void page_reset(pq_col *c)
{
	floe_buf_clear(&c->plain);
	c->n_idx = c->n_lvl = 0;
	c->page_rows = c->page_values = 0;
	c->page_full = false;
}

int pq_page_flush(floe_parquet_writer *w, pq_col *c)
{
	if (c->page_rows == 0) {
		c->page_full = false;
		return 0;
	}
	if (c->page_values > INT32_MAX)
		return floe_error_set(FLOE_ERR_USAGE, "a Parquet page would hold more than 2^31 values");
	bool trial = c->dict_mode == PQ_DICT_TRIAL, dict = decide_dictionary(c);
	size_t hdr_len = 0;
	int enc = dict ? PQ_ENC_RLE_DICTIONARY : PQ_ENC_PLAIN;
	page_bytes body;
	size_t chunk_before = c->chunk.len;
	if (page_body(w, c, dict, &body) < 0 ||
	    emit_page(w, &c->chunk, PQ_PAGE_DATA, (int32_t)c->page_values, enc, body, c->raw_literals, &hdr_len) < 0)
		return floe_error_context("while writing a page of column \"%s\"", c->name);
	/* A page of 64 KiB or more that zstd shrank by under 1/32 (sorted random ids: 2 %) holds values
	   entropy coding cannot help: this column's next pages keep their literals raw, and decode at
	   memory speed — a tenth of the time of a merge's key pass over uuid keys. */
	if (w->opts.codec == FLOE_PARQUET_ZSTD && !c->raw_literals && body.len >= 65536 &&
	    (c->chunk.len - chunk_before - hdr_len) * 32 >= body.len * 31)
		c->raw_literals = true;
	c->chunk_uncompressed += (int64_t)(hdr_len + body.len);
	if (c->plain.cap > PLAIN_KEEP_BYTES) /* a huge value's bytes, compressed: give them back */
		floe_buf_free(&c->plain);
	c->encodings |= 1u << enc;
	if (c->max_def > 0 || c->max_rep > 0)
		c->encodings |= 1u << PQ_ENC_RLE;
	if (dict) {
		c->chunk_has_dict = true;
		if (c->dict.len > c->opts->dictionary_bytes || (!trial && high_cardinality(c)))
			c->dict_mode = PQ_DICT_OFF; /* keep the dictionary for the pages using it */
		c->page_dict_start = c->n_dict;
	}
	page_reset(c);
	return 0;
}

/* ---- row groups ---- */

static int write_dictionary_page(floe_parquet_writer *w, pq_col *c, pq_chunk_rec *rec)
{
	size_t hdr_len = 0;
	floe_buf page = FLOE_BUF_INIT;
	floe_buf_init(&page, BUF_MAX);
	int rc = -1;
	if (emit_page(w, &page, PQ_PAGE_DICTIONARY, (int32_t)c->n_dict, PQ_ENC_PLAIN,
		      (page_bytes){ c->dict.ptr, c->dict.len }, false, &hdr_len) < 0)
		goto cleanup;
	rec->dict_offset = w->pos;
	if (out_write(w, page.ptr, page.len) < 0)
		goto cleanup;
	rec->uncompressed += (int64_t)(hdr_len + c->dict.len);
	rec->compressed += (int64_t)page.len;
	rec->encodings |= 1u << PQ_ENC_PLAIN;
	rc = 0;
cleanup:
	floe_buf_free(&page);
	return rc;
}

static void record_stats(floe_parquet_writer *w, pq_col *c, pq_chunk_rec *rec)
{
	rec->nulls = c->cstats.nulls;
	rec->nans = c->cstats.nans;
	rec->has_minmax = pq_stats_encode(&w->min, &w->max, &rec->min_exact, &rec->max_exact,
					  &rec->max_ok, c, &c->cstats);
	if (!rec->has_minmax)
		return;
	rec->min = floe_arena_alloc(w->arena, w->min.len + 1);
	memcpy(rec->min, w->min.ptr, w->min.len);
	rec->min_len = w->min.len;
	rec->max = floe_arena_alloc(w->arena, w->max.len + 1);
	memcpy(rec->max, w->max.ptr, w->max.len);
	rec->max_len = w->max.len;
}

static int write_chunk(floe_parquet_writer *w, pq_col *c, pq_chunk_rec *rec)
{
	if (pq_page_flush(w, c) < 0)
		return -1;
	rec->dict_offset = -1;
	if (c->chunk_has_dict && write_dictionary_page(w, c, rec) < 0)
		return -1;
	rec->data_offset = w->pos;
	if (out_write(w, c->chunk.ptr, c->chunk.len) < 0)
		return -1;
	rec->num_values = c->cstats.values;
	rec->uncompressed += c->chunk_uncompressed;
	rec->compressed += (int64_t)c->chunk.len;
	rec->encodings |= c->encodings;
	record_stats(w, c, rec);
	pq_stats_merge(&c->fstats, &c->cstats, c->kind);
	c->column_size += rec->compressed;
	/* A fresh chunk: new dictionary, new trial. */
	pq_stats_reset(&c->cstats);
	floe_buf_clear(&c->chunk);
	c->chunk_uncompressed = 0;
	c->encodings = 0;
	pq_dict_reset(c);
	c->dict_mode = w->opts.dictionary_bytes && c->vtype != FLOE_VEC_BOOLEAN ? PQ_DICT_TRIAL
									      : PQ_DICT_OFF;
	return 0;
}

static int flush_row_group(floe_parquet_writer *w)
{
	if (w->rg_rows == 0)
		return 0;
	if (w->n_rgs == INT16_MAX)
		return floe_error_set(FLOE_ERR_USAGE, "a Parquet file holds at most 32767 row groups");
	if (w->n_rgs == w->cap_rgs) {
		w->cap_rgs = w->cap_rgs ? w->cap_rgs * 2 : 16;
		w->rgs = floe_xrealloc(w->rgs, w->cap_rgs * sizeof(pq_rg_rec));
	}
	pq_rg_rec *rg = &w->rgs[w->n_rgs];
	memset(rg, 0, sizeof(*rg));
	rg->chunks = floe_arena_alloc(w->arena, w->n_cols * sizeof(pq_chunk_rec));
	rg->num_rows = w->rg_rows;
	rg->file_offset = w->pos;
	for (size_t i = 0; i < w->n_cols; i++) {
		if (write_chunk(w, &w->cols[i], &rg->chunks[i]) < 0)
			return floe_error_context("while writing row group %zu", w->n_rgs);
		rg->total_byte_size += rg->chunks[i].uncompressed;
		rg->total_compressed += rg->chunks[i].compressed;
	}
	w->n_rgs++;
	w->total_rows += w->rg_rows;
	w->rg_rows = 0;
	return 0;
}

static size_t buffered(const floe_parquet_writer *w)
{
	size_t n = 0;
	for (size_t i = 0; i < w->n_cols; i++)
		n += pq_col_buffered(&w->cols[i]);
	return n;
}

/* ---- batches ---- */

/* A vector (and what it holds) of the field's shape, with `rows` rows. */
static int check_vector(const floe_parquet_field *f, const floe_vector *v, size_t rows, const char *top)
{
	if (v->len != rows)
		return floe_error_set(FLOE_ERR_USAGE, "column \"%s\" has %zu rows where %zu are expected", top,
				      v->len, rows);
	if (v->type != f->type || (f->type == FLOE_VEC_LIST && !v->child) ||
	    (f->type == FLOE_VEC_STRUCT && v->n_children != f->n_children))
		return floe_error_set(FLOE_ERR_USAGE, "column \"%s\" holds a vector of %s where its field is %s",
				      top, floe_vec_type_name(v->type), floe_vec_type_name(f->type));
	if (f->type == FLOE_VEC_LIST) {
		if (rows && ((size_t)v->offsets[rows] > v->child->len || v->offsets[0] != 0))
			return floe_error_set(FLOE_ERR_USAGE, "list column \"%s\" points past its elements", top);
		return check_vector(f->element, v->child, v->child->len, top);
	}
	for (size_t i = 0; f->type == FLOE_VEC_STRUCT && i < f->n_children; i++)
		if (check_vector(&f->children[i], &v->children[i], rows, top) < 0)
			return -1;
	return 0;
}

/* PLAIN-ish bytes of rows [a, b) of `v` and everything nested in them. */
static size_t rows_bytes(const floe_vector *v, size_t a, size_t b)
{
	if (v->type == FLOE_VEC_LIST)
		return rows_bytes(v->child, (size_t)floe_vector_offset(v, a), (size_t)floe_vector_offset(v, b));
	if (v->type == FLOE_VEC_STRING || v->type == FLOE_VEC_BINARY)
		return (size_t)(floe_vector_offset(v, b) - floe_vector_offset(v, a)) + 4 * (b - a);
	size_t n = (b - a) * floe_vec_type_width(v->type, v->width);
	for (size_t i = 0; i < v->n_children; i++)
		n += rows_bytes(&v->children[i], a, b);
	return n;
}

/* Rows from r that make one slice: at most SLICE_ROWS, and a bounded number of bytes. */
static size_t slice_rows(const floe_parquet_writer *w, const floe_vector *cols, size_t r, size_t n)
{
	size_t k = n - r < SLICE_ROWS ? n - r : SLICE_ROWS;
	size_t limit = w->opts.row_group_bytes / 8;
	while (k > 1) {
		size_t bytes = 0;
		for (size_t i = 0; i < w->n_fields; i++)
			bytes += rows_bytes(&cols[i], r, r + k);
		if (bytes <= limit)
			break;
		k /= 2;
	}
	return k;
}

int floe_parquet_writer_write_batch(floe_parquet_writer *w, const floe_vector *columns,
				    size_t n_columns)
{
	if (w->failed)
		return floe_error_set(FLOE_ERR_INTERNAL, "the Parquet writer failed earlier; abort it");
	if (n_columns != w->n_fields)
		return floe_error_set(FLOE_ERR_USAGE, "a batch of %zu columns for a file of %zu fields",
				      n_columns, w->n_fields);
	size_t rows = n_columns ? columns[0].len : 0;
	for (size_t i = 0; i < w->n_fields; i++)
		if (check_vector(&w->fields[i], &columns[i], rows, w->fields[i].name) < 0)
			return -1;
	for (size_t r = 0; r < rows;) {
		size_t k = slice_rows(w, columns, r, rows);
		for (size_t i = 0; i < w->n_cols; i++) {
			if (pq_col_append(w, &w->cols[i], &columns[w->cols[i].top], r, r + k) < 0) {
				w->failed = true;
				return -1;
			}
		}
		w->rg_rows += (int64_t)k;
		r += k;
		if (buffered(w) >= w->opts.row_group_bytes && flush_row_group(w) < 0) {
			w->failed = true;
			return -1;
		}
	}
	return 0;
}

/* ---- footer (encoded in parquet_footer.c) ---- */

static int write_footer(floe_parquet_writer *w)
{
	floe_buf meta = FLOE_BUF_INIT;
	int rc = -1;
	if (pq_footer_encode(&meta, w) < 0)
		goto cleanup;
	uint32_t len = (uint32_t)meta.len;
	if (out_write(w, meta.ptr, meta.len) < 0 || out_write(w, &len, 4) < 0 ||
	    out_write(w, PQ_MAGIC, 4) < 0 || out_flush(w) < 0)
		goto cleanup;
	rc = 0;
cleanup:
	floe_buf_free(&meta);
	return rc;
}

/* ---- open / close ---- */

static int check_opts(const floe_parquet_writer_opts *o)
{
	if (!floe_parquet_codec_name(o->codec))
		return floe_error_set(FLOE_ERR_USAGE, "unknown Parquet codec %d", (int)o->codec);
	if (o->page_rows < 1 || o->page_bytes < 1 || o->row_group_bytes < 1)
		return floe_error_set(FLOE_ERR_USAGE,
				      "Parquet page rows, page bytes and row group bytes must be positive");
	if (o->page_rows > INT32_MAX / 4)
		return floe_error_set(FLOE_ERR_USAGE, "Parquet page rows must be below 2^29");
	return 0;
}

static int writer_new(floe_parquet_writer **out, const floe_parquet_field *fields,
		      size_t n_fields, const floe_parquet_writer_opts *opts)
{
	floe_parquet_writer_opts defaults = FLOE_PARQUET_WRITER_OPTS_INIT;
	*out = NULL;
	if (!opts)
		opts = &defaults;
	if (check_opts(opts) < 0)
		return -1;
	if (n_fields == 0)
		return floe_error_set(FLOE_ERR_USAGE, "a Parquet file needs at least one field");
	for (size_t i = 0; i < n_fields; i++) {
		if (check_field(&fields[i], false, 0) < 0)
			return -1;
		for (size_t j = 0; j < i; j++)
			if (strcmp(fields[i].name, fields[j].name) == 0)
				return bad_field(&fields[i], "two fields share the name");
	}
	floe_parquet_writer *w = floe_xcalloc(1, sizeof(*w));
	w->arena = floe_arena_new();
	w->opts = *opts;
	if (pq_codec_new(&w->codec, opts->codec, opts->zstd_level) < 0) {
		floe_arena_free(w->arena);
		free(w);
		return -1;
	}
	floe_parquet_field *copy = floe_arena_alloc(w->arena, n_fields * sizeof(*copy));
	size_t leaves = 0;
	for (size_t i = 0; i < n_fields; i++) {
		copy_field(w->arena, &copy[i], &fields[i]);
		leaves += count_leaves(&fields[i]);
	}
	w->fields = copy;
	w->n_fields = n_fields;
	w->cols = floe_arena_alloc(w->arena, leaves * sizeof(pq_col));
	for (size_t i = 0; i < n_fields; i++) {
		leaf_path lp = { .top = i };
		collect_leaves(w, &lp, &copy[i], copy[i].name, true);
	}
	floe_buf_init(&w->out, BUF_MAX);
	floe_buf_init(&w->body, BUF_MAX);
	floe_buf_init(&w->comp, BUF_MAX);
	floe_buf_init(&w->hdr, BUF_MAX);
	floe_buf_init(&w->min, BUF_MAX);
	floe_buf_init(&w->max, BUF_MAX);
	*out = w;
	return 0;
}

static void writer_free(floe_parquet_writer *w)
{
	for (size_t i = 0; i < w->n_cols; i++)
		pq_col_free(&w->cols[i]);
	pq_codec_free(w->codec);
	floe_buf_free(&w->out);
	floe_buf_free(&w->body);
	floe_buf_free(&w->comp);
	floe_buf_free(&w->hdr);
	floe_buf_free(&w->min);
	floe_buf_free(&w->max);
	free(w->rgs);
	floe_arena_free(w->arena);
	free(w);
}

int floe_parquet_writer_open(floe_parquet_writer **out, const floe_parquet_sink *sink,
			     const floe_parquet_field *fields, size_t n_fields,
			     const floe_parquet_writer_opts *opts)
{
	floe_parquet_writer *w;
	*out = NULL;
	if (writer_new(&w, fields, n_fields, opts) < 0) {
		sink->abort(sink->ctx);
		return -1;
	}
	w->sink = *sink;
	w->sink.name = floe_arena_strndup(w->arena, sink->name, strlen(sink->name));
	w->has_sink = true;
	if (out_write(w, PQ_MAGIC, 4) < 0) {
		floe_parquet_writer_abort(w);
		return -1;
	}
	*out = w;
	return 0;
}

void floe_parquet_writer_abort(floe_parquet_writer *w)
{
	if (!w)
		return;
	if (w->has_sink)
		w->sink.abort(w->sink.ctx);
	w->has_sink = false;
	writer_free(w);
}

static void column_stats(floe_parquet_column_stats *s, pq_col *c, floe_arena *arena,
			 floe_buf *tmp, floe_buf *bound)
{
	memset(s, 0, sizeof(*s));
	s->field_id = c->field_id;
	s->column_size = c->column_size;
	s->value_count = c->fstats.values;
	s->null_count = c->fstats.nulls;
	s->has_nan_count = c->kind == PQ_K_FLOAT;
	s->nan_count = c->fstats.nans;
	if (!c->fstats.has)
		return;
	for (int upper = 0; upper < 2; upper++) {
		pq_stats_plain(tmp, c, &c->fstats, upper);
		if (!pq_iceberg_bound(bound, &c->leaf, c->physical, (const uint8_t *)tmp->ptr, tmp->len,
				      upper))
			continue;
		uint8_t *copy = floe_arena_alloc(arena, bound->len + 1);
		memcpy(copy, bound->ptr, bound->len);
		if (upper)
			s->has_upper = true, s->upper = copy, s->upper_len = bound->len;
		else
			s->has_lower = true, s->lower = copy, s->lower_len = bound->len;
	}
}

static void file_stats(floe_parquet_file_stats *out, floe_parquet_writer *w, floe_arena *arena)
{
	floe_buf tmp = FLOE_BUF_INIT, bound = FLOE_BUF_INIT;
	int64_t *splits = floe_arena_alloc(arena, (w->n_rgs + 1) * sizeof(int64_t));
	floe_parquet_column_stats *cols = floe_arena_alloc(arena, w->n_cols * sizeof(*cols));
	for (size_t g = 0; g < w->n_rgs; g++)
		splits[g] = w->rgs[g].file_offset;
	for (size_t i = 0; i < w->n_cols; i++)
		column_stats(&cols[i], &w->cols[i], arena, &tmp, &bound);
	out->record_count = w->total_rows;
	out->file_size = w->pos;
	out->split_offsets = splits;
	out->n_split_offsets = w->n_rgs;
	out->columns = cols;
	out->n_columns = w->n_cols;
	floe_buf_free(&tmp);
	floe_buf_free(&bound);
}

int floe_parquet_writer_close(floe_parquet_file_stats *out, floe_parquet_writer *w,
			      floe_arena *arena)
{
	int rc = -1;
	if (w->failed) {
		floe_error_set(FLOE_ERR_INTERNAL, "the Parquet writer failed earlier; nothing to close");
		goto cleanup;
	}
	if (flush_row_group(w) < 0 || write_footer(w) < 0)
		goto cleanup;
	w->has_sink = false; /* publish frees the sink, whatever it returns */
	if (w->sink.publish(w->sink.ctx) < 0)
		goto cleanup;
	if (out)
		file_stats(out, w, arena);
	rc = 0;
cleanup:
	if (rc < 0) {
		floe_error_context("while writing Parquet file \"%s\"", w->sink.name);
		floe_parquet_writer_abort(w);
	} else {
		writer_free(w);
	}
	return rc;
}
