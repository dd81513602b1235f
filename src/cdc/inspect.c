/*
 * inspect.c — what `floe doctor` says about CDC (cdc.h): the server's settings, the role's
 * REPLICATION, each CDC table's publication and slot — and the SQL a DBA runs for what is
 * missing — and what `floe status` says about a slot's lag. Read-only queries only.
 */
#include "cdc/cdc_int.h"
#include "cdc/pgoutput.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/error.h"
#include "config/cdc.h"

#include <stdlib.h>
#include <string.h>

static const char *settings_sql =
	"select current_setting('wal_level'), current_setting('max_replication_slots')::int, "
	"current_setting('max_wal_senders')::int, (select count(*) from pg_catalog.pg_replication_slots)::int, "
	"(select rolreplication or rolsuper from pg_catalog.pg_roles where rolname = current_user)";

static const char *table_sql =
	"select exists (select 1 from pg_catalog.pg_publication_tables where pubname = $1 and schemaname = $2 "
	"and tablename = $3), exists (select 1 from pg_catalog.pg_replication_slots where slot_name = $4), "
	"coalesce((select c.relreplident::text from pg_catalog.pg_class c join pg_catalog.pg_namespace n "
	"on n.oid = c.relnamespace where n.nspname = $2 and c.relname = $3), 'd')";

static const char *quoted(floe_arena *a, floe_pg *pg, const char *ident)
{
	floe_buf b = FLOE_BUF_INIT;
	const char *out = floe_pg_quote_ident(&b, pg, ident) < 0 ? "?" : floe_arena_strdup(a, floe_buf_cstr(&b));
	floe_buf_free(&b);
	return out;
}

static int settings(floe_cdc_readiness *out, floe_arena *a, floe_pg *pg, const floe_config *config,
		    floe_buf *missing, floe_buf *sql)
{
	floe_pg_result *r = NULL;
	if (floe_pg_query(&r, pg, settings_sql, 0, NULL) < 0)
		return -1;
	out->wal_level = floe_arena_strdup(a, floe_pg_result_text(r, 0, 0));
	out->max_replication_slots = (int)floe_pg_result_int(r, 0, 1);
	out->max_wal_senders = (int)floe_pg_result_int(r, 0, 2);
	out->slots_used = (int)floe_pg_result_int(r, 0, 3);
	out->replication = floe_pg_result_bool(r, 0, 4);
	floe_pg_result_free(r);
	if (strcmp(out->wal_level, "logical") != 0) {
		floe_buf_printf(missing, "wal_level is %s, not logical (a restart follows the change); ", out->wal_level);
		floe_buf_puts(sql, "ALTER SYSTEM SET wal_level = logical; ");
	}
	if (out->max_wal_senders < 1) {
		floe_buf_puts(missing, "max_wal_senders is 0 (a restart follows the change); ");
		floe_buf_puts(sql, "ALTER SYSTEM SET max_wal_senders = 10; ");
	}
	if (!out->replication) {
		floe_buf_printf(missing, "role \"%s\" lacks REPLICATION; ", config->source.user);
		floe_buf_printf(sql, "ALTER ROLE %s REPLICATION; ", quoted(a, pg, config->source.user));
	}
	return 0;
}

/* One table's publication and slot. *slots_missing counts the slots still to be made. */
static int table(floe_arena *a, floe_pg *pg, const floe_config *config, const char *qualified, floe_buf *missing,
		 floe_buf *sql, floe_buf *later, int *slots_missing)
{
	const char *dot = strchr(qualified, '.');
	const char *schema = floe_arena_strndup(a, qualified, (size_t)(dot - qualified)), *name = dot + 1;
	floe_cdc_names n;
	floe_pg_result *r = NULL;
	floe_cdc_names_of(&n, config->project_name, schema, name);
	const char *params[] = { n.publication, schema, name, n.slot };
	if (floe_pg_query(&r, pg, table_sql, 4, params) < 0)
		return -1;
	bool pub = floe_pg_result_bool(r, 0, 0), slot = floe_pg_result_bool(r, 0, 1);
	bool identity = strcmp(floe_pg_result_text(r, 0, 2), "n") != 0;
	floe_pg_result_free(r);
	if (!identity) { /* published, its UPDATEs and DELETEs would fail on the source */
		floe_buf_printf(missing, "%s has REPLICA IDENTITY NOTHING; ", qualified);
		floe_buf_printf(sql, "ALTER TABLE %s.%s REPLICA IDENTITY DEFAULT; ", quoted(a, pg, schema),
				quoted(a, pg, name));
	}
	const floe_config_cdc *c = config->cdc;
	if (!pub) {
		bool floe_may = c && c->create_publication;
		floe_buf_printf(floe_may ? later : missing, "publication \"%s\" for %s%s; ", n.publication, qualified,
				floe_may ? " (floe creates it: create-publication)" : "");
		if (!floe_may)
			floe_buf_printf(sql, "CREATE PUBLICATION %s FOR TABLE %s.%s; ", quoted(a, pg, n.publication),
					quoted(a, pg, schema), quoted(a, pg, name));
	}
	if (!slot) {
		bool floe_may = c && c->create_slot;
		floe_buf_printf(floe_may ? later : missing, "slot \"%s\"%s; ", n.slot,
				floe_may ? " (floe creates it: create-slot)" : "");
		if (!floe_may)
			floe_buf_printf(sql, "SELECT pg_create_logical_replication_slot('%s', 'pgoutput'); ", n.slot);
		(*slots_missing)++;
	}
	return 0;
}

int floe_cdc_inspect(floe_cdc_readiness *out, floe_arena *a, floe_pg *pg, const floe_config *config,
		     const char *const *tables, size_t n)
{
	floe_buf missing = FLOE_BUF_INIT, sql = FLOE_BUF_INIT, later = FLOE_BUF_INIT;
	int slots_missing = 0, error = -1;
	memset(out, 0, sizeof(*out));
	if (settings(out, a, pg, config, &missing, &sql) < 0)
		goto cleanup;
	for (size_t i = 0; i < n; i++)
		if (table(a, pg, config, tables[i], &missing, &sql, &later, &slots_missing) < 0)
			goto cleanup;
	if (out->slots_used + slots_missing > out->max_replication_slots) {
		floe_buf_printf(&missing, "max_replication_slots is %d with %d in use and %d to make (a restart follows the change); ",
				out->max_replication_slots, out->slots_used, slots_missing);
		floe_buf_printf(&sql, "ALTER SYSTEM SET max_replication_slots = %d; ",
				out->slots_used + slots_missing + 4);
	}
	if (missing.len > 2)
		out->missing = floe_arena_strndup(a, missing.ptr, missing.len - 2);
	else if (later.len > 2)
		out->later = floe_arena_strndup(a, later.ptr, later.len - 2);
	if (sql.len)
		out->sql = floe_arena_strndup(a, sql.ptr, sql.len - 1);
	error = 0;
cleanup:
	floe_buf_free(&missing);
	floe_buf_free(&sql);
	floe_buf_free(&later);
	return error;
}

int floe_cdc_lag_of(floe_cdc_lag *out, floe_pg *pg, const char *slot)
{
	floe_pg_result *r = NULL;
	const char *params[] = { slot };
	memset(out, 0, sizeof(*out));
	const char *sql = floe_pg_server_version(pg) >= 130000
		? "select wal_status, coalesce(pg_catalog.pg_wal_lsn_diff(pg_catalog.pg_current_wal_lsn(), restart_lsn), 0)::bigint, "
		  "coalesce(pg_catalog.pg_wal_lsn_diff(pg_catalog.pg_current_wal_lsn(), confirmed_flush_lsn), 0)::bigint "
		  "from pg_catalog.pg_replication_slots where slot_name = $1"
		: "select 'reserved', coalesce(pg_catalog.pg_wal_lsn_diff(pg_catalog.pg_current_wal_lsn(), restart_lsn), 0)::bigint, "
		  "coalesce(pg_catalog.pg_wal_lsn_diff(pg_catalog.pg_current_wal_lsn(), confirmed_flush_lsn), 0)::bigint "
		  "from pg_catalog.pg_replication_slots where slot_name = $1";
	if (floe_pg_query(&r, pg, sql, 1, params) < 0)
		return -1;
	if (floe_pg_result_rows(r) == 1) {
		out->found = true;
		out->wal_status = strcmp(floe_pg_result_text(r, 0, 0), "lost") == 0 ? "lost"
				  : strcmp(floe_pg_result_text(r, 0, 0), "unreserved") == 0 ? "unreserved"
				  : strcmp(floe_pg_result_text(r, 0, 0), "extended") == 0 ? "extended" : "reserved";
		out->retained_bytes = floe_pg_result_int(r, 0, 1);
		out->lag_bytes = floe_pg_result_int(r, 0, 2);
	}
	floe_pg_result_free(r);
	return 0;
}
