/*
 * gen.h — `floe generate`: writes pipeline/ as a git repository and commits
 * bronze/<table>.sql (each table's extraction query) and lakehouse.lock.json
 * (the deployed plan with field ids and the hash of every generated file).
 *
 * A file whose content differs from what floe last generated (the hash in the
 * previous lock) was edited by a person: it is kept, reported as drift, and the
 * lock records the hash of what floe would have written, so the drift stays
 * visible. Deleting such a file lets floe write it again. Generating again with
 * nothing changed makes no commit. The dbt and Dagster emitters will join here.
 */
#ifndef FLOE_GEN_GEN_H
#define FLOE_GEN_GEN_H

#include "base/buf.h"
#include "config/config.h"
#include "plan/lock.h"
#include "plan/plan.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum floe_gen_action {
	FLOE_GEN_ADDED = 0,   /* written for the first time */
	FLOE_GEN_UPDATED,     /* rewritten: the plan changed and nobody had edited it */
	FLOE_GEN_UNCHANGED,
	FLOE_GEN_RESTORED,    /* it was missing and is written again */
	FLOE_GEN_KEPT,        /* edited by hand: left as it is (drift) */
	FLOE_GEN_REMOVED,     /* its table left the plan; it was unedited */
	FLOE_GEN_ORPHANED     /* its table left the plan, but it was edited: left (drift) */
} floe_gen_action;

const char *floe_gen_action_name(floe_gen_action action);

typedef struct floe_gen_file {
	const char *path;     /* relative to pipeline/ */
	floe_gen_action action;
} floe_gen_file;

typedef struct floe_gen_result floe_gen_result;

typedef struct floe_gen_opts {
	const char *dir;      /* NULL: <project>/pipeline */
	/* Tables ("schema.table") kept as the previous lock has them: their changes held back (floe sync). */
	const char *const *hold;
	size_t n_hold;
	const char *title;    /* the commit message's first words; NULL: "floe generate" */
} floe_gen_opts;

#define FLOE_GEN_OPTS_INIT { .dir = NULL }

/*
 * The silver model `floe generate` writes for `t` (t->silver set), in `a`: the text of
 * pipeline/dbt/<t->silver->model>. `dedup` false: the same model without the numbering that keeps
 * one row per key — what silver runs when it proved bronze unique on the key (docs/silver.md).
 */
const char *floe_gen_dbt_model(floe_arena *a, const floe_config *config, const floe_lock_table *t, bool dedup);

/* Plan the source (floe_plan_build) and generate. */
int floe_gen_run(floe_gen_result **out, const floe_config *config, const floe_gen_opts *opts);

/* Generate from a plan already built (and the configuration it was built from), into `dir`. */
int floe_gen_from_plan(floe_gen_result **out, const floe_plan *plan, const floe_config *config, const char *dir);

/* The same, with options (opts->dir: NULL means the project's pipeline/). */
int floe_gen_from_plan_opts(floe_gen_result **out, const floe_plan *plan, const floe_config *config,
			    const floe_gen_opts *opts);

void floe_gen_result_free(floe_gen_result *result);

size_t floe_gen_file_count(const floe_gen_result *result);
const floe_gen_file *floe_gen_file_at(const floe_gen_result *result, size_t i);
bool floe_gen_has_drift(const floe_gen_result *result);
/* The commit id, or NULL when nothing changed. */
const char *floe_gen_commit(const floe_gen_result *result);

/*
 * The Airflow DAG of `lock` (tables and their silver sections) and of the "marts" array of
 * `lock_json` (the same lock as text; the gold layer writes that array) for `config` (project
 * name, schedule, [publish], credential variable names), appended to `out` (airflow.c,
 * docs/airflow.md). `floe generate` writes it to pipeline/airflow/dags/floe_<project>.py.
 */
typedef struct floe_lock floe_lock;
int floe_gen_airflow_dag(floe_buf *out, const floe_lock *lock, const char *lock_json, const floe_config *config);

/*
 * The Airflow DAG `floe generate` would write for `lock` (its marts included): its path under
 * pipeline/ in `rel` (NULL, and nothing done, when [orchestrators] airflow = false) and its text
 * appended to `content`; the file's hash recorded in `lock`. A proposal that changes the lock's
 * marts (floe gold draft) commits it too, so merging the branch leaves `floe generate` nothing to do.
 */
typedef struct floe_arena floe_arena;
int floe_gen_airflow_for_lock(const char **rel, floe_buf *content, floe_lock *lock, const floe_config *config,
			      floe_arena *a);

int floe_gen_render_text(floe_buf *out, const floe_gen_result *result);
int floe_gen_render_json(floe_buf *out, const floe_gen_result *result);

#endif
