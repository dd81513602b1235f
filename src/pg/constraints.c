/*
 * constraints.c — what the source declares about its data, for silver: table and
 * column comments, foreign keys, CHECK constraints and the labels of enum columns.
 * One read-only catalog query per kind of fact over the selected schemas (a text[]
 * parameter), matched to the relations already read by their oid. Partitions are
 * left out: their constraints are their parent's.
 */
#include "pg/introspect.h"
#include "base/arena.h"
#include "base/error.h"

#include <string.h>

static const char *comments_sql =
	"select c.oid, d.objsubid, d.description from pg_description d"
	" join pg_class c on c.oid = d.objoid and d.classoid = 'pg_class'::regclass"
	" join pg_namespace n on n.oid = c.relnamespace"
	" where n.nspname = any($1::text[]) and not c.relispartition order by 1, 2";

static const char *foreign_keys_sql =
	"select k.conrelid, k.conname, fn.nspname, f.relname, a.attname, fa.attname"
	" from pg_constraint k join pg_class c on c.oid = k.conrelid"
	" join pg_namespace n on n.oid = c.relnamespace"
	" join pg_class f on f.oid = k.confrelid join pg_namespace fn on fn.oid = f.relnamespace"
	" cross join lateral unnest(k.conkey, k.confkey) with ordinality u(col, fcol, i)"
	" join pg_attribute a on a.attrelid = k.conrelid and a.attnum = u.col"
	" join pg_attribute fa on fa.attrelid = k.confrelid and fa.attnum = u.fcol"
	" where k.contype = 'f' and n.nspname = any($1::text[]) and not c.relispartition"
	" order by k.conrelid, k.conname, u.i";

static const char *checks_sql =
	"select k.conrelid, k.conname, pg_get_constraintdef(k.oid), pg_get_expr(k.conbin, k.conrelid),"
	" k.convalidated from pg_constraint k join pg_class c on c.oid = k.conrelid"
	" join pg_namespace n on n.oid = c.relnamespace"
	" where k.contype = 'c' and n.nspname = any($1::text[]) and not c.relispartition"
	" order by k.conrelid, k.conname";

/* Enum labels per column: the column's type, or the base of the domain it is. */
static const char *enums_sql =
	"select a.attrelid, a.attnum, e.enumlabel from pg_attribute a"
	" join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace"
	" join pg_type t on t.oid = a.atttypid"
	" join pg_enum e on e.enumtypid = case when t.typtype = 'd' then t.typbasetype else t.oid end"
	" where n.nspname = any($1::text[]) and not c.relispartition and a.attnum > 0"
	" and not a.attisdropped order by a.attrelid, a.attnum, e.enumsortorder";

typedef struct annotator {
	floe_pg_relation *rels;
	size_t n;
	floe_pg *pg;
	floe_arena *arena;
	const char *schemas;
} annotator;

static floe_pg_relation *relation_of(annotator *an, const floe_pg_result *r, int row)
{
	unsigned oid = (unsigned)floe_pg_result_int(r, row, 0);
	for (size_t i = 0; i < an->n; i++)
		if (an->rels[i].oid == oid)
			return &an->rels[i];
	return NULL; /* a relation read after the relation list (created since) */
}

static floe_pg_column *column_of(floe_pg_relation *rel, int attnum)
{
	for (size_t i = 0; rel && i < rel->n_columns; i++)
		if (rel->columns[i].attnum == attnum)
			return &rel->columns[i];
	return NULL;
}

static const char *text(annotator *an, const floe_pg_result *r, int row, int col)
{
	return floe_arena_strdup(an->arena, floe_pg_result_text(r, row, col));
}

static int query(floe_pg_result **out, annotator *an, const char *sql)
{
	const char *params[1] = { an->schemas };
	return floe_pg_query(out, an->pg, sql, 1, params);
}

static int read_comments(annotator *an)
{
	floe_pg_result *r = NULL;
	if (query(&r, an, comments_sql) < 0)
		return -1;
	for (int i = 0; i < floe_pg_result_rows(r); i++) {
		floe_pg_relation *rel = relation_of(an, r, i);
		int sub = (int)floe_pg_result_int(r, i, 1);
		floe_pg_column *c = column_of(rel, sub);
		if (rel && sub == 0)
			rel->comment = text(an, r, i, 2);
		else if (c)
			c->comment = text(an, r, i, 2);
	}
	floe_pg_result_free(r);
	return 0;
}

/* Append `s` to a NULL-terminated-capacity array of strings in the arena. */
static const char **push(floe_arena *a, const char **v, size_t n, const char *s)
{
	const char **out = floe_arena_alloc(a, sizeof(char *) * (n + 2));
	if (n)
		memcpy(out, v, sizeof(char *) * n);
	out[n] = s;
	return out;
}

static floe_pg_foreign_key *foreign_key_of(annotator *an, floe_pg_relation *rel, const char *name)
{
	if (rel->n_foreign_keys && strcmp(rel->foreign_keys[rel->n_foreign_keys - 1].name, name) == 0)
		return &rel->foreign_keys[rel->n_foreign_keys - 1];
	floe_pg_foreign_key *fks = floe_arena_alloc(an->arena, sizeof(*fks) * (rel->n_foreign_keys + 1));
	if (rel->n_foreign_keys)
		memcpy(fks, rel->foreign_keys, sizeof(*fks) * rel->n_foreign_keys);
	rel->foreign_keys = fks;
	floe_pg_foreign_key *fk = &fks[rel->n_foreign_keys++];
	memset(fk, 0, sizeof(*fk));
	fk->name = floe_arena_strdup(an->arena, name);
	return fk;
}

static int read_foreign_keys(annotator *an)
{
	floe_pg_result *r = NULL;
	if (query(&r, an, foreign_keys_sql) < 0)
		return -1;
	for (int i = 0; i < floe_pg_result_rows(r); i++) {
		floe_pg_relation *rel = relation_of(an, r, i);
		if (!rel)
			continue;
		floe_pg_foreign_key *fk = foreign_key_of(an, rel, floe_pg_result_text(r, i, 1));
		fk->ref_schema = text(an, r, i, 2);
		fk->ref_table = text(an, r, i, 3);
		fk->columns = push(an->arena, fk->columns, fk->n_columns, text(an, r, i, 4));
		fk->ref_columns = push(an->arena, fk->ref_columns, fk->n_columns, text(an, r, i, 5));
		fk->n_columns++;
	}
	floe_pg_result_free(r);
	return 0;
}

static int read_checks(annotator *an)
{
	floe_pg_result *r = NULL;
	if (query(&r, an, checks_sql) < 0)
		return -1;
	for (int i = 0; i < floe_pg_result_rows(r); i++) {
		floe_pg_relation *rel = relation_of(an, r, i);
		if (!rel)
			continue;
		floe_pg_check *v = floe_arena_alloc(an->arena, sizeof(*v) * (rel->n_checks + 1));
		if (rel->n_checks)
			memcpy(v, rel->checks, sizeof(*v) * rel->n_checks);
		v[rel->n_checks] = (floe_pg_check){ text(an, r, i, 1), text(an, r, i, 2), text(an, r, i, 3),
						    floe_pg_result_bool(r, i, 4) };
		rel->checks = v;
		rel->n_checks++;
	}
	floe_pg_result_free(r);
	return 0;
}

static int read_enums(annotator *an)
{
	floe_pg_result *r = NULL;
	if (query(&r, an, enums_sql) < 0)
		return -1;
	for (int i = 0; i < floe_pg_result_rows(r); i++) {
		floe_pg_column *c = column_of(relation_of(an, r, i), (int)floe_pg_result_int(r, i, 1));
		if (!c)
			continue;
		c->enum_labels = push(an->arena, c->enum_labels, c->n_enum_labels, text(an, r, i, 2));
		c->n_enum_labels++;
	}
	floe_pg_result_free(r);
	return 0;
}

int floe_pg_relations_annotate(floe_pg_relation *rels, size_t n, floe_pg *pg, floe_arena *arena,
			       const char *schemas_literal)
{
	annotator an = { rels, n, pg, arena, schemas_literal };
	if (read_comments(&an) < 0 || read_foreign_keys(&an) < 0 || read_checks(&an) < 0 || read_enums(&an) < 0)
		return -1;
	return 0;
}
