/*
 * orchestrators.h — floe.toml's [orchestrators]: which orchestrator projects `floe generate`
 * writes into pipeline/ (docs/airflow.md). Parsed by orchestrators.c.
 *
 *   [orchestrators]
 *   airflow = true     # pipeline/airflow/dags/floe_<project>.py
 *   dagster = true     # pipeline/dagster/
 */
#ifndef FLOE_CONFIG_ORCHESTRATORS_H
#define FLOE_CONFIG_ORCHESTRATORS_H

#include <stdbool.h>

typedef struct floe_toml_value floe_toml_value;
typedef struct floe_config floe_config;

typedef struct floe_config_orchestrators {
	bool airflow;   /* default true */
	bool dagster;   /* default true */
} floe_config_orchestrators;

/* Both on: what a floe.toml without [orchestrators] means. */
#define FLOE_CONFIG_ORCHESTRATORS_INIT { .airflow = true, .dagster = true }

/* Read [orchestrators] (`section`) into config->orchestrators. Errors: FLOE_ERR_CONFIG, file:line:col. */
int floe_config_orchestrators_load(floe_config *config, const char *path, const floe_toml_value *section);

#endif
