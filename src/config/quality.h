/*
 * quality.h — the user's own data tests: quality/<name>.toml in the project, read with
 * floe's TOML reader (docs/silver.md, "Your own rules"). Each file holds
 * `[[rule]]` tables:
 *
 *   [[rule]]
 *   table = "public.orders"
 *   kind = "range"            # range regex not_null accepted_values row_count freshness unique
 *   columns = ["price"]
 *   min = 0
 *   max = 10000
 *   severity = "warn"         # "error" (default) or "warn"
 *
 * Shape errors (unknown keys, wrong types, a key another kind needs) fail with
 * file:line:col, as floe.toml's do. Whether the table and columns exist is checked
 * against the plan by the caller, with the rule's position.
 */
#ifndef FLOE_CONFIG_QUALITY_H
#define FLOE_CONFIG_QUALITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct floe_arena floe_arena;

typedef struct floe_quality_rule {
	const char *file;              /* "quality/orders.toml" (relative to the project) */
	int line, col;                 /* where the [[rule]] starts */
	const char *name;              /* the test's name; NULL: floe names it */
	const char *schema, *table;    /* from `table = "schema.table"` */
	const char *kind;
	const char **columns;
	size_t n_columns;
	const char *severity;          /* "error" or "warn" */
	const char *min, *max;         /* range, row_count: number text; NULL: unbounded */
	const char *pattern;           /* regex */
	const char **values;           /* accepted_values, as text */
	size_t n_values;
	bool quote;                    /* accepted_values: strings */
	int64_t max_age_seconds;       /* freshness */
} floe_quality_rule;

/*
 * Every rule of <project_dir>/quality/<name>.toml, files in name order, rules in file
 * order, allocated in `arena`. No quality/ directory: no rules. Errors: FLOE_ERR_CONFIG
 * with file:line:col.
 */
int floe_quality_load(floe_quality_rule **out, size_t *n_out, floe_arena *arena, const char *project_dir);

/* Parse one file's text; `file` labels messages and the rules. */
int floe_quality_parse(floe_quality_rule **out, size_t *n_out, floe_arena *arena, const char *file,
		       const char *text, size_t len);

#endif
