/*
 * state.h — the run ledger (.floe/state.db): every run, and per table and layer
 * what it did — state, rows, snapshot, watermark, error and probable cause. It
 * is what `floe status` reads; it never holds a credential.
 *
 * Also the per-table load locks (.floe/locks/), so two loads of one table never
 * overlap; a lock dies with its process.
 */
#ifndef FLOE_STATE_STATE_H
#define FLOE_STATE_STATE_H

#include "reconcile/outcome.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct floe_arena floe_arena;
typedef struct floe_state floe_state;
typedef struct floe_table_lock floe_table_lock;

#define FLOE_RUN_ID_MAX 64

/*
 * What became of a table in a run: the ledger's table_runs.state, and the state
 * `floe status` shows before any reconciliation. Its text lives in one name table
 * (names.c) and only at the edges: the ledger's column, JSON and text output.
 */
typedef enum floe_table_state {
	FLOE_TABLE_NEVER_LOADED = 0, /* no record yet (`floe status`; never stored) */
	FLOE_TABLE_LOADING,
	FLOE_TABLE_LOADED,
	FLOE_TABLE_FAILED,
	FLOE_TABLE_REFUSED,
	FLOE_TABLE_SKIPPED,
	FLOE_TABLE_INTERRUPTED,      /* left loading by a run that ended or died (`floe status`; never stored) */
	FLOE_TABLE_PAUSED            /* not loaded: a schema change waits for a person (floe sync's branch) */
} floe_table_state;

/* "never loaded", "loading", "loaded", "failed", "refused", "skipped", "interrupted", "paused". */
const char *floe_table_state_name(floe_table_state state);
/* The state `text` names; -1 (FLOE_ERR_CONFIG) for any other text. */
int floe_table_state_parse(floe_table_state *out, const char *text);

/* A run's status: the ledger's runs.status. */
typedef enum floe_run_status {
	FLOE_RUN_RUNNING = 0,
	FLOE_RUN_OK,
	FLOE_RUN_FAILED,
	FLOE_RUN_INTERRUPTED         /* its process died while the ledger said running */
} floe_run_status;

/* "running", "ok", "failed", "interrupted". */
const char *floe_run_status_name(floe_run_status status);
/* The status `text` names; -1 (FLOE_ERR_CONFIG) for any other text. */
int floe_run_status_parse(floe_run_status *out, const char *text);

/* Open (creating and migrating) PROJECT/.floe/state.db. */
int floe_state_open(floe_state **out, const char *project_dir);
/*
 * Open PROJECT/.floe/state.db read-only (floe mcp serve): nothing created, nothing migrated.
 * FLOE_ERR_CONFIG when there is no ledger or it is at another version.
 */
int floe_state_open_read(floe_state **out, const char *project_dir);
void floe_state_close(floe_state *st);

/*
 * Start a run: a new sortable id ("r20261130T045310Z-1a2b3c"). Runs left
 * `running` by a process that no longer exists are marked `interrupted` first.
 */
int floe_state_run_begin(floe_state *st, const char *command, char run_id[FLOE_RUN_ID_MAX]);

/* status: ok, failed or interrupted. */
int floe_state_run_end(floe_state *st, const char *run_id, floe_run_status status);

/* A run as the ledger holds it. */
typedef struct floe_state_run {
	const char *run_id, *command;
	int64_t pid;
	const char *started_at, *finished_at;
	floe_run_status status;
	bool gone;                   /* marked running, but its process no longer exists (kill -9, crash) */
} floe_state_run;

/* Run `run_id` (owned by `arena`), or *out NULL when there is no such run. */
int floe_state_run_get(floe_state *st, floe_arena *arena, const char *run_id, floe_state_run **out);

typedef struct floe_state_table_run {
	const char *run_id;
	const char *table_name;      /* "bronze.orders" */
	const char *layer;           /* "bronze" | "silver" | "gold" */
	const char *source;          /* "public.orders" */
	const char *mode;            /* the plan's mode as the ledger keeps it: "full", "incremental", … */
	floe_table_state state;      /* loading, loaded, failed, refused or skipped */
	int64_t rows, bytes, files;  /* -1: unknown */
	const char *snapshot_id;
	const char *watermark;
	const char *source_position;
	const char *detail;          /* the facts behind the state, for people */
	const char *error;           /* what failed */
	const char *cause;           /* the probable cause, for people */
	const char *started_at;      /* filled by the ledger when NULL */
	const char *finished_at;
	int64_t tests_failed, tests_warned, quarantined; /* silver's tests (version 4); -1: none ran */
	int64_t tests_passed;        /* silver (version 5); -1: none ran */
} floe_state_table_run;

#define FLOE_STATE_TABLE_RUN_INIT { .rows = -1, .bytes = -1, .files = -1, .tests_failed = -1, .tests_warned = -1, .quarantined = -1, .tests_passed = -1 }

/* Insert or replace the record of (run_id, table_name). */
int floe_state_table_put(floe_state *st, const floe_state_table_run *tr);

/* The newest record of every table and layer, ordered by table name. Owned by `arena`. */
int floe_state_table_latest(floe_state *st, floe_arena *arena, floe_state_table_run **out, size_t *n_out);

/* The `limit` newest records of `table_name`, newest first. Owned by `arena`. */
int floe_state_table_history(floe_state *st, floe_arena *arena, const char *table_name, int limit,
			     floe_state_table_run **out, size_t *n_out);

/* The newest record of `table_name` in state `state`, or *out NULL when there is none. */
int floe_state_table_last_with(floe_state *st, floe_arena *arena, const char *table_name, floe_table_state state,
			       floe_state_table_run **out);

/* One reconciliation of one table (reconcile.c): what `floe status` and `floe reconcile` show. */
typedef struct floe_state_reconcile {
	const char *run_id;
	const char *table_name;      /* "bronze.orders" */
	const char *tier;            /* "V1" | "V2" | "V3" */
	floe_reconcile_outcome outcome; /* verified, diverged, unverified or failed (never partial: see excluded) */
	const char *snapshot_id;     /* the bronze snapshot compared */
	int64_t source_rows, lake_rows;
	const char *control;         /* the planted control, NULL: none */
	int control_fired;           /* 1, 0; -1: no control */
	int64_t diverged_buckets;    /* -1: V3 did not run */
	const char *diverged_keys;   /* JSON array, NULL: not narrowed */
	const char *numbers;         /* both sides' numbers, JSON */
	const char *detail, *error;
	int64_t duration_ms;
	const char *started_at;      /* filled by the ledger when NULL */
	const char *finished_at;
	int attempt;                 /* 0; 1 for the result after a repair in the same run */
	const char *excluded;        /* the columns not compared, with why, "; "-joined; NULL: none (a
	                                verified result with some is "verified (partial)") */
} floe_state_reconcile;

#define FLOE_STATE_RECONCILE_INIT { .source_rows = -1, .lake_rows = -1, .control_fired = -1, .diverged_buckets = -1, .duration_ms = -1 }

/* Insert or replace the result of (run_id, table_name). */
int floe_state_reconcile_put(floe_state *st, const floe_state_reconcile *r);

/* The newest result of every table, ordered by table name. Owned by `arena`. */
int floe_state_reconcile_latest(floe_state *st, floe_arena *arena, floe_state_reconcile **out, size_t *n_out);

/* The result of the same run and table before `r` (the one a repair answered), or *out NULL. */
int floe_state_reconcile_before(floe_state *st, floe_arena *arena, const floe_state_reconcile *r,
				floe_state_reconcile **out);

/* The `limit` newest results of `table_name`, newest first. Owned by `arena`. */
int floe_state_reconcile_history(floe_state *st, floe_arena *arena, const char *table_name, int limit,
				 floe_state_reconcile **out, size_t *n_out);

/* How many results `table_name` has (the planted control rotates on it). */
int floe_state_reconcile_count(floe_state *st, const char *table_name, int64_t *out);

/* How many runs the ledger holds per status (indexed by floe_run_status; serve.c). */
int floe_state_run_counts(floe_state *st, int64_t out[4]);

/* The last tick a schedule ran (unix seconds), 0 when never (serve.c). */
int floe_state_tick_get(floe_state *st, const char *schedule, int64_t *out);
int floe_state_tick_put(floe_state *st, const char *schedule, int64_t tick);

/*
 * A state transition to alert on (alert.c): the alert outbox. A key is "floe/<project>/<table>/<layer>".
 */
typedef struct floe_state_alert {
	int64_t id;                  /* the outbox row; 0 before it is queued */
	const char *key, *table_name, *layer;
	const char *from_state;      /* NULL: first seen; set by floe_state_alert_observe */
	const char *to_state;
	bool bad;                    /* a failure state (trigger), else a recovery (resolve) */
	const char *facts, *cause, *run_id;
	const char *created_at;      /* ISO 8601 */
	int64_t attempts;
	const char *last_error;      /* of the last failed attempt: HTTP status and reason, never the URL */
	floe_arena *arena;           /* observe: where from_state is copied */
} floe_state_alert;

/*
 * Compare e->to_state with the state last notified for e->key and remember it, in one
 * transaction: a change into or out of a bad state (or the first sight of a bad one; or
 * `force`) is queued in the outbox once (*queued true), whoever else observes the same.
 */
int floe_state_alert_observe(floe_state *st, floe_state_alert *e, bool force, bool *queued);

/* Transitions not yet sent whose next attempt is due at `now` (unix seconds), oldest first. */
int floe_state_alert_pending(floe_state *st, floe_arena *arena, int64_t now, floe_state_alert **out, size_t *n_out);

/* Claim attempt of `id` (due at `now`), moving its next attempt to `next_attempt`; *claimed false: another has it. */
int floe_state_alert_claim(floe_state *st, int64_t id, int64_t now, int64_t next_attempt, bool *claimed);

/* The attempt's outcome: sent_at set (sent, never again), or last_error (retried later). */
int floe_state_alert_result(floe_state *st, int64_t id, const char *sent_at, const char *last_error);

/* Now as ISO 8601 UTC with milliseconds, into buf (at least 32 bytes). */
void floe_state_now(char *buf, size_t size);

/*
 * Take the load lock of `table_name` for `run_id`, without waiting. When another
 * live process holds it: FLOE_ERR_CHECK naming the holder (run, pid, since).
 */
int floe_state_lock(floe_table_lock **out, const char *project_dir, const char *table_name,
		    const char *run_id);
void floe_state_unlock(floe_table_lock *lock);

#endif
