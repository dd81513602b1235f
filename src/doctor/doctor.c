/*
 * doctor.c — the checks behind `floe doctor`, in the order a user would fix them:
 * source reachable → role read-only → columns visible → warehouse → catalog → engine.
 */
#include "doctor/doctor.h"
#include "base/arena.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/log.h"
#include "base/text.h"
#include "cdc/cdc.h"
#include "config/cdc.h"
#include "engine/engine.h"
#include "iceberg/catalog_sql.h"
#include "iceberg/storage_s3.h"
#include "pg/introspect.h"
#include "pg/pg.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#define MIN_SERVER_VERSION 120000
#define MAX_CHECKS 32
#define MAX_NAMED 5 /* tables named per role in role.read_only before "and N more" */

struct floe_doctor_report {
	floe_arena *arena;
	floe_doctor_check checks[MAX_CHECKS];
	size_t n;
};

typedef struct source_facts {
	floe_pg_table_facts *tables;
	size_t n_tables;
} source_facts;

static floe_doctor_check *add(floe_doctor_report *r, const char *id, const char *title,
			      floe_check_status status, const char *todo, const char *facts_fmt, ...)
	__attribute__((format(printf, 6, 7)));

static floe_doctor_check *add(floe_doctor_report *r, const char *id, const char *title,
			      floe_check_status status, const char *todo, const char *facts_fmt, ...)
{
	floe_doctor_check *c = &r->checks[r->n < MAX_CHECKS - 1 ? r->n++ : r->n];
	va_list ap;
	va_start(ap, facts_fmt);
	c->facts = floe_arena_vprintf(r->arena, facts_fmt, ap);
	va_end(ap);
	c->id = id;
	c->title = title;
	c->status = status;
	c->todo = todo ? floe_arena_strdup(r->arena, todo) : NULL;
	return c;
}

/* The message of the current error (and detail), for a check's facts. */
static const char *error_facts(floe_doctor_report *r)
{
	const floe_error *e = floe_error_last();
	if (!e)
		return "unknown error";
	return e->detail ? floe_arena_printf(r->arena, "%s: %s", e->message, e->detail)
			 : floe_arena_strdup(r->arena, e->message);
}

static const char *error_hint(floe_doctor_report *r, const char *fallback)
{
	const floe_error *e = floe_error_last();
	return e && e->hint ? floe_arena_strdup(r->arena, e->hint) : fallback;
}

/* `list` (items joined by `joint`) cut to its first MAX_NAMED items and a count of the rest. */
static const char *brief(floe_doctor_report *r, const char *list, const char *joint)
{
	const char *cut = NULL;
	size_t total = 1;
	for (const char *q = strstr(list, joint); q; q = strstr(q + strlen(joint), joint))
		if (++total == MAX_NAMED + 1)
			cut = q;
	return cut ? floe_arena_printf(r->arena, "%.*s and %zu more", (int)(cut - list), list,
				       total - MAX_NAMED) : list;
}

/*
 * What `x` — the login role itself at depth 0 — could do to change data; nothing
 * when nothing. A superuser can do anything: that alone is said. The login role's
 * own privileges and CREATE are the other role.* checks'; a role it can become
 * has them listed here.
 */
static void reach_problems(floe_doctor_report *r, floe_buf *out, const floe_pg_role_reach *x)
{
	bool other = x->depth > 0 && !x->superuser;
	const struct { bool on; const char *fmt, *arg; } said[] = {
		{ x->superuser, "is a superuser, which can write anything%s", "" },
		{ x->createrole && !x->superuser,
		  "has CREATEROLE (it can grant itself pg_write_all_data and write)%s", "" },
		{ x->write_roles[0] && !x->superuser, "has the privileges of %s", x->write_roles },
		{ x->owned[0] && !x->superuser, "owns %s", brief(r, x->owned, ", ") },
		{ x->owned_schemas[0] && !x->superuser, "owns schema %s", x->owned_schemas },
		{ x->owns_database && !x->superuser, "owns the database%s", "" },
		{ other && x->table_writes[0], "may write %s", brief(r, x->table_writes, "; ") },
		{ other && x->schema_create[0], "may CREATE in schema %s", x->schema_create },
		{ other && x->database_create, "may CREATE in the database%s", "" },
	};
	for (size_t i = 0; i < sizeof(said) / sizeof(said[0]); i++) {
		if (!said[i].on)
			continue;
		floe_buf_puts(out, out->len ? ", " : "");
		floe_buf_printf(out, said[i].fmt, said[i].arg);
	}
}

/* The first membership of a chain "login → a → b": a. */
static const char *first_hop(floe_doctor_report *r, const char *chain)
{
	const char *arrow = " → ";
	const char *p = strstr(chain, arrow);
	if (!p)
		return chain;
	p += strlen(arrow);
	const char *end = strstr(p, arrow);
	return floe_arena_strndup(r->arena, p, end ? (size_t)(end - p) : strlen(p));
}

/* What to do about the problems of `x`, appended to `todo` once per kind. */
static void reach_todo(floe_doctor_report *r, floe_buf *todo, const floe_pg_role_reach *x,
		       const char *login)
{
	if (x->superuser && !strstr(floe_buf_cstr(todo), "made for floe"))
		floe_buf_puts(todo, " Use a role made for floe: CREATE ROLE floe_reader LOGIN; GRANT SELECT "
				    "ON the tables.");
	if (x->createrole && !x->superuser)
		floe_buf_printf(todo, " ALTER ROLE \"%s\" NOCREATEROLE: a CREATEROLE role can grant itself "
				      "pg_write_all_data and write any table.", x->name);
	if (x->depth == 0 && x->write_roles[0] && !x->superuser)
		floe_buf_puts(todo, " REVOKE those roles from the source role.");
	if (x->depth == 0 && (x->owned[0] || x->owned_schemas[0] || x->owns_database) && !x->superuser)
		floe_buf_puts(todo, " Read as a role that owns neither the tables, their schemas nor the "
				    "database (ALTER … OWNER TO another role): an owner can drop them.");
	const char *revoke = x->depth == 0 ? NULL
			     : floe_arena_printf(r->arena, " REVOKE \"%s\" FROM \"%s\"",
						 first_hop(r, x->chain), login);
	if (revoke && !strstr(floe_buf_cstr(todo), revoke)) /* once per membership */
		floe_buf_printf(todo, "%s (on PostgreSQL 16+ you may instead grant it WITH SET FALSE): a "
				      "member can SET ROLE to a role it belongs to even without inheriting "
				      "its privileges (NOINHERIT).", revoke);
}

static void check_read_only(floe_doctor_report *r, const floe_pg_role_facts *role,
			    const floe_pg_role_reach *reach, size_t n)
{
	floe_buf fails = FLOE_BUF_INIT, warns = FLOE_BUF_INIT, todo = FLOE_BUF_INIT, one = FLOE_BUF_INIT;
	for (size_t i = 0; i < n; i++) {
		const floe_pg_role_reach *x = &reach[i];
		floe_buf_clear(&one);
		reach_problems(r, &one, x);
		if (one.len && x->depth == 0)
			floe_buf_printf(&fails, "%srole \"%s\" %s", fails.len ? "; " : "", x->name,
					floe_buf_cstr(&one));
		else if (one.len)
			floe_buf_printf(&fails, "%srole \"%s\" can SET ROLE to \"%s\" (%s), which %s",
					fails.len ? "; " : "", role->name, x->name, x->chain, floe_buf_cstr(&one));
		if (one.len)
			reach_todo(r, &todo, x, role->name);
		if (x->createdb || x->replication)
			floe_buf_printf(&warns, "%s\"%s\" has %s%s%s", warns.len ? "; " : "", x->name,
					x->createdb ? "CREATEDB" : "", x->createdb && x->replication ? ", " : "",
					x->replication ? "REPLICATION" : "");
	}
	if (fails.len)
		add(r, "role.read_only", "source role is read-only", FLOE_CHECK_FAIL, todo.ptr + 1, "%s",
		    floe_buf_cstr(&fails));
	else
		add(r, "role.read_only", "source role is read-only",
		    warns.len ? FLOE_CHECK_WARN : FLOE_CHECK_OK,
		    warns.len ? "ALTER ROLE … NOCREATEDB NOREPLICATION: it can create databases or "
				"open replication connections." : NULL,
		    "role \"%s\": not superuser, no CREATEROLE, no write role%s; it can SET ROLE to %zu "
		    "other role%s%s%s%s", role->name, role->bypassrls ? ", BYPASSRLS" : "", n ? n - 1 : 0,
		    n == 2 ? "" : "s", n > 1 ? ", none of which can write" : "", warns.len ? "; but " : "",
		    floe_buf_cstr(&warns));
	floe_buf_free(&fails);
	floe_buf_free(&warns);
	floe_buf_free(&todo);
	floe_buf_free(&one);
}

static void check_role(floe_doctor_report *r, floe_pg *pg, const floe_config *c)
{
	floe_pg_role_facts role;
	floe_pg_role_reach *reach = NULL;
	size_t n = 0;
	const floe_string_list *sel = &c->source.schemas;
	if (floe_pg_role_inspect(&role, pg, r->arena) < 0 ||
	    floe_pg_role_reach_inspect(&reach, &n, pg, r->arena, sel->items, sel->count) < 0) {
		add(r, "role.read_only", "source role is read-only", FLOE_CHECK_FAIL,
		    "Make sure the role can read pg_roles and pg_auth_members.", "%s", error_facts(r));
		return;
	}
	check_read_only(r, &role, reach, n);
	add(r, "role.database_create", "no CREATE on the database",
	    role.database_create ? FLOE_CHECK_FAIL : FLOE_CHECK_OK,
	    role.database_create ? floe_arena_printf(r->arena, "REVOKE CREATE ON DATABASE %s FROM %s;",
						     c->source.database, role.name) : NULL,
	    "%s CREATE on database \"%s\"", role.database_create ? "has" : "no", c->source.database);
	add(r, "session.read_only", "floe's sessions are read-only",
	    role.session_read_only ? FLOE_CHECK_OK : FLOE_CHECK_FAIL,
	    role.session_read_only ? NULL : "This is a bug in floe; please report it.",
	    "default_transaction_read_only = %s", role.session_read_only ? "on" : "off");
}

static void check_schemas(floe_doctor_report *r, floe_pg *pg, const floe_config *c)
{
	floe_pg_schema_facts *s = NULL;
	const floe_string_list *want = &c->source.schemas;
	if (floe_pg_schemas_inspect(&s, pg, r->arena, want->items, want->count) < 0) {
		add(r, "schemas.usable", "selected schemas exist and are readable", FLOE_CHECK_FAIL,
		    NULL, "%s", error_facts(r));
		return;
	}
	floe_buf missing = FLOE_BUF_INIT, creatable = FLOE_BUF_INIT, seen = FLOE_BUF_INIT;
	for (size_t i = 0; i < want->count; i++) {
		if (!s[i].exists || !s[i].usage)
			floe_buf_printf(&missing, "%s%s (%s)", missing.len ? ", " : "", s[i].name,
					s[i].exists ? "no USAGE" : "does not exist");
		if (s[i].create)
			floe_buf_printf(&creatable, "%s%s", creatable.len ? ", " : "", s[i].name);
		floe_buf_printf(&seen, "%s%s: %lld tables", seen.len ? "; " : "", s[i].name, s[i].n_tables);
	}
	add(r, "schemas.usable", "selected schemas exist and are readable",
	    missing.len ? FLOE_CHECK_FAIL : FLOE_CHECK_OK,
	    missing.len ? "Fix `schemas` under [source], or GRANT USAGE ON SCHEMA … TO the role." : NULL,
	    "%s", missing.len ? floe_buf_cstr(&missing) : floe_buf_cstr(&seen));
	add(r, "role.schema_create", "no CREATE on the selected schemas",
	    creatable.len ? FLOE_CHECK_FAIL : FLOE_CHECK_OK,
	    creatable.len ? "REVOKE CREATE ON SCHEMA … FROM the role (and from PUBLIC)." : NULL,
	    creatable.len ? "CREATE granted on schema %s" : "no CREATE on %s",
	    creatable.len ? floe_buf_cstr(&creatable) : "any selected schema");
	floe_buf_free(&missing);
	floe_buf_free(&creatable);
	floe_buf_free(&seen);
}

static bool excluded(const floe_config *c, const floe_pg_table_facts *t)
{
	for (size_t i = 0; i < c->source.exclude.count; i++) {
		const char *e = c->source.exclude.items[i];
		size_t sl = strlen(t->schema);
		if (strncmp(e, t->schema, sl) == 0 && e[sl] == '.' && strcmp(e + sl + 1, t->name) == 0)
			return true;
	}
	return false;
}

static void check_table_writes(floe_doctor_report *r, const source_facts *sf)
{
	floe_buf writable = FLOE_BUF_INIT;
	for (size_t i = 0; i < sf->n_tables; i++) {
		const floe_pg_table_facts *t = &sf->tables[i];
		if (t->write_privileges[0])
			floe_buf_printf(&writable, "%s%s.%s (%s)", writable.len ? "; " : "", t->schema,
					t->name, t->write_privileges);
	}
	add(r, "role.table_writes", "no write privilege on any selected table",
	    writable.len ? FLOE_CHECK_FAIL : FLOE_CHECK_OK,
	    writable.len ? "REVOKE INSERT, UPDATE, DELETE, TRUNCATE, TRIGGER ON those tables FROM the role." : NULL,
	    "%s", writable.len ? floe_buf_cstr(&writable) : "SELECT only");
	floe_buf_free(&writable);
}

static void check_columns(floe_doctor_report *r, const source_facts *sf)
{
	floe_buf hidden = FLOE_BUF_INIT, rls = FLOE_BUF_INIT;
	size_t columns = 0;
	for (size_t i = 0; i < sf->n_tables; i++) {
		const floe_pg_table_facts *t = &sf->tables[i];
		columns += t->n_columns;
		if (t->n_hidden == t->n_columns && t->n_columns > 0)
			floe_buf_printf(&hidden, "%s%s.%s (no SELECT on the table)", hidden.len ? "; " : "",
					t->schema, t->name);
		else
			for (size_t j = 0; j < t->n_hidden; j++)
				floe_buf_printf(&hidden, "%s%s.%s.%s", hidden.len ? "; " : "", t->schema,
						t->name, t->hidden_columns[j]);
		if (t->rls_enabled && (!t->is_owner || t->rls_forced))
			floe_buf_printf(&rls, "%s%s.%s", rls.len ? ", " : "", t->schema, t->name);
	}
	add(r, "columns.visible", "every column of every selected table is visible",
	    hidden.len ? FLOE_CHECK_FAIL : FLOE_CHECK_OK,
	    hidden.len ? "GRANT SELECT on those columns to the role, or add the tables to `exclude`; "
			 "floe refuses to load a table it cannot read whole." : NULL,
	    hidden.len ? "not visible: %s" : "%s", hidden.len ? floe_buf_cstr(&hidden)
			: floe_arena_printf(r->arena, "%zu tables, %zu columns, all visible",
					    sf->n_tables, columns));
	if (rls.len)
		add(r, "tables.row_security", "row-level security", FLOE_CHECK_WARN,
		    "Policies may hide rows from the role; give it a policy that sees every row, "
		    "or BYPASSRLS.", "row-level security is enabled on %s", floe_buf_cstr(&rls));
	floe_buf_free(&hidden);
	floe_buf_free(&rls);
}

static int inspect_tables(source_facts *sf, floe_doctor_report *r, floe_pg *pg, const floe_config *c)
{
	floe_pg_table_facts *all = NULL;
	size_t n = 0;
	if (floe_pg_tables_inspect(&all, &n, pg, r->arena, c->source.schemas.items,
				   c->source.schemas.count) < 0)
		return -1;
	sf->tables = floe_arena_alloc(r->arena, sizeof(*all) * (n + 1));
	sf->n_tables = 0;
	for (size_t i = 0; i < n; i++)
		if (!excluded(c, &all[i]))
			sf->tables[sf->n_tables++] = all[i];
	return 0;
}

/* The role.* checks (and schemas.usable); the selected tables in `sf` unless they could not be read. */
static int check_privileges(source_facts *sf, floe_doctor_report *r, floe_pg *pg, const floe_config *c)
{
	check_role(r, pg, c);
	check_schemas(r, pg, c);
	if (inspect_tables(sf, r, pg, c) < 0) {
		add(r, "columns.visible", "every column of every selected table is visible",
		    FLOE_CHECK_FAIL, NULL, "%s", error_facts(r));
		return -1;
	}
	check_table_writes(r, sf);
	return 0;
}

/* cdc.ready: for the tables [cdc] names, what the source lacks and the SQL a DBA runs (docs/cdc.md). */
static void check_cdc(floe_doctor_report *r, floe_pg *pg, const floe_config *c, const source_facts *sf)
{
	const char **names = floe_arena_alloc(r->arena, (sf->n_tables + 1) * sizeof(char *));
	size_t n = 0;
	floe_cdc_readiness ready;
	for (size_t i = 0; i < sf->n_tables; i++)
		if (floe_config_cdc_wants(c, sf->tables[i].schema, sf->tables[i].name))
			names[n++] = floe_arena_printf(r->arena, "%s.%s", sf->tables[i].schema, sf->tables[i].name);
	if (n == 0)
		return;
	const char *title = "change data capture is ready";
	if (floe_cdc_inspect(&ready, r->arena, pg, c, names, n) < 0) {
		add(r, "cdc.ready", title, FLOE_CHECK_FAIL, NULL, "%s", error_facts(r));
		return;
	}
	if (ready.missing)
		add(r, "cdc.ready", title, FLOE_CHECK_FAIL,
		    floe_arena_printf(r->arena, "Have a DBA run: %s", ready.sql ? ready.sql : ""), "%zu CDC tables; "
		    "missing: %s", n, ready.missing);
	else
		add(r, "cdc.ready", title, ready.later ? FLOE_CHECK_WARN : FLOE_CHECK_OK, NULL,
		    "%zu CDC tables; wal_level logical, REPLICATION, %d of %d slots in use%s%s", n, ready.slots_used,
		    ready.max_replication_slots, ready.later ? "; to be made by floe: " : "",
		    ready.later ? ready.later : "");
}

static void check_source(floe_doctor_report *r, const floe_config *c)
{
	floe_pg *pg = NULL;
	if (floe_pg_connect_source(&pg, c) < 0) {
		add(r, "source.reachable", "source reachable", FLOE_CHECK_FAIL,
		    error_hint(r, "Check [source] in floe.toml."), "%s", error_facts(r));
		floe_error_clear();
		add(r, "role.read_only", "source role is read-only", FLOE_CHECK_SKIP, NULL,
		    "not checked: no connection");
		add(r, "columns.visible", "every column of every selected table is visible",
		    FLOE_CHECK_SKIP, NULL, "not checked: no connection");
		return;
	}
	add(r, "source.reachable", "source reachable", FLOE_CHECK_OK, NULL,
	    "connected to %s as \"%s\"%s", floe_pg_describe(pg), c->source.user,
	    floe_config_source_password(c) ? "" : " (no password given)");
	int v = floe_pg_server_version(pg);
	add(r, "source.version", "PostgreSQL 12 or newer",
	    v >= MIN_SERVER_VERSION ? FLOE_CHECK_OK : FLOE_CHECK_FAIL,
	    v >= MIN_SERVER_VERSION ? NULL : "Upgrade the source to PostgreSQL 12 or newer.",
	    "server version %s", floe_pg_server_version_text(pg));
	add(r, "source.database", "database exists", FLOE_CHECK_OK, NULL, "database \"%s\" exists",
	    c->source.database);
	source_facts sf = { NULL, 0 };
	if (check_privileges(&sf, r, pg, c) == 0) {
		check_columns(r, &sf);
		add(r, "tables.selected", "tables selected", sf.n_tables ? FLOE_CHECK_OK : FLOE_CHECK_WARN,
		    sf.n_tables ? NULL : "Check `schemas` and `exclude` under [source].",
		    "%zu tables in %zu schemas (after exclude)", sf.n_tables, c->source.schemas.count);
		check_cdc(r, pg, c, &sf);
	}
	floe_error_clear();
	floe_pg_close(pg);
}

static void check_warehouse(floe_doctor_report *r, const floe_config *c)
{
	const char *dir = floe_config_warehouse_dir(c);
	const char *probe = floe_arena_printf(r->arena, "%s/.floe-doctor-probe", dir);
	floe_fs_write_opts opts = FLOE_FS_WRITE_OPTS_INIT;
	if (!floe_fs_is_dir(dir)) {
		add(r, "warehouse.writable", "warehouse directory writable", FLOE_CHECK_FAIL,
		    "Run `floe init` to create the layout, or fix `location` under [warehouse].",
		    "\"%s\" is not a directory", dir);
	} else if (floe_fs_write_atomic(probe, "ok\n", 3, &opts) < 0) {
		add(r, "warehouse.writable", "warehouse directory writable", FLOE_CHECK_FAIL,
		    "Give this user write access to the directory.", "%s", error_facts(r));
	} else {
		unlink(probe);
		add(r, "warehouse.writable", "warehouse directory writable", FLOE_CHECK_OK, NULL,
		    "wrote and removed a file in %s", dir);
	}
	floe_error_clear();

	floe_catalog_sql *cat = NULL;
	const char *path = floe_config_catalog_path(r->arena, c);
	long long n = 0;
	if (floe_catalog_sql_open(&cat, path, false) < 0 || floe_catalog_sql_count_tables(cat, &n) < 0)
		add(r, "catalog.opens", "catalog opens", FLOE_CHECK_FAIL,
		    error_hint(r, "Run `floe init` to create it."), "%s", error_facts(r));
	else
		add(r, "catalog.opens", "catalog opens", FLOE_CHECK_OK, NULL,
		    "%s (SQLite, JDBC-catalog schema): %lld tables", path, n);
	floe_catalog_sql_close(cat);
	floe_error_clear();
}

/* Whether the list callback saw `ctx`'s probe URI. */
typedef struct probe_seen {
	const char *uri;
	bool seen;
} probe_seen;

static int saw_probe(void *ctx, const char *uri, int64_t size, int64_t mtime_ms)
{
	probe_seen *p = ctx;
	(void)size, (void)mtime_ms;
	if (strcmp(uri, p->uri) == 0)
		p->seen = true;
	return 0;
}

/* Listing the warehouse failed: was the store unreachable, or were the credentials refused? */
static void store_refused(floe_doctor_report *r, const char *location)
{
	bool creds = floe_error_last() && floe_error_last()->sys_errno == EKEYREJECTED;
	if (creds) {
		add(r, "objectstore.reachable", "object store reachable", FLOE_CHECK_OK, NULL,
		    "the store answered at %s", location);
		add(r, "objectstore.credentials", "object store accepts the credentials", FLOE_CHECK_FAIL,
		    error_hint(r, "Check the access and secret key variables."), "%s", error_facts(r));
	} else {
		add(r, "objectstore.reachable", "object store reachable", FLOE_CHECK_FAIL,
		    error_hint(r, "Check `endpoint` (and `path-style`) under [warehouse], and that the store is up."),
		    "%s", error_facts(r));
	}
}

/* Write, list and delete a probe object under the warehouse location. */
static void probe_store(floe_doctor_report *r, floe_iceberg_storage *st, const char *location)
{
	const char *probe = floe_arena_printf(r->arena, "%s/.floe-doctor-probe-%ld", location, (long)getpid());
	probe_seen seen = { probe, false };
	bool gone = false;
	if (floe_iceberg_storage_create(st, probe, "ok\n", 3) < 0) {
		add(r, "objectstore.write", "can write to the warehouse location", FLOE_CHECK_FAIL,
		    error_hint(r, "Give the key permission to write under the location."), "%s", error_facts(r));
		return;
	}
	add(r, "objectstore.write", "can write to the warehouse location", FLOE_CHECK_OK, NULL, "wrote %s", probe);
	if (floe_iceberg_storage_list(st, location, saw_probe, &seen) < 0 || !seen.seen)
		add(r, "objectstore.list", "can list the warehouse location", FLOE_CHECK_FAIL,
		    "Give the key permission to list the bucket (s3:ListBucket).",
		    "%s", seen.seen || floe_error_last() ? error_facts(r) : "the probe object was not listed");
	else
		add(r, "objectstore.list", "can list the warehouse location", FLOE_CHECK_OK, NULL,
		    "listed %s and found the probe", location);
	floe_error_clear();
	if (floe_iceberg_storage_remove(st, probe) < 0 || floe_iceberg_storage_exists(st, probe, &gone) < 0 || gone)
		add(r, "objectstore.delete", "can delete in the warehouse location", FLOE_CHECK_FAIL,
		    "Give the key permission to delete objects under the location (expiry and orphan removal need it).",
		    "%s", floe_error_last() ? error_facts(r) : "the probe object is still there after DELETE");
	else
		add(r, "objectstore.delete", "can delete in the warehouse location", FLOE_CHECK_OK, NULL,
		    "deleted the probe");
}

/* An S3 warehouse: credentials present, store reachable and accepting them, write/list/delete. */
static void check_object_store(floe_doctor_report *r, const floe_config *c)
{
	const char *location = c->warehouse.location;
	const floe_iceberg_s3_opts *o = floe_iceberg_storage_routed_s3(floe_config_warehouse_dir(c));
	floe_iceberg_s3_opts quick = o ? *o : (floe_iceberg_s3_opts){ 0 };
	floe_iceberg_storage *st = NULL;
	quick.attempts = 2; /* a diagnosis, not a load: say what is wrong without waiting it out */
	if (!o || floe_iceberg_storage_s3(&st, &quick) < 0) {
		add(r, "objectstore.credentials", "object store credentials set", FLOE_CHECK_FAIL,
		    error_hint(r, "Set the variables [warehouse] names."), "%s", error_facts(r));
	} else if (floe_iceberg_storage_list(st, location, saw_probe, &(probe_seen){ "", false }) < 0) {
		store_refused(r, location);
	} else {
		add(r, "objectstore.reachable", "object store reachable", FLOE_CHECK_OK, NULL,
		    "listed %s", location);
		add(r, "objectstore.credentials", "object store accepts the credentials", FLOE_CHECK_OK, NULL,
		    "signed requests accepted (keys from %s, %s)", o->access_key_env, o->secret_key_env);
		probe_store(r, st, location);
	}
	floe_iceberg_storage_free(st);
	floe_error_clear();
}

static void check_engine(floe_doctor_report *r)
{
	floe_engine *e = NULL;
	floe_buf answer = FLOE_BUF_INIT;
	if (floe_engine_open(&e, NULL) < 0 || floe_engine_query_text(e, &answer, "select 6 * 7") < 0)
		add(r, "engine.duckdb", "embedded DuckDB answers", FLOE_CHECK_FAIL,
		    "Run `scripts/setup.sh duckdb` to fetch the pinned library.", "%s", error_facts(r));
	else
		add(r, "engine.duckdb", "embedded DuckDB answers",
		    strcmp(floe_buf_cstr(&answer), "42") == 0 ? FLOE_CHECK_OK : FLOE_CHECK_FAIL, NULL,
		    "DuckDB %s: select 6 * 7 = %s", floe_engine_version(), floe_buf_cstr(&answer));
	floe_buf_free(&answer);
	floe_engine_close(e);
	floe_error_clear();
}

int floe_doctor_run(floe_doctor_report **out, const floe_config *config)
{
	floe_doctor_report *r = floe_xcalloc(1, sizeof(*r));
	r->arena = floe_arena_new();
	add(r, "config.valid", "floe.toml is valid", FLOE_CHECK_OK, NULL, "%s", config->path);
	check_source(r, config);
	check_warehouse(r, config);
	if (floe_config_warehouse_is_s3(config))
		check_object_store(r, config);
	check_engine(r);
	*out = r;
	return 0;
}

void floe_doctor_warn_role_on(const floe_config *config, floe_pg *pg)
{
	floe_doctor_report *r = floe_xcalloc(1, sizeof(*r));
	source_facts sf = { NULL, 0 };
	floe_buf failed = FLOE_BUF_INIT;
	r->arena = floe_arena_new();
	if (!pg)
		goto cleanup; /* the command itself reports an unreachable source */
	check_privileges(&sf, r, pg, config);
	for (size_t i = 0; i < r->n; i++)
		if (r->checks[i].status == FLOE_CHECK_FAIL && strncmp(r->checks[i].id, "role.", 5) == 0)
			floe_buf_printf(&failed, "%s%s", failed.len ? ", " : "", r->checks[i].id);
	if (failed.len) {
		char *user = floe_text_printable(config->source.user);
		floe_log_warn("the source role \"%s\" is not read-only (%s fail); floe's own sessions are "
			      "read-only, but the role could change the data floe verifies — run `floe "
			      "doctor` for why and what to change", user, floe_buf_cstr(&failed));
		free(user);
	}
cleanup:
	floe_error_clear();
	floe_buf_free(&failed);
	floe_doctor_free(r);
}

void floe_doctor_warn_role(const floe_config *config)
{
	floe_pg *pg = NULL;
	if (floe_pg_connect_source(&pg, config) == 0)
		floe_doctor_warn_role_on(config, pg);
	floe_error_clear();
	floe_pg_close(pg);
}

void floe_doctor_free(floe_doctor_report *report)
{
	if (!report)
		return;
	floe_arena_free(report->arena);
	free(report);
}

size_t floe_doctor_count(const floe_doctor_report *report)
{
	return report->n;
}

const floe_doctor_check *floe_doctor_at(const floe_doctor_report *report, size_t i)
{
	return &report->checks[i];
}

bool floe_doctor_failed(const floe_doctor_report *report)
{
	for (size_t i = 0; i < report->n; i++)
		if (report->checks[i].status == FLOE_CHECK_FAIL)
			return true;
	return false;
}

const char *floe_check_status_name(floe_check_status status)
{
	static const char *names[] = { "ok", "warn", "fail", "skip" };
	return names[status];
}

int floe_doctor_render_text(floe_buf *out, const floe_doctor_report *report)
{
	size_t counts[4] = { 0 };
	for (size_t i = 0; i < report->n; i++) {
		const floe_doctor_check *c = &report->checks[i];
		counts[c->status]++;
		floe_buf_printf(out, "%-4s  %-48s ", floe_check_status_name(c->status), c->title);
		floe_text_put_printable(out, c->facts); /* facts name tables and columns of the source */
		floe_buf_putc(out, '\n');
		if (c->todo && c->status != FLOE_CHECK_OK) {
			floe_buf_puts(out, "      → ");
			floe_text_put_printable(out, c->todo);
			floe_buf_putc(out, '\n');
		}
	}
	return floe_buf_printf(out, "\n%zu ok, %zu warn, %zu fail, %zu skipped\n", counts[0], counts[1],
			       counts[2], counts[3]);
}

int floe_doctor_render_json(floe_buf *out, const floe_doctor_report *report)
{
	floe_buf_puts(out, "{\"ok\":");
	floe_buf_puts(out, floe_doctor_failed(report) ? "false" : "true");
	floe_buf_puts(out, ",\"checks\":[");
	for (size_t i = 0; i < report->n; i++) {
		const floe_doctor_check *c = &report->checks[i];
		floe_buf_puts(out, i ? ",{" : "{");
		floe_json_put_member(out, "id", c->id);
		floe_json_put_member(out, "title", c->title);
		floe_json_put_member(out, "status", floe_check_status_name(c->status));
		floe_json_put_member(out, "facts", c->facts);
		floe_json_put_member(out, "todo", c->todo);
		floe_buf_putc(out, '}');
	}
	return floe_buf_puts(out, "]}\n");
}
