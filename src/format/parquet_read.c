/*
 * parquet_read.c — opening a Parquet file from a source (or memory): magic, footer length,
 * FileMetaData (decoded by parquet_footer.c) into floe_parquet_meta, the schema tree into
 * leaves (levels, field ids, how floe reads each) and top-level fields (the shape each is
 * rebuilt into), structural checks on row groups and chunks, and Iceberg metrics from the
 * footer.
 *
 * Everything in the model lives in the reader's arena; binary statistics point into the
 * footer bytes, which live there too.
 */
#include "format/parquet_reader_int.h"

#include "base/arena.h"
#include "base/error.h"
#include "format/thrift_compact.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SCHEMA_DEPTH 64

static int64_t chunk_start(const floe_parquet_column_chunk *cc);

/* ---- schema tree → leaves ---- */

static int corrupt(const floe_parquet_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int corrupt(const floe_parquet_reader *r, const char *fmt, ...)
{
	char why[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	floe_error_set(FLOE_ERR_CHECK, "Parquet file \"%s\" is malformed: %s", r->path, why);
	return -1;
}

/* How floe reads a leaf of physical type / annotations `e`. */
static void classify(floe_parquet_leaf *l, const floe_parquet_schema_element *e)
{
	int lt = e->logical, ct = e->converted_type;
	bool dec = lt == FLOE_PQ_LT_DECIMAL || (lt == 0 && ct == PQ_CT_DECIMAL);
	l->vtype = 0;
	l->precision = lt == FLOE_PQ_LT_DECIMAL ? e->lt_precision : e->precision;
	l->scale = lt == FLOE_PQ_LT_DECIMAL ? e->lt_scale : e->scale;
	l->width = e->type_length;
	if (dec) {
		if (l->precision < 1 || l->precision > 38 || l->scale < 0 || l->scale > l->precision ||
		    (e->type == FLOE_PQ_FIXED_LEN_BYTE_ARRAY && (e->type_length < 1 || e->type_length > 16)) ||
		    e->type == FLOE_PQ_BOOLEAN || e->type == FLOE_PQ_FLOAT || e->type == FLOE_PQ_DOUBLE ||
		    e->type == FLOE_PQ_INT96)
			l->unsupported = "a decimal floe cannot hold (precision above 38 or a bad layout)";
		else
			l->vtype = FLOE_VEC_DECIMAL;
		return;
	}
	switch (e->type) {
	case FLOE_PQ_BOOLEAN: l->vtype = FLOE_VEC_BOOLEAN; return;
	case FLOE_PQ_FLOAT: l->vtype = FLOE_VEC_FLOAT; return;
	case FLOE_PQ_DOUBLE: l->vtype = FLOE_VEC_DOUBLE; return;
	case FLOE_PQ_INT32:
		if (lt == FLOE_PQ_LT_DATE || (lt == 0 && ct == PQ_CT_DATE))
			l->vtype = FLOE_VEC_DATE;
		else if (lt == FLOE_PQ_LT_TIME || (lt == 0 && ct == PQ_CT_TIME_MILLIS))
			l->vtype = FLOE_VEC_TIME; /* milliseconds, widened on read */
		else if ((lt == FLOE_PQ_LT_INTEGER && !e->lt_signed && e->lt_bit_width == 32) ||
			 ct == 13 /* UINT_32 */)
			l->unsupported = "unsigned 32-bit integers";
		else
			l->vtype = FLOE_VEC_INT;
		return;
	case FLOE_PQ_INT64:
		if (lt == FLOE_PQ_LT_TIMESTAMP) {
			if (e->unit == FLOE_PQ_UNIT_NANOS)
				l->unsupported = "nanosecond timestamps";
			else
				l->vtype = e->utc ? FLOE_VEC_TIMESTAMPTZ : FLOE_VEC_TIMESTAMP;
		} else if (lt == FLOE_PQ_LT_TIME) {
			if (e->unit != FLOE_PQ_UNIT_MICROS)
				l->unsupported = "nanosecond times";
			else
				l->vtype = FLOE_VEC_TIME;
		} else if (lt == 0 && (ct == PQ_CT_TIMESTAMP_MICROS || ct == PQ_CT_TIMESTAMP_MILLIS)) {
			l->vtype = FLOE_VEC_TIMESTAMPTZ; /* the converted types mean UTC-adjusted */
		} else if (lt == 0 && ct == PQ_CT_TIME_MICROS) {
			l->vtype = FLOE_VEC_TIME;
		} else if ((lt == FLOE_PQ_LT_INTEGER && !e->lt_signed) || ct == 14 /* UINT_64 */) {
			l->unsupported = "unsigned 64-bit integers";
		} else {
			l->vtype = FLOE_VEC_LONG;
		}
		return;
	case FLOE_PQ_BYTE_ARRAY:
		l->vtype = lt == FLOE_PQ_LT_STRING || lt == FLOE_PQ_LT_ENUM || lt == FLOE_PQ_LT_JSON ||
				   (lt == 0 && (ct == PQ_CT_UTF8 || ct == 4 || ct == 19))
			       ? FLOE_VEC_STRING : FLOE_VEC_BINARY;
		return;
	case FLOE_PQ_FIXED_LEN_BYTE_ARRAY:
		if (e->type_length < 0) {
			l->unsupported = "a fixed-length column without a length";
		} else if (lt == FLOE_PQ_LT_UUID) {
			if (e->type_length == 16)
				l->vtype = FLOE_VEC_UUID;
			else
				l->unsupported = "a UUID that is not 16 bytes";
		} else {
			l->vtype = FLOE_VEC_FIXED;
		}
		return;
	default:
		l->unsupported = "INT96 or an unknown physical type";
		return;
	}
}

static bool is_list_group(const floe_parquet_schema_element *e)
{
	return (e->logical == FLOE_PQ_LT_LIST || e->converted_type == PQ_CT_LIST) &&
	       e->repetition != FLOE_PQ_REPEATED && e->num_children == 1;
}

/*
 * How floe reads a leaf nested under groups (chain[1..depth]): through structs (groups that
 * are neither repeated nor annotated) in any number, and through at most one 3-level list
 * (<group, LIST> → repeated group of one child → element) whose element is the leaf or a
 * struct around it. Sets in_list and list_def; returns the reason when floe cannot.
 */
static const char *nested_layout(floe_parquet_leaf *l, const floe_parquet_meta *m, const size_t *chain,
				 int depth)
{
	int def = 0;
	for (int d = 1; d <= depth; d++) {
		const floe_parquet_schema_element *e = &m->schema[chain[d]];
		bool list = d < depth && is_list_group(e);
		if (e->repetition == FLOE_PQ_REPEATED)
			return "a repeated field that is not the middle of a 3-level list";
		if (d < depth && !list && (e->logical != 0 || e->converted_type >= 0))
			return "a map or another annotated group";
		def += e->repetition == FLOE_PQ_OPTIONAL;
		if (!list)
			continue;
		const floe_parquet_schema_element *mid = &m->schema[chain[d + 1]];
		if (d + 1 == depth || mid->repetition != FLOE_PQ_REPEATED || mid->num_children != 1)
			return "a list that is not in the 3-level layout";
		if (l->in_list)
			return "a list inside a list";
		l->in_list = true;
		l->list_def = def;
		def++;
		d++; /* the repeated group */
	}
	return NULL;
}

typedef struct schema_walk {
	floe_parquet_reader *r;
	size_t next;                  /* next schema element */
	size_t chain[MAX_SCHEMA_DEPTH + 1];
	floe_parquet_leaf *leaves;
	size_t n_leaves;
} schema_walk;

static int add_leaf(schema_walk *sw, int depth, int def, int rep)
{
	floe_parquet_meta *m = &sw->r->meta;
	size_t idx = sw->chain[depth];
	const floe_parquet_schema_element *e = &m->schema[idx];
	floe_parquet_leaf *l = &sw->leaves[sw->n_leaves++];
	floe_buf path = FLOE_BUF_INIT;
	memset(l, 0, sizeof(*l));
	l->element = idx;
	l->max_def = def;
	l->max_rep = rep;
	l->has_field_id = e->has_field_id;
	l->field_id = e->has_field_id ? e->field_id : -1;
	l->top_field_id = m->schema[sw->chain[1]].has_field_id ? m->schema[sw->chain[1]].field_id : -1;
	for (int d = 1; d <= depth; d++) {
		if (d > 1)
			floe_buf_putc(&path, '.');
		floe_buf_puts(&path, m->schema[sw->chain[d]].name);
	}
	l->path = floe_arena_strndup(sw->r->arena, floe_buf_cstr(&path), path.len);
	floe_buf_free(&path);
	classify(l, e);
	const char *why = nested_layout(l, m, sw->chain, depth);
	if (why) {
		l->vtype = 0;
		l->in_list = false;
		l->unsupported = why;
	}
	return 0;
}

/* Walk the children of chain[depth] (depth-first, as the schema list is flattened). */
static int walk(schema_walk *sw, int depth, int def, int rep)
{
	floe_parquet_meta *m = &sw->r->meta;
	const floe_parquet_schema_element *parent = &m->schema[sw->chain[depth]];
	if (depth >= MAX_SCHEMA_DEPTH)
		return corrupt(sw->r, "the schema nests deeper than %d levels", MAX_SCHEMA_DEPTH);
	for (int32_t i = 0; i < parent->num_children; i++) {
		if (sw->next >= m->n_schema)
			return corrupt(sw->r, "the schema tree has fewer elements than it claims");
		size_t idx = sw->next++;
		const floe_parquet_schema_element *e = &m->schema[idx];
		int d = def + (e->repetition == FLOE_PQ_OPTIONAL || e->repetition == FLOE_PQ_REPEATED);
		int rp = rep + (e->repetition == FLOE_PQ_REPEATED);
		sw->chain[depth + 1] = idx;
		if (e->repetition < FLOE_PQ_REQUIRED || e->repetition > FLOE_PQ_REPEATED)
			return corrupt(sw->r, "schema element \"%s\" has no valid repetition", e->name);
		if (e->num_children < 0)
			return corrupt(sw->r, "schema element \"%s\" has a negative child count", e->name);
		if (e->num_children > 0) {
			if (e->type >= 0)
				return corrupt(sw->r, "schema element \"%s\" has both a type and children", e->name);
			if (walk(sw, depth + 1, d, rp) < 0)
				return -1;
		} else {
			if (e->type < 0)
				return corrupt(sw->r, "schema leaf \"%s\" has no type", e->name);
			if (add_leaf(sw, depth + 1, d, rp) < 0)
				return -1;
		}
	}
	return 0;
}

static int build_leaves(floe_parquet_reader *r)
{
	floe_parquet_meta *m = &r->meta;
	if (m->n_schema == 0)
		return corrupt(r, "the schema is empty");
	if (m->schema[0].num_children < 0 || m->schema[0].type >= 0)
		return corrupt(r, "the schema root is not a group");
	schema_walk sw = { .r = r, .next = 1 };
	/* A leaf takes at least one schema element, so there are fewer leaves than elements. */
	sw.leaves = floe_arena_alloc(r->arena, m->n_schema * sizeof(floe_parquet_leaf));
	sw.chain[0] = 0;
	if (walk(&sw, 0, 0, 0) < 0)
		return -1;
	if (sw.next != m->n_schema)
		return corrupt(r, "the schema lists %zu elements but its tree holds %zu", m->n_schema,
			       sw.next);
	m->leaves = sw.leaves;
	m->n_leaves = sw.n_leaves;
	return 0;
}

/* ---- schema tree → top-level fields and their shapes ---- */

typedef struct shape_walk {
	floe_parquet_reader *r;
	size_t next;                  /* next schema element */
	size_t leaf;                  /* next leaf */
	const char *why;              /* the first reason the field cannot be read */
} shape_walk;

static void refuse(shape_walk *w, const char *why)
{
	if (!w->why)
		w->why = why;
}

/* How a leaf's values read wherever it is nested: its type alone decides. */
static void leaf_values(shape_walk *w, pq_shape *n, const floe_parquet_schema_element *e)
{
	floe_parquet_leaf *l = &w->r->values[w->leaf];
	*l = w->r->meta.leaves[w->leaf];
	l->in_list = false;
	l->list_def = 0;
	l->unsupported = NULL;
	classify(l, e);
	if (!l->vtype)
		refuse(w, l->unsupported);
	n->type = l->vtype;
	w->leaf++;
}

/*
 * The shape `n` of schema element w->next and its subtree (consumed), under levels `def` and
 * `rep`. The tree was checked by walk(); what floe cannot rebuild is noted in w->why and its
 * subtree still consumed.
 */
static void shape_of(shape_walk *w, pq_shape *n, int def, int rep)
{
	const floe_parquet_meta *m = &w->r->meta;
	const floe_parquet_schema_element *e = &m->schema[w->next++];
	n->leaf = w->leaf;
	n->def = def + (e->repetition != FLOE_PQ_REQUIRED);
	if (e->repetition == FLOE_PQ_REPEATED)
		refuse(w, "a repeated field that is not the middle of a 3-level list");
	if (e->num_children == 0) {
		leaf_values(w, n, e);
	} else if (is_list_group(e)) {
		const floe_parquet_schema_element *mid = &m->schema[w->next];
		pq_shape *element = floe_arena_alloc(w->r->arena, sizeof(*element));
		n->type = FLOE_VEC_LIST;
		n->rep = rep + 1;
		n->kids = element;
		n->n_kids = 1;
		if (mid->repetition == FLOE_PQ_REPEATED && mid->num_children == 1) {
			w->next++; /* the repeated group: present when the list has an element */
			shape_of(w, element, n->def + 1, n->rep);
		} else {
			refuse(w, "a list that is not in the 3-level layout");
			shape_of(w, element, n->def, n->rep);
		}
	} else {
		if (e->logical != 0 || e->converted_type >= 0)
			refuse(w, "a map or another annotated group");
		pq_shape *kids = floe_arena_alloc(w->r->arena, (size_t)e->num_children * sizeof(*kids));
		for (int32_t i = 0; i < e->num_children; i++)
			shape_of(w, &kids[i], n->def, rep);
		n->type = FLOE_VEC_STRUCT;
		n->kids = kids;
		n->n_kids = (size_t)e->num_children;
	}
	n->n_leaves = w->leaf - n->leaf;
}

static void build_fields(floe_parquet_reader *r)
{
	floe_parquet_meta *m = &r->meta;
	size_t n = (size_t)m->schema[0].num_children;
	floe_parquet_top_field *fields = floe_arena_alloc(r->arena, (n + 1) * sizeof(*fields));
	shape_walk w = { .r = r, .next = 1 };
	r->shapes = floe_arena_alloc(r->arena, (n + 1) * sizeof(*r->shapes));
	r->values = floe_arena_alloc(r->arena, (m->n_leaves + 1) * sizeof(*r->values));
	for (size_t i = 0; i < n; i++) {
		floe_parquet_top_field *f = &fields[i];
		const floe_parquet_schema_element *e = &m->schema[w.next];
		f->name = e->name;
		f->element = w.next;
		f->has_field_id = e->has_field_id;
		f->field_id = e->has_field_id ? e->field_id : -1;
		f->first_leaf = w.leaf;
		pq_shape *shape = floe_arena_alloc(r->arena, sizeof(*shape));
		w.why = NULL;
		shape_of(&w, shape, 0, 0);
		f->n_leaves = w.leaf - f->first_leaf;
		f->vtype = w.why ? 0 : shape->type;
		f->unsupported = w.why;
		r->shapes[i] = w.why ? NULL : shape;
	}
	m->fields = fields;
	m->n_fields = n;
}

/* ---- structural checks ---- */

static int check_chunk(floe_parquet_reader *r, size_t g, size_t i, unsigned seen)
{
	const floe_parquet_column_chunk *cc = &r->meta.row_groups[g].columns[i];
	const floe_parquet_leaf *l = &r->meta.leaves[i];
	const floe_parquet_schema_element *e = &r->meta.schema[l->element];
	if (seen & 0x100)
		return corrupt(r, "column %s of row group %zu lives in another file", l->path, g);
	if ((seen & 0x3F) != 0x3F)
		return corrupt(r, "column %s of row group %zu lacks required metadata", l->path, g);
	if (cc->type != e->type)
		return corrupt(r, "column %s of row group %zu has type %d, its schema %d", l->path, g,
			       cc->type, e->type);
	if (cc->num_values < 0 || cc->total_compressed_size < 0 || cc->total_uncompressed_size < 0 ||
	    cc->data_page_offset < 4 || cc->data_page_offset > r->data_end ||
	    cc->total_compressed_size > r->data_end)
		return corrupt(r, "column %s of row group %zu has impossible sizes or offsets", l->path, g);
	int64_t start = cc->data_page_offset;
	if (cc->has_dictionary_page_offset && cc->dictionary_page_offset >= 4 &&
	    cc->dictionary_page_offset < start)
		start = cc->dictionary_page_offset;
	if (cc->total_compressed_size > r->data_end - start)
		return corrupt(r, "column %s of row group %zu runs past the data", l->path, g);
	return 0;
}

static int check_row_groups(floe_parquet_reader *r, const fm_parse *p)
{
	floe_parquet_meta *m = &r->meta;
	int64_t rows = 0;
	for (size_t g = 0; g < m->n_row_groups; g++) {
		const rg_parse *rp = &p->rgs[g];
		const floe_parquet_row_group *rg = &m->row_groups[g];
		if (!rp->has_columns || !rp->has_rows || !rp->has_total)
			return corrupt(r, "row group %zu lacks required metadata", g);
		if (rg->n_columns != m->n_leaves)
			return corrupt(r, "row group %zu has %zu columns for %zu leaves", g, rg->n_columns,
				       m->n_leaves);
		if (rg->num_rows < 0 || rg->num_rows > INT64_MAX - rows)
			return corrupt(r, "row group %zu has an impossible row count", g);
		rows += rg->num_rows;
		for (size_t i = 0; i < rg->n_columns; i++)
			if (check_chunk(r, g, i, rp->chunk_seen[i]) < 0)
				return -1;
	}
	if (rows != m->num_rows)
		return corrupt(r, "the row groups hold %lld rows, the footer says %lld", (long long)rows,
			       (long long)m->num_rows);
	return 0;
}

static int parse_footer(floe_parquet_reader *r, const uint8_t *footer, size_t len)
{
	floe_thrift_reader t;
	fm_parse p = { .m = &r->meta };
	floe_thrift_reader_init(&t, footer, len);
	if (pq_footer_decode(&t, r->arena, &p) < 0) {
		size_t at = 0;
		const char *why = floe_thrift_reader_error(&t, &at);
		return corrupt(r, "footer: %s at byte %zu", why ? why : "unreadable", at);
	}
	if (!p.has_version || !p.has_schema || !p.has_rows || !p.has_row_groups)
		return corrupt(r, "the footer lacks a required field (version, schema, num_rows, row_groups)");
	if (build_leaves(r) < 0)
		return -1;
	build_fields(r);
	return check_row_groups(r, &p);
}

/* ---- open ---- */

int pq_read_at(floe_parquet_reader *r, int64_t offset, size_t len, uint8_t *dst)
{
	if (offset < 0 || (uint64_t)offset > (uint64_t)r->meta.file_size ||
	    len > (uint64_t)(r->meta.file_size - offset))
		return corrupt(r, "a read at %lld of %zu bytes falls outside the file", (long long)offset, len);
	if (r->mem) {
		memcpy(dst, r->mem + offset, len);
		return 0;
	}
	return r->source.read_at(r->source.ctx, dst, len, offset); /* its error names the object */
}

static int open_common(floe_parquet_reader *r)
{
	uint8_t tail[8], head[4];
	int64_t size = r->meta.file_size;
	if (size < 12)
		return corrupt(r, "%lld bytes is too small for a Parquet file", (long long)size);
	if (pq_read_at(r, 0, 4, head) < 0 || pq_read_at(r, size - 8, 8, tail) < 0)
		return -1;
	if (memcmp(head, PQ_MAGIC, 4) != 0 || memcmp(tail + 4, PQ_MAGIC, 4) != 0)
		return corrupt(r, "it does not start and end with \"PAR1\"");
	uint32_t len = (uint32_t)tail[0] | (uint32_t)tail[1] << 8 | (uint32_t)tail[2] << 16 |
		       (uint32_t)tail[3] << 24;
	if ((int64_t)len > size - 12)
		return corrupt(r, "its footer length %u exceeds the file", len);
	if (len > r->opts.max_footer_bytes) {
		floe_error_set(FLOE_ERR_CHECK, "Parquet footer of \"%s\" is %u bytes, above the limit of %zu",
			       r->path, len, r->opts.max_footer_bytes);
		return -1;
	}
	r->meta.footer_len = len;
	r->data_end = size - 8 - (int64_t)len;
	uint8_t *footer = floe_arena_alloc(r->arena, len + 1);
	if (pq_read_at(r, r->data_end, len, footer) < 0)
		return -1;
	return parse_footer(r, footer, len);
}

static floe_parquet_reader *reader_new(const floe_parquet_reader_opts *opts)
{
	floe_parquet_reader_opts defaults = FLOE_PARQUET_READER_OPTS_INIT;
	floe_parquet_reader *r = floe_xcalloc(1, sizeof(*r));
	r->arena = floe_arena_new();
	r->opts = opts ? *opts : defaults;
	floe_buf_init(&r->own_chunk, SIZE_MAX >> 1);
	floe_buf_init(&r->own_page, SIZE_MAX >> 1);
	floe_parquet_scratch *s = r->opts.scratch;
	r->chunk = s ? &s->chunk : &r->own_chunk;
	r->page = s ? &s->page : &r->own_page;
	r->vals = s ? &s->vals : NULL;
	return r;
}

floe_parquet_scratch *floe_parquet_scratch_new(void)
{
	floe_parquet_scratch *s = floe_xcalloc(1, sizeof(*s));
	floe_buf_init(&s->chunk, SIZE_MAX >> 1);
	floe_buf_init(&s->page, SIZE_MAX >> 1);
	floe_vector_init(&s->vals, FLOE_VEC_BOOLEAN, 0);
	return s;
}

void floe_parquet_scratch_free(floe_parquet_scratch *s)
{
	if (!s)
		return;
	floe_buf_free(&s->chunk);
	floe_buf_free(&s->page);
	floe_vector_free(&s->vals);
	free(s);
}

int floe_parquet_reader_open_mem(floe_parquet_reader **out, const void *data, size_t len,
				 const floe_parquet_reader_opts *opts)
{
	floe_parquet_reader *r = reader_new(opts);
	*out = NULL;
	r->mem = data;
	r->path = floe_xstrndup("(memory)", 8);
	r->meta.file_size = (int64_t)len;
	if (open_common(r) < 0) {
		floe_parquet_reader_free(r);
		return -1;
	}
	*out = r;
	return 0;
}

int floe_parquet_reader_open(floe_parquet_reader **out, const floe_parquet_source *source,
			     const floe_parquet_reader_opts *opts)
{
	floe_parquet_reader *r = reader_new(opts);
	*out = NULL;
	r->source = *source;
	r->has_source = true;
	r->path = floe_xstrndup(source->name, strlen(source->name));
	r->meta.file_size = source->size;
	if (open_common(r) < 0) {
		floe_parquet_reader_free(r);
		return -1;
	}
	*out = r;
	return 0;
}

void floe_parquet_reader_free(floe_parquet_reader *r)
{
	if (!r)
		return;
	if (r->has_source)
		r->source.close(r->source.ctx);
	for (int i = 0; i < 8; i++)
		pq_codec_free(r->codecs[i]);
	floe_buf_free(&r->own_chunk);
	floe_buf_free(&r->own_page);
	free(r->path);
	floe_arena_free(r->arena);
	free(r);
}

const floe_parquet_meta *floe_parquet_reader_meta(const floe_parquet_reader *r)
{
	return &r->meta;
}

int pq_chunk_bytes(const uint8_t **data, const floe_parquet_column_chunk **cc, floe_parquet_reader *r,
		   size_t rg, size_t leaf)
{
	const floe_parquet_column_chunk *c = &r->meta.row_groups[rg].columns[leaf];
	floe_buf_clear(r->chunk);
	uint8_t *p = pq_buf_extend(r->chunk, (size_t)c->total_compressed_size);
	if (!p)
		return corrupt(r, "a column chunk of %lld bytes", (long long)c->total_compressed_size);
	*data = p;
	*cc = c;
	return pq_read_at(r, chunk_start(c), (size_t)c->total_compressed_size, p);
}

int floe_parquet_reader_read_column(floe_vector *out, floe_parquet_reader *r, size_t row_group,
				    size_t leaf)
{
	return pq_read_column(out, r, row_group, leaf, false);
}

int pq_read_column(floe_vector *out, floe_parquet_reader *r, size_t row_group, size_t leaf, bool reuse)
{
	const floe_parquet_meta *m = &r->meta;
	const floe_parquet_column_chunk *cc;
	const uint8_t *data;
	if (!reuse)
		floe_vector_init(out, FLOE_VEC_BOOLEAN, 0);
	if (row_group >= m->n_row_groups || leaf >= m->n_leaves)
		return floe_error_set(FLOE_ERR_USAGE, "no column %zu in row group %zu of \"%s\"", leaf,
				      row_group, r->path);
	const floe_parquet_leaf *l = &m->leaves[leaf];
	if (!l->vtype)
		return floe_error_set(FLOE_ERR_USAGE, "floe cannot read column %s of \"%s\": %s", l->path,
				      r->path, l->unsupported ? l->unsupported : "unsupported type");
	if (pq_chunk_bytes(&data, &cc, r, row_group, leaf) < 0 ||
	    pq_decode_chunk(out, r, l, cc, data, (size_t)cc->total_compressed_size, reuse) < 0) {
		floe_vector_free(out);
		return floe_error_context("while reading column %s of row group %zu of \"%s\"", l->path,
					  row_group, r->path);
	}
	if ((int64_t)out->len != m->row_groups[row_group].num_rows) {
		floe_vector_free(out);
		return corrupt(r, "column %s of row group %zu holds %zu rows, the row group %lld", l->path,
			       row_group, out->len, (long long)m->row_groups[row_group].num_rows);
	}
	return 0;
}

/* ---- Iceberg metrics from the footer ---- */

typedef struct bound_acc {
	bool ok;                     /* every row group with values gave both */
	const uint8_t *min, *max;
	size_t min_len, max_len;
} bound_acc;

static int64_t chunk_start(const floe_parquet_column_chunk *cc)
{
	if (cc->has_dictionary_page_offset && cc->dictionary_page_offset >= 4 &&
	    cc->dictionary_page_offset < cc->data_page_offset)
		return cc->dictionary_page_offset;
	return cc->data_page_offset;
}

static void acc_chunk(bound_acc *b, const floe_parquet_leaf *l, int physical,
		      const floe_parquet_column_chunk *cc)
{
	const floe_parquet_statistics *s = &cc->statistics;
	bool all_null = cc->has_statistics && s->has_null_count && s->null_count >= cc->num_values;
	if (all_null)
		return;
	if (!cc->has_statistics || !s->has_min || !s->has_max ||
	    !pq_plain_valid(l, physical, s->min_len) || !pq_plain_valid(l, physical, s->max_len)) {
		b->ok = false;
		return;
	}
	if (!b->min || pq_plain_cmp(l, physical, s->min, s->min_len, b->min, b->min_len) < 0)
		b->min = s->min, b->min_len = s->min_len;
	if (!b->max || pq_plain_cmp(l, physical, s->max, s->max_len, b->max, b->max_len) > 0)
		b->max = s->max, b->max_len = s->max_len;
}

static const uint8_t *arena_copy(floe_arena *a, const floe_buf *b)
{
	uint8_t *p = floe_arena_alloc(a, b->len + 1);
	memcpy(p, b->ptr, b->len);
	return p;
}

static void leaf_stats(floe_parquet_column_stats *cs, const floe_parquet_reader *r, size_t i,
		       floe_arena *arena, floe_buf *tmp)
{
	const floe_parquet_meta *m = &r->meta;
	const floe_parquet_leaf *l = &m->leaves[i];
	const floe_parquet_schema_element *e = &m->schema[l->element];
	bool nulls_known = true, nans_known = e->type == FLOE_PQ_FLOAT || e->type == FLOE_PQ_DOUBLE;
	bool ordered = i < m->n_column_orders && m->column_orders[i] != 0;
	bound_acc b = { .ok = ordered && e->unit != FLOE_PQ_UNIT_MILLIS &&
			      e->converted_type != PQ_CT_TIMESTAMP_MILLIS };
	memset(cs, 0, sizeof(*cs));
	cs->field_id = l->has_field_id ? l->field_id : -1;
	for (size_t g = 0; g < m->n_row_groups; g++) {
		const floe_parquet_column_chunk *cc = &m->row_groups[g].columns[i];
		const floe_parquet_statistics *s = &cc->statistics;
		cs->column_size += cc->total_compressed_size;
		cs->value_count += cc->num_values;
		nulls_known = nulls_known && cc->has_statistics && s->has_null_count;
		nans_known = nans_known && cc->has_statistics && s->has_nan_count;
		if (nulls_known)
			cs->null_count += s->null_count;
		if (nans_known)
			cs->nan_count += s->nan_count;
		if (b.ok)
			acc_chunk(&b, l, e->type, cc);
	}
	if (!nulls_known)
		cs->null_count = -1;
	cs->has_nan_count = nans_known;
	if (!b.ok || !b.min)
		return;
	if (pq_iceberg_bound(tmp, l, e->type, b.min, b.min_len, false)) {
		cs->has_lower = true;
		cs->lower = arena_copy(arena, tmp);
		cs->lower_len = tmp->len;
	}
	if (pq_iceberg_bound(tmp, l, e->type, b.max, b.max_len, true)) {
		cs->has_upper = true;
		cs->upper = arena_copy(arena, tmp);
		cs->upper_len = tmp->len;
	}
}

int floe_parquet_reader_file_stats(floe_parquet_file_stats *out, floe_parquet_reader *r,
				   floe_arena *arena)
{
	const floe_parquet_meta *m = &r->meta;
	floe_buf tmp = FLOE_BUF_INIT;
	int64_t *splits = floe_arena_alloc(arena, (m->n_row_groups + 1) * sizeof(int64_t));
	floe_parquet_column_stats *cols = floe_arena_alloc(arena, (m->n_leaves + 1) * sizeof(*cols));
	for (size_t g = 0; g < m->n_row_groups; g++)
		splits[g] = m->row_groups[g].n_columns ? chunk_start(&m->row_groups[g].columns[0])
						       : m->row_groups[g].file_offset;
	for (size_t i = 0; i < m->n_leaves; i++)
		leaf_stats(&cols[i], r, i, arena, &tmp);
	floe_buf_free(&tmp);
	out->record_count = m->num_rows;
	out->file_size = m->file_size;
	out->split_offsets = splits;
	out->n_split_offsets = m->n_row_groups;
	out->columns = cols;
	out->n_columns = m->n_leaves;
	return 0;
}
