/*
 * gold_build.h — what run.c, build.c and audit.c share: one mart's build.
 */
#ifndef FLOE_GOLD_BUILD_H
#define FLOE_GOLD_BUILD_H

#include "gold/gold.h"
#include "base/arena.h"
#include "base/sha256.h"
#include "iceberg/data_file.h"
#include "iceberg/schema.h"

typedef struct floe_engine floe_engine;
typedef struct floe_iceberg_catalog floe_iceberg_catalog;
typedef struct floe_iceberg_table floe_iceberg_table;

typedef struct gold_job {
	const floe_config *config;
	floe_iceberg_catalog *cat;
	const floe_lock *lock;
	const floe_lock_mart *mart;
	const char *pipeline_dir;
	const char *run_id;
	floe_arena *arena;
	floe_gold_result *result;
	/* during the build */
	floe_engine *engine;
	floe_iceberg_table *table;
	char model_sha[FLOE_SHA256_HEX_LEN + 1];
	int64_t rows;                     /* the model's rows */
	floe_iceberg_data_file file;      /* the new data file, while has_file */
	bool has_file;
	floe_buf notes;                   /* failed tests: "; "-joined */
} gold_job;

/* build.c: the whole build of job->mart; -1 with the error set when it failed (tests too). */
int gold_build_mart(gold_job *job);
int gold_render_test(gold_job *job, floe_buf *out, const char *rel);

/* audit.c */
int gold_schema_of(gold_job *job, floe_iceberg_schema **out);   /* floe_gold's columns as Iceberg's; job->rows */
int gold_schema_check(gold_job *job, const floe_iceberg_schema *want); /* the existing table has these columns */
int gold_audit(gold_job *job);                                  /* grain and reconciliation tests on the written file */

#endif
