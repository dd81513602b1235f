/*
 * bronze_int.h — what the files of src/bronze share.
 */
#ifndef FLOE_BRONZE_INT_H
#define FLOE_BRONZE_INT_H

#include "bronze/bronze.h"
#include "base/log.h"
#include "format/parquet.h"
#include "vector/vector.h"
#include "iceberg/data_file.h"
#include "iceberg/deletes.h"
#include "iceberg/schema.h"
#include "iceberg/table.h"
#include "pg/copy.h"
#include "plan/lock.h"

#include <stdatomic.h>

typedef struct floe_arena floe_arena;

/* Batches of rows between PostgreSQL, vectors and Parquet. */
#define BRONZE_BATCH_ROWS 65536
#define BRONZE_BATCH_BYTES ((size_t)32 << 20)

/*
 * Live progress of one table's load: the worker thread stores, the progress meter (another
 * thread) loads. Relaxed atomics: each counter is a number on its own, no ordering between them.
 */
typedef struct bronze_progress {
	const char *table;
	_Atomic(const char *) phase;    /* "copying", "merging", "committing" (static strings) */
	_Atomic uint64_t rows, bytes;   /* read from the source so far */
	double started;                 /* monotonic seconds; under the run's mutex */
} bronze_progress;

/* One table's load, run by one worker thread. Everything it allocates is in `arena`. */
typedef struct bronze_job {
	const floe_config *config;
	const char *pipeline_dir;
	const char *catalog_path;
	const char *warehouse_dir;
	const floe_lock_table *table;
	const char *run_id;
	floe_bronze_result *result;
	floe_arena *arena;
	bronze_progress *progress;
	floe_bronze_check_fn check;
	void *check_ctx;
	int parallel;               /* connections for a full load (parallel.c); 0: floe.toml's */
	/* a repair (floe_bronze_repair): re-copy these keys only, at this snapshot */
	const char *pg_snapshot;
	const char *const *repair_keys;
	size_t n_repair_keys;
	struct bronze_cdc *cdc;     /* a CDC load (cdc.c): its batch; NULL: not one */
	struct bronze_posindex *index; /* floe run --follow: where each key is (posindex.c); NULL: none */
	bool follow_quiet;          /* floe run --follow: a batch without changes commits nothing (cdc.c) */
	struct floe_pg_keep *keep_source; /* floe run --follow: the load's source session, kept between batches */
	struct floe_pg_keep *keep_holder; /* and the CDC snapshot holder's (cdc/cdc.h) */
	struct floe_cdc_stream **keep_stream; /* and the table's replication stream (cdc/cdc.h) */
	bool compact;                  /* floe compact: compact the table instead of loading it */
} bronze_job;

/* The lock's columns as the three shapes the load needs, in result-column order. */
typedef struct bronze_columns {
	floe_iceberg_schema *schema;
	floe_parquet_field *fields;
	floe_pg_copy_column *copy;
	size_t n;
} bronze_columns;

/*
 * Build the shapes from the lock table and the extraction query's described
 * result types (oids, array element oids). The query must return the lock's
 * columns in order; a type floe cannot decode is an error naming the column.
 */
int bronze_columns_build(bronze_columns *out, floe_arena *arena, const floe_lock_table *table,
			 const uint32_t *oids, const uint32_t *elem_oids, size_t n);

/* Fresh vectors for every column (heap storage: free with bronze_vectors_free). */
floe_vector *bronze_vectors_new(floe_arena *arena, const bronze_columns *cols);
void bronze_vectors_clear(floe_vector *v, size_t n);
void bronze_vectors_free(floe_vector *v, size_t n);

/* ---- keys.c: the primary key as the order of files and rows ---- */

typedef struct bronze_keys {
	size_t n;                 /* key columns; 0 when the table has none */
	size_t *col;              /* their indexes among the columns */
	const char *unmergeable;  /* why rows cannot be merged by key (NULL: they can) */
	long watermark;           /* the watermark column's index, -1 for none */
	bool watermark_only;      /* unmergeable only for want of a watermark (CDC needs none) */
} bronze_keys;

/* The key and watermark of `table` among `cols`. */
void bronze_keys_init(bronze_keys *out, floe_arena *arena, const floe_lock_table *table,
		      const bronze_columns *cols);

/*
 * Compare the key of row i of a (key vectors a[0..n)) with row j of b: -1, 0, 1,
 * in the order of `ORDER BY` the key with text columns COLLATE "C".
 */
int bronze_key_cmp(const bronze_keys *k, floe_vector *const *a, size_t i, floe_vector *const *b,
		   size_t j);
/* Whether rows [0, rows) of `keys` are in strictly ascending key order (one call a batch; the
 * commonest keys — one uuid or bigint column without NULLs — compared inline). */
bool bronze_keys_ascending(const bronze_keys *k, floe_vector *const *keys, size_t rows);

/* Rows [0, rows) of `batch` appended to `kept` (key vectors each) when they carry on its strictly
 * ascending key order without NULLs; false (nothing appended) when they do not. */
bool bronze_keys_append_ascending(const bronze_keys *k, floe_vector *const *kept, floe_vector *const *batch, size_t rows);

/* Point keys[0..n) at the key columns of full-row vectors. */
void bronze_key_view(const bronze_keys *k, floe_vector **keys, floe_vector *rows);

/*
 * Append an Iceberg bound of a key column (Appendix D bytes) to `dst`, a vector of
 * that column's type, as a row: -1 when the bytes do not fit the type. Truncated
 * string bounds stay bounds in bytewise order (a prefix below, an increment above).
 */
int bronze_key_bound_append(floe_vector *dst, const uint8_t *bound, size_t len);

/*
 * "SELECT columns FROM (sql) AS floe_src<where> ORDER BY <key>" with text key columns
 * COLLATE "C", identifiers quoted for `pg`; and the key's columns as "floe_src.k1, …".
 * In `arena`; NULL on error.
 */
const char *bronze_sql_keyed(floe_arena *arena, floe_pg *pg, const floe_lock_table *table, const bronze_keys *k,
			     const char *columns, const char *sql, const char *where);
const char *bronze_sql_key_columns(floe_arena *arena, floe_pg *pg, const floe_lock_table *table,
				   const bronze_keys *k);
/* " COLLATE \"C\"" for a text key column (the order files are sorted in), else "". */
const char *bronze_key_collation(const floe_lock_column *c);

/* ---- files.c: data files written by one load, bounded in rows ---- */

typedef struct bronze_files {
	floe_iceberg_table *table;
	floe_arena *arena;
	const bronze_columns *cols;
	size_t max_rows;               /* per file; 0: unbounded */
	int zstd_level;                /* [warehouse] zstd-level (bronze_files_init); 0: the writer's default */
	floe_parquet_writer *writer;
	const char *uri;               /* the open file's */
	size_t rows;                   /* in the open file */
	floe_iceberg_data_file *files; /* closed files */
	size_t n, cap;
	struct bronze_files_async *async; /* a writer thread (files_async.c), or NULL */
	/* a merge-on-read table's: each file's keys, kept as it is written, its key file as it closes
	   (bronze_files_keep_keys; lakekeys.c reads them) */
	const bronze_keys *keys;
	const char *keys_dir;
	floe_vector *key_vec;          /* the open file's key columns so far */
	bool keys_ascending;           /* so far: else the file gets no key file */
} bronze_files;

/* `zstd_level`: [warehouse] zstd-level (every writer of a table's files passes it; 0: the writer's default). */
void bronze_files_init(bronze_files *f, floe_arena *arena, floe_iceberg_table *table,
		       const bronze_columns *cols, size_t max_rows, int zstd_level);
/* Rows the open (or next) file still takes. */
size_t bronze_files_room(const bronze_files *f);
/* Write a batch (at most `room` rows); opens a file when none is open, closes it when full. */
int bronze_files_write(bronze_files *f, const floe_vector *vectors);
/* Close the open file, if any. */
int bronze_files_close(bronze_files *f);
/* Remove the files from index `from` on (and the open one): a load that will not commit them. */
void bronze_files_discard(bronze_files *f, size_t from);
/* Keep each file's keys as it is written and write them as its key file (keyindex/keyfile.h) under
 * `dir` when it closes — unless they are not in strictly ascending key order. */
void bronze_files_keep_keys(bronze_files *f, const bronze_keys *k, const char *dir);
/* The keys of rows [0, rows) of `vectors` (a batch bronze_files_write or its async twin takes). */
void bronze_files_kept(bronze_files *f, const floe_vector *vectors, size_t rows);
/* Open the next file (files.c; bronze_files_write does when none is open). */
int bronze_files_open(bronze_files *f);

/*
 * files_async.c: batches written on a thread of their own (a rewrite's: compaction, copy-on-
 * write). Start it after bronze_files_init (unless !bronze_files_async_wanted(): FLOE_LOAD_THREADS
 * = 1 or one core); write_async takes the filled batch and hands back empty vectors of the same
 * columns; the other calls wait for the batch in flight first (settle: its error, if it failed).
 * Stop before the files are used (joins the thread; returns the last write's failure).
 */
typedef struct bronze_files_async bronze_files_async;
bool bronze_files_async_wanted(void);
int bronze_files_async_start(bronze_files *f);
int bronze_files_write_async(bronze_files *f, floe_vector *vectors);
int bronze_files_settle(bronze_files *f);
/* Wait for the batch in flight and drop its error (the caller's error chain stays as it is). */
void bronze_files_settle_quiet(bronze_files *f);
int bronze_files_async_stop(bronze_files *f);

/* ---- scan.c: rows of bronze data files, in file order ---- */

/*
 * Data files whose key ranges overlap (a merge-on-read table: a file and the delta files of later
 * loads), with the positions deleted from each, read as one in key order.
 */
typedef struct bronze_group {
	const floe_iceberg_scan_file *const *members;
	size_t n;
} bronze_group;

typedef struct bronze_scan {
	floe_iceberg_table *table;
	floe_arena *arena;
	const bronze_columns *cols;
	const floe_iceberg_data_file *const *files;
	size_t n_files, file;      /* file: the current one's index in files */
	const size_t *want;        /* column indexes read */
	size_t n_want;
	floe_parquet_reader *reader;
	floe_parquet_reader_opts opts; /* its scratch: the buffers every reader of the scan shares, one read at a time */
	size_t row_group;
	floe_vector *vec;          /* n_want vectors of the current row group */
	size_t row, rows;          /* current row, rows in the row group */
	bool started;
	int64_t rg_offset;         /* position in the file of the row group's first row */
	/* merge-on-read: files[i] stands for groups[i] when that is not NULL (keys: their order) */
	const bronze_group *const *groups;
	const bronze_keys *keys;
	bool merged;               /* vec holds a batch of the current group's live rows, in key order */
	size_t *src_member;        /* per row of a merged batch: its member file and position */
	int64_t *src_pos;
	struct bronze_cursor *cursors; /* per member of the current group: its place in that file */
	size_t n_cursors;
	floe_vector **spare;       /* released members' column vectors (n_want each), their buffers kept for the next */
	size_t n_spare, cap_spare;
	bool vec_merging;          /* vec is set up for merged batches (kept from group to group) */
} bronze_scan;

/* Read columns `want` of `files`, in that order. */
void bronze_scan_init(bronze_scan *s, floe_arena *arena, floe_iceberg_table *table,
		      const bronze_columns *cols, const floe_iceberg_data_file *const *files,
		      size_t n_files, const size_t *want, size_t n_want);
/*
 * Read files[i] as group groups[i] where that is set: its members' live rows (deleted positions
 * skipped) merged in key order as they stream (each member is key-sorted: a k-way merge holding
 * one row group per member and one batch of output). Call before the first next.
 */
void bronze_scan_groups(bronze_scan *s, const bronze_group *const *groups, const bronze_keys *keys);
/* Move to the next row: 1, or 0 at the end, -1 on error. */
int bronze_scan_next(bronze_scan *s);
/* The data file (URI) and position in it of the current row. */
void bronze_scan_position(const bronze_scan *s, const char **path, int64_t *pos);
/* The run of the current batch's rows from row `from` at consecutive positions of one data file (a row
 * group's: all of them; a merged batch's: one member's, none deleted between): its end (exclusive), and
 * its first row's file (URI) and position. */
size_t bronze_scan_run(const bronze_scan *s, size_t from, const char **path, int64_t *pos);
void bronze_scan_close(bronze_scan *s);

/* A table's outcome into the run ledger under `run_id` (run.c; follow.c per batch). A failure is only logged. */
void bronze_record(floe_state *st, const char *run_id, const floe_bronze_result *r, const char *finished);

/* Whether `t` is among `tables` (bronze or source names; NULL: every table) (run.c). */
bool bronze_wanted(const char *const *tables, size_t n, const floe_lock_table *t);

/* ---- mor.c: merge-on-read ---- */

typedef struct bronze_load bronze_load;

/*
 * The live data files of a table in key order as units: a file alone, or a group of files
 * whose key ranges overlap (a file and the deltas later loads wrote into its range) with
 * their deleted positions. Units never overlap one another.
 */
typedef struct bronze_units {
	const floe_iceberg_data_file **files; /* per unit: the file it stands for (a group's: its first
					       * member's path and the group's live rows, no stats) */
	const bronze_group **groups;          /* per unit: NULL for a file without deletes, read as it is */
	size_t n;
	int64_t live_rows;
	size_t n_data_files;                  /* members of every unit */
} bronze_units;

/*
 * Cluster `scan`'s data files (deleted positions loaded) into units by key0's bounds; each
 * unit's bounds are appended to lower/upper (vectors of key0's type), units in key order.
 * Returns the reason to load in full (a file without bounds, a group too large to merge in
 * memory), else NULL.
 */
const char *bronze_mor_units(bronze_units *out, floe_arena *a, const floe_iceberg_scan *scan,
			     const floe_iceberg_field *key0, const floe_pg_copy_column *c0, size_t max_group_rows,
			     floe_vector *lower, floe_vector *upper);

/* Whether a table (its source name "schema.table") loads merge-on-read ([bronze.write-modes],
 * else [bronze] write-mode; unset: merge-on-read). */
bool bronze_mor_enabled(const floe_config *config, const char *source_name);

/* Write `dels` as the load's position delete file (l->delete_files), with their rows' key
 * values when `rows` is given (deletes.h). */
int bronze_mor_write_deletes(bronze_load *l, floe_iceberg_position_delete *dels, size_t n,
			     const floe_iceberg_deleted_rows *rows);

/* When compaction runs: the thresholds ([compaction]), or always (floe compact). */
typedef struct floe_bronze_compaction {
	bool forced;
	size_t delete_files, small_files;
} floe_bronze_compaction;

/*
 * Compaction (merge.c): the files with deletes and the small deltas of the table's units (a big
 * file without deletes stays), and runs of small files,
 * rewritten into key-sorted files of target-file-rows without deletes; l->removed gets their
 * files and every live delete file, l->out the new files. *skip says why nothing is to commit.
 */
int bronze_merge_compact(bronze_load *l, const floe_bronze_compaction *when, const char **skip);

/* Remove the position delete files a load wrote and will not commit. */
void bronze_mor_discard(bronze_load *l);

/* Monotonic seconds, for the timings a load reports (clock.c). */
double bronze_seconds(void);

/* One line per step of a load at `level` ("bronze.t: what in 0.0120 s"); *t moves to now. */
void bronze_step_at(floe_log_level level, const bronze_job *job, double *t, const char *what);
/* The same at -vv: every step of a load and of a follower's batch. */
void bronze_step(const bronze_job *job, double *t, const char *what);

/*
 * ---- posindex.c: key → (data file, position) of a table's live rows, kept by the follower ----
 * One index reflects one table snapshot. merge.c asks it for the positions a merge-on-read batch
 * replaces and deletes instead of reading the touched files' keys; load.c carries it forward
 * through the follower's own commits; any other commit makes the next batch rebuild it.
 */
typedef struct bronze_posindex bronze_posindex;
void bronze_posindex_new(bronze_posindex **out, const char *table, size_t budget_bytes);
void bronze_posindex_free(bronze_posindex *ix);
/* The snapshot the index reflects; -1: none (built at the next batch). */
int64_t bronze_posindex_snapshot(const bronze_posindex *ix);
/*
 * Ready for the load's snapshot (l->expect_snapshot): as it is when it reflects it, else rebuilt
 * from the units `files` (`groups`: their members, or NULL) by scanning their keys. 1: ready; 0:
 * not used for this batch (over the budget, said once; or a key it cannot hold); -1: error.
 */
int bronze_posindex_ready(bronze_posindex *ix, bronze_load *l, const floe_iceberg_data_file *const *files,
			  const bronze_group *const *groups, size_t n);
/* Where key row `row` of `keys` is (path owned by the index); it leaves at the commit. False: absent. */
bool bronze_posindex_take(bronze_posindex *ix, const bronze_keys *k, floe_vector *const *keys, size_t row,
			  const char **path, int64_t *pos);
/* After a commit of l's table (new snapshot `snapshot`): carried forward when it followed the
 * commit's parent (the taken keys leave, the new files' rows come in), else dropped. */
void bronze_posindex_committed(bronze_posindex *ix, bronze_load *l, int64_t snapshot);

/* ---- lakekeys.c: a merge-on-read table's key files, searched instead of its key columns ---- */

/* The directory of l's table's key files; NULL when it keeps none (not merge-on-read, a key
 * column of variable width, FLOE_BRONZE_KEYFILES=off). */
const char *bronze_lakekeys_dir(struct bronze_load *l);
/* The files `f` writes for l leave key files (when the table keeps them). */
void bronze_lakekeys_attach(bronze_files *f, struct bronze_load *l);
/* After l's commit: the key files of the files it removed (a full load: of every file but its own) go. */
void bronze_lakekeys_committed(struct bronze_load *l, bool full);
/* Every key file but those of `scan`'s live data files removed (floe expire). */
void bronze_lakekeys_prune(struct bronze_load *l, const floe_iceberg_scan *scan);

typedef struct bronze_lakekeys bronze_lakekeys;
/*
 * The key files of the touched units among files[0..n) (groups: their merge-on-read members),
 * the missing ones made ahead; `like`: the key columns' vectors (their types). 1 and *out set:
 * ready; 0: the table keeps none, or a file's keys are not in key order (said); -1 on error.
 */
int bronze_lakekeys_open(bronze_lakekeys **out, struct bronze_load *l, const floe_iceberg_data_file *const *files,
			 const bronze_group *const *groups, const bool *touched, size_t n, floe_vector *const *like);
void bronze_lakekeys_close(bronze_lakekeys *lk);
/* The live row of key `row` of keys[] in unit f: its member's path and position; *twice when two members hold it live. */
bool bronze_lakekeys_find(const bronze_lakekeys *lk, size_t f, floe_vector *const *keys, size_t row, const char **path,
			  int64_t *pos, bool *twice);
/* The live rows of unit f in each of n consecutive pieces [bound_j, bound_j+1) (rows of vectors;
 * NULL: unbounded, first and last only) added to out[0..n): one search a bound a file, each from the last. */
void bronze_lakekeys_count_pieces(const bronze_lakekeys *lk, size_t f, const floe_vector *const *bound,
				  const size_t *row, size_t n, int64_t *out);
/* fn for each of them in key order (its key columns and row, path, position) until it returns non-zero (returned). */
typedef int (*bronze_lakekeys_fn)(void *ctx, floe_vector *const *keys, size_t row, const char *path, int64_t pos);
int bronze_lakekeys_each(const bronze_lakekeys *lk, size_t f, const floe_vector *lo, size_t lo_row,
			 const floe_vector *hi, size_t hi_row, bronze_lakekeys_fn fn, void *ctx);

/* ---- load.c / merge.c ---- */

/* The state of one table's load, shared by the full and the incremental paths. */
typedef struct bronze_load {
	bronze_job *job;
	floe_pg *pg;
	const char *sql;            /* the extraction query */
	const char *position;       /* the source's snapshot, pg_current_snapshot() */
	const char *exported;       /* the same, exported (pg_export_snapshot()) for reconciliation */
	floe_iceberg_catalog *catalog;
	floe_iceberg_table *table;
	bronze_columns cols;
	bronze_keys keys;
	int64_t expect_snapshot;
	bronze_files out;
	const char **removed;       /* URIs of files an incremental load replaces */
	size_t n_removed;
	bool copy_on_write;         /* set by a caller whose commit is a rewrite (an upsert topic):
				     * merge copy-on-write whatever the write mode says */
	bool mor;                   /* merge-on-read ([bronze] write-mode) */
	bool mor_table;             /* the table has loaded merge-on-read (write mode, or delete files) */
	const char *load_mode;      /* floe.load-mode when not the load's own ("compaction") */
	const char *operation;      /* the snapshot's operation when not derived ("replace") */
	floe_iceberg_data_file *delete_files; /* position delete files a merge-on-read load adds */
	size_t n_delete_files;
	bool has_watermark;
	int64_t watermark;          /* the largest watermark loaded (µs) */
	const char *clock_text[2];  /* the source's clock at the snapshot: timestamptz, and timestamp in
				     * the database's default TimeZone (what a writer's trigger stores) */
	int64_t future_rows;        /* rows read whose watermark is past that clock */
	int64_t rows_read;
	floe_iceberg_kv summary[16];
	size_t n_summary;
	const char *detail;
	const char *schema_changes; /* what bronze_schema_follow_plan changed, or NULL */
	const char *reload_why;     /* set: a column change makes this load a full one, for this reason */
	const char *parallel;       /* how the full load was split, or why it was not (parallel.c), or NULL */
	const char *changed_since;  /* an incremental merge: the watermark its changes were read from (the check's) */
	const char *const *changed_keys; /* a CDC batch merged: its keys (the check's); NULL: none */
	const char *keys_dir;       /* bronze_lakekeys_dir, once worked out (keys_dir_known) */
	bool keys_dir_known;
	size_t n_changed_keys;
} bronze_load;

/*
 * Bring the table's schema to the plan's columns (schema.c): drop, rename, widen, make
 * optional, add — with the plan's field ids — in one metadata commit before any data is
 * written; sets expect_snapshot, and reload_why when the change needs a full load.
 */
int bronze_schema_follow_plan(bronze_load *l);

/* "repaired by a full reload: <why>", without a leading "loaded in full…: " of its own (load.c). */
const char *bronze_repair_reason(floe_arena *arena, const char *why);

/* Add a snapshot summary entry (copied into the job's arena). */
void bronze_load_note(bronze_load *l, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The progress meter's phase and, with `copy`, the rows and bytes read so far (no-op without a meter). */
void bronze_load_progress(bronze_load *l, const char *phase, const floe_pg_copy *copy);

/*
 * A full load's COPY stream in batches (reader.c): with `threads` 2, received and decoded on a
 * thread of its own while the caller writes the previous batch (two batches in memory at
 * most); with 1, inline. A batch stays within `file_rows` rows per file (0: unbounded), as
 * bronze_files_write closes them. next gives the batch (valid until the next call; *rows 0 at
 * the end) and the COPY bytes read when it was complete; free stops the decoder and joins it.
 */
typedef struct bronze_reader bronze_reader;
int bronze_reader_start(bronze_reader **out, floe_pg_copy *copy, bronze_load *l,
			const bronze_columns *cols, floe_arena *arena, size_t file_rows, int threads);
int bronze_reader_next(bronze_reader *r, const floe_vector **vectors, size_t *rows, uint64_t *bytes);
void bronze_reader_free(bronze_reader *r);
/*
 * Threads of a full load, and of an incremental one's touched-key read: FLOE_LOAD_THREADS (1 or 2),
 * else 2 with more than two cores (PostgreSQL's backends, on the same machine or not, keep one).
 */
int bronze_load_threads(void);
/* The rows table `t`'s current snapshot holds: total-records less its position deletes; -1 unknown (load.c). */
int64_t bronze_table_rows(floe_iceberg_table *t);


/* Track the largest watermark among `rows` vectors, counting those past the source's clock. */
void bronze_watermark_track(bronze_load *l, const floe_vector *rows);
/*
 * `value`, at most the source's clock at the load's snapshot: a row from the future is
 * loaded but never holds the watermark past the present (later changes would be missed).
 */
int64_t bronze_watermark_capped(bronze_load *l, int64_t value);
/* When rows from the future were read: a warning, a summary entry, and the sentence for the detail. */
const char *bronze_watermark_future(bronze_load *l);
/* The watermark as text ("2026-11-30 06:51:20.123456+00"), in the job's arena. */
const char *bronze_watermark_text(bronze_load *l, int64_t value);
/* Parse a previous snapshot's floe.watermark; -1 when it is not one of ours. */
int bronze_watermark_parse(bronze_load *l, int64_t *out, const char *text);

/*
 * merge.c's decisions on the current files, by the bounds of the first key column (exposed for
 * tests/unit/bronze): which files a key goes to, which files form key ranges, what each range
 * should count in the source.
 */
#define BRONZE_NO_FILE ((size_t)-1)
#define BRONZE_MAX_RANGES 64        /* key ranges counted per run (one UNION ALL) */

typedef struct bronze_file_map {
	floe_vector lower, upper;   /* the files' bounds, one row per file, files in key order */
	size_t n_files;
	bool *touched;              /* per file: a change or a delete goes there */
	size_t *range_start;        /* range r is files [range_start[r], range_start[r + 1]) */
	size_t n_ranges;
} bronze_file_map;

/* Append data file d's bounds of key0 to lower/upper; else the reason to load in full (no bounds, a delete file). */
const char *bronze_map_bounds(floe_arena *a, floe_vector *lower, floe_vector *upper,
			      const floe_iceberg_data_file *d, const floe_iceberg_field *key0);
/*
 * The files (bounds rows [0, n)) in key order into `map` (order[i]: the input index of the i-th);
 * the reason to load in full when they overlap, else NULL. map's vectors are freed by the caller.
 */
const char *bronze_map_sort(bronze_file_map *map, floe_arena *a, const floe_vector *lower,
			    const floe_vector *upper, size_t n, size_t *order);
/*
 * Mark the files whose bounds hold key row `row` of key0 touched and return the first of them;
 * a key between files goes to the one before it (the first file for a key below all);
 * BRONZE_NO_FILE when there are no files.
 */
size_t bronze_map_route(bronze_file_map *map, const floe_vector *key0, size_t row);
/*
 * Key ranges: runs of files whose boundaries are clean (one's upper bound below the next's
 * lower), at most BRONZE_MAX_RANGES (every k-th boundary beyond).
 */
void bronze_map_ranges(bronze_file_map *map, floe_arena *a);
/* The range a key falls in by the source's predicate (lower bound of the range <= key). */
size_t bronze_map_range_of(const bronze_file_map *map, const floe_vector *key0, size_t row);
/* Per range, the rows the source should count: the files' rows plus the changes that are new keys. */
void bronze_map_expect(const bronze_file_map *map, int64_t *expected, const floe_iceberg_data_file *const *files,
		       const floe_vector *key0, const bool *exists, size_t n_chg);

/*
 * The incremental load: rows past the previous watermark minus the late window,
 * upserted by key into the files they fall in, deletes found by a key-set diff.
 * Leaves l->out / l->removed for the commit. Sets *full_reason (and writes nothing)
 * when the table must be loaded in full instead.
 */
int bronze_merge(bronze_load *l, int64_t previous_watermark, const char **full_reason);

/*
 * Upsert `rows` (every column, sorted by key, distinct keys; borrowed) into the files of the
 * table's snapshot l->expect_snapshot, and delete the keys of `keys` (the key columns, sorted)
 * that `rows` lacks: copy-on-write of the runs of files they touch, a run whose rows all come
 * out equal left as it was. No source read (a repair's merge; tests/unit/bronze). Same
 * contract as bronze_merge.
 */
int bronze_merge_rows(bronze_load *l, floe_vector *rows, floe_vector *keys, const char **full_reason);

/*
 * A repair: the rows of the given keys (job->repair_keys, PostgreSQL text, one value
 * per key column) re-read from the source and upserted; keys the source lacks are
 * deleted. Same contract as bronze_merge.
 */
int bronze_merge_keys(bronze_load *l, const char **full_reason);

/* ---- owner.c: which source table a bronze table mirrors ---- */

/* The table properties that name t's source table, for a new table: 2 entries into out. */
size_t bronze_owner_properties(floe_iceberg_kv *out, const floe_lock_table *t);

/* Fail (naming both) unless `table` mirrors t's source table; a table without the properties is claimed. */
int bronze_owner_check(floe_iceberg_table *table, const floe_lock_table *t);

/* ---- cdc.c: a load fed by change data capture (docs/cdc.md) ---- */

/*
 * For a table [cdc] names: read the stream up to a consistent point; sets job->cdc, the
 * snapshot to import and the keys to re-read. Does nothing for other tables and repairs.
 */
int bronze_cdc_begin(bronze_load *l);
/*
 * The same before the load (floe run --follow: every table's consistent point is taken before any
 * of the round's loads, whose reads write WAL — page pruning — that the server flushes only later,
 * and a stream waits for the WAL up to its L to be flushed). bronze_cdc_begin then does nothing.
 */
int bronze_cdc_prepare(bronze_job *job);
/* Whether the job's table is loaded by CDC ([cdc] tables, or [bronze] cdc and a key). */
bool bronze_cdc_wanted(const bronze_job *job);
/* The load's transaction imported the snapshot: the stream's holder may let it go. */
void bronze_cdc_imported(bronze_load *l);
/* Whether the batch loads in full (*why says why); else l->detail is the batch's. */
bool bronze_cdc_full(bronze_load *l, const char **why);
/* Whether the batch moves the table's floe.cdc.lsn (a commit is due even with no change). */
bool bronze_cdc_advances(const bronze_load *l);
/* The LSN a CDC load's snapshots record, the batch's line, whether repair_keys are the batch's. */
const char *bronze_cdc_lsn(const bronze_job *job);
const char *bronze_cdc_detail(const bronze_job *job);
bool bronze_cdc_is_batch(const bronze_job *job);
/* After the catalog commit: acknowledge the LSN to the slot. */
int bronze_cdc_confirm(bronze_load *l);
void bronze_cdc_end(bronze_job *job, bool ok);

/* ---- parallel.c: one full load split into key ranges ---- */

/* Every row, sorted by key when `by_key`, through one connection (load.c). */
int bronze_load_full(bronze_load *l, bool by_key);

/*
 * The full load through the connections floe.toml or --parallel give the table: key ranges of
 * the leading key column (pg_stats' histogram, else a TABLESAMPLE of keys), each read by its own
 * connection at the load's exported snapshot into its own files, gathered in key order into
 * l->out. One connection (bronze_load_full) when one is asked for or the table has no usable
 * key; l->parallel says which, and why.
 */
int bronze_parallel_load(bronze_load *l, bool by_key);

/* *out: `job` with an arena of its own, freed with job's (a thread's share of one table's work). */
void bronze_job_fork(bronze_job *out, const bronze_job *job);
/* The job's bronze table through a catalog of its own (a thread's: the caller frees both). */
int bronze_table_open_own(const bronze_job *job, floe_iceberg_catalog **cat, floe_iceberg_table **table);

/* A connection of its own (*out, the caller closes it) in a REPEATABLE READ READ ONLY transaction
 * at the load's exported snapshot `exported`: what it reads is what the load's connection reads. */
int bronze_snapshot_connect(floe_pg **out, const floe_config *config, const char *exported);

/* Load one table. Sets job->result; returns -1 on failure. */
int bronze_load_table(bronze_job *job);

#endif
