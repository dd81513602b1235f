/*
 * test_metrics.c — the Prometheus exposition: escaped label values, NaN for unknown values,
 * one HELP and TYPE per family.
 */
#include "harness.h"
#include "monitor/metrics.h"

#include <string.h>

FLOE_TEST(metrics_escape_label_values)
{
	floe_status_row row = { .table = "bronze.we\"ird\\na\nme", .layer = "bronze", .load = FLOE_TABLE_LOADED,
				.rows = 42, .age_seconds = -1, .last_duration_seconds = 1.5, .last_rows_written = 42,
				.last_bytes = -1, .tests_failed = -1, .tests_warned = -1, .quarantined = -1 };
	floe_status st = { .rows = &row, .n_rows = 1 };
	floe_metrics_sched sched = { "bronze.x", "bronze", 2, 3 };
	floe_metrics_input in = { .status = &st, .runs = { 0, 5, 1, 0 }, .sched = &sched, .n_sched = 1 };
	floe_buf out = FLOE_BUF_INIT;
	floe_metrics_render(&out, &in);
	const char *text = floe_buf_cstr(&out);
	FLOE_CHECK(strstr(text, "floe_table_rows{table=\"bronze.we\\\"ird\\\\na\\nme\",layer=\"bronze\"} 42\n"));
	FLOE_CHECK(strstr(text, "floe_table_state{table=\"bronze.we\\\"ird\\\\na\\nme\",layer=\"bronze\",state=\"loaded\"} 1\n"));
	FLOE_CHECK(strstr(text, "floe_table_freshness_seconds{table=\"bronze.we\\\"ird\\\\na\\nme\",layer=\"bronze\"} NaN\n"));
	FLOE_CHECK(strstr(text, "floe_table_last_run_duration_seconds{table=\"bronze.we\\\"ird\\\\na\\nme\",layer=\"bronze\"} 1.5\n"));
	FLOE_CHECK(strstr(text, "floe_table_healthy{table=\"bronze.we\\\"ird\\\\na\\nme\",layer=\"bronze\"} 1\n"));
	FLOE_CHECK(strstr(text, "floe_runs_total{outcome=\"ok\"} 5\n"));
	FLOE_CHECK(strstr(text, "floe_scheduler_skipped_runs_total{table=\"bronze.x\",layer=\"bronze\"} 2\n"));
	FLOE_CHECK(strstr(text, "floe_scheduler_retries_total{table=\"bronze.x\",layer=\"bronze\"} 3\n"));
	FLOE_CHECK(strstr(text, "# TYPE floe_runs_total counter\n"));
	const char *first = strstr(text, "# TYPE floe_table_rows gauge"), *again = first ? strstr(first + 1, "# TYPE floe_table_rows ") : NULL;
	FLOE_CHECK(first && !again);
	floe_buf_free(&out);
}
