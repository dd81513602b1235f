/*
 * catalog.c — relations, columns, types, keys and triggers of the selected
 * schemas, read from the system catalogs for `floe plan`.
 *
 * Every query takes its inputs as parameters (schema names as a text[], oids as
 * text); identifiers meant for SQL come back already quoted by the server's
 * quote_ident(). Types are read once each and shared through a small cache, so a
 * domain over an array of a composite resolves to a tree of floe_pg_type.
 */
#include "pg/introspect.h"
#include "base/arena.h"
#include "base/error.h"

#include <stdio.h>
#include <string.h>

static const char *relations_sql =
	"select c.oid, n.nspname, c.relname, quote_ident(n.nspname) || '.' || quote_ident(c.relname),"
	" c.relkind::text, c.relpersistence::text, has_schema_privilege(n.oid, 'USAGE'),"
	" has_table_privilege(c.oid, 'SELECT'), row_security_active(c.oid),"
	" exists (select 1 from pg_policy p where p.polrelid = c.oid and p.polpermissive"
	"   and p.polcmd in ('r', '*') and pg_get_expr(p.polqual, p.polrelid) = 'true'"
	"   and (p.polroles = '{0}' or exists (select 1 from unnest(p.polroles) r"
	"     where r <> 0 and pg_has_role(r, 'USAGE'))))"
	" and not exists (select 1 from pg_policy p where p.polrelid = c.oid and not p.polpermissive"
	"   and p.polcmd in ('r', '*') and (p.polroles = '{0}' or exists (select 1 from unnest(p.polroles) r"
	"     where r <> 0 and pg_has_role(r, 'USAGE')))),"
	" case when c.relkind = 'p' then (select count(*) from pg_partition_tree(c.oid) t where t.isleaf)"
	"   else 0 end"
	" from pg_class c join pg_namespace n on n.oid = c.relnamespace"
	" where n.nspname = any($1::text[]) and c.relkind in ('r', 'p', 'v', 'm', 'f')"
	" and not c.relispartition order by 2, 3";

static const char *columns_sql =
	"select a.attnum, a.attname, quote_ident(a.attname), a.atttypid, a.atttypmod,"
	" format_type(a.atttypid, a.atttypmod), a.attnotnull,"
	" has_column_privilege(a.attrelid, a.attnum, 'SELECT'), a.attgenerated::text,"
	" pg_get_expr(d.adbin, d.adrelid)"
	" from pg_attribute a left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum"
	" where a.attrelid = $1::oid and a.attnum > 0 and not a.attisdropped order by a.attnum";

static const char *key_sql =
	"select k.attnum from pg_constraint c, unnest(c.conkey) with ordinality k(attnum, i)"
	" where c.conrelid = $1::oid and c.contype = 'p' order by k.i";

static const char *triggers_sql =
	"select t.tgname, t.tgtype, t.tgenabled::text, t.tgattr::text <> '',"
	" t.tgqual is not null, p.oid::regprocedure::text, l.lanname,"
	" case when l.lanname = 'plpgsql' then pg_get_functiondef(p.oid) end, p.prosrc,"
	" case when t.tgnargs > 0 then convert_from(substring(t.tgargs from 1 for"
	"   position('\\x00'::bytea in t.tgargs) - 1), 'UTF8') end,"
	" case when c.relkind = 'p' then (select count(*) from pg_partition_tree(c.oid) x where x.isleaf)"
	"   else 0 end,"
	" case when c.relkind = 'p' then (select count(*) from pg_partition_tree(c.oid) x"
	"   join pg_trigger lt on lt.tgrelid = x.relid and lt.tgname = t.tgname and lt.tgparentid <> 0"
	"   where x.isleaf and lt.tgenabled in ('O', 'A')) else 0 end"
	" from pg_trigger t join pg_class c on c.oid = t.tgrelid"
	" join pg_proc p on p.oid = t.tgfoid join pg_language l on l.oid = p.prolang"
	" where t.tgrelid = $1::oid and not t.tgisinternal order by t.tgname";

/* PostgreSQL 12 has no tgparentid: partitioned parents cannot carry row triggers there. */
static const char *triggers_sql_12 =
	"select t.tgname, t.tgtype, t.tgenabled::text, t.tgattr::text <> '',"
	" t.tgqual is not null, p.oid::regprocedure::text, l.lanname,"
	" case when l.lanname = 'plpgsql' then pg_get_functiondef(p.oid) end, p.prosrc,"
	" case when t.tgnargs > 0 then convert_from(substring(t.tgargs from 1 for"
	"   position('\\x00'::bytea in t.tgargs) - 1), 'UTF8') end, 0, 0"
	" from pg_trigger t join pg_proc p on p.oid = t.tgfoid join pg_language l on l.oid = p.prolang"
	" where t.tgrelid = $1::oid and not t.tgisinternal order by t.tgname";

static const char *type_sql =
	"select t.oid, n.nspname, t.typname, format_type(t.oid, null),"
	" case when n.nspname = 'pg_catalog' then quote_ident(t.typname)"
	"   else quote_ident(n.nspname) || '.' || quote_ident(t.typname) end, t.typtype::text,"
	" t.typcategory::text, case when e.typarray = t.oid then t.typelem else 0 end,"
	" t.typbasetype, t.typtypmod, t.typnotnull,"
	" exists (select 1 from pg_constraint k where k.contypid = t.oid and k.contype = 'c'), t.typrelid"
	" from pg_type t join pg_namespace n on n.oid = t.typnamespace"
	" left join pg_type e on e.oid = t.typelem where t.oid = $1::oid";

static const char *attrs_sql =
	"select a.attname, quote_ident(a.attname), a.atttypid, a.atttypmod, format_type(a.atttypid, a.atttypmod)"
	" from pg_attribute a where a.attrelid = $1::oid and a.attnum > 0 and not a.attisdropped"
	" order by a.attnum";

#define TYPE_DEPTH_MAX 32

typedef struct type_cache {
	floe_pg_type **types;
	size_t n, cap;
} type_cache;

typedef struct reader {
	floe_pg *pg;
	floe_arena *arena;
	type_cache cache;
} reader;

static const char *cell(reader *rd, const floe_pg_result *r, int row, int col)
{
	return floe_arena_strdup(rd->arena, floe_pg_result_text(r, row, col));
}

static const char *cell_or_null(reader *rd, const floe_pg_result *r, int row, int col)
{
	return floe_pg_result_is_null(r, row, col) ? NULL : cell(rd, r, row, col);
}

/* Run `sql` with one oid parameter. */
static int query_oid(floe_pg_result **out, reader *rd, const char *sql, unsigned oid)
{
	char text[16];
	snprintf(text, sizeof(text), "%u", oid);
	const char *params[1] = { text };
	return floe_pg_query(out, rd->pg, sql, 1, params);
}

static int read_type(const floe_pg_type **out, reader *rd, unsigned oid, int depth);

static int read_attrs(floe_pg_type *t, reader *rd, unsigned relid, int depth)
{
	floe_pg_result *r = NULL;
	if (query_oid(&r, rd, attrs_sql, relid) < 0)
		return floe_error_context("while reading the attributes of type %s", t->display);
	int rows = floe_pg_result_rows(r);
	t->attrs = floe_arena_alloc(rd->arena, sizeof(*t->attrs) * (size_t)(rows + 1));
	t->n_attrs = (size_t)rows;
	int error = 0;
	for (int i = 0; i < rows && error == 0; i++) {
		floe_pg_attr *a = &t->attrs[i];
		a->name = cell(rd, r, i, 0);
		a->quoted = cell(rd, r, i, 1);
		a->typmod = (int)floe_pg_result_int(r, i, 3);
		a->type_text = cell(rd, r, i, 4);
		error = read_type(&a->type, rd, (unsigned)floe_pg_result_int(r, i, 2), depth + 1);
	}
	floe_pg_result_free(r);
	return error;
}

static floe_pg_type *cached(reader *rd, unsigned oid)
{
	for (size_t i = 0; i < rd->cache.n; i++)
		if (rd->cache.types[i]->oid == oid)
			return rd->cache.types[i];
	return NULL;
}

static void remember(reader *rd, floe_pg_type *t)
{
	rd->cache.types = floe_arena_grow(rd->arena, rd->cache.types, rd->cache.n, &rd->cache.cap,
					  sizeof(*rd->cache.types));
	rd->cache.types[rd->cache.n++] = t;
}

/* The type's own row; its element, base and attributes are read by the caller. */
static int read_type_row(floe_pg_type *t, unsigned *elem, unsigned *base, unsigned *relid,
			 reader *rd, unsigned oid)
{
	floe_pg_result *r = NULL;
	if (query_oid(&r, rd, type_sql, oid) < 0)
		return floe_error_context("while reading type %u", oid);
	if (floe_pg_result_rows(r) != 1) {
		floe_pg_result_free(r);
		return floe_error_set(FLOE_ERR_INTERNAL, "type %u was not found in pg_type", oid);
	}
	t->oid = oid;
	t->schema = cell(rd, r, 0, 1);
	t->name = cell(rd, r, 0, 2);
	t->display = cell(rd, r, 0, 3);
	t->quoted = cell(rd, r, 0, 4);
	t->typtype = floe_pg_result_text(r, 0, 5)[0];
	t->category = floe_pg_result_text(r, 0, 6)[0];
	*elem = (unsigned)floe_pg_result_int(r, 0, 7);
	*base = (unsigned)floe_pg_result_int(r, 0, 8);
	t->base_typmod = (int)floe_pg_result_int(r, 0, 9);
	t->domain_not_null = floe_pg_result_bool(r, 0, 10);
	t->domain_checks = floe_pg_result_bool(r, 0, 11);
	*relid = (unsigned)floe_pg_result_int(r, 0, 12);
	floe_pg_result_free(r);
	return 0;
}

static int read_type(const floe_pg_type **out, reader *rd, unsigned oid, int depth)
{
	floe_pg_type *t = cached(rd, oid);
	unsigned elem = 0, base = 0, relid = 0;
	if (t) {
		*out = t;
		return 0;
	}
	if (depth > TYPE_DEPTH_MAX)
		return floe_error_set(FLOE_ERR_CHECK, "type %u nests deeper than %d levels", oid,
				      TYPE_DEPTH_MAX);
	t = floe_arena_alloc(rd->arena, sizeof(*t));
	if (read_type_row(t, &elem, &base, &relid, rd, oid) < 0)
		return -1;
	remember(rd, t); /* before recursing: a composite may refer to itself through an array */
	*out = t;
	if (elem && read_type(&t->element, rd, elem, depth + 1) < 0)
		return -1;
	if (t->typtype == 'd' && base && read_type(&t->base, rd, base, depth + 1) < 0)
		return -1;
	if (t->typtype == 'c' && relid && read_attrs(t, rd, relid, depth) < 0)
		return -1;
	return 0;
}

static int read_columns(floe_pg_relation *rel, reader *rd)
{
	floe_pg_result *r = NULL;
	if (query_oid(&r, rd, columns_sql, rel->oid) < 0)
		return -1;
	int rows = floe_pg_result_rows(r);
	rel->columns = floe_arena_alloc(rd->arena, sizeof(*rel->columns) * (size_t)(rows + 1));
	rel->n_columns = (size_t)rows;
	int error = 0;
	for (int i = 0; i < rows && error == 0; i++) {
		floe_pg_column *c = &rel->columns[i];
		c->attnum = (int)floe_pg_result_int(r, i, 0);
		c->name = cell(rd, r, i, 1);
		c->quoted = cell(rd, r, i, 2);
		c->typmod = (int)floe_pg_result_int(r, i, 4);
		c->type_text = cell(rd, r, i, 5);
		c->not_null = floe_pg_result_bool(r, i, 6);
		c->visible = floe_pg_result_bool(r, i, 7);
		c->generated = floe_pg_result_text(r, i, 8)[0];
		c->default_expr = cell_or_null(rd, r, i, 9);
		error = read_type(&c->type, rd, (unsigned)floe_pg_result_int(r, i, 3), 0);
	}
	floe_pg_result_free(r);
	return error;
}

static int read_key(floe_pg_relation *rel, reader *rd)
{
	floe_pg_result *r = NULL;
	if (query_oid(&r, rd, key_sql, rel->oid) < 0)
		return -1;
	int rows = floe_pg_result_rows(r);
	rel->key = floe_arena_alloc(rd->arena, sizeof(*rel->key) * (size_t)(rows + 1));
	for (int i = 0; i < rows; i++) {
		int attnum = (int)floe_pg_result_int(r, i, 0);
		for (size_t j = 0; j < rel->n_columns; j++)
			if (rel->columns[j].attnum == attnum)
				rel->key[rel->n_key++] = &rel->columns[j];
	}
	floe_pg_result_free(r);
	return 0;
}

static int read_triggers(floe_pg_relation *rel, reader *rd)
{
	floe_pg_result *r = NULL;
	const char *sql = floe_pg_server_version(rd->pg) >= 130000 ? triggers_sql : triggers_sql_12;
	if (query_oid(&r, rd, sql, rel->oid) < 0)
		return -1;
	int rows = floe_pg_result_rows(r);
	rel->triggers = floe_arena_alloc(rd->arena, sizeof(*rel->triggers) * (size_t)(rows + 1));
	rel->n_triggers = (size_t)rows;
	for (int i = 0; i < rows; i++) {
		floe_pg_trigger *t = &rel->triggers[i];
		t->name = cell(rd, r, i, 0);
		t->type = (int)floe_pg_result_int(r, i, 1);
		t->enabled = floe_pg_result_text(r, i, 2)[0];
		t->update_of = floe_pg_result_bool(r, i, 3);
		t->has_when = floe_pg_result_bool(r, i, 4);
		t->function = cell(rd, r, i, 5);
		t->language = cell(rd, r, i, 6);
		t->definition = cell_or_null(rd, r, i, 7);
		t->prosrc = cell(rd, r, i, 8);
		t->first_arg = cell_or_null(rd, r, i, 9);
		t->n_leaves = floe_pg_result_int(r, i, 10);
		t->n_leaves_enabled = floe_pg_result_int(r, i, 11);
	}
	floe_pg_result_free(r);
	return 0;
}

static int read_relation_details(floe_pg_relation *rel, reader *rd)
{
	if (read_columns(rel, rd) < 0)
		return -1;
	if (rel->kind != 'r' && rel->kind != 'p')
		return 0;
	if (read_key(rel, rd) < 0 || read_triggers(rel, rd) < 0)
		return -1;
	return 0;
}

static void relation_row(floe_pg_relation *rel, reader *rd, const floe_pg_result *r, int i)
{
	rel->oid = (unsigned)floe_pg_result_int(r, i, 0);
	rel->schema = cell(rd, r, i, 1);
	rel->name = cell(rd, r, i, 2);
	rel->quoted = cell(rd, r, i, 3);
	rel->kind = floe_pg_result_text(r, i, 4)[0];
	rel->persistence = floe_pg_result_text(r, i, 5)[0];
	rel->schema_usage = floe_pg_result_bool(r, i, 6);
	rel->can_select = floe_pg_result_bool(r, i, 7);
	rel->rls_active = floe_pg_result_bool(r, i, 8);
	rel->rls_sees_all = floe_pg_result_bool(r, i, 9);
	rel->n_partitions = floe_pg_result_int(r, i, 10);
}

int floe_pg_relations_inspect(floe_pg_relation **out, size_t *n_out, floe_pg *pg, floe_arena *arena,
			      const char *const *schemas, size_t n_schemas)
{
	reader rd = { pg, arena, { NULL, 0, 0 } };
	floe_pg_result *r = NULL;
	const char *params[1] = { floe_pg_array_literal(arena, schemas, n_schemas) };
	*out = NULL;
	*n_out = 0;
	if (floe_pg_query(&r, pg, relations_sql, 1, params) < 0)
		return floe_error_context("while listing the relations of the selected schemas");
	int rows = floe_pg_result_rows(r);
	floe_pg_relation *rels = floe_arena_alloc(arena, sizeof(*rels) * (size_t)(rows + 1));
	for (int i = 0; i < rows; i++)
		relation_row(&rels[i], &rd, r, i);
	floe_pg_result_free(r);
	for (int i = 0; i < rows; i++)
		if (read_relation_details(&rels[i], &rd) < 0)
			return floe_error_context("while reading %s.%s", rels[i].schema, rels[i].name);
	if (floe_pg_relations_annotate(rels, (size_t)rows, pg, arena, params[0]) < 0)
		return floe_error_context("while reading comments and constraints of the selected schemas");
	*out = rels;
	*n_out = (size_t)rows;
	return 0;
}
