/*
 * test_vector.c — row comparison (the key order of bronze upserts, and their row equality) and
 * bulk copies, of flat, list and struct vectors nested in each other.
 */
#include "harness.h"
#include "parquet_testkit.h"
#include "vector/vector.h"

#include <math.h>

FLOE_TEST(vector_compare_rows_orders_like_postgres_c_collation)
{
	floe_vector s;
	floe_vector_init(&s, FLOE_VEC_STRING, 0);
	floe_vector_append_bytes(&s, "ab", 2);
	floe_vector_append_bytes(&s, "abc", 3);
	floe_vector_append_bytes(&s, "b", 1);
	floe_vector_append_null(&s);
	floe_vector_append_bytes(&s, "\xc3\xa9", 2);
	FLOE_CHECK(floe_vector_compare_rows(&s, 0, &s, 1) < 0);
	FLOE_CHECK(floe_vector_compare_rows(&s, 1, &s, 2) < 0);
	FLOE_CHECK(floe_vector_compare_rows(&s, 3, &s, 0) < 0);
	FLOE_CHECK(floe_vector_compare_rows(&s, 3, &s, 3) == 0);
	FLOE_CHECK(floe_vector_compare_rows(&s, 2, &s, 4) < 0);
	FLOE_CHECK(floe_vector_compare_rows(&s, 1, &s, 1) == 0);
	floe_vector_free(&s);

	floe_vector d;
	floe_vector_init(&d, FLOE_VEC_DOUBLE, 0);
	floe_vector_append_f64(&d, -0.0);
	floe_vector_append_f64(&d, 0.0);
	floe_vector_append_f64(&d, NAN);
	floe_vector_append_f64(&d, 1e300);
	FLOE_CHECK(floe_vector_compare_rows(&d, 0, &d, 1) < 0);
	FLOE_CHECK(floe_vector_compare_rows(&d, 3, &d, 2) < 0);
	FLOE_CHECK(floe_vector_compare_rows(&d, 2, &d, 2) == 0);
	floe_vector_free(&d);

	floe_vector l;
	floe_vector_init_list(&l, FLOE_VEC_LONG, 0);
	floe_vector_append_i64(l.child, 1);
	floe_vector_append_i64(l.child, 2);
	floe_vector_append_list(&l);
	floe_vector_append_i64(l.child, 1);
	floe_vector_append_list(&l);
	floe_vector_append_i64(l.child, 1);
	floe_vector_append_i64(l.child, 2);
	floe_vector_append_list(&l);
	FLOE_CHECK(floe_vector_compare_rows(&l, 1, &l, 0) < 0);
	FLOE_CHECK(floe_vector_compare_rows(&l, 0, &l, 2) == 0);
	floe_vector_free(&l);

	floe_vector dec;
	floe_vector_init(&dec, FLOE_VEC_DECIMAL, 0);
	floe_vector_append_dec(&dec, floe_dec128_from_i64(-5));
	floe_vector_append_dec(&dec, floe_dec128_from_i64(3));
	FLOE_CHECK(floe_vector_compare_rows(&dec, 0, &dec, 1) < 0);
	floe_vector_free(&dec);
}

FLOE_TEST(vector_append_rows_equals_row_by_row)
{
	floe_vector src, a, b;
	floe_vector_init_list(&src, FLOE_VEC_STRING, 0);
	for (int r = 0; r < 300; r++) {
		if (r % 7 == 3) {
			floe_vector_append_null(&src);
			continue;
		}
		for (int e = 0; e < r % 4; e++) {
			if ((r + e) % 5 == 0)
				floe_vector_append_null(src.child);
			else
				floe_vector_append_bytes(src.child, "abcdef", (size_t)(r + e) % 6);
		}
		floe_vector_append_list(&src);
	}
	floe_vector_init_list(&a, FLOE_VEC_STRING, 0);
	floe_vector_init_list(&b, FLOE_VEC_STRING, 0);
	floe_vector_append_row(&a, &src, 0);
	floe_vector_append_row(&b, &src, 0);
	floe_vector_append_rows(&a, &src, 5, 200);
	for (size_t i = 5; i < 205; i++)
		floe_vector_append_row(&b, &src, i);
	FLOE_CHECK(a.len == b.len && a.child->len == b.child->len);
	for (size_t i = 0; i < a.len; i++)
		FLOE_CHECK(floe_vector_compare_rows(&a, i, &b, i) == 0 &&
			   floe_vector_is_valid(&a, i) == floe_vector_is_valid(&b, i));
	floe_vector_free(&src);
	floe_vector_free(&a);
	floe_vector_free(&b);
}

FLOE_TEST(vector_struct_rows_compare_and_copy_in_bulk)
{
	floe_vector s, d;
	floe_vector_init_struct(&s, 2);
	floe_vector_init(&s.children[0], FLOE_VEC_INT, 0);
	floe_vector_init(&s.children[1], FLOE_VEC_STRING, 0);
	for (int r = 0; r < 10; r++) {
		if (r == 4) {
			floe_vector_append_null(&s);
			continue;
		}
		floe_vector_append_i32(&s.children[0], r % 3);
		floe_vector_append_bytes(&s.children[1], "xyz", (size_t)r % 4);
		floe_vector_append_struct(&s);
	}
	floe_vector_init_struct(&d, 2);
	floe_vector_init(&d.children[0], FLOE_VEC_INT, 0);
	floe_vector_init(&d.children[1], FLOE_VEC_STRING, 0);
	floe_vector_append_rows(&d, &s, 2, 6);
	FLOE_CHECK(d.len == 6 && d.children[0].len == 6 && !floe_vector_is_valid(&d, 2));
	for (size_t i = 0; i < 6; i++)
		FLOE_CHECK(floe_vector_compare_rows(&d, i, &s, i + 2) == 0);
	FLOE_CHECK(floe_vector_compare_rows(&s, 0, &s, 3) < 0); /* (0,"") < (0,"xyz") */
	FLOE_CHECK(floe_vector_compare_rows(&s, 4, &s, 0) < 0); /* null first */
	floe_vector_free(&s);
	floe_vector_free(&d);
}

/* homes: list<struct { street string, tags list<string> }>, the shape of an addr[] column. */
static void homes_init(floe_vector *v)
{
	floe_vector_init_list(v, FLOE_VEC_BOOLEAN, 0);
	floe_vector_init_struct(v->child, 2);
	floe_vector_init(&v->child->children[0], FLOE_VEC_STRING, 0);
	floe_vector_init_list(&v->child->children[1], FLOE_VEC_STRING, 0);
}

/* Row r: NULL, [], [NULL], [(NULL, NULL)], [(s, {}), (s, {NULL, t})], ... by r % 6. */
static void homes_row(floe_vector *v, int r)
{
	floe_vector *el = v->child, *street = &el->children[0], *tags = &el->children[1];
	int kind = r % 6;
	if (kind == 0) {
		floe_vector_append_null(v);
		return;
	}
	if (kind == 2)
		floe_vector_append_null(el);
	for (int e = 0; kind >= 3 && e < kind - 2; e++) {
		if (kind == 3) {
			floe_vector_append_null(street);
			floe_vector_append_null(tags);
		} else {
			floe_vector_append_bytes(street, "street", (size_t)(r + e) % 7);
			for (int t = 0; t < e; t++) {
				if (t == 0)
					floe_vector_append_null(tags->child);
				else
					floe_vector_append_bytes(tags->child, "tag", (size_t)(r % 3));
			}
			floe_vector_append_list(tags);
		}
		floe_vector_append_struct(el);
	}
	floe_vector_append_list(v);
}

FLOE_TEST(vector_lists_of_structs_with_lists_copy_in_bulk_and_compare_by_value)
{
	floe_vector src, bulk, one;
	homes_init(&src);
	homes_init(&bulk);
	homes_init(&one);
	for (int r = 0; r < 120; r++)
		homes_row(&src, r);
	/* Copied from the middle in bulk (as a merge copies unchanged rows) or row by row. */
	floe_vector_append_rows(&bulk, &src, 0, 1);
	floe_vector_append_rows(&bulk, &src, 7, 100);
	floe_vector_append_row(&one, &src, 0);
	for (size_t i = 7; i < 107; i++)
		floe_vector_append_row(&one, &src, i);
	FLOE_CHECK(same_layout(&bulk, &one) && nulls_nest(&bulk));
	for (size_t i = 1; i < bulk.len; i++)
		FLOE_CHECK(floe_vector_compare_rows(&bulk, i, &src, i + 6) == 0);
	/* NULL, [], [NULL], [(NULL, NULL)] and the rest: each differs from every other kind. */
	for (int a = 0; a < 6; a++)
		for (int b = 0; b < 6; b++)
			FLOE_CHECK((floe_vector_compare_rows(&src, (size_t)a, &src, (size_t)b) == 0) == (a == b));
	/* A difference deep inside: one tag changed. */
	floe_vector_clear(&one);
	homes_row(&one, 5);
	floe_vector *tags = one.child->children[1].child;
	FLOE_CHECK(floe_vector_compare_rows(&one, 0, &src, 5) == 0);
	tags->data[tags->data_len - 1] ^= 1;
	FLOE_CHECK(floe_vector_compare_rows(&one, 0, &src, 5) != 0);
	floe_vector_free(&src);
	floe_vector_free(&bulk);
	floe_vector_free(&one);
}

FLOE_TEST(vector_dec128_fits_at_every_precision)
{
	/* 10^p - 1 fits p digits and 10^p does not, either sign, on both sides of 64 bits. */
	i128 pow = 1;
	for (int p = 1; p <= 38; p++) {
		pow *= 10;
		i128 in[4] = { pow - 1, -(pow - 1), pow, -pow };
		for (int k = 0; k < 4; k++) {
			floe_dec128 d = { (uint64_t)in[k], (int64_t)(in[k] >> 64) };
			if (floe_dec128_fits(d, p) != (k < 2))
				floe_test_fail(__FILE__, __LINE__, "10^p at a precision boundary");
			if (!floe_dec128_fits(d, p + (p < 38)) && p < 38)
				floe_test_fail(__FILE__, __LINE__, "a value of p + 1 digits");
		}
	}
	floe_dec128 zero = { 0, 0 }, big = { 0, INT64_MAX };
	FLOE_CHECK(floe_dec128_fits(zero, 1) && !floe_dec128_fits(zero, 0) && !floe_dec128_fits(zero, 39));
	FLOE_CHECK(!floe_dec128_fits(big, 38));
}
