/*
 * silver.h — the silver layer: floe renders the dbt models of pipeline/dbt/ itself
 * (a Jinja subset), runs them in its embedded DuckDB over the bronze snapshot a
 * run just verified, tests the result, quarantines failing rows and publishes the
 * table in one Iceberg commit only when its error-severity tests pass.
 *
 * src/silver/README.md tells the whole build; SILVER.md in the notes is
 * the contract with the dbt project's generator (the lock's `silver` section).
 */
#ifndef FLOE_SILVER_SILVER_H
#define FLOE_SILVER_SILVER_H

#include "base/buf.h"
#include "config/config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct floe_arena floe_arena;

/* ---- render.c: the Jinja subset the generated models use ---- */

typedef enum floe_silver_value_kind {
	FLOE_SILVER_STRING,
	FLOE_SILVER_LIST,   /* of strings */
	FLOE_SILVER_BOOL
} floe_silver_value_kind;

/* One `key=value` of a model's config(...). */
typedef struct floe_silver_config_item {
	const char *key;
	floe_silver_value_kind kind;
	const char *string;
	const char **list;
	size_t n_list;
	bool flag;
} floe_silver_config_item;

/* A model's config(...), typed. Every key given is in `items` (a later call's value wins). */
typedef struct floe_silver_model_config {
	const char *materialized;       /* NULL: not given */
	const char **unique_key;        /* a string is a one-element list */
	size_t n_unique_key;
	floe_silver_config_item *items;
	size_t n_items, cap_items;
} floe_silver_model_config;

/*
 * What the names of a model render to. `source` and `ref` return the SQL relation to
 * put in place of source('s', 't') / ref('x'), or NULL when there is none (the render
 * then fails naming the call). `this` NULL: {{ this }} is an error.
 */
typedef struct floe_silver_render_opts {
	const char *file;               /* named in messages, e.g. "dbt/models/silver/orders.sql" */
	bool incremental;               /* what is_incremental() is */
	const char *this_relation;
	const char *(*source)(void *ctx, const char *source_name, const char *table);
	const char *(*ref)(void *ctx, const char *model);
	void *ctx;
} floe_silver_render_opts;

/*
 * Render `text` (a model file, `len` bytes) into `out`, its config into `config`
 * (zeroed first; strings in `arena`). Exactly these constructs: {{ config(k=v, …) }}
 * (values: strings, lists of strings, True/False), {{ source('a', 'b') }}, {{ ref('x') }},
 * {{ this }}, {% if is_incremental() %} … [{% else %} …] {% endif %}, {# comments #},
 * and '-' whitespace control on any of them. Anything else fails with FLOE_ERR_CONFIG
 * naming the construct, the file and line:col (exit 2).
 */
int floe_silver_render(floe_buf *out, floe_silver_model_config *config, floe_arena *arena, const char *text,
		       size_t len, const floe_silver_render_opts *opts);

/* ---- run.c: silver for the tables of the deployed plan ---- */

/*
 * One bronze snapshot a silver build may read: the snapshot reconciliation verified
 * (docs/silver.md). `tables` of floe_silver_opts name bronze tables; a table none of
 * whose bronze snapshots is verified is skipped, never built over unproven data.
 */
typedef struct floe_silver_opts {
	const char *run_id;               /* the run silver belongs to (bronze's, in `floe run`); NULL: a new run */
	const char *const *tables;        /* "bronze.orders", "silver.orders" or "public.orders"; NULL: every table */
	size_t n_tables;
	bool full_refresh;                /* rebuild every table in full, even one whose bronze and model are unchanged */
	const char *const *moved;         /* non-NULL: only these bronze tables ("bronze.orders"), the ones this run
	                                     loaded and verified (`floe run` after its bronze layer) */
	size_t n_moved;
	int jobs;                         /* tables built at once (a table waits for the ones it reads); 0: SILVER_JOBS_DEFAULT */
} floe_silver_opts;

#define SILVER_JOBS_DEFAULT 2

typedef struct floe_silver_result {
	const char *table;                /* "silver.orders" */
	const char *bronze;               /* "bronze.orders" */
	const char *materialized;         /* "table", "incremental" */
	const char *state;                /* "built" | "failed" | "skipped" | "unchanged" */
	int64_t rows;                     /* rows in the published table (-1: unknown) */
	int64_t changed_keys;             /* an incremental build: keys bronze changed; -1: a full build */
	int64_t quarantined;              /* rows kept out this run */
	int64_t snapshot_id;              /* the silver snapshot published (0: none) */
	int64_t bronze_snapshot_id;       /* the verified bronze snapshot read */
	int tests_passed, tests_failed, tests_warned;
	int tests_proven;                 /* of tests_passed: held by construction, not run (docs/silver.md) */
	int tests_incremental;            /* of the tests run: over the changed rows and the keys they touch only,
	                                     the rest of the table having passed them at the last publish */
	double seconds;
	const char *detail;               /* one line: what happened, the failed and warned tests */
	const char *error;                /* failed: what failed */
	const char *cause;                /* failed: the probable cause */
	int exit_code;                    /* failed: README "Exit codes" */
	bool not_reconciled;              /* skipped: its bronze snapshot is not verified */
} floe_silver_result;

typedef struct floe_silver_report {
	char run_id[64];
	floe_silver_result *results;
	size_t n_results;
	size_t n_failed;
	size_t n_not_reconciled;          /* skipped: their bronze snapshot is not verified (never built over it) */
	int exit_code;                    /* the highest of the failed tables' exit codes */
	void *owned;
} floe_silver_report;

/*
 * Build silver for the plan's tables with a silver section, each over its bronze table's
 * snapshot that reconciliation verified last (the run ledger), in an order that builds a
 * relationships test's parent first. Every outcome goes to the run ledger (layer silver).
 * Returns 0 when the run happened (tables may have failed: n_failed).
 */
int floe_silver_run(floe_silver_report *out, const floe_config *config, const floe_silver_opts *opts);
void floe_silver_report_free(floe_silver_report *report);

/* ---- share.c: what a layer built on silver (gold) reuses ---- */

typedef struct floe_engine floe_engine;
typedef struct floe_iceberg_catalog floe_iceberg_catalog;
typedef struct floe_iceberg_storage floe_iceberg_storage;
typedef struct floe_iceberg_data_file floe_iceberg_data_file;

/*
 * A view "view_ns"."name" in `engine` over the current snapshot of the Iceberg table ns.name of
 * `cat`: 1; 0 when the table does not exist or has no files (no view made); -1 on error.
 */
int floe_silver_current_view(floe_engine *engine, floe_iceberg_catalog *cat, floe_arena *arena, const char *ns,
			     const char *name, const char *view_ns);

typedef struct floe_state floe_state;
typedef struct floe_lock floe_lock;

/* The deployed lock (into *lock, freed by the caller), the run ledger and the SQL catalog a build reads and writes. */
int floe_silver_open(floe_lock **lock, floe_state **st, floe_iceberg_catalog **cat, floe_arena *arena,
		     const floe_config *config);

/*
 * The current error as a failed build's outcome: its message on one line and its probable cause
 * (`tests_failed`: the cause is the failed test, named by `tests_cause`), in `arena`; the error is
 * cleared. Returns the exit code: 2 for a model or lock floe cannot run as written, a service's
 * or machine's own code, else 1.
 */
int floe_silver_failure(const char **message, const char **cause, floe_arena *arena, bool tests_failed,
			const char *tests_cause);

/* Where DuckDB writes files before a table's storage takes them: a private directory made on first use. */
typedef struct floe_silver_spool {
	floe_engine *engine;
	floe_arena *arena;
	const char *dir;                  /* NULL until the first file; remove it (empty) with rmdir when done */
	int n;
} floe_silver_spool;

/*
 * Run `copy` — a COPY (…) TO whose target follows: the statement is completed here with a file of
 * the spool and `options` — into a temporary file (*tmp, a path in the spool's directory) that `out`
 * describes from its Parquet footer (out->path: the temporary file's URI). Nothing is left on error.
 */
int floe_silver_spool_copy(floe_silver_spool *spool, floe_buf *copy, const char *options, const char **tmp,
			   floe_iceberg_data_file *out);

/* The temporary file `tmp` into `dst` at `uri` (created durably, never replacing a file); `tmp` removed either way. */
int floe_silver_spool_store(floe_silver_spool *spool, floe_iceberg_storage *dst, const char *uri, const char *tmp);

/*
 * floe_silver_spool_copy, then floe_silver_spool_store: hand the file's bytes to `dst` at `uri` (created durably, never
 * replacing a file) and describe them in `out` from the Parquet footer (Iceberg statistics). The
 * temporary file is removed either way.
 */
int floe_silver_store_copy(floe_silver_spool *spool, floe_iceberg_storage *dst, const char *uri, floe_buf *copy,
			   const char *options, floe_iceberg_data_file *out);

#endif
