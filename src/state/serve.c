/*
 * serve.c — what `floe serve` keeps in the run ledger: run counts per status, and the
 * last tick each schedule ran (so ticks missed while the server was down run once).
 */
#include "state/state_int.h"
#include "base/error.h"
#include "db/db.h"

#include <string.h>

int floe_state_run_counts(floe_state *st, int64_t out[4])
{
	floe_db_stmt *s = NULL;
	memset(out, 0, 4 * sizeof(*out));
	if (floe_db_prepare(&s, st->db, "SELECT status, count(*) FROM runs GROUP BY status") < 0)
		return -1;
	int rc;
	while ((rc = floe_db_step(s)) == 1) {
		floe_run_status status;
		if (floe_run_status_parse(&status, floe_db_column_text(s, 0)) == 0)
			out[status] = floe_db_column_int64(s, 1);
		else
			floe_error_clear();
	}
	floe_db_finalize(s);
	return rc < 0 ? -1 : 0;
}

int floe_state_tick_get(floe_state *st, const char *schedule, int64_t *out)
{
	floe_db_stmt *s = NULL;
	*out = 0;
	if (floe_db_prepare(&s, st->db, "SELECT last_tick FROM schedule_ticks WHERE schedule = ?") < 0)
		return -1;
	floe_db_bind_text(s, 1, schedule);
	int rc = floe_db_step(s);
	if (rc == 1)
		*out = floe_db_column_int64(s, 0);
	floe_db_finalize(s);
	return rc < 0 ? -1 : 0;
}

int floe_state_tick_put(floe_state *st, const char *schedule, int64_t tick)
{
	floe_db_stmt *s = NULL;
	if (floe_db_prepare(&s, st->db, "INSERT INTO schedule_ticks (schedule, last_tick) VALUES (?, ?) "
					"ON CONFLICT (schedule) DO UPDATE SET last_tick = excluded.last_tick") < 0)
		return -1;
	floe_db_bind_text(s, 1, schedule);
	floe_db_bind_int64(s, 2, tick);
	int rc = floe_db_step(s);
	floe_db_finalize(s);
	return rc < 0 ? -1 : 0;
}
