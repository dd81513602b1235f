/*
 * pentaho_int.h — what the files of src/pentaho share: a transformation being translated
 * (its steps' SQL, status and reasons) and the helpers that write SQL and Jinja safely.
 */
#ifndef FLOE_PENTAHO_INT_H
#define FLOE_PENTAHO_INT_H

#include "base/arena.h"
#include "base/buf.h"
#include "pentaho/kettle.h"
#include "pentaho/pentaho.h"

typedef struct floe_lock floe_lock;

/* One step once translated. */
typedef struct pt_step {
	floe_pentaho_status status;
	const char *reason;         /* why partial or unmapped; NULL when mapped */
	const char *rel[2];         /* the CTE holding its rows; [1]: FilterRows' false branch */
	struct pt_branch {
		const char *to, *rel;   /* SwitchCase: the CTE the hop to step `to` reads */
	} *branches;
	size_t n_branch, cap_branch;
	floe_buf sql;               /* its CTE definitions: "name as (…),\n" each */
	const char *sorted_by;      /* "a,b": the rows are known sorted by these fields; NULL unknown */
	const char *config;         /* output steps: the dbt config() arguments */
	const char *target;         /* output steps: the table written ("schema.table") */
	bool output;                /* TableOutput, InsertUpdate, Update, Delete */
	bool done;
} pt_step;

/* A transformation being translated. */
typedef struct pt_trans {
	floe_arena *a;
	const floe_kettle_file *f;
	const floe_lock *lock;      /* NULL: no lock (no table resolves to bronze) */
	pt_step *steps;             /* one per f->steps */
} pt_trans;

/* Set the step's status (the worse one wins) and reason (reasons accumulate, "; "). */
void pt_mark(pt_trans *t, size_t i, floe_pentaho_status status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* `"name"` as a SQL identifier (quotes doubled, Jinja openers neutralised), in the arena. */
const char *pt_ident(pt_trans *t, const char *name);
/* `'text'` as a SQL string literal, Jinja-safe, in the arena. */
const char *pt_lit(pt_trans *t, const char *text);
/* Append `s` so dbt's Jinja renders it as written ("{{", "{%", "{#" neutralised). */
void pt_put_jinja_safe(floe_buf *out, const char *s);
/* A Kettle value type ("Integer", "Number", "String", "Date" …) as a DuckDB type; NULL unknown. */
const char *pt_sql_type(const char *kettle_type);
/* A literal of Kettle type `type` with text `text`: 5, 'x', cast('2020-01-01' as TIMESTAMP). */
const char *pt_typed_lit(pt_trans *t, const char *type, const char *text);

/* The relation holding the rows hop from→to carries (FilterRows' branches). */
const char *pt_edge_rel(pt_trans *t, size_t from, size_t to);
/*
 * The main input of step i: its input hops except those from steps named in `info`
 * (NULL-terminated; lookup and join inputs), as one relation (a UNION ALL BY NAME CTE when
 * several). NULL when the step has no main input.
 */
const char *pt_main_input(pt_trans *t, size_t i, const char *const *info);
/* Define CTE "<rel> as (\n<body>\n)" of step i; returns rel. */
const char *pt_cte(pt_trans *t, size_t i, const char *suffix, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Fields "a,b" as `"a"<suffix>, "b"<suffix>` (ORDER BY lists). */
const char *pt_field_list(pt_trans *t, const char *fields, const char *suffix);
/* The sort order its main input carries (NULL unknown). */
const char *pt_input_sorted(pt_trans *t, size_t i);

/*
 * A whole number from the step's XML (`text`), as SQL; `fallback` when empty. Anything else
 * (text where Kettle wants a number) marks the step unmapped and gives `fallback`: numbers are
 * the only unquoted values a translator writes into SQL.
 */
const char *pt_number(pt_trans *t, size_t i, const char *what, const char *text, const char *fallback);

/* `${VAR}` / `%%VAR%%` in SQL: Internal.* resolved, others `{{ var('VAR', 'default') }}`. */
void pt_put_sql_vars(pt_trans *t, floe_buf *out, const char *text, size_t len);
/* `${VAR}` resolved to text (Internal.*, parameter defaults); unresolved ones kept as written. */
const char *pt_resolve(floe_arena *a, const floe_kettle_file *f, const char *text);

/* A FilterRows <condition> as a SQL boolean that is never NULL; NULL with *why set when it cannot. */
const char *pt_condition(pt_trans *t, const floe_kettle_node *cond, const char **why);
/* A Kettle formula (Formula step, LibFormula syntax) as SQL; NULL with *why when it does not parse. */
const char *pt_formula(pt_trans *t, const char *formula, const char **why);

/* A lower-case identifier of the name's letters and digits (at most 40; "x" when none). */
const char *pt_slug(floe_arena *a, const char *name);

/* One translation run: the result being filled and what files share. */
typedef struct pt_model_ref {
	const char *file;           /* the .ktr, relative to DIR */
	const char *model;          /* the dbt model's name */
} pt_model_ref;

typedef struct pt_run {
	floe_pentaho_result *r;
	floe_arena *a;              /* the result's arena */
	const floe_lock *lock;
	const char *name;           /* the translation's name (slug) */
	const char *project;        /* the Dagster package's project part (slug) */
	pt_model_ref *models;
	size_t n_models, cap_models;
} pt_run;

/* Add a written file to the result, and its `-- floe: check` markers to the checks. */
void pt_add_output(pt_run *run, const char *path, const char *content);
/* Record a step's outcome in the result. */
void pt_add_step(pt_run *run, const floe_kettle_file *f, size_t i, floe_pentaho_status s, const char *reason);
/* Translate a .ktr into its models. */
void pt_translate_trans(pt_run *run, const floe_kettle_file *f);
/* Translate a .kjb into its Dagster job (after every .ktr). */
void pt_translate_job(pt_run *run, const floe_kettle_file *f);
/* `text` on one line (newlines become spaces), Jinja-safe, appended to `out`. */
void pt_put_one_line(floe_buf *out, const char *text);

/* Translate step i (its inputs are translated already). */
void pt_translate_step(pt_trans *t, size_t i);

/* Translators by family (steps_*.c); each returns true when it knows the type. */
bool pt_steps_rows(pt_trans *t, size_t i);    /* input, filter, calculator, select, constants … */
bool pt_steps_join(pt_trans *t, size_t i);    /* MergeJoin, StreamLookup, DBLookup */
bool pt_steps_group(pt_trans *t, size_t i);   /* GroupBy, MemoryGroupBy, SortRows, Unique */
bool pt_steps_output(pt_trans *t, size_t i);  /* TableOutput, InsertUpdate, Update, Delete */

/* The TableInput / DBLookup table `schema.name` as `{{ source('bronze', …) }}`; NULL: not in the lock. */
const char *pt_bronze_source(pt_trans *t, const char *schema, const char *name);
/* TableInput's SQL, its tables resolved to bronze; marks the step when something is left unresolved. */
const char *pt_table_input_sql(pt_trans *t, size_t i, const char *sql);

#endif
