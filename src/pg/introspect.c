/*
 * introspect.c — catalog queries about the role's reach. Privilege functions
 * (has_table_privilege, has_column_privilege) account for role membership,
 * PUBLIC grants and predefined roles such as pg_write_all_data. INSERT and
 * UPDATE are asked per column too (has_any_column_privilege): a grant on one
 * column is enough to write. TRIGGER counts as a write: a trigger runs on
 * every other writer's change.
 */
#include "pg/introspect.h"
#include "base/arena.h"
#include "base/error.h"

#include <string.h>

static const char *role_sql =
	"select current_user, r.rolsuper, r.rolcreatedb, r.rolcreaterole, r.rolbypassrls,"
	" r.rolreplication, has_database_privilege(current_database(), 'CREATE'),"
	" current_setting('default_transaction_read_only') = 'on',"
	" coalesce((select string_agg(g.rolname, ', ' order by g.rolname) from pg_roles g"
	"   where g.rolname in ('pg_write_all_data', 'pg_write_server_files',"
	"     'pg_execute_server_program') and pg_has_role(current_user, g.oid, 'USAGE')), '')"
	" from pg_roles r where r.rolname = current_user";

/*
 * The roles the login role can become, with what each may do to the selected
 * schemas ($1). %s: the PostgreSQL 16 filter on pg_auth_members (SET option) or
 * nothing (≤ 15: any member may SET ROLE). The chain keeps the shortest path.
 */
static const char *reach_sql =
	"with recursive reach(oid, chain, depth) as ("
	"  select r.oid, r.rolname::text, 0 from pg_roles r where r.rolname = current_user"
	"  union all"
	"  select m.roleid, reach.chain || ' → ' || g.rolname, reach.depth + 1"
	"  from reach join pg_auth_members m on m.member = reach.oid%s"
	"  join pg_roles g on g.oid = m.roleid where reach.depth < 16),"
	" roles as (select distinct on (oid) oid, chain, depth from reach order by oid, depth),"
	" sel as (select c.oid, n.nspname, c.relname, c.relowner from pg_class c"
	"  join pg_namespace n on n.oid = c.relnamespace where n.nspname = any($1::text[])"
	"  and c.relkind in ('r', 'p') and not c.relispartition)"
	" select r.rolname, x.chain, x.depth, r.rolsuper, r.rolcreaterole, r.rolcreatedb,"
	" r.rolreplication, r.rolbypassrls, has_database_privilege(r.oid, current_database(), 'CREATE'),"
	" coalesce((select string_agg(g.rolname, ', ' order by g.rolname) from pg_roles g"
	"   where g.rolname in ('pg_write_all_data', 'pg_write_server_files',"
	"     'pg_execute_server_program') and pg_has_role(r.oid, g.oid, 'USAGE')), ''),"
	" coalesce((select string_agg(n.nspname, ', ' order by n.nspname) from pg_namespace n"
	"   where n.nspname = any($1::text[]) and has_schema_privilege(r.oid, n.oid, 'CREATE')), ''),"
	" coalesce((select string_agg(s.nspname || '.' || s.relname, ', ' order by s.nspname, s.relname)"
	"   from sel s where pg_has_role(r.oid, s.relowner, 'USAGE')), ''),"
	" coalesce((select string_agg(s.nspname || '.' || s.relname || ' (' || concat_ws(', ',"
	"     case when has_any_column_privilege(r.oid, s.oid, 'INSERT') then 'INSERT' end,"
	"     case when has_any_column_privilege(r.oid, s.oid, 'UPDATE') then 'UPDATE' end,"
	"     case when has_table_privilege(r.oid, s.oid, 'DELETE') then 'DELETE' end,"
	"     case when has_table_privilege(r.oid, s.oid, 'TRUNCATE') then 'TRUNCATE' end,"
	"     case when has_table_privilege(r.oid, s.oid, 'TRIGGER') then 'TRIGGER' end) || ')',"
	"     '; ' order by s.nspname, s.relname) from sel s"
	"   where has_table_privilege(r.oid, s.oid, 'DELETE, TRUNCATE, TRIGGER')"
	"     or has_any_column_privilege(r.oid, s.oid, 'INSERT, UPDATE')), ''),"
	" coalesce((select string_agg(n.nspname, ', ' order by n.nspname) from pg_namespace n"
	"   where n.nspname = any($1::text[]) and pg_has_role(r.oid, n.nspowner, 'USAGE')), ''),"
	" (select pg_has_role(r.oid, d.datdba, 'USAGE') from pg_database d"
	"   where d.datname = current_database())"
	" from roles x join pg_roles r on r.oid = x.oid order by x.depth, r.rolname";

static const char *schemas_sql =
	"select s.name, n.oid is not null,"
	" coalesce(has_schema_privilege(n.oid, 'USAGE'), false),"
	" coalesce(has_schema_privilege(n.oid, 'CREATE'), false),"
	" (select count(*) from pg_class c where c.relnamespace = n.oid"
	"   and c.relkind in ('r', 'p') and not c.relispartition)"
	" from unnest($1::text[]) with ordinality s(name, i)"
	" left join pg_namespace n on n.nspname = s.name order by s.i";

static const char *tables_sql =
	"select n.nspname, c.relname, c.relkind::text, has_table_privilege(c.oid, 'SELECT'),"
	" c.relrowsecurity, c.relforcerowsecurity, pg_has_role(c.relowner, 'USAGE'),"
	" concat_ws(', ',"
	"   case when has_any_column_privilege(c.oid, 'INSERT') then 'INSERT' end,"
	"   case when has_any_column_privilege(c.oid, 'UPDATE') then 'UPDATE' end,"
	"   case when has_table_privilege(c.oid, 'DELETE') then 'DELETE' end,"
	"   case when has_table_privilege(c.oid, 'TRUNCATE') then 'TRUNCATE' end,"
	"   case when has_table_privilege(c.oid, 'TRIGGER') then 'TRIGGER' end),"
	" (select count(*) from pg_attribute a where a.attrelid = c.oid and a.attnum > 0"
	"   and not a.attisdropped)"
	" from pg_class c join pg_namespace n on n.oid = c.relnamespace"
	" where n.nspname = any($1::text[]) and c.relkind in ('r', 'p') and not c.relispartition"
	" order by 1, 2";

static const char *hidden_sql =
	"select n.nspname, c.relname, a.attname"
	" from pg_class c join pg_namespace n on n.oid = c.relnamespace"
	" join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped"
	" where n.nspname = any($1::text[]) and c.relkind in ('r', 'p') and not c.relispartition"
	" and not has_column_privilege(c.oid, a.attnum, 'SELECT')"
	" order by 1, 2, a.attnum";

static const char *discover_sql =
	"select n.nspname, count(c.oid) from pg_namespace n"
	" join pg_class c on c.relnamespace = n.oid and c.relkind in ('r', 'p') and not c.relispartition"
	" where n.nspname not in ('pg_catalog', 'information_schema')"
	" and n.nspname not like 'pg\\_%' and has_schema_privilege(n.oid, 'USAGE')"
	" group by 1 order by 1";

/* A text[] literal: {"a","b"} with \ and " escaped. */
const char *floe_pg_array_literal(floe_arena *arena, const char *const *items, size_t n)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_buf_putc(&b, '{');
	for (size_t i = 0; i < n; i++) {
		floe_buf_puts(&b, i ? ",\"" : "\"");
		for (const char *p = items[i]; *p; p++) {
			if (*p == '"' || *p == '\\')
				floe_buf_putc(&b, '\\');
			floe_buf_putc(&b, *p);
		}
		floe_buf_putc(&b, '"');
	}
	floe_buf_putc(&b, '}');
	const char *s = floe_arena_strdup(arena, floe_buf_cstr(&b));
	floe_buf_free(&b);
	return s;
}

void floe_pg_source_target(floe_pg_target *t, const floe_config *config)
{
	*t = (floe_pg_target)FLOE_PG_TARGET_INIT;
	t->host = config->source.host;
	t->port = config->source.port;
	t->database = config->source.database;
	t->user = config->source.user;
	t->sslmode = config->source.sslmode;
	t->lock_timeout_seconds = config->source.lock_timeout_seconds;
	t->password = floe_config_source_password(config);
	t->read_only = true;
}

int floe_pg_connect_source(floe_pg **out, const floe_config *config)
{
	floe_pg_target t;
	floe_pg_source_target(&t, config);
	return floe_pg_connect(out, &t);
}

static const char *cell(floe_arena *arena, const floe_pg_result *r, int row, int col)
{
	return floe_arena_strdup(arena, floe_pg_result_text(r, row, col));
}

int floe_pg_role_inspect(floe_pg_role_facts *out, floe_pg *pg, floe_arena *arena)
{
	floe_pg_result *r = NULL;
	memset(out, 0, sizeof(*out));
	if (floe_pg_query(&r, pg, role_sql, 0, NULL) < 0)
		return floe_error_context("while reading the source role's attributes");
	if (floe_pg_result_rows(r) != 1) {
		floe_pg_result_free(r);
		return floe_error_set(FLOE_ERR_INTERNAL, "the current role was not found in pg_roles");
	}
	out->name = cell(arena, r, 0, 0);
	out->superuser = floe_pg_result_bool(r, 0, 1);
	out->createdb = floe_pg_result_bool(r, 0, 2);
	out->createrole = floe_pg_result_bool(r, 0, 3);
	out->bypassrls = floe_pg_result_bool(r, 0, 4);
	out->replication = floe_pg_result_bool(r, 0, 5);
	out->database_create = floe_pg_result_bool(r, 0, 6);
	out->session_read_only = floe_pg_result_bool(r, 0, 7);
	out->write_roles = cell(arena, r, 0, 8);
	floe_pg_result_free(r);
	return 0;
}

int floe_pg_role_reach_inspect(floe_pg_role_reach **out, size_t *n_out, floe_pg *pg,
			       floe_arena *arena, const char *const *schemas, size_t n_schemas)
{
	floe_pg_result *r = NULL;
	const char *params[1] = { floe_pg_array_literal(arena, schemas, n_schemas) };
	const char *sql = floe_arena_printf(arena, reach_sql, floe_pg_server_version(pg) >= 160000
					    ? " and m.set_option" : "");
	if (floe_pg_query(&r, pg, sql, 1, params) < 0)
		return floe_error_context("while reading the roles the source role can become");
	int rows = floe_pg_result_rows(r);
	floe_pg_role_reach *x = floe_arena_alloc(arena, sizeof(*x) * (size_t)(rows + 1));
	for (int i = 0; i < rows; i++) {
		x[i].name = cell(arena, r, i, 0);
		x[i].chain = cell(arena, r, i, 1);
		x[i].depth = (int)floe_pg_result_int(r, i, 2);
		x[i].superuser = floe_pg_result_bool(r, i, 3);
		x[i].createrole = floe_pg_result_bool(r, i, 4);
		x[i].createdb = floe_pg_result_bool(r, i, 5);
		x[i].replication = floe_pg_result_bool(r, i, 6);
		x[i].bypassrls = floe_pg_result_bool(r, i, 7);
		x[i].database_create = floe_pg_result_bool(r, i, 8);
		x[i].write_roles = cell(arena, r, i, 9);
		x[i].schema_create = cell(arena, r, i, 10);
		x[i].owned = cell(arena, r, i, 11);
		x[i].table_writes = cell(arena, r, i, 12);
		x[i].owned_schemas = cell(arena, r, i, 13);
		x[i].owns_database = floe_pg_result_bool(r, i, 14);
	}
	floe_pg_result_free(r);
	*out = x;
	*n_out = (size_t)rows;
	return 0;
}

int floe_pg_schemas_inspect(floe_pg_schema_facts **out, floe_pg *pg, floe_arena *arena,
			    const char *const *schemas, size_t n_schemas)
{
	floe_pg_result *r = NULL;
	const char *params[1] = { floe_pg_array_literal(arena, schemas, n_schemas) };
	if (floe_pg_query(&r, pg, schemas_sql, 1, params) < 0)
		return floe_error_context("while reading schema privileges");
	int rows = floe_pg_result_rows(r);
	floe_pg_schema_facts *s = floe_arena_alloc(arena, sizeof(*s) * (size_t)(rows + 1));
	for (int i = 0; i < rows; i++) {
		s[i].name = cell(arena, r, i, 0);
		s[i].exists = floe_pg_result_bool(r, i, 1);
		s[i].usage = floe_pg_result_bool(r, i, 2);
		s[i].create = floe_pg_result_bool(r, i, 3);
		s[i].n_tables = floe_pg_result_is_null(r, i, 4) ? 0 : floe_pg_result_int(r, i, 4);
	}
	floe_pg_result_free(r);
	*out = s;
	return 0;
}

static floe_pg_table_facts *find_table(floe_pg_table_facts *t, size_t n, const char *schema,
				       const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(t[i].schema, schema) == 0 && strcmp(t[i].name, name) == 0)
			return &t[i];
	return NULL;
}

static int attach_hidden_columns(floe_pg_table_facts *t, size_t n, floe_pg *pg, floe_arena *arena,
				 const char *const *params)
{
	floe_pg_result *r = NULL;
	if (floe_pg_query(&r, pg, hidden_sql, 1, params) < 0)
		return floe_error_context("while reading column privileges");
	int rows = floe_pg_result_rows(r);
	for (int i = 0; i < rows; i++) {
		floe_pg_table_facts *tf = find_table(t, n, floe_pg_result_text(r, i, 0),
						     floe_pg_result_text(r, i, 1));
		if (!tf)
			continue;
		if (!tf->hidden_columns)
			tf->hidden_columns = floe_arena_alloc(arena, sizeof(char *) * (tf->n_columns + 1));
		if (tf->n_hidden < tf->n_columns)
			tf->hidden_columns[tf->n_hidden++] = cell(arena, r, i, 2);
	}
	floe_pg_result_free(r);
	return 0;
}

int floe_pg_tables_inspect(floe_pg_table_facts **out, size_t *n_out, floe_pg *pg, floe_arena *arena,
			   const char *const *schemas, size_t n_schemas)
{
	floe_pg_result *r = NULL;
	const char *params[1] = { floe_pg_array_literal(arena, schemas, n_schemas) };
	if (floe_pg_query(&r, pg, tables_sql, 1, params) < 0)
		return floe_error_context("while listing the selected tables");
	int rows = floe_pg_result_rows(r);
	floe_pg_table_facts *t = floe_arena_alloc(arena, sizeof(*t) * (size_t)(rows + 1));
	for (int i = 0; i < rows; i++) {
		t[i].schema = cell(arena, r, i, 0);
		t[i].name = cell(arena, r, i, 1);
		t[i].kind = floe_pg_result_text(r, i, 2)[0];
		t[i].can_select = floe_pg_result_bool(r, i, 3);
		t[i].rls_enabled = floe_pg_result_bool(r, i, 4);
		t[i].rls_forced = floe_pg_result_bool(r, i, 5);
		t[i].is_owner = floe_pg_result_bool(r, i, 6);
		t[i].write_privileges = cell(arena, r, i, 7);
		t[i].n_columns = (size_t)floe_pg_result_int(r, i, 8);
	}
	floe_pg_result_free(r);
	if (attach_hidden_columns(t, (size_t)rows, pg, arena, params) < 0)
		return -1;
	*out = t;
	*n_out = (size_t)rows;
	return 0;
}

int floe_pg_schemas_discover(floe_pg_schema_facts **out, size_t *n_out, floe_pg *pg,
			     floe_arena *arena)
{
	floe_pg_result *r = NULL;
	if (floe_pg_query(&r, pg, discover_sql, 0, NULL) < 0)
		return floe_error_context("while discovering the source's schemas");
	int rows = floe_pg_result_rows(r);
	floe_pg_schema_facts *s = floe_arena_alloc(arena, sizeof(*s) * (size_t)(rows + 1));
	for (int i = 0; i < rows; i++) {
		s[i].name = cell(arena, r, i, 0);
		s[i].exists = s[i].usage = true;
		s[i].n_tables = floe_pg_result_int(r, i, 1);
	}
	floe_pg_result_free(r);
	*out = s;
	*n_out = (size_t)rows;
	return 0;
}
