/*
 * console.c — tokens and sessions of `floe serve` in the run ledger (version 6; console.h).
 */
#include "state/console.h"
#include "state/state_int.h"
#include "base/arena.h"
#include "base/error.h"
#include "db/db.h"

#include <string.h>
#include <time.h>

/* Run one statement binding `texts` (NULL binds NULL); *changes: rows it changed. */
static int exec_texts(floe_state *st, const char *sql, const char *const *texts, int n, int64_t *changes)
{
	floe_db_stmt *s = NULL;
	if (floe_db_prepare(&s, st->db, sql) < 0)
		return -1;
	for (int i = 0; i < n; i++)
		floe_db_bind_text(s, i + 1, texts[i]);
	int rc = floe_db_step(s);
	floe_db_finalize(s);
	if (changes)
		*changes = rc < 0 ? 0 : floe_db_changes(st->db);
	return rc < 0 ? -1 : 0;
}

int floe_state_token_put(floe_state *st, const char *name, const char *hash, const char *role)
{
	char now[32];
	int64_t changes = 0;
	floe_state_now(now, sizeof(now));
	const char *texts[] = { name, hash, role, now };
	if (exec_texts(st, "INSERT INTO serve_tokens (name, hash, role, created_at) VALUES (?, ?, ?, ?) "
			   "ON CONFLICT (name) DO NOTHING", texts, 4, &changes) < 0)
		return -1;
	if (changes == 0) {
		floe_error_set(FLOE_ERR_USAGE, "a token named \"%s\" exists already", name);
		floe_error_hint("Pick another --name, or revoke the old one with `floe serve token revoke %s`.", name);
		return -1;
	}
	return 0;
}

static void token_of(floe_state_token *t, floe_arena *a, floe_db_stmt *s)
{
	t->name = floe_state_column_dup(a, s, 0);
	t->role = floe_state_column_dup(a, s, 1);
	t->created_at = floe_state_column_dup(a, s, 2);
	t->last_used_at = floe_state_column_dup(a, s, 3);
}

int floe_state_token_list(floe_state *st, floe_arena *arena, floe_state_token **out, size_t *n_out)
{
	floe_db_stmt *s = NULL;
	size_t cap = 0;
	*out = NULL;
	*n_out = 0;
	if (floe_db_prepare(&s, st->db, "SELECT name, role, created_at, last_used_at FROM serve_tokens ORDER BY name") < 0)
		return -1;
	int rc;
	while ((rc = floe_db_step(s)) == 1) {
		*out = floe_arena_grow(arena, *out, *n_out, &cap, sizeof(**out));
		token_of(&(*out)[(*n_out)++], arena, s);
	}
	floe_db_finalize(s);
	return rc < 0 ? -1 : 0;
}

int floe_state_token_revoke(floe_state *st, const char *name, bool *found)
{
	int64_t changes = 0;
	const char *texts[] = { name };
	*found = false;
	if (exec_texts(st, "DELETE FROM serve_sessions WHERE token_name = ?", texts, 1, NULL) < 0 ||
	    exec_texts(st, "DELETE FROM serve_tokens WHERE name = ?", texts, 1, &changes) < 0)
		return -1;
	*found = changes > 0;
	return 0;
}

/* Mark token `hash` used now, at most once a minute (a busy client does not write on every request). */
static int token_touch(floe_state *st, const char *hash)
{
	char now[32], minute_ago[32];
	time_t t = time(NULL) - 60;
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(minute_ago, sizeof(minute_ago), "%Y-%m-%dT%H:%M:%S.999Z", &tm);
	floe_state_now(now, sizeof(now));
	const char *texts[] = { now, hash, minute_ago };
	return exec_texts(st, "UPDATE serve_tokens SET last_used_at = ? WHERE hash = ?"
			  " AND (last_used_at IS NULL OR last_used_at < ?)", texts, 3, NULL);
}

int floe_state_token_find(floe_state *st, floe_arena *arena, const char *hash, floe_state_token **out)
{
	floe_db_stmt *s = NULL;
	*out = NULL;
	if (floe_db_prepare(&s, st->db, "SELECT name, role, created_at, last_used_at FROM serve_tokens WHERE hash = ?") < 0)
		return -1;
	floe_db_bind_text(s, 1, hash);
	int rc = floe_db_step(s);
	if (rc == 1) {
		*out = floe_arena_alloc(arena, sizeof(**out));
		token_of(*out, arena, s);
	}
	floe_db_finalize(s);
	return rc < 0 || (*out && token_touch(st, hash) < 0) ? -1 : 0;
}

int floe_state_token_count(floe_state *st, int64_t *out)
{
	floe_db_stmt *s = NULL;
	*out = 0;
	if (floe_db_prepare(&s, st->db, "SELECT count(*) FROM serve_tokens") < 0)
		return -1;
	int rc = floe_db_step(s);
	if (rc == 1)
		*out = floe_db_column_int64(s, 0);
	floe_db_finalize(s);
	return rc < 0 ? -1 : 0;
}

int floe_state_session_put(floe_state *st, const char *hash, const floe_state_session *session, int64_t now)
{
	floe_db_stmt *s = NULL;
	char created[32];
	floe_state_now(created, sizeof(created));
	if (floe_db_prepare(&s, st->db, "INSERT INTO serve_sessions (hash, token_name, role, csrf, created_at, expires_at)"
					" VALUES (?, ?, ?, ?, ?, ?)") < 0)
		return -1;
	const char *texts[] = { hash, session->token_name, session->role, session->csrf, created };
	for (int i = 0; i < 5; i++)
		floe_db_bind_text(s, i + 1, texts[i]);
	floe_db_bind_int64(s, 6, session->expires_at);
	int rc = floe_db_step(s);
	floe_db_finalize(s);
	if (rc < 0 || floe_db_prepare(&s, st->db, "DELETE FROM serve_sessions WHERE expires_at <= ?") < 0)
		return -1;
	floe_db_bind_int64(s, 1, now);
	rc = floe_db_step(s);
	floe_db_finalize(s);
	return rc < 0 ? -1 : 0;
}

int floe_state_session_find(floe_state *st, floe_arena *arena, const char *hash, int64_t now,
			    floe_state_session **out)
{
	floe_db_stmt *s = NULL;
	*out = NULL;
	if (floe_db_prepare(&s, st->db, "SELECT token_name, role, csrf, expires_at FROM serve_sessions"
					" WHERE hash = ? AND expires_at > ?") < 0)
		return -1;
	floe_db_bind_text(s, 1, hash);
	floe_db_bind_int64(s, 2, now);
	int rc = floe_db_step(s);
	if (rc == 1) {
		floe_state_session *x = floe_arena_alloc(arena, sizeof(*x));
		x->token_name = floe_state_column_dup(arena, s, 0);
		x->role = floe_state_column_dup(arena, s, 1);
		x->csrf = floe_state_column_dup(arena, s, 2);
		x->expires_at = floe_db_column_int64(s, 3);
		*out = x;
	}
	floe_db_finalize(s);
	return rc < 0 ? -1 : 0;
}

int floe_state_session_delete(floe_state *st, const char *hash)
{
	const char *texts[] = { hash };
	return exec_texts(st, "DELETE FROM serve_sessions WHERE hash = ?", texts, 1, NULL);
}

int floe_state_job_begin(floe_state *st, const floe_state_job *job)
{
	floe_db_stmt *s = NULL;
	if (floe_db_prepare(&s, st->db, "INSERT INTO serve_jobs (id, kind, args, started_by, pid, started_at, status,"
					" log_path) VALUES (?, ?, ?, ?, ?, ?, 'running', ?)") < 0)
		return -1;
	const char *texts[] = { job->id, job->kind, job->args, job->started_by };
	for (int i = 0; i < 4; i++)
		floe_db_bind_text(s, i + 1, texts[i]);
	floe_db_bind_int64(s, 5, job->pid);
	floe_db_bind_text(s, 6, job->started_at);
	floe_db_bind_text(s, 7, job->log_path);
	int rc = floe_db_step(s);
	floe_db_finalize(s);
	return rc < 0 ? -1 : 0;
}

int floe_state_job_end(floe_state *st, const char *id, const char *status, int64_t exit_code)
{
	floe_db_stmt *s = NULL;
	char now[32];
	floe_state_now(now, sizeof(now));
	if (floe_db_prepare(&s, st->db, "UPDATE serve_jobs SET status = ?, exit_code = ?, finished_at = ? WHERE id = ?") < 0)
		return -1;
	floe_db_bind_text(s, 1, status);
	floe_db_bind_int64(s, 2, exit_code);
	floe_db_bind_text(s, 3, now);
	floe_db_bind_text(s, 4, id);
	int rc = floe_db_step(s);
	floe_db_finalize(s);
	return rc < 0 ? -1 : 0;
}

#define JOB_COLUMNS "id, kind, args, started_by, pid, started_at, finished_at, status, exit_code, log_path"

static void job_of(floe_state_job *j, floe_arena *a, floe_db_stmt *s)
{
	j->id = floe_state_column_dup(a, s, 0);
	j->kind = floe_state_column_dup(a, s, 1);
	j->args = floe_state_column_dup(a, s, 2);
	j->started_by = floe_state_column_dup(a, s, 3);
	j->pid = floe_db_column_int64(s, 4);
	j->started_at = floe_state_column_dup(a, s, 5);
	j->finished_at = floe_state_column_dup(a, s, 6);
	j->status = floe_state_column_dup(a, s, 7);
	j->exit_code = floe_state_column_count(s, 8);
	j->log_path = floe_state_column_dup(a, s, 9);
}

int floe_state_job_list(floe_state *st, floe_arena *arena, int limit, floe_state_job **out, size_t *n_out)
{
	floe_db_stmt *s = NULL;
	size_t cap = 0;
	*out = NULL;
	*n_out = 0;
	if (floe_db_prepare(&s, st->db, "SELECT " JOB_COLUMNS " FROM serve_jobs ORDER BY started_at DESC, id DESC LIMIT ?") < 0)
		return -1;
	floe_db_bind_int64(s, 1, limit);
	int rc;
	while ((rc = floe_db_step(s)) == 1) {
		*out = floe_arena_grow(arena, *out, *n_out, &cap, sizeof(**out));
		job_of(&(*out)[(*n_out)++], arena, s);
	}
	floe_db_finalize(s);
	return rc < 0 ? -1 : 0;
}

int floe_state_job_get(floe_state *st, floe_arena *arena, const char *id, floe_state_job **out)
{
	floe_db_stmt *s = NULL;
	*out = NULL;
	if (floe_db_prepare(&s, st->db, "SELECT " JOB_COLUMNS " FROM serve_jobs WHERE id = ?") < 0)
		return -1;
	floe_db_bind_text(s, 1, id);
	int rc = floe_db_step(s);
	if (rc == 1) {
		*out = floe_arena_alloc(arena, sizeof(**out));
		job_of(*out, arena, s);
	}
	floe_db_finalize(s);
	return rc < 0 ? -1 : 0;
}

int floe_state_job_interrupt_stale(floe_state *st)
{
	return floe_db_exec(st->db, "UPDATE serve_jobs SET status = 'interrupted' WHERE status = 'running'");
}

static int run_tables(floe_state *st, floe_arena *a, floe_state_run_summary *r)
{
	floe_db_stmt *s = NULL;
	size_t cap = 0;
	if (floe_db_prepare(&s, st->db, "SELECT table_name, layer, state, rows, error, cause FROM table_runs"
					" WHERE run_id = ? ORDER BY table_name, layer, attempt") < 0)
		return -1;
	floe_db_bind_text(s, 1, r->run_id);
	int rc;
	while ((rc = floe_db_step(s)) == 1) {
		r->tables = floe_arena_grow(a, r->tables, r->n_tables, &cap, sizeof(*r->tables));
		floe_state_run_table *t = &r->tables[r->n_tables++];
		t->table_name = floe_state_column_dup(a, s, 0);
		t->layer = floe_state_column_dup(a, s, 1);
		t->state = floe_state_column_dup(a, s, 2);
		t->rows = floe_state_column_count(s, 3);
		t->error = floe_state_column_dup(a, s, 4);
		t->cause = floe_state_column_dup(a, s, 5);
	}
	floe_db_finalize(s);
	return rc < 0 ? -1 : 0;
}

int floe_state_run_list(floe_state *st, floe_arena *arena, int limit, floe_state_run_summary **out, size_t *n_out)
{
	floe_db_stmt *s = NULL;
	size_t cap = 0;
	*out = NULL;
	*n_out = 0;
	if (floe_db_prepare(&s, st->db, "SELECT run_id, command, status, started_at, finished_at FROM runs"
					" ORDER BY started_at DESC, run_id DESC LIMIT ?") < 0)
		return -1;
	floe_db_bind_int64(s, 1, limit);
	int rc;
	while ((rc = floe_db_step(s)) == 1) {
		*out = floe_arena_grow(arena, *out, *n_out, &cap, sizeof(**out));
		floe_state_run_summary *r = &(*out)[(*n_out)++];
		memset(r, 0, sizeof(*r));
		r->run_id = floe_state_column_dup(arena, s, 0);
		r->command = floe_state_column_dup(arena, s, 1);
		r->status = floe_state_column_dup(arena, s, 2);
		r->started_at = floe_state_column_dup(arena, s, 3);
		r->finished_at = floe_state_column_dup(arena, s, 4);
	}
	floe_db_finalize(s);
	for (size_t i = 0; rc == 0 && i < *n_out; i++)
		rc = run_tables(st, arena, &(*out)[i]);
	return rc < 0 ? -1 : 0;
}
