/*
 * render.c — the lint report as text (one finding a line, file:line:col first, then the
 * coverage figures) and as JSON. Names from the project are printed through
 * floe_text_put_printable.
 */
#include "lint/lint_int.h"
#include "base/json.h"
#include "base/text.h"

#include <inttypes.h>

/*
 * round(num * 10000 / den), half away from zero: dbt-project-evaluator's round(x * 100.0 / n, 2)
 * in hundredths of a percent, and its round(x * 1.0000 / n, 4) in ten-thousandths.
 */
static int64_t scaled(int64_t num, int64_t den)
{
	return (num * 10000 * 2 + den) / (2 * den);
}

static void put_fixed(floe_buf *out, int64_t v, int decimals)
{
	int64_t scale = decimals == 4 ? 10000 : 100;
	floe_buf_printf(out, "%" PRId64 ".%0*" PRId64, v / scale, decimals, v % scale);
}

static void put_location(floe_buf *out, const floe_lint_finding *f)
{
	floe_text_put_printable(out, f->file);
	if (f->line > 0)
		floe_buf_printf(out, ":%d", f->line);
	if (f->line > 0 && f->col > 0)
		floe_buf_printf(out, ":%d", f->col);
}

int floe_lint_render_text(floe_buf *out, const floe_lint_report *r)
{
	const floe_lint_coverage *c = &r->coverage;
	size_t errors = floe_lint_errors(r);
	for (size_t i = 0; i < r->n_findings; i++) {
		const floe_lint_finding *f = &r->findings[i];
		put_location(out, f);
		floe_buf_printf(out, ": %s %s: ", f->severity == FLOE_LINT_ERROR ? "error" : "warning", f->rule);
		floe_text_put_printable(out, f->message);
		floe_buf_putc(out, '\n');
	}
	if (c->total_models > 0) {
		floe_buf_printf(out, "test_coverage: %d of %d models tested (", c->tested_models, c->total_models);
		put_fixed(out, scaled(c->tested_models, c->total_models), 2);
		floe_buf_printf(out, "%%), %d tests, ", c->total_tests);
		put_fixed(out, scaled(c->total_tests, c->total_models), 4);
		floe_buf_printf(out, " tests per model\ndocumentation_coverage: %d of %d models described (",
				c->documented_models, c->total_models);
		put_fixed(out, scaled(c->documented_models, c->total_models), 2);
		floe_buf_printf(out, "%%); %d of %d columns described\n", c->documented_columns, c->total_columns);
	}
	if (r->sqlfluff_note) {
		floe_text_put_printable(out, r->sqlfluff_note);
		floe_buf_putc(out, '\n');
	}
	return floe_buf_printf(out, "%zu errors, %zu warnings\n", errors, r->n_findings - errors);
}

static void write_fixed(floe_json_writer *w, const char *key, int64_t num, int64_t den, int decimals)
{
	floe_buf b = FLOE_BUF_INIT;
	floe_json_write_key(w, key);
	if (den == 0) {
		floe_json_write_null(w);
		return;
	}
	put_fixed(&b, scaled(num, den), decimals);
	floe_json_write_number(w, floe_buf_cstr(&b));
	floe_buf_free(&b);
}

static void write_coverage(floe_json_writer *w, const floe_lint_coverage *c)
{
	floe_json_write_key(w, "test_coverage");
	floe_json_write_begin_object(w, false);
	floe_json_write_member_int(w, "total_models", c->total_models);
	floe_json_write_member_int(w, "total_tests", c->total_tests);
	floe_json_write_member_int(w, "tested_models", c->tested_models);
	write_fixed(w, "test_coverage_pct", c->tested_models, c->total_models, 2);
	write_fixed(w, "test_to_model_ratio", c->total_tests, c->total_models, 4);
	floe_json_write_end_object(w);
	floe_json_write_key(w, "documentation_coverage");
	floe_json_write_begin_object(w, false);
	floe_json_write_member_int(w, "total_models", c->total_models);
	floe_json_write_member_int(w, "documented_models", c->documented_models);
	write_fixed(w, "documentation_coverage_pct", c->documented_models, c->total_models, 2);
	floe_json_write_member_int(w, "total_columns", c->total_columns);
	floe_json_write_member_int(w, "documented_columns", c->documented_columns);
	floe_json_write_end_object(w);
}

int floe_lint_render_json(floe_buf *out, const floe_lint_report *r)
{
	floe_json_writer w;
	size_t errors = floe_lint_errors(r);
	floe_json_write_init(&w, out, false);
	floe_json_write_begin_object(&w, false);
	floe_json_write_key(&w, "findings");
	floe_json_write_begin_array(&w, false);
	for (size_t i = 0; i < r->n_findings; i++) {
		const floe_lint_finding *f = &r->findings[i];
		floe_json_write_begin_object(&w, false);
		floe_json_write_member_cstr(&w, "rule", f->rule);
		floe_json_write_member_cstr(&w, "severity", f->severity == FLOE_LINT_ERROR ? "error" : "warning");
		floe_json_write_member_cstr(&w, "file", f->file);
		floe_json_write_member_int(&w, "line", f->line);
		floe_json_write_member_int(&w, "col", f->col);
		floe_json_write_member_cstr(&w, "message", f->message);
		floe_json_write_end_object(&w);
	}
	floe_json_write_end_array(&w);
	write_coverage(&w, &r->coverage);
	floe_json_write_key(&w, "sqlfluff");
	floe_json_write_begin_object(&w, false);
	floe_json_write_member_cstr(&w, "version", r->sqlfluff);
	floe_json_write_member_cstr(&w, "note", r->sqlfluff_note);
	floe_json_write_end_object(&w);
	floe_json_write_member_int(&w, "errors", (int64_t)errors);
	floe_json_write_member_int(&w, "warnings", (int64_t)(r->n_findings - errors));
	floe_json_write_end_object(&w);
	return floe_json_write_finish(&w);
}
