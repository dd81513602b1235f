/*
 * dbt_int.h — the dbt project's fixed files (dbt_files.c), shared with dbt.c.
 */
#ifndef FLOE_GEN_DBT_INT_H
#define FLOE_GEN_DBT_INT_H

typedef struct floe_dbt_static_file {
	const char *path;      /* relative to pipeline/ */
	const char *content;
} floe_dbt_static_file;

extern const floe_dbt_static_file floe_dbt_static_files[]; /* ends with { NULL, NULL } */

/* dbt.c helpers shared with dbt_tests.c. */
#include "base/buf.h"
#include "plan/lock.h"

typedef struct floe_arena floe_arena;

/* A YAML scalar string (JSON form); one holding Jinja delimiters is wrapped in {% raw %}. */
void floe_dbt_yaml_string(floe_buf *b, floe_arena *a, const char *s);

/* The dbt model name of a silver table: its model file's stem. */
const char *floe_dbt_model_name(floe_arena *a, const floe_lock_silver *s);

/* The silver section of `lock` for the silver table `table` ("silver.orders"); NULL: none. */
const floe_lock_silver *floe_dbt_silver_named(const floe_lock *lock, const char *table);

/* models/silver/schema.yml: every silver model, its columns and data tests (dbt_tests.c). */
const char *floe_dbt_schema_yml(floe_arena *a, const floe_lock *lock);

#endif
