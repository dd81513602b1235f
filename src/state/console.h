/*
 * console.h — what `floe serve`'s console keeps in the run ledger (version 6): access
 * tokens (their SHA-256 only, never the token), browser sessions (the SHA-256 of the
 * cookie) and jobs. Roles are stored as their names ("viewer", "operator", "admin");
 * src/auth owns their meaning. Every function opens nothing: the caller's handle.
 */
#ifndef FLOE_STATE_CONSOLE_H
#define FLOE_STATE_CONSOLE_H

#include "state/state.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct floe_state_token {
	const char *name, *role, *created_at;
	const char *last_used_at; /* NULL: never */
} floe_state_token;

/* Store a token by name; FLOE_ERR_USAGE when the name is taken. */
int floe_state_token_put(floe_state *st, const char *name, const char *hash, const char *role);

/* Every token, by name (arena-owned). */
int floe_state_token_list(floe_state *st, floe_arena *arena, floe_state_token **out, size_t *n_out);

/* Remove a token and its sessions; *found false when no token has that name. */
int floe_state_token_revoke(floe_state *st, const char *name, bool *found);

/* The token whose hash is `hash` (marking it used, at most once a minute), or *out NULL. */
int floe_state_token_find(floe_state *st, floe_arena *arena, const char *hash, floe_state_token **out);

int floe_state_token_count(floe_state *st, int64_t *out);

typedef struct floe_state_session {
	const char *token_name, *role, *csrf;
	int64_t expires_at; /* unix seconds */
} floe_state_session;

/* Store a session (its cookie's hash) of a token until `expires_at`; drops those expired at `now`. */
int floe_state_session_put(floe_state *st, const char *hash, const floe_state_session *session, int64_t now);

/* The live session whose cookie hashes to `hash` at `now`, or *out NULL. */
int floe_state_session_find(floe_state *st, floe_arena *arena, const char *hash, int64_t now,
			    floe_state_session **out);

int floe_state_session_delete(floe_state *st, const char *hash);

/* A job of the console: a floe command run as a child process, its output in log_path. */
typedef struct floe_state_job {
	const char *id, *kind, *args, *started_by;
	int64_t pid;
	const char *started_at, *finished_at; /* finished_at NULL while running */
	const char *status;                   /* running | ok | failed | cancelled | interrupted */
	int64_t exit_code;                    /* -1 while running */
	const char *log_path;
} floe_state_job;

/* Record a job that has started (status running). */
int floe_state_job_begin(floe_state *st, const floe_state_job *job);

/* Its end: status and exit code. */
int floe_state_job_end(floe_state *st, const char *id, const char *status, int64_t exit_code);

/* The newest `limit` jobs, newest first (arena-owned). */
int floe_state_job_list(floe_state *st, floe_arena *arena, int limit, floe_state_job **out, size_t *n_out);

/* One job, or *out NULL. */
int floe_state_job_get(floe_state *st, floe_arena *arena, const char *id, floe_state_job **out);

/* A run of the ledger with what it did per table (the console's run history). */
typedef struct floe_state_run_table {
	const char *table_name, *layer, *state, *error, *cause;
	int64_t rows; /* -1 unknown */
} floe_state_run_table;

typedef struct floe_state_run_summary {
	const char *run_id, *command, *status, *started_at, *finished_at;
	floe_state_run_table *tables;
	size_t n_tables;
} floe_state_run_summary;

/* The newest `limit` runs, newest first, each with its table records (arena-owned). */
int floe_state_run_list(floe_state *st, floe_arena *arena, int limit, floe_state_run_summary **out, size_t *n_out);

/* Jobs left running by a server that is gone become interrupted (at start of `floe serve`). */
int floe_state_job_interrupt_stale(floe_state *st);

#endif
