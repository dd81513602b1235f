/*
 * alert.c — the alert outbox in the run ledger (version 4): the last state notified per
 * key (alert_state) and every transition to post (alert_outbox), each claimed by one
 * process per attempt so none is sent twice and none is lost.
 */
#include "state/state_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "db/db.h"

#include <string.h>

/* In the caller's transaction: the state notified for key, or *found false. */
static int notified(floe_state *st, floe_arena *a, const char *key, bool *found, const char **state, bool *bad)
{
	floe_db_stmt *s = NULL;
	*found = false;
	if (floe_db_prepare(&s, st->db, "SELECT state, bad FROM alert_state WHERE key = ?") < 0)
		return -1;
	floe_db_bind_text(s, 1, key);
	int rc = floe_db_step(s);
	if (rc == 1) {
		*found = true;
		*state = floe_state_column_dup(a, s, 0);
		*bad = floe_db_column_int64(s, 1) != 0;
	}
	floe_db_finalize(s);
	return rc < 0 ? -1 : 0;
}

static int remember(floe_state *st, const floe_state_alert *e)
{
	floe_db_stmt *s = NULL;
	if (floe_db_prepare(&s, st->db, "INSERT INTO alert_state (key, state, bad, since) VALUES (?, ?, ?, ?) "
					"ON CONFLICT (key) DO UPDATE SET state = excluded.state, bad = excluded.bad,"
					" since = excluded.since") < 0)
		return -1;
	floe_db_bind_text(s, 1, e->key);
	floe_db_bind_text(s, 2, e->to_state);
	floe_db_bind_int64(s, 3, e->bad);
	floe_db_bind_text(s, 4, e->created_at);
	int rc = floe_db_step(s);
	floe_db_finalize(s);
	return rc < 0 ? -1 : 0;
}

static int enqueue(floe_state *st, const floe_state_alert *e)
{
	floe_db_stmt *s = NULL;
	if (floe_db_prepare(&s, st->db, "INSERT INTO alert_outbox (key, table_name, layer, from_state, to_state, bad,"
					" facts, cause, run_id, created_at) VALUES (?,?,?,?,?,?,?,?,?,?)") < 0)
		return -1;
	const char *texts[] = { e->key, e->table_name, e->layer, e->from_state, e->to_state };
	for (int i = 0; i < 5; i++)
		floe_db_bind_text(s, i + 1, texts[i]);
	floe_db_bind_int64(s, 6, e->bad);
	floe_db_bind_text(s, 7, e->facts);
	floe_db_bind_text(s, 8, e->cause);
	floe_db_bind_text(s, 9, e->run_id);
	floe_db_bind_text(s, 10, e->created_at);
	int rc = floe_db_step(s);
	floe_db_finalize(s);
	return rc < 0 ? -1 : 0;
}

int floe_state_alert_observe(floe_state *st, floe_state_alert *e, bool force, bool *queued)
{
	floe_arena *a = floe_arena_new();
	bool found = false, was_bad = false;
	const char *was = NULL;
	int error = -1;
	*queued = false;
	if (floe_db_begin(st->db) < 0)
		goto cleanup;
	if (notified(st, a, e->key, &found, &was, &was_bad) < 0)
		goto rollback;
	bool changed = !found || strcmp(was, e->to_state) != 0;
	bool notify = force || (changed && (found ? was_bad || e->bad : e->bad));
	e->from_state = found ? was : NULL;
	if ((changed || force) && remember(st, e) < 0)
		goto rollback;
	if (notify && enqueue(st, e) < 0)
		goto rollback;
	if (floe_db_commit(st->db) < 0)
		goto rollback;
	*queued = notify;
	error = 0;
	goto cleanup;
rollback:
	floe_db_rollback(st->db);
cleanup:
	e->from_state = e->from_state ? floe_arena_strdup(e->arena, e->from_state) : NULL;
	floe_arena_free(a);
	return error;
}

#define OUTBOX_COLUMNS "id, key, table_name, layer, from_state, to_state, bad, facts, cause, run_id, created_at, attempts, last_error"

int floe_state_alert_pending(floe_state *st, floe_arena *arena, int64_t now, floe_state_alert **out, size_t *n_out)
{
	floe_db_stmt *s = NULL;
	size_t n = 0, cap = 8;
	floe_state_alert *rows = floe_arena_alloc(arena, cap * sizeof(*rows));
	*n_out = 0;
	if (floe_db_prepare(&s, st->db, "SELECT " OUTBOX_COLUMNS " FROM alert_outbox WHERE sent_at IS NULL"
					" AND next_attempt <= ? ORDER BY id") < 0)
		return -1;
	floe_db_bind_int64(s, 1, now);
	int rc;
	while ((rc = floe_db_step(s)) == 1) {
		if (n == cap) {
			floe_state_alert *bigger = floe_arena_alloc(arena, 2 * cap * sizeof(*rows));
			memcpy(bigger, rows, cap * sizeof(*rows));
			rows = bigger;
			cap *= 2;
		}
		floe_state_alert *e = &rows[n++];
		e->id = floe_db_column_int64(s, 0);
		const char **texts[] = { &e->key, &e->table_name, &e->layer, &e->from_state, &e->to_state };
		for (int i = 0; i < 5; i++)
			*texts[i] = floe_state_column_dup(arena, s, i + 1);
		e->bad = floe_db_column_int64(s, 6) != 0;
		const char **more[] = { &e->facts, &e->cause, &e->run_id, &e->created_at };
		for (int i = 0; i < 4; i++)
			*more[i] = floe_state_column_dup(arena, s, i + 7);
		e->attempts = floe_db_column_int64(s, 11);
		e->last_error = floe_state_column_dup(arena, s, 12);
	}
	floe_db_finalize(s);
	*out = rows;
	*n_out = n;
	return rc < 0 ? -1 : 0;
}

int floe_state_alert_claim(floe_state *st, int64_t id, int64_t now, int64_t next_attempt, bool *claimed)
{
	floe_db_stmt *s = NULL;
	*claimed = false;
	if (floe_db_prepare(&s, st->db, "UPDATE alert_outbox SET attempts = attempts + 1, next_attempt = ?"
					" WHERE id = ? AND sent_at IS NULL AND next_attempt <= ?") < 0)
		return -1;
	floe_db_bind_int64(s, 1, next_attempt);
	floe_db_bind_int64(s, 2, id);
	floe_db_bind_int64(s, 3, now);
	int rc = floe_db_step(s);
	*claimed = rc >= 0 && floe_db_changes(st->db) == 1;
	floe_db_finalize(s);
	return rc < 0 ? -1 : 0;
}

int floe_state_alert_result(floe_state *st, int64_t id, const char *sent_at, const char *last_error)
{
	floe_db_stmt *s = NULL;
	if (floe_db_prepare(&s, st->db, "UPDATE alert_outbox SET sent_at = ?, last_error = ? WHERE id = ?") < 0)
		return -1;
	floe_db_bind_text(s, 1, sent_at);
	floe_db_bind_text(s, 2, last_error);
	floe_db_bind_int64(s, 3, id);
	int rc = floe_db_step(s);
	floe_db_finalize(s);
	return rc < 0 ? -1 : 0;
}
