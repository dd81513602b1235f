/*
 * ops.h — the operations routes: GET /healthz (the process is up), GET /readyz (the
 * catalog opens and the source answers; 503 with the reason otherwise), GET /metrics
 * (monitor/metrics.h, from the ledger).
 */
#ifndef FLOE_SERVER_OPS_H
#define FLOE_SERVER_OPS_H

#include "config/config.h"
#include "monitor/metrics.h"
#include "server/http.h"

typedef struct floe_server_ops {
	const floe_config *config;
	/* The scheduler's counters (NULL: none); returns how many, *out freed by the caller. */
	size_t (*counters)(void *ctx, floe_metrics_sched **out);
	void *counters_ctx;
} floe_server_ops;

/* Join the three routes; `ops` must outlive the server. */
void floe_server_ops_routes(floe_http_server *server, floe_server_ops *ops);

#endif
