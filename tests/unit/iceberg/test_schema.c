/*
 * test_schema.c — Iceberg types and schemas: type strings, JSON both ways, the
 * validation rules, id assignment and schema evolution.
 */
#include "harness.h"

#include "base/arena.h"
#include "base/error.h"
#include "base/json.h"
#include "iceberg/schema.h"

static floe_iceberg_schema *parse_schema(floe_arena *a, const char *json)
{
	floe_json_doc *doc = NULL;
	floe_iceberg_schema *s = NULL;
	if (floe_json_parse(&doc, json, strlen(json), NULL) < 0)
		return NULL;
	if (floe_iceberg_schema_from_json(&s, a, floe_json_root(doc)) < 0)
		s = NULL;
	floe_json_free(doc);
	return s;
}

static const char *nested_json =
	"{\"type\":\"struct\",\"schema-id\":3,\"identifier-field-ids\":[1],\"fields\":["
	"{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
	"{\"id\":2,\"name\":\"price\",\"required\":false,\"type\":\"decimal(38, 9)\",\"doc\":\"EUR\"},"
	"{\"id\":3,\"name\":\"tags\",\"required\":false,\"type\":{\"type\":\"list\",\"element-id\":6,"
	"\"element-required\":true,\"element\":\"string\"}},"
	"{\"id\":4,\"name\":\"attrs\",\"required\":false,\"type\":{\"type\":\"map\",\"key-id\":7,"
	"\"key\":\"int\",\"value-id\":8,\"value-required\":false,\"value\":\"fixed[16]\"}},"
	"{\"id\":5,\"name\":\"addr\",\"required\":true,\"type\":{\"type\":\"struct\",\"fields\":["
	"{\"id\":9,\"name\":\"zip\",\"required\":true,\"type\":\"string\"}]}}]}";

FLOE_TEST(iceberg_type_strings)
{
	floe_arena *a = floe_arena_new();
	floe_iceberg_type *t = NULL;
	FLOE_CHECK(floe_iceberg_type_parse(&t, a, "decimal(10, 2)", 14) == 0);
	FLOE_CHECK(t && t->id == FLOE_ICEBERG_DECIMAL && t->precision == 10 && t->scale == 2);
	FLOE_CHECK(floe_iceberg_type_parse(&t, a, "decimal(38,0)", 13) == 0 && t->precision == 38);
	FLOE_CHECK(floe_iceberg_type_parse(&t, a, "fixed[16]", 9) == 0 && t->length == 16);
	FLOE_CHECK(floe_iceberg_type_parse(&t, a, "timestamptz", 11) == 0 &&
		   t->id == FLOE_ICEBERG_TIMESTAMPTZ);
	FLOE_CHECK_STR(floe_iceberg_type_string(a, floe_iceberg_type_decimal(a, 5, 1)), "decimal(5, 1)");
	floe_error_clear();
	FLOE_CHECK(floe_iceberg_type_parse(&t, a, "decimal(10,2", 12) < 0);
	FLOE_CHECK(floe_iceberg_type_parse(&t, a, "varchar", 7) < 0);
	FLOE_CHECK(floe_iceberg_type_parse(&t, a, "fixed[]", 7) < 0);
	FLOE_CHECK(floe_iceberg_type_parse(&t, a, "timestamp_ns", 12) < 0); /* v3 only */
	floe_error_clear();
	floe_arena_free(a);
}

FLOE_TEST(iceberg_schema_json_round_trip)
{
	floe_arena *a = floe_arena_new();
	floe_iceberg_schema *s = parse_schema(a, nested_json), *s2;
	floe_buf out = FLOE_BUF_INIT;
	FLOE_CHECK(s != NULL);
	if (!s)
		goto done;
	FLOE_CHECK(s->schema_id == 3 && s->n_fields == 5 && s->n_identifier_ids == 1);
	FLOE_CHECK(floe_iceberg_schema_validate(s) == 0);
	FLOE_CHECK(floe_iceberg_schema_max_id(s) == 9);
	FLOE_CHECK(floe_iceberg_schema_find(s, 9) && strcmp(floe_iceberg_schema_find(s, 9)->name, "zip") == 0);
	FLOE_CHECK(floe_iceberg_schema_find(s, 7) == NULL); /* map key: no field */
	FLOE_CHECK_STR(s->fields[1].doc, "EUR");
	FLOE_CHECK(floe_iceberg_schema_write_json(&out, s) == 0);
	s2 = parse_schema(a, floe_buf_cstr(&out));
	FLOE_CHECK(s2 && floe_iceberg_schema_equal(s, s2) && s2->schema_id == 3);
	FLOE_CHECK(s2 && s2->fields[3].type->value->id == FLOE_ICEBERG_FIXED &&
		   !s2->fields[3].type->value_required);
	s2 = floe_iceberg_schema_copy(a, s);
	FLOE_CHECK(floe_iceberg_schema_equal(s, s2));
	s2->fields[2].type->element_required = false;
	FLOE_CHECK(!floe_iceberg_schema_equal(s, s2));
done:
	floe_buf_free(&out);
	floe_arena_free(a);
}

static void invalid_schema(const char *json, const char *needle)
{
	floe_arena *a = floe_arena_new();
	floe_iceberg_schema *s = parse_schema(a, json);
	floe_error_clear();
	FLOE_CHECK(s != NULL);
	if (s) {
		FLOE_CHECK(floe_iceberg_schema_validate(s) < 0);
		const floe_error *e = floe_error_last();
		FLOE_CHECK(e && strstr(e->message, needle));
		if (e && !strstr(e->message, needle))
			fprintf(stderr, "    message: %s\n", e->message);
	}
	floe_error_clear();
	floe_arena_free(a);
}

FLOE_TEST(iceberg_schema_validation)
{
	invalid_schema("{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"a\",\"required\":true,"
		       "\"type\":\"int\"},{\"id\":1,\"name\":\"b\",\"required\":true,\"type\":\"int\"}]}",
		       "used twice");
	invalid_schema("{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"a\",\"required\":true,"
		       "\"type\":\"int\"},{\"id\":2,\"name\":\"a\",\"required\":true,\"type\":\"int\"}]}",
		       "two fields are named");
	invalid_schema("{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"a\",\"required\":true,"
		       "\"type\":\"decimal(39, 0)\"}]}", "decimal(39, 0)");
	invalid_schema("{\"type\":\"struct\",\"fields\":[{\"id\":2147483646,\"name\":\"a\","
		       "\"required\":true,\"type\":\"int\"}]}", "invalid id");
	invalid_schema("{\"type\":\"struct\",\"identifier-field-ids\":[1],\"fields\":[{\"id\":1,"
		       "\"name\":\"a\",\"required\":false,\"type\":\"int\"}]}", "identifier field 1");
	invalid_schema("{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"l\",\"required\":true,"
		       "\"type\":{\"type\":\"list\",\"element-id\":1,\"element-required\":true,"
		       "\"element\":\"int\"}}]}", "used twice");
	floe_arena *a = floe_arena_new();
	floe_error_clear();
	FLOE_CHECK(parse_schema(a, "{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"a\"}]}") == NULL);
	FLOE_CHECK(floe_error_last() && strstr(floe_error_last()->message, "required"));
	FLOE_CHECK(parse_schema(a, "{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"a\","
				   "\"required\":true,\"type\":{\"type\":\"variant\"}}]}") == NULL);
	floe_error_clear();
	floe_arena_free(a);
}

FLOE_TEST(iceberg_schema_assign_ids)
{
	floe_arena *a = floe_arena_new();
	floe_iceberg_schema *s = parse_schema(a, nested_json);
	int32_t last = 100;
	if (!s) {
		FLOE_CHECK(s != NULL);
		floe_arena_free(a);
		return;
	}
	floe_iceberg_schema_assign_ids(s, &last);
	/* Breadth first: the five top-level fields first, then what they hold. */
	FLOE_CHECK(s->fields[0].id == 101 && s->fields[4].id == 105);
	FLOE_CHECK(s->fields[2].type->element_id == 106);
	FLOE_CHECK(s->fields[3].type->key_id == 107 && s->fields[3].type->value_id == 108);
	FLOE_CHECK(s->fields[4].type->fields[0].id == 109 && last == 109);
	FLOE_CHECK(s->identifier_ids[0] == 101);
	FLOE_CHECK(floe_iceberg_schema_validate(s) == 0);
	floe_arena_free(a);
}

FLOE_TEST(iceberg_schema_evolution)
{
	floe_arena *a = floe_arena_new();
	floe_iceberg_schema *s = parse_schema(a, nested_json), *next = NULL;
	int32_t last = 9;
	floe_iceberg_type *longt = floe_iceberg_type_new(a, FLOE_ICEBERG_LONG);
	floe_iceberg_type *list = floe_iceberg_type_new(a, FLOE_ICEBERG_LIST);
	list->element = floe_iceberg_type_new(a, FLOE_ICEBERG_INT);
	floe_iceberg_schema_change ok[] = {
		{ FLOE_ICEBERG_ADD_COLUMN, "qty", NULL, floe_iceberg_type_new(a, FLOE_ICEBERG_INT), "count", 0, NULL, 0 },
		{ FLOE_ICEBERG_WIDEN_COLUMN, "qty", NULL, longt, NULL, 0, NULL, 0 },
		{ FLOE_ICEBERG_RENAME_COLUMN, "price", "amount", NULL, NULL, 0, NULL, 0 },
		{ FLOE_ICEBERG_WIDEN_COLUMN, "amount", NULL, floe_iceberg_type_decimal(a, 38, 9), NULL, 0, NULL, 0 },
		{ FLOE_ICEBERG_MAKE_OPTIONAL, "addr", NULL, NULL, NULL, 0, NULL, 0 },
		{ FLOE_ICEBERG_ADD_COLUMN, "addr.city", NULL, floe_iceberg_type_new(a, FLOE_ICEBERG_STRING), NULL, 0, NULL, 0 },
		{ FLOE_ICEBERG_ADD_COLUMN, "codes", NULL, list, NULL, 0, NULL, 0 },
	};
	FLOE_CHECK(s && floe_iceberg_schema_evolve(&next, a, s, 4, &last, ok, 7) == 0);
	if (next) {
		const floe_iceberg_field *q = floe_iceberg_schema_field(next, "qty");
		FLOE_CHECK(next->schema_id == 4 && next->n_fields == 7);
		FLOE_CHECK(q && q->id == 10 && !q->required && q->type->id == FLOE_ICEBERG_LONG);
		FLOE_CHECK(q && q->doc && strcmp(q->doc, "count") == 0);
		FLOE_CHECK(floe_iceberg_schema_field(next, "price") == NULL);
		FLOE_CHECK(floe_iceberg_schema_field(next, "amount")->id == 2);
		FLOE_CHECK(!floe_iceberg_schema_field(next, "addr")->required);
		FLOE_CHECK(floe_iceberg_schema_find(next, 11) &&
			   strcmp(floe_iceberg_schema_find(next, 11)->name, "city") == 0);
		FLOE_CHECK(floe_iceberg_schema_field(next, "codes")->id == 12);
		FLOE_CHECK(floe_iceberg_schema_field(next, "codes")->type->element_id == 13);
		FLOE_CHECK(last == 13);
	}
	/* The base is untouched. */
	FLOE_CHECK(s && s->n_fields == 5 && strcmp(s->fields[1].name, "price") == 0);

	struct {
		floe_iceberg_schema_change c;
		const char *needle;
	} bad[] = {
		{ { FLOE_ICEBERG_ADD_COLUMN, "id", NULL, longt, NULL, 0, NULL, 0 }, "exists already" },
		{ { FLOE_ICEBERG_RENAME_COLUMN, "id", "tags", NULL, NULL, 0, NULL, 0 }, "is taken" },
		{ { FLOE_ICEBERG_RENAME_COLUMN, "nope", "x", NULL, NULL, 0, NULL, 0 }, "no column \"nope\"" },
		{ { FLOE_ICEBERG_WIDEN_COLUMN, "id", NULL, floe_iceberg_type_new(a, FLOE_ICEBERG_INT), NULL, 0, NULL, 0 },
		  "from long to int" },
		{ { FLOE_ICEBERG_WIDEN_COLUMN, "price", NULL, floe_iceberg_type_decimal(a, 38, 8), NULL, 0, NULL, 0 },
		  "cannot change column" },
		{ { FLOE_ICEBERG_WIDEN_COLUMN, "tags", NULL, longt, NULL, 0, NULL, 0 }, "cannot change column" },
		{ { FLOE_ICEBERG_MAKE_OPTIONAL, "id", NULL, NULL, NULL, 0, NULL, 0 }, "identifier field" },
		{ { FLOE_ICEBERG_ADD_COLUMN, "tags.x", NULL, longt, NULL, 0, NULL, 0 }, "no struct column" },
	};
	for (size_t i = 0; s && i < sizeof(bad) / sizeof(bad[0]); i++) {
		int32_t l2 = 9;
		floe_error_clear();
		next = NULL;
		FLOE_CHECK(floe_iceberg_schema_evolve(&next, a, s, 4, &l2, &bad[i].c, 1) < 0);
		FLOE_CHECK(next == NULL && l2 == 9);
		const floe_error *e = floe_error_last();
		FLOE_CHECK(e && strstr(e->message, bad[i].needle));
		if (e && !strstr(e->message, bad[i].needle))
			fprintf(stderr, "    case %zu: %s\n", i, e->message);
		FLOE_CHECK(e && e->cls == FLOE_ERR_USAGE);
	}
	floe_error_clear();
	floe_arena_free(a);
}

/* The caller's field ids for an addition (nested ones too), and deletion: spent ids stay spent. */
FLOE_TEST(iceberg_schema_evolution_with_given_ids_and_deletes)
{
	floe_arena *a = floe_arena_new();
	floe_iceberg_schema *s = parse_schema(a, nested_json), *next = NULL;
	int32_t last = 9;
	floe_iceberg_type *st = floe_iceberg_type_new(a, FLOE_ICEBERG_STRUCT);
	st->n_fields = 2;
	st->fields = floe_arena_alloc(a, 2 * sizeof(*st->fields));
	st->fields[0] = (floe_iceberg_field){ 31, "x", false, floe_iceberg_type_new(a, FLOE_ICEBERG_INT), NULL };
	st->fields[1] = (floe_iceberg_field){ 32, "y", false, floe_iceberg_type_new(a, FLOE_ICEBERG_STRING), NULL };
	floe_iceberg_schema_change ok[] = {
		{ FLOE_ICEBERG_DELETE_COLUMN, "price", NULL, NULL, NULL, 0, NULL, 0 },
		{ FLOE_ICEBERG_ADD_COLUMN, "price", NULL, floe_iceberg_type_new(a, FLOE_ICEBERG_STRING), NULL, 20, NULL, 0 },
		{ FLOE_ICEBERG_ADD_COLUMN, "pt", NULL, st, NULL, 30, NULL, 0 },
		{ FLOE_ICEBERG_ADD_COLUMN, "n", NULL, floe_iceberg_type_new(a, FLOE_ICEBERG_INT), NULL, 0, NULL, 0 },
	};
	FLOE_CHECK(s && floe_iceberg_schema_evolve(&next, a, s, 5, &last, ok, 4) == 0);
	if (next) {
		FLOE_CHECK(next->n_fields == 7 && floe_iceberg_schema_find(next, 2) == NULL);
		FLOE_CHECK(floe_iceberg_schema_field(next, "price")->id == 20);
		FLOE_CHECK(floe_iceberg_schema_field(next, "pt")->id == 30 && floe_iceberg_schema_find(next, 32));
		FLOE_CHECK(floe_iceberg_schema_field(next, "n")->id == 33 && last == 33);
	}
	/* The key moves: identifiers set to none, then the old identifier column may go. */
	floe_iceberg_schema_change rekey[] = {
		{ FLOE_ICEBERG_SET_IDENTIFIERS, NULL, NULL, NULL, NULL, 0, NULL, 0 },
		{ FLOE_ICEBERG_DELETE_COLUMN, "id", NULL, NULL, NULL, 0, NULL, 0 },
	};
	int32_t l3 = 9;
	next = NULL;
	FLOE_CHECK(s && floe_iceberg_schema_evolve(&next, a, s, 6, &l3, rekey, 2) == 0);
	FLOE_CHECK(next && next->n_identifier_ids == 0 && floe_iceberg_schema_field(next, "id") == NULL);
	static const int32_t not_required[] = { 4 };
	floe_iceberg_schema_change badkey = { FLOE_ICEBERG_SET_IDENTIFIERS, NULL, NULL, NULL, NULL, 0, not_required, 1 };
	floe_error_clear();
	FLOE_CHECK(s && floe_iceberg_schema_evolve(&next, a, s, 6, &l3, &badkey, 1) < 0);
	FLOE_CHECK(floe_error_last() && strstr(floe_error_last()->message, "identifier field 4"));
	struct {
		floe_iceberg_schema_change c;
		const char *needle;
	} bad[] = {
		{ { FLOE_ICEBERG_ADD_COLUMN, "q", NULL, floe_iceberg_type_new(a, FLOE_ICEBERG_INT), NULL, 9, NULL, 0 },
		  "never reused" },
		{ { FLOE_ICEBERG_ADD_COLUMN, "q", NULL, st, NULL, 40, NULL, 0 }, "not all given" }, /* x's id unset below */
		{ { FLOE_ICEBERG_DELETE_COLUMN, "id", NULL, NULL, NULL, 0, NULL, 0 }, "identifier field" },
		{ { FLOE_ICEBERG_DELETE_COLUMN, "nope", NULL, NULL, NULL, 0, NULL, 0 }, "no column \"nope\"" },
	};
	st->fields[0].id = 0;
	for (size_t i = 0; s && i < sizeof(bad) / sizeof(bad[0]); i++) {
		int32_t l2 = 9;
		floe_error_clear();
		next = NULL;
		FLOE_CHECK(floe_iceberg_schema_evolve(&next, a, s, 5, &l2, &bad[i].c, 1) < 0);
		const floe_error *e = floe_error_last();
		FLOE_CHECK(next == NULL && l2 == 9 && e && strstr(e->message, bad[i].needle));
		if (e && !strstr(e->message, bad[i].needle))
			fprintf(stderr, "    case %zu: %s\n", i, e->message);
	}
	floe_error_clear();
	floe_arena_free(a);
}

FLOE_TEST(iceberg_type_promotion_rules)
{
	floe_arena *a = floe_arena_new();
	floe_iceberg_type *i = floe_iceberg_type_new(a, FLOE_ICEBERG_INT);
	floe_iceberg_type *l = floe_iceberg_type_new(a, FLOE_ICEBERG_LONG);
	floe_iceberg_type *f = floe_iceberg_type_new(a, FLOE_ICEBERG_FLOAT);
	floe_iceberg_type *d = floe_iceberg_type_new(a, FLOE_ICEBERG_DOUBLE);
	FLOE_CHECK(floe_iceberg_type_promotable(i, l) && !floe_iceberg_type_promotable(l, i));
	FLOE_CHECK(floe_iceberg_type_promotable(f, d) && !floe_iceberg_type_promotable(i, d));
	FLOE_CHECK(floe_iceberg_type_promotable(floe_iceberg_type_decimal(a, 9, 2),
						floe_iceberg_type_decimal(a, 18, 2)));
	FLOE_CHECK(!floe_iceberg_type_promotable(floe_iceberg_type_decimal(a, 9, 2),
						 floe_iceberg_type_decimal(a, 18, 3)));
	FLOE_CHECK(!floe_iceberg_type_promotable(floe_iceberg_type_new(a, FLOE_ICEBERG_DATE),
						 floe_iceberg_type_new(a, FLOE_ICEBERG_TIMESTAMP)));
	floe_arena_free(a);
}
