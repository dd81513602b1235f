/*
 * columns.c — from the deployed plan's columns (Iceberg field ids and types) to
 * the Iceberg schema, the Parquet fields and the COPY decoder's column specs.
 */
#include "bronze/bronze_int.h"
#include "base/arena.h"
#include "base/error.h"

#include <stdlib.h>
#include <string.h>

static int vec_of(floe_vec_type *out, const floe_iceberg_type *t)
{
	static const struct { floe_iceberg_type_id id; floe_vec_type vec; } map[] = {
		{ FLOE_ICEBERG_BOOLEAN, FLOE_VEC_BOOLEAN }, { FLOE_ICEBERG_INT, FLOE_VEC_INT },
		{ FLOE_ICEBERG_LONG, FLOE_VEC_LONG }, { FLOE_ICEBERG_FLOAT, FLOE_VEC_FLOAT },
		{ FLOE_ICEBERG_DOUBLE, FLOE_VEC_DOUBLE }, { FLOE_ICEBERG_DECIMAL, FLOE_VEC_DECIMAL },
		{ FLOE_ICEBERG_DATE, FLOE_VEC_DATE }, { FLOE_ICEBERG_TIME, FLOE_VEC_TIME },
		{ FLOE_ICEBERG_TIMESTAMP, FLOE_VEC_TIMESTAMP }, { FLOE_ICEBERG_TIMESTAMPTZ, FLOE_VEC_TIMESTAMPTZ },
		{ FLOE_ICEBERG_STRING, FLOE_VEC_STRING }, { FLOE_ICEBERG_UUID, FLOE_VEC_UUID },
		{ FLOE_ICEBERG_FIXED, FLOE_VEC_FIXED }, { FLOE_ICEBERG_BINARY, FLOE_VEC_BINARY },
		{ FLOE_ICEBERG_LIST, FLOE_VEC_LIST }, { FLOE_ICEBERG_STRUCT, FLOE_VEC_STRUCT },
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (map[i].id == t->id) {
			*out = map[i].vec;
			return 0;
		}
	return -1;
}

int floe_bronze_lock_type(floe_iceberg_type **out, floe_arena *a, const floe_lock_type *lt)
{
	if (lt->kind == FLOE_PLAN_PRIMITIVE)
		return floe_iceberg_type_parse(out, a, lt->primitive, strlen(lt->primitive));
	if (lt->kind == FLOE_PLAN_LIST) {
		floe_iceberg_type *t = floe_iceberg_type_new(a, FLOE_ICEBERG_LIST);
		t->element_id = lt->element_id;
		t->element_required = lt->element_required;
		*out = t;
		return floe_bronze_lock_type(&t->element, a, lt->element);
	}
	floe_iceberg_type *t = floe_iceberg_type_new(a, FLOE_ICEBERG_STRUCT);
	t->n_fields = lt->n_fields;
	t->fields = floe_arena_alloc(a, (lt->n_fields + 1) * sizeof(floe_iceberg_field));
	for (size_t i = 0; i < lt->n_fields; i++) {
		const floe_lock_field *lf = &lt->fields[i];
		t->fields[i].id = lf->id;
		t->fields[i].name = lf->name;
		t->fields[i].required = lf->required;
		if (floe_bronze_lock_type(&t->fields[i].type, a, lf->type) < 0)
			return floe_error_context("in field \"%s\"", lf->name);
	}
	*out = t;
	return 0;
}

/*
 * The Parquet field and the COPY spec of one Iceberg field, nested ones included. `oid` and
 * `elem_oid` are the described result type and array element type of a column; nested specs
 * get 0: each nested value carries its own type, checked against the vector type.
 */
static void shapes(floe_parquet_field *f, floe_pg_copy_column *c, floe_arena *a, const char *name,
		   int32_t id, bool required, const floe_iceberg_type *t, uint32_t oid, uint32_t elem_oid)
{
	floe_vec_type vec = FLOE_VEC_STRING;
	vec_of(&vec, t);
	*f = (floe_parquet_field){ .name = name, .id = id, .required = required, .type = vec,
				   .precision = t->precision, .scale = t->scale,
				   .length = t->id == FLOE_ICEBERG_UUID ? 16 : t->length };
	*c = (floe_pg_copy_column){ .name = name, .type_oid = oid, .vec = vec, .width = f->length, .precision = t->precision,
				    .scale = t->scale,
				    .infinity = FLOE_PG_INFINITY_CLAMP /* the plan states how infinity is carried */ };
	if (vec == FLOE_VEC_LIST) {
		floe_parquet_field *e = floe_arena_alloc(a, sizeof(*e));
		floe_pg_copy_column *ec = floe_arena_alloc(a, sizeof(*ec));
		shapes(e, ec, a, "element", t->element_id, t->element_required, t->element, elem_oid, 0);
		f->element = e;
		c->element = ec;
		c->elem_oid = elem_oid;
		c->elem_vec = ec->vec;
		c->elem_precision = ec->precision;
		c->elem_scale = ec->scale;
	} else if (vec == FLOE_VEC_STRUCT) {
		floe_parquet_field *ch = floe_arena_alloc(a, (t->n_fields + 1) * sizeof(*ch));
		floe_pg_copy_column *cc = floe_arena_alloc(a, (t->n_fields + 1) * sizeof(*cc));
		for (size_t i = 0; i < t->n_fields; i++)
			shapes(&ch[i], &cc[i], a, t->fields[i].name, t->fields[i].id, t->fields[i].required,
			       t->fields[i].type, 0, 0);
		f->children = ch;
		f->n_children = c->n_fields = t->n_fields;
		c->fields = cc;
	}
}

static int one_column(bronze_columns *out, floe_arena *a, const floe_lock_column *lc, size_t i,
		      uint32_t oid, uint32_t elem_oid)
{
	floe_iceberg_field *f = &out->schema->fields[i];
	floe_pg_copy_column *c = &out->copy[i];
	if (floe_bronze_lock_type(&f->type, a, lc->type) < 0)
		return floe_error_context("in column \"%s\"", lc->name);
	f->id = lc->id;
	f->name = lc->name;
	f->required = lc->required;
	shapes(&out->fields[i], c, a, lc->name, lc->id, lc->required, f->type, oid, elem_oid);
	return 0;
}

int bronze_columns_build(bronze_columns *out, floe_arena *a, const floe_lock_table *t,
			 const uint32_t *oids, const uint32_t *elem_oids, size_t n)
{
	if (n != t->n_columns) {
		floe_error_set(FLOE_ERR_CONFIG, "the extraction query of %s returns %zu columns, the plan has %zu",
			       t->bronze, n, t->n_columns);
		floe_error_hint("An edit of its pipeline/bronze file must keep the plan's columns; "
				"run `floe generate` after a schema change.");
		return -1;
	}
	out->n = n;
	out->schema = floe_arena_alloc(a, sizeof(*out->schema));
	out->schema->n_fields = n;
	out->schema->fields = floe_arena_alloc(a, (n + 1) * sizeof(floe_iceberg_field));
	out->fields = floe_arena_alloc(a, (n + 1) * sizeof(floe_parquet_field));
	out->copy = floe_arena_alloc(a, (n + 1) * sizeof(floe_pg_copy_column));
	for (size_t i = 0; i < n; i++)
		if (one_column(out, a, &t->columns[i], i, oids[i], elem_oids[i]) < 0)
			return -1;
	/* The primary key is the table's identifier (Iceberg's upsert key). */
	out->schema->identifier_ids = floe_arena_alloc(a, (t->n_key + 1) * sizeof(int32_t));
	for (size_t k = 0; k < t->n_key; k++)
		for (size_t i = 0; i < n; i++)
			if (strcmp(t->key[k], t->columns[i].name) == 0 && t->columns[i].required)
				out->schema->identifier_ids[out->schema->n_identifier_ids++] = t->columns[i].id;
	if (out->schema->n_identifier_ids != t->n_key)
		out->schema->n_identifier_ids = 0;
	return 0;
}

floe_vector *bronze_vectors_new(floe_arena *a, const bronze_columns *cols)
{
	floe_vector *v = floe_arena_alloc(a, (cols->n + 1) * sizeof(floe_vector));
	for (size_t i = 0; i < cols->n; i++)
		floe_pg_copy_vector_init(&v[i], &cols->copy[i]);
	return v;
}

void bronze_vectors_clear(floe_vector *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		/* A batch that held one huge value (a 50 MB text) gives its bytes back: the writer has
		 * copied them, and keeping them would hold that memory for the rest of the load. */
		if (v[i].data_cap > BRONZE_BATCH_BYTES && !v[i].child && !v[i].n_children) {
			free(v[i].data);
			v[i].data = NULL;
			v[i].data_cap = 0;
		}
		floe_vector_clear(&v[i]);
	}
}

void bronze_vectors_free(floe_vector *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		floe_vector_free(&v[i]);
}
