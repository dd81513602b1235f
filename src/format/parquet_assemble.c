/*
 * parquet_assemble.c — a top-level field read whole: structs and lists nested in any way
 * rebuilt from the definition and repetition levels of all their leaves (Dremel's record
 * assembly, the inverse of the writer's walk in parquet_encode.c), into the vectors the
 * writer takes and the COPY decoder makes.
 *
 * Each leaf's chunk is decoded into its level entries and values (parquet_decode.c); then
 * rows are rebuilt one value at a time, down the field's shape (parquet_read.c builds it from
 * the schema). A value of a node starts at the current entry of each of its leaves, and its
 * first leaf decides what it is: null below the node's definition level, an empty list at
 * it, else a struct of its fields or a list of elements that go on while that leaf's next
 * entry repeats at the list's level. Every leaf under the node must agree (same repetition
 * level, same side of those definition levels), so a malformed file fails instead of giving
 * vectors of different lengths; every value takes at least one entry of its first leaf, so
 * assembly ends, and every leaf must be used up exactly.
 */
#include "format/parquet_reader_int.h"

#include "base/arena.h"
#include "base/error.h"

#include <stdlib.h>

typedef struct assembly {
	floe_parquet_reader *r;
	const floe_parquet_top_field *field;
	pq_levels *lv;                /* per leaf of the field */
} assembly;

static int malformed(const assembly *a, const char *why)
{
	return floe_error_set(FLOE_ERR_CHECK, "Parquet field %s of \"%s\" is malformed: %s", a->field->name,
			      a->r->path, why);
}

static pq_levels *levels_of(const assembly *a, size_t leaf)
{
	return &a->lv[leaf - a->field->first_leaf];
}

/* Which of a node's cases definition level `d` is: 0 null, 1 an empty list, 2 present. */
static int def_case(const pq_shape *n, uint8_t d)
{
	if (d < n->def)
		return 0;
	return n->type == FLOE_VEC_LIST && d == n->def ? 1 : 2;
}

/* Every leaf under `n` has a current entry, at the first leaf's repetition level and case. */
static int agree(const assembly *a, const pq_shape *n)
{
	const pq_levels *f = levels_of(a, n->leaf);
	if (f->at == f->n)
		return malformed(a, "a column ends before its row group");
	uint8_t rep = f->rep[f->at];
	int c = def_case(n, f->def[f->at]);
	for (size_t k = n->leaf + 1; k < n->leaf + n->n_leaves; k++) {
		const pq_levels *o = levels_of(a, k);
		if (o->at == o->n)
			return malformed(a, "a column ends before its row group");
		if (o->rep[o->at] != rep || def_case(n, o->def[o->at]) != c)
			return malformed(a, "its columns disagree on how a value nests");
	}
	return 0;
}

/* A null struct or list, or an empty list: one entry of each leaf under it. */
static void skip(const assembly *a, const pq_shape *n)
{
	for (size_t k = n->leaf; k < n->leaf + n->n_leaves; k++)
		levels_of(a, k)->at++;
}

static int take_value(const assembly *a, const pq_shape *n, floe_vector *v)
{
	pq_levels *f = levels_of(a, n->leaf);
	if (f->def[f->at++] < n->def) {
		floe_vector_append_null(v);
		return 0;
	}
	if (f->vi == f->vals.len) /* decoding gave a value per entry at max_def: never */
		return malformed(a, "a column has fewer values than entries");
	floe_vector_append_row(v, &f->vals, f->vi++);
	return 0;
}

/* Append one value of node `n` to `v`, taking its entries from every leaf under it. */
static int build(const assembly *a, const pq_shape *n, floe_vector *v)
{
	if (agree(a, n) < 0)
		return -1;
	const pq_levels *f = levels_of(a, n->leaf);
	int c = def_case(n, f->def[f->at]);
	if (n->type != FLOE_VEC_STRUCT && n->type != FLOE_VEC_LIST)
		return take_value(a, n, v);
	if (c < 2) {
		skip(a, n);
		if (c == 0)
			floe_vector_append_null(v); /* a null struct is null in every field */
		else
			floe_vector_append_list(v);
		return 0;
	}
	if (n->type == FLOE_VEC_STRUCT) {
		for (size_t k = 0; k < n->n_kids; k++)
			if (build(a, &n->kids[k], &v->children[k]) < 0)
				return -1;
		floe_vector_append_struct(v);
		return 0;
	}
	do {
		if (build(a, n->kids, v->child) < 0)
			return -1;
	} while (f->at < f->n && f->rep[f->at] == n->rep);
	if (f->at < f->n && f->rep[f->at] > n->rep)
		return malformed(a, "a value repeats deeper than its list");
	floe_vector_append_list(v);
	return 0;
}

/* An empty vector of shape `n`. */
static void init_vector(floe_vector *v, const floe_parquet_reader *r, const pq_shape *n)
{
	if (n->type == FLOE_VEC_STRUCT) {
		floe_vector_init_struct(v, n->n_kids);
		for (size_t k = 0; k < n->n_kids; k++)
			init_vector(&v->children[k], r, &n->kids[k]);
	} else if (n->type == FLOE_VEC_LIST) {
		floe_vector_init_list(v, FLOE_VEC_BOOLEAN, 0);
		init_vector(v->child, r, n->kids);
	} else {
		const floe_parquet_leaf *l = &r->values[n->leaf];
		floe_vector_init(v, n->type, n->type == FLOE_VEC_FIXED ? l->width : 0);
		if (n->type == FLOE_VEC_DECIMAL) {
			v->precision = l->precision;
			v->scale = l->scale;
		}
	}
}

/* Rows of the row group's levels, one value of the field each. */
static int assemble(floe_vector *out, const assembly *a, const pq_shape *top)
{
	const pq_levels *f = levels_of(a, top->leaf);
	while (f->at < f->n) {
		if (f->rep[f->at] != 0)
			return malformed(a, "a row starts inside a list");
		if (build(a, top, out) < 0)
			return -1;
	}
	for (size_t k = top->leaf; k < top->leaf + top->n_leaves; k++)
		if (levels_of(a, k)->at != levels_of(a, k)->n)
			return malformed(a, "a column holds more entries than its field's rows take");
	return 0;
}

static bool nested(const pq_shape *n)
{
	return n->type == FLOE_VEC_STRUCT ||
	       (n->type == FLOE_VEC_LIST && (n->kids->type == FLOE_VEC_STRUCT || n->kids->type == FLOE_VEC_LIST));
}

static int read_field(floe_vector *out, floe_parquet_reader *r, size_t row_group, size_t field, bool reuse)
{
	const floe_parquet_meta *m = floe_parquet_reader_meta(r);
	assembly a = { .r = r };
	int error = -1;
	const pq_shape *top = row_group < m->n_row_groups && field < m->n_fields ? r->shapes[field] : NULL;
	if (reuse && top && !nested(top)) /* a primitive or a list of them: its one leaf reads as the field */
		return pq_read_column(out, r, row_group, top->leaf, true);
	if (reuse)
		floe_vector_free(out);
	floe_vector_init(out, FLOE_VEC_BOOLEAN, 0);
	if (row_group >= m->n_row_groups || field >= m->n_fields)
		return floe_error_set(FLOE_ERR_USAGE, "no field %zu in row group %zu of \"%s\"", field,
				      row_group, r->path);
	a.field = &m->fields[field];
	if (!top)
		return floe_error_set(FLOE_ERR_USAGE, "floe cannot read field %s of \"%s\": %s", a.field->name,
				      r->path, a.field->unsupported);
	if (!nested(top)) /* a primitive or a list of them: its one leaf reads as the field */
		return floe_parquet_reader_read_column(out, r, row_group, top->leaf);
	a.lv = floe_xcalloc(top->n_leaves, sizeof(pq_levels));
	for (size_t k = top->leaf; k < top->leaf + top->n_leaves; k++) {
		const floe_parquet_column_chunk *cc;
		const uint8_t *data;
		if (pq_chunk_bytes(&data, &cc, r, row_group, k) < 0 ||
		    pq_decode_levels(levels_of(&a, k), r, &r->values[k], cc, data,
				     (size_t)cc->total_compressed_size) < 0)
			goto cleanup;
	}
	init_vector(out, r, top);
	if (assemble(out, &a, top) < 0)
		goto cleanup;
	if ((int64_t)out->len != m->row_groups[row_group].num_rows) {
		floe_error_set(FLOE_ERR_CHECK, "Parquet field %s of \"%s\" holds %zu rows in row group %zu, "
			       "the row group %lld", a.field->name, r->path, out->len, row_group,
			       (long long)m->row_groups[row_group].num_rows);
		goto cleanup;
	}
	error = 0;
cleanup:
	for (size_t k = 0; a.lv && k < top->n_leaves; k++)
		pq_levels_free(&a.lv[k]);
	free(a.lv);
	if (error < 0) {
		floe_vector_free(out);
		floe_error_context("while reading field %s of row group %zu of \"%s\"", a.field->name, row_group,
				   r->path);
	}
	return error;
}

int floe_parquet_reader_read_field(floe_vector *out, floe_parquet_reader *r, size_t row_group, size_t field)
{
	return read_field(out, r, row_group, field, false);
}

int floe_parquet_reader_read_field_reuse(floe_vector *out, floe_parquet_reader *r, size_t row_group,
					 size_t field)
{
	return read_field(out, r, row_group, field, true);
}
