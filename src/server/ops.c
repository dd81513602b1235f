/*
 * ops.c — the operations routes of `floe serve`: /healthz, /readyz, /metrics.
 */
#include "server/ops.h"
#include "base/arena.h"
#include "base/error.h"
#include "iceberg/catalog_sql.h"
#include "monitor/metrics.h"
#include "monitor/status.h"
#include "pg/introspect.h"
#include "pg/pg.h"
#include "state/state.h"

#include <stdlib.h>

static int healthz(floe_http_response *res, const floe_http_request *req, void *ctx)
{
	return floe_buf_puts(&res->body, "ok\n");
}

/* Why `what` is not ready, from the error chain; clears it. */
static void not_ready(floe_http_response *res, const char *what)
{
	const floe_error *e = floe_error_last();
	res->status = 503;
	floe_buf_printf(&res->body, "not ready: %s: %s\n", what, e && e->message ? e->message : "unknown error");
	if (e && e->hint)
		floe_buf_printf(&res->body, "hint: %s\n", e->hint);
	floe_error_clear();
}

static int readyz(floe_http_response *res, const floe_http_request *req, void *arg)
{
	floe_server_ops *ops = arg;
	floe_catalog_sql *cat = NULL;
	floe_pg *pg = NULL;
	floe_arena *a = floe_arena_new();
	if (floe_catalog_sql_open(&cat, floe_config_catalog_path(a, ops->config), false) < 0)
		not_ready(res, "catalog");
	else if (floe_pg_connect_source(&pg, ops->config) < 0)
		not_ready(res, "source");
	else
		floe_buf_puts(&res->body, "ready: catalog opens, source answers\n");
	floe_pg_close(pg);
	floe_catalog_sql_close(cat);
	floe_arena_free(a);
	return 0;
}

static int metrics(floe_http_response *res, const floe_http_request *req, void *arg)
{
	floe_server_ops *ops = arg;
	floe_status st = { 0 };
	floe_state *ledger = NULL;
	floe_metrics_input in = { .status = &st };
	floe_metrics_sched *sched = NULL;
	int error = -1;
	if (floe_status_build(&st, ops->config) < 0 || floe_state_open(&ledger, ops->config->project_dir) < 0 ||
	    floe_state_run_counts(ledger, in.runs) < 0)
		goto cleanup;
	if (ops->counters) {
		in.n_sched = ops->counters(ops->counters_ctx, &sched);
		in.sched = sched;
	}
	floe_metrics_render(&res->body, &in);
	res->content_type = FLOE_METRICS_CONTENT_TYPE;
	error = 0;
cleanup:
	free(sched);
	floe_state_close(ledger);
	floe_status_free(&st);
	return error;
}

void floe_server_ops_routes(floe_http_server *server, floe_server_ops *ops)
{
	floe_http_route_add(server, "GET", "/healthz", healthz, ops);
	floe_http_route_add(server, "GET", "/readyz", readyz, ops);
	floe_http_route_add(server, "GET", "/metrics", metrics, ops);
}
