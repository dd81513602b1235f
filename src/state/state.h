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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct floe_arena floe_arena;
typedef struct floe_state floe_state;
typedef struct floe_table_lock floe_table_lock;

#define FLOE_RUN_ID_MAX 64

/* Open (creating and migrating) PROJECT/.floe/state.db. */
int floe_state_open(floe_state **out, const char *project_dir);
void floe_state_close(floe_state *st);

/*
 * Start a run: a new sortable id ("r20261130T045310Z-1a2b3c"). Runs left
 * `running` by a process that no longer exists are marked `interrupted` first.
 */
int floe_state_run_begin(floe_state *st, const char *command, char run_id[FLOE_RUN_ID_MAX]);

/* status: "ok" | "failed" | "interrupted". */
int floe_state_run_end(floe_state *st, const char *run_id, const char *status);

/* A run as the ledger holds it. */
typedef struct floe_state_run {
	const char *run_id, *command;
	int64_t pid;
	const char *started_at, *finished_at;
	const char *status;          /* "running" | "ok" | "failed" | "interrupted" */
	bool gone;                   /* marked running, but its process no longer exists (kill -9, crash) */
} floe_state_run;

/* Run `run_id` (owned by `arena`), or *out NULL when there is no such run. */
int floe_state_run_get(floe_state *st, floe_arena *arena, const char *run_id, floe_state_run **out);

typedef struct floe_state_table_run {
	const char *run_id;
	const char *table_name;      /* "bronze.orders" */
	const char *layer;           /* "bronze" | "silver" | "gold" */
	const char *source;          /* "public.orders" */
	const char *mode;            /* "full" | "incremental" | "refused" */
	const char *state;           /* "loading" | "loaded" | "failed" | "refused" | … */
	int64_t rows, bytes, files;  /* -1: unknown */
	const char *snapshot_id;
	const char *watermark;
	const char *source_position;
	const char *detail;          /* the facts behind the state, for people */
	const char *error;           /* what failed */
	const char *cause;           /* the probable cause, for people */
	const char *started_at;      /* filled by the ledger when NULL */
	const char *finished_at;
} floe_state_table_run;

#define FLOE_STATE_TABLE_RUN_INIT { .rows = -1, .bytes = -1, .files = -1 }

/* Insert or replace the record of (run_id, table_name). */
int floe_state_table_put(floe_state *st, const floe_state_table_run *tr);

/* The newest record of every table and layer, ordered by table name. Owned by `arena`. */
int floe_state_table_latest(floe_state *st, floe_arena *arena, floe_state_table_run **out, size_t *n_out);

/* The newest record of `table_name` whose state is one of the given (NULL-terminated), or none. */
int floe_state_table_last_with(floe_state *st, floe_arena *arena, const char *table_name,
			       const char *const *states, floe_state_table_run **out);

/* One reconciliation of one table (reconcile.c): what `floe status` and `floe reconcile` show. */
typedef struct floe_state_reconcile {
	const char *run_id;
	const char *table_name;      /* "bronze.orders" */
	const char *tier;            /* "V1" | "V2" | "V3" */
	const char *outcome;         /* "verified" | "diverged" | "unverified" | "failed" */
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

/* How many results `table_name` has (the planted control rotates on it). */
int floe_state_reconcile_count(floe_state *st, const char *table_name, int64_t *out);

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
