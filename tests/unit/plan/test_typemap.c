/*
 * test_typemap.c — the PostgreSQL → Iceberg type table: every row is reachable
 * by the type it names, the decisions docs/types.md states hold for concrete
 * types (typmods, domains, arrays, enums, composites, extension types), and
 * docs/types.md is exactly what `floe plan --types` prints.
 */
#include "harness.h"
#include "base/arena.h"
#include "base/fs.h"
#include "plan/plan.h"

static floe_pg_type *mk(floe_arena *a, const char *schema, const char *name, char typtype, char category)
{
	floe_pg_type *t = floe_arena_alloc(a, sizeof(*t));
	t->schema = schema;
	t->name = name;
	t->display = name;
	t->quoted = name;
	t->typtype = typtype;
	t->category = category;
	return t;
}

static floe_pg_type *builtin(floe_arena *a, const char *name)
{
	return mk(a, "pg_catalog", name, 'b', 'U');
}

static floe_pg_type *array_of(floe_arena *a, const floe_pg_type *el)
{
	floe_pg_type *t = mk(a, el->schema, floe_arena_printf(a, "_%s", el->name), 'b', 'A');
	t->display = floe_arena_printf(a, "%s[]", el->display);
	t->element = el;
	return t;
}

static floe_pg_type *domain(floe_arena *a, const char *name, const floe_pg_type *base, int typmod)
{
	floe_pg_type *t = mk(a, "public", name, 'd', base->category);
	t->base = base;
	t->base_typmod = typmod;
	t->domain_checks = true;
	return t;
}

static floe_pg_type *composite(floe_arena *a, const char *name, size_t n, const char **names,
			       const floe_pg_type **types)
{
	floe_pg_type *t = mk(a, "public", name, 'c', 'C');
	t->attrs = floe_arena_alloc(a, sizeof(*t->attrs) * n);
	t->n_attrs = n;
	for (size_t i = 0; i < n; i++) {
		t->attrs[i].name = names[i];
		t->attrs[i].quoted = names[i];
		t->attrs[i].type = types[i];
		t->attrs[i].typmod = -1;
	}
	return t;
}

static int numeric_typmod(int p, int s)
{
	return ((p << 16) | (s & 0x7ff)) + 4;
}

static floe_plan_mapping map(floe_arena *a, const floe_pg_type *t, int typmod)
{
	floe_plan_mapping m;
	floe_plan_map_type(&m, a, t, typmod, "c");
	return m;
}

static const char *type_text(floe_arena *a, const floe_plan_mapping *m)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_plan_type_text(&b, m->type);
	const char *s = floe_arena_strdup(a, floe_buf_cstr(&b));
	floe_buf_free(&b);
	return s;
}

#define CHECK_MAP(t, typmod, want_type, want_class)                                  \
	do {                                                                            \
		floe_plan_mapping m_ = map(a, (t), (typmod));                               \
		FLOE_CHECK_STR(type_text(a, &m_), want_type);                               \
		FLOE_CHECK_STR(floe_type_class_name(m_.cls), want_class);                   \
	} while (0)

FLOE_TEST(typemap_every_builtin_row_is_reached_by_its_type)
{
	floe_arena *a = floe_arena_new();
	for (size_t i = 0; i < floe_type_rule_count(); i++) {
		const floe_type_rule *r = floe_type_rule_at(i);
		if (r->key[0] == '#' || strchr(r->key, '#') || strcmp(r->key, "numeric") == 0)
			continue;
		floe_plan_mapping m = map(a, builtin(a, r->key), -1);
		FLOE_CHECK(m.rule == r);
		FLOE_CHECK(m.cls == r->cls);
		FLOE_CHECK((m.type == NULL) == (r->cls == FLOE_CLASS_REFUSED));
		if (m.rule != r)
			fprintf(stderr, "    %s mapped by row %s\n", r->key, m.rule ? m.rule->key : "-");
	}
	floe_arena_free(a);
}

FLOE_TEST(typemap_scalars)
{
	floe_arena *a = floe_arena_new();
	CHECK_MAP(builtin(a, "bool"), -1, "boolean", "exact");
	CHECK_MAP(builtin(a, "int2"), -1, "int", "widening");
	CHECK_MAP(builtin(a, "int4"), -1, "int", "exact");
	CHECK_MAP(builtin(a, "int8"), -1, "long", "exact");
	CHECK_MAP(builtin(a, "float4"), -1, "float", "exact");
	CHECK_MAP(builtin(a, "float8"), -1, "double", "exact");
	CHECK_MAP(builtin(a, "money"), -1, "decimal(19,2)", "lossy");
	CHECK_MAP(builtin(a, "bpchar"), 9, "string", "exact");
	CHECK_MAP(builtin(a, "bytea"), -1, "binary", "exact");
	CHECK_MAP(builtin(a, "date"), -1, "date", "exact");
	CHECK_MAP(builtin(a, "time"), -1, "time", "exact");
	CHECK_MAP(builtin(a, "timetz"), -1, "string", "exact");
	CHECK_MAP(builtin(a, "timestamp"), -1, "timestamp", "exact");
	CHECK_MAP(builtin(a, "timestamptz"), -1, "timestamptz", "exact");
	CHECK_MAP(builtin(a, "interval"), -1, "string", "exact");
	CHECK_MAP(builtin(a, "uuid"), -1, "uuid", "exact");
	CHECK_MAP(builtin(a, "jsonb"), -1, "string", "exact");
	CHECK_MAP(builtin(a, "oid"), -1, "long", "widening");
	CHECK_MAP(builtin(a, "regclass"), -1, "long", "widening");
	CHECK_MAP(builtin(a, "xid8"), -1, "decimal(20,0)", "widening");
	CHECK_MAP(builtin(a, "int2vector"), -1, "list<int>", "widening");
	CHECK_MAP(builtin(a, "pg_node_tree"), -1, "—", "refused");
	floe_plan_mapping m = map(a, builtin(a, "jsonb"), -1);
	FLOE_CHECK_STR(m.extract, "c::text");
	FLOE_CHECK(m.converted);
	m = map(a, builtin(a, "regclass"), -1);
	FLOE_CHECK_STR(m.extract, "c::oid::int8");
	m = map(a, builtin(a, "oidvector"), -1);
	FLOE_CHECK_STR(m.extract, "(c::oid[]::int8[])[:]");
	m = map(a, builtin(a, "int4"), -1);
	FLOE_CHECK_STR(m.extract, "c");
	FLOE_CHECK(!m.converted);
	floe_arena_free(a);
}

FLOE_TEST(typemap_numeric_precision_and_scale)
{
	floe_arena *a = floe_arena_new();
	floe_pg_type *n = builtin(a, "numeric");
	CHECK_MAP(n, numeric_typmod(12, 2), "decimal(12,2)", "exact");
	CHECK_MAP(n, numeric_typmod(38, 0), "decimal(38,0)", "exact");
	CHECK_MAP(n, numeric_typmod(38, 38), "decimal(38,38)", "exact");
	CHECK_MAP(n, numeric_typmod(39, 2), "string", "exact");
	CHECK_MAP(n, numeric_typmod(5, -2), "decimal(7,0)", "exact");   /* PostgreSQL 15: negative scale */
	CHECK_MAP(n, numeric_typmod(3, 5), "decimal(5,5)", "exact");    /* scale above precision */
	CHECK_MAP(n, numeric_typmod(37, -2), "string", "exact");        /* 39 integer digits */
	CHECK_MAP(n, -1, "string", "exact");
	FLOE_CHECK_STR(map(a, n, -1).extract, "c::text");
	FLOE_CHECK_STR(map(a, n, numeric_typmod(12, 2)).extract, "c");
	floe_arena_free(a);
}

FLOE_TEST(typemap_arrays_domains_enums)
{
	floe_arena *a = floe_arena_new();
	CHECK_MAP(array_of(a, builtin(a, "int4")), -1, "list<int>", "exact");
	CHECK_MAP(array_of(a, builtin(a, "numeric")), numeric_typmod(8, 3), "list<decimal(8,3)>", "exact");
	CHECK_MAP(array_of(a, builtin(a, "money")), -1, "list<decimal(19,2)>", "lossy");
	FLOE_CHECK_STR(map(a, array_of(a, builtin(a, "jsonb")), -1).extract, "c::text[]");
	FLOE_CHECK_STR(map(a, array_of(a, builtin(a, "int4")), -1).extract, "c");
	floe_pg_type *mood = mk(a, "public", "mood", 'e', 'E');
	CHECK_MAP(mood, -1, "string", "exact");
	FLOE_CHECK_STR(map(a, array_of(a, mood), -1).extract, "c::text[]");
	floe_pg_type *pos = domain(a, "posint", builtin(a, "int4"), -1);
	CHECK_MAP(pos, -1, "int", "exact");
	floe_plan_mapping m = map(a, pos, -1);
	FLOE_CHECK_STR(m.extract, "c::int4");
	FLOE_CHECK(strstr(m.note, "domain posint over int4") && strstr(m.note, "not carried"));
	FLOE_CHECK_STR(map(a, array_of(a, pos), -1).extract, "c::int4[]");
	floe_pg_type *price = domain(a, "price", builtin(a, "numeric"), numeric_typmod(10, 2));
	CHECK_MAP(price, -1, "decimal(10,2)", "exact");
	CHECK_MAP(array_of(a, builtin(a, "int2vector")), -1, "—", "refused");
	floe_arena_free(a);
}

FLOE_TEST(typemap_composites)
{
	floe_arena *a = floe_arena_new();
	const char *names[] = { "street", "loc" };
	const floe_pg_type *plain[] = { builtin(a, "text"), builtin(a, "int4") };
	floe_pg_type *simple = composite(a, "simple", 2, names, plain);
	CHECK_MAP(simple, -1, "struct<street: string, loc: int>", "exact");
	FLOE_CHECK_STR(map(a, simple, -1).extract, "c");
	CHECK_MAP(array_of(a, simple), -1, "list<struct<street: string, loc: int>>", "exact");
	const floe_pg_type *conv[] = { builtin(a, "text"), builtin(a, "point") };
	floe_pg_type *addr = composite(a, "addr", 2, names, conv);
	CHECK_MAP(addr, -1, "struct<street: string, loc: string>", "exact");
	FLOE_CHECK_STR(map(a, addr, -1).extract,
		       "CASE WHEN num_nulls(c) = 1 THEN NULL ELSE ROW((c).street, (c).loc::text) END");
	CHECK_MAP(array_of(a, addr), -1, "—", "refused");
	const floe_pg_type *lossy[] = { builtin(a, "text"), builtin(a, "money") };
	floe_plan_mapping m = map(a, composite(a, "pay", 2, names, lossy), -1);
	FLOE_CHECK(m.cls == FLOE_CLASS_LOSSY && strstr(m.note, "loc: the currency"));
	const floe_pg_type *bad[] = { builtin(a, "text"), builtin(a, "pg_node_tree") };
	m = map(a, composite(a, "bad", 2, names, bad), -1);
	FLOE_CHECK(m.cls == FLOE_CLASS_REFUSED && m.type == NULL && strstr(m.note, "loc:"));
	floe_arena_free(a);
}

FLOE_TEST(typemap_extension_types)
{
	floe_arena *a = floe_arena_new();
	CHECK_MAP(mk(a, "public", "citext", 'b', 'S'), -1, "string", "exact");
	floe_plan_mapping m = map(a, mk(a, "public", "hstore", 'b', 'U'), -1);
	FLOE_CHECK(m.cls == FLOE_CLASS_REFUSED && strstr(m.note, "hstore") && strstr(m.note, "type table"));
	CHECK_MAP(mk(a, "public", "floatrange", 'r', 'R'), -1, "string", "exact");
	CHECK_MAP(mk(a, "pg_catalog", "unknown", 'p', 'X'), -1, "—", "refused");
	floe_arena_free(a);
}

FLOE_TEST(typemap_docs_types_md_is_the_table)
{
	floe_buf doc = FLOE_BUF_INIT, want = FLOE_BUF_INIT;
	FLOE_CHECK(floe_fs_read_file(&doc, "docs/types.md") == 0);
	floe_plan_types_markdown(&want);
	const char *begin = strstr(floe_buf_cstr(&doc), "<!-- types:begin (floe plan --types) -->\n");
	const char *end = begin ? strstr(begin, "<!-- types:end -->") : NULL;
	FLOE_CHECK(begin && end);
	if (begin && end) {
		begin = strchr(begin, '\n') + 1;
		bool same = (size_t)(end - begin) == want.len && memcmp(begin, want.ptr, want.len) == 0;
		FLOE_CHECK(same);
		if (!same)
			fprintf(stderr, "    docs/types.md differs from `floe plan --types`: regenerate its table\n");
	}
	floe_buf_free(&doc);
	floe_buf_free(&want);
}
