/*
 * silver_int.h — what the files of src/silver share.
 */
#ifndef FLOE_SILVER_INT_H
#define FLOE_SILVER_INT_H

#include "silver/silver.h"
#include "engine/engine.h"
#include "iceberg/catalog.h"
#include "iceberg/deletes.h"
#include "iceberg/table.h"
#include "plan/lock.h"

#include <pthread.h>
#include <stdatomic.h>

/*
 * What an incremental build of a relationships parent leaves for the children built after it in
 * the same run: the keys it changed that the table has no row of now (deleted at the source, or
 * quarantined), from snapshot `from` to the snapshot `to` it published — every other row of `from`
 * is still there. A child's narrowed test reads them instead of the parent's removed rows.
 */
typedef struct silver_gone {
	const char *table;                /* "silver.orders" */
	int64_t from, to;
	const char *path;                 /* a Parquet file of the keys, under the table's key column names */
	const char *const *key;           /* those names (the lock's) */
	size_t n_key;
} silver_gone;

/*
 * What the builds of one run share and leave for the later ones (run.c owns it; its files go with
 * the run). Builds run on several threads at once (run.c): every field below `mu` is read and
 * written under it; `gone` is allocated for every table of the run up front (a build adds at most
 * one), so a pointer into it stays valid.
 */
typedef struct silver_memo {
	pthread_mutex_t mu;
	floe_arena *arena;
	floe_engine *engine;              /* the run's DuckDB database: each build a connection to it (build.c) */
	pthread_t warm;                   /* opening it while the run starts (silver_memo_warm); joined by the first
	                                     build that needs it, or at the end */
	bool warming;
	floe_engine *warmed;              /* what that opened (NULL: it failed; the build opens one itself) */
	int threads;                      /* its threads (0: DuckDB's default, one a core): the cores shared
	                                     by the builds that run at once (run.c) */
	const char *home;                 /* its own catalog's name */
	int n_builds;
	const char *dir;                  /* the run's private temporary directory; NULL until the first file */
	int n_files;
	silver_gone *gone;
	size_t n_gone, cap_gone;
} silver_memo;

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
	bool bronze_unique;               /* V3 verified every column of that snapshot: its rows are the source's, so
	                                     unique on the source's primary key (model.c skips the dedup) */
	bool full_refresh;
	floe_arena *arena;
	floe_silver_result *result;
	silver_memo *memo;                /* the run's (NULL: none kept) */
	/* during the build */
	floe_engine *engine;
	const char *catalog;              /* the DuckDB catalog the build works in (NULL: the engine's own) */
	const char *ns, *name;            /* "silver", "orders" */
	floe_buf notes;                   /* tests failed and warned, quarantine counts: "; "-joined */
	const floe_lock_silver **refs;    /* the silver tables the model ref()s */
	size_t n_refs, cap_refs;
	const char *tmp_dir;              /* where DuckDB writes files before storage takes them; NULL: none yet */
	int n_tmp;
	bool table_failed;                /* an error-severity table test failed */
	int64_t step_ms;                  /* when the last step ended (silver_step) */
	bool dedup_skipped;               /* the generated model ran without its dedup numbering (model.c) */
	bool same_bytes;                  /* incremental: bronze's new files are the last build's, byte for byte (diff.c) */
	bool model_generated;             /* the model file is byte for byte floe generate's (model.c) */
	bool unique_by_model;             /* a full build of a generated model: one row per key by construction */
	bool audit_fresh;                 /* the table's other rows passed these very error tests when published:
	                                     error row tests read floe_fresh (the new rows) only, uniqueness
	                                     only the groups of a new row's values */
	floe_buf whole;                   /* an incremental audit: the tests run over the whole table, ", "-joined */
	bool fresh_keys_asked;            /* fresh_keys_changed is known (audit.c) */
	bool fresh_keys_changed;          /* every new row's key is a changed key, so no kept row has it */
	const char *parents_tested;       /* the last publish's floe.parent-snapshots (NULL: none) */
	const silver_gone *probe_gone;    /* silver_gone_probe's: the gone keys floe_probe holds (NULL: none) */
	size_t probe_test;                /* of this test of the lock */
	int64_t probe_kept;               /* kept rows whose foreign key is gone (rows_to_delete); -1: not known */
	const char *kept_live;            /* merge-on-read with kept rows: " WHERE floe_pos NOT IN (…)" over
	                                     floe_kept_pos, what leaves out the rows floe_kept leaves out */
	const char *parents;              /* "silver.orders=12;…": the parent snapshots this build's
	                                     relationships tests read (floe.parent-snapshots at publish) */
	void (*readable)(struct silver_job *job); /* run.c's: the table is published (or will not be) — the
	                                     tables that read it need not wait for the rest of its build; NULL: none */
	void (*wait_reads)(struct silver_job *job); /* run.c's: returns once the silver tables the build reads
	                                     are built (builds run at once); NULL: they are */
	struct silver_run *run;           /* what wait_reads waits on */
	struct silver_build *build;       /* the build under way (silver_build_table); NULL: none */
	struct silver_idle *idle;         /* the run's builder of indexes on idle cores (idle.c); NULL: none */
	bool reads_waited;
} silver_job;

/* The schema source() reads bronze's verified snapshot under (the whole of it, whatever the scope). */
#define SILVER_BRONZE_FULL "floe_bronze_snapshot"

/* What one table's build reads and where it stands (build.c and the files it calls). */
typedef struct silver_build {
	silver_job *job;
	const floe_lock_silver *s;
	floe_iceberg_table *silver;       /* NULL: not created yet (create at publish) */
	floe_iceberg_scan *previous;      /* the silver table's live files; NULL: none */
	floe_iceberg_scan *base;          /* bronze's live files at the incremental base (base_planned): planned once */
	bool base_planned;
	const char *model_sha;
	bool incremental;                 /* restricted to floe_changed's keys */
	bool schema_changed;              /* the table was brought to the lock's columns: build in full */
	bool merge_on_read;               /* incremental: replaced rows as a position delete file, not files rewritten */
	floe_iceberg_position_delete *dels; /* merge-on-read: the live rows of changed keys (diff.c) */
	size_t n_dels, cap_dels;
	const char **removed;             /* incremental: silver files rewritten */
	size_t n_removed, cap_removed;
	floe_iceberg_data_file *files;    /* the new data files (none: no rows), key ranges in order */
	size_t n_files, cap_files;
	const char **tmp;                 /* where each new file is until published (store_files): NULL once stored */
	struct floe_keyindex *keys;       /* the table's key index (keys.c); NULL: not opened */
	struct silver_fk_index *fks;      /* indexes of its foreign key columns opened by this build (keys.c) */
	size_t n_fks, cap_fks;
	bool fk_wanted;                   /* a kept-rows question found no index of its foreign key: the publish makes them */
	floe_iceberg_scan *kept;          /* merge-on-read: the live files less b->dels (build.c's kept_view); NULL: none */
	size_t n_tmp_files, cap_tmp;
} silver_build;

/* ---- keys.c: the table's key index, where each key's live row is ---- */

/*
 * b->dels (merge-on-read) found in the key index: the live rows of floe_changed's keys, and with
 * `probe` (silver_gone_probe's floe_probe) job->probe_kept. 1 done; 0 not (the table's key has no
 * index, the probe's foreign key is not the key's first column, or the index could not be used:
 * logged), -1 error. `scan` is how they are found without it (FLOE_SILVER_KEYS_CHECK=1 runs both
 * and fails when they differ).
 */
int silver_keys_rows_to_delete(silver_build *b, bool probe, int (*scan)(silver_build *b));
/*
 * Temporary table `held`: the rows of temporary table `keys` (a relationships test t's foreign
 * keys, under the child's column names) that parent t->to holds at `now`, found in the parent's
 * key index instead of a scan of its key. 1 made; 0 not (the test's fields are not the parent's
 * key, or its index lacks a file of `now`), -1 error.
 */
int silver_keys_held(silver_job *job, const floe_lock_test *t, const floe_iceberg_scan *now, const char *keys,
		     const char *held);
/*
 * *any: whether a kept row (b->kept) holds one of the foreign keys of temporary table `gone` (test
 * t's columns), found in the table's index of those columns. 1 answered; 0 not (the columns'
 * types; no index yet — the publish then makes it, for the builds after —; or it could not be
 * used: logged), -1 error.
 */
int silver_keys_kept_gone(silver_job *job, const floe_lock_test *t, const char *gone, bool *any);
/*
 * A foreign key's index a later build may ask (silver_keys_kept_gone), missing after a merge-on-read
 * table's publish: silver_keys_published hands it to job->idle with the table's live files, and the
 * idle builder makes it with silver_keys_idle_make — 1 made, 0 stopped by `stop` (what was made of it
 * stays: a segment a file), -1 error (set). Self-contained (its own copies), freed by
 * silver_keys_idle_free; silver_keys_idle_name says which ("silver.x: test") into buf.
 */
typedef struct silver_idle_index silver_idle_index;
int silver_keys_idle_make(silver_idle_index *x, floe_iceberg_catalog *cat, const atomic_bool *stop);
const char *silver_keys_idle_name(const silver_idle_index *x, char *buf, size_t len);
void silver_keys_idle_free(silver_idle_index *x);

/* ---- idle.c: indexes later builds may ask, made while a core is idle ---- */

/*
 * The run's idle builder: one thread at the lowest priority (SCHED_IDLE), started at the first
 * silver_idle_add, that makes the indexes handed to it — the one whose parent table has the most
 * rows first — while the builds leave a core idle. silver_idle_start: NULL when FLOE_SILVER_IDLE=off.
 * silver_idle_stop at the run's end: the index under way stops at its next row group (or file) and
 * the rest are left for the builds that ask (FLOE_SILVER_IDLE=wait: every one is made first), logged.
 */
typedef struct silver_idle silver_idle;
silver_idle *silver_idle_start(const floe_config *config);
void silver_idle_add(silver_idle *q, silver_idle_index *x, int64_t priority);
void silver_idle_stop(silver_idle *q);
/* FLOE_SILVER_KEYS_CHECK=1: every answer of the key index is checked by the scan it saves. */
bool silver_keys_checking(void);
/*
 * Before the build first needs DuckDB (while the run's database opens): the indexes of the foreign
 * keys it will likely ask about made from the published files, rather than by the publish of the
 * first build that asked (which answered with a scan first). Only for a merge-on-read build that
 * can go incremental, of a foreign key outside the table's key whose index is missing and whose
 * parent's bronze table lost rows to source deletes in its last load (floe.rows-deleted). How many
 * were made (a failure logged, never the build's).
 */
size_t silver_keys_make_ahead(silver_build *b);
/* After the publish: the new files' keys added, files no longer live dropped (a failure logged, never the build's). */
void silver_keys_published(silver_build *b);
void silver_keys_close(silver_build *b);

/* The project's SQL catalog, one handle per thread that builds (share.c). */
int silver_catalog_open(floe_iceberg_catalog **cat, floe_arena *arena, const floe_config *config);

/* ---- build.c: render, run, quarantine, write, audit, publish ---- */

/* Log (debug: floe -vv) how long the step `what` of the build took since the previous one. */
void silver_step(silver_job *job, const char *what);

/*
 * Before the build first reads another silver table of the run (a relationships parent's snapshot
 * or the keys it lost, silver_memo): wait until those are built (job->wait_reads), once.
 */
void silver_wait_reads(silver_job *job);

/* One table's build. -1 with the error set when it failed. */
int silver_build_table(silver_job *job);

/* The current silver snapshot's summary value of `key`, or NULL (no table, no snapshot). */
const char *silver_built_from(const silver_build *b, const char *key);
/* Whether the published snapshot passed exactly the table's tests as they stand (build.c). */
bool silver_tests_as_published(const silver_build *b);

/* ---- model.c: what the model reads, the model run ---- */

/* "ns"."name" into `b`; silver_ident the same into the arena. */
void silver_put_ident(floe_buf *b, const char *ns, const char *name);
const char *silver_ident(floe_arena *a, const char *ns, const char *name);

/* "ns.name" split at its first dot into the arena (no dot: "silver"). */
void silver_split(floe_arena *a, const char *qualified, const char **ns, const char **name);

/* Views of the silver tables this build reads, each at its current snapshot (none yet: no rows). */
int silver_parent_views(silver_job *job);

/* Whether table t's model file is `floe generate`'s own text (it then reads no silver table but itself). */
bool silver_model_generated(const floe_config *config, const char *pipeline_dir, const floe_lock_table *t);

/* The model file rendered into `sql` (a hand edit runs as edited); its SHA-256 into b->model_sha. */
int silver_render_model(silver_build *b, floe_buf *sql);

/* View "ns"."name" of no rows with the lock's columns of `s`: a silver table nothing was published to yet. */
int silver_empty_view(silver_job *job, const floe_lock_silver *s, const char *ns, const char *name);

/* Whether a lock column is named rowid (DuckDB's row number of a table, which a column shadows). */
bool silver_has_rowid_column(const floe_lock_silver *s);

/* floe_build: the model's rows sorted by the key, numbered from 0 (floe_row); its columns the lock's. */
int silver_run_model(silver_build *b, floe_buf *model_sql);

/* share.c: *dir, when NULL, a new private directory "$TMPDIR/<prefix>-XXXXXX" (in the arena). */
int silver_tmp_dir(floe_arena *arena, const char **dir, const char *prefix);

/* ---- write.c: the build's files ---- */

/* The lock's silver columns as an Iceberg schema (every column optional: a model may null one). */
int silver_schema(floe_iceberg_schema **out, floe_arena *a, const floe_lock_silver *s);

/* A SELECT list casting each column to its Iceberg type's DuckDB type (silver_put_select: the lock's columns). */
void silver_put_casts(floe_buf *sql, const floe_iceberg_schema *schema, const char *prefix);
int silver_put_select(floe_buf *sql, floe_arena *a, const floe_lock_silver *s, const char *prefix);

/* The ORDER BY of the table's key, led by `lead` (nothing for a table without one). */
void silver_put_key_order(floe_buf *sql, const floe_lock_silver *s, const char *lead);

/* The COPY options with FIELD_IDS for `schema`'s columns (`s`: the lock's nested ids; NULL: flat), ZSTD at [warehouse] zstd-level. */
const char *silver_copy_options(floe_arena *a, const floe_config *config, const floe_iceberg_schema *schema,
				const floe_lock_silver *s);

/*
 * DuckDB runs `copy` (a COPY … TO whose target is completed here) into a private temporary file;
 * its bytes go to `dst` at `uri` (created durably, never replacing a file), `out` describes them.
 */
int silver_store_copy(silver_job *job, floe_iceberg_storage *dst, const char *uri, floe_buf *copy, const char *options,
		      floe_iceberg_data_file *out);

/* What DuckDB opens for a file of the silver table ("" when the storage hands over nothing: error set). */
const char *silver_engine_path(silver_build *b, const char *uri);

/* The rows to publish, sorted by key, into temporary files of key ranges (b->files, b->tmp). */
int silver_write_files(silver_build *b);

/* The new files into the table's storage (the table created first when missing): at publish. */
int silver_store_files(silver_build *b);

/* Delete the new files, wherever they are (nothing references them). */
void silver_discard_files(silver_build *b);

/* ---- diff.c: an incremental build's scope ---- */

/* " AND left."c" = right."c"" for each of the `n` columns. */
void silver_put_equal(floe_buf *sql, const char *const *cols, size_t n, const char *left, const char *right);

/*
 * " SEMI JOIN floe_changed …" (`changed`: keep the rows of `alias` whose key changed) or " ANTI
 * JOIN …" (keep the others): joins, not [NOT] EXISTS, whose correlated plan cost DuckDB 5x the CPU.
 */
void silver_put_changed(floe_buf *sql, const floe_lock_silver *s, const char *alias, bool changed);

/*
 * View `name` (in main): the rows of table `t`'s snapshot `from` that snapshot `now` (planned
 * live) no longer has — of the files it removed, and at the positions its delete files added.
 */
int silver_removed_rows(silver_job *job, floe_iceberg_table *t, const floe_iceberg_scan *now, int64_t from,
			const char *name);

/*
 * Whether bronze's verified snapshot `now` holds exactly the rows of the one the table was last
 * built from by this model (same data files, same deleted positions): 1, 0 (or no such base), -1.
 */
int silver_bronze_rows_as_built(silver_build *b, floe_iceberg_table *bronze, const floe_iceberg_scan *now);

/*
 * The bronze snapshot an incremental build may start from: the last build's, same model; else -1.
 * An `incremental` model, or a `table` model as generated (a full-mode bronze table: only the keys
 * whose rows differ from the last build's snapshot are rebuilt, as for incremental bronze).
 */
int64_t silver_incremental_base(const silver_build *b);

/*
 * "bronze"."X", what source() reads: the verified snapshot whole, or — incremental — only the
 * rows of the keys bronze changed since the snapshot silver was last built from.
 */
int silver_choose_scope(silver_build *b, floe_iceberg_table *bronze, const floe_iceberg_scan *now, const char *bns,
			const char *bname);

/* ---- quarantine.c: silver.X__quarantine ---- */

/* The quarantine's rows after a published build (a full build replaces them, incremental those of its keys). */
int silver_write_quarantine(silver_build *b);

/* Per rule, the rows this build quarantined, into the notes. */
int silver_note_quarantine(silver_job *job);

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

/* The parent snapshot relationships test `t` read at the last publish (floe.parent-snapshots), or -1. */
int64_t silver_tested_snapshot(const silver_job *job, const floe_lock_test *t);

/* The SHA-256 (hex) of the lock's error-severity tests of `s`: what a published snapshot passed. */
void silver_tests_sha(char out[65], const floe_lock_silver *s);

/*
 * After an incremental build published snapshot `to` of a table that another table's relationships
 * test reads: its silver_gone into the run's memo (nothing when no table of the lock reads it, or its
 * key is masked). Never fails the build: a gone set not kept is read from the snapshots instead.
 */
void silver_remember_gone(silver_build *b, int64_t to);

/* Whether every column of test t is one of s's key columns (vacuously, a test of none). */
bool silver_test_within_key(const floe_lock_silver *s, const floe_lock_test *t);

/*
 * Before a merge-on-read incremental build finds its changed rows (diff.c): when exactly one of its
 * relationships tests has its foreign key within the table's key and a parent whose own build in
 * this run left its lost keys (silver_gone, from the snapshot the test last passed against), those
 * keys as temporary table floe_probe (the test's column names), and job->probe_*: 1. The scan for
 * the changed rows then also counts the kept rows of a lost key (job->probe_kept) — the same key
 * columns read, so the test need not scan again. 0: none.
 */
int silver_gone_probe(silver_job *job);

/* The memo's files removed (the run is over). */
void silver_memo_clear(silver_memo *memo);
/* Start opening the run's DuckDB database on a thread of its own (build.c): 15–20 ms off the first build's path. */
void silver_memo_warm(silver_memo *memo);
/* The warmed database, once opened (NULL: none was warming, or it failed); call with memo->mu held. */
floe_engine *silver_memo_warmed(silver_memo *memo);

/* An SQL expression showing a row's key ("(5, 'a')") — 'a row' when a key column is masked. */
void silver_key_text(floe_buf *sql, const floe_lock_silver *s, const char *const *cols, size_t n);

#endif
