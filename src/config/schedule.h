/*
 * schedule.h — floe.toml's [schedule]: when `floe serve` runs what (docs/serve.md).
 *
 *   [schedule]
 *   bronze = "0 * * * *"               # every table's bronze layer, hourly (UTC)
 *   silver = "15 * * * *"
 *   gold = "30 2 * * *"
 *   "public.orders" = "*\/15 * * * *"   # this table (every layer, in order), instead of the layer schedules
 *   retries = 2                        # a failed run is retried up to twice
 *   retry-delay = "30s"                # the first retry's backoff ceiling (doubles each time, full jitter)
 *
 * Each expression is checked where it is written (file:line:col), with cron.h's rules.
 */
#ifndef FLOE_CONFIG_SCHEDULE_H
#define FLOE_CONFIG_SCHEDULE_H

#include "schedule/cron.h"

#include <stddef.h>
#include <stdint.h>

typedef struct floe_config floe_config;
typedef struct floe_toml_value floe_toml_value;

typedef struct floe_schedule_entry {
	const char *key;       /* "bronze", "silver", "gold" or "schema.table" */
	const char *text;      /* the expression as written */
	floe_cron cron;
} floe_schedule_entry;

typedef struct floe_config_schedule {
	floe_schedule_entry *entries;
	size_t n_entries;
	int retries;           /* default 0 */
	int64_t retry_delay;   /* seconds, default 30 */
} floe_config_schedule;

/* Read [schedule] (`table` may be NULL: none) into config->schedule. Errors: FLOE_ERR_CONFIG with file:line:col. */
int floe_config_schedule_parse(floe_config *config, const floe_toml_value *table);

#endif
