/*
 * cdc.h — floe.toml's [cdc] and `[bronze] cdc`: which tables load by change data capture
 * from PostgreSQL's logical replication, and what floe may create on the source for it
 * (docs/cdc.md). Parsed by cdc.c when config.c meets the section.
 *
 *   [bronze]
 *   cdc = true                      # every keyed table of the plan (default false)
 *
 *   [cdc]
 *   tables = ["public.orders"]      # per table: these tables load as mode "cdc"
 *   create-slot = true              # floe may create its replication slots (default false)
 *   create-publication = true      # floe may create its publications (default false)
 *   max-retained-wal = "1GB"        # `floe status` warns when a slot retains more WAL
 *   follow-interval-ms = 200        # `floe run --follow`: the pause between polls of the slots
 *   follow-index-mb = 256           # its per-table position index's budget (over: per-batch scans)
 *   follow-reconcile-seconds = 300  # at most this often a batch is reconciled (0: every batch)
 */
#ifndef FLOE_CONFIG_CDC_H
#define FLOE_CONFIG_CDC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct floe_toml_value floe_toml_value;
typedef struct floe_config floe_config;

typedef struct floe_config_cdc {
	const char **tables;         /* "schema.table" */
	size_t n_tables;
	bool create_slot;
	bool create_publication;
	int64_t max_retained_wal;    /* bytes; default 1 GiB */
	int line;                    /* where [cdc] is, for messages */
	int64_t follow_interval_ms;  /* default FLOE_CDC_FOLLOW_INTERVAL_MS */
	int64_t follow_index_mb;     /* default FLOE_CDC_FOLLOW_INDEX_MB */
	int64_t follow_reconcile_seconds; /* default FLOE_CDC_FOLLOW_RECONCILE_SECONDS */
} floe_config_cdc;

#define FLOE_CDC_FOLLOW_INTERVAL_MS 200
#define FLOE_CDC_FOLLOW_INDEX_MB 256
#define FLOE_CDC_FOLLOW_RECONCILE_SECONDS 300

/* Read [cdc] into config->cdc (in the config's arena). Errors: FLOE_ERR_CONFIG with file:line:col. */
int floe_config_cdc_load(floe_config *config, const char *path, const floe_toml_value *section);

/* Whether `schema.table` loads by CDC: listed in [cdc] tables, or `[bronze] cdc = true`. */
bool floe_config_cdc_wants(const floe_config *config, const char *schema, const char *table);

#endif
