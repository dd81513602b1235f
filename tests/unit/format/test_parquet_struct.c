/*
 * test_parquet_struct.c — structs in floe's Parquet writer and reader: struct vectors, a file
 * of structs with lists inside them and a list of structs read back leaf by leaf across pages
 * and row groups, levels, field ids, per-leaf statistics (bounds outside lists only), the
 * footer's statistics agreeing with the writer's, and what the writer and reader refuse.
 */
#include "harness.h"
#include "nested_values.h"
#include "parquet_testkit.h"

#include "base/arena.h"
#include "base/error.h"
#include "format/parquet.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/*
 * id long required (1)
 * s struct (2) { a int (3), b string (4), c list<long> (5, element 6),
 *                d struct (7) { x double (8), y decimal(20,3) required (9) } }
 * ls list (10) <struct (11) { p int (12), q string (13) }>
 */
static const floe_parquet_field C_ELEM = { .name = "element", .id = 6, .type = FLOE_VEC_LONG };
static const floe_parquet_field D_FIELDS[] = {
	{ .name = "x", .id = 8, .type = FLOE_VEC_DOUBLE },
	{ .name = "y", .id = 9, .type = FLOE_VEC_DECIMAL, .precision = 20, .scale = 3, .required = true },
};
static const floe_parquet_field S_FIELDS[] = {
	{ .name = "a", .id = 3, .type = FLOE_VEC_INT },
	{ .name = "b", .id = 4, .type = FLOE_VEC_STRING },
	{ .name = "c", .id = 5, .type = FLOE_VEC_LIST, .element = &C_ELEM },
	{ .name = "d", .id = 7, .type = FLOE_VEC_STRUCT, .children = D_FIELDS, .n_children = 2 },
};
static const floe_parquet_field LS_FIELDS[] = {
	{ .name = "p", .id = 12, .type = FLOE_VEC_INT },
	{ .name = "q", .id = 13, .type = FLOE_VEC_STRING },
};
static const floe_parquet_field LS_ELEM = { .name = "element", .id = 11, .type = FLOE_VEC_STRUCT,
					    .children = LS_FIELDS, .n_children = 2 };
static const floe_parquet_field FIELDS[] = {
	{ .name = "id", .id = 1, .type = FLOE_VEC_LONG, .required = true },
	{ .name = "s", .id = 2, .type = FLOE_VEC_STRUCT, .children = S_FIELDS, .n_children = 4 },
	{ .name = "ls", .id = 10, .type = FLOE_VEC_LIST, .element = &LS_ELEM },
};
enum { N_LEAVES = 8 };

typedef struct fixture {
	floe_vector cols[3];
	floe_vector want[N_LEAVES]; /* what floe's reader gives back per leaf */
} fixture;

static void fixture_free(fixture *fx)
{
	for (size_t i = 0; i < 3; i++)
		floe_vector_free(&fx->cols[i]);
	for (size_t i = 0; i < N_LEAVES; i++)
		floe_vector_free(&fx->want[i]);
}

static void row_s(fixture *fx, size_t i)
{
	floe_vector *s = &fx->cols[1], *c = &s->children[2], *d = &s->children[3];
	floe_vector *w = fx->want;
	char b[32];
	if (i % 5 == 0) {
		floe_vector_append_null(s);
		for (size_t k = 1; k < 6; k++)
			floe_vector_append_null(&w[k]);
		return;
	}
	if (i % 3 == 0) {
		floe_vector_append_null(&s->children[0]);
		floe_vector_append_null(&w[1]);
	} else {
		floe_vector_append_i32(&s->children[0], (int32_t)i - 1000);
		floe_vector_append_i32(&w[1], (int32_t)i - 1000);
	}
	int n = snprintf(b, sizeof(b), "b%zu", i);
	if (i % 4 == 0) {
		floe_vector_append_null(&s->children[1]);
		floe_vector_append_null(&w[2]);
	} else {
		floe_vector_append_bytes(&s->children[1], b, (size_t)n);
		floe_vector_append_bytes(&w[2], b, (size_t)n);
	}
	if (i % 6 == 1) {
		floe_vector_append_null(c);
		floe_vector_append_null(&w[3]);
	} else {
		for (size_t k = 0; i % 6 != 2 && k < 3; k++) {
			if (k == 1 && i % 2) {
				floe_vector_append_null(c->child);
				floe_vector_append_null(w[3].child);
			} else {
				floe_vector_append_i64(c->child, (int64_t)(i * k));
				floe_vector_append_i64(w[3].child, (int64_t)(i * k));
			}
		}
		floe_vector_append_list(c);
		floe_vector_append_list(&w[3]);
	}
	if (i % 7 == 0) {
		floe_vector_append_null(d);
		floe_vector_append_null(&w[4]);
		floe_vector_append_null(&w[5]);
	} else {
		if (i % 2) {
			floe_vector_append_null(&d->children[0]);
			floe_vector_append_null(&w[4]);
		} else {
			floe_vector_append_f64(&d->children[0], (double)i * 0.5);
			floe_vector_append_f64(&w[4], (double)i * 0.5);
		}
		floe_vector_append_dec(&d->children[1], dec((i128)i * 1000 - 5));
		floe_vector_append_dec(&w[5], dec((i128)i * 1000 - 5));
		floe_vector_append_struct(d);
	}
	floe_vector_append_struct(s);
}

static void row_ls(fixture *fx, size_t i)
{
	floe_vector *ls = &fx->cols[2], *el = ls->child, *w = fx->want;
	if (i % 9 == 0) {
		floe_vector_append_null(ls);
		floe_vector_append_null(&w[6]);
		floe_vector_append_null(&w[7]);
		return;
	}
	for (size_t k = 0; i % 9 != 1 && k <= i % 3; k++) {
		if (k == 1 && i % 2) {
			floe_vector_append_null(el);
			floe_vector_append_null(w[6].child);
			floe_vector_append_null(w[7].child);
			continue;
		}
		if (k == 2) {
			floe_vector_append_null(&el->children[0]);
			floe_vector_append_null(w[6].child);
		} else {
			floe_vector_append_i32(&el->children[0], (int32_t)(i + k));
			floe_vector_append_i32(w[6].child, (int32_t)(i + k));
		}
		floe_vector_append_bytes(&el->children[1], "q", 1);
		floe_vector_append_bytes(w[7].child, "q", 1);
		floe_vector_append_struct(el);
	}
	floe_vector_append_list(ls);
	floe_vector_append_list(&w[6]);
	floe_vector_append_list(&w[7]);
}

static void fixture_build(fixture *fx, size_t rows)
{
	floe_vector *s = &fx->cols[1], *d;
	floe_vector_init(&fx->cols[0], FLOE_VEC_LONG, 0);
	floe_vector_init_struct(s, 4);
	floe_vector_init(&s->children[0], FLOE_VEC_INT, 0);
	floe_vector_init(&s->children[1], FLOE_VEC_STRING, 0);
	floe_vector_init_list(&s->children[2], FLOE_VEC_LONG, 0);
	d = &s->children[3];
	floe_vector_init_struct(d, 2);
	floe_vector_init(&d->children[0], FLOE_VEC_DOUBLE, 0);
	floe_vector_init(&d->children[1], FLOE_VEC_DECIMAL, 0);
	floe_vector_init_list(&fx->cols[2], FLOE_VEC_BOOLEAN, 0);
	floe_vector_init_struct(fx->cols[2].child, 2);
	floe_vector_init(&fx->cols[2].child->children[0], FLOE_VEC_INT, 0);
	floe_vector_init(&fx->cols[2].child->children[1], FLOE_VEC_STRING, 0);
	static const floe_vec_type flat[] = { FLOE_VEC_LONG, FLOE_VEC_INT, FLOE_VEC_STRING, 0,
					      FLOE_VEC_DOUBLE, FLOE_VEC_DECIMAL };
	for (size_t k = 0; k < 6; k++)
		if (k != 3)
			floe_vector_init(&fx->want[k], flat[k], 0);
	floe_vector_init_list(&fx->want[3], FLOE_VEC_LONG, 0);
	floe_vector_init_list(&fx->want[6], FLOE_VEC_INT, 0);
	floe_vector_init_list(&fx->want[7], FLOE_VEC_STRING, 0);
	for (size_t i = 0; i < rows; i++) {
		floe_vector_append_i64(&fx->cols[0], (int64_t)i);
		floe_vector_append_i64(&fx->want[0], (int64_t)i);
		row_s(fx, i);
		row_ls(fx, i);
	}
}

typedef struct written {
	floe_arena *arena;
	floe_parquet_file_stats stats;
	floe_parquet_reader *reader;
} written;

/* Write `cols` in batches of `batch` rows (copied with floe_vector_append_row) and open the file. */
static bool write_open(written *out, const char *name, const floe_parquet_field *fields, size_t n,
		       const floe_vector *cols, size_t batch, const floe_parquet_writer_opts *o)
{
	floe_parquet_writer *w = NULL;
	const char *path = tmp_path(name);
	bool ok = false;
	floe_vector *part = floe_xcalloc(n, sizeof(floe_vector));
	memset(out, 0, sizeof(*out));
	out->arena = floe_arena_new();
	for (size_t c = 0; c < n; c++)
		fx_nested_init(&part[c], &fields[c]);
	if (tk_parquet_create(&w, path, fields, n, o) < 0)
		goto done;
	for (size_t r = 0; r < cols[0].len; r += batch) {
		size_t end = r + batch < cols[0].len ? r + batch : cols[0].len;
		for (size_t c = 0; c < n; c++) {
			floe_vector_clear(&part[c]);
			for (size_t i = r; i < end; i++)
				floe_vector_append_row(&part[c], &cols[c], i);
		}
		if (floe_parquet_writer_write_batch(w, part, n) < 0) {
			floe_parquet_writer_abort(w);
			goto done;
		}
	}
	if (floe_parquet_writer_close(&out->stats, w, out->arena) < 0 ||
	    tk_parquet_open(&out->reader, path, NULL) < 0)
		goto done;
	ok = true;
done:
	if (!ok)
		floe_error_print(stderr);
	for (size_t c = 0; c < n; c++)
		floe_vector_free(&part[c]);
	free(part);
	return ok;
}

static void written_free(written *w)
{
	floe_parquet_reader_free(w->reader);
	floe_arena_free(w->arena);
}

static floe_parquet_writer_opts small_pages(void)
{
	floe_parquet_writer_opts o = FLOE_PARQUET_WRITER_OPTS_INIT;
	o.page_rows = 100;
	o.page_bytes = 2048;
	o.row_group_bytes = 20000;
	return o;
}

FLOE_TEST(struct_vectors_keep_null_rows_null_in_their_children)
{
	floe_vector s, copy;
	floe_vector_init_struct(&s, 2);
	floe_vector_init(&s.children[0], FLOE_VEC_INT, 0);
	floe_vector_init_list(&s.children[1], FLOE_VEC_STRING, 0);
	floe_vector_append_null(&s);
	floe_vector_append_i32(&s.children[0], 7);
	floe_vector_append_bytes(s.children[1].child, "abc", 3);
	floe_vector_append_list(&s.children[1]);
	floe_vector_append_struct(&s);
	floe_vector_append_null(&s.children[0]);
	floe_vector_append_null(&s.children[1]);
	floe_vector_append_struct(&s);
	FLOE_CHECK(s.len == 3 && s.children[0].len == 3 && s.children[1].len == 3);
	FLOE_CHECK(!floe_vector_is_valid(&s, 0) && !floe_vector_is_valid(&s.children[0], 0) &&
		   !floe_vector_is_valid(&s.children[1], 0));
	FLOE_CHECK(floe_vector_is_valid(&s, 2) && !floe_vector_is_valid(&s.children[0], 2));
	FLOE_CHECK(floe_vector_null_count(&s) == 1 && floe_vector_data_bytes(&s) == 3);
	floe_vector_init_struct(&copy, 2);
	floe_vector_init(&copy.children[0], FLOE_VEC_INT, 0);
	floe_vector_init_list(&copy.children[1], FLOE_VEC_STRING, 0);
	for (size_t i = 0; i < 3; i++)
		floe_vector_append_row(&copy, &s, i);
	FLOE_CHECK(copy.len == 3 && copy.children[0].v.i32[1] == 7 && copy.children[1].child->len == 1);
	FLOE_CHECK(!floe_vector_is_valid(&copy, 0) && floe_vector_is_valid(&copy, 2));
	floe_vector_clear(&copy);
	FLOE_CHECK(copy.len == 0 && copy.children[0].len == 0 && copy.children[1].child->len == 0);
	FLOE_CHECK_STR(floe_vec_type_name(FLOE_VEC_STRUCT), "struct");
	floe_vector_free(&copy);
	floe_vector_free(&s);
}

FLOE_TEST(parquet_round_trip_structs_lists_in_structs_and_lists_of_structs)
{
	fixture fx;
	fixture_build(&fx, 3000);
	floe_parquet_writer_opts o = small_pages();
	written wr;
	FLOE_CHECK(write_open(&wr, "structs.parquet", FIELDS, 3, fx.cols, 700, &o));
	const floe_parquet_meta *m = floe_parquet_reader_meta(wr.reader);
	static const int32_t ids[N_LEAVES] = { 1, 3, 4, 6, 8, 9, 12, 13 };
	static const char *const paths[N_LEAVES] = { "id", "s.a", "s.b", "s.c.list.element", "s.d.x", "s.d.y",
						     "ls.list.element.p", "ls.list.element.q" };
	static const int defs[N_LEAVES] = { 0, 2, 2, 4, 3, 2, 4, 4 };
	FLOE_CHECK(m->n_leaves == N_LEAVES && m->n_schema == 16 && m->n_row_groups > 1);
	for (size_t k = 0; k < N_LEAVES && k < m->n_leaves; k++) {
		const floe_parquet_leaf *l = &m->leaves[k];
		FLOE_CHECK(l->field_id == ids[k]);
		FLOE_CHECK_STR(l->path, paths[k]);
		FLOE_CHECK(l->max_def == defs[k]);
		FLOE_CHECK(l->vtype != 0 && !l->unsupported);
		FLOE_CHECK(column_equals(wr.reader, k, &fx.want[k]));
	}
	FLOE_CHECK(m->leaves[3].in_list && m->leaves[3].list_def == 2 && m->leaves[3].max_rep == 1);
	FLOE_CHECK(m->leaves[6].in_list && m->leaves[6].list_def == 1 && m->leaves[6].top_field_id == 10);
	FLOE_CHECK(!m->leaves[5].in_list && m->leaves[5].top_field_id == 2);
	/* Groups carry their field ids. */
	bool s_id = false, d_id = false, el_id = false;
	for (size_t e = 0; e < m->n_schema; e++) {
		const floe_parquet_schema_element *se = &m->schema[e];
		s_id |= se->num_children == 4 && se->has_field_id && se->field_id == 2;
		d_id |= strcmp(se->name, "d") == 0 && se->has_field_id && se->field_id == 7;
		el_id |= se->num_children == 2 && strcmp(se->name, "element") == 0 && se->field_id == 11;
	}
	FLOE_CHECK(s_id && d_id && el_id);
	/* Per leaf: counts are level entries and nulls; bounds outside lists only. */
	FLOE_CHECK(wr.stats.n_columns == N_LEAVES);
	for (size_t k = 0; k < N_LEAVES && k < wr.stats.n_columns; k++) {
		const floe_parquet_column_stats *cs = &wr.stats.columns[k];
		bool in_list = k == 3 || k >= 6;
		FLOE_CHECK(cs->field_id == ids[k]);
		FLOE_CHECK(cs->has_lower == !in_list && cs->has_upper == !in_list);
		if (!in_list) {
			FLOE_CHECK(cs->value_count == 3000);
			FLOE_CHECK(cs->null_count == (int64_t)floe_vector_null_count(&fx.want[k]));
		}
	}
	int32_t lo, hi;
	memcpy(&lo, wr.stats.columns[1].lower, 4);
	memcpy(&hi, wr.stats.columns[1].upper, 4);
	FLOE_CHECK(lo == 1 - 1000 && hi == 2999 - 1000);
	/* s.c.element: an entry per element, one per null or empty list or null struct. */
	size_t entries = 0, nulls = 0;
	const floe_vector *c = &fx.want[3];
	for (size_t i = 0; i < c->len; i++) {
		size_t n = (size_t)(c->offsets[i + 1] - c->offsets[i]);
		entries += n ? n : 1;
		nulls += n ? 0 : 1;
	}
	nulls += floe_vector_null_count(c->child);
	FLOE_CHECK(wr.stats.columns[3].value_count == (int64_t)entries);
	FLOE_CHECK(wr.stats.columns[3].null_count == (int64_t)nulls);
	/* The footer says the same. */
	floe_parquet_file_stats fs;
	FLOE_CHECK(floe_parquet_reader_file_stats(&fs, wr.reader, wr.arena) == 0);
	for (size_t k = 0; k < N_LEAVES; k++) {
		const floe_parquet_column_stats *a = &wr.stats.columns[k], *b = &fs.columns[k];
		FLOE_CHECK(a->field_id == b->field_id && a->column_size == b->column_size);
		FLOE_CHECK(a->value_count == b->value_count && a->null_count == b->null_count);
		FLOE_CHECK(a->has_lower == b->has_lower && a->has_upper == b->has_upper);
		if (a->has_lower && k != 4) /* doubles: the footer's zero is signed, see test_parquet.c */
			FLOE_CHECK(a->lower_len == b->lower_len && memcmp(a->lower, b->lower, a->lower_len) == 0);
		if (a->has_upper)
			FLOE_CHECK(a->upper_len == b->upper_len && memcmp(a->upper, b->upper, a->upper_len) == 0);
	}
	written_free(&wr);
	fixture_free(&fx);
}

FLOE_TEST(parquet_struct_of_all_nulls_and_required_structs)
{
	/* A required struct with an optional field, every field null: no bounds, all nulls. */
	static const floe_parquet_field kids[] = { { .name = "v", .id = 2, .type = FLOE_VEC_STRING } };
	static const floe_parquet_field f = { .name = "r", .id = 1, .type = FLOE_VEC_STRUCT,
					      .required = true, .children = kids, .n_children = 1 };
	floe_vector v;
	floe_vector_init_struct(&v, 1);
	floe_vector_init(&v.children[0], FLOE_VEC_STRING, 0);
	for (int i = 0; i < 50; i++) {
		floe_vector_append_null(&v.children[0]);
		floe_vector_append_struct(&v);
	}
	floe_parquet_writer_opts o = small_pages();
	written wr;
	FLOE_CHECK(write_open(&wr, "allnull.parquet", &f, 1, &v, 50, &o));
	const floe_parquet_meta *m = floe_parquet_reader_meta(wr.reader);
	FLOE_CHECK(m->n_leaves == 1 && m->leaves[0].max_def == 1);
	FLOE_CHECK(wr.stats.columns[0].null_count == 50 && !wr.stats.columns[0].has_lower);
	written_free(&wr);
	/* The same struct with a null row: refused, it is required. */
	floe_vector_append_null(&v);
	floe_parquet_writer *w = NULL;
	FLOE_CHECK(tk_parquet_create(&w, tmp_path("req.parquet"), &f, 1, &o) == 0);
	FLOE_CHECK(floe_parquet_writer_write_batch(w, &v, 1) < 0);
	FLOE_CHECK(strstr(floe_error_last()->message, "required field") != NULL);
	floe_error_clear();
	floe_parquet_writer_abort(w);
	floe_vector_free(&v);
}

FLOE_TEST(parquet_writer_refuses_bad_structs)
{
	floe_parquet_writer *w = NULL;
	floe_parquet_writer_opts o = small_pages();
	static const floe_parquet_field kids[] = { { .name = "a", .id = 2, .type = FLOE_VEC_INT },
						   { .name = "a", .id = 3, .type = FLOE_VEC_INT } };
	floe_parquet_field empty = { .name = "s", .id = 1, .type = FLOE_VEC_STRUCT };
	FLOE_CHECK(tk_parquet_create(&w, tmp_path("bad.parquet"), &empty, 1, &o) < 0 && !w);
	FLOE_CHECK(strstr(floe_error_last()->message, "at least one field") != NULL);
	floe_error_clear();
	floe_parquet_field twice = { .name = "s", .id = 1, .type = FLOE_VEC_STRUCT, .children = kids, .n_children = 2 };
	FLOE_CHECK(tk_parquet_create(&w, tmp_path("bad.parquet"), &twice, 1, &o) < 0 && !w);
	FLOE_CHECK(strstr(floe_error_last()->message, "share the name") != NULL);
	floe_error_clear();

	/* A vector of another shape, and a value hidden under a null struct row. */
	floe_parquet_field one = { .name = "s", .id = 1, .type = FLOE_VEC_STRUCT, .children = kids, .n_children = 1 };
	floe_vector v;
	floe_vector_init_struct(&v, 2);
	floe_vector_init(&v.children[0], FLOE_VEC_INT, 0);
	floe_vector_init(&v.children[1], FLOE_VEC_INT, 0);
	FLOE_CHECK(tk_parquet_create(&w, tmp_path("bad.parquet"), &one, 1, &o) == 0);
	FLOE_CHECK(floe_parquet_writer_write_batch(w, &v, 1) < 0);
	floe_error_clear();
	floe_parquet_writer_abort(w);
	floe_vector_free(&v);

	floe_vector_init_struct(&v, 1);
	floe_vector_init(&v.children[0], FLOE_VEC_INT, 0);
	floe_vector_append_null(&v);
	floe_vector_append_i32(&v.children[0], 5);
	floe_vector_append_struct(&v);
	v.validity[0] &= (uint8_t)~2u; /* row 1 null, its field not */
	FLOE_CHECK(tk_parquet_create(&w, tmp_path("bad.parquet"), &one, 1, &o) == 0);
	FLOE_CHECK(floe_parquet_writer_write_batch(w, &v, 1) < 0);
	FLOE_CHECK(strstr(floe_error_last()->message, "inside a null struct row") != NULL);
	floe_error_clear();
	floe_parquet_writer_abort(w);
	floe_vector_free(&v);
}

FLOE_TEST(parquet_reader_refuses_a_list_inside_a_list_clearly)
{
	/* list<struct<list<int>>>: floe writes it (Iceberg allows it), its reader names why not. */
	static const floe_parquet_field inner_el = { .name = "element", .id = 4, .type = FLOE_VEC_INT };
	static const floe_parquet_field kids[] = { { .name = "xs", .id = 3, .type = FLOE_VEC_LIST, .element = &inner_el } };
	static const floe_parquet_field el = { .name = "element", .id = 2, .type = FLOE_VEC_STRUCT,
					       .children = kids, .n_children = 1 };
	static const floe_parquet_field f = { .name = "l", .id = 1, .type = FLOE_VEC_LIST, .element = &el };
	floe_vector v;
	floe_vector_init_list(&v, FLOE_VEC_BOOLEAN, 0);
	floe_vector_init_struct(v.child, 1);
	floe_vector_init_list(&v.child->children[0], FLOE_VEC_INT, 0);
	for (int i = 0; i < 10; i++) {
		for (int k = 0; k < i % 3; k++) {
			floe_vector_append_i32(v.child->children[0].child, i);
			floe_vector_append_list(&v.child->children[0]);
			floe_vector_append_struct(v.child);
		}
		floe_vector_append_list(&v);
	}
	floe_parquet_writer_opts o = small_pages();
	written wr;
	FLOE_CHECK(write_open(&wr, "listlist.parquet", &f, 1, &v, 10, &o));
	const floe_parquet_meta *m = floe_parquet_reader_meta(wr.reader);
	FLOE_CHECK(m->n_leaves == 1 && m->leaves[0].max_rep == 2 && m->leaves[0].vtype == 0);
	FLOE_CHECK_STR(m->leaves[0].unsupported, "a list inside a list");
	FLOE_CHECK(wr.stats.columns[0].value_count == 4 + 3 + 3 * 2 && !wr.stats.columns[0].has_lower);
	floe_vector out;
	FLOE_CHECK(floe_parquet_reader_read_column(&out, wr.reader, 0, 0) < 0);
	FLOE_CHECK(strstr(floe_error_last()->message, "a list inside a list") != NULL);
	floe_error_clear();
	floe_vector_free(&out);
	written_free(&wr);
	floe_vector_free(&v);
}
