/*
 * otlp.h — OpenTelemetry metrics pushed over OTLP/HTTP with the JSON encoding
 * (POST {endpoint}/v1/metrics, Content-Type application/json), to the endpoint
 * [alerts] otlp-endpoint names (e.g. "http://127.0.0.1:4318"; one ending in /v1/metrics
 * is used as given). Gauges per table and layer (attributes table, layer):
 *   lakehouse.table.state        1, with attribute state (as `floe status` names it)
 *   lakehouse.table.freshness    seconds since the last successful load (unit s)
 *   lakehouse.table.rows_written rows the newest run wrote ({row})
 *   lakehouse.run.duration       seconds the newest run took (unit s)
 * Resource: service.name "floe", service.instance.id the project, service.version.
 * Unknown values are left out (JSON has no NaN). Pushed after each run and, by floe
 * serve, every 30 s; a failed push is logged and not retried (the next one carries
 * the current values).
 */
#ifndef FLOE_MONITOR_OTLP_H
#define FLOE_MONITOR_OTLP_H

#include "base/buf.h"
#include "config/config.h"
#include "monitor/status.h"

#include <stdint.h>

/* The ExportMetricsServiceRequest of `status` as OTLP JSON, stamped `time_ns`. */
void floe_otlp_render(floe_buf *out, const floe_config *config, const floe_status *status, int64_t time_ns);

/* Build the status and push it; nothing when no endpoint is configured. */
int floe_otlp_push(const floe_config *config);

#endif
