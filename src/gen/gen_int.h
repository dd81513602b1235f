/*
 * gen_int.h — what the files of the gen module share: the result being built, the one
 * place a generated file is decided (written, kept as a hand edit, restored), the silver
 * section derived for the lock (silver.c) and the dbt project (dbt.c).
 */
#ifndef FLOE_GEN_GEN_INT_H
#define FLOE_GEN_GEN_INT_H

#include "config/config.h"
#include "gen/gen.h"
#include "plan/lock.h"

/*
 * One generated file at `rel` (relative to pipeline/): written, kept (a person edited it:
 * drift), restored or left unchanged, against `old_hash` — the previous lock's hash of
 * what floe wrote there (NULL: none). The caller records the new hash in the lock.
 */
int floe_gen_place(floe_gen_result *r, const char *rel, const char *content, const char *old_hash);

/*
 * A file floe generated before (`old_hash`: the previous lock's hash; NULL: none, nothing
 * to do) that it no longer writes: removed when untouched, kept and reported when edited.
 */
int floe_gen_retire(floe_gen_result *r, const char *rel, const char *old_hash);
/* floe_gen_place for a project file (not of one table), its hash recorded in `next`'s top-level files. */
int floe_gen_put_project_file(floe_gen_result *r, floe_lock *next, const floe_lock *prev, const char *rel,
			      const char *content);

/* A line for the output and the commit message ("public.t: CHECK c not tested in silver: …"). */
void floe_gen_note(floe_gen_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

floe_arena *floe_gen_arena(floe_gen_result *r);

/*
 * The silver section of every loadable table of `next`: columns (comments, PII from
 * [silver.pii]), tests derived from the source (primary key, NOT NULL, foreign keys to
 * loaded tables, enums, CHECKs) and the user's quality/<name>.toml rules. Tests left out
 * are noted with the reason. Errors: a quality rule naming a table or column floe does
 * not load (FLOE_ERR_CONFIG, file:line:col).
 */
int floe_gen_silver(floe_gen_result *r, floe_lock *next, const floe_plan *plan, const floe_config *config);

/* pipeline/dbt/: the dbt project of the silver layer, each file placed and hashed in `next`. */
int floe_gen_dbt(floe_gen_result *r, floe_lock *next, const floe_lock *prev, const floe_plan *plan,
		 const floe_config *config);

/*
 * pipeline/airflow/dags/floe_<project>.py: the Airflow DAG of the lineage in `next` (tables,
 * silver, the lock's "marts", publish), placed and hashed in `next`'s project files; removed
 * (when unedited) with [orchestrators] airflow = false (docs/airflow.md).
 */
int floe_gen_airflow(floe_gen_result *r, floe_lock *next, const floe_lock *prev, const floe_config *config);

/*
 * pipeline/dagster/: the Dagster project whose assets run `floe run --table T --layer L --json`
 * (dagster.c, docs/dagster.md), each file placed and hashed in `next`. The project's location is
 * written relative to the project's own pipeline/ — the same in a change branch's work tree.
 */
int floe_gen_dagster(floe_gen_result *r, floe_lock *next, const floe_lock *prev, const floe_config *config);

/* pipeline/monitoring/: the Grafana dashboard and the example Prometheus configuration (monitoring.c). */
int floe_gen_monitoring(floe_gen_result *r, floe_lock *next, const floe_lock *prev, const floe_config *config);

#endif
