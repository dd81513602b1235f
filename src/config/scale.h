/*
 * scale.h — floe.toml keys for big tables (docs/parallel-load.md), parsed by scale.c when
 * config.c meets them:
 *
 *   [bronze]
 *   parallel = 4                    # connections reading one table's full load (default 1)
 *   [bronze.tables."public.events"]
 *   parallel = 2                    # per table, over [bronze] parallel
 *   [reconcile]
 *   full-every = 8                  # V3 proves every bucket at least once every 8 runs (default 1)
 */
#ifndef FLOE_CONFIG_SCALE_H
#define FLOE_CONFIG_SCALE_H

#include <stddef.h>
#include <stdint.h>

typedef struct floe_toml_value floe_toml_value;
typedef struct floe_config floe_config;

#define FLOE_CONFIG_PARALLEL_MAX 64
#define FLOE_CONFIG_FULL_EVERY_MAX 1000

/* One [bronze.tables."schema.table"] entry. */
typedef struct floe_config_bronze_table {
	const char *table;   /* "schema.table" */
	int64_t parallel;    /* 0: not set (the [bronze] value holds) */
} floe_config_bronze_table;

/* [bronze] parallel (`section` is the value). */
int floe_config_parallel_load(floe_config *config, const char *path, const floe_toml_value *section);
/* [bronze.tables] (`section` is the table of tables). */
int floe_config_bronze_tables_load(floe_config *config, const char *path, const floe_toml_value *section);
/* [reconcile]. */
int floe_config_reconcile_load(floe_config *config, const char *path, const floe_toml_value *section);

/* Connections for one table's full load: its own entry, else [bronze] parallel, else 1. */
int floe_config_parallel_for(const floe_config *config, const char *schema, const char *table);

#endif
