/*
 * reconcile.h — prove a bronze table against its source: V1 row counts, V2
 * per-column aggregates, V3 bucketed checksums, each side computed by a
 * different engine, and a planted control that must be caught.
 *
 * The source side is SQL pushed down to PostgreSQL over the table's extraction
 * query (pipeline/bronze/<table>.sql, the very query the load ran), inside a
 * REPEATABLE READ READ ONLY transaction that imports the load's exported
 * snapshot when one is given: no row leaves the database. The lake side is
 * DuckDB (src/engine) reading exactly the data files of one bronze Iceberg
 * snapshot with read_parquet, columns matched by Iceberg field id — never
 * floe's own Parquet reader, so a writer bug cannot hide behind a reader bug.
 *
 * Both sides hash each row from its columns' typed values (docs/reconcile.md) with
 * PostgreSQL's hash functions — in PostgreSQL, and in DuckDB through floe's C
 * twins of them — and sum the 64-bit hashes per bucket of the primary key.
 *
 * Every run also pushes a deliberately altered copy of one bucket of the lake
 * side through the same comparison (the planted control, control.c); when the
 * comparison does not report exactly that alteration, the outcome is
 * `unverified`, never `verified`.
 */
#ifndef FLOE_RECONCILE_RECONCILE_H
#define FLOE_RECONCILE_RECONCILE_H

#include "base/buf.h"
#include "bronze/bronze.h"
#include "config/config.h"
#include "plan/lock.h"
#include "reconcile/outcome.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct floe_arena floe_arena;

typedef enum floe_reconcile_tier {
	FLOE_RECONCILE_V1 = 1, /* row counts */
	FLOE_RECONCILE_V2 = 2, /* + per-column aggregates */
	FLOE_RECONCILE_V3 = 3  /* + bucketed checksums */
} floe_reconcile_tier;

const char *floe_reconcile_tier_name(floe_reconcile_tier tier);
/* "V1", "v2", "3" → the tier; -1 (error set) for anything else. */
int floe_reconcile_tier_parse(floe_reconcile_tier *out, const char *text);

typedef struct floe_reconcile_request {
	const floe_config *config;
	const floe_lock_table *table;  /* the deployed plan's entry (lakehouse.lock.json) */
	const char *pipeline_dir;      /* NULL: <project>/pipeline */
	const char *warehouse_dir;     /* NULL: the configured warehouse */
	const char *catalog_path;      /* NULL: <warehouse>/catalog.db */
	int64_t snapshot_id;           /* the bronze snapshot to prove; -1: the current one */
	const char *pg_snapshot;       /* an exported snapshot (pg_export_snapshot()) the load read; NULL: a fresh one */
	floe_reconcile_tier tier;      /* running a tier runs the lower ones too */
	const char *run_id;            /* for the result (and the ledger) */
	/*
	 * The planted control: `control` names one ("dropped-row", …; "none" plants
	 * none, for tests); NULL rotates through the catalog, starting at entry
	 * `control_seq` (e.g. how many times the table was reconciled before).
	 */
	const char *control;
	uint64_t control_seq;
	size_t max_keys;               /* a diverged V3 result is narrowed to at most this many keys; 0: not narrowed */
	/*
	 * Proof that follows the change ([reconcile] full-every, coverage.c): with full_every > 1
	 * and changed_since (the watermark text an incremental load read its changes from) or
	 * changed_keys (a CDC batch's keys), V3 hashes in full only the buckets holding changed
	 * rows plus the rotating share `share % full_every`; every bucket's count and key checksum
	 * are still compared.
	 */
	int64_t full_every;            /* 0 or 1: every bucket */
	const char *changed_since;     /* NULL: not an incremental load's check */
	const char *const *changed_keys; /* a CDC batch's keys, the key's n_key text values each; NULL: none */
	size_t n_changed_keys;
	uint64_t share;
} floe_reconcile_request;

#define FLOE_RECONCILE_REQUEST_INIT \
	{ .snapshot_id = -1, \
	  .tier = FLOE_RECONCILE_V3, \
	  .max_keys = 100 }

/* One V2 measure of one column on both sides. Values are text; NULL for SQL NULL. */
typedef struct floe_reconcile_metric {
	const char *column;            /* the lock's column name; "*" for the table */
	const char *name;              /* "rows", "non_null", "min", "max", "sum", "bytes", "distinct", … */
	const char *source, *lake;
	bool equal;
	const char *rule;              /* "exact", or the float tolerance used ("relative 1e-09 of sum(|x|)") */
} floe_reconcile_metric;

/* One V3 bucket whose numbers differ. */
typedef struct floe_reconcile_bucket {
	int64_t bucket;
	int64_t source_rows, lake_rows;
	const char *source_sum, *lake_sum;  /* sum of the 64-bit row hashes, exact */
} floe_reconcile_bucket;

/* A key whose rows differ: missing on one side, duplicated, or with different values. */
typedef struct floe_reconcile_key {
	const char **values;           /* the key columns' values as text (the source's, else the lake's) */
	size_t n_values;
	const char *canonical;         /* the key's canonical text (docs/reconcile.md), what both sides match on */
	int64_t source_rows, lake_rows;/* rows with this key on each side (0: missing there) */
	int64_t bucket;
} floe_reconcile_key;

typedef struct floe_reconcile_result {
	const char *table;             /* "bronze.orders" */
	const char *source;            /* "public.orders" */
	const char *run_id;
	floe_reconcile_tier tier;
	floe_reconcile_outcome outcome;
	int64_t snapshot_id;           /* the bronze snapshot compared */
	const char *source_position;   /* pg_current_snapshot() of the source transaction */
	/* V1 */
	int64_t source_rows, lake_rows;
	/* V2: every measure; n_metric_diffs of them differ */
	floe_reconcile_metric *metrics;
	size_t n_metrics, n_metric_diffs;
	/*
	 * NULL when metrics holds every measure of the tier; else why the column aggregates are
	 * not among them: a full V3 hashes every value of every column read, so it computes them
	 * only to name the columns of a divergence ("not computed: V3 hashed …").
	 */
	const char *aggregates_note;
	/* V3 */
	int64_t buckets;               /* B; 0 when V3 did not run */
	const char *key;               /* what the bucket hashes: "primary key (id)" or "whole row" */
	floe_reconcile_bucket *diverged;
	size_t n_diverged;
	const char **excluded;         /* columns not compared (outside the row hash and V2), with why:
	                                  a non-empty list makes a verified result partial */
	size_t n_excluded;
	floe_reconcile_key *keys;      /* a diverged result narrowed to keys (at most max_keys) */
	size_t n_keys;
	const char *keys_note;         /* why it was not narrowed, or NULL */
	/* the planted control */
	const char *control;           /* "dropped-row", …; NULL when none was planted */
	const char *control_detail;    /* what was altered, where, and what the comparison reported */
	bool control_fired;
	/* V3 coverage: `covered` of `buckets` hashed in full (covered == buckets: all of them) */
	int64_t covered, touched, share, full_every; /* full_every: a rotating result's cycle, min(full-every, buckets) */
	bool rotating;
	const char *last_full_proof;   /* when every bucket was last proven (ledger.c), NULL: unknown or never */
	/* the repair that came before this result (floe reconcile --repair), NULL when none */
	const char *repaired;
	/* what happened, for people; and the error of a failed comparison */
	const char *detail;
	const char *error;
	int exit_code;                 /* failed: the exit code its error calls for (README "Exit codes") */
	double seconds, source_seconds, lake_seconds;
} floe_reconcile_result;

/*
 * A verified result that left columns out (`excluded`: a type or a file reconciliation
 * cannot read) is partial: its state is "verified (partial)" (FLOE_RECONCILE_PARTIAL),
 * never plain "verified"; like "unverified", it makes `floe run` and `floe reconcile`
 * exit 1 (docs/reconcile.md).
 */
bool floe_reconcile_partial(const floe_reconcile_result *r);
/* The result's state: its outcome, or FLOE_RECONCILE_PARTIAL for a partial one. */
floe_reconcile_outcome floe_reconcile_state(const floe_reconcile_result *r);
/* The result's state for people: floe_reconcile_outcome_name(floe_reconcile_state(r)). */
const char *floe_reconcile_state_name(const floe_reconcile_result *r);

/*
 * Reconcile one bronze table. Everything in *out lives in `arena`. Returns 0
 * when the comparison ran to an outcome (verified, diverged, unverified), -1
 * with the error chain set when it could not (then *out, when not NULL, says
 * `failed` with the error's text).
 */
int floe_reconcile_table(floe_reconcile_result **out, floe_arena *arena, const floe_reconcile_request *req);

/*
 * The keys whose rows differ in `result`'s diverged buckets (a V3 result of the same
 * table): each bucket split by a second hash into sub-buckets, compared, and the rows
 * of the differing sub-buckets compared key by key — at the request's source snapshot
 * and `result`'s bronze snapshot. At most `max_keys`; the table needs a primary key.
 * What the bronze repair re-copies.
 */
int floe_reconcile_diverged_keys(floe_reconcile_key **out, size_t *n_out, floe_arena *arena,
				 const floe_reconcile_request *req, const floe_reconcile_result *result, size_t max_keys);

/* The result as one JSON object (what the ledger keeps and --json prints). */
int floe_reconcile_result_json(floe_buf *out, const floe_reconcile_result *result);

/* ---- the planted controls (control.c) ---- */

typedef struct floe_reconcile_control_info {
	const char *name;              /* "dropped-row" */
	const char *what;              /* "one row dropped from the lake side" */
	floe_reconcile_tier tier;      /* the lowest tier that must catch it */
} floe_reconcile_control_info;

size_t floe_reconcile_control_count(void);
const floe_reconcile_control_info *floe_reconcile_control_at(size_t i);
/* 0 when `name` is a control of the catalog, "none" or NULL; else FLOE_ERR_USAGE. */
int floe_reconcile_control_check(const char *name);

/* ---- every table of the deployed plan (run.c): `floe reconcile` ---- */

typedef struct floe_reconcile_opts {
	const char *const *tables;     /* "bronze.orders" or "public.orders"; NULL: every loaded table */
	size_t n_tables;
	floe_reconcile_tier tier;
	const char *control;           /* as in the request; NULL: rotate */
	const char *pg_snapshot;       /* an exported source snapshot every table is compared at; NULL: a fresh one */
	const char *command;           /* for the ledger: "reconcile" */
	bool repair;                   /* re-copy a diverged table's keys (floe_bronze_repair), reconcile again */
} floe_reconcile_opts;

#define FLOE_RECONCILE_OPTS_INIT { .tier = FLOE_RECONCILE_V3, .command = "reconcile" }

typedef struct floe_reconcile_report {
	char run_id[64];
	floe_reconcile_result **results;
	size_t n_results;
	size_t n_verified, n_diverged, n_unverified, n_failed;
	size_t n_partial;              /* verified, but with columns not compared (not in n_verified) */
	int exit_code;                 /* the highest exit code of a failed table; 0: none failed */
	void *owned;
} floe_reconcile_report;

/*
 * Reconcile each bronze table of the deployed plan against its current snapshot
 * (tables never loaded are reported `unverified` with why), each result kept in
 * the run ledger. Returns 0 when the run happened (see the counts).
 */
int floe_reconcile_run(floe_reconcile_report *out, const floe_config *config, const floe_reconcile_opts *opts);
void floe_reconcile_report_free(floe_reconcile_report *report);

/* ---- the check after every bronze load (check.c) ---- */

typedef struct floe_reconcile_check_opts {
	const floe_config *config;
	floe_reconcile_tier tier;
	const char *control;           /* NULL: rotate */
} floe_reconcile_check_opts;

#define FLOE_RECONCILE_CHECK_OPTS_INIT { .tier = FLOE_RECONCILE_V3 }

/*
 * A floe_bronze_check_fn (bronze.h): `ctx` is a floe_reconcile_check_opts. Reconciles
 * the table at the load's exported source snapshot and committed bronze snapshot,
 * records the result in the run ledger, and on the first attempt hands back the keys
 * of a diverged table (narrowed, at most 10 000) for the load to re-copy.
 */
int floe_reconcile_bronze_check(void *ctx, floe_bronze_check *check);

#endif
