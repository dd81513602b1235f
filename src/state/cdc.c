/*
 * cdc.c — what the run ledger keeps of change data capture (version 8): per CDC table its
 * slot, the LSN its bronze snapshot reflects, and the slot's lag and retained WAL measured
 * right after the load acknowledged it. `floe status` reads it.
 */
#include "state/state_int.h"
#include "base/arena.h"
#include "db/db.h"

#include <string.h>

int floe_state_cdc_put(floe_state *st, const floe_state_cdc *row)
{
	floe_db_stmt *s = NULL;
	if (floe_db_prepare(&s, st->db, "INSERT INTO cdc_slots (table_name, slot, lsn, lag_bytes, retained_bytes, "
					"wal_status, caught_up_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (table_name) DO "
					"UPDATE SET slot = excluded.slot, lsn = excluded.lsn, lag_bytes = excluded.lag_bytes, "
					"retained_bytes = excluded.retained_bytes, wal_status = excluded.wal_status, "
					"caught_up_at = excluded.caught_up_at") < 0)
		return -1;
	floe_db_bind_text(s, 1, row->table);
	floe_db_bind_text(s, 2, row->slot);
	floe_db_bind_text(s, 3, row->lsn);
	floe_db_bind_int64(s, 4, row->lag_bytes);
	floe_db_bind_int64(s, 5, row->retained_bytes);
	floe_db_bind_text(s, 6, row->wal_status);
	floe_db_bind_text(s, 7, row->caught_up_at);
	int rc = floe_db_step(s);
	floe_db_finalize(s);
	return rc < 0 ? -1 : 0;
}

int floe_state_cdc_get(floe_state *st, floe_arena *a, const char *table, floe_state_cdc *out)
{
	floe_db_stmt *s = NULL;
	memset(out, 0, sizeof(*out));
	if (floe_db_prepare(&s, st->db, "SELECT slot, lsn, lag_bytes, retained_bytes, wal_status, caught_up_at "
					"FROM cdc_slots WHERE table_name = ?") < 0)
		return -1;
	floe_db_bind_text(s, 1, table);
	int rc = floe_db_step(s);
	if (rc == 1) {
		out->table = floe_arena_strdup(a, table);
		out->slot = floe_arena_strdup(a, floe_db_column_text(s, 0));
		out->lsn = floe_arena_strdup(a, floe_db_column_text(s, 1));
		out->lag_bytes = floe_db_column_int64(s, 2);
		out->retained_bytes = floe_db_column_int64(s, 3);
		out->wal_status = floe_arena_strdup(a, floe_db_column_text(s, 4));
		out->caught_up_at = floe_arena_strdup(a, floe_db_column_text(s, 5));
	}
	floe_db_finalize(s);
	return rc;
}
