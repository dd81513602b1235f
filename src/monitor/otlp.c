/*
 * otlp.c — the status model as an OTLP/HTTP JSON metrics export (see otlp.h).
 */
#include "monitor/otlp.h"
#include "base/error.h"
#include "base/json.h"
#include "base/version.h"
#include "net/http_client.h"

#include <string.h>
#include <time.h>

#define PUSH_TIMEOUT 10

static void attr(floe_buf *out, bool first, const char *key, const char *value)
{
	floe_buf_puts(out, first ? "{\"key\":" : ",{\"key\":");
	floe_json_put_cstr(out, key);
	floe_buf_puts(out, ",\"value\":{\"stringValue\":");
	floe_json_put_cstr(out, value ? value : "");
	floe_buf_puts(out, "}}");
}

typedef enum which { STATE, FRESHNESS, ROWS_WRITTEN, DURATION } which;

static const struct metric {
	const char *name, *description, *unit;
} METRICS[] = {
	[STATE] = { "lakehouse.table.state", "the table's state as floe status names it (value 1)", "1" },
	[FRESHNESS] = { "lakehouse.table.freshness", "seconds since the last successful load finished", "s" },
	[ROWS_WRITTEN] = { "lakehouse.table.rows_written", "rows the newest run of the table wrote", "{row}" },
	[DURATION] = { "lakehouse.run.duration", "seconds the newest run of the table took", "s" },
};

/* One data point of row r for metric w; false when its value is unknown. */
static bool point(floe_buf *out, bool first, which w, const floe_status_row *r, const char *stamp)
{
	double d = w == FRESHNESS ? (double)r->age_seconds : r->last_duration_seconds;
	if ((w == FRESHNESS && r->age_seconds < 0) || (w == DURATION && r->last_duration_seconds < 0) ||
	    (w == ROWS_WRITTEN && r->last_rows_written < 0))
		return false;
	floe_buf_puts(out, first ? "{\"attributes\":[" : ",{\"attributes\":[");
	attr(out, true, "table", r->table);
	attr(out, false, "layer", r->layer);
	if (w == STATE)
		attr(out, false, "state", floe_status_state_name(r));
	floe_buf_printf(out, "],\"timeUnixNano\":\"%s\",", stamp);
	if (w == STATE)
		floe_buf_puts(out, "\"asInt\":\"1\"}");
	else if (w == ROWS_WRITTEN)
		floe_buf_printf(out, "\"asInt\":\"%lld\"}", (long long)r->last_rows_written);
	else
		floe_buf_printf(out, "\"asDouble\":%.17g}", d);
	return true;
}

static void metric(floe_buf *out, which w, const floe_status *s, const char *stamp)
{
	floe_buf_puts(out, w == STATE ? "{\"name\":" : ",{\"name\":");
	floe_json_put_cstr(out, METRICS[w].name);
	floe_json_put_member(out, "description", METRICS[w].description);
	floe_json_put_member(out, "unit", METRICS[w].unit);
	floe_buf_puts(out, ",\"gauge\":{\"dataPoints\":[");
	bool first = true;
	for (size_t i = 0; i < s->n_rows; i++)
		if (point(out, first, w, &s->rows[i], stamp))
			first = false;
	floe_buf_puts(out, "]}}");
}

void floe_otlp_render(floe_buf *out, const floe_config *config, const floe_status *status, int64_t time_ns)
{
	char stamp[32];
	snprintf(stamp, sizeof(stamp), "%lld", (long long)time_ns);
	floe_buf_puts(out, "{\"resourceMetrics\":[{\"resource\":{\"attributes\":[");
	attr(out, true, "service.name", "floe");
	attr(out, false, "service.instance.id", config->project_name);
	attr(out, false, "service.version", FLOE_VERSION);
	floe_buf_puts(out, "]},\"scopeMetrics\":[{\"scope\":{\"name\":\"floe\",\"version\":\"" FLOE_VERSION "\"},\"metrics\":[");
	for (int w = STATE; w <= DURATION; w++)
		metric(out, (which)w, status, stamp);
	floe_buf_puts(out, "]}]}]}");
}

int floe_otlp_push(const floe_config *config)
{
	const char *endpoint = config->alerts.otlp_endpoint;
	floe_status status = { 0 };
	floe_buf body = FLOE_BUF_INIT, url = FLOE_BUF_INIT;
	floe_http_post_result res = { 0 };
	struct timespec ts;
	int error = -1;
	if (!endpoint || !endpoint[0])
		return 0;
	if (floe_status_build(&status, config) < 0)
		goto cleanup;
	clock_gettime(CLOCK_REALTIME, &ts);
	floe_otlp_render(&body, config, &status, (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
	size_t n = strlen(endpoint);
	bool full = n >= 11 && strcmp(endpoint + n - 11, "/v1/metrics") == 0;
	floe_buf_printf(&url, "%.*s%s", (int)(n && endpoint[n - 1] == '/' ? n - 1 : n), endpoint, full ? "" : "/v1/metrics");
	if (floe_http_post(&res, floe_buf_cstr(&url), "application/json", floe_buf_cstr(&body), body.len, PUSH_TIMEOUT) < 0) {
		floe_error_context("while pushing metrics to the OTLP endpoint");
		goto cleanup;
	}
	if (res.status < 200 || res.status >= 300) {
		floe_error_set(FLOE_ERR_UNREACHABLE, "the OTLP endpoint answered HTTP %ld", res.status);
		floe_error_hint("Check [alerts] otlp-endpoint: the base URL of an OTLP/HTTP receiver, e.g. http://127.0.0.1:4318.");
		goto cleanup;
	}
	error = 0;
cleanup:
	floe_buf_free(&res.body);
	floe_buf_free(&body);
	floe_buf_free(&url);
	floe_status_free(&status);
	return error;
}
