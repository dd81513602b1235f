/*
 * coverage.c — per table, where a rotating V3 stands ([reconcile] full-every): the next
 * share to prove, the shares proven since the cycle began, and when every bucket was last
 * proven (ledger version 7, table reconcile_coverage).
 */
#include "state/state_int.h"
#include "base/arena.h"

#include <string.h>

int floe_state_coverage_get(floe_state *st, floe_arena *arena, const char *table_name, floe_state_coverage *out)
{
	floe_db_stmt *s = NULL;
	memset(out, 0, sizeof(*out));
	out->seen = "";
	if (floe_db_prepare(&s, st->db, "SELECT full_every, next_share, seen, last_full_at, last_full_run "
					"FROM reconcile_coverage WHERE table_name = ?") < 0)
		return -1;
	floe_db_bind_text(s, 1, table_name);
	int rc = floe_db_step(s);
	if (rc == 1) {
		out->full_every = floe_state_column_count(s, 0);
		out->next_share = floe_state_column_count(s, 1);
		out->seen = floe_state_column_dup(arena, s, 2);
		out->last_full_at = floe_state_column_dup(arena, s, 3);
		out->last_full_run = floe_state_column_dup(arena, s, 4);
		if (!out->seen)
			out->seen = "";
	}
	floe_db_finalize(s);
	return rc < 0 ? -1 : 0;
}

int floe_state_coverage_put(floe_state *st, const char *table_name, const floe_state_coverage *c)
{
	floe_db_stmt *s = NULL;
	if (floe_db_prepare(&s, st->db, "INSERT OR REPLACE INTO reconcile_coverage (table_name, full_every, next_share, "
					"seen, last_full_at, last_full_run) VALUES (?, ?, ?, ?, ?, ?)") < 0)
		return -1;
	floe_db_bind_text(s, 1, table_name);
	floe_db_bind_int64(s, 2, c->full_every);
	floe_db_bind_int64(s, 3, c->next_share);
	floe_db_bind_text(s, 4, c->seen ? c->seen : "");
	floe_db_bind_text(s, 5, c->last_full_at);
	floe_db_bind_text(s, 6, c->last_full_run);
	int rc = floe_db_step(s);
	floe_db_finalize(s);
	return rc < 0 ? -1 : 0;
}
