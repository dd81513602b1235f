/*
 * report.c — how `floe run` shows gold: a line per mart (state, table, rows and tests, or
 * what failed and its probable cause), the JSON members, the exit code.
 */
#include "gold/gold.h"
#include "base/error.h"
#include "base/json.h"
#include "base/text.h"

#include <string.h>

void floe_gold_report_render_text(floe_buf *out, const floe_gold_report *rep)
{
	if (rep->n_results == 0)
		return;
	for (size_t i = 0; i < rep->n_results; i++) {
		const floe_gold_result *r = &rep->results[i];
		bool bad = strcmp(r->state, "failed") == 0;
		floe_buf_printf(out, "  %-9s ", r->state);
		floe_text_put_printable_padded(out, r->table, 31);
		floe_buf_putc(out, ' ');
		floe_text_put_printable(out, bad ? r->error : r->detail);
		floe_buf_putc(out, '\n');
		if (bad) {
			floe_buf_puts(out, "           probable cause: ");
			floe_text_put_printable(out, r->cause);
			floe_buf_putc(out, '\n');
		}
	}
	floe_buf_printf(out, "%zu gold mart%s, %zu failed\n", rep->n_results, rep->n_results == 1 ? "" : "s",
			rep->n_failed);
}

void floe_gold_report_render_json(floe_buf *out, const floe_gold_report *rep)
{
	floe_buf_puts(out, ",\"gold\":[");
	for (size_t i = 0; i < rep->n_results; i++) {
		const floe_gold_result *r = &rep->results[i];
		floe_buf_puts(out, i ? ",{" : "{");
		floe_json_put_member(out, "table", r->table);
		floe_json_put_member(out, "mart", r->mart);
		floe_json_put_member(out, "state", r->state);
		floe_buf_printf(out, ",\"rows\":%lld,\"snapshot_id\":%lld,\"tests\":{\"passed\":%d,\"failed\":%d},"
				"\"seconds\":%.3f", (long long)r->rows, (long long)r->snapshot_id, r->tests_passed,
				r->tests_failed, r->seconds);
		floe_json_put_member(out, "detail", r->detail);
		floe_json_put_member(out, "error", r->error);
		floe_json_put_member(out, "cause", r->cause);
		floe_buf_putc(out, '}');
	}
	floe_buf_printf(out, "],\"gold_failed\":%zu", rep->n_failed);
}

int floe_gold_report_exit(const floe_gold_report *rep)
{
	return rep->exit_code ? rep->exit_code : rep->n_failed ? FLOE_EXIT_CHECK_FAILED : FLOE_EXIT_OK;
}
