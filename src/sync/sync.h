/*
 * sync.h — `floe sync`: the source's schema changes, classified against the deployed lock.
 *
 * Safe changes (a new table, a new nullable column, a widened type, a dropped NOT NULL, a
 * new enum value) are committed on main of pipeline/ (the lock and every generated file).
 * Breaking ones (a rename, a drop, a narrowed type, a type Iceberg cannot evolve, a new
 * NOT NULL column without a default, a primary-key change, a watermark changed or
 * dropped, a dropped table) become a branch `floe/change/<table>/<id>` holding the
 * regenerated files and `proposals/<id>.md`; main keeps the table as deployed. A rename,
 * drop or narrowing pauses the table's loads until a person merges the branch (the
 * approval) — or the source changes back. floe never merges and never force-pushes.
 *
 * The classifier (classify.c) is a pure function of two snapshots: the deployed lock's
 * tables and the catalog's, both as floe_sync_table. A rename is recognised only by the
 * column's attribute number staying the same, never guessed from a drop and an add.
 */
#ifndef FLOE_SYNC_SYNC_H
#define FLOE_SYNC_SYNC_H

#include "base/buf.h"
#include "config/config.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct floe_arena floe_arena;
typedef struct floe_lock floe_lock;
typedef struct floe_plan floe_plan;
typedef struct floe_pg floe_pg;

typedef enum floe_sync_class {
	FLOE_SYNC_ADD_TABLE = 0,
	FLOE_SYNC_ADD_COLUMN,          /* nullable, or NOT NULL with a default */
	FLOE_SYNC_WIDEN_TYPE,
	FLOE_SYNC_DROP_NOT_NULL,
	FLOE_SYNC_SET_NOT_NULL,        /* bronze keeps the column optional; silver gains a test */
	FLOE_SYNC_ADD_ENUM_VALUE,
	FLOE_SYNC_RENAME_COLUMN,       /* first breaking class */
	FLOE_SYNC_DROP_COLUMN,
	FLOE_SYNC_NARROW_TYPE,
	FLOE_SYNC_CHANGE_TYPE,         /* Iceberg cannot evolve it in place */
	FLOE_SYNC_ADD_REQUIRED_COLUMN, /* NOT NULL without a default */
	FLOE_SYNC_CHANGE_KEY,
	FLOE_SYNC_CHANGE_WATERMARK,
	FLOE_SYNC_DROP_TABLE
} floe_sync_class;

#define FLOE_SYNC_CLASS_COUNT (FLOE_SYNC_DROP_TABLE + 1)

/* "add-table", "add-column", …: the names [policy] and the output use. */
const char *floe_sync_class_name(floe_sync_class cls);
/* The class `text` names; -1 (FLOE_ERR_CONFIG) for any other text. */
int floe_sync_class_parse(floe_sync_class *out, const char *text);
bool floe_sync_class_breaking(floe_sync_class cls);
/* Whether an open proposal of this class pauses its table's loads (rename, drop, narrowing). */
bool floe_sync_class_pauses(floe_sync_class cls);

typedef enum floe_sync_action {
	FLOE_SYNC_COMMIT = 0,
	FLOE_SYNC_BRANCH,
	FLOE_SYNC_REFUSE
} floe_sync_action;

const char *floe_sync_action_name(floe_sync_action action);

/*
 * The action for `cls`: [policy] in floe.toml when it names the class, else commit for a
 * safe class and branch for a breaking one. Errors: FLOE_ERR_CONFIG naming the valid
 * classes or actions (config/policy.c checks the whole section).
 */
int floe_sync_action_of(floe_sync_action *out, const floe_config *config, floe_sync_class cls);

/* ---- the snapshots the classifier compares ---- */

typedef struct floe_sync_column {
	const char *name;
	int attnum;
	const char *pg_type;          /* format_type(): "character varying(20)", "numeric(10,2)" */
	const char *iceberg;          /* the Iceberg type it is carried as: "long", "decimal(12,2)" */
	bool not_null;
	const char *default_expr;     /* the catalog's default; NULL: none (the lock side: unknown) */
	const char *const *enum_labels; /* an enum column's labels; n 0: not an enum (or unknown) */
	size_t n_enum_labels;
	int id;                       /* the lock side: its field id; 0 on the catalog side */
} floe_sync_column;

typedef struct floe_sync_table {
	const char *schema, *name;
	const char *bronze;           /* "bronze.orders" */
	bool loadable;                /* full or incremental (a refused table is compared by presence only) */
	const char *watermark;        /* NULL: loaded in full */
	const char *const *key;
	size_t n_key;
	const floe_sync_column *columns;
	size_t n_columns;
	const char *ddl;              /* the catalog side: the table as PostgreSQL now reports it */
} floe_sync_table;

typedef struct floe_sync_change {
	const char *schema, *table;
	floe_sync_class cls;
	const char *column;           /* its name now (before, for a drop); NULL: the table as a whole */
	const char *old_name;         /* a rename: the name before */
	int field_id;                 /* the lock's field id of the column; 0: none */
	const char *before, *after;   /* the catalog facts, one phrase each ("" where nothing was) */
	const char *what;             /* one sentence: what changed */
} floe_sync_change;

/*
 * Every difference between `deployed` (the lock's tables, removed ones left out) and `now`
 * (the catalog's tables), in table then column order, into *out (allocated in `a`).
 * Pure: no I/O. Both arrays are borrowed.
 */
int floe_sync_classify(floe_sync_change **out, size_t *n_out, floe_arena *a, const floe_sync_table *deployed,
		       size_t n_deployed, const floe_sync_table *now, size_t n_now);

/* The snapshots of a lock's tables (not removed ones) and of a plan's tables (not skipped ones), in `a`. */
int floe_sync_from_lock(floe_sync_table **out, size_t *n_out, floe_arena *a, const floe_lock *lock);
int floe_sync_from_plan(floe_sync_table **out, size_t *n_out, floe_arena *a, const floe_plan *plan);

/* ---- floe sync ---- */

typedef struct floe_sync_opts {
	const char *repropose;        /* "schema.table" or bronze name: make its rejected branch again */
} floe_sync_opts;

#define FLOE_SYNC_OPTS_INIT { .repropose = NULL }

typedef struct floe_sync_result floe_sync_result;

/*
 * Sync the project: take the sync lock (another sync holding it: FLOE_ERR_CONFLICT),
 * settle open proposals (merged, rejected, withdrawn), classify, commit what is safe on
 * main and propose the rest as branches. Nothing new: no commit and no branch.
 */
int floe_sync_run(floe_sync_result **out, const floe_config *config, const floe_sync_opts *opts);
void floe_sync_result_free(floe_sync_result *result);

int floe_sync_render_text(floe_buf *out, const floe_sync_result *result);
int floe_sync_render_json(floe_buf *out, const floe_sync_result *result);
/* Whether the sync found a change or settled a proposal (anything to print). */
bool floe_sync_has_news(const floe_sync_result *result);
/* 0, or 1 when a change was refused by [policy]. */
int floe_sync_exit_code(const floe_sync_result *result);

/* ---- pausing ---- */

/*
 * Why the table schema.name does not load now, or NULL: an open (or rejected) proposal of
 * a rename, drop or narrowing — "paused: branch floe/change/orders/1a2b3c open: column
 * status renamed to order_status; merge it to resume". Allocated in `a`. Reads
 * .floe/sync/proposals.json; never fails (an unreadable file pauses nothing, with a warning).
 */
const char *floe_sync_paused(floe_arena *a, const floe_config *config, const char *schema, const char *name);

/* ---- floe run ---- */

typedef struct floe_lock_table floe_lock_table;

/*
 * `floe run`'s first step: sync, its report appended to `out` when it found anything. A
 * sync that fails (another one holds the lock, the source is unreachable) is a warning:
 * the run goes on with the plan deployed on main. With `pg` (a source session, borrowed;
 * NULL: none) a sync whose inputs — the source's catalog, floe.toml, pipeline/, the
 * proposals — are as the last sync that found nothing left them is skipped (quiet.c).
 */
int floe_sync_before_run(floe_buf *out, const floe_config *config, floe_pg *pg);

/* floe_bronze_opts.paused: floe_sync_paused for lock table `t`; `config` is the floe_config. */
const char *floe_sync_paused_table(void *config, floe_arena *a, const floe_lock_table *t);

#endif
