/*
 * silver.h — the silver layer: floe renders the dbt models of pipeline/dbt/ itself
 * (a Jinja subset), runs them in its embedded DuckDB over the bronze snapshot a
 * run just verified, tests the result, quarantines failing rows and publishes the
 * table in one Iceberg commit only when its error-severity tests pass.
 *
 * src/silver/README.md tells the whole build; SILVER.md in the notes is
 * the contract with the dbt project's generator (the lock's `silver` section).
 */
#ifndef FLOE_SILVER_SILVER_H
#define FLOE_SILVER_SILVER_H

#include "base/buf.h"
#include "config/config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct floe_arena floe_arena;

/* ---- render.c: the Jinja subset the generated models use ---- */

typedef enum floe_silver_value_kind {
	FLOE_SILVER_STRING,
	FLOE_SILVER_LIST,   /* of strings */
	FLOE_SILVER_BOOL
} floe_silver_value_kind;

/* One `key=value` of a model's config(...). */
typedef struct floe_silver_config_item {
	const char *key;
	floe_silver_value_kind kind;
	const char *string;
	const char **list;
	size_t n_list;
	bool flag;
} floe_silver_config_item;

/* A model's config(...), typed. Every key given is in `items` (a later call's value wins). */
typedef struct floe_silver_model_config {
	const char *materialized;       /* NULL: not given */
	const char **unique_key;        /* a string is a one-element list */
	size_t n_unique_key;
	floe_silver_config_item *items;
	size_t n_items, cap_items;
} floe_silver_model_config;

/*
 * What the names of a model render to. `source` and `ref` return the SQL relation to
 * put in place of source('s', 't') / ref('x'), or NULL when there is none (the render
 * then fails naming the call). `this` NULL: {{ this }} is an error.
 */
typedef struct floe_silver_render_opts {
	const char *file;               /* named in messages, e.g. "dbt/models/silver/orders.sql" */
	bool incremental;               /* what is_incremental() is */
	const char *this_relation;
	const char *(*source)(void *ctx, const char *source_name, const char *table);
	const char *(*ref)(void *ctx, const char *model);
	void *ctx;
} floe_silver_render_opts;

/*
 * Render `text` (a model file, `len` bytes) into `out`, its config into `config`
 * (zeroed first; strings in `arena`). Exactly these constructs: {{ config(k=v, …) }}
 * (values: strings, lists of strings, True/False), {{ source('a', 'b') }}, {{ ref('x') }},
 * {{ this }}, {% if is_incremental() %} … [{% else %} …] {% endif %}, {# comments #},
 * and '-' whitespace control on any of them. Anything else fails with FLOE_ERR_CONFIG
 * naming the construct, the file and line:col (exit 2).
 */
int floe_silver_render(floe_buf *out, floe_silver_model_config *config, floe_arena *arena, const char *text,
		       size_t len, const floe_silver_render_opts *opts);

#endif
