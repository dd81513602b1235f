/*
 * silver_int.h — what the files of src/silver share.
 */
#ifndef FLOE_SILVER_INT_H
#define FLOE_SILVER_INT_H

#include "silver/silver.h"
#include "engine/engine.h"
#include "iceberg/catalog.h"
#include "iceberg/table.h"
#include "plan/lock.h"

/* One silver table's build, run by run.c. Everything it allocates is in `arena`. */
typedef struct silver_job {
	const floe_config *config;
	floe_iceberg_catalog *cat;
	const floe_lock *lock;
	const floe_lock_table *table;
	const char *pipeline_dir;
	const char *run_id;
	int64_t bronze_snapshot;          /* the snapshot reconciliation verified */
	const char *verified;             /* "verified", or "verified (partial): …" */
	bool full_refresh;
	floe_arena *arena;
	floe_silver_result *result;
	/* during the build */
	floe_engine *engine;
	const char *ns, *name;            /* "silver", "orders" */
	floe_buf notes;                   /* tests failed and warned, quarantine counts: "; "-joined */
	const floe_lock_silver **refs;    /* the silver tables the model ref()s */
	size_t n_refs, cap_refs;
	const char *tmp_dir;              /* where DuckDB writes files before storage takes them; NULL: none yet */
	int n_tmp;
	bool table_failed;                /* an error-severity table test failed */
	int64_t step_ms;                  /* when the last step ended (silver_step) */
	bool audit_fresh;                 /* the table's other rows passed these very error tests when published:
	                                     error row tests read floe_fresh (the new rows) only, uniqueness
	                                     only the groups of a new row's values */
} silver_job;

/* Log (debug: floe -vv) how long the step `what` of the build took since the previous one. */
void silver_step(silver_job *job, const char *what);

/* build.c: render, run, quarantine, write, audit, publish. -1 with the error set when it failed. */
int silver_build_table(silver_job *job);

/* evolve.c: table `t`'s current schema brought to `want` (the lock's silver columns) by field id: 1 when it changed. */
int silver_align_schema(floe_iceberg_table *t, floe_arena *a, const floe_iceberg_schema *want);

/* ---- audit.c: the lock's tests as SQL ---- */

/*
 * Quarantine: insert into floe_bad (floe_row, floe_rule) the rows of floe_build that fail an
 * error-severity row-level test; per test with failures a note ("not_null_orders_x: 2 rows
 * quarantined"). *quarantined: distinct rows kept out.
 */
int silver_quarantine(silver_job *job, int64_t *quarantined);

/*
 * Every test of the lock against `relation` (the written files): counts in the result,
 * failures and warnings in the notes; job->table_failed when an error-severity test failed.
 */
int silver_audit(silver_job *job, const char *relation);

/* The SHA-256 (hex) of the lock's error-severity tests of `s`: what a published snapshot passed. */
void silver_tests_sha(char out[65], const floe_lock_silver *s);

/* An SQL expression showing a row's key ("(5, 'a')") — 'a row' when a key column is masked. */
void silver_key_text(floe_buf *sql, const floe_lock_silver *s, const char *const *cols, size_t n);

#endif
