/*
 * plan.h — `floe plan`: what floe will do with each table of the selected
 * schemas, and why.
 *
 * Per table: the load mode (incremental only when a watermark column is proven
 * to move on every change, see watermark.c and proof.h; full otherwise; refused
 * when the table cannot be loaded whole and exactly; skipped for views and the
 * like), the primary key, and every column's PostgreSQL → Iceberg v2 mapping
 * with its class (exact, widening, lossy, refused) from the one type table in
 * typemap.c — the same table `floe plan --types` prints and docs/types.md holds.
 *
 * A floe_plan is an opaque handle owning everything it hands out; the structs
 * below are read-only views, valid until floe_plan_free().
 */
#ifndef FLOE_PLAN_PLAN_H
#define FLOE_PLAN_PLAN_H

#include "base/buf.h"
#include "config/config.h"
#include "pg/introspect.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct floe_arena floe_arena;
typedef struct floe_lock floe_lock;

/* ---- the type table (typemap.c) ---- */

typedef enum floe_type_class {
	FLOE_CLASS_EXACT = 0, /* every value arrives unchanged */
	FLOE_CLASS_WIDENING,  /* into a wider type; every value fits */
	FLOE_CLASS_LOSSY,     /* something is dropped; the note says what */
	FLOE_CLASS_REFUSED    /* not carried; the table is refused */
} floe_type_class;

const char *floe_type_class_name(floe_type_class cls);

typedef enum floe_plan_type_kind {
	FLOE_PLAN_PRIMITIVE = 0,
	FLOE_PLAN_LIST,
	FLOE_PLAN_STRUCT
} floe_plan_type_kind;

/* An Iceberg v2 type. Field ids are not part of it: lakehouse.lock.json assigns them. */
typedef struct floe_plan_type floe_plan_type;
struct floe_plan_type {
	floe_plan_type_kind kind;
	const char *primitive;            /* "long", "decimal(12,2)", "string" */
	const floe_plan_type *element;    /* list; elements are optional (PostgreSQL arrays hold NULLs) */
	const char **field_names;         /* struct: names and types, in order */
	const floe_plan_type **field_types;
	size_t n_fields;
};

/* "list<string>", "struct<a: int, b: string>". */
int floe_plan_type_text(floe_buf *out, const floe_plan_type *type);

/* One row of the type table. */
typedef struct floe_type_rule {
	const char *key;       /* pg_catalog type name it matches, or "#array", "#enum", ... */
	const char *pg;        /* the PostgreSQL type as docs/types.md names it */
	const char *iceberg;   /* the Iceberg type, "decimal(P,S)", "list<T>", "—" when refused */
	floe_type_class cls;
	const char *cast;      /* extraction cast, "text" or "oid::int8"; NULL: none */
	const char *note;      /* the loss, the reason, or what to know */
} floe_type_rule;

size_t floe_type_rule_count(void);
const floe_type_rule *floe_type_rule_at(size_t i);

/* How one column (or attribute, or element) is carried. */
typedef struct floe_plan_mapping {
	const floe_plan_type *type;  /* NULL when refused */
	floe_type_class cls;
	const floe_type_rule *rule;  /* the row that decided */
	const char *note;            /* the loss, reason or caveat for this column; "" when none */
	const char *extract;         /* the extraction SELECT's expression: "col", "col"::text */
	bool converted;              /* extract is more than the bare expression */
} floe_plan_mapping;

/*
 * Map a value of `type` (with `typmod`, -1 when none), read by the SQL expression
 * `expr` (a quoted column name), into *out, allocated in `arena`.
 */
int floe_plan_map_type(floe_plan_mapping *out, floe_arena *arena, const floe_pg_type *type, int typmod,
		       const char *expr);

/* The whole type table as docs/types.md's Markdown table / as JSON. */
int floe_plan_types_markdown(floe_buf *out);
int floe_plan_types_json(floe_buf *out);

/* ---- the plan ---- */

typedef enum floe_load_mode {
	FLOE_LOAD_INCREMENTAL = 0,
	FLOE_LOAD_FULL,
	FLOE_LOAD_REFUSED,
	FLOE_LOAD_SKIPPED,
	FLOE_LOAD_REMOVED         /* lakehouse.lock.json only: a table that left the plan (lock.h) */
} floe_load_mode;

/* The mode's name as the plan, the lock and the run ledger write it: "incremental", … */
const char *floe_load_mode_name(floe_load_mode mode);
/* The mode `text` names (floe_load_mode_name's inverse); -1 (FLOE_ERR_CONFIG) for any other text. */
int floe_load_mode_parse(floe_load_mode *out, const char *text);
/* Whether a table of this mode is loaded: full or incremental. */
bool floe_load_mode_loadable(floe_load_mode mode);

typedef struct floe_plan_column {
	const char *name;
	const char *quoted;          /* the identifier as SQL needs it */
	int attnum;
	const char *pg_type;         /* "numeric(12,2)" */
	bool required;               /* NOT NULL */
	bool visible;                /* the role may SELECT it */
	floe_plan_mapping map;
} floe_plan_column;

/* A timestamp column considered as the watermark, proven or not, and why. */
typedef struct floe_plan_candidate {
	const char *column;
	bool proven;
	const char *reason;
} floe_plan_candidate;

/*
 * What silver tests of a CHECK constraint (check.c): `CHECK (col IN (…))` and
 * `col = ANY (ARRAY[…])` become accepted_values, other expressions DuckDB evaluates
 * alike (comparisons, AND/OR/NOT, IS NULL, IN lists, + - * % on columns and literals,
 * casts to plain types, length/lower/upper) a row rule; anything else is left out, why_not saying why.
 */
typedef struct floe_plan_check {
	const char *name;
	const char *definition;      /* pg_get_constraintdef() */
	const char *kind;            /* "accepted_values", "row_rule"; NULL: not tested */
	const char *column;          /* accepted_values: the column */
	const char **values;         /* accepted_values: the values as text */
	size_t n_values;
	bool quote;                  /* the values are strings */
	const char *expression;      /* row_rule: DuckDB SQL over the row's columns (NULL passes, as in a CHECK) */
	const char **columns;        /* the columns it reads */
	size_t n_columns;
	const char *why_not;         /* not tested: why, one phrase */
} floe_plan_check;

/* `s` between `quote` characters, each inside doubled: a SQL identifier ('"') or string literal ('\''). */
void floe_plan_put_quoted(floe_buf *out, const char *s, char quote);

typedef struct floe_plan_table {
	const char *schema, *name;
	const char *kind;            /* "table", "partitioned table", "view", ... */
	const char *bronze;          /* "bronze.orders", "bronze.sales__targets" */
	const char *file;            /* "bronze/orders.sql" */
	floe_load_mode mode;
	const char *reason;          /* why this mode, one sentence */
	const char **notes;          /* further facts ("unlogged: …", "3 partitions load through …") */
	size_t n_notes;
	const char **key;            /* primary key column names; n_key 0: none */
	size_t n_key;
	const char *watermark;       /* incremental: the proven column */
	floe_plan_candidate *candidates;
	size_t n_candidates;
	floe_plan_column *columns;
	size_t n_columns;
	const char *sql;             /* the extraction query; NULL unless full or incremental */
	const floe_pg_relation *source; /* the catalog facts it was planned from (comments, keys, constraints) */
	floe_plan_check *checks;     /* its CHECK constraints as silver tests them */
	size_t n_checks;
} floe_plan_table;

typedef struct floe_plan floe_plan;

/*
 * Connect to the source as configured, introspect the selected schemas and plan,
 * with the bronze names the deployed plan (pipeline/lakehouse.lock.json) gave out.
 */
int floe_plan_build(floe_plan **out, const floe_config *config);

/*
 * Plan from relations already read (floe_pg_relations_inspect). `arena` holds
 * them and passes to the plan, which frees it. `role` names the source role in
 * reasons. `deployed` (NULL: none) is the lock of the plan deployed before: a
 * bronze name it gives to a table stays that table's (floe_lock_name_owner).
 */
int floe_plan_from_relations(floe_plan **out, const floe_config *config, const char *role,
			     floe_arena *arena, const floe_pg_relation *rels, size_t n_rels,
			     const floe_lock *deployed);

void floe_plan_free(floe_plan *plan);

/* Tables in schema, name order: loadable, refused and skipped alike. */
size_t floe_plan_count(const floe_plan *plan);
const floe_plan_table *floe_plan_at(const floe_plan *plan, size_t i);
size_t floe_plan_count_mode(const floe_plan *plan, floe_load_mode mode);
const char *floe_plan_database(const floe_plan *plan);

int floe_plan_render_text(floe_buf *out, const floe_plan *plan);
int floe_plan_render_json(floe_buf *out, const floe_plan *plan);

/* ---- names (naming.c) ---- */

/* "bronze.<table>" for schema public, "bronze.<schema>__<table>" otherwise. */
const char *floe_plan_bronze_name(floe_arena *arena, const char *schema, const char *table);

/*
 * Whether two bronze names are one name to the engines that read bronze: DuckDB,
 * Trino and Spark compare identifiers without case, so ASCII letters are folded.
 */
bool floe_plan_same_name(const char *a, const char *b);

/*
 * Why Iceberg cannot hold `bronze_name` as a table name (it has '/', '.' or a
 * control character), one sentence in `arena`; NULL: it can.
 */
const char *floe_plan_name_problem(floe_arena *arena, const char *bronze_name);

/*
 * "bronze/<stem>.sql": the bronze name without "bronze." when it is made of
 * [a-z0-9_] only; otherwise a lower-case ASCII slug of it and "-" with 12 hex
 * digits of its SHA-256, so any name gives a safe, unique and stable file name.
 */
const char *floe_plan_file_name(floe_arena *arena, const char *bronze_name);

/* The extraction query of a loadable table (also in floe_plan_table.sql). */
const char *floe_plan_extract_sql(floe_arena *arena, const floe_plan_table *table,
				  const char *quoted_relation);

/* Session settings the extraction query runs under (NULL-terminated name, value pairs). */
extern const char *const floe_plan_session_settings[];

/* Apply those settings to a source session (set_config, for the session). */
int floe_plan_session_apply(floe_pg *pg);

#endif
