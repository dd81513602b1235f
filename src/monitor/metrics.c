/*
 * metrics.c — the status model as Prometheus text (format 0.0.4): one HELP and TYPE per
 * family before its samples, label values escaped (\\, \", \n), no timestamps.
 */
#include "monitor/metrics.h"
#include "base/version.h"
#include "state/state.h"

#include <math.h>
#include <string.h>

#ifndef FLOE_COMMIT
#define FLOE_COMMIT "unknown"
#endif

static void family(floe_buf *out, const char *name, const char *type, const char *help)
{
	floe_buf_printf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value, escaped per the exposition format. */
static void label_value(floe_buf *out, const char *v)
{
	floe_buf_putc(out, '"');
	for (const char *p = v ? v : ""; *p; p++) {
		if (*p == '\\' || *p == '"')
			floe_buf_putc(out, '\\');
		if (*p == '\n')
			floe_buf_puts(out, "\\n");
		else
			floe_buf_putc(out, *p);
	}
	floe_buf_putc(out, '"');
}

/* name{table="…"[,layer="…"][,state="…"]} */
static void labels(floe_buf *out, const char *name, const floe_status_row *r, bool layer, const char *state)
{
	floe_buf_printf(out, "%s{table=", name);
	label_value(out, r->table);
	if (layer) {
		floe_buf_puts(out, ",layer=");
		label_value(out, r->layer);
	}
	if (state) {
		floe_buf_puts(out, ",state=");
		label_value(out, state);
	}
	floe_buf_putc(out, '}');
}

/* A sample value as Go prints floats: integers plainly, NaN for unknown. */
static void value(floe_buf *out, double v)
{
	if (isnan(v))
		floe_buf_puts(out, " NaN\n");
	else if (v == floor(v) && fabs(v) < 1e15)
		floe_buf_printf(out, " %.0f\n", v);
	else
		floe_buf_printf(out, " %.17g\n", v);
}

bool floe_metrics_healthy(const floe_status_row *r)
{
	if (r->catalog_missing || r->load != FLOE_TABLE_LOADED)
		return false;
	return !r->decided || r->verdict == FLOE_RECONCILE_VERIFIED || r->verdict == FLOE_RECONCILE_PARTIAL;
}

typedef double (*row_value)(const floe_status_row *r);

static double known(int64_t v)
{
	return v < 0 ? NAN : (double)v;
}
static double v_healthy(const floe_status_row *r) { return floe_metrics_healthy(r); }
static double v_fresh(const floe_status_row *r) { return known(r->age_seconds); }
static double v_rows(const floe_status_row *r) { return known(r->rows); }
static double v_duration(const floe_status_row *r) { return r->last_duration_seconds < 0 ? NAN : r->last_duration_seconds; }
static double v_written(const floe_status_row *r) { return known(r->last_rows_written); }
static double v_bytes(const floe_status_row *r) { return known(r->last_bytes); }
static double v_failed(const floe_status_row *r) { return known(r->tests_failed); }
static double v_warned(const floe_status_row *r) { return known(r->tests_warned); }
static double v_quarantined(const floe_status_row *r) { return known(r->quarantined); }

static const struct gauge {
	const char *name, *help;
	row_value get;
} GAUGES[] = {
	{ "floe_table_healthy", "1 when the table's last load succeeded and no reconciliation decided against it", v_healthy },
	{ "floe_table_freshness_seconds", "seconds since the last successful load finished (NaN: never)", v_fresh },
	{ "floe_table_rows", "rows of the last successful load", v_rows },
	{ "floe_table_last_run_duration_seconds", "how long the newest run of the table took", v_duration },
	{ "floe_table_last_run_rows_written", "rows the newest run of the table wrote", v_written },
	{ "floe_table_last_run_bytes_read", "bytes the newest run of the table recorded", v_bytes },
	{ "floe_table_tests_failed", "silver tests that failed in the newest build", v_failed },
	{ "floe_table_tests_warned", "silver tests that warned in the newest build", v_warned },
	{ "floe_table_quarantined_rows", "rows the newest silver build kept out", v_quarantined },
};

static void render_tables(floe_buf *out, const floe_status *s)
{
	family(out, "floe_table_state", "gauge", "the state of each table and layer as floe status names it (value 1)");
	for (size_t i = 0; i < s->n_rows; i++) {
		labels(out, "floe_table_state", &s->rows[i], true, floe_status_state_name(&s->rows[i]));
		floe_buf_puts(out, " 1\n");
	}
	for (size_t g = 0; g < sizeof(GAUGES) / sizeof(GAUGES[0]); g++) {
		family(out, GAUGES[g].name, "gauge", GAUGES[g].help);
		for (size_t i = 0; i < s->n_rows; i++) {
			labels(out, GAUGES[g].name, &s->rows[i], true, NULL);
			value(out, GAUGES[g].get(&s->rows[i]));
		}
	}
	family(out, "floe_table_reconcile_verified", "gauge",
	       "1 when the current bronze snapshot was reconciled and verified, 0 otherwise");
	for (size_t i = 0; i < s->n_rows; i++) {
		const floe_status_row *r = &s->rows[i];
		if (strcmp(r->layer, "bronze") != 0)
			continue;
		labels(out, "floe_table_reconcile_verified", r, false, NULL);
		value(out, r->decided && (r->verdict == FLOE_RECONCILE_VERIFIED || r->verdict == FLOE_RECONCILE_PARTIAL));
	}
}

static void render_sched(floe_buf *out, const floe_metrics_input *in, const char *name, bool retries)
{
	family(out, name, "counter", retries ? "retries of failed scheduled runs" : "scheduled ticks skipped because the table's previous run was still going");
	for (size_t i = 0; i < in->n_sched; i++) {
		floe_buf_printf(out, "%s{table=", name);
		label_value(out, in->sched[i].table);
		floe_buf_puts(out, ",layer=");
		label_value(out, in->sched[i].layer);
		floe_buf_putc(out, '}');
		value(out, (double)(retries ? in->sched[i].retries : in->sched[i].skipped));
	}
}

void floe_metrics_render(floe_buf *out, const floe_metrics_input *in)
{
	render_tables(out, in->status);
	family(out, "floe_runs_total", "counter", "runs in the ledger by outcome");
	static const floe_run_status outcomes[] = { FLOE_RUN_OK, FLOE_RUN_FAILED, FLOE_RUN_INTERRUPTED };
	for (size_t i = 0; i < 3; i++)
		floe_buf_printf(out, "floe_runs_total{outcome=\"%s\"} %lld\n", floe_run_status_name(outcomes[i]),
				(long long)in->runs[outcomes[i]]);
	render_sched(out, in, "floe_scheduler_skipped_runs_total", false);
	render_sched(out, in, "floe_scheduler_retries_total", true);
	family(out, "floe_build_info", "gauge", "floe's version and commit (value 1)");
	floe_buf_puts(out, "floe_build_info{version=");
	label_value(out, FLOE_VERSION);
	floe_buf_puts(out, ",commit=");
	label_value(out, FLOE_COMMIT);
	floe_buf_puts(out, "} 1\n");
}
