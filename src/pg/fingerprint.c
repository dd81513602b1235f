/*
 * fingerprint.c — one value that moves whenever the source's schema catalog does: the
 * (oid, xmin) of every catalog row that describes the user's schemas (namespaces, relations,
 * columns, defaults, constraints, indexes, triggers, types, enum labels, functions, rules,
 * policies, inheritance, comments, role memberships) and the login role's attributes, hashed
 * by the server. Any DDL, GRANT or COMMENT writes a new row version (a new xmin) or adds or
 * removes a row, so an equal fingerprint means `floe sync` would read the same catalog;
 * statistics (ANALYZE's in-place updates) do not move it. Comments are those of user objects
 * (an OID from FirstNormalObjectId, 16384, on: the server never gives a user object a lower one)
 * and of the user's schemas (public's OID is 2200): the ~5,000 comments of the system's own
 * objects were two thirds of the query's time. `floe run` uses it to skip a sync
 * that would find nothing (src/sync/quiet.c).
 */
#include "pg/introspect.h"
#include "pg/pg.h"

#include "base/arena.h"

static const char fingerprint_sql[] =
	"with ns as (select oid from pg_catalog.pg_namespace where nspname <> 'information_schema' "
	"and nspname !~ '^pg_(catalog|toast|temp_|toast_temp_)'), "
	"rel as (select oid from pg_catalog.pg_class where relnamespace in (select oid from ns)) "
	"select pg_catalog.md5(coalesce(pg_catalog.string_agg(x, ',' order by x), '')) from ("
	" select 'n' || oid || ':' || xmin from pg_catalog.pg_namespace"
	" union all select 'c' || oid || ':' || xmin from pg_catalog.pg_class where oid in (select oid from rel)"
	" union all select 'a' || attrelid || '.' || attnum || ':' || xmin from pg_catalog.pg_attribute"
	"  where attrelid in (select oid from rel)"
	" union all select 'd' || oid || ':' || xmin from pg_catalog.pg_attrdef where adrelid in (select oid from rel)"
	" union all select 'k' || oid || ':' || xmin from pg_catalog.pg_constraint where connamespace in (select oid from ns)"
	" union all select 'i' || indexrelid || ':' || xmin from pg_catalog.pg_index where indrelid in (select oid from rel)"
	" union all select 't' || oid || ':' || xmin from pg_catalog.pg_trigger where tgrelid in (select oid from rel)"
	" union all select 'y' || oid || ':' || xmin from pg_catalog.pg_type where typnamespace in (select oid from ns)"
	" union all select 'e' || oid || ':' || xmin from pg_catalog.pg_enum"
	" union all select 'p' || oid || ':' || xmin from pg_catalog.pg_proc where pronamespace in (select oid from ns)"
	" union all select 'r' || oid || ':' || xmin from pg_catalog.pg_rewrite where ev_class in (select oid from rel)"
	" union all select 'l' || oid || ':' || xmin from pg_catalog.pg_policy where polrelid in (select oid from rel)"
	" union all select 'h' || inhrelid || '.' || inhparent || ':' || xmin from pg_catalog.pg_inherits"
	" union all select 'o' || classoid || '.' || objoid || '.' || objsubid || ':' || xmin from pg_catalog.pg_description"
	"  where objoid >= 16384 or objoid in (select oid from ns)"
	" union all select 'm' || roleid || '.' || member || ':' || xmin from pg_catalog.pg_auth_members"
	" union all select 'u' || (r.rolsuper, r.rolinherit, r.rolcreaterole, r.rolcreatedb, r.rolreplication,"
	"  r.rolbypassrls)::text from pg_catalog.pg_roles r where r.rolname = current_user"
	" union all select 'v' || pg_catalog.current_setting('server_version_num')"
	") s(x)";

int floe_pg_catalog_fingerprint(const char **out, floe_pg *pg, floe_arena *arena)
{
	floe_pg_result *r = NULL;
	int error = -1;
	*out = NULL;
	if (floe_pg_query(&r, pg, fingerprint_sql, 0, NULL) < 0)
		goto cleanup;
	*out = floe_arena_strdup(arena, floe_pg_result_text(r, 0, 0));
	error = 0;
cleanup:
	floe_pg_result_free(r);
	return error;
}
