/*
 * reconcile_int.h — what the files of src/reconcile share and nobody else sees:
 * the column model both sides are built from, the SQL each side runs, the
 * numbers each side returns, and the planted control.
 *
 * Both sides name every column c<field id> (the source's extraction query is
 * wrapped as `(…) AS s(c1, c2, …)`, the lake's Parquet columns are mapped by field
 * id to those names), so no table or column name of the user's ever reaches the
 * SQL floe writes here.
 */
#ifndef FLOE_RECONCILE_RECONCILE_INT_H
#define FLOE_RECONCILE_RECONCILE_INT_H

#include "iceberg/table.h"
#include "reconcile/reconcile.h"

/* The two dialects: PostgreSQL (the source) and DuckDB (the lake). */
typedef enum rc_dialect { RC_PG = 0, RC_DUCK } rc_dialect;

typedef enum rc_kind {
	RC_BOOL = 0,
	RC_INT,
	RC_LONG,
	RC_FLOAT,
	RC_DOUBLE,
	RC_DECIMAL,
	RC_STRING,
	RC_BINARY,
	RC_DATE,
	RC_TIME,
	RC_TIMESTAMP,
	RC_TIMESTAMPTZ,
	RC_UUID,
	RC_LIST,
	RC_STRUCT,
	RC_OTHER /* anything floe has no form for: counted where read, not compared */
} rc_kind;

/*
 * A column's type, recursive: lists of any type but lists, structs of any types
 * (a PostgreSQL composite type, an array of composites: list<struct>).
 */
typedef struct rc_type rc_type;
typedef struct rc_field rc_field;
struct rc_type {
	rc_kind kind;
	int precision, scale;  /* decimal */
	bool padded;           /* the source's value is character(n): its padding is part of the value */
	const rc_type *element;/* list */
	const rc_field *fields;/* struct, in the source's attribute order */
	size_t n_fields;
};

struct rc_field {
	const char *name;      /* the lock's name */
	int field_id;
	rc_type type;
};

typedef struct rc_column {
	const char *name;      /* the lock's name (for people only) */
	int field_id;
	char ident[16];        /* "c<field id>" on both sides */
	rc_type type;
	bool key;              /* part of the primary key */
	bool hashed;           /* part of the row's hash (V3) */
	const char *excluded;  /* why not hashed, or NULL */
	const char *duck_type; /* "DECIMAL(12,3)", "VARCHAR[]", 'STRUCT("a" INTEGER)[]'; NULL: not read from the lake */
} rc_column;

typedef struct rc_table {
	const floe_lock_table *lock;
	rc_column *cols;
	size_t n;
	bool key_is_row;       /* no usable primary key: buckets hash the whole row */
	const char *cover;     /* " IN (3, 7, …)": the buckets whose rows V3 hashes in full (coverage.c);
	                          NULL: every bucket. Other rows count by their key's hash alone. */
	int pg_version;        /* server_version_num of the source */
	const int64_t *deleted_rids; /* rows position deletes remove (file index << 32 | position), sorted */
	size_t n_deleted_rids;
} rc_table;

/* ---- canon.c: the column model and every SQL expression, per dialect ---- */

/*
 * The columns of `lock` as both sides see them; `oids` / `elem_oids` are the
 * extraction query's described result types (bpchar keeps its padding).
 */
int rc_table_build(rc_table *out, floe_arena *arena, const floe_lock_table *lock, const uint32_t *oids,
		   const uint32_t *elem_oids, size_t n_oids);

/* A struct, or a list of them. */
bool rc_type_holds_struct(const rc_type *type);

/* The canonical text of `expr` (a value of `type`), NULL for NULL. */
void rc_canon(floe_buf *out, rc_dialect d, const rc_type *type, const char *expr);

/* The key's canonical text (the whole row's without a key), for listing keys. Never NULL. */
void rc_key_text(floe_buf *out, const rc_table *t, rc_dialect d);

/*
 * Hashes, as int8/BIGINT expressions that are never NULL (docs/reconcile.md). A column's
 * hash depends on its value, its field id and a seed; an XOR combines columns.
 *
 * rc_key_hash: the key's columns (the whole row's without a key) under `seed`.
 * rc_row_key_hash / rc_row_rest_hash: the key's columns and the other hashed columns
 * under the row seed; their XOR, mixed (rc_hash_of), is the row's hash, and the key's
 * part alone gives the row its bucket (rc_bucket_of), so a query that computes both
 * parts once (as k and x) needs no column hashed twice.
 */
void rc_key_hash(floe_buf *out, const rc_table *t, rc_dialect d, int64_t seed);
void rc_row_key_hash(floe_buf *out, const rc_table *t, rc_dialect d);
void rc_row_rest_hash(floe_buf *out, const rc_table *t, rc_dialect d);
/* rc_row_rest_hash for the buckets t->cover names, 0 for the others' rows (every row's without a cover). */
void rc_row_rest_hash_covered(floe_buf *out, const rc_table *t, rc_dialect d, int64_t buckets);
/* ((key_hash % B) + B) % B, or 0 when B is 1. */
void rc_bucket_of(floe_buf *out, const char *key_hash, int64_t buckets);
/* The row's hash from its two parts. */
void rc_hash_of(floe_buf *out, rc_dialect d, const char *key_hash, const char *rest_hash);
/* The same with the parts computed inline. */
void rc_bucket_expr(floe_buf *out, const rc_table *t, rc_dialect d, int64_t buckets);
void rc_hash_expr(floe_buf *out, const rc_table *t, rc_dialect d);

/* Number of buckets for a table of `rows` rows: about 10 000 rows each, at most 4096. */
int64_t rc_bucket_count(int64_t rows);

/* One V2 measure: partial aggregate per group, combined across groups, then canonical text. */
typedef enum rc_combine { RC_SUM = 0, RC_MIN, RC_MAX } rc_combine;
typedef enum rc_rule { RC_EXACT = 0, RC_FLOAT_VALUE, RC_FLOAT_SUM } rc_rule;

typedef struct rc_metric {
	int col;               /* index into the table's columns; -1: the table ("rows") */
	const char *name;
	rc_combine combine;
	rc_rule rule;
	bool distinct;         /* count(DISTINCT …): not combinable, computed over the whole side */
} rc_metric;

/* The metrics of `tier` (V1: rows only) for a table of about `rows` rows. */
int rc_metrics_build(rc_metric **out, size_t *n_out, floe_arena *arena, const rc_table *t,
		     floe_reconcile_tier tier, int64_t rows);

/* `m`'s partial aggregate over the table's columns, as "<expr> AS m<i>". */
void rc_metric_partial(floe_buf *out, const rc_table *t, rc_dialect d, const rc_metric *m, size_t i);
/* `m`'s final text over partials named m<i> (combined with sum/min/max). */
void rc_metric_final(floe_buf *out, const rc_table *t, rc_dialect d, const rc_metric *m, size_t i);

/* ---- the numbers a side returns ---- */

typedef struct rc_bucket_row {
	int64_t bucket, rows;
	const char *sum;
} rc_bucket_row;

typedef struct rc_side {
	const char **values;   /* per metric, text or NULL */
	rc_bucket_row *buckets;/* V3, ordered by bucket */
	size_t n_buckets;
	double seconds;
} rc_side;

/* ---- source.c: PostgreSQL ---- */

typedef struct rc_source rc_source;

/*
 * Connect as the configured source role, apply the plan's session settings, begin
 * REPEATABLE READ READ ONLY (importing `pg_snapshot` when given), check that the
 * server's hashtextextended is the one the lake computes, and describe the
 * extraction query `sql`.
 */
int rc_source_open(rc_source **out, floe_arena *arena, const floe_config *config, const char *sql,
		   const char *pg_snapshot, uint32_t **oids, uint32_t **elem_oids, size_t *n_oids);
const char *rc_source_position(const rc_source *src);
int rc_source_version(const rc_source *src);
int rc_source_measure(rc_side *out, rc_source *src, floe_arena *arena, const rc_table *t,
		      const rc_metric *metrics, size_t n_metrics, int64_t buckets, floe_reconcile_tier tier);
/* ` FROM (<extraction query>) AS s(c<id>, …)` appended to `q`. */
void rc_source_from(floe_buf *q, const rc_source *src, const rc_table *t);
/* Run a query of floe's in the source transaction. */
struct floe_pg_result;
int rc_source_query(struct floe_pg_result **out, rc_source *src, const char *sql);
void rc_source_close(rc_source *src);

/* ---- lake.c: DuckDB over the snapshot's Parquet files ---- */

typedef struct rc_lake rc_lake;

/*
 * `paths`: the snapshot's data files (local paths). Creates the views `lake` (rid, the
 * row's id: file index << 32 | row number; c<id>…) and `lake_b` (lake and its bucket b).
 */
int rc_lake_open(rc_lake **out, floe_arena *arena, const rc_table *t, const char *const *paths, size_t n_paths,
		 int64_t buckets);
int rc_lake_measure(rc_side *out, rc_lake *lake, floe_arena *arena, const rc_metric *metrics, size_t n_metrics,
		    floe_reconcile_tier tier);
/*
 * The measures again with bucket `bucket` replaced by the rows of `altered_sql` (a
 * SELECT of the view lake's shape: rid, c<id>…); count(DISTINCT) values are taken
 * from `real` (they do not combine across buckets).
 */
int rc_lake_measure_altered(rc_side *out, rc_lake *lake, floe_arena *arena, const rc_metric *metrics,
			    size_t n_metrics, floe_reconcile_tier tier, int64_t bucket, const char *altered_sql,
			    const rc_side *real);
/*
 * DuckDB reads a struct's fields from a file by name, not by field id: a column whose
 * files (`paths`) hold one of its nested fields under a name the lock does not give
 * that field id is excluded from `t` (not read), with why.
 */
int rc_lake_check_fields(rc_table *t, floe_arena *arena, const char *const *paths, size_t n_paths);

/* The rows the scan's position deletes remove (merge-on-read), for the lake to leave out. */
void rc_table_deleted(rc_table *t, floe_arena *arena, const floe_iceberg_scan *scan);
/* Run a small query (probes); the result is the engine's, freed by the caller. */
struct floe_engine_result;
int rc_lake_query(struct floe_engine_result **out, rc_lake *lake, const char *sql);
const rc_table *rc_lake_table(const rc_lake *lake);
/*
 * The first rc_lake_measure keeps the rows of one bucket (rc_lake_kept, -1: none) in the
 * table lake_kept (lake_b's shape), so the control plants there without reading the files
 * again; rc_lake_rows_of names where bucket `bucket`'s rows are: lake_kept or lake_b.
 */
int64_t rc_lake_kept(const rc_lake *lake);
const char *rc_lake_rows_of(const rc_lake *lake, int64_t bucket);
int64_t rc_lake_buckets(const rc_lake *lake);
void rc_lake_close(rc_lake *lake);

/* ---- compare.c ---- */

typedef struct rc_diff {
	floe_reconcile_metric *metrics;   /* one per metric, both sides */
	size_t n_metrics, n_metric_diffs;
	floe_reconcile_bucket *buckets;   /* the diverged ones */
	size_t n_buckets;
	int64_t source_rows, lake_rows;
} rc_diff;

void rc_compare(rc_diff *out, floe_arena *arena, const rc_table *t, const rc_metric *metrics, size_t n_metrics,
		const rc_side *source, const rc_side *lake);

/* ---- coverage.c: the buckets a rotating V3 hashes in full ---- */

typedef struct rc_coverage {
	bool rotating;         /* fewer than every bucket (t->cover set) */
	int64_t covered;       /* buckets hashed in full */
	int64_t touched;       /* of them, holding rows the run changed */
	int64_t share;         /* the rotating share: buckets b with b % cycle == share */
	int64_t cycle;         /* runs to cover every bucket: min(full-every, buckets) */
} rc_coverage;

/*
 * Decide the cover for `req` (its full_every, changed_since and share) over `buckets`, setting
 * t->cover when it is not every bucket; the touched buckets are found at src's snapshot.
 */
int rc_coverage_plan(rc_coverage *out, floe_arena *arena, rc_source *src, rc_table *t,
		     const floe_reconcile_request *req, int64_t buckets);

/* ---- keys.c: diverged buckets narrowed to keys ---- */

int rc_narrow(floe_reconcile_key **out, size_t *n_out, floe_arena *arena, rc_source *src, rc_lake *lake,
	      const rc_table *t, int64_t buckets, const floe_reconcile_bucket *diverged, size_t n_diverged,
	      size_t max_keys);

/* ---- control.c: the planted control ---- */

typedef struct rc_control_run {
	const char *name;
	const char *detail;
	bool fired;
} rc_control_run;

/*
 * The control in two steps, so the lake's part runs while PostgreSQL still measures.
 * rc_control_plant: choose a control applicable to the table (rotating from `seq`, or
 * `name`; `none` plants none), plant it into one bucket of the lake side and measure
 * that copy; `lake_side` is the lake's clean measurement. The plan lives in `arena`.
 * rc_control_judge: check the comparison reports exactly that difference against
 * `real` (the clean comparison with `source`); V2's part only when `aggregates` (the
 * metrics hold the column aggregates: a full V3 judges V1 and its buckets).
 */
typedef struct rc_control_plan rc_control_plan;
int rc_control_plant(rc_control_plan **out, floe_arena *arena, rc_lake *lake, const rc_metric *metrics,
		     size_t n_metrics, floe_reconcile_tier tier, const rc_side *lake_side, const char *name,
		     uint64_t seq);
void rc_control_judge(rc_control_run *out, floe_arena *arena, const rc_control_plan *plan, const rc_table *t,
		      const rc_metric *metrics, size_t n_metrics, floe_reconcile_tier tier, bool aggregates,
		      const rc_side *source, const rc_diff *real);

/* ledger.c: the result in the run ledger; a ledger failure is logged, never the outcome. */
typedef struct floe_state floe_state;
void rc_record(floe_state *st, const floe_reconcile_result *r, const char *started);
/*
 * Reconcile (the control rotating on the table's count of results) and record the result;
 * `repaired` says what repair came before (NULL: none — the ledger's attempt 0, else 1).
 */
floe_reconcile_result *rc_reconcile_recorded(floe_state *st, floe_arena *arena, floe_reconcile_request *req,
					     const char *repaired);

/* check.c: a result's narrowed keys, row-major, as floe_bronze_repair takes them; 0 keys when one is incomplete. */
size_t rc_repair_keys(const char *const **out, floe_arena *arena, const floe_reconcile_result *r, size_t width);

#endif
