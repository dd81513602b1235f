/*
 * publish.h — `floe publish`: gold marts copied from the lake into a PostgreSQL warehouse
 * ([publish] in floe.toml, config/publish.h), swapped in atomically (docs/publish.md).
 *
 * Per mart: the Iceberg table gold.<mart> is read at its current snapshot through floe's own
 * scan and Parquet reader, streamed with COPY … FROM STDIN (FORMAT binary) into a new table
 * <schema>.<mart>__floe_new created and loaded in one transaction, then, in a second short
 * transaction under the configured lock timeout, the old table is renamed aside, the new one
 * renamed in, SELECT granted to the configured roles, and the old one dropped. Readers see the
 * old table or the new one, never a half-loaded one; a failure at any point leaves the old
 * table as it was, and a leftover new table (a process killed between the two transactions)
 * is dropped by the next publish.
 */
#ifndef FLOE_PUBLISH_PUBLISH_H
#define FLOE_PUBLISH_PUBLISH_H

#include "base/buf.h"
#include "config/config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct floe_publish_opts {
	const char *const *marts;   /* mart names ("monthly_revenue" or "gold.monthly_revenue"); NULL: every gold table */
	size_t n_marts;
} floe_publish_opts;

typedef struct floe_publish_result {
	const char *mart;           /* "monthly_revenue" */
	const char *target;         /* "schema.monthly_revenue" in the warehouse */
	bool published;
	long long rows;             /* rows the server stored */
	int64_t snapshot_id;        /* the gold snapshot published; -1: none */
	bool cleaned_up;            /* a leftover <mart>__floe_new from an interrupted publish was dropped */
	const char *error;          /* what failed and why, one line; NULL when published */
	const char *hint;           /* what to do; NULL when none */
	int exit_code;              /* 0 published, else the README's exit code of its failure */
} floe_publish_result;

typedef struct floe_publish_report {
	const char *warehouse;      /* "host:port/database" */
	const char *schema;
	floe_publish_result *results;
	size_t n_results, n_failed;
	int exit_code;              /* the highest of the results' */
	floe_arena *arena;
} floe_publish_report;

/*
 * Publish the marts. Returns -1 (error chain set) when nothing could be tried — no
 * [publish], no password, the warehouse unreachable or refusing the login, its schema
 * missing, an unknown mart — and 0 otherwise, with each mart's outcome in *out (free it
 * with floe_publish_report_free, also after -1).
 */
int floe_publish_run(floe_publish_report *out, const floe_config *config, const floe_publish_opts *opts);

void floe_publish_report_free(floe_publish_report *rep);

/* The report as text lines or (json) one JSON object, appended to `out`. */
void floe_publish_render(floe_buf *out, const floe_publish_report *rep, bool json);

#endif
