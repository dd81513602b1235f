/*
 * slot.c — a CDC table's publication and replication slot: their names, their state on the
 * source, and their creation when floe.toml allows it ([cdc] create-publication,
 * create-slot); otherwise the error gives the SQL a DBA runs.
 */
#include "cdc/cdc_int.h"
#include "cdc/pgoutput.h"
#include "base/arena.h"
#include "base/error.h"
#include "config/cdc.h"
#include "pg/introspect.h"
#include "pg/replication.h"

#include <stdio.h>
#include <string.h>

/* Lower-case letters, digits and '_' (what a slot name may hold), at most `room` - 1 bytes. */
static void name_part(char *out, size_t room, const char *s)
{
	size_t n = strlen(out);
	for (; *s && n + 1 < room; s++) {
		char ch = *s >= 'A' && *s <= 'Z' ? (char)(*s - 'A' + 'a') : *s;
		out[n++] = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ? ch : '_';
	}
	out[n] = '\0';
}

void floe_cdc_names_of(floe_cdc_names *out, const char *project, const char *schema, const char *table)
{
	snprintf(out->slot, sizeof(out->slot), "floe_");
	name_part(out->slot, sizeof(out->slot), project ? project : "");
	name_part(out->slot, sizeof(out->slot), "_");
	name_part(out->slot, sizeof(out->slot), schema);
	name_part(out->slot, sizeof(out->slot), "_");
	name_part(out->slot, sizeof(out->slot), table);
	memcpy(out->publication, out->slot, sizeof(out->slot));
}

static const char *quoted(floe_arena *a, floe_pg *pg, const char *ident)
{
	floe_buf b = FLOE_BUF_INIT;
	const char *out = floe_pg_quote_ident(&b, pg, ident) < 0 ? NULL : floe_arena_strdup(a, floe_buf_cstr(&b));
	floe_buf_free(&b);
	return out ? out : "?";
}

const char *cdc_setup_sql(floe_arena *a, floe_pg *pg, const floe_cdc_names *n, const char *schema,
			  const char *table, const char *role)
{
	return floe_arena_printf(a, "ALTER ROLE %s REPLICATION; CREATE PUBLICATION %s FOR TABLE %s.%s; "
				    "SELECT pg_create_logical_replication_slot('%s', 'pgoutput');",
				 quoted(a, pg, role), quoted(a, pg, n->publication), quoted(a, pg, schema),
				 quoted(a, pg, table), n->slot);
}

static int missing(floe_cdc *c, const char *what, const char *key)
{
	const floe_cdc_opts *o = c->opts;
	floe_error_set(FLOE_ERR_CONFIG, "%s for %s.%s", what, o->schema, o->table);
	floe_error_detail("floe creates it only when floe.toml allows it ([cdc] %s = true).", key);
	floe_error_hint("Set `%s = true` under [cdc], or have a DBA run: %s", key,
			cdc_setup_sql(o->arena, c->holder, &c->names, o->schema, o->table, o->config->source.user));
	return -1;
}

int cdc_publication_ensure(floe_cdc *c)
{
	const floe_cdc_opts *o = c->opts;
	floe_pg_result *r = NULL;
	const char *params[] = { c->names.publication, o->schema, o->table };
	if (floe_pg_query(&r, c->holder, "select exists (select 1 from pg_catalog.pg_publication where pubname = $1), "
					 "exists (select 1 from pg_catalog.pg_publication_tables where pubname = $1 "
					 "and schemaname = $2 and tablename = $3), coalesce((select c.relreplident::text from "
					 "pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace "
					 "where n.nspname = $2 and c.relname = $3), 'd')", 3, params) < 0)
		return -1;
	bool pub = floe_pg_result_bool(r, 0, 0), has = floe_pg_result_bool(r, 0, 1);
	bool nothing = strcmp(floe_pg_result_text(r, 0, 2), "n") == 0;
	floe_pg_result_free(r);
	if (pub && has)
		return 0;
	if (nothing) { /* published, the application's UPDATEs and DELETEs on it would start to fail */
		floe_error_set(FLOE_ERR_CONFIG, "%s.%s has REPLICA IDENTITY NOTHING: floe will not publish it", o->schema,
			       o->table);
		floe_error_detail("PostgreSQL refuses UPDATE and DELETE on a published table without a replica identity.");
		floe_error_hint("Have a DBA run: ALTER TABLE %s.%s REPLICA IDENTITY DEFAULT;",
				quoted(o->arena, c->holder, o->schema), quoted(o->arena, c->holder, o->table));
		return -1;
	}
	if (!o->config->cdc || !o->config->cdc->create_publication)
		return missing(c, pub ? floe_arena_printf(o->arena, "publication \"%s\" does not publish the table",
							    c->names.publication)
				      : floe_arena_printf(o->arena, "publication \"%s\" does not exist", c->names.publication),
			       "create-publication");
	/* Allowed by floe.toml: the one write floe makes on the source, in its own transaction. */
	const char *sql = floe_arena_printf(o->arena, "%s PUBLICATION %s %s TABLE %s.%s", pub ? "ALTER" : "CREATE",
					    quoted(o->arena, c->holder, c->names.publication), pub ? "ADD" : "FOR",
					    quoted(o->arena, c->holder, o->schema), quoted(o->arena, c->holder, o->table));
	if (floe_pg_exec(c->holder, "BEGIN READ WRITE") < 0 || floe_pg_exec(c->holder, sql) < 0 ||
	    floe_pg_exec(c->holder, "COMMIT") < 0) {
		floe_pg_rollback(c->holder);
		return floe_error_context("while creating publication \"%s\" ([cdc] create-publication)",
					  c->names.publication);
	}
	return 0;
}

int cdc_slot_read(cdc_slot *out, floe_cdc *c)
{
	floe_pg_result *r = NULL;
	const char *params[] = { c->names.slot };
	memset(out, 0, sizeof(*out));
	const char *sql = floe_pg_server_version(c->holder) >= 130000
		? "select wal_status, coalesce(confirmed_flush_lsn::text, ''), database is distinct from "
		  "current_database() from pg_catalog.pg_replication_slots where slot_name = $1"
		: "select 'reserved', coalesce(confirmed_flush_lsn::text, ''), database is distinct from "
		  "current_database() from pg_catalog.pg_replication_slots where slot_name = $1";
	if (floe_pg_query(&r, c->holder, sql, 1, params) < 0)
		return -1;
	if (floe_pg_result_rows(r) == 1) {
		out->found = true;
		out->wal_status = floe_arena_strdup(c->opts->arena, floe_pg_result_text(r, 0, 0));
		out->lost = strcmp(out->wal_status, "lost") == 0;
		out->other_database = floe_pg_result_bool(r, 0, 2);
		if (floe_cdc_lsn_parse(&out->confirmed, floe_pg_result_text(r, 0, 1)) < 0)
			out->lost = true; /* no confirmed LSN: an invalidated slot on older servers */
	}
	floe_pg_result_free(r);
	return 0;
}

/* Connect for replication (once). */
static int repl_open(floe_cdc *c)
{
	return c->repl ? 0 : floe_pg_connect_replication(&c->repl, c->opts->config);
}

int cdc_slot_create(floe_cdc *c, floe_cdc_batch *batch, bool drop_first)
{
	const floe_cdc_opts *o = c->opts;
	floe_pg_result *r = NULL;
	if (!o->config->cdc || !o->config->cdc->create_slot)
		return missing(c, floe_arena_printf(o->arena, "replication slot \"%s\" %s", c->names.slot,
						    drop_first ? "is lost and must be made anew" : "does not exist"),
			       "create-slot");
	if (repl_open(c) < 0)
		return -1;
	if (drop_first) {
		const char *drop = floe_arena_printf(o->arena, "DROP_REPLICATION_SLOT \"%s\"", c->names.slot);
		if (floe_pg_replication_command(&r, c->repl, drop) < 0)
			return floe_error_context("while dropping the lost slot \"%s\"", c->names.slot);
		floe_pg_result_free(r);
	}
	const char *create = floe_arena_printf(o->arena, floe_pg_server_version(c->repl) >= 150000
		? "CREATE_REPLICATION_SLOT \"%s\" LOGICAL pgoutput (SNAPSHOT 'export')"
		: "CREATE_REPLICATION_SLOT \"%s\" LOGICAL pgoutput EXPORT_SNAPSHOT", c->names.slot);
	if (floe_pg_replication_command(&r, c->repl, create) < 0)
		return floe_error_context("while creating replication slot \"%s\"", c->names.slot);
	uint64_t lsn = 0;
	if (floe_pg_result_rows(r) != 1 || floe_cdc_lsn_parse(&lsn, floe_pg_result_text(r, 0, 1)) < 0) {
		floe_pg_result_free(r);
		return floe_error_set(FLOE_ERR_INTERNAL, "CREATE_REPLICATION_SLOT returned no consistent point");
	}
	batch->snapshot = floe_arena_strdup(o->arena, floe_pg_result_text(r, 0, 2));
	batch->lsn = floe_arena_strdup(o->arena, floe_pg_result_text(r, 0, 1));
	floe_pg_result_free(r);
	c->lsn = lsn;
	return 0;
}
