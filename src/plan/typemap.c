/*
 * typemap.c — the PostgreSQL → Iceberg v2 type table and the mapping that
 * applies it to a column's type (through domains, arrays and composites).
 *
 * The table below is the single source of docs/types.md (`floe plan --types`
 * prints it; a unit test checks the file agrees). Extraction casts make the
 * extraction query's output types a closed set the loader decodes: bool,
 * int2/4/8, float4/8, numeric, text (and varchar/bpchar), bytea, date, time,
 * timestamp, timestamptz, uuid, arrays of those, and records of those (composite
 * types, or ROW(...) when an attribute needs a cast), nested in any way but arrays
 * of arrays and arrays of ROW(...).
 */
#include "plan/plan.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/json.h"

#include <string.h>

#define S_TEXT "text"
#define NOTE_INF_TS "exact for every finite value; 'infinity' and '-infinity' are carried as the " \
	"type's largest and smallest values (2^63−1 and −2^63 µs): lossy for those two values only"
#define NOTE_GEO "PostgreSQL's text form, which reads back to the same value (floats in shortest " \
	"exact form)"
#define NOTE_RANGE "the range's text form ('[1,10)'), which reads back to the same value"
#define NOTE_MULTIRANGE "the multirange's text form ('{[1,3),[5,7)}'), which reads back to the same value"
#define NOTE_REG "the object's OID, not its name: the name it stands for in the source is not carried"
#define NOTE_INTERNAL "a catalog-internal type that only PostgreSQL itself writes"

static const floe_type_rule rules[] = {
	{ "bool", "boolean (bool)", "boolean", FLOE_CLASS_EXACT, NULL, "" },
	{ "int2", "smallint (int2)", "int", FLOE_CLASS_WIDENING, NULL,
	  "Iceberg has no 16-bit integer; every value fits in int" },
	{ "int4", "integer (int4)", "int", FLOE_CLASS_EXACT, NULL, "" },
	{ "int8", "bigint (int8)", "long", FLOE_CLASS_EXACT, NULL, "" },
	{ "float4", "real (float4)", "float", FLOE_CLASS_EXACT, NULL,
	  "NaN and ±Infinity are carried as IEEE 754 values" },
	{ "float8", "double precision (float8)", "double", FLOE_CLASS_EXACT, NULL,
	  "NaN and ±Infinity are carried as IEEE 754 values" },
	{ "numeric#fits", "numeric(p,s) needing at most 38 digits", "decimal(P,S)", FLOE_CLASS_EXACT, NULL,
	  "S = max(s,0), P = max(p−s,0) + S (a negative scale or one above the precision fits too); "
	  "decimal has no NaN: a NaN value stops the load" },
	{ "numeric#wide", "numeric(p,s) needing more than 38 digits", "string", FLOE_CLASS_EXACT, S_TEXT,
	  "the exact decimal text: Iceberg's decimal stops at 38 digits" },
	{ "numeric", "numeric (no precision)", "string", FLOE_CLASS_EXACT, S_TEXT,
	  "the exact decimal text (any number of digits, NaN, ±Infinity); declare numeric(p,s) "
	  "with at most 38 digits to get decimal" },
	{ "money", "money", "decimal(19,2)", FLOE_CLASS_LOSSY, "numeric",
	  "the currency is not carried (money stores none; lc_monetary only formats it); a value "
	  "with more than 2 fractional digits stops the load" },
	{ "bpchar", "character(n) (bpchar)", "string", FLOE_CLASS_EXACT, NULL,
	  "padded to n with spaces, padding kept" },
	{ "varchar", "character varying(n) (varchar)", "string", FLOE_CLASS_EXACT, NULL, "" },
	{ "text", "text", "string", FLOE_CLASS_EXACT, NULL, "" },
	{ "name", "name", "string", FLOE_CLASS_EXACT, S_TEXT, "" },
	{ "char", "\"char\"", "string", FLOE_CLASS_EXACT, S_TEXT,
	  "the one-byte internal type; a non-ASCII byte arrives as PostgreSQL prints it (\\ooo)" },
	{ "bytea", "bytea", "binary", FLOE_CLASS_EXACT, NULL, "" },
	{ "date", "date", "date", FLOE_CLASS_EXACT, NULL,
	  "exact for every finite date; 'infinity' and '-infinity' are carried as the type's largest "
	  "and smallest values (2147483647 and −2147483648 days): lossy for those two values only" },
	{ "time", "time without time zone", "time", FLOE_CLASS_EXACT, NULL,
	  "microseconds since midnight; '24:00:00' arrives as 86400000000" },
	{ "timetz", "time with time zone (timetz)", "string", FLOE_CLASS_EXACT, S_TEXT,
	  "ISO text with its UTC offset ('12:34:56.789+02'): Iceberg's time has no zone, and "
	  "shifting to UTC would change the value and wrap around midnight" },
	{ "timestamp", "timestamp without time zone", "timestamp", FLOE_CLASS_EXACT, NULL, NOTE_INF_TS },
	{ "timestamptz", "timestamp with time zone (timestamptz)", "timestamptz", FLOE_CLASS_EXACT, NULL,
	  "an instant in UTC (the session time zone only formats it); " NOTE_INF_TS },
	{ "interval", "interval", "string", FLOE_CLASS_EXACT, S_TEXT,
	  "ISO 8601 duration text ('P1Y2M3DT4H5M6.5S'), months, days and microseconds kept apart: "
	  "Iceberg has no interval type" },
	{ "uuid", "uuid", "uuid", FLOE_CLASS_EXACT, NULL, "" },
	{ "json", "json", "string", FLOE_CLASS_EXACT, S_TEXT,
	  "the text as stored: whitespace, key order and duplicate keys kept" },
	{ "jsonb", "jsonb", "string", FLOE_CLASS_EXACT, S_TEXT,
	  "jsonb's canonical text (PostgreSQL normalised key order, spacing and duplicates on input)" },
	{ "jsonpath", "jsonpath", "string", FLOE_CLASS_EXACT, S_TEXT, "" },
	{ "xml", "xml", "string", FLOE_CLASS_EXACT, S_TEXT, "the document's text" },
	{ "inet", "inet", "string", FLOE_CLASS_EXACT, S_TEXT, "'192.0.2.1/24' text, netmask kept" },
	{ "cidr", "cidr", "string", FLOE_CLASS_EXACT, S_TEXT, "'192.0.2.0/24' text" },
	{ "macaddr", "macaddr", "string", FLOE_CLASS_EXACT, S_TEXT, "'08:00:2b:01:02:03' text" },
	{ "macaddr8", "macaddr8", "string", FLOE_CLASS_EXACT, S_TEXT, "'08:00:2b:01:02:03:04:05' text" },
	{ "bit", "bit(n)", "string", FLOE_CLASS_EXACT, S_TEXT, "'0101' text, length kept" },
	{ "varbit", "bit varying(n) (varbit)", "string", FLOE_CLASS_EXACT, S_TEXT, "'0101' text, length kept" },
	{ "tsvector", "tsvector", "string", FLOE_CLASS_EXACT, S_TEXT,
	  "the text form (lexemes, positions, weights), which reads back to the same value" },
	{ "tsquery", "tsquery", "string", FLOE_CLASS_EXACT, S_TEXT,
	  "the text form, which reads back to the same value" },
	{ "point", "point", "string", FLOE_CLASS_EXACT, S_TEXT, NOTE_GEO },
	{ "line", "line", "string", FLOE_CLASS_EXACT, S_TEXT, NOTE_GEO },
	{ "lseg", "lseg", "string", FLOE_CLASS_EXACT, S_TEXT, NOTE_GEO },
	{ "box", "box", "string", FLOE_CLASS_EXACT, S_TEXT, NOTE_GEO },
	{ "path", "path", "string", FLOE_CLASS_EXACT, S_TEXT, NOTE_GEO },
	{ "polygon", "polygon", "string", FLOE_CLASS_EXACT, S_TEXT, NOTE_GEO },
	{ "circle", "circle", "string", FLOE_CLASS_EXACT, S_TEXT, NOTE_GEO },
	{ "int4range", "int4range", "string", FLOE_CLASS_EXACT, S_TEXT, NOTE_RANGE },
	{ "int8range", "int8range", "string", FLOE_CLASS_EXACT, S_TEXT, NOTE_RANGE },
	{ "numrange", "numrange", "string", FLOE_CLASS_EXACT, S_TEXT, NOTE_RANGE },
	{ "daterange", "daterange", "string", FLOE_CLASS_EXACT, S_TEXT, NOTE_RANGE },
	{ "tsrange", "tsrange", "string", FLOE_CLASS_EXACT, S_TEXT, NOTE_RANGE },
	{ "tstzrange", "tstzrange", "string", FLOE_CLASS_EXACT, S_TEXT, NOTE_RANGE " (bounds in UTC)" },
	{ "int4multirange", "int4multirange", "string", FLOE_CLASS_EXACT, S_TEXT, NOTE_MULTIRANGE },
	{ "int8multirange", "int8multirange", "string", FLOE_CLASS_EXACT, S_TEXT, NOTE_MULTIRANGE },
	{ "nummultirange", "nummultirange", "string", FLOE_CLASS_EXACT, S_TEXT, NOTE_MULTIRANGE },
	{ "datemultirange", "datemultirange", "string", FLOE_CLASS_EXACT, S_TEXT, NOTE_MULTIRANGE },
	{ "tsmultirange", "tsmultirange", "string", FLOE_CLASS_EXACT, S_TEXT, NOTE_MULTIRANGE },
	{ "tstzmultirange", "tstzmultirange", "string", FLOE_CLASS_EXACT, S_TEXT,
	  NOTE_MULTIRANGE " (bounds in UTC)" },
	{ "#range", "other range and multirange types", "string", FLOE_CLASS_EXACT, S_TEXT,
	  "the text form, which reads back to the same value" },
	{ "oid", "oid", "long", FLOE_CLASS_WIDENING, "int8", "unsigned 32-bit: every value fits in long" },
	{ "regclass", "regclass", "long", FLOE_CLASS_WIDENING, "oid::int8", NOTE_REG },
	{ "regcollation", "regcollation", "long", FLOE_CLASS_WIDENING, "oid::int8", NOTE_REG },
	{ "regconfig", "regconfig", "long", FLOE_CLASS_WIDENING, "oid::int8", NOTE_REG },
	{ "regdictionary", "regdictionary", "long", FLOE_CLASS_WIDENING, "oid::int8", NOTE_REG },
	{ "regnamespace", "regnamespace", "long", FLOE_CLASS_WIDENING, "oid::int8", NOTE_REG },
	{ "regoper", "regoper", "long", FLOE_CLASS_WIDENING, "oid::int8", NOTE_REG },
	{ "regoperator", "regoperator", "long", FLOE_CLASS_WIDENING, "oid::int8", NOTE_REG },
	{ "regproc", "regproc", "long", FLOE_CLASS_WIDENING, "oid::int8", NOTE_REG },
	{ "regprocedure", "regprocedure", "long", FLOE_CLASS_WIDENING, "oid::int8", NOTE_REG },
	{ "regrole", "regrole", "long", FLOE_CLASS_WIDENING, "oid::int8", NOTE_REG },
	{ "regtype", "regtype", "long", FLOE_CLASS_WIDENING, "oid::int8", NOTE_REG },
	{ "xid", "xid", "long", FLOE_CLASS_WIDENING, "text::int8",
	  "unsigned 32-bit transaction id, meaningful only in the source" },
	{ "xid8", "xid8", "decimal(20,0)", FLOE_CLASS_WIDENING, "text::numeric",
	  "unsigned 64-bit transaction id, meaningful only in the source" },
	{ "cid", "cid", "long", FLOE_CLASS_WIDENING, "text::int8", "unsigned 32-bit command id" },
	{ "tid", "tid", "string", FLOE_CLASS_EXACT, S_TEXT,
	  "'(block,offset)': a physical row address, changed by UPDATE and VACUUM FULL" },
	{ "pg_lsn", "pg_lsn", "string", FLOE_CLASS_EXACT, S_TEXT, "'16/B374D848' text" },
	{ "pg_snapshot", "pg_snapshot", "string", FLOE_CLASS_EXACT, S_TEXT, "'xmin:xmax:xip,…' text" },
	{ "txid_snapshot", "txid_snapshot", "string", FLOE_CLASS_EXACT, S_TEXT, "'xmin:xmax:xip,…' text" },
	{ "aclitem", "aclitem", "string", FLOE_CLASS_EXACT, S_TEXT, "'role=arwd/grantor' text" },
	{ "refcursor", "refcursor", "string", FLOE_CLASS_EXACT, S_TEXT, "the cursor's name" },
	{ "int2vector", "int2vector", "list<int>", FLOE_CLASS_WIDENING, "int2[]",
	  "a catalog vector (counted from 0) as a list counted from 1 (a slice); elements widen as smallint does" },
	{ "oidvector", "oidvector", "list<long>", FLOE_CLASS_WIDENING, "oid[]::int8[]",
	  "a catalog vector (counted from 0) as a list counted from 1 (a slice); elements widen as oid does" },
	{ "gtsvector", "gtsvector", "—", FLOE_CLASS_REFUSED, NULL,
	  "an index-internal type without an input function" },
	{ "pg_node_tree", "pg_node_tree", "—", FLOE_CLASS_REFUSED, NULL, NOTE_INTERNAL },
	{ "pg_ndistinct", "pg_ndistinct", "—", FLOE_CLASS_REFUSED, NULL, NOTE_INTERNAL },
	{ "pg_dependencies", "pg_dependencies", "—", FLOE_CLASS_REFUSED, NULL, NOTE_INTERNAL },
	{ "pg_mcv_list", "pg_mcv_list", "—", FLOE_CLASS_REFUSED, NULL, NOTE_INTERNAL },
	{ "pg_brin_bloom_summary", "pg_brin_bloom_summary", "—", FLOE_CLASS_REFUSED, NULL, NOTE_INTERNAL },
	{ "pg_brin_minmax_multi_summary", "pg_brin_minmax_multi_summary", "—", FLOE_CLASS_REFUSED, NULL,
	  NOTE_INTERNAL },
	{ "#array", "T[] (an array of a mapped type)", "list<T>", FLOE_CLASS_EXACT, "T[]",
	  "elements mapped as T is, class and note as T's; elements may be null; a value with more "
	  "than one dimension or a lower bound other than 1 stops the load" },
	{ "#array_refused", "arrays of vectors, or of composites needing conversion", "—",
	  FLOE_CLASS_REFUSED, NULL,
	  "not carried: a list of lists; not yet: an array of a composite type with an attribute that "
	  "needs a conversion (an enum, a domain, a type carried as text), whose every element the "
	  "extraction would have to rebuild; exclude the table, or keep such arrays out of it" },
	{ "#enum", "enum types", "string", FLOE_CLASS_EXACT, S_TEXT,
	  "the label; the allowed labels become accepted-values tests in silver" },
	{ "#domain", "domains", "as the base type", FLOE_CLASS_EXACT, "base type",
	  "mapped as the base type is (class and note as the base's); the domain's NOT NULL and CHECK "
	  "constraints are not carried (silver tests them)" },
	{ "#composite", "composite types", "struct<…>", FLOE_CLASS_EXACT, "ROW(…) when an attribute needs one",
	  "each attribute mapped by this table into a struct field (nested composites and arrays "
	  "included); a NULL value stays a null struct, apart from a value whose attributes are all "
	  "NULL; the class is the worst of the attributes'; refused when one is" },
	{ "#ext_string", "extension types in the string category (citext, …)", "string", FLOE_CLASS_EXACT,
	  S_TEXT, "the type's text form" },
	{ "#unknown", "any other type (hstore, PostGIS geometry, …)", "—", FLOE_CLASS_REFUSED, NULL,
	  "not in floe's type table: exclude the table, or ask for the type to be added" },
	{ "#pseudo", "pseudo-types", "—", FLOE_CLASS_REFUSED, NULL, "not a storable type" },
};

#define N_RULES (sizeof(rules) / sizeof(rules[0]))
#define MAX_NESTING 16

size_t floe_type_rule_count(void)
{
	return N_RULES;
}

const floe_type_rule *floe_type_rule_at(size_t i)
{
	return i < N_RULES ? &rules[i] : NULL;
}

const char *floe_type_class_name(floe_type_class cls)
{
	static const char *const names[] = { "exact", "widening", "lossy", "refused" };
	return names[cls];
}

static const floe_type_rule *rule(const char *key)
{
	for (size_t i = 0; i < N_RULES; i++)
		if (strcmp(rules[i].key, key) == 0)
			return &rules[i];
	return NULL;
}

/* ---- Iceberg types ---- */

static const floe_plan_type *primitive(floe_arena *arena, const char *name)
{
	floe_plan_type *t = floe_arena_alloc(arena, sizeof(*t));
	t->kind = FLOE_PLAN_PRIMITIVE;
	t->primitive = floe_arena_strdup(arena, name);
	return t;
}

static const floe_plan_type *list_of(floe_arena *arena, const floe_plan_type *element)
{
	floe_plan_type *t = floe_arena_alloc(arena, sizeof(*t));
	t->kind = FLOE_PLAN_LIST;
	t->element = element;
	return t;
}

int floe_plan_type_text(floe_buf *out, const floe_plan_type *t)
{
	if (!t)
		return floe_buf_puts(out, "—");
	switch (t->kind) {
	case FLOE_PLAN_PRIMITIVE:
		return floe_buf_puts(out, t->primitive);
	case FLOE_PLAN_LIST:
		floe_buf_puts(out, "list<");
		floe_plan_type_text(out, t->element);
		return floe_buf_putc(out, '>');
	case FLOE_PLAN_STRUCT:
		floe_buf_puts(out, "struct<");
		for (size_t i = 0; i < t->n_fields; i++) {
			floe_buf_printf(out, "%s%s: ", i ? ", " : "", t->field_names[i]);
			floe_plan_type_text(out, t->field_types[i]);
		}
		return floe_buf_putc(out, '>');
	}
	return 0;
}

/* ---- mapping ---- */

typedef struct mapper {
	floe_arena *arena;
	int depth;
} mapper;

static int map_type(floe_plan_mapping *out, mapper *m, const floe_pg_type *type, int typmod,
		    const char *expr);

/* Length of the next cast target in "a::b": up to "::" outside double quotes. */
static size_t cast_segment(const char *p)
{
	bool quoted = false;
	size_t n = 0;
	for (; p[n]; n++) {
		if (p[n] == '"')
			quoted = !quoted;
		else if (!quoted && p[n] == ':' && p[n + 1] == ':')
			break;
	}
	return n;
}

/* Apply `cast` ("text", "oid::int8"; each as an array type when `array`) to `expr`. */
static const char *apply_cast(floe_arena *arena, const char *expr, const char *cast, bool array)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_buf_puts(&b, expr);
	for (const char *p = cast; *p;) {
		size_t n = cast_segment(p);
		floe_buf_printf(&b, "::%.*s%s", (int)n, p, array ? "[]" : "");
		p += n;
		if (*p)
			p += 2;
	}
	const char *s = floe_arena_strdup(arena, floe_buf_cstr(&b));
	floe_buf_free(&b);
	return s;
}

static void from_rule(floe_plan_mapping *out, mapper *m, const floe_type_rule *r, const char *expr)
{
	out->rule = r;
	out->cls = r->cls;
	out->note = r->note;
	out->type = r->cls == FLOE_CLASS_REFUSED ? NULL : primitive(m->arena, r->iceberg);
	out->converted = r->cast != NULL;
	out->extract = r->cast ? apply_cast(m->arena, expr, r->cast, false) : expr;
}

/* numeric's typmod: precision and (possibly negative, since PostgreSQL 15) scale. */
static void map_numeric(floe_plan_mapping *out, mapper *m, int typmod, const char *expr)
{
	if (typmod < 4) {
		from_rule(out, m, rule("numeric"), expr);
		return;
	}
	int precision = ((typmod - 4) >> 16) & 0xffff;
	int scale = (((typmod - 4) & 0x7ff) ^ 1024) - 1024;
	int s = scale > 0 ? scale : 0;
	int p = (precision - scale > 0 ? precision - scale : 0) + s;
	if (p > 38 || p < 1) {
		from_rule(out, m, rule("numeric#wide"), expr);
		return;
	}
	from_rule(out, m, rule("numeric#fits"), expr);
	out->type = primitive(m->arena, floe_arena_printf(m->arena, "decimal(%d,%d)", p, s));
	out->note = "decimal has no NaN: a NaN value stops the load";
}

static void map_base(floe_plan_mapping *out, mapper *m, const floe_pg_type *t, int typmod, const char *expr)
{
	const floe_type_rule *r = NULL;
	if (strcmp(t->schema, "pg_catalog") == 0) {
		if (strcmp(t->name, "numeric") == 0) {
			map_numeric(out, m, typmod, expr);
			return;
		}
		r = rule(t->name);
		if (r && r->key[0] == '#')
			r = NULL;
	}
	if (!r && (t->typtype == 'r' || t->typtype == 'm'))
		r = rule("#range");
	if (!r && t->typtype == 'p')
		r = rule("#pseudo");
	if (!r && t->category == 'S' && strcmp(t->schema, "pg_catalog") != 0)
		r = rule("#ext_string");
	if (!r)
		r = rule("#unknown");
	from_rule(out, m, r, expr);
	if (r == rule("int2vector") || r == rule("oidvector")) {
		/* A vector counts from 0; a slice of the array counts from 1, as a list does. */
		out->type = list_of(m->arena, primitive(m->arena, r == rule("oidvector") ? "long" : "int"));
		out->extract = floe_arena_printf(m->arena, "(%s)[:]", out->extract);
	}
	if (r == rule("#unknown") || r == rule("#pseudo"))
		out->note = floe_arena_printf(m->arena, "type %s %s", t->display, r->note);
}

static const char *join_notes(floe_arena *arena, const char *a, const char *b)
{
	if (!a || !a[0])
		return b;
	if (!b || !b[0])
		return a;
	return floe_arena_printf(arena, "%s; %s", a, b);
}

static void map_domain(floe_plan_mapping *out, mapper *m, const floe_pg_type *t, int typmod,
		       const char *expr)
{
	floe_plan_mapping base;
	/* The cast to the base type keeps the extraction's output types in the closed set. */
	const char *as_base = floe_arena_printf(m->arena, "%s::%s", expr, t->base->quoted);
	if (map_type(&base, m, t->base, t->base_typmod >= 0 ? t->base_typmod : typmod, as_base) < 0) {
		*out = base;
		return;
	}
	*out = base;
	out->converted = true;
	out->note = join_notes(m->arena,
			       floe_arena_printf(m->arena, "domain %s over %s%s", t->display, t->base->display,
						 t->domain_checks || t->domain_not_null
							 ? " (its constraints are not carried)" : ""),
			       base.note);
}

static void map_array(floe_plan_mapping *out, mapper *m, const floe_pg_type *t, int typmod,
		      const char *expr)
{
	floe_plan_mapping el;
	const floe_pg_type *leaf = t->element;
	map_type(&el, m, t->element, typmod, "x");
	while (leaf->typtype == 'd' && leaf->base)
		leaf = leaf->base;
	const floe_type_rule *arr = rule("#array");
	bool nested = el.type && el.type->kind == FLOE_PLAN_LIST;
	bool converted_record = leaf->typtype == 'c' && el.converted;
	if (el.cls == FLOE_CLASS_REFUSED) {
		*out = el;
		out->note = floe_arena_printf(m->arena, "array of %s: %s", t->element->display, el.note);
		return;
	}
	if (nested || converted_record) {
		from_rule(out, m, rule("#array_refused"), expr);
		out->note = floe_arena_printf(m->arena, "array of %s: %s", t->element->display,
					      rule("#array_refused")->note);
		return;
	}
	out->rule = arr;
	out->cls = el.cls;
	out->type = list_of(m->arena, el.type);
	out->note = join_notes(m->arena, el.note, "more than one dimension or a lower bound other than 1 "
						  "stops the load");
	/* Element casts become array casts: x::text → col::text[]; a domain → its base's array. */
	const char *cast = el.converted && strncmp(el.extract, "x::", 3) == 0 ? el.extract + 3 : NULL;
	out->converted = cast != NULL;
	out->extract = cast ? apply_cast(m->arena, expr, cast, true) : expr;
}

static void map_composite(floe_plan_mapping *out, mapper *m, const floe_pg_type *t, const char *expr)
{
	floe_plan_type *st = floe_arena_alloc(m->arena, sizeof(*st));
	floe_buf row = FLOE_BUF_INIT, notes = FLOE_BUF_INIT;
	*out = (floe_plan_mapping){ .rule = rule("#composite"), .cls = FLOE_CLASS_EXACT, .note = "" };
	st->kind = FLOE_PLAN_STRUCT;
	st->n_fields = t->n_attrs;
	st->field_names = floe_arena_alloc(m->arena, sizeof(char *) * (t->n_attrs + 1));
	st->field_types = floe_arena_alloc(m->arena, sizeof(floe_plan_type *) * (t->n_attrs + 1));
	for (size_t i = 0; i < t->n_attrs; i++) {
		const floe_pg_attr *a = &t->attrs[i];
		floe_plan_mapping am;
		map_type(&am, m, a->type, a->typmod, floe_arena_printf(m->arena, "(%s).%s", expr, a->quoted));
		st->field_names[i] = a->name;
		st->field_types[i] = am.type;
		if (am.cls > out->cls)
			out->cls = am.cls;
		out->converted |= am.converted;
		floe_buf_printf(&row, "%s%s", i ? ", " : "", am.extract);
		if (am.note[0] && (am.cls != FLOE_CLASS_EXACT || out->cls == FLOE_CLASS_REFUSED))
			floe_buf_printf(&notes, "%s%s: %s", notes.len ? "; " : "", a->name, am.note);
		if (am.cls == FLOE_CLASS_REFUSED)
			break;
	}
	if (t->n_attrs == 0) {
		out->cls = FLOE_CLASS_REFUSED;
		floe_buf_puts(&notes, "a composite type without attributes");
	}
	out->type = out->cls == FLOE_CLASS_REFUSED ? NULL : st;
	out->note = floe_arena_strdup(m->arena, floe_buf_cstr(&notes));
	/* A NULL record stays NULL; ROW(...) alone would make it a record of NULLs. */
	out->extract = out->converted ? floe_arena_printf(m->arena, "CASE WHEN num_nulls(%s) = 1 THEN NULL "
							       "ELSE ROW(%s) END", expr, floe_buf_cstr(&row))
				      : expr;
	floe_buf_free(&row);
	floe_buf_free(&notes);
}

static int map_type(floe_plan_mapping *out, mapper *m, const floe_pg_type *type, int typmod,
		    const char *expr)
{
	int rc = 0;
	if (++m->depth > MAX_NESTING) {
		from_rule(out, m, rule("#unknown"), expr);
		out->note = floe_arena_printf(m->arena, "type %s nests more than %d levels deep",
					      type->display, MAX_NESTING);
	} else if (type->typtype == 'd' && type->base) {
		map_domain(out, m, type, typmod, expr);
	} else if (type->element) {
		map_array(out, m, type, typmod, expr);
	} else if (type->typtype == 'e') {
		from_rule(out, m, rule("#enum"), expr);
	} else if (type->typtype == 'c') {
		map_composite(out, m, type, expr);
	} else {
		map_base(out, m, type, typmod, expr);
	}
	m->depth--;
	return rc;
}

int floe_plan_map_type(floe_plan_mapping *out, floe_arena *arena, const floe_pg_type *type, int typmod,
		       const char *expr)
{
	mapper m = { arena, 0 };
	return map_type(out, &m, type, typmod, expr);
}

/* ---- the table as documentation ---- */

static void md_cell(floe_buf *out, const char *s)
{
	for (const char *p = s; *p; p++) {
		if (*p == '|')
			floe_buf_puts(out, "\\|");
		else
			floe_buf_putc(out, *p);
	}
}

int floe_plan_types_markdown(floe_buf *out)
{
	floe_buf_puts(out, "| PostgreSQL | Iceberg | class | extracted as | loss, reason or note |\n"
			   "|---|---|---|---|---|\n");
	for (size_t i = 0; i < N_RULES; i++) {
		const floe_type_rule *r = &rules[i];
		floe_buf_puts(out, "| ");
		md_cell(out, r->pg);
		floe_buf_puts(out, " | ");
		md_cell(out, r->iceberg);
		floe_buf_printf(out, " | %s | ", floe_type_class_name(r->cls));
		if (r->cast)
			floe_buf_printf(out, "`::%s`", r->cast);
		floe_buf_puts(out, " | ");
		md_cell(out, r->note);
		floe_buf_puts(out, " |\n");
	}
	return out->len > out->max ? -1 : 0;
}

int floe_plan_types_json(floe_buf *out)
{
	floe_json_writer w;
	floe_json_write_init(&w, out, true);
	floe_json_write_begin_object(&w, false);
	floe_json_write_key(&w, "types");
	floe_json_write_begin_array(&w, false);
	for (size_t i = 0; i < N_RULES; i++) {
		const floe_type_rule *r = &rules[i];
		floe_json_write_begin_object(&w, true);
		floe_json_write_member_cstr(&w, "key", r->key);
		floe_json_write_member_cstr(&w, "pg", r->pg);
		floe_json_write_member_cstr(&w, "iceberg", r->iceberg);
		floe_json_write_member_cstr(&w, "class", floe_type_class_name(r->cls));
		floe_json_write_member_cstr(&w, "cast", r->cast);
		floe_json_write_member_cstr(&w, "note", r->note);
		floe_json_write_end_object(&w);
	}
	floe_json_write_end_array(&w);
	floe_json_write_end_object(&w);
	return floe_json_write_finish(&w);
}
