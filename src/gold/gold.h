/*
 * gold.h — gold marts from plain descriptions (docs/gold.md).
 *
 * A mart is described in marts/<name>.md: YAML front matter (mart, grain, dimensions,
 * measures, filters) and prose below it. `floe gold draft` resolves every term against
 * the silver tables of the lock (columns, keys, foreign keys); each word that does not
 * resolve becomes a numbered question written into the file under `## Questions`. When
 * none remains, the mart's dbt model, its tests and lineage are proposed on the branch
 * floe/mart/<name> of the pipeline repository.
 */
#ifndef FLOE_GOLD_GOLD_H
#define FLOE_GOLD_GOLD_H

#include "base/buf.h"
#include "config/config.h"
#include "plan/lock.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct floe_arena floe_arena;

/* ---- desc.c: the description file ---- */

/* One named term (`month: month of orders.order_purchase_timestamp`) or filter (name NULL). */
typedef struct floe_gold_term {
	const char *name;
	const char *text;
	int line, col;                    /* where the text is in the file */
} floe_gold_term;

typedef struct floe_gold_desc {
	const char *file;                 /* as given, for messages */
	const char *mart;
	int mart_line;
	floe_gold_term *grain;            /* text: the grain's name */
	size_t n_grain;
	floe_gold_term *dimensions, *measures, *filters;
	size_t n_dimensions, n_measures, n_filters;
	const char *front;                /* the front matter block, `---` lines included, as written */
	const char *prose;                /* the text after it, any `## Questions` section removed */
} floe_gold_desc;

/*
 * Parse a description (`len` bytes of `text`) into *out, everything in `arena`. Errors
 * (FLOE_ERR_CONFIG, file:line:col): no front matter, YAML outside the subset of yaml.h,
 * an unknown key (with a suggestion), a value of the wrong shape, no `mart` name.
 */
int floe_gold_desc_parse(floe_gold_desc **out, floe_arena *arena, const char *file, const char *text, size_t len);

/* ---- resolve.c: terms against silver ---- */

typedef struct floe_gold_mart floe_gold_mart;

typedef enum floe_gold_question_kind {
	FLOE_GOLD_Q_UNKNOWN_TABLE = 0,    /* a table name silver does not have */
	FLOE_GOLD_Q_UNKNOWN_COLUMN,       /* a column the table does not have */
	FLOE_GOLD_Q_UNSUPPORTED,          /* a phrase outside the grammar */
	FLOE_GOLD_Q_UNKNOWN_WORD,         /* a word that names no measure, dimension or entity */
	FLOE_GOLD_Q_NO_KEY,               /* `number of X` where X has no key */
	FLOE_GOLD_Q_AMBIGUOUS_PATH,       /* two join paths */
	FLOE_GOLD_Q_NO_PATH,              /* no many-to-one path (a join would multiply rows) */
	FLOE_GOLD_Q_GRAIN,                /* the grain names no dimension, or a dimension is outside the grain */
	FLOE_GOLD_Q_COUNT
} floe_gold_question_kind;

const char *floe_gold_question_kind_name(floe_gold_question_kind kind);

typedef struct floe_gold_question {
	floe_gold_question_kind kind;
	const char *term;                 /* "measures.revenue", "filters[1]", "grain" */
	int line;
	const char *text;                 /* the question, one paragraph of Markdown */
} floe_gold_question;

/* One additive measure's reconciliation against silver: the total over silver under the filters. */
typedef struct floe_gold_reconcile {
	const char *measure;
	const char *silver_sql;           /* dbt SQL giving one row, column `total` */
} floe_gold_reconcile;

/* A local model (Ollama API) that drafts terms the rules cannot resolve ([gold] model, endpoint). */
typedef struct floe_gold_model {
	const char *name;                 /* "qwen2.5-coder:7b" */
	const char *endpoint;             /* "http://127.0.0.1:11434" */
} floe_gold_model;

/*
 * Resolve `desc` against the silver tables of `lock`; with `model` (NULL: rules only), a measure
 * the rules leave with a question is drafted by the model and kept only when invent.c accepts
 * it. Returns a mart (-1 only with an error set); it may carry questions, and then it has no SQL.
 */
int floe_gold_resolve(floe_gold_mart **out, floe_arena *arena, const floe_gold_desc *desc, const floe_lock *lock,
		      const floe_gold_model *model);

size_t floe_gold_question_count(const floe_gold_mart *m);
const floe_gold_question *floe_gold_question_at(const floe_gold_mart *m, size_t i);

/* ---- sql.c: the proposal (only for a mart without questions) ---- */

typedef struct floe_gold_proposal {
	const char *name;                 /* the mart */
	const char *model_path, *model;   /* dbt/models/gold/<name>.sql and its text */
	const char *schema_path, *schema; /* dbt/models/gold/<name>.yml */
	const char **test_paths, **tests; /* dbt/tests/gold/<name>__reconcile_<measure>.sql */
	size_t n_tests;
	const char **reads;               /* lineage: "silver.orders.order_status", sorted */
	size_t n_reads;
	const char **tables;              /* "silver.orders", sorted */
	size_t n_tables;
	const char **grain;
	size_t n_grain;
	floe_gold_reconcile *reconcile;
	size_t n_reconcile;
} floe_gold_proposal;

int floe_gold_propose(floe_gold_proposal **out, floe_arena *arena, const floe_gold_mart *m);

/* ---- draft.c: `floe gold draft` ---- */

typedef struct floe_gold_draft_result {
	const char *mart;
	const char *file;
	floe_gold_question *questions;
	size_t n_questions;
	const floe_gold_proposal *proposal; /* NULL while questions remain */
	const char *branch;                 /* "floe/mart/<name>" when committed */
	char commit[41];                    /* "" when nothing changed */
	floe_arena *arena;
} floe_gold_draft_result;

typedef struct floe_gold_draft_opts {
	const char *pipeline_dir;         /* NULL: <project>/pipeline */
} floe_gold_draft_opts;

/*
 * Draft the mart described in `path`: resolve, then either rewrite the file's
 * `## Questions` section (questions remain) or remove it and commit the proposal on
 * floe/mart/<name>. Returns 0 either way; the questions are in the result.
 */
int floe_gold_draft(floe_gold_draft_result *out, const floe_config *config, const char *path,
		    const floe_gold_draft_opts *opts);
void floe_gold_draft_result_free(floe_gold_draft_result *r);

int floe_gold_draft_render_text(floe_buf *out, const floe_gold_draft_result *r);
int floe_gold_draft_render_json(floe_buf *out, const floe_gold_draft_result *r);

/* Rewrite a description's text with `questions` under `## Questions` (none: the section removed). */
int floe_gold_desc_with_questions(floe_buf *out, const floe_gold_desc *desc, const floe_gold_question *questions,
				  size_t n);

/* ---- run.c: `floe run --layer gold` ---- */

typedef struct floe_gold_opts {
	const char *run_id;               /* the run gold belongs to (`floe run`'s); NULL: a new run */
	const char *const *marts;         /* "monthly_revenue" or "gold.monthly_revenue"; NULL: every merged mart */
	size_t n_marts;
} floe_gold_opts;

typedef struct floe_gold_result {
	const char *mart;                 /* "monthly_revenue" */
	const char *table;                /* "gold.monthly_revenue" */
	const char *state;                /* "built" | "failed" */
	int64_t rows;                     /* rows published (-1: unknown) */
	int64_t snapshot_id;              /* published (0: none) */
	int tests_passed, tests_failed;
	double seconds;
	const char *detail;               /* rows, the tests and which failed */
	const char *error, *cause;        /* failed */
	int exit_code;                    /* failed: README "Exit codes" */
} floe_gold_result;

typedef struct floe_gold_report {
	char run_id[64];
	floe_gold_result *results;
	size_t n_results, n_failed;
	int exit_code;
	void *owned;
} floe_gold_report;

/*
 * Build every merged mart of the lock (its "marts"), each in floe's DuckDB over the silver
 * tables' current snapshots: the model as committed (a hand edit runs as edited) written into
 * gold.<name>, the grain tests and the reconciliation tests run on the written file, and one
 * commit only when all pass — else the previous snapshot stays. Outcomes go to the ledger
 * (layer gold). Returns 0 when the run happened (marts may have failed: n_failed).
 */
int floe_gold_run(floe_gold_report *out, const floe_config *config, const floe_gold_opts *opts);
void floe_gold_report_free(floe_gold_report *report);

/* report.c: `floe run`'s lines for gold (none when no mart was built), its JSON members, its exit code. */
void floe_gold_report_render_text(floe_buf *out, const floe_gold_report *report);
void floe_gold_report_render_json(floe_buf *out, const floe_gold_report *report); /* ,"gold":[…],"gold_failed":N */
int floe_gold_report_exit(const floe_gold_report *report);

#endif
