/*
 * bronze.h — `floe run` for the bronze layer: every table of the deployed plan
 * (pipeline/lakehouse.lock.json) loaded from PostgreSQL into its Iceberg table.
 *
 * A table is read in one repeatable-read, read-only transaction with the
 * session settings the plan fixes, streamed with COPY … (FORMAT binary) into
 * Parquet files, and committed as one snapshot whose summary records the run
 * id, the watermark reached and the source's snapshot position. Until the
 * commit nothing is visible; a crash leaves the previous snapshot current and
 * the written files as orphans. Every table's outcome goes to the run ledger.
 */
#ifndef FLOE_BRONZE_BRONZE_H
#define FLOE_BRONZE_BRONZE_H

#include "config/config.h"
#include "plan/plan.h"
#include "reconcile/outcome.h"
#include "state/state.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct floe_arena floe_arena;
typedef struct floe_lock_table floe_lock_table;
typedef struct floe_lock_type floe_lock_type;

/*
 * The check after each table's load (reconciliation plugs in here): called once the
 * snapshot is committed, while the load's source transaction is still open, so the
 * check can import `pg_snapshot` and compare exactly the source state the load read.
 * It sets `state` and `detail`; when the table diverged it may name keys to re-copy,
 * and the load then repairs them in the same source transaction (one more snapshot,
 * `floe.load-mode` = repair) and calls the check again (attempt 1).
 */
typedef struct floe_bronze_check {
	/* given */
	const floe_lock_table *table;
	const char *run_id;
	int64_t snapshot_id;          /* the bronze snapshot to check */
	const char *pg_snapshot;      /* the load's exported source snapshot */
	int attempt;                  /* 0; 1 after a repair */
	const char *repair_detail;    /* attempt 1: what the repair did */
	const char *changed_since;    /* an incremental load: the watermark text its changes were read from; NULL: full */
	const char *const *changed_keys; /* a CDC batch merged: the keys it changed (n_key text values each) */
	size_t n_changed_keys;
	floe_arena *arena;            /* for everything the check returns */
	/* returned */
	floe_reconcile_outcome state; /* verified, diverged, unverified, failed or partial */
	const char *detail;
	const char *const *repair_keys; /* diverged: keys to re-copy, as floe_bronze_repair_opts.keys */
	size_t n_repair_keys;
} floe_bronze_check;

typedef int (*floe_bronze_check_fn)(void *ctx, floe_bronze_check *check);

typedef struct floe_bronze_opts {
	const char *const *tables;  /* "bronze.orders" or "public.orders"; NULL: every table */
	size_t n_tables;
	int jobs;                   /* tables loaded at once; 0: 2 */
	int parallel;               /* connections per table's full load (--parallel); 0: floe.toml's */
	bool progress;              /* live progress lines on stderr (a terminal) */
	const char *command;        /* for the ledger: "run" */
	floe_bronze_check_fn check; /* NULL: loads are not checked */
	void *check_ctx;
	/* Why table `t` is paused (recorded as paused, not loaded), in `a`; NULL: it loads. NULL: none is. */
	const char *(*paused)(void *ctx, floe_arena *a, const floe_lock_table *t);
	void *paused_ctx;
	bool compact;               /* compact the tables (floe compact) instead of loading them */
	/*
	 * An idle source session of the caller's (its role check and sync's) the loads may use instead
	 * of connecting: moved in when the loads start (*session set NULL), closed by the run.
	 */
	floe_pg **session;
} floe_bronze_opts;

#define FLOE_BRONZE_OPTS_INIT { .command = "run" }

typedef struct floe_bronze_result {
	const char *table;          /* "bronze.orders" */
	const char *source;         /* "public.orders" */
	floe_load_mode mode;        /* the plan's mode */
	floe_table_state state;     /* loaded, failed, refused or skipped (loading while it loads) */
	int64_t rows, bytes, files;  /* read from the source, and files written, by this load */
	int64_t table_rows;         /* rows in the table after it (-1: unknown) */
	int64_t snapshot_id;
	double seconds;
	double stream_seconds;      /* a CDC load: reading the slot up to the consistent point */
	double commit_seconds;      /* the catalog commit of the load's snapshot (0: none made) */
	const char *detail;         /* one line: what happened */
	const char *error;          /* failed: what failed */
	const char *cause;          /* failed: the probable cause, for people */
	int exit_code;              /* failed: the exit code its cause calls for (README "Exit codes") */
	bool checked;               /* the check ran: check_state is its verdict */
	floe_reconcile_outcome check_state; /* verified, diverged, …, or partial */
	const char *check_detail;
	bool repaired;              /* the check found divergence and the load repaired it */
} floe_bronze_result;

typedef struct floe_bronze_report {
	char run_id[64];
	floe_bronze_result *results;
	size_t n_results;
	size_t n_failed;
	size_t n_unproven;          /* checked and not verified */
	int exit_code;              /* the highest exit code of a failed table's cause; 0: none failed */
	size_t n_unchecked;         /* loaded and not checked (no check given: --no-reconcile) */
	void *owned;
} floe_bronze_report;

/*
 * Repair one table (reconciliation found it diverged): re-read the rows of `keys` from
 * the source — at the exported snapshot `pg_snapshot` when given, so the repair sees
 * what the load saw — upsert them into the key-sorted files they fall in and delete
 * the keys the source no longer has, in one snapshot (`floe.load-mode` = repair). A
 * table whose files are not key-sorted (a full-mode table) is reloaded in full
 * instead. Keys are PostgreSQL's text of each key column, row-major (n_keys rows of
 * the table's key width). The outcome goes to the run ledger under `run_id`.
 */
typedef struct floe_bronze_repair_opts {
	const char *run_id;
	const char *pg_snapshot;     /* NULL: a fresh snapshot */
	const char *const *keys;
	size_t n_keys;
} floe_bronze_repair_opts;

/* The result (and every string in it) is allocated in `arena`. -1 when the repair failed. */
int floe_bronze_repair(floe_bronze_result *out, floe_arena *arena, const floe_config *config,
		       const char *table, const floe_bronze_repair_opts *opts);

/* The lock's type as an Iceberg type (primitives parsed from their text; nested ids the lock's), in `a`. */
typedef struct floe_iceberg_type floe_iceberg_type;
int floe_bronze_lock_type(floe_iceberg_type **out, floe_arena *a, const floe_lock_type *lt);

/* Whether source table schema.table is written merge-on-read ([bronze] write-mode(s); CDC tables by default). */
bool floe_bronze_merge_on_read(const floe_config *config, const char *schema, const char *table);

/*
 * `floe run --follow` (follow.c, docs/cdc.md "Following"): apply the CDC tables' streams batch
 * after batch until *stop is set (by a signal), each batch a CDC load under the table's load lock
 * with the table's position index kept between batches. Tables named that are not CDC tables are
 * a usage error. Returns 0 when stopped, -1 when a batch failed for a reason other than a conflict
 * (another writer or the lock: that batch is applied again at the next poll).
 */
typedef struct floe_bronze_follow_opts {
	const char *const *tables;  /* as floe_bronze_opts; NULL: every CDC table */
	size_t n_tables;
	floe_bronze_check_fn check; /* reconciliation, at most every [cdc] follow-reconcile-seconds */
	void *check_ctx;
	const volatile sig_atomic_t *stop; /* set: finish the batch under way and return */
} floe_bronze_follow_opts;

int floe_bronze_follow(const floe_config *config, const floe_bronze_follow_opts *opts);

/* Load. Returns 0 when the run happened (tables may have failed: see n_failed). */
int floe_bronze_run(floe_bronze_report *out, const floe_config *config, const floe_bronze_opts *opts);

/* floe expire: one bronze table's snapshots expired and its orphan files removed. */
typedef struct floe_bronze_expiry {
	const char *table;          /* "bronze.orders" */
	int64_t snapshots_before, snapshots_after;
	size_t deleted_files;       /* data and delete files */
	size_t deleted_metadata;    /* manifests, manifest lists, metadata files */
	size_t deleted_orphans;
	const char *error;          /* NULL: done */
} floe_bronze_expiry;

typedef struct floe_bronze_expire_opts {
	const char *const *tables;  /* NULL: every bronze table of the plan */
	size_t n_tables;
	int64_t keep_snapshots;     /* <= 0: [warehouse] keep-snapshots, else 1 */
	int64_t keep_days;          /* < 0: [warehouse] keep-days, else none (by count only) */
	int64_t orphan_age_ms;      /* orphan files younger than this stay (a commit may be running) */
} floe_bronze_expire_opts;

#define FLOE_BRONZE_EXPIRE_OPTS_INIT { .keep_days = -1, .orphan_age_ms = INT64_C(3600000) }

/*
 * Expire every (or each given) bronze table's snapshots beyond the newest keep_snapshots and
 * older than keep_days, deleting only files no kept snapshot references, then orphan files
 * (no snapshot's, older than orphan_age_ms). *out: one result per table, in `arena`. A table
 * that fails is reported and the others go on; returns -1 only when the plan cannot be read.
 */
int floe_bronze_expire(floe_bronze_expiry **out, size_t *n, floe_arena *arena, const floe_config *config,
		       const floe_bronze_expire_opts *opts);
void floe_bronze_report_free(floe_bronze_report *report);

/* ---- Kafka topics ([[kafka.topics]], src/bronze/topic.c, docs/kafka.md) ---- */

typedef struct floe_bronze_topic_result {
	const char *topic;
	const char *table;          /* "bronze.<table>" */
	int64_t messages, rows, rejected; /* read by this run; rows loaded; rejected to <table>__rejected */
	int64_t snapshot_id;        /* committed by this run; 0: none */
	int64_t newest_ms;          /* newest message timestamp read (-1: none) */
	const char *offsets;        /* next offsets, the summary's JSON */
	const char *inferred;       /* columns inferred by this run and locked in the new table ("a = \"long\", …"); NULL: none */
	const char *detail;
	const char *error;          /* NULL: loaded */
	int exit_code;
} floe_bronze_topic_result;

/*
 * Consume every [[kafka.topics]] entry into its bronze table, exactly once (offsets in the
 * snapshot summary, a compare-and-swap commit, then the group commit). Results in `arena`.
 * Returns the number of topics that failed (each with its error).
 */
int floe_bronze_topics_run(floe_bronze_topic_result **out, size_t *n_out, floe_arena *arena,
			   const floe_config *config, const char *run_id);

typedef struct floe_bronze_topic_lag {
	int32_t partition;
	int64_t next;               /* the next offset bronze reads (its snapshot's summary) */
	int64_t high;               /* the broker's high watermark now */
	int64_t lag;                /* high - next */
} floe_bronze_topic_lag;

typedef struct floe_bronze_topic_status {
	const char *topic, *table;
	int64_t committed_ms;       /* the table's newest snapshot (-1: none) */
	int64_t newest_ms;          /* the newest message timestamp bronze holds (-1: unknown) */
	floe_bronze_topic_lag *parts;
	size_t n_parts;
	int64_t lag;                /* over every partition */
	const char *error;          /* the brokers or the table could not be read */
} floe_bronze_topic_status;

/* Lag per partition (brokers asked now) and freshness of every topic's table, in `arena`. Returns failures. */
int floe_bronze_topics_status(floe_bronze_topic_status **out, size_t *n_out, floe_arena *arena,
			      const floe_config *config);

#endif
