/*
 * metrics.h — the Prometheus text exposition (format 0.0.4) of the status model:
 * what `floe serve` answers at /metrics. Values come from the same model
 * `floe status --json` prints (status.h), read from the ledger; nothing reaches
 * into a running load. Metric names: docs/serve.md.
 */
#ifndef FLOE_MONITOR_METRICS_H
#define FLOE_MONITOR_METRICS_H

#include "base/buf.h"
#include "monitor/status.h"

#include <stddef.h>
#include <stdint.h>

/* The exact Content-Type of the exposition. */
#define FLOE_METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* The scheduler's counters of one table and layer (since the server started). */
typedef struct floe_metrics_sched {
	const char *table, *layer;
	int64_t skipped, retries;
} floe_metrics_sched;

typedef struct floe_metrics_input {
	const floe_status *status;
	int64_t runs[4];                 /* per floe_run_status: running, ok, failed, interrupted */
	const floe_metrics_sched *sched; /* may be NULL */
	size_t n_sched;
} floe_metrics_input;

/* Append the exposition of `in` to `out`. */
void floe_metrics_render(floe_buf *out, const floe_metrics_input *in);

/* Whether a row counts as healthy: loaded, built or verified, and nothing decided against it. */
bool floe_metrics_healthy(const floe_status_row *row);

#endif
