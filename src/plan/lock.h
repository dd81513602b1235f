/*
 * lock.h — lakehouse.lock.json, the deployed plan: per table its load mode,
 * watermark and key, its columns with Iceberg field ids and types, and the
 * SHA-256 of every file generated for it.
 *
 * Field ids are stable across generations. A column keeps its id while its
 * attnum and name stay the same; a rename (same attnum, the old name gone, the
 * new name new) keeps it too; anything else — a new column, or one dropped and
 * added again (PostgreSQL gives it a new attnum) — gets a new id above the
 * highest ever used (`last-column-id`), so an id is never reused. Nested ids
 * (list elements, struct fields) follow their column's structure. A table that
 * leaves the plan stays in the lock as `removed`, keeping its ids for its return.
 *
 * The reader checks everything it takes from the file (it is outside input: a
 * person may edit it) and reports the JSON path of the first problem.
 */
#ifndef FLOE_PLAN_LOCK_H
#define FLOE_PLAN_LOCK_H

#include "base/buf.h"
#include "plan/plan.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FLOE_LOCK_FORMAT 1

typedef struct floe_lock floe_lock;
typedef struct floe_lock_type floe_lock_type;

typedef struct floe_lock_field {
	int id;
	const char *name;
	bool required;
	const floe_lock_type *type;
} floe_lock_field;

/* An Iceberg type with its nested field ids (the Iceberg spec's JSON shape). */
struct floe_lock_type {
	floe_plan_type_kind kind;
	const char *primitive;            /* "long" */
	int element_id;                   /* list */
	bool element_required;
	const floe_lock_type *element;
	floe_lock_field *fields;          /* struct */
	size_t n_fields;
};

typedef struct floe_lock_column {
	int id;
	const char *name;
	int attnum;
	const char *pg_type;
	const char *cls;                  /* "exact", "widening", "lossy" */
	bool required;
	const floe_lock_type *type;
} floe_lock_column;

typedef struct floe_lock_file {
	const char *path;                 /* relative to pipeline/ */
	const char *sha256;               /* of the content floe generated (not of an edit) */
} floe_lock_file;

/*
 * One data test of a silver table (docs/silver.md). `kind` decides which members are set:
 * unique, not_null, unique_combination: columns; relationships: columns, to, fields (one
 * referenced column per column); accepted_values: columns, values, quote; row_rule:
 * expression (DuckDB SQL, true for a good row); range: columns, min and/or max; regex:
 * columns, pattern; row_count: min and/or max; freshness: columns, max_age_seconds.
 * Row-level kinds (floe_lock_test_row_level) quarantine failing rows; the others fail the table.
 */
typedef struct floe_lock_test {
	const char *name;                 /* unique within the table; the dbt test's name */
	const char *kind;
	const char **columns;
	size_t n_columns;
	const char *severity;             /* "error" or "warn" */
	const char *origin;               /* "primary key", "foreign key <name>", "quality/<file>.toml", ... */
	const char *to;                   /* relationships: "silver.customers"; NULL otherwise */
	const char **fields;              /* relationships: the referenced columns */
	size_t n_fields;
	const char **values;              /* accepted_values: the values as text */
	size_t n_values;
	bool quote;                       /* accepted_values: the values are strings (quoted in SQL) */
	const char *expression;           /* row_rule */
	const char *pattern;              /* regex */
	const char *min, *max;            /* range, row_count: JSON number text; NULL: unbounded */
	int64_t max_age_seconds;          /* freshness */
} floe_lock_test;

typedef struct floe_lock_silver_column {
	const char *name;
	int id;                           /* the bronze column's field id */
	const floe_lock_type *type;       /* the bronze column's Iceberg type */
	const char *description;          /* the column comment; NULL: none */
	const char *pii;                  /* "hmac", "null"; NULL: clear */
} floe_lock_silver_column;

/* The silver table built from a bronze table (docs/silver.md). */
typedef struct floe_lock_silver {
	const char *table;                /* "silver.orders" */
	const char *model;                /* "dbt/models/silver/orders.sql", relative to pipeline/ */
	const char *materialized;         /* "incremental" (bronze incremental) or "table" */
	const char **unique_key;          /* the primary key; none: n_unique_key 0 */
	size_t n_unique_key;
	const char *description;          /* the table comment; NULL: none */
	floe_lock_silver_column *columns;
	size_t n_columns;
	floe_lock_test *tests;
	size_t n_tests;
	bool history;                     /* silver.<table>_history is kept */
} floe_lock_silver;

/* Whether a test of `kind` judges rows one by one (failing rows quarantined) rather than the table. */
bool floe_lock_test_row_level(const char *kind);

typedef struct floe_lock_table {
	const char *schema, *name, *bronze;
	floe_load_mode mode;              /* incremental, full, refused or removed */
	const char *reason;
	const char *watermark;            /* NULL: none */
	const char **key;
	size_t n_key;
	int last_column_id;
	floe_lock_column *columns;
	size_t n_columns;
	floe_lock_file *files;
	size_t n_files;
	const char *owner;                /* "schema.table" of another table owning `bronze`; NULL: its own */
	const floe_lock_silver *silver;   /* NULL: no silver table (refused, removed, or not generated yet) */
} floe_lock_table;

/*
 * A gold mart merged into the pipeline (docs/gold.md), the lock's top-level "marts": its
 * table, its dbt model, the silver tables it reads, its grain columns, the hash of the model
 * floe drafted and every file of the mart with the hash of what floe wrote (a hand edit is drift).
 */
typedef struct floe_lock_mart {
	const char *name;                 /* "monthly_revenue" */
	const char *table;                /* "gold.monthly_revenue" */
	const char *model;                /* "dbt/models/gold/monthly_revenue.sql" */
	const char **reads;               /* "silver.orders", sorted */
	size_t n_reads;
	const char **grain;
	size_t n_grain;
	const char *hash;                 /* SHA-256 of the model as drafted */
	floe_lock_file *files;            /* model, schema file, data tests */
	size_t n_files;
} floe_lock_mart;

size_t floe_lock_mart_count(const floe_lock *lock);
const floe_lock_mart *floe_lock_mart_at(const floe_lock *lock, size_t i);
const floe_lock_mart *floe_lock_mart_find(const floe_lock *lock, const char *name);

/* Add or replace (by name) a mart: a deep copy into the lock's arena; marts stay sorted by name. */
void floe_lock_set_mart(floe_lock *lock, const floe_lock_mart *mart);

/* Parse lock text; `name` labels messages. Errors: FLOE_ERR_CONFIG with the JSON path. */
int floe_lock_parse(floe_lock **out, const char *name, const char *text, size_t len);

/* Read the file at `path`; a missing file is an empty lock. */
int floe_lock_load(floe_lock **out, const char *path);

void floe_lock_free(floe_lock *lock);

size_t floe_lock_count(const floe_lock *lock);
const floe_lock_table *floe_lock_at(const floe_lock *lock, size_t i);
const floe_lock_table *floe_lock_find(const floe_lock *lock, const char *schema, const char *name);

/*
 * The table of `lock` (NULL: none) other than schema.name that owns the bronze name
 * `bronze` (floe_plan_same_name): one that was deployed loadable under it at least
 * once (it has field ids), so its Iceberg table may hold its rows — removed from the
 * plan or refused since, it keeps the name. NULL: no other table owns it.
 */
const floe_lock_table *floe_lock_name_owner(const floe_lock *lock, const char *schema, const char *name,
					    const char *bronze);

/*
 * Whether `name` names the table: its bronze name ("bronze.orders") — unless another
 * table owns that name (t->owner) — or "schema.table".
 */
bool floe_lock_table_named(const floe_lock_table *t, const char *name);

/* The generated hash recorded for `path` (a table's file or a project file), NULL when the lock has none. */
const char *floe_lock_file_hash(const floe_lock *lock, const char *path);

/* Project files (not of one table: pipeline/dbt/dbt_project.yml, ...), in the lock's top-level "files". */
size_t floe_lock_project_file_count(const floe_lock *lock);
const floe_lock_file *floe_lock_project_file_at(const floe_lock *lock, size_t i);

/* Record a project file (path relative to pipeline/) with its generated hash; a path already there is updated. */
void floe_lock_add_project_file(floe_lock *lock, const char *path, const char *sha256);

/*
 * Give table schema.name of `lock` its silver section: a deep copy of `silver` into the lock's
 * arena (the caller keeps `silver`). Returns -1 when the lock has no such table.
 */
int floe_lock_set_silver(floe_lock *lock, const char *schema, const char *name, const floe_lock_silver *silver);

/*
 * The lock for `plan`, with ids carried over from `previous` (NULL or an empty
 * lock: the first generation). Each loadable table lists its file with no hash yet: set it with
 * floe_lock_set_file_hash once the content is known.
 */
int floe_lock_build(floe_lock **out, const floe_plan *plan, const floe_lock *previous);

/*
 * Table schema.name of `next` as `prev` has it (columns, ids, silver, file hashes), or gone
 * from `next` when `prev` has no such table: a change held back (floe sync). `next` shares
 * prev's strings, so it is valid while `prev` lives.
 */
void floe_lock_keep_table(floe_lock *next, const floe_lock *prev, const char *schema, const char *name);

void floe_lock_set_file_hash(floe_lock *lock, const char *path, const char *sha256);

/* Add (or update) a file of table schema.name with its generated hash (its dbt model, ...). */
void floe_lock_add_table_file(floe_lock *lock, const char *schema, const char *name, const char *path,
			      const char *sha256);

/* The file's text: pretty JSON, one column per line, deterministic. */
int floe_lock_render(floe_buf *out, const floe_lock *lock);

/*
 * What changed from `before` to `after`, one line each ("public.orders: new column note, id 7"),
 * names shown printable (floe_text_put_printable): the lines go to a terminal and a commit message.
 */
int floe_lock_describe_changes(floe_buf *out, const floe_lock *before, const floe_lock *after);

#endif
