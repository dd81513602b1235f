/*
 * sqlfluff.c — SQL style findings from sqlfluff (a program floe drives, not a library):
 * `sqlfluff lint --dialect duckdb --format json` over every model, run in pipeline/dbt so
 * a .sqlfluff there applies; its jinja templater knows dbt's ref/source/config. Each
 * violation becomes a warning "sqlfluff/<code>" at its file:line:col. Not installed: the
 * report says so (never silently clean).
 */
#include "lint/lint_int.h"
#include "base/error.h"
#include "base/json.h"
#include "base/proc.h"

#include <stdlib.h>
#include <string.h>

static const char *version_of(floe_lint_report *r, const char *program)
{
	const char *argv[] = { program, "--version", NULL };
	floe_proc_result res = { 0 };
	const char *out = NULL;
	if (floe_proc_run(&res, argv, NULL) == 0 && res.exit_code == 0 && res.out.len) {
		const char *v = strstr(floe_buf_cstr(&res.out), "version ");
		out = floe_arena_strdup(r->arena, v ? v + 8 : floe_buf_cstr(&res.out));
		char *nl = strchr(out, '\n');
		if (nl)
			*nl = '\0';
	}
	floe_proc_result_free(&res);
	floe_error_clear();
	return out;
}

static int64_t int_member(const floe_json_value *v, const char *key)
{
	int64_t n = 0;
	return floe_json_int64(&n, floe_json_get(v, key)) == 0 ? n : 0;
}

static void add_violations(floe_lint_report *r, const floe_json_value *file)
{
	const char *path = floe_json_string(floe_json_get(file, "filepath")).ptr;
	const floe_json_value *vs = floe_json_get(file, "violations");
	const char *rel = floe_arena_printf(r->arena, "dbt/%s", path ? path : "?");
	for (size_t i = 0; i < floe_json_count(vs); i++) {
		const floe_json_value *v = floe_json_value_at(vs, i);
		const char *code = floe_json_string(floe_json_get(v, "code")).ptr;
		const char *desc = floe_json_string(floe_json_get(v, "description")).ptr;
		lint_add(r, floe_arena_printf(r->arena, "sqlfluff/%s", code ? code : "?"), FLOE_LINT_WARN, rel,
			 (int)int_member(v, "start_line_no"), (int)int_member(v, "start_line_pos"), "%s",
			 desc ? desc : "");
	}
}

static int parse_output(floe_lint_report *r, const floe_buf *out)
{
	floe_json_doc *doc = NULL;
	floe_json_error jerr;
	if (floe_json_parse(&doc, out->ptr ? out->ptr : "", out->len, &jerr) < 0) {
		r->sqlfluff_note = floe_arena_printf(r->arena, "sqlfluff printed no JSON report (%s at line %d)",
						     jerr.message, jerr.line);
		return 0;
	}
	const floe_json_value *root = floe_json_root(doc);
	for (size_t i = 0; i < floe_json_count(root); i++)
		add_violations(r, floe_json_value_at(root, i));
	floe_json_free(doc);
	return 0;
}

int lint_sqlfluff(floe_lint_report *r, const char *program)
{
	const char *prog = program ? program : getenv("FLOE_SQLFLUFF") ? getenv("FLOE_SQLFLUFF") : "sqlfluff";
	const char **argv = floe_arena_alloc(r->arena, (r->n_models + 10) * sizeof(*argv));
	floe_proc_opts o = FLOE_PROC_OPTS_INIT;
	floe_proc_result res = { 0 };
	size_t n = 0;
	int error = 0;
	if (!floe_proc_have(prog) || !(r->sqlfluff = version_of(r, prog))) {
		r->sqlfluff_note = floe_arena_printf(r->arena, "sqlfluff is not installed (%s): SQL style not checked", prog);
		return 0;
	}
	if (r->n_models == 0)
		return 0;
	const char *fixed[] = { prog, "lint", "--dialect", "duckdb", "--format", "json", "--disable-progress-bar",
				"--nocolor" };
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		argv[n++] = fixed[i];
	for (size_t i = 0; i < r->n_models; i++)
		argv[n++] = r->models[i].sql + strlen("dbt/");
	argv[n] = NULL;
	o.cwd = floe_arena_printf(r->arena, "%s/dbt", r->pipeline);
	if (floe_proc_run(&res, argv, &o) < 0) {
		r->sqlfluff_note = floe_arena_printf(r->arena, "sqlfluff could not be started (%s)", prog);
		floe_error_clear();
	} else if (res.exit_code == 0 || res.exit_code == 1) {
		error = parse_output(r, &res.out);
	} else {
		r->sqlfluff_note = floe_arena_printf(r->arena, "sqlfluff exited %d: %.300s", res.exit_code,
						     floe_buf_cstr(&res.err));
	}
	floe_proc_result_free(&res);
	return error;
}
