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
} floe_silver_opts;

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

#endif
