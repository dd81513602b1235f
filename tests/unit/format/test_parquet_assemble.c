/*
 * test_parquet_assemble.c — top-level fields read whole (floe_parquet_reader_read_field):
 * every nesting of structs and lists floe's writer writes, with random values, nulls at every
 * level, empty lists and structs of nulls, across pages and row groups, read back into the very
 * vectors written (values, validity, offsets, nulls under null structs); the fields floe cannot
 * rebuild named with their reason; and hostile files (leaves that disagree) refused.
 */
#include "harness.h"
#include "nested_values.h"
#include "parquet_testkit.h"

#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "base/fs.h"
#include "format/parquet.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- the schema: one top-level field per shape ---- */

#define F(n, i, t, ...) { .name = n, .id = i, .type = FLOE_VEC_##t, __VA_ARGS__ }

/* s: struct { a int, b string, c list<long>, d struct { x double, y decimal(20,3) required } } */
static const floe_parquet_field S_C = F("element", 6, LONG);
static const floe_parquet_field S_D[] = { F("x", 8, DOUBLE), F("y", 9, DECIMAL, .precision = 20, .scale = 3, .required = true) };
static const floe_parquet_field S[] = { F("a", 3, INT), F("b", 4, STRING), F("c", 5, LIST, .element = &S_C),
					F("d", 7, STRUCT, .children = S_D, .n_children = 2) };
/* ls: list<struct { p int, q string }> */
static const floe_parquet_field LS_F[] = { F("p", 12, INT), F("q", 13, STRING) };
static const floe_parquet_field LS_E = F("element", 11, STRUCT, .children = LS_F, .n_children = 2);
/* homes: list<struct { street string, zip int, tags list<string> }> (addr[] of a PostgreSQL table) */
static const floe_parquet_field H_T = F("element", 19, STRING);
static const floe_parquet_field H_F[] = { F("street", 16, STRING), F("zip", 17, INT), F("tags", 18, LIST, .element = &H_T) };
static const floe_parquet_field H_E = F("element", 15, STRUCT, .children = H_F, .n_children = 3);
/* ll: list<list<int>> */
static const floe_parquet_field LL_I = F("element", 22, INT);
static const floe_parquet_field LL_E = F("element", 21, LIST, .element = &LL_I);
/* rs: required struct { r1 int required, r2 list<struct { v uuid, w boolean } required> required } */
static const floe_parquet_field RS_EF[] = { F("v", 27, UUID), F("w", 28, BOOLEAN) };
static const floe_parquet_field RS_E = F("element", 26, STRUCT, .children = RS_EF, .n_children = 2, .required = true);
static const floe_parquet_field RS[] = { F("r1", 24, INT, .required = true),
					 F("r2", 25, LIST, .element = &RS_E, .required = true) };
/* deep: struct { l list<struct { m list<struct { v int, t timestamptz }>, z binary }> } */
static const floe_parquet_field DP_MF[] = { F("v", 35, INT), F("t", 36, TIMESTAMPTZ) };
static const floe_parquet_field DP_ME = F("element", 34, STRUCT, .children = DP_MF, .n_children = 2);
static const floe_parquet_field DP_LF[] = { F("m", 33, LIST, .element = &DP_ME), F("z", 37, BINARY) };
static const floe_parquet_field DP_LE = F("element", 32, STRUCT, .children = DP_LF, .n_children = 2);
static const floe_parquet_field DP[] = { F("l", 31, LIST, .element = &DP_LE) };
/* one: struct { only list<date> } */
static const floe_parquet_field ONE_E = F("element", 42, DATE);
static const floe_parquet_field ONE[] = { F("only", 41, LIST, .element = &ONE_E) };
/* tags: list<string>; name: string */
static const floe_parquet_field TAGS_E = F("element", 51, STRING);

static const floe_parquet_field FIELDS[] = {
	F("id", 1, LONG, .required = true),
	F("s", 2, STRUCT, .children = S, .n_children = 4),
	F("ls", 10, LIST, .element = &LS_E),
	F("homes", 14, LIST, .element = &H_E),
	F("ll", 20, LIST, .element = &LL_E),
	F("rs", 23, STRUCT, .children = RS, .n_children = 2, .required = true),
	F("deep", 30, STRUCT, .children = DP, .n_children = 1),
	F("one", 40, STRUCT, .children = ONE, .n_children = 1),
	F("tags", 50, LIST, .element = &TAGS_E),
	F("name", 60, STRING),
};
enum { N_FIELDS = sizeof(FIELDS) / sizeof(FIELDS[0]) };

/* ---- rows ---- */

static void gen_rows(fx_nested *g, floe_vector *cols, size_t rows)
{
	for (size_t c = 0; c < N_FIELDS; c++)
		fx_nested_init(&cols[c], &FIELDS[c]);
	for (size_t i = 0; i < rows; i++) {
		floe_vector_append_i64(&cols[0], (int64_t)i);
		for (size_t c = 1; c < N_FIELDS; c++)
			fx_nested_value(g, &FIELDS[c], &cols[c]);
	}
}

static void free_cols(floe_vector *cols, size_t n)
{
	for (size_t c = 0; c < n; c++)
		floe_vector_free(&cols[c]);
}

/* Write `cols` in batches of `batch` rows (bulk copies, as a merge emits them). */
static bool write_file(const char *path, const floe_parquet_field *fields, size_t n, const floe_vector *cols,
		       size_t batch, const floe_parquet_writer_opts *o)
{
	floe_parquet_writer *w = NULL;
	floe_vector part[N_FIELDS];
	bool ok = false;
	for (size_t c = 0; c < n; c++)
		fx_nested_init(&part[c], &fields[c]);
	if (tk_parquet_create(&w, path, fields, n, o) < 0)
		goto done;
	for (size_t r = 0; r < cols[0].len; r += batch) {
		size_t k = r + batch < cols[0].len ? batch : cols[0].len - r;
		for (size_t c = 0; c < n; c++) {
			floe_vector_clear(&part[c]);
			floe_vector_append_rows(&part[c], &cols[c], r, k);
		}
		if (floe_parquet_writer_write_batch(w, part, n) < 0) {
			floe_parquet_writer_abort(w);
			goto done;
		}
	}
	ok = floe_parquet_writer_close(NULL, w, NULL) == 0;
done:
	if (!ok)
		floe_error_print(stderr);
	free_cols(part, n);
	return ok;
}

/* Every row group of field `f` read whole, appended in bulk to `out` (of its shape). */
static bool read_whole(floe_vector *out, floe_parquet_reader *r, size_t f)
{
	const floe_parquet_meta *m = floe_parquet_reader_meta(r);
	fx_nested_init(out, &FIELDS[f]);
	for (size_t g = 0; g < m->n_row_groups; g++) {
		floe_vector v;
		if (floe_parquet_reader_read_field(&v, r, g, f) < 0) {
			floe_error_print(stderr);
			return false;
		}
		bool ok = (int64_t)v.len == m->row_groups[g].num_rows && nulls_nest(&v) &&
			  floe_vector_same_shape(&v, out);
		if (ok)
			floe_vector_append_rows(out, &v, 0, v.len);
		floe_vector_free(&v);
		if (!ok)
			return false;
	}
	return true;
}

static floe_parquet_writer_opts small(floe_parquet_codec codec)
{
	floe_parquet_writer_opts o = FLOE_PARQUET_WRITER_OPTS_INIT;
	o.codec = codec;
	o.page_rows = 50;
	o.page_bytes = 2048;
	o.row_group_bytes = 24000;
	return o;
}

static void round_trip(const char *name, floe_parquet_codec codec, size_t rows, size_t batch, uint64_t seed)
{
	fx_nested g = { .rng = seed };
	floe_vector cols[N_FIELDS];
	floe_parquet_writer_opts o = small(codec);
	floe_parquet_reader *r = NULL;
	gen_rows(&g, cols, rows);
	FLOE_CHECK(g.null_structs && g.structs_of_nulls && g.null_lists && g.empty_lists && g.null_elements);
	for (size_t c = 0; c < N_FIELDS; c++)
		FLOE_CHECK(nulls_nest(&cols[c]));
	FLOE_CHECK(write_file(tmp_path(name), FIELDS, N_FIELDS, cols, batch, &o));
	FLOE_CHECK(tk_parquet_open(&r, path_of(name), NULL) == 0);
	if (!r)
		goto done;
	const floe_parquet_meta *m = floe_parquet_reader_meta(r);
	FLOE_CHECK(m->n_fields == N_FIELDS && m->n_row_groups > 2);
	for (size_t f = 0; f < N_FIELDS && f < m->n_fields; f++) {
		const floe_parquet_top_field *tf = &m->fields[f];
		FLOE_CHECK_STR(tf->name, FIELDS[f].name);
		FLOE_CHECK(tf->has_field_id && tf->field_id == FIELDS[f].id && tf->vtype == FIELDS[f].type);
		FLOE_CHECK(!tf->unsupported);
		floe_vector got;
		bool read = read_whole(&got, r, f);
		FLOE_CHECK(read);
		if (read && !same_layout(&got, &cols[f]))
			floe_test_fail(__FILE__, __LINE__, FIELDS[f].name);
		for (size_t i = 0; read && i < rows; i++)
			if (floe_vector_compare_rows(&got, i, &cols[f], i) != 0) {
				floe_test_fail(__FILE__, __LINE__, "a row compares unequal");
				break;
			}
		floe_vector_free(&got);
	}
	/* The leaves of a field are contiguous and all of its. */
	FLOE_CHECK(m->fields[3].first_leaf == 8 && m->fields[3].n_leaves == 3);
	FLOE_CHECK(m->fields[N_FIELDS - 1].first_leaf + 1 == m->n_leaves);
done:
	floe_parquet_reader_free(r);
	free_cols(cols, N_FIELDS);
}

FLOE_TEST(parquet_fields_read_whole_equal_the_vectors_written_zstd)
{
	round_trip("nested_zstd.parquet", FLOE_PARQUET_ZSTD, 3000, 333, 1);
}

FLOE_TEST(parquet_fields_read_whole_equal_the_vectors_written_plain_snappy)
{
	round_trip("nested_snappy.parquet", FLOE_PARQUET_SNAPPY, 1500, 1500, 2);
	round_trip("nested_none.parquet", FLOE_PARQUET_UNCOMPRESSED, 700, 64, 3);
}

FLOE_TEST(parquet_field_read_keeps_null_structs_apart_from_structs_of_nulls)
{
	/* addr: struct { street string, zip int, tags list<string> }, rows: NULL, (NULL, NULL, NULL),
	 * ('', 0, {}), ('x', 1, {NULL}), ('y', NULL, NULL) — what PostgreSQL's records can be. */
	static const floe_parquet_field f = F("home", 1, STRUCT, .children = H_F, .n_children = 3);
	floe_vector v, got;
	floe_parquet_reader *r = NULL;
	floe_parquet_writer_opts o = small(FLOE_PARQUET_ZSTD);
	fx_nested_init(&v, &f);
	floe_vector *street = &v.children[0], *zip = &v.children[1], *tags = &v.children[2];
	floe_vector_append_null(&v);
	floe_vector_append_null(street);
	floe_vector_append_null(zip);
	floe_vector_append_null(tags);
	floe_vector_append_struct(&v);
	floe_vector_append_bytes(street, "", 0);
	floe_vector_append_i32(zip, 0);
	floe_vector_append_list(tags);
	floe_vector_append_struct(&v);
	floe_vector_append_bytes(street, "x", 1);
	floe_vector_append_i32(zip, 1);
	floe_vector_append_null(tags->child);
	floe_vector_append_list(tags);
	floe_vector_append_struct(&v);
	floe_vector_append_bytes(street, "y", 1);
	floe_vector_append_null(zip);
	floe_vector_append_null(tags);
	floe_vector_append_struct(&v);
	FLOE_CHECK(write_file(tmp_path("home.parquet"), &f, 1, &v, 5, &o));
	FLOE_CHECK(tk_parquet_open(&r, path_of("home.parquet"), NULL) == 0);
	FLOE_CHECK(r && floe_parquet_reader_read_field(&got, r, 0, 0) == 0);
	FLOE_CHECK(same_layout(&got, &v));
	FLOE_CHECK(!floe_vector_is_valid(&got, 0) && floe_vector_is_valid(&got, 1));
	for (size_t k = 0; k < 3; k++) /* a null record is null in its fields; a record of nulls too */
		FLOE_CHECK(!floe_vector_is_valid(&got.children[k], 0) && !floe_vector_is_valid(&got.children[k], 1));
	const floe_vector *t = &got.children[2];
	FLOE_CHECK(floe_vector_is_valid(t, 2) && t->offsets[3] == t->offsets[2]);   /* {} */
	FLOE_CHECK(t->offsets[4] - t->offsets[3] == 1 && !floe_vector_is_valid(t->child, 0)); /* {NULL} */
	FLOE_CHECK(!floe_vector_is_valid(t, 4));                                     /* NULL */
	/* A merge tells them apart: every pair of these rows compares unequal. */
	for (size_t i = 0; i < got.len; i++)
		for (size_t j = 0; j < got.len; j++)
			FLOE_CHECK((floe_vector_compare_rows(&got, i, &v, j) == 0) == (i == j));
	floe_vector_free(&got);
	floe_parquet_reader_free(r);
	floe_vector_free(&v);
}

FLOE_TEST(parquet_field_read_of_a_list_in_a_struct_in_a_list_where_leaves_refuse)
{
	/* A leaf inside two lists cannot be read alone; its field reads whole. */
	fx_nested g = { .rng = 9 };
	floe_vector cols[N_FIELDS];
	floe_parquet_writer_opts o = small(FLOE_PARQUET_SNAPPY);
	floe_parquet_reader *r = NULL;
	o.row_group_bytes = 1 << 20; /* one row group holds all 200 rows, whatever the encodings */
	gen_rows(&g, cols, 200);
	FLOE_CHECK(write_file(tmp_path("homes.parquet"), FIELDS, N_FIELDS, cols, 200, &o));
	FLOE_CHECK(tk_parquet_open(&r, path_of("homes.parquet"), NULL) == 0);
	const floe_parquet_meta *m = floe_parquet_reader_meta(r);
	const floe_parquet_leaf *tags = &m->leaves[m->fields[3].first_leaf + 2];
	FLOE_CHECK_STR(tags->path, "homes.list.element.tags.list.element");
	FLOE_CHECK(tags->vtype == 0 && tags->max_rep == 2);
	FLOE_CHECK_STR(tags->unsupported, "a list inside a list");
	floe_vector v;
	FLOE_CHECK(floe_parquet_reader_read_column(&v, r, 0, m->fields[3].first_leaf + 2) < 0);
	floe_error_clear();
	FLOE_CHECK(floe_parquet_reader_read_field(&v, r, 0, 3) == 0 && same_layout(&v, &cols[3]));
	floe_vector_free(&v);
	/* A field that is not there. */
	FLOE_CHECK(floe_parquet_reader_read_field(&v, r, 0, N_FIELDS) < 0);
	FLOE_CHECK(strstr(floe_error_last()->message, "no field") != NULL);
	floe_error_clear();
	floe_parquet_reader_free(r);
	free_cols(cols, N_FIELDS);
}

/* ---- hostile files ---- */

FLOE_TEST(parquet_field_read_refuses_leaves_that_disagree)
{
	/* Every byte of an uncompressed file of nested fields flipped: a field reads with its row
	 * count and the writer's layout, or fails with a message — and some flips make leaves
	 * disagree, which assembly must catch. */
	fx_nested g = { .rng = 4 };
	floe_vector cols[N_FIELDS];
	floe_parquet_writer_opts o = small(FLOE_PARQUET_UNCOMPRESSED);
	o.dictionary_bytes = 0;
	gen_rows(&g, cols, 30);
	FLOE_CHECK(write_file(tmp_path("flip.parquet"), FIELDS, N_FIELDS, cols, 30, &o));
	floe_buf file = FLOE_BUF_INIT;
	FLOE_CHECK(floe_fs_read_file(&file, path_of("flip.parquet")) == 0);
	uint8_t *copy = floe_xmalloc(file.len);
	floe_parquet_reader_opts ro = { .max_footer_bytes = 1 << 16, .max_page_bytes = 1 << 16, .max_values = 1 << 12, .skip_page_crc = false };
	size_t disagree = 0, read = 0;
	for (size_t i = 4; i + 8 < file.len; i++) {
		static const uint8_t masks[] = { 0x01, 0x02, 0x10 };
		for (size_t k = 0; k < sizeof(masks); k++) {
			floe_parquet_reader *r = NULL;
			memcpy(copy, file.ptr, file.len);
			copy[i] ^= masks[k];
			if (floe_parquet_reader_open_mem(&r, copy, file.len, &ro) < 0) {
				floe_error_clear();
				continue;
			}
			const floe_parquet_meta *m = floe_parquet_reader_meta(r);
			for (size_t gi = 0; gi < m->n_row_groups; gi++) {
				for (size_t f = 0; f < m->n_fields; f++) {
					floe_vector out;
					if (floe_parquet_reader_read_field(&out, r, gi, f) == 0) {
						FLOE_CHECK((int64_t)out.len == m->row_groups[gi].num_rows && nulls_nest(&out));
						read++;
						floe_vector_free(&out);
						continue;
					}
					const floe_error *e = floe_error_last();
					FLOE_CHECK(e && e->message[0]);
					disagree += e && strstr(e->message, "disagree") != NULL;
					floe_error_clear();
				}
			}
			floe_parquet_reader_free(r);
		}
	}
	FLOE_CHECK(disagree > 0 && read > 0);
	free(copy);
	floe_buf_free(&file);
	free_cols(cols, N_FIELDS);
}
